/* Lie-group generalized-α and Newmark (integrator.h): the step of these methods; the common
 * part (creation, linear solves, halving) is in integ.c. */
#include <stdio.h>
#include <string.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"

/* Coefficients of Algorithm 1 from ρ∞ (genalpha) or the Newmark constants. */
static void coefficients(ld_integ *it) {
    if (it->o.method == LD_INTEG_NEWMARK) {
        it->am = it->af = 0.0;
        it->beta = 0.25;
        it->gamma = 0.5;
        return;
    }
    double r = it->o.rho_inf;
    it->am = (2.0 * r - 1.0) / (r + 1.0);
    it->af = r / (r + 1.0);
    it->gamma = 0.5 + it->af - it->am;
    it->beta = 0.25 * (it->gamma + 0.5) * (it->gamma + 0.5);
}

/* Predictor of Algorithm 1: v̇ = 0, λ = 0, a, v, Δq from the old state. */
static void predict(ld_integ *it, double h) {
    int k = it->k;
    for (int i = 0; i < k; ++i) {
        it->vdn[i] = 0.0;
        it->an[i] = (it->af * it->vd[i] - it->am * it->a[i]) / (1.0 - it->am);
        it->vn[i] = it->v[i] + h * (1.0 - it->gamma) * it->a[i] + it->gamma * h * it->an[i];
        it->dq[i] = it->v[i] + (0.5 - it->beta) * h * it->a[i] + it->beta * h * it->an[i];
    }
    memset(it->lamn, 0, (size_t)it->m * sizeof(double));
}

/* One Newton iteration: assemble, solve, update the trial state; *err the correction norm,
 * *at_roundoff set when the residual before the correction was already at round-off level
 * (then no iteration can reduce it further: the index-3 multipliers carry an O(ε/h²) noise
 * that a strict tolerance on λ would otherwise never pass). The iteration matrix is the
 * preconditioned D_L S_t D_R = [βh² (β'M + γ'C + K T), Bᵀ; B T, 0]. */
static int newton_iteration(ld_integ *it, double t1, double h, double *err, int *at_roundoff) {
    int k = it->k, m = it->m;
    double bh2 = it->beta * h * h;
    double bp = (1.0 - it->am) / (bh2 * (1.0 - it->af)), gp = it->gamma / (h * it->beta);
    it->bh2 = bh2;
    for (int i = 0; i < k; ++i) it->xi[i] = h * it->dq[i];
    ld_sys_retract(it->s, it->qn, it->q, it->xi);
    int rc = ld_integ__residual(it, t1);
    if (!rc) rc = ld_integ__assemble(it, t1, bh2 * bp, bh2 * gp, bh2, NULL);
    if (rc) return rc;
    rc = ld_integ__correction(it, at_roundoff);
    if (rc) return rc;
    for (int i = 0; i < k; ++i) {
        it->dq[i] += it->dx[i] / h;
        it->vn[i] += gp * it->dx[i];
        it->vdn[i] += bp * it->dx[i];
    }
    for (int i = 0; i < m; ++i) it->lamn[i] += it->dx[k + i];
    for (int i = 0; i < k; ++i) it->xi[i] = h * it->dq[i];
    *err = ld_integ__correction_norm(it, it->xi);
    return ld_integ__correction_finite(it);
}

/* Accept the trial state: q from the final Δq, a updated, everything copied; a non-finite
 * value rejects the step instead (the state untouched). */
static int commit(ld_integ *it, double h, int iters) {
    int k = it->k;
    for (int i = 0; i < k; ++i) it->xi[i] = h * it->dq[i];
    ld_sys_retract(it->s, it->qn, it->q, it->xi);
    for (int i = 0; i < k; ++i) it->an[i] += it->vdn[i] * (1.0 - it->af) / (1.0 - it->am);
    int rc = ld_integ__trial_finite(it);
    if (!rc) rc = ld_integ__finite(it, it->an, (size_t)k, "non-finite auxiliary acceleration");
    if (rc) return ld_integ__newton_status(it, rc, 0.0, h);
    memcpy(it->q, it->qn, (size_t)it->s->nq * sizeof(double));
    memcpy(it->v, it->vn, (size_t)k * sizeof(double));
    memcpy(it->vd, it->vdn, (size_t)k * sizeof(double));
    memcpy(it->a, it->an, (size_t)k * sizeof(double));
    memcpy(it->lam, it->lamn, (size_t)it->m * sizeof(double));
    it->st.last_iterations = iters;
    return LD_OK;
}

int ld_integ__genalpha_step(ld_integ *it, double t1) {
    double h = t1 - it->t;
    coefficients(it);
    predict(it, h);
    int i = 0, rc = ld_integ__newton(it, t1, h, newton_iteration, &i);
    if (rc) return rc;
    return commit(it, h, i);
}

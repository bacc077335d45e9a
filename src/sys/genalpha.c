/* Lie-group generalized-α and Newmark (integrator.h): the step of these methods; the common
 * part (creation, linear solves, halving) is in integ.c. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"

/* The method's own work space: the auxiliary acceleration a (carried from step to step), its
 * trial value, the velocity increment Δq of the step, and the coefficients. */
typedef struct ga {
    double *a, *an, *dq;
    double am, af, beta, gamma;
} ga;

static ga ga_of(const ld_integ *it) {
    size_t k = (size_t)it->k;
    ga g = {it->ws, it->ws + k, it->ws + 2 * k, 0.0, 0.0, 0.0, 0.0};
    if (it->meth->variant == 1) { /* Newmark */
        g.beta = 0.25;
        g.gamma = 0.5;
        return g;
    }
    if (it->meth->variant == 2) { /* the Newmark family: β and γ from the options */
        g.beta = ld_method_param_value(&it->o, &it->meth->info.params[0]);
        g.gamma = ld_method_param_value(&it->o, &it->meth->info.params[1]);
        return g;
    }
    double r = it->o.rho_inf; /* Algorithm 1 from ρ∞ */
    g.am = (2.0 * r - 1.0) / (r + 1.0);
    g.af = r / (r + 1.0);
    g.gamma = 0.5 + g.af - g.am;
    g.beta = 0.25 * (g.gamma + 0.5) * (g.gamma + 0.5);
    return g;
}

static size_t ga_work(const ld_system *s, size_t *keep) {
    *keep = (size_t)s->k;
    return 3 * (size_t)s->k + 2 * ((size_t)s->k + (size_t)s->m); /* + the projections' */
}

/* The auxiliary acceleration starts at v̇(0). */
static int ga_init(ld_integ *it) {
    memcpy(ga_of(it).a, it->vd, (size_t)it->k * sizeof(double));
    return LD_OK;
}

/* Predictor of Algorithm 1: v̇ = 0, λ = 0, a, v, Δq from the old state. */
static void predict(ld_integ *it, const ga *g, double h) {
    int k = it->k;
    for (int i = 0; i < k; ++i) {
        it->vdn[i] = 0.0;
        g->an[i] = (g->af * it->vd[i] - g->am * g->a[i]) / (1.0 - g->am);
        it->vn[i] = it->v[i] + h * (1.0 - g->gamma) * g->a[i] + g->gamma * h * g->an[i];
        g->dq[i] = it->v[i] + (0.5 - g->beta) * h * g->a[i] + g->beta * h * g->an[i];
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
    ga g = ga_of(it);
    double bh2 = g.beta * h * h;
    double bp = (1.0 - g.am) / (bh2 * (1.0 - g.af)), gp = g.gamma / (h * g.beta);
    it->bh2 = bh2;
    for (int i = 0; i < k; ++i) it->xi[i] = h * g.dq[i];
    ld_sys_retract(it->s, it->qn, it->q, it->xi);
    int rc = ld_integ__newton_eval(it, t1, bh2 * bp, bh2 * gp, bh2);
    if (rc) return rc;
    rc = ld_integ__correction(it, at_roundoff);
    if (rc) return rc;
    double *restrict dq = g.dq, *restrict vn = it->vn, *restrict vdn = it->vdn,
                     *restrict xi = it->xi;
    const double *restrict dx = it->dx; /* distinct arrays: one pass, no reloads */
    for (int i = 0; i < k; ++i) {
        dq[i] += dx[i] / h;
        vn[i] += gp * dx[i];
        vdn[i] += bp * dx[i];
        xi[i] = h * dq[i];
    }
    for (int i = 0; i < m; ++i) it->lamn[i] += dx[k + i];
    *err = ld_integ__correction_norm(it, it->xi);
    return ld_integ__correction_finite(it);
}

/* x ← the mass-orthogonal projection of x onto B x + c = 0 at the trial configuration: the
 * solution of [M Bᵀ; B 0] [x; μ] = [M x; −c] with S factored for it (b: k + m scratch). */
static int project_onto(ld_integ *it, double *x, const double *c, double *b) {
    int k = it->k, m = it->m;
    memset(b, 0, (size_t)k * sizeof *b);
    ld_integ__mass_times(it, x, b, NULL);
    for (int i = 0; i < m; ++i) b[k + i] = -c[i];
    int rc = ld_integ__solve(it, b);
    if (!rc) memcpy(x, b, (size_t)k * sizeof *x);
    return rc;
}

/* With the option project: the trial velocity and acceleration projected, each in the mass
 * metric, onto the velocity and acceleration constraints B v + Φ_t = 0, B v̇ + z = 0 at the
 * trial configuration (the mass-orthogonal projections of Bayo & Ledesma 1996), so that their
 * errors cannot build up where the method has no numerical damping. One more factorization of
 * [M Bᵀ; B 0] per step. */
static int project(ld_integ *it, double t1) {
    int k = it->k, m = it->m;
    double *b = it->ws + 3 * (size_t)k, *c = b + (size_t)k + (size_t)m;
    memset(it->xi, 0, (size_t)k * sizeof *it->xi); /* B itself: T(0) = I */
    int rc = ld_integ__residual(it, t1);
    if (!rc) rc = ld_integ__assemble(it, t1, 1.0, 0.0, 0.0, NULL);
    if (!rc) rc = ld_integ__factor(it);
    it->jac_ok = 0; /* this factorization is not the Newton matrix */
    if (!rc) rc = it->s->ops.phi_t ? it->s->ops.phi_t(it->s, t1, it->qn, c) : LD_OK;
    if (!rc && !it->s->ops.phi_t) memset(c, 0, (size_t)m * sizeof *c);
    if (!rc) rc = project_onto(it, it->vn, c, b);
    if (!rc) rc = ld_sys_phi_dd(it->s, t1, it->qn, it->vn, c);
    if (!rc) rc = project_onto(it, it->vdn, c, b);
    return rc;
}

/* Accept the trial state: q from the final Δq, a updated, everything copied; a non-finite
 * value rejects the step instead (the state untouched). */
static int commit(ld_integ *it, const ga *g, double h, int iters) {
    int k = it->k;
    for (int i = 0; i < k; ++i) it->xi[i] = h * g->dq[i];
    ld_sys_retract(it->s, it->qn, it->q, it->xi);
    if (it->o.project && it->m > 0) {
        double t1 = it->t + h;
        int rc = project(it, t1);
        if (rc) return ld_integ__newton_status(it, rc, 0.0, h);
    }
    for (int i = 0; i < k; ++i) g->an[i] += it->vdn[i] * (1.0 - g->af) / (1.0 - g->am);
    int rc = ld_integ__trial_finite(it);
    if (!rc) rc = ld_integ__finite(it, g->an, (size_t)k, "non-finite auxiliary acceleration");
    if (rc) return ld_integ__newton_status(it, rc, 0.0, h);
    ld_integ__commit(it, iters);
    memcpy(g->a, g->an, (size_t)k * sizeof(double));
    return LD_OK;
}

static int ga_step(ld_integ *it, double t1) {
    double h = t1 - it->t;
    ga g = ga_of(it);
    predict(it, &g, h);
    int i = 0, rc = ld_integ__newton(it, t1, h, newton_iteration, &i);
    if (rc) return rc;
    return commit(it, &g, h, i);
}

static const ld_method_param ga_params[] = {
    {"rho_inf", "--rho-inf", offsetof(ld_integ_options, rho_inf), 0.0, 1.0, 0.9, "[0, 1]",
     "spectral radius at infinity rho_inf (1: no numerical damping)"},
};

/* A second-order method of this file: name, title, parameters, variant (0 generalized-α,
 * 1 Newmark, 2 the Newmark family). */
#define GA_METHOD(nm, ttl, np, pars, v)                                                            \
    {                                                                                              \
        .info = {.name = nm,                                                                       \
                 .title = ttl,                                                                     \
                 .order = 2,                                                                       \
                 .nparams = np,                                                                    \
                 .params = pars,                                                                   \
                 .constraints = 1,                                                                 \
                 .euler = 1,                                                                       \
                 .newton = 1,                                                                      \
                 .refuses = ""},                                                                   \
        .variant = v, .work = ga_work, .init = ga_init, .step = ga_step                            \
    }

const ld_method_impl ld_method_genalpha =
    GA_METHOD("genalpha",
              "Lie-group generalized-alpha (Bruls, Cardona & Arnold 2012; Kynema's Algorithm 1), "
              "index-3 constraints",
              1, ga_params, 0);

const ld_method_impl ld_method_newmark =
    GA_METHOD("newmark", "Simo-Vu-Quoc Newmark on the group (beta = 1/4, gamma = 1/2)", 0, NULL, 1);

/* The Newmark family on the group with the user's β and γ (γ > ½ damps high frequencies and
 * makes the method first order; β ≥ ¼(γ + ½)² keeps it unconditionally stable). */
static const ld_method_param nb_params[] = {
    {"beta", "--beta", offsetof(ld_integ_options, param), 0.0, 0.5, 0.25, "[0, 1/2]",
     "Newmark beta (1/4: average acceleration; 1/6: linear acceleration)"},
    {"gamma", "--gamma", offsetof(ld_integ_options, param) + sizeof(double), 0.5, 1.0, 0.5,
     "[1/2, 1]", "Newmark gamma (1/2: second order, no numerical damping)"},
};

const ld_method_impl ld_method_newmark_beta =
    GA_METHOD("newmark-beta",
              "the Newmark family on the group with chosen beta and gamma (Newmark 1959; Simo & "
              "Vu-Quoc's Lie-group form); second order at gamma = 1/2",
              2, nb_params, 2);

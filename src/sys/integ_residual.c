/*
 * The residual of the Newton iterations shared by the methods (integ_impl.h): its dense
 * evaluation r = M v̇ + g + Bᵀλ, Φ, with M's band and the scale of its terms, the finiteness
 * checks of the residual and of a trial state, the norms of the residual and of a correction,
 * and the products with M and Bᵀ.
 */
#include <math.h>
#include <stddef.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"

int ld_integ__residual(ld_integ *it, double t) {
    if (it->blocks) return ld_integ__blocks_residual(it, t);
    const ld_system *s = it->s;
    int k = it->k, m = it->m, rc = s->ops.mass(s, it->qn, it->M);
    if (!rc) rc = s->ops.force(s, t, it->qn, it->vn, it->r);
    if (!rc && m > 0) rc = s->ops.phi_q(s, t, it->qn, it->B);
    if (!rc && m > 0) rc = s->ops.phi(s, t, it->qn, it->r + k);
    if (!rc) ld_integ__mass_band(it);
    return rc ? rc : ld_integ__residual_sums(it);
}

void ld_integ__mass_band(ld_integ *it) {
    size_t k = (size_t)it->k;
    for (size_t i = 0; i < k; ++i) {
        const double *Mi = it->M + i * k;
        size_t lo = 0, hi = k;
        while (lo < k && Mi[lo] == 0.0) ++lo;
        while (hi > lo && Mi[hi - 1] == 0.0) --hi;
        it->mband[2 * i] = (int)lo, it->mband[2 * i + 1] = (int)hi;
    }
}

/* Row i's products with M only inside its band: the terms left out are exact zeros (M's, times
 * the finite v̇), which change neither sum. */
int ld_integ__residual_sums(ld_integ *it) {
    const ld_system *s = it->s;
    int k = it->k, m = it->m;
    double h2 = it->bh2 * it->bh2, sc = 0.0, qmax = 0.0;
    double *restrict r = it->r; /* distinct arrays: no reloads after each store to r */
    const double *restrict M = it->M, *restrict B = it->B, *restrict vd = it->vdn,
                           *restrict lam = it->lamn, *restrict q = it->qn;
    const int *restrict band = it->mband;
    for (int i = 0; i < k; ++i) {
        double acc = 0.0, mag = fabs(r[i]);
        const double *Mi = M + (size_t)i * (size_t)k;
        for (int j = band[2 * i]; j < band[2 * i + 1]; ++j) {
            acc += Mi[j] * vd[j];
            mag += fabs(Mi[j] * vd[j]);
        }
        for (int j = 0; j < m; ++j) {
            double b = B[(size_t)j * (size_t)k + (size_t)i] * lam[j];
            acc += b;
            mag += fabs(b);
        }
        r[i] += acc;
        sc += h2 * mag * mag;
    }
    for (int i = 0; i < s->nq; ++i) { /* fmax's result, without its call */
        double a = fabs(q[i]);
        qmax = a > qmax ? a : qmax;
    }
    sc += (double)m * (1.0 + qmax) * (1.0 + qmax);
    it->rscale = sqrt(sc / (double)it->n);
    return ld_integ__finite(it, it->r, (size_t)it->n, "non-finite residual");
}

int ld_integ__finite(ld_integ *it, const double *x, size_t n, const char *what) {
    if (ld_zero_sum(x, n) == 0.0) return LD_OK;
    it->why = what;
    return LD_EDOMAIN;
}

int ld_integ__trial_finite(ld_integ *it) {
    size_t k = (size_t)it->k;
    if (ld_zero_sum(it->qn, (size_t)it->s->nq) + ld_zero_sum(it->vn, k) + ld_zero_sum(it->vdn, k) +
            ld_zero_sum(it->lamn, (size_t)it->m) ==
        0.0)
        return LD_OK; /* all finite: one pass; otherwise the first culprit named below */
    int rc = ld_integ__finite(it, it->qn, (size_t)it->s->nq, "non-finite configuration");
    if (!rc) rc = ld_integ__finite(it, it->vn, k, "non-finite velocity");
    if (!rc) rc = ld_integ__finite(it, it->vdn, k, "non-finite acceleration");
    if (!rc) rc = ld_integ__finite(it, it->lamn, (size_t)it->m, "non-finite multipliers");
    return rc;
}

double ld_integ__residual_rms(const ld_integ *it) {
    double rn = 0.0;
    for (int i = 0; i < it->k; ++i) rn += (it->bh2 * it->r[i]) * (it->bh2 * it->r[i]);
    for (int i = it->k; i < it->n; ++i) rn += it->r[i] * it->r[i];
    return sqrt(rn / (double)it->n);
}

double ld_integ__correction_norm(const ld_integ *it, const double *pos) {
    double sum = 0.0;
    for (int i = 0; i < it->k; ++i) {
        double w = it->o.newton_atol + it->o.newton_rtol * fabs(pos[i]);
        sum += (it->dx[i] / w) * (it->dx[i] / w);
    }
    for (int i = 0; i < it->m; ++i) {
        double w = it->o.newton_atol + it->o.newton_rtol * fabs(it->lamn[i]);
        sum += (it->dx[it->k + i] / w) * (it->dx[it->k + i] / w);
    }
    return sqrt(sum / (double)it->n);
}

void ld_integ__mass_times(const ld_integ *it, const double *x, double *y, double *mag) {
    if (it->blocks) {
        ld_integ__blocks_mass_times(it, x, y, mag);
        return;
    }
    size_t k = (size_t)it->k;
    for (size_t i = 0; i < k; ++i) {
        double acc = 0.0, mg = 0.0;
        const double *Mi = it->M + i * k;
        for (size_t j = 0; j < k; ++j) {
            acc += Mi[j] * x[j];
            mg += fabs(Mi[j] * x[j]);
        }
        y[i] += acc;
        if (mag) mag[i] += mg;
    }
}

int ld_integ__add_bt_lambda(ld_integ *it, double t, const double *q, const double *lam, double *y) {
    const ld_system *s = it->s;
    if (it->m == 0) return LD_OK;
    if (it->blocks) {
        int rc = s->ops.phi_q_sparse(s, t, q, it->Bv);
        if (!rc) ld_integ__blocks_bt_times(it, lam, y, NULL);
        return rc;
    }
    size_t k = (size_t)it->k;
    int rc = s->ops.phi_q(s, t, q, it->B);
    for (size_t c = 0; !rc && c < (size_t)it->m; ++c)
        for (size_t i = 0; i < k; ++i) y[i] += it->B[c * k + i] * lam[c];
    return rc;
}

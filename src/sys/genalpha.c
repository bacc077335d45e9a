/* Lie-group generalized-α and Newmark (integrator.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"

static const char *const method_names[LD_INTEG_COUNT] = {"genalpha", "newmark"};

const char *ld_integ_method_name(ld_integ_method m) {
    return (m >= 0 && m < LD_INTEG_COUNT) ? method_names[m] : "?";
}

int ld_integ_method_find(const char *name) {
    for (int i = 0; name && i < LD_INTEG_COUNT; ++i)
        if (strcmp(name, method_names[i]) == 0) return i;
    return -1;
}

void ld_integ_options_init(ld_integ_options *o) {
    memset(o, 0, sizeof *o);
    o->method = LD_INTEG_GENALPHA;
    o->rho_inf = 0.9;
    o->atol = 1e-10;
    o->rtol = 1e-8;
    o->max_iter = 20;
    o->max_halvings = 10;
    o->la = LD_LA_DENSE;
}

struct ld_integ {
    const ld_system *s;
    ld_integ_options o;
    double am, af, beta, gamma;
    double bh2; /* βh² of the current step */
    int k, m, n;
    ld_la *la;
    double t;
    /* state */
    double *q, *v, *vd, *a, *lam;
    /* trial state */
    double *qn, *vn, *vdn, *an, *lamn, *dq, *xi;
    /* residual, correction, matrices */
    double *r, *dx, *S, *M, *C, *K, *T, *B, *KT;
    double *hist, *rhist;
    int nhist;
    int *colptr, *rowind; /* KLU: the fixed CSC pattern (first factorization) */
    double *vals;
    int *blk;      /* block index of every row/column (nodes, then constraint rows) */
    double rscale; /* round-off scale of the preconditioned residual (RMS of the term sizes) */
    ld_integ_stats st;
    char msg[160];
};

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

static int options_ok(const ld_integ_options *o) {
    return o->method >= 0 && o->method < LD_INTEG_COUNT && o->rho_inf >= 0.0 && o->rho_inf <= 1.0 &&
           o->atol > 0.0 && o->rtol >= 0.0 && isfinite(o->atol) && isfinite(o->rtol) &&
           o->max_iter >= 1 && o->max_halvings >= 0 && (o->la == LD_LA_DENSE || o->la == LD_LA_KLU);
}

ld_integ *ld_integ_create(const ld_system *s, const ld_integ_options *o, int *status) {
    int dummy;
    if (!status) status = &dummy;
    *status = LD_EINVAL;
    if (!s || !o || !options_ok(o) || s->k < 1 || s->m < 0 || !s->ops.mass || !s->ops.force ||
        (s->m > 0 && (!s->ops.phi || !s->ops.phi_q)))
        return NULL;
    ld_integ *it = calloc(1, sizeof *it);
    if (!it) {
        *status = LD_ENOMEM;
        return NULL;
    }
    it->s = s;
    it->o = *o;
    it->k = s->k;
    it->m = s->m;
    it->n = s->k + s->m;
    coefficients(it);
    size_t k = (size_t)it->k, m = (size_t)it->m, n = (size_t)it->n, nq = (size_t)s->nq;
    size_t total =
        2 * nq + 8 * k + 2 * m + n + n + n * n + 5 * k * k + m * k + 2 * (size_t)o->max_iter;
    double *p = calloc(total, sizeof(double));
    it->la = ld_la_create(o->la, it->n);
    if (!p || !it->la) {
        free(p);
        ld_la_free(it->la);
        free(it);
        *status = LD_ENOMEM;
        return NULL;
    }
    it->q = p, p += nq;
    it->qn = p, p += nq;
    it->v = p, p += k;
    it->vd = p, p += k;
    it->a = p, p += k;
    it->vn = p, p += k;
    it->vdn = p, p += k;
    it->an = p, p += k;
    it->dq = p, p += k;
    it->xi = p, p += k;
    it->lam = p, p += m;
    it->lamn = p, p += m;
    it->r = p, p += n;
    it->dx = p, p += n;
    it->S = p, p += n * n;
    it->M = p, p += k * k;
    it->C = p, p += k * k;
    it->K = p, p += k * k;
    it->T = p, p += k * k;
    it->KT = p, p += k * k;
    it->B = p, p += m * k;
    it->hist = p, p += o->max_iter;
    it->rhist = p;
    *status = LD_OK;
    return it;
}

void ld_integ_free(ld_integ *it) {
    if (!it) return;
    ld_la_free(it->la);
    free(it->q); /* the one block */
    free(it->colptr);
    free(it->rowind);
    free(it->vals);
    free(it->blk);
    free(it);
}

int ld_integ_init(ld_integ *it, double t0, const double *q0, const double *v0) {
    if (!it || !q0 || !v0 || !isfinite(t0)) return LD_EINVAL;
    const ld_system *s = it->s;
    memcpy(it->q, q0, (size_t)s->nq * sizeof(double));
    memcpy(it->v, v0, (size_t)it->k * sizeof(double));
    it->t = t0;
    int rc = ld_sys_initial_accel(s, t0, it->q, it->v, it->vd, it->lam);
    if (rc) return rc;
    memcpy(it->a, it->vd, (size_t)it->k * sizeof(double));
    memset(&it->st, 0, sizeof it->st);
    it->msg[0] = '\0';
    return LD_OK;
}

static int all_finite(const double *x, int n) {
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* Residual at the trial state: r = [M v̇ + g + Bᵀλ; Φ]; also leaves M and B in place, and
 * the size of the terms (rscale) from which round-off in D_L r is estimated. */
static int residual(ld_integ *it, double t) {
    const ld_system *s = it->s;
    int k = it->k, m = it->m, rc = s->ops.mass(s, it->qn, it->M);
    if (!rc) rc = s->ops.force(s, t, it->qn, it->vn, it->r);
    if (!rc && m > 0) rc = s->ops.phi_q(s, t, it->qn, it->B);
    if (!rc && m > 0) rc = s->ops.phi(s, t, it->qn, it->r + k);
    if (rc) return rc;
    double h2 = it->bh2 * it->bh2, sc = 0.0, qmax = 0.0;
    for (int i = 0; i < k; ++i) {
        double acc = 0.0, mag = fabs(it->r[i]);
        const double *Mi = it->M + (size_t)i * (size_t)k;
        for (int j = 0; j < k; ++j) {
            acc += Mi[j] * it->vdn[j];
            mag += fabs(Mi[j] * it->vdn[j]);
        }
        for (int j = 0; j < m; ++j) {
            double b = it->B[(size_t)j * (size_t)k + (size_t)i] * it->lamn[j];
            acc += b;
            mag += fabs(b);
        }
        it->r[i] += acc;
        sc += h2 * mag * mag;
    }
    for (int i = 0; i < s->nq; ++i) qmax = fmax(qmax, fabs(it->qn[i]));
    sc += (double)m * (1.0 + qmax) * (1.0 + qmax);
    it->rscale = sqrt(sc / (double)it->n);
    return LD_OK;
}

/* The preconditioned iteration matrix D_L S_t D_R:
 *   [βh² (β'M + γ'C + K T),  Bᵀ]
 *   [B T,                    0 ]. */
static int iteration_matrix(ld_integ *it, double t, double h) {
    const ld_system *s = it->s;
    int k = it->k, m = it->m, n = it->n;
    double bh2 = it->beta * h * h;
    double bp = (1.0 - it->am) / (bh2 * (1.0 - it->af)), gp = it->gamma / (h * it->beta);
    int rc = ld_sys_g_v(s, t, it->qn, it->vn, it->C);
    if (!rc) rc = ld_sys_stiffness(s, t, it->qn, it->vn, it->vdn, it->lamn, it->K);
    if (rc) return rc;
    ld_sys_tangent(s, it->T, it->xi);
    size_t K = (size_t)k, N = (size_t)n;
    for (size_t i = 0; i < K; ++i)
        for (size_t j = 0; j < K; ++j) {
            double acc = 0.0;
            for (size_t l = 0; l < K; ++l) acc += it->K[i * K + l] * it->T[l * K + j];
            it->S[i * N + j] = bh2 * (bp * it->M[i * K + j] + gp * it->C[i * K + j] + acc);
        }
    for (size_t c = 0; c < (size_t)m; ++c) {
        const double *Bc = it->B + c * K;
        for (size_t i = 0; i < K; ++i) it->S[i * N + K + c] = Bc[i];
        for (size_t j = 0; j < K; ++j) {
            double acc = 0.0;
            for (size_t l = 0; l < K; ++l) acc += Bc[l] * it->T[l * K + j];
            it->S[(K + c) * N + j] = acc;
        }
        for (size_t j = 0; j < (size_t)m; ++j) it->S[(K + c) * N + K + j] = 0.0;
    }
    return LD_OK;
}

/* Weighted RMS norm of the correction (Arnold & Hante 2017). */
static double correction_norm(const ld_integ *it, double h) {
    double sum = 0.0;
    for (int i = 0; i < it->k; ++i) {
        double w = it->o.atol + it->o.rtol * fabs(h * it->dq[i]);
        sum += (it->dx[i] / w) * (it->dx[i] / w);
    }
    for (int i = 0; i < it->m; ++i) {
        double w = it->o.atol + it->o.rtol * fabs(it->lamn[i]);
        sum += (it->dx[it->k + i] / w) * (it->dx[it->k + i] / w);
    }
    return sqrt(sum / (double)it->n);
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

static int reject(ld_integ *it, const char *why, double h) {
    it->st.rejected++;
    snprintf(it->msg, sizeof it->msg, "step h = %.3g at t = %.9g rejected: %s", h, it->t, why);
    return LD_RETRY;
}

/* The KLU pattern at block granularity (a node's velocity block, or one constraint row):
 * block (I, J) is kept if I = J is a node, or if any entry of it is non-zero in the first
 * iteration matrix. Entries of finite-difference tangents that are zero by accident then
 * cannot change the pattern later; only a coupling between blocks that was absent in the
 * first matrix would be dropped (none arises for a fixed topology). Allocated once. */
static int klu_pattern(ld_integ *it) {
    const ld_system *s = it->s;
    int n = it->n, nb = s->nnodes + it->m;
    it->blk = malloc((size_t)n * sizeof(int));
    unsigned char *keep = calloc((size_t)nb * (size_t)nb, 1);
    if (!it->blk || !keep) {
        free(keep);
        return LD_ENOMEM;
    }
    for (int b = 0; b < s->nnodes; ++b) {
        int w = (b + 1 < s->nnodes ? s->nodes[b + 1].voff : it->k) - s->nodes[b].voff;
        for (int j = 0; j < w; ++j) it->blk[s->nodes[b].voff + j] = b;
        keep[(size_t)b * (size_t)nb + (size_t)b] = 1;
    }
    for (int c = 0; c < it->m; ++c) it->blk[it->k + c] = s->nnodes + c;
    for (size_t i = 0; i < (size_t)n; ++i)
        for (size_t j = 0; j < (size_t)n; ++j)
            if (it->S[i * (size_t)n + j] != 0.0)
                keep[(size_t)it->blk[i] * (size_t)nb + (size_t)it->blk[j]] = 1;
    size_t nnz = 0;
    for (size_t i = 0; i < (size_t)n; ++i)
        for (size_t j = 0; j < (size_t)n; ++j)
            nnz += keep[(size_t)it->blk[i] * (size_t)nb + (size_t)it->blk[j]];
    it->colptr = malloc(((size_t)n + 1) * sizeof(int));
    it->rowind = malloc((nnz ? nnz : 1) * sizeof(int));
    it->vals = malloc((nnz ? nnz : 1) * sizeof(double));
    if (!it->colptr || !it->rowind || !it->vals) {
        free(keep);
        return LD_ENOMEM;
    }
    int p = 0;
    for (int j = 0; j < n; ++j) {
        it->colptr[j] = p;
        for (int i = 0; i < n; ++i)
            if (keep[(size_t)it->blk[i] * (size_t)nb + (size_t)it->blk[j]]) it->rowind[p++] = i;
    }
    it->colptr[n] = p;
    free(keep);
    return LD_OK;
}

/* Factor the iteration matrix S with the chosen backend. */
static int factor(ld_integ *it) {
    if (it->o.la == LD_LA_DENSE) return ld_la_factor_dense(it->la, it->S);
    if (!it->colptr) {
        int rc = klu_pattern(it);
        if (rc) return rc;
    }
    size_t n = (size_t)it->n;
    for (size_t j = 0; j < n; ++j)
        for (int p = it->colptr[j]; p < it->colptr[j + 1]; ++p)
            it->vals[p] = it->S[(size_t)it->rowind[p] * n + j];
    return ld_la_factor_csc(it->la, it->colptr, it->rowind, it->vals);
}

/* One Newton iteration: assemble, solve, update the trial state; *err the correction norm,
 * *at_roundoff set when the residual before the correction was already at round-off level
 * (then no iteration can reduce it further: the index-3 multipliers carry an O(ε/h²) noise
 * that a strict tolerance on λ would otherwise never pass). */
static int newton_iteration(ld_integ *it, double t1, double h, double *err, int *at_roundoff) {
    int k = it->k, m = it->m, n = it->n;
    double bh2 = it->beta * h * h;
    double bp = (1.0 - it->am) / (bh2 * (1.0 - it->af)), gp = it->gamma / (h * it->beta);
    it->bh2 = bh2;
    for (int i = 0; i < k; ++i) it->xi[i] = h * it->dq[i];
    ld_sys_retract(it->s, it->qn, it->q, it->xi);
    int rc = residual(it, t1);
    if (!rc) rc = iteration_matrix(it, t1, h);
    if (rc) return rc;
    double rn = 0.0; /* RMS of the preconditioned residual D_L r */
    for (int i = 0; i < k; ++i) rn += (bh2 * it->r[i]) * (bh2 * it->r[i]);
    for (int i = k; i < n; ++i) rn += it->r[i] * it->r[i];
    rn = sqrt(rn / (double)n);
    it->rhist[it->nhist] = rn;
    *at_roundoff = rn <= 1e3 * DBL_EPSILON * it->rscale;
    for (int i = 0; i < k; ++i) it->dx[i] = -bh2 * it->r[i];
    for (int i = k; i < n; ++i) it->dx[i] = -it->r[i];
    it->st.factorizations++;
    rc = factor(it);
    if (!rc) rc = ld_la_solve(it->la, it->dx);
    if (rc) return rc;
    for (int i = 0; i < m; ++i) it->dx[k + i] /= bh2;
    for (int i = 0; i < k; ++i) {
        it->dq[i] += it->dx[i] / h;
        it->vn[i] += gp * it->dx[i];
        it->vdn[i] += bp * it->dx[i];
    }
    for (int i = 0; i < m; ++i) it->lamn[i] += it->dx[k + i];
    *err = correction_norm(it, h);
    return all_finite(it->dx, n) ? LD_OK : LD_EDOMAIN;
}

/* Accept the trial state: q from the final Δq, a updated, everything copied. */
static void commit(ld_integ *it, double h, int iters) {
    int k = it->k;
    for (int i = 0; i < k; ++i) it->xi[i] = h * it->dq[i];
    ld_sys_retract(it->s, it->qn, it->q, it->xi);
    for (int i = 0; i < k; ++i) it->an[i] += it->vdn[i] * (1.0 - it->af) / (1.0 - it->am);
    memcpy(it->q, it->qn, (size_t)it->s->nq * sizeof(double));
    memcpy(it->v, it->vn, (size_t)k * sizeof(double));
    memcpy(it->vd, it->vdn, (size_t)k * sizeof(double));
    memcpy(it->a, it->an, (size_t)k * sizeof(double));
    memcpy(it->lam, it->lamn, (size_t)it->m * sizeof(double));
    it->st.steps++;
    it->st.last_iterations = iters;
}

/* One step from t to exactly t1 > t (h = t1 − t). */
static int step_to(ld_integ *it, double t1) {
    double h = t1 - it->t, err = 2.0;
    if (!(h > 0.0) || !isfinite(h)) return LD_EINVAL;
    it->msg[0] = '\0';
    it->nhist = 0;
    predict(it, h);
    int i = 0, floor = 0;
    while (i < it->o.max_iter && err > 1.0 && !floor) {
        ++i;
        it->st.newton_iterations++;
        int rc = newton_iteration(it, t1, h, &err, &floor);
        if (rc == LD_ESINGULAR) return reject(it, "singular iteration matrix", h);
        if (rc == LD_EDOMAIN || !isfinite(err))
            return reject(it, "non-finite Newton correction", h);
        if (rc > 0) return reject(it, "the model asked for a smaller step", h);
        if (rc < 0) return rc;
        it->hist[it->nhist++] = err;
    }
    if (err > 1.0 && floor) it->st.roundoff_stops++;
    if (err > 1.0 && !floor) {
        char why[96];
        snprintf(why, sizeof why, "Newton did not converge in %d iterations (error norm %.3g)",
                 it->o.max_iter, err);
        return reject(it, why, h);
    }
    commit(it, h, i);
    it->t = t1;
    return LD_OK;
}

int ld_integ_step(ld_integ *it, double h) {
    if (!it || !(h > 0.0) || !isfinite(h) || !(it->t + h > it->t)) return LD_EINVAL;
    return step_to(it, it->t + h);
}

/* Advance to exactly t1; on rejection two half steps (the midpoint, then t1), recursively up
 * to `depth` halvings. */
static int advance_rec(ld_integ *it, double t1, int depth) {
    double t0 = it->t;
    int rc = step_to(it, t1);
    if (rc != LD_RETRY || depth <= 0) return rc;
    double mid = t0 + 0.5 * (t1 - t0);
    if (!(mid > t0 && mid < t1)) return rc; /* below the resolution of t */
    rc = advance_rec(it, mid, depth - 1);
    if (rc) return rc;
    return advance_rec(it, t1, depth - 1);
}

int ld_integ_advance(ld_integ *it, double h) {
    if (!it || !(h > 0.0) || !isfinite(h)) return LD_EINVAL;
    return ld_integ_advance_to(it, it->t + h);
}

int ld_integ_advance_to(ld_integ *it, double t1) {
    if (!it || !isfinite(t1) || !(t1 > it->t)) return LD_EINVAL;
    return advance_rec(it, t1, it->o.max_halvings);
}

double ld_integ_t(const ld_integ *it) {
    return it->t;
}
const double *ld_integ_q(const ld_integ *it) {
    return it->q;
}
const double *ld_integ_v(const ld_integ *it) {
    return it->v;
}
const double *ld_integ_vdot(const ld_integ *it) {
    return it->vd;
}
const double *ld_integ_lambda(const ld_integ *it) {
    return it->lam;
}
void ld_integ_get_stats(const ld_integ *it, ld_integ_stats *st) {
    *st = it->st;
}
const char *ld_integ_message(const ld_integ *it) {
    return it->msg;
}
const double *ld_integ_newton_history(const ld_integ *it, int *n) {
    *n = it->nhist;
    return it->hist;
}
const double *ld_integ_residual_history(const ld_integ *it, int *n) {
    *n = it->nhist;
    return it->rhist;
}

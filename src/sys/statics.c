/*
 * Static equilibrium by Newton's method with load stepping (statics.h). Work space sized once:
 * O((k + m)²) for the dense iteration matrix, or, on the sparse path, O(k + m + entries) for the
 * saddle-point matrix assembled from the node blocks (saddle.h) and factored by KLU.
 */
#include "liedyn/statics.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/linalg.h"
#include "../core/oom.h"
#include "saddle.h"

void ld_static_options_init(ld_static_options *o) {
    if (!o) return;
    o->steps = 10;
    o->max_iter = 25;
    o->max_cuts = 12;
    o->tol = 1e-10;
    o->la = LD_LA_AUTO;
}

typedef struct work {
    const ld_system *s;
    double t;
    int k, m, n;
    double *zero, *g0, *r, *dx, *S, *K, *B, *qs, *ls, *qn, *M, *q0;
    ld_la *la;
    /* the sparse path (sparse = 1): S's pattern and where the values land, its values, the
     * tangent blocks' values, identity node blocks (T = I at the state) and B's values */
    int sparse, nb;
    size_t nt, nnz;
    int *colptr, *rowind, *map_t, *map_bt, *map_b;
    double *csc, *tv, *Tb, *Bv;
} work;

static double maxabs(const double *x, int n) {
    double a = 0.0;
    for (int i = 0; i < n; ++i) a = fmax(a, fabs(x[i]));
    return a;
}

/* r = [g(t, q, 0) + Bᵀλ − (1 − f) g0; Φ(t, q)] and B at q (dense, or its values). */
static int residual(work *w, const double *q, const double *lam, double f) {
    const ld_system *s = w->s;
    int rc = s->ops.force(s, w->t, q, w->zero, w->r);
    if (!rc && w->m > 0)
        rc = w->sparse ? s->ops.phi_q_sparse(s, w->t, q, w->Bv) : s->ops.phi_q(s, w->t, q, w->B);
    if (!rc && w->m > 0) rc = s->ops.phi(s, w->t, q, w->r + w->k);
    if (rc) return rc;
    for (int i = 0; i < w->k; ++i) w->r[i] -= (1.0 - f) * w->g0[i];
    if (w->sparse) {
        for (int e = 0; e < w->nb; ++e) w->r[s->bcol[e]] += w->Bv[e] * lam[s->brow[e]];
    } else {
        for (int i = 0; i < w->k; ++i) {
            double acc = w->r[i];
            for (int c = 0; c < w->m; ++c)
                acc += w->B[(size_t)c * (size_t)w->k + (size_t)i] * lam[c];
            w->r[i] = acc;
        }
    }
    for (int i = 0; i < w->n; ++i)
        if (!isfinite(w->r[i])) return LD_EDOMAIN;
    return LD_OK;
}

/* The sparse S = [K + c M, Bᵀ; B, 0] at (q, λ) into its values (B from the last residual). */
static int matrix_sparse(work *w, const double *q, const double *lam, double cm) {
    const ld_system *s = w->s;
    int rc = s->ops.tangent_blocks(s, w->t, q, w->zero, w->zero, lam, cm, 0.0, 1.0, w->Tb, w->tv);
    if (rc) return rc;
    for (size_t e = 0; e < w->nt; ++e) w->csc[w->map_t[e]] = w->tv[e];
    for (int e = 0; e < w->nb; ++e) w->csc[w->map_bt[e]] = w->csc[w->map_b[e]] = w->Bv[e];
    for (size_t e = 0; e < w->nnz; ++e)
        if (!isfinite(w->csc[e])) return LD_EDOMAIN;
    return LD_OK;
}

/* S = [K + c M, Bᵀ; B, 0] at (q, λ) (B from the last residual; M only when c > 0). */
static int matrix(work *w, const double *q, const double *lam, double cm) {
    if (w->sparse) return matrix_sparse(w, q, lam, cm);
    size_t k = (size_t)w->k, n = (size_t)w->n;
    int rc = ld_sys_stiffness(w->s, w->t, q, w->zero, w->zero, lam, w->K);
    if (!rc && cm > 0.0) rc = w->s->ops.mass(w->s, q, w->M);
    if (rc) return rc;
    memset(w->S, 0, n * n * sizeof(double));
    for (size_t i = 0; i < k; ++i) memcpy(w->S + i * n, w->K + i * k, k * sizeof(double));
    for (size_t i = 0; cm > 0.0 && i < k; ++i)
        for (size_t j = 0; j < k; ++j) w->S[i * n + j] += cm * w->M[i * k + j];
    for (size_t c = 0; c < (size_t)w->m; ++c)
        for (size_t i = 0; i < k; ++i) {
            double b = w->B[c * k + i];
            w->S[(k + c) * n + i] = b;
            w->S[i * n + k + c] = b;
        }
    for (size_t i = 0; i < n * n; ++i)
        if (!isfinite(w->S[i])) return LD_EDOMAIN;
    return LD_OK;
}

/* Factor S (dense or sparse). */
static int factor(work *w) {
    return w->sparse ? ld_la_factor_csc(w->la, w->colptr, w->rowind, w->csc)
                     : ld_la_factor_dense(w->la, w->S);
}

/* The largest entry of S. */
static double matrix_max(const work *w) {
    return w->sparse ? maxabs(w->csc, (int)w->nnz) : maxabs(w->S, w->n * w->n);
}

/* Newton at load fraction f from (q, λ): LD_OK when the residual reaches tol, else a failure
 * (> 0: not converged). */
static int newton(work *w, double *q, double *lam, double f, double tol, int max_iter, long *iters,
                  double *res) {
    double last = INFINITY; /* |δ|∞ of the last correction */
    double floor = 0.0;     /* the round-off of the forces: 1000 ε times the largest stiffness */
    for (int it = 0;; ++it) {
        int rc = residual(w, q, lam, f);
        if (rc) return rc;
        *res = maxabs(w->r, w->n);
        if (*res <= tol) return LD_OK;
        /* round-off reached: a correction below 1e-13 left a residual within 1000 tolerances,
         * or within the forces' own round-off (stiff sections evaluate their forces to about ε
         * times their stiffness: an unloaded blade, whose tolerance has no load to scale by) */
        if (last <= 1e-13 && *res <= fmax(1e3 * tol, floor)) return LD_OK;
        if (it >= max_iter) return 1;
        if ((rc = matrix(w, q, lam, 0.0))) return rc;
        floor = 1e3 * DBL_EPSILON * matrix_max(w);
        ++*iters;
        for (int i = 0; i < w->n; ++i) w->dx[i] = -w->r[i];
        rc = factor(w);
        if (!rc) rc = ld_la_solve(w->la, w->dx);
        if (rc) return rc;
        last = maxabs(w->dx, w->k);
        if (!isfinite(last)) return LD_EDOMAIN;
        ld_sys_retract(w->s, w->qn, q, w->dx);
        memcpy(q, w->qn, (size_t)w->s->nq * sizeof(double));
        for (int c = 0; c < w->m; ++c) lam[c] += w->dx[w->k + c];
    }
}

/* One correction of the pseudo-transient iteration: S = [K + c M, Bᵀ; B, 0] solved for the
 * residual at (q, λ), the result in (qn, lam_n = ls); |Δq|∞ in *step. */
static int relax_step(work *w, const double *q, const double *lam, double c, double *step) {
    int rc = matrix(w, q, lam, c);
    for (int i = 0; !rc && i < w->n; ++i) w->dx[i] = -w->r[i];
    if (!rc) rc = factor(w);
    if (!rc) rc = ld_la_solve(w->la, w->dx);
    if (rc) return rc;
    *step = maxabs(w->dx, w->k);
    if (!isfinite(*step)) return LD_EDOMAIN;
    ld_sys_retract(w->s, w->qn, q, w->dx);
    for (int i = 0; i < w->m; ++i) w->ls[i] = lam[i] + w->dx[w->k + i];
    return LD_OK;
}

/* The energy at rest at q (the potential; −inf when the system has none or it fails, so that
 * no step is refused for it). */
static double potential(work *w, const double *q) {
    double e = -INFINITY;
    if (!w->s->ops.energy || w->s->ops.energy(w->s, w->t, q, w->zero, &e) || !isfinite(e))
        return -INFINITY;
    return e;
}

/* Pseudo-transient continuation (Kelley & Keyes 1998) at the full load from (q, λ): Newton
 * on [K + c M, Bᵀ; B, 0], the inertia term c M as from an implicit step of size 1/√c that
 * keeps the iteration well posed where K is singular (a mechanism: a pendulum off its rest
 * position); c is raised (ten times) until a correction moves at most RELAX_STEP (rad or m),
 * and then follows the residual (switched evolution relaxation: c ← c |r_new| / |r_old|), so
 * that the last iterations are Newton's. A correction that raises the energy at rest (where the
 * system has one) above its value at the start is refused and c raised instead, so that the
 * iteration goes downhill to an equilibrium the system settles into, not to a maximum just
 * above the start (the iterates are off the constraints by O(step²), so the energy is compared
 * with the start's, not step by step); a start that is an equilibrium already, stable or not,
 * is kept. A system with no equilibrium (a free body under a load) stops when in RELAX_STALL
 * corrections neither has the residual halved nor the energy at rest fallen. */
#define RELAX_STEP  0.1
#define RELAX_MAX   1000
#define RELAX_STALL 100 /* give up when neither the residual halved nor the energy fell */
static int relax(work *w, double *q, double *lam, double tol, ld_static_stats *st) {
    int rc = residual(w, q, lam, 1.0);
    double res = rc ? (double)INFINITY : maxabs(w->r, w->n), c = 1.0, step = 0.0;
    double v0 = potential(w, q), best = res, vbest = v0;
    int since = 0; /* corrections since the residual last halved */
    for (int it = 0; !rc && res > tol && it < RELAX_MAX && since < RELAX_STALL; ++it) {
        rc = relax_step(w, q, lam, c, &step);
        if ((rc == LD_ESINGULAR || rc == LD_EDOMAIN || (!rc && step > RELAX_STEP)) && c < 1e200) {
            rc = LD_OK; /* too far, or no solution at this c: more inertia */
            c = c * 10.0 + 1.0;
            continue;
        }
        if (rc) break;
        ++st->iterations;
        double vn = potential(w, w->qn);
        if (vn > v0 + 1e-12 * (1.0 + fabs(v0)) && c < 1e200) { /* above the start: uphill */
            c = c * 10.0 + 1.0;
            continue;
        }
        memcpy(q, w->qn, (size_t)w->s->nq * sizeof(double));
        if (w->m > 0) memcpy(lam, w->ls, (size_t)w->m * sizeof(double));
        if ((rc = residual(w, q, lam, 1.0))) break;
        double rn = maxabs(w->r, w->n);
        c *= fmin(rn / res, 1.0); /* raised only by the refusals above */
        res = rn;
        if (res <= 0.5 * best || vn < vbest - 1e-9 * (1.0 + fabs(vbest)))
            best = fmin(best, res), vbest = fmin(vbest, vn), since = 0;
        else
            ++since;
    }
    st->residual = res;
    if (rc) return rc;
    return res <= tol ? LD_OK : LD_EDOMAIN;
}

static void free_work(work *w) {
    free(w->zero);
    free(w->colptr);
    free(w->csc);
    ld_la_free(w->la);
}

/* The doubles of the work of a system (sparse: without the dense matrices). */
static size_t work_doubles(const ld_system *s, int sparse) {
    size_t k = (size_t)s->k, m = (size_t)s->m, n = k + m, nq = (size_t)s->nq;
    size_t dense = sparse ? 0 : n * n + 2 * k * k + m * k;
    return 2 * k + 2 * n + dense + 3 * nq + m + 1;
}

/* The sparse path's pattern and values (w->sparse set, the rest of the work made). LD_OK or
 * LD_ENOMEM with its size in *bytes. */
static int make_sparse(work *w, double *bytes) {
    const ld_system *s = w->s;
    size_t n = (size_t)w->n, nmb = ld_sys_mass_block_entries(s);
    w->nb = ld_saddle_bnnz(s), w->nt = s->blk_off[s->nblk], w->nnz = ld_saddle_nnz(s);
    size_t ints = 2 * n + 1 + w->nnz + w->nt + 2 * (size_t)w->nb + 1;
    size_t dbl = w->nnz + w->nt + nmb + (size_t)w->nb + 1;
    *bytes = (double)ints * sizeof(int) + (double)dbl * sizeof(double);
    w->colptr = ld_xmalloc(ints * sizeof(int), "the sparse statics' pattern");
    w->csc = ld_xmalloc(dbl * sizeof(double), "the sparse statics' values");
    if (!w->colptr || !w->csc) return LD_ENOMEM;
    int *next = w->colptr + n + 1;
    w->rowind = next + n, w->map_t = w->rowind + w->nnz;
    w->map_bt = w->map_t + w->nt, w->map_b = w->map_bt + w->nb;
    w->tv = w->csc + w->nnz, w->Tb = w->tv + w->nt, w->Bv = w->Tb + nmb;
    ld_saddle_count(s, NULL, w->colptr);
    ld_saddle_fill(s, NULL, w->colptr, next, w->rowind, w->map_t, w->map_bt, w->map_b);
    ld_saddle_identity_blocks(s, w->Tb);
    return LD_OK;
}

/* The work at t, dense or sparse; LD_ENOMEM with "statics: out of memory: N bytes for WHAT (n =
 * ..)" in msg. */
static int make_work(work *w, const ld_system *s, double t, int sparse, char *msg, size_t cap) {
    memset(w, 0, sizeof *w);
    w->s = s, w->t = t, w->k = s->k, w->m = s->m, w->n = s->k + s->m, w->sparse = sparse;
    size_t k = (size_t)w->k, m = (size_t)w->m, n = (size_t)w->n, nq = (size_t)s->nq;
    size_t total = work_doubles(s, sparse);
    double sbytes = 0.0;
    w->zero = ld_xcalloc(total, sizeof(double), "the statics' work arrays");
    w->la = ld_la_create(sparse ? LD_LA_KLU : LD_LA_DENSE, w->n);
    int bad = !w->zero || !w->la || (sparse && make_sparse(w, &sbytes));
    if (bad) {
        double bytes = !w->zero ? (double)total * (double)sizeof(double)
                       : !w->la ? (double)n * (double)n * (double)sizeof(double)
                                : sbytes;
        if (msg && w->zero && !w->la && sparse) { /* the sparse solver's own refusal, sized */
            char o[192];
            ld_oom_last(o, sizeof o);
            snprintf(msg, cap, "statics: %s", o);
        } else if (msg) {
            char what[64], o[192];
            snprintf(what, sizeof what, "%s (n = %d)",
                     !w->zero ? "the work arrays"
                     : !w->la ? "the solver's factors"
                              : "the sparse matrix's pattern",
                     w->n);
            ld_oom_format(o, sizeof o, bytes, what);
            snprintf(msg, cap, "statics: %s", o);
        }
        free_work(w);
        return LD_ENOMEM;
    }
    double *p = w->zero + k;
    w->g0 = p, p += k;
    w->r = p, p += n;
    w->dx = p, p += n;
    if (!sparse) {
        w->S = p, p += n * n;
        w->K = p, p += k * k;
        w->B = p, p += m * k;
    }
    w->qs = p, p += nq;
    w->qn = p, p += nq;
    if (!sparse) w->M = p, p += k * k;
    w->q0 = p, p += nq;
    w->ls = p;
    return LD_OK;
}

int ld_static_solve(const ld_system *s, double t, double *q, double *lambda,
                    const ld_static_options *o, ld_static_stats *st, char *msg, size_t cap) {
    ld_static_stats dummy;
    if (!st) st = &dummy;
    memset(st, 0, sizeof *st);
    if (msg && cap) msg[0] = '\0';
    if (!s || !q || (s->m > 0 && !lambda) || !o || !s->ops.force || s->k < 1 || !isfinite(t) ||
        (s->m > 0 && (!s->ops.phi || !s->ops.phi_q))) {
        if (msg) snprintf(msg, cap, "statics: missing system, state or options");
        return LD_EINVAL;
    }
    if (o->steps < 1 || o->max_iter < 1 || o->max_cuts < 0 || !(o->tol > 0.0)) {
        if (msg) snprintf(msg, cap, "statics: steps, max_iter must be ≥ 1 and tol > 0");
        return LD_EINVAL;
    }
    if (o->la != LD_LA_AUTO && o->la != LD_LA_DENSE && o->la != LD_LA_KLU) {
        if (msg) snprintf(msg, cap, "statics: la must be auto, dense or klu");
        return LD_EINVAL;
    }
    int blocks = ld_sys_has_blocks(s) && s->ops.tangent_blocks;
    if (o->la == LD_LA_KLU && !blocks) {
        if (msg)
            snprintf(msg, cap,
                     "statics: the sparse solver needs the system's tangents by node blocks (the "
                     "euler formulation and systems built by hand have none)");
        return LD_EINVAL;
    }
    int sparse =
        o->la == LD_LA_KLU || (o->la == LD_LA_AUTO && blocks &&
                               ld_la_choose_rows(s->k + s->m, s->m, ld_saddle_nnz(s)) == LD_LA_KLU);
    double n = (double)s->k + (double)s->m;
    if (!sparse && 8.0 * n * n > 4e9) { /* the dense solves: refuse rather than thrash */
        if (msg)
            snprintf(msg, cap,
                     "statics: %.0f unknowns need %.3g GB for the dense iteration matrix (at most "
                     "4 GB: about 22 000 unknowns)",
                     n, 8e-9 * n * n * 2.0);
        return LD_ENOMEM;
    }
    work w;
    int rc = make_work(&w, s, t, sparse, msg, cap);
    st->sparse = sparse;
    if (rc) return rc;
    if (s->m > 0) memset(lambda, 0, (size_t)s->m * sizeof(double));
    memcpy(w.q0, q, (size_t)s->nq * sizeof(double));
    rc = s->ops.force(s, t, q, w.zero, w.g0);
    double tol = o->tol * (1.0 + maxabs(w.g0, w.k)), f = 0.0, df = 1.0 / o->steps;
    while (!rc && f < 1.0) {
        double fn = 1.0 - (f + df) < 1e-12 ? 1.0 : f + df;
        memcpy(w.qs, q, (size_t)s->nq * sizeof(double));
        if (s->m > 0) memcpy(w.ls, lambda, (size_t)s->m * sizeof(double));
        int nr = newton(&w, q, lambda, fn, tol, o->max_iter, &st->iterations, &st->residual);
        if (nr == LD_OK) {
            f = fn;
            st->steps++;
            df = fmin(1.0 / o->steps, 2.0 * df); /* grow back after a cut */
            continue;
        }
        memcpy(q, w.qs, (size_t)s->nq * sizeof(double)); /* back to the last equilibrium */
        if (s->m > 0) memcpy(lambda, w.ls, (size_t)s->m * sizeof(double));
        if (nr < 0 && nr != LD_ESINGULAR && nr != LD_EDOMAIN)
            rc = nr; /* fatal */
        else if (++st->cuts > o->max_cuts)
            rc = nr > 0 ? LD_EDOMAIN : nr;
        else
            df *= 0.5;
        if (rc && msg)
            snprintf(msg, cap,
                     "statics: %s at load fraction %.6g after %d halvings (residual %.3g); the "
                     "state is the equilibrium at %.6g",
                     nr > 0 ? "Newton did not converge" : ld_strerror(nr), fn, st->cuts - 1,
                     st->residual, f);
    }
    if (rc && rc != LD_ENOMEM && rc != LD_EINVAL && s->ops.mass) {
        /* a mechanism: load stepping finds no path (K singular where the loads are off); settle
         * it by pseudo-transient continuation from the start instead */
        memcpy(q, w.q0, (size_t)s->nq * sizeof(double));
        if (s->m > 0) memset(lambda, 0, (size_t)s->m * sizeof(double));
        ld_static_stats rs = *st;
        int rr = relax(&w, q, lambda, tol, &rs);
        if (rr == LD_OK) {
            *st = rs;
            st->relaxed = 1;
            if (msg && cap) msg[0] = '\0';
            rc = LD_OK;
        } else {
            memcpy(q, w.qs, (size_t)s->nq * sizeof(double)); /* the load stepping's result */
        }
    }
    free_work(&w);
    return rc;
}

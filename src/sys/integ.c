/* The common part of the integrators of integrator.h: options, creation, the initial state,
 * step halving and step-size control (the shared pieces of the Newton iterations are in
 * integ_residual.c and integ_matrix.c). */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../elements/kinds.h"
#include "accel.h"
#include "integ_impl.h"
#include "saddle.h"
#include "liedyn/liedyn.h"
#include "nodes.h"
#include "../core/oom.h"

/* The descriptor of the options' method (NULL if unknown). */
static const ld_method_impl *method_of(const ld_integ_options *o) {
    return o ? ld_integ__method((int)o->method) : NULL;
}

/* μ = min(p, p̂) of the embedded pair (0 without one). */
static int estimate_order(const ld_method_impl *d) {
    int p = d->info.order, q = d->info.order_estimate;
    return q > 0 ? (q < p ? q : p) : 0;
}

void ld_integ_options_init(ld_integ_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->method = LD_INTEG_GENALPHA;
    for (int i = 0; i < ld_method_count(); ++i) { /* the methods' parameters */
        const ld_method_info *d = ld_method_get(i);
        for (int j = 0; j < d->nparams; ++j)
            memcpy((char *)o + d->params[j].offset, &d->params[j].def, sizeof(double));
    }
    o->newton_atol = 1e-10;
    o->newton_rtol = 1e-8;
    o->max_iter = 20;
    o->max_halvings = 10;
    o->la = LD_LA_DENSE;
    o->adaptive = 0;
    o->error_atol = 1e-6;
    o->error_rtol = 1e-4;
    o->fac = 0.8;
    o->facmin = 0.2;
    o->facmax = 5.0;
    o->h_init = 0.0;
    o->h_min = 1e-12;
    o->h_max = INFINITY;
    o->max_rejects = 30;
    o->newton_reuse = LD_REUSE_AUTO;
}

/* The method forms no k×k matrix: a half-explicit method on the sparse path. */
static int sparse_only(const ld_system *s, const ld_integ_options *o) {
    const ld_method_impl *d = method_of(o);
    return d && d->sparse_only && d->sparse_only(s, o);
}

/* A Newton method with the sparse solver on a system with tangent blocks: the structured path
 * (integ_blocks.c), no k×k matrix. */
static int uses_blocks(const ld_system *s, const ld_integ_options *o) {
    const ld_method_impl *d = method_of(o);
    return d && d->info.newton && o->la == LD_LA_KLU && ld_sys_has_blocks(s);
}

/* Entries of the saddle-point matrix [M Bᵀ; B 0] from the system's structure (0: unknown). */
static size_t saddle_nnz(const ld_system *s) {
    if (!ld_sys_has_sparse(s)) return 0;
    return ld_sys_mass_block_entries(s) + 2 * (size_t)s->bnnz + (size_t)s->m;
}

size_t ld_integ_la_entries(const ld_system *s, const ld_integ_options *o) {
    if (!s || s->k < 1 || s->m < 0) return 0;
    /* only the sparse half-explicit path can use the structure without a dense k×k */
    const ld_method_impl *d = method_of(o);
    int structured = !d || !d->info.newton;
    if (structured) return saddle_nnz(s);
    if (ld_sys_has_blocks(s)) { /* the iteration matrix's own pattern, its zeros left out */
        size_t nnz = ld_saddle_nnz(s), kept = 0;
        if (!s->pattern_generic || !s->pattern_keep) return nnz;
        for (size_t i = 0; i < nnz; ++i) kept += s->pattern_keep[i];
        return kept;
    }
    return saddle_nnz(s) * 6; /* K couples neighbours (0 without structure) */
}

ld_la_kind ld_integ_la_auto(const ld_system *s, const ld_integ_options *o) {
    if (!s || s->k < 1 || s->m < 0) return LD_LA_DENSE;
    size_t nnz = ld_integ_la_entries(s, o);
    /* No structure known (e.g. the euler formulation): many nodes still make a sparse matrix
     * (each body is coupled to a few others; KLU is 48-82 times faster on the 17-body crank
     * drive, docs/linalg.md), so from 4 × the crossover with 8 nodes or more take KLU. */
    if (nnz == 0 && s->nnodes >= 8 && s->k + s->m >= 4 * LD_LA_CROSSOVER) return LD_LA_KLU;
    return ld_la_choose_rows(s->k + s->m, s->m, nnz);
}

ld_newton_reuse ld_integ_reuse_choose(const ld_system *s, const ld_integ_options *o) {
    const ld_method_impl *d = o ? method_of(o) : NULL;
    return s && d && d->info.newton ? o->newton_reuse : LD_REUSE_OFF;
}

/* The dense scratch of the finite-difference tangents this method will call: the stiffness
 * for the Newton methods, φ̈ at init for all. */
static unsigned fd_needs(const ld_system *s, const ld_integ_options *o) {
    unsigned miss = ld_sys_fd_missing(s), need = LD_SYS_FD_PHI_DD;
    if (method_of(o)->info.newton) need |= LD_SYS_FD_STIFFNESS;
    return s->m > 0 ? miss & need : miss & need & LD_SYS_FD_STIFFNESS;
}

/* Bytes of every dense array the integrator would hold: S (n×n), M, C, K, T (k×k), B (m×k), the
 * dense LU (n×n), the hem dense mass solve (k×k) and the finite-difference scratch. */
static double dense_bytes(const ld_system *s, const ld_integ_options *o) {
    double k = s->k, m = s->m, n = k + m, d = 0.0;
    if (!sparse_only(s, o) && !uses_blocks(s, o)) d += n * n + 4 * k * k + m * k;
    if (o->la == LD_LA_DENSE) d += n * n;
    if (!method_of(o)->info.newton && !sparse_only(s, o)) d += k * k;
    d += (double)ld_sys_fd_doubles(s, fd_needs(s, o));
    return 8.0 * d;
}

/* Physical memory of the machine in bytes (+inf when unknown). */
static double physical_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : (double)INFINITY;
}

/* Refuse, with the status and "out of memory: N bytes for WHAT (k = .., m = ..)HINT" in msg. */
static ld_integ *refuse_oom(int *status, char *msg, size_t cap, double bytes, const char *what,
                            const ld_system *s, const char *hint) {
    *status = LD_ENOMEM;
    if (msg && cap) {
        char w[192], o[320];
        snprintf(w, sizeof w, "%s (k = %d, m = %d)", what, s->k, s->m);
        ld_oom_format(o, sizeof o, bytes, w);
        snprintf(msg, cap, "%s%s", o, hint ? hint : "");
    }
    return NULL;
}

/* Carve the state, trial state and (dense paths) the matrices out of the block p. */
static void carve(ld_integ *it, double *p, size_t dn) {
    size_t k = (size_t)it->k, m = (size_t)it->m, n = (size_t)it->n, nq = (size_t)it->s->nq;
    double **vk[] = {&it->v, &it->vd, &it->vn, &it->vdn, &it->xi};
    it->q = p, p += nq;
    it->qn = p, p += nq;
    for (size_t i = 0; i < sizeof vk / sizeof vk[0]; ++i) *vk[i] = p, p += k;
    it->ws = p, p += it->nws;
    it->lam = p, p += m;
    it->lamn = p, p += m;
    it->r = p, p += n;
    it->dx = p, p += n;
    it->S = p, p += dn * n * n;
    it->M = p, p += dn * k * k;
    it->C = p, p += dn * k * k;
    it->K = p, p += dn * k * k;
    it->T = p, p += dn * k * k;
    it->B = p, p += dn * m * k;
    it->hist = p, p += 2 * (size_t)it->o.max_iter; /* two Newton solves per step (tb3) */
    it->rhist = p;
}

/* Why the options or the system cannot be used: status and message; NULL if they can. */
static const char *refusal(const ld_system *s, const ld_integ_options *o, int *status) {
    *status = LD_EINVAL;
    if (!s) return "no system";
    const char *why = ld_integ_options_check(s, o);
    if (why && method_of(o) && ld_integ__unsupported(s, method_of(o))) *status = LD_ENOTSUPPORTED;
    return why;
}

ld_integ *ld_integ_create_msg(const ld_system *s, const ld_integ_options *o, int *status, char *msg,
                              size_t cap) {
    int dummy;
    if (!status) status = &dummy;
    if (msg && cap) msg[0] = '\0';
    const char *why = refusal(s, o, status);
    if (why) {
        if (msg && cap) snprintf(msg, cap, "%s", why);
        return NULL;
    }
    ld_integ_options op = *o;
    if (op.la == LD_LA_AUTO) op.la = ld_integ_la_auto(s, o);
    op.newton_reuse = ld_integ_reuse_choose(s, o);
    double dense = dense_bytes(s, &op);
    if (dense > physical_memory()) {
        char hint[200];
        snprintf(hint, sizeof hint,
                 ", more than the machine's %.0f bytes (with the KLU solver hem1 ... hem5, and "
                 "the Newton methods on the Lie-group formulations, form no k x k matrix)",
                 physical_memory());
        return refuse_oom(status, msg, cap, dense, "the dense matrices of the method", s, hint);
    }
    ld_integ *it = calloc(1, sizeof *it);
    if (!it) return refuse_oom(status, msg, cap, (double)sizeof *it, "the integrator", s, NULL);
    it->s = s;
    it->o = op;
    it->k = s->k;
    it->m = s->m;
    it->n = s->k + s->m;
    size_t k = (size_t)it->k, m = (size_t)it->m, n = (size_t)it->n, nq = (size_t)s->nq;
    /* the sparse half-explicit path and the structured Newton path: no n×n, k×k */
    size_t dn = sparse_only(s, &op) || uses_blocks(s, &op) ? 0 : 1;
    it->meth = method_of(&op);
    it->small = dn && op.la == LD_LA_DENSE && n <= LD_SMALL_N;
    it->nws = it->meth->work ? it->meth->work(s, &it->nkeep) : 0;
    size_t total = 2 * nq + 5 * k + it->nws + 2 * m + n + n + dn * (n * n + 4 * k * k + m * k) +
                   4 * (size_t)op.max_iter;
    double *p = calloc(total, sizeof(double));
    if (!p) {
        free(it);
        return refuse_oom(status, msg, cap, 8.0 * (double)total,
                          dn ? "the state and the dense iteration matrices" : "the state", s, NULL);
    }
    carve(it, p, dn);
    it->mband = dn ? calloc(2 * k + 1, sizeof(int)) : NULL;
    if (dn && !it->mband) {
        free(p);
        free(it);
        return refuse_oom(status, msg, cap, (double)(2 * k + 1) * (double)sizeof(int),
                          "the band of the mass matrix", s, NULL);
    }
    it->last_err = NAN;
    ld_ctrl_init(&it->ctrl, LD_CTRL_I, estimate_order(it->meth));
    it->ctrl.fac = op.fac;
    it->ctrl.facmin = op.facmin;
    it->ctrl.facmax = op.facmax;
    int rc = ld_sys_reserve_fd(s, fd_needs(s, &op));
    if (rc == LD_EINVAL && !fd_needs(s, &op)) rc = LD_OK; /* no scratch needed, none allocated */
    if (rc) {
        ld_integ_free(it);
        if (rc == LD_ENOMEM)
            return refuse_oom(status, msg, cap,
                              8.0 * (double)ld_sys_fd_doubles(s, fd_needs(s, &op)),
                              "the finite-difference tangents", s, NULL);
        *status = rc;
        if (msg && cap)
            snprintf(msg, cap, "the system has no finite-difference scratch (ld_sys_alloc_work)");
        return NULL;
    }
    it->la = ld_la_create(op.la, it->n);
    if (!it->la) {
        ld_integ_free(it);
        return refuse_oom(
            status, msg, cap, op.la == LD_LA_DENSE ? 8.0 * (double)n * (double)n : 8.0 * (double)n,
            op.la == LD_LA_DENSE ? "the dense LU factors" : "the sparse solver", s, NULL);
    }
    if (uses_blocks(s, &op) && ld_integ__blocks_create(it)) {
        double oom = it->oom_bytes;
        ld_integ_free(it);
        return refuse_oom(status, msg, cap, oom, "the sparse iteration matrix", s, NULL);
    }
    if (it->meth->create) {
        rc = it->meth->create(it);
        double oom = it->oom_bytes;
        if (rc) {
            char reason[sizeof it->msg];
            snprintf(reason, sizeof reason, "%s",
                     it->msg[0] ? it->msg : "invalid sparsity pattern of B (brow, bcol)");
            ld_integ_free(it);
            *status = rc;
            if (rc == LD_ENOMEM)
                return refuse_oom(status, msg, cap, oom, "the stage work space", s, NULL);
            if (msg && cap) snprintf(msg, cap, "%s", reason);
            return NULL;
        }
    }
    *status = LD_OK;
    return it;
}

ld_integ *ld_integ_create(const ld_system *s, const ld_integ_options *o, int *status) {
    return ld_integ_create_msg(s, o, status, NULL, 0);
}

void ld_integ__set_separate(ld_integ *it, int on) {
    if (it) it->separate = on != 0;
}

void ld_integ__set_generic(ld_integ *it, int on) {
    if (it) it->generic = on != 0;
}

ld_la_kind ld_integ_la(const ld_integ *it) {
    return it ? it->o.la : LD_LA_DENSE;
}

void ld_integ_free(ld_integ *it) {
    if (!it) return;
    if (it->meth && it->meth->destroy) it->meth->destroy(it);
    ld_integ__sample_free(it);
    ld_sys_accel_ws_free(it->aws);
    ld_la_free(it->la);
    free(it->q); /* the one block */
    ld_integ__blocks_free(it);
    free(it->colptr);
    free(it->rowind);
    free(it->vals);
    free(it->blk);
    free(it->mband);
    free(it);
}

/* Starting step when none is given: 1 % of the time in which the velocities would change
 * by their own size (Hairer, Nørsett & Wanner, Sec. II.4), within [h_min, h_max]. */
static double initial_step(const ld_integ *it) {
    double d0 = 0.0, d1 = 0.0;
    for (int i = 0; i < it->k; ++i) {
        double sc = it->o.error_atol + it->o.error_rtol * fabs(it->v[i]);
        d0 += (it->v[i] / sc) * (it->v[i] / sc);
        d1 += (it->vd[i] / sc) * (it->vd[i] / sc);
    }
    d0 = sqrt(d0 / it->k);
    d1 = sqrt(d1 / it->k);
    double h = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    return fmin(fmax(h, it->o.h_min), it->o.h_max);
}

/* A failed init: the message names the cause (it->why, the reason in msg, or the status). */
static int init_failed(ld_integ *it, int rc, const char *reason) {
    const char *r = reason && reason[0] ? reason : it->why ? it->why : ld_strerror(rc);
    snprintf(it->msg, sizeof it->msg, "initial state at t = %.9g: %.250s", it->t, r);
    return rc;
}

/* The state, checked finite (the messages name the first non-finite quantity). */
static int init_state(ld_integ *it, double t0, const double *q0, const double *v0) {
    memcpy(it->q, q0, (size_t)it->s->nq * sizeof(double));
    memcpy(it->v, v0, (size_t)it->k * sizeof(double));
    it->t = t0;
    it->why = NULL;
    int rc = ld_integ__finite(it, it->q, (size_t)it->s->nq, "non-finite initial configuration");
    if (!rc) rc = ld_integ__finite(it, it->v, (size_t)it->k, "non-finite initial velocity");
    return rc;
}

int ld_integ__initial_accel(ld_integ *it, char *why, size_t cap) {
    if (it->aws)
        return ld_sys_initial_accel_ws(it->s, it->aws, it->t, it->q, it->v, it->vd, it->lam, why,
                                       cap);
    return ld_sys_initial_accel_msg(it->s, it->t, it->q, it->v, it->vd, it->lam, why, cap);
}

int ld_integ_restart(ld_integ *it) {
    if (!it) return LD_EINVAL;
    char why[sizeof it->msg] = "";
    ld_sys_forget(it->s);
    int rc = it->meth->initial ? it->meth->initial(it, why, sizeof why)
                               : ld_integ__initial_accel(it, why, sizeof why);
    if (!rc && it->meth->init) rc = it->meth->init(it);
    if (rc) snprintf(it->msg, sizeof it->msg, "restart at t = %.9g: %.250s", it->t, why);
    it->jac_ok = 0;
    return rc;
}

int ld_integ_init(ld_integ *it, double t0, const double *q0, const double *v0) {
    if (!it) return LD_EINVAL;
    if (!q0 || !v0 || !isfinite(t0)) {
        snprintf(it->msg, sizeof it->msg, "initial state: %s",
                 isfinite(t0) ? "no q0 or v0" : "non-finite initial time");
        return LD_EINVAL;
    }
    const ld_system *s = it->s;
    char why[sizeof it->msg] = "";
    it->jac_ok = it->skip_factor = it->mass_ok = 0;
    ld_sys_forget(s);
    int rc = init_state(it, t0, q0, v0);
    if (!rc && it->meth->initial)
        rc = it->meth->initial(it, why, sizeof why);
    else if (!rc)
        rc = ld_sys_initial_accel_msg(s, t0, it->q, it->v, it->vd, it->lam, why, sizeof why);
    if (rc) return init_failed(it, rc, why);
    if (it->meth->init) {
        rc = it->meth->init(it);
        if (rc) return init_failed(it, rc, NULL);
    }
    memset(&it->st, 0, sizeof it->st);
    it->msg[0] = '\0';
    it->last_h = 0.0;
    it->last_err = NAN;
    it->ctrl.rejected = 0;
    it->ctrl.h_cap = INFINITY;
    it->h_next = it->o.h_init > 0.0 ? it->o.h_init : initial_step(it);
    ld_integ__sample_reset(it);
    return LD_OK;
}

/* ------------------------------------------------------------------ the accepted step
 * (the Newton pieces: the residual and its norms in integ_residual.c, the iteration matrix
 * in integ_matrix.c) */

void ld_integ__commit(ld_integ *it, int iters) {
    size_t k = (size_t)it->k;
    memcpy(it->q, it->qn, (size_t)it->s->nq * sizeof(double));
    memcpy(it->v, it->vn, k * sizeof(double));
    memcpy(it->vd, it->vdn, k * sizeof(double));
    memcpy(it->lam, it->lamn, (size_t)it->m * sizeof(double));
    it->st.last_iterations = iters;
}

/* ------------------------------------------------------------------ stepping */

/* The message of a fatal status that no method explained: "out of memory: N bytes for WHAT"
 * (the first KLU factorization allocates its factors: at least 12 bytes per entry of the
 * pattern), or the status's text. */
static void fatal_message(ld_integ *it, int rc, double h) {
    char what[160];
    if (rc != LD_ENOMEM) {
        snprintf(it->msg, sizeof it->msg, "step h = %.3g at t = %.9g failed: %s", h, it->t,
                 ld_strerror(rc));
        return;
    }
    if (it->oom_what) {
        snprintf(what, sizeof what, "%s", it->oom_what);
    } else {
        ld_la_stats ls;
        ld_la_get_stats(it->la, &ls);
        it->oom_bytes = 12.0 * (double)(ls.nnz ? ls.nnz : (size_t)it->n);
        snprintf(what, sizeof what, "the LU factors of the %s matrix (n = %d)",
                 ld_la_get_kind(it->la) == LD_LA_KLU ? "sparse" : "dense", it->n);
    }
    char o[256];
    ld_oom_format(o, sizeof o, it->oom_bytes, what);
    snprintf(it->msg, sizeof it->msg, "step h = %.3g at t = %.9g: %s", h, it->t, o);
}

/* One step from t to exactly t1 > t with the chosen method. */
static int step_to(ld_integ *it, double t1) {
    double h = t1 - it->t;
    if (!(h > 0.0) || !isfinite(h)) return LD_EINVAL;
    it->msg[0] = '\0';
    it->why = NULL;
    it->oom_what = NULL;
    it->nhist = 0;
    it->last_err = NAN;
    int rc = it->meth->step(it, t1);
    if (rc == LD_OK) {
        it->st.steps++;
        it->last_h = h;
        it->t = t1;
    }
    if (rc < 0 && !it->msg[0]) fatal_message(it, rc, h);
    return rc;
}

int ld_integ_step(ld_integ *it, double h) {
    if (!it) return LD_EINVAL;
    if (!(h > 0.0) || !isfinite(h) || !(it->t + h > it->t)) {
        snprintf(it->msg, sizeof it->msg,
                 "step h = %.3g at t = %.9g refused: h must be positive, finite and advance t", h,
                 it->t);
        return LD_EINVAL;
    }
    int rc = ld_integ__sample(it);
    return rc ? rc : step_to(it, ld_integ__sample_end(it, it->t + h));
}

/* Advance to exactly t1; on rejection two half steps (the midpoint, then t1), recursively up
 * to `depth` halvings. */
static int advance_rec(ld_integ *it, double t1, int depth) {
    double t0 = it->t;
    int rc = step_to(it, t1);
    if (rc <= 0 || depth <= 0) return rc;
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
    while (it->smp && !it->o.adaptive && it->t < t1) { /* pieces between the sample instants */
        int rc = ld_integ__sample(it);
        if (!rc) rc = advance_rec(it, ld_integ__sample_end(it, t1), it->o.max_halvings);
        if (rc) return rc;
    }
    if (it->smp && !it->o.adaptive) return LD_OK;
    if (!it->o.adaptive) return advance_rec(it, t1, it->o.max_halvings);
    while (it->t < t1) {
        int rc = ld_integ_step_adaptive(it, t1);
        if (rc) return rc;
    }
    return LD_OK;
}

/* Give up on a controlled step: the message says why (the attempts were counted already). */
static int give_up(ld_integ *it, const char *why, double h) {
    char last[sizeof it->msg];
    snprintf(last, sizeof last, "%s", it->msg);
    snprintf(it->msg, sizeof it->msg, "controlled step at t = %.9g failed: %s (h = %.3g; %.200s)",
             it->t, why, h, last[0] ? last : "no attempt");
    return LD_RETRY;
}

int ld_integ_step_adaptive(ld_integ *it, double t_max) {
    if (!it || !it->o.adaptive || !isfinite(t_max) || !(t_max > it->t)) return LD_EINVAL;
    int src = ld_integ__sample(it);
    if (src) return src;
    t_max = ld_integ__sample_end(it, t_max);
    for (int tries = 0;; ++tries) {
        double rest = t_max - it->t;
        double hp = fmin(fmax(ld_ctrl_bound(&it->ctrl, it->h_next), it->o.h_min), it->o.h_max);
        /* land on t_max instead of leaving a sliver of less than 10 % of a step (but never
         * beyond h_max) */
        double t1 =
            (hp >= rest || (rest - hp < 0.1 * hp && rest <= it->o.h_max)) ? t_max : it->t + hp;
        double h = t1 - it->t;
        if (tries >= it->o.max_rejects) return give_up(it, "too many consecutive rejections", h);
        if (!(t1 > it->t)) return give_up(it, "step below the resolution of t", h);
        int rc = step_to(it, t1);
        if (rc < 0) return rc;
        if (rc == LD_OK) {
            it->h_next = ld_ctrl_accepted(&it->ctrl, h, it->last_err, hp);
            return LD_OK;
        }
        /* rejected: by the error estimate, or because the solve failed */
        int solve_failed = !(isfinite(it->last_err) && it->last_err > 1.0);
        it->h_next = ld_ctrl_rejected(&it->ctrl, h, it->last_err, solve_failed);
        if (it->h_next < it->o.h_min) return give_up(it, "step size below h_min", it->h_next);
    }
}

double ld_integ_t(const ld_integ *it) {
    return it ? it->t : (double)NAN;
}
const double *ld_integ_q(const ld_integ *it) {
    return it ? it->q : NULL;
}
const double *ld_integ_v(const ld_integ *it) {
    return it ? it->v : NULL;
}
const double *ld_integ_vdot(const ld_integ *it) {
    return it ? it->vd : NULL;
}
int ld_integ_contact_force(const ld_integ *it, int body, double f[3], double tau[3]) {
    if (!it || !f || !tau) return LD_EINVAL;
    if (!it->meth->contact_force) return LD_ENOTSUPPORTED;
    return it->meth->contact_force(it, body, f, tau);
}

int ld_integ_contacts(const ld_integ *it, ld_contact_point *out, int cap) {
    if (!it || cap < 0 || (cap > 0 && !out)) return LD_EINVAL;
    return it->meth->contacts ? it->meth->contacts(it, out, cap) : 0;
}

int ld_integ_contact_stats(const ld_integ *it, ld_contact_stats *st) {
    if (!it || !st) return LD_EINVAL;
    memset(st, 0, sizeof *st);
    if (!it->meth->contact_stats) return LD_ENOTSUPPORTED;
    it->meth->contact_stats(it, st);
    return LD_OK;
}

const double *ld_integ_lambda(const ld_integ *it) {
    return it ? it->lam : NULL;
}
void ld_integ_get_stats(const ld_integ *it, ld_integ_stats *st) {
    if (!st) return;
    if (it)
        *st = it->st;
    else
        memset(st, 0, sizeof *st);
}
const char *ld_integ_message(const ld_integ *it) {
    return it ? it->msg : "";
}
const double *ld_integ_newton_history(const ld_integ *it, int *n) {
    if (n) *n = it ? it->nhist : 0;
    return it ? it->hist : NULL;
}
const double *ld_integ_residual_history(const ld_integ *it, int *n) {
    if (n) *n = it ? it->nhist : 0;
    return it ? it->rhist : NULL;
}
double ld_integ_last_h(const ld_integ *it) {
    return it ? it->last_h : (double)NAN;
}
double ld_integ_last_error(const ld_integ *it) {
    return it ? it->last_err : (double)NAN;
}
double ld_integ_next_h(const ld_integ *it) {
    return it ? it->h_next : (double)NAN;
}

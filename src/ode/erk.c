/*
 * Explicit (Lie-group) Runge–Kutta engine: classical RK on vector spaces, RKMK on groups.
 * See include/liedyn/erk.h for the method; the controller is described in docs/attitude.md.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/controller.h"
#include "liedyn/erk.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

/* The nonzero entries of one row of a Butcher table (a stage's a_i·, b or bhat), so that a
 * linear combination skips the zeros without testing them at every step. */
typedef struct erk_row {
    int n;                      /* number of nonzero entries */
    int j[LD_RK_MAX_STAGES];    /* their stage indices, increasing */
    double w[LD_RK_MAX_STAGES]; /* their coefficients */
} erk_row;

struct ld_erk {
    const ld_erk_space *sp;
    const ld_rk_table *tab;
    int nx, nv, s;
    int plain; /* a vector space without retract, dexpinv, local_error or scale: fused loops */
    erk_row rows[LD_RK_MAX_STAGES + 2]; /* stage i ≥ 1: rows[i]; b: rows[s]; bhat: rows[s + 1] */
    double *F[LD_RK_MAX_STAGES];        /* nv each: raw velocities f(t + c_i h, Y_i); FSAL swaps the
                                           first and the last instead of copying */
    double *K[LD_RK_MAX_STAGES]; /* nv each: dexp⁻¹_{U_i}(F_i); the same buffer as F_i for i = 0
                                    (U_0 = 0) and on spaces without dexpinv */
    double *buf;                 /* the one allocation behind every array below */
    double *U;                   /* nv stage / final increment */
    double *Uh;                  /* nv embedded increment */
    double *Y;                   /* nx stage point */
    double *xnew;                /* nx proposed new state */
    double *err;                 /* nv local error */
    double *s0, *s1;
    double en;     /* weighted error norm of the last attempt (adaptive runs) */
    int nonfinite; /* the last attempt gave a non-finite state or error norm */
    long fevals;
};

void ld_erk_options_default(ld_erk_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->adaptive = 1;
    o->error_rtol = 1e-3;
    o->error_atol = 1e-6;
    o->shrink_min = 0.1;
}

/* The nonzero entries of w[0 .. n-1] into r. */
static void row_init(erk_row *r, const double *w, int n) {
    r->n = 0;
    for (int j = 0; w && j < n; ++j)
        if (w[j] != 0.0) {
            r->j[r->n] = j;
            r->w[r->n] = w[j];
            r->n++;
        }
}

/* Point the stage buffers at F and K: K_i is its own buffer only where dexp⁻¹ acts. */
static void link_stages(ld_erk *e, double *buf) {
    size_t nv = (size_t)e->nv;
    for (int i = 0; i < e->s; ++i) {
        e->F[i] = buf + (size_t)i * nv;
        e->K[i] = e->F[i];
        if (i > 0 && e->sp->dexpinv) e->K[i] = buf + (size_t)(e->s + i) * nv;
    }
}

int ld_erk_create(ld_erk **out, const ld_erk_space *sp, const ld_rk_table *tab) {
    if (!out) return LD_EINVAL;
    *out = NULL;
    if (!sp || !tab || !sp->rhs || sp->nx < 1 || sp->nv < 1 || tab->stages < 1 ||
        tab->stages > LD_RK_MAX_STAGES)
        return LD_EINVAL;
    if ((!sp->retract || !sp->scale) && sp->nx != sp->nv) return LD_EINVAL;
    ld_erk *e = ld_xcalloc(1, sizeof *e, "the Runge-Kutta integrator");
    if (!e) return LD_ENOMEM;
    size_t nv = (size_t)sp->nv, nx = (size_t)sp->nx, s = (size_t)tab->stages;
    double *buf = ld_xcalloc(2 * s * nv + 5 * nv + 2 * nx, sizeof *buf, "the Runge-Kutta stages");
    if (!buf) {
        free(e);
        return LD_ENOMEM;
    }
    e->sp = sp;
    e->tab = tab;
    e->nx = sp->nx;
    e->nv = sp->nv;
    e->s = tab->stages;
    e->plain = !sp->retract && !sp->dexpinv && !sp->local_error && !sp->scale;
    for (int i = 1; i < e->s; ++i) row_init(&e->rows[i], tab->A + (size_t)i * s, i);
    row_init(&e->rows[e->s], tab->b, e->s);
    row_init(&e->rows[e->s + 1], tab->bhat, e->s);
    e->buf = buf;
    link_stages(e, buf);
    e->U = buf + 2 * s * nv;
    e->Uh = e->U + nv;
    e->err = e->Uh + nv;
    e->s0 = e->err + nv;
    e->s1 = e->s0 + nv;
    e->Y = e->s1 + nv;
    e->xnew = e->Y + nx;
    *out = e;
    return LD_OK;
}

void ld_erk_free(ld_erk *e) {
    if (!e) return;
    free(e->buf);
    free(e);
}

/* x1 = x ∘ exp(u) on the space. */
static void retract(const ld_erk *e, double *x1, const double *x, const double *u) {
    if (e->sp->retract) {
        e->sp->retract(x1, x, u, e->sp->user);
        return;
    }
    for (int i = 0; i < e->nx; ++i) x1[i] = x[i] + u[i];
}

/* Σ_m c_m K_m[k], summed left to right from 0.0 (the order and the rounding of the textbook
 * loop u = 0; u += h w_j K_j). With n a constant the compiler unrolls it into registers. */
static inline double lin(int n, const double *c, const double *const *K, int k) {
    double s = 0.0;
    for (int m = 0; m < n; ++m) s += c[m] * K[m][k];
    return s;
}

/* One unrolled case of combine for N nonzero entries. */
#define ERK_COMBINE_CASE(N)                                                                        \
    case N:                                                                                        \
        if (x)                                                                                     \
            for (int k = 0; k < nv; ++k) u[k] = x[k] + lin(N, c, K, k);                            \
        else                                                                                       \
            for (int k = 0; k < nv; ++k) u[k] = lin(N, c, K, k);                                   \
        break;

/* u = h Σ_m w_m K_{j_m} over the nonzero entries of row r, summed in increasing j (u = 0 for an
 * empty row); with x (plain vector spaces), u = x + that sum, the stage point itself. */
static void combine(const ld_erk *e, double *restrict u, const double *restrict x, double h,
                    const erk_row *r) {
    int nv = e->nv, n = r->n;
    double c[LD_RK_MAX_STAGES];
    const double *K[LD_RK_MAX_STAGES];
    for (int m = 0; m < n; ++m) {
        c[m] = h * r->w[m];
        K[m] = e->K[r->j[m]];
    }
    switch (n) {
        ERK_COMBINE_CASE(0)
        ERK_COMBINE_CASE(1)
        ERK_COMBINE_CASE(2)
        ERK_COMBINE_CASE(3)
        ERK_COMBINE_CASE(4)
        ERK_COMBINE_CASE(5)
        ERK_COMBINE_CASE(6)
        ERK_COMBINE_CASE(7)
    default:
        for (int k = 0; k < nv; ++k) u[k] = (x ? x[k] : 0.0) + lin(n, c, K, k);
        break;
    }
}

/* Evaluate stage i ≥ 1 of the step (t, h) from x: F_i and K_i. */
static int eval_stage(ld_erk *e, int i, double t, double h, const double *x) {
    if (e->plain) {
        combine(e, e->Y, x, h, &e->rows[i]); /* Y_i = x + U_i */
    } else {
        combine(e, e->U, NULL, h, &e->rows[i]);
        retract(e, e->Y, x, e->U);
    }
    int rc = e->sp->rhs(t + e->tab->c[i] * h, e->Y, e->F[i], e->sp->user);
    e->fevals++;
    if (rc != 0) return rc;
    if (e->sp->dexpinv) e->sp->dexpinv(e->K[i], e->U, e->F[i], e->sp->user);
    return 0;
}

static int all_finite(const double *v, int n);
static void error_norm(ld_erk *e, const ld_erk_options *o, const double *x);

/* The end of a step on a plain vector space in one pass: xnew = x + U, err = U − Uh and, with
 * o, the weighted norm of err and whether xnew is finite (as error_norm computes them: for a
 * finite x and a positive atol, fmax reduces to plain comparisons). */
static void finish_plain(ld_erk *e, const ld_erk_options *o, const double *restrict x) {
    const double *restrict U = e->U, *restrict Uh = e->Uh;
    double *restrict xn = e->xnew, *restrict er = e->err;
    int nv = e->nv, finite = 1, emb = e->tab->bhat != NULL;
    double m = 0.0, rtol = o ? o->error_rtol : 0.0, atol = o ? o->error_atol : 0.0;
    for (int k = 0; k < nv; ++k) {
        double y = x[k] + U[k];
        xn[k] = y;
        if (!emb) continue;
        double d = U[k] - Uh[k];
        er[k] = d;
        if (!o) continue;
        finite &= isfinite(y) != 0;
        double ax = fabs(x[k]), ay = fabs(y);
        double sc = rtol * (ay > ax ? ay : ax);
        double w = sc > atol ? sc : atol;
        double r = fabs(d) / w;
        if (!(r <= m)) m = r; /* NaN propagates */
    }
    if (!o) return;
    e->nonfinite = !finite || isnan(m);
    e->en = finite ? m : (double)INFINITY;
}

/* One attempt from (t, x) with step h into e->xnew (and e->err when embedded weights exist).
 * have_f0: F_0 already holds f(t, x) (first same as last). With o (adaptive runs) also e->en and
 * e->nonfinite. Returns the rhs status. */
static int attempt(ld_erk *e, double t, double h, const double *x, int have_f0,
                   const ld_erk_options *o) {
    if (!have_f0) {
        int rc = e->sp->rhs(t + e->tab->c[0] * h, x, e->F[0], e->sp->user);
        e->fevals++;
        if (rc != 0) return rc;
    }
    for (int i = 1; i < e->s; ++i) {
        int rc = eval_stage(e, i, t, h, x);
        if (rc != 0) return rc;
    }
    combine(e, e->U, NULL, h, &e->rows[e->s]);
    if (e->tab->bhat) combine(e, e->Uh, NULL, h, &e->rows[e->s + 1]);
    if (e->plain) {
        finish_plain(e, o, x);
        return 0;
    }
    retract(e, e->xnew, x, e->U);
    if (e->tab->bhat) {
        if (e->sp->local_error)
            e->sp->local_error(e->err, x, e->U, e->Uh, e->sp->user);
        else
            for (int k = 0; k < e->nv; ++k) e->err[k] = e->U[k] - e->Uh[k];
    }
    if (o) error_norm(e, o, x);
    return 0;
}

static int all_finite(const double *v, int n) {
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

int ld_erk_step(ld_erk *e, double t, double h, double *x, double *err) {
    if (!e || !x || !(h > 0.0) || !isfinite(t)) return LD_EINVAL;
    int rc = attempt(e, t, h, x, 0, NULL);
    if (rc != 0) return rc;
    if (!all_finite(e->xnew, e->nx)) return LD_EDOMAIN;
    memcpy(x, e->xnew, (size_t)e->nx * sizeof(double));
    if (err && e->tab->bhat) memcpy(err, e->err, (size_t)e->nv * sizeof(double));
    return LD_OK;
}

static void get_scale(const ld_erk *e, double *s, const double *x) {
    if (e->sp->scale) {
        e->sp->scale(s, x, e->sp->user);
        return;
    }
    for (int i = 0; i < e->nv; ++i) s[i] = fabs(x[i]);
}

/* max_i |v_i| / max(atol, rtol · max(s0_i, s1_i)); s1 may equal s0. */
static double weighted_norm(const ld_erk *e, const double *v, const double *s0, const double *s1,
                            double rtol, double atol) {
    double m = 0.0;
    for (int i = 0; i < e->nv; ++i) {
        double w = fmax(atol, rtol * fmax(s0[i], s1[i]));
        double r = fabs(v[i]) / w;
        if (!(r <= m)) m = r; /* NaN propagates */
    }
    return m;
}

/* e->en and e->nonfinite of an attempt on a space with callbacks: a non-finite new state counts
 * as an infinite error. */
static void error_norm(ld_erk *e, const ld_erk_options *o, const double *x) {
    e->en = INFINITY;
    e->nonfinite = !all_finite(e->xnew, e->nx);
    if (e->nonfinite) return;
    get_scale(e, e->s0, x);
    get_scale(e, e->s1, e->xnew);
    e->en = weighted_norm(e, e->err, e->s0, e->s1, o->error_rtol, o->error_atol);
    e->nonfinite = isnan(e->en);
}

/* First same as last: the last stage was evaluated at the accepted state, so its buffer becomes
 * F_0 (and K_0) of the next step, and the old F_0 takes its place. */
static void swap_fsal(ld_erk *e) {
    int l = e->s - 1;
    double *f0 = e->F[0];
    e->F[0] = e->K[0] = e->F[l];
    e->F[l] = f0;
    if (!e->sp->dexpinv) e->K[l] = f0;
}

static void note_step(ld_erk_stats *st, double h) {
    st->steps++;
    if (st->steps == 1 || h < st->h_min_used) st->h_min_used = h;
    if (h > st->h_max_used) st->h_max_used = h;
}

/* Fixed steps of size h0 (the last one ends exactly at t1). */
static int run_fixed(ld_erk *e, const ld_erk_options *o, double t0, double t1, double *x,
                     ld_erk_output_fn out, void *ou, ld_erk_stats *st) {
    double span = t1 - t0;
    double nf = ceil(span / o->h_init * (1.0 - 1e-12));
    if (!(nf >= 1.0) || nf > 1e15) return LD_EINVAL;
    long n = (long)nf;
    for (long k = 0; k < n; ++k) {
        double t = t0 + (double)k * o->h_init;
        double tn = (k == n - 1) ? t1 : t0 + (double)(k + 1) * o->h_init;
        if (o->max_steps > 0 && st->steps >= o->max_steps) return LD_ETOOMUCHWORK;
        if (!(tn > t)) return LD_ESTEPSIZE; /* h_init below the resolution of t */
        int rc = attempt(e, t, tn - t, x, 0, NULL);
        if (rc != 0) return rc > 0 ? LD_ESINGULAR : rc;
        if (!all_finite(e->xnew, e->nx)) return LD_EDOMAIN;
        memcpy(x, e->xnew, (size_t)e->nx * sizeof(double));
        note_step(st, tn - t);
        st->t = tn;
        if (out) {
            rc = out(tn, x, ou);
            if (rc != 0) return rc;
        }
    }
    return LD_OK;
}

/* First step after MATLAB's ode45: h = min(hmax, span), reduced so that
 * h ‖f0 / max(s, atol/rtol)‖_∞ ≤ 0.8 rtol^pow. F_0 holds f(t0, x). */
static double initial_step(ld_erk *e, const ld_erk_options *o, const double *x, double span,
                           double hmax, double pow_) {
    double h = fmin(hmax, span);
    get_scale(e, e->s0, x);
    double thr = o->error_atol / o->error_rtol, rh = 0.0;
    for (int i = 0; i < e->nv; ++i) rh = fmax(rh, fabs(e->F[0][i]) / fmax(e->s0[i], thr));
    rh /= 0.8 * pow(o->error_rtol, pow_);
    if (h * rh > 1.0) h = 1.0 / rh;
    return h;
}

/* The status of a run whose step collapsed: a non-finite value in the last attempt
 * (LD_EDOMAIN), else a right-hand side that refused a state in some attempt of this step, e.g.
 * a parametrization at its singularity (LD_ESINGULAR), else the error test (LD_ESTEPSIZE). */
static int collapse_status(int cause) {
    return cause == 1 ? LD_EDOMAIN : cause == 2 ? LD_ESINGULAR : LD_ESTEPSIZE;
}

/* Adaptive run with the MATLAB ode45/ode23 controller. */
static int run_adaptive(ld_erk *e, const ld_erk_options *o, double t0, double t1, double *x,
                        ld_erk_output_fn out, void *ou, ld_erk_stats *st) {
    const ld_rk_table *tb = e->tab;
    if (!tb->bhat || !(o->error_rtol > 0.0) || !(o->error_atol > 0.0)) return LD_EINVAL;
    double pow_ = 1.0 / (tb->order_embedded + 1);
    ld_ctrl ctrl; /* MATLAB's rules */
    ld_ctrl_init(&ctrl, LD_CTRL_MATLAB, tb->order_embedded);
    ctrl.shrink_min = o->shrink_min > 0.0 && o->shrink_min < 1.0 ? o->shrink_min : 0.1;
    double span = t1 - t0;
    double hmax = o->h_max > 0.0 ? o->h_max : 0.1 * span;
    int rc = e->sp->rhs(t0, x, e->F[0], e->sp->user);
    e->fevals++;
    if (rc != 0) return rc > 0 ? LD_ESINGULAR : rc;
    double h = o->h_init > 0.0 ? fmin(o->h_init, hmax) : initial_step(e, o, x, span, hmax, pow_);
    double t = t0;
    int have_f0 = 1;
    while (t < t1) {
        double hmin = fmax(o->h_min, 16.0 * DBL_EPSILON * fabs(t));
        h = fmax(hmin, fmin(hmax, h));     /* the smallest step wins over hmax */
        if (1.1 * h >= t1 - t) h = t1 - t; /* stretch or shorten the last step */
        int cause = 0; /* 1: the last attempt was non-finite; 2: the rhs refused one */
        for (;;) {     /* attempts until one is accepted */
            if (o->max_steps > 0 && st->steps + st->rejected >= o->max_steps)
                return LD_ETOOMUCHWORK;
            if (!(t + h > t)) /* the step no longer advances t */
                return collapse_status(cause);
            rc = attempt(e, t, h, x, have_f0, o);
            have_f0 = 1; /* F_0 = f(t, x) stays valid across retries */
            if (rc < 0) return rc;
            double en = rc == 0 ? e->en : (double)INFINITY;
            int nonfinite = rc == 0 && e->nonfinite;
            cause = nonfinite ? 1 : (rc > 0 || cause == 2) ? 2 : 0;
            if (en <= 1.0) break;
            st->rejected++;
            if (h <= hmin) /* cannot meet the tolerance */
                return collapse_status(cause);
            h = fmax(hmin, ld_ctrl_rejected(&ctrl, h, en, 0));
            if (t + h > t1) h = t1 - t;
        }
        double hdone = h;
        t = (t1 - t <= h) ? t1 : t + h;
        memcpy(x, e->xnew, (size_t)e->nx * sizeof(double));
        note_step(st, hdone);
        st->t = t;
        /* first same as last: the last stage was evaluated at the new state */
        if (tb->fsal) {
            swap_fsal(e);
        } else {
            rc = e->sp->rhs(t, x, e->F[0], e->sp->user);
            e->fevals++;
            if (rc != 0) return rc > 0 ? LD_ESINGULAR : rc;
        }
        if (out) {
            rc = out(t, x, ou);
            if (rc != 0) return rc;
        }
        h = ld_ctrl_accepted(&ctrl, hdone, e->en, hdone);
    }
    return LD_OK;
}

/* Option values that no run can use: negative or non-finite tolerances, step bounds or step
 * limit (0 stands for the default everywhere). */
static int options_valid(const ld_erk_options *o) {
    return o->error_rtol >= 0.0 && isfinite(o->error_rtol) && o->error_atol >= 0.0 &&
           isfinite(o->error_atol) && o->h_init >= 0.0 && isfinite(o->h_init) && o->h_max >= 0.0 &&
           o->h_min >= 0.0 && isfinite(o->h_min) && o->max_steps >= 0;
}

int ld_erk_integrate(ld_erk *e, const ld_erk_options *o, double t0, double t1, double *x,
                     ld_erk_output_fn out, void *out_user, ld_erk_stats *stats) {
    ld_erk_stats local;
    ld_erk_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    st->t = t0;
    if (!e || !o || !x || !isfinite(t1 - t0) || !(t1 > t0) || !options_valid(o)) return LD_EINVAL;
    if (!all_finite(x, e->nx)) return LD_EDOMAIN;
    e->fevals = 0;
    int rc;
    if (o->adaptive) {
        rc = run_adaptive(e, o, t0, t1, x, out, out_user, st);
    } else {
        if (!(o->h_init > 0.0)) return LD_EINVAL;
        rc = run_fixed(e, o, t0, t1, x, out, out_user, st);
    }
    st->fevals = e->fevals;
    return rc;
}

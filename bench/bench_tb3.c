/*
 * TR-BDF2 (tb3) benchmark: a free rigid body, J = diag(5, 5, 1), under the exact torque of load
 * case (ii) of Zupan & Zupan Sec. IV.A (models/torque-body-ii.yaml), whose rotation follows
 * theta(t) = (t + sin t, 0, cos t) exactly; t in [0, 5 pi]. CSV on stdout, comment lines start
 * with '#'. Sections:
 *   1. speed: CPU ns per step of tb3, tb3-paper, newmark and genalpha (rho_inf = 0.9) at
 *      h = 5 pi / 1571 (~0.01) on so3xr3, and of tb3 and newmark in the other formulations;
 *      Newton iterations and factorizations per step.
 *   2. work-precision: largest geodesic rotation error over the run (evaluated at every step)
 *      against CPU time, for fixed steps (tb3, tb3-paper, newmark), adaptive tb3 and the
 *      optional peers (GSL odeiv2 rk8pd, SUNDIALS ARKODE ERKStep) on the reduced ODE
 *      q' = 1/2 q o (0, Omega), J Omega' = tau(t) - Omega x J Omega with the same torque.
 *   3. target: per solver the CPU time at a largest error of 1e-6 (cheapest measured run, and
 *      log-log interpolation between the two sweep points around 1e-6) and its ratio to GSL
 *      rk8pd's.
 *   4. matched: the same interpolated CPU time at the errors 1e-2 ... 1e-10.
 * Peers are compiled in only when found at configure time (LD_HAVE_GSL, LD_HAVE_ARKODE).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exact.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define BENCH_NAME "bench_tb3"
#include "bench_common.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif

#define PI         3.14159265358979323846
#define T_END      (5.0 * PI)
#define TARGET_ERR 1e-6
#define SPEED_H    0.01
/* The study's sizes; the smoke run of make test (BENCH_QUICK=1) shrinks them in main. */
static int SPEED_REPS = 7; /* interleaved rounds of section 1 */
static int WP_REPS = 5;    /* timed runs per work-precision point */
static double MIN_TIMED_S = 0.02;
static int FIXED_K = 7; /* fixed steps h = 0.1 * 2^-k, k = -2..FIXED_K */
#define RHO_INF     0.9
#define MAX_SOLVERS 12
#define MAX_POINTS  24
#define NY          7 /* reduced state (q[4], Omega[3]) */

static ld_model MODEL;
static ld_exact_case CASE;
static double JD[3]; /* principal inertia (the model's inertia is diagonal) */

/* ------------------------------------------------------------------ helpers */

static void cross3(double r[3], const double a[3], const double b[3]) {
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* Geodesic angle between the exact rotation at t and the quaternion q (any scale). */
static double rot_error(double t, const double q[4]) {
    double qe[4];
    check_ld("ld_model_exact_rotation", ld_model_exact_rotation(&MODEL, 0, t, qe));
    return ld_quat_angle(qe, q);
}

/* ------------------------------------------------------------------ the reduced ODE (peers) */

/* The exact body torque tau = J Omega' + Omega x J Omega of the prescribed motion. */
static void exact_torque(double t, double tau[3]) {
    double q[4], om[3], omd[3], jo[3], c[3];
    ld_exact_eval(CASE, t, q, om, omd);
    for (int i = 0; i < 3; ++i) jo[i] = JD[i] * om[i];
    cross3(c, om, jo);
    for (int i = 0; i < 3; ++i) tau[i] = JD[i] * omd[i] + c[i];
}

/* q' = 1/2 q o (0, Omega), Omega' = J^-1 (tau(t) - Omega x J Omega); q is never renormalized. */
static void body_rhs(double t, const double *y, double *dy) {
    const double *w = y + 4;
    double wq[4] = {0.0, 0.5 * w[0], 0.5 * w[1], 0.5 * w[2]}, tau[3], jw[3], c[3];
    ld_quat_mul(dy, y, wq);
    exact_torque(t, tau);
    for (int i = 0; i < 3; ++i) jw[i] = JD[i] * w[i];
    cross3(c, w, jw);
    for (int i = 0; i < 3; ++i) dy[4 + i] = (tau[i] - c[i]) / JD[i];
}

static void initial_y(double y[NY]) {
    memcpy(y, MODEL.bodies[0].q, 4 * sizeof(double));
    memcpy(y + 4, MODEL.bodies[0].omega, 3 * sizeof(double));
}

/* ------------------------------------------------------------------ solvers and results */

typedef enum solver_kind { K_FIXED, K_ADAPTIVE, K_GSL, K_ARKODE } solver_kind;

typedef struct result {
    double max_err, final_err;                                     /* measured runs only */
    long steps, rejected, newton, factorizations, roundoff, evals; /* < 0: not meaningful */
    double h;                                                      /* fixed steps: step used */
    int failed;
    char msg[256];
} result;

typedef struct point {
    char setting[32];
    double err, cpu;
    long steps;
} point;

typedef struct solver {
    char name[40];
    solver_kind kind;
    ld_integ_method method; /* liedyn only */
    ld_formulation form;
    int npts;
    point pts[MAX_POINTS]; /* successful points in sweep order */
} solver;

static void result_reset(result *r) {
    memset(r, 0, sizeof *r);
    r->rejected = r->newton = r->factorizations = r->roundoff = r->evals = -1;
}

/* Track the largest error after a step (NaN propagates). */
static void track(result *r, double e) {
    if (isnan(e) || isnan(r->max_err))
        r->max_err = NAN;
    else
        r->max_err = fmax(r->max_err, e);
    r->final_err = e;
}

/* ------------------------------------------------------------------ liedyn */

/* One liedyn integration over [0, T_END] from compile to free. Fixed: n = ceil(T_END/setting)
 * steps of T_END/n. Adaptive: tb3 with error_atol = error_rtol = setting. measure: the rotation
 * error after every step (otherwise not evaluated). */
static void run_liedyn(const solver *s, double setting, int measure, result *r) {
    ld_system sys;
    double *q0, *v0;
    check_ld("ld_model_compile", ld_model_compile(&MODEL, s->form, &sys, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = s->method;
    o.rho_inf = RHO_INF;
    o.la = LD_LA_DENSE;
    if (s->kind == K_ADAPTIVE) {
        o.adaptive = 1;
        o.error_atol = o.error_rtol = setting;
        o.newton_atol = 1e-2 * setting;
        o.newton_rtol = 1e-2 * setting;
        o.h_init = 0.01;
    }
    int st;
    ld_integ *it = ld_integ_create(&sys, &o, &st);
    if (!it) die("ld_integ_create", ld_strerror(st));
    check_ld("ld_integ_init", ld_integ_init(it, 0.0, q0, v0));
    double x[3], q[4], om[3], xd[3];
    if (s->kind == K_ADAPTIVE) {
        r->h = 0.0;
        while (ld_integ_t(it) < T_END) {
            if (ld_integ_step_adaptive(it, T_END) != LD_OK) {
                r->failed = 1;
                break;
            }
            if (measure) {
                check_ld("ld_model_body_state", ld_model_body_state(&sys, 0, ld_integ_q(it),
                                                                    ld_integ_v(it), x, q, om, xd));
                track(r, rot_error(ld_integ_t(it), q));
            }
        }
    } else {
        long n = lround(ceil(T_END / setting - 1e-9));
        double h = T_END / (double)n;
        r->h = h;
        for (long i = 0; i < n; ++i) {
            if (ld_integ_step(it, h) != LD_OK) {
                r->failed = 1;
                break;
            }
            if (measure) {
                check_ld("ld_model_body_state", ld_model_body_state(&sys, 0, ld_integ_q(it),
                                                                    ld_integ_v(it), x, q, om, xd));
                track(r, rot_error(ld_integ_t(it), q));
            }
        }
    }
    if (r->failed)
        snprintf(r->msg, sizeof r->msg, "stopped at t = %.6g: %s", ld_integ_t(it),
                 ld_integ_message(it));
    ld_integ_stats stats;
    ld_integ_get_stats(it, &stats);
    r->steps = stats.steps;
    r->rejected = stats.rejected;
    r->newton = stats.newton_iterations;
    r->factorizations = stats.factorizations;
    r->roundoff = stats.roundoff_stops;
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&sys);
}

/* ------------------------------------------------------------------ peers */

typedef struct ode_ctx {
    long fevals;
} ode_ctx;

#ifdef LD_HAVE_GSL
static int gsl_rhs(double t, const double y[], double dydt[], void *params) {
    ((ode_ctx *)params)->fevals++;
    body_rhs(t, y, dydt);
    return GSL_SUCCESS;
}

/* rk8pd with control_y_new(tol, tol), initial step 1e-3, every accepted step to T_END. */
static void run_gsl(double tol, int measure, result *r) {
    ode_ctx c = {0};
    gsl_odeiv2_system sys = {gsl_rhs, NULL, NY, &c};
    gsl_odeiv2_step *step = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, NY);
    gsl_odeiv2_control *ctl = gsl_odeiv2_control_y_new(tol, tol);
    gsl_odeiv2_evolve *ev = gsl_odeiv2_evolve_alloc(NY);
    if (!step || !ctl || !ev) die("GSL", "allocation failed");
    double t = 0.0, h = 1e-3, y[NY];
    initial_y(y);
    int status = GSL_SUCCESS;
    while (t < T_END) {
        status = gsl_odeiv2_evolve_apply(ev, ctl, step, &sys, &t, T_END, &h, y);
        if (status != GSL_SUCCESS) break;
        if (measure) track(r, rot_error(t, y));
    }
    if (status != GSL_SUCCESS) {
        r->failed = 1;
        snprintf(r->msg, sizeof r->msg, "stopped at t = %.6g: %s", t, gsl_strerror(status));
    }
    r->steps = (long)ev->count;
    r->rejected = (long)ev->failed_steps;
    r->evals = c.fevals;
    gsl_odeiv2_evolve_free(ev);
    gsl_odeiv2_control_free(ctl);
    gsl_odeiv2_step_free(step);
}
#endif

#ifdef LD_HAVE_ARKODE
static SUNContext ark_ctx;
static N_Vector ark_y;

static int ark_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user) {
    ((ode_ctx *)user)->fevals++;
    body_rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
    return 0;
}

/* ERKStep with the Dormand-Prince 5(4) table, SStolerances(tol, tol), one step at a time. (Not
 * ARKODE_VERNER_8_5_6: in SUNDIALS 6.4 ERKStep converges with order 3 with that table on this
 * problem, docs/tb3-bench.md.) */
static void run_arkode(double tol, int measure, result *r) {
    ode_ctx c = {0};
    sunrealtype *y = N_VGetArrayPointer(ark_y);
    initial_y(y);
    void *mem = ERKStepCreate(ark_rhs, 0.0, ark_y, ark_ctx);
    if (!mem) die("ERKStepCreate", "failed");
    check_ark("ERKStepSetUserData", ERKStepSetUserData(mem, &c));
    check_ark("ERKStepSetTableNum", ERKStepSetTableNum(mem, ARKODE_DORMAND_PRINCE_7_4_5));
    check_ark("ERKStepSStolerances", ERKStepSStolerances(mem, tol, tol));
    check_ark("ERKStepSetStopTime", ERKStepSetStopTime(mem, T_END));
    check_ark("ERKStepSetMaxNumSteps", ERKStepSetMaxNumSteps(mem, 100000000L));
    sunrealtype t = 0.0;
    while (t < T_END) {
        int flag = ERKStepEvolve(mem, T_END, ark_y, &t, ARK_ONE_STEP);
        if (flag < 0) {
            r->failed = 1;
            snprintf(r->msg, sizeof r->msg, "stopped at t = %.6g: ERKStepEvolve flag %d", t, flag);
            break;
        }
        if (measure) track(r, rot_error(t, y));
    }
    long steps = 0, attempts = 0;
    check_ark("ERKStepGetNumSteps", ERKStepGetNumSteps(mem, &steps));
    check_ark("ERKStepGetNumStepAttempts", ERKStepGetNumStepAttempts(mem, &attempts));
    ERKStepFree(&mem);
    r->steps = steps;
    r->rejected = attempts - steps;
    r->evals = c.fevals;
}
#endif

/* One integration; measure = 0 skips the error evaluation. */
static void run_solver(const solver *s, double setting, int measure, result *r) {
    result_reset(r);
    switch (s->kind) {
    case K_FIXED:
    case K_ADAPTIVE:
        run_liedyn(s, setting, measure, r);
        break;
#ifdef LD_HAVE_GSL
    case K_GSL:
        run_gsl(setting, measure, r);
        break;
#endif
#ifdef LD_HAVE_ARKODE
    case K_ARKODE:
        run_arkode(setting, measure, r);
        break;
#endif
    default:
        die(s->name, "solver not compiled in");
    }
    if (r->failed) r->max_err = r->final_err = NAN;
}

/* ------------------------------------------------------------------ section 1: speed */

typedef struct speed_cfg {
    ld_integ_method meth;
    ld_formulation form;
    ld_system sys;
    double *q0, *v0;
    ld_integ *it;
    double best;
    long n;
    double h;
    int failed;
    char msg[256];
    ld_integ_stats stats;
} speed_cfg;

static void speed_setup(speed_cfg *c) {
    check_ld("ld_model_compile", ld_model_compile(&MODEL, c->form, &c->sys, &c->q0, &c->v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = c->meth;
    o.rho_inf = RHO_INF;
    o.la = LD_LA_DENSE;
    int st;
    c->it = ld_integ_create(&c->sys, &o, &st);
    if (!c->it) die("ld_integ_create", ld_strerror(st));
    c->n = lround(ceil(T_END / SPEED_H - 1e-9));
    c->h = T_END / (double)c->n;
    c->best = INFINITY;
}

/* The n steps from the initial state; timed = 0: untimed, with the error after every step. */
static void speed_run(speed_cfg *c, int timed, double *max_err, double *final_err) {
    if (c->failed) return;
    check_ld("ld_integ_init", ld_integ_init(c->it, 0.0, c->q0, c->v0));
    double t0 = cpu_now(), x[3], q[4], om[3], xd[3], me = 0.0, e = 0.0;
    for (long i = 0; i < c->n; ++i) {
        if (ld_integ_step(c->it, c->h) != LD_OK) {
            c->failed = 1;
            snprintf(c->msg, sizeof c->msg, "stopped at t = %.6g: %s", ld_integ_t(c->it),
                     ld_integ_message(c->it));
            return;
        }
        if (!timed) {
            check_ld("ld_model_body_state", ld_model_body_state(&c->sys, 0, ld_integ_q(c->it),
                                                                ld_integ_v(c->it), x, q, om, xd));
            e = rot_error(ld_integ_t(c->it), q);
            me = fmax(me, e);
        }
    }
    if (timed) {
        c->best = fmin(c->best, cpu_now() - t0);
    } else {
        *max_err = me;
        *final_err = e;
    }
    ld_integ_get_stats(c->it, &c->stats);
}

static void speed_section(void) {
    enum { NCFG = 10 };
    static const struct {
        ld_integ_method m;
        ld_formulation f;
    } list[NCFG] = {
        {LD_INTEG_TB3, LD_FORM_SO3XR3},     {LD_INTEG_TB3_PAPER, LD_FORM_SO3XR3},
        {LD_INTEG_NEWMARK, LD_FORM_SO3XR3}, {LD_INTEG_GENALPHA, LD_FORM_SO3XR3},
        {LD_INTEG_TB3, LD_FORM_SE3},        {LD_INTEG_TB3, LD_FORM_S3XR3},
        {LD_INTEG_TB3, LD_FORM_S3SDR3},     {LD_INTEG_NEWMARK, LD_FORM_SE3},
        {LD_INTEG_NEWMARK, LD_FORM_S3XR3},  {LD_INTEG_NEWMARK, LD_FORM_S3SDR3},
    };
    speed_cfg cfg[NCFG];
    double max_err[NCFG], final_err[NCFG];
    for (int i = 0; i < NCFG; ++i) {
        memset(&cfg[i], 0, sizeof cfg[i]);
        cfg[i].meth = list[i].m;
        cfg[i].form = list[i].f;
        speed_setup(&cfg[i]);
        max_err[i] = final_err[i] = NAN;
        speed_run(&cfg[i], 0, &max_err[i], &final_err[i]);
    }
    for (int rep = 0; rep < SPEED_REPS; ++rep)
        for (int i = 0; i < NCFG; ++i) speed_run(&cfg[i], 1, NULL, NULL);
    for (int i = 0; i < NCFG; ++i) {
        speed_cfg *c = &cfg[i];
        const char *mn = ld_integ_method_name(c->meth), *fn = ld_formulation_name(c->form);
        if (c->failed) {
            printf("# %s %s: %s\n", mn, fn, c->msg);
            printf("speed,%s,%s,%.6g,%ld,,,,failed,\n", mn, fn, c->h, c->n);
        } else {
            double steps = (double)c->stats.steps;
            printf("speed,%s,%s,%.6g,%ld,%.0f,%.3f,%.3f,%.3e,%.3e\n", mn, fn, c->h, c->stats.steps,
                   1e9 * c->best / steps, (double)c->stats.newton_iterations / steps,
                   (double)c->stats.factorizations / steps, max_err[i], final_err[i]);
        }
        ld_integ_free(c->it);
        free(c->q0);
        free(c->v0);
        ld_model_system_free(&c->sys);
    }
    fflush(stdout);
}

/* ------------------------------------------------------------------ section 2: work-precision */

static void fmt_count(char *buf, size_t n, long v) {
    if (v < 0)
        buf[0] = '\0';
    else
        snprintf(buf, n, "%ld", v);
}

/* One point of the work-precision study: the error from one measured run, the CPU time from
 * timed runs without error evaluation, each repeating the integration nrep times so that it
 * lasts at least MIN_TIMED_S. */
typedef struct wp_entry {
    solver *s;
    double setting;
    char set[32];
    result r;
    long nrep;
    double best;
} wp_entry;

#define MAX_ENTRIES (MAX_SOLVERS * MAX_POINTS)
static wp_entry entries[MAX_ENTRIES];
static int nentries;

static void wp_measure(solver *s, double setting) {
    if (nentries >= MAX_ENTRIES) die("wp_measure", "too many points");
    wp_entry *e = &entries[nentries++];
    memset(e, 0, sizeof *e);
    e->s = s;
    e->setting = setting;
    e->best = INFINITY;
    run_solver(s, setting, 1, &e->r);
    if (s->kind == K_FIXED)
        snprintf(e->set, sizeof e->set, "h=%.6g", e->r.h);
    else
        snprintf(e->set, sizeof e->set, "tol=%.3g", setting);
    if (e->r.failed) return;
    result rt;
    double c0 = cpu_now();
    run_solver(s, setting, 0, &rt);
    double once = cpu_now() - c0;
    e->nrep = once >= MIN_TIMED_S ? 1 : (long)ceil(MIN_TIMED_S / fmax(once, 1e-7));
}

static void wp_time(wp_entry *e) {
    if (e->r.failed) return;
    result rt;
    double t0 = cpu_now();
    for (long i = 0; i < e->nrep; ++i) run_solver(e->s, e->setting, 0, &rt);
    e->best = fmin(e->best, (cpu_now() - t0) / (double)e->nrep);
    if (rt.failed || rt.steps != e->r.steps || rt.rejected != e->r.rejected ||
        rt.newton != e->r.newton)
        die(e->s->name, "timed run differs from the measured run");
}

static void wp_report(const wp_entry *e) {
    solver *s = e->s;
    const result *r = &e->r;
    if (r->failed) {
        printf("# %s %s: %s\n", s->name, e->set, r->msg);
        printf("work_precision,%s,%s,failed,,,%ld,,,,,\n", s->name, e->set, r->steps);
        return;
    }
    char rej[24], nit[24], fac[24], ro[24], ev[24];
    fmt_count(rej, sizeof rej, r->rejected);
    fmt_count(nit, sizeof nit, r->newton);
    fmt_count(fac, sizeof fac, r->factorizations);
    fmt_count(ro, sizeof ro, r->roundoff);
    fmt_count(ev, sizeof ev, r->evals);
    printf("work_precision,%s,%s,%.3e,%.3e,%.4e,%ld,%s,%s,%s,%s,%s\n", s->name, e->set, r->max_err,
           r->final_err, e->best, r->steps, rej, nit, fac, ro, ev);
    if (s->npts < MAX_POINTS) {
        point *p = &s->pts[s->npts++];
        snprintf(p->setting, sizeof p->setting, "%s", e->set);
        p->err = r->max_err;
        p->cpu = e->best;
        p->steps = r->steps;
    }
}

/* Every point measured, then WP_REPS rounds each timing every point once (a slow phase of a
 * shared machine hits all solvers alike), then the report. */
static void wp_section(solver *sv, int n) {
    for (int i = 0; i < n; ++i) {
        solver *s = &sv[i];
        switch (s->kind) {
        case K_FIXED:
            for (int k = -2; k <= FIXED_K; ++k) wp_measure(s, 0.1 * pow(2.0, -(double)k));
            break;
        case K_ADAPTIVE:
            for (int k = 3; k <= 9; k += bench_quick() ? 6 : 1)
                wp_measure(s, pow(10.0, -(double)k));
            break;
        default: /* peers: 10^(-k/2) from 1e-3 to 1e-12 */
            for (int k = 6; k <= 24; k += bench_quick() ? 18 : 1)
                wp_measure(s, pow(10.0, -0.5 * (double)k));
            break;
        }
    }
    for (int rep = 0; rep < WP_REPS; ++rep)
        for (int i = 0; i < nentries; ++i) wp_time(&entries[i]);
    for (int i = 0; i < nentries; ++i) wp_report(&entries[i]);
    fflush(stdout);
}

/* ------------------------------------------------------------------ section 3: target */

typedef struct at_target {
    int cheapest; /* index of the cheapest point with err <= level, -1 if none */
    double cpu;   /* CPU time at err = level, NaN if unknown */
    int interpolated;
    char how[96];
} at_target;

/* The cheapest measured point with err <= level, and the CPU time at err = level: interpolated
 * linearly in (log err, log cpu) between the first pair of consecutive sweep points whose errors
 * enclose it, otherwise (measure_ok) the cheapest measured point's. */
static at_target find_target(const solver *s, double level, int measure_ok) {
    at_target a = {-1, NAN, 0, "not reached"};
    for (int i = 0; i < s->npts; ++i)
        if (s->pts[i].err <= level && (a.cheapest < 0 || s->pts[i].cpu < s->pts[a.cheapest].cpu))
            a.cheapest = i;
    for (int i = 0; i + 1 < s->npts; ++i) {
        const point *p = &s->pts[i], *q = &s->pts[i + 1];
        if (p->err > level && q->err <= level && q->err > 0.0) {
            double w = log(p->err / level) / log(p->err / q->err);
            a.cpu = exp(log(p->cpu) + w * log(q->cpu / p->cpu));
            a.interpolated = 1;
            snprintf(a.how, sizeof a.how, "interpolated %s..%s", p->setting, q->setting);
            return a;
        }
    }
    if (a.cheapest >= 0 && measure_ok) {
        a.cpu = s->pts[a.cheapest].cpu;
        snprintf(a.how, sizeof a.how, "measured %s", s->pts[a.cheapest].setting);
    } else if (a.cheapest >= 0) {
        snprintf(a.how, sizeof a.how, "below at %s", s->pts[0].setting);
    }
    return a;
}

static void fmt_ratio(char *buf, size_t n, double a, double b) {
    if (isfinite(a) && isfinite(b) && b > 0.0)
        snprintf(buf, n, "%.3g", a / b);
    else
        buf[0] = '\0';
}

static void target_section(const solver *sv, int n) {
    double ref_cheap = NAN, ref_at = NAN;
    for (int i = 0; i < n; ++i)
        if (sv[i].kind == K_GSL) {
            at_target a = find_target(&sv[i], TARGET_ERR, 1);
            ref_at = a.cpu;
            if (a.cheapest >= 0) ref_cheap = sv[i].pts[a.cheapest].cpu;
        }
    printf("section,solver,cheapest_setting,cheapest_max_error,cheapest_steps,cheapest_cpu_s,"
           "cheapest_ratio_to_rk8pd,cpu_s_at_1e-6,cpu_s_at_1e-6_from,ratio_at_1e-6_to_rk8pd\n");
    for (int i = 0; i < n; ++i) {
        const solver *s = &sv[i];
        at_target a = find_target(s, TARGET_ERR, 1);
        char r1[32], r2[32], at[32] = "";
        if (isfinite(a.cpu)) snprintf(at, sizeof at, "%.4e", a.cpu);
        fmt_ratio(r2, sizeof r2, a.cpu, ref_at);
        if (a.cheapest < 0) {
            printf("target,%s,,,,,,%s,%s,%s\n", s->name, at, a.how, r2);
            continue;
        }
        const point *p = &s->pts[a.cheapest];
        fmt_ratio(r1, sizeof r1, p->cpu, ref_cheap);
        printf("target,%s,%s,%.3e,%ld,%.4e,%s,%s,%s,%s\n", s->name, p->setting, p->err, p->steps,
               p->cpu, r1, at, a.how, r2);
    }
}

/* Per error level 1e-2 ... 1e-10 and solver: the interpolated CPU time and its ratio to
 * rk8pd's and to newmark-fixed's (empty where a level lies outside a sweep). */
static void matched_section(const solver *sv, int n) {
    printf("section,level,solver,cpu_s,ratio_to_rk8pd,ratio_to_newmark,from\n");
    for (int k = 2; k <= 10; ++k) {
        double level = pow(10.0, -(double)k), ref = NAN, nm = NAN;
        for (int i = 0; i < n; ++i) {
            at_target a = find_target(&sv[i], level, 0);
            if (sv[i].kind == K_GSL) ref = a.cpu;
            if (sv[i].kind == K_FIXED && sv[i].method == LD_INTEG_NEWMARK) nm = a.cpu;
        }
        for (int i = 0; i < n; ++i) {
            at_target a = find_target(&sv[i], level, 0);
            char c[32] = "", r1[32], r2[32];
            if (isfinite(a.cpu)) snprintf(c, sizeof c, "%.4e", a.cpu);
            fmt_ratio(r1, sizeof r1, a.cpu, ref);
            fmt_ratio(r2, sizeof r2, a.cpu, nm);
            printf("matched,%.0e,%s,%s,%s,%s,%s\n", level, sv[i].name, c, r1, r2, a.how);
        }
    }
}

/* ------------------------------------------------------------------ checks */

/* The model is the body of load case (ii), and the reduced ODE and liedyn's systems start with
 * the exact velocity and acceleration. */
static void checks(void) {
    const ld_body *b = MODEL.nbodies == 1 ? &MODEL.bodies[0] : NULL;
    const ld_load *l = MODEL.nloads == 1 ? &MODEL.loads[0] : NULL;
    if (!b || !l || MODEL.njoints != 0 || l->kind != LD_LOAD_EXACT_TORQUE || l->body != 0 ||
        l->exact != LD_EXACT_II)
        die("model", "not one free body under the exact torque of case (ii)");
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (i != j && b->inertia[3 * i + j] != 0.0) die("model", "inertia not diagonal");
    for (int i = 0; i < 3; ++i) JD[i] = b->inertia[4 * i];
    CASE = l->exact;
    double q[4], om[3], omd[3], y[NY], dy[NY];
    ld_exact_eval(CASE, 0.0, q, om, omd);
    double dq = ld_quat_angle(q, b->q), dw = 0.0, da = 0.0;
    for (int i = 0; i < 3; ++i) dw = fmax(dw, fabs(om[i] - b->omega[i]));
    initial_y(y);
    body_rhs(0.0, y, dy);
    for (int i = 0; i < 3; ++i) da = fmax(da, fabs(dy[4 + i] - omd[i]));
    printf("# check at t = 0: model vs exact: rotation %.1e rad, Omega %.1e; reduced ODE Omega' "
           "vs exact Omega' = (%.10g, %.10g, %.10g): %.1e\n",
           dq, dw, omd[0], omd[1], omd[2], da);
    if (dq > 1e-12 || dw > 1e-12 || da > 1e-12) die("checks", "initial state differs");
    double qe[4];
    check_ld("ld_model_exact_rotation", ld_model_exact_rotation(&MODEL, 0, 7.0, qe));
    ld_exact_eval(CASE, 7.0, q, om, omd);
    if (ld_quat_angle(q, qe) > 1e-15) die("checks", "exact rotations differ");
    /* the Lie-group formulations (tb3 does not take the euler formulation's Euler parameters) */
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        ld_system sys;
        double *q0, *v0;
        check_ld("ld_model_compile", ld_model_compile(&MODEL, (ld_formulation)f, &sys, &q0, &v0));
        ld_integ_options o;
        ld_integ_options_init(&o);
        o.method = LD_INTEG_TB3;
        int st;
        ld_integ *it = ld_integ_create(&sys, &o, &st);
        if (!it) die("ld_integ_create", ld_strerror(st));
        check_ld("ld_integ_init", ld_integ_init(it, 0.0, q0, v0));
        const double *vd = ld_integ_vdot(it);
        double e = 0.0;
        for (int i = 0; i < 3; ++i) e = fmax(e, fabs(vd[i] - dy[4 + i]));
        printf("# check at t = 0: liedyn %s Omega' vs the reduced ODE's: %.1e\n",
               ld_formulation_name((ld_formulation)f), e);
        if (e > 1e-10) die("checks", "liedyn's initial acceleration differs");
        ld_integ_free(it);
        free(q0);
        free(v0);
        ld_model_system_free(&sys);
    }
}

/* ns per call of the reduced ODE's right-hand side (exact torque included). */
static double rhs_ns(void) {
    const long n = bench_quick() ? 1000 : 1000000;
    double best = INFINITY, y[NY], dy[NY], acc = 0.0;
    for (int rep = 0; rep < 3; ++rep) {
        initial_y(y);
        double t0 = cpu_now();
        for (long k = 0; k < n; ++k) {
            body_rhs(1e-6 * (double)k, y, dy);
            y[5] += 1e-12 * dy[4];
            acc += dy[0];
        }
        best = fmin(best, cpu_now() - t0);
    }
    if (!isfinite(acc)) die("rhs_ns", "non-finite sum");
    return 1e9 * best / (double)n;
}

/* ------------------------------------------------------------------ main */

static solver solvers[MAX_SOLVERS];
static int nsolvers;

static solver *add_solver(const char *name, solver_kind kind, ld_integ_method m) {
    if (nsolvers >= MAX_SOLVERS) die("add_solver", "too many solvers");
    solver *s = &solvers[nsolvers++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->kind = kind;
    s->method = m;
    s->form = LD_FORM_SO3XR3;
    return s;
}

int main(void) {
    if (bench_quick()) SPEED_REPS = WP_REPS = 1, MIN_TIMED_S = 0.0, FIXED_K = 0;
    double wall0 = wall_now(), cpu0 = cpu_now();
    ld_model_error merr;
    const char *path = LD_SOURCE_DIR "/models/torque-body-ii.yaml";
    int rc = ld_model_load(path, &MODEL, &merr);
    if (rc != LD_OK) die(path, rc == LD_EINVAL ? merr.msg : ld_strerror(rc));

    printf("# bench_tb3 (liedyn %s): free rigid body under the exact torque of load case (ii), "
           "model %s\n",
           ld_version(), path);
    printf("# J = diag(%g, %g, %g), theta(t) = (t + sin t, 0, cos t), t in [0, 5 pi]; error = "
           "geodesic angle (rad) between the computed and the exact rotation, max_error its "
           "largest value over the run evaluated after every (accepted) step, final_error at "
           "t = 5 pi\n",
           MODEL.bodies[0].inertia[0], MODEL.bodies[0].inertia[4], MODEL.bodies[0].inertia[8]);
#ifdef LD_HAVE_GSL
    printf("# peer: GSL %s odeiv2 rk8pd, evolve_apply with control_y_new(tol, tol), initial h "
           "1e-3, on the reduced ODE in R^7 (q not renormalized)\n",
           GSL_VERSION);
    gsl_set_error_handler_off();
    add_solver("gsl-rk8pd", K_GSL, LD_INTEG_TB3);
#else
    printf("# peer: GSL not found at configure time (skipped)\n");
#endif
#ifdef LD_HAVE_ARKODE
    printf(
        "# peer: SUNDIALS %s ARKODE ERKStep, ARKODE_DORMAND_PRINCE_7_4_5, SStolerances(tol, tol), "
        "ARK_ONE_STEP with stop time, on the reduced ODE\n",
        SUNDIALS_VERSION);
    check_ark("SUNContext_Create", SUNContext_Create(NULL, &ark_ctx));
    ark_y = N_VNew_Serial(NY, ark_ctx);
    if (!ark_y) die("N_VNew_Serial", "failed");
    add_solver("arkode-dopri5", K_ARKODE, LD_INTEG_TB3);
#elif defined(LD_ARKODE_UNUSABLE)
    printf("# peer: SUNDIALS found but older than 6.0 or not double precision (skipped)\n");
#else
    printf("# peer: SUNDIALS ARKODE not found at configure time (skipped)\n");
#endif
    checks();
    fflush(stdout);

    /* ---- section 1 */
    printf("#\n# section 1: CPU time per step (CLOCK_PROCESS_CPUTIME_ID, stepping only, best of "
           "%d interleaved rounds) of n = ceil(5 pi / %g) steps of h = 5 pi / n; rho_inf = %g "
           "(genalpha); default Newton tolerances (atol 1e-10, rtol 1e-8); dense linear solver; "
           "errors from a separate untimed run\n",
           SPEED_REPS, SPEED_H, RHO_INF);
    printf("section,method,formulation,h,steps,ns_per_step,newton_iterations_per_step,"
           "factorizations_per_step,max_error,final_error\n");
    speed_section();
    double wall1 = wall_now();

    /* ---- section 2 */
    const ld_integ_method fixed[3] = {LD_INTEG_TB3, LD_INTEG_TB3_PAPER, LD_INTEG_NEWMARK};
    for (int i = 0; i < 3; ++i) {
        char name[40];
        snprintf(name, sizeof name, "%s-fixed", ld_integ_method_name(fixed[i]));
        add_solver(name, K_FIXED, fixed[i]);
    }
    add_solver("tb3-adaptive", K_ADAPTIVE, LD_INTEG_TB3);
    printf("#\n# section 2: work-precision. liedyn (so3xr3, dense): fixed steps h = 5 pi / n "
           "nearest below 0.1 * 2^-k, k = -2..%d (h = 0.4 ... 7.8e-4), default Newton tolerances; "
           "tb3-adaptive: "
           "error_atol = error_rtol = tol (1e-3 ... 1e-9), Newton atol = rtol = 1e-2 tol, h_init = "
           "0.01, ld_integ_step_adaptive to 5 pi. Peers: tol = 10^(-k/2), 1e-3 ... 1e-12.\n",
           FIXED_K);
    printf("# cpu_s: CPU time of one whole integration including set-up (model compile, "
           "integrator create/free; peers alloc/free), without error evaluation; best of %d "
           "interleaved rounds, each timing every point once and repeating its integration "
           "until >= %g s. max_error and final_error "
           "from a separate measured run. steps: accepted steps; rejected: rejected attempts; "
           "newton_iterations, factorizations, roundoff_stops: liedyn's statistics; rhs_evals: "
           "the peers' right-hand-side evaluations.\n",
           WP_REPS, MIN_TIMED_S);
    printf("# the reduced ODE's right-hand side (exact torque included) costs %.1f ns per call "
           "(CPU time, best of 3 x 1e6 calls)\n",
           rhs_ns());
    printf("section,solver,setting,max_error,final_error,cpu_s,steps,rejected,newton_iterations,"
           "factorizations,roundoff_stops,rhs_evals\n");
    wp_section(solvers, nsolvers);
    double wall2 = wall_now();

    /* ---- section 3 */
    printf("#\n# section 3: CPU time at max_error <= %g. cheapest_*: the cheapest measured "
           "point of section 2 with max_error <= %g. cpu_s_at_1e-6: interpolated linearly in "
           "(log max_error, log cpu_s) between the first two consecutive sweep points whose "
           "errors enclose %g (cpu_s_at_1e-6_from says which), else the cheapest measured "
           "point's. Ratios to gsl-rk8pd's value of the same column (empty without GSL).\n",
           TARGET_ERR, TARGET_ERR, TARGET_ERR);
    target_section(solvers, nsolvers);
    printf("#\n# section 4: CPU time at matched max_error 1e-2 ... 1e-10, interpolated as in "
           "section 3 between the sweep points that enclose the level (empty and 'below at' when "
           "the coarsest setting is already more accurate, 'not reached' when the finest is not "
           "accurate enough); ratios to gsl-rk8pd's and newmark-fixed's value at the same "
           "level\n");
    matched_section(solvers, nsolvers);
    printf("# wall time: section 1 %.1f s, section 2 %.1f s, whole run %.1f s (CPU %.1f s)\n",
           wall1 - wall0, wall2 - wall1, wall_now() - wall0, cpu_now() - cpu0);

    /* ---- summary on stderr */
    fprintf(stderr, "bench_tb3: CPU time at max rotation error 1e-6 over [0, 5 pi]:\n");
    for (int i = 0; i < nsolvers; ++i) {
        at_target a = find_target(&solvers[i], TARGET_ERR, 1);
        fprintf(stderr, "  %-16s %10.3g ms  (%s)\n", solvers[i].name, 1e3 * a.cpu, a.how);
    }

#ifdef LD_HAVE_ARKODE
    N_VDestroy(ark_y);
    check_ark("SUNContext_Free", SUNContext_Free(&ark_ctx));
#endif
    ld_model_free(&MODEL);
    return 0;
}

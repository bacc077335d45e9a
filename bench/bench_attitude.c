/*
 * Attitude benchmark: cost per step and work-precision of the attitude methods on the
 * analytic case ex1, beside optional peers (GSL odeiv2, SUNDIALS ARKODE ERKStep) on the same
 * quaternion ODE. CSV on stdout, comment lines start with '#'. Sections:
 *   1. ns per step of the fixed-step methods (dt = 1e-3, no output), beside the floor: the
 *      cost of one evaluation of the exact angular velocity.
 *   2. work-precision: max geodesic error over all accepted steps vs CPU time, per setting.
 *   3. target: per solver, the cheapest setting reaching max error <= 1e-6.
 * Peers are compiled in only when found at configure time (LD_HAVE_GSL, LD_HAVE_ARKODE).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "liedyn/liedyn.h"

#define BENCH_NAME "bench_attitude"
#include "bench_common.h"

#define T_START 0.0
static double T_END = 100.0; /* shortened by the smoke run (bench_quick) */
#define TARGET_ERR 1e-6
#define SPEED_DT   1e-3
static int SPEED_REPS = 5, WP_REPS = 3; /* 1 in the smoke run */
static double MIN_TIMED_S = 0.02; /* a timed run repeats the integration until it lasts this long */
#define MAX_SOLVERS 16

static const ld_att_case *CASE;
static double Q0[4];
static volatile double sink;

/* ------------------------------------------------------------------ helpers */

/* Largest geodesic error against the exact rotation over the points it was given. */
typedef struct meter {
    double max_err;
    long points;
} meter;

static void meter_add(meter *m, double t, const double q[4]) {
    double qe[4];
    ld_att_case_quat(CASE, t, qe);
    double e = ld_quat_angle(qe, q);
    if (isnan(e) || e > m->max_err) m->max_err = e; /* a NaN sticks */
    m->points++;
}

#if defined(LD_HAVE_GSL) || defined(LD_HAVE_ARKODE)
/* Body-frame quaternion kinematics q̇ = ½ q ∘ (0, ω_G), as the peers integrate it. */
static void quat_rhs_body(double t, const double q[4], double dq[4]) {
    double w[3], wq[4];
    ld_att_case_omega(CASE, t, LD_FRAME_BODY, w);
    wq[0] = 0.0;
    for (int i = 0; i < 3; ++i) wq[i + 1] = 0.5 * w[i];
    ld_quat_mul(dq, q, wq);
}

typedef struct peer_ctx {
    long fevals;
} peer_ctx;
#endif

/* ------------------------------------------------------------------ solvers */

typedef enum solver_kind { K_LIEDYN, K_GSL, K_ARKODE } solver_kind;

typedef struct solver {
    char name[40];
    solver_kind kind;
    int method;   /* liedyn: ld_att_method; GSL: 0 = rk8pd, 1 = rkf45 */
    int adaptive; /* setting = rtol = atol (adaptive) or the fixed step dt */
    double best_cpu_at_target;
} solver;

typedef struct result {
    double max_err;
    long steps, fevals;
} result;

static int liedyn_out(const ld_attitude_point *pt, void *user) {
    meter_add(user, pt->t, pt->q);
    return 0;
}

static void liedyn_problem(ld_attitude_problem *pb, ld_att_case_omega_ctx *ctx) {
    ctx->c = CASE;
    ctx->frame = LD_FRAME_BODY;
    memset(pb, 0, sizeof *pb);
    pb->omega = ld_att_case_omega_fn;
    pb->user = ctx;
    pb->frame = LD_FRAME_BODY;
    pb->t0 = T_START;
    pb->t1 = T_END;
    memcpy(pb->q0, Q0, sizeof Q0);
}

static void integrate_liedyn(const solver *s, double setting, meter *m, result *r) {
    ld_att_case_omega_ctx ctx;
    ld_attitude_problem pb;
    liedyn_problem(&pb, &ctx);
    ld_attitude_options o;
    ld_attitude_options_default(&o);
    o.method = (ld_att_method)s->method;
    o.param = LD_PARAM_QUAT;
    if (s->adaptive) {
        o.error_rtol = o.error_atol = setting;
        o.dt = 0.0; /* automatic first step */
    } else {
        o.dt = setting;
    }
    ld_attitude_stats st;
    check_ld(s->name, ld_attitude_integrate(&pb, &o, m ? liedyn_out : NULL, m, &st));
    r->steps = st.steps;
    r->fevals = st.fevals;
}

#ifdef LD_HAVE_GSL
static int gsl_rhs(double t, const double y[], double dydt[], void *params) {
    peer_ctx *pc = params;
    pc->fevals++;
    quat_rhs_body(t, y, dydt);
    return GSL_SUCCESS;
}

static void integrate_gsl(const solver *s, double setting, meter *m, result *r) {
    const gsl_odeiv2_step_type *type =
        s->method == 0 ? gsl_odeiv2_step_rk8pd : gsl_odeiv2_step_rkf45;
    peer_ctx pc = {0};
    gsl_odeiv2_system sys = {gsl_rhs, NULL, 4, &pc};
    gsl_odeiv2_step *step = gsl_odeiv2_step_alloc(type, 4);
    gsl_odeiv2_control *ctl = gsl_odeiv2_control_y_new(setting, setting);
    gsl_odeiv2_evolve *ev = gsl_odeiv2_evolve_alloc(4);
    if (!step || !ctl || !ev) die(s->name, "GSL allocation failed");
    double t = T_START, h = 1e-3, y[4];
    memcpy(y, Q0, sizeof y);
    long steps = 0;
    if (m) meter_add(m, t, y);
    while (t < T_END) {
        int status = gsl_odeiv2_evolve_apply(ev, ctl, step, &sys, &t, T_END, &h, y);
        if (status != GSL_SUCCESS) die(s->name, gsl_strerror(status));
        steps++;
        if (m) meter_add(m, t, y);
    }
    gsl_odeiv2_evolve_free(ev);
    gsl_odeiv2_control_free(ctl);
    gsl_odeiv2_step_free(step);
    r->steps = steps;
    r->fevals = pc.fevals;
}
#endif

#ifdef LD_HAVE_ARKODE
static SUNContext ark_ctx;
static N_Vector ark_y;

static int ark_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user) {
    peer_ctx *pc = user;
    pc->fevals++;
    quat_rhs_body(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
    return 0;
}

static void integrate_arkode(const solver *s, double setting, meter *m, result *r) {
    peer_ctx pc = {0};
    sunrealtype *y = N_VGetArrayPointer(ark_y);
    memcpy(y, Q0, sizeof Q0);
    void *mem = ERKStepCreate(ark_rhs, T_START, ark_y, ark_ctx);
    if (!mem) die(s->name, "ERKStepCreate failed");
    check_ark("ERKStepSetUserData", ERKStepSetUserData(mem, &pc));
    check_ark("ERKStepSetTableNum", ERKStepSetTableNum(mem, ARKODE_DORMAND_PRINCE_7_4_5));
    check_ark("ERKStepSStolerances", ERKStepSStolerances(mem, setting, setting));
    check_ark("ERKStepSetStopTime", ERKStepSetStopTime(mem, T_END));
    check_ark("ERKStepSetMaxNumSteps", ERKStepSetMaxNumSteps(mem, 100000000L));
    sunrealtype t = T_START;
    if (m) meter_add(m, t, y);
    while (t < T_END) {
        check_ark("ERKStepEvolve", ERKStepEvolve(mem, T_END, ark_y, &t, ARK_ONE_STEP));
        if (m) meter_add(m, t, y);
    }
    long steps = 0;
    check_ark("ERKStepGetNumSteps", ERKStepGetNumSteps(mem, &steps));
    ERKStepFree(&mem);
    r->steps = steps;
    r->fevals = pc.fevals;
}
#endif

/* One integration over [T_START, T_END]; m (may be NULL) measures the error at every point. */
static void integrate(const solver *s, double setting, meter *m, result *r) {
    switch (s->kind) {
#ifdef LD_HAVE_GSL
    case K_GSL:
        integrate_gsl(s, setting, m, r);
        break;
#endif
#ifdef LD_HAVE_ARKODE
    case K_ARKODE:
        integrate_arkode(s, setting, m, r);
        break;
#endif
    case K_LIEDYN:
        integrate_liedyn(s, setting, m, r);
        break;
    default:
        die(s->name, "solver not compiled in");
    }
}

/* ------------------------------------------------------------------ section 1: ns per step */

static double omega_floor_ns(void) {
    const long n = bench_quick() ? 1000 : 1000000;
    double best = INFINITY;
    for (int rep = 0; rep < SPEED_REPS; ++rep) {
        double acc = 0.0, w[3];
        double t0 = wall_now();
        for (long k = 0; k < n; ++k) {
            ld_att_case_omega(CASE, 1e-4 * (double)k, LD_FRAME_BODY, w);
            acc += w[0] + w[1] + w[2];
        }
        best = fmin(best, wall_now() - t0);
        sink = acc;
    }
    return 1e9 * best / (double)n;
}

static void speed_row(const char *label, int method, double floor_ns) {
    ld_att_case_omega_ctx ctx;
    ld_attitude_problem pb;
    liedyn_problem(&pb, &ctx);
    ld_attitude_options o;
    ld_attitude_options_default(&o);
    o.method = (ld_att_method)method;
    o.param = LD_PARAM_QUAT;
    o.dt = SPEED_DT;
    ld_attitude_stats st;
    double best = INFINITY;
    for (int rep = 0; rep < SPEED_REPS; ++rep) {
        double t0 = wall_now();
        int rc = ld_attitude_integrate(&pb, &o, NULL, NULL, &st);
        double dt = wall_now() - t0;
        check_ld(label, rc);
        best = fmin(best, dt);
    }
    double ns = 1e9 * best / (double)st.steps;
    double ev = (double)st.fevals / (double)st.steps;
    printf("ns_per_step,%s,%.2f,%.5f,%.2f\n", label, ns, ev, ns - ev * floor_ns);
}

/* ------------------------------------------------------------------ section 2: work-precision */

/* Error from an untimed run with the error meter; CPU time from WP_REPS timed runs without it
 * (each repeating the integration until it lasts MIN_TIMED_S), the best one kept. */
static void wp_point(solver *s, double setting, result *r, double *cpu_s) {
    meter m = {0.0, 0};
    double c0 = cpu_now();
    integrate(s, setting, &m, r);
    double c_err = cpu_now() - c0;
    r->max_err = m.max_err;
    long nrep = c_err >= MIN_TIMED_S ? 1 : (long)ceil(MIN_TIMED_S / fmax(c_err, 1e-7));
    if (nrep > 100000) nrep = 100000;
    double best = INFINITY;
    for (int rep = 0; rep < WP_REPS; ++rep) {
        result rt = {0};
        double t0 = cpu_now();
        for (long i = 0; i < nrep; ++i) integrate(s, setting, NULL, &rt);
        best = fmin(best, (cpu_now() - t0) / (double)nrep);
        if (rt.steps != r->steps || rt.fevals != r->fevals)
            die(s->name, "timed run differs from the measured run");
    }
    *cpu_s = best;
    if (r->max_err <= TARGET_ERR && best < s->best_cpu_at_target) s->best_cpu_at_target = best;
    char set[32];
    if (s->adaptive)
        snprintf(set, sizeof set, "tol=%.0e", setting);
    else
        snprintf(set, sizeof set, "dt=%g", setting);
    printf("work_precision,%s,%s,%.3e,%.4e,%ld,%ld\n", s->name, set, r->max_err, best, r->steps,
           r->fevals);
    fflush(stdout);
}

/* Tolerances 10^(-k/4), k = 16 ... 48: four per decade, so the best setting that meets a target
 * error is found to within a factor 1.8 in tolerance for every solver alike. */
static void sweep_adaptive(solver *s) {
    for (int k = 16; k <= 48; k += bench_quick() ? 16 : 1) {
        result r;
        double cpu;
        wp_point(s, pow(10.0, -0.25 * (double)k), &r, &cpu);
    }
}

/* dt = 0.5 · 2^(-k/4) down to 1e-4 (the last one clamped to 1e-4), stopping early once the
 * error is below 1e-3 and a smaller step no longer improves it by 10 % (round-off floor). */
static void sweep_fixed(solver *s) {
    const double dt_min = bench_quick() ? 0.1 : 1e-4;
    double dt = 0.5, best_err = INFINITY;
    for (;;) {
        result r;
        double cpu;
        wp_point(s, dt, &r, &cpu);
        if (r.max_err < 1e-3 && r.max_err > 0.9 * best_err) break;
        best_err = fmin(best_err, r.max_err);
        if (dt <= dt_min * (1.0 + 1e-9)) break;
        dt = fmax(dt * pow(2.0, -0.25), dt_min);
    }
}

/* ------------------------------------------------------------------ main */

static int nsolvers;
static solver solvers[MAX_SOLVERS];

static solver *add_solver(const char *name, solver_kind kind, int method, int adaptive) {
    if (nsolvers >= MAX_SOLVERS) die("add_solver", "too many solvers");
    solver *s = &solvers[nsolvers++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->kind = kind;
    s->method = method;
    s->adaptive = adaptive;
    s->best_cpu_at_target = INFINITY;
    return s;
}

static int find_method(const char *name) {
    return ld_att_method_find(name);
}

static int need_method(const char *name) {
    int m = find_method(name);
    if (m < 0) die(name, "method not found in liedyn");
    return m;
}

static void add_liedyn(const char *method, const char *label) {
    int m = need_method(method);
    add_solver(label, K_LIEDYN, m, ld_att_method_is_adaptive((ld_att_method)m));
}

int main(void) {
    if (bench_quick()) T_END = 1.0, SPEED_REPS = WP_REPS = 1, MIN_TIMED_S = 0.0;
    CASE = ld_att_case_find("ex1");
    if (!CASE) die("ld_att_case_find", "case ex1 not found");
    ld_att_case_quat(CASE, T_START, Q0);
    enum { NMAGNUS = 4 };
    const char *magnus_name[NMAGNUS] = {"magnus4", "magnus6", "magnus8", "magnus8x2"};
    int magnus[NMAGNUS];
    for (int i = 0; i < NMAGNUS; ++i) magnus[i] = find_method(magnus_name[i]);

    printf("# bench_attitude (liedyn %s): attitude from angular velocity, case ex1 (%s)\n",
           ld_version(), CASE->title);
    printf("# problem: body-frame kinematics q' = 1/2 q o (0, w_G(t)), w_G exact, t in [%g, %g], "
           "q0 = exact q(0); all solvers evaluate w by ld_att_case_omega\n",
           T_START, T_END);
    printf("# error: geodesic angle (rad) to the exact rotation, max over t0 and every accepted "
           "step (ld_quat_angle, sign- and scale-invariant)\n");
#ifdef LD_HAVE_GSL
    printf("# peer: GSL %s odeiv2 evolve_apply, control_y_new(eps, eps), initial h 1e-3, "
           "plain (unnormalized) quaternion ODE\n",
           GSL_VERSION);
#else
    printf("# peer: GSL not found at configure time (skipped)\n");
#endif
#ifdef LD_HAVE_ARKODE
    printf("# peer: SUNDIALS %s ARKODE ERKStep, ARKODE_DORMAND_PRINCE_7_4_5, SStolerances(eps, "
           "eps), ARK_ONE_STEP with stop time, plain quaternion ODE\n",
           SUNDIALS_VERSION);
#elif defined(LD_ARKODE_UNUSABLE)
    printf("# peer: SUNDIALS found but older than 6.0 or not double precision (skipped)\n");
#else
    printf("# peer: SUNDIALS ARKODE not found at configure time (skipped)\n");
#endif
    for (int i = 0; i < NMAGNUS; ++i)
        if (magnus[i] < 0) printf("# %s: not in this liedyn build (skipped)\n", magnus_name[i]);

    /* ---- section 1 */
    printf("#\n# section 1: wall time per step (CLOCK_MONOTONIC, best of %d) at fixed dt = %g "
           "over [%g, %g] (%.0f steps), no output callback, omega via ld_att_case_omega_fn;\n"
           "# floor = ns per call of ld_att_case_omega (body frame) alone; overhead = ns_per_step "
           "- omega_evals_per_step * floor\n",
           SPEED_REPS, SPEED_DT, T_START, T_END, (T_END - T_START) / SPEED_DT);
    double floor_ns = omega_floor_ns();
    printf("section,method,ns_per_step,omega_evals_per_step,overhead_ns_per_step\n");
    printf("omega_floor,ld_att_case_omega,%.2f,1,0\n", floor_ns);
    speed_row("mpq", need_method("mpq"), floor_ns);
    speed_row("rk4-quat", need_method("rk4"), floor_ns);
    speed_row("rkmk4", need_method("rkmk4"), floor_ns);
    for (int i = 0; i < NMAGNUS; ++i)
        if (magnus[i] >= 0) speed_row(magnus_name[i], magnus[i], floor_ns);
    fflush(stdout);

    /* ---- section 2 */
#ifdef LD_HAVE_GSL
    gsl_set_error_handler_off();
    add_solver("gsl-rk8pd", K_GSL, 0, 1);
    add_solver("gsl-rkf45", K_GSL, 1, 1);
#endif
#ifdef LD_HAVE_ARKODE
    check_ark("SUNContext_Create", SUNContext_Create(NULL, &ark_ctx));
    ark_y = N_VNew_Serial(4, ark_ctx);
    if (!ark_y) die("N_VNew_Serial", "failed");
    add_solver("arkode-erk-dopri5", K_ARKODE, 0, 1);
#endif
    add_liedyn("ode45", "liedyn-ode45-quat");
    add_liedyn("rkmk45", "liedyn-rkmk45");
    add_liedyn("rk4", "liedyn-rk4-quat");
    add_liedyn("rkmk4", "liedyn-rkmk4");
    add_liedyn("mpq", "liedyn-mpq");
    for (int i = 0; i < NMAGNUS; ++i) {
        if (magnus[i] < 0) continue;
        char label[40];
        snprintf(label, sizeof label, "liedyn-%s", magnus_name[i]);
        add_solver(label, K_LIEDYN, magnus[i], ld_att_method_is_adaptive((ld_att_method)magnus[i]));
    }

    printf("#\n# section 2: work-precision. setting: tol = rtol = atol (adaptive) or dt (fixed "
           "step); tolerances 10^(-k/4) from 1e-4 to 1e-12, steps 0.5 * 2^(-k/4) down to 1e-4 or "
           "until the "
           "error stops improving.\n"
           "# max_angle_error from one run measuring the error at every accepted step; cpu_s "
           "from separate runs WITHOUT error evaluation (all solvers alike): CPU time "
           "(CLOCK_PROCESS_CPUTIME_ID) of one whole integration including the solver's setup "
           "and teardown, best of %d timed runs, each repeating the integration until >= %g s. "
           "steps = accepted steps, omega_evals = all evaluations of w (rejected steps "
           "included).\n",
           WP_REPS, MIN_TIMED_S);
    printf("section,solver,setting,max_angle_error,cpu_s,steps,omega_evals\n");
    for (int i = 0; i < nsolvers; ++i) {
        if (solvers[i].adaptive)
            sweep_adaptive(&solvers[i]);
        else
            sweep_fixed(&solvers[i]);
    }

    /* ---- section 3 */
    double ref = INFINITY;
    for (int i = 0; i < nsolvers; ++i)
        if (strcmp(solvers[i].name, "gsl-rk8pd") == 0) ref = solvers[i].best_cpu_at_target;
    printf("#\n# section 3: per solver the smallest cpu_s among its settings with "
           "max_angle_error <= %g (empty: none qualifies), and its ratio to gsl-rk8pd's "
           "(empty without GSL)\n",
           TARGET_ERR);
    printf("section,solver,best_cpu_s_at_1e-6,ratio_to_rk8pd\n");
    for (int i = 0; i < nsolvers; ++i) {
        const solver *s = &solvers[i];
        if (!isfinite(s->best_cpu_at_target)) {
            printf("target,%s,,\n", s->name);
        } else if (!isfinite(ref)) {
            printf("target,%s,%.4e,\n", s->name, s->best_cpu_at_target);
        } else {
            printf("target,%s,%.4e,%.3f\n", s->name, s->best_cpu_at_target,
                   s->best_cpu_at_target / ref);
        }
    }

#ifdef LD_HAVE_ARKODE
    N_VDestroy(ark_y);
    check_ark("SUNContext_Free", SUNContext_Free(&ark_ctx));
#endif
    return 0;
}

/*
 * Heavy-top benchmark (Brüls & Cardona 2010): the fast symmetric top on a spherical joint under
 * gravity, t in [0, 2]. CSV on stdout, comment lines start with '#'. Sections:
 *   1. speed: ns per step of the implicit integrators (genalpha, newmark) in every formulation
 *      with the dense and the KLU linear solver at h = 1e-3.
 *   2. work-precision: error at t = 2 against a tight reference vs CPU time, for liedyn's
 *      implicit integrators, liedyn's explicit Dormand-Prince on the reduced quaternion ODE
 *      and the optional peers (GSL odeiv2, SUNDIALS ARKODE ERKStep, MuJoCo).
 *   3. target: per solver the cheapest CPU time with error <= 1e-6, and its ratio to GSL
 *      rk8pd's.
 * The reference and the explicit solvers integrate the reduced ODE about the fixed point in
 * (q, Omega): q' = 1/2 q o (0, Omega), J0 Omega' + Omega x J0 Omega = X x (R^T m g) with
 * J0 = J + m (|X|^2 I - X X^T). Peers are compiled in only when found at configure time
 * (LD_HAVE_GSL, LD_HAVE_ARKODE, LD_HAVE_MUJOCO).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define BENCH_NAME "bench_heavytop"
#include "bench_common.h"

#ifdef LD_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif

#define T_END      2.0
#define TARGET_ERR 1e-6
#define STOP_ERR   1e-7 /* fixed-step sweeps stop once the error is below this */
#define SPEED_H    1e-3
/* The study's sizes; the smoke run of make test (BENCH_QUICK=1) shrinks them in main. */
static int SPEED_STEPS = 2000, SPEED_REPS = 3, WP_REPS = 3;
static double MIN_TIMED_S = 0.02; /* a timed run repeats the integration until it lasts this long */
static double LONG_RUN_S = 0.5;   /* longer runs: the measured run is timed too, fewer extra runs */
#define RHO_INF     0.9
#define MAX_SOLVERS 64
#define NY          7 /* reduced state (q[4], Omega[3]) */

/* ------------------------------------------------------------------ the problem */

static const double MASS = 15.0;
static const double JC[3] = {0.234375, 0.46875, 0.234375}; /* about the centre of mass */
static const double XB[3] = {0.0, 1.0, 0.0}; /* centre of mass from the fixed point, body */
static const double GRAV[3] = {0.0, 0.0, -9.81};
static const double OMEGA0[3] = {0.0, 150.0, -4.61538};
static const double OMEGADOT0_KYNEMA[3] = {661.3461692307692, 0.0, 0.0};

static double J0[9], J0INV[9]; /* inertia about the fixed point and its inverse */
static double Y0[NY];          /* reduced initial state */
static double QREF[4], XREF[3];
static ld_model MODEL;

/* ------------------------------------------------------------------ helpers */

static void mat3_vec(double r[3], const double A[9], const double v[3]) {
    for (int i = 0; i < 3; ++i) r[i] = A[3 * i] * v[0] + A[3 * i + 1] * v[1] + A[3 * i + 2] * v[2];
}

static void cross3(double r[3], const double a[3], const double b[3]) {
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static void inv3(double Ai[9], const double A[9]) {
    double c[9];
    c[0] = A[4] * A[8] - A[5] * A[7];
    c[1] = A[2] * A[7] - A[1] * A[8];
    c[2] = A[1] * A[5] - A[2] * A[4];
    c[3] = A[5] * A[6] - A[3] * A[8];
    c[4] = A[0] * A[8] - A[2] * A[6];
    c[5] = A[2] * A[3] - A[0] * A[5];
    c[6] = A[3] * A[7] - A[4] * A[6];
    c[7] = A[1] * A[6] - A[0] * A[7];
    c[8] = A[0] * A[4] - A[1] * A[3];
    double det = A[0] * c[0] + A[1] * c[3] + A[2] * c[6];
    for (int i = 0; i < 9; ++i) Ai[i] = c[i] / det;
}

static void problem_init(void) {
    double x2 = XB[0] * XB[0] + XB[1] * XB[1] + XB[2] * XB[2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            J0[3 * i + j] = (i == j ? JC[i] + MASS * x2 : 0.0) - MASS * XB[i] * XB[j];
    inv3(J0INV, J0);
    Y0[0] = 1.0, Y0[1] = Y0[2] = Y0[3] = 0.0;
    memcpy(Y0 + 4, OMEGA0, sizeof OMEGA0);
}

/* The reduced ODE. The rotation is that of q/|q| (q itself is never renormalized). */
static void top_rhs(const double *y, double *dy) {
    const double *q = y, *w = y + 4;
    double wq[4] = {0.0, 0.5 * w[0], 0.5 * w[1], 0.5 * w[2]};
    ld_quat_mul(dy, q, wq);
    /* R^T g for R = R(q/|q|): q* g q / |q|^2 */
    double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], s = 2.0 / n2;
    double R[9] = {1.0 - s * (q[2] * q[2] + q[3] * q[3]), s * (q[1] * q[2] - q[0] * q[3]),
                   s * (q[1] * q[3] + q[0] * q[2]),       s * (q[1] * q[2] + q[0] * q[3]),
                   1.0 - s * (q[1] * q[1] + q[3] * q[3]), s * (q[2] * q[3] - q[0] * q[1]),
                   s * (q[1] * q[3] - q[0] * q[2]),       s * (q[2] * q[3] + q[0] * q[1]),
                   1.0 - s * (q[1] * q[1] + q[2] * q[2])};
    double gb[3], tau[3], Jw[3], wJw[3];
    for (int i = 0; i < 3; ++i)
        gb[i] = MASS * (R[i] * GRAV[0] + R[3 + i] * GRAV[1] + R[6 + i] * GRAV[2]);
    cross3(tau, XB, gb);
    mat3_vec(Jw, J0, w);
    cross3(wJw, w, Jw);
    for (int i = 0; i < 3; ++i) tau[i] -= wJw[i];
    mat3_vec(dy + 4, J0INV, tau);
}

/* Error of a final state (quaternion of any scale, centre of mass) against the reference. */
typedef struct result {
    double err, rot_err, pos_err;
    long steps, evals; /* evals < 0: not meaningful */
    double h;          /* step actually used (fixed-step solvers) */
    int failed;        /* the integration stopped early (why: in msg) */
    char msg[256];
} result;

static void set_error(result *r, const double q[4], const double x[3]) {
    double d = 0.0;
    for (int i = 0; i < 3; ++i) d += (x[i] - XREF[i]) * (x[i] - XREF[i]);
    r->rot_err = ld_quat_angle(q, QREF);
    r->pos_err = sqrt(d);
    r->err = fmax(r->rot_err, r->pos_err);
    if (isnan(r->rot_err) || isnan(r->pos_err)) r->err = NAN;
}

/* Centre of mass x = R(q/|q|) X of a reduced state. */
static void com_of(double x[3], const double q[4]) {
    double R[9];
    ld_quat_to_mat(R, q);
    mat3_vec(x, R, XB);
}

/* ------------------------------------------------------------------ liedyn ERK (reduced ODE) */

typedef struct ode_ctx {
    long fevals;
} ode_ctx;

static int erk_rhs(double t, const double *x, double *v, void *user) {
    (void)t;
    ((ode_ctx *)user)->fevals++;
    top_rhs(x, v);
    return 0;
}

/* Dormand-Prince 5(4) of rk.h on the 7-dimensional vector space, rtol = atol = tol. */
static int erk_solve(double tol, double y[NY], result *r) {
    const ld_rk_table *tab = ld_rk_table_find("dopri5");
    if (!tab) die("ld_rk_table_find", "dopri5 not found");
    ode_ctx c = {0};
    ld_erk_space sp;
    memset(&sp, 0, sizeof sp);
    sp.nx = sp.nv = NY;
    sp.rhs = erk_rhs;
    sp.user = &c;
    ld_erk *e;
    check_ld("ld_erk_create", ld_erk_create(&e, &sp, tab));
    ld_erk_options o;
    ld_erk_options_default(&o);
    o.error_rtol = o.error_atol = tol;
    ld_erk_stats st;
    memcpy(y, Y0, sizeof Y0);
    int rc = ld_erk_integrate(e, &o, 0.0, T_END, y, NULL, NULL, &st);
    ld_erk_free(e);
    r->steps = st.steps;
    r->evals = c.fevals;
    return rc;
}

/* ------------------------------------------------------------------ solvers */

typedef enum solver_kind { K_IMPLICIT, K_ERK, K_GSL, K_ARKODE, K_MUJOCO } solver_kind;

typedef struct solver {
    char name[40];
    solver_kind kind;
    int method; /* implicit: ld_integ_method; GSL: 0 rk8pd, 1 rkf45; MuJoCo: mjtIntegrator */
    ld_formulation form; /* implicit only */
    int adaptive;        /* setting = tolerance (adaptive) or step h (fixed) */
    int stages;          /* MuJoCo: dynamics evaluations per step */
    double best_cpu;     /* cheapest cpu_s with err <= TARGET_ERR */
    char best_setting[32];
    double best_err;
    long best_steps;
    double last_h, last_err, last_cpu, prev_h, prev_err; /* the last two successful points */
} solver;

static void integrate_implicit(const solver *s, double h, int la, result *r, int measure) {
    ld_system sys;
    double *q0, *v0;
    check_ld("ld_model_compile", ld_model_compile(&MODEL, s->form, &sys, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)s->method;
    o.rho_inf = RHO_INF;
    o.la = (ld_la_kind)la;
    int st;
    ld_integ *it = ld_integ_create(&sys, &o, &st);
    if (!it) die("ld_integ_create", ld_strerror(st));
    check_ld("ld_integ_init", ld_integ_init(it, 0.0, q0, v0));
    long n = lround(ceil(T_END / h - 1e-9));
    double hh = T_END / (double)n;
    r->failed = 0;
    for (long i = 0; i < n && !r->failed; ++i) {
        int rc = ld_integ_step(it, hh);
        if (rc != LD_OK) {
            r->failed = 1;
            snprintf(r->msg, sizeof r->msg, "%s", ld_integ_message(it));
        }
    }
    ld_integ_stats stats;
    ld_integ_get_stats(it, &stats);
    r->steps = stats.steps;
    r->evals = stats.newton_iterations;
    r->h = hh;
    if (measure) {
        double x[3], q[4], om[3], xd[3];
        check_ld("ld_model_body_state",
                 ld_model_body_state(&sys, 0, ld_integ_q(it), ld_integ_v(it), x, q, om, xd));
        set_error(r, q, x);
        if (r->failed) r->err = NAN;
    }
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&sys);
}

static void integrate_erk(double tol, result *r, int measure) {
    double y[NY], x[3];
    int rc = erk_solve(tol, y, r);
    if (rc != LD_OK) die("liedyn-dopri5-quat", ld_strerror(rc));
    if (measure) {
        com_of(x, y);
        set_error(r, y, x);
    }
}

#ifdef LD_HAVE_GSL
static int gsl_rhs(double t, const double y[], double dydt[], void *params) {
    (void)t;
    ((ode_ctx *)params)->fevals++;
    top_rhs(y, dydt);
    return GSL_SUCCESS;
}

static int gsl_solve(int method, double tol, double y[NY], result *r) {
    const gsl_odeiv2_step_type *type = method == 0 ? gsl_odeiv2_step_rk8pd : gsl_odeiv2_step_rkf45;
    ode_ctx c = {0};
    gsl_odeiv2_system sys = {gsl_rhs, NULL, NY, &c};
    gsl_odeiv2_step *step = gsl_odeiv2_step_alloc(type, NY);
    gsl_odeiv2_control *ctl = gsl_odeiv2_control_y_new(tol, tol);
    gsl_odeiv2_evolve *ev = gsl_odeiv2_evolve_alloc(NY);
    if (!step || !ctl || !ev) die("GSL", "allocation failed");
    double t = 0.0, h = 1e-3;
    memcpy(y, Y0, sizeof Y0);
    long steps = 0;
    int status = GSL_SUCCESS;
    while (t < T_END && status == GSL_SUCCESS) {
        status = gsl_odeiv2_evolve_apply(ev, ctl, step, &sys, &t, T_END, &h, y);
        steps++;
    }
    gsl_odeiv2_evolve_free(ev);
    gsl_odeiv2_control_free(ctl);
    gsl_odeiv2_step_free(step);
    r->steps = steps;
    r->evals = c.fevals;
    return status;
}

static void integrate_gsl(const solver *s, double tol, result *r, int measure) {
    double y[NY], x[3];
    int status = gsl_solve(s->method, tol, y, r);
    if (status != GSL_SUCCESS) die(s->name, gsl_strerror(status));
    if (measure) {
        com_of(x, y);
        set_error(r, y, x);
    }
}
#endif

#ifdef LD_HAVE_ARKODE
static SUNContext ark_ctx;
static N_Vector ark_y;

static int ark_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user) {
    (void)t;
    ((ode_ctx *)user)->fevals++;
    top_rhs(N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
    return 0;
}

static void integrate_arkode(const solver *s, double tol, result *r, int measure) {
    ode_ctx c = {0};
    sunrealtype *y = N_VGetArrayPointer(ark_y);
    memcpy(y, Y0, sizeof Y0);
    void *mem = ERKStepCreate(ark_rhs, 0.0, ark_y, ark_ctx);
    if (!mem) die(s->name, "ERKStepCreate failed");
    check_ark("ERKStepSetUserData", ERKStepSetUserData(mem, &c));
    check_ark("ERKStepSetTableNum", ERKStepSetTableNum(mem, ARKODE_DORMAND_PRINCE_7_4_5));
    check_ark("ERKStepSStolerances", ERKStepSStolerances(mem, tol, tol));
    check_ark("ERKStepSetStopTime", ERKStepSetStopTime(mem, T_END));
    check_ark("ERKStepSetMaxNumSteps", ERKStepSetMaxNumSteps(mem, 100000000L));
    sunrealtype t = 0.0;
    while (t < T_END)
        check_ark("ERKStepEvolve", ERKStepEvolve(mem, T_END, ark_y, &t, ARK_ONE_STEP));
    long steps = 0;
    check_ark("ERKStepGetNumSteps", ERKStepGetNumSteps(mem, &steps));
    ERKStepFree(&mem);
    r->steps = steps;
    r->evals = c.fevals;
    if (measure) {
        double x[3];
        com_of(x, y);
        set_error(r, y, x);
    }
}
#endif

#ifdef LD_HAVE_MUJOCO
static mjModel *mj_m;
static mjData *mj_d;
static char mj_last_warning[200];

/* MuJoCo prints warnings on stdout by default; keep the last one for a '#' line instead. */
static void mujoco_warning(const char *msg) {
    snprintf(mj_last_warning, sizeof mj_last_warning, "%s", msg);
    for (char *c = mj_last_warning; *c; ++c)
        if (*c == '\n') *c = ' ';
}

/* One body (no geom) on a ball joint at the origin; the inertial frame at the centre of
 * mass (0, 1, 0), axes parallel to the body's, diaginertia about the centre of mass. */
static const char MJ_XML[] =
    "<mujoco model=\"heavy-top\">\n"
    "  <option timestep=\"0.001\" gravity=\"0 0 -9.81\" integrator=\"Euler\">\n"
    "    <flag contact=\"disable\"/>\n"
    "  </option>\n"
    "  <worldbody>\n"
    "    <body name=\"top\" pos=\"0 0 0\">\n"
    "      <joint name=\"pivot\" type=\"ball\" pos=\"0 0 0\" damping=\"0\" armature=\"0\"/>\n"
    "      <inertial pos=\"0 1 0\" mass=\"15\" diaginertia=\"0.234375 0.46875 0.234375\"/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

static void mujoco_load(void) {
    mju_user_warning = mujoco_warning;
    mjVFS *vfs = malloc(sizeof *vfs);
    if (!vfs) die("MuJoCo", "out of memory");
    mj_defaultVFS(vfs);
    int len = (int)strlen(MJ_XML);
    if (mj_makeEmptyFileVFS(vfs, "heavy-top.xml", len) != 0) die("MuJoCo", "VFS failed");
    int i = mj_findFileVFS(vfs, "heavy-top.xml");
    if (i < 0) die("MuJoCo", "VFS file not found");
    memcpy(vfs->filedata[i], MJ_XML, (size_t)len);
    char err[1000] = "";
    mj_m = mj_loadXML("heavy-top.xml", vfs, err, (int)sizeof err);
    mj_deleteVFS(vfs);
    free(vfs);
    if (!mj_m) die("mj_loadXML", err);
    if (mj_m->nq != 4 || mj_m->nv != 3 || mj_m->nbody != 2) die("MuJoCo", "unexpected model");
    mj_d = mj_makeData(mj_m);
    if (!mj_d) die("mj_makeData", "failed");
}

static void integrate_mujoco(const solver *s, double h, result *r, int measure) {
    long n = lround(ceil(T_END / h - 1e-9));
    mj_m->opt.timestep = T_END / (double)n;
    mj_m->opt.integrator = s->method;
    mj_resetData(mj_m, mj_d);
    mj_d->qpos[0] = 1.0, mj_d->qpos[1] = mj_d->qpos[2] = mj_d->qpos[3] = 0.0;
    for (int i = 0; i < 3; ++i) mj_d->qvel[i] = OMEGA0[i];
    for (long i = 0; i < n; ++i) mj_step(mj_m, mj_d);
    r->steps = n;
    r->evals = n * s->stages;
    r->h = mj_m->opt.timestep;
    if (measure) {
        mj_forward(mj_m, mj_d);
        set_error(r, mj_d->xquat + 4, mj_d->xipos + 3);
        if (mj_d->warning[mjWARN_BADQACC].number || mj_d->warning[mjWARN_BADQVEL].number ||
            mj_d->warning[mjWARN_BADQPOS].number) {
            r->failed = 1; /* MuJoCo reset the state on a bad number */
            r->err = NAN;
            snprintf(r->msg, sizeof r->msg, "MuJoCo: %s", mj_last_warning);
        }
    }
}
#endif

/* One integration over [0, T_END]; measure = 0 skips the error evaluation. */
static void integrate(const solver *s, double setting, result *r, int measure) {
    r->evals = -1;
    r->h = setting;
    r->failed = 0;
    r->msg[0] = '\0';
    switch (s->kind) {
    case K_IMPLICIT:
        integrate_implicit(s, setting, LD_LA_DENSE, r, measure);
        break;
    case K_ERK:
        integrate_erk(setting, r, measure);
        break;
#ifdef LD_HAVE_GSL
    case K_GSL:
        integrate_gsl(s, setting, r, measure);
        break;
#endif
#ifdef LD_HAVE_ARKODE
    case K_ARKODE:
        integrate_arkode(s, setting, r, measure);
        break;
#endif
#ifdef LD_HAVE_MUJOCO
    case K_MUJOCO:
        integrate_mujoco(s, setting, r, measure);
        break;
#endif
    default:
        die(s->name, "solver not compiled in");
    }
}

/* ------------------------------------------------------------------ section 1: speed */

/* One configuration of the speed table: its own compiled system and integrator. */
typedef struct speed_cfg {
    ld_integ_method meth;
    ld_formulation form;
    ld_la_kind la;
    ld_system sys;
    double *q0, *v0;
    ld_integ *it;
    double best;
    int failed;
    ld_integ_stats stats;
} speed_cfg;

/* Returns 0 when the method refuses the model in this formulation (nothing set up). */
static int speed_setup(speed_cfg *c) {
    check_ld("ld_model_compile", ld_model_compile(&MODEL, c->form, &c->sys, &c->q0, &c->v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = c->meth;
    o.rho_inf = RHO_INF;
    o.la = c->la;
    if (ld_integ_options_check(&c->sys, &o)) {
        free(c->q0);
        free(c->v0);
        ld_model_system_free(&c->sys);
        return 0;
    }
    int st;
    c->it = ld_integ_create(&c->sys, &o, &st);
    if (!c->it) die("ld_integ_create", ld_strerror(st));
    c->best = INFINITY;
    c->failed = 0;
    return 1;
}

/* One timed run of SPEED_STEPS steps from the initial state. */
static void speed_run(speed_cfg *c) {
    if (c->failed) return;
    check_ld("ld_integ_init", ld_integ_init(c->it, 0.0, c->q0, c->v0));
    double t0 = wall_now();
    for (int i = 0; i < SPEED_STEPS && !c->failed; ++i)
        c->failed = ld_integ_step(c->it, SPEED_H) != LD_OK;
    c->best = fmin(c->best, wall_now() - t0);
    ld_integ_get_stats(c->it, &c->stats);
}

static void speed_report(speed_cfg *c) {
    const char *mn = ld_integ_method_name(c->meth), *fn = ld_formulation_name(c->form),
               *ln = ld_la_kind_name(c->la);
    double nit = (double)c->stats.newton_iterations / (double)c->stats.steps;
    if (c->failed) {
        printf("# %s %s %s: %s\n", mn, fn, ln, ld_integ_message(c->it));
        printf("speed,%s,%s,%s,,,%.3f,failed\n", mn, fn, ln, nit);
    } else {
        result r;
        double x[3], q[4], om[3], xd[3];
        check_ld("ld_model_body_state", ld_model_body_state(&c->sys, 0, ld_integ_q(c->it),
                                                            ld_integ_v(c->it), x, q, om, xd));
        set_error(&r, q, x);
        double ns = 1e9 * c->best / SPEED_STEPS;
        printf("speed,%s,%s,%s,%.0f,%.0f,%.3f,%.3e\n", mn, fn, ln, ns, 1e9 / ns, nit, r.err);
    }
    ld_integ_free(c->it);
    free(c->q0);
    free(c->v0);
    ld_model_system_free(&c->sys);
}

/* Every configuration, the repetitions interleaved (round r times each configuration once) so
 * that a slow phase of a shared machine hits all of them alike. */
static void speed_section(void) {
    enum { NCFG = 32 * LD_FORM_COUNT * 2 };
    static speed_cfg cfg[NCFG];
    int n = 0;
    for (int m = 0; m < ld_method_count() && m < 32; ++m)
        for (int f = 0; f < LD_FORM_COUNT; ++f)
            for (int la = 0; la < 2; ++la) {
                memset(&cfg[n], 0, sizeof cfg[n]);
                cfg[n].meth = (ld_integ_method)m;
                cfg[n].form = (ld_formulation)f;
                cfg[n].la = (ld_la_kind)la;
                if (speed_setup(&cfg[n])) ++n; /* refused: tb3 with the pivot's constraint */
            }
    for (int rep = 0; rep < SPEED_REPS; ++rep)
        for (int i = 0; i < n; ++i) speed_run(&cfg[i]);
    for (int i = 0; i < n; ++i) speed_report(&cfg[i]);
    fflush(stdout);
}

/* ------------------------------------------------------------------ section 2: work-precision */

/* ns per call of the reduced ODE's right-hand side alone: the floor of every ODE solver. */
static double rhs_floor_ns(void) {
    const long n = bench_quick() ? 1000 : 1000000;
    double best = INFINITY, y[NY], dy[NY], acc = 0.0;
    for (int rep = 0; rep < 3; ++rep) {
        memcpy(y, Y0, sizeof y);
        double t0 = wall_now();
        for (long k = 0; k < n; ++k) {
            top_rhs(y, dy);
            y[5] += 1e-12 * dy[4];
            acc += dy[0];
        }
        best = fmin(best, wall_now() - t0);
    }
    if (!isfinite(acc)) die("rhs_floor_ns", "non-finite sum");
    return 1e9 * best / (double)n;
}

/* Error from an untimed run; CPU time from WP_REPS timed runs without the error evaluation
 * (each repeating the integration until it lasts MIN_TIMED_S; one timed run when a single
 * integration lasts longer than LONG_RUN_S), the best one kept. */
static void wp_point(solver *s, double setting, result *r) {
    double c0 = cpu_now();
    integrate(s, setting, r, 1);
    double c_err = cpu_now() - c0;
    if (r->failed) {
        printf("# %s at %g: %s\n", s->name, r->h, r->msg);
        printf("work_precision,%s,h=%.4g,failed,,,,%ld,\n", s->name, r->h, r->steps);
        fflush(stdout);
        return;
    }
    long nrep = c_err >= MIN_TIMED_S ? 1 : (long)ceil(MIN_TIMED_S / fmax(c_err, 1e-7));
    if (nrep > 100000) nrep = 100000;
    /* A run longer than LONG_RUN_S counts as a timed run itself (its error is evaluated once,
     * at the end, in well under 1 us) and gets one more timed run, none above 3 LONG_RUN_S. */
    int reps = WP_REPS;
    double best = INFINITY;
    if (c_err > LONG_RUN_S) {
        best = c_err;
        reps = c_err > 3.0 * LONG_RUN_S ? 0 : 1;
    }
    for (int rep = 0; rep < reps; ++rep) {
        result rt;
        double t0 = cpu_now();
        for (long i = 0; i < nrep; ++i) integrate(s, setting, &rt, 0);
        best = fmin(best, (cpu_now() - t0) / (double)nrep);
        if (rt.steps != r->steps || rt.evals != r->evals)
            die(s->name, "timed run differs from the measured run");
    }
    char set[32];
    if (s->adaptive)
        snprintf(set, sizeof set, "tol=%.2g", setting);
    else
        snprintf(set, sizeof set, "h=%.4g", r->h);
    s->prev_h = s->last_h, s->prev_err = s->last_err;
    s->last_h = r->h, s->last_err = r->err, s->last_cpu = best;
    if (r->err <= TARGET_ERR && best < s->best_cpu) {
        s->best_cpu = best;
        s->best_err = r->err;
        s->best_steps = r->steps;
        snprintf(s->best_setting, sizeof s->best_setting, "%s", set);
    }
    char ev[24] = "";
    if (r->evals >= 0) snprintf(ev, sizeof ev, "%ld", r->evals);
    printf("work_precision,%s,%s,%.3e,%.3e,%.3e,%.4e,%ld,%s\n", s->name, set, r->err, r->rot_err,
           r->pos_err, best, r->steps, ev);
    fflush(stdout);
}

/* Tolerances 10^(-k/4) from 1e-3 to 1e-12. */
static void sweep_adaptive(solver *s) {
    for (int k = 12; k <= 48; k += bench_quick() ? 12 : 1) {
        result r;
        wp_point(s, pow(10.0, -0.25 * (double)k), &r);
    }
}

/* h = 1e-3 * 2^(-k/2), k = 0 ... kmax, stopping once the error is below STOP_ERR or the step
 * below h_min. */
static void sweep_fixed(solver *s, double h0, int kmax, double h_min) {
    if (bench_quick()) kmax = kmax < 2 ? kmax : 2;
    for (int k = 0; k <= kmax; ++k) {
        double h = h0 * pow(2.0, -0.5 * (double)k);
        if (h < h_min) break;
        result r;
        wp_point(s, h, &r);
        if (r.err < STOP_ERR) break;
    }
}

/* ------------------------------------------------------------------ reference */

static void reference(void) {
    result r1, r2;
    double y1[NY], y2[NY], x1[3], x2[3];
    const double tol1 = 1e-14, tol2 = 1e-15;
    double c0 = cpu_now();
    check_ld("reference dopri5", erk_solve(tol1, y1, &r1));
    double c1 = cpu_now() - c0;
    int rc2 = erk_solve(tol2, y2, &r2);
    memcpy(QREF, y1, sizeof QREF);
    com_of(XREF, y1);
    printf("# reference: liedyn ld_erk dopri5 on the reduced ODE (R^7, q not renormalized), "
           "rtol = atol = %g: %ld steps, %ld evaluations, %.3f s CPU; |q(2)| - 1 = %.2e\n",
           tol1, r1.steps, r1.evals, c1, ld_quat_norm(y1) - 1.0);
    printf("# reference at t = 2: q = (%.15f, %.15f, %.15f, %.15f), x_com = (%.15f, %.15f, "
           "%.15f), Omega = (%.12f, %.12f, %.12f)\n",
           y1[0], y1[1], y1[2], y1[3], XREF[0], XREF[1], XREF[2], y1[4], y1[5], y1[6]);
    double acc = 0.0;
    if (rc2 == LD_OK) {
        result d;
        com_of(x2, y2);
        set_error(&d, y2, x2);
        acc = fmax(acc, d.err);
        printf("# reference check: dopri5 at rtol = atol = %g (%ld steps) differs by %.2e rad, "
               "%.2e m\n",
               tol2, r2.steps, d.rot_err, d.pos_err);
    } else {
        printf("# reference check: dopri5 at %g failed (%s)\n", tol2, ld_strerror(rc2));
    }
#ifdef LD_HAVE_GSL
    result r3, d3;
    double y3[NY];
    if (gsl_solve(0, 1e-14, y3, &r3) == GSL_SUCCESS) {
        com_of(x1, y3);
        set_error(&d3, y3, x1);
        acc = fmax(acc, d3.err);
        printf("# reference check: GSL rk8pd at 1e-14 (%ld steps) differs by %.2e rad, %.2e m\n",
               r3.steps, d3.rot_err, d3.pos_err);
    }
#else
    (void)x1;
#endif
    printf("# reference accuracy (largest difference to the checks): %.1e; errors below about "
           "10x this are not resolved\n",
           acc);
}

/* The loaded model is the top the reduced ODE and MuJoCo describe. */
static void check_model(void) {
    const ld_body *b = MODEL.nbodies == 1 ? &MODEL.bodies[0] : NULL;
    const ld_joint *j = MODEL.njoints == 1 ? &MODEL.joints[0] : NULL;
    int ok = b && j && b->mass == MASS && b->q[0] == 1.0 && j->body == 0;
    for (int i = 0; ok && i < 3; ++i)
        ok = b->inertia[4 * i] == JC[i] && b->x[i] == XB[i] && b->omega[i] == OMEGA0[i] &&
             MODEL.gravity[i] == GRAV[i] && j->xg[i] == 0.0 && j->p[i] == -XB[i];
    if (!ok) die("check_model", "models/heavy-top.yaml is not the top of Brüls & Cardona (2010)");
}

/* The reduced ODE's initial acceleration and liedyn's consistent one (ld_integ_init). */
static void check_initial(void) {
    double dy[NY];
    top_rhs(Y0, dy);
    double d = 0.0;
    for (int i = 0; i < 3; ++i) d = fmax(d, fabs(dy[4 + i] - OMEGADOT0_KYNEMA[i]));
    printf("# initial state: reduced ODE Omega'(0) = (%.13g, %.3g, %.3g); published "
           "(661.3461692307692, 0, 0); max difference %.1e\n",
           dy[4], dy[5], dy[6], d);
    if (d > 1e-9 * OMEGADOT0_KYNEMA[0]) die("check_initial", "reduced ODE inconsistent");
    /* the Lie-group formulations, whose v̇ starts with Ω̇ (the euler formulation's holds ẍ, ë) */
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        ld_system sys;
        double *q0, *v0;
        check_ld("ld_model_compile", ld_model_compile(&MODEL, (ld_formulation)f, &sys, &q0, &v0));
        ld_integ_options o;
        ld_integ_options_init(&o);
        int st;
        ld_integ *it = ld_integ_create(&sys, &o, &st);
        if (!it) die("ld_integ_create", ld_strerror(st));
        check_ld("ld_integ_init", ld_integ_init(it, 0.0, q0, v0));
        const double *vd = ld_integ_vdot(it);
        double e = 0.0;
        for (int i = 0; i < 3; ++i) e = fmax(e, fabs(vd[i] - dy[4 + i]));
        printf("# initial state: liedyn %s Omega'(0) = (%.13g, %.3g, %.3g), max difference to "
               "the reduced ODE %.1e\n",
               ld_formulation_name((ld_formulation)f), vd[0], vd[1], vd[2], e);
        if (e > 1e-6 * OMEGADOT0_KYNEMA[0]) die("check_initial", "liedyn's Omega'(0) differs");
        ld_integ_free(it);
        free(q0);
        free(v0);
        ld_model_system_free(&sys);
    }
}

/* ------------------------------------------------------------------ main */

/* Method m refuses the heavy top in formulation f (ld_integ_options_check). */
static int refuses(int m, ld_formulation f) {
    ld_system sys;
    double *q0, *v0;
    check_ld("ld_model_compile", ld_model_compile(&MODEL, f, &sys, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)m;
    int r = ld_integ_options_check(&sys, &o) != NULL;
    free(q0);
    free(v0);
    ld_model_system_free(&sys);
    return r;
}

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
    s->best_cpu = INFINITY;
    return s;
}

int main(void) {
    if (bench_quick())
        SPEED_STEPS = 20, SPEED_REPS = WP_REPS = 1, MIN_TIMED_S = 0.0, LONG_RUN_S = 0.0;
    double wall0 = wall_now();
    problem_init();
    ld_model_error merr;
    const char *path = LD_SOURCE_DIR "/models/heavy-top.yaml";
    int rc = ld_model_load(path, &MODEL, &merr);
    if (rc != LD_OK) die(path, rc == LD_EINVAL ? merr.msg : ld_strerror(rc));

    printf("# bench_heavytop (liedyn %s): heavy top of Brüls & Cardona (2010), model %s\n",
           ld_version(), path);
    printf("# m = %g, J = diag(%g, %g, %g) about the centre of mass, X = (%g, %g, %g), g = (%g, "
           "%g, %g), R(0) = I, Omega(0) = (%g, %g, %g), t in [0, %g]\n",
           MASS, JC[0], JC[1], JC[2], XB[0], XB[1], XB[2], GRAV[0], GRAV[1], GRAV[2], OMEGA0[0],
           OMEGA0[1], OMEGA0[2], T_END);
    printf("# error at t = 2: max(|x_com - x_ref| (m), geodesic angle to the reference rotation "
           "(rad)); liedyn's implicit methods report their own centre-of-mass coordinate x "
           "(constraint drift included), the ODE solvers x = R(q/|q|) X\n");
#ifdef LD_HAVE_GSL
    printf("# peer: GSL %s odeiv2 evolve_apply, control_y_new(tol, tol), initial h 1e-3, "
           "reduced quaternion ODE\n",
           GSL_VERSION);
    gsl_set_error_handler_off();
#else
    printf("# peer: GSL not found at configure time (skipped)\n");
#endif
#ifdef LD_HAVE_ARKODE
    printf("# peer: SUNDIALS %s ARKODE ERKStep, ARKODE_DORMAND_PRINCE_7_4_5, SStolerances(tol, "
           "tol), ARK_ONE_STEP with stop time, reduced quaternion ODE\n",
           SUNDIALS_VERSION);
    check_ark("SUNContext_Create", SUNContext_Create(NULL, &ark_ctx));
    ark_y = N_VNew_Serial(NY, ark_ctx);
    if (!ark_y) die("N_VNew_Serial", "failed");
#elif defined(LD_ARKODE_UNUSABLE)
    printf("# peer: SUNDIALS found but older than 6.0 or not double precision (skipped)\n");
#else
    printf("# peer: SUNDIALS ARKODE not found at configure time (skipped)\n");
#endif
#ifdef LD_HAVE_MUJOCO
    mujoco_load();
    printf("# peer: MuJoCo %s: one body on a ball joint at the origin, inertial pos (0 1 0), "
           "mass 15, diaginertia about the centre of mass, contacts disabled, qvel = body "
           "angular velocity; mj_step at timestep h = 2/N; state read after mj_forward "
           "(xquat, xipos)\n",
           mj_versionString());
#else
    printf("# peer: MuJoCo not found at configure time (skipped)\n");
#endif

    check_model();
    check_initial();
    reference();
    fflush(stdout);

    /* ---- section 1 */
    printf("#\n# section 1: wall time per step (CLOCK_MONOTONIC, best of %d rounds, each timing "
           "every configuration once) of %d steps at h = "
           "%g (rho_inf = %g for genalpha), default Newton tolerances (atol 1e-10, rtol 1e-8); "
           "error at t = 2 as above\n",
           SPEED_REPS, SPEED_STEPS, SPEED_H, RHO_INF);
    printf("section,method,formulation,la,ns_per_step,steps_per_s,newton_iterations_per_step,"
           "error\n");
    speed_section();
    double wall1 = wall_now();

    /* ---- section 2 */
#ifdef LD_HAVE_GSL
    add_solver("gsl-rk8pd", K_GSL, 0, 1);
    add_solver("gsl-rkf45", K_GSL, 1, 1);
#endif
#ifdef LD_HAVE_ARKODE
    add_solver("arkode-erk-dopri5", K_ARKODE, 0, 1);
#endif
    add_solver("liedyn-dopri5-quat", K_ERK, 0, 1);
    const ld_formulation wp_forms[2] = {LD_FORM_SO3XR3, LD_FORM_S3SDR3};
    for (int m = 0; m < ld_method_count(); ++m)
        for (int f = 0; f < 2; ++f) {
            if (refuses(m, wp_forms[f])) continue; /* tb3: the pivot is a constraint */
            char name[40];
            snprintf(name, sizeof name, "liedyn-%s-%s", ld_integ_method_name((ld_integ_method)m),
                     ld_formulation_name(wp_forms[f]));
            solver *s = add_solver(name, K_IMPLICIT, m, 0);
            s->form = wp_forms[f];
        }
#ifdef LD_HAVE_MUJOCO
    add_solver("mujoco-rk4", K_MUJOCO, mjINT_RK4, 0)->stages = 4;
    add_solver("mujoco-implicit", K_MUJOCO, mjINT_IMPLICIT, 0)->stages = 1;
    add_solver("mujoco-euler", K_MUJOCO, mjINT_EULER, 0)->stages = 1;
#endif

    printf("#\n# section 2: work-precision. setting: tol = rtol = atol (adaptive: 10^(-k/4) from "
           "1e-3 to 1e-12) or the fixed step h = 2/N nearest above 1e-3 * 2^(-k/2) (liedyn "
           "implicit: k = 0..14; MuJoCo: down to 1e-6; liedyn splitting: 0.1 * 2^(-k/2), "
           "k = 0..24), a fixed-step sweep stopping once the "
           "error < %g.\n"
           "# liedyn implicit: rho_inf = %g (genalpha), dense linear solver, default Newton "
           "tolerances; evals = Newton iterations. ODE solvers: evals = right-hand-side "
           "evaluations. MuJoCo: evals = dynamics evaluations (1 per step, 4 for RK4).\n"
           "# error, rot_error, pos_error from one measured run; cpu_s from separate runs without "
           "error evaluation: CPU time (CLOCK_PROCESS_CPUTIME_ID) of one whole integration "
           "including set-up (model compile, integrator create/free; GSL/ARKODE alloc/free; "
           "MuJoCo mj_resetData, XML parsed once), best of %d timed runs each repeating the "
           "integration until >= %g s; a run over %g s counts as a timed run itself (its error is "
           "evaluated once, at the end) and gets one more timed run, none above %g s.\n",
           STOP_ERR, RHO_INF, WP_REPS, MIN_TIMED_S, LONG_RUN_S, 3.0 * LONG_RUN_S);
    printf("# floor: the reduced ODE's right-hand side alone costs %.1f ns per evaluation "
           "(CLOCK_MONOTONIC, best of 3 x 1e6 calls)\n",
           rhs_floor_ns());
    printf("section,solver,setting,error,rot_error,pos_error,cpu_s,steps,evals\n");
    for (int i = 0; i < nsolvers; ++i) {
        solver *s = &solvers[i];
        if (s->adaptive)
            sweep_adaptive(s);
        else if (s->kind == K_MUJOCO)
            sweep_fixed(s, 1e-3, 100, 1e-6);
        else if (ld_method_get(s->method)->model_only) /* the splitting: large steps */
            sweep_fixed(s, 0.1, 24, 0.0);
        else
            sweep_fixed(s, 1e-3, 14, 0.0);
    }

    /* ---- section 3 */
    double ref = INFINITY;
    for (int i = 0; i < nsolvers; ++i)
        if (strcmp(solvers[i].name, "gsl-rk8pd") == 0) ref = solvers[i].best_cpu;
    printf("#\n# section 3: per solver the cheapest cpu_s among its settings with error <= %g "
           "(empty: none qualifies), and its ratio to gsl-rk8pd's (empty without GSL). The "
           "project's target: a ratio <= 1/3 with its best method.\n",
           TARGET_ERR);
    printf("# fixed-step solvers that never reach %g: extrapolated_cpu_s = cpu_s of the last "
           "point * (its error / %g)^(1/p), p = observed order in h of the last two points "
           "(cost proportional to 1/h); a model, not a measurement\n",
           TARGET_ERR, TARGET_ERR);
    printf("section,solver,setting,error,steps,best_cpu_s_at_1e-6,ratio_to_rk8pd,"
           "extrapolated_cpu_s,extrapolated_ratio,order_p\n");
    for (int i = 0; i < nsolvers; ++i) {
        const solver *s = &solvers[i];
        char ratio[32] = "", extra[96] = ",,";
        if (isfinite(s->best_cpu) && isfinite(ref))
            snprintf(ratio, sizeof ratio, "%.3f", s->best_cpu / ref);
        if (!isfinite(s->best_cpu) && !s->adaptive && s->prev_h > 0.0 && s->last_err > TARGET_ERR) {
            double p = log(s->prev_err / s->last_err) / log(s->prev_h / s->last_h);
            if (p > 0.5) {
                double cpu = s->last_cpu * pow(s->last_err / TARGET_ERR, 1.0 / p);
                char xr[32] = "";
                if (isfinite(ref)) snprintf(xr, sizeof xr, "%.3g", cpu / ref);
                snprintf(extra, sizeof extra, "%.3g,%s,%.2f", cpu, xr, p);
            }
        }
        if (!isfinite(s->best_cpu))
            printf("target,%s,,,,,,%s\n", s->name, extra);
        else
            printf("target,%s,%s,%.3e,%ld,%.4e,%s,%s\n", s->name, s->best_setting, s->best_err,
                   s->best_steps, s->best_cpu, ratio, extra);
    }
    double wall2 = wall_now();
    printf("# wall time: section 1 %.1f s, whole run %.1f s\n", wall1 - wall0, wall2 - wall0);

#ifdef LD_HAVE_ARKODE
    N_VDestroy(ark_y);
    check_ark("SUNContext_Free", SUNContext_Free(&ark_ctx));
#endif
#ifdef LD_HAVE_MUJOCO
    mj_deleteData(mj_d);
    mj_deleteModel(mj_m);
#endif
    ld_model_free(&MODEL);
    return 0;
}

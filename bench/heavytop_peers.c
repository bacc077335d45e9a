/*
 * The heavy-top benchmark's optional peers on the same problem: GSL odeiv2 (rk8pd, rkf45),
 * SUNDIALS ARKODE ERKStep (Dormand-Prince 5(4)) and CVODE (variable-order Adams with fixed-point
 * iteration, its non-stiff method) on the reduced quaternion ODE, and MuJoCo's integrators on
 * one body on a ball joint. Each is compiled in only when found at configure time (LD_HAVE_GSL,
 * LD_HAVE_ARKODE, LD_HAVE_CVODE, LD_HAVE_MUJOCO); without them this file only says so.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heavytop.h"

#define BENCH_NAME "bench_heavytop"
#include "bench_common.h"

#ifdef LD_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

/* CVODE: SUNDIALS ≥ 6 in double precision only, as ARKODE (bench_common.h). */
#ifdef LD_HAVE_CVODE
#include <sundials/sundials_config.h>
#if !defined(SUNDIALS_VERSION_MAJOR) || SUNDIALS_VERSION_MAJOR < 6 ||                              \
    !defined(SUNDIALS_DOUBLE_PRECISION)
#undef LD_HAVE_CVODE
#define LD_CVODE_UNUSABLE 1
#endif
#endif
#ifdef LD_HAVE_CVODE
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#endif

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

#if defined(LD_HAVE_ARKODE) || defined(LD_HAVE_CVODE)
/* The reduced ODE as SUNDIALS calls it (ARKODE and CVODE), counting evaluations. */
static int sun_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user) {
    (void)t;
    ((ode_ctx *)user)->fevals++;
    top_rhs(N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
    return 0;
}
#endif

#ifdef LD_HAVE_ARKODE
static SUNContext ark_ctx;
static N_Vector ark_y;

static void integrate_arkode(const solver *s, double tol, result *r, int measure) {
    ode_ctx c = {0};
    sunrealtype *y = N_VGetArrayPointer(ark_y);
    memcpy(y, Y0, sizeof Y0);
    void *mem = ERKStepCreate(sun_rhs, 0.0, ark_y, ark_ctx);
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

#ifdef LD_HAVE_CVODE
static SUNContext cv_ctx;
static N_Vector cv_y;

/* die on a negative CVODE flag. */
static void check_cv(const char *what, int flag) {
    if (flag < 0) die_code(what, flag);
}

/* CVODE's Adams methods (orders 1 to 12) with the fixed-point iteration, stop time T_END. */
static void integrate_cvode(const solver *s, double tol, result *r, int measure) {
    ode_ctx c = {0};
    sunrealtype *y = N_VGetArrayPointer(cv_y);
    memcpy(y, Y0, sizeof Y0);
    void *mem = CVodeCreate(CV_ADAMS, cv_ctx);
    if (!mem) die(s->name, "CVodeCreate failed");
    check_cv("CVodeInit", CVodeInit(mem, sun_rhs, 0.0, cv_y));
    SUNNonlinearSolver nls = SUNNonlinSol_FixedPoint(cv_y, 0, cv_ctx);
    if (!nls) die(s->name, "SUNNonlinSol_FixedPoint failed");
    check_cv("CVodeSetNonlinearSolver", CVodeSetNonlinearSolver(mem, nls));
    check_cv("CVodeSetUserData", CVodeSetUserData(mem, &c));
    check_cv("CVodeSStolerances", CVodeSStolerances(mem, tol, tol));
    check_cv("CVodeSetStopTime", CVodeSetStopTime(mem, T_END));
    check_cv("CVodeSetMaxNumSteps", CVodeSetMaxNumSteps(mem, 100000000L));
    sunrealtype t = 0.0;
    check_cv("CVode", CVode(mem, T_END, cv_y, &t, CV_NORMAL));
    if (t != T_END) die(s->name, "CVode stopped before the end");
    long steps = 0;
    check_cv("CVodeGetNumSteps", CVodeGetNumSteps(mem, &steps));
    CVodeFree(&mem);
    SUNNonlinSolFree(nls);
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

void peers_init(void) {
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
#ifdef LD_HAVE_CVODE
    printf("# peer: SUNDIALS %s CVODE, CV_ADAMS with SUNNonlinSol_FixedPoint, SStolerances(tol, "
           "tol), CV_NORMAL with stop time, reduced quaternion ODE\n",
           SUNDIALS_VERSION);
    check_cv("SUNContext_Create", SUNContext_Create(NULL, &cv_ctx));
    cv_y = N_VNew_Serial(NY, cv_ctx);
    if (!cv_y) die("N_VNew_Serial", "failed");
#elif defined(LD_CVODE_UNUSABLE)
    printf("# peer: SUNDIALS CVODE found but older than 6.0 or not double precision (skipped)\n");
#else
    printf("# peer: SUNDIALS CVODE not found at configure time (skipped)\n");
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
}

void peers_free(void) {
#ifdef LD_HAVE_ARKODE
    N_VDestroy(ark_y);
    check_ark("SUNContext_Free", SUNContext_Free(&ark_ctx));
#endif
#ifdef LD_HAVE_CVODE
    N_VDestroy(cv_y);
    check_cv("SUNContext_Free", SUNContext_Free(&cv_ctx));
#endif
#ifdef LD_HAVE_MUJOCO
    mj_deleteData(mj_d);
    mj_deleteModel(mj_m);
#endif
}

void peers_add_ode_solvers(void) {
#ifdef LD_HAVE_GSL
    add_solver("gsl-rk8pd", K_GSL, 0, 1);
    add_solver("gsl-rkf45", K_GSL, 1, 1);
#endif
#ifdef LD_HAVE_ARKODE
    add_solver("arkode-erk-dopri5", K_ARKODE, 0, 1);
#endif
#ifdef LD_HAVE_CVODE
    add_solver("cvode-adams", K_CVODE, 0, 1);
#endif
}

void peers_add_mujoco_solvers(void) {
#ifdef LD_HAVE_MUJOCO
    add_solver("mujoco-rk4", K_MUJOCO, mjINT_RK4, 0)->stages = 4;
    add_solver("mujoco-implicit", K_MUJOCO, mjINT_IMPLICIT, 0)->stages = 1;
    add_solver("mujoco-euler", K_MUJOCO, mjINT_EULER, 0)->stages = 1;
#endif
}

void integrate_peer(const solver *s, double setting, result *r, int measure) {
    (void)setting;
    (void)r;
    (void)measure;
    switch (s->kind) {
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
#ifdef LD_HAVE_CVODE
    case K_CVODE:
        integrate_cvode(s, setting, r, measure);
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

int peer_gsl_rk8pd(double tol, double y[NY], result *r) {
#ifdef LD_HAVE_GSL
    return gsl_solve(0, tol, y, r) == GSL_SUCCESS ? 0 : -1;
#else
    (void)tol;
    (void)y;
    (void)r;
    return 1;
#endif
}

/*
 * The heavy-top benchmark's shared pieces (bench_heavytop.c and its files heavytop_problem.c,
 * heavytop_liedyn.c, heavytop_peers.c): the problem, a solver's result, the solver table's
 * entries and the functions each file offers the report. Never part of the library.
 */
#ifndef LIEDYN_BENCH_HEAVYTOP_H
#define LIEDYN_BENCH_HEAVYTOP_H

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define T_END      2.0
#define TARGET_ERR 1e-6
#define STOP_ERR   1e-7 /* fixed-step sweeps stop once the error is below this */
#define SPEED_H    1e-3
#define RHO_INF    0.9
#define NY         7 /* reduced state (q[4], Omega[3]) */

/* ---- the problem (heavytop_problem.c) */

extern const double MASS, JC[3], XB[3], GRAV[3], OMEGA0[3];
extern double Y0[NY];           /* reduced initial state */
extern double QREF[4], XREF[3]; /* the reference at T_END (set by the report) */
extern ld_model MODEL;          /* models/heavy-top.yaml */

/* Error of a final state (quaternion of any scale, centre of mass) against the reference. */
typedef struct result {
    double err, rot_err, pos_err;
    long steps, evals; /* evals < 0: not meaningful */
    double h;          /* step actually used (fixed-step solvers) */
    int failed;        /* the integration stopped early (why: in msg) */
    char msg[256];
} result;

/* The inertia about the fixed point and the reduced initial state. */
void problem_init(void);
/* The reduced ODE. The rotation is that of q/|q| (q itself is never renormalized). */
void top_rhs(const double *y, double *dy);
/* r's errors for the final rotation q (any scale) and centre of mass x. */
void set_error(result *r, const double q[4], const double x[3]);
/* Centre of mass x = R(q/|q|) X of a reduced state. */
void com_of(double x[3], const double q[4]);
/* The loaded model is the top the reduced ODE and MuJoCo describe (else exit). */
void check_model(void);
/* The reduced ODE's initial acceleration against the published value and liedyn's consistent
 * ones (ld_integ_init); prints '#' lines, exits on a mismatch. */
void check_initial(void);

/* ---- the solvers of the work-precision study */

typedef enum solver_kind { K_IMPLICIT, K_ERK, K_GSL, K_ARKODE, K_CVODE, K_MUJOCO } solver_kind;

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

/* A new entry of the solver table (bench_heavytop.c). */
solver *add_solver(const char *name, solver_kind kind, int method, int adaptive);

/* Right-hand-side evaluations counted by the ODE solvers' wrappers. */
typedef struct ode_ctx {
    long fevals;
} ode_ctx;

/* ---- liedyn's methods (heavytop_liedyn.c) */

extern int SPEED_STEPS, SPEED_REPS; /* section 1's size (the smoke run shrinks it) */

/* Dormand-Prince 5(4) of rk.h on the reduced ODE, rtol = atol = tol; y receives the final
 * state. Returns ld_erk_integrate's status. */
int erk_solve(double tol, double y[NY], result *r);
/* One integration over [0, T_END] (measure = 0 skips the error evaluation): ld_erk dopri5 at
 * tolerance tol, an ld_integ method at the fixed step h with linear solver la. */
void integrate_erk(double tol, result *r, int measure);
void integrate_implicit(const solver *s, double h, int la, result *r, int measure);
/* Method m refuses the heavy top in formulation f (ld_integ_options_check). */
int refuses(int m, ld_formulation f);
/* Section 1: ns per step of every method, formulation and linear solver at h = SPEED_H. */
void speed_section(void);

/* ---- the optional peers GSL, SUNDIALS ARKODE and CVODE, MuJoCo (heavytop_peers.c) */

/* Set the peers up and print one '#' line per peer (what it is, or why it is skipped). */
void peers_init(void);
void peers_free(void);
/* Add the peers' ODE solvers (GSL, ARKODE, CVODE) or MuJoCo's integrators to the solver table. */
void peers_add_ode_solvers(void);
void peers_add_mujoco_solvers(void);
/* One integration of a peer solver (kinds K_GSL, K_ARKODE, K_CVODE, K_MUJOCO); exits for a kind
 * that is not compiled in. */
void integrate_peer(const solver *s, double setting, result *r, int measure);
/* GSL rk8pd on the reduced ODE at rtol = atol = tol: 0 and y at T_END; 1 without GSL; −1 when
 * it failed. */
int peer_gsl_rk8pd(double tol, double y[NY], result *r);

#endif

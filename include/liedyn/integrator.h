/*
 * liedyn/integrator.h — implicit integrators for constrained systems on Lie groups (system.h).
 *
 * Methods:
 *   genalpha  Lie-group generalized-α (Brüls, Cardona & Arnold 2012; Kynema's Algorithm 1):
 *             ρ∞ → α_m = (2ρ∞ − 1)/(ρ∞ + 1), α_f = ρ∞/(ρ∞ + 1), γ = ½ + α_f − α_m,
 *             β = ¼(γ + ½)²; index-3 constraints; the iteration matrix preconditioned by
 *             D_L = diag(βh² I, I), D_R = diag(I, I/(βh²)); Newton stopped by the weighted
 *             error norm of the corrections (newton_atol, newton_rtol; Arnold & Hante 2017),
 *             or when
 *             the residual has reached round-off level (counted in roundoff_stops).
 *   newmark   Simo–Vu-Quoc Newmark on the group: the same code with α_m = α_f = 0,
 *             β = ¼, γ = ½.
 *   tb3       the three-stage TR-BDF2 quaternion scheme of Zupan & Zupan in its verified
 *             third-order form: two implicit stages (trapezoidal rule to t + τh, BDF2 to
 *             t + h, τ = 2 − √2) with the average velocities as unknowns, then an explicit
 *             third stage that updates the configuration with the third-order weights and
 *             the Magnus correction (coefficient 1/12 on the rotation vector) and the
 *             velocities with the same weights; the acceleration is re-evaluated at the new
 *             state. Unconstrained systems (m = 0) only.
 *   tb3-paper the scheme as printed — correction coefficient 1/48 on the quaternion half
 *             angle (1/24 on the rotation vector), the stage-2 velocities and accelerations
 *             kept — with the third-order weights of eq. 18 (the printed array (9) does not
 *             sum to one) and the correction inside the exponential; second order
 *             (docs/tb3.md).
 *   hht       the Hilber–Hughes–Taylor α-method in the form of Sherif et al. (2019)
 *             eqs. 59–65 (Negrut et al. 2005): β = ¼(1 − α)², γ = ½ − α, α ∈ [−1/3, 0]
 *             (option alpha); Newton on (v̇_{n+1}, λ_{n+1}) for
 *             M v̇_{n+1} + (1 + α)(g + Bᵀλ)_{n+1} − α(g + Bᵀλ)_n = 0 with
 *             the index-3 constraints Φ_{n+1} = 0; the configuration moves by
 *             q_n ∘ exp(h v_n + h²(½ − β) v̇_n + h²β v̇_{n+1}), the velocity by the Newmark rule
 *             (on the Euler-parameter nodes of the euler formulation both are plain vector
 *             updates, eqs. 59–60).
 *   hht-modified  the same with the modified Newmark velocity of Sherif et al. (2019) eq. 34
 *             on the Euler parameters, ė_{n+1} = L_{n+1}ᵀ L_n (ė_n + h(1 − γ) ë_n)
 *             + hγ (I − e eᵀ)_{n+1} ë_{n+1}, and the Jacobian block of eq. 69; on the group
 *             formulations it coincides with hht.
 *   hem1 … hem5  half-explicit Runge–Kutta Lie-group methods of order 1 … 5 for the index-2
 *             formulation (M v̇ + g + Bᵀλ = 0, B(q) v + Φ_t = 0; Tumiotto & Arnold 2024
 *             eqs. 12–15, Brasey & Hairer 1993, Murua 1997, Arnold 1998): stages
 *             Q_i = q_n ∘ exp(Θ_i), Θ_i = h Σ a_ij Θ̇_j, Θ̇_j = T⁻¹(Θ_j) V_j,
 *             V_i = v_n + h Σ a_ij V̇_j; each stage i ≥ 2
 *             (hem1: every stage) solves one linear system for (V̇_i, Λ_i) so that the next
 *             stage velocity satisfies the velocity constraint; stage 1 of hem2 … hem5 is
 *             explicit with Λ_1 = λ_n. No Newton iteration. Tables as data (ld_hem_table,
 *             docs/hem.md). hem2 (Heun, embedded Euler) and hem5 (Dormand–Prince based, embedded
 *             order 4) carry an error estimate for step-size control. Lie-group formulations
 *             only (the euler formulation's mass matrix is singular). Option `project`: after
 *             every step, project q onto Φ = 0 and v onto B v + Φ_t = 0 (symmetric projection
 *             with the mass metric). With the KLU solver and a system that provides
 *             mass_blocks and phi_q_sparse (system.h), no k×k matrix is formed: a step costs
 *             O(k + m) for banded structures.
 * Configuration update q_{n+1} = q_n ∘ exp(h Δq) (right composition, docs/conventions.md).
 *
 * Step-size control (adaptive = 1; tb3, tb3-paper, hem2 and hem5, which carry an embedded
 * estimate): the difference of the two results in y = (θ, v), θ the local coordinate of the
 * step, measured as in Tumiotto & Arnold (2024) eq. 21 with error_atol, error_rtol; accepted
 * if ≤ 1; the next step h·min(facmax, max(facmin, fac·err^(−1/(μ+1)))) with μ the lower of the
 * two orders (eq. 22; tb3 μ = 2, hem2 μ = 1, hem5 μ = 4; facmax = 1 right after a rejection). A
 * rejected attempt leaves the state untouched.
 *
 * Failure contract: a step whose Newton iteration does not converge within max_iter, meets a
 * singular iteration matrix or a non-finite value is rejected and the state is left exactly
 * as before the step (ld_integ_step returns LD_RETRY and says why in ld_integ_message; a
 * non-finite value is named: "non-finite residual", "non-finite iteration matrix",
 * "non-finite Newton correction", "non-finite configuration", "non-finite stage velocity",
 * "non-finite force g", …).
 * ld_integ_advance then halves the step, up to max_halvings times, and reports LD_RETRY with
 * the time reached if even the smallest step fails. Nothing allocates after ld_integ_create.
 *
 * NULL: functions with a status return LD_EINVAL for a NULL integrator or argument; the
 * getters return NaN (times, steps), NULL (arrays; *n = 0), "" (message) or zeroed stats;
 * ld_integ_free and ld_integ_options_init do nothing.
 */
#ifndef LIEDYN_INTEGRATOR_H
#define LIEDYN_INTEGRATOR_H

#include <stddef.h>
#include <stdint.h>

#include "liedyn/export.h"
#include "liedyn/linalg.h"
#include "liedyn/system.h"

LD_BEGIN_DECLS

typedef enum ld_integ_method {
    LD_INTEG_GENALPHA = 0,
    LD_INTEG_NEWMARK,
    LD_INTEG_TB3,
    LD_INTEG_TB3_PAPER,
    LD_INTEG_HHT,
    LD_INTEG_HHT_MODIFIED,
    LD_INTEG_HEM1,
    LD_INTEG_HEM2,
    LD_INTEG_HEM3,
    LD_INTEG_HEM4,
    LD_INTEG_HEM5,
    LD_INTEG_COUNT
} ld_integ_method;

/* The methods are a table (src/sys/methods.c), one descriptor per method; the enum names the
 * built-in entries by their place in it. */
const char *ld_integ_method_name(ld_integ_method m);
int ld_integ_method_find(const char *name); /* -1 if unknown */

/* A parameter of a method: a double field of ld_integ_options (at `offset`), its key in the
 * model file's integrator block and on the command line, its range, default and help text.
 * The library's checks, ld_integ_options_init, the model reader, the CLI's --help and its
 * JSON output all read these. */
#define LD_METHOD_MAX_PARAMS 5 /* parameters a method without named fields can have */

typedef struct ld_method_param {
    const char *key;    /* model file key, e.g. "rho_inf" */
    const char *option; /* command-line option, e.g. "--rho-inf" */
    size_t offset;      /* offsetof(ld_integ_options, field) */
    double lo, hi;      /* the closed range of valid values */
    double def;         /* default */
    const char *range;  /* the range as text, e.g. "[0, 1]" */
    const char *help;   /* one line */
} ld_method_param;

/* What a method is: name, title with its source, orders, parameters and what it refuses. */
typedef struct ld_method_info {
    const char *name;   /* "genalpha" */
    const char *title;  /* one line, with the source */
    int order;          /* order of accuracy of q, v on smooth problems */
    int order_estimate; /* order of the embedded solution of the estimate (0: none) */
    int nparams;        /* method-specific parameters */
    const ld_method_param *params;
    int constraints;     /* 1: treats constrained systems (m > 0) */
    int euler;           /* 1: treats the euler formulation (Euler-parameter nodes) */
    int newton;          /* 1: Newton iterations on an implicit system in every step */
    int model_only;      /* 1: runs compiled models from their data (bodies, loads), not through
                          * the system's callbacks (the splitting methods) */
    const char *refuses; /* what it refuses and why, one line ("" if nothing) */
    int contact;         /* 1: treats contact (colliding shapes, docs/contact.md); the others
                          * refuse models with contact */
} ld_method_info;

/* The number of methods, the descriptor of method i (NULL out of range), the method of a
 * name (-1 if unknown). */
int ld_method_count(void);
const ld_method_info *ld_method_get(int i);
/* The parameter named key (model-file key, or option with its dashes) among all methods'
 * parameters; NULL if none. *method (may be NULL) receives the first method that has it. */
const ld_method_param *ld_method_param_find(const char *key, int *method);

/* Whether the Newton methods keep their factored iteration matrix (ld_integ_options). The
 * values are those of the model file's integrator.newton_reuse: false, true, auto. */
typedef enum ld_newton_reuse {
    LD_REUSE_OFF = 0,
    LD_REUSE_ON = 1,
    LD_REUSE_AUTO = 2
} ld_newton_reuse;

typedef struct ld_integ_options {
    ld_integ_method method;
    double rho_inf;                  /* [0, 1]; genalpha only (default 0.9) */
    double alpha;                    /* [−1/3, 0]; hht and hht-modified only (default −0.1) */
    double newton_atol, newton_rtol; /* Newton stop (defaults 1e-10, 1e-8) */
    int max_iter;                    /* Newton iterations per step (default 20) */
    int max_halvings;                /* step halvings in ld_integ_advance (default 10) */
    ld_la_kind la; /* linear solver (default dense; LD_LA_AUTO: ld_integ_la_auto) */
    /* step-size control (methods with an error estimate only) */
    int adaptive;                  /* 0: the caller's steps (default); 1: controlled steps */
    double error_atol, error_rtol; /* local error tolerances (defaults 1e-6, 1e-4) */
    double fac, facmin, facmax;    /* safety factor and step-ratio bounds (0.8, 0.2, 5) */
    double h_init;                 /* first step; 0: a guess from the initial state (default) */
    double h_min, h_max;           /* bounds of the step (defaults 1e-12, +inf) */
    int max_rejects;               /* consecutive rejections before giving up (default 30) */
    /* hem1 … hem5: project onto Φ = 0 after every step; genalpha, newmark, newmark-beta:
     * project v and v̇ onto B v + Φ_t = 0 and B v̇ + z = 0 in the mass metric after every step
     * (one more factorization per step; stabilizes the undamped index-3 scheme, Bayo &
     * Ledesma 1996); default 0 */
    int project;
    /* Newton methods: how long the factored iteration matrix is kept. LD_REUSE_OFF: formed in
     * every iteration (full Newton); LD_REUSE_AUTO (the default of ld_integ_options_init and
     * of model files): formed at the first iteration of each step and kept for the step's
     * other iterations; LD_REUSE_ON: kept across steps while the step size stays. A kept
     * matrix is formed anew when h changes, after a rejected step, and as soon as a
     * correction is not at least halved; its iteration stops on the estimated distance to
     * the solution (docs/performance.md). */
    ld_newton_reuse newton_reuse;
    /* Parameters of methods without a named field above: a descriptor points its parameter j
     * at param[j] (offsetof(ld_integ_options, param) + j·sizeof(double)); set them by key with
     * the descriptors (ld_method_param_find, ld_method_param_value). */
    double param[LD_METHOD_MAX_PARAMS];
} ld_integ_options;

/* The value of parameter p in o. */
double ld_method_param_value(const ld_integ_options *o, const ld_method_param *p);
void ld_integ_options_init(ld_integ_options *o);
/* The mode the integrator will run for the options o on the system s: LD_REUSE_OFF for the
 * methods without Newton iterations, else o->newton_reuse. LD_REUSE_AUTO keeps the matrix
 * within a step only: 1.2-3.5x faster than LD_REUSE_OFF on the shipped models, with end
 * states within 5e-5 of it; LD_REUSE_ON is faster still but its error accumulates at the
 * Newton tolerance (bench/newton_reuse.py, docs/performance.md). */
ld_newton_reuse ld_integ_reuse_choose(const ld_system *s, const ld_integ_options *o);
/* NULL if the options suit the system, otherwise a one-line reason (static string) why
 * ld_integ_create would refuse them (e.g. tb3 on a constrained system). */
const char *ld_integ_options_check(const ld_system *s, const ld_integ_options *o);
/* NULL, or a one-line caution (static string) when the options run but are known to fail on
 * the system: a method without numerical damping (genalpha with rho_inf = 1, newmark,
 * newmark-beta with gamma = 1/2, hht and hht-modified with alpha = 0; the first three without
 * project) on constraints in the index-3 form, whose multipliers' errors do not decay there
 * (docs/constraints.md). */
const char *ld_integ_options_caution(const ld_system *s, const ld_integ_options *o);
/* The model's integrator block as options: the method by its name, the parameters set in the
 * block (the others keep their defaults), the Newton and error tolerances, step-size control
 * (h_init = the block's dt; Newton then stops at 1/100 of the error tolerances when that is
 * tighter), the linear solver LD_LA_AUTO — what `liedyn run` uses. The step size and the times
 * stay in m->run (dt, t_start, t_end). LD_OK, or LD_EINVAL (NULL, or an unknown integrator
 * name; o untouched). */
int ld_integ_options_from_model(const ld_model *m, ld_integ_options *o);
/* The method has an embedded error estimate (can run with adaptive = 1). */
int ld_integ_method_has_estimate(ld_integ_method m);

typedef struct ld_integ_stats {
    long steps;               /* accepted steps (sub-steps of a halved step count each) */
    long rejected;            /* rejected step attempts, of which */
    long error_test_failures; /* by the error estimate (LD_RETRY_ERROR_TEST) */
    long newton_failures;     /* by the solve: Newton did not converge, a singular matrix or a
                                 non-finite value (LD_RETRY_NEWTON, _SINGULAR, _NONFINITE) */
    long newton_iterations;   /* over accepted and rejected attempts */
    long factorizations;
    int last_iterations; /* Newton iterations of the last accepted step */
    long roundoff_stops; /* steps accepted because the residual reached round-off level before
                            the correction norm reached the tolerance */
} ld_integ_stats;

typedef struct ld_integ ld_integ;

/* A half-explicit Runge–Kutta table (hem1 … hem5). s̄ stages; A is (s̄+1)×s̄ row-major (row i
 * holds a_{i,1..s̄}, zero on and above the diagonal), c has s̄+1 entries. The result is row s+1:
 * q_{n+1} = Q_{s+1}, v_{n+1} = V_{s+1}; rows beyond s+1 only serve the velocity constraint of
 * the last stages. λ_{n+1} = Σ d_i Λ_i. explicit_first: stage 1 takes Λ_1 = λ_n (Murua/Arnold
 * form) instead of solving for it. bhat: embedded weights on the s̄ stages (or NULL). */
typedef struct ld_hem_table {
    const char *name;
    const char *title; /* with its source */
    int order, order_embedded;
    int s, sbar;
    int explicit_first;
    const double *c, *A, *d, *bhat;
} ld_hem_table;

/* The table of a half-explicit method, NULL for the other methods. */
const ld_hem_table *ld_hem_table_of(ld_integ_method m);

/* Create for the system s (which must outlive the integrator); sizes all work space, the
 * dense scratch of the finite-difference tangents the system lacks included (ld_sys_reserve_fd;
 * s must have had ld_sys_alloc_work if it lacks one). NULL and *status < 0 (status may be
 * NULL): LD_EINVAL (NULL s or o, bad options), LD_ENOTSUPPORTED (the method cannot treat the
 * system), LD_ENOMEM. Memory: the Newton methods (genalpha, newmark, tb3, tb3-paper, hht,
 * hht-modified) and the dense hem path form dense matrices, about 8(2(k + m)² + 4k² + mk)
 * bytes; they are refused up front (LD_ENOMEM) when that exceeds the machine's physical
 * memory. hem1 … hem5 with the KLU solver on a system with mass_blocks and phi_q_sparse hold
 * O(nq + k + m + nnz) only. */
ld_integ *ld_integ_create(const ld_system *s, const ld_integ_options *o, int *status);
/* The same, with a one-line reason in msg (cap bytes; may be NULL) when it fails: the options'
 * refusal (ld_integ_options_check), or "out of memory: N bytes for WHAT (k = .., m = ..)". */
ld_integ *ld_integ_create_msg(const ld_system *s, const ld_integ_options *o, int *status, char *msg,
                              size_t cap);
/* The backend the integrator uses (LD_LA_AUTO resolved at creation; LD_LA_DENSE for NULL). */
ld_la_kind ld_integ_la(const ld_integ *it);
/* What LD_LA_AUTO resolves to for the system and the method of o (o may be NULL: the
 * half-explicit methods' matrix): ld_la_choose_rows with the order k + m, the m constraint rows
 * and ld_integ_la_entries; without structure, KLU only for ≥ 8 nodes and k + m ≥
 * 4·LD_LA_CROSSOVER. A caller can compare it with a forced choice, e.g. to warn when dense is
 * forced on a system far above LD_LA_CROSSOVER. */
ld_la_kind ld_integ_la_auto(const ld_system *s, const ld_integ_options *o);
/* The structural entries of the method's matrix that LD_LA_AUTO weighs (0: unknown): for the
 * half-explicit methods the saddle-point pattern from mass_blocks and phi_q_sparse; for the
 * Newton methods the tangent blocks' pattern plus 2·bnnz less the zeros that pattern_keep
 * flags (system.h), or six times the saddle pattern (the
 * stiffness couples neighbours) without tangent blocks. */
size_t ld_integ_la_entries(const ld_system *s, const ld_integ_options *o);
void ld_integ_free(ld_integ *it);

/* Set the state at t0 and compute consistent accelerations and multipliers
 * (ld_sys_initial_accel); the auxiliary acceleration a starts at v̇(0). On failure the status
 * (LD_EDOMAIN for a non-finite value, LD_ESINGULAR, LD_ENOMEM, LD_EINVAL, a callback's) and
 * ld_integ_message says why: "initial state at t = 0: non-finite generalized force g(t, q, v)
 * (entry 2 is inf)". */
int ld_integ_init(ld_integ *it, double t0, const double *q0, const double *v0);

/* Start anew from the current state (t, q, v) after the forces jumped (a control input set
 * between steps, ld_sys_set_control): the consistent v̇ and λ, and the method's own variables
 * from them, as ld_integ_init computes them (one saddle-point solve; its scratch is allocated
 * there, or kept from ld_integ_set_controller on, so that a restart allocates nothing); the
 * statistics go on. Without it a method that carries an acceleration (genalpha,
 * newmark, hht) sees the jump with an error of first order. LD_OK, or ld_integ_init's status
 * with ld_integ_message saying why. The sampled controller (actuator.h) does this at its
 * samples. */
int ld_integ_restart(ld_integ *it);

/* One step of size h > 0. LD_OK, > 0 (rejected, state unchanged; the status names the
 * cause: LD_RETRY_ERROR_TEST, LD_RETRY_NEWTON, LD_RETRY_SINGULAR, LD_RETRY_NONFINITE, or
 * LD_RETRY when a model callback asked for a smaller step) or < 0. */
int ld_integ_step(ld_integ *it, double h);
/* Advance by h, halving on rejection (up to max_halvings); sub-steps end exactly on t + h. */
int ld_integ_advance(ld_integ *it, double h);
/* The same up to exactly the time t1 > t (output grids without accumulated rounding).
 * With adaptive = 1: as many controlled steps as needed, the last one ending on t1. */
int ld_integ_advance_to(ld_integ *it, double t1);
/* adaptive = 1: one accepted controlled step, not beyond t_max (> t; the step is stretched
 * to t_max when it would stop just short of it). Rejected attempts are retried smaller;
 * LD_RETRY (state untouched, message set) when the step falls below h_min or after
 * max_rejects consecutive rejections. */
int ld_integ_step_adaptive(ld_integ *it, double t_max);
/* Size of the last accepted step (0 before the first), the error estimate of the last step
 * attempt (NaN for methods without one) and the step the controller proposes next. */
double ld_integ_last_h(const ld_integ *it);
double ld_integ_last_error(const ld_integ *it);
double ld_integ_next_h(const ld_integ *it);

/* The current state. The arrays belong to the integrator: valid until its next step, init,
 * load or free; copy what must outlive them; never free them. */
double ld_integ_t(const ld_integ *it);
const double *ld_integ_q(const ld_integ *it);      /* nq */
const double *ld_integ_v(const ld_integ *it);      /* k */
const double *ld_integ_vdot(const ld_integ *it);   /* k */
const double *ld_integ_lambda(const ld_integ *it); /* m */
/* The contact force on body `body` in the last accepted step of a method that treats contact
 * (moreau): f the sum of its contacts' (and joint limits') forces, spatial, tau their torque
 * about its centre of mass, spatial (impulses / h); zero before the first step. LD_OK, or
 * LD_ENOTSUPPORTED for a method without contact, LD_EINVAL for a bad index or NULL. */
int ld_integ_contact_force(const ld_integ *it, int body, double f[3], double tau[3]);
/* One contact of the last accepted step of a method that treats contact (moreau): shape1 of
 * body1 touches shape2 of body2, or the ground (body2 = LD_GROUND, shape2 = −1 the ground
 * plane, ≤ −2 the ground shape −2 − g of ld_model.ground). Spatial point and unit normal (from
 * body2 towards body1) and the gap (m, < 0: overlap) at the step's midpoint; the force on body1
 * (impulse / h, N; body2 takes its opposite), normal·force its normal part. */
typedef struct ld_contact_point {
    int body1, body2, shape1, shape2;
    double point[3], normal[3], gap, force[3];
} ld_contact_point;
/* The contacts of the last accepted step (not the joints' limits): their number, the first
 * min(number, cap) of them into out (may be NULL with cap 0); 0 before the first step or for a
 * method without contact; LD_EINVAL for NULL it. */
int ld_integ_contacts(const ld_integ *it, ld_contact_point *out, int cap);
/* What contact did: in the last accepted step, its contacts (those of the solve: closed,
 * closing and open within the step's reach; limits included) and projected Gauss–Seidel sweeps
 * of the velocities and of the positions' correction and projection; over the steps since init,
 * the sweeps and the largest overlap of two shapes met at a step's midpoint (m; the position
 * correction removes it by the step's end). */
typedef struct ld_contact_stats {
    int contacts, sweeps;
    long total_sweeps;
    double overlap, max_overlap;
    int correction_sweeps;
    long total_correction_sweeps;
} ld_contact_stats;
/* LD_OK, LD_ENOTSUPPORTED for a method without contact (st zeroed), LD_EINVAL for NULL. */
int ld_integ_contact_stats(const ld_integ *it, ld_contact_stats *st);
void ld_integ_get_stats(const ld_integ *it, ld_integ_stats *st);
/* Why the last rejection happened ("" if none); static until the next step. */
const char *ld_integ_message(const ld_integ *it);
/* Newton error norms of the last step attempt, one per iteration (tb3: those of stage 1, then
 * those of stage 2; at most 2·max_iter); *n receives the count. */
const double *ld_integ_newton_history(const ld_integ *it, int *n);
/* RMS of the preconditioned residual before each Newton correction of the last step attempt
 * (genalpha: D_L r, i.e. βh² times the dynamic equations, and Φ; tb3: the dynamic equations
 * divided by the stage's α = ∂a/∂v̄), in the order of the newton history; *n receives the
 * count. */
const double *ld_integ_residual_history(const ld_integ *it, int *n);

/* Checkpoints. ld_integ_save writes everything the next step depends on — t, q, v, v̇, λ and
 * the state the method carries from step to step (the auxiliary acceleration of genalpha,
 * the force history of hht), the step-size controller (next step, last step and estimate, cap,
 * rejection flag) and the statistics — plus the caller's own data (user, user_size bytes, e.g. an
 * output grid index) to path, atomically: a temporary file next to it, flushed to disk, then
 * renamed, so path always holds a whole checkpoint (the previous one if writing fails); a
 * symbolic link keeps pointing at the file it names, a character device or FIFO is written
 * through, a directory, block device or socket is refused (docs/reliability.md, "Files are
 * written safely"). The file gets 0666 less the umask, or the replaced file's mode.
 * ld_integ_load reads it into an integrator created for the same system and options (ld_integ_init
 * is not needed before it); the run then continues bit for bit as the one that wrote it. The file
 * carries a format version, the method, the node layout, the caller's model tag (any 64-bit
 * value that identifies the model, e.g. a hash of its data), the method parameters that define
 * the run's arithmetic (the method's own, the Newton and error tolerances, the controller's
 * factors and bounds, the linear solver, adaptive, project, newton_reuse) and a checksum; a
 * mismatch, a damaged file, or one whose fields are out of range (a non-finite time or state, a
 * step size <= 0, a count < 0 or > 2^53, inconsistent statistics) gives LD_EINVAL with the
 * field, its value and the reason, and leaves the integrator untouched. Host byte order and
 * doubles: a checkpoint moves between machines of one kind. msg (cap bytes, may be NULL)
 * receives "PATH: reason" on failure. LD_OK, LD_EINVAL, LD_EIO or LD_ENOMEM. */
#define LD_CHECKPOINT_VERSION 3
int ld_integ_save(const ld_integ *it, const char *path, uint64_t tag, const void *user,
                  size_t user_size, char *msg, size_t cap);
int ld_integ_load(ld_integ *it, const char *path, uint64_t tag, void *user, size_t user_size,
                  char *msg, size_t cap);

LD_END_DECLS

#endif

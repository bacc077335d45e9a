/*
 * liedyn/erk.h — one explicit Runge–Kutta engine for vector spaces and Lie groups.
 *
 * The engine advances x' = f(t, x) on a "space" described by callbacks. On a vector space
 * (retract = NULL) it is the classical explicit RK method of a Butcher table. On a Lie group
 * with right composition it is the Runge–Kutta–Munthe-Kaas (RKMK) method of the same table:
 *
 *   U_1 = 0,  U_i = h Σ_{j<i} a_ij K_j,  Y_i = x_n ∘ exp(U_i),
 *   K_i = dexp⁻¹_{U_i}( f(t_n + c_i h, Y_i) ),   x_{n+1} = x_n ∘ exp(h Σ b_i K_i),
 *
 * where f returns the body (right-trivialized) velocity. Embedded weights give the local
 * error estimate; the step-size controller follows the semantics of MATLAB's ode45/ode23
 * (error per component ≤ max(RelTol·|x_i|, AbsTol), maximum norm).
 *
 * Stages are evaluated by one callback, so methods whose stages need extra work (e.g. the
 * projection of half-explicit methods) plug in by wrapping f. The engine allocates its
 * workspace once in ld_erk_create; stepping never allocates.
 */
#ifndef LIEDYN_ERK_H
#define LIEDYN_ERK_H

#include "liedyn/export.h"
#include "liedyn/rk.h"

LD_BEGIN_DECLS

/* The space the state lives on. nx doubles store a point, nv doubles a tangent vector. */
typedef struct ld_erk_space {
    int nx, nv;
    /* v = f(t, x), v of size nv. Returns 0, > 0 to ask for a smaller step (e.g. the point left
     * the chart), < 0 to abort. Must not keep pointers to x or v. */
    int (*rhs)(double t, const double *x, double *v, void *user);
    /* x1 = x ∘ exp(u) (x1 may not alias x). NULL: vector space, x1 = x + u (needs nx == nv). */
    void (*retract)(double *x1, const double *x, const double *u, void *user);
    /* w = dexp⁻¹_u(v) (w may not alias u or v). NULL: identity. */
    void (*dexpinv)(double *w, const double *u, const double *v, void *user);
    /* e = log(exp(uhat)⁻¹ ∘ exp(u)), the local error measured on the group between the two
     * solutions x∘exp(u) and x∘exp(uhat). NULL: e = u − uhat. */
    void (*local_error)(double *e, const double *x, const double *u, const double *uhat,
                        void *user);
    /* s[i] ≥ 0: the magnitude of the state in tangent direction i, used by the relative
     * tolerance. NULL: s_i = |x_i| (needs nx == nv). */
    void (*scale)(double *s, const double *x, void *user);
    void *user;
} ld_erk_space;

typedef struct ld_erk_options {
    int adaptive;      /* 1: control the step with the embedded weights; 0: fixed step h_init */
    double h_init;     /* fixed step; with adaptive: first step, 0 = automatic choice */
    double error_rtol; /* relative local error tolerance (MATLAB RelTol), default 1e-3 */
    double error_atol; /* absolute local error tolerance (MATLAB AbsTol), default 1e-6 */
    double h_max;      /* largest step, 0 = |t1 − t0|/10 (as MATLAB) */
    double h_min;      /* smallest step; the run fails below max(h_min, 16 ε |t|) */
    long max_steps;    /* accepted + rejected steps before giving up, 0 = unlimited */
    double shrink_min; /* after a first rejection h shrinks by at most this factor: 0.1 as in
                          MATLAB's ode45 (default), 0.5 as in its ode23 */
} ld_erk_options;

/* Defaults: adaptive, error_rtol 1e-3, error_atol 1e-6, automatic h_init/h_max, h_min 0, no
 * step limit,
 * shrink_min 0.1. NULL: nothing happens. */
void ld_erk_options_default(ld_erk_options *o);

typedef struct ld_erk_stats {
    long steps;                    /* accepted steps */
    long rejected;                 /* rejected step attempts */
    long fevals;                   /* calls of rhs */
    double t;                      /* time reached (= t1 on success) */
    double h_min_used, h_max_used; /* smallest and largest accepted step */
} ld_erk_stats;

/* Called after every accepted step with the new time and state; return 0 to go on,
 * non-zero to stop the run (ld_erk_integrate then returns that value). */
typedef int (*ld_erk_output_fn)(double t, const double *x, void *user);

typedef struct ld_erk ld_erk;

/* Create an integrator for table tab on space sp (both must outlive it). LD_EINVAL for a NULL
 * argument, bad sizes or a table without embedded weights used adaptively (checked in
 * integrate); LD_ENOMEM. *out (out must not be NULL) is NULL on failure. */
int ld_erk_create(ld_erk **out, const ld_erk_space *sp, const ld_rk_table *tab);
void ld_erk_free(ld_erk *e);

/* One step attempt of size h from (t, x): on success x is overwritten with x_{n+1} and, when
 * err is not NULL and the table has embedded weights, err receives the local error vector
 * (size nv). A failing rhs leaves x untouched and its status is returned; LD_EDOMAIN (x
 * untouched) for a non-finite result, LD_EINVAL for a NULL e or x or a bad h or t. The FSAL
 * stage is not reused here. */
int ld_erk_step(ld_erk *e, double t, double h, double *x, double *err);

/* Integrate from t0 to t1 (t1 > t0) starting at x (overwritten with the final state, or the
 * last accepted state on failure; stats->t tells where; stats may be NULL). Returns
 *   LD_OK;
 *   LD_ETOOMUCHWORK  max_steps step attempts were made before t1;
 *   LD_ESTEPSIZE     the step size collapsed: the step fell below the smallest allowed step
 *                    (max(h_min, 16 ε|t|)) or below the resolution of t without meeting the
 *                    tolerance (fixed steps: h_init below the resolution of t);
 *   LD_ESINGULAR     the rhs refused the state (status > 0), e.g. at a singular
 *                    parametrization: with fixed steps or at the first evaluation, or in an
 *                    attempt of the step whose size then collapsed;
 *   LD_EDOMAIN       a non-finite initial state, a non-finite new state (fixed steps), or
 *                    (adaptive) the step collapsed as above while its last attempt gave a
 *                    non-finite state or error estimate;
 *   LD_EINVAL        a NULL argument or bad options (negative or non-finite tolerances, step
 *                    sizes or step limit; error_rtol or error_atol 0 with adaptive = 1);
 *   the rhs's negative status, or the output callback's non-zero value.
 * With adaptive = 1 a non-finite attempt is first rejected and retried smaller like any other. */
int ld_erk_integrate(ld_erk *e, const ld_erk_options *o, double t0, double t1, double *x,
                     ld_erk_output_fn out, void *out_user, ld_erk_stats *stats);

LD_END_DECLS

#endif /* LIEDYN_ERK_H */

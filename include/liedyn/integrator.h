/*
 * liedyn/integrator.h — implicit integrators for constrained systems on Lie groups (system.h).
 *
 * Methods:
 *   genalpha  Lie-group generalized-α (Brüls, Cardona & Arnold 2012; Kynema's Algorithm 1):
 *             ρ∞ → α_m = (2ρ∞ − 1)/(ρ∞ + 1), α_f = ρ∞/(ρ∞ + 1), γ = ½ + α_f − α_m,
 *             β = ¼(γ + ½)²; index-3 constraints; the iteration matrix preconditioned by
 *             D_L = diag(βh² I, I), D_R = diag(I, I/(βh²)); Newton stopped by the weighted
 *             error norm of the corrections (atol, rtol; Arnold & Hante 2017), or when
 *             the residual has reached round-off level (counted in roundoff_stops).
 *   newmark   Simo–Vu-Quoc Newmark on the group: the same code with α_m = α_f = 0,
 *             β = ¼, γ = ½.
 * Configuration update q_{n+1} = q_n ∘ exp(h Δq) (right composition, docs/conventions.md).
 *
 * Failure contract: a step whose Newton iteration does not converge within max_iter, meets a
 * singular iteration matrix or a non-finite value is rejected and the state is left exactly
 * as before the step (ld_integ_step returns LD_RETRY and says why in ld_integ_message).
 * ld_integ_advance then halves the step, up to max_halvings times, and reports LD_RETRY with
 * the time reached if even the smallest step fails. Nothing allocates after ld_integ_create.
 */
#ifndef LIEDYN_INTEGRATOR_H
#define LIEDYN_INTEGRATOR_H

#include "liedyn/export.h"
#include "liedyn/linalg.h"
#include "liedyn/system.h"

LD_BEGIN_DECLS

typedef enum ld_integ_method {
    LD_INTEG_GENALPHA = 0,
    LD_INTEG_NEWMARK,
    LD_INTEG_COUNT
} ld_integ_method;

const char *ld_integ_method_name(ld_integ_method m);
int ld_integ_method_find(const char *name); /* -1 if unknown */

typedef struct ld_integ_options {
    ld_integ_method method;
    double rho_inf;    /* [0, 1]; genalpha only (default 0.9) */
    double atol, rtol; /* Newton stop (defaults 1e-10, 1e-8) */
    int max_iter;      /* Newton iterations per step (default 20) */
    int max_halvings;  /* step halvings in ld_integ_advance (default 10) */
    ld_la_kind la;     /* linear solver (default dense) */
} ld_integ_options;

void ld_integ_options_init(ld_integ_options *o);

typedef struct ld_integ_stats {
    long steps;             /* accepted steps (sub-steps of a halved step count each) */
    long rejected;          /* rejected step attempts */
    long newton_iterations; /* over accepted and rejected attempts */
    long factorizations;
    int last_iterations; /* Newton iterations of the last accepted step */
    long roundoff_stops; /* steps accepted because the residual reached round-off level before
                            the correction norm reached the tolerance */
} ld_integ_stats;

typedef struct ld_integ ld_integ;

/* Create for the system s (which must outlive the integrator); sizes all work space.
 * NULL and *status < 0 on bad options or out of memory. */
ld_integ *ld_integ_create(const ld_system *s, const ld_integ_options *o, int *status);
void ld_integ_free(ld_integ *it);

/* Set the state at t0 and compute consistent accelerations and multipliers
 * (ld_sys_initial_accel); the auxiliary acceleration a starts at v̇(0). */
int ld_integ_init(ld_integ *it, double t0, const double *q0, const double *v0);

/* One step of size h > 0. LD_OK, LD_RETRY (rejected; state unchanged) or < 0. */
int ld_integ_step(ld_integ *it, double h);
/* Advance by h, halving on rejection (up to max_halvings); sub-steps end exactly on t + h. */
int ld_integ_advance(ld_integ *it, double h);
/* The same up to exactly the time t1 > t (output grids without accumulated rounding). */
int ld_integ_advance_to(ld_integ *it, double t1);

double ld_integ_t(const ld_integ *it);
const double *ld_integ_q(const ld_integ *it);      /* nq */
const double *ld_integ_v(const ld_integ *it);      /* k */
const double *ld_integ_vdot(const ld_integ *it);   /* k */
const double *ld_integ_lambda(const ld_integ *it); /* m */
void ld_integ_get_stats(const ld_integ *it, ld_integ_stats *st);
/* Why the last rejection happened ("" if none); static until the next step. */
const char *ld_integ_message(const ld_integ *it);
/* Newton error norms of the last step attempt, one per iteration; *n receives the count. */
const double *ld_integ_newton_history(const ld_integ *it, int *n);
/* RMS of the preconditioned residual D_L r (βh² times the dynamic equations, Φ) before each
 * Newton correction of the last step attempt; *n receives the count. */
const double *ld_integ_residual_history(const ld_integ *it, int *n);

LD_END_DECLS

#endif

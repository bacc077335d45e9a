/*
 * liedyn/controller.h — one step-size controller for every engine with an error estimate:
 * the Lie-group integrators of integrator.h (tb3, hem2, hem5) and the explicit Runge–Kutta
 * engine of erk.h behind the attitude methods. The engine measures the error of a step
 * (err ≤ 1: accepted) and asks the controller for the next step size; the controller keeps
 * what it needs between steps (whether the current step was rejected before, a cap after a
 * failed solve). Two rules:
 *
 *   LD_CTRL_I       h_new = h · min(facmax, max(facmin, fac · err^(−1/(μ+1)))), μ the lower
 *                   order of the embedded pair (Hairer, Nørsett & Wanner, Solving Ordinary
 *                   Differential Equations I, Sec. II.4). facmax = 1 right after a
 *                   rejection. A failed solve (Newton, a singular matrix, a non-finite
 *                   value) halves the step and caps the next ones at that size; the cap
 *                   relaxes by 1.25 per accepted step.
 *   LD_CTRL_MATLAB  the rules of MATLAB's ode45/ode23: a first rejection shrinks by
 *                   max(shrink_min, 0.8 err^(−1/(μ+1))), further ones halve; after an
 *                   accepted step h / max(0.2, 1.25 err^(1/(μ+1))), unchanged if the step was
 *                   rejected before.
 */
#ifndef LIEDYN_CONTROLLER_H
#define LIEDYN_CONTROLLER_H

#include "liedyn/export.h"

LD_BEGIN_DECLS

typedef enum ld_ctrl_kind { LD_CTRL_I = 0, LD_CTRL_MATLAB = 1 } ld_ctrl_kind;

typedef struct ld_ctrl {
    ld_ctrl_kind kind;
    int mu;                     /* lower order of the embedded pair (≥ 1) */
    double fac, facmin, facmax; /* LD_CTRL_I: safety factor and step-ratio bounds */
    double shrink_min;          /* LD_CTRL_MATLAB: bound of the first shrink (0.1 or 0.5) */
    /* state */
    int rejected; /* the step being attempted was rejected before */
    double h_cap; /* LD_CTRL_I: bound after a failed solve (+inf: none) */
} ld_ctrl;

/* A controller of the given kind for a pair of lower order mu, with the defaults fac 0.8,
 * facmin 0.2, facmax 5, shrink_min 0.1. */
void ld_ctrl_init(ld_ctrl *c, ld_ctrl_kind kind, int mu);
/* The step accepted with size h and error err (≤ 1): the size of the next step. cut: the
 * step was cut short of the size hp the controller had proposed (to land on an end time):
 * then the proposal is kept when the error would allow it. */
double ld_ctrl_accepted(ld_ctrl *c, double h, double err, double hp);
/* The step of size h was rejected: by the error estimate (err > 1, solve_failed 0) or because
 * its solve failed (solve_failed 1; err unused). The size to try next. */
double ld_ctrl_rejected(ld_ctrl *c, double h, double err, int solve_failed);
/* The size proposed for the next attempt, bounded by the cap of a failed solve. */
double ld_ctrl_bound(const ld_ctrl *c, double h);

LD_END_DECLS

#endif

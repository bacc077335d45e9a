/*
 * liedyn/runcheck.h — what a run checks and measures on the states it reaches, the same for
 * `liedyn run`, `liedyn sweep` and liedyn.run (docs/cli-run.md):
 *
 *   - the drift checks, on when the tolerance phi_tol > 0: a state whose max |Φ| exceeds
 *     phi_tol, or whose max |B v + Φ_t| exceeds both LD_VEL_TOL_REL times the largest velocity
 *     component met so far and phi_tol, has drifted off its constraints (the run ends there);
 *   - the energy scale: the largest |kinetic energy| or |potential energy| over the states
 *     measured (T = E(t, q, v) − E(t, q, 0), V = E(t, q, 0)), against which the energy's
 *     drift is relative (ld_energy_drift_rel): defined where the initial energy is 0, e.g. a
 *     model that starts at rest at zero potential.
 *
 * Ownership: ld_runcheck_init allocates the velocity residual's scratch, ld_runcheck_free
 * releases it. Nothing is allocated per state.
 */
#ifndef LIEDYN_RUNCHECK_H
#define LIEDYN_RUNCHECK_H

#include <stddef.h>

#include "liedyn/export.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

LD_BEGIN_DECLS

/* The velocity check's tolerance, relative to the largest velocity component met: legitimate
 * runs of the shipped models stay below 2e-4 (docs/cli-run.md). */
#define LD_VEL_TOL_REL 1e-2

typedef struct ld_runcheck {
    double phi_tol; /* the drift checks' tolerance (0: no check) */
    /* the position check: max |Φ| of the states measured, its row and time (row −1: none) */
    double phimax, phit;
    int phirow;
    /* the velocity residual max |B v + Φ_t| (NaN: not evaluated), its row and time; vscale the
     * largest velocity component met */
    int vres_row;
    double vres, vres_t, vscale;
    /* drifted: 1 position, 2 velocity (the first check failed; 0 none); the failing state's
     * residual, row and time */
    int drifted, d_row;
    double d_val, d_t;
    /* the energy of the first state measured and the energy scale (NaN without energy) */
    double e0, escale;
    long states; /* states measured */
    double *work;
    size_t nb; /* the scratch: nb values of B, then 3 m + k */
} ld_runcheck;

/* Prepare c for runs of s with tolerance phi_tol (≥ 0). LD_OK, LD_EINVAL (NULL, a negative or
 * NaN tolerance) or LD_ENOMEM. */
int ld_runcheck_init(ld_runcheck *c, const ld_system *s, double phi_tol);
/* Release c's scratch (idempotent). */
void ld_runcheck_free(ld_runcheck *c);
/* Measure the state (t, q, v): the residuals, their maxima, the checks and the energy scale
 * (the first state measured also sets e0). Returns c->drifted (0: within the tolerances), or
 * LD_EINVAL for a NULL argument or a c not initialized. */
int ld_runcheck_state(ld_runcheck *c, const ld_system *s, double t, const double *q,
                      const double *v);
/* "drifted off its constraints at t = …: max |Phi| … in joint 'J' (line L), row R of 3
 * exceeds the tolerance …, so the positions no longer satisfy the joints" (or the velocity
 * check's sentence) into buf; "" when c has not drifted. The caller adds its remedy. */
void ld_runcheck_message(const ld_runcheck *c, const ld_system *s, const ld_model *m,
                         const char *tol_name, char *buf, size_t cap);
/* The energy's drift e1 − e0 relative to the energy scale (ld_runcheck): (e1 − e0) / scale,
 * the absolute drift e1 − e0 when the scale is 0 (every energy term 0), NaN without energy. */
double ld_energy_drift_rel(double e0, double e1, double scale);
/* The model's length scale for the drift check: its longest link, the largest distance
 * between two points of one body that matter to the joints (its centre of mass and the points
 * where joints hold it); 1 without joints, or when that is 0; NaN for NULL. */
double ld_model_constraint_length(const ld_model *m);
/* The drift check's default tolerance: 1e-6 ld_model_constraint_length(m) (m). */
double ld_model_constraint_tol(const ld_model *m);

LD_END_DECLS

#endif

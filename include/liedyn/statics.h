/*
 * liedyn/statics.h — static equilibrium of a constrained system (system.h):
 *
 *   g(t, q, 0) + Bᵀ(q) λ = 0,   Φ(t, q) = 0,
 *
 * at rest at a fixed time t, by Newton's method on the group (q ← q ∘ exp(Δq)) with the
 * iteration matrix [K, Bᵀ; B, 0], K = ∂/∂q [g + Bᵀλ] the system's stiffness at v = 0, a = 0.
 * The loads are stepped in by a homotopy of the residual: step s of n solves
 *   g(t, q, 0) + Bᵀλ = (1 − s/n) g(t, q_start, 0),
 * so the start (where g holds the applied loads against a stress-free configuration) solves the
 * first problem and the last is the equilibrium; a step whose Newton iteration fails is halved
 * (up to max_cuts times) from the last converged state. Where that fails — a mechanism, whose
 * stiffness is singular off its rest position (a pendulum held horizontal) — the equilibrium is
 * sought from the start at the full load by pseudo-transient continuation (Kelley & Keyes
 * 1998): Newton on [K + c M, Bᵀ; B, 0] with the inertia weight c following the residual down,
 * so that the system settles into an equilibrium near its start (stats.relaxed). The linear
 * solves are dense ((k + m)² doubles, twice: systems above about 22 000 unknowns are refused,
 * LD_ENOMEM) or sparse: the saddle-point matrix assembled from the system's node blocks
 * (ld_sys_has_blocks) and factored by KLU, memory in proportion to its entries — chosen as the
 * Newton methods choose (ld_la_choose_rows) unless the options say which.
 */
#ifndef LIEDYN_STATICS_H
#define LIEDYN_STATICS_H

#include <stddef.h>

#include "liedyn/export.h"
#include "liedyn/linalg.h"
#include "liedyn/system.h"

LD_BEGIN_DECLS

typedef struct ld_static_options {
    int steps;     /* load steps (≥ 1), default 10 */
    int max_iter;  /* Newton iterations per step, default 25 */
    int max_cuts;  /* halvings of a failed step, default 12 */
    double tol;    /* stop when |r|∞ ≤ tol · (1 + |g(t, q_start, 0)|∞), default 1e-10, or at
                    * round-off: after a correction |δ|∞ ≤ 1e-13, |r|∞ within 1000 times that or
                    * within 1000 ε times the largest entry of the iteration matrix (the forces'
                    * own round-off: an unloaded stiff structure has no load to scale by) */
    ld_la_kind la; /* LD_LA_AUTO (default): sparse where ld_la_choose_rows picks KLU and the
                    * system has node blocks; LD_LA_DENSE; LD_LA_KLU (LD_EINVAL without blocks) */
} ld_static_options;

typedef struct ld_static_stats {
    int steps;       /* load steps taken (cut steps counted as the smaller ones) */
    int cuts;        /* halvings */
    long iterations; /* Newton iterations in all */
    double residual; /* |r|∞ of the last iterate */
    int relaxed;     /* 1: found by the pseudo-transient continuation (below) */
    int sparse;      /* 1: the sparse solver was used */
} ld_static_stats;

void ld_static_options_init(ld_static_options *o);

/* Solve for the equilibrium from q (nq, in: the start, out: the equilibrium) and λ (m, out; may
 * be NULL when m = 0). LD_OK; LD_EINVAL (bad arguments or options; msg says which);
 * LD_ENOMEM; LD_ESINGULAR (a singular iteration matrix even at the smallest step); LD_EDOMAIN
 * (Newton did not converge at the smallest step, or a non-finite value); a callback's status.
 * On failure q and λ hold the last converged state and msg (cap bytes, may be NULL) says at
 * which load fraction it stopped. st may be NULL. */
int ld_static_solve(const ld_system *s, double t, double *q, double *lambda,
                    const ld_static_options *o, ld_static_stats *st, char *msg, size_t cap);

LD_END_DECLS

#endif

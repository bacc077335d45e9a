/*
 * Internal: the integrator object shared by the methods of integrator.h (integ.c holds the
 * common part: options, creation, linear solves, step-size control; integ_residual.c and
 * integ_matrix.c the Newton iterations' residual and iteration matrix; genalpha.c and tb3.c
 * the steps of their methods).
 */
#ifndef LIEDYN_INTEG_IMPL_H
#define LIEDYN_INTEG_IMPL_H

#include <stdint.h>
#include <string.h>

#include "liedyn/controller.h"
#include "liedyn/integrator.h"
#include "liedyn/linalg.h"
#include "liedyn/system.h"

/* Unknowns k + m up to which the dense solver takes the small-system path (integ_small.c). */
#define LD_SMALL_N 12

/* A method: its public description and its hooks. Each method defines one in its own file;
 * the one list of methods is the table in methods.c. */
typedef struct ld_method_impl {
    ld_method_info info;
    int variant; /* method-specific (newmark, tb3-paper, hht-modified, the hem table) */
    /* Doubles of private work space for system s; the first *keep of them are the method's
     * state carried from step to step (checkpoints save them). NULL: none. */
    size_t (*work)(const ld_system *s, size_t *keep);
    /* Why the method cannot run system s (a static or thread-local string), NULL if it can
     * (optional: methods for special systems; ld_integ_options_check reports it). */
    const char *(*refuse)(const ld_system *s);
    /* The method forms no k×k matrix on this system with these options (optional). */
    int (*sparse_only)(const ld_system *s, const ld_integ_options *o);
    int (*create)(ld_integ *it);   /* optional: after the common work space */
    void (*destroy)(ld_integ *it); /* optional */
    /* v̇ and λ consistent with the state (optional; default ld_sys_initial_accel_msg); why
     * (cap bytes) receives a reason on failure. */
    int (*initial)(ld_integ *it, char *why, size_t cap);
    int (*init)(ld_integ *it); /* optional: after q, v, v̇, λ of the initial state are set */
    /* One step from it->t to exactly t1 > it->t: LD_OK (trial state committed, last_err set
     * when the method estimates its error), LD_RETRY (rejected, state untouched, message
     * set) or < 0. */
    int (*step)(ld_integ *it, double t1);
    /* The contact force and torque on a body after the last step (optional: contact methods;
     * ld_integ_contact_force). */
    int (*contact_force)(const ld_integ *it, int body, double f[3], double tau[3]);
    /* The last step's contacts and the contact statistics (optional: contact methods;
     * ld_integ_contacts, ld_integ_contact_stats). */
    int (*contacts)(const ld_integ *it, ld_contact_point *out, int cap);
    void (*contact_stats)(const ld_integ *it, ld_contact_stats *st);
} ld_method_impl;

/* The method of index i (0 ≤ i < ld_method_count()). */
const ld_method_impl *ld_integ__method(int i);

struct ld_integ {
    const ld_system *s;
    ld_integ_options o;
    const ld_method_impl *meth;
    double bh2; /* scale of the dynamic rows of the residual (genalpha: βh²) */
    int k, m, n;
    ld_la *la;
    double t;
    /* state */
    double *q, *v, *vd, *lam;
    /* trial state */
    double *qn, *vn, *vdn, *lamn, *xi;
    /* residual, correction, matrices */
    double *r, *dx, *S, *M, *C, *K, *T, *B;
    double *hist, *rhist;
    int nhist;
    /* o.newton_reuse: the factored matrix is valid for the coefficients jac_c (jac_ok); the
     * next factorization is skipped (skip_factor, set by an assembly that found it valid) */
    int jac_ok, skip_factor;
    double jac_c[3];
    long jac_step; /* st.steps when it was factored: LD_REUSE_AUTO keeps it within that step */
    /* the method's own: work space (nkeep doubles of state first) and object */
    double *ws;
    size_t nws, nkeep;
    void *priv;
    int *colptr, *rowind; /* KLU: the fixed CSC pattern (first factorization) */
    double *vals;
    int *blk; /* block index of every row/column (nodes, then constraint rows) */
    /* the structured sparse path (integ_blocks.c): no k×k array */
    int blocks;                      /* 1 on this path */
    int *map_t, *map_bt, *map_b;     /* pattern index of each tangent-block, B T and Bᵀ entry */
    int *col_node;                   /* node of each velocity column */
    size_t *mb_off;                  /* node block offsets of the mass-block layout */
    double *bw;                      /* one block: the next five */
    double *Mb, *Tb, *Bv, *BTv, *tv; /* mass blocks, T blocks, B, B T, tangent-block values */
    double *rk, *mk;                 /* k each: products and their magnitudes (residual) */
    unsigned char *keep; /* ld_saddle_nnz flags: the value is in the KLU pattern (saddle.h) */
    int nkept;           /* entries in the pattern */
    int *mband;    /* dense paths: row i of M is zero outside columns [mband[2i], mband[2i + 1]) */
    double rscale; /* round-off scale of the preconditioned residual (RMS of the term sizes) */
    /* the small-system path (integ_small.c): k + m ≤ LD_SMALL_N on the dense solver (small),
     * unless ld_integ__set_generic turned it off (generic); the LU factors live in lu, piv */
    int small, generic;
    /* the fused evaluation (integ_fused.c): not taken although the system offers it
     * (separate, ld_integ__set_separate); the constant M of the system is in M / Mb (mass_ok) */
    int separate, mass_ok;
    double lu[LD_SMALL_N * LD_SMALL_N];
    int piv[LD_SMALL_N];
    /* step-size control */
    double h_next;   /* the step to try next (adaptive) */
    double last_h;   /* size of the last accepted step */
    double last_err; /* error estimate of the last step attempt (NaN: none) */
    ld_ctrl ctrl;    /* the controller (controller.h: LD_CTRL_I with the options' factors) */
    ld_integ_stats st;
    const char *why;      /* the non-finite quantity of the current attempt (NULL: none), static */
    double oom_bytes;     /* the size of a failed allocation (messages) */
    const char *oom_what; /* and what it was for (NULL: the solver's factors), static */
    char msg[320];
    struct ld_sampler *smp; /* the sampled controller (integ_sample.c; NULL: none) */
    /* the kept workspace of the solves for consistent v̇, λ (accel.h; NULL: each solve
     * allocates its own), made with the controller, whose samples restart the method */
    struct ld_sys_accel_ws *aws;
};

/* Consistent v̇, λ at the integrator's state into it->vd, it->lam (ld_sys_initial_accel_msg,
 * with it->aws when there is one); why (cap) says what failed. */
int ld_integ__initial_accel(ld_integ *it, char *why, size_t cap);

/* integ_sample.c: at a sample instant (t within its tolerance), run the controller and set the
 * inputs: LD_OK or the controller's status (< 0). Then the end of a step from t towards t1:
 * t1, or the next sample instant when that comes first. Release. NULL smp: nothing, t1. */
int ld_integ__sample(ld_integ *it);
double ld_integ__sample_end(const ld_integ *it, double t1);
void ld_integ__sample_free(ld_integ *it);
/* A new start (ld_integ_init): the samples count again from the integrator's time. */
void ld_integ__sample_reset(ld_integ *it);

/* ---------------------------------------------------------------- the small-system path */
/* In place LU with partial pivoting of the row-major n×n a (1 ≤ n ≤ LD_SMALL_N), pivots in
 * piv: LD_OK, LD_ESINGULAR when a pivot is at most n·eps·amax (amax = max |a_ij|, the rule of
 * linalg.c), LD_EINVAL for n out of range. Fixed-size code for every n. */
int ld_small_lu(double *a, int *piv, int n, double amax);
/* b ← A⁻¹ b from the factors of ld_small_lu. */
void ld_small_solve(const double *a, const int *piv, int n, double *b);
/* The bits of |x| (the sign cleared): as unsigned integers they are ordered as the values, the
 * infinities above every finite value and the NaNs above the infinities, so that one integer
 * maximum gives both max |x_i| and whether all are finite (below LD_SMALL_INF_BITS). */
#define LD_SMALL_INF_BITS 0x7ff0000000000000u
static inline uint64_t ld_small_abs_bits(double x) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b & 0x7fffffffffffffffu;
}
/* d = x (n values); 1 and *amax = max |x_i| when they are finite, else 0. */
int ld_small_copy_max(double *restrict d, const double *restrict x, int n, double *amax);
/* Σ x_i·0 over four lanes: 0 when the n values are finite, NaN when one is not (branch-free;
 * the caller names the culprit with ld_integ__finite). */
static inline double ld_zero_sum(const double *restrict x, size_t n) {
    double z[4] = {0.0, 0.0, 0.0, 0.0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; ++l) z[l] += x[i + (size_t)l] * 0.0;
    for (; i < n; ++i) z[0] += x[i] * 0.0;
    return (z[0] + z[1]) + (z[2] + z[3]);
}
/* 1 when the n values are finite (ld_zero_sum). */
int ld_small_finite(const double *x, int n);
/* The integrator takes the small-system path. */
static inline int ld_integ__small(const ld_integ *it) {
    return it->small && !it->generic;
}
/* Factor S (copied to it->lu, scanned on the way) on the small path: LD_OK, LD_ESINGULAR,
 * LD_EDOMAIN with it->why for a non-finite entry. */
int ld_integ__small_factor(ld_integ *it);
/* ld_integ__assemble on the small path (after the reuse test). */
int ld_integ__small_assemble(ld_integ *it, double t, double cm, double cc, double ck,
                             const double *a_k);
/* b ← S⁻¹ b with the factors of the last ld_integ__factor, on either path. */
int ld_integ__solve(ld_integ *it, double *b);

/* Take the generic path (on = 1) even where the small-system path applies, or return to the
 * default (on = 0): the benches compare the two in one run, the tests check they agree. */
void ld_integ__set_generic(ld_integ *it, int on);

/* Evaluate the model with its separate callbacks (on = 1) even where ops.eval_newton is given,
 * or return to the default (on = 0): the tests and benches compare the two. */
void ld_integ__set_separate(ld_integ *it, int on);

/* One Newton iteration's model evaluation, residual and (unless the factored matrix is kept)
 * iteration matrix S = [cm M + cc C + ck K T(xi), Bᵀ; B T(xi), 0] at the trial state, K at the
 * acceleration vdn: ld_integ__residual then ld_integ__assemble, or the same from one call of
 * ops.eval_newton (integ_fused.c) with M evaluated once for a system whose M is constant. */
int ld_integ__newton_eval(ld_integ *it, double t, double cm, double cc, double ck);
/* The parts of the residual and the assembly after the model's evaluations (M, g, B, Φ in
 * place; C, K or the tangent-block values too for the fills), on each path. */
int ld_integ__residual_sums(ld_integ *it);
/* Note the band of the dense M just evaluated (it->mband), which the residual's sums skip the
 * zeros outside of: to be called after every evaluation of M into it->M before them. */
void ld_integ__mass_band(ld_integ *it);
int ld_integ__blocks_residual_sums(ld_integ *it);
int ld_integ__dense_fill(ld_integ *it, double cm, double cc, double ck);
/* The fill node by node (each node's T(xi) block local; any n, the small path's and, unless
 * ld_integ__set_generic, the dense path's). It does not check S's finiteness: its callers do
 * (ld_integ__small_factor on its copy, ld_integ__dense_fill on S). */
int ld_integ__small_fill(ld_integ *it, double cm, double cc, double ck);
int ld_integ__blocks_fill(ld_integ *it);
/* The node blocks Tb of T(xi) (structured sparse path). */
void ld_integ__blocks_tangents(ld_integ *it);
/* With o.newton_reuse: 1 when the factored matrix of the same coefficients still serves (the
 * next ld_integ__factor is skipped); else 0, and the next matrix is formed anew. */
int ld_integ__reuse_matrix(ld_integ *it, double cm, double cc, double ck);

/* The half-explicit tables (hem_tables.c): table i of hem1 … hem5, NULL out of range. */
const ld_hem_table *ld_hem__table(int i);

/* Commit the trial state (qn, vn, vdn, lamn) as the new state; iters the Newton iterations
 * of the step. */
void ld_integ__commit(ld_integ *it, int iters);

/* LD_OK if the n values of x are finite; else LD_EDOMAIN with it->why = what (a static string
 * naming the quantity, e.g. "non-finite residual"). */
int ld_integ__finite(ld_integ *it, const double *x, size_t n, const char *what);
/* The trial state (qn, vn, vdn, lamn) finite, checked before it is committed. */
int ld_integ__trial_finite(ld_integ *it);

/* Shared pieces of the Newton iterations (integ_residual.c, integ_matrix.c). */
/* r = [M v̇ + g + Bᵀλ; Φ] at (qn, vn, vdn, lamn); leaves M and B in place and sets rscale. */
int ld_integ__residual(ld_integ *it, double t);
/* S = [cm M + cc C + ck K T(xi), Bᵀ; B T(xi), 0] at the trial state (C = ∂g/∂v and the
 * stiffness K = ∂/∂q [M a + g + Bᵀλ] at qn, vn, lamn and the acceleration a_k (NULL: vdn);
 * M and B from the last residual). */
int ld_integ__assemble(ld_integ *it, double t, double cm, double cc, double ck, const double *a_k);
/* Weighted RMS norm of the correction dx = (Δx, Δλ) (Arnold & Hante 2017): weights
 * atol + rtol |pos_i| with pos the position increment of the step, atol + rtol |λ_i|. */
double ld_integ__correction_norm(const ld_integ *it, const double *pos);
/* Factor S with the chosen backend (the KLU pattern is fixed at the first call). */
int ld_integ__factor(ld_integ *it);
/* Count a rejection of the given cause (LD_RETRY, LD_RETRY_ERROR_TEST, LD_RETRY_NEWTON,
 * LD_RETRY_SINGULAR, LD_RETRY_NONFINITE) and format the message; returns the cause. */
int ld_integ__reject(ld_integ *it, int cause, const char *why, double h);
/* Map the status of a Newton iteration to a rejection (rc > 0 or a numerical failure:
 * LD_ESINGULAR, LD_EDOMAIN with it->why naming the non-finite quantity, a non-finite err) or
 * pass a fatal status on; LD_OK stays LD_OK. */
int ld_integ__newton_status(ld_integ *it, int rc, double err, double h);
/* After the last Newton iteration: LD_OK if the correction norm err ≤ 1 or the residual had
 * reached round-off (floor; counted in roundoff_stops), else a rejection. */
int ld_integ__newton_end(ld_integ *it, double err, int floor, double h);
/* The preconditioned Newton correction from the assembled S and the residual r (scale
 * it->bh2): logs the residual's RMS, sets *at_roundoff when it is at round-off level (the
 * index-3 multipliers then carry O(ε/h²) noise no iteration removes), and solves
 * S dx = −[bh2 r_q; Φ], returning dx = (Δx, Δλ) with Δλ unscaled. */
int ld_integ__correction(ld_integ *it, int *at_roundoff);
/* LD_OK if every entry of the correction dx is finite, else LD_EDOMAIN. */
int ld_integ__correction_finite(ld_integ *it);
/* One Newton iteration of a method: updates the trial state, *err the correction norm,
 * *at_roundoff set when the residual was already at round-off level. */
typedef int (*ld_integ_newton_fn)(ld_integ *it, double t1, double h, double *err, int *at_roundoff);
/* Newton iterations of `iter` from the predicted trial state until the correction norm is
 * ≤ 1, the residual reaches round-off, or max_iter; counts them, logs the history, and maps
 * failures to rejections (ld_integ__newton_status, ld_integ__newton_end). *iters receives the
 * iterations of an accepted solve. */
int ld_integ__newton(ld_integ *it, double t1, double h, ld_integ_newton_fn iter, int *iters);
/* RMS of the residual scaled by bh2 in its first k rows (the preconditioned residual). */
double ld_integ__residual_rms(const ld_integ *it);
/* y += M x with M of the last residual (mag, may be NULL: += |M_ij x_j|), on either path. */
void ld_integ__mass_times(const ld_integ *it, const double *x, double *y, double *mag);
/* y += Bᵀ λ with B evaluated at (t, q) (into it->B or it->Bv): LD_OK or the model's status. */
int ld_integ__add_bt_lambda(ld_integ *it, double t, const double *q, const double *lam, double *y);
/* S = [M 0; 0 0] with M of the last residual, on either path (tb3's new acceleration). */
void ld_integ__assemble_mass(ld_integ *it);

/* The structured sparse path (integ_blocks.c; it->blocks): the pattern and its maps,
 * allocated once (LD_ENOMEM with it->oom_bytes); products and assembly on it. */
int ld_integ__blocks_create(ld_integ *it);
int ld_integ__blocks_residual(ld_integ *it, double t);
void ld_integ__blocks_free(ld_integ *it);
void ld_integ__blocks_mass_times(const ld_integ *it, const double *x, double *y, double *mag);
void ld_integ__blocks_bt_times(const ld_integ *it, const double *lam, double *y, double *mag);
int ld_integ__blocks_assemble(ld_integ *it, double t, double cm, double cc, double ck,
                              const double *a_k);
void ld_integ__blocks_mass_only(ld_integ *it);

/* The method cannot treat this kind of system at all, as opposed to bad option values
 * (integ_check.c). */
int ld_integ__unsupported(const ld_system *s, const ld_method_impl *d);

#endif

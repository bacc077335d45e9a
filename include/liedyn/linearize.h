/*
 * liedyn/linearize.h — linearization of a constrained system (system.h) about a state, and its
 * modes (docs/modes.md).
 *
 * The state is (q, v) at time t; the perturbed motion is q(t) = q₀(t) ∘ exp(δ(t)), node by node,
 * with δ ∈ R^k the body-frame tangent increment of the formulation (rotation first, right
 * composition: the same increment as every integrator's Newton correction). At rest (v = 0)
 * the velocity perturbation is δ̇ and the linearized equations are
 *
 *   M δ̈ + D δ̇ + K δ + Bᵀ δλ = 0,   B δ = 0,
 *
 * M = M(q), D = ∂g/∂v, K = ∂/∂q [M a + g + Bᵀλ] at (a, λ) — the system's own tangent matrices,
 * the stiffness with the multipliers λ of the state, so that K holds the second derivatives of
 * the constraints (the geometric stiffness of the joints). With a velocity v₀ (a steady motion
 * whose body-frame velocity is constant, a relative equilibrium such as a body spinning about a
 * principal axis) the perturbed velocity is v₀ + δ̇ + W δ, W y = [v₀, y] (ld_sys_bracket), and
 *
 *   M δ̈ + (D + M W) δ̇ + (K + D W) δ + Bᵀ δλ = 0.
 *
 * The constraints are eliminated by an orthonormal basis N (k × n) of the null space of B (its
 * rows scaled to unit length; the rank from the singular values, a row whose part outside the
 * others is below 10⁻⁸ counts as dependent — the tolerance of the compiler's redundant rows):
 * δ = N z and
 *
 *   Mr z̈ + Dr ż + Kr z = 0,   Mr = Nᵀ M N,  Dr = Nᵀ D N,  Kr = Nᵀ K N
 *
 * (D and K including the W terms above). Without constraints N = I. z has n = k − rank(B)
 * entries: the degrees of freedom. Kr is symmetric at an equilibrium of a conservative system
 * (the Hessian of the energy plus λᵀΦ on the constraints' tangent space); lin.asym measures how
 * far it is. All matrices dense, row-major.
 */
#ifndef LIEDYN_LINEARIZE_H
#define LIEDYN_LINEARIZE_H

#include <stddef.h>

#include "liedyn/export.h"
#include "liedyn/system.h"

LD_BEGIN_DECLS

typedef struct ld_linear {
    int k, m;      /* velocities, constraint rows of the system */
    int n;         /* degrees of freedom: k − rank(B) */
    int dependent; /* rows of B dependent on the others at the state (m − rank) */
    double t;
    double *M, *D, *K;    /* k × k: mass, damping (with M W when moving), stiffness (with D W) */
    double *B;            /* m × k: the constraint Jacobian at the state */
    double *N;            /* k × n: orthonormal basis of the null space of B */
    double *Mr, *Dr, *Kr; /* n × n: the reduced matrices */
    double *a, *lambda;   /* k, m: accelerations and multipliers of the state (from
                           * ld_sys_initial_accel) */
    double accel;         /* |a|∞: 0 at an equilibrium or a steady motion */
    double asym;          /* max|Kr − Krᵀ| / max|Kr| (0 when Kr = 0) */
    int moving;           /* 1: v ≠ 0 (the W terms are in D and K) */
} ld_linear;

/* Linearize s about (t, q, v) (v may be NULL: at rest). λ and the accelerations come from the
 * consistent initial accelerations at the state (ld_sys_initial_accel); lin.accel says whether
 * the state is an equilibrium (call ld_static_solve first). lin is filled and owns its arrays
 * (ld_linear_free). Memory: about 8 (9k² + 2mk) bytes (dense). LD_OK; LD_EINVAL (NULL
 * arguments); LD_ENOMEM; LD_ESINGULAR (no accelerations at the state: a singular mass or
 * saddle matrix); LD_EDOMAIN (non-finite tangents); a callback's status. On failure msg (cap
 * bytes, may be NULL) says why and lin is left empty (safe to free). */
int ld_linearize(const ld_system *s, double t, const double *q, const double *v, ld_linear *lin,
                 char *msg, size_t cap);
void ld_linear_free(ld_linear *lin);

/* A steady rotation's Newton: iterations and the largest generalized force out of balance on
 * the constraints' tangent space (|Nᵀ M a|∞), at the start and at the end. */
typedef struct ld_steady_info {
    int iterations;
    double residual0, residual;
} ld_steady_info;
#define LD_STEADY_MAX_ITER 30
/* The steady motion of s turning rigidly at rate (rad/s) about the axis through point along
 * axis (spatial; normalized here): the configuration q at which every node, moving with the
 * rigid rotation's velocity (Ω_b = Rᵀ ω, U = Rᵀ (ω × (x − point))), has no acceleration — a
 * relative equilibrium, such as a spinning blade stretched by its centrifugal forces, about which
 * ld_linearize gives the modes in the turning frame (centrifugal stiffening included). q holds
 * the start (the undeformed configuration, or the steady one of a nearby rate) and receives the
 * result; v receives its velocities. Newton: Kr z = Nᵀ M a, q ← q ∘ exp(N z), with the
 * linearization about the moving state, until the forces out of balance are 1e-10 of those at
 * the start, or the step is below 1e-14 of the configuration's size (round-off), within
 * LD_STEADY_MAX_ITER
 * iterations. Every node must carry body-frame velocities (se3 or s3sdr3: their velocities are
 * constant in a rigid rotation). Rheonomic constraints (drivers) must turn at the same rate.
 * LD_OK; LD_EINVAL; LD_ENOTSUPPORTED (another node kind); LD_EDOMAIN (no convergence);
 * LD_ESINGULAR (a free motion the rotation does not hold); LD_ENOMEM; ld_linearize's statuses.
 * info (may be NULL) receives the iterations and residuals; msg says why on failure. */
int ld_steady_rotation(const ld_system *s, double t, const double axis[3], const double point[3],
                       double rate, double *q, double *v, ld_steady_info *info, char *msg,
                       size_t cap);

/* The first-order state matrix of the reduced system, x = (z, ż), ẋ = A x:
 *   A = [0, I; −Mr⁻¹ Kr, −Mr⁻¹ Dr]   (2n × 2n, row-major, into A).
 * LD_OK, LD_EINVAL, LD_ENOMEM, LD_ESINGULAR (Mr singular). */
int ld_linear_state_matrix(const ld_linear *lin, double *A);

/* The input matrix of p inputs given by their generalized forces F (k × p, row-major: column c
 * is the force on the system's velocities of a unit input c, the sign of an applied load, so
 * that M v̇ = F u − g − Bᵀλ), in the first-order form of ld_linear_state_matrix:
 *   Bu = [0; Mr⁻¹ Nᵀ F]   (2n × p, row-major), ẋ = A x + Bu u.
 * A force f at a body's centre of mass: F = Jxᵀ f, a torque τ: F = Jrᵀ τ
 * (ld_linear_body_jacobian). LD_OK, LD_EINVAL, LD_ENOMEM, LD_ESINGULAR. */
int ld_linear_input_matrix(const ld_linear *lin, const double *F, int p, double *Bu);
/* The motion of body `body` per tangent increment at q: Jx (3 × k) the displacement of its centre
 * of mass, Jr (3 × k) its rotation, both spatial (column i: ld_modes_body_shape of the unit
 * vector e_i). The outputs of the first-order form: the displacement is Jx N z, so
 * C = [Jx N, 0] (velocities: [0, Jx N]). Either output may be NULL. LD_OK, LD_EINVAL,
 * LD_ENOMEM. */
int ld_linear_body_jacobian(const ld_system *s, const double *q, int body, double *Jx, double *Jr);

typedef struct ld_modes {
    int count; /* modes held */
    int k, n;  /* as in ld_linear */
    int damped;
    /* per mode (count entries), ascending in |s| (undamped: in ω², the unstable first): */
    double *re, *im; /* the eigenvalue s = re + i im (im ≥ 0: one of each conjugate pair) */
    double *omega2; /* undamped: the eigenvalue ω² of Kr z = ω² Mr z (< 0: unstable, e^{√−ω² t});
                     * damped: NaN */
    double *hz;    /* natural frequency |s| / 2π (Hz) */
    double *zeta;  /* damping ratio −re / |s| (0 undamped or s = 0) */
    double *noise; /* undamped: the rounding level of ω², 100 ε (|z|ᵀ|Kr||z| + |σ|) for the
                    * mode's Mr-normalized z and the solver's shift σ (the largest |ω²| when
                    * unshifted): |ω²| at or below it is zero to working precision (a rigid or
                    * neutral motion); damped: 0 */
    /* shapes, count × n and count × k (mode j at row j): z and N z, complex (imaginary parts 0
     * for the undamped modes). Undamped: mass-normalized, zᵀ Mr z = 1, sign such that the
     * largest entry of N z is positive. Damped: scaled so that the largest |entry| of N z is
     * 1 and real. */
    double *z, *z_im, *phi, *phi_im;
} ld_modes;

/* The undamped modes: Kr z = ω² Mr z with Kr symmetrized (LAPACK dsygv; Mr must be positive
 * definite). count ≤ 0 or > n: all n. LD_OK, LD_EINVAL, LD_ENOMEM, LD_ESINGULAR (Mr not
 * positive definite, or the solver did not converge); msg says why. */
int ld_modes_undamped(const ld_linear *lin, int count, ld_modes *md, char *msg, size_t cap);
/* The damped modes: the generalized eigenvalues of [0, I; −Kr, −Dr] x = s [I, 0; 0, Mr] x
 * (LAPACK dggev, 2n × 2n), infinite ones dropped, one of each complex-conjugate pair kept
 * (a real pair of an overdamped mode is two modes). count ≤ 0: all. */
int ld_modes_damped(const ld_linear *lin, int count, ld_modes *md, char *msg, size_t cap);
/* The count lowest undamped modes of s at rest at (t, q), on the sparse path, joints included:
 * the multipliers λ and accelerations a of the state (ld_sys_initial_accel, sparse for a large
 * system), the saddle-point matrix [K − σM, Bᵀ; B, 0] from the system's node blocks
 * (ops.tangent_blocks with K at (a, λ), the dense path's K with the constraints' second
 * derivatives; ld_sys_has_blocks) and B's values (ops.phi_q_sparse), factored once by KLU, and
 * subspace iteration on the shift-inverted pencil: each solve [K − σM, Bᵀ; B, 0] [x; μ] =
 * [M y; 0] gives x in the null space of B, so that the iteration runs on the reduced pencil
 * (Kr − σMr)⁻¹ Mr of the dense path without a basis N. max(2 count, count + 8) vectors (at most
 * k − m) until the wanted eigenvalues change by less than 10⁻¹³, or stop falling below 10⁻¹¹
 * (round-off; at most 200 iterations). σ must lie below the wanted eigenvalues (0 for a clamped
 * structure or a hanging mechanism; a little below 0 for one with rigid motions). B must have
 * full rank (the compiler drops dependent joint rows): count ≤ k − m, the degrees of freedom.
 * The result is that of ld_modes_undamped (mass-normalized shapes φ = N z) without a k × k
 * array, given on the full tangent space: md.n = k and md.z = md.phi (there is no N). Memory
 * O(nnz + k + m + k count). LD_OK, LD_EINVAL (bad arguments; m ≥ k; count > k − m),
 * LD_ENOTSUPPORTED (no node blocks: the euler formulation; use the dense path), LD_ESINGULAR
 * (no unique multipliers: dependent constraint rows; or the saddle matrix singular: σ an
 * eigenvalue), LD_EDOMAIN (no convergence, non-finite tangents), LD_ENOMEM; msg says why. */
int ld_modes_sparse(const ld_system *s, double t, const double *q, int count, double sigma,
                    ld_modes *md, char *msg, size_t cap);
void ld_modes_free(ld_modes *md);

/* The modal assurance criterion of mode i of a and mode j of b (same system size k):
 * |φ_iᴴ φ_j|² / (|φ_i|² |φ_j|²) on the complex shapes N z, in [0, 1] (1: the same shape up to a
 * complex factor). NaN for bad arguments or a zero shape. */
double ld_modes_mac(const ld_modes *a, int i, const ld_modes *b, int j);
/* Follow the modes of prev into cur (a parameter sweep: a Campbell diagram): order[i] (prev->count
 * entries) receives the mode of cur that continues mode i of prev, −1 when cur has no mode left
 * for it. Pairs are taken greedily by descending score, each mode of cur used once; the score
 * is the MAC up to complex conjugation (a real motion is a conjugate pair, and which of the two
 * a mode holds flips where its frequency in a turning frame passes through 0) less 0.1 times the
 * distance of the frequencies relative to cur's largest (which decides between alike shapes,
 * such as the two circular whirls of a symmetric rotor). mac (may be NULL) receives each pair's
 * MAC up to conjugation. LD_OK, LD_EINVAL (sizes differ), LD_ENOMEM. */
int ld_modes_track(const ld_modes *prev, const ld_modes *cur, int *order, double *mac);

/* The displacement of body `body` (a body of the compiled model) in the tangent direction phi
 * (k entries) at q: the velocity of its centre of mass dx (spatial) and its angular velocity
 * dth (spatial) along ε ↦ q ∘ exp(ε phi), by central differences (ε = 10⁻⁶ / max|phi|; the
 * error is O(ε²)). A complex shape: call with its real and its imaginary part. LD_OK or
 * LD_EINVAL. */
int ld_modes_body_shape(const ld_system *s, const double *q, const double *phi, int body,
                        double dx[3], double dth[3]);

LD_END_DECLS

#endif

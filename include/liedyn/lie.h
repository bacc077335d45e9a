/*
 * liedyn/lie.h — the Lie-group core: quaternions, SO(3), S³, SE(3), S³⋉R³, R³×SO(3), S³×R³.
 *
 * Pure functions on fixed-size arrays, output first; no allocation, no global state.
 * Unless a declaration says otherwise, an output may NOT alias an input. Precondition of every
 * function here: its array arguments point to arrays of the stated sizes (never NULL; they
 * are not checked).
 *
 * Conventions (docs/conventions.md):
 *  - Quaternion q = [w x y z] (scalar first), Hamilton product, unit quaternion
 *    q = (cos(θ/2), sin(θ/2) n) for a rotation by θ about the unit axis n.
 *    A rotation maps body (material) coordinates to spatial (inertial) ones:
 *    v_spatial = q ∘ v_body ∘ q*  =  R v_body.
 *  - 3×3 matrices are row-major double[9]; 6×6 matrices row-major double[36].
 *  - Rotation vector ψ = θ n. Tangential (Gibbs/Argyris) vector ψ_t = tan(θ/2) n.
 *  - hat(v) is the skew matrix with hat(v) w = v × w.
 *  - Tangent vectors of the 6-dimensional groups are ordered rotation first: v = (Ω, U).
 *  - Increments compose on the right (body frame): g(t+h) ≈ g(t) ∘ exp(h v).
 *  - The tangent operator T(ξ) of a group is defined by
 *        exp(ξ + δ) = exp(ξ) ∘ exp(T(ξ) δ + O(|δ|²)),
 *    i.e. T is the right Jacobian (right-trivialized dexp of -ξ). Its transpose
 *    Tᵀ(ξ) = T(-ξ) on SO(3)/S³ is the left Jacobian: exp(ξ + δ) = exp(Tᵀ(ξ) δ) ∘ exp(ξ).
 *
 * Group elements are flat double arrays (sizes below): SO(3) R[9]; S³ q[4];
 * SE(3) and R³×SO(3) g[12] = (R[9], x[3]); S³⋉R³ and S³×R³ g[7] = (q[4], x[3]).
 */
#ifndef LIEDYN_LIE_H
#define LIEDYN_LIE_H

#include "liedyn/export.h"

LD_BEGIN_DECLS

#define LD_SO3_SIZE    9
#define LD_S3_SIZE     4
#define LD_SE3_SIZE    12
#define LD_SO3XR3_SIZE 12
#define LD_S3SDR3_SIZE 7
#define LD_S3XR3_SIZE  7

/* ------------------------------------------------------------------ quaternions */

/* r = a ∘ b (Hamilton). r may alias a or b. */
void ld_quat_mul(double r[4], const double a[4], const double b[4]);
/* r = q* = (w, -x, -y, -z). r may alias q. */
void ld_quat_conj(double r[4], const double q[4]);
/* Euclidean norm |q|. */
double ld_quat_norm(const double q[4]);
/* r = q⁻¹ = conj(q) / |q|². LD_EDOMAIN (r untouched) if |q| is zero or not finite. r may alias q.
 */
int ld_quat_inv(double r[4], const double q[4]);
/* r = q/|q|, computed as (q/s)/|q/s| with s = max |q_i|: exact to round-off for any finite
 * q ≠ 0, huge (1e300) and denormal components included. LD_EDOMAIN (r untouched) if q is zero
 * or has a NaN or infinite component. r may alias q. */
int ld_quat_normalize(double r[4], const double q[4]);
/* r = q ∘ v ∘ q* = R(q) v for a unit q (body → spatial). r may alias v. */
void ld_quat_rotate(double r[3], const double q[4], const double v[3]);
/* r = q* ∘ v ∘ q = R(q)ᵀ v for a unit q (spatial → body). r may alias v. */
void ld_quat_rotate_inv(double r[3], const double q[4], const double v[3]);
/* Rotation matrix of q/|q| for any nonzero q (the result is orthogonal even if |q| ≠ 1). */
void ld_quat_to_mat(double R[9], const double q[4]);
/* Unit quaternion of a rotation matrix by Spurrier's singularity-free extraction,
 * normalized, with w >= 0. A slightly non-orthogonal R gives the nearby rotation. */
void ld_quat_from_mat(double q[4], const double R[9]);
/* Unit quaternion of the rotation vector ψ (= exp_S³ of ψ); any |ψ|, robust at 0. */
void ld_quat_from_rotvec(double q[4], const double psi[3]);
/* Rotation vector of the shortest rotation represented by q (sign-invariant): |ψ| ≤ π.
 * q need not be exactly unit. Robust at 0 and near π. */
void ld_quat_to_rotvec(double psi[3], const double q[4]);
/* Unit quaternion of the tangential vector ψ_t = tan(θ/2) n; any finite ψ_t. */
void ld_quat_from_tanvec(double q[4], const double psi_t[3]);
/* Tangential vector of q (sign-invariant). LD_ESINGULAR (psi_t untouched) when the
 * rotation angle is π to within round-off (|w| ≤ ε|vec q|) or q = 0. */
int ld_quat_to_tanvec(double psi_t[3], const double q[4]);
/* Cayley transform: the unit quaternion of (I - hat(a)/2)⁻¹ (I + hat(a)/2), i.e. the
 * rotation with tangential vector a/2: q = (1, a/2)/sqrt(1 + |a|²/4). */
void ld_quat_cayley(double q[4], const double a[3]);
/* Geodesic distance of the rotations a and b in [0, π] (angle of a* ∘ b); sign-invariant,
 * accurate for tiny and for near-π angles. Inputs need not be exactly unit. */
double ld_quat_angle(const double a[4], const double b[4]);

/* ------------------------------------------------------------------ SO(3) */

/* M = hat(v): M w = v × w. */
void ld_so3_hat(double M[9], const double v[3]);
/* v = vee of the skew part of M: v = vee((M - Mᵀ)/2). */
void ld_so3_vee(double v[3], const double M[9]);
/* R = exp(hat ψ) (Rodrigues); any |ψ|. */
void ld_so3_exp(double R[9], const double psi[3]);
/* ψ = log(R) with |ψ| ≤ π (via Spurrier's quaternion; robust at 0 and near π). */
void ld_so3_log(double psi[3], const double R[9]);
/* R = A B. R may not alias A or B. */
void ld_so3_compose(double R[9], const double A[9], const double B[9]);
/* R = Aᵀ. R may not alias A. */
void ld_so3_inverse(double R[9], const double A[9]);
/* r = R v. r may not alias v. */
void ld_so3_act(double r[3], const double R[9], const double v[3]);
/* Cayley transform R = (I - hat(a)/2)⁻¹ (I + hat(a)/2) = I + (hat a + hat(a)²/2)/(1 + |a|²/4). */
void ld_so3_cayley(double R[9], const double a[3]);
/* T(ψ) = I - (1-cos φ)/φ² hat ψ + (φ - sin φ)/φ³ hat(ψ)², φ = |ψ| (right Jacobian). */
void ld_so3_tangent(double T[9], const double psi[3]);
/* T⁻¹(ψ) = I + hat(ψ)/2 + (1 - (φ/2)cot(φ/2))/φ² hat(ψ)²; singular at φ = 2πk, k ≥ 1. */
void ld_so3_tangent_inv(double Ti[9], const double psi[3]);
/* Tᵀ(ψ) = T(-ψ) (left Jacobian). */
void ld_so3_tangent_t(double Tt[9], const double psi[3]);
/* T⁻ᵀ(ψ) = T⁻¹(-ψ) (inverse left Jacobian). */
void ld_so3_tangent_inv_t(double Tit[9], const double psi[3]);

/* ------------------------------------------------------------------ S³ (unit quaternions) */

/* q = exp_S³(Ω) = (cos(φ/2), sin(φ/2) Ω/φ): the half-angle map, φ = |Ω|. */
void ld_s3_exp(double q[4], const double Omega[3]);
/* Ω = log_S³(q), the inverse of exp_S³ on |Ω| < 2π: log(q) and log(-q) differ
 * (|Ω| and 2π - |Ω|). q need not be exactly unit. At q ∝ -1 returns (2π, 0, 0). */
void ld_s3_log(double Omega[3], const double q[4]);
/* The S³ tangent operator is the SO(3) one: T_S³ = ld_so3_tangent, T⁻¹_S³ = ld_so3_tangent_inv. */

/* ------------------------------------------------------------------ 6-dimensional groups */
/*
 * Semidirect products SE(3) = SO(3)⋉R³ and S³⋉R³:
 *   (R₁, x₁)(R₂, x₂) = (R₁R₂, x₁ + R₁x₂),  exp(Ω, U) = (exp Ω, Tᵀ(Ω) U),
 *   T(Ω, U) = [[T(Ω), 0], [C₁(Ω, U), T(Ω)]]  (Tumiotto & Arnold 2024, eq. 20).
 * Direct products R³×SO(3) and S³×R³:
 *   (R₁, x₁)(R₂, x₂) = (R₁R₂, x₁ + x₂),  exp(Ω, U) = (exp Ω, U),  T = diag(T(Ω), I).
 * In every case v = (Ω, U) with Ω the body angular velocity; U = Rᵀẋ (body frame) for the
 * semidirect products and U = ẋ (spatial frame) for the direct ones.
 * Every *_tangent_inv is singular where T⁻¹(Ω) is, at |Ω| = 2πk (k ≥ 1); it returns no status
 * there (the entries grow like 1/(2πk - |Ω|)).
 */

/* C₁(Ω, U), the lower-left block of the semidirect-product tangent operator. */
void ld_sdp_c1(double C[9], const double Omega[3], const double U[3]);
/* Lower-left block of the inverse tangent operator: -T⁻¹(Ω) C₁(Ω, U) T⁻¹(Ω). */
void ld_sdp_c1_inv(double C[9], const double Omega[3], const double U[3]);

void ld_se3_compose(double g[12], const double a[12], const double b[12]);
void ld_se3_inverse(double g[12], const double a[12]);
void ld_se3_exp(double g[12], const double v[6]);
/* log with |Ω| ≤ π. */
void ld_se3_log(double v[6], const double g[12]);
void ld_se3_tangent(double T[36], const double v[6]);
/* Singular where T⁻¹(Ω) is (|Ω| = 2πk). */
void ld_se3_tangent_inv(double Ti[36], const double v[6]);

void ld_s3sdr3_compose(double g[7], const double a[7], const double b[7]);
void ld_s3sdr3_inverse(double g[7], const double a[7]);
void ld_s3sdr3_exp(double g[7], const double v[6]);
/* log with |Ω| < 2π (S³ branch: exact inverse of exp, sign of q kept). The translation part
 * T⁻ᵀ(Ω)x grows like 1/(2π - |Ω|) as q → -1 (no status: the caller owns that singularity). */
void ld_s3sdr3_log(double v[6], const double g[7]);
void ld_s3sdr3_tangent(double T[36], const double v[6]);
void ld_s3sdr3_tangent_inv(double Ti[36], const double v[6]);

void ld_so3xr3_compose(double g[12], const double a[12], const double b[12]);
void ld_so3xr3_inverse(double g[12], const double a[12]);
void ld_so3xr3_exp(double g[12], const double v[6]);
void ld_so3xr3_log(double v[6], const double g[12]);
void ld_so3xr3_tangent(double T[36], const double v[6]);
void ld_so3xr3_tangent_inv(double Ti[36], const double v[6]);

void ld_s3xr3_compose(double g[7], const double a[7], const double b[7]);
void ld_s3xr3_inverse(double g[7], const double a[7]);
void ld_s3xr3_exp(double g[7], const double v[6]);
void ld_s3xr3_log(double v[6], const double g[7]);
void ld_s3xr3_tangent(double T[36], const double v[6]);
void ld_s3xr3_tangent_inv(double Ti[36], const double v[6]);

LD_END_DECLS

#endif /* LIEDYN_LIE_H */

/*
 * SO(3): Rodrigues exponential, logarithm through Spurrier's quaternion, Cayley map and
 * the tangent operator T(ψ) (right Jacobian) with its inverse and transposes.
 */
#include "liedyn/liedyn.h"

#include <math.h>

#include "fn.h"
#include "mat3.h"

void ld_so3_hat(double M[9], const double v[3]) {
    ld_m3_hat(M, v);
}

void ld_so3_vee(double v[3], const double M[9]) {
    v[0] = 0.5 * (M[7] - M[5]);
    v[1] = 0.5 * (M[2] - M[6]);
    v[2] = 0.5 * (M[3] - M[1]);
}

void ld_so3_exp(double R[9], const double psi[3]) {
    double x = ld_v3_norm(psi);
    if (x > 1e150) { /* hat(ψ)² would overflow: Rodrigues on the unit axis */
        double u[3] = {psi[0] / x, psi[1] / x, psi[2] / x};
        ld_m3_rodrigues(R, u, sin(x), 1.0 - cos(x));
        return;
    }
    ld_fn f;
    ld_fn_eval(&f, x, 2);
    ld_m3_rodrigues(R, psi, f.a, f.b);
}

void ld_so3_log(double psi[3], const double R[9]) {
    double q[4];
    ld_quat_from_mat(q, R);
    ld_quat_to_rotvec(psi, q);
}

void ld_so3_compose(double R[9], const double A[9], const double B[9]) {
    ld_m3_mul(R, A, B);
}

void ld_so3_inverse(double R[9], const double A[9]) {
    ld_m3_transpose(R, A);
}

void ld_so3_act(double r[3], const double R[9], const double v[3]) {
    ld_m3_mulv(r, R, v);
}

void ld_so3_cayley(double R[9], const double a[3]) {
    double a2 = ld_v3_dot(a, a);
    if (!(a2 < 1e290)) { /* |a|² would overflow: go through the scaled quaternion form */
        double q[4];
        ld_quat_cayley(q, a);
        ld_quat_to_mat(R, q);
        return;
    }
    double k = 1.0 / (1.0 + 0.25 * a2);
    ld_m3_rodrigues(R, a, k, 0.5 * k);
}

void ld_so3_tangent(double T[9], const double psi[3]) {
    ld_fn f;
    ld_fn_eval(&f, sqrt(ld_v3_dot(psi, psi)), 3);
    ld_m3_rodrigues(T, psi, -f.b, f.c);
}

void ld_so3_tangent_inv(double Ti[9], const double psi[3]) {
    ld_fn f;
    ld_fn_eval(&f, sqrt(ld_v3_dot(psi, psi)), 4);
    ld_m3_rodrigues(Ti, psi, 0.5, ld_fn_tinv(&f));
}

void ld_so3_tangent_t(double Tt[9], const double psi[3]) {
    ld_fn f;
    ld_fn_eval(&f, sqrt(ld_v3_dot(psi, psi)), 3);
    ld_m3_rodrigues(Tt, psi, f.b, f.c);
}

void ld_so3_tangent_inv_t(double Tit[9], const double psi[3]) {
    ld_fn f;
    ld_fn_eval(&f, sqrt(ld_v3_dot(psi, psi)), 4);
    ld_m3_rodrigues(Tit, psi, -0.5, ld_fn_tinv(&f));
}

/* ---- S³: the half-angle exponential and its inverse on |Ω| < 2π ---- */

void ld_s3_exp(double q[4], const double Omega[3]) {
    ld_quat_from_rotvec(q, Omega);
}

void ld_s3_log(double Omega[3], const double q[4]) {
    double s = ld_v3_norm(q + 1);
    if (s == 0.0) { /* q ∝ ±1: log 1 = 0; -1 = exp of any 2π-vector, take the x axis */
        Omega[0] = q[0] < 0.0 ? 2.0 * LD_PI : 0.0 * q[0]; /* NaN stays NaN */
        Omega[1] = Omega[2] = 0.0;
        return;
    }
    double f = ld_fn_log_factor(s, q[0]);
    for (int i = 0; i < 3; ++i) Omega[i] = f * q[1 + i];
}

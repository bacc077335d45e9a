/*
 * The 6-dimensional groups: semidirect products SE(3), S³⋉R³ and direct products
 * R³×SO(3), S³×R³. Tangent vectors v = (Ω, U), rotation first; increments compose on the
 * right. The semidirect products share exp's translation part Tᵀ(Ω)U and the coupling
 * block C₁ of the tangent operator (Tumiotto & Arnold 2024, eqs. 18-20).
 */
#include "liedyn/liedyn.h"

#include <math.h>
#include <string.h>

#include "fn.h"
#include "mat3.h"

/* C = -b hat(U) + c (ΩUᵀ + UΩᵀ - 2(Ω·U) I) + (Ω·U)(d hat(Ω) - e hat(Ω)²), assembled
 * term by term (no identity added and removed) so that C stays linear in U to round-off. */
static void c1_from(double C[9], const ld_fn *f, const double W[3], const double U[3]) {
    double wu = ld_v3_dot(W, U), ew = wu * f->e, diag = ew * ld_v3_dot(W, W) - 2.0 * f->c * wu;
    double s[3];
    for (int i = 0; i < 3; ++i) s[i] = wu * f->d * W[i] - f->b * U[i];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            C[3 * i + j] = f->c * (W[i] * U[j] + U[i] * W[j]) - ew * (W[i] * W[j]);
    for (int i = 0; i < 3; ++i) C[4 * i] += diag;
    C[1] -= s[2];
    C[2] += s[1];
    C[3] += s[2];
    C[5] -= s[0];
    C[6] -= s[1];
    C[7] += s[0];
}

void ld_sdp_c1(double C[9], const double Omega[3], const double U[3]) {
    ld_fn f;
    ld_fn_eval(&f, sqrt(ld_v3_dot(Omega, Omega)), 5);
    c1_from(C, &f, Omega, U);
}

/* L = -Ti C Ti. */
static void c1_inv_from(double L[9], const double Ti[9], const double C[9]) {
    double A[9];
    ld_m3_mul(A, Ti, C);
    ld_m3_mul(L, A, Ti);
    for (int i = 0; i < 9; ++i) L[i] = -L[i];
}

void ld_sdp_c1_inv(double C[9], const double Omega[3], const double U[3]) {
    ld_fn f;
    double C1[9], Ti[9];
    ld_fn_eval(&f, sqrt(ld_v3_dot(Omega, Omega)), 5);
    c1_from(C1, &f, Omega, U);
    ld_m3_rodrigues(Ti, Omega, 0.5, ld_fn_tinv(&f));
    c1_inv_from(C, Ti, C1);
}

/* T (or T⁻¹ when inv) of a product group: diag blocks from T(Ω); lower-left C₁ when sdp. */
static void tangent6(double T[36], const double v[6], int sdp, int inv) {
    ld_fn f;
    double D[9], C[9];
    static const double Id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    ld_fn_eval(&f, sqrt(ld_v3_dot(v, v)), sdp ? 5 : 4);
    if (inv)
        ld_m3_rodrigues(D, v, 0.5, ld_fn_tinv(&f));
    else
        ld_m3_rodrigues(D, v, -f.b, f.c);
    memset(T, 0, 36 * sizeof(double));
    ld_m6_set_block(T, 0, 0, D);
    ld_m6_set_block(T, 1, 1, sdp ? D : Id);
    if (!sdp) return;
    c1_from(C, &f, v, v + 3);
    if (inv) {
        double L[9];
        c1_inv_from(L, D, C);
        ld_m6_set_block(T, 1, 0, L);
    } else {
        ld_m6_set_block(T, 1, 0, C);
    }
}

/* x = Tᵀ(Ω) U, the translation part of the semidirect exponential; f holds a..c. */
static void sdp_exp_translation(double x[3], const ld_fn *f, const double v[6]) {
    double Tt[9];
    ld_m3_rodrigues(Tt, v, f->b, f->c);
    ld_m3_mulv(x, Tt, v + 3);
}

/* U = T⁻ᵀ(Ω) x, the translation part of the semidirect logarithm. */
static void sdp_log_translation(double U[3], const double Omega[3], const double x[3]) {
    double Tit[9];
    ld_so3_tangent_inv_t(Tit, Omega);
    ld_m3_mulv(U, Tit, x);
}

/* ------------------------------------------------------------------ SE(3) */

void ld_se3_compose(double g[12], const double a[12], const double b[12]) {
    double t[3];
    ld_m3_mul(g, a, b);
    ld_m3_mulv(t, a, b + 9);
    for (int i = 0; i < 3; ++i) g[9 + i] = a[9 + i] + t[i];
}

void ld_se3_inverse(double g[12], const double a[12]) {
    double t[3];
    ld_m3_transpose(g, a);
    ld_m3_tmulv(t, a, a + 9);
    for (int i = 0; i < 3; ++i) g[9 + i] = -t[i];
}

void ld_se3_exp(double g[12], const double v[6]) {
    ld_fn f;
    ld_fn_eval(&f, sqrt(ld_v3_dot(v, v)), 3);
    ld_m3_rodrigues(g, v, f.a, f.b);
    sdp_exp_translation(g + 9, &f, v);
}

void ld_se3_log(double v[6], const double g[12]) {
    ld_so3_log(v, g);
    sdp_log_translation(v + 3, v, g + 9);
}

void ld_se3_tangent(double T[36], const double v[6]) {
    tangent6(T, v, 1, 0);
}

void ld_se3_tangent_inv(double Ti[36], const double v[6]) {
    tangent6(Ti, v, 1, 1);
}

/* ------------------------------------------------------------------ S³⋉R³ */

void ld_s3sdr3_compose(double g[7], const double a[7], const double b[7]) {
    double t[3];
    ld_quat_rotate(t, a, b + 4);
    ld_quat_mul(g, a, b);
    for (int i = 0; i < 3; ++i) g[4 + i] = a[4 + i] + t[i];
}

void ld_s3sdr3_inverse(double g[7], const double a[7]) {
    double t[3];
    ld_quat_rotate_inv(t, a, a + 4);
    ld_quat_conj(g, a);
    for (int i = 0; i < 3; ++i) g[4 + i] = -t[i];
}

void ld_s3sdr3_exp(double g[7], const double v[6]) {
    ld_fn f;
    ld_fn_eval(&f, sqrt(ld_v3_dot(v, v)), 3);
    ld_s3_exp(g, v);
    sdp_exp_translation(g + 4, &f, v);
}

void ld_s3sdr3_log(double v[6], const double g[7]) {
    ld_s3_log(v, g);
    sdp_log_translation(v + 3, v, g + 4);
}

void ld_s3sdr3_tangent(double T[36], const double v[6]) {
    tangent6(T, v, 1, 0);
}

void ld_s3sdr3_tangent_inv(double Ti[36], const double v[6]) {
    tangent6(Ti, v, 1, 1);
}

/* ------------------------------------------------------------------ R³×SO(3) */

void ld_so3xr3_compose(double g[12], const double a[12], const double b[12]) {
    ld_m3_mul(g, a, b);
    for (int i = 0; i < 3; ++i) g[9 + i] = a[9 + i] + b[9 + i];
}

void ld_so3xr3_inverse(double g[12], const double a[12]) {
    ld_m3_transpose(g, a);
    for (int i = 0; i < 3; ++i) g[9 + i] = -a[9 + i];
}

void ld_so3xr3_exp(double g[12], const double v[6]) {
    ld_so3_exp(g, v);
    memcpy(g + 9, v + 3, 3 * sizeof(double));
}

void ld_so3xr3_log(double v[6], const double g[12]) {
    ld_so3_log(v, g);
    memcpy(v + 3, g + 9, 3 * sizeof(double));
}

void ld_so3xr3_tangent(double T[36], const double v[6]) {
    tangent6(T, v, 0, 0);
}

void ld_so3xr3_tangent_inv(double Ti[36], const double v[6]) {
    tangent6(Ti, v, 0, 1);
}

/* ------------------------------------------------------------------ S³×R³ */

void ld_s3xr3_compose(double g[7], const double a[7], const double b[7]) {
    ld_quat_mul(g, a, b);
    for (int i = 0; i < 3; ++i) g[4 + i] = a[4 + i] + b[4 + i];
}

void ld_s3xr3_inverse(double g[7], const double a[7]) {
    ld_quat_conj(g, a);
    for (int i = 0; i < 3; ++i) g[4 + i] = -a[4 + i];
}

void ld_s3xr3_exp(double g[7], const double v[6]) {
    ld_s3_exp(g, v);
    memcpy(g + 4, v + 3, 3 * sizeof(double));
}

void ld_s3xr3_log(double v[6], const double g[7]) {
    ld_s3_log(v, g);
    memcpy(v + 3, g + 4, 3 * sizeof(double));
}

void ld_s3xr3_tangent(double T[36], const double v[6]) {
    tangent6(T, v, 0, 0);
}

void ld_s3xr3_tangent_inv(double Ti[36], const double v[6]) {
    tangent6(Ti, v, 0, 1);
}

/*
 * Small fixed-size 3-vector / 3×3 kernels shared by the Lie-group modules (internal).
 * Row-major 3×3 matrices; outputs never alias inputs unless stated.
 */
#ifndef LIEDYN_SRC_LIE_MAT3_H
#define LIEDYN_SRC_LIE_MAT3_H

#include <math.h>

#define LD_PI 3.14159265358979323846

/* Eigen-decomposition of the symmetric 3×3 A by cyclic Jacobi rotations to round-off:
 * A = V diag(d) Vᵀ, V orthogonal (its columns the eigenvectors, in no particular order, det ±1).
 * sym3.c. */
void ld_m3_sym_eigen(const double A[9], double V[9], double d[3]);

static inline double ld_v3_dot(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* |v| without spurious under/overflow: rescale only when |v|² leaves the normal range. */
static inline double ld_v3_norm(const double v[3]) {
    double n2 = ld_v3_dot(v, v);
    if (n2 > 1e-290 && n2 < 1e290) return sqrt(n2);
    double m = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    if (!(m > 0.0) || !isfinite(m)) return sqrt(n2); /* 0, inf or NaN: nothing to rescale */
    double u[3] = {v[0] / m, v[1] / m, v[2] / m};
    return m * sqrt(ld_v3_dot(u, u));
}

/* r = a × b; r may not alias a or b. */
static inline void ld_v3_cross(double r[3], const double a[3], const double b[3]) {
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* M = I + α hat(w) + β hat(w)², using hat(w)² = w wᵀ - |w|² I. */
static inline void ld_m3_rodrigues(double M[9], const double w[3], double alpha, double beta) {
    double w2 = ld_v3_dot(w, w);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) M[3 * i + j] = beta * (w[i] * w[j]); /* exactly symmetric */
    for (int i = 0; i < 3; ++i) M[4 * i] += 1.0 - beta * w2;
    M[1] -= alpha * w[2];
    M[2] += alpha * w[1];
    M[3] += alpha * w[2];
    M[5] -= alpha * w[0];
    M[6] -= alpha * w[1];
    M[7] += alpha * w[0];
}

/* r = A v. */
static inline void ld_m3_mulv(double r[3], const double A[9], const double v[3]) {
    for (int i = 0; i < 3; ++i) r[i] = A[3 * i] * v[0] + A[3 * i + 1] * v[1] + A[3 * i + 2] * v[2];
}

/* r = Aᵀ v. */
static inline void ld_m3_tmulv(double r[3], const double A[9], const double v[3]) {
    for (int i = 0; i < 3; ++i) r[i] = A[i] * v[0] + A[3 + i] * v[1] + A[6 + i] * v[2];
}

/* C = A B. */
static inline void ld_m3_mul(double C[9], const double A[9], const double B[9]) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* B = Aᵀ. */
static inline void ld_m3_transpose(double B[9], const double A[9]) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) B[3 * i + j] = A[3 * j + i];
}

/* M = hat(v), the cross-product matrix (M x = v × x): ld_so3_hat, inlined into the products
 * that use it. */
static inline void ld_m3_hat(double M[9], const double v[3]) {
    M[0] = 0.0, M[1] = -v[2], M[2] = v[1];
    M[3] = v[2], M[4] = 0.0, M[5] = -v[0];
    M[6] = -v[1], M[7] = v[0], M[8] = 0.0;
}

/* Write the 3×3 block A into the 6×6 row-major M at block (bi, bj), bi, bj ∈ {0, 1}. */
static inline void ld_m6_set_block(double M[36], int bi, int bj, const double A[9]) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) M[6 * (3 * bi + i) + 3 * bj + j] = A[3 * i + j];
}

/* Cholesky of the symmetric n×n matrix a (row-major, n ≤ 6): are all pivots positive? */
static inline int ld_mat_positive_definite(const double *a, int n) {
    double l[36] = {0};
    if (n < 1 || n > 6) return 0;
    for (int j = 0; j < n; ++j) {
        double d = a[n * j + j];
        for (int k = 0; k < j; ++k) d -= l[n * j + k] * l[n * j + k];
        if (!(d > 0.0)) return 0;
        l[n * j + j] = sqrt(d);
        for (int i = j + 1; i < n; ++i) {
            double s = a[n * i + j];
            for (int k = 0; k < j; ++k) s -= l[n * i + k] * l[n * j + k];
            l[n * i + j] = s / l[n * j + j];
        }
    }
    return 1;
}

#endif

/*
 * Shared test support: a deterministic RNG, the sampling ranges of the identity tests,
 * small matrix helpers and failure reporting. Header-only (static functions).
 */
#ifndef LIEDYN_TESTS_SUPPORT_H
#define LIEDYN_TESTS_SUPPORT_H

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#define EPS      DBL_EPSILON
#define PI       3.14159265358979323846
#define NSAMPLES 10000

/* xoshiro256** seeded by splitmix64: reproducible across machines. */
typedef struct rng {
    uint64_t s[4];
} rng;

static inline uint64_t rng_rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

static inline rng rng_seed(uint64_t seed) {
    rng r;
    for (int i = 0; i < 4; ++i) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        r.s[i] = z ^ (z >> 31);
    }
    return r;
}

static inline uint64_t rng_next(rng *r) {
    uint64_t *s = r->s, res = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return res;
}

/* Uniform in [0, 1). */
static inline double rng_unif(rng *r) {
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static inline double rng_range(rng *r, double a, double b) {
    return a + (b - a) * rng_unif(r);
}

/* Log-uniform in [a, b], 0 < a < b. */
static inline double rng_logrange(rng *r, double a, double b) {
    return exp(rng_range(r, log(a), log(b)));
}

/* Uniformly distributed unit vector. */
static inline void rng_unit3(rng *r, double u[3]) {
    double z = rng_range(r, -1.0, 1.0), t = rng_range(r, 0.0, 2.0 * PI), s = sqrt(1.0 - z * z);
    u[0] = s * cos(t);
    u[1] = s * sin(t);
    u[2] = z;
}

/* The angle ranges of the identity tests. */
enum range { R_TINY, R_NEARPI, R_GENERIC, R_LARGE, R_COUNT };
static const char *const range_name[R_COUNT] = {"tiny [1e-12,1e-2]", "near pi [pi-1e-9,pi]",
                                                "generic (0,pi)", "large [pi,100]"};

static inline double rng_angle(rng *r, enum range k) {
    switch (k) {
    case R_TINY:
        return rng_logrange(r, 1e-12, 1e-2);
    case R_NEARPI:
        return PI - rng_range(r, 0.0, 1e-9);
    case R_GENERIC:
        return rng_range(r, 0.0, PI);
    default:
        return rng_range(r, PI, 100.0);
    }
}

/* Random vector of angle drawn from range k. */
static inline double rng_vec(rng *r, enum range k, double v[3]) {
    double a = rng_angle(r, k);
    rng_unit3(r, v);
    for (int i = 0; i < 3; ++i) v[i] *= a;
    return a;
}

static inline void rng_quat(rng *r, double q[4]) {
    double n = 0.0;
    for (int i = 0; i < 4; ++i) {
        q[i] = rng_range(r, -1.0, 1.0);
        n += q[i] * q[i];
    }
    n = sqrt(n);
    for (int i = 0; i < 4; ++i) q[i] /= n;
}

static inline double maxabs_diff(const double *a, const double *b, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

static inline double maxabs(const double *a, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
    return m;
}

static inline double norm3(const double v[3]) {
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* C = A B for n×n row-major matrices (n <= 6). */
static inline void matmul(double *C, const double *A, const double *B, int n) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k) s += A[n * i + k] * B[n * k + j];
            C[n * i + j] = s;
        }
}

/* max |RᵀR - I| of a 3×3 matrix. */
static inline double orth_error(const double R[9]) {
    double m = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j];
            m = fmax(m, fabs(s - (i == j)));
        }
    return m;
}

static inline double det3(const double R[9]) {
    return R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
           R[2] * (R[3] * R[7] - R[4] * R[6]);
}

/* Track the worst ratio err/tol over a sample set and report it if it exceeds 1. */
typedef struct worst {
    double ratio, err, tol, arg;
    const char *what;
} worst;

static inline void worst_add(worst *w, double err, double tol, double arg) {
    double r = err / tol;
    if (!(r <= w->ratio)) { /* NaN counts as worst */
        w->ratio = isnan(r) ? (double)INFINITY : r;
        w->err = err;
        w->tol = tol;
        w->arg = arg;
    }
}

static inline void worst_check(const worst *w, const char *what, const char *range) {
    if (w->ratio > 1.0)
        fail_msg("%s [%s]: error %.3e > tolerance %.3e (%.1f eps) at argument %.17g", what, range,
                 w->err, w->tol, w->tol / EPS, w->arg);
}

#define WORST_INIT                                                                                 \
    { 0.0, 0.0, 0.0, 0.0, NULL }

#endif

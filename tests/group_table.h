/*
 * The groups of lie.h behind one descriptor, so that the same identity and
 * finite-difference checks run over all of them.
 */
#ifndef LIEDYN_TESTS_GROUP_TABLE_H
#define LIEDYN_TESTS_GROUP_TABLE_H

#include "liedyn/liedyn.h"
#include "support.h"

typedef void (*map_fn)(double *, const double *);
typedef void (*bin_fn)(double *, const double *, const double *);

typedef struct grp {
    const char *name;
    int size, dim; /* element storage and tangent dimension */
    int quat;      /* element starts with a quaternion (log keeps its sign) */
    map_fn exp, log, inverse, tangent, tangent_inv;
    bin_fn compose;
} grp;

static const grp GROUPS[] = {
    {"SO(3)", 9, 3, 0, ld_so3_exp, ld_so3_log, ld_so3_inverse, ld_so3_tangent, ld_so3_tangent_inv,
     ld_so3_compose},
    {"S3", 4, 3, 1, ld_s3_exp, ld_s3_log, ld_quat_conj, ld_so3_tangent, ld_so3_tangent_inv,
     ld_quat_mul},
    {"SE(3)", 12, 6, 0, ld_se3_exp, ld_se3_log, ld_se3_inverse, ld_se3_tangent, ld_se3_tangent_inv,
     ld_se3_compose},
    {"S3 x| R3", 7, 6, 1, ld_s3sdr3_exp, ld_s3sdr3_log, ld_s3sdr3_inverse, ld_s3sdr3_tangent,
     ld_s3sdr3_tangent_inv, ld_s3sdr3_compose},
    {"R3 x SO(3)", 12, 6, 0, ld_so3xr3_exp, ld_so3xr3_log, ld_so3xr3_inverse, ld_so3xr3_tangent,
     ld_so3xr3_tangent_inv, ld_so3xr3_compose},
    {"S3 x R3", 7, 6, 1, ld_s3xr3_exp, ld_s3xr3_log, ld_s3xr3_inverse, ld_s3xr3_tangent,
     ld_s3xr3_tangent_inv, ld_s3xr3_compose},
};

/* Local coordinate of exp(xi + s e_j) seen from exp(xi): log(exp(xi)^-1 exp(xi + s e_j)). */
static inline void fd_local(const grp *G, const double *xi, int j, double s, double *out) {
    double x[6], g0[12], g0i[12], g1[12], d[12];
    for (int k = 0; k < G->dim; ++k) x[k] = xi[k];
    G->exp(g0, x);
    G->inverse(g0i, g0);
    x[j] += s;
    G->exp(g1, x);
    G->compose(d, g0i, g1);
    G->log(out, d);
}

/* Column j of T(xi) by Richardson-extrapolated central differences of exp. */
static inline void fd_tangent_col(const grp *G, const double *xi, int j, double h, double *col) {
    double p[6], m[6], p2[6], m2[6];
    fd_local(G, xi, j, h, p);
    fd_local(G, xi, j, -h, m);
    fd_local(G, xi, j, 0.5 * h, p2);
    fd_local(G, xi, j, -0.5 * h, m2);
    for (int k = 0; k < G->dim; ++k) {
        double d1 = (p[k] - m[k]) / (2.0 * h), d2 = (p2[k] - m2[k]) / h;
        col[k] = (4.0 * d2 - d1) / 3.0;
    }
}

/* max |T(xi) - T_fd(xi)| over all entries. */
static inline double fd_tangent_error(const grp *G, const double *xi) {
    double T[36], col[6], e = 0.0;
    int n = G->dim;
    G->tangent(T, xi);
    for (int j = 0; j < n; ++j) {
        fd_tangent_col(G, xi, j, 1e-3, col);
        for (int k = 0; k < n; ++k) e = fmax(e, fabs(T[n * k + j] - col[k]));
    }
    return e;
}

/* Random tangent vector: rotation angle from range k, translation of norm up to 10. */
static inline double rng_tangent(rng *r, enum range k, const grp *G, double *xi) {
    double a = rng_vec(r, k, xi);
    if (G->dim == 6) {
        double u = rng_range(r, 0.0, 10.0);
        rng_unit3(r, xi + 3);
        for (int i = 3; i < 6; ++i) xi[i] *= u;
    }
    return a;
}

/* Tolerance of the finite-difference checks: Richardson with h = 1e-3 leaves O(h^4)
 * truncation and O(eps |xi| / h) rounding (exp of xi is known to eps |xi|); measured worst
 * cases are ~1600 eps (1 + |xi|). */
#define FD_TOL(xi, n) (1e4 * EPS * (1.0 + fd_norm(xi, n)))

static inline double fd_norm(const double *xi, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += xi[i] * xi[i];
    return sqrt(s);
}

#endif

/*
 * Linearization about a state and elimination of the constraints by a null-space basis
 * (linearize.h). The tangents are the system's own (mass, ∂g/∂v, the stiffness with the
 * state's multipliers), so the linearization is the one every Newton iteration of the
 * integrators uses. Dense: O(k³) for the singular value decomposition of B and the products.
 */
#include "liedyn/linearize.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/linalg.h"
#include "../core/oom.h"

#define DEP_TOL 1e-8 /* a unit row whose part outside the others is below this: dependent */

/* A message into msg (cap bytes; may be NULL); returns rc. */
static int fail(int rc, char *msg, size_t cap, const char *what) {
    if (msg && cap) snprintf(msg, cap, "%s", what);
    return rc;
}

void ld_linear_free(ld_linear *lin) {
    if (!lin) return;
    free(lin->M);
    memset(lin, 0, sizeof *lin);
}

static double maxabs(const double *x, size_t n) {
    double a = 0.0;
    for (size_t i = 0; i < n; ++i) a = fmax(a, fabs(x[i]));
    return a;
}

static int finite(const double *x, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* W (k × k): column j is [v, e_j] (ld_sys_bracket), so that W y = [v, y]. */
static void bracket_matrix(const ld_system *s, const double *v, double *W, double *e, double *r) {
    size_t k = (size_t)s->k;
    memset(e, 0, k * sizeof *e);
    for (size_t j = 0; j < k; ++j) {
        e[j] = 1.0;
        ld_sys_bracket(s, r, v, e);
        for (size_t i = 0; i < k; ++i) W[i * k + j] = r[i];
        e[j] = 0.0;
    }
}

/* X ← X + A W (all k × k); scratch P (k × k). */
static void add_product(double *X, const double *A, const double *W, double *P, size_t k) {
    memset(P, 0, k * k * sizeof *P);
    for (size_t i = 0; i < k; ++i)
        for (size_t l = 0; l < k; ++l) {
            double a = A[i * k + l];
            if (a == 0.0) continue;
            for (size_t j = 0; j < k; ++j) P[i * k + j] += a * W[l * k + j];
        }
    for (size_t i = 0; i < k * k; ++i) X[i] += P[i];
}

/* N: an orthonormal basis of the null space of B (rows scaled to unit length first), by the
 * singular value decomposition; the rank counts the singular values above DEP_TOL times the
 * largest. lin->n and lin->dependent set. Scratch: m·k + k·k + m + m doubles in w. */
static int null_space(ld_linear *lin, double *w, char *msg, size_t cap) {
    size_t k = (size_t)lin->k, m = (size_t)lin->m;
    double *Bs = w, *Vt = Bs + m * k, *sv = Vt + k * k, *sup = sv + m;
    for (size_t r = 0; r < m; ++r) {
        double nrm = 0.0;
        for (size_t j = 0; j < k; ++j) nrm += lin->B[r * k + j] * lin->B[r * k + j];
        nrm = sqrt(nrm);
        for (size_t j = 0; j < k; ++j) Bs[r * k + j] = nrm > 0.0 ? lin->B[r * k + j] / nrm : 0.0;
    }
    lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', (lapack_int)m, (lapack_int)k, Bs,
                                     (lapack_int)k, sv, NULL, 1, Vt, (lapack_int)k, sup);
    if (info != 0)
        return fail(LD_ESINGULAR, msg, cap,
                    "the singular value decomposition of the constraint Jacobian failed");
    size_t rank = 0, mr = m < k ? m : k;
    while (rank < mr && sv[rank] > DEP_TOL * sv[0]) ++rank;
    lin->n = (int)(k - rank);
    lin->dependent = (int)(m - rank);
    size_t n = k - rank;
    for (size_t i = 0; i < k; ++i)
        for (size_t j = 0; j < n; ++j) lin->N[i * n + j] = Vt[(rank + j) * k + i];
    return LD_OK;
}

/* Xr = Nᵀ X N (n × n) with scratch P (k × n). */
static void reduce(const double *X, const double *N, double *Xr, double *P, size_t k, size_t n) {
    memset(P, 0, k * n * sizeof *P);
    for (size_t i = 0; i < k; ++i)
        for (size_t l = 0; l < k; ++l) {
            double x = X[i * k + l];
            if (x == 0.0) continue;
            for (size_t j = 0; j < n; ++j) P[i * n + j] += x * N[l * n + j];
        }
    memset(Xr, 0, n * n * sizeof *Xr);
    for (size_t l = 0; l < k; ++l)
        for (size_t i = 0; i < n; ++i) {
            double t = N[l * n + i];
            if (t == 0.0) continue;
            for (size_t j = 0; j < n; ++j) Xr[i * n + j] += t * P[l * n + j];
        }
}

/* The tangents at the state into lin->M, D, K, B (v: the state's velocity, never NULL). */
static int tangents(const ld_system *s, double t, const double *q, const double *v, ld_linear *lin,
                    char *msg, size_t cap) {
    size_t k = (size_t)s->k, m = (size_t)s->m;
    int rc = ld_sys_initial_accel_msg(s, t, q, v, lin->a, lin->lambda, msg, cap);
    if (rc) return rc;
    lin->accel = maxabs(lin->a, k);
    if ((rc = s->ops.mass(s, q, lin->M))) return fail(rc, msg, cap, "the mass matrix failed");
    if ((rc = ld_sys_g_v(s, t, q, v, lin->D))) return fail(rc, msg, cap, "dg/dv failed");
    if ((rc = ld_sys_stiffness(s, t, q, v, lin->a, lin->lambda, lin->K)))
        return fail(rc, msg, cap, "the stiffness failed");
    if (m > 0 && (rc = s->ops.phi_q(s, t, q, lin->B)))
        return fail(rc, msg, cap, "the constraint Jacobian failed");
    if (!finite(lin->M, k * k) || !finite(lin->D, k * k) || !finite(lin->K, k * k) ||
        !finite(lin->B, m * k))
        return fail(LD_EDOMAIN, msg, cap, "non-finite tangent matrices at the state");
    return LD_OK;
}

/* Carve lin's arrays out of one allocation; the scratch after them in *work. */
/* The doubles of the linearization's one block and of its scratch (for k, m). */
static size_t scratch_doubles(size_t k, size_t m) {
    return m * k + k * k + 2 * m + 3 * k + k * k;
}
static size_t block_doubles(size_t k, size_t m) {
    return 3 * k * k + m * k + k * k + 3 * k * k + k + m + scratch_doubles(k, m) + 1;
}

static int allocate(ld_linear *lin, size_t k, size_t m, double **work, size_t *nwork) {
    size_t scratch = scratch_doubles(k, m), total = block_doubles(k, m);
    double *p = calloc(total, sizeof(double));
    if (!p) return LD_ENOMEM;
    lin->M = p, p += k * k;
    lin->D = p, p += k * k;
    lin->K = p, p += k * k;
    lin->B = p, p += m * k;
    lin->N = p, p += k * k; /* n ≤ k */
    lin->Mr = p, p += k * k;
    lin->Dr = p, p += k * k;
    lin->Kr = p, p += k * k;
    lin->a = p, p += k;
    lin->lambda = p, p += m;
    *work = p;
    *nwork = scratch;
    return LD_OK;
}

/* The asymmetry of X (n × n): max|X − Xᵀ| / max|X|. */
static double asymmetry(const double *X, size_t n) {
    double big = maxabs(X, n * n), d = 0.0;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < i; ++j) d = fmax(d, fabs(X[i * n + j] - X[j * n + i]));
    return big > 0.0 ? d / big : 0.0;
}

int ld_linearize(const ld_system *s, double t, const double *q, const double *v, ld_linear *lin,
                 char *msg, size_t cap) {
    if (msg && cap) msg[0] = '\0';
    if (!s || !q || !lin || s->k < 1 || s->m < 0) return fail(LD_EINVAL, msg, cap, "bad arguments");
    memset(lin, 0, sizeof *lin);
    ld_sys_forget(s);
    size_t k = (size_t)s->k, m = (size_t)s->m, nwork;
    double *w;
    if (allocate(lin, k, m, &w, &nwork)) {
        char what[96];
        snprintf(what, sizeof what, "the linearization (k = %d, m = %d)", s->k, s->m);
        return ld_oom_format(msg, cap, (double)block_doubles(k, m) * (double)sizeof(double), what);
    }
    lin->k = s->k, lin->m = s->m, lin->t = t;
    double *v0 = w; /* k: the state's velocity (0 when NULL) */
    if (v) memcpy(v0, v, k * sizeof *v0);
    lin->moving = maxabs(v0, k) > 0.0;
    int rc = tangents(s, t, q, v0, lin, msg, cap);
    if (!rc && lin->moving) { /* the transport terms of a steady motion: M W, D W */
        double *W = lin->Mr, *P = lin->Kr, *e = v0 + k, *r = e + k;
        bracket_matrix(s, v0, W, e, r);
        memcpy(lin->Dr, lin->D, k * k * sizeof(double)); /* D before M W is added */
        add_product(lin->K, lin->Dr, W, P, k);
        add_product(lin->D, lin->M, W, P, k);
    }
    if (!rc && m > 0) rc = null_space(lin, w, msg, cap);
    if (rc) {
        ld_linear_free(lin);
        return rc;
    }
    size_t n = m > 0 ? (size_t)lin->n : k;
    if (m == 0) { /* N = I */
        lin->n = s->k;
        for (size_t i = 0; i < k; ++i) lin->N[i * k + i] = 1.0;
        memcpy(lin->Mr, lin->M, k * k * sizeof(double));
        memcpy(lin->Dr, lin->D, k * k * sizeof(double));
        memcpy(lin->Kr, lin->K, k * k * sizeof(double));
    } else {
        reduce(lin->M, lin->N, lin->Mr, w, k, n);
        reduce(lin->D, lin->N, lin->Dr, w, k, n);
        reduce(lin->K, lin->N, lin->Kr, w, k, n);
    }
    lin->asym = asymmetry(lin->Kr, n);
    return LD_OK;
}

int ld_linear_state_matrix(const ld_linear *lin, double *A) {
    if (!lin || !A || !lin->Mr || lin->n < 1) return LD_EINVAL;
    size_t n = (size_t)lin->n, n2 = 2 * n;
    ld_la *la = ld_la_create(LD_LA_DENSE, (int)n);
    double *col = malloc(n * sizeof *col);
    int rc = la && col ? ld_la_factor_dense(la, lin->Mr) : LD_ENOMEM;
    memset(A, 0, n2 * n2 * sizeof *A);
    for (size_t i = 0; i < n; ++i) A[i * n2 + n + i] = 1.0;
    for (size_t j = 0; !rc && j < n2; ++j) { /* column j of −Mr⁻¹ [Kr, Dr] */
        const double *X = j < n ? lin->Kr : lin->Dr;
        size_t c = j < n ? j : j - n;
        for (size_t i = 0; i < n; ++i) col[i] = -X[i * n + c];
        rc = ld_la_solve(la, col);
        for (size_t i = 0; !rc && i < n; ++i) A[(n + i) * n2 + j] = col[i];
    }
    ld_la_free(la);
    free(col);
    return rc;
}

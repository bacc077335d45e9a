/*
 * Modes of a linearized system (linearize.h): the undamped ones by the symmetric-definite
 * generalized eigenproblem (dsygv), the damped ones by the first-order pencil (dggev), the
 * shapes mapped back to the full tangent space (N z) and to the bodies' motion.
 */
#include "liedyn/linearize.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "nodes.h"
#include "../core/oom.h"

#define TWO_PI 6.283185307179586476925

static int fail(int rc, char *msg, size_t cap, const char *what) {
    if (msg && cap) snprintf(msg, cap, "%s", what);
    return rc;
}

void ld_modes_free(ld_modes *md) {
    if (!md) return;
    free(md->re);
    memset(md, 0, sizeof *md);
}

/* md's arrays for count modes of a system with n degrees of freedom and k velocities. */
/* Write "out of memory: N bytes for WHAT" into msg; returns LD_ENOMEM. */
static int oom(char *msg, size_t cap, size_t doubles, const char *what) {
    return ld_oom_format(msg, cap, (double)doubles * (double)sizeof(double), what);
}

/* The doubles of count modes of n reduced and k full coordinates. */
static size_t modes_doubles(int count, int n, int k) {
    size_t c = (size_t)count;
    return 6 * c + 2 * c * (size_t)n + 2 * c * (size_t)k + 1;
}

static int modes_alloc(ld_modes *md, int count, int n, int k, int damped) {
    memset(md, 0, sizeof *md);
    size_t c = (size_t)count, total = modes_doubles(count, n, k);
    double *p = calloc(total, sizeof(double));
    if (!p) return LD_ENOMEM;
    md->count = count, md->n = n, md->k = k, md->damped = damped;
    md->re = p, p += c;
    md->im = p, p += c;
    md->omega2 = p, p += c;
    md->hz = p, p += c;
    md->zeta = p, p += c;
    md->noise = p, p += c;
    md->z = p, p += c * (size_t)n;
    md->z_im = p, p += c * (size_t)n;
    md->phi = p, p += c * (size_t)k;
    md->phi_im = p;
    return LD_OK;
}

/* phi = N z (k entries) for the real and the imaginary part of mode j. */
static void map_shape(const ld_linear *lin, ld_modes *md, int j) {
    size_t k = (size_t)lin->k, n = (size_t)lin->n;
    const double *zr = md->z + (size_t)j * n, *zi = md->z_im + (size_t)j * n;
    double *pr = md->phi + (size_t)j * k, *pi = md->phi_im + (size_t)j * k;
    for (size_t i = 0; i < k; ++i) {
        double a = 0.0, b = 0.0;
        for (size_t l = 0; l < n; ++l)
            a += lin->N[i * n + l] * zr[l], b += lin->N[i * n + l] * zi[l];
        pr[i] = a, pi[i] = b;
    }
}

/* Kr and Mr symmetrized into K and M (n × n). */
static void symmetrized(const ld_linear *lin, double *K, double *M) {
    size_t n = (size_t)lin->n;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
            K[i * n + j] = 0.5 * (lin->Kr[i * n + j] + lin->Kr[j * n + i]);
            M[i * n + j] = 0.5 * (lin->Mr[i * n + j] + lin->Mr[j * n + i]);
        }
}

/* The eigenvalues w (ascending) and Mr-orthonormal vectors (columns of V) of K z = ω² M z,
 * directly (dsygv): the lowest ones carry an absolute error of about ε ω²_max, which is large
 * against them when the spectrum is wide (a beam's shear and rotary modes). LAPACK's info. */
static lapack_int direct(const ld_linear *lin, double *V, double *S, double *w) {
    size_t n = (size_t)lin->n;
    symmetrized(lin, V, S);
    return LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', (lapack_int)n, V, (lapack_int)n, S,
                         (lapack_int)n, w);
}

/* The same by a shift below the spectrum: M z = μ (K − σ M) z, ω² = σ + 1/μ, so that the
 * lowest modes are the largest μ and come to relative accuracy ε (K − σ M positive definite;
 * info ≠ 0 otherwise). w ascending, V's columns Mr-orthonormal. */
static lapack_int shifted(const ld_linear *lin, double sigma, double *V, double *S, double *w) {
    size_t n = (size_t)lin->n;
    symmetrized(lin, S, V); /* S = K, V = M */
    for (size_t i = 0; i < n * n; ++i) S[i] -= sigma * V[i];
    lapack_int info = LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', (lapack_int)n, V, (lapack_int)n,
                                    S, (lapack_int)n, w);
    if (info != 0) return info;
    for (size_t j = 0; j < n / 2; ++j) { /* descending μ: ascending ω² */
        double t = w[j];
        w[j] = w[n - 1 - j], w[n - 1 - j] = t;
        for (size_t i = 0; i < n; ++i) {
            t = V[i * n + j];
            V[i * n + j] = V[i * n + n - 1 - j], V[i * n + n - 1 - j] = t;
        }
    }
    for (size_t j = 0; j < n; ++j) { /* zᵀ (K − σM) z = 1, so zᵀ M z = μ: scale by 1/√μ */
        if (!(w[j] > 0.0)) return -1;
        double sc = 1.0 / sqrt(w[j]);
        for (size_t i = 0; i < n; ++i) V[i * n + j] *= sc;
        w[j] = sigma + 1.0 / w[j];
    }
    return 0;
}

/* The rounding level of ω² = zᵀ Kr z: 100 ε (|z|ᵀ |Kr| |z| + |σ|), σ the solver's shift (its
 * own rounding; the largest |ω²| for the direct solve). */
static double rounding(const ld_linear *lin, const double *z, double sigma) {
    size_t n = (size_t)lin->n;
    double acc = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double row = 0.0;
        for (size_t l = 0; l < n; ++l) row += fabs(lin->Kr[i * n + l]) * fabs(z[l]);
        acc += fabs(z[i]) * row;
    }
    return 100.0 * 2.220446049250313e-16 * (acc + fabs(sigma));
}

int ld_modes_undamped(const ld_linear *lin, int count, ld_modes *md, char *msg, size_t cap) {
    if (msg && cap) msg[0] = '\0';
    if (!lin || !md || !lin->Kr || lin->n < 1) return fail(LD_EINVAL, msg, cap, "bad arguments");
    size_t n = (size_t)lin->n;
    if (count <= 0 || count > lin->n) count = lin->n;
    double *V = malloc((2 * n * n + 2 * n) * sizeof *V), *S = V ? V + n * n : NULL;
    double *w = S ? S + n * n : NULL, *w1 = w ? w + n : NULL;
    if (!V) return oom(msg, cap, 2 * n * n + 2 * n, "the eigensolver's matrices");
    if (modes_alloc(md, count, lin->n, lin->k, 0)) {
        free(V);
        return oom(msg, cap, modes_doubles(count, lin->n, lin->k), "the modes");
    }
    lapack_int info = direct(lin, V, S, w);
    if (info != 0) {
        free(V);
        ld_modes_free(md);
        return fail(LD_ESINGULAR, msg, cap,
                    info > (lapack_int)n ? "the reduced mass matrix is not positive definite (a "
                                           "direction without inertia)"
                                         : "the symmetric eigensolver did not converge");
    }
    /* refine: a shift below the lowest eigenvalue by its size or by the direct solve's noise */
    double noise = 1e3 * 2.220446049250313e-16 * fmax(fabs(w[0]), fabs(w[n - 1]));
    double sigma = w[0] - fmax(fabs(w[0]), noise);
    memcpy(w1, w, n * sizeof *w);
    double *V1 = malloc(n * n * sizeof *V1);
    if (V1) memcpy(V1, V, n * n * sizeof *V1);
    if (!V1 || shifted(lin, sigma, V, S, w) != 0) { /* keep the direct solution */
        if (V1) memcpy(V, V1, n * n * sizeof *V);
        memcpy(w, w1, n * sizeof *w);
        sigma = fmax(fabs(w[0]), fabs(w[n - 1]));
    }
    free(V1);
    for (int j = 0; j < count; ++j) { /* eigenvector j: column j of V */
        double w2 = w[j], big = 0.0;
        md->omega2[j] = w2;
        md->re[j] = w2 < 0.0 ? sqrt(-w2) : 0.0;
        md->im[j] = w2 > 0.0 ? sqrt(w2) : 0.0;
        md->hz[j] = sqrt(fabs(w2)) / TWO_PI;
        md->zeta[j] = w2 < 0.0 ? -1.0 : 0.0;
        for (size_t i = 0; i < n; ++i) md->z[(size_t)j * n + i] = V[i * n + (size_t)j];
        md->noise[j] = rounding(lin, md->z + (size_t)j * n, sigma);
        map_shape(lin, md, j);
        double *pr = md->phi + (size_t)j * (size_t)lin->k;
        for (int i = 0; i < lin->k; ++i)
            if (fabs(pr[i]) > fabs(big)) big = pr[i];
        if (big < 0.0) { /* the largest entry positive */
            for (size_t i = 0; i < n; ++i) md->z[(size_t)j * n + i] *= -1.0;
            for (int i = 0; i < lin->k; ++i) pr[i] *= -1.0;
        }
    }
    free(V);
    return LD_OK;
}

/* One eigenvalue of the pencil: its index in LAPACK's order and s. */
typedef struct eig {
    int idx, pair; /* pair: 1 when idx, idx + 1 are a complex-conjugate pair */
    double re, im, mag;
} eig;

static int by_magnitude(const void *a, const void *b) {
    const eig *x = a, *y = b;
    if (x->mag != y->mag) return x->mag < y->mag ? -1 : 1;
    return x->idx - y->idx;
}

/* The pencil A x = s E x of the reduced system in first-order form, x = (z, ż). */
static void pencil(const ld_linear *lin, double *A, double *E) {
    size_t n = (size_t)lin->n, n2 = 2 * n;
    memset(A, 0, n2 * n2 * sizeof *A);
    memset(E, 0, n2 * n2 * sizeof *E);
    for (size_t i = 0; i < n; ++i) {
        A[i * n2 + n + i] = 1.0;
        E[i * n2 + i] = 1.0;
        for (size_t j = 0; j < n; ++j) {
            A[(n + i) * n2 + j] = -lin->Kr[i * n + j];
            A[(n + i) * n2 + n + j] = -lin->Dr[i * n + j];
            E[(n + i) * n2 + n + j] = lin->Mr[i * n + j];
        }
    }
}

/* Mode j from eigenvector column c (and c + 1 for the imaginary part) of VR (2n × 2n): the z
 * part, scaled so that the largest |entry| of N z is 1 and real. */
static void damped_shape(const ld_linear *lin, ld_modes *md, int j, const double *VR, int c,
                         int pair) {
    size_t n = (size_t)lin->n, n2 = 2 * n, k = (size_t)lin->k;
    double *zr = md->z + (size_t)j * n, *zi = md->z_im + (size_t)j * n;
    for (size_t i = 0; i < n; ++i) {
        zr[i] = VR[i * n2 + (size_t)c];
        zi[i] = pair ? VR[i * n2 + (size_t)c + 1] : 0.0;
    }
    map_shape(lin, md, j);
    double *pr = md->phi + (size_t)j * k, *pi = md->phi_im + (size_t)j * k, br = 0.0, bi = 0.0;
    for (size_t i = 0; i < k; ++i)
        if (hypot(pr[i], pi[i]) > hypot(br, bi)) br = pr[i], bi = pi[i];
    double d = br * br + bi * bi; /* multiply by 1 / (br + i bi) */
    if (d == 0.0) return;
    double cr = br / d, ci = -bi / d;
    for (size_t i = 0; i < n; ++i) {
        double a = zr[i], b = zi[i];
        zr[i] = a * cr - b * ci, zi[i] = a * ci + b * cr;
    }
    map_shape(lin, md, j);
}

/* The finite eigenvalues of the pencil, one of each conjugate pair, sorted by |s|, into e;
 * their number. */
static int collect(const double *ar, const double *ai, const double *be, int n2, eig *e) {
    int ne = 0;
    for (int i = 0; i < n2; ++i) {
        double scale = fmax(fabs(ar[i]), fabs(ai[i]));
        int pair = ai[i] != 0.0 && i + 1 < n2;
        if (!(fabs(be[i]) > 1e-13 * scale) || !isfinite(ar[i] / be[i])) { /* infinite */
            i += pair;
            continue;
        }
        double re = ar[i] / be[i], im = ai[i] / be[i];
        e[ne].idx = i, e[ne].pair = pair, e[ne].re = re, e[ne].im = fabs(im);
        e[ne].mag = hypot(re, im);
        ++ne;
        i += pair; /* the conjugate follows */
    }
    qsort(e, (size_t)ne, sizeof *e, by_magnitude);
    return ne;
}

int ld_modes_damped(const ld_linear *lin, int count, ld_modes *md, char *msg, size_t cap) {
    if (msg && cap) msg[0] = '\0';
    if (!lin || !md || !lin->Kr || lin->n < 1) return fail(LD_EINVAL, msg, cap, "bad arguments");
    size_t n2 = 2 * (size_t)lin->n;
    double *A = malloc((3 * n2 * n2 + 3 * n2) * sizeof *A);
    eig *e = malloc(n2 * sizeof *e);
    if (!A || !e) {
        free(A);
        free(e);
        return !A ? oom(msg, cap, 3 * n2 * n2 + 3 * n2, "the eigensolver's pencil")
                  : oom(msg, cap, n2 * sizeof *e / sizeof(double) + 1, "the eigenvalues");
    }
    double *E = A + n2 * n2, *VR = E + n2 * n2, *ar = VR + n2 * n2, *ai = ar + n2, *be = ai + n2;
    pencil(lin, A, E);
    lapack_int info = LAPACKE_dggev(LAPACK_ROW_MAJOR, 'N', 'V', (lapack_int)n2, A, (lapack_int)n2,
                                    E, (lapack_int)n2, ar, ai, be, NULL, 1, VR, (lapack_int)n2);
    int rc = info != 0 ? LD_ESINGULAR : LD_OK, ne = 0;
    if (!rc) ne = collect(ar, ai, be, (int)n2, e);
    if (!rc && ne == 0) rc = LD_ESINGULAR;
    if (count <= 0 || count > ne) count = ne;
    if (!rc && modes_alloc(md, count, lin->n, lin->k, 1)) rc = LD_ENOMEM;
    for (int j = 0; !rc && j < count; ++j) {
        md->re[j] = e[j].re, md->im[j] = e[j].im, md->omega2[j] = NAN;
        md->hz[j] = e[j].mag / TWO_PI;
        md->zeta[j] = e[j].mag > 0.0 ? 0.0 - e[j].re / e[j].mag : 0.0; /* never −0 */
        damped_shape(lin, md, j, VR, e[j].idx, e[j].pair);
    }
    free(A);
    free(e);
    if (rc == LD_ESINGULAR)
        fail(rc, msg, cap, "the generalized eigensolver failed or found no finite eigenvalue");
    else if (rc)
        oom(msg, cap, modes_doubles(count, lin->n, lin->k), "the modes");
    return rc;
}

int ld_modes_body_shape(const ld_system *s, const double *q, const double *phi, int body,
                        double dx[3], double dth[3]) {
    if (!s || !q || !phi || !dx || !dth || body < 0) return LD_EINVAL;
    size_t k = (size_t)s->k, nq = (size_t)s->nq;
    double big = 0.0;
    for (size_t i = 0; i < k; ++i) big = fmax(big, fabs(phi[i]));
    for (int i = 0; i < 3; ++i) dx[i] = dth[i] = 0.0;
    if (big == 0.0) return LD_OK;
    if (body >= s->nnodes) return LD_EINVAL;
    /* the body's state reads its own node only (a body is node `body`): retract that node, so
     * that the shapes of all bodies cost O(k) each, not O(k) per body (a 10⁴-body chain) */
    const ld_node *nd = &s->nodes[body];
    size_t nv = (size_t)ld_node_nv(nd), qo = (size_t)nd->qoff, vo = (size_t)nd->voff;
    double eps = 1e-6 / big,
           *buf = ld_xcalloc(2 * nq + k + nv, sizeof *buf, "a mode's body motion");
    if (!buf) return LD_ENOMEM;
    double *qp = buf, *qm = qp + nq, *v = qm + nq, *xi = v + k;
    for (size_t i = 0; i < nv; ++i) xi[i] = eps * phi[vo + i];
    ld_node_retract(nd, qp + qo, q + qo, xi);
    for (size_t i = 0; i < nv; ++i) xi[i] = -eps * phi[vo + i];
    ld_node_retract(nd, qm + qo, q + qo, xi);
    double xp[3], xm[3], up[4], um[4], om[3], xd[3];
    int rc = ld_model_body_state(s, body, qp, v, xp, up, om, xd);
    if (!rc) rc = ld_model_body_state(s, body, qm, v, xm, um, om, xd);
    free(buf);
    if (rc) return rc;
    /* the spatial rotation from qm to qp: up ⊗ conj(um), as a rotation vector over 2ε */
    double c[4] = {um[0], -um[1], -um[2], -um[3]}, r[4], rv[3];
    ld_quat_mul(r, up, c);
    ld_quat_to_rotvec(rv, r);
    for (int i = 0; i < 3; ++i) {
        dx[i] = (xp[i] - xm[i]) / (2.0 * eps);
        dth[i] = rv[i] / (2.0 * eps);
    }
    return LD_OK;
}

/*
 * The lowest undamped modes of a large system on the sparse path (linearize.h): the saddle-point
 * matrix [K − σM, Bᵀ; B, 0] assembled from the system's node blocks (ops.tangent_blocks, K with
 * the state's accelerations and multipliers) and the values of B in its pattern
 * (ops.phi_q_sparse) into a compressed-column pattern, factored once by KLU, and subspace
 * iteration (Bathe & Wilson 1972) on the shift-inverted constrained pencil with a Rayleigh–Ritz
 * step in each iteration. Each solve [K − σM, Bᵀ; B, 0] [x; μ] = [M y; 0] gives x in the null
 * space of B: x = N (Nᵀ (K − σM) N)⁻¹ Nᵀ M y for any basis N of it, the shift-inverted reduced
 * pencil of the dense path, without N. Without constraint rows the matrix is K − σM alone.
 * Memory O(nnz + (k + m) + k q) for q iteration vectors; no k × k array.
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/linalg.h"
#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "nodes.h"
#include "saddle.h"
#include "../core/oom.h"

#define TWO_PI   6.283185307179586476925
#define MAX_ITER 200
#define TOL      1e-13 /* relative change of the wanted eigenvalues that ends the iteration */
#define ROUND    1e-11 /* ... or below this, when it has stopped falling (round-off) */
#define STALL    3     /* for this many iterations */

static int fail(int rc, char *msg, size_t cap, const char *what) {
    if (msg && cap) snprintf(msg, cap, "%s", what);
    return rc;
}

/* The work of one solve. */
typedef struct sp {
    const ld_system *s;
    size_t k, m, q, nmb, nval, nb;
    size_t bytes; /* what sp_alloc asks for (besides the sparse solver) */
    int *colptr, *rowind;
    int *map;                /* block value e → its CSC entry; then B's entry e → B's, Bᵀ's */
    double *vals, *csc, *Mb; /* block values, CSC values, mass blocks */
    double *Tb, *Bv;         /* identity node blocks (T = I), B's values */
    double *a, *lam, *zero;  /* the state's accelerations and multipliers; k zeros (v) */
    double *X, *Y, *Z, *Kp, *Mp, *th, *th0, *col;
    ld_la *la;
} sp;

static void sp_free(sp *w) {
    free(w->colptr);
    free(w->rowind);
    free(w->map);
    free(w->vals);
    ld_la_free(w->la);
}

/* The CSC pattern of the saddle matrix (saddle.h). LD_OK or LD_ENOMEM. */
static void pattern(sp *w) {
    ld_saddle_count(w->s, NULL, w->colptr);
    ld_saddle_fill(w->s, NULL, w->colptr, w->colptr + w->k + w->m + 1, w->rowind, w->map,
                   w->map + w->nval, w->map + w->nval + w->nb);
}

/* The work for q iteration vectors, carved out of one block, and the pattern. LD_OK or
 * LD_ENOMEM (w->bytes then says how much was asked for; sp_free releases what was had). */
static int sp_alloc(sp *w, const ld_system *s, size_t q) {
    memset(w, 0, sizeof *w);
    w->s = s, w->k = (size_t)s->k, w->m = (size_t)s->m, w->q = q;
    w->nval = s->blk_off[s->nblk], w->nmb = ld_sys_mass_block_entries(s);
    w->nb = w->m > 0 ? (size_t)s->bnnz : 0;
    size_t k = w->k, m = w->m, nnz = w->nval + 2 * w->nb;
    w->colptr = ld_xmalloc((2 * (k + m) + 1) * sizeof(int), "the sparse modes' pattern");
    w->rowind = ld_xmalloc((nnz + 1) * sizeof(int), "the sparse modes' pattern");
    w->map = ld_xmalloc((nnz + 1) * sizeof(int), "the sparse modes' pattern");
    size_t nd =
        w->nval + nnz + 2 * w->nmb + w->nb + 2 * k + m + 3 * k * q + 2 * q * q + 2 * q + (k + m);
    w->bytes =
        (2 * (k + m) + 1) * sizeof(int) + (nnz + 1) * (2 * sizeof(int)) + nd * sizeof(double);
    w->vals = ld_xcalloc(nd, sizeof(double), "the sparse modes' work");
    w->la = ld_la_create(LD_LA_KLU, (int)(k + m));
    if (!w->colptr || !w->rowind || !w->map || !w->vals || !w->la) return LD_ENOMEM;
    double *p = w->vals + w->nval;
    w->csc = p, p += nnz;
    w->Mb = p, p += w->nmb;
    w->Tb = p, p += w->nmb;
    w->Bv = p, p += w->nb;
    w->a = p, p += k;
    w->lam = p, p += m;
    w->zero = p, p += k;
    w->X = p, p += k * q;
    w->Y = p, p += k * q;
    w->Z = p, p += k * q;
    w->Kp = p, p += q * q;
    w->Mp = p, p += q * q;
    w->th = p, p += q;
    w->th0 = p, p += q;
    w->col = p;
    pattern(w);
    return LD_OK;
}

/* y = M x for the q columns of X (k × q, row-major), by the mass blocks. */
static void mass_times(const sp *w, const double *X, double *Y) {
    const ld_system *s = w->s;
    size_t q = w->q, off = 0;
    memset(Y, 0, w->k * q * sizeof *Y);
    for (int i = 0; i < s->nnodes; ++i) {
        size_t nv = (size_t)ld_node_nv(&s->nodes[i]), v0 = (size_t)s->nodes[i].voff;
        const double *B = w->Mb + off;
        for (size_t r = 0; r < nv; ++r)
            for (size_t c = 0; c < nv; ++c)
                for (size_t j = 0; j < q; ++j)
                    Y[(v0 + r) * q + j] += B[r * nv + c] * X[(v0 + c) * q + j];
        off += nv * nv;
    }
}

/* A = Xᵀ Y (q × q) for X, Y k × q. */
static void inner(const sp *w, const double *X, const double *Y, double *A) {
    size_t q = w->q;
    memset(A, 0, q * q * sizeof *A);
    for (size_t l = 0; l < w->k; ++l)
        for (size_t i = 0; i < q; ++i) {
            double x = X[l * q + i];
            for (size_t j = 0; j < q; ++j) A[i * q + j] += x * Y[l * q + j];
        }
    for (size_t i = 0; i < q; ++i) /* symmetric up to round-off */
        for (size_t j = 0; j < i; ++j)
            A[i * q + j] = A[j * q + i] = 0.5 * (A[i * q + j] + A[j * q + i]);
}

/* The state's accelerations and multipliers (ld_sys_initial_accel, sparse when large): K is
 * the dense path's, ∂/∂q [M a + g + Bᵀλ] at them (the constraints' curvature weighted by the
 * static reactions). */
static int multipliers(sp *w, double t, const double *q, char *msg, size_t cap) {
    char why[256] = "";
    int rc = ld_sys_initial_accel_msg(w->s, t, q, w->zero, w->a, w->lam, why, sizeof why);
    if (!rc || !msg || !cap) return rc;
    if (rc == LD_ESINGULAR && w->m > 0)
        snprintf(msg, cap,
                 "no unique multipliers at the state: dependent constraint rows (a model "
                 "compiled with keep_redundant, or a singular position) (%s)",
                 why);
    else
        snprintf(msg, cap, "no accelerations at the state: %s", why[0] ? why : ld_strerror(rc));
    return rc;
}

/* [K − σM, Bᵀ; B, 0] into the CSC values and factor it; the mass blocks into Mb. */
static int factor(sp *w, double t, const double *q, double sigma, char *msg, size_t cap) {
    const ld_system *s = w->s;
    ld_saddle_identity_blocks(s, w->Tb);
    int rc =
        s->ops.tangent_blocks(s, t, q, w->zero, w->a, w->lam, -sigma, 0.0, 1.0, w->Tb, w->vals);
    if (!rc) rc = s->ops.mass_blocks(s, q, w->Mb);
    if (!rc && w->m > 0) rc = s->ops.phi_q_sparse(s, t, q, w->Bv);
    if (rc) return fail(rc, msg, cap, "the tangent blocks failed");
    for (size_t e = 0; e < w->nval; ++e) w->csc[w->map[e]] = w->vals[e];
    for (size_t e = 0; e < w->nb; ++e)
        w->csc[w->map[w->nval + e]] = w->csc[w->map[w->nval + w->nb + e]] = w->Bv[e];
    for (size_t e = 0; e < w->nval + 2 * w->nb; ++e)
        if (!isfinite(w->csc[e]))
            return fail(LD_EDOMAIN, msg, cap, "non-finite tangents at the state");
    rc = ld_la_factor_csc(w->la, w->colptr, w->rowind, w->csc);
    if (rc == LD_ESINGULAR)
        return fail(rc, msg, cap,
                    w->m > 0 ? "the saddle matrix [K - sigma M, B^T; B, 0] is singular: the shift "
                               "is an eigenvalue (choose another) or the constraint rows are "
                               "dependent"
                             : "K - sigma M is singular: choose another shift");
    return rc ? fail(rc, msg, cap, "the sparse factorization failed") : LD_OK;
}

/* One step: Y = M X, Z the x of [K − σM, Bᵀ; B, 0] [x; μ] = [Y; 0] (in the null space of B),
 * Rayleigh–Ritz on Z; X ← Z C, th the Ritz values (ω² − σ, ascending). Zᵀ (K − σM) Z = Zᵀ Y,
 * the Bᵀμ part vanishing against B Z = 0. */
static int iterate(sp *w) {
    size_t k = w->k, q = w->q;
    mass_times(w, w->X, w->Y);
    for (size_t j = 0; j < q; ++j) {
        for (size_t l = 0; l < k; ++l) w->col[l] = w->Y[l * q + j];
        memset(w->col + k, 0, w->m * sizeof *w->col);
        int rc = ld_la_solve(w->la, w->col);
        if (rc) return rc;
        for (size_t l = 0; l < k; ++l) w->Z[l * q + j] = w->col[l];
    }
    inner(w, w->Z, w->Y, w->Kp); /* Zᵀ (K − σM) Z = Zᵀ Y */
    mass_times(w, w->Z, w->Y);
    inner(w, w->Z, w->Y, w->Mp); /* Zᵀ M Z */
    if (LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', (lapack_int)q, w->Kp, (lapack_int)q, w->Mp,
                      (lapack_int)q, w->th) != 0)
        return LD_ESINGULAR;
    memset(w->X, 0, k * q * sizeof *w->X);
    for (size_t l = 0; l < k; ++l)
        for (size_t i = 0; i < q; ++i) {
            double z = w->Z[l * q + i];
            for (size_t j = 0; j < q; ++j) w->X[l * q + j] += z * w->Kp[i * q + j];
        }
    return LD_OK;
}

/* Deterministic start vectors: a pseudo-random sequence (splitmix64). */
static void start(sp *w) {
    unsigned long long x = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < w->k * w->q; ++i) {
        unsigned long long z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        w->X[i] = (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53 - 0.5;
    }
}

/* The modes from the converged Ritz vectors. */
static int fill(const sp *w, int count, double sigma, ld_modes *md) {
    size_t k = w->k, q = w->q;
    memset(md, 0, sizeof *md);
    size_t c = (size_t)count;
    double *p = calloc(6 * c + 4 * c * k + 1, sizeof(double));
    if (!p) return LD_ENOMEM;
    md->count = count, md->k = md->n = (int)k;
    md->re = p, p += c;
    md->im = p, p += c;
    md->omega2 = p, p += c;
    md->hz = p, p += c;
    md->zeta = p, p += c;
    md->noise = p, p += c;
    md->z = p, p += c * k;
    md->z_im = p, p += c * k;
    md->phi = p, p += c * k;
    md->phi_im = p;
    for (size_t j = 0; j < c; ++j) {
        double w2 = sigma + w->th[j], big = 0.0;
        md->omega2[j] = w2;
        md->re[j] = w2 < 0.0 ? sqrt(-w2) : 0.0;
        md->im[j] = w2 > 0.0 ? sqrt(w2) : 0.0;
        md->hz[j] = sqrt(fabs(w2)) / TWO_PI;
        md->zeta[j] = w2 < 0.0 ? -1.0 : 0.0;
        md->noise[j] = 100.0 * 2.220446049250313e-16 * (fabs(w->th[j]) + fabs(sigma));
        for (size_t l = 0; l < k; ++l)
            if (fabs(w->X[l * q + j]) > fabs(big)) big = w->X[l * q + j];
        double sg = big < 0.0 ? -1.0 : 1.0;
        for (size_t l = 0; l < k; ++l) md->z[j * k + l] = md->phi[j * k + l] = sg * w->X[l * q + j];
    }
    return LD_OK;
}

/* The iteration from the start vectors until the wanted Ritz values settle. */
static int solve(sp *w, int count, char *msg, size_t cap) {
    start(w);
    int it = 0, flat = 0, rc = LD_OK; /* flat: iterations without a smaller change */
    double change = INFINITY, best = INFINITY;
    for (; !rc && it < MAX_ITER && change > TOL && flat < STALL; ++it) {
        memcpy(w->th0, w->th, w->q * sizeof(double));
        rc = iterate(w);
        change = 0.0;
        for (int j = 0; !rc && j < count; ++j)
            change = fmax(change, fabs(w->th[j] - w->th0[j]) / fmax(fabs(w->th[j]), 1e-300));
        if (it == 0) change = INFINITY;
        /* at round-off the change stops falling: stop there once it is below ROUND */
        flat = change < best ? 0 : (change < ROUND ? flat + 1 : 0);
        best = fmin(best, change);
    }
    if (!rc && it >= MAX_ITER)
        return fail(LD_EDOMAIN, msg, cap, "the subspace iteration did not converge");
    if (rc) return fail(rc, msg, cap, "the subspace iteration failed");
    return LD_OK;
}

int ld_modes_sparse(const ld_system *s, double t, const double *q, int count, double sigma,
                    ld_modes *md, char *msg, size_t cap) {
    if (msg && cap) msg[0] = '\0';
    if (!s || !q || !md || count < 1 || s->m < 0 || !isfinite(sigma))
        return fail(LD_EINVAL, msg, cap, "bad arguments");
    if (s->m >= s->k)
        return fail(LD_EINVAL, msg, cap,
                    "as many constraint rows as velocities or more: no motion, or dependent "
                    "constraint rows (a model compiled with keep_redundant)");
    if (count > s->k - s->m)
        return fail(LD_EINVAL, msg, cap, "more modes asked for than degrees of freedom (k - m)");
    if (!ld_sys_has_blocks(s))
        return fail(LD_ENOTSUPPORTED, msg, cap,
                    "the system has no sparse tangent blocks (the euler formulation): use the "
                    "dense path");
    size_t n = (size_t)(s->k - s->m); /* the degrees of freedom: B has full rank (checked) */
    size_t nq = (size_t)count + 8 < 2 * (size_t)count ? 2 * (size_t)count : (size_t)count + 8;
    if (nq > n) nq = n;
    sp w;
    int rc = sp_alloc(&w, s, nq);
    if (rc) {
        char what[112];
        snprintf(what, sizeof what,
                 "the sparse eigensolver's work (k = %d, m = %d), or its sparse solver", s->k,
                 s->m);
        ld_oom_format(msg, cap, (double)w.bytes, what);
        sp_free(&w);
        return rc;
    }
    ld_sys_forget(s);
    rc = multipliers(&w, t, q, msg, cap);
    if (!rc) rc = factor(&w, t, q, sigma, msg, cap);
    if (!rc) rc = solve(&w, count, msg, cap);
    if (!rc) rc = fill(&w, count, sigma, md);
    sp_free(&w);
    return rc;
}

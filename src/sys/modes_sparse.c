/*
 * The lowest undamped modes of a large system without constraints (a beam) on the sparse path
 * (linearize.h): K − σM assembled from the system's node blocks (ops.tangent_blocks) into a
 * compressed-column pattern, factored once by KLU, and subspace iteration (Bathe & Wilson
 * 1972) on the shift-inverted pencil with a Rayleigh–Ritz step in each iteration. Memory
 * O(nnz + k q) for q iteration vectors; no k × k array.
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
    size_t k, q, nmb, nval;
    size_t bytes; /* what sp_alloc asks for (besides the sparse solver) */
    int *colptr, *rowind;
    size_t *map;             /* block value e → its CSC entry */
    double *vals, *csc, *Mb; /* block values, CSC values, mass blocks */
    double *X, *Y, *Z, *Kp, *Mp, *th, *th0;
    ld_la *la;
} sp;

static void sp_free(sp *w) {
    free(w->colptr);
    free(w->rowind);
    free(w->map);
    free(w->vals);
    ld_la_free(w->la);
}

/* The CSC pattern of the tangent blocks: a node column holds its blocks in row-node order (the
 * blocks are sorted by column node, then row node, and voff grows with the node). */
static void pattern(sp *w) {
    const ld_system *s = w->s;
    memset(w->colptr, 0, (w->k + 1) * sizeof(int));
    for (int b = 0; b < s->nblk; ++b) {
        const ld_node *c = &s->nodes[s->blk_col[b]];
        int nr = ld_node_nv(&s->nodes[s->blk_row[b]]);
        for (int j = 0, nc = ld_node_nv(c); j < nc; ++j) w->colptr[c->voff + j + 1] += nr;
    }
    for (size_t j = 0; j < w->k; ++j) w->colptr[j + 1] += w->colptr[j];
    int *next = malloc(w->k * sizeof *next);
    memcpy(next, w->colptr, w->k * sizeof *next);
    for (int b = 0; b < s->nblk; ++b) {
        const ld_node *r = &s->nodes[s->blk_row[b]], *c = &s->nodes[s->blk_col[b]];
        int nr = ld_node_nv(r), nc = ld_node_nv(c);
        for (int j = 0; j < nc; ++j)
            for (int i = 0; i < nr; ++i) {
                int p = next[c->voff + j]++;
                w->rowind[p] = r->voff + i;
                w->map[s->blk_off[b] + (size_t)(i * nc + j)] = (size_t)p;
            }
    }
    free(next);
}

static int sp_alloc(sp *w, const ld_system *s, size_t q) {
    memset(w, 0, sizeof *w);
    w->s = s, w->k = (size_t)s->k, w->q = q;
    w->nval = s->blk_off[s->nblk], w->nmb = ld_sys_mass_block_entries(s);
    size_t k = w->k;
    w->colptr = malloc((k + 1) * sizeof(int));
    w->rowind = malloc((w->nval + 1) * sizeof(int));
    w->map = malloc((w->nval + 1) * sizeof(size_t));
    size_t nd = 2 * w->nval + 2 * w->nmb + 3 * k * q + 2 * q * q + 2 * q + 2 * k;
    w->bytes = (k + 1) * sizeof(int) + (w->nval + 1) * (sizeof(int) + sizeof(size_t)) +
               nd * sizeof(double);
    w->vals = calloc(nd, sizeof(double));
    w->la = ld_la_create(LD_LA_KLU, (int)k);
    if (!w->colptr || !w->rowind || !w->map || !w->vals || !w->la) return LD_ENOMEM;
    double *p = w->vals + w->nval;
    w->csc = p, p += w->nval;
    w->Mb = p, p += w->nmb;
    w->X = p, p += k * q;
    w->Y = p, p += k * q;
    w->Z = p, p += k * q;
    w->Kp = p, p += q * q;
    w->Mp = p, p += q * q;
    w->th = p, p += q;
    w->th0 = p;
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

/* K − σM into the CSC values and factor it; the mass blocks into Mb. */
static int factor(sp *w, double t, const double *q, double sigma, char *msg, size_t cap) {
    const ld_system *s = w->s;
    double *Tb = w->X, *zero = w->th0 + w->q; /* identity node blocks (scratch), k zeros */
    memset(Tb, 0, w->nmb * sizeof *Tb);
    for (int i = 0, off = 0; i < s->nnodes; ++i) {
        int nv = ld_node_nv(&s->nodes[i]);
        for (int r = 0; r < nv; ++r) Tb[off + r * nv + r] = 1.0;
        off += nv * nv;
    }
    int rc = s->ops.tangent_blocks(s, t, q, zero, zero, zero, -sigma, 0.0, 1.0, Tb, w->vals);
    if (!rc) rc = s->ops.mass_blocks(s, q, w->Mb);
    if (rc) return fail(rc, msg, cap, "the tangent blocks failed");
    for (size_t e = 0; e < w->nval; ++e) w->csc[w->map[e]] = w->vals[e];
    rc = ld_la_factor_csc(w->la, w->colptr, w->rowind, w->csc);
    if (rc == LD_ESINGULAR)
        return fail(rc, msg, cap, "K - sigma M is singular: choose another shift");
    return rc ? fail(rc, msg, cap, "the sparse factorization failed") : LD_OK;
}

/* One step: Y = M X, Z = (K − σM)⁻¹ Y, Rayleigh–Ritz on Z; X ← Z C, th the Ritz values
 * (ω² − σ, ascending). */
static int iterate(sp *w) {
    size_t k = w->k, q = w->q;
    mass_times(w, w->X, w->Y);
    double *col = w->th0 + q; /* k scratch (the zeros of factor, no longer needed) */
    for (size_t j = 0; j < q; ++j) {
        for (size_t l = 0; l < k; ++l) col[l] = w->Y[l * q + j];
        int rc = ld_la_solve(w->la, col);
        if (rc) return rc;
        for (size_t l = 0; l < k; ++l) w->Z[l * q + j] = col[l];
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

int ld_modes_sparse(const ld_system *s, double t, const double *q, int count, double sigma,
                    ld_modes *md, char *msg, size_t cap) {
    if (msg && cap) msg[0] = '\0';
    if (!s || !q || !md || count < 1 || count > s->k || !isfinite(sigma))
        return fail(LD_EINVAL, msg, cap, "bad arguments");
    if (s->m > 0)
        return fail(LD_ENOTSUPPORTED, msg, cap,
                    "the sparse path takes systems without constraint rows (beams with clamped "
                    "or pinned ends); use the dense one");
    if (!ld_sys_has_blocks(s))
        return fail(LD_ENOTSUPPORTED, msg, cap, "the system has no sparse tangent blocks");
    size_t nq = (size_t)count + 8 < 2 * (size_t)count ? 2 * (size_t)count : (size_t)count + 8;
    if (nq > (size_t)s->k) nq = (size_t)s->k;
    sp w;
    int rc = sp_alloc(&w, s, nq);
    if (rc) {
        char what[96];
        snprintf(what, sizeof what, "the sparse eigensolver's work (k = %d), or its sparse solver",
                 s->k);
        ld_oom_format(msg, cap, (double)w.bytes, what);
        sp_free(&w);
        return rc;
    }
    rc = factor(&w, t, q, sigma, msg, cap);
    if (!rc) start(&w);
    int it = 0, flat = 0; /* flat: iterations without a smaller change */
    double change = INFINITY, best = INFINITY;
    for (; !rc && it < MAX_ITER && change > TOL && flat < STALL; ++it) {
        memcpy(w.th0, w.th, w.q * sizeof(double));
        rc = iterate(&w);
        change = 0.0;
        for (int j = 0; !rc && j < count; ++j)
            change = fmax(change, fabs(w.th[j] - w.th0[j]) / fmax(fabs(w.th[j]), 1e-300));
        if (it == 0) change = INFINITY;
        /* at round-off the change stops falling: stop there once it is below ROUND */
        flat = change < best ? 0 : (change < ROUND ? flat + 1 : 0);
        best = fmin(best, change);
    }
    if (!rc && it >= MAX_ITER)
        rc = fail(LD_EDOMAIN, msg, cap, "the subspace iteration did not converge");
    else if (rc && msg && cap && !msg[0])
        fail(rc, msg, cap, "the subspace iteration failed");
    if (!rc) rc = fill(&w, count, sigma, md);
    sp_free(&w);
    return rc;
}

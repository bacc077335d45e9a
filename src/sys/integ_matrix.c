/*
 * The iteration matrix of the Newton iterations shared by the methods (integ_impl.h): whether
 * the factored matrix of the same coefficients still serves (o.newton_reuse), its assembly on
 * the dense path, S = [cm M + cc C + ck K T, Bᵀ; B T, 0], the KLU pattern of a dense-assembled
 * matrix, and the factorization on the path the integrator was created for.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"
#include "nodes.h"

void ld_integ__assemble_mass(ld_integ *it) {
    it->jac_ok = it->skip_factor = 0; /* another matrix takes the factorization's place */
    if (it->blocks) {
        ld_integ__blocks_mass_only(it);
        return;
    }
    memcpy(it->S, it->M, (size_t)it->k * (size_t)it->k * sizeof(double));
}

/* Tangent size of node nd and whether its T(ξ) is the identity (vector-space nodes). */
static int node_block(const ld_system *s, int nd, int *flat) {
    const ld_node *n = &s->nodes[nd];
    int end = nd + 1 < s->nnodes ? s->nodes[nd + 1].voff : s->k;
    *flat = ld_node_kind_get(n->kind)->flat;
    return end - n->voff;
}

/* T is block diagonal by node, so K T and B T cost O(k² d) with d the largest node. */
/* With o.newton_reuse: the factored matrix of the same coefficients (to 1e-9) still serves
 * (the next ld_integ__factor is skipped); otherwise it is formed anew. */
static int same_coef(double a, double b) {
    return fabs(a - b) <= 1e-9 * fabs(b); /* steps of one grid differ in their last bits */
}

int ld_integ__reuse_matrix(ld_integ *it, double cm, double cc, double ck) {
    int kept = it->o.newton_reuse == LD_REUSE_ON ||
               (it->o.newton_reuse == LD_REUSE_AUTO && it->jac_step == (long)it->st.steps);
    it->skip_factor = kept && it->jac_ok && same_coef(cm, it->jac_c[0]) &&
                      same_coef(cc, it->jac_c[1]) && same_coef(ck, it->jac_c[2]);
    if (!it->skip_factor) {
        it->jac_ok = 0;
        it->jac_c[0] = cm, it->jac_c[1] = cc, it->jac_c[2] = ck;
    }
    return it->skip_factor;
}

int ld_integ__assemble(ld_integ *it, double t, double cm, double cc, double ck, const double *a_k) {
    if (ld_integ__reuse_matrix(it, cm, cc, ck)) return LD_OK;
    if (it->blocks) return ld_integ__blocks_assemble(it, t, cm, cc, ck, a_k);
    if (ld_integ__small(it)) return ld_integ__small_assemble(it, t, cm, cc, ck, a_k);
    const ld_system *s = it->s;
    int rc = ld_sys_g_v(s, t, it->qn, it->vn, it->C);
    if (!rc) rc = ld_sys_stiffness(s, t, it->qn, it->vn, a_k ? a_k : it->vdn, it->lamn, it->K);
    return rc ? rc : ld_integ__dense_fill(it, cm, cc, ck);
}

int ld_integ__dense_fill(ld_integ *it, double cm, double cc, double ck) {
    /* each node's T block held locally, K T only in a direct product's rotation columns: the
     * same sums less the products with T's zeros and ones (integ_small.c); the k×k T below is
     * kept as the reference that ld_integ__set_generic selects (tests/test_small.c) */
    if (!it->generic) { /* the small path's fill; its finiteness is checked here (the small
                         * path's factorization checks it on its copy of S instead) */
        int rc = ld_integ__small_fill(it, cm, cc, ck);
        size_t n = (size_t)it->n;
        return rc ? rc : ld_integ__finite(it, it->S, n * n, "non-finite iteration matrix");
    }
    const ld_system *s = it->s;
    int k = it->k, m = it->m, n = it->n;
    ld_sys_tangent(s, it->T, it->xi);
    size_t K = (size_t)k, N = (size_t)n, M = (size_t)m;
    for (int nd = 0; nd < s->nnodes; ++nd) { /* node by node, then row by row in its columns */
        int flat, d = node_block(s, nd, &flat);
        size_t o = (size_t)s->nodes[nd].voff, e = o + (size_t)d;
        for (size_t i = 0; i < K + M; ++i) {
            const double *src = i < K ? it->K + i * K : it->B + (i - K) * K;
            double *dst = it->S + i * N, kt[LD_NODE_GROUP_MAX_NV];
            if (!flat && d == 6) { /* six independent sums (the common rotation–translation node) */
                double k0 = 0.0, k1 = 0.0, k2 = 0.0, k3 = 0.0, k4 = 0.0, k5 = 0.0;
                for (size_t l = o; l < e; ++l) {
                    const double sl = src[l], *Tl = it->T + l * K + o;
                    k0 += sl * Tl[0], k1 += sl * Tl[1], k2 += sl * Tl[2];
                    k3 += sl * Tl[3], k4 += sl * Tl[4], k5 += sl * Tl[5];
                }
                kt[0] = k0, kt[1] = k1, kt[2] = k2, kt[3] = k3, kt[4] = k4, kt[5] = k5;
            } else if (!flat) /* (K T)_ij or (B T)_cj, the node's block of T */
                for (size_t j = o; j < e; ++j) {
                    double acc = 0.0;
                    for (size_t l = o; l < e; ++l) acc += src[l] * it->T[l * K + j];
                    kt[j - o] = acc;
                }
            if (i >= K) {
                for (size_t j = o; j < e; ++j) dst[j] = flat ? src[j] : kt[j - o];
                continue;
            }
            const double *Mi = it->M + i * K, *Ci = it->C + i * K;
            for (size_t j = o; j < e; ++j)
                dst[j] = cm * Mi[j] + cc * Ci[j] + ck * (flat ? src[j] : kt[j - o]);
        }
    }
    for (size_t c = 0; c < M; ++c) {
        const double *Bc = it->B + c * K;
        for (size_t i = 0; i < K; ++i) it->S[i * N + K + c] = Bc[i];
        for (size_t j = 0; j < M; ++j) it->S[(K + c) * N + K + j] = 0.0;
    }
    return ld_integ__finite(it, it->S, N * N, "non-finite iteration matrix");
}

/* The KLU pattern at block granularity (a node's velocity block, or one constraint row):
 * block (I, J) is kept if I = J is a node, or if any entry of it is non-zero in the first
 * iteration matrix. Entries of finite-difference tangents that are zero by accident then
 * cannot change the pattern later; only a coupling between blocks that was absent in the
 * first matrix would be dropped (none arises for a fixed topology). Allocated once. */
static int klu_pattern(ld_integ *it) {
    const ld_system *s = it->s;
    int n = it->n, nb = s->nnodes + it->m;
    free(it->blk); /* what an earlier attempt that ran out of memory left */
    free(it->rowind);
    free(it->vals);
    it->rowind = NULL, it->vals = NULL;
    it->blk = malloc((size_t)n * sizeof(int));
    unsigned char *keep = calloc((size_t)nb * (size_t)nb, 1);
    if (!it->blk || !keep) {
        free(keep);
        it->oom_bytes = (double)nb * (double)nb + 4.0 * n;
        it->oom_what = "the block pattern of the iteration matrix";
        return LD_ENOMEM;
    }
    for (int b = 0; b < s->nnodes; ++b) {
        int w = (b + 1 < s->nnodes ? s->nodes[b + 1].voff : it->k) - s->nodes[b].voff;
        for (int j = 0; j < w; ++j) it->blk[s->nodes[b].voff + j] = b;
        keep[(size_t)b * (size_t)nb + (size_t)b] = 1;
    }
    for (int c = 0; c < it->m; ++c) it->blk[it->k + c] = s->nnodes + c;
    for (int p = 0; p < s->npairs; ++p) { /* force-coupled nodes, whatever their tangents now */
        size_t a = (size_t)s->pair[2 * p], b = (size_t)s->pair[2 * p + 1];
        if (a >= (size_t)s->nnodes || b >= (size_t)s->nnodes) continue;
        keep[a * (size_t)nb + b] = keep[b * (size_t)nb + a] = 1;
    }
    for (size_t i = 0; i < (size_t)n; ++i)
        for (size_t j = 0; j < (size_t)n; ++j)
            if (it->S[i * (size_t)n + j] != 0.0)
                keep[(size_t)it->blk[i] * (size_t)nb + (size_t)it->blk[j]] = 1;
    size_t nnz = 0;
    for (size_t i = 0; i < (size_t)n; ++i)
        for (size_t j = 0; j < (size_t)n; ++j)
            nnz += keep[(size_t)it->blk[i] * (size_t)nb + (size_t)it->blk[j]];
    it->colptr = malloc(((size_t)n + 1) * sizeof(int));
    it->rowind = malloc((nnz ? nnz : 1) * sizeof(int));
    it->vals = malloc((nnz ? nnz : 1) * sizeof(double));
    if (!it->colptr || !it->rowind || !it->vals) {
        free(keep);
        free(it->colptr); /* the pattern is built again at the next factorization */
        it->colptr = NULL;
        it->oom_bytes = (double)(((size_t)n + 1 + nnz) * sizeof(int) + nnz * sizeof(double));
        it->oom_what = "the sparse pattern of the iteration matrix";
        return LD_ENOMEM;
    }
    int p = 0;
    for (int j = 0; j < n; ++j) {
        it->colptr[j] = p;
        for (int i = 0; i < n; ++i)
            if (keep[(size_t)it->blk[i] * (size_t)nb + (size_t)it->blk[j]]) it->rowind[p++] = i;
    }
    it->colptr[n] = p;
    free(keep);
    return LD_OK;
}

static int factor_now(ld_integ *it);

int ld_integ__factor(ld_integ *it) {
    if (it->skip_factor) { /* the factors of the same matrix are kept (o.newton_reuse) */
        it->skip_factor = 0;
        return LD_OK;
    }
    int rc = factor_now(it);
    it->jac_ok = rc == LD_OK && it->o.newton_reuse != LD_REUSE_OFF;
    it->jac_step = (long)it->st.steps;
    return rc;
}

/* Factor the assembled iteration matrix. */
static int factor_now(ld_integ *it) {
    it->st.factorizations++;
    if (ld_integ__small(it)) return ld_integ__small_factor(it);
    if (it->o.la == LD_LA_DENSE) return ld_la_factor_dense(it->la, it->S);
    if (it->blocks) return ld_la_factor_csc(it->la, it->colptr, it->rowind, it->vals);
    if (!it->colptr) {
        int rc = klu_pattern(it);
        if (rc) return rc;
    }
    size_t n = (size_t)it->n;
    for (size_t j = 0; j < n; ++j)
        for (int p = it->colptr[j]; p < it->colptr[j + 1]; ++p)
            it->vals[p] = it->S[(size_t)it->rowind[p] * n + j];
    return ld_la_factor_csc(it->la, it->colptr, it->rowind, it->vals);
}

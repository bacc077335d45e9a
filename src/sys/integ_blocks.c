/*
 * The structured sparse path of the Newton methods (integ_impl.h): with a system that gives its
 * tangents by node blocks (ld_sys_has_blocks) and the KLU solver, the iteration matrix
 *   S = [cm M + cc C + ck K T, Bᵀ; B T, 0]
 * is assembled straight into a compressed-column pattern fixed at creation — the tangent blocks,
 * B T (the pattern of B: each row covers whole node columns, and T is block diagonal by node)
 * and Bᵀ — and refactored numerically only. The residual takes M v̇ from the mass blocks and Bᵀλ
 * from the values of B in its pattern. Memory: O(k + m + entries of the pattern); no k×k array.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"
#include "nodes.h"
#include "saddle.h"

/* Velocity entries of node i. */
static int nv_of(const ld_system *s, int i) {
    return ld_node_nv(&s->nodes[i]);
}

void ld_integ__blocks_free(ld_integ *it) {
    free(it->map_t);
    free(it->bw);
    free(it->mb_off);
    free(it->keep);
    it->map_t = it->map_bt = it->map_b = it->col_node = NULL;
    it->bw = NULL;
    it->mb_off = NULL;
    it->keep = NULL;
}

/* The compressed columns and the maps for the entries keep marks (saddle.h). */
static void build_pattern(ld_integ *it) {
    const ld_system *s = it->s;
    int n = it->n;
    ld_saddle_count(s, it->keep, it->colptr);
    ld_saddle_fill(s, it->keep, it->colptr, it->colptr + n + 1, it->rowind, it->map_t, it->map_bt,
                   it->map_b);
    it->nkept = it->colptr[n];
}

int ld_integ__blocks_create(ld_integ *it) {
    const ld_system *s = it->s;
    size_t n = (size_t)it->n, nt = s->blk_off[s->nblk], nb = (size_t)s->bnnz;
    size_t nmb = ld_sys_mass_block_entries(s), nnz = nt + 2 * nb;
    it->keep = malloc(nnz > 0 ? nnz : 1);
    it->colptr = malloc((2 * n + 1) * sizeof(int));
    it->rowind = malloc((nnz > 0 ? nnz : 1) * sizeof(int));
    it->vals = malloc((nnz > 0 ? nnz : 1) * sizeof(double));
    it->map_t = malloc((nt + 2 * nb + (size_t)s->k + 1) * sizeof(int));
    it->bw = malloc((2 * nmb + 2 * nb + nt + 2 * (size_t)s->k + 1) * sizeof(double));
    it->mb_off = malloc(((size_t)s->nnodes + 1) * sizeof(size_t));
    if (!it->colptr || !it->rowind || !it->vals || !it->map_t || !it->bw || !it->mb_off ||
        !it->keep) {
        it->oom_bytes = (double)((2 * n + 1 + 2 * nnz + 1) * sizeof(int)) + (double)nnz +
                        (double)((nnz + 2 * nmb + 2 * nb + nt + 1) * sizeof(double));
        return LD_ENOMEM;
    }
    if (s->pattern_generic && s->pattern_keep) /* the zeros of the structure left out */
        memcpy(it->keep, s->pattern_keep, nnz);
    else
        memset(it->keep, 1, nnz > 0 ? nnz : 1);
    it->map_bt = it->map_t + nt;
    it->map_b = it->map_bt + nb;
    it->col_node = it->map_b + nb;
    it->mb_off[0] = 0;
    for (int nd = 0; nd < s->nnodes; ++nd) {
        int d = nv_of(s, nd);
        it->mb_off[nd + 1] = it->mb_off[nd] + (size_t)d * (size_t)d;
        for (int j = 0; j < d; ++j) it->col_node[s->nodes[nd].voff + j] = nd;
    }
    it->Mb = it->bw;
    it->Tb = it->Mb + nmb;
    it->Bv = it->Tb + nmb;
    it->BTv = it->Bv + nb;
    it->tv = it->BTv + nb;
    it->rk = it->tv + nt;
    it->mk = it->rk + s->k;
    build_pattern(it);
    it->blocks = 1;
    return LD_OK;
}

/* ---------------------------------------------------------------- products */

/* y += M x from the mass blocks; mag (may be NULL) += |M_ij x_j| per row. */
void ld_integ__blocks_mass_times(const ld_integ *it, const double *x, double *y, double *mag) {
    const ld_system *s = it->s;
    const double *B = it->Mb;
    for (int nd = 0; nd < s->nnodes; ++nd) {
        int d = nv_of(s, nd), o = s->nodes[nd].voff;
        for (int i = 0; i < d; ++i, B += d) {
            double acc = 0.0, mg = 0.0;
            for (int j = 0; j < d; ++j) {
                double p = B[j] * x[o + j];
                acc += p;
                mg += fabs(p);
            }
            y[o + i] += acc;
            if (mag) mag[o + i] += mg;
        }
    }
}

/* y += Bᵀ λ from B's values; mag (may be NULL) += |B_ci λ_c|. */
void ld_integ__blocks_bt_times(const ld_integ *it, const double *lam, double *y, double *mag) {
    const ld_system *s = it->s;
    for (int e = 0; e < s->bnnz; ++e) {
        double p = it->Bv[e] * lam[s->brow[e]];
        y[s->bcol[e]] += p;
        if (mag) mag[s->bcol[e]] += fabs(p);
    }
}

/* r = [M v̇ + g + Bᵀλ; Φ] at the trial state on this path; rscale as on the dense path. */
int ld_integ__blocks_residual(ld_integ *it, double t) {
    const ld_system *s = it->s;
    int k = it->k, m = it->m, rc = s->ops.mass_blocks(s, it->qn, it->Mb);
    if (!rc) rc = s->ops.force(s, t, it->qn, it->vn, it->r);
    if (!rc && m > 0) rc = s->ops.phi_q_sparse(s, t, it->qn, it->Bv);
    if (!rc && m > 0) rc = s->ops.phi(s, t, it->qn, it->r + k);
    return rc ? rc : ld_integ__blocks_residual_sums(it);
}

int ld_integ__blocks_residual_sums(ld_integ *it) {
    const ld_system *s = it->s;
    int k = it->k, m = it->m;
    memset(it->rk, 0, 2 * (size_t)k * sizeof(double));
    ld_integ__blocks_mass_times(it, it->vdn, it->rk, it->mk);
    ld_integ__blocks_bt_times(it, it->lamn, it->rk, it->mk);
    double h2 = it->bh2 * it->bh2, sc = 0.0, qmax = 0.0;
    for (int i = 0; i < k; ++i) {
        double mag = fabs(it->r[i]) + it->mk[i];
        it->r[i] += it->rk[i];
        sc += h2 * mag * mag;
    }
    for (int i = 0; i < s->nq; ++i) qmax = fmax(qmax, fabs(it->qn[i]));
    sc += (double)m * (1.0 + qmax) * (1.0 + qmax);
    it->rscale = sqrt(sc / (double)it->n);
    return ld_integ__finite(it, it->r, (size_t)it->n, "non-finite residual");
}

/* ---------------------------------------------------------------- assembly */

static void b_times_t(ld_integ *it) {
    ld_saddle_bt(it->s, it->col_node, it->mb_off, it->Tb, it->Bv, it->BTv);
}

void ld_integ__blocks_tangents(ld_integ *it) {
    const ld_system *s = it->s;
    for (int nd = 0; nd < s->nnodes; ++nd) {
        const ld_node *n = &s->nodes[nd];
        ld_node_tangent(n, it->Tb + it->mb_off[nd], (size_t)nv_of(s, nd), it->xi + n->voff);
    }
}

/* Restore the whole block pattern (a value showed up where the structure's probe had none). */
static void unmask(ld_integ *it) {
    memset(it->keep, 1, ld_saddle_nnz(it->s));
    build_pattern(it);
}

/* One pass over the values of S: 0 when one is not finite; else 1, and *spill = 1 when a value
 * left out of the pattern exceeds the round-off of the matrix, eps max |S_ij| (leaving it out
 * perturbs S less than any LU of S does; an entry that is zero in exact arithmetic can come
 * out as, say, 1e-50 at the state itself). */
static int values_scan(const ld_integ *it, int *spill) {
    double in = 0.0, out = 0.0, z = 0.0; /* z: x·0 is NaN exactly for inf and NaN */
    size_t p = 0, kept = (size_t)it->nkept, end = ld_saddle_nnz(it->s);
    const double *v = it->vals;
    for (; p < kept; ++p) {
        double a = fabs(v[p]);
        in = a > in ? a : in;
        z += v[p] * 0.0;
    }
    for (; p < end; ++p) {
        double a = fabs(v[p]);
        out = a > out ? a : out;
        z += v[p] * 0.0;
    }
    *spill = out > DBL_EPSILON * in;
    return z == 0.0;
}

int ld_integ__blocks_assemble(ld_integ *it, double t, double cm, double cc, double ck,
                              const double *a_k) {
    const ld_system *s = it->s;
    ld_integ__blocks_tangents(it);
    int rc = s->ops.tangent_blocks(s, t, it->qn, it->vn, a_k ? a_k : it->vdn, it->lamn, cm, cc, ck,
                                   it->Tb, it->tv);
    return rc ? rc : ld_integ__blocks_fill(it);
}

int ld_integ__blocks_fill(ld_integ *it) {
    const ld_system *s = it->s;
    b_times_t(it);
    size_t nt = s->blk_off[s->nblk];
    for (size_t i = 0; i < nt; ++i) it->vals[it->map_t[i]] = it->tv[i];
    for (int e = 0; e < s->bnnz; ++e) {
        it->vals[it->map_bt[e]] = it->BTv[e];
        it->vals[it->map_b[e]] = it->Bv[e];
    }
    int spill;
    if (!values_scan(it, &spill))
        return ld_integ__finite(it, it->vals, nt + 2 * (size_t)s->bnnz,
                                "non-finite iteration matrix");
    if (spill) { /* a zero of the probe is not one: the whole pattern again */
        unmask(it);
        return ld_integ__blocks_fill(it);
    }
    return LD_OK;
}

/* The matrix [M 0; 0 0] in the pattern (M from the last residual's mass blocks). */
void ld_integ__blocks_mass_only(ld_integ *it) {
    const ld_system *s = it->s;
    memset(it->vals, 0, (s->blk_off[s->nblk] + 2 * (size_t)s->bnnz) * sizeof(double));
    for (int b = 0; b < s->nblk; ++b) {
        if (s->blk_row[b] != s->blk_col[b]) continue;
        const double *Mb = it->Mb + it->mb_off[s->blk_row[b]];
        for (size_t i = 0; i < s->blk_off[b + 1] - s->blk_off[b]; ++i)
            it->vals[it->map_t[s->blk_off[b] + i]] = Mb[i];
    }
    int spill; /* a value that is not finite goes into the pattern too, for the solver to see */
    if ((!values_scan(it, &spill) || spill) && it->nkept < (int)ld_saddle_nnz(s)) {
        unmask(it);
        ld_integ__blocks_mass_only(it);
    }
}

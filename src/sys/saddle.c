/*
 * The saddle-point matrix's compressed-column pattern (saddle.h).
 */
#include "saddle.h"

#include <string.h>

#include "nodes.h"

int ld_saddle_bnnz(const ld_system *s) {
    return s->m > 0 ? s->bnnz : 0;
}

size_t ld_saddle_nnz(const ld_system *s) {
    return s->blk_off[s->nblk] + 2 * (size_t)ld_saddle_bnnz(s);
}

/* Is entry e of the layout [tangent blocks | B T | Bᵀ] kept (keep NULL: all are)? */
static int kept(const unsigned char *keep, size_t e) {
    return !keep || keep[e];
}

void ld_saddle_count(const ld_system *s, const unsigned char *keep, int *cp) {
    int k = s->k, nb = ld_saddle_bnnz(s);
    size_t nt = s->blk_off[s->nblk];
    memset(cp, 0, ((size_t)k + (size_t)s->m + 1) * sizeof(int));
    for (int b = 0; b < s->nblk; ++b) {
        const ld_node *c = &s->nodes[s->blk_col[b]];
        int nr = ld_node_nv(&s->nodes[s->blk_row[b]]), nc = ld_node_nv(c);
        for (int j = 0; j < nc; ++j)
            for (int i = 0; i < nr; ++i)
                cp[c->voff + j + 1] += kept(keep, s->blk_off[b] + (size_t)(i * nc + j));
    }
    for (int e = 0; e < nb; ++e) {
        cp[s->bcol[e] + 1] += kept(keep, nt + (size_t)e);
        cp[k + s->brow[e] + 1] += kept(keep, nt + (size_t)nb + (size_t)e);
    }
    for (int j = 0; j < k + s->m; ++j) cp[j + 1] += cp[j];
}

void ld_saddle_fill(const ld_system *s, const unsigned char *keep, const int *colptr, int *next,
                    int *rowind, int *map_t, int *map_bt, int *map_b) {
    int k = s->k, nb = ld_saddle_bnnz(s), spill = colptr[k + s->m];
    size_t nt = s->blk_off[s->nblk];
    memcpy(next, colptr, ((size_t)k + (size_t)s->m) * sizeof(int));
    for (int b = 0; b < s->nblk; ++b) {
        const ld_node *r = &s->nodes[s->blk_row[b]], *c = &s->nodes[s->blk_col[b]];
        int nr = ld_node_nv(r), nc = ld_node_nv(c);
        for (int j = 0; j < nc; ++j)
            for (int i = 0; i < nr; ++i) {
                size_t e = s->blk_off[b] + (size_t)(i * nc + j);
                if (!kept(keep, e)) {
                    map_t[e] = spill++;
                    continue;
                }
                int p = next[c->voff + j]++;
                rowind[p] = r->voff + i;
                map_t[e] = p;
            }
    }
    for (int e = 0; e < nb; ++e) {
        int p = kept(keep, nt + (size_t)e) ? next[s->bcol[e]]++ : spill++;
        if (p < colptr[k + s->m]) rowind[p] = k + s->brow[e];
        map_bt[e] = p;
        p = kept(keep, nt + (size_t)nb + (size_t)e) ? next[k + s->brow[e]]++ : spill++;
        if (p < colptr[k + s->m]) rowind[p] = s->bcol[e];
        map_b[e] = p;
    }
}

void ld_saddle_bt(const ld_system *s, const int *col_node, const size_t *mb_off, const double *Tb,
                  const double *Bv, double *BTv) {
    int nb = s->bnnz;
    for (int e = 0; e < nb;) {
        int row = s->brow[e], nd = col_node[s->bcol[e]];
        const ld_node *N = &s->nodes[nd];
        const double *T = Tb + mb_off[nd], *b = Bv + e;
        int c0 = N->voff, d = (nd + 1 < s->nnodes ? N[1].voff : s->k) - c0;
        int len = 0;
        while (e + len < nb && s->brow[e + len] == row && s->bcol[e + len] < c0 + d) ++len;
        if (len == 6 && d == 6 && s->bcol[e] == c0 && ld_node_direct_product(N)) {
            double *bt = BTv + e;
            for (int j = 0; j < 3; ++j) bt[j] = b[0] * T[j] + b[1] * T[6 + j] + b[2] * T[12 + j];
            for (int j = 3; j < 6; ++j) bt[j] = b[j];
            e += len;
            continue;
        }
        for (int j = 0; j < len; ++j) {
            int cj = s->bcol[e + j] - c0;
            double acc = 0.0;
            for (int l = 0; l < len; ++l) acc += Bv[e + l] * T[(s->bcol[e + l] - c0) * d + cj];
            BTv[e + j] = acc;
        }
        e += len;
    }
}

void ld_saddle_identity_blocks(const ld_system *s, double *Tb) {
    memset(Tb, 0, ld_sys_mass_block_entries(s) * sizeof(double));
    for (int i = 0, off = 0; i < s->nnodes; ++i) {
        int nv = ld_node_nv(&s->nodes[i]);
        for (int r = 0; r < nv; ++r) Tb[off + r * nv + r] = 1.0;
        off += nv * nv;
    }
}

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

void ld_saddle_count(const ld_system *s, int *cp) {
    int k = s->k, nb = ld_saddle_bnnz(s);
    memset(cp, 0, ((size_t)k + (size_t)s->m + 1) * sizeof(int));
    for (int b = 0; b < s->nblk; ++b) {
        const ld_node *c = &s->nodes[s->blk_col[b]];
        int nr = ld_node_nv(&s->nodes[s->blk_row[b]]);
        for (int j = 0, nc = ld_node_nv(c); j < nc; ++j) cp[c->voff + j + 1] += nr;
    }
    for (int e = 0; e < nb; ++e) cp[s->bcol[e] + 1]++, cp[k + s->brow[e] + 1]++;
    for (int j = 0; j < k + s->m; ++j) cp[j + 1] += cp[j];
}

void ld_saddle_fill(const ld_system *s, const int *colptr, int *next, int *rowind, int *map_t,
                    int *map_bt, int *map_b) {
    int k = s->k, nb = ld_saddle_bnnz(s);
    memcpy(next, colptr, ((size_t)k + (size_t)s->m) * sizeof(int));
    for (int b = 0; b < s->nblk; ++b) {
        const ld_node *r = &s->nodes[s->blk_row[b]], *c = &s->nodes[s->blk_col[b]];
        int nr = ld_node_nv(r), nc = ld_node_nv(c);
        for (int j = 0; j < nc; ++j)
            for (int i = 0; i < nr; ++i) {
                int p = next[c->voff + j]++;
                rowind[p] = r->voff + i;
                map_t[s->blk_off[b] + (size_t)(i * nc + j)] = p;
            }
    }
    for (int e = 0; e < nb; ++e) {
        int p = next[s->bcol[e]]++;
        rowind[p] = k + s->brow[e];
        map_bt[e] = p;
        p = next[k + s->brow[e]]++;
        rowind[p] = s->bcol[e];
        map_b[e] = p;
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

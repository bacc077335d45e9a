/*
 * The sparse structure of a compiled model's element instances (element.h): the pattern of B
 * (each instance's kept rows over its nodes' columns, by row then column in column order), the
 * node pairs that the sparse iteration matrices keep, and the node blocks of the tangents that
 * ld_elems_tangent_blocks (elem_eval.c) fills. Built once, after the instances.
 */
#include <stdlib.h>
#include <string.h>

#include "../elements/element.h"
#include "liedyn/liedyn.h"
#include "../elements/kinds.h"
#include "../core/oom.h"
#include "elem_impl.h"

void ld_elems_free_pattern(ld_system *s) {
    ld_elems *E = s->user ? &((rb_sys *)s->user)->E : NULL;
    free(s->brow);
    free(s->bcol);
    free(s->pair);
    free(s->blk_row);
    free(s->blk_col);
    free(s->blk_off);
    s->brow = s->bcol = s->pair = s->blk_row = s->blk_col = NULL;
    s->blk_off = NULL;
    s->bnnz = s->npairs = s->nblk = 0;
    if (!E) return;
    free(E->bix);
    free(E->mboff);
    E->bix = NULL;
    E->mboff = NULL;
}

static int block_pattern(ld_system *s, ld_elems *E);

/* Do the instances' tangents and B keep their zeros at every state (system.h,
 * pattern_generic)? Not with force elements (user forces, actuators under controllers) or
 * contacts, whose entries come and go with the state, nor with loads (switched on in time). */
static int generic_structure(const ld_system *s, const ld_elems *E) {
    if (ld_rb(s)->m->nloads > 0) return 0;
    for (int i = 0; i < E->n; ++i)
        if (E->e[i].kind == &ld_ek_force || E->e[i].kind == &ld_ek_contact_penalty) return 0;
    return 1;
}

int ld_elems_pattern(ld_system *s) {
    const ld_elems *E = EL(s);
    size_t nnz = 0;
    int npairs = 0;
    for (int i = 0; i < E->n; ++i) {
        nnz += (size_t)E->e[i].nkeep * (size_t)E->e[i].cnl;
        npairs += E->e[i].nn * (E->e[i].nn - 1) / 2;
    }
    s->brow = ld_xmalloc((nnz > 0 ? nnz : 1) * sizeof(int), "the sparsity pattern");
    s->bcol = ld_xmalloc((nnz > 0 ? nnz : 1) * sizeof(int), "the sparsity pattern");
    s->pair =
        npairs > 0 ? ld_xmalloc(2 * (size_t)npairs * sizeof(int), "the sparsity pattern") : NULL;
    if (!s->brow || !s->bcol || (npairs > 0 && !s->pair)) return LD_ENOMEM;
    size_t p = 0;
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        int ord[LD_ELEM_MAX_NODES];
        column_order(s, e, ord);
        for (int r = 0; r < e->nkeep; ++r)
            for (int a = 0; a < e->nn; ++a)
                for (int c = 0, nv = node_nv(s, e->node[ord[a]]); c < nv; ++c, ++p) {
                    s->brow[p] = e->row0 + r;
                    s->bcol[p] = s->nodes[e->node[ord[a]]].voff + c;
                }
        for (int a = 0; a < e->nn; ++a)
            for (int b = a + 1; b < e->nn; ++b) {
                s->pair[2 * s->npairs] = e->node[a];
                s->pair[2 * s->npairs + 1] = e->node[b];
                s->npairs++;
            }
    }
    s->bnnz = (int)nnz;
    s->pattern_generic = generic_structure(s, E);
    return block_pattern(s, &((rb_sys *)s->user)->E);
}

static int cmp_pair(const void *a, const void *b) {
    const int *x = a, *y = b; /* (column, row) */
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Index of block (row r, column c) in the sorted pattern (−1: absent). */
static int find_block(const ld_system *s, int r, int c) {
    int lo = 0, hi = s->nblk - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2,
            d = s->blk_col[mid] != c ? s->blk_col[mid] - c : s->blk_row[mid] - r;
        if (d == 0) return mid;
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* The node blocks that the instances' matrices touch (and every diagonal block), sorted by
 * column then row, their offsets, each instance's block indices and the nodes' mass-block
 * offsets. */
static int block_pattern(ld_system *s, ld_elems *E) {
    size_t npair = (size_t)s->nnodes, nbix = 0;
    for (int i = 0; i < E->n; ++i) {
        E->e[i].bix = (int)nbix;
        nbix += (size_t)E->e[i].nn * (size_t)E->e[i].nn;
        if (has_matrix(E->e[i].kind)) npair += (size_t)E->e[i].nn * (size_t)E->e[i].nn;
    }
    int *pr = ld_xmalloc(2 * npair * sizeof *pr, "the sparsity pattern");
    E->bix = ld_xmalloc((nbix > 0 ? nbix : 1) * sizeof *E->bix, "the sparsity pattern");
    E->mboff = ld_xmalloc(((size_t)s->nnodes + 1) * sizeof *E->mboff, "the sparsity pattern");
    if (!pr || !E->bix || !E->mboff) {
        free(pr);
        return LD_ENOMEM;
    }
    size_t p = 0;
    for (int n = 0; n < s->nnodes; ++n, ++p) pr[2 * p] = pr[2 * p + 1] = n;
    for (int i = 0; i < E->n; ++i)
        for (int a = 0; has_matrix(E->e[i].kind) && a < E->e[i].nn; ++a)
            for (int b = 0; b < E->e[i].nn; ++b, ++p)
                pr[2 * p] = E->e[i].node[b], pr[2 * p + 1] = E->e[i].node[a];
    qsort(pr, npair, 2 * sizeof *pr, cmp_pair);
    size_t nb = 0;
    for (size_t q = 0; q < npair; ++q)
        if (nb == 0 || cmp_pair(pr + 2 * q, pr + 2 * (nb - 1)) != 0) {
            pr[2 * nb] = pr[2 * q], pr[2 * nb + 1] = pr[2 * q + 1];
            ++nb;
        }
    s->blk_row = ld_xmalloc(nb * sizeof(int), "the block pattern");
    s->blk_col = ld_xmalloc(nb * sizeof(int), "the block pattern");
    s->blk_off = ld_xmalloc((nb + 1) * sizeof(size_t), "the block pattern");
    if (!s->blk_row || !s->blk_col || !s->blk_off) {
        free(pr);
        return LD_ENOMEM;
    }
    s->nblk = (int)nb;
    s->blk_off[0] = 0;
    for (size_t b = 0; b < nb; ++b) {
        s->blk_col[b] = pr[2 * b], s->blk_row[b] = pr[2 * b + 1];
        s->blk_off[b + 1] =
            s->blk_off[b] + (size_t)node_nv(s, s->blk_row[b]) * (size_t)node_nv(s, s->blk_col[b]);
    }
    free(pr);
    E->mboff[0] = 0;
    for (int n = 0; n < s->nnodes; ++n)
        E->mboff[n + 1] = E->mboff[n] + (size_t)node_nv(s, n) * (size_t)node_nv(s, n);
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        for (int a = 0; a < e->nn; ++a)
            for (int b = 0; b < e->nn; ++b)
                E->bix[e->bix + a * e->nn + b] = find_block(s, e->node[a], e->node[b]);
    }
    return LD_OK;
}

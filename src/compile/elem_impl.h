/*
 * Internal to the element loops of the compiled models (elem.c: the table of kinds and the
 * instances; elem_eval.c: the operations and the fused pass; elem_pattern.c: the sparse
 * pattern of B and the node blocks of the tangents): the small helpers they share, inline.
 */
#ifndef LIEDYN_SRC_COMPILE_ELEM_IMPL_H
#define LIEDYN_SRC_COMPILE_ELEM_IMPL_H

#include <string.h>

#include "../elements/element.h"
#include "../elements/kinds.h"
#include "liedyn/model.h"

static inline const ld_elems *EL(const ld_system *s) {
    return &ld_rb(s)->E;
}

/* Velocity entries of node i. */
static inline int node_nv(const ld_system *s, int i) {
    return (i + 1 < s->nnodes ? s->nodes[i + 1].voff : s->k) - s->nodes[i].voff;
}

/* The hook block of node i (element.h): its width, and when that exceeds the node's own nv
 * the embedding P (hw × nv, row-major) of its coordinates; 0 (P untouched) when they agree. */
static inline int node_embedding(const ld_system *s, int i, double P[18]) {
    const ld_body *b = &ld_rb(s)->m->bodies[i];
    if (!b->pin) return 0;
    memset(P, 0, 18 * sizeof(double));
    if (b->pin == LD_PIN_AXIS) {
        for (int r = 0; r < 3; ++r) P[r] = b->pin_axis[r];
    } else {
        for (int r = 0; r < 3; ++r) P[3 * r + r] = 1.0;
    }
    return 6;
}

static inline int has_matrix(const ld_ekind *k) {
    return k->mass || k->g_v || k->stiffness;
}

/* The instance's node slots in column order (at most LD_ELEM_MAX_NODES). */
static inline void column_order(const ld_system *s, const ld_elem *e, int *ord) {
    for (int a = 0; a < e->nn; ++a) ord[a] = a;
    for (int a = 1; a < e->nn; ++a)
        for (int b = a;
             b > 0 && s->nodes[e->node[ord[b]]].voff < s->nodes[e->node[ord[b - 1]]].voff; --b) {
            int tmp = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = tmp;
        }
}

#endif

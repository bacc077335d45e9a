/*
 * The compressed-column pattern of the saddle-point matrix of a system that gives its tangents
 * by node blocks (ld_sys_has_blocks):
 *   S = [X, Bᵀ; B, 0],  k + m rows and columns,
 * X with the pattern of the tangent blocks (s->blk_*), B with that of ops.phi_q_sparse
 * (s->brow, s->bcol). A node column holds its blocks in row-node order, then B's rows k + c in
 * ascending c; a constraint column k + c holds row c of B (Bᵀ), in the order of B's entries.
 * The Newton methods' sparse path, the sparse eigen-path and sparse statics share it.
 */
#ifndef LIEDYN_SRC_SYS_SADDLE_H
#define LIEDYN_SRC_SYS_SADDLE_H

#include "liedyn/system.h"

/* B's entries of s (0 when s has no constraint rows). */
int ld_saddle_bnnz(const ld_system *s);
/* Entries of S: the tangent blocks' values and twice B's. */
size_t ld_saddle_nnz(const ld_system *s);
/* colptr (k + m + 1) of S, with only the entries that keep marks: keep (NULL: all) has one
 * flag per value in the layout [tangent blocks (s->blk_off) | B T (bnnz) | Bᵀ (bnnz)]. */
void ld_saddle_count(const ld_system *s, const unsigned char *keep, int *colptr);
/* The row indices (colptr[k + m] of them) and where each value lands: tangent-block value e
 * (in the blocks' order, s->blk_off) at map_t[e], B's entry e at map_bt[e] (row k + brow[e] of
 * node column bcol[e]) and at map_b[e] (row bcol[e] of column k + brow[e]). A value that keep
 * leaves out lands after the pattern's entries, at colptr[k + m], colptr[k + m] + 1, … in the
 * layout's order (ld_saddle_nnz slots in all). colptr from ld_saddle_count with the same
 * keep; next: k + m ints of scratch. */
void ld_saddle_fill(const ld_system *s, const unsigned char *keep, const int *colptr, int *next,
                    int *rowind, int *map_t, int *map_bt, int *map_b);

/* BTv = B T for B's values Bv (bnnz) and T's node blocks Tb (the mass-block layout, node nd's
 * block at mb_off[nd]); col_node: the node of each velocity column. Each run of entries of one
 * row on one node times the node's block; a whole row of a direct product's node
 * (ld_node_direct_product) by its rotation block only (the same sums less the products with
 * T's zeros and ones). */
void ld_saddle_bt(const ld_system *s, const int *col_node, const size_t *mb_off, const double *Tb,
                  const double *Bv, double *BTv);

/* Tb (ld_sys_mass_block_entries) = the identity block of every node: T at the state itself
 * (Δ = 0), as ops.tangent_blocks takes it. */
void ld_saddle_identity_blocks(const ld_system *s, double *Tb);

#endif

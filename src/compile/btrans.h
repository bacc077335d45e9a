/*
 * Internal to src/model: the transpose of a compiled model's constraint Jacobian restricted to
 * the columns its rows touch, as the rank checks use it (diagnose.c, redundancy.c).
 */
#ifndef LIEDYN_SRC_COMPILE_BTRANS_H
#define LIEDYN_SRC_COMPILE_BTRANS_H

#include <stddef.h>

#include "liedyn/system.h"

/* Bᵀ, column-major: kc rows (the touched columns of B), m columns (the first m rows of B);
 * col[c] (k entries) numbers the touched column c of B from 0 (−1: untouched). */
typedef struct ld_bt {
    int kc, m;
    double *a;
    int *col;
} ld_bt;

#define LD_BT_MAX_ENTRIES 4000000 /* kc · m beyond which the joints' rows alone are taken */

/* Bᵀ of s at (t, q): from the sparse pattern when the system has one (all rows when they fit
 * in LD_BT_MAX_ENTRIES, else the joints' rows alone: the rods' Kirchhoff rows, two per segment
 * on its two nodes, do not depend on each other), else from the dense B. LD_OK;
 * LD_ENOTSUPPORTED (too large even so; msg says so), LD_ESINGULAR (B cannot be evaluated),
 * LD_ENOMEM. Free with ld_bt_free. */
int ld_bt_build(const ld_system *s, double t, const double *q, ld_bt *o, char *msg, size_t n);
/* Scale every column (a row of B) to unit length; zero columns stay zero. */
void ld_bt_normalize(ld_bt *o);
void ld_bt_free(ld_bt *o);

#endif

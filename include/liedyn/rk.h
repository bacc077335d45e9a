/*
 * liedyn/rk.h — explicit Runge–Kutta Butcher tables as data, with an order-condition check.
 *
 * A table holds s stages: c (s), A (s×s row-major, strictly lower triangular), weights b (s)
 * of order p and, optionally, embedded weights bhat (s) of order phat for error estimation.
 * The same tables drive classical and Lie-group (Munthe-Kaas) explicit integrators.
 */
#ifndef LIEDYN_RK_H
#define LIEDYN_RK_H

#include "liedyn/export.h"

LD_BEGIN_DECLS

#define LD_RK_MAX_STAGES        13
#define LD_RK_MAX_CHECKED_ORDER 5

typedef struct ld_rk_table {
    const char *name;   /* lookup name, e.g. "dopri5" */
    const char *title;  /* human-readable description with its source */
    int stages;         /* s */
    int order;          /* p: order of b */
    int order_embedded; /* phat: order of bhat, 0 when there is none */
    int fsal;           /* 1 if the last stage equals the next step's first (A[s-1,:] = b) */
    const double *c;    /* s nodes */
    const double *A;    /* s×s row-major, zero on and above the diagonal */
    const double *b;    /* s weights */
    const double *bhat; /* s embedded weights, or NULL */
} ld_rk_table;

/* Number of built-in tables, and the i-th (0 <= i < count), or NULL if out of range. */
int ld_rk_table_count(void);
const ld_rk_table *ld_rk_table_at(int i);
/* Table by name, or NULL if unknown (or name is NULL). */
const ld_rk_table *ld_rk_table_find(const char *name);

/* Largest absolute residual of the order conditions of all rooted trees of order exactly k
 * (1 <= k <= LD_RK_MAX_CHECKED_ORDER) for the weights w (b or bhat) of table t, with
 * c_i = sum_j a_ij. Returns a negative value if k is out of range or t or w is NULL. */
double ld_rk_order_residual(const ld_rk_table *t, const double *w, int k);

/* Largest |c_i - sum_j a_ij| of table t (the row-sum condition); NaN for NULL. */
double ld_rk_rowsum_residual(const ld_rk_table *t);

LD_END_DECLS

#endif /* LIEDYN_RK_H */

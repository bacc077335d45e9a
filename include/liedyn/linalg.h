/*
 * liedyn/linalg.h — square linear solves for the implicit integrators.
 *
 * One interface, two backends:
 *   LD_LA_DENSE   LAPACK dgetrf/dgetrs (partial pivoting) on a dense matrix;
 *   LD_LA_KLU     SuiteSparse KLU on a compressed-column matrix. The symbolic analysis
 *                 (ordering) is done on the first factorization and kept for the whole run;
 *                 later factorizations with the same pattern only refactor numerically.
 * Either backend accepts either input form: a dense matrix given to the KLU backend is
 * compressed (its nonzero pattern, plus the diagonal, is fixed at the first factorization;
 * a later nonzero outside that pattern triggers a new symbolic analysis, counted in
 * ld_la_stats.symbolic). A compressed matrix given to the dense backend is expanded.
 *
 * Storage: dense matrices are row-major double[n*n], A[i*n + j] = a_ij. Compressed-column
 * (CSC) matrices: colptr[n+1], rowind[nnz], values[nnz], row indices sorted within a column,
 * no duplicates.
 *
 * The solver owns all its memory; it is sized in ld_la_create (dense) or at the first
 * factorization (KLU: the pattern's size), never inside a later factor/solve with the same
 * pattern. The KLU pattern is the union of every pattern seen (plus the diagonal); an input
 * with an entry outside it grows the pattern and gets a new symbolic analysis.
 * A matrix is singular when some pivot |u_kk| ≤ n·ε·max|a_ij| (KLU: pivots unscaled first).
 * Small dense systems (n ≤ 12) use plain C elimination with partial pivoting (measured faster
 * than the LAPACK call there, docs/linalg.md).
 * Status codes: LD_OK; LD_ESINGULAR for an exactly or numerically singular matrix; LD_EINVAL
 * for bad arguments, NaN/Inf entries or an invalid CSC matrix; LD_ENOMEM. Any failed
 * factorization discards the previous one: ld_la_solve then returns LD_EINVAL until the next
 * successful factorization.
 */
#ifndef LIEDYN_LINALG_H
#define LIEDYN_LINALG_H

#include <stddef.h>

#include "liedyn/export.h"

LD_BEGIN_DECLS

/* LD_LA_AUTO is a request, not a backend: ld_la_choose (or the integrator, with the size and
 * structure of its matrix) resolves it to LD_LA_DENSE or LD_LA_KLU. */
typedef enum ld_la_kind { LD_LA_DENSE = 0, LD_LA_KLU = 1, LD_LA_AUTO = 2 } ld_la_kind;

/* Smallest order at which KLU is considered at all (below it dense LU always wins: plain C up
 * to n = 12, one LAPACK call above; docs/linalg.md). */
#define LD_LA_CROSSOVER 32

/* The measured crossover: KLU pays off when W·nnz < n³, the dense LU's work (∝ n³) against
 * KLU's (∝ the entries of a banded or block-sparse pattern, with little fill). W was measured
 * per Newton iteration of the shipped models, dense against KLU, alternated (bench/la_choice.py,
 * docs/linalg.md), separately for the two structures that occur: a saddle-point matrix with
 * constraint rows (KLU pivots through the zero block: W = 128, the crossover lies between the
 * four-bar, W = 74 … 92 dense faster, and the Bricard loop, W = 194 KLU faster) and a matrix
 * without constraint rows (beams, free bodies: W = 240, between beam-roll-up, 170 dense faster,
 * and the flying spaghetti beam, 306 KLU faster). */
#define LD_LA_WORK_SADDLE 128
#define LD_LA_WORK_PLAIN  240

/* The backend for an n×n matrix with nnz structurally nonzero entries (0: unknown, taken as
 * dense), m of whose rows are constraint rows with a zero diagonal block (0: none):
 * LD_LA_KLU when n ≥ LD_LA_CROSSOVER, at most half the entries can be nonzero and W·nnz < n³ (W =
 * LD_LA_WORK_SADDLE when m > 0, else LD_LA_WORK_PLAIN), else LD_LA_DENSE. Pure; never LD_LA_AUTO.
 */
ld_la_kind ld_la_choose_rows(int n, int m, size_t nnz);
/* ld_la_choose_rows for a general matrix (taken as having constraint-like rows: the smaller W). */
ld_la_kind ld_la_choose(int n, size_t nnz);

typedef struct ld_la ld_la; /* opaque */

typedef struct ld_la_stats {
    long factorizations; /* numeric factorizations done */
    long symbolic;       /* symbolic analyses done (KLU; 0 for dense) */
    long solves;
    size_t nnz;    /* entries of the last factored pattern (dense: n*n) */
    size_t lu_nnz; /* entries of L and U of the last pivoting factorization as KLU counts them
                      (each with the diagonal, without BTF's off-diagonal blocks); dense: n*n */
} ld_la_stats;

/* A solver for n×n systems (n ≥ 1). LD_LA_AUTO: ld_la_choose(n, 0), i.e. dense. NULL on bad
 * arguments or out of memory (the dense backend needs 8n² bytes). */
ld_la *ld_la_create(ld_la_kind kind, int n);
void ld_la_free(ld_la *la);
ld_la_kind ld_la_get_kind(const ld_la *la);
/* "dense" / "klu" / "auto" (NULL for an unknown kind); ld_la_kind_find returns -1 for an
 * unknown name or NULL. */
const char *ld_la_kind_name(ld_la_kind kind);
int ld_la_kind_find(const char *name);

/* Factor a dense row-major n×n matrix A (not modified). NULL la or A: LD_EINVAL. */
int ld_la_factor_dense(ld_la *la, const double *A);
/* Factor a CSC matrix (see above; not modified). */
int ld_la_factor_csc(ld_la *la, const int *colptr, const int *rowind, const double *values);
/* Solve A x = b in place (b → x) with the last successful factorization; LD_EINVAL if none
 * (or la or b is NULL). */
int ld_la_solve(ld_la *la, double *b);
/* Statistics of la (zeroes for NULL la; nothing for NULL st). */
void ld_la_get_stats(const ld_la *la, ld_la_stats *st);

LD_END_DECLS

#endif

/*
 * Square linear solves behind one interface (include/liedyn/linalg.h, docs/linalg.md):
 *   dense  LU with partial pivoting: plain C for n <= LA_SMALL, LAPACK dgetrf/dgetrs above;
 *   KLU    SuiteSparse KLU: one symbolic analysis per pattern, klu_refactor afterwards.
 *
 * Invariants:
 *   - la->ok is 1 exactly when the last factor call succeeded: every factor call clears it
 *     first, so a failed factorization is never solved with.
 *   - Dense: lu holds A row-major, which LAPACK reads as Aᵀ column-major. For n <= LA_SMALL it
 *     becomes P A = L U in place (plain C); above, Aᵀ = P L U (dgetrf) and A x = b is solved
 *     with trans = 'T'. All memory comes from ld_la_create.
 *   - KLU: (Ap, Ai, Ax) is the stored pattern, the union of the entries of every matrix given
 *     so far and the diagonal, rows ascending within a column. sym is its analysis; num, when
 *     not NULL, a numeric factorization under sym. The pattern only grows, and only when an
 *     input does not fit it: then (and at the first factorization) the arrays are reallocated.
 *   - Singular: some pivot |u_kk| <= n·eps·max|a_ij| (KLU's row scaling is undone first).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <klu.h>
#include <lapacke.h>

#include "liedyn/liedyn.h"
#include "liedyn/linalg.h"
#include "../core/oom.h"

/* Largest n the dense backend factors in plain C (bench/bench_linalg.c: faster than LAPACK
 * up to here, see docs/linalg.md). */
#define LA_SMALL 32

/* KLU's pivot tolerance: a diagonal pivot is taken when at least this fraction of the largest
 * entry of its (row-scaled) column. KLU's default, 0.001, gave backward errors up to 7e5 eps on
 * random well-conditioned matrices; 0.1 gives below 10 eps at the same speed (docs/linalg.md). */
#define LA_KLU_TOL 0.1

/* klu_refactor keeps the previous pivot order. Its result is kept unless its pivot ratio
 * min |u_kk| / max |u_kk| fell below this fraction of that of the last pivoting factorization.
 * (klu_rgrowth, the textbook test, added 40-100 % to a refactorization of the chain in
 * bench_linalg; this scan is O(n).) */
#define LA_RATIO_DROP 1e-2

typedef struct la_csc {
    const int *p, *i; /* colptr[n+1], rowind[nnz] (validated) */
    const double *x;  /* values[nnz] */
} la_csc;

/* A backend: allocation, the two input forms, the solve. */
typedef struct la_ops {
    int (*init)(ld_la *la);
    void (*release)(ld_la *la);
    int (*factor_dense)(ld_la *la, const double *A, double amax);
    int (*factor_csc)(ld_la *la, const la_csc *B, double amax);
    int (*solve)(ld_la *la, double *b);
} la_ops;

struct ld_la {
    const la_ops *ops;
    ld_la_kind kind;
    int n;
    int ok; /* a successful factorization is in place */
    ld_la_stats st;
    /* dense */
    double *lu;       /* n × n: A row-major, then its LU factors */
    lapack_int *ipiv; /* n pivot rows */
    /* KLU */
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num;
    int *Ap;      /* n + 1 column pointers of the stored pattern */
    int *Ap2;     /* n + 1 scratch for the next pattern */
    int *Ai;      /* Ap[n] row indices */
    double *Ax;   /* Ap[n] values */
    double ratio; /* min |u_kk| / max |u_kk| (scaled) of the last klu_factor */
    int pick; /* a new analysis: factorizations also try COLAMD until one passes (pick_ordering) */
};

/* ------------------------------------------------------------------ shared helpers */

/* *amax = max |x_k| over m values; returns 0 (amax untouched) if one is not finite. */
static int finite_max(const double *x, size_t m, double *amax) {
    double a[4] = {0.0, 0.0, 0.0, 0.0}; /* four independent maxima: no chain of compares */
    int ok = 1;
    size_t k = 0;
    for (; k + 4 <= m; k += 4)
        for (int u = 0; u < 4; ++u) {
            double v = fabs(x[k + (size_t)u]);
            ok &= v <= DBL_MAX;
            a[u] = v > a[u] ? v : a[u];
        }
    for (; k < m; ++k) {
        double v = fabs(x[k]);
        ok &= v <= DBL_MAX;
        a[0] = v > a[0] ? v : a[0];
    }
    *amax = fmax(fmax(a[0], a[1]), fmax(a[2], a[3]));
    return ok;
}

/* A pivot at or below this is "numerically zero". */
static double singular_tol(int n, double amax) {
    return (double)n * DBL_EPSILON * amax;
}

/* Are the column pointers p of an n×n CSC matrix valid: p[0] = 0, p nondecreasing? */
static int colptr_valid(int n, const int *p) {
    if (p[0] != 0) return 0;
    for (int j = 0; j < n; ++j)
        if (p[j + 1] < p[j]) return 0;
    return 1;
}

/* Is (p, i) an n×n CSC pattern: valid column pointers, rows in [0, n) strictly ascending
 * within each column? */
static int csc_valid(int n, const int *p, const int *i) {
    if (!colptr_valid(n, p)) return 0;
    for (int j = 0; j < n; ++j)
        for (int q = p[j]; q < p[j + 1]; ++q)
            if (i[q] < 0 || i[q] >= n || (q > p[j] && i[q] <= i[q - 1])) return 0;
    return 1;
}

/* ------------------------------------------------------------------ dense backend */

/* The plain-C factorization and solve, compiled twice on x86-64 with GCC and glibc: for the
 * baseline ISA and for x86-64-v3 (AVX2), the one the processor supports chosen when the library
 * is loaded. ISO C mode contracts no a·b + c into an FMA, so both give the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__)
#define LA_HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define LA_HOT
#endif

/* ri[j] -= l rk[j] for j < len: two distinct rows, so no overlap to check for. */
static inline void row_update(double *restrict ri, const double *restrict rk, double l, int len) {
    for (int j = 0; j < len; ++j) ri[j] -= l * rk[j];
}

/* In place P A = L U of the row-major n×n a, partial pivoting (rows k and piv[k] swapped at
 * step k). A zero pivot column is left as it is; the caller's pivot test rejects it. */
LA_HOT static void small_lu(double *a, lapack_int *piv, int n) {
    for (int k = 0; k < n; ++k) {
        double *rk = a + k * n;
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(a[i * n + k]) > fabs(a[p * n + k])) p = i;
        piv[k] = p;
        for (int j = 0; p != k && j < n; ++j) {
            double t = rk[j];
            rk[j] = a[p * n + j];
            a[p * n + j] = t;
        }
        if (rk[k] == 0.0) continue;
        double inv = 1.0 / rk[k];
        for (int i = k + 1; i < n; ++i) {
            double *ri = a + i * n, l = ri[k] *= inv;
            row_update(ri + k + 1, rk + k + 1, l, n - k - 1);
        }
    }
}

/* b ← A⁻¹ b from the factors of small_lu, column by column: once b_j is final it is taken out
 * of every later (earlier) row at once, so the rows' updates are independent of each other
 * instead of one chain of dependent subtractions per row. The forward sweep subtracts in the
 * same order as row by row (the same bits); the backward one from the last column down. */
LA_HOT static void small_solve(const double *a, const lapack_int *piv, int n, double *b) {
    for (int k = 0; k < n; ++k) {
        double t = b[k];
        b[k] = b[piv[k]];
        b[piv[k]] = t;
    }
    for (int j = 0; j < n - 1; ++j) {
        const double bj = b[j];
        for (int i = j + 1; i < n; ++i) b[i] -= a[i * n + j] * bj;
    }
    for (int j = n - 1; j >= 0; --j) {
        const double bj = b[j] /= a[j * n + j];
        for (int i = 0; i < j; ++i) b[i] -= a[i * n + j] * bj;
    }
}

/* Entries of the dense buffer, n². */
static size_t dense_size(const ld_la *la) {
    return (size_t)la->n * (size_t)la->n;
}

static int dense_init(ld_la *la) {
    size_t n = (size_t)la->n;
    if (n > SIZE_MAX / sizeof(double) / n) return LD_ENOMEM;
    la->lu = ld_xmalloc(dense_size(la) * sizeof *la->lu, "the dense factorization");
    la->ipiv = ld_xmalloc(n * sizeof *la->ipiv, "the dense factorization");
    la->st.nnz = la->st.lu_nnz = dense_size(la);
    return la->lu && la->ipiv ? LD_OK : LD_ENOMEM;
}

static void dense_release(ld_la *la) {
    free(la->lu);
    free(la->ipiv);
}

/* Factor the copy of A in lu; LD_ESINGULAR if a pivot is at most n·eps·amax. */
static int dense_factor_lu(ld_la *la, double amax) {
    int n = la->n;
    ++la->st.factorizations;
    if (n <= LA_SMALL)
        small_lu(la->lu, la->ipiv, n);
    else if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, la->lu, n, la->ipiv) < 0)
        return LD_EINVAL;
    double tol = singular_tol(n, amax);
    for (size_t k = 0; k < (size_t)n; ++k)
        if (!(fabs(la->lu[k * (size_t)n + k]) > tol)) return LD_ESINGULAR;
    return LD_OK;
}

static int dense_factor_dense(ld_la *la, const double *A, double amax) {
    memcpy(la->lu, A, dense_size(la) * sizeof *A);
    return dense_factor_lu(la, amax);
}

/* Expand B into lu (row-major), then factor; LD_EINVAL for a row index that is not valid. */
static int dense_factor_csc(ld_la *la, const la_csc *B, double amax) {
    size_t n = (size_t)la->n;
    if (!csc_valid(la->n, B->p, B->i)) return LD_EINVAL;
    memset(la->lu, 0, dense_size(la) * sizeof *la->lu);
    for (size_t j = 0; j < n; ++j)
        for (int q = B->p[j]; q < B->p[j + 1]; ++q) la->lu[(size_t)B->i[q] * n + j] = B->x[q];
    return dense_factor_lu(la, amax);
}

static int dense_solve(ld_la *la, double *b) {
    int n = la->n;
    if (n <= LA_SMALL) {
        small_solve(la->lu, la->ipiv, n, b);
        return LD_OK;
    }
    lapack_int info = LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', n, 1, la->lu, n, la->ipiv, b, n);
    return info == 0 ? LD_OK : LD_EINVAL;
}

static const la_ops dense_ops = {dense_init, dense_release, dense_factor_dense, dense_factor_csc,
                                 dense_solve};

/* ------------------------------------------------------------------ KLU backend */

/* The liedyn status for a failed KLU call. */
static int from_klu(int status) {
    switch (status) {
    case KLU_SINGULAR:
        return LD_ESINGULAR;
    case KLU_OUT_OF_MEMORY:
    case KLU_TOO_LARGE:
        return LD_ENOMEM;
    default:
        return LD_EINVAL;
    }
}

static int sparse_init(ld_la *la) {
    size_t n1 = (size_t)la->n + 1;
    klu_defaults(&la->common);
    la->common.tol = LA_KLU_TOL;
    la->Ap = ld_xcalloc(n1, sizeof *la->Ap,
                        "the sparse pattern"); /* an empty pattern until the first factorization */
    la->Ap2 = ld_xcalloc(n1, sizeof *la->Ap2, "the sparse pattern");
    return la->Ap && la->Ap2 ? LD_OK : LD_ENOMEM;
}

static void sparse_release(ld_la *la) {
    klu_free_numeric(&la->num, &la->common);
    klu_free_symbolic(&la->sym, &la->common);
    free(la->Ap);
    free(la->Ap2);
    free(la->Ai);
    free(la->Ax);
}

/* Copy A into the stored pattern's values; 0 if A has a nonzero outside the pattern. */
static int gather_dense(ld_la *la, const double *A) {
    size_t n = (size_t)la->n;
    for (size_t j = 0; j < n; ++j) {
        int q = la->Ap[j], end = la->Ap[j + 1];
        for (size_t i = 0; i < n; ++i) {
            double v = A[i * n + j];
            if (q < end && (size_t)la->Ai[q] == i)
                la->Ax[q++] = v;
            else if (v != 0.0)
                return 0;
        }
    }
    return 1;
}

/* Copy B's values into the stored pattern's (0 where B has no entry); 0 if B has an entry
 * outside the pattern. A column with the stored rows is copied whole. */
static int gather_csc(ld_la *la, const la_csc *B) {
    for (int j = 0; j < la->n; ++j) {
        int p = B->p[j], pend = B->p[j + 1], q0 = la->Ap[j];
        size_t c = (size_t)(pend - p);
        if (pend - p == la->Ap[j + 1] - q0 && !memcmp(B->i + p, la->Ai + q0, c * sizeof(int))) {
            memcpy(la->Ax + q0, B->x + p, c * sizeof(double));
            continue;
        }
        for (int q = q0; q < la->Ap[j + 1]; ++q) {
            if (p < pend && B->i[p] < la->Ai[q]) return 0; /* row B->i[p] was passed over */
            la->Ax[q] = p < pend && B->i[p] == la->Ai[q] ? B->x[p++] : 0.0;
        }
        if (p < pend) return 0;
    }
    return 1;
}

/* Rows of column j of (stored pattern) ∪ {i : a_ij ≠ 0} ∪ {j}, ascending, into rows (NULL:
 * count only); returns their number. */
static int union_dense(const ld_la *la, const double *A, int j, int *rows) {
    int n = la->n, q = la->Ap[j], end = la->Ap[j + 1], c = 0;
    for (int i = 0; i < n; ++i) {
        int old = q < end && la->Ai[q] == i;
        q += old;
        if (old || i == j || A[(size_t)i * (size_t)n + (size_t)j] != 0.0) {
            if (rows) rows[c] = i;
            ++c;
        }
    }
    return c;
}

/* Rows of column j of (stored pattern) ∪ B ∪ {j}, ascending, into rows (NULL: count only);
 * returns their number. A three-way merge of sorted lists. */
static int union_csc(const ld_la *la, const la_csc *B, int j, int *rows) {
    int q = la->Ap[j], qend = la->Ap[j + 1], p = B->p[j], pend = B->p[j + 1], c = 0;
    int diag = 1; /* j not yet emitted */
    while (q < qend || p < pend || diag) {
        int r = diag ? j : INT_MAX;
        if (q < qend && la->Ai[q] < r) r = la->Ai[q];
        if (p < pend && B->i[p] < r) r = B->i[p];
        q += q < qend && la->Ai[q] == r;
        p += p < pend && B->i[p] == r;
        diag = diag && r != j;
        if (rows) rows[c] = r;
        ++c;
    }
    return c;
}

/* Replace the stored pattern by its union with the input's entries (A or B) and the diagonal.
 * On failure the stored pattern is unchanged. */
static int pattern_grow(ld_la *la, const double *A, const la_csc *B) {
    int n = la->n, *Ap = la->Ap2;
    Ap[0] = 0;
    for (int j = 0; j < n; ++j) {
        int c = A ? union_dense(la, A, j, NULL) : union_csc(la, B, j, NULL);
        if (c > INT_MAX - Ap[j]) return LD_ENOMEM; /* KLU counts entries in int */
        Ap[j + 1] = Ap[j] + c;
    }
    int *Ai = ld_xmalloc((size_t)Ap[n] * sizeof *Ai, "the sparse matrix");
    double *Ax = ld_xmalloc((size_t)Ap[n] * sizeof *Ax, "the sparse matrix");
    if (!Ai || !Ax) {
        free(Ai);
        free(Ax);
        return LD_ENOMEM;
    }
    for (int j = 0; j < n; ++j) {
        if (A)
            union_dense(la, A, j, Ai + Ap[j]);
        else
            union_csc(la, B, j, Ai + Ap[j]);
    }
    free(la->Ai);
    free(la->Ax);
    la->Ai = Ai;
    la->Ax = Ax;
    la->Ap2 = la->Ap;
    la->Ap = Ap;
    return LD_OK;
}

/* A new symbolic analysis of the stored pattern; the old one and its factors are dropped. */
static int sparse_analyze(ld_la *la) {
    klu_free_numeric(&la->num, &la->common);
    klu_free_symbolic(&la->sym, &la->common);
    la->sym = klu_analyze(la->n, la->Ap, la->Ai, &la->common);
    if (!la->sym) return from_klu(la->common.status);
    ++la->st.symbolic;
    la->st.nnz = (size_t)la->Ap[la->n];
    la->pick = 1;
    return LD_OK;
}

/* Load the input (A or B) into the stored pattern's values. When it does not fit (or nothing
 * was analysed yet), grow the pattern and analyse it anew. B's row indices are checked only
 * then: a B that fits is valid, since its rows matched the stored (valid) ones in order. */
static int sparse_load(ld_la *la, const double *A, const la_csc *B) {
    if (la->sym && (A ? gather_dense(la, A) : gather_csc(la, B))) return LD_OK;
    if (B && !csc_valid(la->n, B->p, B->i)) return LD_EINVAL;
    int rc = pattern_grow(la, A, B);
    if (rc != LD_OK) return rc;
    if (A)
        gather_dense(la, A);
    else
        gather_csc(la, B);
    return sparse_analyze(la);
}

/* Scan the pivots of num: 0 if one, with KLU's row scaling undone (Rs[k] scales pivot row k),
 * is at most tol; else 1 and *ratio = min |u_kk| / max |u_kk| over the scaled pivots. */
static int pivots_of(const ld_la *la, const klu_numeric *num, double tol, double *ratio) {
    const double *u = num->Udiag, *rs = num->Rs;
    double lo = INFINITY, hi = 0.0;
    for (int k = 0; k < la->n; ++k) {
        double d = fabs(u[k]);
        if (!(d * (rs ? rs[k] : 1.0) > tol)) return 0;
        lo = fmin(lo, d);
        hi = fmax(hi, d);
    }
    *ratio = lo / hi;
    return 1;
}

/* Entries of L and U as KLU counts them (each with the diagonal). */
static size_t lu_entries(const klu_numeric *num) {
    return (size_t)num->lnz + (size_t)num->unz;
}

static int sparse_pivots(const ld_la *la, double tol, double *ratio) {
    return pivots_of(la, la->num, tol, ratio);
}

/* After a pivoting factorization of a new analysis (AMD's order, KLU's default; until one under
 * the kept order passes the pivot test): factor the same values under COLAMD's column order too
 * and keep the analysis whose L + U has fewer entries, among those without a small pivot. AMD
 * orders A + Aᵀ and does not see the zero diagonal of a saddle-point matrix's constraint rows, so
 * partial pivoting can fill far beyond its estimate (DRC-Hubo's Newton matrix: 22 400 entries in L
 * + U under AMD, 13 200 under COLAMD); on most models AMD's are the fewer (docs/linalg.md). */
static void pick_ordering(ld_la *la, double tol) {
    double r1, r2;
    la->common.ordering = 1;
    klu_symbolic *sym = klu_analyze(la->n, la->Ap, la->Ai, &la->common);
    klu_numeric *num = sym ? klu_factor(la->Ap, la->Ai, la->Ax, sym, &la->common) : NULL;
    la->common.ordering = 0;
    int ok1 = pivots_of(la, la->num, tol, &r1), ok2 = num && pivots_of(la, num, tol, &r2);
    if (ok2 && (!ok1 || lu_entries(num) < lu_entries(la->num))) {
        klu_free_numeric(&la->num, &la->common);
        klu_free_symbolic(&la->sym, &la->common);
        la->sym = sym, la->num = num;
        sym = NULL, num = NULL;
    }
    klu_free_numeric(&num, &la->common);
    klu_free_symbolic(&sym, &la->common);
}

/* Refactor with the kept pivot order: did it run, give no small pivot, and keep the pivot
 * ratio near that of the last pivoting factorization? (A stale order shows as a tiny pivot
 * among large ones: growth.) */
static int sparse_refactor(ld_la *la, double tol) {
    double ratio;
    return klu_refactor(la->Ap, la->Ai, la->Ax, la->sym, la->num, &la->common) &&
           sparse_pivots(la, tol, &ratio) && ratio >= LA_RATIO_DROP * la->ratio;
}

/* Numeric factorization of the loaded values: klu_refactor when a factorization under this
 * analysis exists and its pivot order still serves, else klu_factor (pivoting anew). */
static int sparse_numeric(ld_la *la, double amax) {
    double tol = singular_tol(la->n, amax);
    ++la->st.factorizations;
    if (la->num && sparse_refactor(la, tol)) return LD_OK;
    klu_free_numeric(&la->num, &la->common);
    la->num = klu_factor(la->Ap, la->Ai, la->Ax, la->sym, &la->common);
    if (!la->num) return from_klu(la->common.status);
    if (la->pick) pick_ordering(la, tol);
    la->st.lu_nnz = lu_entries(la->num);
    if (sparse_pivots(la, tol, &la->ratio)) {
        la->pick = 0; /* chosen on a nonsingular matrix: kept for this pattern */
        return LD_OK;
    }
    klu_free_numeric(&la->num, &la->common); /* the next factorization pivots anew */
    return LD_ESINGULAR;
}

static int sparse_factor_dense(ld_la *la, const double *A, double amax) {
    int rc = sparse_load(la, A, NULL);
    return rc == LD_OK ? sparse_numeric(la, amax) : rc;
}

static int sparse_factor_csc(ld_la *la, const la_csc *B, double amax) {
    int rc = sparse_load(la, NULL, B);
    return rc == LD_OK ? sparse_numeric(la, amax) : rc;
}

static int sparse_solve(ld_la *la, double *b) {
    return klu_solve(la->sym, la->num, la->n, 1, b, &la->common) ? LD_OK : LD_EINVAL;
}

static const la_ops sparse_ops = {sparse_init, sparse_release, sparse_factor_dense,
                                  sparse_factor_csc, sparse_solve};

/* ------------------------------------------------------------------ public interface */

ld_la_kind ld_la_choose_rows(int n, int m, size_t nnz) {
    if (n < LD_LA_CROSSOVER || nnz == 0) return LD_LA_DENSE;
    double w = m > 0 ? LD_LA_WORK_SADDLE : LD_LA_WORK_PLAIN, nn = (double)n * (double)n;
    /* past half full, the factors fill in and KLU does the dense work at a higher cost */
    if (2.0 * (double)nnz > nn) return LD_LA_DENSE;
    return w * (double)nnz < nn * (double)n ? LD_LA_KLU : LD_LA_DENSE;
}

ld_la_kind ld_la_choose(int n, size_t nnz) {
    return ld_la_choose_rows(n, 1, nnz);
}

/* OpenBLAS (when it is the BLAS linked) spreads even a 24×24 factorization over threads that
 * then spin in sched_yield: a third of the time of a small beam's step. The dense path is for
 * small systems, so liedyn runs OpenBLAS on one thread unless OPENBLAS_NUM_THREADS is set. The
 * symbols are weak: with another BLAS they are absent and nothing is called. */
extern void openblas_set_num_threads(int) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));
static void blas_one_thread(void) {
    if (!openblas_set_num_threads || getenv("OPENBLAS_NUM_THREADS")) return;
    /* only when not already one: setting it starts stopped workers again, which then spin */
    if (openblas_get_num_threads && openblas_get_num_threads() == 1) return;
    openblas_set_num_threads(1);
}

ld_la *ld_la_create(ld_la_kind kind, int n) {
    if (kind == LD_LA_AUTO) kind = ld_la_choose(n, 0);
    if (kind == LD_LA_DENSE) blas_one_thread();
    if (n < 1 || (kind != LD_LA_DENSE && kind != LD_LA_KLU)) return NULL;
    ld_la *la = ld_xcalloc(1, sizeof *la, "the linear solver");
    if (!la) return NULL;
    la->kind = kind;
    la->n = n;
    la->ops = kind == LD_LA_DENSE ? &dense_ops : &sparse_ops;
    if (la->ops->init(la) != LD_OK) {
        ld_la_free(la);
        return NULL;
    }
    return la;
}

void ld_la_free(ld_la *la) {
    if (!la) return;
    la->ops->release(la);
    free(la);
}

ld_la_kind ld_la_get_kind(const ld_la *la) {
    return la ? la->kind : LD_LA_DENSE;
}

const char *ld_la_kind_name(ld_la_kind kind) {
    switch (kind) {
    case LD_LA_DENSE:
        return "dense";
    case LD_LA_KLU:
        return "klu";
    case LD_LA_AUTO:
        return "auto";
    }
    return NULL;
}

int ld_la_kind_find(const char *name) {
    if (!name) return -1;
    if (strcmp(name, "dense") == 0) return LD_LA_DENSE;
    if (strcmp(name, "klu") == 0) return LD_LA_KLU;
    if (strcmp(name, "auto") == 0) return LD_LA_AUTO;
    return -1;
}

/* Record the outcome of a factorization: only LD_OK leaves a factorization to solve with. */
static int factored(ld_la *la, int rc) {
    la->ok = rc == LD_OK;
    return rc;
}

int ld_la_factor_dense(ld_la *la, const double *A) {
    if (!la) return LD_EINVAL;
    la->ok = 0;
    double amax;
    if (!A || !finite_max(A, (size_t)la->n * (size_t)la->n, &amax)) return LD_EINVAL;
    return factored(la, la->ops->factor_dense(la, A, amax));
}

int ld_la_factor_csc(ld_la *la, const int *colptr, const int *rowind, const double *values) {
    if (!la) return LD_EINVAL;
    la->ok = 0;
    double amax;
    if (!colptr || !rowind || !values || !colptr_valid(la->n, colptr) ||
        !finite_max(values, (size_t)colptr[la->n], &amax))
        return LD_EINVAL;
    la_csc B = {colptr, rowind, values};
    return factored(la, la->ops->factor_csc(la, &B, amax));
}

int ld_la_solve(ld_la *la, double *b) {
    if (!la || !b || !la->ok) return LD_EINVAL;
    int rc = la->ops->solve(la, b);
    if (rc == LD_OK) ++la->st.solves;
    return rc;
}

void ld_la_get_stats(const ld_la *la, ld_la_stats *st) {
    if (!st) return;
    if (la)
        *st = la->st;
    else
        memset(st, 0, sizeof *st);
}

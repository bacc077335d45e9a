/*
 * The linear solvers (ld_la): both backends and both input forms solve random well-conditioned
 * systems of every size around the plain-C / LAPACK switch to a residual of 1e-12 ‖A‖‖x‖;
 * matrices that need pivoting (zero diagonal, saddle points) solve; KLU analyses a pattern
 * once, analyses again only when an input grows it, and re-pivots when the kept pivot
 * order goes bad; exactly and numerically singular matrices are rejected and leave nothing to
 * solve with; badly scaled regular matrices are not; bad arguments are rejected.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/linalg.h"

#include <klu.h>

#define NKINDS 2
static const ld_la_kind KINDS[NKINDS] = {LD_LA_DENSE, LD_LA_KLU};
enum form { DENSE_IN, CSC_IN };
static const char *const FORM_NAME[] = {"dense input", "CSC input"};

/* ------------------------------------------------------------------ matrices */

static double *new_matrix(int n) {
    double *A = calloc((size_t)n * (size_t)n, sizeof *A);
    assert_non_null(A);
    return A;
}

/* Well conditioned and in need of pivoting: entries uniform in [-1, 1], each kept with
 * probability density, plus 3√n at (i, perm(i)) of a random permutation. */
static void random_matrix(rng *r, int n, double density, double *A) {
    int *perm = malloc((size_t)n * sizeof *perm);
    assert_non_null(perm);
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
        int j = (int)(rng_next(r) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int k = 0; k < n * n; ++k) {
        double v = rng_range(r, -1.0, 1.0);
        A[k] = rng_unif(r) < density ? v : 0.0;
    }
    for (int i = 0; i < n; ++i) A[i * n + perm[i]] += 3.0 * sqrt((double)n);
    free(perm);
}

/* Same pattern, new values: every nonzero times a factor in [0.5, 1.5]. */
static void revalue(rng *r, int n, double *A) {
    for (int k = 0; k < n * n; ++k)
        if (A[k] != 0.0) A[k] *= rng_range(r, 0.5, 1.5);
}

/* [[M, Bᵀ], [B, 0]]: M (m×m) symmetric, diagonally dominant, B (c×m) random. */
static void saddle_matrix(rng *r, int m, int c, double *A) {
    int n = m + c;
    memset(A, 0, (size_t)n * (size_t)n * sizeof *A);
    for (int i = 0; i < m; ++i) {
        A[i * n + i] = m + 1.0;
        for (int j = 0; j < i; ++j) A[i * n + j] = A[j * n + i] = rng_range(r, -1.0, 1.0);
    }
    for (int i = m; i < n; ++i)
        for (int j = 0; j < m; ++j) A[i * n + j] = A[j * n + i] = rng_range(r, -1.0, 1.0);
}

typedef struct csc {
    int *p, *i;
    double *x;
} csc;

/* CSC copy of the nonzeros of the row-major n×n A, with diag also of its zero diagonal. */
static csc to_csc_pattern(const double *A, int n, int diag) {
    int nnz = 0;
    for (int k = 0; k < n * n; ++k) nnz += A[k] != 0.0 || (diag && k % (n + 1) == 0);
    csc m = {calloc((size_t)n + 1, sizeof(int)), calloc((size_t)nnz + 1, sizeof(int)),
             calloc((size_t)nnz + 1, sizeof(double))};
    assert_true(m.p && m.i && m.x);
    int q = 0;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i)
            if (A[i * n + j] != 0.0 || (diag && i == j)) {
                m.i[q] = i;
                m.x[q++] = A[i * n + j];
            }
        m.p[j + 1] = q;
    }
    return m;
}

static csc to_csc(const double *A, int n) {
    return to_csc_pattern(A, n, 0);
}

static void csc_free(csc *m) {
    free(m->p);
    free(m->i);
    free(m->x);
}

/* Factor A in the given input form. */
static int factor(ld_la *la, enum form f, const double *A, int n) {
    if (f == DENSE_IN) return ld_la_factor_dense(la, A);
    csc m = to_csc(A, n);
    int rc = ld_la_factor_csc(la, m.p, m.i, m.x);
    csc_free(&m);
    return rc;
}

/* Entries of the pattern KLU should store for A: its nonzeros and the diagonal. */
static size_t pattern_size(const double *A, int n) {
    size_t c = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) c += A[i * n + j] != 0.0 || i == j;
    return c;
}

static double norm_inf(const double *A, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) s += fabs(A[i * n + j]);
        m = fmax(m, s);
    }
    return m;
}

/* With la factored from A: solve A x = A x* for a random x*. The residual must be within
 * 1e-12 ‖A‖∞‖x‖∞ and, if fwd > 0, the error within fwd ‖x*‖∞. */
static void check_solve(ld_la *la, const double *A, int n, double fwd, rng *r, const char *what) {
    double *xt = malloc((size_t)n * sizeof *xt), *b = malloc((size_t)n * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x);
    assert_true(xt && b && x);
    for (int i = 0; i < n; ++i) xt[i] = rng_range(r, -1.0, 1.0);
    for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) s += A[i * n + j] * xt[j];
        b[i] = x[i] = s;
    }
    int rc = ld_la_solve(la, x);
    if (rc != LD_OK) fail_msg("%s: solve returned %d", what, rc);
    double res = 0.0;
    for (int i = 0; i < n; ++i) {
        double s = -b[i];
        for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j];
        res = fmax(res, fabs(s));
    }
    double tol = 1e-12 * norm_inf(A, n) * maxabs(x, n), err = maxabs_diff(x, xt, n);
    if (!(res <= tol)) fail_msg("%s: residual %.3e > %.3e", what, res, tol);
    if (fwd > 0.0 && !(err <= fwd * maxabs(xt, n)))
        fail_msg("%s: error %.3e > %.3e", what, err, fwd * maxabs(xt, n));
    free(xt);
    free(b);
    free(x);
}

static ld_la *create(ld_la_kind kind, int n) {
    ld_la *la = ld_la_create(kind, n);
    assert_non_null(la);
    assert_int_equal(ld_la_get_kind(la), kind);
    return la;
}

static ld_la_stats stats(const ld_la *la) {
    ld_la_stats st;
    ld_la_get_stats(la, &st);
    return st;
}

/* ------------------------------------------------------------------ names, arguments */

static void test_kind_names(void **state) {
    (void)state;
    assert_string_equal(ld_la_kind_name(LD_LA_DENSE), "dense");
    assert_string_equal(ld_la_kind_name(LD_LA_KLU), "klu");
    assert_null(ld_la_kind_name((ld_la_kind)7));
    assert_int_equal(ld_la_kind_find("dense"), LD_LA_DENSE);
    assert_int_equal(ld_la_kind_find("klu"), LD_LA_KLU);
    assert_int_equal(ld_la_kind_find("KLU"), -1);
    assert_int_equal(ld_la_kind_find("lapack"), -1);
    assert_int_equal(ld_la_kind_find(""), -1);
    assert_int_equal(ld_la_kind_find(NULL), -1);
}

/* A valid 2×2 CSC input, then invalid ones: each must give LD_EINVAL. */
static void check_bad_csc(ld_la *la) {
    static const int p_ok[] = {0, 2, 4}, i_ok[] = {0, 1, 0, 1};
    static const int p_start[] = {1, 2, 4}, p_down[] = {0, 3, 2, 4};
    static const int i_neg[] = {0, -1, 0, 1}, i_big[] = {0, 2, 0, 1};
    static const int i_dup[] = {0, 0, 0, 1}, i_unsorted[] = {1, 0, 0, 1};
    static const double x[] = {1.0, 2.0, 3.0, 4.0};
    static const double x_nan[] = {1.0, NAN, 3.0, 4.0}, x_inf[] = {1.0, 2.0, INFINITY, 4.0};
    assert_int_equal(ld_la_factor_csc(la, p_ok, i_ok, x), LD_OK);
    assert_int_equal(ld_la_factor_csc(la, NULL, i_ok, x), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(la, p_ok, NULL, x), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(la, p_ok, i_ok, NULL), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(la, p_start, i_ok, x), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(la, p_down, i_ok, x), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(la, p_ok, i_neg, x), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(la, p_ok, i_big, x), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(la, p_ok, i_dup, x), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(la, p_ok, i_unsorted, x), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(la, p_ok, i_ok, x_nan), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(la, p_ok, i_ok, x_inf), LD_EINVAL);
}

static void test_bad_arguments(void **state) {
    (void)state;
    assert_null(ld_la_create(LD_LA_DENSE, 0));
    assert_null(ld_la_create(LD_LA_KLU, -3));
    assert_null(ld_la_create((ld_la_kind)7, 4));
    ld_la_free(NULL);
    assert_int_equal(ld_la_factor_dense(NULL, (double[]){1.0}), LD_EINVAL);
    assert_int_equal(ld_la_factor_csc(NULL, (int[]){0, 1}, (int[]){0}, (double[]){1.0}), LD_EINVAL);
    assert_int_equal(ld_la_solve(NULL, (double[]){1.0}), LD_EINVAL);
    ld_la_stats st = {1, 2, 3, 4, 5};
    ld_la_get_stats(NULL, &st);
    assert_true(st.factorizations == 0 && st.symbolic == 0 && st.solves == 0 && st.nnz == 0 &&
                st.lu_nnz == 0);
    for (int k = 0; k < NKINDS; ++k) {
        ld_la *la = create(KINDS[k], 2);
        ld_la_get_stats(la, NULL);
        double b[2] = {1.0, 2.0}, A[4] = {2.0, 1.0, 1.0, 3.0};
        assert_int_equal(ld_la_solve(la, b), LD_EINVAL); /* nothing factored yet */
        assert_int_equal(ld_la_factor_dense(la, A), LD_OK);
        assert_int_equal(ld_la_solve(la, NULL), LD_EINVAL);
        assert_int_equal(ld_la_factor_dense(la, NULL), LD_EINVAL);
        assert_int_equal(ld_la_solve(la, b), LD_EINVAL); /* a failed factor discards the last */
        double A_nan[4] = {2.0, NAN, 1.0, 3.0}, A_inf[4] = {2.0, 1.0, -INFINITY, 3.0};
        assert_int_equal(ld_la_factor_dense(la, A_nan), LD_EINVAL);
        assert_int_equal(ld_la_factor_dense(la, A_inf), LD_EINVAL);
        check_bad_csc(la);
        assert_int_equal(ld_la_solve(la, b), LD_EINVAL);
        assert_true(b[0] == 1.0 && b[1] == 2.0); /* a refused solve leaves b alone */
        assert_int_equal(ld_la_factor_dense(la, A), LD_OK);
        assert_int_equal(ld_la_solve(la, b), LD_OK);
        assert_true(fabs(b[0] - 0.2) < 1e-15 && fabs(b[1] - 0.6) < 1e-15);
        ld_la_free(la);
    }
}

/* ------------------------------------------------------------------ random systems */

static const int SIZES[] = {1, 2, 3, 6, 9, 12, 13, 24, 32, 33, 50, 200};
#define NSIZES ((int)(sizeof SIZES / sizeof SIZES[0]))

/* Two matrices with one pattern (density given) through one solver, two right-hand sides
 * each; the counters follow. */
static void check_random(enum form f, double density, uint64_t seed) {
    rng r = rng_seed(seed);
    for (int k = 0; k < NKINDS; ++k)
        for (int s = 0; s < NSIZES; ++s) {
            int n = SIZES[s];
            char what[96];
            snprintf(what, sizeof what, "%s, %s, n = %d", ld_la_kind_name(KINDS[k]), FORM_NAME[f],
                     n);
            double *A = new_matrix(n);
            random_matrix(&r, n, density, A);
            ld_la *la = create(KINDS[k], n);
            for (int m = 0; m < 2; ++m) {
                if (m == 1) revalue(&r, n, A);
                assert_int_equal(factor(la, f, A, n), LD_OK);
                check_solve(la, A, n, 1e-12, &r, what);
                check_solve(la, A, n, 1e-12, &r, what);
            }
            ld_la_stats st = stats(la);
            assert_int_equal(st.factorizations, 2);
            assert_int_equal(st.solves, 4);
            assert_int_equal(st.symbolic, KINDS[k] == LD_LA_KLU);
            size_t nnz = KINDS[k] == LD_LA_KLU ? pattern_size(A, n) : (size_t)n * (size_t)n;
            assert_true(st.nnz == nnz);
            ld_la_free(la);
            free(A);
        }
}

static void test_random_dense_input(void **state) {
    (void)state;
    check_random(DENSE_IN, 1.0, 101);
    check_random(DENSE_IN, 0.3, 102);
}

static void test_random_csc_input(void **state) {
    (void)state;
    check_random(CSC_IN, 1.0, 201);
    check_random(CSC_IN, 0.3, 202);
}

/* A is not modified by either factorization. */
static void test_input_unchanged(void **state) {
    (void)state;
    rng r = rng_seed(7);
    for (int k = 0; k < NKINDS; ++k)
        for (int n = 5; n <= 25; n += 20) {
            double *A = new_matrix(n), *A0 = new_matrix(n);
            random_matrix(&r, n, 0.5, A);
            memcpy(A0, A, (size_t)n * (size_t)n * sizeof *A);
            ld_la *la = create(KINDS[k], n);
            assert_int_equal(ld_la_factor_dense(la, A), LD_OK);
            assert_memory_equal(A, A0, (size_t)n * (size_t)n * sizeof *A);
            csc m = to_csc(A, n), m0 = to_csc(A, n);
            assert_int_equal(ld_la_factor_csc(la, m.p, m.i, m.x), LD_OK);
            assert_memory_equal(m.p, m0.p, ((size_t)n + 1) * sizeof(int));
            assert_memory_equal(m.i, m0.i, (size_t)m.p[n] * sizeof(int));
            assert_memory_equal(m.x, m0.x, (size_t)m.p[n] * sizeof(double));
            csc_free(&m);
            csc_free(&m0);
            ld_la_free(la);
            free(A);
            free(A0);
        }
}

/* ------------------------------------------------------------------ sparse */

/* 300×300 block tridiagonal (50 blocks of 6), nonsymmetric, through CSC; refactored once. */
static void test_block_tridiagonal_csc(void **state) {
    (void)state;
    enum { NB = 50, B = 6, N = NB * B };
    rng r = rng_seed(300);
    double *A = new_matrix(N);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j)
            if (abs(i / B - j / B) <= 1) A[i * N + j] = i == j ? 20.0 : rng_range(&r, -1.0, 1.0);
    for (int k = 0; k < NKINDS; ++k) {
        ld_la *la = create(KINDS[k], N);
        for (int m = 0; m < 2; ++m) {
            if (m == 1) revalue(&r, N, A);
            assert_int_equal(factor(la, CSC_IN, A, N), LD_OK);
            check_solve(la, A, N, 1e-12, &r, ld_la_kind_name(KINDS[k]));
        }
        ld_la_stats st = stats(la);
        assert_int_equal(st.factorizations, 2);
        assert_int_equal(st.symbolic, KINDS[k] == LD_LA_KLU);
        assert_true(st.nnz == (KINDS[k] == LD_LA_KLU ? (size_t)(NB * B * B + 2 * (NB - 1) * B * B)
                                                     : (size_t)N * N));
        ld_la_free(la);
    }
    free(A);
}

/* Many factorizations with one pattern: one symbolic analysis, whatever the input form, even
 * when some stored entries are zero. */
static void test_klu_same_pattern(void **state) {
    (void)state;
    enum { N = 40 };
    rng r = rng_seed(40);
    double *A = new_matrix(N), *Z = new_matrix(N);
    random_matrix(&r, N, 0.2, A);
    ld_la *la = create(LD_LA_KLU, N);
    for (int m = 0; m < 6; ++m) {
        revalue(&r, N, A);
        assert_int_equal(factor(la, m % 2 ? CSC_IN : DENSE_IN, A, N), LD_OK);
        check_solve(la, A, N, 1e-12, &r, "same pattern");
    }
    memcpy(Z, A, sizeof(double) * N * N); /* drop a few off-permutation entries: a subset */
    for (int k = 0, dropped = 0; k < N * N && dropped < 5; ++k)
        if (Z[k] != 0.0 && fabs(Z[k]) < 1.0) {
            Z[k] = 0.0;
            ++dropped;
        }
    for (int f = DENSE_IN; f <= CSC_IN; ++f) {
        assert_int_equal(factor(la, (enum form)f, Z, N), LD_OK);
        check_solve(la, Z, N, 1e-12, &r, "subset of the pattern");
    }
    ld_la_stats st = stats(la);
    assert_int_equal(st.symbolic, 1);
    assert_int_equal(st.factorizations, 8);
    assert_true(st.nnz == pattern_size(A, N));
    ld_la_free(la);
    free(A);
    free(Z);
}

/* A multibody saddle matrix [[M, Bᵀ], [B, 0]]: nb bodies of 6 unknowns (M block diagonal,
 * diagonally dominant blocks), 3 constraint rows per joint of a random tree (a joint on body i
 * and its parent, or the ground for the root): row j holds 1 at the body's position j (B has
 * full rank) and up to 3 random entries on the two bodies' 12 columns. */
static int tree_saddle(rng *r, int nb, double *A) {
    int m = 6 * nb, n = m + 3 * nb;
    memset(A, 0, (size_t)n * (size_t)n * sizeof *A);
    for (int b = 0; b < nb; ++b)
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j)
                A[(6 * b + i) * n + 6 * b + j] = i == j ? 10.0 : rng_range(r, -1.0, 1.0);
    for (int b = 0; b < nb; ++b) {
        int parent = b ? (int)(rng_next(r) % (uint64_t)b) : -1;
        for (int i = 0; i < 3; ++i) {
            int row = m + 3 * b + i, own = 6 * b + 3 + i; /* the body's own position: full rank */
            A[row * n + own] = A[own * n + row] = 1.0;
            for (int k = 0; k < 3; ++k) {
                int body = parent >= 0 && rng_unif(r) < 0.5 ? parent : b;
                int col = 6 * body + (int)(rng_next(r) % 6);
                if (col != own) A[row * n + col] = A[col * n + row] = rng_range(r, -1.0, 1.0);
            }
        }
    }
    return n;
}

/* Entries of L + U when KLU (pivot tolerance 0.1, the library's) factors A, with the pattern
 * the library stores (nonzeros and diagonal), under ordering 0 (AMD) or 1 (COLAMD). */
static long klu_lu_entries(const double *A, int n, int ordering) {
    csc m = to_csc_pattern(A, n, 1);
    klu_common c;
    klu_defaults(&c);
    c.tol = 0.1;
    c.ordering = ordering;
    klu_symbolic *sym = klu_analyze(n, m.p, m.i, &c);
    klu_numeric *num = sym ? klu_factor(m.p, m.i, m.x, sym, &c) : NULL;
    if (!num) fail_msg("KLU (ordering %d) fails: status %d", ordering, c.status);
    long e = num->lnz + num->unz;
    klu_free_numeric(&num, &c);
    klu_free_symbolic(&sym, &c);
    csc_free(&m);
    return e;
}

/* A new pattern's first factorization keeps the column order (AMD's or COLAMD's) whose L + U
 * has fewer entries, and solves as accurately; random tree-shaped saddle matrices give both
 * outcomes. */
static void test_klu_ordering(void **state) {
    (void)state;
    enum { NB = 24, NMAX = 9 * NB };
    rng r = rng_seed(50);
    double *A = new_matrix(NMAX);
    int amd_less = 0, colamd_less = 0;
    for (int t = 0; t < 40; ++t) {
        int n = tree_saddle(&r, NB, A);
        long amd = klu_lu_entries(A, n, 0), colamd = klu_lu_entries(A, n, 1);
        amd_less += amd < colamd, colamd_less += colamd < amd;
        ld_la *la = create(LD_LA_KLU, n);
        assert_int_equal(factor(la, t % 2 ? CSC_IN : DENSE_IN, A, n), LD_OK);
        check_solve(la, A, n, 0.0, &r, "tree saddle matrix");
        ld_la_stats st = stats(la);
        if (st.lu_nnz != (size_t)(amd < colamd ? amd : colamd))
            fail_msg("case %d: L + U holds %zu entries; AMD's %ld, COLAMD's %ld", t, st.lu_nnz, amd,
                     colamd);
        ld_la_free(la);
    }
    print_message("L + U: AMD's fewer in %d cases, COLAMD's in %d of 40\n", amd_less, colamd_less);
    assert_true(amd_less > 0 && colamd_less > 0);
    free(A);
}

/* Tridiagonal, diagonally dominant n×n. */
static void tridiagonal(rng *r, int n, double *A) {
    memset(A, 0, (size_t)n * (size_t)n * sizeof *A);
    for (int i = 0; i < n; ++i)
        for (int j = i > 0 ? i - 1 : 0; j <= i + 1 && j < n; ++j)
            A[i * n + j] = i == j ? 4.0 : rng_range(r, -1.0, 1.0);
}

/* A dense input with a nonzero outside the stored pattern: a second analysis, of the union;
 * a later input inside the union needs none; inputs outside it (CSC, dense) a third and a
 * fourth, each pattern the union of everything seen. */
static void test_klu_pattern_growth(void **state) {
    (void)state;
    enum { N = 20 };
    rng r = rng_seed(20);
    double *A = new_matrix(N);
    for (int k = 0; k < NKINDS; ++k) {
        int klu = KINDS[k] == LD_LA_KLU;
        ld_la *la = create(KINDS[k], N);
        tridiagonal(&r, N, A);
        assert_int_equal(factor(la, DENSE_IN, A, N), LD_OK);
        check_solve(la, A, N, 1e-12, &r, "tridiagonal");
        assert_int_equal(stats(la).symbolic, klu);
        assert_true(stats(la).nnz == (size_t)(klu ? 3 * N - 2 : N * N));
        A[N - 1] = 0.5; /* (0, N-1), (N-1, 0), (5, 10): outside the band */
        A[(N - 1) * N] = -0.5;
        A[5 * N + 10] = 0.25;
        assert_int_equal(factor(la, DENSE_IN, A, N), LD_OK);
        check_solve(la, A, N, 1e-12, &r, "grown pattern");
        assert_int_equal(stats(la).symbolic, 2 * klu);
        assert_true(stats(la).nnz == (size_t)(klu ? 3 * N + 1 : N * N));
        tridiagonal(&r, N, A); /* inside the union: no new analysis */
        assert_int_equal(factor(la, DENSE_IN, A, N), LD_OK);
        check_solve(la, A, N, 1e-12, &r, "back to tridiagonal");
        assert_int_equal(stats(la).symbolic, 2 * klu);
        A[3 * N + 17] = 0.125; /* and a CSC input outside it */
        assert_int_equal(factor(la, CSC_IN, A, N), LD_OK);
        check_solve(la, A, N, 1e-12, &r, "grown by CSC");
        assert_int_equal(stats(la).symbolic, 3 * klu);
        assert_true(stats(la).nnz == (size_t)(klu ? 3 * N + 2 : N * N));
        tridiagonal(&r, N, A); /* the union keeps all earlier entries */
        A[7 * N + 2] = -0.125;
        assert_int_equal(factor(la, DENSE_IN, A, N), LD_OK);
        check_solve(la, A, N, 1e-12, &r, "grown again");
        assert_int_equal(stats(la).symbolic, 4 * klu);
        assert_true(stats(la).nnz == (size_t)(klu ? 3 * N + 3 : N * N));
        assert_int_equal(stats(la).factorizations, 5);
        ld_la_free(la);
    }
    free(A);
}

/* The first matrix is diagonally dominant, so KLU pivots on the diagonal; the second has the
 * same pattern but a tiny diagonal, where that pivot order is unstable. The result must be as
 * accurate as a fresh factorization, without a new symbolic analysis. */
static void test_klu_repivots(void **state) {
    (void)state;
    enum { N = 30 };
    rng r = rng_seed(30);
    double *A = new_matrix(N);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) A[i * N + j] = i == j ? 10.0 * N : rng_range(&r, -1.0, 1.0);
    ld_la *la = create(LD_LA_KLU, N);
    assert_int_equal(ld_la_factor_dense(la, A), LD_OK);
    check_solve(la, A, N, 1e-12, &r, "diagonally dominant");
    random_matrix(&r, N, 1.0, A);
    for (int i = 0; i < N; ++i) A[i * N + i] = 1e-9 * (1.0 + i);
    for (int f = DENSE_IN; f <= CSC_IN; ++f) {
        assert_int_equal(factor(la, (enum form)f, A, N), LD_OK);
        check_solve(la, A, N, 1e-11, &r, "tiny diagonal");
    }
    assert_int_equal(stats(la).symbolic, 1);
    ld_la_free(la);
    free(A);
}

/* ------------------------------------------------------------------ pivoting */

/* Zero diagonals: permutations and saddle points [[M, Bᵀ], [B, 0]] on both sides of the
 * plain-C / LAPACK switch. */
static void test_pivoting_required(void **state) {
    (void)state;
    rng r = rng_seed(8);
    double swap2[4] = {0.0, 1.0, 1.0, 0.0};
    double cycle3[9] = {0.0, 0.0, 2.0, -1.0, 0.0, 0.0, 0.0, 3.0, 0.0};
    for (int k = 0; k < NKINDS; ++k)
        for (int f = DENSE_IN; f <= CSC_IN; ++f) {
            ld_la *la = create(KINDS[k], 2);
            assert_int_equal(factor(la, (enum form)f, swap2, 2), LD_OK);
            double b[2] = {2.0, 3.0};
            assert_int_equal(ld_la_solve(la, b), LD_OK);
            assert_true(b[0] == 3.0 && b[1] == 2.0);
            ld_la_free(la);
            la = create(KINDS[k], 3);
            assert_int_equal(factor(la, (enum form)f, cycle3, 3), LD_OK);
            check_solve(la, cycle3, 3, 1e-15, &r, "3-cycle");
            ld_la_free(la);
            static const int mc[][2] = {{6, 2}, {9, 3}, {40, 12}, {150, 60}};
            for (int s = 0; s < 4; ++s) {
                int m = mc[s][0], n = m + mc[s][1];
                char what[80];
                snprintf(what, sizeof what, "saddle point %d+%d, %s, %s", m, mc[s][1],
                         ld_la_kind_name(KINDS[k]), FORM_NAME[f]);
                double *A = new_matrix(n);
                saddle_matrix(&r, m, mc[s][1], A);
                la = create(KINDS[k], n);
                for (int t = 0; t < 2; ++t) { /* the integrators refactor such matrices */
                    if (t == 1) revalue(&r, n, A);
                    assert_int_equal(factor(la, (enum form)f, A, n), LD_OK);
                    check_solve(la, A, n, 1e-10, &r, what);
                }
                ld_la_free(la);
                free(A);
            }
        }
}

/* ------------------------------------------------------------------ singular matrices */

enum sing { ZERO_ROW, EQUAL_ROWS, PERTURBED_ROWS, TINY_PIVOT, ZERO_MATRIX, NSING };
static const char *const SING_NAME[NSING] = {"zero row", "two equal rows", "equal rows but 1e-18",
                                             "isolated 1e-18 pivot", "zero matrix"};

/* A singular (or numerically singular) n×n matrix of the given kind, built from a random
 * well-conditioned one. */
static void singular_matrix(rng *r, enum sing s, int n, double *A) {
    random_matrix(r, n, 1.0, A);
    int a = n / 3, c = n - 1 - n / 4; /* two distinct rows / a column */
    switch (s) {
    case ZERO_ROW:
        memset(A + a * n, 0, (size_t)n * sizeof *A);
        break;
    case EQUAL_ROWS:
        memcpy(A + c * n, A + a * n, (size_t)n * sizeof *A);
        break;
    case PERTURBED_ROWS: /* rows differ by 1e-18 in one entry, where row a has a zero */
        A[a * n + c] = 0.0;
        memcpy(A + c * n, A + a * n, (size_t)n * sizeof *A);
        A[c * n + c] = 1e-18;
        break;
    case TINY_PIVOT: { /* row a and column c hold only a_ac = 1e-18; the rest is regular */
        double *S = new_matrix(n - 1);
        random_matrix(r, n - 1, 1.0, S);
        memset(A, 0, (size_t)n * (size_t)n * sizeof *A);
        for (int i = 0, si = 0; i < n; ++i) {
            if (i == a) continue;
            for (int j = 0, sj = 0; j < n; ++j)
                if (j != c) A[i * n + j] = S[si * (n - 1) + sj++];
            ++si;
        }
        A[a * n + c] = 1e-18;
        free(S);
        break;
    }
    default:
        memset(A, 0, (size_t)n * (size_t)n * sizeof *A);
    }
}

static void test_singular(void **state) {
    (void)state;
    rng r = rng_seed(18);
    static const int sizes[] = {3, 12, 20};
    for (int k = 0; k < NKINDS; ++k)
        for (int f = DENSE_IN; f <= CSC_IN; ++f)
            for (int z = 0; z < 3; ++z)
                for (int s = 0; s < NSING; ++s) {
                    int n = sizes[z];
                    double *A = new_matrix(n), *G = new_matrix(n), b[20] = {0};
                    singular_matrix(&r, (enum sing)s, n, A);
                    random_matrix(&r, n, 1.0, G);
                    if (s == TINY_PIVOT) /* the same pattern, so KLU refactors */
                        for (int q = 0; q < n * n; ++q) G[q] = A[q] == 1e-18 ? 1.0 : A[q];
                    ld_la *la = create(KINDS[k], n);
                    assert_int_equal(factor(la, (enum form)f, G, n), LD_OK);
                    int rc = factor(la, (enum form)f, A, n);
                    if (rc != LD_ESINGULAR)
                        fail_msg("%s, %s, %s, n = %d: status %d, expected LD_ESINGULAR",
                                 ld_la_kind_name(KINDS[k]), FORM_NAME[f], SING_NAME[s], n, rc);
                    assert_int_equal(ld_la_solve(la, b), LD_EINVAL);
                    assert_int_equal(ld_la_solve(la, b), LD_EINVAL);
                    assert_int_equal(factor(la, (enum form)f, G, n), LD_OK); /* recovers */
                    check_solve(la, G, n, 1e-12, &r, "after a singular matrix");
                    assert_int_equal(stats(la).factorizations, 3);
                    ld_la_free(la);
                    free(A);
                    free(G);
                }
}

/* A regular matrix with rows scaled by 1 … 1e-9 is not singular and solves (normwise). */
static void test_scaled_rows_not_singular(void **state) {
    (void)state;
    rng r = rng_seed(9);
    for (int k = 0; k < NKINDS; ++k)
        for (int n = 6; n <= 20; n += 14) {
            double *A = new_matrix(n);
            random_matrix(&r, n, 1.0, A);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) A[i * n + j] *= pow(10.0, -(double)(i % 10));
            ld_la *la = create(KINDS[k], n);
            for (int f = DENSE_IN; f <= CSC_IN; ++f) {
                assert_int_equal(factor(la, (enum form)f, A, n), LD_OK);
                check_solve(la, A, n, 0.0, &r, "scaled rows");
            }
            ld_la_free(la);
            free(A);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_random_dense_input),
        cmocka_unit_test(test_random_csc_input),
        cmocka_unit_test(test_input_unchanged),
        cmocka_unit_test(test_block_tridiagonal_csc),
        cmocka_unit_test(test_klu_same_pattern),
        cmocka_unit_test(test_klu_ordering),
        cmocka_unit_test(test_klu_pattern_growth),
        cmocka_unit_test(test_klu_repivots),
        cmocka_unit_test(test_pivoting_required),
        cmocka_unit_test(test_singular),
        cmocka_unit_test(test_scaled_rows_not_singular),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Linear-solver benchmark: wall time per factorization + solve of the ld_la backends, CSV on
 * stdout, comment lines start with '#'. Sections:
 *   1. dense: random well-conditioned dense n×n matrices (entries in [-1, 1] plus 3√n on a
 *      random permutation, so that pivoting is needed), given as dense arrays, n = 3 … 384:
 *        dense      the dense backend (plain C up to n = 12, LAPACK above);
 *        lapack     LAPACKE dgetrf + dgetrs on a copy: the dense backend's LAPACK path, for
 *                   every n (at n <= 12 this is what the plain-C path replaces);
 *        klu_dense  the KLU backend with the same dense input (compression + klu_refactor).
 *   2. sparse: the saddle-point matrix [[K, Bᵀ], [B, 0]] of a chain of N bodies (6 velocities
 *      each, K block tridiagonal and symmetric positive definite, 3 constraints per joint
 *      coupling neighbours), unknowns interleaved body by body, n = 9N − 3 up to ~25000,
 *      given in CSC form: KLU per refactor + solve (and its first factorization, with the
 *      symbolic analysis, once), the dense backend up to n = 2000.
 * Times are CLOCK_MONOTONIC, best of REPS repetitions, each repeating the call for >= 20 ms.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <klu.h>
#include <lapacke.h>

#include "liedyn/liedyn.h"
#include "liedyn/linalg.h"

static int REPS = 5;          /* 1 in the smoke run of make test (BENCH_QUICK=1) */
static double MIN_SEC = 2e-2; /* 0 there */
static int DENSE_MAX = 2000;  /* 200 there */

static volatile double sink;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "bench_linalg: %s\n", what);
    exit(1);
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes);
    if (!p) die("out of memory");
    return p;
}

/* Deterministic uniform numbers in [-1, 1) (xorshift64*). */
static double unif(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545f4914f6cdd1dULL) >> 11) * 0x1.0p-52 - 1.0;
}

/* ------------------------------------------------------------------ the timed cases */

/* One case: a call of fn(ctx) is one factorization + solve. */
typedef struct timed {
    int (*fn)(void *ctx);
    void *ctx;
} timed;

/* Seconds per call: best over REPS repetitions of enough calls to last MIN_SEC. */
static double time_per_call(timed t) {
    double t0 = now();
    if (t.fn(t.ctx) != LD_OK) die("a timed factorization failed");
    double once = now() - t0;
    long calls = once >= MIN_SEC ? 1 : (long)(MIN_SEC / fmax(once, 1e-9)) + 1;
    double best = INFINITY;
    for (int r = 0; r < REPS; ++r) {
        t0 = now();
        for (long c = 0; c < calls; ++c) t.fn(t.ctx);
        best = fmin(best, (now() - t0) / (double)calls);
    }
    return best;
}

typedef struct problem {
    int n;
    const double *A;            /* dense row-major, or NULL */
    const int *colptr, *rowind; /* CSC, or NULL */
    const double *values;
    const double *b;  /* right-hand side */
    double *x;        /* n: solution */
    ld_la *la;        /* for the ld_la cases */
    double *lu;       /* n×n: for the raw LAPACK case */
    lapack_int *ipiv; /* n */
} problem;

/* ld_la with dense input. */
static int run_la_dense(void *ctx) {
    problem *p = ctx;
    int rc = ld_la_factor_dense(p->la, p->A);
    memcpy(p->x, p->b, (size_t)p->n * sizeof *p->x);
    if (rc == LD_OK) rc = ld_la_solve(p->la, p->x);
    sink += p->x[0];
    return rc;
}

/* ld_la with CSC input. */
static int run_la_csc(void *ctx) {
    problem *p = ctx;
    int rc = ld_la_factor_csc(p->la, p->colptr, p->rowind, p->values);
    memcpy(p->x, p->b, (size_t)p->n * sizeof *p->x);
    if (rc == LD_OK) rc = ld_la_solve(p->la, p->x);
    sink += p->x[0];
    return rc;
}

/* LAPACKE on a copy, as the dense backend does above its plain-C size. */
static int run_lapack(void *ctx) {
    problem *p = ctx;
    int n = p->n;
    memcpy(p->lu, p->A, (size_t)n * (size_t)n * sizeof *p->lu);
    if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, p->lu, n, p->ipiv) != 0) return LD_ESINGULAR;
    memcpy(p->x, p->b, (size_t)n * sizeof *p->x);
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', n, 1, p->lu, n, p->ipiv, p->x, n);
    sink += p->x[0];
    return LD_OK;
}

/* Nanoseconds per call of fn with a fresh solver of the given kind (first call untimed). */
static double ns_la(problem *p, ld_la_kind kind, int (*fn)(void *)) {
    p->la = ld_la_create(kind, p->n);
    if (!p->la) die("ld_la_create failed");
    double s = time_per_call((timed){fn, p});
    ld_la_free(p->la);
    p->la = NULL;
    return 1e9 * s;
}

/* ------------------------------------------------------------------ section 1: dense */

/* Entries uniform in [-1, 1], plus 3√n at (i, perm(i)) for a random permutation. */
static void random_dense(double *A, int n, uint64_t *s) {
    int *perm = xmalloc((size_t)n * sizeof *perm);
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
        int j = (int)((unif(s) + 1.0) * 0.5 * (i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (size_t k = 0; k < (size_t)n * (size_t)n; ++k) A[k] = unif(s);
    for (int i = 0; i < n; ++i) A[(size_t)i * (size_t)n + (size_t)perm[i]] += 3.0 * sqrt(n);
    free(perm);
}

static void section_dense(void) {
    static const int sizes[] = {3, 6, 9, 12, 24, 48, 96, 192, 384};
    printf("#\n# section 1: dense n x n input, ns per factorization + solve (best of %d)\n", REPS);
    printf("section,n,dense_ns,lapack_ns,klu_dense_ns\n");
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        int n = sizes[k];
        if (n > DENSE_MAX) break;
        size_t nn = (size_t)n * (size_t)n;
        double *A = xmalloc(nn * sizeof *A), *lu = xmalloc(nn * sizeof *lu);
        double *b = xmalloc((size_t)n * sizeof *b), *x = xmalloc((size_t)n * sizeof *x);
        lapack_int *ipiv = xmalloc((size_t)n * sizeof *ipiv);
        random_dense(A, n, &seed);
        for (int i = 0; i < n; ++i) b[i] = unif(&seed);
        problem p = {n, A, NULL, NULL, NULL, b, x, NULL, lu, ipiv};
        double dense = ns_la(&p, LD_LA_DENSE, run_la_dense);
        double lapack = 1e9 * time_per_call((timed){run_lapack, &p});
        double klu = ns_la(&p, LD_LA_KLU, run_la_dense);
        printf("dense,%d,%.0f,%.0f,%.0f\n", n, dense, lapack, klu);
        fflush(stdout);
        free(A);
        free(lu);
        free(b);
        free(x);
        free(ipiv);
    }
}

/* ------------------------------------------------------------------ section 2: sparse */

typedef struct csc {
    int n, nnz;
    int *colptr, *rowind;
    double *values;
} csc;

/* Entries collected per column before sorting into CSC: count[j] so far, at most cap each. */
typedef struct builder {
    int n, cap;
    int *count, *rows;
    double *vals;
} builder;

static void add(builder *b, int i, int j, double v) {
    int *c = &b->count[j];
    if (*c >= b->cap) die("builder column overflow");
    b->rows[(size_t)j * (size_t)b->cap + (size_t)*c] = i;
    b->vals[(size_t)j * (size_t)b->cap + (size_t)*c] = v;
    ++*c;
}

/* The chain's saddle-point matrix for N bodies: unknowns of body i at 9i … 9i+5, multipliers of
 * joint i (between bodies i and i+1) at 9i+6 … 9i+8. */
static csc chain_matrix(int N, uint64_t *s) {
    int n = 9 * N - 3;
    builder b = {n, 24, xmalloc((size_t)n * sizeof(int)), NULL, NULL};
    b.rows = xmalloc((size_t)n * (size_t)b.cap * sizeof *b.rows);
    b.vals = xmalloc((size_t)n * (size_t)b.cap * sizeof *b.vals);
    memset(b.count, 0, (size_t)n * sizeof(int));
    for (int i = 0; i < N; ++i) {
        int v = 9 * i;
        for (int r = 0; r < 6; ++r) /* K_ii: symmetric, diagonally dominant */
            for (int c = 0; c <= r; ++c) {
                double x = r == c ? 20.0 : unif(s);
                add(&b, v + r, v + c, x);
                if (r != c) add(&b, v + c, v + r, x);
            }
        if (i == N - 1) break;
        int w = v + 9, l = v + 6;
        for (int r = 0; r < 6; ++r) /* K_i,i+1 and its transpose */
            for (int c = 0; c < 6; ++c) {
                double x = unif(s);
                add(&b, v + r, w + c, x);
                add(&b, w + c, v + r, x);
            }
        for (int r = 0; r < 3; ++r) /* B_i = [C_i, D_i] and Bᵀ */
            for (int c = 0; c < 12; ++c) {
                double x = unif(s);
                int col = c < 6 ? v + c : w + c - 6;
                add(&b, l + r, col, x);
                add(&b, col, l + r, x);
            }
    }
    csc m = {n, 0, xmalloc(((size_t)n + 1) * sizeof(int)), NULL, NULL};
    for (int j = 0; j < n; ++j) m.nnz += b.count[j];
    m.rowind = xmalloc((size_t)m.nnz * sizeof(int));
    m.values = xmalloc((size_t)m.nnz * sizeof(double));
    m.colptr[0] = 0;
    for (int j = 0; j < n; ++j) { /* insertion sort of each column by row */
        int *r = b.rows + (size_t)j * (size_t)b.cap, c = b.count[j], q = m.colptr[j];
        double *x = b.vals + (size_t)j * (size_t)b.cap;
        for (int a = 0; a < c; ++a) {
            int k = q + a;
            while (k > q && m.rowind[k - 1] > r[a]) {
                m.rowind[k] = m.rowind[k - 1];
                m.values[k] = m.values[k - 1];
                --k;
            }
            m.rowind[k] = r[a];
            m.values[k] = x[a];
        }
        m.colptr[j + 1] = q + c;
    }
    free(b.count);
    free(b.rows);
    free(b.vals);
    return m;
}

static void section_sparse(void) {
    static const int bodies[] = {2, 3, 4, 5, 6, 8, 10, 12, 37, 112, 334, 1112, 2778};
    printf("#\n# section 2: chain saddle-point matrix in CSC form; klu_first_us: create + first "
           "factorization (symbolic analysis) + solve, once;\n# klu_ns: per klu_refactor + solve "
           "(best of %d); dense_ns: dense backend (expands the CSC input), n <= %d\n",
           REPS, DENSE_MAX);
    printf("section,bodies,n,nnz,klu_first_us,klu_ns,klu_ns_per_unknown,dense_ns\n");
    uint64_t seed = 0x5851f42d4c957f2dULL;
    for (size_t k = 0; k < sizeof bodies / sizeof bodies[0]; ++k) {
        if (DENSE_MAX < 2000 && bodies[k] > 40) break; /* the smoke run */
        csc m = chain_matrix(bodies[k], &seed);
        int n = m.n;
        double *b = xmalloc((size_t)n * sizeof *b), *x = xmalloc((size_t)n * sizeof *x);
        for (int i = 0; i < n; ++i) b[i] = unif(&seed);
        problem p = {n, NULL, m.colptr, m.rowind, m.values, b, x, NULL, NULL, NULL};
        double t0 = now();
        p.la = ld_la_create(LD_LA_KLU, n);
        if (!p.la || run_la_csc(&p) != LD_OK) die("first KLU factorization failed");
        double first = now() - t0;
        ld_la_free(p.la);
        double klu = ns_la(&p, LD_LA_KLU, run_la_csc);
        printf("sparse,%d,%d,%d,%.1f,%.0f,%.1f,", bodies[k], n, m.nnz, 1e6 * first, klu, klu / n);
        if (n <= DENSE_MAX)
            printf("%.0f\n", ns_la(&p, LD_LA_DENSE, run_la_csc));
        else
            printf("\n");
        fflush(stdout);
        free(b);
        free(x);
        free(m.colptr);
        free(m.rowind);
        free(m.values);
    }
}

int main(void) {
    const char *quick = getenv("BENCH_QUICK");
    if (quick && quick[0] && quick[0] != '0') REPS = 1, MIN_SEC = 0.0, DENSE_MAX = 200;
    printf("# bench_linalg (liedyn %s): factorization + solve, ld_la backends\n", ld_version());
    printf("# dense backend: plain C for n <= 12, LAPACKE dgetrf/dgetrs above; KLU %d.%d.%d\n",
           KLU_MAIN_VERSION, KLU_SUB_VERSION, KLU_SUBSUB_VERSION);
    section_dense();
    section_sparse();
    return 0;
}

/*
 * The tool runs OpenBLAS on one thread and stops its idle workers when it starts
 * (cli/blas_quiet.c): after ld_cli_quiet_blas the process's other threads use (almost) no CPU
 * while the main thread sleeps — with OpenBLAS's workers left alone they spin for about 0.1 s
 * after the program is loaded, and again after a parallel call — also after a LAPACK
 * factorization large enough for OpenBLAS to split, and that factorization and the dense
 * solver still work. A user's OPENBLAS_NUM_THREADS or OPENBLAS_THREAD_TIMEOUT is left alone.
 * With another BLAS there is nothing to stop (skipped).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <lapacke.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "liedyn/linalg.h"
#include "support.h"

static double clock_s(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of the threads other than this one while this one sleeps for s seconds. */
static double others_cpu(double s) {
    double p0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    struct timespec d = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&d, &d) != 0) {
    }
    return (clock_s(CLOCK_PROCESS_CPUTIME_ID) - p0) - (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0);
}

/* 2x = b on a small system through the dense backend (LAPACK): solves still work. */
static void dense_solve_works(void) {
    ld_la *la = ld_la_create(LD_LA_DENSE, 3);
    assert_non_null(la);
    double A[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2}, b[3] = {2, 4, 6};
    assert_int_equal(ld_la_factor_dense(la, A), LD_OK);
    assert_int_equal(ld_la_solve(la, b), LD_OK);
    for (int i = 0; i < 3; ++i) assert_true(b[i] == (double)(i + 1));
    ld_la_free(la);
}

/* LU of a diagonally dominant n×n matrix by LAPACK itself (OpenBLAS splits one of this size
 * over its threads when it may): it succeeds. */
static void big_factorization(int n) {
    double *A = malloc((size_t)n * (size_t)n * sizeof *A);
    lapack_int *piv = malloc((size_t)n * sizeof *piv);
    assert_non_null(A);
    assert_non_null(piv);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            A[(size_t)i * (size_t)n + (size_t)j] = i == j ? n : 1.0 / (1 + i + j);
    assert_int_equal(LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, A, n, piv), 0);
    free(A);
    free(piv);
}

static void test_user_setting_kept(void **state) {
    (void)state;
    const char *names[] = {"OPENBLAS_NUM_THREADS", "OPENBLAS_THREAD_TIMEOUT"};
    for (int i = 0; i < 2; ++i) {
        const char *was = getenv(names[i]);
        char keep[64] = "";
        if (was) snprintf(keep, sizeof keep, "%s", was);
        setenv(names[i], "2", 1);
        assert_int_equal(ld_cli_quiet_blas(), 0);
        if (was)
            setenv(names[i], keep, 1);
        else
            unsetenv(names[i]);
    }
}

static void test_workers_quiet(void **state) {
    (void)state;
    if (getenv("OPENBLAS_NUM_THREADS") || getenv("OPENBLAS_THREAD_TIMEOUT")) skip();
    if (!ld_cli_quiet_blas()) skip(); /* not OpenBLAS: no workers */
    double spin = others_cpu(0.2);
    if (!(spin < 0.02))
        fail_msg("the other threads used %.1f ms of CPU in 200 ms after the workers were stopped",
                 1e3 * spin);
    dense_solve_works();
    big_factorization(600);
    spin = others_cpu(0.15);
    if (!(spin < 0.02))
        fail_msg("after a large factorization: %.1f ms of other threads", 1e3 * spin);
    assert_int_equal(ld_cli_quiet_blas(), 1); /* a second call: nothing running, no harm */
    dense_solve_works();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_user_setting_kept),
        cmocka_unit_test(test_workers_quiet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Shared by the benchmark programs (never part of the library): the optional peers' headers,
 * fatal-error helpers and clocks. A program defines BENCH_NAME (its name, for messages) before
 * including this header. Header-only.
 */
#ifndef LIEDYN_BENCH_COMMON_H
#define LIEDYN_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "liedyn/liedyn.h"

#ifdef LD_HAVE_GSL
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_version.h>
#endif

/* ARKODE: SUNDIALS ≥ 6 in double precision only; otherwise the peer is left out (and
 * LD_ARKODE_UNUSABLE says so). */
#ifdef LD_HAVE_ARKODE
#include <sundials/sundials_config.h>
#if !defined(SUNDIALS_VERSION_MAJOR) || SUNDIALS_VERSION_MAJOR < 6 ||                              \
    !defined(SUNDIALS_DOUBLE_PRECISION)
#undef LD_HAVE_ARKODE
#define LD_ARKODE_UNUSABLE 1
#endif
#endif
#ifdef LD_HAVE_ARKODE
#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#endif

/* BENCH_QUICK=1 (the smoke runs of make test): every study on a few points, once, in seconds;
 * the numbers then mean nothing, the run only shows that the program still works. */
static inline int bench_quick(void) {
    const char *q = getenv("BENCH_QUICK");
    return q && q[0] && q[0] != '0';
}

/* Print "BENCH_NAME: what: why" and exit: a benchmark cannot go on without the piece. */
static _Noreturn void die(const char *what, const char *why) {
    fprintf(stderr, "%s: %s: %s\n", BENCH_NAME, what, why);
    exit(EXIT_FAILURE);
}

/* die with a numeric status. */
static inline void die_code(const char *what, int code) {
    char buf[64];
    snprintf(buf, sizeof buf, "failed with status %d", code);
    die(what, buf);
}

/* die unless a library call returned LD_OK. */
static inline void check_ld(const char *what, int rc) {
    if (rc != LD_OK) die(what, ld_strerror(rc));
}

static inline double clock_s(clockid_t id) {
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) die("clock_gettime", "failed");
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Process CPU time and monotonic wall time, s. */
static inline double cpu_now(void) {
    return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}
/* CPU time of the calling thread, s (not the other threads of the process). */
static inline double thread_cpu_now(void) {
    return clock_s(CLOCK_THREAD_CPUTIME_ID);
}
static inline double wall_now(void) {
    return clock_s(CLOCK_MONOTONIC);
}

#ifdef LD_HAVE_ARKODE
/* die on a negative ARKODE flag. */
static inline void check_ark(const char *what, int flag) {
    if (flag < 0) die_code(what, flag);
}
#endif

#endif

/*
 * Microbenchmark of the Lie-group core: nanoseconds per call, CSV on stdout.
 * Each function runs over a ring of precomputed random inputs (angles spread over
 * [1e-3, 3]) so that no call can be hoisted; the best of several repetitions is kept.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "liedyn/liedyn.h"

#define NIN  1024
#define REPS 7

static double in6[NIN][6], inq[NIN][4], inq2[NIN][4], inR[NIN][9];
static volatile double sink;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill_inputs(void) {
    srand(12345);
    for (int i = 0; i < NIN; ++i) {
        double ang = 1e-3 * pow(3e3, (double)rand() / RAND_MAX), n = 0.0;
        for (int j = 0; j < 6; ++j) in6[i][j] = (double)rand() / RAND_MAX - 0.5;
        for (int j = 0; j < 3; ++j) n += in6[i][j] * in6[i][j];
        for (int j = 0; j < 3; ++j) in6[i][j] *= ang / sqrt(n);
        ld_quat_from_rotvec(inq[i], in6[i]);
        ld_quat_from_rotvec(inq2[i], in6[(i * 7 + 3) % NIN]);
        ld_so3_exp(inR[i], in6[i]);
    }
}

/* One timed pass of n calls of case k; returns seconds. */
static double run(int k, long n) {
    double out[36] = {0};
    double t0 = now();
    for (long i = 0; i < n; ++i) {
        int j = (int)(i & (NIN - 1));
        switch (k) {
        case 0:
            ld_quat_mul(out, inq[j], inq2[j]);
            break;
        case 1:
            ld_so3_exp(out, in6[j]);
            break;
        case 2:
            ld_so3_log(out, inR[j]);
            break;
        case 3:
            ld_s3_exp(out, in6[j]);
            break;
        case 4:
            ld_so3_tangent(out, in6[j]);
            break;
        case 5:
            ld_so3_tangent_inv(out, in6[j]);
            break;
        case 6:
            ld_s3sdr3_exp(out, in6[j]);
            break;
        case 7:
            ld_s3sdr3_tangent(out, in6[j]);
            break;
        case 8:
            ld_s3sdr3_tangent_inv(out, in6[j]);
            break;
        default:
            ld_quat_from_mat(out, inR[j]);
            break;
        }
        sink += out[0];
    }
    return now() - t0;
}

static const char *const NAMES[] = {"quat_mul",     "so3_exp",        "so3_log",
                                    "s3_exp",       "so3_tangent",    "so3_tangent_inv",
                                    "s3sdr3_exp",   "s3sdr3_tangent", "s3sdr3_tangent_inv",
                                    "quat_from_mat"};

int main(int argc, char **argv) {
    const char *quick = getenv("BENCH_QUICK"); /* the smoke run of make test */
    long n = argc > 1 ? atol(argv[1]) : quick && quick[0] && quick[0] != '0' ? 1000 : 2000000;
    fill_inputs();
    printf("function,ns_per_call,calls\n");
    for (int k = 0; k < (int)(sizeof NAMES / sizeof NAMES[0]); ++k) {
        double best = INFINITY;
        for (int r = 0; r < REPS; ++r) best = fmin(best, run(k, n));
        printf("%s,%.2f,%ld\n", NAMES[k], 1e9 * best / (double)n, n);
    }
    return 0;
}

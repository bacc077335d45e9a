/*
 * bench_modes — the lowest modes of a clamped cantilever (docs/modes.md), CSV on stdout: n
 * elements of order 4 (4n free nodes, 24n unknowns), the six lowest undamped modes by the dense
 * path (ld_linearize + ld_modes_undamped: O(k³)) and by the sparse one (ld_modes_sparse:
 * subspace iteration with KLU), CPU seconds of each (best of 3 below 1 s), their ratio, and the
 * largest relative difference of their ω² (the run fails above 10⁻⁵). The dense path stops at
 * 50 elements (1200 unknowns, about 20 s); the sparse one goes on to 1000 (24 000).
 * BENCH_QUICK=1 (the smoke run of make test): 2 and 5 elements.
 */
#define BENCH_NAME      "bench_modes"
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "liedyn/linearize.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define NMODES    6
#define DENSE_MAX 50 /* elements */

/* The cantilever of n elements of order 4 (L = 10, EI = 100, GA = EA = 10⁵), compiled. */
static void cantilever(int n, ld_model *m, ld_system *s, double **q) {
    char y[1024];
    snprintf(y, sizeof y,
             "name: cantilever\nbeams:\n  - name: beam\n    order: 4\n    elements: %d\n"
             "    from: [0, 0, 0]\n    to: [10, 0, 0]\n    normal: [0, 1, 0]\n"
             "    section: {EA: 1.0e+5, GA2: 1.0e+5, GA3: 1.0e+5, GJ: 100, EI2: 100, EI3: 150}\n"
             "    rho_a: 1\n    rho_j: [0.02, 0.01, 0.01]\n    clamp: start\n",
             n);
    ld_model_error err;
    if (ld_model_parse(y, strlen(y), "cantilever", m, &err)) die("model", err.msg);
    double *v;
    check_ld("compile", ld_model_compile(m, LD_FORM_SO3XR3, s, q, &v));
    free(v);
}

/* The six lowest ω² by the dense path into w; CPU seconds. */
static double dense(const ld_system *s, const double *q, double *w) {
    double t0 = cpu_now();
    ld_linear lin;
    ld_modes md;
    char msg[256];
    if (ld_linearize(s, 0.0, q, NULL, &lin, msg, sizeof msg)) die("ld_linearize", msg);
    if (ld_modes_undamped(&lin, NMODES, &md, msg, sizeof msg)) die("ld_modes_undamped", msg);
    double dt = cpu_now() - t0;
    memcpy(w, md.omega2, NMODES * sizeof *w);
    ld_modes_free(&md);
    ld_linear_free(&lin);
    return dt;
}

/* The same by the sparse path. */
static double sparse(const ld_system *s, const double *q, double *w) {
    double t0 = cpu_now();
    ld_modes md;
    char msg[256];
    if (ld_modes_sparse(s, 0.0, q, NMODES, 0.0, &md, msg, sizeof msg)) die("ld_modes_sparse", msg);
    double dt = cpu_now() - t0;
    memcpy(w, md.omega2, NMODES * sizeof *w);
    ld_modes_free(&md);
    return dt;
}

/* The best of up to 3 runs of f while each takes under 1 s. */
static double best_of(double (*f)(const ld_system *, const double *, double *), const ld_system *s,
                      const double *q, double *w) {
    double best = f(s, q, w);
    for (int r = 1; r < 3 && best < 1.0; ++r) best = fmin(best, f(s, q, w));
    return best;
}

int main(void) {
    static const int full[] = {5, 10, 25, 50, 100, 250, 1000}, quick[] = {2, 5};
    const int *ns = bench_quick() ? quick : full;
    int count = bench_quick() ? 2 : (int)(sizeof full / sizeof full[0]);
    printf("elements,unknowns,dense_cpu_s,sparse_cpu_s,dense_over_sparse,w1,w6,max_rel_diff\n");
    for (int c = 0; c < count; ++c) {
        ld_model m;
        ld_system s;
        double *q, wd[NMODES], ws[NMODES];
        cantilever(ns[c], &m, &s, &q);
        double ts = best_of(sparse, &s, q, ws), td = NAN, diff = NAN;
        if (ns[c] <= DENSE_MAX) {
            td = best_of(dense, &s, q, wd);
            diff = 0.0;
            for (int j = 0; j < NMODES; ++j) diff = fmax(diff, fabs(ws[j] / wd[j] - 1.0));
            if (diff > 1e-5)
                die("sparse against dense", "the eigenvalues differ by more than 1e-5");
        }
        printf("%d,%d,%.6g,%.6g,%.4g,%.12g,%.12g,%.3g\n", ns[c], s.k, td, ts, td / ts, ws[0],
               ws[NMODES - 1], diff);
        fflush(stdout);
        free(q);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
    return 0;
}

/*
 * bench_modes — the lowest modes on the dense and the sparse path (docs/modes.md), CSV on
 * stdout, two series:
 *   cantilever: a clamped cantilever of n elements of order 4 (4n free nodes, 24n unknowns, no
 *     constraint rows);
 *   chain: n masses on prismatic joints along x with springs between neighbours and to both
 *     walls (6n velocities, 5n constraint rows, n degrees of freedom), whose ω² are
 *     (4k/m) sin²(jπ / (2(n + 1))) exactly.
 * The six lowest undamped modes by the dense path (ld_linearize + ld_modes_undamped: O(k³), a
 * null-space basis of B) and by the sparse one (ld_modes_sparse: subspace iteration on the
 * saddle-point matrix with KLU), CPU seconds of each (best of 3 below 1 s), their ratio, the
 * peak resident memory of a process (this program again) that compiles the model and runs the
 * sparse path alone (MB), the largest relative difference of their ω² (the run fails above 10⁻⁵)
 * and, for the chain, of the sparse ω² from the exact ones. The dense path stops at 1200 unknowns
 * (about 6 s); the sparse one goes on to 24 000 and 60 000. A third study, against one static
 * solve: the IEA 15-MW blade (models/iea15-blade.yaml, its 200 kN tip load) and cantilevers of
 * 1000 and 10 000 free nodes under a tip load (250 and 2500 elements of order 4) — the static
 * solve (ld_static_solve, sparse where ld_la_choose_rows picks KLU), then the lowest modes
 * about that equilibrium (10 for the blade, 20 for the cantilevers) by the sparse path and, up
 * to 1200 unknowns, the dense one, all in a process of their own: CPU seconds of each, the
 * modes' cost in static solves, the process's peak memory. BENCH_QUICK=1 (the smoke run of make
 * test): two small sizes of each series, the blade and a cantilever of 40 nodes.
 */
#define BENCH_NAME      "bench_modes"
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench_common.h"
#include "liedyn/linearize.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

#define NMODES 6
#define NMAX   20 /* modes of the study against a static solve */

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif
#define DENSE_MAX 1200 /* unknowns */
#define PI        3.14159265358979323846
#define CHAIN_M   1.7
#define CHAIN_K   40.0

/* The cantilever of n elements of order 4 (L = 10, EI = 100, GA = EA = 10⁵) as YAML. */
static char *cantilever_yaml(int n) {
    char *y = malloc(1024);
    if (!y) die("cantilever", "out of memory");
    snprintf(y, 1024,
             "name: cantilever\nbeams:\n  - name: beam\n    order: 4\n    elements: %d\n"
             "    from: [0, 0, 0]\n    to: [10, 0, 0]\n    normal: [0, 1, 0]\n"
             "    section: {EA: 1.0e+5, GA2: 1.0e+5, GA3: 1.0e+5, GJ: 100, EI2: 100, EI3: 150}\n"
             "    rho_a: 1\n    rho_j: [0.02, 0.01, 0.01]\n    clamp: start\n",
             n);
    return y;
}

/* n masses on prismatic joints, springs to the neighbours and the walls (at rest) as YAML. */
static char *chain_yaml(int n) {
    size_t cap = 512 + (size_t)n * 400, at = 0;
    char *y = malloc(cap);
    if (!y) die("chain", "out of memory");
    at += (size_t)snprintf(y + at, cap - at, "name: chain\ngravity: [0, -9.81, 0]\nbodies:\n");
    for (int i = 1; i <= n; ++i)
        at += (size_t)snprintf(
            y + at, cap - at,
            "  - {name: m%d, mass: %.17g, inertia: [1, 1, 1], position: [%d, 0, 0]}\n", i, CHAIN_M,
            i);
    at += (size_t)snprintf(y + at, cap - at, "joints:\n");
    for (int i = 1; i <= n; ++i)
        at += (size_t)snprintf(
            y + at, cap - at,
            "  - {name: p%d, type: prismatic, body2: m%d, at: [%d, 0, 0], axis: [1, 0, 0]}\n", i, i,
            i);
    at += (size_t)snprintf(y + at, cap - at, "elements:\n");
    for (int i = 0; i <= n; ++i) { /* the right wall as body1: ground */
        char b1[16];
        snprintf(b1, sizeof b1, i == 0 || i == n ? "ground" : "m%d", i);
        at += (size_t)snprintf(y + at, cap - at,
                               "  - {type: spring-damper, body1: %s, body2: m%d, at1: [%d, 0, 0], "
                               "at2: [%d, 0, 0], k: %.17g, l0: 1}\n",
                               b1, i == n ? n : i + 1, i == n ? n + 1 : i, i == n ? n : i + 1,
                               CHAIN_K);
    }
    return y;
}

/* Parse and compile (so3xr3). */
static void compile(const char *y, ld_model *m, ld_system *s, double **q) {
    ld_model_error err;
    if (ld_model_parse(y, strlen(y), "bench", m, &err)) die("model", err.msg);
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

/* The cantilever of n elements with a tip load of 10 N along z. */
static char *loaded_yaml(int n) {
    char *y = cantilever_yaml(n), *z = malloc(1200);
    if (!z) die("cantilever", "out of memory");
    snprintf(z, 1200,
             "%sloads:\n  - {body: 'beam[%d]', type: force, frame: spatial, value: [0, 0, 10]}\n",
             y, 4 * n);
    free(y);
    return z;
}

/* The static solve and then count modes by the sparse path (and the dense one up to DENSE_MAX
 * unknowns) of the model in file path (the blade) or of the loaded cantilever of n elements;
 * prints "unknowns static_s sparse_s dense_s peak_mb w1 wcount". The child of the study. */
static int child_static(const char *what, int count) {
    ld_model m;
    ld_model_error err;
    ld_system s;
    double *q, *v;
    if (strcmp(what, "blade") == 0) {
        if (ld_model_load(LD_SOURCE_DIR "/models/iea15-blade.yaml", &m, &err))
            die("blade", err.msg);
    } else {
        char *y = loaded_yaml(atoi(what));
        if (ld_model_parse(y, strlen(y), "bench", &m, &err)) die("model", err.msg);
        free(y);
    }
    check_ld("compile", ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q, &v));
    double t = strcmp(what, "blade") == 0 ? m.run.t_end : 0.0, *lam = calloc((size_t)s.m + 1, 8);
    ld_static_options o;
    ld_static_options_init(&o);
    char msg[256];
    double t0 = cpu_now();
    if (ld_static_solve(&s, t, q, lam, &o, NULL, msg, sizeof msg)) die("static", msg);
    double ts = cpu_now() - t0, td = NAN;
    ld_modes md;
    t0 = cpu_now();
    if (ld_modes_sparse(&s, t, q, count, 0.0, &md, msg, sizeof msg)) die("ld_modes_sparse", msg);
    double tm = cpu_now() - t0, w1 = md.omega2[0], wc = md.omega2[count - 1];
    ld_modes_free(&md);
    if (s.k <= DENSE_MAX) {
        ld_linear lin;
        t0 = cpu_now();
        if (ld_linearize(&s, t, q, NULL, &lin, msg, sizeof msg)) die("ld_linearize", msg);
        if (ld_modes_undamped(&lin, count, &md, msg, sizeof msg)) die("ld_modes_undamped", msg);
        td = cpu_now() - t0;
        if (fabs(md.omega2[count - 1] / wc - 1.0) > 1e-5) die("sparse against dense", "differ");
        ld_modes_free(&md);
        ld_linear_free(&lin);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%d %.17g %.17g %.17g %.17g %.17g %.17g\n", s.k, ts, tm, td,
           (double)ru.ru_maxrss / 1024.0, w1, wc);
    free(lam), free(q), free(v);
    ld_model_system_free(&s);
    ld_model_free(&m);
    return 0;
}

/* One row of the study against a static solve, from a process of its own. */
static void static_row(const char *self, const char *what, int count) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' --child-static %s %d", self, what, count);
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    if (!p) die("the static study's process", "cannot start");
    double x[7];
    int got = 0;
    for (int i = 0; i < 7; ++i) got += fscanf(p, "%lf", &x[i]) == 1;
    if (pclose(p) != 0 || got != 7) die("the static study's process", "failed");
    printf("static,%s,%d,%d,%.6g,%.6g,%.6g,%.4g,%.4g,%.12g,%.12g\n", what, (int)x[0], count, x[1],
           x[2], x[3], x[2] / x[1], x[4], x[5], x[6]);
    fflush(stdout);
}

/* The model text of a series at size n (the caller frees). */
static char *model_yaml(const char *series, int n) {
    return strcmp(series, "chain") == 0 ? chain_yaml(n) : cantilever_yaml(n);
}

/* The child: compile, the sparse path, then one line "cpu peak_mb w1 … w6" on stdout. */
static int child(const char *series, int n) {
    char *y = model_yaml(series, n);
    ld_model m;
    ld_system s;
    double *q, w[NMODES];
    compile(y, &m, &s, &q);
    free(y);
    double t = best_of(sparse, &s, q, w);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%.17g %.17g", t, (double)ru.ru_maxrss / 1024.0);
    for (int j = 0; j < NMODES; ++j) printf(" %.17g", w[j]);
    printf("\n");
    free(q);
    ld_model_system_free(&s);
    ld_model_free(&m);
    return 0;
}

/* The sparse path in a process of its own (this program, run as the child), so that its peak
 * memory is its own: out[0] CPU s, out[1] peak resident MB, out[2 …] the ω². */
static void sparse_child(const char *self, const char *series, int n, double out[2 + NMODES]) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' --child %s %d", self, series, n);
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    if (!p) die("the sparse path's process", "cannot start");
    int got = 0;
    for (int i = 0; i < 2 + NMODES; ++i) got += fscanf(p, "%lf", &out[i]) == 1;
    if (pclose(p) != 0 || got != 2 + NMODES) die("the sparse path's process", "failed");
}

/* One row: the series at size n. */
static void row(const char *self, const char *series, int n) {
    ld_model m;
    ld_system s;
    double *q, wd[NMODES], out[2 + NMODES], *ws = out + 2, td = NAN, diff = NAN, exact = NAN;
    sparse_child(self, series, n, out);
    char *y = model_yaml(series, n);
    compile(y, &m, &s, &q);
    free(y);
    if (s.k <= DENSE_MAX) {
        td = best_of(dense, &s, q, wd);
        diff = 0.0;
        for (int j = 0; j < NMODES; ++j) diff = fmax(diff, fabs(ws[j] / wd[j] - 1.0));
        if (diff > 1e-5) die("sparse against dense", "the eigenvalues differ by more than 1e-5");
    }
    if (s.m > 0) {
        exact = 0.0;
        for (int j = 1; j <= NMODES; ++j) {
            double sn = sin(j * PI / (2.0 * (n + 1))), w2 = 4.0 * CHAIN_K / CHAIN_M * sn * sn;
            exact = fmax(exact, fabs(ws[j - 1] / w2 - 1.0));
        }
    }
    printf("%s,%d,%d,%d,%.6g,%.6g,%.4g,%.4g,%.12g,%.12g,%.3g,%.3g\n", series, n, s.k, s.m, td,
           out[0], td / out[0], out[1], ws[0], ws[NMODES - 1], diff, exact);
    fflush(stdout);
    free(q);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--child") == 0) return child(argv[2], atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "--child-static") == 0)
        return child_static(argv[2], atoi(argv[3]));
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) die("/proc/self/exe", "cannot read");
    self[len] = '\0';
    static const int beam_full[] = {5, 10, 25, 50, 100, 250, 1000}, beam_quick[] = {2, 5};
    static const int chain_full[] = {20, 50, 100, 200, 1000, 2000, 5000, 10000},
                     chain_quick[] = {10, 20};
    int q = bench_quick();
    const int *nb = q ? beam_quick : beam_full, *nc = q ? chain_quick : chain_full;
    int cb = q ? 2 : (int)(sizeof beam_full / sizeof beam_full[0]);
    int cc = q ? 2 : (int)(sizeof chain_full / sizeof chain_full[0]);
    printf("series,size,unknowns,constraint_rows,dense_cpu_s,sparse_cpu_s,dense_over_sparse,"
           "sparse_peak_mb,w1,w6,max_rel_diff,exact_rel_diff\n");
    for (int c = 0; c < cb; ++c) row(self, "cantilever", nb[c]);
    for (int c = 0; c < cc; ++c) row(self, "chain", nc[c]);
    printf("study,model,unknowns,modes,static_cpu_s,sparse_modes_cpu_s,dense_modes_cpu_s,"
           "sparse_modes_over_static,peak_mb,w1,w_last\n");
    static_row(self, "blade", 10);
    if (q) {
        static_row(self, "10", 20);
    } else {
        static_row(self, "250", 20);
        static_row(self, "2500", 20);
    }
    return 0;
}

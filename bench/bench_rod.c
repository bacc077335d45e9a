/*
 * bench_rod — the flying spaghetti (models/flying-spaghetti.yaml data: Kirchhoff rod, s3sdr3)
 * in two studies, CSV on stdout:
 *   scaling  time per step against the number of segments n = 8 … 4096 for hem5 on the sparse
 *            path (KLU, mass blocks, sparse B) and for genalpha on the structured sparse path of
 *            the Newton methods (iteration matrix assembled by node blocks into KLU's pattern);
 *            per row µs/step and µs/step/segment — constant per segment means linear cost;
 *   matched  CPU time to reach a given accuracy at t = 1 (configuration error 1e-5 and 1e-7
 *            against hem5 with h = 1e-5) for genalpha, hem2, hem3, hem4 and hem5: the step is
 *            halved from 3.2e-2 (above every method's target; a failed run counts as missing
 *            it) until the error is below the target; the CPU time of that run and the ratio to
 *            hem5's in the same process.
 * BENCH_QUICK=1 (the smoke run of make test): sizes up to 32, one target, t = 0.1.
 */
#define BENCH_NAME      "bench_rod"
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

static int quick(void) {
    return bench_quick();
}

/* The flying spaghetti with n segments (loads on rod[0]). */
static void spaghetti(ld_model *m, int n) {
    char text[2048];
    snprintf(text, sizeof text,
             "name: spaghetti-%d\n"
             "rods:\n  - name: rod\n    segments: %d\n    from: [6, 0, 0]\n    to: [0, 8, 0]\n"
             "    stiffness: [500, 500, 500, 1e4, 1e4, 1e4]\n    rho_a: 1\n"
             "    rho_i: [10, 10, 10]\n    kirchhoff: true\n"
             "loads:\n  - {body: 'rod[0]', type: force, frame: spatial, value: [20, 0, 0],\n"
             "     time: {shape: hat, t0: 0, t1: 2.5, t2: 5}}\n"
             "  - {body: 'rod[0]', type: torque, frame: spatial, value: [0, -100, -200],\n"
             "     time: {shape: hat, t0: 0, t1: 2.5, t2: 5}}\n"
             "integrator: {name: hem5, formulation: s3sdr3, dt: 1.0e-4, t_end: 1}\n",
             n, n);
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "spaghetti", m, &err)) die("model", err.msg);
}

typedef struct run_out {
    int ok; /* 0: a step failed (an explicit method beyond its stability limit) */
    double cpu;
    long steps;
    double x[3], q[4];   /* end node rod[0] */
    double xe[3], qe[4]; /* node rod[n] */
} run_out;

/* Fixed steps of h to T (or `steps` steps when T ≤ 0). */
static run_out run(const ld_model *m, ld_integ_method meth, double h, double T, long steps) {
    ld_system s;
    double *q0, *v0;
    check_ld("compile", ld_model_compile(m, LD_FORM_S3SDR3, &s, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    o.la = LD_LA_KLU;
    int rc;
    ld_integ *it = ld_integ_create(&s, &o, &rc);
    if (!it) die_code("create", rc);
    check_ld("init", ld_integ_init(it, 0.0, q0, v0));
    long n = T > 0.0 ? (long)(T / h + 0.5) : steps;
    double c0 = cpu_now();
    for (long i = 1; i <= n; ++i) {
        rc = T > 0.0 ? ld_integ_advance_to(it, T * (double)i / (double)n) : ld_integ_step(it, h);
        if (rc) break;
    }
    run_out r = {rc == LD_OK, cpu_now() - c0, n, {0}, {0}, {0}, {0}};
    double om[3], xd[3];
    ld_model_body_state(&s, 0, ld_integ_q(it), ld_integ_v(it), r.x, r.q, om, xd);
    ld_model_body_state(&s, s.nnodes - 1, ld_integ_q(it), ld_integ_v(it), r.xe, r.qe, om, xd);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return r;
}

static double err(const run_out *a, const run_out *b) {
    double e = fmax(ld_quat_angle(a->q, b->q), ld_quat_angle(a->qe, b->qe));
    for (int i = 0; i < 3; ++i)
        e = fmax(e, fmax(fabs(a->x[i] - b->x[i]), fabs(a->xe[i] - b->xe[i])) / 10.0);
    return e;
}

static void scaling(void) {
    printf("study,integrator,segments,unknowns,steps,us_per_step,us_per_step_per_segment\n");
    int nmax = quick() ? 32 : 4096;
    for (int n = 8; n <= nmax; n *= 2) {
        ld_model m;
        spaghetti(&m, n);
        const ld_integ_method ms[2] = {LD_INTEG_HEM5, LD_INTEG_GENALPHA};
        for (int k = 0; k < 2; ++k) {
            long steps = (long)fmax(5.0, (quick() ? 500.0 : 20000.0) / n);
            double best = INFINITY;
            for (int rep = 0; rep < (quick() ? 1 : 2); ++rep) {
                run_out r = run(&m, ms[k], 1e-4, 0.0, steps);
                if (!r.ok) die(ld_integ_method_name(ms[k]), "a step of 1e-4 failed");
                best = fmin(best, r.cpu);
            }
            double us = 1e6 * best / (double)steps;
            printf("scaling,%s,%d,%d,%ld,%.3f,%.4f\n", ld_integ_method_name(ms[k]), n,
                   6 * (n + 1) + 2 * n, steps, us, us / n);
            fflush(stdout);
        }
        ld_model_free(&m);
    }
}

static void matched(void) {
    ld_model m;
    spaghetti(&m, 16);
    const double T = quick() ? 0.1 : 1.0;
    run_out ref = run(&m, LD_INTEG_HEM5, quick() ? 1e-4 : 1e-5, T, 0);
    if (!ref.ok) die("reference", "hem5 failed");
    printf("study,integrator,target,h,error,cpu_s,ratio_to_hem5\n");
    const double targets[2] = {1e-5, 1e-7};
    const ld_integ_method ms[5] = {LD_INTEG_HEM5, LD_INTEG_HEM4, LD_INTEG_HEM3, LD_INTEG_HEM2,
                                   LD_INTEG_GENALPHA};
    for (int t = 0; t < (quick() ? 1 : 2); ++t) {
        double cpu5 = NAN;
        for (int k = 0; k < 5; ++k) {
            /* from a step above every method's target (where the explicit ones fail) down */
            double h = quick() ? 4e-3 : 3.2e-2, e = INFINITY;
            run_out r = {0};
            while (h > 1e-6) {
                r = run(&m, ms[k], h, T, 0);
                e = r.ok ? err(&r, &ref) : (double)INFINITY;
                if (e <= targets[t]) break;
                h *= 0.5;
            }
            if (!(e <= targets[t])) continue;
            if (k == 0) cpu5 = r.cpu;
            printf("matched,%s,%.0e,%.3e,%.3e,%.4f,%.2f\n", ld_integ_method_name(ms[k]), targets[t],
                   h, e, r.cpu, r.cpu / cpu5);
            fflush(stdout);
        }
    }
    ld_model_free(&m);
}

int main(void) {
    scaling();
    matched();
    return 0;
}

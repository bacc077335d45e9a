/*
 * bench_beam — geometrically exact beams (docs/beam.md), CSV on stdout, in two studies:
 *   scaling    a clamped cantilever of n elements of order 4 (4n free nodes, 10 … 10⁴) under a
 *              tip load, fixed steps of generalized-α, newmark and hht with KLU on the sparse
 *              path: µs per step and per node (flat means linear cost), Newton iterations and
 *              factorizations per step;
 *   cantilever the right-angle cantilever (models/right-angle-cantilever.yaml, t ∈ [0, 30]): for
 *              each method the largest step (halving from 0.04) whose elbow and tip extremes
 *              are within 10⁻³ relative of a reference (genalpha, h = 0.0025), its CPU time.
 *   per-iter   the discretizations of Kynema-FMB's regression beams, timed per Newton
 *              iteration: the composite cantilever (models/composite-cantilever.yaml: one
 *              element of order 4, 5 nodes, 7 Gauss points, h = 0.005, ρ∞ = 0, tip step load)
 *              and the IEA 15-MW blade (models/iea15-blade.yaml: one element of order 10,
 *              11 nodes, 50 Gauss points, the blade's sections with the centre of mass off the
 *              axis, h = 10⁻³, ρ∞ = 0.4, tip step load −200 kN, t ∈ [0, 1]), dense and KLU: µs
 *              per Newton iteration and iterations per step, beside the figures measured for
 *              Kynema on the same machine class (docs/beam.md).
 * BENCH_QUICK=1 (the smoke run of make test): up to 40 nodes, t ∈ [0, 3], a coarse reference.
 * BENCH_STUDY=per-iter|scaling|cantilever runs one study; in per-iter, BENCH_MODEL=composite|iea15
 * and BENCH_LA=dense|klu one model or solver (for profiling).
 */
#define BENCH_NAME      "bench_beam"
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "liedyn/integrator.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif

/* A clamped cantilever along x: n elements of order 4, a tip force (a load on the last node). */
static void cantilever(ld_model *m, int n, ld_load *ld) {
    ld_model_init(m);
    strcpy(m->name, "cantilever");
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "b");
    b.order = 4, b.nelem = n, b.npoints = 2;
    b.points[3] = 10.0;
    b.normal[1] = 1.0;
    const double sec[6] = {1e6, 1e6, 1e6, 1e3, 1e3, 1e3};
    for (int k = 0; k < 6; ++k) b.C[7 * k] = sec[k];
    b.rho_a = 1.0;
    b.rho_j[0] = 20.0, b.rho_j[4] = b.rho_j[8] = 10.0;
    b.clamp[0] = 1;
    check_ld("place", ld_beam_place(m, &b));
    check_ld("add", ld_model_add_beam(m, &b));
    memset(ld, 0, sizeof *ld);
    ld->kind = LD_LOAD_FORCE, ld->body = m->nbodies - 1, ld->frame = LD_IN_SPATIAL;
    ld->vec[2] = 50.0;
    m->loads = ld, m->nloads = 1;
}

static void scaling(void) {
    printf("study,integrator,nodes,unknowns,steps,us_per_step,us_per_step_per_node,"
           "newton_per_step,factorizations_per_step\n");
    const int ns[] = {3, 10, 30, 100, 300, 1000, 2500};
    const ld_integ_method ms[3] = {LD_INTEG_GENALPHA, LD_INTEG_NEWMARK, LD_INTEG_HHT};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; ++i) {
        if (bench_quick() && ns[i] > 10) break;
        ld_model m;
        ld_load ld;
        cantilever(&m, ns[i], &ld);
        ld_system s;
        double *q0, *v0;
        check_ld("compile", ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0));
        for (int k = 0; k < 3; ++k) {
            ld_integ_options o;
            ld_integ_options_init(&o);
            o.method = ms[k], o.la = LD_LA_KLU, o.rho_inf = 0.9;
            int rc;
            ld_integ *it = ld_integ_create(&s, &o, &rc);
            if (!it) die_code("create", rc);
            check_ld("init", ld_integ_init(it, 0.0, q0, v0));
            long steps = bench_quick() ? 5 : (long)fmax(10.0, 20000.0 / (4.0 * ns[i]));
            check_ld("step", ld_integ_step(it, 1e-3)); /* the symbolic analysis, untimed */
            double c0 = cpu_now();
            for (long j = 0; j < steps; ++j) check_ld("step", ld_integ_step(it, 1e-3));
            double us = 1e6 * (cpu_now() - c0) / (double)steps;
            ld_integ_stats st;
            ld_integ_get_stats(it, &st);
            printf("scaling,%s,%d,%d,%ld,%.2f,%.3f,%.2f,%.2f\n", ld_integ_method_name(ms[k]),
                   s.nnodes, s.k, steps, us, us / s.nnodes,
                   (double)st.newton_iterations / (double)st.steps,
                   (double)st.factorizations / (double)st.steps);
            fflush(stdout);
            ld_integ_free(it);
        }
        free(q0);
        free(v0);
        ld_model_system_free(&s);
        m.loads = NULL, m.nloads = 0;
        ld_model_free(&m);
    }
}

/* Extremes of the elbow (beam[15]) and tip (beam[30]) z over the run; the CPU time. */
typedef struct ext {
    int ok;
    double e[4], cpu;
    long steps;
} ext;

static ext run(const ld_model *m, ld_integ_method meth, double h, double T) {
    ld_system s;
    double *q0, *v0, x[3], qq[4], om[3], xd[3];
    check_ld("compile", ld_model_compile(m, LD_FORM_SO3XR3, &s, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth, o.la = LD_LA_KLU, o.rho_inf = 1.0;
    int rc;
    ld_integ *it = ld_integ_create(&s, &o, &rc);
    if (!it) die_code("create", rc);
    ext r = {1, {INFINITY, -INFINITY, INFINITY, -INFINITY}, 0.0, 0};
    double c0 = cpu_now();
    check_ld("init", ld_integ_init(it, 0.0, q0, v0));
    long n = lround(T / h);
    for (long i = 1; i <= n && r.ok; ++i) {
        r.ok = ld_integ_advance_to(it, T * (double)i / (double)n) == LD_OK;
        for (int w = 0; w < 2 && r.ok; ++w) {
            ld_model_body_state(&s, w ? 29 : 14, ld_integ_q(it), ld_integ_v(it), x, qq, om, xd);
            r.e[2 * w] = fmin(r.e[2 * w], x[2]);
            r.e[2 * w + 1] = fmax(r.e[2 * w + 1], x[2]);
        }
    }
    r.cpu = cpu_now() - c0;
    r.steps = n;
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return r;
}

static double rel_err(const ext *a, const ext *ref) {
    double e = 0.0, sc = 0.0;
    for (int k = 0; k < 4; ++k) sc = fmax(sc, fabs(ref->e[k]));
    for (int k = 0; k < 4; ++k) e = fmax(e, fabs(a->e[k] - ref->e[k]));
    return e / sc;
}

static void cantilever_study(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/models/right-angle-cantilever.yaml", LD_SOURCE_DIR);
    ld_model m;
    ld_model_error err;
    int rc = ld_model_load(path, &m, &err);
    if (rc) die(path, rc == LD_EINVAL ? err.msg : ld_strerror(rc));
    const double T = bench_quick() ? 3.0 : 30.0;
    ext ref = run(&m, LD_INTEG_GENALPHA, bench_quick() ? 0.01 : 0.0025, T);
    if (!ref.ok) die("reference", "genalpha failed");
    printf("study,integrator,h,steps,elbow_min,elbow_max,tip_min,tip_max,rel_error,cpu_s\n");
    printf("reference,genalpha,%g,%ld,%.6f,%.6f,%.6f,%.6f,0,%.3f\n", bench_quick() ? 0.01 : 0.0025,
           ref.steps, ref.e[0], ref.e[1], ref.e[2], ref.e[3], ref.cpu);
    const ld_integ_method ms[4] = {LD_INTEG_GENALPHA, LD_INTEG_NEWMARK, LD_INTEG_HHT,
                                   LD_INTEG_HEM5};
    for (int k = 0; k < 4; ++k) {
        double h = ms[k] == LD_INTEG_HEM5 ? 8e-4 : 0.04;
        for (; h > 1e-5; h *= 0.5) {
            if (bench_quick() && h < 0.02 && ms[k] != LD_INTEG_HEM5) break;
            ext r = run(&m, ms[k], h, T);
            double e = r.ok ? rel_err(&r, &ref) : (double)INFINITY;
            if (!(e <= 1e-3) && !bench_quick()) continue;
            printf("cantilever,%s,%g,%ld,%.6f,%.6f,%.6f,%.6f,%.3e,%.3f\n",
                   ld_integ_method_name(ms[k]), h, r.steps, r.e[0], r.e[1], r.e[2], r.e[3], e,
                   r.cpu);
            fflush(stdout);
            break;
        }
    }
    ld_model_free(&m);
}

/* µs per Newton iteration and iterations per step of genalpha on m for T seconds at step h, in
 * the CPU time of the calling thread (the integrator's; the process's CPU time, also printed,
 * adds OpenBLAS's worker threads, which spin in sched_yield for their first ~0.1 s whether or
 * not they get work: most of a 0.1 s run's process time). */
static void per_iteration(const char *name, const ld_model *m, double h, double rho, double T) {
    const char *only = getenv("BENCH_LA"); /* dense or klu: one of the two */
    for (int la = 0; la < 2; ++la) {
        if (only && strcmp(only, la ? "klu" : "dense")) continue;
        ld_system s;
        double *q0, *v0;
        check_ld("compile", ld_model_compile(m, LD_FORM_SO3XR3, &s, &q0, &v0));
        ld_integ_options o;
        ld_integ_options_init(&o);
        o.method = LD_INTEG_GENALPHA, o.rho_inf = rho, o.la = la ? LD_LA_KLU : LD_LA_DENSE;
        int rc;
        ld_integ *it = ld_integ_create(&s, &o, &rc);
        if (!it) die_code("create", rc);
        check_ld("init", ld_integ_init(it, 0.0, q0, v0));
        long n = lround(T / h);
        double c0 = thread_cpu_now(), p0 = cpu_now();
        for (long i = 1; i <= n; ++i) check_ld("step", ld_integ_step(it, h));
        double cpu = thread_cpu_now() - c0, pcpu = cpu_now() - p0;
        ld_integ_stats st;
        ld_integ_get_stats(it, &st);
        printf("per-iter,%s,%s,%d,%g,%ld,%.2f,%.2f,%.3f,%.3f\n", name, la ? "klu" : "dense", s.k, h,
               n, (double)st.newton_iterations / (double)n,
               1e6 * cpu / (double)st.newton_iterations, cpu, pcpu);
        ld_integ_free(it);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
}

static void kynema_study(void) {
    printf("study,model,la,unknowns,h,steps,newton_per_step,us_per_newton,cpu_s,process_cpu_s\n");
    char path[512];
    snprintf(path, sizeof path, "%s/models/composite-cantilever.yaml", LD_SOURCE_DIR);
    ld_model m;
    ld_model_error err;
    int rc = ld_model_load(path, &m, &err);
    if (rc) die(path, rc == LD_EINVAL ? err.msg : ld_strerror(rc));
    const char *only = getenv("BENCH_MODEL"); /* composite or iea15: one of the two */
    if (!only || !strcmp(only, "composite"))
        per_iteration("composite-p4-7qp", &m, 0.005, 0.0, bench_quick() ? 0.1 : 5.0);
    ld_model_free(&m);
    if (only && strcmp(only, "iea15")) return;
    snprintf(path, sizeof path, "%s/models/iea15-blade.yaml", LD_SOURCE_DIR);
    if ((rc = ld_model_load(path, &m, &err)))
        die(path, rc == LD_EINVAL ? err.msg : ld_strerror(rc));
    per_iteration("iea15-blade-p10-50qp", &m, 1e-3, 0.4, bench_quick() ? 0.02 : 1.0);
    ld_model_free(&m);
}

/* BENCH_STUDY=per-iter|scaling|cantilever runs one study (default: all three). */
int main(void) {
    const char *only = getenv("BENCH_STUDY");
    if (!only || !strcmp(only, "per-iter")) kynema_study();
    if (!only || !strcmp(only, "scaling")) scaling();
    if (!only || !strcmp(only, "cantilever")) cantilever_study();
    return 0;
}

/*
 * bench_crank — cost of the V8 crank drive (models/crank-v8.yaml: 17 bodies, 101 joint
 * equations) per integrator and linear solver: steps/s, Newton iterations per step, µs per
 * step, and the dense/KLU ratio of the same configuration in the same run. Every run starts
 * from rest and takes steps of 1e-4 s (1000 with KLU, 100 with the dense solver, whose
 * 220–237-unknown factorization dominates); the best of two repetitions.
 * Formulations: euler (Euler parameters, 119 coordinates, 118 constraints) for hht,
 * hht-modified and genalpha; s3xr3 (unit quaternions on S³×R³, 102 velocities, 101
 * constraints) for hht and genalpha. CSV on stdout. BENCH_QUICK=1: 5 and 10 steps (the smoke
 * run of make test).
 */
#define BENCH_NAME      "bench_crank"
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "bench_common.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif

#define H 1e-4

typedef struct result {
    double cpu, its, facs, omega; /* CPU s, Newton iterations and factorizations per step, and
                                     the crankshaft's final spin */
} result;

static result run_opt(const ld_model *m, ld_formulation f, ld_integ_method meth, ld_la_kind la,
                      int nsteps, int reuse) {
    ld_system s;
    double *q0, *v0;
    check_ld("compile", ld_model_compile(m, f, &s, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    o.alpha = -0.3;
    o.rho_inf = 0.8;
    o.la = la;
    o.newton_reuse = reuse;
    int rc;
    ld_integ *it = ld_integ_create(&s, &o, &rc);
    if (!it) die_code("create", rc);
    result best = {INFINITY, 0.0, 0.0, 0.0};
    for (int rep = 0; rep < 2; ++rep) {
        check_ld("init", ld_integ_init(it, 0.0, q0, v0));
        double c0 = cpu_now();
        for (int k = 1; k <= nsteps; ++k) check_ld("step", ld_integ_advance_to(it, k * H));
        double c = cpu_now() - c0;
        ld_integ_stats st;
        ld_integ_get_stats(it, &st);
        double x[3], q[4], w[3], xd[3];
        ld_model_body_state(&s, 0, ld_integ_q(it), ld_integ_v(it), x, q, w, xd);
        if (c < best.cpu)
            best = (result){c, (double)st.newton_iterations / (double)st.steps,
                            (double)st.factorizations / (double)st.steps, w[0]};
    }
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return best;
}

static result run(const ld_model *m, ld_formulation f, ld_integ_method meth, ld_la_kind la,
                  int nsteps) {
    return run_opt(m, f, meth, la, nsteps, 0);
}

/* KLU, 1 s of the drive (quick: 0.002 s) with a fresh iteration matrix every Newton iteration
 * and with the matrix kept while it serves (o.newton_reuse): CPU per simulated second, the
 * work per step, and the change of the crankshaft's spin against the full Newton run. */
static void reuse_study(const ld_model *m) {
    const struct {
        ld_formulation f;
        ld_integ_method meth;
    } cfg[3] = {{LD_FORM_SO3XR3, LD_INTEG_GENALPHA},
                {LD_FORM_S3XR3, LD_INTEG_GENALPHA},
                {LD_FORM_EULER, LD_INTEG_HHT_MODIFIED}};
    int n = bench_quick() ? 20 : 10000;
    printf("\nmodel,formulation,integrator,newton,steps,newton_per_step,factorizations_per_step,"
           "cpu_per_simulated_s,speedup,spin_change_rel\n");
    for (int c = 0; c < 3; ++c) {
        result r[2];
        for (int reuse = 0; reuse < 2; ++reuse)
            r[reuse] = run_opt(m, cfg[c].f, cfg[c].meth, LD_LA_KLU, n, reuse);
        for (int reuse = 0; reuse < 2; ++reuse)
            printf("crank-v8,%s,%s,%s,%d,%.3f,%.4f,%.3f,%.2f,%.2e\n", ld_formulation_name(cfg[c].f),
                   ld_integ_method_name(cfg[c].meth), reuse ? "kept-matrix" : "full", n,
                   r[reuse].its, r[reuse].facs, r[reuse].cpu / (n * H), r[0].cpu / r[reuse].cpu,
                   fabs(r[reuse].omega - r[0].omega) / fabs(r[0].omega));
    }
}

int main(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/models/crank-v8.yaml", LD_SOURCE_DIR);
    ld_model m;
    ld_model_error err;
    int rc = ld_model_load(path, &m, &err);
    if (rc) die(path, rc == LD_EINVAL ? err.msg : ld_strerror(rc));
    const struct {
        ld_formulation f;
        ld_integ_method meth;
    } cfg[5] = {{LD_FORM_EULER, LD_INTEG_HHT},
                {LD_FORM_EULER, LD_INTEG_HHT_MODIFIED},
                {LD_FORM_EULER, LD_INTEG_GENALPHA},
                {LD_FORM_S3XR3, LD_INTEG_HHT},
                {LD_FORM_S3XR3, LD_INTEG_GENALPHA}};
    printf("model,formulation,integrator,la,steps,newton_per_step,us_per_step,steps_per_s,"
           "dense_over_klu\n");
    for (int c = 0; c < 5; ++c) {
        result r[2];
        const int n[2] = {bench_quick() ? 5 : 100, bench_quick() ? 10 : 1000};
        for (int la = 0; la < 2; ++la)
            r[la] = run(&m, cfg[c].f, cfg[c].meth, (ld_la_kind)la, n[la]);
        for (int la = 0; la < 2; ++la)
            printf("crank-v8,%s,%s,%s,%d,%.3f,%.2f,%.0f,%.3f\n", ld_formulation_name(cfg[c].f),
                   ld_integ_method_name(cfg[c].meth), ld_la_kind_name((ld_la_kind)la), n[la],
                   r[la].its, 1e6 * r[la].cpu / n[la], n[la] / r[la].cpu,
                   (r[0].cpu / n[0]) / (r[1].cpu / n[1]));
    }
    reuse_study(&m);
    ld_model_free(&m);
    return 0;
}

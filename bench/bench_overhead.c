/*
 * bench_overhead — the per-step overhead of the integrators on a small rigid model: the heavy
 * top (models/heavy-top.yaml, one body on a spherical joint: k = 6 velocities, m = 3
 * constraints), in the formulation of the file (so3xr3) and in s3xr3, dense linear algebra.
 *
 * Measured in one run, each figure the best of several interleaved repetitions:
 *   bare       one evaluation of the model through the system interface (system.h): ops.mass
 *              (M, k×k), ops.force (g), ops.phi (Φ) and ops.phi_q (B, m×k) at the initial
 *              state, once each — the floor any integrator that uses these quantities pays
 *   hem5       a fixed step of h = 1e-3 (7 stages), per step and per stage, and the stage in
 *              units of the bare evaluation
 *   genalpha   a fixed step of h = 1e-3 (ρ∞ = 0.9), per step and per Newton iteration, with the
 *              model's Newton setting (one matrix per step) and with full Newton (a matrix in
 *              every iteration: genalpha-full)
 * Each integrator runs three times: on its small-system path (the default for k + m ≤ 12 on the
 * dense solver), on the generic path that every system takes (ld_integ__set_generic, the code
 * as it was before the small path), and on the small path with the model's separate callbacks
 * instead of its fused evaluation (ld_integ__set_separate, the code as it was before the fused
 * pass; hem has none, so its separate figures repeat the small path's), so the speed-ups come
 * from one run. The paths must agree to round-off: the bench stops if the states after the
 * timed steps differ by more than 1e-9 relative (the fused and separate ones agree bit for
 * bit, tests/test_fused.c).
 *
 * CSV on stdout. BENCH_QUICK=1: a few hundred steps, once (the smoke run of make test).
 */
#define BENCH_NAME      "bench_overhead"
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "bench_common.h"
#include "integ_impl.h"
#include "liedyn/integrator.h"
#include "liedyn/model.h"
#include "liedyn/system.h"
#include "nodes.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif

#define H 1e-3

static int STEPS = 2000, REPS = 9, BARE_N = 5000;
/* BENCH_PATH=small, generic or separate: time that path alone (for callgrind) */
static int ONLY = -1;
static const char *const PATHS[3] = {"small", "generic", "separate"};
/* BENCH_METHOD=hem5, genalpha or genalpha-full: run that method alone (for callgrind) */
static int ONLY_M = -1;
static const char *const METHODS[3] = {"hem5", "genalpha", "genalpha-full"};

/* Scratch of the evaluations (the largest model the bench takes: k, m ≤ 12, nq ≤ 32). */
typedef struct scratch {
    double M[144], g[12], phi[12], B[144], C[144], K[144], T[36], qn[32], xi[12], a[12], lam[12];
} scratch;

/* The bare evaluation: ops.mass, ops.force, ops.phi, ops.phi_q once each. */
static __attribute__((noinline)) int eval_bare(const ld_system *s, const double *q, const double *v,
                                               scratch *w) {
    int rc = s->ops.mass(s, q, w->M);
    rc |= s->ops.force(s, 0.0, q, v, w->g);
    rc |= s->ops.phi(s, 0.0, q, w->phi);
    return rc | s->ops.phi_q(s, 0.0, q, w->B);
}

/* What one Newton iteration evaluates: the bare four, ∂g/∂v and the stiffness K (ops.g_v,
 * ops.stiffness), the retraction q ∘ exp(ξ) and each node's T(ξ). */
static __attribute__((noinline)) int eval_newton(const ld_system *s, const double *q,
                                                 const double *v, scratch *w) {
    int rc = eval_bare(s, q, v, w);
    rc |= s->ops.g_v(s, 0.0, q, v, w->C);
    rc |= s->ops.stiffness(s, 0.0, q, v, w->a, w->lam, w->K);
    ld_sys_retract(s, w->qn, q, w->xi);
    for (int nd = 0; nd < s->nnodes; ++nd) {
        const ld_node *N = &s->nodes[nd];
        ld_node_tangent(N, w->T, (size_t)ld_node_nv(N), w->xi + N->voff);
    }
    return rc;
}

/* The same through the fused call (ops.eval_newton: M, g, Φ, B, ∂g/∂v, K in one pass) and the
 * same Lie maps. */
static __attribute__((noinline)) int eval_fused(const ld_system *s, const double *q,
                                                const double *v, scratch *w) {
    ld_newton_eval e = {.t = 0.0, .q = q, .v = v, .a = w->a, .lambda = w->lam};
    e.M = w->M, e.g = w->g, e.Phi = w->phi, e.B = w->B, e.C = w->C, e.K = w->K;
    int rc = s->ops.eval_newton(s, &e);
    ld_sys_retract(s, w->qn, q, w->xi);
    for (int nd = 0; nd < s->nnodes; ++nd) {
        const ld_node *N = &s->nodes[nd];
        ld_node_tangent(N, w->T, (size_t)ld_node_nv(N), w->xi + N->voff);
    }
    return rc;
}

/* What one hem stage evaluates: ops.mass, ops.force, ops.phi_q, ops.phi_t, the retraction and
 * T⁻¹(θ) applied to v node by node. */
static __attribute__((noinline)) int eval_stage(const ld_system *s, const double *q,
                                                const double *v, scratch *w) {
    int rc = s->ops.mass(s, q, w->M);
    rc |= s->ops.force(s, 0.0, q, v, w->g);
    rc |= s->ops.phi_q(s, 0.0, q, w->B);
    rc |= s->ops.phi_t(s, 0.0, q, w->phi);
    ld_sys_retract(s, w->qn, q, w->xi);
    for (int nd = 0; nd < s->nnodes; ++nd) {
        const ld_node *N = &s->nodes[nd];
        int d = ld_node_nv(N);
        ld_node_tangent_inv(N, w->T, (size_t)d, w->xi + N->voff);
        for (int r = 0; r < d; ++r) {
            double acc = 0.0;
            for (int c = 0; c < d; ++c) acc += w->T[d * r + c] * v[N->voff + c];
            w->a[N->voff + r] = acc;
        }
    }
    return rc;
}

typedef int (*eval_fn)(const ld_system *s, const double *q, const double *v, scratch *w);

/* ns per call of one of the evaluations above at (q, v): one batch of BARE_N calls. */
static double model_ns(const ld_system *s, const double *q, const double *v, eval_fn f) {
    static scratch w;
    if (s->k > 12 || s->m > 12 || s->nq > 32) die("model", "model larger than the bench's buffers");
    for (int i = 0; i < s->k; ++i) w.xi[i] = 1e-3 * v[i], w.a[i] = 0.1 * (double)i;
    for (int i = 0; i < s->m; ++i) w.lam[i] = 1.0 + (double)i;
    double t0 = wall_now();
    for (int i = 0; i < BARE_N; ++i)
        if (f(s, q, v, &w)) die("model", "an evaluation failed");
    return (wall_now() - t0) / BARE_N * 1e9;
}

typedef struct run {
    double ns_step, its; /* best ns per step, Newton iterations per step */
    double *q, *v;       /* the final state (nq, k) */
} run;

/* Time STEPS fixed steps of h from the initial state; keep the best of the calls so far. */
static void timed(ld_integ *it, const ld_system *s, const double *q0, const double *v0, run *r) {
    check_ld("init", ld_integ_init(it, 0.0, q0, v0));
    double t0 = wall_now();
    for (int i = 1; i <= STEPS; ++i) check_ld("step", ld_integ_advance_to(it, i * H));
    double ns = (wall_now() - t0) / STEPS * 1e9;
    ld_integ_stats st;
    ld_integ_get_stats(it, &st);
    if (ns < r->ns_step) r->ns_step = ns;
    r->its = (double)st.newton_iterations / (double)st.steps;
    memcpy(r->q, ld_integ_q(it), (size_t)s->nq * sizeof(double));
    memcpy(r->v, ld_integ_v(it), (size_t)s->k * sizeof(double));
}

/* Largest difference of the two final states relative to their size. */
static double state_diff(const ld_system *s, const run *a, const run *b) {
    double d = 0.0, sc = 1.0;
    for (int i = 0; i < s->nq; ++i) {
        d = fmax(d, fabs(a->q[i] - b->q[i]));
        sc = fmax(sc, fabs(a->q[i]));
    }
    double dv = 0.0, sv = 1.0;
    for (int i = 0; i < s->k; ++i) {
        dv = fmax(dv, fabs(a->v[i] - b->v[i]));
        sv = fmax(sv, fabs(a->v[i]));
    }
    return fmax(d / sc, dv / sv);
}

static void study(const ld_model *m, ld_formulation f, const char *fname) {
    ld_system s;
    double *q0, *v0;
    check_ld("compile", ld_model_compile(m, f, &s, &q0, &v0));
    double bare = model_ns(&s, q0, v0, eval_bare);
    double floor_ga = model_ns(&s, q0, v0, eval_newton),
           floor_hem = model_ns(&s, q0, v0, eval_stage),
           floor_fused = model_ns(&s, q0, v0, eval_fused);
    const ld_integ_method meths[3] = {LD_INTEG_HEM5, LD_INTEG_GENALPHA, LD_INTEG_GENALPHA};
    for (int mi = 0; mi < 3; ++mi) {
        if (ONLY_M >= 0 && mi != ONLY_M) continue;
        ld_integ_options o;
        check_ld("options", ld_integ_options_from_model(m, &o));
        o.method = meths[mi];
        o.la = LD_LA_DENSE;
        o.adaptive = 0;
        if (mi == 2) o.newton_reuse = LD_REUSE_OFF;
        int rc;
        ld_integ *it[3];
        run r[3];
        for (int g = 0; g < 3; ++g) {
            it[g] = ld_integ_create(&s, &o, &rc);
            if (!it[g]) die_code("create", rc);
            ld_integ__set_generic(it[g], g == 1);
            ld_integ__set_separate(it[g], g == 2);
            r[g] = (run){INFINITY, 0.0, malloc((size_t)s.nq * sizeof(double)),
                         malloc((size_t)s.k * sizeof(double))};
            if (!r[g].q || !r[g].v) die("run", "out of memory");
        }
        for (int rep = 0; rep < REPS; ++rep) { /* interleaved: the same load on every figure */
            bare = fmin(bare, model_ns(&s, q0, v0, eval_bare));
            floor_ga = fmin(floor_ga, model_ns(&s, q0, v0, eval_newton));
            floor_hem = fmin(floor_hem, model_ns(&s, q0, v0, eval_stage));
            floor_fused = fmin(floor_fused, model_ns(&s, q0, v0, eval_fused));
            for (int g = 0; g < 3; ++g)
                if (ONLY < 0 || ONLY == g) timed(it[g], &s, q0, v0, &r[g]);
        }
        for (int g = 0; ONLY >= 0 && g < 3; ++g) {
            memcpy(r[g].q, r[ONLY].q, (size_t)s.nq * sizeof(double));
            memcpy(r[g].v, r[ONLY].v, (size_t)s.k * sizeof(double));
            r[g].ns_step = r[ONLY].ns_step, r[g].its = r[ONLY].its;
        }
        double diff = fmax(state_diff(&s, &r[0], &r[1]), state_diff(&s, &r[0], &r[2]));
        if (!(diff <= 1e-9)) die("paths", "the small, generic and separate paths disagree");
        const ld_hem_table *tb = ld_hem_table_of(meths[mi]);
        for (int g = 0; g < 3; ++g) {
            double per = tb ? r[g].ns_step / tb->sbar : r[g].ns_step / r[g].its;
            double fl = tb ? floor_hem : floor_ga;
            printf("%s,%s,%s,%.1f,%.2f,%s,%.1f,%.2f,%.2f,%.2f,%.2f,%.2e\n", fname, METHODS[mi],
                   PATHS[g], r[g].ns_step, tb ? (double)tb->sbar : r[g].its,
                   tb ? "stage" : "newton_iteration", per, per / bare, per / fl,
                   r[1].ns_step / r[g].ns_step, r[2].ns_step / r[g].ns_step, diff);
        }
        for (int g = 0; g < 3; ++g) {
            free(r[g].q);
            free(r[g].v);
            ld_integ_free(it[g]);
        }
    }
    printf("%s,bare,M+g+Phi+B,%.1f,1,evaluation,%.1f,1.00,%.2f,,,\n", fname, bare, bare,
           bare / floor_ga);
    printf("%s,floor,newton_iteration,%.1f,1,evaluation,%.1f,%.2f,1.00,,,\n", fname, floor_ga,
           floor_ga, floor_ga / bare);
    printf("%s,floor,newton_iteration_fused,%.1f,1,evaluation,%.1f,%.2f,%.2f,,,\n", fname,
           floor_fused, floor_fused, floor_fused / bare, floor_fused / floor_ga);
    printf("%s,floor,hem_stage,%.1f,1,evaluation,%.1f,%.2f,1.00,,,\n", fname, floor_hem, floor_hem,
           floor_hem / bare);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

int main(void) {
    if (bench_quick()) STEPS = 200, REPS = 1, BARE_N = 200;
    const char *only = getenv("BENCH_PATH");
    for (int g = 0; only && g < 3; ++g)
        if (strcmp(only, PATHS[g]) == 0) ONLY = g;
    const char *meth = getenv("BENCH_METHOD");
    for (int g = 0; meth && g < 3; ++g)
        if (strcmp(meth, METHODS[g]) == 0) ONLY_M = g;
    ld_model m;
    ld_model_error err;
    if (ld_model_load(LD_SOURCE_DIR "/models/heavy-top.yaml", &m, &err) != LD_OK)
        die("load", err.msg);
    printf("formulation,method,path,ns_per_step,per_step,unit,ns_per_unit,units_of_bare,"
           "units_of_floor,speedup_vs_generic,speedup_vs_separate,state_diff\n");
    study(&m, LD_FORM_SO3XR3, "so3xr3");
    study(&m, LD_FORM_S3XR3, "s3xr3");
    ld_model_free(&m);
    return 0;
}

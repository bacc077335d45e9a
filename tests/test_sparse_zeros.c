/*
 * The zeros that the structured sparse path leaves out of its KLU pattern (system.h,
 * ld_sys_probe_pattern at compile time, src/sys/probe.c; src/sys/integ_blocks.c):
 *  - on every shipped model in every maximal-coordinate formulation that takes the path
 *    (genalpha, KLU, full Newton and a kept matrix), the run with the probed pattern takes the
 *    same steps as the run with the whole block pattern, its states within round-off, and the
 *    left-out entries stay below the matrix's round-off (eps times its largest entry);
 *  - the entries that --la auto weighs are those of the pattern, the zeros left out; systems
 *    with force elements, contacts or loads keep the whole pattern;
 *  - on the n-four-bar the probe leaves out most of the block pattern in so3xr3 (the
 *    rotation–translation couplings, the translation blocks' off-diagonal entries, B's
 *    structural zeros), less in se3, whose twists couple rotation and translation;
 *  - a value that shows up later in a left-out place (a system that claims pattern_generic
 *    wrongly) restores the whole pattern: one more symbolic analysis, the same answer as the
 *    whole pattern throughout.
 */
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shipped.h"
#include "support.h"

#include "../src/sys/integ_impl.h"
#include "../src/sys/nodes.h"
#include "../src/sys/saddle.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/linalg.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* The shipped models' file names, sorted. */
static int shipped(char names[][64]) {
    int n = shipped_models(LD_SOURCE_DIR "/models", names);
    assert_true(n > 0);
    return n;
}

/* The outcome of a run. */
typedef struct outcome {
    int rc;
    ld_integ_stats st;
    double *q, *v, *lam;
    int nkept;      /* entries in the KLU pattern at the end */
    size_t full;    /* entries of the whole block pattern */
    long symbolic;  /* KLU's symbolic analyses */
    int blocks;     /* the run took the structured sparse path */
    double spilled; /* largest |value| in a left-out place at the end over max |kept| (≤ eps) */
} outcome;

static void outcome_free(outcome *o) {
    free(o->q);
    free(o->v);
    free(o->lam);
}

/* steps of genalpha (KLU, the given Newton setting) from (q0, v0) at step h. */
static outcome run(const ld_system *s, const double *q0, const double *v0, double t0, double h,
                   int steps, int reuse) {
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_GENALPHA;
    o.la = LD_LA_KLU;
    o.newton_reuse = reuse;
    outcome r = {.rc = LD_EINVAL};
    ld_integ *it = ld_integ_create(s, &o, NULL);
    if (!it) return r;
    r.rc = ld_integ_init(it, t0, q0, v0);
    for (int n = 0; n < steps && r.rc == LD_OK; ++n) r.rc = ld_integ_step(it, t0 + (n + 1) * h);
    ld_integ_get_stats(it, &r.st);
    size_t nq = (size_t)s->nq, k = (size_t)s->k, m = (size_t)s->m;
    r.q = malloc(nq * sizeof(double));
    r.v = malloc(k * sizeof(double));
    r.lam = malloc((m ? m : 1) * sizeof(double));
    assert_true(r.q && r.v && r.lam);
    memcpy(r.q, ld_integ_q(it), nq * sizeof(double));
    memcpy(r.v, ld_integ_v(it), k * sizeof(double));
    memcpy(r.lam, ld_integ_lambda(it), m * sizeof(double));
    r.blocks = it->blocks;
    if (it->blocks) {
        ld_la_stats ls;
        ld_la_get_stats(it->la, &ls);
        r.symbolic = ls.symbolic;
        r.nkept = it->nkept;
        r.full = ld_saddle_nnz(s);
        double in = 0.0;
        for (size_t p = 0; p < (size_t)it->nkept; ++p) in = fmax(in, fabs(it->vals[p]));
        for (size_t p = (size_t)it->nkept; p < r.full; ++p)
            r.spilled = fmax(r.spilled, fabs(it->vals[p]) / in);
    }
    ld_integ_free(it);
    return r;
}

/* max |a − b| / (1 + max |b|) over n entries. */
static double reldiff(const double *a, const double *b, size_t n) {
    double d = 0.0, mx = 0.0;
    for (size_t i = 0; i < n; ++i) {
        d = fmax(d, fabs(a[i] - b[i]));
        mx = fmax(mx, fabs(b[i]));
    }
    return d / (1.0 + mx);
}

static int ncompared, nreduced; /* runs compared; of them, with entries left out */

/* The probed and the whole pattern on s: the same steps, states within round-off. */
static void compare(ld_system *s, const double *q0, const double *v0, const ld_model *m, int reuse,
                    const char *what) {
    double h = m->run.dt > 0.0 ? m->run.dt : 1e-3;
    int generic = s->pattern_generic;
    outcome a = run(s, q0, v0, m->run.t_start, h, 6, reuse);
    s->pattern_generic = 0;
    outcome b = run(s, q0, v0, m->run.t_start, h, 6, reuse);
    s->pattern_generic = generic;
    if (a.rc != b.rc)
        fail_msg("%s: the runs end with %d (probed) and %d (whole)", what, a.rc, b.rc);
    if (a.rc == LD_OK && a.blocks) {
        if (a.st.steps != b.st.steps || a.st.newton_iterations != b.st.newton_iterations)
            fail_msg("%s: %ld/%ld steps, %ld/%ld iterations", what, a.st.steps, b.st.steps,
                     a.st.newton_iterations, b.st.newton_iterations);
        double dq = reldiff(a.q, b.q, (size_t)s->nq), dv = reldiff(a.v, b.v, (size_t)s->k);
        double dl = reldiff(a.lam, b.lam, (size_t)s->m);
        if (dq > 1e-11 || dv > 1e-9 || dl > 1e-7)
            fail_msg("%s: probed against whole pattern: q %.2e, v %.2e, lambda %.2e", what, dq, dv,
                     dl);
        if (a.spilled > DBL_EPSILON)
            fail_msg("%s: a left-out entry holds %.3e of the largest", what, a.spilled);
        if (a.symbolic != 1) fail_msg("%s: %ld symbolic analyses", what, a.symbolic);
        if (b.nkept != (int)b.full) fail_msg("%s: the whole pattern has gaps", what);
        if (!generic && a.nkept != (int)a.full)
            fail_msg("%s: entries left out without pattern_generic", what);
        ++ncompared;
        nreduced += a.nkept < (int)a.full;
    }
    outcome_free(&a);
    outcome_free(&b);
}

static void test_every_model(void **state) {
    (void)state;
    char names[MAX_MODELS][64];
    int n = shipped(names);
    for (int i = 0; i < n; ++i) {
        char path[4160];
        ld_model m;
        ld_model_error err;
        snprintf(path, sizeof path, "%s/models/%s", LD_SOURCE_DIR, names[i]);
        if (ld_model_load(path, &m, &err) != LD_OK) fail_msg("%s", err.msg);
        for (int f = 0; f < LD_FORM_COUNT; ++f) {
            ld_system s;
            double *q0, *v0;
            if (ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0) != LD_OK) continue;
            char what[4200];
            snprintf(what, sizeof what, "%s (%s)", names[i],
                     ld_formulation_name((ld_formulation)f));
            if (!s.pattern_generic && s.pattern_keep)
                fail_msg("%s: zeros probed on a system whose structure may change", what);
            if (ld_sys_has_blocks(&s)) {
                ld_integ_options o;
                ld_integ_options_init(&o);
                size_t kept = 0, nnz = ld_saddle_nnz(&s);
                for (size_t e = 0; e < nnz; ++e) kept += !s.pattern_keep || s.pattern_keep[e];
                if (ld_integ_la_entries(&s, &o) != kept) /* what --la auto weighs */
                    fail_msg("%s: la auto weighs %zu entries, the pattern has %zu", what,
                             ld_integ_la_entries(&s, &o), kept);
                compare(&s, q0, v0, &m, LD_REUSE_OFF, what);
                compare(&s, q0, v0, &m, LD_REUSE_AUTO, what);
            }
            free(q0);
            free(v0);
            ld_model_system_free(&s);
        }
        ld_model_free(&m);
    }
    printf("# %d runs compared, %d with entries left out\n", ncompared, nreduced);
    if (ncompared < 100 || nreduced < 50)
        fail_msg("only %d runs compared, %d with entries left out", ncompared, nreduced);
}

/* The n-four-bar in so3xr3 and se3: most of the block pattern is left out. */
static void test_n_four_bar(void **state) {
    (void)state;
    ld_model m;
    ld_model_error err;
    if (ld_model_load(LD_SOURCE_DIR "/models/n-four-bar.yaml", &m, &err) != LD_OK)
        fail_msg("%s", err.msg);
    ld_formulation forms[] = {LD_FORM_SO3XR3, LD_FORM_SE3};
    for (int f = 0; f < 2; ++f) {
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&m, forms[f], &s, &q0, &v0), LD_OK);
        assert_true(s.pattern_generic);
        outcome a = run(&s, q0, v0, 0.0, 1e-3, 3, LD_REUSE_OFF);
        assert_int_equal(a.rc, LD_OK);
        assert_true(a.blocks);
        printf("# n-four-bar (%s): %d of %zu entries kept\n", ld_formulation_name(forms[f]),
               a.nkept, a.full);
        double most = forms[f] == LD_FORM_SO3XR3 ? 0.4 : 0.6; /* se3 couples Ω and ẋ */
        if (!(a.nkept < most * (double)a.full))
            fail_msg("%s: %d of %zu entries kept", ld_formulation_name(forms[f]), a.nkept, a.full);
        outcome_free(&a);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(&m);
}

/* A wrapper that zeroes the off-diagonal entries of the first tangent block (the heavy top's
 * body: its gyroscopic and gravity terms) before T_ON: entries that the probe (at t = 0) sees
 * as zero and that show up later. */
#define T_ON 0.0045
static ld_system_ops inner;
static int late_blocks(const ld_system *s, double t, const double *q, const double *v,
                       const double *a, const double *lambda, double cm, double cc, double ck,
                       const double *Tb, double *vals) {
    int rc = inner.tangent_blocks(s, t, q, v, a, lambda, cm, cc, ck, Tb, vals);
    if (rc || t >= T_ON) return rc;
    int d = ld_node_nv(&s->nodes[s->blk_row[0]]);
    for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j)
            if (i != j) vals[i * d + j] = 0.0;
    return rc;
}

static void test_late_entry_restores_the_pattern(void **state) {
    (void)state;
    ld_model m;
    ld_model_error err;
    if (ld_model_load(LD_SOURCE_DIR "/models/heavy-top.yaml", &m, &err) != LD_OK)
        fail_msg("%s", err.msg);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    inner = s.ops;
    s.ops.tangent_blocks = late_blocks;
    s.ops.eval_newton = NULL; /* the wrapper replaces a callback: the fused call goes */
    s.pattern_generic = 1;
    assert_int_equal(ld_sys_probe_pattern(&s, 0.0, q0, v0), LD_OK); /* with the wrapper */
    assert_non_null(s.pattern_keep);
    outcome a = run(&s, q0, v0, 0.0, 1e-3, 10, LD_REUSE_OFF);
    s.pattern_generic = 0;
    outcome b = run(&s, q0, v0, 0.0, 1e-3, 10, LD_REUSE_OFF);
    assert_int_equal(a.rc, LD_OK);
    assert_int_equal(b.rc, LD_OK);
    assert_true(a.blocks);
    if (a.symbolic != 2)
        fail_msg("%ld symbolic analyses (2: the probed and the whole)", a.symbolic);
    if (a.nkept != (int)a.full) fail_msg("%d of %zu entries kept at the end", a.nkept, a.full);
    double dq = reldiff(a.q, b.q, (size_t)s.nq), dl = reldiff(a.lam, b.lam, (size_t)s.m);
    if (dq > 1e-11 || dl > 1e-7) fail_msg("against the whole pattern: q %.2e, lambda %.2e", dq, dl);
    outcome_free(&a);
    outcome_free(&b);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_n_four_bar),
        cmocka_unit_test(test_late_entry_restores_the_pattern),
        cmocka_unit_test(test_every_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

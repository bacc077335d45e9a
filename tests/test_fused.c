/*
 * The fused model evaluation of the Newton methods (ld_system_ops.eval_newton,
 * src/compile/elem_eval.c ld_elems_eval_newton; src/sys/integ_fused.c): on every shipped model
 * in every formulation that holds it,
 *  - every output of one fused call equals the separate callback's entry by entry (M, g, Φ, B,
 *    ∂g/∂v, K; the mass blocks, B's sparse values and the tangent blocks), at a state reached
 *    after a call at another state and time (nothing of the earlier call may survive), and the
 *    outputs do change between the two states;
 *  - the constant-mass flag holds what it claims: M the same at two configurations, and it is
 *    set for the body-frame Lie-group formulations of rigid bodies;
 *  - genalpha takes the same iterates with the fused call and with the separate callbacks
 *    (ld_integ__set_separate): the same states, multipliers and counts bit for bit, on the small,
 *    the generic dense and the structured sparse path, with full Newton and a kept matrix.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shipped.h"
#include "support.h"

#include "../src/sys/integ_impl.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* The shipped models' file names, sorted. */
static int shipped(char names[][64]) {
    int n = shipped_models(LD_SOURCE_DIR "/models", names);
    assert_true(n > 0);
    return n;
}

static int load(const char *file, ld_model *m) {
    char path[4160];
    ld_model_error err;
    snprintf(path, sizeof path, "%s/models/%s", LD_SOURCE_DIR, file);
    return ld_model_load(path, m, &err);
}

/* A state to evaluate at: q, v, a, λ, the T blocks and the coefficients. */
typedef struct state {
    double t, *q, *v, *a, *lam, *Tb, cm, cc, ck;
} evstate;

/* The arrays of one evaluation, dense and sparse. */
typedef struct outs {
    double *M, *g, *Phi, *B, *C, *K, *Mb, *Bv, *tv;
} outs;

static double *zalloc(size_t n) {
    double *p = calloc(n > 0 ? n : 1, sizeof(double));
    assert_non_null(p);
    return p;
}

static size_t ntv(const ld_system *s) {
    return s->nblk > 0 ? s->blk_off[s->nblk] : 0;
}

static outs outs_alloc(const ld_system *s) {
    size_t k = (size_t)s->k, m = (size_t)s->m;
    outs o = {zalloc(k * k),
              zalloc(k),
              zalloc(m),
              zalloc(m * k),
              zalloc(k * k),
              zalloc(k * k),
              zalloc(ld_sys_mass_block_entries(s)),
              zalloc((size_t)s->bnnz),
              zalloc(ntv(s))};
    return o;
}

static void outs_free(outs *o) {
    double *p[] = {o->M, o->g, o->Phi, o->B, o->C, o->K, o->Mb, o->Bv, o->tv};
    for (size_t i = 0; i < sizeof p / sizeof *p; ++i) free(p[i]);
}

/* The state after the initial one: q ∘ exp(ξ) with a random ξ, random v, a, λ, t. */
static evstate state_make(const ld_system *s, const double *q0, const double *v0, unsigned seed,
                          double scale) {
    rng r = rng_seed(seed);
    size_t k = (size_t)s->k;
    evstate x = {rng_range(&r, 0.0, 0.5),
                 zalloc((size_t)s->nq),
                 zalloc(k),
                 zalloc(k),
                 zalloc((size_t)s->m),
                 zalloc(ld_sys_mass_block_entries(s)),
                 rng_range(&r, 0.5, 2.0),
                 rng_range(&r, 0.5, 2.0),
                 rng_range(&r, 0.5, 2.0)};
    double *xi = zalloc(k);
    for (size_t i = 0; i < k; ++i) {
        xi[i] = scale * rng_range(&r, -0.1, 0.1);
        x.v[i] = v0[i] + rng_range(&r, -1.0, 1.0);
        x.a[i] = rng_range(&r, -1.0, 1.0);
    }
    for (int i = 0; i < s->m; ++i) x.lam[i] = rng_range(&r, -10.0, 10.0);
    ld_sys_retract(s, x.q, q0, xi);
    size_t o = 0; /* T blocks of a random ξ' (any values serve: both sides take the same) */
    for (int nd = 0; nd < s->nnodes; ++nd) {
        size_t nv =
            (size_t)(nd + 1 < s->nnodes ? s->nodes[nd + 1].voff : s->k) - (size_t)s->nodes[nd].voff;
        for (size_t i = 0; i < nv * nv; ++i)
            x.Tb[o + i] = (i % (nv + 1) == 0 ? 1.0 : 0.0) + rng_range(&r, -0.1, 0.1);
        o += nv * nv;
    }
    free(xi);
    return x;
}

static void state_free(evstate *x) {
    free(x->q);
    free(x->v);
    free(x->a);
    free(x->lam);
    free(x->Tb);
}

/* The fused call at x into o: the dense outputs, then (with blocks) the sparse ones. */
static void fused(const ld_system *s, const evstate *x, const outs *o) {
    ld_newton_eval e = {.t = x->t, .q = x->q, .v = x->v, .a = x->a, .lambda = x->lam};
    e.M = o->M, e.g = o->g, e.Phi = o->Phi, e.B = o->B, e.C = o->C, e.K = o->K;
    assert_int_equal(s->ops.eval_newton(s, &e), LD_OK);
    if (!s->ops.tangent_blocks) return;
    ld_newton_eval b = {.t = x->t, .q = x->q, .v = x->v, .a = x->a, .lambda = x->lam};
    b.Mb = o->Mb, b.Bv = o->Bv, b.tv = o->tv, b.Tb = x->Tb, b.cm = x->cm, b.cc = x->cc;
    b.ck = x->ck;
    assert_int_equal(s->ops.eval_newton(s, &b), LD_OK);
}

/* The separate callbacks at x into o. */
static void separate(const ld_system *s, const evstate *x, const outs *o) {
    assert_int_equal(s->ops.mass(s, x->q, o->M), LD_OK);
    assert_int_equal(s->ops.force(s, x->t, x->q, x->v, o->g), LD_OK);
    assert_int_equal(s->ops.phi(s, x->t, x->q, o->Phi), LD_OK);
    assert_int_equal(s->ops.phi_q(s, x->t, x->q, o->B), LD_OK);
    assert_int_equal(s->ops.g_v(s, x->t, x->q, x->v, o->C), LD_OK);
    assert_int_equal(s->ops.stiffness(s, x->t, x->q, x->v, x->a, x->lam, o->K), LD_OK);
    if (!s->ops.tangent_blocks) return;
    assert_int_equal(s->ops.mass_blocks(s, x->q, o->Mb), LD_OK);
    assert_int_equal(s->ops.phi_q_sparse(s, x->t, x->q, o->Bv), LD_OK);
    assert_int_equal(
        s->ops.tangent_blocks(s, x->t, x->q, x->v, x->a, x->lam, x->cm, x->cc, x->ck, x->Tb, o->tv),
        LD_OK);
}

/* The outputs' sizes, in the order of outs. */
static void sizes(const ld_system *s, size_t n[9]) {
    size_t k = (size_t)s->k, m = (size_t)s->m;
    size_t v[9] = {k * k,           k,     m, m * k, k * k, k * k, ld_sys_mass_block_entries(s),
                   (size_t)s->bnnz, ntv(s)};
    memcpy(n, v, sizeof v);
}

static const char *const NAMES[9] = {"M",           "g",        "Phi",           "B", "dg/dv", "K",
                                     "mass blocks", "B values", "tangent blocks"};

/* Index of the first output of a and b that differs in an entry (−1: none), its entry in *at. */
static int first_diff(const ld_system *s, const outs *a, const outs *b, size_t *at) {
    const double *pa[9] = {a->M, a->g, a->Phi, a->B, a->C, a->K, a->Mb, a->Bv, a->tv};
    const double *pb[9] = {b->M, b->g, b->Phi, b->B, b->C, b->K, b->Mb, b->Bv, b->tv};
    size_t n[9];
    sizes(s, n);
    for (int i = 0; i < 9; ++i) {
        if (i >= 6 && !s->ops.tangent_blocks) break;
        for (size_t j = 0; j < n[i]; ++j)
            if (memcmp(&pa[i][j], &pb[i][j], sizeof(double)) != 0) {
                *at = j;
                return i;
            }
    }
    return -1;
}

/* The fused outputs equal the separate ones bit for bit at state B after a fused call at A. */
static void check_model(const ld_system *s, const double *q0, const double *v0, const char *what) {
    evstate A = state_make(s, q0, v0, 3, 1.0), B = state_make(s, q0, v0, 7, 1.0);
    outs fa = outs_alloc(s), fb = outs_alloc(s), sb = outs_alloc(s);
    fused(s, &A, &fa);
    fused(s, &B, &fb);
    separate(s, &B, &sb);
    size_t at = 0;
    int d = first_diff(s, &fb, &sb, &at);
    if (d >= 0)
        fail_msg("%s: fused %s differs from the separate one at entry %zu", what, NAMES[d], at);
    d = first_diff(s, &fa, &fb, &at); /* the two states give other values: the check can fail */
    if (d < 0) fail_msg("%s: the fused outputs are the same at two states", what);
    outs_free(&fa);
    outs_free(&fb);
    outs_free(&sb);
    state_free(&A);
    state_free(&B);
}

/* Claimed constant: M (and its blocks) equal at two configurations far apart. */
static void check_mass_const(const ld_system *s, const double *q0, const double *v0,
                             const char *what) {
    if (!s->mass_const) return;
    evstate A = state_make(s, q0, v0, 5, 10.0), B = state_make(s, q0, v0, 9, 10.0);
    size_t k = (size_t)s->k;
    double *Ma = zalloc(k * k), *Mc = zalloc(k * k);
    assert_int_equal(s->ops.mass(s, A.q, Ma), LD_OK);
    assert_int_equal(s->ops.mass(s, B.q, Mc), LD_OK);
    if (memcmp(Ma, Mc, k * k * sizeof(double)) != 0)
        fail_msg("%s: flagged constant, but M changes with q", what);
    free(Ma);
    free(Mc);
    state_free(&A);
    state_free(&B);
}

/* Every shipped model in every formulation that holds it. */
static void for_each_model(void (*fn)(const ld_system *, const double *, const double *,
                                      const ld_model *, ld_formulation, const char *)) {
    char names[MAX_MODELS][64];
    int n = shipped(names), done = 0;
    for (int i = 0; i < n; ++i) {
        ld_model m;
        if (load(names[i], &m) != LD_OK) fail_msg("%s does not load", names[i]);
        for (int f = 0; f < LD_FORM_COUNT; ++f) {
            ld_system s;
            double *q0, *v0;
            if (ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0) != LD_OK) continue;
            char what[4200];
            snprintf(what, sizeof what, "%s (%s)", names[i],
                     ld_formulation_name((ld_formulation)f));
            assert_non_null(s.ops.eval_newton);
            fn(&s, q0, v0, &m, (ld_formulation)f, what);
            ++done;
            free(q0);
            free(v0);
            ld_model_system_free(&s);
        }
        ld_model_free(&m);
    }
    assert_true(done > 100); /* the models and formulations were found */
}

static void outputs_case(const ld_system *s, const double *q0, const double *v0, const ld_model *m,
                         ld_formulation f, const char *what) {
    (void)m;
    check_model(s, q0, v0, what);
    check_mass_const(s, q0, v0, what);
    int rigid = m->nbeams == 0;
    int want = rigid && (f == LD_FORM_SO3XR3 || f == LD_FORM_SE3 || f == LD_FORM_S3XR3 ||
                         f == LD_FORM_S3SDR3);
    if (want && !s->mass_const) fail_msg("%s: constant mass not flagged", what);
    if ((f == LD_FORM_EULER || f == LD_FORM_SO3XR3_SPATIAL || f == LD_FORM_S3XR3_SPATIAL) &&
        s->mass_const)
        fail_msg("%s: flagged constant mass, but M depends on q here", what);
}

static void test_outputs_equal_separate(void **state) {
    (void)state;
    for_each_model(outputs_case);
}

static int npairs; /* the pairs of runs compared */

/* Steps of genalpha with the fused call and with the separate callbacks: equal bit for bit. */
static void run_pair(const ld_system *s, const double *q0, const double *v0, const ld_model *m,
                     ld_la_kind la, int reuse, int generic, const char *what) {
    ld_integ_options o;
    assert_int_equal(ld_integ_options_from_model(m, &o), LD_OK);
    o.method = LD_INTEG_GENALPHA;
    o.la = la;
    o.newton_reuse = reuse;
    o.adaptive = 0;
    o.project = 0;
    double h = m->run.dt > 0.0 ? m->run.dt : 1e-3;
    ld_integ *it[2];
    int st;
    for (int i = 0; i < 2; ++i) {
        it[i] = ld_integ_create(s, &o, &st);
        if (!it[i]) return; /* genalpha refuses the model (a contact method's model) */
        ld_integ__set_separate(it[i], i);
        ld_integ__set_generic(it[i], generic);
        if (ld_integ_init(it[i], m->run.t_start, q0, v0) != LD_OK) {
            ld_integ_free(it[i]);
            if (i) ld_integ_free(it[0]);
            return;
        }
    }
    int rc[2] = {LD_OK, LD_OK};
    for (int n = 0; n < 8 && rc[0] == LD_OK; ++n)
        for (int i = 0; i < 2; ++i) rc[i] = ld_integ_step(it[i], ld_integ_t(it[i]) + h);
    if (rc[0] != rc[1]) fail_msg("%s: steps end with %d (fused) and %d", what, rc[0], rc[1]);
    ld_integ_stats a, b;
    ld_integ_get_stats(it[0], &a);
    ld_integ_get_stats(it[1], &b);
    if (a.newton_iterations != b.newton_iterations || a.factorizations != b.factorizations ||
        a.steps != b.steps)
        fail_msg("%s: %ld/%ld iterations, %ld/%ld factorizations", what, a.newton_iterations,
                 b.newton_iterations, a.factorizations, b.factorizations);
    size_t nq = (size_t)s->nq, k = (size_t)s->k, mm = (size_t)s->m;
    if (memcmp(ld_integ_q(it[0]), ld_integ_q(it[1]), nq * sizeof(double)) ||
        memcmp(ld_integ_v(it[0]), ld_integ_v(it[1]), k * sizeof(double)) ||
        memcmp(ld_integ_vdot(it[0]), ld_integ_vdot(it[1]), k * sizeof(double)) ||
        memcmp(ld_integ_lambda(it[0]), ld_integ_lambda(it[1]), mm * sizeof(double)))
        fail_msg("%s: the fused and the separate iterates differ (q %.3e)", what,
                 maxabs_diff(ld_integ_q(it[0]), ld_integ_q(it[1]), (int)nq));
    ld_integ_free(it[0]);
    ld_integ_free(it[1]);
    ++npairs;
}

static void genalpha_case(const ld_system *s, const double *q0, const double *v0, const ld_model *m,
                          ld_formulation f, const char *what) {
    (void)f;
    char w[4300];
    snprintf(w, sizeof w, "%s, la auto, kept matrix", what);
    run_pair(s, q0, v0, m, LD_LA_AUTO, LD_REUSE_AUTO, 0, w);
    snprintf(w, sizeof w, "%s, la auto, full Newton", what);
    run_pair(s, q0, v0, m, LD_LA_AUTO, LD_REUSE_OFF, 0, w);
    if (s->k + s->m > 400) return; /* dense and sparse on the smaller models too */
    snprintf(w, sizeof w, "%s, dense generic, full Newton", what);
    run_pair(s, q0, v0, m, LD_LA_DENSE, LD_REUSE_OFF, 1, w);
    snprintf(w, sizeof w, "%s, klu, full Newton", what);
    run_pair(s, q0, v0, m, LD_LA_KLU, LD_REUSE_OFF, 0, w);
}

static void test_genalpha_same_iterates(void **state) {
    (void)state;
    for_each_model(genalpha_case);
    if (npairs < 300) fail_msg("only %d pairs of runs compared", npairs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outputs_equal_separate),
        cmocka_unit_test(test_genalpha_same_iterates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

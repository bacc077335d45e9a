/* User forces through the system's cache (src/elements/el_user_cache.c): a vectorized force
 * gives the numbers of its instances added one by one, in every formulation, with one call per
 * evaluation; the differences perturb the bodies a force depends on only, the tangents are
 * computed once per state, and ld_sys_forget drops the kept values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "liedyn/liedyn.h"

#define NB 4 /* free bodies; the group: (ground, 0), (0, 1), (1, 2), (3, 2) */
static const int B1[3] = {LD_GROUND, 0, 3}, B2[3] = {0, 1, 2};

static long calls, tangent_calls;
static double gain = 1.0;

/* A coupling of two bodies: f2 = −k (x2 − x1) − c (ẋ2 − ẋ1) + k R2 e1 × (x2 − x1), f1 = −f2;
 * τ2 = −μ R2 Ω2 + κ (R1 e2) × (R2 e3), τ1 = −κ (R1 e2) × (R2 e3). */
static void one(double t, const ld_body_motion b[2], double w[12]) {
    const double k = 3.0 * gain, c = 0.4, mu = 0.2, kap = 0.7;
    double d[3], a[3], e[3], s[3];
    for (int i = 0; i < 3; ++i)
        d[i] = b[1].x[i] - b[0].x[i], a[i] = b[1].R[3 * i], e[i] = b[0].R[3 * i + 1];
    const double *z = b[1].R;
    double r2[3] = {z[2], z[5], z[8]};
    s[0] = e[1] * r2[2] - e[2] * r2[1], s[1] = e[2] * r2[0] - e[0] * r2[2];
    s[2] = e[0] * r2[1] - e[1] * r2[0];
    double ad[3] = {a[1] * d[2] - a[2] * d[1], a[2] * d[0] - a[0] * d[2],
                    a[0] * d[1] - a[1] * d[0]};
    for (int i = 0; i < 3; ++i) {
        double f = -k * (d[i]) - c * (b[1].xdot[i] - b[0].xdot[i]) + k * ad[i] + 0.1 * t;
        double ro = b[1].R[3 * i] * b[1].omega[0] + b[1].R[3 * i + 1] * b[1].omega[1] +
                    b[1].R[3 * i + 2] * b[1].omega[2];
        w[i] = -f, w[6 + i] = f;
        w[3 + i] = -kap * s[i], w[9 + i] = kap * s[i] - mu * ro;
    }
}

static int single(double t, const ld_body_motion b[2], double w[12], void *user) {
    (void)user;
    ++calls;
    one(t, b, w);
    return 0;
}

static int group(double t, int n, const ld_body_motion *b, double *w, void *user) {
    (void)user;
    ++calls;
    for (int i = 0; i < n; ++i) one(t, b + 2 * i, w + 12 * i);
    return 0;
}

/* Free bodies at a generic state. */
static void bodies(ld_body b[NB]) {
    memset(b, 0, NB * sizeof *b);
    for (int i = 0; i < NB; ++i) {
        snprintf(b[i].name, sizeof b[i].name, "b%d", i);
        b[i].mass = 1.0 + i;
        b[i].inertia[0] = 0.3, b[i].inertia[4] = 0.4 + 0.1 * i, b[i].inertia[8] = 0.5;
        double q[4] = {1.0, 0.1 * i, -0.2, 0.3 + 0.1 * i};
        assert_int_equal(ld_quat_normalize(b[i].q, q), LD_OK);
        b[i].x[0] = 1.0 + i, b[i].x[1] = 0.5 * i, b[i].x[2] = -0.3 * i;
        b[i].omega[0] = 0.7, b[i].omega[1] = -0.2 * i, b[i].omega[2] = 1.1;
        b[i].v[0] = 0.2 * i, b[i].v[1] = -0.4, b[i].v[2] = 0.3, b[i].has_v = 1;
    }
}

typedef struct sysm {
    ld_model m;
    ld_body b[NB];
    ld_system s;
    double *q0, *v0;
} sysm;

/* The model with the three couplings as one group (vec) or as three forces. */
static void make(sysm *w, int vec, ld_formulation f, unsigned depends) {
    ld_model_init(&w->m);
    bodies(w->b);
    w->m.bodies = w->b;
    w->m.nbodies = NB;
    if (vec)
        assert_int_equal(ld_model_add_user_forces(&w->m, "c", 3, B1, B2, group, NULL, NULL), LD_OK);
    else
        for (int i = 0; i < 3; ++i)
            assert_int_equal(ld_model_add_user_force(&w->m, "", B1[i], B2[i], single, NULL, NULL),
                             LD_OK);
    for (int i = 0; i < w->m.nelements; ++i) w->m.elements[i].depends = depends;
    assert_int_equal(ld_model_compile(&w->m, f, &w->s, &w->q0, &w->v0), LD_OK);
}

static void done(sysm *w) {
    free(w->q0);
    free(w->v0);
    ld_model_system_free(&w->s);
    w->m.bodies = NULL, w->m.nbodies = 0;
    ld_model_free(&w->m);
}

/* g, ∂g/∂v and K at the initial state (t = 0.3, a = v). */
static void evaluate(const sysm *w, double *g, double *C, double *K) {
    const ld_system *s = &w->s;
    double *lam = calloc((size_t)(s->m > 0 ? s->m : 1), sizeof *lam);
    assert_int_equal(s->ops.force(s, 0.3, w->q0, w->v0, g), LD_OK);
    assert_int_equal(ld_sys_g_v(s, 0.3, w->q0, w->v0, C), LD_OK);
    assert_int_equal(ld_sys_stiffness(s, 0.3, w->q0, w->v0, w->v0, lam, K), LD_OK);
    free(lam);
}

static void test_group_equals_instances(void **state) {
    (void)state;
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        sysm a, b;
        make(&a, 0, (ld_formulation)f, 0);
        make(&b, 1, (ld_formulation)f, 0);
        size_t k = (size_t)a.s.k;
        double *x = malloc(2 * (k + 2 * k * k) * sizeof *x), *y = x + k + 2 * k * k;
        calls = 0;
        evaluate(&a, x, x + k, x + k + k * k);
        long ca = calls;
        calls = 0;
        evaluate(&b, y, y + k, y + k + k * k);
        /* the same numbers, bit for bit */
        assert_memory_equal(x, y, (k + 2 * k * k) * sizeof *x);
        /* one force per instance, or one for the group; the tangents once, shared by ∂g/∂v
         * and K: 12 pairs of calls for the ground's instance, 24 for the others, 24 pairs
         * for the whole group */
        assert_int_equal(ca, 3 + 2 * (12 + 24 + 24));
        assert_int_equal(calls, 1 + 2 * 24);
        free(x);
        done(&a);
        done(&b);
    }
}

static void test_declared_dependencies(void **state) {
    (void)state;
    sysm a;
    make(&a, 0, LD_FORM_SE3, LD_DEPENDS_BODY2);
    size_t k = (size_t)a.s.k;
    double *x = malloc((k + 2 * k * k) * sizeof *x);
    calls = 0;
    evaluate(&a, x, x + k, x + k + k * k);
    assert_int_equal(calls, 3 + 3 * 2 * 12); /* body2's 12 columns only */
    free(x);
    done(&a);
}

static int tangent_count(double t, const ld_body_motion b[2], double Wq[144], double Wv[144],
                         void *user) {
    (void)t, (void)b, (void)user;
    ++tangent_calls;
    memset(Wq, 0, 144 * sizeof *Wq);
    memset(Wv, 0, 144 * sizeof *Wv);
    return 0;
}

static void test_forget(void **state) {
    (void)state;
    sysm a;
    ld_model_init(&a.m);
    bodies(a.b);
    a.m.bodies = a.b;
    a.m.nbodies = NB;
    assert_int_equal(ld_model_add_user_force(&a.m, "", 0, 1, single, tangent_count, NULL), LD_OK);
    assert_int_equal(ld_model_compile(&a.m, LD_FORM_SO3XR3, &a.s, &a.q0, &a.v0), LD_OK);
    size_t k = (size_t)a.s.k;
    double *g0 = malloc(2 * k * sizeof *g0), *g1 = g0 + k;
    double *C = malloc(k * k * sizeof *C);
    tangent_calls = 0;
    assert_int_equal(ld_sys_g_v(&a.s, 0.3, a.q0, a.v0, C), LD_OK);
    assert_int_equal(ld_sys_g_v(&a.s, 0.3, a.q0, a.v0, C), LD_OK);
    assert_int_equal(tangent_calls, 1); /* kept for the same state */
    assert_int_equal(a.s.ops.force(&a.s, 0.3, a.q0, a.v0, g0), LD_OK);
    gain = 2.0; /* the callback changes: the kept value stays until forgotten */
    assert_int_equal(a.s.ops.force(&a.s, 0.3, a.q0, a.v0, g1), LD_OK);
    assert_memory_equal(g0, g1, k * sizeof *g0);
    ld_sys_forget(&a.s);
    assert_int_equal(a.s.ops.force(&a.s, 0.3, a.q0, a.v0, g1), LD_OK);
    assert_memory_not_equal(g0, g1, k * sizeof *g0);
    /* an integrator's initialization forgets too */
    gain = 1.0;
    ld_integ_options o;
    ld_integ_options_init(&o);
    int st = 0;
    ld_integ *it = ld_integ_create(&a.s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.3, a.q0, a.v0), LD_OK);
    assert_int_equal(a.s.ops.force(&a.s, 0.3, a.q0, a.v0, g1), LD_OK);
    assert_memory_equal(g0, g1, k * sizeof *g0);
    ld_integ_free(it);
    free(g0);
    free(C);
    done(&a);
}

static void test_bad_arguments(void **state) {
    (void)state;
    ld_model m;
    ld_body b[NB];
    ld_model_init(&m);
    bodies(b);
    m.bodies = b;
    m.nbodies = NB;
    const int bad[3] = {0, 0, 1};
    assert_int_equal(ld_model_add_user_forces(&m, "c", 0, B1, B2, group, NULL, NULL), LD_EINVAL);
    assert_int_equal(ld_model_add_user_forces(&m, "c", 3, B1, bad, group, NULL, NULL), LD_EINVAL);
    assert_int_equal(ld_model_add_user_forces(&m, "c", 3, B1, B2, NULL, NULL, NULL), LD_EINVAL);
    char name[LD_NAME_MAX];
    memset(name, 'n', sizeof name - 3);
    name[sizeof name - 3] = '\0'; /* "nnn…[2]" would not fit */
    assert_int_equal(ld_model_add_user_forces(&m, name, 3, B1, B2, group, NULL, NULL), LD_EINVAL);
    assert_int_equal(m.nelements, 0); /* nothing added */
    assert_int_equal(ld_model_add_user_forces(&m, "c", 3, B1, B2, group, NULL, NULL), LD_OK);
    assert_string_equal(m.elements[2].name, "c[2]");
    m.bodies = NULL, m.nbodies = 0;
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_equals_instances),
        cmocka_unit_test(test_declared_dependencies),
        cmocka_unit_test(test_forget),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The splitting integrators split2 … split8 (src/sys/split.c, docs/split.md) on the shipped
 * rigid-body models:
 *   - order: the torque-free asymmetric body (free-top: the free flow split into its
 *     symmetric and asymmetric parts) and the heavy top (a pivoting symmetric body under
 *     gravity) against a reference of hem5 at a small step, the observed order of each method;
 *   - what they keep exactly: the spatial angular momentum of the free body and |Ω|-independent
 *     Casimir |Π| to round-off over 10⁴ steps, the unit quaternion in s3xr3, the pivot (the
 *     joint's equations) to round-off;
 *   - symplecticity: the heavy top's energy error stays bounded over 10⁶ steps (no drift);
 *   - reversibility: forward, momenta reversed, forward again returns to the start;
 *   - refusals: joints other than a spherical one to the ground, force elements, the euler
 *     formulation, each with its reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

typedef struct run {
    ld_model m;
    ld_system s;
    double *q0, *v0;
    ld_integ *it;
} run;

static int start(run *r, const char *model, ld_formulation f, const char *method) {
    char path[4608], msg[256];
    snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, model);
    ld_model_error err;
    if (ld_model_load(path, &r->m, &err)) fail_msg("%s", err.msg);
    assert_int_equal(ld_model_compile(&r->m, f, &r->s, &r->q0, &r->v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)ld_integ_method_find(method);
    int st = 0;
    r->it = ld_integ_create_msg(&r->s, &o, &st, msg, sizeof msg);
    if (!r->it) {
        printf("%s on %s: %s\n", method, model, msg);
        return st;
    }
    assert_int_equal(ld_integ_init(r->it, 0.0, r->q0, r->v0), LD_OK);
    return LD_OK;
}

static void finish(run *r) {
    ld_integ_free(r->it);
    free(r->q0);
    free(r->v0);
    ld_model_system_free(&r->s);
    ld_model_free(&r->m);
}

/* Body 0's position and rotation matrix at t after n steps of h. */
static void advance(run *r, int n, double h, double x[3], double R[9]) {
    for (int i = 0; i < n; ++i) assert_int_equal(ld_integ_step(r->it, h), LD_OK);
    double qq[4], om[3], xd[3];
    ld_model_body_state(&r->s, 0, ld_integ_q(r->it), ld_integ_v(r->it), x, qq, om, xd);
    double w = qq[0], a = qq[1], b = qq[2], c = qq[3];
    const double M[9] = {1 - 2 * (b * b + c * c), 2 * (a * b - w * c),     2 * (a * c + w * b),
                         2 * (a * b + w * c),     1 - 2 * (a * a + c * c), 2 * (b * c - w * a),
                         2 * (a * c - w * b),     2 * (b * c + w * a),     1 - 2 * (a * a + b * b)};
    memcpy(R, M, sizeof M);
}

static double diff(const double *x, const double *R, const double *xr, const double *Rr) {
    double e = 0.0;
    for (int k = 0; k < 3; ++k) e = fmax(e, fabs(x[k] - xr[k]));
    for (int k = 0; k < 9; ++k) e = fmax(e, fabs(R[k] - Rr[k]));
    return e;
}

/* The observed orders on a model up to T against hem5 at h_ref. */
static void orders(const char *model, double T, double h0, double h_ref) {
    run r;
    double xr[3], Rr[9], x[3], R[9];
    assert_int_equal(start(&r, model, LD_FORM_SO3XR3, "hem5"), LD_OK);
    advance(&r, (int)lround(T / h_ref), h_ref, xr, Rr);
    finish(&r);
    static const char *const ms[4] = {"split2", "split4", "split6", "split8"};
    for (int k = 0; k < 4; ++k) {
        double e[2];
        for (int j = 0; j < 2; ++j) {
            double h = h0 / (1 << j);
            assert_int_equal(start(&r, model, LD_FORM_SO3XR3, ms[k]), LD_OK);
            advance(&r, (int)lround(T / h), h, x, R);
            e[j] = diff(x, R, xr, Rr);
            finish(&r);
        }
        double p = log2(e[0] / e[1]), want = 2.0 * (k + 1);
        printf("%s, %s: errors %.3e, %.3e at h = %g, %g: order %.2f\n", model, ms[k], e[0], e[1],
               h0, h0 / 2, p);
        if (e[1] > 1e-11) /* above round-off: the order shows */
            assert_true(fabs(p - want) < 0.35);
        else
            assert_true(e[0] < 1e-9);
    }
}

static void test_orders(void **state) {
    (void)state;
    orders("free-top", 2.0, 0.02, 2.5e-4);
    orders("heavy-top", 0.5, 0.01, 1e-4);
}

/* Exact invariants of the free body: the spatial angular momentum R J Ω, |Π|, the unit
 * quaternion (s3xr3). */
static void test_invariants(void **state) {
    (void)state;
    run r;
    assert_int_equal(start(&r, "free-top", LD_FORM_S3XR3, "split4"), LD_OK);
    const double J[3] = {1, 2, 3};
    double L0[3] = {0}, x[3], R[9], Lmax = 0.0, qmax = 0.0;
    for (int n = 0; n <= 10000; n += 100) {
        advance(&r, n ? 100 : 0, 0.01, x, R);
        double qq[4], om[3], xd[3], L[3];
        ld_model_body_state(&r.s, 0, ld_integ_q(r.it), ld_integ_v(r.it), x, qq, om, xd);
        for (int i = 0; i < 3; ++i)
            L[i] =
                R[3 * i] * J[0] * om[0] + R[3 * i + 1] * J[1] * om[1] + R[3 * i + 2] * J[2] * om[2];
        const double *q = ld_integ_q(r.it);
        qmax = fmax(qmax, fabs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1.0));
        if (!n) memcpy(L0, L, sizeof L);
        for (int i = 0; i < 3; ++i) Lmax = fmax(Lmax, fabs(L[i] - L0[i]));
    }
    printf("free top, split4, 10^4 steps: spatial angular momentum within %.2e, |q|^2 - 1 within "
           "%.2e\n",
           Lmax, qmax);
    assert_true(Lmax < 1e-11 && qmax < 1e-14);
    finish(&r);
}

/* The heavy top: the pivot holds, the energy error stays bounded over 10⁶ steps. */
static void test_energy_and_pivot(void **state) {
    (void)state;
    run r;
    assert_int_equal(start(&r, "heavy-top", LD_FORM_SO3XR3, "split2"), LD_OK);
    double E0, E, early = 0.0, late = 0.0, phi = 0.0;
    assert_int_equal(r.s.ops.energy(&r.s, 0.0, r.q0, r.v0, &E0), LD_OK);
    double *Phi = malloc((size_t)r.s.m * sizeof *Phi);
    const int N = 1000000;
    for (int n = 1; n <= N; ++n) {
        assert_int_equal(ld_integ_step(r.it, 1e-3), LD_OK);
        if (n % 1000) continue;
        assert_int_equal(r.s.ops.energy(&r.s, 1e-3 * n, ld_integ_q(r.it), ld_integ_v(r.it), &E),
                         LD_OK);
        double de = fabs(E - E0) / fabs(E0);
        if (n <= N / 10) early = fmax(early, de);
        if (n > N - N / 10) late = fmax(late, de);
        assert_int_equal(r.s.ops.phi(&r.s, 1e-3 * n, ld_integ_q(r.it), Phi), LD_OK);
        for (int i = 0; i < r.s.m; ++i) phi = fmax(phi, fabs(Phi[i]));
    }
    printf("heavy top, split2, 10^6 steps of 1e-3: relative energy error %.2e in the first tenth, "
           "%.2e in the last; |Phi| <= %.2e\n",
           early, late, phi);
    assert_true(late < 3.0 * early && early < 1e-6 && phi < 1e-12);
    free(Phi);
    finish(&r);
}

/* Forward n steps, momenta reversed, forward n steps: back at the start. */
static void test_reversible(void **state) {
    (void)state;
    run r;
    assert_int_equal(start(&r, "heavy-top", LD_FORM_SO3XR3, "split4"), LD_OK);
    double x0[3], R0[9], x[3], R[9];
    advance(&r, 0, 0.0, x0, R0);
    advance(&r, 500, 2e-3, x, R);
    double *q = malloc((size_t)r.s.nq * sizeof *q), *v = malloc((size_t)r.s.k * sizeof *v);
    memcpy(q, ld_integ_q(r.it), (size_t)r.s.nq * sizeof *q);
    for (int i = 0; i < r.s.k; ++i) v[i] = -ld_integ_v(r.it)[i];
    assert_int_equal(ld_integ_init(r.it, 0.0, q, v), LD_OK);
    advance(&r, 500, 2e-3, x, R);
    double e = diff(x, R, x0, R0);
    printf("heavy top, split4: 500 steps, reversed, 500 steps: %.2e from the start\n", e);
    assert_true(e < 1e-11);
    free(q);
    free(v);
    finish(&r);
}

static void test_refusals(void **state) {
    (void)state;
    static const struct {
        const char *model, *msg;
        ld_formulation f;
    } cases[] = {
        {"n-four-bar", "only a spherical joint to the ground reduces to a pivoting body",
         LD_FORM_SO3XR3},
        {"mass-spring", "force elements (springs, dampers, user forces) are not split",
         LD_FORM_SE3},
        {"right-angle-cantilever", "beams are not rigid bodies", LD_FORM_SO3XR3},
        {"flying-spaghetti", "rods are not rigid bodies", LD_FORM_SO3XR3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        run r;
        char path[4608];
        snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, cases[i].model);
        ld_model_error err;
        if (ld_model_load(path, &r.m, &err)) fail_msg("%s", err.msg);
        assert_int_equal(ld_model_compile(&r.m, cases[i].f, &r.s, &r.q0, &r.v0), LD_OK);
        ld_integ_options o;
        ld_integ_options_init(&o);
        o.method = (ld_integ_method)ld_integ_method_find("split4");
        const char *why = ld_integ_options_check(&r.s, &o);
        if (!why || !strstr(why, cases[i].msg))
            fail_msg("%s: '%s', want '%s'", cases[i].model, why ? why : "(accepted)", cases[i].msg);
        free(r.q0), free(r.v0);
        ld_model_system_free(&r.s);
        ld_model_free(&r.m);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders),           cmocka_unit_test(test_invariants),
        cmocka_unit_test(test_energy_and_pivot), cmocka_unit_test(test_reversible),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

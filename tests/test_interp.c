/*
 * Dense output on the group (ld_sys_interpolate), kind by kind over the node table: along a
 * smooth curve q(t) = q0 ∘ exp(ξ(t)) with ξ cubic-plus-quartic in t, the interpolant between
 * the states at 0 and h reproduces both ends to round-off, its error inside the step falls as
 * h⁴ in q and h³ in v (third order), and bad arguments are refused.
 */
#include <math.h>
#include <string.h>

#include "support.h"

#include "../src/sys/nodes.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"

#define RN_DIM 4

/* The curve's Lie-algebra coordinate ξ(t) and its derivative (coefficients fixed, generic). */
static void curve_xi(int nv, double t, double *xi, double *xd) {
    for (int i = 0; i < nv; ++i) {
        double a = 0.9 - 0.23 * i, b = 0.4 + 0.11 * i, c = -0.7 + 0.05 * i, d = 0.3 - 0.07 * i;
        xi[i] = a * t + b * t * t + c * t * t * t + d * t * t * t * t;
        xd[i] = a + 2.0 * b * t + 3.0 * c * t * t + 4.0 * d * t * t * t;
    }
}

/* The state of the one-node system at t: group nodes q0 ∘ exp(ξ), v = T(ξ) ξ̇; flat nodes
 * q0 + ξ, v = ξ̇; R³×R⁴ (Euler parameters): x = ξ[0..2], e = the unit quaternion of the rotation
 * vector ξ[3..5], ė = ½ e ⊗ (0, T(θ) θ̇). */
static void curve_state(const ld_system *s, const double *q0, double t, double *q, double *v) {
    const ld_node *nd = &s->nodes[0];
    const ld_node_kind_info *d = ld_node_kind_get(nd->kind);
    double xi[8], xd[8];
    if (nd->kind == LD_NODE_R3E4) {
        curve_xi(6, t, xi, xd);
        double T[9], w[3] = {0, 0, 0}, pw[4], ed[4];
        for (int i = 0; i < 3; ++i) q[i] = q0[i] + xi[i], v[i] = xd[i];
        ld_s3_exp(q + 3, xi + 3);
        ld_so3_tangent(T, xi + 3);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) w[i] += T[3 * i + j] * xd[3 + j];
        pw[0] = 0.0, pw[1] = w[0], pw[2] = w[1], pw[3] = w[2];
        ld_quat_mul(ed, q + 3, pw);
        for (int i = 0; i < 4; ++i) v[3 + i] = 0.5 * ed[i];
        return;
    }
    int nv = ld_node_nv(nd);
    curve_xi(nv, t, xi, xd);
    if (d->flat) {
        for (int i = 0; i < nv; ++i) q[i] = q0[i] + xi[i], v[i] = xd[i];
        return;
    }
    double T[36];
    ld_node_retract(nd, q, q0, xi);
    ld_node_tangent(nd, T, (size_t)nv, xi);
    for (int i = 0; i < nv; ++i) {
        v[i] = 0.0;
        for (int j = 0; j < nv; ++j) v[i] += T[nv * i + j] * xd[j];
    }
}

static double max_diff(const double *a, const double *b, int n) {
    double e = 0.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i]));
    return e;
}

/* A one-node system of kind k, its identity-like start q0 (a generic element for groups). */
static void one_node(int k, ld_node *nd, ld_system *s, double *q0) {
    memset(s, 0, sizeof *s);
    *nd = (ld_node){(ld_node_kind)k, k == LD_NODE_RN ? RN_DIM : 0, 0, 0};
    s->nnodes = 1;
    s->nodes = nd;
    assert_int_equal(ld_sys_layout(s), LD_OK);
    const ld_node_kind_info *d = ld_node_kind_get(nd->kind);
    double g[7] = {0.3, -1.1, 0.8, 0.2, -0.4, 0.6, 0.1};
    if (d->flat) {
        for (int i = 0; i < s->nq; ++i) q0[i] = 0.1 * (i + 1);
        return;
    }
    double id[12];
    memset(id, 0, sizeof id);
    d->exp(id, (const double[6]){0, 0, 0, 0, 0, 0}); /* the identity */
    ld_node_retract(nd, q0, id, g);
}

static void test_ends_and_order(void **state) {
    (void)state;
    for (int k = 0; k < ld_node_kind_count(); ++k) {
        ld_node nd;
        ld_system s;
        double q0[12], qa[12], va[8], qb[12], vb[8], q[12], v[8], qr[12], vr[8];
        one_node(k, &nd, &s, q0);
        double eq[3], ev[3];
        for (int r = 0; r < 3; ++r) {
            double h = 0.4 / (double)(1 << r), th = 0.37;
            curve_state(&s, q0, 0.0, qa, va);
            curve_state(&s, q0, h, qb, vb);
            assert_int_equal(ld_sys_interpolate(&s, qa, va, qb, vb, h, 0.0, q, v), LD_OK);
            assert_true(max_diff(q, qa, s.nq) < 1e-14 && max_diff(v, va, s.k) < 1e-13);
            assert_int_equal(ld_sys_interpolate(&s, qa, va, qb, vb, h, 1.0, q, v), LD_OK);
            assert_true(max_diff(q, qb, s.nq) < 1e-13 && max_diff(v, vb, s.k) < 1e-12);
            assert_int_equal(ld_sys_interpolate(&s, qa, va, qb, vb, h, th, q, v), LD_OK);
            curve_state(&s, q0, th * h, qr, vr);
            eq[r] = max_diff(q, qr, s.nq);
            ev[r] = max_diff(v, vr, s.k);
        }
        double oq = log2(eq[1] / eq[2]), ov = log2(ev[1] / ev[2]);
        if (oq < 3.7 || ov < 2.7)
            fail_msg("%s: observed orders %.2f (q), %.2f (v); errors q %.3g %.3g %.3g",
                     ld_node_kind_get(nd.kind)->name, oq, ov, eq[0], eq[1], eq[2]);
        assert_true(eq[0] < 1e-2 && eq[0] > 1e-9); /* the error is real, and small */
    }
}

static void test_bad_arguments(void **state) {
    (void)state;
    ld_node nd;
    ld_system s;
    double q0[12], q[12], v[8], va[8] = {0};
    one_node(LD_NODE_SO3XR3, &nd, &s, q0);
    assert_int_equal(ld_sys_interpolate(&s, q0, va, q0, va, 0.0, 0.5, q, v), LD_EINVAL);
    assert_int_equal(ld_sys_interpolate(&s, q0, va, q0, va, NAN, 0.5, q, v), LD_EINVAL);
    assert_int_equal(ld_sys_interpolate(&s, q0, va, q0, va, 0.1, 1.5, q, v), LD_EINVAL);
    assert_int_equal(ld_sys_interpolate(&s, q0, va, q0, va, 0.1, NAN, q, v), LD_EINVAL);
    assert_int_equal(ld_sys_interpolate(NULL, q0, va, q0, va, 0.1, 0.5, q, v), LD_EINVAL);
    assert_int_equal(ld_sys_interpolate(&s, q0, va, q0, va, 0.1, 0.5, q, v), LD_OK);
    assert_true(max_diff(q, q0, s.nq) < 1e-15); /* at rest it stays */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ends_and_order),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

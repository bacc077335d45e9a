/* The system layer and the rigid-body models: analytic tangents against differences on the
 * group in every formulation, consistent initial accelerations, layout and retraction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../src/model/exact.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"
#include "mbs_models.h"

/* max |A − B| / max(1, max |B|) over n entries */
static double rel_diff(const double *A, const double *B, size_t n) {
    double d = 0.0, s = 1.0;
    for (size_t i = 0; i < n; ++i) {
        d = fmax(d, fabs(A[i] - B[i]));
        s = fmax(s, fabs(B[i]));
    }
    return d / s;
}

/* A state away from the initial one: q ∘ exp(ξ), v perturbed, a and λ arbitrary. */
static void perturbed_state(const ld_system *s, const double *q0, const double *v0, double *q,
                            double *v, double *a, double *lam) {
    rng r = rng_seed(7);
    double *xi = calloc((size_t)s->k, sizeof(double));
    assert_non_null(xi);
    for (int i = 0; i < s->k; ++i) {
        xi[i] = rng_range(&r, -0.7, 0.7);
        v[i] = v0[i] + rng_range(&r, -1.0, 1.0);
        a[i] = rng_range(&r, -3.0, 3.0);
    }
    for (int i = 0; i < s->m; ++i) lam[i] = rng_range(&r, -50.0, 50.0);
    ld_sys_retract(s, q, q0, xi);
    free(xi);
}

static void check_tangents(ld_model *m, ld_formulation f) {
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(m, f, &s, &q0, &v0), LD_OK);
    size_t k = (size_t)s.k, mm = (size_t)s.m;
    double *buf =
        calloc((size_t)s.nq + 3 * k + mm + 4 * k * k + 2 * mm * k + 2 * mm, sizeof(double));
    assert_non_null(buf);
    double *q = buf, *v = q + s.nq, *a = v + k, *lam = a + k, *A = lam + mm, *F = A + k * k;
    double *BA = F + k * k, *BF = BA + mm * k, *za = BF + mm * k, *zf = za + mm;
    perturbed_state(&s, q0, v0, q, v, a, lam);
    double t = 0.7;
    assert_int_equal(s.ops.g_v(&s, t, q, v, A), LD_OK);
    assert_int_equal(ld_sys_g_v_fd(&s, t, q, v, F), LD_OK);
    double e = rel_diff(A, F, k * k);
    if (!(e < 1e-8))
        fail_msg("%s: dg/dv differs from differences by %.3e", ld_formulation_name(f), e);
    assert_int_equal(s.ops.stiffness(&s, t, q, v, a, lam, A), LD_OK);
    assert_int_equal(ld_sys_stiffness_fd(&s, t, q, v, a, lam, F), LD_OK);
    e = rel_diff(A, F, k * k);
    if (!(e < 1e-8))
        fail_msg("%s: stiffness differs from differences by %.3e", ld_formulation_name(f), e);
    if (mm > 0) {
        assert_int_equal(s.ops.phi_q(&s, t, q, BA), LD_OK);
        assert_int_equal(ld_sys_phi_q_fd(&s, t, q, BF), LD_OK);
        e = rel_diff(BA, BF, mm * k);
        if (!(e < 1e-8))
            fail_msg("%s: B differs from differences by %.3e", ld_formulation_name(f), e);
        assert_int_equal(s.ops.phi_dd(&s, t, q, v, za), LD_OK);
        assert_int_equal(ld_sys_phi_dd_fd(&s, t, q, v, zf), LD_OK);
        e = rel_diff(za, zf, mm);
        if (!(e < 1e-7))
            fail_msg("%s: phi_dd differs from differences by %.3e", ld_formulation_name(f), e);
    }
    free(buf);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

static void test_tangents_heavy_top(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    for (int f = 0; f < LD_FORM_COUNT; ++f) check_tangents(&m, (ld_formulation)f);
}

static void test_tangents_loaded(void **state) {
    (void)state;
    ld_model m;
    tm_loaded(&m);
    for (int f = 0; f < LD_FORM_COUNT; ++f) check_tangents(&m, (ld_formulation)f);
}

/* A finite-difference test that cannot pass by accident: a wrong sign in the analytic
 * stiffness must be seen (here: flip the gravity part by hand). */
static void test_tangent_check_detects_errors(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    double K[36], F[36], a[6] = {0}, lam[3] = {0};
    double xi[6] = {0.3, -0.2, 0.5, 0, 0, 0}, q[12];
    ld_sys_retract(&s, q, q0, xi);
    assert_int_equal(s.ops.stiffness(&s, 0.0, q, v0, a, lam, K), LD_OK);
    assert_int_equal(ld_sys_stiffness_fd(&s, 0.0, q, v0, a, lam, F), LD_OK);
    assert_true(rel_diff(K, F, 36) < 1e-8);
    for (int i = 0; i < 36; ++i) K[i] = -K[i];
    assert_true(rel_diff(K, F, 36) > 1e-3); /* gravity makes K non-zero */
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* Heavy top: Ω̇(0) = (661.3461692307692, 0, 0), ẍ(0) = (0, −21.3017325444, −30.9608307692308)
 * (Kynema's public regression tests), in every formulation. */
static void test_initial_accel_heavy_top(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    const double Omd[3] = {661.3461692307692, 0, 0};
    const double xdd[3] = {0, -21.3017325444, -30.9608307692308};
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0, vd[7], lam[4];
        assert_int_equal(ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
        /* consistent initial velocity from the joint: ẋ = (4.61538, 0, 0) */
        double x[3], qq[4], om[3], xd[3];
        assert_int_equal(ld_model_body_state(&s, 0, q0, v0, x, qq, om, xd), LD_OK);
        assert_true(fabs(xd[0] - 4.61538) < 1e-12 && fabs(xd[1]) < 1e-12 && fabs(xd[2]) < 1e-12);
        assert_int_equal(ld_sys_initial_accel(&s, 0.0, q0, v0, vd, lam), LD_OK);
        /* spatial acceleration of the centre of mass: U̇ (direct) or R(U̇ + Ω × U) (semidirect,
         * R = I at t = 0) */
        double acc[3];
        for (int i = 0; i < 3; ++i) acc[i] = vd[3 + i];
        if (f == LD_FORM_EULER) { /* v = (ẋ, ė): Ω̇ = 2 L(e) ë = −2 L(ë) e (L(ė) ė = 0) */
            double ed[4] = {vd[3], vd[4], vd[5], vd[6]};
            for (int i = 0; i < 3; ++i) acc[i] = vd[i];
            vd[0] = -2.0 * (-ed[1] * q0[3] + ed[0] * q0[4] + ed[3] * q0[5] - ed[2] * q0[6]);
            vd[1] = -2.0 * (-ed[2] * q0[3] - ed[3] * q0[4] + ed[0] * q0[5] + ed[1] * q0[6]);
            vd[2] = -2.0 * (-ed[3] * q0[3] + ed[2] * q0[4] - ed[1] * q0[5] + ed[0] * q0[6]);
        }
        if (f == LD_FORM_SE3 || f == LD_FORM_S3SDR3) {
            acc[0] += v0[1] * v0[5] - v0[2] * v0[4];
            acc[1] += v0[2] * v0[3] - v0[0] * v0[5];
            acc[2] += v0[0] * v0[4] - v0[1] * v0[3];
        }
        for (int i = 0; i < 3; ++i) {
            if (!(fabs(vd[i] - Omd[i]) < 1e-8 * 661.0))
                fail_msg("%s: Omega-dot[%d] = %.12g", ld_formulation_name((ld_formulation)f), i,
                         vd[i]);
            if (!(fabs(acc[i] - xdd[i]) < 1e-8 * 31.0))
                fail_msg("%s: x-ddot[%d] = %.12g", ld_formulation_name((ld_formulation)f), i,
                         acc[i]);
        }
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
}

/* Every formulation describes the same motion: the body state read back from the initial
 * configuration is the same in all four, and so is the energy. */
static void test_formulations_agree(void **state) {
    (void)state;
    ld_model m;
    tm_loaded(&m);
    double ref[2][13], e_ref = 0.0;
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
        for (int b = 0; b < 2; ++b) {
            double st[13];
            assert_int_equal(ld_model_body_state(&s, b, q0, v0, st, st + 3, st + 7, st + 10),
                             LD_OK);
            if (f == 0)
                memcpy(ref[b], st, sizeof st);
            else
                for (int i = 0; i < 13; ++i) assert_true(fabs(st[i] - ref[b][i]) < 1e-12);
        }
        double e;
        assert_int_equal(s.ops.energy(&s, 0.0, q0, v0, &e), LD_OK);
        if (f == 0) e_ref = e;
        assert_true(fabs(e - e_ref) < 1e-12 * fabs(e_ref));
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
}

/* A velocity that contradicts the joint, or an open joint, is refused with a message; a
 * consistent state is accepted. */
static void test_inconsistent_velocity(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    ld_system s;
    double *q0, *v0;
    tm_bodies[0].has_v = 1;
    tm_bodies[0].v[0] = 4.61538;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    tm_bodies[0].v[0] = 5.0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_EINVAL);
    char msg[256];
    assert_int_equal(ld_model_check_initial(&m, msg, sizeof msg), LD_EINVAL);
    assert_non_null(strstr(msg, "body 'top': the given velocity contradicts joint 0"));
    /* a joint that is not closed at the start */
    tm_bodies[0].has_v = 0;
    tm_bodies[0].x[1] = 1.001;
    assert_int_equal(ld_model_check_initial(&m, msg, sizeof msg), LD_EINVAL);
    assert_non_null(strstr(msg, "is not closed"));
    assert_int_equal(ld_model_compile(&m, LD_FORM_S3SDR3, &s, &q0, &v0), LD_EINVAL);
    tm_bodies[0].x[1] = 1.0;
    assert_int_equal(ld_model_check_initial(&m, msg, sizeof msg), LD_OK);
}

/* The exact solutions of Zupan & Zupan Sec. IV.A: Ω and Ω̇ against central differences of q(t). */
static void test_exact_cases(void **state) {
    (void)state;
    for (int c = 1; c <= 2; ++c)
        for (double t = 0.0; t < 16.0; t += 0.37) {
            double q[4], Om[3], Omd[3], qp[4], qm[4], O1[3], O2[3], D[3];
            double h = 1e-5;
            ld_exact_eval((ld_exact_case)c, t, q, Om, Omd);
            ld_exact_eval((ld_exact_case)c, t + h, qp, O1, D);
            ld_exact_eval((ld_exact_case)c, t - h, qm, O2, D);
            double qc[4], dq[4], r[4];
            ld_quat_conj(qc, q);
            for (int i = 0; i < 4; ++i) dq[i] = (qp[i] - qm[i]) / (2 * h);
            ld_quat_mul(r, qc, dq);
            for (int i = 0; i < 3; ++i) {
                double sc = 1.0 + fabs(Om[i]) + fabs(Omd[i]);
                if (!(fabs(2 * r[i + 1] - Om[i]) < 1e-7 * sc))
                    fail_msg("case %d t %g: Omega", c, t);
                if (!(fabs((O1[i] - O2[i]) / (2 * h) - Omd[i]) < 1e-6 * sc))
                    fail_msg("case %d t %g: Omega-dot %g vs %g", c, t, (O1[i] - O2[i]) / (2 * h),
                             Omd[i]);
            }
            assert_true(fabs(ld_quat_norm(q) - 1.0) < 1e-14);
        }
}

static void test_layout_and_bad_input(void **state) {
    (void)state;
    ld_node nodes[3] = {{LD_NODE_RN, 4, 0, 0}, {LD_NODE_S3SDR3, 0, 0, 0}, {LD_NODE_SE3, 0, 0, 0}};
    ld_system s;
    memset(&s, 0, sizeof s);
    s.nnodes = 3;
    s.nodes = nodes;
    assert_int_equal(ld_sys_layout(&s), LD_OK);
    assert_int_equal(s.nq, 4 + 7 + 12);
    assert_int_equal(s.k, 4 + 6 + 6);
    assert_int_equal(nodes[2].qoff, 11);
    assert_int_equal(nodes[2].voff, 10);
    nodes[0].n = 0;
    assert_int_equal(ld_sys_layout(&s), LD_EINVAL);
    ld_model m;
    tm_heavy_top(&m, 1.0);
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_ALL, &s, &q0, &v0), LD_EINVAL);
    m.nbodies = 0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tangents_heavy_top),
        cmocka_unit_test(test_tangents_loaded),
        cmocka_unit_test(test_tangent_check_detects_errors),
        cmocka_unit_test(test_initial_accel_heavy_top),
        cmocka_unit_test(test_formulations_agree),
        cmocka_unit_test(test_inconsistent_velocity),
        cmocka_unit_test(test_exact_cases),
        cmocka_unit_test(test_layout_and_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The moreau method with joints: the joints' rows take part in the same projected Gauss–Seidel
 * sweeps as the contacts, their drift corrected in the positions only (docs/contact.md). A
 * pendulum whose tip meets the ground rests where the tip touches — at rest, not creeping — with
 * its joint closed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_models.h"
#include "support.h"

#include "moreau_run.h"

#include "liedyn/coords.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"
#include "mat3.h"

#define PI 3.14159265358979323846

/* A pendulum on a revolute joint, released horizontal, whose tip (a sphere of 5 cm) meets the
 * ground: with e = 0 it stops where the tip touches, sin θ* = (H − r)/L below the horizontal,
 * and rests there with the joint closed — joints and contact in one solve. */
static void test_pendulum_on_the_ground(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n  - {name: arm, mass: 1, inertia: [0.001, 0.0833, 0.0833], position: [0.5, 0, "
        "0.5],\n"
        "     shape: {type: sphere, radius: 0.05, center: [0.5, 0, 0], collide: true}}\n"
        "joints:\n  - {name: pivot, type: revolute, body2: arm, at: [0, 0, 0.5], axis: [0, 1, "
        "0]}\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n";
    const double th = asin(0.45);
    for (int f = 0; f < LD_FORM_EULER; ++f) { /* the semidirect and spatial ones carried over */
        run r;
        start(&r, text, (ld_formulation)f, 1e-4);
        for (int i = 1; i <= 20000; ++i)
            assert_int_equal(ld_integ_advance_to(r.it, i * 1e-4), LD_OK);
        double x[3], q[4], w[3], v[3];
        body(&r, x, q, w, v);
        double ph = ld_model_joint_phi_max(&r.s, 2.0, ld_integ_q(r.it), NULL);
        double ang = atan2(0.5 - x[2], x[0]); /* the arm's angle below the horizontal */
        /* the tip rests touching the ground: the position correction removed the overlap of
         * its closing step (O(h U_n) = 2·10⁻⁴ m without it) */
        if (!(fabs(ang - th) < 1e-9 && ph < 1e-9 && ld_v3_norm(w) < 1e-9))
            fail_msg("%s: angle %.12f (want %.12f), joint residual %.3g, |Ω| %.3g",
                     ld_formulation_name((ld_formulation)f), ang, th, ph, ld_v3_norm(w));
        stop(&r);
    }
}

/* Joint limits: a pendulum released horizontal falls until its hinge's upper limit (0.3 rad)
 * and rests there; a slider on a vertical prismatic joint falls to its lower limit (−0.2 m)
 * and rests there. Both with e = 0, each at its limit to 10⁻⁹. */
static void test_joint_limits(void **state) {
    (void)state;
    static const char *const hinge =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n  - {name: arm, mass: 1, inertia: [0.001, 0.0833, 0.0833], position: [0.5, 0, "
        "0]}\n"
        "joints:\n  - {name: hinge, type: revolute, body2: arm, at: [0, 0, 0], axis: [0, 1, 0], "
        "limits: [-1, 0.3]}\n";
    static const char *const slider =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n  - {name: s, mass: 2, inertia: [0.01, 0.01, 0.01], position: [0, 0, 1]}\n"
        "joints:\n  - {name: rail, type: prismatic, body2: s, at: [0, 0, 1], axis: [0, 0, 1], "
        "limits: [-0.2, 1]}\n";
    for (int k = 0; k < 2; ++k) {
        run r;
        start(&r, k ? slider : hinge, LD_FORM_SO3XR3, 1e-4);
        for (int i = 1; i <= 15000; ++i)
            assert_int_equal(ld_integ_advance_to(r.it, i * 1e-4), LD_OK);
        double c[LD_JOINT_COORDS_MAX], cd[LD_JOINT_COORDS_MAX];
        int n = 0;
        assert_int_equal(
            ld_model_joint_coords(&r.s, 0, 1.5, ld_integ_q(r.it), ld_integ_v(r.it), c, cd, &n),
            LD_OK);
        /* at the limit: the position correction removed the overshoot of the closing step,
         * O(h · the closing speed) = 2·10⁻⁴ m and 5·10⁻⁴ rad without it */
        double want = k ? -0.2 : 0.3;
        if (!(fabs(c[0] - want) < 1e-9 && fabs(cd[0]) < 1e-9))
            fail_msg("%s: coordinate %.12f (limit %.6f), rate %.3g", k ? "slider" : "hinge", c[0],
                     want, cd[0]);
        stop(&r);
    }
}

/* The contact force of the last step (ld_integ_contact_force): a box pushed along the ground
 * feels −μ m g along the slide and m g up while it slides, m g up once at rest, and no torque
 * (it does not tip); a method without contact says so. */
static void test_contact_force(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n  - {name: box, mass: 2, inertia: [0.0133, 0.0133, 0.0133], position: [0, 0, "
        "0.1],\n"
        "     velocity: [2, 0, 0], shape: {type: box, size: [0.2, 0.2, 0.2], collide: true, "
        "friction: 0.5}}\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n";
    run r;
    start(&r, text, LD_FORM_SO3XR3, 1e-4);
    double f[3], tau[3];
    assert_int_equal(ld_integ_contact_force(r.it, 0, f, tau), LD_OK); /* before a step: 0 */
    assert_true(f[0] == 0.0 && f[2] == 0.0);
    for (int i = 1; i <= 2000; ++i) assert_int_equal(ld_integ_advance_to(r.it, i * 1e-4), LD_OK);
    assert_int_equal(ld_integ_contact_force(r.it, 0, f, tau), LD_OK); /* sliding at t = 0.2 */
    if (!(fabs(f[0] + 0.5 * 2 * 9.81) < 1e-9 && fabs(f[2] - 2 * 9.81) < 1e-9 &&
          ld_v3_norm(tau) < 1e-9))
        fail_msg("sliding: f = (%g, %g, %g), |tau| = %g", f[0], f[1], f[2], ld_v3_norm(tau));
    for (int i = 2001; i <= 10000; ++i)
        assert_int_equal(ld_integ_advance_to(r.it, i * 1e-4), LD_OK);
    assert_int_equal(ld_integ_contact_force(r.it, 0, f, tau), LD_OK); /* at rest */
    if (!(fabs(f[0]) < 1e-9 && fabs(f[2] - 2 * 9.81) < 1e-9))
        fail_msg("at rest: f = (%g, %g, %g)", f[0], f[1], f[2]);
    assert_int_equal(ld_integ_contact_force(r.it, 1, f, tau), LD_EINVAL);
    stop(&r);
    ld_model m;
    tm_heavy_top(&m, 1.0);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    ld_integ *it = ld_integ_create(&s, &o, NULL);
    assert_int_equal(ld_integ_contact_force(it, 0, f, tau), LD_ENOTSUPPORTED);
    ld_contact_stats cs;
    assert_int_equal(ld_integ_contact_stats(it, &cs), LD_ENOTSUPPORTED);
    assert_int_equal(ld_integ_contacts(it, NULL, 0), 0);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* The contacts of the last step (ld_integ_contacts): a 2 kg cube resting flat on the plane
 * touches at its four bottom corners, each with the normal (0, 0, 1), gap 0 and together
 * m g up; a ball put 1 cm into the plane comes out in one step to touching, without the
 * correction entering its velocity (split from it), and the statistics say how deep it was. */
static void test_contact_points(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n"
        "  - {name: box, mass: 2, inertia: [0.0133, 0.0133, 0.0133], position: [0, 0, 0.1],\n"
        "     shape: {type: box, size: [0.2, 0.2, 0.2], collide: true, friction: 0.5}}\n"
        "  - {name: ball, mass: 1, inertia: [0.004, 0.004, 0.004], position: [1, 0, 0.09],\n"
        "     shape: {type: sphere, radius: 0.1, collide: true}}\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n";
    run r;
    start(&r, text, LD_FORM_SE3, 1e-3);
    assert_int_equal(ld_integ_contacts(r.it, NULL, 0), 0); /* before a step */
    assert_int_equal(ld_integ_advance_to(r.it, 1e-3), LD_OK);
    ld_contact_stats cs;
    assert_int_equal(ld_integ_contact_stats(r.it, &cs), LD_OK);
    if (!(fabs(cs.overlap - 0.01) < 1e-4 && cs.max_overlap == cs.overlap && cs.contacts == 5))
        fail_msg("overlap %.6g (max %.6g), %d contacts", cs.overlap, cs.max_overlap, cs.contacts);
    double x[3], q[4], w[3], v[3];
    assert_int_equal(ld_model_body_state(&r.s, 1, ld_integ_q(r.it), ld_integ_v(r.it), x, q, w, v),
                     LD_OK);
    if (!(fabs(x[2] - 0.1) < 1e-9 && ld_v3_norm(v) < 1e-12))
        fail_msg("the ball at z = %.12f, |v| = %.3g after one step", x[2], ld_v3_norm(v));
    for (int i = 2; i <= 100; ++i) assert_int_equal(ld_integ_advance_to(r.it, i * 1e-3), LD_OK);
    ld_contact_point p[8];
    int n = ld_integ_contacts(r.it, p, 8);
    assert_int_equal(n, 5);
    double fz = 0.0;
    int corners = 0;
    for (int i = 0; i < n; ++i) {
        assert_true(p[i].body2 == LD_GROUND && p[i].shape2 == -1);
        assert_true(fabs(p[i].normal[2] - 1.0) < 1e-12 && fabs(p[i].gap) < 1e-9);
        if (p[i].body1 != 0) continue;
        assert_int_equal(p[i].shape1, 0);
        corners += fabs(fabs(p[i].point[0]) - 0.1) < 1e-9 && fabs(fabs(p[i].point[1]) - 0.1) < 1e-9;
        fz += p[i].force[2];
    }
    if (!(corners == 4 && fabs(fz - 2 * 9.81) < 1e-9))
        fail_msg("%d corners, force %.12g up", corners, fz);
    assert_int_equal(ld_integ_contacts(r.it, p, 2), 5); /* the number, two of them written */
    assert_int_equal(ld_integ_contacts(r.it, NULL, 2), LD_EINVAL);
    stop(&r);
}

/* Coulomb–Contensou friction: a ball of 1 kg (J = 0.004 kg m²) spinning at 20 rad/s about the
 * vertical on the plane, μ = 0.5, contact radius R = 0.01 m: the drilling torque μ m g R̄,
 * R̄ = 3π/16 R (Leine & Glocker 2003), slows it at a constant rate to rest at
 * t = J ω₀/(μ m g R̄) = 1.4 s, without moving it; a point contact (R = 0) lets it spin. */
static void test_contensou(void **state) {
    (void)state;
    const double J = 0.004, w0 = 20.0, mu = 0.5, rbar = 3.0 * PI / 16.0 * 0.01;
    const double rate = mu * 9.81 * rbar / J, t_stop = w0 / rate;
    for (int k = 0; k < 2; ++k) {
        char text[512];
        snprintf(text, sizeof text,
                 "gravity: [0, 0, -9.81]\n"
                 "bodies:\n  - {name: ball, mass: 1, inertia: [0.004, 0.004, 0.004], position: "
                 "[0, 0, 0.1],\n"
                 "     angular_velocity: [0, 0, 20],\n"
                 "     shape: {type: sphere, radius: 0.1, collide: true, friction: 0.5, "
                 "contact_radius: %g}}\n"
                 "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n",
                 k ? 0.01 : 0.0);
        run r;
        start(&r, text, LD_FORM_SO3XR3, 1e-3);
        double x[3], q[4], w[3], v[3];
        for (int i = 1; i <= 2000; ++i) {
            assert_int_equal(ld_integ_advance_to(r.it, i * 1e-3), LD_OK);
            if (i != 1000 && i != 2000) continue;
            body(&r, x, q, w, v);
            double want = k ? fmax(0.0, w0 - rate * i * 1e-3) : w0;
            if (!(fabs(w[2] - want) < 1e-9 && ld_v3_norm(v) < 1e-12 && fabs(x[0]) < 1e-12))
                fail_msg("R = %g, t = %g: spin %.12g, want %.12g (stops at %.4g s); |v| %.3g",
                         k ? 0.01 : 0.0, i * 1e-3, w[2], want, t_stop, ld_v3_norm(v));
        }
        stop(&r);
    }
}

int main(void) {
    (void)tm_loaded; /* mbs_models.h: this program needs the heavy top only */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pendulum_on_the_ground),
        cmocka_unit_test(test_joint_limits),
        cmocka_unit_test(test_contact_force),
        cmocka_unit_test(test_contact_points),
        cmocka_unit_test(test_contensou),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

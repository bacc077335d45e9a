/*
 * Force elements with hard contact: moreau evaluates the elements (springs, dampers, bushings,
 * user forces) explicitly at the step's midpoint, f(t_M, q_M, v_k), beside gravity and the
 * loads (docs/contact.md). Against exact solutions, in every Lie-group formulation:
 *   - a mass hanging on a spring oscillates as z(t) = z0 − (mg/k)(1 − cos ωt), second order in h;
 *   - a body on a hinge with a torsion spring turns as θ(t) = (θ̇0/ω) sin ωt, second order;
 *   - a ball pressed onto the ground by a compressed spring-damper comes to rest touching it,
 *     the contact carrying mg plus the spring's push.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "moreau_run.h"

#include "liedyn/coords.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* A 1 kg mass on a spring of k = 100 N/m from the ground point (0, 0, 0), released at rest at
 * its natural length 1 m below it: z(t) = −1 − (g/ω²)(1 − cos ωt), ω = 10 rad/s. */
static const char *const hanging = "gravity: [0, 0, -9.81]\n"
                                   "bodies:\n  - {name: m, mass: 1, inertia: [0.01, 0.01, 0.01], "
                                   "position: [0, 0, -1]}\n"
                                   "elements:\n  - {name: s, type: spring-damper, body1: ground, "
                                   "body2: m, k: 100, l0: 1, at1: [0, 0, 0]}\n";

/* The error of z at t = 1 s run at the step h in formulation f. */
static double hanging_error(ld_formulation f, double h) {
    run r;
    start(&r, hanging, f, h);
    int n = (int)lround(1.0 / h);
    for (int i = 1; i <= n; ++i) assert_int_equal(ld_integ_advance_to(r.it, i * h), LD_OK);
    double x[3], q[4], w[3], v[3];
    body(&r, x, q, w, v);
    stop(&r);
    double z = -1.0 - 9.81 / 100.0 * (1.0 - cos(10.0));
    return fabs(x[2] - z);
}

static void test_hanging_spring(void **state) {
    (void)state;
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        double e1 = hanging_error((ld_formulation)f, 1e-3),
               e2 = hanging_error((ld_formulation)f, 5e-4);
        double p = log2(e1 / e2);
        printf("  formulation %d: |z − z_exact| at 1 s: %.3e (h = 1e-3), %.3e (h = 5e-4), order "
               "%.2f\n",
               f, e1, e2, p);
        assert_true(e1 < 1e-4);
        assert_true(p > 1.9 && p < 2.1);
    }
}

/* A body (J_zz = 2) on a hinge about z with a torsion spring k = 8 about the hinge's axis, given
 * θ̇0 = 0.5 rad/s, no gravity: θ(t) = (θ̇0/ω) sin ωt, ω = 2 rad/s. */
static const char *const torsion =
    "bodies:\n  - {name: b, mass: 1, inertia: [1, 1, 2], position: [0, 0, 0], angular_velocity: "
    "[0, 0, 0.5]}\n"
    "joints:\n  - {name: hinge, type: revolute, body2: b, at: [0, 0, 0], axis: [0, 0, 1]}\n"
    "elements:\n  - {name: spring, type: rotational-spring-damper, body1: ground, body2: b, k: 8, "
    "axis: [0, 0, 1]}\n";

static double torsion_error(ld_formulation f, double h) {
    run r;
    start(&r, torsion, f, h);
    int n = (int)lround(1.0 / h);
    for (int i = 1; i <= n; ++i) assert_int_equal(ld_integ_advance_to(r.it, i * h), LD_OK);
    double c[LD_JOINT_COORDS_MAX], cd[LD_JOINT_COORDS_MAX];
    int nc = 0;
    assert_int_equal(
        ld_model_joint_coords(&r.s, 0, 1.0, ld_integ_q(r.it), ld_integ_v(r.it), c, cd, &nc), LD_OK);
    stop(&r);
    return fabs(c[0] - 0.25 * sin(2.0));
}

static void test_torsion_spring(void **state) {
    (void)state;
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        double e1 = torsion_error((ld_formulation)f, 1e-3),
               e2 = torsion_error((ld_formulation)f, 5e-4);
        double p = log2(e1 / e2);
        printf("  formulation %d: |θ − θ_exact| at 1 s: %.3e (h = 1e-3), %.3e (h = 5e-4), order "
               "%.2f\n",
               f, e1, e2, p);
        assert_true(e1 < 1e-5);
        assert_true(p > 1.8 && p < 2.2);
    }
}

/* A 1 kg ball (radius 0.1 m) on the ground, pressed down by a spring-damper from the ground
 * point (0, 0, 1) compressed by 0.3 m (k = 10 N/m, c = 1 N s/m), dropped from 5 cm: at rest it
 * touches the ground, and the contact carries m g + k · 0.3 = 12.81 N. */
static void test_pressed_ball(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n  - {name: ball, mass: 1, inertia: [0.004, 0.004, 0.004], position: [0, 0, "
        "0.15],\n     shape: {type: sphere, radius: 0.1, collide: true}}\n"
        "elements:\n  - {name: s, type: spring-damper, body1: ground, body2: ball, k: 10, c: 1, "
        "l0: 1.2, at1: [0, 0, 1]}\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n";
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        run r;
        start(&r, text, (ld_formulation)f, 1e-3);
        for (int i = 1; i <= 2000; ++i)
            assert_int_equal(ld_integ_advance_to(r.it, i * 1e-3), LD_OK);
        double x[3], q[4], w[3], v[3];
        body(&r, x, q, w, v);
        ld_contact_point cp[4];
        int n = ld_integ_contacts(r.it, cp, 4);
        assert_int_equal(n, 1);
        double fz = fabs(cp[0].force[2]);
        printf("  formulation %d: height %.15f, speed %.1e, contact force %.12f N\n", f, x[2],
               sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), fz);
        assert_true(fabs(x[2] - 0.1) < 1e-9);
        assert_true(fabs(v[2]) < 1e-9);
        /* the spring is 0.9 m long at rest: it pushes with k (l0 − l) = 3 N */
        assert_true(fabs(fz - (9.81 + 3.0)) < 1e-9);
        stop(&r);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hanging_spring),
        cmocka_unit_test(test_torsion_spring),
        cmocka_unit_test(test_pressed_ball),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Rods and beams start moving: a rigid motion given in the file (velocity and angular_velocity
 * of the whole), or, when the file gives none, the motion of the body they are joined to (a beam
 * clamped by a fixed joint to a spinning hub turns with it). Every node's velocity is checked
 * against the rigid motion ẋ_i = v0 + ω × (x_i − x_0), Ω_i = R_iᵀ ω.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define BEAM_KEYS(EXTRA)                                                                           \
    "  - {name: blade, order: 2, elements: 3, from: [0, 0, 1], to: [0, 0, 7], normal: [1, 0, "     \
    "0],\n"                                                                                        \
    "     section: {EA: 1e6, GA2: 1e6, GA3: 1e6, GJ: 1e4, EI2: 1e4, EI3: 1e4}, rho_a: 2,\n"        \
    "     rho_j: [0.02, 0.01, 0.01]" EXTRA "}\n"

static void parse(const char *text, ld_model *m) {
    ld_model_error e;
    memset(&e, 0, sizeof e);
    if (ld_model_parse(text, strlen(text), "motion.yaml", m, &e) != LD_OK)
        fail_msg("parse: %s", e.msg);
}

/* Every node body b0 … of the model after the first `skip` bodies moves as (v0 at x0, w). */
static void check_rigid(const ld_model *m, ld_formulation f, int skip, const double x0[3],
                        const double v0[3], const double w[3]) {
    ld_system s;
    double *q0, *v0s;
    char msg[512];
    if (ld_model_compile_msg(m, f, &s, &q0, &v0s, msg, sizeof msg))
        fail_msg("%s: %s", ld_formulation_name(f), msg);
    for (int b = skip; b < m->nbodies; ++b) {
        double x[3], q[4], om[3], xd[3], r[3], want[3], wb[3];
        assert_int_equal(ld_model_body_state(&s, b, q0, v0s, x, q, om, xd), LD_OK);
        for (int i = 0; i < 3; ++i) r[i] = x[i] - x0[i];
        want[0] = v0[0] + w[1] * r[2] - w[2] * r[1];
        want[1] = v0[1] + w[2] * r[0] - w[0] * r[2];
        want[2] = v0[2] + w[0] * r[1] - w[1] * r[0];
        ld_quat_rotate_inv(wb, q, w);
        for (int i = 0; i < 3; ++i)
            if (!(fabs(xd[i] - want[i]) < 1e-12 * (1 + fabs(want[i])) &&
                  fabs(om[i] - wb[i]) < 1e-12))
                fail_msg("%s: node %s: v (%g %g %g) want (%g %g %g), Ω (%g %g %g) want (%g %g "
                         "%g)",
                         ld_formulation_name(f), m->bodies[b].name, xd[0], xd[1], xd[2], want[0],
                         want[1], want[2], om[0], om[1], om[2], wb[0], wb[1], wb[2]);
    }
    free(q0);
    free(v0s);
    ld_model_system_free(&s);
}

/* A beam given its rigid motion in the file. */
static void test_beam_given(void **state) {
    (void)state;
    ld_model m;
    parse("beams:\n" BEAM_KEYS(", velocity: [1, 2, 0], angular_velocity: [0.5, 0, 0.25]"), &m);
    const double x0[3] = {0, 0, 1}, v0[3] = {1, 2, 0}, w[3] = {0.5, 0, 0.25};
    for (int f = 0; f < LD_FORM_EULER; ++f) check_rigid(&m, (ld_formulation)f, 0, x0, v0, w);
    ld_model_free(&m);
}

/* A Kirchhoff rod given its rigid motion: its shear constraints hold at the velocity level. */
static void test_rod_given(void **state) {
    (void)state;
    ld_model m;
    parse("rods:\n"
          "  - {name: r, segments: 6, from: [0, 0, 0], to: [3, 0, 0], kirchhoff: true,\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1],\n"
          "     velocity: [0, 0, 1], angular_velocity: [0, 0.3, 0.2]}\n",
          &m);
    const double x0[3] = {0, 0, 0}, v0[3] = {0, 0, 1}, w[3] = {0, 0.3, 0.2};
    for (int f = 0; f < LD_FORM_EULER; ++f) check_rigid(&m, (ld_formulation)f, 0, x0, v0, w);
    ld_model_free(&m);
}

/* A beam clamped by a fixed joint to a hub that spins on a revolute joint: the file gives only
 * the hub's rate, the beam turns with the hub. */
static void test_beam_follows_hub(void **state) {
    (void)state;
    ld_model m;
    parse(
        "bodies:\n"
        "  - {name: hub, mass: 50, inertia: [12, 6, 6], position: [0, 0, 0],\n"
        "     angular_velocity: [1.25, 0, 0]}\n"
        "beams:\n" BEAM_KEYS(
            "") "joints:\n"
                "  - {name: bearing, type: revolute, body2: hub, at: [0, 0, 0], axis: [1, 0, 0]}\n"
                "  - {name: root, type: fixed, body1: hub, body2: 'blade[0]', at: [0, 0, 1]}\n",
        &m);
    const double x0[3] = {0, 0, 0}, v0[3] = {0, 0, 0}, w[3] = {1.25, 0, 0};
    for (int f = 0; f < LD_FORM_EULER; ++f) check_rigid(&m, (ld_formulation)f, 0, x0, v0, w);
    ld_model_free(&m);
}

/* Without joints and motion a beam starts at rest, as before. */
static void test_beam_at_rest(void **state) {
    (void)state;
    ld_model m;
    parse("beams:\n" BEAM_KEYS(""), &m);
    const double x0[3] = {0, 0, 0}, zero[3] = {0, 0, 0};
    check_rigid(&m, LD_FORM_SE3, 0, x0, zero, zero);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_beam_given),
        cmocka_unit_test(test_rod_given),
        cmocka_unit_test(test_beam_follows_hub),
        cmocka_unit_test(test_beam_at_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

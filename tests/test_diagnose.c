/*
 * Diagnostics that name the cause: redundant joints and a mass matrix beyond double precision
 * (ld_model_diagnose, after the initial accelerations cannot be found), a joint not closed at
 * the start (with its line), a formulation that cannot hold the model (ld_model_compile_msg),
 * and a prescribed rotation the model does not start on (ld_model_check_exact).
 */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

static void parse(const char *text, ld_model *m) {
    ld_model_error e;
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, strlen(text), "d.yaml", m, &e);
    if (rc != LD_OK) fail_msg("unexpected failure %d: %s", rc, e.msg);
}

/* Compile in f, try the initial accelerations, diagnose: the status and message. */
static int diagnose(const ld_model *m, ld_formulation f, int accel_ok, char *msg, size_t n) {
    int dropped = 0;
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    char why[256];
    int rc = ld_model_compile_msg(m, f, &s, &q0, &v0, why, sizeof why);
    if (rc) fail_msg("compile: %s", why);
    dropped = ld_model_redundant_rows(&s, NULL, NULL, 0);
    assert_true(!m->keep_redundant || dropped == 0);
    double *a = calloc((size_t)s.k + (size_t)s.m + 1, sizeof *a);
    assert_non_null(a);
    int init = ld_sys_initial_accel(&s, m->run.t_start, q0, v0, a, a + s.k);
    assert_int_equal(init == LD_OK, accel_ok);
    rc = ld_model_diagnose(&s, m->run.t_start, q0, msg, n);
    free(a);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return rc;
}

#define ARM                                                                                        \
    "bodies:\n"                                                                                    \
    "  - name: arm\n"                                                                              \
    "    mass: 1\n"                                                                                \
    "    inertia: [1, 2, 3]\n"                                                                     \
    "    position: [0, 1, 0]\n"                                                                    \
    "joints:\n"

static const char two_spherical[] =
    ARM "  - {name: a, type: spherical, body2: arm, at: [0, 0, 0]}\n"
        "\n"
        "  - {name: b, type: spherical, body2: arm, at: [0, 0, 0]}\n";
static const char fixed_revolute[] =
    ARM "  - {name: weld, type: fixed, body2: arm, at: [0, 0, 0]}\n"
        "  - {name: hinge, type: revolute, body2: arm, at: [0, 0, 0], axis: [0, 0, 1]}\n";

/* By default the dependent rows are left out: want of them, the initial accelerations exist and
 * nothing is left to diagnose; then m keeps every row, as the checks below need. */
static void left_out_by_default(ld_model *m, ld_formulation f, int want) {
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    char msg[512] = "x";
    m->keep_redundant = 0;
    assert_int_equal(ld_model_compile(m, f, &s, &q0, &v0), LD_OK);
    assert_int_equal(ld_model_redundant_rows(&s, NULL, NULL, 0), want);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    assert_int_equal(diagnose(m, f, 1, msg, sizeof msg), LD_OK);
    assert_string_equal(msg, "");
    m->keep_redundant = 1;
}

static void test_redundant_joints(void **state) {
    (void)state;
    ld_model m;
    char msg[512];
    parse(two_spherical, &m);
    for (int f = 0; f < LD_FORM_COUNT; ++f) { /* dense B in euler, sparse in the others */
        left_out_by_default(&m, (ld_formulation)f, 3);
        assert_int_equal(diagnose(&m, (ld_formulation)f, 0, msg, sizeof msg), LD_ESINGULAR);
        const char *want_lie = "joints 'a' (line 7) and 'b' (line 9) constrain the same motion: "
                               "constraint rows 1..3 of 'b' depend on the others (the constraint "
                               "Jacobian has rank 3 for 6 rows)";
        const char *want_euler = "joints 'a' (line 7) and 'b' (line 9) constrain the same motion: "
                                 "constraint rows 1..3 of 'b' depend on the others (the "
                                 "constraint Jacobian has rank 4 for 7 rows)";
        assert_string_equal(msg, f == LD_FORM_EULER ? want_euler : want_lie);
    }
    ld_model_free(&m);
    parse(fixed_revolute, &m);
    left_out_by_default(&m, LD_FORM_S3SDR3, 5);
    assert_int_equal(diagnose(&m, LD_FORM_S3SDR3, 0, msg, sizeof msg), LD_ESINGULAR);
    assert_string_equal(msg, "joints 'weld' (line 7) and 'hinge' (line 8) constrain the same "
                             "motion: constraint rows 1..5 of 'hinge' depend on the others (the "
                             "constraint Jacobian has rank 6 for 11 rows)");
    /* a revolute joint then a driver about another axis: only one row of the second depends */
    ld_model_free(&m);
    parse(ARM "  - {name: hinge, type: revolute, body2: arm, at: [0, 0, 0], axis: [0, 0, 1]}\n"
              "  - {name: pin, type: spherical, body2: arm, at: [0, 0, 0]}\n",
          &m);
    left_out_by_default(&m, LD_FORM_SO3XR3, 3);
    assert_int_equal(diagnose(&m, LD_FORM_SO3XR3, 0, msg, sizeof msg), LD_ESINGULAR);
    assert_string_equal(msg, "joints 'hinge' (line 7) and 'pin' (line 8) constrain the same "
                             "motion: constraint rows 1..3 of 'pin' depend on the others (the "
                             "constraint Jacobian has rank 5 for 8 rows)");
    ld_model_free(&m);
}

static void test_large_rod(void **state) {
    (void)state;
    /* 2000 Kirchhoff segments: B has 4012 rows on 12006 columns, more than the dense QR takes,
     * so the joints' rows are examined alone */
    ld_model m;
    char msg[512];
    parse("rods:\n"
          "  - {name: r, segments: 2000, from: [0, 0, 0], to: [1, 0, 0], kirchhoff: true,\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1]}\n"
          "joints:\n"
          "  - {name: clamp, type: fixed, body2: 'r[0]', at: [0, 0, 0]}\n"
          "  - {name: ball, type: spherical, body2: 'r[0]', at: [0, 0, 0]}\n",
          &m);
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    assert_int_equal(ld_model_compile_msg(&m, LD_FORM_SE3, &s, &q0, &v0, msg, sizeof msg), LD_OK);
    assert_int_equal(ld_model_redundant_rows(&s, NULL, NULL, 0), 3); /* the joints' rows alone */
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    m.keep_redundant = 1;
    assert_int_equal(ld_model_compile_msg(&m, LD_FORM_SE3, &s, &q0, &v0, msg, sizeof msg), LD_OK);
    assert_true((double)s.m * s.k > 4e6);
    assert_int_equal(ld_model_diagnose(&s, 0.0, q0, msg, sizeof msg), LD_ESINGULAR);
    assert_string_equal(msg, "joints 'clamp' (line 5) and 'ball' (line 6) constrain the same "
                             "motion: constraint rows 1..3 of 'ball' depend on the others (the "
                             "joints' rows of the constraint Jacobian have rank 6 for 9)");
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

static void test_consistent_models_pass(void **state) {
    (void)state;
    ld_model m;
    char msg[512] = "x";
    parse(ARM "  - {name: hinge, type: revolute, body2: arm, at: [0, 0, 0], axis: [0, 0, 1]}\n",
          &m);
    assert_int_equal(diagnose(&m, LD_FORM_SE3, 1, msg, sizeof msg), LD_OK);
    assert_string_equal(msg, "");
    /* a body without joints has no B to examine; its masses are fine */
    ld_model_free(&m);
    parse("bodies:\n  - {name: a, mass: 1e6, inertia: [1, 1, 1], position: [0, 0, 0]}\n", &m);
    assert_int_equal(diagnose(&m, LD_FORM_SO3XR3, 1, msg, sizeof msg), LD_OK);
    assert_string_equal(msg, "");
    ld_model_free(&m);
}

static void test_mass_scale(void **state) {
    (void)state;
    ld_model m;
    char msg[512];
    parse("bodies:\n"
          "  - {name: light, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
          "  - name: top\n"
          "    mass: 1e300\n"
          "    inertia: [0.25, 0.5, 0.25]\n"
          "    position: [0, 1, 0]\n"
          "joints:\n"
          "  - {name: pivot, type: spherical, body: top, point: [0, -1, 0]}\n",
          &m);
    assert_int_equal(diagnose(&m, LD_FORM_SO3XR3, 0, msg, sizeof msg), LD_ESINGULAR);
    assert_string_equal(msg, "the mass matrix is singular to working precision: the masses and "
                             "moments of inertia span a factor 4e+300, from 0.25 (moment J11 of "
                             "body 'top', line 3) to 1e+300 (mass of body 'top', line 3); keep "
                             "them within a factor 1e12 of each other");
    ld_model_free(&m);
}

static void test_compile_messages(void **state) {
    (void)state;
    ld_model m;
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    char msg[256];
    parse("bodies:\n"
          "  - {name: top, mass: 1, inertia: [1, 1, 1], position: [0, 2, 0]}\n"
          "joints:\n"
          "  - {name: pivot, type: spherical, body: top, point: [0, -1, 0]}\n",
          &m);
    assert_int_equal(ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg),
                     LD_EINVAL);
    /* the gap in metres, not relative to the model's size */
    assert_string_equal(msg, "joint 0 ('pivot') is not closed at the start: the joint point's two "
                             "copies are 1 m apart; the start must close it to 1e-9 times the "
                             "model's size 2 m; joints[0] at line 4");
    m.joints[0].line = 0; /* built in code: no line */
    assert_int_equal(ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg),
                     LD_EINVAL);
    assert_string_equal(msg, "joint 0 ('pivot') is not closed at the start: the joint point's two "
                             "copies are 1 m apart; the start must close it to 1e-9 times the "
                             "model's size 2 m");
    ld_model_free(&m);
    parse("rods:\n"
          "  - {name: r, segments: 2, from: [0, 0, 0], to: [1, 0, 0],\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1]}\n",
          &m);
    assert_int_equal(ld_model_compile_msg(&m, LD_FORM_EULER, &s, &q0, &v0, msg, sizeof msg),
                     LD_ENOTSUPPORTED);
    assert_string_equal(msg, "rods need a Lie-group formulation (so3xr3, se3, s3xr3, s3sdr3, "
                             "so3xr3-spatial or s3xr3-spatial); the euler formulation does not "
                             "support them");
    assert_int_equal(ld_model_compile_msg(&m, LD_FORM_SE3, &s, &q0, &v0, msg, sizeof msg), LD_OK);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

#define EXACT_BODY(orientation, omega)                                                             \
    "bodies:\n"                                                                                    \
    "  - name: body\n"                                                                             \
    "    mass: 1\n"                                                                                \
    "    inertia: [5, 5, 1]\n"                                                                     \
    "    position: [0, 0, 0]\n"                                                                    \
    "    orientation: " orientation "\n"                                                           \
    "    angular_velocity: " omega "\n"                                                            \
    "loads:\n"                                                                                     \
    "  - {body: body, type: exact_torque, case: ii}\n"

static void test_exact_start(void **state) {
    (void)state;
    ld_model m;
    char msg[512];
    /* case ii at t = 0, as in the shipped model torque-body-ii */
    parse(EXACT_BODY("[0.87758256189037276, 0, 0, 0.47942553860420301]",
                     "[1.6829419696157930, -0.91939538826372047, 0]"),
          &m);
    assert_int_equal(ld_model_check_exact(&m, msg, sizeof msg), 0);
    assert_string_equal(msg, "");
    ld_model_free(&m);
    parse(EXACT_BODY("[1, 0, 0, 0]", "[1.6829419696157930, -0.91939538826372047, 0]"), &m);
    assert_int_equal(ld_model_check_exact(&m, msg, sizeof msg), 1);
    assert_string_equal(msg, "body 'body' (line 2) starts 1 rad from the rotation "
                             "[0.877582561890373, 0, 0, 0.479425538604203] that its exact_torque "
                             "load (case ii) prescribes at t = 0; the angle errors will include "
                             "this offset");
    ld_model_free(&m);
    parse(EXACT_BODY("[0.87758256189037276, 0, 0, 0.47942553860420301]", "[0, 0, 0]"), &m);
    assert_int_equal(ld_model_check_exact(&m, msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "body 'body' (line 2) starts 1.68 rad/s from the angular "
                                "velocity [1.68294196961579, -0.919395388263721, 0]"));
    ld_model_free(&m);
}

/* Every constraint row has an owner with a name: the joints' rows, a rod's Kirchhoff rows,
 * the unit norms of the euler formulation, in order; rows out of range are refused. */
static void test_row_names(void **state) {
    (void)state;
    static const char text[] =
        ARM "  - {name: hinge, type: revolute, body2: arm, at: [0, 0, 0], axis: [0, 0, 1]}\n"
            "rods:\n"
            "  - {name: r, segments: 2, from: [0, 3, 0], to: [2, 3, 0], kirchhoff: true,\n"
            "     stiffness: [1, 1, 1, 10, 10, 10], rho_a: 1, rho_i: [1, 1, 1]}\n";
    ld_model m;
    parse(text, &m);
    for (int f = 0; f < 2; ++f) {
        ld_formulation form = f ? LD_FORM_EULER : LD_FORM_S3SDR3;
        ld_system s;
        double *q0 = NULL, *v0 = NULL;
        char buf[160];
        int rc = ld_model_compile_msg(&m, form, &s, &q0, &v0, buf, sizeof buf);
        if (f && rc) { /* rods need a Lie-group formulation: the joint alone */
            ld_model j;
            parse(ARM "  - {name: hinge, type: revolute, body2: arm, at: [0, 0, 0], axis: [0, 0, "
                      "1]}\n",
                  &j);
            assert_int_equal(ld_model_compile(&j, form, &s, &q0, &v0), LD_OK);
            assert_int_equal(s.m, 6); /* 5 hinge rows and the unit norm */
            assert_int_equal(ld_model_row_name(&s, 4, buf, sizeof buf), LD_OK);
            assert_string_equal(buf, "joint 'hinge' (line 7), row 5 of 5");
            assert_int_equal(ld_model_row_name(&s, 5, buf, sizeof buf), LD_OK);
            assert_string_equal(buf, "body 'arm' (line 2), unit norm of the Euler parameters");
            ld_model_system_free(&s);
            ld_model_free(&j);
            free(q0);
            free(v0);
            continue;
        }
        assert_int_equal(rc, LD_OK);
        assert_int_equal(s.m, 5 + 4); /* hinge, then 2 Kirchhoff rows per segment */
        assert_int_equal(ld_model_row_name(&s, 0, buf, sizeof buf), LD_OK);
        assert_string_equal(buf, "joint 'hinge' (line 7), row 1 of 5");
        assert_int_equal(ld_model_row_name(&s, 5, buf, sizeof buf), LD_OK);
        assert_string_equal(buf, "rod 'r' (line 9), Kirchhoff row 1 of 4");
        assert_int_equal(ld_model_row_name(&s, 8, buf, sizeof buf), LD_OK);
        assert_string_equal(buf, "rod 'r' (line 9), Kirchhoff row 4 of 4");
        assert_int_equal(ld_model_row_name(&s, 9, buf, sizeof buf), LD_EINVAL);
        assert_string_equal(buf, "");
        assert_int_equal(ld_model_row_name(&s, -1, buf, sizeof buf), LD_EINVAL);
        assert_int_equal(ld_model_row_name(NULL, 0, buf, sizeof buf), LD_EINVAL);
        ld_model_system_free(&s);
        free(q0);
        free(v0);
    }
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redundant_joints),
        cmocka_unit_test(test_large_rod),
        cmocka_unit_test(test_consistent_models_pass),
        cmocka_unit_test(test_mass_scale),
        cmocka_unit_test(test_compile_messages),
        cmocka_unit_test(test_exact_start),
        cmocka_unit_test(test_row_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

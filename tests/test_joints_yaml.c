/*
 * The YAML form of joints: every kind parsed into the model, and the reader's error messages
 * for the joint keys (FILE:LINE: KEY: REASON).
 */
#include <string.h>

#include "support.h"

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

#define TWO                                                                                        \
    "bodies:\n"                                                                                    \
    "  - {name: a, mass: 1, inertia: [1, 2, 3], position: [0, 0, 0]}\n"                            \
    "  - {name: b, mass: 2, inertia: [2, 2, 1], position: [1, 0, 0], orientation: [1, 1, 0, "      \
    "0]}\n"                                                                                        \
    "joints:\n"

static void parse_ok(const char *text, ld_model *m) {
    ld_model_error e;
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, strlen(text), "j.yaml", m, &e);
    if (rc != LD_OK) fail_msg("unexpected failure %d: %s\n--- text:\n%s", rc, e.msg, text);
}

static void expect_error(const char *text, int line, const char *key, const char *reason) {
    ld_model m;
    ld_model_error e;
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, strlen(text), "j.yaml", &m, &e);
    char prefix[256];
    snprintf(prefix, sizeof prefix, "j.yaml:%d: %s: ", line, key);
    if (rc != LD_EINVAL || strncmp(e.msg, prefix, strlen(prefix)) != 0 || !strstr(e.msg, reason))
        fail_msg("expected \"%s...%s\", got \"%s\" (rc %d)\n--- text:\n%s", prefix, reason, e.msg,
                 rc, text);
}

static void test_yaml_kinds(void **state) {
    (void)state;
    ld_model m;
    parse_ok(TWO "  - {name: s, type: spherical, body2: a, at: [0, 0, 1]}\n"
                 "  - name: u\n"
                 "    type: universal\n"
                 "    body1: a\n"
                 "    body2: b\n"
                 "    at: [0.5, 0, 0]\n"
                 "    axis: [0, 0, 2]\n"
                 "    axis2: [0, -3, 0]\n"
                 "  - {type: revolute, body1: ground, body2: b, at: [1, 0, 1], axis: [1, 1, 0]}\n"
                 "  - {type: cylindrical, body1: b, body2: a, at: [0, 0, 0], axis: [0, 1, 0]}\n"
                 "  - {type: prismatic, body2: b, at: [1, 0, 0], axis: [1, 0, 0]}\n"
                 "  - {type: fixed, body1: a, body2: b, at: [2, 0, 0]}\n"
                 "  - type: driver\n"
                 "    body2: b\n"
                 "    axis: [1, 0, 0]\n"
                 "    motion: rotation\n"
                 "    value: 6.5\n"
                 "    time: {shape: linear, t0: 0.5}\n"
                 "  - type: driver\n"
                 "    body2: b\n"
                 "    at: [1, 0, 0]\n"
                 "    axis: [1, 0, 0]\n"
                 "    motion: translation\n"
                 "    value: 0.25\n"
                 "    time: {shape: sine, period: 2}\n"
                 "  - {type: spherical, body: b, point: [0, 0, 1], ground: [1, 0, 1]}\n",
             &m);
    assert_int_equal(m.njoints, 9);
    const ld_joint *j = m.joints;
    const ld_joint_kind kinds[9] = {LD_JOINT_SPHERICAL,   LD_JOINT_UNIVERSAL, LD_JOINT_REVOLUTE,
                                    LD_JOINT_CYLINDRICAL, LD_JOINT_PRISMATIC, LD_JOINT_FIXED,
                                    LD_JOINT_DRIVER,      LD_JOINT_DRIVER,    LD_JOINT_SPHERICAL};
    const int b1[9] = {LD_GROUND, 0, LD_GROUND, 1, LD_GROUND, 0, LD_GROUND, LD_GROUND, LD_GROUND};
    const int b2[9] = {0, 1, 1, 0, 1, 1, 1, 1, 1};
    for (int i = 0; i < 9; ++i) {
        assert_int_equal(j[i].kind, kinds[i]);
        assert_int_equal(j[i].body1, b1[i]);
        assert_int_equal(j[i].body2, b2[i]);
        assert_int_equal(j[i].point_form, i == 8);
    }
    assert_string_equal(j[0].name, "s");
    assert_true(j[0].at[2] == 1.0);
    assert_true(j[1].axis[2] == 1.0 && j[1].axis2[1] == -1.0 && j[1].axis2[0] == 0.0);
    assert_true(fabs(j[2].axis[0] - sqrt(0.5)) < 3e-16 && fabs(j[2].axis[1] - sqrt(0.5)) < 3e-16);
    assert_int_equal(j[6].motion, LD_MOTION_ROTATION);
    assert_true(j[6].value == 6.5 && j[6].fn.kind == LD_TFN_LINEAR && j[6].fn.t0 == 0.5);
    assert_int_equal(j[7].motion, LD_MOTION_TRANSLATION);
    assert_true(j[7].fn.kind == LD_TFN_SINE && j[7].fn.period == 2.0 && j[7].fn.t0 == 0.0);
    assert_true(j[8].p[2] == 1.0 && j[8].xg[0] == 1.0 && j[8].body == 1);
    ld_model_free(&m);
    /* a driver's table is owned by the model (the sanitizer build sees a leak) */
    parse_ok(TWO "  - {type: revolute, body2: b, at: [1, 0, 0], axis: [1, 0, 0]}\n"
                 "  - type: driver\n"
                 "    body2: b\n"
                 "    axis: [1, 0, 0]\n"
                 "    motion: rotation\n"
                 "    value: 1\n"
                 "    time: {shape: table, t: [0, 1, 2], f: [0, 1, 0]}\n",
             &m);
    assert_int_equal(m.joints[1].fn.ntab, 3);
    char msg[256];
    assert_true(m.bodies[1].omega_free); /* not given: the driver determines it */
    assert_int_equal(ld_model_check_initial(&m, msg, sizeof msg), LD_OK);
    m.bodies[1].omega_free = 0;                                               /* given as 0 */
    assert_int_equal(ld_model_check_initial(&m, msg, sizeof msg), LD_EINVAL); /* Ω ≠ value f'(0) */
    assert_non_null(strstr(msg, "body 'b': the given angular velocity contradicts joint 1"));
    m.bodies[1].omega[0] = 1.0; /* the axis is body b's x axis too */
    assert_int_equal(ld_model_check_initial(&m, msg, sizeof msg), LD_OK);
    ld_model_free(&m);
}

/* A joint between a body and the ground written either way round: the body becomes body2. */
static void test_yaml_ground_either_way(void **state) {
    (void)state;
    ld_model m;
    parse_ok(TWO "  - {type: revolute, body1: b, at: [1, 0, 0], axis: [0, 0, 1]}\n"
                 "  - {type: spherical, body1: a, body2: ground, at: [0, 0, 0]}\n",
             &m);
    assert_int_equal(m.joints[0].body1, LD_GROUND);
    assert_int_equal(m.joints[0].body2, 1);
    assert_int_equal(m.joints[1].body1, LD_GROUND);
    assert_int_equal(m.joints[1].body2, 0);
    ld_model_free(&m);
}

static void test_yaml_errors(void **state) {
    (void)state;
    /* TWO ends at line 4; the first joint is on line 5 */
    expect_error(TWO "  - {type: revolute, at: [0, 0, 0], axis: [1, 0, 0]}\n", 5, "joints[0].body2",
                 "required key is missing");
    expect_error(TWO "  - {type: revolute, body2: c, at: [0, 0, 0], axis: [1, 0, 0]}\n", 5,
                 "joints[0].body2", "no body named 'c'");
    expect_error(TWO "  - {type: revolute, body1: c, body2: a, at: [0, 0, 0], axis: [1, 0, 0]}\n",
                 5, "joints[0].body1", "no body named 'c'");
    expect_error(TWO "  - type: fixed\n    body2: ground\n    at: [0, 0, 0]\n", 6,
                 "joints[0].body2", "must be a body, not the ground");
    expect_error(TWO "  - type: fixed\n    body1: a\n    body2: a\n    at: [0, 0, 0]\n", 7,
                 "joints[0].body2", "must differ from body1 (both are 'a')");
    expect_error(TWO "  - {type: revolute, body2: a, axis: [1, 0, 0]}\n", 5, "joints[0].at",
                 "required key is missing");
    expect_error(TWO "  - {type: revolute, body2: a, at: [0, 0, 0]}\n", 5, "joints[0].axis",
                 "required key is missing");
    expect_error(TWO "  - type: revolute\n    body2: a\n    at: [0, 0, 0]\n    axis: [0, 0, 0]\n",
                 8, "joints[0].axis", "must be non-zero (a direction; it is normalized)");
    expect_error(TWO "  - {type: revolute, body2: a, at: [0, 0, 0], axis: [1, 0]}\n", 5,
                 "joints[0].axis", "expected a list of 3 numbers, found 2");
    expect_error(TWO "  - {type: revolute, body2: a, at: [0, 0, 0], axis: [1, 0, 0], axis2: [0, "
                     "1, 0]}\n",
                 5, "joints[0].axis2",
                 "key not allowed for type 'revolute' (expected one of: name, type, body1, "
                 "body2, at, axis, angle_rate, limits)");
    expect_error(TWO "  - {type: fixed, body2: a, at: [0, 0, 0], axis: [1, 0, 0]}\n", 5,
                 "joints[0].axis", "key not allowed for type 'fixed'");
    expect_error(TWO "  - {type: revolute, body: a, at: [0, 0, 0], axis: [1, 0, 0]}\n", 5,
                 "joints[0].body", "key not allowed for type 'revolute'");
    expect_error(TWO "  - {type: spherical, body: a, point: [0, 0, 0], body2: b}\n", 5,
                 "joints[0].body2", "key not allowed in the point form of a spherical joint");
    expect_error(TWO "  - {type: spherical, body2: a, at: [0, 0, 0], motion: rotation}\n", 5,
                 "joints[0].motion", "key not allowed for type 'spherical'");
    expect_error(TWO "  - type: universal\n    body2: a\n    at: [0, 0, 0]\n    axis: [1, 0, 0]\n",
                 5, "joints[0].axis2", "required key is missing");
    expect_error(TWO "  - type: universal\n    body2: a\n    at: [0, 0, 0]\n    axis: [1, 0, 0]\n"
                     "    axis2: [1, 1, 0]\n",
                 9, "joints[0].axis2",
                 "must be perpendicular to axis, but axis · axis2 = 0.7071067811865");
    expect_error(TWO "  - {type: driver, body2: a, axis: [1, 0, 0], value: 1}\n", 5,
                 "joints[0].motion", "required key is missing");
    expect_error(TWO "  - {type: driver, body2: a, axis: [1, 0, 0], motion: spin, value: 1}\n", 5,
                 "joints[0].motion", "expected one of rotation, translation, found 'spin'");
    expect_error(TWO "  - {type: driver, body2: a, axis: [1, 0, 0], motion: rotation}\n", 5,
                 "joints[0].value", "required key is missing");
    expect_error(TWO "  - {type: driver, body2: a, at: [0, 0, 0], axis: [1, 0, 0], motion: "
                     "rotation, value: 1}\n",
                 5, "joints[0].at",
                 "key not allowed for a driver of motion 'rotation' (expected one of: name, "
                 "type, body1, body2, axis, motion, value, time)");
    expect_error(TWO "  - {type: driver, body2: a, axis: [1, 0, 0], motion: translation, value: "
                     "1}\n",
                 5, "joints[0].at", "required key is missing");
    expect_error(TWO "  - {type: driver, body2: a, axis: [1, 0, 0], motion: rotation, value: x}\n",
                 5, "joints[0].value", "expected a number, found 'x'");
    expect_error(TWO "  - type: driver\n    body2: a\n    axis: [1, 0, 0]\n    motion: rotation\n"
                     "    value: 1\n    time: {shape: linear, t1: 2}\n",
                 10, "joints[0].time.t1",
                 "key not allowed for shape 'linear' (expected one of: shape, t0)");
    expect_error(TWO "  - type: driver\n    body2: a\n    axis: [1, 0, 0]\n    motion: rotation\n"
                     "    value: 1\n    time: {shape: sine}\n",
                 10, "joints[0].time.period", "required key is missing");
    expect_error(TWO "  - type: driver\n    body2: a\n    axis: [1, 0, 0]\n    motion: rotation\n"
                     "    value: 1\n    time: {shape: sine, period: -1}\n",
                 10, "joints[0].time.period", "must be positive and finite, found -1");
    expect_error(TWO "  - {type: revolute, body2: a, at: [0, 0, 0], axis: [1, 0, 0], time: {shape: "
                     "linear}}\n",
                 5, "joints[0].time", "key not allowed for type 'revolute'");
    expect_error(TWO "  - {type: revolute, body2: a, at: [0, 0, 0], axis: [1, 0, 0], value: 1}\n",
                 5, "joints[0].value", "key not allowed for type 'revolute'");
    expect_error(TWO "  - {type: revolute, body2: a, at: [0, 0, 0], axis: [1, 0, 0], colour: "
                     "red}\n",
                 5, "joints[0].colour", "unknown key (expected one of: name, type, body1");
    /* time functions of loads take the new shapes too */
    ld_model m;
    parse_ok(TWO "  []\nloads:\n  - {body: a, type: force, value: [1, 0, 0], time: {shape: sine, "
                 "period: 0.5, t0: 1}}\n",
             &m);
    assert_true(m.loads[0].fn.kind == LD_TFN_SINE && m.loads[0].fn.t0 == 1.0);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yaml_kinds),
        cmocka_unit_test(test_yaml_errors),
        cmocka_unit_test(test_yaml_ground_either_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

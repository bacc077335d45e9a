/*
 * Every error class of the YAML model reader: syntax, unknown, duplicate and missing keys,
 * wrong types, bad numbers, physical checks, names and references — each with its line, key
 * path and reason, and the output model left untouched.
 */
#include <string.h>

#include "support.h"

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

/* Parsing text fails with LD_EINVAL at line, key, a message containing reason, and leaves
 * the output untouched. */
static void expect_error_rc(const char *text, int rc_want, int line, const char *key,
                            const char *reason) {
    ld_model m, before;
    ld_model_error e;
    memset(&m, 0x5A, sizeof m);
    memcpy(&before, &m, sizeof m);
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, strlen(text), "t.yaml", &m, &e);
    char prefix[256];
    snprintf(prefix, sizeof prefix, "t.yaml:%d: %s: ", line, key);
    if (rc != rc_want || e.line != line || strcmp(e.key, key) != 0 || strcmp(e.file, "t.yaml") ||
        strncmp(e.msg, prefix, strlen(prefix)) != 0 || !strstr(e.msg, reason))
        fail_msg("expected \"%s...%s\" (rc %d), got \"%s\" (rc %d)\n--- text:\n%s", prefix, reason,
                 rc_want, e.msg, rc, text);
    assert_memory_equal(&m, &before, sizeof m);
}

static void expect_error(const char *text, int line, const char *key, const char *reason) {
    expect_error_rc(text, LD_EINVAL, line, key, reason);
}

/* Lines 1-5; the next line is 6. */
#define HEAD                                                                                       \
    "name: t\n"                                                                                    \
    "bodies:\n"                                                                                    \
    "  - name: a\n"                                                                                \
    "    mass: 1\n"                                                                                \
    "    inertia: [1, 2, 3]\n"                                                                     \
    "    position: [0, 0, 0]\n"
/* HEAD, then a load starting at line 7 (its time function on line 11). */
#define LOAD                                                                                       \
    HEAD "loads:\n"                                                                                \
         "  - body: a\n"                                                                           \
         "    type: force\n"                                                                       \
         "    value: [1, 0, 0]\n"

static void test_syntax_errors(void **state) {
    (void)state;
    expect_error("", 1, "(document)", "the model is empty");
    expect_error("# nothing but a comment\n\n", 1, "(document)", "the model is empty");
    expect_error("- a\n- b\n", 1, "(document)", "the top level must be a mapping");
    expect_error("just text\n", 1, "(document)", "found 'just text'");
    expect_error("name: t\nbodies: [\n", 3, "(syntax)", "did not find expected node content");
    expect_error("name: a: b\n", 1, "(syntax)", "mapping values are not allowed");
    expect_error("name: t\n\tbodies: []\n", 2, "(syntax)",
                 "found a tab character that violates indentation");
    expect_error("name: t\nbody: \"abc\n", 3, "(syntax)", "found unexpected end of stream");
    expect_error("name: t\nx: 1\n  y: 2\n", 3, "(syntax)", "mapping values are not allowed");
    expect_error("name: \xff\n", 1, "(syntax)", "invalid text");
    expect_error("name: t\nbodies:\n  - name: \xc3\x28\n", 3, "(syntax)", "invalid text");
    expect_error("bodies: [*nowhere]\n", 1, "(syntax)", "found undefined alias");
    expect_error(HEAD "---\nname: u\n", 7, "(document)", "a second YAML document");
    expect_error("? [a, b]\n: 1\n", 1, "(document)", "keys must be plain names, found a list");
}

static void test_unknown_keys(void **state) {
    (void)state;
    expect_error("bodys: []\n", 1, "bodys",
                 "unknown key (expected one of: name, description, gravity, bodies, rods, "
                 "beams, joints, loads, integrator, elements, output, ground_plane, ground_shapes, "
                 "contact_law, contact_exclude)");
    expect_error("Name: t\n", 1, "Name", "unknown key"); /* keys are case-sensitive */
    expect_error("bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1]}\n"
                 "contact_exclude: [[a, c]]\n",
                 3, "contact_exclude[0]", "no body named 'c'");
    expect_error("bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1]}\n"
                 "contact_exclude: [[a, a]]\n",
                 3, "contact_exclude[0]", "a body with itself");
    expect_error("bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1]}\ncontact_exclude: [a]\n", 3,
                 "contact_exclude[0]", "expected a pair of body names");
    expect_error(HEAD "    colour: red\n", 7, "bodies[0].colour",
                 "unknown key (expected one of: name, mass, inertia, position, orientation, "
                 "angular_velocity, velocity, shape, hold)");
    expect_error(HEAD "integrator:\n  dtt: 1\n", 8, "integrator.dtt", "unknown key");
    expect_error(HEAD "joints:\n  - {type: spherical, body: a, point: [0, 0, 0], axle: 1}\n", 8,
                 "joints[0].axle",
                 "unknown key (expected one of: name, type, body1, body2, at, axis, axis2, "
                 "motion, value, time, body, point, ground, frame1, frame2, angle, slide, hold, "
                 "angle_rate, slide_rate, limits)");
    expect_error(HEAD "joints:\n  - {type: spherical, body: a, point: [0, 0, 0], axis: 1}\n", 8,
                 "joints[0].axis",
                 "key not allowed in the point form of a spherical joint (with 'body') (expected "
                 "one of: name, type, body, point, ground)");
    expect_error(LOAD "    time: {shape: ramp, t0: 0, t1: 1, tau: 2}\n", 11, "loads[0].time.tau",
                 "unknown key");
    expect_error(LOAD "    time: {shape: ramp, t0: 0, t1: 1, t2: 2}\n", 11, "loads[0].time.t2",
                 "key not allowed for shape 'ramp' (expected one of: shape, t0, t1)");
    expect_error(LOAD "    time: {shape: constant, t0: 1}\n", 11, "loads[0].time.t0",
                 "not allowed for shape 'constant'");
    expect_error(LOAD "    case: i\n", 11, "loads[0].case", "not allowed for type 'force'");
    expect_error(HEAD "loads:\n  - body: a\n    type: exact_torque\n    case: i\n    value: [1, 0, "
                      "0]\n",
                 11, "loads[0].value",
                 "not allowed for type 'exact_torque' (expected one of: body, type, case, frame)");
}

static void test_duplicate_keys(void **state) {
    (void)state;
    expect_error("name: a\nname: b\n", 2, "name", "duplicate key (first given at line 1)");
    expect_error(HEAD "    mass: 2\n", 7, "bodies[0].mass",
                 "duplicate key (first given at line 4)");
    expect_error(LOAD "    time: {shape: hat, shape: ramp}\n", 11, "loads[0].time.shape",
                 "duplicate key (first given at line 11)");
}

static void test_missing_keys(void **state) {
    (void)state;
    expect_error("name: t\n", 1, "bodies", "required key is missing");
    expect_error("name: t\nbodies:\n", 2, "bodies", "required, but has no value");
    expect_error("name: t\nbodies:\n  - name: a\n    inertia: [1, 1, 1]\n    position: [0, 0, "
                 "0]\n",
                 3, "bodies[0].mass", "required key is missing");
    expect_error("bodies:\n  - {mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n", 2,
                 "bodies[0].name", "required key is missing");
    expect_error("bodies:\n  - {name: a, mass: 1, position: [0, 0, 0]}\n", 2, "bodies[0].inertia",
                 "required key is missing");
    expect_error("bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1]}\n", 2, "bodies[0]",
                 "body 'a' has no position, and no joint in the frame form joins it");
    expect_error("bodies:\n  - name: a\n    mass:\n    inertia: [1, 1, 1]\n", 3, "bodies[0].mass",
                 "required, but has no value");
    expect_error(HEAD "joints:\n  - type: spherical\n    body: a\n", 8, "joints[0].point",
                 "required key is missing");
    expect_error(HEAD "joints:\n  - {body: a, point: [0, 0, 0]}\n", 8, "joints[0].type",
                 "required key is missing");
    expect_error(HEAD "joints:\n  - {type: spherical, point: [0, 0, 0]}\n", 8, "joints[0].body",
                 "required key is missing");
    expect_error(HEAD "loads:\n  - {body: a, type: torque}\n", 8, "loads[0].value",
                 "required key is missing");
    expect_error(HEAD "loads:\n  - {body: a, value: [1, 0, 0]}\n", 8, "loads[0].type",
                 "required key is missing");
    expect_error(HEAD "loads:\n  - {body: a, type: exact_torque}\n", 8, "loads[0].case",
                 "required key is missing");
    expect_error(LOAD "    time: {t0: 0, t1: 1}\n", 11, "loads[0].time.shape",
                 "required key is missing");
    expect_error(LOAD "    time: {shape: ramp, t0: 0}\n", 11, "loads[0].time.t1",
                 "required key is missing");
    expect_error(LOAD "    time: {shape: hat, t0: 0, t1: 1}\n", 11, "loads[0].time.t2",
                 "required key is missing");
    expect_error(LOAD "    time: {shape: table, t: [0, 1]}\n", 11, "loads[0].time.f",
                 "required key is missing");
}

static void test_wrong_types(void **state) {
    (void)state;
    expect_error(HEAD "gravity: 9.81\n", 7, "gravity",
                 "expected a list of 3 numbers, found '9.81'");
    expect_error(HEAD "gravity: [0, 0, \"9.81\"]\n", 7, "gravity[2]",
                 "expected a number, found the quoted string \"9.81\"");
    expect_error(HEAD "gravity: [0, 0]\n", 7, "gravity", "expected a list of 3 numbers, found 2");
    expect_error(HEAD "gravity: {z: 1}\n", 7, "gravity", "found a mapping");
    expect_error("bodies:\n  - name: a\n    mass: heavy\n", 3, "bodies[0].mass",
                 "expected a number, found 'heavy'");
    expect_error("bodies:\n  - name: a\n    mass: abcdefghijklmnopqrstuvwxyz0123456789\n", 3,
                 "bodies[0].mass",
                 "expected a number, found 'abcdefghijklmnopqrstuvwxyz012345...'");
    expect_error("bodies:\n  - name: a\n    mass: \"\\ta\\u00e9\"\n", 3, "bodies[0].mass",
                 "found the quoted string \"?a\xc3\xa9\""); /* controls masked, UTF-8 kept */
    /* cut before a whole UTF-8 character: 'a' and 15 of the 20 two-byte 'é' fit in 32 bytes */
    char text[256], want[128] = "found 'a";
    snprintf(text, sizeof text, "bodies:\n  - name: a\n    mass: a");
    for (int i = 0; i < 20; ++i) strcat(text, "\xc3\xa9");
    strcat(text, "\n");
    for (int i = 0; i < 15; ++i) strcat(want, "\xc3\xa9");
    strcat(want, "...'");
    expect_error(text, 3, "bodies[0].mass", want);
    expect_error("bodies:\n  - name: a\n    mass: '15'\n", 3, "bodies[0].mass",
                 "found the quoted string \"15\"");
    expect_error("bodies:\n  - name: a\n    mass: [1]\n", 3, "bodies[0].mass",
                 "expected a number, found a list");
    expect_error("bodies:\n  - name: a\n    mass: 1\n    inertia: 1\n", 4, "bodies[0].inertia",
                 "expected a list of 3, 6 or 9 numbers, found '1'");
    expect_error("bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 2, 3, 4]\n", 4,
                 "bodies[0].inertia",
                 "expected 3 (principal moments), 6 (Ixx, Iyy, Izz, Ixy, Iyz, Ixz) or 9 "
                 "(row-major matrix) numbers, found 4");
    expect_error("bodies:\n  - name: a\n    mass: 1\n    inertia:\n      - 1\n      - x\n      - "
                 "1\n",
                 6, "bodies[0].inertia[1]", "expected a number, found 'x'");
    expect_error("bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 1, 1]\n    position: [0, "
                 "y, 0]\n",
                 5, "bodies[0].position[1]", "expected a number, found 'y'");
    expect_error(HEAD "    orientation: [1, 0, 0]\n", 7, "bodies[0].orientation",
                 "expected a list of 4 numbers, found 3");
    expect_error(HEAD "    velocity: 0\n", 7, "bodies[0].velocity", "found '0'");
    expect_error(HEAD "    velocity: [0, ~, 0]\n", 7, "bodies[0].velocity[1]",
                 "expected a number, found an empty value");
    expect_error("bodies: 5\n", 1, "bodies", "expected a list of bodies, found '5'");
    expect_error("bodies: {name: a}\n", 1, "bodies", "expected a list of bodies, found a mapping");
    expect_error("bodies:\n  - 5\n", 2, "bodies[0]",
                 "expected a body (a mapping of 'key: value'), found '5'");
    expect_error(HEAD "joints: {a: 1}\n", 7, "joints", "expected a list of joints");
    expect_error(HEAD "joints: [[1]]\n", 7, "joints[0]", "expected a joint");
    expect_error(HEAD "loads: spherical\n", 7, "loads", "expected a list of loads");
    expect_error(HEAD "loads: [7]\n", 7, "loads[0]", "expected a load");
    expect_error(HEAD "integrator: [genalpha]\n", 7, "integrator",
                 "expected the integrator block (a mapping of 'key: value'), found a list");
    expect_error(HEAD "integrator: {max_iter: 2.5}\n", 7, "integrator.max_iter",
                 "expected an integer, found '2.5'");
    expect_error(HEAD "integrator: {output_every: \"3\"}\n", 7, "integrator.output_every",
                 "expected an integer, found the quoted string \"3\"");
    expect_error(HEAD "integrator: {max_iter: 99999999999}\n", 7, "integrator.max_iter",
                 "integer '99999999999' is out of range");
    expect_error(HEAD "integrator: {dt: fast}\n", 7, "integrator.dt", "expected a number");
    expect_error(HEAD "integrator: {name: [a]}\n", 7, "integrator.name",
                 "expected a name, found a list");
    expect_error("name: {a: 1}\n", 1, "name", "expected a name, found a mapping");
    expect_error("description: [a]\n", 1, "description", "expected text, found a list");
    expect_error(LOAD "    time: ramp\n", 11, "loads[0].time",
                 "expected a time function (a mapping of 'key: value'), found 'ramp'");
    expect_error(LOAD "    time: {shape: table, t: 5, f: [1]}\n", 11, "loads[0].time.t",
                 "expected a list of numbers, found '5'");
    expect_error(LOAD "    time: {shape: ramp, t0: 0, t1: one}\n", 11, "loads[0].time.t1",
                 "expected a number, found 'one'");
    expect_error(HEAD "joints:\n  - {type: spherical, body: [a], point: [0, 0, 0]}\n", 8,
                 "joints[0].body", "expected a name, found a list");
}

static void test_bad_numbers(void **state) {
    (void)state;
    const char *bad[] = {"nan",  "NaN",    ".nan",  "inf", "-inf", ".inf", "Infinity",
                         "0x10", "1.5abc", "1_000", "1,5", "+",    ".",    "1e",
                         "1e+",  "e5",     "1.2.3", "--1", "true", "~1",   "1 2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        char text[256], reason[64];
        snprintf(text, sizeof text, "bodies:\n  - name: a\n    mass: %s\n", bad[i]);
        snprintf(reason, sizeof reason, "expected a number, found '%s'", bad[i]);
        expect_error(text, 3, "bodies[0].mass", reason);
    }
    expect_error("bodies:\n  - name: a\n    mass: 1e999\n", 3, "bodies[0].mass",
                 "number '1e999' is out of range");
    expect_error("bodies:\n  - name: a\n    mass: -1e400\n", 3, "bodies[0].mass", "out of range");
}

static void test_physical_errors(void **state) {
    (void)state;
    expect_error("bodies:\n  - name: a\n    mass: -1\n    inertia: [1, 1, 1]\n    position: [0, "
                 "0, 0]\n",
                 3, "bodies[0].mass", "must be positive and finite, found -1");
    expect_error("bodies:\n  - name: a\n    mass: 0\n    inertia: [1, 1, 1]\n    position: [0, "
                 "0, 0]\n",
                 3, "bodies[0].mass", "must be positive");
    expect_error("bodies:\n  - name: a\n    mass: 1\n    inertia: [1, -2, 3]\n    position: [0, "
                 "0, 0]\n",
                 4, "bodies[0].inertia",
                 "must be positive definite, but its principal moments are -2, 1, 3");
    expect_error("bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 0, 3]\n    position: [0, "
                 "0, 0]\n",
                 4, "bodies[0].inertia", "must be positive definite");
    expect_error("bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 0.5, 0, 0, 1, 0, 0, 0, 1]\n"
                 "    position: [0, 0, 0]\n",
                 4, "bodies[0].inertia",
                 "must be symmetric, but element (1,2) is 0.5 and (2,1) is 0");
    expect_error("bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 1, 1, 2, 0, 0]\n"
                 "    position: [0, 0, 0]\n",
                 4, "bodies[0].inertia", "its principal moments are -1, 1, 3");
    expect_error("bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 1, 0]\n    position: [0, "
                 "0, 0]\n",
                 4, "bodies[0].inertia", "must be positive definite"); /* a slender rod's J */
    expect_error(HEAD "    orientation: [0, 0, 0, 0]\n", 7, "bodies[0].orientation",
                 "must be non-zero");
    expect_error(HEAD "integrator:\n  dt: -1e-3\n", 8, "integrator.dt",
                 "must be positive and finite, found -0.001");
    expect_error(HEAD "integrator:\n  dt: 0\n", 8, "integrator.dt", "must be positive");
    expect_error(HEAD "integrator:\n  t_start: 5\n  t_end: 1\n", 9, "integrator.t_end",
                 "must be finite and greater than t_start (t_start = 5, t_end = 1)");
    expect_error(HEAD "integrator:\n  t_start: 5\n", 7, "integrator.t_end",
                 "greater than t_start"); /* default t_end: the block's line */
    expect_error(HEAD "integrator:\n  rho_inf: 1.5\n", 8, "integrator.rho_inf",
                 "must be in [0, 1], found 1.5");
    expect_error(HEAD "integrator:\n  rho_inf: -0.1\n", 8, "integrator.rho_inf", "[0, 1]");
    expect_error(HEAD "integrator:\n  alpha: -0.5\n", 8, "integrator.alpha",
                 "must be in [-1/3, 0], found -0.5");
    expect_error(HEAD "integrator:\n  alpha: 0.01\n", 8, "integrator.alpha", "[-1/3, 0]");
    expect_error(HEAD "integrator:\n  newton_atol: 0\n", 8, "integrator.newton_atol",
                 "must be positive");
    expect_error(HEAD "integrator:\n  newton_rtol: -1e-8\n", 8, "integrator.newton_rtol",
                 "must be positive");
    expect_error(HEAD "integrator:\n  max_iter: 0\n", 8, "integrator.max_iter",
                 "must be at least 1, found 0");
    expect_error(HEAD "integrator:\n  output_every: -2\n", 8, "integrator.output_every",
                 "must be at least 1 (or 0: chosen by the tool), found -2");
    expect_error(HEAD "output:\n  dt: -0.5\n", 8, "output.dt",
                 "must be finite and >= 0 (0: a row per step), found -0.5");
    expect_error(HEAD "output:\n  plot: a.z\n", 8, "output.plot",
                 "expected a list of quantity names such as top.z");
    expect_error(HEAD "output:\n  plot: [a.z, 'x,y']\n", 8, "output.plot[1]",
                 "a quantity name has no comma");
    expect_error(HEAD "output:\n  rows: 3\n", 8, "output.rows",
                 "unknown key (expected one of: dt, every, plot)");
    expect_error(LOAD "    time: {shape: ramp, t0: 1, t1: 1}\n", 11, "loads[0].time.t1",
                 "must be greater than t0 (t0 = 1, t1 = 1)");
    expect_error(LOAD "    time: {shape: hat, t0: 0, t1: 2, t2: 1}\n", 11, "loads[0].time.t2",
                 "must be greater than t1 (t1 = 2, t2 = 1)");
    expect_error(LOAD "    time:\n      shape: table\n      t:\n        - 0\n        - 1\n"
                      "        - 1\n      f: [0, 1, 2]\n",
                 16, "loads[0].time.t[2]",
                 "times must increase strictly, but t[2] = 1 follows t[1] = 1");
    expect_error(LOAD "    time: {shape: table, t: [0], f: [1]}\n", 11, "loads[0].time.t",
                 "a table needs at least 2 points, found 1");
    expect_error(LOAD "    time: {shape: table, t: [], f: []}\n", 11, "loads[0].time.t",
                 "at least 2 points, found 0");
    expect_error(LOAD "    time:\n      shape: table\n      t: [0, 1, 2]\n      f: [0, 1]\n", 14,
                 "loads[0].time.f", "must have as many values as t (3, not 2)");
}

static void test_names_and_references(void **state) {
    (void)state;
    expect_error(HEAD "joints:\n  - {type: spherical, body: b, point: [0, 0, 0]}\n", 8,
                 "joints[0].body", "no body named 'b'");
    expect_error(HEAD "loads:\n  - {body: A, type: force, value: [0, 0, 1]}\n", 8, "loads[0].body",
                 "no body named 'A'");
    expect_error(HEAD "joints:\n  - {type: hinge, body: a, point: [0, 0, 0]}\n", 8,
                 "joints[0].type",
                 "expected one of spherical, universal, revolute, cylindrical, prismatic, fixed, "
                 "driver, found 'hinge'");
    expect_error(HEAD "loads:\n  - {body: a, type: weight, value: [0, 0, 1]}\n", 8, "loads[0].type",
                 "expected one of force, torque, exact_torque, found 'weight'");
    expect_error(LOAD "    frame: local\n", 11, "loads[0].frame",
                 "expected one of spatial, body, found 'local'");
    expect_error(HEAD "loads:\n  - {body: a, type: exact_torque, case: iii}\n", 8, "loads[0].case",
                 "expected one of i, ii, found 'iii'");
    expect_error(
        LOAD "    time: {shape: cosine}\n", 11, "loads[0].time.shape",
        "expected one of constant, ramp, hat, table, linear, sine, spin-up, found 'cosine'");
    expect_error(HEAD "integrator: {formulation: so3}\n", 7, "integrator.formulation",
                 "expected one of so3xr3, se3, s3xr3, s3sdr3, so3xr3-spatial, s3xr3-spatial, "
                 "euler, tree, found 'so3'");
    expect_error("bodies:\n  - name: \"\"\n", 2, "bodies[0].name", "must not be empty");
    expect_error("bodies:\n  - name: "
                 "a234567890123456789012345678901234567890123456789012345678901234\n",
                 2, "bodies[0].name", "is longer than 63 characters");
    expect_error("bodies:\n  - name: \"a\\0b\"\n", 2, "bodies[0].name",
                 "must not contain NUL characters");
    expect_error(HEAD "  - name: a\n    mass: 1\n    inertia: [1, 1, 1]\n    position: [0, 0, 0]\n",
                 7, "bodies[1].name", "duplicate body name 'a' (also bodies[0])");
    expect_error(HEAD "joints:\n  - {name: j, type: spherical, body: a, point: [0, 0, 0]}\n"
                      "  - {name: j, type: spherical, body: a, point: [0, 0, 0]}\n",
                 9, "joints[1].name", "duplicate joint name 'j' (also joints[0])");
    expect_error(HEAD "integrator: {name: \"\"}\n", 7, "integrator.name", "must not be empty");
    expect_error("bodies: []\n", 1, "bodies", "at least one body is required, found 0");
    expect_error(HEAD "loads:\n  - {body: a, type: exact_torque, case: I}\n", 8, "loads[0].case",
                 "found 'I'"); /* values are case-sensitive too */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syntax_errors),   cmocka_unit_test(test_unknown_keys),
        cmocka_unit_test(test_duplicate_keys),  cmocka_unit_test(test_missing_keys),
        cmocka_unit_test(test_wrong_types),     cmocka_unit_test(test_bad_numbers),
        cmocka_unit_test(test_physical_errors), cmocka_unit_test(test_names_and_references),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

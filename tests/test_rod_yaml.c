/*
 * Rods in the YAML model format: the shipped rod models read as documented (node bodies,
 * masses, frames, loads and joints on the nodes), the default normal, and every error of the
 * rods' keys with its line, key path and reason; the euler formulation is refused when
 * compiling, not when reading.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#ifndef LD_SOURCE_DIR
#error "LD_SOURCE_DIR must name the source tree (tests/CMakeLists.txt)"
#endif

static void load_model(const char *rel, ld_model *m) {
    char path[512];
    ld_model_error e;
    snprintf(path, sizeof path, "%s/%s", LD_SOURCE_DIR, rel);
    if (ld_model_load(path, m, &e)) fail_msg("%s", e.msg);
}

/* Body frame column j (R e_j) of body b. */
static void frame_axis(const ld_body *b, int j, double out[3]) {
    double e[3] = {0, 0, 0};
    e[j] = 1.0;
    ld_quat_rotate(out, b->q, e);
}

static void test_spaghetti_model(void **state) {
    (void)state;
    ld_model m;
    load_model("models/flying-spaghetti.yaml", &m);
    assert_int_equal(m.nrods, 1);
    assert_int_equal(m.nbodies, 17);
    const ld_rod *r = &m.rods[0];
    assert_string_equal(r->name, "rod");
    assert_int_equal(r->n, 16);
    assert_int_equal(r->body0, 0);
    assert_int_equal(r->kirchhoff, 1);
    assert_true(fabs(r->length - 10.0) < 1e-14);
    const double C[6] = {500, 500, 500, 1e4, 1e4, 1e4};
    for (int i = 0; i < 6; ++i) assert_true(r->stiffness[i] == C[i] && r->damping[i] == 0.0);
    const double e3[3] = {-0.6, 0.8, 0.0}, e1[3] = {0, 0, 1};
    for (int k = 0; k <= 16; ++k) {
        const ld_body *b = &m.bodies[k];
        char name[16];
        snprintf(name, sizeof name, "rod[%d]", k);
        assert_string_equal(b->name, name);
        double w = k == 0 || k == 16 ? 0.3125 : 0.625, x[3] = {6.0 - 0.375 * k, 0.5 * k, 0.0};
        assert_true(fabs(b->mass - w) < 1e-15);
        assert_true(fabs(b->inertia[0] - 10 * w) < 1e-14 && fabs(b->inertia[8] - 10 * w) < 1e-14);
        assert_true(maxabs_diff(b->x, x, 3) < 1e-14);
        double a[3];
        frame_axis(b, 2, a);
        assert_true(maxabs_diff(a, e3, 3) < 1e-15);
        frame_axis(b, 0, a);
        assert_true(maxabs_diff(a, e1, 3) < 1e-15);
        assert_true(b->has_v && maxabs(b->v, 3) == 0.0 && maxabs(b->omega, 3) == 0.0);
    }
    assert_int_equal(m.nloads, 2);
    assert_int_equal(m.loads[0].body, 0);
    assert_int_equal(m.loads[1].body, 0);
    assert_int_equal(m.loads[1].kind, LD_LOAD_TORQUE);
    assert_true(fabs(ld_tfn_eval(&m.loads[1].fn, 2.5) - 1.0) < 1e-15);
    assert_true(m.loads[1].vec[2] == -200.0);
    ld_model_free(&m);
}

static void test_rollup_model(void **state) {
    (void)state;
    ld_model m;
    load_model("models/roll-up.yaml", &m);
    assert_int_equal(m.nbodies, 9);
    assert_int_equal(m.rods[0].n, 8);
    for (int i = 0; i < 6; ++i) assert_true(m.rods[0].damping[i] == 50.0);
    assert_int_equal(m.njoints, 1);
    assert_int_equal(m.joints[0].kind, LD_JOINT_FIXED);
    assert_int_equal(m.joints[0].body1, LD_GROUND);
    assert_int_equal(m.joints[0].body2, 0);
    assert_int_equal(m.loads[0].body, 8);
    /* the moment about −y bends about body e2 = e3 × e1 = x × z = −y */
    double e2[3], e[3] = {0, 1, 0};
    ld_quat_rotate(e2, m.bodies[8].q, e);
    assert_true(fabs(e2[1] + 1.0) < 1e-15);
    assert_true(fabs(m.loads[0].vec[1] + 2 * PI * 500 / 10) < 1e-9);
    ld_model_free(&m);
}

/* Bodies first, then the rods' nodes; the default normal; joints and loads on nodes. */
static void test_bodies_and_rods(void **state) {
    (void)state;
    const char *text = "bodies:\n"
                       "  - {name: box, mass: 2, inertia: [1, 2, 3], position: [0, 0, 3]}\n"
                       "rods:\n"
                       "  - {name: up, segments: 2, from: [0, 0, 0], to: [0, 0, 2],\n"
                       "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 2, rho_i: [1, 2, 3]}\n"
                       "  - {name: along, segments: 1, from: [0, 0, 0], to: [0, 0.5, 0],\n"
                       "     stiffness: [1, 1, 1, 1, 1, 1], damping: [1, 2, 3, 4, 5, 6],\n"
                       "     rho_a: 2, rho_i: [1, 2, 3], kirchhoff: false}\n"
                       "joints:\n"
                       "  - {type: spherical, body1: 'up[2]', body2: box, at: [0, 0, 2]}\n"
                       "loads:\n"
                       "  - {body: 'along[1]', type: force, value: [1, 0, 0]}\n";
    ld_model m;
    ld_model_error e;
    if (ld_model_parse(text, strlen(text), "t.yaml", &m, &e)) fail_msg("%s", e.msg);
    assert_int_equal(m.nbodies, 1 + 3 + 2);
    assert_int_equal(m.rods[0].body0, 1);
    assert_int_equal(m.rods[1].body0, 4);
    assert_string_equal(m.bodies[3].name, "up[2]");
    assert_string_equal(m.bodies[5].name, "along[1]");
    assert_int_equal(m.joints[0].body1, 3);
    assert_int_equal(m.loads[0].body, 5);
    assert_int_equal(m.rods[1].kirchhoff, 0);
    assert_true(m.rods[1].damping[5] == 6.0);
    /* the end nodes carry half a segment: ds = 1, ρA = 2, ρI = (1, 2, 3) */
    assert_true(m.bodies[1].mass == 1.0 && m.bodies[2].mass == 2.0 &&
                m.bodies[2].inertia[8] == 3.0);
    /* default normal: the spatial axis least aligned with e3 (z before y before x) */
    double a[3];
    frame_axis(&m.bodies[1], 0, a); /* e3 = z: x and y tie, y wins */
    assert_true(fabs(a[1] - 1.0) < 1e-15);
    frame_axis(&m.bodies[4], 0, a); /* e3 = y: z */
    assert_true(fabs(a[2] - 1.0) < 1e-15);
    ld_model_free(&m);
}

/* ---------------------------------------------------------------- errors */

/* Parsing text fails with LD_EINVAL at line, key, a message containing reason; the output is
 * untouched. */
static void expect_error(const char *text, int line, const char *key, const char *reason) {
    ld_model m, before;
    ld_model_error e;
    memset(&m, 0x5A, sizeof m);
    memcpy(&before, &m, sizeof m);
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, strlen(text), "t.yaml", &m, &e);
    char prefix[256];
    snprintf(prefix, sizeof prefix, "t.yaml:%d: %s: ", line, key);
    if (rc != LD_EINVAL || e.line != line || strcmp(e.key, key) != 0 ||
        strncmp(e.msg, prefix, strlen(prefix)) != 0 || !strstr(e.msg, reason))
        fail_msg("expected \"%s...%s\", got \"%s\" (rc %d)\n--- text:\n%s", prefix, reason, e.msg,
                 rc, text);
    assert_memory_equal(&m, &before, sizeof m);
}

/* A rod, one key per line (line i + 1); "rods:" is line 1, the item line 2. */
static const char *const base[] = {"rods:",
                                   "  - name: rod",
                                   "    segments: 4",
                                   "    from: [0, 0, 0]",
                                   "    to: [2, 0, 0]",
                                   "    stiffness: [1, 1, 1, 10, 10, 10]",
                                   "    rho_a: 1",
                                   "    rho_i: [1, 1, 1]",
                                   NULL};

/* The base rod with line `line` (1-based) replaced by repl ("" drops it), then extra. */
static const char *rod_text(int line, const char *repl, const char *extra) {
    static char buf[2048];
    size_t n = 0;
    for (int i = 0; base[i]; ++i) {
        const char *l = i + 1 == line ? repl : base[i];
        if (l[0]) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\n", l);
    }
    snprintf(buf + n, sizeof buf - n, "%s", extra ? extra : "");
    return buf;
}

static void test_errors(void **state) {
    (void)state;
    /* the base is fine */
    ld_model m;
    ld_model_error e;
    const char *ok = rod_text(0, NULL, NULL);
    if (ld_model_parse(ok, strlen(ok), "t.yaml", &m, &e)) fail_msg("%s", e.msg);
    ld_model_free(&m);
    expect_error("rods: 5\n", 1, "rods", "expected a list of rods, found '5'");
    expect_error(rod_text(3, "    segments: 0", NULL), 3, "rods[0].segments",
                 "must be at least 1, found 0");
    expect_error(rod_text(3, "    segments: -2", NULL), 3, "rods[0].segments",
                 "must be at least 1, found -2");
    expect_error(rod_text(3, "    segments: 2.5", NULL), 3, "rods[0].segments",
                 "expected an integer, found '2.5'");
    expect_error(rod_text(3, "    segments: 2000000", NULL), 3, "rods[0].segments",
                 "must be at most 1000000");
    expect_error(rod_text(3, "", NULL), 2, "rods[0].segments", "required key is missing");
    expect_error(rod_text(6, "", NULL), 2, "rods[0].stiffness", "required key is missing");
    expect_error(rod_text(6, "    stiffness: [1, 1, 1, 10, 10]", NULL), 6, "rods[0].stiffness",
                 "expected a list of 6 numbers, found 5");
    expect_error(rod_text(5, "    to: [0, 0, 0]", NULL), 5, "rods[0].to",
                 "must differ from 'from'");
    expect_error(rod_text(0, NULL, "    colour: red\n"), 9, "rods[0].colour",
                 "unknown key (expected one of: name, segments, from, to, normal, stiffness, "
                 "damping, rho_a, rho_i, kirchhoff, velocity, angular_velocity, collide)");
    expect_error(rod_text(0, NULL, "    normal: [-3, 0, 0]\n"), 9, "rods[0].normal",
                 "must not be parallel to the centreline (to − from)");
    expect_error(rod_text(0, NULL, "    normal: [0, 0, 0]\n"), 9, "rods[0].normal",
                 "must be non-zero");
    expect_error(rod_text(0, NULL, "    kirchhoff: yes\n"), 9, "rods[0].kirchhoff",
                 "expected one of false, true, found 'yes'");
    /* physical checks (ld_model_validate), at the key's line */
    expect_error(rod_text(7, "    rho_a: -1", NULL), 7, "rods[0].rho_a",
                 "must be positive and finite, found -1");
    expect_error(rod_text(8, "    rho_i: [1, 0, 1]", NULL), 8, "rods[0].rho_i",
                 "element 2 must be positive and finite, found 0");
    expect_error(rod_text(6, "    stiffness: [1, 1, 1, -10, 10, 10]", NULL), 6, "rods[0].stiffness",
                 "element 4 must be finite and >= 0, found -10");
    expect_error(rod_text(0, NULL, "    damping: [0, 0, 0, 0, 0, -1]\n"), 9, "rods[0].damping",
                 "element 6 must be finite and >= 0, found -1");
    /* names */
    expect_error(rod_text(2,
                          "  - name: "
                          "a-rod-name-that-is-much-too-long-for-its-node-names-to-fit-xyz",
                          NULL),
                 2, "rods[0].name", "is too long for the node names");
    expect_error(rod_text(0, NULL,
                          "  - {name: rod, segments: 1, from: [0, 0, 0], to: [1, 0, 0],\n"
                          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1]}\n"),
                 9, "rods[1].name", "duplicate rod name 'rod' (also rods[0])");
    expect_error("bodies:\n  - {name: 'rod[2]', mass: 1, inertia: [1, 1, 1], position: [0, 0, "
                 "0]}\n"
                 "rods:\n  - {name: rod, segments: 4, from: [0, 0, 0], to: [1, 0, 0],\n"
                 "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1]}\n",
                 4, "rods[0].name", "the node 'rod[2]' would have the name of bodies[0]");
    expect_error(rod_text(0, NULL, "loads:\n  - {body: 'rod[5]', type: force, value: [1, 0, 0]}\n"),
                 10, "loads[0].body", "no body named 'rod[5]'");
    expect_error("name: t\n", 1, "bodies", "required key is missing");
}

/* The euler formulation: read and validated, refused by compiling (with a reason). */
static void test_euler_refused(void **state) {
    (void)state;
    const char *text = rod_text(0, NULL, "    kirchhoff: true\nintegrator: {formulation: euler}\n");
    ld_model m;
    ld_model_error e;
    if (ld_model_parse(text, strlen(text), "t.yaml", &m, &e)) fail_msg("%s", e.msg);
    assert_int_equal(m.run.formulation, LD_FORM_EULER);
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    assert_int_equal(ld_model_compile(&m, LD_FORM_EULER, &s, &q0, &v0), LD_ENOTSUPPORTED);
    assert_null(q0);
    char msg[256];
    assert_int_equal(ld_model_check_initial(&m, msg, sizeof msg), LD_OK);
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        assert_int_equal(ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
        assert_int_equal(s.m, 8); /* 4 segments, 2 Kirchhoff rows each */
        free(q0), free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spaghetti_model), cmocka_unit_test(test_rollup_model),
        cmocka_unit_test(test_bodies_and_rods), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_euler_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

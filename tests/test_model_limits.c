/*
 * The model reader on large and hostile input: the nesting and size limits, names found and
 * repeated names detected in a rod of 10⁵ segments (sorted indexes, not pairwise scans), a
 * curved beam's nodes placed with work in proportion to their number, the source lines of the
 * items, explicit YAML tags on numbers, the reserved name 'ground', and the integrator's name
 * checked with its line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../src/elements/beam_curve.h"

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

/* Parsing text[len] fails with rc_want and the message msg_want exactly. */
static void expect_msg(const char *text, size_t len, int rc_want, const char *msg_want) {
    ld_model m;
    ld_model_error e;
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, len, "t.yaml", &m, &e);
    if (rc != rc_want || strcmp(e.msg, msg_want) != 0)
        fail_msg("expected \"%s\" (rc %d), got \"%s\" (rc %d)", msg_want, rc_want, e.msg, rc);
}

static void parse_ok(const char *text, ld_model *m) {
    ld_model_error e;
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, strlen(text), "t.yaml", m, &e);
    if (rc != LD_OK) fail_msg("unexpected failure %d: %s", rc, e.msg);
}

/* "k: [[[…]]]" nested depth lists deep. */
static char *nested(int depth) {
    char *s = malloc((size_t)depth * 2 + 8);
    assert_non_null(s);
    strcpy(s, "k: ");
    size_t n = 3;
    for (int i = 0; i < depth; ++i) s[n++] = '[';
    for (int i = 0; i < depth; ++i) s[n++] = ']';
    s[n++] = '\n';
    s[n] = '\0';
    return s;
}

static void test_nesting_limit(void **state) {
    (void)state;
    /* 10⁵ levels: refused by the pre-scan at once (libyaml's loader would take minutes) */
    char *deep = nested(100000);
    expect_msg(deep, strlen(deep), LD_EINVAL,
               "t.yaml:1: (document): nesting deeper than 64 levels (the limit of a model file)");
    free(deep);
    /* the top-level mapping and 63 lists are within the limit: the reader gets to the key */
    char *ok = nested(LD_MODEL_MAX_DEPTH - 1);
    expect_msg(ok, strlen(ok), LD_EINVAL,
               "t.yaml:1: k: unknown key (expected one of: name, description, gravity, bodies, "
               "rods, beams, joints, loads, integrator, elements, output, ground_plane, "
               "ground_shapes, contact_law, contact_exclude)");
    free(ok);
    char *over = nested(LD_MODEL_MAX_DEPTH);
    expect_msg(over, strlen(over), LD_EINVAL,
               "t.yaml:1: (document): nesting deeper than 64 levels (the limit of a model file)");
    free(over);
    /* a syntax error found by the pre-scan keeps its message */
    expect_msg("name: t\nbodies: [\n", 18, LD_EINVAL,
               "t.yaml:3: (syntax): did not find expected node content (while parsing a flow node "
               "at line 3)");
}

static void test_size_limit(void **state) {
    (void)state;
    size_t len = LD_MODEL_MAX_BYTES + 1;
    char *big = malloc(len);
    assert_non_null(big);
    memset(big, '\n', len);
    big[0] = '#';
    expect_msg(big, len, LD_EINVAL,
               "t.yaml:0: (file): larger than 64 MB (the limit of a model file)");
    /* exactly at the limit: read (and found empty) */
    expect_msg(big, len - 1, LD_EINVAL,
               "t.yaml:1: (document): the model is empty (it needs at least 'bodies')");
    free(big);
}

/* A rod of n segments (nodes rod[0] … rod[n]), a body called `extra` first, a joint on the
 * last node and a load on node k. */
static char *big_rod(int n, const char *extra, int k) {
    char *s = malloc(2048);
    assert_non_null(s);
    snprintf(s, 2048,
             "bodies:\n"
             "  - {name: '%s', mass: 1, inertia: [1, 1, 1], position: [0, 0, 5]}\n"
             "rods:\n"
             "  - name: rod\n"
             "    segments: %d\n"
             "    from: [0, 0, 0]\n"
             "    to: [10, 0, 0]\n"
             "    stiffness: [500, 500, 500, 1e4, 1e4, 1e4]\n"
             "    rho_a: 1\n"
             "    rho_i: [10, 10, 10]\n"
             "joints:\n"
             "  - {name: clamp, type: fixed, body2: 'rod[%d]', at: [10, 0, 0]}\n"
             "loads:\n"
             "  - {body: 'rod[%d]', type: force, value: [0, 0, 1]}\n",
             extra, n, n, k);
    return s;
}

static void test_big_rod_names(void **state) {
    (void)state;
    const int n = 100000;
    ld_model m;
    char *text = big_rod(n, "tip", 77777);
    parse_ok(text, &m);
    assert_int_equal(m.nbodies, n + 2);
    assert_int_equal(m.joints[0].body2, n + 1); /* rod[n] is the last body */
    assert_int_equal(m.loads[0].body, 77778);
    assert_string_equal(m.bodies[77778].name, "rod[77777]");
    ld_model_free(&m);
    free(text);
    /* a body with the name of a node deep inside the rod is still found */
    text = big_rod(n, "rod[77777]", 5);
    expect_msg(text, strlen(text), LD_EINVAL,
               "t.yaml:4: rods[0].name: the node 'rod[77777]' would have the name of bodies[0]");
    free(text);
    /* and a node name past the rod's end is an ordinary body name */
    text = big_rod(n, "rod[100001]", 100000);
    parse_ok(text, &m);
    assert_int_equal(m.loads[0].body, n + 1);
    ld_model_free(&m);
    free(text);
}

/* A curved beam of n elements (order 4) along a smooth pre-bent axis through 60 points. */
static char *curved_beam(int n) {
    size_t cap = 8192;
    char *s = malloc(cap);
    assert_non_null(s);
    int len = snprintf(s, cap,
                       "beams:\n"
                       "  - name: blade\n"
                       "    elements: %d\n"
                       "    curve: true\n"
                       "    clamp: start\n"
                       "    normal: [0, 1, 0]\n"
                       "    section: {EA: 1e9, GA2: 1e8, GA3: 1e8, GJ: 1e6, EI2: 1e7, EI3: 1e7}\n"
                       "    rho_a: 500\n"
                       "    rho_j: [1, 0.5, 0.5]\n"
                       "    points:\n",
                       n);
    for (int i = 0; i < 60; ++i) {
        double x = 2.0 * i, z = 0.004 * x * x - 0.2 * sin(0.1 * x);
        len += snprintf(s + len, cap - (size_t)len, "      - [%.17g, 0, %.17g]\n", x, z);
    }
    assert_true((size_t)len < cap);
    return s;
}

/* Placing a curved beam's nodes takes work in proportion to the nodes: a bounded number of
 * spline evaluations per node, the same for 10³ and 10⁴ elements. (Each node's arc length used
 * to be integrated from the curve's start — 8 evaluations per knot interval, 59 intervals here,
 * in every Newton iteration — and the whole length once more per node: over 1000 evaluations per
 * node, 143 s for 10⁴ order-10 elements of the IEA 15-MW blade.) */
static void test_curved_beam_work(void **state) {
    (void)state;
    double per_node[2];
    const int ne[2] = {1000, 10000};
    for (int i = 0; i < 2; ++i) {
        char *text = curved_beam(ne[i]);
        ld_model m;
        long w0 = ld_beam__curve_work();
        parse_ok(text, &m);
        long work = ld_beam__curve_work() - w0;
        assert_int_equal(m.nbeams, 1);
        assert_int_equal(m.beams[0].nnodes, 4 * ne[i] + 1);
        per_node[i] = (double)work / m.beams[0].nnodes;
        print_message("  %d elements: %ld spline evaluations, %.1f per node\n", ne[i], work,
                      per_node[i]);
        assert_true(per_node[i] <= 40.0);
        ld_model_free(&m);
        free(text);
    }
    assert_true(per_node[1] <= 1.25 * per_node[0]);
}

/* A beam of more than LD_BEAM_NODES_MAX nodes is refused before anything is allocated: 10⁵
 * elements of order 14 on each of two segments would be 2.8·10⁶ bodies (gigabytes). */
static void test_beam_node_limit(void **state) {
    (void)state;
    static const char text[] = "beams:\n"
                               "  - name: b\n"
                               "    order: 14\n"
                               "    elements: 100000\n"
                               "    points: [[0, 0, 0], [1, 0, 0], [1, 1, 0]]\n"
                               "    normal: [0, 0, 1]\n"
                               "    section: {EA: 1, GA2: 1, GA3: 1, GJ: 1, EI2: 1, EI3: 1}\n"
                               "    rho_a: 1\n"
                               "    rho_j: [1, 1, 1]\n";
    expect_msg(text, strlen(text), LD_EINVAL,
               "t.yaml:4: beams[0].elements: 100000 elements of order 14 on every segment of the "
               "points make 2800001 nodes, more than the 1000001 of a beam (the nodes are bodies: "
               "memory grows with them)");
    ld_model m; /* and ld_beam_place itself, for a beam built in code */
    memset(&m, 0, sizeof m);
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "b");
    b.order = 14, b.nelem = 1000000, b.npoints = 256, b.rho_a = 1.0;
    for (int i = 0; i < 256; ++i) b.points[3 * i] = i;
    b.normal[2] = 1.0;
    for (int k = 0; k < 6; ++k) b.C[7 * k] = 1.0;
    b.rho_j[0] = b.rho_j[4] = b.rho_j[8] = 1.0;
    assert_int_equal(ld_beam_place(&m, &b), LD_EINVAL);
    assert_int_equal(m.nbodies, 0);
}

static void test_duplicate_names_in_code(void **state) {
    (void)state;
    /* the sorted index reports the first repeated name and the first earlier holder */
    ld_model m;
    parse_ok("bodies:\n"
             "  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
             "  - {name: b, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
             "  - {name: c, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
             "  - {name: d, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
             "joints:\n"
             "  - {name: j, type: spherical, body2: a, at: [0, 0, 0]}\n"
             "  - {name: k, type: spherical, body2: b, at: [0, 0, 0]}\n"
             "  - {name: l, type: spherical, body2: c, at: [0, 0, 0]}\n",
             &m);
    ld_model_error e;
    strcpy(m.bodies[3].name, "b");
    strcpy(m.bodies[2].name, "b");
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_string_equal(e.msg,
                        "t.yaml:0: bodies[2].name: duplicate body name 'b' (also bodies[1])");
    strcpy(m.bodies[2].name, "c");
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_string_equal(e.msg,
                        "t.yaml:0: bodies[3].name: duplicate body name 'b' (also bodies[1])");
    strcpy(m.bodies[3].name, "d");
    strcpy(m.joints[2].name, "j");
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_string_equal(e.msg,
                        "t.yaml:0: joints[2].name: duplicate joint name 'j' (also joints[0])");
    strcpy(m.joints[2].name, "l");
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    ld_model_free(&m);
}

static void test_source_lines(void **state) {
    (void)state;
    ld_model m;
    parse_ok("bodies:\n"                                                         /* 1 */
             "  - name: a\n"                                                     /* 2 */
             "    mass: 1\n"                                                     /* 3 */
             "    inertia: [1, 1, 1]\n"                                          /* 4 */
             "    position: [0, 0, 0]\n"                                         /* 5 */
             "rods:\n"                                                           /* 6 */
             "  - {name: r, segments: 2, from: [0, 0, 0], to: [1, 0, 0],\n"      /* 7 */
             "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1]}\n" /* 8 */
             "joints:\n"                                                         /* 9 */
             "  - {type: spherical, body2: a, at: [0, 0, 0]}\n"                  /* 10 */
             "loads:\n"                                                          /* 11 */
             "\n"                                                                /* 12 */
             "  - {body: 'r[1]', type: force, value: [1, 0, 0]}\n",              /* 13 */
             &m);
    assert_int_equal(m.bodies[0].line, 2);
    assert_int_equal(m.rods[0].line, 7);
    for (int i = 1; i <= 3; ++i) assert_int_equal(m.bodies[i].line, 7);
    assert_int_equal(m.joints[0].line, 10);
    assert_int_equal(m.loads[0].line, 13);
    ld_model_free(&m);
}

#define BODY_WITH_MASS(v)                                                                          \
    "bodies:\n"                                                                                    \
    "  - name: a\n"                                                                                \
    "    mass: " v "\n"                                                                            \
    "    inertia: [1, 1, 1]\n"                                                                     \
    "    position: [0, 0, 0]\n"

static void test_tags_and_reserved_names(void **state) {
    (void)state;
    const char *s = BODY_WITH_MASS("!!str 15");
    expect_msg(s, strlen(s), LD_EINVAL,
               "t.yaml:3: bodies[0].mass: expected a number, found '15' tagged !!str (not a "
               "number)");
    s = BODY_WITH_MASS("!custom 15");
    expect_msg(s, strlen(s), LD_EINVAL,
               "t.yaml:3: bodies[0].mass: expected a number, found '15' tagged !custom (not a "
               "number)");
    s = "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
        "integrator: {max_iter: !!str 5}\n";
    expect_msg(s, strlen(s), LD_EINVAL,
               "t.yaml:3: integrator.max_iter: expected an integer, found '5' tagged !!str (not "
               "a number)");
    ld_model m;
    parse_ok(BODY_WITH_MASS("!!float 15"), &m);
    assert_true(m.bodies[0].mass == 15.0);
    ld_model_free(&m);
    parse_ok(BODY_WITH_MASS("!!int 15"), &m);
    ld_model_free(&m);
    /* an anchor of a tagged string keeps its tag through an alias */
    s = "name: &n !!str 7\nbodies:\n  - {name: a, mass: *n, inertia: [1, 1, 1], position: [0, 0, "
        "0]}\n";
    expect_msg(s, strlen(s), LD_EINVAL,
               "t.yaml:1: bodies[0].mass: expected a number, found '7' tagged !!str (not a "
               "number)");
    s = "bodies:\n  - {name: ground, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n";
    expect_msg(s, strlen(s), LD_EINVAL,
               "t.yaml:2: bodies[0].name: 'ground' is reserved: joints use it for the fixed "
               "frame");
}

static void test_integrator_name(void **state) {
    (void)state;
    const char *s = "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
                    "integrator:\n  dt: 0.01\n  name: rk9\n";
    expect_msg(s, strlen(s), LD_EINVAL,
               "t.yaml:5: integrator.name: unknown integrator 'rk9' (expected one of: genalpha, "
               "newmark, tb3, tb3-paper, hht, hht-modified, hem1, hem2, hem3, hem4, hem5, "
               "newmark-beta, split2, split4, split6, split8, moreau)");
}

/* Anchors and aliases (yaml_limits.h): nested aliases, cycles, repeated anchors and too many
 * of either are refused by the pre-scan with the line; a few aliases are read as before. */
static void test_alias_limits(void **state) {
    (void)state;
    char *s = malloc(4096);
    assert_non_null(s);
    strcpy(s, "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n"); /* 9^9 nodes at the ninth level */
    for (int i = 1; i < 9; ++i) {
        char *e = s + strlen(s);
        e += sprintf(e, "%c: &%c [", 'a' + i, 'a' + i);
        for (int k = 0; k < 9; ++k) e += sprintf(e, "%s*%c", k ? ", " : "", 'a' + i - 1);
        strcpy(e, "]\n");
    }
    expect_msg(s, strlen(s), LD_EINVAL,
               "t.yaml:7: (document): the aliases stand for more than 1000000 nodes in all "
               "(nested aliases; the limit of a model file)");
    free(s);
    const char *cyc = "name: t\nbodies: &b [{name: x, mass: 1, inertia: [1, 1, 1], shape: *b}]\n";
    expect_msg(cyc, strlen(cyc), LD_EINVAL,
               "t.yaml:2: (document): the alias '*b' is inside the node it names (a cycle)");
    const char *twice = "name: &n t\ndescription: &n d\n";
    expect_msg(twice, strlen(twice), LD_EINVAL,
               "t.yaml:2: (document): the anchor '&n' is given twice");
    size_t cap = 20 * (LD_MODEL_MAX_ANCHORS + 2);
    char *many = malloc(cap), *e = many;
    assert_non_null(many);
    e += sprintf(e, "k: [");
    for (int i = 0; i <= LD_MODEL_MAX_ANCHORS; ++i) e += sprintf(e, "%s&a%d 1", i ? ", " : "", i);
    strcpy(e, "]\n");
    expect_msg(many, strlen(many), LD_EINVAL,
               "t.yaml:1: (document): more than 4096 anchors (the limit of a model file)");
    e = many + sprintf(many, "x: &x 1\nk: [");
    for (int i = 0; i <= LD_MODEL_MAX_ALIASES; ++i) e += sprintf(e, "%s*x", i ? ", " : "");
    strcpy(e, "]\n");
    expect_msg(many, strlen(many), LD_EINVAL,
               "t.yaml:2: (document): more than 4096 aliases (the limit of a model file)");
    free(many);
    ld_model m; /* a few aliases: read as before */
    parse_ok(
        "name: t\nbodies:\n  - {name: a, mass: &m 2, inertia: &j [1, 1, 1], position: [0, 0, 0]}\n"
        "  - {name: b, mass: *m, inertia: *j, position: [1, 0, 0]}\n",
        &m);
    assert_int_equal(m.nbodies, 2);
    assert_true(m.bodies[1].mass == 2.0);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting_limit),    cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_big_rod_names),    cmocka_unit_test(test_duplicate_names_in_code),
        cmocka_unit_test(test_source_lines),     cmocka_unit_test(test_tags_and_reserved_names),
        cmocka_unit_test(test_integrator_name),  cmocka_unit_test(test_alias_limits),
        cmocka_unit_test(test_curved_beam_work), cmocka_unit_test(test_beam_node_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

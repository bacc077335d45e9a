/*
 * The YAML form of force elements (block `elements:`): every type a file can hold parsed into
 * the model with its defaults, and the reader's and validator's messages (FILE:LINE: KEY:
 * REASON) for the elements' keys.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define TWO                                                                                        \
    "bodies:\n"                                                                                    \
    "  - {name: a, mass: 1, inertia: [1, 2, 3], position: [0, 0, 0]}\n"                            \
    "  - {name: b, mass: 2, inertia: [2, 2, 1], position: [1, 0, 0], orientation: [1, 1, 0, "      \
    "0]}\n"                                                                                        \
    "elements:\n"

static void parse_ok(const char *text, ld_model *m) {
    ld_model_error e;
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, strlen(text), "e.yaml", m, &e);
    if (rc != LD_OK) fail_msg("unexpected failure %d: %s\n--- text:\n%s", rc, e.msg, text);
}

static void expect_error(const char *text, int line, const char *key, const char *reason) {
    ld_model m;
    ld_model_error e;
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, strlen(text), "e.yaml", &m, &e);
    char prefix[256];
    snprintf(prefix, sizeof prefix, "e.yaml:%d: %s: ", line, key);
    if (rc != LD_EINVAL || strncmp(e.msg, prefix, strlen(prefix)) != 0 || !strstr(e.msg, reason))
        fail_msg("expected \"%s...%s\", got \"%s\" (rc %d)\n--- text:\n%s", prefix, reason, e.msg,
                 rc, text);
}

static void test_spring_damper(void **state) {
    (void)state;
    ld_model m;
    parse_ok(TWO "  - {name: s1, type: spring-damper, body1: ground, body2: b, k: 100, c: 2,\n"
                 "     at1: [0, 0, 2]}\n"
                 "  - name: s2\n"
                 "    type: spring-damper\n"
                 "    body1: a\n"
                 "    body2: b\n"
                 "    l0: 0.5\n"
                 "    f0: -3\n"
                 "    curve: [[0, -10], [1, 0], [2, 40]]\n",
             &m);
    assert_int_equal(m.nelements, 2);
    const ld_element *e = &m.elements[0];
    assert_string_equal(e->name, "s1");
    assert_int_equal(e->type, ld_element_type_find("spring-damper"));
    assert_int_equal(e->body1, LD_GROUND);
    assert_int_equal(e->body2, 1);
    assert_int_equal(e->line, 5);
    assert_int_equal(e->npar, 10);
    const double want[10] = {0, 0, 2, 1, 0, 0, 100, 2, sqrt(5.0), 0}; /* l0: the start's length */
    for (int i = 0; i < 10; ++i) assert_true(fabs(e->par[i] - want[i]) < 1e-15);
    e = &m.elements[1];
    assert_int_equal(e->body1, 0);
    assert_int_equal(e->npar, 16);
    assert_true(e->par[8] == 0.5 && e->par[9] == -3.0 && e->par[6] == 0.0);
    assert_true(e->par[10] == 0.0 && e->par[11] == -10.0 && e->par[15] == 40.0);
    ld_model_free(&m);
    assert_null(m.elements);
    assert_int_equal(m.nelements, 0);
}

static void test_errors(void **state) {
    (void)state;
    expect_error(TWO "  - {type: spring, body2: b}\n", 5, "elements[0].type",
                 "expected one of spring-damper");
    expect_error(TWO "  - {type: user-force, body2: b}\n", 5, "elements[0].type",
                 "expected one of");
    expect_error(TWO "  - {type: spring-damper, body2: b, axis: [1, 0, 0]}\n", 5,
                 "elements[0].axis", "key not allowed for type 'spring-damper'");
    expect_error(TWO "  - {type: spring-damper, body2: c}\n", 5, "elements[0].body2",
                 "no body named 'c'");
    expect_error(TWO "  - {type: spring-damper}\n", 5, "elements[0].body2",
                 "required key is missing");
    expect_error(TWO "  - {type: spring-damper, body2: ground}\n", 5, "elements[0].body2",
                 "must be a body, not the ground");
    expect_error(TWO "  - {type: spring-damper, body1: b, body2: b}\n", 5, "elements[0].body2",
                 "must differ from body1 (both are 'b')");
    expect_error(TWO "  - {type: spring-damper, body2: b, k: -1}\n", 5, "elements[0].k",
                 "must be finite and >= 0, found -1");
    expect_error(TWO "  - type: spring-damper\n"
                     "    body2: b\n"
                     "    c: -2\n",
                 7, "elements[0].c", "must be finite and >= 0");
    expect_error(TWO "  - {type: spring-damper, body2: b, k: 1, curve: [[0, 0], [1, 1]]}\n", 5,
                 "elements[0].curve", "replaces k");
    expect_error(TWO "  - {type: spring-damper, body2: b, curve: [[0, 0]]}\n", 5,
                 "elements[0].curve", "at least 2 points");
    expect_error(TWO "  - {type: spring-damper, body2: b, curve: [[0, 0], [1]]}\n", 5,
                 "elements[0].curve[1]", "expected a point [length, force], found 1");
    expect_error(TWO "  - type: spring-damper\n"
                     "    body2: b\n"
                     "    curve:\n"
                     "      - [0, 0]\n"
                     "      - [0, 1]\n",
                 9, "elements[0].curve[1]", "lengths must increase strictly");
    expect_error(TWO "  - {type: spring-damper, body1: a, body2: b, at1: [1, 0, 0]}\n", 5,
                 "elements[0].at2", "must differ from at1");
    expect_error(TWO "  - {name: x, type: spring-damper, body2: b}\n"
                     "  - {name: x, type: spring-damper, body2: a}\n",
                 6, "elements[1].name", "duplicate element name 'x' (also elements[0])");
    expect_error(TWO "  - 5\n", 5, "elements[0]", "expected an element");
    expect_error(TWO "  {a: 1}\n", 4, "elements", "expected a list of elements");
}

static void test_rotational_and_bushing(void **state) {
    (void)state;
    ld_model m;
    parse_ok(TWO "  - {type: rotational-spring-damper, body2: a, k: 3, c: 0.5, axis: [0, 0, 2], "
                 "angle0: -0.25}\n"
                 "  - {type: rotational-spring-damper, body1: a, body2: b, k: 1}\n"
                 "  - type: bushing\n"
                 "    body1: a\n"
                 "    body2: b\n"
                 "    at: [0.5, 0, 0]\n"
                 "    orientation: [2, 0, 0, 0]\n"
                 "    stiffness: [1, 2, 3, 4, 5, 6]\n"
                 "  - {type: bushing, body2: b, damping: [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,\n"
                 "     0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]}\n",
             &m);
    assert_int_equal(m.nelements, 4);
    const double *p = m.elements[0].par;
    assert_int_equal(m.elements[0].npar, 6);
    assert_true(p[0] == 3.0 && p[1] == 0.5 && p[2] == 0.0 && p[3] == 0.0 && p[4] == 1.0);
    assert_true(p[5] == -0.25); /* the rest angle */
    p = m.elements[1].par;
    assert_true(p[0] == 1.0 && p[1] == 0.0 && p[2] == 0.0 && p[3] == 0.0 && p[4] == 0.0);
    p = m.elements[2].par;
    assert_int_equal(m.elements[2].npar, 79);
    assert_true(p[0] == 0.5 && p[3] == 1.0 && p[4] == 0.0);
    for (int i = 0; i < 6; ++i) assert_true(p[7 + 7 * i] == i + 1.0 && p[43 + 7 * i] == 0.0);
    p = m.elements[3].par;
    assert_true(p[0] == 1.0 && p[1] == 0.0); /* at: body2's centre */
    for (int i = 0; i < 6; ++i) assert_true(p[43 + 7 * i] == 1.0 && p[7 + 7 * i] == 0.0);
    ld_model_free(&m);
    expect_error(TWO "  - {type: rotational-spring-damper, body2: b, axis: [0, 0, 0]}\n", 5,
                 "elements[0].axis", "must be non-zero");
    expect_error(TWO "  - {type: rotational-spring-damper, body2: b, k: 1, angle0: 0.5}\n", 5,
                 "elements[0].angle0", "a rest angle needs an axis");
    expect_error(TWO "  - {type: rotational-spring-damper, body2: b, axis: [1, 0, 0], angle0: 4}\n",
                 5, "elements[0].angle0", "must lie within (-pi, pi)");
    expect_error(TWO "  - {type: rotational-spring-damper, body2: b, at1: [0, 0, 0]}\n", 5,
                 "elements[0].at1", "key not allowed for type 'rotational-spring-damper'");
    expect_error(TWO "  - {type: rotational-spring-damper, body2: b, k: -3}\n", 5, "elements[0].k",
                 "must be finite and >= 0, found -3");
    expect_error(TWO "  - {type: bushing, body2: b, stiffness: [1, 2, 3]}\n", 5,
                 "elements[0].stiffness", "expected 6 (the diagonal) or 36");
    expect_error(TWO "  - {type: bushing, body2: b, damping: [1, 2, 3, 4, 5, -6]}\n", 5,
                 "elements[0].damping", "its diagonal must be >= 0");
    expect_error(TWO "  - {type: bushing, body2: b, stiffness: [1, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, "
                     "0,\n     0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, "
                     "0, 1]}\n",
                 5, "elements[0].stiffness", "must be symmetric");
    expect_error(TWO "  - {type: bushing, body2: b, orientation: [0, 0, 0, 0]}\n", 5,
                 "elements[0].orientation", "must be non-zero");
}

/* A model built in code with a user force; the validator's messages. */
static int push(double t, const ld_body_motion b[2], double w[12], void *user) {
    (void)t, (void)b, (void)user;
    memset(w, 0, 12 * sizeof(double));
    w[6] = 1.0;
    return LD_OK;
}

static void test_user_force_api(void **state) {
    (void)state;
    ld_model m;
    parse_ok("bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n", &m);
    assert_int_equal(ld_model_add_user_force(&m, "push", LD_GROUND, 0, push, NULL, NULL), LD_OK);
    assert_int_equal(ld_model_add_user_force(&m, NULL, LD_GROUND, 0, push, NULL, NULL), LD_OK);
    assert_int_equal(m.nelements, 2);
    assert_int_equal(m.elements[0].type, ld_element_type_find("user-force"));
    assert_int_equal(ld_model_add_user_force(&m, "x", LD_GROUND, 1, push, NULL, NULL), LD_EINVAL);
    assert_int_equal(ld_model_add_user_force(&m, "x", 0, 0, push, NULL, NULL), LD_EINVAL);
    assert_int_equal(ld_model_add_user_force(&m, "x", LD_GROUND, 0, NULL, NULL, NULL), LD_EINVAL);
    assert_int_equal(ld_model_add_user_force(NULL, "x", LD_GROUND, 0, push, NULL, NULL), LD_EINVAL);
    ld_model_error e;
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    m.elements[1].fn = NULL;
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_non_null(strstr(e.msg, "elements[1].type: a user force needs its callback"));
    m.elements[1].fn = push;
    m.elements[1].type = 99;
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_non_null(strstr(e.msg, "elements[1].type: is not a type of the element registry"));
    ld_model_free(&m);
}

/* The shipped models with elements read, compile and start; the N-four-bar's joints are not
 * redundant; the damped double pendulum loses energy at every step. */
static void test_shipped_models(void **state) {
    (void)state;
    const char *names[] = {"mass-spring", "double-pendulum-damped", "n-four-bar"};
    for (int i = 0; i < 3; ++i) {
        char path[512], msg[512];
        snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, names[i]);
        ld_model m;
        ld_model_error e;
        if (ld_model_load(path, &m, &e) != LD_OK) fail_msg("%s", e.msg);
        assert_true(m.nelements >= 1 || i == 2);
        ld_system s;
        double *q0, *v0;
        if (ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg))
            fail_msg("%s: %s", names[i], msg);
        double *a = calloc((size_t)s.k + (size_t)s.m, sizeof(double));
        assert_non_null(a);
        assert_int_equal(ld_model_diagnose(&s, 0.0, q0, msg, sizeof msg), LD_OK);
        assert_int_equal(ld_sys_initial_accel(&s, 0.0, q0, v0, a, a + s.k), LD_OK);
        if (i == 1) {
            ld_integ_options o;
            ld_integ_options_init(&o);
            int st = 0;
            ld_integ *it = ld_integ_create(&s, &o, &st);
            assert_non_null(it);
            assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
            double e0, e1, start;
            assert_int_equal(s.ops.energy(&s, 0.0, q0, v0, &e0), LD_OK);
            start = e0;
            for (int n = 0; n < 500; ++n) {
                assert_int_equal(ld_integ_step(it, 2e-3), LD_OK);
                assert_int_equal(s.ops.energy(&s, 0.0, ld_integ_q(it), ld_integ_v(it), &e1), LD_OK);
                assert_true(e1 < e0 + 1e-9);
                e0 = e1;
            }
            if (!(e1 < start - 0.01)) fail_msg("energy %.17g after 1 s from %.17g", e1, start);
            ld_integ_free(it);
        }
        free(a);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spring_damper),          cmocka_unit_test(test_errors),
        cmocka_unit_test(test_rotational_and_bushing), cmocka_unit_test(test_user_force_api),
        cmocka_unit_test(test_shipped_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

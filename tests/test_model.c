/*
 * The model data layer and its YAML reader: formulation names, time functions, defaults, the
 * shipped models (spot-checked values), the physical checks of ld_model_validate on
 * programmatic models, and files read from disk. The reader's error classes are in
 * test_model_errors.c. Leaks are caught by the sanitizer build.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

#ifndef LD_SOURCE_DIR
#error "LD_SOURCE_DIR must name the source tree (tests/CMakeLists.txt)"
#endif

/* Source-tree path of a file. */
static const char *src_path(char buf[512], const char *rel) {
    snprintf(buf, 512, "%s/%s", LD_SOURCE_DIR, rel);
    return buf;
}

/* ---------------------------------------------------------------- names, time functions */

static void test_formulation_names(void **state) {
    (void)state;
    const char *names[] = {"so3xr3",         "se3",           "s3xr3", "s3sdr3",
                           "so3xr3-spatial", "s3xr3-spatial", "euler"};
    for (int i = 0; i < LD_FORM_COUNT; ++i) {
        assert_string_equal(ld_formulation_name((ld_formulation)i), names[i]);
        assert_int_equal(ld_formulation_find(names[i]), i);
    }
    assert_int_equal(ld_formulation_find("SE3"), -1);
    assert_int_equal(ld_formulation_find(""), -1);
    assert_int_equal(ld_formulation_find(NULL), -1);
    assert_non_null(ld_formulation_name(LD_FORM_ALL));
    assert_string_equal(ld_formulation_name(LD_FORM_TREE), "tree");
}

static void test_tfn_shapes(void **state) {
    (void)state;
    ld_tfn c = {.kind = LD_TFN_CONSTANT};
    assert_true(ld_tfn_eval(&c, -5.0) == 1.0 && ld_tfn_eval(&c, 1e9) == 1.0);

    ld_tfn r = {.kind = LD_TFN_RAMP, .t0 = 1.0, .t1 = 3.0};
    assert_true(ld_tfn_eval(&r, 0.0) == 0.0);
    assert_true(ld_tfn_eval(&r, 1.0) == 0.0);
    assert_true(ld_tfn_eval(&r, 1.5) == 0.25);
    assert_true(ld_tfn_eval(&r, 2.0) == 0.5);
    assert_true(ld_tfn_eval(&r, 3.0) == 1.0);
    assert_true(ld_tfn_eval(&r, 7.0) == 1.0);

    ld_tfn h = {.kind = LD_TFN_HAT, .t0 = 0.0, .t1 = 2.5, .t2 = 5.0};
    assert_true(ld_tfn_eval(&h, -1.0) == 0.0);
    assert_true(ld_tfn_eval(&h, 0.0) == 0.0);
    assert_true(ld_tfn_eval(&h, 1.25) == 0.5);
    assert_true(ld_tfn_eval(&h, 2.5) == 1.0);
    assert_true(ld_tfn_eval(&h, 3.75) == 0.5);
    assert_true(ld_tfn_eval(&h, 5.0) == 0.0);
    assert_true(ld_tfn_eval(&h, 6.0) == 0.0);
    /* the flying-spaghetti load of Hante's beam code: 200 t/2.5 rising, 200 (5 − t)/2.5 falling */
    assert_true(fabs(200.0 * ld_tfn_eval(&h, 1.0) - 80.0) < 1e-12);
    assert_true(fabs(200.0 * ld_tfn_eval(&h, 4.0) - 80.0) < 1e-12);

    double t[4] = {0.0, 1.0, 3.0, 4.0}, f[4] = {2.0, 4.0, 0.0, -1.0};
    ld_tfn tb = {.kind = LD_TFN_TABLE, .ntab = 4, .tab_t = t, .tab_f = f};
    for (int k = 0; k < 4; ++k) assert_true(ld_tfn_eval(&tb, t[k]) == f[k]); /* knots */
    assert_true(ld_tfn_eval(&tb, -10.0) == 2.0);                             /* before */
    assert_true(ld_tfn_eval(&tb, 10.0) == -1.0);                             /* after */
    assert_true(ld_tfn_eval(&tb, 0.5) == 3.0);
    assert_true(ld_tfn_eval(&tb, 2.0) == 2.0);
    assert_true(ld_tfn_eval(&tb, 2.5) == 1.0);
    assert_true(ld_tfn_eval(&tb, 3.5) == -0.5);
    /* exact at every knot of a random table, also where y_k + (y_{k+1} − y_k)·1 ≠ y_{k+1} */
    rng g = rng_seed(11);
    double rt[50], rf[50];
    rt[0] = rng_range(&g, -1.0, 1.0);
    for (int k = 1; k < 50; ++k) rt[k] = rt[k - 1] + rng_range(&g, 1e-3, 1.0);
    for (int k = 0; k < 50; ++k) rf[k] = rng_range(&g, -10.0, 10.0);
    ld_tfn rnd = {.kind = LD_TFN_TABLE, .ntab = 50, .tab_t = rt, .tab_f = rf};
    for (int k = 0; k < 50; ++k) assert_true(ld_tfn_eval(&rnd, rt[k]) == rf[k]);
    for (int k = 0; k + 1 < 50; ++k) { /* between the knots: between their values */
        double v = ld_tfn_eval(&rnd, 0.5 * (rt[k] + rt[k + 1]));
        assert_true(v >= fmin(rf[k], rf[k + 1]) && v <= fmax(rf[k], rf[k + 1]));
    }
    tb.ntab = 2; /* two points: one segment */
    assert_true(ld_tfn_eval(&tb, 0.25) == 2.5);
    assert_true(ld_tfn_eval(&tb, 1.0) == 4.0 && ld_tfn_eval(&tb, 2.0) == 4.0);
}

/* ld_tfn_eval_d: the new shapes' values, and every shape's derivatives against central
 * differences away from the kinks (from the right at a kink). */
static void test_tfn_derivatives(void **state) {
    (void)state;
    ld_tfn lin = {.kind = LD_TFN_LINEAR, .t0 = 0.5};
    ld_tfn sn = {.kind = LD_TFN_SINE, .t0 = 0.25, .period = 2.0};
    assert_true(ld_tfn_eval(&lin, 2.0) == 1.5 && ld_tfn_eval(&lin, 0.0) == -0.5);
    assert_true(fabs(ld_tfn_eval(&sn, 0.75) - 1.0) < 1e-15);
    assert_true(fabs(ld_tfn_eval(&sn, 1.25)) < 1e-15);
    double t[4] = {0.0, 1.0, 3.0, 4.0}, f[4] = {2.0, 4.0, 0.0, -1.0};
    const ld_tfn fns[] = {{.kind = LD_TFN_CONSTANT},
                          {.kind = LD_TFN_RAMP, .t0 = 1.0, .t1 = 3.0},
                          {.kind = LD_TFN_HAT, .t0 = 0.0, .t1 = 2.5, .t2 = 5.0},
                          {.kind = LD_TFN_TABLE, .ntab = 4, .tab_t = t, .tab_f = f},
                          lin,
                          sn,
                          {.kind = LD_TFN_SPIN_UP, .t0 = 0.5, .t1 = 2.5}};
    for (size_t i = 0; i < sizeof fns / sizeof *fns; ++i)
        for (double x = -1.03; x < 6.0; x += 0.1) {
            double d[3], dp[3], dm[3], h = 1e-5;
            ld_tfn_eval_d(&fns[i], x, d);
            ld_tfn_eval_d(&fns[i], x + h, dp);
            ld_tfn_eval_d(&fns[i], x - h, dm);
            assert_true(d[0] == ld_tfn_eval(&fns[i], x));
            if (fabs((dp[0] - dm[0]) / (2 * h) - d[1]) > 1e-8)
                fail_msg("shape %zu at %g: f' = %g, difference %g", i, x, d[1],
                         (dp[0] - dm[0]) / (2 * h));
            if (fabs((dp[1] - dm[1]) / (2 * h) - d[2]) > 1e-6)
                fail_msg("shape %zu at %g: f'' = %g", i, x, d[2]);
        }
    double d[3];
    ld_tfn r = fns[1];
    ld_tfn_eval_d(&r, 1.0, d); /* from the right at the kinks */
    assert_true(d[0] == 0.0 && d[1] == 0.5 && d[2] == 0.0);
    ld_tfn_eval_d(&r, 3.0, d);
    assert_true(d[0] == 1.0 && d[1] == 0.0);
    ld_tfn_eval_d(&fns[3], 3.0, d);
    assert_true(d[0] == 0.0 && d[1] == -1.0);
    ld_tfn_eval_d(&fns[3], 4.0, d);
    assert_true(d[0] == -1.0 && d[1] == 0.0);
    ld_tfn_eval_d(NULL, 1.0, d);
    assert_true(d[0] == 1.0 && d[1] == 0.0 && d[2] == 0.0);
}

/* ---------------------------------------------------------------- defaults */

static void test_init_defaults(void **state) {
    (void)state;
    ld_model m;
    memset(&m, 0x5A, sizeof m);
    ld_model_init(&m);
    assert_string_equal(m.name, "");
    assert_string_equal(m.source, "");
    assert_true(m.gravity[0] == 0.0 && m.gravity[1] == 0.0 && m.gravity[2] == 0.0);
    assert_int_equal(m.nbodies, 0);
    assert_int_equal(m.njoints, 0);
    assert_int_equal(m.nloads, 0);
    assert_null(m.bodies);
    assert_null(m.joints);
    assert_null(m.loads);
    assert_string_equal(m.run.integrator, "genalpha");
    assert_int_equal(m.run.formulation, LD_FORM_SO3XR3);
    assert_true(m.run.dt == 1e-3 && m.run.t_start == 0.0 && m.run.t_end == 1.0);
    assert_true(ld_run_param_get(&m.run, "rho_inf") == 0.9 && m.run.newton_atol == 1e-10 &&
                m.run.newton_rtol == 1e-8);
    assert_true(ld_run_param_get(&m.run, "alpha") == -0.1);
    assert_int_equal(m.run.max_iter, 20);
    assert_int_equal(m.run.output_every, 0); /* automatic */
    /* a model without bodies is not valid */
    ld_model_error e;
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_string_equal(e.key, "bodies");
    assert_string_equal(e.msg, "<model>:0: bodies: at least one body is required, found 0");
    ld_model_free(&m);
    ld_model_free(&m); /* twice is fine */
    ld_model_free(NULL);
}

#define MINIMAL                                                                                    \
    "bodies:\n"                                                                                    \
    "  - name: a\n"                                                                                \
    "    mass: 2\n"                                                                                \
    "    inertia: [1, 2, 3]\n"                                                                     \
    "    position: [1, 2, 3]\n"

/* Parse text that must be valid. */
static void parse_ok(const char *text, ld_model *m) {
    ld_model_error e;
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, strlen(text), "ok.yaml", m, &e);
    if (rc != LD_OK) fail_msg("unexpected failure %d: %s\n--- text:\n%s", rc, e.msg, text);
    assert_int_equal(ld_model_validate(m, &e), LD_OK);
}

static void test_defaults_applied(void **state) {
    (void)state;
    ld_model m, d;
    ld_model_init(&d);
    parse_ok(MINIMAL, &m);
    assert_string_equal(m.name, "");
    assert_string_equal(m.source, "ok.yaml");
    assert_memory_equal(m.gravity, d.gravity, sizeof d.gravity);
    assert_int_equal(m.nbodies, 1);
    assert_int_equal(m.njoints, 0);
    assert_int_equal(m.nloads, 0);
    const ld_body *b = &m.bodies[0];
    assert_string_equal(b->name, "a");
    assert_true(b->mass == 2.0);
    const double J[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3};
    assert_memory_equal(b->inertia, J, sizeof J);
    assert_true(b->x[0] == 1.0 && b->x[1] == 2.0 && b->x[2] == 3.0);
    assert_true(b->q[0] == 1.0 && b->q[1] == 0.0 && b->q[2] == 0.0 && b->q[3] == 0.0);
    assert_true(b->omega[0] == 0.0 && b->omega[1] == 0.0 && b->omega[2] == 0.0);
    assert_true(b->v[0] == 0.0 && b->v[1] == 0.0 && b->v[2] == 0.0);
    assert_int_equal(b->has_v, 0);
    assert_memory_equal(&m.run, &d.run, sizeof d.run);
    ld_model_free(&m);

    /* empty values of optional keys count as absent */
    parse_ok("name:\ngravity: ~\njoints:\nloads: null\nintegrator:\n" MINIMAL, &m);
    assert_int_equal(m.njoints, 0);
    assert_memory_equal(&m.run, &d.run, sizeof d.run);
    ld_model_free(&m);
    parse_ok("joints: []\nloads: []\nintegrator: {}\n" MINIMAL, &m);
    assert_int_equal(m.nloads, 0);
    ld_model_free(&m);
}

static void test_quaternion_normalized(void **state) {
    (void)state;
    ld_model m;
    parse_ok(MINIMAL "    orientation: [2, 0, 0, 0]\n", &m);
    assert_true(m.bodies[0].q[0] == 1.0 && m.bodies[0].q[3] == 0.0);
    ld_model_free(&m);
    parse_ok(MINIMAL "    orientation: [1, 1, 0, 0]\n", &m);
    assert_true(fabs(m.bodies[0].q[0] - sqrt(0.5)) < 3e-16);
    assert_true(fabs(m.bodies[0].q[1] - sqrt(0.5)) < 3e-16);
    ld_model_free(&m);
    parse_ok(MINIMAL "    orientation: [1e-300, 0, 0, -1e-300]\n", &m); /* tiny but not zero */
    assert_true(fabs(m.bodies[0].q[0] - sqrt(0.5)) < 3e-16);
    assert_true(fabs(m.bodies[0].q[3] + sqrt(0.5)) < 3e-16);
    ld_model_free(&m);
    parse_ok(MINIMAL "    orientation: [1e300, 1e300, 1e300, 1e300]\n", &m); /* no overflow */
    for (int i = 0; i < 4; ++i) assert_true(fabs(m.bodies[0].q[i] - 0.5) < 1e-16);
    ld_model_free(&m);
}

static void test_inertia_forms(void **state) {
    (void)state;
    ld_model m;
    const char *head = "bodies:\n  - name: a\n    mass: 1\n    position: [0, 0, 0]\n";
    char text[512];
    snprintf(text, sizeof text, "%s    inertia: [3, 4, 5, 0.5, -0.25, 0.125]\n", head);
    parse_ok(text, &m);
    const double J6[9] = {3, 0.5, 0.125, 0.5, 4, -0.25, 0.125, -0.25, 5};
    assert_memory_equal(m.bodies[0].inertia, J6, sizeof J6);
    ld_model_free(&m);
    snprintf(text, sizeof text, "%s    inertia: [3, 0.5, 0.125, 0.5, 4, -0.25, 0.125, -0.25, 5]\n",
             head);
    parse_ok(text, &m);
    assert_memory_equal(m.bodies[0].inertia, J6, sizeof J6);
    ld_model_free(&m);
    /* the triangle inequality of principal moments is not required */
    snprintf(text, sizeof text, "%s    inertia: [1, 1, 5]\n", head);
    parse_ok(text, &m);
    ld_model_free(&m);
}

static void test_number_forms(void **state) {
    (void)state;
    ld_model m;
    parse_ok(
        "gravity: [.5, 5., -1E+2]\nintegrator: {dt: +3e-3, t_start: -0, max_iter: +7}\n" MINIMAL,
        &m);
    assert_true(m.gravity[0] == 0.5 && m.gravity[1] == 5.0 && m.gravity[2] == -100.0);
    assert_true(m.run.dt == 3e-3 && m.run.t_start == 0.0);
    assert_int_equal(m.run.max_iter, 7);
    ld_model_free(&m);
}

/* Every feature of the format at once, including anchors and aliases. */
static void test_full_model(void **state) {
    (void)state;
    const char *text =
        "name: everything\n"
        "description: |\n"
        "  two bodies,\n"
        "  every load\n"
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n"
        "  - name: a\n"
        "    mass: 1\n"
        "    inertia: [1, 1, 1]\n"
        "    position: &origin [0, 0, 0]\n"
        "    velocity: [1, 2, 3]\n"
        "  - {name: b, mass: 2, inertia: [2, 2, 2], position: *origin}\n"
        "joints:\n"
        "  - type: spherical\n"
        "    body: b\n"
        "    point: [0, 0, 1]\n"
        "  - {name: j2, type: spherical, body: a, point: [1, 0, 0], ground: [1, 0, 0]}\n"
        "loads:\n"
        "  - {body: b, type: force, value: [1, 2, 3]}\n"
        "  - body: a\n"
        "    type: torque\n"
        "    frame: body\n"
        "    value: [0, 0, 1]\n"
        "    time: {shape: hat, t0: 0, t1: 1, t2: 3}\n"
        "  - body: a\n"
        "    type: force\n"
        "    frame: spatial\n"
        "    value: [1, 0, 0]\n"
        "    time:\n"
        "      shape: table\n"
        "      t: [0, 1, 2]\n"
        "      f: [0, 10, -10]\n"
        "  - {body: a, type: torque, value: [0, 1, 0], time: {shape: ramp, t0: 1, "
        "t1: 2}}\n"
        "  - {body: b, type: exact_torque, case: ii}\n"
        "  - {body: b, type: force, value: [0, 0, 1], time: {shape: constant}}\n"
        "integrator:\n"
        "  name: hht\n"
        "  formulation: s3sdr3\n"
        "  dt: 0.25\n"
        "  t_start: 1\n"
        "  t_end: 3\n"
        "  rho_inf: 0\n"
        "  alpha: -0.2\n"
        "  newton_atol: 1e-12\n"
        "  newton_rtol: 1e-6\n"
        "  max_iter: 5\n"
        "  output_every: 10\n";
    ld_model m;
    parse_ok(text, &m);
    assert_string_equal(m.name, "everything");
    assert_true(m.gravity[2] == -9.81);
    assert_int_equal(m.nbodies, 2);
    assert_int_equal(m.bodies[0].has_v, 1);
    assert_true(m.bodies[0].v[2] == 3.0);
    assert_string_equal(m.bodies[1].name, "b");
    assert_true(m.bodies[1].mass == 2.0 && m.bodies[1].inertia[8] == 2.0);
    assert_true(ld_run_param_get(&m.run, "alpha") == -0.2 &&
                ld_run_param_get(&m.run, "rho_inf") == 0.0);
    assert_int_equal(m.njoints, 2);
    assert_string_equal(m.joints[0].name, "");
    assert_int_equal(m.joints[0].kind, LD_JOINT_SPHERICAL);
    assert_int_equal(m.joints[0].point_form, 1);
    assert_int_equal(m.joints[0].body1, LD_GROUND);
    assert_int_equal(m.joints[0].body2, 1);
    assert_true(m.joints[0].p[2] == 1.0 && m.joints[0].xg[0] == 0.0);
    assert_string_equal(m.joints[1].name, "j2");
    assert_int_equal(m.joints[1].body2, 0);
    assert_true(m.joints[1].xg[0] == 1.0);
    assert_int_equal(m.nloads, 6);
    const ld_load *l = m.loads;
    assert_int_equal(l[0].kind, LD_LOAD_FORCE);
    assert_int_equal(l[0].body, 1);
    assert_int_equal(l[0].frame, LD_IN_SPATIAL);
    assert_int_equal(l[0].fn.kind, LD_TFN_CONSTANT);
    assert_true(l[0].vec[1] == 2.0);
    assert_int_equal(l[1].kind, LD_LOAD_TORQUE);
    assert_int_equal(l[1].frame, LD_IN_BODY);
    assert_int_equal(l[1].fn.kind, LD_TFN_HAT);
    assert_true(l[1].fn.t0 == 0.0 && l[1].fn.t1 == 1.0 && l[1].fn.t2 == 3.0);
    assert_true(ld_tfn_eval(&l[1].fn, 2.0) == 0.5);
    assert_int_equal(l[2].fn.kind, LD_TFN_TABLE);
    assert_int_equal(l[2].fn.ntab, 3);
    assert_true(ld_tfn_eval(&l[2].fn, 1.5) == 0.0 && ld_tfn_eval(&l[2].fn, 9.0) == -10.0);
    assert_int_equal(l[3].fn.kind, LD_TFN_RAMP);
    assert_true(ld_tfn_eval(&l[3].fn, 1.5) == 0.5);
    assert_int_equal(l[4].kind, LD_LOAD_EXACT_TORQUE);
    assert_int_equal(l[4].exact, LD_EXACT_II);
    assert_int_equal(l[4].body, 1);
    assert_int_equal(l[5].fn.kind, LD_TFN_CONSTANT);
    assert_int_equal(l[0].exact, LD_EXACT_NONE);
    assert_string_equal(m.run.integrator, "hht");
    assert_int_equal(m.run.formulation, LD_FORM_S3SDR3);
    assert_true(m.run.dt == 0.25 && m.run.t_start == 1.0 && m.run.t_end == 3.0);
    assert_true(ld_run_param_get(&m.run, "rho_inf") == 0.0 && m.run.newton_atol == 1e-12 &&
                m.run.newton_rtol == 1e-6);
    assert_int_equal(m.run.max_iter, 5);
    assert_int_equal(m.run.output_every, 10);
    ld_model_free(&m);

    for (int i = 0; i < LD_FORM_COUNT; ++i) { /* every formulation by name */
        char t[256];
        snprintf(t, sizeof t, "integrator: {formulation: %s}\n" MINIMAL,
                 ld_formulation_name((ld_formulation)i));
        parse_ok(t, &m);
        assert_int_equal(m.run.formulation, i);
        ld_model_free(&m);
    }
    /* exact_torque case i; a 63-character name is the longest */
    parse_ok("loads: [{body: a23456789012345678901234567890123456789012345678901234567890123, "
             "type: exact_torque, case: i}]\n"
             "bodies:\n"
             "  - name: a23456789012345678901234567890123456789012345678901234567890123\n"
             "    mass: 1\n    inertia: [1, 1, 1]\n    position: [0, 0, 0]\n",
             &m);
    assert_int_equal(m.loads[0].exact, LD_EXACT_I);
    assert_int_equal((int)strlen(m.bodies[0].name), 63);
    ld_model_free(&m);
}

/* Only len bytes are read; the rest may be anything. */
static void test_parse_length(void **state) {
    (void)state;
    const char *text = MINIMAL "garbage: [";
    ld_model m;
    ld_model_error e;
    assert_int_equal(ld_model_parse(text, strlen(MINIMAL), NULL, &m, &e), LD_OK);
    assert_string_equal(m.source, "<string>");
    ld_model_free(&m);
    assert_int_equal(ld_model_parse(text, strlen(text), NULL, &m, NULL), LD_EINVAL); /* err NULL */
    assert_int_equal(ld_model_parse(NULL, 0, "x", &m, &e), LD_EINVAL);               /* empty */
    assert_string_equal(e.key, "(document)");
    assert_int_equal(ld_model_parse(NULL, 5, "x", &m, &e), LD_EINVAL);
    assert_int_equal(ld_model_parse(text, 5, "x", NULL, &e), LD_EINVAL);
}

/* ---------------------------------------------------------------- shipped models */

static void load_shipped(const char *rel, ld_model *m) {
    char path[512];
    ld_model_error e;
    int rc = ld_model_load(src_path(path, rel), m, &e);
    if (rc != LD_OK) fail_msg("%s: %s", rel, e.msg);
    assert_int_equal(ld_model_validate(m, &e), LD_OK);
    assert_string_equal(m->source, path);
}

static void test_heavy_top(void **state) {
    (void)state;
    ld_model m;
    load_shipped("models/heavy-top.yaml", &m);
    assert_string_equal(m.name, "heavy-top");
    assert_true(m.gravity[0] == 0.0 && m.gravity[1] == 0.0 && m.gravity[2] == -9.81);
    assert_int_equal(m.nbodies, 1);
    const ld_body *b = &m.bodies[0];
    assert_string_equal(b->name, "top");
    assert_true(b->mass == 15.0);
    const double J[9] = {0.234375, 0, 0, 0, 0.46875, 0, 0, 0, 0.234375};
    assert_memory_equal(b->inertia, J, sizeof J);
    assert_true(b->x[0] == 0.0 && b->x[1] == 1.0 && b->x[2] == 0.0);
    assert_true(b->q[0] == 1.0 && b->q[1] == 0.0 && b->q[2] == 0.0 && b->q[3] == 0.0);
    assert_true(b->omega[0] == 0.0 && b->omega[1] == 150.0 && b->omega[2] == -4.61538);
    assert_int_equal(b->has_v, 0);
    assert_int_equal(m.njoints, 1);
    assert_string_equal(m.joints[0].name, "pivot");
    assert_int_equal(m.joints[0].kind, LD_JOINT_SPHERICAL);
    assert_int_equal(m.joints[0].point_form, 1);
    assert_int_equal(m.joints[0].body1, LD_GROUND);
    assert_int_equal(m.joints[0].body2, 0);
    assert_true(m.joints[0].p[0] == 0.0 && m.joints[0].p[1] == -1.0 && m.joints[0].p[2] == 0.0);
    assert_true(m.joints[0].xg[0] == 0.0 && m.joints[0].xg[1] == 0.0 && m.joints[0].xg[2] == 0.0);
    for (int i = 0; i < 3; ++i) /* the joint is closed at t = 0 (R = I): x + p − xg = 0 */
        assert_true(b->x[i] + m.joints[0].p[i] - m.joints[0].xg[i] == 0.0);
    assert_int_equal(m.nloads, 0);
    assert_string_equal(m.run.integrator, "genalpha");
    assert_int_equal(m.run.formulation, LD_FORM_SO3XR3);
    assert_true(m.run.dt == 1e-3 && m.run.t_start == 0.0 && m.run.t_end == 2.0);
    assert_true(ld_run_param_get(&m.run, "rho_inf") == 0.9);
    ld_model_free(&m);
}

static void test_free_top(void **state) {
    (void)state;
    ld_model m;
    load_shipped("models/free-top.yaml", &m);
    assert_string_equal(m.name, "free-top");
    assert_true(m.gravity[2] == 0.0);
    assert_int_equal(m.nbodies, 1);
    assert_int_equal(m.njoints, 0);
    assert_int_equal(m.nloads, 0);
    const ld_body *b = &m.bodies[0];
    assert_true(b->mass == 1.0);
    assert_true(b->inertia[0] == 1.0 && b->inertia[4] == 2.0 && b->inertia[8] == 3.0);
    assert_true(b->omega[0] == 0.2 && b->omega[1] == 5.0 && b->omega[2] == 0.3);
    assert_string_equal(m.run.integrator, "newmark");
    assert_true(m.run.dt == 1e-2 && m.run.t_end == 10.0);
    ld_model_free(&m);
}

/* q(ϑ) = exp_S³(ϑ); Ω = 2 vec(q* q̇) by a fourth-order central difference. */
static void exact_initial(int which, double q[4], double w[3]) {
    double h = 1e-4, qs[4][4], qd[4], qc[4], p[4];
    const double ts[4] = {-2 * h, -h, h, 2 * h};
    for (int k = 0; k < 5; ++k) {
        double t = k < 4 ? ts[k] : 0.0, th[3];
        if (which == 1) {
            th[0] = t * t, th[1] = 0.0, th[2] = t / 5.0;
        } else {
            th[0] = t + sin(t), th[1] = 0.0, th[2] = cos(t);
        }
        ld_quat_from_rotvec(k < 4 ? qs[k] : q, th);
    }
    for (int i = 0; i < 4; ++i)
        qd[i] = (8.0 * (qs[2][i] - qs[1][i]) - (qs[3][i] - qs[0][i])) / (12.0 * h);
    ld_quat_conj(qc, q);
    ld_quat_mul(p, qc, qd);
    for (int i = 0; i < 3; ++i) w[i] = 2.0 * p[i + 1];
}

static void test_torque_bodies(void **state) {
    (void)state;
    const char *files[2] = {"models/torque-body-i.yaml", "models/torque-body-ii.yaml"};
    for (int c = 1; c <= 2; ++c) {
        ld_model m;
        load_shipped(files[c - 1], &m);
        assert_int_equal(m.nbodies, 1);
        const ld_body *b = &m.bodies[0];
        const double J[9] = {5, 0, 0, 0, 5, 0, 0, 0, 1};
        assert_memory_equal(b->inertia, J, sizeof J);
        assert_true(b->mass == 1.0);
        assert_int_equal(m.njoints, 0);
        assert_int_equal(m.nloads, 1);
        assert_int_equal(m.loads[0].kind, LD_LOAD_EXACT_TORQUE);
        assert_int_equal(m.loads[0].exact, c == 1 ? LD_EXACT_I : LD_EXACT_II);
        double q[4], w[3];
        exact_initial(c, q, w);
        for (int i = 0; i < 4; ++i) assert_true(fabs(b->q[i] - q[i]) < 1e-15);
        for (int i = 0; i < 3; ++i) assert_true(fabs(b->omega[i] - w[i]) < 1e-9);
        assert_string_equal(m.run.integrator, "newmark");
        assert_true(m.run.dt == 0.05);
        assert_true(m.run.t_end == 5.0 * PI);
        ld_model_free(&m);
    }
}

/* ---------------------------------------------------------------- files */

static void expect_file_error(const char *rel, int rc_want, int line, const char *key,
                              const char *reason) {
    char path[512], prefix[600];
    ld_model m, before;
    ld_model_error e;
    memset(&m, 0x33, sizeof m);
    memcpy(&before, &m, sizeof m);
    memset(&e, 0, sizeof e);
    int rc = ld_model_load(src_path(path, rel), &m, &e);
    snprintf(prefix, sizeof prefix, "%s:%d: %s: ", path, line, key);
    if (rc != rc_want || e.line != line || strcmp(e.key, key) != 0 || strcmp(e.file, path) ||
        strncmp(e.msg, prefix, strlen(prefix)) != 0 || !strstr(e.msg, reason))
        fail_msg("expected \"%s...%s\" (rc %d), got \"%s\" (rc %d)", prefix, reason, rc_want, e.msg,
                 rc);
    assert_memory_equal(&m, &before, sizeof m);
}

static void test_files(void **state) {
    (void)state;
    expect_file_error("tests/data/models/syntax-error.yaml", LD_EINVAL, 9, "(syntax)",
                      "did not find expected ',' or ']' (while parsing a flow sequence at line 8)");
    expect_file_error("tests/data/models/unknown-key.yaml", LD_EINVAL, 17, "loads[0].time.tau",
                      "unknown key (expected one of: shape, t0, t1, t2, t, f, period)");
    expect_file_error("tests/data/models/negative-mass.yaml", LD_EINVAL, 13, "bodies[1].mass",
                      "must be positive and finite, found -2.5");
    expect_file_error("tests/data/models/no-such-file.yaml", LD_EIO, 0, "(file)",
                      "cannot open: No such file or directory");
    expect_file_error("tests/data/models", LD_EIO, 0, "(file)", "Is a directory");
    ld_model m;
    assert_int_equal(ld_model_load(NULL, &m, NULL), LD_EINVAL);
    char path[512];
    assert_int_equal(ld_model_load(src_path(path, "models/heavy-top.yaml"), NULL, NULL), LD_EINVAL);
}

/* ---------------------------------------------------------------- programmatic models */

/* One valid body, one joint, one load with a table, built in code (arrays on the heap). */
static void build(ld_model *m) {
    ld_model_init(m);
    m->nbodies = m->njoints = m->nloads = 1;
    m->bodies = calloc(1, sizeof *m->bodies);
    m->joints = calloc(1, sizeof *m->joints);
    m->loads = calloc(1, sizeof *m->loads);
    assert_true(m->bodies && m->joints && m->loads);
    strcpy(m->bodies[0].name, "b");
    m->bodies[0].mass = 1.0;
    m->bodies[0].inertia[0] = m->bodies[0].inertia[4] = m->bodies[0].inertia[8] = 1.0;
    m->bodies[0].q[0] = 1.0;
    m->joints[0].point_form = 1;
    m->joints[0].body1 = LD_GROUND;
    m->joints[0].body2 = 0;
    m->loads[0].kind = LD_LOAD_TORQUE;
    m->loads[0].fn.kind = LD_TFN_TABLE;
    m->loads[0].fn.ntab = 2;
    m->loads[0].fn.tab_t = calloc(2, sizeof(double));
    m->loads[0].fn.tab_f = calloc(2, sizeof(double));
    assert_true(m->loads[0].fn.tab_t && m->loads[0].fn.tab_f);
    m->loads[0].fn.tab_t[1] = 1.0;
}

static void expect_invalid(ld_model *m, const char *msg_start) {
    ld_model_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(ld_model_validate(m, &e), LD_EINVAL);
    if (strncmp(e.msg, msg_start, strlen(msg_start)) != 0)
        fail_msg("expected \"%s...\", got \"%s\"", msg_start, e.msg);
    assert_int_equal(e.line, 0);
    ld_model_free(m);
    build(m);
}

static void test_validate_programmatic(void **state) {
    (void)state;
    ld_model m;
    ld_model_error e;
    build(&m);
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    assert_int_equal(ld_model_validate(&m, NULL), LD_OK);
    assert_int_equal(ld_model_validate(NULL, NULL), LD_EINVAL);

    m.bodies[0].mass = NAN;
    expect_invalid(&m, "<model>:0: bodies[0].mass: must be positive and finite, found nan");
    strcpy(m.source, "prog");
    m.bodies[0].mass = -1.0;
    expect_invalid(&m, "prog:0: bodies[0].mass: must be positive");
    m.bodies[0].name[0] = '\0';
    expect_invalid(&m, "<model>:0: bodies[0].name: must not be empty");
    memset(m.bodies[0].name, 'x', LD_NAME_MAX);
    expect_invalid(&m, "<model>:0: bodies[0].name: is not terminated within 64 characters");
    m.bodies[0].inertia[1] = 1e-3; /* relative asymmetry 1e-3 */
    expect_invalid(&m, "<model>:0: bodies[0].inertia: must be symmetric");
    m.bodies[0].inertia[1] = 1e-13; /* within 1e-12 of the largest entry: symmetric enough */
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    m.bodies[0].inertia[4] = 0.0;
    expect_invalid(&m, "<model>:0: bodies[0].inertia: must be positive definite");
    m.bodies[0].inertia[8] = INFINITY;
    expect_invalid(&m, "<model>:0: bodies[0].inertia: element 9 is inf; every number must be "
                       "finite");
    m.bodies[0].x[1] = NAN;
    expect_invalid(&m, "<model>:0: bodies[0].position: element 2 is nan");
    m.bodies[0].q[0] = 2.0;
    expect_invalid(&m, "<model>:0: bodies[0].orientation: must be a unit quaternion, but its "
                       "norm is 2");
    m.bodies[0].q[0] = 1.0 + 1e-6;
    expect_invalid(&m, "<model>:0: bodies[0].orientation: must be a unit quaternion, but its "
                       "norm is 1.000001");
    m.bodies[0].q[0] = 1.0 + 1e-13; /* unit to 1e-10 */
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    m.bodies[0].q[0] = 0.0;
    expect_invalid(&m, "<model>:0: bodies[0].orientation: must be non-zero");
    m.bodies[0].omega[2] = INFINITY;
    expect_invalid(&m, "<model>:0: bodies[0].angular_velocity: element 3 is inf");
    m.bodies[0].v[0] = NAN;
    expect_invalid(&m, "<model>:0: bodies[0].velocity: element 1 is nan");
    m.gravity[2] = NAN;
    expect_invalid(&m, "<model>:0: gravity: element 3 is nan");
    m.joints[0].body = 1;
    expect_invalid(&m, "<model>:0: joints[0].body: body index 1 is out of range (the model has "
                       "1 bodies)");
    m.joints[0].kind = (ld_joint_kind)9;
    expect_invalid(&m, "<model>:0: joints[0].type: unknown joint kind 9");
    m.joints[0].kind = LD_JOINT_REVOLUTE;
    expect_invalid(&m, "<model>:0: joints[0].type: the point form (body, point, ground) is for "
                       "spherical joints only");
    m.joints[0].body1 = 0;
    expect_invalid(&m, "<model>:0: joints[0].body: the point form holds a body to the ground, but "
                       "body1 is 0");
    m.joints[0].p[0] = NAN;
    expect_invalid(&m, "<model>:0: joints[0].point: element 1 is nan");
    m.joints[0].xg[0] = NAN;
    expect_invalid(&m, "<model>:0: joints[0].ground: element 1 is nan");
    m.loads[0].body = -1;
    expect_invalid(&m, "<model>:0: loads[0].body: body index -1 is out of range");
    m.loads[0].kind = (ld_load_kind)9;
    expect_invalid(&m, "<model>:0: loads[0].type: unknown load kind 9");
    m.loads[0].frame = (ld_frame_kind)2;
    expect_invalid(&m, "<model>:0: loads[0].frame: unknown frame 2");
    m.loads[0].vec[0] = NAN;
    expect_invalid(&m, "<model>:0: loads[0].value: element 1 is nan");
    m.loads[0].kind = LD_LOAD_EXACT_TORQUE;
    expect_invalid(&m, "<model>:0: loads[0].case: an exact_torque load needs case i or ii");
    m.loads[0].fn.ntab = 1;
    expect_invalid(&m, "<model>:0: loads[0].time.t: a table needs at least 2 points, found 1");
    m.loads[0].fn.tab_f[1] = NAN;
    expect_invalid(&m, "<model>:0: loads[0].time.f[1]: must be finite, found nan");
    m.loads[0].fn.tab_t[1] = 0.0;
    expect_invalid(&m, "<model>:0: loads[0].time.t[1]: times must increase strictly");
    m.loads[0].fn.kind = (ld_tfn_kind)7;
    expect_invalid(&m, "<model>:0: loads[0].time.shape: unknown time-function kind 7");
    m.loads[0].fn.kind = LD_TFN_RAMP;
    m.loads[0].fn.t0 = NAN;
    expect_invalid(&m, "<model>:0: loads[0].time.t0: must be finite, found nan");
    m.run.formulation = LD_FORM_ALL;
    expect_invalid(&m, "<model>:0: integrator.formulation: unknown formulation 8");
    m.run.integrator[0] = '\0';
    expect_invalid(&m, "<model>:0: integrator.name: must not be empty");
    m.run.t_start = NAN;
    expect_invalid(&m, "<model>:0: integrator.t_start: must be finite, found nan");
    m.run.t_end = INFINITY;
    expect_invalid(&m, "<model>:0: integrator.t_end: must be finite and greater than t_start");
    m.run.dt = INFINITY;
    expect_invalid(&m, "<model>:0: integrator.dt: must be positive and finite, found inf");
    assert_int_equal(ld_run_param_set(&m.run, "rho_inf", NAN), LD_OK);
    expect_invalid(&m, "<model>:0: integrator.rho_inf: must be in [0, 1], found nan");
    assert_int_equal(ld_run_param_set(&m.run, "alpha", 0.1), LD_OK);
    expect_invalid(&m, "<model>:0: integrator.alpha: must be in [-1/3, 0], found 0.1");
    assert_int_equal(ld_run_param_set(&m.run, "alpha", 0.2), LD_OK);
    assert_int_equal(ld_run_param_set(&m.run, "--alpha", -0.34), LD_OK); /* by its option */
    assert_int_equal(m.run.nparams, 1);                                  /* replaced */
    assert_true(ld_run_param_get(&m.run, "alpha") == -0.34);
    expect_invalid(&m, "<model>:0: integrator.alpha: must be in [-1/3, 0], found -0.34");
    assert_int_equal(ld_run_param_set(&m.run, "alpha", -1.0 / 3.0), LD_OK);
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    assert_int_equal(ld_run_param_set(&m.run, "no-such-key", 1.0), LD_EINVAL);
    assert_true(isnan(ld_run_param_get(&m.run, "no-such-key")));
    strcpy(m.run.params[0].key, "beta_x"); /* a key no method has, e.g. from an older build */
    expect_invalid(&m, "<model>:0: integrator.beta_x: no integrator has this parameter");
    m.njoints = 2;
    free(m.joints);
    m.joints = NULL;
    expect_invalid(&m, "<model>:0: joints: count 2 does not match the array");
    ld_model_free(&m);

    /* an exact_torque load ignores value and time, not its frame */
    build(&m);
    m.loads[0].kind = LD_LOAD_EXACT_TORQUE;
    m.loads[0].exact = LD_EXACT_II;
    m.loads[0].fn.ntab = 0;
    m.loads[0].vec[0] = NAN;
    m.loads[0].frame = LD_IN_BODY;
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    m.loads[0].frame = (ld_frame_kind)5;
    expect_invalid(&m, "<model>:0: loads[0].frame: unknown frame 5");
    ld_model_free(&m);
}

/* Joints between two bodies built in code: every physical check of the general form. */
static void build_two(ld_model *m, ld_joint_kind kind) {
    build(m);
    ld_body *b = realloc(m->bodies, 2 * sizeof *b);
    assert_non_null(b);
    m->bodies = b;
    m->nbodies = 2;
    b[1] = b[0];
    strcpy(b[1].name, "c");
    ld_joint *j = m->joints;
    j->point_form = 0;
    j->kind = kind;
    j->body1 = LD_GROUND;
    j->body2 = 1;
    j->axis[2] = 1.0;
    j->axis2[0] = 1.0;
    j->value = 2.0;
    j->fn.kind = LD_TFN_LINEAR;
}

static void expect_joint_invalid(ld_model *m, ld_joint_kind kind, const char *msg_start) {
    ld_model_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(ld_model_validate(m, &e), LD_EINVAL);
    if (strncmp(e.msg, msg_start, strlen(msg_start)) != 0)
        fail_msg("expected \"%s...\", got \"%s\"", msg_start, e.msg);
    ld_model_free(m);
    build_two(m, kind);
}

static void test_validate_joints(void **state) {
    (void)state;
    ld_model m;
    ld_model_error e;
    for (int k = 0; k < LD_JOINT_KIND_COUNT; ++k) {
        build_two(&m, (ld_joint_kind)k);
        if (ld_model_validate(&m, &e) != LD_OK) fail_msg("%s: %s", ld_joint_kind_name(k), e.msg);
        ld_model_free(&m);
    }
    assert_string_equal(ld_joint_kind_name(LD_JOINT_CYLINDRICAL), "cylindrical");
    assert_string_equal(ld_joint_kind_name(LD_JOINT_KIND_COUNT), "?");
    assert_int_equal(ld_joint_kind_rows(LD_JOINT_FIXED), 6);
    assert_int_equal(ld_joint_kind_rows(LD_JOINT_KIND_COUNT), 0);
    build_two(&m, LD_JOINT_REVOLUTE);
    m.joints[0].body2 = LD_GROUND;
    expect_joint_invalid(&m, LD_JOINT_REVOLUTE,
                         "<model>:0: joints[0].body2: must be a body, not the ground");
    m.joints[0].body2 = 2;
    expect_joint_invalid(&m, LD_JOINT_REVOLUTE,
                         "<model>:0: joints[0].body2: body index 2 is out of range");
    m.joints[0].body1 = 1;
    expect_joint_invalid(&m, LD_JOINT_REVOLUTE,
                         "<model>:0: joints[0].body2: must differ from body1 (both are 'c')");
    m.joints[0].body1 = -2;
    expect_joint_invalid(&m, LD_JOINT_REVOLUTE, "<model>:0: joints[0].body1: body index -2");
    m.joints[0].at[1] = INFINITY;
    expect_joint_invalid(&m, LD_JOINT_REVOLUTE, "<model>:0: joints[0].at: element 2 is inf");
    m.joints[0].axis[2] = 2.0;
    expect_joint_invalid(&m, LD_JOINT_REVOLUTE,
                         "<model>:0: joints[0].axis: must be a unit vector, but its norm is 2");
    m.joints[0].axis[2] = 0.0;
    expect_joint_invalid(&m, LD_JOINT_REVOLUTE,
                         "<model>:0: joints[0].axis: must be a unit vector, but its norm is 0");
    ld_model_free(&m);
    build_two(&m, LD_JOINT_FIXED); /* no axis needed */
    m.joints[0].axis[2] = 0.0;
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    ld_model_free(&m);
    build_two(&m, LD_JOINT_UNIVERSAL);
    m.joints[0].axis2[2] = 1e-8;
    m.joints[0].axis2[0] = sqrt(1.0 - 1e-16);
    expect_joint_invalid(&m, LD_JOINT_UNIVERSAL,
                         "<model>:0: joints[0].axis2: must be perpendicular to axis, but axis · "
                         "axis2 = 1e-08");
    m.joints[0].axis2[0] = NAN;
    expect_joint_invalid(&m, LD_JOINT_UNIVERSAL, "<model>:0: joints[0].axis2: element 1 is nan");
    ld_model_free(&m);
    build_two(&m, LD_JOINT_DRIVER);
    m.joints[0].motion = (ld_motion_kind)2;
    expect_joint_invalid(&m, LD_JOINT_DRIVER, "<model>:0: joints[0].motion: unknown motion 2");
    m.joints[0].value = NAN;
    expect_joint_invalid(&m, LD_JOINT_DRIVER, "<model>:0: joints[0].value: must be finite");
    m.joints[0].fn.kind = LD_TFN_SINE;
    expect_joint_invalid(&m, LD_JOINT_DRIVER,
                         "<model>:0: joints[0].time.period: must be positive and finite, found 0");
    m.joints[0].fn.t0 = NAN;
    expect_joint_invalid(&m, LD_JOINT_DRIVER, "<model>:0: joints[0].time.t0: must be finite");
    m.joints[0].fn.kind = (ld_tfn_kind)8;
    expect_joint_invalid(&m, LD_JOINT_DRIVER,
                         "<model>:0: joints[0].time.shape: unknown time-function kind 8");
    ld_model_free(&m);
}

/* A loaded model validates with file and line 0. */
static void test_validate_loaded(void **state) {
    (void)state;
    ld_model m;
    parse_ok(MINIMAL, &m);
    m.bodies[0].mass = 0.0;
    ld_model_error e;
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_string_equal(e.msg, "ok.yaml:0: bodies[0].mass: must be positive and finite, found 0");
    assert_string_equal(e.file, "ok.yaml");
    ld_model_free(&m);
}

/* shape: one mapping or a list; the values as written, the axis normalized, defaults
 * (centre 0, axis z, colour unset); a shape changes nothing else of the body; the validator
 * refuses what the reader refuses. */
static void test_shapes(void **state) {
    (void)state;
    ld_model m, plain;
    parse_ok(MINIMAL "    shape:\n"
                     "      - {type: cone, radius: 0.3, length: 1.2, axis: [0, -2, 0],\n"
                     "         center: [0, -0.5, 0], color: [1, 0.5, 0]}\n"
                     "      - {type: box, size: [1, 2, 3]}\n"
                     "  - {name: b, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0],\n"
                     "     shape: {type: capsule, radius: 0.1, length: 0}}\n",
             &m);
    parse_ok(MINIMAL, &plain);
    assert_int_equal(m.nshapes, 3);
    const ld_shape *c = &m.shapes[0], *b = &m.shapes[1], *p = &m.shapes[2];
    assert_int_equal(c->body, 0);
    assert_int_equal(c->kind, LD_SHAPE_CONE);
    assert_true(c->size[0] == 0.3 && c->size[1] == 1.2);
    assert_true(c->axis[0] == 0.0 && c->axis[1] == -1.0 && c->axis[2] == 0.0);
    assert_true(c->center[1] == -0.5 && c->color[0] == 1.0 && c->color[1] == 0.5);
    assert_int_equal(b->kind, LD_SHAPE_BOX);
    assert_true(b->size[0] == 1.0 && b->size[1] == 2.0 && b->size[2] == 3.0);
    assert_true(b->axis[2] == 1.0 && b->center[0] == 0.0 && b->color[0] == -1.0);
    assert_int_equal(p->body, 1);
    assert_int_equal(p->kind, LD_SHAPE_CAPSULE);
    assert_true(p->size[1] == 0.0);
    assert_memory_equal(&m.bodies[0], &plain.bodies[0], sizeof plain.bodies[0]);
    assert_string_equal(ld_shape_kind_name(LD_SHAPE_CAPSULE), "capsule");
    assert_int_equal(ld_shape_kind_find("cone"), LD_SHAPE_CONE);
    assert_int_equal(ld_shape_kind_find("torus"), -1);
    ld_model_error e;
    m.shapes[1].size[2] = 0.0; /* programmatic: the validator's own check */
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_string_equal(e.key, "shapes[1].size");
    m.shapes[1].size[2] = 3.0;
    m.shapes[0].axis[1] = -0.5;
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_string_equal(e.key, "shapes[0].axis");
    m.shapes[0].axis[1] = -1.0;
    m.shapes[2].body = 2;
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_string_equal(e.key, "shapes[2].body");
    m.shapes[2].body = 1;
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    ld_model_free(&m);
    ld_model_free(&plain);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_formulation_names),
        cmocka_unit_test(test_tfn_shapes),
        cmocka_unit_test(test_tfn_derivatives),
        cmocka_unit_test(test_init_defaults),
        cmocka_unit_test(test_defaults_applied),
        cmocka_unit_test(test_quaternion_normalized),
        cmocka_unit_test(test_inertia_forms),
        cmocka_unit_test(test_number_forms),
        cmocka_unit_test(test_full_model),
        cmocka_unit_test(test_parse_length),
        cmocka_unit_test(test_heavy_top),
        cmocka_unit_test(test_free_top),
        cmocka_unit_test(test_torque_bodies),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_validate_programmatic),
        cmocka_unit_test(test_validate_joints),
        cmocka_unit_test(test_validate_loaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

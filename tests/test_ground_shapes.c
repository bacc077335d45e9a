/*
 * Shapes fixed to the ground (`ground_shapes:`, docs/contact.md): read and checked as a body's
 * shapes are (errors name the item, the key and the line), found by the detector with the
 * ground as the second body, and hard walls for moreau — a ball thrown at a frictionless wall
 * comes back with −e times its normal velocity (Newton's law, exact for one contact), lands on
 * a floor box and rests on it; a ball rattling in a closed box of five ground boxes never
 * leaves it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "moreau_run.h"

#include "../src/elements/contact.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"

#include "../src/io/view.h"

static int parse(const char *text, ld_model *m, ld_model_error *e) {
    ld_model_init(m);
    return ld_model_parse(text, strlen(text), "ground.yaml", m, e);
}

#define BALL                                                                                       \
    "gravity: [0, 0, -9.81]\n"                                                                     \
    "bodies:\n  - {name: ball, mass: 1, inertia: [0.004, 0.004, 0.004], position: [0, 0, 0.5],\n"  \
    "     velocity: [2, 0, 0],\n"                                                                  \
    "     shape: {type: sphere, radius: 0.1, collide: true, restitution: 0.5}}\n"

/* Read: the list, collide true unless given, world placement, the errors. */
static void test_read(void **state) {
    (void)state;
    ld_model m;
    ld_model_error e;
    assert_int_equal(parse(BALL "ground_shapes:\n"
                                "  - {type: box, size: [2, 2, 0.2], center: [0, 0, -0.1]}\n"
                                "  - {type: sphere, radius: 0.3, center: [1, 0, 0], collide: "
                                "false, friction: 0.2}\n",
                           &m, &e),
                     LD_OK);
    assert_int_equal(m.nground, 2);
    assert_int_equal(m.ground[0].body, LD_GROUND);
    assert_int_equal(m.ground[0].collide, 1);
    assert_int_equal(m.ground[1].collide, 0);
    assert_true(m.ground[0].center[2] == -0.1 && m.ground[1].friction == 0.2);
    assert_int_equal(m.ground[0].hidden, 0);
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    ld_model_free(&m);
    /* draw: false, a colliding ground shape that is not drawn (the viewer's scene leaves it
     * out) */
    assert_int_equal(parse(BALL "ground_shapes:\n  - {type: box, size: [2, 2, 0.2], draw: false}\n"
                                "  - {type: box, size: [1, 1, 1], draw: true}\n",
                           &m, &e),
                     LD_OK);
    assert_true(m.ground[0].hidden == 1 && m.ground[0].collide == 1 && m.ground[1].hidden == 0);
    view_shape *v = NULL;
    int nv = -1;
    assert_int_equal(ld_io_scene_ground(&m, &v, &nv), 0);
    assert_int_equal(nv, 1);
    assert_true(v[0].s.size[0] == 1.0);
    free(v);
    assert_int_equal(ld_model_validate(&m, &e), LD_OK);
    m.shapes[0].hidden = 1; /* a body's shape is drawn */
    assert_int_equal(ld_model_validate(&m, &e), LD_EINVAL);
    assert_non_null(strstr(e.msg, "shapes[0].draw"));
    ld_model_free(&m);
    static const struct {
        const char *text, *key;
        int line;
    } bad[] = {
        {BALL "ground_shapes: {type: box}\n", "ground_shapes", 6},
        {BALL "ground_shapes:\n  - {type: box, size: [1, -1, 1]}\n", "ground_shapes[0].size", 7},
        {BALL "ground_shapes:\n  - {type: box, size: [1, 1, 1]}\n  - {type: sphere, radius: 1, "
              "friction: -1}\n",
         "ground_shapes[1].friction", 8},
        {BALL "ground_shapes:\n  - {type: torus}\n", "ground_shapes[0].type", 7},
        {BALL
         "ground_shapes:\n  - {type: box, size: [1, 1, 1],\n     collide: false, draw: false}\n",
         "ground_shapes[0].draw", 8},
        {BALL "ground_shapes:\n  - {type: box, size: [1, 1, 1], draw: maybe}\n",
         "ground_shapes[0].draw", 7},
        {"bodies:\n  - {name: b, mass: 1, inertia: [1, 1, 1],\n"
         "     shape: {type: sphere, radius: 0.1, draw: false}}\n",
         "bodies[0].shape.draw", 3},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        memset(&e, 0, sizeof e);
        assert_int_equal(parse(bad[i].text, &m, &e), LD_EINVAL);
        if (strcmp(e.key, bad[i].key) != 0 || e.line != bad[i].line)
            fail_msg("case %zu: %s (key %s, line %d; want %s, line %d)", i, e.msg, e.key, e.line,
                     bad[i].key, bad[i].line);
    }
}

/* The detector: a ball on a ground box, with the ground as body b and shape −2 − g. */
static void test_detect(void **state) {
    (void)state;
    ld_model m;
    ld_model_error e;
    assert_int_equal(parse(BALL "ground_shapes:\n"
                                "  - {type: sphere, radius: 0.2, center: [5, 5, 5]}\n"
                                "  - {type: box, size: [2, 2, 0.2], center: [0, 0, 0.3]}\n",
                           &m, &e),
                     LD_OK);
    ld_cworld *w = ld_cworld_create(&m, 16);
    assert_non_null(w);
    assert_int_equal(ld_cworld_shapes(w), 3);
    const double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, x[3] = {0.3, 0, 0.49};
    const ld_contact *c;
    assert_int_equal(ld_cworld_find(w, R, x, 1e-12, &c), 1);
    assert_true(c[0].a == 0 && c[0].b == -1 && c[0].sa == 0 && c[0].sb == -3);
    if (!(fabs(c[0].gap + 0.01) < 1e-12 && fabs(c[0].n[2] - 1) < 1e-12))
        fail_msg("gap %.17g, n = (%g, %g, %g)", c[0].gap, c[0].n[0], c[0].n[1], c[0].n[2]);
    ld_cworld_free(w);
    ld_model_free(&m);
}

/* Thrown at a frictionless wall at x = 1: back with −e vx; then at rest on the floor box. */
static void test_wall(void **state) {
    (void)state;
    static const char *const text =
        BALL "ground_shapes:\n"
             "  - {type: box, size: [4, 4, 0.2], center: [0, 0, -0.1]}\n"
             "  - {type: box, size: [0.2, 4, 2], center: [1.1, 0, 1]}\n";
    const double h = 1e-4;
    run r;
    start(&r, text, LD_FORM_SO3XR3, h);
    double x[3], q[4], w[3], v[3], vx_back = 0.0, xmax = 0.0;
    for (int i = 1; i <= 30000; ++i) {
        assert_int_equal(ld_integ_advance_to(r.it, i * h), LD_OK);
        body(&r, x, q, w, v);
        xmax = fmax(xmax, x[0]);
        if (vx_back == 0.0 && v[0] < 0.0) vx_back = v[0];
        assert_true(x[2] > 0.1 - 1e-3); /* never through the floor */
    }
    if (!(fabs(vx_back + 0.5 * 2.0) < 1e-9)) fail_msg("back from the wall at %.12g m/s", vx_back);
    if (!(xmax < 0.9 + 2.0 * h + 1e-12)) fail_msg("into the wall: x = %.9g", xmax);
    if (!(fabs(x[2] - 0.1) < 1e-5 && fabs(v[2]) < 1e-9))
        fail_msg("at t = 3: z = %.9g, vz = %.3g", x[2], v[2]);
    stop(&r);
}

/* A ball thrown about in a closed box of five ground boxes (0.8 m inside, no lid: walls 1 m
 * high) with e = 0.9 stays inside for 3 s. */
static void test_closed_box(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n  - {name: ball, mass: 1, inertia: [0.004, 0.004, 0.004], position: [0, 0, "
        "0.3],\n"
        "     velocity: [3, -2.5, 1], angular_velocity: [10, 3, -5],\n"
        "     shape: {type: sphere, radius: 0.1, collide: true, restitution: 0.9, friction: "
        "0.2}}\n"
        "ground_shapes:\n"
        "  - {type: box, size: [1, 1, 0.1], center: [0, 0, -0.05]}\n"
        "  - {type: box, size: [0.1, 1, 1], center: [0.45, 0, 0.5]}\n"
        "  - {type: box, size: [0.1, 1, 1], center: [-0.45, 0, 0.5]}\n"
        "  - {type: box, size: [1, 0.1, 1], center: [0, 0.45, 0.5]}\n"
        "  - {type: box, size: [1, 0.1, 1], center: [0, -0.45, 0.5]}\n";
    const double h = 1e-4;
    run r;
    start(&r, text, LD_FORM_SE3, h);
    double x[3], q[4], w[3], v[3], out = 0.0;
    for (int i = 1; i <= 30000; ++i) {
        assert_int_equal(ld_integ_advance_to(r.it, i * h), LD_OK);
        body(&r, x, q, w, v);
        out = fmax(out, fmax(fabs(x[0]), fabs(x[1])) - 0.3);
        out = fmax(out, 0.1 - x[2]);
    }
    if (!(out < 2e-3)) fail_msg("the ball went %.3g m into a wall", out);
    stop(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_wall),
        cmocka_unit_test(test_closed_box),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * A model built item by item (model.h: ld_model_add_item): bodies, joints and elements read
 * from their text as a model file's items, the model validated after each; the double pendulum
 * built so equals the one read from one file, field by field; every refused item — by the
 * reader (an unknown key, a bad type, a name not found) or by the validation (a mass, a
 * duplicate name) — leaves the model as it was, also when the item had allocated (a driver's
 * table, an element's parameters, a body's mesh): under the sanitizers nothing leaks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif

static const char *const items[][2] = {
    {"bodies",
     "{name: link1, mass: 1.0, inertia: [1.0e-4, 0.0833, 0.0833], position: [0.5, 0, 0]}"},
    {"bodies",
     "{name: link2, mass: 1.0, inertia: [1.0e-4, 0.0833, 0.0833], position: [1.5, 0, 0]}"},
    {"joints", "{name: shoulder, type: revolute, body1: ground, body2: link1, at: [0, 0, 0], "
               "axis: [0, 0, 1]}"},
    {"joints", "{name: elbow, type: revolute, body1: link2, body2: link1, at: [1, 0, 0], axis: "
               "[0, 0, 1], angle_rate: 0.5}"},
    {"elements", "{name: damper, type: rotational-spring-damper, body1: link1, body2: link2, c: "
                 "0.05, k: 2, axis: [0, 0, 1]}"},
};

static int add(ld_model *m, const char *list, const char *text, ld_model_error *e) {
    return ld_model_add_item(m, list, text, strlen(text), "built", e);
}

static void test_equals_the_file(void **state) {
    (void)state;
    char file[4096] = "name: dp\nbodies:\n";
    ld_model b, f;
    ld_model_init(&b);
    ld_model_error e;
    for (int l = 0; l < 3; ++l) {
        const char *list = l == 0 ? "bodies" : l == 1 ? "joints" : "elements";
        if (l) snprintf(file + strlen(file), sizeof file - strlen(file), "%s:\n", list);
        for (size_t i = 0; i < sizeof items / sizeof *items; ++i) {
            if (strcmp(items[i][0], list)) continue;
            snprintf(file + strlen(file), sizeof file - strlen(file), "  - %s\n", items[i][1]);
            int rc = add(&b, list, items[i][1], &e);
            if (rc) fail_msg("%s", e.msg);
        }
    }
    assert_int_equal(ld_model_parse(file, strlen(file), "dp.yaml", &f, &e), LD_OK);
    assert_int_equal(b.nbodies, 2);
    assert_int_equal(b.njoints, 2);
    assert_int_equal(b.nelements, 1);
    for (int i = 0; i < 2; ++i) {
        const ld_body *x = &b.bodies[i], *y = &f.bodies[i];
        assert_string_equal(x->name, y->name);
        assert_memory_equal(x->inertia, y->inertia, sizeof x->inertia);
        assert_memory_equal(x->x, y->x, sizeof x->x);
        assert_memory_equal(x->q, y->q, sizeof x->q);
        assert_int_equal(x->omega_free, y->omega_free);
        const ld_joint *j = &b.joints[i], *k = &f.joints[i];
        assert_int_equal(j->body1, k->body1);
        assert_int_equal(j->body2, k->body2);
        assert_int_equal(j->swapped, k->swapped);
        assert_memory_equal(j->axis, k->axis, sizeof j->axis);
        assert_memory_equal(j->rate, k->rate, sizeof j->rate);
    }
    assert_int_equal(b.elements[0].npar, f.elements[0].npar);
    assert_memory_equal(b.elements[0].par, f.elements[0].par,
                        (size_t)f.elements[0].npar * sizeof(double));
    ld_model_free(&b);
    ld_model_free(&f);
}

static void test_refused_items(void **state) {
    (void)state;
    ld_model m;
    ld_model_init(&m);
    ld_model_error e;
    for (int i = 0; i < 2; ++i) assert_int_equal(add(&m, items[i][0], items[i][1], &e), LD_OK);
    const struct {
        const char *list, *text, *key, *why;
    } bad[] = {
        {"bodies", "{name: b3, mass: -1, inertia: [1, 1, 1]}", "bodies[2].mass", "positive"},
        {"bodies", "{name: link1, mass: 1, inertia: [1, 1, 1]}", "bodies[2].name", "link1"},
        {"bodies", "{name: b3, mass: 1, inertia: [1, 1, 1], colour: red}", "bodies[2]", "colour"},
        {"bodies",
         "{name: b3, mass: 0, inertia: [1, 1, 1], position: [0, 0, 0], shape: {type: mesh, file: "
         "" LD_SOURCE_DIR "/tests/data/import/box.stl}}",
         "bodies[2].mass", "positive"},
        {"joints", "{type: hinge, body1: ground, body2: link1, at: [0, 0, 0]}", "joints[0].type",
         "revolute"},
        {"joints", "{type: revolute, body1: ground, body2: nobody, at: [0, 0, 0], axis: [0, 0, 1]}",
         "joints[0].body2", "nobody"},
        {"joints",
         "{type: driver, motion: rotation, body1: ground, body2: link1, axis: [0, 0, 1], value: 1, "
         "time: {shape: table, t: [0, 2, 1], f: [0, 0, 0]}}",
         "joints[0]", ""},
        {"elements", "{type: rotational-spring-damper, body1: link1, body2: link2, c: -1}",
         "elements[0].c", ""},
        {"elements", "{type: spring-damper, body1: link1, body2: link2, k: 1, wobble: 2}",
         "elements[0]", "wobble"},
        {"nothing", "{}", "(arguments)", "bodies, joints, elements"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        memset(&e, 0, sizeof e);
        int rc = add(&m, bad[i].list, bad[i].text, &e);
        if (rc != LD_EINVAL) fail_msg("item %zu: status %d (%s)", i, rc, e.msg);
        if (strncmp(e.key, bad[i].key, strlen(bad[i].key)) || !strstr(e.msg, bad[i].why))
            fail_msg("item %zu: %s (key %s)", i, e.msg, e.key);
        assert_int_equal(m.nbodies, 2);
        assert_int_equal(m.njoints, 0);
        assert_int_equal(m.nelements, 0);
        assert_int_equal(m.nshapes, 0);
        assert_int_equal(m.nmeshes, 0);
    }
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_equals_the_file),
                                       cmocka_unit_test(test_refused_items)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

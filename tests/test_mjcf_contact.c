/*
 * MJCF contact in liedyn's importer (ld_import_options.contact, `liedyn convert --contact`,
 * docs/import.md "Contact"): the worldbody's plane becomes the ground plane (its normal turned
 * by the geom's orientation), its boxes, spheres, capsules and cylinders ground shapes (a box
 * along the world axes, or turned by quarter turns; another turn reported, left out), the
 * bodies' colliding geoms colliding shapes with their sliding friction, geoms that collide with
 * none (contype = conaffinity = 0) not colliding, bitmasks and geoms that liedyn cannot collide
 * reported, and the integrator block moreau (also for the limits option). A ball dropped on the
 * plane falls as g t²/2 says, and both balls — one on the plane, one on a ground box — come to
 * rest on them; without the option nothing collides and the ball falls through. MuJoCo's
 * humanoid (libmujoco-samples) lies on the floor after 1.5 s, and falls through it without.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

#include "moreau_run.h"

#include "liedyn/import.h"
#include "liedyn/integrator.h"
#include "liedyn/lie.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#include "../src/io/view.h"

/* Lines: 3 floor, 4 step, 5 turned, 6 quarter, 7 deco, 10 ball's sphere, 11 its ellipsoid, 15
 * ball2's sphere, 19 the box of the table welded to the world (through the floor), 23 and 27
 * two spheres whose bitmasks keep them apart but not from the floor, 31 one that meets
 * nothing. */
static const char SCENE[] =
    "<mujoco model='balls'>\n"
    "  <worldbody>\n"
    "    <geom name='floor' type='plane' size='5 5 0.1' friction='0.8'/>\n"
    "    <geom name='step' type='box' size='0.5 0.5 0.1' pos='2 0 0.1'/>\n"
    "    <geom name='turned' type='box' size='0.5 0.2 0.1' pos='-2 0 0.1' euler='0 0 30'/>\n"
    "    <geom name='quarter' type='box' size='0.5 0.2 0.1' pos='0 3 0.1' euler='0 0 90'/>\n"
    "    <geom name='deco' type='sphere' size='0.1' pos='0 -3 0' contype='0' conaffinity='0'/>\n"
    "    <body name='ball' pos='0 0 0.5'>\n"
    "      <freejoint/>\n"
    "      <geom type='sphere' size='0.1' mass='1'/>\n"
    "      <geom type='ellipsoid' size='0.05 0.05 0.02' mass='0.001'/>\n"
    "    </body>\n"
    "    <body name='ball2' pos='2 0 0.6'>\n"
    "      <freejoint/>\n"
    "      <geom type='sphere' size='0.1' mass='1' friction='0.3'/>\n"
    "      <geom type='box' size='0.02 0.02 0.02' mass='0.001' contype='0' conaffinity='0'/>\n"
    "    </body>\n"
    "    <body name='table' pos='-3 -3 0.05'>\n"
    "      <geom type='box' size='0.3 0.3 0.1' mass='5'/>\n"
    "    </body>\n"
    "    <body name='p1' pos='-1 1 0.3'>\n"
    "      <freejoint/>\n"
    "      <geom type='sphere' size='0.1' mass='1' contype='2'/>\n"
    "    </body>\n"
    "    <body name='p2' pos='-1 1 0.6'>\n"
    "      <freejoint/>\n"
    "      <geom type='sphere' size='0.1' mass='1' contype='2'/>\n"
    "    </body>\n"
    "    <body name='ghost' pos='1 -1 0.5'>\n"
    "      <freejoint/>\n"
    "      <geom type='sphere' size='0.1' mass='1' contype='4' conaffinity='4'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

static const char *scene_path(void) {
    static char path[64];
    snprintf(path, sizeof path, "imp_contact_scene.xml");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(SCENE, f);
    fclose(f);
    return path;
}

static void import(const char *path, int contact, ld_model *m, ld_import_report *rep) {
    ld_import_options o;
    ld_import_options_init(&o);
    o.contact = contact;
    ld_model_error err;
    int rc = ld_model_import_opt(path, &o, m, &err, rep);
    if (rc) printf("%s\n", err.msg);
    assert_int_equal(rc, LD_OK);
}

/* The warning at line holding part, or NULL. */
static const ld_import_warning *warning(const ld_import_report *rep, int line, const char *part) {
    for (int i = 0; i < rep->nwarn; ++i)
        if ((line == 0 || rep->warn[i].line == line) && strstr(rep->warn[i].msg, part))
            return &rep->warn[i];
    return NULL;
}

/* Each shape is drawn once (viewer, VTK: the scene's shapes): no drawn ground shape has the
 * kind, size and world place of a body's drawn shape at the start, and body welded (the table)
 * is still drawn by its own shape, whose copy among the ground's collides without being
 * drawn. */
static void drawn_once(const ld_model *m, int welded) {
    view_shape *v = NULL, *g = NULL;
    int nv = 0, ng = 0, own = 0;
    assert_int_equal(ld_io_scene_shapes(m, &v, &nv, NULL), 0);
    assert_int_equal(ld_io_scene_ground(m, &g, &ng), 0);
    for (int i = 0; i < nv; ++i) {
        const ld_body *b = &m->bodies[v[i].s.body];
        double c[3];
        ld_quat_rotate(c, b->q, v[i].s.center);
        for (int k = 0; k < 3; ++k) c[k] += b->x[k];
        own += v[i].s.body == welded && !v[i].automatic;
        for (int j = 0; j < ng; ++j) {
            double d = 0.0, ds = 0.0;
            for (int k = 0; k < 3; ++k)
                d += fabs(g[j].s.center[k] - c[k]), ds += fabs(g[j].s.size[k] - v[i].s.size[k]);
            if (g[j].s.kind == v[i].s.kind && d < 1e-9 && ds < 1e-12)
                fail_msg("body %s's %s is drawn a second time as a ground shape", b->name,
                         ld_shape_kind_name(v[i].s.kind));
        }
    }
    assert_int_equal(own, 1);
    int hidden = 0;
    for (int j = 0; j < m->nground; ++j) hidden += m->ground[j].hidden && m->ground[j].collide;
    assert_int_equal(hidden, 1);
    free(v), free(g);
}

static void test_translation(void **state) {
    (void)state;
    const char *p = scene_path();
    ld_model m;
    ld_import_report rep;
    import(p, 1, &m, &rep);
    for (int i = 0; i < rep.nwarn; ++i)
        printf("  %d: %s: %s\n", rep.warn[i].line, rep.warn[i].element, rep.warn[i].msg);
    assert_string_equal(m.run.integrator, "moreau");
    assert_true(m.plane.on);
    assert_true(m.plane.normal[2] == 1.0 && m.plane.friction == 0.8);
    /* the step, the quarter-turned box with its sizes along the world axes, the table's box */
    assert_int_equal(m.nground, 3);
    const ld_shape *st = &m.ground[0], *qt = &m.ground[1], *tb = &m.ground[2];
    assert_true(tb->kind == LD_SHAPE_BOX && tb->center[0] == -3.0 && tb->center[2] == 0.05);
    assert_true(st->kind == LD_SHAPE_BOX && st->collide && st->center[0] == 2.0);
    assert_true(st->size[0] == 1.0 && st->size[1] == 1.0 && fabs(st->size[2] - 0.2) < 1e-15);
    assert_true(fabs(qt->size[0] - 0.4) < 1e-12 && fabs(qt->size[1] - 1.0) < 1e-12);
    assert_non_null(warning(&rep, 5, "turned against the world axes: no contact"));
    assert_non_null(warning(&rep, 7, "collides with none"));
    /* the spheres collide (MuJoCo's default friction 1, ball2's own 0.3), but the ghost's,
     * whose bitmasks match nothing; the ellipsoid reported; the small box, and the table's
     * own box (a ground shape now), not colliding; the pair p1–p2 reported */
    int seen = 0, ghost = ld_model_body_find(&m, "ghost");
    for (int i = 0; i < m.nshapes; ++i) {
        const ld_shape *s = &m.shapes[i];
        if (s->kind == LD_SHAPE_SPHERE && s->body != ghost) {
            assert_true(s->collide);
            assert_true(s->friction == (s->body == ld_model_body_find(&m, "ball2") ? 0.3 : 1.0));
            ++seen;
        } else {
            assert_false(s->collide);
        }
    }
    assert_int_equal(seen, 4);
    drawn_once(&m, ld_model_body_find(&m, "table"));
    assert_non_null(warning(&rep, 11, "1 geom(s) that collide in MuJoCo"));
    assert_non_null(warning(&rep, 31, "1 geom(s) whose contype and conaffinity match no other"));
    assert_non_null(warning(&rep, 23, "1 pair(s) of geoms that MuJoCo's contype and conaffinity"));
    ld_import_report_free(&rep);
    ld_model_free(&m);
    /* without the option: no contact, said with the way to get it */
    import(p, 0, &m, &rep);
    assert_string_equal(m.run.integrator, "genalpha");
    assert_false(m.plane.on);
    assert_int_equal(m.nground, 0);
    for (int i = 0; i < m.nshapes; ++i) assert_false(m.shapes[i].collide);
    assert_non_null(warning(&rep, 3, "(liedyn convert --contact models it)"));
    ld_import_report_free(&rep);
    ld_model_free(&m);
    remove(p);
}

/* The YAML text of path imported with or without contact (malloc'ed). */
static char *yaml(const char *path, int contact) {
    ld_import_options o;
    ld_import_options_init(&o);
    o.contact = contact;
    char *text = NULL;
    size_t len = 0;
    ld_model_error err;
    if (ld_import_translate(path, &o, &text, &len, &err, NULL)) fail_msg("%s", err.msg);
    return text;
}

/* A plane turned 30° about x (compiler angle degree: its normal (0, −1/2, √3/2)), a sphere of
 * condim 1 (frictionless: μ 0), and a table welded to the world but turned 45° about z: its
 * box cannot be a ground box (those lie along the world axes) and stays a colliding shape of
 * its body. */
static void test_plane_condim_turned_table(void **state) {
    (void)state;
    FILE *f = fopen("imp_contact_tilt.xml", "w");
    assert_non_null(f);
    fputs("<mujoco><worldbody>\n"
          "<geom type='plane' euler='30 0 0' friction='0.6'/>\n"
          "<body name='s' pos='0 0 1'><freejoint/>"
          "<geom type='sphere' size='0.1' condim='1' friction='0.9'/></body>\n"
          "<body name='table' pos='3 0 0.5' euler='0 0 45'><geom type='box' size='0.3 0.3 0.1'/>"
          "</body>\n</worldbody></mujoco>\n",
          f);
    fclose(f);
    ld_model m;
    ld_import_report rep;
    import("imp_contact_tilt.xml", 1, &m, &rep);
    printf("plane normal (%.15g, %.15g, %.15g), mu %g\n", m.plane.normal[0], m.plane.normal[1],
           m.plane.normal[2], m.plane.friction);
    assert_true(fabs(m.plane.normal[0]) < 1e-15 && fabs(m.plane.normal[1] + 0.5) < 1e-15 &&
                fabs(m.plane.normal[2] - sqrt(0.75)) < 1e-15 && m.plane.friction == 0.6);
    assert_int_equal(m.nground, 0);
    int table = ld_model_body_find(&m, "table"), seen = 0;
    for (int i = 0; i < m.nshapes; ++i) {
        const ld_shape *sh = &m.shapes[i];
        assert_true(sh->collide);
        if (sh->kind == LD_SHAPE_SPHERE) assert_true(sh->friction == 0.0), ++seen;
        if (sh->kind == LD_SHAPE_BOX) assert_int_equal(sh->body, table), ++seen;
    }
    assert_int_equal(seen, 2);
    ld_import_report_free(&rep);
    ld_model_free(&m);
    remove("imp_contact_tilt.xml");
}

/* MuJoCo's parent–child filter and <contact><exclude>: a body whose two hinges are at different
 * points (an auxiliary body between it and its parent) overlapping its parent, and two free
 * balls excluded by the file, become contact_exclude pairs; without them the first step would
 * push them apart. Then YAML's contact_exclude itself: two overlapping balls stay where they
 * are, and part when the pair is not excluded. */
static void test_exclusions(void **state) {
    (void)state;
    FILE *f = fopen("imp_contact_excl.xml", "w");
    assert_non_null(f);
    fputs("<mujoco><worldbody>\n"
          "<body name='p' pos='0 0 1'><freejoint/><geom type='sphere' size='0.1'/>\n"
          "  <body name='c' pos='0.05 0 0'><joint axis='1 0 0' pos='0.02 0 0'/>"
          "<joint axis='0 1 0' pos='-0.02 0 0'/><geom type='sphere' size='0.1'/></body>\n"
          "</body>\n"
          "<body name='u' pos='2 0 1'><freejoint/><geom type='sphere' size='0.1'/></body>\n"
          "<body name='v' pos='2.05 0 1'><freejoint/><geom type='sphere' size='0.1'/></body>\n"
          "</worldbody><contact><exclude body1='u' body2='v'/></contact></mujoco>\n",
          f);
    fclose(f);
    ld_model m;
    ld_import_report rep;
    import("imp_contact_excl.xml", 1, &m, &rep);
    int p = ld_model_body_find(&m, "p"), c = ld_model_body_find(&m, "c"),
        u = ld_model_body_find(&m, "u"), v = ld_model_body_find(&m, "v");
    printf("%d bodies, %d excluded pairs\n", m.nbodies, m.nexclude);
    assert_int_equal(m.nbodies, 5); /* p, its auxiliary body, c, u, v */
    assert_int_equal(m.nexclude, 2);
    assert_true(ld_model_contact_excluded(&m, p, c) && ld_model_contact_excluded(&m, u, v));
    assert_false(ld_model_contact_excluded(&m, p, u));
    ld_import_report_free(&rep);
    ld_model_free(&m);
    remove("imp_contact_excl.xml");
    static const char TWO[] =
        "name: two\ngravity: [0, 0, 0]\nbodies:\n"
        "  - {name: a, mass: 1, inertia: [0.004, 0.004, 0.004], position: [0, 0, 1],\n"
        "     shape: {type: sphere, radius: 0.1, collide: true}}\n"
        "  - {name: b, mass: 1, inertia: [0.004, 0.004, 0.004], position: [0.05, 0, 1],\n"
        "     shape: {type: sphere, radius: 0.1, collide: true}}\n"
        "integrator: {name: moreau, dt: 1.0e-3, t_end: 0.1}\n";
    for (int excl = 0; excl < 2; ++excl) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s", TWO, excl ? "contact_exclude: [[a, b]]\n" : "");
        run r;
        start(&r, text, LD_FORM_SO3XR3, 1e-3);
        for (int k = 1; k <= 100; ++k) assert_int_equal(ld_integ_advance_to(r.it, k * 1e-3), LD_OK);
        double x[3], qt[4], w[3], xd[3];
        body(&r, x, qt, w, xd);
        printf("%s: ball a at x = %.6f\n", excl ? "excluded" : "not excluded", x[0]);
        assert_true(excl ? x[0] == 0.0 : x[0] < -0.02);
        stop(&r);
    }
}

/* Run path's model (imported with or without contact) by moreau at h = 1e-3 to t_end: each
 * body's final height in z[] (at most 32), and body 0's at t_probe in *z_probe. */
static void heights(const char *path, int contact, double t_end, double t_probe, double *z,
                    double *z_probe) {
    char *text = yaml(path, contact);
    run r;
    start(&r, text, LD_FORM_SO3XR3, 1e-3);
    free(text);
    double x[3], qt[4], w[3], xd[3];
    long n = lround(t_end / 1e-3), kp = lround(t_probe / 1e-3);
    for (long k = 1; k <= n; ++k) {
        assert_int_equal(ld_integ_advance_to(r.it, (double)k * 1e-3), LD_OK);
        if (k == kp && z_probe) body(&r, x, qt, w, xd), *z_probe = x[2];
    }
    for (int b = 0; b < r.m.nbodies && b < 32; ++b) {
        ld_model_body_state(&r.s, b, ld_integ_q(r.it), ld_integ_v(r.it), x, qt, w, xd);
        z[b] = x[2];
    }
    stop(&r);
}

/* Free fall until the impact at t = sqrt(2 · 0.4 / g), then at rest on the plane (e = 0) and on
 * the step; without contact the ball falls through. */
static void test_balls_come_to_rest(void **state) {
    (void)state;
    const char *p = scene_path();
    double z[32], z1;
    heights(p, 1, 1.0, 0.2, z, &z1);
    double exact = 0.5 - 0.5 * 9.81 * 0.2 * 0.2;
    printf("ball at t = 0.2: z %.9f (free fall %.9f); at t = 1: %.9f on the plane, %.9f on the "
           "step (0.1, 0.3 at rest)\n",
           z1, exact, z[0], z[1]);
    assert_true(fabs(z1 - exact) < 1e-3 * 0.2);
    assert_true(fabs(z[0] - 0.1) < 1e-6);
    assert_true(fabs(z[1] - 0.3) < 1e-6);
    heights(p, 0, 1.0, 0.2, z, NULL);
    printf("without contact, at t = 1: %.6f (through the plane)\n", z[0]);
    assert_true(z[0] < 0.5 - 0.5 * 9.81 + 1e-3);
    remove(p);
}

/* MuJoCo's humanoid with contact: it lands and lies on the floor (torso below 0.5 m, no body
 * centre below the floor); without, it falls through. */
static void test_humanoid(void **state) {
    (void)state;
    const char *p = "/usr/share/mujoco/model/humanoid/humanoid.xml";
    struct stat st;
    if (stat(p, &st) != 0) {
        printf("skipped %s: not installed (apt-get install libmujoco-samples)\n", p);
        skip();
    }
    ld_model m;
    ld_import_report rep;
    import(p, 1, &m, &rep);
    assert_true(m.plane.on);
    int torso = ld_model_body_find(&m, "torso"), nb = m.nbodies;
    ld_import_report_free(&rep);
    ld_model_free(&m);
    double z[32], lo = INFINITY;
    heights(p, 1, 1.5, 0.0, z, NULL);
    for (int b = 0; b < nb && b < 32; ++b) lo = fmin(lo, z[b]);
    printf("humanoid with contact, t = 1.5: torso at %.4f m, lowest body centre %.4f m\n", z[torso],
           lo);
    assert_true(z[torso] < 0.5 && lo > 0.0);
    heights(p, 0, 1.5, 0.0, z, NULL);
    printf("without: torso at %.4f m\n", z[torso]);
    assert_true(z[torso] < -5.0);
}

/* The limits option writes moreau, the method that holds them, as the integrator. */
static void test_limits_take_moreau(void **state) {
    (void)state;
    ld_import_options o;
    ld_import_options_init(&o);
    o.limits = 1;
    ld_model m;
    ld_model_error err;
    assert_int_equal(ld_model_import_opt(LD_SOURCE_DIR "/tests/data/import/double-pendulum.xml", &o,
                                         &m, &err, NULL),
                     LD_OK);
    assert_string_equal(m.run.integrator, "moreau");
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translation),        cmocka_unit_test(test_balls_come_to_rest),
        cmocka_unit_test(test_limits_take_moreau), cmocka_unit_test(test_plane_condim_turned_table),
        cmocka_unit_test(test_exclusions),         cmocka_unit_test(test_humanoid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

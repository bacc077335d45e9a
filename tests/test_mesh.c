/*
 * Mesh shapes (include/liedyn/model.h ld_mesh_load, docs/model-format.md, docs/import.md): the
 * three files of tests/data/import/ — an STL box 1 × 2 × 3, an OBJ square pyramid with a quad
 * base, a COLLADA tetrahedron in centimetres with z up and a node offset — read to their
 * vertex and triangle counts, bounds and enclosed volume (which checks that every triangle is
 * there and turned outward); the shapes of a YAML model, a URDF and an MJCF file placed in
 * their bodies (scale, mirroring, orientation, centre, MuJoCo's refpos and a class's scale);
 * one file read once for two shapes; the errors for a missing, a corrupt and a misused mesh;
 * contact that ignores meshes (a body drawn by a mesh falls through the ground plane under
 * both contact laws); the VTK geometry of the model. When dart-doc is installed (skipped with
 * a message otherwise): DRC-Hubo's and the WAM arm's meshes all read, with counts and times,
 * and the WAM's COLLADA visuals lie where its STL collision meshes are.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

#include "../src/io/view.h"
#include "liedyn/import.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif
#define DATA LD_SOURCE_DIR "/tests/data/import/"

/* The volume enclosed by the triangles (the divergence theorem: Σ (a × b) · c / 6 over the
 * triangles a b c): positive when they are all there and turned outward. */
static double volume(const double *p, const int *t, int nt) {
    double v = 0.0;
    for (int k = 0; k < nt; ++k) {
        const double *a = p + 3 * t[3 * k], *b = p + 3 * t[3 * k + 1], *c = p + 3 * t[3 * k + 2];
        v += (c[0] * (a[1] * b[2] - a[2] * b[1]) + c[1] * (a[2] * b[0] - a[0] * b[2]) +
              c[2] * (a[0] * b[1] - a[1] * b[0])) /
             6.0;
    }
    return v;
}

/* The mesh's vertices as doubles (malloc'ed). */
static double *verts(const ld_mesh *m) {
    double *p = malloc(3 * (size_t)m->nverts * sizeof *p);
    for (int i = 0; i < 3 * m->nverts; ++i) p[i] = m->verts[i];
    return p;
}

static void expect_mesh(const char *file, int nv, int nt, const double lo[3], const double hi[3],
                        double vol, double tol) {
    ld_mesh m;
    char why[256];
    int rc = ld_mesh_load(file, &m, why, sizeof why);
    if (rc) printf("%s: %s\n", file, why);
    assert_int_equal(rc, LD_OK);
    printf("%s: %d vertices, %d triangles, box [%.9g %.9g %.9g] .. [%.9g %.9g %.9g]\n", file,
           m.nverts, m.ntris, m.lo[0], m.lo[1], m.lo[2], m.hi[0], m.hi[1], m.hi[2]);
    assert_int_equal(m.nverts, nv);
    assert_int_equal(m.ntris, nt);
    for (int i = 0; i < 3; ++i) {
        assert_true(fabs(m.lo[i] - lo[i]) <= tol);
        assert_true(fabs(m.hi[i] - hi[i]) <= tol);
    }
    double *p = verts(&m);
    double v = volume(p, m.tris, m.ntris);
    printf("  volume %.17g (exact %.17g)\n", v, vol);
    assert_true(fabs(v - vol) <= tol * fabs(vol) * 10 + 1e-300);
    free(p);
    ld_mesh_free(&m);
}

/* The three files: identical corners joined, the quad split in two, the COLLADA unit
 * applied and its up axis not (z stays z: ROS draws it so). */
static void test_files(void **state) {
    (void)state;
    expect_mesh(DATA "box.stl", 8, 12, (double[]){0, 0, 0}, (double[]){1, 2, 3}, 6.0, 0.0);
    expect_mesh(DATA "pyramid.obj", 5, 6, (double[]){-1, -1, 0}, (double[]){1, 1, 1}, 4.0 / 3.0,
                1e-15);
    /* cm: (1, 1, 1) + (0..1, 0..2, 0..3), float rounding */
    expect_mesh(DATA "tetra.dae", 4, 4, (double[]){0.01, 0.01, 0.01}, (double[]){0.02, 0.03, 0.04},
                1e-6, 1e-8);
}

/* The points of shape i of m in its body's frame (malloc'ed) and their bounds. */
static double *shape_points(const ld_model *m, int i, double lo[3], double hi[3], int **tri) {
    view_shape *v = NULL;
    int n = 0;
    assert_int_equal(ld_io_scene_shapes(m, &v, &n, NULL), 0);
    const ld_mesh *M = &m->meshes[m->shapes[i].mesh];
    double *p = malloc(3 * (size_t)M->nverts * sizeof *p);
    *tri = malloc(3 * (size_t)M->ntris * sizeof **tri);
    ld_io_scene_mesh(m, &v[i], p, *tri);
    for (int c = 0; c < 3; ++c) lo[c] = HUGE_VAL, hi[c] = -HUGE_VAL;
    for (int k = 0; k < M->nverts; ++k)
        for (int c = 0; c < 3; ++c)
            lo[c] = fmin(lo[c], p[3 * k + c]), hi[c] = fmax(hi[c], p[3 * k + c]);
    free(v);
    return p;
}

static void expect_bounds(const ld_model *m, int i, const double lo[3], const double hi[3],
                          double vol, double tol) {
    double l[3], h[3];
    int *tri;
    double *p = shape_points(m, i, l, h, &tri);
    printf("shape %d (line %d): [%.17g %.17g %.17g] .. [%.17g %.17g %.17g]\n", i, m->shapes[i].line,
           l[0], l[1], l[2], h[0], h[1], h[2]);
    for (int c = 0; c < 3; ++c) {
        assert_true(fabs(l[c] - lo[c]) <= tol);
        assert_true(fabs(h[c] - hi[c]) <= tol);
    }
    double v = volume(p, tri, m->meshes[m->shapes[i].mesh].ntris);
    double rel = fabs(v - vol) / fabs(vol);
    printf("  volume %.17g (scale's determinant times the file's: %.17g)\n", v, vol);
    assert_true(rel <= 1e-6);
    free(p), free(tri);
}

static void load(const char *path, ld_model *m) {
    ld_model_error err;
    int rc = ld_import_recognizes(path) ? ld_model_import(path, m, &err, NULL)
                                        : ld_model_load(path, m, &err);
    if (rc) printf("%s\n", err.msg);
    assert_int_equal(rc, LD_OK);
}

/* meshes.yaml: the box (scale 0.5 0.25 2, turned half a turn about z, centre 1 2 3), the same
 * file again (read once), the pyramid mirrored in x (its triangles turned: volume still
 * positive), the tetrahedron scaled from cm to m. */
static void test_yaml(void **state) {
    (void)state;
    ld_model m;
    load(DATA "meshes.yaml", &m);
    assert_int_equal(m.nshapes, 4);
    assert_int_equal(m.nmeshes, 3);
    assert_int_equal(m.shapes[0].mesh, m.shapes[1].mesh);
    assert_int_equal(m.shapes[0].kind, LD_SHAPE_MESH);
    assert_int_equal(m.shapes[0].line, 12);
    assert_int_equal(m.meshes[m.shapes[0].mesh].line, 12);
    /* (0..0.5, 0..0.5, 0..6) turned by π about z, then + (1, 2, 3) */
    expect_bounds(&m, 0, (double[]){0.5, 1.5, 3}, (double[]){1, 2, 9}, 1.5, 0.0);
    expect_bounds(&m, 1, (double[]){0, 0, 0}, (double[]){1, 2, 3}, 6.0, 0.0);
    expect_bounds(&m, 2, (double[]){-1, -1, 0}, (double[]){1, 1, 1}, 4.0 / 3.0, 0.0);
    expect_bounds(&m, 3, (double[]){1, 1, 1}, (double[]){2, 3, 4}, 1.0, 1e-6);
    assert_int_equal(ld_model_has_contact(&m), 0);
    ld_model_free(&m);
}

/* A URDF and an MJCF file with the same box: placed alike (the MJCF's refpos moves it by
 * −scale ⊙ refpos); package:// found in the enclosing directory; the missing file reported. */
static void test_import(void **state) {
    (void)state;
    ld_model u, x;
    ld_import_report rep;
    ld_model_error err;
    int rc = ld_model_import(DATA "meshes.urdf", &u, &err, &rep);
    if (rc) printf("%s\n", err.msg);
    assert_int_equal(rc, LD_OK);
    int missing = 0;
    for (int w = 0; w < rep.nwarn; ++w) {
        printf("  %d: %s: %s\n", rep.warn[w].line, rep.warn[w].element, rep.warn[w].msg);
        missing += rep.warn[w].line == 17 && strstr(rep.warn[w].msg, "no_such_mesh.stl") &&
                   strstr(rep.warn[w].msg, "does not exist");
    }
    assert_int_equal(missing, 1);
    ld_import_report_free(&rep);
    assert_int_equal(u.nshapes, 3);
    assert_int_equal(u.nmeshes, 3);
    assert_non_null(strstr(u.meshes[u.shapes[1].mesh].path, "/tetra.dae"));
    /* box (0..0.5, 0..0.5, 0..6) turned a quarter about z: (−0.5..0, 0..0.5), + (0.1 0.2 0.3) */
    expect_bounds(&u, 0, (double[]){-0.4, 0.2, 0.3}, (double[]){0.1, 0.7, 6.3}, 1.5, 1e-15);
    expect_bounds(&u, 1, (double[]){0.1, 0.1, 0.1}, (double[]){0.2, 0.3, 0.4}, 1e-3, 1e-8);
    /* arm: the pyramid about the joint, 0.5 below the centre of mass */
    expect_bounds(&u, 2, (double[]){-1, -1, -0.5}, (double[]){1, 1, 0.5}, 4.0 / 3.0, 0.0);
    load(DATA "meshes.xml", &x);
    assert_int_equal(x.nshapes, 2);
    assert_int_equal(x.nmeshes, 2);
    /* y: (0..2 − 1)·0.25 = −0.25..0.25; turned a quarter: x −0.25..0.25, y 0..0.5 */
    expect_bounds(&x, 0, (double[]){-0.15, 0.2, 0.3}, (double[]){0.35, 0.7, 6.3}, 1.5, 1e-15);
    /* the class's scale 1 1 3 */
    expect_bounds(&x, 1, (double[]){-1, -1, -0.5}, (double[]){1, 1, 2.5}, 4.0, 0.0);
    ld_model_free(&u);
    ld_model_free(&x);
}

/* One message, with file, line, key, the mesh as written and as opened, and the reason. */
static void expect_error(const char *shape, int line, const char *want) {
    char text[1024];
    snprintf(text, sizeof text,
             "name: e\nbodies:\n  - name: b\n    mass: 1\n    inertia: [1, 1, 1]\n"
             "    position: [0, 0, 0]\n    shape: %s\n",
             shape);
    ld_model m;
    ld_model_error err;
    int rc = ld_model_parse(text, strlen(text), DATA "errors.yaml", &m, &err);
    printf("  %s\n", err.msg);
    assert_int_not_equal(rc, LD_OK);
    assert_int_equal(err.line, line);
    assert_non_null(strstr(err.msg, want));
    assert_null(strchr(err.msg, '\n'));
}

static void test_errors(void **state) {
    (void)state;
    expect_error("{type: mesh, file: nothere.stl}", 7,
                 "errors.yaml:7: bodies[0].shape.file: cannot read the mesh 'nothere.stl' (" DATA
                 "nothere.stl): the file does not exist");
    expect_error("{type: mesh, file: corrupt.stl}", 7,
                 "bodies[0].shape.file: cannot read the mesh 'corrupt.stl' (" DATA
                 "corrupt.stl): not a mesh that can be read: ");
    expect_error("{type: mesh, file: .}", 7,
                 "cannot read the mesh '.' (" DATA ".): not a regular file");
    expect_error("{type: mesh, file: box.stl, collide: true}", 7,
                 "bodies[0].shape.collide: key not allowed for type 'mesh' (expected one of: type, "
                 "file, scale, center, orientation, color)");
    expect_error("{type: mesh, file: box.stl, scale: [1, 0, 1]}", 7,
                 "bodies[0].shape.scale: element 2 must be a non-zero number");
    expect_error("{type: mesh, file: box.stl, orientation: [0, 0, 0, 0]}", 7,
                 "bodies[0].shape.orientation: must be non-zero");
    expect_error("{type: mesh}", 7, "bodies[0].shape.file: required key is missing");
    expect_error("{type: mesh, file: [a, b]}", 7, "bodies[0].shape.file: expected the name of");
    /* a program's shape: collide refused by the check */
    ld_shape s;
    memset(&s, 0, sizeof s);
    s.kind = LD_SHAPE_MESH, s.size[0] = s.size[1] = s.size[2] = 1, s.orient[0] = 1;
    s.color[0] = s.color[1] = s.color[2] = -1;
    char key[32], why[256];
    assert_int_equal(ld_shape_check(&s, 1, key, sizeof key, why, sizeof why), LD_OK);
    s.collide = 1;
    assert_int_equal(ld_shape_check(&s, 1, key, sizeof key, why, sizeof why), LD_EINVAL);
    assert_string_equal(key, "collide");
    /* a ground shape is not a mesh */
    const char *g = "name: g\nbodies:\n  - {name: b, mass: 1, inertia: [1, 1, 1], position: [0, "
                    "0, 1]}\nground_shapes:\n  - {type: mesh, file: box.stl}\n";
    ld_model m;
    ld_model_error err;
    assert_int_equal(ld_model_parse(g, strlen(g), DATA "g.yaml", &m, &err), LD_EINVAL);
    printf("  %s\n", err.msg);
    assert_non_null(strstr(err.msg, "g.yaml:5: ground_shapes[0]: a mesh is not a ground shape"));
    /* an importer's corrupt mesh: the file's line. The URDF goes to a directory of this run's
     * own (the test may run twice at once, in two build trees) and names the shipped corrupt
     * mesh by its absolute path */
    char dir[] = "/tmp/liedyn_mesh_XXXXXX", bad[64];
    assert_non_null(mkdtemp(dir));
    snprintf(bad, sizeof bad, "%s/corrupt_mesh.urdf", dir);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fprintf(f,
            "<robot name='r'>\n<link name='a'>\n<inertial><mass value='1'/><inertia ixx='1' "
            "iyy='1' izz='1'/></inertial>\n<visual><geometry>\n<mesh filename='%s'/>\n"
            "</geometry></visual></link>\n</robot>\n",
            DATA "corrupt.stl");
    fclose(f);
    int rc = ld_model_import(bad, &m, &err, NULL);
    unlink(bad);
    rmdir(dir);
    printf("  %s\n", err.msg);
    assert_int_equal(rc, LD_EINVAL);
    assert_int_equal(err.line, 5);
    assert_non_null(strstr(err.msg, "corrupt_mesh.urdf:5: "));
    assert_non_null(strstr(err.msg, "cannot read the mesh"));
    assert_non_null(strstr(err.msg, "corrupt.stl): not a mesh that can be read"));
}

/* A body drawn by a mesh falls through the ground plane (which it overlaps after 10 ms) under
 * the compliant law with genalpha and the hard law with moreau: z = z0 − g t²/2. */
static void test_no_contact(void **state) {
    (void)state;
    const char *law[2] = {"contact_law: {type: hunt_crossley, stiffness: 1.0e+6}\n", ""};
    const char *method[2] = {"genalpha", "moreau"};
    for (int k = 0; k < 2; ++k) {
        char text[1024];
        snprintf(text, sizeof text,
                 "name: fall\ngravity: [0, 0, -9.81]\nintegrator: {name: %s, dt: 0.001, t_end: "
                 "0.5}\nground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n%sbodies:\n  - "
                 "{name: box, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0.1], shape: {type: "
                 "mesh, file: box.stl}}\n",
                 method[k], law[k]);
        ld_model m;
        ld_model_error err;
        int rc = ld_model_parse(text, strlen(text), DATA "fall.yaml", &m, &err);
        if (rc) printf("%s\n", err.msg);
        assert_int_equal(rc, LD_OK);
        ld_system s;
        double *q0 = NULL, *v0 = NULL;
        ld_integ_options o;
        int st = ld_model_compile(&m, m.run.formulation, &s, &q0, &v0);
        assert_int_equal(st, LD_OK);
        assert_int_equal(ld_integ_options_from_model(&m, &o), LD_OK);
        ld_integ *it = ld_integ_create(&s, &o, &st);
        assert_non_null(it);
        assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
        for (long i = 1; i <= 500 && st == LD_OK; ++i)
            st = ld_integ_advance_to(it, (double)i * 1e-3);
        assert_int_equal(st, LD_OK);
        double x[3], q[4], om[3], v[3];
        ld_model_body_state(&s, 0, ld_integ_q(it), ld_integ_v(it), x, q, om, v);
        double z = 0.1 - 0.5 * 9.81 * 0.25;
        printf("%s: z(0.5) = %.15g, free fall %.15g\n", method[k], x[2], z);
        assert_true(fabs(x[2] - z) < 1e-9);
        ld_integ_free(it);
        free(q0), free(v0);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
}

/* The VTK geometry: every mesh shape's triangles once per shape, the points on their body. */
static void test_vtk(void **state) {
    (void)state;
    ld_model m;
    load(DATA "meshes.yaml", &m);
    vtk_geom g;
    assert_int_equal(ld_io_vtk_geom_init(&g, &m), 0);
    assert_int_equal(g.npts, 8 + 8 + 5 + 4);
    assert_int_equal(g.ntri, 12 + 12 + 6 + 4);
    assert_int_equal(g.pbody[0], 0);
    assert_int_equal(g.pbody[16], 1);
    assert_int_equal(g.pbody[21], 2);
    ld_io_vtk_geom_free(&g);
    ld_model_free(&m);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int have(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

/* The triangles of a model's meshes and the time to import it. */
static void robot(const char *path, int nshapes, int nmeshes) {
    ld_model m;
    double t0 = now();
    load(path, &m);
    double t = now() - t0;
    long nv = 0, nt = 0;
    for (int i = 0; i < m.nmeshes; ++i) nv += m.meshes[i].nverts, nt += m.meshes[i].ntris;
    int drawn = 0;
    for (int i = 0; i < m.nshapes; ++i) drawn += m.shapes[i].kind == LD_SHAPE_MESH;
    printf("%s: %d bodies, %d mesh shapes, %d files, %ld vertices, %ld triangles; imported with "
           "its meshes in %.1f ms\n",
           path, m.nbodies, drawn, m.nmeshes, nv, nt, 1e3 * t);
    assert_int_equal(drawn, nshapes);
    assert_int_equal(m.nmeshes, nmeshes);
    ld_model_free(&m);
}

/* The bounds of one file. */
static void file_box(const char *path, double lo[3], double hi[3]) {
    ld_mesh m;
    char why[256];
    assert_int_equal(ld_mesh_load(path, &m, why, sizeof why), LD_OK);
    memcpy(lo, m.lo, sizeof m.lo);
    memcpy(hi, m.hi, sizeof m.hi);
    ld_mesh_free(&m);
}

static void test_packages(void **state) {
    (void)state;
    const char *D = "/usr/share/doc/dart/data/urdf/";
    char p[512];
    snprintf(p, sizeof p, "%sdrchubo/drchubo.urdf", D);
    if (!have(p)) {
        printf("skipped DRC-Hubo and WAM: dart-doc is not installed (apt-get install dart-doc)\n");
        skip();
    }
    robot(p, 52, 37);
    /* WAM: its package herb_description is this directory under another name */
    char dir[] = "/tmp/liedyn-mesh-XXXXXX", link[600], env[700];
    assert_non_null(mkdtemp(dir));
    snprintf(link, sizeof link, "%s/herb_description", dir);
    snprintf(p, sizeof p, "%swam", D);
    assert_int_equal(symlink(p, link), 0);
    const char *old = getenv("ROS_PACKAGE_PATH");
    char *saved = old ? strdup(old) : NULL;
    snprintf(env, sizeof env, "%s", dir);
    setenv("ROS_PACKAGE_PATH", env, 1);
    snprintf(p, sizeof p, "%swam/wam.urdf", D);
    robot(p, 8, 8);
    if (saved)
        setenv("ROS_PACKAGE_PATH", saved, 1);
    else
        unsetenv("ROS_PACKAGE_PATH");
    free(saved);
    unlink(link);
    rmdir(dir);
    /* each COLLADA visual (y_up in its file) where its STL collision mesh (a coarser hull) is,
     * within 5 cm — and far from it had the up axis been applied (y up turned to z up) */
    const char *parts[] = {"wam_base", "wam1", "wam2", "wam3", "wam4", "wam5", "wam6", "wam7"};
    double far = 0.0, turned = 0.0;
    for (int i = 0; i < 8; ++i) {
        double a0[3], a1[3], b0[3], b1[3], d = 0.0, e = 0.0;
        snprintf(p, sizeof p, "%swam/meshes/wam/%s.dae", D, parts[i]);
        file_box(p, a0, a1);
        snprintf(p, sizeof p, "%swam/meshes/wam/%s_collision.STL", D, parts[i]);
        file_box(p, b0, b1);
        for (int c = 0; c < 3; ++c) d = fmax(d, fmax(fabs(a0[c] - b0[c]), fabs(a1[c] - b1[c])));
        const double r0[3] = {a0[0], -a1[2], a0[1]}, r1[3] = {a1[0], -a0[2], a1[1]};
        for (int c = 0; c < 3; ++c) e = fmax(e, fmax(fabs(r0[c] - b0[c]), fabs(r1[c] - b1[c])));
        printf("%s: visual and collision boxes within %.4f m (%.4f m with the up axis applied)\n",
               parts[i], d, e);
        far = fmax(far, d), turned = fmax(turned, e);
    }
    assert_true(far < 0.05);
    assert_true(turned > 0.2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files),      cmocka_unit_test(test_yaml),
        cmocka_unit_test(test_import),     cmocka_unit_test(test_errors),
        cmocka_unit_test(test_no_contact), cmocka_unit_test(test_vtk),
        cmocka_unit_test(test_packages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

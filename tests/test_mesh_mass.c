/*
 * The mass properties of a closed triangle mesh (model.h: ld_mesh_mass_props) against exact
 * solids: the unit corner tetrahedron (V = 1/6, centre 1/4, J about it 1/80 on the diagonal and
 * 1/480 off it), built in memory, with its triangles turned inwards and moved 10⁴ m away; the
 * box of tests/data/import/box.stl (1 × 2 × 3) as read, and under a linear map A p + b (volume
 * |det A| V, centre A c + b, second moments |det A| A C Aᵀ); a flat mesh refused. Then the MJCF
 * import of bodies whose mass comes from mesh geoms (tests/data/import/mesh_inertia.xml): the
 * scaled, turned box under MuJoCo's vertex map in a turned geom (mass, centre and the
 * rotation invariants of its inertia), the box with a geom mass beside a sphere (the whole
 * tensor by the parallel-axis theorem); and, when libmujoco-samples is installed, MuJoCo's
 * mug.xml (a mesh body without an <inertial>) imports and runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#include "liedyn/import.h"
#include "liedyn/integrator.h"
#include "liedyn/lie.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif
#define DATA LD_SOURCE_DIR "/tests/data/import/"

static void near(double got, double want, double rel) {
    if (fabs(got - want) > rel * (1.0 + fabs(want)))
        fail_msg("got %.17g, want %.17g (rel %g)", got, want, rel);
}

/* The unit corner tetrahedron, triangles outward (flip: inward), its vertices moved by off. */
static void tetra(ld_mesh *m, float verts[12], int tris[12], int flip, double off) {
    const float v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const int t[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    for (int i = 0; i < 12; ++i) verts[i] = v[i] + (float)off, tris[i] = t[i];
    for (int k = 0; flip && k < 4; ++k) {
        int s = tris[3 * k + 1];
        tris[3 * k + 1] = tris[3 * k + 2], tris[3 * k + 2] = s;
    }
    memset(m, 0, sizeof *m);
    m->nverts = 4, m->ntris = 4, m->verts = verts, m->tris = tris;
}

static void test_tetrahedron(void **state) {
    (void)state;
    float v[12];
    int t[12];
    for (int c = 0; c < 3; ++c) {
        double off = c == 2 ? 1e4 : 0.0, V, com[3], J[9];
        ld_mesh m;
        tetra(&m, v, t, c == 1, off);
        assert_int_equal(ld_mesh_mass_props(&m, NULL, NULL, &V, com, J), LD_OK);
        double tol = c == 2 ? 1e-12 : 1e-15;
        near(V, 1.0 / 6.0, tol);
        for (int i = 0; i < 3; ++i) near(com[i], 0.25 + off, tol);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) near(J[3 * i + j], i == j ? 1.0 / 80 : 1.0 / 480, tol);
    }
}

/* The exact solid of the box [0,1]×[0,2]×[0,3] under p ↦ A p + b. */
static void box_exact(const double A[9], const double b[3], double *V, double com[3], double J[9]) {
    const double c0[3] = {0.5, 1.0, 1.5}, C0[3] = {6.0 / 12, 6.0 * 4 / 12, 6.0 * 9 / 12};
    double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                 A[2] * (A[3] * A[7] - A[4] * A[6]);
    *V = 6.0 * fabs(det);
    double C[9], tr = 0.0;
    for (int i = 0; i < 3; ++i) {
        com[i] = b[i] + A[3 * i] * c0[0] + A[3 * i + 1] * c0[1] + A[3 * i + 2] * c0[2];
        for (int j = 0; j < 3; ++j) {
            double s = 0.0;
            for (int k = 0; k < 3; ++k) s += A[3 * i + k] * C0[k] * A[3 * j + k];
            C[3 * i + j] = fabs(det) * s;
        }
        tr += C[4 * i];
    }
    for (int i = 0; i < 9; ++i) J[i] = (i % 4 == 0 ? tr : 0.0) - C[i];
}

static void test_box(void **state) {
    (void)state;
    ld_mesh m;
    char why[256];
    assert_int_equal(ld_mesh_load(DATA "box.stl", &m, why, sizeof why), LD_OK);
    double q[4], R[9], A[9], b[3] = {3, -2, 100}, V, com[3], J[9], Ve, ce[3], Je[9];
    const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, zero[3] = {0, 0, 0};
    ld_quat_normalize(q, (double[]){0.9, 0.1, -0.3, 0.2});
    ld_quat_to_mat(R, q);
    const double s[3] = {0.5, -0.25, 2}; /* a mirror too */
    for (int i = 0; i < 9; ++i) A[i] = s[i / 3] * R[i];
    for (int c = 0; c < 2; ++c) {
        const double *Am = c ? A : I3, *bm = c ? b : zero;
        assert_int_equal(ld_mesh_mass_props(&m, c ? A : NULL, c ? b : NULL, &V, com, J), LD_OK);
        box_exact(Am, bm, &Ve, ce, Je);
        near(V, Ve, 1e-14);
        for (int i = 0; i < 3; ++i) near(com[i], ce[i], 1e-14);
        for (int i = 0; i < 9; ++i) near(J[i], Je[i], 1e-13);
        if (c == 0) near(J[0], 6.5, 1e-15); /* the box as read: diag(13, 10, 5)/2 */
    }
    /* flat: every vertex in z = 0 */
    for (int i = 0; i < m.nverts; ++i) m.verts[3 * i + 2] = 0.0f;
    assert_int_equal(ld_mesh_mass_props(&m, NULL, NULL, &V, com, J), LD_EDOMAIN);
    assert_int_equal(ld_mesh_mass_props(NULL, NULL, NULL, &V, com, J), LD_EINVAL);
    ld_mesh_free(&m);
}

/* tr J, tr J², det J: the rotation invariants of a symmetric tensor. */
static void invariants(const double J[9], double out[3]) {
    out[0] = J[0] + J[4] + J[8];
    out[1] = 0.0;
    for (int i = 0; i < 9; ++i) out[1] += J[i] * J[i];
    out[2] = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
             J[2] * (J[3] * J[7] - J[4] * J[6]);
}

static void test_mjcf(void **state) {
    (void)state;
    ld_model m;
    ld_model_error e;
    ld_import_report rep;
    int rc = ld_model_import(DATA "mesh_inertia.xml", &m, &e, &rep);
    ld_import_report_free(&rep);
    if (rc) fail_msg("%s", e.msg);
    /* turned: box.stl ↦ diag(scale) R(refquat)ᵀ (p − refpos) in a geom turned and moved */
    const ld_body *B = &m.bodies[ld_model_body_find(&m, "turned")];
    double rq[4] = {0.9238795325112867, 0, 0.3826834323650898, 0}, R[9], A[9], b[3];
    const double s[3] = {0.5, 0.25, 2}, refpos[3] = {0.5, 1, 0};
    ld_quat_to_mat(R, rq);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) A[3 * i + j] = s[i] * R[3 * j + i];
        b[i] = -(A[3 * i] * refpos[0] + A[3 * i + 1] * refpos[1] + A[3 * i + 2] * refpos[2]);
    }
    double V, c[3], J[9], want[3], got[3];
    box_exact(A, b, &V, c, J);
    for (int i = 0; i < 9; ++i) J[i] *= 1000.0;
    near(B->mass, 1000.0 * V, 1e-14);
    near(B->mass, 1500.0, 1e-14);
    double d[3] = {B->x[0] - 0.1, B->x[1] - 0.2, B->x[2] - 1.3}; /* body pos + geom pos */
    near(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]),
         sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), 1e-14);
    invariants(J, want);
    invariants(B->inertia, got);
    for (int i = 0; i < 3; ++i) near(got[i], want[i], 1e-13);
    /* two: the plain box (mass 2) at (0, 0, −1) and a sphere r = 0.5 (density 1000) at (1, 0, 0) */
    B = &m.bodies[ld_model_body_find(&m, "two")];
    double ms = 1000.0 * 4.0 / 3.0 * 3.14159265358979323846 * 0.125, M = 2.0 + ms;
    const double p1[3] = {0.5, 1.0, 0.5}, p2[3] = {1, 0, 0};
    const double J1[3] = {2.0 * 13 / 12, 2.0 * 10 / 12, 2.0 * 5 / 12}, j2 = 0.4 * ms * 0.25;
    double cm[3], Jw[9] = {0};
    for (int i = 0; i < 3; ++i) cm[i] = (2.0 * p1[i] + ms * p2[i]) / M;
    for (int k = 0; k < 2; ++k) {
        double mk = k ? ms : 2.0, dk[3], dd = 0.0;
        for (int i = 0; i < 3; ++i) dk[i] = (k ? p2[i] : p1[i]) - cm[i], dd += dk[i] * dk[i];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                Jw[3 * i + j] += (i == j ? (k ? j2 : J1[i]) + mk * dd : 0.0) - mk * dk[i] * dk[j];
    }
    near(B->mass, M, 1e-15);
    for (int i = 0; i < 3; ++i) near(B->x[i], (i == 0 ? 3.0 : i == 2 ? 1.0 : 0.0) + cm[i], 1e-14);
    for (int i = 0; i < 9; ++i) near(B->inertia[i], Jw[i], 1e-13);
    ld_model_free(&m);
}

/* MuJoCo's mug: its body's mass comes from a mesh and boxes; it imports and runs. */
static void test_mug(void **state) {
    (void)state;
    const char *path = "/usr/share/mujoco/model/mug/mug.xml";
    if (access(path, R_OK) != 0) {
        printf("skipped: %s not installed (apt-get install libmujoco-samples)\n", path);
        return;
    }
    ld_model m;
    ld_model_error e;
    ld_import_report rep;
    int rc = ld_model_import(path, &m, &e, &rep);
    ld_import_report_free(&rep);
    if (rc) fail_msg("%s", e.msg);
    const ld_body *B = &m.bodies[ld_model_body_find(&m, "mug")];
    printf("mug: mass %.12g kg, centre %.9g %.9g %.9g\n", B->mass, B->x[0], B->x[1], B->x[2]);
    assert_true(B->mass > 0.25 && B->mass < 0.28);
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    int st = ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0);
    assert_int_equal(st, LD_OK);
    ld_integ_options o;
    assert_int_equal(ld_integ_options_from_model(&m, &o), LD_OK);
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    for (int k = 1; k <= 20; ++k) assert_int_equal(ld_integ_advance_to(it, k * 1e-3), LD_OK);
    ld_integ_free(it);
    ld_model_system_free(&s);
    free(q0);
    free(v0);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tetrahedron),
        cmocka_unit_test(test_box),
        cmocka_unit_test(test_mjcf),
        cmocka_unit_test(test_mug),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

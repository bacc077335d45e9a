/*
 * Contact (docs/contact.md): the exact pair tests of the detector (src/elements/contact.h) and
 * the sweep-and-prune broad phase against all pairs — box against box (faces, a turned box's
 * octagon, overlap, crossed edges) and capsule against box included — then the moreau method
 * against exact
 * solutions — the bouncing ball's impact times and its accumulation point
 * t∞ = t₁ (1 + e)/(1 − e) (a Zeno sequence ending at rest), a ball at rest on the plane that
 * does not sink, a cube dropped on a box lying on the plane that comes to rest on its top, a
 * box sliding to rest after v²/(2μg), a box on an incline that sticks below
 * the friction angle and slides with a = g (sin θ − μ cos θ) above it, and a sphere rolling
 * without slip with a = 5/7 g sin θ — in every Lie-group formulation where it matters.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "moreau_run.h"

#include "../src/elements/contact.h"
#include "mat3.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define G  9.81
#define PI 3.14159265358979323846

/* ---------------------------------------------------------------- geometry */

static ld_cshape sphere(double x, double y, double z, double r) {
    ld_cshape s = {.kind = LD_SHAPE_SPHERE, .c = {x, y, z}, .c1 = {x, y, z}, .r = r};
    return s;
}

static ld_cshape capsule(const double a[3], const double b[3], double r) {
    ld_cshape s = {.kind = LD_SHAPE_CAPSULE, .r = r};
    memcpy(s.c, a, sizeof s.c);
    memcpy(s.c1, b, sizeof s.c1);
    return s;
}

static ld_cshape box(double x, double y, double z, double hx, double hy, double hz) {
    ld_cshape s = {
        .kind = LD_SHAPE_BOX, .c = {x, y, z}, .R = {1, 0, 0, 0, 1, 0, 0, 0, 1}, .h = {hx, hy, hz}};
    return s;
}

static void near(double got, double want, double tol, const char *what) {
    if (!(fabs(got - want) <= tol)) fail_msg("%s: %.17g, want %.17g", what, got, want);
}

static void test_pairs(void **state) {
    (void)state;
    ld_contact c[16];
    /* spheres 0.3 apart: gap 0.3 − 0.1 − 0.15, normal from B to A */
    ld_cshape a = sphere(0, 0, 0.3, 0.1), b = sphere(0, 0, 0, 0.15);
    assert_int_equal(ld_contact_pair(&a, &b, 1.0, c), 1);
    near(c[0].gap, 0.05, 1e-15, "sphere-sphere gap");
    near(c[0].n[2], 1.0, 1e-15, "sphere-sphere normal");
    near(c[0].p[2], 0.175, 1e-15, "sphere-sphere point");
    assert_int_equal(ld_contact_pair(&a, &b, 0.04, c), 0); /* beyond the margin */
    /* crossing capsules: segments 0.5 apart along z */
    double p0[3] = {-1, 0, 0.5}, p1[3] = {1, 0, 0.5}, q0[3] = {0, -1, 0}, q1[3] = {0, 1, 0};
    ld_cshape ca = capsule(p0, p1, 0.2), cb = capsule(q0, q1, 0.25);
    assert_int_equal(ld_contact_pair(&ca, &cb, 1.0, c), 1);
    near(c[0].gap, 0.05, 1e-15, "capsule-capsule gap");
    near(c[0].p[0], 0.0, 1e-15, "capsule-capsule point x");
    /* parallel capsules lying side by side touch at both ends */
    double r0[3] = {-1, 0.45, 0}, r1[3] = {1, 0.45, 0}, s0[3] = {-0.5, 0, 0}, s1[3] = {0.5, 0, 0};
    ld_cshape pa = capsule(r0, r1, 0.2), pb = capsule(s0, s1, 0.25);
    assert_int_equal(ld_contact_pair(&pa, &pb, 0.1, c), 2);
    near(c[0].gap, 0.0, 1e-15, "parallel capsules gap");
    /* sphere against a box: face, edge, inside */
    ld_cshape bx = box(0, 0, 0, 0.5, 0.3, 0.2), sp = sphere(0.1, 0, 0.45, 0.2);
    assert_int_equal(ld_contact_pair(&sp, &bx, 1.0, c), 1);
    near(c[0].gap, 0.05, 1e-15, "sphere-box face gap");
    near(c[0].n[2], 1.0, 1e-15, "sphere-box face normal");
    sp = sphere(0.8, 0, 0.6, 0.1); /* over the edge x = 0.5, z = 0.2: distance 0.5 */
    assert_int_equal(ld_contact_pair(&sp, &bx, 1.0, c), 1);
    near(c[0].gap, 0.4, 1e-15, "sphere-box edge gap");
    near(c[0].n[0], 0.6, 1e-15, "sphere-box edge normal");
    sp = sphere(0.45, 0, 0, 0.1); /* centre inside, 0.05 from the face x = 0.5 */
    assert_int_equal(ld_contact_pair(&bx, &sp, 1.0, c), 1); /* box first: normal to the box */
    near(c[0].gap, -0.15, 1e-15, "sphere in box gap");
    near(c[0].n[0], -1.0, 1e-15, "sphere in box normal");
    /* the plane: a box resting flat touches with 4 corners, a lying capsule with 2 ends */
    const double up[3] = {0, 0, 1};
    ld_cshape rest = box(0, 0, 0.2, 0.5, 0.3, 0.2);
    assert_int_equal(ld_contact_plane(&rest, up, 0.0, 1e-9, c), 4);
    for (int i = 0; i < 4; ++i) near(c[i].gap, 0.0, 1e-15, "box on the plane");
    double l0[3] = {-1, 0, 0.2}, l1[3] = {1, 0, 0.2};
    ld_cshape lying = capsule(l0, l1, 0.2);
    assert_int_equal(ld_contact_plane(&lying, up, 0.0, 1e-9, c), 2);
    sp = sphere(0, 0, 0.25, 0.2);
    assert_int_equal(ld_contact_plane(&sp, up, 0.1, 1.0, c), 1);
    near(c[0].gap, -0.05, 1e-15, "sphere-plane gap");
    near(c[0].p[2], 0.075, 1e-15, "sphere-plane point");
}

/* Box b turned by angle t about the space axis ax (0, 1, 2). */
static ld_cshape turned(ld_cshape b, int ax, double t) {
    int u = (ax + 1) % 3, v = (ax + 2) % 3;
    double R[9] = {0};
    R[4 * ax] = 1.0;
    R[3 * u + u] = cos(t), R[3 * u + v] = -sin(t);
    R[3 * v + u] = sin(t), R[3 * v + v] = cos(t);
    memcpy(b.R, R, sizeof R);
    return b;
}

/* Every contact of c[0..n) has the gap g and the normal nz along z. */
static void all_along_z(const ld_contact *c, int n, double g, double nz, double tol,
                        const char *what) {
    for (int i = 0; i < n; ++i) {
        near(c[i].gap, g, tol, what);
        near(c[i].n[2], nz, 1e-15, what);
        near(fabs(c[i].n[0]) + fabs(c[i].n[1]), 0.0, 1e-15, what);
    }
}

/* Box against box: faces stacked with a gap, a box turned 45° on another (the octagon where
 * the two squares overlap), overlap by the least penetration, crossed edges, the margin. */
static void test_box_box(void **state) {
    (void)state;
    ld_contact c[16];
    /* stacked: the top 0.05 above: 4 corners of the top's bottom face, normal from B to A */
    ld_cshape lo = box(0, 0, 0, 0.5, 0.4, 0.3), up = box(0.1, 0.05, 0.55, 0.2, 0.15, 0.2);
    assert_int_equal(ld_contact_pair(&up, &lo, 0.1, c), 4);
    all_along_z(c, 4, 0.05, 1.0, 1e-15, "stacked boxes");
    for (int i = 0; i < 4; ++i) {
        near(c[i].p[2], 0.325, 1e-15, "stacked boxes: point midway");
        near(fabs(c[i].p[0] - 0.1), 0.2, 1e-15, "stacked boxes: corner x");
        near(fabs(c[i].p[1] - 0.05), 0.15, 1e-15, "stacked boxes: corner y");
    }
    assert_int_equal(ld_contact_pair(&lo, &up, 0.1, c), 4); /* swapped: the normal turns */
    all_along_z(c, 4, 0.05, -1.0, 1e-15, "stacked boxes swapped");
    assert_int_equal(ld_contact_pair(&up, &lo, 0.05, c), 0); /* beyond the margin */
    assert_int_equal(ld_contact_pair(&up, &lo, 0.04, c), 0);
    /* a unit cube turned 45° about z resting on another: the octagon |x|, |y| ≤ 0.5,
     * |x| + |y| ≤ √½, its corners (±0.5, ±(√½ − 0.5)) and (±(√½ − 0.5), ±0.5) */
    double s2 = sqrt(0.5), k = s2 - 0.5;
    ld_cshape base = box(0, 0, 0, 0.5, 0.5, 0.5),
              top = turned(box(0, 0, 1, 0.5, 0.5, 0.5), 2, PI / 4);
    int n = ld_contact_pair(&top, &base, 1e-9, c);
    assert_int_equal(n, 8);
    all_along_z(c, n, 0.0, 1.0, 1e-15, "turned box on a box");
    for (int i = 0; i < n; ++i) {
        double ax = fabs(c[i].p[0]), ay = fabs(c[i].p[1]);
        near(fmax(ax, ay), 0.5, 1e-15, "turned box: octagon corner on the square");
        near(fmin(ax, ay), k, 1e-15, "turned box: octagon corner");
        near(c[i].p[2], 0.5, 1e-15, "turned box: point height");
    }
    /* a small box turned 30° inside the big face: its own 4 corners, gap −0.01 */
    ld_cshape small = turned(box(0.1, 0, 0.59, 0.1, 0.1, 0.1), 2, PI / 6);
    assert_int_equal(ld_contact_pair(&small, &base, 0.0, c), 4);
    all_along_z(c, 4, -0.01, 1.0, 1e-15, "small turned box");
    for (int i = 0; i < 4; ++i)
        near(hypot(c[i].p[0] - 0.1, c[i].p[1]), sqrt(0.02), 1e-15, "small turned box: corners");
    /* overlapping: 0.05 deep along z, 0.7 along x: the least penetration, 4 contacts over
     * x ∈ [−0.2, 0.5] */
    ld_cshape over = box(0.3, 0, 0.95, 0.5, 0.5, 0.5);
    assert_int_equal(ld_contact_pair(&over, &base, 0.0, c), 4);
    all_along_z(c, 4, -0.05, 1.0, 1e-15, "overlapping boxes");
    for (int i = 0; i < 4; ++i) {
        near(c[i].p[2], 0.475, 1e-15, "overlapping boxes: point midway");
        assert_true(c[i].p[0] > -0.2 - 1e-15 && c[i].p[0] < 0.5 + 1e-15);
    }
    /* crossed edges: B turned 45° about x (its top edge along x at √½), A turned 45° about y
     * (its bottom edge along y at z − √½): gap z − √2 at the point (0, 0, z/2) */
    ld_cshape eb = turned(box(0, 0, 0, 0.5, 0.5, 0.5), 0, PI / 4);
    double zs[2] = {sqrt(2.0) + 0.1, sqrt(2.0) - 0.02};
    for (int t = 0; t < 2; ++t) {
        ld_cshape ea = turned(box(0, 0, zs[t], 0.5, 0.5, 0.5), 1, PI / 4);
        assert_int_equal(ld_contact_pair(&ea, &eb, 0.2, c), 1);
        all_along_z(c, 1, zs[t] - sqrt(2.0), 1.0, 1e-15, "crossed edges");
        near(c[0].p[0], 0.0, 1e-15, "crossed edges: point x");
        near(c[0].p[1], 0.0, 1e-15, "crossed edges: point y");
        near(c[0].p[2], 0.5 * zs[t], 1e-15, "crossed edges: point z");
        assert_int_equal(ld_contact_pair(&ea, &eb, zs[t] - sqrt(2.0), c), 0);
    }
}

/* Capsule against box: lying on a face (its part over the face: two ends), across the face,
 * over an edge, across a turned box's edge, through the box (the least penetration). */
static void test_capsule_box(void **state) {
    (void)state;
    ld_contact c[16];
    ld_cshape bx = box(0, 0, 0, 0.5, 0.4, 0.3);
    double p0[3] = {-0.2, 0, 0.45}, p1[3] = {0.3, 0, 0.45};
    ld_cshape cp = capsule(p0, p1, 0.1);
    assert_int_equal(ld_contact_pair(&cp, &bx, 0.1, c), 2);
    all_along_z(c, 2, 0.05, 1.0, 1e-15, "capsule on a box face");
    near(c[0].p[0] + c[1].p[0], 0.1, 1e-15, "capsule on a box face: its ends");
    near(fabs(c[0].p[0] - c[1].p[0]), 0.5, 1e-15, "capsule on a box face: its ends");
    near(c[0].p[2], 0.325, 1e-15, "capsule on a box face: point midway");
    assert_int_equal(ld_contact_pair(&bx, &cp, 0.1, c), 2); /* box first: the normal turns */
    all_along_z(c, 2, 0.05, -1.0, 1e-15, "box under a capsule");
    assert_int_equal(ld_contact_pair(&cp, &bx, 0.05, c), 0); /* beyond the margin */
    /* longer than the box: touches where it leaves the face, x = ±0.5 */
    double l0[3] = {-1, 0, 0.45}, l1[3] = {1, 0, 0.45};
    cp = capsule(l0, l1, 0.1);
    assert_int_equal(ld_contact_pair(&cp, &bx, 0.1, c), 2);
    all_along_z(c, 2, 0.05, 1.0, 1e-15, "capsule across a box");
    near(fabs(c[0].p[0]) + fabs(c[1].p[0]), 1.0, 1e-15, "capsule across a box: x = ±0.5");
    /* along y over the edge x = 0.5, z = 0.3: distance 0.5, normal (0.6, 0, 0.8) */
    double e0[3] = {0.8, -0.2, 0.7}, e1[3] = {0.8, 0.2, 0.7};
    cp = capsule(e0, e1, 0.1);
    assert_int_equal(ld_contact_pair(&cp, &bx, 1.0, c), 1);
    near(c[0].gap, 0.4, 1e-15, "capsule over a box edge: gap");
    near(c[0].n[0], 0.6, 1e-15, "capsule over a box edge: normal x");
    near(c[0].n[2], 0.8, 1e-15, "capsule over a box edge: normal z");
    /* across the top edge (along x, at √½) of a unit cube turned 45° about x */
    ld_cshape tb = turned(box(0, 0, 0, 0.5, 0.5, 0.5), 0, PI / 4);
    double y0[3] = {0.1, -1, 0.9}, y1[3] = {0.1, 1, 0.9};
    cp = capsule(y0, y1, 0.1);
    assert_int_equal(ld_contact_pair(&cp, &tb, 0.5, c), 1);
    all_along_z(c, 1, 0.8 - sqrt(0.5), 1.0, 1e-15, "capsule across a turned box's edge");
    near(c[0].p[0], 0.1, 1e-15, "capsule across an edge: point x");
    near(c[0].p[1], 0.0, 1e-15, "capsule across an edge: point y");
    /* through the box along z at x = 0.1: least penetration along +x, 0.1 − 0.5 − 0.1, at the
     * faces z = ±0.3 */
    ld_cshape deep = box(0, 0, 0, 0.5, 0.6, 0.3);
    double d0[3] = {0.1, 0, -1}, d1[3] = {0.1, 0, 1};
    cp = capsule(d0, d1, 0.1);
    assert_int_equal(ld_contact_pair(&cp, &deep, 0.0, c), 2);
    for (int i = 0; i < 2; ++i) {
        near(c[i].gap, -0.5, 1e-15, "capsule through a box: gap");
        near(c[i].n[0], 1.0, 1e-15, "capsule through a box: normal");
        near(fabs(c[i].p[2]), 0.3, 1e-15, "capsule through a box: points");
    }
}

/* The sweep and prune finds what testing every pair finds, on 300 random spheres. */
static void test_broad_phase(void **state) {
    (void)state;
    enum { N = 300 };
    static char text[N * 160 + 256];
    size_t len = (size_t)snprintf(text, sizeof text, "bodies:\n");
    rng r = rng_seed(5);
    for (int i = 0; i < N; ++i)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "  - {name: s%d, mass: 1, inertia: [1, 1, 1], position: [%.6f, "
                                "%.6f, %.6f], shape: {type: sphere, radius: %.4f, collide: "
                                "true}}\n",
                                i, rng_range(&r, 0, 4), rng_range(&r, 0, 4), rng_range(&r, 0, 1),
                                rng_range(&r, 0.05, 0.2));
    ld_model m;
    ld_model_error e;
    if (ld_model_parse(text, len, "many.yaml", &m, &e)) fail_msg("%s", e.msg);
    double *R = malloc(12 * N * sizeof *R), *x = R + 9 * N;
    assert_non_null(R);
    for (int i = 0; i < N; ++i) {
        const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(R + 9 * i, I, sizeof I);
        memcpy(x + 3 * i, m.bodies[i].x, 3 * sizeof *x);
    }
    ld_cworld *w = ld_cworld_create(&m, 20000);
    assert_non_null(w);
    const ld_contact *found;
    int n = ld_cworld_find(w, R, x, 0.01, &found);
    int brute = 0;
    for (int i = 0; i < N; ++i)
        for (int j = i + 1; j < N; ++j) {
            ld_cshape a = sphere(x[3 * i], x[3 * i + 1], x[3 * i + 2], m.shapes[i].size[0]);
            ld_cshape b = sphere(x[3 * j], x[3 * j + 1], x[3 * j + 2], m.shapes[j].size[0]);
            ld_contact c[2];
            brute += ld_contact_pair(&a, &b, 0.01, c);
        }
    assert_true(brute > 50);
    assert_int_equal(n, brute);
    ld_cworld_free(w);
    free(R);
    ld_model_free(&m);
}

/* ---------------------------------------------------------------- dynamics */

/* The ball dropped from 1 m (centre; radius 0.1) with e = 0.8: the impacts at
 * t_{k+1} = t_k + 2 e^k v₁/g, at rest from t∞ = t₁ (1 + e)/(1 − e) on. */
/* Bodies a joint joins do not collide with each other: two overlapping spheres are one contact
 * apart, none when a spherical joint joins them. */
static void test_joined_bodies(void **state) {
    (void)state;
    static const char *const two =
        "bodies:\n"
        "  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0],\n"
        "     shape: {type: sphere, radius: 0.1, collide: true}}\n"
        "  - {name: b, mass: 1, inertia: [1, 1, 1], position: [0.15, 0, 0],\n"
        "     shape: {type: sphere, radius: 0.1, collide: true}}\n";
    char text[512];
    const double R[18] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double x[6] = {0, 0, 0, 0.15, 0, 0};
    for (int k = 0; k < 2; ++k) {
        snprintf(text, sizeof text, "%s%s", two,
                 k ? "joints:\n  - {name: j, type: spherical, body1: a, body2: b, at: [0.075, 0, "
                     "0]}\n"
                   : "");
        ld_model m;
        ld_model_error e;
        ld_model_init(&m);
        if (ld_model_parse(text, strlen(text), "joined.yaml", &m, &e)) fail_msg("%s", e.msg);
        ld_cworld *w = ld_cworld_create(&m, 16);
        assert_non_null(w);
        const ld_contact *c;
        assert_int_equal(ld_cworld_find(w, R, x, 1e-9, &c), k ? 0 : 1);
        ld_cworld_free(w);
        ld_model_free(&m);
    }
}

static void test_bouncing_ball(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n  - {name: ball, mass: 1, inertia: [0.004, 0.004, 0.004], position: [0, 0, 1],\n"
        "     shape: {type: sphere, radius: 0.1, collide: true, restitution: 0.8}}\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n";
    const double h = 1e-4, e = 0.8, t1 = sqrt(2 * 0.9 / G), v1 = G * t1;
    const double tinf = t1 * (1 + e) / (1 - e);
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        run r;
        start(&r, text, (ld_formulation)f, h);
        double want = t1, ek = 1.0, x[3], q[4], w[3], v[3], prev = -1.0, pen = 0.0;
        int k = 0, n = (int)lround(4.5 / h);
        for (int i = 1; i <= n; ++i) {
            assert_int_equal(ld_integ_advance_to(r.it, i * h), LD_OK);
            body(&r, x, q, w, v);
            pen = fmax(pen, 0.1 - x[2]);
            if (prev < 0.0 && v[2] > 0.0 && k < 8) { /* an impact in the last step */
                if (!(fabs(i * h - want) < 2 * h + 2e-4 * k))
                    fail_msg("%s: impact %d at %.5f, want %.5f", ld_formulation_name(f), k, i * h,
                             want);
                want += 2 * e * ek * v1 / G;
                ek *= e;
                ++k;
            }
            prev = v[2];
        }
        assert_true(k == 8);
        /* past t∞ = 3.855: at rest on the plane, within O(g h²) of touching; no overlap at
         * the steps' ends (the position correction), the midpoint's that of a landing, O(h v) */
        ld_contact_stats cs;
        assert_int_equal(ld_integ_contact_stats(r.it, &cs), LD_OK);
        if (!(fabs(v[2]) < 1e-12 && x[2] >= 0.1 && x[2] - 0.1 < 1e-7 && pen < 1e-12 &&
              cs.max_overlap > 0.0 && cs.max_overlap < 0.5 * h * 4.3))
            fail_msg("%s: at t = 4.5 z = %.12f, vz = %.3g, largest overlap %.3g at a step's "
                     "end, %.3g at a midpoint (t∞ = %.4f)",
                     ld_formulation_name(f), x[2], v[2], pen, cs.max_overlap, tinf);
        stop(&r);
    }
}

/* A ball put on the plane at rest stays: no sinking over 10⁴ steps. */
static void test_resting_ball(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n  - {name: ball, mass: 2, inertia: [0.008, 0.008, 0.008], position: [0, 0, "
        "0.1],\n"
        "     shape: {type: sphere, radius: 0.1, collide: true, restitution: 0.5}}\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n";
    run r;
    start(&r, text, LD_FORM_SO3XR3, 1e-3);
    double x[3], q[4], w[3], v[3], sink = 0.0;
    for (int i = 1; i <= 10000; ++i) {
        assert_int_equal(ld_integ_advance_to(r.it, i * 1e-3), LD_OK);
        body(&r, x, q, w, v);
        sink = fmax(sink, fabs(x[2] - 0.1));
    }
    if (!(sink < 1e-12)) fail_msg("the resting ball moved %.3g", sink);
    stop(&r);
}

/* A cube of 0.2 m (e = 0, μ = 0.5) dropped from 5 cm onto a 1 × 1 × 0.4 m box lying on the
 * plane: after 1 s both at rest, the cube on the box's top (0.4 + 0.1), and neither moves over
 * a further second. */
static void test_box_on_box(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n"
        "  - {name: big, mass: 10, inertia: [0.96667, 0.96667, 1.66667], position: [0, 0, 0.2],\n"
        "     shape: {type: box, size: [1, 1, 0.4], collide: true, friction: 0.5}}\n"
        "  - {name: cube, mass: 1, inertia: [0.0066667, 0.0066667, 0.0066667],\n"
        "     position: [0.1, -0.05, 0.55], orientation: [0.9659258262890683, 0, 0, "
        "0.25881904510252074],\n"
        "     shape: {type: box, size: [0.2, 0.2, 0.2], collide: true, friction: 0.5}}\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n";
    const double h = 5e-5;
    const int n1 = 20000;
    run r;
    start(&r, text, LD_FORM_SO3XR3, h);
    int s1, s2;
    assert_int_equal(ld_cworld_unsupported(&r.m, &s1, &s2), 0); /* box-box is detected */
    double x[2][3], q[4], w[2][3], v[2][3], rest[2][3], drift = 0.0, speed = 0.0;
    for (int i = 1; i <= 2 * n1; ++i) {
        assert_int_equal(ld_integ_advance_to(r.it, i * h), LD_OK);
        if (i < n1) continue;
        for (int b = 0; b < 2; ++b) {
            assert_int_equal(ld_model_body_state(&r.s, b, ld_integ_q(r.it), ld_integ_v(r.it), x[b],
                                                 q, w[b], v[b]),
                             LD_OK);
            if (i == n1) memcpy(rest[b], x[b], sizeof rest[b]);
            for (int k = 0; k < 3; ++k) {
                drift = fmax(drift, fabs(x[b][k] - rest[b][k]));
                speed = fmax(speed, fmax(fabs(v[b][k]), fabs(w[b][k])));
            }
        }
        if (i == n1) {
            near(x[0][2], 0.2, 1e-9, "box on box: the big box on the plane");
            near(x[1][2], 0.5, 1e-9, "box on box: the cube on the big box");
        }
    }
    if (!(speed < 1e-9 && drift < 1e-9))
        fail_msg("box on box: from t = 1 s speed up to %.3g, moved %.3g (cube at %.9f)", speed,
                 drift, x[1][2]);
    stop(&r);
}

/* A box on an incline of angle th (the plane's normal tilted about y), friction mu, started
 * with speed v0 along the slope (downhill positive); after T its displacement along the slope
 * and its speed. */
static void incline(double th, double mu, double v0, double T, ld_formulation f, double *s,
                    double *speed) {
    char text[1024];
    double c = cos(th), sn = sin(th), dn[3] = {c, 0, -sn}; /* downhill: x tilted by th */
    snprintf(text, sizeof text,
             "gravity: [0, 0, -9.81]\n"
             "bodies:\n  - {name: box, mass: 1, inertia: [0.00833, 0.00833, 0.00833],\n"
             "     position: [%.17g, 0, %.17g], orientation: [%.17g, 0, %.17g, 0],\n"
             "     velocity: [%.17g, 0, %.17g],\n"
             "     shape: {type: box, size: [0.2, 0.2, 0.2], collide: true, friction: %g}}\n"
             "ground_plane: {normal: [%.17g, 0, %.17g], point: [0, 0, 0]}\n",
             0.1 * sn, 0.1 * c, cos(th / 2), sin(th / 2), v0 * dn[0], v0 * dn[2], mu, sn, c);
    run r;
    start(&r, text, f, 1e-4);
    double x[3], q[4], w[3], v[3];
    int n = (int)lround(T / 1e-4);
    for (int i = 1; i <= n; ++i) assert_int_equal(ld_integ_advance_to(r.it, i * 1e-4), LD_OK);
    body(&r, x, q, w, v);
    *s = (x[0] - 0.1 * sn) * dn[0] + (x[2] - 0.1 * c) * dn[2];
    *speed = ld_v3_dot(v, dn);
    stop(&r);
}

static void test_sliding_box(void **state) {
    (void)state;
    double s, v;
    /* flat: 2 m/s, μ = 0.5: at rest after v²/(2μg) = 0.4077 m (t = 0.41 s) */
    incline(0.0, 0.5, 2.0, 1.0, LD_FORM_SO3XR3, &s, &v);
    near(s, 4.0 / (2 * 0.5 * G), 2e-3, "sliding box: stopping distance");
    near(v, 0.0, 1e-9, "sliding box: at rest");
    /* 20° with μ = 0.5 (friction angle 26.6°): it sticks */
    incline(20.0 * PI / 180, 0.5, 0.0, 1.0, LD_FORM_SE3, &s, &v);
    near(s, 0.0, 1e-9, "incline 20°: sticks");
    /* 35°: it slides, a = g (sin θ − μ cos θ) */
    double th = 35.0 * PI / 180, a = G * (sin(th) - 0.5 * cos(th));
    incline(th, 0.5, 0.0, 1.0, LD_FORM_S3XR3, &s, &v);
    near(s, 0.5 * a, 2e-3 * a, "incline 35°: distance");
    near(v, a, 2e-3 * a, "incline 35°: speed");
}

/* A sphere on a 30° incline with μ = 0.6 (enough: μ > 2/7 tan θ) rolls without slipping:
 * a = 5/7 g sin θ, and its spin matches its speed, ω r = v. */
static void test_rolling_sphere(void **state) {
    (void)state;
    double th = PI / 6, r = 0.1, mm = 1.0, I = 0.4 * mm * r * r;
    double c = cos(th), sn = sin(th), dn[3] = {c, 0, -sn};
    char text[1024];
    snprintf(text, sizeof text,
             "gravity: [0, 0, -9.81]\n"
             "bodies:\n  - {name: ball, mass: 1, inertia: [%.17g, %.17g, %.17g],\n"
             "     position: [%.17g, 0, %.17g],\n"
             "     shape: {type: sphere, radius: 0.1, collide: true, friction: 0.6}}\n"
             "ground_plane: {normal: [%.17g, 0, %.17g], point: [0, 0, 0]}\n",
             I, I, I, r * sn, r * c, sn, c);
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        run rr;
        start(&rr, text, (ld_formulation)f, 1e-4);
        for (int i = 1; i <= 10000; ++i)
            assert_int_equal(ld_integ_advance_to(rr.it, i * 1e-4), LD_OK);
        double x[3], q[4], w[3], v[3], ws[3];
        body(&rr, x, q, w, v);
        ld_quat_rotate(ws, q, w);
        double a = 5.0 / 7.0 * G * sn, speed = ld_v3_dot(v, dn);
        near(speed, a, 1e-3 * a, "rolling sphere: speed after 1 s");
        near(ws[1] * r, speed, 1e-6 * a, "rolling sphere: no slip");
        stop(&rr);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs),        cmocka_unit_test(test_joined_bodies),
        cmocka_unit_test(test_box_box),      cmocka_unit_test(test_capsule_box),
        cmocka_unit_test(test_broad_phase),  cmocka_unit_test(test_bouncing_ball),
        cmocka_unit_test(test_resting_ball), cmocka_unit_test(test_box_on_box),
        cmocka_unit_test(test_sliding_box),  cmocka_unit_test(test_rolling_sphere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Cylinder contact (docs/contact.md, src/elements/contact_cylinder.c): each pair test's gaps,
 * normals and points against hand-computed values — the ground plane (standing: its rim;
 * lying: the ends of its lowest line; tilted: its lowest rim point), a sphere (side, end face,
 * rim, centre inside), a capsule, a box and a cylinder (standing, lying, crossed, tilted, apart,
 * touching, overlapping) — the placing of a cylinder and its bounds, the model check, and
 * cylinders dropped on the ground plane with moreau that come to rest standing at half their
 * length and lying at their radius.
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

#define PI 3.14159265358979323846

/* ---------------------------------------------------------------- shapes */

/* A cylinder of radius r, its middle m, its unit axis a, half length hl. */
static ld_cshape cyl(const double m[3], const double a[3], double hl, double r) {
    ld_cshape s = {.kind = LD_SHAPE_CYLINDER, .r = r};
    for (int i = 0; i < 3; ++i) s.c[i] = m[i] - hl * a[i], s.c1[i] = m[i] + hl * a[i];
    return s;
}

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
    memcpy(s.c1, s.c, sizeof s.c1);
    return s;
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

static const double X[3] = {1, 0, 0}, Y[3] = {0, 1, 0}, Z[3] = {0, 0, 1};

static void near(double got, double want, double tol, const char *what) {
    if (!(fabs(got - want) <= tol)) fail_msg("%s: %.17g, want %.17g", what, got, want);
}

/* Contact c has the gap g and the normal (nx, ny, nz). */
static void is(const ld_contact *c, double g, double nx, double ny, double nz, double tol,
               const char *what) {
    near(c->gap, g, tol, what);
    near(c->n[0], nx, tol, what);
    near(c->n[1], ny, tol, what);
    near(c->n[2], nz, tol, what);
}

static void point_is(const ld_contact *c, double x, double y, double z, double tol,
                     const char *what) {
    near(c->p[0], x, tol, what);
    near(c->p[1], y, tol, what);
    near(c->p[2], z, tol, what);
}

/* The contact of c[0..n) nearest to x along axis k (the one with the smallest coordinate when
 * lo, else the largest). */
static const ld_contact *extreme(const ld_contact *c, int n, int k, int lo) {
    int b = 0;
    for (int i = 1; i < n; ++i)
        if (lo ? c[i].p[k] < c[b].p[k] : c[i].p[k] > c[b].p[k]) b = i;
    return &c[b];
}

/* ---------------------------------------------------------------- the plane */

static void test_plane(void **state) {
    (void)state;
    ld_contact c[16];
    const double up[3] = {0, 0, 1}, m0[3] = {0.1, -0.2, 0.2};
    /* standing (r 0.1, length 0.4): 8 rim points at z = 0, 0.1 from the axis */
    ld_cshape s = cyl(m0, Z, 0.2, 0.1);
    assert_int_equal(ld_contact_plane(&s, up, 0.0, 1e-9, c), 8);
    for (int i = 0; i < 8; ++i) {
        is(&c[i], 0.0, 0, 0, 1, 1e-15, "standing on the plane");
        near(hypot(c[i].p[0] - 0.1, c[i].p[1] + 0.2), 0.1, 1e-15, "standing: on the rim");
        near(c[i].p[2], 0.0, 1e-15, "standing: point");
    }
    double m1[3] = {0.1, -0.2, 0.19}; /* 0.01 deep: points midway, z = −0.005 */
    s = cyl(m1, Z, 0.2, 0.1);
    assert_int_equal(ld_contact_plane(&s, up, 0.0, 0.0, c), 8);
    for (int i = 0; i < 8; ++i) is(&c[i], -0.01, 0, 0, 1, 1e-15, "standing, overlapping");
    near(c[3].p[2], -0.005, 1e-15, "standing, overlapping: point");
    /* upside down (axis −z): the same */
    s = cyl(m0, (double[3]){0, 0, -1}, 0.2, 0.1);
    assert_int_equal(ld_contact_plane(&s, up, 0.0, 1e-9, c), 8);
    /* lying along x at z = r: the ends of its lowest line, (±0.2, 0, 0) */
    double m2[3] = {0, 0, 0.1};
    s = cyl(m2, X, 0.2, 0.1);
    assert_int_equal(ld_contact_plane(&s, up, 0.0, 1e-9, c), 2);
    for (int i = 0; i < 2; ++i) {
        is(&c[i], 0.0, 0, 0, 1, 1e-15, "lying on the plane");
        near(fabs(c[i].p[0]), 0.2, 1e-15, "lying: ends");
        near(c[i].p[1], 0.0, 1e-15, "lying: y");
        near(c[i].p[2], 0.0, 1e-15, "lying: z");
    }
    near(c[0].p[0] + c[1].p[0], 0.0, 1e-15, "lying: both ends");
    /* turned 90° (along y), 0.05 above: gap 0.05, points at z = 0.025 */
    double m3[3] = {0, 0, 0.15};
    s = cyl(m3, Y, 0.2, 0.1);
    assert_int_equal(ld_contact_plane(&s, up, 0.0, 0.1, c), 2);
    for (int i = 0; i < 2; ++i) {
        is(&c[i], 0.05, 0, 0, 1, 1e-15, "lying apart");
        near(fabs(c[i].p[1]), 0.2, 1e-15, "lying apart: ends");
        near(c[i].p[2], 0.025, 1e-15, "lying apart: point");
    }
    assert_int_equal(ld_contact_plane(&s, up, 0.0, 0.04, c), 0); /* beyond the margin */
    /* tilted 30° about y, middle at z = 0.3: its lowest rim point,
     * m − hl (sin θ, 0, cos θ) + r (cos θ, 0, −sin θ), at 0.3 − 0.2 cos θ − 0.1 sin θ */
    double th = PI / 6, a[3] = {sin(th), 0, cos(th)}, m4[3] = {0, 0, 0.3};
    s = cyl(m4, a, 0.2, 0.1);
    double g = 0.3 - 0.2 * cos(th) - 0.1 * sin(th), x = -0.2 * sin(th) + 0.1 * cos(th);
    assert_int_equal(ld_contact_plane(&s, up, 0.0, 0.08, c), 1);
    is(&c[0], g, 0, 0, 1, 1e-15, "tilted on the plane");
    point_is(&c[0], x, 0, 0.5 * g, 1e-15, "tilted: lowest rim point");
    /* a tilted plane (normal turned 30° about y) and the cylinder standing square on it */
    double nt[3] = {sin(th), 0, cos(th)}, m5[3] = {1.0 * nt[0], 0, 1.0 * nt[2]};
    s = cyl(m5, nt, 0.2, 0.1);
    assert_int_equal(ld_contact_plane(&s, nt, 0.8, 1e-9, c), 8);
    for (int i = 0; i < 8; ++i) {
        is(&c[i], 0.0, nt[0], 0, nt[2], 1e-15, "standing on a tilted plane");
        near(ld_v3_dot(nt, c[i].p), 0.8, 1e-15, "standing on a tilted plane: point");
    }
}

/* ---------------------------------------------------------------- the sphere */

static void test_sphere(void **state) {
    (void)state;
    ld_contact c[16];
    const double o[3] = {0, 0, 0};
    ld_cshape cy = cyl(o, Z, 0.2, 0.1), sp = sphere(0.3, 0, 0.05, 0.1);
    /* beside the side: gap 0.3 − 0.1 − 0.1, point midway (0.15, 0, 0.05) */
    assert_int_equal(ld_contact_pair(&sp, &cy, 1.0, c), 1);
    is(&c[0], 0.1, 1, 0, 0, 1e-15, "sphere beside the side");
    point_is(&c[0], 0.15, 0, 0.05, 1e-15, "sphere beside the side: point");
    assert_int_equal(ld_contact_pair(&cy, &sp, 1.0, c), 1); /* cylinder first: normal turns */
    is(&c[0], 0.1, -1, 0, 0, 1e-15, "cylinder beside a sphere");
    assert_int_equal(ld_contact_pair(&sp, &cy, 0.09, c), 0);
    /* over the end face: gap 0.35 − 0.2 − 0.1 */
    sp = sphere(0.05, 0, 0.35, 0.1);
    assert_int_equal(ld_contact_pair(&sp, &cy, 1.0, c), 1);
    is(&c[0], 0.05, 0, 0, 1, 1e-15, "sphere over the end face");
    point_is(&c[0], 0.05, 0, 0.225, 1e-15, "sphere over the end face: point");
    /* beyond the rim (0.1, 0, 0.2): 0.5 away along (0.6, 0, 0.8) */
    sp = sphere(0.4, 0, 0.6, 0.1);
    assert_int_equal(ld_contact_pair(&sp, &cy, 1.0, c), 1);
    is(&c[0], 0.4, 0.6, 0, 0.8, 1e-15, "sphere beyond the rim");
    point_is(&c[0], 0.22, 0, 0.36, 1e-15, "sphere beyond the rim: point");
    /* overlapping the side from outside */
    sp = sphere(0, 0.15, 0, 0.1);
    assert_int_equal(ld_contact_pair(&sp, &cy, 0.0, c), 1);
    is(&c[0], -0.05, 0, 1, 0, 1e-15, "sphere into the side");
    /* the centre inside, nearer the side (0.02) than the end (0.2) */
    sp = sphere(0.08, 0, 0, 0.05);
    assert_int_equal(ld_contact_pair(&sp, &cy, 0.0, c), 1);
    is(&c[0], -0.07, 1, 0, 0, 1e-15, "sphere inside, near the side");
    /* the centre inside, nearer the end face (0.01) than the side (0.09) */
    sp = sphere(0, 0.01, -0.19, 0.05);
    assert_int_equal(ld_contact_pair(&sp, &cy, 0.0, c), 1);
    is(&c[0], -0.06, 0, 0, -1, 1e-15, "sphere inside, near the end");
    /* a cylinder lying along y, the sphere on its side from above */
    double m[3] = {1, 2, 3};
    cy = cyl(m, Y, 0.5, 0.2), sp = sphere(1, 2.3, 3.5, 0.25);
    assert_int_equal(ld_contact_pair(&sp, &cy, 1.0, c), 1);
    is(&c[0], 0.05, 0, 0, 1, 1e-15, "sphere on a lying cylinder");
    point_is(&c[0], 1, 2.3, 3.225, 1e-15, "sphere on a lying cylinder: point");
}

/* ---------------------------------------------------------------- the capsule */

static void test_capsule(void **state) {
    (void)state;
    ld_contact c[16];
    const double o[3] = {0, 0, 0};
    ld_cshape cy = cyl(o, Z, 0.2, 0.1);
    /* lying on the end face, 0.05 above: its two ends */
    double p0[3] = {-0.05, 0, 0.3}, p1[3] = {0.05, 0, 0.3};
    ld_cshape cp = capsule(p0, p1, 0.05);
    assert_int_equal(ld_contact_pair(&cp, &cy, 0.1, c), 2);
    for (int i = 0; i < 2; ++i) {
        is(&c[i], 0.05, 0, 0, 1, 1e-12, "capsule on the end face");
        near(fabs(c[i].p[0]), 0.05, 1e-12, "capsule on the end face: ends");
        near(c[i].p[2], 0.225, 1e-12, "capsule on the end face: point");
    }
    assert_int_equal(ld_contact_pair(&cy, &cp, 0.1, c), 2); /* cylinder first */
    for (int i = 0; i < 2; ++i) is(&c[i], 0.05, 0, 0, -1, 1e-12, "end face under a capsule");
    assert_int_equal(ld_contact_pair(&cp, &cy, 0.04, c), 0);
    /* longer than the face is wide, 0.01 deep: where it leaves the disc, x = ±0.1 */
    double q0[3] = {-0.5, 0, 0.24}, q1[3] = {0.5, 0, 0.24};
    cp = capsule(q0, q1, 0.05);
    assert_int_equal(ld_contact_pair(&cp, &cy, 0.0, c), 2);
    for (int i = 0; i < 2; ++i) {
        is(&c[i], -0.01, 0, 0, 1, 1e-12, "capsule across the end face");
        near(fabs(c[i].p[0]), 0.1, 1e-12, "capsule across the end face: x = ±r");
    }
    /* standing beside the side, parallel: the ends of their common part, z = ±0.1 */
    double s0[3] = {0.3, 0, -0.1}, s1[3] = {0.3, 0, 0.1};
    cp = capsule(s0, s1, 0.1);
    assert_int_equal(ld_contact_pair(&cp, &cy, 0.2, c), 2);
    for (int i = 0; i < 2; ++i) {
        is(&c[i], 0.1, 1, 0, 0, 1e-12, "capsule beside the side");
        near(c[i].p[0], 0.15, 1e-12, "capsule beside the side: point x");
        near(fabs(c[i].p[2]), 0.1, 1e-12, "capsule beside the side: ends");
    }
    /* across the side (along y): one point, (0.15, 0, 0.05) */
    double t0[3] = {0.25, -1, 0.05}, t1[3] = {0.25, 1, 0.05};
    cp = capsule(t0, t1, 0.05);
    assert_int_equal(ld_contact_pair(&cp, &cy, 0.2, c), 1);
    is(&c[0], 0.1, 1, 0, 0, 1e-12, "capsule across the side");
    point_is(&c[0], 0.15, 0, 0.05, 1e-12, "capsule across the side: point");
    /* its end beyond the rim: 0.5 from (0.1, 0, 0.2) along (0.6, 0, 0.8) */
    double u0[3] = {0.4, 0, 0.6}, u1[3] = {0.4, 0, 1.0};
    cp = capsule(u0, u1, 0.1);
    assert_int_equal(ld_contact_pair(&cp, &cy, 1.0, c), 1);
    is(&c[0], 0.4, 0.6, 0, 0.8, 1e-9, "capsule beyond the rim");
    point_is(&c[0], 0.22, 0, 0.36, 1e-9, "capsule beyond the rim: point");
    /* into the side, 0.02 deep, crossing: the least penetration */
    double w0[3] = {0.13, -1, 0}, w1[3] = {0.13, 1, 0};
    cp = capsule(w0, w1, 0.05);
    assert_int_equal(ld_contact_pair(&cp, &cy, 0.0, c), 1);
    is(&c[0], -0.02, 1, 0, 0, 1e-9, "capsule into the side");
}

/* ---------------------------------------------------------------- the box */

static void test_box(void **state) {
    (void)state;
    ld_contact c[16];
    ld_cshape bx = box(0, 0, 0, 0.5, 0.5, 0.1);
    /* standing on the box's top, 0.05 above: 8 rim points 0.1 from its axis */
    double zs[3] = {0.35, 0.3, 0.29}, gs[3] = {0.05, 0.0, -0.01};
    for (int t = 0; t < 3; ++t) {
        double m[3] = {0.1, 0, zs[t]};
        ld_cshape cy = cyl(m, Z, 0.2, 0.1);
        assert_int_equal(ld_contact_pair(&cy, &bx, 0.1, c), 8);
        for (int i = 0; i < 8; ++i) {
            is(&c[i], gs[t], 0, 0, 1, 1e-12, "standing on a box");
            near(hypot(c[i].p[0] - 0.1, c[i].p[1]), 0.1, 1e-12, "standing on a box: rim");
            near(c[i].p[2], 0.1 + 0.5 * gs[t], 1e-12, "standing on a box: point");
        }
        assert_int_equal(ld_contact_pair(&bx, &cy, 0.1, c), 8); /* box first */
        for (int i = 0; i < 8; ++i) is(&c[i], gs[t], 0, 0, -1, 1e-12, "box under a cylinder");
    }
    /* standing at the box's corner: the part of its octagon over the top, gap 0 */
    double mc[3] = {0.5, 0.5, 0.3};
    ld_cshape cc = cyl(mc, Z, 0.2, 0.1);
    int n = ld_contact_pair(&cc, &bx, 1e-9, c);
    assert_true(n >= 3 && n <= 8);
    for (int i = 0; i < n; ++i) {
        is(&c[i], 0.0, 0, 0, 1, 1e-12, "standing at a corner");
        assert_true(c[i].p[0] <= 0.5 + 1e-12 && c[i].p[1] <= 0.5 + 1e-12);
    }
    /* lying along x on the top: its lowest line's ends (±0.2, 0, 0.1) */
    double ml[3] = {0, 0.1, 0.2};
    ld_cshape cl = cyl(ml, X, 0.2, 0.1);
    assert_int_equal(ld_contact_pair(&cl, &bx, 1e-9, c), 2);
    for (int i = 0; i < 2; ++i) {
        is(&c[i], 0.0, 0, 0, 1, 1e-12, "lying on a box");
        point_is(&c[i], c[i].p[0], 0.1, 0.1, 1e-12, "lying on a box: point");
    }
    near(extreme(c, 2, 0, 1)->p[0], -0.2, 1e-12, "lying on a box: end");
    near(extreme(c, 2, 0, 0)->p[0], 0.2, 1e-12, "lying on a box: end");
    /* turned 90° (along y), longer than the box: the box's edges y = ±0.5; 0.02 apart */
    double my[3] = {0.2, 0, 0.22};
    ld_cshape cw = cyl(my, Y, 1.0, 0.1);
    assert_int_equal(ld_contact_pair(&cw, &bx, 0.05, c), 2);
    for (int i = 0; i < 2; ++i) is(&c[i], 0.02, 0, 0, 1, 1e-12, "long one across a box");
    near(extreme(c, 2, 1, 1)->p[1], -0.5, 1e-12, "long one across a box: edge");
    near(extreme(c, 2, 1, 0)->p[1], 0.5, 1e-12, "long one across a box: edge");
    /* tilted 30° about y: its lowest rim point, as on the plane */
    double th = PI / 6, a[3] = {sin(th), 0, cos(th)}, mt[3] = {0, 0, 0.4};
    ld_cshape ct = cyl(mt, a, 0.2, 0.1);
    double g = 0.4 - 0.2 * cos(th) - 0.1 * sin(th) - 0.1, x = -0.2 * sin(th) + 0.1 * cos(th);
    assert_int_equal(ld_contact_pair(&ct, &bx, 0.5, c), 1);
    is(&c[0], g, 0, 0, 1, 1e-12, "tilted on a box");
    point_is(&c[0], x, 0, 0.1 + 0.5 * g, 1e-12, "tilted on a box: point");
    /* a cube turned 45° about x (its top edge along x at z = √½): a cylinder lying across it
     * (along y) one point, lying along it two (x = ±0.2); 0.05 apart */
    ld_cshape tb = turned(box(0, 0, 0, 0.5, 0.5, 0.5), 0, PI / 4);
    double me[3] = {0, 0, sqrt(0.5) + 0.15};
    ld_cshape ce = cyl(me, Y, 0.2, 0.1);
    assert_int_equal(ld_contact_pair(&ce, &tb, 0.1, c), 1);
    is(&c[0], 0.05, 0, 0, 1, 1e-12, "across a box's edge");
    point_is(&c[0], 0, 0, sqrt(0.5) + 0.025, 1e-12, "across a box's edge: point");
    ce = cyl(me, X, 0.2, 0.1);
    assert_int_equal(ld_contact_pair(&ce, &tb, 0.1, c), 2);
    for (int i = 0; i < 2; ++i) {
        is(&c[i], 0.05, 0, 0, 1, 1e-12, "along a box's edge");
        near(fabs(c[i].p[0]), 0.2, 1e-12, "along a box's edge: ends");
    }
    /* a small box standing on the cylinder's end face: its 4 corners */
    const double o[3] = {0, 0, 0};
    ld_cshape base = cyl(o, Z, 0.2, 0.1), sb = box(0.01, 0, 0.29, 0.05, 0.05, 0.1);
    assert_int_equal(ld_contact_pair(&sb, &base, 0.1, c), 4);
    for (int i = 0; i < 4; ++i) {
        is(&c[i], -0.01, 0, 0, 1, 1e-12, "box on an end face");
        near(fabs(c[i].p[0] - 0.01), 0.05, 1e-12, "box on an end face: corner x");
        near(fabs(c[i].p[1]), 0.05, 1e-12, "box on an end face: corner y");
    }
    /* beside the box's face x = 0.5, apart by 0.3: no contact below 0.3 */
    double ms[3] = {0.9, 0, 0};
    ld_cshape cs = cyl(ms, Z, 0.05, 0.1);
    assert_int_equal(ld_contact_pair(&cs, &bx, 0.3, c), 0);
    assert_int_equal(ld_contact_pair(&cs, &bx, 0.31, c), 2); /* its side's line, z = ±0.05 */
    for (int i = 0; i < 2; ++i) is(&c[i], 0.3, 1, 0, 0, 1e-12, "beside a box's face");
}

/* ---------------------------------------------------------------- two cylinders */

static void test_cylinders(void **state) {
    (void)state;
    ld_contact c[16];
    const double o[3] = {0, 0, 0};
    ld_cshape lo = cyl(o, Z, 0.2, 0.1);
    /* stacked on the same axis: apart 0.05, touching, 0.01 deep: 8 rim points each */
    double zs[3] = {0.45, 0.4, 0.39}, gs[3] = {0.05, 0.0, -0.01};
    for (int t = 0; t < 3; ++t) {
        double m[3] = {0, 0, zs[t]};
        ld_cshape up = cyl(m, Z, 0.2, 0.1);
        assert_int_equal(ld_contact_pair(&up, &lo, 0.1, c), 8);
        for (int i = 0; i < 8; ++i) {
            is(&c[i], gs[t], 0, 0, 1, 1e-12, "stacked cylinders");
            near(hypot(c[i].p[0], c[i].p[1]), 0.1, 1e-12, "stacked cylinders: rim");
            near(c[i].p[2], 0.2 + 0.5 * gs[t], 1e-12, "stacked cylinders: point");
        }
    }
    /* stacked half off: every point over both end faces */
    double mh[3] = {0.1, 0, 0.4};
    ld_cshape half = cyl(mh, Z, 0.2, 0.1);
    int n = ld_contact_pair(&half, &lo, 1e-9, c);
    assert_true(n >= 2 && n <= 8);
    for (int i = 0; i < n; ++i) {
        is(&c[i], 0.0, 0, 0, 1, 1e-12, "half off");
        assert_true(hypot(c[i].p[0], c[i].p[1]) <= 0.1 + 1e-12);
        assert_true(hypot(c[i].p[0] - 0.1, c[i].p[1]) <= 0.1 + 1e-12);
    }
    /* side by side, parallel along x: the ends of their common part, x ∈ [−0.1, 0.2] */
    ld_cshape b = cyl(o, X, 0.2, 0.1);
    double mp[3] = {0.4, 0.25, 0};
    ld_cshape a = cyl(mp, X, 0.5, 0.1);
    assert_int_equal(ld_contact_pair(&a, &b, 0.1, c), 2);
    for (int i = 0; i < 2; ++i) {
        is(&c[i], 0.05, 0, 1, 0, 1e-12, "side by side");
        near(c[i].p[1], 0.125, 1e-12, "side by side: point y");
    }
    near(extreme(c, 2, 0, 1)->p[0], -0.1, 1e-12, "side by side: common part");
    near(extreme(c, 2, 0, 0)->p[0], 0.2, 1e-12, "side by side: common part");
    /* crossed: along y over one along x: one point (0, 0, 0.125) */
    double mx[3] = {0, 0, 0.25};
    a = cyl(mx, Y, 0.2, 0.1);
    assert_int_equal(ld_contact_pair(&a, &b, 0.1, c), 1);
    is(&c[0], 0.05, 0, 0, 1, 1e-12, "crossed");
    point_is(&c[0], 0, 0, 0.125, 1e-12, "crossed: point");
    mx[2] = 0.18; /* 0.02 deep */
    a = cyl(mx, Y, 0.2, 0.1);
    assert_int_equal(ld_contact_pair(&a, &b, 0.0, c), 1);
    is(&c[0], -0.02, 0, 0, 1, 1e-9, "crossed, overlapping");
    /* lying on a standing one's end face: where its line leaves the disc, x = ±0.1 */
    double ms[3] = {0, 0, 0.35};
    a = cyl(ms, X, 0.2, 0.1);
    assert_int_equal(ld_contact_pair(&a, &lo, 0.1, c), 2);
    for (int i = 0; i < 2; ++i) {
        is(&c[i], 0.05, 0, 0, 1, 1e-12, "lying on an end face");
        near(fabs(c[i].p[0]), 0.1, 1e-12, "lying on an end face: x = ±r");
        near(c[i].p[2], 0.225, 1e-12, "lying on an end face: point");
    }
    /* tilted 30° about y over the end face: its lowest rim point */
    double th = PI / 6, ax[3] = {sin(th), 0, cos(th)}, mt[3] = {0.05, 0, 0.5};
    a = cyl(mt, ax, 0.2, 0.1);
    double g = 0.5 - 0.2 * cos(th) - 0.1 * sin(th) - 0.2, x = 0.05 - 0.2 * sin(th) + 0.1 * cos(th);
    assert_int_equal(ld_contact_pair(&a, &lo, 0.2, c), 1);
    is(&c[0], g, 0, 0, 1, 1e-12, "tilted on an end face");
    point_is(&c[0], x, 0, 0.2 + 0.5 * g, 1e-12, "tilted on an end face: point");
    /* standing side by side, 0.3 apart: the line of each side facing the other (2 points) */
    double mr[3] = {0.5, 0, 0};
    a = cyl(mr, Z, 0.2, 0.1);
    assert_int_equal(ld_contact_pair(&a, &lo, 0.3, c), 0); /* apart by 0.3 */
    assert_int_equal(ld_contact_pair(&a, &lo, 0.31, c), 2);
    for (int i = 0; i < 2; ++i) is(&c[i], 0.3, 1, 0, 0, 1e-12, "beside, apart");
}

/* ---------------------------------------------------------------- placing, the model */

static void test_place(void **state) {
    (void)state;
    /* a cylinder of radius 0.1, length 0.4 along the body's y, 0.1 off along x, the body turned
     * 90° about z at (1, 2, 3): its ends (1 ± 0.2, 2.1, 3), its axis along −x */
    ld_shape sh = {.kind = LD_SHAPE_CYLINDER,
                   .size = {0.1, 0.4, 0},
                   .center = {0.1, 0, 0},
                   .axis = {0, 1, 0},
                   .collide = 1};
    const double R[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, x[3] = {1, 2, 3};
    ld_cshape c;
    double lo[3], hi[3];
    ld_cshape_place(&sh, R, x, &c, lo, hi);
    assert_int_equal(c.kind, LD_SHAPE_CYLINDER);
    near(c.r, 0.1, 0, "placed radius");
    near(c.c[0], 1.2, 1e-15, "placed end x"), near(c.c1[0], 0.8, 1e-15, "placed end x");
    near(c.c[1], 2.1, 1e-15, "placed end y"), near(c.c1[1], 2.1, 1e-15, "placed end y");
    near(lo[0], 0.8, 1e-15, "bounds x"), near(hi[0], 1.2, 1e-15, "bounds x");
    near(lo[1], 2.0, 1e-15, "bounds y"), near(hi[1], 2.2, 1e-15, "bounds y");
    near(lo[2], 2.9, 1e-15, "bounds z"), near(hi[2], 3.1, 1e-15, "bounds z");
    /* the model accepts colliding cylinders, and still refuses colliding cones */
    char key[64], why[256];
    assert_int_equal(ld_shape_check(&sh, 1, key, sizeof key, why, sizeof why), LD_OK);
    sh.kind = LD_SHAPE_CONE;
    assert_int_equal(ld_shape_check(&sh, 1, key, sizeof key, why, sizeof why), LD_EINVAL);
    assert_string_equal(key, "collide");
    assert_true(ld_contact_detected(LD_SHAPE_CYLINDER));
    assert_false(ld_contact_detected(LD_SHAPE_CONE));
}

/* ---------------------------------------------------------------- dynamics */

/* A cylinder (r 0.1, length 0.4, 1 kg) dropped from 5 cm onto the ground plane with the
 * orientation q (w, x, y, z): after 1 s at rest at height z_rest, still over the next 0.5 s. */
static void drop(const char *q, double z0, double z_rest, const char *what) {
    char text[1024];
    snprintf(text, sizeof text,
             "gravity: [0, 0, -9.81]\n"
             "bodies:\n  - {name: c, mass: 1, inertia: [0.01583, 0.01583, 0.005],\n"
             "     position: [0, 0, %.17g], orientation: %s,\n"
             "     shape: {type: cylinder, radius: 0.1, length: 0.4, collide: true,\n"
             "             friction: 0.5}}\n"
             "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n",
             z0, q);
    const double h = 1e-4;
    run r;
    start(&r, text, LD_FORM_SO3XR3, h);
    double x[3], qq[4], w[3], v[3], rest = 0.0, speed = 0.0;
    for (int i = 1; i <= 15000; ++i) {
        assert_int_equal(ld_integ_advance_to(r.it, i * h), LD_OK);
        if (i < 10000) continue;
        body(&r, x, qq, w, v);
        if (i == 10000) rest = x[2];
        speed = fmax(speed, fmax(ld_v3_norm(v), ld_v3_norm(w)));
        if (!(fabs(x[2] - rest) < 1e-9))
            fail_msg("%s: moved to z = %.12f from %.12f", what, x[2], rest);
    }
    if (!(fabs(rest - z_rest) < 2e-4 && speed < 1e-9))
        fail_msg("%s: at rest at z = %.9f (want %.4f), speed up to %.3g", what, rest, z_rest,
                 speed);
    stop(&r);
}

static void test_drop(void **state) {
    (void)state;
    drop("[1, 0, 0, 0]", 0.25, 0.2, "standing");
    drop("[0.70710678118654752, 0.70710678118654752, 0, 0]", 0.15, 0.1, "lying");
    /* tilted 10° about x: it lands on its rim and settles on its end face */
    drop("[0.99619469809174553, 0.087155742747658174, 0, 0]", 0.27, 0.2, "tilted");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane),     cmocka_unit_test(test_sphere),
        cmocka_unit_test(test_capsule),   cmocka_unit_test(test_box),
        cmocka_unit_test(test_cylinders), cmocka_unit_test(test_place),
        cmocka_unit_test(test_drop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

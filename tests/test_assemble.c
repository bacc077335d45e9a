/*
 * Assembly (ld_model_assemble, docs/model-format.md#assembly): joints given by their frames in
 * each body, bodies placed by their joints, loops closed by Gauss–Newton on the group from the
 * user's approximate placement, held coordinates and bodies kept. Checked against closed-form
 * geometry: the four-bar of models/four-bar.yaml (its positions from the loop-closure
 * equations), a double pendulum and a slider placed by their joint coordinates.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/coords.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define PI 3.14159265358979323846

/* The four-bar of models/four-bar.yaml written with frames: links along their body x axes,
 * centres of mass at mid-length; ANGLES is the text of the joints' extra keys. */
#define FOUR_BAR(A, B, C, D, ROCKER)                                                               \
    "name: fb\ngravity: [0, -9.81, 0]\nbodies:\n"                                                  \
    "  - {name: crank, mass: 0.3, inertia: [3.375e-05, 0.002266875, 0.002266875],\n"               \
    "     angular_velocity: [0, 0, 6.28318530717959]}\n"                                           \
    "  - {name: coupler, mass: 1.1, inertia: [0.00012375, 0.110978541666667, "                     \
    "0.110978541666667]}\n"                                                                        \
    "  - {name: rocker, mass: 0.7, inertia: [7.875e-05, 0.0286227083333333, "                      \
    "0.0286227083333333]}\n"                                                                       \
    "joints:\n"                                                                                    \
    "  - {name: A, type: revolute, body1: ground, body2: crank, frame1: {at: [0, 0, 0]},\n"        \
    "     frame2: {at: [-0.15, 0, 0]}" A "}\n"                                                     \
    "  - {name: B, type: revolute, body1: crank, body2: coupler, frame1: {at: [0.15, 0, 0]},\n"    \
    "     frame2: {at: [-0.55, 0, 0]}" B "}\n"                                                     \
    "  - {name: C, type: revolute, body1: coupler, body2: rocker, frame1: {at: [0.55, 0, 0]},\n"   \
    "     frame2: {at: [" ROCKER ", 0, 0]}" C "}\n"                                                \
    "  - {name: D, type: revolute, body1: ground, body2: rocker, frame1: {at: [1, 0, 0]},\n"       \
    "     frame2: {at: [-" ROCKER ", 0, 0]}" D "}\n"

static int parse(const char *text, ld_model *m, ld_model_error *e) {
    memset(e, 0, sizeof *e);
    return ld_model_parse(text, strlen(text), "asm.yaml", m, e);
}

static void parse_ok(const char *text, ld_model *m) {
    ld_model_error e;
    if (parse(text, m, &e) != LD_OK) fail_msg("parse: %s", e.msg);
}

/* The closed-form four-bar: crank at angle a (from +x), the open assembly (C above BD). */
static void four_bar_exact(double a, double xc[3][2], double ang[3]) {
    const double l1 = 0.3, l2 = 1.1, l3 = 0.7;
    double Bx = l1 * cos(a), By = l1 * sin(a), dx = 1.0 - Bx, dy = -By;
    double d = hypot(dx, dy), ex = dx / d, ey = dy / d;
    double s = (l2 * l2 - l3 * l3 + d * d) / (2 * d), h = sqrt(l2 * l2 - s * s);
    double Cx = Bx + s * ex - h * ey, Cy = By + s * ey + h * ex;
    if (Cy < 0) Cx = Bx + s * ex + h * ey, Cy = By + s * ey - h * ex;
    ang[0] = a, ang[1] = atan2(Cy - By, Cx - Bx), ang[2] = atan2(Cy, Cx - 1.0);
    xc[0][0] = Bx / 2, xc[0][1] = By / 2;
    xc[1][0] = (Bx + Cx) / 2, xc[1][1] = (By + Cy) / 2;
    xc[2][0] = (1.0 + Cx) / 2, xc[2][1] = Cy / 2;
}

/* Body b lies in the plane at (x, y) turned by angle about z. */
static void check_planar(const ld_model *m, int b, const double x[2], double angle, double tol) {
    const ld_body *bd = &m->bodies[b];
    double th = 2.0 * atan2(bd->q[3], bd->q[0]);
    double dth = remainder(th - angle, 2 * PI);
    if (!(fabs(bd->x[0] - x[0]) < tol && fabs(bd->x[1] - x[1]) < tol && fabs(bd->x[2]) < tol &&
          fabs(dth) < tol && fabs(bd->q[1]) < tol && fabs(bd->q[2]) < tol))
        fail_msg("body '%s': (%.15g, %.15g, %.3g) at %.15g rad, want (%.15g, %.15g, 0) at %.15g",
                 bd->name, bd->x[0], bd->x[1], bd->x[2], th, x[0], x[1], angle);
}

/* Placed roughly by the joints' angles (B and D 0.1 rad off; D places the rocker, as its angle
 * is given and C's is not), the crank held at 90°: the closed-form configuration, every joint
 * closed, the crank's angle kept exactly. */
static void test_four_bar_held_crank(void **state) {
    (void)state;
    ld_model m;
    parse_ok(FOUR_BAR(", angle: 1.5707963267948966, hold: true", ", angle: -1.1", "",
                      ", angle: 1.45", "0.35"),
             &m);
    double xc[3][2], ang[3];
    four_bar_exact(PI / 2, xc, ang);
    for (int b = 0; b < 3; ++b) check_planar(&m, b, xc[b], ang[b], 1e-12);
    assert_int_equal(m.assembly.placed, 3);
    assert_true(m.assembly.iterations >= 2 && m.assembly.iterations < 20);
    assert_int_equal(m.assembly.gap_joint, 2); /* C closes the loop */
    assert_true(m.assembly.gap > 0.1 && m.assembly.gap < 0.2);
    assert_true(m.assembly.residual < 1e-14);
    /* the joints' spatial geometry is set: A at the origin, C at the coupler's end */
    assert_true(fabs(m.joints[2].at[0] - (2 * xc[1][0] - xc[0][0] * 2)) < 1e-12);
    assert_true(fabs(m.joints[2].axis[2] - 1.0) < 1e-12);
    /* it compiles (the joints hold at the start), and the joint coordinates start from the
     * frames: A at 90°, D at the rocker's angle */
    ld_system s;
    double *q0, *v0, c[LD_JOINT_COORDS_MAX], cd[LD_JOINT_COORDS_MAX];
    char msg[512];
    if (ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg))
        fail_msg("compile: %s", msg);
    int n = 0;
    assert_int_equal(ld_model_joint_coords(&s, 0, 0.0, q0, v0, c, cd, &n), LD_OK);
    assert_true(n == 1 && fabs(c[0] - PI / 2) < 1e-12 && fabs(cd[0] - 2 * PI) < 1e-9);
    assert_int_equal(ld_model_joint_coords(&s, 3, 0.0, q0, v0, c, cd, &n), LD_OK);
    assert_true(fabs(c[0] - ang[2]) < 1e-12);
    assert_int_equal(ld_model_joint_coords(&s, 1, 0.0, q0, v0, c, cd, &n), LD_OK);
    assert_true(fabs(remainder(c[0] - (ang[1] - ang[0]), 2 * PI)) < 1e-12);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* The same model from a placement 5 cm and 0.1 rad off the solution, nothing held: the joints
 * close (the nearest configuration of the same branch: the crank moves little). */
static void test_four_bar_rough_placement(void **state) {
    (void)state;
    double xc[3][2], ang[3];
    four_bar_exact(1.2, xc, ang);
    char bodies[3][160];
    for (int b = 0; b < 3; ++b)
        snprintf(bodies[b], sizeof bodies[b],
                 "position: [%.6f, %.6f, 0.03], orientation: [%.9f, 0, 0, %.9f]", xc[b][0] + 0.05,
                 xc[b][1] - 0.04, cos((ang[b] + 0.1) / 2), sin((ang[b] + 0.1) / 2));
    char text[4096];
    snprintf(text, sizeof text,
             "bodies:\n"
             "  - {name: crank, mass: 0.3, inertia: [1e-4, 2e-3, 2e-3], %s}\n"
             "  - {name: coupler, mass: 1.1, inertia: [1e-4, 0.1, 0.1], %s}\n"
             "  - {name: rocker, mass: 0.7, inertia: [1e-4, 0.03, 0.03], %s}\n"
             "joints:\n"
             "  - {name: A, type: revolute, body1: ground, body2: crank, frame1: {at: [0, 0, 0]}, "
             "frame2: {at: [-0.15, 0, 0]}}\n"
             "  - {name: B, type: revolute, body1: crank, body2: coupler, frame1: {at: [0.15, 0, "
             "0]}, frame2: {at: [-0.55, 0, 0]}}\n"
             "  - {name: C, type: revolute, body1: coupler, body2: rocker, frame1: {at: [0.55, 0, "
             "0]}, frame2: {at: [0.35, 0, 0]}}\n"
             "  - {name: D, type: revolute, body1: rocker, body2: ground, frame1: {at: [-0.35, 0, "
             "0]}, frame2: {at: [1, 0, 0]}}\n",
             bodies[0], bodies[1], bodies[2]);
    ld_model m;
    parse_ok(text, &m);
    assert_int_equal(m.assembly.placed, 0);
    assert_true(m.assembly.gap > 0.03 && m.assembly.residual < 1e-14);
    /* on the solution set: the crank's angle a fixes the rest */
    double a = 2.0 * atan2(m.bodies[0].q[3], m.bodies[0].q[0]);
    assert_true(fabs(a - 1.2) < 0.3);
    four_bar_exact(a, xc, ang);
    for (int b = 0; b < 3; ++b) check_planar(&m, b, xc[b], ang[b], 1e-10);
    ld_model_free(&m);
}

/* A double pendulum placed by its joint angles, and a slider by its slide: exact. */
static void test_tree_placement(void **state) {
    (void)state;
    ld_model m;
    parse_ok("bodies:\n"
             "  - {name: l1, mass: 1, inertia: [1, 1, 1]}\n"
             "  - {name: l2, mass: 1, inertia: [1, 1, 1]}\n"
             "  - {name: s, mass: 1, inertia: [1, 1, 1]}\n"
             "joints:\n"
             "  - {name: j2, type: revolute, body1: l1, body2: l2, frame1: {at: [0.5, 0, 0], "
             "axis: [0, 1, 0]},\n"
             "     frame2: {at: [-0.25, 0, 0], axis: [0, 1, 0]}, angle: 0.5}\n"
             "  - {name: j1, type: revolute, body1: ground, body2: l1, frame1: {at: [0, 0, 2], "
             "axis: [0, 1, 0], ref: [0, 0, -1]},\n"
             "     frame2: {at: [-0.5, 0, 0], axis: [0, 1, 0], ref: [1, 0, 0]}, angle: 0.3}\n"
             "  - {name: p, type: prismatic, body1: l2, body2: s, frame1: {at: [0.25, 0, 0], axis: "
             "[1, 0, 0]},\n"
             "     frame2: {axis: [1, 0, 0]}, slide: 0.4}\n",
             &m);
    assert_int_equal(m.assembly.placed, 3);
    assert_int_equal(m.assembly.iterations, 0);
    /* j1: l1's x axis at angle 0.3 from −z about +y (towards −x); l2 0.5 further */
    double a1 = 0.3, a2 = 0.8, d1[3] = {-sin(a1), 0, -cos(a1)}, d2[3] = {-sin(a2), 0, -cos(a2)};
    double want[3][3];
    for (int i = 0; i < 3; ++i) {
        want[0][i] = (i == 2 ? 2.0 : 0.0) + 0.5 * d1[i];
        want[1][i] = want[0][i] + 0.5 * d1[i] + 0.25 * d2[i];
        want[2][i] = want[1][i] + (0.25 + 0.4) * d2[i];
    }
    for (int b = 0; b < 3; ++b)
        for (int i = 0; i < 3; ++i)
            if (!(fabs(m.bodies[b].x[i] - want[b][i]) < 1e-14))
                fail_msg("body %d x[%d] = %.17g, want %.17g", b, i, m.bodies[b].x[i], want[b][i]);
    ld_model_free(&m);
}

/* A held body stays; the rest moves to close the loop. */
static void test_held_body(void **state) {
    (void)state;
    ld_model m;
    double xc[3][2], ang[3];
    four_bar_exact(PI / 3, xc, ang);
    char buf[4096]; /* the coupler held exactly where it belongs, the others placed roughly */
    snprintf(buf, sizeof buf,
             "bodies:\n"
             "  - {name: crank, mass: 0.3, inertia: [1e-4, 2e-3, 2e-3]}\n"
             "  - {name: coupler, mass: 1.1, inertia: [1e-4, 0.1, 0.1], hold: true, position: "
             "[%.17g, %.17g, 0], orientation: [%.17g, 0, 0, %.17g]}\n"
             "  - {name: rocker, mass: 0.7, inertia: [1e-4, 0.03, 0.03]}\n"
             "joints:\n"
             "  - {name: A, type: revolute, body1: ground, body2: crank, frame1: {at: [0, 0, 0]}, "
             "frame2: {at: [-0.15, 0, 0]}, angle: 0.7}\n"
             "  - {name: B, type: revolute, body1: crank, body2: coupler, frame1: {at: [0.15, 0, "
             "0]}, frame2: {at: [-0.55, 0, 0]}}\n"
             "  - {name: C, type: revolute, body1: coupler, body2: rocker, frame1: {at: [0.55, 0, "
             "0]}, frame2: {at: [0.35, 0, 0]}}\n"
             "  - {name: D, type: revolute, body1: ground, body2: rocker, frame1: {at: [1, 0, 0]}, "
             "frame2: {at: [-0.35, 0, 0]}, angle: 1.3}\n",
             xc[1][0], xc[1][1], cos(ang[1] / 2), sin(ang[1] / 2));
    parse_ok(buf, &m);
    for (int b = 0; b < 3; ++b) check_planar(&m, b, xc[b], ang[b], 1e-10);
    ld_model_free(&m);
}

/* What cannot be assembled is refused with the joint or body named, its line and the gap. */
static void test_refused(void **state) {
    (void)state;
    static const struct {
        const char *text, *want[3];
    } cases[] = {
        /* a rocker of 2.6 m cannot meet a coupler of 1.1 m: |B − D| ≤ 1.3 */
        {FOUR_BAR(", angle: 1.5707963267948966", "", "", "", "1.3"),
         {"asm.yaml:", "cannot be closed: a gap of", "m remains"}},
        /* the crank held where the loop cannot close (crank 0.3, rocker 0.1, coupler 1.1:
         * |B − D| = 1.3 with the crank along −x, but the loop needs 1.0 … 1.2) */
        {FOUR_BAR(", angle: 3.14159, hold: true", "", "", "", "0.05"),
         {"cannot be closed: a gap of", "with joint 0 ('A') held at angle 3.14159 rad",
          "asm.yaml:"}},
        /* a body without position and no joint of the frame form to place it */
        {"bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1]}\n"
         "  - {name: lost, mass: 1, inertia: [1, 1, 1]}\n"
         "joints:\n  - {type: revolute, body1: ground, body2: a, frame1: {}, frame2: {}}\n",
         {"asm.yaml:3: bodies[1]", "body 'lost'", "has no position"}},
        {"bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], orientation: [1, 0, 0, 0]}\n",
         {"asm.yaml:2", "orientation", "without a position"}},
        {"bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1]}\n"
         "joints:\n  - {type: revolute, body1: ground, body2: a, frame1: {axis: [0, 0, 1], "
         "ref: [0, 0, 2]}, frame2: {}}\n",
         {"asm.yaml:", "ref", "parallel to axis"}},
        {"bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1]}\n"
         "joints:\n  - {type: spherical, body1: ground, body2: a, frame1: {}, frame2: {}, "
         "angle: 1}\n",
         {"asm.yaml:", "angle", "frame form"}},
        {"bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
         "joints:\n  - {type: revolute, body1: ground, body2: a, frame1: {}, frame2: {}, "
         "at: [0, 0, 0]}\n",
         {"asm.yaml:", "at", "frame form"}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        ld_model m;
        ld_model_error e;
        int rc = parse(cases[k].text, &m, &e);
        if (rc == LD_OK) {
            ld_model_free(&m);
            fail_msg("case %zu: accepted", k);
        }
        for (int i = 0; i < 3; ++i)
            if (!strstr(e.msg, cases[k].want[i]))
                fail_msg("case %zu: '%s' lacks '%s'", k, e.msg, cases[k].want[i]);
    }
}

/* A frame-form model runs like the same model written in the spatial form: the shipped
 * four-bar, compiled from both, has the same initial state to round-off. */
static void test_same_as_spatial(void **state) {
    (void)state;
    ld_model a, b;
    ld_model_error e;
    parse_ok(FOUR_BAR(", angle: 1.5707963267948966, hold: true", ", angle: -1.1", "",
                      ", angle: 1.45", "0.35"),
             &a);
    char path[1024];
    snprintf(path, sizeof path, "%s/models/four-bar.yaml", LD_SOURCE_DIR);
    if (ld_model_load(path, &b, &e) != LD_OK) fail_msg("%s", e.msg);
    ld_system sa, sb;
    double *qa, *va, *qb, *vb;
    char msg[512];
    if (ld_model_compile_msg(&a, LD_FORM_SO3XR3, &sa, &qa, &va, msg, sizeof msg) ||
        ld_model_compile_msg(&b, LD_FORM_SO3XR3, &sb, &qb, &vb, msg, sizeof msg))
        fail_msg("compile: %s", msg);
    assert_int_equal(sa.nq, sb.nq);
    for (int i = 0; i < sa.nq; ++i) assert_true(fabs(qa[i] - qb[i]) < 1e-12);
    for (int i = 0; i < sa.k; ++i) assert_true(fabs(va[i] - vb[i]) < 1e-10);
    assert_int_equal(ld_model_redundant_rows(&sa, NULL, NULL, 0), 3);
    free(qa), free(va), free(qb), free(vb);
    ld_model_system_free(&sa);
    ld_model_system_free(&sb);
    ld_model_free(&a);
    ld_model_free(&b);
}

/* The frame form's tangents on the group: B, the Bᵀλ part of the stiffness and the bias z of
 * the slider-crank's joints (every kind of term: points, axes, references) against central
 * differences, at a state moved off the closed configuration (the frames apart), in every
 * formulation. */
static void test_frame_tangents(void **state) {
    (void)state;
    char path[1024], msg[512];
    snprintf(path, sizeof path, "%s/models/slider-crank.yaml", LD_SOURCE_DIR);
    ld_model m;
    ld_model_error e;
    if (ld_model_load(path, &m, &e) != LD_OK) fail_msg("%s", e.msg);
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0;
        if (ld_model_compile_msg(&m, (ld_formulation)f, &s, &q0, &v0, msg, sizeof msg))
            fail_msg("%s: %s", ld_formulation_name((ld_formulation)f), msg);
        size_t k = (size_t)s.k, mr = (size_t)s.m, nq = (size_t)s.nq;
        double *buf = calloc(2 * k * k + 2 * mr * k + 4 * k + nq + 3 * mr + 2, sizeof *buf);
        assert_non_null(buf);
        double *KA = buf, *KF = KA + k * k, *BA = KF + k * k, *BF = BA + mr * k, *q = BF + mr * k;
        double *v = q + nq, *a = v + k, *xi = a + k, *lam = xi + k, *zA = lam + mr, *zF = zA + mr;
        rng r = rng_seed(29u + (unsigned)f);
        for (size_t i = 0; i < k; ++i) {
            xi[i] = rng_range(&r, -0.1, 0.1);
            v[i] = rng_range(&r, -1, 1);
            a[i] = rng_range(&r, -1, 1);
        }
        for (size_t i = 0; i < mr; ++i) lam[i] = rng_range(&r, -2, 2);
        ld_sys_retract(&s, q, q0, xi);
        if (f == LD_FORM_EULER) ld_sys_normalize(&s, q);
        assert_int_equal(s.ops.phi_q(&s, 0.0, q, BA), LD_OK);
        assert_int_equal(ld_sys_phi_q_fd(&s, 0.0, q, BF), LD_OK);
        double eb = 0.0;
        for (size_t i = 0; i < mr * k; ++i) eb = fmax(eb, fabs(BA[i] - BF[i]));
        assert_int_equal(ld_sys_phi_dd(&s, 0.0, q, v, zA), LD_OK);
        assert_int_equal(ld_sys_phi_dd_fd(&s, 0.0, q, v, zF), LD_OK);
        double ez = 0.0;
        for (size_t i = 0; i < mr; ++i) ez = fmax(ez, fabs(zA[i] - zF[i]));
        assert_int_equal(ld_sys_stiffness(&s, 0.0, q, v, a, lam, KA), LD_OK);
        assert_int_equal(ld_sys_stiffness_fd(&s, 0.0, q, v, a, lam, KF), LD_OK);
        double ek = 0.0, sk = 1.0;
        for (size_t i = 0; i < k * k; ++i)
            ek = fmax(ek, fabs(KA[i] - KF[i])), sk = fmax(sk, fabs(KA[i]));
        if (!(eb < 1e-7 && ez < 1e-5 && ek < 1e-6 * sk))
            fail_msg("%s: B error %.2e, z error %.2e, K error %.2e of %.2e",
                     ld_formulation_name((ld_formulation)f), eb, ez, ek, sk);
        free(buf);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(&m);
}

/* Replace from by to in text (the first occurrence; fails the test when absent). */
static void edit(char *text, size_t cap, const char *from, const char *to) {
    char *at = strstr(text, from);
    if (!at) fail_msg("'%s' not in the model", from);
    size_t lf = strlen(from), lt = strlen(to), rest = strlen(at + lf);
    assert_true(strlen(text) - lf + lt < cap);
    memmove(at + lt, at + lf, rest + 1);
    memcpy(at, to, lt);
}

/* The initial velocities v (k ≤ 64 entries) of the model at path with up to two edits, compiled
 * in so3xr3. The status, with the reason in msg. */
static int velocities(const char *path, const char *f1, const char *t1, const char *f2,
                      const char *t2, double *v, char *msg, size_t n) {
    static char text[16384];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    if (f1) edit(text, sizeof text, f1, t1);
    if (f2) edit(text, sizeof text, f2, t2);
    ld_model m;
    ld_model_error e;
    int rc = ld_model_parse(text, strlen(text), "rates.yaml", &m, &e);
    if (rc) {
        snprintf(msg, n, "%s", e.msg);
        return rc;
    }
    ld_system s;
    double *q0, *v0;
    rc = ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, n);
    if (!rc) {
        assert_true(s.k <= 64);
        memcpy(v, v0, (size_t)s.k * sizeof *v);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(&m);
    return rc;
}

/* A joint's given rate drives the mechanism like the body's angular velocity it stands for: the
 * slider-crank's crank rate as O's angle_rate (frame form; also the slider's speed as P's
 * slide_rate), the four-bar's crank rate as A's angle_rate (spatial form); a rate that
 * contradicts a given velocity is refused with the joint named. */
static void test_joint_rates(void **state) {
    (void)state;
    char sc[1024], fb[1024], msg[512];
    snprintf(sc, sizeof sc, "%s/models/slider-crank.yaml", LD_SOURCE_DIR);
    snprintf(fb, sizeof fb, "%s/models/four-bar.yaml", LD_SOURCE_DIR);
    double v0[64], v1[64], v2[64];
    static const char *const spin = "angular_velocity: [0, 0, 10]";
    if (velocities(sc, NULL, NULL, NULL, NULL, v0, msg, sizeof msg)) fail_msg("%s", msg);
    assert_true(fabs(v0[2] - 10.0) < 1e-12 && fabs(v0[15]) > 0.5); /* Ω_z of the crank; ẋ slider */
    if (velocities(sc, spin, "hold: false", "hold: true", "hold: true\n    angle_rate: 10", v1, msg,
                   sizeof msg))
        fail_msg("%s", msg);
    char slide[64];
    snprintf(slide, sizeof slide, "frame2: {axis: [1, 0, 0]}, slide_rate: %.17g", v0[15]);
    if (velocities(sc, spin, "hold: false", "frame2: {axis: [1, 0, 0]}", slide, v2, msg,
                   sizeof msg))
        fail_msg("%s", msg);
    for (int i = 0; i < 18; ++i)
        if (!(fabs(v0[i] - v1[i]) < 1e-12 && fabs(v0[i] - v2[i]) < 1e-10))
            fail_msg("v[%d]: %.17g (angle_rate), %.17g (slide_rate), want %.17g", i, v1[i], v2[i],
                     v0[i]);
    static const char *const A = "{name: A, type: revolute, body1: ground, body2: crank, at: [0, "
                                 "0, 0], axis: [0, 0, 1]}";
    static const char *const A_rate = "{name: A, type: revolute, body1: ground, body2: crank, at: "
                                      "[0, 0, 0], axis: [0, 0, 1], angle_rate: 6.28318530717959}";
    if (velocities(fb, NULL, NULL, NULL, NULL, v0, msg, sizeof msg) ||
        velocities(fb, "angular_velocity: [0, 0, 6.28318530717959]", "hold: false", A, A_rate, v1,
                   msg, sizeof msg))
        fail_msg("%s", msg);
    for (int i = 0; i < 18; ++i) assert_true(fabs(v0[i] - v1[i]) < 1e-12);
    /* contradiction: the crank's 10 rad/s and O's 5 */
    assert_int_equal(velocities(sc, "hold: true", "hold: true\n    angle_rate: 5", NULL, NULL, v1,
                                msg, sizeof msg),
                     LD_EINVAL);
    if (!strstr(msg, "contradicts joint") || !strstr(msg, "'O'")) fail_msg("%s", msg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_bar_held_crank),
        cmocka_unit_test(test_four_bar_rough_placement),
        cmocka_unit_test(test_tree_placement),
        cmocka_unit_test(test_held_body),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_same_as_spatial),
        cmocka_unit_test(test_frame_tangents),
        cmocka_unit_test(test_joint_rates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

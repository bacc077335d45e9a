/*
 * The contact kinematics on the group, by finite differences: for each pair of shapes the
 * detector tests, moved along a curve of the group (R exp(t Ω̂), x + t ẋ for each body), the
 * rate of every contact's gap equals its normal velocity n·(u_a(p) − u_b(p)) with
 * u(p) = ẋ + R Ω × (p − x) — the rows moreau's impulses act through (docs/contact.md) — and the
 * normal does not jump; then the order of moreau in free flight (second: the kick–drift
 * symmetry) against a fine run.
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
#include "mat3.h"

/* R = exp(hat(w)). */
static void expm(double R[9], const double w[3]) {
    double n = ld_v3_norm(w);
    double a = n > 1e-12 ? sin(n) / n : 1.0, b = n > 1e-12 ? (1.0 - cos(n)) / (n * n) : 0.5;
    ld_m3_rodrigues(R, w, a, b);
}

/* A pose and a velocity of each of two bodies. */
typedef struct motion {
    double w0[2][3]; /* the rotation at t = 0 as a rotation vector */
    double x0[2][3];
    double Om[2][3], xd[2][3]; /* body angular velocity, velocity */
} motion;

/* The bodies' poses at time t along the motion. */
static void poses(const motion *mo, double t, double R[18], double x[6]) {
    for (int b = 0; b < 2; ++b) {
        double R0[9], E[9], w[3];
        expm(R0, mo->w0[b]);
        for (int i = 0; i < 3; ++i) w[i] = t * mo->Om[b][i];
        expm(E, w);
        ld_m3_mul(R + 9 * b, R0, E);
        for (int i = 0; i < 3; ++i) x[3 * b + i] = mo->x0[b][i] + t * mo->xd[b][i];
    }
}

/* u_b(p) at t = 0. */
static void point_velocity(const motion *mo, int b, const double p[3], double u[3]) {
    double R0[9], om[3], r[3], c[3];
    expm(R0, mo->w0[b]);
    ld_m3_mulv(om, R0, mo->Om[b]);
    for (int i = 0; i < 3; ++i) r[i] = p[i] - mo->x0[b][i];
    ld_v3_cross(c, om, r);
    for (int i = 0; i < 3; ++i) u[i] = mo->xd[b][i] + c[i];
}

/* Check every contact of the model's two bodies (and the ground) along the motion: the central
 * difference of the gap against n·(u_a − u_b); at least want contacts. */
static void check(const char *what, const char *text, const motion *mo, int want) {
    ld_model m;
    ld_model_error e;
    ld_model_init(&m);
    if (ld_model_parse(text, strlen(text), what, &m, &e)) fail_msg("%s: %s", what, e.msg);
    ld_cworld *w = ld_cworld_create(&m, 64);
    assert_non_null(w);
    const double eps = 1e-6, margin = 0.5;
    double R[18], x[6];
    ld_contact c0[64], cp[64], cm[64];
    const ld_contact *f;
    poses(mo, 0.0, R, x);
    int n = ld_cworld_find(w, R, x, margin, &f);
    memcpy(c0, f, (size_t)(n > 0 ? n : 0) * sizeof *f);
    poses(mo, eps, R, x);
    int np = ld_cworld_find(w, R, x, margin, &f);
    memcpy(cp, f, (size_t)(np > 0 ? np : 0) * sizeof *f);
    poses(mo, -eps, R, x);
    int nm = ld_cworld_find(w, R, x, margin, &f);
    memcpy(cm, f, (size_t)(nm > 0 ? nm : 0) * sizeof *f);
    if (n < want || np != n || nm != n) fail_msg("%s: %d, %d, %d contacts", what, nm, n, np);
    for (int k = 0; k < n; ++k) {
        const ld_contact *c = &c0[k];
        double ua[3], ub[3] = {0, 0, 0}, d[3];
        point_velocity(mo, c->a, c->p, ua);
        if (c->b >= 0) point_velocity(mo, c->b, c->p, ub);
        for (int i = 0; i < 3; ++i) d[i] = ua[i] - ub[i];
        double un = ld_v3_dot(c->n, d), fd = (cp[k].gap - cm[k].gap) / (2 * eps);
        double jump = fmax(fabs(cp[k].n[0] - cm[k].n[0]),
                           fmax(fabs(cp[k].n[1] - cm[k].n[1]), fabs(cp[k].n[2] - cm[k].n[2])));
        if (!(fabs(fd - un) < 1e-7 * (1.0 + fabs(un)) && jump < 1e-4))
            fail_msg("%s, contact %d (gap %.4g): gap rate %.12g by differences, %.12g from the "
                     "velocities; normal moved %.3g",
                     what, k, c->gap, fd, un, jump);
    }
    ld_cworld_free(w);
    ld_model_free(&m);
}

#define TWO(s1, s2)                                                                                \
    "bodies:\n"                                                                                    \
    "  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0], shape: " s1 "}\n"             \
    "  - {name: b, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0], shape: " s2 "}\n"

/* A motion with the bodies at x_a, x_b, turned and moving in general directions. */
static motion moving(double ax, double ay, double az, double bx, double by, double bz) {
    motion mo = {.w0 = {{0.3, -0.2, 0.5}, {-0.1, 0.4, 0.2}},
                 .x0 = {{ax, ay, az}, {bx, by, bz}},
                 .Om = {{1.1, -0.7, 0.4}, {-0.5, 0.9, 1.3}},
                 .xd = {{0.3, -1.2, 0.8}, {-0.6, 0.2, -0.4}}};
    return mo;
}

#define BOX "{type: box, size: [0.6, 0.4, 0.3], center: [0, 0.03, 0], collide: true}"
#define CAP                                                                                        \
    "{type: capsule, radius: 0.1, length: 0.5, axis: [0.6, 0, 0.8], center: [0.02, 0, 0], "        \
    "collide: true}"
#define BALL "{type: sphere, radius: 0.15, collide: true}"

static void test_pairs(void **state) {
    (void)state;
    check("sphere-sphere",
          TWO("{type: sphere, radius: 0.2, collide: true}", "{type: sphere, "
                                                            "radius: 0.15, "
                                                            "collide: true}"),
          &(motion){.x0 = {{0, 0, 0.3}, {0.05, 0.02, 0}},
                    .w0 = {{0.1, 0.2, 0.3}, {0, 0, 0}},
                    .Om = {{1, 2, 3}, {-1, 0, 2}},
                    .xd = {{0.1, 0.2, -0.5}, {0, 0, 0.3}}},
          1);
    check("sphere-box face", TWO("{type: sphere, radius: 0.2, collide: true}", BOX),
          &(motion){.x0 = {{0.05, 0.02, 0.33}, {0, 0, 0}},
                    .Om = {{1, 2, 3}, {0.4, -0.3, 0.2}},
                    .xd = {{0.1, 0.2, -0.5}, {0, 0.1, 0.3}}},
          1);
    motion edge = moving(0.45, 0.05, 0.3, 0, 0, 0);
    check("sphere-box edge", TWO("{type: sphere, radius: 0.1, collide: true}", BOX), &edge, 1);
    motion in = moving(0.2, 0.1, 0.05, 0, 0, 0);
    check("sphere inside a box", TWO("{type: sphere, radius: 0.05, collide: true}", BOX), &in, 1);
    motion cc = moving(0, 0, 0.2, 0.1, 0.05, -0.05);
    check("capsule-capsule",
          TWO("{type: capsule, radius: 0.1, length: 0.5, collide: true}",
              "{type: capsule, radius: 0.12, length: 0.4, axis: [1, 0, 0], "
              "collide: true}"),
          &cc, 1);
    motion sc = moving(0.12, 0.25, 0.1, 0, 0, 0);
    check("sphere-capsule", TWO(BALL, CAP), &sc, 1);
    motion cb = moving(0.05, 0.1, 0.5, 0, 0, 0);
    check("capsule-box", TWO(CAP, BOX), &cb, 1);
    /* a turned cube into a box's top: its face's four corners, material points (a corner
     * clipped at the reference face's edge would not be) */
    motion bb = {.w0 = {{0.3, -0.2, 0.5}, {0.05, 0, 0}},
                 .x0 = {{0.1, 0.05, 0.33}, {0, 0, 0}},
                 .Om = {{1.1, -0.7, 0.4}, {-0.5, 0.9, 1.3}},
                 .xd = {{0.3, -1.2, 0.8}, {-0.6, 0.2, -0.4}}};
    check("box-box",
          TWO("{type: box, size: [0.2, 0.2, 0.2], collide: true}",
              "{type: box, size: [1, 1, 0.4], collide: true}"),
          &bb, 4);
}

static void test_ground(void **state) {
    (void)state;
    motion mo = moving(0, 0, 0, 2, 2, 2);
    mo.x0[0][2] = -0.2;
    check("sphere-plane",
          "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0], shape: {type: "
          "sphere, radius: "
          "0.2, center: [0.05, 0, 0.02], collide: true}}\n"
          "  - {name: b, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
          "ground_plane: {normal: [0.1, -0.2, 1], point: [0, 0, -0.3]}\n",
          &mo, 1);
    mo.x0[0][2] = -0.1;
    check("box-plane (a corner down)",
          "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0], shape: {type: "
          "box, size: [0.6, "
          "0.4, 0.3], collide: true}}\n"
          "  - {name: b, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
          "ground_plane: {normal: [0.1, -0.2, 1], point: [0, 0, -0.3]}\n",
          &mo, 1);
    check("capsule-plane",
          "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0], shape: {type: "
          "capsule, radius: "
          "0.1, length: 0.5, axis: [0.6, 0, 0.8], collide: true}}\n"
          "  - {name: b, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
          "ground_plane: {normal: [0.1, -0.2, 1], point: [0, 0, -0.3]}\n",
          &mo, 1);
    mo.x0[0][2] = 0.3;
    check("sphere-ground box",
          "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0], shape: {type: "
          "sphere, radius: "
          "0.2, collide: true}}\n"
          "  - {name: b, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
          "ground_shapes:\n  - {type: box, size: [1, 1, 0.2], center: [0.1, 0, 0]}\n",
          &mo, 1);
}

/* body 0's orientation and position at t = T after steps of h. */
static void fly(double h, double T, double q[4], double x[3]) {
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n  - {name: brick, mass: 2, inertia: [0.01, 0.04, 0.045], position: [0, 0, 5],\n"
        "     velocity: [1, 0, 3], angular_velocity: [0.2, 6, 0.5],\n"
        "     shape: {type: box, size: [0.3, 0.1, 0.1], collide: true}}\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n";
    run r;
    start(&r, text, LD_FORM_SO3XR3, h);
    int n = (int)lround(T / h);
    for (int i = 1; i <= n; ++i) assert_int_equal(ld_integ_advance_to(r.it, i * h), LD_OK);
    double w[3], v[3];
    body(&r, x, q, w, v);
    stop(&r);
}

/* moreau between contacts: a brick thrown spinning about its unstable middle axis, 1 s in
 * flight above the plane; its orientation converges at second order, its position exactly. */
static void test_flight_order(void **state) {
    (void)state;
    double qr[4], xr[3], q[4], x[3], err[3];
    fly(1e-3 / 64, 1.0, qr, xr);
    for (int k = 0; k < 3; ++k) {
        fly(1e-3 / (1 << k), 1.0, q, x);
        double d = fabs(q[0] * qr[0] + q[1] * qr[1] + q[2] * qr[2] + q[3] * qr[3]);
        err[k] = 2.0 * acos(fmin(1.0, d));
        if (!(fabs(x[0] - xr[0]) < 1e-11 && fabs(x[2] - xr[2]) < 1e-9))
            fail_msg("position off by %.3g", fabs(x[2] - xr[2]));
    }
    for (int k = 0; k < 2; ++k) {
        double p = log2(err[k] / err[k + 1]);
        if (!(p > 1.9 && p < 2.2))
            fail_msg("observed order %.3f (errors %.3g, %.3g rad)", p, err[k], err[k + 1]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flight_order),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_ground),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

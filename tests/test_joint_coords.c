/*
 * The joints' coordinates and rates (liedyn/coords.h) against exact solutions: a driven
 * revolute joint and a free spin (θ = ω t, θ̇ = ω) in every formulation, an arm spinning about
 * a horizontal axis through many turns (the angle wraps in (−π, π], the writer's column runs on
 * to ω t), a prismatic slide under a constant force (s = F t²/2m), a spherical joint's rotation
 * vector against the known rotation, the coordinates on a moving body1 against its own frame,
 * every rate against a central difference of its coordinate, and the CSV writer's columns.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#include "liedyn/coords.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/output.h"
#include "liedyn/system.h"

/* ---------------------------------------------------------------- a model and its run */

typedef struct sim {
    ld_model m;
    ld_system s;
    double *q0, *v0;
    ld_integ *it;
} sim;

/* Parse text, compile it in formulation f and start `method` (NULL: the model's) at t_start. */
static void sim_start(sim *S, const char *text, ld_formulation f, const char *method) {
    ld_model_error e;
    memset(S, 0, sizeof *S);
    if (ld_model_parse(text, strlen(text), "jc.yaml", &S->m, &e) != LD_OK)
        fail_msg("parse: %s\n%s", e.msg, text);
    char msg[512] = "";
    if (ld_model_compile_msg(&S->m, f, &S->s, &S->q0, &S->v0, msg, sizeof msg) != LD_OK)
        fail_msg("compile (%s): %s", ld_formulation_name(f), msg);
    ld_integ_options o;
    assert_int_equal(ld_integ_options_from_model(&S->m, &o), LD_OK);
    if (method) o.method = (ld_integ_method)ld_integ_method_find(method);
    int st = 0;
    S->it = ld_integ_create(&S->s, &o, &st);
    if (!S->it) fail_msg("%s on %s: %s", method, ld_formulation_name(f), ld_strerror(st));
    assert_int_equal(ld_integ_init(S->it, S->m.run.t_start, S->q0, S->v0), LD_OK);
}

static void sim_free(sim *S) {
    ld_integ_free(S->it);
    free(S->q0);
    free(S->v0);
    ld_model_system_free(&S->s);
    ld_model_free(&S->m);
}

/* Step n of the model's dt (to t_start + n dt exactly). */
static void sim_step_to(sim *S, int n) {
    double t = S->m.run.t_start + n * S->m.run.dt;
    if (ld_integ_advance_to(S->it, t) != LD_OK) fail_msg("step to t = %g failed", t);
}

/* Joint j's values at the integrator's state (n of them, n expected). */
static void coords_now(const sim *S, int j, int n, double *c, double *cd) {
    int got = -1;
    assert_int_equal(ld_model_joint_coords(&S->s, j, ld_integ_t(S->it), ld_integ_q(S->it),
                                           ld_integ_v(S->it), c, cd, &got),
                     LD_OK);
    assert_int_equal(got, n);
}

static void expect_near(double got, double want, double tol, const char *what) {
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: %.17g, expected %.17g (difference %.3e > %.1e)", what, got, want, got - want,
                 tol);
}

/* ---------------------------------------------------------------- the API's own rules */

static void test_kinds_and_names(void **state) {
    (void)state;
    static const struct {
        ld_joint_kind k;
        int n;
        const char *names;
    } want[] = {{LD_JOINT_REVOLUTE, 1, "angle angle_rate "},
                {LD_JOINT_CYLINDRICAL, 2, "angle slide angle_rate slide_rate "},
                {LD_JOINT_PRISMATIC, 1, "slide slide_rate "},
                {LD_JOINT_SPHERICAL, 3, "rx ry rz wx wy wz "},
                {LD_JOINT_UNIVERSAL, 3, "rx ry rz wx wy wz "},
                {LD_JOINT_FIXED, 0, ""},
                {LD_JOINT_DRIVER, 1, "value value_rate "}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        char buf[128] = "";
        assert_int_equal(ld_joint_coords_count(want[i].k), want[i].n);
        assert_true(want[i].n <= LD_JOINT_COORDS_MAX);
        for (int c = 0; c < 2 * want[i].n; ++c) {
            strcat(buf, ld_joint_coord_name(want[i].k, c));
            strcat(buf, " ");
            assert_int_equal(ld_joint_coord_periodic(want[i].k, c),
                             strcmp(ld_joint_coord_name(want[i].k, c), "angle") == 0);
        }
        assert_string_equal(buf, want[i].names);
        assert_string_equal(ld_joint_coord_name(want[i].k, 2 * want[i].n), "");
        assert_string_equal(ld_joint_coord_name(want[i].k, -1), "");
    }
    assert_int_equal(ld_joint_coords_count(LD_JOINT_KIND_COUNT), 0);
    assert_int_equal(ld_joint_coords_count((ld_joint_kind)-1), 0);
    assert_string_equal(ld_joint_coord_name(LD_JOINT_KIND_COUNT, 0), "");
}

static void test_unwrap(void **state) {
    (void)state;
    assert_true(ld_joint_angle_unwrap(1.0, NAN) == 1.0);
    assert_true(isnan(ld_joint_angle_unwrap(NAN, 1.0)));
    /* across +π: 3.1 then −3.1 is 2π − 3.1 */
    expect_near(ld_joint_angle_unwrap(-3.1, 3.1), 2 * PI - 3.1, 1e-15, "across +pi");
    expect_near(ld_joint_angle_unwrap(3.1, -3.1), -2 * PI + 3.1, 1e-15, "across -pi");
    /* ten turns along, then a small step on */
    expect_near(ld_joint_angle_unwrap(0.2, 20 * PI + 0.1), 20 * PI + 0.2, 1e-13, "turn 10");
    expect_near(ld_joint_angle_unwrap(-3.0, -9 * PI), -3.0 - 8 * PI, 1e-13, "negative turns");
    /* rows more than half a turn apart: taken as the shorter way round */
    expect_near(ld_joint_angle_unwrap(-2.0, 2.0), 2 * PI - 2.0, 1e-15, "half turn apart");
    double c[3], cd[3];
    int n = 7;
    assert_int_equal(ld_model_joint_coords(NULL, 0, 0.0, c, c, c, cd, &n), LD_EINVAL);
    assert_int_equal(n, 7);
}

/* ---------------------------------------------------------------- revolute: θ = ω t */

/* A disc on a revolute joint to the ground about a tilted axis through its centre, spinning at
 * OMEGA, with (driven = 1) or without a rotation driver at OMEGA t. */
#define OMEGA 7.5
static void spin_model(char *buf, size_t cap, int driven, const char *form, const char *method) {
    /* the axis a = (1, 2, 2)/3 in the spatial frame; the body turned by q0, so that its body
     * angular velocity is q0* (OMEGA a) q0; a spherical inertia makes any spin free */
    const double q0[4] = {0.9, 0.3, -0.2, 0.1}, w[3] = {2.5, 5, 5};
    double qn[4], Om[3];
    assert_int_equal(ld_quat_normalize(qn, q0), LD_OK);
    ld_quat_rotate_inv(Om, qn, w);
    snprintf(buf, cap,
             "bodies:\n"
             "  - name: disc\n"
             "    mass: 2\n"
             "    inertia: [3, 3, 3]\n"
             "    position: [0.5, -0.25, 1]\n"
             "    orientation: [0.9, 0.3, -0.2, 0.1]\n"
             "    angular_velocity: [%.17g, %.17g, %.17g]\n"
             "joints:\n"
             "  - {name: hinge, type: revolute, body2: disc, at: [0.5, -0.25, 1], axis: [1, 2, "
             "2]}\n"
             "%s"
             "integrator: {name: %s, formulation: %s, dt: 0.01, t_end: 1}\n",
             Om[0], Om[1], Om[2],
             driven ? "  - {name: motor, type: driver, body2: disc, axis: [1, 2, 2], motion: "
                      "rotation, value: 7.5, time: {shape: linear}}\n"
                    : "",
             method, form);
}

static void test_revolute_spin(void **state) {
    (void)state;
    static const char *const forms[] = {"so3xr3",         "se3",           "s3xr3", "s3sdr3",
                                        "so3xr3-spatial", "s3xr3-spatial", "euler"};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f)
        for (int driven = 0; driven <= 1; ++driven) {
            /* Euler parameters integrate the spin only to O(h²); driven, the angle is held */
            int euler = strcmp(forms[f], "euler") == 0;
            if (euler && !driven) continue;
            const char *method = euler ? "hht" : "genalpha";
            char text[2048], what[128];
            spin_model(text, sizeof text, driven, forms[f], method);
            sim S;
            sim_start(&S, text, (ld_formulation)ld_formulation_find(forms[f]), method);
            double prev = NAN;
            for (int n = 1; n <= 60; ++n) { /* 4.5 rad: through +π once */
                sim_step_to(&S, n);
                double t = ld_integ_t(S.it), c[3], cd[3];
                coords_now(&S, 0, 1, c, cd);
                snprintf(what, sizeof what, "%s %s angle at t = %g", forms[f],
                         driven ? "driven" : "free", t);
                assert_true(c[0] > -PI && c[0] <= PI);
                prev = ld_joint_angle_unwrap(c[0], prev);
                expect_near(prev, OMEGA * t, 1e-10, what);
                snprintf(what, sizeof what, "%s %s rate at t = %g", forms[f],
                         driven ? "driven" : "free", t);
                /* (hht's velocities on Euler parameters carry its O(h²) error) */
                expect_near(cd[0], OMEGA, euler ? 1e-2 : 1e-10, what);
                if (driven) { /* the driver's own value: value · f(t) exactly */
                    coords_now(&S, 1, 1, c, cd);
                    expect_near(c[0], OMEGA * t, 1e-15 * OMEGA * t, "driver value");
                    expect_near(cd[0], OMEGA, 0.0, "driver rate");
                }
            }
            sim_free(&S);
        }
}

/* ---------------------------------------------------------------- many turns, unwrapped */

/* An arm (centre of mass 0.4 m off the axis) turning about the horizontal x axis at 12 rad/s,
 * no gravity: uniform rotation about a fixed axis, which the semidirect products (velocities in
 * the body frame) integrate exactly. 300 steps of 0.01 s: 36 rad, five and a half turns. */
static const char arm[] = "bodies:\n"
                          "  - name: arm\n"
                          "    mass: 1.5\n"
                          "    inertia: [0.2, 0.05, 0.2]\n"
                          "    position: [0, 0.4, 0]\n"
                          "    angular_velocity: [12, 0, 0]\n"
                          "joints:\n"
                          "  - {name: pin, type: revolute, body2: arm, at: [0, 0, 0], axis: [1, "
                          "0, 0]}\n"
                          "integrator: {name: genalpha, dt: 0.01, t_end: 3}\n";

static void test_arm_turns(void **state) {
    (void)state;
    const ld_formulation forms[] = {LD_FORM_SE3, LD_FORM_S3SDR3};
    for (size_t f = 0; f < 2; ++f) {
        sim S;
        sim_start(&S, arm, forms[f], NULL);
        double raw = 0.0, run = 0.0, lo = 0.0, hi = 0.0;
        int wrapped = 0;
        for (int n = 1; n <= 300; ++n) {
            sim_step_to(&S, n);
            double t = ld_integ_t(S.it), c[3], cd[3];
            coords_now(&S, 0, 1, c, cd);
            lo = fmin(lo, c[0]), hi = fmax(hi, c[0]);
            wrapped += c[0] < raw - PI; /* the raw angle jumped back by a turn */
            raw = c[0];
            run = ld_joint_angle_unwrap(c[0], run);
            expect_near(run, 12.0 * t, 1e-10, "arm: unwrapped angle");
            expect_near(cd[0], 12.0, 1e-10, "arm: rate");
        }
        assert_int_equal(wrapped, 6); /* 36 rad: the raw angle crossed +π six times */
        assert_true(lo > -PI && hi <= PI && hi - lo > 6.2);
        sim_free(&S);
    }
}

/* ---------------------------------------------------------------- prismatic: s = F t²/2m */

static void test_prismatic_force(void **state) {
    (void)state;
    /* a block of 2 kg on a rail along (2, 1, 2)/3, pushed by 6 N along it (and 4 N across it,
     * which the rail takes): s = 1.5 t², ṡ = 3 t */
    const char *text = "bodies:\n"
                       "  - {name: block, mass: 2, inertia: [1, 2, 3], position: [1, 1, 1], "
                       "orientation: [0.8, 0, 0.6, 0]}\n"
                       "joints:\n"
                       "  - {name: rail, type: prismatic, body2: block, at: [1.5, 1, 1], axis: "
                       "[2, 1, 2]}\n"
                       "loads:\n"
                       "  - {body: block, type: force, value: [4, 2, 4]}\n"
                       "  - {body: block, type: force, value: [2, 0, -2]}\n"
                       "integrator: {name: genalpha, dt: 0.05, t_end: 1}\n";
    static const char *const forms[] = {"so3xr3", "se3", "s3xr3", "s3sdr3"};
    for (size_t f = 0; f < 4; ++f) {
        sim S;
        sim_start(&S, text, (ld_formulation)ld_formulation_find(forms[f]), NULL);
        for (int n = 1; n <= 20; ++n) {
            sim_step_to(&S, n);
            double t = ld_integ_t(S.it), c[3], cd[3];
            coords_now(&S, 0, 1, c, cd);
            expect_near(c[0], 1.5 * t * t, 1e-10, forms[f]);
            expect_near(cd[0], 3.0 * t, 1e-10, forms[f]);
        }
        sim_free(&S);
    }
}

/* ---------------------------------------------------------------- spherical: ρ = t R0 Ω */

static void test_spherical_rotvec(void **state) {
    (void)state;
    /* a body held at its centre of mass, turned by q0 at the start and spinning about its
     * principal axis e3 at 2 rad/s: R(t) = R0 exp(t Ω), so the rotation since the start is
     * R0 exp(t Ω) R0ᵀ = exp(t R0 Ω) and ρ = t R0 Ω (|ρ| < π up to t = π/2), w = R0 Ω */
    const char *text = "bodies:\n"
                       "  - {name: ball, mass: 1, inertia: [1, 2, 3], position: [0, 0, 2], "
                       "orientation: [0.5, 0.5, 0.5, 0.5], angular_velocity: [0, 0, 2]}\n"
                       "joints:\n"
                       "  - {name: socket, type: spherical, body2: ball, at: [0, 0, 2]}\n"
                       "  - {name: pt, type: spherical, body: ball, point: [0, 0, 0], ground: "
                       "[0, 0, 2]}\n"
                       "integrator: {name: genalpha, dt: 0.01, t_end: 1.5}\n";
    /* R0 e3 for q0 = (1, 1, 1, 1)/2: the rotation by 120° about (1, 1, 1) maps z to x */
    const double R0Om[3] = {2, 0, 0};
    sim S;
    sim_start(&S, text, LD_FORM_S3XR3, "hem5"); /* one of the two joints is redundant */
    for (int n = 1; n <= 150; ++n) {
        sim_step_to(&S, n);
        double t = ld_integ_t(S.it);
        for (int j = 0; j < 2; ++j) {
            double c[3], cd[3];
            coords_now(&S, j, 3, c, cd);
            for (int i = 0; i < 3; ++i) {
                expect_near(c[i], t * R0Om[i], 1e-9, "spherical: rotation vector");
                expect_near(cd[i], R0Om[i], 1e-9, "spherical: angular velocity");
            }
        }
    }
    sim_free(&S);
}

/* ---------------------------------------------------------------- a moving body1 */

/* Body a turns freely about its fixed centre (a spherical joint to the ground), starting turned
 * by 90° about x (its spatial angular velocity (0.3, −0.2, 0.5)); five bodies hang on it by the
 * other kinds, each turning or sliding relative to it, and a sixth is welded to it. No
 * gravity. */
static const char chain[] =
    "bodies:\n"
    "  - {name: a, mass: 1, inertia: [1, 2, 3], position: [0, 0, 0], orientation: [1, 1, 0, 0], "
    "angular_velocity: [0.3, 0.5, 0.2]}\n"
    "  - {name: rev, mass: 1, inertia: [0.3, 0.4, 0.5], position: [1.5, 0, 0], "
    "angular_velocity: [0.3, -0.2, 2.5]}\n"
    "  - {name: pri, mass: 1, inertia: [0.3, 0.4, 0.5], position: [0, 1.5, 0], "
    "angular_velocity: [0.3, -0.2, 0.5], velocity: [-0.75, 0.7, 0.45]}\n"
    "  - {name: cyl, mass: 1, inertia: [0.3, 0.4, 0.5], position: [0, 0, 1.5], "
    "angular_velocity: [0.3, -0.2, 2.0]}\n"
    "  - {name: uni, mass: 1, inertia: [0.3, 0.4, 0.5], position: [-1.5, 0, 0], "
    "angular_velocity: [0.3, 0.5, 0.9]}\n"
    "  - {name: sph, mass: 1, inertia: [0.3, 0.4, 0.5], position: [0, -1.5, 0], "
    "angular_velocity: [1, 2, -1]}\n"
    "  - {name: fix, mass: 1, inertia: [0.3, 0.4, 0.5], position: [0, 0, -1.5], "
    "angular_velocity: [0.3, -0.2, 0.5]}\n"
    "joints:\n"
    "  - {name: pivot, type: spherical, body2: a, at: [0, 0, 0]}\n"
    "  - {name: j-rev, type: revolute, body1: a, body2: rev, at: [1, 0, 0], axis: [0, 0, 1]}\n"
    "  - {name: j-pri, type: prismatic, body1: a, body2: pri, at: [0, 1, 0], axis: [0, 1, 0]}\n"
    "  - {name: j-cyl, type: cylindrical, body1: a, body2: cyl, at: [0, 0, 1], axis: [0, 0, 1]}\n"
    "  - {name: j-uni, type: universal, body1: a, body2: uni, at: [-1, 0, 0], axis: [0, 0, 1], "
    "axis2: [0, 1, 0]}\n"
    "  - {name: j-sph, type: spherical, body1: a, body2: sph, at: [0, -1, 0]}\n"
    "  - {name: weld, type: fixed, body1: a, body2: fix, at: [0, 0, -1]}\n"
    "integrator: {name: genalpha, dt: 0.002, t_end: 1}\n";

/* Body b's rotation since the start G = R R⁰ᵀ and spatial angular velocity at the state. */
static void body_rot(const sim *S, int b, const double *q, const double *v, double G[9],
                     double w[3], double x[3], double xd[3]) {
    double quat[4], Om[3], q0[4], c[4], g[4];
    assert_int_equal(ld_model_body_state(&S->s, b, q, v, x, quat, Om, xd), LD_OK);
    assert_int_equal(ld_quat_normalize(q0, S->m.bodies[b].q), LD_OK);
    ld_quat_conj(c, q0);
    ld_quat_mul(g, quat, c);
    ld_quat_to_mat(G, g);
    ld_quat_rotate(w, quat, Om);
}

/* Body a's frame carried from the start is G_a (the model's axes at t_start): the coordinates
 * are those of G_aᵀ G_b and G_aᵀ(ω_b − ω_a); the axes (z for the revolute and cylindrical
 * joints, y for the prismatic one) are the model's, spatial at the start. */
static void test_moving_body1(void **state) {
    (void)state;
    sim S;
    sim_start(&S, chain, LD_FORM_SO3XR3, NULL);
    for (int n = 1; n <= 400; ++n) sim_step_to(&S, n);
    const double *q = ld_integ_q(S.it), *v = ld_integ_v(S.it);
    double Ra[9], wa[3], xa[3], xda[3], c[3], cd[3];
    body_rot(&S, 0, q, v, Ra, wa, xa, xda);
    int nfix = -1;
    assert_int_equal(ld_model_joint_coords(&S.s, 6, 0.8, q, v, c, cd, &nfix), LD_OK);
    assert_int_equal(nfix, 0); /* the weld: nothing */
    assert_int_equal(ld_model_joint_coords(&S.s, 7, 0.8, q, v, c, cd, &nfix), LD_EINVAL);
    assert_int_equal(ld_model_joint_coords(&S.s, -1, 0.8, q, v, c, cd, &nfix), LD_EINVAL);
    assert_int_equal(ld_model_joint_coords(&S.s, 0, 0.8, q, NULL, c, cd, &nfix), LD_EINVAL);
    for (int b = 1; b <= 5; ++b) {
        double Rb[9], wb[3], xb[3], xdb[3], Q[9], rho[3], dw[3], w[3];
        body_rot(&S, b, q, v, Rb, wb, xb, xdb);
        for (int i = 0; i < 3; ++i) /* Q = R_aᵀ R_b */
            for (int k = 0; k < 3; ++k)
                Q[3 * i + k] = Ra[i] * Rb[k] + Ra[3 + i] * Rb[3 + k] + Ra[6 + i] * Rb[6 + k];
        ld_so3_log(rho, Q);
        for (int i = 0; i < 3; ++i) dw[i] = wb[i] - wa[i];
        for (int i = 0; i < 3; ++i) w[i] = Ra[i] * dw[0] + Ra[3 + i] * dw[1] + Ra[6 + i] * dw[2];
        int n = ld_joint_coords_count(S.m.joints[b].kind);
        coords_now(&S, b, n, c, cd);
        switch (S.m.joints[b].kind) {
        case LD_JOINT_REVOLUTE: /* about z of a: ρ = (0, 0, θ) */
            expect_near(c[0], rho[2], 1e-9, "moving body1: revolute angle");
            expect_near(rho[0], 0.0, 1e-9, "revolute: no swing");
            expect_near(cd[0], w[2], 1e-9, "moving body1: revolute rate");
            assert_true(fabs(c[0]) > 0.5);
            break;
        case LD_JOINT_PRISMATIC: { /* s = (G_a e_y)·x_pri − 1.5 */
            double s = Ra[1] * xb[0] + Ra[4] * xb[1] + Ra[7] * xb[2] - 1.5;
            expect_near(c[0], s, 1e-9, "moving body1: slide");
            expect_near(fabs(rho[0]) + fabs(rho[1]) + fabs(rho[2]), 0.0, 1e-9,
                        "prismatic: no rotation");
            assert_true(fabs(c[0]) > 0.1);
            break;
        }
        case LD_JOINT_CYLINDRICAL: { /* θ about z of a, s = (G_a e_z)·x_cyl − 1.5 */
            double s = Ra[2] * xb[0] + Ra[5] * xb[1] + Ra[8] * xb[2] - 1.5;
            expect_near(c[0], rho[2], 1e-9, "moving body1: cylindrical angle");
            expect_near(c[1], s, 1e-9, "moving body1: cylindrical slide");
            expect_near(cd[0], w[2], 1e-9, "moving body1: cylindrical rate");
            break;
        }
        default: /* universal, spherical: ρ and w themselves */
            for (int i = 0; i < 3; ++i) {
                expect_near(c[i], rho[i], 1e-9, "moving body1: rotation vector");
                expect_near(cd[i], w[i], 1e-9, "moving body1: angular velocity");
            }
            break;
        }
    }
    sim_free(&S);
}

/* ---------------------------------------------------------------- rates: central differences */

/* Joint j's coordinates at the state q moved along its velocity, q ∘ exp(e v), at time t + e. */
static void coords_along(const sim *S, int j, double t, const double *q, const double *v, double e,
                         double *qs, double *c) {
    double cd[3];
    int n;
    double *xi = malloc((size_t)S->s.k * sizeof *xi);
    assert_non_null(xi);
    for (int i = 0; i < S->s.k; ++i) xi[i] = e * v[i];
    ld_sys_retract(&S->s, qs, q, xi);
    free(xi);
    assert_int_equal(ld_model_joint_coords(&S->s, j, t + e, qs, v, c, cd, &n), LD_OK);
}

/* Every rate of the chain (and of a driver) against the central difference of its coordinate
 * along the motion: (c(q ∘ exp(εv)) − c(q ∘ exp(−εv)))/2ε; for a rotation vector the
 * difference of its quaternion against Q̇ = ½ w ∘ Q. */
static void check_rates(const sim *S, const char *what) {
    const double e = 1e-5, *q = ld_integ_q(S->it), *v = ld_integ_v(S->it);
    double t = ld_integ_t(S->it), *qs = malloc((size_t)S->s.nq * sizeof *qs);
    assert_non_null(qs);
    for (int j = 0; j < S->m.njoints; ++j) {
        ld_joint_kind kind = S->m.joints[j].kind;
        int n = ld_joint_coords_count(kind);
        double c[3], cd[3], cp[3], cm[3], scale = 0.0;
        coords_now(S, j, n, c, cd);
        coords_along(S, j, t, q, v, e, qs, cp);
        coords_along(S, j, t, q, v, -e, qs, cm);
        for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(cd[i]));
        char msg[160];
        if (kind == LD_JOINT_SPHERICAL || kind == LD_JOINT_UNIVERSAL) {
            double Q[4], Qp[4], Qm[4], w4[4] = {0, cd[0], cd[1], cd[2]}, dQ[4];
            ld_quat_from_rotvec(Q, c);
            ld_quat_from_rotvec(Qp, cp);
            ld_quat_from_rotvec(Qm, cm);
            ld_quat_mul(dQ, w4, Q);
            for (int i = 0; i < 4; ++i) {
                snprintf(msg, sizeof msg, "%s: joint %d ('%s') dQ/dt[%d]", what, j,
                         S->m.joints[j].name, i);
                expect_near((Qp[i] - Qm[i]) / (2 * e), 0.5 * dQ[i], 1e-7 * (1 + scale), msg);
            }
            continue;
        }
        for (int i = 0; i < n; ++i) {
            double d = cp[i] - cm[i];
            if (ld_joint_coord_periodic(kind, i)) d = ld_joint_angle_unwrap(cp[i], cm[i]) - cm[i];
            snprintf(msg, sizeof msg, "%s: joint %d ('%s') %s", what, j, S->m.joints[j].name,
                     ld_joint_coord_name(kind, n + i));
            expect_near(d / (2 * e), cd[i], 1e-7 * (1 + scale), msg);
        }
    }
    free(qs);
}

static void test_rates_central_difference(void **state) {
    (void)state;
    static const char *const forms[] = {"so3xr3", "se3", "s3sdr3", "s3xr3-spatial", "euler"};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
        int euler = strcmp(forms[f], "euler") == 0;
        sim S;
        sim_start(&S, chain, (ld_formulation)ld_formulation_find(forms[f]),
                  euler ? "hht" : "genalpha");
        for (int n = 1; n <= 400; ++n) {
            sim_step_to(&S, n);
            if (n % 100 == 0) check_rates(&S, forms[f]);
        }
        sim_free(&S);
    }
    /* a driver's value along its time function: a sine, and the revolute joint it drives */
    const char *text = "bodies:\n"
                       "  - {name: crank, mass: 1, inertia: [1, 1, 1], position: [0.2, 0, 0], "
                       "angular_velocity: [0, 0, 1.5707963267948966]}\n"
                       "joints:\n"
                       "  - {name: bearing, type: revolute, body2: crank, at: [0, 0, 0], axis: "
                       "[0, 0, 1]}\n"
                       "  - {name: motor, type: driver, body2: crank, axis: [0, 0, 1], motion: "
                       "rotation, value: 1, time: {shape: sine, period: 4}}\n"
                       "integrator: {name: genalpha, dt: 0.001, t_end: 2}\n";
    sim S;
    sim_start(&S, text, LD_FORM_SE3, NULL);
    for (int n = 1; n <= 1500; ++n) {
        sim_step_to(&S, n);
        if (n % 250 == 0) {
            check_rates(&S, "driven crank");
            double t = ld_integ_t(S.it), c[3], cd[3], cm[3], cmd[3];
            coords_now(&S, 1, 1, cm, cmd);
            coords_now(&S, 0, 1, c, cd);
            expect_near(cm[0], sin(PI * t / 2), 1e-15, "driver: value");
            expect_near(cmd[0], PI / 2 * cos(PI * t / 2), 1e-14, "driver: value_rate");
            expect_near(c[0], cm[0], 1e-9, "driven crank: the bearing's angle");
            expect_near(cd[0], cmd[0], 1e-5, "driven crank: the bearing's rate");
        }
    }
    sim_free(&S);
}

/* ---------------------------------------------------------------- the CSV writer's columns */

/* The column named name of the CSV text (its header line first): index, or −1. */
static int csv_col(const char *text, const char *name) {
    size_t len = strlen(name);
    int k = 0;
    for (const char *p = text; *p && *p != '\n'; ++k) {
        size_t n = strcspn(p, ",\n");
        if (n == len && strncmp(p, name, len) == 0) return k;
        p += n;
        if (*p == ',') ++p;
    }
    return -1;
}

/* Read path whole (the caller frees). */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    return b;
}

static void test_csv_columns(void **state) {
    (void)state;
    sim S;
    sim_start(&S, arm, LD_FORM_SE3, NULL);
    char dir[] = "/tmp/ld_test_joint_coords_XXXXXX", all[128], some[128], why[512];
    assert_non_null(mkdtemp(dir));
    snprintf(all, sizeof all, "%s/all.csv", dir);
    snprintf(some, sizeof some, "%s/some.csv", dir);
    int st;
    ld_out_csv *wa = ld_out_csv_open(all, &S.s, &S.m, NULL, 0, &st, why, sizeof why);
    ld_out_csv *ws =
        ld_out_csv_open(some, &S.s, &S.m, "pin.rate,pin.coords", 0, &st, why, sizeof why);
    assert_non_null(wa);
    assert_non_null(ws);
    for (int n = 0; n <= 300; ++n) {
        if (n) sim_step_to(&S, n);
        double t = ld_integ_t(S.it);
        const double *q = ld_integ_q(S.it), *v = ld_integ_v(S.it), *l = ld_integ_lambda(S.it);
        assert_int_equal(ld_out_csv_row(wa, t, q, v, l, 0.0, NAN), LD_OK);
        assert_int_equal(ld_out_csv_row(ws, t, q, v, l, 0.0, NAN), LD_OK);
    }
    ld_out_csv_free(wa);
    ld_out_csv_free(ws);
    /* every column: the joint's coordinates last, the angle unwrapped to 12 t */
    char *text = slurp(all);
    int ca = csv_col(text, "pin.angle"), cr = csv_col(text, "pin.angle_rate");
    assert_int_equal(ca, 1 + 13 + 4 + 6); /* energy, constraint_residual, work, energy_balance */
    assert_int_equal(cr, ca + 1);
    assert_true(strstr(text, ",pin.tz,pin.angle,pin.angle_rate\n") != NULL);
    int rows = 0;
    for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        double val[32];
        char *p = line + 1;
        for (int k = 0; k <= cr; ++k) {
            val[k] = strtod(p, &p);
            if (*p == ',') ++p;
        }
        expect_near(val[ca], 12.0 * val[0], 1e-9, "csv: pin.angle");
        expect_near(val[cr], 12.0, 1e-9, "csv: pin.angle_rate");
        ++rows;
    }
    assert_int_equal(rows, 301);
    free(text);
    /* chosen by group: the rates, then the coordinates */
    text = slurp(some);
    assert_true(strncmp(text, "t,pin.angle_rate,pin.angle\n", 27) == 0);
    double last[3];
    char *tail = text + strlen(text) - 2;
    while (*tail != '\n') --tail;
    assert_int_equal(sscanf(tail + 1, "%lf,%lf,%lf", last, last + 1, last + 2), 3);
    expect_near(last[2], 36.0, 1e-9, "csv: the last angle, 5.7 turns on");
    free(text);
    /* the names that choose them, and one that does not */
    assert_int_equal(ld_out_columns_check(&S.m, 0, "pin.angle,pin.angle_rate,pin", why, sizeof why),
                     LD_OK);
    assert_int_equal(ld_out_columns_check(&S.m, 0, "pin.slide", why, sizeof why), LD_EINVAL);
    assert_non_null(strstr(why, "unknown column 'pin.slide'"));
    assert_non_null(strstr(why, "JOINT.f, .t, .coords, .rate"));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    sim_free(&S);
}

/* The columns of the chain: after the reactions, per joint its coordinates then its rates. */
static void test_column_names(void **state) {
    (void)state;
    ld_model m;
    ld_model_error e;
    assert_int_equal(ld_model_parse(chain, strlen(chain), "jc.yaml", &m, &e), LD_OK);
    char **names;
    int n;
    assert_int_equal(ld_out_columns(&m, 0, &names, &n), LD_OK);
    const char *want[] = {"pivot.rx",         "pivot.ry",         "pivot.rz",    "pivot.wx",
                          "pivot.wy",         "pivot.wz",         "j-rev.angle", "j-rev.angle_rate",
                          "j-pri.slide",      "j-pri.slide_rate", "j-cyl.angle", "j-cyl.slide",
                          "j-cyl.angle_rate", "j-cyl.slide_rate", "j-uni.rx",    "j-uni.ry",
                          "j-uni.rz",         "j-uni.wx",         "j-uni.wy",    "j-uni.wz",
                          "j-sph.rx",         "j-sph.ry",         "j-sph.rz",    "j-sph.wx",
                          "j-sph.wy",         "j-sph.wz"};
    int nw = (int)(sizeof want / sizeof want[0]);
    assert_int_equal(n, 1 + 13 * 7 + 4 + 6 * 7 + nw);
    assert_string_equal(names[1 + 13 * 7 + 4 + 6 * 7 - 1], "weld.tz");
    for (int i = 0; i < nw; ++i) assert_string_equal(names[n - nw + i], want[i]);
    free(names);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_and_names), cmocka_unit_test(test_unwrap),
        cmocka_unit_test(test_revolute_spin),   cmocka_unit_test(test_arm_turns),
        cmocka_unit_test(test_prismatic_force), cmocka_unit_test(test_spherical_rotvec),
        cmocka_unit_test(test_moving_body1),    cmocka_unit_test(test_rates_central_difference),
        cmocka_unit_test(test_csv_columns),     cmocka_unit_test(test_column_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Closed loops written as a user writes them: a planar four-bar of four revolute joints in 3-D
 * has 20 joint equations of which 3 depend on the others (ld_model_redundant_rows). Compiling
 * leaves those out; the mechanism then runs in every formulation with every integrator that
 * takes constraints, dense and KLU, keeps the integrators' orders, and its velocities follow
 * from the crank's alone. A start at a singular position and contradicting velocities are
 * refused with the joint named.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* A crank-rocker: A (0, 0) and D (2, 0) on the ground, crank AB of length 1 at 60°, rocker DC
 * of length 1.2 at 100°, coupler BC; gravity along −y; only the crank's rate is given. */
#define S60 0.8660254037844386
#define CX  1.7916221867996835 /* 2 + 1.2 cos 100° */
#define CY  1.1817693036146495 /* 1.2 sin 100° */
#define FOUR_BAR(OMEGA_CRANK, EXTRA)                                                               \
    "name: four-bar\n"                                                                             \
    "gravity: [0, -9.81, 0]\n"                                                                     \
    "bodies:\n"                                                                                    \
    "  - {name: crank, mass: 1, inertia: [0.1, 0.1, 0.1], position: [0.25, 0.4330127018922193, "   \
    "0]" OMEGA_CRANK "}\n"                                                                         \
    "  - {name: coupler, mass: 2, inertia: [0.3, 0.3, 0.3], position: [1.1458110933998418, "       \
    "1.0238973536995442, 0]}\n"                                                                    \
    "  - {name: rocker, mass: 1.5, inertia: [0.2, 0.2, 0.2], position: [1.8958110933998418, "      \
    "0.5908846518073247, 0]" EXTRA "}\n"                                                           \
    "joints:\n"                                                                                    \
    "  - {name: A, type: revolute, body2: crank, at: [0, 0, 0], axis: [0, 0, 1]}\n"                \
    "  - {name: B, type: revolute, body1: crank, body2: coupler, at: [0.5, 0.8660254037844386, "   \
    "0], axis: [0, 0, 1]}\n"                                                                       \
    "  - {name: C, type: revolute, body1: coupler, body2: rocker, at: [1.7916221867996835, "       \
    "1.1817693036146495, 0], axis: [0, 0, 1]}\n"                                                   \
    "  - {name: D, type: revolute, body2: rocker, at: [2, 0, 0], axis: [0, 0, 1]}\n"

static const char *const four_bar = FOUR_BAR(", angular_velocity: [0, 0, 6.283185307179586]", "");

/* |a − b| ≤ tol, or fail naming both. */
static void near(double a, double b, double tol) {
    if (!(fabs(a - b) <= tol)) fail_msg("%.17g differs from %.17g by more than %g", a, b, tol);
}

static void parse(const char *text, ld_model *m) {
    ld_model_error e;
    memset(&e, 0, sizeof e);
    int rc = ld_model_parse(text, strlen(text), "loop.yaml", m, &e);
    if (rc != LD_OK) fail_msg("parse: %s", e.msg);
}

/* Three rows of the closing joint D (its out-of-plane rows 3..5) are left out in every
 * formulation, and the system has the 17 that remain. */
static void test_rows_left_out(void **state) {
    (void)state;
    ld_model m;
    parse(four_bar, &m);
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0;
        char msg[512];
        int rc = ld_model_compile_msg(&m, (ld_formulation)f, &s, &q0, &v0, msg, sizeof msg);
        if (rc) fail_msg("%s: %s", ld_formulation_name((ld_formulation)f), msg);
        int jr[8], rr[8];
        assert_int_equal(ld_model_redundant_rows(&s, jr, rr, 8), 3);
        assert_int_equal(s.m, 17 + (f == LD_FORM_EULER ? 3 : 0));
        for (int i = 0; i < 3; ++i) {
            assert_int_equal(jr[i], 3);
            assert_int_equal(rr[i], 2 + i);
        }
        char name[256];
        assert_int_equal(ld_model_row_name(&s, 16, name, sizeof name), LD_OK);
        if (!strstr(name, "joint 'D' (line 11), row 2 of 5")) fail_msg("%s", name);
        assert_true(ld_model_joint_phi_max(&s, 0.0, q0, NULL) < 1e-15);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(&m);
}

/* Only the crank's rate is given: the coupler's and the rocker's follow from the loop, equal
 * to the planar velocity analysis vB + ω2 ẑ × (C − B) = ω3 ẑ × (C − D). */
static void test_velocities_from_the_crank(void **state) {
    (void)state;
    ld_model m;
    parse(four_bar, &m);
    ld_system s;
    double *q0, *v0, x[3], qq[4], om[3], xd[3];
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    const double w1 = 6.283185307179586, B[2] = {0.5, S60}, C[2] = {CX, CY}, D[2] = {2, 0};
    const double vB[2] = {-w1 * B[1], w1 * B[0]};
    /* ω2 (−(C−B)y, (C−B)x) − ω3 (−(C−D)y, (C−D)x) = −vB */
    double a11 = -(C[1] - B[1]), a12 = C[1] - D[1], a21 = C[0] - B[0], a22 = -(C[0] - D[0]);
    double det = a11 * a22 - a12 * a21;
    double w2 = (-vB[0] * a22 + vB[1] * a12) / det, w3 = (-a11 * vB[1] + a21 * vB[0]) / det;
    const double want[3] = {w1, w2, w3};
    for (int b = 0; b < 3; ++b) {
        assert_int_equal(ld_model_body_state(&s, b, q0, v0, x, qq, om, xd), LD_OK);
        near(om[2], want[b], 1e-12 * fabs(w1));
        near(om[0], 0.0, 1e-12);
        near(xd[2], 0.0, 1e-12);
    }
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* A rate given to the rocker too that the loop cannot have is refused with the joint named. */
static void test_contradiction_named(void **state) {
    (void)state;
    ld_model m;
    parse(
        FOUR_BAR(", angular_velocity: [0, 0, 6.283185307179586]", ", angular_velocity: [0, 0, 1]"),
        &m);
    ld_system s;
    double *q0, *v0;
    char msg[512];
    assert_int_equal(ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg),
                     LD_EINVAL);
    assert_non_null(strstr(msg, "contradicts joint"));
    assert_non_null(strstr(msg, "leave the others out"));
    ld_model_free(&m);
}

/* A parallelogram started with its links aligned (a singular position: it may branch to the
 * anti-parallelogram) is refused, naming the joint, instead of losing a constraint. */
static void test_singular_start_refused(void **state) {
    (void)state;
    const char *text =
        "bodies:\n"
        "  - {name: crank, mass: 1, inertia: [0.1, 0.1, 0.1], position: [0.5, 0, 0]}\n"
        "  - {name: coupler, mass: 1, inertia: [0.1, 0.1, 0.1], position: [1.5, 0, 0]}\n"
        "  - {name: rocker, mass: 1, inertia: [0.1, 0.1, 0.1], position: [1.5, 0, 0]}\n"
        "joints:\n"
        "  - {name: A, type: revolute, body2: crank, at: [0, 0, 0], axis: [0, 0, 1]}\n"
        "  - {name: B, type: revolute, body1: crank, body2: coupler, at: [1, 0, 0], axis: [0, 0, "
        "1]}\n"
        "  - {name: C, type: revolute, body1: coupler, body2: rocker, at: [2, 0, 0], axis: [0, 0, "
        "1]}\n"
        "  - {name: D, type: revolute, body2: rocker, at: [1, 0, 0], axis: [0, 0, 1]}\n";
    ld_model m;
    parse(text, &m);
    ld_system s;
    double *q0, *v0;
    char msg[512];
    assert_int_equal(ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg),
                     LD_EINVAL);
    assert_non_null(strstr(msg, "singular position"));
    assert_non_null(strstr(msg, "joint 'D'"));
    ld_model_free(&m);
}

/* The bodies' positions at T after n steps of h = T/n. */
static void run_to(const ld_model *m, ld_formulation f, ld_integ_method meth, ld_la_kind la,
                   double T, int n, double *pos, double *phi_all) {
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(m, f, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    o.la = la;
    o.newton_atol = o.newton_rtol = 1e-12;
    int st;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    if (!it) fail_msg("create %s: status %d", ld_integ_method_name(meth), st);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    for (int i = 0; i < n; ++i) {
        int rc = ld_integ_step(it, T / n);
        if (rc)
            fail_msg("%s on %s: step %d failed (%d)", ld_integ_method_name(meth),
                     ld_formulation_name(f), i, rc);
    }
    double qq[4], om[3], xd[3];
    for (int b = 0; b < 3; ++b)
        assert_int_equal(
            ld_model_body_state(&s, b, ld_integ_q(it), ld_integ_v(it), pos + 3 * b, qq, om, xd),
            LD_OK);
    if (phi_all) *phi_all = ld_model_joint_phi_max(&s, T, ld_integ_q(it), NULL);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

static double max_diff(const double *a, const double *b, int n) {
    double d = 0.0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* Every method that takes constraints, in every formulation it accepts, dense and KLU, runs
 * the loop to T = 0.25 and ends on the reference (hem5, 1024 steps) within its error, with
 * every joint equation (the rows left out too) closed. */
static void test_every_method(void **state) {
    (void)state;
    ld_model m;
    parse(four_bar, &m);
    const double T = 0.25;
    double ref[9], pos[9], phi;
    run_to(&m, LD_FORM_SO3XR3, LD_INTEG_HEM5, LD_LA_DENSE, T, 1024, ref, NULL);
    const ld_integ_method meths[] = {LD_INTEG_GENALPHA,     LD_INTEG_NEWMARK, LD_INTEG_HHT,
                                     LD_INTEG_HHT_MODIFIED, LD_INTEG_HEM2,    LD_INTEG_HEM5};
    for (size_t i = 0; i < sizeof meths / sizeof meths[0]; ++i)
        for (int f = 0; f < LD_FORM_COUNT; ++f)
            for (int la = 0; la < 2; ++la) {
                ld_integ_options o;
                ld_integ_options_init(&o);
                o.method = meths[i];
                ld_system s;
                double *q0, *v0;
                assert_int_equal(ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
                int ok =
                    ld_integ_options_check(&s, &o) == NULL && (la == 0 || ld_sys_has_sparse(&s));
                free(q0);
                free(v0);
                ld_model_system_free(&s);
                if (!ok) continue;
                run_to(&m, (ld_formulation)f, meths[i], la ? LD_LA_KLU : LD_LA_DENSE, T, 250, pos,
                       &phi);
                double err = max_diff(pos, ref, 9);
                int hem = meths[i] == LD_INTEG_HEM2 || meths[i] == LD_INTEG_HEM5; /* drift */
                if (!(err < 2e-3) || !(phi < (hem ? 1e-3 : 1e-10)))
                    fail_msg("%s on %s (%s): error %.3g, joint residual %.3g",
                             ld_integ_method_name(meths[i]), ld_formulation_name((ld_formulation)f),
                             la ? "klu" : "dense", err, phi);
            }
    ld_model_free(&m);
}

/* Observed orders on the loop: genalpha 2, hem3 3, hem5 5 (errors in the bodies' positions
 * at T = 0.5 against hem5 with 4096 steps; hem5 reaches its order from above: 6.6, 5.9, 5.4
 * over successive halvings from h = 1/128). */
static void test_orders(void **state) {
    (void)state;
    ld_model m;
    parse(four_bar, &m);
    const double T = 0.5;
    double ref[9];
    run_to(&m, LD_FORM_SO3XR3, LD_INTEG_HEM5, LD_LA_DENSE, T, 4096, ref, NULL);
    const struct {
        ld_integ_method meth;
        int n0;
        double lo, hi;
    } cases[] = {{LD_INTEG_GENALPHA, 128, 1.9, 2.1},
                 {LD_INTEG_HEM3, 64, 2.7, 3.3},
                 {LD_INTEG_HEM5, 128, 4.6, 6.0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double e[3], pos[9];
        for (int k = 0; k < 3; ++k) {
            run_to(&m, LD_FORM_SE3, cases[c].meth, LD_LA_DENSE, T, cases[c].n0 << k, pos, NULL);
            e[k] = max_diff(pos, ref, 9);
        }
        double p = log2(e[1] / e[2]);
        if (!(p > cases[c].lo && p < cases[c].hi))
            fail_msg("%s: errors %.3g %.3g %.3g, order %.3f outside [%g, %g]",
                     ld_integ_method_name(cases[c].meth), e[0], e[1], e[2], p, cases[c].lo,
                     cases[c].hi);
    }
    ld_model_free(&m);
}

/* Rotation angle about z of a planar body's quaternion, brought to within π of near. */
static double angle_z(const double q[4], double near) {
    double a = 2.0 * atan2(q[3], q[0]);
    return a + 2.0 * PI * round((near - a) / (2.0 * PI));
}

/* Andrews' squeezer as written with revolute joints (models/andrews-squeezer.yaml, three loops:
 * nine rows left out) against the Test Set for IVP Solvers' reference at t = 0.03 (PSIDE,
 * tolerance 1e-14; tests/data/andrews-reference.txt): hem5 under tight tolerances gives every
 * body's angle to 1e-8 rad (measured 1.1e-9). */
static void test_andrews_test_set(void **state) {
    (void)state;
    ld_model m;
    ld_model_error e;
    memset(&e, 0, sizeof e);
    if (ld_model_load(LD_SOURCE_DIR "/models/andrews-squeezer.yaml", &m, &e) != LD_OK)
        fail_msg("%s", e.msg);
    FILE *f = fopen(LD_SOURCE_DIR "/tests/data/andrews-reference.txt", "r");
    assert_non_null(f);
    const char *keys[7] = {"beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"};
    double r[7] = {0}, val;
    char line[256], key[64];
    int got = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#' && sscanf(line, "%63s %lf", key, &val) == 2)
            for (int k = 0; k < 7; ++k)
                if (strcmp(key, keys[k]) == 0) r[k] = val, got |= 1 << k;
    fclose(f);
    assert_int_equal(got, 127);
    /* the bodies' absolute angles (the file's comment): β, β + Θ, γ, Φ + δ, δ, Ω + ε, ε */
    const double want[7] = {r[0], r[0] + r[1], r[2], r[3] + r[4], r[4], r[5] + r[6], r[6]};
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    assert_int_equal(ld_model_redundant_rows(&s, NULL, NULL, 0), 9);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_HEM5;
    o.adaptive = 1;
    o.error_atol = o.error_rtol = 1e-10;
    int st;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    assert_int_equal(ld_integ_advance_to(it, 0.03), LD_OK);
    double x[3], qq[4], om[3], xd[3];
    for (int b = 0; b < 7; ++b) {
        assert_int_equal(ld_model_body_state(&s, b, ld_integ_q(it), ld_integ_v(it), x, qq, om, xd),
                         LD_OK);
        double a = angle_z(qq, want[b]);
        if (!(fabs(a - want[b]) < 1e-8))
            fail_msg("body %s: angle %.12g, Test Set %.12g", m.bodies[b].name, a, want[b]);
    }
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* Without numerical damping (genalpha with rho_inf = 1) the index-3 loop blows up within 2 s
 * (the caution says so before the run); with the projections of v and v̇ (project) it runs
 * 5 s with the energy kept to 1e-3 relative (it converges: 4.0e-4, 4.4e-5, 4.1e-6 over 30 s for
 * h = 1e-3, 5e-4, 2.5e-4). */
static void test_undamped_needs_projection(void **state) {
    (void)state;
    ld_model m;
    parse(four_bar, &m);
    for (int proj = 0; proj < 2; ++proj) {
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
        ld_integ_options o;
        ld_integ_options_init(&o);
        o.method = LD_INTEG_GENALPHA;
        o.rho_inf = 1.0;
        o.project = proj;
        assert_true((ld_integ_options_caution(&s, &o) != NULL) == !proj);
        int st;
        ld_integ *it = ld_integ_create(&s, &o, &st);
        assert_non_null(it);
        assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
        double e0 = ld_sys_energy(&s, 0.0, q0, v0), T = proj ? 5.0 : 2.0;
        int rc = LD_OK;
        for (int i = 0; i < (int)(T * 1000.0 + 0.5) && rc == LD_OK; ++i)
            rc = ld_integ_step(it, 1e-3);
        if (proj) {
            assert_int_equal(rc, LD_OK);
            double e1 = ld_sys_energy(&s, ld_integ_t(it), ld_integ_q(it), ld_integ_v(it));
            if (!(fabs(e1 - e0) < 1e-3 * fabs(e0))) fail_msg("energy %.10g -> %.10g", e0, e1);
            assert_true(ld_model_joint_phi_max(&s, ld_integ_t(it), ld_integ_q(it), NULL) < 1e-10);
        } else {
            assert_true(rc != LD_OK); /* the undamped run does not survive */
        }
        ld_integ_free(it);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(&m);
}

/* The loops of the shipped mechanisms: the cycle rank of their joint graphs. */
static void test_loop_count(void **state) {
    (void)state;
    const struct {
        const char *file;
        int loops;
    } cases[] = {{"four-bar", 1},
                 {"andrews-squeezer", 3},
                 {"bricard", 1},
                 {"n-four-bar-revolute", 40},
                 {"n-four-bar", 40},
                 {"heavy-top", 0},
                 {"double-pendulum-damped", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char path[512];
        snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, cases[i].file);
        ld_model m;
        ld_model_error e;
        memset(&e, 0, sizeof e);
        if (ld_model_load(path, &m, &e) != LD_OK) fail_msg("%s", e.msg);
        int n = ld_model_loop_count(&m);
        if (n != cases[i].loops)
            fail_msg("%s: %d loops, want %d", cases[i].file, n, cases[i].loops);
        ld_model_free(&m);
    }
    assert_int_equal(ld_model_loop_count(NULL), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_left_out),
        cmocka_unit_test(test_velocities_from_the_crank),
        cmocka_unit_test(test_contradiction_named),
        cmocka_unit_test(test_singular_start_refused),
        cmocka_unit_test(test_every_method),
        cmocka_unit_test(test_orders),
        cmocka_unit_test(test_andrews_test_set),
        cmocka_unit_test(test_undamped_needs_projection),
        cmocka_unit_test(test_loop_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

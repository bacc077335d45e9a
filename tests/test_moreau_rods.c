/*
 * moreau with rods and beams (docs/contact.md, "Rods and beams under moreau";
 * src/sys/moreau_flex.c): the forces linearly implicit (θ = 1/2), the spans' hard contacts
 * through the Delassus operator of the step. A rod and a beam lying on the plane carry their
 * weight at rest without overlap or drift; a cantilever swinging freely converges at order 2
 * and keeps its energy; the beam-drop falls, strikes the ball at the free fall's time, never
 * passes through it, near the compliant law's run; a rod hanging from a body through a
 * spherical joint swings with its joints closed, at order 2. Every Lie formulation.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "liedyn/liedyn.h"
#include "mat3.h"
#include "support.h"

static const double G = 9.81, RHO = 0.01;
static const ld_formulation FORMS[] = {LD_FORM_SO3XR3,         LD_FORM_SE3,
                                       LD_FORM_S3XR3,          LD_FORM_S3SDR3,
                                       LD_FORM_SO3XR3_SPATIAL, LD_FORM_S3XR3_SPATIAL};
#define NFORMS ((int)(sizeof FORMS / sizeof FORMS[0]))

static void parse(const char *text, ld_model *m) {
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "rods.yaml", m, &err))
        fail_msg("line %d %s: %s", err.line, err.key, err.msg);
}

/* A model compiled in formulation f with moreau at step h (pgs_tol 1e-12): the integrator,
 * started at its initial state. */
typedef struct run {
    ld_system s;
    double *q0, *v0;
    ld_integ *it;
} run;

static void start(run *r, const ld_model *m, ld_formulation f, int method) {
    char msg[256];
    if (ld_model_compile_msg(m, f, &r->s, &r->q0, &r->v0, msg, sizeof msg)) fail_msg("%s", msg);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)method;
    if (method == ld_integ_method_find("moreau")) o.param[2] = 1e-12;
    int st = 0;
    r->it = ld_integ_create_msg(&r->s, &o, &st, msg, sizeof msg);
    if (!r->it) fail_msg("%s", msg);
    assert_int_equal(ld_integ_init(r->it, 0.0, r->q0, r->v0), LD_OK);
}

static void finish(run *r) {
    ld_integ_free(r->it);
    free(r->q0), free(r->v0);
    ld_model_system_free(&r->s);
}

static double energy(const run *r) {
    double e = NAN;
    assert_int_equal(r->s.ops.energy(&r->s, 0.0, ld_integ_q(r->it), ld_integ_v(r->it), &e), LD_OK);
    return e;
}

static void body_at(const run *r, int b, double x[3], double xd[3]) {
    double qq[4], om[3];
    assert_int_equal(
        ld_model_body_state(&r->s, b, ld_integ_q(r->it), ld_integ_v(r->it), x, qq, om, xd), LD_OK);
}

/* ---------------------------------------------------------------- at rest on the plane */

/* A rod of 8 segments (kind 0) or a beam of 8 linear elements (1) lying on the plane. */
static void lying(ld_model *m, int kind) {
    char text[2048], body[1024];
    const char *col = ",\n     collide: {radius: 0.01, restitution: 0, friction: 0.5}";
    if (kind == 0)
        snprintf(
            body, sizeof body,
            "rods:\n  - {name: s, segments: 8, from: [0, 0, %.17g], to: [1, 0, %.17g],\n"
            "     stiffness: [10, 10, 10, 1e5, 1e5, 1e5], damping: [0.1, 0.1, 0.1, 10, 10, 10],\n"
            "     rho_a: 1, rho_i: [1e-4, 1e-4, 2e-4]%s}\n",
            RHO, RHO, col);
    else
        snprintf(body, sizeof body,
                 "beams:\n  - {name: s, order: 1, elements: 8, from: [0, 0, %.17g],"
                 " to: [1, 0, %.17g],\n"
                 "     section: {EA: 1e5, GA2: 1e5, GA3: 1e5, GJ: 10, EI2: 10, EI3: 10},\n"
                 "     rho_a: 1, rho_j: [2e-4, 1e-4, 1e-4]%s}\n",
                 RHO, RHO, col);
    snprintf(text, sizeof text,
             "name: lying\ngravity: [0, 0, -9.81]\n%s"
             "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n",
             body);
    parse(text, m);
}

/* steps of 1 ms: every step the contact forces sum to the weight, no node below the
 * radius (the capsules' gap at the plane), and at the end no drift. */
static void rest(int kind, ld_formulation f, int steps) {
    ld_model m;
    lying(&m, kind);
    run r;
    start(&r, &m, f, ld_integ_method_find("moreau"));
    double weight = 0.0, werr = 0.0, over = 0.0, drift = 0.0, vmax = 0.0, x[3], xd[3];
    for (int b = 0; b < m.nbodies; ++b) weight += m.bodies[b].mass * G;
    for (int i = 0; i < steps; ++i) {
        assert_int_equal(ld_integ_step(r.it, 1e-3), LD_OK);
        double fz = 0.0, fc[3], tc[3];
        for (int b = 0; b < m.nbodies; ++b) {
            assert_int_equal(ld_integ_contact_force(r.it, b, fc, tc), LD_OK);
            fz += fc[2];
            body_at(&r, b, x, xd);
            over = fmax(over, RHO - x[2]);
            drift = fmax(drift, fabs(x[2] - RHO));
            vmax = fmax(vmax, ld_v3_norm(xd));
        }
        werr = fmax(werr, fabs(fz - weight) / weight);
    }
    print_message("%s at rest (form %d), %d steps: weight %.4f N carried to %.1e, overlap at "
                  "step ends %.1e m, drift %.1e m, speed %.1e m/s\n",
                  kind ? "beam" : "rod", (int)f, steps, weight, werr, over, drift, vmax);
    assert_true(werr < 1e-9);
    assert_true(over <= 1e-9);
    assert_true(drift < 1e-9);
    assert_true(vmax < 1e-9);
    finish(&r);
    ld_model_free(&m);
}

static void test_rest(void **state) {
    (void)state;
    rest(0, FORMS[0], 10000), rest(1, FORMS[0], 10000); /* no drift over 10 s */
    for (int f = 1; f < NFORMS; ++f) rest(0, FORMS[f], 1000), rest(1, FORMS[f], 1000);
}

/* ---------------------------------------------------------------- free flight */

/* A cantilever of 2 quadratic elements released straight under gravity (no contact), undamped;
 * its modes resolved by the steps below (h ω < 1). */
static const char *CANTILEVER =
    "name: cantilever\ngravity: [0, 0, -9.81]\n"
    "beams:\n  - {name: b, order: 2, elements: 2, from: [0, 0, 0], to: [1, 0, 0],\n"
    "     normal: [0, 1, 0], section: {EA: 1e3, GA2: 1e3, GA3: 1e3, GJ: 4, EI2: 5, EI3: 5},\n"
    "     rho_a: 0.5, rho_j: [2e-3, 1e-3, 1e-3], clamp: start}\n";

/* The tip's position after t at step h (formulation f) and the largest energy change. */
static void tip_at(ld_formulation f, double h, double t, double tip[3], double *de) {
    ld_model m;
    parse(CANTILEVER, &m);
    run r;
    start(&r, &m, f, ld_integ_method_find("moreau"));
    double e0 = energy(&r), xd[3];
    *de = 0.0;
    int n = (int)lround(t / h);
    for (int i = 0; i < n; ++i) {
        assert_int_equal(ld_integ_step(r.it, h), LD_OK);
        *de = fmax(*de, fabs(energy(&r) - e0));
    }
    body_at(&r, m.nbodies - 1, tip, xd);
    finish(&r);
    ld_model_free(&m);
}

static double dist3(const double a[3], const double b[3]) {
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return ld_v3_norm(d);
}

static void test_free_flight(void **state) {
    (void)state;
    const double t = 0.2, h0 = 2.5e-4;
    for (int fi = 0; fi < NFORMS; ++fi) {
        double ref[3], x1[3], x2[3], x3[3], de[4];
        tip_at(FORMS[fi], h0 / 16, t, ref, &de[0]);
        tip_at(FORMS[fi], h0, t, x1, &de[1]);
        tip_at(FORMS[fi], h0 / 2, t, x2, &de[2]);
        tip_at(FORMS[fi], h0 / 4, t, x3, &de[3]);
        double e1 = dist3(x1, ref), e2 = dist3(x2, ref), e3 = dist3(x3, ref);
        double p1 = log2(e1 / e2), p2 = log2(e2 / e3);
        print_message("cantilever (form %d): tip errors %.2e %.2e %.2e at h = %g, /2, /4: orders "
                      "%.2f %.2f; energy change %.1e %.1e %.1e J (tip z %.4f m)\n",
                      (int)FORMS[fi], e1, e2, e3, h0, p1, p2, de[1], de[2], de[3], ref[2]);
        assert_true(p1 > 1.8 && p2 > 1.8);
        assert_true(de[2] < 0.3 * de[1] && de[3] < 0.3 * de[2]); /* second order too */
    }
}

/* ---------------------------------------------------------------- the beam-drop */

/* The distance from c to the segment a–b. */
static double seg_dist(const double a[3], const double b[3], const double c[3]) {
    double d[3], y[3];
    for (int i = 0; i < 3; ++i) d[i] = b[i] - a[i], y[i] = c[i] - a[i];
    double s = ld_v3_dot(y, d) / ld_v3_dot(d, d), p[3];
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    for (int i = 0; i < 3; ++i) p[i] = a[i] + s * d[i];
    return dist3(p, c);
}

static void drop_model(ld_model *m, int hard) {
    ld_model_error err;
    if (ld_model_load(LD_SOURCE_DIR "/models/beam-drop.yaml", m, &err)) fail_msg("%s", err.msg);
    if (hard) m->contact.kind = LD_CONTACT_HARD;
}

/* The compliant law's run (genalpha, h = 10⁻⁴ s, 1 s): z of nodes 0, 8 and 16 every ms. */
static const int NODE[3] = {0, 8, 16};

static void compliant(double *zc) {
    ld_model m;
    drop_model(&m, 0);
    run r;
    start(&r, &m, LD_FORM_SO3XR3, LD_INTEG_GENALPHA);
    double x[3], xd[3];
    for (int i = 0; i < 1000; ++i) {
        for (int j = 0; j < 10; ++j) assert_int_equal(ld_integ_advance(r.it, 1e-4), LD_OK);
        for (int k = 0; k < 3; ++k) body_at(&r, NODE[k], x, xd), zc[3 * i + k] = x[2];
    }
    finish(&r);
    ld_model_free(&m);
}

/* The hard beam-drop with moreau in formulation f at step h to t1: the first contact at the
 * free fall's 0.197 s, no capsule into the ball or the plane at any step's end, the energy
 * never above its lowest so far by more than rise_tol of the start; against the compliant run
 * zc (NULL: none) the z of the ends and the middle. */
static void drop(ld_formulation f, double h, double t1, double rise_tol, const double *zc) {
    const double c[3] = {0.05, 0, 0.1}, rs = 0.1, rb = 0.01;
    ld_model m;
    drop_model(&m, 1);
    run r;
    start(&r, &m, f, ld_integ_method_find("moreau"));
    double e0 = energy(&r), lo = e0, rise = 0.0, pen = 0.0, zlow = INFINITY, first = -1.0;
    double diff = 0.0, diff_early = 0.0, e = e0, x[3], xd[3], y[3];
    int n = (int)lround(t1 / h), every = (int)lround(1e-3 / h);
    for (int i = 0; i < n; ++i) {
        assert_int_equal(ld_integ_step(r.it, h), LD_OK);
        e = energy(&r);
        rise = fmax(rise, e - lo), lo = fmin(lo, e);
        double fsum = 0.0, fc[3], tc[3];
        for (int b = 0; b < m.nbodies; ++b) {
            assert_int_equal(ld_integ_contact_force(r.it, b, fc, tc), LD_OK);
            fsum += ld_v3_norm(fc);
            body_at(&r, b, x, xd);
            zlow = fmin(zlow, x[2] - rb);
            if (b > 0) pen = fmax(pen, rs + rb - seg_dist(y, x, c));
            memcpy(y, x, sizeof y);
        }
        if (first < 0.0 && fsum > 0.0) first = (i + 1) * h;
        if (!zc || (i + 1) % every) continue;
        for (int k = 0; k < 3; ++k) {
            body_at(&r, NODE[k], x, xd);
            double d = fabs(x[2] - zc[3 * ((i + 1) / every - 1) + k]);
            diff = fmax(diff, d);
            if ((i + 1) * h <= 0.3 + 1e-12) diff_early = fmax(diff_early, d);
        }
    }
    print_message("beam-drop, moreau (form %d, h = %g), %g s: first contact at t = %.4f s, energy "
                  "%.4f -> %.4f J, largest rise %.1e J (%.1e of the start), deepest overlap with "
                  "the ball %.1e m, lowest capsule %.1e m\n",
                  (int)f, h, t1, first, e0, e, rise, rise / e0, pen, zlow);
    if (zc)
        print_message("  against the compliant run: z of the ends and middle within %.2e m to "
                      "0.3 s, %.2e m to 1 s\n",
                      diff_early, diff);
    assert_true(first > 0.1965 && first < 0.1985);
    assert_true(rise <= rise_tol * e0);
    assert_true(pen <= 1e-9);
    assert_true(zlow >= -1e-9);
    if (t1 >= 1.0) assert_true(e < 0.9 * e0);
    if (zc) assert_true(diff_early < 0.05);
    finish(&r);
    ld_model_free(&m);
}

static void test_drop(void **state) {
    (void)state;
    double *zc = calloc(3000, sizeof *zc);
    assert_non_null(zc);
    compliant(zc);
    drop(LD_FORM_SO3XR3, 1e-4, 1.0, 1e-3, zc);
    for (int fi = 1; fi < NFORMS; ++fi) drop(FORMS[fi], 1e-4, 0.3, 1e-3, NULL);
    free(zc);
}

/* ---------------------------------------------------------------- a rod on a joint */

/* A Kirchhoff rod of 6 segments hanging from a hub turning about a fixed axis (revolute to the
 * ground), through a spherical joint at its first node; released horizontal, it swings and bends.
 */
static const char *HANGING =
    "name: hanging\ngravity: [0, 0, -9.81]\n"
    "bodies:\n  - {name: hub, mass: 1, inertia: [0.01, 0.01, 0.01], position: [0, 0, 1]}\n"
    "rods:\n  - {name: r, segments: 6, from: [0.1, 0, 1], to: [0.7, 0, 1],\n"
    "     stiffness: [2, 2, 2, 1e4, 1e4, 1e4], rho_a: 1, rho_i: [1e-4, 1e-4, 2e-4],\n"
    "     kirchhoff: true}\n"
    "joints:\n  - {name: axle, type: revolute, body1: ground, body2: hub, at: [0, 0, 1], axis: "
    "[0, 0, 1]}\n"
    "  - {name: ball, type: spherical, body1: hub, body2: 'r[0]', at: [0.1, 0, 1]}\n";

/* The hanging rod's tip (node 6) after 0.3 s at step h in formulation f. */
static void hanging_tip(ld_formulation f, double h, double tip[3]) {
    ld_model m;
    parse(HANGING, &m);
    run r;
    start(&r, &m, f, ld_integ_method_find("moreau"));
    int n = (int)lround(0.3 / h);
    for (int i = 0; i < n; ++i) assert_int_equal(ld_integ_step(r.it, h), LD_OK);
    double xd[3];
    body_at(&r, m.nbodies - 1, tip, xd);
    finish(&r);
    ld_model_free(&m);
}

/* Order 2 on the joints too: their rows hold B(q_M) v_{k+1} = 0 in the step's solve. */
static void test_joint_order(void **state) {
    (void)state;
    const ld_formulation fs[2] = {LD_FORM_SO3XR3, LD_FORM_S3XR3_SPATIAL};
    for (int fi = 0; fi < 2; ++fi) {
        double ref[3], x[3][3], e[3];
        hanging_tip(fs[fi], 6.25e-6, ref);
        for (int k = 0; k < 3; ++k)
            hanging_tip(fs[fi], 2e-4 / (1 << k), x[k]), e[k] = dist3(x[k], ref);
        double p1 = log2(e[0] / e[1]), p2 = log2(e[1] / e[2]);
        print_message("rod on a joint (form %d): tip errors %.2e %.2e %.2e at h = 2e-4, /2, /4: "
                      "orders %.2f %.2f\n",
                      (int)fs[fi], e[0], e[1], e[2], p1, p2);
        assert_true(p1 > 1.8 && p2 > 1.8);
    }
}

static void test_joint(void **state) {
    (void)state;
    for (int fi = 0; fi < NFORMS; ++fi) {
        ld_model m;
        parse(HANGING, &m);
        run r;
        start(&r, &m, FORMS[fi], ld_integ_method_find("moreau"));
        double e0 = energy(&r), lo = e0, rise = 0.0, phi = 0.0, *w = calloc((size_t)r.s.m, 8);
        assert_non_null(w);
        for (int i = 0; i < 5000; ++i) {
            assert_int_equal(ld_integ_step(r.it, 2e-4), LD_OK);
            double e = energy(&r);
            rise = fmax(rise, e - lo), lo = fmin(lo, e);
            phi = fmax(phi, ld_sys_phi_max(&r.s, 0.0, ld_integ_q(r.it), w, NULL));
        }
        double x[3], xd[3];
        body_at(&r, m.nbodies - 1, x, xd);
        print_message("rod on a joint (form %d), 1 s: joints and Kirchhoff rows closed to %.1e, "
                      "energy %.5f -> %.5f J (largest rise %.1e J), tip z %.4f m\n",
                      (int)FORMS[fi], phi, e0, lo, rise, x[2]);
        assert_true(phi < 1e-9);
        assert_true(rise < 1e-6 * fabs(e0) + 1e-6);
        assert_true(x[2] < 0.9); /* it swung down */
        free(w);
        finish(&r);
        ld_model_free(&m);
    }
}

/* What this path does not take is refused with the reason: spans against spans. */
static void test_refusals(void **state) {
    (void)state;
    ld_model m;
    parse("name: r\ngravity: [0, 0, -9.81]\n"
          "rods:\n  - {name: rod, segments: 2, from: [0, 0, 0.1], to: [1, 0, 0.1],\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1],\n"
          "     collide: {radius: 0.01, spans: true}}\n"
          "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n",
          &m);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)ld_integ_method_find("moreau");
    const char *why = ld_integ_options_check(&s, &o);
    assert_non_null(why);
    assert_non_null(strstr(why, "spans"));
    free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rest),        cmocka_unit_test(test_free_flight),
        cmocka_unit_test(test_drop),        cmocka_unit_test(test_joint),
        cmocka_unit_test(test_joint_order), cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

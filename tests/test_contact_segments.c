/*
 * Rods and beams colliding as chains of capsules under the compliant law (docs/contact.md,
 * "Rods and beams"; src/elements/contact_segment.c, el_contact_penalty.c): the reader's
 * `collide`, a rod and beams at rest on the plane (the summed normal force is the weight, each
 * contact presses (f/k)^(1/p) in), the contact rows on the group (the rate of the contacts'
 * energy along a curve of the group is the power of their forces), the tangents against
 * differences, a beam dropped onto a sphere (its energy never rises), segments against segments
 * (`spans`: the force of a crossing, which pairs collide, a rod dropped across another), and
 * who refuses what.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../src/elements/contact.h"
#include "liedyn/liedyn.h"
#include "mat3.h"
#include "support.h"

static const double G = 9.81, K = 1e5, P = 1.5, RHO = 0.01;

static void parse(const char *text, ld_model *m) {
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "seg.yaml", m, &err))
        fail_msg("line %d %s: %s", err.line, err.key, err.msg);
}

/* ---------------------------------------------------------------- the reader */

static void expect_error(const char *collide, const char *key, const char *words) {
    char text[1024];
    snprintf(text, sizeof text,
             "name: r\nrods:\n  - name: rod\n    segments: 2\n    from: [0, 0, 0]\n"
             "    to: [1, 0, 0]\n    stiffness: [1, 1, 1, 1, 1, 1]\n    rho_a: 1\n"
             "    rho_i: [1, 1, 1]\n    collide: %s\n",
             collide);
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "r.yaml", &m, &err) == LD_OK) {
        ld_model_free(&m);
        fail_msg("accepted collide: %s", collide);
    }
    if (err.line != 10 || !strstr(err.key, key) || !strstr(err.msg, words))
        fail_msg("collide: %s: line %d, key %s, message %s", collide, err.line, err.key, err.msg);
}

static void test_reader(void **state) {
    (void)state;
    ld_model m;
    parse("name: b\nbeams:\n  - {name: b, order: 2, from: [0, 0, 0], to: [1, 0, 0],\n"
          "     section: {EA: 1, GA2: 1, GA3: 1, GJ: 1, EI2: 1, EI3: 1}, rho_a: 1,\n"
          "     rho_j: [1, 1, 1], collide: {radius: 0.02, restitution: 0.3, friction: 0.4}}\n"
          "rods:\n  - {name: r, segments: 2, from: [0, 0, 0], to: [1, 0, 0],\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1]}\n",
          &m);
    const ld_collide *c = &m.beams[0].collide;
    assert_true(c->on && c->radius == 0.02 && c->restitution == 0.3 && c->friction == 0.4);
    assert_false(m.rods[0].collide.on);
    assert_true(ld_model_has_contact(&m));
    ld_model_free(&m);
    expect_error("{restitution: 0.5}", "rods[0].collide.radius", "");
    expect_error("{radius: -1}", "rods[0].collide.radius", "> 0");
    expect_error("{radius: 0.01, restitution: 2}", "rods[0].collide.restitution", "[0, 1]");
    expect_error("{radius: 0.01, friction: -1}", "rods[0].collide.friction", ">= 0");
    expect_error("{radius: 0.01, size: 1}", "rods[0].collide", "size");
    expect_error("true", "rods[0].collide", "mapping");
}

/* ---------------------------------------------------------------- at rest on the plane */

/* A model with one rod (kind 0) or beam of order `order` (kind 1) lying along x at height z,
 * colliding (collide = 1) or not, on the plane, with the compliant law. */
static void lying(ld_model *m, int kind, int order, int collide, double z) {
    char text[2048], body[1024], col[128] = "";
    if (collide)
        snprintf(col, sizeof col, ",\n     collide: {radius: %.17g, restitution: 0, friction: 0.5}",
                 RHO);
    if (kind == 0)
        snprintf(
            body, sizeof body,
            "rods:\n  - {name: s, segments: 8, from: [0, 0, %.17g], to: [1, 0, %.17g],\n"
            "     stiffness: [10, 10, 10, 1e5, 1e5, 1e5], damping: [0.1, 0.1, 0.1, 10, 10, 10],\n"
            "     rho_a: 1, rho_i: [1e-4, 1e-4, 2e-4]%s}\n",
            z, z, col);
    else
        snprintf(body, sizeof body,
                 "beams:\n  - {name: s, order: %d, elements: %d, from: [0, 0, %.17g],"
                 " to: [1, 0, %.17g],\n"
                 "     section: {EA: 1e5, GA2: 1e5, GA3: 1e5, GJ: 10, EI2: 10, EI3: 10},\n"
                 "     damping: 1e-3, rho_a: 1, rho_j: [2e-4, 1e-4, 1e-4]%s}\n",
                 order, order == 1 ? 8 : 3, z, z, col);
    snprintf(text, sizeof text,
             "name: lying\ngravity: [0, 0, -9.81]\n%s"
             "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n"
             "contact_law: {type: hunt_crossley, stiffness: %.17g, exponent: %.17g}\n",
             body, K, P);
    parse(text, m);
}

/* Run the model of (kind, order) for t1 s with genalpha; then per node its overlap RHO − z and
 * its contact force (the difference of the system's z forces with and without `collide`), the
 * number of contacts at it (2 inside, 1 at the ends). Checks the sum against the weight and
 * each contact against the static law; exact: each node's load also checked as m_k g / n_k. */
static void at_rest(int kind, int order, int exact) {
    ld_model m, m0;
    lying(&m, kind, order, 1, RHO);
    lying(&m0, kind, order, 0, RHO);
    ld_system s, s0;
    double *q0, *v0, *q1, *v1;
    char msg[256];
    if (ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg))
        fail_msg("%s", msg);
    if (ld_model_compile_msg(&m0, LD_FORM_SO3XR3, &s0, &q1, &v1, msg, sizeof msg))
        fail_msg("%s", msg);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_GENALPHA;
    int st = 0;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    for (int i = 0; i < 3000; ++i) assert_int_equal(ld_integ_step(it, 1e-3), LD_OK);
    const double *q = ld_integ_q(it), *v = ld_integ_v(it);
    size_t k = (size_t)s.k;
    double *g = calloc(2 * k, sizeof *g), *g0 = g + k;
    assert_non_null(g);
    assert_int_equal(s.ops.force(&s, 0.0, q, v, g), LD_OK);
    assert_int_equal(s0.ops.force(&s0, 0.0, q, v, g0), LD_OK);
    double sum = 0.0, weight = 0.0, worst_dl = 0.0, worst_load = 0.0, vmax = 0.0;
    for (int b = 0; b < m.nbodies; ++b) {
        double x[3], qq[4], om[3], xd[3];
        assert_int_equal(ld_model_body_state(&s, b, q, v, x, qq, om, xd), LD_OK);
        vmax = fmax(vmax, fmax(fabs(xd[2]), ld_v3_norm(om)));
        double f = -(g[6 * b + 5] - g0[6 * b + 5]), dl = RHO - x[2];
        int nc = b == 0 || b == m.nbodies - 1 ? 1 : 2;
        sum += f;
        weight += m.bodies[b].mass * G;
        worst_dl = fmax(worst_dl, fabs(dl - pow(f / (nc * K), 1.0 / P)) / dl);
        worst_load = fmax(worst_load, fabs(f - m.bodies[b].mass * G) / f);
    }
    print_message("%s order %d: normal force %.15g N, weight %.15g N (rel. %.1e); worst_dl overlap "
                  "against (f/k)^(1/p) %.1e, node load against m g %.1e; |v| %.1e\n",
                  kind ? "beam" : "rod", order, sum, weight, fabs(sum - weight) / weight, worst_dl,
                  worst_load, vmax);
    assert_true(fabs(sum - weight) < 1e-6 * weight);
    assert_true(worst_dl < 1e-9);
    if (exact) assert_true(worst_load < 1e-6);
    assert_true(vmax < 1e-6);
    free(g);
    ld_integ_free(it);
    free(q0), free(v0), free(q1), free(v1);
    ld_model_system_free(&s);
    ld_model_system_free(&s0);
    ld_model_free(&m);
    ld_model_free(&m0);
}

static void test_rest(void **state) {
    (void)state;
    at_rest(0, 1, 1); /* a rod: lumped masses, half at the ends */
    at_rest(1, 1, 1); /* linear beam elements: the same lumping */
    at_rest(1, 3, 0); /* cubic elements: GLL weights, the beam bends a little between nodes */
}

/* ---------------------------------------------------------------- the rows on the group */

/* A straight rod (and a beam clamped at its start) rising from the plane through a ground
 * sphere, a ground box, a body's sphere and a body's capsule, every node moving and turning its
 * own way; e = 1 and μ = 0: the contacts' force is then the gradient of their energy, so along
 * q(t) = q ∘ exp(t v) the rate of that energy equals the power of their forces, −g_c · v,
 * exactly when every contact's rows give its normal velocity n·(u_a − u_b) (the weights of the
 * two nodes and the moments of the offsets included). */
static const char *const ARC =
    "name: arc\n"
    "bodies:\n"
    "  - {name: ball, mass: 0.3, inertia: [1e-3, 2e-3, 1.5e-3], position: [0.33372457, 0.18821053, "
    "0.19445405],\n"
    "     orientation: [0.9, 0.2, -0.3, 0.1], velocity: [0.2, -0.1, 0.3], "
    "angular_velocity: [1, -2, 0.5],\n"
    "     shape: [{type: sphere, radius: 0.1, center: [0.01, 0, 0.02], collide: true,"
    " restitution: 1},\n"
    "             {type: capsule, radius: 0.05, length: 0.3, center: [-0.18533212, -0.05707048, "
    "0.08016707],"
    " axis: [1, 0, 0], collide: true, restitution: 1}]}\n"
    "rods:\n"
    "  - {name: rod, segments: 6, from: [0, 0, 0.0095], to: [1.2, 0.6, 0.31],"
    " normal: [0, 0, 1],\n"
    "     stiffness: [10, 10, 10, 1e5, 1e5, 1e5], rho_a: 1, rho_i: [1e-4, 1e-4, 2e-4],\n"
    "     velocity: [0.1, -0.3, -0.2], angular_velocity: [0.4, 0.8, -0.6],\n"
    "     collide: {radius: 0.02, restitution: 1, friction: 0, spans: true}}\n"
    "  - {name: cross, segments: 2, from: [0.72230101, 0.64107329, 0.19389724],\n"
    "     to: [0.9405189, 0.20463751, 0.30300618], stiffness: [10, 10, 10, 1e5, 1e5, 1e5],\n"
    "     rho_a: 1, rho_i: [1e-4, 1e-4, 2e-4], velocity: [-0.2, 0.1, 0.3],\n"
    "     angular_velocity: [-0.5, 0.2, 0.7],\n"
    "     collide: {radius: 0.02, restitution: 1, friction: 0, spans: true}}\n"
    "beams:\n"
    "  - {name: beam, order: 3, elements: 2, from: [1.5, -0.3, 0.0099], to: [2.4, 0.1, 0.25],"
    " clamp: start,\n"
    "     section: {EA: 1e5, GA2: 1e5, GA3: 1e5, GJ: 10, EI2: 10, EI3: 10}, rho_a: 1,"
    " rho_j: [2e-4, 1e-4, 1e-4],\n"
    "     velocity: [0, 0.2, -0.1], angular_velocity: [0.3, -0.5, 0.9],\n"
    "     collide: {radius: 0.02, restitution: 1}}\n"
    "ground_shapes:\n"
    "  - {type: sphere, radius: 0.1, center: [0.62, 0.2, 0.22], restitution: 1}\n"
    "  - {type: box, size: [0.4, 0.4, 0.2], center: [2.0, -0.12, 0.05], restitution: 1}\n"
    "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n"
    "contact_law: {type: hunt_crossley, stiffness: 1e5, exponent: 1.5}\n";

/* The same model without any contact: "collide: true" made false, the rods' and beams'
 * ", collide: {...}" left out. */
static void no_contact(const char *text, ld_model *m) {
    char buf[8192];
    size_t n = 0;
    for (const char *p = text; *p && n + 16 < sizeof buf;) {
        if (strncmp(p, "collide: true", 13) == 0) {
            memcpy(buf + n, "collide: false", 14), n += 14, p += 13;
        } else if (strncmp(p, ",\n     collide: {", 17) == 0) {
            p = strchr(p, '}') + 1;
        } else {
            buf[n++] = *p++;
        }
    }
    buf[n] = 0;
    parse(buf, m);
}

static void test_power(void **state) {
    (void)state;
    ld_model m, m0;
    parse(ARC, &m);
    no_contact(ARC, &m0);
    const ld_formulation forms[] = {LD_FORM_SO3XR3, LD_FORM_SE3, LD_FORM_S3XR3, LD_FORM_S3SDR3,
                                    LD_FORM_SO3XR3_SPATIAL};
    for (size_t f = 0; f < sizeof forms / sizeof *forms; ++f) {
        ld_system s, s0;
        double *q0, *v0, *q1, *v1;
        char msg[256];
        if (ld_model_compile_msg(&m, forms[f], &s, &q0, &v0, msg, sizeof msg)) fail_msg("%s", msg);
        if (ld_model_compile_msg(&m0, forms[f], &s0, &q1, &v1, msg, sizeof msg))
            fail_msg("%s", msg);
        size_t k = (size_t)s.k, nq = (size_t)s.nq;
        double *g = calloc(2 * k + 2 * k + nq, sizeof *g), *g0 = g + k, *xi = g0 + k;
        double *zero = xi + k, *qt = zero + k;
        assert_non_null(g);
        rng r = rng_seed(7); /* every node turning and moving its own way */
        for (size_t i = 0; i < k; ++i) v0[i] += rng_range(&r, -1.0, 1.0);
        assert_int_equal(s.ops.force(&s, 0.0, q0, v0, g), LD_OK);
        assert_int_equal(s0.ops.force(&s0, 0.0, q0, v0, g0), LD_OK);
        double power = 0.0, ball = 0.0;
        for (size_t i = 0; i < k; ++i) power -= (g[i] - g0[i]) * v0[i];
        for (size_t i = 0; i < 6; ++i) ball = fmax(ball, fabs(g[i] - g0[i]));
        double e[2];
        const double h = 1e-6;
        for (int sg = 0; sg < 2; ++sg) {
            for (size_t i = 0; i < k; ++i) xi[i] = (sg ? h : -h) * v0[i];
            ld_sys_retract(&s, qt, q0, xi);
            double ew, e0;
            assert_int_equal(s.ops.energy(&s, 0.0, qt, zero, &ew), LD_OK);
            assert_int_equal(s0.ops.energy(&s0, 0.0, qt, zero, &e0), LD_OK);
            e[sg] = ew - e0;
        }
        double rate = (e[1] - e[0]) / (2.0 * h), scale = 0.0;
        for (size_t i = 0; i < k; ++i) scale += fabs((g[i] - g0[i]) * v0[i]);
        print_message("%-15s dV/dt %.12e, -g.v %.12e (of the terms %.1e: %.1e)\n",
                      ld_formulation_name(forms[f]), rate, -power, scale,
                      fabs(rate + power) / scale);
        assert_true(scale > 1.0); /* the contacts push */
        assert_true(fabs(rate + power) < 1e-6 * scale);
        free(g);
        free(q0), free(v0), free(q1), free(v1);
        ld_model_system_free(&s);
        ld_model_system_free(&s0);
    }
    ld_model_free(&m);
    ld_model_free(&m0);
}

/* ---------------------------------------------------------------- tangents */

static double rel_diff(const double *A, const double *B, size_t n) {
    double d = 0.0, s = 1.0;
    for (size_t i = 0; i < n; ++i) {
        d = fmax(d, fabs(A[i] - B[i]));
        s = fmax(s, fabs(B[i]));
    }
    return d / s;
}

/* The arc with restitution and friction: ∂g/∂v exactly, ∂g/∂q with the contacts' frames held
 * (the law's geometric terms left out, as for shapes). */
static void test_tangents(void **state) {
    (void)state;
    char text[8192];
    const char *p = strstr(ARC, "restitution: 1, friction: 0,"); /* the rod's: damped, sliding */
    assert_non_null(p);
    snprintf(text, sizeof text, "%.*srestitution: 0.5, friction: 3,%s", (int)(p - ARC), ARC,
             p + strlen("restitution: 1, friction: 0,"));
    ld_model m;
    parse(text, &m);
    const ld_formulation forms[] = {LD_FORM_SO3XR3, LD_FORM_SE3, LD_FORM_S3SDR3,
                                    LD_FORM_SO3XR3_SPATIAL};
    for (size_t f = 0; f < sizeof forms / sizeof *forms; ++f) {
        ld_system s;
        double *q0, *v0;
        char msg[256];
        if (ld_model_compile_msg(&m, forms[f], &s, &q0, &v0, msg, sizeof msg)) fail_msg("%s", msg);
        size_t k = (size_t)s.k;
        double *KA = calloc(2 * k * k + k, sizeof *KA), *KF = KA + k * k, *a = KF + k * k;
        assert_non_null(KA);
        rng r = rng_seed(11);
        for (size_t i = 0; i < k; ++i) v0[i] += rng_range(&r, -1.0, 1.0);
        assert_int_equal(s.ops.g_v(&s, 0.0, q0, v0, KA), LD_OK);
        assert_int_equal(ld_sys_g_v_fd(&s, 0.0, q0, v0, KF), LD_OK);
        double ev = rel_diff(KA, KF, k * k);
        assert_int_equal(s.ops.stiffness(&s, 0.0, q0, v0, a, NULL, KA), LD_OK);
        assert_int_equal(ld_sys_stiffness_fd(&s, 0.0, q0, v0, a, NULL, KF), LD_OK);
        double eq = rel_diff(KA, KF, k * k);
        print_message("%-15s dg/dv %.1e  dg/dq %.1e (of the largest entry)\n",
                      ld_formulation_name(forms[f]), ev, eq);
        assert_true(ev < 1e-6);
        assert_true(eq < 1e-2);
        free(KA);
        free(q0), free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(&m);
}

/* ---------------------------------------------------------------- a beam dropped on a sphere */

/* models/beam-drop.yaml: its energy (kinetic, gravity, elastic, the contacts') never rises above
 * its lowest value so far by more than the integration error, the beam never passes through
 * the sphere or the plane, and it loses energy at the impacts (e = 0.5). */
static void test_drop(void **state) {
    (void)state;
    ld_model m;
    ld_model_error err;
    if (ld_model_load(LD_SOURCE_DIR "/models/beam-drop.yaml", &m, &err)) fail_msg("%s", err.msg);
    ld_system s;
    double *q0, *v0, x[3], qq[4], om[3], xd[3];
    char msg[256];
    if (ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg))
        fail_msg("%s", msg);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_GENALPHA;
    int st = 0;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    const double h = 1e-4, c[3] = {0.05, 0, 0.1}, rs = 0.1, rb = 0.01;
    double e0 = 0.0, e, lo, rise = 0.0, pen = 0.0, zlow = INFINITY, zero[1024] = {0};
    assert_true((size_t)s.k <= sizeof zero / sizeof *zero);
    assert_int_equal(s.ops.energy(&s, 0.0, q0, v0, &e0), LD_OK);
    lo = e0;
    for (int i = 0; i < 10000; ++i) {
        assert_int_equal(ld_integ_advance(it, h), LD_OK);
        const double *q = ld_integ_q(it), *v = ld_integ_v(it);
        assert_int_equal(s.ops.energy(&s, 0.0, q, v, &e), LD_OK);
        rise = fmax(rise, e - lo);
        lo = fmin(lo, e);
        for (int b = 0; b < m.nbodies; ++b) {
            assert_int_equal(ld_model_body_state(&s, b, q, v, x, qq, om, xd), LD_OK);
            double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
            pen = fmax(pen, rs + rb - ld_v3_norm(d));
            zlow = fmin(zlow, x[2]);
        }
    }
    print_message("beam-drop 1 s: energy %.6f J -> %.6f J, largest rise above the lowest so far "
                  "%.2e J (%.1e of the start), deepest overlap with the sphere %.2e m, lowest "
                  "node %.4f m\n",
                  e0, e, rise, rise / e0, pen, zlow);
    assert_true(rise < 1e-5 * e0);
    assert_true(e < 0.8 * e0);
    assert_true(pen < 1e-2); /* a few mm at 2.4 m/s against k = 1e5 */
    assert_true(zlow > 0.0); /* no node through the plane */
    ld_integ_free(it);
    free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* ---------------------------------------------------------------- segments against segments */

/* Two rods crossing at right angles without gravity, at rest: rod a along x (4 segments of
 * 0.25), rod b along y above it (5 segments of 0.2) overlapping it by d at x = 0.6, y = 0 —
 * a's segment 2 at s = 0.4, b's segment 2 at t = 0.75. The contact force is k d^p along z,
 * on a's nodes 2 and 3 as −(1 − s) f, −s f, on b's nodes 2 and 3 as (1 − t) f, t f, and no
 * moments (the arms lie along the force). */
static void crossing(ld_model *m, int spans, double d) {
    char text[2048];
    snprintf(text, sizeof text,
             "name: cross\n"
             "rods:\n"
             "  - {name: a, segments: 4, from: [0, 0, 0], to: [1, 0, 0],\n"
             "     stiffness: [10, 10, 10, 1e5, 1e5, 1e5], rho_a: 1, rho_i: [1e-4, 1e-4, 2e-4],\n"
             "     collide: {radius: %.17g, spans: %s}}\n"
             "  - {name: b, segments: 5, from: [0.6, -0.55, %.17g], to: [0.6, 0.45, %.17g],\n"
             "     stiffness: [10, 10, 10, 1e5, 1e5, 1e5], rho_a: 1, rho_i: [1e-4, 1e-4, 2e-4],\n"
             "     collide: {radius: %.17g, spans: %s}}\n"
             "contact_law: {type: hunt_crossley, stiffness: %.17g, exponent: %.17g}\n",
             RHO, spans ? "true" : "false", 2 * RHO - d, 2 * RHO - d, RHO, spans ? "true" : "false",
             K, P);
    parse(text, m);
}

static void test_span_force(void **state) {
    (void)state;
    const double d = 1e-3, f = K * pow(d, P), s = 0.4, t = 0.75;
    const ld_formulation forms[] = {LD_FORM_SO3XR3, LD_FORM_SE3, LD_FORM_S3SDR3};
    for (int spans = 0; spans < 2; ++spans)
        for (size_t fi = 0; fi < sizeof forms / sizeof *forms; ++fi) {
            ld_model m;
            crossing(&m, spans, d);
            ld_system sys;
            double *q0, *v0;
            char msg[256];
            if (ld_model_compile_msg(&m, forms[fi], &sys, &q0, &v0, msg, sizeof msg))
                fail_msg("%s", msg);
            size_t k = (size_t)sys.k;
            double *g = calloc(k, sizeof *g);
            assert_non_null(g);
            assert_int_equal(sys.ops.force(&sys, 0.0, q0, v0, g), LD_OK);
            /* nodes: a 0 … 4 (bodies 0 … 4), b 0 … 5 (bodies 5 … 10) */
            double want[11] = {0};
            want[2] = -(1 - s) * f, want[3] = -s * f, want[5 + 2] = (1 - t) * f,
            want[5 + 3] = t * f;
            double off = 0.0, moment = 0.0;
            for (int b = 0; b < m.nbodies; ++b) {
                double F[3], x[3], qq[4], om[3], xd[3];
                assert_int_equal(ld_model_body_state(&sys, b, q0, v0, x, qq, om, xd), LD_OK);
                /* the generalized force: body-frame moment first, then the force (spatial, or
                 * body frame in the semidirect products) */
                ld_quat_rotate(F, qq, g + 6 * b + 3);
                const double *Fs = forms[fi] == LD_FORM_SO3XR3 ? g + 6 * b + 3 : F;
                off = fmax(off, fabs(-Fs[2] - (spans ? want[b] : 0.0)));
                off = fmax(off, fmax(fabs(Fs[0]), fabs(Fs[1])));
                for (int i = 0; i < 3; ++i) moment = fmax(moment, fabs(g[6 * b + i]));
            }
            print_message("spans %d %-8s crossing force %.6e N: worst node force off by %.1e N, "
                          "largest moment %.1e\n",
                          spans, ld_formulation_name(forms[fi]), f, off, moment);
            assert_true(off < 1e-10 * f);
            assert_true(moment < 1e-10 * f);
            free(g);
            free(q0), free(v0);
            ld_model_system_free(&sys);
            ld_model_free(&m);
        }
}

/* Which pairs collide: neighbours never; of one rod, pairs that overlap as written never, the
 * others do; of two rods, every pair (overlapping or not) when both set spans, except the
 * segments whose ends a joint joins. */
static void test_span_pairs(void **state) {
    (void)state;
    ld_model m;
    parse("name: p\nrods:\n"
          "  - {name: thick, segments: 6, from: [0, 0, 0], to: [0.6, 0, 0],\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1],\n"
          "     collide: {radius: 0.06, spans: true}}\n"
          "  - {name: other, segments: 2, from: [0, 0, 0.05], to: [0.2, 0, 0.05],\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1],\n"
          "     collide: {radius: 0.01, spans: true}}\n"
          "  - {name: plain, segments: 2, from: [0, 1, 0], to: [0.2, 1, 0],\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1],\n"
          "     collide: {radius: 0.01}}\n",
          &m);
    assert_int_equal(ld_cseg_count(&m), 10);
    /* thick: segments 0.1 long, radius 0.06: g and g + 2 overlap as written (gap 0.1 < 0.12),
     * g and g + 3 do not (0.2) */
    assert_false(ld_cseg_pair(&m, 0, 0));
    assert_false(ld_cseg_pair(&m, 0, 1)); /* neighbours */
    assert_false(ld_cseg_pair(&m, 0, 2));
    assert_true(ld_cseg_pair(&m, 0, 3));
    assert_true(ld_cseg_pair(&m, 5, 2));
    assert_true(ld_cseg_pair(&m, 0, 6)); /* other rod: overlapping as written, still a pair */
    assert_true(ld_cseg_pair(&m, 7, 4));
    assert_false(ld_cseg_pair(&m, 6, 7)); /* other's neighbours */
    assert_false(ld_cseg_pair(&m, 0, 8)); /* plain does not set spans */
    assert_false(ld_cseg_pair(&m, 8, 9));
    ld_model_free(&m);
    /* two rods joined end to end by a joint: their end segments overlap there by design */
    parse("name: j\nrods:\n"
          "  - {name: r1, segments: 3, from: [0, 0, 0], to: [0.3, 0, 0],\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1],\n"
          "     collide: {radius: 0.01, spans: true}}\n"
          "  - {name: r2, segments: 3, from: [0.3, 0, 0], to: [0.6, 0, 0],\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1],\n"
          "     collide: {radius: 0.01, spans: true}}\n"
          "joints:\n  - {name: j, type: spherical, body1: 'r1[3]', body2: 'r2[0]', frame1: {},"
          " frame2: {}}\n",
          &m);
    assert_false(ld_cseg_pair(&m, 2, 3)); /* the two spans at the joint */
    assert_true(ld_cseg_pair(&m, 1, 3));  /* one further along: it may collide */
    ld_model_free(&m);
}

/* Rod b dropped across rod a lying on the plane (both spans: true, gravity): it lands on a, its
 * energy never rises above its lowest value so far by more than the integration error, the two
 * axes never come closer than 2 ρ less a few mm, and at the end b's nodes beside the crossing
 * rest on a (near 3 ρ up), not on the plane (ρ). */
static void test_span_drop(void **state) {
    (void)state;
    char text[2048];
    snprintf(text, sizeof text,
             "name: drop\ngravity: [0, 0, -9.81]\n"
             "rods:\n"
             "  - {name: a, segments: 8, from: [-0.4, 0, %.17g], to: [0.4, 0, %.17g],\n"
             "     stiffness: [10, 10, 10, 1e5, 1e5, 1e5], damping: [0.1, 0.1, 0.1, 10, 10, 10],\n"
             "     rho_a: 1, rho_i: [1e-4, 1e-4, 2e-4],\n"
             "     collide: {radius: %.17g, restitution: 0.5, friction: 0.5, spans: true}}\n"
             "  - {name: b, segments: 4, from: [0.05, -0.1, 0.1], to: [0.05, 0.1, 0.1],\n"
             "     stiffness: [10, 10, 10, 1e5, 1e5, 1e5], damping: [0.1, 0.1, 0.1, 10, 10, 10],\n"
             "     rho_a: 1, rho_i: [1e-4, 1e-4, 2e-4],\n"
             "     collide: {radius: %.17g, restitution: 0.5, friction: 0.5, spans: true}}\n"
             "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n"
             "contact_law: {type: hunt_crossley, stiffness: %.17g, exponent: %.17g}\n",
             RHO, RHO, RHO, RHO, K, P);
    ld_model m;
    parse(text, &m);
    ld_system s;
    double *q0, *v0;
    char msg[256];
    if (ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg))
        fail_msg("%s", msg);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_GENALPHA;
    int st = 0;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    double e0, e = 0.0, lo, rise = 0.0, closest = INFINITY;
    assert_int_equal(s.ops.energy(&s, 0.0, q0, v0, &e0), LD_OK);
    lo = e0;
    double x[14][3], qq[4], om[3], xd[3]; /* a: bodies 0 … 8, b: 9 … 13 */
    for (int i = 0; i < 8000; ++i) {
        assert_int_equal(ld_integ_advance(it, 1e-4), LD_OK);
        const double *q = ld_integ_q(it), *v = ld_integ_v(it);
        assert_int_equal(s.ops.energy(&s, 0.0, q, v, &e), LD_OK);
        rise = fmax(rise, e - lo);
        lo = fmin(lo, e);
        for (int b = 0; b < 14; ++b)
            assert_int_equal(ld_model_body_state(&s, b, q, v, x[b], qq, om, xd), LD_OK);
        for (int ga = 0; ga < 8; ++ga)
            for (int gb = 9; gb < 13; ++gb) {
                double pa[3], pb[3], d[3];
                ld_contact_segments(x[ga], x[ga + 1], x[gb], x[gb + 1], pa, pb);
                for (int k = 0; k < 3; ++k) d[k] = pa[k] - pb[k];
                closest = fmin(closest, ld_v3_norm(d));
            }
    }
    print_message("rod across a rod, 0.8 s: energy %.6f -> %.6f J, largest rise %.2e J; axes "
                  "at least %.4f m apart (2 rho = %.4f); b's middle node at z = %.4f m\n",
                  e0, e, rise, closest, 2 * RHO, x[11][2]);
    assert_true(rise < 1e-5 * e0);
    assert_true(closest > 2 * RHO - 5e-3);
    assert_true(x[11][2] > 2.5 * RHO); /* on a, not through it onto the plane */
    ld_integ_free(it);
    free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* ---------------------------------------------------------------- refusals */

/* With the hard law a colliding rod is contact that only moreau treats: genalpha says so, and
 * moreau takes it (tests/test_moreau_rods.c). */
static void test_refusals(void **state) {
    (void)state;
    const char *text = "name: r\ngravity: [0, 0, -9.81]\n"
                       "rods:\n  - {name: rod, segments: 2, from: [0, 0, 0.1], to: [1, 0, 0.1],\n"
                       "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1],\n"
                       "     collide: {radius: 0.01}}\n"
                       "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n";
    ld_model m;
    parse(text, &m);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_GENALPHA;
    const char *why = ld_integ_options_check(&s, &o);
    assert_non_null(why);
    assert_non_null(strstr(why, "hunt_crossley"));
    o.method = (ld_integ_method)ld_integ_method_find("moreau");
    assert_null(ld_integ_options_check(&s, &o));
    free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
    /* more segments with spans than the all-to-all pairs allow: refused with the count */
    parse("name: long\nrods:\n  - {name: rope, segments: 300, from: [0, 0, 0.1], to: [3, 0, 0.1],\n"
          "     stiffness: [1, 1, 1, 1, 1, 1], rho_a: 1, rho_i: [1, 1, 1],\n"
          "     collide: {radius: 0.001, spans: true}}\n"
          "contact_law: {type: hunt_crossley, stiffness: 1e5}\n",
          &m);
    char msg[256] = "";
    assert_int_not_equal(ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg),
                         LD_OK);
    print_message("300 segments with spans: %s\n", msg);
    assert_non_null(strstr(msg, "300 segments, at most 256"));
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader),     cmocka_unit_test(test_rest),
        cmocka_unit_test(test_power),      cmocka_unit_test(test_tangents),
        cmocka_unit_test(test_drop),       cmocka_unit_test(test_span_force),
        cmocka_unit_test(test_span_pairs), cmocka_unit_test(test_span_drop),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

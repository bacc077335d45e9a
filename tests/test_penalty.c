/*
 * Compliant contact (contact_law: hunt_crossley; src/elements/el_contact_penalty.c,
 * docs/contact.md): the reader's checks, a ball at rest at the static overlap (m g / k)^(1/p),
 * the bounce against the exact solution of the law in one dimension and its restitution, a box
 * sliding to rest at v²/(2 μ g), the tangents against differences on the group, and which
 * integrators run such a model.
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
#include "support.h"

static const double G = 9.81, K = 1e6, P = 1.5, R_BALL = 0.1;

/* A ball (1 kg, radius 0.1) at height z, falling at vz, restitution e, on the plane. */
static void ball_model(ld_model *m, double z, double vz, double e, double k) {
    char text[1024];
    snprintf(text, sizeof text,
             "name: ball\ngravity: [0, 0, -9.81]\n"
             "bodies:\n  - {name: ball, mass: 1, inertia: [0.004, 0.004, 0.004],"
             " position: [0, 0, %.17g], velocity: [0, 0, %.17g],\n"
             "     shape: {type: sphere, radius: 0.1, collide: true, restitution: %.17g}}\n"
             "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n"
             "contact_law: {type: hunt_crossley, stiffness: %.17g, exponent: 1.5}\n",
             z, vz, e, k);
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "ball.yaml", m, &err)) fail_msg("%s", err.msg);
}

/* ---------------------------------------------------------------- the reader */

/* The model with `law` as its contact_law fails at line 4 naming key. */
static void expect_error(const char *law, const char *key, const char *words) {
    char text[512];
    snprintf(text, sizeof text,
             "name: b\nbodies:\n  - {name: b, mass: 1, inertia: [1, 1, 1]}\ncontact_law: %s\n",
             law);
    ld_model m;
    ld_model_error err;
    int rc = ld_model_parse(text, strlen(text), "b.yaml", &m, &err);
    if (rc == LD_OK) {
        ld_model_free(&m);
        fail_msg("accepted contact_law: %s", law);
    }
    if (err.line != 4 || !strstr(err.key, key) || !strstr(err.msg, words))
        fail_msg("contact_law: %s: line %d, key %s, message %s", law, err.line, err.key, err.msg);
}

static void test_reader(void **state) {
    (void)state;
    ld_model m;
    ball_model(&m, 1.0, 0.0, 0.8, 2e6);
    assert_int_equal(m.contact.kind, LD_CONTACT_HUNT_CROSSLEY);
    assert_true(m.contact.stiffness == 2e6 && m.contact.exponent == 1.5);
    assert_true(m.contact.slip_velocity == 1e-3); /* the default */
    ld_model_free(&m);
    expect_error("{type: hunt_crossley}", "contact_law.stiffness", "");
    expect_error("{type: hunt_crossley, stiffness: -1}", "contact_law.stiffness", "> 0");
    expect_error("{type: hunt_crossley, stiffness: 1, exponent: 3.5}", "contact_law.exponent",
                 "[1, 3]");
    expect_error("{type: hunt_crossley, stiffness: 1, slip_velocity: 0}",
                 "contact_law.slip_velocity", "> 0");
    expect_error("{type: springy, stiffness: 1}", "contact_law.type", "");
    expect_error("{type: hard, stiffness: 1}", "contact_law.stiffness", "hunt_crossley");
    expect_error("{type: hunt_crossley, stiffness: 1, damping: 2}", "contact_law", "damping");
}

/* ---------------------------------------------------------------- runs */

typedef struct run {
    double z, vz, x, vx; /* at the end */
    double zmin, apex;   /* lowest centre; highest centre after the first contact ended */
    double t_touch;      /* first time the ball's centre is below its radius (−1: never) */
    int steps;
} run;

/* Integrate m with method meth from 0 to t1 in steps of h; body 0's track. LD_OK or the status
 * of the first failing step. */
static int integrate(const ld_model *m, ld_integ_method meth, double h, double t1, double zc,
                     run *out) {
    ld_system s;
    double *q0, *v0, x[3], qq[4], om[3], xd[3];
    char msg[256];
    if (ld_model_compile_msg(m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg)) fail_msg("%s", msg);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    int st = 0, rc = LD_OK, left = 0;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    if (!it) fail_msg("%s: %s", ld_integ_method_name(meth), ld_integ_options_check(&s, &o));
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    memset(out, 0, sizeof *out);
    out->zmin = INFINITY, out->t_touch = -1.0;
    long n = lround(t1 / h);
    for (long i = 0; i < n && !rc; ++i) {
        if ((rc = ld_integ_step(it, h))) break;
        assert_int_equal(ld_model_body_state(&s, 0, ld_integ_q(it), ld_integ_v(it), x, qq, om, xd),
                         LD_OK);
        if (x[2] < zc && out->t_touch < 0.0) out->t_touch = (double)(i + 1) * h;
        if (out->t_touch >= 0.0 && x[2] >= zc) left = 1;
        if (left) out->apex = fmax(out->apex, x[2]);
        out->zmin = fmin(out->zmin, x[2]);
        out->z = x[2], out->vz = xd[2], out->x = x[0], out->vx = xd[0];
        out->steps = (int)i + 1;
    }
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return rc;
}

/* At rest on the plane the ball presses (m g / k)^(1/p) into it: k δ^p = m g exactly. */
static void test_static_overlap(void **state) {
    (void)state;
    ld_model m;
    ball_model(&m, R_BALL, 0.0, 0.8, K);
    run r;
    assert_int_equal(integrate(&m, LD_INTEG_GENALPHA, 1e-3, 2.0, R_BALL, &r), LD_OK);
    double want = pow(G / K, 1.0 / P), got = R_BALL - r.z;
    print_message("static overlap %.12e m, (m g / k)^(1/p) = %.12e m, |v| %.1e\n", got, want,
                  fabs(r.vz));
    assert_true(fabs(got - want) < 1e-9 * want);
    assert_true(fabs(r.vz) < 1e-9);
    ld_model_free(&m);
}

/* A cylinder (1 kg, radius 0.1 m, length 0.4 m) standing on the plane rests on its 8 rim points,
 * each pressing (m g / (8 k))^(1/p) into it — the shapes placed as the detector places them (a
 * cylinder is not a sphere). */
static void test_standing_cylinder(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n  - {name: c, mass: 1, inertia: [0.01, 0.01, 0.005], position: [0, 0, 0.2],\n"
        "     shape: {type: cylinder, radius: 0.1, length: 0.4, collide: true, restitution: 0.5}}\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n"
        "contact_law: {type: hunt_crossley, stiffness: 1.0e6}\n";
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "cylinder.yaml", &m, &err)) fail_msg("%s", err.msg);
    run r;
    assert_int_equal(integrate(&m, LD_INTEG_GENALPHA, 1e-3, 2.0, 0.2, &r), LD_OK);
    double want = pow(G / (8.0 * K), 1.0 / P), got = 0.2 - r.z;
    if (!(fabs(got - want) < 1e-9 * want && fabs(r.vz) < 1e-9))
        fail_msg("the cylinder presses %.12e m into the plane, want %.12e m", got, want);
    ld_model_free(&m);
}

/* The law in one dimension: δ̈ = g − f_n(δ, δ̇)/m (the centred ball on the plane: m_c = m),
 * from δ = 0, δ̇ = v0 until the ball leaves; its speed then (RK4, steps of 1e-8 s). */
static double exact_leave(double v0, double e, double m) {
    double c = 1.5 * (1.0 - e), y[2] = {0.0, v0}, h = 1e-8;
    for (long i = 0; i < 100000000L; ++i) {
        double k[4][2], t[2];
        for (int s = 0; s < 4; ++s) {
            const double w = s == 0 ? 0.0 : s == 3 ? 1.0 : 0.5;
            for (int j = 0; j < 2; ++j) t[j] = y[j] + (s ? w * h * k[s - 1][j] : 0.0);
            double d = t[0], dv = t[1], f = 0.0;
            if (d > 0.0) {
                double kp = K * pow(d, P), V = sqrt(dv * dv + 2.0 * kp * d / ((P + 1.0) * m));
                f = fmax(0.0, kp * (1.0 + c * dv / V));
            }
            k[s][0] = dv, k[s][1] = G - f / m;
        }
        for (int j = 0; j < 2; ++j)
            y[j] += h / 6.0 * (k[0][j] + 2.0 * k[1][j] + 2.0 * k[2][j] + k[3][j]);
        if (y[0] <= 0.0 && i > 10) return -y[1];
    }
    return NAN;
}

/* A ball dropped from 1 m: the speed it leaves with (from the apex of the bounce) against the
 * exact solution of the law, and the restitution it makes, for e = 0.9 and 0.5. */
static void test_restitution(void **state) {
    (void)state;
    const double z0 = 0.3, vin = sqrt(2.0 * G * (z0 - R_BALL));
    const double es[2] = {0.9, 0.5};
    for (int i = 0; i < 2; ++i) {
        ld_model m;
        ball_model(&m, z0, 0.0, es[i], K);
        run r;
        assert_int_equal(integrate(&m, LD_INTEG_GENALPHA, 1e-5, 0.45, R_BALL, &r), LD_OK);
        double vout = sqrt(2.0 * G * (r.apex - R_BALL)), ve = exact_leave(vin, es[i], 1.0);
        print_message("e = %.1f: v_in %.6f, v_out %.6f (the law exactly %.6f): restitution %.4f\n",
                      es[i], vin, vout, ve, vout / vin);
        assert_true(fabs(vout - ve) < 2e-4 * vin);
        if (i == 0) assert_true(fabs(vout / vin - es[i]) < 0.01); /* e near 1 */
        if (i == 1) assert_true(vout / vin > 0.5 && vout / vin < 0.65);
        ld_model_free(&m);
    }
}

/* A 0.2 m cube (1 kg) set on the plane at its static overlap, sliding at 1 m/s with μ = 0.5:
 * it stops after v²/(2 μ g) = 0.10194 m. */
static void test_sliding_box(void **state) {
    (void)state;
    double d = pow(G / 4.0 / K, 1.0 / P), v0 = 1.0, mu = 0.5;
    char text[1024];
    snprintf(text, sizeof text,
             "name: box\ngravity: [0, 0, -9.81]\n"
             "bodies:\n  - {name: box, mass: 1, inertia: [0.0066667, 0.0066667, 0.0066667],"
             " position: [0, 0, %.17g], velocity: [%.17g, 0, 0],\n"
             "     shape: {type: box, size: [0.2, 0.2, 0.2], collide: true, friction: %.17g}}\n"
             "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n"
             "contact_law: {type: hunt_crossley, stiffness: 1e6, exponent: 1.5}\n",
             0.1 - d, v0, mu);
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "box.yaml", &m, &err)) fail_msg("%s", err.msg);
    run r;
    assert_int_equal(integrate(&m, LD_INTEG_GENALPHA, 1e-4, 0.5, 0.0, &r), LD_OK);
    double want = v0 * v0 / (2.0 * mu * G);
    print_message("box slid %.6f m (v^2/(2 mu g) = %.6f), at %.1e m/s\n", r.x, want, r.vx);
    assert_true(fabs(r.x - want) < 2e-3 * want);
    assert_true(fabs(r.vx) < 1e-3);
    ld_model_free(&m);
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

/* Two balls (one with its sphere off its centre of mass) and a box, overlapping the plane and
 * each other by about 0.1 mm, moving, turning and sliding; every Lie formulation. */
static const char *const TANGENT_MODEL =
    "name: t\ngravity: [0, 0, -9.81]\n"
    "bodies:\n"
    "  - {name: a, mass: 1, inertia: [0.004, 0.005, 0.006], position: [0, 0, 0.0999],\n"
    "     velocity: [0.3, -0.2, -0.05], angular_velocity: [1, 2, -3],\n"
    "     shape: {type: sphere, radius: 0.1, collide: true, restitution: 0.7, friction: 0.4}}\n"
    "  - {name: b, mass: 2, inertia: [0.01, 0.012, 0.008], position: [0.167042, 0.00507, "
    "0.201852],\n"
    "     orientation: [0.96, 0.1, -0.2, 0.15], velocity: [-0.1, 0.4, 0.02], angular_velocity: "
    "[-2, 1, 0.5],\n"
    "     shape: {type: sphere, radius: 0.1, center: [0, 0, 0.02], collide: true,\n"
    "             restitution: 0.5, friction: 0.3}}\n"
    "  - {name: c, mass: 1, inertia: [0.0067, 0.0067, 0.0067], position: [0.6, 0, 0.0999],\n"
    "     orientation: [0.9999, 0.01, 0.005, 0.3], velocity: [0.5, 0.1, -0.02], angular_velocity: "
    "[0.3, -0.2, 1],\n"
    "     shape: {type: box, size: [0.2, 0.2, 0.2], collide: true, friction: 0.5}}\n"
    "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0], friction: 0.2, restitution: 0.6}\n"
    "contact_law: {type: hunt_crossley, stiffness: 1e6, exponent: 1.5, slip_velocity: 0.01}\n";

static void test_tangents(void **state) {
    (void)state;
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(TANGENT_MODEL, strlen(TANGENT_MODEL), "t.yaml", &m, &err))
        fail_msg("%s", err.msg);
    const ld_formulation forms[] = {LD_FORM_SO3XR3,         LD_FORM_SE3,
                                    LD_FORM_S3XR3,          LD_FORM_S3SDR3,
                                    LD_FORM_SO3XR3_SPATIAL, LD_FORM_S3XR3_SPATIAL};
    for (size_t f = 0; f < sizeof forms / sizeof *forms; ++f) {
        ld_system s;
        double *q0, *v0;
        char msg[256];
        if (ld_model_compile_msg(&m, forms[f], &s, &q0, &v0, msg, sizeof msg)) fail_msg("%s", msg);
        size_t k = (size_t)s.k;
        double *KA = calloc(2 * k * k + 2 * k, sizeof *KA), *KF = KA + k * k, *a = KF + k * k;
        double *g = a + k;
        assert_non_null(KA);
        assert_int_equal(s.ops.force(&s, 0.0, q0, v0, g), LD_OK);
        assert_true(fabs(g[5] - 9.81) > 0.5); /* gravity's 9.81 and the plane's push on ball a */
        assert_int_equal(s.ops.g_v(&s, 0.0, q0, v0, KA), LD_OK);
        assert_int_equal(ld_sys_g_v_fd(&s, 0.0, q0, v0, KF), LD_OK);
        double ev = rel_diff(KA, KF, k * k);
        assert_int_equal(s.ops.stiffness(&s, 0.0, q0, v0, a, NULL, KA), LD_OK);
        assert_int_equal(ld_sys_stiffness_fd(&s, 0.0, q0, v0, a, NULL, KF), LD_OK);
        double eq = rel_diff(KA, KF, k * k);
        print_message("%-15s dg/dv %.1e  dg/dq %.1e (of the largest entry)\n",
                      ld_formulation_name(forms[f]), ev, eq);
        assert_true(ev < 1e-6);
        assert_true(eq < 2e-3); /* the contact frame held fixed: relative size δ/r, 1e-3 here */
        free(KA);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(&m);
}

/* ---------------------------------------------------------------- the methods */

/* Every method through the system's callbacks runs the compliant ball through its first bounce
 * (the apex within 1 % of the law's exact one at h = 1e-4; 2 % at 1e-5 for the first-order
 * methods); moreau
 * and the splitting refuse it, and joint limits stay refused by the smooth methods. */
static void test_methods(void **state) {
    (void)state;
    const double z0 = 0.3, vin = sqrt(2.0 * G * (z0 - R_BALL)), ve = exact_leave(vin, 0.8, 1.0);
    const double apex = R_BALL + ve * ve / (2.0 * G);
    ld_model m;
    ball_model(&m, z0, 0.0, 0.8, K);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    int ran = 0;
    for (int i = 0; i < ld_method_count(); ++i) {
        const ld_method_info *d = ld_method_get(i);
        ld_integ_options o;
        ld_integ_options_init(&o);
        o.method = (ld_integ_method)i;
        const char *why = ld_integ_options_check(&s, &o);
        if (d->contact || d->model_only) {
            if (!why || !strstr(why, d->contact ? "hard" : "split"))
                fail_msg("%s took the compliant contact: %s", d->name, why ? why : "(no reason)");
            continue;
        }
        if (why) fail_msg("%s refused the compliant contact: %s", d->name, why);
        run r; /* the first-order methods at a tenth of the step */
        int rc = integrate(&m, (ld_integ_method)i, d->order >= 2 ? 1e-4 : 1e-5, 0.45, R_BALL, &r);
        print_message("%-12s apex %.6f (exact %.6f), lowest %.6f\n", d->name, r.apex, apex, r.zmin);
        assert_int_equal(rc, LD_OK);
        assert_true(fabs(r.apex - apex) < (d->order >= 2 ? 0.01 : 0.02) * (apex - R_BALL));
        ++ran;
    }
    assert_true(ran >= 8);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
    /* joint limits are hard whatever the law */
    const char *lim = "name: p\ngravity: [0, 0, -9.81]\n"
                      "bodies:\n  - {name: b, mass: 1, inertia: [1, 1, 1], position: [1, 0, 0]}\n"
                      "joints:\n  - {type: revolute, body1: ground, body2: b, at: [0, 0, 0],"
                      " axis: [0, 1, 0], limits: [-0.5, 0.5]}\n"
                      "contact_law: {type: hunt_crossley, stiffness: 1e6}\n";
    ld_model_error err;
    if (ld_model_parse(lim, strlen(lim), "p.yaml", &m, &err)) fail_msg("%s", err.msg);
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    const char *why = ld_integ_options_check(&s, &o);
    assert_non_null(why);
    assert_non_null(strstr(why, "joint limits"));
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader),
        cmocka_unit_test(test_static_overlap),
        cmocka_unit_test(test_restitution),
        cmocka_unit_test(test_sliding_box),
        cmocka_unit_test(test_tangents),
        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_standing_cylinder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

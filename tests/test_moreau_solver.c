/*
 * The local solve of the moreau method (docs/contact.md): projected Gauss–Seidel over the
 * contacts and the joints' rows, accelerated by Nesterov's extrapolation with restart (the
 * default), and plain (contact_solver 0, where the options have room for it). A stack at rest
 * stays at rest, a pile poured into a box settles without overlap in fewer sweeps, and both
 * solves give the same sliding distance.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "moreau_run.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* Start r as start() does, with the contact solver set to solver when the method has the
 * parameter (−1: the default); 0 if it has not and solver ≥ 0 (nothing started), else 1. */
static int start_with(run *r, const char *text, double h, int solver) {
    const ld_method_param *p = ld_method_param_find("contact_solver", NULL);
    if (solver >= 0 && !p) return 0;
    if (solver < 0) {
        start(r, text, LD_FORM_SO3XR3, h);
        return 1;
    }
    ld_model_error e;
    if (ld_model_parse(text, strlen(text), "solver.yaml", &r->m, &e)) fail_msg("%s", e.msg);
    char msg[512];
    if (ld_model_compile_msg(&r->m, LD_FORM_SO3XR3, &r->s, &r->q0, &r->v0, msg, sizeof msg))
        fail_msg("%s", msg);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)ld_integ_method_find("moreau");
    o.h_init = h;
    double v = solver;
    memcpy((char *)&o + p->offset, &v, sizeof v);
    int st = 0;
    r->it = ld_integ_create_msg(&r->s, &o, &st, msg, sizeof msg);
    if (!r->it) fail_msg("create: %s", msg);
    assert_int_equal(ld_integ_init(r->it, 0.0, r->q0, r->v0), LD_OK);
    return 1;
}

/* Run r by n steps of h; body i's position and velocity into x, v (3 each, i < nb). */
static void advance(run *r, int n, double h, int nb, double *x, double *v) {
    for (int k = 1; k <= n; ++k) assert_int_equal(ld_integ_advance_to(r->it, k * h), LD_OK);
    for (int i = 0; i < nb; ++i) {
        double q[4], w[3];
        assert_int_equal(ld_model_body_state(&r->s, i, ld_integ_q(r->it), ld_integ_v(r->it),
                                             x + 3 * i, q, w, v + 3 * i),
                         LD_OK);
    }
}

/* Three spheres stacked on the plane, touching: 1 s of 1 ms steps moves none by 10⁻⁹ m, none
 * by 10⁻⁹ m/s — the solve converged where the load passes through every layer. */
static void test_stack_rests(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0], friction: 0.4}\n"
        "bodies:\n"
        "  - {name: a, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [0, 0, 0.05],\n"
        "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n"
        "  - {name: b, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [0, 0, 0.15],\n"
        "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n"
        "  - {name: c, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [0, 0, 0.25],\n"
        "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n";
    for (int solver = -1; solver <= 1; ++solver) {
        run r;
        if (!start_with(&r, text, 1e-3, solver)) continue;
        double x[9], v[9];
        advance(&r, 1000, 1e-3, 3, x, v);
        for (int i = 0; i < 3; ++i) {
            double dz = x[3 * i + 2] - (0.05 + 0.1 * i);
            double sp = sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] +
                             v[3 * i + 2] * v[3 * i + 2]);
            if (!(fabs(dz) < 1e-9 && fabs(x[3 * i]) < 1e-9 && sp < 1e-9))
                fail_msg("solver %d: sphere %d moved %.3g m, speed %.3g", solver, i, dz, sp);
        }
        stop(&r);
    }
}

/* The text of eight spheres (5 cm, 0.5 kg, μ = 0.4, e = 0) released 12 cm apart over a floor
 * box between four walls, 1 cm beyond them. */
static const char pile[] =
    "gravity: [0, 0, -9.81]\n"
    "ground_shapes:\n"
    "  - {type: box, size: [0.6, 0.6, 0.2], center: [0, 0, -0.1], friction: 0.4}\n"
    "  - {type: box, size: [0.2, 0.6, 1], center: [0.225, 0, 0.5], friction: 0.4}\n"
    "  - {type: box, size: [0.2, 0.6, 1], center: [-0.225, 0, 0.5], friction: 0.4}\n"
    "  - {type: box, size: [0.25, 0.2, 1], center: [0, 0.225, 0.5], friction: 0.4}\n"
    "  - {type: box, size: [0.25, 0.2, 1], center: [0, -0.225, 0.5], friction: 0.4}\n"
    "bodies:\n"
    "  - {name: s0, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [-0.058, -0.061, 0.15],\n"
    "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n"
    "  - {name: s1, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [0.062, -0.059, 0.15],\n"
    "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n"
    "  - {name: s2, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [-0.061, 0.058, 0.15],\n"
    "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n"
    "  - {name: s3, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [0.059, 0.062, 0.15],\n"
    "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n"
    "  - {name: s4, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [-0.057, -0.063, 0.27],\n"
    "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n"
    "  - {name: s5, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [0.063, -0.057, 0.27],\n"
    "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n"
    "  - {name: s6, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [-0.062, 0.061, 0.27],\n"
    "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n"
    "  - {name: s7, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: [0.058, 0.063, 0.27],\n"
    "     shape: {type: sphere, radius: 0.05, collide: true, friction: 0.4}}\n";

/* The pile settles in the box: after 0.6 s no sphere is below the floor or beyond a wall by
 * 10⁻⁹ m, no two overlap by 10⁻⁹ m at the last step's midpoint less than the correction
 * removes, and every speed is finite; the accelerated solve needs fewer sweeps than plain
 * Gauss–Seidel where both can be chosen. */
static void test_pile_settles(void **state) {
    (void)state;
    long sweeps[3] = {0, 0, 0};
    for (int solver = -1; solver <= 1; ++solver) {
        run r;
        if (!start_with(&r, pile, 1e-3, solver)) continue;
        double x[24], v[24];
        advance(&r, 600, 1e-3, 8, x, v);
        for (int i = 0; i < 8; ++i) {
            const double *p = x + 3 * i;
            if (!(p[2] > 0.05 - 1e-9 && fabs(p[0]) < 0.075 + 1e-9 && fabs(p[1]) < 0.075 + 1e-9))
                fail_msg("solver %d: sphere %d at (%.6f, %.6f, %.6f)", solver, i, p[0], p[1], p[2]);
            for (int k = 0; k < 3; ++k) assert_true(isfinite(v[3 * i + k]));
            for (int j = 0; j < i; ++j) {
                const double *o = x + 3 * j;
                double d = sqrt((p[0] - o[0]) * (p[0] - o[0]) + (p[1] - o[1]) * (p[1] - o[1]) +
                                (p[2] - o[2]) * (p[2] - o[2]));
                if (!(d > 0.1 - 1e-9)) fail_msg("solver %d: spheres %d, %d overlap", solver, i, j);
            }
        }
        ld_contact_stats st;
        assert_int_equal(ld_integ_contact_stats(r.it, &st), LD_OK);
        sweeps[solver + 1] = st.total_sweeps;
        stop(&r);
    }
    if (sweeps[1] > 0 && !(sweeps[2] < sweeps[1]))
        fail_msg("accelerated %ld sweeps, plain %ld", sweeps[2], sweeps[1]);
    if (sweeps[1] > 0) assert_int_equal(sweeps[0], sweeps[2]); /* the default is accelerated */
}

/* A box pushed at 2 m/s on the plane (μ = 0.5) stops after v²/(2 μ g) by either solve. */
static void test_sliding_box(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0], friction: 0.5}\n"
        "bodies:\n"
        "  - {name: box, mass: 1, inertia: [0.0067, 0.0067, 0.0067], position: [0, 0, 0.1],\n"
        "     velocity: [2, 0, 0], shape: {type: box, size: [0.2, 0.2, 0.2], collide: true,\n"
        "     friction: 0.5}}\n";
    for (int solver = -1; solver <= 1; ++solver) {
        run r;
        if (!start_with(&r, text, 1e-4, solver)) continue;
        double x[3], v[3], q[4], w[3];
        advance(&r, 6000, 1e-4, 0, x, v);
        body(&r, x, q, w, v);
        double want = 4.0 / (2.0 * 0.5 * 9.81);
        if (!(fabs(x[0] - want) < 1e-4 && fabs(v[0]) < 1e-9 && fabs(x[2] - 0.1) < 1e-9))
            fail_msg("solver %d: stopped at %.6f (want %.6f), speed %.3g, height %.12f", solver,
                     x[0], want, v[0], x[2]);
        stop(&r);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack_rests),
        cmocka_unit_test(test_pile_settles),
        cmocka_unit_test(test_sliding_box),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

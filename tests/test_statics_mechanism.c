/*
 * Static equilibrium of mechanisms (statics.h): where the stiffness is singular off the rest
 * position the loads cannot be stepped in, and the pseudo-transient continuation settles the
 * mechanism instead. A pendulum released horizontal hangs straight down; a double pendulum
 * hangs with both links down; the four-bar and Bricard's mechanism (closed loops with rows left
 * out) settle with every joint closed and their potential energy lowered.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

/* The equilibrium of the shipped model `name` from its start: q (allocated) and the energies
 * (at rest: the potential) before and after. */
static double *settle(const char *name, ld_model *m, ld_system *s, double *e0, double *e1) {
    char path[512];
    snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, name);
    ld_model_error e;
    memset(&e, 0, sizeof e);
    if (ld_model_load(path, m, &e) != LD_OK) fail_msg("%s", e.msg);
    double *q0, *v0;
    assert_int_equal(ld_model_compile(m, LD_FORM_SO3XR3, s, &q0, &v0), LD_OK);
    memset(v0, 0, (size_t)s->k * sizeof *v0);
    double *lam = calloc((size_t)s->m + 1, sizeof *lam);
    assert_non_null(lam);
    *e0 = ld_sys_energy(s, 0.0, q0, v0);
    ld_static_options o;
    ld_static_options_init(&o);
    ld_static_stats st;
    char msg[256];
    int rc = ld_static_solve(s, 0.0, q0, lam, &o, &st, msg, sizeof msg);
    if (rc) fail_msg("%s: %s", name, msg);
    assert_true(st.relaxed);
    assert_true(ld_model_joint_phi_max(s, 0.0, q0, NULL) < 1e-10);
    *e1 = ld_sys_energy(s, 0.0, q0, v0);
    free(v0);
    free(lam);
    return q0;
}

static void test_pendulum_hangs(void **state) {
    (void)state;
    ld_model m;
    ld_system s;
    double e0, e1, x[3], qq[4], om[3], xd[3], zero[6] = {0};
    double *q = settle("simple-pendulum", &m, &s, &e0, &e1);
    assert_int_equal(ld_model_body_state(&s, 0, q, zero, x, qq, om, xd), LD_OK);
    if (!(fabs(x[0]) < 1e-8 && fabs(x[1] + 1.0) < 1e-8 && fabs(x[2]) < 1e-12))
        fail_msg("bob at %.12g %.12g %.12g, want (0, -1, 0)", x[0], x[1], x[2]);
    assert_true(e1 < e0 - 9.8); /* 1 kg fallen 1 m */
    free(q);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

static void test_double_pendulum_hangs(void **state) {
    (void)state;
    ld_model m;
    ld_system s;
    double e0, e1, x[3], qq[4], om[3], xd[3], zero[12] = {0};
    double *q = settle("double-pendulum-damped", &m, &s, &e0, &e1);
    double g[3] = {m.gravity[0], m.gravity[1], m.gravity[2]}, gn = norm3(g);
    for (int b = 0; b < 2; ++b) { /* each centre of mass straight below the pivot: ⊥ g is 0 */
        assert_int_equal(ld_model_body_state(&s, b, q, zero, x, qq, om, xd), LD_OK);
        double along = (x[0] * g[0] + x[1] * g[1] + x[2] * g[2]) / gn;
        double perp2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] - along * along;
        if (!(along > 0.0 && perp2 < 1e-14))
            fail_msg("link %d at %g %g %g is not below the pivot", b, x[0], x[1], x[2]);
    }
    assert_true(e1 < e0);
    free(q);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

static void test_loops_settle(void **state) {
    (void)state;
    const char *names[2] = {"four-bar", "bricard"};
    for (int i = 0; i < 2; ++i) {
        ld_model m;
        ld_system s;
        double e0, e1;
        double *q = settle(names[i], &m, &s, &e0, &e1);
        if (!(e1 < e0)) fail_msg("%s: energy %g -> %g", names[i], e0, e1);
        free(q);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
}

/* An unloaded stiff structure (the IEA 15-MW blade without its loads, under gravity only, from
 * its straight start): the tolerance has no applied load to scale by, and the blade's forces
 * carry round-off of about ε times its stiffness (EA ≈ 10¹⁰ N), far above 1e-10. Newton's
 * corrections fall to round-off; the solve must then stop as converged, not cut the load
 * twelve times and fail. */
static void test_unloaded_stiff_blade(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/models/iea15-blade.yaml", LD_SOURCE_DIR);
    ld_model m;
    ld_model_error e;
    memset(&e, 0, sizeof e);
    if (ld_model_load(path, &m, &e) != LD_OK) fail_msg("%s", e.msg);
    m.nloads = 0; /* the loads left out (their storage stays with the model) */
    ld_system s;
    double *q, *v;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q, &v), LD_OK);
    double *lam = calloc((size_t)s.m + 1, sizeof *lam);
    ld_static_options o;
    ld_static_options_init(&o);
    ld_static_stats st;
    char msg[256];
    int rc = ld_static_solve(&s, m.run.t_end, q, lam, &o, &st, msg, sizeof msg);
    if (rc) fail_msg("unloaded blade: %s", msg);
    assert_int_equal(st.cuts, 0);
    free(q);
    free(v);
    free(lam);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pendulum_hangs),
        cmocka_unit_test(test_double_pendulum_hangs),
        cmocka_unit_test(test_loops_settle),
        cmocka_unit_test(test_unloaded_stiff_blade),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

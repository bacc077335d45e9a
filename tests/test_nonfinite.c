/*
 * Non-finite values inside a step and at the start, for every method of the method enum: a
 * step that overflows is a rejection (LD_RETRY) whose message names the non-finite quantity,
 * and it leaves the state bit for bit; overflow-size model data (gravity, angular velocity)
 * make ld_integ_init fail with a status and a message that name the quantity.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "mbs_models.h"
#include "support.h"

/* A compiled model and an integrator of method `meth` on it, initialized. */
typedef struct run {
    ld_system s;
    double *q0, *v0;
    ld_integ *it;
} run;

/* The heavy top, without its pivot for the methods of unconstrained systems (tb3, moreau). */
static void model_for(ld_model *m, ld_integ_method meth) {
    tm_heavy_top(m, 1.0);
    if (!ld_method_get((int)meth)->constraints) m->njoints = 0;
}

static int start(run *r, const ld_model *m, ld_integ_method meth, ld_formulation f) {
    assert_int_equal(ld_model_compile(m, f, &r->s, &r->q0, &r->v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    int st;
    char msg[256];
    r->it = ld_integ_create_msg(&r->s, &o, &st, msg, sizeof msg);
    if (!r->it) fail_msg("%s: create: %s", ld_integ_method_name(meth), msg);
    return ld_integ_init(r->it, 0.0, r->q0, r->v0);
}

static void finish(run *r) {
    ld_integ_free(r->it);
    free(r->q0);
    free(r->v0);
    ld_model_system_free(&r->s);
}

/* A copy of everything a rejected step must leave alone. */
typedef struct snap {
    double t, *x;
    ld_integ_stats st;
} snap;

static snap take(const run *r) {
    size_t nq = (size_t)r->s.nq, k = (size_t)r->s.k, m = (size_t)r->s.m;
    snap p = {ld_integ_t(r->it), malloc((nq + 3 * k + m + 1) * sizeof(double)), {0}};
    double *x = p.x;
    memcpy(x, ld_integ_q(r->it), nq * sizeof(double)), x += nq;
    memcpy(x, ld_integ_v(r->it), k * sizeof(double)), x += k;
    memcpy(x, ld_integ_vdot(r->it), k * sizeof(double)), x += k;
    memcpy(x, ld_integ_lambda(r->it), m * sizeof(double));
    ld_integ_get_stats(r->it, &p.st);
    return p;
}

static void expect_same(const run *r, const snap *a, const char *what) {
    snap b = take(r);
    size_t n = (size_t)r->s.nq + 2 * (size_t)r->s.k + (size_t)r->s.m;
    if (a->t != b.t || memcmp(a->x, b.x, n * sizeof(double)) != 0 || a->st.steps != b.st.steps)
        fail_msg("%s: a rejected step changed the state", what);
    free(b.x);
}

/* Every method: h = 1e307 overflows inside the step (h ω is infinite); the step is rejected with a
 * message that names the non-finite quantity, and a normal step still works afterwards. On the
 * heavy top (the small-system path) and on two tops (k + m = 18, past it, dense solver). */
static void huge_step_rejected(int two) {
    for (int meth = 0; meth < ld_method_count(); ++meth) {
        ld_model m;
        model_for(&m, (ld_integ_method)meth);
        if (two) tm_add_second_top(&m);
        run r;
        assert_int_equal(start(&r, &m, (ld_integ_method)meth, LD_FORM_SO3XR3), LD_OK);
        const char *name = ld_integ_method_name((ld_integ_method)meth);
        assert_int_equal(ld_integ_step(r.it, 1e-3), LD_OK);
        snap before = take(&r);
        int rc = ld_integ_step(r.it, 1e307);
        const char *msg = ld_integ_message(r.it);
        if (rc != LD_RETRY_NONFINITE || !strstr(msg, "rejected: non-finite "))
            fail_msg("%s (k + m = %d): h = 1e307 gave status %d, message '%s'", name, r.s.k + r.s.m,
                     rc, msg);
        expect_same(&r, &before, name);
        ld_integ_stats st;
        ld_integ_get_stats(r.it, &st);
        assert_int_equal(st.rejected, before.st.rejected + 1);
        assert_int_equal(st.newton_failures, before.st.newton_failures + 1); /* counted apart */
        assert_int_equal(st.error_test_failures, before.st.error_test_failures);
        /* halving: sub-steps that stay finite are taken, the first that does not is a
         * rejection with its reason; the state is finite either way */
        assert_int_equal(ld_integ_step(r.it, 1e-3), LD_OK);
        rc = ld_integ_advance(r.it, 1e307);
        if (rc < 0 || (rc > 0 && !strstr(ld_integ_message(r.it), "non-finite")))
            fail_msg("%s: advance by 1e307 gave %d, '%s'", name, rc, ld_integ_message(r.it));
        const double *q = ld_integ_q(r.it), *v = ld_integ_v(r.it);
        for (int i = 0; i < r.s.nq; ++i) assert_true(isfinite(q[i]));
        for (int i = 0; i < r.s.k; ++i) assert_true(isfinite(v[i]));
        free(before.x);
        finish(&r);
    }
}

static void test_huge_step_rejected(void **state) {
    (void)state;
    huge_step_rejected(0);
}

static void test_huge_step_rejected_dense(void **state) {
    (void)state;
    huge_step_rejected(1);
}

/* A step that cannot advance t is refused with a message (not an empty one). */
static void test_unrepresentable_step(void **state) {
    (void)state;
    ld_model m;
    model_for(&m, LD_INTEG_GENALPHA);
    run r;
    assert_int_equal(start(&r, &m, LD_INTEG_GENALPHA, LD_FORM_SE3), LD_OK);
    assert_int_equal(ld_integ_step(r.it, NAN), LD_EINVAL);
    assert_non_null(strstr(ld_integ_message(r.it), "must be positive, finite"));
    finish(&r);
}

/* Overflow-size model data: every method's init fails with the quantity named. */
static void expect_init_fails(ld_model *m, ld_integ_method meth, const char *what) {
    run r;
    const char *name = ld_integ_method_name(meth);
    int rc = start(&r, m, meth, LD_FORM_S3SDR3);
    const char *msg = ld_integ_message(r.it);
    if (rc != LD_EDOMAIN || !strstr(msg, "initial state at t = 0: non-finite ") ||
        !strstr(msg, what))
        fail_msg("%s: init gave %d, '%s' (expected '%s')", name, rc, msg, what);
    finish(&r);
}

static void test_overflow_inputs(void **state) {
    (void)state;
    for (int meth = 0; meth < ld_method_count(); ++meth) {
        ld_model m;
        model_for(&m, (ld_integ_method)meth);
        m.gravity[2] = -1e308; /* finite, but m g overflows */
        expect_init_fails(&m, (ld_integ_method)meth, "generalized force");
        model_for(&m, (ld_integ_method)meth);
        tm_bodies[0].omega[0] = 1e200; /* the gyroscopic term Ω × JΩ overflows */
        tm_bodies[0].omega[1] = 1e200;
        expect_init_fails(&m, (ld_integ_method)meth, "non-finite");
    }
}

/* Gravity 1e300 is finite at the start; a step that overflows later is rejected. */
static void test_overflow_during_run(void **state) {
    (void)state;
    for (int meth = 0; meth < ld_method_count(); ++meth) {
        ld_model m;
        model_for(&m, (ld_integ_method)meth);
        m.gravity[2] = -1e300;
        run r;
        const char *name = ld_integ_method_name((ld_integ_method)meth);
        assert_int_equal(start(&r, &m, (ld_integ_method)meth, LD_FORM_SO3XR3), LD_OK);
        int rc = LD_OK;
        double h = 1e-3; /* the position, about 1e300 h², overflows at h = 1e5 */
        for (int i = 0; i < 12 && rc == LD_OK; ++i, h *= 10.0) {
            snap before = take(&r);
            rc = ld_integ_step(r.it, h);
            if (rc > 0) expect_same(&r, &before, name);
            free(before.x);
        }
        /* a rejection with its reason (non-finite values, or a matrix singular to working
         * precision at these magnitudes), never a fatal status or an empty message */
        const char *msg = ld_integ_message(r.it);
        if (!(rc == LD_RETRY_NONFINITE || rc == LD_RETRY_SINGULAR) || !strstr(msg, "rejected: "))
            fail_msg("%s: growing steps under gravity 1e300 ended with %d, '%s'", name, rc, msg);
        finish(&r);
    }
}

/* ld_sys_initial_accel_msg names the quantity; the outputs stay untouched. */
static void test_initial_accel_message(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    m.gravity[2] = -1e308;
    ld_system s;
    double *q0, *v0, vd[6] = {7, 7, 7, 7, 7, 7}, lam[3] = {7, 7, 7};
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    char msg[160];
    assert_int_equal(ld_sys_initial_accel_msg(&s, 0.0, q0, v0, vd, lam, msg, sizeof msg),
                     LD_EDOMAIN);
    assert_non_null(strstr(msg, "non-finite generalized force g(t, q, v)"));
    assert_true(vd[0] == 7 && lam[2] == 7);
    assert_int_equal(ld_sys_initial_accel(&s, 0.0, q0, v0, vd, lam), LD_EDOMAIN);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* The explicit engine: a right-hand side that turns non-finite at t = 0.5 ends an adaptive
 * run with LD_EDOMAIN there (the step collapses on non-finite attempts), a fixed-step run too,
 * while a solution that merely blows up (finite values, the tolerance unreachable) keeps
 * LD_ESINGULAR (test_erk). */
static int rhs_nan_after_half(double t, const double *x, double *v, void *user) {
    (void)x, (void)user;
    v[0] = t < 0.5 ? 1.0 : (double)NAN;
    return 0;
}

static void test_erk_nonfinite(void **state) {
    (void)state;
    ld_erk_space sp = {1, 1, rhs_nan_after_half, NULL, NULL, NULL, NULL, NULL};
    ld_erk *e;
    assert_int_equal(ld_erk_create(&e, &sp, ld_rk_table_find("dopri5")), LD_OK);
    ld_erk_options o;
    ld_erk_options_default(&o);
    double x[1] = {0.0};
    ld_erk_stats st;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, NULL, NULL, &st), LD_EDOMAIN);
    assert_true(st.t <= 0.5 && st.t > 0.49);
    assert_true(isfinite(x[0]));
    o.adaptive = 0;
    o.h_init = 0.1;
    x[0] = 0.0;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, NULL, NULL, &st), LD_EDOMAIN);
    assert_true(isfinite(x[0]) && st.t < 0.5);
    ld_erk_free(e);
}

int main(void) {
    (void)tm_loaded; /* mbs_models.h: this program needs the heavy top only */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_huge_step_rejected),
        cmocka_unit_test(test_huge_step_rejected_dense),
        cmocka_unit_test(test_unrepresentable_step),
        cmocka_unit_test(test_overflow_inputs),
        cmocka_unit_test(test_overflow_during_run),
        cmocka_unit_test(test_initial_accel_message),
        cmocka_unit_test(test_erk_nonfinite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

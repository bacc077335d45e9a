/*
 * The explicit RK engine: every built-in table reaches its stated order on a nonlinear,
 * non-autonomous test problem (classical and, on SO(3), Munthe-Kaas); FSAL saves one evaluation
 * per step; the adaptive controller meets its tolerance, stops at t1, and fails cleanly (never
 * loops) when the step collapses; bad arguments are rejected.
 */
#include "support.h"

#include "liedyn/liedyn.h"

/* y1' = −y1², y2' = 2 t y2; exact y = (1/(1 + t), exp(t²)) from y(0) = (1, 1). (tan t as y1 is a
 * poor order test: its DOPRI5 error coefficient nearly cancels, observed orders 5.8 to 6.8.) */
static int rhs_tan(double t, const double *x, double *v, void *user) {
    long *count = user;
    if (count) ++*count;
    v[0] = -x[0] * x[0];
    v[1] = 2.0 * t * x[1];
    return 0;
}

static double err_tan(const ld_rk_table *tab, double t1, int n) {
    ld_erk_space sp = {2, 2, rhs_tan, NULL, NULL, NULL, NULL, NULL};
    ld_erk *e = NULL;
    assert_int_equal(ld_erk_create(&e, &sp, tab), LD_OK);
    ld_erk_options o;
    ld_erk_options_default(&o);
    o.adaptive = 0;
    o.h_init = t1 / n;
    double x[2] = {1.0, 1.0};
    ld_erk_stats st;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, t1, x, NULL, NULL, &st), LD_OK);
    assert_int_equal(st.steps, n);
    assert_true(st.t == t1);
    ld_erk_free(e);
    return fmax(fabs(x[0] - 1.0 / (1.0 + t1)), fabs(x[1] - exp(t1 * t1)) / exp(t1 * t1));
}

/* Observed order log2(e(h)/e(h/2)) at the finest pair must be within 0.3 of the order. */
static void test_orders_vector_space(void **state) {
    (void)state;
    for (int i = 0; i < ld_rk_table_count(); ++i) {
        const ld_rk_table *t = ld_rk_table_at(i);
        int n = t->order >= 4 ? 16 : 64;
        double e1 = err_tan(t, 1.0, n), e2 = err_tan(t, 1.0, 2 * n);
        double p = log2(e1 / e2);
        if (!(fabs(p - t->order) <= 0.3))
            fail_msg("%s: observed order %.3f (errors %.3e, %.3e), expected %d", t->name, p, e1, e2,
                     t->order);
    }
}

/* --- SO(3) (state R, 9 numbers) with a time-dependent body velocity: Munthe-Kaas keeps the
 * order of every table. */
static int rhs_so3(double t, const double *x, double *v, void *user) {
    (void)x;
    (void)user;
    v[0] = sin(t);
    v[1] = 1.0 + 0.5 * t;
    v[2] = cos(2.0 * t);
    return 0;
}

static void retract_so3(double *x1, const double *x, const double *u, void *user) {
    (void)user;
    double E[9];
    ld_so3_exp(E, u);
    ld_so3_compose(x1, x, E);
}

static void dexpinv_so3(double *w, const double *u, const double *v, void *user) {
    (void)user;
    double Ti[9];
    ld_so3_tangent_inv(Ti, u);
    for (int i = 0; i < 3; ++i) {
        w[i] = 0.0;
        for (int k = 0; k < 3; ++k) w[i] += Ti[3 * i + k] * v[k];
    }
}

static void unit_scale(double *s, const double *x, void *user) {
    (void)x;
    (void)user;
    s[0] = s[1] = s[2] = 1.0;
}

/* Integrate over [0, 2] with n steps; q receives the final rotation as a quaternion. */
static void run_so3(const ld_rk_table *t, int n, double q[4], int with_dexpinv) {
    ld_erk_space sp = {9,    3,          rhs_so3, retract_so3, with_dexpinv ? dexpinv_so3 : NULL,
                       NULL, unit_scale, NULL};
    ld_erk *e = NULL;
    assert_int_equal(ld_erk_create(&e, &sp, t), LD_OK);
    ld_erk_options o;
    ld_erk_options_default(&o);
    o.adaptive = 0;
    o.h_init = 2.0 / n;
    double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 2.0, R, NULL, NULL, NULL), LD_OK);
    assert_true(orth_error(R) <= 256 * EPS);
    ld_quat_from_mat(q, R);
    ld_erk_free(e);
}

static void test_orders_so3(void **state) {
    (void)state;
    double ref[4], q1[4], q2[4];
    run_so3(ld_rk_table_find("dopri5"), 4096, ref, 1);
    for (int i = 0; i < ld_rk_table_count(); ++i) {
        const ld_rk_table *t = ld_rk_table_at(i);
        int n = t->order >= 4 ? 32 : 128;
        run_so3(t, n, q1, 1);
        run_so3(t, 2 * n, q2, 1);
        double e1 = ld_quat_angle(ref, q1), e2 = ld_quat_angle(ref, q2);
        double p = log2(e1 / e2);
        if (!(fabs(p - t->order) <= 0.3))
            fail_msg("RKMK %s: observed order %.3f (%.3e, %.3e), expected %d", t->name, p, e1, e2,
                     t->order);
    }
    /* without dexp⁻¹ a 4th-order table drops to order 2 on a Lie group: the test can fail */
    run_so3(ld_rk_table_find("rk4"), 32, q1, 0);
    run_so3(ld_rk_table_find("rk4"), 64, q2, 0);
    double p = log2(ld_quat_angle(ref, q1) / ld_quat_angle(ref, q2));
    assert_true(p < 3.0);
}

static void test_fsal_and_stats(void **state) {
    (void)state;
    long count = 0;
    ld_erk_space sp = {2, 2, rhs_tan, NULL, NULL, NULL, NULL, &count};
    ld_erk *e = NULL;
    assert_int_equal(ld_erk_create(&e, &sp, ld_rk_table_find("dopri5")), LD_OK);
    ld_erk_options o;
    ld_erk_options_default(&o);
    o.error_rtol = 1e-8;
    o.error_atol = 1e-10;
    double x[2] = {1.0, 1.0};
    ld_erk_stats st;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, NULL, NULL, &st), LD_OK);
    assert_true(st.t == 1.0);
    /* 6 new evaluations per attempt plus the initial one (FSAL) */
    assert_int_equal(st.fevals, 6 * (st.steps + st.rejected) + 1);
    assert_int_equal(count, st.fevals);
    /* the global error follows the tolerance: within a factor 100 of rtol·|y| */
    double err = fabs(x[1] - exp(1.0)) / exp(1.0);
    assert_true(err < 100 * 1e-8 && err > 1e-14);
    ld_erk_free(e);
}

/* The vector space written out with callbacks (x + u, |x|): the engine's general path. */
static void retract_add(double *x1, const double *x, const double *u, void *user) {
    (void)user;
    for (int i = 0; i < 2; ++i) x1[i] = x[i] + u[i];
}

static void scale_abs(double *s, const double *x, void *user) {
    (void)user;
    for (int i = 0; i < 2; ++i) s[i] = fabs(x[i]);
}

/* Adaptive dopri5 over [0, 1] on space sp with engine e (created by the caller). */
static void run_tan(ld_erk *e, double x[2], ld_erk_stats *st) {
    ld_erk_options o;
    ld_erk_options_default(&o);
    o.error_rtol = 1e-7;
    o.error_atol = 1e-9;
    x[0] = x[1] = 1.0;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, NULL, NULL, st), LD_OK);
}

/* The fused loops of a plain vector space give the same bits as the general path with
 * callbacks, and an engine reused after a run (its FSAL buffers swapped) repeats it exactly. */
static void test_plain_path_and_reuse(void **state) {
    (void)state;
    const ld_rk_table *tab = ld_rk_table_find("dopri5");
    ld_erk_space plain = {2, 2, rhs_tan, NULL, NULL, NULL, NULL, NULL};
    ld_erk_space general = {2, 2, rhs_tan, retract_add, NULL, NULL, scale_abs, NULL};
    ld_erk *ep = NULL, *eg = NULL;
    assert_int_equal(ld_erk_create(&ep, &plain, tab), LD_OK);
    assert_int_equal(ld_erk_create(&eg, &general, tab), LD_OK);
    double xp[2], xg[2], xr[2];
    ld_erk_stats sp, sg, sr;
    run_tan(ep, xp, &sp);
    run_tan(eg, xg, &sg);
    assert_true(sp.steps > 10 && sp.steps == sg.steps && sp.rejected == sg.rejected);
    assert_memory_equal(xp, xg, sizeof xp);
    for (int k = 0; k < 3; ++k) { /* odd and even numbers of swaps behind it */
        run_tan(ep, xr, &sr);
        assert_true(sr.steps == sp.steps && sr.fevals == sp.fevals);
        assert_memory_equal(xr, xp, sizeof xp);
    }
    /* a single step after a run is the step of a fresh engine */
    double y1[2] = {1.0, 1.0}, y2[2] = {1.0, 1.0}, e1[2], e2[2];
    assert_int_equal(ld_erk_step(ep, 0.0, 0.1, y1, e1), LD_OK);
    assert_int_equal(ld_erk_step(eg, 0.0, 0.1, y2, e2), LD_OK);
    assert_memory_equal(y1, y2, sizeof y1);
    assert_memory_equal(e1, e2, sizeof e1);
    ld_erk_free(ep);
    ld_erk_free(eg);
    /* on SO(3) with dexp⁻¹ (stage buffers of their own), a reused engine repeats its run */
    ld_erk_space so3 = {9, 3, rhs_so3, retract_so3, dexpinv_so3, NULL, unit_scale, NULL};
    ld_erk *e = NULL;
    assert_int_equal(ld_erk_create(&e, &so3, tab), LD_OK);
    ld_erk_options o;
    ld_erk_options_default(&o);
    o.error_rtol = o.error_atol = 1e-8;
    double R1[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, R2[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 2.0, R1, NULL, NULL, &sp), LD_OK);
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 2.0, R2, NULL, NULL, &sr), LD_OK);
    assert_true(sp.steps > 10 && sr.steps == sp.steps);
    assert_memory_equal(R1, R2, sizeof R1);
    ld_erk_free(e);
}

/* y' = 1/(1 − t): the solution blows up at t = 1, and the rhs refuses t ≥ 1; the run must
 * stop with LD_ESINGULAR (the rhs refused states of the collapsing step) near 1. */
static int rhs_blowup(double t, const double *x, double *v, void *user) {
    (void)x;
    (void)user;
    v[0] = 1.0 / ((1.0 - t) * (1.0 - t));
    return t < 1.0 ? 0 : 1;
}

static int count_out(double t, const double *x, void *user) {
    (void)t;
    (void)x;
    ++*(long *)user;
    return 0;
}

static void test_step_collapse(void **state) {
    (void)state;
    ld_erk_space sp = {1, 1, rhs_blowup, NULL, NULL, NULL, NULL, NULL};
    ld_erk *e = NULL;
    assert_int_equal(ld_erk_create(&e, &sp, ld_rk_table_find("dopri5")), LD_OK);
    ld_erk_options o;
    ld_erk_options_default(&o);
    double x[1] = {1.0};
    ld_erk_stats st;
    long outs = 0;
    int rc = ld_erk_integrate(e, &o, 0.0, 2.0, x, count_out, &outs, &st);
    assert_int_equal(rc, LD_ESINGULAR);
    assert_true(st.t < 1.0 && st.t > 1.0 - 1e-3);
    assert_true(isfinite(x[0]));
    assert_int_equal(outs, st.steps);
    /* with a step limit the run ends with its own status */
    o.max_steps = 20;
    x[0] = 1.0;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 2.0, x, NULL, NULL, &st), LD_ETOOMUCHWORK);
    assert_true(st.steps + st.rejected <= 20);
    ld_erk_free(e);
    /* hmax below the resolution of t (epoch-like times): the run must stop, not spin */
    ld_erk_space sp2 = {2, 2, rhs_tan, NULL, NULL, NULL, NULL, NULL};
    assert_int_equal(ld_erk_create(&e, &sp2, ld_rk_table_find("dopri5")), LD_OK);
    ld_erk_options_default(&o);
    o.h_max = 1e-9;
    double y[2] = {1.0, 1.0};
    assert_int_equal(ld_erk_integrate(e, &o, 1.7e9, 1.7e9 + 1.0, y, NULL, NULL, &st), LD_ESTEPSIZE);
    assert_true(st.steps == 0);
    o.adaptive = 0;
    o.h_init = 1e-9;
    assert_int_equal(ld_erk_integrate(e, &o, 1.7e9, 1.7e9 + 1e-6, y, NULL, NULL, &st),
                     LD_ESTEPSIZE);
    o.adaptive = 1;
    assert_int_equal(ld_erk_integrate(e, &o, -1e308, 1e308, y, NULL, NULL, &st), LD_EINVAL);
    ld_erk_free(e);
}

static int stop_at_3(double t, const double *x, void *user) {
    (void)t;
    (void)x;
    return ++*(long *)user == 3 ? 42 : 0;
}

static void test_bad_input_and_stop(void **state) {
    (void)state;
    ld_erk *e = NULL;
    ld_erk_space bad = {3, 2, rhs_tan, NULL, NULL, NULL, NULL, NULL};
    assert_int_equal(ld_erk_create(&e, &bad, ld_rk_table_find("rk4")), LD_EINVAL);
    assert_null(e);
    ld_erk_space sp = {2, 2, rhs_tan, NULL, NULL, NULL, NULL, NULL};
    assert_int_equal(ld_erk_create(&e, &sp, ld_rk_table_find("rk4")), LD_OK);
    ld_erk_options o;
    ld_erk_options_default(&o);
    double x[2] = {0.0, 1.0};
    /* rk4 has no embedded weights: adaptive use is refused */
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, NULL, NULL, NULL), LD_EINVAL);
    o.adaptive = 0;
    o.h_init = 0.0;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, NULL, NULL, NULL), LD_EINVAL);
    o.h_init = 0.1;
    assert_int_equal(ld_erk_integrate(e, &o, 1.0, 1.0, x, NULL, NULL, NULL), LD_EINVAL);
    long n = 0;
    ld_erk_stats st;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, stop_at_3, &n, &st), 42);
    assert_int_equal(st.steps, 3);
    assert_true(fabs(st.t - 0.3) < 1e-15);
    ld_erk_free(e);
}

/* y' = (1, −3): a constant rate, integrated exactly by every table (no rejection). */
static int rhs_const(double t, const double *x, double *v, void *user) {
    (void)t;
    (void)x;
    (void)user;
    v[0] = 1.0;
    v[1] = -3.0;
    return 0;
}

static int stop_at_first(double t, const double *x, void *user) {
    (void)x;
    *(double *)user = t;
    return 7;
}

/* MATLAB's first step of ode45 and ode23 (no h_init): h = min(h_max, span), reduced to 1/rh
 * when h·rh > 1, rh = ‖f0 / max(|y0|, atol/rtol)‖_∞ / (0.8 rtol^p) with p = 1/(order of the
 * embedded pair's lower member + 1): 1/5 for dopri5, 1/3 for bs23. */
static void test_initial_step(void **state) {
    (void)state;
    const char *names[] = {"dopri5", "bs23"};
    const double p[] = {1.0 / 5.0, 1.0 / 3.0};
    ld_erk_space sp = {2, 2, rhs_const, NULL, NULL, NULL, NULL, NULL};
    for (int k = 0; k < 2; ++k) {
        ld_erk *e = NULL;
        assert_int_equal(ld_erk_create(&e, &sp, ld_rk_table_find(names[k])), LD_OK);
        ld_erk_options o;
        ld_erk_options_default(&o);
        o.error_rtol = 1e-4;
        o.error_atol = 1e-7;
        double x[2] = {0.5, 0.0}, t_first = 0.0;
        /* |y0| against the threshold atol/rtol = 1e-3: 1/0.5 and 3/1e-3 */
        double rh = fmax(1.0 / 0.5, 3.0 / 1e-3) / (0.8 * pow(o.error_rtol, p[k]));
        assert_true(1.0 * rh > 1.0); /* span 10, h_max 1: the reduction applies */
        assert_int_equal(ld_erk_integrate(e, &o, 0.0, 10.0, x, stop_at_first, &t_first, NULL), 7);
        assert_true(fabs(t_first - 1.0 / rh) < 1e-14 / rh);
        ld_erk_free(e);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders_vector_space), cmocka_unit_test(test_orders_so3),
        cmocka_unit_test(test_fsal_and_stats),      cmocka_unit_test(test_step_collapse),
        cmocka_unit_test(test_bad_input_and_stop),  cmocka_unit_test(test_plain_path_and_reuse),
        cmocka_unit_test(test_initial_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The public API's hardening: NULL arguments (every function either documents a non-NULL
 * precondition or checks it — these calls crashed before the checks), the scaled quaternion
 * normalization (huge, tiny and denormal components; the model reader gives the same), option
 * validation and the distinct status codes of the explicit engines, and compile's own model
 * validation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "mbs_models.h"
#include "support.h"

/* ---------------------------------------------------------------- integrator */

static void test_integ_null(void **state) {
    (void)state;
    int st = 0, n = 7;
    assert_true(isnan(ld_integ_t(NULL)));
    assert_null(ld_integ_q(NULL));
    assert_null(ld_integ_v(NULL));
    assert_null(ld_integ_vdot(NULL));
    assert_null(ld_integ_lambda(NULL));
    assert_string_equal(ld_integ_message(NULL), "");
    assert_null(ld_integ_newton_history(NULL, &n));
    assert_int_equal(n, 0);
    n = 7;
    assert_null(ld_integ_residual_history(NULL, &n));
    assert_int_equal(n, 0);
    assert_null(ld_integ_newton_history(NULL, NULL));
    assert_true(isnan(ld_integ_last_h(NULL)));
    assert_true(isnan(ld_integ_last_error(NULL)));
    assert_true(isnan(ld_integ_next_h(NULL)));
    ld_integ_stats s;
    memset(&s, 0xff, sizeof s);
    ld_integ_get_stats(NULL, &s);
    assert_int_equal(s.steps, 0);
    assert_int_equal(s.rejected, 0);
    ld_integ_get_stats(NULL, NULL);
    ld_integ_options_init(NULL);
    assert_null(ld_integ_create(NULL, NULL, &st));
    assert_int_equal(st, LD_EINVAL);
    char msg[128];
    assert_null(ld_integ_create_msg(NULL, NULL, NULL, msg, sizeof msg));
    assert_string_equal(msg, "no system");
    assert_int_equal(ld_integ_init(NULL, 0.0, NULL, NULL), LD_EINVAL);
    assert_int_equal(ld_integ_step(NULL, 0.1), LD_EINVAL);
    assert_int_equal(ld_integ_advance(NULL, 0.1), LD_EINVAL);
    assert_int_equal(ld_integ_advance_to(NULL, 0.1), LD_EINVAL);
    assert_int_equal(ld_integ_step_adaptive(NULL, 0.1), LD_EINVAL);
    assert_int_equal(ld_integ_la(NULL), LD_LA_DENSE);
    assert_int_equal(ld_integ_la_auto(NULL, NULL), LD_LA_DENSE);
    ld_integ_free(NULL);
}

/* With a live integrator: the NULL count pointer and stats pointer. */
static void test_integ_null_outputs(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    int st;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    assert_int_equal(ld_integ_step(it, 1e-3), LD_OK);
    assert_non_null(ld_integ_newton_history(it, NULL));
    assert_non_null(ld_integ_residual_history(it, NULL));
    ld_integ_get_stats(it, NULL);
    assert_int_equal(ld_integ_init(it, 0.0, NULL, v0), LD_EINVAL);
    assert_non_null(strstr(ld_integ_message(it), "no q0 or v0"));
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* ---------------------------------------------------------------- attitude, gyro, engine */

static void test_attitude_null(void **state) {
    (void)state;
    double t[2] = {0.0, 1.0}, w[6] = {0}, om[3];
    char msg[128] = "x";
    ld_gyro *g = (ld_gyro *)&msg; /* must be reset to NULL or left alone, never freed */
    assert_int_equal(ld_gyro_read("no-such-file.csv", NULL, msg, sizeof msg), LD_EINVAL);
    assert_non_null(strstr(msg, "no output pointer"));
    assert_int_equal(ld_gyro_read(NULL, &g, msg, sizeof msg), LD_EINVAL);
    assert_null(g);
    assert_int_equal(ld_gyro_read(NULL, &g, NULL, 0), LD_EINVAL);
    assert_int_equal(ld_gyro_create(NULL, t, w, 2), LD_EINVAL);
    assert_int_equal(ld_gyro_create(&g, NULL, w, 2), LD_EINVAL);
    assert_int_equal(ld_gyro_count(NULL), 0);
    assert_true(isnan(ld_gyro_t_first(NULL)));
    assert_true(isnan(ld_gyro_t_last(NULL)));
    assert_int_equal(ld_gyro_omega_fn(0.5, om, NULL), LD_EINVAL);
    assert_int_equal(ld_gyro_create(&g, t, w, 2), LD_OK);
    assert_int_equal(ld_gyro_omega_fn(0.5, NULL, g), LD_EINVAL);
    ld_gyro_free(g);
    ld_gyro_free(NULL);
    assert_int_equal(ld_att_case_omega_fn(0.0, om, NULL), LD_EINVAL);
    ld_att_case_omega_ctx bad = {NULL, LD_FRAME_BODY};
    assert_int_equal(ld_att_case_omega_fn(0.0, om, &bad), LD_EINVAL);
    ld_attitude_options_default(NULL);
    ld_att_metrics_init(NULL);
    double q[4] = {1, 0, 0, 0}, rl2[4];
    ld_att_metrics_add(NULL, 0.0, q, q, q, q, 4);
    ld_att_metrics_rl2(NULL, rl2);
    assert_true(isnan(rl2[0]));
    ld_att_metrics_rl2(NULL, NULL);
    ld_att_case_quat(NULL, 0.0, q);
    ld_att_case_omega(NULL, 0.0, LD_FRAME_BODY, om);
    ld_att_case_param(NULL, 0.0, LD_PARAM_QUAT, 0, q);
    assert_int_equal(ld_attitude_integrate(NULL, NULL, NULL, NULL, NULL), LD_EINVAL);
    ld_erk *e = (ld_erk *)&msg;
    assert_int_equal(ld_erk_create(NULL, NULL, NULL), LD_EINVAL);
    assert_int_equal(ld_erk_create(&e, NULL, NULL), LD_EINVAL);
    assert_null(e);
    ld_erk_options_default(NULL);
    assert_int_equal(ld_erk_integrate(NULL, NULL, 0.0, 1.0, NULL, NULL, NULL, NULL), LD_EINVAL);
    assert_true(ld_rk_order_residual(NULL, NULL, 1) < 0.0);
    assert_true(isnan(ld_rk_rowsum_residual(NULL)));
    assert_null(ld_rk_table_find(NULL));
}

/* ---------------------------------------------------------------- systems, linear algebra */

static void test_system_null(void **state) {
    (void)state;
    double x[16] = {0};
    assert_int_equal(ld_sys_g_v(NULL, 0.0, x, x, x), LD_EINVAL);
    assert_int_equal(ld_sys_stiffness(NULL, 0.0, x, x, x, x, x), LD_EINVAL);
    assert_int_equal(ld_sys_phi_dd(NULL, 0.0, x, x, x), LD_EINVAL);
    assert_int_equal(ld_sys_g_v_fd(NULL, 0.0, x, x, x), LD_EINVAL);
    assert_int_equal(ld_sys_stiffness_fd(NULL, 0.0, x, x, x, x, x), LD_EINVAL);
    assert_int_equal(ld_sys_phi_q_fd(NULL, 0.0, x, x), LD_EINVAL);
    assert_int_equal(ld_sys_phi_dd_fd(NULL, 0.0, x, x, x), LD_EINVAL);
    assert_int_equal(ld_sys_initial_accel(NULL, 0.0, x, x, x, x), LD_EINVAL);
    char msg[96];
    assert_int_equal(ld_sys_initial_accel_msg(NULL, 0.0, x, x, x, x, msg, sizeof msg), LD_EINVAL);
    assert_true(msg[0] != '\0');
    assert_int_equal(ld_sys_layout(NULL), LD_EINVAL);
    assert_int_equal(ld_sys_alloc_work(NULL), LD_EINVAL);
    ld_sys_free_work(NULL);
    assert_int_equal(ld_sys_reserve_fd(NULL, LD_SYS_FD_STIFFNESS), LD_EINVAL);
    assert_int_equal(ld_sys_fd_doubles(NULL, LD_SYS_FD_STIFFNESS), 0);
    assert_int_equal(ld_sys_fd_missing(NULL), 0);
    assert_int_equal(ld_sys_has_sparse(NULL), 0);
    assert_int_equal(ld_sys_mass_block_entries(NULL), 0);
    /* a system with its pointers but NULL outputs */
    ld_model m;
    tm_heavy_top(&m, 1.0);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    assert_int_equal(ld_sys_g_v(&s, 0.0, q0, v0, NULL), LD_EINVAL);
    assert_int_equal(ld_sys_phi_dd_fd(&s, 0.0, q0, v0, NULL), LD_EINVAL);
    assert_int_equal(ld_sys_initial_accel(&s, 0.0, q0, v0, NULL, NULL), LD_EINVAL);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    assert_int_equal(ld_la_solve(NULL, x), LD_EINVAL);
    assert_int_equal(ld_la_factor_dense(NULL, x), LD_EINVAL);
    assert_int_equal(ld_la_kind_find(NULL), -1);
    ld_runcheck c;
    assert_int_equal(ld_runcheck_init(NULL, NULL, 0.0), LD_EINVAL);
    assert_int_equal(ld_runcheck_init(&c, NULL, 0.0), LD_EINVAL);
    assert_int_equal(ld_runcheck_state(NULL, NULL, 0.0, x, x), LD_EINVAL);
    ld_runcheck_free(NULL);
    ld_runcheck_message(NULL, NULL, NULL, NULL, msg, sizeof msg);
    assert_string_equal(msg, "");
    assert_true(isnan(ld_model_constraint_length(NULL)));
    assert_true(isnan(ld_energy_drift_rel(NAN, 1.0, 1.0)));
    assert_true(ld_energy_drift_rel(0.0, 0.5, 0.0) == 0.5); /* every term 0: the absolute drift */
}

/* ---------------------------------------------------------------- quaternion normalization */

static void expect_unit(const double q[4], double w, double x, double y, double z) {
    double r[4], e[4] = {w, x, y, z};
    assert_int_equal(ld_quat_normalize(r, q), LD_OK);
    for (int i = 0; i < 4; ++i)
        if (!(fabs(r[i] - e[i]) <= 2.0 * EPS))
            fail_msg("normalize [%g %g %g %g]: component %d is %.17g, expected %.17g", q[0], q[1],
                     q[2], q[3], i, r[i], e[i]);
}

static void test_quat_normalize_scaled(void **state) {
    (void)state;
    const double h = sqrt(0.5), den = 4.9406564584124654e-324;
    expect_unit((double[4]){1e300, 1e300, 0, 0}, h, h, 0, 0);
    expect_unit((double[4]){1e-200, 0, 0, 0}, 1, 0, 0, 0);
    expect_unit((double[4]){0, -1e-200, 0, 1e-200}, 0, -h, 0, h);
    expect_unit((double[4]){den, den, 0, 0}, h, h, 0, 0);
    expect_unit((double[4]){0, 0, 3 * den, 0}, 0, 0, 1, 0);
    expect_unit((double[4]){DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX}, 0.5, 0.5, 0.5, 0.5);
    expect_unit((double[4]){1, 2, 2, 4}, 0.2, 0.4, 0.4, 0.8);
    double r[4] = {7, 7, 7, 7};
    assert_int_equal(ld_quat_normalize(r, (double[4]){0, 0, 0, 0}), LD_EDOMAIN);
    assert_int_equal(ld_quat_normalize(r, (double[4]){INFINITY, 0, 0, 0}), LD_EDOMAIN);
    assert_int_equal(ld_quat_normalize(r, (double[4]){1, NAN, 0, 0}), LD_EDOMAIN);
    assert_true(r[0] == 7 && r[3] == 7); /* untouched */
    double q[4] = {1e300, 0, 1e300, 0};  /* in place */
    assert_int_equal(ld_quat_normalize(q, q), LD_OK);
    assert_true(fabs(q[0] - h) <= EPS && fabs(q[2] - h) <= EPS);
}

/* The reader's orientation is the library's normalization, bit for bit. */
static void test_reader_normalization(void **state) {
    (void)state;
    const char *orients[] = {"[1e300, 1e300, 0, 0]", "[1e-200, 0, 0, 0]",
                             "[4.9406564584124654e-324, 4.9406564584124654e-324, 0, 0]",
                             "[0.3, -0.2, 0.9, 0.1]"};
    const double expect[][4] = {{1e300, 1e300, 0, 0},
                                {1e-200, 0, 0, 0},
                                {4.9406564584124654e-324, 4.9406564584124654e-324, 0, 0},
                                {0.3, -0.2, 0.9, 0.1}};
    for (int i = 0; i < 4; ++i) {
        char text[512];
        snprintf(text, sizeof text,
                 "name: q\nbodies:\n  - name: b\n    mass: 1\n    inertia: [1, 2, 3]\n    "
                 "position: [0, 0, 0]\n"
                 "    orientation: %s\nintegrator:\n  dt: 0.01\n  t_end: 1\n",
                 orients[i]);
        ld_model m;
        ld_model_error err;
        int rc = ld_model_parse(text, strlen(text), "q.yaml", &m, &err);
        if (rc) fail_msg("%s: %s", orients[i], err.msg);
        double r[4];
        assert_int_equal(ld_quat_normalize(r, expect[i]), LD_OK);
        assert_memory_equal(r, m.bodies[0].q, sizeof r);
        ld_model_free(&m);
    }
}

/* ---------------------------------------------------------------- options, status codes */

static int count_out(const ld_attitude_point *pt, void *user) {
    (void)pt;
    ++*(long *)user;
    return 0;
}

static void test_attitude_options(void **state) {
    (void)state;
    const ld_att_case *c = ld_att_case_find("ex1");
    ld_att_case_omega_ctx ctx = {c, LD_FRAME_BODY};
    ld_attitude_problem pb = {ld_att_case_omega_fn, &ctx, LD_FRAME_BODY, c->t0, c->t1,
                              {1, 0, 0, 0}};
    ld_attitude_options o;
    ld_attitude_stats st;
    ld_attitude_options_default(&o);
    o.error_rtol = -1.0;
    assert_int_equal(ld_attitude_integrate(&pb, &o, NULL, NULL, &st), LD_EINVAL);
    ld_attitude_options_default(&o);
    o.max_steps = -1;
    assert_int_equal(ld_attitude_integrate(&pb, &o, NULL, NULL, &st), LD_EINVAL);
    ld_attitude_options_default(&o);
    o.dt = NAN;
    assert_int_equal(ld_attitude_integrate(&pb, &o, NULL, NULL, &st), LD_EINVAL);
    ld_attitude_options_default(&o);
    o.error_atol = -1e-6;
    assert_int_equal(ld_attitude_integrate(&pb, &o, NULL, NULL, &st), LD_EINVAL);
    ld_attitude_options_default(&o);
    o.h_min = -1.0;
    assert_int_equal(ld_attitude_integrate(&pb, &o, NULL, NULL, &st), LD_EINVAL);
    /* the step limit has its own status, on every kind of method */
    const ld_att_method meths[] = {LD_ATT_MPQ, LD_ATT_MAGNUS4, LD_ATT_RK4, LD_ATT_ODE45};
    for (size_t i = 0; i < sizeof meths / sizeof meths[0]; ++i) {
        ld_attitude_options_default(&o);
        o.method = meths[i];
        o.max_steps = 5;
        long outs = 0;
        int rc = ld_attitude_integrate(&pb, &o, count_out, &outs, &st);
        if (rc != LD_ETOOMUCHWORK)
            fail_msg("%s: status %d (%s)", ld_att_method_name(meths[i]), rc, ld_strerror(rc));
        assert_true(st.t_reached < pb.t1);
        assert_true(st.steps <= 5);
    }
    assert_string_equal(ld_strerror(LD_ETOOMUCHWORK), "too much work: step limit reached");
}

static int rhs_one(double t, const double *x, double *v, void *user) {
    (void)t, (void)x, (void)user;
    v[0] = 1.0;
    return 0;
}

static void test_erk_options(void **state) {
    (void)state;
    ld_erk_space sp = {1, 1, rhs_one, NULL, NULL, NULL, NULL, NULL};
    ld_erk *e;
    assert_int_equal(ld_erk_create(&e, &sp, ld_rk_table_find("dopri5")), LD_OK);
    ld_erk_options o;
    double x[1] = {0.0};
    ld_erk_options_default(&o);
    o.error_rtol = -1.0;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, NULL, NULL, NULL), LD_EINVAL);
    ld_erk_options_default(&o);
    o.max_steps = -1;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, NULL, NULL, NULL), LD_EINVAL);
    ld_erk_options_default(&o);
    o.h_min = NAN;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, NULL, NULL, NULL), LD_EINVAL);
    ld_erk_options_default(&o);
    o.adaptive = 0;
    o.h_init = 0.01;
    o.max_steps = 10;
    ld_erk_stats st;
    assert_int_equal(ld_erk_integrate(e, &o, 0.0, 1.0, x, NULL, NULL, &st), LD_ETOOMUCHWORK);
    assert_int_equal(st.steps, 10);
    assert_true(fabs(x[0] - 0.1) < 1e-12);
    ld_erk_free(e);
}

/* ---------------------------------------------------------------- compile validates */

static void expect_refused(ld_model *m, const char *what) {
    char msg[512];
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    assert_int_equal(ld_model_compile(m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_EINVAL);
    assert_null(q0);
    assert_int_equal(ld_model_check_initial(m, msg, sizeof msg), LD_EINVAL);
    if (!strstr(msg, what)) fail_msg("expected '%s' in: %s", what, msg);
}

static void test_compile_validates(void **state) {
    (void)state;
    ld_model m;
    tm_loaded(&m);
    m.loads = NULL; /* nloads = 6 */
    expect_refused(&m, "loads: count 6 does not match the array");
    tm_loaded(&m);
    m.nloads = 2;
    m.loads = NULL;
    expect_refused(&m, "loads: count 2");
    tm_loaded(&m);
    tm_loads[0].body = -5;
    expect_refused(&m, "loads[0].body");
    tm_loaded(&m);
    tm_bodies[1].mass = -1.0;
    expect_refused(&m, "bodies[1].mass");
    tm_loaded(&m);
    tm_bodies[0].inertia[0] = NAN;
    expect_refused(&m, "bodies[0].inertia");
    /* the run block is not compile's business: a model built in code without one compiles */
    tm_heavy_top(&m, 1.0);
    m.run.fac = 0.0;
    char msg[256];
    assert_int_equal(ld_model_check_initial(&m, msg, sizeof msg), LD_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integ_null),
        cmocka_unit_test(test_integ_null_outputs),
        cmocka_unit_test(test_attitude_null),
        cmocka_unit_test(test_system_null),
        cmocka_unit_test(test_quat_normalize_scaled),
        cmocka_unit_test(test_reader_normalization),
        cmocka_unit_test(test_attitude_options),
        cmocka_unit_test(test_erk_options),
        cmocka_unit_test(test_compile_validates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#define _POSIX_C_SOURCE 200809L
/*
 * Actuators (src/elements/el_actuator.c, src/compile/actuators.c, src/sys/integ_sample.c,
 * docs/actuators.md) against exact solutions: a pendulum held by a constant torque at
 * m g l sin θ = τ; a PD servo on a free hinge as the damped oscillator I θ̈ + kv θ̇ + kp θ =
 * kp θ_ref (a step, and a ramp through three turns) at genalpha's order 2; a saturated motor's
 * constant acceleration τmax/I; a table input read from a CSV file (and its errors, by file and
 * line); a discrete PD controller with zero-order hold against the exact sampled-data
 * recurrence, its steps landing on the sample instants. Tangents: tests/test_elements.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#include "liedyn/actuator.h"
#include "liedyn/coords.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

/* A disk on a hinge about z at the origin (I = 0.2 about the axis), no gravity; ACT is the
 * actuator's item (its keys after "type: actuator, joint: hinge"). */
#define HINGE_I 0.2
static void hinge_text(char *text, size_t n, const char *keys) {
    snprintf(text, n,
             "name: hinge\n"
             "bodies:\n"
             "  - {name: disk, mass: 1, inertia: [0.5, 0.5, 0.2], position: [0, 0, 0]}\n"
             "joints:\n"
             "  - {name: hinge, type: revolute, body1: ground, body2: disk,\n"
             "     at: [0, 0, 0], axis: [0, 0, 1]}\n"
             "elements:\n"
             "  - {name: motor, type: actuator, joint: hinge, %s}\n"
             "integrator: {name: genalpha, dt: 1e-3, t_end: 1}\n",
             keys);
}

typedef struct run {
    ld_model m;
    ld_system s;
    double *q0, *v0;
    ld_integ *it;
} run;

/* Read the hinge model with the actuator's keys, compile it, make an integrator of method meth
 * (NULL: genalpha). */
static void run_open_with(run *r, const char *keys, const char *meth) {
    char text[2048];
    ld_model_error err;
    hinge_text(text, sizeof text, keys);
    if (ld_model_parse(text, strlen(text), "hinge.yaml", &r->m, &err)) fail_msg("%s", err.msg);
    char msg[256];
    int st = ld_model_compile_msg(&r->m, LD_FORM_SO3XR3, &r->s, &r->q0, &r->v0, msg, sizeof msg);
    if (st) fail_msg("%s", msg);
    ld_integ_options o;
    ld_integ_options_init(&o);
    if (meth) o.method = (ld_integ_method)ld_integ_method_find(meth);
    r->it = ld_integ_create(&r->s, &o, &st);
    assert_non_null(r->it);
    assert_int_equal(ld_integ_init(r->it, 0.0, r->q0, r->v0), LD_OK);
}

static void run_open(run *r, const char *keys) {
    run_open_with(r, keys, NULL);
}

static void run_close(run *r) {
    ld_integ_free(r->it);
    free(r->q0);
    free(r->v0);
    ld_model_system_free(&r->s);
    ld_model_free(&r->m);
}

/* The hinge angle of the current state, continued from prev. */
static double angle(const run *r, double prev, double *rate) {
    double c[3], cd[3];
    int n;
    assert_int_equal(ld_model_joint_coords(&r->s, 0, ld_integ_t(r->it), ld_integ_q(r->it),
                                           ld_integ_v(r->it), c, cd, &n),
                     LD_OK);
    if (rate) *rate = cd[0];
    return ld_joint_angle_unwrap(c[0], prev);
}

/* e(t) of I ë + kv ė + kp e = 0 from e(0) = e0, ė(0) = d0 (underdamped). */
static double damped(double t, double kp, double kv, double e0, double d0) {
    double sg = kv / (2.0 * HINGE_I), wd = sqrt(kp / HINGE_I - sg * sg);
    return exp(-sg * t) * (e0 * cos(wd * t) + (d0 + sg * e0) / wd * sin(wd * t));
}

/* ---------------------------------------------------------------- a pendulum held by a torque */

static void test_static_torque(void **state) {
    (void)state;
    const double m = 2.0, l = 0.5, g = 9.81, tau = 3.0;
    const char *text =
        "name: pendulum\n"
        "gravity: [0, -9.81, 0]\n"
        "bodies:\n"
        "  - {name: arm, mass: 2, inertia: [0.1, 0.1, 0.1], position: [0, -0.5, 0]}\n"
        "joints:\n"
        "  - {name: pivot, type: revolute, body1: ground, body2: arm,\n"
        "     at: [0, 0, 0], axis: [0, 0, 1]}\n"
        "elements:\n"
        "  - {type: actuator, joint: pivot, input: force, value: 3}\n";
    ld_model md;
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "pendulum.yaml", &md, &err)) fail_msg("%s", err.msg);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&md, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    double *lam = calloc((size_t)s.m, sizeof *lam);
    ld_static_options o;
    ld_static_options_init(&o);
    char msg[256];
    if (ld_static_solve(&s, 0.0, q0, lam, &o, NULL, msg, sizeof msg)) fail_msg("%s", msg);
    double c[3], cd[3], f;
    int n;
    assert_int_equal(ld_model_joint_coords(&s, 0, 0.0, q0, v0, c, cd, &n), LD_OK);
    double exact = asin(tau / (m * g * l));
    print_message("pendulum under a torque of %g N m: angle %.15f, exact asin(tau/(m g l)) %.15f, "
                  "error %.1e\n",
                  tau, c[0], exact, fabs(c[0] - exact));
    assert_true(fabs(c[0] - exact) < 1e-10);
    assert_int_equal(ld_sys_actuator_state(&s, 0, 0.0, q0, v0, NULL, NULL, &f, NULL), LD_OK);
    assert_true(f == tau);
    free(lam);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&md);
}

/* ---------------------------------------------------------------- the PD servo */

/* The largest angle error over [0, T] of the servo `keys` at step h against exact(t). */
static double servo_error(const char *keys, double h, double T, double kp, double kv, double e0,
                          double d0, double w) {
    run r;
    run_open(&r, keys);
    if (strstr(keys, "reference: control")) { /* the step's reference from outside */
        assert_int_equal(ld_sys_set_control(&r.s, 0, -e0), LD_OK);
        assert_int_equal(ld_integ_restart(r.it), LD_OK);
    }
    double th = 0.0, err = 0.0;
    int n = (int)lround(T / h);
    for (int i = 1; i <= n; ++i) {
        assert_int_equal(ld_integ_advance_to(r.it, i * h), LD_OK);
        th = angle(&r, th, NULL);
        double t = ld_integ_t(r.it);
        double ex = w * t + damped(t, kp, kv, e0, d0) + (w == 0.0 ? -e0 : 0.0);
        err = fmax(err, fabs(th - ex));
    }
    run_close(&r);
    return err;
}

static void test_servo_oscillator(void **state) {
    (void)state;
    const double kp = 20.0, kv = 1.0, ref = 1.2, w = 2.0 * PI;
    const char *step = "input: position, kp: 20, kv: 1, value: 1.2";
    const char *ramp = "input: position, kp: 20, kv: 1, value: 6.283185307179586, "
                       "time: {shape: linear}";
    const char *fromc = "input: position, reference: control, kp: 20, kv: 1";
    const double hs[3] = {4e-3, 2e-3, 1e-3};
    const char *what[3] = {"step of 1.2 rad", "ramp through 3 turns", "step set as control"};
    for (int c = 0; c < 3; ++c) {
        double e[3];
        for (int i = 0; i < 3; ++i)
            e[i] = c == 0   ? servo_error(step, hs[i], 2.0, kp, kv, -ref, 0.0, 0.0)
                   : c == 1 ? servo_error(ramp, hs[i], 3.0, kp, kv, 0.0, -w, w)
                            : servo_error(fromc, hs[i], 2.0, kp, kv, -ref, 0.0, 0.0);
        double p = log2(e[1] / e[2]);
        print_message(
            "PD servo, %s: max angle error %.2e %.2e %.2e at h = 4, 2, 1 ms, order %.2f\n", what[c],
            e[0], e[1], e[2], p);
        assert_true(p > 1.9 && p < 2.1);
        assert_true(e[2] < 1e-4);
    }
}

/* ---------------------------------------------------------------- saturation */

static void test_saturated_motor(void **state) {
    (void)state;
    run r;
    run_open(&r, "input: force, value: 10, force_limits: [-2, 2.5]");
    double th = 0.0, err = 0.0, f;
    for (int i = 1; i <= 1000; ++i) {
        assert_int_equal(ld_integ_advance_to(r.it, i * 1e-3), LD_OK);
        th = angle(&r, th, NULL);
        double t = ld_integ_t(r.it);
        err = fmax(err, fabs(th - 0.5 * 2.5 / HINGE_I * t * t));
    }
    assert_int_equal(ld_sys_actuator_state(&r.s, 0, 1.0, ld_integ_q(r.it), ld_integ_v(r.it), NULL,
                                           NULL, &f, NULL),
                     LD_OK);
    print_message("saturated motor: angle %.6f rad after 1 s (exact %.6f), max error %.1e, "
                  "force %g\n",
                  th, 0.5 * 2.5 / HINGE_I, err, f);
    assert_true(f == 2.5);
    assert_true(err < 1e-9);
    run_close(&r);
}

/* A velocity servo through a gear g on the free hinge: I θ̈ = g kv (c − g θ̇), so
 * θ = (c/g)(t − (1 − e^(−λt))/λ) with λ = g² kv / I. */
static void test_velocity_servo(void **state) {
    (void)state;
    const double c = 3.0, g = 2.0, kv = 0.1, lam = g * g * kv / HINGE_I;
    run r;
    run_open(&r, "input: velocity, kv: 0.1, value: 3, gear: 2");
    double th = 0.0, err = 0.0;
    for (int i = 1; i <= 2000; ++i) {
        assert_int_equal(ld_integ_advance_to(r.it, i * 1e-3), LD_OK);
        th = angle(&r, th, NULL);
        double t = ld_integ_t(r.it);
        err = fmax(err, fabs(th - c / g * (t - (1.0 - exp(-lam * t)) / lam)));
    }
    print_message("velocity servo, gear 2: angle %.6f rad at t = 2 s, max error %.1e (h = 1 ms)\n",
                  th, err);
    assert_true(err < 1e-5);
    run_close(&r);
}

/* ---------------------------------------------------------------- tables */

/* Write text to dir/name. */
static void put_file(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Load dir/model.yaml: the status, the message in msg. */
static int load(const char *dir, ld_model *m, char *msg, size_t n) {
    char path[512];
    ld_model_error err;
    snprintf(path, sizeof path, "%s/model.yaml", dir);
    int rc = ld_model_load(path, m, &err);
    snprintf(msg, n, "%s", rc ? err.msg : "");
    return rc;
}

static void test_table(void **state) {
    (void)state;
    char dir[] = "/tmp/ld_act_XXXXXX", text[2048], msg[600];
    assert_non_null(mkdtemp(dir));
    hinge_text(text, sizeof text, "input: table, file: u.csv, gear: 2");
    put_file(dir, "model.yaml", text);
    put_file(dir, "u.csv", "t, u\n# a comment\n0, 1\n0.5, 3\n\n1.5, -1\n");
    ld_model m;
    if (load(dir, &m, msg, sizeof msg)) fail_msg("%s", msg);
    ld_system s;
    double *q0, *v0, f;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    const double ts[5] = {-1.0, 0.25, 0.5, 1.0, 2.0}, us[5] = {1.0, 2.0, 3.0, 1.0, -1.0};
    for (int i = 0; i < 5; ++i) {
        assert_int_equal(ld_sys_actuator_state(&s, 0, ts[i], q0, v0, NULL, NULL, &f, NULL), LD_OK);
        assert_true(fabs(f - us[i]) < 1e-15);
    }
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
    /* bad rows: the file and its line */
    put_file(dir, "u.csv", "t, u\n0, 1\n0.5, x\n");
    assert_int_equal(load(dir, &m, msg, sizeof msg), LD_EINVAL);
    print_message("%s\n", msg);
    assert_non_null(strstr(msg, "u.csv:3: expected two finite numbers"));
    assert_non_null(strstr(msg, "elements[0].file"));
    put_file(dir, "u.csv", "0, 1\n0.5, 2\n0.5, 3\n");
    assert_int_equal(load(dir, &m, msg, sizeof msg), LD_EINVAL);
    assert_non_null(strstr(msg, "u.csv:3: times must increase strictly"));
    put_file(dir, "u.csv", "0, 1\n");
    assert_int_equal(load(dir, &m, msg, sizeof msg), LD_EINVAL);
    assert_non_null(strstr(msg, "a table needs at least 2 rows"));
    hinge_text(text, sizeof text, "input: table, file: none.csv");
    put_file(dir, "model.yaml", text);
    assert_int_equal(load(dir, &m, msg, sizeof msg), LD_EINVAL);
    assert_non_null(strstr(msg, "cannot open"));
    char path[600];
    const char *names[3] = {"model.yaml", "u.csv", ""};
    for (int i = 0; i < 2; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    rmdir(dir);
}

/* ---------------------------------------------------------------- the model's checks */

static void test_reader_errors(void **state) {
    (void)state;
    const struct {
        const char *keys, *want;
    } bad[] = {
        {"input: position, kp: -1", "kp: must be finite and >= 0"},
        {"input: force, kp: 1", "kp: not a key of input 'force'"},
        {"input: control, value: 2", "value: not a key of input 'control'"},
        {"input: force, gear: 0", "gear: must be finite and non-zero"},
        {"input: force, force_limits: [1, -1]", "force_limits: must be [lo, hi] with lo < hi"},
        {"input: torque", "input"},
        {"input: force, body2: disk", "body2"},
        /* times that differ in the last digit are printed apart */
        {"input: force, value: 1, time: {shape: ramp, t0: 1.0000000000000002, t1: 1}",
         "time.t1: must be greater than t0 (t0 = 1.0000000000000002, t1 = 1)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        char text[2048];
        ld_model m;
        ld_model_error err;
        hinge_text(text, sizeof text, bad[i].keys);
        int rc = ld_model_parse(text, strlen(text), "hinge.yaml", &m, &err);
        if (rc == LD_OK) {
            ld_model_free(&m);
            fail_msg("'%s' was accepted", bad[i].keys);
        }
        if (!strstr(err.msg, bad[i].want)) fail_msg("'%s': %s", bad[i].keys, err.msg);
        assert_int_equal(err.line, 8);
    }
    /* the joint must be a revolute or prismatic one */
    const char *sph = "name: ball\nbodies:\n  - {name: b, mass: 1, inertia: [1, 1, 1]}\n"
                      "joints:\n  - {name: j, type: spherical, body1: ground, body2: b, at: [0, 0, "
                      "0]}\nelements:\n  - {type: actuator, joint: j, input: control}\n";
    ld_model m;
    ld_model_error err;
    assert_int_equal(ld_model_parse(sph, strlen(sph), "ball.yaml", &m, &err), LD_EINVAL);
    assert_non_null(strstr(err.msg, "needs a revolute or prismatic joint"));
}

/* ---------------------------------------------------------------- the sampled controller */

/* A discrete PD law u = KP (REF − θ_k) − KD θ̇_k on the sampled sensors, with its log. */
static const double KP = 4.0, KD = 0.9, REF = 1.0, PERIOD = 0.05;
typedef struct pd_log {
    int n;
    double t[64], th[64], thd[64], u[64], sensed_f[64];
} pd_log;

static int pd_law(double t, const double *q, const double *v, const double *sensors, double *u,
                  void *user) {
    (void)q;
    (void)v;
    pd_log *lg = user;
    if (lg->n < 64) {
        lg->t[lg->n] = t, lg->th[lg->n] = sensors[0], lg->thd[lg->n] = sensors[1];
        lg->sensed_f[lg->n] = sensors[2];
    }
    u[0] = KP * (REF - sensors[0]) - KD * sensors[1];
    if (lg->n < 64) lg->u[lg->n] = u[0];
    lg->n++;
    return 0;
}

/* With steps of h (not dividing the period), the controller's samples against the exact
 * recurrence of the double integrator under a held input: θ' = θ + T θ̇ + T² u/(2I),
 * θ̇' = θ̇ + T u/I; the input seen by every step constant between the samples. */
static void check_pd(double h, int use_step, const char *meth) {
    run r;
    pd_log lg = {0};
    run_open_with(&r, "input: control, force_limits: [-3, 3]", meth);
    assert_int_equal(ld_integ_set_controller(r.it, PERIOD, pd_law, &lg), LD_OK);
    double th = 0.0, thd = 0.0, err = 0.0, uprev = NAN, tprev = 0.0;
    int jumps = 0, off_instant = 0;
    while (ld_integ_t(r.it) < 1.0 - 1e-12) {
        int rc = use_step ? ld_integ_step(r.it, h)
                          : ld_integ_advance_to(r.it, fmin(1.0, ld_integ_t(r.it) + h));
        assert_int_equal(rc, LD_OK);
        double u;
        assert_int_equal(ld_sys_get_control(&r.s, 0, &u), LD_OK);
        /* the input changes only at a sample instant: the start of the step just taken (each
         * call of advance_to may hold several steps) */
        if (use_step && !isnan(uprev) && u != uprev) {
            ++jumps;
            double k = tprev / PERIOD;
            if (fabs(k - round(k)) > 1e-9) ++off_instant;
        }
        uprev = u;
        tprev = ld_integ_t(r.it);
    }
    /* the exact sampled-data solution at the instants */
    for (int k = 0; k < lg.n && k < 20; ++k) {
        err = fmax(err, fmax(fabs(lg.th[k] - th), fabs(lg.thd[k] - thd)));
        assert_true(fabs(lg.t[k] - k * PERIOD) < 1e-12);
        double u = fmin(3.0, fmax(-3.0, KP * (REF - th) - KD * thd));
        assert_true(fabs(lg.u[k] - KP * (REF - lg.th[k]) + KD * lg.thd[k]) < 1e-15);
        if (k > 0) assert_true(fabs(lg.sensed_f[k] - fmin(3.0, fmax(-3.0, lg.u[k - 1]))) < 1e-14);
        th += PERIOD * thd + 0.5 * PERIOD * PERIOD * u / HINGE_I;
        thd += PERIOD * u / HINGE_I;
    }
    print_message("discrete PD (T = %g s, %s, %s h = %g s): %d samples, max error against the "
                  "exact recurrence %.1e, input changes %d (off an instant %d)\n",
                  PERIOD, meth ? meth : "genalpha", use_step ? "ld_integ_step" : "advance_to", h,
                  lg.n, err, jumps, off_instant);
    assert_int_equal(lg.n, 20);
    assert_int_equal(ld_integ_controller_samples(r.it), 20);
    assert_int_equal(off_instant, 0);
    assert_true(!use_step || jumps >= 10);
    assert_true(err < 1e-9);
    run_close(&r);
}

static void test_controller(void **state) {
    (void)state;
    check_pd(0.0073, 0, NULL);
    check_pd(0.0073, 1, NULL);
    check_pd(0.05, 1, NULL);
    const char *meths[] = {"newmark", "hht", "hem2", "hem5"};
    for (int i = 0; i < 4; ++i) check_pd(0.0073, 0, meths[i]);
    /* a system without actuators takes no controller */
    run r;
    pd_log lg = {0};
    run_open(&r, "input: control");
    assert_int_equal(ld_integ_set_controller(r.it, 0.0, pd_law, &lg), LD_EINVAL);
    assert_int_equal(ld_integ_set_controller(r.it, 0.1, NULL, NULL), LD_OK);
    assert_int_equal(ld_sys_set_control(&r.s, 1, 0.0), LD_EINVAL);
    assert_int_equal(ld_sys_set_control(&r.s, 0, NAN), LD_EINVAL);
    assert_int_equal(ld_sys_actuator_count(&r.s), 1);
    run_close(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_torque),  cmocka_unit_test(test_servo_oscillator),
        cmocka_unit_test(test_velocity_servo), cmocka_unit_test(test_saturated_motor),
        cmocka_unit_test(test_table),          cmocka_unit_test(test_reader_errors),
        cmocka_unit_test(test_controller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The power of loads and drivers (ld_model_power): integrated along a run (trapezoidal rule over
 * the steps) it is the change of T + V, so the energy balance T + V − E₀ − W stays at the
 * integrator's error — for a free body under a constant force and torque (body and spatial
 * frames) and gravity (in V, not in W), and for a pendulum turned at constant rate by a rotation
 * driver against gravity (the driver's work through λᵀ ∂Φ/∂t). Without W the balance would be off
 * by the work itself.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* Run the model text with genalpha (rho_inf 0.9) at step h to t_end; the largest
 * |T + V − E₀ − W| over the steps and the final |W|. */
static void balance(const char *text, ld_formulation f, double h, double t_end, double *bal,
                    double *work) {
    ld_model m;
    ld_model_error e;
    if (ld_model_parse(text, strlen(text), "power.yaml", &m, &e) != LD_OK) fail_msg("%s", e.msg);
    ld_system s;
    double *q0, *v0;
    char msg[512];
    if (ld_model_compile_msg(&m, f, &s, &q0, &v0, msg, sizeof msg)) fail_msg("%s", msg);
    ld_integ_options o;
    ld_integ_options_init(&o);
    assert_int_equal(ld_integ_options_from_model(&m, &o), LD_OK);
    int rc = 0;
    ld_integ *it = ld_integ_create(&s, &o, &rc);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    double *scratch = calloc((size_t)s.m + 1, sizeof *scratch);
    double E0 = ld_sys_energy(&s, 0.0, q0, v0), W = 0.0, P0, P1;
    assert_int_equal(
        ld_model_power(&s, 0.0, ld_integ_q(it), ld_integ_v(it), ld_integ_lambda(it), scratch, &P0),
        LD_OK);
    *bal = 0.0;
    int n = (int)lround(t_end / h);
    for (int k = 1; k <= n; ++k) {
        assert_int_equal(ld_integ_step(it, h), LD_OK);
        double t = k * h;
        assert_int_equal(ld_model_power(&s, t, ld_integ_q(it), ld_integ_v(it), ld_integ_lambda(it),
                                        scratch, &P1),
                         LD_OK);
        W += 0.5 * h * (P0 + P1);
        P0 = P1;
        double E = ld_sys_energy(&s, t, ld_integ_q(it), ld_integ_v(it));
        *bal = fmax(*bal, fabs(E - E0 - W));
    }
    *work = fabs(W);
    free(scratch);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

static void test_free_body(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, 0, -9.81]\n"
        "bodies:\n"
        "  - {name: b, mass: 2, inertia: [0.3, 0.5, 0.7], position: [0, 0, 0],\n"
        "     angular_velocity: [1, 0.2, 0.1], velocity: [0.5, 0, 0]}\n"
        "loads:\n"
        "  - {body: b, type: force, frame: spatial, value: [1, 2, 0]}\n"
        "  - {body: b, type: torque, frame: body, value: [0, 0, 0.3]}\n"
        "  - {body: b, type: force, frame: body, value: [0, 0.5, 0]}\n"
        "  - {body: b, type: torque, frame: spatial, value: [0.1, 0, 0], time: {shape: ramp, t0: "
        "0, t1: 1}}\n"
        "integrator: {name: genalpha, rho_inf: 0.9}\n";
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        double w1, w2, W1, W2;
        balance(text, (ld_formulation)f, 2e-3, 2.0, &w1, &W1);
        balance(text, (ld_formulation)f, 1e-3, 2.0, &w2, &W2);
        /* second order: the balance error falls 4× with h; W itself is of order 1 */
        if (!(W1 > 1.0 && w1 < 1e-3 * W1 && w2 < 0.4 * w1))
            fail_msg("%s: W %.4g, balance %.3g at h = 2e-3, %.3g at 1e-3",
                     ld_formulation_name((ld_formulation)f), W1, w1, w2);
    }
}

static void test_driven_pendulum(void **state) {
    (void)state;
    static const char *const text =
        "gravity: [0, -9.81, 0]\n"
        "bodies:\n"
        "  - {name: arm, mass: 1, inertia: [0.001, 0.08, 0.08], position: [0.5, 0, 0]}\n"
        "joints:\n"
        "  - {type: revolute, body1: ground, body2: arm, at: [0, 0, 0], axis: [0, 0, 1]}\n"
        "  - {type: driver, body1: ground, body2: arm, axis: [0, 0, 1], motion: rotation,\n"
        "     value: 2, time: {shape: linear, t0: 0}}\n"
        "integrator: {name: genalpha, rho_inf: 0.9}\n";
    double w1, w2, W1, W2;
    balance(text, LD_FORM_SO3XR3, 2e-3, 1.5, &w1, &W1);
    balance(text, LD_FORM_SO3XR3, 1e-3, 1.5, &w2, &W2);
    /* at constant rate T stays, V = m g y changes by m g 0.5 sin(3): the driver's work */
    if (!(W1 > 0.5 && w1 < 1e-3 * W1 && w2 < 0.5 * w1))
        fail_msg("driven pendulum: W %.4g, balance %.3g at h = 2e-3, %.3g at 1e-3", W1, w1, w2);
    assert_true(fabs(W2 - 9.81 * 0.5 * sin(3.0)) < 1e-3);
}

/* Bad arguments are refused. */
static void test_arguments(void **state) {
    (void)state;
    double P, x[8] = {0};
    assert_int_equal(ld_model_power(NULL, 0.0, x, x, NULL, NULL, &P), LD_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_body),
        cmocka_unit_test(test_driven_pendulum),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The step-size controller (controller.h): both rules, against their formulas. */
#include <math.h>

#include "support.h"

#include "liedyn/controller.h"

static void test_i_rule(void **state) {
    (void)state;
    ld_ctrl c;
    ld_ctrl_init(&c, LD_CTRL_I, 4);
    /* accepted: h · min(5, max(0.2, 0.8 err^(−1/5))) */
    double err = 0.3, want = 0.1 * 0.8 * pow(err, -0.2);
    assert_true(fabs(ld_ctrl_accepted(&c, 0.1, err, 0.1) - want) < 1e-15);
    assert_true(ld_ctrl_accepted(&c, 0.1, 1e-30, 0.1) == 0.5); /* growth at most 5 */
    assert_true(ld_ctrl_accepted(&c, 0.1, 0.0, 0.1) == 0.5);   /* an exact step too */
    assert_true(fabs(ld_ctrl_accepted(&c, 0.1, 1.0, 0.1) - 0.08) < 1e-15);
    /* rejected by the estimate: shrink, never below 0.2 h; then facmax = 1 once */
    double h = ld_ctrl_rejected(&c, 0.1, 3.0, 0);
    assert_true(fabs(h - 0.1 * 0.8 * pow(3.0, -0.2)) < 1e-15);
    assert_true(ld_ctrl_rejected(&c, 0.1, 1e30, 0) == 0.1 * 0.2);
    assert_true(ld_ctrl_accepted(&c, 0.1, 1e-30, 0.1) == 0.1); /* right after a rejection */
    assert_true(ld_ctrl_accepted(&c, 0.1, 1e-30, 0.1) == 0.5); /* then free again */
    /* a step cut short to land on an end time keeps the proposal */
    assert_true(ld_ctrl_accepted(&c, 0.01, 0.01, 0.1) == 0.1);
    assert_true(ld_ctrl_accepted(&c, 0.01, 100.0, 0.1) < 0.01); /* unless the error says no */
}

static void test_i_rule_caps_after_a_failed_solve(void **state) {
    (void)state;
    ld_ctrl c;
    ld_ctrl_init(&c, LD_CTRL_I, 2);
    assert_true(ld_ctrl_rejected(&c, 0.4, NAN, 1) == 0.2);
    assert_true(ld_ctrl_bound(&c, 1.0) == 0.2); /* capped at the halved step */
    assert_true(ld_ctrl_bound(&c, 0.1) == 0.1);
    (void)ld_ctrl_accepted(&c, 0.2, 0.01, 0.2);
    assert_true(fabs(ld_ctrl_bound(&c, 1.0) - 0.25) < 1e-15); /* relaxes by 1.25 per step */
    (void)ld_ctrl_accepted(&c, 0.25, 0.01, 0.25);
    assert_true(fabs(ld_ctrl_bound(&c, 1.0) - 0.3125) < 1e-15);
}

static void test_matlab_rule(void **state) {
    (void)state;
    ld_ctrl c;
    ld_ctrl_init(&c, LD_CTRL_MATLAB, 4);
    /* accepted: h / max(0.2, 1.25 err^(1/5)) */
    double err = 0.5;
    assert_true(fabs(ld_ctrl_accepted(&c, 0.1, err, 0.1) - 0.1 / (1.25 * pow(err, 0.2))) < 1e-15);
    assert_true(ld_ctrl_accepted(&c, 0.1, 1e-12, 0.1) == 0.5);
    /* first rejection: shrink by max(0.1, 0.8 err^(−1/5)); further ones halve */
    double h = ld_ctrl_rejected(&c, 0.1, 2.0, 0);
    assert_true(fabs(h - 0.1 * 0.8 * pow(0.5, 0.2)) < 1e-15);
    assert_true(ld_ctrl_rejected(&c, h, 2.0, 0) == 0.5 * h);
    assert_true(ld_ctrl_accepted(&c, 0.05, 1e-12, 0.05) == 0.05); /* no growth after failure */
    c.shrink_min = 0.5;                                           /* ode23's bound */
    assert_true(ld_ctrl_rejected(&c, 0.1, 1e30, 0) == 0.05);
    (void)ld_ctrl_accepted(&c, 0.05, 0.5, 0.05);
    assert_true(ld_ctrl_rejected(&c, 0.1, INFINITY, 0) == 0.05); /* no estimate: halve */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_i_rule),
        cmocka_unit_test(test_i_rule_caps_after_a_failed_solve),
        cmocka_unit_test(test_matlab_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

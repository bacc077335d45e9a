/*
 * The public API's conveniences: bodies and joints by name, the model's integrator block as
 * integrator options (what `liedyn run` uses), and the energy and constraint violation of a
 * state behind named functions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

static void load(ld_model *m, const char *rel) {
    char p[512];
    ld_model_error e;
    snprintf(p, sizeof p, "%s/%s", LD_SOURCE_DIR, rel);
    if (ld_model_load(p, m, &e) != LD_OK) fail_msg("%s", e.msg);
}

static void test_find(void **state) {
    (void)state;
    ld_model m;
    load(&m, "models/heavy-top.yaml");
    assert_int_equal(ld_model_body_find(&m, "top"), 0);
    assert_int_equal(ld_model_body_find(&m, "Top"), -1);
    assert_int_equal(ld_model_joint_find(&m, "pivot"), 0);
    assert_int_equal(ld_model_joint_find(&m, ""), -1);
    assert_int_equal(ld_model_body_find(NULL, "top"), -1);
    assert_int_equal(ld_model_joint_find(&m, NULL), -1);
    ld_model_free(&m);
    load(&m, "models/roll-up.yaml"); /* a rod's nodes are bodies named ROD[i] */
    assert_true(ld_model_body_find(&m, "rod[3]") >= 0);
    ld_model_free(&m);
}

static void test_options_from_model(void **state) {
    (void)state;
    const char *text = "bodies:\n  - {name: a, mass: 1, inertia: [1, 2, 3], position: [0, 0, 0]}\n"
                       "integrator:\n  name: tb3\n  dt: 0.02\n  adaptive: true\n"
                       "  error_atol: 1e-7\n  error_rtol: 1e-5\n  newton_atol: 1e-6\n"
                       "  max_iter: 7\n  facmax: 3\n";
    ld_model m;
    ld_model_error e;
    ld_integ_options o;
    assert_int_equal(ld_model_parse(text, strlen(text), "t.yaml", &m, &e), LD_OK);
    assert_int_equal(ld_integ_options_from_model(&m, &o), LD_OK);
    assert_int_equal(o.method, ld_integ_method_find("tb3"));
    assert_int_equal(o.adaptive, 1);
    assert_true(o.error_atol == 1e-7 && o.error_rtol == 1e-5 && o.h_init == 0.02);
    assert_true(o.newton_atol == 1e-9); /* 1/100 of the error tolerance, tighter than 1e-6 */
    assert_true(o.max_iter == 7 && o.facmax == 3.0 && o.la == LD_LA_AUTO);
    ld_model_free(&m);
    text = "bodies:\n  - {name: a, mass: 1, inertia: [1, 2, 3], position: [0, 0, 0]}\n"
           "integrator: {name: genalpha, rho_inf: 0.6}\n";
    assert_int_equal(ld_model_parse(text, strlen(text), "t.yaml", &m, &e), LD_OK);
    assert_int_equal(ld_integ_options_from_model(&m, &o), LD_OK);
    assert_true(o.method == LD_INTEG_GENALPHA && o.rho_inf == 0.6 && o.adaptive == 0);
    strcpy(m.run.integrator, "rk9");
    o.rho_inf = 0.25;
    assert_int_equal(ld_integ_options_from_model(&m, &o), LD_EINVAL);
    assert_true(o.rho_inf == 0.25); /* untouched */
    assert_int_equal(ld_integ_options_from_model(NULL, &o), LD_EINVAL);
    ld_model_free(&m);
}

static void test_diagnostics(void **state) {
    (void)state;
    ld_model m;
    ld_system s;
    double *q0, *v0;
    load(&m, "models/heavy-top.yaml");
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    double e = NAN, phi[8];
    assert_int_equal(s.ops.energy(&s, 0.0, q0, v0, &e), LD_OK);
    assert_true(ld_sys_energy(&s, 0.0, q0, v0) == e);
    assert_true(isnan(ld_sys_energy(&s, 0.0, NULL, v0)));
    int row = 7;
    assert_true(ld_sys_phi_max(&s, 0.0, q0, phi, &row) < 1e-15);
    q0[s.nodes[0].qoff + 9] += 1e-3; /* move the top's centre of mass off the pivot's circle */
    double ph = ld_sys_phi_max(&s, 0.0, q0, phi, &row);
    assert_true(ph > 5e-4 && row >= 0 && row < s.m);
    assert_true(isnan(ld_sys_phi_max(&s, 0.0, q0, NULL, NULL)));
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_options_from_model),
        cmocka_unit_test(test_diagnostics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The public API's conveniences: bodies and joints by name, the model's integrator block as
 * integrator options (what `liedyn run` uses), the energy and constraint violation of a state
 * behind named functions, whether a model keeps its energy, and the model's output block.
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

/* Which shipped models keep their energy, and the reason of those that do not. */
static void test_energy_conserved(void **state) {
    (void)state;
    static const struct {
        const char *file;
        int keeps;
        const char *why;
    } cases[] = {
        {"models/heavy-top.yaml", 1, ""},
        {"models/free-top.yaml", 1, ""},
        {"models/spinning-body.yaml", 0, "the model has loads"},
        {"models/mass-spring.yaml", 0,
         "element 'spring' (spring-damper) dissipates or adds energy"},
        {"models/crank-v8.yaml", 0, "the model has loads"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char p[512], why[160];
        ld_model m;
        ld_model_error e;
        assert_int_equal(
            ld_model_load((snprintf(p, sizeof p, "%s/%s", LD_SOURCE_DIR, cases[i].file), p), &m,
                          &e),
            LD_OK);
        assert_int_equal(ld_model_energy_conserved(&m, why, sizeof why), cases[i].keeps);
        assert_string_equal(why, cases[i].why);
        ld_model_free(&m);
    }
    /* an undamped spring keeps the energy; a driver joint does not */
    const char *text = "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [1, 0, 0]}\n"
                       "elements:\n  - {name: s, type: spring-damper, body1: ground, body2: a, "
                       "k: 10, l0: 0.5}\n";
    ld_model m;
    ld_model_error e;
    assert_int_equal(ld_model_parse(text, strlen(text), "s.yaml", &m, &e), LD_OK);
    assert_int_equal(ld_model_energy_conserved(&m, NULL, 0), 1);
    m.elements[0].par[7] = 0.5; /* c */
    assert_int_equal(ld_model_energy_conserved(&m, NULL, 0), 0);
    ld_model_free(&m);
    assert_int_equal(ld_model_energy_conserved(NULL, NULL, 0), 0);
}

/* The output block: rows at fixed times, every k-th step, the default plot's quantities. */
static void test_output_block(void **state) {
    (void)state;
    const char *text = "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\n"
                       "output:\n  dt: 0.25\n  plot: [a.z, energy]\n";
    ld_model m;
    ld_model_error e;
    assert_int_equal(ld_model_parse(text, strlen(text), "o.yaml", &m, &e), LD_OK);
    assert_true(m.output.dt == 0.25);
    assert_string_equal(m.output.plot, "a.z,energy");
    assert_int_equal(m.run.output_every, 0);
    ld_model_free(&m);
    text = "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}\noutput: "
           "{every: 7}\n";
    assert_int_equal(ld_model_parse(text, strlen(text), "o.yaml", &m, &e), LD_OK);
    assert_int_equal(m.run.output_every, 7);
    assert_true(m.output.dt == 0.0 && m.output.plot[0] == '\0');
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),         cmocka_unit_test(test_options_from_model),
        cmocka_unit_test(test_diagnostics),  cmocka_unit_test(test_energy_conserved),
        cmocka_unit_test(test_output_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

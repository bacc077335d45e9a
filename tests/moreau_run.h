/*
 * Shared by the tests of the contact method (test_contact.c, test_moreau.c): a model parsed from
 * text, compiled, and run by moreau at a fixed step; body 0's state. Header-only (each test
 * program includes it once, after support.h).
 */
#ifndef LIEDYN_TESTS_MOREAU_RUN_H
#define LIEDYN_TESTS_MOREAU_RUN_H

#include <stdlib.h>
#include <string.h>

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

typedef struct run {
    ld_model m;
    ld_system s;
    double *q0, *v0;
    ld_integ *it;
} run;

static void start(run *r, const char *text, ld_formulation f, double h) {
    ld_model_error e;
    if (ld_model_parse(text, strlen(text), "contact.yaml", &r->m, &e)) fail_msg("%s", e.msg);
    char msg[512];
    if (ld_model_compile_msg(&r->m, f, &r->s, &r->q0, &r->v0, msg, sizeof msg)) fail_msg("%s", msg);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)ld_integ_method_find("moreau");
    o.h_init = h;
    int st = 0;
    r->it = ld_integ_create_msg(&r->s, &o, &st, msg, sizeof msg);
    if (!r->it) fail_msg("create: %s", msg);
    assert_int_equal(ld_integ_init(r->it, 0.0, r->q0, r->v0), LD_OK);
}

static void stop(run *r) {
    ld_integ_free(r->it);
    free(r->q0);
    free(r->v0);
    ld_model_system_free(&r->s);
    ld_model_free(&r->m);
}

static void body(const run *r, double x[3], double q[4], double w[3], double v[3]) {
    assert_int_equal(
        ld_model_body_state(&r->s, 0, ld_integ_q(r->it), ld_integ_v(r->it), x, q, w, v), LD_OK);
}

#endif

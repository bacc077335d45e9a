/*
 * A model compiled from YAML text, at its static equilibrium, linearized there: the fixture of
 * the linearization tests (test_modes.c, test_modes_beam.c). Header-only.
 */
#ifndef LIEDYN_TESTS_LIN_CASE_H
#define LIEDYN_TESTS_LIN_CASE_H

#include <stdlib.h>
#include <string.h>

#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

/* A compiled model at its static equilibrium, linearized there. */
typedef struct lin_case {
    ld_model m;
    ld_system s;
    double *q, *v, *lam;
    ld_linear lin;
} lin_case;

/* Parse text, compile in formulation f, find the equilibrium at rest and linearize. */
static void lin_open(lin_case *c, const char *text, ld_formulation f) {
    memset(c, 0, sizeof *c);
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "test.yaml", &c->m, &err))
        fail_msg("%s:%d: %s: %s", err.file, err.line, err.key, err.msg);
    char msg[512];
    if (ld_model_compile_msg(&c->m, f, &c->s, &c->q, &c->v, msg, sizeof msg)) fail_msg("%s", msg);
    memset(c->v, 0, (size_t)c->s.k * sizeof *c->v);
    c->lam = calloc((size_t)c->s.m + 1, sizeof *c->lam);
    ld_static_options o;
    ld_static_options_init(&o);
    o.tol = 1e-13;
    ld_static_stats st;
    if (ld_static_solve(&c->s, 0.0, c->q, c->lam, &o, &st, msg, sizeof msg)) fail_msg("%s", msg);
    if (ld_linearize(&c->s, 0.0, c->q, NULL, &c->lin, msg, sizeof msg)) fail_msg("%s", msg);
}

static void lin_close(lin_case *c) {
    ld_linear_free(&c->lin);
    free(c->q);
    free(c->v);
    free(c->lam);
    ld_model_system_free(&c->s);
    ld_model_free(&c->m);
}

#endif

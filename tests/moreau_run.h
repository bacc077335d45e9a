/*
 * Shared by the tests of the contact method (test_contact.c, test_moreau.c): a model parsed from
 * text, compiled, and run by moreau at a fixed step; body 0's state. Header-only (each test
 * program includes it once, after support.h).
 */
#ifndef LIEDYN_TESTS_MOREAU_RUN_H
#define LIEDYN_TESTS_MOREAU_RUN_H

#include <stdio.h>
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

static inline void body(const run *r, double x[3], double q[4], double w[3], double v[3]) {
    assert_int_equal(
        ld_model_body_state(&r->s, 0, ld_integ_q(r->it), ld_integ_v(r->it), x, q, w, v), LD_OK);
}

/* The text of the shipped model models/NAME.yaml (malloc'd): found from the source tree
 * (LD_SOURCE_DIR if given, else this file's directory's parent). */
static inline char *model_text(const char *name) {
    char path[1024];
#ifdef LD_SOURCE_DIR
    snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, name);
#else
    const char *src = __FILE__, *slash = strrchr(src, '/');
    int dir = slash ? (int)(slash - src) : 0;
    snprintf(path, sizeof path, "%.*s%s../models/%s.yaml", dir, src, slash ? "/" : "", name);
#endif
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    char *text = calloc(1 << 16, 1);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    if (n == 0) fail_msg("empty %s", path);
    return text;
}

#endif

/*
 * Out of memory in the statics, the linearization and the modes: each refusal says
 * "out of memory: N bytes for WHAT" (N the size asked for), not a bare "out of memory". The
 * test is linked with --wrap=malloc,calloc,realloc: the wrappers refuse every request while
 * refuse_all is set.
 */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t sz);
void *__wrap_realloc(void *p, size_t n);

static int refuse_all; /* an exhausted machine */

void *__wrap_malloc(size_t n) {
    return refuse_all ? NULL : __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t sz) {
    return refuse_all ? NULL : __real_calloc(n, sz);
}
void *__wrap_realloc(void *p, size_t n) {
    return refuse_all ? NULL : __real_realloc(p, n);
}

/* A double pendulum on two hinges with a damper: constraints, two modes. */
static const char MODEL[] =
    "name: oom\n"
    "bodies:\n"
    "  - {name: a, mass: 1, inertia: [0.1, 0.1, 0.1], position: [0.5, 0, 0]}\n"
    "  - {name: b, mass: 1, inertia: [0.1, 0.1, 0.1], position: [1.5, 0, 0]}\n"
    "joints:\n"
    "  - {name: j1, type: revolute, body1: ground, body2: a, at: [0, 0, 0], "
    "axis: [0, 1, 0]}\n"
    "  - {name: j2, type: revolute, body1: a, body2: b, at: [1, 0, 0], "
    "axis: [0, 1, 0]}\n"
    "elements:\n"
    "  - {type: rotational-spring-damper, body1: ground, body2: a, axis: [0, 1, 0], k: 0, c: "
    "0.3}\n";

typedef struct fixture {
    ld_model m;
    ld_system s;
    double *q0, *v0;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    ld_model_error e;
    if (!f || ld_model_parse(MODEL, sizeof MODEL - 1, "oom.yaml", &f->m, &e) != LD_OK) {
        if (f) fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    if (ld_model_compile(&f->m, LD_FORM_SO3XR3, &f->s, &f->q0, &f->v0) != LD_OK) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    free(f->q0);
    free(f->v0);
    ld_model_system_free(&f->s);
    ld_model_free(&f->m);
    free(f);
    return 0;
}

/* msg says "out of memory: N bytes for WHAT" with N > 0 and a WHAT. */
static void says_how_much(int rc, const char *msg, const char *what) {
    const char *p = strstr(msg, "out of memory: ");
    char *end = NULL;
    double n = p ? strtod(p + 15, &end) : 0.0;
    if (rc != LD_ENOMEM || !p || !(n > 0.0) || strncmp(end, " bytes for ", 11) != 0 ||
        end[11] == '\0' || end[11] == ' ')
        fail_msg("%s: status %d, '%s'", what, rc, msg);
    printf("%s: %s\n", what, msg);
}

static void test_statics(void **state) {
    fixture *f = *state;
    double q[64], lam[16];
    char msg[512] = "";
    memcpy(q, f->q0, (size_t)f->s.nq * sizeof *q);
    ld_static_options o;
    ld_static_options_init(&o);
    refuse_all = 1;
    int rc = ld_static_solve(&f->s, 0.0, q, lam, &o, NULL, msg, sizeof msg);
    refuse_all = 0;
    says_how_much(rc, msg, "statics");
}

static void test_linearize_and_modes(void **state) {
    fixture *f = *state;
    char msg[512] = "";
    ld_linear lin;
    refuse_all = 1;
    int rc = ld_linearize(&f->s, 0.0, f->q0, NULL, &lin, msg, sizeof msg);
    refuse_all = 0;
    says_how_much(rc, msg, "linearize");
    assert_int_equal(ld_linearize(&f->s, 0.0, f->q0, NULL, &lin, msg, sizeof msg), LD_OK);
    ld_modes md;
    refuse_all = 1;
    rc = ld_modes_undamped(&lin, 0, &md, msg, sizeof msg);
    refuse_all = 0;
    says_how_much(rc, msg, "undamped modes");
    refuse_all = 1;
    rc = ld_modes_damped(&lin, 0, &md, msg, sizeof msg);
    refuse_all = 0;
    says_how_much(rc, msg, "damped modes");
    ld_linear_free(&lin);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_statics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_linearize_and_modes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

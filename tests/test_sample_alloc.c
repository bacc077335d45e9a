/*
 * The sampled controller allocates nothing per sample (liedyn/actuator.h, docs/actuators.md):
 * a pendulum and a closed four-bar driven by a PD law through `input: control` actuators, run
 * with a controller every 5 steps under the methods with constraints (46 unknowns: the sparse
 * solve, KLU), chains of 2 links (the dense solve) and 16 links; after a first stretch of
 * samples (which may size the solvers' patterns), further samples — each a restart with a new
 * solve of consistent accelerations — make no allocation from liedyn's own code. Linked with
 * --wrap=malloc,calloc,realloc (alloc_count.h), which sees the calls of the objects linked
 * statically: the shared libraries' own (KLU when it must pivot afresh, LAPACK) are not counted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "alloc_count.h"
#include "liedyn/actuator.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

static const char *const model_text =
    "name: arm\n"
    "gravity: [0, -9.81, 0]\n"
    "bodies:\n"
    "  - {name: link, mass: 1.0, inertia: [1.0e-4, 0.0833, 0.0833], position: [0.5, 0, 0]}\n"
    "  - {name: crank, mass: 0.3, inertia: [3.4e-05, 0.0023, 0.0023], position: [5, 0.15, 0],\n"
    "     orientation: [0.707106781186548, 0, 0, 0.707106781186547]}\n"
    "  - {name: coupler, mass: 1.1, inertia: [1.2e-4, 0.111, 0.111],\n"
    "     position: [5.512433723024854, 0.499779076749512, 0],\n"
    "     orientation: [0.982776087984187, 0, 0, 0.184800327073565]}\n"
    "  - {name: rocker, mass: 0.7, inertia: [7.9e-05, 0.0286, 0.0286],\n"
    "     position: [6.01243372302485, 0.349779076749512, 0],\n"
    "     orientation: [0.719557128700756, 0, 0, 0.694433249877858]}\n"
    "joints:\n"
    "  - {name: hinge, type: revolute, body1: ground, body2: link, at: [0, 0, 0], axis: [0, 0, "
    "1]}\n"
    "  - {name: A, type: revolute, body1: ground, body2: crank, at: [5, 0, 0], axis: [0, 0, 1]}\n"
    "  - {name: B, type: revolute, body1: crank, body2: coupler, at: [5, 0.3, 0], axis: [0, 0, "
    "1]}\n"
    "  - {name: C, type: revolute, body1: coupler, body2: rocker,\n"
    "     at: [6.02486744604971, 0.699558153499025, 0], axis: [0, 0, 1]}\n"
    "  - {name: D, type: revolute, body1: ground, body2: rocker, at: [6, 0, 0], axis: [0, 0, 1]}\n"
    "elements:\n"
    "  - {name: m1, type: actuator, joint: hinge, input: control}\n"
    "  - {name: m2, type: actuator, joint: A, input: control}\n";

static int pd(double t, const double *q, const double *v, const double *sensors, double *u,
              void *user) {
    (void)t, (void)q, (void)v;
    long *calls = user;
    ++*calls;
    for (int i = 0; i < 2; ++i) u[i] = 2.0 * (0.3 - sensors[3 * i]) - 0.5 * sensors[3 * i + 1];
    return 0;
}

/* A chain of n links on hinges about z, hanging from the ground, driven at its first and last
 * hinge: large enough (6n + 5n unknowns) for the sparse solve of the accelerations. */
static char *chain_text(int n) {
    size_t cap = 512 + 300 * (size_t)n, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "name: chain\ngravity: [0, -9.81, 0]\nbodies:\n");
    for (int i = 0; i < n; ++i)
        len += (size_t)snprintf(t + len, cap - len,
                                "  - {name: b%d, mass: 1, inertia: [1e-3, 0.02, 0.02], position: "
                                "[%g, 0, 0]}\n",
                                i, 0.25 + 0.5 * i);
    len += (size_t)snprintf(t + len, cap - len, "joints:\n");
    for (int i = 0; i < n; ++i) {
        char b1[16] = "ground";
        if (i) snprintf(b1, sizeof b1, "b%d", i - 1);
        len +=
            (size_t)snprintf(t + len, cap - len,
                             "  - {name: j%d, type: revolute, body1: %s, body2: b%d, at: [%g, 0, "
                             "0], axis: [0, 0, 1]}\n",
                             i, b1, i, 0.5 * i);
    }
    snprintf(t + len, cap - len,
             "elements:\n  - {type: actuator, joint: j0, input: control}\n"
             "  - {type: actuator, joint: j%d, input: control}\n",
             n - 1);
    return t;
}

/* Run method name on the model text with a sample every 5 steps of h; the allocations of the
 * samples after the first 20. */
static long allocations(const char *text, const char *name, ld_formulation f) {
    ld_model m;
    ld_model_error e;
    int prc = ld_model_parse(text, strlen(text), "arm.yaml", &m, &e);
    if (prc) fail_msg("%s", e.msg);
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    assert_int_equal(ld_model_compile(&m, f, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)ld_integ_method_find(name);
    int st;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    const double h = 1e-3;
    long calls = 0;
    assert_int_equal(ld_integ_set_controller(it, 5 * h, pd, &calls), LD_OK);
    for (int k = 1; k <= 100; ++k) assert_int_equal(ld_integ_advance_to(it, k * h), LD_OK);
    long before = n_alloc, c0 = calls;
    for (int k = 101; k <= 600; ++k) assert_int_equal(ld_integ_advance_to(it, k * h), LD_OK);
    long n = n_alloc - before;
    printf("%-10s k = %d, m = %d: %ld samples, %ld allocations\n", name, s.k, s.m, calls - c0, n);
    assert_true(calls - c0 >= 99);
    ld_integ_free(it);
    free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
    return n;
}

static void test_no_allocation_per_sample(void **state) {
    (void)state;
    const char *methods[] = {"genalpha", "hht", "newmark", "hem5", "moreau"};
    long total = 0;
    for (size_t i = 0; i < sizeof methods / sizeof *methods; ++i)
        total += allocations(model_text, methods[i], LD_FORM_SO3XR3);
    char *one = chain_text(2); /* 12 + 10 unknowns: the dense solve */
    total += allocations(one, "genalpha", LD_FORM_SO3XR3);
    total += allocations(one, "hem5", LD_FORM_S3XR3);
    free(one);
    char *chain = chain_text(16); /* 96 + 80 unknowns: KLU */
    total += allocations(chain, "genalpha", LD_FORM_SE3);
    total += allocations(chain, "hem5", LD_FORM_SO3XR3);
    free(chain);
    assert_int_equal(total, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_allocation_per_sample)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Memory in proportion to the model: a 10,000-body model (free bodies, no joints) and a
 * 10,000-segment Kirchhoff rod built in code compile, initialize and take steps of hem5 and of
 * genalpha with KLU without any k×k or (k + m)² array (genalpha on the structured sparse path
 * of the Newton methods); with the dense solver genalpha would form dense matrices and is
 * refused with "out of memory: N bytes for …" instead of being attempted. The test is linked
 * with --wrap=malloc,calloc,realloc: the wrappers record the largest request and the bytes
 * requested by the library, and refuse any single request above LIMIT (so that a quadratic
 * allocation fails here instead of reaching for tens of gigabytes). The peak RSS (getrusage)
 * is printed, not asserted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "liedyn/liedyn.h"
#include "support.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t sz);
void *__wrap_realloc(void *p, size_t n);

#define LIMIT ((size_t)256 << 20) /* largest single allocation allowed: 256 MiB */
static size_t largest, requested;
static int refuse_all; /* simulate an exhausted machine */

static int admit(size_t n) {
    if (n > LIMIT || refuse_all) return 0;
    largest = n > largest ? n : largest;
    requested += n;
    return 1;
}
void *__wrap_malloc(size_t n) {
    return admit(n) ? __real_malloc(n) : NULL;
}
void *__wrap_calloc(size_t n, size_t sz) {
    if (sz && n > SIZE_MAX / sz) return NULL;
    return admit(n * sz) ? __real_calloc(n, sz) : NULL;
}
void *__wrap_realloc(void *p, size_t n) {
    return admit(n) ? __real_realloc(p, n) : NULL;
}

static double peak_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* Linux: kilobytes */
}

enum { NBODIES = 10000, NSEG = 10000 };

/* ---------------------------------------------------------------- models */

/* NBODIES free bodies in a row, spinning, under gravity; bodies allocated by the caller. */
static void free_bodies(ld_model *m, ld_body *b) {
    ld_model_init(m);
    strcpy(m->name, "cloud");
    for (int i = 0; i < NBODIES; ++i) {
        memset(&b[i], 0, sizeof b[i]);
        snprintf(b[i].name, LD_NAME_MAX, "b%d", i);
        b[i].mass = 1.0 + 0.001 * i;
        b[i].inertia[0] = 1.0, b[i].inertia[4] = 2.0, b[i].inertia[8] = 3.0;
        b[i].x[0] = 2.0 * i;
        b[i].q[0] = 1.0;
        b[i].omega[0] = 0.2, b[i].omega[1] = 5.0, b[i].omega[2] = 0.1 * (i % 7);
    }
    m->gravity[2] = -9.81;
    m->nbodies = NBODIES;
    m->bodies = b;
}

/* A straight Kirchhoff rod of NSEG segments, 100 m long, under gravity; NSEG + 1 node bodies
 * allocated by the caller. */
static void long_rod(ld_model *m, ld_rod *r, ld_body *b) {
    static const double from[3] = {0, 0, 0}, to[3] = {100, 0, 0};
    static const double stiff[6] = {500.0, 650.0, 420.0, 8e3, 9e3, 1.1e4};
    ld_model_init(m);
    strcpy(m->name, "long-rod");
    memset(r, 0, sizeof *r);
    strcpy(r->name, "r");
    r->n = NSEG;
    r->length = 100.0;
    memcpy(r->stiffness, stiff, sizeof stiff);
    r->kirchhoff = 1;
    r->rho_a = 1.3;
    r->rho_i[0] = 10.0, r->rho_i[1] = 12.0, r->rho_i[2] = 7.0;
    assert_int_equal(ld_rod_place(r, from, to, NULL, b), LD_OK);
    m->gravity[2] = -9.81;
    m->nbodies = NSEG + 1;
    m->bodies = b;
    m->nrods = 1;
    m->rods = r;
}

/* ---------------------------------------------------------------- runs */

/* Compile, create hem5 with la, init and take `steps` steps of h: all LD_OK, and no single
 * allocation above a bound linear in the model (8 bytes × 64 per unknown). */
static void run_hem5(const ld_model *m, ld_la_kind la, double h, int steps, const char *what) {
    largest = requested = 0;
    ld_system s;
    double *q0, *v0;
    int rc = ld_model_compile(m, LD_FORM_SO3XR3, &s, &q0, &v0);
    if (rc) fail_msg("%s: compile: %s (largest request %zu bytes)", what, ld_strerror(rc), largest);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_HEM5;
    o.la = la;
    char msg[256];
    ld_integ *it = ld_integ_create_msg(&s, &o, &rc, msg, sizeof msg);
    if (!it) fail_msg("%s: create: %s", what, msg);
    assert_int_equal(ld_integ_la(it), LD_LA_KLU);
    rc = ld_integ_init(it, 0.0, q0, v0);
    if (rc) fail_msg("%s: init: %s", what, ld_integ_message(it));
    for (int i = 0; i < steps; ++i) {
        rc = ld_integ_step(it, h);
        if (rc) fail_msg("%s: step %d: %s", what, i, ld_integ_message(it));
    }
    size_t n = (size_t)(s.k + s.m), bound = 64 * 8 * n;
    printf("%s: k = %d, m = %d: largest allocation %zu bytes (bound %zu), %zu bytes requested "
           "in all, peak RSS %.0f MB\n",
           what, s.k, s.m, largest, bound, requested, peak_rss_mb());
    if (largest > bound) fail_msg("%s: an allocation of %zu bytes is not O(k + m)", what, largest);
    /* the Newton methods take the structured sparse path with KLU: no k×k either */
    ld_integ_free(it);
    largest = requested = 0;
    o.method = LD_INTEG_GENALPHA;
    o.la = LD_LA_KLU;
    it = ld_integ_create_msg(&s, &o, &rc, msg, sizeof msg);
    if (!it) fail_msg("%s: genalpha/klu: create: %s", what, msg);
    rc = ld_integ_init(it, 0.0, q0, v0);
    for (int i = 0; !rc && i < 2; ++i) rc = ld_integ_step(it, h);
    if (rc) fail_msg("%s: genalpha/klu: %s", what, ld_integ_message(it));
    printf("  genalpha/klu: largest allocation %zu bytes, %zu bytes requested, peak RSS %.0f MB\n",
           largest, requested, peak_rss_mb());
    if (largest > bound) fail_msg("%s: genalpha: an allocation of %zu bytes", what, largest);
    /* with the dense solver they would form dense k×k matrices: refused with the reason */
    o.la = LD_LA_DENSE;
    ld_integ *bad = ld_integ_create_msg(&s, &o, &rc, msg, sizeof msg);
    assert_null(bad);
    assert_int_equal(rc, LD_ENOMEM);
    if (strncmp(msg, "out of memory: ", 15) != 0 || !strstr(msg, "bytes for ") ||
        !strstr(msg, "(k = "))
        fail_msg("%s: genalpha/dense refused with '%s'", what, msg);
    printf("  genalpha/dense: %s\n", msg);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

static void test_free_bodies(void **state) {
    (void)state;
    ld_body *b = calloc(NBODIES, sizeof *b);
    assert_non_null(b);
    ld_model m;
    free_bodies(&m, b);
    run_hem5(&m, LD_LA_KLU, 1e-3, 3, "10000 free bodies, hem5/klu");
    run_hem5(&m, LD_LA_AUTO, 1e-3, 2, "10000 free bodies, hem5/auto");
    free(b);
}

static void test_long_rod(void **state) {
    (void)state;
    ld_body *b = calloc(NSEG + 1, sizeof *b);
    assert_non_null(b);
    ld_model m;
    ld_rod r;
    long_rod(&m, &r, b);
    run_hem5(&m, LD_LA_KLU, 1e-5, 3, "10000-segment rod, hem5/klu");
    free(b);
}

/* The consistent initial accelerations of the large systems take the sparse path. */
static void test_initial_accel_sparse(void **state) {
    (void)state;
    ld_body *b = calloc(NSEG + 1, sizeof *b);
    assert_non_null(b);
    ld_model m;
    ld_rod r;
    long_rod(&m, &r, b);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_S3SDR3, &s, &q0, &v0), LD_OK);
    assert_true(ld_sys_has_sparse(&s));
    double *vd = malloc((size_t)s.k * sizeof(double)), *lam = malloc((size_t)s.m * sizeof(double));
    assert_non_null(vd);
    assert_non_null(lam);
    largest = 0;
    char msg[160];
    int rc = ld_sys_initial_accel_msg(&s, 0.0, q0, v0, vd, lam, msg, sizeof msg);
    if (rc) fail_msg("initial accelerations: %s", msg);
    assert_true(largest < 64 * 8 * (size_t)(s.k + s.m));
    /* a node at rest in the middle of the straight rod falls freely: v̇ = (0, 0, 0, 0, 0, −g)
     * in the so3xr3-like spatial components of s3sdr3 rotated into the body frame; its
     * magnitude is g */
    const double *a = vd + s.nodes[NSEG / 2].voff;
    double an = sqrt(a[3] * a[3] + a[4] * a[4] + a[5] * a[5]);
    assert_true(fabs(an - 9.81) < 1e-9);
    assert_true(fabs(a[0]) + fabs(a[1]) + fabs(a[2]) < 1e-9);
    free(vd);
    free(lam);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    free(b);
}

/* The choice of backend: dense below the measured crossover and for dense patterns. */
static void test_la_choose(void **state) {
    (void)state;
    assert_int_equal(ld_la_choose(12, 100), LD_LA_DENSE);
    assert_int_equal(ld_la_choose(LD_LA_CROSSOVER - 1, 10), LD_LA_DENSE);
    assert_int_equal(ld_la_choose(LD_LA_CROSSOVER, 10), LD_LA_KLU);
    assert_int_equal(ld_la_choose(1000, 0), LD_LA_DENSE); /* pattern unknown */
    assert_int_equal(ld_la_choose(1000, 1000000), LD_LA_DENSE);
    assert_int_equal(ld_la_choose(1000, 20016), LD_LA_KLU);
    assert_int_equal(ld_la_choose(-3, 5), LD_LA_DENSE);
    assert_string_equal(ld_la_kind_name(LD_LA_AUTO), "auto");
    assert_int_equal(ld_la_kind_find("auto"), LD_LA_AUTO);
}

/* The shipped models' iteration matrices (order, constraint rows, entries as the integrator
 * counts them) with the solver measured faster per Newton iteration by more than 10 %
 * (bench/la_choice.py, docs/linalg.md): the choice must pick it. */
static const struct {
    const char *model;
    int n, m;
    size_t nnz;
    ld_la_kind faster;
} measured[] = {
    {"four-bar", 35, 17, 256, LD_LA_KLU},
    {"slider-crank", 35, 17, 213, LD_LA_KLU},
    {"iea15-blade", 60, 0, 3600, LD_LA_DENSE},
    {"beam-roll-up", 96, 0, 5184, LD_LA_DENSE},
    {"bricard", 59, 29, 425, LD_LA_KLU},
    {"roll-up", 76, 22, 1356, LD_LA_KLU},
    {"andrews-squeezer", 83, 41, 1536, LD_LA_KLU},
    {"beam-drop", 102, 0, 2340, LD_LA_KLU},
    {"flying-spaghetti", 134, 32, 2532, LD_LA_KLU},
    {"rotating-blade", 168, 12, 7272, LD_LA_KLU},
    {"right-angle-cantilever", 180, 0, 5184, LD_LA_KLU},
    {"n-four-bar", 971, 485, 6483, LD_LA_KLU},
};

/* The structure of model name as the integrator of its own integrator block sees it. */
static void model_structure(const char *name, int *n, int *m, size_t *nnz) {
    char path[512];
    snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, name);
    ld_model model;
    ld_model_error err;
    if (ld_model_load(path, &model, &err) != LD_OK) fail_msg("%s: %s", path, err.msg);
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    assert_int_equal(ld_model_compile(&model, model.run.formulation, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)ld_integ_method_find(model.run.integrator);
    *n = s.k + s.m;
    *m = s.m;
    *nnz = ld_integ_la_entries(&s, &o);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&model);
}

static void test_la_choose_measured(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof measured / sizeof *measured; ++i) {
        int n, m;
        size_t nnz;
        model_structure(measured[i].model, &n, &m, &nnz); /* the table is the models' own */
        if (n != measured[i].n || m != measured[i].m || nnz != measured[i].nnz)
            fail_msg("%s: n = %d, m = %d, nnz = %zu now; the table says %d, %d, %zu (measure "
                     "again: bench/la_choice.py)",
                     measured[i].model, n, m, nnz, measured[i].n, measured[i].m, measured[i].nnz);
        ld_la_kind got = ld_la_choose_rows(measured[i].n, measured[i].m, measured[i].nnz);
        if (got != measured[i].faster)
            fail_msg("%s (n = %d, m = %d, nnz = %zu): picked %s, measured faster %s",
                     measured[i].model, measured[i].n, measured[i].m, measured[i].nnz,
                     ld_la_kind_name(got), ld_la_kind_name(measured[i].faster));
    }
}

/* An allocation that fails inside a step (the KLU pattern of a Newton method is built at the
 * first factorization) is reported as "out of memory: N bytes for WHAT", not as anything else. */
static void test_oom_in_step(void **state) {
    (void)state;
    ld_body b[40];
    ld_model m;
    ld_model_init(&m);
    for (int i = 0; i < 40; ++i) {
        memset(&b[i], 0, sizeof b[i]);
        snprintf(b[i].name, LD_NAME_MAX, "b%d", i);
        b[i].mass = 1.0;
        b[i].inertia[0] = 1.0, b[i].inertia[4] = 2.0, b[i].inertia[8] = 3.0;
        b[i].x[0] = i;
        b[i].q[0] = 1.0;
        b[i].omega[1] = 1.0;
    }
    m.nbodies = 40;
    m.bodies = b;
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.la = LD_LA_KLU;
    int st;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    refuse_all = 1;
    int rc = ld_integ_step(it, 1e-3);
    refuse_all = 0;
    const char *msg = ld_integ_message(it);
    if (rc != LD_ENOMEM || !strstr(msg, "out of memory: ") || !strstr(msg, " bytes for "))
        fail_msg("a failed allocation in a step gave %d, '%s'", rc, msg);
    printf("%s\n", msg);
    assert_int_equal(ld_integ_step(it, 1e-3), LD_OK); /* memory back: the step works */
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oom_in_step),        cmocka_unit_test(test_la_choose),
        cmocka_unit_test(test_la_choose_measured), cmocka_unit_test(test_free_bodies),
        cmocka_unit_test(test_long_rod),           cmocka_unit_test(test_initial_accel_sparse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Checkpoints of the integrators (ld_integ_save, ld_integ_load): for every method of the
 * method list, with and without step-size control where the method has an estimate, a run
 * that is saved and reloaded into a fresh integrator continues bit for bit as the run that
 * wrote it; damaged, foreign and mismatched checkpoints are refused with a reason and leave
 * the integrator untouched.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../src/sys/checkpoint_impl.h"
#include "liedyn/liedyn.h"
#include "mbs_models.h"

#define TAG    0x1234abcdull
#define NSTEPS 12

static char dir[64];

static void path_in_dir(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", dir, name);
}

/* The heavy top in so3xr3 (constrained) or the same body free (for tb3). */
typedef struct fixture {
    ld_model m;
    ld_system s;
    double *q0, *v0;
} fixture;

/* constrained: 1 the heavy top, 0 the same body free, 2 two bodies, a joint, every load. */
static void fixture_make(fixture *f, int constrained, ld_formulation form) {
    if (constrained == 2)
        tm_loaded(&f->m);
    else
        tm_heavy_top(&f->m, 1.0);
    if (!constrained) f->m.njoints = 0;
    assert_int_equal(ld_model_compile(&f->m, form, &f->s, &f->q0, &f->v0), LD_OK);
}

static void fixture_free(fixture *f) {
    ld_model_system_free(&f->s);
    free(f->q0);
    free(f->v0);
}

static ld_integ *make(const fixture *f, ld_integ_method meth, int adaptive) {
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    o.adaptive = adaptive;
    o.h_init = 1e-3;
    int st = 0;
    ld_integ *it = ld_integ_create(&f->s, &o, &st);
    assert_non_null(it);
    return it;
}

static void steps(ld_integ *it, int adaptive, int n) {
    for (int i = 0; i < n; ++i) {
        int rc = adaptive ? ld_integ_step_adaptive(it, 10.0) : ld_integ_advance(it, 1e-3);
        assert_int_equal(rc, LD_OK);
    }
}

/* Everything observable of the state, bit for bit. */
static void assert_same_state(const ld_integ *a, const ld_integ *b, const ld_system *s) {
    double ta = ld_integ_t(a), tb = ld_integ_t(b);
    assert_memory_equal(&ta, &tb, sizeof ta);
    assert_memory_equal(ld_integ_q(a), ld_integ_q(b), (size_t)s->nq * sizeof(double));
    assert_memory_equal(ld_integ_v(a), ld_integ_v(b), (size_t)s->k * sizeof(double));
    assert_memory_equal(ld_integ_vdot(a), ld_integ_vdot(b), (size_t)s->k * sizeof(double));
    if (s->m > 0)
        assert_memory_equal(ld_integ_lambda(a), ld_integ_lambda(b), (size_t)s->m * sizeof(double));
    double ha = ld_integ_next_h(a), hb = ld_integ_next_h(b);
    assert_memory_equal(&ha, &hb, sizeof ha);
    ld_integ_stats sa, sb;
    ld_integ_get_stats(a, &sa);
    ld_integ_get_stats(b, &sb);
    assert_int_equal(sa.steps, sb.steps);
    assert_int_equal(sa.rejected, sb.rejected);
    assert_int_equal(sa.newton_iterations, sb.newton_iterations);
}

/* Save after NSTEPS, continue NSTEPS; reload into a fresh integrator, continue NSTEPS. On
 * the model `which` of fixture_make, or the free body where the method refuses it. */
static void check_restart(ld_integ_method meth, int adaptive, int which, ld_formulation form) {
    fixture f;
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    fixture_make(&f, which, form);
    if (ld_integ_options_check(&f.s, &o)) { /* tb3: unconstrained only */
        fixture_free(&f);
        fixture_make(&f, 0, form);
    }
    char file[128];
    path_in_dir(file, sizeof file, "ck.bin");
    ld_integ *a = make(&f, meth, adaptive);
    assert_int_equal(ld_integ_init(a, 0.0, f.q0, f.v0), LD_OK);
    steps(a, adaptive, NSTEPS);
    const double user_out[3] = {1.5, -2.0, 7.25};
    char msg[256];
    assert_int_equal(ld_integ_save(a, file, TAG, user_out, sizeof user_out, msg, sizeof msg),
                     LD_OK);
    steps(a, adaptive, NSTEPS);

    ld_integ *b = make(&f, meth, adaptive);
    double user_in[3] = {0, 0, 0};
    if (ld_integ_load(b, file, TAG, user_in, sizeof user_in, msg, sizeof msg) != LD_OK)
        fail_msg("%s", msg);
    assert_memory_equal(user_in, user_out, sizeof user_in);
    steps(b, adaptive, NSTEPS);
    assert_same_state(a, b, &f.s);
    ld_integ_free(a);
    ld_integ_free(b);
    fixture_free(&f);
    unlink(file);
}

static void test_every_method_restarts_bit_for_bit(void **state) {
    (void)state;
    for (int m = 0; m < ld_method_count(); ++m) {
        print_message("  %s\n", ld_integ_method_name((ld_integ_method)m));
        check_restart((ld_integ_method)m, 0, 1, LD_FORM_SO3XR3);
        if (ld_integ_method_has_estimate((ld_integ_method)m))
            check_restart((ld_integ_method)m, 1, 1, LD_FORM_SO3XR3);
    }
}

/* Two bodies, a joint and every kind of load, in every formulation the methods take. */
static void test_loaded_model_restarts_in_every_formulation(void **state) {
    (void)state;
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        check_restart(LD_INTEG_GENALPHA, 0, 2, (ld_formulation)f);
        check_restart(LD_INTEG_HHT_MODIFIED, 0, 2, (ld_formulation)f);
        if (f != LD_FORM_EULER) check_restart(LD_INTEG_HEM5, 1, 2, (ld_formulation)f);
    }
}

/* Write bytes to a file in the test directory. */
static void write_bytes(const char *file, const void *p, size_t n) {
    FILE *fp = fopen(file, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(p, 1, n, fp), n);
    assert_int_equal(fclose(fp), 0);
}

static size_t read_bytes(const char *file, unsigned char *buf, size_t cap) {
    FILE *fp = fopen(file, "rb");
    assert_non_null(fp);
    size_t n = fread(buf, 1, cap, fp);
    fclose(fp);
    return n;
}

/* A refused load gives LD_EINVAL, a message containing want, and leaves the state. */
static void assert_refused(ld_integ *it, const ld_system *s, const char *file, uint64_t tag,
                           const char *want) {
    double *before = malloc((size_t)s->nq * sizeof(double));
    assert_non_null(before);
    memcpy(before, ld_integ_q(it), (size_t)s->nq * sizeof(double));
    double t0 = ld_integ_t(it), user[3];
    char msg[512];
    assert_int_equal(ld_integ_load(it, file, tag, user, sizeof user, msg, sizeof msg), LD_EINVAL);
    if (!strstr(msg, want)) fail_msg("message '%s' lacks '%s'", msg, want);
    assert_non_null(strstr(msg, file));
    assert_memory_equal(before, ld_integ_q(it), (size_t)s->nq * sizeof(double));
    assert_true(ld_integ_t(it) == t0);
    free(before);
}

static void test_bad_checkpoints_are_refused(void **state) {
    (void)state;
    fixture f;
    fixture_make(&f, 1, LD_FORM_SO3XR3);
    char file[128], bad[128];
    path_in_dir(file, sizeof file, "good.bin");
    path_in_dir(bad, sizeof bad, "bad.bin");
    ld_integ *a = make(&f, LD_INTEG_GENALPHA, 0);
    assert_int_equal(ld_integ_init(a, 0.0, f.q0, f.v0), LD_OK);
    steps(a, 0, 3);
    double user[3] = {1, 2, 3};
    assert_int_equal(ld_integ_save(a, file, TAG, user, sizeof user, NULL, 0), LD_OK);
    static unsigned char buf[1 << 16];
    size_t n = read_bytes(file, buf, sizeof buf);
    assert_true(n > 100 && n < sizeof buf);

    ld_integ *b = make(&f, LD_INTEG_GENALPHA, 0);
    assert_int_equal(ld_integ_init(b, 0.0, f.q0, f.v0), LD_OK);
    assert_refused(b, &f.s, file, TAG + 1, "model tag");
    write_bytes(bad, buf, n - 9); /* truncated */
    assert_refused(b, &f.s, bad, TAG, "truncated or corrupted");
    for (size_t pos = 100; pos < n; pos += (n - 100) / 7) { /* one flipped bit anywhere */
        buf[pos] ^= 0x10;
        write_bytes(bad, buf, n);
        assert_refused(b, &f.s, bad, TAG, "truncated or corrupted");
        buf[pos] ^= 0x10;
    }
    write_bytes(bad, buf, n);
    unsigned char extra = 0;
    FILE *fp = fopen(bad, "ab");
    assert_non_null(fp);
    fwrite(&extra, 1, 1, fp);
    fclose(fp);
    assert_refused(b, &f.s, bad, TAG, "truncated or corrupted");
    write_bytes(bad, "t,x\n0,1\n", 8);
    assert_refused(b, &f.s, bad, TAG, "not a liedyn checkpoint");
    memcpy(buf + 8, &(uint32_t){LD_CHECKPOINT_VERSION + 1}, 4);
    write_bytes(bad, buf, n);
    assert_refused(b, &f.s, bad, TAG, "format version");

    ld_integ *c = make(&f, LD_INTEG_HHT, 0); /* another method */
    assert_int_equal(ld_integ_init(c, 0.0, f.q0, f.v0), LD_OK);
    assert_refused(c, &f.s, file, TAG, "written by the integrator genalpha, this run uses hht");

    fixture g; /* another formulation: another layout */
    fixture_make(&g, 1, LD_FORM_S3SDR3);
    ld_integ *d = make(&g, LD_INTEG_GENALPHA, 0);
    assert_int_equal(ld_integ_init(d, 0.0, g.q0, g.v0), LD_OK);
    assert_refused(d, &g.s, file, TAG, "another model or formulation");

    char msg[512];
    assert_int_equal(
        ld_integ_load(b, "/nonexistent/ck.bin", TAG, user, sizeof user, msg, sizeof msg), LD_EIO);
    assert_non_null(strstr(msg, "/nonexistent/ck.bin"));
    assert_int_equal(
        ld_integ_save(a, "/nonexistent/ck.bin", TAG, user, sizeof user, msg, sizeof msg), LD_EIO);
    assert_non_null(strstr(msg, "/nonexistent/ck.bin"));
    assert_int_equal(ld_integ_save(NULL, file, TAG, NULL, 0, msg, sizeof msg), LD_EINVAL);
    assert_int_equal(ld_integ_load(NULL, file, TAG, NULL, 0, msg, sizeof msg), LD_EINVAL);
    ld_integ_free(a);
    ld_integ_free(b);
    ld_integ_free(c);
    ld_integ_free(d);
    fixture_free(&f);
    fixture_free(&g);
    unlink(file);
    unlink(bad);
}

/* ---- hostile contents under a valid checksum */

#define HEADER_BYTES 64 /* magic, version, order, method, nq, k, m, nnodes, layout, tag, size */

/* Recompute the FNV-1a checksum of buf[n] (its last 8 bytes) after an edit. */
static void reseal(unsigned char *buf, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i + 8 < n; ++i) {
        h ^= buf[i];
        h *= 1099511628211ull;
    }
    memcpy(buf + n - 8, &h, 8);
}

/* A good checkpoint's bytes, kept to be edited field by field. */
typedef struct hostile {
    fixture f;
    ld_integ *it; /* a fresh genalpha integrator to load into */
    char file[128];
    unsigned char good[1 << 16], buf[1 << 16];
    size_t n;
} hostile;

static void hostile_make(hostile *H) {
    fixture_make(&H->f, 1, LD_FORM_SO3XR3);
    path_in_dir(H->file, sizeof H->file, "hostile.bin");
    ld_integ *a = make(&H->f, LD_INTEG_GENALPHA, 0);
    assert_int_equal(ld_integ_init(a, 0.0, H->f.q0, H->f.v0), LD_OK);
    steps(a, 0, 3);
    double user[3] = {1, 2, 3};
    char good[128];
    path_in_dir(good, sizeof good, "good.bin");
    assert_int_equal(ld_integ_save(a, good, TAG, user, sizeof user, NULL, 0), LD_OK);
    H->n = read_bytes(good, H->good, sizeof H->good);
    unlink(good);
    ld_integ_free(a);
    const ld_system *s = &H->f.s; /* the layout the edits below assume (genalpha keeps k) */
    size_t nv = (size_t)s->nq + 3 * (size_t)s->k + (size_t)s->m;
    assert_int_equal(H->n, HEADER_BYTES + sizeof(ck_scalars) + 8 * nv + sizeof user + 8);
    H->it = make(&H->f, LD_INTEG_GENALPHA, 0);
    assert_int_equal(ld_integ_init(H->it, 0.0, H->f.q0, H->f.v0), LD_OK);
}

static void hostile_free(hostile *H) {
    ld_integ_free(H->it);
    fixture_free(&H->f);
    unlink(H->file);
}

/* The scalars of the copy being edited. */
static ck_scalars *scalars(hostile *H) {
    memcpy(H->buf, H->good, H->n);
    return (ck_scalars *)(void *)(H->buf + HEADER_BYTES);
}

/* Write the edited copy with a valid checksum; it must be refused with want. */
static void refused(hostile *H, const char *want) {
    reseal(H->buf, H->n);
    write_bytes(H->file, H->buf, H->n);
    assert_refused(H->it, &H->f.s, H->file, TAG, want);
}

/* Every hostile scalar is refused with its field, value and reason; the checksum is valid. */
static void test_hostile_scalars_are_refused(void **state) {
    (void)state;
    static hostile H;
    hostile_make(&H);
    memcpy(H.buf, H.good, H.n); /* the unedited copy, resealed, loads */
    reseal(H.buf, H.n);
    write_bytes(H.file, H.buf, H.n);
    double user[3];
    assert_int_equal(ld_integ_load(H.it, H.file, TAG, user, sizeof user, NULL, 0), LD_OK);
    assert_int_equal(ld_integ_init(H.it, 0.0, H.f.q0, H.f.v0), LD_OK);

    scalars(&H)->steps = INT64_MAX;
    refused(&H, "step count is 9223372036854775807: outside 0 ... 2^53");
    scalars(&H)->steps = -1;
    refused(&H, "step count is -1: outside 0 ... 2^53");
    scalars(&H)->newton_iterations = LD_CK_COUNT_MAX + 1;
    refused(&H, "Newton iterations is 9007199254740993: outside");
    scalars(&H)->factorizations = -5;
    refused(&H, "factorizations is -5");
    scalars(&H)->t = -INFINITY;
    refused(&H, "time t is -inf: not finite");
    scalars(&H)->t = NAN;
    refused(&H, "time t is nan: not finite");
    scalars(&H)->h_next = 0.0;
    refused(&H, "next step size is 0: not a positive finite step");
    scalars(&H)->h_next = INFINITY;
    refused(&H, "next step size is inf: not a positive finite step");
    scalars(&H)->last_h = -1e-3;
    refused(&H, "last step size is -0.001: not a finite step >= 0");
    scalars(&H)->last_err = -1.0;
    refused(&H, "last error estimate is -1: negative");
    scalars(&H)->h_cap = NAN;
    refused(&H, "step-size cap is nan: not positive");
    scalars(&H)->after_reject = 7;
    refused(&H, "rejection flag is 7: not 0 or 1");
    ck_scalars *c = scalars(&H);
    c->rejected = 1, c->error_test_failures = 1, c->newton_failures = 1;
    refused(&H, "rejected steps is 1: fewer than its error-test and solve failures");
    c = scalars(&H);
    c->roundoff_stops = c->newton_iterations + 1;
    refused(&H, "round-off stops is");
    c = scalars(&H);
    c->last_iterations = (int32_t)c->newton_iterations + 1;
    refused(&H, "last step's iterations is");
    scalars(&H)->last_iterations = -2;
    refused(&H, "last step's iterations is -2: outside 0 ... 2^53");
    hostile_free(&H);
}

/* A non-finite entry anywhere in the state is refused with its vector and index. */
static void test_hostile_states_are_refused(void **state) {
    (void)state;
    static hostile H;
    hostile_make(&H);
    const ld_system *s = &H.f.s;
    size_t at[5] = {0, (size_t)s->nq, (size_t)s->nq + (size_t)s->k,
                    (size_t)s->nq + 2 * (size_t)s->k,
                    (size_t)s->nq + 2 * (size_t)s->k + (size_t)s->m};
    const char *want[5] = {"configuration q entry 2 is nan", "velocity v entry 2 is inf",
                           "acceleration v' entry 2 is -inf", "multiplier entry 2 is nan",
                           "method state entry 2 is inf"};
    const double bad[5] = {NAN, INFINITY, -INFINITY, NAN, INFINITY};
    for (int i = 0; i < 5; ++i) {
        (void)scalars(&H);
        memcpy(H.buf + HEADER_BYTES + sizeof(ck_scalars) + 8 * (at[i] + 2), &bad[i], 8);
        refused(&H, want[i]);
    }
    hostile_free(&H);
}

/* The method parameters of the run that wrote a checkpoint must be the reader's: another
 * rho_inf, Newton tolerance, solver or step control is refused with both values. */
static void test_other_method_parameters_are_refused(void **state) {
    (void)state;
    static hostile H;
    hostile_make(&H);
    memcpy(H.buf, H.good, H.n);
    write_bytes(H.file, H.buf, H.n);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_GENALPHA;
    o.h_init = 1e-3;
    for (int i = 0; i < 6; ++i) {
        ld_integ_options p = o;
        const char *want = NULL;
        switch (i) {
        case 0:
            p.rho_inf = 0.5, want = "written with rho_inf = 0.9, this run uses rho_inf = 0.5";
            break;
        case 1:
            p.newton_atol = 1e-9, want = "written with newton_atol = 1e-10, this run uses "
                                         "newton_atol = 1e-09";
            break;
        case 2:
            p.la = LD_LA_KLU, want = "written with la = dense, this run uses la = klu";
            break;
        case 3:
            p.max_iter = 7, want = "written with max_iter = 20, this run uses max_iter = 7";
            break;
        case 4:
            p.newton_reuse = 1, want = "newton_reuse = 2, this run uses newton_reuse = 1";
            break;
        default:
            p.project = 1, want = "written with project = 0, this run uses project = 1";
        }
        int st = 0;
        ld_integ *b = ld_integ_create(&H.f.s, &p, &st);
        assert_non_null(b);
        assert_int_equal(ld_integ_init(b, 0.0, H.f.q0, H.f.v0), LD_OK);
        assert_refused(b, &H.f.s, H.file, TAG, want);
        ld_integ_free(b);
    }
    ck_scalars *c = scalars(&H); /* and a crafted file: its rho_inf edited, resealed */
    c->own[0] = 0.25;
    refused(&H, "written with rho_inf = 0.25, this run uses rho_inf = 0.9");
    c = scalars(&H);
    c->common[0] = 1e-300; /* newton_atol */
    refused(&H, "written with newton_atol = 1e-300, this run uses newton_atol = 1e-10");
    /* a file of the previous format (version 2, without the method parameters) */
    memcpy(H.buf, H.good, H.n);
    memcpy(H.buf + 8, &(uint32_t){2}, 4);
    refused(&H, "checkpoint format version 2, this build reads version 3");
    hostile_free(&H);
}

/* A save replaces the old checkpoint only when the new one is whole: no temporary is left
 * behind, and the file reads back. */
static void test_save_is_atomic(void **state) {
    (void)state;
    fixture f;
    fixture_make(&f, 1, LD_FORM_SO3XR3);
    char file[128];
    path_in_dir(file, sizeof file, "atomic.bin");
    ld_integ *a = make(&f, LD_INTEG_GENALPHA, 0);
    assert_int_equal(ld_integ_init(a, 0.0, f.q0, f.v0), LD_OK);
    for (int i = 0; i < 3; ++i) {
        steps(a, 0, 2);
        assert_int_equal(ld_integ_save(a, file, TAG, NULL, 0, NULL, 0), LD_OK);
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls %s | grep -c tmp >/dev/null", dir);
    assert_int_not_equal(system(cmd), 0); /* no temporary left */
    ld_integ *b = make(&f, LD_INTEG_GENALPHA, 0);
    assert_int_equal(ld_integ_load(b, file, TAG, NULL, 0, NULL, 0), LD_OK);
    assert_same_state(a, b, &f.s);
    ld_integ_free(a);
    ld_integ_free(b);
    fixture_free(&f);
    unlink(file);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/liedyn-ck-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_method_restarts_bit_for_bit),
        cmocka_unit_test(test_loaded_model_restarts_in_every_formulation),
        cmocka_unit_test(test_bad_checkpoints_are_refused),
        cmocka_unit_test(test_hostile_scalars_are_refused),
        cmocka_unit_test(test_hostile_states_are_refused),
        cmocka_unit_test(test_other_method_parameters_are_refused),
        cmocka_unit_test(test_save_is_atomic),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    return rc;
}

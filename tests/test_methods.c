/*
 * Every entry of the table of methods (ld_method_count, ld_method_get) against the contract of
 * integrator.h: a consistent descriptor, a clear refusal of the systems it declares it cannot
 * treat, a rejected step that leaves the state bit for bit, no allocation inside a step, and
 * its declared order of accuracy on a model it treats. A method added to the table is tested
 * here without a line of this file changing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "mbs_models.h"

#include "alloc_count.h"

typedef int (*force_fn)(const ld_system *s, double t, const double *q, const double *v, double *g);

/* A compiled model whose force can be made to ask for a smaller step (status > 0). */
typedef struct fixture {
    ld_model m;
    ld_system s;
    double *q0, *v0;
    force_fn force; /* the compiled model's */
} fixture;

static int fail_force; /* the wrapped force returns LD_RETRY while set */
static force_fn real_force;

static int flaky_force(const ld_system *s, double t, const double *q, const double *v, double *g) {
    if (fail_force) return LD_RETRY;
    return real_force(s, t, q, v, g);
}
/* The same for the fused evaluation of the Newton methods (system.h). */
static int (*real_eval)(const ld_system *s, const ld_newton_eval *e);
static int flaky_eval(const ld_system *s, const ld_newton_eval *e) {
    return fail_force ? LD_RETRY : real_eval(s, e);
}

/* The heavy top (constrained 1), the same body without its joint (0), or two bodies with a
 * joint and every kind of load (2), in formulation f. */
static void fixture_make(fixture *f, int constrained, ld_formulation form, double spin) {
    if (constrained == 2)
        tm_loaded(&f->m);
    else
        tm_heavy_top(&f->m, spin);
    if (!constrained) f->m.njoints = 0;
    assert_int_equal(ld_model_compile(&f->m, form, &f->s, &f->q0, &f->v0), LD_OK);
    f->force = f->s.ops.force;
}

static void fixture_free(fixture *f) {
    ld_model_system_free(&f->s);
    free(f->q0);
    free(f->v0);
}

/* A model the method treats: constrained if it can (the two-body model when `loaded`), in a
 * formulation it takes. */
static void fixture_for(fixture *f, const ld_method_info *d, double spin, int loaded) {
    fixture_make(f, d->constraints ? 1 + loaded : 0, LD_FORM_SO3XR3, spin);
}

static ld_integ *start(const fixture *f, int meth, ld_la_kind la, double h_init) {
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)meth;
    o.la = la;
    o.h_init = h_init;
    o.newton_atol = 1e-12;
    o.newton_rtol = 1e-12;
    int st = 0;
    char msg[256];
    ld_integ *it = ld_integ_create_msg(&f->s, &o, &st, msg, sizeof msg);
    if (!it) fail_msg("%s: create failed: %s", ld_method_get(meth)->name, msg);
    assert_int_equal(ld_integ_init(it, 0.0, f->q0, f->v0), LD_OK);
    return it;
}

static void test_descriptors_are_consistent(void **state) {
    (void)state;
    assert_true(ld_method_count() >= LD_INTEG_COUNT); /* the enum names the first entries */
    assert_null(ld_method_get(-1));
    assert_null(ld_method_get(ld_method_count()));
    for (int i = 0; i < ld_method_count(); ++i) {
        const ld_method_info *d = ld_method_get(i);
        assert_non_null(d);
        assert_string_equal(ld_integ_method_name((ld_integ_method)i), d->name);
        assert_int_equal(ld_integ_method_find(d->name), i);
        assert_true(d->title && d->title[0]);
        assert_true(d->order >= 1 && d->order <= 8);
        assert_true(d->order_estimate >= 0 && d->order_estimate < d->order + 1);
        assert_int_equal(ld_integ_method_has_estimate((ld_integ_method)i), d->order_estimate > 0);
        /* a method that refuses something says why */
        assert_int_equal(!d->constraints || !d->euler, d->refuses[0] != '\0');
        ld_integ_options o;
        ld_integ_options_init(&o);
        for (int j = 0; j < d->nparams; ++j) { /* defaults inside the ranges, found by key */
            const ld_method_param *p = &d->params[j];
            assert_true(p->lo <= p->def && p->def <= p->hi);
            assert_true(ld_method_param_value(&o, p) == p->def);
            assert_ptr_equal(ld_method_param_find(p->key, NULL), p);
            assert_ptr_equal(ld_method_param_find(p->option, NULL), p);
            assert_true(p->help[0] && p->range[0] && strncmp(p->option, "--", 2) == 0);
        }
    }
    assert_null(ld_method_param_find("no-such-parameter", NULL));
}

/* A parameter outside its range is refused with the range in the message, for the method
 * that has it only. */
static void test_parameter_ranges_come_from_the_descriptors(void **state) {
    (void)state;
    fixture f;
    fixture_make(&f, 1, LD_FORM_SO3XR3, 1.0);
    for (int i = 0; i < ld_method_count(); ++i) {
        const ld_method_info *d = ld_method_get(i);
        for (int j = 0; j < d->nparams; ++j) {
            const ld_method_param *p = &d->params[j];
            ld_integ_options o;
            ld_integ_options_init(&o);
            o.method = (ld_integ_method)i;
            double bad = p->hi + 1.0;
            memcpy((char *)&o + p->offset, &bad, sizeof bad);
            const char *why = ld_integ_options_check(d->constraints ? &f.s : NULL, &o);
            assert_non_null(why);
            assert_non_null(strstr(why, p->key));
            assert_non_null(strstr(why, p->range));
            for (int k = 0; k < ld_method_count(); ++k) { /* others ignore it */
                const ld_method_info *e = ld_method_get(k);
                int has = 0;
                for (int l = 0; l < e->nparams; ++l) has |= e->params[l].offset == p->offset;
                if (has || !e->constraints) continue;
                o.method = (ld_integ_method)k;
                assert_null(ld_integ_options_check(&f.s, &o));
            }
        }
    }
    fixture_free(&f);
}

/* Systems a method declares it cannot treat are refused at creation: LD_ENOTSUPPORTED and the
 * descriptor's reason. */
static void test_refusals(void **state) {
    (void)state;
    fixture con, eul;
    fixture_make(&con, 1, LD_FORM_SO3XR3, 1.0);
    fixture_make(&eul, 0, LD_FORM_EULER, 1.0);
    for (int i = 0; i < ld_method_count(); ++i) {
        const ld_method_info *d = ld_method_get(i);
        for (int which = 0; which < 2; ++which) {
            if (which == 0 ? d->constraints : d->euler) continue;
            ld_integ_options o;
            ld_integ_options_init(&o);
            o.method = (ld_integ_method)i;
            int st = 0;
            char msg[256];
            ld_integ *it =
                ld_integ_create_msg(which == 0 ? &con.s : &eul.s, &o, &st, msg, sizeof msg);
            assert_null(it);
            assert_int_equal(st, LD_ENOTSUPPORTED);
            assert_string_equal(msg, d->refuses);
        }
    }
    fixture_free(&con);
    fixture_free(&eul);
}

/* A step whose model asks for a smaller step is rejected and leaves everything bit for bit;
 * the same step then succeeds. */
static void check_rejection(int meth) {
    fixture f;
    fixture_for(&f, ld_method_get(meth), 1.0, 1);
    ld_integ *it = start(&f, meth, LD_LA_AUTO, 1e-3);
    for (int i = 0; i < 3; ++i) assert_int_equal(ld_integ_advance(it, 1e-3), LD_OK);
    size_t nq = (size_t)f.s.nq, k = (size_t)f.s.k, m = (size_t)f.s.m;
    size_t bytes = (nq + 2 * k + m) * sizeof(double);
    double *before = malloc(bytes), *after = malloc(bytes);
    assert_non_null(before);
    assert_non_null(after);
    memcpy(before, ld_integ_q(it), nq * sizeof(double));
    memcpy(before + nq, ld_integ_v(it), k * sizeof(double));
    memcpy(before + nq + k, ld_integ_vdot(it), k * sizeof(double));
    memcpy(before + nq + 2 * k, ld_integ_lambda(it), m * sizeof(double));
    double t = ld_integ_t(it);
    real_force = f.force;
    f.s.ops.force = flaky_force;
    real_eval = f.s.ops.eval_newton;
    if (real_eval) f.s.ops.eval_newton = flaky_eval;
    fail_force = 1;
    int rc = ld_integ_step(it, 1e-3);
    fail_force = 0;
    assert_int_equal(rc, LD_RETRY);
    assert_true(ld_integ_message(it)[0] != '\0');
    memcpy(after, ld_integ_q(it), nq * sizeof(double));
    memcpy(after + nq, ld_integ_v(it), k * sizeof(double));
    memcpy(after + nq + k, ld_integ_vdot(it), k * sizeof(double));
    memcpy(after + nq + 2 * k, ld_integ_lambda(it), m * sizeof(double));
    assert_memory_equal(before, after, bytes);
    assert_true(ld_integ_t(it) == t);
    assert_int_equal(ld_integ_step(it, 1e-3), LD_OK);
    f.s.ops.force = f.force;
    f.s.ops.eval_newton = real_eval;
    free(before);
    free(after);
    ld_integ_free(it);
    fixture_free(&f);
}

static void test_rejected_steps_restore_the_state(void **state) {
    (void)state;
    for (int i = 0; i < ld_method_count(); ++i) /* a model's data cannot ask for a retry */
        if (!ld_method_get(i)->model_only) check_rejection(i);
}

/* No allocation in steps after the first (which may set up the sparse pattern), with the
 * dense and the sparse solver, fixed and controlled steps. */
static void test_no_allocation_in_a_step(void **state) {
    (void)state;
    for (int i = 0; i < ld_method_count(); ++i) {
        const ld_method_info *d = ld_method_get(i);
        for (int la = 0; la < 2; ++la) {
            for (int adaptive = 0; adaptive <= (d->order_estimate > 0); ++adaptive) {
                fixture f;
                fixture_for(&f, d, 1.0, 1);
                ld_integ_options o;
                ld_integ_options_init(&o);
                o.method = (ld_integ_method)i;
                o.la = la ? LD_LA_KLU : LD_LA_DENSE;
                o.adaptive = adaptive;
                o.h_init = 1e-3;
                ld_integ *it = ld_integ_create(&f.s, &o, NULL);
                assert_non_null(it);
                assert_int_equal(ld_integ_init(it, 0.0, f.q0, f.v0), LD_OK);
                assert_int_equal(ld_integ_advance(it, 1e-3), LD_OK);
                long before = n_alloc;
                for (int s = 0; s < 5; ++s)
                    assert_int_equal(adaptive ? ld_integ_step_adaptive(it, 1.0)
                                              : ld_integ_advance(it, 1e-3),
                                     LD_OK);
                if (n_alloc != before)
                    fail_msg("%s (%s, adaptive %d): %ld allocations in 5 steps", d->name,
                             la ? "klu" : "dense", adaptive, n_alloc - before);
                ld_integ_free(it);
                fixture_free(&f);
            }
        }
    }
}

/* No allocation in a step on a beam model either (the beam element's evaluation, the
 * structured sparse path, damping), for every method that takes it, dense and KLU. */
static void test_no_allocation_on_a_beam(void **state) {
    (void)state;
    char path[4608];
    snprintf(path, sizeof path, "%s/models/right-angle-cantilever.yaml", LD_SOURCE_DIR);
    ld_model m;
    ld_model_error err;
    if (ld_model_load(path, &m, &err)) fail_msg("%s", err.msg);
    m.beams[0].damping = 1e-3;
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    for (int i = 0; i < ld_method_count(); ++i)
        for (int la = 0; la < 2; ++la) {
            ld_integ_options o;
            ld_integ_options_init(&o);
            o.method = (ld_integ_method)i;
            o.la = la ? LD_LA_KLU : LD_LA_DENSE;
            if (ld_integ_options_check(&s, &o)) continue;
            ld_integ *it = ld_integ_create(&s, &o, NULL);
            assert_non_null(it);
            assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
            assert_int_equal(ld_integ_advance(it, 1e-5), LD_OK);
            long before = n_alloc;
            for (int k = 0; k < 3; ++k) assert_int_equal(ld_integ_advance(it, 1e-5), LD_OK);
            if (n_alloc != before)
                fail_msg("%s (%s) on a beam: %ld allocations in 3 steps", ld_method_get(i)->name,
                         la ? "klu" : "dense", n_alloc - before);
            ld_integ_free(it);
        }
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* The configuration after T = 0.25 at step h. */
static void run_to(const fixture *f, int meth, double h, double *q) {
    ld_integ *it = start(f, meth, LD_LA_AUTO, h);
    int n = (int)lround(0.25 / h);
    for (int i = 1; i <= n; ++i) assert_int_equal(ld_integ_advance_to(it, i * h), LD_OK);
    memcpy(q, ld_integ_q(it), (size_t)f->s.nq * sizeof(double));
    ld_integ_free(it);
}

static double dist(const double *a, const double *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(s);
}

/* The observed order from three runs at h, h/2, h/4: log2 of the ratio of the differences
 * of successive results (no exact solution needed), on the slow heavy top (constrained) or
 * the same body free. h is chosen per order so that the differences stay far above round-off. */
static void test_declared_orders(void **state) {
    (void)state;
    for (int i = 0; i < ld_method_count(); ++i) {
        const ld_method_info *d = ld_method_get(i);
        fixture f;
        fixture_for(&f, d, 0.1, 0);
        double h = d->order >= 5 ? 0.025 : d->order == 4 ? 0.05 : 0.0125;
        int nq = f.s.nq;
        double *q = malloc(3 * (size_t)nq * sizeof(double));
        assert_non_null(q);
        for (int r = 0; r < 3; ++r) run_to(&f, i, h / (double)(1 << r), q + r * nq);
        double e1 = dist(q, q + nq, nq), e2 = dist(q + nq, q + 2 * nq, nq);
        double p = log2(e1 / e2);
        print_message("  %-13s declared %d, observed %.2f (differences %.2e, %.2e)\n", d->name,
                      d->order, p, e1, e2);
        if (!(fabs(p - d->order) < 0.35))
            fail_msg("%s: observed order %.2f, declared %d", d->name, p, d->order);
        free(q);
        fixture_free(&f);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptors_are_consistent),
        cmocka_unit_test(test_parameter_ranges_come_from_the_descriptors),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_rejected_steps_restore_the_state),
        cmocka_unit_test(test_no_allocation_in_a_step),
        cmocka_unit_test(test_no_allocation_on_a_beam),
        cmocka_unit_test(test_declared_orders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

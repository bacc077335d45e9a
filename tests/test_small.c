/*
 * The small-system path of the integrators (src/sys/integ_small.c): the fixed-size LU against
 * the residual of the solved system and the dense backend of linalg.h for every n it covers,
 * its singular and out-of-range cases; and every integrator on the heavy top and a free body
 * (k + m ≤ 12) in every formulation it accepts, taking the small path by default and agreeing
 * with the generic path (ld_integ__set_generic) to round-off in the state, the multipliers and
 * the iteration counts, for fixed, controlled, projected steps and a kept Newton matrix.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../src/sys/integ_impl.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/linalg.h"
#include "mbs_models.h"

/* A random n×n matrix with a dominant diagonal of random sign, and b = A x for a random x. */
/* ld_small_copy_max into a scratch array, whose copy must equal x bit for bit. */
static int scan(const double *x, int n, double *amax) {
    double d[LD_SMALL_N * LD_SMALL_N];
    int ok = ld_small_copy_max(d, x, n, amax);
    assert_memory_equal(d, x, (size_t)n * sizeof(double));
    return ok;
}

static void random_system(rng *r, int n, double *A, double *x, double *b) {
    for (int i = 0; i < n * n; ++i) A[i] = rng_range(r, -1.0, 1.0);
    for (int i = 0; i < n; ++i) A[i * n + i] += (rng_unif(r) < 0.5 ? -1.0 : 1.0) * (double)n;
    for (int i = 0; i < n; ++i) x[i] = rng_range(r, -2.0, 2.0);
    for (int i = 0; i < n; ++i) {
        b[i] = 0.0;
        for (int j = 0; j < n; ++j) b[i] += A[i * n + j] * x[j];
    }
}

/* Every n from 1 to LD_SMALL_N: the solution to 1e-11 relative, the same as the dense
 * backend's (the same elimination) to 1e-15; also with pivoting forced (zero diagonal). */
static void test_lu(void **state) {
    (void)state;
    rng r = rng_seed(11);
    double A[LD_SMALL_N * LD_SMALL_N], a[LD_SMALL_N * LD_SMALL_N], x[LD_SMALL_N], b[LD_SMALL_N];
    double y[LD_SMALL_N];
    int piv[LD_SMALL_N];
    for (int n = 1; n <= LD_SMALL_N; ++n)
        for (int trial = 0; trial < 20; ++trial) {
            random_system(&r, n, A, x, b);
            if (trial % 2 && n > 1) { /* a zero leading pivot: a row swap is needed */
                A[0] = 0.0;
                for (int i = 0; i < n; ++i) {
                    b[i] = 0.0;
                    for (int j = 0; j < n; ++j) b[i] += A[i * n + j] * x[j];
                }
            }
            memcpy(a, A, sizeof(double) * (size_t)(n * n));
            double amax;
            assert_int_equal(scan(a, n * n, &amax), 1);
            assert_int_equal(ld_small_lu(a, piv, n, amax), LD_OK);
            memcpy(y, b, sizeof(double) * (size_t)n);
            ld_small_solve(a, piv, n, y);
            if (!(maxabs_diff(y, x, n) <= 1e-11 * (1.0 + maxabs(x, n))))
                fail_msg("n = %d: error %.3e", n, maxabs_diff(y, x, n));
            ld_la *la = ld_la_create(LD_LA_DENSE, n);
            assert_non_null(la);
            assert_int_equal(ld_la_factor_dense(la, A), LD_OK);
            double z[LD_SMALL_N];
            memcpy(z, b, sizeof(double) * (size_t)n);
            assert_int_equal(ld_la_solve(la, z), LD_OK);
            ld_la_free(la);
            if (!(maxabs_diff(y, z, n) <= 1e-15 * (1.0 + maxabs(x, n))))
                fail_msg("n = %d: differs from the dense backend by %.3e", n, maxabs_diff(y, z, n));
        }
}

/* Singular matrices (a zero column, two equal rows) are refused as the dense backend refuses
 * them; n outside 1 … LD_SMALL_N is LD_EINVAL; a non-finite entry fails the scan. */
static void test_lu_refusals(void **state) {
    (void)state;
    rng r = rng_seed(5);
    double A[LD_SMALL_N * LD_SMALL_N], x[LD_SMALL_N], b[LD_SMALL_N], amax;
    int piv[LD_SMALL_N];
    for (int n = 2; n <= LD_SMALL_N; ++n) {
        random_system(&r, n, A, x, b);
        for (int i = 0; i < n; ++i) A[i * n + n - 1] = 0.0;
        assert_int_equal(scan(A, n * n, &amax), 1);
        assert_int_equal(ld_small_lu(A, piv, n, amax), LD_ESINGULAR);
        random_system(&r, n, A, x, b);
        memcpy(A + n, A, sizeof(double) * (size_t)n);
        assert_int_equal(scan(A, n * n, &amax), 1);
        assert_int_equal(ld_small_lu(A, piv, n, amax), LD_ESINGULAR);
    }
    assert_int_equal(ld_small_lu(A, piv, 0, 1.0), LD_EINVAL);
    assert_int_equal(ld_small_lu(A, piv, LD_SMALL_N + 1, 1.0), LD_EINVAL);
    for (int n = 1; n <= 9; ++n) {
        for (int i = 0; i < n; ++i) x[i] = 1.0;
        x[n - 1] = n % 2 ? NAN : -INFINITY;
        assert_int_equal(ld_small_finite(x, n), 0);
        assert_int_equal(scan(x, n, &amax), 0);
        x[n - 1] = 1e308;
        assert_int_equal(ld_small_finite(x, n), 1);
        assert_int_equal(scan(x, n, &amax), 1);
        assert_true(amax == 1e308);
    }
    /* the scan (the copy checked too): a NaN with its sign bit set, −inf, −0, subnormals and
     * the largest negative value, and max |x_i| exactly for random signs and magnitudes */
    const double odd[] = {-NAN, INFINITY, -INFINITY};
    for (int c = 0; c < 3; ++c)
        for (int n = 1; n <= 9; ++n) {
            for (int i = 0; i < n; ++i) x[i] = -1.0;
            x[n / 2] = odd[c];
            assert_int_equal(scan(x, n, &amax), 0);
        }
    double t[LD_SMALL_N * LD_SMALL_N];
    for (int trial = 0; trial < 200; ++trial) {
        int n = 1 + (int)(rng_unif(&r) * LD_SMALL_N * LD_SMALL_N);
        if (n > LD_SMALL_N * LD_SMALL_N) n = LD_SMALL_N * LD_SMALL_N;
        double want = 0.0;
        for (int i = 0; i < n; ++i) {
            double u = rng_unif(&r);
            t[i] = u < 0.1   ? -0.0
                   : u < 0.2 ? 4.9e-324 * (double)(i + 1)
                   : u < 0.3 ? -DBL_MAX
                             : rng_range(&r, -1.0, 1.0) * pow(10.0, rng_range(&r, -300.0, 300.0));
            want = fabs(t[i]) > want ? fabs(t[i]) : want;
        }
        assert_int_equal(scan(t, n, &amax), 1);
        if (!(amax == want) || signbit(amax)) fail_msg("n = %d: %.17g, want %.17g", n, amax, want);
    }
}

typedef struct outcome {
    int rc;
    double q[16], v[16], lam[16];
    ld_integ_stats st;
    int small;
} outcome;

/* nsteps of h (or controlled steps to nsteps·h) on the given path. */
static outcome run_path(const ld_system *s, const ld_integ_options *o, const double *q0,
                        const double *v0, int generic, int nsteps, double h) {
    outcome r;
    memset(&r, 0, sizeof r);
    int rc;
    ld_integ *it = ld_integ_create(s, o, &rc);
    assert_non_null(it);
    ld_integ__set_generic(it, generic);
    r.small = ld_integ__small(it);
    r.rc = ld_integ_init(it, 0.0, q0, v0);
    if (r.rc == LD_OK && o->adaptive) r.rc = ld_integ_advance_to(it, nsteps * h);
    for (int i = 1; r.rc == LD_OK && !o->adaptive && i <= nsteps; ++i)
        r.rc = ld_integ_advance_to(it, i * h);
    memcpy(r.q, ld_integ_q(it), sizeof(double) * (size_t)s->nq);
    memcpy(r.v, ld_integ_v(it), sizeof(double) * (size_t)s->k);
    memcpy(r.lam, ld_integ_lambda(it), sizeof(double) * (size_t)s->m);
    ld_integ_get_stats(it, &r.st);
    ld_integ_free(it);
    return r;
}

/* Relative difference of two vectors (scale 1 + the largest entry). */
static double rel(const double *a, const double *b, int n) {
    return maxabs_diff(a, b, n) / (1.0 + maxabs(a, n));
}

/* Both paths of one configuration: the small one taken, the same counts, the same state. */
static int compare(const ld_model *m, ld_formulation f, ld_integ_options *o, int nsteps) {
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(m, f, &s, &q0, &v0), LD_OK);
    int ran = 0;
    if (!ld_integ_options_check(&s, o)) {
        outcome a = run_path(&s, o, q0, v0, 0, nsteps, 1e-3);
        outcome b = run_path(&s, o, q0, v0, 1, nsteps, 1e-3);
        const char *name = ld_method_get((int)o->method)->name;
        if (!a.small || b.small) fail_msg("%s (%d): the small path was not selected", name, f);
        assert_int_equal(a.rc, LD_OK);
        assert_int_equal(b.rc, LD_OK);
        assert_int_equal(a.st.steps, b.st.steps);
        assert_int_equal(a.st.newton_iterations, b.st.newton_iterations);
        assert_int_equal(a.st.factorizations, b.st.factorizations);
        assert_int_equal(a.st.rejected, b.st.rejected);
        double d = fmax(rel(a.q, b.q, s.nq), fmax(rel(a.v, b.v, s.k), rel(a.lam, b.lam, s.m)));
        if (!(d <= 1e-12)) fail_msg("%s (formulation %d): paths differ by %.3e", name, f, d);
        ran = 1;
    }
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return ran;
}

/* Every method on the fast heavy top (every formulation, the euler one with k + m = 11) and on
 * the free body without joints (tb3, which takes no constraints). */
static void test_paths(void **state) {
    (void)state;
    ld_model m;
    int ran = 0;
    for (int free_body = 0; free_body < 2; ++free_body) {
        tm_heavy_top(&m, 1.0);
        if (free_body) m.njoints = 0;
        for (int f = 0; f < LD_FORM_COUNT; ++f)
            for (int meth = 0; meth < LD_INTEG_COUNT; ++meth) {
                ld_integ_options o;
                ld_integ_options_init(&o);
                o.method = (ld_integ_method)meth;
                o.la = LD_LA_DENSE;
                ran += compare(&m, (ld_formulation)f, &o, 100);
            }
    }
    assert_true(ran >= 40);
}

/* Controlled hem5 and tb3 steps, hem5 with projection, genalpha and hht with a kept matrix. */
static void test_paths_options(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.la = LD_LA_DENSE;
    o.method = LD_INTEG_HEM5;
    o.adaptive = 1;
    assert_int_equal(compare(&m, LD_FORM_SO3XR3, &o, 50), 1);
    o.adaptive = 0;
    o.project = 1;
    assert_int_equal(compare(&m, LD_FORM_S3XR3, &o, 50), 1);
    ld_integ_options_init(&o);
    o.la = LD_LA_DENSE;
    o.newton_reuse = 1;
    o.method = LD_INTEG_GENALPHA;
    assert_int_equal(compare(&m, LD_FORM_SE3, &o, 100), 1);
    o.method = LD_INTEG_HHT_MODIFIED;
    assert_int_equal(compare(&m, LD_FORM_EULER, &o, 100), 1);
    m.njoints = 0;
    ld_integ_options_init(&o);
    o.la = LD_LA_DENSE;
    o.method = LD_INTEG_TB3;
    o.adaptive = 1;
    assert_int_equal(compare(&m, LD_FORM_SO3XR3, &o, 50), 1);
}

/* The sparse solver, or more than LD_SMALL_N unknowns, keep the generic path. */
static void test_path_selection(void **state) {
    (void)state;
    ld_model m;
    tm_loaded(&m); /* two bodies: k = 12, m = 3 */
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.la = LD_LA_DENSE;
    int rc;
    ld_integ *it = ld_integ_create(&s, &o, &rc);
    assert_non_null(it);
    assert_int_equal(ld_integ__small(it), 0);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    tm_heavy_top(&m, 1.0);
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    o.la = LD_LA_KLU;
    it = ld_integ_create(&s, &o, &rc);
    assert_non_null(it);
    assert_int_equal(ld_integ__small(it), 0);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* A model compiled in so3xr3 and an integrator (default options, linear solver la) that has
 * taken one step of 1e-3, so that its S, K and factors are those of a real iteration. */
typedef struct stepped {
    ld_system s;
    double *q0, *v0;
    ld_integ *it;
} stepped;

static void stepped_start(stepped *x, const ld_model *m, ld_la_kind la) {
    assert_int_equal(ld_model_compile(m, LD_FORM_SO3XR3, &x->s, &x->q0, &x->v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.la = la;
    int rc;
    x->it = ld_integ_create(&x->s, &o, &rc);
    assert_non_null(x->it);
    assert_int_equal(ld_integ_init(x->it, 0.0, x->q0, x->v0), LD_OK);
    assert_int_equal(ld_integ_step(x->it, 1e-3), LD_OK);
}

static void stepped_free(stepped *x) {
    ld_integ_free(x->it);
    free(x->q0);
    free(x->v0);
    ld_model_system_free(&x->s);
}

/* A non-finite entry of the iteration matrix is found by the factorization's copy: LD_EDOMAIN
 * with the reason named (the step is rejected, not aborted), whatever entry it is in; with
 * the entry finite again the same matrix factors. */
static void test_factor_nonfinite(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    stepped x;
    stepped_start(&x, &m, LD_LA_DENSE);
    ld_integ *it = x.it;
    assert_true(ld_integ__small(it));
    int n = it->n;
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int e = 0; e < n * n; ++e) {
        double keep = it->S[e];
        it->S[e] = bad[e % 3];
        it->why = NULL;
        assert_int_equal(ld_integ__small_factor(it), LD_EDOMAIN);
        assert_non_null(it->why);
        assert_string_equal(it->why, "non-finite iteration matrix");
        it->S[e] = keep;
    }
    assert_int_equal(ld_integ__small_factor(it), LD_OK);
    stepped_free(&x);
}

/* Past the small path (two tops, k + m = 18, dense solver) the fill itself checks S: a
 * non-finite entry of K gives LD_EDOMAIN with the reason named, for the fill that the
 * small path shares and for the generic one. */
static void test_dense_fill_nonfinite(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    tm_add_second_top(&m);
    stepped x;
    stepped_start(&x, &m, LD_LA_DENSE);
    ld_integ *it = x.it;
    assert_false(ld_integ__small(it));
    for (int generic = 0; generic < 2; ++generic) {
        ld_integ__set_generic(it, generic);
        assert_int_equal(ld_integ__dense_fill(it, 1.0, 1.0, 1.0), LD_OK);
        double keep = it->K[3];
        it->K[3] = NAN;
        it->why = NULL;
        assert_int_equal(ld_integ__dense_fill(it, 1.0, 1.0, 1.0), LD_EDOMAIN);
        assert_non_null(it->why);
        assert_string_equal(it->why, "non-finite iteration matrix");
        it->K[3] = keep;
    }
    stepped_free(&x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lu),
        cmocka_unit_test(test_lu_refusals),
        cmocka_unit_test(test_factor_nonfinite),
        cmocka_unit_test(test_dense_fill_nonfinite),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_paths_options),
        cmocka_unit_test(test_path_selection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

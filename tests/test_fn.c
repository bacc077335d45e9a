/*
 * Coefficient functions (src/lie/fn.c) against quad-precision references: relative error on
 * [0, 6], magnitude-scaled error up to 100, continuity at every series threshold and term
 * bracket, and the quad reference checked against itself where series and closed form meet.
 */
#include "support.h"

#include "fn.h"
#include "quadref.h"

typedef double (*fn1)(double);

static const struct {
    const char *name;
    fn1 f;
    enum qfn q;
    int p; /* far-field magnitude of the closed form's terms ~ 1/x^p */
} FN[] = {
    {"sin x/x", ld_fn_sinx_x, QA, 1},
    {"(1-cos x)/x^2", ld_fn_1mcosx_x2, QB, 2},
    {"(x-sin x)/x^3", ld_fn_xmsinx_x3, QC, 2},
    {"(2-2cos x-x sin x)/x^4", ld_fn_d4, QD, 3},
    {"(x(2+cos x)-3sin x)/x^5", ld_fn_e5, QE, 4},
    {"(1-(x/2)cot(x/2))/x^2", ld_fn_tinv_x, QG, 1},
    {"sin(x/2)/x", ld_fn_half_sinc, QH, 1},
};
#define NFN ((int)(sizeof FN / sizeof FN[0]))

/* Tolerance of every function, relative: 4 ulps-ish. */
#define TOL_REL (4.0 * EPS)

static double rel_err(int k, double x) {
    quad r = q_ref(FN[k].q, (quad)x);
    return (double)fabsq(((quad)FN[k].f(x) - r) / r);
}

/* Relative accuracy on [0, 6] (no zeros there but for sin x/x at pi, which stays accurate). */
static void test_relative_small(void **state) {
    (void)state;
    rng r = rng_seed(11);
    for (int k = 0; k < NFN; ++k) {
        worst w = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double x = (i % 2) ? rng_logrange(&r, 1e-12, 1.0) : rng_range(&r, 0.0, 6.0);
            if (FN[k].q == QA && fabs(x - PI) < 1e-3) continue; /* zero of sin x/x */
            worst_add(&w, rel_err(k, x), TOL_REL, x);
        }
        worst_check(&w, FN[k].name, "[0,6]");
        assert_true(FN[k].f(0.0) == (double)q_series(FN[k].q == QG ? QD : FN[k].q, 0) /
                                        (FN[k].q == QG ? 2 * q_series(QB, 0) : 1));
    }
}

/* Large x: error relative to the magnitude of the closed form's terms. */
static void test_large(void **state) {
    (void)state;
    rng r = rng_seed(12);
    for (int k = 0; k < NFN; ++k) {
        worst w = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double x = rng_range(&r, 6.0, 100.0);
            double scale = pow(x, -FN[k].p);
            if (FN[k].q == QG) {
                double m = fmod(x, 2.0 * PI);
                if (m < 0.1 || m > 2.0 * PI - 0.1) continue; /* poles at 2 pi k */
                scale = fabs(cos(0.5 * x) / sin(0.5 * x)) / x;
            }
            quad ref = q_ref(FN[k].q, (quad)x);
            double err = (double)fabsq((quad)FN[k].f(x) - ref);
            worst_add(&w, err, 8.0 * EPS * (fabs((double)ref) + scale), x);
        }
        worst_check(&w, FN[k].name, "[6,100]");
    }
}

/* Every place where a function changes formula or term count. */
static const double SWITCHES[] = LD_FN_SWITCH_POINTS;

static void test_continuity(void **state) {
    (void)state;
    for (int k = 0; k < NFN; ++k)
        for (size_t s = 0; s < sizeof SWITCHES / sizeof SWITCHES[0]; ++s) {
            double t = SWITCHES[s], below = nextafter(t, 0.0);
            double fa = FN[k].f(below), fb = FN[k].f(t);
            double jump = fabs(fb - fa) / fabs(fb);
            if (!(jump <= 1e-14))
                fail_msg("%s: relative jump %.3e at switch %g", FN[k].name, jump, t);
            if (!(rel_err(k, below) <= TOL_REL && rel_err(k, t) <= TOL_REL))
                fail_msg("%s: error %.3e / %.3e eps just below / at switch %g", FN[k].name,
                         rel_err(k, below) / EPS, rel_err(k, t) / EPS, t);
        }
}

/* The reference's two branches agree where they meet (validates the reference itself). */
static void test_reference(void **state) {
    (void)state;
    for (int k = 0; k < QFN_COUNT; ++k) {
        if (k == QG) continue;
        for (double x = 0.01; x <= 0.05; x += 0.01) {
            quad a = q_series((enum qfn)k, x), b = q_closed((enum qfn)k, x);
            assert_true(fabsq((a - b) / b) < (quad)1e-24);
        }
    }
}

/* The S³ log factor 2 atan2(s, w)/s is exact in structure: compare with quad. */
static void test_log_factor(void **state) {
    (void)state;
    rng r = rng_seed(13);
    worst w = WORST_INIT;
    for (int i = 0; i < NSAMPLES; ++i) {
        double phi = (i % 2) ? rng_logrange(&r, 1e-300, 1.0) : rng_range(&r, 0.0, 2.0 * PI);
        double s = sin(0.5 * phi), c = cos(0.5 * phi);
        quad ref = 2 * atan2q((quad)s, (quad)c) / (quad)s;
        worst_add(&w, (double)fabsq(((quad)ld_fn_log_factor(s, c) - ref) / ref), TOL_REL, phi);
    }
    worst_check(&w, "2 atan2(s,w)/s", "[0,2pi]");
    assert_true(ld_fn_log_factor(0.0, 1.0) == 2.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relative_small), cmocka_unit_test(test_large),
        cmocka_unit_test(test_continuity),     cmocka_unit_test(test_reference),
        cmocka_unit_test(test_log_factor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

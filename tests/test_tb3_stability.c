/*
 * Linear stability of the TR-BDF2 scheme (tb3, tb3-paper) on the undamped oscillator
 * x'' = -w^2 x, measured through the public API on a free body held by a linear spring, and
 * compared with the spectral radius of the one-step amplification matrix derived here from the
 * stage equations (docs/reproduction-000.md, "Linear stability on the oscillator").
 *
 * The amplification matrix is written in the scaled state (x, h v, h^2 a), z = w h:
 *   stage 1 (trapezoidal rule to t + tau h), unknown hv1 = h v-bar:
 *     x1 = x + tau hv1,  v1 = 2 hv1 - hv,  a1 = -a - (4/tau) hv + (4/tau) hv1 = -z^2 x1;
 *   stage 2 (BDF2 to t + h), unknown hv2:
 *     x2 = x + hv2,  v2 = (2/tau)(hv2 - w (hv + v1)),  a2 = (2/tau)(v2 - hv - w (a + a1))
 *        = -z^2 x2;
 *   stage 3: x3 = x + b1 hv + b2 v1 + b3 v2, with (b1, b2, b3) = ((1 - w)/3, (3w + 1)/3, tau/6);
 *     tb3:       v3 = hv + b1 a + b2 a1 + b3 a2, a3 = -z^2 x3 (the acceleration of the new state);
 *     tb3-paper: v3 = v2, a3 = a2 (the stage-2 values are kept).
 * tau = 2 - sqrt 2, w = sqrt 2 / 4. tb3-paper carries a2, which is not -z^2 x3: its state is
 * three-dimensional. For tb3 the image lies in a = -z^2 x, so its third eigenvalue is 0 and the
 * spectral radius is that of the 2x2 map on (x, hv), closed form
 *   rho^2 = (p^2 + z^2 q^2) / d^4,  d = 1 + (tau z / 2)^2,
 *   p = 1 + (5/2 - 2 sqrt 2) z^2 + (7/3 - 5 sqrt 2 / 3) z^4,
 *   q = 1 + (17/6 - 2 sqrt 2) z^2 + (2 - 17 sqrt 2 / 12) z^4.
 * The measured growth per step of the amplitude sqrt(x^2 + (v/w)^2) must match the spectral
 * radius: a change of the stage weights, of the kept velocity or of the predictor-free stage
 * solution moves it by far more than the tolerance.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define SQRT2 1.41421356237309504880
#define OMEGA 1000.0 /* rad/s: mass 2 kg, stiffness 2e6 N/m */

static const double TAU = 2.0 - SQRT2, W = SQRT2 / 4.0;

/* ------------------------------------------------------------------ the analysis */

/* One step of the scheme on the scaled state s = (x, h v, h^2 a) in place. */
static void scheme_step(double z, int paper, double s[3]) {
    const double b1 = (1.0 - W) / 3.0, b2 = (3.0 * W + 1.0) / 3.0, b3 = TAU / 6.0;
    double x = s[0], v = s[1], a = s[2], z2 = z * z;
    /* stage 1: -a - (4/tau) v + (4/tau) hv1 = -z^2 (x + tau hv1) */
    double hv1 = (a + 4.0 / TAU * v - z2 * x) / (4.0 / TAU + z2 * TAU);
    double x1 = x + TAU * hv1, v1 = 2.0 * hv1 - v, a1 = -z2 * x1;
    /* stage 2: (2/tau)((2/tau)(hv2 - w (v + v1)) - v - w (a + a1)) = -z^2 (x + hv2) */
    double c = 2.0 / TAU;
    double hv2 = (c * (c * W * (v + v1) + v + W * (a + a1)) - z2 * x) / (c * c + z2);
    double x2 = x + hv2, v2 = c * (hv2 - W * (v + v1)), a2 = -z2 * x2;
    double x3 = x + b1 * v + b2 * v1 + b3 * v2;
    if (paper) {
        s[0] = x3, s[1] = v2, s[2] = a2;
    } else {
        s[0] = x3, s[1] = v + b1 * a + b2 * a1 + b3 * a2, s[2] = -z2 * x3;
    }
}

static void mat3_square(double C[3][3], double A[3][3]) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double acc = 0.0;
            for (int l = 0; l < 3; ++l) acc += A[i][l] * A[l][j];
            C[i][j] = acc;
        }
}

/* Spectral radius of the amplification matrix G(z): the growth of ||G^N||^(1/N) with
 * N = 2^60, by repeated squaring with the scale kept apart as a logarithm. */
static double spectral_radius(double z, int paper) {
    double G[3][3], S[3][3];
    for (int j = 0; j < 3; ++j) { /* column j: the step applied to unit vector j */
        double s[3] = {0.0, 0.0, 0.0};
        s[j] = 1.0;
        scheme_step(z, paper, s);
        for (int i = 0; i < 3; ++i) G[i][j] = s[i];
    }
    double logscale = 0.0;
    for (int k = 0; k <= 60; ++k) {
        double mx = 0.0;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) mx = fmax(mx, fabs(G[i][j]));
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) G[i][j] /= mx;
        logscale += log(mx);
        if (k == 60) break;
        mat3_square(S, G); /* G^(2^(k+1)) = exp(2 logscale) S */
        memcpy(G, S, sizeof S);
        logscale *= 2.0;
    }
    return exp(logscale / ldexp(1.0, 60));
}

/* tb3's closed form (header comment). */
static double rho_tb3_closed(double z) {
    double s = z * z, d = 1.0 + 0.25 * TAU * TAU * s;
    double p = 1.0 + (2.5 - 2.0 * SQRT2) * s + (7.0 / 3.0 - 5.0 * SQRT2 / 3.0) * s * s;
    double q = 1.0 + (17.0 / 6.0 - 2.0 * SQRT2) * s + (2.0 - 17.0 * SQRT2 / 12.0) * s * s;
    return sqrt(p * p + s * q * q) / (d * d);
}

/* The analysis itself: the closed form for tb3, rho -> 1 + c z^4 for small z, and the
 * band structure of tb3-paper (above 1 up to z = 21.274, below beyond, 0.9097 at infinity). */
static void test_amplification_matrix(void **state) {
    (void)state;
    const double zs[6] = {0.1, 0.5, 1.0, 3.0, 10.0, 100.0};
    for (int i = 0; i < 6; ++i) {
        double r = spectral_radius(zs[i], 0), rc = rho_tb3_closed(zs[i]);
        if (!(fabs(r - rc) < 1e-12 * rc))
            fail_msg("z = %g: tb3 spectral radius %.15f, closed form %.15f", zs[i], r, rc);
    }
    /* small z: rho - 1 = (sqrt 2 / 3 - 11/24) z^4 (tb3) and 0.011844 z^4 (tb3-paper) */
    double z = 0.02, c3 = (spectral_radius(z, 0) - 1.0) / pow(z, 4.0);
    double cp = (spectral_radius(z, 1) - 1.0) / pow(z, 4.0);
    print_message("rho - 1 ~ c z^4: c = %.5f (tb3), %.5f (tb3-paper)\n", c3, cp);
    assert_true(fabs(c3 - (SQRT2 / 3.0 - 11.0 / 24.0)) < 2e-3 * c3);
    assert_true(fabs(cp - 0.011844) < 2e-3 * cp);
    /* tb3-paper: the crossing of 1 and the limit */
    assert_true(spectral_radius(21.27, 1) > 1.0 && spectral_radius(21.28, 1) < 1.0);
    assert_true(fabs(spectral_radius(1e6, 1) - 0.909736) < 1e-5);
    /* tb3 never comes back below 1 and grows like 0.4714 z */
    for (double zz = 0.01; zz < 1e3; zz *= 1.1) assert_true(spectral_radius(zz, 0) > 1.0);
    assert_true(fabs(spectral_radius(1e4, 0) / 1e4 - 0.4714) < 1e-3);
}

/* ------------------------------------------------------------------ liedyn itself */

/* A free body (mass 2) on a bushing to the ground with translational stiffness 2e6 N/m and no
 * rotational stiffness: x'' = -w^2 x exactly, w = 1000 rad/s, in each direction. It starts at
 * the spring's rest position with velocity w along x: amplitude 1. */
static const char spring_yaml[] =
    "name: stiff-spring\n"
    "bodies:\n"
    "  - {name: mass, mass: 2, inertia: [1, 1, 1], position: [0, 0, 0], velocity: [1000, 0, "
    "0]}\n"
    "elements:\n"
    "  - {name: spring, type: bushing, body1: ground, body2: mass,\n"
    "     stiffness: [0, 0, 0, 2.0e+6, 2.0e+6, 2.0e+6]}\n";

typedef struct spring {
    ld_model m;
    ld_system s;
    double *q0, *v0;
} spring;

static void spring_make(spring *f) {
    ld_model_error err;
    if (ld_model_parse(spring_yaml, strlen(spring_yaml), "stiff-spring", &f->m, &err))
        fail_msg("model: %s", err.msg);
    assert_int_equal(ld_model_compile(&f->m, LD_FORM_SO3XR3, &f->s, &f->q0, &f->v0), LD_OK);
}

static void spring_free(spring *f) {
    ld_model_system_free(&f->s);
    free(f->q0);
    free(f->v0);
    ld_model_free(&f->m);
}

/* The amplitude sqrt(x^2 + (v/w)^2) along the spring's x. */
static double amplitude(const spring *f, const ld_integ *it) {
    double x[3], q[4], om[3], xd[3];
    assert_int_equal(ld_model_body_state(&f->s, 0, ld_integ_q(it), ld_integ_v(it), x, q, om, xd),
                     LD_OK);
    return sqrt(x[0] * x[0] + (xd[0] / OMEGA) * (xd[0] / OMEGA));
}

/* Growth per step over the second half of n steps of z/w: the amplitude ratio there to the
 * power 1/(n/2), so that the decaying eigenvalues are gone; also the largest amplitude over
 * the run relative to the start (*peak). */
static double growth(const spring *f, ld_integ_method meth, double z, int n, double *peak) {
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    o.newton_atol = 1e-14;
    o.newton_rtol = 1e-13;
    int st = 0;
    ld_integ *it = ld_integ_create(&f->s, &o, &st);
    if (!it) fail_msg("%s: create: %s", ld_integ_method_name(meth), ld_strerror(st));
    assert_int_equal(ld_integ_init(it, 0.0, f->q0, f->v0), LD_OK);
    double a0 = amplitude(f, it), half = a0, h = z / OMEGA;
    *peak = 1.0;
    for (int i = 1; i <= n; ++i) {
        int rc = ld_integ_step(it, h);
        if (rc)
            fail_msg("%s, z = %g: step %d: %s", ld_integ_method_name(meth), z, i,
                     ld_integ_message(it));
        double a = amplitude(f, it);
        *peak = fmax(*peak, a / a0);
        if (i == n / 2) half = a;
    }
    double g = pow(amplitude(f, it) / half, 1.0 / (double)(n - n / 2));
    ld_integ_free(it);
    return g;
}

/* Steps for a run at spectral radius r: up to 4000, the total change kept within e^±250. */
static int steps_for(double r) {
    double n = 250.0 / fabs(log(r));
    return n > 4000.0 ? 4000 : (int)n;
}

/* tb3 and tb3-paper grow (or decay) per step as the spectral radius says, within 2 % of
 * |rho - 1|; genalpha (rho_inf 0.9) and newmark never grow. */
static void test_measured_growth(void **state) {
    (void)state;
    spring f;
    spring_make(&f);
    const double zs[6] = {0.5, 1.0, 3.0, 6.0, 10.0, 30.0};
    const ld_integ_method meths[2] = {LD_INTEG_TB3, LD_INTEG_TB3_PAPER};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 2; ++j) {
            double r = spectral_radius(zs[i], j), peak;
            double g = growth(&f, meths[j], zs[i], steps_for(r), &peak);
            print_message("%-9s omega h = %4.1f: growth per step %.7f, spectral radius %.7f\n",
                          ld_integ_method_name(meths[j]), zs[i], g, r);
            if (!(fabs((g - 1.0) - (r - 1.0)) <= 0.02 * fabs(r - 1.0)))
                fail_msg("%s, omega h = %g: growth %.8f per step, spectral radius %.8f",
                         ld_integ_method_name(meths[j]), zs[i], g, r);
        }
    const ld_integ_method bounded[2] = {LD_INTEG_GENALPHA, LD_INTEG_NEWMARK};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 2; ++j) {
            double peak, g = growth(&f, bounded[j], zs[i], 4000, &peak);
            print_message("%-9s omega h = %4.1f: growth per step %.9f, peak amplitude %.9f\n",
                          ld_integ_method_name(bounded[j]), zs[i], g, peak);
            if (!(g <= 1.0 + 1e-10 && peak <= 1.0 + 1e-8))
                fail_msg("%s, omega h = %g: growth %.12f, peak %.12f",
                         ld_integ_method_name(bounded[j]), zs[i], g, peak);
        }
    spring_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_amplification_matrix),
        cmocka_unit_test(test_measured_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

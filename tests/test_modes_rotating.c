/*
 * A rotating uniform cantilever: its flapwise and chordwise frequencies against the published
 * tables, with the centrifugal stiffening.
 *
 * A beam of length L = 1 (ρA = 1, flapwise EI = 1, chordwise EI = 4, stiff in shear and
 * extension) is clamped at the axis of a hub that spins at Ω about z (hub radius 0). In the
 * hub's turning frame its small vibrations about the steady, centrifugally stretched shape obey
 * (Euler–Bernoulli) (EI w'')'' − (T w')' = ρA ω² w flapwise, with the tension
 * T(x) = ρA Ω² (L² − x²) / 2, and the same with an extra −ρA Ω² v chordwise (the in-plane
 * centrifugal softening), so ω_chord² = 4 ω_flap,EI=1² … up to that shift. The normalized
 * frequencies ω √(ρA L⁴ / EI) against λ = Ω √(ρA L⁴ / EI) are tabulated by Wright, Smith,
 * Thresher & Wang (1982, "Vibration modes of centrifugally stiffened beams", J. Appl. Mech.
 * 49) and Hodges & Rutkowski (1981, "Free-vibration analysis of rotating beams by a
 * variable-order finite-element method", AIAA J. 19).
 *
 * liedyn's path:
 *   1. the steady motion (ld_steady_rotation): the state q whose nodes, moving with the rigid
 *      rotation's velocity, have no acceleration — the beam stretched by its centrifugal forces;
 *   2. the damped modes of the linearization about it (ld_modes_damped), classified by their
 *      shapes (flapwise: z, chordwise: y).
 * The reference: a Rayleigh–Ritz solution of the two equations above on the polynomials
 * ξ², …, ξ¹¹ (exact integrals), computed here, and the tables' printed values.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lapacke.h>

#include "liedyn/liedyn.h"
#include "liedyn/linearize.h"

#define PI 3.14159265358979323846

/* The hub, turned at Ω by a driver (θ = Ω t), and the beam, 4 elements of
 * order 6 along x, e2 = y, e3 = z: flapwise bending (along z) is about e2 (EI2 = 1), chordwise
 * (along y) about e3 (EI3 = 4). Bending rotary inertia 1e-8 and shear/axial stiffness 1e8:
 * Euler–Bernoulli's beam to 1e-7. */
static const char MODEL[] =
    "name: rotating-cantilever\n"
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - {name: hub, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0], "
    "angular_velocity: [0, 0, %.17g]}\n"
    "beams:\n"
    "  - name: bar\n"
    "    order: 6\n"
    "    elements: 4\n"
    "    from: [0, 0, 0]\n"
    "    to: [1, 0, 0]\n"
    "    normal: [0, 1, 0]\n"
    "    section: {EA: 1.0e+8, GA2: 1.0e+8, GA3: 1.0e+8, GJ: 1, EI2: 1, EI3: 4}\n"
    "    rho_a: 1\n"
    "    rho_j: [2.0e-8, 1.0e-8, 1.0e-8]\n"
    "joints:\n"
    "  - {name: axle, type: revolute, body2: hub, at: [0, 0, 0], axis: [0, 0, 1]}\n"
    "  - {name: spin, type: driver, body2: hub, axis: [0, 0, 1], motion: rotation, value: %.17g, "
    "time: {shape: linear}}\n"
    "  - {name: root, type: fixed, body1: hub, body2: 'bar[0]', at: [0, 0, 0]}\n";

/* Rayleigh–Ritz on w = Σ c_j ξ^(j+1), j = 1 … 10 (w(0) = w'(0) = 0): the two lowest ω of
 * (EI w'')'' − (T w')' − soft Ω² w = ω² w, T = Ω² (1 − ξ²)/2, into w[2]. */
static void ritz(double Om, double EI, double soft, double w[2]) {
    enum { N = 10 };
    double K[N * N], M[N * N], ev[N];
    for (int a = 1; a <= N; ++a)
        for (int b = 1; b <= N; ++b) {
            double m = 1.0 / (a + b + 3);
            K[(a - 1) * N + b - 1] =
                EI * (a + 1) * a * (b + 1) * b / (double)(a + b - 1) +
                (a + 1) * (b + 1) * Om * Om / 2 * (1.0 / (a + b + 1) - 1.0 / (a + b + 3)) -
                soft * Om * Om * m;
            M[(a - 1) * N + b - 1] = m;
        }
    assert_int_equal(LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'N', 'U', N, K, N, M, N, ev), 0);
    w[0] = sqrt(ev[0]);
    w[1] = sqrt(ev[1]);
}

/* Mode j's translational shape over the beam's nodes: the part along body axis c (1: y, 2: z)
 * of the translations, and the translations' part of the whole shape (rotations included). */
static double share(const ld_system *s, const ld_modes *md, int j, int c, double *translational) {
    double on = 0.0, tr = 0.0, all = 0.0;
    for (int i = 1; i < s->nnodes; ++i)
        for (int r = 0; r < 6; ++r) {
            size_t at = (size_t)j * (size_t)md->k + (size_t)(s->nodes[i].voff + r);
            double e = md->phi[at] * md->phi[at] + md->phi_im[at] * md->phi_im[at];
            all += e;
            if (r >= 3) tr += e;
            if (r == 3 + c) on += e;
        }
    *translational = all > 0 ? tr / all : 0.0;
    return tr > 0 ? on / tr : 0.0;
}

/* The two lowest frequencies (rad/s) of the bending modes whose translations are along axis c
 * (≥ 99 %; torsion, with no translation to speak of, is left out). */
static void lowest_along(const ld_system *s, const ld_modes *md, int c, double w[2]) {
    int found = 0;
    for (int j = 0; j < md->count && found < 2; ++j) {
        double om = 2 * PI * md->hz[j], tr, along = share(s, md, j, c, &tr);
        if (om < 1e-3 || tr < 1e-3 || along < 0.99) continue;
        w[found++] = om;
    }
    assert_int_equal(found, 2);
}

/* The first flapwise frequency of the uniform cantilever at λ = 0, 1, …, 12 as printed (four
 * decimals) by Wright et al. (1982) and Hodges & Rutkowski (1981), hub radius 0. */
static const double TABLE[13] = {3.5160, 3.6816, 4.1373,  4.7973,  5.5850,  6.4495, 7.3604,
                                 8.2996, 9.2568, 10.2257, 11.2023, 12.1843, 13.1702};

/* The model spinning at Om, parsed into m. */
static void parse_at(double Om, ld_model *m) {
    char text[sizeof MODEL + 64];
    snprintf(text, sizeof text, MODEL, Om, Om);
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "rotating-cantilever.yaml", m, &err))
        fail_msg("%s", err.msg);
}

static void test_rotating_cantilever(void **state) {
    (void)state;
    double worst_flap = 0.0, worst_chord = 0.0, worst_table = 0.0;
    for (int lam = 0; lam <= 12; ++lam) {
        double Om = lam;
        ld_model m;
        parse_at(Om, &m);
        ld_system s;
        double *q, *v;
        assert_int_equal(ld_model_compile(&m, LD_FORM_S3SDR3, &s, &q, &v), LD_OK);
        const double axis[3] = {0, 0, 1}, point[3] = {0, 0, 0};
        ld_steady_info st;
        char msg[256];
        int status = ld_steady_rotation(&s, 0.0, axis, point, Om, q, v, &st, msg, sizeof msg);
        if (status) fail_msg("%s", msg);
        int its = st.iterations;
        ld_linear lin;
        if (ld_linearize(&s, 0.0, q, v, &lin, msg, sizeof msg)) fail_msg("%s", msg);
        ld_modes md;
        assert_int_equal(ld_modes_damped(&lin, 0, &md, msg, sizeof msg), LD_OK);
        double flap[2], chord[2], rf[2], rc[2];
        lowest_along(&s, &md, 2, flap);
        lowest_along(&s, &md, 1, chord);
        ritz(Om, 1.0, 0.0, rf);
        ritz(Om, 4.0, 1.0, rc);
        worst_table = fmax(worst_table, fabs(flap[0] - TABLE[lam]));
        for (int j = 0; j < 2; ++j) {
            worst_flap = fmax(worst_flap, fabs(flap[j] / rf[j] - 1));
            worst_chord = fmax(worst_chord, fabs(chord[j] / rc[j] - 1));
        }
        printf("lambda %2d (%d Newton iterations to the steady motion): flapwise %.6f %.6f "
               "(Ritz %.6f %.6f, table %.4f); chordwise %.6f %.6f (Ritz %.6f %.6f)\n",
               lam, its, flap[0], flap[1], rf[0], rf[1], TABLE[lam], chord[0], chord[1], rc[0],
               rc[1]);
        ld_modes_free(&md);
        ld_linear_free(&lin);
        free(q);
        free(v);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
    printf("largest relative difference: flapwise %.1e, chordwise %.1e against Ritz; "
           "the first flapwise within %.1e of the table\n",
           worst_flap, worst_chord, worst_table);
    assert_true(worst_flap < 5e-6); /* the element's discretization: 4 elements of order 6 */
    assert_true(worst_chord < 5e-6);
    assert_true(worst_table < 6e-5); /* half the table's last printed digit, and the above */
}

/* Linearized about the undeformed beam moving rigidly (no steady solve: the tension missing) the
 * flapwise frequency at λ = 10 shows no stiffening; a formulation whose velocities are not
 * body-frame is refused, as is a zero axis. */
static void test_steady_needed_and_refusals(void **state) {
    (void)state;
    char msg[256];
    ld_model m;
    parse_at(10.0, &m);
    ld_system s;
    double *q, *v;
    assert_int_equal(ld_model_compile(&m, LD_FORM_S3SDR3, &s, &q, &v), LD_OK);
    ld_linear lin;
    if (ld_linearize(&s, 0.0, q, v, &lin, msg, sizeof msg)) fail_msg("%s", msg);
    assert_true(lin.accel > 1.0); /* not a steady motion */
    ld_modes md;
    assert_int_equal(ld_modes_damped(&lin, 0, &md, msg, sizeof msg), LD_OK);
    double flap[2], rf[2];
    lowest_along(&s, &md, 2, flap);
    ritz(10.0, 1.0, 0.0, rf);
    printf("lambda 10 about the undeformed beam: flapwise %.6f (Ritz %.6f)\n", flap[0], rf[0]);
    assert_true(fabs(flap[0] / rf[0] - 1) > 0.05);
    ld_modes_free(&md);
    ld_linear_free(&lin);
    const double zero[3] = {0, 0, 0}, z[3] = {0, 0, 1};
    assert_int_equal(ld_steady_rotation(&s, 0.0, zero, zero, 1.0, q, v, NULL, msg, sizeof msg),
                     LD_EINVAL);
    free(q);
    free(v);
    ld_model_system_free(&s);
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q, &v), LD_OK);
    assert_int_equal(ld_steady_rotation(&s, 0.0, z, zero, 1.0, q, v, NULL, msg, sizeof msg),
                     LD_ENOTSUPPORTED);
    assert_non_null(strstr(msg, "se3 or s3sdr3"));
    free(q);
    free(v);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotating_cantilever),
        cmocka_unit_test(test_steady_needed_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

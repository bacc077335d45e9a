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
 * liedyn's path (the public API only):
 *   1. the steady motion: Newton on the relative equilibrium — the state q with each node's
 *      velocity that of the rigid rotation, v = Ad(q⁻¹)(Ω e_z, 0), whose accelerations vanish —
 *      with the linearization's own reduced stiffness Kr (K + D W, the turning frame's terms);
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

/* The hub (huge inertia about the spin axis: its speed is held) and the beam, 4 elements of
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

/* The rigid rotation's velocity of every node at q (s3sdr3 nodes: quaternion, position; body
 * velocities Ω_b = Rᵀ ω, U = Rᵀ (ω × x)). */
static void rigid_velocity(const ld_system *s, const double *q, double Om, double *v) {
    const double w[3] = {0, 0, Om};
    for (int i = 0; i < s->nnodes; ++i) {
        const double *qi = q + s->nodes[i].qoff, *x = qi + 4;
        double *vi = v + s->nodes[i].voff,
               u[3] = {w[1] * x[2] - w[2] * x[1], w[2] * x[0] - w[0] * x[2],
                       w[0] * x[1] - w[1] * x[0]};
        ld_quat_rotate_inv(vi, qi, w);
        ld_quat_rotate_inv(vi + 3, qi, u);
    }
}

/* Newton on the relative equilibrium: Kr z = Nᵀ M a, q ← q ∘ exp(N z), until |Nᵀ M a|∞ < 1e-6.
 * Returns the iterations taken; lin holds the linearization about the converged state. */
static int steady_motion(const ld_system *s, double *q, double *v, double Om, ld_linear *lin) {
    char msg[256];
    int k = s->k;
    double *qn = malloc((size_t)s->nq * sizeof *qn), *rhs = malloc((size_t)k * sizeof *rhs),
           *d = malloc((size_t)k * sizeof *d);
    int it = 0;
    for (;; ++it) {
        rigid_velocity(s, q, Om, v);
        if (ld_linearize(s, 0.0, q, v, lin, msg, sizeof msg)) fail_msg("%s", msg);
        int n = lin->n;
        for (int i = 0; i < k; ++i) { /* M a */
            double acc = 0.0;
            for (int j = 0; j < k; ++j) acc += lin->M[i * k + j] * lin->a[j];
            d[i] = acc;
        }
        double res = 0.0;
        for (int i = 0; i < n; ++i) { /* Nᵀ M a: the force out of balance */
            double acc = 0.0;
            for (int j = 0; j < k; ++j) acc += lin->N[j * n + i] * d[j];
            rhs[i] = acc;
            res = fmax(res, fabs(acc));
        }
        /* the centrifugal forces are ≈ Ω² ρA h; the round-off of the stiff axial terms (EA = 1e8
         * over 0.04 m) leaves about 1e-7 of force */
        if (res < 1e-6 || it == 20) break;
        double *A = malloc((size_t)n * (size_t)n * sizeof *A);
        lapack_int *piv = malloc((size_t)n * sizeof *piv);
        memcpy(A, lin->Kr, (size_t)n * (size_t)n * sizeof *A);
        assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, 1, A, n, piv, rhs, 1), 0);
        for (int i = 0; i < k; ++i) { /* δ = N z */
            double acc = 0.0;
            for (int j = 0; j < n; ++j) acc += lin->N[i * n + j] * rhs[j];
            d[i] = acc;
        }
        ld_sys_retract(s, qn, q, d);
        memcpy(q, qn, (size_t)s->nq * sizeof *q);
        free(A);
        free(piv);
        ld_linear_free(lin);
    }
    free(qn);
    free(rhs);
    free(d);
    return it;
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

static void test_rotating_cantilever(void **state) {
    (void)state;
    double worst_flap = 0.0, worst_chord = 0.0, worst_table = 0.0;
    for (int lam = 0; lam <= 12; ++lam) {
        double Om = lam;
        char text[sizeof MODEL + 64];
        snprintf(text, sizeof text, MODEL, Om, Om);
        ld_model m;
        ld_model_error err;
        if (ld_model_parse(text, strlen(text), "rotating-cantilever.yaml", &m, &err))
            fail_msg("%s", err.msg);
        ld_system s;
        double *q, *v;
        assert_int_equal(ld_model_compile(&m, LD_FORM_S3SDR3, &s, &q, &v), LD_OK);
        ld_linear lin;
        int its = steady_motion(&s, q, v, Om, &lin);
        assert_true(its < 20); /* a steady motion: the forces balance to 1e-6 */
        ld_modes md;
        char msg[256];
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotating_cantilever),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

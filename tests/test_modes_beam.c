/*
 * Modes of beams (linearize.h, docs/modes.md):
 *   - a clamped beam: bending, torsion and axial frequencies against the closed forms of
 *     Euler–Bernoulli's beam and of the wave equations, converging with the element order;
 *   - the sparse path (subspace iteration, KLU) against the dense one on a cantilever and a
 *     hinged beam; a system with constraint rows refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "lin_case.h"

/* ---------------------------------------------------------------- a clamped beam */

/* A cantilever (L = 1, ρA = 1, EI = 1, GJ = 1, ρJ₁ = 0.01, EA = GA = 10⁷, bending ρJ 10⁻⁸): the
 * lowest bending, torsion and axial frequencies against Euler–Bernoulli's (βL)² √(EI/ρA L⁴)
 * (βL = 1.8751040687, 4.6940911330) and the wave equations' (π/2L) √(GJ/ρJ₁), (π/2L) √(EA/ρA);
 * the slenderness corrections of Timoshenko's theory are about 10⁻⁷ here. */
static void beam_yaml(char *y, size_t cap, int nel, int p) {
    snprintf(y, cap,
             "name: cantilever\nbeams:\n  - name: beam\n    order: %d\n    elements: %d\n"
             "    from: [0, 0, 0]\n    to: [1, 0, 0]\n    normal: [0, 1, 0]\n"
             "    section: {EA: 1.0e+7, GA2: 1.0e+7, GA3: 1.0e+7, GJ: 1, EI2: 2.3, EI3: 1}\n"
             "    rho_a: 1\n    rho_j: [0.01, 1.0e-8, 1.0e-8]\n    clamp: start\n",
             p, nel);
}

/* The lowest frequencies (rad/s) of the modes whose tip moves mostly along y (bending: two),
 * turns about x (torsion) and moves along x (axial). */
static void beam_freqs(int nel, int p, double bend[2], double *tors, double *axial) {
    char y[1024];
    beam_yaml(y, sizeof y, nel, p);
    lin_case c;
    lin_open(&c, y, LD_FORM_SO3XR3);
    assert_int_equal(c.lin.n, c.s.k); /* no constraint rows: the clamp is eliminated */
    ld_modes md;
    assert_int_equal(ld_modes_undamped(&c.lin, 0, &md, NULL, 0), LD_OK);
    int tip = c.m.nbodies - 1, nb = 0;
    *tors = *axial = NAN;
    for (int j = 0; j < md.count; ++j) {
        double dx[3], dth[3], w = sqrt(md.omega2[j]);
        assert_int_equal(
            ld_modes_body_shape(&c.s, c.q, md.phi + (size_t)j * (size_t)c.s.k, tip, dx, dth),
            LD_OK);
        double ay = fabs(dx[1]), ax = fabs(dx[0]), tx = fabs(dth[0]);
        double big = fmax(fmax(ay, fabs(dx[2])), fmax(ax, tx));
        if (ay == big && nb < 2) bend[nb++] = w;
        if (tx == big && isnan(*tors)) *tors = w;
        if (ax == big && isnan(*axial)) *axial = w;
    }
    assert_int_equal(nb, 2);
    ld_modes_free(&md);
    lin_close(&c);
}

static void test_clamped_beam(void **state) {
    (void)state;
    const double b1 = pow(1.8751040687119611, 2), b2 = pow(4.6940911329741745, 2);
    const double wt = 0.5 * PI * sqrt(1.0 / 0.01), wa = 0.5 * PI * sqrt(1e7);
    static const struct { int nel, p; } mesh[] = {{2, 2}, {2, 3}, {2, 4}, {2, 6}, {2, 8}};
    double prev = INFINITY;
    for (size_t i = 0; i < sizeof mesh / sizeof mesh[0]; ++i) {
        double bend[2], tors, axial;
        beam_freqs(mesh[i].nel, mesh[i].p, bend, &tors, &axial);
        double e1 = bend[0] / b1 - 1, e2 = bend[1] / b2 - 1, et = tors / wt - 1,
               ea = axial / wa - 1;
        printf("clamped beam %d x p%d: bending 1 %+.2e, bending 2 %+.2e, torsion %+.2e, axial "
               "%+.2e\n",
               mesh[i].nel, mesh[i].p, e1, e2, et, ea);
        double wmax = fmax(fmax(fabs(e1), fabs(e2)), fmax(fabs(et), fabs(ea)));
        assert_true(wmax < prev || wmax < 3e-6); /* converging with the order */
        prev = wmax;
        /* converged: bending within Timoshenko's slenderness correction of Euler–Bernoulli's
         * (of the order of (βL)² (r² + EI/(GA L²)) / 2 = 2·10⁻⁷ and 1.2·10⁻⁶), torsion and axial
         * to round-off */
        if (mesh[i].p == 8)
            assert_true(fabs(e1) < 1e-6 && fabs(e2) < 3e-6 && fabs(et) < 1e-11 && fabs(ea) < 1e-11);
    }
}

/* The sparse path (subspace iteration with KLU) gives the dense path's lowest modes: a
 * cantilever of 20 elements of order 4 (480 unknowns; a section whose shear and rotary modes
 * lie 10⁶ above its first bending mode) and a beam hinged at both ends (nodes of one angle).
 * (Constrained systems on the sparse path: test_modes_sparse.c.) */
static void sparse_vs_dense(const char *text, int count, const char *what) {
    lin_case c;
    lin_open(&c, text, LD_FORM_SO3XR3);
    ld_modes dn, sp;
    char msg[256];
    assert_int_equal(ld_modes_undamped(&c.lin, count, &dn, NULL, 0), LD_OK);
    if (ld_modes_sparse(&c.s, 0.0, c.q, count, 0.0, &sp, msg, sizeof msg)) fail_msg("%s", msg);
    assert_int_equal(sp.count, count);
    double ew = 0.0, ev = 0.0;
    for (int j = 0; j < count; ++j) {
        ew = fmax(ew, fabs(sp.omega2[j] / dn.omega2[j] - 1.0));
        double d = 0.0; /* the shapes up to sign: 1 − |φ_dᵀ M φ_s| (both M-normalized) */
        for (int i = 0; i < c.s.k; ++i)
            for (int l = 0; l < c.s.k; ++l)
                d += dn.phi[j * c.s.k + i] * c.lin.M[i * c.s.k + l] * sp.phi[j * c.s.k + l];
        ev = fmax(ev, fabs(1.0 - fabs(d)));
    }
    printf("sparse against dense, %s (%d unknowns, %d modes): w^2 within %.1e, shapes within "
           "%.1e\n",
           what, c.s.k, count, ew, ev);
    /* both at the round-off of a spectrum 10⁶ wide: about ε 10⁶ */
    assert_true(ew < 2e-9 && ev < 1e-10);
    ld_modes_free(&dn);
    ld_modes_free(&sp);
    lin_close(&c);
}

static void test_sparse(void **state) {
    (void)state;
    char y[1024];
    snprintf(y, sizeof y,
             "name: cantilever\nbeams:\n  - name: beam\n    order: 4\n    elements: 20\n"
             "    from: [0, 0, 0]\n    to: [1, 0, 0]\n    normal: [0, 1, 0]\n"
             "    section: {EA: 1.0e+4, GA2: 1.0e+4, GA3: 1.0e+4, GJ: 1, EI2: 2.3, EI3: 1}\n"
             "    rho_a: 1\n    rho_j: [0.01, 1.0e-3, 1.0e-3]\n    clamp: start\n");
    sparse_vs_dense(y, 8, "cantilever 20 x p4");
    snprintf(y, sizeof y,
             "name: hinged\nbeams:\n  - name: beam\n    order: 3\n    elements: 6\n"
             "    from: [0, 0, 0]\n    to: [2, 0, 0]\n    normal: [0, 1, 0]\n"
             "    section: {EA: 1.0e+4, GA2: 1.0e+4, GA3: 1.0e+4, GJ: 5, EI2: 3, EI3: 2}\n"
             "    rho_a: 1.5\n    rho_j: [0.02, 0.01, 0.01]\n    pin: both\n"
             "    pin_axis: [0, 0, 1]\n");
    sparse_vs_dense(y, 6, "hinged beam 6 x p3");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clamped_beam),
        cmocka_unit_test(test_sparse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

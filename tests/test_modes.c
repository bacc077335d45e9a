/*
 * Linearization and modes (linearize.h, docs/modes.md) against exact solutions:
 *   - a pendulum on a revolute joint: ω² = m g l / (I + m l²), in every formulation, from a
 *     start held horizontal (the statics settle it) — the joint's geometric stiffness (λ) is
 *     the whole restoring stiffness;
 *   - a double pendulum: the two roots of the 2 × 2 small-oscillation problem and the ratio of
 *     the angles in each mode; with hinge dampers every damped eigenvalue s a root of
 *     det(s² M + s C + K) of the minimal coordinates;
 *   - a fixed–fixed chain of masses on springs: ω_j² = (4k/m) sin²(jπ / (2(n + 1))), and with
 *     dampers c = βk the damping ratios β ω_j / 2;
 *   - a four-bar with a spring (a closed loop, 3 redundant rows dropped by the compiler):
 *     against an independent one-coordinate derivation (the loop closed in the test, the
 *     energy and the generalized mass differentiated numerically), and against the frequency
 *     of a simulated free vibration from the mode's velocity (generalized-α, zero crossings);
 *   (a clamped beam and the sparse path: test_modes_beam.c)
 *   - the input and output matrices: the static gain of a force on the double pendulum;
 *   - the state matrix A against central differences of the accelerations of perturbed states
 *     (every formulation, with dampers);
 *   - a free body spinning about a principal axis (a steady motion, v ≠ 0): stable about the
 *     largest and smallest moments, exponentially unstable about the middle one at the rate of
 *     Euler's equations;
 *   - a gyroscopic rotor (a disc on a spherical joint, its tilt held by springs) spinning at
 *     0 … 100 rad/s: the whirl frequencies seen in the disc's frame, |ω_f − Ω| and ω_b + Ω,
 *     from the closed form of the fixed frame, and the modes followed across the speeds by
 *     their MAC stay on their branches.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/linalg.h"
#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

#define G 9.81
#include "lin_case.h"

static const ld_formulation ALL[] = {
    LD_FORM_SO3XR3,         LD_FORM_SE3,           LD_FORM_S3XR3, LD_FORM_S3SDR3,
    LD_FORM_SO3XR3_SPATIAL, LD_FORM_S3XR3_SPATIAL, LD_FORM_EULER};
#define NFORM (int)(sizeof ALL / sizeof ALL[0])

/* ---------------------------------------------------------------- pendulum */

/* A body (m, I about z at its centre) on a revolute joint about z at distance l from its
 * centre, started horizontal: the statics settle it hanging, and the one mode has
 * ω² = m g l / (I + m l²). */
static void test_pendulum(void **state) {
    (void)state;
    const double m = 2.5, l = 0.8, I = 0.3;
    char y[1024];
    snprintf(
        y, sizeof y,
        "name: pendulum\ngravity: [0, %.17g, 0]\nbodies:\n"
        "  - {name: bob, mass: %.17g, inertia: [0.1, 0.2, %.17g], position: [%.17g, 0, 0]}\n"
        "joints:\n  - {name: pivot, type: revolute, body2: bob, at: [0, 0, 0], axis: [0, 0, 1]}\n",
        -G, m, I, l);
    const double want = m * G * l / (I + m * l * l);
    for (int f = 0; f < NFORM; ++f) {
        lin_case c;
        lin_open(&c, y, ALL[f]);
        assert_int_equal(c.lin.n, 1);
        assert_int_equal(c.lin.dependent, 0);
        assert_true(c.lin.accel < 1e-10);
        ld_modes md;
        char msg[256];
        assert_int_equal(ld_modes_undamped(&c.lin, 0, &md, msg, sizeof msg), LD_OK);
        double rel = md.omega2[0] / want - 1.0;
        printf("pendulum (%s): w^2 %.15g, exact %.15g, relative %+.2e, Kr asymmetry %.1e\n",
               ld_formulation_name(ALL[f]), md.omega2[0], want, rel, c.lin.asym);
        assert_true(fabs(rel) < 1e-9);
        assert_true(fabs(md.hz[0] - sqrt(want) / (2.0 * PI)) < 1e-9 * md.hz[0]);
        /* the shape: the bob turns about z and its centre moves along x (hanging at (0, -l)) */
        double dx[3], dth[3];
        assert_int_equal(ld_modes_body_shape(&c.s, c.q, md.phi, 0, dx, dth), LD_OK);
        assert_true(fabs(dth[0]) + fabs(dth[1]) < 1e-8 * fabs(dth[2]));
        assert_true(fabs(dx[0] - l * dth[2]) < 1e-8 * fabs(dx[0]));
        assert_true(fabs(dx[1]) + fabs(dx[2]) < 1e-8 * fabs(dx[0]));
        ld_modes_free(&md);
        lin_close(&c);
    }
}

/* ---------------------------------------------------------------- double pendulum */

/* Two uniform links (L1, L2; m1, m2; I about z at their centres) hinged about z, hanging.
 * Minimal coordinates θ1, θ2 (absolute angles): M = [I1 + m1 c1² + m2 L1², m2 L1 c2; ·,
 * I2 + m2 c2²], K = g diag(m1 c1 + m2 L1, m2 c2), C = c [2, −1; −1, 1] (a damper c in each
 * hinge). */
static const double DP_L1 = 1.0, DP_L2 = 0.7, DP_M1 = 1.3, DP_M2 = 0.6, DP_I1 = 0.11, DP_I2 = 0.03;

static void dp_yaml(char *y, size_t cap, double c) {
    snprintf(
        y, cap,
        "name: dp\ngravity: [0, %.17g, 0]\nbodies:\n"
        "  - {name: a, mass: %.17g, inertia: [0.001, %.17g, %.17g], position: [%.17g, 0, 0]}\n"
        "  - {name: b, mass: %.17g, inertia: [0.001, %.17g, %.17g], position: [%.17g, 0, 0]}\n"
        "joints:\n"
        "  - {name: s, type: revolute, body2: a, at: [0, 0, 0], axis: [0, 0, 1]}\n"
        "  - {name: e, type: revolute, body1: a, body2: b, at: [%.17g, 0, 0], axis: [0, 0, 1]}\n"
        "elements:\n"
        "  - {name: ds, type: rotational-spring-damper, body1: ground, body2: a, c: %.17g, axis: "
        "[0, 0, 1]}\n"
        "  - {name: de, type: rotational-spring-damper, body1: a, body2: b, c: %.17g, axis: [0, 0, "
        "1]}\n",
        -G, DP_M1, DP_I1, DP_I1, 0.5 * DP_L1, DP_M2, DP_I2, DP_I2, DP_L1 + 0.5 * DP_L2, DP_L1, c,
        c);
}

static void dp_matrices(double M[4], double K[4]) {
    double c1 = 0.5 * DP_L1, c2 = 0.5 * DP_L2;
    M[0] = DP_I1 + DP_M1 * c1 * c1 + DP_M2 * DP_L1 * DP_L1;
    M[1] = M[2] = DP_M2 * DP_L1 * c2;
    M[3] = DP_I2 + DP_M2 * c2 * c2;
    K[0] = G * (DP_M1 * c1 + DP_M2 * DP_L1), K[1] = K[2] = 0.0, K[3] = G * DP_M2 * c2;
}

static void test_double_pendulum(void **state) {
    (void)state;
    double M[4], K[4];
    dp_matrices(M, K);
    double a = M[0] * M[3] - M[1] * M[2], b = -(K[0] * M[3] + K[3] * M[0]), cc = K[0] * K[3];
    double disc = sqrt(b * b - 4.0 * a * cc),
           w2[2] = {(-b - disc) / (2 * a), (-b + disc) / (2 * a)};
    char y[2048];
    dp_yaml(y, sizeof y, 0.0);
    for (int f = 0; f < NFORM; ++f) {
        lin_case c;
        lin_open(&c, y, ALL[f]);
        assert_int_equal(c.lin.n, 2);
        ld_modes md;
        assert_int_equal(ld_modes_undamped(&c.lin, 0, &md, NULL, 0), LD_OK);
        for (int j = 0; j < 2; ++j) {
            double rel = md.omega2[j] / w2[j] - 1.0;
            /* the shape: θ2/θ1 = (K11 − ω² M11) / (ω² M12) */
            double dx[3], t1[3], t2[3];
            assert_int_equal(ld_modes_body_shape(&c.s, c.q, md.phi + j * c.s.k, 0, dx, t1), LD_OK);
            assert_int_equal(ld_modes_body_shape(&c.s, c.q, md.phi + j * c.s.k, 1, dx, t2), LD_OK);
            double ratio = t2[2] / t1[2], want = (K[0] - w2[j] * M[0]) / (w2[j] * M[1]);
            if (f == 0)
                printf("double pendulum mode %d: w^2 %.15g, exact %.15g (%+.1e), theta2/theta1 "
                       "%.12g, exact %.12g\n",
                       j + 1, md.omega2[j], w2[j], rel, ratio, want);
            assert_true(fabs(rel) < 1e-9);
            assert_true(fabs(ratio / want - 1.0) < 1e-7);
            double zmz = 0.0; /* mass-normalized: zᵀ Mr z = 1 */
            for (int r = 0; r < 2; ++r)
                for (int l = 0; l < 2; ++l)
                    zmz += md.z[j * 2 + r] * c.lin.Mr[r * 2 + l] * md.z[j * 2 + l];
            assert_true(fabs(zmz - 1.0) < 1e-12);
        }
        ld_modes_free(&md);
        lin_close(&c);
    }
}

/* Every damped eigenvalue is a root of det(s² M + s C + K) of the minimal coordinates. */
static void test_double_pendulum_damped(void **state) {
    (void)state;
    const double cd = 0.05;
    double M[4], K[4], C[4] = {2 * cd, -cd, -cd, cd};
    dp_matrices(M, K);
    char y[2048];
    dp_yaml(y, sizeof y, cd);
    for (int f = 0; f < NFORM; ++f) {
        lin_case c;
        lin_open(&c, y, ALL[f]);
        ld_modes md;
        assert_int_equal(ld_modes_damped(&c.lin, 0, &md, NULL, 0), LD_OK);
        assert_int_equal(md.count, 2); /* two underdamped pairs */
        for (int j = 0; j < 2; ++j) {
            double sr = md.re[j], si = md.im[j];
            assert_true(sr < 0.0 && si > 0.0);
            /* P = s² M + s C + K, complex 2 × 2; det relative to |s|⁴ det M */
            double s2r = sr * sr - si * si, s2i = 2 * sr * si, pr[4], pi[4];
            for (int e = 0; e < 4; ++e)
                pr[e] = s2r * M[e] + sr * C[e] + K[e], pi[e] = s2i * M[e] + si * C[e];
            double dr = pr[0] * pr[3] - pi[0] * pi[3] - (pr[1] * pr[2] - pi[1] * pi[2]);
            double di = pr[0] * pi[3] + pi[0] * pr[3] - (pr[1] * pi[2] + pi[1] * pr[2]);
            double mag = sr * sr + si * si, det = M[0] * M[3] - M[1] * M[2];
            double res = hypot(dr, di) / (mag * mag * det);
            if (f == 0)
                printf("damped double pendulum mode %d: s = %.12g + %.12gi, zeta %.6g, "
                       "|det(s^2 M + s C + K)| / (|s|^4 det M) = %.1e\n",
                       j + 1, sr, si, md.zeta[j], res);
            assert_true(res < 1e-9);
        }
        assert_true(md.hz[0] < md.hz[1]);
        ld_modes_free(&md);
        lin_close(&c);
    }
}

/* ---------------------------------------------------------------- spring–mass chain */

/* n masses on prismatic joints along x, springs k between neighbours and to the ground at
 * both ends (dampers c = βk in each). */
static void chain_yaml(char *y, size_t cap, int n, double mass, double k, double beta) {
    size_t at = (size_t)snprintf(y, cap, "name: chain\nbodies:\n");
    for (int i = 1; i <= n; ++i)
        at += (size_t)snprintf(
            y + at, cap - at,
            "  - {name: m%d, mass: %.17g, inertia: [1, 1, 1], position: [%d, 0, 0]}\n", i, mass, i);
    at += (size_t)snprintf(y + at, cap - at, "joints:\n");
    for (int i = 1; i <= n; ++i)
        at += (size_t)snprintf(
            y + at, cap - at,
            "  - {name: p%d, type: prismatic, body2: m%d, at: [%d, 0, 0], axis: [1, 0, 0]}\n", i, i,
            i);
    at += (size_t)snprintf(y + at, cap - at, "elements:\n");
    for (int i = 0; i <= n; ++i) {
        char b1[16], b2[16];
        snprintf(b1, sizeof b1, i == 0 ? "ground" : "m%d", i);
        snprintf(b2, sizeof b2, i == n ? "ground" : "m%d", i + 1);
        if (i == n) { /* the right wall: ground as body1 */
            at += (size_t)snprintf(
                y + at, cap - at,
                "  - {type: spring-damper, body1: ground, body2: %s, at1: [%d, 0, 0], "
                "at2: [%d, 0, 0], k: %.17g, c: %.17g, l0: 1}\n",
                b1, i + 1, i, k, beta * k);
        } else {
            at +=
                (size_t)snprintf(y + at, cap - at,
                                 "  - {type: spring-damper, body1: %s, body2: %s, at1: [%d, 0, 0], "
                                 "at2: [%d, 0, 0], k: %.17g, c: %.17g, l0: 1}\n",
                                 b1, b2, i, i + 1, k, beta * k);
        }
    }
}

static void test_chain(void **state) {
    (void)state;
    enum { NM = 6 };
    const double mass = 1.7, k = 40.0, beta = 0.01;
    char y[8192];
    chain_yaml(y, sizeof y, NM, mass, k, beta);
    for (int f = 0; f < NFORM; ++f) {
        lin_case c;
        lin_open(&c, y, ALL[f]);
        assert_int_equal(c.lin.n, NM);
        ld_modes un, da;
        assert_int_equal(ld_modes_undamped(&c.lin, 0, &un, NULL, 0), LD_OK);
        assert_int_equal(ld_modes_damped(&c.lin, 0, &da, NULL, 0), LD_OK);
        assert_int_equal(da.count, NM);
        double wmax = 0.0, wmax_z = 0.0;
        for (int j = 1; j <= NM; ++j) {
            double sn = sin(j * PI / (2.0 * (NM + 1))), w2 = 4.0 * k / mass * sn * sn;
            double w = sqrt(w2), zeta = 0.5 * beta * w;
            wmax = fmax(wmax, fabs(un.omega2[j - 1] / w2 - 1.0));
            wmax = fmax(wmax, fabs(da.hz[j - 1] * 2.0 * PI / w - 1.0));
            wmax_z = fmax(wmax_z, fabs(da.zeta[j - 1] / zeta - 1.0));
        }
        if (f == 0)
            printf("chain of %d masses (%s): w^2 and |s| within %.1e, damping ratios within %.1e\n",
                   NM, ld_formulation_name(ALL[f]), wmax, wmax_z);
        assert_true(wmax < 1e-10);
        assert_true(wmax_z < 1e-8);
        ld_modes_free(&un);
        ld_modes_free(&da);
        lin_close(&c);
    }
}

/* The state-space form ẋ = A x + Bu u, y = C x of the hanging double pendulum with a
 * horizontal force u at the second link's centre and its horizontal displacement as output:
 * the static gain −C A⁻¹ Bu against the minimal coordinates' L1²/K11 + c2²/K22 (K θ = Q with
 * Q = (L1, c2) u: the virtual work of the force). */
static void test_input_output(void **state) {
    (void)state;
    double M[4], K[4];
    dp_matrices(M, K);
    const double c2 = 0.5 * DP_L2, want = DP_L1 * DP_L1 / K[0] + c2 * c2 / K[3];
    char y[2048];
    dp_yaml(y, sizeof y, 0.0);
    for (int f = 0; f < NFORM; ++f) {
        lin_case c;
        lin_open(&c, y, ALL[f]);
        size_t k = (size_t)c.s.k, n = (size_t)c.lin.n, n2 = 2 * n;
        double *Jx = malloc(3 * k * sizeof *Jx), *F = malloc(k * sizeof *F),
               *A = malloc(n2 * n2 * sizeof *A), *Bu = malloc(n2 * sizeof *Bu);
        assert_int_equal(ld_linear_body_jacobian(&c.s, c.q, 1, Jx, NULL), LD_OK);
        for (size_t i = 0; i < k; ++i) F[i] = Jx[i]; /* Jxᵀ (1, 0, 0) */
        assert_int_equal(ld_linear_input_matrix(&c.lin, F, 1, Bu), LD_OK);
        assert_int_equal(ld_linear_state_matrix(&c.lin, A), LD_OK);
        ld_la *la = ld_la_create(LD_LA_DENSE, (int)n2);
        assert_int_equal(ld_la_factor_dense(la, A), LD_OK);
        for (size_t i = 0; i < n2; ++i) Bu[i] = -Bu[i];
        assert_int_equal(ld_la_solve(la, Bu), LD_OK); /* x = −A⁻¹ Bu */
        double gain = 0.0;
        for (size_t i = 0; i < k; ++i) /* C x = Jx N z */
            for (size_t j = 0; j < n; ++j) gain += Jx[i] * c.lin.N[i * n + j] * Bu[j];
        for (size_t j = n; j < n2; ++j) assert_true(fabs(Bu[j]) < 1e-12); /* at rest */
        if (f == 0)
            printf("double pendulum static gain: %.15g, minimal coordinates %.15g (%+.1e)\n", gain,
                   want, gain / want - 1.0);
        assert_true(fabs(gain / want - 1.0) < 1e-9);
        ld_la_free(la);
        free(Jx), free(F), free(A), free(Bu);
        lin_close(&c);
    }
}

/* ---------------------------------------------------------------- four-bar with a spring */

/* Ground pivots A = (0, 0), D = (FB_D, 0); crank AB, coupler BC, rocker DC (uniform links,
 * I about z = m L² / 12); a spring from the ground point FB_P to the coupler's centre. */
static const double FB_A = 0.4, FB_B = 1.0, FB_C = 0.8, FB_D = 0.9, FB_MA = 0.5, FB_MB = 1.2,
                    FB_MC = 0.9, FB_K = 60.0, FB_L0 = 0.5, FB_P[2] = {0.4, -0.6};

typedef struct fb_pose {
    double x[3][2], phi[3]; /* the links' centres and angles */
} fb_pose;

/* The loop closed at crank angle th (the assembly with C above the line BD). */
static void fb_close(double th, fb_pose *p) {
    double B[2] = {FB_A * cos(th), FB_A * sin(th)}, e[2] = {FB_D - B[0], -B[1]};
    double d = hypot(e[0], e[1]), a = (FB_B * FB_B - FB_C * FB_C + d * d) / (2 * d);
    double h = sqrt(FB_B * FB_B - a * a), u[2] = {e[0] / d, e[1] / d};
    double C[2] = {B[0] + a * u[0] - h * u[1], B[1] + a * u[1] + h * u[0]};
    p->x[0][0] = 0.5 * B[0], p->x[0][1] = 0.5 * B[1], p->phi[0] = th;
    p->x[1][0] = 0.5 * (B[0] + C[0]), p->x[1][1] = 0.5 * (B[1] + C[1]);
    p->phi[1] = atan2(C[1] - B[1], C[0] - B[0]);
    p->x[2][0] = 0.5 * (FB_D + C[0]), p->x[2][1] = 0.5 * C[1];
    p->phi[2] = atan2(C[1], C[0] - FB_D);
}

static double fb_energy(double th) {
    fb_pose p;
    fb_close(th, &p);
    double l = hypot(p.x[1][0] - FB_P[0], p.x[1][1] - FB_P[1]);
    return G * (FB_MA * p.x[0][1] + FB_MB * p.x[1][1] + FB_MC * p.x[2][1]) +
           0.5 * FB_K * (l - FB_L0) * (l - FB_L0);
}

/* The generalized mass Σ m |dx/dθ|² + I (dφ/dθ)² (central differences). */
static double fb_mass(double th) {
    const double h = 1e-5, m[3] = {FB_MA, FB_MB, FB_MC}, L[3] = {FB_A, FB_B, FB_C};
    fb_pose p, q;
    fb_close(th + h, &p);
    fb_close(th - h, &q);
    double s = 0.0;
    for (int i = 0; i < 3; ++i) {
        double vx = (p.x[i][0] - q.x[i][0]) / (2 * h), vy = (p.x[i][1] - q.x[i][1]) / (2 * h);
        double w = (p.phi[i] - q.phi[i]) / (2 * h);
        s += m[i] * (vx * vx + vy * vy) + m[i] * L[i] * L[i] / 12.0 * w * w;
    }
    return s;
}

/* V' and V'' by fourth-order central differences. */
static double fb_d1(double th) {
    const double h = 1e-3;
    return (fb_energy(th - 2 * h) - 8 * fb_energy(th - h) + 8 * fb_energy(th + h) -
            fb_energy(th + 2 * h)) /
           (12 * h);
}

static double fb_d2(double th) {
    const double h = 1e-3;
    return (-fb_energy(th - 2 * h) + 16 * fb_energy(th - h) - 30 * fb_energy(th) +
            16 * fb_energy(th + h) - fb_energy(th + 2 * h)) /
           (12 * h * h);
}

/* The crank angle of the lowest energy on a grid of 3600 angles where the loop closes. */
static double fb_min(void) {
    double best = INFINITY, at = 0.0;
    for (int i = 0; i < 3600; ++i) {
        double th = 2.0 * PI * i / 3600.0, e = fb_energy(th);
        if (isfinite(e) && e < best) best = e, at = th;
    }
    return at;
}

static void fb_yaml(char *y, size_t cap, double th, double c) {
    fb_pose p;
    fb_close(th, &p);
    double B[2] = {FB_A * cos(th), FB_A * sin(th)};
    double C[2] = {2 * p.x[2][0] - FB_D, 2 * p.x[2][1]};
    const double m[3] = {FB_MA, FB_MB, FB_MC}, L[3] = {FB_A, FB_B, FB_C};
    const char *nm[3] = {"crank", "coupler", "rocker"};
    size_t at = (size_t)snprintf(y, cap, "name: fourbar\ngravity: [0, %.17g, 0]\nbodies:\n", -G);
    for (int i = 0; i < 3; ++i) {
        double I = m[i] * L[i] * L[i] / 12.0;
        at += (size_t)snprintf(y + at, cap - at,
                               "  - {name: %s, mass: %.17g, inertia: [1e-4, %.17g, %.17g], "
                               "position: [%.17g, %.17g, 0], orientation: [%.17g, 0, 0, %.17g]}\n",
                               nm[i], m[i], I, I, p.x[i][0], p.x[i][1], cos(0.5 * p.phi[i]),
                               sin(0.5 * p.phi[i]));
    }
    snprintf(y + at, cap - at,
             "joints:\n"
             "  - {name: A, type: revolute, body2: crank, at: [0, 0, 0], axis: [0, 0, 1]}\n"
             "  - {name: B, type: revolute, body1: crank, body2: coupler, at: [%.17g, %.17g, 0], "
             "axis: [0, 0, 1]}\n"
             "  - {name: C, type: revolute, body1: coupler, body2: rocker, at: [%.17g, %.17g, 0], "
             "axis: [0, 0, 1]}\n"
             "  - {name: D, type: revolute, body2: rocker, at: [%.17g, 0, 0], axis: [0, 0, 1]}\n"
             "elements:\n"
             "  - {name: spring, type: spring-damper, body1: ground, body2: coupler, at1: [%.17g, "
             "%.17g, 0], "
             "at2: [%.17g, %.17g, 0], k: %.17g, c: %.17g, l0: %.17g}\n",
             B[0], B[1], C[0], C[1], FB_D, FB_P[0], FB_P[1], p.x[1][0], p.x[1][1], FB_K, c, FB_L0);
}

/* The crank's angle about z from its quaternion. */
static double crank_angle(const ld_system *s, const double *q) {
    double x[3], qq[4], om[3], xd[3], *v = calloc((size_t)s->k, sizeof *v);
    assert_int_equal(ld_model_body_state(s, 0, q, v, x, qq, om, xd), LD_OK);
    free(v);
    return 2.0 * atan2(qq[3], qq[0]);
}

static void test_four_bar(void **state) {
    (void)state;
    /* the independent derivation: the equilibrium θ* (Newton on V') and ω² = V''/m */
    double th = fb_min();
    for (int it = 0; it < 50; ++it) {
        double d = fb_d1(th) / fb_d2(th);
        th -= d;
        if (fabs(d) < 1e-13) break;
    }
    const double w2 = fb_d2(th) / fb_mass(th);
    printf("four-bar, one coordinate: equilibrium crank angle %.12f, V'' %.12g, m %.12g, w^2 "
           "%.12g\n",
           th, fb_d2(th), fb_mass(th), w2);
    assert_true(w2 > 0.0);
    char y[4096];
    fb_yaml(y, sizeof y, fb_min() + 0.2, 0.0); /* started off the equilibrium */
    for (int f = 0; f < NFORM; ++f) {
        lin_case c;
        lin_open(&c, y, ALL[f]);
        assert_int_equal(ld_model_redundant_rows(&c.s, NULL, NULL, 0), 3);
        assert_int_equal(c.lin.n, 1);
        assert_int_equal(c.lin.dependent, 0);
        double th_l = crank_angle(&c.s, c.q);
        ld_modes md;
        assert_int_equal(ld_modes_undamped(&c.lin, 0, &md, NULL, 0), LD_OK);
        double rel = md.omega2[0] / w2 - 1.0;
        printf("four-bar (%s): crank at %.12f (%+.1e), w^2 %.12g (%+.2e)\n",
               ld_formulation_name(ALL[f]), th_l, remainder(th_l - th, 2.0 * PI), md.omega2[0],
               rel);
        assert_true(fabs(remainder(th_l - th, 2.0 * PI)) < 1e-9);
        assert_true(fabs(rel) < 1e-8);
        ld_modes_free(&md);
        lin_close(&c);
    }
}

/* A free vibration from the equilibrium with the velocity 10⁻⁶ φ of the mode (consistent:
 * B φ = 0) oscillates at the eigenvalue's frequency: zero crossings of the crank angle, with
 * generalized-α (ρ∞ = 1) at two steps, whose period error falls as h². */
static double fb_measured(lin_case *c, const double *phi, double th0, double h, int halfs) {
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_GENALPHA, o.rho_inf = 1.0, o.la = LD_LA_DENSE, o.newton_atol = 1e-15,
    o.newton_rtol = 1e-12;
    int rc;
    ld_integ *it = ld_integ_create(&c->s, &o, &rc);
    assert_non_null(it);
    double *v0 = malloc((size_t)c->s.k * sizeof *v0);
    for (int i = 0; i < c->s.k; ++i) v0[i] = 1e-6 * phi[i];
    assert_int_equal(ld_integ_init(it, 0.0, c->q, v0), LD_OK);
    double prev = 0.0, t0 = NAN, t1 = NAN;
    int nc = 0;
    for (long n = 1; nc <= halfs && n < 10000000; ++n) {
        if ((rc = ld_integ_step(it, h))) fail_msg("step %ld: %s", n, ld_strerror(rc));
        double d = crank_angle(&c->s, ld_integ_q(it)) - th0;
        if (n > 1 && (prev < 0.0) != (d < 0.0)) {
            double tc = (double)(n - 1) * h + h * prev / (prev - d);
            if (nc == 0) t0 = tc;
            t1 = tc;
            ++nc;
        }
        prev = d;
    }
    ld_integ_free(it);
    free(v0);
    return PI * (nc - 1) / (t1 - t0);
}

static void test_four_bar_free_vibration(void **state) {
    (void)state;
    char y[4096];
    fb_yaml(y, sizeof y, fb_min() + 0.2, 0.0);
    lin_case c;
    lin_open(&c, y, LD_FORM_SO3XR3);
    ld_modes md;
    assert_int_equal(ld_modes_undamped(&c.lin, 0, &md, NULL, 0), LD_OK);
    double w = sqrt(md.omega2[0]), T = 2 * PI / w, th0 = crank_angle(&c.s, c.q), e[2];
    for (int i = 0; i < 2; ++i) {
        double h = T / (100.0 * (1 << i)), wm = fb_measured(&c, md.phi, th0, h, 8);
        e[i] = wm / w - 1.0;
        printf("four-bar free vibration, h = T/%d: w %.12g against the eigenvalue's %.12g "
               "(%+.3e)\n",
               100 << i, wm, w, e[i]);
    }
    /* generalized-α's period error (ωh)²/12 at ρ∞ = 1: −3.3e-4 and −8.2e-5 */
    assert_true(fabs(e[0]) < 5e-4 && fabs(e[1]) < 1.3e-4);
    assert_true(fabs(e[0] / e[1] - 4.0) < 0.1); /* second order: the rest is round-off */
    ld_modes_free(&md);
    lin_close(&c);
}

/* ---------------------------------------------------------------- the state matrix */

/* A = [0, I; −Mr⁻¹Kr, −Mr⁻¹Dr] against central differences of the accelerations of the states
 * (q* ∘ exp(±ε N z), ±ε N w) (ld_sys_initial_accel), projected by Nᵀ: the four-bar with a
 * spring-damper and the damped double pendulum, every formulation. */
static double fd_check(lin_case *c) {
    const ld_system *s = &c->s;
    size_t k = (size_t)s->k, n = (size_t)c->lin.n, n2 = 2 * n, nq = (size_t)s->nq;
    double *A = malloc(n2 * n2 * sizeof *A), *xi = malloc(k * sizeof *xi),
           *v = malloc(k * sizeof *v), *qp = malloc(nq * sizeof *qp), *ap = malloc(k * sizeof *ap),
           *am = malloc(k * sizeof *am), *lm = malloc(((size_t)s->m + 1) * sizeof *lm);
    assert_int_equal(ld_linear_state_matrix(&c->lin, A), LD_OK);
    const double eps = 1e-6;
    double err = 0.0, big = 0.0;
    for (size_t j = 0; j < n2; ++j) {
        for (int sg = -1; sg <= 1; sg += 2) {
            for (size_t i = 0; i < k; ++i) {
                double nij = c->lin.N[i * n + (j % n)];
                xi[i] = j < n ? sg * eps * nij : 0.0;
                v[i] = j < n ? 0.0 : sg * eps * nij;
            }
            ld_sys_retract(s, qp, c->q, xi);
            assert_int_equal(ld_sys_initial_accel(s, 0.0, qp, v, sg > 0 ? ap : am, lm), LD_OK);
        }
        for (size_t r = 0; r < n; ++r) {
            double d = 0.0;
            for (size_t i = 0; i < k; ++i) d += c->lin.N[i * n + r] * (ap[i] - am[i]);
            d /= 2 * eps;
            err = fmax(err, fabs(d - A[(n + r) * n2 + j]));
            big = fmax(big, fabs(A[(n + r) * n2 + j]));
        }
    }
    free(A), free(xi), free(v), free(qp), free(ap), free(am), free(lm);
    return err / big;
}

static void test_state_matrix(void **state) {
    (void)state;
    char y[4096];
    for (int f = 0; f < NFORM; ++f) {
        lin_case c;
        fb_yaml(y, sizeof y, fb_min() + 0.2, 1.5);
        lin_open(&c, y, ALL[f]);
        double e1 = fd_check(&c);
        lin_close(&c);
        dp_yaml(y, sizeof y, 0.05);
        lin_open(&c, y, ALL[f]);
        double e2 = fd_check(&c);
        lin_close(&c);
        printf("state matrix against differences (%s): four-bar %.1e, double pendulum %.1e\n",
               ld_formulation_name(ALL[f]), e1, e2);
        assert_true(e1 < 1e-7 && e2 < 1e-7);
    }
}

/* ---------------------------------------------------------------- a spinning body */

/* A free body spinning at Ω about principal axis a (moments I): about the middle moment the
 * linearization has the real eigenvalue Ω √((I_a − I_b)(I_c − I_a) / (I_b I_c)) > 0 (Euler's
 * equations); about the largest and the smallest, no eigenvalue with a positive real part. */
static void test_spinning_body(void **state) {
    (void)state;
    const double I[3] = {1.0, 2.0, 3.0}, Om = 5.0;
    for (int a = 0; a < 3; ++a) {
        char y[1024];
        double om[3] = {0, 0, 0};
        om[a] = Om;
        snprintf(
            y, sizeof y,
            "name: spin\nbodies:\n  - {name: b, mass: 2, inertia: [1, 2, 3], position: [0, 0, 0], "
            "angular_velocity: [%.17g, %.17g, %.17g]}\n",
            om[0], om[1], om[2]);
        for (int f = 0; f < 4; ++f) { /* the body-frame Lie-group formulations */
            ld_model m;
            ld_model_error err;
            if (ld_model_parse(y, strlen(y), "spin.yaml", &m, &err)) fail_msg("%s", err.msg);
            ld_system s;
            double *q, *v;
            assert_int_equal(ld_model_compile(&m, ALL[f], &s, &q, &v), LD_OK);
            ld_linear lin;
            char msg[256];
            if (ld_linearize(&s, 0.0, q, v, &lin, msg, sizeof msg)) fail_msg("%s", msg);
            assert_int_equal(lin.moving, 1);
            ld_modes md;
            assert_int_equal(ld_modes_damped(&lin, 0, &md, NULL, 0), LD_OK);
            double grow = -INFINITY;
            for (int j = 0; j < md.count; ++j) grow = fmax(grow, md.re[j]);
            int b = (a + 1) % 3, cix = (a + 2) % 3;
            double p = (I[a] - I[b]) * (I[cix] - I[a]) / (I[b] * I[cix]);
            double want = p > 0 ? Om * sqrt(p) : 0.0;
            if (f == 0)
                printf("spin about axis %d: largest real part %.12g, Euler's equations %.12g\n",
                       a + 1, grow, want);
            assert_true(fabs(grow - want) < 1e-9 * Om);
            ld_modes_free(&md);
            ld_linear_free(&lin);
            free(q);
            free(v);
            ld_model_system_free(&s);
            ld_model_free(&m);
        }
    }
}

/* ---------------------------------------------------------------- a spinning rotor */

/* A rotor (It = 0.09 across, Ip = 0.05 about its axis z) on a spherical joint at its centre,
 * its tilt held by four springs k = 1000 from its axis point (0, 0, a = 0.2) to the ground,
 * unstressed: the tilt stiffness is kt = 2 k a² = 80. Spinning at Ω about z it whirls, in the
 * fixed frame, at ω = (±Ip Ω + √((Ip Ω)² + 4 It kt)) / (2 It) (forward +, backward −); the
 * linearization is in the disc's body frame, which turns at Ω, so it sees |ω_f − Ω| and
 * ω_b + Ω. The forward whirl stands still in the rotor's frame at the critical speed
 * Ω² = kt / (It − Ip), Ω = 44.72 rad/s. */
static const char ROTOR[] =
    "name: rotor\n"
    "bodies:\n"
    "  - {name: disc, mass: 2, inertia: [0.09, 0.09, 0.05], position: [0, 0, 0], "
    "angular_velocity: [0, 0, 1]}\n"
    "joints:\n"
    "  - {name: pivot, type: spherical, body2: disc, at: [0, 0, 0]}\n"
    "elements:\n"
    "  - {type: spring-damper, body1: ground, body2: disc, at1: [0.3, 0, 0.2], at2: [0, 0, 0.2], "
    "k: 1000, l0: 0.3}\n"
    "  - {type: spring-damper, body1: ground, body2: disc, at1: [-0.3, 0, 0.2], at2: [0, 0, 0.2], "
    "k: 1000, l0: 0.3}\n"
    "  - {type: spring-damper, body1: ground, body2: disc, at1: [0, 0.3, 0.2], at2: [0, 0, 0.2], "
    "k: 1000, l0: 0.3}\n"
    "  - {type: spring-damper, body1: ground, body2: disc, at1: [0, -0.3, 0.2], at2: [0, 0, 0.2], "
    "k: 1000, l0: 0.3}\n";

static void rotor_whirl(double Om, double *fwd, double *bwd) {
    const double It = 0.09, Ip = 0.05, kt = 80.0;
    double r = sqrt(Ip * Om * Ip * Om + 4 * It * kt);
    *fwd = fabs((Ip * Om + r) / (2 * It) - Om); /* as seen in the turning frame */
    *bwd = (-Ip * Om + r) / (2 * It) + Om;
}

/* The rotor's damped modes at spin Om (its body-frame linearization); the two whirl modes'
 * frequencies |s| (rad/s) into w[2], ascending. */
static void rotor_modes(ld_system *s, const double *q, const double *v1, double Om, ld_modes *md) {
    double *v = malloc((size_t)s->k * sizeof *v);
    for (int i = 0; i < s->k; ++i) v[i] = Om * v1[i];
    ld_linear lin;
    char msg[256];
    if (ld_linearize(s, 0.0, q, v, &lin, msg, sizeof msg)) fail_msg("%s", msg);
    assert_true(lin.accel < 1e-12 * (1.0 + Om * Om)); /* a steady motion */
    assert_int_equal(lin.n, 3);
    assert_int_equal(ld_modes_damped(&lin, 0, md, msg, sizeof msg), LD_OK);
    ld_linear_free(&lin);
    free(v);
}

static void test_rotor_campbell(void **state) {
    (void)state;
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(ROTOR, strlen(ROTOR), "rotor.yaml", &m, &err)) fail_msg("%s", err.msg);
    ld_system s;
    double *q, *v1;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q, &v1), LD_OK);
    ld_modes prev, cur;
    memset(&prev, 0, sizeof prev);
    int track[2] = {-1, -1}; /* the whirl modes' indices in the current sweep point */
    int branch = -1;         /* 1: track 0 follows the forward whirl */
    double err_max = 0.0;
    for (int step = 0; step <= 20; ++step) {
        double Om = 5.0 * step, fw, bw;
        rotor_whirl(Om, &fw, &bw);
        rotor_modes(&s, q, v1, Om, &cur);
        /* the whirl modes: the two of nonzero frequency (the spin angle is neutral: s = 0) */
        int idx[2], nw = 0;
        for (int j = 0; j < cur.count && nw < 2; ++j)
            if (cur.hz[j] * 2 * PI > 1e-6) idx[nw++] = j;
        assert_int_equal(nw, 2);
        double w0 = cur.hz[idx[0]] * 2 * PI, w1 = cur.hz[idx[1]] * 2 * PI;
        double lo = fmin(fw, bw), hi = fmax(fw, bw);
        err_max = fmax(err_max, fmax(fabs(w0 - lo), fabs(w1 - hi)) / hi);
        assert_true(fabs(cur.zeta[idx[0]]) < 1e-9 && fabs(cur.zeta[idx[1]]) < 1e-9);
        if (step == 0) {
            track[0] = idx[0], track[1] = idx[1];
        } else { /* follow the two whirl modes by their shapes */
            int *order = malloc((size_t)prev.count * sizeof *order);
            assert_int_equal(ld_modes_track(&prev, &cur, order, NULL), LD_OK);
            for (int b = 0; b < 2; ++b) track[b] = order[track[b]];
            free(order);
            /* past the degenerate start, each track stays on its branch, the forward one
             * through the critical speed (where its shape flips to the conjugate) */
            double a = cur.hz[track[0]] * 2 * PI, b = cur.hz[track[1]] * 2 * PI;
            int fwd_first = fabs(a - fw) < 1e-8 * hi && fabs(b - bw) < 1e-8 * hi;
            int bwd_first = fabs(a - bw) < 1e-8 * hi && fabs(b - fw) < 1e-8 * hi;
            assert_true(fwd_first || bwd_first);
            if (step == 1) branch = fwd_first;
            assert_int_equal(fwd_first, branch);
        }
        if (step % 5 == 0)
            printf("rotor at %5.1f rad/s: whirl seen in the disc's frame %.10g and %.10g, "
                   "exact %.10g and %.10g\n",
                   Om, w0, w1, lo, hi);
        ld_modes_free(&prev);
        prev = cur;
    }
    printf("rotor Campbell diagram, 21 speeds: largest relative error %.1e\n", err_max);
    assert_true(err_max < 1e-10);
    ld_modes_free(&prev);
    free(q);
    free(v1);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* ---------------------------------------------------------------- arguments */

static void test_arguments(void **state) {
    (void)state;
    ld_linear lin;
    char msg[128];
    assert_int_equal(ld_linearize(NULL, 0.0, NULL, NULL, &lin, msg, sizeof msg), LD_EINVAL);
    ld_modes md;
    memset(&lin, 0, sizeof lin);
    assert_int_equal(ld_modes_undamped(&lin, 0, &md, NULL, 0), LD_EINVAL);
    assert_int_equal(ld_modes_damped(NULL, 0, &md, NULL, 0), LD_EINVAL);
    double A[4], dx[3], dth[3];
    int order[1];
    assert_int_equal(ld_linear_state_matrix(NULL, A), LD_EINVAL);
    assert_int_equal(ld_linear_state_matrix(&lin, A), LD_EINVAL); /* empty */
    assert_int_equal(ld_linear_input_matrix(&lin, A, 1, A), LD_EINVAL);
    assert_int_equal(ld_linear_body_jacobian(NULL, A, 0, A, A), LD_EINVAL);
    assert_int_equal(ld_modes_body_shape(NULL, A, A, 0, dx, dth), LD_EINVAL);
    memset(&md, 0, sizeof md);
    assert_true(isnan(ld_modes_mac(&md, 0, &md, 0)));
    assert_true(isnan(ld_modes_mac(NULL, 0, &md, 0)));
    assert_int_equal(ld_modes_track(NULL, &md, order, NULL), LD_EINVAL);
    ld_linear_free(NULL);
    ld_modes_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pendulum),
        cmocka_unit_test(test_double_pendulum),
        cmocka_unit_test(test_double_pendulum_damped),
        cmocka_unit_test(test_input_output),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_four_bar),
        cmocka_unit_test(test_four_bar_free_vibration),
        cmocka_unit_test(test_state_matrix),
        cmocka_unit_test(test_spinning_body),
        cmocka_unit_test(test_rotor_campbell),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

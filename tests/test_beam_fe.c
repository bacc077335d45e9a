/*
 * The geometrically exact beam element (src/elements/beam_fe.h): the quadrature and the basis,
 * a stress-free reference and objectivity (curved and twisted reference, rigid motions), the
 * force against differences of the energy and the stiffness against differences of the force
 * along the group for every order p = 1 … 8 with full and reduced integration, and two exact
 * static solutions solved by Newton with the clamped node eliminated: the cantilever rolled into
 * a full circle by the end moment 2π EI/L (the tip returns to the clamp), and the small-load
 * tip deflection P L³/(3 EI) + P L/(G A₂).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../src/elements/beam_fe.h"
#include "liedyn/lie.h"
#include "liedyn/liedyn.h"

static double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---------------------------------------------------------------- quadrature and basis */

static double legendre_d(int p, double x) { /* P_p'(x) */
    double P0 = 1.0, P1 = x, d0 = 0.0, d1 = 1.0;
    if (p == 0) return 0.0;
    for (int k = 2; k <= p; ++k) {
        double P2 = ((2.0 * k - 1.0) * x * P1 - (k - 1.0) * P0) / k;
        double d2 = d0 + (2.0 * k - 1.0) * P1;
        P0 = P1, P1 = P2, d0 = d1, d1 = d2;
    }
    return d1;
}

static void test_gll(void **state) {
    (void)state;
    double xi[LD_BEAM_MAX_NODES];
    assert_int_equal(ld_beam_gll(0, xi), LD_EINVAL);
    assert_int_equal(ld_beam_gll(LD_BEAM_MAX_ORDER + 1, xi), LD_EINVAL);
    for (int p = 1; p <= LD_BEAM_MAX_ORDER; ++p) {
        assert_int_equal(ld_beam_gll(p, xi), LD_OK);
        assert_true(xi[0] == -1.0 && xi[p] == 1.0);
        for (int i = 1; i < p; ++i) {
            assert_true(xi[i] > xi[i - 1]);
            assert_true(fabs(legendre_d(p, xi[i])) < 1e-12 * (1.0 + p * p));
            assert_true(xi[i] == -xi[p - i]);
        }
    }
    assert_int_equal(ld_beam_gll(3, xi), LD_OK);
    assert_true(fabs(xi[2] - 1.0 / sqrt(5.0)) < 1e-15);
    assert_int_equal(ld_beam_gll(4, xi), LD_OK);
    assert_true(fabs(xi[3] - sqrt(3.0 / 7.0)) < 1e-15 && xi[2] == 0.0);
}

static void test_gauss(void **state) {
    (void)state;
    double x[LD_BEAM_MAX_QP], w[LD_BEAM_MAX_QP];
    assert_int_equal(ld_beam_gauss(0, x, w), LD_EINVAL);
    for (int n = 1; n <= LD_BEAM_MAX_QP; ++n) {
        assert_int_equal(ld_beam_gauss(n, x, w), LD_OK);
        for (int k = 0; k <= 2 * n; ++k) { /* exact up to degree 2n − 1, not at 2n */
            double sum = 0.0, exact = k % 2 ? 0.0 : 2.0 / (k + 1.0);
            for (int i = 0; i < n; ++i) sum += w[i] * pow(x[i], k);
            if (k < 2 * n) /* the sum's round-off grows with the number of points */
                assert_true(fabs(sum - exact) < 1e-14 * fmax(1.0, n / 8.0));
            else if (n <= 16) /* the error 2^(2n+1) (n!)^4 / ((2n+1) ((2n)!)^2) ~ 4^-n: visible */
                assert_true(fabs(sum - exact) > 1e-12);
        }
    }
}

static void test_lagrange(void **state) {
    (void)state;
    double xi[LD_BEAM_MAX_NODES], N[LD_BEAM_MAX_NODES], dN[LD_BEAM_MAX_NODES];
    double Np[LD_BEAM_MAX_NODES], Nm[LD_BEAM_MAX_NODES], tmp[LD_BEAM_MAX_NODES];
    for (int p = 1; p <= LD_BEAM_MAX_ORDER; ++p) {
        ld_beam_gll(p, xi);
        for (int j = 0; j <= p; ++j) {
            ld_beam_lagrange(p + 1, xi, xi[j], N, dN);
            for (int i = 0; i <= p; ++i) assert_true(fabs(N[i] - (i == j)) < 1e-14);
        }
        const double at = 0.3137, h = 1e-6;
        ld_beam_lagrange(p + 1, xi, at, N, dN);
        ld_beam_lagrange(p + 1, xi, at + h, Np, tmp);
        ld_beam_lagrange(p + 1, xi, at - h, Nm, tmp);
        double s = 0.0, ds = 0.0;
        for (int i = 0; i <= p; ++i) {
            s += N[i], ds += dN[i];
            assert_true(fabs((Np[i] - Nm[i]) / (2 * h) - dN[i]) < 1e-7);
        }
        assert_true(fabs(s - 1.0) < 1e-13 && fabs(ds) < 1e-11);
    }
}

/* ---------------------------------------------------------------- elements */

/* Section: EA, GA₂, GA₃, GJ, EI₂, EI₃ on the diagonal plus a coupling (a composite section). */
/* Array sizes for the largest element: quaternions, positions, 6 per node. */
enum { QN = 4 * LD_BEAM_MAX_NODES, XN = 3 * LD_BEAM_MAX_NODES, M = 6 * LD_BEAM_MAX_NODES };

static void section(double C[36], int coupled) {
    static const double d[6] = {1e4, 3e3, 2.5e3, 40.0, 60.0, 80.0};
    memset(C, 0, 36 * sizeof(double));
    for (int k = 0; k < 6; ++k) C[7 * k] = d[k];
    if (coupled) C[3] = C[18] = 50.0, C[6 * 4 + 5] = C[6 * 5 + 4] = 10.0; /* extension-twist */
}

/* Reference nodes of an element of order p on a helix arc, frames with e1 roughly tangent and a
 * twist: curved and twisted. */
static void helix(int p, double *q0, double *x0) {
    double xi[LD_BEAM_MAX_NODES];
    ld_beam_gll(p, xi);
    for (int i = 0; i <= p; ++i) {
        double s = 0.5 * (xi[i] + 1.0), th = 1.2 * s;
        x0[3 * i] = 2.0 * sin(th), x0[3 * i + 1] = 2.0 * (1.0 - cos(th)), x0[3 * i + 2] = 0.7 * s;
        double ax[3] = {0.3 * s, 0.1, 1.0}, n = sqrt(dot3(ax, ax)), ang = th + 0.4 * s;
        for (int k = 0; k < 3; ++k) ax[k] *= ang / n;
        ld_s3_exp(q0 + 4 * i, ax);
    }
}

/* The configuration moved by ξ (6 per node: q ∘ exp(δθ), x + δx). */
static void move(int nn, const double *q, const double *x, const double *xi, double *qn,
                 double *xn) {
    for (int i = 0; i < nn; ++i) {
        double e[4];
        ld_s3_exp(e, xi + 6 * i);
        ld_quat_mul(qn + 4 * i, q + 4 * i, e);
        for (int k = 0; k < 3; ++k) xn[3 * i + k] = x[3 * i + k] + xi[6 * i + 3 + k];
    }
}

static void rigid(int nn, const double *q, const double *x, const double Q[4], const double t[3],
                  double *qn, double *xn) {
    for (int i = 0; i < nn; ++i) {
        ld_quat_mul(qn + 4 * i, Q, q + 4 * i);
        ld_quat_rotate(xn + 3 * i, Q, x + 3 * i);
        for (int k = 0; k < 3; ++k) xn[3 * i + k] += t[k];
    }
}

static void test_reference_and_rigid_motion(void **state) {
    (void)state;
    double q0[QN], x0[XN], q[QN], x[XN], F[M], C[36], V;
    section(C, 1);
    rng r = rng_seed(3);
    for (int p = 1; p <= LD_BEAM_MAX_ORDER; ++p) {
        ld_beam_fe e;
        helix(p, q0, x0);
        assert_int_equal(ld_beam_fe_init(&e, p, p + 1, q0, x0, C, 1), LD_OK);
        ld_beam_fe_elastic(&e, q0, x0, LD_BEAM_FORCE | LD_BEAM_ENERGY, F, NULL, &V);
        assert_true(fabs(V) < 1e-20 && maxabs(F, 6 * (p + 1)) < 1e-9);
        double Q[4], t[3] = {1.0, -2.0, 0.5};
        rng_quat(&r, Q);
        rigid(p + 1, q0, x0, Q, t, q, x);
        for (int i = 1; i <= p; i += 2) /* the other cover of S³ for some nodes */
            for (int k = 0; k < 4; ++k) q[4 * i + k] = -q[4 * i + k];
        ld_beam_fe_elastic(&e, q, x, LD_BEAM_FORCE | LD_BEAM_ENERGY, F, NULL, &V);
        if (!(fabs(V) < 1e-18 && maxabs(F, 6 * (p + 1)) < 1e-8))
            fail_msg("p = %d: a rigid motion gives V = %g, |F| = %g", p, V, maxabs(F, 6 * (p + 1)));
    }
    ld_beam_fe e;
    assert_int_equal(ld_beam_fe_init(&e, 0, 1, q0, x0, C, 1), LD_EINVAL);
    assert_int_equal(ld_beam_fe_init(&e, 2, LD_BEAM_MAX_QP + 1, q0, x0, C, 1), LD_EINVAL);
    memcpy(x0 + 3, x0, 3 * sizeof(double)), memcpy(x0 + 6, x0, 3 * sizeof(double));
    assert_int_equal(ld_beam_fe_init(&e, 2, 3, q0, x0, C, 1), LD_EINVAL); /* zero length */
}

/* F against central differences of V and K against those of F, along the group, at a deformed
 * state, for order p with nq quadrature points. */
static void check_tangents(int p, int nq, uint64_t seed) {
    int nn = p + 1, n = 6 * nn;
    double q0[QN], x0[XN], q[QN], x[XN], qs[QN], xs[XN], C[36], d[M], F[M], Fp[M], Fm[M];
    static double K[M * M];
    section(C, 1);
    helix(p, q0, x0);
    ld_beam_fe e;
    assert_int_equal(ld_beam_fe_init(&e, p, nq, q0, x0, C, 1), LD_OK);
    rng r = rng_seed(seed);
    for (int i = 0; i < n; ++i) d[i] = rng_range(&r, -0.3, 0.3);
    move(nn, q0, x0, d, q, x);
    ld_beam_fe_elastic(&e, q, x, LD_BEAM_FORCE | LD_BEAM_STIFF, F, K, NULL);
    const double h = 1e-5;
    double ef = 0.0, ek = 0.0, sf = maxabs(F, n), sk = maxabs(K, n * n);
    for (int j = 0; j < n; ++j) {
        double Vp, Vm;
        memset(d, 0, sizeof d);
        d[j] = h;
        move(nn, q, x, d, qs, xs);
        ld_beam_fe_elastic(&e, qs, xs, LD_BEAM_FORCE | LD_BEAM_ENERGY, Fp, NULL, &Vp);
        d[j] = -h;
        move(nn, q, x, d, qs, xs);
        ld_beam_fe_elastic(&e, qs, xs, LD_BEAM_FORCE | LD_BEAM_ENERGY, Fm, NULL, &Vm);
        ef = fmax(ef, fabs((Vp - Vm) / (2 * h) - F[j]));
        for (int i = 0; i < n; ++i) ek = fmax(ek, fabs((Fp[i] - Fm[i]) / (2 * h) - K[n * i + j]));
    }
    if (ef > 1e-6 * sf || ek > 1e-6 * sk)
        fail_msg("p = %d, %d points: force error %.2e (of %.2e), stiffness error %.2e (of %.2e)", p,
                 nq, ef, sf, ek, sk);
}

static void test_tangents(void **state) {
    (void)state;
    for (int p = 1; p <= LD_BEAM_MAX_ORDER; ++p) {
        check_tangents(p, p + 1, 100u + (unsigned)p); /* full */
        check_tangents(p, p, 200u + (unsigned)p);     /* reduced */
    }
}

/* The damping: Kq against differences of the force along the group at fixed velocities, Kv
 * against differences in the velocities, and the dissipated power vᵀF ≥ 0. */
static void check_damping(int p, uint64_t seed) {
    int nn = p + 1, n = 6 * nn;
    double q0[QN], x0[XN], q[QN], x[XN], qs[QN], xs[XN], C[36], d[M], Om[XN], xd[XN];
    double F[M], Fp[M], Fm[M];
    static double Kq[M * M], Kv[M * M];
    section(C, 1);
    helix(p, q0, x0);
    ld_beam_fe e;
    assert_int_equal(ld_beam_fe_init(&e, p, p + 1, q0, x0, C, 1), LD_OK);
    rng r = rng_seed(seed);
    for (int i = 0; i < n; ++i) d[i] = rng_range(&r, -0.3, 0.3);
    for (int i = 0; i < 3 * nn; ++i) Om[i] = rng_range(&r, -2, 2), xd[i] = rng_range(&r, -2, 2);
    move(nn, q0, x0, d, q, x);
    const double mu = 0.01;
    memset(F, 0, sizeof F), memset(Kq, 0, sizeof Kq), memset(Kv, 0, sizeof Kv);
    ld_beam_fe_damping(&e, q, x, Om, xd, mu, F, Kq, Kv);
    double power = 0.0;
    for (int i = 0; i < nn; ++i)
        for (int k = 0; k < 3; ++k)
            power += Om[3 * i + k] * F[6 * i + k] + xd[3 * i + k] * F[6 * i + 3 + k];
    assert_true(power > 0.0);
    const double h = 1e-6;
    double eq = 0.0, ev = 0.0, sq = maxabs(Kq, n * n), sv = maxabs(Kv, n * n);
    for (int j = 0; j < n; ++j) {
        memset(d, 0, sizeof d);
        memset(Fp, 0, sizeof Fp), memset(Fm, 0, sizeof Fm);
        d[j] = h;
        move(nn, q, x, d, qs, xs);
        ld_beam_fe_damping(&e, qs, xs, Om, xd, mu, Fp, NULL, NULL);
        d[j] = -h;
        move(nn, q, x, d, qs, xs);
        ld_beam_fe_damping(&e, qs, xs, Om, xd, mu, Fm, NULL, NULL);
        for (int i = 0; i < n; ++i) eq = fmax(eq, fabs((Fp[i] - Fm[i]) / (2 * h) - Kq[n * i + j]));
        double *vel = j % 6 < 3 ? Om + 3 * (j / 6) + j % 6 : xd + 3 * (j / 6) + j % 6 - 3;
        double keep = *vel;
        memset(Fp, 0, sizeof Fp), memset(Fm, 0, sizeof Fm);
        *vel = keep + h;
        ld_beam_fe_damping(&e, q, x, Om, xd, mu, Fp, NULL, NULL);
        *vel = keep - h;
        ld_beam_fe_damping(&e, q, x, Om, xd, mu, Fm, NULL, NULL);
        *vel = keep;
        for (int i = 0; i < n; ++i) ev = fmax(ev, fabs((Fp[i] - Fm[i]) / (2 * h) - Kv[n * i + j]));
    }
    if (eq > 1e-6 * sq || ev > 1e-7 * sv)
        fail_msg("damping, p = %d: Kq error %.2e (of %.2e), Kv error %.2e (of %.2e)", p, eq, sq, ev,
                 sv);
}

static void test_damping(void **state) {
    (void)state;
    for (int p = 1; p <= 4; ++p) check_damping(p, 300u + (unsigned)p);
    check_damping(LD_BEAM_MAX_ORDER, 399u);
}

/* ---------------------------------------------------------------- statics */

/* A straight cantilever along x from the origin: nel elements of order p, node 0 clamped, a
 * follower moment mb (material) and a dead force f at the tip; solved by Newton in load steps.
 * Returns the tip position and quaternion. */
typedef struct cant {
    int nel, p, nn;
    ld_beam_fe e[16];
    double q[4 * 129], x[3 * 129];
} cant;

static void cant_init(cant *c, int nel, int p, double L, const double C[36], int nq) {
    c->nel = nel, c->p = p, c->nn = nel * p + 1;
    double xi[LD_BEAM_MAX_NODES];
    ld_beam_gll(p, xi);
    for (int k = 0; k < nel; ++k)
        for (int j = 0; j <= p; ++j) {
            int g = k * p + j;
            c->x[3 * g] = L * (k + 0.5 * (xi[j] + 1.0)) / nel;
            c->x[3 * g + 1] = c->x[3 * g + 2] = 0.0;
            c->q[4 * g] = 1.0, c->q[4 * g + 1] = c->q[4 * g + 2] = c->q[4 * g + 3] = 0.0;
        }
    for (int k = 0; k < nel; ++k)
        assert_int_equal(ld_beam_fe_init(&c->e[k], p, nq, c->q + 4 * k * p, c->x + 3 * k * p, C, 1),
                         LD_OK);
}

/* Solve A x = b (n×n, row-major, overwritten) by Gaussian elimination with partial pivoting. */
static void solve(int n, double *A, double *b) {
    for (int k = 0; k < n; ++k) {
        int piv = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(A[n * i + k]) > fabs(A[n * piv + k])) piv = i;
        for (int j = 0; j < n; ++j) {
            double t = A[n * k + j];
            A[n * k + j] = A[n * piv + j], A[n * piv + j] = t;
        }
        double t = b[k];
        b[k] = b[piv], b[piv] = t;
        assert_true(A[n * k + k] != 0.0);
        for (int i = k + 1; i < n; ++i) {
            double f = A[n * i + k] / A[n * k + k];
            for (int j = k; j < n; ++j) A[n * i + j] -= f * A[n * k + j];
            b[i] -= f * b[k];
        }
    }
    for (int k = n - 1; k >= 0; --k) {
        for (int j = k + 1; j < n; ++j) b[k] -= A[n * k + j] * b[j];
        b[k] /= A[n * k + k];
    }
}

static int cant_solve(cant *c, const double mb[3], const double f[3], int steps) {
    int nu = 6 * (c->nn - 1), iters = 0;
    double *K = calloc((size_t)nu * (size_t)nu, sizeof *K), *r = calloc((size_t)nu, sizeof *r);
    static double Ke[M * M];
    double Fe[M], d[6 * 129];
    assert_true(K && r);
    for (int s = 1; s <= steps; ++s) {
        double lf = (double)s / steps;
        int converged = 0;
        for (int it = 0; it < 60 && !converged; ++it, ++iters) {
            memset(K, 0, (size_t)nu * (size_t)nu * sizeof *K);
            for (int i = 0; i < nu; ++i) r[i] = 0.0;
            for (int k = 0; k < c->nel; ++k) {
                int n0 = k * c->p, ne = 6 * (c->p + 1);
                ld_beam_fe_elastic(&c->e[k], c->q + 4 * n0, c->x + 3 * n0,
                                   LD_BEAM_FORCE | LD_BEAM_STIFF, Fe, Ke, NULL);
                for (int a = 0; a < ne; ++a) {
                    int ga = 6 * n0 + a - 6; /* node 0 eliminated */
                    if (ga < 0) continue;
                    r[ga] += Fe[a];
                    for (int b = 0; b < ne; ++b) {
                        int gb = 6 * n0 + b - 6;
                        if (gb >= 0) K[(size_t)nu * (size_t)ga + (size_t)gb] += Ke[ne * a + b];
                    }
                }
            }
            for (int k = 0; k < 3; ++k) r[nu - 6 + k] -= lf * mb[k], r[nu - 3 + k] -= lf * f[k];
            double rn = 0.0;
            for (int i = 0; i < nu; ++i) rn = fmax(rn, fabs(r[i]));
            if (getenv("BEAM_DEBUG")) printf("  step %d it %d |r| %.3e\n", s, it, rn);
            if (rn < 1e-9) {
                converged = 1;
                break;
            }
            for (int i = 0; i < nu; ++i) r[i] = -r[i];
            solve(nu, K, r);
            memset(d, 0, 6 * sizeof(double));
            memcpy(d + 6, r, (size_t)nu * sizeof(double));
            double qn[4 * 129], xn[3 * 129];
            move(c->nn, c->q, c->x, d, qn, xn);
            memcpy(c->q, qn, 4 * (size_t)c->nn * sizeof(double));
            memcpy(c->x, xn, 3 * (size_t)c->nn * sizeof(double));
        }
        if (!converged) fail_msg("load step %d of %d: Newton did not converge", s, steps);
    }
    free(K);
    free(r);
    return iters;
}

/* The roll-up: M = 2π EI₃/L about material e3 bends the beam into one full circle. */
static void test_rollup(void **state) {
    (void)state;
    const double L = 10.0;
    double C[36], err[3];
    section(C, 0);
    const int orders[3] = {4, 6, 8};
    for (int k = 0; k < 3; ++k) {
        static cant c;
        cant_init(&c, 2, orders[k], L, C, orders[k] + 1);
        double mb[3] = {0, 0, 2.0 * PI * C[35] / L}, f[3] = {0, 0, 0};
        int it = cant_solve(&c, mb, f, 16);
        const double *xt = c.x + 3 * (c.nn - 1);
        err[k] = sqrt(dot3(xt, xt)) / L;
        double mid[3]; /* the middle node sits on top of the circle: (0, L/π, 0) */
        memcpy(mid, c.x + 3 * (c.nn / 2), sizeof mid);
        if (orders[k] >= 6) assert_true(fabs(mid[0]) < 1e-3 && fabs(mid[1] - L / PI) < 1e-3);
        printf("roll-up, 2 elements of order %d: |tip| / L = %.3e, middle (%.6f, %.6f, %.2e), "
               "rotation of the tip %.3e rad from the identity, %d Newton iterations\n",
               orders[k], err[k], mid[0], mid[1], mid[2],
               2.0 * acos(fmin(1.0, fabs(c.q[4 * (c.nn - 1)]))), it);
    }
    /* spectral convergence in the order: 2.4e-2, 4.1e-5, 1.1e-8 measured */
    assert_true(err[0] < 5e-2 && err[1] < 1e-4 && err[2] < 1e-7 && err[2] < err[1] * 1e-2);
    /* one element of order 10, 12, 14 (11 … 15 nodes) with as many Gauss points as nodes */
    double e1[3];
    for (int k = 0; k < 3; ++k) {
        static cant c;
        int p = 10 + 2 * k;
        cant_init(&c, 1, p, L, C, p + 1);
        double mb[3] = {0, 0, 2.0 * PI * C[35] / L}, f[3] = {0, 0, 0};
        int it = cant_solve(&c, mb, f, 16);
        const double *xt = c.x + 3 * (c.nn - 1);
        e1[k] = sqrt(dot3(xt, xt)) / L;
        printf("roll-up, 1 element of order %d: tip (%.3e, %.3e, %.3e), |tip| / L = %.3e, "
               "%d Newton iterations\n",
               p, xt[0], xt[1], xt[2], e1[k], it);
    }
    /* 4.5e-6, 1.0e-8, 1.1e-11 measured: spectral convergence to round-off */
    assert_true(e1[0] < 1e-5 && e1[1] < e1[0] * 1e-2 && e1[2] < 2e-11 && e1[2] < e1[1] * 1e-2);
}

/* The linear limit: tip deflection P L³/(3 EI₃) + P L/(G A₂) under a small transverse force. */
static void test_small_load(void **state) {
    (void)state;
    const double L = 2.0, P = 1e-4;
    double C[36];
    section(C, 0);
    for (int nq = 0; nq < 2; ++nq) {
        static cant c;
        cant_init(&c, 2, 4, L, C, nq ? 4 : 5);
        double mb[3] = {0, 0, 0}, f[3] = {0, P, 0};
        cant_solve(&c, mb, f, 1);
        double exact = P * L * L * L / (3.0 * C[35]) + P * L / C[7];
        double tip = c.x[3 * (c.nn - 1) + 1];
        printf("small load (%s integration): tip %.10e, linear theory %.10e, relative %.2e\n",
               nq ? "reduced" : "full", tip, exact, tip / exact - 1.0);
        assert_true(fabs(tip / exact - 1.0) < 1e-5);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gll),      cmocka_unit_test(test_gauss),
        cmocka_unit_test(test_lagrange), cmocka_unit_test(test_reference_and_rigid_motion),
        cmocka_unit_test(test_tangents), cmocka_unit_test(test_damping),
        cmocka_unit_test(test_rollup),   cmocka_unit_test(test_small_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

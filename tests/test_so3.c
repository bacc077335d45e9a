/*
 * SO(3) and S³: exp/log identities per angle range, Rodrigues vs quaternion, hat/vee, the
 * tangent operator T against finite differences of exp, T T⁻¹ = I, the transposes, and
 * continuity of the matrices across every series switch.
 */
#include "group_table.h"

#include "fn.h"

static void test_hat_vee(void **state) {
    (void)state;
    rng r = rng_seed(31);
    for (int i = 0; i < NSAMPLES; ++i) {
        double v[3], w[3], M[9], c[3], back[3];
        rng_vec(&r, R_GENERIC, v);
        rng_vec(&r, R_GENERIC, w);
        ld_so3_hat(M, v);
        ld_so3_act(c, M, w);
        double x[3] = {v[1] * w[2] - v[2] * w[1], v[2] * w[0] - v[0] * w[2],
                       v[0] * w[1] - v[1] * w[0]};
        assert_true(maxabs_diff(c, x, 3) <= 4 * EPS * PI * PI);
        ld_so3_vee(back, M);
        assert_true(maxabs_diff(back, v, 3) == 0.0);
    }
}

static void test_exp(void **state) {
    (void)state;
    rng r = rng_seed(32);
    for (int k = 0; k < R_COUNT; ++k) {
        worst orth = WORST_INIT, det = WORST_INIT, quat = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double psi[3], R[9], q[4], Rq[9];
            double a = rng_vec(&r, k, psi);
            ld_so3_exp(R, psi);
            worst_add(&orth, orth_error(R), 8 * EPS, a);
            worst_add(&det, fabs(det3(R) - 1.0), 16 * EPS, a);
            ld_quat_from_rotvec(q, psi);
            ld_quat_to_mat(Rq, q);
            worst_add(&quat, maxabs_diff(R, Rq, 9), 8 * EPS * fmax(1.0, a), a);
        }
        worst_check(&orth, "exp orthogonal", range_name[k]);
        worst_check(&det, "det exp = 1", range_name[k]);
        worst_check(&quat, "Rodrigues = mat(exp_S3)", range_name[k]);
    }
    double z[3] = {0, 0, 0}, R[9];
    ld_so3_exp(R, z);
    for (int i = 0; i < 9; ++i) assert_true(R[i] == (double)(i % 4 == 0));
}

static void test_log(void **state) {
    (void)state;
    rng r = rng_seed(33);
    for (int k = 0; k < R_LARGE; ++k) {
        worst w = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double psi[3], R[9], back[3];
            double a = rng_vec(&r, k, psi);
            ld_so3_exp(R, psi);
            ld_so3_log(back, R);
            double err = maxabs_diff(back, psi, 3);
            if (PI - a < 1e-14) /* at pi, psi and -psi are the same rotation */
                err = fmin(err, maxabs_diff(back, (double[3]){-psi[0], -psi[1], -psi[2]}, 3));
            worst_add(&w, err, 8 * EPS * a, a);
        }
        worst_check(&w, "log(exp psi) = psi", range_name[k]);
    }
    worst w = WORST_INIT;
    for (int i = 0; i < NSAMPLES; ++i) {
        double q[4], R[9], psi[3], R2[9];
        rng_quat(&r, q);
        ld_quat_to_mat(R, q);
        ld_so3_log(psi, R);
        assert_true(norm3(psi) <= PI * (1.0 + EPS));
        ld_so3_exp(R2, psi);
        worst_add(&w, maxabs_diff(R, R2, 9), 8 * EPS, i);
    }
    worst_check(&w, "exp(log R) = R", "random R");
    /* exactly pi about x: both signs are right */
    double Rpi[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1}, psi[3];
    ld_so3_log(psi, Rpi);
    assert_true(fabs(fabs(psi[0]) - PI) <= 2 * EPS && psi[1] == 0.0 && psi[2] == 0.0);
}

/* S³: log is the inverse of exp on |Omega| < 2 pi and keeps the quaternion's sign. */
static void test_s3(void **state) {
    (void)state;
    rng r = rng_seed(34);
    worst w = WORST_INIT, e = WORST_INIT, neg = WORST_INIT;
    for (int i = 0; i < NSAMPLES; ++i) {
        double om[3], q[4], back[3];
        double a = (i % 2) ? rng_vec(&r, (enum range)(i % R_LARGE), om)
                           : PI + rng_range(&r, 0.0, PI - 1e-6); /* up to 2 pi - 1e-6 */
        if (i % 2 == 0) {
            rng_unit3(&r, om);
            for (int k = 0; k < 3; ++k) om[k] *= a;
        }
        ld_s3_exp(q, om);
        ld_s3_log(back, q);
        worst_add(&w, maxabs_diff(back, om, 3), 8 * EPS * a / fmax(1e-300, fmin(1.0, 2 * PI - a)),
                  a);
        /* log(-q) = -(2 pi - a) om/a */
        double nq[4] = {-q[0], -q[1], -q[2], -q[3]}, lb[3];
        ld_s3_log(lb, nq);
        for (int k = 0; k < 3; ++k) {
            double ex = -(2 * PI - a) * om[k] / a;
            worst_add(&neg, fabs(lb[k] - ex), 16 * EPS * 2 * PI / fmin(1.0, a), a);
        }
        double p[4], lp[3], q2[4];
        rng_quat(&r, p);
        ld_s3_log(lp, p);
        ld_s3_exp(q2, lp);
        worst_add(&e, maxabs_diff(p, q2, 4), 8 * EPS, i); /* sign included */
    }
    worst_check(&w, "log_S3(exp_S3 om) = om", "|om| < 2pi");
    worst_check(&neg, "log_S3(-q)", "|om| < 2pi");
    worst_check(&e, "exp_S3(log_S3 q) = q", "random q");
    double m1[4] = {-1, 0, 0, 0}, l[3], q[4];
    ld_s3_log(l, m1);
    ld_s3_exp(q, l);
    assert_true(maxabs_diff(q, m1, 4) <= 2 * EPS);
}

/* T against Richardson finite differences of exp, for SO(3) and S³, per range. */
static void test_tangent_fd(void **state) {
    (void)state;
    rng r = rng_seed(35);
    for (int g = 0; g < 2; ++g)
        for (int k = 0; k < R_COUNT; ++k) {
            worst w = WORST_INIT;
            for (int i = 0; i < NSAMPLES / R_COUNT; ++i) {
                double xi[3];
                double a = rng_vec(&r, k, xi);
                worst_add(&w, fd_tangent_error(&GROUPS[g], xi), FD_TOL(xi, 3), a);
            }
            worst_check(&w, GROUPS[g].name, range_name[k]);
        }
}

/* T T⁻¹ = I; Tᵀ(psi) = T(-psi) = transpose; T⁻ᵀ likewise. */
static void test_tangent_inverse(void **state) {
    (void)state;
    rng r = rng_seed(36);
    for (int k = 0; k < R_COUNT; ++k) {
        worst w = WORST_INIT, t = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double psi[3], T[9], Ti[9], P[9], Tt[9], Tit[9], M[9], npsi[3];
            double a = rng_vec(&r, k, psi);
            double m = fmod(a, 2 * PI);
            if (k == R_LARGE && (m < 0.3 || m > 2 * PI - 0.3)) continue; /* T⁻¹ poles */
            ld_so3_tangent(T, psi);
            ld_so3_tangent_inv(Ti, psi);
            matmul(P, T, Ti, 3);
            for (int j = 0; j < 9; ++j) P[j] -= (j % 4 == 0);
            worst_add(&w, maxabs(P, 9), 32 * EPS * (1.0 + maxabs(T, 9) * maxabs(Ti, 9)), a);
            ld_so3_tangent_t(Tt, psi);
            ld_so3_tangent_inv_t(Tit, psi);
            for (int j = 0; j < 3; ++j) npsi[j] = -psi[j];
            ld_so3_tangent(M, npsi);
            worst_add(&t, maxabs_diff(Tt, M, 9), 0.5 * EPS, a);
            for (int j = 0; j < 9; ++j) M[j] = T[3 * (j % 3) + j / 3];
            worst_add(&t, maxabs_diff(Tt, M, 9), 0.5 * EPS, a);
            for (int j = 0; j < 9; ++j) M[j] = Ti[3 * (j % 3) + j / 3];
            worst_add(&t, maxabs_diff(Tit, M, 9), 0.5 * EPS, a);
        }
        worst_check(&w, "T T^-1 = I", range_name[k]);
        worst_check(&t, "transposes", range_name[k]);
    }
}

/* Every matrix map is continuous to round-off where its coefficients switch formula. */
static void test_switch_continuity(void **state) {
    (void)state;
    const double sw[] = LD_FN_SWITCH_POINTS;
    map_fn maps[] = {ld_so3_exp, ld_so3_tangent, ld_so3_tangent_inv};
    const double dir[3] = {0.48, -0.6, 0.64}; /* unit */
    for (size_t s = 0; s < sizeof sw / sizeof sw[0]; ++s)
        for (int m = 0; m < 3; ++m) {
            double lo[3], hi[3], A[9], B[9], below = nextafter(sw[s], 0.0);
            for (int k = 0; k < 3; ++k) {
                lo[k] = below * dir[k];
                hi[k] = sw[s] * dir[k];
            }
            maps[m](A, lo);
            maps[m](B, hi);
            /* the arguments differ by ~1 ulp of |psi|: allow that change plus round-off */
            double jump = maxabs_diff(A, B, 9) / maxabs(B, 9);
            if (!(jump <= 1e-14)) fail_msg("map %d: relative jump %.3e at %g", m, jump, sw[s]);
        }
}

/* Rotation vectors whose squared length overflows (|ψ| up to 1e300): a rotation matrix and a
 * unit quaternion of the same rotation (about the axis, by |ψ| mod 2π), not NaN. */
static void test_huge_rotation_vectors(void **state) {
    (void)state;
    const double cases[][3] = {{1e155, 5e154, 1.0}, {0.0, 0.0, 1e300}, {-3e200, 2e200, 1e200}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double R[9], q[4], Rq[9];
        ld_so3_exp(R, cases[c]);
        ld_quat_from_rotvec(q, cases[c]);
        for (int i = 0; i < 9; ++i) assert_true(isfinite(R[i]));
        assert_true(fabs(ld_quat_norm(q) - 1.0) < 1e-15);
        assert_true(orth_error(R) < 1e-14);
        ld_quat_to_mat(Rq, q);
        assert_true(maxabs_diff(R, Rq, 9) < 1e-12);
        /* the axis is ψ's direction: R u = u */
        double x = fmax(fabs(cases[c][0]), fmax(fabs(cases[c][1]), fabs(cases[c][2]))), u[3], Ru[3];
        for (int i = 0; i < 3; ++i) u[i] = cases[c][i] / x;
        for (int i = 0; i < 3; ++i)
            Ru[i] = R[3 * i] * u[0] + R[3 * i + 1] * u[1] + R[3 * i + 2] * u[2];
        assert_true(maxabs_diff(Ru, u, 3) < 1e-14);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hat_vee),
        cmocka_unit_test(test_exp),
        cmocka_unit_test(test_log),
        cmocka_unit_test(test_s3),
        cmocka_unit_test(test_tangent_fd),
        cmocka_unit_test(test_tangent_inverse),
        cmocka_unit_test(test_switch_continuity),
        cmocka_unit_test(test_huge_rotation_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Quaternions: algebra, rotation of vectors, and the round trips quaternion <-> matrix
 * (Spurrier) <-> rotation vector <-> tangential vector, Cayley transform, geodesic angle —
 * each on NSAMPLES random inputs per angle range.
 */
#include "support.h"

#include "liedyn/liedyn.h"

/* Distance of two quaternions as rotations (sign-invariant), computed naively. */
static double qdist(const double a[4], const double b[4]) {
    double m = 0.0, p = 0.0;
    for (int i = 0; i < 4; ++i) {
        m = fmax(m, fabs(a[i] - b[i]));
        p = fmax(p, fabs(a[i] + b[i]));
    }
    return fmin(m, p);
}

static void test_algebra(void **state) {
    (void)state;
    rng r = rng_seed(21);
    worst assoc = WORST_INIT, inv = WORST_INIT, norm = WORST_INIT, rot = WORST_INIT;
    for (int i = 0; i < NSAMPLES; ++i) {
        double a[4], b[4], c[4], ab[4], bc[4], l[4], rr[4], ai[4], e[4], v[3], w1[3], w2[3];
        double R[9];
        rng_quat(&r, a);
        rng_quat(&r, b);
        rng_quat(&r, c);
        ld_quat_mul(ab, a, b);
        ld_quat_mul(l, ab, c);
        ld_quat_mul(bc, b, c);
        ld_quat_mul(rr, a, bc);
        worst_add(&assoc, maxabs_diff(l, rr, 4), 8 * EPS, i);
        double scale = rng_logrange(&r, 1e-3, 1e3), as[4];
        for (int k = 0; k < 4; ++k) as[k] = a[k] * scale;
        assert_int_equal(ld_quat_inv(ai, as), LD_OK);
        for (int k = 0; k < 4; ++k) ai[k] *= scale;
        ld_quat_mul(e, a, ai);
        double one[4] = {1, 0, 0, 0};
        worst_add(&inv, maxabs_diff(e, one, 4), 8 * EPS, scale);
        assert_int_equal(ld_quat_normalize(as, as), LD_OK);
        worst_add(&norm, fabs(ld_quat_norm(as) - 1.0), 2 * EPS, scale);
        /* rotate agrees with the matrix; rotate_inv undoes rotate */
        rng_unit3(&r, v);
        ld_quat_rotate(w1, a, v);
        ld_quat_to_mat(R, a);
        for (int k = 0; k < 3; ++k)
            w2[k] = R[3 * k] * v[0] + R[3 * k + 1] * v[1] + R[3 * k + 2] * v[2];
        worst_add(&rot, maxabs_diff(w1, w2, 3), 8 * EPS, i);
        ld_quat_rotate_inv(w2, a, w1);
        worst_add(&rot, maxabs_diff(w2, v, 3), 8 * EPS, i);
    }
    worst_check(&assoc, "(ab)c = a(bc)", "unit");
    worst_check(&inv, "q q^-1 = 1", "scaled");
    worst_check(&norm, "|normalize(q)| = 1", "scaled");
    worst_check(&rot, "rotate = R v, rotate_inv", "unit");
    /* Hamilton convention: i j = k */
    double i4[4] = {0, 1, 0, 0}, j4[4] = {0, 0, 1, 0}, k4[4];
    ld_quat_mul(k4, i4, j4);
    assert_true(k4[0] == 0 && k4[1] == 0 && k4[2] == 0 && k4[3] == 1);
    double z[4] = {0, 0, 0, 0}, o[4] = {7, 7, 7, 7};
    assert_int_equal(ld_quat_inv(o, z), LD_EDOMAIN);
    assert_int_equal(ld_quat_normalize(o, z), LD_EDOMAIN);
    assert_true(o[0] == 7.0); /* untouched on failure */
}

/* quaternion -> matrix -> quaternion, and matrix properties, per angle range. */
static void test_matrix_round_trip(void **state) {
    (void)state;
    rng r = rng_seed(22);
    for (int k = 0; k < R_COUNT; ++k) {
        worst rt = WORST_INIT, orth = WORST_INIT, det = WORST_INIT, sign = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double psi[3], q[4], R[9], q2[4];
            double a = rng_vec(&r, k, psi);
            ld_quat_from_rotvec(q, psi);
            ld_quat_to_mat(R, q);
            ld_quat_from_mat(q2, R);
            worst_add(&rt, qdist(q, q2), 4 * EPS, a);
            worst_add(&orth, orth_error(R), 8 * EPS, a);
            worst_add(&det, fabs(det3(R) - 1.0), 8 * EPS, a);
            worst_add(&sign, q2[0] < 0.0 ? 1.0 : 0.0, 0.5, a);
        }
        worst_check(&rt, "quat -> mat -> quat", range_name[k]);
        worst_check(&orth, "mat(q) orthogonal", range_name[k]);
        worst_check(&det, "det mat(q) = 1", range_name[k]);
        worst_check(&sign, "Spurrier w >= 0", range_name[k]);
    }
}

/* rotation vector <-> quaternion, |psi| <= pi (shortest) and sign handling. */
static void test_rotvec_round_trip(void **state) {
    (void)state;
    rng r = rng_seed(23);
    for (int k = 0; k < R_COUNT; ++k) {
        worst rt = WORST_INIT, unit = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double psi[3], q[4], back[3], q2[4];
            double a = rng_vec(&r, k, psi);
            ld_quat_from_rotvec(q, psi);
            worst_add(&unit, fabs(ld_quat_norm(q) - 1.0), 2 * EPS, a);
            ld_quat_to_rotvec(back, q);
            if (k == R_LARGE) { /* large angles come back as the shortest rotation */
                assert_true(norm3(back) <= PI * (1.0 + EPS));
                ld_quat_from_rotvec(q2, back);
                worst_add(&rt, qdist(q, q2), 8 * EPS, a);
                continue;
            }
            double err = maxabs_diff(back, psi, 3);
            if (PI - a < 1e-14) /* at pi, psi and -psi are the same rotation */
                err = fmin(err, maxabs_diff(back, (double[3]){-psi[0], -psi[1], -psi[2]}, 3));
            worst_add(&rt, err, 4 * EPS * a, a);
            /* -q is the same rotation: the same shortest rotation vector comes back */
            double nq[4] = {-q[0], -q[1], -q[2], -q[3]};
            ld_quat_to_rotvec(back, nq);
            double nerr = maxabs_diff(back, psi, 3);
            if (PI - a < 1e-14)
                nerr = fmin(nerr, maxabs_diff(back, (double[3]){-psi[0], -psi[1], -psi[2]}, 3));
            worst_add(&rt, nerr, 4 * EPS * a, a);
        }
        worst_check(&rt, "rotvec -> quat -> rotvec", range_name[k]);
        worst_check(&unit, "|quat(rotvec)| = 1", range_name[k]);
    }
    double zero[3] = {0, 0, 0}, q[4], back[3] = {1, 1, 1};
    ld_quat_from_rotvec(q, zero);
    assert_true(q[0] == 1.0 && q[1] == 0.0);
    ld_quat_to_rotvec(back, q);
    assert_true(back[0] == 0.0 && back[1] == 0.0 && back[2] == 0.0);
}

/* tangential vector tan(theta/2) n: round trips, closed form, and the error at pi. */
static void test_tanvec(void **state) {
    (void)state;
    rng r = rng_seed(24);
    for (int k = 0; k < R_COUNT; ++k) {
        worst rt = WORST_INIT, def = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double psi[3], q[4], t[3], q2[4];
            double a = rng_vec(&r, k, psi);
            ld_quat_from_rotvec(q, psi);
            if (ld_quat_to_tanvec(t, q) != LD_OK) {
                /* only allowed where cos(theta/2) vanishes to round-off */
                assert_true(fabs(cos(0.5 * a)) < 4 * EPS);
                continue;
            }
            ld_quat_from_tanvec(q2, t);
            worst_add(&rt, qdist(q, q2), 8 * EPS, a);
            /* |t| = |tan(a/2)| (up to sign for large angles) */
            double tn = fabs(tan(0.5 * a));
            /* the drawn angle itself is known to eps*a: d tan(a/2)/da = 1/(2cos^2(a/2)) */
            double c = cos(0.5 * a);
            worst_add(&def, fabs(norm3(t) - tn), 8 * EPS * (tn + fmax(1.0, a) / (c * c)), a);
        }
        worst_check(&rt, "tanvec -> quat -> tanvec", range_name[k]);
        worst_check(&def, "|tanvec| = tan(theta/2)", range_name[k]);
    }
    double qpi[4] = {0, 0, 0, 1}, t[3] = {9, 9, 9};
    assert_int_equal(ld_quat_to_tanvec(t, qpi), LD_ESINGULAR);
    assert_true(t[0] == 9.0);
    double qz[4] = {0, 0, 0, 0};
    assert_int_equal(ld_quat_to_tanvec(t, qz), LD_ESINGULAR);
    double huge[3] = {1e200, -3e200, 2e200}, q[4];
    ld_quat_from_tanvec(q, huge);
    assert_true(fabs(ld_quat_norm(q) - 1.0) < 2 * EPS && fabs(q[0]) < 1e-199);
}

/* Cayley: q(a) = tanvec(a/2); matrix form = (I - a^/2)^-1 (I + a^/2) and = mat(q(a)). */
static void test_cayley(void **state) {
    (void)state;
    rng r = rng_seed(25);
    worst w = WORST_INIT, m = WORST_INIT, orth = WORST_INIT;
    for (int i = 0; i < NSAMPLES; ++i) {
        double a[3], q[4], qt[4], half[3], R[9], Rq[9], A[9], B[9], P[9];
        rng_vec(&r, (enum range)(i % R_COUNT), a);
        ld_quat_cayley(q, a);
        for (int k = 0; k < 3; ++k) half[k] = 0.5 * a[k];
        ld_quat_from_tanvec(qt, half);
        worst_add(&w, qdist(q, qt), 2 * EPS, i);
        ld_so3_cayley(R, a);
        ld_quat_to_mat(Rq, q);
        worst_add(&m, maxabs_diff(R, Rq, 9), 16 * EPS, i);
        worst_add(&orth, orth_error(R), 16 * EPS, i);
        /* (I - a^/2) R = (I + a^/2) */
        ld_so3_hat(A, half);
        for (int k = 0; k < 9; ++k) {
            B[k] = (k % 4 == 0) - A[k];
            A[k] = (k % 4 == 0) + A[k];
        }
        matmul(P, B, R, 3);
        worst_add(&m, maxabs_diff(P, A, 9), 16 * EPS * (1.0 + norm3(a)), i);
    }
    worst_check(&w, "cayley = tanvec(a/2)", "all");
    worst_check(&m, "cayley matrix", "all");
    worst_check(&orth, "cayley orthogonal", "all");
}

/* Geodesic angle: equals the drawn angle; sign-invariant; accurate for tiny angles. */
static void test_angle(void **state) {
    (void)state;
    rng r = rng_seed(26);
    for (int k = 0; k < R_LARGE; ++k) {
        worst w = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double psi[3], a[4], d[4], b[4];
            double ang = rng_vec(&r, k, psi);
            ld_quat_from_rotvec(d, psi);
            if (i % 2) { /* from a random base the product is only known to eps absolute */
                rng_quat(&r, a);
                ld_quat_mul(b, a, d);
                for (int j = 0; j < 4; ++j) b[j] = -b[j];
                worst_add(&w, fabs(ld_quat_angle(a, b) - ang), 8 * EPS * fmax(ang, 1.0), ang);
            } else { /* from the identity the angle keeps its relative accuracy */
                double one[4] = {1, 0, 0, 0};
                worst_add(&w, fabs(ld_quat_angle(one, d) - ang), 4 * EPS * ang, ang);
            }
        }
        worst_check(&w, "geodesic angle", range_name[k]);
    }
}

/* Conversions documented for any nonzero q hold for tiny and huge scalings of q. */
static void test_scaled_inputs(void **state) {
    (void)state;
    rng r = rng_seed(27);
    const double scales[] = {1e-200, 1e-170, 1e-100, 1e100, 1e170, 1e200};
    worst w = WORST_INIT;
    for (int i = 0; i < 1000; ++i) {
        double q[4], R0[9], p0[3], o0[3];
        rng_quat(&r, q);
        ld_quat_to_mat(R0, q);
        ld_quat_to_rotvec(p0, q);
        ld_s3_log(o0, q);
        for (size_t k = 0; k < sizeof scales / sizeof scales[0]; ++k) {
            double qs[4], R[9], p[3], o[3];
            for (int j = 0; j < 4; ++j) qs[j] = q[j] * scales[k];
            ld_quat_to_mat(R, qs);
            ld_quat_to_rotvec(p, qs);
            ld_s3_log(o, qs);
            worst_add(&w, maxabs_diff(R, R0, 9), 8 * EPS, scales[k]);
            worst_add(&w, maxabs_diff(p, p0, 3), 8 * EPS * PI, scales[k]);
            worst_add(&w, maxabs_diff(o, o0, 3), 8 * EPS * 2 * PI, scales[k]);
        }
    }
    worst_check(&w, "to_mat / to_rotvec / s3_log of scaled q", "1e-200 .. 1e200");
    /* Cayley of a huge vector: orthogonal, near a rotation by pi */
    double a[3] = {3e200, -4e200, 1e200}, R[9], qc[4], Rq[9];
    ld_so3_cayley(R, a);
    ld_quat_cayley(qc, a);
    ld_quat_to_mat(Rq, qc);
    assert_true(orth_error(R) <= 8 * EPS && maxabs_diff(R, Rq, 9) <= 8 * EPS);
    /* NaN in, NaN out */
    double qn[4] = {NAN, 0, 0, 0}, o[3];
    ld_s3_log(o, qn);
    assert_true(isnan(o[0]));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_algebra),
        cmocka_unit_test(test_matrix_round_trip),
        cmocka_unit_test(test_rotvec_round_trip),
        cmocka_unit_test(test_tanvec),
        cmocka_unit_test(test_cayley),
        cmocka_unit_test(test_scaled_inputs),
        cmocka_unit_test(test_angle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

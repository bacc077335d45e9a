/*
 * The 6-dimensional groups SE(3), S³⋉R³, R³×SO(3), S³×R³: group axioms, the one-parameter
 * subgroup property of exp, exp/log round trips, T against finite differences of exp
 * (which checks C₁ of Tumiotto & Arnold 2024, eq. 20), T T⁻¹ = I, the C₁ blocks, and the agreement
 * of the quaternion and matrix versions of each product.
 */
#include "group_table.h"
#include "quadref.h"

#define G6_FIRST 2
#define G6_LAST  5

/* Random element: rotation from a random unit quaternion, translation in [-10, 10]^3. */
static void rng_element(rng *r, const grp *G, double *g) {
    double q[4];
    rng_quat(r, q);
    if (G->quat) {
        for (int i = 0; i < 4; ++i) g[i] = q[i];
    } else {
        ld_quat_to_mat(g, q);
    }
    for (int i = 0; i < 3; ++i) g[G->size - 3 + i] = rng_range(r, -10.0, 10.0);
}

static void test_axioms(void **state) {
    (void)state;
    rng r = rng_seed(41);
    for (int k = G6_FIRST; k <= G6_LAST; ++k) {
        const grp *G = &GROUPS[k];
        worst assoc = WORST_INIT, inv = WORST_INIT, id = WORST_INIT;
        double e[12], zero[6] = {0};
        G->exp(e, zero);
        for (int i = 0; i < NSAMPLES; ++i) {
            double a[12], b[12], c[12], ab[12], bc[12], l[12], rr[12], ai[12], p[12];
            rng_element(&r, G, a);
            rng_element(&r, G, b);
            rng_element(&r, G, c);
            G->compose(ab, a, b);
            G->compose(l, ab, c);
            G->compose(bc, b, c);
            G->compose(rr, a, bc);
            worst_add(&assoc, maxabs_diff(l, rr, G->size), 64 * EPS * 10, i);
            G->inverse(ai, a);
            G->compose(p, a, ai);
            worst_add(&inv, maxabs_diff(p, e, G->size), 16 * EPS * 10, i);
            G->compose(p, ai, a);
            worst_add(&inv, maxabs_diff(p, e, G->size), 16 * EPS * 10, i);
            G->compose(p, e, a);
            if (maxabs_diff(p, a, G->size) != 0.0) worst_add(&id, 1.0, 0.5, i); /* exact */
        }
        worst_check(&assoc, G->name, "(ab)c = a(bc)");
        worst_check(&inv, G->name, "a a^-1 = a^-1 a = e");
        worst_check(&id, G->name, "e a = a");
    }
}

/* exp(s v) exp(t v) = exp((s + t) v), and the round trips exp(log g) = g, log(exp v) = v. */
static void test_exp_log(void **state) {
    (void)state;
    rng r = rng_seed(42);
    for (int k = G6_FIRST; k <= G6_LAST; ++k) {
        const grp *G = &GROUPS[k];
        for (int rg = 0; rg < R_COUNT; ++rg) {
            worst flow = WORST_INIT, lg = WORST_INIT;
            for (int i = 0; i < NSAMPLES; ++i) {
                double v[6], vs[6], vt[6], gs[12], gt[12], g[12], p[12], back[6];
                double a = rng_tangent(&r, (enum range)rg, G, v);
                double s = rng_range(&r, -1.0, 1.0), t = rng_range(&r, -1.0, 1.0);
                for (int j = 0; j < 6; ++j) {
                    vs[j] = s * v[j];
                    vt[j] = t * v[j];
                    back[j] = (s + t) * v[j];
                }
                G->exp(gs, vs);
                G->exp(gt, vt);
                G->compose(p, gs, gt);
                G->exp(g, back);
                worst_add(&flow, maxabs_diff(p, g, G->size), 32 * EPS * fmax(10.0, a), a);
                if (rg == R_LARGE) continue;
                G->exp(g, v);
                G->log(back, g);
                if (PI - a < 1e-14) continue; /* the log's branch is undetermined at pi */
                worst_add(&lg, maxabs_diff(back, v, 3), 8 * EPS * a, a);
                worst_add(&lg, maxabs_diff(back + 3, v + 3, 3), 16 * EPS * fmax(1.0, norm3(v + 3)),
                          a);
            }
            worst_check(&flow, G->name, range_name[rg]);
            worst_check(&lg, G->name, range_name[rg]);
        }
        worst rt = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double g[12], v[6], g2[12];
            rng_element(&r, G, g);
            G->log(v, g);
            G->exp(g2, v);
            worst_add(&rt, maxabs_diff(g, g2, G->size), 64 * EPS * 10, i);
        }
        worst_check(&rt, G->name, "exp(log g) = g");
    }
}

static void test_tangent_fd(void **state) {
    (void)state;
    rng r = rng_seed(43);
    for (int k = G6_FIRST; k <= G6_LAST; ++k)
        for (int rg = 0; rg < R_COUNT; ++rg) {
            worst w = WORST_INIT;
            for (int i = 0; i < NSAMPLES / R_COUNT; ++i) {
                double v[6];
                double a = rng_tangent(&r, (enum range)rg, &GROUPS[k], v);
                worst_add(&w, fd_tangent_error(&GROUPS[k], v), FD_TOL(v, GROUPS[k].dim), a);
            }
            worst_check(&w, GROUPS[k].name, range_name[rg]);
        }
}

/* T T⁻¹ = I and the C₁ blocks of T and T⁻¹ as exported. */
static void test_tangent_inverse(void **state) {
    (void)state;
    rng r = rng_seed(44);
    for (int k = G6_FIRST; k <= G6_LAST; ++k)
        for (int rg = 0; rg < R_COUNT; ++rg) {
            worst w = WORST_INIT, c = WORST_INIT;
            for (int i = 0; i < NSAMPLES; ++i) {
                double v[6], T[36], Ti[36], P[36], C[9], Ci[9];
                double a = rng_tangent(&r, (enum range)rg, &GROUPS[k], v);
                double m = fmod(a, 2 * PI);
                if (rg == R_LARGE && (m < 0.3 || m > 2 * PI - 0.3)) continue;
                GROUPS[k].tangent(T, v);
                GROUPS[k].tangent_inv(Ti, v);
                matmul(P, T, Ti, 6);
                for (int j = 0; j < 36; ++j) P[j] -= (j % 7 == 0);
                worst_add(&w, maxabs(P, 36), 64 * EPS * (1.0 + maxabs(T, 36) * maxabs(Ti, 36)), a);
                int sdp = (k == 2 || k == 3);
                ld_sdp_c1(C, v, v + 3);
                ld_sdp_c1_inv(Ci, v, v + 3);
                for (int i2 = 0; i2 < 3; ++i2)
                    for (int j = 0; j < 3; ++j) {
                        double t = T[6 * (3 + i2) + j], ti = Ti[6 * (3 + i2) + j];
                        worst_add(&c, fabs(t - (sdp ? C[3 * i2 + j] : 0.0)), 0.5 * EPS, a);
                        worst_add(&c, fabs(ti - (sdp ? Ci[3 * i2 + j] : 0.0)), 0.5 * EPS, a);
                        /* upper-right block is zero */
                        worst_add(&c, fabs(T[6 * i2 + 3 + j]) + fabs(Ti[6 * i2 + 3 + j]), 0.5 * EPS,
                                  a);
                    }
            }
            worst_check(&w, GROUPS[k].name, range_name[rg]);
            worst_check(&c, GROUPS[k].name, "C1 blocks");
        }
}

/* The quaternion and matrix versions of each product group agree. */
static void test_quat_vs_matrix(void **state) {
    (void)state;
    rng r = rng_seed(45);
    static const int pairs[2][2] = {{2, 3}, {4, 5}};
    for (int p = 0; p < 2; ++p) {
        const grp *M = &GROUPS[pairs[p][0]], *Q = &GROUPS[pairs[p][1]];
        worst w = WORST_INIT;
        for (int i = 0; i < NSAMPLES; ++i) {
            double v[6], gm[12], gq[7], Rq[9];
            double a = rng_tangent(&r, (enum range)(i % R_COUNT), M, v);
            M->exp(gm, v);
            Q->exp(gq, v);
            ld_quat_to_mat(Rq, gq);
            worst_add(&w, maxabs_diff(gm, Rq, 9), 16 * EPS * fmax(1.0, a), a);
            worst_add(&w, maxabs_diff(gm + 9, gq + 4, 3), 16 * EPS * fmax(1.0, a) * 10, a);
        }
        worst_check(&w, M->name, Q->name);
    }
}

/* T(v) = sum_k (-ad_v)^k/(k+1)! in quad precision, ad_v = [[hat O, 0], [hat U, hat O]]:
 * an independent reference for the semidirect tangent operator and its block C1. */
static void tangent_series_ref(quad T[36], const double v[6]) {
    quad A[36] = {0}, P[36] = {0}, Q[36];
    const double *o = v, *u = v + 3;
    for (int b = 0; b < 2; ++b) { /* -hat(O) on both diagonal blocks, -hat(U) lower left */
        int r = 3 * b, c = 3 * b;
        A[6 * r + c + 1] = o[2], A[6 * r + c + 2] = -o[1], A[6 * (r + 1) + c] = -o[2];
        A[6 * (r + 1) + c + 2] = o[0], A[6 * (r + 2) + c] = o[1], A[6 * (r + 2) + c + 1] = -o[0];
    }
    A[6 * 3 + 1] = u[2], A[6 * 3 + 2] = -u[1], A[6 * 4 + 0] = -u[2];
    A[6 * 4 + 2] = u[0], A[6 * 5 + 0] = u[1], A[6 * 5 + 1] = -u[0];
    for (int i = 0; i < 36; ++i) T[i] = P[i] = (i % 7 == 0);
    for (int k = 1; k <= 90; ++k) {
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) {
                quad s = 0;
                for (int m = 0; m < 6; ++m) s += P[6 * i + m] * A[6 * m + j];
                Q[6 * i + j] = s / (k + 1);
            }
        for (int i = 0; i < 36; ++i) T[i] += P[i] = Q[i];
    }
}

/* T of SE(3) and S3 x| R3 (hence C1) against the quad series, for |U| from 1e-12 to 10. */
static void test_tangent_series(void **state) {
    (void)state;
    rng r = rng_seed(46);
    for (int rg = 0; rg < R_LARGE; ++rg) {
        worst d = WORST_INIT, c = WORST_INIT;
        for (int i = 0; i < 300; ++i) {
            double v[6], T[36];
            quad ref[36];
            double a = rng_vec(&r, (enum range)rg, v), un = rng_logrange(&r, 1e-12, 10.0);
            rng_unit3(&r, v + 3);
            for (int k = 3; k < 6; ++k) v[k] *= un;
            tangent_series_ref(ref, v);
            for (int g = 2; g <= 3; ++g) {
                GROUPS[g].tangent(T, v);
                for (int k = 0; k < 36; ++k) {
                    double e = (double)fabsq((quad)T[k] - ref[k]);
                    if (k / 6 >= 3 && k % 6 < 3) /* C1 is linear in U: relative to |U| */
                        worst_add(&c, e, 8 * EPS * un, a);
                    else
                        worst_add(&d, e, 4 * EPS, a);
                }
            }
        }
        worst_check(&d, "T diagonal blocks vs quad series", range_name[rg]);
        worst_check(&c, "C1 vs quad series", range_name[rg]);
    }
}

/* S3 x| R3: log is the inverse of exp for pi < |O| < 2 pi too (S3 branch). */
static void test_s3sdr3_long_log(void **state) {
    (void)state;
    rng r = rng_seed(47);
    worst w = WORST_INIT;
    for (int i = 0; i < NSAMPLES; ++i) {
        double v[6], g[7], back[6];
        double a = rng_range(&r, PI, 2 * PI - 0.1);
        rng_unit3(&r, v);
        rng_unit3(&r, v + 3);
        for (int k = 0; k < 3; ++k) v[k] *= a, v[3 + k] *= 10.0;
        ld_s3sdr3_exp(g, v);
        ld_s3sdr3_log(back, g);
        worst_add(&w, maxabs_diff(back, v, 3), 8 * EPS * a, a);
        worst_add(&w, maxabs_diff(back + 3, v + 3, 3), 64 * EPS * 10.0 / (2 * PI - a), a);
    }
    worst_check(&w, "S3 x| R3 log(exp v) = v", "pi < |O| < 2pi - 0.1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axioms),          cmocka_unit_test(test_exp_log),
        cmocka_unit_test(test_tangent_fd),      cmocka_unit_test(test_tangent_inverse),
        cmocka_unit_test(test_quat_vs_matrix),  cmocka_unit_test(test_tangent_series),
        cmocka_unit_test(test_s3sdr3_long_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

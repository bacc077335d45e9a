/*
 * The 6-dimensional groups SE(3), S³⋉R³, R³×SO(3), S³×R³: group axioms, the one-parameter
 * subgroup property of exp, exp/log round trips, T against finite differences of exp
 * (which checks C₁ of seed 003 eq. 20), T T⁻¹ = I, the C₁ blocks, and the agreement of the
 * quaternion and matrix versions of each product.
 */
#include "group_table.h"

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
            for (int i = 0; i < NSAMPLES / 10; ++i) {
                double v[6];
                double a = rng_tangent(&r, (enum range)rg, &GROUPS[k], v);
                worst_add(&w, fd_tangent_error(&GROUPS[k], v), FD_TOL * 10, a);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axioms),         cmocka_unit_test(test_exp_log),
        cmocka_unit_test(test_tangent_fd),     cmocka_unit_test(test_tangent_inverse),
        cmocka_unit_test(test_quat_vs_matrix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

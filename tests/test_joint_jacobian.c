/*
 * The joint space of a compiled tree (liedyn/coords.h: ld_model_joint_jacobian,
 * ld_model_joint_mass_matrix): the mass matrix of a planar double pendulum against the one
 * derived by hand, at two elbow angles and in every formulation; on a floating chain with a
 * spherical and a universal joint, every column of J a velocity the joints allow (B J = 0)
 * with the rates it stands for (the spherical joint's w, the universal joint's rates about its
 * two axes, the free root's velocities), and ½ ċᵀ M ċ the kinetic energy at random rates; the
 * refusals (a closed loop, NULL arguments).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/coords.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* The double pendulum of tests/data/import (links bent 1 rad and 0.5 rad about y at zero
 * angles), with the elbow at angle th2 and the shoulder at 0.3 rad: frame form, assembled. */
static void pendulum(double th2, ld_model *m) {
    char text[2048];
    snprintf(text, sizeof text,
             "name: p\ngravity: [0, 0, -9.81]\n"
             "bodies:\n"
             "  - {name: upper, mass: 1, inertia: [0.0845, 0.0845, 0.002]}\n"
             "  - {name: lower, mass: 0.5, inertia: [0.03, 0.03, 0.001]}\n"
             "joints:\n"
             "  - {name: shoulder, type: revolute, body1: ground, body2: upper, angle: 0.3,\n"
             "     frame1: {at: [0, 0, 2], axis: [0, 1, 0], ref: [0.54030230586813977, 0, "
             "-0.8414709848078965]},\n"
             "     frame2: {at: [0, 0, 0.5], axis: [0, 1, 0], ref: [1, 0, 0]}}\n"
             "  - {name: elbow, type: revolute, body1: upper, body2: lower, angle: %.17g,\n"
             "     frame1: {at: [0, 0, -0.5], axis: [0, 1, 0], ref: [0.87758256189037276, 0, "
             "-0.47942553860420301]},\n"
             "     frame2: {at: [0, 0, 0.4], axis: [0, 1, 0], ref: [1, 0, 0]}}\n",
             th2);
    ld_model_error err;
    int st = ld_model_parse(text, strlen(text), "pendulum.yaml", m, &err);
    if (st != LD_OK) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, LD_OK);
}

/* M = [[M11, M12], [M12, M22]] by hand: M22 = m2 a2² + I2, c = m2 l1 a2 cos(β + θ2) with the
 * bend β = 0.5, M12 = M22 + c, M11 = m1 a1² + I1 + m2 l1² + M22 + 2c (a the centres of mass'
 * distances from the joints, l1 = 1 the shoulder–elbow distance, I the moments about y). */
static void test_pendulum_by_hand(void **state) {
    (void)state;
    const double m1 = 1, a1 = 0.5, I1 = 0.0845, l1 = 1, m2 = 0.5, a2 = 0.4, I2 = 0.03;
    const double angles[2] = {0.0, 0.7};
    const ld_formulation forms[] = {LD_FORM_SO3XR3, LD_FORM_SE3, LD_FORM_S3XR3,
                                    LD_FORM_SO3XR3_SPATIAL, LD_FORM_EULER};
    for (int a = 0; a < 2; ++a) {
        double c = m2 * l1 * a2 * cos(0.5 + angles[a]), M22 = m2 * a2 * a2 + I2;
        double hand[4] = {m1 * a1 * a1 + I1 + m2 * l1 * l1 + M22 + 2 * c, M22 + c, M22 + c, M22};
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
            ld_model m;
            pendulum(angles[a], &m);
            ld_system s;
            double *q0 = NULL, *v0 = NULL, M[4];
            assert_int_equal(ld_model_compile(&m, forms[f], &s, &q0, &v0), LD_OK);
            assert_int_equal(ld_model_joint_dofs(&s), 2);
            assert_int_equal(ld_model_joint_mass_matrix(&s, 0.0, q0, M), LD_OK);
            double err = 0.0;
            for (int i = 0; i < 4; ++i) err = fmax(err, fabs(M[i] - hand[i]));
            if (f == 0)
                printf("elbow %.1f rad: M = [%.15g %.15g; %.15g %.15g], hand [%.15g %.15g; "
                       "%.15g], max error %.2e\n",
                       angles[a], M[0], M[1], M[2], M[3], hand[0], hand[1], hand[3], err);
            assert_true(err <= 1e-12);
            free(q0), free(v0);
            ld_model_system_free(&s);
            ld_model_free(&m);
        }
    }
}

/* A floating chain: root a free, b on a spherical joint to a, c on a universal joint to b
 * (axis x fixed in b, axis2 y fixed in c). */
static const char chain_text[] =
    "name: chain\ngravity: [0, 0, -9.81]\n"
    "bodies:\n"
    "  - {name: a, mass: 2, inertia: [0.1, 0.2, 0.3], position: [0, 0, 0]}\n"
    "  - {name: b, mass: 1, inertia: [0.05, 0.06, 0.07], position: [0, 0.1, -1],\n"
    "     orientation: [0.9, 0.1, -0.2, 0.3]}\n"
    "  - {name: c, mass: 0.5, inertia: [0.02, 0.03, 0.04], position: [0.3, 0, -1.8]}\n"
    "joints:\n"
    "  - {type: spherical, body1: a, body2: b, at: [0, 0.05, -0.5]}\n"
    "  - {type: universal, body1: b, body2: c, at: [0.1, 0, -1.5], axis: [1, 0, 0],\n"
    "     axis2: [0, 1, 0]}\n";

/* B J = 0, each column's rates (spherical w; universal about x and y, the axes at the start;
 * the root's ẋ and Ω) the unit vector of its column, and ½ ċᵀ M ċ the kinetic energy. */
static void test_floating_chain(void **state) {
    (void)state;
    ld_model m;
    ld_model_error err;
    assert_int_equal(ld_model_parse(chain_text, strlen(chain_text), "chain.yaml", &m, &err), LD_OK);
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    int n = ld_model_joint_dofs(&s), k = s.k;
    assert_int_equal(n, 3 + 2 + 6);
    double *J = calloc((size_t)(k * n), sizeof *J), *B = calloc((size_t)(s.m * k), sizeof *B);
    double *Mj = calloc((size_t)(n * n), sizeof *Mj), *v = calloc((size_t)k, sizeof *v);
    double *z = calloc((size_t)k, sizeof *z);
    assert_int_equal(ld_model_joint_jacobian(&s, 0.0, q0, J), LD_OK);
    assert_int_equal(ld_model_joint_mass_matrix(&s, 0.0, q0, Mj), LD_OK);
    assert_int_equal(s.ops.phi_q(&s, 0.0, q0, B), LD_OK);
    double bj = 0.0, rate = 0.0;
    for (int col = 0; col < n; ++col) {
        const double *Jc = J + col * k;
        for (int i = 0; i < s.m; ++i) {
            double acc = 0.0;
            for (int l = 0; l < k; ++l) acc += B[i * k + l] * Jc[l];
            bj = fmax(bj, fabs(acc));
        }
        double c[3], cd[3], r[11], x[3], qq[4];
        int nc;
        assert_int_equal(ld_model_joint_coords(&s, 0, 0.0, q0, Jc, c, cd, &nc), LD_OK);
        memcpy(r, cd, sizeof cd); /* spherical: w */
        assert_int_equal(ld_model_joint_coords(&s, 1, 0.0, q0, Jc, c, cd, &nc), LD_OK);
        r[3] = cd[0], r[4] = cd[1]; /* at the start the universal's axes are x and y */
        assert_true(fabs(cd[2]) <= 1e-12);
        assert_int_equal(ld_model_body_state(&s, 0, q0, Jc, x, qq, r + 8, r + 5), LD_OK);
        for (int i = 0; i < n; ++i) rate = fmax(rate, fabs(r[i] - (i == col)));
    }
    rng g = rng_seed(7);
    double terr = 0.0;
    for (int trial = 0; trial < 5; ++trial) {
        double cdot[11], T = 0.0;
        for (int i = 0; i < n; ++i) cdot[i] = rng_range(&g, -1.0, 1.0);
        for (int l = 0; l < k; ++l) {
            v[l] = 0.0;
            for (int i = 0; i < n; ++i) v[l] += J[i * k + l] * cdot[i];
        }
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) T += 0.5 * cdot[i] * Mj[i * n + j] * cdot[j];
        double E = ld_sys_energy(&s, 0.0, q0, v) - ld_sys_energy(&s, 0.0, q0, z);
        terr = fmax(terr, fabs(T - E) / E);
    }
    printf("floating chain: |B J| %.2e, rates against unit %.2e, kinetic energy %.2e relative\n",
           bj, rate, terr);
    assert_true(bj <= 1e-12 && rate <= 1e-12 && terr <= 1e-12);
    free(J), free(B), free(Mj), free(v), free(z), free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* A closed loop (the four-bar) and NULL arguments are refused. */
static void test_refusals(void **state) {
    (void)state;
    ld_model m;
    ld_model_error err;
    assert_int_equal(ld_model_load(LD_SOURCE_DIR "/models/four-bar.yaml", &m, &err), LD_OK);
    ld_system s;
    double *q0 = NULL, *v0 = NULL, M[16];
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    assert_int_equal(ld_model_joint_dofs(&s), -1);
    assert_int_equal(ld_model_joint_mass_matrix(&s, 0.0, q0, M), LD_ENOTSUPPORTED);
    assert_int_equal(ld_model_joint_jacobian(&s, 0.0, q0, M), LD_ENOTSUPPORTED);
    assert_int_equal(ld_model_joint_jacobian(NULL, 0.0, q0, M), LD_EINVAL);
    assert_int_equal(ld_model_joint_dofs(NULL), -1);
    free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pendulum_by_hand),
        cmocka_unit_test(test_floating_chain),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The sparse eigen-path with joints (ld_modes_sparse: the saddle-point matrix
 * [K − σM, Bᵀ; B, 0] factored by KLU, subspace iteration in the null space of B) against the
 * dense path (null-space basis, linearize.h) and exact solutions:
 *   - a pendulum on a revolute joint (the joint's reaction is its whole stiffness) and a double
 *     pendulum, hanging: ω² against the minimal coordinates' closed form, in every Lie-group
 *     formulation (euler has no node blocks: refused);
 *   - a fixed–fixed chain of 6 masses on prismatic joints: ω_j² = (4k/m) sin²(jπ / 14);
 *   - shipped jointed models (the four-bar with a spring added, its 3 redundant rows dropped;
 *     the four-bar as shipped; the double pendulum; the slider-crank; the 40-loop n-four-bar)
 *     at their static equilibria: ω² and the shapes (1 − |φ_dᵀ M φ_s|, both M-normalized)
 *     against the dense path;
 *   - a free beam hanging from a revolute joint (beam nodes and joint rows together) against
 *     the dense path;
 *   - a chain of 2000 masses on prismatic joints (12 000 velocities, 10 000 constraint rows: no
 *     dense array of that size is formed) against the closed form;
 *   - a model compiled with keep_redundant (dependent rows): refused with a message.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

#define G 9.81
#include "lin_case.h"

static const ld_formulation LIE[] = {LD_FORM_SO3XR3,         LD_FORM_SE3,
                                     LD_FORM_S3XR3,          LD_FORM_S3SDR3,
                                     LD_FORM_SO3XR3_SPATIAL, LD_FORM_S3XR3_SPATIAL};
#define NLIE (int)(sizeof LIE / sizeof LIE[0])

/* The largest differences of the sparse path's count lowest modes from the dense path's: ω²
 * (relative) and shapes (1 − |φ_dᵀ M φ_s|). The sparse modes into sp (caller frees). */
static void against_dense(lin_case *c, int count, double sigma, ld_modes *sp, double *ew,
                          double *ev) {
    ld_modes dn;
    char msg[512];
    assert_int_equal(ld_modes_undamped(&c->lin, count, &dn, msg, sizeof msg), LD_OK);
    if (ld_modes_sparse(&c->s, 0.0, c->q, count, sigma, sp, msg, sizeof msg)) fail_msg("%s", msg);
    assert_int_equal(sp->count, count);
    size_t k = (size_t)c->s.k;
    *ew = *ev = 0.0;
    for (int j = 0; j < count; ++j) {
        *ew = fmax(*ew, fabs(sp->omega2[j] - dn.omega2[j]) / fabs(dn.omega2[j]));
        double d = 0.0;
        for (size_t i = 0; i < k; ++i)
            for (size_t l = 0; l < k; ++l)
                d += dn.phi[(size_t)j * k + i] * c->lin.M[i * k + l] * sp->phi[(size_t)j * k + l];
        *ev = fmax(*ev, fabs(1.0 - fabs(d)));
    }
    ld_modes_free(&dn);
}

/* ---------------------------------------------------------------- exact solutions */

static void pendulum_yaml(char *y, size_t cap, double m, double l, double I) {
    snprintf(
        y, cap,
        "name: pendulum\ngravity: [0, %.17g, 0]\nbodies:\n"
        "  - {name: bob, mass: %.17g, inertia: [0.1, 0.2, %.17g], position: [%.17g, 0, 0]}\n"
        "joints:\n  - {name: pivot, type: revolute, body2: bob, at: [0, 0, 0], axis: [0, 0, 1]}\n",
        -G, m, I, l);
}

static const double DP_L1 = 1.0, DP_L2 = 0.7, DP_M1 = 1.3, DP_M2 = 0.6, DP_I1 = 0.11, DP_I2 = 0.03;

static void dp_yaml(char *y, size_t cap) {
    snprintf(
        y, cap,
        "name: dp\ngravity: [0, %.17g, 0]\nbodies:\n"
        "  - {name: a, mass: %.17g, inertia: [0.001, %.17g, %.17g], position: [%.17g, 0, 0]}\n"
        "  - {name: b, mass: %.17g, inertia: [0.001, %.17g, %.17g], position: [%.17g, 0, 0]}\n"
        "joints:\n"
        "  - {name: s, type: revolute, body2: a, at: [0, 0, 0], axis: [0, 0, 1]}\n"
        "  - {name: e, type: revolute, body1: a, body2: b, at: [%.17g, 0, 0], axis: [0, 0, 1]}\n",
        -G, DP_M1, DP_I1, DP_I1, 0.5 * DP_L1, DP_M2, DP_I2, DP_I2, DP_L1 + 0.5 * DP_L2, DP_L1);
}

/* The two ω² of the double pendulum's minimal coordinates (absolute angles). */
static void dp_exact(double w2[2]) {
    double c1 = 0.5 * DP_L1, c2 = 0.5 * DP_L2;
    double M0 = DP_I1 + DP_M1 * c1 * c1 + DP_M2 * DP_L1 * DP_L1, M1 = DP_M2 * DP_L1 * c2,
           M3 = DP_I2 + DP_M2 * c2 * c2;
    double K0 = G * (DP_M1 * c1 + DP_M2 * DP_L1), K3 = G * DP_M2 * c2;
    double a = M0 * M3 - M1 * M1, b = -(K0 * M3 + K3 * M0), cc = K0 * K3;
    double disc = sqrt(b * b - 4.0 * a * cc);
    w2[0] = (-b - disc) / (2 * a), w2[1] = (-b + disc) / (2 * a);
}

/* n masses on prismatic joints along x, springs k between neighbours and to both walls (l0 = 1,
 * spacing 1: the chain starts at its equilibrium). */
static char *chain_yaml(int n, double mass, double k) {
    size_t cap = 512 + (size_t)n * 400, at = 0;
    char *y = malloc(cap);
    at += (size_t)snprintf(y + at, cap - at, "name: chain\ngravity: [0, -9.81, 0]\nbodies:\n");
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
    for (int i = 0; i <= n; ++i) { /* the right wall as body1: ground */
        char b1[16], b2[16];
        snprintf(b1, sizeof b1, i == 0 || i == n ? "ground" : "m%d", i);
        snprintf(b2, sizeof b2, "m%d", i == n ? n : i + 1);
        int x1 = i == n ? n + 1 : i, x2 = i == n ? n : i + 1;
        at += (size_t)snprintf(y + at, cap - at,
                               "  - {type: spring-damper, body1: %s, body2: %s, at1: [%d, 0, 0], "
                               "at2: [%d, 0, 0], k: %.17g, l0: 1}\n",
                               b1, b2, x1, x2, k);
    }
    return y;
}

static double chain_exact(int n, int j, double mass, double k) {
    double sn = sin(j * PI / (2.0 * (n + 1)));
    return 4.0 * k / mass * sn * sn;
}

static void test_exact(void **state) {
    (void)state;
    char y[8192];
    const double m = 2.5, l = 0.8, I = 0.3, pw = m * G * l / (I + m * l * l);
    double dw[2], cm = 1.7, ck = 40.0;
    dp_exact(dw);
    double wmax = 0.0, wshape = 0.0;
    for (int f = 0; f < NLIE; ++f) {
        for (int which = 0; which < 3; ++which) {
            char *text = y;
            if (which == 0) pendulum_yaml(y, sizeof y, m, l, I);
            if (which == 1) dp_yaml(y, sizeof y);
            if (which == 2) text = chain_yaml(6, cm, ck);
            lin_case c;
            lin_open(&c, text, LIE[f]);
            if (which == 2) free(text);
            int count = which == 0 ? 1 : which == 1 ? 2 : 6;
            ld_modes sp;
            double ew, ev;
            against_dense(&c, count, 0.0, &sp, &ew, &ev);
            for (int j = 0; j < count; ++j) {
                double want = which == 0 ? pw : which == 1 ? dw[j] : chain_exact(6, j + 1, cm, ck);
                double rel = fabs(sp.omega2[j] / want - 1.0);
                wmax = fmax(wmax, rel);
                assert_true(rel < 1e-10);
            }
            wshape = fmax(wshape, ev);
            assert_true(ew < 1e-10 && ev < 1e-10);
            ld_modes_free(&sp);
            lin_close(&c);
        }
    }
    printf("sparse path, pendulum, double pendulum, chain of 6 (6 formulations): w^2 within %.1e "
           "of exact, shapes within %.1e of the dense path\n",
           wmax, wshape);
    /* euler: no node blocks */
    pendulum_yaml(y, sizeof y, m, l, I);
    lin_case c;
    lin_open(&c, y, LD_FORM_EULER);
    ld_modes md;
    char msg[256];
    assert_int_equal(ld_modes_sparse(&c.s, 0.0, c.q, 1, 0.0, &md, msg, sizeof msg),
                     LD_ENOTSUPPORTED);
    assert_non_null(strstr(msg, "no sparse tangent blocks"));
    assert_int_equal(ld_modes_sparse(&c.s, 0.0, c.q, 2, 0.0, &md, msg, sizeof msg), LD_EINVAL);
    lin_close(&c);
}

/* ---------------------------------------------------------------- shipped models */

static char *read_model(const char *name, const char *extra) {
    char path[1024];
    snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t ne = extra ? strlen(extra) : 0;
    char *t = malloc((size_t)len + ne + 2);
    if (fread(t, 1, (size_t)len, f) != (size_t)len) fail_msg("cannot read %s", path);
    fclose(f);
    t[len] = '\n';
    memcpy(t + len + 1, extra ? extra : "", ne + 1);
    return t;
}

static void test_shipped(void **state) {
    (void)state;
    static const struct {
        const char *model, *extra;
        int count;
    } cases[] = {
        {"four-bar",
         "elements:\n  - {name: k, type: spring-damper, body1: ground, body2: coupler, "
         "at1: [0.5, -0.5, 0], at2: [0.512433723024854, 0.499779076749512, 0], k: 20, l0: 1}\n",
         1},
        {"four-bar", NULL, 1},
        {"double-pendulum-damped", NULL, 2},
        {"slider-crank", NULL, 1},
        {"n-four-bar", NULL, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char *text = read_model(cases[i].model, cases[i].extra);
        lin_case c;
        lin_open(&c, text, LD_FORM_SO3XR3);
        free(text);
        ld_modes sp;
        double ew, ev;
        against_dense(&c, cases[i].count, 0.0, &sp, &ew, &ev);
        printf("sparse against dense, %s%s (k = %d, m = %d, %d dof): w^2 %.10g, within %.1e, "
               "shapes within %.1e\n",
               cases[i].model, cases[i].extra ? " with a spring" : "", c.s.k, c.s.m, c.lin.n,
               sp.omega2[0], ew, ev);
        assert_true(ew < 1e-9 && ev < 1e-9);
        ld_modes_free(&sp);
        lin_close(&c);
    }
}

/* ---------------------------------------------------------------- a beam on a hinge */

/* A free beam (4 elements of order 4) hanging from a revolute joint at its upper node: beam
 * node blocks and joint rows in one saddle matrix; its six lowest modes (the swing in and out
 * of the plane, bending, torsion) against the dense path. */
static void test_beam_on_hinge(void **state) {
    (void)state;
    static const char y[] =
        "name: hinged-beam\ngravity: [0, -9.81, 0]\nbeams:\n  - name: beam\n    order: 4\n"
        "    elements: 4\n    from: [0, 0, 0]\n    to: [0, -1, 0]\n    normal: [1, 0, 0]\n"
        "    section: {EA: 1.0e+4, GA2: 1.0e+4, GA3: 1.0e+4, GJ: 1.7, EI2: 2.3, EI3: 1}\n"
        "    rho_a: 1\n    rho_j: [0.01, 1.0e-3, 1.0e-3]\n"
        "joints:\n  - {name: hinge, type: revolute, body2: 'beam[0]', at: [0, 0, 0], "
        "axis: [0, 0, 1]}\n";
    lin_case c; /* as lin_open, with the statics' default tolerance (the beam's round-off) */
    memset(&c, 0, sizeof c);
    ld_model_error err;
    if (ld_model_parse(y, strlen(y), "test.yaml", &c.m, &err)) fail_msg("%s", err.msg);
    char msg[512];
    if (ld_model_compile_msg(&c.m, LD_FORM_SO3XR3, &c.s, &c.q, &c.v, msg, sizeof msg))
        fail_msg("%s", msg);
    c.lam = calloc((size_t)c.s.m + 1, sizeof *c.lam);
    ld_static_options o;
    ld_static_options_init(&o);
    ld_static_stats st;
    if (ld_static_solve(&c.s, 0.0, c.q, c.lam, &o, &st, msg, sizeof msg)) fail_msg("%s", msg);
    if (ld_linearize(&c.s, 0.0, c.q, NULL, &c.lin, msg, sizeof msg)) fail_msg("%s", msg);
    ld_modes sp;
    double ew, ev;
    against_dense(&c, 6, 0.0, &sp, &ew, &ev);
    printf("sparse against dense, a beam on a hinge (k = %d, m = %d): w^2 %.10g ... %.10g, within "
           "%.1e, shapes within %.1e\n",
           c.s.k, c.s.m, sp.omega2[0], sp.omega2[5], ew, ev);
    assert_true(ew < 1e-9 && ev < 1e-9);
    ld_modes_free(&sp);
    lin_close(&c);
}

/* ---------------------------------------------------------------- a large chain */

static void test_large_chain(void **state) {
    (void)state;
    enum { N = 2000, COUNT = 6 };
    const double mass = 1.7, k = 40.0;
    char *y = chain_yaml(N, mass, k);
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(y, strlen(y), "chain.yaml", &m, &err)) fail_msg("%s", err.msg);
    free(y);
    ld_system s;
    double *q, *v;
    char msg[512];
    if (ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q, &v, msg, sizeof msg)) fail_msg("%s", msg);
    assert_int_equal(s.k, 6 * N);
    assert_int_equal(s.m, 5 * N);
    ld_modes md;
    if (ld_modes_sparse(&s, 0.0, q, COUNT, 0.0, &md, msg, sizeof msg)) fail_msg("%s", msg);
    double wmax = 0.0;
    for (int j = 1; j <= COUNT; ++j)
        wmax = fmax(wmax, fabs(md.omega2[j - 1] / chain_exact(N, j, mass, k) - 1.0));
    /* the shape of mode 1: the masses' x motions ∝ sin(iπ / (N + 1)) */
    double sh = 0.0,
           scale = md.phi[3] / sin(PI / (N + 1)); /* m1's x velocity (so3xr3: ω, then x) */
    for (int i = 1; i <= N; ++i) {
        const double *b = md.phi + (size_t)(i - 1) * 6;
        sh = fmax(sh, fabs(b[3] - scale * sin(i * PI / (N + 1))) / fabs(scale));
        sh = fmax(sh,
                  (fabs(b[0]) + fabs(b[1]) + fabs(b[2]) + fabs(b[4]) + fabs(b[5])) / fabs(scale));
    }
    printf("chain of %d masses, sparse path (k = %d, m = %d): w1^2 %.15g, exact %.15g; the lowest "
           "%d w^2 within %.1e, mode 1's shape within %.1e\n",
           N, s.k, s.m, md.omega2[0], chain_exact(N, 1, mass, k), COUNT, wmax, sh);
    assert_true(wmax < 1e-8);
    assert_true(sh < 1e-8);
    ld_modes_free(&md);
    free(q);
    free(v);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* ---------------------------------------------------------------- dependent rows */

static void test_dependent(void **state) {
    (void)state;
    /* the four-bar with its dependent rows kept (20 rows on 18 velocities), and with a free
     * body besides (24 velocities): no unique multipliers, refused */
    for (int extra = 0; extra < 2; ++extra) {
        char *text = read_model("four-bar", NULL);
        if (extra) { /* a free body first in the bodies' list */
            static const char body[] =
                "bodies:\n  - {name: free, mass: 1, inertia: [1, 1, 1], position: [0, -2, 0]}\n";
            char *at = strstr(text, "bodies:\n"), *t2 = malloc(strlen(text) + sizeof body);
            assert_non_null(at);
            size_t head = (size_t)(at - text);
            memcpy(t2, text, head);
            strcpy(t2 + head, body);
            strcat(t2, at + strlen("bodies:\n"));
            free(text);
            text = t2;
        }
        ld_model m;
        ld_model_error err;
        if (ld_model_parse(text, strlen(text), "four-bar.yaml", &m, &err)) fail_msg("%s", err.msg);
        free(text);
        m.keep_redundant = 1;
        ld_system s;
        double *q, *v;
        char msg[512];
        if (ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q, &v, msg, sizeof msg))
            fail_msg("%s", msg);
        assert_int_equal(s.m, 20);
        ld_modes md;
        int rc = ld_modes_sparse(&s, 0.0, q, 1, 0.0, &md, msg, sizeof msg);
        printf("keep_redundant four-bar%s: %s (%s)\n", extra ? " and a free body" : "",
               ld_strerror(rc), msg);
        assert_int_equal(rc, extra ? LD_ESINGULAR : LD_EINVAL);
        assert_non_null(strstr(msg, "dependent constraint rows"));
        free(q);
        free(v);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),         cmocka_unit_test(test_shipped),
        cmocka_unit_test(test_beam_on_hinge), cmocka_unit_test(test_large_chain),
        cmocka_unit_test(test_dependent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

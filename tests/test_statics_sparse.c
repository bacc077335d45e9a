/*
 * Static equilibrium on the sparse path (statics.h): the saddle-point matrix assembled from
 * the node blocks and factored by KLU gives the dense path's equilibrium on shipped beams and
 * mechanisms (loads stepped in, and the pseudo-transient continuation of a mechanism), and
 * solves a cantilever of 10⁴ nodes (60 000 unknowns, beyond the dense path's limit) in memory
 * in proportion to the model, its tip deflection against Timoshenko's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

/* The equilibrium of the compiled s from its start by solver la: q and λ (allocated), stats. */
static int solve(const ld_system *s, const double *q0, ld_la_kind la, double t, double **q,
                 double **lam, ld_static_stats *st, char *msg, size_t cap) {
    *q = malloc((size_t)s->nq * sizeof **q);
    *lam = calloc((size_t)s->m + 1, sizeof **lam);
    assert_non_null(*q);
    assert_non_null(*lam);
    memcpy(*q, q0, (size_t)s->nq * sizeof **q);
    ld_static_options o;
    ld_static_options_init(&o);
    o.la = la;
    return ld_static_solve(s, t, *q, *lam, &o, st, msg, cap);
}

/* The largest difference of the bodies' positions (m) and rotations (the quaternions' vector
 * parts, sign-aligned) of two states. */
static double state_diff(const ld_model *m, const ld_system *s, const double *qa,
                         const double *qb) {
    double d = 0.0, *zero = calloc((size_t)s->k, sizeof *zero);
    assert_non_null(zero);
    for (int b = 0; b < m->nbodies; ++b) {
        double xa[3], xb[3], pa[4], pb[4], om[3], xd[3];
        assert_int_equal(ld_model_body_state(s, b, qa, zero, xa, pa, om, xd), LD_OK);
        assert_int_equal(ld_model_body_state(s, b, qb, zero, xb, pb, om, xd), LD_OK);
        double sg = pa[0] * pb[0] + pa[1] * pb[1] + pa[2] * pb[2] + pa[3] * pb[3] < 0 ? -1 : 1;
        for (int i = 0; i < 3; ++i) d = fmax(d, fabs(xa[i] - xb[i]));
        for (int i = 0; i < 4; ++i) d = fmax(d, fabs(pa[i] - sg * pb[i]));
    }
    free(zero);
    return d;
}

/* Every shipped model of the list, dense against sparse: the same equilibrium, the same
 * multipliers, the same path (relaxed or stepped). */
static void test_sparse_equals_dense(void **state) {
    (void)state;
    static const char *const names[] = {"composite-cantilever",
                                        "iea15-blade",
                                        "beam-pinned",
                                        "right-angle-cantilever",
                                        "simple-pendulum",
                                        "double-pendulum-damped",
                                        "four-bar",
                                        "bricard"};
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
        char path[512], msg[256];
        snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, names[i]);
        ld_model m;
        ld_model_error e;
        memset(&e, 0, sizeof e);
        if (ld_model_load(path, &m, &e) != LD_OK) fail_msg("%s", e.msg);
        ld_system s;
        double *q0, *v0, *qd, *ld, *qs, *ls;
        assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
        double t = m.run.t_end;
        ld_static_stats sd, ss;
        if (solve(&s, q0, LD_LA_DENSE, t, &qd, &ld, &sd, msg, sizeof msg))
            fail_msg("%s dense: %s", names[i], msg);
        if (solve(&s, q0, LD_LA_KLU, t, &qs, &ls, &ss, msg, sizeof msg))
            fail_msg("%s sparse: %s", names[i], msg);
        double dq = state_diff(&m, &s, qd, qs), dl = 0.0, lmax = 0.0;
        for (int r = 0; r < s.m; ++r)
            dl = fmax(dl, fabs(ld[r] - ls[r])), lmax = fmax(lmax, fabs(ld[r]));
        print_message("%-23s k %4d m %3d: %s, %ld / %ld iterations; states %.1e apart, "
                      "multipliers %.1e of %.3g\n",
                      names[i], s.k, s.m, sd.relaxed ? "relaxed" : "stepped", sd.iterations,
                      ss.iterations, dq, dl, lmax);
        assert_false(sd.sparse);
        assert_true(ss.sparse);
        assert_int_equal(sd.relaxed, ss.relaxed);
        assert_true(dq < 1e-9);
        assert_true(dl <= 1e-8 * (1.0 + lmax));
        free(qd), free(ld), free(qs), free(ls), free(q0), free(v0);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
}

/* A clamped cantilever of 2500 elements of order 4 (10⁴ free nodes, 60 000 unknowns): the
 * automatic choice takes the sparse path; a small tip load P bends it by P L³ / (3 EI) + P L /
 * (G A) (Timoshenko; geometric terms of relative size (δ/L)² left). The dense path refuses
 * it. */
static void test_ten_thousand_nodes(void **state) {
    (void)state;
    const double L = 10.0, EI = 100.0, GA = 1e5, P = 1e-3;
    char text[1024], msg[256];
    snprintf(text, sizeof text,
             "name: long\nbeams:\n  - name: beam\n    order: 4\n    elements: 2500\n"
             "    from: [0, 0, 0]\n    to: [%g, 0, 0]\n    normal: [0, 1, 0]\n"
             "    section: {EA: 1.0e+5, GA2: %g, GA3: %g, GJ: 100, EI2: %g, EI3: %g}\n"
             "    rho_a: 1\n    rho_j: [0.02, 0.01, 0.01]\n    clamp: start\n"
             "loads:\n  - {body: 'beam[10000]', type: force, frame: spatial, value: [0, 0, %g]}\n",
             L, GA, GA, EI, EI, P);
    ld_model m;
    ld_model_error e;
    if (ld_model_parse(text, strlen(text), "long.yaml", &m, &e)) fail_msg("%s", e.msg);
    ld_system s;
    double *q0, *v0, *q, *lam;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    assert_int_equal(s.k, 60000);
    ld_static_stats st;
    int rc = solve(&s, q0, LD_LA_DENSE, 0.0, &q, &lam, &st, msg, sizeof msg);
    assert_int_equal(rc, LD_ENOMEM);
    free(q), free(lam);
    if (solve(&s, q0, LD_LA_AUTO, 0.0, &q, &lam, &st, msg, sizeof msg)) fail_msg("%s", msg);
    assert_true(st.sparse);
    double x[3], qq[4], om[3], xd[3];
    int tip = m.nbodies - 1;
    assert_int_equal(ld_model_body_state(&s, tip, q, v0, x, qq, om, xd), LD_OK);
    double want = P * L * L * L / (3.0 * EI) + P * L / GA;
    print_message("10^4 nodes: tip deflection %.12g, Timoshenko %.12g (rel. %.1e), %ld "
                  "iterations\n",
                  x[2], want, fabs(x[2] / want - 1.0), st.iterations);
    assert_true(fabs(x[2] / want - 1.0) < 1e-6);
    free(q), free(lam), free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_equals_dense),
        cmocka_unit_test(test_ten_thousand_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

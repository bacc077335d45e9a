/* Generalized-α and Newmark on the group: order 2 in every formulation, quadratic Newton
 * convergence, restore on failure, energy behaviour. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "mbs_models.h"

#include "alloc_count.h"

typedef struct run_result {
    double x[3], q[4];
    long steps, facs;
} run_result;

static int g_reuse; /* start(): keep the iteration matrix (o.newton_reuse) */
static ld_la_kind g_la = LD_LA_DENSE;

/* Compile m in formulation f and start method/ρ∞ at t = 0 (default tolerances). */
static ld_integ *start(const ld_model *m, ld_formulation f, ld_integ_method meth, double rho,
                       ld_system *s, double **q0, double **v0) {
    assert_int_equal(ld_model_compile(m, f, s, q0, v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    o.rho_inf = rho;
    o.newton_reuse = g_reuse;
    o.la = g_la;
    int st;
    ld_integ *it = ld_integ_create(s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, *q0, *v0), LD_OK);
    return it;
}

/* Integrate m in formulation f with method/ρ∞ at step h to t_end; the body-0 state at the end. */
static void run(const ld_model *m, ld_formulation f, ld_integ_method meth, double rho, double h,
                double t_end, run_result *out) {
    ld_system s;
    double *q0, *v0;
    ld_integ *it = start(m, f, meth, rho, &s, &q0, &v0);
    long n = lround(t_end / h);
    for (long i = 0; i < n; ++i) {
        int rc = ld_integ_step(it, h);
        if (rc) fail_msg("step %ld: %s", i, ld_integ_message(it));
    }
    double om[3], xd[3];
    assert_int_equal(
        ld_model_body_state(&s, 0, ld_integ_q(it), ld_integ_v(it), out->x, out->q, om, xd), LD_OK);
    out->steps = n;
    ld_integ_stats st;
    ld_integ_get_stats(it, &st);
    out->facs = st.factorizations;
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

static void errors(const run_result *a, const run_result *ref, double *erot, double *epos) {
    *erot = ld_quat_angle(a->q, ref->q);
    double d = 0.0;
    for (int i = 0; i < 3; ++i) d += (a->x[i] - ref->x[i]) * (a->x[i] - ref->x[i]);
    *epos = sqrt(d);
}

/* Heavy top (fast), t ∈ [0, 0.3], h = 2e-3 … 5e-4 against h/32: order 2 in rotation and
 * position for both methods in the four group formulations (the euler formulation, which
 * goes unstable at h = 2e-3, has its own study in test_hht.c). */
static void test_order_two(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    const double T = 0.3, h0 = 2e-3;
    for (int meth = 0; meth <= LD_INTEG_NEWMARK; ++meth)
        for (int f = 0; f < LD_FORM_EULER; ++f) {
            run_result ref, r[3];
            run(&m, (ld_formulation)f, (ld_integ_method)meth, 0.9, h0 / 64, T, &ref);
            double er[3], ep[3];
            for (int i = 0; i < 3; ++i) {
                run(&m, (ld_formulation)f, (ld_integ_method)meth, 0.9, h0 / (1 << i), T, &r[i]);
                errors(&r[i], &ref, &er[i], &ep[i]);
            }
            for (int i = 0; i < 2; ++i) {
                double pr = log2(er[i] / er[i + 1]), pp = log2(ep[i] / ep[i + 1]);
                if (!(fabs(pr - 2.0) < 0.25 && fabs(pp - 2.0) < 0.25))
                    fail_msg("%s/%s: orders rot %.3f pos %.3f (errors %.3e %.3e)",
                             ld_integ_method_name((ld_integ_method)meth),
                             ld_formulation_name((ld_formulation)f), pr, pp, er[i], ep[i]);
            }
        }
}

/* Every formulation converges to the same motion: against one reference (so3xr3, h = 1.25e-5)
 * each formulation's error at t = 0.2 falls by 4 when h halves from 1e-4. */
static void test_formulations_same_motion(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    run_result ref, r[2];
    run(&m, LD_FORM_SO3XR3, LD_INTEG_GENALPHA, 0.9, 1.25e-5, 0.2, &ref);
    for (int f = 1; f < LD_FORM_COUNT; ++f) {
        double er[2], ep[2];
        for (int i = 0; i < 2; ++i) {
            run(&m, (ld_formulation)f, LD_INTEG_GENALPHA, 0.9, 1e-4 / (1 << i), 0.2, &r[i]);
            errors(&r[i], &ref, &er[i], &ep[i]);
        }
        double pr = log2(er[0] / er[1]), pp = log2(ep[0] / ep[1]);
        if (!(fabs(pr - 2.0) < 0.3 && fabs(pp - 2.0) < 0.3))
            fail_msg("%s vs so3xr3: errors %.3e %.3e rad, %.3e %.3e m",
                     ld_formulation_name((ld_formulation)f), er[0], er[1], ep[0], ep[1]);
    }
}

static int zero_g_v(const ld_system *s, double t, const double *q, const double *v, double *C) {
    (void)t, (void)q, (void)v;
    memset(C, 0, (size_t)s->k * (size_t)s->k * sizeof(double));
    return LD_OK;
}

/* Newton's rate from the logged residuals r_i (RMS of the preconditioned residual) of one
 * step: with the exact tangent r_{i+1} ≈ C r_i², so log r_{i+1} / log r_i ≈ 2 once r_i is small
 * (< 1e-2) and while r_{i+1} is above round-off (> 1e-15). Returns the smallest such rate over
 * five steps (99 if no pair qualifies). */
static double newton_rate(ld_system *s, const double *q0, const double *v0) {
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.newton_atol = 1e-12;
    o.newton_rtol = 1e-10;
    o.max_iter = 30;
    o.newton_reuse = LD_REUSE_OFF; /* full Newton: the rate tests the tangent */
    int st;
    ld_integ *it = ld_integ_create(s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    double rate = 99.0;
    for (int k = 0; k < 5; ++k) {
        assert_int_equal(ld_integ_step(it, 2e-3), LD_OK);
        int n;
        const double *r = ld_integ_residual_history(it, &n);
        for (int i = 0; i + 1 < n; ++i)
            if (r[i] < 1e-2 && r[i + 1] > 1e-15) rate = fmin(rate, log(r[i + 1]) / log(r[i]));
    }
    ld_integ_free(it);
    return rate;
}

static void test_newton_quadratic(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
        double r_exact = newton_rate(&s, q0, v0);
        s.ops.stiffness = NULL;   /* differences on the group */
        s.ops.eval_newton = NULL; /* (the fused pass would bypass the substitutes) */
        double r_fd = newton_rate(&s, q0, v0);
        s.ops.stiffness = NULL;
        s.ops.g_v = zero_g_v; /* a wrong tangent: linear convergence */
        double r_bad = newton_rate(&s, q0, v0);
        if (!(r_exact > 1.8 && r_exact < 90.0 && r_fd > 1.8 && r_fd < 90.0 && r_bad < 1.5))
            fail_msg("%s: Newton rates exact %.2f, differences %.2f, without dg/dv %.2f",
                     ld_formulation_name((ld_formulation)f), r_exact, r_fd, r_bad);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
}

/* A rejected step leaves the state bit for bit as it was. */
static void test_restore_on_failure(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_S3SDR3, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.max_iter = 3;
    o.max_halvings = 5;
    int st;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    assert_int_equal(ld_integ_step(it, 1e-3), LD_OK);
    double q[7], v[6], vd[6], lam[3], t = ld_integ_t(it);
    memcpy(q, ld_integ_q(it), sizeof q);
    memcpy(v, ld_integ_v(it), sizeof v);
    memcpy(vd, ld_integ_vdot(it), sizeof vd);
    memcpy(lam, ld_integ_lambda(it), sizeof lam);
    /* a huge step cannot converge in 3 iterations */
    assert_int_equal(ld_integ_step(it, 0.5), LD_RETRY_NEWTON);
    assert_true(strstr(ld_integ_message(it), "did not converge") != NULL);
    assert_memory_equal(q, ld_integ_q(it), sizeof q);
    assert_memory_equal(v, ld_integ_v(it), sizeof v);
    assert_memory_equal(vd, ld_integ_vdot(it), sizeof vd);
    assert_memory_equal(lam, ld_integ_lambda(it), sizeof lam);
    assert_true(ld_integ_t(it) == t);
    ld_integ_stats sts;
    ld_integ_get_stats(it, &sts);
    assert_int_equal(sts.rejected, 1);
    assert_int_equal(sts.newton_failures, 1);
    assert_int_equal(sts.error_test_failures, 0);
    assert_int_equal(sts.steps, 1);
    /* advance halves: 0.5 → 0.016 after 5 halvings still fails; the state stays valid */
    assert_int_equal(ld_integ_advance(it, 0.5), LD_RETRY_NEWTON);
    assert_true(ld_integ_t(it) == t);
    assert_memory_equal(q, ld_integ_q(it), sizeof q);
    /* a moderate step converges after halving (0.016 needs more than 3 iterations) */
    ld_integ_free(it);
    it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    assert_int_equal(ld_integ_advance(it, 0.016), LD_OK);
    ld_integ_get_stats(it, &sts);
    assert_true(sts.rejected >= 1 && sts.steps >= 2);
    assert_true(fabs(ld_integ_t(it) - 0.016) < 1e-15);
    /* bad arguments */
    assert_int_equal(ld_integ_step(it, 0.0), LD_EINVAL);
    assert_int_equal(ld_integ_step(it, NAN), LD_EINVAL);
    o.rho_inf = 1.5;
    assert_null(ld_integ_create(&s, &o, &st));
    assert_int_equal(st, LD_EINVAL);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* Energy of the torque-free body: Newmark (no numerical damping) keeps it bounded without
 * drift; generalized-α with ρ∞ = 0 dissipates it at a coarse step. */
static double energy_after(const ld_model *m, ld_integ_method meth, double rho, double h, long n,
                           double *max_dev) {
    ld_system s;
    double *q0, *v0;
    ld_integ *it = start(m, LD_FORM_SO3XR3, meth, rho, &s, &q0, &v0);
    double e0, e = 0.0;
    assert_int_equal(s.ops.energy(&s, 0.0, q0, v0, &e0), LD_OK);
    *max_dev = 0.0;
    for (long i = 0; i < n; ++i) {
        assert_int_equal(ld_integ_step(it, h), LD_OK);
        assert_int_equal(s.ops.energy(&s, 0.0, ld_integ_q(it), ld_integ_v(it), &e), LD_OK);
        *max_dev = fmax(*max_dev, fabs(e - e0) / e0);
    }
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return (e - e0) / e0;
}

static void test_energy(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 1.0);
    m.njoints = 0; /* the free top of models/: J = diag(1, 2, 3), near the middle axis */
    m.gravity[2] = 0.0;
    const double J[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3}, om[3] = {0.2, 5, 0.3};
    memcpy(tm_bodies[0].inertia, J, sizeof J);
    memcpy(tm_bodies[0].omega, om, sizeof om);
    double dev_nm, dev_nm_long, dev_ga;
    energy_after(&m, LD_INTEG_NEWMARK, 1.0, 1e-2, 1000, &dev_nm);
    energy_after(&m, LD_INTEG_NEWMARK, 1.0, 1e-2, 10000, &dev_nm_long);
    double drop = energy_after(&m, LD_INTEG_GENALPHA, 0.0, 0.1, 1000, &dev_ga);
    double dev_nm_coarse;
    energy_after(&m, LD_INTEG_NEWMARK, 1.0, 0.1, 1000, &dev_nm_coarse);
    print_message("energy: newmark max dev %.3e (10 s) %.3e (100 s), %.3e (h = 0.1); genalpha(0) "
                  "change %.3e (h = 0.1)\n",
                  dev_nm, dev_nm_long, dev_nm_coarse, drop);
    assert_true(dev_nm < 1e-3);
    assert_true(dev_nm_long < 2.0 * dev_nm + 1e-12); /* bounded: no secular drift */
    assert_true(drop < -10.0 * dev_nm_coarse);       /* numerical dissipation dominates */
}

/* A model that asks for a smaller step when told to (the failure path of a step). */
static ld_system_ops real_ops;
static int refuse;
static int refusing_force(const ld_system *s, double t, const double *q, const double *v,
                          double *g) {
    return refuse ? LD_RETRY : real_ops.force(s, t, q, v, g);
}
static int refusing_eval(const ld_system *s, const ld_newton_eval *e) {
    return refuse ? LD_RETRY : real_ops.eval_newton(s, e);
}

/* No allocation inside a step, for both methods, both linear solvers, with analytic and with
 * finite-difference tangents; the counter itself is checked to see create's allocations. */
static void test_no_allocation_in_step(void **state) {
    (void)state;
    ld_model m;
    tm_loaded(&m);
    for (int f = 0; f < LD_FORM_COUNT; ++f)
        for (int la = 0; la < 2; ++la)
            for (int fd = 0; fd < 2; ++fd) {
                ld_system s;
                double *q0, *v0;
                assert_int_equal(ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
                if (fd) s.ops.stiffness = NULL, s.ops.g_v = NULL, s.ops.phi_dd = NULL;
                if (fd) s.ops.eval_newton = NULL; /* it would bypass the differences */
                real_ops = s.ops;
                s.ops.force = refusing_force;
                if (s.ops.eval_newton) s.ops.eval_newton = refusing_eval;
                refuse = 0;
                ld_integ_options o;
                ld_integ_options_init(&o);
                o.la = (ld_la_kind)la;
                o.method = (ld_integ_method)((f + la) % 2);
                int st;
                long before = n_alloc;
                ld_integ *it = ld_integ_create(&s, &o, &st);
                assert_non_null(it);
                assert_true(n_alloc > before); /* the counter sees the library's allocations */
                assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
                assert_int_equal(ld_integ_step(it, 1e-3), LD_OK); /* KLU: symbolic analysis */
                before = n_alloc;
                for (int i = 0; i < 20; ++i)
                    if (ld_integ_step(it, 1e-3) != LD_OK)
                        fail_msg("%s la=%d fd=%d: %s", ld_formulation_name((ld_formulation)f), la,
                                 fd, ld_integ_message(it));
                refuse = 1; /* a rejected step too */
                assert_int_equal(ld_integ_step(it, 1e-3), LD_RETRY);
                assert_true(strstr(ld_integ_message(it), "smaller step") != NULL);
                if (n_alloc != before)
                    fail_msg("%s la=%d fd=%d: %ld allocations in 21 steps",
                             ld_formulation_name((ld_formulation)f), la, fd, n_alloc - before);
                ld_integ_free(it);
                free(q0);
                free(v0);
                ld_model_system_free(&s);
            }
}

/* The Newmark family (newmark-beta): at β = 1/4, γ = 1/2 (its defaults) it is newmark bit for
 * bit; γ = 0.6 with β = ¼(γ + ½)² damps (first order: the error falls by about 2 when h
 * halves); its parameters live in the generic slots of the options, set by key through the
 * descriptors. */
static double family_run(int meth, double gamma, double h, double *q_out, int nq) {
    double beta = 0.25 * (gamma + 0.5) * (gamma + 0.5); /* stable for every h */
    ld_model m;
    tm_heavy_top(&m, 0.1);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)meth;
    int pm = -1;
    const ld_method_param *g = ld_method_param_find("gamma", &pm);
    assert_non_null(g);
    memcpy((char *)&o + g->offset, &gamma, sizeof gamma);
    const ld_method_param *b = ld_method_param_find("--beta", NULL);
    assert_non_null(b);
    memcpy((char *)&o + b->offset, &beta, sizeof beta);
    ld_integ *it = ld_integ_create(&s, &o, NULL);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    int n = (int)lround(0.2 / h);
    for (int i = 1; i <= n; ++i) assert_int_equal(ld_integ_advance_to(it, i * h), LD_OK);
    memcpy(q_out, ld_integ_q(it), (size_t)nq * sizeof(double));
    double t = ld_integ_t(it);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return t;
}

static void test_newmark_family(void **state) {
    (void)state;
    int nb = ld_integ_method_find("newmark-beta");
    assert_true(nb >= 0);
    double a[12], b[12], c[12], d[12];
    family_run(LD_INTEG_NEWMARK, 0.5, 1e-3, a, 12);
    family_run(nb, 0.5, 1e-3, b, 12);
    assert_memory_equal(a, b, sizeof a);
    family_run(nb, 0.6, 1e-3, c, 12);
    family_run(nb, 0.6, 5e-4, d, 12);
    double e1 = 0.0, e2 = 0.0;
    family_run(nb, 0.6, 2.5e-4, b, 12);
    for (int i = 0; i < 12; ++i) {
        e1 += (c[i] - d[i]) * (c[i] - d[i]);
        e2 += (d[i] - b[i]) * (d[i] - b[i]);
    }
    double p = 0.5 * log2(e1 / e2);
    print_message("  newmark-beta, gamma 0.6: observed order %.2f\n", p);
    assert_true(p > 0.8 && p < 1.2);
}

/* A kept iteration matrix (o.newton_reuse) on the slow heavy top, generalized-α and Newmark in
 * the four group formulations, dense and KLU: fewer factorizations than steps (full Newton
 * makes about 3 a step), the same motion as full Newton to 1e-7, and order 2 kept. */
static void test_kept_matrix(void **state) {
    (void)state;
    ld_model m;
    tm_heavy_top(&m, 0.01);
    const double T = 1.0, h0 = 8e-3;
    for (int la = 0; la < 2; ++la)
        for (int meth = 0; meth <= LD_INTEG_NEWMARK; ++meth)
            for (int f = 0; f < LD_FORM_EULER; ++f) {
                run_result ref, full, r[3];
                g_la = (ld_la_kind)la;
                g_reuse = 0;
                run(&m, (ld_formulation)f, (ld_integ_method)meth, 0.9, h0 / 32, T, &ref);
                run(&m, (ld_formulation)f, (ld_integ_method)meth, 0.9, h0, T, &full);
                g_reuse = 1;
                double er[3], ep[3], dr, dp;
                for (int i = 0; i < 3; ++i) {
                    run(&m, (ld_formulation)f, (ld_integ_method)meth, 0.9, h0 / (1 << i), T, &r[i]);
                    errors(&r[i], &ref, &er[i], &ep[i]);
                }
                errors(&r[0], &full, &dr, &dp);
                const char *nm = ld_formulation_name((ld_formulation)f);
                if (!(r[0].facs < r[0].steps && 2 * r[0].facs < full.facs))
                    fail_msg("%s la=%d: %ld factorizations in %ld steps", nm, la, r[0].facs,
                             r[0].steps);
                if (!(dr < 1e-7 && dp < 1e-7))
                    fail_msg("%s la=%d: kept matrix moves the result by %.3g rad, %.3g", nm, la, dr,
                             dp);
                for (int i = 0; i < 2; ++i) {
                    double pr = log2(er[i] / er[i + 1]), pp = log2(ep[i] / ep[i + 1]);
                    if (!(fabs(pr - 2.0) < 0.25 && fabs(pp - 2.0) < 0.25))
                        fail_msg("%s la=%d kept matrix: orders %.3f %.3f", nm, la, pr, pp);
                }
            }
    g_reuse = 0;
    g_la = LD_LA_DENSE;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_two),        cmocka_unit_test(test_formulations_same_motion),
        cmocka_unit_test(test_newton_quadratic), cmocka_unit_test(test_restore_on_failure),
        cmocka_unit_test(test_energy),           cmocka_unit_test(test_no_allocation_in_step),
        cmocka_unit_test(test_newmark_family),   cmocka_unit_test(test_kept_matrix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

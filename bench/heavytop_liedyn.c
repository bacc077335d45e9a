/*
 * The heavy-top benchmark's liedyn methods: ld_erk with Dormand-Prince 5(4) on the reduced
 * quaternion ODE, the ld_integ methods (implicit, half-explicit, splitting) on the model in its
 * formulations, and section 1 (ns per step of every method, formulation and linear solver).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heavytop.h"

#define BENCH_NAME "bench_heavytop"
#include "bench_common.h"

/* Section 1's size; the smoke run of make test (BENCH_QUICK=1) shrinks it in main. */
int SPEED_STEPS = 2000, SPEED_REPS = 3;

static int erk_rhs(double t, const double *x, double *v, void *user) {
    (void)t;
    ((ode_ctx *)user)->fevals++;
    top_rhs(x, v);
    return 0;
}

/* Dormand-Prince 5(4) of rk.h on the 7-dimensional vector space, rtol = atol = tol. */
int erk_solve(double tol, double y[NY], result *r) {
    const ld_rk_table *tab = ld_rk_table_find("dopri5");
    if (!tab) die("ld_rk_table_find", "dopri5 not found");
    ode_ctx c = {0};
    ld_erk_space sp;
    memset(&sp, 0, sizeof sp);
    sp.nx = sp.nv = NY;
    sp.rhs = erk_rhs;
    sp.user = &c;
    ld_erk *e;
    check_ld("ld_erk_create", ld_erk_create(&e, &sp, tab));
    ld_erk_options o;
    ld_erk_options_default(&o);
    o.error_rtol = o.error_atol = tol;
    ld_erk_stats st;
    memcpy(y, Y0, sizeof Y0);
    int rc = ld_erk_integrate(e, &o, 0.0, T_END, y, NULL, NULL, &st);
    ld_erk_free(e);
    r->steps = st.steps;
    r->evals = c.fevals;
    return rc;
}

void integrate_implicit(const solver *s, double h, int la, result *r, int measure) {
    ld_system sys;
    double *q0, *v0;
    check_ld("ld_model_compile", ld_model_compile(&MODEL, s->form, &sys, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)s->method;
    o.rho_inf = RHO_INF;
    o.la = (ld_la_kind)la;
    int st;
    ld_integ *it = ld_integ_create(&sys, &o, &st);
    if (!it) die("ld_integ_create", ld_strerror(st));
    check_ld("ld_integ_init", ld_integ_init(it, 0.0, q0, v0));
    long n = lround(ceil(T_END / h - 1e-9));
    double hh = T_END / (double)n;
    r->failed = 0;
    for (long i = 0; i < n && !r->failed; ++i) {
        int rc = ld_integ_step(it, hh);
        if (rc != LD_OK) {
            r->failed = 1;
            snprintf(r->msg, sizeof r->msg, "%s", ld_integ_message(it));
        }
    }
    ld_integ_stats stats;
    ld_integ_get_stats(it, &stats);
    r->steps = stats.steps;
    r->evals = stats.newton_iterations;
    r->h = hh;
    if (measure) {
        double x[3], q[4], om[3], xd[3];
        check_ld("ld_model_body_state",
                 ld_model_body_state(&sys, 0, ld_integ_q(it), ld_integ_v(it), x, q, om, xd));
        set_error(r, q, x);
        if (r->failed) r->err = NAN;
    }
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&sys);
}

void integrate_erk(double tol, result *r, int measure) {
    double y[NY], x[3];
    int rc = erk_solve(tol, y, r);
    if (rc != LD_OK) die("liedyn-dopri5-quat", ld_strerror(rc));
    if (measure) {
        com_of(x, y);
        set_error(r, y, x);
    }
}

/* Method m refuses the heavy top in formulation f (ld_integ_options_check). */
int refuses(int m, ld_formulation f) {
    ld_system sys;
    double *q0, *v0;
    check_ld("ld_model_compile", ld_model_compile(&MODEL, f, &sys, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)m;
    int r = ld_integ_options_check(&sys, &o) != NULL;
    free(q0);
    free(v0);
    ld_model_system_free(&sys);
    return r;
}

/* ------------------------------------------------------------------ section 1: speed */

/* One configuration of the speed table: its own compiled system and integrator. */
typedef struct speed_cfg {
    ld_integ_method meth;
    ld_formulation form;
    ld_la_kind la;
    ld_system sys;
    double *q0, *v0;
    ld_integ *it;
    double best;
    int failed;
    ld_integ_stats stats;
} speed_cfg;

/* Returns 0 when the method refuses the model in this formulation (nothing set up). */
static int speed_setup(speed_cfg *c) {
    check_ld("ld_model_compile", ld_model_compile(&MODEL, c->form, &c->sys, &c->q0, &c->v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = c->meth;
    o.rho_inf = RHO_INF;
    o.la = c->la;
    if (ld_integ_options_check(&c->sys, &o)) {
        free(c->q0);
        free(c->v0);
        ld_model_system_free(&c->sys);
        return 0;
    }
    int st;
    c->it = ld_integ_create(&c->sys, &o, &st);
    if (!c->it) die("ld_integ_create", ld_strerror(st));
    c->best = INFINITY;
    c->failed = 0;
    return 1;
}

/* One timed run of SPEED_STEPS steps from the initial state. */
static void speed_run(speed_cfg *c) {
    if (c->failed) return;
    check_ld("ld_integ_init", ld_integ_init(c->it, 0.0, c->q0, c->v0));
    double t0 = wall_now();
    for (int i = 0; i < SPEED_STEPS && !c->failed; ++i)
        c->failed = ld_integ_step(c->it, SPEED_H) != LD_OK;
    c->best = fmin(c->best, wall_now() - t0);
    ld_integ_get_stats(c->it, &c->stats);
}

static void speed_report(speed_cfg *c) {
    const char *mn = ld_integ_method_name(c->meth), *fn = ld_formulation_name(c->form),
               *ln = ld_la_kind_name(c->la);
    double nit = (double)c->stats.newton_iterations / (double)c->stats.steps;
    if (c->failed) {
        printf("# %s %s %s: %s\n", mn, fn, ln, ld_integ_message(c->it));
        printf("speed,%s,%s,%s,,,%.3f,failed\n", mn, fn, ln, nit);
    } else {
        result r;
        double x[3], q[4], om[3], xd[3];
        check_ld("ld_model_body_state", ld_model_body_state(&c->sys, 0, ld_integ_q(c->it),
                                                            ld_integ_v(c->it), x, q, om, xd));
        set_error(&r, q, x);
        double ns = 1e9 * c->best / SPEED_STEPS;
        printf("speed,%s,%s,%s,%.0f,%.0f,%.3f,%.3e\n", mn, fn, ln, ns, 1e9 / ns, nit, r.err);
    }
    ld_integ_free(c->it);
    free(c->q0);
    free(c->v0);
    ld_model_system_free(&c->sys);
}

/* Every configuration, the repetitions interleaved (round r times each configuration once) so
 * that a slow phase of a shared machine hits all of them alike. */
void speed_section(void) {
    enum { NCFG = 32 * LD_FORM_COUNT * 2 };
    static speed_cfg cfg[NCFG];
    int n = 0;
    for (int m = 0; m < ld_method_count() && m < 32; ++m)
        for (int f = 0; f < LD_FORM_COUNT; ++f)
            for (int la = 0; la < 2; ++la) {
                memset(&cfg[n], 0, sizeof cfg[n]);
                cfg[n].meth = (ld_integ_method)m;
                cfg[n].form = (ld_formulation)f;
                cfg[n].la = (ld_la_kind)la;
                if (speed_setup(&cfg[n])) ++n; /* refused: tb3 with the pivot's constraint */
            }
    for (int rep = 0; rep < SPEED_REPS; ++rep)
        for (int i = 0; i < n; ++i) speed_run(&cfg[i]);
    for (int i = 0; i < n; ++i) speed_report(&cfg[i]);
    fflush(stdout);
}

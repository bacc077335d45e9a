/*
 * Beams whose section varies along the span, and loads per unit length (model.h, beam.c,
 * docs/beam.md), against exact solutions of the linear theory under small loads:
 *   a tapered cantilever (stiffnesses piecewise linear in the arc length, three stations)
 *   under a tip force P and a tip torque T:
 *     deflection δ = ∫ P (L − s)² / EI₃(s) ds + ∫ P / GA₂(s) ds,   twist θ = ∫ T / GJ(s) ds,
 *   and the lumped masses summing to ∫ ρA ds;
 *   a uniform cantilever under a uniform load q per length (dead and follower):
 *     δ = q L⁴ / (8 EI) + q L² / (2 GA),   and a torque m per length: θ = m L² / (2 GJ);
 * plus the YAML `sections:`, `quadrature: N` and `beam:` loads.
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

enum { NST = 3 };
static const double L = 4.0;
static const double st_eta[NST] = {0.0, 0.5, 1.0};
static const double st_EI[NST] = {200.0, 120.0, 50.0}, st_GA[NST] = {2e4, 1.6e4, 1e4};
static const double st_GJ[NST] = {100.0, 70.0, 40.0}, st_rho[NST] = {3.0, 2.0, 1.5};

/* A property piecewise linear through the stations, at arc length s. */
static double prop(const double *v, double s) {
    double eta = s / L;
    int k = eta > st_eta[1] ? 1 : 0;
    double t = (eta - st_eta[k]) / (st_eta[k + 1] - st_eta[k]);
    return (1.0 - t) * v[k] + t * v[k + 1];
}

/* ∫ f over [0, L] by Simpson's rule on each linear piece (n intervals each): f smooth there. */
static double integrate(double (*f)(double), int n) {
    double sum = 0.0;
    for (int k = 0; k + 1 < NST; ++k) {
        double a = st_eta[k] * L, b = st_eta[k + 1] * L, h = (b - a) / n, acc = f(a) + f(b);
        for (int i = 1; i < n; ++i) acc += (i % 2 ? 4.0 : 2.0) * f(a + i * h);
        sum += acc * h / 3.0;
    }
    return sum;
}
static double bend(double s) {
    return (L - s) * (L - s) / prop(st_EI, s);
}
static double shear(double s) {
    return 1.0 / prop(st_GA, s);
}
static double twist(double s) {
    return 1.0 / prop(st_GJ, s);
}
static double rho(double s) {
    return prop(st_rho, s);
}

/* The tapered cantilever along x: nel elements of order p per leg, stations at η = 0, ½, 1. */
static void tapered(ld_model *m, int nel, int p) {
    ld_model_init(m);
    strcpy(m->name, "tapered");
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "beam");
    b.order = p, b.nelem = nel, b.npoints = 2;
    b.points[3] = L;
    b.normal[1] = 1.0;
    b.nstations = NST;
    b.stations = calloc(NST, sizeof *b.stations);
    assert_non_null(b.stations);
    for (int k = 0; k < NST; ++k) {
        ld_beam_station *st = &b.stations[k];
        st->eta = st_eta[k];
        const double d[6] = {1e5, st_GA[k], st_GA[k], st_GJ[k], st_EI[k], st_EI[k]};
        for (int i = 0; i < 6; ++i) st->C[7 * i] = d[i];
        st->rho_a = st_rho[k];
        st->rho_j[0] = 0.02, st->rho_j[4] = st->rho_j[8] = 0.01;
    }
    b.clamp[0] = 1;
    assert_int_equal(ld_beam_place(m, &b), LD_OK);
    assert_int_equal(ld_model_add_beam(m, &b), LD_OK);
    ld_model_error err;
    if (ld_model_validate(m, &err)) fail_msg("%s", err.msg);
}

/* Solve the statics of m at time t in formulation f; the tip's position and rotation vector. */
static void tip_statics(const ld_model *m, ld_formulation f, double t, double x[3], double th[3]) {
    ld_system s;
    double *q0, *v0, qq[4], om[3], xd[3];
    char msg[512];
    assert_int_equal(ld_model_compile(m, f, &s, &q0, &v0), LD_OK);
    ld_static_options o;
    ld_static_options_init(&o);
    o.steps = 1;
    if (ld_static_solve(&s, t, q0, NULL, &o, NULL, msg, sizeof msg)) fail_msg("%s", msg);
    ld_model_body_state(&s, m->nbodies - 1, q0, v0, x, qq, om, xd);
    double a = 2.0 * atan2(sqrt(qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]), qq[0]);
    double n = sqrt(qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]);
    for (int k = 0; k < 3; ++k) th[k] = n > 0.0 ? a * qq[1 + k] / n : 0.0;
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

static void test_tapered(void **state) {
    (void)state;
    const double P = 1e-4, T = 1e-4;
    double exact_d = P * (integrate(bend, 2000) + integrate(shear, 2000));
    double exact_t = T * integrate(twist, 2000), exact_m = integrate(rho, 2000);
    double err_prev = 1.0;
    for (int nel = 1; nel <= 4; nel *= 2) { /* per half: stations at element boundaries */
        ld_model m;
        tapered(&m, 2 * nel, 4);
        const ld_beam *b = &m.beams[0];
        double mass = b->wlen[0] * st_rho[0]; /* the clamped node's share */
        for (int i = 0; i < m.nbodies; ++i) mass += m.bodies[i].mass;
        /* GLL quadrature of a piecewise-linear density: exact */
        assert_true(fabs(mass / exact_m - 1.0) < 1e-14);
        ld_load l[2];
        memset(l, 0, sizeof l);
        l[0].kind = LD_LOAD_FORCE, l[0].body = m.nbodies - 1, l[0].vec[1] = P;
        l[1].kind = LD_LOAD_TORQUE, l[1].body = m.nbodies - 1, l[1].vec[0] = T;
        m.loads = l, m.nloads = 2;
        double x[3], th[3];
        tip_statics(&m, LD_FORM_SO3XR3, 0.0, x, th);
        double ed = fabs(x[1] / exact_d - 1.0), et = fabs(th[0] / exact_t - 1.0);
        printf("tapered, %d elements of order 4: tip deflection %.10e (exact %.10e, %.2e), "
               "twist %.10e (exact %.10e, %.2e), mass %.12f (exact %.12f)\n",
               2 * nel, x[1], exact_d, ed, th[0], exact_t, et, mass, exact_m);
        assert_true(ed < 1e-4 && et < 1e-6 && ed < err_prev);
        err_prev = ed;
        m.loads = NULL, m.nloads = 0;
        ld_model_free(&m);
    }
    assert_true(err_prev < 1e-8);
}

/* The uniform cantilever with a load per length, spread by ld_model_add_beam_load. */
static void uniform(ld_model *m, double EI, double GA, double GJ) {
    ld_model_init(m);
    strcpy(m->name, "uniform");
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "beam");
    b.order = 4, b.nelem = 3, b.npoints = 2;
    b.points[3] = L;
    b.normal[1] = 1.0;
    const double d[6] = {1e5, GA, GA, GJ, EI, EI};
    for (int i = 0; i < 6; ++i) b.C[7 * i] = d[i];
    b.rho_a = 1.0, b.rho_j[0] = 0.02, b.rho_j[4] = b.rho_j[8] = 0.01;
    b.clamp[0] = 1;
    assert_int_equal(ld_beam_place(m, &b), LD_OK);
    assert_int_equal(ld_model_add_beam(m, &b), LD_OK);
}

static void test_distributed(void **state) {
    (void)state;
    const double EI = 80.0, GA = 3e3, GJ = 50.0, q = 1e-5, mt = 1e-5;
    const double exact_d = q * pow(L, 4) / (8.0 * EI) + q * L * L / (2.0 * GA);
    const double exact_t = mt * L * L / (2.0 * GJ);
    for (int fr = 0; fr < 2; ++fr) { /* dead (spatial), follower (the nodes' material frames) */
        ld_model m;
        uniform(&m, EI, GA, GJ);
        const double fq[3] = {0, 0, q}, fm[3] = {mt, 0, 0};
        ld_tfn ramp = {LD_TFN_RAMP, 0.0, 1.0, 0.0, 0.0, 0, NULL, NULL};
        ld_frame_kind frame = fr ? LD_IN_BODY : LD_IN_SPATIAL;
        assert_int_equal(ld_model_add_beam_load(&m, 0, LD_LOAD_FORCE, frame, fq, &ramp, 0), LD_OK);
        assert_int_equal(ld_model_add_beam_load(&m, 0, LD_LOAD_TORQUE, frame, fm, &ramp, 0), LD_OK);
        assert_int_equal(m.nloads, 2 * m.nbodies);
        double total = 0.0;
        for (int i = 0; i < m.nbodies; ++i) total += m.loads[i].vec[2];
        /* the free nodes carry all but the clamped node's share */
        assert_true(fabs(total + m.beams[0].wlen[0] * q - q * L) < 1e-18);
        ld_model_error err;
        if (ld_model_validate(&m, &err)) fail_msg("%s", err.msg);
        for (int f = 0; f < LD_FORM_EULER; ++f) {
            double x[3], th[3];
            tip_statics(&m, (ld_formulation)f, 1.0, x, th);
            double ed = fabs(x[2] / exact_d - 1.0), et = fabs(th[0] / exact_t - 1.0);
            if (f == 0)
                printf("%s load per length (%s): tip %.10e (exact %.10e, %.2e), twist %.10e "
                       "(exact %.10e, %.2e)\n",
                       fr ? "follower" : "dead", ld_formulation_name((ld_formulation)f), x[2],
                       exact_d, ed, th[0], exact_t, et);
            assert_true(ed < 1e-5 && et < 1e-5);
            tip_statics(&m, (ld_formulation)f, 0.5, x, th); /* the ramp at one half */
            assert_true(fabs(x[2] / (0.5 * exact_d) - 1.0) < 1e-5);
        }
        ld_model_free(&m);
    }
    ld_model m;
    uniform(&m, EI, GA, GJ);
    const double v[3] = {0, 0, 1};
    ld_tfn one = {LD_TFN_CONSTANT, 0, 0, 0, 0, 0, NULL, NULL};
    assert_int_equal(ld_model_add_beam_load(&m, 1, LD_LOAD_FORCE, LD_IN_SPATIAL, v, &one, 0),
                     LD_EINVAL);
    assert_int_equal(ld_model_add_beam_load(&m, 0, LD_LOAD_EXACT_TORQUE, LD_IN_SPATIAL, v, &one, 0),
                     LD_EINVAL);
    ld_model_free(&m);
}

static void test_yaml(void **state) {
    (void)state;
    static const char *const good =
        "name: t\n"
        "beams:\n"
        "  - name: blade\n"
        "    order: 4\n"
        "    elements: 2\n"
        "    from: [0, 0, 0]\n"
        "    to: [4, 0, 0]\n"
        "    quadrature: 6\n"
        "    sections:\n"
        "      - eta: 0\n"
        "        section: {EA: 1e5, GA2: 2e4, GA3: 2e4, GJ: 100, EI2: 200, EI3: 200}\n"
        "        rho_a: 3\n"
        "        rho_j: [0.02, 0.01, 0.01]\n"
        "      - eta: 1\n"
        "        stiffness: [1e5,0,0,0,0,0, 0,1e4,0,0,0,0, 0,0,1e4,0,0,0, 0,0,0,40,0,0, "
        "0,0,0,0,50,0, 0,0,0,0,0,50]\n"
        "        mass: [1,0,0,0,0,0, 0,1,0,0,0,0, 0,0,1,0,0,0, 0,0,0,0.02,0,0, 0,0,0,0,0.01,0, "
        "0,0,0,0,0,0.01]\n"
        "    clamp: start\n"
        "loads:\n"
        "  - {beam: blade, type: force, frame: spatial, value: [0, 0, -2], time: {shape: ramp, "
        "t0: 0, t1: 1}}\n"
        "  - {body: 'blade[8]', type: torque, value: [1, 0, 0]}\n";
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(good, strlen(good), "t.yaml", &m, &err)) fail_msg("%s", err.msg);
    const ld_beam *b = &m.beams[0];
    assert_int_equal(b->nquad, 6);
    assert_int_equal(b->nstations, 2);
    assert_true(b->stations[1].C[35] == 50.0 && b->stations[1].rho_a == 1.0);
    assert_true(b->stations[1].rho_j[4] == 0.01);
    assert_int_equal(m.nloads, m.nbodies + 1); /* one per free node, then the torque */
    assert_int_equal(m.loads[m.nloads - 1].kind, LD_LOAD_TORQUE);
    assert_int_equal(m.loads[0].fn.kind, LD_TFN_RAMP);
    double C[36], ra;
    ld_beam_section_at(b, 0.25, C, &ra, NULL, NULL);
    assert_true(fabs(C[35] - 162.5) < 1e-12 && fabs(ra - 2.5) < 1e-15);
    if (ld_model_validate(&m, &err)) fail_msg("%s", err.msg);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
    static const struct {
        const char *from, *to, *msg;
    } bad[] = {
        {"      - eta: 1\n", "      - eta: 0.8\n",
         "t.yaml:14: beams[0].sections[1].eta: the stations' eta"},
        {"      - eta: 0\n", "      - eta: 0.1\n", "beams[0].sections[0].eta"},
        {"        rho_a: 3\n", "", "beams[0].sections[0].rho_a: required key is missing"},
        {"        rho_a: 3\n", "        rho_a: 3\n        damping: 1\n",
         "beams[0].sections[0].damping: unknown key"},
        {"GJ: 100,", "GJ: -100,", "beams[0].sections[0].stiffness: the 6x6"},
        {"    quadrature: 6\n", "    quadrature: 6\n    rho_a: 1\n",
         "beams[0].rho_a: and 'sections' exclude each other"},
        {"    sections:\n      - eta: 0\n", "    sections:\n      - eta: 1\n",
         "beams[0].sections[0].eta"},
        {"frame: spatial, value: [0, 0, -2]", "frame: spatial, value: [0, -2]", "loads[0].value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char text[4096];
        const char *at = strstr(good, bad[i].from);
        assert_non_null(at);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, bad[i].to,
                 at + strlen(bad[i].from));
        int rc = ld_model_parse(text, strlen(text), "t.yaml", &m, &err);
        if (rc == LD_OK) rc = ld_model_validate(&m, &err), ld_model_free(&m);
        if (rc != LD_EINVAL || !strstr(err.msg, bad[i].msg))
            fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, err.msg, bad[i].msg);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tapered),
        cmocka_unit_test(test_distributed),
        cmocka_unit_test(test_yaml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

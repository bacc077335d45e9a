/*
 * Beams in the models (model.h, src/elements/beam.c): placing a beam (nodes at the
 * Gauss–Lobatto–Legendre points, lumped masses, clamped ends eliminated), the beam element
 * kind's force, stiffness and energy in every Lie-group formulation against differences on the
 * group, the refusal of the euler formulation, and the first bending frequency of a slender
 * clamped cantilever in free vibration against Euler–Bernoulli theory, ω₁ = 1.8751² √(EI/(ρA L⁴)),
 * with generalized-α on the sparse path.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

/* A cantilever along x, clamped at x = 0: nel elements of order p, section diag(EA, GA, GA, GJ,
 * EI, EI), ρA, ρJ; gravity g along −z. */
static void cantilever(ld_model *m, int nel, int p, double L, const double sec[6], double rho_a,
                       double rho_j, double g) {
    ld_model_init(m);
    strcpy(m->name, "cantilever");
    m->gravity[2] = -g;
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "beam");
    b.order = p, b.nelem = nel, b.npoints = 2;
    b.points[3] = L;
    b.normal[1] = 1.0;
    for (int k = 0; k < 6; ++k) b.C[7 * k] = sec[k];
    b.rho_a = rho_a;
    b.rho_j[0] = 2.0 * rho_j, b.rho_j[4] = b.rho_j[8] = rho_j;
    b.clamp[0] = 1;
    assert_int_equal(ld_beam_place(m, &b), LD_OK);
    assert_int_equal(ld_model_add_beam(m, &b), LD_OK);
    assert_int_equal(m->nbodies, nel * p);
}

static void test_place(void **state) {
    (void)state;
    ld_model m;
    const double sec[6] = {1e4, 5e3, 5e3, 10, 20, 30};
    cantilever(&m, 3, 4, 6.0, sec, 2.0, 0.01, 0.0);
    const ld_beam *b = &m.beams[0];
    assert_int_equal(b->nnodes, 13);
    assert_int_equal(b->node_body[0], LD_GROUND);
    double mass = 0.0;
    for (int i = 0; i < m.nbodies; ++i) mass += m.bodies[i].mass;
    /* the lumped masses add up to ρA L less the clamped node's share */
    assert_true(mass < 12.0 && mass > 11.5);
    assert_string_equal(m.bodies[0].name, "beam[1]");
    assert_true(fabs(m.bodies[m.nbodies - 1].x[0] - 6.0) < 1e-15);
    ld_model_error err;
    assert_int_equal(ld_model_validate(&m, &err), LD_OK);
    m.beams[0].C[1] = 5.0; /* not symmetric */
    assert_int_equal(ld_model_validate(&m, &err), LD_EINVAL);
    assert_non_null(strstr(err.msg, "beams[0].stiffness"));
    ld_model_free(&m);
    ld_beam bad;
    memset(&bad, 0, sizeof bad);
    bad.order = LD_BEAM_ORDER_MAX + 1, bad.nelem = 1, bad.npoints = 2, bad.points[3] = 1,
    bad.normal[1] = 1;
    bad.rho_a = 1;
    bad.rho_j[0] = bad.rho_j[4] = bad.rho_j[8] = 1;
    ld_model_init(&m);
    assert_int_equal(ld_beam_place(&m, &bad), LD_EINVAL);
    bad.order = 2, bad.normal[0] = 1, bad.normal[1] = 0; /* parallel to the axis */
    assert_int_equal(ld_beam_place(&m, &bad), LD_EINVAL);
    ld_model_free(&m);
}

/* An L-shaped beam: a polyline with a corner (a shared node), clamped at its start. */
static void ell(ld_model *m, int p) {
    ld_model_init(m);
    strcpy(m->name, "ell");
    m->gravity[2] = -9.81;
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "ell");
    b.order = p, b.nelem = 2, b.npoints = 3;
    const double pts[9] = {0, 0, 0, 0, 2, 0, 1.5, 2, 0.3};
    memcpy(b.points, pts, sizeof pts);
    b.normal[2] = 1.0;
    const double sec[6] = {1e3, 4e2, 3e2, 10, 20, 30};
    for (int k = 0; k < 6; ++k) b.C[7 * k] = sec[k];
    b.rho_a = 1.0;
    b.rho_j[0] = 0.02, b.rho_j[4] = b.rho_j[8] = 0.01;
    b.clamp[0] = 1;
    assert_int_equal(ld_beam_place(m, &b), LD_OK);
    assert_int_equal(ld_model_add_beam(m, &b), LD_OK);
}

/* Force = gradient of the energy and stiffness = derivative of the force along the group, at a
 * deformed state, in the four Lie-group formulations; euler refused. A straight cantilever and an
 * L-shaped beam (the corner node turned into each segment's frame). */
static void check_tangents(ld_model *m) {
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0;
        char msg[256];
        int rc = ld_model_compile_msg(m, (ld_formulation)f, &s, &q0, &v0, msg, sizeof msg);
        if (f == LD_FORM_EULER) {
            assert_int_equal(rc, LD_ENOTSUPPORTED);
            assert_non_null(strstr(msg, "beams need a Lie-group formulation"));
            continue;
        }
        if (rc) fail_msg("%s", msg);
        size_t k = (size_t)s.k;
        double *buf = calloc(2 * k * k + 6 * k + 2 * (size_t)s.nq, sizeof *buf);
        assert_non_null(buf);
        double *KA = buf, *KF = KA + k * k, *q = KF + k * k, *qs = q + s.nq, *v = qs + s.nq;
        double *a = v + k, *xi = a + k, *g = xi + k, *d = g + k;
        rng r = rng_seed(7u + (unsigned)f);
        for (size_t i = 0; i < k; ++i)
            xi[i] = rng_range(&r, -0.2, 0.2), a[i] = rng_range(&r, -1, 1);
        int damped = m->beams[0].damping > 0.0;
        for (size_t i = 0; damped && i < k; ++i) v[i] = rng_range(&r, -1.0, 1.0);
        ld_sys_retract(&s, q, q0, xi);
        assert_int_equal(s.ops.stiffness(&s, 0.0, q, v, a, NULL, KA), LD_OK);
        assert_int_equal(ld_sys_stiffness_fd(&s, 0.0, q, v, a, NULL, KF), LD_OK);
        double ek = 0.0, sk = 1.0;
        for (size_t i = 0; i < k * k; ++i)
            ek = fmax(ek, fabs(KA[i] - KF[i])), sk = fmax(sk, fabs(KA[i]));
        if (damped) { /* ∂g/∂v against differences; the dissipation vᵀ(g(v) − g(0)) > 0 */
            double ev = 0.0, sv = 1e-300, pw = 0.0;
            assert_int_equal(s.ops.g_v(&s, 0.0, q, v, KA), LD_OK);
            assert_int_equal(ld_sys_g_v_fd(&s, 0.0, q, v, KF), LD_OK);
            for (size_t i = 0; i < k * k; ++i)
                ev = fmax(ev, fabs(KA[i] - KF[i])), sv = fmax(sv, fabs(KA[i]));
            assert_int_equal(s.ops.force(&s, 0.0, q, v, g), LD_OK);
            memset(a, 0, k * sizeof *a);
            assert_int_equal(s.ops.force(&s, 0.0, q, a, d), LD_OK);
            for (size_t i = 0; i < k; ++i) pw += v[i] * (g[i] - d[i]);
            printf("%s damped: stiffness error %.2e of %.2e, dg/dv error %.2e of %.2e, "
                   "dissipation %.3e\n",
                   ld_formulation_name((ld_formulation)f), ek, sk, ev, sv, pw);
            assert_true(ev <= 1e-6 * sv && pw > 0.0);
            memset(v, 0, k * sizeof *v); /* the energy check below is at rest */
        }
        /* at rest, g = dV/dq along the group */
        assert_int_equal(s.ops.force(&s, 0.0, q, v, g), LD_OK);
        double eg = 0.0, sg = 1.0;
        for (size_t j = 0; j < k; ++j) {
            double ep, em, h = 1e-6;
            memset(d, 0, k * sizeof *d);
            d[j] = h;
            ld_sys_retract(&s, qs, q, d);
            assert_int_equal(s.ops.energy(&s, 0.0, qs, v, &ep), LD_OK);
            d[j] = -h;
            ld_sys_retract(&s, qs, q, d);
            assert_int_equal(s.ops.energy(&s, 0.0, qs, v, &em), LD_OK);
            eg = fmax(eg, fabs((ep - em) / (2 * h) - g[j]));
            sg = fmax(sg, fabs(g[j]));
        }
        printf("%s: stiffness error %.2e of %.2e, force error %.2e of %.2e\n",
               ld_formulation_name((ld_formulation)f), ek, sk, eg, sg);
        assert_true(ek <= 1e-6 * sk && eg <= 1e-6 * sg);
        free(buf);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(m);
}

/* A tapered, twisted-section cantilever: three stations with coupled stiffnesses (extension–
 * twist, bending–bending) and varying mass, five Gauss points per element of order 3. */
static void tapered(ld_model *m) {
    ld_model_init(m);
    strcpy(m->name, "tapered");
    m->gravity[2] = -9.81;
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "beam");
    b.order = 3, b.nelem = 2, b.npoints = 2, b.nquad = 5;
    b.points[3] = 1.5, b.points[4] = 0.5;
    b.normal[2] = 1.0;
    b.nstations = 3;
    b.stations = calloc(3, sizeof *b.stations);
    assert_non_null(b.stations);
    const double eta[3] = {0.0, 0.3, 1.0}, f[3] = {1.0, 0.7, 0.3};
    for (int k = 0; k < 3; ++k) {
        ld_beam_station *st = &b.stations[k];
        const double d[6] = {1e3, 4e2, 3e2, 10, 20, 30};
        st->eta = eta[k];
        for (int i = 0; i < 6; ++i) st->C[7 * i] = d[i] * f[k] * (i >= 3 ? f[k] : 1.0);
        st->C[3] = st->C[18] = 20.0 * f[k]; /* extension–twist */
        st->C[6 * 4 + 5] = st->C[6 * 5 + 4] = 5.0 * f[k] * f[k];
        st->rho_a = 1.0 + f[k];
        st->rho_j[0] = 0.02 * f[k], st->rho_j[4] = st->rho_j[8] = 0.01 * f[k];
    }
    b.clamp[0] = 1;
    assert_int_equal(ld_beam_place(m, &b), LD_OK);
    assert_int_equal(ld_model_add_beam(m, &b), LD_OK);
    ld_model_error err;
    if (ld_model_validate(m, &err)) fail_msg("%s", err.msg);
}

static void test_tangents(void **state) {
    (void)state;
    ld_model m;
    tapered(&m);
    check_tangents(&m);
    const double sec[6] = {1e3, 4e2, 3e2, 10, 20, 30};
    cantilever(&m, 2, 3, 2.0, sec, 1.0, 0.01, 9.81);
    check_tangents(&m);
    cantilever(&m, 2, 3, 2.0, sec, 1.0, 0.01, 9.81);
    m.beams[0].damping = 0.02; /* the damped beam: force, ∂g/∂v and the stiffness at v ≠ 0 */
    check_tangents(&m);
    ell(&m, 3);
    m.beams[0].damping = 0.01;
    /* the reference is stress-free, the corner included */
    ld_system s;
    double *q0, *v0, *g;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    g = calloc((size_t)s.k, sizeof *g);
    m.gravity[2] = 0.0;
    assert_int_equal(s.ops.force(&s, 0.0, q0, v0, g), LD_OK);
    assert_true(maxabs(g, s.k) < 1e-9);
    m.gravity[2] = -9.81;
    free(g);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    check_tangents(&m);
}

/* Free vibration about the static deflection after a step tip load: the time between upward
 * crossings of the static deflection, averaged over eight periods, is the first bending
 * period. */
/* zeta = 0: the period; zeta > 0: stiffness-proportional damping μ = 2ζ/ω₁, whose amplitude of
 * the first mode decays by exp(−ζ ω₁ T) per period (the higher modes are damped more). */
static void first_mode(double zeta) {
    const double L = 1.0, EI = 1.0, rho_a = 1.0, P = 1e-4;
    const double sec[6] = {1e5, 1e5, 1e5, 1.0, EI, EI};
    const double w1 = 1.8751040687 * 1.8751040687 * sqrt(EI / (rho_a * L * L * L * L));
    ld_model m;
    cantilever(&m, 4, 4, L, sec, rho_a, 1e-6, 0.0);
    m.beams[0].damping = 2.0 * zeta / w1;
    ld_load ld;
    memset(&ld, 0, sizeof ld);
    ld.kind = LD_LOAD_FORCE, ld.body = m.nbodies - 1, ld.frame = LD_IN_SPATIAL, ld.vec[1] = P;
    m.loads = &ld, m.nloads = 1;
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_GENALPHA, o.rho_inf = 1.0, o.la = LD_LA_KLU;
    int rc;
    ld_integ *it = ld_integ_create(&s, &o, &rc);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    const double h = 2e-3, omega = 1.8751040687 * 1.8751040687 * sqrt(EI / (rho_a * L * L * L * L));
    /* upward crossings of the static deflection P L³/(3 EI) + P L/(G A), interpolated */
    const double ys = P * L * L * L / (3.0 * EI) + P * L / sec[1];
    enum { NP = 8 }; /* periods averaged: the higher modes shift single crossings */
    double prev = -ys, tmax[NP + 1] = {0}, amp[NP + 1] = {0}, x[3], qq[4], om[3], xd[3];
    int nmax = 0;
    for (int i = 1; i <= 10000 && nmax <= NP; ++i) {
        assert_int_equal(ld_integ_step(it, h), LD_OK);
        ld_model_body_state(&s, s.nnodes - 1, ld_integ_q(it), ld_integ_v(it), x, qq, om, xd);
        double y = x[1] - ys;
        if (prev < 0.0 && y >= 0.0) tmax[nmax++] = (i - 1) * h + h * (-prev) / (y - prev);
        if (nmax > 0 && nmax <= NP) amp[nmax] = fmax(amp[nmax], y); /* the cycle's maximum */
        prev = y;
    }
    assert_int_equal(nmax, NP + 1);
    double T = (tmax[NP] - tmax[0]) / NP, Tex = 2.0 * PI / omega;
    if (zeta == 0.0) {
        printf("first bending period %.5f s, Euler-Bernoulli %.5f s (relative %.2e)\n", T, Tex,
               T / Tex - 1.0);
        assert_true(fabs(T / Tex - 1.0) < 1e-3); /* 2.7e-4 measured */
    } else {
        double decay = pow(amp[NP] / amp[2], 1.0 / (NP - 2)), want = exp(-zeta * omega * Tex);
        printf("damping zeta = %g: amplitude ratio per period %.5f, exp(-zeta w T) %.5f\n", zeta,
               decay, want);
        assert_true(fabs(decay / want - 1.0) < 5e-3);
    }
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    m.loads = NULL, m.nloads = 0;
    ld_model_free(&m);
}

static void test_first_frequency(void **state) {
    (void)state;
    first_mode(0.0);
    first_mode(0.02);
}

/* The YAML block beams: a good beam compiles; each bad one is refused at its line and key. */
static void test_yaml(void **state) {
    (void)state;
    static const char *const good =
        "name: b\n"
        "beams:\n"
        "  - name: leg\n"
        "    order: 2\n"
        "    elements: 3\n"
        "    from: [0, 0, 0]\n"
        "    to: [0, 3, 0]\n"
        "    section: {EA: 1e4, GA2: 1e4, GA3: 1e4, GJ: 10, EI2: 10, EI3: 10}\n"
        "    rho_a: 1\n"
        "    rho_j: [2, 1, 1]\n"
        "    clamp: start\n"
        "loads:\n"
        "  - {body: 'leg[6]', type: force, frame: spatial, value: [0, 0, 1]}\n";
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(good, strlen(good), "b.yaml", &m, &err)) fail_msg("%s", err.msg);
    assert_int_equal(m.nbeams, 1);
    assert_int_equal(m.nbodies, 6);
    assert_int_equal(m.beams[0].line, 3);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
    static const struct {
        const char *from, *to, *msg;
    } bad[] = {
        {"order: 2", "order: 15", "b.yaml:4: beams[0].order: must be 1 … 14"},
        {"    section: {EA: 1e4, GA2: 1e4, GA3: 1e4, GJ: 10, EI2: 10, EI3: 10}\n", "",
         "beams[0].section: is required"},
        {"GJ: 10,", "", "beams[0].section.GJ"},
        {"rho_j: [2, 1, 1]", "rho_j: [2, 1]", "beams[0].rho_j: must hold 3 (the diagonal) or 9"},
        {"to: [0, 3, 0]", "to: [0, 0, 0]", "beams[0].to: consecutive points must be"},
        {"clamp: start", "clamp: middle", "beams[0].clamp"},
        {"'leg[6]'", "'leg[7]'", "leg[7]"},
        {"EI3: 10}", "EI3: -10}", "beams[0].stiffness: the 6x6 section stiffness must be"},
        {"rho_a: 1\n", "rho_a: 1\n    damping: -0.1\n", "beams[0].damping: must be a finite"},
        {"clamp: start", "clamp: start\n    quadrature: 65", "beams[0].quadrature: must be full"},
        {"clamp: start", "clamp: start\n    quadrature: half", "beams[0].quadrature"},
        {"    rho_a: 1\n    rho_j: [2, 1, 1]\n",
         "    mass: [1,0,0,0,0,0, 0,1,0,0,0,0, 0,0,1,0,0.1,0, 0,0,0,2,0,0, 0,0,0,0,1,0, "
         "0,0,0,0,0,1]\n",
         "beams[0].mass: the coupling blocks must be -hat(m xi)"},
        {"    rho_a: 1\n    rho_j: [2, 1, 1]\n",
         "    mass: [1,0,0,0,2,0, 0,1,0,-2,0,0, 0,0,1,0,0,0, 0,-2,0,2,0,0, 2,0,0,0,1,0, "
         "0,0,0,0,0,1]\n",
         "beams[0].mass: the 6x6 section mass must be positive definite"},
        {"    rho_a: 1\n",
         "    rho_a: 1\n    mass: [1,0,0,0,0,0, 0,1,0,0,0,0, 0,0,1,0,0,0, "
         "0,0,0,2,0,0, 0,0,0,0,1,0, 0,0,0,0,0,1]\n",
         "beams[0].mass: and 'rho_a'/'rho_j' exclude each other"},
        {"    rho_a: 1\n", "    sections: []\n    rho_a: 1\n", "beams[0].section: and 'sections'"},
        {"{body: 'leg[6]', type: force,", "{beam: leg, type: exact_torque,", "loads[0].type"},
        {"{body: 'leg[6]', type: force,", "{beam: arm, type: force,", "no beam named 'arm'"},
        {"{body: 'leg[6]', type: force,", "{beam: leg, case: i, type: force,",
         "loads[0].case: key not allowed for a load on a beam"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char text[2048];
        const char *at = strstr(good, bad[i].from);
        assert_non_null(at);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, bad[i].to,
                 at + strlen(bad[i].from));
        int rc = ld_model_parse(text, strlen(text), "b.yaml", &m, &err);
        if (rc == LD_OK) rc = ld_model_validate(&m, &err), ld_model_free(&m);
        if (rc != LD_EINVAL || !strstr(err.msg, bad[i].msg))
            fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, err.msg, bad[i].msg);
    }
}

/* Statics: the shipped roll-up returns its tip to the clamp; the small-load tip deflection; a
 * free beam (a mechanism: singular stiffness) is refused with the reason, its state kept. */
static void test_statics(void **state) {
    (void)state;
    char path[4608], msg[512];
    snprintf(path, sizeof path, "%s/models/beam-roll-up.yaml", LD_SOURCE_DIR);
    ld_model m;
    ld_model_error err;
    if (ld_model_load(path, &m, &err)) fail_msg("%s", err.msg);
    ld_static_options o;
    ld_static_options_init(&o);
    ld_static_stats st;
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        ld_system s;
        double *q0, *v0, x[3], qq[4], om[3], xd[3];
        assert_int_equal(ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
        int rc = ld_static_solve(&s, 0.0, q0, NULL, &o, &st, msg, sizeof msg);
        if (rc) fail_msg("%s", msg);
        ld_model_body_state(&s, m.nbodies - 1, q0, v0, x, qq, om, xd);
        double tip = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        ld_model_body_state(&s, 7, q0, v0, x, qq, om, xd); /* beam[8], the middle */
        printf("roll-up (%s): |tip| %.3e, middle (%.3e, %.9f), %d steps, %ld Newton iterations\n",
               ld_formulation_name((ld_formulation)f), tip, x[0], x[1], st.steps, st.iterations);
        assert_true(tip < 1e-6 && fabs(x[1] - 10.0 / PI) < 1e-5 && st.steps == 10);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(&m);
    /* small load: P L³/(3 EI) + P L/(G A) */
    const double sec[6] = {1e4, 2e3, 2e3, 10, 20, 30}, P = 1e-3, L = 2.0;
    cantilever(&m, 2, 4, L, sec, 1.0, 0.01, 0.0);
    ld_load ld;
    memset(&ld, 0, sizeof ld);
    ld.kind = LD_LOAD_FORCE, ld.body = m.nbodies - 1, ld.frame = LD_IN_SPATIAL, ld.vec[1] = P;
    m.loads = &ld, m.nloads = 1;
    ld_system s;
    double *q0, *v0, x[3], qq[4], om[3], xd[3];
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    assert_int_equal(ld_static_solve(&s, 0.0, q0, NULL, &o, &st, msg, sizeof msg), LD_OK);
    ld_model_body_state(&s, m.nbodies - 1, q0, v0, x, qq, om, xd);
    double exact = P * L * L * L / (3.0 * sec[5]) + P * L / sec[1];
    printf("small load: tip %.10e, linear theory %.10e\n", x[1], exact);
    assert_true(fabs(x[1] / exact - 1.0) < 1e-5);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    /* a free beam: no equilibrium (rigid-body modes) */
    m.loads = NULL, m.nloads = 0;
    ld_model_free(&m);
    ld_model mf;
    ld_model_init(&mf);
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "free");
    b.order = 2, b.nelem = 2, b.npoints = 2, b.points[3] = 1.0, b.normal[1] = 1.0;
    for (int k = 0; k < 6; ++k) b.C[7 * k] = sec[k];
    b.rho_a = 1.0, b.rho_j[0] = b.rho_j[4] = b.rho_j[8] = 0.01;
    assert_int_equal(ld_beam_place(&mf, &b), LD_OK);
    assert_int_equal(ld_model_add_beam(&mf, &b), LD_OK);
    ld.body = 0;
    mf.loads = &ld, mf.nloads = 1;
    assert_int_equal(ld_model_compile(&mf, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    double *qs = malloc((size_t)s.nq * sizeof *qs);
    memcpy(qs, q0, (size_t)s.nq * sizeof *qs);
    o.max_cuts = 3;
    int rc = ld_static_solve(&s, 0.0, q0, NULL, &o, &st, msg, sizeof msg);
    printf("free beam: %s (%s)\n", ld_strerror(rc), msg);
    assert_true(rc < 0 && strstr(msg, "load fraction"));
    assert_memory_equal(qs, q0, (size_t)s.nq * sizeof *qs); /* the last equilibrium: the start */
    ld_static_options bad = o;
    bad.steps = 0; /* refused before anything is touched */
    assert_int_equal(ld_static_solve(&s, 0.0, q0, NULL, &bad, NULL, msg, sizeof msg), LD_EINVAL);
    assert_non_null(strstr(msg, "steps"));
    assert_int_equal(ld_static_solve(&s, 0.0, NULL, NULL, &o, NULL, NULL, 0), LD_EINVAL);
    free(qs);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    mf.loads = NULL, mf.nloads = 0;
    ld_model_free(&mf);
}

/* A damped beam (its ∂g/∂v in the tangent blocks) moves the same on the dense path and on the
 * Newton methods' sparse path. */
static void test_damped_paths(void **state) {
    (void)state;
    ld_model m;
    const double sec[6] = {1e4, 4e3, 3e3, 50, 80, 90};
    cantilever(&m, 3, 4, 2.0, sec, 1.0, 0.01, 9.81);
    m.beams[0].damping = 0.01;
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_S3SDR3, &s, &q0, &v0), LD_OK);
    double *qe[2];
    for (int la = 0; la < 2; ++la) {
        ld_integ_options o;
        ld_integ_options_init(&o);
        o.method = LD_INTEG_GENALPHA, o.la = la ? LD_LA_KLU : LD_LA_DENSE;
        int rc;
        ld_integ *it = ld_integ_create(&s, &o, &rc);
        assert_non_null(it);
        assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
        for (int i = 0; i < 50; ++i) assert_int_equal(ld_integ_step(it, 2e-3), LD_OK);
        qe[la] = malloc((size_t)s.nq * sizeof(double));
        memcpy(qe[la], ld_integ_q(it), (size_t)s.nq * sizeof(double));
        ld_integ_free(it);
    }
    assert_true(maxabs_diff(qe[0], qe[1], s.nq) < 1e-9);
    free(qe[0]);
    free(qe[1]);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_place),           cmocka_unit_test(test_tangents),
        cmocka_unit_test(test_first_frequency), cmocka_unit_test(test_yaml),
        cmocka_unit_test(test_statics),         cmocka_unit_test(test_damped_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

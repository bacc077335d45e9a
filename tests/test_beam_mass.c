/*
 * Beams whose sections have their centre of mass off the reference axis (the 6×6 section mass
 * with coupling blocks; src/elements/beam_mass.c), twisted sections and curved reference axes
 * (src/elements/beam.c, docs/beam.md):
 *   - the inertial coupling's tangents (∂/∂q of M a + g, ∂g/∂v) and the force against the
 *     energy's gradient, by differences on the group in so3xr3, se3, s3xr3 and s3sdr3, with
 *     gravity, on a tapered beam with twisted stations and on an L-shaped polyline (a corner);
 *   - the mass matrix symmetric, and the kinetic energy ½ vᵀ M v;
 *   - an exact case: a free undeformed beam in rigid rotation about a fixed axis; the inertial
 *     forces of its nodes add up to the force m ω × (ω × c) and the moment ω × (I_O ω) that a
 *     rigid body of the same mass distribution needs (integrated here independently);
 *   - statics: gravity on a cantilever whose centre of mass is off the axis twists it by
 *     m_t L²/(2 GJ), m_t = (ρA ξ) × γ the torque per length, and bends it by
 *     q L⁴/(8 EI) + q L²/(2 GA);
 *   - the dense and the sparse (KLU) path move such a beam alike;
 *   - a curved axis given by many points: nodes on the curve, stress-free;
 *   - the segmented quadrature (Gauss points on each piece between stations): a uniform stretch
 *     e of a beam whose EA kinks inside its element stores ½ e² ∫ EA ds exactly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../src/elements/beam_fe.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

static void hat(double H[9], const double v[3]) {
    H[0] = 0, H[1] = -v[2], H[2] = v[1];
    H[3] = v[2], H[4] = 0, H[5] = -v[0];
    H[6] = -v[1], H[7] = v[0], H[8] = 0;
}

static void cross(double c[3], const double a[3], const double b[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* A beam along x of length L (nel elements of order p), normal y; two stations whose mass per
 * length, ρJ and ρA ξ vary linearly (f0 at the root, f1 at the tip), twist tw0 → tw1. */
static void offset_beam(ld_model *m, int nel, int p, double L, int clamp, double tw0, double tw1,
                        double g) {
    ld_model_init(m);
    strcpy(m->name, "offset");
    m->gravity[2] = -g;
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "beam");
    b.order = p, b.nelem = nel, b.npoints = 2, b.nquad = p + 2;
    b.points[3] = L;
    b.normal[1] = 1.0;
    b.nstations = 2;
    b.stations = calloc(2, sizeof *b.stations);
    assert_non_null(b.stations);
    const double f[2] = {1.0, 0.4}, tw[2] = {tw0, tw1};
    for (int k = 0; k < 2; ++k) {
        ld_beam_station *st = &b.stations[k];
        const double d[6] = {1e4, 4e3, 3e3, 50, 80, 120};
        st->eta = k;
        for (int i = 0; i < 6; ++i) st->C[7 * i] = d[i] * f[k];
        st->C[6 * 4 + 5] = st->C[6 * 5 + 4] = 10.0 * f[k]; /* bending–bending */
        st->rho_a = 2.0 * f[k];
        st->mxi[0] = 0.0, st->mxi[1] = 0.1 * f[k], st->mxi[2] = -0.06 * f[k];
        st->rho_j[0] = 0.06 * f[k], st->rho_j[4] = 0.03 * f[k], st->rho_j[8] = 0.04 * f[k];
        st->rho_j[5] = st->rho_j[7] = 0.002 * f[k];
        st->twist = tw[k];
    }
    b.clamp[0] = clamp;
    assert_int_equal(ld_beam_place(m, &b), LD_OK);
    assert_int_equal(ld_model_add_beam(m, &b), LD_OK);
    ld_model_error err;
    if (ld_model_validate(m, &err)) fail_msg("%s", err.msg);
}

/* An L-shaped polyline with a uniform off-axis section, clamped at its start. */
static void ell(ld_model *m) {
    ld_model_init(m);
    strcpy(m->name, "ell");
    m->gravity[2] = -9.81;
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "ell");
    b.order = 3, b.nelem = 2, b.npoints = 3;
    const double pts[9] = {0, 0, 0, 0, 2, 0, 1.5, 2, 0.3};
    memcpy(b.points, pts, sizeof pts);
    b.normal[2] = 1.0;
    const double sec[6] = {1e3, 4e2, 3e2, 10, 20, 30};
    for (int k = 0; k < 6; ++k) b.C[7 * k] = sec[k];
    b.rho_a = 1.0;
    b.mxi[1] = 0.05, b.mxi[2] = 0.02;
    b.rho_j[0] = 0.02, b.rho_j[4] = b.rho_j[8] = 0.01;
    b.clamp[0] = 1;
    assert_int_equal(ld_beam_place(m, &b), LD_OK);
    assert_int_equal(ld_model_add_beam(m, &b), LD_OK);
}

/* The analytic tangents against differences on the group at a deformed state with random v and
 * a; the force at rest against the energy's gradient; M symmetric; ½ vᵀ M v the kinetic energy. */
static void check_tangents(ld_model *m, const char *what) {
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        ld_system s;
        double *q0, *v0;
        char msg[256];
        if (ld_model_compile_msg(m, (ld_formulation)f, &s, &q0, &v0, msg, sizeof msg))
            fail_msg("%s", msg);
        size_t k = (size_t)s.k;
        double *buf = calloc(3 * k * k + 6 * k + 2 * (size_t)s.nq, sizeof *buf);
        assert_non_null(buf);
        double *KA = buf, *KF = KA + k * k, *M = KF + k * k, *q = M + k * k, *qs = q + s.nq;
        double *v = qs + s.nq, *a = v + k, *xi = a + k, *g = xi + k, *d = g + k;
        rng r = rng_seed(11u + (unsigned)f);
        for (size_t i = 0; i < k; ++i)
            xi[i] = rng_range(&r, -0.2, 0.2), a[i] = rng_range(&r, -1, 1),
            v[i] = rng_range(&r, -20, 20);
        ld_sys_retract(&s, q, q0, xi);
        double ek = 0.0, sk = 1.0, ev = 0.0, sv = 1e-300;
        assert_int_equal(s.ops.stiffness(&s, 0.0, q, v, a, NULL, KA), LD_OK);
        assert_int_equal(ld_sys_stiffness_fd(&s, 0.0, q, v, a, NULL, KF), LD_OK);
        for (size_t i = 0; i < k * k; ++i)
            ek = fmax(ek, fabs(KA[i] - KF[i])), sk = fmax(sk, fabs(KA[i]));
        assert_int_equal(s.ops.g_v(&s, 0.0, q, v, KA), LD_OK);
        assert_int_equal(ld_sys_g_v_fd(&s, 0.0, q, v, KF), LD_OK);
        for (size_t i = 0; i < k * k; ++i)
            ev = fmax(ev, fabs(KA[i] - KF[i])), sv = fmax(sv, fabs(KA[i]));
        /* M symmetric, ½ vᵀ M v = the energy at v minus the energy at rest */
        assert_int_equal(s.ops.mass(&s, q, M), LD_OK);
        double es = 0.0, T = 0.0, e1, e0;
        for (size_t i = 0; i < k; ++i)
            for (size_t j = 0; j < k; ++j) {
                es = fmax(es, fabs(M[k * i + j] - M[k * j + i]));
                T += 0.5 * v[i] * M[k * i + j] * v[j];
            }
        assert_int_equal(s.ops.energy(&s, 0.0, q, v, &e1), LD_OK);
        memset(d, 0, k * sizeof *d);
        assert_int_equal(s.ops.energy(&s, 0.0, q, d, &e0), LD_OK);
        /* at rest, g = dV/dq along the group (elastic energy and gravity at the offset) */
        assert_int_equal(s.ops.force(&s, 0.0, q, d, g), LD_OK);
        double eg = 0.0, sg = 1.0;
        for (size_t j = 0; j < k; ++j) {
            double ep, em, h = 1e-6, *z = v; /* v reused: at rest */
            memset(z, 0, k * sizeof *z);
            memset(d, 0, k * sizeof *d);
            d[j] = h;
            ld_sys_retract(&s, qs, q, d);
            assert_int_equal(s.ops.energy(&s, 0.0, qs, z, &ep), LD_OK);
            d[j] = -h;
            ld_sys_retract(&s, qs, q, d);
            assert_int_equal(s.ops.energy(&s, 0.0, qs, z, &em), LD_OK);
            eg = fmax(eg, fabs((ep - em) / (2 * h) - g[j]));
            sg = fmax(sg, fabs(g[j]));
        }
        printf("%s %s: stiffness error %.2e of %.2e, dg/dv %.2e of %.2e, force %.2e of %.2e, "
               "M asymmetry %.1e, kinetic %.6e vs %.6e\n",
               what, ld_formulation_name((ld_formulation)f), ek, sk, ev, sv, eg, sg, es, T,
               e1 - e0);
        /* ∂g/∂v by differences carries the round-off of g's elastic part: ε |g| / h */
        assert_true(ek <= 1e-6 * sk && ev <= 1e-6 * sv + 1e-9 * sg && eg <= 1e-6 * sg);
        assert_true(es <= 1e-15 * sv + 1e-15 && fabs(T - (e1 - e0)) <= 1e-12 * fabs(T));
        free(buf);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(m);
}

static void test_tangents(void **state) {
    (void)state;
    ld_model m;
    offset_beam(&m, 2, 3, 1.5, 1, 0.3, -0.5, 9.81);
    assert_non_null(m.beams[0].mxi_node);
    check_tangents(&m, "tapered, twisted");
    ell(&m);
    check_tangents(&m, "L-shaped");
}

/* The section's inertia about the origin of a point of the axis at s e1 (reference frame): ρJ
 * about the axis point plus the parallel-axis terms of the mass at s e1 + ξ. */
static void section_inertia(double mu, const double mxi[3], const double rj[9], double s,
                            double I[9], double first[3]) {
    /* ∫ ρ (|r|² I − r rᵀ) dA with r = s e1 + ρ_c: −hat(r)² with the mass moments */
    double e[3] = {s, 0, 0}, He[9], Hm[9];
    hat(He, e);
    hat(Hm, mxi);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double ee = 0.0, em = 0.0;
            for (int l = 0; l < 3; ++l) {
                ee += He[3 * i + l] * He[3 * l + j];
                em += He[3 * i + l] * Hm[3 * l + j] + Hm[3 * i + l] * He[3 * l + j];
            }
            I[3 * i + j] = rj[3 * i + j] - mu * ee - em;
        }
    for (int i = 0; i < 3; ++i) first[i] = mu * e[i] + mxi[i];
}

/* An undeformed free beam in rigid rotation ω about the z axis through the origin (Ω̇ = 0):
 * Σ of its nodes' M a + g is the force and moment that the rigid body needs. */
static void test_rigid_spin(void **state) {
    (void)state;
    const double L = 3.0, w[3] = {0.3, -0.4, 2.0};
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        ld_model m;
        offset_beam(&m, 2, 3, L, 0, 0.0, 0.0, 0.0);
        for (int i = 0; i < m.nbodies; ++i) { /* R = I: Ω = ω, ẋ = ω × x */
            memcpy(m.bodies[i].omega, w, sizeof w);
            cross(m.bodies[i].v, w, m.bodies[i].x);
        }
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
        size_t k = (size_t)s.k;
        double *M = calloc(k * k + 3 * k, sizeof *M), *a = M + k * k, *g = a + k, *r = g + k;
        assert_non_null(M);
        int semi = f == LD_FORM_SE3 || f == LD_FORM_S3SDR3;
        for (int i = 0; i < m.nbodies; ++i) { /* direct: ẍ = ω × (ω × x); semi: U̇ = 0 */
            double t[3];
            cross(t, w, m.bodies[i].v);
            for (int j = 0; j < 3 && !semi; ++j) a[s.nodes[i].voff + 3 + j] = t[j];
        }
        assert_int_equal(s.ops.mass(&s, q0, M), LD_OK);
        assert_int_equal(s.ops.force(&s, 0.0, q0, v0, g), LD_OK);
        for (size_t i = 0; i < k; ++i) {
            r[i] = g[i];
            for (size_t j = 0; j < k; ++j) r[i] += M[k * i + j] * a[j];
        }
        double F[3] = {0}, N[3] = {0};
        for (int i = 0; i < m.nbodies; ++i) {
            const double *ri = r + s.nodes[i].voff, *x = m.bodies[i].x;
            double t[3];
            cross(t, x, ri + 3);
            for (int j = 0; j < 3; ++j) F[j] += ri[3 + j], N[j] += ri[j] + t[j];
        }
        /* the rigid body: total mass, first moment and inertia about the origin (Gauss, 8
         * points: the integrands are polynomials of degree ≤ 3 in s) */
        double xg[8], wg[8], mt = 0.0, S[3] = {0}, I[9] = {0};
        ld_beam_gauss(8, xg, wg);
        for (int gq = 0; gq < 8; ++gq) {
            double s0 = 0.5 * L * (xg[gq] + 1.0), eta = s0 / L, mu, rj[9], mx[3], Is[9], fs[3];
            ld_beam_section_at(&m.beams[0], eta, NULL, &mu, rj, mx);
            section_inertia(mu, mx, rj, s0, Is, fs);
            mt += 0.5 * L * wg[gq] * mu;
            for (int j = 0; j < 3; ++j) S[j] += 0.5 * L * wg[gq] * fs[j];
            for (int j = 0; j < 9; ++j) I[j] += 0.5 * L * wg[gq] * Is[j];
        }
        double Fe[3], Ne[3], t[3], Iw[3];
        cross(t, w, S);
        cross(Fe, w, t); /* m ω × (ω × c) = ω × (ω × S) */
        for (int i = 0; i < 3; ++i)
            Iw[i] = I[3 * i] * w[0] + I[3 * i + 1] * w[1] + I[3 * i + 2] * w[2];
        cross(Ne, w, Iw);
        double eF = 0.0, eN = 0.0;
        for (int j = 0; j < 3; ++j)
            eF = fmax(eF, fabs(F[j] - Fe[j])), eN = fmax(eN, fabs(N[j] - Ne[j]));
        printf("rigid spin (%s): force (%.9f, %.9f, %.9f) error %.1e, moment (%.9f, %.9f, %.9f) "
               "error %.1e, mass %.6f\n",
               ld_formulation_name((ld_formulation)f), F[0], F[1], F[2], eF, N[0], N[1], N[2], eN,
               mt);
        assert_true(eF < 1e-12 * norm3(Fe) && eN < 1e-12 * norm3(Ne));
        free(M);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
}

/* Gravity on a uniform cantilever whose centre of mass is off the axis: the torque per length
 * m_t = (ρA ξ) × γ twists it by m_t L²/(2 GJ); the weight bends it. Small loads: linear theory. */
static void test_gravity_twist(void **state) {
    (void)state;
    const double L = 2.0, GJ = 50.0, EI = 80.0, GA = 3e4, rho_a = 1e-3, e = 0.2, g = 9.81;
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        ld_model m;
        ld_model_init(&m);
        strcpy(m.name, "twist");
        m.gravity[2] = -g;
        ld_beam b;
        memset(&b, 0, sizeof b);
        strcpy(b.name, "beam");
        b.order = 4, b.nelem = 2, b.npoints = 2, b.points[3] = L, b.normal[1] = 1.0;
        const double sec[6] = {1e6, GA, GA, GJ, EI, EI};
        for (int i = 0; i < 6; ++i) b.C[7 * i] = sec[i];
        b.rho_a = rho_a, b.mxi[1] = rho_a * e;
        b.rho_j[0] = 2e-3, b.rho_j[4] = b.rho_j[8] = 1e-3;
        b.clamp[0] = 1;
        assert_int_equal(ld_beam_place(&m, &b), LD_OK);
        assert_int_equal(ld_model_add_beam(&m, &b), LD_OK);
        ld_system s;
        double *q0, *v0, x[3], qq[4], om[3], xd[3];
        char msg[256];
        assert_int_equal(ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
        ld_static_options o;
        ld_static_options_init(&o);
        o.steps = 1;
        if (ld_static_solve(&s, 0.0, q0, NULL, &o, NULL, msg, sizeof msg)) fail_msg("%s", msg);
        ld_model_body_state(&s, m.nbodies - 1, q0, v0, x, qq, om, xd);
        double mt = -rho_a * e * g, q = rho_a * g; /* (0, ρA e, 0) × (0, 0, −g) = (−ρA e g, 0, 0) */
        double twist = 2.0 * atan2(qq[1], qq[0]), tw = mt * L * L / (2.0 * GJ);
        double defl = -x[2], de = q * L * L * L * L / (8.0 * EI) + q * L * L / (2.0 * GA);
        printf("gravity at an offset (%s): tip twist %.10e, m L^2/(2 GJ) %.10e; deflection "
               "%.10e, linear theory %.10e\n",
               ld_formulation_name((ld_formulation)f), twist, tw, defl, de);
        assert_true(fabs(twist / tw - 1.0) < 1e-5 && fabs(defl / de - 1.0) < 1e-5);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
}

/* A beam with an off-axis mass and gravity moves the same on the dense and the sparse path. */
static void test_paths(void **state) {
    (void)state;
    ld_model m;
    offset_beam(&m, 3, 4, 2.0, 1, 0.2, -0.3, 9.81);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    double *qe[2];
    for (int la = 0; la < 2; ++la) {
        ld_integ_options o;
        ld_integ_options_init(&o);
        o.method = LD_INTEG_GENALPHA, o.la = la ? LD_LA_KLU : LD_LA_DENSE;
        int rc;
        ld_integ *it = ld_integ_create(&s, &o, &rc);
        assert_non_null(it);
        assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
        for (int i = 0; i < 50; ++i) {
            int st = ld_integ_step(it, 2e-3);
            if (st) fail_msg("step %d: %d %s", i, st, ld_integ_message(it));
        }
        qe[la] = malloc((size_t)s.nq * sizeof(double));
        memcpy(qe[la], ld_integ_q(it), (size_t)s.nq * sizeof(double));
        ld_integ_free(it);
    }
    double dq = maxabs_diff(qe[0], qe[1], s.nq), tip = qe[0][s.nodes[s.nnodes - 1].qoff + 11];
    printf("dense and sparse paths: tip z %.9f, difference %.1e\n", tip, dq);
    assert_true(dq < 1e-9 && tip < -1e-4);
    free(qe[0]);
    free(qe[1]);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* A curved axis from many points (a quarter circle of radius 5 sampled at 100 points): the
 * nodes lie on the circle, the frames along its tangent, the length is π R/2, the reference is
 * stress-free, and the YAML reader takes the same with `curve: true`. */
static void test_curve(void **state) {
    (void)state;
    const double Rr = 5.0;
    ld_model m;
    ld_model_init(&m);
    strcpy(m.name, "arc");
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "arc");
    b.order = 6, b.nelem = 3, b.npoints = 100, b.curve = 1;
    for (int i = 0; i < b.npoints; ++i) {
        double t = 0.5 * PI * i / (b.npoints - 1);
        b.points[3 * i] = Rr * sin(t), b.points[3 * i + 1] = Rr * (1.0 - cos(t));
    }
    b.normal[2] = 1.0;
    const double sec[6] = {1e4, 4e3, 3e3, 50, 80, 120};
    for (int k = 0; k < 6; ++k) b.C[7 * k] = sec[k];
    b.rho_a = 1.0, b.rho_j[0] = 0.02, b.rho_j[4] = b.rho_j[8] = 0.01;
    b.clamp[0] = 1;
    assert_int_equal(ld_beam_place(&m, &b), LD_OK);
    assert_int_equal(ld_model_add_beam(&m, &b), LD_OK);
    const ld_beam *c = &m.beams[0];
    assert_int_equal(c->nnodes, 19);
    double er = 0.0, et = 0.0, len = 0.0;
    for (int k = 0; k < c->nnodes; ++k) {
        const double *x = c->x0 + 3 * k, *q = c->q0 + 4 * k;
        double dx = x[0], dy = x[1] - Rr, ang = 0.5 * PI * c->eta[k];
        er = fmax(er, fabs(sqrt(dx * dx + dy * dy) - Rr));
        /* e1 = R e1 = (cos, sin, 0) at the angle along the arc */
        double e1[3] = {1.0 - 2.0 * (q[2] * q[2] + q[3] * q[3]), 2.0 * (q[1] * q[2] + q[0] * q[3]),
                        2.0 * (q[1] * q[3] - q[0] * q[2])};
        et = fmax(et, fmax(fabs(e1[0] - cos(ang)), fmax(fabs(e1[1] - sin(ang)), fabs(e1[2]))));
        len += c->wlen[k];
    }
    printf("curve: radius error %.1e, tangent angle error %.1e, length %.9f (pi R/2 %.9f)\n", er,
           et, len, 0.5 * PI * Rr);
    assert_true(er < 1e-8 && et < 1e-5 && fabs(len - 0.5 * PI * Rr) < 1e-8);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_S3XR3, &s, &q0, &v0), LD_OK);
    double *g = calloc((size_t)s.k, sizeof *g);
    assert_int_equal(s.ops.force(&s, 0.0, q0, v0, g), LD_OK);
    assert_true(maxabs(g, s.k) < 1e-9);
    free(g);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* A uniform axial stretch e of a straight beam whose EA is piecewise linear with a kink inside
 * its one element: the elastic energy is ½ e² ∫ EA ds (Γ₁ − 1 = e everywhere). One Gauss point
 * per piece between the stations integrates it exactly; one Gauss rule on the whole element
 * does not. */
static void test_segmented(void **state) {
    (void)state;
    const double L = 3.0, e = 1e-3, eta[3] = {0.0, 0.37, 1.0}, EA[3] = {5e4, 1e4, 3e4};
    double exact = 0.0;
    for (int k = 0; k < 2; ++k) exact += 0.5 * (EA[k] + EA[k + 1]) * (eta[k + 1] - eta[k]) * L;
    exact *= 0.5 * e * e;
    for (int seg = 0; seg < 2; ++seg) {
        ld_model m;
        ld_model_init(&m);
        strcpy(m.name, "seg");
        ld_beam b;
        memset(&b, 0, sizeof b);
        strcpy(b.name, "beam");
        b.order = 4, b.nelem = 1, b.npoints = 2, b.points[3] = L, b.normal[1] = 1.0;
        if (seg)
            b.nqsec = 1;
        else
            b.nquad = 5;
        b.nstations = 3;
        b.stations = calloc(3, sizeof *b.stations);
        assert_non_null(b.stations);
        for (int k = 0; k < 3; ++k) {
            const double d[6] = {EA[k], 4e3, 3e3, 50, 80, 120};
            b.stations[k].eta = eta[k];
            for (int i = 0; i < 6; ++i) b.stations[k].C[7 * i] = d[i];
            b.stations[k].rho_a = 1.0;
            b.stations[k].rho_j[0] = 0.02, b.stations[k].rho_j[4] = b.stations[k].rho_j[8] = 0.01;
        }
        b.clamp[0] = 1;
        assert_int_equal(ld_beam_place(&m, &b), LD_OK);
        assert_int_equal(ld_model_add_beam(&m, &b), LD_OK);
        for (int i = 0; i < m.nbodies; ++i) m.bodies[i].x[0] *= 1.0 + e;
        ld_model_error err;
        if (ld_model_validate(&m, &err)) fail_msg("%s", err.msg);
        ld_system s;
        double *q0, *v0, V;
        assert_int_equal(ld_model_compile(&m, LD_FORM_S3XR3, &s, &q0, &v0), LD_OK);
        assert_int_equal(s.ops.energy(&s, 0.0, q0, v0, &V), LD_OK);
        printf("stretch energy, %s: %.15e, exact %.15e (relative %.1e)\n",
               seg ? "one Gauss point per piece" : "5 Gauss points on the element", V, exact,
               V / exact - 1.0);
        if (seg)
            assert_true(fabs(V / exact - 1.0) < 1e-12);
        else
            assert_true(fabs(V / exact - 1.0) > 1e-6);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
}

/* The YAML: the 6×6 mass with coupling blocks gives ρA ξ, stations' twist, `curve: true`. */
static void test_yaml(void **state) {
    (void)state;
    const char *text =
        "name: y\n"
        "beams:\n"
        "  - name: b\n"
        "    order: 3\n"
        "    points: [[0, 0, 0], [1, 0, 0.01], [2, 0, 0.04], [3, 0, 0.09]]\n"
        "    curve: true\n"
        "    clamp: start\n"
        "    sections:\n"
        "      - eta: 0\n"
        "        twist: 0.2\n"
        "        section: {EA: 1e4, GA2: 4e3, GA3: 3e3, GJ: 50, EI2: 80, EI3: 90}\n"
        "        mass: [2,0,0,0,0.02,-0.1, 0,2,0,-0.02,0,0, 0,0,2,0.1,0,0,\n"
        "               0,-0.02,0.1,0.07,0,0, 0.02,0,0,0,0.03,0, -0.1,0,0,0,0,0.04]\n"
        "      - eta: 1\n"
        "        section: {EA: 1e4, GA2: 4e3, GA3: 3e3, GJ: 50, EI2: 80, EI3: 90}\n"
        "        rho_a: 1\n"
        "        rho_j: [0.02, 0.01, 0.01]\n";
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(text, strlen(text), "y.yaml", &m, &err)) fail_msg("%s", err.msg);
    const ld_beam_station *st = m.beams[0].stations;
    printf("yaml: m xi (%g, %g, %g), twist %g, curve %d, %d nodes\n", st[0].mxi[0], st[0].mxi[1],
           st[0].mxi[2], st[0].twist, m.beams[0].curve, m.beams[0].nnodes);
    assert_true(st[0].mxi[0] == 0.0 && st[0].mxi[1] == 0.1 && st[0].mxi[2] == 0.02);
    assert_true(st[0].twist == 0.2 && st[1].twist == 0.0 && m.beams[0].curve == 1);
    assert_int_equal(m.beams[0].nnodes, 4);
    assert_non_null(m.beams[0].mxi_node);
    /* the section at the root, twisted: C turned by 0.2 about e1 */
    double C[36], mx[3];
    ld_beam_section_at(&m.beams[0], 0.0, C, NULL, NULL, mx);
    double c = cos(0.2), s = sin(0.2);
    assert_true(fabs(C[7 * 4] - (80 * c * c + 90 * s * s)) < 1e-12 &&
                fabs(C[6 * 4 + 5] - (80 - 90) * c * s) < 1e-12);
    assert_true(fabs(mx[1] - (0.1 * c - 0.02 * s)) < 1e-15);
    ld_model_free(&m);
    /* errors at their key */
    struct {
        const char *from, *to, *msg;
    } bad[] = {
        {"twist: 0.2", "twist: .nan", "sections[0].twist"},
        {"curve: true", "curve: maybe", "beams[0].curve"},
        {"curve: true", "curve: true\n    quadrature_per_section: 9",
         "beams[0].quadrature_per_section: must be 1"},
        {"curve: true", "curve: true\n    quadrature_per_section: 2\n    quadrature: 5",
         "beams[0].quadrature_per_section: and 'quadrature' exclude each other"},
        {"0,2,0,-0.02", "0,2,0,-0.03", "sections[0].mass: the coupling blocks"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char buf[2048];
        const char *at = strstr(text, bad[i].from);
        assert_non_null(at);
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - text), text, bad[i].to,
                 at + strlen(bad[i].from));
        int rc = ld_model_parse(buf, strlen(buf), "y.yaml", &m, &err);
        if (rc == LD_OK) rc = ld_model_validate(&m, &err), ld_model_free(&m);
        if (rc != LD_EINVAL || !strstr(err.msg, bad[i].msg))
            fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, err.msg, bad[i].msg);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tangents),      cmocka_unit_test(test_rigid_spin),
        cmocka_unit_test(test_gravity_twist), cmocka_unit_test(test_paths),
        cmocka_unit_test(test_curve),         cmocka_unit_test(test_segmented),
        cmocka_unit_test(test_yaml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

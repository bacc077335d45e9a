/*
 * Cosserat rods in the rigid-body models (src/elements/rod.c), in the four Lie formulations: the
 * tangents (g_v, stiffness, B, z) against differences on the group for a bent, moving rod; the
 * force as the gradient of the strain energy and the viscous force's power as the dissipation,
 * both against strains computed here from the nodes' states; zero force at rest, invariance
 * under rigid motions and under the sign of a node's quaternion; the checks of the start; the
 * exact equilibrium of a circular arc (and of a uniform twist) under an end moment; the energy;
 * the sparse structure (mass blocks, B in its pattern) of rigid and rod models; short runs of
 * the shipped rod models in every formulation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#ifndef LD_SOURCE_DIR
#error "LD_SOURCE_DIR must name the source tree (tests/CMakeLists.txt)"
#endif

enum { NLIE = 6 }; /* the Lie-group formulations; quaternion storage at 2, 3, 5 */
static const ld_formulation lie_forms[NLIE] = {LD_FORM_SO3XR3,         LD_FORM_SE3,
                                               LD_FORM_S3XR3,          LD_FORM_S3SDR3,
                                               LD_FORM_SO3XR3_SPATIAL, LD_FORM_S3XR3_SPATIAL};

/* ---------------------------------------------------------------- a rod built in code */

enum { MAXN = 8 };

typedef struct rm {
    ld_model m;
    ld_body b[MAXN + 2];
    ld_rod r[1];
    ld_joint j[1];
    ld_load l[1];
} rm;

/* Distinct section data, so that a mixed-up index shows. */
static const double STIFF[6] = {500.0, 650.0, 420.0, 8e3, 9e3, 1.1e4};
static const double DAMP[6] = {5.0, 6.0, 4.0, 40.0, 55.0, 70.0};
static const double FROM[3] = {0.5, -0.2, 0.3}, TO[3] = {2.0, 1.4, -0.6};

/* A straight rod of n segments from `from` to `to` at rest (e1 along normal, may be NULL). */
static void rm_init(rm *w, int n, const double from[3], const double to[3], const double *normal,
                    int kirchhoff, int damped) {
    memset(w, 0, sizeof *w);
    ld_model_init(&w->m);
    strcpy(w->m.name, "rod");
    ld_rod *r = &w->r[0];
    strcpy(r->name, "rod");
    r->n = n;
    double d[3] = {to[0] - from[0], to[1] - from[1], to[2] - from[2]};
    r->length = norm3(d);
    memcpy(r->stiffness, STIFF, sizeof STIFF);
    if (damped) memcpy(r->damping, DAMP, sizeof DAMP);
    r->kirchhoff = kirchhoff;
    r->rho_a = 1.3;
    r->rho_i[0] = 10.0, r->rho_i[1] = 12.0, r->rho_i[2] = 7.0;
    assert_int_equal(ld_rod_place(r, from, to, normal, w->b), LD_OK);
    w->m.bodies = w->b;
    w->m.nbodies = n + 1;
    w->m.rods = w->r;
    w->m.nrods = 1;
    w->m.joints = w->j;
    w->m.loads = w->l;
    ld_model_error e;
    if (ld_model_validate(&w->m, &e)) fail_msg("%s", e.msg);
}

/* max |A − B| / max(1, max |B|) */
static double rel_diff(const double *A, const double *B, size_t n) {
    double d = 0.0, s = 1.0;
    for (size_t i = 0; i < n; ++i) {
        d = fmax(d, fabs(A[i] - B[i]));
        s = fmax(s, fabs(B[i]));
    }
    return d / s;
}

/* q = q0 ∘ exp(ξ) with random rotations up to rot and translations up to tr; v random. */
static void random_state(const ld_system *s, rng *g, const double *q0, double rot, double tr,
                         double *q, double *v) {
    double *xi = calloc((size_t)s->k, sizeof(double));
    assert_non_null(xi);
    for (int i = 0; i < s->k; ++i) {
        xi[i] = i % 6 < 3 ? rng_range(g, -rot, rot) : rng_range(g, -tr, tr);
        if (v) v[i] = rng_range(g, -1.0, 1.0);
    }
    ld_sys_retract(s, q, q0, xi);
    free(xi);
}

/* ---------------------------------------------------------------- independent strains */

/* Strain w = log(q_a⁻¹ ∘ q_b)/ds of the segment from node body a, from the nodes' states. */
static void strain(const ld_system *s, const double *q, int a, double ds, double w[6]) {
    double zero[12] = {0}, *vz = calloc((size_t)s->k, sizeof(double));
    double xa[3], qa[4], xb[3], qb[4], d[3], g[7], qc[4];
    assert_non_null(vz);
    assert_int_equal(ld_model_body_state(s, a, q, vz, xa, qa, zero, zero + 3), LD_OK);
    assert_int_equal(ld_model_body_state(s, a + 1, q, vz, xb, qb, zero, zero + 3), LD_OK);
    free(vz);
    ld_quat_conj(qc, qa);
    ld_quat_mul(g, qc, qb);
    if (g[0] < 0.0)
        for (int i = 0; i < 4; ++i) g[i] = -g[i];
    for (int i = 0; i < 3; ++i) d[i] = xb[i] - xa[i];
    ld_quat_rotate_inv(g + 4, qa, d);
    ld_s3sdr3_log(w, g);
    for (int i = 0; i < 6; ++i) w[i] /= ds;
}

/* ½ ds Σ (w − w0)ᵀ C (w − w0) from the independent strains. */
static double strain_energy(const ld_system *s, const ld_rod *r, const double *q) {
    double ds = r->length / r->n, V = 0.0, w[6];
    for (int k = 0; k < r->n; ++k) {
        strain(s, q, r->body0 + k, ds, w);
        w[5] -= 1.0;
        for (int i = 0; i < 6; ++i) V += 0.5 * ds * r->stiffness[i] * w[i] * w[i];
    }
    return V;
}

/* ½ Σ Ωᵀ J Ω + m |ẋ|² of the bodies. */
static double kinetic(const ld_system *s, const ld_model *m, const double *q, const double *v) {
    double T = 0.0;
    for (int i = 0; i < m->nbodies; ++i) {
        double x[3], qq[4], om[3], xd[3], Jo[3];
        assert_int_equal(ld_model_body_state(s, i, q, v, x, qq, om, xd), LD_OK);
        for (int r = 0; r < 3; ++r)
            Jo[r] = m->bodies[i].inertia[3 * r] * om[0] + m->bodies[i].inertia[3 * r + 1] * om[1] +
                    m->bodies[i].inertia[3 * r + 2] * om[2];
        T += 0.5 * (om[0] * Jo[0] + om[1] * Jo[1] + om[2] * Jo[2]);
        T += 0.5 * m->bodies[i].mass * (xd[0] * xd[0] + xd[1] * xd[1] + xd[2] * xd[2]);
    }
    return T;
}

/* ---------------------------------------------------------------- tangents */

/* Analytic (or locally differenced) tangents against the system's differences. */
static void check_tangents(const ld_model *m, ld_formulation f, uint64_t seed) {
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(m, f, &s, &q0, &v0), LD_OK);
    size_t k = (size_t)s.k, mm = (size_t)s.m;
    double *buf =
        calloc((size_t)s.nq + 4 * k + mm + 2 * k * k + 2 * mm * k + 2 * mm, sizeof(double));
    assert_non_null(buf);
    double *q = buf, *v = q + s.nq, *a = v + k, *lam = a + k, *XA = lam + mm, *XF = XA + k * k;
    double *BA = XF + k * k, *BF = BA + mm * k, *za = BF + mm * k, *zf = za + mm;
    double *gp = zf + mm, *gm = gp + k;
    rng g = rng_seed(seed);
    random_state(&s, &g, q0, 0.3, 0.1, q, v);
    for (size_t i = 0; i < k; ++i) a[i] = rng_range(&g, -2.0, 2.0);
    for (size_t i = 0; i < mm; ++i) lam[i] = rng_range(&g, -50.0, 50.0);
    const char *fn = ld_formulation_name(f);
    const double t = 0.3;
    assert_int_equal(s.ops.g_v(&s, t, q, v, XA), LD_OK);
    assert_int_equal(ld_sys_g_v_fd(&s, t, q, v, XF), LD_OK);
    double e = rel_diff(XA, XF, k * k);
    if (!(e < 1e-6)) fail_msg("%s: g_v differs from differences by %.3e", fn, e);
    /* g is quadratic in v: a central difference with a large step is exact but for round-off */
    for (size_t j = 0; j < k; ++j) {
        double vj = v[j];
        v[j] = vj + 0.5;
        assert_int_equal(s.ops.force(&s, t, q, v, gp), LD_OK);
        v[j] = vj - 0.5;
        assert_int_equal(s.ops.force(&s, t, q, v, gm), LD_OK);
        v[j] = vj;
        for (size_t i = 0; i < k; ++i) XF[i * k + j] = gp[i] - gm[i];
    }
    e = rel_diff(XA, XF, k * k);
    if (!(e < 1e-10)) fail_msg("%s: g_v differs from wide differences by %.3e", fn, e);
    assert_int_equal(s.ops.stiffness(&s, t, q, v, a, lam, XA), LD_OK);
    assert_int_equal(ld_sys_stiffness_fd(&s, t, q, v, a, lam, XF), LD_OK);
    e = rel_diff(XA, XF, k * k);
    if (!(e < 1e-7)) fail_msg("%s: stiffness differs from differences by %.3e", fn, e);
    if (mm > 0) {
        assert_int_equal(s.ops.phi_q(&s, t, q, BA), LD_OK);
        assert_int_equal(ld_sys_phi_q_fd(&s, t, q, BF), LD_OK);
        e = rel_diff(BA, BF, mm * k);
        if (!(e < 1e-8)) fail_msg("%s: B differs from differences by %.3e", fn, e);
        assert_int_equal(s.ops.phi_dd(&s, t, q, v, za), LD_OK);
        assert_int_equal(ld_sys_phi_dd_fd(&s, t, q, v, zf), LD_OK);
        e = rel_diff(za, zf, mm);
        if (!(e < 1e-7)) fail_msg("%s: z differs from differences by %.3e", fn, e);
    }
    free(buf);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

static void test_tangents(void **state) {
    (void)state;
    for (int kirchhoff = 0; kirchhoff < 2; ++kirchhoff)
        for (int damped = 0; damped < 2; ++damped)
            for (int f = 0; f < NLIE; ++f) {
                rm w;
                rm_init(&w, 3, FROM, TO, NULL, kirchhoff, damped);
                w.m.gravity[2] = -9.81;
                check_tangents(&w.m, lie_forms[f], (uint64_t)(11 + 4 * f + 2 * kirchhoff + damped));
            }
}

/* A stiffness with one segment's coupling block removed is caught by the comparison. */
static void test_tangent_check_detects_errors(void **state) {
    (void)state;
    rm w;
    rm_init(&w, 2, FROM, TO, NULL, 1, 1);
    ld_system s;
    double *q0, *v0, q[21], v[18], a[18] = {0}, lam[4] = {3, -2, 5, 1}, K[324], F[324];
    assert_int_equal(ld_model_compile(&w.m, LD_FORM_S3SDR3, &s, &q0, &v0), LD_OK);
    rng g = rng_seed(5);
    random_state(&s, &g, q0, 0.3, 0.1, q, v);
    assert_int_equal(s.ops.stiffness(&s, 0.0, q, v, a, lam, K), LD_OK);
    assert_int_equal(ld_sys_stiffness_fd(&s, 0.0, q, v, a, lam, F), LD_OK);
    assert_true(rel_diff(K, F, 324) < 1e-7);
    for (int r = 0; r < 6; ++r)
        for (int c = 6; c < 12; ++c) K[18 * r + c] = 0.0;
    assert_true(rel_diff(K, F, 324) > 1e-3);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* ---------------------------------------------------------------- energy and power */

/* g(q, 0)·δ = d/dε V(q ∘ exp(ε δ)) with V from the independent strains; the energy callback is
 * that V at rest, plus the kinetic energy when moving. */
static void test_gradient_and_energy(void **state) {
    (void)state;
    for (int f = 0; f < NLIE; ++f) {
        rm w;
        rm_init(&w, 4, FROM, TO, NULL, 1, 0);
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&w.m, lie_forms[f], &s, &q0, &v0), LD_OK);
        size_t k = (size_t)s.k, nq = (size_t)s.nq;
        double *q = calloc(3 * nq + 4 * k, sizeof(double));
        assert_non_null(q);
        double *qp = q + nq, *qm = qp + nq, *v = qm + nq, *gv = v + k, *d = gv + k, *xi = d + k;
        rng g = rng_seed((uint64_t)(40 + f));
        random_state(&s, &g, q0, 0.4, 0.15, q, v);
        memset(v0, 0, k * sizeof(double));
        assert_int_equal(s.ops.force(&s, 0.0, q, v0, gv), LD_OK);
        double h = 1e-6, gd = 0.0, scale = 0.0;
        for (size_t i = 0; i < k; ++i) d[i] = rng_range(&g, -1.0, 1.0);
        for (size_t i = 0; i < k; ++i) gd += gv[i] * d[i], scale += fabs(gv[i] * d[i]);
        for (size_t i = 0; i < k; ++i) xi[i] = h * d[i];
        ld_sys_retract(&s, qp, q, xi);
        for (size_t i = 0; i < k; ++i) xi[i] = -h * d[i];
        ld_sys_retract(&s, qm, q, xi);
        double dV = (strain_energy(&s, &w.r[0], qp) - strain_energy(&s, &w.r[0], qm)) / (2 * h);
        if (!(fabs(dV - gd) < 1e-7 * scale))
            fail_msg("%s: dV = %.12g, g·δ = %.12g", ld_formulation_name(lie_forms[f]), dV, gd);
        double V = strain_energy(&s, &w.r[0], q), E;
        assert_true(V > 1.0); /* really bent */
        assert_int_equal(s.ops.energy(&s, 0.0, q, v0, &E), LD_OK);
        assert_true(fabs(E - V) < 1e-12 * V);
        assert_int_equal(s.ops.energy(&s, 0.0, q, v, &E), LD_OK);
        double T = kinetic(&s, &w.m, q, v);
        assert_true(T > 0.1);
        assert_true(fabs(E - V - T) < 1e-12 * (V + T));
        free(q);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
}

/* The viscous force's power g_D·v is ds Σ ẇᵀ D ẇ ≥ 0, ẇ differenced from the strains. */
static void test_dissipation(void **state) {
    (void)state;
    for (int f = 0; f < NLIE; ++f) {
        rm wd, w0;
        rm_init(&wd, 4, FROM, TO, NULL, 1, 1);
        rm_init(&w0, 4, FROM, TO, NULL, 1, 0);
        ld_system sd, s0;
        double *q0, *v0, *q1, *v1;
        assert_int_equal(ld_model_compile(&wd.m, lie_forms[f], &sd, &q0, &v0), LD_OK);
        assert_int_equal(ld_model_compile(&w0.m, lie_forms[f], &s0, &q1, &v1), LD_OK);
        size_t k = (size_t)sd.k, nq = (size_t)sd.nq;
        double *q = calloc(3 * nq + 4 * k, sizeof(double));
        assert_non_null(q);
        double *qp = q + nq, *qm = qp + nq, *v = qm + nq, *gd = v + k, *g0 = gd + k, *xi = g0 + k;
        rng g = rng_seed((uint64_t)(70 + f));
        random_state(&sd, &g, q0, 0.4, 0.15, q, v);
        assert_int_equal(sd.ops.force(&sd, 0.0, q, v, gd), LD_OK);
        assert_int_equal(s0.ops.force(&s0, 0.0, q, v, g0), LD_OK);
        double power = 0.0, diss = 0.0, h = 1e-6, ds = wd.r[0].length / wd.r[0].n;
        for (size_t i = 0; i < k; ++i) power += (gd[i] - g0[i]) * v[i];
        for (int sg = -1; sg <= 1; sg += 2) {
            for (size_t i = 0; i < k; ++i) xi[i] = sg * h * v[i];
            ld_sys_retract(&sd, sg < 0 ? qm : qp, q, xi);
        }
        for (int seg = 0; seg < wd.r[0].n; ++seg) {
            double wp[6], wm[6];
            strain(&sd, qp, seg, ds, wp);
            strain(&sd, qm, seg, ds, wm);
            for (int i = 0; i < 6; ++i) {
                double wdot = (wp[i] - wm[i]) / (2 * h);
                diss += ds * DAMP[i] * wdot * wdot;
            }
        }
        assert_true(diss > 1.0);
        if (!(fabs(power - diss) < 1e-7 * diss))
            fail_msg("%s: power %.12g, dissipation %.12g", ld_formulation_name(lie_forms[f]), power,
                     diss);
        free(q);
        free(q0), free(v0), free(q1), free(v1);
        ld_model_system_free(&sd);
        ld_model_system_free(&s0);
    }
}

/* ---------------------------------------------------------------- rest and rigid motions */

/* Node i's rod force in its body frame: (F_θ, F_u), F_u = Rᵀ F_x in the direct products. */
static int spatial_kind(ld_node_kind k) {
    return k == LD_NODE_SO3XR3_SPATIAL || k == LD_NODE_S3XR3_SPATIAL;
}

static void body_frame_force(const ld_system *s, int i, const double *q, const double *gr,
                             double out[6]) {
    double x[3], qq[4], om[3], xd[3], *vz = calloc((size_t)s->k, sizeof(double));
    assert_non_null(vz);
    assert_int_equal(ld_model_body_state(s, i, q, vz, x, qq, om, xd), LD_OK);
    free(vz);
    const double *F = gr + s->nodes[i].voff;
    memcpy(out, F, 6 * sizeof(double));
    ld_node_kind kd = s->nodes[i].kind;
    if (kd != LD_NODE_SE3 && kd != LD_NODE_S3SDR3) ld_quat_rotate_inv(out + 3, qq, F + 3);
    if (spatial_kind(kd)) ld_quat_rotate_inv(out, qq, F); /* the torque of ω = RΩ */
}

/* Every node moved by the same (qh, xh) on the left: q' = qh q, x' = xh + R_h x. */
static void left_move(const ld_system *s, const double *q, const double qh[4], const double xh[3],
                      double *out) {
    double Rh[9];
    ld_quat_to_mat(Rh, qh);
    memcpy(out, q, (size_t)s->nq * sizeof(double));
    for (int i = 0; i < s->nnodes; ++i) {
        const double *a = q + s->nodes[i].qoff;
        double *b = out + s->nodes[i].qoff;
        int quat = s->nodes[i].kind == LD_NODE_S3XR3 || s->nodes[i].kind == LD_NODE_S3SDR3 ||
                   s->nodes[i].kind == LD_NODE_S3XR3_SPATIAL;
        if (quat) {
            ld_quat_mul(b, qh, a);
        } else {
            matmul(b, Rh, a, 3);
        }
        const double *x = a + (quat ? 4 : 9);
        double *y = b + (quat ? 4 : 9), r[3];
        ld_quat_rotate(r, qh, x);
        for (int j = 0; j < 3; ++j) y[j] = xh[j] + r[j];
    }
}

/* Velocities of a rigid motion: spatial angular velocity w, ẋ = c + w × x at every node. */
static void rigid_velocity(const ld_system *s, const double *q, const double w[3],
                           const double c[3], double *v) {
    double *vz = calloc((size_t)s->k, sizeof(double));
    assert_non_null(vz);
    for (int i = 0; i < s->nnodes; ++i) {
        double x[3], qq[4], om[3], xd[3], wx[3];
        assert_int_equal(ld_model_body_state(s, i, q, vz, x, qq, om, xd), LD_OK);
        double *vi = v + s->nodes[i].voff;
        if (spatial_kind(s->nodes[i].kind))
            memcpy(vi, w, 3 * sizeof(double));
        else
            ld_quat_rotate_inv(vi, qq, w);
        wx[0] = c[0] + w[1] * x[2] - w[2] * x[1];
        wx[1] = c[1] + w[2] * x[0] - w[0] * x[2];
        wx[2] = c[2] + w[0] * x[1] - w[1] * x[0];
        ld_node_kind kd = s->nodes[i].kind;
        if (kd == LD_NODE_SE3 || kd == LD_NODE_S3SDR3)
            ld_quat_rotate_inv(vi + 3, qq, wx);
        else
            memcpy(vi + 3, wx, sizeof wx);
    }
    free(vz);
}

/* The rods' force: g of the model minus g of its bodies alone. */
static void rod_force(const ld_system *s, const ld_system *bare, const double *q, const double *v,
                      double *gr, double *tmp) {
    assert_int_equal(s->ops.force(s, 0.0, q, v, gr), LD_OK);
    assert_int_equal(bare->ops.force(bare, 0.0, q, v, tmp), LD_OK);
    for (int i = 0; i < s->k; ++i) gr[i] -= tmp[i];
}

static void test_rest_and_rigid_motion(void **state) {
    (void)state;
    const double qh[4] = {0.6, 0.3, -0.5, 0.54772255750516607}, xh[3] = {1.0, -2.0, 0.5};
    const double wr[3] = {0.7, -1.1, 0.4}, cr[3] = {0.3, 0.2, -0.9};
    for (int f = 0; f < NLIE; ++f) {
        rm w, bare;
        rm_init(&w, 4, FROM, TO, NULL, 1, 1);
        rm_init(&bare, 4, FROM, TO, NULL, 1, 1);
        bare.m.nrods = 0;
        ld_system s, sb;
        double *q0, *v0, *q1, *v1;
        assert_int_equal(ld_model_compile(&w.m, lie_forms[f], &s, &q0, &v0), LD_OK);
        assert_int_equal(ld_model_compile(&bare.m, lie_forms[f], &sb, &q1, &v1), LD_OK);
        size_t k = (size_t)s.k, nq = (size_t)s.nq;
        double *q = calloc(2 * nq + 5 * k, sizeof(double));
        assert_non_null(q);
        double *qm = q + nq, *v = qm + nq, *vm = v + k, *g1 = vm + k, *g2 = g1 + k, *t = g2 + k;
        const char *fn = ld_formulation_name(lie_forms[f]);
        /* straight, at rest: no force; also under a rigid velocity field */
        rod_force(&s, &sb, q0, v0, g1, t);
        assert_true(maxabs(g1, s.k) < 1e-10);
        rigid_velocity(&s, q0, wr, cr, v);
        rod_force(&s, &sb, q0, v, g1, t);
        if (!(maxabs(g1, s.k) < 1e-9))
            fail_msg("%s: rigid velocity: force %g", fn, maxabs(g1, s.k));
        /* bent and moving, then moved rigidly: strains and body-frame forces unchanged */
        rng g = rng_seed((uint64_t)(90 + f));
        random_state(&s, &g, q0, 0.4, 0.15, q, v);
        left_move(&s, q, qh, xh, qm);
        memcpy(vm, v, k * sizeof(double));
        for (int i = 0; i < s.nnodes; ++i) { /* ẋ turns with the motion in the direct products */
            ld_node_kind kd = s.nodes[i].kind;
            if (kd != LD_NODE_SE3 && kd != LD_NODE_S3SDR3)
                ld_quat_rotate(vm + s.nodes[i].voff + 3, qh, v + s.nodes[i].voff + 3);
            if (spatial_kind(kd)) /* and so does ω */
                ld_quat_rotate(vm + s.nodes[i].voff, qh, v + s.nodes[i].voff);
        }
        rod_force(&s, &sb, q, v, g1, t);
        rod_force(&s, &sb, qm, vm, g2, t);
        assert_true(maxabs(g1, s.k) > 10.0);
        for (int i = 0; i < s.nnodes; ++i) {
            double a[6], b[6];
            body_frame_force(&s, i, q, g1, a);
            body_frame_force(&s, i, qm, g2, b);
            if (!(maxabs_diff(a, b, 6) < 1e-9 * maxabs(g1, s.k)))
                fail_msg("%s: node %d: body-frame force changed by %g", fn, i,
                         maxabs_diff(a, b, 6));
        }
        double Va = strain_energy(&s, &w.r[0], q), Vb = strain_energy(&s, &w.r[0], qm);
        assert_true(fabs(Va - Vb) < 1e-10 * Va);
        free(q);
        free(q0), free(v0), free(q1), free(v1);
        ld_model_system_free(&s);
        ld_model_system_free(&sb);
    }
}

/* q and −q are the same node: negating one node's quaternion changes no force or energy. */
static void test_quaternion_sign(void **state) {
    (void)state;
    for (int f = 2; f < NLIE; ++f) {
        if (f == 4) continue; /* rotation matrices */
        rm w;
        rm_init(&w, 4, FROM, TO, NULL, 1, 1);
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&w.m, lie_forms[f], &s, &q0, &v0), LD_OK);
        size_t k = (size_t)s.k, nq = (size_t)s.nq;
        double *q = calloc(2 * nq + 3 * k + 2 * (size_t)s.m, sizeof(double)), E1, E2;
        assert_non_null(q);
        double *qf = q + nq, *v = qf + nq, *g1 = v + k, *g2 = g1 + k, *p1 = g2 + k, *p2 = p1 + s.m;
        rng g = rng_seed((uint64_t)(120 + f));
        random_state(&s, &g, q0, 0.4, 0.15, q, v);
        memcpy(qf, q, nq * sizeof(double));
        for (int i = 0; i < 4; ++i) qf[s.nodes[2].qoff + i] = -qf[s.nodes[2].qoff + i];
        assert_int_equal(s.ops.force(&s, 0.0, q, v, g1), LD_OK);
        assert_int_equal(s.ops.force(&s, 0.0, qf, v, g2), LD_OK);
        assert_true(maxabs_diff(g1, g2, s.k) < 1e-12 * maxabs(g1, s.k));
        assert_int_equal(s.ops.phi(&s, 0.0, q, p1), LD_OK);
        assert_int_equal(s.ops.phi(&s, 0.0, qf, p2), LD_OK);
        assert_true(maxabs_diff(p1, p2, s.m) < 1e-14);
        assert_int_equal(s.ops.energy(&s, 0.0, q, v, &E1), LD_OK);
        assert_int_equal(s.ops.energy(&s, 0.0, qf, v, &E2), LD_OK);
        assert_true(fabs(E1 - E2) < 1e-12 * E1);
        free(q);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
}

/* Compiling checks the Kirchhoff constraints at the start and that the nodes are bodies. */
static void test_initial_checks(void **state) {
    (void)state;
    rm w;
    char msg[256];
    rm_init(&w, 4, FROM, TO, NULL, 1, 0);
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_OK);
    w.b[2].x[2] += 0.01; /* a sheared start */
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_EINVAL);
    if (!strstr(msg, "rod 0 ('rod'): the Kirchhoff constraint") ||
        !strstr(msg, "of segment 1 is not satisfied at the start"))
        fail_msg("%s", msg);
    w.r[0].kirchhoff = 0; /* without the constraints the rod just starts stressed */
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_OK);
    rm_init(&w, 4, FROM, TO, NULL, 1, 0);
    w.b[3].v[2] = 0.5; /* a shearing start velocity */
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_EINVAL);
    if (!strstr(msg, "is violated by the nodes' initial velocities")) fail_msg("%s", msg);
    rm_init(&w, 4, FROM, TO, NULL, 1, 0);
    w.r[0].body0 = 1; /* nodes past the last body */
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_EINVAL);
    if (!strstr(msg, "rods[0].body0: the nodes bodies[1]")) fail_msg("%s", msg);
}

/* ---------------------------------------------------------------- statics */

/* The rod of w bent (axis 0, 1: about body e1, e2) or twisted (axis 2) uniformly by κ, node
 * k = node 0 ∘ exp(k ds (κ e_axis, e3)), clamped at node 0 and loaded by the balancing end
 * moment factor · C_axis κ (spatial). Consistent accelerations at rest must vanish when factor
 * is 1. Returns max |v̇|. */
static double arc_accel(ld_formulation f, int axis, double kappa, double factor) {
    rm w;
    const double from[3] = {0, 0, 0}, to[3] = {10, 0, 0}, ez[3] = {0, 0, 1};
    rm_init(&w, MAXN, from, to, ez, 1, 1);
    const ld_rod *r = &w.r[0];
    double ds = r->length / r->n;
    for (int k = 1; k <= r->n; ++k) {
        double xi[6] = {0, 0, 0, 0, 0, k * ds}, g0[7], e[7], gk[7];
        xi[axis] = k * ds * kappa;
        memcpy(g0, w.b[0].q, 4 * sizeof(double));
        memcpy(g0 + 4, w.b[0].x, 3 * sizeof(double));
        ld_s3sdr3_exp(e, xi);
        ld_s3sdr3_compose(gk, g0, e);
        memcpy(w.b[k].q, gk, 4 * sizeof(double));
        memcpy(w.b[k].x, gk + 4, 3 * sizeof(double));
    }
    if (axis == 1) /* bent about e2 = −y: the circle x = (sin κs, 0, 1 − cos κs)/κ */
        for (int k = 0; k <= r->n; ++k) {
            double sk = k * ds,
                   want[3] = {sin(kappa * sk) / kappa, 0.0, (1.0 - cos(kappa * sk)) / kappa};
            assert_true(maxabs_diff(w.b[k].x, want, 3) < 1e-12);
        }
    ld_joint *j = &w.j[0];
    j->kind = LD_JOINT_FIXED, j->body1 = LD_GROUND, j->body2 = 0;
    strcpy(j->name, "clamp");
    w.m.njoints = 1;
    ld_load *l = &w.l[0];
    l->kind = LD_LOAD_TORQUE, l->body = r->n, l->frame = LD_IN_SPATIAL;
    double mb[3] = {0, 0, 0};
    mb[axis] = factor * r->stiffness[axis] * kappa;
    ld_quat_rotate(l->vec, w.b[0].q, mb); /* e_axis keeps its spatial direction */
    w.m.nloads = 1;
    ld_system s;
    double *q0, *v0;
    char msg[256];
    if (ld_model_check_initial(&w.m, msg, sizeof msg)) fail_msg("%s", msg);
    assert_int_equal(ld_model_compile(&w.m, f, &s, &q0, &v0), LD_OK);
    double *vd = calloc((size_t)(s.k + s.m), sizeof(double)),
           *phi = calloc((size_t)s.m, sizeof(double));
    assert_non_null(vd);
    assert_non_null(phi);
    assert_int_equal(s.ops.phi(&s, 0.0, q0, phi), LD_OK);
    assert_true(maxabs(phi, s.m) < 1e-13);
    assert_int_equal(ld_sys_initial_accel(&s, 0.0, q0, v0, vd, vd + s.k), LD_OK);
    double amax = maxabs(vd, s.k);
    free(vd);
    free(phi);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return amax;
}

static void test_arc_equilibrium(void **state) {
    (void)state;
    const double kappa[3] = {2 * PI / 10.0, -0.4, 0.25};
    for (int f = 0; f < NLIE; ++f)
        for (int axis = 0; axis < 3; ++axis) {
            double a1 = arc_accel(lie_forms[f], axis, kappa[axis], 1.0);
            double a2 = arc_accel(lie_forms[f], axis, kappa[axis], 1.1);
            if (!(a1 < 1e-9 && a2 > 1e-2))
                fail_msg("%s, axis %d: accelerations %g (balanced), %g (10%% more moment)",
                         ld_formulation_name(lie_forms[f]), axis, a1, a2);
        }
}

/* ---------------------------------------------------------------- sparse structure */

static void check_sparse(const ld_model *m, ld_formulation f, const char *label) {
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(m, f, &s, &q0, &v0), LD_OK);
    assert_non_null(s.ops.mass_blocks);
    assert_non_null(s.ops.phi_q_sparse);
    size_t k = (size_t)s.k, mm = (size_t)s.m, nb = (size_t)s.bnnz;
    double *buf = calloc((size_t)s.nq + 2 * k * k + 2 * mm * k + 36 * (size_t)s.nnodes + nb + 1,
                         sizeof(double));
    assert_non_null(buf);
    double *q = buf, *M = q + s.nq, *Ms = M + k * k, *B = Ms + k * k, *Bs = B + mm * k;
    double *Mb = Bs + mm * k, *vals = Mb + 36 * (size_t)s.nnodes;
    rng g = rng_seed(3);
    random_state(&s, &g, q0, 0.5, 0.2, q, NULL);
    /* pattern: in range, sorted by row then column, no duplicates */
    for (size_t e = 0; e < nb; ++e) {
        assert_true(s.brow[e] >= 0 && s.brow[e] < s.m && s.bcol[e] >= 0 && s.bcol[e] < s.k);
        if (e > 0)
            assert_true(s.brow[e] > s.brow[e - 1] ||
                        (s.brow[e] == s.brow[e - 1] && s.bcol[e] > s.bcol[e - 1]));
    }
    assert_int_equal(s.ops.phi_q(&s, 0.4, q, B), LD_OK);
    assert_int_equal(s.ops.phi_q_sparse(&s, 0.4, q, vals), LD_OK);
    for (size_t e = 0; e < nb; ++e) Bs[(size_t)s.brow[e] * k + (size_t)s.bcol[e]] = vals[e];
    for (size_t e = 0; e < mm * k; ++e)
        if (B[e] != Bs[e])
            fail_msg("%s, %s: sparse B differs from dense B at (%zu, %zu): %g, %g", label,
                     ld_formulation_name(f), e / k, e % k, Bs[e], B[e]);
    assert_int_equal(s.ops.mass(&s, q, M), LD_OK);
    assert_int_equal(s.ops.mass_blocks(&s, q, Mb), LD_OK);
    for (int i = 0; i < s.nnodes; ++i)
        for (size_t r = 0; r < 6; ++r)
            for (size_t c = 0; c < 6; ++c)
                Ms[((size_t)s.nodes[i].voff + r) * k + (size_t)s.nodes[i].voff + c] =
                    Mb[36 * (size_t)i + 6 * r + c];
    assert_memory_equal(M, Ms, k * k * sizeof(double));
    free(buf);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

static void load_model(const char *rel, ld_model *m) {
    char path[512];
    ld_model_error e;
    snprintf(path, sizeof path, "%s/%s", LD_SOURCE_DIR, rel);
    if (ld_model_load(path, m, &e)) fail_msg("%s", e.msg);
}

/* A box hung from a rod's node (body1 = the node, after the box in the body order) and the
 * rod clamped: joint columns in both orders, rod rows after the joint rows. */
static const char *const box_rod =
    "bodies:\n"
    "  - {name: box, mass: 2, inertia: [1, 2, 3], position: [3, 0, -1]}\n"
    "rods:\n"
    "  - name: r\n"
    "    segments: 5\n"
    "    from: [0, 0, 0]\n"
    "    to: [4, 0, 0]\n"
    "    stiffness: [5, 5, 5, 100, 100, 100]\n"
    "    rho_a: 1\n"
    "    rho_i: [1, 1, 1]\n"
    "    kirchhoff: true\n"
    "joints:\n"
    "  - {type: fixed, body1: ground, body2: 'r[0]', at: [0, 0, 0]}\n"
    "  - {type: spherical, body1: 'r[3]', body2: box, at: [2.4, 0, 0]}\n"
    "  - {type: revolute, body1: box, body2: 'r[5]', at: [4, 0, 0], axis: [0, 1, 0]}\n";

static void test_sparse_structure(void **state) {
    (void)state;
    const char *files[4] = {"models/heavy-top.yaml", "models/crank-v8.yaml", "models/roll-up.yaml",
                            "models/flying-spaghetti.yaml"};
    for (int i = 0; i < 5; ++i) {
        ld_model m;
        if (i < 4) {
            load_model(files[i], &m);
        } else {
            ld_model_error e;
            if (ld_model_parse(box_rod, strlen(box_rod), "box-rod", &m, &e)) fail_msg("%s", e.msg);
        }
        for (int f = 0; f < NLIE; ++f) check_sparse(&m, lie_forms[f], i < 4 ? files[i] : "box-rod");
        if (i == 0) { /* euler: no sparse structure */
            ld_system s;
            double *q0, *v0;
            assert_int_equal(ld_model_compile(&m, LD_FORM_EULER, &s, &q0, &v0), LD_OK);
            assert_null(s.ops.mass_blocks);
            assert_null(s.ops.phi_q_sparse);
            assert_int_equal(s.bnnz, 0);
            free(q0), free(v0);
            ld_model_system_free(&s);
        }
        ld_model_free(&m);
    }
}

/* ---------------------------------------------------------------- the shipped models */

/* 40 steps of generalized-α from the model's start; q copied out. */
static void run_steps(const ld_model *m, ld_formulation f, int steps, double *x_end,
                      double *phi_max) {
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(m, f, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_GENALPHA;
    o.rho_inf = 0.9;
    int st = 0;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    for (int i = 0; i < steps; ++i)
        if (ld_integ_step(it, m->run.dt * 5))
            fail_msg("%s: step %d: %s", ld_formulation_name(f), i, ld_integ_message(it));
    double *phi = calloc((size_t)s.m, sizeof(double)), qq[4], om[3], xd[3];
    assert_non_null(phi);
    assert_int_equal(s.ops.phi(&s, 0.0, ld_integ_q(it), phi), LD_OK);
    *phi_max = maxabs(phi, s.m);
    int last = m->rods[0].body0 + m->rods[0].n;
    assert_int_equal(
        ld_model_body_state(&s, last, ld_integ_q(it), ld_integ_v(it), x_end, qq, om, xd), LD_OK);
    free(phi);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* Both shipped rod models run in every Lie formulation, agree, and keep the constraints. */
static void test_shipped_models(void **state) {
    (void)state;
    const char *files[2] = {"models/roll-up.yaml", "models/flying-spaghetti.yaml"};
    for (int i = 0; i < 2; ++i) {
        ld_model m;
        load_model(files[i], &m);
        assert_int_equal(m.run.formulation, LD_FORM_S3SDR3);
        double ref[3], x[3], phi;
        for (int f = 0; f < NLIE; ++f) {
            run_steps(&m, lie_forms[f], 40, f ? x : ref, &phi);
            assert_true(phi < 1e-10);
            if (f && !(maxabs_diff(x, ref, 3) < 1e-4))
                fail_msg("%s, %s: end node at %g %g %g, so3xr3 %g %g %g", files[i],
                         ld_formulation_name(lie_forms[f]), x[0], x[1], x[2], ref[0], ref[1],
                         ref[2]);
        }
        ld_system s;
        double *q0 = NULL, *v0 = NULL;
        assert_int_equal(ld_model_compile(&m, LD_FORM_EULER, &s, &q0, &v0), LD_ENOTSUPPORTED);
        ld_model_free(&m);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tangents),
        cmocka_unit_test(test_tangent_check_detects_errors),
        cmocka_unit_test(test_gradient_and_energy),
        cmocka_unit_test(test_dissipation),
        cmocka_unit_test(test_rest_and_rigid_motion),
        cmocka_unit_test(test_quaternion_sign),
        cmocka_unit_test(test_initial_checks),
        cmocka_unit_test(test_arc_equilibrium),
        cmocka_unit_test(test_sparse_structure),
        cmocka_unit_test(test_shipped_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

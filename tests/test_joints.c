/*
 * Joints between two bodies in every formulation: the analytic B, stiffness, z and Φ_t against
 * differences for every kind (also to the ground, and with the bodies in either order), the
 * initial velocity from the joints, physics checks with generalized-α (a revolute pendulum
 * against its one-angle equation, a slider on an incline, rotation and translation drivers,
 * reactions, a fixed joint against one rigid body). The YAML form is in test_joints_yaml.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../src/elements/kinds.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* ---------------------------------------------------------------- models built in code */

typedef struct jm {
    ld_model m;
    ld_body b[3];
    ld_joint j[4];
} jm;

static void jm_init(jm *w) {
    memset(w, 0, sizeof *w);
    ld_model_init(&w->m);
    strcpy(w->m.name, "joints");
    w->m.bodies = w->b;
    w->m.joints = w->j;
}

static void unit3(double u[3], const double a[3]) {
    double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int i = 0; i < 3; ++i) u[i] = a[i] / n;
}

static void cross3(double r[3], const double a[3], const double b[3]) {
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* A body with the spatial angular velocity w (stored as Ω = Rᵀ w); velocity not given. */
static int add_body(jm *w, const char *name, double mass, const double J[9], const double x[3],
                    const double q[4], const double wsp[3]) {
    ld_body *b = &w->b[w->m.nbodies];
    memset(b, 0, sizeof *b);
    strcpy(b->name, name);
    b->mass = mass;
    memcpy(b->inertia, J, sizeof b->inertia);
    memcpy(b->x, x, sizeof b->x);
    assert_int_equal(ld_quat_normalize(b->q, q), LD_OK);
    double qc[4];
    ld_quat_conj(qc, b->q);
    ld_quat_rotate(b->omega, qc, wsp);
    return w->m.nbodies++;
}

static ld_joint *add_joint(jm *w, const char *name, ld_joint_kind kind, int b1, int b2,
                           const double at[3], const double axis[3]) {
    ld_joint *j = &w->j[w->m.njoints++];
    memset(j, 0, sizeof *j);
    strcpy(j->name, name);
    j->kind = kind;
    j->body1 = b1;
    j->body2 = b2;
    if (at) memcpy(j->at, at, sizeof j->at);
    if (axis) unit3(j->axis, axis);
    return j;
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

static const double JA[9] = {2.0, 0.1, 0.0, 0.1, 3.0, 0.2, 0.0, 0.2, 4.0};
static const double JB[9] = {1.0, 0.0, 0.05, 0.0, 1.5, 0.0, 0.05, 0.0, 0.7};
static const double XA[3] = {0.3, -0.2, 1.1}, QA[4] = {0.8, 0.2, -0.4, 0.4};
static const double XB[3] = {1.0, 0.6, 0.4}, QB[4] = {0.7, -0.1, 0.5, 0.5};
static const double AT[3] = {0.7, 0.1, 0.9}, AXIS[3] = {1.0, 2.0, -0.5};
static const double W1[3] = {0.4, -0.3, 0.2}; /* body1's spatial angular velocity */

/* ---------------------------------------------------------------- tangents */

typedef struct variant {
    const char *name;
    ld_joint_kind kind;
    ld_motion_kind motion;
    ld_tfn_kind shape;
} variant;

static const variant variants[] = {
    {"spherical", LD_JOINT_SPHERICAL, LD_MOTION_ROTATION, LD_TFN_CONSTANT},
    {"universal", LD_JOINT_UNIVERSAL, LD_MOTION_ROTATION, LD_TFN_CONSTANT},
    {"revolute", LD_JOINT_REVOLUTE, LD_MOTION_ROTATION, LD_TFN_CONSTANT},
    {"cylindrical", LD_JOINT_CYLINDRICAL, LD_MOTION_ROTATION, LD_TFN_CONSTANT},
    {"prismatic", LD_JOINT_PRISMATIC, LD_MOTION_ROTATION, LD_TFN_CONSTANT},
    {"fixed", LD_JOINT_FIXED, LD_MOTION_ROTATION, LD_TFN_CONSTANT},
    {"rotation driver, linear", LD_JOINT_DRIVER, LD_MOTION_ROTATION, LD_TFN_LINEAR},
    {"rotation driver, sine", LD_JOINT_DRIVER, LD_MOTION_ROTATION, LD_TFN_SINE},
    {"translation driver, linear", LD_JOINT_DRIVER, LD_MOTION_TRANSLATION, LD_TFN_LINEAR},
    {"translation driver, sine", LD_JOINT_DRIVER, LD_MOTION_TRANSLATION, LD_TFN_SINE},
};
#define NVARIANTS (sizeof variants / sizeof *variants)

/* Bodies a (0) and b (1) in generic poses and one joint of the variant between body1 and
 * body2 (LD_GROUND allowed for body1); angular velocities that the joint allows. */
static void build_pair(jm *w, const variant *va, int b1, int b2) {
    jm_init(w);
    double ax[3], rate = 0.0;
    unit3(ax, AXIS);
    ld_tfn fn = {.kind = va->shape, .period = 3.0};
    double fd[3];
    ld_tfn_eval_d(&fn, 0.0, fd);
    const double value = 0.8;
    if (va->kind == LD_JOINT_DRIVER)
        rate = va->motion == LD_MOTION_ROTATION ? value * fd[1] : 0.0;
    else if (va->kind != LD_JOINT_PRISMATIC && va->kind != LD_JOINT_FIXED)
        rate = 0.7;
    /* spatial angular velocities: body1 W1 (the ground: 0), body2 that plus rate · axis; a
     * body not in the joint W1 */
    double wsp[2][3];
    for (int i = 0; i < 3; ++i) {
        double w1 = b1 == LD_GROUND ? 0.0 : W1[i];
        wsp[b2][i] = w1 + rate * ax[i];
        wsp[1 - b2][i] = W1[i];
    }
    add_body(w, "a", 2.5, JA, XA, QA, wsp[0]);
    add_body(w, "b", 1.5, JB, XB, QB, wsp[1]);
    ld_joint *j = add_joint(w, "j", va->kind, b1, b2, AT, AXIS);
    double ez[3] = {0, 0, 1}, a2[3];
    cross3(a2, ax, ez);
    unit3(j->axis2, a2);
    j->motion = va->motion;
    j->value = value;
    j->fn = fn;
}

/* Analytic tangents against differences at a state away from the initial one; the initial
 * velocity satisfies B v + Φ_t = 0. */
static void check_tangents(jm *w, ld_formulation f, const char *label) {
    ld_system s;
    double *q0, *v0;
    char msg[256];
    int rc = ld_model_check_initial(&w->m, msg, sizeof msg);
    if (rc) fail_msg("%s, %s: %s", label, ld_formulation_name(f), msg);
    assert_int_equal(ld_model_compile(&w->m, f, &s, &q0, &v0), LD_OK);
    const ld_jsys *J = ld_rb(&s)->J;
    size_t k = (size_t)s.k, mm = (size_t)s.m, nj = (size_t)ld_jsys_rows(J);
    double *buf =
        calloc((size_t)s.nq * 2 + 3 * k + 3 * mm + 2 * k * k + 3 * mm * k + 4 * mm, sizeof(double));
    assert_non_null(buf);
    double *q = buf, *qs = q + s.nq, *v = qs + s.nq, *a = v + k, *xi = a + k, *lam = xi + k;
    double *KA = lam + mm, *KF = KA + k * k, *BA = KF + k * k, *BF = BA + mm * k, *Bt = BF + mm * k;
    double *za = Bt + mm * k, *zf = za + mm, *p1 = zf + mm, *p2 = p1 + mm;
    /* B v0 + Φ_t = 0 at the start */
    assert_int_equal(s.ops.phi_q(&s, 0.0, q0, BA), LD_OK);
    assert_int_equal(ld_jsys_phi_t(J, &s, 0.0, q0, p1), LD_OK);
    for (size_t r = 0; r < nj; ++r) {
        double res = p1[r];
        for (size_t c = 0; c < k; ++c) res += BA[r * k + c] * v0[c];
        if (!(fabs(res) < 1e-12))
            fail_msg("%s, %s: initial velocity: row %zu: %g", label, ld_formulation_name(f), r,
                     res);
    }
    /* a state away from the start */
    rng g = rng_seed(17);
    for (size_t i = 0; i < k; ++i) {
        xi[i] = rng_range(&g, -0.6, 0.6);
        v[i] = v0[i] + rng_range(&g, -1.0, 1.0);
        a[i] = rng_range(&g, -2.0, 2.0);
    }
    for (size_t i = 0; i < mm; ++i) lam[i] = rng_range(&g, -20.0, 20.0);
    ld_sys_retract(&s, q, q0, xi);
    const double t = 0.7, h = 1e-6;
    const char *fn = ld_formulation_name(f);
    assert_int_equal(s.ops.phi_q(&s, t, q, BA), LD_OK);
    assert_int_equal(ld_sys_phi_q_fd(&s, t, q, BF), LD_OK);
    double e = rel_diff(BA, BF, mm * k);
    if (!(e < 1e-8)) fail_msg("%s, %s: B differs from differences by %.3e", label, fn, e);
    assert_int_equal(s.ops.stiffness(&s, t, q, v, a, lam, KA), LD_OK);
    assert_int_equal(ld_sys_stiffness_fd(&s, t, q, v, a, lam, KF), LD_OK);
    e = rel_diff(KA, KF, k * k);
    if (!(e < 1e-8)) fail_msg("%s, %s: stiffness differs from differences by %.3e", label, fn, e);
    /* Φ_t against a time difference of Φ */
    assert_int_equal(ld_jsys_phi_t(J, &s, t, q, za), LD_OK);
    assert_int_equal(s.ops.phi(&s, t + h, q, p1), LD_OK);
    assert_int_equal(s.ops.phi(&s, t - h, q, p2), LD_OK);
    for (size_t r = 0; r < nj; ++r) zf[r] = (p1[r] - p2[r]) / (2 * h);
    e = rel_diff(za, zf, nj);
    if (!(e < 1e-8)) fail_msg("%s, %s: phi_t differs from differences by %.3e", label, fn, e);
    /* z = ld_sys_phi_dd_fd (B v along q ∘ exp(τ v) at t + τ) + d/dτ Φ_t(t + τ, q ∘ exp(τ v)) */
    assert_int_equal(s.ops.phi_dd(&s, t, q, v, za), LD_OK);
    assert_int_equal(ld_sys_phi_dd_fd(&s, t, q, v, zf), LD_OK);
    for (int sg = -1; sg <= 1; sg += 2) {
        for (size_t i = 0; i < k; ++i) xi[i] = sg * h * v[i];
        ld_sys_retract(&s, qs, q, xi);
        assert_int_equal(ld_jsys_phi_t(J, &s, t + sg * h, qs, sg < 0 ? p2 : p1), LD_OK);
    }
    for (size_t r = 0; r < nj; ++r) zf[r] += (p1[r] - p2[r]) / (2 * h);
    e = rel_diff(za, zf, mm);
    if (!(e < 1e-7)) fail_msg("%s, %s: phi_dd differs from differences by %.3e", label, fn, e);
    free(buf);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

static void test_tangents(void **state) {
    (void)state;
    const int pairs[3][2] = {{0, 1}, {LD_GROUND, 1}, {1, 0}};
    for (size_t v = 0; v < NVARIANTS; ++v)
        for (int p = 0; p < 3; ++p)
            for (int f = 0; f < LD_FORM_COUNT; ++f) {
                jm w;
                char label[128];
                build_pair(&w, &variants[v], pairs[p][0], pairs[p][1]);
                snprintf(label, sizeof label, "%s, body1 %d, body2 %d", variants[v].name,
                         pairs[p][0], pairs[p][1]);
                check_tangents(&w, (ld_formulation)f, label);
            }
}

/* The stiffness check sees a missing coupling term: two bodies' blocks of K are zeroed. */
static void test_tangent_check_detects_errors(void **state) {
    (void)state;
    jm w;
    build_pair(&w, &variants[2], 0, 1); /* revolute between a and b */
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&w.m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    double K[144], F[144], a[12] = {0}, lam[5] = {3, -2, 5, 1, -4}, q[24], xi[12];
    for (int i = 0; i < 12; ++i) xi[i] = 0.1 * (i % 5) - 0.2;
    ld_sys_retract(&s, q, q0, xi);
    assert_int_equal(s.ops.stiffness(&s, 0.0, q, v0, a, lam, K), LD_OK);
    assert_int_equal(ld_sys_stiffness_fd(&s, 0.0, q, v0, a, lam, F), LD_OK);
    assert_true(rel_diff(K, F, 144) < 1e-8);
    for (int r = 0; r < 6; ++r)
        for (int c = 6; c < 12; ++c) K[12 * r + c] = 0.0;
    assert_true(rel_diff(K, F, 144) > 1e-3);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* ---------------------------------------------------------------- initial velocity, rows */

/* ground –(shoulder, revolute)– a –(elbow, revolute)– b, a driver, a spherical joint. */
static void build_chain(jm *w) {
    jm_init(w);
    double ax[3];
    unit3(ax, AXIS);
    double w2[3];
    for (int i = 0; i < 3; ++i) w2[i] = 0.5 * ax[i] + 1.2 * ax[i];
    add_body(w, "a", 2.5, JA, XA, QA, (double[3]){0.5 * ax[0], 0.5 * ax[1], 0.5 * ax[2]});
    add_body(w, "b", 1.5, JB, XB, QB, w2);
    add_joint(w, "shoulder", LD_JOINT_REVOLUTE, LD_GROUND, 0, (double[3]){0, 0, 1}, AXIS);
    add_joint(w, "elbow", LD_JOINT_REVOLUTE, 0, 1, AT, AXIS);
}

static void test_initial_velocity(void **state) {
    (void)state;
    jm w;
    build_chain(&w);
    char msg[256];
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_OK);
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0, x[3], qq[4], om[3], xd[3], xd0[3];
        assert_int_equal(ld_model_compile(&w.m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
        /* a turns about the shoulder axis through (0, 0, 1): ẋ = ω × (x − p) */
        assert_int_equal(ld_model_body_state(&s, 0, q0, v0, x, qq, om, xd), LD_OK);
        double ax[3], wa[3], r[3], want[3];
        unit3(ax, AXIS);
        for (int i = 0; i < 3; ++i) wa[i] = 0.5 * ax[i], r[i] = XA[i] - (i == 2 ? 1.0 : 0.0);
        cross3(want, wa, r);
        for (int i = 0; i < 3; ++i) assert_true(fabs(xd[i] - want[i]) < 1e-12);
        /* b: the elbow point moves with a, b turns about it */
        assert_int_equal(ld_model_body_state(&s, 1, q0, v0, x, qq, om, xd0), LD_OK);
        double pa[3], pb[3], va[3], vb[3], w2[3];
        for (int i = 0; i < 3; ++i) pa[i] = AT[i] - (i == 2 ? 1.0 : 0.0), pb[i] = AT[i] - XB[i];
        cross3(va, wa, pa);
        for (int i = 0; i < 3; ++i) w2[i] = 1.7 * ax[i];
        cross3(vb, w2, pb);
        for (int i = 0; i < 3; ++i) assert_true(fabs(xd0[i] - (va[i] - vb[i])) < 1e-12);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    /* a velocity of b that the elbow does not allow */
    w.b[1].has_v = 1;
    w.b[1].v[0] = 1.0;
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_EINVAL);
    if (!strstr(msg, "body 'b': the given velocity contradicts joint 1 ('elbow')"))
        fail_msg("%s", msg);
    /* an angular velocity of b that the elbow does not allow */
    w.b[1].has_v = 0;
    w.b[1].omega[0] += 0.1;
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_EINVAL);
    assert_non_null(
        strstr(msg, "body 'b': the given angular velocity contradicts joint 1 ('elbow')"));
}

static void test_rows_and_closure(void **state) {
    (void)state;
    jm w;
    build_chain(&w);
    ld_joint *d = add_joint(&w, "drive", LD_JOINT_DRIVER, LD_GROUND, 0, NULL, AXIS);
    d->motion = LD_MOTION_ROTATION;
    d->value = 0.5;
    d->fn.kind = LD_TFN_LINEAR;
    add_joint(&w, "ball", LD_JOINT_SPHERICAL, 0, 1, AT, NULL);
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&w.m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
        const ld_jsys *J = ld_rb(&s)->J;
        int r0 = -1;
        const int want_n[4] = {5, 5, 1, 3}, want_r0[4] = {0, 5, 10, 11};
        for (int j = 0; j < 4; ++j) {
            assert_int_equal(ld_jsys_joint_rows(J, j, &r0), want_n[j]);
            assert_int_equal(r0, want_r0[j]);
        }
        assert_int_equal(ld_jsys_rows(J), 14);
        /* the ball repeats the elbow's three point equations: left out of the system */
        int jr[4], rr[4];
        assert_int_equal(ld_model_redundant_rows(&s, jr, rr, 4), 3);
        for (int i = 0; i < 3; ++i) assert_true(jr[i] == 3 && rr[i] == i);
        assert_int_equal(s.m, 11 + (f == LD_FORM_EULER ? 2 : 0));
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    /* a driver whose value · f(t_start) is not zero is not closed at the start */
    char msg[256];
    d->fn.kind = LD_TFN_CONSTANT;
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_EINVAL);
    assert_non_null(strstr(msg, "joint 2 ('drive') is not closed at the start: the driven "));
    assert_non_null(strstr(msg, "(its value at t_start must be 0)"));
    d->fn.kind = LD_TFN_LINEAR;
    w.m.run.t_start = 0.1;
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_EINVAL);
    d->fn.t0 = 0.1;
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_OK);
    /* bad joints built in code */
    w.j[3].body1 = 1;
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_EINVAL);
    assert_non_null(strstr(msg, "joints[3].body2: must differ from body1"));
    w.j[3].body1 = 0;
    w.j[1].axis[0] = w.j[1].axis[1] = w.j[1].axis[2] = 0.0;
    assert_int_equal(ld_model_check_initial(&w.m, msg, sizeof msg), LD_EINVAL);
    assert_non_null(strstr(msg, "joints[1].axis: must be a unit vector"));
}

/* ---------------------------------------------------------------- integration */

/* Generalized-α (ρ∞ = 0.9) from the model's initial state to t1 in steps of h; q, v copied
 * out (nq, k). */
static void integrate(const ld_model *m, ld_formulation f, double h, double t1, ld_system *s,
                      double **q, double **v) {
    double *q0, *v0;
    assert_int_equal(ld_model_compile(m, f, s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = LD_INTEG_GENALPHA;
    o.rho_inf = 0.9;
    int st = 0;
    ld_integ *it = ld_integ_create(s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    long n = lround(t1 / h);
    for (long i = 0; i < n; ++i) {
        int rc = ld_integ_step(it, h);
        if (rc) fail_msg("%s: step %ld: %s", ld_formulation_name(f), i, ld_integ_message(it));
    }
    memcpy(q0, ld_integ_q(it), (size_t)s->nq * sizeof(double));
    memcpy(v0, ld_integ_v(it), (size_t)s->k * sizeof(double));
    ld_integ_free(it);
    *q = q0;
    *v = v0;
}

/* The rotation vector of q ∘ q0* (spatial increment). */
static void increment(double psi[3], const double q[4], const double q0[4]) {
    double c[4], r[4];
    ld_quat_conj(c, q0);
    ld_quat_mul(r, q, c);
    ld_quat_to_rotvec(psi, r);
}

/* The pendulum's angle about n: θ̈ = n · (r(θ) × m g) / J_n, r(θ) = Rot(n, θ) r0 (RK4). */
static double pendulum_angle(const double n[3], const double r0[3], double m, const double g[3],
                             double Jn, double th, double om, double t1) {
    const int N = 20000;
    double h = t1 / N;
    for (int i = 0; i < N; ++i) {
        double k1[2], k2[2], k3[2], k4[2], y[2] = {th, om};
        double *ks[4] = {k1, k2, k3, k4};
        for (int st = 0; st < 4; ++st) {
            double c = st == 0 ? 0.0 : st == 3 ? 1.0 : 0.5, yt[2];
            for (int j = 0; j < 2; ++j) yt[j] = y[j] + (st ? c * h * ks[st - 1][j] : 0.0);
            double psi[3], qr[4], r[3], mg[3], tq[3];
            for (int j = 0; j < 3; ++j) psi[j] = yt[0] * n[j], mg[j] = m * g[j];
            ld_quat_from_rotvec(qr, psi);
            ld_quat_rotate(r, qr, r0);
            cross3(tq, r, mg);
            ks[st][0] = yt[1];
            ks[st][1] = dot3(n, tq) / Jn;
        }
        th += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]);
        om += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]);
    }
    return th;
}

/* J_O n · n for the body's inertia about the point O: R J Rᵀ + m (|r|² I − r rᵀ). */
static double axis_inertia(const ld_body *b, const double n[3], const double r[3]) {
    double Jn[3], Rn[3], qc[4];
    ld_quat_conj(qc, b->q);
    ld_quat_rotate(Rn, qc, n); /* body-frame n */
    for (int i = 0; i < 3; ++i)
        Jn[i] = b->inertia[3 * i] * Rn[0] + b->inertia[3 * i + 1] * Rn[1] +
                b->inertia[3 * i + 2] * Rn[2];
    double rn = dot3(r, n);
    return dot3(Rn, Jn) + b->mass * (dot3(r, r) - rn * rn);
}

static void test_revolute_pendulum(void **state) {
    (void)state;
    jm w;
    jm_init(&w);
    double n[3], at[3] = {0.2, -0.1, 1.5}, r0[3], q0b[4];
    unit3(n, (double[3]){0.3, 1.0, 0.2});
    w.m.gravity[2] = -9.81;
    add_body(&w, "bob", 2.0, JB, XB, QB, (double[3]){1.5 * n[0], 1.5 * n[1], 1.5 * n[2]});
    add_joint(&w, "hinge", LD_JOINT_REVOLUTE, LD_GROUND, 0, at, n);
    for (int i = 0; i < 3; ++i) r0[i] = XB[i] - at[i];
    double Jn = axis_inertia(&w.b[0], n, r0);
    const double T = 1.0;
    double th = pendulum_angle(n, r0, 2.0, w.m.gravity, Jn, 0.0, 1.5, T);
    assert_true(fabs(th) > 0.3 && fabs(th) < 3.0); /* a real swing */
    double ref[7];
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q, *v, x[3], qq[4], om[3], xd[3], psi[3];
        integrate(&w.m, (ld_formulation)f, 1e-3, T, &s, &q, &v);
        assert_int_equal(ld_model_body_state(&s, 0, q, v, x, qq, om, xd), LD_OK);
        memcpy(q0b, w.b[0].q, sizeof q0b);
        increment(psi, qq, q0b);
        for (int i = 0; i < 3; ++i)
            if (!(fabs(psi[i] - th * n[i]) < 1e-4))
                fail_msg("%s: rotation %g %g %g, the pendulum equation gives %g along n",
                         ld_formulation_name((ld_formulation)f), psi[0], psi[1], psi[2], th);
        /* the joint point stays put; every formulation gives the same motion */
        double qc[4], pb[3], Rp[3];
        ld_quat_conj(qc, q0b);
        ld_quat_rotate(pb, qc, (double[3]){-r0[0], -r0[1], -r0[2]}); /* body frame: at − x */
        ld_quat_rotate(Rp, qq, pb);
        for (int i = 0; i < 3; ++i) assert_true(fabs(x[i] + Rp[i] - at[i]) < 1e-9);
        if (f == 0) {
            memcpy(ref, x, 3 * sizeof(double));
            memcpy(ref + 3, qq, 4 * sizeof(double));
        }
        for (int i = 0; i < 3; ++i) assert_true(fabs(x[i] - ref[i]) < 1e-4);
        free(q);
        free(v);
        ld_model_system_free(&s);
    }
}

/* A prismatic joint along an incline of slope β: s = ½ g sin β t², no rotation. */
static void test_prismatic_incline(void **state) {
    (void)state;
    const double beta = 0.4, g = 9.81, T = 1.0;
    double d[3] = {cos(beta), 0.0, -sin(beta)};
    jm w;
    jm_init(&w);
    w.m.gravity[2] = -g;
    add_body(&w, "slider", 3.0, JA, XA, QA, (double[3]){0, 0, 0});
    add_joint(&w, "rail", LD_JOINT_PRISMATIC, LD_GROUND, 0, AT, d);
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q, *v, x[3], qq[4], om[3], xd[3], psi[3];
        integrate(&w.m, (ld_formulation)f, 1e-3, T, &s, &q, &v);
        assert_int_equal(ld_model_body_state(&s, 0, q, v, x, qq, om, xd), LD_OK);
        double sv = 0.5 * g * sin(beta) * T * T;
        for (int i = 0; i < 3; ++i)
            if (!(fabs(x[i] - (XA[i] + sv * d[i])) < 1e-8))
                fail_msg("%s: x[%d] = %.12g, expected %.12g",
                         ld_formulation_name((ld_formulation)f), i, x[i], XA[i] + sv * d[i]);
        increment(psi, qq, w.b[0].q);
        for (int i = 0; i < 3; ++i) assert_true(fabs(psi[i]) < 1e-9);
        for (int i = 0; i < 3; ++i) assert_true(fabs(xd[i] - g * sin(beta) * T * d[i]) < 1e-8);
        free(q);
        free(v);
        ld_model_system_free(&s);
    }
}

/* A revolute joint with a rotation driver (f = t): the body turns by value · t about the
 * axis, under gravity; a prismatic joint with a sine translation driver moves by
 * value sin(2π t/P). */
static void test_drivers(void **state) {
    (void)state;
    const double value = 2.0, T = 1.0;
    double n[3];
    unit3(n, AXIS);
    jm w;
    jm_init(&w);
    w.m.gravity[2] = -9.81;
    add_body(&w, "crank", 2.0, JB, XB, QB, (double[3]){value * n[0], value * n[1], value * n[2]});
    add_joint(&w, "bearing", LD_JOINT_REVOLUTE, LD_GROUND, 0, AT, n);
    ld_joint *dr = add_joint(&w, "motor", LD_JOINT_DRIVER, LD_GROUND, 0, NULL, n);
    dr->motion = LD_MOTION_ROTATION;
    dr->value = value;
    dr->fn.kind = LD_TFN_LINEAR;
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q, *v, x[3], qq[4], om[3], xd[3], psi[3];
        integrate(&w.m, (ld_formulation)f, 1e-3, T, &s, &q, &v);
        assert_int_equal(ld_model_body_state(&s, 0, q, v, x, qq, om, xd), LD_OK);
        increment(psi, qq, w.b[0].q);
        for (int i = 0; i < 3; ++i)
            if (!(fabs(psi[i] - value * T * n[i]) < 1e-8))
                fail_msg("%s: rotation %.12g, expected %.12g along the axis",
                         ld_formulation_name((ld_formulation)f), dot3(psi, n), value * T);
        double wsp[3];
        ld_quat_rotate(wsp, qq, om);
        for (int i = 0; i < 3; ++i) assert_true(fabs(wsp[i] - value * n[i]) < 1e-6);
        free(q);
        free(v);
        ld_model_system_free(&s);
    }
    /* translation: x = x0 + value sin(2π t/P) d, with its consistent start velocity */
    jm_init(&w);
    double d[3];
    unit3(d, (double[3]){0.0, 1.0, 1.0});
    add_body(&w, "piston", 1.0, JA, XA, QA, (double[3]){0, 0, 0});
    add_joint(&w, "cylinder", LD_JOINT_PRISMATIC, LD_GROUND, 0, AT, d);
    dr = add_joint(&w, "actuator", LD_JOINT_DRIVER, LD_GROUND, 0, AT, d);
    dr->motion = LD_MOTION_TRANSLATION;
    dr->value = 0.3;
    dr->fn.kind = LD_TFN_SINE;
    dr->fn.period = 0.8;
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q, *v, x[3], qq[4], om[3], xd[3];
        integrate(&w.m, (ld_formulation)f, 1e-3, 0.5, &s, &q, &v);
        assert_int_equal(ld_model_body_state(&s, 0, q, v, x, qq, om, xd), LD_OK);
        double sv = 0.3 * sin(2 * PI * 0.5 / 0.8),
               sd = 0.3 * 2 * PI / 0.8 * cos(2 * PI * 0.5 / 0.8);
        for (int i = 0; i < 3; ++i) {
            assert_true(fabs(x[i] - (XA[i] + sv * d[i])) < 1e-9);
            assert_true(fabs(xd[i] - sd * d[i]) < 1e-3); /* the velocity to O(h²) */
        }
        free(q);
        free(v);
        ld_model_system_free(&s);
    }
}

/* ---------------------------------------------------------------- reactions */

static void reaction(const ld_model *m, ld_formulation f, int j, double fr[3], double tau[3]) {
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(m, f, &s, &q0, &v0), LD_OK);
    double *vd = calloc((size_t)s.k + (size_t)s.m, sizeof(double));
    assert_non_null(vd);
    assert_int_equal(ld_sys_initial_accel(&s, 0.0, q0, v0, vd, vd + s.k), LD_OK);
    assert_int_equal(ld_model_joint_reaction(&s, j, q0, vd + s.k, fr, tau), LD_OK);
    assert_int_equal(ld_model_joint_reaction(&s, m->njoints, q0, vd + s.k, fr, tau), LD_EINVAL);
    assert_int_equal(ld_model_joint_reaction(&s, j, q0, vd + s.k, fr, tau), LD_OK);
    free(vd);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

static void test_reactions(void **state) {
    (void)state;
    const ld_joint_kind holding[4] = {LD_JOINT_SPHERICAL, LD_JOINT_UNIVERSAL, LD_JOINT_REVOLUTE,
                                      LD_JOINT_FIXED};
    /* a body hanging at rest below its joint: m g upwards, no torque */
    for (int kk = 0; kk < 4; ++kk)
        for (int f = 0; f < LD_FORM_COUNT; ++f) {
            jm w;
            jm_init(&w);
            w.m.gravity[2] = -9.81;
            add_body(&w, "bob", 2.0, JA, XA, QA, (double[3]){0, 0, 0});
            double at[3] = {XA[0], XA[1], XA[2] + 0.8}, ax2[3] = {0, 0, 1};
            ld_joint *j =
                add_joint(&w, "pivot", holding[kk], LD_GROUND, 0, at, (double[3]){1, 0, 0});
            memcpy(j->axis2, ax2, sizeof ax2);
            double fr[3], tau[3];
            reaction(&w.m, (ld_formulation)f, 0, fr, tau);
            for (int i = 0; i < 3; ++i) {
                double want = i == 2 ? 2.0 * 9.81 : 0.0;
                if (!(fabs(fr[i] - want) < 1e-9 && fabs(tau[i]) < 1e-9))
                    fail_msg("%s, %s: force %g %g %g, torque %g %g %g",
                             ld_joint_kind_name(holding[kk]),
                             ld_formulation_name((ld_formulation)f), fr[0], fr[1], fr[2], tau[0],
                             tau[1], tau[2]);
            }
        }
    /* a body turning at a constant rate ω about a fixed axis (no gravity): the centripetal
     * force −m ω² r⊥ and the torque ω × J_s ω about its centre of mass; also with the axis
     * held by another body (body2 is then the turning body) */
    for (int f = 0; f < LD_FORM_COUNT; ++f)
        for (int carrier = 0; carrier < 2; ++carrier) {
            jm w;
            jm_init(&w);
            double n[3], wv[3], r[3], rp[3];
            unit3(n, AXIS);
            for (int i = 0; i < 3; ++i) wv[i] = 3.0 * n[i];
            int b = 0;
            if (carrier) { /* a heavy frame at rest, held by a fixed joint */
                add_body(&w, "frame", 5.0, JA, XA, QA, (double[3]){0, 0, 0});
                add_joint(&w, "weld", LD_JOINT_FIXED, LD_GROUND, 0, XA, NULL);
                b = 1;
            }
            add_body(&w, "rotor", 2.0, JB, XB, QB, wv);
            add_joint(&w, "axle", LD_JOINT_REVOLUTE, carrier ? 0 : LD_GROUND, b, AT, AXIS);
            for (int i = 0; i < 3; ++i) r[i] = XB[i] - AT[i];
            double rn = dot3(r, n), Jw[3], tq[3], Jw_b[3], wb[3], qc[4];
            for (int i = 0; i < 3; ++i) rp[i] = r[i] - rn * n[i];
            ld_quat_conj(qc, w.b[b].q);
            ld_quat_rotate(wb, qc, wv);
            for (int i = 0; i < 3; ++i)
                Jw_b[i] = JB[3 * i] * wb[0] + JB[3 * i + 1] * wb[1] + JB[3 * i + 2] * wb[2];
            ld_quat_rotate(Jw, w.b[b].q, Jw_b);
            cross3(tq, wv, Jw);
            double fr[3], tau[3];
            reaction(&w.m, (ld_formulation)f, carrier, fr, tau);
            for (int i = 0; i < 3; ++i)
                if (!(fabs(fr[i] + 2.0 * 9.0 * rp[i]) < 1e-9 && fabs(tau[i] - tq[i]) < 1e-9))
                    fail_msg("%s, carrier %d: force %g %g %g (want %g %g %g), torque %g %g %g "
                             "(want %g %g %g)",
                             ld_formulation_name((ld_formulation)f), carrier, fr[0], fr[1], fr[2],
                             -18 * rp[0], -18 * rp[1], -18 * rp[2], tau[0], tau[1], tau[2], tq[0],
                             tq[1], tq[2]);
        }
}

/* A crank driven at a constant rate under gravity, at θ = 2 rad: the driver's reaction is a
 * pure torque along the axis that cancels gravity's moment about it (θ̈ = 0). */
static void test_driver_reaction(void **state) {
    (void)state;
    const double value = 2.0, T = 1.0, m = 2.0;
    double n[3];
    unit3(n, AXIS);
    jm w;
    jm_init(&w);
    w.m.gravity[2] = -9.81;
    add_body(&w, "crank", m, JB, XB, QB, (double[3]){value * n[0], value * n[1], value * n[2]});
    add_joint(&w, "bearing", LD_JOINT_REVOLUTE, LD_GROUND, 0, AT, n);
    ld_joint *dr = add_joint(&w, "motor", LD_JOINT_DRIVER, LD_GROUND, 0, NULL, n);
    dr->motion = LD_MOTION_ROTATION;
    dr->value = value;
    dr->fn.kind = LD_TFN_LINEAR;
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q, *v, x[3], qq[4], om[3], xd[3], vd[20], r[3], mg[3], tg[3], fr[3], tau[3];
        integrate(&w.m, (ld_formulation)f, 1e-3, T, &s, &q, &v);
        assert_int_equal(ld_sys_initial_accel(&s, T, q, v, vd, vd + s.k), LD_OK);
        assert_int_equal(ld_model_joint_reaction(&s, 1, q, vd + s.k, fr, tau), LD_OK);
        assert_int_equal(ld_model_body_state(&s, 0, q, v, x, qq, om, xd), LD_OK);
        for (int i = 0; i < 3; ++i) r[i] = x[i] - AT[i], mg[i] = m * w.m.gravity[i];
        cross3(tg, r, mg);
        double want = -dot3(n, tg);
        assert_true(fabs(want) > 1.0); /* gravity has a moment about the axis there */
        for (int i = 0; i < 3; ++i)
            if (!(fabs(fr[i]) < 1e-9 && fabs(tau[i] - want * n[i]) < 1e-4 * fabs(want)))
                fail_msg("%s: driver torque %g %g %g, expected %g along the axis",
                         ld_formulation_name((ld_formulation)f), tau[0], tau[1], tau[2], want);
        free(q);
        free(v);
        ld_model_system_free(&s);
    }
}

/* ---------------------------------------------------------------- fixed joint */

/* Two bodies welded together move as one rigid body of the combined mass and inertia. */
static void test_fixed_is_one_body(void **state) {
    (void)state;
    const double w0[3] = {0.3, -0.5, 0.8}, vc[3] = {0.2, 0.1, 0.5}, T = 1.0;
    jm two, one;
    jm_init(&two);
    jm_init(&one);
    two.m.gravity[2] = one.m.gravity[2] = -9.81;
    int a = add_body(&two, "a", 2.5, JA, XA, QA, w0);
    int b = add_body(&two, "b", 1.5, JB, XB, QB, w0);
    add_joint(&two, "weld", LD_JOINT_FIXED, a, b, AT, NULL);
    double m = 4.0, c[3], Js[9] = {0};
    for (int i = 0; i < 3; ++i) c[i] = (2.5 * XA[i] + 1.5 * XB[i]) / m;
    for (int k = 0; k < 2; ++k) {
        ld_body *bd = &two.b[k];
        double R[9], r[3], RJ[9];
        ld_quat_to_mat(R, bd->q);
        for (int i = 0; i < 3; ++i) r[i] = bd->x[i] - c[i];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                RJ[3 * i + j] = 0.0;
                for (int l = 0; l < 3; ++l) RJ[3 * i + j] += R[3 * i + l] * bd->inertia[3 * l + j];
            }
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double acc = 0.0;
                for (int l = 0; l < 3; ++l) acc += RJ[3 * i + l] * R[3 * j + l];
                Js[3 * i + j] += acc + bd->mass * ((i == j ? dot3(r, r) : 0.0) - r[i] * r[j]);
            }
        double wr[3];
        cross3(wr, w0, r);
        bd->has_v = 1;
        for (int i = 0; i < 3; ++i) bd->v[i] = vc[i] + wr[i];
    }
    add_body(&one, "ab", m, Js, c, (double[4]){1, 0, 0, 0}, w0);
    one.b[0].has_v = 1;
    memcpy(one.b[0].v, vc, sizeof vc);
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s2, s1;
        double *q2, *v2, *q1, *v1, x1[3], qq1[4], om1[3], xd1[3];
        integrate(&one.m, (ld_formulation)f, 1e-3, T, &s1, &q1, &v1);
        integrate(&two.m, (ld_formulation)f, 1e-3, T, &s2, &q2, &v2);
        assert_int_equal(ld_model_body_state(&s1, 0, q1, v1, x1, qq1, om1, xd1), LD_OK);
        for (int k = 0; k < 2; ++k) {
            double x[3], qq[4], om[3], xd[3], r0[3], r[3], qw[4], psi[3];
            assert_int_equal(ld_model_body_state(&s2, k, q2, v2, x, qq, om, xd), LD_OK);
            for (int i = 0; i < 3; ++i) r0[i] = two.b[k].x[i] - c[i];
            ld_quat_rotate(r, qq1, r0);
            ld_quat_mul(qw, qq1, two.b[k].q);
            increment(psi, qq, qw);
            for (int i = 0; i < 3; ++i)
                if (!(fabs(x[i] - (x1[i] + r[i])) < 1e-7 && fabs(psi[i]) < 1e-7))
                    fail_msg("%s, body %d: position %g off, rotation %g off",
                             ld_formulation_name((ld_formulation)f), k, x[i] - x1[i] - r[i],
                             psi[i]);
        }
        free(q1), free(v1), free(q2), free(v2);
        ld_model_system_free(&s1);
        ld_model_system_free(&s2);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tangents),
        cmocka_unit_test(test_tangent_check_detects_errors),
        cmocka_unit_test(test_initial_velocity),
        cmocka_unit_test(test_rows_and_closure),
        cmocka_unit_test(test_revolute_pendulum),
        cmocka_unit_test(test_prismatic_incline),
        cmocka_unit_test(test_drivers),
        cmocka_unit_test(test_reactions),
        cmocka_unit_test(test_driver_reaction),
        cmocka_unit_test(test_fixed_is_one_body),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

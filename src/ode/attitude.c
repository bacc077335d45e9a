/*
 * Attitude from angular velocity: midpoint rules, classical RK on the kinematic ODE of each
 * parametrization, and RKMK on S³. Derivations and frame conventions: docs/attitude.md.
 */
#include <math.h>
#include <string.h>

#include "liedyn/attitude.h"
#include "liedyn/liedyn.h"
#include "../lie/mat3.h"

static const char *const method_names[LD_ATT_METHOD_COUNT] = {
    "mpr",   "mpq",    "mpq-eq25", "rk4",     "ode23",   "ode45",
    "rkmk4", "rkmk45", "magnus4",  "magnus6", "magnus8", "magnus8x2"};
static const char *const param_names[3] = {"quat", "rotvec", "tanvec"};

const char *ld_att_method_name(ld_att_method m) {
    return (unsigned)m < LD_ATT_METHOD_COUNT ? method_names[m] : "?";
}

int ld_att_method_find(const char *name) {
    for (int i = 0; name && i < LD_ATT_METHOD_COUNT; ++i)
        if (strcmp(name, method_names[i]) == 0) return i;
    return -1;
}

const char *ld_param_name(ld_param p) {
    return (unsigned)p < 3 ? param_names[p] : "?";
}

int ld_param_find(const char *name) {
    for (int i = 0; name && i < 3; ++i)
        if (strcmp(name, param_names[i]) == 0) return i;
    return -1;
}

int ld_att_method_has_param(ld_att_method m) {
    return m == LD_ATT_MPR || m == LD_ATT_RK4 || m == LD_ATT_ODE23 || m == LD_ATT_ODE45;
}

int ld_att_method_is_adaptive(ld_att_method m) {
    return m == LD_ATT_ODE23 || m == LD_ATT_ODE45 || m == LD_ATT_RKMK45;
}

void ld_attitude_options_default(ld_attitude_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->method = LD_ATT_MPQ;
    o->param = LD_PARAM_QUAT;
    o->dt = LD_ATT_DT_DEFAULT;
    o->error_rtol = 1e-3;
    o->error_atol = 1e-6;
}

double ld_attitude_dt_default(ld_att_method m, int fixed, const ld_att_case *c, const ld_gyro *g) {
    if (ld_att_method_is_adaptive(m) && !fixed) return 0.0;
    if (c) return c->dt;
    if (g && ld_gyro_count(g) >= 2)
        return (ld_gyro_t_last(g) - ld_gyro_t_first(g)) / (double)(ld_gyro_count(g) - 1);
    return LD_ATT_DT_DEFAULT;
}

/* ------------------------------------------------------------------ parametrizations */

static int np_of(ld_param p) {
    return p == LD_PARAM_QUAT ? 4 : 3;
}

/* Unit quaternion of the stored parameter (quaternions are copied as they are). */
static void param_to_quat(ld_param p, const double *x, double q[4]) {
    if (p == LD_PARAM_ROTVEC)
        ld_quat_from_rotvec(q, x);
    else if (p == LD_PARAM_TANVEC)
        ld_quat_from_tanvec(q, x);
    else
        memcpy(q, x, 4 * sizeof(double));
}

/* Stored parameter of a unit quaternion with w ≥ 0 (LD_ESINGULAR for ψ at θ = π). */
static int quat_to_param(ld_param p, const double q[4], double *x) {
    if (p == LD_PARAM_ROTVEC) {
        ld_quat_to_rotvec(x, q);
        return LD_OK;
    }
    if (p == LD_PARAM_TANVEC) return ld_quat_to_tanvec(x, q);
    memcpy(x, q, 4 * sizeof(double));
    return LD_OK;
}

/* Rotation matrix of the stored parameter by the parametrization's own formula:
 * Rodrigues (eq. 6), A(ψ) = I + 2/(1+ψ²)(Ψ + Ψ²) (eq. 9), or the 3×3 block of Q(q). */
static void param_to_mat(ld_param p, const double *x, double R[9]) {
    if (p == LD_PARAM_ROTVEC) {
        ld_so3_exp(R, x);
    } else if (p == LD_PARAM_TANVEC) {
        double f = 2.0 / (1.0 + ld_v3_dot(x, x));
        ld_m3_rodrigues(R, x, f, f);
    } else {
        ld_quat_to_mat(R, x);
    }
}

/* ------------------------------------------------------------------ run context */

typedef struct att_run {
    const ld_attitude_problem *pb;
    ld_param param;
    ld_att_method method;
    long fevals;
    ld_attitude_output_fn out;
    void *out_user;
    ld_attitude_point pt;
} att_run;

static int omega_at(att_run *r, double t, double w[3]) {
    r->fevals++;
    int rc = r->pb->omega(t, w, r->pb->user);
    if (rc != 0) return rc < 0 ? rc : LD_EDOMAIN;
    if (!isfinite(w[0]) || !isfinite(w[1]) || !isfinite(w[2])) return LD_EDOMAIN;
    return 0;
}

static int emit(att_run *r, double t, const double *x, ld_param p, int reduced) {
    if (!r->out) return 0;
    r->pt.t = t;
    r->pt.np = np_of(p);
    r->pt.branch_reduced = reduced;
    memset(r->pt.p, 0, sizeof r->pt.p);
    memcpy(r->pt.p, x, (size_t)r->pt.np * sizeof(double));
    param_to_quat(p, x, r->pt.q);
    return r->out(&r->pt, r->out_user);
}

/* ------------------------------------------------------------------ kinematic ODEs */

/* q̇ = ½ q ∘ (0, ω_G)  or  ½ (0, ω_g) ∘ q. */
static int rhs_quat(double t, const double *x, double *v, void *user) {
    att_run *r = user;
    double w[3], wq[4];
    int rc = omega_at(r, t, w);
    if (rc) return rc;
    wq[0] = 0.0;
    for (int i = 0; i < 3; ++i) wq[i + 1] = 0.5 * w[i];
    if (r->pb->frame == LD_FRAME_BODY)
        ld_quat_mul(v, x, wq);
    else
        ld_quat_mul(v, wq, x);
    return 0;
}

/* ϑ̇ = T⁻¹(ϑ) ω_G (body, right Jacobian) or T⁻ᵀ(ϑ) ω_g (spatial, eq. 7–8). The coefficient is
 * singular at |ϑ| = 2πk: a non-finite rate asks the controller for a smaller step. */
static int rhs_rotvec(double t, const double *x, double *v, void *user) {
    att_run *r = user;
    double w[3], Ti[9];
    int rc = omega_at(r, t, w);
    if (rc) return rc;
    if (r->pb->frame == LD_FRAME_BODY) {
        ld_so3_tangent_inv(Ti, x);
    } else {
        ld_so3_tangent_inv_t(Ti, x);
    }
    ld_m3_mulv(v, Ti, w);
    return (isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2])) ? 0 : 1;
}

/* ψ̇ = ½ (I + Ψ + ψψᵀ) ω_G (body) or ½ (I − Ψ + ψψᵀ) ω_g (spatial, eq. 10–11). */
static int rhs_tanvec(double t, const double *x, double *v, void *user) {
    att_run *r = user;
    double w[3], c[3];
    int rc = omega_at(r, t, w);
    if (rc) return rc;
    double d = ld_v3_dot(x, w);
    ld_v3_cross(c, x, w);
    double sg = r->pb->frame == LD_FRAME_BODY ? 1.0 : -1.0;
    for (int i = 0; i < 3; ++i) v[i] = 0.5 * (w[i] + sg * c[i] + d * x[i]);
    return (isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2])) ? 0 : 1;
}

/* RKMK on S³: body velocity (spatial data rotated into the body frame by the stage point). */
static int rhs_s3(double t, const double *x, double *v, void *user) {
    att_run *r = user;
    double w[3];
    int rc = omega_at(r, t, w);
    if (rc) return rc;
    if (r->pb->frame == LD_FRAME_BODY)
        memcpy(v, w, sizeof w);
    else
        ld_quat_rotate_inv(v, x, w);
    return 0;
}

static void retract_s3(double *x1, const double *x, const double *u, void *user) {
    (void)user;
    double e[4];
    ld_s3_exp(e, u);
    ld_quat_mul(x1, x, e);
}

static void dexpinv_s3(double *w, const double *u, const double *v, void *user) {
    (void)user;
    double Ti[9];
    ld_so3_tangent_inv(Ti, u);
    ld_m3_mulv(w, Ti, v);
}

/* e = log_S³(exp(ûh)* ∘ exp(u)): the rotation between the two solutions, in the body frame. */
static void local_error_s3(double *e, const double *x, const double *u, const double *uh,
                           void *user) {
    (void)x;
    (void)user;
    double a[4], b[4], ac[4], d[4];
    ld_s3_exp(a, uh);
    ld_s3_exp(b, u);
    ld_quat_conj(ac, a);
    ld_quat_mul(d, ac, b);
    ld_quat_to_rotvec(e, d);
}

static void scale_unit(double *s, const double *x, void *user) {
    (void)x;
    (void)user;
    s[0] = s[1] = s[2] = 1.0;
}

/* ------------------------------------------------------------------ midpoint rules */

/* mpq: q_{n+1} = q_n ∘ c (body) or c ∘ q_n, c = (1 − |a|², 2a)/(1 + |a|²), a = h ω_m / 4:
 * the closed-form solution of the linear midpoint equations of q̇ = ½ q ∘ ω. */
static void mpq_update(double q[4], const double wm[3], double h, int left) {
    double a[3] = {0.25 * h * wm[0], 0.25 * h * wm[1], 0.25 * h * wm[2]};
    double a2 = ld_v3_dot(a, a), d = 1.0 + a2;
    double c[4] = {(1.0 - a2) / d, 2.0 * a[0] / d, 2.0 * a[1] / d, 2.0 * a[2] / d};
    double qn[4];
    if (left)
        ld_quat_mul(qn, c, q);
    else
        ld_quat_mul(qn, q, c);
    memcpy(q, qn, sizeof qn);
}

/* mpr: R_{n+1} = R_n cay(h ω_m) (body) or cay(h ω_m) R_n, then the parameter is extracted
 * from R_{n+1} by Spurrier's algorithm (quaternion normalized, w ≥ 0). */
static int mpr_update(double *x, ld_param p, const double wm[3], double h, int left) {
    double R[9], C[9], Rn[9], a[3] = {h * wm[0], h * wm[1], h * wm[2]}, q[4];
    param_to_mat(p, x, R);
    ld_so3_cayley(C, a);
    if (left)
        ld_m3_mul(Rn, C, R);
    else
        ld_m3_mul(Rn, R, C);
    ld_quat_from_mat(q, Rn);
    if (ld_quat_normalize(q, q) != LD_OK) return LD_EDOMAIN;
    return quat_to_param(p, q, x);
}

static int all_finite(const double *v, int n) {
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* Book-keeping of an accepted fixed step from t to tn. */
static void note_step(ld_attitude_stats *st, double t, double tn) {
    double h = tn - t;
    st->steps++;
    st->t_reached = tn;
    if (st->steps == 1 || h < st->h_min_used) st->h_min_used = h;
    if (h > st->h_max_used) st->h_max_used = h;
}

static int run_midpoint(att_run *r, const ld_attitude_options *o, double *x,
                        ld_attitude_stats *st) {
    const ld_attitude_problem *pb = r->pb;
    ld_param p = r->method == LD_ATT_MPR ? r->param : LD_PARAM_QUAT;
    int reduced = r->method == LD_ATT_MPR;
    int left = (pb->frame == LD_FRAME_SPATIAL) != (r->method == LD_ATT_MPQ_EQ25);
    double nf = ceil((pb->t1 - pb->t0) / o->dt * (1.0 - 1e-12));
    if (!(o->dt > 0.0) || !(nf >= 1.0) || nf > 1e15) return LD_EINVAL;
    long n = (long)nf;
    double w0[3], w1[3], wm[3], xs[4];
    int rc = omega_at(r, pb->t0, w0);
    if (rc) return rc;
    for (long k = 0; k < n; ++k) {
        double t = pb->t0 + (double)k * o->dt;
        double tn = (k == n - 1) ? pb->t1 : pb->t0 + (double)(k + 1) * o->dt;
        if (o->max_steps > 0 && st->steps >= o->max_steps) return LD_ETOOMUCHWORK;
        if (!(tn > t)) return LD_ESTEPSIZE; /* dt below the resolution of t */
        rc = omega_at(r, tn, w1);
        if (rc) return rc;
        for (int i = 0; i < 3; ++i) wm[i] = 0.5 * (w0[i] + w1[i]);
        memcpy(xs, x, sizeof xs);
        if (r->method == LD_ATT_MPR) {
            rc = mpr_update(x, p, wm, tn - t, left);
        } else {
            mpq_update(x, wm, tn - t, left);
        }
        if (rc == LD_OK && !all_finite(x, np_of(p))) rc = LD_EDOMAIN;
        if (rc != LD_OK) {
            memcpy(x, xs, sizeof xs); /* keep the last good state */
            return rc;
        }
        memcpy(w0, w1, sizeof w0);
        note_step(st, t, tn);
        rc = emit(r, tn, x, p, reduced);
        if (rc) return rc;
    }
    return LD_OK;
}

/* ------------------------------------------------------------------ Magnus */

/* Ω of one step of Y' = hat(a(t)) Y over [t, t + h] (left form), from a at the Gauss nodes;
 * on so(3) the commutator [x, y] is x × y. */

/* Order 4 (Iserles–Nørsett), 2 nodes: Ω = h/2 (a1 + a2) + √3 h²/12 · a2 × a1. */
static void magnus_omega4(double Om[3], double a[][3], double h) {
    double c[3];
    ld_v3_cross(c, a[1], a[0]);
    for (int i = 0; i < 3; ++i)
        Om[i] = 0.5 * h * (a[0][i] + a[1][i]) + (sqrt(3.0) / 12.0) * h * h * c[i];
}

/* Order 6 (Blanes, Casas & Ros 2000), 3 nodes:
 *   α1 = h a2, α2 = √15 h/3 (a3 − a1), α3 = 10h/3 (a3 − 2 a2 + a1),
 *   C1 = [α1, α2], C2 = −1/60 [α1, 2 α3 + C1],
 *   Ω = α1 + α3/12 + 1/240 [−20 α1 − α3 + C1, α2 + C2]. */
static void magnus_omega6(double Om[3], double a[][3], double h) {
    double a1[3], a2[3], a3[3], C1[3], C2[3], t[3], u[3], v[3];
    for (int i = 0; i < 3; ++i) {
        a1[i] = h * a[1][i];
        a2[i] = (sqrt(15.0) / 3.0) * h * (a[2][i] - a[0][i]);
        a3[i] = (10.0 / 3.0) * h * (a[2][i] - 2.0 * a[1][i] + a[0][i]);
    }
    ld_v3_cross(C1, a1, a2);
    for (int i = 0; i < 3; ++i) t[i] = 2.0 * a3[i] + C1[i];
    ld_v3_cross(C2, a1, t);
    for (int i = 0; i < 3; ++i) {
        C2[i] *= -1.0 / 60.0;
        u[i] = -20.0 * a1[i] - a3[i] + C1[i];
        v[i] = a2[i] + C2[i];
    }
    ld_v3_cross(t, u, v);
    for (int i = 0; i < 3; ++i) Om[i] = a1[i] + a3[i] / 12.0 + t[i] / 240.0;
}

/* x = p·y + q·z on R³. */
static void comb(double x[3], double p, const double y[3], double q, const double z[3]) {
    for (int i = 0; i < 3; ++i) x[i] = p * y[i] + q * z[i];
}

/* Order 8 (Blanes, Casas & Ros 2000; Blanes, Casas, Oteo & Ros 2009, Phys. Rep. 470 §5), 4 Gauss
 * nodes 1/2 ∓ v1, 1/2 ∓ v2 (a[0], a[3] outer; a[1], a[2] inner), weights w1/2, w2/2. With the
 * moments B_k = Σ_j w_j τ_j^k a(τ_j) (τ the offset from the midpoint, in units of h):
 *   Q1 = [−38/5 B0 + 24 B2, B3],  Q2 = [63/5 B0 − 84 B2, −5/28 B1 + B3],
 *   Q3 = [19/28 B0 − 15/7 B2, [B0, B2 + h(61/588 Q1 − Q2/12)]],  Q4 = [B3, 20/7 Q1 + 10 Q2],
 *   Q5 = [−6025/4116 B0 + 2875/343 B2, [B2, Q1]],  Q6 = [B3, 20/7 (Q3 + Q4) + 820/189 h Q5],
 *   Q7 = −1/42 [B0, [B0, Q3 − Q4/3 + h Q5]],
 *   Ω = h B0 + h² (Q1 + Q2) + h³ (Q3 + Q4) + h⁴ (Q5 + Q6) + h⁵ Q7. */
static void magnus_omega8_moments(double Om[3], const double B0[3], const double B1[3],
                                  const double B2[3], const double B3[3], double h);

static void magnus_omega8(double Om[3], double a[][3], double h) {
    const double v1 = 0.5 * sqrt((3.0 + 2.0 * sqrt(1.2)) / 7.0);
    const double v2 = 0.5 * sqrt((3.0 - 2.0 * sqrt(1.2)) / 7.0);
    const double w1 = 0.5 - sqrt(5.0 / 6.0) / 6.0, w2 = 0.5 + sqrt(5.0 / 6.0) / 6.0;
    double B0[3], B1[3], B2[3], B3[3];
    for (int i = 0; i < 3; ++i) {
        double s1 = a[0][i] + a[3][i], s2 = a[1][i] + a[2][i];
        double r1 = a[3][i] - a[0][i], r2 = a[2][i] - a[1][i];
        B0[i] = 0.5 * (w1 * s1 + w2 * s2);
        B1[i] = 0.5 * (v1 * w1 * r1 + v2 * w2 * r2);
        B2[i] = 0.5 * (v1 * v1 * w1 * s1 + v2 * v2 * w2 * s2);
        B3[i] = 0.5 * (v1 * v1 * v1 * w1 * r1 + v2 * v2 * v2 * w2 * r2);
    }
    magnus_omega8_moments(Om, B0, B1, B2, B3, h);
}

/* The order-8 Ω above from the moments B0 … B3 of a over the step. */
static void magnus_omega8_moments(double Om[3], const double B0[3], const double B1[3],
                                  const double B2[3], const double B3[3], double h) {
    double x[3], y[3], z[3], Q1[3], Q2[3], Q3[3], Q4[3], Q5[3], Q6[3], Q7[3];
    comb(x, -38.0 / 5.0, B0, 24.0, B2);
    ld_v3_cross(Q1, x, B3);
    comb(x, 63.0 / 5.0, B0, -84.0, B2);
    comb(y, -5.0 / 28.0, B1, 1.0, B3);
    ld_v3_cross(Q2, x, y);
    comb(y, h * 61.0 / 588.0, Q1, -h / 12.0, Q2);
    for (int i = 0; i < 3; ++i) y[i] += B2[i];
    ld_v3_cross(z, B0, y);
    comb(x, 19.0 / 28.0, B0, -15.0 / 7.0, B2);
    ld_v3_cross(Q3, x, z);
    comb(x, 20.0 / 7.0, Q1, 10.0, Q2);
    ld_v3_cross(Q4, B3, x);
    ld_v3_cross(z, B2, Q1);
    comb(x, -6025.0 / 4116.0, B0, 2875.0 / 343.0, B2);
    ld_v3_cross(Q5, x, z);
    for (int i = 0; i < 3; ++i) x[i] = (20.0 / 7.0) * (Q3[i] + Q4[i]) + (820.0 / 189.0) * h * Q5[i];
    ld_v3_cross(Q6, B3, x);
    for (int i = 0; i < 3; ++i) x[i] = Q3[i] - Q4[i] / 3.0 + h * Q5[i];
    ld_v3_cross(y, B0, x);
    ld_v3_cross(Q7, B0, y);
    const double h2 = h * h, h3 = h2 * h, h4 = h3 * h, h5 = h4 * h;
    for (int i = 0; i < 3; ++i)
        Om[i] = h * B0[i] + h2 * (Q1[i] + Q2[i]) + h3 * (Q3[i] + Q4[i]) + h4 * (Q5[i] + Q6[i]) -
                h5 * Q7[i] / 42.0;
}

/* The five Gauss–Legendre nodes of [−1/2, 1/2], increasing. */
static void gauss5(double x[5]) {
    const double u = sqrt(5.0 - 2.0 * sqrt(10.0 / 7.0)) / 6.0;
    const double v = sqrt(5.0 + 2.0 * sqrt(10.0 / 7.0)) / 6.0;
    x[0] = -v, x[1] = -u, x[2] = 0.0, x[3] = u, x[4] = v;
}

/* magnus8x2: ω at the five Gauss nodes of the step (offsets x_j, in units of h, from its
 * midpoint) defines the quartic interpolant p. Its moments over the half step s (0: first, 1:
 * second), B_k = ∫ τ^k p(c_s + τ/2) dτ over τ ∈ [−1/2, 1/2] with c_s = ∓1/4, are linear in
 * the samples: B_k = Σ_j M[s][k][j] a_j. The four-point Gauss rule integrates these degree-7
 * polynomials exactly. */
static void magnus8x2_weights(double M[2][4][5]) {
    const double v1 = 0.5 * sqrt((3.0 + 2.0 * sqrt(1.2)) / 7.0);
    const double v2 = 0.5 * sqrt((3.0 - 2.0 * sqrt(1.2)) / 7.0);
    const double w1 = 0.5 - sqrt(5.0 / 6.0) / 6.0, w2 = 0.5 + sqrt(5.0 / 6.0) / 6.0;
    const double tq[4] = {-v1, -v2, v2, v1}, wq[4] = {0.5 * w1, 0.5 * w2, 0.5 * w2, 0.5 * w1};
    double x[5];
    gauss5(x);
    for (int s = 0; s < 2; ++s)
        for (int j = 0; j < 5; ++j)
            for (int k = 0; k < 4; ++k) {
                double sum = 0.0;
                for (int m = 0; m < 4; ++m) {
                    double tau = (s == 0 ? -0.25 : 0.25) + 0.5 * tq[m], L = 1.0;
                    for (int l = 0; l < 5; ++l)
                        if (l != j) L *= (tau - x[l]) / (x[j] - x[l]);
                    sum += wq[m] * pow(tq[m], k) * L;
                }
                M[s][k][j] = sum;
            }
}

/* Ω of half step s of magnus8x2 from the five samples a (size h/2). */
static void magnus8x2_half(double Om[3], double M[2][4][5], int s, double a[][3], double h) {
    double B[4][3];
    for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 3; ++i) {
            double b = 0.0;
            for (int j = 0; j < 5; ++j) b += M[s][k][j] * a[j][i];
            B[k][i] = b;
        }
    magnus_omega8_moments(Om, B[0], B[1], B[2], B[3], 0.5 * h);
}

/* x = x ∘ exp(−Ω) (body data) or exp(Ω) ∘ x (spatial data). */
static void magnus_apply(double x[4], double Om[3], int body) {
    double e[4], qn[4];
    if (body) {
        for (int j = 0; j < 3; ++j) Om[j] = -Om[j];
        ld_s3_exp(e, Om);
        ld_quat_mul(qn, x, e);
    } else {
        ld_s3_exp(e, Om);
        ld_quat_mul(qn, e, x);
    }
    memcpy(x, qn, sizeof qn);
}

/* Body data: Rᵀ' = hat(−ω_G) Rᵀ, so q_{n+1} = q_n ∘ exp(−Ω[−ω_G]); spatial: exp(Ω[ω_g]) ∘ q_n.
 * magnus8x2 applies the Ω of its two half steps in turn. */
static int run_magnus(att_run *r, const ld_attitude_options *o, double *x, ld_attitude_stats *st) {
    const ld_attitude_problem *pb = r->pb;
    const double g4[2] = {0.5 - sqrt(3.0) / 6.0, 0.5 + sqrt(3.0) / 6.0};
    const double g6[3] = {0.5 - sqrt(15.0) / 10.0, 0.5, 0.5 + sqrt(15.0) / 10.0};
    const double v1 = 0.5 * sqrt((3.0 + 2.0 * sqrt(1.2)) / 7.0);
    const double v2 = 0.5 * sqrt((3.0 - 2.0 * sqrt(1.2)) / 7.0);
    const double g8[4] = {0.5 - v1, 0.5 - v2, 0.5 + v2, 0.5 + v1};
    double g10[5], M[2][4][5];
    gauss5(g10);
    for (int i = 0; i < 5; ++i) g10[i] += 0.5;
    int ns = r->method == LD_ATT_MAGNUS4   ? 2
             : r->method == LD_ATT_MAGNUS6 ? 3
             : r->method == LD_ATT_MAGNUS8 ? 4
                                           : 5;
    const double *c = ns == 2 ? g4 : ns == 3 ? g6 : ns == 4 ? g8 : g10;
    if (ns == 5) magnus8x2_weights(M);
    int body = pb->frame == LD_FRAME_BODY;
    double nf = ceil((pb->t1 - pb->t0) / o->dt * (1.0 - 1e-12));
    if (!(o->dt > 0.0) || !(nf >= 1.0) || nf > 1e15) return LD_EINVAL;
    long n = (long)nf;
    for (long k = 0; k < n; ++k) {
        double t = pb->t0 + (double)k * o->dt;
        double tn = (k == n - 1) ? pb->t1 : pb->t0 + (double)(k + 1) * o->dt, h = tn - t;
        if (o->max_steps > 0 && st->steps >= o->max_steps) return LD_ETOOMUCHWORK;
        if (!(tn > t)) return LD_ESTEPSIZE; /* dt below the resolution of t */
        double a[5][3], Om[3], qn[4];
        for (int i = 0; i < ns; ++i) {
            int rc = omega_at(r, t + c[i] * h, a[i]);
            if (rc) return rc;
            if (body)
                for (int j = 0; j < 3; ++j) a[i][j] = -a[i][j];
        }
        memcpy(qn, x, sizeof qn);
        if (ns == 5) {
            magnus8x2_half(Om, M, 0, a, h);
            magnus_apply(qn, Om, body);
            magnus8x2_half(Om, M, 1, a, h);
        } else if (ns == 2) {
            magnus_omega4(Om, a, h);
        } else if (ns == 3) {
            magnus_omega6(Om, a, h);
        } else {
            magnus_omega8(Om, a, h);
        }
        magnus_apply(qn, Om, body);
        if (!all_finite(qn, 4)) return LD_EDOMAIN;
        memcpy(x, qn, sizeof qn);
        note_step(st, t, tn);
        int rc = emit(r, tn, x, LD_PARAM_QUAT, 0);
        if (rc) return rc;
    }
    return LD_OK;
}

/* ------------------------------------------------------------------ Runge–Kutta */

typedef struct erk_out_ctx {
    att_run *r;
    ld_param p;
} erk_out_ctx;

static int erk_out(double t, const double *x, void *user) {
    erk_out_ctx *c = user;
    return emit(c->r, t, x, c->p, 0);
}

static const char *table_of(ld_att_method m) {
    switch (m) {
    case LD_ATT_RK4:
    case LD_ATT_RKMK4:
        return "rk4";
    case LD_ATT_ODE23:
        return "bs23";
    default:
        return "dopri5";
    }
}

static int run_rk(att_run *r, const ld_attitude_options *o, double *x, ld_attitude_stats *st) {
    int lie = r->method == LD_ATT_RKMK4 || r->method == LD_ATT_RKMK45;
    ld_param p = lie ? LD_PARAM_QUAT : r->param;
    ld_erk_space sp = {0};
    sp.user = r;
    if (lie) {
        sp.nx = 4;
        sp.nv = 3;
        sp.rhs = rhs_s3;
        sp.retract = retract_s3;
        sp.dexpinv = dexpinv_s3;
        sp.local_error = local_error_s3;
        sp.scale = scale_unit;
    } else {
        sp.nx = sp.nv = np_of(p);
        sp.rhs = p == LD_PARAM_QUAT ? rhs_quat : (p == LD_PARAM_ROTVEC ? rhs_rotvec : rhs_tanvec);
    }
    ld_erk *e = NULL;
    int rc = ld_erk_create(&e, &sp, ld_rk_table_find(table_of(r->method)));
    if (rc) return rc;
    ld_erk_options eo;
    ld_erk_options_default(&eo);
    eo.adaptive = ld_att_method_is_adaptive(r->method) && !o->fixed;
    eo.h_init = o->dt;
    if (o->error_rtol > 0.0) eo.error_rtol = o->error_rtol;
    if (o->error_atol > 0.0) eo.error_atol = o->error_atol;
    eo.h_max = o->h_max;
    eo.h_min = o->h_min;
    eo.max_steps = o->max_steps;
    if (r->method == LD_ATT_ODE23) eo.shrink_min = 0.5;
    if (!eo.adaptive && !(o->dt > 0.0)) {
        ld_erk_free(e);
        return LD_EINVAL;
    }
    erk_out_ctx oc = {r, p};
    ld_erk_stats es;
    rc = ld_erk_integrate(e, &eo, r->pb->t0, r->pb->t1, x, erk_out, &oc, &es);
    ld_erk_free(e);
    st->steps = es.steps;
    st->rejected = es.rejected;
    st->t_reached = es.t;
    st->h_min_used = es.h_min_used;
    st->h_max_used = es.h_max_used;
    return rc;
}

/* ------------------------------------------------------------------ driver */

/* Option values no method can use: negative or non-finite step, tolerances and bounds, a
 * negative step limit (0 stands for the default). */
static int options_valid(const ld_attitude_options *o) {
    return (unsigned)o->method < LD_ATT_METHOD_COUNT && (unsigned)o->param <= 2 && o->dt >= 0.0 &&
           isfinite(o->dt) && o->error_rtol >= 0.0 && isfinite(o->error_rtol) &&
           o->error_atol >= 0.0 && isfinite(o->error_atol) && o->h_max >= 0.0 && o->h_min >= 0.0 &&
           isfinite(o->h_min) && o->max_steps >= 0;
}

int ld_attitude_integrate(const ld_attitude_problem *pb, const ld_attitude_options *o,
                          ld_attitude_output_fn out, void *out_user, ld_attitude_stats *stats) {
    ld_attitude_stats local;
    ld_attitude_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    if (!pb || !o || !pb->omega || !isfinite(pb->t1 - pb->t0) || !(pb->t1 > pb->t0) ||
        !options_valid(o) || (pb->frame != LD_FRAME_BODY && pb->frame != LD_FRAME_SPATIAL))
        return st->status = LD_EINVAL;
    st->t_reached = pb->t0;
    double q0[4], x[4] = {0};
    if (ld_quat_normalize(q0, pb->q0) != LD_OK) return st->status = LD_EINVAL;
    memcpy(st->q_end, q0, sizeof q0);
    att_run r;
    memset(&r, 0, sizeof r);
    r.pb = pb;
    r.param = o->param;
    r.method = o->method;
    r.out = out;
    r.out_user = out_user;
    int midpoint =
        o->method == LD_ATT_MPR || o->method == LD_ATT_MPQ || o->method == LD_ATT_MPQ_EQ25;
    int lie = o->method == LD_ATT_RKMK4 || o->method == LD_ATT_RKMK45 ||
              o->method == LD_ATT_MAGNUS4 || o->method == LD_ATT_MAGNUS6 ||
              o->method == LD_ATT_MAGNUS8 || o->method == LD_ATT_MAGNUS8X2;
    ld_param p = (o->method == LD_ATT_MPR || (!midpoint && !lie)) ? o->param : LD_PARAM_QUAT;
    double qs[4];
    memcpy(qs, q0, sizeof qs);
    if (qs[0] < 0.0 && o->method == LD_ATT_MPR)
        for (int i = 0; i < 4; ++i) qs[i] = -qs[i];
    int rc = quat_to_param(p, qs, x);
    if (rc) return st->status = rc;
    rc = emit(&r, pb->t0, x, p, o->method == LD_ATT_MPR);
    int magnus = o->method == LD_ATT_MAGNUS4 || o->method == LD_ATT_MAGNUS6 ||
                 o->method == LD_ATT_MAGNUS8 || o->method == LD_ATT_MAGNUS8X2;
    if (rc == 0)
        rc = midpoint ? run_midpoint(&r, o, x, st)
                      : (magnus ? run_magnus(&r, o, x, st) : run_rk(&r, o, x, st));
    st->fevals = r.fevals;
    param_to_quat(p, x, st->q_end);
    return st->status = rc;
}

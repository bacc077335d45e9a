/*
 * Analytic attitude cases (Zupan & Saje 2011, Sec. 5) and the error metrics of Sec. 5.1.
 * Each case prescribes the rotation vector ϑ(t); ϑ̇(t) is differentiated by hand and the exact
 * angular velocities follow as ω_G = T(ϑ) ϑ̇ and ω_g = Tᵀ(ϑ) ϑ̇ (T the right Jacobian).
 */
#include <math.h>
#include <string.h>

#include "liedyn/attitude.h"
#include "liedyn/liedyn.h"
#include "../lie/mat3.h"

/* ϑ = [sin²2t, 0, cos 2t] */
static void ex1(double t, double th[3], double d[3]) {
    double s = sin(2 * t);
    th[0] = s * s;
    th[1] = 0.0;
    th[2] = cos(2 * t);
    d[0] = 2 * sin(4 * t);
    d[1] = 0.0;
    d[2] = -2 * s;
}

/* ϑ = [sin²2t, 0, sin t + 0.08 cos 100t] (eq. 27) */
static void ex2(double t, double th[3], double d[3]) {
    double s = sin(2 * t);
    th[0] = s * s;
    th[1] = 0.0;
    th[2] = sin(t) + 0.08 * cos(100 * t);
    d[0] = 2 * sin(4 * t);
    d[1] = 0.0;
    d[2] = cos(t) - 8 * sin(100 * t);
}

/* ϑ = [sin²2t, cos t + 0.08 sin 100t, sin t + 0.08 cos 100t] (eq. 28) */
static void ex2_3d(double t, double th[3], double d[3]) {
    double s = sin(2 * t);
    th[0] = s * s;
    th[1] = cos(t) + 0.08 * sin(100 * t);
    th[2] = sin(t) + 0.08 * cos(100 * t);
    d[0] = 2 * sin(4 * t);
    d[1] = -sin(t) + 8 * cos(100 * t);
    d[2] = cos(t) - 8 * sin(100 * t);
}

/* ϑ = [2 + sin²2t, t, 5t³ − 4t] (eq. 29) */
static void ex3(double t, double th[3], double d[3]) {
    double s = sin(2 * t);
    th[0] = 2 + s * s;
    th[1] = t;
    th[2] = 5 * t * t * t - 4 * t;
    d[0] = 2 * sin(4 * t);
    d[1] = 1.0;
    d[2] = 15 * t * t - 4;
}

/* ϑ = [0, 0, 100t + 0.01] */
static void spin(double t, double th[3], double d[3]) {
    th[0] = th[1] = 0.0;
    th[2] = 100 * t + 0.01;
    d[0] = d[1] = 0.0;
    d[2] = 100.0;
}

/* ϑ = [t + 1, 2t, 3t] */
static void lin3(double t, double th[3], double d[3]) {
    th[0] = t + 1;
    th[1] = 2 * t;
    th[2] = 3 * t;
    d[0] = 1.0;
    d[1] = 2.0;
    d[2] = 3.0;
}

static const ld_att_case cases[] = {
    {"ex1", "bounded planar rotation [sin^2 2t, 0, cos 2t]", 0.0, 100.0, 0.033, ex1},
    {"ex2", "oscillating planar rotation, eq. (27)", 0.0, 10.0, 0.0025, ex2},
    {"ex2-3d", "oscillating spatial rotation, eq. (28)", 0.0, 100.0, 0.002, ex2_3d},
    {"ex3", "large fast rotation, eq. (29)", 0.0, 10.0, 2e-4, ex3},
    {"spin", "spin [0, 0, 100t + 0.01] (crosses 2 pi 159 times)", 0.0, 10.0, 1e-3, spin},
    {"lin3", "linear [t + 1, 2t, 3t] (crosses 2 pi five times)", 0.0, 10.0, 1e-3, lin3},
};

int ld_att_case_count(void) {
    return (int)(sizeof cases / sizeof cases[0]);
}

const ld_att_case *ld_att_case_at(int i) {
    return (i >= 0 && i < ld_att_case_count()) ? &cases[i] : NULL;
}

const ld_att_case *ld_att_case_find(const char *name) {
    for (int i = 0; name && i < ld_att_case_count(); ++i)
        if (strcmp(cases[i].name, name) == 0) return &cases[i];
    return NULL;
}

void ld_att_case_quat(const ld_att_case *c, double t, double q[4]) {
    double th[3], d[3];
    if (!c || !q) return;
    c->rotvec(t, th, d);
    ld_quat_from_rotvec(q, th);
}

void ld_att_case_omega(const ld_att_case *c, double t, ld_frame fr, double w[3]) {
    double th[3], d[3], T[9];
    if (!c || !w) return;
    c->rotvec(t, th, d);
    ld_so3_tangent(T, th);
    if (fr == LD_FRAME_SPATIAL)
        ld_m3_tmulv(w, T, d);
    else
        ld_m3_mulv(w, T, d);
}

void ld_att_case_param(const ld_att_case *c, double t, ld_param p, int branch_reduced,
                       double v[4]) {
    double th[3], d[3], q[4];
    if (!c || !v) return;
    c->rotvec(t, th, d);
    ld_quat_from_rotvec(q, th);
    v[3] = 0.0;
    switch (p) {
    case LD_PARAM_ROTVEC:
        if (branch_reduced)
            ld_quat_to_rotvec(v, q);
        else
            memcpy(v, th, sizeof th);
        break;
    case LD_PARAM_TANVEC:
        if (ld_quat_to_tanvec(v, q) != LD_OK) v[0] = v[1] = v[2] = INFINITY;
        break;
    default: {
        double sg = (branch_reduced && q[0] < 0.0) ? -1.0 : 1.0;
        for (int i = 0; i < 4; ++i) v[i] = sg * q[i];
    }
    }
}

int ld_att_case_omega_fn(double t, double w[3], void *user) {
    const ld_att_case_omega_ctx *c = user;
    if (!c || !c->c || !w) return LD_EINVAL;
    ld_att_case_omega(c->c, t, c->frame, w);
    return 0;
}

/* ------------------------------------------------------------------ metrics */

void ld_att_metrics_init(ld_att_metrics *m) {
    if (!m) return;
    memset(m, 0, sizeof *m);
}

void ld_att_metrics_add(ld_att_metrics *m, double t, const double q_num[4], const double q_exact[4],
                        const double *p_num, const double *p_exact, int np) {
    if (!m || !q_num || !q_exact || (np > 0 && (!p_num || !p_exact))) return;
    double ang = ld_quat_angle(q_exact, q_num);
    if (m->points == 0 || ang > m->max_angle || (isnan(ang) && !isnan(m->max_angle))) {
        m->max_angle = ang; /* a NaN error sticks */
        m->t_max_angle = t;
    }
    double d2[4] = {0}, f2[4] = {0};
    if (np > 4) np = 4;
    for (int k = 0; k < np; ++k) {
        double df = p_exact[k] - p_num[k];
        d2[k] = df * df;
        f2[k] = p_exact[k] * p_exact[k];
    }
    if (m->points > 0) {
        double h = t - m->prev_t;
        for (int k = 0; k < np; ++k) {
            m->int_d2[k] += 0.5 * h * (d2[k] + m->prev_d2[k]);
            m->int_f2[k] += 0.5 * h * (f2[k] + m->prev_f2[k]);
        }
    }
    m->np = np;
    m->prev_t = t;
    memcpy(m->prev_d2, d2, sizeof d2);
    memcpy(m->prev_f2, f2, sizeof f2);
    m->points++;
}

void ld_att_metrics_rl2(const ld_att_metrics *m, double rl2[4]) {
    if (!rl2) return;
    for (int k = 0; k < 4; ++k) {
        rl2[k] = m ? 0.0 : (double)NAN;
        if (m && k < m->np) rl2[k] = sqrt(m->int_d2[k]) / fmax(1.0, sqrt(m->int_f2[k]));
    }
}

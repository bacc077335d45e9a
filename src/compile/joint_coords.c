/*
 * The joints' coordinates and rates (liedyn/coords.h) from a state of a compiled model: the
 * bodies' poses and velocities of the state (ld_model_body_state) against the model's initial
 * configuration, in which the joints' geometry is given (a joint of the frame form adds its
 * coordinates there, measured from where its frames coincide). Formulation-independent; no
 * allocation.
 */
#include <math.h>
#include <string.h>

#include "../lie/mat3.h"
#include "liedyn/coords.h"
#include "liedyn/liedyn.h"
#include "compile.h"

#define JC_PI     3.14159265358979323846
#define JC_TWO_PI 6.28318530717958647692

/* Per kind: the number of coordinates and the names of the coordinates, then of the rates. */
typedef struct jc_kind {
    int n;
    const char *name[2 * LD_JOINT_COORDS_MAX];
} jc_kind;

static const jc_kind jc_kinds[LD_JOINT_KIND_COUNT] = {
    [LD_JOINT_SPHERICAL] = {3, {"rx", "ry", "rz", "wx", "wy", "wz"}},
    [LD_JOINT_UNIVERSAL] = {3, {"rx", "ry", "rz", "wx", "wy", "wz"}},
    [LD_JOINT_REVOLUTE] = {1, {"angle", "angle_rate"}},
    [LD_JOINT_CYLINDRICAL] = {2, {"angle", "slide", "angle_rate", "slide_rate"}},
    [LD_JOINT_PRISMATIC] = {1, {"slide", "slide_rate"}},
    [LD_JOINT_FIXED] = {0, {NULL}},
    [LD_JOINT_DRIVER] = {1, {"value", "value_rate"}},
};

int ld_joint_coords_count(ld_joint_kind k) {
    return (unsigned)k < LD_JOINT_KIND_COUNT ? jc_kinds[k].n : 0;
}

const char *ld_joint_coord_name(ld_joint_kind k, int i) {
    if (i < 0 || i >= 2 * ld_joint_coords_count(k)) return "";
    return jc_kinds[k].name[i];
}

int ld_joint_coord_periodic(ld_joint_kind k, int i) {
    return (k == LD_JOINT_REVOLUTE || k == LD_JOINT_CYLINDRICAL) && i == 0;
}

double ld_joint_angle_unwrap(double angle, double prev) {
    if (!isfinite(prev) || !isfinite(angle)) return angle;
    return angle + JC_TWO_PI * round((prev - angle) / JC_TWO_PI);
}

/* ---------------------------------------------------------------- the bodies */

/* A body's pose and velocity: now (from the state) and at the start (from the model). */
typedef struct jc_body {
    double x[3], q[4], w[3], xd[3]; /* now: centre, rotation, spatial ω, ẋ */
    double x0[3], q0[4];            /* the initial configuration */
} jc_body;

/* Body b (LD_GROUND: at rest at the origin) of the model compiled as s, at (q, v). */
static void jc_body_get(const ld_system *s, const ld_model *m, int b, const double *q,
                        const double *v, jc_body *o) {
    static const double one[4] = {1, 0, 0, 0};
    memset(o, 0, sizeof *o);
    memcpy(o->q, one, sizeof one);
    memcpy(o->q0, one, sizeof one);
    if (b < 0) return;
    double Om[3];
    if (ld_model_body_state(s, b, q, v, o->x, o->q, Om, o->xd) != LD_OK) {
        for (int i = 0; i < 3; ++i) o->x[i] = o->w[i] = o->xd[i] = NAN;
        o->q[0] = NAN;
    }
    ld_quat_rotate(o->w, o->q, Om);
    memcpy(o->x0, m->bodies[b].x, sizeof o->x0);
    if (ld_quat_normalize(o->q0, m->bodies[b].q)) memcpy(o->q0, one, sizeof one);
}

/* Q = G1ᵀ G2 with Gᵢ = qᵢ ∘ qᵢ⁰* (each body's rotation since the start). */
static void jc_rel_rotation(double Q[4], const jc_body *b1, const jc_body *b2) {
    double a[4], c[4];
    ld_quat_conj(c, b2->q0);
    ld_quat_mul(a, b2->q, c); /* G2 */
    ld_quat_conj(c, b1->q);
    ld_quat_mul(Q, c, a); /* q1* G2 */
    ld_quat_mul(a, b1->q0, Q);
    memcpy(Q, a, sizeof a); /* q1⁰ q1* G2 = G1ᵀ G2 */
}

/* u in body1's frame carried from its start: G1ᵀ u = R1⁰ R1ᵀ u. */
static void jc_in_body1(double r[3], const jc_body *b1, const double u[3]) {
    double t[3];
    ld_quat_rotate_inv(t, b1->q, u);
    ld_quat_rotate(r, b1->q0, t);
}

/* ---------------------------------------------------------------- the coordinates */

/* The twist angle of Q about the unit axis a, in (−π, π]. */
static double jc_twist(const double Q[4], const double a[3]) {
    double sg = Q[0] < 0.0 ? -1.0 : 1.0;
    double th = 2.0 * atan2(sg * (a[0] * Q[1] + a[1] * Q[2] + a[2] * Q[3]), sg * Q[0]);
    return th <= -JC_PI ? th + JC_TWO_PI : th;
}

/* The slide along the axis (a unit, spatial at the start) and its rate. */
static void jc_slide(const ld_joint *jd, const double a[3], const jc_body *b1, const jc_body *b2,
                     double *sl, double *rate) {
    double t[3], A[3], r1[3], r2[3], d[3], dd[3], c1[3], c2[3], wa[3];
    ld_quat_rotate_inv(t, b1->q0, a);
    ld_quat_rotate(A, b1->q, t); /* R1 a₁ */
    for (int i = 0; i < 3; ++i) c1[i] = jd->at[i] - b1->x0[i], c2[i] = jd->at[i] - b2->x0[i];
    ld_quat_rotate_inv(t, b1->q0, c1);
    ld_quat_rotate(r1, b1->q, t); /* R1 p1 */
    ld_quat_rotate_inv(t, b2->q0, c2);
    ld_quat_rotate(r2, b2->q, t); /* R2 p2 */
    ld_v3_cross(c1, b1->w, r1);
    ld_v3_cross(c2, b2->w, r2);
    for (int i = 0; i < 3; ++i) {
        d[i] = (b2->x[i] + r2[i]) - (b1->x[i] + r1[i]);
        dd[i] = (b2->xd[i] + c2[i]) - (b1->xd[i] + c1[i]);
    }
    ld_v3_cross(wa, b1->w, A);
    *sl = ld_v3_dot(A, d);
    *rate = ld_v3_dot(wa, d) + ld_v3_dot(A, dd);
}

/* The unit axis of joint jd (z when it has none or it is zero). */
static void jc_axis(const ld_joint *jd, double a[3]) {
    double n = ld_v3_norm(jd->axis);
    a[0] = a[1] = 0.0, a[2] = 1.0;
    if (n > 0.0 && isfinite(n))
        for (int i = 0; i < 3; ++i) a[i] = jd->axis[i] / n;
}

int ld_model_joint_coords(const ld_system *s, int joint, double t, const double *q, const double *v,
                          double *c, double *cdot, int *n) {
    if (!s || !s->user || !q || !v || !c || !cdot || !n) return LD_EINVAL;
    const ld_model *m = ld_rb(s)->m;
    if (!m || joint < 0 || joint >= m->njoints) return LD_EINVAL;
    const ld_joint *jd = &m->joints[joint];
    int nc = ld_joint_coords_count(jd->kind);
    if (jd->kind == LD_JOINT_DRIVER) {
        double f[3];
        ld_tfn_eval_d(&jd->fn, t, f);
        c[0] = jd->value * f[0];
        cdot[0] = jd->value * f[1];
    } else if (nc > 0) {
        jc_body b1, b2;
        double Q[4], a[3], w[3], dw[3];
        jc_body_get(s, m, jd->body1, q, v, &b1);
        jc_body_get(s, m, jd->body2, q, v, &b2);
        jc_rel_rotation(Q, &b1, &b2);
        for (int i = 0; i < 3; ++i) dw[i] = b2.w[i] - b1.w[i];
        jc_in_body1(w, &b1, dw);
        jc_axis(jd, a);
        if (jd->kind == LD_JOINT_SPHERICAL || jd->kind == LD_JOINT_UNIVERSAL) {
            ld_quat_to_rotvec(c, Q);
            memcpy(cdot, w, sizeof w);
        } else if (jd->kind == LD_JOINT_PRISMATIC) {
            jc_slide(jd, a, &b1, &b2, c, cdot);
        } else { /* revolute, cylindrical: the angle first */
            c[0] = jc_twist(Q, a);
            cdot[0] = ld_v3_dot(a, w);
            if (jd->kind == LD_JOINT_CYLINDRICAL) jc_slide(jd, a, &b1, &b2, c + 1, cdot + 1);
        }
        if (jd->local && jd->kind != LD_JOINT_SPHERICAL && jd->kind != LD_JOINT_UNIVERSAL) {
            double c0[2]; /* the frame form: from where the frames coincide */
            ld_joint_frame_coords(m, joint, c0);
            if (jd->kind == LD_JOINT_PRISMATIC) c[0] += c0[1];
            if (jd->kind == LD_JOINT_REVOLUTE || jd->kind == LD_JOINT_CYLINDRICAL) c[0] += c0[0];
            if (jd->kind == LD_JOINT_CYLINDRICAL) c[1] += c0[1];
        }
    }
    *n = nc;
    return LD_OK;
}

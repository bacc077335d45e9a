/*
 * The joints' set-up (joints_impl.h): each joint's body-frame data — its points in the frames
 * of body1 and body2 and the directions of its terms — derived once from the model's initial
 * configuration or from the joint's own frames; the joint system's creation and size.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "liedyn/liedyn.h"
#include "kinds.h"
#include "joints_impl.h"
#include "../core/oom.h"

static void body_pose0(const ld_model *m, int b, double R[9], double x[3]) {
    if (b < 0) {
        static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(R, eye, sizeof eye);
        memset(x, 0, 3 * sizeof(double));
        return;
    }
    double qn[4];
    if (ld_quat_normalize(qn, m->bodies[b].q)) qn[0] = 1.0, qn[1] = qn[2] = qn[3] = 0.0;
    ld_quat_to_mat(R, qn);
    memcpy(x, m->bodies[b].x, 3 * sizeof(double));
}

/* a normalized into u (LD_EINVAL if zero or not finite). */
static int unit(double u[3], const double a[3]) {
    double n = ld_v3_norm(a);
    if (!(n > 0.0) || !isfinite(n)) return LD_EINVAL;
    for (int i = 0; i < 3; ++i) u[i] = a[i] / n;
    return LD_OK;
}

/* u1 ⊥ a, u2 = a × u1: a right-handed orthonormal frame (u1, u2, a). */
static void perp_frame(const double a[3], double u1[3], double u2[3]) {
    int k = 0;
    for (int i = 1; i < 3; ++i)
        if (fabs(a[i]) < fabs(a[k])) k = i;
    double e[3] = {0, 0, 0};
    e[k] = 1.0;
    double ea = ld_v3_dot(e, a);
    for (int i = 0; i < 3; ++i) e[i] -= ea * a[i];
    (void)unit(u1, e);
    ld_v3_cross(u2, a, u1);
}

static void add_term(jnt *jt, int kind, int row, int coef, const double a[3], const double b[3]) {
    jterm *tm = &jt->term[jt->nterm++];
    tm->kind = kind, tm->row = row, tm->coef = coef;
    if (a) memcpy(tm->a, a, sizeof tm->a);
    if (b) memcpy(tm->b, b, sizeof tm->b);
}

static int setup_frames(const ld_joint *jd, jnt *jt);
static void add_terms(const ld_joint *jd, jnt *jt, const double bu1[3], const double bu2[3],
                      const double ba[3], const double ca[3], const double cw[3],
                      const double cb[3]);

/* The joint's body-frame data from the model's initial configuration. */
static int setup_joint(const ld_model *m, int j, jnt *jt, char *msg, size_t n) {
    const ld_joint *jd = &m->joints[j];
    const char *bad = NULL;
    jt->b1 = jd->body1, jt->b2 = jd->body2;
    if ((unsigned)jd->kind >= LD_JOINT_KIND_COUNT)
        bad = "unknown kind";
    else if (jd->body2 < 0 || jd->body2 >= m->nbodies)
        bad = "body2 must be one of the bodies";
    else if (jd->body1 < LD_GROUND || jd->body1 >= m->nbodies || jd->body1 == jd->body2)
        bad = "body1 must be the ground or a body other than body2";
    else if (jd->point_form && (jd->kind != LD_JOINT_SPHERICAL || jd->body1 != LD_GROUND))
        bad = "the point form is a spherical joint to the ground";
    double R1[9], x1[3], R2[9], x2[3], ax[3] = {0, 0, 1}, u1[3], u2[3], w[3];
    int needs_axis = jd->kind != LD_JOINT_SPHERICAL && jd->kind != LD_JOINT_FIXED;
    if (!bad && jd->local && jd->point_form) bad = "the point form has no frames";
    if (!bad && !jd->local && needs_axis && unit(ax, jd->axis))
        bad = "axis must be a non-zero direction";
    if (!bad && !jd->local && jd->kind == LD_JOINT_UNIVERSAL &&
        (unit(w, jd->axis2) || !(fabs(ld_v3_dot(w, ax)) <= 1e-9)))
        bad = "axis2 must be a direction perpendicular to axis";
    if (bad) {
        if (msg) snprintf(msg, n, "joint %d ('%s'): %s", j, jd->name, bad);
        return LD_EINVAL;
    }
    body_pose0(m, jt->b1, R1, x1);
    body_pose0(m, jt->b2, R2, x2);
    if (jd->local) return setup_frames(jd, jt);
    if (jd->point_form) {
        memcpy(jt->p1, jd->xg, sizeof jt->p1);
        memcpy(jt->p2, jd->p, sizeof jt->p2);
    } else {
        double r[3];
        for (int i = 0; i < 3; ++i) r[i] = jd->at[i] - x1[i];
        ld_m3_tmulv(jt->p1, R1, r);
        for (int i = 0; i < 3; ++i) r[i] = jd->at[i] - x2[i];
        ld_m3_tmulv(jt->p2, R2, r);
    }
    perp_frame(ax, u1, u2);
    /* body1: u1, u2, a; body2: a' (image of a), w (of u1); universal: b (axis2) */
    double bu1[3], bu2[3], ba[3], ca[3], cw[3], cb[3];
    ld_m3_tmulv(bu1, R1, u1);
    ld_m3_tmulv(bu2, R1, u2);
    ld_m3_tmulv(ba, R1, ax);
    ld_m3_tmulv(ca, R2, ax);
    ld_m3_tmulv(cw, R2, u1);
    if (jd->kind == LD_JOINT_UNIVERSAL) ld_m3_tmulv(cb, R2, w);
    jt->s0 = 0.0;
    if (jd->kind == LD_JOINT_DRIVER && jd->motion != LD_MOTION_ROTATION) {
        double P1[3], P2[3];
        ld_m3_mulv(P1, R1, jt->p1);
        ld_m3_mulv(P2, R2, jt->p2);
        for (int i = 0; i < 3; ++i) jt->s0 += ax[i] * (x2[i] + P2[i] - x1[i] - P1[i]);
    }
    add_terms(jd, jt, bu1, bu2, ba, ca, cw, cb);
    return LD_OK;
}

/* The frame form: p1, p2 and the directions straight from the joint's frames (s0 = 0). */
static int setup_frames(const ld_joint *jd, jnt *jt) {
    double F1[9], F2[9], q[4], bu1[3], bu2[3], ba[3], ca[3], cw[3];
    if (ld_quat_normalize(q, jd->f1)) q[0] = 1.0, q[1] = q[2] = q[3] = 0.0;
    ld_quat_to_mat(F1, q);
    if (ld_quat_normalize(q, jd->f2)) q[0] = 1.0, q[1] = q[2] = q[3] = 0.0;
    ld_quat_to_mat(F2, q);
    for (int i = 0; i < 3; ++i) {
        bu1[i] = F1[3 * i], bu2[i] = F1[3 * i + 1], ba[i] = F1[3 * i + 2];
        cw[i] = F2[3 * i], ca[i] = F2[3 * i + 2];
    }
    memcpy(jt->p1, jd->at1, sizeof jt->p1);
    memcpy(jt->p2, jd->at2, sizeof jt->p2);
    jt->s0 = 0.0;
    add_terms(jd, jt, bu1, bu2, ba, ca, cw, cw);
    return LD_OK;
}

/* The joint's terms from body-frame directions: (bu1, bu2, ba) the frame fixed in body1, ca and
 * cw the images of its axis and of bu1 fixed in body2, cb body2's universal axis. */
static void add_terms(const ld_joint *jd, jnt *jt, const double bu1[3], const double bu2[3],
                      const double ba[3], const double ca[3], const double cw[3],
                      const double cb[3]) {
    jt->nrows = ld_joint_kind_rows(jd->kind);
    switch (jd->kind) {
    case LD_JOINT_SPHERICAL:
        add_term(jt, T_POINT, 0, C_ONE, NULL, NULL);
        break;
    case LD_JOINT_UNIVERSAL:
        add_term(jt, T_POINT, 0, C_ONE, NULL, NULL);
        add_term(jt, T_VV, 3, C_ONE, ba, cb);
        break;
    case LD_JOINT_REVOLUTE:
        add_term(jt, T_POINT, 0, C_ONE, NULL, NULL);
        add_term(jt, T_VV, 3, C_ONE, bu1, ca);
        add_term(jt, T_VV, 4, C_ONE, bu2, ca);
        break;
    case LD_JOINT_CYLINDRICAL:
    case LD_JOINT_PRISMATIC:
        add_term(jt, T_VD, 0, C_ONE, bu1, NULL);
        add_term(jt, T_VD, 1, C_ONE, bu2, NULL);
        add_term(jt, T_VV, 2, C_ONE, bu1, ca);
        add_term(jt, T_VV, 3, C_ONE, bu2, ca);
        if (jd->kind == LD_JOINT_PRISMATIC) add_term(jt, T_VV, 4, C_ONE, bu2, cw);
        break;
    case LD_JOINT_FIXED:
        add_term(jt, T_POINT, 0, C_ONE, NULL, NULL);
        add_term(jt, T_VV, 3, C_ONE, bu1, ca);
        add_term(jt, T_VV, 4, C_ONE, bu2, ca);
        add_term(jt, T_VV, 5, C_ONE, bu2, cw);
        break;
    case LD_JOINT_DRIVER:
        jt->value = jd->value;
        jt->fn = &jd->fn;
        if (jd->motion == LD_MOTION_ROTATION) {
            jt->rot_driver = 1;
            add_term(jt, T_VV, 0, C_COS, bu2, cw);
            add_term(jt, T_VV, 0, C_MSIN, bu1, cw);
        } else {
            jt->trans_driver = 1;
            add_term(jt, T_VD, 0, C_ONE, ba, NULL);
        }
        break;
    default:
        break;
    }
}

int ld_jsys_create(const ld_model *m, ld_formulation f, ld_jsys **out, char *msg, size_t n) {
    (void)f;
    if (msg && n) msg[0] = '\0';
    ld_jsys *J = ld_xcalloc(1, sizeof *J, "the joint system");
    jnt *js =
        m->njoints > 0 ? ld_xcalloc((size_t)m->njoints, sizeof *js, "the joint system") : NULL;
    if (!J || (m->njoints > 0 && !js)) {
        free(J);
        free(js);
        return LD_ENOMEM;
    }
    J->m = m;
    J->nj = m->njoints;
    J->j = js;
    for (int j = 0; j < m->njoints; ++j) {
        int rc = setup_joint(m, j, &js[j], msg, n);
        if (rc) {
            ld_jsys_free(J);
            return rc;
        }
        js[j].row0 = J->rows;
        J->rows += js[j].nrows;
    }
    *out = J;
    return LD_OK;
}

void ld_jsys_free(ld_jsys *J) {
    if (!J) return;
    free(J->j);
    free(J);
}

int ld_jsys_rows(const ld_jsys *J) {
    return J->rows;
}

int ld_jsys_joint_rows(const ld_jsys *J, int j, int *row0) {
    if (j < 0 || j >= J->nj) return 0;
    *row0 = J->j[j].row0;
    return J->j[j].nrows;
}

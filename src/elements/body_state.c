/*
 * A body's pose and velocity in a compiled state, in every formulation (kinds.h): the node's
 * storage read as (R, x) and (Ω, ẋ), pinned bodies included, and the velocity's frame in the
 * spatial formulations. Shared by the element kinds, the compiler and the methods.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../lie/ep.h"
#include "../lie/mat3.h"
#include "kinds.h"
#include "liedyn/liedyn.h"

static const rb_sys *RB(const ld_system *s) {
    return ld_rb(s);
}

/* A pinned body's pose: its fixed position, the rotation of its node (SO(3) or S³), or
 * R(q_body) exp(θ a) about its axis (one angle). */
static void pinned_pose(const ld_system *s, const double *g, int i, double R[9], const double **x) {
    const ld_body *b = &RB(s)->m->bodies[i];
    *x = b->x;
    if (b->pin == LD_PIN_AXIS) {
        double R0[9], E[9],
            w[3] = {g[0] * b->pin_axis[0], g[0] * b->pin_axis[1], g[0] * b->pin_axis[2]};
        ld_quat_to_mat(R0, b->q);
        ld_so3_exp(E, w);
        ld_m3_mul(R, R0, E);
    } else if (RB(s)->quat) {
        ld_quat_to_mat(R, g);
    } else {
        memcpy(R, g, 9 * sizeof(double));
    }
}

void ld_rb_pose(const ld_system *s, const double *q, int i, double R[9], const double **x) {
    const double *g = q + s->nodes[i].qoff;
    if (RB(s)->m->bodies[i].pin) {
        pinned_pose(s, g, i, R, x);
    } else if (RB(s)->euler) {
        ld_ep_rot(R, g + 3);
        *x = g;
    } else if (RB(s)->quat) {
        ld_quat_to_mat(R, g);
        *x = g + 4;
    } else {
        memcpy(R, g, 9 * sizeof(double));
        *x = g + 9;
    }
}

void ld_rb_body_velocity(const ld_system *s, const double *q, const double *vi, int i, double Om[3],
                         double xd[3]) {
    const double *x;
    if (RB(s)->euler) {
        double e[4];
        if (ld_quat_normalize(e, q + s->nodes[i].qoff + 3)) memset(e, 0, sizeof e);
        ld_ep_Lmul(Om, e, vi + 3);
        for (int j = 0; j < 3; ++j) Om[j] *= 2.0;
        memcpy(xd, vi, 3 * sizeof(double));
        return;
    }
    double R[9];
    const ld_body *b = &RB(s)->m->bodies[i];
    if (b->pin) { /* at rest in place; Ω = a θ̇ about a hinge's axis */
        for (int j = 0; j < 3; ++j) Om[j] = b->pin == LD_PIN_AXIS ? b->pin_axis[j] * vi[0] : vi[j];
        memset(xd, 0, 3 * sizeof(double));
        return;
    }
    memcpy(Om, vi, 3 * sizeof(double));
    ld_rb_pose(s, q, i, R, &x);
    if (RB(s)->semi)
        ld_m3_mulv(xd, R, vi + 3);
    else
        memcpy(xd, vi + 3, 3 * sizeof(double));
}

void ld_rb_body_accel(const ld_system *s, const double *q, const double *vi, const double *ai,
                      int i, double dOm[3], double xdd[3]) {
    const ld_body *b = &RB(s)->m->bodies[i];
    if (RB(s)->euler) { /* Ω = 2 L(e) ė, and L(ė) ė = 0: Ω̇ = 2 L(e) ë */
        double e[4];
        if (ld_quat_normalize(e, q + s->nodes[i].qoff + 3)) memset(e, 0, sizeof e);
        ld_ep_Lmul(dOm, e, ai + 3);
        for (int j = 0; j < 3; ++j) dOm[j] *= 2.0;
        memcpy(xdd, ai, 3 * sizeof(double));
        return;
    }
    if (b->pin) { /* Ω̇ = a θ̈ about a hinge's axis; the centre at rest */
        for (int j = 0; j < 3; ++j) dOm[j] = b->pin == LD_PIN_AXIS ? b->pin_axis[j] * ai[0] : ai[j];
        memset(xdd, 0, 3 * sizeof(double));
        return;
    }
    memcpy(dOm, ai, 3 * sizeof(double));
    if (!RB(s)->semi) {
        memcpy(xdd, ai + 3, 3 * sizeof(double));
        return;
    }
    double R[9], w[3]; /* ẋ = R U: ẍ = R (U̇ + Ω × U) */
    const double *x;
    ld_rb_pose(s, q, i, R, &x);
    ld_v3_cross(w, vi, vi + 3);
    for (int j = 0; j < 3; ++j) w[j] += ai[3 + j];
    ld_m3_mulv(xdd, R, w);
}

void ld_rb_velocity_frame(const ld_system *s, const double *q, int i, const double *v, double *vb,
                          int to_spatial) {
    int n = (i + 1 < s->nnodes ? s->nodes[i + 1].voff : s->k) - s->nodes[i].voff;
    if (vb != v) memcpy(vb, v, (size_t)n * sizeof(double));
    if (!RB(s)->left) return;
    double R[9], w[3];
    const double *x;
    ld_rb_pose(s, q, i, R, &x);
    if (to_spatial)
        ld_m3_mulv(w, R, v);
    else
        ld_m3_tmulv(w, R, v);
    memcpy(vb, w, sizeof w);
}

void ld_rb_state_read(const ld_system *s, const double *q, const double *v, int i, double R[9],
                      double x[3], double Om[3], double xd[3]) {
    double vb[6];
    const double *xp;
    ld_rb_pose(s, q, i, R, &xp);
    memcpy(x, xp, 3 * sizeof *x);
    ld_rb_velocity_frame(s, q, i, v + s->nodes[i].voff, vb, 0);
    ld_rb_body_velocity(s, q, vb, i, Om, xd);
}

void ld_rb_state_write(const ld_system *s, int i, const double R[9], const double x[3],
                       const double Om[3], const double xd[3], double *q, double *v) {
    const rb_sys *rb = RB(s);
    double *g = q + s->nodes[i].qoff, *vi = v + s->nodes[i].voff;
    if (rb->quat) {
        ld_quat_from_mat(g, R);
        memcpy(g + 4, x, 3 * sizeof *x);
    } else {
        memcpy(g, R, 9 * sizeof *R);
        memcpy(g + 9, x, 3 * sizeof *x);
    }
    memcpy(vi, Om, 3 * sizeof *Om);
    if (rb->semi)
        ld_m3_tmulv(vi + 3, R, xd);
    else
        memcpy(vi + 3, xd, 3 * sizeof *xd);
    ld_rb_velocity_frame(s, q, i, vi, vi, 1); /* ω = RΩ in the spatial formulations */
}

const char *ld_rb_rigid_only(const ld_system *s, const char *needs, const char *verb, int forces) {
    static _Thread_local char buf[160];
    if (ld_sys_is_tree(s)) {
        snprintf(buf, sizeof buf,
                 "%s a maximal-coordinate formulation, not tree (joint coordinates)", needs);
        return buf;
    }
    if (!s || !s->user || s->ops.force != ld_elems_force)
        return "the system is not a compiled model";
    const rb_sys *rb = RB(s);
    const ld_model *m = rb->m;
    if (rb->euler) {
        snprintf(buf, sizeof buf, "%s a Lie-group formulation, not euler", needs);
        return buf;
    }
    if (m->nrods > 0) return "rods are not rigid bodies";
    if (m->nbeams > 0) return "beams are not rigid bodies";
    if (m->nelements > 0 && !forces) {
        snprintf(buf, sizeof buf, "force elements (springs, dampers, user forces) are not %s",
                 verb);
        return buf;
    }
    for (int i = 0; i < m->nbodies; ++i)
        if (m->bodies[i].pin) {
            snprintf(buf, sizeof buf, "pinned bodies (their position eliminated) are not %s", verb);
            return buf;
        }
    return NULL;
}

/*
 * Joints of the rigid-body models in every formulation (kinds.h; the equations of each
 * kind are listed in include/liedyn/model.h and docs/mechanics.md).
 *
 * Every joint is built from three primitives of body-fixed quantities, a direction r = R a or
 * a point P = x + R p (the ground: R = I, x = 0):
 *   point difference   d = P2 − P1                              (3 rows)
 *   dot of directions  (R1 a)·(R2 b)                            (1 row)
 *   direction · d      (R1 a)·d                                 (1 row)
 * each term times a coefficient c(t) (1, or cos θ(t), −sin θ(t) for a rotation driver), and a
 * translation driver adds −s0 − value f(t) to its row. For a quantity y(q) of one body, with
 * J_y = ∂y/∂q along the group (Lie: ∂(R a)/∂θ = −R hat(a), ∂x/∂U = I or R; euler: ∂(R(e) a)/∂e
 * = G_a(e), ∂x/∂x = I):
 *   B      from J_y;
 *   z      from y's bias acceleration ÿ − J_y v̇: R(Ω × (Ω × a)) (+ R(Ω × U) for a point in the
 *          semidirect products), 2 R(ė) a in the euler formulation; for a dot f·g:
 *          z_f·g + 2 ḟ·ġ + f·z_g; with c(t): c z + 2 ċ ṡ + c̈ s;
 *   K      ∂(J_yᵀ c)/∂q at fixed c: hat(a) hat(Rᵀc) in the rotation block, plus hat(Rᵀc) in the
 *          translation rows of a point in the semidirect products (∂(Rᵀc)/∂θ = hat(Rᵀc)),
 *          and ld_ep_drot2(a, c) in the euler formulation; for a dot f·g also the products
 *          J_fᵀ J_g + J_gᵀ J_f (which couple the bodies);
 *   Φ_t    ċ s − value f'(t).
 * Everything a joint needs is derived in ld_jsys_create; the evaluators do not allocate.
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "../lie/mat3.h"
#include "element.h"
#include "../lie/ep.h"
#include "liedyn/liedyn.h"
#include "kinds.h"
#include "../core/oom.h"

enum { T_POINT = 0, T_VV, T_VD };       /* the primitives */
enum { C_ONE = 0, C_COS, C_MSIN, C_N }; /* coefficients: 1, cos θ(t), −sin θ(t) */

typedef struct jterm {
    int kind;
    int row;           /* first row, relative to the joint */
    int coef;          /* C_* */
    double a[3], b[3]; /* body1 direction, body2 direction (T_VV), body frames */
} jterm;

typedef struct jnt {
    int b1, b2; /* body indices, LD_GROUND for the ground */
    int row0, nrows, nterm;
    jterm term[6];
    double p1[3], p2[3]; /* the joint point in the frames of body1 and body2 */
    int rot_driver, trans_driver;
    double value, s0;
    const ld_tfn *fn;
} jnt;

struct ld_jsys {
    const ld_model *m;
    int nj, rows;
    jnt *j;
};

/* ---------------------------------------------------------------- body-fixed quantities */

/* A direction R a or a point x + R p of one body, evaluated at q. */
typedef struct bq {
    int body;    /* LD_GROUND: constant, no columns */
    int kb;      /* velocity columns of the body: 0 (ground), 6 or 7 */
    int point;   /* 1: x + R loc; 0: R loc */
    size_t voff; /* the body's velocity offset */
    size_t bcol; /* its first column in the B being written */
    double loc[3], val[3], R[9];
    double J[21]; /* ∂val/∂(body coordinates), 3 × kb */
} bq;

static void bq_eval(const ld_system *s, const double *q, int body, int point, const double loc[3],
                    bq *o) {
    const rb_sys *rb = ld_rb(s);
    o->body = body;
    o->point = point;
    memcpy(o->loc, loc, sizeof o->loc);
    if (body < 0) {
        static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        o->kb = 0;
        o->voff = 0;
        memcpy(o->R, eye, sizeof eye);
        memcpy(o->val, loc, sizeof o->val);
        return;
    }
    const double *x;
    o->voff = (size_t)s->nodes[body].voff;
    ld_rb_pose(s, q, body, o->R, &x);
    ld_m3_mulv(o->val, o->R, loc);
    if (point)
        for (int i = 0; i < 3; ++i) o->val[i] += x[i];
    if (rb->euler) {
        double G[12];
        ld_ep_drot(G, q + s->nodes[body].qoff + 3, loc);
        o->kb = 7;
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) o->J[7 * i + j] = point && i == j ? 1.0 : 0.0;
            for (int j = 0; j < 4; ++j) o->J[7 * i + 3 + j] = G[4 * i + j];
        }
        return;
    }
    double P[9], RP[9];
    ld_m3_hat(P, loc);
    ld_m3_mul(RP, o->R, P);
    o->kb = 6;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            o->J[6 * i + j] = -RP[3 * i + j];
            o->J[6 * i + 3 + j] = !point ? 0.0 : rb->semi ? o->R[3 * i + j] : (i == j ? 1.0 : 0.0);
        }
}

/* out = sc · J v_body (added). */
static void bq_rate(const bq *o, const double *v, double sc, double out[3]) {
    for (int i = 0; i < 3; ++i) {
        double acc = 0.0;
        for (int c = 0; c < o->kb; ++c) acc += o->J[o->kb * i + c] * v[o->voff + (size_t)c];
        out[i] += sc * acc;
    }
}

/* out += sc · (the acceleration of val not multiplying v̇). */
static void bq_bias(const ld_system *s, const bq *o, const double *v, double sc, double out[3]) {
    if (o->body < 0) return;
    double w[3], c1[3], c2[3];
    const double *vb = v + o->voff;
    if (ld_rb(s)->euler) { /* 2 R(ė) loc */
        double Rd[9];
        ld_ep_rot(Rd, vb + 3);
        ld_m3_mulv(w, Rd, o->loc);
        for (int i = 0; i < 3; ++i) out[i] += 2.0 * sc * w[i];
        return;
    }
    ld_v3_cross(c1, vb, o->loc);
    ld_v3_cross(c2, vb, c1);
    if (o->point && ld_rb(s)->semi) {
        ld_v3_cross(c1, vb, vb + 3);
        for (int i = 0; i < 3; ++i) c2[i] += c1[i];
    }
    ld_m3_mulv(w, o->R, c2);
    for (int i = 0; i < 3; ++i) out[i] += sc * w[i];
}

/* B[row, body columns] += sc · cᵀ J. */
static void bq_add_b(const bq *o, const double c[3], double sc, double *B, size_t ldb, size_t row) {
    for (int j = 0; j < o->kb; ++j)
        B[row * ldb + o->bcol + (size_t)j] +=
            sc * (c[0] * o->J[j] + c[1] * o->J[o->kb + j] + c[2] * o->J[2 * o->kb + j]);
}

/* K[body, body] += sc · ∂(Jᵀ c)/∂q at fixed c. */
static void bq_add_hess(const ld_system *s, const bq *o, const double c[3], double sc, double *K,
                        size_t k) {
    if (o->body < 0) return;
    size_t b = o->voff;
    if (ld_rb(s)->euler) {
        double H[16];
        ld_ep_drot2(H, o->loc, c);
        for (size_t r = 0; r < 4; ++r)
            for (size_t j = 0; j < 4; ++j) K[(b + 3 + r) * k + b + 3 + j] += sc * H[4 * r + j];
        return;
    }
    double w[3], P[9], H[9], PH[9];
    ld_m3_tmulv(w, o->R, c);
    ld_m3_hat(P, o->loc);
    ld_m3_hat(H, w);
    ld_m3_mul(PH, P, H);
    int trans = o->point && ld_rb(s)->semi;
    for (size_t r = 0; r < 3; ++r)
        for (size_t j = 0; j < 3; ++j) {
            K[(b + r) * k + b + j] += sc * PH[3 * r + j];
            if (trans) K[(b + 3 + r) * k + b + j] += sc * H[3 * r + j];
        }
}

/* K[f.body, g.body] += sc · J_fᵀ J_g. */
static void bq_add_cross(const bq *f, const bq *g, double sc, double *K, size_t k) {
    for (int r = 0; r < f->kb; ++r)
        for (int c = 0; c < g->kb; ++c) {
            double acc = 0.0;
            for (int i = 0; i < 3; ++i) acc += f->J[f->kb * i + r] * g->J[g->kb * i + c];
            K[(f->voff + (size_t)r) * k + g->voff + (size_t)c] += sc * acc;
        }
}

/* A signed sum of at most two quantities: R1 a, or d = P2 − P1. */
typedef struct vsum {
    int n;
    const bq *q[2];
    double sg[2];
    double val[3];
} vsum;

static void vsum_set(vsum *e, const bq *q0, double s0, const bq *q1, double s1) {
    e->n = q1 ? 2 : 1;
    e->q[0] = q0, e->sg[0] = s0;
    e->q[1] = q1, e->sg[1] = s1;
    for (int i = 0; i < 3; ++i) e->val[i] = s0 * q0->val[i] + (q1 ? s1 * q1->val[i] : 0.0);
}

/* ---------------------------------------------------------------- one joint */

/* What to evaluate (NULL: not wanted). Rows of phi, phit, z, B and lam are the joint's own,
 * from 0; K (k×k) and v are global or local, as voff says. */
typedef struct jout {
    double *phi, *phit, *z, *B, *K;
    const double *v, *lam;
    size_t ldb, k;
    size_t col[2];    /* B's first columns of body1 and body2 */
    size_t voff[2];   /* their first entries in v and K */
    int angle_from_q; /* rotation driver: θ from the configuration instead of value f(t) */
} jout;

/* Coefficients of the terms at t: value, first and second derivative. */
static void coefficients(const jnt *jt, double t, double c[C_N][3]) {
    for (int i = 0; i < C_N; ++i) c[i][0] = 1.0, c[i][1] = c[i][2] = 0.0;
    if (!jt->rot_driver) return;
    double f[3];
    ld_tfn_eval_d(jt->fn, t, f);
    double th = jt->value * f[0], thd = jt->value * f[1], thdd = jt->value * f[2];
    double ct = cos(th), st = sin(th);
    c[C_COS][0] = ct;
    c[C_COS][1] = -st * thd;
    c[C_COS][2] = -ct * thd * thd - st * thdd;
    c[C_MSIN][0] = -st;
    c[C_MSIN][1] = -ct * thd;
    c[C_MSIN][2] = st * thd * thd - ct * thdd;
}

/* The term f·g (row r, coefficient c). */
static void dot_term(const ld_system *s, const vsum *f, const vsum *g, int r, const double c[3],
                     const jout *o) {
    double sv = ld_v3_dot(f->val, g->val);
    size_t row = (size_t)r;
    if (o->phi) o->phi[r] += c[0] * sv;
    if (o->phit) o->phit[r] += c[1] * sv;
    if (o->B) {
        for (int i = 0; i < f->n; ++i)
            bq_add_b(f->q[i], g->val, c[0] * f->sg[i], o->B, o->ldb, row);
        for (int i = 0; i < g->n; ++i)
            bq_add_b(g->q[i], f->val, c[0] * g->sg[i], o->B, o->ldb, row);
    }
    if (o->z) {
        double fd[3] = {0, 0, 0}, gd[3] = {0, 0, 0}, fz[3] = {0, 0, 0}, gz[3] = {0, 0, 0};
        for (int i = 0; i < f->n; ++i) {
            bq_rate(f->q[i], o->v, f->sg[i], fd);
            bq_bias(s, f->q[i], o->v, f->sg[i], fz);
        }
        for (int i = 0; i < g->n; ++i) {
            bq_rate(g->q[i], o->v, g->sg[i], gd);
            bq_bias(s, g->q[i], o->v, g->sg[i], gz);
        }
        double sd = ld_v3_dot(fd, g->val) + ld_v3_dot(f->val, gd);
        double zs = ld_v3_dot(fz, g->val) + 2.0 * ld_v3_dot(fd, gd) + ld_v3_dot(f->val, gz);
        o->z[r] += c[0] * zs + 2.0 * c[1] * sd + c[2] * sv;
    }
    if (o->K) {
        double l = o->lam[r] * c[0];
        for (int i = 0; i < f->n; ++i) bq_add_hess(s, f->q[i], g->val, l * f->sg[i], o->K, o->k);
        for (int i = 0; i < g->n; ++i) bq_add_hess(s, g->q[i], f->val, l * g->sg[i], o->K, o->k);
        for (int i = 0; i < f->n; ++i)
            for (int j = 0; j < g->n; ++j) {
                double sc = l * f->sg[i] * g->sg[j];
                bq_add_cross(f->q[i], g->q[j], sc, o->K, o->k);
                bq_add_cross(g->q[j], f->q[i], sc, o->K, o->k);
            }
    }
}

/* The term d = P2 − P1 (rows r … r + 2, coefficient c). */
static void point_term(const ld_system *s, const vsum *d, int r, const double c[3], const jout *o) {
    for (int i = 0; i < 3; ++i) {
        if (o->phi) o->phi[r + i] += c[0] * d->val[i];
        if (o->phit) o->phit[r + i] += c[1] * d->val[i];
    }
    for (int n = 0; n < d->n; ++n) {
        const bq *p = d->q[n];
        double sc = d->sg[n];
        if (o->B)
            for (size_t i = 0; i < 3; ++i)
                for (int j = 0; j < p->kb; ++j)
                    o->B[((size_t)r + i) * o->ldb + p->bcol + (size_t)j] +=
                        c[0] * sc * p->J[p->kb * (int)i + j];
        if (o->K) {
            double lam[3] = {o->lam[r], o->lam[r + 1], o->lam[r + 2]};
            bq_add_hess(s, p, lam, c[0] * sc, o->K, o->k);
        }
    }
    if (o->z) {
        double rate[3] = {0, 0, 0}, bias[3] = {0, 0, 0};
        for (int n = 0; n < d->n; ++n) {
            bq_rate(d->q[n], o->v, d->sg[n], rate);
            bq_bias(s, d->q[n], o->v, d->sg[n], bias);
        }
        for (int i = 0; i < 3; ++i)
            o->z[r + i] += c[0] * bias[i] + 2.0 * c[1] * rate[i] + c[2] * d->val[i];
    }
}

/* The relative angle of a rotation driver's bodies at q: atan2((R1 u2)·(R2 w), (R1 u1)·(R2 w)),
 * equal to θ(t) where the driver's equation holds. */
static double driver_angle(const jnt *jt, const ld_system *s, const double *q) {
    bq a, b, w;
    bq_eval(s, q, jt->b1, 0, jt->term[0].a, &a);
    bq_eval(s, q, jt->b1, 0, jt->term[1].a, &b);
    bq_eval(s, q, jt->b2, 0, jt->term[0].b, &w);
    return atan2(ld_v3_dot(a.val, w.val), ld_v3_dot(b.val, w.val));
}

static void joint_eval(const jnt *jt, const ld_system *s, double t, const double *q,
                       const jout *o) {
    double c[C_N][3];
    bq P1, P2;
    vsum d;
    coefficients(jt, t, c);
    if (jt->rot_driver && o->angle_from_q) {
        double th = driver_angle(jt, s, q);
        c[C_COS][0] = cos(th);
        c[C_MSIN][0] = -sin(th);
    }
    bq_eval(s, q, jt->b1, 1, jt->p1, &P1);
    bq_eval(s, q, jt->b2, 1, jt->p2, &P2);
    P1.bcol = o->col[0], P1.voff = o->voff[0];
    P2.bcol = o->col[1], P2.voff = o->voff[1];
    vsum_set(&d, &P2, 1.0, &P1, -1.0);
    for (int n = 0; n < jt->nterm; ++n) {
        const jterm *tm = &jt->term[n];
        if (tm->kind == T_POINT) {
            point_term(s, &d, tm->row, c[tm->coef], o);
            continue;
        }
        bq r1, r2;
        vsum f, g;
        bq_eval(s, q, jt->b1, 0, tm->a, &r1);
        r1.bcol = o->col[0], r1.voff = o->voff[0];
        vsum_set(&f, &r1, 1.0, NULL, 0.0);
        if (tm->kind == T_VV) {
            bq_eval(s, q, jt->b2, 0, tm->b, &r2);
            r2.bcol = o->col[1], r2.voff = o->voff[1];
            vsum_set(&g, &r2, 1.0, NULL, 0.0);
            dot_term(s, &f, &g, tm->row, c[tm->coef], o);
        } else {
            dot_term(s, &f, &d, tm->row, c[tm->coef], o);
        }
    }
    if (jt->trans_driver) { /* − s0 − value f(t) */
        double f[3];
        ld_tfn_eval_d(jt->fn, t, f);
        if (o->phi) o->phi[0] -= jt->s0 + jt->value * f[0];
        if (o->phit) o->phit[0] -= jt->value * f[1];
        if (o->z) o->z[0] -= jt->value * f[2];
    }
}

/* The joint's columns in a global B: the bodies' velocity offsets. */
static jout global_out(const jnt *jt, const ld_system *s) {
    jout o;
    memset(&o, 0, sizeof o);
    o.ldb = o.k = (size_t)s->k;
    o.col[0] = o.voff[0] = jt->b1 >= 0 ? (size_t)s->nodes[jt->b1].voff : 0;
    o.col[1] = o.voff[1] = (size_t)s->nodes[jt->b2].voff;
    return o;
}

/* ---------------------------------------------------------------- set-up */

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

/* ---------------------------------------------------------------- evaluators */

int ld_jsys_phi(const ld_jsys *J, const ld_system *s, double t, const double *q, double *Phi) {
    memset(Phi, 0, (size_t)J->rows * sizeof(double));
    for (int j = 0; j < J->nj; ++j) {
        jout o = global_out(&J->j[j], s);
        o.phi = Phi + J->j[j].row0;
        joint_eval(&J->j[j], s, t, q, &o);
    }
    return LD_OK;
}

int ld_jsys_phi_q(const ld_jsys *J, const ld_system *s, double t, const double *q, double *B) {
    size_t k = (size_t)s->k;
    memset(B, 0, (size_t)J->rows * k * sizeof(double));
    for (int j = 0; j < J->nj; ++j) {
        jout o = global_out(&J->j[j], s);
        o.B = B + (size_t)J->j[j].row0 * k;
        joint_eval(&J->j[j], s, t, q, &o);
    }
    return LD_OK;
}

int ld_jsys_phi_q_local(const ld_jsys *J, const ld_system *s, double t, const double *q, int j,
                        double *Bl) {
    const jnt *jt = &J->j[j];
    jout o;
    memset(&o, 0, sizeof o);
    memset(Bl, 0, (size_t)jt->nrows * 12 * sizeof(double));
    o.B = Bl;
    o.ldb = 12;
    o.col[1] = 6;
    joint_eval(jt, s, t, q, &o);
    return jt->nrows;
}

void ld_jsys_bodies(const ld_jsys *J, int j, int *body1, int *body2) {
    *body1 = J->j[j].b1;
    *body2 = J->j[j].b2;
}

int ld_jsys_phi_t(const ld_jsys *J, const ld_system *s, double t, const double *q, double *Phit) {
    memset(Phit, 0, (size_t)J->rows * sizeof(double));
    for (int j = 0; j < J->nj; ++j) {
        if (!J->j[j].rot_driver && !J->j[j].trans_driver) continue;
        jout o = global_out(&J->j[j], s);
        o.phit = Phit + J->j[j].row0;
        joint_eval(&J->j[j], s, t, q, &o);
    }
    return LD_OK;
}

int ld_jsys_phi_dd(const ld_jsys *J, const ld_system *s, double t, const double *q, const double *v,
                   double *z) {
    memset(z, 0, (size_t)J->rows * sizeof(double));
    for (int j = 0; j < J->nj; ++j) {
        jout o = global_out(&J->j[j], s);
        o.z = z + J->j[j].row0;
        o.v = v;
        joint_eval(&J->j[j], s, t, q, &o);
    }
    return LD_OK;
}

int ld_jsys_add_stiffness(const ld_jsys *J, const ld_system *s, double t, const double *q,
                          const double *lambda, double *K) {
    for (int j = 0; j < J->nj; ++j) {
        jout o = global_out(&J->j[j], s);
        o.K = K;
        o.lam = lambda + J->j[j].row0;
        joint_eval(&J->j[j], s, t, q, &o);
    }
    return LD_OK;
}

int ld_jsys_reaction(const ld_jsys *J, const ld_system *s, int j, const double *q,
                     const double *lambda, double f[3], double tau[3]) {
    if (j < 0 || j >= J->nj) return LD_EINVAL;
    const jnt *jt = &J->j[j];
    int b = jt->b2;
    double Bl[6 * 14] = {0}, F[7] = {0}, R[9], tb[3];
    const double *x;
    jout o;
    memset(&o, 0, sizeof o);
    o.B = Bl;
    o.ldb = 14;
    o.col[0] = 0;
    o.col[1] = 7;
    o.angle_from_q = 1; /* B depends on t only through a rotation driver's angle */
    joint_eval(jt, s, 0.0, q, &o);
    int kb = ld_rb(s)->euler ? 7 : 6;
    for (int c = 0; c < kb; ++c)
        for (int r = 0; r < jt->nrows; ++r) F[c] -= Bl[14 * r + 7 + c] * lambda[r];
    ld_rb_pose(s, q, b, R, &x);
    if (ld_rb(s)->euler) { /* τ_body = ½ L(ê) F_e */
        double e[4];
        if (ld_quat_normalize(e, q + s->nodes[b].qoff + 3)) return LD_EDOMAIN;
        ld_ep_rot(R, e);
        memcpy(f, F, 3 * sizeof(double));
        ld_ep_Lmul(tb, e, F + 3);
        for (int i = 0; i < 3; ++i) tb[i] *= 0.5;
    } else {
        if (ld_rb(s)->semi)
            ld_m3_mulv(f, R, F + 3);
        else
            memcpy(f, F + 3, 3 * sizeof(double));
        memcpy(tb, F, sizeof tb);
    }
    ld_m3_mulv(tau, R, tb);
    return LD_OK;
}

/* ---------------------------------------------------------------- initial velocity */

/* The body to name when joint jt's velocity equations fail. */
static int blamed_body(const ld_model *m, const jnt *jt) {
    if (!m->bodies[jt->b2].has_v && jt->b1 >= 0 && m->bodies[jt->b1].has_v) return jt->b1;
    return jt->b2;
}

/* One unknown of the initial-velocity solve: it adds w[i] u to v[col + i], i < nent (a
 * component of ẋ or U: one entry; of Ω: one entry, or ė = ½ Lᵀ(e) Ω in the euler
 * formulation: four). w carries the weight 1/√(mass or moment), so that the solution of
 * smallest norm is the one of least kinetic energy. */
typedef struct unknown {
    int col, nent;
    double w[4];
} unknown;

/* Work space of the initial-velocity solve: B (rows × k), Φ_t, the unknowns. */
typedef struct vsolve {
    const double *B, *phit;
    size_t k;
    const unknown *u;
    int nu;
    double *A, *rhs, *sv, *v; /* rows × nu, max(rows, nu), max(rows, nu), k */
    lapack_int *piv;          /* nu: the column pivots */
} vsolve;

/* The unknowns of w->v by minimum-norm least squares on the first nr rows:
 * B_u u = −(B v + Φ_t) with the unknown entries of v set to 0. */
static int vsolve_rows(vsolve *w, int nr) {
    size_t nu = (size_t)w->nu;
    for (size_t c = 0; c < nu; ++c)
        for (int i = 0; i < w->u[c].nent; ++i) w->v[w->u[c].col + i] = 0.0;
    if (nu == 0 || nr == 0) return LD_OK;
    for (size_t r = 0; r < (size_t)nr; ++r) {
        const double *Br = w->B + r * w->k;
        double acc = w->phit[r];
        for (size_t c = 0; c < w->k; ++c) acc += Br[c] * w->v[c];
        w->rhs[r] = -acc;
        for (size_t c = 0; c < nu; ++c) {
            double a = 0.0;
            for (int i = 0; i < w->u[c].nent; ++i) a += Br[w->u[c].col + i] * w->u[c].w[i];
            w->A[r * nu + c] = a;
        }
    }
    lapack_int rank = 0;
    for (size_t r = (size_t)nr; r < nu; ++r) w->rhs[r] = 0.0; /* b has max(nr, nu) rows */
    memset(w->piv, 0, nu * sizeof *w->piv); /* complete orthogonal factorization: min norm */
    lapack_int info = LAPACKE_dgelsy(LAPACK_ROW_MAJOR, (lapack_int)nr, (lapack_int)nu, 1, w->A,
                                     (lapack_int)nu, w->rhs, 1, w->piv, 1e-12, &rank);
    if (info != 0) return LD_ESINGULAR;
    for (size_t c = 0; c < nu; ++c)
        for (int i = 0; i < w->u[c].nent; ++i) w->v[w->u[c].col + i] += w->u[c].w[i] * w->rhs[c];
    return LD_OK;
}

/* The largest violation of the velocity equations B v + Φ_t = 0 among the first nr rows,
 * relative to the size of their terms: 1e-6 (1 + Σ |B_rc v_c| + |Φ_t,r|) is the bound. */
static double vsolve_worst(const vsolve *w, int nr, double *res) {
    double worst = 0.0;
    *res = 0.0;
    for (size_t r = 0; r < (size_t)nr; ++r) {
        double e = w->phit[r], scale = fabs(w->phit[r]);
        for (size_t c = 0; c < w->k; ++c) {
            e += w->B[r * w->k + c] * w->v[c];
            scale += fabs(w->B[r * w->k + c] * w->v[c]);
        }
        double rel = fabs(e) / (1e-6 * (1.0 + scale));
        if (!(rel <= worst)) worst = rel, *res = e;
    }
    return worst;
}

/* The unknowns of body i (its velocity when not given, its angular velocity when not given)
 * appended at u[*nu]; none for a held body. */
static void body_unknowns(const ld_system *s, const double *q, int i, const unsigned char *held,
                          unknown *u, int *nu) {
    const ld_body *b = &ld_rb(s)->m->bodies[i];
    int euler = ld_rb(s)->euler, voff = s->nodes[i].voff;
    if (b->pin || held[i] == 1) return;
    int free_v = !b->has_v || held[i] == 2, free_w = b->omega_free || held[i] == 2;
    for (int c = 0; free_v && c < 3; ++c)
        u[(*nu)++] = (unknown){voff + (euler ? 0 : 3) + c, 1, {1.0 / sqrt(b->mass), 0, 0, 0}};
    for (int c = 0; free_w && c < 3; ++c) {
        double sc = 1.0 / sqrt(b->inertia[4 * c]), E[4] = {0}, Om[3] = {0};
        if (!euler) {
            u[(*nu)++] = (unknown){voff + c, 1, {sc, 0, 0, 0}};
            continue;
        }
        Om[c] = 0.5 * sc; /* ė = ½ Lᵀ(e) Ω for Ω = e_c */
        ld_ep_Ltmul(E, q + s->nodes[i].qoff + 3, Om);
        u[(*nu)++] = (unknown){voff + 3, 4, {E[0], E[1], E[2], E[3]}};
    }
}

/* The nodes of rod g (g < nrods) or beam g − nrods that are bodies, into out; their count.
 * *given: the item gives its initial motion. */
static int item_nodes(const ld_model *m, int g, int *out, int *given) {
    int cnt = 0;
    if (g < m->nrods) {
        *given = m->rods[g].has_motion;
        for (int k = 0; k <= m->rods[g].n; ++k) out[cnt++] = m->rods[g].body0 + k;
        return cnt;
    }
    const ld_beam *b = &m->beams[g - m->nrods];
    *given = b->has_motion;
    for (int k = 0; k < b->nnodes; ++k)
        if (b->node_body[k] != LD_GROUND && !m->bodies[b->node_body[k]].pin)
            out[cnt++] = b->node_body[k];
    return cnt;
}

/* held[i] = 2 for the nodes of the rods and beams that start at rest by default (no motion
 * given, every node's velocities 0): the joints may set them moving. */
static void mark_at_rest(const ld_model *m, unsigned char *held, int *nodes) {
    for (int g = 0; g < m->nrods + m->nbeams; ++g) {
        int given, nn = item_nodes(m, g, nodes, &given), rest = !given;
        for (int a = 0; rest && a < nn; ++a) {
            const ld_body *b = &m->bodies[nodes[a]];
            for (int c = 0; c < 3; ++c) rest = rest && b->v[c] == 0.0 && b->omega[c] == 0.0;
        }
        for (int a = 0; rest && a < nn; ++a) held[nodes[a]] = 2;
    }
}

/* Node i's velocity slice (Ω, U) set to the rigid motion (ω, ẋ_j + ω × (x_i − x_j)). */
static void set_rigid(const ld_system *s, const double *q, int i, const double w[3],
                      const double xj[3], const double vj[3], double *v) {
    double R[9], r[3], wr[3], xd[3];
    const double *x;
    ld_rb_pose(s, q, i, R, &x);
    for (int c = 0; c < 3; ++c) r[c] = x[c] - xj[c];
    ld_v3_cross(wr, w, r);
    for (int c = 0; c < 3; ++c) xd[c] = vj[c] + wr[c];
    double *vi = v + s->nodes[i].voff;
    ld_m3_tmulv(vi, R, w);
    if (ld_rb(s)->semi)
        ld_m3_tmulv(vi + 3, R, xd);
    else
        memcpy(vi + 3, xd, 3 * sizeof(double));
}

/* Every rod and beam whose motion the model leaves out and whose nodes the joints set moving
 * (a beam clamped to a spinning hub) moves as a rigid body with its first moving node; those
 * nodes are held from then on. Returns the number of items set moving. */
static int follow_joined(const ld_system *s, const double *q, double *v, unsigned char *held,
                         int *nodes) {
    const ld_model *m = ld_rb(s)->m;
    int moved = 0;
    for (int g = 0; g < m->nrods + m->nbeams; ++g) {
        int given, nn = item_nodes(m, g, nodes, &given), j = -1;
        given = given || nn == 0 || held[nodes[0]] != 2; /* moving already, by the file */
        for (int a = 0; !given && a < nn && j < 0; ++a) {
            const double *vi = v + s->nodes[nodes[a]].voff;
            for (int c = 0; c < 6; ++c)
                if (vi[c] != 0.0) j = nodes[a];
        }
        if (j < 0) continue;
        double R[9], w[3], vj[3], Om[3], xj[3];
        const double *x;
        ld_rb_pose(s, q, j, R, &x);
        memcpy(xj, x, sizeof xj);
        ld_rb_body_velocity(s, q, v + s->nodes[j].voff, j, Om, vj);
        ld_m3_mulv(w, R, Om);
        for (int a = 0; a < nn; ++a) {
            set_rigid(s, q, nodes[a], w, xj, vj, v);
            held[nodes[a]] = 1;
        }
        ++moved;
    }
    return moved;
}

/* Every velocity 0 and no driver (Φ_t = 0): v = 0 solves B v + Φ_t = 0 and is the solve's
 * answer (the least-norm unknowns of a zero right-hand side), without its dense rows × k work —
 * a large model that starts at rest compiles in memory in proportion to it. */
static int at_rest(const ld_jsys *J, const double *v, int k) {
    for (int j = 0; j < J->nj; ++j)
        if (J->j[j].rot_driver || J->j[j].trans_driver) return 0;
    for (int i = 0; i < k; ++i)
        if (v[i] != 0.0) return 0;
    return 1;
}

int ld_jsys_initial_velocity(const ld_jsys *J, const ld_system *s, double t, const double *q,
                             double *v, char *msg, size_t n) {
    const ld_model *m = J->m;
    int rows = J->rows, nu = 0;
    if (msg && n) msg[0] = '\0';
    if (rows == 0 || at_rest(J, v, s->k)) return LD_OK;
    size_t R = (size_t)rows, K = (size_t)s->k, U = 6 * (size_t)m->nbodies;
    size_t big = R > U ? R : U;
    double *B =
        ld_xmalloc((R * K + R + R * U + 2 * big + K) * sizeof(double), "the joint closure's work");
    unknown *u = ld_xmalloc(U * sizeof *u, "the joint closure's work");
    lapack_int *piv = ld_xmalloc((U + 1) * sizeof *piv, "the joint closure's work");
    unsigned char *held = ld_xcalloc((size_t)m->nbodies + 1, 1, "the joint closure's work");
    int *nodes = ld_xmalloc(((size_t)m->nbodies + 1) * sizeof *nodes, "the joint closure's work");
    if (!B || !u || !piv || !held || !nodes) {
        free(B);
        free(u);
        free(piv);
        free(held);
        free(nodes);
        return LD_ENOMEM;
    }
    vsolve w = {B, B + R * K, K, u, 0, NULL, NULL, NULL, NULL, piv};
    w.A = B + R * K + R;
    w.rhs = w.A + R * U;
    w.sv = w.rhs + big;
    w.v = w.sv + big;
    ld_jsys_phi_q(J, s, t, q, B);
    ld_jsys_phi_t(J, s, t, q, B + R * K);
    double res;
    int rc = LD_OK;
    mark_at_rest(m, held, nodes);
    for (int pass = 0; pass < 2 && !rc; ++pass) { /* the second after rods and beams follow */
        nu = 0;
        for (int i = 0; i < m->nbodies; ++i) body_unknowns(s, q, i, held, u, &nu);
        w.nu = nu;
        memcpy(w.v, v, K * sizeof(double));
        rc = vsolve_rows(&w, rows);
        if (rc || pass == 1 || m->nrods + m->nbeams == 0) break;
        if (follow_joined(s, q, w.v, held, nodes) == 0) break;
        memcpy(v, w.v, K * sizeof(double));
    }
    if (!rc && vsolve_worst(&w, rows, &res) <= 1.0) {
        memcpy(v, w.v, K * sizeof(double));
    } else if (!rc) {
        /* the first joint that contradicts the given velocities and the joints before it */
        int j = 0;
        for (; j < J->nj - 1; ++j) {
            int nr = J->j[j].row0 + J->j[j].nrows;
            if (vsolve_rows(&w, nr) || vsolve_worst(&w, nr, &res) > 1.0) break;
        }
        if (!vsolve_rows(&w, J->j[j].row0 + J->j[j].nrows))
            (void)vsolve_worst(&w, J->j[j].row0 + J->j[j].nrows, &res);
        const ld_body *b = &m->bodies[blamed_body(m, &J->j[j])];
        if (msg)
            snprintf(msg, n,
                     "body '%s': the given %s contradicts joint %d ('%s') (a velocity residual "
                     "of %.3g remains; give only the velocities that drive the mechanism and "
                     "leave the others out: the joints determine them)",
                     b->name, b->has_v ? "velocity" : "angular velocity", j, m->joints[j].name,
                     res);
        rc = LD_EINVAL;
    } else if (msg) {
        snprintf(msg, n, "the joints' velocity equations cannot be solved");
    }
    free(B);
    free(u);
    free(piv);
    free(held);
    free(nodes);
    return rc ? LD_EINVAL : LD_OK;
}

/* ---------------------------------------------------------------- the joint element */

/* A joint's instance (element.h): its bodies (body1 unless the ground, then body2) and rows. */
static int jel_instances(const ld_model *m, ld_formulation f, ld_elem *out) {
    (void)f;
    for (int j = 0; out && j < m->njoints; ++j) {
        const ld_joint *jd = &m->joints[j];
        ld_elem *e = &out[j];
        e->item = j;
        e->nn = 0;
        if (jd->body1 >= 0) e->node[e->nn++] = jd->body1;
        e->node[e->nn++] = jd->body2;
        e->nrows = ld_joint_kind_rows(jd->kind);
    }
    return m->njoints;
}

/* The joint of an instance and its output in the instance's local arrays. */
static const jnt *jel_joint(const ld_elem_ctx *c, jout *o) {
    const jnt *jt = &ld_rb(c->s)->J->j[c->e->item];
    memset(o, 0, sizeof *o);
    o->ldb = o->k = (size_t)c->e->nl;
    int slot = 0;
    if (jt->b1 >= 0) o->col[0] = o->voff[0] = (size_t)c->e->off[slot++];
    o->col[1] = o->voff[1] = (size_t)c->e->off[slot];
    o->v = c->v;
    return jt;
}

/* Evaluate the instance's joint with one output set: the output's slot in jout. */
enum { JEL_PHI, JEL_B, JEL_PHIT, JEL_Z, JEL_K };

static int jel_run(const ld_elem_ctx *c, int what, double *out) {
    jout o;
    const jnt *jt = jel_joint(c, &o);
    double **slot[] = {&o.phi, &o.B, &o.phit, &o.z, &o.K};
    if (what == JEL_PHIT && !jt->rot_driver && !jt->trans_driver) return LD_OK; /* Φ_t = 0 */
    if (what == JEL_K && !c->lam) return LD_OK; /* ∂/∂q [B_jᵀ λ_j]: only with multipliers */
    *slot[what] = out;
    o.lam = c->lam;
    joint_eval(jt, c->s, c->t, c->q, &o);
    return LD_OK;
}

static int jel_phi(const ld_elem_ctx *c, double *phi) {
    return jel_run(c, JEL_PHI, phi);
}

static int jel_phi_q(const ld_elem_ctx *c, double *Bl) {
    return jel_run(c, JEL_B, Bl);
}

static int jel_phi_t(const ld_elem_ctx *c, double *phit) {
    return jel_run(c, JEL_PHIT, phit);
}

static int jel_phi_dd(const ld_elem_ctx *c, double *z) {
    return jel_run(c, JEL_Z, z);
}

static int jel_stiffness(const ld_elem_ctx *c, double *K) {
    return jel_run(c, JEL_K, K);
}

/* The fused pass (element.h): Φ, B and the multipliers' stiffness from one evaluation of the
 * joint's kinematics. */
static int jel_newton(const ld_elem_ctx *c, const ld_elem_nout *out) {
    jout o;
    const jnt *jt = jel_joint(c, &o);
    o.phi = out->phi;
    o.B = out->B;
    o.K = c->lam ? out->K : NULL;
    o.lam = c->lam;
    if (o.phi || o.B || o.K) joint_eval(jt, c->s, c->t, c->q, &o);
    return LD_OK;
}

static void jel_row_name(const ld_model *m, const ld_elem *e, int r, char *buf, size_t cap) {
    const ld_joint *jd = &m->joints[e->item];
    char lab[LD_NAME_MAX + 32];
    ld_elems_label(lab, sizeof lab, "joints", jd->name, e->item, jd->line);
    strf(buf, cap, "joint %s, row %d of %d", lab, r + 1, e->nrows);
}

const ld_ekind ld_ek_joint = {.name = "joint",
                              .instances = jel_instances,
                              .stiffness = jel_stiffness,
                              .phi = jel_phi,
                              .phi_q = jel_phi_q,
                              .phi_t = jel_phi_t,
                              .phi_dd = jel_phi_dd,
                              .row_name = jel_row_name,
                              .newton = jel_newton};

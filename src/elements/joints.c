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
 * Everything a joint needs is derived in ld_jsys_create (joints_setup.c); the evaluators do not
 * allocate. The consistent initial velocities are in joints_velocity.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/strf.h"
#include "../lie/mat3.h"
#include "element.h"
#include "../lie/ep.h"
#include "liedyn/liedyn.h"
#include "kinds.h"
#include "joints_impl.h"

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

/*
 * The body element (element.h): one per rigid body (and per rod node), on its one node — the
 * inertia, gravity and the body's loads (through the load index of rb_sys). On the groups, with
 * v = (Ω, U):
 *   direct (so3xr3, s3xr3):      U = ẋ,    J Ω̇ + Ω × JΩ = τ,   m U̇ = f
 *   semidirect (se3, s3sdr3):    U = Rᵀẋ,  J Ω̇ + Ω × JΩ = τ,   m (U̇ + Ω × U) = Rᵀ f
 * τ the body-frame torque, f the spatial force; the euler formulation's body terms are in
 * euler.c. Every tangent is analytic; the system tests compare them with differences on the
 * group. All arrays are local: the node's block at 0.
 */
#include <string.h>

#include "../lie/mat3.h"
#include "element.h"
#include "../model/exact.h"
#include "liedyn/liedyn.h"
#include "kinds.h"

static int instances(const ld_model *m, ld_formulation f, ld_elem *out) {
    (void)f;
    for (int i = 0; out && i < m->nbodies; ++i) {
        out[i].item = i;
        out[i].nn = 1;
        out[i].node[0] = i;
    }
    return m->nbodies;
}

void ld_rb_loads_eval(const rb_sys *rb, int i, double t, ld_rb_loads *L) {
    const ld_model *m = rb->m;
    const ld_body *b = &m->bodies[i];
    memset(L, 0, sizeof *L);
    for (int j = 0; j < 3; ++j) L->fs[j] = b->mass * m->gravity[j];
    for (int e = rb->load_start[i]; e < rb->load_start[i + 1]; ++e) {
        const ld_load *ld = &m->loads[rb->load_list[e]];
        if (ld->kind == LD_LOAD_EXACT_TORQUE) {
            double q[4], Om[3], Omd[3], JO[3], JOd[3], c[3];
            ld_exact_eval(ld->exact, t, q, Om, Omd);
            ld_m3_mulv(JO, b->inertia, Om);
            ld_m3_mulv(JOd, b->inertia, Omd);
            ld_v3_cross(c, Om, JO);
            for (int j = 0; j < 3; ++j) c[j] += JOd[j];
            if (ld->frame == LD_IN_SPATIAL) { /* M = R_exact τ, a rotation-dependent load */
                ld_quat_rotate(JO, q, c);
                for (int j = 0; j < 3; ++j) L->ts[j] += JO[j];
            } else {
                for (int j = 0; j < 3; ++j) L->tb[j] += c[j];
            }
            continue;
        }
        double f = ld_tfn_eval(&ld->fn, t), *dst;
        if (ld->kind == LD_LOAD_TORQUE)
            dst = ld->frame == LD_IN_BODY ? L->tb : L->ts;
        else
            dst = ld->frame == LD_IN_BODY ? L->fb : L->fs;
        for (int j = 0; j < 3; ++j) dst[j] += f * ld->vec[j];
    }
}

static int mass(const ld_elem_ctx *c, double *M) {
    const rb_sys *rb = ld_rb(c->s);
    int i = c->e->item;
    const ld_body *b = &rb->m->bodies[i];
    if (rb->euler) {
        ld_ep_body_mass(b, c->q + c->s->nodes[i].qoff, M, 7, 0);
        return LD_OK;
    }
    for (int r = 0; r < 3; ++r) {
        for (int k = 0; k < 3; ++k) M[6 * r + k] = b->inertia[3 * r + k];
        M[6 * (3 + r) + 3 + r] = b->mass;
    }
    return LD_OK;
}

/* g of the Lie-group formulations from the pose R and the loads L. */
static void force_at(const rb_sys *rb, const ld_body *b, const double R[9], const ld_rb_loads *L,
                     const double *v, double *g) {
    const double *Om = v, *U = v + 3;
    double JO[3], cr[3], tau[3], f[3], tmp[3];
    ld_m3_mulv(JO, b->inertia, Om);
    ld_v3_cross(cr, Om, JO);
    ld_m3_tmulv(tmp, R, L->ts);
    for (int j = 0; j < 3; ++j) tau[j] = L->tb[j] + tmp[j];
    for (int j = 0; j < 3; ++j) g[j] = cr[j] - tau[j];
    if (rb->semi) { /* m Ω × U − Rᵀ f_s − f_b */
        ld_m3_tmulv(f, R, L->fs);
        ld_v3_cross(cr, Om, U);
        for (int j = 0; j < 3; ++j) g[3 + j] = b->mass * cr[j] - f[j] - L->fb[j];
    } else { /* −f_s − R f_b */
        ld_m3_mulv(f, R, L->fb);
        for (int j = 0; j < 3; ++j) g[3 + j] = -L->fs[j] - f[j];
    }
}

static int force(const ld_elem_ctx *c, double *g) {
    const rb_sys *rb = ld_rb(c->s);
    int i = c->e->item;
    const ld_body *b = &rb->m->bodies[i];
    ld_rb_loads L;
    ld_rb_loads_eval(rb, i, c->t, &L);
    if (rb->euler) {
        ld_ep_body_force(b, c->q + c->s->nodes[i].qoff, c->v, &L, g);
        return LD_OK;
    }
    const double *x;
    double R[9];
    ld_rb_pose(c->s, c->q, i, R, &x);
    force_at(rb, b, R, &L, c->v, g);
    return LD_OK;
}

/* ∂g/∂v: rotation block hat(Ω) J − hat(JΩ); semidirect translation: m Ω × U. */
static int g_v(const ld_elem_ctx *c, double *C) {
    const rb_sys *rb = ld_rb(c->s);
    int i = c->e->item;
    const ld_body *b = &rb->m->bodies[i];
    if (rb->euler) {
        ld_ep_body_g_v(b, c->q + c->s->nodes[i].qoff, c->v, C, 7, 0);
        return LD_OK;
    }
    const double *Om = c->v, *U = c->v + 3;
    double JO[3], H[9], HJ[9], HJO[9], HU[9];
    ld_m3_mulv(JO, b->inertia, Om);
    ld_m3_hat(H, Om);
    ld_m3_mul(HJ, H, b->inertia);
    ld_m3_hat(HJO, JO);
    ld_m3_hat(HU, U);
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) {
            C[6 * r + k] = HJ[3 * r + k] - HJO[3 * r + k];
            if (rb->semi) {
                C[6 * (3 + r) + k] = -b->mass * HU[3 * r + k];
                C[6 * (3 + r) + 3 + k] = b->mass * H[3 * r + k];
            }
        }
    return LD_OK;
}

/* Adds sc·hat(w) to the 3×3 block (r0, c0) of the 6×6 K. */
static void add_hat(double *K, int r0, int c0, const double w[3], double sc) {
    double H[9];
    ld_m3_hat(H, w);
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) K[6 * (r0 + r) + c0 + k] += sc * H[3 * r + k];
}

/* K = ∂/∂q [M a + g]: on the groups only the loads depend on q (only through R), with
 * ∂(Rᵀw)/∂θ = hat(Rᵀw) and ∂(R w)/∂θ = −R hat(w). */
/* K of the Lie-group formulations from the pose R and the loads L. */
static void stiffness_at(const rb_sys *rb, const double R[9], const ld_rb_loads *L, double *K) {
    double w[3], Rw[9], P[9];
    ld_m3_tmulv(w, R, L->ts); /* −Rᵀ ts in the rotation rows */
    add_hat(K, 0, 0, w, -1.0);
    if (rb->semi) { /* −Rᵀ f_s in the translation rows */
        ld_m3_tmulv(w, R, L->fs);
        add_hat(K, 3, 0, w, -1.0);
    } else { /* −R f_b: derivative +R hat(f_b) */
        ld_m3_hat(P, L->fb);
        ld_m3_mul(Rw, R, P);
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) K[6 * (3 + r) + k] += Rw[3 * r + k];
    }
}

static int stiffness(const ld_elem_ctx *c, double *K) {
    const rb_sys *rb = ld_rb(c->s);
    int i = c->e->item;
    ld_rb_loads L;
    ld_rb_loads_eval(rb, i, c->t, &L);
    if (rb->euler) {
        ld_ep_body_stiffness(&rb->m->bodies[i], c->q + c->s->nodes[i].qoff, c->v, c->a, &L, K, 7,
                             0);
        return LD_OK;
    }
    const double *x;
    double R[9];
    ld_rb_pose(c->s, c->q, i, R, &x);
    stiffness_at(rb, R, &L, K);
    return LD_OK;
}

/* The fused pass (element.h): the pose and the loads once for g and K. */
static int newton(const ld_elem_ctx *c, const ld_elem_nout *o) {
    const rb_sys *rb = ld_rb(c->s);
    int i = c->e->item, rc = LD_OK;
    if (o->M) rc = mass(c, o->M);
    if (!rc && o->C) rc = g_v(c, o->C);
    if (rb->euler) {
        if (!rc && o->g) rc = force(c, o->g);
        if (!rc && o->K) rc = stiffness(c, o->K);
        return rc;
    }
    if (rc || (!o->g && !o->K)) return rc;
    const ld_body *b = &rb->m->bodies[i];
    const double *x;
    double R[9];
    ld_rb_loads L;
    ld_rb_loads_eval(rb, i, c->t, &L);
    ld_rb_pose(c->s, c->q, i, R, &x);
    if (o->g) force_at(rb, b, R, &L, c->v, o->g);
    if (o->K) stiffness_at(rb, R, &L, o->K);
    return LD_OK;
}

/* Kinetic energy and the potential of gravity. */
static int energy(const ld_elem_ctx *c, double *V) {
    const rb_sys *rb = ld_rb(c->s);
    int i = c->e->item;
    const ld_body *b = &rb->m->bodies[i];
    const double *x;
    double R[9], JO[3], Om[3], xd[3];
    ld_rb_pose(c->s, c->q, i, R, &x);
    ld_rb_body_velocity(c->s, c->q, c->v, i, Om, xd);
    ld_m3_mulv(JO, b->inertia, Om);
    *V = 0.5 * ld_v3_dot(Om, JO) + 0.5 * b->mass * ld_v3_dot(xd, xd) -
         b->mass * ld_v3_dot(rb->m->gravity, x);
    return LD_OK;
}

const ld_ekind ld_ek_body = {.name = "body",
                             .instances = instances,
                             .mass = mass,
                             .force = force,
                             .g_v = g_v,
                             .stiffness = stiffness,
                             .energy = energy,
                             .newton = newton};

void ld_rigid_motion(ld_body *b, int given, const double v0[3], const double w0[3],
                     const double x0[3]) {
    b->has_v = 1; /* given (at rest unless in motion); ld_jsys_initial_velocity lets the joints */
    b->omega_free = 0; /* move the nodes of a rod or beam at rest that is joined to a body */
    memset(b->v, 0, sizeof b->v);
    memset(b->omega, 0, sizeof b->omega);
    if (!given) return;
    double r[3] = {b->x[0] - x0[0], b->x[1] - x0[1], b->x[2] - x0[2]}, wr[3];
    ld_v3_cross(wr, w0, r);
    for (int i = 0; i < 3; ++i) b->v[i] = v0[i] + wr[i];
    ld_quat_rotate_inv(b->omega, b->q, w0); /* Ω = Rᵀ ω */
}

/* Joints of the rigid-body models in every formulation (rigid_impl.h): spherical joints to
 * the ground, Φ = x + R p − x_g. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "ep.h"
#include "liedyn/liedyn.h"
#include "rigid_impl.h"

struct ld_jsys {
    const ld_model *m;
    int rows;
};

int ld_jsys_create(const ld_model *m, ld_formulation f, ld_jsys **out, char *msg, size_t n) {
    (void)f;
    if (msg && n) msg[0] = '\0';
    ld_jsys *J = calloc(1, sizeof *J);
    if (!J) return LD_ENOMEM;
    J->m = m;
    J->rows = 3 * m->njoints;
    *out = J;
    return LD_OK;
}

void ld_jsys_free(ld_jsys *J) {
    free(J);
}

int ld_jsys_rows(const ld_jsys *J) {
    return J->rows;
}

int ld_jsys_joint_rows(const ld_jsys *J, int j, int *row0) {
    (void)J;
    *row0 = 3 * j;
    return 3;
}

/* The body point p (body frame): its spatial position and its Jacobian with respect to the
 * body's velocity coordinates (3 × kb, kb = 6 or 7, row-major); *kb receives kb. */
static void point_jac(const ld_system *s, const double *q, int b, const double p[3], double pos[3],
                      double Jp[21], int *kb) {
    const rb_sys *rb = ld_rb(s);
    const double *x;
    double R[9], Rp[3];
    ld_rb_pose(s, q, b, R, &x);
    ld_m3_mulv(Rp, R, p);
    for (int i = 0; i < 3; ++i) pos[i] = x[i] + Rp[i];
    if (rb->euler) {
        double G[12];
        ld_ep_drot(G, q + s->nodes[b].qoff + 3, p);
        *kb = 7;
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) Jp[7 * i + j] = i == j ? 1.0 : 0.0;
            for (int j = 0; j < 4; ++j) Jp[7 * i + 3 + j] = G[4 * i + j];
        }
        return;
    }
    double P[9], RP[9];
    ld_so3_hat(P, p);
    ld_m3_mul(RP, R, P);
    *kb = 6;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            Jp[6 * i + j] = -RP[3 * i + j];
            Jp[6 * i + 3 + j] = rb->semi ? R[3 * i + j] : (i == j ? 1.0 : 0.0);
        }
}

int ld_jsys_phi(const ld_jsys *J, const ld_system *s, double t, const double *q, double *Phi) {
    (void)t;
    for (int j = 0; j < J->m->njoints; ++j) {
        const ld_joint *jt = &J->m->joints[j];
        double pos[3], Jp[21];
        int kb;
        point_jac(s, q, jt->body, jt->p, pos, Jp, &kb);
        for (int i = 0; i < 3; ++i) Phi[3 * j + i] = pos[i] - jt->xg[i];
    }
    return LD_OK;
}

int ld_jsys_phi_q(const ld_jsys *J, const ld_system *s, double t, const double *q, double *B) {
    (void)t;
    size_t k = (size_t)s->k;
    memset(B, 0, (size_t)J->rows * k * sizeof(double));
    for (int j = 0; j < J->m->njoints; ++j) {
        const ld_joint *jt = &J->m->joints[j];
        double pos[3], Jp[21];
        int kb;
        point_jac(s, q, jt->body, jt->p, pos, Jp, &kb);
        size_t o = (size_t)s->nodes[jt->body].voff;
        for (size_t r = 0; r < 3; ++r)
            for (size_t c = 0; c < (size_t)kb; ++c)
                B[(3 * (size_t)j + r) * k + o + c] = Jp[(size_t)kb * r + c];
    }
    return LD_OK;
}

int ld_jsys_phi_t(const ld_jsys *J, const ld_system *s, double t, const double *q, double *Phit) {
    (void)s, (void)t, (void)q;
    memset(Phit, 0, (size_t)J->rows * sizeof(double));
    return LD_OK;
}

/* z = R(Ω × (Ω × p)) (+ R(Ω × U) for the semidirect products); euler: 2 R(ė) p. */
int ld_jsys_phi_dd(const ld_jsys *J, const ld_system *s, double t, const double *q, const double *v,
                   double *z) {
    (void)t;
    for (int j = 0; j < J->m->njoints; ++j) {
        const ld_joint *jt = &J->m->joints[j];
        int o = s->nodes[jt->body].voff;
        double R[9], c1[3], c2[3], w[3];
        const double *x;
        if (ld_rb(s)->euler) {
            ld_ep_rot(R, v + o + 3);
            ld_m3_mulv(w, R, jt->p);
            for (int i = 0; i < 3; ++i) z[3 * j + i] = 2.0 * w[i];
            continue;
        }
        const double *Om = v + o, *U = v + o + 3;
        ld_rb_pose(s, q, jt->body, R, &x);
        ld_v3_cross(c1, Om, jt->p);
        ld_v3_cross(c2, Om, c1);
        if (ld_rb(s)->semi) {
            ld_v3_cross(c1, Om, U);
            for (int i = 0; i < 3; ++i) c2[i] += c1[i];
        }
        ld_m3_mulv(w, R, c2);
        memcpy(z + 3 * j, w, sizeof w);
    }
    return LD_OK;
}

/* Bᵀλ = (hat(p) Rᵀλ, λ or Rᵀλ) on the group; euler (λ, G(e)ᵀλ) with G = ∂(R(e)p)/∂e. */
int ld_jsys_add_stiffness(const ld_jsys *J, const ld_system *s, double t, const double *q,
                          const double *lambda, double *K) {
    (void)t;
    size_t k = (size_t)s->k;
    for (int j = 0; j < J->m->njoints; ++j) {
        const ld_joint *jt = &J->m->joints[j];
        size_t o = (size_t)s->nodes[jt->body].voff;
        const double *lam = lambda + 3 * j, *x;
        if (ld_rb(s)->euler) {
            double H[16];
            ld_ep_drot2(H, jt->p, lam);
            for (size_t r = 0; r < 4; ++r)
                for (size_t c = 0; c < 4; ++c) K[(o + 3 + r) * k + o + 3 + c] += H[4 * r + c];
            continue;
        }
        double R[9], w[3], P[9], H[9], PH[9];
        ld_rb_pose(s, q, jt->body, R, &x);
        ld_m3_tmulv(w, R, lam);
        ld_so3_hat(P, jt->p);
        ld_so3_hat(H, w);
        ld_m3_mul(PH, P, H);
        for (size_t r = 0; r < 3; ++r)
            for (size_t c = 0; c < 3; ++c) {
                K[(o + r) * k + o + c] += PH[3 * r + c];
                if (ld_rb(s)->semi) K[(o + 3 + r) * k + o + c] += H[3 * r + c];
            }
    }
    return LD_OK;
}

int ld_jsys_reaction(const ld_jsys *J, const ld_system *s, int j, const double *q,
                     const double *lambda, double f[3], double tau[3]) {
    if (j < 0 || j >= J->m->njoints) return LD_EINVAL;
    const ld_joint *jt = &J->m->joints[j];
    double pos[3], Jp[21], F[7] = {0}, R[9], tb[3];
    const double *x;
    int kb;
    point_jac(s, q, jt->body, jt->p, pos, Jp, &kb);
    for (int c = 0; c < kb; ++c)
        for (int r = 0; r < 3; ++r) F[c] -= Jp[kb * r + c] * lambda[3 * j + r];
    ld_rb_pose(s, q, jt->body, R, &x);
    if (ld_rb(s)->euler) {
        double e[4];
        if (ld_quat_normalize(e, q + s->nodes[jt->body].qoff + 3)) return LD_EDOMAIN;
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

int ld_jsys_initial_velocity(const ld_jsys *J, const ld_system *s, double t, const double *q,
                             double *v, char *msg, size_t n) {
    (void)t;
    const ld_model *m = J->m;
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jt = &m->joints[j];
        const ld_body *b = &m->bodies[jt->body];
        int o = s->nodes[jt->body].voff, kb, euler = ld_rb(s)->euler;
        double pos[3], Jp[21], w[3] = {0, 0, 0}, R[9];
        const double *x;
        point_jac(s, q, jt->body, jt->p, pos, Jp, &kb);
        /* the point's velocity from the rotation alone */
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < (euler ? 4 : 3); ++c)
                w[r] += Jp[kb * r + (euler ? 3 : 0) + c] * v[o + (euler ? 3 : 0) + c];
        double *U = v + o + (euler ? 0 : 3), xd[3] = {-w[0], -w[1], -w[2]};
        ld_rb_pose(s, q, jt->body, R, &x);
        if (!b->has_v) {
            if (ld_rb(s)->semi)
                ld_m3_tmulv(U, R, xd);
            else
                memcpy(U, xd, sizeof xd);
            continue;
        }
        int bad = 0;
        for (int l = 0; l < 3; ++l) bad |= fabs(b->v[l] - xd[l]) > 1e-6 * (1.0 + fabs(xd[l]));
        if (bad) {
            if (msg)
                snprintf(msg, n,
                         "body '%s': the given velocity contradicts joint %d ('%s') (the joint "
                         "implies %.9g, %.9g, %.9g)",
                         b->name, j, jt->name, xd[0], xd[1], xd[2]);
            return LD_EINVAL;
        }
    }
    if (msg && n) msg[0] = '\0';
    return LD_OK;
}

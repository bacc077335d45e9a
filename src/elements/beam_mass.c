/*
 * The off-axis inertia of the beam nodes (element.h, docs/beam.md "Inertia"): one instance per
 * free beam node whose lumped centre of mass lies off the reference axis, on that node. The
 * node's body carries the mass m and the rotary inertia J_O about the axis point O (the node);
 * this kind adds what a centre of mass at c = m ξ / m (material frame) couples between them —
 * the 6×6 section mass of GEBT, [m I, m hat(ξ)ᵀ; m hat(ξ), J_O], lumped on the node.
 *
 * A rigid body referred to a point O that is not its centre of mass (Newton–Euler at O, a_O
 * the acceleration of O in the body frame, n the body moment about O, f the force):
 *   m a_O − hat(mξ) Ω̇ + Ω × (Ω × mξ) = Rᵀ f,    J_O Ω̇ + Ω × J_O Ω + hat(mξ) a_O = n.
 * With v = (Ω, U) rotation first, gravity γ, the coupling terms (the body element has the rest):
 *   direct (U = ẋ, a_O = Rᵀ ẍ):
 *     M = [0, hat(mξ) Rᵀ; −R hat(mξ), 0]
 *     g = (−hat(mξ) Rᵀ γ,  R (Ω × (Ω × mξ)))
 *     K = ∂/∂δθ (M a + g) = [hat(mξ) hat(Rᵀ(a_U − γ)), 0; −R hat(y), 0],
 *         y = −hat(mξ) Ω̇ + Ω × (Ω × mξ)
 *   semidirect (U = Rᵀẋ, a_O = U̇ + Ω × U):
 *     M = [0, hat(mξ); −hat(mξ), 0]
 *     g = (hat(mξ)(Ω × U − Rᵀ γ),  Ω × (Ω × mξ))
 *     K = [−hat(mξ) hat(Rᵀ γ), 0; 0, 0]
 *   ∂g/∂v: d(Ω × (Ω × c))/dΩ = (Ω·c) I + Ω cᵀ − 2 c Ωᵀ; semidirect rotation rows
 *     ∂/∂Ω = −hat(mξ) hat(U), ∂/∂U = hat(mξ) hat(Ω).
 * The kinetic energy's share is ẋ · R (Ω × mξ), the potential of gravity's −γ · R mξ.
 */
#include <string.h>

#include "../lie/mat3.h"
#include "element.h"
#include "liedyn/liedyn.h"
#include "kinds.h"

static int instances(const ld_model *m, ld_formulation f, ld_elem *out) {
    (void)f;
    int n = 0;
    for (int i = 0; i < m->nbeams; ++i) {
        const ld_beam *b = &m->beams[i];
        for (int k = 0; b->mxi_node && k < b->nnodes; ++k) {
            const double *c = b->mxi_node + 3 * k;
            if (b->node_body[k] < 0 || (c[0] == 0.0 && c[1] == 0.0 && c[2] == 0.0)) continue;
            if (out)
                out[n].item = i, out[n].sub = k, out[n].nn = 1, out[n].node[0] = b->node_body[k];
            ++n;
        }
    }
    return n;
}

/* The node's m ξ, rotation R, position x. */
static const double *node(const ld_elem_ctx *c, double R[9], const double **x) {
    const ld_beam *b = &ld_rb(c->s)->m->beams[c->e->item];
    ld_rb_pose(c->s, c->q, c->e->node[0], R, x);
    return b->mxi_node + 3 * c->e->sub;
}

/* Adds s·A (3×3) to the block (r0, c0) of the 6×6 X. */
static void add3(double *X, int r0, int c0, const double *A, double s) {
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) X[6 * (r0 + r) + c0 + k] += s * A[3 * r + k];
}

static int mass(const ld_elem_ctx *c, double *M) {
    const double *x;
    double R[9], H[9], A[9], At[9];
    const double *mx = node(c, R, &x);
    ld_so3_hat(H, mx);
    if (ld_rb(c->s)->semi) {
        memcpy(A, H, sizeof A);
    } else {
        double Rt[9];
        ld_m3_transpose(Rt, R);
        ld_m3_mul(A, H, Rt); /* hat(mξ) Rᵀ */
    }
    ld_m3_transpose(At, A);
    add3(M, 0, 3, A, 1.0);
    add3(M, 3, 0, At, 1.0);
    return LD_OK;
}

/* Ω × (Ω × c). */
static void centripetal(const double Om[3], const double c[3], double out[3]) {
    double t[3];
    ld_v3_cross(t, Om, c);
    ld_v3_cross(out, Om, t);
}

static int force(const ld_elem_ctx *c, double *g) {
    const double *x, *Om = c->v, *U = c->v + 3;
    double R[9], gb[3], t[3], y[3], w[3];
    const double *mx = node(c, R, &x);
    ld_m3_tmulv(gb, R, ld_rb(c->s)->m->gravity);
    centripetal(Om, mx, y);
    if (ld_rb(c->s)->semi) {
        ld_v3_cross(t, Om, U);
        for (int i = 0; i < 3; ++i) w[i] = t[i] - gb[i];
        ld_v3_cross(t, mx, w);
        for (int i = 0; i < 3; ++i) g[i] += t[i], g[3 + i] += y[i];
    } else {
        ld_v3_cross(t, mx, gb);
        ld_m3_mulv(w, R, y);
        for (int i = 0; i < 3; ++i) g[i] -= t[i], g[3 + i] += w[i];
    }
    return LD_OK;
}

static int g_v(const ld_elem_ctx *c, double *C) {
    const double *x, *Om = c->v, *U = c->v + 3;
    double R[9], D[9], RD[9];
    const double *mx = node(c, R, &x);
    double od = ld_v3_dot(Om, mx);
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k)
            D[3 * r + k] = (r == k ? od : 0.0) + Om[r] * mx[k] - 2.0 * mx[r] * Om[k];
    if (ld_rb(c->s)->semi) {
        double H[9], HU[9], HO[9], A[9], B[9];
        ld_so3_hat(H, mx);
        ld_so3_hat(HU, U);
        ld_so3_hat(HO, Om);
        ld_m3_mul(A, H, HU);
        ld_m3_mul(B, H, HO);
        add3(C, 0, 0, A, -1.0);
        add3(C, 0, 3, B, 1.0);
        add3(C, 3, 0, D, 1.0);
    } else {
        ld_m3_mul(RD, R, D);
        add3(C, 3, 0, RD, 1.0);
    }
    return LD_OK;
}

static int stiffness(const ld_elem_ctx *c, double *K) {
    const double *x, *Om = c->v, *aO = c->a, *aU = c->a + 3;
    double R[9], H[9], w[3], Hw[9], A[9];
    const double *mx = node(c, R, &x), *gam = ld_rb(c->s)->m->gravity;
    ld_so3_hat(H, mx);
    if (ld_rb(c->s)->semi) {
        ld_m3_tmulv(w, R, gam);
        ld_so3_hat(Hw, w);
        ld_m3_mul(A, H, Hw);
        add3(K, 0, 0, A, -1.0);
        return LD_OK;
    }
    double d[3], y[3], t[3], Hy[9];
    for (int i = 0; i < 3; ++i) d[i] = (aU ? aU[i] : 0.0) - gam[i];
    ld_m3_tmulv(w, R, d);
    ld_so3_hat(Hw, w);
    ld_m3_mul(A, H, Hw);
    add3(K, 0, 0, A, 1.0);
    centripetal(Om, mx, y);
    if (aO) {
        ld_v3_cross(t, mx, aO);
        for (int i = 0; i < 3; ++i) y[i] -= t[i];
    }
    ld_so3_hat(Hy, y);
    ld_m3_mul(A, R, Hy);
    add3(K, 3, 0, A, -1.0);
    return LD_OK;
}

/* The coupling's kinetic energy ẋ · R (Ω × mξ) and gravity's −γ · R mξ. */
static int energy(const ld_elem_ctx *c, double *V) {
    const double *x;
    double R[9], Om[3], xd[3], t[3], Rt[3], Rm[3];
    const double *mx = node(c, R, &x);
    ld_rb_body_velocity(c->s, c->q, c->v, c->e->node[0], Om, xd);
    ld_v3_cross(t, Om, mx);
    ld_m3_mulv(Rt, R, t);
    ld_m3_mulv(Rm, R, mx);
    *V = ld_v3_dot(xd, Rt) - ld_v3_dot(ld_rb(c->s)->m->gravity, Rm);
    return LD_OK;
}

const ld_ekind ld_ek_beam_mass = {.name = "beam-mass",
                                  .instances = instances,
                                  .mass = mass,
                                  .force = force,
                                  .g_v = g_v,
                                  .stiffness = stiffness,
                                  .energy = energy};

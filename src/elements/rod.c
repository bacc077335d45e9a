/*
 * Cosserat rods in the rigid-body models (model.h, docs/rod.md): the segments' elastic and
 * viscous forces, the Kirchhoff rows Γ₁ = Γ₂ = 0, their tangents, the strain energy, the rods'
 * part of the sparse pattern of B, and the nodes of a straight rod.
 *
 * Segment k of a rod joins the node bodies a = body0 + k and b = a + 1. With the relative
 * configuration g = q_a⁻¹ ∘ q_b taken in SE(3) (in S³⋉R³ for quaternion storage, the relative
 * quaternion signed to the shorter rotation: the same numbers), ξ = log g and ds = length/n:
 *   W (6×12)   δξ = W (δ_a, δ_b) for node perturbations q ∘ exp(δ) of the formulation:
 *              W = T⁻¹(ξ) [−Ad_{g⁻¹}, I] in the semidirect products; the direct products
 *              perturb x in the spatial frame (δu = Rᵀ δx), so there W's translation columns
 *              are multiplied by R_aᵀ and R_bᵀ;
 *   rate       ξ̇ = W (v_a, v_b), the same map on the velocities;
 *   stress     τ = C (ξ/ds − w0) + D ξ̇/ds, plus the Kirchhoff multipliers in entries 4, 5;
 *   force      g_ab += Wᵀ τ, i.e. ∂V/∂q, the viscous force and Bᵀλ of the segment;
 *   Kirchhoff  Φ = (ξ₄, ξ₅) = ds (Γ₁, Γ₂), B = rows 4, 5 of W.
 * ∂g/∂v = Wᵀ D W/ds and the stiffness (∂/∂q of Wᵀτ at fixed v and λ, below) are analytic
 * but for the derivative of T⁻¹(ξ) along ξ, and z of Φ̈ = B v̇ + z is a derivative of B v
 * along the motion; those two are fourth-order central differences, local to one segment.
 * Everything works segment by segment in fixed-size local arrays: the work is O(n) and
 * nothing is allocated.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/strf.h"
#include "../lie/mat3.h"
#include "liedyn/liedyn.h"
#include "kinds.h"

/* ---------------------------------------------------------------- one segment */

/* Rotation matrix and position of a node from its storage g (Lie formulations). */
static void node_pose(const rb_sys *rb, const double *g, double R[9], const double **x) {
    if (rb->quat) {
        ld_quat_to_mat(R, g);
        *x = g + 4;
    } else {
        memcpy(R, g, 9 * sizeof(double));
        *x = g + 9;
    }
}

/* out = g ∘ exp(ξ) for one node of the formulation. */
static void node_retract(const rb_sys *rb, double *out, const double *g, const double xi[6]) {
    double e[12];
    switch (rb->f) {
    case LD_FORM_SE3:
        ld_se3_exp(e, xi);
        ld_se3_compose(out, g, e);
        break;
    case LD_FORM_S3XR3:
        ld_s3xr3_exp(e, xi);
        ld_s3xr3_compose(out, g, e);
        break;
    case LD_FORM_S3SDR3:
        ld_s3sdr3_exp(e, xi);
        ld_s3sdr3_compose(out, g, e);
        break;
    default:
        ld_so3xr3_exp(e, xi);
        ld_so3xr3_compose(out, g, e);
        break;
    }
}

typedef struct seg {
    double xi[6];        /* log(g), g = q_a⁻¹ ∘ q_b */
    double Ti[36];       /* T⁻¹(ξ) */
    double A[36];        /* Ad_{g⁻¹} = [[Rrᵀ, 0], [−Rrᵀ hat(xr), Rrᵀ]] */
    double Ra[9], Rb[9]; /* the nodes' rotations */
    double Ws[72];       /* 6 × 12 row-major: T⁻¹ [−A, I], for semidirect perturbations */
    double W[72];        /* the same for the formulation's perturbations */
} seg;

/* C (n×m) = A (n×l) B (l×m), row-major; A transposed (stored l×n) when ta. */
static void mat_mul(double *C, const double *A, const double *B, int n, int l, int m, int ta) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) {
            double acc = 0.0;
            for (int k = 0; k < l; ++k) acc += (ta ? A[k * n + i] : A[i * l + k]) * B[k * m + j];
            C[i * m + j] = acc;
        }
}

/* The relative configuration's rotation Rr, translation xr and logarithm ξ. */
static void rel_log(const rb_sys *rb, const double *ga, const double *gb, seg *sg,
                    const double d[3], double Rr[9], double xr[3]) {
    ld_m3_tmulv(xr, sg->Ra, d);
    if (rb->quat) {
        double g[7], qc[4];
        ld_quat_conj(qc, ga);
        ld_quat_mul(g, qc, gb);
        if (g[0] < 0.0) /* the shorter of the two rotations, as SE(3)'s log */
            for (int i = 0; i < 4; ++i) g[i] = -g[i];
        memcpy(g + 4, xr, 3 * sizeof(double));
        ld_s3sdr3_log(sg->xi, g);
        ld_quat_to_mat(Rr, g);
    } else {
        double g[12], RaT[9];
        ld_m3_transpose(RaT, sg->Ra);
        ld_m3_mul(g, RaT, gb);
        memcpy(Rr, g, 9 * sizeof(double));
        memcpy(g + 9, xr, 3 * sizeof(double));
        ld_se3_log(sg->xi, g);
    }
}

/* Everything of the segment between the node storages ga and gb. */
static void seg_eval(const rb_sys *rb, const double *ga, const double *gb, seg *sg) {
    double Rr[9], xr[3], d[3], H[9];
    const double *xa, *xb;
    node_pose(rb, ga, sg->Ra, &xa);
    node_pose(rb, gb, sg->Rb, &xb);
    for (int i = 0; i < 3; ++i) d[i] = xb[i] - xa[i];
    rel_log(rb, ga, gb, sg, d, Rr, xr);
    ld_se3_tangent_inv(sg->Ti, sg->xi);
    ld_so3_hat(H, xr);
    memset(sg->A, 0, sizeof sg->A);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double h = 0.0;
            for (int l = 0; l < 3; ++l) h += Rr[3 * l + i] * H[3 * l + j];
            sg->A[6 * i + j] = sg->A[6 * (3 + i) + 3 + j] = Rr[3 * j + i];
            sg->A[6 * (3 + i) + j] = -h;
        }
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double acc = 0.0;
            for (int l = 0; l < 6; ++l) acc += sg->Ti[6 * i + l] * sg->A[6 * l + j];
            sg->Ws[12 * i + j] = -acc;
            sg->Ws[12 * i + 6 + j] = sg->Ti[6 * i + j];
        }
    memcpy(sg->W, sg->Ws, sizeof sg->W);
    if (rb->semi) return;
    for (int i = 0; i < 6; ++i) { /* δu = Rᵀ δx: translation columns times Rᵀ */
        ld_m3_mulv(sg->W + 12 * i + 3, sg->Ra, sg->Ws + 12 * i + 3);
        ld_m3_mulv(sg->W + 12 * i + 9, sg->Rb, sg->Ws + 12 * i + 9);
    }
}

/* r = row i of W times (va, vb). */
static double w_row_dot(const seg *sg, int i, const double *va, const double *vb) {
    const double *Wi = sg->W + 12 * i;
    double acc = 0.0;
    for (int j = 0; j < 6; ++j) acc += Wi[j] * va[j] + Wi[6 + j] * vb[j];
    return acc;
}

/* τ = C (ξ/ds − w0) + D ξ̇/ds with ξ̇ = W (va, vb). */
static void seg_stress(const ld_rod *rod, const seg *sg, const double *va, const double *vb,
                       double tau[6]) {
    double ds = rod->length / rod->n;
    for (int i = 0; i < 6; ++i) {
        double rate = rod->damping[i] != 0.0 ? w_row_dot(sg, i, va, vb) : 0.0;
        tau[i] = rod->stiffness[i] * (sg->xi[i] / ds - (i == 5 ? 1.0 : 0.0)) +
                 rod->damping[i] * rate / ds;
    }
}

/* ---------------------------------------------------------------- the stiffness */
/*
 * In semidirect coordinates (perturbations δ, velocities u = (u_a, u_b)), with M = [−A, I],
 * W = T⁻¹ M, η = M u, ξ̇ = T⁻¹ η, σ = T⁻ᵀ τ and F = Mᵀ σ: a perturbation moves g to g ∘ exp(μ),
 * μ = M δ, so δξ = W δ, δA = −ad_μ A, δη = −ad_{A u_a} μ, and
 *   δF = [Aᵀ Ξ(σ) μ; 0] + Mᵀ (G δξ + T⁻ᵀ δτ),
 *   δτ = (C/ds) δξ + (D/ds) (H δξ + T⁻¹ δη),
 * with ad_x = [[hat x_ω, 0], [hat x_u, hat x_ω]], ad_μᵀ σ = Ξ(σ) μ, Ξ(σ) = [[hat σ_ω, hat σ_u],
 * [hat σ_u, 0]], and H = ∂(T⁻¹(ξ) η)/∂ξ, G = ∂(T⁻ᵀ(ξ) τ)/∂ξ (fourth-order central differences
 * of T⁻¹ over ξ; exact in ξ's translation part, on which T⁻¹ depends linearly).
 * The direct products perturb and move x in the spatial frame: with P = diag(I, Rᵀ) per node,
 * F_d = Pᵀ F(P u_d), so K_d = Pᵀ K P + Pᵀ C_v Q + N with C_v = Wᵀ (D/ds) W, Q the node blocks
 * ∂(Rᵀ ẋ)/∂θ = hat(Rᵀ ẋ) and N the node blocks ∂(R F_u)/∂θ = −R hat(F_u).
 */

/* Fourth-order central differences: f'(0) ≈ Σ wt f(step h) / 12h. */
static const double fd_step[4] = {1.0, -1.0, 2.0, -2.0}, fd_wt[4] = {8.0, -8.0, -1.0, 1.0};

/* H = ∂(T⁻¹(ξ) η)/∂ξ and G = ∂(T⁻ᵀ(ξ) τ)/∂ξ (6×6). */
static void tangent_derivs(const seg *sg, double ds, const double eta[6], const double tau[6],
                           double H[36], double G[36]) {
    memset(H, 0, 36 * sizeof(double));
    memset(G, 0, 36 * sizeof(double));
    for (int j = 0; j < 6; ++j) {
        double h = j < 3 ? 1e-3 : 1e-3 * ds;
        for (int st = 0; st < 4; ++st) {
            double x[6], T[36];
            memcpy(x, sg->xi, sizeof x);
            x[j] += fd_step[st] * h;
            ld_se3_tangent_inv(T, x);
            for (int i = 0; i < 6; ++i) {
                double a = 0.0, b = 0.0;
                for (int l = 0; l < 6; ++l) a += T[6 * i + l] * eta[l], b += T[6 * l + i] * tau[l];
                H[6 * i + j] += fd_wt[st] * a / (12.0 * h);
                G[6 * i + j] += fd_wt[st] * b / (12.0 * h);
            }
        }
    }
}

/* Adds ad_y (6×6, y = (y_ω, y_u)) times sc to M at row stride 6. */
static void add_ad(double M[36], const double y[6], double sc) {
    double Hw[9], Hu[9];
    ld_so3_hat(Hw, y);
    ld_so3_hat(Hu, y + 3);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            M[6 * i + j] += sc * Hw[3 * i + j];
            M[6 * (3 + i) + j] += sc * Hu[3 * i + j];
            M[6 * (3 + i) + 3 + j] += sc * Hw[3 * i + j];
        }
}

/* Y = G W + T⁻ᵀ ((C/ds) W + (D/ds) (H W − T⁻¹ ad_{A u_a} M)) (6×12, semidirect). */
static void stiffness_y(const ld_rod *rod, const seg *sg, double ds, const double H[36],
                        const double G[36], const double Au[6], double Y[72]) {
    double adM[72], M[72], Z[72], ad[36] = {0};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            M[12 * i + j] = -sg->A[6 * i + j];
            M[12 * i + 6 + j] = i == j ? 1.0 : 0.0;
        }
    add_ad(ad, Au, 1.0);
    mat_mul(adM, ad, M, 6, 6, 12, 0);
    mat_mul(Z, sg->Ti, adM, 6, 6, 12, 0); /* T⁻¹ ad M */
    mat_mul(adM, H, sg->Ws, 6, 6, 12, 0); /* H W */
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 12; ++j)
            Z[12 * i + j] = (rod->stiffness[i] * sg->Ws[12 * i + j] +
                             rod->damping[i] * (adM[12 * i + j] - Z[12 * i + j])) /
                            ds;
    mat_mul(Y, sg->Ti, Z, 6, 6, 12, 1);
    mat_mul(Z, G, sg->Ws, 6, 6, 12, 0);
    for (int i = 0; i < 72; ++i) Y[i] += Z[i];
}

/* K = Mᵀ Y + [Aᵀ Ξ(σ) M; 0] (12×12, semidirect). */
static void stiffness_semi(const seg *sg, const double Y[72], const double sig[6], double K[144]) {
    double X[36] = {0}, AX[36], Hw[9], Hu[9];
    mat_mul(K, sg->A, Y, 6, 6, 12, 1); /* rows of node a: −Aᵀ Y */
    for (int i = 0; i < 72; ++i) K[i] = -K[i];
    memcpy(K + 72, Y, 72 * sizeof(double));
    ld_so3_hat(Hw, sig);
    ld_so3_hat(Hu, sig + 3);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            X[6 * i + j] = Hw[3 * i + j];
            X[6 * i + 3 + j] = X[6 * (3 + i) + j] = Hu[3 * i + j];
        }
    mat_mul(AX, sg->A, X, 6, 6, 6, 1); /* Aᵀ Ξ; times M = [−A, I] */
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double acc = 0.0;
            for (int l = 0; l < 6; ++l) acc += AX[6 * i + l] * sg->A[6 * l + j];
            K[12 * i + j] -= acc;
            K[12 * i + 6 + j] += AX[6 * i + j];
        }
}

/* K ← Pᵀ K P + Pᵀ C_v Q + N for the direct products (u: semidirect velocities, F: the
 * semidirect force Mᵀ σ). */
static void stiffness_direct(const seg *sg, const ld_rod *rod, double ds, const double u[12],
                             const double F[12], double K[144]) {
    const double *R[2] = {sg->Ra, sg->Rb};
    double Cv[144], t[3], col[3];
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) {
            double acc = 0.0;
            for (int l = 0; l < 6; ++l)
                acc += sg->Ws[12 * l + i] * rod->damping[l] * sg->Ws[12 * l + j];
            Cv[12 * i + j] = acc / ds;
        }
    for (int n = 0; n < 2; ++n) {
        double HU[9];
        ld_so3_hat(HU, u + 6 * n + 3);
        for (int i = 0; i < 12; ++i) { /* K P (translation columns), then C_v Q (rotation) */
            ld_m3_mulv(t, R[n], K + 12 * i + 6 * n + 3);
            memcpy(K + 12 * i + 6 * n + 3, t, sizeof t);
            for (int j = 0; j < 3; ++j) {
                double acc = 0.0;
                for (int l = 0; l < 3; ++l) acc += Cv[12 * i + 6 * n + 3 + l] * HU[3 * l + j];
                K[12 * i + 6 * n + j] += acc;
            }
        }
    }
    for (int n = 0; n < 2; ++n) { /* Pᵀ (translation rows), then N */
        double HF[9], RH[9];
        for (int j = 0; j < 12; ++j) {
            for (int l = 0; l < 3; ++l) col[l] = K[12 * (6 * n + 3 + l) + j];
            ld_m3_mulv(t, R[n], col);
            for (int l = 0; l < 3; ++l) K[12 * (6 * n + 3 + l) + j] = t[l];
        }
        ld_so3_hat(HF, F + 6 * n + 3);
        ld_m3_mul(RH, R[n], HF);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) K[12 * (6 * n + 3 + i) + 6 * n + j] -= RH[3 * i + j];
    }
}

/* ---------------------------------------------------------------- segments of the model */

/* One segment as the visitors see it. */
typedef struct seg_ref {
    const ld_rod *rod;
    int rod_index, k;      /* rod and segment index */
    int row;               /* global row of its Γ₁ constraint, −1 without Kirchhoff rows */
    double ds;             /* length / n */
    const double *ga, *gb; /* the nodes' storage in q */
    size_t oa, ob;         /* the nodes' velocity offsets */
} seg_ref;

typedef int (*seg_fn)(const ld_system *s, const seg_ref *sr, void *ctx);

/* fn for every segment of every rod, in row order; stops at the first non-zero return. */
static int for_segments(const ld_system *s, const double *q, seg_fn fn, void *ctx) {
    const rb_sys *rb = ld_rb(s);
    const ld_model *m = rb->m;
    int row = rb->njrows;
    for (int r = 0; r < m->nrods; ++r) {
        const ld_rod *rod = &m->rods[r];
        for (int k = 0; k < rod->n; ++k) {
            const ld_node *na = &s->nodes[rod->body0 + k], *nb = na + 1;
            seg_ref sr = {.rod = rod,
                          .rod_index = r,
                          .k = k,
                          .row = rod->kirchhoff ? row : -1,
                          .ds = rod->length / rod->n,
                          .ga = q ? q + na->qoff : NULL,
                          .gb = q ? q + nb->qoff : NULL,
                          .oa = (size_t)na->voff,
                          .ob = (size_t)nb->voff};
            int rc = fn(s, &sr, ctx);
            if (rc) return rc;
            if (rod->kirchhoff) row += 2;
        }
    }
    return LD_OK;
}

/* Adds the 12×12 local matrix L to the k×k matrix G at the nodes' offsets. */
static void add_local(double *G, size_t k, const seg_ref *sr, const double L[144]) {
    const size_t off[2] = {sr->oa, sr->ob};
    for (size_t i = 0; i < 12; ++i)
        for (size_t j = 0; j < 12; ++j)
            G[(off[i / 6] + i % 6) * k + off[j / 6] + j % 6] += L[12 * i + j];
}

int ld_rod_rows(const ld_model *m) {
    int rows = 0;
    for (int r = 0; r < m->nrods; ++r) rows += m->rods[r].kirchhoff ? 2 * m->rods[r].n : 0;
    return rows;
}

typedef struct vec_ctx {
    const double *v, *lam;
    double *out; /* g, Φ, z or the sparse values */
    double sum;
    size_t k;
} vec_ctx;

/* g_ab += Wᵀ τ. */
static int visit_force(const ld_system *s, const seg_ref *sr, void *ctx) {
    vec_ctx *c = ctx;
    seg sg;
    double tau[6], f[12];
    seg_eval(ld_rb(s), sr->ga, sr->gb, &sg);
    seg_stress(sr->rod, &sg, c->v + sr->oa, c->v + sr->ob, tau);
    mat_mul(f, sg.W, tau, 12, 6, 1, 1);
    for (size_t j = 0; j < 6; ++j) {
        c->out[sr->oa + j] += f[j];
        c->out[sr->ob + j] += f[6 + j];
    }
    return LD_OK;
}

/* sum += ½ ds (w − w0)ᵀ C (w − w0). */
static int visit_energy(const ld_system *s, const seg_ref *sr, void *ctx) {
    vec_ctx *c = ctx;
    seg sg;
    seg_eval(ld_rb(s), sr->ga, sr->gb, &sg);
    for (int i = 0; i < 6; ++i) {
        double e = sg.xi[i] / sr->ds - (i == 5 ? 1.0 : 0.0);
        c->sum += 0.5 * sr->ds * sr->rod->stiffness[i] * e * e;
    }
    return LD_OK;
}

/* C_ab += Wᵀ D W/ds (nothing without damping). */
static int visit_g_v(const ld_system *s, const seg_ref *sr, void *ctx) {
    vec_ctx *c = ctx;
    const double *D = sr->rod->damping;
    if (D[0] == 0.0 && D[1] == 0.0 && D[2] == 0.0 && D[3] == 0.0 && D[4] == 0.0 && D[5] == 0.0)
        return LD_OK;
    seg sg;
    double L[144];
    seg_eval(ld_rb(s), sr->ga, sr->gb, &sg);
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) {
            double acc = 0.0;
            for (int l = 0; l < 6; ++l) acc += sg.W[12 * l + i] * D[l] * sg.W[12 * l + j];
            L[12 * i + j] = acc / sr->ds;
        }
    add_local(c->out, c->k, sr, L);
    return LD_OK;
}

/* u: the segment's velocities in semidirect coordinates (U = Rᵀ ẋ in the direct products). */
static void semi_velocity(const rb_sys *rb, const seg *sg, const double *va, const double *vb,
                          double u[12]) {
    memcpy(u, va, 6 * sizeof(double));
    memcpy(u + 6, vb, 6 * sizeof(double));
    if (rb->semi) return;
    ld_m3_tmulv(u + 3, sg->Ra, va + 3);
    ld_m3_tmulv(u + 9, sg->Rb, vb + 3);
}

/* K_ab += ∂/∂q of the segment's Wᵀ τ (with λ in τ₄, τ₅) at fixed v, λ: the closed form of
 * the block comment above. */
static int visit_stiffness(const ld_system *s, const seg_ref *sr, void *ctx) {
    const rb_sys *rb = ld_rb(s);
    const ld_rod *rod = sr->rod;
    vec_ctx *c = ctx;
    seg sg;
    double u[12], Au[6], eta[6], rate[6], tau[6], sig[6], F[12], H[36], G[36], Y[72], K[144];
    seg_eval(rb, sr->ga, sr->gb, &sg);
    semi_velocity(rb, &sg, c->v + sr->oa, c->v + sr->ob, u);
    mat_mul(Au, sg.A, u, 6, 6, 1, 0);
    for (int i = 0; i < 6; ++i) eta[i] = u[6 + i] - Au[i];
    mat_mul(rate, sg.Ti, eta, 6, 6, 1, 0);
    for (int i = 0; i < 6; ++i)
        tau[i] = rod->stiffness[i] * (sg.xi[i] / sr->ds - (i == 5 ? 1.0 : 0.0)) +
                 rod->damping[i] * rate[i] / sr->ds;
    if (sr->row >= 0 && c->lam) tau[3] += c->lam[sr->row], tau[4] += c->lam[sr->row + 1];
    mat_mul(sig, sg.Ti, tau, 6, 6, 1, 1);
    tangent_derivs(&sg, sr->ds, eta, tau, H, G);
    stiffness_y(rod, &sg, sr->ds, H, G, Au, Y);
    stiffness_semi(&sg, Y, sig, K);
    if (!rb->semi) {
        mat_mul(F, sg.A, sig, 6, 6, 1, 1); /* F = Mᵀ σ = (−Aᵀ σ, σ) */
        for (int i = 0; i < 6; ++i) F[i] = -F[i], F[6 + i] = sig[i];
        stiffness_direct(&sg, rod, sr->ds, u, F, K);
    }
    add_local(c->out, c->k, sr, K);
    return LD_OK;
}

/* ---------------------------------------------------------------- Kirchhoff rows */

/* Φ rows of the segment: ξ₄, ξ₅. */
static int visit_phi(const ld_system *s, const seg_ref *sr, void *ctx) {
    if (sr->row < 0) return LD_OK;
    vec_ctx *c = ctx;
    seg sg;
    seg_eval(ld_rb(s), sr->ga, sr->gb, &sg);
    c->out[sr->row] = sg.xi[3];
    c->out[sr->row + 1] = sg.xi[4];
    return LD_OK;
}

/* B rows of the segment: rows 4, 5 of W on the nodes' columns. */
static int visit_phi_q(const ld_system *s, const seg_ref *sr, void *ctx) {
    if (sr->row < 0) return LD_OK;
    vec_ctx *c = ctx;
    seg sg;
    seg_eval(ld_rb(s), sr->ga, sr->gb, &sg);
    for (size_t r = 0; r < 2; ++r) {
        double *row = c->out + ((size_t)sr->row + r) * c->k;
        memcpy(row + sr->oa, sg.W + 12 * (3 + r), 6 * sizeof(double));
        memcpy(row + sr->ob, sg.W + 12 * (3 + r) + 6, 6 * sizeof(double));
    }
    return LD_OK;
}

/* z = d/dτ [B(q(τ)) v] at τ = 0 along q(τ) = q ∘ exp(τ v) (nodes a and b only). */
static int visit_phi_dd(const ld_system *s, const seg_ref *sr, void *ctx) {
    if (sr->row < 0) return LD_OK;
    const rb_sys *rb = ld_rb(s);
    vec_ctx *c = ctx;
    const double *va = c->v + sr->oa, *vb = c->v + sr->ob;
    double speed = 0.0, acc[2] = {0, 0}, g[2][12];
    for (int i = 0; i < 3; ++i) {
        speed = fmax(speed, fmax(fabs(va[i]), fabs(vb[i])));
        speed = fmax(speed, fmax(fabs(va[3 + i]), fabs(vb[3 + i])) / sr->ds);
    }
    c->out[sr->row] = c->out[sr->row + 1] = 0.0;
    if (!(speed > 0.0)) return LD_OK; /* z is quadratic in v */
    double h = 1e-3 / speed;
    for (int st = 0; st < 4; ++st) {
        double ea[6], eb[6];
        seg sg;
        for (int i = 0; i < 6; ++i)
            ea[i] = fd_step[st] * h * va[i], eb[i] = fd_step[st] * h * vb[i];
        node_retract(rb, g[0], sr->ga, ea);
        node_retract(rb, g[1], sr->gb, eb);
        seg_eval(rb, g[0], g[1], &sg);
        for (int r = 0; r < 2; ++r) acc[r] += fd_wt[st] * w_row_dot(&sg, 3 + r, va, vb);
    }
    for (int r = 0; r < 2; ++r) c->out[sr->row + r] = acc[r] / (12.0 * h);
    return LD_OK;
}

/* ---------------------------------------------------------------- initial state */

typedef struct init_ctx {
    const double *v;
    char *msg;
    size_t n;
} init_ctx;

/* Kirchhoff rows closed (to 1e-9 relative to max(1, ds)) and their velocity rows satisfied
 * (to 1e-6 relative to the size of their terms); the first failure described in msg. */
static int visit_initial(const ld_system *s, const seg_ref *sr, void *ctx) {
    if (sr->row < 0) return LD_OK;
    init_ctx *c = ctx;
    seg sg;
    seg_eval(ld_rb(s), sr->ga, sr->gb, &sg);
    const double *va = c->v + sr->oa, *vb = c->v + sr->ob;
    for (int r = 0; r < 2; ++r) {
        const double *Wr = sg.W + 12 * (3 + r);
        double scale = 1.0, rate = w_row_dot(&sg, 3 + r, va, vb), bad = sg.xi[3 + r];
        for (int j = 0; j < 6; ++j) scale += fabs(Wr[j] * va[j]) + fabs(Wr[6 + j] * vb[j]);
        const char *what = "is not satisfied at the start";
        if (fabs(bad) <= 1e-9 * fmax(1.0, sr->ds)) {
            if (fabs(rate) <= 1e-6 * scale) continue;
            what = "is violated by the nodes' initial velocities";
            bad = rate;
        }
        if (c->msg)
            strf(c->msg, c->n,
                 "rod %d ('%s'): the Kirchhoff constraint Γ%d = 0 of segment %d %s (%.3g)",
                 sr->rod_index, sr->rod->name, r + 1, sr->k, what, bad);
        return LD_EINVAL;
    }
    return LD_OK;
}

int ld_rod_check_initial(const ld_system *s, const double *q, const double *v, char *msg,
                         size_t n) {
    init_ctx c = {v, msg, n};
    return for_segments(s, q, visit_initial, &c);
}

/* ---------------------------------------------------------------- the segment element */

/* One instance per segment (element.h) on its two nodes; two rows with Kirchhoff constraints. */
static int sel_instances(const ld_model *m, ld_formulation f, ld_elem *out) {
    (void)f;
    int n = 0;
    for (int r = 0; r < m->nrods; ++r)
        for (int k = 0; k < m->rods[r].n; ++k, ++n) {
            if (!out) continue;
            ld_elem *e = &out[n];
            e->item = r;
            e->sub = k;
            e->nn = 2;
            e->node[0] = m->rods[r].body0 + k;
            e->node[1] = m->rods[r].body0 + k + 1;
            e->nrows = m->rods[r].kirchhoff ? 2 : 0;
        }
    return n;
}

/* The segment of an instance in its local arrays (nodes at 0 and 6, rows from 0), and the
 * visitors' context writing to out. */
static seg_ref sel_ref(const ld_elem_ctx *c, double *out, vec_ctx *vc) {
    const ld_model *m = ld_rb(c->s)->m;
    const ld_rod *rod = &m->rods[c->e->item];
    seg_ref sr = {.rod = rod,
                  .rod_index = c->e->item,
                  .k = c->e->sub,
                  .row = rod->kirchhoff ? 0 : -1,
                  .ds = rod->length / rod->n,
                  .ga = c->q + c->s->nodes[c->e->node[0]].qoff,
                  .gb = c->q + c->s->nodes[c->e->node[1]].qoff,
                  .oa = 0,
                  .ob = 6};
    *vc = (vec_ctx){c->v, c->lam, out, 0.0, 12};
    return sr;
}

/* Run visitor fn on the instance's segment with its output in out. */
static int sel_run(const ld_elem_ctx *c, double *out, seg_fn fn) {
    vec_ctx vc;
    seg_ref sr = sel_ref(c, out, &vc);
    return fn(c->s, &sr, &vc);
}

static int sel_force(const ld_elem_ctx *c, double *g) {
    return sel_run(c, g, visit_force);
}

static int sel_g_v(const ld_elem_ctx *c, double *C) {
    return sel_run(c, C, visit_g_v);
}

static int sel_stiffness(const ld_elem_ctx *c, double *K) {
    return sel_run(c, K, visit_stiffness);
}

static int sel_energy(const ld_elem_ctx *c, double *V) {
    vec_ctx vc;
    seg_ref sr = sel_ref(c, NULL, &vc);
    int rc = visit_energy(c->s, &sr, &vc);
    *V = vc.sum;
    return rc;
}

static int sel_phi(const ld_elem_ctx *c, double *phi) {
    return sel_run(c, phi, visit_phi);
}

static int sel_phi_q(const ld_elem_ctx *c, double *Bl) {
    return sel_run(c, Bl, visit_phi_q);
}

static int sel_phi_dd(const ld_elem_ctx *c, double *z) {
    return sel_run(c, z, visit_phi_dd);
}

/* "rod 'r' (line 4), Kirchhoff row 7 of 16": rows counted over the whole rod. */
static void sel_row_name(const ld_model *m, const ld_elem *e, int r, char *buf, size_t cap) {
    const ld_rod *rod = &m->rods[e->item];
    char lab[LD_NAME_MAX + 32];
    ld_elems_label(lab, sizeof lab, "rods", rod->name, e->item, rod->line);
    strf(buf, cap, "rod %s, Kirchhoff row %d of %d", lab, 2 * e->sub + r + 1, 2 * rod->n);
}

const ld_ekind ld_ek_rod = {.name = "rod",
                            .instances = sel_instances,
                            .force = sel_force,
                            .g_v = sel_g_v,
                            .stiffness = sel_stiffness,
                            .energy = sel_energy,
                            .phi = sel_phi,
                            .phi_q = sel_phi_q,
                            .phi_dd = sel_phi_dd,
                            .row_name = sel_row_name};

/* ---------------------------------------------------------------- placement */

/* e1: normal (or the spatial axis least aligned with e3, z before y before x) made ⊥ e3.
 * LD_EINVAL if it is parallel to e3. */
static int normal_axis(double e1[3], const double e3[3], const double normal[3]) {
    double p[3] = {0, 0, 0};
    if (normal) {
        memcpy(p, normal, sizeof p);
    } else {
        int best = 2;
        for (int i = 1; i >= 0; --i)
            if (fabs(e3[i]) < fabs(e3[best])) best = i;
        p[best] = 1.0;
    }
    double pn = ld_v3_norm(p), pe = ld_v3_dot(p, e3);
    for (int i = 0; i < 3; ++i) p[i] -= pe * e3[i];
    double n = ld_v3_norm(p);
    if (!(n > 1e-9 * pn) || !isfinite(n)) return LD_EINVAL;
    for (int i = 0; i < 3; ++i) e1[i] = p[i] / n;
    return LD_OK;
}

int ld_rod_place(const ld_rod *rod, const double from[3], const double to[3],
                 const double normal[3], ld_body *nodes) {
    if (!rod || !from || !to || !nodes || rod->n < 1) return LD_EINVAL;
    double t[3], e1[3], e2[3], e3[3], R[9], q[4];
    for (int i = 0; i < 3; ++i) t[i] = to[i] - from[i];
    double len = ld_v3_norm(t);
    if (!(len > 0.0) || !isfinite(len)) return LD_EINVAL;
    for (int i = 0; i < 3; ++i) e3[i] = t[i] / len;
    if (normal_axis(e1, e3, normal)) return LD_EINVAL;
    char name[LD_NAME_MAX + 16];
    if (strf(name, sizeof name, "%.*s[%d]", LD_NAME_MAX, rod->name, rod->n) >= LD_NAME_MAX)
        return LD_EINVAL;
    ld_v3_cross(e2, e3, e1);
    for (int i = 0; i < 3; ++i) R[3 * i] = e1[i], R[3 * i + 1] = e2[i], R[3 * i + 2] = e3[i];
    ld_quat_from_mat(q, R);
    double ds = rod->length / rod->n;
    for (int k = 0; k <= rod->n; ++k) {
        ld_body *b = &nodes[k];
        double w = k == 0 || k == rod->n ? 0.5 * ds : ds;
        memset(b, 0, sizeof *b);
        strf(b->name, sizeof b->name, "%s[%d]", rod->name, k);
        b->mass = rod->rho_a * w;
        for (int i = 0; i < 3; ++i) {
            b->inertia[4 * i] = rod->rho_i[i] * w;
            b->x[i] = from[i] + t[i] * ((double)k / rod->n);
        }
        memcpy(b->q, q, sizeof q);
        ld_rigid_motion(b, rod->has_motion, rod->v0, rod->w0, from);
        b->line = rod->line;
    }
    return LD_OK;
}

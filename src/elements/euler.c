/* The body terms of the euler formulation (kinds.h), eq. 9 of Sherif et al. (2019) with
 * translations:
 *   m ẍ = f,    4 LᵀJL ë + 8 LᵀL L̇ᵀ J L ė + e λ = 2 Lᵀ τ,
 * L = L(e), L̇ = L(ė), τ = τ_b + R(e)ᵀ τ_s the body torque, f = f_s + R(e) f_b. Every tangent is
 * analytic; the system tests compare them with finite differences. Derivatives use that L(e)
 * is linear in e: L(e) y = −L(y) e and L(e)ᵀ w = ŵ e (ld_ep_what). */
#include <string.h>

#include "../core/strf.h"
#include "../lie/mat3.h"
#include "element.h"
#include "../lie/ep.h"
#include "kinds.h"

/* C = A B for 4×3 A = Lᵀ (given as L, 3×4) and 3×4 B: C = Lᵀ B (4×4). */
static void lt_mul(double C[16], const double L[12], const double B[12]) {
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            C[4 * i + j] = L[i] * B[j] + L[4 + i] * B[4 + j] + L[8 + i] * B[8 + j];
}

/* B = A X for 3×3 A and 3×4 X. */
static void m3_mul34(double B[12], const double A[9], const double X[12]) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            B[4 * i + j] = A[3 * i] * X[j] + A[3 * i + 1] * X[4 + j] + A[3 * i + 2] * X[8 + j];
}

/* Adds sc·A (r×c, row-major) at (r0, c0) of the k×k matrix K. */
static void add_block(double *K, size_t k, size_t r0, size_t c0, const double *A, int r, int c,
                      double sc) {
    for (size_t i = 0; i < (size_t)r; ++i)
        for (size_t j = 0; j < (size_t)c; ++j)
            K[(r0 + i) * k + c0 + j] += sc * A[(size_t)c * i + j];
}

void ld_ep_body_mass(const ld_body *b, const double *qb, double *M, size_t k, size_t o) {
    double L[12], JL[12], LJL[16];
    ld_ep_L(L, qb + 3);
    m3_mul34(JL, b->inertia, L);
    lt_mul(LJL, L, JL);
    for (size_t i = 0; i < 3; ++i) M[(o + i) * k + o + i] = b->mass;
    for (size_t i = 0; i < 4; ++i)
        for (size_t j = 0; j < 4; ++j) M[(o + 3 + i) * k + o + 3 + j] = 4.0 * LJL[4 * i + j];
}

/* The body torque τ = τ_b + R(e)ᵀ τ_s. */
static void body_torque(const double *e, const ld_rb_loads *L, double tau[3]) {
    double R[9], w[3];
    ld_ep_rot(R, e);
    ld_m3_tmulv(w, R, L->ts);
    for (int i = 0; i < 3; ++i) tau[i] = L->tb[i] + w[i];
}

/* The gyroscopic term of eq. 9 and its intermediates: u = J L(e) ė, w = L(ė)ᵀ u,
 * y = L(e) w, gyro = 8 L(e)ᵀ y. */
typedef struct gyro_terms {
    double u[3], w[4], y[3], g[4];
} gyro_terms;

static void gyro(const ld_body *b, const double *e, const double *ed, gyro_terms *G) {
    double Le[3];
    ld_ep_Lmul(Le, e, ed);
    ld_m3_mulv(G->u, b->inertia, Le);
    ld_ep_Ltmul(G->w, ed, G->u);
    ld_ep_Lmul(G->y, e, G->w);
    ld_ep_Ltmul(G->g, e, G->y);
    for (int i = 0; i < 4; ++i) G->g[i] *= 8.0;
}

void ld_ep_body_force(const ld_body *b, const double *qb, const double *vb, const ld_rb_loads *L,
                      double *g) {
    const double *e = qb + 3, *ed = vb + 3;
    double R[9], f[3], tau[3], lt[4];
    gyro_terms G;
    ld_ep_rot(R, e);
    ld_m3_mulv(f, R, L->fb);
    for (int i = 0; i < 3; ++i) g[i] = -L->fs[i] - f[i];
    gyro(b, e, ed, &G);
    body_torque(e, L, tau);
    ld_ep_Ltmul(lt, e, tau);
    for (int i = 0; i < 4; ++i) g[3 + i] = G.g[i] - 2.0 * lt[i];
}

/* ∂(gyro)/∂ė = 8 LᵀL [û + L(ė)ᵀ J L]. */
void ld_ep_body_g_v(const ld_body *b, const double *qb, const double *vb, double *C, size_t k,
                    size_t o) {
    const double *e = qb + 3, *ed = vb + 3;
    double L[12], Ld[12], JL[12], A[16], U[16], LA[12], D[16];
    gyro_terms G;
    gyro(b, e, ed, &G);
    ld_ep_L(L, e);
    ld_ep_L(Ld, ed);
    m3_mul34(JL, b->inertia, L);
    lt_mul(A, Ld, JL); /* L(ė)ᵀ J L */
    ld_ep_what(U, G.u);
    for (int i = 0; i < 16; ++i) A[i] += U[i];
    for (int i = 0; i < 3; ++i) /* L A */
        for (int j = 0; j < 4; ++j) {
            LA[4 * i + j] = 0.0;
            for (int l = 0; l < 4; ++l) LA[4 * i + j] += L[4 * i + l] * A[4 * l + j];
        }
    lt_mul(D, L, LA);
    add_block(C, k, o + 3, o + 3, D, 4, 4, 8.0);
}

void ld_ep_body_stiffness(const ld_body *b, const double *qb, const double *vb, const double *ab,
                          const ld_rb_loads *L, double *K, size_t k, size_t o) {
    const double *e = qb + 3, *ed = vb + 3, *ae = ab + 3;
    double Le[12], La[12], Ld[12], W[16], T[16], X[12], Y[12], v3[3];
    ld_ep_L(Le, e);
    /* mass term 4 ∂/∂e [L(e)ᵀ J L(e) a] = 4 [ŵ(J L a) − Lᵀ J L(a)] */
    ld_ep_Lmul(v3, e, ae);
    double Jv[3];
    ld_m3_mulv(Jv, b->inertia, v3);
    ld_ep_what(W, Jv);
    add_block(K, k, o + 3, o + 3, W, 4, 4, 4.0);
    ld_ep_L(La, ae);
    m3_mul34(X, b->inertia, La);
    lt_mul(T, Le, X);
    add_block(K, k, o + 3, o + 3, T, 4, 4, -4.0);
    /* gyroscopic term 8 ∂/∂e [Lᵀ y], y = L w, w = L(ė)ᵀ J L(e) ė:
     *   ∂w/∂e = −L(ė)ᵀ J L(ė),  ∂y/∂e = −L(w) + L ∂w/∂e,  ∂(Lᵀ y)/∂e = ŷ + Lᵀ ∂y/∂e */
    gyro_terms G;
    gyro(b, e, ed, &G);
    ld_ep_L(Ld, ed);
    m3_mul34(X, b->inertia, Ld);
    lt_mul(T, Ld, X); /* L(ė)ᵀ J L(ė) = −∂w/∂e */
    ld_ep_L(Y, G.w);  /* L(w) */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) {
            double acc = 0.0;
            for (int l = 0; l < 4; ++l) acc += Le[4 * i + l] * T[4 * l + j];
            Y[4 * i + j] = -Y[4 * i + j] - acc; /* ∂y/∂e */
        }
    lt_mul(T, Le, Y);
    ld_ep_what(W, G.y);
    for (int i = 0; i < 16; ++i) T[i] += W[i];
    add_block(K, k, o + 3, o + 3, T, 4, 4, 8.0);
    /* torque term −2 ∂/∂e [Lᵀ τ(e)] = −2 [τ̂ + Lᵀ ∂τ/∂e], ∂(R(e)ᵀ τ_s)/∂e = ∂(R(ē) τ_s)/∂ē
     * · diag(1, −1, −1, −1) with ē = (e0, −ε) */
    double tau[3], ec[4] = {e[0], -e[1], -e[2], -e[3]};
    body_torque(e, L, tau);
    ld_ep_what(W, tau);
    add_block(K, k, o + 3, o + 3, W, 4, 4, -2.0);
    ld_ep_drot(X, ec, L->ts);
    for (int i = 0; i < 3; ++i)
        for (int j = 1; j < 4; ++j) X[4 * i + j] = -X[4 * i + j];
    lt_mul(T, Le, X);
    add_block(K, k, o + 3, o + 3, T, 4, 4, -2.0);
    /* translation rows: −∂(R(e) f_b)/∂e */
    ld_ep_drot(X, e, L->fb);
    add_block(K, k, o, o + 3, X, 3, 4, -1.0);
}

/* ---------------------------------------------------------------- the unit-norm element */

/* One instance per body in the euler formulation: the row ½(eᵀe − 1) on the body's node. */
static int norm_instances(const ld_model *m, ld_formulation f, ld_elem *out) {
    if (f != LD_FORM_EULER) return 0;
    for (int i = 0; out && i < m->nbodies; ++i) {
        out[i].item = i;
        out[i].nn = 1;
        out[i].node[0] = i;
        out[i].nrows = 1;
    }
    return m->nbodies;
}

static const double *norm_e(const ld_elem_ctx *c) {
    return c->q + c->s->nodes[c->e->node[0]].qoff + 3;
}

static int norm_phi(const ld_elem_ctx *c, double *phi) {
    const double *e = norm_e(c);
    phi[0] = 0.5 * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3] - 1.0);
    return 0;
}

/* B = eᵀ on the parameters' columns. */
static int norm_phi_q(const ld_elem_ctx *c, double *B) {
    memcpy(B + 3, norm_e(c), 4 * sizeof(double));
    return 0;
}

/* d²/dt² ½ eᵀe = eᵀë + ėᵀė. */
static int norm_phi_dd(const ld_elem_ctx *c, double *z) {
    const double *ed = c->v + 3;
    z[0] = ed[0] * ed[0] + ed[1] * ed[1] + ed[2] * ed[2] + ed[3] * ed[3];
    return 0;
}

/* ∂/∂e [e λ] = λ I. */
static int norm_stiffness(const ld_elem_ctx *c, double *K) {
    if (!c->lam) return 0;
    for (int r = 0; r < 4; ++r) K[7 * (3 + r) + 3 + r] += c->lam[0];
    return 0;
}

static void norm_row_name(const ld_model *m, const ld_elem *e, int r, char *buf, size_t cap) {
    (void)r;
    const ld_body *b = &m->bodies[e->item];
    char lab[LD_NAME_MAX + 32];
    ld_elems_label(lab, sizeof lab, "bodies", b->name, e->item, b->line);
    strf(buf, cap, "body %s, unit norm of the Euler parameters", lab);
}

const ld_ekind ld_ek_unit_norm = {.name = "unit-norm",
                                  .instances = norm_instances,
                                  .stiffness = norm_stiffness,
                                  .phi = norm_phi,
                                  .phi_q = norm_phi_q,
                                  .phi_dd = norm_phi_dd,
                                  .row_name = norm_row_name};

/*
 * The tree formulation's dynamics (tree.h): forward kinematics, the joint-space mass matrix by
 * the composite-rigid-body algorithm, the bias forces by recursive Newton–Euler, and the
 * LᵀDL factorization that exploits the tree's sparsity (Featherstone, Rigid Body Dynamics
 * Algorithms, 2008: secs. 5.3, 6.2, 6.5), all in the inertial frame (no coordinate transforms
 * between links: the composite inertias add as they are). The system is v̇ = q̈(t, q, v) with
 * M = I and g = −q̈ = H⁻¹ (C − τ). No allocation.
 */
#include <math.h>
#include <string.h>

#include "../elements/kinds.h"
#include "../lie/mat3.h"
#include "liedyn/liedyn.h"
#include "tree.h"

/* Entry (i, j) of an n×n row-major matrix. */
static inline size_t ix(int i, int j, int n) {
    return (size_t)i * (size_t)n + (size_t)j;
}

static ld_tree *TR(const ld_system *s) {
    return ld_rb(s)->tree;
}

/* ---------------------------------------------------------------- kinematics */

/* Free link i (column col of its root's (Ω, ẋ)): the root body's motion since the start from
 * its node's (R, x) — G = (R R₀ᵀ, x − R R₀ᵀ x₀) — and column col of its motion subspace
 * [R, 0; x̂ R, I] (ω = R Ω, v_O = ẋ + x × ω). */
static void free_link(ld_tree *T, int i, const double *q) {
    const double *g = q + T->qsys[i], *Rb = g, *xb = g + 9;
    double *R = T->R + 9 * i, *p = T->p + 3 * i, *S = T->S + 6 * i;
    if (T->col[i] > 0) { /* the same pose as the column before */
        memcpy(R, R - 9, 9 * sizeof *R);
        memcpy(p, p - 3, 3 * sizeof *p);
    } else {
        const ld_body *b = &T->m->bodies[T->joint[i]];
        double R0[9], R0t[9], qn[4], Rx0[3];
        (void)ld_quat_normalize(qn, b->q);
        ld_quat_to_mat(R0, qn);
        ld_m3_transpose(R0t, R0);
        ld_m3_mul(R, Rb, R0t);
        ld_m3_mulv(Rx0, R, b->x);
        for (int k = 0; k < 3; ++k) p[k] = xb[k] - Rx0[k];
    }
    int c = T->col[i];
    memset(S, 0, 6 * sizeof *S);
    if (c >= 3) {
        S[3 + c - 3] = 1.0;
        return;
    }
    for (int k = 0; k < 3; ++k) S[k] = Rb[3 * k + c];
    ld_v3_cross(S + 3, xb, S);
}

void ld_tree_fk(ld_tree *T, const double *q) {
    for (int i = 0; i < T->n; ++i) {
        if (T->kind[i] == LD_TREE_FREE) {
            free_link(T, i, q);
            continue;
        }
        const double *u0 = T->u0 + 3 * i, *r0 = T->r0 + 3 * i;
        double *R = T->R + 9 * i, *p = T->p + 3 * i, *S = T->S + 6 * i;
        double qi = T->sig[i] * q[T->qsys[i]], XR[9], px[3], Rp[9], pp[3] = {0, 0, 0};
        T->qi[i] = q[T->qsys[i]];
        if (T->par[i] < 0) {
            static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            memcpy(Rp, I3, sizeof Rp);
        } else {
            memcpy(Rp, T->R + 9 * T->par[i], sizeof Rp);
            memcpy(pp, T->p + 3 * T->par[i], sizeof pp);
        }
        int prism = T->kind[i] == LD_TREE_PRISMATIC;
        if (prism) {
            static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            memcpy(XR, I3, sizeof XR);
            for (int k = 0; k < 3; ++k) px[k] = qi * u0[k];
        } else {
            /* exp(qi û0) by Rodrigues on the unit axis: 1 − cos = sin²/(1 + cos) without
             * cancellation where cos > 0 */
            double sn = sin(qi), cs = cos(qi), Xr[3];
            ld_m3_rodrigues(XR, u0, sn, cs > 0.0 ? sn * sn / (1.0 + cs) : 1.0 - cs);
            ld_m3_mulv(Xr, XR, r0);
            for (int k = 0; k < 3; ++k) px[k] = r0[k] - Xr[k];
        }
        ld_m3_mul(R, Rp, XR);
        ld_m3_mulv(p, Rp, px);
        for (int k = 0; k < 3; ++k) p[k] += pp[k];
        double u[3], r[3];
        ld_m3_mulv(u, Rp, u0);
        ld_m3_mulv(r, Rp, r0);
        for (int k = 0; k < 3; ++k) r[k] += pp[k];
        if (prism) {
            for (int k = 0; k < 3; ++k) S[k] = 0.0, S[3 + k] = T->sig[i] * u[k];
        } else {
            double ru[3];
            ld_v3_cross(ru, r, u);
            for (int k = 0; k < 3; ++k) S[k] = T->sig[i] * u[k], S[3 + k] = T->sig[i] * ru[k];
        }
    }
}

void ld_tree_velocities(ld_tree *T, const double *v) {
    for (int i = 0; i < T->n; ++i) {
        double *V = T->V + 6 * i, qd = v[T->sys[i]];
        const double *S = T->S + 6 * i;
        T->vi[i] = qd;
        for (int k = 0; k < 6; ++k)
            V[k] = (T->par[i] < 0 ? 0.0 : T->V[6 * T->par[i] + k]) + S[k] * qd;
    }
}

/* The inertia of link i now: its centre c = R c0 + p, J_c = R J_c0 Rᵀ. */
static void link_inertia(const ld_tree *T, int i, ld_tree_inertia *I) {
    const double *R = T->R + 9 * i, *p = T->p + 3 * i, *J0 = T->lJ0 + 9 * i;
    double c[3], RJ[9], Jc[9], Rt[9], m = T->lm[i];
    ld_m3_mulv(c, R, T->lc0 + 3 * i);
    for (int k = 0; k < 3; ++k) c[k] += p[k];
    ld_m3_mul(RJ, R, J0);
    ld_m3_transpose(Rt, R);
    ld_m3_mul(Jc, RJ, Rt);
    double cc = ld_v3_dot(c, c);
    I->m = m;
    for (int a = 0; a < 3; ++a) {
        I->h[a] = m * c[a];
        for (int b = 0; b < 3; ++b)
            I->Jo[3 * a + b] = Jc[3 * a + b] + m * ((a == b) * cc - c[a] * c[b]);
    }
}

void ld_tree_inertias(ld_tree *T) {
    for (int i = 0; i < T->n; ++i) link_inertia(T, i, &T->I[i]);
}

/* ---------------------------------------------------------------- CRBA, RNEA */

void ld_tree_crba(ld_tree *T) {
    int n = T->n;
    ld_tree_inertias(T);
    memcpy(T->Ic, T->I, (size_t)n * sizeof *T->Ic);
    for (int i = n - 1; i >= 0; --i) {
        int p = T->par[i];
        if (p < 0) continue;
        ld_tree_inertia *a = &T->Ic[p], *b = &T->Ic[i];
        a->m += b->m;
        for (int k = 0; k < 3; ++k) a->h[k] += b->h[k];
        for (int k = 0; k < 9; ++k) a->Jo[k] += b->Jo[k];
    }
    memset(T->H, 0, (size_t)n * (size_t)n * sizeof *T->H);
    for (int i = 0; i < n; ++i) {
        double F[6];
        inertia_mul(&T->Ic[i], T->S + 6 * i, F);
        T->H[ix(i, i, n)] = dot6(F, T->S + 6 * i);
        for (int j = T->par[i]; j >= 0; j = T->par[j])
            T->H[ix(i, j, n)] = T->H[ix(j, i, n)] = dot6(F, T->S + 6 * j);
    }
}

void ld_tree_rnea(ld_tree *T, double *c) {
    int n = T->n;
    const double a0[6] = {0, 0, 0, -T->g[0], -T->g[1], -T->g[2]}; /* gravity as a base motion */
    for (int i = 0; i < n; ++i) {
        const double *V = T->V + 6 * i, *Ap = T->par[i] < 0 ? a0 : T->A + 6 * T->par[i];
        double *A = T->A + 6 * i, *F = T->F + 6 * i, vs[6], IV[6], IA[6], x[6];
        if (T->kind[i] != LD_TREE_FREE) {
            crm(V, T->S + 6 * i, vs);
            for (int k = 0; k < 6; ++k) vs[k] *= T->vi[i];
        } else { /* a root's S ν changes by (0, ẋ × ω) at fixed ν: added at its last column */
            double xd[3] = {T->vi[i - 2], T->vi[i - 1], T->vi[i]};
            memset(vs, 0, sizeof vs);
            if (T->col[i] == 5) ld_v3_cross(vs + 3, xd, V);
        }
        for (int k = 0; k < 6; ++k) A[k] = Ap[k] + vs[k];
        inertia_mul(&T->I[i], A, IA);
        inertia_mul(&T->I[i], V, IV);
        crf(V, IV, x);
        for (int k = 0; k < 6; ++k) F[k] = IA[k] + x[k];
    }
    for (int i = n - 1; i >= 0; --i) {
        c[i] = dot6(T->S + 6 * i, T->F + 6 * i);
        if (T->par[i] >= 0)
            for (int k = 0; k < 6; ++k) T->F[6 * T->par[i] + k] += T->F[6 * i + k];
    }
}

/* ---------------------------------------------------------------- LᵀDL */

int ld_tree_ltdl(ld_tree *T) {
    int n = T->n;
    double *H = T->H;
    for (int k = n - 1; k >= 0; --k) {
        double d = H[ix(k, k, n)];
        if (!(d > 0.0) || !isfinite(d)) return LD_ESINGULAR;
        for (int i = T->par[k]; i >= 0; i = T->par[i]) {
            double a = H[ix(k, i, n)] / d;
            for (int j = i; j >= 0; j = T->par[j]) H[ix(i, j, n)] -= a * H[ix(k, j, n)];
            H[ix(k, i, n)] = a;
        }
    }
    return LD_OK;
}

void ld_tree_ltdl_solve(const ld_tree *T, double *b) {
    int n = T->n;
    const double *H = T->H;
    for (int i = n - 1; i >= 0; --i) /* Lᵀ y = b */
        for (int j = T->par[i]; j >= 0; j = T->par[j]) b[j] -= H[ix(i, j, n)] * b[i];
    for (int i = 0; i < n; ++i) b[i] /= H[ix(i, i, n)];
    for (int i = 0; i < n; ++i) /* L x = y */
        for (int j = T->par[i]; j >= 0; j = T->par[j]) b[i] -= H[ix(i, j, n)] * b[j];
}

/* ---------------------------------------------------------------- the system */

int ld_tree_mass(const ld_system *s, const double *q, double *M) {
    (void)q;
    if (!s || !M) return LD_EINVAL;
    memset(M, 0, (size_t)s->k * (size_t)s->k * sizeof *M);
    for (int i = 0; i < s->k; ++i) M[ix(i, i, s->k)] = 1.0;
    return LD_OK;
}

int ld_tree_mass_blocks(const ld_system *s, const double *q, double *Mb) {
    (void)q;
    if (!s || !Mb) return LD_EINVAL;
    for (int r = 0; r < TR(s)->nroot; ++r, Mb += 36) /* the roots' 6×6 identities */
        for (int k = 0; k < 36; ++k) Mb[k] = k % 7 == 0;
    for (int i = 6 * TR(s)->nroot; i < s->k; ++i) *Mb++ = 1.0;
    return LD_OK;
}

int ld_tree_phi_q_sparse(const ld_system *s, double t, const double *q, double *vals) {
    (void)s, (void)t, (void)q, (void)vals;
    return LD_OK;
}

/* Spring-damper e's generalized force τ on its coordinate and its energy, at the state of the
 * last ld_tree_fk and ld_tree_velocities. */
void ld_tree_spring_eval(const ld_tree *T, const ld_tree_spring *sp, double *tau, double *V) {
    double q = T->qi[sp->link], qd = T->vi[sp->link];
    if (sp->slide) {
        double x = sp->L + q, sg = x < 0.0 ? -1.0 : 1.0, l = fabs(x), d = l - sp->l0;
        *tau = -sg * (sp->k * d + sp->f0 + sp->c * sg * qd);
        *V = 0.5 * sp->k * d * d + sp->f0 * d;
        return;
    }
    double d = sp->sig * q - sp->rest;
    *tau = -sp->sig * (sp->k * d + sp->c * sp->sig * qd);
    *V = 0.5 * sp->k * d * d;
}

void ld_tree_springs_sub(const ld_tree *T, double *b) {
    for (int e = 0; e < T->nspring; ++e) {
        double tau, V;
        ld_tree_spring_eval(T, &T->spring[e], &tau, &V);
        b[T->spring[e].link] -= tau;
    }
}

int ld_tree_force(const ld_system *s, double t, const double *q, const double *v, double *g) {
    (void)t;
    if (!s || !q || !v || !g) return LD_EINVAL;
    ld_tree *T = TR(s);
    ld_tree_fk(T, q);
    ld_tree_velocities(T, v);
    ld_tree_crba(T);
    ld_tree_rnea(T, T->b);        /* C */
    ld_tree_springs_sub(T, T->b); /* C − τ */
    for (int i = 0; i < T->n; ++i)
        if (!isfinite(T->b[i])) return LD_EDOMAIN;
    int rc = ld_tree_ltdl(T);
    if (rc)
        return LD_ESINGULAR;     /* H is SPD for links of positive mass: a zero pivot is the
                                  * model's (a link without inertia about its axis), not the step's */
    ld_tree_ltdl_solve(T, T->b); /* −q̈ */
    for (int i = 0; i < T->n; ++i) g[T->sys[i]] = T->b[i];
    T->fk_valid = 0;
    return LD_OK;
}

int ld_tree_energy(const ld_system *s, double t, const double *q, const double *v, double *e) {
    (void)t;
    if (!s || !q || !v || !e) return LD_EINVAL;
    ld_tree *T = TR(s);
    ld_tree_fk(T, q);
    ld_tree_velocities(T, v);
    ld_tree_inertias(T);
    double E = T->e_ground;
    for (int i = 0; i < T->n; ++i) {
        double f[6];
        inertia_mul(&T->I[i], T->V + 6 * i, f);
        E += 0.5 * dot6(f, T->V + 6 * i) - ld_v3_dot(T->g, T->I[i].h);
    }
    for (int k = 0; k < T->nspring; ++k) {
        double tau, V;
        ld_tree_spring_eval(T, &T->spring[k], &tau, &V);
        E += V;
    }
    T->fk_valid = 0;
    *e = E;
    return LD_OK;
}

void ld_tree_body_state(const ld_system *s, int b, const double *q, const double *v, double x[3],
                        double quat[4], double omega[3], double xdot[3]) {
    ld_tree *T = TR(s);
    size_t n = (size_t)T->n, nq = (size_t)T->nq;
    if (!T->fk_valid || memcmp(T->fkq, q, nq * sizeof *q) || memcmp(T->fkv, v, n * sizeof *v)) {
        ld_tree_fk(T, q);
        ld_tree_velocities(T, v);
        memcpy(T->fkq, q, nq * sizeof *q);
        memcpy(T->fkv, v, n * sizeof *v);
        T->fk_valid = 1, T->react_valid = 0;
    }
    const ld_body *bd = &ld_rb(s)->m->bodies[b];
    double R0[9], R[9], qn[4], w[3] = {0, 0, 0}, vo[3] = {0, 0, 0};
    (void)ld_quat_normalize(qn, bd->q);
    ld_quat_to_mat(R0, qn);
    int i = T->carrier[b];
    if (i < 0) {
        memcpy(R, R0, sizeof R);
        memcpy(x, bd->x, 3 * sizeof *x);
    } else {
        ld_m3_mul(R, T->R + 9 * i, R0);
        ld_m3_mulv(x, T->R + 9 * i, bd->x);
        for (int k = 0; k < 3; ++k) x[k] += T->p[3 * i + k];
        memcpy(w, T->V + 6 * i, sizeof w);
        memcpy(vo, T->V + 6 * i + 3, sizeof vo);
    }
    ld_quat_from_mat(quat, R);
    ld_m3_tmulv(omega, R, w);
    double wx[3];
    ld_v3_cross(wx, w, x);
    for (int k = 0; k < 3; ++k) xdot[k] = vo[k] + wx[k];
}

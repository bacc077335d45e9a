/*
 * The spatial formulations (so3xr3-spatial, s3xr3-spatial) for every element kind at once
 * (element.h, docs/mechanics.md "Which frame for the velocities").
 *
 * A node's velocity is (ω, ẋ) with ω = RΩ, and the increments compose on the left: exp(δ) R.
 * The kinds evaluate in the body-frame formulation of the same storage (so3xr3, s3xr3), and
 * this file maps their local arrays. With P = diag(Rᵀ, I) per node, v_b = P v (and v̇_b = P v̇,
 * since Ṙᵀω = −Rᵀ(ω × ω) = 0) and a perturbation exp(δ) R = R exp(Rᵀδ), i.e. δ_b = P δ:
 *   M = Pᵀ M_b P,  g = Pᵀ g_b(q, P v),  ∂g/∂v = Pᵀ C_b P,  B = B_b P,  Φ, ∂Φ/∂t, z and the
 *   energy are those of the body-frame kind at v_b = P v;
 *   K = Pᵀ K_b P + C Ŵ + M Â − Ĥ(F),  F = M v̇ + g + Bᵀλ (this instance's, spatial),
 * where Ŵ, Â are block diagonal with hat(ω) and hat(ω̇) in each node's rotation block and Ĥ(F)
 * with hat(F_rot): from d(Rᵀw) = Rᵀ hat(w) δ and d(R f) = −hat(R f) δ along exp(δ) R.
 * No allocation: the scratch is E->sbuf, sized when the instances are built.
 */
#include <string.h>

#include "../lie/mat3.h"
#include "../elements/element.h"
#include "liedyn/liedyn.h"
#include "../elements/kinds.h"

size_t ld_elem_spatial_doubles(int maxnl, int maxrows) {
    size_t nl = (size_t)maxnl, mr = (size_t)maxrows;
    return 9 * LD_ELEM_MAX_NODES + 4 * nl + 2 * nl * nl + mr * nl;
}

/* The rotations of the instance's nodes, 9 doubles each. */
static void rotations(const ld_elem_ctx *c, double *R) {
    const double *x;
    for (int a = 0; a < c->e->nn; ++a) ld_rb_pose(c->s, c->q, c->e->node[a], R + 9 * a, &x);
}

/* y = P x (to body, tr = 1) or Pᵀ x (to spatial, tr = 0) for a local vector; y may be x. */
static void map_vec(const ld_elem *e, const double *R, const double *x, double *y, int tr) {
    for (int a = 0; a < e->nn; ++a) {
        double r[3];
        const double *xa = x + e->off[a];
        if (tr)
            ld_m3_tmulv(r, R + 9 * a, xa);
        else
            ld_m3_mulv(r, R + 9 * a, xa);
        if (y != x) memcpy(y + e->off[a] + 3, xa + 3, 3 * sizeof(double));
        memcpy(y + e->off[a], r, sizeof r);
    }
}

/* A (nr × nl, row-major) ← A P: each node's three rotation columns times Rᵀ. */
static void map_cols(const ld_elem *e, const double *R, double *A, int nr) {
    size_t nl = (size_t)e->nl;
    for (int r = 0; r < nr; ++r)
        for (int a = 0; a < e->nn; ++a) {
            double *p = A + (size_t)r * nl + (size_t)e->off[a], y[3];
            ld_m3_mulv(y, R + 9 * a, p); /* (row · Rᵀ)ᵀ = R rowᵀ */
            memcpy(p, y, sizeof y);
        }
}

/* A (nl × nl) ← Pᵀ A: each node's three rotation rows times R. */
static void map_rows(const ld_elem *e, const double *R, double *A) {
    size_t nl = (size_t)e->nl;
    for (int a = 0; a < e->nn; ++a) {
        const double *Ra = R + 9 * a;
        double *p = A + (size_t)e->off[a] * nl;
        for (size_t c = 0; c < nl; ++c) {
            double x[3] = {p[c], p[nl + c], p[2 * nl + c]}, y[3];
            ld_m3_mulv(y, Ra, x);
            p[c] = y[0], p[nl + c] = y[1], p[2 * nl + c] = y[2];
        }
    }
}

/* K += A D with D block diagonal: hat(w_a) in node a's rotation block (w local, nl). */
static void add_times_hat(const ld_elem *e, const double *A, const double *w, double *K) {
    size_t nl = (size_t)e->nl;
    for (int a = 0; a < e->nn; ++a) {
        size_t o = (size_t)e->off[a];
        const double *x = w + o;
        for (size_t r = 0; r < nl; ++r) {
            const double *p = A + r * nl + o; /* row r, columns o … o + 2 */
            double *k = K + r * nl + o;       /* (p · hat(x))_j = (p × x)_j */
            k[0] += p[1] * x[2] - p[2] * x[1];
            k[1] += p[2] * x[0] - p[0] * x[2];
            k[2] += p[0] * x[1] - p[1] * x[0];
        }
    }
}

/* One evaluation of a matrix or vector hook at the body-frame context, mapped to spatial. */
static int mat_hook(int (*h)(const ld_elem_ctx *, double *), const ld_elem_ctx *cb, const double *R,
                    double *A) {
    memset(A, 0, (size_t)cb->e->nl * (size_t)cb->e->nl * sizeof(double));
    int rc = h(cb, A);
    if (rc) return rc;
    map_rows(cb->e, R, A);
    map_cols(cb->e, R, A, cb->e->nl);
    return LD_OK;
}

/* The stiffness (module comment) into K, which holds Pᵀ K_b P on entry. */
static int stiffness_terms(const ld_elem_ctx *c, const ld_elem_ctx *cb, const double *R, double *A,
                           double *F, double *Bl, double *K) {
    const ld_ekind *k = c->e->kind;
    size_t nl = (size_t)c->e->nl;
    memset(F, 0, nl * sizeof(double));
    int rc = LD_OK;
    if (k->mass && c->a) {
        rc = mat_hook(k->mass, cb, R, A);
        if (rc) return rc;
        add_times_hat(c->e, A, c->a, K);
        for (size_t r = 0; r < nl; ++r)
            for (size_t j = 0; j < nl; ++j) F[r] += A[r * nl + j] * c->a[j];
    }
    if (k->g_v && c->v) {
        rc = mat_hook(k->g_v, cb, R, A);
        if (rc) return rc;
        add_times_hat(c->e, A, c->v, K);
    }
    if (k->force && c->v) {
        memset(A, 0, nl * sizeof(double));
        rc = k->force(cb, A);
        if (rc) return rc;
        map_vec(c->e, R, A, A, 0);
        for (size_t r = 0; r < nl; ++r) F[r] += A[r];
    }
    if (k->phi_q && c->lam && c->e->nrows > 0) {
        memset(Bl, 0, (size_t)c->e->nrows * nl * sizeof(double));
        rc = k->phi_q(cb, Bl);
        if (rc) return rc;
        map_cols(c->e, R, Bl, c->e->nrows);
        for (int r = 0; r < c->e->nrows; ++r)
            for (size_t j = 0; j < nl; ++j) F[j] += Bl[(size_t)r * nl + j] * c->lam[r];
    }
    for (int a = 0; a < c->e->nn; ++a) { /* − hat(F_rot) in each rotation block */
        size_t o = (size_t)c->e->off[a];
        const double *f = F + o;
        double *p = K + o * nl + o;
        p[1] += f[2], p[2] -= f[1];
        p[nl] -= f[2], p[nl + 2] += f[0];
        p[2 * nl] += f[1], p[2 * nl + 1] -= f[0];
    }
    return LD_OK;
}

void ld_elem_spatial_velocity(const ld_system *s, const ld_elem *e, const double *q, double *vl) {
    double R[9 * LD_ELEM_MAX_NODES];
    ld_elem_ctx c = {s, e, 0.0, q, NULL, NULL, NULL, NULL};
    rotations(&c, R);
    map_vec(e, R, vl, vl, 1);
}

int ld_elem_spatial_eval(const ld_elem_ctx *c, int op, double *out) {
    int (*h)(const ld_elem_ctx *, double *) = ld_ekind_hook(c->e->kind, op);
    if (!h) return LD_OK;
    const ld_elems *E = &ld_rb(c->s)->E;
    size_t nl = (size_t)c->e->nl;
    double *R = E->sbuf, *vb = R + 9 * LD_ELEM_MAX_NODES, *ab = vb + nl, *F = ab + nl,
           *A = F + 2 * nl, *Bl = A + nl * nl;
    rotations(c, R);
    ld_elem_ctx cb = *c;
    if (c->v) {
        map_vec(c->e, R, c->v, vb, 1);
        cb.v = vb;
    }
    if (c->a) {
        map_vec(c->e, R, c->a, ab, 1);
        cb.a = ab;
    }
    int rc = h(&cb, out);
    if (rc) return rc;
    switch (op) {
    case LD_EOP_MASS:
    case LD_EOP_G_V:
        map_rows(c->e, R, out);
        map_cols(c->e, R, out, c->e->nl);
        return LD_OK;
    case LD_EOP_FORCE:
        map_vec(c->e, R, out, out, 0);
        return LD_OK;
    case LD_EOP_PHI_Q:
        map_cols(c->e, R, out, c->e->nrows);
        return LD_OK;
    case LD_EOP_STIFFNESS:
        map_rows(c->e, R, out);
        map_cols(c->e, R, out, c->e->nl);
        return stiffness_terms(c, &cb, R, A, F, Bl, out);
    default: /* Φ, ∂Φ/∂t, z, the energy: scalars of (q, v_b) */
        return LD_OK;
    }
}

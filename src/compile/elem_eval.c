/*
 * The evaluation loops of the element interface (element.h): the one gather of an instance's v,
 * a and λ, and the one scatter of its local blocks into the global vectors, the dense matrices,
 * the values of B's pattern and the tangent blocks, for every operation and for the fused pass
 * of a Newton iteration. The loops evaluate the instances in table order (elem.c), so that sums
 * come out as the kinds' own code would add them; nothing is allocated here.
 */
#include <stdlib.h>
#include <string.h>

#include "../elements/element.h"
#include "liedyn/liedyn.h"
#include "../elements/kinds.h"
#include "../sys/nodes.h"
#include "elem_impl.h"

/* ---------------------------------------------------------------- gather and scatter */

/* The scratch of one evaluation: local v, a, λ, a vector and three matrix blocks (red: the
 * reduced copy of a block). */
typedef struct scratch {
    double *v, *a, *lam, *vec, *blk, *blk2, *red;
    ld_elem_nout n; /* the fused pass's local outputs (ld_elems_eval_newton) */
} scratch;

static scratch scratch_of(const ld_elems *E) {
    size_t nl = (size_t)E->maxnl;
    scratch w;
    w.v = E->buf;
    w.a = w.v + nl;
    w.vec = w.a + nl;
    w.lam = w.vec + nl;
    size_t mr = (size_t)E->maxrows, bsz = nl * nl > mr * nl ? nl * nl : mr * nl;
    w.blk = w.lam + mr;
    w.red = w.blk + bsz;
    w.blk2 = w.red + bsz;
    w.n.M = w.blk2 + nl * nl;
    w.n.C = w.n.M + nl * nl;
    w.n.K = w.n.C + nl * nl;
    w.n.g = w.n.K + nl * nl;
    w.n.phi = w.n.g + nl;
    w.n.B = w.n.phi + mr;
    return w;
}

/* d = s (n entries), the common six-velocity node without a library call. */
static inline void copy_nv(double *restrict d, const double *restrict s, int n) {
    if (n == 6)
        for (int j = 0; j < 6; ++j) d[j] = s[j];
    else
        memcpy(d, s, (size_t)n * sizeof(double));
}

/* xl = the instance's entries of the global vector x (velocity layout), each node's block
 * P ξ for a pinned node. */
static void gather(const ld_system *s, const ld_elem *e, const double *x, double *xl) {
    for (int a = 0; a < e->nn; ++a) {
        const double *src = x + s->nodes[e->node[a]].voff;
        int nv = node_nv(s, e->node[a]);
        double P[18];
        int hw = e->red ? node_embedding(s, e->node[a], P) : 0;
        for (int r = 0; r < hw; ++r) {
            double acc = 0.0;
            for (int c = 0; c < nv; ++c) acc += P[nv * r + c] * src[c];
            xl[e->off[a] + r] = acc;
        }
        if (!hw) copy_nv(xl + e->off[a], src, nv);
    }
}

/* The reduced copy of nr rows of a local array (rows nl apart; nr = 1: a vector): columns by
 * P, and with rows set (a square block) rows by Pᵀ, into the nodes' own coordinates (cnl
 * columns; *out = R) — or A itself when no node of e is reduced. */
static const double *reduce(const ld_system *s, const ld_elem *e, const double *A, int nr, int rows,
                            double *R) {
    if (!e->red) return A;
    size_t nl = (size_t)e->nl, cnl = (size_t)e->cnl;
    double P[LD_ELEM_MAX_NODES][18];
    int hw[LD_ELEM_MAX_NODES], nv[LD_ELEM_MAX_NODES];
    for (int a = 0; a < e->nn; ++a) {
        hw[a] = node_embedding(s, e->node[a], P[a]);
        nv[a] = node_nv(s, e->node[a]);
    }
    for (int r = 0; r < nr; ++r) /* columns: R(r, ·) = A(r, ·) P */
        for (int b = 0; b < e->nn; ++b)
            for (int c = 0; c < nv[b]; ++c) {
                const double *src = A + (size_t)r * nl + (size_t)e->off[b];
                double acc = 0.0;
                if (!hw[b]) acc = src[c];
                for (int l = 0; l < hw[b]; ++l) acc += src[l] * P[b][nv[b] * l + c];
                R[(size_t)r * cnl + (size_t)e->coff[b] + (size_t)c] = acc;
            }
    if (!rows) return R;
    for (int a = 0; a < e->nn; ++a) { /* rows: Pᵀ, in place (coff ≤ off: upwards) */
        if (!hw[a]) {
            for (int r = 0; r < nv[a]; ++r)
                memmove(R + ((size_t)e->coff[a] + (size_t)r) * cnl,
                        R + ((size_t)e->off[a] + (size_t)r) * cnl, cnl * sizeof(double));
            continue;
        }
        double T[6 * 6 * LD_ELEM_MAX_NODES];
        for (int r = 0; r < nv[a]; ++r)
            for (size_t c = 0; c < cnl; ++c) {
                double acc = 0.0;
                for (int l = 0; l < hw[a]; ++l)
                    acc += P[a][nv[a] * l + r] * R[((size_t)e->off[a] + (size_t)l) * cnl + c];
                T[(size_t)r * cnl + c] = acc;
            }
        memcpy(R + (size_t)e->coff[a] * cnl, T, (size_t)nv[a] * cnl * sizeof(double));
    }
    return R;
}

/* x += the local vector xl (nodes' own coordinates: cnl entries at coff). */
static void scatter_vec(const ld_system *s, const ld_elem *e, const double *xl, double *x) {
    for (int a = 0; a < e->nn; ++a) {
        double *dst = x + s->nodes[e->node[a]].voff;
        const double *src = xl + e->coff[a];
        for (int j = 0, nv = node_nv(s, e->node[a]); j < nv; ++j) dst[j] += src[j];
    }
}

/* A (k×k) += the local cnl×cnl matrix Al (nodes' own coordinates). */
static void scatter_mat(const ld_system *s, const ld_elem *e, const double *restrict Al,
                        double *restrict A) {
    size_t k = (size_t)s->k, nl = (size_t)e->cnl;
    if (e->nn == 1 && nl == 6) { /* one six-velocity node (a body): a fixed 6×6 block */
        double *restrict dst = A + (size_t)s->nodes[e->node[0]].voff * (k + 1);
        for (size_t r = 0; r < 6; ++r, dst += k, Al += 6)
            for (size_t c = 0; c < 6; ++c) dst[c] += Al[c];
        return;
    }
    for (int a = 0; a < e->nn; ++a) {
        size_t ra = (size_t)s->nodes[e->node[a]].voff, na = (size_t)node_nv(s, e->node[a]);
        for (int b = 0; b < e->nn; ++b) {
            size_t cb = (size_t)s->nodes[e->node[b]].voff, nb = (size_t)node_nv(s, e->node[b]);
            for (size_t r = 0; r < na; ++r) {
                const double *src = Al + ((size_t)e->coff[a] + r) * nl + (size_t)e->coff[b];
                double *dst = A + (ra + r) * k + cb;
                if (nb == 6) /* the common six-velocity node: a fixed-length row */
                    for (size_t c = 0; c < 6; ++c) dst[c] += src[c];
                else
                    for (size_t c = 0; c < nb; ++c) dst[c] += src[c];
            }
        }
    }
}

/* The context of instance e, with v, a and λ gathered where given; an instance of one node in
 * its own coordinates reads its slice of v and a in place (the same values as gathered). */
static ld_elem_ctx context(const ld_system *s, const ld_elem *e, double t, const double *q,
                           const double *v, const double *a, const double *lambda, scratch *w) {
    ld_elem_ctx c = {s, e, t, q, NULL, NULL, NULL, v};
    int slice = e->nn == 1 && !e->red;
    size_t o = slice ? (size_t)s->nodes[e->node[0]].voff : 0;
    if (v) {
        if (!slice) gather(s, e, v, w->v);
        c.v = slice ? v + o : w->v;
    }
    if (a) {
        if (!slice) gather(s, e, a, w->a);
        c.a = slice ? a + o : w->a;
    }
    if (lambda && e->nrows > 0) {
        if (e->drop) {
            memset(w->lam, 0, (size_t)e->nrows * sizeof(double));
            for (int kr = 0; kr < e->nkeep; ++kr)
                w->lam[ld_elem_kept_row(e, kr)] = lambda[e->row0 + kr];
        } else {
            memcpy(w->lam, lambda + e->row0, (size_t)e->nrows * sizeof(double));
        }
        c.lam = w->lam;
    }
    return c;
}

void ld_elems_local_velocity(const ld_system *s, const ld_elem *e, const double *q, const double *v,
                             double *vl) {
    gather(s, e, v, vl);
    if (ld_rb(s)->left) ld_elem_spatial_velocity(s, e, q, vl);
}

/* ---------------------------------------------------------------- the operations */

/* The hooks that fill one local array, by operation. */
typedef int (*hook_fn)(const ld_elem_ctx *c, double *out);

hook_fn ld_ekind_hook(const ld_ekind *k, int op) {
    switch (op) {
    case LD_EOP_MASS:
        return k->mass;
    case LD_EOP_FORCE:
        return k->force;
    case LD_EOP_G_V:
        return k->g_v;
    case LD_EOP_STIFFNESS:
        return k->stiffness;
    case LD_EOP_ENERGY:
        return k->energy;
    case LD_EOP_PHI:
        return k->phi;
    case LD_EOP_PHI_Q:
        return k->phi_q;
    case LD_EOP_PHI_T:
        return k->phi_t;
    default:
        return k->phi_dd;
    }
}

/* Operation op of c's instance into out (zeroed by the caller): the kind's hook, through the
 * frame map of elem_spatial.c in the spatial formulations. */
static int call(const ld_elem_ctx *c, int op, double *out) {
    if (ld_rb(c->s)->left) return ld_elem_spatial_eval(c, op, out);
    hook_fn h = ld_ekind_hook(c->e->kind, op);
    return h ? h(c, out) : LD_OK;
}

/* A = Σ the local matrices of operation op (k×k). */
static int sum_mat(const ld_system *s, int op, double t, const double *q, const double *v,
                   const double *a, const double *lambda, double *A) {
    const ld_elems *E = EL(s);
    scratch w = scratch_of(E);
    memset(A, 0, (size_t)s->k * (size_t)s->k * sizeof(double));
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        if (!ld_ekind_hook(e->kind, op)) continue;
        ld_elem_ctx c = context(s, e, t, q, v, a, lambda, &w);
        memset(w.blk, 0, (size_t)e->nl * (size_t)e->nl * sizeof(double));
        int rc = call(&c, op, w.blk);
        if (rc) return rc;
        scatter_mat(s, e, reduce(s, e, w.blk, e->nl, 1, w.red), A);
    }
    return LD_OK;
}

int ld_elems_mass(const ld_system *s, const double *q, double *M) {
    return sum_mat(s, LD_EOP_MASS, 0.0, q, NULL, NULL, NULL, M);
}

int ld_elems_g_v(const ld_system *s, double t, const double *q, const double *v, double *C) {
    return sum_mat(s, LD_EOP_G_V, t, q, v, NULL, NULL, C);
}

int ld_elems_stiffness(const ld_system *s, double t, const double *q, const double *v,
                       const double *a, const double *lambda, double *K) {
    return sum_mat(s, LD_EOP_STIFFNESS, t, q, v, a, lambda, K);
}

/* M by node blocks (Σ nv² entries): the single-node instances' mass blocks. */
int ld_elems_mass_blocks(const ld_system *s, const double *q, double *Mb) {
    const ld_elems *E = EL(s);
    scratch w = scratch_of(E);
    memset(Mb, 0, ld_sys_mass_block_entries(s) * sizeof(double));
    if (!E->mboff) return LD_ENOTSUPPORTED;
    for (int i = 0; i < E->n; ++i) { /* the instances of a kind may visit the nodes anew */
        const ld_elem *e = &E->e[i];
        if (!e->kind->mass) continue;
        if (e->nn != 1) return LD_ENOTSUPPORTED;
        size_t o = E->mboff[e->node[0]];
        ld_elem_ctx c = context(s, e, 0.0, q, NULL, NULL, NULL, &w);
        size_t nl2 = (size_t)e->nl * (size_t)e->nl, cnl2 = (size_t)e->cnl * (size_t)e->cnl;
        memset(w.blk, 0, nl2 * sizeof(double));
        int rc = call(&c, LD_EOP_MASS, w.blk);
        if (rc) return rc;
        const double *Ml = reduce(s, e, w.blk, e->nl, 1, w.red);
        for (size_t j = 0; j < cnl2; ++j) Mb[o + j] += Ml[j];
    }
    return LD_OK;
}

int ld_elems_add_force_of(const ld_system *s, const ld_ekind *kind, double t, const double *q,
                          const double *v, double *g) {
    const ld_elems *E = EL(s);
    scratch w = scratch_of(E);
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        if (!e->kind->force || (kind && e->kind != kind)) continue;
        ld_elem_ctx c = context(s, e, t, q, v, NULL, NULL, &w);
        memset(w.vec, 0, (size_t)e->nl * sizeof(double));
        int rc = call(&c, LD_EOP_FORCE, w.vec);
        if (rc) return rc;
        scatter_vec(s, e, reduce(s, e, w.vec, 1, 0, w.red), g);
    }
    return LD_OK;
}

int ld_elems_force(const ld_system *s, double t, const double *q, const double *v, double *g) {
    memset(g, 0, (size_t)s->k * sizeof(double));
    return ld_elems_add_force_of(s, NULL, t, q, v, g);
}

/* The energy, summed kind by kind and then over the kinds. */
int ld_elems_energy_of(const ld_system *s, const ld_ekind *kind, double t, const double *q,
                       const double *v, double *en) {
    const ld_elems *E = EL(s);
    scratch w = scratch_of(E);
    double total = 0.0, part = 0.0;
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        if (e->kind->energy && (!kind || e->kind == kind)) {
            ld_elem_ctx c = context(s, e, t, q, v, NULL, NULL, &w);
            double V = 0.0;
            int rc = call(&c, LD_EOP_ENERGY, &V);
            if (rc) return rc;
            part += V;
        }
        if (i + 1 == E->n || E->e[i + 1].kind != e->kind) {
            total += part;
            part = 0.0;
        }
    }
    *en = total;
    return LD_OK;
}

int ld_elems_energy(const ld_system *s, double t, const double *q, const double *v, double *en) {
    return ld_elems_energy_of(s, NULL, t, q, v, en);
}

/* out (m) receives the kept rows of the instance's local rows rl. */
static void put_rows(const ld_elem *e, const double *rl, double *out) {
    for (int kr = 0; kr < e->nkeep; ++kr)
        out[e->row0 + kr] = rl[e->drop ? ld_elem_kept_row(e, kr) : kr];
}

/* out (m) = the instances' rows of operation op (v: velocities for z). */
static int rows_of(const ld_system *s, int op, double t, const double *q, const double *v,
                   double *out) {
    const ld_elems *E = EL(s);
    scratch w = scratch_of(E);
    memset(out, 0, (size_t)s->m * sizeof(double));
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        if (!ld_ekind_hook(e->kind, op) || e->nkeep == 0) continue;
        ld_elem_ctx c = context(s, e, t, q, v, NULL, NULL, &w);
        if (!e->drop) {
            int rc = call(&c, op, out + e->row0);
            if (rc) return rc;
            continue;
        }
        memset(w.lam, 0, (size_t)e->nrows * sizeof(double)); /* the full rows, then the kept */
        int rc = call(&c, op, w.lam);
        if (rc) return rc;
        put_rows(e, w.lam, out);
    }
    return LD_OK;
}

int ld_elems_phi(const ld_system *s, double t, const double *q, double *Phi) {
    return rows_of(s, LD_EOP_PHI, t, q, NULL, Phi);
}

int ld_elems_phi_t(const ld_system *s, double t, const double *q, double *Phit) {
    return rows_of(s, LD_EOP_PHI_T, t, q, NULL, Phit);
}

int ld_elems_phi_dd(const ld_system *s, double t, const double *q, const double *v, double *z) {
    return rows_of(s, LD_EOP_PHI_DD, t, q, v, z);
}

/* The instance's kept rows of its reduced local B (cnl columns) into the dense B (m×k). */
static void put_b(const ld_system *s, const ld_elem *e, const double *Bl, double *B) {
    size_t k = (size_t)s->k, cnl = (size_t)e->cnl;
    for (int kr = 0; kr < e->nkeep; ++kr) {
        size_t r = (size_t)(e->drop ? ld_elem_kept_row(e, kr) : kr);
        for (int a = 0; a < e->nn; ++a) {
            double *dst = B + ((size_t)e->row0 + (size_t)kr) * k + s->nodes[e->node[a]].voff;
            copy_nv(dst, Bl + r * cnl + (size_t)e->coff[a], node_nv(s, e->node[a]));
        }
    }
}

/* B (m×k): every instance's rows on its nodes' columns. */
int ld_elems_phi_q(const ld_system *s, double t, const double *q, double *B) {
    const ld_elems *E = EL(s);
    scratch w = scratch_of(E);
    size_t k = (size_t)s->k;
    memset(B, 0, (size_t)s->m * k * sizeof(double));
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        if (!e->kind->phi_q || e->nkeep == 0) continue;
        ld_elem_ctx c = context(s, e, t, q, NULL, NULL, NULL, &w);
        size_t nl = (size_t)e->nl;
        memset(w.blk, 0, (size_t)e->nrows * nl * sizeof(double));
        int rc = call(&c, LD_EOP_PHI_Q, w.blk);
        if (rc) return rc;
        put_b(s, e, reduce(s, e, w.blk, e->nrows, 0, w.red), B);
    }
    return LD_OK;
}

/* The instance's kept rows of its reduced local B into the values of B's pattern from entry p
 * on (each row over its nodes in column order); returns the entry after them. */
static size_t put_bv(const ld_system *s, const ld_elem *e, const double *Bl, double *vals,
                     size_t p) {
    int ord[LD_ELEM_MAX_NODES];
    column_order(s, e, ord);
    size_t cnl = (size_t)e->cnl;
    for (int kr = 0; kr < e->nkeep; ++kr) {
        size_t r = (size_t)(e->drop ? ld_elem_kept_row(e, kr) : kr);
        for (int a = 0; a < e->nn; ++a) {
            size_t nv = (size_t)node_nv(s, e->node[ord[a]]);
            memcpy(vals + p, Bl + r * cnl + (size_t)e->coff[ord[a]], nv * sizeof(double));
            p += nv;
        }
    }
    return p;
}

int ld_elems_phi_q_sparse(const ld_system *s, double t, const double *q, double *vals) {
    const ld_elems *E = EL(s);
    scratch w = scratch_of(E);
    size_t p = 0;
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        if (e->nkeep == 0) continue;
        size_t nl = (size_t)e->nl;
        memset(w.blk, 0, (size_t)e->nrows * nl * sizeof(double));
        if (e->kind->phi_q) {
            ld_elem_ctx c = context(s, e, t, q, NULL, NULL, NULL, &w);
            int rc = call(&c, LD_EOP_PHI_Q, w.blk);
            if (rc) return rc;
        }
        p = put_bv(s, e, reduce(s, e, w.blk, e->nrows, 0, w.red), vals, p);
    }
    return LD_OK;
}

/* ---------------------------------------------------------------- tangent blocks */

/* L += sc · A over the instance's n entries. */
static void axpy(double *L, const double *A, double sc, size_t n) {
    for (size_t j = 0; j < n; ++j) L[j] += sc * A[j];
}

/* L[·, c0 … c0 + 5] += sc · K[·, c0 …] diag(T_rot, I) for such a node (nl rows, T its 6×6 block):
 * the products with T's zeros and ones left out. */
static void add_kt_direct(const double *K, const double *T, double sc, size_t nl, size_t c0,
                          double *L) {
    for (size_t r = 0; r < nl; ++r) {
        const double *Kr = K + r * nl + c0;
        double *Lr = L + r * nl + c0;
        for (size_t c = 0; c < 3; ++c)
            Lr[c] += sc * (Kr[0] * T[c] + Kr[1] * T[6 + c] + Kr[2] * T[12 + c]);
        for (size_t c = 3; c < 6; ++c) Lr[c] += sc * Kr[c];
    }
}

/* L += sc · K T with T block diagonal by the instance's nodes (their blocks in Tb; K and L in
 * the nodes' own coordinates, cnl square). */
static void add_kt(const ld_system *s, const ld_elems *E, const ld_elem *e, const double *K,
                   const double *Tb, double sc, double *L) {
    size_t nl = (size_t)e->cnl;
    for (int b = 0; b < e->nn; ++b) {
        const double *T = Tb + E->mboff[e->node[b]];
        size_t nv = (size_t)node_nv(s, e->node[b]), c0 = (size_t)e->coff[b];
        if (nv == 6 && ld_node_direct_product(&s->nodes[e->node[b]])) {
            add_kt_direct(K, T, sc, nl, c0, L);
            continue;
        }
        for (size_t r = 0; r < nl; ++r)
            for (size_t c = 0; c < nv; ++c) {
                double acc = 0.0;
                for (size_t l = 0; l < nv; ++l) acc += K[r * nl + c0 + l] * T[l * nv + c];
                L[r * nl + c0 + c] += sc * acc;
            }
    }
}

/* vals += the instance's local matrix L (cnl square) in its node blocks. */
static void put_blocks(const ld_system *s, const ld_elems *E, const ld_elem *e, const double *L,
                       double *vals) {
    size_t nl = (size_t)e->cnl;
    for (int x = 0; x < e->nn; ++x)
        for (int y = 0; y < e->nn; ++y) {
            int b = E->bix[e->bix + x * e->nn + y];
            size_t nx = (size_t)node_nv(s, e->node[x]), ny = (size_t)node_nv(s, e->node[y]);
            double *dst = vals + s->blk_off[b];
            for (size_t r = 0; r < nx; ++r)
                for (size_t cl = 0; cl < ny; ++cl)
                    dst[r * ny + cl] += L[((size_t)e->coff[x] + r) * nl + (size_t)e->coff[y] + cl];
        }
}

int ld_elems_tangent_blocks(const ld_system *s, double t, const double *q, const double *v,
                            const double *a, const double *lambda, double cm, double cc, double ck,
                            const double *Tb, double *vals) {
    const ld_elems *E = EL(s);
    scratch w = scratch_of(E);
    memset(vals, 0, s->blk_off[s->nblk] * sizeof(double));
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        const ld_ekind *k = e->kind;
        if (!has_matrix(k)) continue;
        size_t nl = (size_t)e->cnl, nl2 = (size_t)e->nl * (size_t)e->nl;
        ld_elem_ctx c = context(s, e, t, q, v, a, lambda, &w);
        memset(w.blk2, 0, nl * nl * sizeof(double));
        hook_fn parts[3] = {k->mass, k->g_v, k->stiffness};
        const int ops[3] = {LD_EOP_MASS, LD_EOP_G_V, LD_EOP_STIFFNESS};
        double sc[3] = {cm, cc, ck};
        for (int h = 0; h < 3; ++h) {
            if (!parts[h] || sc[h] == 0.0) continue;
            memset(w.blk, 0, nl2 * sizeof(double));
            int rc = call(&c, ops[h], w.blk);
            if (rc) return rc;
            const double *Al = reduce(s, e, w.blk, e->nl, 1, w.red);
            if (h < 2)
                axpy(w.blk2, Al, sc[h], nl * nl);
            else
                add_kt(s, E, e, Al, Tb, sc[h], w.blk2);
        }
        put_blocks(s, E, e, w.blk2, vals);
    }
    return LD_OK;
}

/* ---------------------------------------------------------------- the fused pass */

/* What the fused pass wants of instance e (x's outputs): its local outputs in w->n, NULL where
 * not wanted or the kind has no hook. */
static ld_elem_nout wanted(const ld_newton_eval *x, const ld_elem *e, const scratch *w) {
    const ld_ekind *k = e->kind;
    ld_elem_nout o = {NULL, NULL, NULL, NULL, NULL, NULL};
    if (k->mass && (x->M || x->Mb || (x->tv && x->cm != 0.0))) o.M = w->n.M;
    if (k->force && x->g) o.g = w->n.g;
    if (k->g_v && (x->C || (x->tv && x->cc != 0.0))) o.C = w->n.C;
    if (k->stiffness && (x->K || (x->tv && x->ck != 0.0))) o.K = w->n.K;
    if (k->phi && x->Phi && e->nkeep > 0) o.phi = w->n.phi;
    if (k->phi_q && (x->B || x->Bv) && e->nkeep > 0) o.B = w->n.B;
    return o;
}

/* Instance c's wanted outputs (zeroed here): the kind's fused hook in the body-frame
 * formulations, otherwise each separate hook with the context its own operation gives it. */
static int instance_newton(const ld_elem_ctx *c, const ld_elem_nout *o) {
    const ld_elem *e = c->e;
    size_t nl = (size_t)e->nl, nr = (size_t)e->nrows;
    if (o->M) memset(o->M, 0, nl * nl * sizeof(double));
    if (o->C) memset(o->C, 0, nl * nl * sizeof(double));
    if (o->K) memset(o->K, 0, nl * nl * sizeof(double));
    if (o->g) memset(o->g, 0, nl * sizeof(double));
    if (o->phi) memset(o->phi, 0, nr * sizeof(double));
    if (o->B) memset(o->B, 0, nr * nl * sizeof(double));
    if (e->kind->newton && !ld_rb(c->s)->left) return e->kind->newton(c, o);
    ld_elem_ctx cq = *c, cv = *c, cm;
    cq.v = cq.a = cq.lam = cq.vg = NULL; /* Φ, B: the configuration only */
    cv.a = cv.lam = NULL;                /* g, ∂g/∂v */
    cm = cq;
    cm.t = 0.0; /* M as ld_elems_mass evaluates it */
    int rc = o->M ? call(&cm, LD_EOP_MASS, o->M) : LD_OK;
    if (!rc && o->g) rc = call(&cv, LD_EOP_FORCE, o->g);
    if (!rc && o->C) rc = call(&cv, LD_EOP_G_V, o->C);
    if (!rc && o->K) rc = call(c, LD_EOP_STIFFNESS, o->K);
    if (!rc && o->phi) rc = call(&cq, LD_EOP_PHI, o->phi);
    if (!rc && o->B) rc = call(&cq, LD_EOP_PHI_Q, o->B);
    return rc;
}

/* The matrices of instance e (o: its local outputs) into x's dense M, C, K, mass blocks and
 * tangent blocks; each reduced block is used before the next reduction overwrites it. */
static void put_matrices(const ld_system *s, const ld_elem *e, const ld_elem_nout *o,
                         const ld_newton_eval *x, scratch *w) {
    const ld_elems *E = EL(s);
    size_t cnl = (size_t)e->cnl;
    int tv = x->tv && has_matrix(e->kind);
    if (tv) memset(w->blk2, 0, cnl * cnl * sizeof(double));
    if (o->M) {
        const double *Ml = reduce(s, e, o->M, e->nl, 1, w->red);
        if (x->M) scatter_mat(s, e, Ml, x->M);
        if (x->Mb)
            for (size_t j = 0, b = E->mboff[e->node[0]]; j < cnl * cnl; ++j) x->Mb[b + j] += Ml[j];
        if (tv && x->cm != 0.0) axpy(w->blk2, Ml, x->cm, cnl * cnl);
    }
    if (o->C) {
        const double *Cl = reduce(s, e, o->C, e->nl, 1, w->red);
        if (x->C) scatter_mat(s, e, Cl, x->C);
        if (tv && x->cc != 0.0) axpy(w->blk2, Cl, x->cc, cnl * cnl);
    }
    if (o->K) {
        const double *Kl = reduce(s, e, o->K, e->nl, 1, w->red);
        if (x->K) scatter_mat(s, e, Kl, x->K);
        if (tv && x->ck != 0.0) add_kt(s, E, e, Kl, x->Tb, x->ck, w->blk2);
    }
    if (tv) put_blocks(s, E, e, w->blk2, x->tv);
}

/* Zero x's outputs; LD_ENOTSUPPORTED when it wants blocks that s has no layout for. */
static int zero_outputs(const ld_system *s, const ld_newton_eval *x) {
    size_t k = (size_t)s->k, m = (size_t)s->m;
    if ((x->Mb || x->tv) && !EL(s)->mboff) return LD_ENOTSUPPORTED;
    if (x->M) memset(x->M, 0, k * k * sizeof(double));
    if (x->C) memset(x->C, 0, k * k * sizeof(double));
    if (x->K) memset(x->K, 0, k * k * sizeof(double));
    if (x->g) memset(x->g, 0, k * sizeof(double));
    if (x->Phi) memset(x->Phi, 0, m * sizeof(double));
    if (x->B) memset(x->B, 0, m * k * sizeof(double));
    if (x->Mb) memset(x->Mb, 0, ld_sys_mass_block_entries(s) * sizeof(double));
    if (x->tv) memset(x->tv, 0, s->blk_off[s->nblk] * sizeof(double));
    return LD_OK;
}

int ld_elems_eval_newton(const ld_system *s, const ld_newton_eval *x) {
    const ld_elems *E = EL(s);
    scratch w = scratch_of(E);
    int rc = zero_outputs(s, x);
    size_t p = 0; /* the next entry of B's pattern (x->Bv) */
    for (int i = 0; !rc && i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        ld_elem_nout o = wanted(x, e, &w);
        int bv = x->Bv && e->nkeep > 0; /* its entries are written even without a hook */
        if (!o.M && !o.g && !o.C && !o.K && !o.phi && !o.B && !bv) continue;
        if (o.M && x->Mb && e->nn != 1) return LD_ENOTSUPPORTED;
        ld_elem_ctx c = context(s, e, x->t, x->q, x->v, x->a, x->lambda, &w);
        rc = instance_newton(&c, &o);
        if (rc) break;
        put_matrices(s, e, &o, x, &w);
        if (o.g) scatter_vec(s, e, reduce(s, e, o.g, 1, 0, w.red), x->g);
        if (o.phi) put_rows(e, o.phi, x->Phi);
        if (!o.B && bv) memset(w.n.B, 0, (size_t)e->nrows * (size_t)e->nl * sizeof(double));
        if (!o.B && !bv) continue;
        const double *Bl = reduce(s, e, w.n.B, e->nrows, 0, w.red);
        if (o.B && x->B) put_b(s, e, Bl, x->B);
        if (bv) p = put_bv(s, e, Bl, x->Bv, p);
    }
    return rc;
}

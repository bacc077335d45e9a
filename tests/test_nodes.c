/*
 * The table of node kinds (src/sys/nodes.c), entry by entry: an entry for every kind, sizes as
 * ld_sys_layout lays them out, q ∘ exp(0) = q, exp/log round trips, T(ξ) against differences
 * of the retraction on the group, T⁻¹ T = I, the bracket against the group commutator, the
 * normalization, the Euler-parameter operations of HHT, and the system functions node by node.
 * Every test loops over every entry, so a new kind is checked by adding its line.
 */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../src/sys/nodes.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"

#define NS     200 /* samples per kind */
#define RN_DIM 5   /* n of the Rⁿ nodes */
#define MAXQ   (LD_NODE_GROUP_MAX_NQ > RN_DIM ? LD_NODE_GROUP_MAX_NQ : RN_DIM)
#define MAXV   (LD_NODE_GROUP_MAX_NV > 7 ? LD_NODE_GROUP_MAX_NV : 7)

/* A node of kind k (Rⁿ: n = RN_DIM) and its descriptor. */
static ld_node node_of(int k, const ld_node_kind_info **d) {
    ld_node nd = {(ld_node_kind)k, k == LD_NODE_RN ? RN_DIM : 0, 0, 0};
    *d = ld_node_kind_get(nd.kind);
    assert_non_null(*d);
    return nd;
}

static int nq_of(const ld_node *nd) {
    int nq = 0, nv = 0;
    assert_int_equal(ld_node_sizes(nd, &nq, &nv), LD_OK);
    return nq;
}

/* ------------------------------------------------------------------ the group of a node */
/* exp, log, compose, inverse of a node: the table's hooks, or the vector space's for flat
 * kinds (exp and log the identity, composition the sum). */

static void g_exp(const ld_node_kind_info *d, const ld_node *nd, double *g, const double *xi) {
    if (!d->flat)
        d->exp(g, xi);
    else
        for (int j = 0; j < ld_node_nv(nd); ++j) g[j] = xi[j];
}

static void g_log(const ld_node_kind_info *d, const ld_node *nd, double *xi, const double *g) {
    if (!d->flat)
        d->log(xi, g);
    else
        for (int j = 0; j < ld_node_nv(nd); ++j) xi[j] = g[j];
}

static void g_compose(const ld_node_kind_info *d, const ld_node *nd, double *g, const double *a,
                      const double *b) {
    if (!d->flat)
        d->compose(g, a, b);
    else
        for (int j = 0; j < ld_node_nv(nd); ++j) g[j] = a[j] + b[j];
}

static void g_inverse(const ld_node_kind_info *d, const ld_node *nd, double *g, const double *a) {
    if (!d->flat)
        d->inverse(g, a);
    else
        for (int j = 0; j < ld_node_nv(nd); ++j) g[j] = -a[j];
}

/* ξ with b = a ∘ exp(ξ): log(a⁻¹ ∘ b). */
static void g_local(const ld_node_kind_info *d, const ld_node *nd, double *xi, const double *a,
                    const double *b) {
    double ai[MAXQ], p[MAXQ];
    g_inverse(d, nd, ai, a);
    g_compose(d, nd, p, ai, b);
    g_log(d, nd, xi, p);
}

/* A tangent vector: on a group the rotation (first three) of angle in (0, amax) and a
 * translation in [-2, 2]³; on a vector space every entry in [-2, 2]. Returns its norm. */
static double rand_tangent(rng *r, const ld_node_kind_info *d, const ld_node *nd, double *xi,
                           double amax) {
    int nv = ld_node_nv(nd), j0 = 0;
    if (!d->flat) {
        double a = rng_range(r, 0.0, amax);
        rng_unit3(r, xi);
        for (int j = 0; j < 3; ++j) xi[j] *= a;
        j0 = 3;
    }
    for (int j = j0; j < nv; ++j) xi[j] = rng_range(r, -2.0, 2.0);
    double s = 0.0;
    for (int j = 0; j < nv; ++j) s += xi[j] * xi[j];
    return sqrt(s);
}

/* An element: exp of a random tangent vector, normalized (the Euler parameters to |e| = 1). */
static void rand_element(rng *r, const ld_node_kind_info *d, const ld_node *nd, double *g) {
    double xi[MAXV];
    rand_tangent(r, d, nd, xi, 3.0);
    g_exp(d, nd, g, xi);
    ld_node_normalize(nd, g);
}

/* How far g is from the group: the rotation's orthogonality and determinant (SO(3) and the
 * 12-stored groups), the norm of the quaternion or of the Euler parameters; 0 for the other
 * vector spaces. */
static double off_group(const ld_node_kind_info *d, const double *g) {
    if (d->ep) return fabs(ld_quat_norm(g + d->ep->off) - 1.0);
    if (d->flat) return 0.0;
    if (d->nq == 12 || d->nq == 9) return fmax(orth_error(g), fabs(det3(g) - 1.0));
    return fabs(ld_quat_norm(g) - 1.0);
}

/* ------------------------------------------------------------------ the table */

/* Every value of the enum has its line, with its own kind, a name and consistent hooks;
 * nothing past the last kind. */
static void test_table_covers_every_kind(void **state) {
    (void)state;
    assert_int_equal(ld_node_kind_count(), LD_NODE_KIND_COUNT);
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        const ld_node_kind_info *d = ld_node_kind_get((ld_node_kind)k);
        if (!d) fail_msg("node kind %d has no line in the table of nodes.c", k);
        assert_int_equal(d->kind, k);
        assert_true(d->name && d->name[0] && d->group && d->group[0]);
        for (int j = 0; j < k; ++j)
            assert_string_not_equal(d->name, ld_node_kind_get((ld_node_kind)j)->name);
        assert_true(d->nq >= 0 && d->nv >= 0 && (d->nv == 0) == (d->nq == 0));
        int hooks = !!d->exp + !!d->log + !!d->compose + !!d->inverse + !!d->tangent +
                    !!d->tangent_inv + !!d->bracket;
        if (d->flat) {
            if (hooks) fail_msg("%s: a vector space with group hooks", d->name);
            assert_true(d->nq == d->nv);
        } else {
            if (hooks != 7) fail_msg("%s: a group without all its hooks", d->name);
            assert_true(d->nv > 0 && d->nq <= LD_NODE_GROUP_MAX_NQ &&
                        d->nv <= LD_NODE_GROUP_MAX_NV);
        }
        if (d->ep) {
            const ld_node_ep *e = d->ep;
            assert_true(e->L && e->Lmul && e->Ltmul && e->what && e->modified_velocity &&
                        e->modified_jacobian);
            assert_true(e->off >= 0 && e->off + 4 <= d->nq && e->off + 4 <= d->nv);
        }
    }
    assert_null(ld_node_kind_get(LD_NODE_KIND_COUNT));
    assert_null(ld_node_kind_get((ld_node_kind)(LD_NODE_KIND_COUNT + 5)));
}

/* ld_node_sizes and the table agree with the offsets of ld_sys_layout, alone and in a row of
 * every kind; invalid nodes are refused by both. */
static void test_sizes_match_layout(void **state) {
    (void)state;
    ld_node row[LD_NODE_KIND_COUNT];
    int sq = 0, sv = 0;
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        const ld_node_kind_info *d;
        ld_node nd = node_of(k, &d);
        int nq = -1, nv = -1;
        assert_int_equal(ld_node_sizes(&nd, &nq, &nv), LD_OK);
        assert_int_equal(nq, d->nq ? d->nq : RN_DIM);
        assert_int_equal(nv, d->nv ? d->nv : RN_DIM);
        assert_int_equal(ld_node_nv(&nd), nv);
        ld_system s;
        memset(&s, 0, sizeof s);
        s.nnodes = 1;
        s.nodes = &nd;
        assert_int_equal(ld_sys_layout(&s), LD_OK);
        assert_int_equal(s.nq, nq);
        assert_int_equal(s.k, nv);
        assert_int_equal(ld_sys_mass_block_entries(&s), (size_t)(nv * nv));
        row[k] = nd;
        row[k].qoff = sq, row[k].voff = sv; /* expected */
        sq += nq, sv += nv;
    }
    ld_node laid[LD_NODE_KIND_COUNT];
    memcpy(laid, row, sizeof row);
    ld_system s;
    memset(&s, 0, sizeof s);
    s.nnodes = LD_NODE_KIND_COUNT;
    s.nodes = laid;
    assert_int_equal(ld_sys_layout(&s), LD_OK);
    assert_int_equal(s.nq, sq);
    assert_int_equal(s.k, sv);
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        assert_int_equal(laid[k].qoff, row[k].qoff);
        assert_int_equal(laid[k].voff, row[k].voff);
    }
    int nq = -7, nv = -7;
    ld_node bad[2] = {{LD_NODE_RN, 0, 0, 0}, {LD_NODE_KIND_COUNT, 3, 0, 0}};
    for (int i = 0; i < 2; ++i) {
        assert_int_equal(ld_node_sizes(&bad[i], &nq, &nv), LD_EINVAL);
        assert_int_equal(ld_node_nv(&bad[i]), 0);
        s.nnodes = 1;
        s.nodes = &bad[i];
        assert_int_equal(ld_sys_layout(&s), LD_EINVAL);
    }
    assert_true(nq == -7 && nv == -7);
    assert_int_equal(ld_node_sizes(NULL, &nq, &nv), LD_EINVAL);
}

/* ------------------------------------------------------------------ the maps */

/* q ∘ exp(0) = q exactly; on a group q ∘ exp(ξ) is compose(q, exp(ξ)) bit for bit. */
static void test_retract(void **state) {
    (void)state;
    rng r = rng_seed(101);
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        const ld_node_kind_info *d;
        ld_node nd = node_of(k, &d);
        int nq = nq_of(&nd);
        for (int i = 0; i < NS; ++i) {
            double q[MAXQ], qn[MAXQ], e[MAXQ], c[MAXQ], xi[MAXV] = {0};
            rand_element(&r, d, &nd, q);
            ld_node_retract(&nd, qn, q, xi);
            if (maxabs_diff(qn, q, nq) != 0.0) fail_msg("%s: q exp(0) != q", d->name);
            rand_tangent(&r, d, &nd, xi, 3.0);
            ld_node_retract(&nd, qn, q, xi);
            g_exp(d, &nd, e, xi);
            g_compose(d, &nd, c, q, e);
            if (memcmp(qn, c, (size_t)nq * sizeof(double)) != 0)
                fail_msg("%s: retraction is not q exp(xi)", d->name);
        }
    }
}

/* log(exp ξ) = ξ for rotation angles below π, exp(log g) = g. */
static void test_exp_log(void **state) {
    (void)state;
    rng r = rng_seed(102);
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        const ld_node_kind_info *d;
        ld_node nd = node_of(k, &d);
        int nq = nq_of(&nd), nv = ld_node_nv(&nd);
        worst lg = WORST_INIT, ex = WORST_INIT;
        for (int i = 0; i < NS; ++i) {
            double g[MAXQ], g2[MAXQ], xi[MAXV], back[MAXV];
            double a = rand_tangent(&r, d, &nd, xi, 3.0);
            g_exp(d, &nd, g, xi);
            g_log(d, &nd, back, g);
            worst_add(&lg, maxabs_diff(back, xi, nv), 64 * EPS * (1.0 + a), a);
            rand_element(&r, d, &nd, g);
            g_log(d, &nd, back, g);
            g_exp(d, &nd, g2, back);
            worst_add(&ex, maxabs_diff(g2, g, nq), 64 * EPS * (1.0 + maxabs(g, nq)), i);
        }
        worst_check(&lg, d->name, "log(exp xi) = xi");
        worst_check(&ex, d->name, "exp(log g) = g");
    }
}

/* Column j of T(ξ) by Richardson-extrapolated central differences of the retraction:
 * d/dε log(retract(q, ξ)⁻¹ ∘ retract(q, ξ + ε e_j)) at ε = 0. */
static void fd_tangent_col(const ld_node_kind_info *d, const ld_node *nd, const double *q,
                           const double *xi, int j, double *col) {
    const double h = 1e-3, steps[4] = {h, -h, 0.5 * h, -0.5 * h};
    double base[MAXQ], x[MAXV], qs[MAXQ], loc[4][MAXV];
    int nv = ld_node_nv(nd);
    ld_node_retract(nd, base, q, xi);
    for (int s = 0; s < 4; ++s) {
        memcpy(x, xi, (size_t)nv * sizeof(double));
        x[j] += steps[s];
        ld_node_retract(nd, qs, q, x);
        g_local(d, nd, loc[s], base, qs);
    }
    for (int i = 0; i < nv; ++i) {
        double d1 = (loc[0][i] - loc[1][i]) / (2.0 * h), d2 = (loc[2][i] - loc[3][i]) / h;
        col[i] = (4.0 * d2 - d1) / 3.0;
    }
}

static void test_tangent_fd(void **state) {
    (void)state;
    rng r = rng_seed(103);
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        const ld_node_kind_info *d;
        ld_node nd = node_of(k, &d);
        int nv = ld_node_nv(&nd);
        worst w = WORST_INIT;
        for (int i = 0; i < NS; ++i) {
            double q[MAXQ], xi[MAXV], T[MAXV * MAXV], col[MAXV];
            rand_element(&r, d, &nd, q);
            double a = rand_tangent(&r, d, &nd, xi, 3.0);
            ld_node_tangent(&nd, T, (size_t)nv, xi);
            for (int j = 0; j < nv; ++j) {
                fd_tangent_col(d, &nd, q, xi, j, col);
                for (int l = 0; l < nv; ++l)
                    worst_add(&w, fabs(T[nv * l + j] - col[l]), 1e4 * EPS * (1.0 + a), a);
            }
        }
        worst_check(&w, d->name, "T(xi) against differences of the retraction");
    }
}

/* T⁻¹(ξ) T(ξ) = I, both written into a larger matrix at a row stride. */
static void test_tangent_inverse(void **state) {
    (void)state;
    rng r = rng_seed(104);
    enum { LD = MAXV + 3 };
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        const ld_node_kind_info *d;
        ld_node nd = node_of(k, &d);
        int nv = ld_node_nv(&nd);
        worst w = WORST_INIT;
        for (int i = 0; i < NS; ++i) {
            double xi[MAXV], T[MAXV * LD], Ti[MAXV * LD];
            double a = rand_tangent(&r, d, &nd, xi, 3.0);
            ld_node_tangent(&nd, T, LD, xi);
            ld_node_tangent_inv(&nd, Ti, LD, xi);
            for (int row = 0; row < nv; ++row)
                for (int c = 0; c < nv; ++c) {
                    double s = 0.0;
                    for (int l = 0; l < nv; ++l) s += Ti[LD * row + l] * T[LD * l + c];
                    worst_add(&w, fabs(s - (row == c)), 256 * EPS * (1.0 + a) * (1.0 + a), a);
                }
        }
        worst_check(&w, d->name, "T^-1 T = I");
    }
}

/* ld_node_tangent_rotation: where it answers 1, T(ξ) is exactly diag(T_rot, I₃) with its T_rot
 * bit for bit (the small path's fill uses T_rot alone); where it answers 0, it leaves T alone,
 * and a six-velocity kind has a T(ξ) of another form (so the fill needs the whole block). */
static void test_tangent_rotation(void **state) {
    (void)state;
    rng r = rng_seed(106);
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        const ld_node_kind_info *d;
        ld_node nd = node_of(k, &d);
        int nv = ld_node_nv(&nd), direct = -1, other_form = 0;
        for (int i = 0; i < NS; ++i) {
            double xi[MAXV], T[MAXV * MAXV], R[9];
            for (int j = 0; j < 9; ++j) R[j] = 7.0;
            rand_tangent(&r, d, &nd, xi, 3.0);
            ld_node_tangent(&nd, T, (size_t)nv, xi);
            int got = ld_node_tangent_rotation(&nd, R, xi);
            if (direct < 0) direct = got;
            assert_int_equal(got, direct); /* a property of the kind, not of ξ */
            int diag = nv == 6;
            for (int a = 0; diag && a < 6; ++a)
                for (int b = 0; b < 6; ++b)
                    if ((a >= 3 || b >= 3) && T[6 * a + b] != (a == b ? 1.0 : 0.0)) diag = 0;
            other_form |= !diag;
            if (!got) {
                for (int j = 0; j < 9; ++j) assert_true(R[j] == 7.0);
                continue;
            }
            if (!diag) fail_msg("%s: T(xi) is not diag(T_rot, I)", d->name);
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b)
                    if (R[3 * a + b] != T[6 * a + b])
                        fail_msg("%s: T_rot(%d, %d) = %.17g, T(xi) has %.17g", d->name, a, b,
                                 R[3 * a + b], T[6 * a + b]);
        }
        if (!direct && nv == 6 && !d->flat && !other_form)
            fail_msg("%s: T(xi) = diag(T_rot, I) throughout, but no T_rot is given", d->name);
    }
}

/* [x, y] = −[y, x] exactly, and the group commutator exp(εx) exp(εy) exp(−εx) exp(−εy) =
 * exp(ε² [x, y] + O(ε³)) (Richardson in ε): the bracket of the right-trivialized velocities. */
static void commutator(const ld_node_kind_info *d, const ld_node *nd, const double *x,
                       const double *y, double eps, double *out) {
    double v[4][MAXV], g[4][MAXQ], p[MAXQ], p2[MAXQ];
    int nv = ld_node_nv(nd);
    for (int j = 0; j < nv; ++j) {
        v[0][j] = eps * x[j], v[1][j] = eps * y[j];
        v[2][j] = -eps * x[j], v[3][j] = -eps * y[j];
    }
    for (int i = 0; i < 4; ++i) g_exp(d, nd, g[i], v[i]);
    g_compose(d, nd, p, g[0], g[1]);
    g_compose(d, nd, p2, p, g[2]);
    g_compose(d, nd, p, p2, g[3]);
    g_log(d, nd, out, p);
    for (int j = 0; j < nv; ++j) out[j] /= eps * eps;
}

static void test_bracket(void **state) {
    (void)state;
    rng r = rng_seed(105);
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        const ld_node_kind_info *d;
        ld_node nd = node_of(k, &d);
        int nv = ld_node_nv(&nd);
        worst w = WORST_INIT;
        for (int i = 0; i < NS; ++i) {
            double x[MAXV], y[MAXV], xy[MAXV], yx[MAXV], c1[MAXV], c2[MAXV];
            rand_tangent(&r, d, &nd, x, 1.0);
            rand_tangent(&r, d, &nd, y, 1.0);
            ld_node_bracket(&nd, xy, x, y);
            ld_node_bracket(&nd, yx, y, x);
            for (int j = 0; j < nv; ++j)
                if (xy[j] != -yx[j]) fail_msg("%s: [x, y] != -[y, x]", d->name);
            commutator(d, &nd, x, y, 1e-3, c1);
            commutator(d, &nd, x, y, 0.5e-3, c2);
            for (int j = 0; j < nv; ++j)
                worst_add(&w, fabs(xy[j] - (2.0 * c2[j] - c1[j])), 1e-5, i);
        }
        worst_check(&w, d->name, "[x, y] against the group commutator");
    }
}

/* Normalizing an element of the group changes it by round-off; normalizing a perturbed one
 * lands on the group, keeps the translation, and a second time changes nothing beyond
 * round-off. */
static void test_normalize(void **state) {
    (void)state;
    rng r = rng_seed(106);
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        const ld_node_kind_info *d;
        ld_node nd = node_of(k, &d);
        int nq = nq_of(&nd);
        worst noop = WORST_INIT, on = WORST_INIT, idem = WORST_INIT;
        for (int i = 0; i < NS; ++i) {
            double g[MAXQ], n1[MAXQ], n2[MAXQ];
            rand_element(&r, d, &nd, g);
            memcpy(n1, g, sizeof g);
            ld_node_normalize(&nd, n1);
            worst_add(&noop, maxabs_diff(n1, g, nq), 4 * EPS, i);
            if (!d->normalize) {
                if (maxabs_diff(n1, g, nq) != 0.0) fail_msg("%s: normalize changed q", d->name);
                continue;
            }
            for (int j = 0; j < nq; ++j) n1[j] = g[j] * 1.25 + rng_range(&r, -1e-3, 1e-3);
            memcpy(n2, n1, sizeof n1);
            ld_node_normalize(&nd, n1);
            worst_add(&on, off_group(d, n1), 4 * EPS, i);
            int tr = d->ep ? 0 : nq - (d->nv - 3), te = d->ep ? d->ep->off : nq; /* translation */
            if (maxabs_diff(n1 + tr, n2 + tr, te - tr) != 0.0)
                fail_msg("%s: normalize moved the translation", d->name);
            memcpy(n2, n1, sizeof n1);
            ld_node_normalize(&nd, n2);
            worst_add(&idem, maxabs_diff(n2, n1, nq), 4 * EPS, i);
        }
        worst_check(&noop, d->name, "normalize is a no-op on the group");
        worst_check(&on, d->name, "normalize lands on the group");
        worst_check(&idem, d->name, "normalize is idempotent");
    }
}

/* ------------------------------------------------------------------ Euler parameters */

/* L(e): Lmul and Ltmul apply it and its transpose, ŵ e = L(e)ᵀ w, L Lᵀ = |e|² I; the
 * modified velocity returns ė when w = L(e) ė, eᵀė = 0, hg = 0; its Jacobian against
 * differences of the velocity with e moving as hb ë. */
static void check_euler_parameters(const ld_node_kind_info *d, rng *r) {
    const ld_node_ep *ep = d->ep;
    for (int i = 0; i < NS; ++i) {
        double e[4], x[4], w[3], L[12], y[3], yt[4], W[16];
        for (int j = 0; j < 4; ++j) e[j] = rng_range(r, -1.0, 1.0), x[j] = rng_range(r, -1.0, 1.0);
        for (int j = 0; j < 3; ++j) w[j] = rng_range(r, -2.0, 2.0);
        ep->L(L, e);
        ep->Lmul(y, e, x);
        ep->Ltmul(yt, e, w);
        ep->what(W, w);
        double e2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3];
        for (int a = 0; a < 3; ++a) {
            double s = 0.0;
            for (int b = 0; b < 4; ++b) s += L[4 * a + b] * x[b];
            assert_true(fabs(s - y[a]) <= 8 * EPS);
            for (int b = 0; b < 3; ++b) {
                double p = 0.0;
                for (int c = 0; c < 4; ++c) p += L[4 * a + c] * L[4 * b + c];
                assert_true(fabs(p - (a == b ? e2 : 0.0)) <= 8 * EPS);
            }
        }
        for (int b = 0; b < 4; ++b) {
            double s = 0.0, we = 0.0;
            for (int a = 0; a < 3; ++a) s += L[4 * a + b] * w[a];
            for (int c = 0; c < 4; ++c) we += W[4 * b + c] * e[c];
            assert_true(fabs(s - yt[b]) <= 8 * EPS && fabs(we - yt[b]) <= 8 * EPS);
        }
        /* ė ⟂ e, |e| = 1, w = L(e) ė: the velocity is ė */
        double u[4], ed[4], edd[4], back[4];
        assert_int_equal(ld_quat_normalize(u, e), LD_OK);
        double xe = x[0] * u[0] + x[1] * u[1] + x[2] * u[2] + x[3] * u[3];
        for (int j = 0; j < 4; ++j) ed[j] = x[j] - xe * u[j], edd[j] = rng_range(r, -3.0, 3.0);
        ep->Lmul(y, u, ed);
        ep->modified_velocity(back, u, edd, y, 0.0);
        for (int j = 0; j < 4; ++j) assert_true(fabs(back[j] - ed[j]) <= 16 * EPS);
        /* D + hg I = ∂ė/∂ë with e = u + hb ë */
        double hb = 0.3, hg = 0.7, D[16], hf = 1e-5;
        double ep0[4], plus[4], minus[4], ev[4], ee[4];
        for (int j = 0; j < 4; ++j) ep0[j] = u[j] + hb * edd[j];
        ep->modified_jacobian(D, ep0, edd, w, hb, hg);
        for (int c = 0; c < 4; ++c) {
            for (int sg = -1; sg <= 1; sg += 2) {
                memcpy(ee, edd, sizeof ee);
                ee[c] += sg * hf;
                for (int j = 0; j < 4; ++j) ev[j] = u[j] + hb * ee[j];
                ep->modified_velocity(sg < 0 ? minus : plus, ev, ee, w, hg);
            }
            for (int a = 0; a < 4; ++a) {
                double fd = (plus[a] - minus[a]) / (2.0 * hf);
                if (!(fabs(D[4 * a + c] + (a == c ? hg : 0.0) - fd) <= 1e-8))
                    fail_msg("%s: modified Jacobian (%d, %d) %.17g vs differences %.17g", d->name,
                             a, c, D[4 * a + c] + (a == c ? hg : 0.0), fd);
            }
        }
    }
}

static void test_euler_parameter_ops(void **state) {
    (void)state;
    rng r = rng_seed(107);
    int found = 0;
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) {
        const ld_node_kind_info *d;
        (void)node_of(k, &d);
        if (!d->ep) continue;
        ++found;
        check_euler_parameters(d, &r);
    }
    assert_int_equal(found, 1); /* R3E4 */
    assert_non_null(ld_node_kind_get(LD_NODE_R3E4)->ep);
}

/* ------------------------------------------------------------------ the system */

/* ld_sys_retract, _tangent, _bracket, _normalize on a row of every kind are the node
 * operations, block by block, bit for bit. */
static void test_system_node_by_node(void **state) {
    (void)state;
    rng r = rng_seed(108);
    ld_node nodes[LD_NODE_KIND_COUNT];
    const ld_node_kind_info *d[LD_NODE_KIND_COUNT];
    for (int k = 0; k < LD_NODE_KIND_COUNT; ++k) nodes[k] = node_of(k, &d[k]);
    ld_system s;
    memset(&s, 0, sizeof s);
    s.nnodes = LD_NODE_KIND_COUNT;
    s.nodes = nodes;
    assert_int_equal(ld_sys_layout(&s), LD_OK);
    size_t nq = (size_t)s.nq, k = (size_t)s.k;
    double *buf = calloc(3 * nq + 4 * k + 2 * k * k, sizeof(double));
    assert_non_null(buf);
    double *q = buf, *qn = q + nq, *qb = qn + nq, *x = qb + nq, *y = x + k, *rs = y + k;
    double *rb = rs + k, *T = rb + k, *Tb = T + k * k;
    for (int i = 0; i < s.nnodes; ++i) {
        rand_element(&r, d[i], &nodes[i], q + nodes[i].qoff);
        rand_tangent(&r, d[i], &nodes[i], x + nodes[i].voff, 3.0);
        rand_tangent(&r, d[i], &nodes[i], y + nodes[i].voff, 3.0);
    }
    ld_sys_retract(&s, qn, q, x);
    ld_sys_tangent(&s, T, x);
    ld_sys_bracket(&s, rs, x, y);
    for (int i = 0; i < s.nnodes; ++i) {
        const ld_node *nd = &nodes[i];
        size_t o = (size_t)nd->voff;
        ld_node_retract(nd, qb + nd->qoff, q + nd->qoff, x + o);
        ld_node_tangent(nd, Tb + o * k + o, k, x + o);
        ld_node_bracket(nd, rb + o, x + o, y + o);
    }
    assert_memory_equal(qn, qb, nq * sizeof(double));
    assert_memory_equal(T, Tb, k * k * sizeof(double)); /* zero off the diagonal blocks */
    assert_memory_equal(rs, rb, k * sizeof(double));
    for (size_t j = 0; j < nq; ++j) qn[j] = qb[j] = 1.1 * q[j];
    ld_sys_normalize(&s, qn);
    for (int i = 0; i < s.nnodes; ++i) ld_node_normalize(&nodes[i], qb + nodes[i].qoff);
    assert_memory_equal(qn, qb, nq * sizeof(double));
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_covers_every_kind),
        cmocka_unit_test(test_sizes_match_layout),
        cmocka_unit_test(test_retract),
        cmocka_unit_test(test_exp_log),
        cmocka_unit_test(test_tangent_fd),
        cmocka_unit_test(test_tangent_inverse),
        cmocka_unit_test(test_tangent_rotation),
        cmocka_unit_test(test_bracket),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_euler_parameter_ops),
        cmocka_unit_test(test_system_node_by_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

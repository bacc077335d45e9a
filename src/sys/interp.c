/*
 * Dense output on the group: the state between two step ends, for output at times that the
 * steps do not hit. Node by node, q(t_a + θh) = q_a ∘ exp(ξ(θ)) with ξ the cubic Hermite
 * polynomial in the Lie algebra that matches both ends and both velocities:
 *
 *   ξ(0) = 0,  ξ'(0) = h v_a,  ξ(1) = Δ = log(q_a⁻¹ ∘ q_b),  ξ'(1) = h T⁻¹(Δ) v_b,
 *
 * (since q̇ = q ∘ (T(ξ) ξ̇)^ along q_a ∘ exp(ξ(t))), and v(θ) = T(ξ(θ)) ξ'(θ) / h. For a smooth
 * motion the interpolant is third order: the position error is O(h⁴) and the velocity error
 * O(h³) inside a step, exact at both ends. Vector-space nodes (Rⁿ, R³, the Euler parameters of
 * R³×R⁴) interpolate their coordinates directly; Euler parameters are renormalized.
 */
#include <math.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/system.h"
#include "nodes.h"

/* The cubic Hermite basis at θ and its derivatives: h[0..3] = H00 H10 H01 H11, d[0..3] the
 * derivatives in θ. */
static void hermite_basis(double th, double h[4], double d[4]) {
    double t2 = th * th, t3 = t2 * th;
    h[0] = 2.0 * t3 - 3.0 * t2 + 1.0;
    h[1] = t3 - 2.0 * t2 + th;
    h[2] = -2.0 * t3 + 3.0 * t2;
    h[3] = t3 - t2;
    d[0] = 6.0 * t2 - 6.0 * th;
    d[1] = 3.0 * t2 - 4.0 * th + 1.0;
    d[2] = -6.0 * t2 + 6.0 * th;
    d[3] = 3.0 * t2 - 2.0 * th;
}

/* One vector-space node of n coordinates. */
static void interp_flat(int n, const double *qa, const double *va, const double *qb,
                        const double *vb, double hs, const double hb[4], const double db[4],
                        double *q, double *v) {
    for (int j = 0; j < n; ++j) {
        q[j] = hb[0] * qa[j] + hb[1] * hs * va[j] + hb[2] * qb[j] + hb[3] * hs * vb[j];
        v[j] = (db[0] * qa[j] + db[2] * qb[j]) / hs + db[1] * va[j] + db[3] * vb[j];
    }
}

/* One group node (nq, nv of its kind). */
static void interp_group(const ld_node *nd, const ld_node_kind_info *d, const double *qa,
                         const double *va, const double *qb, const double *vb, double hs,
                         const double hb[4], const double db[4], double *q, double *v) {
    enum { NQ = LD_NODE_GROUP_MAX_NQ, NV = LD_NODE_GROUP_MAX_NV };
    double ai[NQ], rel[NQ], dl[NV], Ti[NV * NV], wb[NV], xi[NV], xd[NV], T[NV * NV];
    int nv = d->nv;
    d->inverse(ai, qa);
    d->compose(rel, ai, qb);
    d->log(dl, rel);
    ld_node_tangent_inv(nd, Ti, (size_t)nv, dl);
    for (int i = 0; i < nv; ++i) {
        wb[i] = 0.0;
        for (int j = 0; j < nv; ++j) wb[i] += Ti[i * nv + j] * vb[j];
    }
    for (int i = 0; i < nv; ++i) {
        xi[i] = hb[1] * hs * va[i] + hb[2] * dl[i] + hb[3] * hs * wb[i];
        xd[i] = db[1] * va[i] + db[2] * dl[i] / hs + db[3] * wb[i];
    }
    ld_node_retract(nd, q, qa, xi);
    ld_node_tangent(nd, T, (size_t)nv, xi);
    for (int i = 0; i < nv; ++i) {
        v[i] = 0.0;
        for (int j = 0; j < nv; ++j) v[i] += T[i * nv + j] * xd[j];
    }
}

int ld_sys_interpolate(const ld_system *s, const double *qa, const double *va, const double *qb,
                       const double *vb, double h, double theta, double *q, double *v) {
    if (!s || !qa || !va || !qb || !vb || !q || !v) return LD_EINVAL;
    if (!(h > 0.0) || !isfinite(h) || !(theta >= 0.0 && theta <= 1.0)) return LD_EINVAL;
    double hb[4], db[4];
    hermite_basis(theta, hb, db);
    for (int i = 0; i < s->nnodes; ++i) {
        const ld_node *nd = &s->nodes[i];
        const ld_node_kind_info *d = ld_node_kind_get(nd->kind);
        if (!d) return LD_EINVAL;
        int qo = nd->qoff, vo = nd->voff;
        if (d->flat) {
            interp_flat(ld_node_nv(nd), qa + qo, va + vo, qb + qo, vb + vo, h, hb, db, q + qo,
                        v + vo);
            ld_node_normalize(nd, q + qo);
        } else {
            interp_group(nd, d, qa + qo, va + vo, qb + qo, vb + vo, h, hb, db, q + qo, v + vo);
        }
    }
    return LD_OK;
}

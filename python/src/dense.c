/* Output between steps: a cubic Hermite curve on the group, node by node. For a node with
 * group operations (lie.h) the local coordinate of the step is ξ₁ = log(q₀⁻¹ ∘ q₁), the curve
 * ξ(θ) in [0, 1] has ξ(0) = 0, ξ'(0) = h v₀, ξ(1) = ξ₁, ξ'(1) = h T⁻¹(ξ₁) v₁ (v = T(ξ) ξ̇ for
 * q = q₀ ∘ exp ξ), so q(θ) = q₀ ∘ exp ξ(θ) and v(θ) = T(ξ(θ)) ξ'(θ)/h; flat nodes (Rⁿ, Euler
 * parameters) take the same curve in their coordinates. Third-order accurate in h. */
#include "ext.h"

#include <string.h>

typedef struct group_ops {
    int nq;
    void (*exp)(double *, const double *);
    void (*log)(double *, const double *);
    void (*compose)(double *, const double *, const double *);
    void (*inverse)(double *, const double *);
    void (*tangent)(double *, const double *);
    void (*tangent_inv)(double *, const double *);
} group_ops;

static const group_ops *ops_of(ld_node_kind k) {
    static const group_ops SO3XR3 = {12,
                                     ld_so3xr3_exp,
                                     ld_so3xr3_log,
                                     ld_so3xr3_compose,
                                     ld_so3xr3_inverse,
                                     ld_so3xr3_tangent,
                                     ld_so3xr3_tangent_inv};
    static const group_ops SE3 = {12,
                                  ld_se3_exp,
                                  ld_se3_log,
                                  ld_se3_compose,
                                  ld_se3_inverse,
                                  ld_se3_tangent,
                                  ld_se3_tangent_inv};
    static const group_ops S3XR3 = {7,
                                    ld_s3xr3_exp,
                                    ld_s3xr3_log,
                                    ld_s3xr3_compose,
                                    ld_s3xr3_inverse,
                                    ld_s3xr3_tangent,
                                    ld_s3xr3_tangent_inv};
    static const group_ops S3SDR3 = {7,
                                     ld_s3sdr3_exp,
                                     ld_s3sdr3_log,
                                     ld_s3sdr3_compose,
                                     ld_s3sdr3_inverse,
                                     ld_s3sdr3_tangent,
                                     ld_s3sdr3_tangent_inv};
    switch (k) {
    case LD_NODE_SO3XR3:
        return &SO3XR3;
    case LD_NODE_SE3:
        return &SE3;
    case LD_NODE_S3XR3:
        return &S3XR3;
    case LD_NODE_S3SDR3:
        return &S3SDR3;
    default:
        return NULL;
    }
}

/* Hermite basis at θ and its derivative. */
static void hermite(double th, double b[4], double d[4]) {
    double t2 = th * th, t3 = t2 * th;
    b[0] = 2 * t3 - 3 * t2 + 1; /* p0 */
    b[1] = t3 - 2 * t2 + th;    /* m0 */
    b[2] = -2 * t3 + 3 * t2;    /* p1 */
    b[3] = t3 - t2;             /* m1 */
    d[0] = 6 * t2 - 6 * th;
    d[1] = 3 * t2 - 4 * th + 1;
    d[2] = -6 * t2 + 6 * th;
    d[3] = 3 * t2 - 2 * th;
}

static void mat_vec(double *r, const double *A, const double *x, int n) {
    for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) s += A[n * i + j] * x[j];
        r[i] = s;
    }
}

/* One group node: 6 velocity components. */
static void group_node(const group_ops *g, double h, const double b[4], const double d[4],
                       const double *q0, const double *v0, const double *q1, const double *v1,
                       double *q, double *v) {
    double inv[12], rel[12], xi1[6], Ti[36], m1[6], xi[6], xid[6], T[36], e[12];
    g->inverse(inv, q0);
    g->compose(rel, inv, q1);
    g->log(xi1, rel);
    g->tangent_inv(Ti, xi1);
    mat_vec(m1, Ti, v1, 6);
    for (int j = 0; j < 6; ++j) {
        xi[j] = b[1] * h * v0[j] + b[2] * xi1[j] + b[3] * h * m1[j];
        xid[j] = (d[1] * h * v0[j] + d[2] * xi1[j] + d[3] * h * m1[j]) / h;
    }
    g->exp(e, xi);
    g->compose(q, q0, e);
    g->tangent(T, xi);
    mat_vec(v, T, xid, 6);
}

void ld_py_dense(const ld_system *s, double h, double theta, const double *q0, const double *v0,
                 const double *q1, const double *v1, double *q, double *v, double *work) {
    (void)work;
    double b[4], d[4];
    hermite(theta, b, d);
    for (int i = 0; i < s->nnodes; ++i) {
        const ld_node *nd = &s->nodes[i];
        const group_ops *g = ops_of(nd->kind);
        int qo = nd->qoff, vo = nd->voff;
        if (g) {
            group_node(g, h, b, d, q0 + qo, v0 + vo, q1 + qo, v1 + vo, q + qo, v + vo);
            continue;
        }
        /* flat: q and v have the same size (the next node's offset, or the end) */
        int nv = (i + 1 < s->nnodes ? s->nodes[i + 1].voff : s->k) - vo;
        for (int j = 0; j < nv; ++j) {
            double p0 = q0[qo + j], p1 = q1[qo + j], m0 = h * v0[vo + j], m1 = h * v1[vo + j];
            q[qo + j] = b[0] * p0 + b[1] * m0 + b[2] * p1 + b[3] * m1;
            v[vo + j] = (d[0] * p0 + d[1] * m0 + d[2] * p1 + d[3] * m1) / h;
        }
    }
}

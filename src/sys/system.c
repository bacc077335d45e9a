/* Product-group layout, retraction, tangent operator and the finite-difference fallbacks of
 * the system interface (system.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/linalg.h"
#include "liedyn/system.h"
#include "../lie/mat3.h"

/* Storage and tangent size of a node; 0 for an invalid node. */
static int node_sizes(const ld_node *nd, int *nq, int *nv) {
    switch (nd->kind) {
    case LD_NODE_RN:
        if (nd->n < 1) return 0;
        *nq = *nv = nd->n;
        return 1;
    case LD_NODE_R3:
        *nq = *nv = 3;
        return 1;
    case LD_NODE_SO3XR3:
    case LD_NODE_SE3:
        *nq = 12, *nv = 6;
        return 1;
    case LD_NODE_S3XR3:
    case LD_NODE_S3SDR3:
        *nq = 7, *nv = 6;
        return 1;
    case LD_NODE_R3E4:
        *nq = *nv = 7;
        return 1;
    }
    return 0;
}

/* Tangent size of a valid node. */
static int node_dim(const ld_node *nd) {
    int nq = 0, nv = 0;
    (void)node_sizes(nd, &nq, &nv);
    return nv;
}

int ld_sys_layout(ld_system *s) {
    if (!s || s->nnodes < 0 || (s->nnodes > 0 && !s->nodes) || s->m < 0) return LD_EINVAL;
    int nq = 0, nv = 0;
    for (int i = 0; i < s->nnodes; ++i) {
        int a, b;
        if (!node_sizes(&s->nodes[i], &a, &b)) return LD_EINVAL;
        s->nodes[i].qoff = nq;
        s->nodes[i].voff = nv;
        nq += a;
        nv += b;
    }
    s->nq = nq;
    s->k = nv;
    return LD_OK;
}

/* Scratch for the finite differences: q±, v±, a few k-vectors, m-vectors, and one k×k. */
int ld_sys_alloc_work(ld_system *s) {
    if (!s || s->k < 0 || s->nq < 0) return LD_EINVAL;
    size_t k = (size_t)s->k, m = (size_t)s->m, nq = (size_t)s->nq;
    size_t n = 2 * nq + 6 * k + 4 * m + k * k + m * k + 8;
    free(s->work);
    s->work = calloc(n, sizeof(double));
    s->nwork = s->work ? n : 0;
    return s->work ? LD_OK : LD_ENOMEM;
}

void ld_sys_free_work(ld_system *s) {
    if (!s) return;
    free(s->work);
    s->work = NULL;
    s->nwork = 0;
}

void ld_sys_retract(const ld_system *s, double *qn, const double *q, const double *xi) {
    for (int i = 0; i < s->nnodes; ++i) {
        const ld_node *nd = &s->nodes[i];
        const double *a = q + nd->qoff, *u = xi + nd->voff;
        double *r = qn + nd->qoff, e[12];
        switch (nd->kind) {
        case LD_NODE_RN:
            for (int j = 0; j < nd->n; ++j) r[j] = a[j] + u[j];
            break;
        case LD_NODE_R3:
        case LD_NODE_R3E4:
            for (int j = 0; j < node_dim(nd); ++j) r[j] = a[j] + u[j];
            break;
        case LD_NODE_SO3XR3:
            ld_so3xr3_exp(e, u);
            ld_so3xr3_compose(r, a, e);
            break;
        case LD_NODE_SE3:
            ld_se3_exp(e, u);
            ld_se3_compose(r, a, e);
            break;
        case LD_NODE_S3XR3:
            ld_s3xr3_exp(e, u);
            ld_s3xr3_compose(r, a, e);
            break;
        case LD_NODE_S3SDR3:
            ld_s3sdr3_exp(e, u);
            ld_s3sdr3_compose(r, a, e);
            break;
        }
    }
}

void ld_sys_tangent(const ld_system *s, double *T, const double *xi) {
    size_t k = (size_t)s->k;
    memset(T, 0, k * k * sizeof(double));
    for (int i = 0; i < s->nnodes; ++i) {
        const ld_node *nd = &s->nodes[i];
        int o = nd->voff, n = node_dim(nd);
        double B[36];
        switch (nd->kind) {
        case LD_NODE_RN:
        case LD_NODE_R3:
        case LD_NODE_R3E4:
            for (int j = 0; j < n; ++j) T[(size_t)(o + j) * k + (size_t)(o + j)] = 1.0;
            continue;
        case LD_NODE_SO3XR3:
            ld_so3xr3_tangent(B, xi + o);
            break;
        case LD_NODE_SE3:
            ld_se3_tangent(B, xi + o);
            break;
        case LD_NODE_S3XR3:
            ld_s3xr3_tangent(B, xi + o);
            break;
        case LD_NODE_S3SDR3:
            ld_s3sdr3_tangent(B, xi + o);
            break;
        }
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 6; ++c) T[(size_t)(o + r) * k + (size_t)(o + c)] = B[6 * r + c];
    }
}

/* Nearest rotation matrix by one Newton step of the polar decomposition from the quaternion:
 * R ← R(quat(R)), exact for a slightly non-orthogonal R. */
static void reortho(double R[9]) {
    double q[4];
    ld_quat_from_mat(q, R);
    ld_quat_to_mat(R, q);
}

void ld_sys_bracket(const ld_system *s, double *r, const double *x, const double *y) {
    for (int i = 0; i < s->nnodes; ++i) {
        const ld_node *nd = &s->nodes[i];
        int o = nd->voff, n = node_dim(nd);
        for (int j = 0; j < n; ++j) r[o + j] = 0.0;
        if (n != 6) continue;
        ld_v3_cross(r + o, x + o, y + o);
        if (nd->kind == LD_NODE_SE3 || nd->kind == LD_NODE_S3SDR3) {
            double a[3], b[3];
            ld_v3_cross(a, x + o, y + o + 3);
            ld_v3_cross(b, y + o, x + o + 3);
            for (int j = 0; j < 3; ++j) r[o + 3 + j] = a[j] - b[j];
        }
    }
}

void ld_sys_normalize(const ld_system *s, double *q) {
    for (int i = 0; i < s->nnodes; ++i) {
        const ld_node *nd = &s->nodes[i];
        double *a = q + nd->qoff;
        if (nd->kind == LD_NODE_SO3XR3 || nd->kind == LD_NODE_SE3)
            reortho(a);
        else if (nd->kind == LD_NODE_S3XR3 || nd->kind == LD_NODE_S3SDR3)
            (void)ld_quat_normalize(a, a);
        else if (nd->kind == LD_NODE_R3E4)
            (void)ld_quat_normalize(a + 3, a + 3);
    }
}

/* ------------------------------------------------------------------ finite differences */

/* Central-difference step for a tangent direction: relative to the size of the state. */
static double fd_step(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s = fmax(s, fabs(x[i]));
    return 1e-6 * fmax(1.0, s);
}

/* r(q, v) = M(q) a + g(t, q, v) + B(q)ᵀ λ into out (k); uses Mw (k×k) and Bw (m×k). */
static int eval_residual(const ld_system *s, double t, const double *q, const double *v,
                         const double *a, const double *lambda, double *out, double *Mw,
                         double *Bw) {
    int k = s->k, m = s->m, rc = s->ops.mass(s, q, Mw);
    if (rc) return rc;
    rc = s->ops.force(s, t, q, v, out);
    if (rc) return rc;
    for (int i = 0; i < k; ++i) {
        double acc = 0.0;
        for (int j = 0; j < k; ++j) acc += Mw[(size_t)i * (size_t)k + (size_t)j] * a[j];
        out[i] += acc;
    }
    if (m > 0 && lambda) {
        rc = s->ops.phi_q(s, t, q, Bw);
        if (rc) return rc;
        for (int i = 0; i < k; ++i) {
            double acc = 0.0;
            for (int j = 0; j < m; ++j) acc += Bw[(size_t)j * (size_t)k + (size_t)i] * lambda[j];
            out[i] += acc;
        }
    }
    return LD_OK;
}

/* Work layout: q+ (nq) | e (k) | r+ (k) | r- (k) | v+ (k) | M (k×k) | B (m×k) | p+ (m) | p- (m). */
typedef struct fd_work {
    double *qp, *e, *rp, *rm, *M, *B, *pp, *pm, *vp;
} fd_work;

static int fd_split(const ld_system *s, fd_work *w) {
    if (!s->work) return LD_EINVAL;
    size_t k = (size_t)s->k, m = (size_t)s->m, nq = (size_t)s->nq;
    double *p = s->work;
    w->qp = p, p += nq;
    w->e = p, p += k;
    w->rp = p, p += k;
    w->rm = p, p += k;
    w->vp = p, p += k;
    w->M = p, p += k * k;
    w->B = p, p += m * k;
    w->pp = p, p += m;
    w->pm = p, p += m;
    return (size_t)(p - s->work) <= s->nwork ? LD_OK : LD_EINVAL;
}

/* Columns J[:, j] = (f(q ∘ exp(h e_j)) − f(q ∘ exp(−h e_j)))/2h of a function f on the group
 * with `rows` outputs, written into J (rows×k); plus/minus are scratch of `rows` values. */
typedef int (*fd_fn)(const ld_system *s, const double *qp, double *out, void *ctx);

static int fd_group_columns(const ld_system *s, const double *q, int rows, fd_fn f, void *ctx,
                            fd_work *w, double *plus, double *minus, double *J) {
    int k = s->k;
    double h = 1e-6;
    memset(w->e, 0, (size_t)k * sizeof(double));
    for (int j = 0; j < k; ++j) {
        for (int sg = -1; sg <= 1; sg += 2) {
            w->e[j] = sg * h;
            ld_sys_retract(s, w->qp, q, w->e);
            int rc = f(s, w->qp, sg < 0 ? minus : plus, ctx);
            if (rc) return rc;
        }
        w->e[j] = 0.0;
        for (int i = 0; i < rows; ++i)
            J[(size_t)i * (size_t)k + (size_t)j] = (plus[i] - minus[i]) / (2.0 * h);
    }
    return LD_OK;
}

typedef struct res_ctx {
    double t;
    const double *v, *a, *lambda;
    fd_work *w;
} res_ctx;

static int fd_residual(const ld_system *s, const double *qp, double *out, void *ctx) {
    res_ctx *c = ctx;
    return eval_residual(s, c->t, qp, c->v, c->a, c->lambda, out, c->w->M, c->w->B);
}

static int fd_phi(const ld_system *s, const double *qp, double *out, void *ctx) {
    return s->ops.phi(s, *(const double *)ctx, qp, out);
}

int ld_sys_stiffness_fd(const ld_system *s, double t, const double *q, const double *v,
                        const double *a, const double *lambda, double *K) {
    fd_work w;
    int rc = fd_split(s, &w);
    if (rc) return rc;
    res_ctx c = {t, v, a, lambda, &w};
    return fd_group_columns(s, q, s->k, fd_residual, &c, &w, w.rp, w.rm, K);
}

int ld_sys_g_v_fd(const ld_system *s, double t, const double *q, const double *v, double *C) {
    fd_work w;
    int rc = fd_split(s, &w), k = s->k;
    if (rc) return rc;
    double h = fd_step(v, k);
    memcpy(w.vp, v, (size_t)k * sizeof(double));
    for (int j = 0; j < k; ++j) {
        w.vp[j] = v[j] + h;
        rc = s->ops.force(s, t, q, w.vp, w.rp);
        if (rc) return rc;
        w.vp[j] = v[j] - h;
        rc = s->ops.force(s, t, q, w.vp, w.rm);
        if (rc) return rc;
        w.vp[j] = v[j];
        for (int i = 0; i < k; ++i)
            C[(size_t)i * (size_t)k + (size_t)j] = (w.rp[i] - w.rm[i]) / (2.0 * h);
    }
    return LD_OK;
}

int ld_sys_phi_q_fd(const ld_system *s, double t, const double *q, double *B) {
    fd_work w;
    int rc = fd_split(s, &w);
    if (rc) return rc;
    return fd_group_columns(s, q, s->m, fd_phi, &t, &w, w.pp, w.pm, B);
}

/* z = d/dt[B(q(t)) v] along q(t) = q ∘ exp(t v̂) at fixed v, by a central difference of B v
 * (first differences: a second difference of Φ would lose half the digits). Assumes a
 * constraint without explicit time dependence beyond what B carries. */
int ld_sys_phi_dd_fd(const ld_system *s, double t, const double *q, const double *v, double *z) {
    fd_work w;
    int rc = fd_split(s, &w), k = s->k, m = s->m;
    if (rc) return rc;
    double vmax = 0.0;
    for (int i = 0; i < k; ++i) vmax = fmax(vmax, fabs(v[i]));
    double h = 1e-6 / fmax(1.0, vmax);
    for (int sg = -1; sg <= 1; sg += 2) {
        for (int i = 0; i < k; ++i) w.e[i] = sg * h * v[i];
        ld_sys_retract(s, w.qp, q, w.e);
        rc = s->ops.phi_q(s, t + sg * h, w.qp, w.B);
        if (rc) return rc;
        double *out = sg < 0 ? w.pm : w.pp;
        for (int i = 0; i < m; ++i) {
            double acc = 0.0;
            for (int j = 0; j < k; ++j) acc += w.B[(size_t)i * (size_t)k + (size_t)j] * v[j];
            out[i] = acc;
        }
    }
    for (int i = 0; i < m; ++i) z[i] = (w.pp[i] - w.pm[i]) / (2.0 * h);
    return LD_OK;
}

int ld_sys_stiffness(const ld_system *s, double t, const double *q, const double *v,
                     const double *a, const double *lambda, double *K) {
    if (s->ops.stiffness) return s->ops.stiffness(s, t, q, v, a, lambda, K);
    return ld_sys_stiffness_fd(s, t, q, v, a, lambda, K);
}

int ld_sys_g_v(const ld_system *s, double t, const double *q, const double *v, double *C) {
    if (s->ops.g_v) return s->ops.g_v(s, t, q, v, C);
    return ld_sys_g_v_fd(s, t, q, v, C);
}

int ld_sys_phi_dd(const ld_system *s, double t, const double *q, const double *v, double *z) {
    if (s->ops.phi_dd) return s->ops.phi_dd(s, t, q, v, z);
    return ld_sys_phi_dd_fd(s, t, q, v, z);
}

/* ------------------------------------------------------------------ initial accelerations */

int ld_sys_initial_accel(const ld_system *s, double t, const double *q, const double *v,
                         double *vdot, double *lambda) {
    int k = s->k, m = s->m, n = k + m, rc;
    size_t N = (size_t)n;
    double *A = calloc(N * N + N + (size_t)m * (size_t)k + (size_t)k * (size_t)k, sizeof(double));
    if (!A) return LD_ENOMEM;
    double *b = A + N * N, *B = b + N, *M = B + (size_t)m * (size_t)k;
    ld_la *la = ld_la_create(LD_LA_DENSE, n);
    rc = la ? s->ops.mass(s, q, M) : LD_ENOMEM;
    if (!rc) rc = s->ops.force(s, t, q, v, b);
    if (!rc && m > 0) rc = s->ops.phi_q(s, t, q, B);
    if (!rc && m > 0) rc = ld_sys_phi_dd(s, t, q, v, b + k);
    if (!rc) {
        for (int i = 0; i < k; ++i) {
            for (int j = 0; j < k; ++j)
                A[(size_t)i * N + (size_t)j] = M[(size_t)i * (size_t)k + (size_t)j];
            for (int j = 0; j < m; ++j) {
                A[(size_t)i * N + (size_t)(k + j)] = B[(size_t)j * (size_t)k + (size_t)i];
                A[(size_t)(k + j) * N + (size_t)i] = B[(size_t)j * (size_t)k + (size_t)i];
            }
        }
        for (int i = 0; i < n; ++i) b[i] = -b[i];
        rc = ld_la_factor_dense(la, A);
        if (!rc) rc = ld_la_solve(la, b);
    }
    if (!rc) {
        memcpy(vdot, b, (size_t)k * sizeof(double));
        if (m > 0) memcpy(lambda, b + k, (size_t)m * sizeof(double));
    }
    ld_la_free(la);
    free(A);
    return rc;
}

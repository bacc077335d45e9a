/* Product-group layout, retraction, tangent operator and the finite-difference fallbacks of
 * the system interface (system.h); what depends on a node's kind is in the table of nodes.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/linalg.h"
#include "liedyn/system.h"
#include "accel.h"
#include "nodes.h"
#include "../core/oom.h"

int ld_sys_layout(ld_system *s) {
    if (!s || s->nnodes < 0 || (s->nnodes > 0 && !s->nodes) || s->m < 0) return LD_EINVAL;
    int nq = 0, nv = 0;
    for (int i = 0; i < s->nnodes; ++i) {
        int a, b;
        if (ld_node_sizes(&s->nodes[i], &a, &b)) return LD_EINVAL;
        s->nodes[i].qoff = nq;
        s->nodes[i].voff = nv;
        nq += a;
        nv += b;
    }
    s->nq = nq;
    s->k = nv;
    return LD_OK;
}

/* The dense scratch of the finite-difference tangents, apart from the vector scratch so that
 * a system whose tangents are analytic never holds a k×k array. Reached through the const
 * system: the holder is allocated with the vectors, its buffer on demand. */
struct ld_sys_fd {
    double *buf;
    size_t n; /* doubles in buf */
};

/* Vector scratch of the finite differences: q+ (nq), k-vectors, m-vectors. */
int ld_sys_alloc_work(ld_system *s) {
    if (!s || s->k < 0 || s->nq < 0 || s->m < 0) return LD_EINVAL;
    size_t k = (size_t)s->k, m = (size_t)s->m, nq = (size_t)s->nq;
    size_t n = 2 * nq + 6 * k + 4 * m + 8;
    ld_sys_free_work(s);
    s->work = ld_xcalloc(n, sizeof(double), "the system's work");
    s->fd = ld_xcalloc(1, sizeof *s->fd, "the system's work");
    if (!s->work || !s->fd) {
        ld_sys_free_work(s);
        return LD_ENOMEM;
    }
    s->nwork = n;
    return LD_OK;
}

void ld_sys_free_work(ld_system *s) {
    if (!s) return;
    free(s->work);
    if (s->fd) free(s->fd->buf);
    free(s->fd);
    free(s->pattern_keep);
    s->work = NULL;
    s->fd = NULL;
    s->pattern_keep = NULL;
    s->nwork = 0;
}

size_t ld_sys_fd_doubles(const ld_system *s, unsigned what) {
    if (!s || s->k < 0 || s->m < 0) return 0;
    size_t k = (size_t)s->k, m = (size_t)s->m, n = 0;
    if (what & LD_SYS_FD_STIFFNESS) n = k * k + m * k;              /* M and B of the residual */
    if ((what & LD_SYS_FD_PHI_DD) && m > 0 && n < m * k) n = m * k; /* B at q ± h v */
    return n;
}

unsigned ld_sys_fd_missing(const ld_system *s) {
    if (!s) return 0;
    return (s->ops.stiffness ? 0u : LD_SYS_FD_STIFFNESS) | (s->ops.phi_dd ? 0u : LD_SYS_FD_PHI_DD);
}

int ld_sys_reserve_fd(const ld_system *s, unsigned what) {
    if (!s || !s->fd) return LD_EINVAL;
    size_t n = ld_sys_fd_doubles(s, what);
    if (n <= s->fd->n) return LD_OK;
    if (n > SIZE_MAX / sizeof(double)) return LD_ENOMEM;
    double *p = ld_xcalloc(n, sizeof(double), "the finite-difference scratch");
    if (!p) return LD_ENOMEM;
    free(s->fd->buf);
    s->fd->buf = p;
    s->fd->n = n;
    return LD_OK;
}

void ld_sys_retract(const ld_system *s, double *qn, const double *q, const double *xi) {
    for (int i = 0; i < s->nnodes; ++i) {
        const ld_node *nd = &s->nodes[i];
        ld_node_retract(nd, qn + nd->qoff, q + nd->qoff, xi + nd->voff);
    }
}

void ld_sys_tangent(const ld_system *s, double *T, const double *xi) {
    size_t k = (size_t)s->k;
    memset(T, 0, k * k * sizeof(double));
    for (int i = 0; i < s->nnodes; ++i) {
        size_t o = (size_t)s->nodes[i].voff;
        ld_node_tangent(&s->nodes[i], T + o * k + o, k, xi + o);
    }
}

void ld_sys_bracket(const ld_system *s, double *r, const double *x, const double *y) {
    for (int i = 0; i < s->nnodes; ++i) {
        int o = s->nodes[i].voff;
        ld_node_bracket(&s->nodes[i], r + o, x + o, y + o);
    }
}

void ld_sys_normalize(const ld_system *s, double *q) {
    for (int i = 0; i < s->nnodes; ++i) ld_node_normalize(&s->nodes[i], q + s->nodes[i].qoff);
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

/* Work layout: q+ (nq) | e (k) | r+ (k) | r- (k) | v+ (k) | p+ (m) | p- (m) in s->work; M (k×k)
 * and B (m×k) in the dense scratch, only where `what` asks for them. */
typedef struct fd_work {
    double *qp, *e, *rp, *rm, *M, *B, *pp, *pm, *vp;
} fd_work;

/* Split the scratch; the dense part is reserved on first use (the integrators reserve it at
 * creation, so that no step allocates). */
static int fd_split(const ld_system *s, fd_work *w, unsigned what) {
    if (!s->work) return LD_EINVAL;
    size_t k = (size_t)s->k, m = (size_t)s->m, nq = (size_t)s->nq;
    double *p = s->work;
    w->qp = p, p += nq;
    w->e = p, p += k;
    w->rp = p, p += k;
    w->rm = p, p += k;
    w->vp = p, p += k;
    w->pp = p, p += m;
    w->pm = p, p += m;
    if ((size_t)(p - s->work) > s->nwork) return LD_EINVAL;
    w->M = w->B = NULL;
    if (!what) return LD_OK;
    int rc = ld_sys_reserve_fd(s, what);
    if (rc) return rc;
    w->M = s->fd->buf;
    w->B = what & LD_SYS_FD_STIFFNESS ? w->M + k * k : s->fd->buf;
    return LD_OK;
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
    if (!s || !q || !v || !a || !K) return LD_EINVAL;
    fd_work w;
    int rc = fd_split(s, &w, LD_SYS_FD_STIFFNESS);
    if (rc) return rc;
    res_ctx c = {t, v, a, lambda, &w};
    return fd_group_columns(s, q, s->k, fd_residual, &c, &w, w.rp, w.rm, K);
}

int ld_sys_g_v_fd(const ld_system *s, double t, const double *q, const double *v, double *C) {
    if (!s || !q || !v || !C) return LD_EINVAL;
    fd_work w;
    int rc = fd_split(s, &w, 0), k = s->k;
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
    if (!s || !q || (s->m > 0 && (!B || !s->ops.phi))) return LD_EINVAL;
    fd_work w;
    int rc = fd_split(s, &w, 0);
    if (rc) return rc;
    return fd_group_columns(s, q, s->m, fd_phi, &t, &w, w.pp, w.pm, B);
}

/* z = d/dt[B(q(t)) v] along q(t) = q ∘ exp(t v̂) at fixed v, by a central difference of B v
 * (first differences: a second difference of Φ would lose half the digits). Assumes a
 * constraint without explicit time dependence beyond what B carries. */
int ld_sys_phi_dd_fd(const ld_system *s, double t, const double *q, const double *v, double *z) {
    if (!s || !q || !v || (s->m > 0 && (!z || !s->ops.phi_q))) return LD_EINVAL;
    if (s->m == 0) return LD_OK;
    fd_work w;
    int rc = fd_split(s, &w, LD_SYS_FD_PHI_DD), k = s->k, m = s->m;
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

void ld_sys_forget(const ld_system *s) {
    if (s && s->ops.forget) s->ops.forget(s);
}

int ld_sys_stiffness(const ld_system *s, double t, const double *q, const double *v,
                     const double *a, const double *lambda, double *K) {
    if (!s || !q || !v || !a || !K) return LD_EINVAL;
    if (s->ops.stiffness) return s->ops.stiffness(s, t, q, v, a, lambda, K);
    return ld_sys_stiffness_fd(s, t, q, v, a, lambda, K);
}

int ld_sys_g_v(const ld_system *s, double t, const double *q, const double *v, double *C) {
    if (!s || !q || !v || !C) return LD_EINVAL;
    if (s->ops.g_v) return s->ops.g_v(s, t, q, v, C);
    return ld_sys_g_v_fd(s, t, q, v, C);
}

int ld_sys_phi_dd(const ld_system *s, double t, const double *q, const double *v, double *z) {
    if (!s || !q || !v || (s->m > 0 && !z)) return LD_EINVAL;
    if (s->ops.phi_dd) return s->ops.phi_dd(s, t, q, v, z);
    return ld_sys_phi_dd_fd(s, t, q, v, z);
}

/* ------------------------------------------------------------------ initial accelerations */

/* Format an out-of-memory reason; returns LD_ENOMEM. */
static int oom(char *msg, size_t cap, double bytes, const char *what) {
    return ld_oom_format(msg, cap, bytes, what);
}

/* Name the first non-finite entry of x (n values) as `what`; LD_EDOMAIN, or LD_OK. */
static int finite_or(const double *x, size_t n, const char *what, char *msg, size_t cap) {
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(x[i])) {
            if (msg && cap) snprintf(msg, cap, "non-finite %s (entry %zu is %g)", what, i, x[i]);
            return LD_EDOMAIN;
        }
    return LD_OK;
}

/* b = −[g; z] (k + m), checked finite. */
static int saddle_rhs(const ld_system *s, double t, const double *q, const double *v, double *b,
                      char *msg, size_t cap) {
    size_t k = (size_t)s->k, m = (size_t)s->m;
    int rc = s->ops.force(s, t, q, v, b);
    if (!rc) rc = finite_or(b, k, "generalized force g(t, q, v)", msg, cap);
    if (!rc && m > 0) rc = ld_sys_phi_dd(s, t, q, v, b + k);
    if (!rc && m > 0) rc = finite_or(b + k, m, "constraint acceleration term z", msg, cap);
    if (rc) return rc;
    for (size_t i = 0; i < k + m; ++i) b[i] = -b[i];
    return LD_OK;
}

/* Factor [M Bᵀ; B 0] (A dense, or the CSC p, ri, x) with the workspace's solver and solve
 * for b in place. */
static int saddle_solve(ld_la *la, const double *A, const int *p, const int *ri, const double *x,
                        double *b, char *msg, size_t cap) {
    int rc = A ? ld_la_factor_dense(la, A) : ld_la_factor_csc(la, p, ri, x);
    if (!rc) rc = ld_la_solve(la, b);
    if (rc == LD_ESINGULAR && msg && cap)
        snprintf(msg, cap, "singular matrix [M B'; B 0] of the initial accelerations");
    if (rc == LD_ENOMEM) return oom(msg, cap, 0.0, "the factors of the initial accelerations");
    return rc;
}

int ld_sys_has_sparse(const ld_system *s) {
    if (!s || !s->ops.mass_blocks || !s->ops.phi_q_sparse || s->bnnz < 0) return 0;
    if (s->m == 0 || s->bnnz == 0) return 1;
    if (!s->brow || !s->bcol) return 0;
    for (int e = 0; e < s->bnnz; ++e) {
        int bad = s->brow[e] < 0 || s->brow[e] >= s->m || s->bcol[e] < 0 || s->bcol[e] >= s->k;
        if (!bad && e > 0)
            bad = s->brow[e] < s->brow[e - 1] ||
                  (s->brow[e] == s->brow[e - 1] && s->bcol[e] <= s->bcol[e - 1]);
        if (bad) return 0;
    }
    return 1;
}

int ld_sys_has_blocks(const ld_system *s) {
    if (!ld_sys_has_sparse(s) || !s->ops.tangent_blocks || s->nblk < s->nnodes) return 0;
    if (!s->blk_row || !s->blk_col || !s->blk_off || s->blk_off[0] != 0) return 0;
    int diag = 0;
    for (int b = 0; b < s->nblk; ++b) {
        int r = s->blk_row[b], c = s->blk_col[b];
        if (r < 0 || r >= s->nnodes || c < 0 || c >= s->nnodes) return 0;
        if (b > 0 && (c < s->blk_col[b - 1] || (c == s->blk_col[b - 1] && r <= s->blk_row[b - 1])))
            return 0;
        size_t want = (size_t)ld_node_nv(&s->nodes[r]) * (size_t)ld_node_nv(&s->nodes[c]);
        if (s->blk_off[b + 1] != s->blk_off[b] + want) return 0;
        diag += r == c;
    }
    return diag == s->nnodes;
}

size_t ld_sys_mass_block_entries(const ld_system *s) {
    size_t n = 0;
    for (int i = 0; s && i < s->nnodes; ++i) {
        size_t d = (size_t)ld_node_nv(&s->nodes[i]);
        n += d * d;
    }
    return n;
}

/* The CSC pattern and values of [M Bᵀ; B 0] from the node blocks Mb and the values Bv of B in
 * its pattern (rows ascending in every column: a node's block rows, then its B rows; a
 * constraint column's entries in column order). p has k + m + 1 entries, next k + m. */
static void saddle_csc(const ld_system *s, const double *Mb, const double *Bv, int *p, int *ri,
                       double *x, int *next) {
    int k = s->k, n = s->k + s->m;
    memset(p, 0, ((size_t)n + 1) * sizeof(int));
    for (int i = 0; i < s->nnodes; ++i)
        for (int j = 0, d = ld_node_nv(&s->nodes[i]); j < d; ++j) p[s->nodes[i].voff + j + 1] = d;
    for (int e = 0; e < s->bnnz; ++e) p[s->bcol[e] + 1]++, p[k + s->brow[e] + 1]++;
    for (int j = 0; j < n; ++j) p[j + 1] += p[j];
    memcpy(next, p, (size_t)n * sizeof(int));
    size_t off = 0;
    for (int i = 0; i < s->nnodes; ++i) {
        int o = s->nodes[i].voff, d = ld_node_nv(&s->nodes[i]);
        for (int b = 0; b < d; ++b)
            for (int a = 0; a < d; ++a) {
                ri[next[o + b]] = o + a;
                x[next[o + b]++] = Mb[off + (size_t)(a * d + b)];
            }
        off += (size_t)(d * d);
    }
    for (int e = 0; e < s->bnnz; ++e) {
        int c = s->bcol[e], r = k + s->brow[e];
        ri[next[c]] = r, x[next[c]++] = Bv[e];
        ri[next[r]] = c, x[next[r]++] = Bv[e];
    }
}

/* The workspace of the solve for consistent accelerations (accel.h): the right-hand side b
 * (k + m), and either the dense (k + m)² matrix with M (k²) and B (m k) beside it, or the CSC
 * arrays of the sparse matrix; the solver, kept so that its pattern, analysis and factor
 * storage serve every later solve. */
struct ld_sys_accel_ws {
    int sparse;
    size_t n, nmb, nb, nnz;
    double *b, *x; /* x: dense A | B | M, or sparse values | Mb | Bv */
    int *p;        /* sparse: colptr (n + 1) | next (n) | rowind (nnz) */
    ld_la *la;
};

void ld_sys_accel_ws_free(ld_sys_accel_ws *w) {
    if (!w) return;
    ld_la_free(w->la);
    free(w->b);
    free(w->x);
    free(w->p);
    free(w);
}

/* The bytes of the workspace's arrays (messages). */
static double ws_bytes(const ld_sys_accel_ws *w, size_t k, size_t m) {
    if (w->sparse)
        return (double)((2 * w->n + 1 + w->nnz) * sizeof(int)) +
               (double)((w->nnz + w->nmb + w->nb + 1 + w->n) * sizeof(double));
    return 8.0 * ((double)w->n * (double)w->n + (double)m * (double)k + (double)k * (double)k +
                  (double)w->n);
}

ld_sys_accel_ws *ld_sys_accel_ws_new(const ld_system *s, char *msg, size_t cap) {
    if (msg && cap) msg[0] = '\0';
    size_t k = (size_t)s->k, m = (size_t)s->m, n = k + m;
    ld_sys_accel_ws *w = ld_xcalloc(1, sizeof *w, "the initial accelerations");
    if (!w) return oom(msg, cap, (double)sizeof *w, "the initial accelerations"), NULL;
    w->n = n;
    w->nmb = ld_sys_mass_block_entries(s);
    w->nb = (size_t)(s->bnnz > 0 ? s->bnnz : 0);
    w->nnz = w->nmb + 2 * w->nb;
    w->sparse = ld_sys_has_sparse(s) && ld_la_choose_rows((int)n, s->m, w->nnz) == LD_LA_KLU;
    double cnt = w->sparse ? (double)(w->nnz + w->nmb + w->nb + 1)
                           : (double)n * (double)n + (double)m * (double)k + (double)k * (double)k;
    int ok = cnt * sizeof(double) < (double)SIZE_MAX;
    ok = ok && (w->b = ld_xmalloc(n * sizeof(double), "the saddle-point solve"));
    ok = ok && (w->x = ld_xcalloc((size_t)cnt, sizeof(double), "the saddle-point matrix"));
    ok = ok && (!w->sparse ||
                (w->p = ld_xmalloc((2 * n + 1 + w->nnz) * sizeof(int), "the saddle-point matrix")));
    ok = ok && (w->la = ld_la_create(w->sparse ? LD_LA_KLU : LD_LA_DENSE, (int)n));
    if (ok) return w;
    char what[96];
    snprintf(what, sizeof what, "the %s matrix of the initial accelerations (k = %zu, m = %zu)",
             w->sparse ? "sparse" : "dense", k, m);
    oom(msg, cap, ws_bytes(w, k, m), what);
    ld_sys_accel_ws_free(w);
    return NULL;
}

/* The sparse path: node blocks of M, B in its pattern, KLU. Memory O(k + m + nnz). */
static int initial_sparse(const ld_system *s, ld_sys_accel_ws *w, double t, const double *q,
                          const double *v, char *msg, size_t cap) {
    size_t n = w->n, nmb = w->nmb, nb = w->nb;
    double *x = w->x, *Mb = x + w->nnz, *Bv = Mb + nmb, *b = w->b;
    int *p = w->p;
    int rc = s->ops.mass_blocks(s, q, Mb);
    if (!rc) rc = finite_or(Mb, nmb, "mass matrix M(q)", msg, cap);
    if (!rc && nb > 0) rc = s->ops.phi_q_sparse(s, t, q, Bv);
    if (!rc) rc = finite_or(Bv, nb, "constraint Jacobian B(q)", msg, cap);
    if (!rc) rc = saddle_rhs(s, t, q, v, b, msg, cap);
    if (!rc) {
        int *ri = p + 2 * n + 1; /* p: colptr (n + 1) | next (n) | rowind (nnz) */
        saddle_csc(s, Mb, Bv, p, ri, x, p + n + 1);
        rc = saddle_solve(w->la, NULL, p, ri, x, b, msg, cap);
    }
    return rc;
}

/* The dense path: [M Bᵀ; B 0] as one (k + m)² array. */
static int initial_dense(const ld_system *s, ld_sys_accel_ws *w, double t, const double *q,
                         const double *v, char *msg, size_t cap) {
    int m = s->m, rc;
    size_t N = w->n, K = (size_t)s->k;
    double *A = w->x, *B = A + N * N, *M = B + (size_t)m * K, *b = w->b;
    rc = s->ops.mass(s, q, M);
    if (!rc) rc = finite_or(M, K * K, "mass matrix M(q)", msg, cap);
    if (!rc && m > 0) rc = s->ops.phi_q(s, t, q, B);
    if (!rc) rc = finite_or(B, (size_t)m * K, "constraint Jacobian B(q)", msg, cap);
    if (!rc) rc = saddle_rhs(s, t, q, v, b, msg, cap);
    if (!rc) {
        for (size_t i = 0; i < K; ++i) {
            memcpy(A + i * N, M + i * K, K * sizeof(double));
            for (size_t j = 0; j < (size_t)m; ++j)
                A[i * N + K + j] = A[(K + j) * N + i] = B[j * K + i];
        }
        for (size_t i = K; i < N; ++i)
            for (size_t j = K; j < N; ++j) A[i * N + j] = 0.0;
        rc = saddle_solve(w->la, A, NULL, NULL, NULL, b, msg, cap);
    }
    return rc;
}

/* The arguments a solve needs. */
static int accel_args_ok(const ld_system *s, const double *q, const double *v, const double *vdot,
                         const double *lambda) {
    return s && q && v && vdot && (s->m == 0 || lambda) && s->ops.mass && s->ops.force &&
           (s->m == 0 || s->ops.phi_q) && s->k >= 1 && s->m >= 0;
}

int ld_sys_initial_accel_ws(const ld_system *s, ld_sys_accel_ws *w, double t, const double *q,
                            const double *v, double *vdot, double *lambda, char *msg, size_t cap) {
    if (msg && cap) msg[0] = '\0';
    if (!w || !accel_args_ok(s, q, v, vdot, lambda) || w->n != (size_t)s->k + (size_t)s->m) {
        if (msg && cap) snprintf(msg, cap, "invalid arguments to the initial accelerations");
        return LD_EINVAL;
    }
    size_t k = (size_t)s->k, m = (size_t)s->m;
    int rc = w->sparse ? initial_sparse(s, w, t, q, v, msg, cap)
                       : initial_dense(s, w, t, q, v, msg, cap);
    if (!rc) rc = finite_or(w->b, k, "initial acceleration", msg, cap);
    if (!rc) rc = finite_or(w->b + k, m, "initial multiplier", msg, cap);
    if (!rc) {
        memcpy(vdot, w->b, k * sizeof(double));
        if (m > 0) memcpy(lambda, w->b + k, m * sizeof(double));
    } else if (rc > 0 && msg && cap && !msg[0]) {
        snprintf(msg, cap, "the model refused the initial state (status %d)", rc);
    }
    return rc;
}

int ld_sys_initial_accel_msg(const ld_system *s, double t, const double *q, const double *v,
                             double *vdot, double *lambda, char *msg, size_t cap) {
    if (msg && cap) msg[0] = '\0';
    if (!accel_args_ok(s, q, v, vdot, lambda)) {
        if (msg && cap) snprintf(msg, cap, "invalid arguments to the initial accelerations");
        return LD_EINVAL;
    }
    ld_sys_accel_ws *w = ld_sys_accel_ws_new(s, msg, cap);
    if (!w) return LD_ENOMEM;
    int rc = ld_sys_initial_accel_ws(s, w, t, q, v, vdot, lambda, msg, cap);
    ld_sys_accel_ws_free(w);
    return rc;
}

int ld_sys_initial_accel(const ld_system *s, double t, const double *q, const double *v,
                         double *vdot, double *lambda) {
    return ld_sys_initial_accel_msg(s, t, q, v, vdot, lambda, NULL, 0);
}

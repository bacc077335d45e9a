/*
 * The half-explicit Runge–Kutta Lie-group methods hem1 … hem5 (integrator.h, docs/hem.md):
 * stage loop, the stage solves (dense, or sparse with a fixed pattern), the embedded error
 * estimate and the optional projection. Everything is sized in hem_create.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"
#include "nodes.h"

struct ld_hem {
    const ld_hem_table *tb;
    int sparse;                  /* saddle matrices in CSC from mass_blocks and phi_q_sparse */
    int blocks;                  /* M by node blocks (explicit stage by block solves) */
    double *thd, *vdd, *lams;    /* s̄ × k, s̄ × k, s̄ × m: Θ̇_j, V̇_j, Λ_j */
    double *th, *vi, *thn, *w;   /* k: Θ_i, V_i, Θ_{i+1}, the known part of V_{i+1} */
    double *g, *rhs;             /* k, k + m */
    double *thsol, *vsol, *lsol; /* the result: Θ_{s+1}, V_{s+1}, λ_{n+1} */
    double *qi, *qnx, *qsol;     /* nq: Q_i, Q_{i+1}, Q_{s+1} */
    double *phit, *pp, *pm;      /* m */
    double *Bi, *Bn;             /* B(Q_i), B(Q_{i+1}): m×k dense or bnnz sparse */
    double *Mb;                  /* node blocks of M */
    int *mboff;                  /* per node: offset of its block in Mb */
    ld_la *lm;                   /* dense M for the explicit stage when there are no blocks */
    int *colptr, *rowind, *posB, *posBt, *posD;
    double *vals;
};

static int node_dim(const ld_system *s, int nd) {
    return ld_node_nv(&s->nodes[nd]);
}

/* ------------------------------------------------------------------ creation */

/* The CSC pattern of [M Bᵀ; B D] (D the diagonal of the constraint block) with M block
 * diagonal by node: columns of a node hold its block's rows, then the B rows that touch the
 * column; a constraint column holds the entries of its B row, then its diagonal. */
static int sparse_pattern(const ld_system *s, struct ld_hem *H) {
    int k = s->k, m = s->m, n = k + m, nb = s->bnnz;
    for (int e = 0; e < nb; ++e) {
        int bad = s->brow[e] < 0 || s->brow[e] >= m || s->bcol[e] < 0 || s->bcol[e] >= k;
        if (!bad && e > 0)
            bad = s->brow[e] < s->brow[e - 1] ||
                  (s->brow[e] == s->brow[e - 1] && s->bcol[e] <= s->bcol[e - 1]);
        if (bad) return LD_EINVAL;
    }
    int *next = calloc((size_t)n + 1, sizeof(int));
    if (!next) return LD_ENOMEM;
    for (int nd = 0; nd < s->nnodes; ++nd)
        for (int j = 0; j < node_dim(s, nd); ++j) next[s->nodes[nd].voff + j] = node_dim(s, nd);
    for (int e = 0; e < nb; ++e) next[s->bcol[e]]++, next[k + s->brow[e]]++;
    for (int r = 0; r < m; ++r) next[k + r]++;
    H->colptr[0] = 0;
    for (int j = 0; j < n; ++j) H->colptr[j + 1] = H->colptr[j] + next[j];
    for (int nd = 0; nd < s->nnodes; ++nd) {
        int o = s->nodes[nd].voff, d = node_dim(s, nd);
        for (int j = o; j < o + d; ++j) {
            for (int a = 0; a < d; ++a) H->rowind[H->colptr[j] + a] = o + a;
            next[j] = H->colptr[j] + d;
        }
    }
    for (int r = 0; r < m; ++r) next[k + r] = H->colptr[k + r];
    for (int e = 0; e < nb; ++e) {
        int c = s->bcol[e], r = s->brow[e];
        H->posB[e] = next[c];
        H->rowind[next[c]++] = k + r;
        H->posBt[e] = next[k + r];
        H->rowind[next[k + r]++] = c;
    }
    for (int r = 0; r < m; ++r) {
        H->posD[r] = next[k + r];
        H->rowind[next[k + r]++] = k + r;
    }
    free(next);
    return LD_OK;
}

/* Carve the work arrays out of one block; sizes only when out is NULL. */
static size_t carve(const ld_system *s, struct ld_hem *H, double *p) {
    size_t k = (size_t)s->k, m = (size_t)s->m, nq = (size_t)s->nq, sb = (size_t)H->tb->sbar;
    size_t nbm = H->sparse ? (size_t)s->bnnz : m * k, nmb = 0;
    for (int nd = 0; nd < s->nnodes; ++nd) nmb += (size_t)node_dim(s, nd) * (size_t)node_dim(s, nd);
    if (!H->blocks) nmb = 0;
    double *p0 = p;
    double **vk[] = {&H->th, &H->vi, &H->thn, &H->w, &H->g, &H->thsol, &H->vsol};
    size_t total = 2 * sb * k + sb * m + 7 * k + (k + m) + m + 3 * nq + 3 * m + 2 * nbm + nmb;
    if (!p) return total;
    H->thd = p, p += sb * k;
    H->vdd = p, p += sb * k;
    H->lams = p, p += sb * m;
    for (size_t i = 0; i < sizeof vk / sizeof vk[0]; ++i) *vk[i] = p, p += k;
    H->rhs = p, p += k + m;
    H->lsol = p, p += m;
    H->qi = p, p += nq;
    H->qnx = p, p += nq;
    H->qsol = p, p += nq;
    H->phit = p, p += m;
    H->pp = p, p += m;
    H->pm = p, p += m;
    H->Bi = p, p += nbm;
    H->Bn = p, p += nbm;
    H->Mb = p, p += nmb;
    return (size_t)(p - p0);
}

/* The method runs on the sparse path: KLU with mass_blocks and phi_q_sparse, no k×k matrix. */
static int hem_uses_sparse(const ld_system *s, const ld_integ_options *o) {
    return o->la == LD_LA_KLU && s->ops.mass_blocks && s->ops.phi_q_sparse &&
           (s->m == 0 || (s->bnnz >= 0 && (s->bnnz == 0 || (s->brow && s->bcol))));
}

static int hem_create(ld_integ *it) {
    const ld_system *s = it->s;
    struct ld_hem *H = calloc(1, sizeof *H);
    if (!H) return LD_ENOMEM;
    it->priv = H;
    H->tb = ld_hem__table(it->meth->variant);
    H->sparse = hem_uses_sparse(s, &it->o);
    H->blocks = H->sparse; /* the dense path keeps M dense (it->M) */
    size_t nw = carve(s, H, NULL);
    double *p = malloc(nw * sizeof(double));
    H->mboff = malloc(((size_t)s->nnodes + 1) * sizeof(int));
    if (!p || !H->mboff) {
        free(p);
        it->oom_bytes = (double)(nw * sizeof(double));
        return LD_ENOMEM;
    }
    (void)carve(s, H, p);
    int off = 0;
    for (int nd = 0; nd < s->nnodes; ++nd)
        H->mboff[nd] = off, off += node_dim(s, nd) * node_dim(s, nd);
    H->mboff[s->nnodes] = off;
    if (!H->blocks) {
        H->lm = ld_la_create(LD_LA_DENSE, s->k);
        it->oom_bytes = 8.0 * s->k * (double)s->k;
        if (!H->lm) return LD_ENOMEM;
    }
    if (!H->sparse) return LD_OK;
    size_t n = (size_t)it->n, nb = (size_t)s->bnnz, nnz = (size_t)off + 2 * nb + (size_t)s->m;
    H->colptr = malloc((n + 1) * sizeof(int));
    H->rowind = malloc(nnz * sizeof(int));
    H->vals = malloc(nnz * sizeof(double));
    H->posB = malloc((nb ? nb : 1) * sizeof(int));
    H->posBt = malloc((nb ? nb : 1) * sizeof(int));
    H->posD = malloc(((size_t)s->m + 1) * sizeof(int));
    it->oom_bytes = (double)((n + 1 + 3 * nb + (size_t)s->m + nnz) * sizeof(int) + nnz * 8);
    if (!H->colptr || !H->rowind || !H->vals || !H->posB || !H->posBt || !H->posD) return LD_ENOMEM;
    return sparse_pattern(s, H);
}

static void hem_destroy(ld_integ *it) {
    struct ld_hem *H = it->priv;
    if (!H) return;
    free(H->thd);
    free(H->mboff);
    ld_la_free(H->lm);
    free(H->colptr);
    free(H->rowind);
    free(H->vals);
    free(H->posB);
    free(H->posBt);
    free(H->posD);
    free(H);
    it->priv = NULL;
}

/* ------------------------------------------------------------------ evaluations */

static int eval_mass(ld_integ *it, const double *q) {
    const ld_system *s = it->s;
    return ((struct ld_hem *)it->priv)->blocks
               ? s->ops.mass_blocks(s, q, ((struct ld_hem *)it->priv)->Mb)
               : s->ops.mass(s, q, it->M);
}

static int eval_B(ld_integ *it, double t, const double *q, double *B) {
    const ld_system *s = it->s;
    if (s->m == 0) return LD_OK;
    return ((struct ld_hem *)it->priv)->sparse ? s->ops.phi_q_sparse(s, t, q, B)
                                               : s->ops.phi_q(s, t, q, B);
}

/* y = B x (m) for B in the form the method keeps it. */
static void B_mul(const ld_integ *it, const double *B, const double *x, double *y) {
    const ld_system *s = it->s;
    memset(y, 0, (size_t)s->m * sizeof(double));
    if (((struct ld_hem *)it->priv)->sparse) {
        for (int e = 0; e < s->bnnz; ++e) y[s->brow[e]] += B[e] * x[s->bcol[e]];
        return;
    }
    for (size_t r = 0; r < (size_t)s->m; ++r)
        for (size_t j = 0; j < (size_t)s->k; ++j) y[r] += B[r * (size_t)s->k + j] * x[j];
}

/* y −= Bᵀ l (k). */
static void Bt_mul_sub(const ld_integ *it, const double *B, const double *l, double *y) {
    const ld_system *s = it->s;
    if (((struct ld_hem *)it->priv)->sparse) {
        for (int e = 0; e < s->bnnz; ++e) y[s->bcol[e]] -= B[e] * l[s->brow[e]];
        return;
    }
    for (size_t r = 0; r < (size_t)s->m; ++r)
        for (size_t j = 0; j < (size_t)s->k; ++j) y[j] -= B[r * (size_t)s->k + j] * l[r];
}

/* Φ_t at (t, q) into phit: the system's, or a central difference in t. */
static int eval_phi_t(ld_integ *it, double t, const double *q) {
    const ld_system *s = it->s;
    struct ld_hem *H = it->priv;
    if (s->m == 0) return LD_OK;
    if (s->ops.phi_t) return s->ops.phi_t(s, t, q, H->phit);
    double dt = 1e-6 * (1.0 + fabs(t));
    int rc = s->ops.phi(s, t + dt, q, H->pp);
    if (!rc) rc = s->ops.phi(s, t - dt, q, H->pm);
    for (int r = 0; !rc && r < s->m; ++r) H->phit[r] = (H->pp[r] - H->pm[r]) / (2.0 * dt);
    return rc;
}

/* out = T⁻¹(θ) v node by node (the identity on vector-space nodes). */
static void tangent_inv_apply(const ld_system *s, const double *th, const double *v, double *out) {
    for (int nd = 0; nd < s->nnodes; ++nd) {
        const ld_node *N = &s->nodes[nd];
        int o = N->voff, d = node_dim(s, nd);
        if (ld_node_kind_get(N->kind)->flat) {
            memcpy(out + o, v + o, (size_t)d * sizeof(double));
            continue;
        }
        double Ti[LD_NODE_GROUP_MAX_NV * LD_NODE_GROUP_MAX_NV];
        ld_node_tangent_inv(N, Ti, (size_t)d, th + o);
        for (int r = 0; r < d; ++r) {
            double acc = 0.0;
            for (int c = 0; c < d; ++c) acc += Ti[d * r + c] * v[o + c];
            out[o + r] = acc;
        }
    }
}

/* ------------------------------------------------------------------ solves */

/* x ← A⁻¹ x for a small d×d block by elimination with partial pivoting. */
static int solve_small(int d, const double *A0, double *x) {
    double A[49];
    memcpy(A, A0, (size_t)(d * d) * sizeof(double));
    double amax = 0.0;
    for (int i = 0; i < d * d; ++i) amax = fmax(amax, fabs(A[i]));
    for (int c = 0; c < d; ++c) {
        int p = c;
        for (int r = c + 1; r < d; ++r)
            if (fabs(A[r * d + c]) > fabs(A[p * d + c])) p = r;
        if (!(fabs(A[p * d + c]) > (double)d * DBL_EPSILON * amax)) return LD_ESINGULAR;
        if (p != c) {
            for (int j = 0; j < d; ++j) {
                double t = A[c * d + j];
                A[c * d + j] = A[p * d + j], A[p * d + j] = t;
            }
            double t = x[c];
            x[c] = x[p], x[p] = t;
        }
        for (int r = c + 1; r < d; ++r) {
            double f = A[r * d + c] / A[c * d + c];
            for (int j = c; j < d; ++j) A[r * d + j] -= f * A[c * d + j];
            x[r] -= f * x[c];
        }
    }
    for (int r = d - 1; r >= 0; --r) {
        for (int j = r + 1; j < d; ++j) x[r] -= A[r * d + j] * x[j];
        x[r] /= A[r * d + r];
    }
    return LD_OK;
}

/* x ← M⁻¹ x (k) with M as evaluated last. */
static int mass_solve(ld_integ *it, double *x) {
    const ld_system *s = it->s;
    struct ld_hem *H = it->priv;
    if (ld_integ__small(it)) { /* M (checked finite by the stage) factored in it->lu */
        int k = s->k;
        double amax = 0.0;
        for (int i = 0; i < k * k; ++i) {
            it->lu[i] = it->M[i];
            amax = fabs(it->M[i]) > amax ? fabs(it->M[i]) : amax;
        }
        if (!(amax <= DBL_MAX)) return LD_EINVAL;
        int rc = ld_small_lu(it->lu, it->piv, k, amax);
        if (!rc) ld_small_solve(it->lu, it->piv, k, x);
        return rc;
    }
    if (!H->blocks) {
        int rc = ld_la_factor_dense(H->lm, it->M);
        return rc ? rc : ld_la_solve(H->lm, x);
    }
    for (int nd = 0; nd < s->nnodes; ++nd) {
        if (node_dim(s, nd) > 7) return LD_EINVAL;
        int rc = solve_small(node_dim(s, nd), H->Mb + H->mboff[nd], x + s->nodes[nd].voff);
        if (rc) return rc;
    }
    return LD_OK;
}

/* saddle_solve on the small path (integ_small.c): the matrix formed straight into the
 * integrator's LU buffer (M, Bi, Bn were checked finite by the stage), factored and solved
 * there with the fixed-size code. */
static int small_saddle(ld_integ *it, const double *Bi, const double *Bn, double *rhs) {
    const int k = it->k, m = it->m, n = it->n;
    double *restrict a = it->lu;
    uint64_t top = 0; /* the largest ld_small_abs_bits: max |a_ij| and finiteness at once */
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) {
            double v = it->M[i * k + j];
            uint64_t b = ld_small_abs_bits(a[i * n + j] = v);
            top = b > top ? b : top;
        }
        for (int r = 0; r < m; ++r) {
            double v = Bi[r * k + i];
            uint64_t b = ld_small_abs_bits(a[i * n + k + r] = v);
            top = b > top ? b : top;
        }
    }
    for (int r = 0; r < m; ++r) {
        for (int j = 0; j < k; ++j) {
            double v = Bn[r * k + j];
            uint64_t b = ld_small_abs_bits(a[(k + r) * n + j] = v);
            top = b > top ? b : top;
        }
        for (int j = 0; j < m; ++j) a[(k + r) * n + k + j] = 0.0;
    }
    if (top >= LD_SMALL_INF_BITS) return LD_EINVAL; /* as ld_la_factor_dense reports it */
    double amax;
    memcpy(&amax, &top, sizeof amax);
    int rc = ld_small_lu(a, it->piv, n, amax);
    if (!rc) ld_small_solve(a, it->piv, n, rhs);
    return rc;
}

/* Solve [M Biᵀ; Bn 0] x = rhs in place (rhs of k + m entries) with M, Bi, Bn as evaluated. */
static int saddle_solve(ld_integ *it, const double *Bi, const double *Bn, double *rhs) {
    const ld_system *s = it->s;
    struct ld_hem *H = it->priv;
    size_t k = (size_t)s->k, m = (size_t)s->m, n = k + m;
    it->st.factorizations++;
    if (H->sparse) {
        for (int nd = 0; nd < s->nnodes; ++nd) {
            int o = s->nodes[nd].voff, d = node_dim(s, nd);
            const double *Mb = H->Mb + H->mboff[nd];
            for (int a = 0; a < d; ++a)
                for (int b = 0; b < d; ++b) H->vals[H->colptr[o + b] + a] = Mb[a * d + b];
        }
        for (int e = 0; e < s->bnnz; ++e) H->vals[H->posB[e]] = Bn[e], H->vals[H->posBt[e]] = Bi[e];
        for (size_t r = 0; r < m; ++r) H->vals[H->posD[r]] = 0.0;
        int rc = ld_la_factor_csc(it->la, H->colptr, H->rowind, H->vals);
        return rc ? rc : ld_la_solve(it->la, rhs);
    }
    if (ld_integ__small(it)) return small_saddle(it, Bi, Bn, rhs);
    for (size_t i = 0; i < k; ++i) {
        double *Si = it->S + i * n;
        memcpy(Si, it->M + i * k, k * sizeof(double));
        for (size_t r = 0; r < m; ++r) Si[k + r] = Bi[r * k + i];
    }
    for (size_t r = 0; r < m; ++r) {
        memcpy(it->S + (k + r) * n, Bn + r * k, k * sizeof(double));
        memset(it->S + (k + r) * n + k, 0, m * sizeof(double));
    }
    int rc = ld_la_factor_dense(it->la, it->S);
    return rc ? rc : ld_la_solve(it->la, rhs);
}

/* ------------------------------------------------------------------ stages */

/* The evaluations at Q_i finite: g, M and B(Q_i) (in H->Bi); else LD_EDOMAIN naming them. */
static int inputs_finite(ld_integ *it) {
    const ld_system *s = it->s;
    struct ld_hem *H = it->priv;
    size_t k = (size_t)s->k, m = (size_t)s->m, nb = H->sparse ? (size_t)s->bnnz : m * k;
    if (ld_integ__small(it) && ld_small_finite(H->g, (int)k) &&
        ld_small_finite(it->M, (int)(k * k)) && ld_small_finite(H->Bi, (int)nb))
        return LD_OK; /* the scan below only to name the culprit */
    int rc = ld_integ__finite(it, H->g, k, "non-finite force g");
    if (!rc && H->blocks)
        rc = ld_integ__finite(it, H->Mb, (size_t)H->mboff[s->nnodes], "non-finite mass matrix");
    if (!rc && !H->blocks) rc = ld_integ__finite(it, it->M, k * k, "non-finite mass matrix");
    if (!rc && m > 0) rc = ld_integ__finite(it, H->Bi, nb, "non-finite constraint Jacobian");
    return rc;
}

/* The results of stage i finite: V̇_i, Λ_i, V_{i+1}, Θ_{i+1}, Q_{i+1}. */
static int results_finite(ld_integ *it, const double *vdd, const double *lam) {
    struct ld_hem *H = it->priv;
    size_t k = (size_t)it->k;
    if (ld_integ__small(it) && ld_small_finite(vdd, (int)k) && ld_small_finite(lam, it->m) &&
        ld_small_finite(H->vi, (int)k) && ld_small_finite(H->thn, (int)k) &&
        ld_small_finite(H->qnx, it->s->nq))
        return LD_OK;
    int rc = ld_integ__finite(it, vdd, k, "non-finite stage acceleration");
    if (!rc) rc = ld_integ__finite(it, lam, (size_t)it->m, "non-finite stage multipliers");
    if (!rc) rc = ld_integ__finite(it, H->vi, k, "non-finite stage velocity");
    if (!rc) rc = ld_integ__finite(it, H->thn, k, "non-finite stage increment");
    if (!rc) rc = ld_integ__finite(it, H->qnx, (size_t)it->s->nq, "non-finite stage configuration");
    return rc;
}

/* Stage i (0-based) at (t_i, Q_i = qi, V_i = vi, Θ_i = th): Θ̇_i, then Q_{i+1} and Θ_{i+1}
 * into qnx, thn, and (V̇_i, Λ_i) from the explicit formula or the stage solve; on return
 * vi = V_{i+1}. *bi_ok says whether Bi holds B(Q_i). */
static int stage(ld_integ *it, int i, double h, int *bi_ok) {
    const ld_system *s = it->s;
    struct ld_hem *H = it->priv;
    const ld_hem_table *tb = H->tb;
    size_t k = (size_t)s->k, m = (size_t)s->m;
    const double *row = tb->A + (size_t)(i + 1) * (size_t)tb->sbar;
    double *thd = H->thd + (size_t)i * k, *vdd = H->vdd + (size_t)i * k;
    double *lam = H->lams + (size_t)i * m, t0 = it->t, ti = t0 + tb->c[i] * h;
    tangent_inv_apply(s, H->th, H->vi, thd);
    for (size_t j = 0; j < k; ++j) {
        double a = 0.0, b = 0.0;
        for (int l = 0; l <= i; ++l) a += row[l] * H->thd[(size_t)l * k + j];
        for (int l = 0; l < i; ++l) b += row[l] * H->vdd[(size_t)l * k + j];
        H->thn[j] = h * a;
        H->w[j] = it->v[j] + h * b;
    }
    ld_sys_retract(s, H->qnx, it->q, H->thn);
    int rc = eval_mass(it, H->qi);
    if (!rc) rc = s->ops.force(s, ti, H->qi, H->vi, H->g);
    if (!rc && !*bi_ok) rc = eval_B(it, ti, H->qi, H->Bi);
    if (!rc) rc = inputs_finite(it);
    if (rc) return rc;
    *bi_ok = 1;
    if (i == 0 && tb->explicit_first) {
        for (size_t j = 0; j < k; ++j) vdd[j] = -H->g[j];
        Bt_mul_sub(it, H->Bi, it->lam, vdd);
        memcpy(lam, it->lam, m * sizeof(double));
        rc = mass_solve(it, vdd);
        *bi_ok = 0;
    } else {
        double ha = h * row[i], t1 = t0 + tb->c[i + 1] * h;
        rc = eval_B(it, t1, H->qnx, H->Bn);
        if (!rc) rc = eval_phi_t(it, t1, H->qnx);
        if (!rc && m > 0)
            rc = ld_integ__finite(it, H->Bn, H->sparse ? (size_t)s->bnnz : m * k,
                                  "non-finite constraint Jacobian");
        if (!rc) rc = ld_integ__finite(it, H->phit, m, "non-finite constraint time derivative");
        if (rc) return rc;
        for (size_t j = 0; j < k; ++j) H->rhs[j] = -H->g[j];
        B_mul(it, H->Bn, H->w, H->rhs + k);
        for (size_t r = 0; r < m; ++r) H->rhs[k + r] = -(H->rhs[k + r] + H->phit[r]) / ha;
        rc = saddle_solve(it, H->Bi, H->Bn, H->rhs);
        memcpy(vdd, H->rhs, k * sizeof(double));
        memcpy(lam, H->rhs + k, m * sizeof(double));
        double *tmp = H->Bi;
        H->Bi = H->Bn, H->Bn = tmp; /* B(Q_{i+1}) serves stage i + 1 */
    }
    if (rc) return rc;
    for (size_t j = 0; j < k; ++j) H->vi[j] = H->w[j] + h * row[i] * vdd[j];
    rc = results_finite(it, vdd, lam);
    if (rc) return rc;
    memcpy(H->th, H->thn, k * sizeof(double));
    memcpy(H->qi, H->qnx, (size_t)s->nq * sizeof(double));
    return LD_OK;
}

/* The embedded estimate (Tumiotto & Arnold 2024, eq. 21) over y = (Θ, V): the result against the
 * embedded weights, weights atol + rtol·|Θ| and atol + rtol·max(|v_n|, |v_{n+1}|). */
static double estimate(const ld_integ *it, double h) {
    const struct ld_hem *H = it->priv;
    const ld_hem_table *tb = H->tb;
    size_t k = (size_t)it->k;
    double sum = 0.0, at = it->o.error_atol, rt = it->o.error_rtol;
    for (size_t j = 0; j < k; ++j) {
        double a = 0.0, b = 0.0;
        for (int l = 0; l < tb->sbar; ++l) {
            a += tb->bhat[l] * H->thd[(size_t)l * k + j];
            b += tb->bhat[l] * H->vdd[(size_t)l * k + j];
        }
        double eq = H->thsol[j] - h * a, ev = H->vsol[j] - (it->v[j] + h * b);
        double wq = at + rt * fabs(H->thsol[j]);
        double wv = at + rt * fmax(fabs(it->v[j]), fabs(H->vsol[j]));
        sum += (eq / wq) * (eq / wq) + (ev / wv) * (ev / wv);
    }
    return sqrt(sum / (2.0 * (double)k));
}

/* All stages of a step of size h; the result into qsol, vsol, lsol. */
static int stages(ld_integ *it, double h) {
    const ld_system *s = it->s;
    struct ld_hem *H = it->priv;
    const ld_hem_table *tb = H->tb;
    size_t k = (size_t)s->k, m = (size_t)s->m;
    memset(H->th, 0, k * sizeof(double));
    memcpy(H->vi, it->v, k * sizeof(double));
    memcpy(H->qi, it->q, (size_t)s->nq * sizeof(double));
    int bi_ok = 0;
    for (int i = 0; i < tb->sbar; ++i) {
        int rc = stage(it, i, h, &bi_ok);
        if (rc) return rc;
        if (i + 1 == tb->s) {
            memcpy(H->qsol, H->qi, (size_t)s->nq * sizeof(double));
            memcpy(H->thsol, H->th, k * sizeof(double));
            memcpy(H->vsol, H->vi, k * sizeof(double));
        }
    }
    memset(H->lsol, 0, m * sizeof(double));
    for (int l = 0; l < tb->sbar; ++l)
        for (size_t r = 0; r < m; ++r) H->lsol[r] += tb->d[l] * H->lams[(size_t)l * m + r];
    int rc = ld_integ__finite(it, H->vsol, k, "non-finite velocity");
    if (!rc) rc = ld_integ__finite(it, H->thsol, k, "non-finite increment");
    if (!rc) rc = ld_integ__finite(it, H->qsol, (size_t)s->nq, "non-finite configuration");
    if (!rc) rc = ld_integ__finite(it, H->lsol, m, "non-finite multipliers");
    return rc;
}

/* Symmetric projection of (qsol, vsol) at t1 onto Φ = 0 and B v + Φ_t = 0 in the mass metric:
 * [M Bᵀ; B 0] (δ, μ) = (0, −Φ), q ← q ∘ exp(δ), at most 4 times until |Φ| stops decreasing or
 * reaches round-off; then the same with −(B v + Φ_t) for the velocity. */
static int project(ld_integ *it, double t1) {
    const ld_system *s = it->s;
    struct ld_hem *H = it->priv;
    size_t k = (size_t)s->k, m = (size_t)s->m;
    if (m == 0) return LD_OK;
    double prev = INFINITY, qmax = 0.0;
    for (int j = 0; j < s->nq; ++j) qmax = fmax(qmax, fabs(H->qsol[j]));
    for (int iter = 0; iter < 4; ++iter) {
        int rc = s->ops.phi(s, t1, H->qsol, H->rhs + k);
        if (rc) return rc;
        double pmax = 0.0;
        for (size_t r = 0; r < m; ++r) pmax = fmax(pmax, fabs(H->rhs[k + r]));
        if (pmax <= 4.0 * DBL_EPSILON * (1.0 + qmax) || !(pmax < 0.5 * prev)) break;
        prev = pmax;
        rc = eval_mass(it, H->qsol);
        if (!rc) rc = eval_B(it, t1, H->qsol, H->Bi);
        if (rc) return rc;
        memset(H->rhs, 0, k * sizeof(double));
        for (size_t r = 0; r < m; ++r) H->rhs[k + r] = -H->rhs[k + r];
        rc = saddle_solve(it, H->Bi, H->Bi, H->rhs);
        if (rc) return rc;
        memcpy(H->qnx, H->qsol, (size_t)s->nq * sizeof(double));
        ld_sys_retract(s, H->qsol, H->qnx, H->rhs);
    }
    int rc = eval_mass(it, H->qsol);
    if (!rc) rc = eval_B(it, t1, H->qsol, H->Bi);
    if (!rc) rc = eval_phi_t(it, t1, H->qsol);
    if (rc) return rc;
    memset(H->rhs, 0, k * sizeof(double));
    B_mul(it, H->Bi, H->vsol, H->rhs + k);
    for (size_t r = 0; r < m; ++r) H->rhs[k + r] = -(H->rhs[k + r] + H->phit[r]);
    rc = saddle_solve(it, H->Bi, H->Bi, H->rhs);
    for (size_t j = 0; !rc && j < k; ++j) H->vsol[j] += H->rhs[j];
    return rc;
}

static int hem_step(ld_integ *it, double t1) {
    struct ld_hem *H = it->priv;
    const ld_hem_table *tb = H->tb;
    double h = t1 - it->t;
    int rc = stages(it, h);
    if (rc == LD_OK && tb->bhat) it->last_err = estimate(it, h);
    if (rc == LD_OK && it->o.adaptive && !(it->last_err <= 1.0)) {
        char why[64];
        snprintf(why, sizeof why, "error estimate %.3g above 1", it->last_err);
        return ld_integ__reject(it, LD_RETRY_ERROR_TEST, why, h);
    }
    if (rc == LD_OK && it->o.project) rc = project(it, t1);
    if (rc == LD_ESINGULAR)
        return ld_integ__reject(it, LD_RETRY_SINGULAR, "singular stage matrix", h);
    if (rc == LD_OK && it->o.project) {
        size_t k = (size_t)it->k;
        rc = ld_integ__finite(it, H->vsol, k, "non-finite projected velocity");
        if (!rc)
            rc = ld_integ__finite(it, H->qsol, (size_t)it->s->nq,
                                  "non-finite projected configuration");
    }
    if (rc == LD_EDOMAIN)
        return ld_integ__reject(it, LD_RETRY_NONFINITE,
                                it->why ? it->why : "non-finite stage value", h);
    if (rc > 0) return ld_integ__reject(it, LD_RETRY, "the model asked for a smaller step", h);
    if (rc) return rc;
    size_t k = (size_t)it->k;
    memcpy(it->q, H->qsol, (size_t)it->s->nq * sizeof(double));
    memcpy(it->v, H->vsol, k * sizeof(double));
    memcpy(it->lam, H->lsol, (size_t)it->m * sizeof(double));
    memcpy(it->vd, H->vdd + (size_t)(tb->sbar - 1) * k, k * sizeof(double));
    return LD_OK;
}

/* Consistent v̇, λ at the current state by the stage solver (sparse path; the dense path uses
 * the system's ld_sys_initial_accel_msg). */
static int hem_initial(ld_integ *it, char *why, size_t cap) {
    const ld_system *s = it->s;
    if (!((struct ld_hem *)it->priv)->sparse) return ld_integ__initial_accel(it, why, cap);
    struct ld_hem *H = it->priv;
    size_t k = (size_t)s->k, m = (size_t)s->m;
    int rc = eval_mass(it, it->q);
    if (!rc) rc = s->ops.force(s, it->t, it->q, it->v, H->rhs);
    if (!rc) rc = eval_B(it, it->t, it->q, H->Bi);
    if (!rc && m > 0) rc = ld_sys_phi_dd(s, it->t, it->q, it->v, H->rhs + k);
    if (!rc) rc = ld_integ__finite(it, H->rhs, k, "non-finite generalized force g(t, q, v)");
    if (!rc) rc = ld_integ__finite(it, H->rhs + k, m, "non-finite constraint acceleration term z");
    if (!rc && H->blocks)
        rc = ld_integ__finite(it, H->Mb, (size_t)H->mboff[s->nnodes], "non-finite mass matrix");
    if (!rc && m > 0)
        rc = ld_integ__finite(it, H->Bi, H->sparse ? (size_t)s->bnnz : m * k,
                              "non-finite constraint Jacobian");
    if (rc) return rc;
    for (size_t j = 0; j < k + m; ++j) H->rhs[j] = -H->rhs[j];
    rc = m > 0 ? saddle_solve(it, H->Bi, H->Bi, H->rhs) : mass_solve(it, H->rhs);
    if (!rc) rc = ld_integ__finite(it, H->rhs, k + m, "non-finite initial acceleration");
    if (rc) return rc;
    memcpy(it->vd, H->rhs, k * sizeof(double));
    memcpy(it->lam, H->rhs + k, m * sizeof(double));
    return LD_OK;
}

const ld_hem_table *ld_hem_table_of(ld_integ_method m) {
    const ld_method_impl *d = ld_integ__method((int)m);
    return d && d->step == hem_step ? ld_hem__table(d->variant) : NULL;
}

#define HEM_REFUSES                                                                                \
    "the half-explicit methods need a Lie-group formulation (the euler formulation's mass "        \
    "matrix is singular)"

/* The descriptor of the half-explicit method of table i, order p, estimate of order pe. */
#define HEM_METHOD(i, nm, p, pe, ttl)                                                              \
    {                                                                                              \
        .info = {.name = nm,                                                                       \
                 .title = ttl,                                                                     \
                 .order = p,                                                                       \
                 .order_estimate = pe,                                                             \
                 .constraints = 1,                                                                 \
                 .euler = 0,                                                                       \
                 .refuses = HEM_REFUSES},                                                          \
        .variant = i, .sparse_only = hem_uses_sparse, .create = hem_create,                        \
        .destroy = hem_destroy, .initial = hem_initial, .step = hem_step                           \
    }

const ld_method_impl ld_method_hem1 =
    HEM_METHOD(0, "hem1", 1, 0, "half-explicit Euler on the Lie group (Brasey & Hairer 1993)");
const ld_method_impl ld_method_hem2 =
    HEM_METHOD(1, "hem2", 2, 1, "half-explicit Heun, explicit first stage, embedded Euler");
const ld_method_impl ld_method_hem3 =
    HEM_METHOD(2, "hem3", 3, 0, "half-explicit order 3, explicit first stage (Murua 1997)");
const ld_method_impl ld_method_hem4 =
    HEM_METHOD(3, "hem4", 4, 0, "half-explicit order 4, one extra stage (Arnold 1998)");
const ld_method_impl ld_method_hem5 = HEM_METHOD(
    4, "hem5", 5, 4, "half-explicit Dormand-Prince 5(4) Lie-group method with one extra stage");

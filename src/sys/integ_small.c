/*
 * The small-system path of the integrators (integ_impl.h): for k + m ≤ LD_SMALL_N unknowns on
 * the dense solver, the iteration and stage matrices are factored in place in the integrator's
 * own fixed buffer by an LU with partial pivoting whose size is a compile-time constant (one
 * specialization per n, so the loops unroll), without the copy, the finiteness scan and the
 * generic dispatch of ld_la; the Newton assembly fills the matrix in one pass with each node's
 * tangent block held locally (for the direct products only its rotation block: T = diag(T_rot,
 * I)). Same arithmetic as the generic path (the same pivoting, the same order of the sums, less
 * the products with T's zeros and ones), so the results agree with it to round-off
 * (tests/test_small.c).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "integ_impl.h"
#include "liedyn/liedyn.h"
#include "nodes.h"

/* Two doubles as one value (GCC's generic vectors: SIMD where the target has it, scalar code
 * elsewhere; no instruction set is named), loaded and stored at any alignment. The lanes
 * compute exactly what two scalar statements would. */
typedef double v2d __attribute__((vector_size(2 * sizeof(double))));
static inline v2d v2_load(const double *p) {
    v2d v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void v2_store(double *p, v2d v) {
    memcpy(p, &v, sizeof v);
}

/* In place P A = L U of the row-major n×n a (partial pivoting, rows k and piv[k] swapped at
 * step k), then LD_ESINGULAR if a pivot is at most n·eps·amax: the rules of the dense backend
 * of linalg.c. */
static inline __attribute__((always_inline)) int lu_n(double *restrict a, int *restrict piv,
                                                      const int n, double amax) {
#pragma GCC unroll 12
    for (int k = 0; k < n; ++k) {
        double *rk = a + k * n;
        int p = k;
        double best = fabs(rk[k]); /* the first largest |a_ik|, kept in a register */
#pragma GCC unroll 12
        for (int i = k + 1; i < n; ++i) {
            double c = fabs(a[i * n + k]);
            if (c > best) best = c, p = i;
        }
        piv[k] = p;
        if (p != k) {
            double *rp = a + p * n;
            int j = 0;
#pragma GCC unroll 6
            for (; j + 2 <= n; j += 2) {
                v2d t = v2_load(rk + j);
                v2_store(rk + j, v2_load(rp + j));
                v2_store(rp + j, t);
            }
            if (j < n) {
                double t = rk[j];
                rk[j] = rp[j];
                rp[j] = t;
            }
        }
        if (rk[k] == 0.0) continue;
        double inv = 1.0 / rk[k];
#pragma GCC unroll 12
        for (int i = k + 1; i < n; ++i) {
            double *ri = a + i * n, l = ri[k] *= inv;
            if (l == 0.0) continue; /* the row keeps its entries (ri − 0·rk, rk finite) */
            const v2d l2 = {l, l};
            int j = k + 1;
#pragma GCC unroll 6
            for (; j + 2 <= n; j += 2) /* two entries of the row at once */
                v2_store(ri + j, v2_load(ri + j) - l2 * v2_load(rk + j));
            if (j < n) ri[j] -= l * rk[j];
        }
    }
    double tol = (double)n * DBL_EPSILON * amax;
#pragma GCC unroll 12
    for (int k = 0; k < n; ++k)
        if (!(fabs(a[k * n + k]) > tol)) return LD_ESINGULAR;
    return LD_OK;
}

/* b ← A⁻¹ b from the factors of lu_n, column by column as the dense backend's solve (the
 * same operations in the same order). */
static inline __attribute__((always_inline)) void
solve_n(const double *restrict a, const int *restrict piv, const int n, double *restrict b) {
#pragma GCC unroll 12
    for (int k = 0; k < n; ++k) {
        double t = b[k];
        b[k] = b[piv[k]];
        b[piv[k]] = t;
    }
#pragma GCC unroll 12
    for (int j = 0; j < n - 1; ++j) {
        const double bj = b[j];
#pragma GCC unroll 12
        for (int i = j + 1; i < n; ++i) b[i] -= a[i * n + j] * bj;
    }
#pragma GCC unroll 12
    for (int j = n - 1; j >= 0; --j) {
        const double bj = b[j] /= a[j * n + j];
#pragma GCC unroll 12
        for (int i = 0; i < j; ++i) b[i] -= a[i * n + j] * bj;
    }
}

#define LD_SMALL_CASES(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)

int ld_small_lu(double *a, int *piv, int n, double amax) {
    switch (n) {
#define LU_CASE(N)                                                                                 \
    case N:                                                                                        \
        return lu_n(a, piv, N, amax);
        LD_SMALL_CASES(LU_CASE)
#undef LU_CASE
    default:
        return LD_EINVAL;
    }
}

void ld_small_solve(const double *a, const int *piv, int n, double *b) {
    switch (n) {
#define SOLVE_CASE(N)                                                                              \
    case N:                                                                                        \
        solve_n(a, piv, N, b);                                                                     \
        return;
        LD_SMALL_CASES(SOLVE_CASE)
#undef SOLVE_CASE
    default:
        return;
    }
}

/* d = x (n values) and, when they are finite, 1 and *amax = max |x_i|, else 0: |x| by
 * clearing the sign bit, the maximum by the processor's max (its result on a NaN does not
 * matter: the sum of x·0 is NaN for a NaN or an infinity and refuses the matrix). Two
 * entries at a time where the target has SSE2, the same operations one by one elsewhere. */
int ld_small_copy_max(double *restrict d, const double *restrict x, int n, double *amax) {
    double mx = 0.0, z = 0.0;
    int i = 0;
#if defined(__SSE2__)
    const __m128d mag = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
    __m128d m0 = _mm_setzero_pd(), m1 = m0, z0 = m0, z1 = m0;
    for (; i + 4 <= n; i += 4) { /* two independent pairs of lanes */
        __m128d u = _mm_loadu_pd(x + i), w = _mm_loadu_pd(x + i + 2);
        _mm_storeu_pd(d + i, u);
        _mm_storeu_pd(d + i + 2, w);
        m0 = _mm_max_pd(m0, _mm_and_pd(u, mag));
        m1 = _mm_max_pd(m1, _mm_and_pd(w, mag));
        z0 = _mm_add_pd(z0, _mm_mul_pd(u, _mm_setzero_pd()));
        z1 = _mm_add_pd(z1, _mm_mul_pd(w, _mm_setzero_pd()));
    }
    double mm[4], zz[4];
    _mm_storeu_pd(mm, m0);
    _mm_storeu_pd(mm + 2, m1);
    _mm_storeu_pd(zz, _mm_add_pd(z0, z1));
    _mm_storeu_pd(zz + 2, _mm_setzero_pd());
    for (int l = 0; l < 4; ++l) mx = mm[l] > mx ? mm[l] : mx;
    z = zz[0] + zz[1];
#endif
    for (; i < n; ++i) {
        double a = fabs(d[i] = x[i]);
        mx = a > mx ? a : mx;
        z += x[i] * 0.0;
    }
    if (z != 0.0) return 0;
    *amax = mx;
    return 1;
}

int ld_small_finite(const double *x, int n) {
    return ld_zero_sum(x, (size_t)(n > 0 ? n : 0)) == 0.0;
}

/* ------------------------------------------------------------------ the Newton methods */

int ld_integ__small_factor(ld_integ *it) {
    int n = it->n;
    double amax;
    if (!ld_small_copy_max(it->lu, it->S, n * n, &amax)) {
        it->why = "non-finite iteration matrix";
        return LD_EDOMAIN;
    }
    return ld_small_lu(it->lu, it->piv, n, amax);
}

int ld_integ__solve(ld_integ *it, double *b) {
    if (!ld_integ__small(it)) return ld_la_solve(it->la, b);
    ld_small_solve(it->lu, it->piv, it->n, b);
    return LD_OK;
}

/* The columns o … o + d − 1 of S for a node of d velocities with tangent block T (d×d). */
static inline __attribute__((always_inline)) void
node_columns(ld_integ *it, const double *T, int o, const int d, double cm, double cc, double ck) {
    const int k = it->k, m = it->m, n = it->n;
    const double *restrict M = it->M, *restrict C = it->C, *restrict K = it->K, *B = it->B;
    double *restrict S = it->S;
    for (int i = 0; i < k; ++i) {
        const double *Ki = K + i * k + o;
#pragma GCC unroll 6
        for (int j = 0; j < d; ++j) {
            double kt = 0.0;
#pragma GCC unroll 6
            for (int l = 0; l < d; ++l) kt += Ki[l] * T[l * d + j];
            S[i * n + o + j] = cm * M[i * k + o + j] + cc * C[i * k + o + j] + ck * kt;
        }
    }
    for (int c = 0; c < m; ++c) {
        const double *Bc = B + c * k + o;
#pragma GCC unroll 6
        for (int j = 0; j < d; ++j) {
            double bt = 0.0;
#pragma GCC unroll 6
            for (int l = 0; l < d; ++l) bt += Bc[l] * T[l * d + j];
            S[(k + c) * n + o + j] = bt;
        }
    }
}

/* The same for a node of a direct product R³ × SO(3) or S³ × R³ (either frame), whose T(ξ) is
 * diag(T_rot, I) (T: the 3×3 T_rot): K T only in the three rotation columns, the translation
 * columns K itself. */
static inline __attribute__((always_inline)) void
direct_columns(ld_integ *it, const double *T, int o, double cm, double cc, double ck) {
    const int k = it->k, m = it->m, n = it->n;
    const double *restrict M = it->M, *restrict C = it->C, *restrict K = it->K, *B = it->B;
    double *restrict S = it->S;
    double t[9]; /* T_rot in registers (S's stores cannot touch it) */
    memcpy(t, T, sizeof t);
    const v2d cm2 = {cm, cm}, cc2 = {cc, cc}, ck2 = {ck, ck};
    for (int i = 0; i < k; ++i) {
        const double *Ki = K + i * k + o, *Mi = M + i * k + o, *Ci = C + i * k + o;
        double kt[6] = {0.0, 0.0, 0.0, Ki[3], Ki[4], Ki[5]}, *Si = S + i * n + o;
        for (int j = 0; j < 3; ++j) kt[j] = Ki[0] * t[j] + Ki[1] * t[3 + j] + Ki[2] * t[6 + j];
        for (int j = 0; j < 6; j += 2) /* cm M + cc C + ck kt, two entries at once */
            v2_store(Si + j, cm2 * v2_load(Mi + j) + cc2 * v2_load(Ci + j) + ck2 * v2_load(kt + j));
    }
    for (int c = 0; c < m; ++c) {
        const double *Bc = B + c * k + o;
        double *Sc = S + (k + c) * n + o;
        for (int j = 0; j < 3; ++j) Sc[j] = Bc[0] * t[j] + Bc[1] * t[3 + j] + Bc[2] * t[6 + j];
        for (int j = 3; j < 6; ++j) Sc[j] = Bc[j];
    }
}

/* S = [cm M + cc C + ck K T, Bᵀ; B T, 0] (integ_impl.h) in one pass over the rows, each node's
 * T(ξ) block computed into a local array (no k×k T, no dispatch per entry); the sums in the
 * order of the generic assembly. */
int ld_integ__small_assemble(ld_integ *it, double t, double cm, double cc, double ck,
                             const double *a_k) {
    const ld_system *s = it->s;
    int rc = ld_sys_g_v(s, t, it->qn, it->vn, it->C);
    if (!rc) rc = ld_sys_stiffness(s, t, it->qn, it->vn, a_k ? a_k : it->vdn, it->lamn, it->K);
    return rc ? rc : ld_integ__small_fill(it, cm, cc, ck);
}

int ld_integ__small_fill(ld_integ *it, double cm, double cc, double ck) {
    const ld_system *s = it->s;
    const int k = it->k, m = it->m, n = it->n;
    const double *restrict M = it->M, *restrict C = it->C, *restrict K = it->K, *B = it->B;
    double *restrict S = it->S;
    for (int nd = 0; nd < s->nnodes; ++nd) {
        const ld_node *N = &s->nodes[nd];
        const int o = N->voff, d = ld_node_nv(N);
        if (ld_node_kind_get(N->kind)->flat) {
            for (int i = 0; i < k; ++i)
                for (int j = o; j < o + d; ++j)
                    S[i * n + j] = cm * M[i * k + j] + cc * C[i * k + j] + ck * K[i * k + j];
            for (int c = 0; c < m; ++c)
                for (int j = o; j < o + d; ++j) S[(k + c) * n + j] = B[c * k + j];
            continue;
        }
        double T[LD_NODE_GROUP_MAX_NV * LD_NODE_GROUP_MAX_NV];
        if (ld_node_tangent_rotation(N, T, it->xi + o)) { /* T_rot alone */
            direct_columns(it, T, o, cm, cc, ck);
            continue;
        }
        ld_node_tangent(N, T, (size_t)d, it->xi + o);
        if (d == 6)
            node_columns(it, T, o, 6, cm, cc, ck);
        else
            node_columns(it, T, o, d, cm, cc, ck);
    }
    for (int c = 0; c < m; ++c) {
        for (int i = 0; i < k; ++i) S[i * n + k + c] = B[c * k + i];
        for (int j = 0; j < m; ++j) S[(k + c) * n + k + j] = 0.0;
    }
    return LD_OK; /* S's finiteness: the small path's factorization checks its copy, the dense
                   * path's fill (ld_integ__dense_fill) checks S */
}

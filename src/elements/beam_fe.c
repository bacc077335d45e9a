/*
 * The geometrically exact beam element (beam_fe.h): interpolation on Gauss–Lobatto–Legendre
 * nodes, Gauss quadrature, and the elastic energy, force and stiffness with analytic
 * derivatives.
 *
 * At a quadrature point the strain depends on z = (p, b, a) = (p, p_ξ, x_ξ) ∈ R¹¹. With
 * p = (w, v), n = p·p, ψ = 1/(n J):
 *   Γ = ψ S,  S = R_u(p)ᵀ a = (w² − v·v) a + 2 v (v·a) − 2 w (v × a)   (R_u = n R(p/|p|))
 *   K = 2 ψ c,  c = vec(p̄ ⊗ b) = w b_v − b_w v − v × b_v.
 * Dε (6 × 11) and the Hessian contracted with a stress σ = (μ, ν), H = Σ σ_k ∂²ε_k/∂z², are
 * written out below (S and c are quadratic and bilinear; ψ carries the normalization). z is
 * linear in the nodes' raw coordinates (q_i, x_i), so the element's raw gradient and Hessian
 * are sums of N_i, N_i' times those of z; the canonical ones follow with G_i = ∂q_i/∂δθ_i =
 * ½ [−vᵀ; w I + hat(v)] and, on the diagonal, the derivative of G_iᵀ along δθ_i.
 */
#include "beam_fe.h"

#include <math.h>
#include <string.h>

#include "../lie/mat3.h"
#include "liedyn/liedyn.h"

#define LD_BEAM_PI 3.14159265358979323846

/* The element's innermost loops, compiled twice on x86-64 with GCC and glibc: for the baseline
 * ISA and for x86-64-v3 (AVX2), the one the processor supports chosen when the library is loaded
 * (an ifunc). ISO C mode contracts no a·b + c into an FMA, so both give the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__)
#define LD_BEAM_HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define LD_BEAM_HOT
#endif

/* ---------------------------------------------------------------- quadrature and basis */

int ld_beam_gll(int p, double *xi) {
    if (p < 1 || p > LD_BEAM_MAX_ORDER) return LD_EINVAL;
    if (p == 1) {
        xi[0] = -1.0, xi[1] = 1.0;
        return LD_OK;
    }
    /* Newton on x P_p(x) − P_{p−1}(x) = 0 from the Chebyshev–Gauss–Lobatto points; the ends
     * are fixed points of the iteration. */
    for (int i = 0; i <= p; ++i) {
        double x = -cos(LD_BEAM_PI * i / p);
        for (int it = 0; it < 100; ++it) {
            double P0 = 1.0, P1 = x;
            for (int k = 2; k <= p; ++k) {
                double P2 = ((2.0 * k - 1.0) * x * P1 - (k - 1.0) * P0) / k;
                P0 = P1, P1 = P2;
            }
            double dx = (x * P1 - P0) / ((p + 1.0) * P1);
            x -= dx;
            if (fabs(dx) <= 1e-16) break;
        }
        xi[i] = x;
    }
    xi[0] = -1.0, xi[p] = 1.0;
    for (int i = 0; i < (p + 1) / 2; ++i) { /* exact symmetry */
        double m = 0.5 * (xi[p - i] - xi[i]);
        xi[i] = -m, xi[p - i] = m;
    }
    if (p % 2 == 0) xi[p / 2] = 0.0;
    return LD_OK;
}

void ld_beam_gll_weights(int p, const double *xi, double *w) {
    for (int i = 0; i <= p; ++i) {
        double x = xi[i], P0 = 1.0, P1 = x;
        for (int k = 2; k <= p; ++k) {
            double P2 = ((2.0 * k - 1.0) * x * P1 - (k - 1.0) * P0) / k;
            P0 = P1, P1 = P2;
        }
        w[i] = 2.0 / (p * (p + 1.0) * P1 * P1);
    }
}

int ld_beam_gauss(int n, double *xi, double *w) {
    if (n < 1 || n > LD_BEAM_MAX_QP) return LD_EINVAL;
    for (int i = 0; i < n; ++i) {
        double x = -cos(LD_BEAM_PI * (i + 0.75) / (n + 0.5)), dP = 1.0;
        for (int it = 0; it < 100; ++it) {
            double P0 = 1.0, P1 = x;
            for (int k = 2; k <= n; ++k) {
                double P2 = ((2.0 * k - 1.0) * x * P1 - (k - 1.0) * P0) / k;
                P0 = P1, P1 = P2;
            }
            if (n == 1) P0 = 1.0, P1 = x;
            dP = n * (x * P1 - P0) / (x * x - 1.0);
            double dx = P1 / dP;
            x -= dx;
            if (fabs(dx) <= 1e-16) break;
        }
        xi[i] = x;
        w[i] = 2.0 / ((1.0 - x * x) * dP * dP);
    }
    for (int i = 0; i < n / 2; ++i) {
        double m = 0.5 * (xi[n - 1 - i] - xi[i]), ww = 0.5 * (w[i] + w[n - 1 - i]);
        xi[i] = -m, xi[n - 1 - i] = m;
        w[i] = w[n - 1 - i] = ww;
    }
    if (n % 2 == 1) xi[n / 2] = 0.0;
    return LD_OK;
}

void ld_beam_lagrange(int nn, const double *nodes, double xi, double *N, double *dN) {
    for (int i = 0; i < nn; ++i) {
        double num = 1.0, d = 0.0;
        for (int j = 0; j < nn; ++j)
            if (j != i) num *= (xi - nodes[j]) / (nodes[i] - nodes[j]);
        for (int k = 0; k < nn; ++k) {
            if (k == i) continue;
            double t = 1.0 / (nodes[i] - nodes[k]);
            for (int j = 0; j < nn; ++j)
                if (j != i && j != k) t *= (xi - nodes[j]) / (nodes[i] - nodes[j]);
            d += t;
        }
        N[i] = num;
        dN[i] = d;
    }
}

/* ---------------------------------------------------------------- one quadrature point */

enum { ZP = 0, ZB = 4, ZA = 8, NZ = 11 };

/* z = (p, b, a) at quadrature point g from the nodes (quaternions already in one hemisphere). */
static void field(const ld_beam_fe *e, int g, const double *q, const double *x, double z[NZ]) {
    memset(z, 0, NZ * sizeof(double));
    for (int i = 0; i < e->nn; ++i) {
        for (int k = 0; k < 4; ++k) {
            z[ZP + k] += e->N[g][i] * q[4 * i + k];
            z[ZB + k] += e->dN[g][i] * q[4 * i + k];
        }
        for (int k = 0; k < 3; ++k) z[ZA + k] += e->dN[g][i] * x[3 * i + k];
    }
}

/* The strain ε(z) and, when D is not NULL, its Jacobian Dε (6 × 11, row-major). */
static void strain(const double z[NZ], double J, double eps[6], double *D) {
    const double w = z[0], *v = z + 1, bw = z[ZB], *bv = z + ZB + 1, *a = z + ZA;
    double n = w * w + ld_v3_dot(v, v), psi = 1.0 / (n * J), va = ld_v3_dot(v, a), vv = n - w * w;
    double vxa[3], vxb[3], S[3], c[3];
    ld_v3_cross(vxa, v, a);
    ld_v3_cross(vxb, v, bv);
    for (int k = 0; k < 3; ++k) {
        S[k] = (w * w - vv) * a[k] + 2.0 * v[k] * va - 2.0 * w * vxa[k];
        c[k] = w * bv[k] - bw * v[k] - vxb[k];
        eps[k] = psi * S[k];
        eps[3 + k] = 2.0 * psi * c[k];
    }
    if (!D) return;
    memset(D, 0, 6 * NZ * sizeof(double));
    double Ha[9], Hv[9], Hb[9];
    ld_so3_hat(Ha, a);
    ld_so3_hat(Hv, v);
    ld_so3_hat(Hb, bv);
    for (int r = 0; r < 3; ++r) {
        double *G = D + NZ * r, *K = D + NZ * (3 + r);
        /* Γ: ψ ∂S/∂p − Γ 2pᵀ/n, ψ R_uᵀ */
        G[ZP] = psi * (2.0 * w * a[r] - 2.0 * vxa[r]) - eps[r] * 2.0 * w / n;
        for (int j = 0; j < 3; ++j) {
            double dS = -2.0 * a[r] * v[j] + 2.0 * v[r] * a[j] + 2.0 * w * Ha[3 * r + j] +
                        (r == j ? 2.0 * va : 0.0);
            G[ZP + 1 + j] = psi * dS - eps[r] * 2.0 * v[j] / n;
            G[ZA + j] =
                psi * ((r == j ? w * w - vv : 0.0) + 2.0 * v[r] * v[j] - 2.0 * w * Hv[3 * r + j]);
        }
        /* K: 2ψ F(b) − K 2pᵀ/n, 2ψ E(p) */
        K[ZP] = 2.0 * psi * bv[r] - eps[3 + r] * 2.0 * w / n;
        K[ZB] = -2.0 * psi * v[r];
        for (int j = 0; j < 3; ++j) {
            K[ZP + 1 + j] =
                2.0 * psi * ((r == j ? -bw : 0.0) + Hb[3 * r + j]) - eps[3 + r] * 2.0 * v[j] / n;
            K[ZB + 1 + j] = 2.0 * psi * ((r == j ? w : 0.0) - Hv[3 * r + j]);
        }
    }
}

/* H (11 × 11, added) += Σ_k σ_k ∂²ε_k/∂z² at z, σ = (μ, ν). */
static void strain_hessian(const double z[NZ], double J, const double sig[6], double *H) {
    const double w = z[0], *v = z + 1, bw = z[ZB], *bv = z + ZB + 1, *a = z + ZA;
    const double *mu = sig, *nu = sig + 3;
    double n = w * w + ld_v3_dot(v, v), psi = 1.0 / (n * J), vv = n - w * w;
    double ma = ld_v3_dot(mu, a), mv = ld_v3_dot(mu, v), va = ld_v3_dot(v, a);
    double vxa[3], axm[3], mxv[3], bxn[3], nxv[3], vxb[3];
    ld_v3_cross(vxa, v, a);
    ld_v3_cross(axm, a, mu);
    ld_v3_cross(mxv, mu, v);
    ld_v3_cross(bxn, bv, nu);
    ld_v3_cross(nxv, nu, v);
    ld_v3_cross(vxb, v, bv);
    /* φ = μᵀS and χ = ν·c with their derivatives; ψ_p = −2ψ p/n, ψ_pp = −2ψ/n I + 8ψ ppᵀ/n² */
    double phi = (w * w - vv) * ma + 2.0 * mv * va - 2.0 * w * ld_v3_dot(mu, vxa);
    double chi = w * ld_v3_dot(nu, bv) - bw * ld_v3_dot(nu, v) - ld_v3_dot(nu, vxb);
    double phi_p[4], phi_a[3], chi_p[4], chi_b[4], psi_p[4];
    phi_p[0] = 2.0 * w * ma - 2.0 * ld_v3_dot(mu, vxa);
    chi_p[0] = ld_v3_dot(nu, bv);
    chi_b[0] = -ld_v3_dot(nu, v);
    for (int k = 0; k < 3; ++k) {
        phi_p[1 + k] = -2.0 * ma * v[k] + 2.0 * mu[k] * va + 2.0 * mv * a[k] - 2.0 * w * axm[k];
        phi_a[k] = (w * w - vv) * mu[k] + 2.0 * v[k] * mv - 2.0 * w * mxv[k];
        chi_p[1 + k] = -bw * nu[k] - bxn[k];
        chi_b[1 + k] = w * nu[k] - nxv[k];
    }
    const double p4[4] = {w, v[0], v[1], v[2]};
    for (int k = 0; k < 4; ++k) psi_p[k] = -2.0 * psi * p4[k] / n;
    /* combined f = φψ + 2χψ: pp block */
    double phi_pp[16] = {0}, Hm[9], Hn[9];
    phi_pp[0] = 2.0 * ma;
    for (int k = 0; k < 3; ++k) phi_pp[1 + k] = phi_pp[4 * (1 + k)] = -2.0 * axm[k];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            phi_pp[4 * (1 + r) + 1 + c] =
                (r == c ? -2.0 * ma : 0.0) + 2.0 * (mu[r] * a[c] + a[r] * mu[c]);
    double f = phi + 2.0 * chi;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            double fp_r = phi_p[r] + 2.0 * chi_p[r], fp_c = phi_p[c] + 2.0 * chi_p[c];
            double psi_pp = (r == c ? -2.0 * psi / n : 0.0) + 8.0 * psi * p4[r] * p4[c] / (n * n);
            H[NZ * (ZP + r) + ZP + c] +=
                psi * phi_pp[4 * r + c] + fp_r * psi_p[c] + psi_p[r] * fp_c + f * psi_pp;
        }
    /* pa block: ψ φ_pa + ψ_p φ_aᵀ */
    ld_so3_hat(Hm, mu);
    ld_so3_hat(Hn, nu);
    for (int c = 0; c < 3; ++c) {
        double pa[4];
        pa[0] = 2.0 * w * mu[c] - 2.0 * mxv[c];
        for (int r = 0; r < 3; ++r)
            pa[1 + r] = -2.0 * v[r] * mu[c] + (r == c ? 2.0 * mv : 0.0) + 2.0 * mu[r] * v[c] +
                        2.0 * w * Hm[3 * r + c];
        for (int r = 0; r < 4; ++r) {
            double h = psi * pa[r] + psi_p[r] * phi_a[c];
            H[NZ * (ZP + r) + ZA + c] += h;
            H[NZ * (ZA + c) + ZP + r] += h;
        }
    }
    /* pb block: 2(ψ χ_pb + ψ_p χ_bᵀ) */
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            double pb = 0.0;
            if (r == 0 && c > 0) pb = nu[c - 1];
            if (r > 0 && c == 0) pb = -nu[r - 1];
            if (r > 0 && c > 0) pb = Hn[3 * (r - 1) + c - 1];
            double h = 2.0 * (psi * pb + psi_p[r] * chi_b[c]);
            H[NZ * (ZP + r) + ZB + c] += h;
            H[NZ * (ZB + c) + ZP + r] += h;
        }
}

/* ---------------------------------------------------------------- set-up */

/* The nodes' quaternions signed along the element: each in the hemisphere of its predecessor
 * (neighbouring nodes are less than a half turn apart, so the choice is continuous in q). */
static void align(int nn, const double *q, double *qa) {
    memcpy(qa, q, 4 * sizeof(double));
    for (int i = 1; i < nn; ++i) {
        double s = 0.0;
        for (int k = 0; k < 4; ++k) s += q[4 * i + k] * qa[4 * (i - 1) + k];
        for (int k = 0; k < 4; ++k) qa[4 * i + k] = s < 0.0 ? -q[4 * i + k] : q[4 * i + k];
    }
}

int ld_beam_fe_init_rule(ld_beam_fe *e, int p, int nq, const double *xg, const double *wg,
                         const double *q0, const double *x0, const double *C, int uniform) {
    if (p < 1 || p > LD_BEAM_MAX_ORDER || nq < 1 || nq > LD_BEAM_MAX_QP || !C || !xg || !wg)
        return LD_EINVAL;
    memset(e, 0, sizeof *e);
    e->p = p, e->nn = p + 1, e->nq = nq;
    double qa[4 * LD_BEAM_MAX_NODES], z[NZ];
    (void)ld_beam_gll(p, e->xi_node);
    align(e->nn, q0, qa);
    for (int g = 0; g < nq; ++g) {
        if (!(xg[g] >= -1.0 && xg[g] <= 1.0) || !(wg[g] > 0.0)) return LD_EINVAL;
        ld_beam_lagrange(e->nn, e->xi_node, xg[g], e->N[g], e->dN[g]);
        field(e, g, qa, x0, z);
        double J = sqrt(ld_v3_dot(z + ZA, z + ZA)), pn = ld_v3_dot(z + 1, z + 1) + z[0] * z[0];
        if (!(J > 0.0) || !(pn > 0.0)) return LD_EINVAL;
        e->J[g] = J;
        e->w[g] = wg[g] * J;
        strain(z, J, e->eps0[g], NULL);
    }
    if (uniform)
        memcpy(e->C, C, sizeof e->C);
    else
        e->Cq = C;
    return LD_OK;
}

int ld_beam_fe_init(ld_beam_fe *e, int p, int nq, const double *q0, const double *x0,
                    const double *C, int uniform) {
    double xg[LD_BEAM_MAX_QP], wg[LD_BEAM_MAX_QP];
    if (ld_beam_gauss(nq, xg, wg)) return LD_EINVAL;
    return ld_beam_fe_init_rule(e, p, nq, xg, wg, q0, x0, C, uniform);
}

int ld_beam_fe_points(int nq, double *xi) {
    double w[LD_BEAM_MAX_QP];
    return ld_beam_gauss(nq, xi, w);
}

/* ---------------------------------------------------------------- the elastic terms */

/* G = ∂q/∂δθ (4 × 3) for q ∘ exp(δθ). */
static void qgrad(const double *q, double G[12]) {
    double Hv[9];
    ld_so3_hat(Hv, q + 1);
    for (int j = 0; j < 3; ++j) {
        G[j] = -0.5 * q[1 + j];
        for (int r = 0; r < 3; ++r)
            G[3 * (1 + r) + j] = 0.5 * ((r == j ? q[0] : 0.0) + Hv[3 * r + j]);
    }
}

/* ∂(G(q ∘ exp δθ)ᵀ g)/∂δθ for a raw gradient g (4): ¼ [(−g_w I + hat(g_v))(w I + hat(v)) −
 * g_v vᵀ]. */
static void gdiag(const double *q, const double *g, double Nq[9]) {
    double A[9], B[9];
    ld_so3_hat(A, g + 1);
    ld_so3_hat(B, q + 1);
    for (int k = 0; k < 3; ++k) A[4 * k] -= g[0], B[4 * k] += q[0];
    ld_m3_mul(Nq, A, B);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) Nq[3 * r + c] = 0.25 * (Nq[3 * r + c] - g[1 + r] * q[1 + c]);
}

/* Rr (the raw Hessian, 7 nn square at stride nr, rows q_i then x_i per node: the block rows
 * of node i from column 7 i on) += Σ A_gᵀ Hz_g A_g over the quadrature points g0 and, with two,
 * g0 + 1 (Hz: nb z-Hessians of 11 × 11), A_g = ∂z/∂(q, x): node j's columns are N_j on the p rows
 * and N_j' on the b rows (q_j), N_j' on the a rows (x_j). First Y_g = Hz_g A_g (11 × 7 nn), then
 * row (i, k) of Rr gains Σ_g N_i Y_{g,p_k} + N_i' Y_{g,b_k} (k < 4) or N_i' Y_{g,a_k}: contiguous
 * rows, the pairs i ≤ j only, two points per pass over Rr. */
LD_BEAM_HOT static void add_raw(const ld_beam_fe *e, int g0, int nb, const double (*Hz)[NZ * NZ],
                                double *Rr, int nr) {
    enum { RAW = 7 * LD_BEAM_MAX_NODES };
    int nn = e->nn;
    double Y[2][NZ][RAW];
    for (int b = 0; b < nb; ++b) {
        const double *N = e->N[g0 + b], *D = e->dN[g0 + b];
        for (int r = 0; r < NZ; ++r) {
            const double *h = Hz[b] + NZ * r;
            double *y = Y[b][r];
            for (int j = 0; j < nn; ++j, y += 7) {
                double Nj = N[j], Dj = D[j];
                for (int k = 0; k < 4; ++k) y[k] = Nj * h[ZP + k] + Dj * h[ZB + k];
                for (int k = 0; k < 3; ++k) y[4 + k] = Dj * h[ZA + k];
            }
        }
    }
    if (nb == 1) /* a zero second point: the same sums */
        for (int r = 0; r < NZ; ++r) memset(Y[1][r], 0, (size_t)nr * sizeof(double));
    const double *N0 = e->N[g0], *D0 = e->dN[g0], *N1 = nb > 1 ? e->N[g0 + 1] : N0,
                 *D1 = nb > 1 ? e->dN[g0 + 1] : D0;
    for (int i = 0; i < nn; ++i) {
        double Na = N0[i], Da = D0[i], Nb = N1[i], Db = D1[i];
        int c0 = 7 * i, len = nr - c0;
        double *o = Rr + (size_t)nr * (size_t)c0 + (size_t)c0;
        for (int k = 0; k < 4; ++k, o += nr) {
            const double *pa = Y[0][ZP + k] + c0, *ba = Y[0][ZB + k] + c0;
            const double *pb = Y[1][ZP + k] + c0, *bb = Y[1][ZB + k] + c0;
            for (int c = 0; c < len; ++c)
                o[c] += Na * pa[c] + Da * ba[c] + (Nb * pb[c] + Db * bb[c]);
        }
        for (int k = 0; k < 3; ++k, o += nr) {
            const double *aa = Y[0][ZA + k] + c0, *ab = Y[1][ZA + k] + c0;
            for (int c = 0; c < len; ++c) o[c] += Da * aa[c] + Db * ab[c];
        }
    }
}

/* K (6 nn square, row-major) = Tᵀ Rr T on the blocks i ≤ j, T_i = diag(G_i, I) = ∂(q_i, x_i)/
 * ∂(δθ_i, δx_i): the raw Hessian turned into canonical coordinates once per element. */
static void raw_to_canonical(int nn, const double G[][12], const double *Rr, int nr, double *K) {
    size_t nc = 6 * (size_t)nn;
    for (int i = 0; i < nn; ++i)
        for (int j = i; j < nn; ++j) {
            const double *B = Rr + (size_t)nr * (size_t)(7 * i) + (size_t)(7 * j), *Gi = G[i],
                         *Gj = G[j];
            double BT[7][6], *O = K + (size_t)(6 * i) * nc + (size_t)(6 * j);
            for (int r = 0; r < 7; ++r) { /* B T_j */
                const double *b = B + (size_t)nr * (size_t)r;
                for (int c = 0; c < 3; ++c)
                    BT[r][c] =
                        b[0] * Gj[c] + b[1] * Gj[3 + c] + b[2] * Gj[6 + c] + b[3] * Gj[9 + c];
                for (int c = 0; c < 3; ++c) BT[r][3 + c] = b[4 + c];
            }
            for (int r = 0; r < 3; ++r) /* T_iᵀ (B T_j) */
                for (int c = 0; c < 6; ++c)
                    O[nc * (size_t)r + (size_t)c] = Gi[r] * BT[0][c] + Gi[3 + r] * BT[1][c] +
                                                    Gi[6 + r] * BT[2][c] + Gi[9 + r] * BT[3][c];
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 6; ++c) O[nc * (size_t)(3 + r) + (size_t)c] = BT[4 + r][c];
        }
}

/* Hz (11 × 11) += w Dᵀ C D, by rows: CD = w C D, then row r of Hz gains Σ_l D_lr CD_l. Γ does
 * not depend on b nor K on a: those zeros of D are skipped (fixed bounds, whole rows). */
static void material_part(const double *C, const double *D, double w, double CD[6][NZ],
                          double *Hz) {
    for (int r = 0; r < 6; ++r) {
        double f[6];
        for (int l = 0; l < 6; ++l) f[l] = w * C[6 * r + l];
        for (int c = 0; c < ZB; ++c) /* p: all six rows of D */
            CD[r][c] = f[0] * D[c] + f[1] * D[NZ + c] + f[2] * D[2 * NZ + c] +
                       f[3] * D[3 * NZ + c] + f[4] * D[4 * NZ + c] + f[5] * D[5 * NZ + c];
        for (int c = ZB; c < ZA; ++c) /* b: the curvature rows */
            CD[r][c] = f[3] * D[3 * NZ + c] + f[4] * D[4 * NZ + c] + f[5] * D[5 * NZ + c];
        for (int c = ZA; c < NZ; ++c) /* a: the shear–extension rows */
            CD[r][c] = f[0] * D[c] + f[1] * D[NZ + c] + f[2] * D[2 * NZ + c];
    }
    for (int r = 0; r < NZ; ++r) {
        int l0 = r >= ZB && r < ZA ? 3 : 0, l1 = r >= ZA ? 3 : 6;
        double *h = Hz + NZ * r;
        for (int l = l0; l < l1; ++l) {
            double d = D[NZ * l + r];
            for (int c = 0; c < NZ; ++c) h[c] += d * CD[l][c];
        }
    }
}

void ld_beam_fe_elastic(const ld_beam_fe *e, const double *q, const double *x, unsigned want,
                        double *F, double *K, double *V) {
    enum { RAW = 7 * LD_BEAM_MAX_NODES };
    int nn = e->nn;
    size_t nc = 6 * (size_t)nn;
    double qa[4 * LD_BEAM_MAX_NODES], gr[RAW], energy = 0.0, G[LD_BEAM_MAX_NODES][12];
    int stiff = (want & LD_BEAM_STIFF) != 0, grad = (want & (LD_BEAM_FORCE | LD_BEAM_STIFF)) != 0;
    static _Thread_local double Rr[RAW * RAW]; /* the raw Hessian, 7 nn square */
    double Hzs[2][NZ * NZ];                    /* the z-Hessians of two quadrature points */
    int nr = 7 * nn;
    align(nn, q, qa);
    memset(gr, 0, sizeof gr);
    for (int i = 0; i < nn; ++i) qgrad(qa + 4 * i, G[i]);
    if (stiff) memset(Rr, 0, (size_t)nr * (size_t)nr * sizeof(double));
    for (int g = 0; g < e->nq; ++g) {
        double z[NZ], eps[6], D[6 * NZ], sig[6], gz[NZ], *Hz = Hzs[g & 1];
        const double *Cg = ld_beam_fe_C(e, g);
        field(e, g, qa, x, z);
        strain(z, e->J[g], eps, grad ? D : NULL);
        for (int k = 0; k < 6; ++k) eps[k] -= e->eps0[g][k];
        for (int r = 0; r < 6; ++r) {
            sig[r] = 0.0;
            for (int c = 0; c < 6; ++c) sig[r] += Cg[6 * r + c] * eps[c];
        }
        energy += 0.5 * e->w[g] *
                  (sig[0] * eps[0] + sig[1] * eps[1] + sig[2] * eps[2] + sig[3] * eps[3] +
                   sig[4] * eps[4] + sig[5] * eps[5]);
        if (!grad) continue;
        for (int c = 0; c < NZ; ++c) {
            gz[c] = 0.0;
            for (int r = 0; r < 6; ++r) gz[c] += D[NZ * r + c] * sig[r];
            gz[c] *= e->w[g];
        }
        /* z = Σ (N_i q_i, N_i' q_i, N_i' x_i): the raw nodal gradient */
        for (int i = 0; i < nn; ++i) {
            double Ni = e->N[g][i], Di = e->dN[g][i];
            for (int k = 0; k < 4; ++k) gr[7 * i + k] += Ni * gz[ZP + k] + Di * gz[ZB + k];
            for (int k = 0; k < 3; ++k) gr[7 * i + 4 + k] += Di * gz[ZA + k];
        }
        if (!stiff) continue;
        double CD[6][NZ], ws[6], wg = e->w[g];
        for (int k = 0; k < 6; ++k) ws[k] = wg * sig[k];
        memset(Hz, 0, NZ * NZ * sizeof(double));
        strain_hessian(z, e->J[g], ws, Hz);
        material_part(Cg, D, wg, CD, Hz);
        if (g & 1)
            add_raw(e, g - 1, 2, (const double(*)[NZ * NZ]) Hzs, Rr, nr);
        else if (g + 1 == e->nq)
            add_raw(e, g, 1, (const double(*)[NZ * NZ]) Hzs, Rr, nr);
    }
    if (want & LD_BEAM_ENERGY) *V = energy;
    if (!grad) return;
    if (want & LD_BEAM_FORCE)
        for (int i = 0; i < nn; ++i) {
            for (int c = 0; c < 3; ++c) {
                F[6 * i + c] = 0.0;
                for (int k = 0; k < 4; ++k) F[6 * i + c] += G[i][3 * k + c] * gr[7 * i + k];
                F[6 * i + 3 + c] = gr[7 * i + 4 + c];
            }
        }
    if (!stiff) return;
    raw_to_canonical(nn, (const double(*)[12])G, Rr, nr, K);
    /* the lower blocks by symmetry of Aᵀ Hz A, then the derivative of G along δθ_i */
    for (size_t bi = 0; bi < (size_t)nn; ++bi)
        for (size_t bj = 0; bj < bi; ++bj)
            for (size_t r = 6 * bi; r < 6 * bi + 6; ++r)
                for (size_t c = 6 * bj; c < 6 * bj + 6; ++c) K[nc * r + c] = K[nc * c + r];
    for (int i = 0; i < nn; ++i) {
        double Nq[9], *O = K + (size_t)(6 * i) * nc + (size_t)(6 * i);
        gdiag(qa + 4 * i, gr + 7 * i, Nq);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) O[nc * (size_t)r + (size_t)c] += Nq[3 * r + c];
    }
}

/* ---------------------------------------------------------------- viscous damping */

/* q ⊗ (0, Ω) = M_R(Ω) q: the 4×4 matrix of right multiplication by the pure quaternion Ω. */
static void right_mult(const double Om[3], double M[16]) {
    double H[9];
    ld_so3_hat(H, Om);
    memset(M, 0, 16 * sizeof(double));
    for (int j = 0; j < 3; ++j) M[1 + j] = -Om[j], M[4 * (1 + j)] = Om[j];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) M[4 * (1 + r) + 1 + c] = -H[3 * r + c];
}

/* B (7×7 at stride nr: raw q_i then x_i rows, q_j then x_j columns) += A_iᵀ H A_j for the
 * z-Hessian H (11 × 11), A_i = ∂z/∂(q_i, x_i): N_i on the p rows, N_i' on the p_ξ and x_ξ rows. */
static void raw_block(const double *H, double Ni, double Di, double Nj, double Dj, double *B,
                      size_t nr) {
    for (int r = 0; r < 4; ++r) {
        const double *hp = H + NZ * (ZP + r), *hb = H + NZ * (ZB + r);
        double *b = B + nr * (size_t)r;
        for (int c = 0; c < 4; ++c)
            b[c] +=
                Ni * (Nj * hp[ZP + c] + Dj * hp[ZB + c]) + Di * (Nj * hb[ZP + c] + Dj * hb[ZB + c]);
        for (int c = 0; c < 3; ++c) b[4 + c] += Dj * (Ni * hp[ZA + c] + Di * hb[ZA + c]);
    }
    for (int r = 0; r < 3; ++r) {
        const double *ha = H + NZ * (ZA + r);
        double *b = B + nr * (size_t)(4 + r);
        for (int c = 0; c < 4; ++c) b[c] += Di * (Nj * ha[ZP + c] + Dj * ha[ZB + c]);
        for (int c = 0; c < 3; ++c) b[4 + c] += Di * Dj * ha[ZA + c];
    }
}

void ld_beam_fe_damping(const ld_beam_fe *e, const double *q, const double *x, const double *Om,
                        const double *xd, double mu, double *F, double *Kq, double *Kv) {
    enum { RAW = 7 * LD_BEAM_MAX_NODES };
    int nn = e->nn, nr = 7 * nn;
    double qa[4 * LD_BEAM_MAX_NODES], qd[4 * LD_BEAM_MAX_NODES], G[LD_BEAM_MAX_NODES][12];
    double Mr[LD_BEAM_MAX_NODES][16], gr[RAW];
    static _Thread_local double Hr[RAW * RAW], Vr[RAW * RAW], Wr[RAW * RAW];
    align(nn, q, qa);
    for (int i = 0; i < nn; ++i) { /* raw rates q̇ = G(q) Ω and ∂(G(q)Ω)/∂q = ½ M_R(Ω) */
        qgrad(qa + 4 * i, G[i]);
        for (int k = 0; k < 4; ++k)
            qd[4 * i + k] = G[i][3 * k] * Om[3 * i] + G[i][3 * k + 1] * Om[3 * i + 1] +
                            G[i][3 * k + 2] * Om[3 * i + 2];
        right_mult(Om + 3 * i, Mr[i]);
    }
    memset(gr, 0, sizeof gr);
    size_t nr2 = (size_t)nr * (size_t)nr;
    int mats = Kq || Kv;
    if (mats) {
        memset(Hr, 0, nr2 * sizeof(double)); /* at fixed raw rates: ∂/∂(raw q, x) */
        memset(Vr, 0, nr2 * sizeof(double)); /* ∂/∂(raw rates) */
        memset(Wr, 0, nr2 * sizeof(double)); /* ∂/∂(raw rates) times ∂(rates)/∂q, below */
    }
    for (int g = 0; g < e->nq; ++g) {
        double z[NZ], zd[NZ], eps[6], D[6 * NZ], ed[6], sd[6], gz[NZ], Hz[NZ * NZ], E[6 * NZ];
        double CD[6 * NZ], CE[6 * NZ], DCD[NZ * NZ];
        const double *Cg = ld_beam_fe_C(e, g);
        field(e, g, qa, x, z);
        field(e, g, qd, xd, zd); /* ż from the raw rates (q̇, ẋ) */
        strain(z, e->J[g], eps, D);
        for (int k = 0; k < 6; ++k) {
            ed[k] = 0.0;
            for (int c = 0; c < NZ; ++c) ed[k] += D[NZ * k + c] * zd[c];
        }
        for (int r = 0; r < 6; ++r) {
            sd[r] = 0.0;
            for (int c = 0; c < 6; ++c) sd[r] += mu * Cg[6 * r + c] * ed[c];
        }
        for (int c = 0; c < NZ; ++c) {
            gz[c] = 0.0;
            for (int r = 0; r < 6; ++r) gz[c] += D[NZ * r + c] * sd[r];
            gz[c] *= e->w[g];
        }
        /* E = ∂ε̇/∂z at fixed ż: row k = H_k ż */
        for (int k = 0; mats && k < 6; ++k) {
            double unit[6] = {0}, Hk[NZ * NZ] = {0};
            unit[k] = 1.0;
            strain_hessian(z, e->J[g], unit, Hk);
            for (int m = 0; m < NZ; ++m) {
                E[NZ * k + m] = 0.0;
                for (int l = 0; l < NZ; ++l) E[NZ * k + m] += Hk[NZ * m + l] * zd[l];
            }
        }
        /* Hz = W (H(σ_d) + Dᵀ μC E); DCD = W Dᵀ μC D */
        double ws[6];
        for (int k = 0; k < 6; ++k) ws[k] = e->w[g] * sd[k];
        memset(Hz, 0, sizeof Hz);
        if (mats) strain_hessian(z, e->J[g], ws, Hz);
        for (int r = 0; mats && r < 6; ++r)
            for (int c = 0; c < NZ; ++c) {
                double a = 0.0, b = 0.0;
                for (int l = 0; l < 6; ++l) {
                    a += mu * Cg[6 * r + l] * E[NZ * l + c];
                    b += mu * Cg[6 * r + l] * D[NZ * l + c];
                }
                CD[NZ * r + c] = b;
                CE[NZ * r + c] = a;
            }
        for (int r = 0; mats && r < NZ; ++r)
            for (int c = 0; c < NZ; ++c) {
                double a = 0.0, b = 0.0;
                for (int l = 0; l < 6; ++l)
                    a += D[NZ * l + r] * CE[NZ * l + c], b += D[NZ * l + r] * CD[NZ * l + c];
                Hz[NZ * r + c] += e->w[g] * a;
                DCD[NZ * r + c] = e->w[g] * b;
            }
        for (int i = 0; i < nn; ++i) {
            double Ni = e->N[g][i], Di = e->dN[g][i];
            for (int k = 0; k < 4; ++k) gr[7 * i + k] += Ni * gz[ZP + k] + Di * gz[ZB + k];
            for (int k = 0; k < 3; ++k) gr[7 * i + 4 + k] += Di * gz[ZA + k];
            if (!mats) continue;
            for (int j = 0; j < nn; ++j) {
                size_t o = (size_t)nr * (size_t)(7 * i) + (size_t)(7 * j);
                raw_block(Hz, Ni, Di, e->N[g][j], e->dN[g][j], Hr + o, (size_t)nr);
                raw_block(DCD, Ni, Di, e->N[g][j], e->dN[g][j], Vr + o, (size_t)nr);
            }
        }
    }
    /* ∂(raw rates)/∂q: the q̇_j rows depend on q_j through ½ M_R(Ω_j) */
    for (int i = 0; mats && i < nr; ++i)
        for (int j = 0; j < nn; ++j)
            for (int c = 0; c < 4; ++c) {
                double acc = 0.0;
                for (int k = 0; k < 4; ++k)
                    acc +=
                        Vr[(size_t)nr * (size_t)i + (size_t)(7 * j + k)] * 0.5 * Mr[j][4 * k + c];
                Wr[(size_t)nr * (size_t)i + (size_t)(7 * j + c)] = acc;
            }
    /* canonical: T_i = diag(G_i, I); Kq = Tᵀ (Hr + Wr) T + gdiag; Kv = Tᵀ Vr T */
    size_t nc = 6 * (size_t)nn;
    for (int i = 0; i < nn; ++i) {
        for (int c = 0; c < 3; ++c) {
            double acc = 0.0;
            for (int k = 0; k < 4; ++k) acc += G[i][3 * k + c] * gr[7 * i + k];
            F[6 * i + c] += acc;
            F[6 * i + 3 + c] += gr[7 * i + 4 + c];
        }
        for (int j = 0; mats && j < nn; ++j)
            for (int r = 0; r < 6; ++r)
                for (int c = 0; c < 6; ++c) {
                    double aq = 0.0, av = 0.0;
                    for (int k = 0; k < (r < 3 ? 4 : 1); ++k)
                        for (int l = 0; l < (c < 3 ? 4 : 1); ++l) {
                            double tr = r < 3 ? G[i][3 * k + r] : 1.0,
                                   tc = c < 3 ? G[j][3 * l + c] : 1.0;
                            size_t br = (size_t)(7 * i + (r < 3 ? k : 4 + (r - 3)));
                            size_t bc = (size_t)(7 * j + (c < 3 ? l : 4 + (c - 3)));
                            aq += tr * (Hr[(size_t)nr * br + bc] + Wr[(size_t)nr * br + bc]) * tc;
                            av += tr * Vr[(size_t)nr * br + bc] * tc;
                        }
                    if (Kq) Kq[nc * (6 * (size_t)i + (size_t)r) + 6 * (size_t)j + (size_t)c] += aq;
                    if (Kv) Kv[nc * (6 * (size_t)i + (size_t)r) + 6 * (size_t)j + (size_t)c] += av;
                }
        if (Kq) {
            double Nq[9];
            gdiag(qa + 4 * i, gr + 7 * i, Nq);
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c)
                    Kq[nc * (6 * (size_t)i + (size_t)r) + 6 * (size_t)i + (size_t)c] +=
                        Nq[3 * r + c];
        }
    }
}

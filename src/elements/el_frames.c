/*
 * The relative frame of two bodies as a strain (elements.h), for the rotational spring-damper
 * and the bushing. Frames A = R1 C1 (origin x1 + R1 p1) and B = R2 C2 (origin x2 + R2 p2);
 * e = (θ, r), θ = log(AᵀB), r = Aᵀ d, d = x2 + R2 p2 − x1 − R1 p1. Moving the bodies as
 * R exp(δθ), x + δx (exp(ε) exp(θ) = exp(θ + T⁻ᵀ(θ) ε), exp(θ) exp(ε) = exp(θ + T⁻¹(θ) ε)):
 *   θ rows  J = [−T⁻ᵀ C1ᵀ, 0, T⁻¹ C2ᵀ, 0]
 *   r rows  J = [C1ᵀ hat(p1) + hat(r) C1ᵀ, −Aᵀ, −Aᵀ R2 hat(p2), Aᵀ]
 * and the second derivative H(π, u) = d/dε [J(pose ∘ επ) u], with dθ = J_θ π, dr = J_r π:
 *   θ rows  −D⁻ᵀ(θ; C1ᵀu1)[dθ] + D⁻¹(θ; C2ᵀu2)[dθ]      (D⁻¹, D⁻ᵀ: derivatives of T⁻¹ w, T⁻ᵀ w)
 *   r rows  −hat(C1ᵀu1) dr − hat(C1ᵀπ1) Aᵀ(ux2 − ux1 − R2 hat(p2) u2) − Aᵀ R2 hat(π2) hat(p2) u2.
 * T⁻¹(ψ) w = w + ½ ψ × w + γ ψ × (ψ × w), γ(φ) = (1 − (φ/2) cot(φ/2))/φ², so
 *   D⁻¹(ψ; w)[δ] = L(ψ, w) δ = ½ δ × w + γ (δ × (ψ × w) + ψ × (δ × w)) + (γ'/φ)(ψ·δ) ψ × (ψ × w),
 * and −D⁻ᵀ(θ; w) = D⁻¹(−θ; w) (T⁻ᵀ(ψ) = T⁻¹(−ψ)). γ'/φ by its Bernoulli series below φ = 1,
 * else in closed form. The elements need H contracted with a row weight w, as the gradient
 * g = ∂/∂π [wᵀ H(π, u)] (elements.h): with a = C1ᵀu1, b = C2ᵀu2, wθ, wr the parts of w,
 *   from the θ rows  J_θᵀ (L(−θ, a)ᵀ + L(θ, b)ᵀ) wθ,
 *     L(ψ, w)ᵀ x = ½ w × x + γ ((ψ × w) × x + w × (x × ψ)) + (γ'/φ)(x·(ψ × (ψ × w))) ψ,
 *   from the r rows  J_rᵀ (a × wr), −C1 (s × wr) on π1's rotation, −hp × (R2ᵀ A wr) on π2's,
 *     s = Aᵀ(ux2 − ux1 − R2 hp), hp = p2 × u2,
 * with J_θᵀ c = (−C1 T⁻¹ c, 0, C2 T⁻ᵀ c, 0) and
 * J_rᵀ y = ((C1 y) × p1 + C1 (y × r), −A y, p2 × (R2ᵀ A y), A y): no trigonometry past the
 * evaluation (γ, γ'/φ are kept), 12 gradients cost what one H(π, u) per π did.
 */
#include <math.h>
#include <string.h>

#include "../lie/fn.h"
#include "../lie/mat3.h"
#include "elements.h"
#include "liedyn/lie.h"

/* γ'(φ)/φ = Σ_{n≥2} |B_2n| (2n − 2) φ^(2n−4) / (2n)!, the first 12 terms (exact to round-off
 * for φ < 1; the next term is below 1e-20 there). */
static double gamma1(double phi) {
    static const double c[12] = {
        2.7777777777777779e-03, 1.3227513227513228e-04, 4.9603174603174603e-06,
        1.670140559029448e-07,  5.2841901386874934e-09, 1.6059043836821613e-10,
        4.7455524148516162e-12, 1.3737699290044552e-13, 3.914763657404511e-15,
        1.1018005656720459e-16, 3.0699822308787551e-18, 8.4832968951107215e-20};
    if (phi < 1.0) {
        double p2 = phi * phi, acc = 0.0;
        for (int i = 11; i >= 0; --i) acc = acc * p2 + c[i];
        return acc;
    }
    double x = 0.5 * phi, s = sin(x), ct = cos(x) / s;
    double h = 1.0 - x * ct, hp = 0.5 * (-ct + x / (s * s));
    return (hp * phi - 2.0 * h) / (phi * phi * phi * phi);
}

/* out = L(ψ, w)ᵀ x for |ψ| = φ with γ(φ) = g, γ'(φ)/φ = g1 (the header). */
static void dtinv_t(const double psi[3], const double w[3], const double x[3], double g, double g1,
                    double out[3]) {
    double pw[3], ppw[3], wx[3], a[3], xp[3], b[3];
    ld_v3_cross(pw, psi, w);
    ld_v3_cross(ppw, psi, pw);
    ld_v3_cross(wx, w, x);
    ld_v3_cross(a, pw, x);
    ld_v3_cross(xp, x, psi);
    ld_v3_cross(b, w, xp);
    double c = g1 * ld_v3_dot(x, ppw);
    for (int i = 0; i < 3; ++i) out[i] = 0.5 * wx[i] + g * (a[i] + b[i]) + c * psi[i];
}

/* r = A v (3×3 A) and r = Aᵀ v. */
static void mv(double r[3], const double A[9], const double v[3]) {
    ld_m3_mulv(r, A, v);
}
static void tmv(double r[3], const double A[9], const double v[3]) {
    ld_m3_tmulv(r, A, v);
}

/* row = ∂/∂π [wᵀ H(π, u)] (the header), w of the strain's n rows. */
static void frames_hess_row(const void *kin, int n, const double *w, const double u[12],
                            double row[12]) {
    const ld_el_frames *f = kin;
    double a[3], b[3], c[3], c2[3], t[3], mth[3] = {-f->th[0], -f->th[1], -f->th[2]};
    tmv(a, f->C1, u);
    tmv(b, f->C2, u + 6);
    dtinv_t(mth, a, w, f->gam, f->gam1, c);
    dtinv_t(f->th, b, w, f->gam, f->gam1, c2);
    for (int i = 0; i < 3; ++i) c[i] += c2[i];
    tmv(t, f->Tit, c); /* J_θᵀ c */
    mv(row, f->C1, t);
    tmv(t, f->Ti, c);
    mv(row + 6, f->C2, t);
    for (int i = 0; i < 3; ++i) row[i] = -row[i], row[3 + i] = row[9 + i] = 0.0;
    if (n == 3) return;
    const double *wr = w + 3;
    double y[3], Cy[3], yr[3], Ay[3], z[3], hp[3], Rh[3], s[3], sw[3];
    ld_v3_cross(y, a, wr); /* J_rᵀ (a × wr) */
    mv(Cy, f->C1, y);
    ld_v3_cross(t, Cy, f->p1);
    ld_v3_cross(yr, y, f->r);
    mv(c, f->C1, yr);
    mv(Ay, f->A, y);
    tmv(z, f->R2, Ay);
    ld_v3_cross(c2, f->p2, z);
    for (int i = 0; i < 3; ++i) {
        row[i] += t[i] + c[i];
        row[3 + i] -= Ay[i];
        row[6 + i] += c2[i];
        row[9 + i] += Ay[i];
    }
    ld_v3_cross(hp, f->p2, u + 6); /* −C1 (s × wr), s = Aᵀ(ux2 − ux1 − R2 hp) */
    mv(Rh, f->R2, hp);
    for (int i = 0; i < 3; ++i) t[i] = u[9 + i] - u[3 + i] - Rh[i];
    tmv(s, f->A, t);
    ld_v3_cross(sw, s, wr);
    mv(c, f->C1, sw);
    mv(Ay, f->A, wr); /* −hp × (R2ᵀ A wr) */
    tmv(z, f->R2, Ay);
    ld_v3_cross(c2, hp, z);
    for (int i = 0; i < 3; ++i) row[i] -= c[i], row[6 + i] -= c2[i];
}

/* J (n × 12, row-major) in closed form (the header):
 *   θ rows  [−T⁻ᵀ C1ᵀ, 0, T⁻¹ C2ᵀ, 0]
 *   r rows  [C1ᵀ hat(p1) + hat(r) C1ᵀ, −Aᵀ, −Aᵀ R2 hat(p2), Aᵀ]. */
static void jacobian(const ld_el_frames *f, int n, double *J) {
    double C1t[9], C2t[9], X[4][9] = {{0}};
    ld_m3_transpose(C1t, f->C1);
    ld_m3_transpose(C2t, f->C2);
    ld_m3_mul(X[0], f->Tit, C1t);
    ld_m3_mul(X[2], f->Ti, C2t);
    for (int i = 0; i < 9; ++i) X[0][i] = -X[0][i];
    memset(J, 0, (size_t)n * 12 * sizeof *J);
    for (int b = 0; b < 4; ++b)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) J[12 * i + 3 * b + j] = X[b][3 * i + j];
    if (n == 3) return;
    double Hp[9], Hr[9], At[9], R2H[9];
    ld_so3_hat(Hp, f->p1);
    ld_so3_hat(Hr, f->r);
    ld_m3_transpose(At, f->A);
    ld_m3_mul(X[0], C1t, Hp);
    ld_m3_mul(X[1], Hr, C1t);
    for (int i = 0; i < 9; ++i) X[0][i] += X[1][i], X[1][i] = -At[i], X[3][i] = At[i];
    ld_so3_hat(Hp, f->p2);
    ld_m3_mul(R2H, f->R2, Hp);
    ld_m3_mul(X[2], At, R2H);
    for (int i = 0; i < 9; ++i) X[2][i] = -X[2][i];
    for (int b = 0; b < 4; ++b)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) J[12 * (3 + i) + 3 * b + j] = X[b][3 * i + j];
}

void ld_el_frames_eval(const ld_el_ctx *c, const double C1[9], const double C2[9],
                       const double p1[3], const double p2[3], int n, ld_el_frames *f,
                       ld_el_strain *s) {
    double B[9], Rr[9], d[3], P[3];
    memcpy(f->R1, c->R[0], sizeof f->R1);
    memcpy(f->R2, c->R[1], sizeof f->R2);
    memcpy(f->C1, C1, sizeof f->C1);
    memcpy(f->C2, C2, sizeof f->C2);
    memcpy(f->p1, p1, sizeof f->p1);
    memcpy(f->p2, p2, sizeof f->p2);
    ld_m3_mul(f->A, f->R1, C1);
    ld_m3_mul(B, f->R2, C2);
    double At[9];
    ld_m3_transpose(At, f->A);
    ld_m3_mul(Rr, At, B);
    ld_so3_log(f->th, Rr);
    mv(P, f->R2, p2);
    mv(d, f->R1, p1);
    for (int i = 0; i < 3; ++i) d[i] = c->x[1][i] + P[i] - c->x[0][i] - d[i];
    tmv(f->r, f->A, d);
    double phi = ld_v3_norm(f->th), H[9], H2[9];
    ld_fn fn;
    ld_fn_eval(&fn, phi, 4);
    f->gam = ld_fn_tinv(&fn);
    f->gam1 = gamma1(phi);
    ld_so3_hat(H, f->th); /* T⁻¹ = I + H/2 + γ H², T⁻ᵀ = I − H/2 + γ H² */
    ld_m3_mul(H2, H, H);
    for (int i = 0; i < 9; ++i) {
        double id = i % 4 == 0 ? 1.0 : 0.0;
        f->Ti[i] = id + 0.5 * H[i] + f->gam * H2[i];
        f->Tit[i] = id - 0.5 * H[i] + f->gam * H2[i];
    }
    s->n = n;
    s->kin = f;
    s->hess_row = frames_hess_row;
    s->hmask = n == 3 ? 00707u : 07777u; /* θ alone: H(·, u) sees u's rotations only */
    memcpy(s->e, f->th, sizeof f->th);
    memcpy(s->e + 3, f->r, sizeof f->r);
    jacobian(f, n, s->J);
}

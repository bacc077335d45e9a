/*
 * Strain elements (elements.h): an element whose force is F = Jᵀσ for a strain e(q) with
 * Jacobian J = ∂e/∂(δθ1, δx1, δθ2, δx2) and a stress σ(e, ė), ė = J vel. Then
 *   Kv = ∂F/∂vel = Jᵀ Sd J,
 *   Kq = ∂F/∂pose at fixed vel = Jᵀ (Se J + Sd ∂ė/∂pose) + ∂Jᵀ/∂pose σ,
 * with ∂ė/∂pose · π = H(π, vel) and (∂Jᵀ/∂pose σ)_ij = σᵀ H(e_j, e_i), H the strain's second
 * derivative. σ = ∂W/∂e + Sd ė for an elastic energy W and a Rayleigh dissipation ½ ėᵀ Sd ė.
 */
#include <string.h>

#include "elements.h"

void ld_el_strain_rate(const ld_el_strain *s, const double vel[12], double ed[6]) {
    for (int i = 0; i < s->n; ++i) {
        double acc = 0.0;
        for (int j = 0; j < 12; ++j) acc += s->J[12 * i + j] * vel[j];
        ed[i] = acc;
    }
}

/* o += Jᵀ A (A: n×12), rows of J's columns that are zero left out (a rotational strain does
 * not see the translations: half of them). */
static void add_jt(const ld_el_strain *s, const double *A, double *o) {
    for (int i = 0; i < 12; ++i) {
        int any = 0;
        for (int r = 0; r < s->n; ++r) any |= s->J[12 * r + i] != 0.0;
        if (!any) continue;
        for (int j = 0; j < 12; ++j) {
            double acc = 0.0;
            for (int r = 0; r < s->n; ++r) acc += s->J[12 * r + i] * A[12 * r + j];
            o[12 * i + j] += acc;
        }
    }
}

/* A = S J (S: n×n). */
static void mul_sj(const ld_el_strain *s, const double *S, double *A) {
    int n = s->n;
    for (int r = 0; r < n; ++r)
        for (int j = 0; j < 12; ++j) {
            double acc = 0.0;
            for (int l = 0; l < n; ++l) acc += S[n * r + l] * s->J[12 * l + j];
            A[12 * r + j] = acc;
        }
}

static int nonzero(const double *x, int n) {
    for (int i = 0; i < n; ++i)
        if (x[i] != 0.0) return 1;
    return 0;
}

/* Kq: Jᵀ (Se J + Sd H(·, vel)) + σᵀ H(·, ·), H by its weighted rows (elements.h): row r of
 * H(·, vel) is hess_row(e_r, vel), row i of σᵀ H(·, ·) (u = e_i) is hess_row(σ, e_i). */
static void add_kq(const ld_el_strain *s, const double *sig, const double *Se, const double *Sd,
                   const double vel[12], double *Kq) {
    int n = s->n;
    double A[72] = {0}, Hv[72], row[12], er[6] = {0}, ei[12] = {0};
    mul_sj(s, Se, A);
    if (nonzero(Sd, n * n)) {
        for (int r = 0; r < n; ++r) { /* Hv = H(·, vel) */
            er[r] = 1.0;
            s->hess_row(s->kin, n, er, vel, Hv + 12 * r);
            er[r] = 0.0;
        }
        for (int r = 0; r < n; ++r)
            for (int j = 0; j < 12; ++j) {
                double acc = 0.0;
                for (int l = 0; l < n; ++l) acc += Sd[n * r + l] * Hv[12 * l + j];
                A[12 * r + j] += acc;
            }
    }
    add_jt(s, A, Kq);
    if (!nonzero(sig, n)) return;
    for (int i = 0; i < 12; ++i) {
        if (!(s->hmask >> i & 1u)) continue; /* a zero row */
        ei[i] = 1.0;
        s->hess_row(s->kin, n, sig, ei, row);
        ei[i] = 0.0;
        for (int j = 0; j < 12; ++j) Kq[12 * i + j] += row[j];
    }
}

void ld_el_strain_apply(const ld_el_strain *s, const double *sig, const double *Se,
                        const double *Sd, const double vel[12], unsigned want, ld_el_out *o) {
    if (want & LD_EL_FORCE)
        for (int i = 0; i < 12; ++i)
            for (int r = 0; r < s->n; ++r) o->F[i] += s->J[12 * r + i] * sig[r];
    if (want & LD_EL_GV) {
        double A[72];
        mul_sj(s, Sd, A);
        add_jt(s, A, o->Kv);
    }
    if (want & LD_EL_GQ) add_kq(s, sig, Se, Sd, vel, o->Kq);
}

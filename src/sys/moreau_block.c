/*
 * The moreau method's joint rows solved together (moreau_impl.h): where a model has at most
 * LD_MJ_BLOCK_ROWS joint rows, each sweep solves all of them at once with the contacts'
 * impulses held — a block Gauss–Seidel whose joint block is exact — instead of one row after
 * the other. The block is the Delassus matrix A = B M⁻¹ Bᵀ of the rows at the step's state
 * (M⁻¹ block diagonal: 1/m and J⁻¹ per body), factored once per evaluation by Cholesky. A row
 * that depends on the rows before it (a redundant constraint: its pivot falls below 10⁻¹⁰ of
 * its diagonal) gets no impulse of its own; the others carry its load.
 *
 * Why: Gauss–Seidel over the rows of a chain of joints converges at the rate of the chain's
 * worst conditioning — light bodies between joints, long loops — and hundreds of sweeps per step
 * go to the joints alone; the direct block makes the joints exact in one sweep and leaves the
 * sweeps to the contacts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "moreau_impl.h"

/* Entry (i, j) of a row-major m × m matrix. */
static inline size_t at(int i, int j, int m) {
    return (size_t)i * (size_t)m + (size_t)j;
}

/* M⁻¹ B_rᵀ restricted to body b's entries e0 … e0 + 5 of row r: w (Ω part by J⁻¹, ẋ by 1/m). */
static void inv_mass_row(const mj *S, const mj_rows *R, int e0, double w[6]) {
    const mj_body *b = &S->b[R->body[e0]];
    double bo[3] = {R->B[e0], R->B[e0 + 1], R->B[e0 + 2]};
    ld_m3_mulv(w, b->Ji, bo);
    for (int k = 0; k < 3; ++k) w[3 + k] = R->B[e0 + 3 + k] / b->m;
}

/* Row s's entries dotted with w (6 per body, bodies wb[0 … nw − 1]). */
static double row_dot(const mj_rows *R, int s, const int *wb, double (*w)[6], int nw) {
    double d = 0.0;
    for (int e = R->ptr[s]; e + 5 < R->ptr[s + 1]; e += 6)
        for (int k = 0; k < nw; ++k)
            if (R->body[e] == wb[k])
                for (int j = 0; j < 6; ++j) d += R->B[e + j] * w[k][j];
    return d;
}

/* A = B M⁻¹ Bᵀ (lower triangle, row-major m × m) at the bodies' poses in S. */
static void assemble(const mj *S, mj_rows *R) {
    int m = R->m;
    for (int r = 0; r < m; ++r) {
        int wb[4], nw = 0;
        double w[4][6];
        for (int e = R->ptr[r]; e + 5 < R->ptr[r + 1] && nw < 4; e += 6) {
            wb[nw] = R->body[e];
            inv_mass_row(S, R, e, w[nw++]);
        }
        for (int s = r; s < m; ++s) R->A[at(s, r, m)] = row_dot(R, s, wb, w, nw);
    }
}

/* Cholesky A = L Lᵀ in place (lower triangle); a pivot below 1e-10 of its diagonal entry marks
 * a dependent row: its column is zeroed and its pivot set to 0 (no impulse). */
static void factor(mj_rows *R) {
    int m = R->m;
    double *A = R->A;
    for (int j = 0; j < m; ++j) {
        double d = A[at(j, j, m)], d0 = d;
        for (int k = 0; k < j; ++k) d -= A[at(j, k, m)] * A[at(j, k, m)];
        if (!(d > 1e-10 * d0)) {
            for (int i = j; i < m; ++i) A[at(i, j, m)] = 0.0;
            continue;
        }
        double l = sqrt(d);
        A[at(j, j, m)] = l;
        for (int i = j + 1; i < m; ++i) {
            double a = A[at(i, j, m)];
            for (int k = 0; k < j; ++k) a -= A[at(i, k, m)] * A[at(j, k, m)];
            A[at(i, j, m)] = a / l;
        }
    }
}

/* x ← A⁻¹ x by the factor (a dependent row's entry 0). */
static void solve(const mj_rows *R, double *x) {
    int m = R->m;
    const double *L = R->A;
    for (int i = 0; i < m; ++i) {
        double l = L[at(i, i, m)], a = x[i];
        for (int k = 0; k < i; ++k) a -= L[at(i, k, m)] * x[k];
        x[i] = l > 0.0 ? a / l : 0.0;
    }
    for (int i = m - 1; i >= 0; --i) {
        double l = L[at(i, i, m)], a = x[i];
        for (int k = i + 1; k < m; ++k) a -= L[at(k, i, m)] * x[k];
        x[i] = l > 0.0 ? a / l : 0.0;
    }
}

int ld_mj_block_create(mj_rows *R) {
    R->A = NULL, R->u = NULL;
    if (R->m == 0 || R->m > LD_MJ_BLOCK_ROWS) return LD_OK;
    R->A = malloc((size_t)R->m * (size_t)R->m * sizeof *R->A);
    R->u = malloc((size_t)R->m * sizeof *R->u);
    return R->A && R->u ? LD_OK : LD_ENOMEM;
}

void ld_mj_block_free(mj_rows *R) {
    free(R->A);
    free(R->u);
}

void ld_mj_block_eval(const mj *S, mj_rows *R) {
    if (!R->A) return;
    assemble(S, R);
    factor(R);
}

void ld_mj_block_sweep(mj *S, int pos, double h, double *change, double *size, double *resid) {
    mj_rows *R = &S->J;
    for (int r = 0; r < R->m; ++r) {
        double u = pos ? 2.0 * R->phi[r] / h : R->phit[r];
        for (int e = R->ptr[r]; e < R->ptr[r + 1]; ++e) {
            const mj_body *b = &S->b[R->body[e]];
            u += R->B[e] * (R->slot[e] < 3 ? b->Om[R->slot[e]] : b->xd[R->slot[e] - 3]);
        }
        *resid = max2(*resid, fabs(u));
        R->u[r] = -u;
    }
    solve(R, R->u);
    for (int r = 0; r < R->m; ++r) {
        double dl = R->u[r];
        R->lam[r] += dl;
        *change = max2(*change, fabs(dl));
        *size = max2(*size, fabs(R->lam[r]));
        if (dl != 0.0) ld_mj_row_apply(S, r, dl);
    }
}

/*
 * The condition number of the index-3 Newton matrix against the step size (docs/constraints.md
 * "Conditioning"): generalized-α's iteration matrix at the initial state of a mechanism,
 *   unscaled   [β′M + γ′C + K, Bᵀ; B, 0]        (the Jacobian of [M v̇ + g + Bᵀλ; Φ]),
 *   scaled     [βh² (β′M + γ′C + K), Bᵀ; B, 0]  (the rows of the dynamics times βh², as the
 *                                                 integrators form it: Bottasso, Bauchau &
 *                                                 Cardona 2007; Kynema's preconditioning),
 * with β′ = (1 − α_m)/(βh²(1 − α_f)), γ′ = γ/(βh), T = I, ρ∞ = 0.9; the 2-norm condition
 * number from the singular values. The unscaled one grows like 1/h², the scaled one stays.
 * CSV: model,h,rows_left_out,cond_unscaled,cond_scaled.
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME      "bench_conditioning"
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "bench_common.h"

#include "liedyn/integrator.h"
#include "liedyn/system.h"

/* The 2-norm condition number of the n×n row-major A (destroyed). */
static double cond2(double *A, int n) {
    double *sv = malloc((size_t)n * sizeof *sv), *sup = malloc((size_t)n * sizeof *sup);
    if (!sv || !sup) die("cond2", "out of memory");
    lapack_int info =
        LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', n, n, A, n, sv, NULL, 1, NULL, 1, sup);
    double c = info == 0 && sv[n - 1] > 0.0 ? sv[0] / sv[n - 1] : (double)INFINITY;
    free(sv);
    free(sup);
    return c;
}

static void study(const char *name, int quick) {
    char path[1024];
    snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, name);
    ld_model m;
    ld_model_error e;
    memset(&e, 0, sizeof e);
    if (ld_model_load(path, &m, &e)) die(name, e.msg);
    ld_system s;
    double *q0, *v0;
    check_ld(name, ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0));
    int k = s.k, mr = s.m, n = k + mr;
    size_t kk = (size_t)k * (size_t)k;
    double *M = calloc(kk, sizeof *M), *C = calloc(kk, sizeof *C), *K = calloc(kk, sizeof *K);
    double *B = calloc((size_t)mr * (size_t)k, sizeof *B), *vd = calloc((size_t)n, sizeof *vd);
    double *S = calloc((size_t)n * (size_t)n, sizeof *S);
    if (!M || !C || !K || !B || !vd || !S) die(name, "out of memory");
    if (s.ops.mass(&s, q0, M) || ld_sys_g_v(&s, 0.0, q0, v0, C) || s.ops.phi_q(&s, 0.0, q0, B) ||
        ld_sys_initial_accel(&s, 0.0, q0, v0, vd, vd + k) ||
        ld_sys_stiffness(&s, 0.0, q0, v0, vd, vd + k, K))
        die(name, "the matrices cannot be evaluated");
    const double r = 0.9, am = (2 * r - 1) / (r + 1), af = r / (r + 1), gam = 0.5 + af - am;
    const double beta = 0.25 * (gam + 0.5) * (gam + 0.5);
    int nd = ld_model_redundant_rows(&s, NULL, NULL, 0);
    for (double h = 1e-1; h > (quick ? 1e-3 : 1e-7); h /= 10.0) {
        double bh2 = beta * h * h, bp = (1 - am) / (bh2 * (1 - af)), gp = gam / (beta * h);
        double c[2];
        for (int scaled = 0; scaled < 2; ++scaled) {
            double sc = scaled ? bh2 : 1.0;
            size_t N = (size_t)n, K0 = (size_t)k;
            memset(S, 0, N * N * sizeof *S);
            for (size_t i = 0; i < K0; ++i)
                for (size_t j = 0; j < K0; ++j)
                    S[i * N + j] = sc * (bp * M[i * K0 + j] + gp * C[i * K0 + j] + K[i * K0 + j]);
            for (size_t i = 0; i < (size_t)mr; ++i)
                for (size_t j = 0; j < K0; ++j) {
                    S[(K0 + i) * N + j] = B[i * K0 + j];
                    S[j * N + K0 + i] = B[i * K0 + j];
                }
            c[scaled] = cond2(S, n);
        }
        printf("%s,%.0e,%d,%.6e,%.6e\n", name, h, nd, c[0], c[1]);
    }
    free(M), free(C), free(K), free(B), free(vd), free(S);
    free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    int quick = bench_quick();
    printf("model,h,rows_left_out,cond_unscaled,cond_scaled\n");
    study("four-bar", quick);
    study("andrews-squeezer", quick);
    if (!quick) study("bricard", quick);
    return 0;
}

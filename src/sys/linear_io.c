/*
 * Inputs and outputs of the first-order form of a linearization (linearize.h): the input matrix
 * of generalized forces, and the bodies' motion per tangent increment from which a load's
 * generalized force and an output's row follow.
 */
#include <stdlib.h>
#include <string.h>

#include "liedyn/linalg.h"
#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

int ld_linear_input_matrix(const ld_linear *lin, const double *F, int p, double *Bu) {
    if (!lin || !F || !Bu || p < 1 || lin->n < 1 || !lin->Mr) return LD_EINVAL;
    size_t n = (size_t)lin->n, k = (size_t)lin->k, np = (size_t)p;
    ld_la *la = ld_la_create(LD_LA_DENSE, lin->n);
    double *col = ld_xmalloc(n * sizeof *col, "the column");
    int rc = la && col ? ld_la_factor_dense(la, lin->Mr) : LD_ENOMEM;
    memset(Bu, 0, 2 * n * np * sizeof *Bu);
    for (size_t c = 0; !rc && c < np; ++c) { /* column c: Mr⁻¹ Nᵀ F_c */
        for (size_t i = 0; i < n; ++i) {
            double acc = 0.0;
            for (size_t l = 0; l < k; ++l) acc += lin->N[l * n + i] * F[l * np + c];
            col[i] = acc;
        }
        rc = ld_la_solve(la, col);
        for (size_t i = 0; !rc && i < n; ++i) Bu[(n + i) * np + c] = col[i];
    }
    ld_la_free(la);
    free(col);
    return rc;
}

int ld_linear_body_jacobian(const ld_system *s, const double *q, int body, double *Jx, double *Jr) {
    if (!s || !q || body < 0 || s->k < 1) return LD_EINVAL;
    size_t k = (size_t)s->k;
    double *e = ld_xcalloc(k, sizeof *e, "the unit vector");
    if (!e) return LD_ENOMEM;
    int rc = LD_OK;
    for (size_t i = 0; !rc && i < k; ++i) {
        double dx[3], dth[3];
        e[i] = 1.0;
        rc = ld_modes_body_shape(s, q, e, body, dx, dth);
        e[i] = 0.0;
        for (size_t r = 0; !rc && r < 3; ++r) {
            if (Jx) Jx[r * k + i] = dx[r];
            if (Jr) Jr[r * k + i] = dth[r];
        }
    }
    free(e);
    return rc;
}

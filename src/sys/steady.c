/*
 * The steady motion of a system turning rigidly about an axis (liedyn/linearize.h,
 * ld_steady_rotation; docs/modes.md): the configuration at which the rigid rotation's velocity
 * field is a solution — a relative equilibrium, such as a spinning blade stretched by its
 * centrifugal forces. Newton on the forces out of balance, with the linearization about the
 * moving state as its matrix.
 */
#include <lapacke.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "liedyn/lie.h"
#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"
#include "nodes.h"

/* Rᵀ y for node i's orientation in q (se3: R row-major first; s3sdr3: the quaternion first). */
static void rotate_inv(const ld_node *nd, const double *qi, const double y[3], double out[3]) {
    if (nd->kind == LD_NODE_SE3) {
        for (int r = 0; r < 3; ++r) out[r] = qi[r] * y[0] + qi[3 + r] * y[1] + qi[6 + r] * y[2];
    } else {
        ld_quat_rotate_inv(out, qi, y);
    }
}

/* The rigid rotation's body velocities of every node: Ω_b = Rᵀ ω, U = Rᵀ (ω × (x − c)). */
static void rigid_velocity(const ld_system *s, const double *q, const double w[3],
                           const double c[3], double *v) {
    for (int i = 0; i < s->nnodes; ++i) {
        const ld_node *nd = &s->nodes[i];
        const double *qi = q + nd->qoff, *x = qi + (nd->kind == LD_NODE_SE3 ? 9 : 4);
        double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
        double u[3] = {w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2],
                       w[0] * r[1] - w[1] * r[0]};
        rotate_inv(nd, qi, w, v + nd->voff);
        rotate_inv(nd, qi, u, v + nd->voff + 3);
    }
}

/* Nᵀ M a into f (n): the generalized forces out of balance on the constraints' tangent space.
 * Returns |f|∞. tmp holds k values. */
static double imbalance(const ld_linear *lin, double *tmp, double *f) {
    int k = lin->k, n = lin->n;
    for (int i = 0; i < k; ++i) {
        double acc = 0.0;
        for (int j = 0; j < k; ++j) acc += lin->M[(size_t)i * (size_t)k + (size_t)j] * lin->a[j];
        tmp[i] = acc;
    }
    double big = 0.0;
    for (int i = 0; i < n; ++i) {
        double acc = 0.0;
        for (int j = 0; j < k; ++j) acc += lin->N[(size_t)j * (size_t)n + (size_t)i] * tmp[j];
        f[i] = acc;
        big = fmax(big, fabs(acc));
    }
    return big;
}

/* δ = N Kr⁻¹ f (k), Kr factored in place in A. LD_OK or LD_ESINGULAR. */
static int newton_step(const ld_linear *lin, double *A, lapack_int *piv, double *f, double *d) {
    int k = lin->k, n = lin->n;
    memcpy(A, lin->Kr, (size_t)n * (size_t)n * sizeof *A);
    if (n > 0 && LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, 1, A, n, piv, f, 1) != 0) return LD_ESINGULAR;
    double big = 0.0;
    for (int i = 0; i < k; ++i) {
        double acc = 0.0;
        for (int j = 0; j < n; ++j) acc += lin->N[(size_t)i * (size_t)n + (size_t)j] * f[j];
        d[i] = acc;
        big = fmax(big, fabs(acc));
    }
    return isfinite(big) ? LD_OK : LD_ESINGULAR;
}

static double max_abs(const double *x, int n) {
    double big = 0.0;
    for (int i = 0; i < n; ++i) big = fmax(big, fabs(x[i]));
    return big;
}

/* The largest |x| of a node: the configuration's size. */
static double span(const ld_system *s, const double *q) {
    double big = 0.0;
    for (int i = 0; i < s->nnodes; ++i) {
        const double *qi = q + s->nodes[i].qoff;
        big = fmax(big, max_abs(qi + (s->nodes[i].kind == LD_NODE_SE3 ? 9 : 4), 3));
    }
    return big;
}

static int check_nodes(const ld_system *s, char *msg, size_t cap) {
    for (int i = 0; i < s->nnodes; ++i)
        if (s->nodes[i].kind != LD_NODE_SE3 && s->nodes[i].kind != LD_NODE_S3SDR3)
            return ld_fail_msg(msg, cap, LD_ENOTSUPPORTED,
                               "a steady rotation needs body-frame velocities (the se3 or s3sdr3 "
                               "formulation): node %d is of kind %s",
                               i, ld_node_kind_get(s->nodes[i].kind)->name);
    return LD_OK;
}

int ld_steady_rotation(const ld_system *s, double t, const double axis[3], const double point[3],
                       double rate, double *q, double *v, ld_steady_info *info, char *msg,
                       size_t cap) {
    if (msg && cap) msg[0] = '\0';
    if (!s || !axis || !point || !q || !v || !isfinite(rate))
        return ld_fail_msg(msg, cap, LD_EINVAL, "invalid arguments to the steady rotation");
    double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (!(len > 0.0) || !isfinite(len))
        return ld_fail_msg(msg, cap, LD_EINVAL,
                           "the axis of the steady rotation is zero or not finite");
    int rc = check_nodes(s, msg, cap);
    if (rc) return rc;
    const double w[3] = {rate * axis[0] / len, rate * axis[1] / len, rate * axis[2] / len};
    size_t k = (size_t)s->k;
    double *tmp = malloc(k * sizeof *tmp), *f = malloc(k * sizeof *f), *d = malloc(k * sizeof *d),
           *qn = malloc((size_t)s->nq * sizeof *qn), *A = malloc(k * k * sizeof *A);
    lapack_int *piv = malloc(k * sizeof *piv);
    ld_steady_info st = {0, 0.0, 0.0};
    if (!tmp || !f || !d || !qn || !A || !piv) {
        rc = LD_ENOMEM;
        if (msg && cap)
            ld_oom_format(msg, cap, (double)(k * k + 4 * k + (size_t)s->nq) * 8.0,
                          "the steady rotation's Newton");
    }
    for (int it = 0; !rc; ++it) {
        ld_linear lin;
        rigid_velocity(s, q, w, point, v);
        if ((rc = ld_linearize(s, t, q, v, &lin, msg, cap))) break;
        double res = imbalance(&lin, tmp, f);
        if (it == 0) st.residual0 = res;
        st.residual = res;
        st.iterations = it;
        /* converged: the forces balance to 1e-10 of those at the start (the centrifugal ones) */
        if (res <= 1e-10 * st.residual0 || res == 0.0) {
            ld_linear_free(&lin);
            break;
        }
        if (it >= LD_STEADY_MAX_ITER) {
            ld_linear_free(&lin);
            rc =
                ld_fail_msg(msg, cap, LD_EDOMAIN,
                            "no steady rotation at %.6g rad/s: the forces out of balance fell from "
                            "%.3g only to %.3g in %d Newton iterations",
                            rate, st.residual0, res, it);
            break;
        }
        rc = newton_step(&lin, A, piv, f, d);
        ld_linear_free(&lin);
        if (rc) {
            ld_fail_msg(msg, cap, rc,
                        "no steady rotation at %.6g rad/s: the stiffness about the moving "
                        "state is singular (a free motion the rotation does not hold)",
                        rate);
            break;
        }
        ld_sys_retract(s, qn, q, d);
        memcpy(q, qn, (size_t)s->nq * sizeof *q);
        /* or converged to round-off: a step of 1e-14 of the configuration's size (stiff
         * members leave forces of ε times their stiffness that no step removes) */
        if (max_abs(d, s->k) <= 1e-14 * (1.0 + span(s, q))) {
            st.iterations = it + 1;
            break;
        }
    }
    if (!rc) rigid_velocity(s, q, w, point, v);
    if (info) *info = st;
    free(tmp), free(f), free(d), free(qn), free(A), free(piv);
    return rc;
}

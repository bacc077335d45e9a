/*
 * The joint-space view of a compiled tree model (liedyn/coords.h): the map J from the joints'
 * rates to the velocities v of the maximal coordinates, and the joint-space mass matrix
 * Jᵀ M J. J is found from the equations v satisfies — the joints' constraints B v = 0 and the
 * joints' rates (ld_model_joint_coords, linear in v at fixed q) equal to a unit vector — one
 * least-squares solve (LAPACK dgels) for all columns; on a tree the stacked system is square
 * and regular. Allocates its dense scratch (not for use inside a step).
 */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "liedyn/coords.h"
#include "liedyn/liedyn.h"
#include "compile.h"
#include "../core/oom.h"

/* Rates a joint of kind k contributes: its coordinates' rates, a universal joint 2. */
static int jj_joint_dofs(ld_joint_kind k) {
    if (k == LD_JOINT_DRIVER) return 0;
    return k == LD_JOINT_UNIVERSAL ? 2 : ld_joint_coords_count(k);
}

/* 1 when body b is no joint's body2 (drivers aside): the root of a tree that floats. */
static int jj_free_body(const ld_model *m, int b) {
    for (int j = 0; j < m->njoints; ++j)
        if (m->joints[j].kind != LD_JOINT_DRIVER && m->joints[j].body2 == b) return 0;
    return 1;
}

/* The model behind s when s is a compiled tree of rigid bodies, else NULL. */
static const ld_model *jj_model(const ld_system *s) {
    if (!s || !s->user || ld_rb(s)->tree) return NULL; /* the tree: ld_model_tree_mass_matrix */
    const ld_model *m = ld_rb(s)->m;
    if (!m || m->nrods > 0 || m->nbeams > 0 || ld_model_loop_count(m) != 0) return NULL;
    return m;
}

int ld_model_joint_dofs(const ld_system *s) {
    const ld_model *m = jj_model(s);
    if (!m) return -1;
    int n = 0;
    for (int j = 0; j < m->njoints; ++j) n += jj_joint_dofs(m->joints[j].kind);
    for (int b = 0; b < m->nbodies; ++b) n += 6 * jj_free_body(m, b);
    return n;
}

/* The rates of joint j at (q, v) into r (jj_joint_dofs entries): ld_model_joint_coords's
 * rates; for a universal joint w·a and w·(Q b₀), the rates about its two axes (a fixed in
 * body1, b₀ = axis2 fixed in body2, both at the start; Q = exp ρ the relative rotation). */
static int jj_rates(const ld_system *s, const ld_model *m, int j, double t, const double *q,
                    const double *v, double *r) {
    double c[LD_JOINT_COORDS_MAX], cd[LD_JOINT_COORDS_MAX];
    int n = 0, st = ld_model_joint_coords(s, j, t, q, v, c, cd, &n);
    if (st != LD_OK) return st;
    const ld_joint *jd = &m->joints[j];
    if (jd->kind == LD_JOINT_UNIVERSAL) {
        double Q[4], b[3];
        ld_quat_from_rotvec(Q, c);
        ld_quat_rotate(b, Q, jd->axis2);
        r[0] = ld_v3_dot(jd->axis, cd) / ld_v3_norm(jd->axis);
        r[1] = ld_v3_dot(b, cd) / ld_v3_norm(b);
    } else {
        for (int i = 0; i < jj_joint_dofs(jd->kind); ++i) r[i] = cd[i];
    }
    return LD_OK;
}

/* Row block of the rates at (q, v): the joints' (jj_rates), then each free body's spatial
 * centre-of-mass velocity and body angular velocity; n entries into r. */
static int jj_all_rates(const ld_system *s, const ld_model *m, double t, const double *q,
                        const double *v, double *r) {
    int i = 0;
    for (int j = 0; j < m->njoints; ++j) {
        int st = jj_rates(s, m, j, t, q, v, r + i);
        if (st != LD_OK) return st;
        i += jj_joint_dofs(m->joints[j].kind);
    }
    for (int b = 0; b < m->nbodies; ++b) {
        if (!jj_free_body(m, b)) continue;
        double x[3], qq[4];
        int st = ld_model_body_state(s, b, q, v, x, qq, r + i + 3, r + i);
        if (st != LD_OK) return st;
        i += 6;
    }
    return LD_OK;
}

int ld_model_joint_jacobian(const ld_system *s, double t, const double *q, double *J) {
    const ld_model *m = jj_model(s);
    if (!m) return s && s->user ? LD_ENOTSUPPORTED : LD_EINVAL;
    if (!q || !J) return LD_EINVAL;
    int k = s->k, mc = s->m, n = ld_model_joint_dofs(s), rows = mc + n;
    if (rows < k) return LD_ESINGULAR; /* fewer equations than velocities: not a tree of joints */
    double *A = ld_xcalloc((size_t)rows * (size_t)k, sizeof *A,
                           "the joint Jacobian"); /* column-major rows × k */
    double *Bm =
        ld_xcalloc((size_t)(mc > 0 ? mc : 1) * (size_t)k, sizeof *Bm, "the joint Jacobian");
    double *R = ld_xcalloc((size_t)rows * (size_t)(n > 0 ? n : 1), sizeof *R, "the joint Jacobian");
    double *e = ld_xcalloc((size_t)k, sizeof *e, "the joint Jacobian"),
           *r = ld_xcalloc((size_t)(n > 0 ? n : 1), sizeof *r, "the joint Jacobian");
    int st = (!A || !Bm || !R || !e || !r) ? LD_ENOMEM : LD_OK;
    if (st == LD_OK && mc > 0) st = s->ops.phi_q(s, t, q, Bm); /* row-major m × k */
    for (int c = 0; st == LD_OK && c < k; ++c) {
        for (int i = 0; i < mc; ++i)
            A[(size_t)c * (size_t)rows + (size_t)i] = Bm[(size_t)i * (size_t)k + (size_t)c];
        e[c] = 1.0;
        st = jj_all_rates(s, m, t, q, e, r);
        e[c] = 0.0;
        for (int i = 0; i < n; ++i) A[(size_t)c * (size_t)rows + (size_t)(mc + i)] = r[i];
    }
    for (int i = 0; i < n; ++i) R[(size_t)i * (size_t)rows + (size_t)(mc + i)] = 1.0;
    if (st == LD_OK && n > 0) {
        lapack_int info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)rows, (lapack_int)k,
                                        (lapack_int)n, A, (lapack_int)rows, R, (lapack_int)rows);
        if (info != 0) st = info > 0 ? LD_ESINGULAR : LD_EINVAL;
    }
    for (int c = 0; st == LD_OK && c < n; ++c)
        for (int i = 0; i < k; ++i) {
            double x = R[(size_t)c * (size_t)rows + (size_t)i];
            if (!isfinite(x)) st = LD_ESINGULAR;
            J[(size_t)c * (size_t)k + (size_t)i] = x;
        }
    free(A), free(Bm), free(R), free(e), free(r);
    return st;
}

int ld_model_joint_mass_matrix(const ld_system *s, double t, const double *q, double *Mj) {
    int n = ld_model_joint_dofs(s);
    if (n < 0) return s && s->user ? LD_ENOTSUPPORTED : LD_EINVAL;
    if (!q || !Mj) return LD_EINVAL;
    int k = s->k;
    double *J = ld_xcalloc((size_t)k * (size_t)(n > 0 ? n : 1), sizeof *J, "the joint Jacobian");
    double *M = ld_xcalloc((size_t)k * (size_t)k, sizeof *M, "the joint Jacobian"),
           *MJ = ld_xcalloc((size_t)k, sizeof *MJ, "the joint Jacobian");
    int st = (!J || !M || !MJ) ? LD_ENOMEM : LD_OK;
    if (st == LD_OK) st = ld_model_joint_jacobian(s, t, q, J);
    if (st == LD_OK) st = s->ops.mass(s, q, M);
    for (int c = 0; st == LD_OK && c < n; ++c) {
        const double *Jc = J + (size_t)c * (size_t)k;
        for (int i = 0; i < k; ++i) {
            double acc = 0.0;
            for (int l = 0; l < k; ++l) acc += M[(size_t)i * (size_t)k + (size_t)l] * Jc[l];
            MJ[i] = acc;
        }
        for (int r = 0; r < n; ++r) {
            const double *Jr = J + (size_t)r * (size_t)k;
            double acc = 0.0;
            for (int i = 0; i < k; ++i) acc += Jr[i] * MJ[i];
            Mj[(size_t)r * (size_t)n + (size_t)c] = acc;
        }
    }
    free(J), free(M), free(MJ);
    return st;
}

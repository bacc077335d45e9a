/* The moreau method's joint rows and joint limits (moreau_impl.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/coords.h"
#include "liedyn/liedyn.h"
#include "moreau_impl.h"

/* ---------------------------------------------------------------- the joints' rows */

/* The rows' pattern: row starts, and per entry its body and place. LD_OK or LD_ENOMEM. */
int ld_mj_rows_create(const ld_system *s, mj_rows *R) {
    size_t n = (size_t)s->bnnz + 1, m = (size_t)s->m + 1;
    R->m = s->m;
    R->ptr = calloc(m, sizeof *R->ptr);
    R->body = malloc(n * sizeof *R->body);
    R->slot = malloc(n * sizeof *R->slot);
    R->B = malloc((n + 6 * m) * sizeof *R->B);
    if (!R->ptr || !R->body || !R->slot || !R->B) return LD_ENOMEM;
    R->phi = R->B + n, R->phit = R->phi + m, R->D = R->phit + m, R->lam = R->D + m;
    R->F = R->lam + m, R->lamk = R->F + m;
    for (int e = 0; e < s->bnnz; ++e) {
        R->ptr[s->brow[e] + 1]++;
        int c = s->bcol[e], b = 0;
        while (b + 1 < s->nnodes && s->nodes[b + 1].voff <= c) ++b;
        R->body[e] = b, R->slot[e] = c - s->nodes[b].voff;
    }
    for (int r = 0; r < s->m; ++r) R->ptr[r + 1] += R->ptr[r];
    return ld_mj_block_create(R);
}

void ld_mj_rows_free(mj_rows *R) {
    free(R->ptr);
    free(R->body);
    free(R->slot);
    free(R->B);
    ld_mj_block_free(R);
}

/* The rows' entries in the velocities (Ω, ẋ) the method works in: a semidirect formulation's
 * U = Rᵀẋ (entries b_U: b_ẋ = R b_U), a spatial one's ω = RΩ (b_Ω = Rᵀ b_ω). Each row covers
 * all six columns of each of its bodies, in order (the pattern's rule). */
static void to_body_velocities(const ld_system *s, mj *S) {
    mj_rows *R = &S->J;
    int semi = ld_rb(s)->semi, left = ld_rb(s)->left;
    for (int r = 0; r < R->m; ++r)
        for (int e = R->ptr[r]; e + 5 < R->ptr[r + 1]; ++e) {
            if (R->slot[e] != 0 || R->body[e + 5] != R->body[e] || R->slot[e + 5] != 5) continue;
            const double *Rb = S->b[R->body[e]].R;
            double in[3], out[3];
            if (left) {
                memcpy(in, R->B + e, sizeof in);
                ld_m3_tmulv(out, Rb, in);
                memcpy(R->B + e, out, sizeof out);
            }
            if (semi) {
                memcpy(in, R->B + e + 3, sizeof in);
                ld_m3_mulv(out, Rb, in);
                memcpy(R->B + e + 3, out, sizeof out);
            }
            e += 5;
        }
}

/* The rows at the midpoint state (q in the system's layout): B, Φ, Φ_t, the Delassus diagonal
 * (bodies at their midpoint poses), the impulses zero. LD_OK or the system's status. */
int ld_mj_rows_eval(const ld_system *s, mj *S, double t, const double *q) {
    mj_rows *R = &S->J;
    int rc = s->ops.phi_q_sparse(s, t, q, R->B);
    if (!rc) rc = s->ops.phi(s, t, q, R->phi);
    if (!rc && s->ops.phi_t) rc = s->ops.phi_t(s, t, q, R->phit);
    if (!rc && !s->ops.phi_t) memset(R->phit, 0, (size_t)R->m * sizeof *R->phit);
    if (!rc && (ld_rb(s)->semi || ld_rb(s)->left)) to_body_velocities(s, S);
    for (int r = 0; !rc && r < R->m; ++r) {
        double d = 0.0;
        for (int e = R->ptr[r]; e < R->ptr[r + 1]; ++e) {
            const mj_body *b = &S->b[R->body[e]];
            if (R->slot[e] >= 3) {
                d += R->B[e] * R->B[e] / b->m;
                continue;
            }
            for (int f = R->ptr[r]; f < R->ptr[r + 1]; ++f) /* B_Ω J⁻¹ B_Ωᵀ of the body */
                if (R->body[f] == R->body[e] && R->slot[f] < 3)
                    d += R->B[e] * b->Ji[3 * R->slot[e] + R->slot[f]] * R->B[f];
        }
        R->D[r] = d;
        R->lam[r] = 0.0;
    }
    if (!rc) ld_mj_block_eval(S, R);
    return rc;
}

/* The bodies' velocities change by M⁻¹ B_rᵀ dl: joint row r's impulse increment dl. */
void ld_mj_row_apply(mj *S, int r, double dl) {
    const mj_rows *R = &S->J;
    for (int e = R->ptr[r]; e < R->ptr[r + 1]; ++e) {
        mj_body *b = &S->b[R->body[e]];
        if (R->slot[e] >= 3) {
            b->xd[R->slot[e] - 3] += dl * R->B[e] / b->m;
        } else {
            for (int i = 0; i < 3; ++i) b->Om[i] += dl * b->Ji[3 * i + R->slot[e]] * R->B[e];
        }
    }
}

/* One Gauss–Seidel pass over the joints' rows: for the velocities (pos 0: B v = −Φ_t) or for the
 * position correction of the step h (pos 1: B δv = −2 Φ(q_M)/h); the largest change and size. */
void ld_mj_rows_sweep(mj *S, int pos, double h, double *change, double *size, double *resid) {
    mj_rows *R = &S->J;
    if (R->A) {
        ld_mj_block_sweep(S, pos, h, change, size, resid);
        return;
    }
    for (int r = 0; r < R->m; ++r) {
        if (!(R->D[r] > 0.0)) continue;
        double u = pos ? 2.0 * R->phi[r] / h : R->phit[r];
        for (int e = R->ptr[r]; e < R->ptr[r + 1]; ++e) {
            const mj_body *b = &S->b[R->body[e]];
            u += R->B[e] * (R->slot[e] < 3 ? b->Om[R->slot[e]] : b->xd[R->slot[e] - 3]);
        }
        *resid = max2(*resid, fabs(u));
        double dl = -u / R->D[r];
        R->lam[r] += dl;
        *change = max2(*change, fabs(dl));
        *size = max2(*size, fabs(R->lam[r]));
        ld_mj_row_apply(S, r, dl);
    }
}

/* ---------------------------------------------------------------- joint limits */

/* Joint j's axis in space at the bodies' midpoint poses: R1 R1⁰ᵀ axis (the ground: axis). */
static void limit_axis(const ld_model *m, const mj *S, const ld_joint *jd, double a[3]) {
    if (jd->body1 < 0) {
        memcpy(a, jd->axis, 3 * sizeof *a);
        return;
    }
    double q[4], R0[9], l[3];
    if (ld_quat_normalize(q, m->bodies[jd->body1].q)) q[0] = 1, q[1] = q[2] = q[3] = 0;
    ld_quat_to_mat(R0, q);
    ld_m3_tmulv(l, R0, jd->axis);
    ld_m3_mulv(a, S->b[jd->body1].R, l);
}

/* A revolute joint's limit as a contact of rotation only: the row sg a·(ω2 − ω1). */
static void limit_rotation(mj *S, mj_contact *c, const ld_joint *jd, const double a[3], double sg) {
    memset(c, 0, sizeof *c);
    c->a = jd->body2, c->b = jd->body1, c->sa = c->sb = -1;
    const mj_body *A = &S->b[c->a], *B = c->b >= 0 ? &S->b[c->b] : NULL;
    double n[3] = {sg * a[0], sg * a[1], sg * a[2]};
    ld_m3_tmulv(c->ja[0], A->R, n);
    ld_m3_mulv(c->wa[0], A->Ji, c->ja[0]);
    c->D[0] = ld_v3_dot(c->ja[0], c->wa[0]);
    if (B) {
        ld_m3_tmulv(c->jb[0], B->R, n);
        ld_m3_mulv(c->wb[0], B->Ji, c->jb[0]);
        c->D[0] += ld_v3_dot(c->jb[0], c->wb[0]);
    }
    c->D[1] = c->D[2] = 1.0; /* no tangential rows */
}

/* The limits reached at the midpoint state q (the system's layout, velocities v_k in v): a
 * contact each, appended to S->c from index nc; the new count. */
int ld_mj_limits(const ld_system *s, mj *S, double t, const double *q, const double *v, int nc) {
    const ld_model *m = ld_rb(s)->m;
    for (int j = 0; j < m->njoints && nc < S->cap; ++j) {
        const ld_joint *jd = &m->joints[j];
        if (!jd->has_limits) continue;
        double c[LD_JOINT_COORDS_MAX], cd[LD_JOINT_COORDS_MAX], a[3];
        int n = 0;
        if (ld_model_joint_coords(s, j, t, q, v, c, cd, &n) || n < 1) continue;
        int lower = c[0] <= jd->limits[0] + CLOSED, upper = c[0] >= jd->limits[1] - CLOSED;
        if (!lower && !upper) continue;
        double sg = lower ? 1.0 : -1.0;
        limit_axis(m, S, jd, a);
        mj_contact *k = &S->c[nc++];
        if (jd->kind == LD_JOINT_REVOLUTE) {
            limit_rotation(S, k, jd, a, sg);
        } else { /* a slide: a contact along ±a at body2's copy of the joint point */
            const ld_body *b2 = &m->bodies[jd->body2];
            double q2[4], R0[9], d[3], l[3], w[3];
            if (ld_quat_normalize(q2, b2->q)) q2[0] = 1, q2[1] = q2[2] = q2[3] = 0;
            ld_quat_to_mat(R0, q2);
            for (int i = 0; i < 3; ++i) d[i] = jd->at[i] - b2->x[i];
            ld_m3_tmulv(l, R0, d);
            ld_m3_mulv(w, S->b[jd->body2].R, l);
            ld_contact f = {.a = jd->body2, .b = jd->body1, .e = 0.0, .mu = 0.0};
            for (int i = 0; i < 3; ++i) f.n[i] = sg * a[i], f.p[i] = S->b[jd->body2].x[i] + w[i];
            ld_mj_setup(S, k, &f);
            k->sa = k->sb = -1;
        }
        k->gap = lower ? c[0] - jd->limits[0] : jd->limits[1] - c[0];
        k->open = 0;
        double U[3];
        ld_mj_rel_velocity(S, k, U);
        k->un0 = U[0];
    }
    return nc;
}

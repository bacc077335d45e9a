/*
 * The joints' reactions in the tree formulation (tree.h): what a joint transmits is the sum over
 * the bodies beyond it of each body's rate of momentum less its weight (recursive Newton–Euler
 * with the accelerations of the state, body by body so that the fixed joints inside a link have
 * theirs too), less the joint's own springs and dampers, which act across it beside it. All
 * joints at once, kept for the state (q, v) until another is asked for. No allocation.
 */
#include <math.h>
#include <string.h>

#include "../elements/kinds.h"
#include "liedyn/liedyn.h"
#include "tree.h"

/* The links' accelerations A with q̈ = qdd (internal order) at the state of the last
 * ld_tree_fk and ld_tree_velocities. */
static void accelerations(ld_tree *T, const double *qdd) {
    const double a0[6] = {0, 0, 0, -T->g[0], -T->g[1], -T->g[2]};
    for (int i = 0; i < T->n; ++i) {
        const double *V = T->V + 6 * i, *S = T->S + 6 * i;
        const double *Ap = T->par[i] < 0 ? a0 : T->A + 6 * T->par[i];
        double vs[6] = {0, 0, 0, 0, 0, 0};
        if (T->kind[i] != LD_TREE_FREE) {
            crm(V, S, vs);
            for (int k = 0; k < 6; ++k) vs[k] *= T->vi[i];
        } else if (T->col[i] == 5) {
            double xd[3] = {T->vi[i - 2], T->vi[i - 1], T->vi[i]};
            ld_v3_cross(vs + 3, xd, V);
        }
        for (int k = 0; k < 6; ++k) T->A[6 * i + k] = Ap[k] + vs[k] + S[k] * qdd[i];
    }
}

/* Body b's centre now (its link's motion applied to its initial centre) and, with inertia,
 * its inertia in the inertial frame. */
static void body_now(const ld_tree *T, int b, double c[3], ld_tree_inertia *I) {
    const ld_body *bd = &T->m->bodies[b];
    int i = T->carrier[b];
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double *R = i < 0 ? I3 : T->R + 9 * i;
    ld_m3_mulv(c, R, bd->x);
    for (int k = 0; k < 3 && i >= 0; ++k) c[k] += T->p[3 * i + k];
    if (!I) return;
    double R0[9], qn[4], Rb[9], RJ[9], Rt[9], J[9];
    (void)ld_quat_normalize(qn, bd->q);
    ld_quat_to_mat(R0, qn);
    ld_m3_mul(Rb, R, R0);
    ld_m3_mul(RJ, Rb, bd->inertia);
    ld_m3_transpose(Rt, Rb);
    ld_m3_mul(J, RJ, Rt);
    double cc = ld_v3_dot(c, c), m = bd->mass;
    I->m = m;
    for (int a = 0; a < 3; ++a) {
        I->h[a] = m * c[a];
        for (int k = 0; k < 3; ++k)
            I->Jo[3 * a + k] = J[3 * a + k] + m * ((a == k) * cc - c[a] * c[k]);
    }
}

/* Each body's rate of momentum less its weight, summed over the bodies beyond it: T->bf. */
static void body_forces(ld_tree *T) {
    const double a0[6] = {0, 0, 0, -T->g[0], -T->g[1], -T->g[2]}, zero[6] = {0};
    memset(T->bf, 0, 6 * (size_t)T->m->nbodies * sizeof *T->bf);
    for (int k = 0; k < T->nborder; ++k) {
        int b = T->border[k], i = T->carrier[b];
        const double *V = i < 0 ? zero : T->V + 6 * i, *A = i < 0 ? a0 : T->A + 6 * i;
        double c[3], IA[6], IV[6], x[6];
        ld_tree_inertia I;
        body_now(T, b, c, &I);
        inertia_mul(&I, A, IA);
        inertia_mul(&I, V, IV);
        crf(V, IV, x);
        for (int r = 0; r < 6; ++r) T->bf[6 * b + r] = IA[r] + x[r];
    }
    for (int k = T->nborder - 1; k >= 0; --k) {
        int b = T->border[k], p = T->bpar[b];
        for (int r = 0; r < 6 && p >= 0; ++r) T->bf[6 * p + r] += T->bf[6 * b + r];
    }
}

/* The wrench of the springs and dampers of link i on its child side, subtracted from F: a
 * couple about a hinge's axis, a force along a slide's line. */
static void springs_off(const ld_tree *T, double *F, int i) {
    for (int e = 0; e < T->nspring; ++e) {
        if (T->spring[e].link != i) continue;
        double t1, V, W[6]; /* this spring's generalized force at the state */
        ld_tree_spring_eval(T, &T->spring[e], &t1, &V);
        const double *S = T->S + 6 * i;
        if (T->kind[i] == LD_TREE_PRISMATIC) { /* through the joint's point now */
            static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            int p = T->par[i];
            double r[3], f[3] = {t1 * S[3], t1 * S[4], t1 * S[5]};
            ld_m3_mulv(r, p < 0 ? I3 : T->R + 9 * p, T->r0 + 3 * i);
            for (int k = 0; k < 3 && p >= 0; ++k) r[k] += T->p[3 * p + k];
            ld_v3_cross(W, r, f);
            memcpy(W + 3, f, sizeof f);
        } else {
            for (int k = 0; k < 3; ++k) W[k] = t1 * S[k], W[3 + k] = 0.0;
        }
        for (int k = 0; k < 6; ++k) F[k] -= W[k];
    }
}

/* Every joint's reaction on its body2 into T->react at (q, v). */
static int reactions(const ld_system *s, double t, const double *q, const double *v) {
    ld_tree *T = ld_rb(s)->tree;
    int rc = ld_tree_force(s, t, q, v, s->work); /* −q̈ in T->b, the kinematics at (q, v) */
    if (rc) return rc;
    for (int i = 0; i < T->n; ++i) T->b[i] = -T->b[i];
    accelerations(T, T->b);
    body_forces(T);
    const ld_model *m = T->m;
    for (int k = 0; k < T->nborder; ++k) {
        int C = T->border[k], j = T->bjoint[C];
        if (j < 0) continue;
        double F[6], c[3];
        memcpy(F, T->bf + 6 * C, sizeof F);
        for (int i = 0; i < T->n; ++i)
            if (T->kind[i] != LD_TREE_FREE && T->joint[i] == j) springs_off(T, F, i);
        int b2 = m->joints[j].body2;
        double sg = C == b2 ? 1.0 : -1.0, *o = T->react + 6 * j, cf[3];
        body_now(T, b2, c, NULL);
        ld_v3_cross(cf, c, F + 3);
        for (int r = 0; r < 3; ++r) o[r] = sg * F[3 + r], o[3 + r] = sg * (F[r] - cf[r]);
    }
    return LD_OK;
}

int ld_tree_reaction(const ld_system *s, int j, double t, const double *q, const double *v,
                     double f[3], double tau[3]) {
    ld_tree *T = ld_rb(s)->tree;
    size_t n = (size_t)T->n, nq = (size_t)T->nq;
    if (!T->react_valid || !T->fk_valid || memcmp(T->fkq, q, nq * sizeof *q) ||
        memcmp(T->fkv, v, n * sizeof *v)) {
        int rc = reactions(s, t, q, v);
        if (rc) return rc;
        memcpy(T->fkq, q, nq * sizeof *q);
        memcpy(T->fkv, v, n * sizeof *v);
        T->fk_valid = T->react_valid = 1;
    }
    memcpy(f, T->react + 6 * j, 3 * sizeof *f);
    memcpy(tau, T->react + 6 * j + 3, 3 * sizeof *tau);
    return LD_OK;
}

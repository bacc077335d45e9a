/*
 * The consistent initial velocities of the joints (kinds.h, ld_jsys_initial_velocity): the
 * velocities the model leaves out solve B v + Φ_t = 0 by minimum-norm least squares, weighted
 * so that the answer has the least kinetic energy; rods and beams that the joints set moving
 * follow as rigid bodies; a contradiction names the first joint and body at fault.
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "../lie/ep.h"
#include "liedyn/liedyn.h"
#include "kinds.h"
#include "joints_impl.h"
#include "../core/oom.h"

/* The body to name when joint jt's velocity equations fail. */
static int blamed_body(const ld_model *m, const jnt *jt) {
    if (!m->bodies[jt->b2].has_v && jt->b1 >= 0 && m->bodies[jt->b1].has_v) return jt->b1;
    return jt->b2;
}

/* One unknown of the initial-velocity solve: it adds w[i] u to v[col + i], i < nent (a
 * component of ẋ or U: one entry; of Ω: one entry, or ė = ½ Lᵀ(e) Ω in the euler
 * formulation: four). w carries the weight 1/√(mass or moment), so that the solution of
 * smallest norm is the one of least kinetic energy. */
typedef struct unknown {
    int col, nent;
    double w[4];
} unknown;

/* Work space of the initial-velocity solve: B (rows × k), Φ_t, the unknowns. */
typedef struct vsolve {
    const double *B, *phit;
    size_t k;
    const unknown *u;
    int nu;
    double *A, *rhs, *sv, *v; /* rows × nu, max(rows, nu), max(rows, nu), k */
    lapack_int *piv;          /* nu: the column pivots */
} vsolve;

/* The unknowns of w->v by minimum-norm least squares on the first nr rows:
 * B_u u = −(B v + Φ_t) with the unknown entries of v set to 0. */
static int vsolve_rows(vsolve *w, int nr) {
    size_t nu = (size_t)w->nu;
    for (size_t c = 0; c < nu; ++c)
        for (int i = 0; i < w->u[c].nent; ++i) w->v[w->u[c].col + i] = 0.0;
    if (nu == 0 || nr == 0) return LD_OK;
    for (size_t r = 0; r < (size_t)nr; ++r) {
        const double *Br = w->B + r * w->k;
        double acc = w->phit[r];
        for (size_t c = 0; c < w->k; ++c) acc += Br[c] * w->v[c];
        w->rhs[r] = -acc;
        for (size_t c = 0; c < nu; ++c) {
            double a = 0.0;
            for (int i = 0; i < w->u[c].nent; ++i) a += Br[w->u[c].col + i] * w->u[c].w[i];
            w->A[r * nu + c] = a;
        }
    }
    lapack_int rank = 0;
    for (size_t r = (size_t)nr; r < nu; ++r) w->rhs[r] = 0.0; /* b has max(nr, nu) rows */
    memset(w->piv, 0, nu * sizeof *w->piv); /* complete orthogonal factorization: min norm */
    lapack_int info = LAPACKE_dgelsy(LAPACK_ROW_MAJOR, (lapack_int)nr, (lapack_int)nu, 1, w->A,
                                     (lapack_int)nu, w->rhs, 1, w->piv, 1e-12, &rank);
    if (info != 0) return LD_ESINGULAR;
    for (size_t c = 0; c < nu; ++c)
        for (int i = 0; i < w->u[c].nent; ++i) w->v[w->u[c].col + i] += w->u[c].w[i] * w->rhs[c];
    return LD_OK;
}

/* The largest violation of the velocity equations B v + Φ_t = 0 among the first nr rows,
 * relative to the size of their terms: 1e-6 (1 + Σ |B_rc v_c| + |Φ_t,r|) is the bound. */
static double vsolve_worst(const vsolve *w, int nr, double *res) {
    double worst = 0.0;
    *res = 0.0;
    for (size_t r = 0; r < (size_t)nr; ++r) {
        double e = w->phit[r], scale = fabs(w->phit[r]);
        for (size_t c = 0; c < w->k; ++c) {
            e += w->B[r * w->k + c] * w->v[c];
            scale += fabs(w->B[r * w->k + c] * w->v[c]);
        }
        double rel = fabs(e) / (1e-6 * (1.0 + scale));
        if (!(rel <= worst)) worst = rel, *res = e;
    }
    return worst;
}

/* The unknowns of body i (its velocity when not given, its angular velocity when not given)
 * appended at u[*nu]; none for a held body. */
static void body_unknowns(const ld_system *s, const double *q, int i, const unsigned char *held,
                          unknown *u, int *nu) {
    const ld_body *b = &ld_rb(s)->m->bodies[i];
    int euler = ld_rb(s)->euler, voff = s->nodes[i].voff;
    if (b->pin || held[i] == 1) return;
    int free_v = !b->has_v || held[i] == 2, free_w = b->omega_free || held[i] == 2;
    for (int c = 0; free_v && c < 3; ++c)
        u[(*nu)++] = (unknown){voff + (euler ? 0 : 3) + c, 1, {1.0 / sqrt(b->mass), 0, 0, 0}};
    for (int c = 0; free_w && c < 3; ++c) {
        double sc = 1.0 / sqrt(b->inertia[4 * c]), E[4] = {0}, Om[3] = {0};
        if (!euler) {
            u[(*nu)++] = (unknown){voff + c, 1, {sc, 0, 0, 0}};
            continue;
        }
        Om[c] = 0.5 * sc; /* ė = ½ Lᵀ(e) Ω for Ω = e_c */
        ld_ep_Ltmul(E, q + s->nodes[i].qoff + 3, Om);
        u[(*nu)++] = (unknown){voff + 3, 4, {E[0], E[1], E[2], E[3]}};
    }
}

/* The nodes of rod g (g < nrods) or beam g − nrods that are bodies, into out; their count.
 * *given: the item gives its initial motion. */
static int item_nodes(const ld_model *m, int g, int *out, int *given) {
    int cnt = 0;
    if (g < m->nrods) {
        *given = m->rods[g].has_motion;
        for (int k = 0; k <= m->rods[g].n; ++k) out[cnt++] = m->rods[g].body0 + k;
        return cnt;
    }
    const ld_beam *b = &m->beams[g - m->nrods];
    *given = b->has_motion;
    for (int k = 0; k < b->nnodes; ++k)
        if (b->node_body[k] != LD_GROUND && !m->bodies[b->node_body[k]].pin)
            out[cnt++] = b->node_body[k];
    return cnt;
}

/* held[i] = 2 for the nodes of the rods and beams that start at rest by default (no motion
 * given, every node's velocities 0): the joints may set them moving. */
static void mark_at_rest(const ld_model *m, unsigned char *held, int *nodes) {
    for (int g = 0; g < m->nrods + m->nbeams; ++g) {
        int given, nn = item_nodes(m, g, nodes, &given), rest = !given;
        for (int a = 0; rest && a < nn; ++a) {
            const ld_body *b = &m->bodies[nodes[a]];
            for (int c = 0; c < 3; ++c) rest = rest && b->v[c] == 0.0 && b->omega[c] == 0.0;
        }
        for (int a = 0; rest && a < nn; ++a) held[nodes[a]] = 2;
    }
}

/* Node i's velocity slice (Ω, U) set to the rigid motion (ω, ẋ_j + ω × (x_i − x_j)). */
static void set_rigid(const ld_system *s, const double *q, int i, const double w[3],
                      const double xj[3], const double vj[3], double *v) {
    double R[9], r[3], wr[3], xd[3];
    const double *x;
    ld_rb_pose(s, q, i, R, &x);
    for (int c = 0; c < 3; ++c) r[c] = x[c] - xj[c];
    ld_v3_cross(wr, w, r);
    for (int c = 0; c < 3; ++c) xd[c] = vj[c] + wr[c];
    double *vi = v + s->nodes[i].voff;
    ld_m3_tmulv(vi, R, w);
    if (ld_rb(s)->semi)
        ld_m3_tmulv(vi + 3, R, xd);
    else
        memcpy(vi + 3, xd, 3 * sizeof(double));
}

/* Every rod and beam whose motion the model leaves out and whose nodes the joints set moving
 * (a beam clamped to a spinning hub) moves as a rigid body with its first moving node; those
 * nodes are held from then on. Returns the number of items set moving. */
static int follow_joined(const ld_system *s, const double *q, double *v, unsigned char *held,
                         int *nodes) {
    const ld_model *m = ld_rb(s)->m;
    int moved = 0;
    for (int g = 0; g < m->nrods + m->nbeams; ++g) {
        int given, nn = item_nodes(m, g, nodes, &given), j = -1;
        given = given || nn == 0 || held[nodes[0]] != 2; /* moving already, by the file */
        for (int a = 0; !given && a < nn && j < 0; ++a) {
            const double *vi = v + s->nodes[nodes[a]].voff;
            for (int c = 0; c < 6; ++c)
                if (vi[c] != 0.0) j = nodes[a];
        }
        if (j < 0) continue;
        double R[9], w[3], vj[3], Om[3], xj[3];
        const double *x;
        ld_rb_pose(s, q, j, R, &x);
        memcpy(xj, x, sizeof xj);
        ld_rb_body_velocity(s, q, v + s->nodes[j].voff, j, Om, vj);
        ld_m3_mulv(w, R, Om);
        for (int a = 0; a < nn; ++a) {
            set_rigid(s, q, nodes[a], w, xj, vj, v);
            held[nodes[a]] = 1;
        }
        ++moved;
    }
    return moved;
}

/* Every velocity 0 and no driver (Φ_t = 0): v = 0 solves B v + Φ_t = 0 and is the solve's
 * answer (the least-norm unknowns of a zero right-hand side), without its dense rows × k work —
 * a large model that starts at rest compiles in memory in proportion to it. */
static int at_rest(const ld_jsys *J, const double *v, int k) {
    for (int j = 0; j < J->nj; ++j)
        if (J->j[j].rot_driver || J->j[j].trans_driver) return 0;
    for (int i = 0; i < k; ++i)
        if (v[i] != 0.0) return 0;
    return 1;
}

int ld_jsys_initial_velocity(const ld_jsys *J, const ld_system *s, double t, const double *q,
                             double *v, char *msg, size_t n) {
    const ld_model *m = J->m;
    int rows = J->rows, nu = 0;
    if (msg && n) msg[0] = '\0';
    if (rows == 0 || at_rest(J, v, s->k)) return LD_OK;
    size_t R = (size_t)rows, K = (size_t)s->k, U = 6 * (size_t)m->nbodies;
    size_t big = R > U ? R : U;
    double *B =
        ld_xmalloc((R * K + R + R * U + 2 * big + K) * sizeof(double), "the joint closure's work");
    unknown *u = ld_xmalloc(U * sizeof *u, "the joint closure's work");
    lapack_int *piv = ld_xmalloc((U + 1) * sizeof *piv, "the joint closure's work");
    unsigned char *held = ld_xcalloc((size_t)m->nbodies + 1, 1, "the joint closure's work");
    int *nodes = ld_xmalloc(((size_t)m->nbodies + 1) * sizeof *nodes, "the joint closure's work");
    if (!B || !u || !piv || !held || !nodes) {
        free(B);
        free(u);
        free(piv);
        free(held);
        free(nodes);
        return LD_ENOMEM;
    }
    vsolve w = {B, B + R * K, K, u, 0, NULL, NULL, NULL, NULL, piv};
    w.A = B + R * K + R;
    w.rhs = w.A + R * U;
    w.sv = w.rhs + big;
    w.v = w.sv + big;
    ld_jsys_phi_q(J, s, t, q, B);
    ld_jsys_phi_t(J, s, t, q, B + R * K);
    double res;
    int rc = LD_OK;
    mark_at_rest(m, held, nodes);
    for (int pass = 0; pass < 2 && !rc; ++pass) { /* the second after rods and beams follow */
        nu = 0;
        for (int i = 0; i < m->nbodies; ++i) body_unknowns(s, q, i, held, u, &nu);
        w.nu = nu;
        memcpy(w.v, v, K * sizeof(double));
        rc = vsolve_rows(&w, rows);
        if (rc || pass == 1 || m->nrods + m->nbeams == 0) break;
        if (follow_joined(s, q, w.v, held, nodes) == 0) break;
        memcpy(v, w.v, K * sizeof(double));
    }
    if (!rc && vsolve_worst(&w, rows, &res) <= 1.0) {
        memcpy(v, w.v, K * sizeof(double));
    } else if (!rc) {
        /* the first joint that contradicts the given velocities and the joints before it */
        int j = 0;
        for (; j < J->nj - 1; ++j) {
            int nr = J->j[j].row0 + J->j[j].nrows;
            if (vsolve_rows(&w, nr) || vsolve_worst(&w, nr, &res) > 1.0) break;
        }
        if (!vsolve_rows(&w, J->j[j].row0 + J->j[j].nrows))
            (void)vsolve_worst(&w, J->j[j].row0 + J->j[j].nrows, &res);
        const ld_body *b = &m->bodies[blamed_body(m, &J->j[j])];
        if (msg)
            snprintf(msg, n,
                     "body '%s': the given %s contradicts joint %d ('%s') (a velocity residual "
                     "of %.3g remains; give only the velocities that drive the mechanism and "
                     "leave the others out: the joints determine them)",
                     b->name, b->has_v ? "velocity" : "angular velocity", j, m->joints[j].name,
                     res);
        rc = LD_EINVAL;
    } else if (msg) {
        snprintf(msg, n, "the joints' velocity equations cannot be solved");
    }
    free(B);
    free(u);
    free(piv);
    free(held);
    free(nodes);
    return rc ? LD_EINVAL : LD_OK;
}

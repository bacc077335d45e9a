/* Rigid bodies with gravity, loads, joints (joints.c) and Cosserat rods (rod.c: their nodes are
 * bodies), compiled into a system (system.h) in one of five formulations. On the groups, per
 * body, with v = (Ω, U):
 *   direct (so3xr3, s3xr3):      U = ẋ,    J Ω̇ + Ω × JΩ = τ,   m U̇ = f
 *   semidirect (se3, s3sdr3):    U = Rᵀẋ,  J Ω̇ + Ω × JΩ = τ,   m (U̇ + Ω × U) = Rᵀ f
 * τ the body-frame torque, f the spatial force; the euler formulation's body terms are in
 * euler.c. Every tangent matrix of the bodies and joints is analytic, the rods' are partly local
 * differences (rod.c); the tests compare them all with differences on the group. The Lie
 * formulations also give M by blocks and B in a sparse pattern built at compile time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "elements.h"
#include "ep.h"
#include "exact.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"
#include "rigid_impl.h"

static const rb_sys *RB(const ld_system *s) {
    return ld_rb(s);
}

void ld_rb_pose(const ld_system *s, const double *q, int i, double R[9], const double **x) {
    const double *g = q + s->nodes[i].qoff;
    if (RB(s)->euler) {
        ld_ep_rot(R, g + 3);
        *x = g;
    } else if (RB(s)->quat) {
        ld_quat_to_mat(R, g);
        *x = g + 4;
    } else {
        memcpy(R, g, 9 * sizeof(double));
        *x = g + 9;
    }
}

/* r = A v for 3×3 A; r = Aᵀ v. */
static void mulv(double r[3], const double A[9], const double v[3]) {
    ld_m3_mulv(r, A, v);
}

void ld_rb_loads_eval(const rb_sys *rb, int i, double t, ld_rb_loads *L) {
    const ld_model *m = rb->m;
    const ld_body *b = &m->bodies[i];
    memset(L, 0, sizeof *L);
    for (int j = 0; j < 3; ++j) L->fs[j] = b->mass * m->gravity[j];
    for (int e = rb->load_start[i]; e < rb->load_start[i + 1]; ++e) {
        const ld_load *ld = &m->loads[rb->load_list[e]];
        if (ld->kind == LD_LOAD_EXACT_TORQUE) {
            double q[4], Om[3], Omd[3], JO[3], JOd[3], c[3];
            ld_exact_eval(ld->exact, t, q, Om, Omd);
            mulv(JO, b->inertia, Om);
            mulv(JOd, b->inertia, Omd);
            ld_v3_cross(c, Om, JO);
            for (int j = 0; j < 3; ++j) c[j] += JOd[j];
            if (ld->frame == LD_IN_SPATIAL) { /* M = R_exact τ, a rotation-dependent load */
                ld_quat_rotate(JO, q, c);
                for (int j = 0; j < 3; ++j) L->ts[j] += JO[j];
            } else {
                for (int j = 0; j < 3; ++j) L->tb[j] += c[j];
            }
            continue;
        }
        double f = ld_tfn_eval(&ld->fn, t), *dst;
        if (ld->kind == LD_LOAD_TORQUE)
            dst = ld->frame == LD_IN_BODY ? L->tb : L->ts;
        else
            dst = ld->frame == LD_IN_BODY ? L->fb : L->fs;
        for (int j = 0; j < 3; ++j) dst[j] += f * ld->vec[j];
    }
}

static int rb_mass(const ld_system *s, const double *q, double *M) {
    const ld_model *m = RB(s)->m;
    size_t k = (size_t)s->k;
    memset(M, 0, k * k * sizeof(double));
    for (int i = 0; i < m->nbodies; ++i) {
        size_t o = (size_t)s->nodes[i].voff;
        if (RB(s)->euler) {
            ld_ep_body_mass(&m->bodies[i], q + s->nodes[i].qoff, M, k, o);
            continue;
        }
        for (size_t r = 0; r < 3; ++r) {
            for (size_t c = 0; c < 3; ++c) M[(o + r) * k + o + c] = m->bodies[i].inertia[3 * r + c];
            M[(o + 3 + r) * k + o + 3 + r] = m->bodies[i].mass;
        }
    }
    return LD_OK;
}

static int rb_force(const ld_system *s, double t, const double *q, const double *v, double *g) {
    const ld_model *m = RB(s)->m;
    for (int i = 0; i < m->nbodies; ++i) {
        const ld_body *b = &m->bodies[i];
        int o = s->nodes[i].voff;
        ld_rb_loads L;
        ld_rb_loads_eval(RB(s), i, t, &L);
        if (RB(s)->euler) {
            ld_ep_body_force(b, q + s->nodes[i].qoff, v + o, &L, g + o);
            continue;
        }
        const double *Om = v + o, *U = v + o + 3, *x;
        double R[9], JO[3], c[3], tau[3], f[3], tmp[3];
        ld_rb_pose(s, q, i, R, &x);
        mulv(JO, b->inertia, Om);
        ld_v3_cross(c, Om, JO);
        ld_m3_tmulv(tmp, R, L.ts);
        for (int j = 0; j < 3; ++j) tau[j] = L.tb[j] + tmp[j];
        for (int j = 0; j < 3; ++j) g[o + j] = c[j] - tau[j];
        if (RB(s)->semi) { /* m Ω × U − Rᵀ f_s − f_b */
            ld_m3_tmulv(f, R, L.fs);
            ld_v3_cross(c, Om, U);
            for (int j = 0; j < 3; ++j) g[o + 3 + j] = b->mass * c[j] - f[j] - L.fb[j];
        } else { /* −f_s − R f_b */
            mulv(f, R, L.fb);
            for (int j = 0; j < 3; ++j) g[o + 3 + j] = -L.fs[j] - f[j];
        }
    }
    if (m->nrods > 0) ld_rod_add_force(s, q, v, g);
    return ld_el_add_force(s, t, q, v, g); /* force elements (elements.c) */
}

/* The joints' rows, the rods' Kirchhoff rows, then (euler) the unit norms ½(eᵀe − 1). */
static int rb_phi(const ld_system *s, double t, const double *q, double *Phi) {
    int rc = ld_jsys_phi(RB(s)->J, s, t, q, Phi);
    if (!rc && RB(s)->nkrows > 0) ld_rod_phi(s, q, Phi);
    if (rc || !RB(s)->euler) return rc;
    for (int i = 0; i < s->nnodes; ++i) {
        const double *e = q + s->nodes[i].qoff + 3;
        Phi[RB(s)->njrows + i] =
            0.5 * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3] - 1.0);
    }
    return LD_OK;
}

static int rb_phi_q(const ld_system *s, double t, const double *q, double *B) {
    size_t k = (size_t)s->k;
    memset(B, 0, (size_t)s->m * k * sizeof(double));
    int rc = ld_jsys_phi_q(RB(s)->J, s, t, q, B);
    if (!rc && RB(s)->nkrows > 0) ld_rod_phi_q(s, q, B);
    if (rc || !RB(s)->euler) return rc;
    for (int i = 0; i < s->nnodes; ++i) {
        double *row = B + (size_t)(RB(s)->njrows + i) * k + s->nodes[i].voff + 3;
        memcpy(row, q + s->nodes[i].qoff + 3, 4 * sizeof(double));
    }
    return LD_OK;
}

/* ∂g/∂v: rotation block hat(Ω) J − hat(JΩ); semidirect translation: m Ω × U. */
static int rb_g_v(const ld_system *s, double t, const double *q, const double *v, double *C) {
    (void)t;
    const ld_model *m = RB(s)->m;
    size_t k = (size_t)s->k;
    memset(C, 0, k * k * sizeof(double));
    for (int i = 0; i < m->nbodies; ++i) {
        const ld_body *b = &m->bodies[i];
        size_t o = (size_t)s->nodes[i].voff;
        if (RB(s)->euler) {
            ld_ep_body_g_v(b, q + s->nodes[i].qoff, v + o, C, k, o);
            continue;
        }
        const double *Om = v + o, *U = v + o + 3;
        double JO[3], H[9], HJ[9], HJO[9], HU[9];
        mulv(JO, b->inertia, Om);
        ld_so3_hat(H, Om);
        ld_m3_mul(HJ, H, b->inertia);
        ld_so3_hat(HJO, JO);
        ld_so3_hat(HU, U);
        for (size_t r = 0; r < 3; ++r)
            for (size_t c = 0; c < 3; ++c) {
                C[(o + r) * k + o + c] = HJ[3 * r + c] - HJO[3 * r + c];
                if (RB(s)->semi) {
                    C[(o + 3 + r) * k + o + c] = -b->mass * HU[3 * r + c];
                    C[(o + 3 + r) * k + o + 3 + c] = b->mass * H[3 * r + c];
                }
            }
    }
    if (m->nrods > 0) ld_rod_add_g_v(s, q, v, C);
    return ld_el_add_g_v(s, t, q, v, C); /* force elements (elements.c) */
}

/* Adds hat(w) to the 3×3 block (r0, c0) of the k×k matrix K, scaled by sc. */
static void add_hat(double *K, size_t k, size_t r0, size_t c0, const double w[3], double sc) {
    double H[9];
    ld_so3_hat(H, w);
    for (size_t r = 0; r < 3; ++r)
        for (size_t c = 0; c < 3; ++c) K[(r0 + r) * k + c0 + c] += sc * H[3 * r + c];
}

/* The loads' part of K on the groups: only R enters, with ∂(Rᵀw)/∂θ = hat(Rᵀw) and
 * ∂(R w)/∂θ = −R hat(w). */
static void lie_load_stiffness(const ld_system *s, const double *q, int i, const ld_rb_loads *L,
                               double *K) {
    size_t k = (size_t)s->k, o = (size_t)s->nodes[i].voff;
    const double *x;
    double R[9], w[3], Rw[9], P[9];
    ld_rb_pose(s, q, i, R, &x);
    ld_m3_tmulv(w, R, L->ts); /* −Rᵀ ts in the rotation rows */
    add_hat(K, k, o, o, w, -1.0);
    if (RB(s)->semi) { /* −Rᵀ f_s in the translation rows */
        ld_m3_tmulv(w, R, L->fs);
        add_hat(K, k, o + 3, o, w, -1.0);
    } else { /* −R f_b: derivative +R hat(f_b) */
        ld_so3_hat(P, L->fb);
        ld_m3_mul(Rw, R, P);
        for (size_t r = 0; r < 3; ++r)
            for (size_t c = 0; c < 3; ++c) K[(o + 3 + r) * k + o + c] += Rw[3 * r + c];
    }
}

/* K = ∂/∂q [M a + g + Bᵀλ] along the group. */
static int rb_stiffness(const ld_system *s, double t, const double *q, const double *v,
                        const double *a, const double *lambda, double *K) {
    const ld_model *m = RB(s)->m;
    size_t k = (size_t)s->k;
    memset(K, 0, k * k * sizeof(double));
    for (int i = 0; i < m->nbodies; ++i) {
        ld_rb_loads L;
        ld_rb_loads_eval(RB(s), i, t, &L);
        if (RB(s)->euler) {
            int o = s->nodes[i].voff;
            ld_ep_body_stiffness(&m->bodies[i], q + s->nodes[i].qoff, v + o, a + o, &L, K, k,
                                 (size_t)o);
        } else {
            lie_load_stiffness(s, q, i, &L, K);
        }
    }
    if (m->nrods > 0) ld_rod_add_stiffness(s, q, v, lambda, K);
    int rc = ld_el_add_stiffness(s, t, q, v, K); /* force elements (elements.c) */
    if (rc || !lambda) return rc;
    rc = ld_jsys_add_stiffness(RB(s)->J, s, t, q, lambda, K);
    for (int i = 0; !rc && RB(s)->euler && i < s->nnodes; ++i) { /* e λ_i */
        size_t o = (size_t)s->nodes[i].voff + 3;
        for (size_t r = 0; r < 4; ++r) K[(o + r) * k + o + r] += lambda[RB(s)->njrows + i];
    }
    return rc;
}

static int rb_phi_dd(const ld_system *s, double t, const double *q, const double *v, double *z) {
    int rc = ld_jsys_phi_dd(RB(s)->J, s, t, q, v, z);
    if (!rc && RB(s)->nkrows > 0) ld_rod_phi_dd(s, q, v, z);
    if (rc || !RB(s)->euler) return rc;
    for (int i = 0; i < s->nnodes; ++i) { /* d²/dt² ½ eᵀe = eᵀë + ėᵀė */
        const double *ed = v + s->nodes[i].voff + 3;
        z[RB(s)->njrows + i] = ed[0] * ed[0] + ed[1] * ed[1] + ed[2] * ed[2] + ed[3] * ed[3];
    }
    return LD_OK;
}

/* Body angular velocity Ω and centre-of-mass velocity ẋ (spatial) of body i. */
static void body_velocity(const ld_system *s, const double *q, const double *v, int i, double Om[3],
                          double xd[3]) {
    const double *vi = v + s->nodes[i].voff, *x;
    if (RB(s)->euler) {
        double e[4];
        if (ld_quat_normalize(e, q + s->nodes[i].qoff + 3)) memset(e, 0, sizeof e);
        ld_ep_Lmul(Om, e, vi + 3);
        for (int j = 0; j < 3; ++j) Om[j] *= 2.0;
        memcpy(xd, vi, 3 * sizeof(double));
        return;
    }
    double R[9];
    memcpy(Om, vi, 3 * sizeof(double));
    ld_rb_pose(s, q, i, R, &x);
    if (RB(s)->semi)
        mulv(xd, R, vi + 3);
    else
        memcpy(xd, vi + 3, 3 * sizeof(double));
}

static int rb_energy(const ld_system *s, double t, const double *q, const double *v, double *e) {
    const ld_model *m = RB(s)->m;
    double sum = 0.0;
    for (int i = 0; i < m->nbodies; ++i) {
        const ld_body *b = &m->bodies[i];
        const double *x;
        double R[9], JO[3], Om[3], xd[3];
        ld_rb_pose(s, q, i, R, &x);
        body_velocity(s, q, v, i, Om, xd);
        mulv(JO, b->inertia, Om);
        sum += 0.5 * ld_v3_dot(Om, JO) + 0.5 * b->mass * ld_v3_dot(xd, xd) -
               b->mass * ld_v3_dot(m->gravity, x);
    }
    *e = sum + (m->nrods > 0 ? ld_rod_energy(s, q) : 0.0) + ld_el_energy(s, t, q); /* elements */
    return LD_OK;
}

/* ---------------------------------------------------------------- sparse structure */

/* M by blocks (Lie formulations): per body [[J, 0], [0, m I]]. */
static int rb_mass_blocks(const ld_system *s, const double *q, double *Mb) {
    (void)q;
    const ld_model *m = RB(s)->m;
    for (int i = 0; i < m->nbodies; ++i) {
        double *B = Mb + 36 * i;
        memset(B, 0, 36 * sizeof(double));
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c) B[6 * r + c] = m->bodies[i].inertia[3 * r + c];
            B[6 * (3 + r) + 3 + r] = m->bodies[i].mass;
        }
    }
    return LD_OK;
}

/* The bodies of joint j in column order: first[] and their count (1 for the ground). */
static int joint_columns(const ld_system *s, int j, int first[2], int local[2]) {
    int b1, b2;
    ld_jsys_bodies(RB(s)->J, j, &b1, &b2);
    if (b1 < 0) {
        first[0] = s->nodes[b2].voff, local[0] = 6;
        return 1;
    }
    int swap = b2 < b1;
    first[swap] = s->nodes[b1].voff, local[swap] = 0;
    first[!swap] = s->nodes[b2].voff, local[!swap] = 6;
    return 2;
}

/* B's values in the pattern: the joints' rows from their local evaluation, then the rods'. */
static int rb_phi_q_sparse(const ld_system *s, double t, const double *q, double *vals) {
    const rb_sys *rb = RB(s);
    double Bl[6 * 12];
    size_t e = 0;
    for (int j = 0; j < rb->m->njoints; ++j) {
        int first[2], local[2], nb = joint_columns(s, j, first, local);
        int nr = ld_jsys_phi_q_local(rb->J, s, t, q, j, Bl);
        for (int r = 0; r < nr; ++r)
            for (int b = 0; b < nb; ++b, e += 6)
                memcpy(vals + e, Bl + 12 * r + local[b], 6 * sizeof(double));
    }
    if (rb->nkrows > 0) ld_rod_phi_q_sparse(s, q, rb->jnnz, vals);
    return LD_OK;
}

/* The pattern of B (Lie formulations), allocated into s->brow, s->bcol. */
static int build_pattern(ld_system *s) {
    rb_sys *rb = s->user;
    int nnz = 0, e = 0, r0, first[2], local[2];
    for (int j = 0; j < rb->m->njoints; ++j)
        nnz += 6 * ld_jsys_joint_rows(rb->J, j, &r0) * joint_columns(s, j, first, local);
    rb->jnnz = nnz;
    nnz += 12 * rb->nkrows;
    s->brow = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int));
    s->bcol = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int));
    if (!s->brow || !s->bcol) return LD_ENOMEM;
    for (int j = 0; j < rb->m->njoints; ++j) {
        int nr = ld_jsys_joint_rows(rb->J, j, &r0), nb = joint_columns(s, j, first, local);
        for (int r = 0; r < nr; ++r)
            for (int b = 0; b < nb; ++b)
                for (int c = 0; c < 6; ++c, ++e) {
                    s->brow[e] = r0 + r;
                    s->bcol[e] = first[b] + c;
                }
    }
    if (rb->nkrows > 0) ld_rod_pattern(s, rb->jnnz, s->brow, s->bcol);
    s->bnnz = nnz;
    return LD_OK;
}

/* ---------------------------------------------------------------- compiling */

/* The loads by body (load_start, load_list: counting sort, in the order of the model), so
 * that evaluating them costs O(bodies + loads), not O(bodies · loads). */
static int index_loads(rb_sys *rb) {
    const ld_model *m = rb->m;
    rb->load_start = calloc((size_t)m->nbodies + 1, sizeof *rb->load_start);
    rb->load_list = malloc((size_t)(m->nloads > 0 ? m->nloads : 1) * sizeof *rb->load_list);
    if (!rb->load_start || !rb->load_list) return LD_ENOMEM;
    for (int l = 0; l < m->nloads; ++l)
        if (m->loads[l].body >= 0 && m->loads[l].body < m->nbodies)
            rb->load_start[m->loads[l].body + 1]++;
    for (int b = 0; b < m->nbodies; ++b) rb->load_start[b + 1] += rb->load_start[b];
    int *fill = malloc((size_t)m->nbodies * sizeof *fill);
    if (!fill) return LD_ENOMEM;
    memcpy(fill, rb->load_start, (size_t)m->nbodies * sizeof *fill);
    for (int l = 0; l < m->nloads; ++l)
        if (m->loads[l].body >= 0 && m->loads[l].body < m->nbodies)
            rb->load_list[fill[m->loads[l].body]++] = l;
    free(fill);
    return LD_OK;
}

static ld_node_kind node_kind(ld_formulation f) {
    switch (f) {
    case LD_FORM_SE3:
        return LD_NODE_SE3;
    case LD_FORM_S3XR3:
        return LD_NODE_S3XR3;
    case LD_FORM_S3SDR3:
        return LD_NODE_S3SDR3;
    case LD_FORM_EULER:
        return LD_NODE_R3E4;
    default:
        return LD_NODE_SO3XR3;
    }
}

/* The initial state of body i from the model: configuration, Ω, and ẋ where given (else 0;
 * the joints complete it). */
static void initial_body(const ld_system *s, const ld_body *b, int i, double *q, double *v) {
    double *g = q + s->nodes[i].qoff, *vi = v + s->nodes[i].voff, R[9], qn[4];
    (void)ld_quat_normalize(qn, b->q);
    ld_quat_to_mat(R, qn);
    if (RB(s)->euler) {
        memcpy(g, b->x, 3 * sizeof(double));
        memcpy(g + 3, qn, sizeof qn);
        if (b->has_v) memcpy(vi, b->v, 3 * sizeof(double));
        ld_ep_Ltmul(vi + 3, qn, b->omega); /* ė = ½ Lᵀ Ω */
        for (int j = 0; j < 4; ++j) vi[3 + j] *= 0.5;
        return;
    }
    if (RB(s)->quat) {
        memcpy(g, qn, sizeof qn);
        memcpy(g + 4, b->x, 3 * sizeof(double));
    } else {
        memcpy(g, R, sizeof R);
        memcpy(g + 9, b->x, 3 * sizeof(double));
    }
    memcpy(vi, b->omega, 3 * sizeof(double));
    if (!b->has_v) return;
    if (RB(s)->semi)
        ld_m3_tmulv(vi + 3, R, b->v);
    else
        memcpy(vi + 3, b->v, 3 * sizeof(double));
}

/* Largest joint-closure violation at the initial state, relative to the model's size; the
 * joint at fault in *jbad. */
static double closure_error(const ld_system *s, const double *q, double t, double *Phi, int *jbad) {
    const ld_model *m = RB(s)->m;
    double sc = 1.0, worst = 0.0;
    for (int i = 0; i < m->nbodies; ++i)
        for (int j = 0; j < 3; ++j) sc = fmax(sc, fabs(m->bodies[i].x[j]));
    if (ld_jsys_phi(RB(s)->J, s, t, q, Phi)) return INFINITY;
    *jbad = -1;
    for (int j = 0; j < m->njoints; ++j) {
        int r0, nr = ld_jsys_joint_rows(RB(s)->J, j, &r0);
        for (int r = r0; r < r0 + nr; ++r)
            if (!(fabs(Phi[r]) <= worst)) {
                worst = fabs(Phi[r]);
                *jbad = j;
            }
    }
    return worst / sc;
}

/* "joint J ('name') is not closed at the start (violation V; joints[J] at line L)", the line
 * when the model was read from a file. */
static void not_closed(const ld_model *m, int j, double err, char *msg, size_t n) {
    const ld_joint *jt = &m->joints[j];
    if (jt->line > 0)
        snprintf(msg, n,
                 "joint %d ('%s') is not closed at the start (violation %.3g; joints[%d] at "
                 "line %d)",
                 j, jt->name, err, j, jt->line);
    else
        snprintf(msg, n, "joint %d ('%s') is not closed at the start (violation %.3g)", j, jt->name,
                 err);
}

/* The rods' nodes are bodies of the model, and the formulation is one of the Lie groups. */
static int check_rods(const ld_model *m, ld_formulation f, char *msg, size_t n) {
    if (m->nrods < 0 || (m->nrods > 0 && !m->rods)) return LD_EINVAL;
    if (m->nrods > 0 && f == LD_FORM_EULER) {
        if (msg)
            snprintf(msg, n,
                     "rods need a Lie-group formulation (so3xr3, se3, s3xr3 or "
                     "s3sdr3); the euler formulation does not support them");
        return LD_ENOTSUPPORTED;
    }
    for (int r = 0; r < m->nrods; ++r) {
        const ld_rod *rod = &m->rods[r];
        if (rod->n >= 1 && rod->body0 >= 0 && rod->body0 <= m->nbodies - 1 - rod->n &&
            rod->length > 0.0)
            continue;
        if (msg)
            snprintf(msg, n,
                     "rod %d ('%s'): its nodes must be bodies of the model and its "
                     "length positive",
                     r, rod->name);
        return LD_EINVAL;
    }
    return LD_OK;
}

/* ld_model_validate on the model's content, so that a model built in code is checked like a
 * file's; the run block, of which compiling uses t_start only, is checked with the defaults. */
static int validate_content(const ld_model *m, char *msg, size_t n) {
    ld_model c;
    ld_model_init(&c);
    ld_run_spec run = c.run;
    c = *m;
    c.run = run;
    c.run.t_start = m->run.t_start;
    c.run.t_end = m->run.t_start + fmax(1.0, fabs(m->run.t_start));
    ld_model_error e = {0};
    int rc = ld_model_validate(&c, &e);
    if (rc && msg && n) snprintf(msg, n, "%s", e.msg);
    return rc;
}

/* Compile, with a one-line reason in msg when the model's initial state is inconsistent or the
 * formulation cannot hold it. */
/* The pairs of bodies that force elements couple (ld_system.pair). LD_OK or LD_ENOMEM. */
static int element_pairs(ld_system *s, const ld_model *m) {
    int n = 0;
    for (int e = 0; e < m->nelements; ++e) n += m->elements[e].body1 >= 0;
    if (n == 0) return LD_OK;
    s->pair = malloc(2 * (size_t)n * sizeof(int));
    if (!s->pair) return LD_ENOMEM;
    for (int e = 0; e < m->nelements; ++e) {
        if (m->elements[e].body1 < 0) continue;
        s->pair[2 * s->npairs] = m->elements[e].body1;
        s->pair[2 * s->npairs + 1] = m->elements[e].body2;
        s->npairs++;
    }
    return LD_OK;
}

static int compile(const ld_model *m, ld_formulation f, ld_system *s, double **q0, double **v0,
                   char *msg, size_t n) {
    if (msg && n) msg[0] = '\0';
    if (!m || !s || !q0 || !v0 || f < 0 || f >= LD_FORM_COUNT || m->nbodies < 1 ||
        (m->njoints > 0 && !m->joints) || !m->bodies)
        return LD_EINVAL;
    int rc = validate_content(m, msg, n);
    if (!rc) rc = check_rods(m, f, msg, n);
    if (rc) return rc;
    memset(s, 0, sizeof *s);
    rb_sys *rb = calloc(1, sizeof *rb);
    ld_node *nodes = calloc((size_t)m->nbodies, sizeof *nodes);
    rc = rb && nodes ? LD_OK : LD_ENOMEM;
    if (rc) {
        free(rb);
        free(nodes);
        return rc;
    }
    rb->m = m;
    rb->f = f;
    rb->semi = f == LD_FORM_SE3 || f == LD_FORM_S3SDR3;
    rb->quat = f == LD_FORM_S3XR3 || f == LD_FORM_S3SDR3;
    rb->euler = f == LD_FORM_EULER;
    for (int i = 0; i < m->nbodies; ++i) nodes[i].kind = node_kind(f);
    s->nnodes = m->nbodies;
    s->nodes = nodes;
    s->user = rb;
    s->ops = (ld_system_ops){.mass = rb_mass,
                             .force = rb_force,
                             .phi = rb_phi,
                             .phi_q = rb_phi_q,
                             .g_v = rb_g_v,
                             .stiffness = rb_stiffness,
                             .phi_dd = rb_phi_dd,
                             .energy = rb_energy,
                             .mass_blocks = rb->euler ? NULL : rb_mass_blocks,
                             .phi_q_sparse = rb->euler ? NULL : rb_phi_q_sparse};
    rc = index_loads(rb);
    if (!rc) rc = ld_jsys_create(m, f, &rb->J, msg, n);
    if (!rc) {
        rb->njrows = ld_jsys_rows(rb->J);
        rb->nkrows = ld_rod_rows(m);
        s->m = rb->njrows + rb->nkrows + (rb->euler ? m->nbodies : 0);
        rc = ld_sys_layout(s);
    }
    if (!rc && !rb->euler) rc = build_pattern(s);
    if (!rc) rc = element_pairs(s, m);
    if (!rc) rc = ld_sys_alloc_work(s);
    double *q = rc ? NULL : calloc((size_t)s->nq, sizeof(double));
    double *v = rc ? NULL : calloc((size_t)s->k, sizeof(double));
    if (!rc && (!q || !v)) rc = LD_ENOMEM;
    for (int i = 0; !rc && i < m->nbodies; ++i) initial_body(s, &m->bodies[i], i, q, v);
    if (!rc) {
        int jbad = -1;
        double err = closure_error(s, q, m->run.t_start, s->work, &jbad);
        if (err > 1e-9) {
            rc = LD_EINVAL;
            if (msg && jbad >= 0) not_closed(m, jbad, err, msg, n);
        }
    }
    if (!rc) rc = ld_jsys_initial_velocity(rb->J, s, m->run.t_start, q, v, msg, n);
    if (!rc && rb->nkrows > 0) rc = ld_rod_check_initial(s, q, v, msg, n);
    if (rc) {
        free(q);
        free(v);
        ld_model_system_free(s);
        return rc;
    }
    *q0 = q;
    *v0 = v;
    return LD_OK;
}

int ld_model_compile(const ld_model *m, ld_formulation f, ld_system *s, double **q0, double **v0) {
    return compile(m, f, s, q0, v0, NULL, 0);
}

int ld_model_compile_msg(const ld_model *m, ld_formulation f, ld_system *s, double **q0,
                         double **v0, char *msg, size_t n) {
    int rc = compile(m, f, s, q0, v0, msg, n);
    if (rc != LD_OK && msg && n && !msg[0]) snprintf(msg, n, "%s", ld_strerror(rc));
    return rc;
}

int ld_model_check_initial(const ld_model *m, char *msg, size_t n) {
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    int rc = compile(m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, n);
    if (rc == LD_ENOMEM || rc == LD_OK) {
        if (msg && n) msg[0] = '\0';
    } else if (msg && n && !msg[0]) {
        snprintf(msg, n, "the model cannot be compiled");
    }
    if (rc == LD_OK) {
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    return rc;
}

void ld_model_system_free(ld_system *s) {
    if (!s) return;
    ld_sys_free_work(s);
    free(s->nodes);
    free(s->brow);
    free(s->bcol);
    free(s->pair);
    s->brow = s->bcol = s->pair = NULL;
    s->bnnz = s->npairs = 0;
    if (s->user) {
        ld_jsys_free(((rb_sys *)s->user)->J);
        free(((rb_sys *)s->user)->load_start);
        free(((rb_sys *)s->user)->load_list);
    }
    free(s->user);
    s->nodes = NULL;
    s->user = NULL;
}

int ld_model_body_state(const ld_system *s, int body, const double *q, const double *v, double x[3],
                        double quat[4], double omega[3], double xdot[3]) {
    if (!s || !s->user || body < 0 || body >= s->nnodes) return LD_EINVAL;
    const double *g = q + s->nodes[body].qoff, *xp;
    double R[9];
    ld_rb_pose(s, q, body, R, &xp);
    if (RB(s)->euler) {
        if (ld_quat_normalize(quat, g + 3)) return LD_EDOMAIN;
    } else if (RB(s)->quat) {
        (void)ld_quat_normalize(quat, g);
    } else {
        ld_quat_from_mat(quat, R);
    }
    memcpy(x, xp, 3 * sizeof(double));
    body_velocity(s, q, v, body, omega, xdot);
    return LD_OK;
}

int ld_model_joint_reaction(const ld_system *s, int joint, const double *q, const double *lambda,
                            double f[3], double tau[3]) {
    if (!s || !s->user || !q || !lambda || joint < 0 || joint >= RB(s)->m->njoints)
        return LD_EINVAL;
    return ld_jsys_reaction(RB(s)->J, s, joint, q, lambda, f, tau);
}

int ld_model_exact_rotation(const ld_model *m, int body, double t, double quat[4]) {
    for (int l = 0; m && l < m->nloads; ++l) {
        const ld_load *ld = &m->loads[l];
        if (ld->body == body && ld->kind == LD_LOAD_EXACT_TORQUE && ld->exact != LD_EXACT_NONE) {
            double Om[3], Omd[3];
            ld_exact_eval(ld->exact, t, quat, Om, Omd);
            return LD_OK;
        }
    }
    return LD_ENOTSUPPORTED;
}

/* Rigid bodies with gravity, loads and spherical joints to ground, compiled into a system
 * (system.h) in one of four formulations. Per body, with v = (Ω, U):
 *   direct (so3xr3, s3xr3):      U = ẋ,    J Ω̇ + Ω × JΩ = τ,   m U̇ = f
 *   semidirect (se3, s3sdr3):    U = Rᵀẋ,  J Ω̇ + Ω × JΩ = τ,   m (U̇ + Ω × U) = Rᵀ f
 * τ the body-frame torque, f the spatial force. A spherical joint Φ = x + R p − xg has
 * B = [−R hat(p), I] (direct) or [−R hat(p), R] (semidirect); every tangent matrix is
 * analytic (the tests compare them with differences on the group). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "exact.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"

typedef struct rb_sys {
    const ld_model *m;
    ld_formulation f;
    int semi; /* semidirect: U in the body frame */
    int quat; /* S³ storage */
} rb_sys;

static const rb_sys *RB(const ld_system *s) {
    return (const rb_sys *)s->user;
}

/* Rotation matrix and position of body i. */
static void body_pose(const ld_system *s, const double *q, int i, double R[9], const double **x) {
    const double *g = q + s->nodes[i].qoff;
    if (RB(s)->quat) {
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

/* Loads on body i at time t: body-frame torque τ_b and spatial-frame force f_s, split into
 * the parts that depend on the rotation (spatial torque ts, body force fb) for the
 * stiffness: τ = τ_b + Rᵀ ts, f = f_s + R fb. */
typedef struct loads {
    double tb[3], ts[3], fs[3], fb[3];
} loads;

static void body_loads(const ld_system *s, int i, double t, loads *L) {
    const ld_model *m = RB(s)->m;
    const ld_body *b = &m->bodies[i];
    memset(L, 0, sizeof *L);
    for (int j = 0; j < 3; ++j) L->fs[j] = b->mass * m->gravity[j];
    for (int l = 0; l < m->nloads; ++l) {
        const ld_load *ld = &m->loads[l];
        if (ld->body != i) continue;
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
    (void)q;
    const ld_model *m = RB(s)->m;
    size_t k = (size_t)s->k;
    memset(M, 0, k * k * sizeof(double));
    for (int i = 0; i < m->nbodies; ++i) {
        size_t o = (size_t)s->nodes[i].voff;
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
        const double *Om = v + o, *U = v + o + 3, *x;
        double R[9], JO[3], c[3], tau[3], f[3], tmp[3];
        loads L;
        body_pose(s, q, i, R, &x);
        body_loads(s, i, t, &L);
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
    return LD_OK;
}

static int rb_phi(const ld_system *s, double t, const double *q, double *Phi) {
    (void)t;
    const ld_model *m = RB(s)->m;
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jt = &m->joints[j];
        double R[9], Rp[3];
        const double *x;
        body_pose(s, q, jt->body, R, &x);
        mulv(Rp, R, jt->p);
        for (int i = 0; i < 3; ++i) Phi[3 * j + i] = x[i] + Rp[i] - jt->xg[i];
    }
    return LD_OK;
}

static int rb_phi_q(const ld_system *s, double t, const double *q, double *B) {
    (void)t;
    const ld_model *m = RB(s)->m;
    size_t k = (size_t)s->k;
    memset(B, 0, (size_t)s->m * k * sizeof(double));
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jt = &m->joints[j];
        double R[9], P[9], RP[9];
        const double *x;
        body_pose(s, q, jt->body, R, &x);
        ld_so3_hat(P, jt->p);
        ld_m3_mul(RP, R, P);
        size_t o = (size_t)s->nodes[jt->body].voff;
        for (size_t r = 0; r < 3; ++r) {
            double *row = B + (3 * (size_t)j + r) * k;
            for (size_t c = 0; c < 3; ++c) {
                row[o + c] = -RP[3 * r + c];
                row[o + 3 + c] = RB(s)->semi ? R[3 * r + c] : (r == c ? 1.0 : 0.0);
            }
        }
    }
    return LD_OK;
}

/* ∂g/∂v: rotation block hat(Ω) J − hat(JΩ); semidirect translation: m Ω × U. */
static int rb_g_v(const ld_system *s, double t, const double *q, const double *v, double *C) {
    (void)t, (void)q;
    const ld_model *m = RB(s)->m;
    size_t k = (size_t)s->k;
    memset(C, 0, k * k * sizeof(double));
    for (int i = 0; i < m->nbodies; ++i) {
        const ld_body *b = &m->bodies[i];
        size_t o = (size_t)s->nodes[i].voff;
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
    return LD_OK;
}

/* Adds hat(w) to the 3×3 block (r0, c0) of the k×k matrix K, scaled by sc. */
static void add_hat(double *K, size_t k, size_t r0, size_t c0, const double w[3], double sc) {
    double H[9];
    ld_so3_hat(H, w);
    for (size_t r = 0; r < 3; ++r)
        for (size_t c = 0; c < 3; ++c) K[(r0 + r) * k + c0 + c] += sc * H[3 * r + c];
}

/* K = ∂/∂q [M a + g + Bᵀλ] along the group. Only R enters: ∂(Rᵀw)/∂θ = hat(Rᵀw),
 * ∂(R w)/∂θ = −R hat(w). */
static int rb_stiffness(const ld_system *s, double t, const double *q, const double *v,
                        const double *a, const double *lambda, double *K) {
    (void)v, (void)a;
    const ld_model *m = RB(s)->m;
    size_t k = (size_t)s->k;
    memset(K, 0, k * k * sizeof(double));
    for (int i = 0; i < m->nbodies; ++i) {
        size_t o = (size_t)s->nodes[i].voff;
        const double *x;
        double R[9], w[3], Rw[9], P[9];
        loads L;
        body_pose(s, q, i, R, &x);
        body_loads(s, i, t, &L);
        ld_m3_tmulv(w, R, L.ts); /* −Rᵀ ts in the rotation rows */
        add_hat(K, k, o, o, w, -1.0);
        if (RB(s)->semi) { /* −Rᵀ f_s in the translation rows */
            ld_m3_tmulv(w, R, L.fs);
            add_hat(K, k, o + 3, o, w, -1.0);
        } else { /* −R f_b: derivative +R hat(f_b) */
            ld_so3_hat(P, L.fb);
            ld_m3_mul(Rw, R, P);
            for (size_t r = 0; r < 3; ++r)
                for (size_t c = 0; c < 3; ++c) K[(o + 3 + r) * k + o + c] += Rw[3 * r + c];
        }
    }
    for (int j = 0; j < m->njoints && lambda; ++j) {
        const ld_joint *jt = &m->joints[j];
        size_t o = (size_t)s->nodes[jt->body].voff;
        const double *x;
        double R[9], w[3], P[9], H[9], PH[9];
        body_pose(s, q, jt->body, R, &x);
        ld_m3_tmulv(w, R, lambda + 3 * j); /* Bᵀλ = (hat(p) Rᵀλ, λ or Rᵀλ) */
        ld_so3_hat(P, jt->p);
        ld_so3_hat(H, w);
        ld_m3_mul(PH, P, H);
        for (size_t r = 0; r < 3; ++r)
            for (size_t c = 0; c < 3; ++c) K[(o + r) * k + o + c] += PH[3 * r + c];
        if (RB(s)->semi) add_hat(K, k, o + 3, o, w, 1.0);
    }
    return LD_OK;
}

/* z = R(Ω × (Ω × p)) (+ R(Ω × U) for the semidirect products). */
static int rb_phi_dd(const ld_system *s, double t, const double *q, const double *v, double *z) {
    (void)t;
    const ld_model *m = RB(s)->m;
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jt = &m->joints[j];
        int o = s->nodes[jt->body].voff;
        const double *Om = v + o, *U = v + o + 3, *x;
        double R[9], c1[3], c2[3], w[3];
        body_pose(s, q, jt->body, R, &x);
        ld_v3_cross(c1, Om, jt->p);
        ld_v3_cross(c2, Om, c1);
        if (RB(s)->semi) {
            ld_v3_cross(c1, Om, U);
            for (int i = 0; i < 3; ++i) c2[i] += c1[i];
        }
        mulv(w, R, c2);
        memcpy(z + 3 * j, w, sizeof w);
    }
    return LD_OK;
}

static int rb_energy(const ld_system *s, double t, const double *q, const double *v, double *e) {
    (void)t;
    const ld_model *m = RB(s)->m;
    double sum = 0.0;
    for (int i = 0; i < m->nbodies; ++i) {
        const ld_body *b = &m->bodies[i];
        int o = s->nodes[i].voff;
        const double *Om = v + o, *U = v + o + 3, *x;
        double R[9], JO[3];
        body_pose(s, q, i, R, &x);
        mulv(JO, b->inertia, Om);
        sum += 0.5 * ld_v3_dot(Om, JO) + 0.5 * b->mass * ld_v3_dot(U, U) -
               b->mass * ld_v3_dot(m->gravity, x);
    }
    *e = sum;
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
    default:
        return LD_NODE_SO3XR3;
    }
}

/* Initial velocity of body i: the joint's if one holds it, else the given one. LD_EINVAL if
 * a given velocity contradicts the joint. */
static int initial_velocity(const ld_model *m, int i, double xd[3]) {
    const ld_body *b = &m->bodies[i];
    memcpy(xd, b->v, 3 * sizeof(double));
    for (int j = 0; j < m->njoints; ++j) {
        if (m->joints[j].body != i) continue;
        double R[9], c[3], w[3];
        ld_quat_to_mat(R, b->q);
        ld_v3_cross(c, b->omega, m->joints[j].p);
        ld_m3_mulv(w, R, c);
        int bad = 0;
        for (int l = 0; l < 3; ++l) {
            xd[l] = -w[l];
            bad |= b->has_v && fabs(b->v[l] - xd[l]) > 1e-6 * (1.0 + fabs(xd[l]));
        }
        if (bad) return LD_EINVAL;
    }
    return LD_OK;
}

/* Joint closure and velocity consistency at the initial state, with a message naming the
 * joint or body. */
int ld_model_check_initial(const ld_model *m, char *msg, size_t n) {
    if (!m || (m->nbodies > 0 && !m->bodies) || (m->njoints > 0 && !m->joints)) return LD_EINVAL;
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jt = &m->joints[j];
        if (jt->body < 0 || jt->body >= m->nbodies) return LD_EINVAL;
        const ld_body *b = &m->bodies[jt->body];
        double qn[4], Rp[3], d = 0.0, sc = 1.0;
        if (ld_quat_normalize(qn, b->q)) return LD_EINVAL;
        ld_quat_rotate(Rp, qn, jt->p);
        for (int i = 0; i < 3; ++i) {
            d = fmax(d, fabs(b->x[i] + Rp[i] - jt->xg[i]));
            sc = fmax(sc, fabs(b->x[i]) + fabs(Rp[i]) + fabs(jt->xg[i]));
        }
        if (d > 1e-9 * sc) {
            if (msg)
                snprintf(msg, n,
                         "joint %d ('%s') is not closed at the start: the point of body '%s' is "
                         "%.3g m from the ground point",
                         j, jt->name, b->name, d);
            return LD_EINVAL;
        }
    }
    for (int i = 0; i < m->nbodies; ++i) {
        double xd[3];
        if (initial_velocity(m, i, xd)) {
            if (msg)
                snprintf(msg, n,
                         "body '%s': the given velocity contradicts its joint (the joint implies "
                         "%.9g, %.9g, %.9g)",
                         m->bodies[i].name, xd[0], xd[1], xd[2]);
            return LD_EINVAL;
        }
    }
    if (msg && n) msg[0] = '\0';
    return LD_OK;
}

int ld_model_compile(const ld_model *m, ld_formulation f, ld_system *s, double **q0, double **v0) {
    if (!m || !s || !q0 || !v0 || f < 0 || f >= LD_FORM_COUNT || m->nbodies < 1 ||
        ld_model_check_initial(m, NULL, 0))
        return LD_EINVAL;
    memset(s, 0, sizeof *s);
    rb_sys *rb = calloc(1, sizeof *rb);
    ld_node *nodes = calloc((size_t)m->nbodies, sizeof *nodes);
    if (!rb || !nodes) {
        free(rb);
        free(nodes);
        return LD_ENOMEM;
    }
    rb->m = m;
    rb->f = f;
    rb->semi = f == LD_FORM_SE3 || f == LD_FORM_S3SDR3;
    rb->quat = f == LD_FORM_S3XR3 || f == LD_FORM_S3SDR3;
    for (int i = 0; i < m->nbodies; ++i) nodes[i].kind = node_kind(f);
    s->nnodes = m->nbodies;
    s->nodes = nodes;
    s->m = 3 * m->njoints;
    s->user = rb;
    s->ops = (ld_system_ops){rb_mass, rb_force,     rb_phi,    rb_phi_q,
                             rb_g_v,  rb_stiffness, rb_phi_dd, rb_energy};
    int rc = ld_sys_layout(s);
    if (!rc) rc = ld_sys_alloc_work(s);
    double *q = rc ? NULL : calloc((size_t)s->nq, sizeof(double));
    double *v = rc ? NULL : calloc((size_t)s->k, sizeof(double));
    if (!rc && (!q || !v)) rc = LD_ENOMEM;
    for (int i = 0; !rc && i < m->nbodies; ++i) {
        const ld_body *b = &m->bodies[i];
        double *g = q + nodes[i].qoff, *vi = v + nodes[i].voff, R[9], xd[3];
        ld_quat_to_mat(R, b->q);
        if (rb->quat) {
            (void)ld_quat_normalize(g, b->q);
            memcpy(g + 4, b->x, 3 * sizeof(double));
        } else {
            memcpy(g, R, sizeof R);
            memcpy(g + 9, b->x, 3 * sizeof(double));
        }
        rc = initial_velocity(m, i, xd);
        memcpy(vi, b->omega, 3 * sizeof(double));
        if (rb->semi)
            ld_m3_tmulv(vi + 3, R, xd);
        else
            memcpy(vi + 3, xd, sizeof xd);
    }
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

void ld_model_system_free(ld_system *s) {
    if (!s) return;
    ld_sys_free_work(s);
    free(s->nodes);
    free(s->user);
    s->nodes = NULL;
    s->user = NULL;
}

int ld_model_body_state(const ld_system *s, int body, const double *q, const double *v, double x[3],
                        double quat[4], double omega[3], double xdot[3]) {
    if (!s || !s->user || body < 0 || body >= s->nnodes) return LD_EINVAL;
    const double *g = q + s->nodes[body].qoff, *xp, *vi = v + s->nodes[body].voff;
    double R[9];
    body_pose(s, q, body, R, &xp);
    if (RB(s)->quat)
        (void)ld_quat_normalize(quat, g);
    else
        ld_quat_from_mat(quat, R);
    memcpy(x, xp, 3 * sizeof(double));
    memcpy(omega, vi, 3 * sizeof(double));
    if (RB(s)->semi)
        mulv(xdot, R, vi + 3);
    else
        memcpy(xdot, vi + 3, 3 * sizeof(double));
    return LD_OK;
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

/*
 * Splitting (Lie–Poisson) integrators for rigid bodies: split2, split4, split6, split8
 * (docs/split.md). The Hamiltonian of bodies that are free or pivot on a spherical joint to the
 * ground splits into the free rotation (kinetic energy) and the position-dependent loads
 * (gravity, forces and torques with time functions); each part is integrated exactly and the
 * parts are composed symmetrically:
 *   S₂(h) = K(h/2) ∘ A(h/2) ∘ B(h) ∘ A(h/2) ∘ K(h/2)        (Strang)
 * with K the kick of the loads (Π += h τ, p += h f at a fixed configuration and time), A the
 * exact flow of a symmetric free body (closed form) and B the rotation that the asymmetry adds
 * (T = ½ Σ Π_i²/I_i = ½ (Π₁² + Π₂²)/I₁ + ½ Π₃²/I₃ + ½ (1/I₂ − 1/I₁) Π₂², each part exact; B is
 * absent for a symmetric body, whose free flow A is then exact on its own). Orders 4, 6, 8
 * compose S₂ with the weights of Suzuki (1990, five stages), Yoshida (1990, "Construction of
 * higher order symplectic integrators", solution A of order 6, seven stages, and solution A of
 * order 8, fifteen stages).
 *
 * A body on a spherical joint to the ground is integrated as a body pivoting about that point
 * (the inertia about the pivot, its centre of mass at x = p + R c): the joint's equations hold
 * exactly, no multiplier is needed. The methods work on compiled models (the rigid-body
 * system) in the Lie-group formulations and refuse anything else with the reason. The
 * accelerations and multipliers are those of the start, then not computed (NaN).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "../lie/mat3.h"
#include "integ_impl.h"
#include "liedyn/liedyn.h"
#include "../elements/kinds.h"
#include "../core/oom.h"

/* One body as the splitting sees it. */
typedef struct sp_body {
    int pivot;    /* on a spherical joint to the ground */
    double p[3];  /* the pivot (spatial) */
    double c[3];  /* the centre of mass from the pivot, body frame (0 for a free body) */
    double m;     /* mass */
    double Q[9];  /* principal axes: body frame → principal frame is Qᵀ (columns: the axes) */
    double I[3];  /* principal moments about the pivot (free: the centre of mass); I[0] ≈ I[1] */
    double a;     /* 1/I[1] − 1/I[0]: the asymmetric part (0: symmetric) */
    double R[9];  /* step state: the principal frame R Q */
    double Pi[3]; /* the angular momentum in the principal frame */
    double x[3];  /* the centre of mass */
    double pl[3]; /* the linear momentum (free bodies) */
} sp_body;

typedef struct sp {
    int nb;
    sp_body *b;
    const double *w; /* the composition's weights */
    int nw;
} sp;

/* ---------------------------------------------------------------- compositions */

static const double w2[1] = {1.0};
/* Suzuki's five-stage fourth-order composition: p, p, 1 − 4p, p, p with p = 1/(4 − 4^{1/3}). */
#define SZ_P 0.4144907717943757
static const double w4[5] = {SZ_P, SZ_P, -0.6579630871775028, SZ_P, SZ_P};
/* Yoshida's sixth order, solution A: w₃ w₂ w₁ w₀ w₁ w₂ w₃, w₀ = 1 − 2 (w₁ + w₂ + w₃). */
#define Y6_1 (-1.17767998417887)
#define Y6_2 0.235573213359357
#define Y6_3 0.784513610477560
static const double w6[7] = {Y6_3, Y6_2, Y6_1, 1.3151863206839063, Y6_1, Y6_2, Y6_3};
/* Yoshida's eighth order, solution A: w₇ … w₁ w₀ w₁ … w₇, w₀ = 1 − 2 Σ wᵢ. */
#define Y8_1 (-1.61582374150097)
#define Y8_2 (-2.44699182370524)
#define Y8_3 (-0.716989419708120e-2)
#define Y8_4 2.44002732616735
#define Y8_5 0.157739928123617
#define Y8_6 1.82020630970714
#define Y8_7 1.04242620869991
static const double w8[15] = {Y8_7, Y8_6, Y8_5, Y8_4, Y8_3, Y8_2, Y8_1, -1.7808286265894515,
                              Y8_1, Y8_2, Y8_3, Y8_4, Y8_5, Y8_6, Y8_7};

/* ---------------------------------------------------------------- set-up */

/* The principal frame of body b from its inertia J (about the pivot or the centre of mass):
 * the two closest moments first (the symmetric pair), a right-handed Q. */
static void principal(sp_body *b, const double J[9]) {
    double V[9], d[3];
    ld_m3_sym_eigen(J, V, d);
    int best = 2; /* the axis left out of the closest pair */
    double g01 = fabs(d[0] - d[1]), g02 = fabs(d[0] - d[2]), g12 = fabs(d[1] - d[2]);
    if (g02 < g01 && g02 <= g12) best = 1;
    if (g12 < g01 && g12 < g02) best = 0;
    int ord[3], n = 0;
    for (int i = 0; i < 3; ++i)
        if (i != best) ord[n++] = i;
    ord[2] = best;
    for (int j = 0; j < 3; ++j) {
        b->I[j] = d[ord[j]];
        for (int i = 0; i < 3; ++i) b->Q[3 * i + j] = V[3 * i + ord[j]];
    }
    double c2[3] = {b->Q[3] * b->Q[7] - b->Q[6] * b->Q[4], b->Q[6] * b->Q[1] - b->Q[0] * b->Q[7],
                    b->Q[0] * b->Q[4] - b->Q[3] * b->Q[1]}; /* column 0 × column 1 */
    if (c2[0] * b->Q[2] + c2[1] * b->Q[5] + c2[2] * b->Q[8] < 0.0)
        for (int i = 0; i < 3; ++i) b->Q[3 * i + 2] = -b->Q[3 * i + 2];
    double scale = fmax(b->I[0], b->I[1]);
    b->a = fabs(b->I[0] - b->I[1]) <= 1e-14 * scale ? 0.0 : 1.0 / b->I[1] - 1.0 / b->I[0];
}

/* What the splitting cannot hold, as a reason; NULL if the model fits. */
static const char *unfit(const ld_system *s, int *item) {
    const char *why = ld_rb_rigid_only(s, "the splitting methods need", "split", 0);
    if (why) return why;
    const ld_model *m = ld_rb(s)->m;
    int *seen = ld_xcalloc((size_t)m->nbodies, sizeof *seen, "the bodies' joint counts");
    if (!seen) return ld_oom_last_str();
    for (int j = 0; !why && j < m->njoints; ++j) {
        const ld_joint *jt = &m->joints[j];
        *item = j;
        if (jt->kind != LD_JOINT_SPHERICAL || jt->body1 != LD_GROUND)
            why = "only a spherical joint to the ground reduces to a pivoting body";
        else if (seen[jt->body2]++)
            why = "a body has two joints";
    }
    free(seen);
    return why;
}

/* The reason the splitting cannot run s, with the item at fault (thread-local), or NULL. */
static const char *split_refuse(const ld_system *s) {
    static _Thread_local char buf[256];
    int item = -1;
    const char *why = unfit(s, &item);
    if (!why) return NULL;
    if (item >= 0)
        strf(buf, sizeof buf, "joint %d ('%s'): %s", item, ld_rb(s)->m->joints[item].name, why);
    else
        strf(buf, sizeof buf, "%s", why);
    return buf;
}

static int split_create(ld_integ *it) {
    const ld_system *s = it->s;
    const char *why = split_refuse(s);
    if (why) {
        strf(it->msg, sizeof it->msg, "%s: %s", it->meth->info.name, why);
        return LD_ENOTSUPPORTED;
    }
    const ld_model *m = ld_rb(s)->m;
    sp *S = ld_xcalloc(1, sizeof *S, "the splitting method");
    sp_body *b =
        S ? ld_xcalloc((size_t)m->nbodies, sizeof *b, "the splitting method's bodies") : NULL;
    if (!S || !b) {
        free(S);
        it->oom_bytes = (double)m->nbodies * (double)sizeof *b;
        return LD_ENOMEM;
    }
    S->nb = m->nbodies, S->b = b;
    int ord = it->meth->variant;
    S->w = ord == 2 ? w2 : ord == 4 ? w4 : ord == 6 ? w6 : w8;
    S->nw = ord == 2 ? 1 : ord == 4 ? 5 : ord == 6 ? 7 : 15;
    it->priv = S;
    for (int i = 0; i < m->nbodies; ++i) {
        const ld_body *bd = &m->bodies[i];
        double J[9], R0[9], qn[4];
        memcpy(J, bd->inertia, sizeof J);
        b[i].m = bd->mass;
        for (int j = 0; j < m->njoints; ++j)
            if (m->joints[j].body2 == i) {
                double d[3];
                b[i].pivot = 1;
                memcpy(b[i].p, m->joints[j].at, sizeof b[i].p);
                (void)ld_quat_normalize(qn, bd->q);
                ld_quat_to_mat(R0, qn);
                for (int k = 0; k < 3; ++k) d[k] = bd->x[k] - b[i].p[k];
                ld_m3_tmulv(b[i].c, R0, d);
                double cc = ld_v3_dot(b[i].c, b[i].c); /* parallel axes */
                for (int r = 0; r < 3; ++r)
                    for (int k = 0; k < 3; ++k)
                        J[3 * r + k] += bd->mass * ((r == k ? cc : 0.0) - b[i].c[r] * b[i].c[k]);
            }
        principal(&b[i], J);
    }
    return LD_OK;
}

static void split_destroy(ld_integ *it) {
    sp *S = it->priv;
    if (S) free(S->b);
    free(S);
    it->priv = NULL;
}

/* ---------------------------------------------------------------- state */

/* The body's own rotation R = (R Q) Qᵀ from the principal frame of the step state. */
static void body_rotation(const sp_body *b, double R[9]) {
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            R[3 * r + c] = b->R[3 * r] * b->Q[3 * c] + b->R[3 * r + 1] * b->Q[3 * c + 1] +
                           b->R[3 * r + 2] * b->Q[3 * c + 2];
}

/* Read body i's step state from (q, v). */
static void load_body(const ld_system *s, sp_body *b, int i, const double *q, const double *v) {
    double R[9], Om[3], xd[3], w[3], x[3];
    ld_rb_state_read(s, q, v, i, R, x, Om, xd);
    ld_m3_mul(b->R, R, b->Q);
    ld_m3_tmulv(w, b->Q, Om);
    for (int k = 0; k < 3; ++k) b->Pi[k] = b->I[k] * w[k], b->pl[k] = b->m * xd[k];
    memcpy(b->x, x, sizeof b->x);
}

/* Write body i's step state into (q, v) in the formulation's layout. */
static void store_body(const ld_system *s, const sp_body *b, int i, double *q, double *v) {
    double R[9], w[3], Om[3], xd[3], x[3];
    body_rotation(b, R);
    for (int k = 0; k < 3; ++k) w[k] = b->Pi[k] / b->I[k];
    ld_m3_mulv(Om, b->Q, w);
    if (b->pivot) {
        double Rc[3], oc[3];
        ld_m3_mulv(Rc, R, b->c);
        ld_v3_cross(oc, Om, b->c);
        ld_m3_mulv(xd, R, oc);
        for (int k = 0; k < 3; ++k) x[k] = b->p[k] + Rc[k];
    } else {
        for (int k = 0; k < 3; ++k) xd[k] = b->pl[k] / b->m, x[k] = b->x[k];
    }
    ld_rb_state_write(s, i, R, x, Om, xd, q, v);
}

/* ---------------------------------------------------------------- the flows */

/* The kick of the loads at time t for a time tau: Π += τ (torque), p += τ f. */
static void kick(const rb_sys *rb, sp *S, double t, double tau) {
    for (int i = 0; i < S->nb; ++i) {
        sp_body *b = &S->b[i];
        ld_rb_loads L;
        ld_rb_loads_eval(rb, i, t, &L);
        double R[9], f[3], ts[3], tq[3], tb[3];
        body_rotation(b, R);
        ld_m3_mulv(f, R, L.fb);
        for (int k = 0; k < 3; ++k) f[k] += L.fs[k];
        memcpy(ts, L.ts, sizeof ts);
        if (b->pivot) { /* the moment of the force about the pivot */
            double Rc[3], m[3];
            ld_m3_mulv(Rc, R, b->c);
            ld_v3_cross(m, Rc, f);
            for (int k = 0; k < 3; ++k) ts[k] += m[k];
        } else {
            for (int k = 0; k < 3; ++k) b->pl[k] += tau * f[k];
        }
        ld_m3_tmulv(tq, R, ts);
        for (int k = 0; k < 3; ++k) tq[k] += L.tb[k];
        ld_m3_tmulv(tb, b->Q, tq);
        for (int k = 0; k < 3; ++k) b->Pi[k] += tau * tb[k];
    }
}

/* R ← R exp(θ e_axis), Π ← exp(−θ e_axis) Π: a rotation about principal axis `axis`. */
static void turn_axis(sp_body *b, int axis, double th) {
    double c = cos(th), s = sin(th);
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    for (int r = 0; r < 3; ++r) { /* columns i, j of R turned by θ about the axis */
        double ri = b->R[3 * r + i], rj = b->R[3 * r + j];
        b->R[3 * r + i] = c * ri + s * rj;
        b->R[3 * r + j] = -s * ri + c * rj;
    }
    double pi = b->Pi[i], pj = b->Pi[j];
    b->Pi[i] = c * pi + s * pj;
    b->Pi[j] = -s * pi + c * pj;
}

/* The exact free flow of the symmetric part for a time tau: R ← R exp(τ Π/I₁) exp(τ ν e₃),
 * Π ← exp(−τ ν e₃) Π with ν = Π₃ (1/I₃ − 1/I₁); the centre of mass drifts. */
static void drift_a(sp_body *b, double tau) {
    double w[3], E[9], T[9];
    for (int k = 0; k < 3; ++k) w[k] = tau * b->Pi[k] / b->I[0];
    ld_so3_exp(E, w);
    ld_m3_mul(T, b->R, E);
    memcpy(b->R, T, sizeof T);
    turn_axis(b, 2, tau * b->Pi[2] * (1.0 / b->I[2] - 1.0 / b->I[0]));
    if (!b->pivot)
        for (int k = 0; k < 3; ++k) b->x[k] += tau * b->pl[k] / b->m;
}

/* The asymmetric part ½ a Π₂²: a rotation about principal axis 2 (index 1) at rate a Π₂. */
static void drift_b(sp_body *b, double tau) {
    turn_axis(b, 1, tau * b->a * b->Pi[1]);
}

/* The free flow of all bodies for a time tau: A(τ/2) B(τ) A(τ/2), or A(τ) when symmetric. */
static void drift(sp *S, double tau) {
    for (int i = 0; i < S->nb; ++i) {
        sp_body *b = &S->b[i];
        if (b->a == 0.0) {
            drift_a(b, tau);
        } else {
            drift_a(b, 0.5 * tau);
            drift_b(b, tau);
            drift_a(b, 0.5 * tau);
        }
    }
}

/* ---------------------------------------------------------------- the method */

/* The start: v̇ and λ consistent with it (the generic saddle solve, which also names any
 * non-finite input); after a step they are not computed (NaN). */
static int split_initial(ld_integ *it, char *why, size_t cap) {
    return ld_integ__initial_accel(it, why, cap);
}

static int split_step(ld_integ *it, double t1) {
    const ld_system *s = it->s;
    sp *S = it->priv;
    double h = t1 - it->t, t = it->t;
    for (int i = 0; i < S->nb; ++i) load_body(s, &S->b[i], i, it->q, it->v);
    kick(ld_rb(s), S, t, 0.5 * S->w[0] * h);
    for (int j = 0; j < S->nw; ++j) {
        drift(S, S->w[j] * h);
        t = j + 1 == S->nw ? t1 : t + S->w[j] * h;
        double next = j + 1 < S->nw ? S->w[j + 1] : 0.0;
        kick(ld_rb(s), S, t, 0.5 * (S->w[j] + next) * h);
    }
    for (int i = 0; i < S->nb; ++i) store_body(s, &S->b[i], i, it->qn, it->vn);
    int rc = ld_integ__finite(it, it->qn, (size_t)s->nq, "non-finite configuration");
    if (!rc) rc = ld_integ__finite(it, it->vn, (size_t)s->k, "non-finite velocity");
    if (rc) return ld_integ__reject(it, LD_RETRY_NONFINITE, it->why, h);
    memcpy(it->q, it->qn, (size_t)s->nq * sizeof(double));
    memcpy(it->v, it->vn, (size_t)s->k * sizeof(double));
    for (int i = 0; i < it->k; ++i) it->vd[i] = NAN;
    for (int i = 0; i < it->m; ++i) it->lam[i] = NAN;
    return LD_OK;
}

#define SPLIT_REFUSES                                                                              \
    "models other than rigid bodies that are free or pivot on a spherical joint to the ground "    \
    "under gravity and loads (other joints, force elements, rods, beams), the euler "              \
    "formulation; the state's accelerations and multipliers are not computed (NaN)"

#define SPLIT_METHOD(p, nm, ttl)                                                                   \
    {                                                                                              \
        .info = {.name = nm,                                                                       \
                 .title = ttl,                                                                     \
                 .order = p,                                                                       \
                 .order_estimate = 0,                                                              \
                 .constraints = 1,                                                                 \
                 .euler = 0,                                                                       \
                 .model_only = 1,                                                                  \
                 .refuses = SPLIT_REFUSES},                                                        \
        .variant = p, .refuse = split_refuse, .create = split_create, .destroy = split_destroy,    \
        .initial = split_initial, .step = split_step                                               \
    }

const ld_method_impl ld_method_split2 =
    SPLIT_METHOD(2, "split2", "Strang splitting: exact free rotation and load kicks (Lie-Poisson)");
const ld_method_impl ld_method_split4 =
    SPLIT_METHOD(4, "split4", "order 4: Suzuki's five-stage composition of the Strang splitting");
const ld_method_impl ld_method_split6 =
    SPLIT_METHOD(6, "split6", "order 6: Yoshida's seven-stage composition (solution A)");
const ld_method_impl ld_method_split8 =
    SPLIT_METHOD(8, "split8", "order 8: Yoshida's fifteen-stage composition (solution A)");

/*
 * moreau: the Moreau–Jean time-stepping scheme for rigid bodies in contact with each other and
 * the ground plane, with Newton's impact law and Coulomb friction (docs/contact.md; Moreau
 * 1988, "Unilateral contact and dry friction in finite freedom dynamics", and Jean 1999, "The
 * non-smooth contact dynamics method"), on the group: Moreau's midpoint form
 *   q_M = q_k ∘ exp(h/2 v_k)                     (each body: R exp(h/2 Ω), x + h/2 ẋ)
 *   M (v_{k+1} − v_k) = h f(t_k + h/2, q_M, v_k) + Σ_c W_cᵀ P_c
 *   q_{k+1} = q_M ∘ exp(h/2 v_{k+1})
 * where f holds gravity, the loads and the gyroscopic torque −Ω × JΩ, and the contacts c are
 * those closed at the midpoint (gap(q_M) ≤ 0, to 10⁻¹² m). Each contact's impulse P_c = (P_n, P_t1,
 * P_t2) in its frame (n, t1, t2) obeys, with U = W_c v the relative velocity there, 0 ≤ U_n,{k+1} +
 * e U_n,k  ⊥  P_n ≥ 0        (Newton's impact law, restitution e) |P_t| ≤ μ P_n, P_t opposing U_t
 * when sliding (Coulomb, dry friction) The impulses are found by projected Gauss–Seidel over the
 * contacts (each: the normal impulse projected onto P_n ≥ 0, the tangential onto the disc |P_t| ≤ μ
 * P_n, from the diagonal of the Delassus operator W M⁻¹ Wᵀ), until no impulse changes by more than
 * pgs_tol of the largest, at most pgs_max_iter sweeps; by default each sweep starts from
 * Nesterov's extrapolation of the last two (solve_accel), which stops also when the bodies'
 * velocities no longer change. The contact constraints hold at the velocity
 * level: a resting contact stays at rest, it does not sink; the overlap a contact reaches is
 * that of its closing step, O(h U_n). First order (the explicit gyroscopic torque and the
 * impact law); second order for translation under position-dependent forces between contacts.
 *
 * Joints take part through their rows of B at the midpoint, held at the velocity level,
 * B v_{k+1} = −Φ_t, by impulses λ in the same sweeps (the state's multipliers are λ/h), and
 * their drift is corrected in the positions only: the last half drift moves the bodies with
 * v_{k+1} + δv, B δv = −2 Φ(q_M)/h (a split impulse: δv does not enter the velocities); the
 * rows of the semidirect and spatial formulations are carried over to (Ω, ẋ). No rods,
 * beams, force elements or pinned bodies (refused with the reason). Every Lie-group
 * formulation: the state is read and written in the formulation's layout.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "../elements/contact.h"
#include "../elements/kinds.h"
#include "../lie/mat3.h"
#include "integ_impl.h"
#include "liedyn/coords.h"
#include "liedyn/liedyn.h"

#define PI          3.14159265358979323846
#define CLOSED      1e-12 /* a contact is closed at gap ≤ 0; touching within this counts */
#define PGS_TOL(o)  ((o)->param[2])
#define PGS_ITER(o) ((o)->param[3])
#define STALL       100 /* the accelerated solve stops after this many sweeps without progress */
#if LD_METHOD_MAX_PARAMS > 4
#define SOLVER(o) ((o)->param[4])
#else
#define SOLVER(o) ((void)(o), 1.0) /* no room for the parameter: the accelerated solve */
#endif

/* max(a, b) for numbers (fmax is a library call where it is not inlined: the sweeps' hot path) */
static inline double max2(double a, double b) {
    return a > b ? a : b;
}

typedef struct mj_body {
    double m, J[9], Ji[9]; /* mass, inertia (body frame) and its inverse */
    double R[9], x[3], Om[3], xd[3];
    double sOm[3], sxd[3]; /* v_k while the free velocities are found; the step's velocities
                              while the position correction is solved */
    double reach;          /* of its colliding shapes from the centre of mass (m) */
} mj_body;

/* A contact in the solve: its frame, the bodies' lever-arm rows, the diagonal of the Delassus
 * operator, the pre-step normal velocity and the impulse. */
typedef struct mj_contact {
    int a, b;
    double d[3][3];  /* n, t1, t2 */
    double ja[3][3]; /* ρ_a × R_aᵀ d_k: the rows in Ω_a */
    double jb[3][3]; /* the same for b */
    double wa[3][3]; /* J_a⁻¹ ja_k */
    double wb[3][3]; /* J_b⁻¹ jb_k */
    double D[3], un0, e, mu, P[3];
    double gap, p[3];  /* the gap at the midpoint (m, or rad for a limit of an angle), the point */
    double target, dP; /* the position correction: δU_n ≥ target, its impulse */
    double vmin;       /* the velocity law: U_n ≥ vmin ⊥ P_n ≥ 0 */
    int open;          /* 1: open at the midpoint and not closing by the free motion */
    /* Coulomb–Contensou: the spin row R̄ n·(ω_a − ω_b), R̄ = 3π/16 × the contact radius (0: a
     * point contact, no row), its rows in Ω_a, Ω_b and J⁻¹ of them, its Delassus diagonal and
     * its impulse (the drilling torque's impulse over R̄) */
    double rs, js_a[3], ws_a[3], js_b[3], ws_b[3], Ds, Ps;
    double Pk[4]; /* (P, P_s) after the previous sweep (the accelerated solve) */
    int sa, sb;   /* the detector's shapes (−1: a joint limit) */
} mj_contact;

/* The joints' rows (the system's constraints): B v_{k+1} = −Φ_t by impulses λ in the same
 * sweeps as the contacts, and the positions' correction B δv = −2 Φ(q_M)/h apart. */
typedef struct mj_rows {
    int m;
    int *ptr;         /* m + 1: each row's entries of the pattern (rows, then columns) */
    int *body, *slot; /* bnnz: the body of each entry's column and its place (0–2 Ω, 3–5 ẋ) */
    double *B, *phi, *phit; /* bnnz values at q_M, Φ(q_M), Φ_t */
    double *D, *lam, *F;    /* m: the Delassus diagonal, the impulse, the force λ/h */
    double *lamk;           /* m: the impulse after the previous sweep (the accelerated solve) */
} mj_rows;

/* A contact's impulse kept for the next step's start (warm start): the pair's key (its shapes
 * and the contact's place among the pair's), and the impulse as a spatial vector. */
typedef struct mj_warm {
    long key;
    double F[3], Ps;
} mj_warm;

typedef struct mj {
    int nb, cap, nwarm, nshapes, nground;
    double *cf, *cft; /* per body: contact force and torque (6), of the last step, of the trial */
    mj_warm *warm;    /* cap, sorted by key */
    mj_rows J;
    mj_body *b;
    double *R, *x; /* midpoint poses (9, 3 per body) for the detector */
    ld_cworld *w;
    mj_contact *c;
    long sweeps; /* PGS sweeps in all steps */
    int last_sweeps, last_contacts;
    ld_contact_point *pts; /* cap: the shapes' contacts of the last accepted step */
    ld_contact *kept;      /* cap: the step's contacts of the shapes (closed or closing) */
    mj_contact *cp;        /* cap: the contacts of the projection at the step's end */
    double scale;          /* the largest reach of a body's shapes or joint points (m), ≥ 1e-3 */
    int npts;
    double trial_overlap, overlap, max_overlap; /* largest midpoint overlaps: trial, step, run */
    int trial_csweeps, last_csweeps; /* the position correction's and projection's sweeps */
    long csweeps;
    double *vs; /* 6 per body: the velocities before a sweep (the accelerated solve) */
} mj;

/* ---------------------------------------------------------------- refusals */

static const char *unfit(const ld_system *s) {
    const char *why = ld_rb_rigid_only(s, "moreau needs", "in contact models yet");
    if (why) return why;
    const ld_model *m = ld_rb(s)->m;
    if (s->m > 0 && !s->ops.phi_q_sparse)
        return "joints with moreau need the sparse rows of a Lie-group formulation";
    int s1, s2;
    if (ld_cworld_unsupported(m, &s1, &s2))
        return "a colliding shape that contact detection does not test (spheres, capsules and "
               "boxes collide)";
    return NULL;
}

static const char *moreau_refuse(const ld_system *s) {
    return unfit(s);
}

/* ---------------------------------------------------------------- state */

static void load_body(const ld_system *s, mj_body *b, int i, const double *q, const double *v) {
    ld_rb_state_read(s, q, v, i, b->R, b->x, b->Om, b->xd);
}

static void store_body(const ld_system *s, const mj_body *b, int i, double *q, double *v) {
    ld_rb_state_write(s, i, b->R, b->x, b->Om, b->xd, q, v);
}

/* R ← R exp(τ Ω), x ← x + τ ẋ. */
static void drift(mj_body *b, double tau) {
    double w[3] = {tau * b->Om[0], tau * b->Om[1], tau * b->Om[2]}, E[9], Rn[9];
    ld_so3_exp(E, w);
    ld_m3_mul(Rn, b->R, E);
    memcpy(b->R, Rn, sizeof Rn);
    for (int k = 0; k < 3; ++k) b->x[k] += tau * b->xd[k];
}

/* J⁻¹ (τ − Ω × JΩ): the angular acceleration at Ω under the body-frame torque τ. */
static void euler_rate(const mj_body *b, const double Om[3], const double tau[3], double dO[3]) {
    double JO[3], g[3], w[3];
    ld_m3_mulv(JO, b->J, Om);
    ld_v3_cross(g, Om, JO);
    for (int k = 0; k < 3; ++k) w[k] = tau[k] - g[k];
    ld_m3_mulv(dO, b->Ji, w);
}

/* Ω ← Ω + h J⁻¹ (τ − Ω* × JΩ*) with Ω* the explicit midpoint value (Euler's equations to second
 * order), ẋ ← ẋ + h f/m, at time t (the body at its midpoint pose). */
static void kick(const rb_sys *rb, mj_body *b, int i, double t, double h) {
    ld_rb_loads L;
    ld_rb_loads_eval(rb, i, t, &L);
    double f[3], tb[3], dO[3], Om[3];
    ld_m3_mulv(f, b->R, L.fb);
    ld_m3_tmulv(tb, b->R, L.ts);
    for (int k = 0; k < 3; ++k) tb[k] += L.tb[k], f[k] += L.fs[k];
    euler_rate(b, b->Om, tb, dO);
    for (int k = 0; k < 3; ++k) Om[k] = b->Om[k] + 0.5 * h * dO[k];
    euler_rate(b, Om, tb, dO);
    for (int k = 0; k < 3; ++k) b->Om[k] += h * dO[k], b->xd[k] += h * f[k] / b->m;
}

/* ---------------------------------------------------------------- the contacts */

/* t1, t2 completing n to a right-handed frame. */
static void tangents(const double n[3], double t1[3], double t2[3]) {
    int k = fabs(n[0]) < fabs(n[1]) ? (fabs(n[0]) < fabs(n[2]) ? 0 : 2)
                                    : (fabs(n[1]) < fabs(n[2]) ? 1 : 2);
    double e[3] = {0, 0, 0};
    e[k] = 1.0;
    ld_v3_cross(t1, n, e);
    double l = ld_v3_norm(t1);
    for (int i = 0; i < 3; ++i) t1[i] /= l;
    ld_v3_cross(t2, n, t1);
}

/* The rows of body b at point p for the frame d: ρ × Rᵀ d_k, and J⁻¹ of them. */
static void lever(const mj_body *b, const double *p, double (*d)[3], double (*j)[3],
                  double (*w)[3]) {
    double r[3], rho[3], dl[3];
    for (int k = 0; k < 3; ++k) r[k] = p[k] - b->x[k];
    ld_m3_tmulv(rho, b->R, r);
    for (int k = 0; k < 3; ++k) {
        ld_m3_tmulv(dl, b->R, d[k]);
        ld_v3_cross(j[k], rho, dl);
        ld_m3_mulv(w[k], b->Ji, j[k]);
    }
}

/* U_k = d_k·(ẋ_a − ẋ_b) + ja_k·Ω_a − jb_k·Ω_b. */
static void rel_velocity(const mj *S, const mj_contact *c, double U[3]) {
    const mj_body *A = &S->b[c->a], *B = c->b >= 0 ? &S->b[c->b] : NULL;
    for (int k = 0; k < 3; ++k) {
        U[k] = ld_v3_dot(c->d[k], A->xd) + ld_v3_dot(c->ja[k], A->Om);
        if (B) U[k] -= ld_v3_dot(c->d[k], B->xd) + ld_v3_dot(c->jb[k], B->Om);
    }
}

/* The spin row of contact c (its normal in d[0]) for the Contensou radius rs = 3π/16 R (Leine &
 * Glocker 2003); none for rs = 0. */
static void spin_setup(mj *S, mj_contact *c, double rs) {
    c->rs = rs, c->Ps = 0.0, c->Ds = 1.0;
    memset(c->js_b, 0, sizeof c->js_b);
    memset(c->ws_b, 0, sizeof c->ws_b);
    if (!(rs > 0.0)) return;
    const mj_body *A = &S->b[c->a], *B = c->b >= 0 ? &S->b[c->b] : NULL;
    double n[3] = {rs * c->d[0][0], rs * c->d[0][1], rs * c->d[0][2]};
    ld_m3_tmulv(c->js_a, A->R, n);
    ld_m3_mulv(c->ws_a, A->Ji, c->js_a);
    c->Ds = ld_v3_dot(c->js_a, c->ws_a);
    if (B) {
        ld_m3_tmulv(c->js_b, B->R, n);
        ld_m3_mulv(c->ws_b, B->Ji, c->js_b);
        c->Ds += ld_v3_dot(c->js_b, c->ws_b);
    }
}

/* The spin velocity R̄ n·(ω_a − ω_b) of contact c. */
static double spin_velocity(const mj *S, const mj_contact *c) {
    double u = ld_v3_dot(c->js_a, S->b[c->a].Om);
    return c->b >= 0 ? u - ld_v3_dot(c->js_b, S->b[c->b].Om) : u;
}

/* The bodies' angular velocities change by the spin impulse increment dPs of contact c. */
static void apply_spin(mj *S, const mj_contact *c, double dPs) {
    for (int i = 0; i < 3; ++i) S->b[c->a].Om[i] += dPs * c->ws_a[i];
    if (c->b >= 0)
        for (int i = 0; i < 3; ++i) S->b[c->b].Om[i] -= dPs * c->ws_b[i];
}

/* The friction impulses (P_t1, P_t2, P_s) projected radially onto the ball of radius μ P_n:
 * Coulomb's disc, or with a spin row the Coulomb–Contensou ellipsoid in R̄-scaled units. */
static void friction_project(double P[4], double mu) {
    double pt = sqrt(P[1] * P[1] + P[2] * P[2] + P[3] * P[3]), lim = mu * P[0];
    if (pt > lim) {
        double f = lim / pt;
        P[1] *= f, P[2] *= f, P[3] *= f;
    }
}

/* Set up contact c from the detector's at the midpoint poses (bodies at their midpoint). */
static void setup(mj *S, mj_contact *c, const ld_contact *f) {
    c->a = f->a, c->b = f->b, c->e = f->e, c->mu = f->mu;
    c->gap = f->gap, c->sa = f->sa, c->sb = f->sb;
    memcpy(c->p, f->p, sizeof c->p);
    memcpy(c->d[0], f->n, sizeof c->d[0]);
    tangents(f->n, c->d[1], c->d[2]);
    const mj_body *A = &S->b[c->a], *B = c->b >= 0 ? &S->b[c->b] : NULL;
    double pa[3], pb[3]; /* each body's own surface point: the impulse acts there */
    for (int i = 0; i < 3; ++i) pa[i] = f->p[i] + 0.5 * f->gap * f->n[i];
    for (int i = 0; i < 3; ++i) pb[i] = f->p[i] - 0.5 * f->gap * f->n[i];
    lever(A, pa, c->d, c->ja, c->wa);
    if (B) lever(B, pb, c->d, c->jb, c->wb);
    for (int k = 0; k < 3; ++k) {
        c->D[k] = 1.0 / A->m + ld_v3_dot(c->ja[k], c->wa[k]);
        if (B) c->D[k] += 1.0 / B->m + ld_v3_dot(c->jb[k], c->wb[k]);
        c->P[k] = 0.0;
    }
    spin_setup(S, c, 3.0 * PI / 16.0 * f->rc);
}

/* The bodies' velocities change by the impulse increment dP of contact c. */
static void apply(mj *S, const mj_contact *c, const double dP[3]) {
    mj_body *A = &S->b[c->a], *B = c->b >= 0 ? &S->b[c->b] : NULL;
    for (int k = 0; k < 3; ++k) {
        if (dP[k] == 0.0) continue;
        for (int i = 0; i < 3; ++i) {
            A->xd[i] += dP[k] * c->d[k][i] / A->m;
            A->Om[i] += dP[k] * c->wa[k][i];
            if (B) {
                B->xd[i] -= dP[k] * c->d[k][i] / B->m;
                B->Om[i] -= dP[k] * c->wb[k][i];
            }
        }
    }
}

static void rows_sweep(mj *S, int pos, double h, double *change, double *size, double *resid);
static void row_apply(mj *S, int r, double dl);

/* The accelerated solve starts: the previous sweep's impulses are the present ones. */
static void accel_start(mj *S, int nc) {
    for (int i = 0; i < nc; ++i) {
        mj_contact *c = &S->c[i];
        memcpy(c->Pk, c->P, sizeof c->P);
        c->Pk[3] = c->Ps;
    }
    for (int r = 0; r < S->J.m; ++r) S->J.lamk[r] = S->J.lam[r];
}

/* Nesterov's extrapolation of the joints' impulses: λ moves to λ + β (λ − λ_prev), the bodies'
 * velocities with it; λ_prev ← λ. */
static void rows_extrapolate(mj *S, double beta) {
    mj_rows *R = &S->J;
    for (int r = 0; r < R->m; ++r) {
        double dl = beta * (R->lam[r] - R->lamk[r]);
        R->lamk[r] = R->lam[r];
        R->lam[r] += dl;
        if (dl != 0.0) row_apply(S, r, dl);
    }
}

/* Nesterov's extrapolation of contact c's impulse: P moves to P + β (P − P_prev), projected onto
 * its cone (P_n ≥ 0, the friction ball of radius μ P_n), the bodies' velocities with it;
 * P_prev ← P. */
static void contact_extrapolate(mj *S, mj_contact *c, double beta) {
    double Y[4], P[4] = {c->P[0], c->P[1], c->P[2], c->Ps}, dP[3];
    if (P[0] == c->Pk[0] && P[1] == c->Pk[1] && P[2] == c->Pk[2] && P[3] == c->Pk[3]) return;
    for (int k = 0; k < 4; ++k) Y[k] = P[k] + beta * (P[k] - c->Pk[k]);
    Y[0] = fmax(0.0, Y[0]);
    if (!(c->rs > 0.0)) Y[3] = 0.0;
    friction_project(Y, c->mu);
    memcpy(c->Pk, P, sizeof P);
    for (int k = 0; k < 3; ++k) dP[k] = Y[k] - P[k], c->P[k] = Y[k];
    apply(S, c, dP);
    if (c->rs > 0.0) c->Ps = Y[3], apply_spin(S, c, Y[3] - P[3]);
}

/* One projected Gauss–Seidel sweep over the joints' rows and the contacts; the largest change
 * of an impulse, the largest impulse, and the largest velocity change an impulse makes
 * (|P| D, m/s). */
static void sweep(mj *S, int nc, double h, double *change, double *size, double *vsize) {
    *change = *size = *vsize = 0.0;
    double resid = 0.0;
    rows_sweep(S, 0, h, change, size, &resid);
    for (int r = 0; r < S->J.m; ++r) *vsize = max2(*vsize, fabs(S->J.lam[r]) * S->J.D[r]);
    for (int i = 0; i < nc; ++i) {
        mj_contact *c = &S->c[i];
        double U[3], P[4], dP[3];
        rel_velocity(S, c, U);
        P[0] = max2(0.0, c->P[0] - (U[0] - c->vmin) / c->D[0]);
        /* one step length for the friction's components, so that a sliding contact's impulse
         * at the fixed point opposes its velocity (maximal dissipation) */
        double rf = 1.0 / max2(max2(c->D[1], c->D[2]), c->rs > 0.0 ? c->Ds : 0.0);
        P[1] = c->P[1] - rf * U[1];
        P[2] = c->P[2] - rf * U[2];
        P[3] = c->rs > 0.0 ? c->Ps - rf * spin_velocity(S, c) : 0.0;
        friction_project(P, c->mu);
        for (int k = 0; k < 3; ++k) {
            dP[k] = P[k] - c->P[k];
            c->P[k] = P[k];
            *change = max2(*change, fabs(dP[k]));
            *size = max2(*size, fabs(P[k]));
        }
        *vsize = max2(*vsize, max2(P[0] * c->D[0], sqrt(P[1] * P[1] + P[2] * P[2]) / rf));
        apply(S, c, dP);
        if (c->rs > 0.0) {
            double dPs = P[3] - c->Ps;
            c->Ps = P[3];
            *change = max2(*change, fabs(dPs));
            apply_spin(S, c, dPs);
        }
    }
}

/* The largest change of a body's velocity since the copy vs (6 per body: Ω, ẋ), the angular
 * part times the model's size (m/s). */
static double velocity_change(const mj *S) {
    double dv = 0.0;
    for (int i = 0; i < S->nb; ++i)
        for (int j = 0; j < 3; ++j) {
            dv = max2(dv, S->scale * fabs(S->b[i].Om[j] - S->vs[6 * i + j]));
            dv = max2(dv, fabs(S->b[i].xd[j] - S->vs[6 * i + 3 + j]));
        }
    return dv;
}

/* Copy every body's velocities (Ω, ẋ) into vs. */
static void velocity_copy(mj *S) {
    for (int i = 0; i < S->nb; ++i) {
        memcpy(S->vs + 6 * i, S->b[i].Om, sizeof S->b[i].Om);
        memcpy(S->vs + 6 * i + 3, S->b[i].xd, sizeof S->b[i].xd);
    }
}

/* Projected Gauss–Seidel: sweeps until no impulse changes by more than tol of the largest, at
 * most maxit; the sweeps made. */
static int solve_pgs(mj *S, int nc, double h, double tol, int maxit) {
    double change, size, vsize;
    for (int k = 0; k < maxit; ++k) {
        sweep(S, nc, h, &change, &size, &vsize);
        if (change <= tol * size) return k + 1;
    }
    return maxit;
}

/* Accelerated projected Gauss–Seidel: each sweep starts from Nesterov's extrapolation of the
 * last two sweeps' impulses, projected onto the cones (Mazhar, Heyn, Negrut & Tasora 2015,
 * "Using Nesterov's method to accelerate multibody dynamics with friction and contact"), with
 * the momentum dropped whenever the sweep changed the velocities more than the one before
 * (O'Donoghue & Candès 2015, "Adaptive restart for accelerated gradient schemes"). It stops as
 * PGS does, or when no body's velocity changes in a sweep by more than tol of the largest
 * velocity change an impulse makes (the velocity change scaled as in velocity_change): the
 * impulses may still move where they do not move the bodies (a pile holds more contacts than
 * the bodies have freedoms); or when that velocity change has not reached a new low in STALL
 * sweeps (stalled, where plain Gauss–Seidel would run to maxit). At most maxit sweeps; the
 * sweeps made. */
static int solve_accel(mj *S, int nc, double h, double tol, int maxit) {
    double change, size, vsize, t = 1.0, last = INFINITY, best = INFINITY;
    int kbest = 0;
    accel_start(S, nc);
    for (int k = 0; k < maxit; ++k) {
        velocity_copy(S);
        sweep(S, nc, h, &change, &size, &vsize);
        double dv = velocity_change(S);
        if (change <= tol * size || dv <= tol * vsize) return k + 1;
        if (dv < best) best = dv, kbest = k;
        if (k - kbest >= STALL) return k + 1; /* no closer in STALL sweeps: stalled */
        if (dv > last) t = 1.0;               /* restart */
        last = dv;
        double tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t)), beta = (t - 1.0) / tn;
        t = tn;
        rows_extrapolate(S, beta);
        for (int i = 0; i < nc; ++i) contact_extrapolate(S, &S->c[i], beta);
    }
    return maxit;
}

/* ---------------------------------------------------------------- the joints' rows */

/* The rows' pattern: row starts, and per entry its body and place. LD_OK or LD_ENOMEM. */
static int rows_create(const ld_system *s, mj_rows *R) {
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
    return LD_OK;
}

static void rows_free(mj_rows *R) {
    free(R->ptr);
    free(R->body);
    free(R->slot);
    free(R->B);
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
static int rows_eval(const ld_system *s, mj *S, double t, const double *q) {
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
    return rc;
}

/* The bodies' velocities change by M⁻¹ B_rᵀ dl: joint row r's impulse increment dl. */
static void row_apply(mj *S, int r, double dl) {
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
static void rows_sweep(mj *S, int pos, double h, double *change, double *size, double *resid) {
    mj_rows *R = &S->J;
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
        row_apply(S, r, dl);
    }
}

/* One Gauss–Seidel pass of the position correction over the nc contacts: normal impulses
 * δP_n ≥ 0 with δU_n ≥ target ⊥ δP_n; the largest change and size. */
static void contacts_correct(mj *S, mj_contact *cs, int nc, double *change, double *size,
                             double *resid) {
    for (int i = 0; i < nc; ++i) {
        mj_contact *c = &cs[i];
        double U[3], dP[3] = {0, 0, 0};
        rel_velocity(S, c, U);
        *resid = max2(*resid, c->target - U[0]);
        double P = max2(0.0, c->dP - (U[0] - c->target) / c->D[0]);
        dP[0] = P - c->dP;
        c->dP = P;
        *change = max2(*change, fabs(dP[0]));
        *size = max2(*size, P);
        if (dP[0] != 0.0) apply(S, c, dP);
    }
}

/* Restore the velocities v_{k+1} saved in sOm, sxd: the bodies' velocities become
 * v_{k+1} + δv (δv in Om, xd; add 0 for none). */
static void add_saved(mj *S, int keep) {
    for (int i = 0; i < S->nb; ++i) {
        mj_body *b = &S->b[i];
        for (int k = 0; k < 3; ++k)
            b->Om[k] = keep * b->Om[k] + b->sOm[k], b->xd[k] = keep * b->xd[k] + b->sxd[k];
    }
}

/* The position correction (split from the velocities, so that it moves the bodies without
 * entering v_{k+1}): δv of least kinetic energy with B δv = −2 Φ(q_M)/h for the joints and, for
 * the nc contacts, a gap at the step's end g_M + h/2 (U_n + δU_n) ≥ 0 (δU_n ≥ −2 g_M/h − U_n,
 * by normal impulses δP_n ≥ 0), by the same sweeps; the bodies' velocities become v_{k+1} + δv
 * for the last half drift, v_{k+1} saved in sOm, sxd. The largest overlap the correction meets
 * (−g_M) into *overlap. */
static void correct(mj *S, int nc, double h, double tol, int maxit, double *overlap) {
    int need = S->J.m > 0;
    *overlap = 0.0;
    for (int i = 0; i < nc; ++i) {
        mj_contact *c = &S->c[i];
        double U[3];
        rel_velocity(S, c, U);
        c->target = -2.0 * c->gap / h - U[0], c->dP = 0.0;
        need |= c->target > 0.0;
        if (c->sa >= 0) *overlap = fmax(*overlap, -c->gap);
    }
    for (int i = 0; i < S->nb; ++i) {
        mj_body *b = &S->b[i];
        memcpy(b->sOm, b->Om, sizeof b->Om);
        memcpy(b->sxd, b->xd, sizeof b->xd);
        memset(b->Om, 0, sizeof b->Om);
        memset(b->xd, 0, sizeof b->xd);
    }
    if (!need) {
        add_saved(S, 0);
        return;
    }
    for (int r = 0; r < S->J.m; ++r) S->J.lam[r] = 0.0;
    int k = 0;
    for (; k < maxit; ++k) {
        double change = 0.0, size = 0.0, resid = 0.0;
        rows_sweep(S, 1, h, &change, &size, &resid);
        contacts_correct(S, S->c, nc, &change, &size, &resid);
        if (change <= tol * size || resid <= 2e-12 * S->scale / h) break;
    }
    S->trial_csweeps += k + (k < maxit);
    add_saved(S, 1);
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
static int limits(const ld_system *s, mj *S, double t, const double *q, const double *v, int nc) {
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
            setup(S, k, &f);
            k->sa = k->sb = -1;
        }
        k->gap = lower ? c[0] - jd->limits[0] : jd->limits[1] - c[0];
        k->open = 0;
        double U[3];
        rel_velocity(S, k, U);
        k->un0 = U[0];
    }
    return nc;
}

/* ---------------------------------------------------------------- contact forces */

/* The trial's contact forces and torques per body (spatial, about the centre of mass) from the
 * impulses of the nc contacts of the step h. */
static void contact_forces(mj *S, int nc, double h) {
    memset(S->cft, 0, 6 * (size_t)S->nb * sizeof *S->cft);
    for (int i = 0; i < nc; ++i) {
        const mj_contact *c = &S->c[i];
        double F[3] = {0, 0, 0}, ta[3] = {0, 0, 0}, tb[3] = {0, 0, 0}, w[3];
        for (int k = 0; k < 3; ++k)
            for (int j = 0; j < 3; ++j) {
                F[j] += c->P[k] * c->d[k][j] / h;
                ta[j] += c->P[k] * c->ja[k][j] / h;
                tb[j] += c->P[k] * c->jb[k][j] / h;
            }
        for (int j = 0; c->rs > 0.0 && j < 3; ++j) /* the drilling torque */
            ta[j] += c->Ps * c->js_a[j] / h, tb[j] += c->Ps * c->js_b[j] / h;
        double *fa = S->cft + 6 * c->a;
        ld_m3_mulv(w, S->b[c->a].R, ta);
        for (int j = 0; j < 3; ++j) fa[j] += F[j], fa[3 + j] += w[j];
        if (c->b < 0) continue;
        double *fb = S->cft + 6 * c->b;
        ld_m3_mulv(w, S->b[c->b].R, tb);
        for (int j = 0; j < 3; ++j) fb[j] -= F[j], fb[3 + j] -= w[j];
    }
}

/* Keep the nf shapes' contacts of the accepted step h for ld_integ_contacts. */
static void keep_points(mj *S, int nf, double h) {
    int n = 0;
    for (int i = 0; i < nf; ++i) {
        const mj_contact *c = &S->c[i];
        if (c->open && c->P[0] == 0.0) continue; /* open and idle */
        ld_contact_point *o = &S->pts[n++];
        o->body1 = c->a, o->body2 = c->b, o->shape1 = c->sa, o->shape2 = c->sb;
        memcpy(o->point, c->p, sizeof o->point);
        memcpy(o->normal, c->d[0], sizeof o->normal);
        o->gap = c->gap;
        for (int j = 0; j < 3; ++j)
            o->force[j] = (c->P[0] * c->d[0][j] + c->P[1] * c->d[1][j] + c->P[2] * c->d[2][j]) / h;
    }
    S->npts = n;
}

static int moreau_contacts(const ld_integ *it, ld_contact_point *out, int cap) {
    const mj *S = it->priv;
    if (!S) return 0;
    for (int i = 0; i < S->npts && i < cap; ++i) out[i] = S->pts[i];
    return S->npts;
}

static void moreau_contact_stats(const ld_integ *it, ld_contact_stats *st) {
    const mj *S = it->priv;
    if (!S) return;
    st->contacts = S->last_contacts, st->sweeps = S->last_sweeps;
    st->total_sweeps = S->sweeps;
    st->overlap = S->overlap, st->max_overlap = S->max_overlap;
    st->correction_sweeps = S->last_csweeps, st->total_correction_sweeps = S->csweeps;
}

static int moreau_contact_force(const ld_integ *it, int body, double f[3], double tau[3]) {
    const mj *S = it->priv;
    if (!S || body < 0 || body >= S->nb) return LD_EINVAL;
    memcpy(f, S->cf + 6 * body, 3 * sizeof *f);
    memcpy(tau, S->cf + 6 * body + 3, 3 * sizeof *tau);
    return LD_OK;
}

/* ---------------------------------------------------------------- warm start */

/* The key of contact c of the list: its shapes (ns of the bodies, the ground's after them),
 * and its place among the pair's contacts. */
static long warm_key(const ld_contact *f, int c, int ns, int ng) {
    int j = 0;
    while (j < c && f[c - j - 1].sa == f[c].sa && f[c - j - 1].sb == f[c].sb) ++j;
    long sb = f[c].sb >= -1 ? f[c].sb + 1 : ns + 1 + (-2 - f[c].sb);
    return ((long)f[c].sa * (ns + ng + 1) + sb) * 16 + (j < 15 ? j : 15);
}

/* Sift-down of a heap of n entries (heap sort, in place: no allocation in a step). */
static void sift(mj_warm *a, int i, int n) {
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && a[c + 1].key > a[c].key) ++c;
        if (a[c].key <= a[i].key) return;
        mj_warm t = a[i];
        a[i] = a[c], a[c] = t;
        i = c;
    }
}

static void warm_sort(mj_warm *a, int n) {
    for (int i = n / 2 - 1; i >= 0; --i) sift(a, i, n);
    for (int e = n - 1; e > 0; --e) {
        mj_warm t = a[0];
        a[0] = a[e], a[e] = t;
        sift(a, 0, e);
    }
}

/* The impulse kept for key, projected onto contact c's cone and applied to its bodies. */
static void warm_apply(mj *S, mj_contact *c, long key) {
    int lo = 0, hi = S->nwarm - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (S->warm[mid].key < key) {
            lo = mid + 1;
        } else if (S->warm[mid].key > key) {
            hi = mid - 1;
        } else {
            const double *F = S->warm[mid].F;
            double P[4] = {fmax(0.0, ld_v3_dot(F, c->d[0])), ld_v3_dot(F, c->d[1]),
                           ld_v3_dot(F, c->d[2]), c->rs > 0.0 ? S->warm[mid].Ps : 0.0};
            friction_project(P, c->mu);
            memcpy(c->P, P, sizeof c->P);
            apply(S, c, P);
            if (c->rs > 0.0) c->Ps = P[3], apply_spin(S, c, P[3]);
            return;
        }
    }
}

/* Keep the step's contact impulses for the next step. */
static void warm_keep(mj *S, const ld_contact *f, int nc) {
    for (int c = 0; c < nc; ++c) {
        mj_warm *w = &S->warm[c];
        w->key = warm_key(f, c, S->nshapes, S->nground);
        for (int i = 0; i < 3; ++i)
            w->F[i] = S->c[c].P[0] * S->c[c].d[0][i] + S->c[c].P[1] * S->c[c].d[1][i] +
                      S->c[c].P[2] * S->c[c].d[2][i];
        w->Ps = S->c[c].rs > 0.0 ? S->c[c].Ps : 0.0;
    }
    S->nwarm = nc;
    warm_sort(S->warm, nc);
}

/* The largest overlap of the end poses' contacts (found into S->cp, set up there with their
 * displacement targets −gap; their number into *nc) and the largest |Φ| of the joints at the
 * end state q (the system's layout), into *pen and *phi. */
static int end_errors(const ld_system *s, mj *S, double t, double *q, int *nc, double *pen,
                      double *phi) {
    *nc = 0, *pen = *phi = 0.0;
    for (int i = 0; i < S->nb; ++i) {
        memcpy(S->R + 9 * i, S->b[i].R, sizeof S->b[i].R);
        memcpy(S->x + 3 * i, S->b[i].x, sizeof S->b[i].x);
    }
    const ld_contact *f = NULL;
    int n = ld_cworld_shapes(S->w) > 0 ? ld_cworld_find(S->w, S->R, S->x, CLOSED, &f) : 0;
    for (int c = 0; c < n; ++c) {
        mj_contact *k = &S->cp[(*nc)++];
        setup(S, k, &f[c]);
        k->target = -f[c].gap, k->dP = 0.0;
        *pen = fmax(*pen, -f[c].gap);
    }
    if (S->J.m == 0) return LD_OK;
    int rc = s->ops.phi(s, t, q, S->J.phi);
    for (int r = 0; !rc && r < S->J.m; ++r) *phi = fmax(*phi, fabs(S->J.phi[r]));
    return rc;
}

/* The positions' projection at the step's end: while a contact overlaps or a joint is open by
 * more than the projection's tolerance (10⁻⁹ of the model's reach, S->scale) — the
 * midpoint's correction is exact only to first order in the motion of a step — a displacement
 * δ of least kinetic-energy norm with B δ = −Φ and δg ≥ −g at the contacts (the same sweeps,
 * normal impulses only) moves the bodies, q ← q ∘ δ, at most three times. The velocities are
 * not touched. The state (R, x in S->b) is stored into q, v. */
static int project(const ld_system *s, mj *S, double t, double *q, double *v, double tol,
                   int maxit) {
    double lim = 1e-9 * S->scale;
    for (int pass = 0; pass < 3; ++pass) {
        int nc, rc;
        double pen, phi;
        if ((rc = end_errors(s, S, t, q, &nc, &pen, &phi))) return rc;
        if (pen <= lim && phi <= lim) return LD_OK;
        if (S->J.m > 0 && (rc = rows_eval(s, S, t, q))) return rc;
        for (int i = 0; i < S->nb; ++i) {
            mj_body *b = &S->b[i];
            memcpy(b->sOm, b->Om, sizeof b->Om);
            memcpy(b->sxd, b->xd, sizeof b->xd);
            memset(b->Om, 0, sizeof b->Om);
            memset(b->xd, 0, sizeof b->xd);
        }
        int k = 0;
        for (; k < maxit; ++k) {
            double change = 0.0, size = 0.0, resid = 0.0;
            rows_sweep(S, 1, 2.0, &change, &size, &resid); /* B δ = −Φ */
            contacts_correct(S, S->cp, nc, &change, &size, &resid);
            if (change <= tol * size || resid <= 1e-12 * S->scale) break;
        }
        S->trial_csweeps += k + (k < maxit);
        for (int i = 0; i < S->nb; ++i) {
            mj_body *b = &S->b[i];
            drift(b, 1.0);
            memcpy(b->Om, b->sOm, sizeof b->Om);
            memcpy(b->xd, b->sxd, sizeof b->xd);
            store_body(s, b, i, q, v);
        }
    }
    return LD_OK;
}

/* The reach of body i's colliding shapes from its centre of mass (m). */
static double reach(const ld_model *m, int i) {
    double r = 0.0;
    for (int k = 0; k < m->nshapes; ++k) {
        const ld_shape *sh = &m->shapes[k];
        if (sh->body != i || !sh->collide) continue;
        double c = sqrt(ld_v3_dot(sh->center, sh->center)), e = sh->size[0] + 0.5 * sh->size[1];
        if (sh->kind == LD_SHAPE_BOX) e = 0.5 * sqrt(ld_v3_dot(sh->size, sh->size));
        r = fmax(r, c + e);
    }
    return r;
}

/* The inverse of a symmetric positive definite 3×3 (an inertia), by its adjugate. */
static void inverse3(double Ai[9], const double A[9]) {
    double c[9] = {A[4] * A[8] - A[5] * A[7], A[2] * A[7] - A[1] * A[8], A[1] * A[5] - A[2] * A[4],
                   A[5] * A[6] - A[3] * A[8], A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                   A[3] * A[7] - A[4] * A[6], A[1] * A[6] - A[0] * A[7], A[0] * A[4] - A[1] * A[3]};
    double det = A[0] * c[0] + A[1] * c[3] + A[2] * c[6];
    for (int i = 0; i < 9; ++i) Ai[i] = c[i] / det;
}

/* ---------------------------------------------------------------- the method */

static int moreau_create(ld_integ *it) {
    const ld_system *s = it->s;
    const char *why = unfit(s);
    if (why) {
        strf(it->msg, sizeof it->msg, "%s: %s", it->meth->info.name, why);
        return LD_ENOTSUPPORTED;
    }
    const ld_model *m = ld_rb(s)->m;
    mj *S = calloc(1, sizeof *S);
    if (!S) return LD_ENOMEM;
    it->priv = S;
    S->nb = m->nbodies;
    int ns = 0;
    for (int i = 0; i < m->nshapes; ++i) ns += m->shapes[i].collide != 0;
    for (int j = 0; j < m->njoints; ++j) ns += m->joints[j].has_limits;
    S->cap = 16 * ns + 64;
    S->nshapes = m->nshapes, S->nground = m->nground;
    S->b = calloc((size_t)S->nb, sizeof *S->b);
    S->R = malloc(12 * (size_t)S->nb * sizeof *S->R);
    S->c = malloc((size_t)S->cap * sizeof *S->c);
    S->vs = malloc(6 * (size_t)S->nb * sizeof *S->vs);
    S->warm = malloc((size_t)S->cap * sizeof *S->warm);
    S->pts = malloc((size_t)S->cap * sizeof *S->pts);
    S->kept = malloc((size_t)S->cap * sizeof *S->kept);
    S->cp = malloc((size_t)S->cap * sizeof *S->cp);
    S->cf = calloc(12 * (size_t)S->nb, sizeof *S->cf);
    S->cft = S->cf ? S->cf + 6 * (size_t)S->nb : NULL;
    S->w = ld_cworld_create(m, S->cap);
    if (!S->b || !S->R || !S->c || !S->vs || !S->warm || !S->pts || !S->kept || !S->cp || !S->cf ||
        !S->w) {
        it->oom_bytes = (double)S->cap * (double)sizeof *S->c;
        return LD_ENOMEM;
    }
    S->x = S->R + 9 * (size_t)S->nb;
    if (s->m > 0 && rows_create(s, &S->J)) return LD_ENOMEM;
    for (int i = 0; i < S->nb; ++i) {
        const ld_body *bd = &m->bodies[i];
        S->b[i].m = bd->mass;
        memcpy(S->b[i].J, bd->inertia, sizeof S->b[i].J);
        inverse3(S->b[i].Ji, bd->inertia);
        S->b[i].reach = reach(m, i);
        S->scale = fmax(S->scale, S->b[i].reach);
    }
    for (int j = 0; j < m->njoints; ++j) /* the joints' points from the bodies' centres */
        for (int e = 0; e < 2; ++e) {
            int b = e ? m->joints[j].body2 : m->joints[j].body1;
            if (b < 0) continue;
            double d[3];
            for (int i = 0; i < 3; ++i) d[i] = m->joints[j].at[i] - m->bodies[b].x[i];
            S->scale = fmax(S->scale, ld_v3_norm(d));
        }
    S->scale = fmax(S->scale, 1e-3);
    return LD_OK;
}

static void moreau_destroy(ld_integ *it) {
    mj *S = it->priv;
    if (S) {
        free(S->b);
        free(S->R);
        free(S->c);
        free(S->vs);
        free(S->warm);
        free(S->pts);
        free(S->kept);
        free(S->cp);
        free(S->cf);
        ld_cworld_free(S->w);
        rows_free(&S->J);
    }
    free(S);
    it->priv = NULL;
}

static int moreau_initial(ld_integ *it, char *why, size_t cap) {
    return ld_sys_initial_accel_msg(it->s, it->t, it->q, it->v, it->vd, it->lam, why, cap);
}

/* The largest speed of a point of a colliding shape at the free velocities: |ẋ| + |Ω| ρ over
 * the bodies, ρ the reach of a body's shapes from its centre of mass. */
static double free_speed(const mj *S) {
    double v = 0.0;
    for (int i = 0; i < S->nb; ++i) {
        const mj_body *b = &S->b[i];
        v = fmax(v, sqrt(ld_v3_dot(b->xd, b->xd)) + sqrt(ld_v3_dot(b->Om, b->Om)) * b->reach);
    }
    return isfinite(v) ? v : 0.0;
}

/* Exchange the velocities with the saved ones (sOm, sxd) of every body. */
static void swap_saved(mj *S) {
    for (int i = 0; i < S->nb; ++i) {
        mj_body *b = &S->b[i];
        for (int k = 0; k < 3; ++k) {
            double t = b->Om[k];
            b->Om[k] = b->sOm[k], b->sOm[k] = t;
            t = b->xd[k];
            b->xd[k] = b->sxd[k], b->sxd[k] = t;
        }
    }
}

/* The contacts of the step, the detector's n (found within the step's reach), set up into S->c
 * and copied to S->kept: closed at the midpoint, gap ≤ 0, or closing — the free velocities
 * would close them by the step's end, gap + h/2 U_n ≤ 0 —, or open, which may close up to
 * touching (U_n ≥ −2 gap/h: a contact resting at gap 0⁺ under a load that the free motion does
 * not show, as in a stack); their number. */
static int closing(mj *S, const ld_contact *found, int n, double h) {
    for (int c = 0; c < n; ++c) {
        mj_contact *k = &S->c[c];
        setup(S, k, &found[c]);
        double U[3];
        rel_velocity(S, k, U);
        k->open = found[c].gap > CLOSED && found[c].gap + 0.5 * h * U[0] > CLOSED;
        k->vmin = k->open ? -2.0 * found[c].gap / h : 0.0;
        S->kept[c] = found[c];
    }
    return n;
}

/* The velocity law of the nc contacts not open (un0 known): U_n ≥ −e min(U_n,k, 0), Newton's
 * impact law for a closing contact, U_n ≥ 0 for one that was not closing. */
static void newton_law(mj *S, int nc) {
    for (int c = 0; c < nc; ++c)
        if (!S->c[c].open) S->c[c].vmin = -S->c[c].e * fmin(S->c[c].un0, 0.0);
}

/* A new start (ld_integ_init, a load): no contacts yet, the statistics anew. */
static int moreau_init(ld_integ *it) {
    mj *S = it->priv;
    S->npts = S->nwarm = S->last_contacts = S->last_sweeps = 0;
    S->sweeps = S->csweeps = 0;
    S->last_csweeps = 0;
    S->overlap = S->max_overlap = 0.0;
    memset(S->cf, 0, 6 * (size_t)S->nb * sizeof *S->cf);
    return LD_OK;
}

static int moreau_step(ld_integ *it, double t1) {
    const ld_system *s = it->s;
    const rb_sys *rb = ld_rb(s);
    mj *S = it->priv;
    double h = t1 - it->t, tm = it->t + 0.5 * h;
    S->trial_csweeps = 0;
    for (int i = 0; i < S->nb; ++i) {
        mj_body *b = &S->b[i];
        load_body(s, b, i, it->q, it->v);
        drift(b, 0.5 * h);
        memcpy(S->R + 9 * i, b->R, sizeof b->R);
        memcpy(S->x + 3 * i, b->x, sizeof b->x);
    }
    for (int i = 0; i < S->nb; ++i) { /* v_k kept in sOm, sxd; the free velocities */
        mj_body *b = &S->b[i];
        memcpy(b->sOm, b->Om, sizeof b->Om);
        memcpy(b->sxd, b->xd, sizeof b->xd);
        kick(rb, b, i, tm, h);
    }
    const ld_contact *found = NULL;
    int nc = 0;
    if (ld_cworld_shapes(S->w) > 0) {
        nc = ld_cworld_find(S->w, S->R, S->x, CLOSED + h * free_speed(S), &found);
        if (nc < 0) {
            strf(it->msg, sizeof it->msg,
                 "moreau: more than %d contacts at t = %.10g (the detector's capacity: 16 per "
                 "colliding shape and 64)",
                 S->cap, tm);
            return LD_ENOMEM;
        }
        nc = closing(S, found, nc, h);
    }
    int nf = nc;   /* the shapes' contacts; the joints' limits follow */
    swap_saved(S); /* v_k in Om, ẋ for the pre-step normal velocities and the joints */
    for (int c = 0; c < nf; ++c) {
        double U[3];
        rel_velocity(S, &S->c[c], U);
        S->c[c].un0 = U[0];
    }
    if (S->J.m > 0) { /* the joints' rows at the midpoint state */
        for (int i = 0; i < S->nb; ++i) store_body(s, &S->b[i], i, it->qn, it->vn);
        int rc = rows_eval(s, S, tm, it->qn);
        if (rc) return ld_integ__reject(it, rc > 0 ? rc : LD_RETRY_NONFINITE, "joint rows", h);
        nc = limits(s, S, tm, it->qn, it->vn, nc);
    }
    swap_saved(S); /* the free velocities back */
    newton_law(S, nc);
    for (int c = 0; c < nf && S->nwarm > 0; ++c)
        warm_apply(S, &S->c[c], warm_key(found, c, S->nshapes, S->nground));
    int maxit = (int)PGS_ITER(&it->o), active = nc > 0 || S->J.m > 0, k = 0;
    double tol = PGS_TOL(&it->o);
    if (active)
        k = SOLVER(&it->o) == 1 ? solve_accel(S, nc, h, tol, maxit)
                                : solve_pgs(S, nc, h, tol, maxit);
    S->last_sweeps = active ? k : 1, S->last_contacts = nc, S->sweeps += S->last_sweeps;
    it->st.newton_iterations += active ? S->last_sweeps : 0;
    for (int r = 0; r < S->J.m; ++r) S->J.F[r] = S->J.lam[r] / h; /* impulse → force */
    contact_forces(S, nc, h);
    correct(S, nc, h, tol, maxit, &S->trial_overlap);
    for (int i = 0; i < S->nb; ++i) {
        mj_body *b = &S->b[i];
        drift(b, 0.5 * h); /* with v_{k+1} + δv; v_{k+1} is kept */
        memcpy(b->Om, b->sOm, sizeof b->Om);
        memcpy(b->xd, b->sxd, sizeof b->xd);
        store_body(s, b, i, it->qn, it->vn);
    }
    if (project(s, S, t1, it->qn, it->vn, tol, maxit))
        return ld_integ__reject(it, LD_RETRY_NONFINITE, "joint rows at the step's end", h);
    int rc = ld_integ__finite(it, it->qn, (size_t)s->nq, "non-finite configuration");
    if (!rc) rc = ld_integ__finite(it, it->vn, (size_t)s->k, "non-finite velocity");
    if (rc) return ld_integ__reject(it, LD_RETRY_NONFINITE, it->why, h);
    memcpy(it->q, it->qn, (size_t)s->nq * sizeof(double));
    memcpy(it->v, it->vn, (size_t)s->k * sizeof(double));
    for (int i = 0; i < it->k; ++i) it->vd[i] = NAN;
    for (int r = 0; r < S->J.m; ++r) it->lam[r] = S->J.F[r];
    memcpy(S->cf, S->cft, 6 * (size_t)S->nb * sizeof *S->cf);
    warm_keep(S, S->kept, nf);
    keep_points(S, nf, h);
    S->overlap = S->trial_overlap, S->max_overlap = fmax(S->max_overlap, S->overlap);
    S->last_csweeps = S->trial_csweeps, S->csweeps += S->trial_csweeps;
    return LD_OK;
}

static const ld_method_param mj_params[] = {
    {"pgs_tol", "--pgs-tol", offsetof(ld_integ_options, param) + 2 * sizeof(double), 1e-15, 1e-2,
     1e-10, "[1e-15, 1e-2]",
     "moreau: stop the projected Gauss-Seidel sweeps when no impulse changes by more than "
     "this part of the largest"},
    {"pgs_max_iter", "--pgs-max-iter", offsetof(ld_integ_options, param) + 3 * sizeof(double), 1.0,
     1e6, 1000.0, "[1, 1e6]", "moreau: at most this many projected Gauss-Seidel sweeps"},
#if LD_METHOD_MAX_PARAMS > 4
    {"contact_solver", "--contact-solver", offsetof(ld_integ_options, param) + 4 * sizeof(double),
     0.0, 1.0, 1.0, "{0, 1}",
     "moreau: 0 projected Gauss-Seidel, 1 the same sweeps accelerated by Nesterov's "
     "extrapolation with restart, stopping also when the velocities no longer change"},
#endif
};

const ld_method_impl ld_method_moreau = {
    .info = {.name = "moreau",
             .title = "Moreau-Jean time stepping on the group: unilateral contact, Newton impacts "
                      "and Coulomb friction by projected Gauss-Seidel (Moreau 1988, Jean 1999)",
             .order = 1,
             .order_estimate = 0,
             .nparams = (int)(sizeof mj_params / sizeof mj_params[0]),
             .params = mj_params,
             .constraints = 1,
             .euler = 0,
             .model_only = 1,
             .contact = 1,
             .refuses = "rods, beams, force elements, the euler formulation; accelerations are "
                        "not computed (NaN)"},
    .refuse = moreau_refuse,
    .create = moreau_create,
    .destroy = moreau_destroy,
    .initial = moreau_initial,
    .step = moreau_step,
    .contact_force = moreau_contact_force,
    .contacts = moreau_contacts,
    .contact_stats = moreau_contact_stats,
    .init = moreau_init,
};

/* The moreau method's contacts and velocity-level sweeps (moreau_impl.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "moreau_impl.h"

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
void ld_mj_rel_velocity(const mj *S, const mj_contact *c, double U[3]) {
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
void ld_mj_apply_spin(mj *S, const mj_contact *c, double dPs) {
    for (int i = 0; i < 3; ++i) S->b[c->a].Om[i] += dPs * c->ws_a[i];
    if (c->b >= 0)
        for (int i = 0; i < 3; ++i) S->b[c->b].Om[i] -= dPs * c->ws_b[i];
}

/* The friction impulses (P_t1, P_t2, P_s) projected radially onto the ball of radius μ P_n:
 * Coulomb's disc, or with a spin row the Coulomb–Contensou ellipsoid in R̄-scaled units. */
void ld_mj_friction_project(double P[4], double mu) {
    double pt = sqrt(P[1] * P[1] + P[2] * P[2] + P[3] * P[3]), lim = mu * P[0];
    if (pt > lim) {
        double f = lim / pt;
        P[1] *= f, P[2] *= f, P[3] *= f;
    }
}

/* Set up contact c from the detector's at the midpoint poses (bodies at their midpoint). */
void ld_mj_setup(mj *S, mj_contact *c, const ld_contact *f) {
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
void ld_mj_apply(mj *S, const mj_contact *c, const double dP[3]) {
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
        if (dl != 0.0) ld_mj_row_apply(S, r, dl);
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
    ld_mj_friction_project(Y, c->mu);
    memcpy(c->Pk, P, sizeof P);
    for (int k = 0; k < 3; ++k) dP[k] = Y[k] - P[k], c->P[k] = Y[k];
    ld_mj_apply(S, c, dP);
    if (c->rs > 0.0) c->Ps = Y[3], ld_mj_apply_spin(S, c, Y[3] - P[3]);
}

/* One projected Gauss–Seidel sweep over the joints' rows and the contacts; the largest change
 * of an impulse, the largest impulse, and the largest velocity change an impulse makes
 * (|P| D, m/s). */
static void sweep(mj *S, int nc, double h, double *change, double *size, double *vsize) {
    *change = *size = *vsize = 0.0;
    double resid = 0.0;
    ld_mj_rows_sweep(S, 0, h, change, size, &resid);
    for (int r = 0; r < S->J.m; ++r) *vsize = max2(*vsize, fabs(S->J.lam[r]) * S->J.D[r]);
    for (int i = 0; i < nc; ++i) {
        mj_contact *c = &S->c[i];
        double U[3], P[4], dP[3];
        ld_mj_rel_velocity(S, c, U);
        P[0] = max2(0.0, c->P[0] - (U[0] - c->vmin) / c->D[0]);
        /* one step length for the friction's components, so that a sliding contact's impulse
         * at the fixed point opposes its velocity (maximal dissipation) */
        double rf = 1.0 / max2(max2(c->D[1], c->D[2]), c->rs > 0.0 ? c->Ds : 0.0);
        P[1] = c->P[1] - rf * U[1];
        P[2] = c->P[2] - rf * U[2];
        P[3] = c->rs > 0.0 ? c->Ps - rf * spin_velocity(S, c) : 0.0;
        ld_mj_friction_project(P, c->mu);
        for (int k = 0; k < 3; ++k) {
            dP[k] = P[k] - c->P[k];
            c->P[k] = P[k];
            *change = max2(*change, fabs(dP[k]));
            *size = max2(*size, fabs(P[k]));
        }
        *vsize = max2(*vsize, max2(P[0] * c->D[0], sqrt(P[1] * P[1] + P[2] * P[2]) / rf));
        ld_mj_apply(S, c, dP);
        if (c->rs > 0.0) {
            double dPs = P[3] - c->Ps;
            c->Ps = P[3];
            *change = max2(*change, fabs(dPs));
            ld_mj_apply_spin(S, c, dPs);
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
int ld_mj_solve_pgs(mj *S, int nc, double h, double tol, int maxit) {
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
int ld_mj_solve_accel(mj *S, int nc, double h, double tol, int maxit) {
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

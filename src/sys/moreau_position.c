/* The moreau method's position correction and end-of-step projection (moreau_impl.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "moreau_impl.h"

/* One Gauss–Seidel pass of the position correction over the nc contacts: normal impulses
 * δP_n ≥ 0 with δU_n ≥ target ⊥ δP_n; the largest change and size. */
static void contacts_correct(mj *S, mj_contact *cs, int nc, double *change, double *size,
                             double *resid) {
    for (int i = 0; i < nc; ++i) {
        mj_contact *c = &cs[i];
        double U[3], dP[3] = {0, 0, 0};
        ld_mj_rel_velocity(S, c, U);
        *resid = max2(*resid, c->target - U[0]);
        double P = max2(0.0, c->dP - (U[0] - c->target) / c->D[0]);
        dP[0] = P - c->dP;
        c->dP = P;
        *change = max2(*change, fabs(dP[0]));
        *size = max2(*size, P);
        if (dP[0] != 0.0) ld_mj_apply(S, c, dP);
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
void ld_mj_correct(mj *S, int nc, double h, double tol, int maxit, double *overlap) {
    int need = S->J.m > 0;
    *overlap = 0.0;
    for (int i = 0; i < nc; ++i) {
        mj_contact *c = &S->c[i];
        double U[3];
        ld_mj_rel_velocity(S, c, U);
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
        ld_mj_rows_sweep(S, 1, h, &change, &size, &resid);
        contacts_correct(S, S->c, nc, &change, &size, &resid);
        if (change <= tol * size || resid <= 2e-12 * S->scale / h) break;
    }
    S->trial_csweeps += k + (k < maxit);
    add_saved(S, 1);
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
        ld_mj_setup(S, k, &f[c]);
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
 * normal impulses only) moves the bodies, q ← q ∘ δ, at most LD_MJ_PROJECT_PASSES times. The
 * velocities are not touched. The state (R, x in S->b) is stored into q, v. */
int ld_mj_project(const ld_system *s, mj *S, double t, double *q, double *v, double tol,
                  int maxit) {
    double lim = 1e-9 * S->scale;
    for (int pass = 0; pass < LD_MJ_PROJECT_PASSES; ++pass) {
        int nc, rc;
        double pen, phi;
        if ((rc = end_errors(s, S, t, q, &nc, &pen, &phi))) return rc;
        if (pen <= lim && phi <= lim) return LD_OK;
        if (S->J.m > 0 && (rc = ld_mj_rows_eval(s, S, t, q))) return rc;
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
            ld_mj_rows_sweep(S, 1, 2.0, &change, &size, &resid); /* B δ = −Φ */
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

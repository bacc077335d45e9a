/*
 * Internal to the moreau method (moreau.c, docs/contact.md): its working data, and the parts of
 * the method in their own files:
 *   moreau_contact.c   a contact's frame, lever-arm rows and impulse; the velocity-level sweeps
 *                      (projected Gauss–Seidel, and accelerated by Nesterov's extrapolation)
 *   moreau_rows.c      the joints' rows in the sweeps, and the joints' limits as contacts
 *   moreau_position.c  the split-impulse position correction and the end-of-step projection
 *   moreau_warm.c      the warm start and the contact output (forces per body, points)
 *   moreau_flex.c      models with rods or beams: the whole system's step, forces linearly
 *                      implicit, contacts through the step's Delassus operator (moreau_flex.h)
 * Bodies are held as (R, x, Ω, ẋ): Ω in the body frame, ẋ spatial, whatever the formulation.
 */
#ifndef LIEDYN_SRC_SYS_MOREAU_IMPL_H
#define LIEDYN_SRC_SYS_MOREAU_IMPL_H

#include <math.h>
#include <string.h>

#include "../elements/contact.h"
#include "../elements/kinds.h"
#include "../lie/mat3.h"
#include "integ_impl.h"
#include "liedyn/liedyn.h"

#define PI     3.14159265358979323846
#define CLOSED 1e-12 /* a contact is closed at gap ≤ 0; touching within this counts */
/* The most corrections of the step's end projection (it stops as soon as no contact overlaps
 * and no joint is open beyond 10⁻⁹ of the model's size: most steps need none or one; a box
 * settling onto its face among many contacts can need several). */
#define LD_MJ_PROJECT_PASSES 10
#define PGS_TOL(o)           ((o)->param[2])
#define PGS_ITER(o)          ((o)->param[3])
#define STALL                100 /* the accelerated solve stops after this many sweeps without progress */
#if LD_METHOD_MAX_PARAMS > 4
#define SOLVER(o) ((o)->param[4])
#else
#define SOLVER(o) ((void)(o), 1.0) /* no room for the parameter: the accelerated solve */
/* ---------------------------------------------------------------- moreau_flex.c */

/* Why moreau cannot take s, a model with rods or beams (NULL: it can). */
const char *ld_mjf_unfit(const ld_system *s);
/* The rods' and beams' path of S (S->F, S->pts of its capacity): LD_OK or LD_ENOMEM; release. */
int ld_mjf_create(ld_integ *it, mj *S);
void ld_mjf_free(mj *S);
/* One step of the path to t1 (moreau_step's contract). */
int ld_mjf_step(ld_integ *it, double t1);

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
    double *A, *u; /* m ≤ LD_MJ_BLOCK_ROWS: the rows' Delassus matrix's Cholesky factor, and a
                      right-hand side (moreau_block.c); else NULL: row by row */
} mj_rows;

/* A contact's impulse kept for the next step's start (warm start): the pair's key (its shapes
 * and the contact's place among the pair's), and the impulse as a spatial vector. */
typedef struct mj_warm {
    long key;
    double F[3], Ps;
} mj_warm;

typedef struct mjf mjf; /* moreau with rods and beams (moreau_flex.h) */

typedef struct mj {
    mjf *F; /* the rods' and beams' path (NULL: the bodies' own) */
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
    double *g;  /* k: the force elements' g at the midpoint (none: NULL) */
} mj;

/* Body i's state read from (q, v) in the formulation's layout, and written back. */
static inline void load_body(const ld_system *s, mj_body *b, int i, const double *q,
                             const double *v) {
    ld_rb_state_read(s, q, v, i, b->R, b->x, b->Om, b->xd);
}

static inline void store_body(const ld_system *s, const mj_body *b, int i, double *q, double *v) {
    ld_rb_state_write(s, i, b->R, b->x, b->Om, b->xd, q, v);
}

/* R ← R exp(τ Ω), x ← x + τ ẋ. */
static inline void drift(mj_body *b, double tau) {
    double w[3] = {tau * b->Om[0], tau * b->Om[1], tau * b->Om[2]}, E[9], Rn[9];
    ld_so3_exp(E, w);
    ld_m3_mul(Rn, b->R, E);
    memcpy(b->R, Rn, sizeof Rn);
    for (int k = 0; k < 3; ++k) b->x[k] += tau * b->xd[k];
}

/* ---------------------------------------------------------------- moreau_contact.c */

/* Contact c's relative velocity U_k = d_k·(ẋ_a − ẋ_b) + ja_k·Ω_a − jb_k·Ω_b, k = n, t1, t2. */
void ld_mj_rel_velocity(const mj *S, const mj_contact *c, double U[3]);
/* The bodies' angular velocities change by the spin impulse increment dPs of contact c. */
void ld_mj_apply_spin(mj *S, const mj_contact *c, double dPs);
/* (P_t1, P_t2, P_s) projected radially onto the ball of radius μ P_n (P = (P_n, P_t1, P_t2, P_s)).
 */
void ld_mj_friction_project(double P[4], double mu);
/* Contact c set up from the detector's f at the bodies' present poses, impulses zero. */
void ld_mj_setup(mj *S, mj_contact *c, const ld_contact *f);
/* The bodies' velocities change by the impulse increment dP (n, t1, t2) of contact c. */
void ld_mj_apply(mj *S, const mj_contact *c, const double dP[3]);
/* The impulses of the joints' rows and the nc contacts of S->c for the step h, by projected
 * Gauss–Seidel (pgs) or its accelerated form (accel), to the relative tolerance tol, at most
 * maxit sweeps; the sweeps made. The bodies' velocities hold the result. */
int ld_mj_solve_pgs(mj *S, int nc, double h, double tol, int maxit);
int ld_mj_solve_accel(mj *S, int nc, double h, double tol, int maxit);

/* ---------------------------------------------------------------- moreau_rows.c */

/* The rows' pattern of s (LD_OK or LD_ENOMEM), and its release. */
int ld_mj_rows_create(const ld_system *s, mj_rows *R);
void ld_mj_rows_free(mj_rows *R);
/* The rows at the state q (bodies in S at its poses): B, Φ, Φ_t, the Delassus diagonal; the
 * impulses zero. LD_OK or the system's status. */
int ld_mj_rows_eval(const ld_system *s, mj *S, double t, const double *q);
/* The bodies' velocities change by M⁻¹ B_rᵀ dl. */
void ld_mj_row_apply(mj *S, int r, double dl);
/* One Gauss–Seidel pass over the rows: velocities (pos 0: B v = −Φ_t) or the position
 * correction of the step h (pos 1: B δv = −2 Φ/h); the largest change, size and residual. */
void ld_mj_rows_sweep(mj *S, int pos, double h, double *change, double *size, double *resid);
/* The joints' limits reached at the state (q, v) of the system's layout, as contacts appended
 * to S->c from index nc; the new count. */
int ld_mj_limits(const ld_system *s, mj *S, double t, const double *q, const double *v, int nc);

/* ---------------------------------------------------------------- moreau_block.c */

/* The most joint rows solved as one block in each sweep (dense: m² doubles). */
#define LD_MJ_BLOCK_ROWS 512

/* The block's storage for R->m rows (none above LD_MJ_BLOCK_ROWS): LD_OK or LD_ENOMEM; its
 * release. */
int ld_mj_block_create(mj_rows *R);
void ld_mj_block_free(mj_rows *R);
/* The block's factor at the rows' present B and the bodies' poses in S (none: nothing). */
void ld_mj_block_eval(const mj *S, mj_rows *R);
/* As ld_mj_rows_sweep, all rows at once: the impulses that make every row's residual zero with
 * the other impulses held. */
void ld_mj_block_sweep(mj *S, int pos, double h, double *change, double *size, double *resid);

/* ---------------------------------------------------------------- moreau_position.c */

/* The split-impulse position correction of the nc contacts and the joints for the step h: the
 * bodies' velocities become v_{k+1} + δv (v_{k+1} saved in sOm, sxd); the largest overlap met. */
void ld_mj_correct(mj *S, int nc, double h, double tol, int maxit, double *overlap);
/* The end-of-step projection of the positions (contacts and joints) to 10⁻⁹ of S->scale, at
 * most three passes; the state stored into (q, v). LD_OK or the system's status. */
int ld_mj_project(const ld_system *s, mj *S, double t, double *q, double *v, double tol, int maxit);

/* ---------------------------------------------------------------- moreau_warm.c */

/* The warm-start key of contact c of the detector's list f (ns body shapes, ng ground ones). */
long ld_mj_warm_key(const ld_contact *f, int c, int ns, int ng);
/* The impulse kept for key, projected onto contact c's cone and applied to its bodies. */
void ld_mj_warm_apply(mj *S, mj_contact *c, long key);
/* Keep the step's nc contact impulses (the detector's list f) for the next step. */
void ld_mj_warm_keep(mj *S, const ld_contact *f, int nc);
/* The trial's contact forces per body (S->cft) from the impulses of the nc contacts. */
void ld_mj_contact_forces(mj *S, int nc, double h);
/* Keep the nf shapes' contacts of the accepted step h for ld_integ_contacts. */
void ld_mj_keep_points(mj *S, int nf, double h);

/* ---------------------------------------------------------------- moreau_flex.c */

/* Why moreau cannot take s, a model with rods or beams (NULL: it can). */
const char *ld_mjf_unfit(const ld_system *s);
/* The rods' and beams' path of S (S->F, S->pts of its capacity): LD_OK or LD_ENOMEM; release. */
int ld_mjf_create(ld_integ *it, mj *S);
void ld_mjf_free(mj *S);
/* One step of the path to t1 (moreau_step's contract). */
int ld_mjf_step(ld_integ *it, double t1);

#endif

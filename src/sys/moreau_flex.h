/*
 * Internal to moreau with rods and beams (docs/contact.md, "Rods and beams under moreau"): the
 * whole system's step with the forces taken linearly implicit (moreau_flex.c), and the contacts
 * with their rows in the system's velocity coordinates (moreau_flex_rows.c).
 */
#ifndef LIEDYN_SRC_SYS_MOREAU_FLEX_H
#define LIEDYN_SRC_SYS_MOREAU_FLEX_H

#include "moreau_impl.h"

#define MJF_PARTS 3 /* nodes a contact moves: a span's two and a body */

/* A node's share of a contact: its velocity offset, body, weight, arm and its rows (n, t1, t2)
 * over the node's six velocity coordinates. */
typedef struct mjf_part {
    int off, body;
    double wt, r[3], h[3][6];
} mjf_part;

/* A contact: its frame, gap, point, material, parts; the law (open, vmin) and the pre-step
 * normal velocity; seg: 1 + its span (0: two shapes). */
typedef struct mjf_contact {
    int np, open, seg, a, b, sa, sb;
    mjf_part pt[MJF_PARTS];
    double d[3][3], gap, p[3], e, mu, vmin, un0;
} mjf_contact;

/* A contact's impulse kept for the next step (warm start): its key — span (1 + g, 0: two
 * shapes), shapes and place among the contacts of the same key — and the impulse in space. */
typedef struct mjf_warm {
    int seg, sa, sb, j;
    double F[3];
} mjf_warm;

struct mjf {
    int cap, nseg;
    ld_cseg *seg; /* nseg: the colliding spans */
    ld_cworld *w; /* the shapes' detector (NULL: no colliding shapes) */
    mjf_contact *c;
    double *Rb, *xb;       /* 9, 3 per body: the poses of the detection */
    double *X;             /* 3 cap columns of n: Ŝ⁻¹ (Hᵀ e_j; 0) */
    double *W;             /* (3 cap)²: the Delassus operator H M̂⁻¹ Hᵀ of the step's rows */
    double *P, *Uf, *tg;   /* 3 cap: impulses, free velocities, targets */
    double *rhs;           /* n */
    double *vk, *dvp, *qm; /* k, k, nq: v_k, the joints' correction, q_M */
    double *phim;          /* m: Φ(q_M) */
    double end_overlap, max_end_overlap; /* overlap at the step's end: last step, run */
    mjf_warm *warm, *wtrial;             /* cap each: the last step's impulses, the trial's */
    int nwarm, nwtrial;
};

/* The bodies' poses at q into F->Rb, F->xb. */
void ld_mjf_poses(const ld_system *s, mjf *F, const double *q);
/* The contacts at q within margin into F->c, their rows set: their number, −1 past F->cap. */
int ld_mjf_detect(const ld_system *s, mjf *F, const double *q, double margin);
/* Row k (0 n, 1 t1, 2 t2) of contact c times v; v += a × the row. */
double ld_mjf_dot(const mjf_contact *c, int k, const double *v);
void ld_mjf_axpy(const mjf_contact *c, int k, double a, double *v);

#endif

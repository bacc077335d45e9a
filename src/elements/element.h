/*
 * Internal to src/model: one interface for everything that acts on the nodes of a compiled
 * model (elem.c, elem_eval.c, elem_pattern.c, docs/architecture.md "Elements").
 *
 * An element kind is a descriptor (ld_ekind): how many instances a model has, which nodes each
 * touches and how many constraint rows it adds, and hooks that evaluate one instance in LOCAL
 * arrays — its nodes' velocity blocks one after the other in the order of ld_elem.node (nl
 * entries in all), its own constraint rows from 0. The compiled system (rigid.c) loops over
 * the instances and scatters the local blocks into the global vectors, the dense matrices or
 * the sparse pattern (one scatter, elem_eval.c); it never switches over kinds. The kinds, in the
 * order of the table in elem.c:
 *   body        a rigid body (or a rod's node): inertia, gravity and the body's loads
 *   joint       a joint's constraint rows (joints.c)
 *   rod         one segment of a Cosserat rod: elastic and viscous forces, Kirchhoff rows (rod.c)
 *   force       one force element of the registry (elements.c)
 *   unit-norm   the unit norm ½(eᵀe − 1) of a body's Euler parameters (euler formulation)
 *   beam        one finite element of a beam (beam.c)
 *   beam-mass   a beam node's centre of mass off the axis: the inertial coupling (beam_mass.c)
 * Rows are given out in table order, so the joints' rows come first, then the Kirchhoff rows,
 * then the unit norms (model.h); evaluation sums in table order.
 *
 * A new kind: one file with its descriptor, one line in the table of elem.c. Every hook is
 * optional (NULL: no contribution) except instances. Hooks add to their outputs, which
 * the caller zeroes; they return 0, > 0 (the integrator retries a smaller step) or < 0.
 */
#ifndef LIEDYN_SRC_ELEMENTS_ELEMENT_H
#define LIEDYN_SRC_ELEMENTS_ELEMENT_H

#include <stddef.h>

#include "liedyn/model.h"
#include "liedyn/system.h"

#define LD_ELEM_MAX_NODES 15 /* nodes one instance touches (a beam element of order 14) */
#define LD_EKIND_MAX      8  /* kinds in the table */

typedef struct ld_ekind ld_ekind;

/* The local outputs of a kind's fused hook (NULL: not wanted): M, g, ∂g/∂v, the stiffness, Φ
 * and B, in the layouts of the separate hooks. */
typedef struct ld_elem_nout {
    double *M, *g, *C, *K, *phi, *B;
} ld_elem_nout;

/* One instance: its kind, the model item it comes from, its nodes and rows. */
typedef struct ld_elem {
    const ld_ekind *kind;
    int item;                    /* index in the model's list of the kind (body, joint, …) */
    int sub;                     /* within the item (a rod's segment), else 0 */
    int nn;                      /* nodes touched (the ground is no node) */
    int node[LD_ELEM_MAX_NODES]; /* node indices, in the kind's order */
    int off[LD_ELEM_MAX_NODES];  /* their first local entry */
    int nl;                      /* local dimension: Σ of the nodes' hook widths (below) */
    int coff[LD_ELEM_MAX_NODES]; /* the same in the nodes' own coordinates (Σ nv): equal to */
    int cnl;                     /* off, nl unless a node is pinned (red) */
    int red;                     /* a node's coordinates are fewer than its hook block's */
    int nrows;                   /* the rows its hooks evaluate (local rows 0 … nrows − 1) */
    int row0, nkeep;             /* its rows in Φ: the nkeep local rows not dropped, in order */
    unsigned drop;               /* local row r dropped as redundant: bit r (ld_elems_drop) */
    int bix; /* its nn² tangent blocks: ld_elems.bix[bix + a nn + b] for node slots (a, b) */
} ld_elem;

/* A hook sees every body node as the full block of its formulation (6 in the Lie-group ones:
 * (Ω, U)), also a pinned body whose node holds fewer coordinates (ld_body.pin: its rotation
 * only, or one angle): its block is P ξ with the node's tangent vector ξ and a constant P
 * (6 × nv: [I; 0], or [a; 0] about an axis a), so U = 0 and the hook's position stays where
 * ld_rb_pose puts it. elem_eval.c gathers through P and reduces the hooks' outputs by Pᵀ (·) P:
 * the forces on the eliminated coordinates are the support's reactions. */

/* What a hook sees: the system (global q; the model through ld_rb(s)), the instance, the time,
 * and the local velocity, acceleration and multipliers (NULL when the operation has none). */
typedef struct ld_elem_ctx {
    const ld_system *s;
    const ld_elem *e;
    double t;
    const double *q;   /* global configuration */
    const double *v;   /* local velocity (nl) */
    const double *a;   /* local acceleration (nl) */
    const double *lam; /* the instance's multipliers (nrows; 0 on its dropped rows) */
    const double *vg;  /* the global velocity (k; NULL when the operation has none) */
} ld_elem_ctx;

struct ld_ekind {
    const char *name; /* "body", "joint", … */
    /* The instances of the kind in model m compiled in formulation f: their number; with out
     * not NULL also their item, sub, nn, node[] and nrows (the caller sets the rest). */
    int (*instances)(const ld_model *m, ld_formulation f, ld_elem *out);
    /* Local blocks, added: M (nl×nl), g (nl), ∂g/∂v (nl×nl), ∂/∂q [M a + g + Bᵀλ] along the
     * group at fixed a, v, λ (nl×nl; lam NULL: without the constraint part), energy. */
    int (*mass)(const ld_elem_ctx *c, double *Ml);
    int (*force)(const ld_elem_ctx *c, double *gl);
    int (*g_v)(const ld_elem_ctx *c, double *Cl);
    int (*stiffness)(const ld_elem_ctx *c, double *Kl);
    int (*energy)(const ld_elem_ctx *c, double *V);
    /* The instance's rows: Φ, B (nrows × nl), ∂Φ/∂t, z of Φ̈ = B v̇ + z. */
    int (*phi)(const ld_elem_ctx *c, double *phi);
    int (*phi_q)(const ld_elem_ctx *c, double *Bl);
    int (*phi_t)(const ld_elem_ctx *c, double *phit);
    int (*phi_dd)(const ld_elem_ctx *c, double *z);
    /* The owner of local row r as text: "joint 'pivot' (line 21), row 2 of 3". */
    void (*row_name)(const ld_model *m, const ld_elem *e, int r, char *buf, size_t cap);
    /* Optional: the outputs of o that are not NULL in one evaluation (zeroed by the caller),
     * each equal to its separate hook's — M as mass, g as force, C as g_v, K as stiffness with
     * c->lam (none without), Φ as phi, B as phi_q — so that the kind computes what they share
     * (a joint's kinematics, a body's pose and loads) once. c carries v, a and λ. Used by
     * ld_elems_eval_newton in the body-frame formulations; absent: the separate hooks. */
    int (*newton)(const ld_elem_ctx *c, const ld_elem_nout *o);
    /* Optional: the kind's own data for the compiled system s, made once after its instances
     * (e.g. the beam elements' reference strains; ld_elems_data returns it), and its release.
     * LD_OK, LD_ENOMEM or LD_EINVAL with a reason in msg (n bytes). */
    int (*prepare)(const ld_system *s, void **data, char *msg, size_t n);
    void (*release)(void *data);
};

/* The operations of the hooks, and kind k's hook for one (NULL: none). */
enum {
    LD_EOP_MASS,
    LD_EOP_FORCE,
    LD_EOP_G_V,
    LD_EOP_STIFFNESS,
    LD_EOP_ENERGY,
    LD_EOP_PHI,
    LD_EOP_PHI_Q,
    LD_EOP_PHI_T,
    LD_EOP_PHI_DD
};
int (*ld_ekind_hook(const ld_ekind *k, int op))(const ld_elem_ctx *c, double *out);
/* The spatial formulations (elem_spatial.c): operation op of c's instance, with c->v, c->a
 * spatial (ω, ẋ), evaluated by the kind in the body frame and mapped; out zeroed by the
 * caller. Scratch: ld_elem_spatial_doubles(maxnl, maxrows) doubles at ld_elems.sbuf. */
int ld_elem_spatial_eval(const ld_elem_ctx *c, int op, double *out);
size_t ld_elem_spatial_doubles(int maxnl, int maxrows);

/* The local velocity of instance e as its hooks see it (nl entries; body-frame in the spatial
 * formulations) from the global velocity v: what c->v holds when the loops evaluate e. */
void ld_elems_local_velocity(const ld_system *s, const ld_elem *e, const double *q, const double *v,
                             double *vl);
/* The same map for the spatial formulations (elem_spatial.c): vl (spatial, local) to body. */
void ld_elem_spatial_velocity(const ld_system *s, const ld_elem *e, const double *q, double *vl);

/* Drop the user forces' cached values (ld_sys_forget; el_user_cache.c). */
void ld_el_user_forget(const ld_system *s);

/* The kinds (their files). */
extern const ld_ekind ld_ek_body, ld_ek_joint, ld_ek_rod, ld_ek_force, ld_ek_unit_norm, ld_ek_beam,
    ld_ek_beam_mass, ld_ek_contact_penalty;

/* The table of kinds: their number and kind i (NULL out of range). */
int ld_ekind_count(void);
const ld_ekind *ld_ekind_get(int i);

/* The compiled instances of a system and their scratch (rb_sys.E). */
typedef struct ld_elems {
    int n;
    ld_elem *e;
    int *row_owner; /* m: the instance that owns each row */
    int maxnl;      /* largest local dimension */
    int maxrows;    /* most rows of one instance */
    double *buf;    /* scratch: local v, a, λ and the blocks (sized at build) */
    size_t nbuf;
    double *sbuf;  /* the spatial formulations' scratch (elem_spatial.c), else NULL */
    int *bix;      /* per instance (from ld_elem.bix), node slots (a, b): its tangent block */
    size_t *mboff; /* nnodes + 1: each node's block offset in the mass-block layout */
    void *data[LD_EKIND_MAX]; /* the kinds\' own data (prepare), by their place in the table */
} ld_elems;

/* Build the instances of the compiled system s (nodes laid out, s->user an rb_sys), give out
 * their rows from 0 (*rows receives their number) and prepare the kinds' data. LD_OK,
 * LD_ENOMEM, or a kind's LD_EINVAL with its reason in msg (n bytes; may be NULL). */
int ld_elems_build(const ld_system *s, ld_elems *E, int *rows, char *msg, size_t n);
/* The data that kind k prepared for s (NULL if none). */
const void *ld_elems_data(const ld_system *s, const ld_ekind *k);
/* The same data for a kind that keeps a cache in it, updated while s is evaluated. */
void *ld_elems_scratch(const ld_system *s, const ld_ekind *k);
void ld_elems_free(ld_elems *E);

/* The system operations over all instances (the ld_system_ops of rigid.c). Each zeroes its
 * output and adds every instance's local blocks. */
int ld_elems_mass(const ld_system *s, const double *q, double *M);
int ld_elems_mass_blocks(const ld_system *s, const double *q, double *Mb);
int ld_elems_force(const ld_system *s, double t, const double *q, const double *v, double *g);
int ld_elems_g_v(const ld_system *s, double t, const double *q, const double *v, double *C);
int ld_elems_stiffness(const ld_system *s, double t, const double *q, const double *v,
                       const double *a, const double *lambda, double *K);
int ld_elems_energy(const ld_system *s, double t, const double *q, const double *v, double *e);
/* The same restricted to the instances of one kind (NULL: all); the force is added to g. */
int ld_elems_add_force_of(const ld_system *s, const ld_ekind *kind, double t, const double *q,
                          const double *v, double *g);
int ld_elems_energy_of(const ld_system *s, const ld_ekind *kind, double t, const double *q,
                       const double *v, double *e);
int ld_elems_phi(const ld_system *s, double t, const double *q, double *Phi);
int ld_elems_phi_q(const ld_system *s, double t, const double *q, double *B);
int ld_elems_phi_t(const ld_system *s, double t, const double *q, double *Phit);
int ld_elems_phi_dd(const ld_system *s, double t, const double *q, const double *v, double *z);
/* The sparse pattern of B from the instances (rows × their nodes' columns, by row, then
 * column; allocated into s->brow, s->bcol, s->bnnz) and its values; the node pairs that
 * multi-node instances couple (s->pair, s->npairs). */
int ld_elems_pattern(ld_system *s);
/* ld_system_ops.tangent_blocks in the block pattern that ld_elems_pattern built (s->nblk …). */
int ld_elems_tangent_blocks(const ld_system *s, double t, const double *q, const double *v,
                            const double *a, const double *lambda, double cm, double cc, double ck,
                            const double *Tb, double *vals);
int ld_elems_phi_q_sparse(const ld_system *s, double t, const double *q, double *vals);
/* ld_system_ops.eval_newton: every output of x in one loop over the instances, each equal to
 * the separate operation's above bit for bit (the same sums in the same order). */
int ld_elems_eval_newton(const ld_system *s, const ld_newton_eval *x);
/* M of s does not depend on q: no euler or spatial formulation, and no kind but the bodies
 * contributes to it. */
int ld_elems_mass_const(const ld_system *s);
/* "'name' (line L)", or "list[idx]" for an item without a name, the line only when > 0. */
void ld_elems_label(char *buf, size_t cap, const char *list, const char *name, int idx, int line);
/* The owner of row `row` as text (ld_model_row_name). LD_OK or LD_EINVAL. */
int ld_elems_row_name(const ld_system *s, int row, char *buf, size_t cap);
/* The instance that owns row `row` (NULL out of range); *local (may be NULL) receives the
 * row's index among the instance's own rows (0 … nrows − 1, dropped rows counted). */
const ld_elem *ld_elems_row_owner(const ld_system *s, int row);
const ld_elem *ld_elems_row_local(const ld_system *s, int row, int *local);
/* Drop the rows flagged in drop[0 … s->m − 1] (joint rows only; the rows that depend on the
 * others, ld_rb_redundancy) from Φ: the instances keep evaluating them, their multipliers are
 * 0, the rows after them move up; s->m shrinks and the sparse pattern is built anew. LD_OK,
 * LD_EINVAL (a flagged row of a kind other than joint), LD_ENOMEM. */
int ld_elems_drop(ld_system *s, const unsigned char *drop);
/* Free the sparse and block patterns of s (ld_elems_pattern's; the pointers then NULL). */
void ld_elems_free_pattern(ld_system *s);
/* The local row of the instance's kept row kr (0 … nkeep − 1). */
static inline int ld_elem_kept_row(const ld_elem *e, int kr) {
    int r = 0;
    for (;; ++r)
        if (!(e->drop >> r & 1u) && kr-- == 0) return r;
}

#endif

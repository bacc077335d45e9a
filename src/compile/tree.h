/*
 * Internal to src/compile: the tree formulation (LD_FORM_TREE, docs/tree.md) — a model whose
 * joints form trees rooted at the ground or at floating bodies, in the coordinates of its
 * revolute and prismatic joints and its floating roots' poses.
 *
 * The links: each revolute or prismatic joint moves one link, the bodies on its far side from
 * the ground up to the next such joint (bodies joined by fixed joints are one link: their
 * masses, centres and inertias combined); a floating root is six links (LD_TREE_FREE below).
 * Links are numbered parent first (breadth-first from the ground, then from each floating root),
 * so that the parent λ(i) < i; the system's coordinates are each floating root's (R, x) with
 * velocity (Ω, ẋ), then the joints' in the model's order: link i's velocity at sys[i] of v, its
 * coordinate (a free link: its root's storage) at qsys[i] of q.
 *
 * Kinematics: every link carries the rigid motion G_i = (R_i, p_i), x ↦ R_i x + p_i, since the
 * start (the model's initial configuration, where every coordinate is 0): G_i = G_λ(i) ∘ X_i(σ_i
 * q), X_i the rotation by that angle about the joint's line (its `at`, `axis`, spatial at the
 * start) or the translation along the axis, σ_i = +1 when the link is the joint's body2 and −1
 * when it is body1 (so that q is the joint's coordinate of coords.h either way). Velocities and
 * forces are spatial vectors in the inertial frame at its origin (Plücker coordinates,
 * Featherstone 2008 ch. 2): a motion (ω, v_O), v_O the velocity of the body point at the
 * origin; a force (n_O, f), the moment about the origin and the force.
 */
#ifndef LIEDYN_SRC_COMPILE_TREE_H
#define LIEDYN_SRC_COMPILE_TREE_H

#include <stddef.h>

#include "../lie/mat3.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* A rigid body's inertia in the inertial frame: mass m, first moment h = m c (c the centre of
 * mass) and the inertia about the origin Jo = J_c + m (|c|² I − c cᵀ) (row-major): the spatial
 * inertia [Jo, ĥ; ĥᵀ, m I]. Sums of them are the composite inertias. */
typedef struct ld_tree_inertia {
    double m, h[3], Jo[9];
} ld_tree_inertia;

/* A joint spring-damper on a link's coordinate q. About a revolute joint (a
 * rotational-spring-damper): the generalized force −σ (k (σ q − φ₀) + c σ q̇), energy
 * ½ k (σ q − φ₀)². Along a prismatic joint (a spring-damper whose points lie on the joint's
 * line, L apart at the start, counted along the axis from body1's point to body2's): the length
 * l = |L + q|, the tension s = k (l − l0) + f0 + c l̇, the force −s ∂l/∂q, energy
 * ½ k (l − l0)² + f0 (l − l0). */
typedef struct ld_tree_spring {
    int link, slide;
    double sig, k, c, rest;
    double L, l0, f0;
} ld_tree_spring;

/* What moves a link: a revolute or prismatic joint, or one of the six velocities (Ω, ẋ) of a
 * floating root (its body angular velocity, its centre's spatial velocity): a floating root is
 * six links in a chain, the first five massless, the last carrying the root's bodies. */
enum { LD_TREE_REVOLUTE = 0, LD_TREE_PRISMATIC, LD_TREE_FREE };

typedef struct ld_tree {
    const ld_model *m;
    int n;        /* links = velocity coordinates */
    int nroot;    /* floating roots (their nodes come first in the system) */
    int nq;       /* the system's q and v sizes */
    int *par;     /* n: the parent link, −1 for the ground */
    int *sys;     /* n: the link's coordinate in v */
    int *qsys;    /* n: in q (a free link: its root node's first entry) */
    int *joint;   /* n: the model's joint; a free link: the root body */
    int *kind;    /* n: LD_TREE_* */
    int *col;     /* n: a free link's column 0 … 5 of (Ω, ẋ) */
    double *sig;  /* n: σ */
    double *u0;   /* 3n: the joint's axis at the start */
    double *r0;   /* 3n: the joint's point at the start */
    double *lm;   /* n: the link's mass */
    double *lc0;  /* 3n: its centre of mass at the start */
    double *lJ0;  /* 9n: its inertia about that centre at the start (spatial axes) */
    int *carrier; /* nbodies: the link that carries the body, −1 the ground */
    /* the bodies in breadth-first order (nborder of them: every body the tree reaches, those
     * fixed to the ground by fixed joints included), each
     * with the joint that reaches it from its parent body (−1: a floating root) and that parent
     * (−1: the ground or none) */
    int nborder, *border, *bjoint, *bpar;
    int nspring;
    ld_tree_spring *spring;
    double g[3];     /* gravity */
    double e_ground; /* −g·Σ m x of the bodies fixed to the ground (carrier −1): their constant
                      * potential, so that the energy equals the maximal formulations' */
    /* scratch (the evaluations; mutable through a const system, as the fallbacks' work) */
    double *R, *p;           /* 9n, 3n: G_i */
    double *S;               /* 6n: the joint's motion subspace now (σ included) */
    double *V, *A;           /* 6n: link velocities, accelerations */
    double *F;               /* 6n: link forces */
    ld_tree_inertia *I, *Ic; /* n: the link's inertia now, the composite */
    double *H;               /* n²: the mass matrix (internal order), then its LᵀDL factors */
    double *b;               /* n: right-hand side (internal order) */
    double *qi, *vi;         /* n: the state in internal order */
    /* forward-kinematics cache of the bodies' output: the state it was computed at */
    double *fkq, *fkv;
    int fk_valid;
    /* the joints' reactions (6 per joint: force, torque about body2's centre) at the state of
     * fkq, fkv when react_valid; the bodies' forces (6 per body) */
    double *react, *bf;
    int react_valid;
} ld_tree;

/* The spatial products of the recursions. */
/* f = I V: moment Jo ω + h × v, force m v + ω × h. */
static inline void inertia_mul(const ld_tree_inertia *I, const double V[6], double f[6]) {
    double hv[3], wh[3], Jw[3];
    ld_m3_mulv(Jw, I->Jo, V);
    ld_v3_cross(hv, I->h, V + 3);
    ld_v3_cross(wh, V, I->h);
    for (int k = 0; k < 3; ++k) f[k] = Jw[k] + hv[k], f[3 + k] = I->m * V[3 + k] + wh[k];
}

/* r = V × m (motion cross product): (ω × m_ω, ω × m_v + v × m_ω). */
static inline void crm(const double V[6], const double m[6], double r[6]) {
    double a[3], b[3];
    ld_v3_cross(r, V, m);
    ld_v3_cross(a, V, m + 3);
    ld_v3_cross(b, V + 3, m);
    for (int k = 0; k < 3; ++k) r[3 + k] = a[k] + b[k];
}

/* r = V ×* f (force cross product): (ω × n + v × f, ω × f). */
static inline void crf(const double V[6], const double f[6], double r[6]) {
    double a[3], b[3];
    ld_v3_cross(a, V, f);
    ld_v3_cross(b, V + 3, f + 3);
    ld_v3_cross(r + 3, V, f + 3);
    for (int k = 0; k < 3; ++k) r[k] = a[k] + b[k];
}

static inline double dot6(const double a[6], const double b[6]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* Compile m in the tree formulation (rigid.c calls it for LD_FORM_TREE): s with an R³×SO(3) node
 * per floating root and one R¹ node per joint coordinate, no constraints, M = I, g = −q̈; q0, v0
 * (malloc) the initial state (the roots' poses, the joints' coordinates 0) and velocities (those
 * of the model's initial velocities, solved as the maximal formulations solve them). LD_OK;
 * LD_ENOTSUPPORTED with the joint, body, element or feature named in msg for a model the
 * formulation cannot hold; LD_EINVAL, LD_ENOMEM. */
int ld_tree_compile(const ld_model *m, ld_system *s, double **q0, double **v0, char *msg, size_t n);
void ld_tree_free(ld_tree *T);

/* Forward kinematics at q: R, p, S of every link (internal order; q in the system's order). */
void ld_tree_fk(ld_tree *T, const double *q);
/* Velocities V at (q, v) after ld_tree_fk. */
void ld_tree_velocities(ld_tree *T, const double *v);
/* The joint-space mass matrix by the composite-rigid-body algorithm at the configuration of
 * the last ld_tree_fk, into T->H (internal order, full symmetric). */
void ld_tree_crba(ld_tree *T);
/* The bias forces C(q, v) + gravity (internal order, into c) by recursive Newton–Euler at the
 * state of the last ld_tree_fk and ld_tree_velocities (T->I set by ld_tree_crba or
 * ld_tree_inertias). */
void ld_tree_rnea(ld_tree *T, double *c);
void ld_tree_inertias(ld_tree *T);
/* b −= τ, the springs' and dampers' generalized forces (internal order) at the state of the last
 * ld_tree_fk and ld_tree_velocities. */
void ld_tree_springs_sub(const ld_tree *T, double *b);
/* One spring-damper's generalized force τ and energy V at that state. */
void ld_tree_spring_eval(const ld_tree *T, const ld_tree_spring *sp, double *tau, double *V);
/* Factor T->H in place as LᵀDL with the tree's sparsity (Featherstone 2008, sec. 6.5), then
 * solve H x = b in place. LD_OK or LD_ESINGULAR. */
int ld_tree_ltdl(ld_tree *T);
void ld_tree_ltdl_solve(const ld_tree *T, double *b);

/* The system's operations. */
int ld_tree_mass(const ld_system *s, const double *q, double *M);
int ld_tree_mass_blocks(const ld_system *s, const double *q, double *Mb);
int ld_tree_force(const ld_system *s, double t, const double *q, const double *v, double *g);
int ld_tree_energy(const ld_system *s, double t, const double *q, const double *v, double *e);
int ld_tree_phi_q_sparse(const ld_system *s, double t, const double *q, double *vals);

/* The force and torque (spatial; the torque about body2's centre of mass) that joint j exerts
 * on its body2 at (t, q, v): from the accelerations of the state, each body's force of inertia
 * and weight summed over the bodies beyond the joint, less the joint's springs and dampers
 * (ld_model_joint_reaction of a tree system). LD_OK, or a status of the force. */
int ld_tree_reaction(const ld_system *s, int j, double t, const double *q, const double *v,
                     double f[3], double tau[3]);

/* Body b's centre x, quaternion, body angular velocity Ω and centre velocity ẋ at (q, v)
 * (ld_model_body_state of a tree system). */
void ld_tree_body_state(const ld_system *s, int b, const double *q, const double *v, double x[3],
                        double quat[4], double omega[3], double xdot[3]);

#endif

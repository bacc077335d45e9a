/*
 * The compiled rigid-body system as the element kinds see it, and what the compiler
 * (src/compile/), the model's checks (src/model/) and the methods (src/sys/) ask of particular
 * kinds: the bodies' state (body_state.c), the bodies' loads (body.c), the Euler-parameter terms
 * (euler.c), the joints (joints.c, joints_setup.c, joints_velocity.c), the rods (rod.c) and the
 * beams (beam.c). The system itself is built by src/compile/rigid.c; the element interface is
 * element.h.
 *
 * Storage per body (node i = body i, offsets s->nodes[i].qoff / voff):
 *   so3xr3, se3     q = (R row-major 9, x 3),  v = (Ω, U)
 *   s3xr3, s3sdr3   q = (quaternion 4, x 3),   v = (Ω, U)
 *   euler           q = (x 3, e 4),            v = (ẋ, ė)
 * U = ẋ for the direct products, U = Rᵀẋ for the semidirect ones; Ω body frame. The spatial
 * formulations (so3xr3-spatial, s3xr3-spatial) store as so3xr3, s3xr3 with v = (ω, ẋ), ω = RΩ;
 * rb_sys.f is then that body-frame formulation, in which every element kind evaluates
 * (elem_spatial.c maps the local arrays), and rb_sys.left is set. In the euler
 * formulation R = R(e) of Sherif et al. (2019) eq. 2 (quadratic in e, not normalized).
 *
 * Constraint rows: the joints' rows first (joints.c, in the order of ld_model.joints), then the
 * rods' Kirchhoff rows (rod.c: rods in order, segments in order, Γ₁ then Γ₂), then, in the
 * euler formulation (which has no rods), one unit-norm row ½(eᵀe − 1) per body.
 *
 * Sparse pattern of B (Lie formulations, elem_pattern.c): each instance's rows cover all columns of
 * its nodes (a joint's: body2 only for the ground; a segment's: the 12 of its nodes); entries by
 * row, then column.
 */
#ifndef LIEDYN_SRC_ELEMENTS_KINDS_H
#define LIEDYN_SRC_ELEMENTS_KINDS_H

#include <stddef.h>

#include "element.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

typedef struct ld_jsys ld_jsys;
typedef struct ld_tree ld_tree;

typedef struct rb_sys {
    const ld_model *m;
    ld_formulation f;
    int semi;   /* semidirect: U in the body frame */
    int quat;   /* S³ storage */
    int euler;  /* the euler formulation */
    int left;   /* spatial formulation: ω = RΩ, increments on the left (f: the body-frame one) */
    int njrows; /* rows of all joints */
    int nkrows; /* Kirchhoff rows of all rods */
    ld_jsys *J;
    int *load_start, *load_list; /* body i's loads: load_list[load_start[i] … load_start[i+1]) */
    ld_elems E;                  /* the element instances (element.h) */
    /* The control inputs of the model's elements (nelements, 0 at compile; an actuator with
     * input `control` reads its entry): mutable data of the system, set by ld_sys_set_control
     * between steps (NULL without elements) */
    double *ctrl;
    /* The tree formulation (LD_FORM_TREE, src/compile/tree.h): the joint-coordinate system's
     * data; NULL in the maximal formulations (J and E are then empty and unused) */
    ld_tree *tree;
} rb_sys;

static inline const rb_sys *ld_rb(const ld_system *s) {
    return (const rb_sys *)s->user;
}

/* Rotation matrix and position of body i in the state q (any formulation). */
void ld_rb_pose(const ld_system *s, const double *q, int i, double R[9], const double **x);

/* Body angular velocity Ω and centre-of-mass velocity ẋ (spatial) of body i, from its velocity
 * vi (the node's slice of v). */
void ld_rb_body_velocity(const ld_system *s, const double *q, const double *vi, int i, double Om[3],
                         double xd[3]);

/* Body angular acceleration Ω̇ and centre-of-mass acceleration ẍ (spatial) of body i from its
 * velocity vi and acceleration ai (the node's slices of v and v̇, in the body-frame formulation:
 * ld_rb_velocity_frame of both, which gives Ω̇ = Rᵀω̇ in the spatial ones). */
void ld_rb_body_accel(const ld_system *s, const double *q, const double *vi, const double *ai,
                      int i, double dOm[3], double xdd[3]);
/* Node i's velocity slice in the body-frame formulation rb_sys.f (vb) from the system's (v), and
 * back (to_spatial): ω ↔ Ω = Rᵀω in the spatial formulations, a copy otherwise; vb may be v. */
void ld_rb_velocity_frame(const ld_system *s, const double *q, int i, const double *v, double *vb,
                          int to_spatial);
/* Body i (not pinned) of the state (q, v) in any Lie formulation: its rotation R, centre x, body
 * angular velocity Ω and spatial velocity ẋ (body_state.c). */
void ld_rb_state_read(const ld_system *s, const double *q, const double *v, int i, double R[9],
                      double x[3], double Om[3], double xd[3]);
/* The reverse: body i's R, x, Ω, ẋ written into (q, v) in the formulation's layout. */
void ld_rb_state_write(const ld_system *s, int i, const double R[9], const double x[3],
                       const double Om[3], const double xd[3], double *q, double *v);
/* Why a method for rigid bodies from the model's data (the splitting methods, moreau) cannot
 * take s — not a compiled model, the euler formulation, rods, beams, force elements (unless
 * forces is non-zero), pinned bodies — as a reason ("<needs> a Lie-group formulation", "… are
 * not <verb>"; a static or thread-local string); NULL if it can (body_state.c). */
const char *ld_rb_rigid_only(const ld_system *s, const char *needs, const char *verb, int forces);
/* s was compiled in the tree formulation (src/compile/tree_api.c): 1, else 0. */
int ld_sys_is_tree(const ld_system *s);

/* Loads on a body at time t: body-frame torque tb, spatial torque ts, spatial force fs (with
 * gravity), body-frame force fb; the body feels τ = tb + Rᵀ ts and f = fs + R fb. */
typedef struct ld_rb_loads {
    double tb[3], ts[3], fs[3], fb[3];
} ld_rb_loads;

void ld_rb_loads_eval(const rb_sys *rb, int i, double t, ld_rb_loads *L);

/* ------------------------------------------------- euler formulation body terms (euler.c) */
/* Sherif et al. (2019) eq. 9 for one body with qb = (x, e), vb = (ẋ, ė), ab = (ẍ, ë): the 7×7
 * blocks written at (o, o) of the k×k row-major matrices. */
void ld_ep_body_mass(const ld_body *b, const double *qb, double *M, size_t k, size_t o);
/* g = (−f, 8 LᵀL L̇ᵀ J L ė − 2 Lᵀ τ) (7 entries at g). */
void ld_ep_body_force(const ld_body *b, const double *qb, const double *vb, const ld_rb_loads *L,
                      double *g);
/* ∂g/∂v. */
void ld_ep_body_g_v(const ld_body *b, const double *qb, const double *vb, double *C, size_t k,
                    size_t o);
/* ∂/∂q [M a + g] at fixed a, v (added to K). */
void ld_ep_body_stiffness(const ld_body *b, const double *qb, const double *vb, const double *ab,
                          const ld_rb_loads *L, double *K, size_t k, size_t o);

/* ------------------------------------- joints (joints.c, joints_setup.c, joints_velocity.c) */

/* Derive what the joints need from the model's initial configuration (body-frame points and
 * axes) for formulation f. LD_OK, LD_EINVAL with a one-line reason in msg (may be NULL),
 * LD_ENOMEM. */
int ld_jsys_create(const ld_model *m, ld_formulation f, ld_jsys **out, char *msg, size_t n);
void ld_jsys_free(ld_jsys *J);
/* Rows of all joints. */
int ld_jsys_rows(const ld_jsys *J);
/* Rows of joint j; *row0 receives its first row. */
int ld_jsys_joint_rows(const ld_jsys *J, int j, int *row0);
/* The joint rows of Φ, B = ∂Φ/∂q along the group (row stride s->k), ∂Φ/∂t, and z with
 * Φ̈ = B v̇ + z. Rows 0 … ld_jsys_rows − 1 of the outputs. */
int ld_jsys_phi(const ld_jsys *J, const ld_system *s, double t, const double *q, double *Phi);
int ld_jsys_phi_q(const ld_jsys *J, const ld_system *s, double t, const double *q, double *B);
int ld_jsys_phi_t(const ld_jsys *J, const ld_system *s, double t, const double *q, double *Phit);
int ld_jsys_phi_dd(const ld_jsys *J, const ld_system *s, double t, const double *q, const double *v,
                   double *z);
/* Complete and check the initial velocity v (filled in from the bodies' data, with ẋ = 0 and
 * Ω = 0 where they are not given): the velocities and angular velocities not given follow from
 * the joints (B v + Φ_t = 0) as the solution of least kinetic energy (a least-squares solve of
 * smallest norm in the mass-weighted unknowns), with the given ones held; then every joint's
 * velocity constraint must hold (to 1e-6 relative). LD_EINVAL with a reason naming the joint
 * or body. */
int ld_jsys_initial_velocity(const ld_jsys *J, const ld_system *s, double t, const double *q,
                             double *v, char *msg, size_t n);
/* K += ∂/∂q [Bᵀ λ] along the group (k×k; λ: the joint rows' multipliers). */
int ld_jsys_add_stiffness(const ld_jsys *J, const ld_system *s, double t, const double *q,
                          const double *lambda, double *K);
/* The rows of joint j of B with local columns (Lie formulations): nrows × 12 row-major into
 * Bl, columns 0–5 body1's (zero for the ground), 6–11 body2's. Returns the number of rows. */
int ld_jsys_phi_q_local(const ld_jsys *J, const ld_system *s, double t, const double *q, int j,
                        double *Bl);
/* The bodies of joint j (body1 may be LD_GROUND). */
void ld_jsys_bodies(const ld_jsys *J, int j, int *body1, int *body2);
/* Force and torque (spatial frame, torque about the centre of mass) that joint j exerts on its
 * body2 (the generalized force −B_jᵀ λ_j on that body, converted); lambda: the joint's own
 * multipliers, one per row of its equations (0 for a row dropped as redundant). */
int ld_jsys_reaction(const ld_jsys *J, const ld_system *s, int j, const double *q,
                     const double *lambda, double f[3], double tau[3]);

/* A rod's or beam's node b (x and q set) starts in the rigid motion (v0, w0) about the point
 * x0 when given, else at rest (body.c); either way its velocities count as given. */
void ld_rigid_motion(ld_body *b, int given, const double v0[3], const double w0[3],
                     const double x0[3]);

/* ---------------------------------------------------------------- rods (rod.c) */
/* Every evaluator visits the segments of all rods; row offsets of the Kirchhoff rows start at
 * njrows. Lie formulations only. */

/* Kirchhoff rows of all rods of m. */
int ld_rod_rows(const ld_model *m);
/* The Kirchhoff rows hold at (q, v) of the start; LD_EINVAL with a reason naming the rod and
 * segment otherwise. */
int ld_rod_check_initial(const ld_system *s, const double *q, const double *v, char *msg, size_t n);

/* ---------------------------------------------------------------- beams (beam.c) */
/* Release the beams' arrays and the array (ld_model_free). */
void ld_beam_free_all(ld_model *m);
/* Beam i of m is sound: LD_OK, or LD_EINVAL with the failing key ("stiffness") and the reason
 * (model.c formats the message). */
int ld_beam_check(const ld_model *m, int i, char *key, size_t nk, char *why, size_t nw);
/* Beam b's section(s) hold (before placing): LD_OK, or LD_EINVAL with the key at fault
 * ("stiffness", "sections[2].rho_j") and the reason. */
int ld_beam_section_check(const ld_beam *b, char *key, size_t nk, char *why, size_t nw);

#endif

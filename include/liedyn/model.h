/*
 * liedyn/model.h — multibody models: rigid bodies, Cosserat rods, joints, loads, and an
 * integrator block.
 *
 * A model is plain data (ld_model). It is read from YAML (ld_model_load, format in
 * docs/model-format.md) or filled in by a program, then compiled into a constrained
 * second-order system on a product Lie group (system.h) in one of seven formulations
 * (ld_model_compile). The model is never modified by compiling or integrating it.
 *
 * Conventions (docs/conventions.md): SI units; quaternions [w x y z], body → spatial;
 * inertia about the centre of mass in body axes; "body" = material frame of the body,
 * "spatial" = inertial frame.
 */
#ifndef LIEDYN_MODEL_H
#define LIEDYN_MODEL_H

#include <stddef.h>

#include "liedyn/export.h"

LD_BEGIN_DECLS

#define LD_NAME_MAX 64

/* Limits of a model file (ld_model_load, ld_model_parse), and of every other YAML file the
 * liedyn tool reads: its size in bytes, the nesting depth of its lists and mappings, its
 * anchors (&a) and aliases (*a), and the nodes its aliases stand for in all (each counted as a
 * copy of its node: nested aliases cannot multiply a small file into a huge document). */
#define LD_MODEL_MAX_BYTES       ((size_t)64 << 20)
#define LD_MODEL_MAX_DEPTH       64
#define LD_MODEL_MAX_ANCHORS     4096
#define LD_MODEL_MAX_ALIASES     4096
#define LD_MODEL_MAX_ALIAS_NODES 1000000

/* Formulations of a rigid body's configuration (docs/conventions.md; Tumiotto & Arnold 2024):
 *   so3xr3  R³×SO(3), (R, x), velocity (Ω, ẋ)            direct product
 *   se3     SE(3),    (R, x), velocity (Ω, Rᵀẋ)          semidirect product
 *   s3xr3   S³×R³,    (q, x), velocity (Ω, ẋ)            direct product
 *   s3sdr3  S³⋉R³,    (q, x), velocity (Ω, Rᵀẋ)          semidirect product
 *   so3xr3-spatial  R³×SO(3), (R, x), velocity (ω, ẋ), ω = RΩ the spatial angular velocity:
 *           increments compose on the left, (R, x) ← (exp(hω̂) R, x + hẋ)
 *   s3xr3-spatial   S³×R³, (q, x), velocity (ω, ẋ), likewise q ← exp(hω) ∘ q
 *   euler   R³×R⁴,    (x, e), velocity (ẋ, ė)            Euler parameters as redundant
 *           coordinates (Sherif et al. 2019, eq. 9): 7 per body, the unit norm ½(eᵀe − 1) = 0
 *           one constraint per body (after the joints' rows), integrated in the vector space
 * The seven above have one node per body (maximal coordinates; LD_FORM_COUNT counts them). After
 * them, in relative (joint) coordinates:
 *   tree    trees of revolute, prismatic and fixed joints, rooted at the ground or at a floating
 *           body: an R³×SO(3) node per floating root ((R, x), velocity (Ω, ẋ) as so3xr3), one
 *           R¹ node per revolute or prismatic joint (its angle or slide, as coords.h counts
 *           it), no constraint; the bodies' poses by forward kinematics, the joint-space mass
 * matrix by the composite-rigid-body algorithm, the bias forces by recursive Newton–Euler
 *           (Featherstone, Rigid Body Dynamics Algorithms, 2008), solved by the tree's sparse
 *           LᵀDL factorization inside the force, so that the system is v̇ = q̈(t, q, v) with
 *           M = I (docs/tree.md) */
typedef enum ld_formulation {
    LD_FORM_SO3XR3 = 0,
    LD_FORM_SE3,
    LD_FORM_S3XR3,
    LD_FORM_S3SDR3,
    LD_FORM_SO3XR3_SPATIAL,
    LD_FORM_S3XR3_SPATIAL,
    LD_FORM_EULER,
    LD_FORM_COUNT, /* the number of maximal-coordinate formulations above (not a formulation) */
    LD_FORM_TREE = LD_FORM_COUNT,
    LD_FORM_ALL /* the number of formulations (not a formulation) */
} ld_formulation;

const char *ld_formulation_name(ld_formulation f);
int ld_formulation_find(const char *name); /* -1 if unknown */

/* Time functions: a load is vec · f(t), a driver value · f(t). */
typedef enum ld_tfn_kind {
    LD_TFN_CONSTANT = 0, /* f = 1 */
    LD_TFN_RAMP,         /* 0 before t0, linear to 1 at t1, 1 after */
    LD_TFN_HAT,          /* 0 before t0, linear to 1 at t1, linear to 0 at t2, 0 after */
    LD_TFN_TABLE,        /* piecewise linear through (t_k, f_k), constant outside */
    LD_TFN_LINEAR,       /* f = t − t0 */
    LD_TFN_SINE,         /* f = sin(2π (t − t0)/period) */
    LD_TFN_SPIN_UP       /* the integral of a ramp: 0 before t0, (t − t0)²/(2 (t1 − t0)) up to
                          * t1, then t − (t0 + t1)/2 — a driver's rate ramped from 0 to value */
} ld_tfn_kind;

typedef struct ld_tfn {
    ld_tfn_kind kind;
    double t0, t1, t2;
    double period;         /* LD_TFN_SINE: > 0 */
    int ntab;              /* LD_TFN_TABLE: number of points (≥ 2), t strictly increasing */
    double *tab_t, *tab_f; /* owned by the model */
} ld_tfn;

double ld_tfn_eval(const ld_tfn *f, double t);
/* d[0] = f(t), d[1] = f'(t), d[2] = f''(t). The piecewise-linear shapes (ramp, hat, table)
 * give the slope of the piece that starts at or before t (the derivative from the right at a
 * kink) and f'' = 0. */
void ld_tfn_eval_d(const ld_tfn *f, double t, double d[3]);

typedef enum ld_load_kind {
    LD_LOAD_FORCE = 0, /* force at the centre of mass */
    LD_LOAD_TORQUE,    /* moment about the centre of mass */
    /* The body torque that makes the rotation follow a known ϑ(t) exactly (Zupan &
     * Zupan Sec. IV.A): τ = J Ω̇ + Ω × JΩ with Ω, Ω̇ from ϑ(t). frame LD_IN_BODY applies τ in the
     * body frame (a function of t only); LD_IN_SPATIAL applies the spatial torque
     * M(t) = R_exact(t) τ(t), seen by the body as Rᵀ M through its computed rotation R, as
     * Zupan & Zupan's eq. 21 writes it. vec and fn are unused. */
    LD_LOAD_EXACT_TORQUE
} ld_load_kind;

typedef enum ld_frame_kind { LD_IN_SPATIAL = 0, LD_IN_BODY = 1 } ld_frame_kind;

/* The prescribed-rotation cases of Zupan & Zupan Sec. IV.A (J = diag(5, 5, 1)):
 *   i:  ϑ(t) = (t², 0, t/5);   ii: ϑ(t) = (t + sin t, 0, cos t). */
typedef enum ld_exact_case { LD_EXACT_NONE = 0, LD_EXACT_I, LD_EXACT_II } ld_exact_case;

typedef struct ld_load {
    ld_load_kind kind;
    int body;            /* index into ld_model.bodies */
    ld_frame_kind frame; /* frame of vec */
    double vec[3];
    ld_tfn fn;
    ld_exact_case exact; /* LD_LOAD_EXACT_TORQUE only */
    int line;            /* line in the model file (messages; 0 if built in code) */
} ld_load;

typedef struct ld_body {
    char name[LD_NAME_MAX];
    double mass;       /* > 0 */
    double inertia[9]; /* about the centre of mass, body axes, symmetric positive definite */
    double x[3];       /* centre of mass, spatial */
    double q[4];       /* orientation body → spatial (normalized by the loader) */
    double omega[3];   /* body angular velocity */
    double v[3];       /* centre-of-mass velocity, spatial */
    int has_v;         /* 0: v was not given (a joint determines it, else 0) */
    int omega_free;    /* 1: omega was not given: the joints determine it with v (else 0) */
    int line;          /* line in the model file (a rod's node: the rod's; 0 if built in code) */
    /* 1: neither position nor orientation was given: a joint in the frame form places the body
     * from the body it joins (ld_model_assemble); 0: x and q are the user's placement */
    int unplaced;
    int hold; /* 1: assembly keeps the body where it is placed (ld_model_assemble) */
    /* LD_PIN_NONE, or the position eliminated: the body stays at x and only turns, freely
     * (LD_PIN_POINT: a node of SO(3) or S³) or about pin_axis (LD_PIN_AXIS: one angle θ,
     * R = R(q) exp(θ a)); no joints on it, Lie formulations only (pinned beam ends) */
    int pin;
    /* LD_PIN_AXIS: the axis a in the body frame (unit) */
    double pin_axis[3];
} ld_body;
enum { LD_PIN_NONE = 0, LD_PIN_POINT = 1, LD_PIN_AXIS = 2 };

/* Joints between two bodies, or between a body and the ground (body1 = LD_GROUND). The
 * geometry is given in the spatial frame at the initial configuration (the bodies' x and q):
 * the joint point `at`, the unit axis `axis`, and `axis2` (universal joints). Compiling a model
 * fixes them in the bodies' frames. With p1, p2 the joint point in the frames of body1 and
 * body2, d = (x2 + R2 p2) − (x1 + R1 p1), (u1, u2, a) a right-handed orthonormal frame fixed in
 * body1 with a = axis, and a', w the images of a and u1 fixed in body2 (all at the initial
 * configuration), the equations are (docs/model-format.md):
 *   spherical   3  d = 0
 *   universal   4  d = 0, (R1 a)·(R2 b) = 0 with b = axis2 fixed in body2 (axis ⊥ axis2)
 *   revolute    5  d = 0, (R1 u1)·(R2 a') = 0, (R1 u2)·(R2 a') = 0
 *   cylindrical 4  (R1 u1)·d = 0, (R1 u2)·d = 0, (R1 u1)·(R2 a') = 0, (R1 u2)·(R2 a') = 0
 *   prismatic   5  cylindrical and (R1 u2)·(R2 w) = 0
 *   fixed       6  d = 0, (R1 u1)·(R2 a') = 0, (R1 u2)·(R2 a') = 0, (R1 u2)·(R2 w) = 0
 *   driver      1  the relative motion value · f(t) about / along axis:
 *                  rotation     cos θ (R1 u2)·(R2 w) − sin θ (R1 u1)·(R2 w) = 0, θ = value f(t)
 *                  translation  (R1 a)·d − s0 − value f(t) = 0, s0 its initial value
 * A driver holds one direction only; it goes with a revolute, prismatic or cylindrical joint
 * that holds the others. Compiling requires every equation to hold at t_start, so a driver's
 * value · f(t_start) must be 0. The joints' rows come in the order of the joints. */
#define LD_GROUND (-1)

typedef enum ld_joint_kind {
    LD_JOINT_SPHERICAL = 0,
    LD_JOINT_UNIVERSAL,
    LD_JOINT_REVOLUTE,
    LD_JOINT_CYLINDRICAL,
    LD_JOINT_PRISMATIC,
    LD_JOINT_FIXED,
    LD_JOINT_DRIVER,
    LD_JOINT_KIND_COUNT
} ld_joint_kind;

typedef enum ld_motion_kind { LD_MOTION_ROTATION = 0, LD_MOTION_TRANSLATION } ld_motion_kind;

const char *ld_joint_kind_name(ld_joint_kind k);
/* Number of equations of a joint of kind k (0 if unknown). */
int ld_joint_kind_rows(ld_joint_kind k);

typedef struct ld_joint {
    char name[LD_NAME_MAX];
    ld_joint_kind kind;
    int body1; /* index into ld_model.bodies, or LD_GROUND */
    union {
        int body2; /* index into ld_model.bodies (not the ground), ≠ body1 */
        int body;  /* the same, under the name of the point form below */
    };
    double at[3];          /* joint point, spatial, initial configuration */
    double axis[3];        /* unit axis (universal, revolute, cylindrical, prismatic, driver) */
    double axis2[3];       /* universal: body2's unit axis, ⊥ axis */
    ld_motion_kind motion; /* driver */
    double value;          /* driver: amplitude (rad or m) */
    ld_tfn fn;             /* driver: time function (tables owned by the model) */
    /* The point form of a spherical joint to the ground (body1 = LD_GROUND): the point p of
     * body2 (body frame, relative to its centre of mass) is held at the spatial point xg,
     * Φ = x2 + R2 p − xg = 0, whether or not it holds at the start (at is unused). */
    int point_form;
    double p[3];
    double xg[3];
    int line; /* line in the model file (messages; 0 if built in code) */
    /* The frame form (local = 1; not the point form): the joint's frame given in each body —
     * origin at1 and rotation f1 (a unit quaternion, joint frame → body frame) in body1 (the
     * ground: spatial), at2 and f2 in body2. Its z axis is the joint's axis, its x axis the
     * reference direction. The equations are those above with p1 = at1, p2 = at2, (u1, u2, a)
     * the x, y, z axes of frame 1 and a', w the z and x axes of frame 2 (universal: b = the x
     * axis of frame 2; a driver's s0 = 0), so they hold where the two frames coincide up to the
     * joint's motion, and need not hold as the bodies are placed: ld_model_assemble closes them
     * and then sets at, axis and axis2 to their spatial values. The joint's coordinates are
     * measured from where the frames coincide: coord[0] the angle about z (revolute,
     * cylindrical), coord[1] the slide along z (prismatic, cylindrical); given, they place
     * an unplaced body2 (or body1), and with hold set assembly holds them. */
    int local;
    double at1[3], at2[3];
    double f1[4], f2[4];
    double coord[2];
    int has_coord; /* 1: coord was given (placement takes such joints first) */
    int hold;
    /* The rates of the joint's coordinates at the start (revolute, cylindrical: rate[0] of the
     * angle, rad/s; prismatic, cylindrical: rate[1] of the slide, m/s), held when the joints
     * determine the velocities not given (docs/constraints.md#initial-velocities); has_rate:
     * bit 0 the angle's rate given, bit 1 the slide's. Either form. */
    double rate[2];
    int has_rate;
    int swapped; /* the reader made body1 the ground (written the other way round) */
    /* Limits of a revolute joint's angle (rad, within (−π, π)) or a prismatic joint's slide (m),
     * lo < hi, as its coordinates count (coords.h): unilateral constraints that only the contact
     * method enforces (docs/contact.md#joint-limits); has_limits: given. */
    int has_limits;
    double limits[2];
} ld_joint;

/* How a rod's or a beam's segments collide (docs/contact.md, "Rods and beams"): with on set,
 * each segment between two consecutive nodes is a capsule of this radius (m, > 0) whose axis
 * joins the two nodes' positions, with its restitution e ∈ [0, 1] and friction μ ≥ 0 as a
 * shape's. They collide with the ground plane, the ground shapes and the bodies' colliding
 * shapes under the compliant law (contact_law: hunt_crossley). With spans set as well they
 * also collide with the segments of every rod and beam that sets spans, their own included
 * except neighbours sharing a node and the pairs that touch or overlap as written. */
typedef struct ld_collide {
    int on, spans;
    double radius, restitution, friction;
} ld_collide;

/* A Cosserat rod (docs/rod.md): n segments between n + 1 nodes, each node an ordinary body
 * of the model (bodies body0 … body0 + n, in order along the rod), so that loads, joints,
 * gravity and output treat the nodes as rigid bodies. The nodes carry the rod's lumped mass:
 * node mass ρA ds and inertia diag(ρI) ds, halved at the two end nodes (ds = length/n;
 * ld_rod_place fills them, ld_model_validate checks them). Body e3 of a node is the centreline
 * tangent of the unstressed rod.
 *
 * Segment k joins nodes k and k + 1. With g = q_k⁻¹ ∘ q_{k+1} in SE(3) (rotation R_kᵀR_{k+1},
 * translation R_kᵀ(x_{k+1} − x_k)) and ξ = log g = (κ part, Γ part), the strain is w = ξ/ds,
 * the reference strain w0 = (0, 0, 0, 0, 0, 1), the potential ½ ds Σ (w − w0)ᵀ C (w − w0)
 * with C = diag(stiffness) and the dissipation ½ ds Σ ẇᵀ D ẇ with D = diag(damping). With
 * kirchhoff set, every segment adds the constraints ξ₄ = ξ₅ = 0 (Γ₁ = Γ₂ = 0: no shear), two
 * rows per segment after the joints' rows. Rods need a Lie-group formulation (not euler). */
typedef struct ld_rod {
    char name[LD_NAME_MAX]; /* the nodes are named "name[0]" … "name[n]" by the reader */
    int n;                  /* segments, ≥ 1 */
    int body0;           /* index of node 0 in ld_model.bodies; the nodes are body0 … body0 + n */
    double length;       /* unstressed length L > 0 (ds = L/n) */
    double stiffness[6]; /* C = diag(EI1, EI2, GJ, GA1, GA2, EA), ≥ 0 */
    double damping[6];   /* D = diag(…) on the strain rates, ≥ 0 (default 0) */
    int kirchhoff;       /* 1: constraints Γ1 = Γ2 = 0 per segment */
    double rho_a;        /* mass per length ρA > 0 */
    double rho_i[3];     /* rotary inertia per length diag(ρI), body axes, > 0 */
    int line;            /* line in the model file (messages; 0 if built in code) */
    /* 1: the rod starts in the rigid motion (v0, w0): node 0 at velocity v0, every node turning
     * at w0 (both spatial); 0: its nodes' velocities are not given (the joints determine them,
     * and a rod joined to a moving body moves with it rigidly; else at rest) */
    int has_motion;
    double v0[3], w0[3];
    ld_collide collide; /* its segments as capsules (on = 0: they collide with nothing) */
} ld_rod;

/* Fill the n + 1 node bodies of rod (nodes[0] … nodes[n]) for a straight unstressed rod from
 * `from` (node 0) to `to` (node n), at rest: names "name[i]", lumped masses and inertias from
 * rho_a, rho_i and ds = rod->length/n (rod->length is not changed: set it to |to − from| for an
 * unstressed start), positions equally spaced, one orientation for all with body e3 along
 * to − from and body e1 along `normal` projected ⊥ e3. normal may be NULL: then e1 is the
 * spatial axis least aligned with the centreline (on a tie z before y before x). LD_EINVAL
 * (nodes untouched) when n < 1, from = to, normal is parallel to to − from, or a node name does
 * not fit in LD_NAME_MAX. */
int ld_rod_place(const ld_rod *rod, const double from[3], const double to[3],
                 const double normal[3], ld_body *nodes);

/* A geometrically exact beam (docs/beam.md): finite elements of order p = 1 … 14 along a
 * reference centreline given as a polyline of npoints points (2 for a straight beam), nelem
 * elements per segment, the nodes at the Gauss–Lobatto–Legendre points of each element
 * (neighbouring elements share a node; a corner of the polyline is a shared node: a rigid
 * joint of the two segments). A free node is an ordinary body of the model (node_body[k]),
 * carrying the beam's inertia lumped by the same quadrature: mass w_k ρA and inertia w_k ρJ
 * (material frame, both at the node), w_k the node's length share — so that loads, joints,
 * gravity and the output treat the nodes as bodies. A clamped node (node_body[k] = LD_GROUND)
 * is no unknown at all: it keeps its reference pose (its degrees of freedom are eliminated, so
 * that methods without constraints run clamped beams). The material frame of a segment has e1
 * along the segment (the beam axis) and e2 along `normal` projected ⊥ e1; a corner node takes
 * the frame of the segment before it, and the elements after it see it turned into their own.
 * The section: the 6×6 stiffness C in the material frame on the strains (Γ₁ − 1, Γ₂, Γ₃, K₁,
 * K₂, K₃) — diag(EA, GA₂, GA₃, GJ, EI₂, EI₃) for a simple section — ρA, the 3×3 ρJ about
 * the axis and ρA ξ (the centre of mass at ξ off the axis: the coupling blocks of the 6×6
 * section mass, carried by the beam-mass element on the nodes); uniform (C, rho_a, rho_j, mxi),
 * or varying: given at stations along the centreline (each with a twist of the section about
 * e1) and linear between them. With curve set, the points sample a smooth axis (a spline) and
 * nelem elements share its length. Beams need a Lie-group formulation. A pinned end (pin) is a
 * body whose position is eliminated like a clamped node's (ld_body.pin): it keeps its reference
 * position and turns, freely or about pin_axis. */
#define LD_BEAM_ORDER_MAX    14
#define LD_BEAM_QUAD_MAX     64 /* Gauss points per element */
#define LD_BEAM_POINTS_MAX   256
#define LD_BEAM_STATIONS_MAX 1024
#define LD_BEAM_QSEC_MAX     8 /* Gauss points per section interval */
/* The section at a station η (the arc-length fraction of the centreline, 0 … 1). */
typedef struct ld_beam_station {
    double eta;
    double C[36], rho_a, rho_j[9], mxi[3]; /* as ld_beam's */
    double twist; /* the section turned by this angle (rad) about e1: C ← T C Tᵀ, T = diag(R, R),
                   * R = rot(e1, twist), and likewise ρJ and m ξ; linear between stations */
} ld_beam_station;
typedef struct ld_beam {
    char name[LD_NAME_MAX]; /* the free nodes are named "name[k]" by ld_beam_place */
    int order;              /* p, 1 … LD_BEAM_ORDER_MAX */
    int nelem;              /* elements per segment, ≥ 1 */
    int reduced;            /* 1: p Gauss points per element (reduced), 0: p + 1 (full) */
    int nquad;              /* > 0: this many Gauss points per element (≤ LD_BEAM_QUAD_MAX),
                             * overriding reduced */
    int nqsec;              /* > 0: this many Gauss points on each piece of an element between
                             * the stations (≤ LD_BEAM_QSEC_MAX; at most LD_BEAM_QUAD_MAX in an
                             * element), overriding nquad and reduced */
    int npoints;            /* 2 … LD_BEAM_POINTS_MAX */
    double points[3 * LD_BEAM_POINTS_MAX]; /* the reference centreline, consecutive ≠ */
    double normal[3]; /* material e2 ⊥ each segment (not parallel to any of them) */
    double C[36];     /* sectional stiffness, row-major, symmetric positive definite */
    double rho_a;     /* mass per length, > 0 */
    double rho_j[9];  /* rotary inertia per length about the axis (material frame) */
    double mxi[3];    /* ρA ξ: the centre of mass at ξ off the axis (material frame); the 6×6
                       * section mass [ρA I, −hat(ρA ξ); hat(ρA ξ), ρJ] must be positive definite */
    int curve;        /* 1: the points are samples of a smooth curve (a cubic spline through them
                       * in chord length), nelem elements along all of it, the material frame e1
                       * along its tangent; 0: a polyline (nelem elements per segment) */
    int nstations;    /* 0: the uniform section above; 2 … LD_BEAM_STATIONS_MAX: varying */
    ld_beam_station *stations; /* nstations, η from 0 ascending to 1 (owned; malloc'ed) */
    double damping;   /* μ ≥ 0 (s): viscous section stress μ C ε̇ (stiffness-proportional) */
    int clamp[2];     /* 1: node 0 (clamp[0]) / the last node (clamp[1]) clamped */
    int nnodes;       /* ld_beam_place: elements·order + 1 */
    int *node_body;   /* nnodes: the node's body, or LD_GROUND when clamped (owned) */
    double *q0, *x0;  /* nnodes × 4, × 3: the nodes' reference poses (owned) */
    double *qe0;      /* elements × (order + 1) × 4: each element's reference frame at
                       * its nodes (differs from q0 at corners; owned) */
    double *wlen;     /* nnodes: each node's length share w_k (owned) */
    double *eta;      /* nnodes: each node's arc-length fraction (owned) */
    double *mxi_node; /* nnodes × 3: each node's lumped ρA ξ in its frame, or NULL: all on the
                       * axis (in the block of wlen) */
    int line;         /* line in the model file (messages; 0 if built in code) */
    /* 1: node 0 / the last node pinned: it keeps its position and turns (its body's pin is
     * LD_PIN_POINT, or LD_PIN_AXIS about pin_axis); an end is not clamped and pinned both */
    int pin[2];
    /* ≠ 0: the pinned ends turn about this spatial axis only (a hinge) */
    double pin_axis[3];
    /* the initial rigid motion, as for ld_rod (node 0 at v0, every node turning at w0) */
    int has_motion;
    double v0[3], w0[3];
    ld_collide collide; /* its node-to-node spans as capsules (on = 0: they collide with nothing) */
} ld_beam;
/* The beam's elements: (npoints − 1) · nelem for a polyline, nelem along a curve. */
static inline int ld_beam_elements(const ld_beam *b) {
    return b->curve ? b->nelem : (b->npoints - 1) * b->nelem;
}

/* ---- force elements (docs/elements.md) ------------------------------------------------
 * An element acts between body1 (a body or LD_GROUND) and body2 (a body, ≠ body1) and adds
 * to the generalized force g of M v̇ + g + Bᵀλ = 0 (g = ∂V/∂q for its elastic part, as
 * gravity's −m g). Its type is an entry of the element registry (src/model/elements.c),
 * found by name:
 *   spring-damper             along the line between a point of each body: stiffness k,
 *                             damping c on the rate of length, free length l0, preload f0,
 *                             or a force–length curve instead of k (l − l0)
 *   rotational-spring-damper  on the relative rotation vector θ of the bodies' frames (θ = 0
 *                             at the start): torque k θ + c θ̇, or about one axis only
 *   bushing                   6×6 stiffness and damping on e = (θ, r): the relative rotation
 *                             vector and the relative position in body1's bushing frame
 *   user-force                a program's callback (ld_model_add_user_force)
 *   actuator                  a motor on a revolute or prismatic joint: torque about / force
 *                             along its axis from an input (docs/actuators.md)
 * par holds the type's parameters in the layout that docs/elements.md gives per type (points
 * and axes spatial, at the initial configuration, like the joints' `at` and `axis`). */

/* What a user force sees of a body: its centre of mass x (spatial), rotation R (body →
 * spatial, row-major), body angular velocity Ω and centre-of-mass velocity ẋ (spatial). The
 * ground is x = 0, R = I, at rest. */
typedef struct ld_body_motion {
    double x[3], R[9], omega[3], xdot[3];
} ld_body_motion;

/* A user force: the force (spatial) and the torque (spatial, about the centre of mass) that act
 * on body1 (w[0..2] force, w[3..5] torque; ignored for the ground) and on body2 (w[6..11]) at
 * time t. Status 0, > 0 (the integrator retries a smaller step) or < 0 (fatal). */
typedef int (*ld_user_force_fn)(double t, const ld_body_motion b[2], double w[12], void *user);
/* Its optional tangents (12×12 row-major): Wq = ∂w/∂(δθ1, δx1, δθ2, δx2) with the bodies moved
 * as R exp(δθ), x + δx, and Wv = ∂w/∂(Ω1, ẋ1, Ω2, ẋ2), each at fixed other arguments. */
typedef int (*ld_user_force_tangent_fn)(double t, const ld_body_motion b[2], double Wq[144],
                                        double Wv[144], void *user);
/* A vectorized user force: n instances in one call, instance i on the bodies b[2i], b[2i+1]
 * (w[12i..12i+11] as ld_user_force_fn's w); each instance's w depends on t and on its own
 * bodies only. Its optional tangents fill Wq[144i..], Wv[144i..] as ld_user_force_tangent_fn. */
typedef int (*ld_user_forces_fn)(double t, int n, const ld_body_motion *b, double *w, void *user);
typedef int (*ld_user_forces_tangent_fn)(double t, int n, const ld_body_motion *b, double *Wq,
                                         double *Wv, void *user);
/* ld_element.depends: the bodies whose motion a user force depends on. */
#define LD_DEPENDS_BODY1 1u
#define LD_DEPENDS_BODY2 2u

typedef struct ld_element {
    char name[LD_NAME_MAX]; /* optional; unique among the elements when given */
    int type;               /* index in the element registry (ld_element_type_find) */
    int body1, body2;       /* body1: a body or LD_GROUND; body2: a body, ≠ body1 */
    int npar;
    double *par;                        /* the type's parameters (docs/elements.md), owned */
    ld_user_force_fn fn;                /* user-force: the force */
    ld_user_force_tangent_fn tangent;   /* user-force: its tangent, NULL: differences */
    void *user;                         /* user-force: passed to fn and tangent (or fns) */
    ld_user_forces_fn fns;              /* user-force, vectorized (fn NULL): the group's force */
    ld_user_forces_tangent_fn tangents; /* its tangents, NULL: differences */
    int group, ngroup; /* vectorized: its index in the group (consecutive elements), the size */
    /* user-force: LD_DEPENDS_* bits of the bodies w depends on (0: both); the differences
     * perturb those only (the ground never) */
    unsigned depends;
    int line; /* line in the model file (0 if built in code) */
} ld_element;

/* The element types of the registry: their number, the name of type i ("" out of range), the
 * index of a name (−1 if unknown). */
int ld_element_type_count(void);
const char *ld_element_type_name(int type);
int ld_element_type_find(const char *name);

/* ---- shapes (docs/model-format.md, docs/viewer.md) ------------------------------------
 * What a body looks like in the viewer and in VTK output; no effect on the dynamics. A body
 * may have several shapes (the model's list names the body of each); a rigid body without one
 * is drawn as the box of its inertia (the uniform box of the same mass and principal moments).
 * Sizes in m, in the body frame, relative to the centre of mass:
 *   box       size = edge lengths along body x, y, z
 *   sphere    size[0] = radius
 *   cylinder  size[0] = radius, size[1] = length along axis, centred on center
 *   cone      the same; its base at center − axis·length/2, its tip at center + axis·length/2
 *   capsule   size[0] = radius, size[1] = length of the axis between the two half-spheres */
typedef enum ld_shape_kind {
    LD_SHAPE_BOX = 0,
    LD_SHAPE_SPHERE,
    LD_SHAPE_CYLINDER,
    LD_SHAPE_CONE,
    LD_SHAPE_CAPSULE,
    LD_SHAPE_MESH,
    LD_SHAPE_KIND_COUNT
} ld_shape_kind;

#define LD_SHAPES_PER_BODY_MAX 16

typedef struct ld_shape {
    int body; /* index into ld_model.bodies */
    ld_shape_kind kind;
    double size[3];
    double center[3]; /* body frame, relative to the centre of mass */
    double axis[3];   /* unit, body frame (cylinder, cone, capsule); default (0, 0, 1) */
    double color[3];  /* red, green, blue in [0, 1]; all −1: the viewer's choice */
    int line;         /* line in the model file (messages; 0 if built in code) */
    /* Contact (docs/contact.md): 1 when the shape collides (all but cones), with
     * its restitution e ∈ [0, 1] and friction coefficient μ ≥ 0; a pair of shapes takes the
     * larger e and the larger μ of the two. */
    int collide;
    double restitution, friction;
    /* The radius R of the contact patch (m, ≥ 0; 0: a point): friction then also resists the
     * spin about the normal (Coulomb–Contensou, docs/contact.md); a pair takes the larger. */
    double contact_radius;
    /* LD_SHAPE_MESH: the index of its triangles in ld_model.meshes (shared by the shapes that
     * name the same file) and the orientation [w, x, y, z] of the mesh's frame in the body
     * frame (unit). Unused by the other kinds. */
    int mesh;
    double orient[4];
    /* 1: not drawn (viewer, VTK output): a ground shape that only collides — the importers'
     * copy of the colliding shape of a body welded to the ground, which that body draws
     * (YAML `draw: false`). 0 for a body's shapes. */
    int hidden;
} ld_shape;

/* A triangle mesh read from a file (ld_mesh_load): its vertices in the file's frame and
 * units after the file's own node transforms (COLLADA: its <unit meter> applied, its up_axis
 * not, as ROS draws them), and its triangles as vertex indices. One per distinct file in a
 * model; the shapes that draw it carry their own scale and placement. */
#define LD_MESH_PATH_MAX 1024
typedef struct ld_mesh {
    char path[LD_MESH_PATH_MAX]; /* the file as it was opened (messages, sharing) */
    int nverts, ntris;
    float *verts;        /* nverts × 3, owned */
    int *tris;           /* ntris × 3 indices into verts, owned */
    double lo[3], hi[3]; /* the vertices' bounding box */
    int line;            /* line in the model file of the first shape that named it */
} ld_mesh;

/* Read the triangle mesh of a file (STL, OBJ, COLLADA .dae and the other formats of the Open
 * Asset Import Library) into *out: every mesh of the file's scene with its nodes' transforms
 * applied (the root node's rotation left out: COLLADA's up_axis conversion; its scale kept:
 * COLLADA's unit), polygons split into triangles, identical vertices joined. LD_OK; LD_EIO
 * (the file cannot be opened or read, or is not a mesh the library reads) or LD_EINVAL (no
 * triangles, a vertex not finite) with a one-line reason in why; LD_ENOMEM. *out is then
 * empty. */
int ld_mesh_load(const char *path, ld_mesh *out, char *why, size_t cap);
void ld_mesh_free(ld_mesh *m);
/* The solid that the closed, consistently oriented triangle mesh m bounds, its vertices p
 * mapped to A p + b (A 3×3 row-major, NULL: the identity; b NULL: 0): its volume, centre of
 * volume com and inertia tensor J about com at unit density (×ρ for the body's), by the
 * divergence theorem (Mirtich 1996, Eberly 2002; docs/import.md). Triangles facing inwards
 * give the same solid. LD_OK; LD_EINVAL (NULL arguments, fewer than 4 triangles, a vertex
 * index out of range); LD_EDOMAIN (no volume: a flat mesh, a non-finite vertex). An open mesh
 * is not detected: its volume is that of the surface closed across its holes. */
int ld_mesh_mass_props(const ld_mesh *m, const double *A, const double *b, double *volume,
                       double com[3], double J[9]);

/* The ground plane of contact: the half-space n·x ≤ d below the plane through `point` with
 * the unit normal n (pointing out of the ground), with its restitution and friction. */
typedef struct ld_ground_plane {
    int on;
    double normal[3], point[3];
    double restitution, friction;
    int line;
} ld_ground_plane;

/* How contacts act (docs/contact.md): LD_CONTACT_HARD (default), unilateral constraints with
 * Newton's impact law and Coulomb friction, which only `moreau` treats; or
 * LD_CONTACT_HUNT_CROSSLEY, a compliant (penalty) force law — the normal force
 * k δ^p (1 + 3(1 − e)/2 · δ̇/δ̇₀) of Hunt & Crossley (1975) with the damping of Lankarani &
 * Nikravesh (1990), and Coulomb friction regularized below the slip velocity — which every
 * method integrates as a force: the bodies then overlap by δ. */
typedef enum ld_contact_law_kind {
    LD_CONTACT_HARD = 0,
    LD_CONTACT_HUNT_CROSSLEY,
    LD_CONTACT_LAW_COUNT
} ld_contact_law_kind;

typedef struct ld_contact_law {
    ld_contact_law_kind kind;
    double stiffness;     /* k, N/m^p */
    double exponent;      /* p (1.5: Hertz's sphere) */
    double slip_velocity; /* m/s: friction grows linearly to μ f_n up to this slip speed */
    int line;
} ld_contact_law;

/* "box", "sphere", … ("" if unknown) and the kind of a name (−1 if unknown). */
const char *ld_shape_kind_name(ld_shape_kind k);
int ld_shape_kind_find(const char *name);
/* Check one shape against a model of nbodies bodies: LD_OK, or LD_EINVAL with the field at
 * fault ("radius", "size", "axis", "color", "center", "body") in key and the reason in why. */
int ld_shape_check(const ld_shape *s, int nbodies, char *key, size_t keycap, char *why,
                   size_t whycap);

/* A method's parameter given in the integrator block or on the command line. */
#define LD_RUN_MAX_PARAMS 8
typedef struct ld_run_param {
    char key[32]; /* the descriptor's key, e.g. "rho_inf" */
    double value;
} ld_run_param;

/* The integrator block: defaults for the run, overridable on the command line. */
typedef struct ld_run_spec {
    char integrator[LD_NAME_MAX]; /* "genalpha" (default), "newmark", … */
    ld_formulation formulation;   /* default so3xr3 */
    double dt;                    /* > 0 */
    double t_end;                 /* > t_start */
    double t_start;               /* default 0 */
    /* The methods' own parameters set in the block (the keys of their descriptors,
     * ld_method_param: rho_inf, alpha, …), in file order; the others keep the descriptors'
     * defaults. Read them with ld_run_param_get. */
    int nparams;
    ld_run_param params[LD_RUN_MAX_PARAMS];
    double newton_atol, newton_rtol; /* Newton stop, defaults 1e-10, 1e-8 */
    int max_iter;                    /* Newton iterations per step, default 20 */
    int newton_reuse; /* an ld_newton_reuse (ld_integ_options), default LD_REUSE_AUTO */
    int output_every; /* write every k-th step; 0 (default): the tool chooses (docs/cli-run.md) */
    int adaptive;     /* step-size control (tb3, tb3-paper), default 0 */
    double error_atol, error_rtol; /* its local error tolerances, defaults 1e-6, 1e-4 */
    double fac, facmin, facmax;    /* its safety factor and step-ratio bounds, 0.8, 0.2, 5 */
} ld_run_spec;

/* What a run writes (the output block of a model file): rows at fixed times and the default
 * plot. */
#define LD_PLOT_MAX 256
typedef struct ld_output_spec {
    double dt;              /* rows at t_start + j·dt by dense output; 0 (default): by steps */
    char plot[LD_PLOT_MAX]; /* quantities of the default plot, comma-separated; "": automatic */
} ld_output_spec;

/* What assembly did (ld_model_assemble): the bodies placed by their joints, the Newton
 * iterations that closed the joints of the frame form, the largest gap before (the joint's
 * point, m, and its axes' misalignment, rad: each the largest over the joints, with the joint),
 * how far the bodies moved (m) and turned (rad), and the largest joint residual after. */
typedef struct ld_assembly {
    int placed, iterations;
    double gap, misalign;
    int gap_joint, misalign_joint; /* −1: none */
    double moved, turned, residual;
} ld_assembly;

typedef struct ld_model {
    char name[LD_NAME_MAX];
    char source[256];  /* file it was read from ("" if built in code) */
    double gravity[3]; /* spatial, default 0 */
    int nbodies, njoints, nloads;
    ld_body *bodies; /* nbodies: the rigid bodies and the rods' node bodies */
    ld_joint *joints;
    ld_load *loads;
    int nrods;    /* Cosserat rods, their nodes among the bodies */
    ld_rod *rods; /* nrods, owned by the model */
    ld_run_spec run;
    ld_output_spec output;
    int nelements;         /* force elements (docs/elements.md) */
    ld_element *elements;  /* nelements, owned by the model (malloc'ed; NULL when none) */
    int nbeams;            /* beams (docs/beam.md), their free nodes among the bodies */
    ld_beam *beams;        /* nbeams, owned by the model (malloc'ed; NULL when none) */
    int nshapes;           /* shapes of the bodies (viewer and VTK output only) */
    ld_shape *shapes;      /* nshapes, owned by the model (malloc'ed; NULL when none) */
    ld_ground_plane plane; /* the ground's plane of contact (plane.on = 0: none) */
    /* Shapes fixed to the ground (walls, guides, obstacles): body −1, center and axis in the
     * world frame, boxes along the world axes; they collide with the bodies' shapes, not with
     * each other (docs/contact.md). */
    int nground;
    ld_shape *ground; /* nground, owned by the model (malloc'ed; NULL when none) */
    /* Pairs of bodies whose shapes never collide, besides a body's own and two bodies a joint
     * joins (YAML contact_exclude; MJCF <contact><exclude>, MuJoCo's parent–child filter
     * through auxiliary and welded bodies): bodies exclude[2k] and exclude[2k + 1], owned
     * (malloc'ed; NULL when none). */
    int nexclude;
    int *exclude;
    int nmeshes;            /* the triangle meshes of the mesh shapes, one per file */
    ld_mesh *meshes;        /* nmeshes, owned by the model (malloc'ed; NULL when none) */
    ld_contact_law contact; /* how contacts act (kind LD_CONTACT_HARD by default) */
    /* 0 (default): compiling leaves out the joints' rows that depend on the others at the start
     * (ld_model_redundant_rows, docs/constraints.md); 1: every row as written (dependent rows
     * then make the saddle-point matrices singular; ld_model_diagnose names them) */
    int keep_redundant;
    ld_assembly assembly; /* what ld_model_assemble did (the reader calls it) */
} ld_model;

/* Error report of the loader: file, line (1-based, 0 if unknown), the key or item at fault
 * (dotted path such as "bodies[0].inertia"), and the reason. msg holds all of it as one
 * line: "FILE:LINE: KEY: REASON". */
typedef struct ld_model_error {
    char file[256];
    int line;
    char key[128];
    char msg[512];
} ld_model_error;

/* An inertia tensor J (3×3, row-major) from n numbers in the model file's forms: 3 principal
 * moments, 6 = [Ixx, Iyy, Izz, Ixy, Iyz, Ixz], or 9 row-major. LD_OK, or LD_EINVAL for any other
 * n (J untouched). */
int ld_inertia_from_numbers(const double *v, int n, double J[9]);

/* Read a YAML model. On success *out owns its arrays (ld_model_free). On failure returns
 * LD_EIO (cannot read), LD_EINVAL (bad content; err filled in), LD_ENOMEM; *out untouched. */
int ld_model_load(const char *path, ld_model *out, ld_model_error *err);
/* Same, from a string; name is used as the file name in messages. */
int ld_model_parse(const char *text, size_t len, const char *name, ld_model *out,
                   ld_model_error *err);
/* Append one item to m's list `list` ("bodies", "joints" or "elements"), given as the text of
 * that item in a model file (a YAML mapping; JSON is YAML's flow style) and read as the reader
 * reads an item of that list: its keys, defaults, forms and messages (docs/model-format.md); a
 * body's `shape:` too. The whole model is then checked (ld_model_validate); it is not
 * assembled (ld_model_assemble: bodies without a position, joints in the frame form). name is
 * the file name in messages. LD_OK; LD_EINVAL with err (its key such as "joints[2].axis") and
 * m as it was; LD_ENOMEM. */
int ld_model_add_item(ld_model *m, const char *list, const char *text, size_t len, const char *name,
                      ld_model_error *err);
/* Check the physical content (masses, inertia positive definite, unit quaternions, indices,
 * rods (parameters, node ranges, node masses), joint geometry, time functions, run block).
 * LD_OK or LD_EINVAL with err (line 0 when the model was not read from a file). The
 * formulation of the run block is not checked against the rods: compiling refuses. */
int ld_model_validate(const ld_model *m, ld_model_error *err);
/* Does m have contact: a colliding shape or a joint's limits (docs/contact.md)? NULL: 0. */
int ld_model_has_contact(const ld_model *m);
/* Assemble a valid model (docs/model-format.md#assembly): place every unplaced body by its
 * joint of the frame form (coordinates coord, in order from the ground), then close the joints
 * of the frame form by Newton's method on the group from that placement — least squares, each
 * step the smallest motion of the bodies not held (hold), with the held joint coordinates as
 * further equations — and set the bodies' x and q and the joints' spatial at, axis, axis2.
 * m->assembly says what was done. A model without frame-form joints is left as it is.
 * LD_OK; LD_EINVAL with a one-line reason in msg (the body that cannot be placed, or the joint
 * that cannot be closed, with its remaining gap in m or rad) and *item (may be NULL) the body
 * (placement) or joint index, *is_joint which; the model is then unchanged; LD_ENOMEM. */
int ld_model_assemble(ld_model *m, char *msg, size_t n, int *item, int *is_joint);
/* Defaults of every field (no bodies). */
void ld_model_init(ld_model *m);
/* The value of the method parameter key in the run block: the one set, else the default of
 * its descriptor (integrator.h); NaN for a key no method has. */
double ld_run_param_get(const ld_run_spec *r, const char *key);
/* Set the method parameter key (replacing an earlier value): LD_OK, LD_EINVAL for a key no
 * method has, LD_ENOMEM when LD_RUN_MAX_PARAMS are set already. The range is checked by
 * ld_model_validate. */
int ld_run_param_set(ld_run_spec *r, const char *key, double value);
void ld_model_free(ld_model *m);
/* The independent closed loops that the joints form among the bodies and the ground (drivers
 * not counted: they repeat a joint's pair): joints − bodies joined + groups of joined bodies,
 * the cycle rank of the joint graph. 0 for a tree; −1 for a bad model or out of memory. */
int ld_model_loop_count(const ld_model *m);
/* The index of the body (joint) called name, or −1 (also for NULL arguments; unnamed joints
 * cannot be found). Rods' and beams' nodes are bodies named "ROD[i]" / "BEAM[k]". */
int ld_model_body_find(const ld_model *m, const char *name);
/* 1 when the shapes of bodies a and b never collide by contact_exclude (m->exclude), else 0. */
int ld_model_contact_excluded(const ld_model *m, int a, int b);
int ld_model_joint_find(const ld_model *m, const char *name);
/* 1 when the model keeps its total mechanical energy (no loads, no driven joints, no damping
 * in rods, beams or force elements, no user forces), so that a change of energy measures the
 * integrator; else 0 with the first reason in why (n bytes; may be NULL). */
int ld_model_energy_conserved(const ld_model *m, char *why, size_t n);
/* Append a user force between body1 (a body or LD_GROUND) and body2 (a body) to m's elements
 * (m->elements must be NULL or the library's array). tangent may be NULL: the library then
 * differentiates fn by central differences on the group. LD_OK, LD_EINVAL (NULL m or fn, bad
 * bodies, a name too long), LD_ENOMEM. */
int ld_model_add_user_force(ld_model *m, const char *name, int body1, int body2,
                            ld_user_force_fn fn, ld_user_force_tangent_fn tangent, void *user);
/* Append a vectorized user force of n instances, instance i between body1[i] and body2[i], as
 * n consecutive elements named "NAME[i]" (unnamed without a name): every evaluation of the
 * system calls fn once for all of them, and the differences (tangent NULL) perturb all
 * instances together (24 pairs of calls for the group, 12 when no instance depends on a
 * body1 that moves). LD_OK, LD_EINVAL (NULL arguments, n < 1, bad bodies, a name too long),
 * LD_ENOMEM; nothing is added on failure. */
int ld_model_add_user_forces(ld_model *m, const char *name, int n, const int *body1,
                             const int *body2, ld_user_forces_fn fn,
                             ld_user_forces_tangent_fn tangent, void *user);

/* ---- actuators (docs/actuators.md) ------------------------------------------------------
 * An actuator is a force element on one joint (revolute: a torque about its axis; prismatic: a
 * force along it; equal and opposite on the joint's two bodies, positive where it drives the
 * joint's coordinate up, coords.h). Its input c(t) is
 *   LD_ACT_FORCE     value · f(t) (f a time function, or a table read from a CSV file)
 *   LD_ACT_POSITION  a position servo's reference value · f(t), with rate value · f'(t)
 *   LD_ACT_VELOCITY  a velocity servo's reference value · f(t)
 *   LD_ACT_CONTROL   set from outside (ld_sys_set_control, ld_integ_set_controller); a
 *                    servo takes its reference from there too with from_control
 * clamped to ctrl_limits; the actuator force with l = gear θ, l̇ = gear θ̇ (θ, θ̇ the joint's
 * coordinate and rate) is
 *   force, control  u = c
 *   position        u = kp (c − l) + kv (ċ − l̇)   (c − l taken to the nearest turn of the
 *                   joint: gear · wrap(c/gear − θ) into (−π, π], revolute joints)
 *   velocity        u = kv (c − l̇)
 * clamped to force_limits (f), and the joint receives gear · f. */
typedef enum ld_actuator_input {
    LD_ACT_FORCE = 0,
    LD_ACT_POSITION,
    LD_ACT_VELOCITY,
    LD_ACT_CONTROL,
    LD_ACT_INPUT_COUNT
} ld_actuator_input;

typedef struct ld_actuator_spec {
    ld_actuator_input input;
    double value;           /* scale of the time function (force, position, velocity) */
    ld_tfn fn;              /* its time function (tables copied by ld_model_add_actuator) */
    double gear;            /* ≠ 0; default 1 */
    double force_limits[2]; /* lo < hi; ±INFINITY: none */
    double ctrl_limits[2];  /* lo < hi; ±INFINITY: none */
    double kp, kv;          /* servo gains ≥ 0 */
    /* 1: a servo's reference c is the control input (set from outside, ċ = 0) instead of
     * value · f(t) (MJCF's position and velocity actuators) */
    int from_control;
} ld_actuator_spec;

/* The defaults: force input, value 1, constant time function, gear 1, no limits, kp = kv = 0. */
void ld_actuator_spec_init(ld_actuator_spec *a);
/* Append an actuator on joint `joint` (revolute or prismatic) to m's elements (m->elements NULL
 * or the library's array); its bodies are the joint's. LD_OK, LD_EINVAL (NULL arguments, a
 * bad joint index, a name too long), LD_ENOMEM. ld_model_validate checks the rest. */
int ld_model_add_actuator(ld_model *m, const char *name, int joint, const ld_actuator_spec *a);
/* The input kind ("force", "position", "velocity", "control"; "" if unknown) and back (−1). */
const char *ld_actuator_input_name(ld_actuator_input k);
int ld_actuator_input_find(const char *name);

/* Place beam b: fill nnodes, the reference poses, node_body, wlen and eta, and append its free
 * nodes to m's bodies (names "name[k]", lumped masses and inertias, at rest; m->bodies must be
 * NULL or the library's array; it is reallocated). Its order, nelem, reduced, nquad, npoints,
 * points, normal, the section (rho_a, rho_j or the stations) and clamp must be set. LD_OK,
 * LD_EINVAL (order outside 1 … LD_BEAM_ORDER_MAX, nelem < 1, more than 1000001 nodes
 * (elements · order + 1), fewer than 2 or more than LD_BEAM_POINTS_MAX points, two consecutive
 * points equal, normal parallel to a segment, a name too long, a section whose stiffness or
 * mass is not positive definite, stations not from η = 0 ascending to η = 1), LD_ENOMEM. */
int ld_beam_place(ld_model *m, ld_beam *b);
/* The section of beam b at η ∈ [0, 1] (the arc-length fraction): C, ρA, ρJ and ρA ξ, linear
 * between the stations, then turned by the twist there (or the uniform section). Any output may
 * be NULL. */
void ld_beam_section_at(const ld_beam *b, double eta, double C[36], double *rho_a, double rho_j[9],
                        double mxi[3]);
/* Append a copy of beam b (with ld_beam_place done on m) to m->beams (NULL or the library's
 * array); the model then owns b's arrays (b's own pointers are cleared). LD_OK or LD_ENOMEM. */
int ld_model_add_beam(ld_model *m, ld_beam *b);
/* Spread a load per unit length over beam i's free nodes: node k gets a load of `kind`
 * (LD_LOAD_FORCE or LD_LOAD_TORQUE) with vec · w_k (w_k its length share — the lumping of the
 * masses), in `frame` (LD_IN_SPATIAL: a dead load; LD_IN_BODY: a follower load in the node's
 * material frame) with time function fn (tables owned by the model), appended to m->loads.
 * A clamped node's share goes to the support. LD_OK, LD_EINVAL (bad i, kind or frame),
 * LD_ENOMEM. */
int ld_model_add_beam_load(ld_model *m, int i, ld_load_kind kind, ld_frame_kind frame,
                           const double vec[3], const ld_tfn *fn, int line);

LD_END_DECLS

#endif

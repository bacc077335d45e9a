/*
 * liedyn/coords.h — the joints' coordinates and rates: what a joint lets its bodies do, as
 * numbers, from a state of a compiled model (ld_model_compile), in every formulation.
 *
 * Body2 relative to body1 (the ground: R = I, x = 0), counted from the initial configuration
 * (the model's bodies' x and q: every coordinate is 0 at t_start). With R1⁰, R2⁰ the bodies'
 * initial rotations, Gᵢ = Rᵢ Rᵢ⁰ᵀ the rotation of body i since the start and Q = G1ᵀ G2 the
 * relative rotation, vectors are given in body1's frame carried from its initial orientation:
 * the model's axes at t_start (the spatial axes when body1 is the ground). a is the joint's
 * `axis` as the model gives it (spatial at the initial configuration, normalized), d the
 * separation of the joint point's two copies (x2 + R2 p2) − (x1 + R1 p1), p1, p2 the joint
 * point `at` fixed in the bodies at the start:
 *
 *   kind          coordinates (c)   rates (ċ)   column names (output.h)
 *   revolute      θ                 θ̇           angle, angle_rate
 *   cylindrical   θ, s              θ̇, ṡ        angle, slide, angle_rate, slide_rate
 *   prismatic     s                 ṡ           slide, slide_rate
 *   spherical     ρ (3)             w (3)       rx, ry, rz, wx, wy, wz
 *   universal     ρ (3)             w (3)       rx, ry, rz, wx, wy, wz
 *   fixed         none
 *   driver        value · f(t)      value · f′  value, value_rate
 *
 *   θ  the angle of body2 relative to body1 about a, positive by the right-hand rule about a:
 *      the twist of Q about a, 2 atan2(a·vec Q, w Q) with Q in the half w ≥ 0, in (−π, π]
 *      (for a closed joint Q = exp(θ a) and θ = a · log Q). Not unwrapped: the writers of
 *      output.h unwrap it row by row (ld_joint_angle_unwrap);
 *   s  the slide along a: (R1 a₁)·d, a₁ = R1⁰ᵀ a the axis fixed in body1, and ṡ its time
 *      derivative (ω1 × R1 a₁)·d + (R1 a₁)·ḋ;
 *   ρ  the rotation vector of Q (log, |ρ| ≤ π: it jumps where the relative rotation passes a
 *      half turn), w = G1ᵀ (ω2 − ω1) the relative angular velocity (ω spatial), so that
 *      Q̇ = hat(w) Q; w = ρ̇ only while ρ keeps its direction. A universal joint reports the
 *      same (not its two cross angles);
 *   the driver's value · f(t) and value · f′(t) are what it prescribes (its time function at
 *      t), rad or m; the revolute, prismatic or cylindrical joint beside it gives the motion
 *      of the state.
 *
 * Frames and signs are those of docs/model-format.md ("joints[i]") and docs/cli-run.md (the
 * CSV's joint columns). No function here allocates.
 */
#ifndef LIEDYN_COORDS_H
#define LIEDYN_COORDS_H

#include "liedyn/export.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

LD_BEGIN_DECLS

/* The most coordinates (and rates) of any joint. */
#define LD_JOINT_COORDS_MAX 3

/* The number of coordinates of a joint of kind k (as many rates): revolute, prismatic and
 * driver 1, cylindrical 2, spherical and universal 3, fixed 0; 0 for an unknown kind. */
int ld_joint_coords_count(ld_joint_kind k);
/* The name of value i of a joint of kind k, i from 0 to 2n − 1: the n coordinates, then the n
 * rates ("angle", "slide", "rx", …, "angle_rate", "slide_rate", "wx", …; the table above);
 * "" for i or k out of range. */
const char *ld_joint_coord_name(ld_joint_kind k, int i);
/* 1 when value i of a joint of kind k is an angle counted in (−π, π] that a writer unwraps (the
 * angle of a revolute or cylindrical joint), else 0. */
int ld_joint_coord_periodic(ld_joint_kind k, int i);

/* Joint `joint` of the model compiled as s at the state (t, q, v): its coordinates into c and
 * its rates into cdot (LD_JOINT_COORDS_MAX entries each; the first *n filled), *n their number
 * (ld_joint_coords_count of its kind). LD_OK; LD_EINVAL for a NULL or uncompiled s, a bad
 * index, or a NULL q, v, c, cdot or n (outputs untouched); a non-finite state gives non-finite
 * numbers, not an error. */
int ld_model_joint_coords(const ld_system *s, int joint, double t, const double *q, const double *v,
                          double *c, double *cdot, int *n);

/* The angle + 2πk nearest to prev (an unwrapped angle of the row before): the angle continued
 * through ±π. A NaN prev returns the angle itself; a NaN angle returns NaN. Rows more than half
 * a turn apart cannot be told from rows that turned the other way: the result is then off by
 * whole turns. */
double ld_joint_angle_unwrap(double angle, double prev);

/* The joint space of a compiled tree of rigid bodies (no closed loop, no rod or beam): its
 * rates, in this order — per joint in the model's order, its rates (revolute: θ̇; prismatic:
 * ṡ; cylindrical: θ̇, ṡ; spherical: w, 3, as ld_model_joint_coords gives them; universal:
 * 2, the rates about its axis (fixed in body1) and about axis2 (fixed in body2), w·a and
 * w·b; fixed and driver: none) — then per body that is no joint's body2 (a root that floats),
 * 6: its centre of mass's spatial velocity ẋ and its body angular velocity Ω. The number of
 * rates n; −1 for a NULL, uncompiled or unsupported s (loops, rods, beams; the tree formulation,
 * whose velocities are the rates: ld_model_tree_mass_matrix below). */
int ld_model_joint_dofs(const ld_system *s);
/* J (k × n, column-major: column c at J + c·k): the velocities v of s (its formulation's) at
 * configuration (t, q) when rate c is 1 and the others 0 — the solution of B(q) v = 0 with
 * the rates above fixed, so that v = J ċ for every ċ. Allocates scratch (not in a step).
 * LD_OK; LD_EINVAL (NULL arguments), LD_ENOTSUPPORTED (not a tree: ld_model_joint_dofs < 0),
 * LD_ESINGULAR (the joints and rates do not determine v, e.g. a joint at a singular
 * configuration), LD_ENOMEM. */
int ld_model_joint_jacobian(const ld_system *s, double t, const double *q, double *J);
/* The joint-space mass matrix Jᵀ M(q) J (n × n, row-major) with J of ld_model_joint_jacobian
 * and M the system's mass matrix: ½ ċᵀ (Jᵀ M J) ċ is the kinetic energy at rates ċ, in
 * every formulation. The status codes of ld_model_joint_jacobian. */
int ld_model_joint_mass_matrix(const ld_system *s, double t, const double *q, double *Mj);

/* The tree formulation (LD_FORM_TREE, docs/tree.md) at a configuration q, in the system's
 * coordinates (n = s->k: each floating root's (Ω, ẋ), then the revolute and prismatic joints in
 * the model's order): the
 * joint-space mass matrix H(q) by the composite-rigid-body algorithm (n × n, row-major), and
 * the generalized bias c(t, q, v) = C(q, v) q̇ terms + gravity − τ (τ the joints' springs and
 * dampers) by recursive Newton–Euler, so that the motion is H q̈ + c = 0. No allocation. LD_OK;
 * LD_EINVAL for NULL arguments or a system not compiled in the tree formulation. */
int ld_model_tree_mass_matrix(const ld_system *s, const double *q, double *H);
int ld_model_tree_bias(const ld_system *s, double t, const double *q, const double *v, double *c);

LD_END_DECLS

#endif /* LIEDYN_COORDS_H */

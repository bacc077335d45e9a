/*
 * liedyn/system.h — constrained second-order systems on a product Lie group.
 *
 *   M(q) v̇ + g(t, q, v) + Bᵀ(q) λ = 0,    Φ(t, q) = 0,
 *
 * q on G = G₁ × … × G_N (one node per body or rod node), v ∈ R^k the velocity in the
 * right-trivialized sense (q̇ = q ∘ v̂ node by node), λ ∈ R^m, B = ∂Φ/∂q along the group:
 * Φ(q ∘ exp(ε δ)) = Φ(q) + ε B δ + O(ε²).
 *
 * Node kinds and their storage / tangent sizes (elements as in lie.h):
 *   RN      Rⁿ          n / n        (q = x, v = ẋ)
 *   R3      R³          3 / 3
 *   SO3XR3  R³×SO(3)    12 / 6       (R, x), v = (Ω, ẋ)
 *   SE3     SE(3)       12 / 6       (R, x), v = (Ω, Rᵀẋ)
 *   S3XR3   S³×R³       7 / 6        (q, x), v = (Ω, ẋ)
 *   S3SDR3  S³⋉R³       7 / 6        (q, x), v = (Ω, Rᵀẋ)
 *   R3E4    R³×R⁴       7 / 7        (x, e), v = (ẋ, ė): Euler parameters e as plain
 *                                    coordinates (a vector space: q̇ = v, increments add);
 *                                    the model keeps |e| = 1 as a constraint
 *   SO3XR3_SPATIAL, S3XR3_SPATIAL   storage of SO3XR3, S3XR3, v = (ω, ẋ) with ω = RΩ spatial:
 *                                    the opposite group (a ∘' b = b ∘ a), so that q ∘' exp(ξ) =
 *                                    exp(ξ) ∘ q, T'(ξ) = T(−ξ) (the left Jacobian), bracket −[x, y]
 *   SO3     SO(3)       9 / 3        R, v = Ω: a rotation only (a pinned body, model.h)
 *   S3      S³          4 / 3        q, v = Ω: the same as a unit quaternion
 * Increments compose on the right: q ∘ exp(ξ) node by node (docs/conventions.md); in the
 * *_SPATIAL kinds this right composition is that of the opposite group, a left one in G. Inside the
 * library the kinds are one table of descriptors (src/sys/nodes.c), one entry per kind.
 *
 * Matrices are dense row-major. The callbacks return 0, > 0 (recoverable: the integrator
 * rejects the step and retries smaller) or < 0 (fatal). Optional callbacks may be NULL; then
 * the library uses central differences on the group (ld_sys_* below), so analytic tangents
 * are an optimization that the test suite checks against the differences.
 *
 * NULL: the functions with a status return LD_EINVAL for a NULL system or array they need;
 * the void helpers (retract, tangent, bracket, normalize) require valid pointers (not
 * checked), as the functions of lie.h do.
 */
#ifndef LIEDYN_SYSTEM_H
#define LIEDYN_SYSTEM_H

#include <stddef.h>

#include "liedyn/export.h"
#include "liedyn/model.h"

LD_BEGIN_DECLS

typedef enum ld_node_kind {
    LD_NODE_RN = 0,
    LD_NODE_R3,
    LD_NODE_SO3XR3,
    LD_NODE_SE3,
    LD_NODE_S3XR3,
    LD_NODE_S3SDR3,
    LD_NODE_R3E4,
    LD_NODE_SO3XR3_SPATIAL,
    LD_NODE_S3XR3_SPATIAL,
    LD_NODE_SO3,       /* rotation only (a pinned node: its position eliminated) */
    LD_NODE_S3,        /* rotation only, as a unit quaternion */
    LD_NODE_KIND_COUNT /* the number of kinds, not a kind */
} ld_node_kind;

typedef struct ld_node {
    ld_node_kind kind;
    int n;    /* RN only: dimension */
    int qoff; /* offset in q (filled by ld_sys_layout) */
    int voff; /* offset in v */
} ld_node;

typedef struct ld_system ld_system;

/* What one Newton iteration evaluates, for ld_system_ops.eval_newton: the arguments, and the
 * outputs, each NULL when not wanted. Every output equals what the separate callback gives at
 * the same arguments (the compiled models: the same sums in the same order, so bit for bit):
 *   M       ops.mass(q)                      g   ops.force(t, q, v)
 *   Phi     ops.phi(t, q)                    B   ops.phi_q(t, q)
 *   C       ops.g_v(t, q, v)                 K   ops.stiffness(t, q, v, a, lambda)
 *   Mb      ops.mass_blocks(q)               Bv  ops.phi_q_sparse(t, q)
 *   tv      ops.tangent_blocks(t, q, v, a, lambda, cm, cc, ck, Tb) */
typedef struct ld_newton_eval {
    double t;
    const double *q, *v, *a, *lambda;
    double *M, *g, *Phi, *B, *C, *K;
    double *Mb, *Bv, *tv;
    double cm, cc, ck;
    const double *Tb;
} ld_newton_eval;

typedef struct ld_system_ops {
    /* M(q): k×k. */
    int (*mass)(const ld_system *s, const double *q, double *M);
    /* g(t, q, v): k. */
    int (*force)(const ld_system *s, double t, const double *q, const double *v, double *g);
    /* Φ(t, q): m. */
    int (*phi)(const ld_system *s, double t, const double *q, double *Phi);
    /* B(q) = ∂Φ/∂q along the group: m×k. */
    int (*phi_q)(const ld_system *s, double t, const double *q, double *B);
    /* Optional: ∂g/∂v (k×k). */
    int (*g_v)(const ld_system *s, double t, const double *q, const double *v, double *C);
    /* Optional: K = ∂/∂q [M(q) a + g(t, q, v) + B(q)ᵀ λ] along the group (k×k), at fixed
     * a, v, λ. */
    int (*stiffness)(const ld_system *s, double t, const double *q, const double *v,
                     const double *a, const double *lambda, double *K);
    /* Optional: z = d/dt[B(q(t))] v + ∂²Φ/∂t² with q̇ = q ∘ v̂ (m): the part of Φ̈ not
     * multiplying v̇, so that Φ̈ = B v̇ + z. */
    int (*phi_dd)(const ld_system *s, double t, const double *q, const double *v, double *z);
    /* Optional: total mechanical energy (kinetic + potential). */
    int (*energy)(const ld_system *s, double t, const double *q, const double *v, double *e);
    /* Optional structure for large systems (both or neither; the half-explicit methods use
     * them with the sparse solver, so that a step costs O(k + m) instead of O(k²)):
     * mass_blocks: M is block diagonal by node; the nodes' blocks (voff order, each nv×nv
     * row-major, Σ nv² entries) one after the other.
     * phi_q_sparse: the values of B in the fixed pattern s->brow/s->bcol (s->bnnz entries). */
    int (*mass_blocks)(const ld_system *s, const double *q, double *Mb);
    int (*phi_q_sparse)(const ld_system *s, double t, const double *q, double *vals);
    /* Optional: ∂Φ/∂t (m), for the velocity constraint B v + Φ_t = 0 of the index-2
     * formulation; when absent the half-explicit methods take a central difference in t. */
    int (*phi_t)(const ld_system *s, double t, const double *q, double *Phit);
    /* Optional, with mass_blocks and phi_q_sparse (the Newton methods then assemble their
     * iteration matrix for the sparse solver without any k×k array): the values, in the block
     * pattern s->nblk/blk_row/blk_col/blk_off, of cm M + cc ∂g/∂v + ck K T, with K the
     * stiffness at (a, λ) as in ops.stiffness and T = T(ξ) given by its node blocks Tb (the
     * layout of mass_blocks: each node's nv×nv block, row-major, in node order). */
    int (*tangent_blocks)(const ld_system *s, double t, const double *q, const double *v,
                          const double *a, const double *lambda, double cm, double cc, double ck,
                          const double *Tb, double *vals);
    /* Optional: drop what the system keeps of its callbacks' results (ld_sys_forget). */
    void (*forget)(const ld_system *s);
    /* Optional: the outputs of ld_newton_eval that are not NULL, in one pass over the model
     * (each joint's and body's kinematics evaluated once for all of them). Nothing is kept
     * between calls. The Newton methods use it when present (the separate callbacks otherwise;
     * both are required even so). Whoever replaces another callback of a system that has it
     * (a wrapper, a substitute for a test) replaces or clears this one too. */
    int (*eval_newton)(const ld_system *s, const ld_newton_eval *e);
} ld_system_ops;

struct ld_system {
    int nnodes;
    ld_node *nodes; /* nnodes, owned by whoever built the system */
    int nq, k, m;   /* storage size of q, dimension of v, number of constraints */
    ld_system_ops ops;
    void *user; /* model data for the callbacks */
    /* Sparsity pattern of B for ops.phi_q_sparse: entry e at row brow[e], column bcol[e],
     * sorted by row then column, no duplicates; owned by whoever built the system. Every
     * entry that can be nonzero for some q is in the pattern. */
    int bnnz;
    int *brow, *bcol;
    /* Pairs of nodes coupled by forces (force elements): node pair[2i] and pair[2i+1]. Sparse
     * iteration matrices keep their blocks even where a tangent happens to vanish when the
     * pattern is fixed. Owned by whoever built the system; npairs 0 and pair NULL: none. */
    int npairs;
    int *pair;
    /* Block pattern of the tangents for ops.tangent_blocks: block b couples the rows of node
     * blk_row[b] with the columns of node blk_col[b] (sorted by column, then row; no
     * duplicates; every diagonal block present), its values (nv_row × nv_col, row-major) at
     * blk_off[b] … blk_off[b + 1] − 1. Owned by whoever built the system; nblk 0: none. */
    int nblk;
    int *blk_row, *blk_col;
    size_t *blk_off;
    /* M does not depend on q (the Lie-group formulations' body blocks diag(J, m I)): the
     * integrators may evaluate ops.mass (mass_blocks) once and keep it. 0: evaluate it anew. */
    int mass_const;
    /* The zeros of the tangent blocks and of B at one generic state (random configuration,
     * velocities, accelerations and multipliers) are zeros at every state, and evaluating them
     * there calls nothing of the user's: ld_sys_probe_pattern may find them. 0: the block
     * pattern is kept whole. */
    int pattern_generic;
    /* Optional, with pattern_generic: one flag per value of [tangent blocks (blk_off) | B T
     * (bnnz) | Bᵀ (bnnz)], 0 where the value vanishes at every state (ld_sys_probe_pattern);
     * the Newton methods leave those out of their sparse pattern. NULL: all are kept. Owned by
     * the system (ld_sys_probe_pattern allocates it, ld_sys_free_work frees it). */
    unsigned char *pattern_keep;
    double *work; /* vector scratch for the finite-difference fallbacks (ld_sys_alloc_work) */
    size_t nwork;
    struct ld_sys_fd *fd; /* their dense scratch (k×k, m×k), only once reserved (below) */
};

/* Fill qoff/voff of the nodes and nq, k. LD_EINVAL for a bad node. */
int ld_sys_layout(ld_system *s);
/* Allocate the vector scratch of the finite-difference fallbacks, O(nq + k + m) (once). The
 * dense scratch of the fallbacks that need one — the stiffness (k×k and m×k) and φ̈ (m×k) — is
 * separate: ld_sys_reserve_fd allocates it; the integrators reserve it at creation for the
 * tangents the system lacks, so that their steps never allocate, and a *_fd function called
 * directly reserves what it needs on first use. A system with analytic tangents never holds a
 * k×k array. */
int ld_sys_alloc_work(ld_system *s);
/* Frees the vector and the dense scratch. */
void ld_sys_free_work(ld_system *s);
#define LD_SYS_FD_STIFFNESS 1u /* ld_sys_stiffness_fd: M (k×k) and B (m×k) */
#define LD_SYS_FD_PHI_DD    2u /* ld_sys_phi_dd_fd: B (m×k) */
/* The finite-difference tangents the system does not provide analytically (flags above). */
unsigned ld_sys_fd_missing(const ld_system *s);
/* Doubles of dense scratch that the fallbacks in `what` need (0 for none or NULL s). */
size_t ld_sys_fd_doubles(const ld_system *s, unsigned what);
/* Make the dense scratch hold at least ld_sys_fd_doubles(s, what) (keeps a larger one). LD_OK,
 * LD_EINVAL (NULL s or no ld_sys_alloc_work), LD_ENOMEM. Through a const system: the scratch is
 * not part of the system's value. */
int ld_sys_reserve_fd(const ld_system *s, unsigned what);
/* The system provides mass_blocks and phi_q_sparse with a valid pattern (rows in [0, m),
 * columns in [0, k), sorted by row then column, no duplicates): the sparse paths apply. */
int ld_sys_has_sparse(const ld_system *s);
/* Σ nv² over the nodes: the entries of the mass blocks (0 for NULL). */
size_t ld_sys_mass_block_entries(const ld_system *s);
/* The system provides tangent_blocks with a valid block pattern (nodes in range, sorted by
 * column then row, no duplicates, every diagonal block, offsets consistent) besides the sparse
 * structure of ld_sys_has_sparse: the Newton methods' structured sparse path applies. */
int ld_sys_has_blocks(const ld_system *s);

/* pattern_keep from two random states near (q, v) at time t: each state a configuration
 * q ∘ exp(ξ) with |ξ_i| ≤ 1/2, random velocities, accelerations, multipliers, T(ξ') blocks and
 * weights (a fixed sequence: the same flags on every call); a value is kept when it is not zero
 * at either state, and each node's diagonal always. Only for a system with pattern_generic and
 * ld_sys_has_blocks (else pattern_keep stays NULL); a failed evaluation leaves it NULL too.
 * LD_OK or LD_ENOMEM; an earlier pattern_keep is replaced. */
int ld_sys_probe_pattern(ld_system *s, double t, const double *q, const double *v);

/* Drop the results of user callbacks that the system keeps between its evaluations (the user
 * forces' values at a time and state, reused while both stay the same): for callbacks whose
 * results change between calls at the same state. ld_integ_init, ld_integ_restart and
 * ld_linearize call it. Through a const system: the cache is not part of its value. */
void ld_sys_forget(const ld_system *s);

/* qn = q ∘ exp(ξ) node by node (qn may not alias q). */
void ld_sys_retract(const ld_system *s, double *qn, const double *q, const double *xi);
/* T(ξ) (k×k, block diagonal): the right Jacobian of exp, node by node. */
void ld_sys_tangent(const ld_system *s, double *T, const double *xi);
/* r = [x, y] node by node: the Lie bracket of the algebra, in the convention of the
 * right-trivialized velocities (the matrix commutator of the hats). Rotation parts
 * x_ω × y_ω; the translations of SE3/S3SDR3 x_ω × y_u − y_ω × x_u; R³ of the direct
 * products, RN, R3 and R3E4: 0; the *_SPATIAL kinds: −[x, y] (the opposite group). r may not
 * alias x or y. */
void ld_sys_bracket(const ld_system *s, double *r, const double *x, const double *y);
/* Renormalize quaternions and Euler parameters / reorthogonalize rotations in q (for long
 * runs). */
void ld_sys_normalize(const ld_system *s, double *q);
/* The total mechanical energy (kinetic + potential) at (t, q, v); NaN when the system has none
 * or it cannot be evaluated (or NULL arguments). */
double ld_sys_energy(const ld_system *s, double t, const double *q, const double *v);
/* max |Φ(t, q)| over the constraint rows: 0 without constraints, NaN when Φ cannot be
 * evaluated. work holds m doubles (Φ on return); *row (may be NULL) receives the row of the
 * largest entry (−1: none; name it with ld_model_row_name). */
double ld_sys_phi_max(const ld_system *s, double t, const double *q, double *work, int *row);
/* Dense output: the state at t_a + θh, θ ∈ [0, 1], between two step ends (q_a, v_a) at t_a and
 * (q_b, v_b) at t_a + h. Node by node q = q_a ∘ exp(ξ(θ)), ξ the cubic Hermite polynomial in the
 * Lie algebra that matches both states and both velocities (ξ(1) = log(q_a⁻¹ ∘ q_b), so a node
 * may turn by less than a half turn in one step); v = T(ξ) ξ̇. Third order: O(h⁴) in q, O(h³) in
 * v for a smooth motion; exact at θ = 0 and 1 up to round-off. Vector-space nodes interpolate
 * their coordinates (Euler parameters then renormalized). LD_OK, or LD_EINVAL (NULL, h not
 * positive and finite, θ outside [0, 1]). q, v may not alias the inputs. No allocation. */
int ld_sys_interpolate(const ld_system *s, const double *qa, const double *va, const double *qb,
                       const double *vb, double h, double theta, double *q, double *v);

/* The tangent matrices, analytic when the system provides them, otherwise by central
 * differences on the group (step 1e-6 relative). */
int ld_sys_g_v(const ld_system *s, double t, const double *q, const double *v, double *C);
int ld_sys_stiffness(const ld_system *s, double t, const double *q, const double *v,
                     const double *a, const double *lambda, double *K);
int ld_sys_phi_dd(const ld_system *s, double t, const double *q, const double *v, double *z);
/* The same by finite differences only (for tests of the analytic versions). */
int ld_sys_g_v_fd(const ld_system *s, double t, const double *q, const double *v, double *C);
int ld_sys_stiffness_fd(const ld_system *s, double t, const double *q, const double *v,
                        const double *a, const double *lambda, double *K);
int ld_sys_phi_q_fd(const ld_system *s, double t, const double *q, double *B);
int ld_sys_phi_dd_fd(const ld_system *s, double t, const double *q, const double *v, double *z);

/* Consistent initial accelerations and multipliers: solve
 *   [M Bᵀ; B 0] [v̇; λ] = [−g; −z].
 * With sparse structure (ld_sys_has_sparse) and ld_la_choose picking KLU for the saddle matrix
 * (Σ nv² + 2·bnnz entries), the matrix is assembled from mass_blocks and phi_q_sparse and
 * factored by KLU: memory O(k + m + nnz). Otherwise it is dense: 8((k + m)² + k² + mk) bytes.
 * LD_OK; LD_EDOMAIN for a non-finite M, B, g, z or result; LD_ESINGULAR; LD_ENOMEM; LD_EINVAL
 * (NULL or an incomplete system); a callback's status. Outputs untouched on failure. */
int ld_sys_initial_accel(const ld_system *s, double t, const double *q, const double *v,
                         double *vdot, double *lambda);
/* The same with a one-line reason in msg (cap bytes; may be NULL) on failure: "non-finite
 * generalized force g(t, q, v) (entry 3 is inf)", "out of memory: N bytes for …", "singular
 * matrix …". */
int ld_sys_initial_accel_msg(const ld_system *s, double t, const double *q, const double *v,
                             double *vdot, double *lambda, char *msg, size_t cap);

/* ---------------------------------------------------------------- rigid-body models */

/* Compile a model into a system in the given formulation: one node per body (kind from the
 * formulation; a rod's nodes are bodies), gravity, loads, joints, the rods' segment forces and
 * Kirchhoff rows (after the joints' rows). q0, v0 receive the initial state (nq, k), allocated with
 * malloc: the caller frees them. The system keeps a pointer to the model, which must outlive it.
 * ld_model_system_free releases what compile allocated. The Lie-group formulations also provide
 * mass_blocks and phi_q_sparse (pattern built here); the euler formulation does not, and refuses a
 * model with rods (LD_ENOTSUPPORTED). Compiling first checks the model with ld_model_validate (its
 * run block with the defaults: compiling uses run.t_start only), so that a model built in code is
 * refused (LD_EINVAL) like a bad file; ld_model_check_initial gives the validator's message. */
int ld_model_compile(const ld_model *m, ld_formulation f, ld_system *s, double **q0, double **v0);
/* The same, with a one-line reason in msg (n bytes; may be NULL) when it fails: which joint is
 * not closed, why the formulation cannot hold the model ("rods need a Lie-group formulation
 * …"), "out of memory: N bytes for WHAT", or the status's ld_strerror text when there is
 * nothing more to say. */
int ld_model_compile_msg(const ld_model *m, ld_formulation f, ld_system *s, double **q0,
                         double **v0, char *msg, size_t n);
void ld_model_system_free(ld_system *s);
/* Why no consistent initial accelerations exist at (t, q) for a system compiled by
 * ld_model_compile (call it when ld_sys_initial_accel or an integrator's init fails):
 *  - redundant or conflicting constraints: the rows of B(t, q), each scaled to unit length,
 *    are linearly dependent (QR with column pivoting of Bᵀ, rank tolerance 1e-10 relative).
 *    The message names the joints (rods, bodies) involved with their lines in the model file
 *    and the dependent rows of the first joint whose rows depend on earlier ones, numbered
 *    from 1 in the order of its equations (model.h), e.g. "joints 'a' (line 12) and 'b'
 *    (line 17) constrain the same motion: constraint rows 1..3 of 'b' depend on the others
 *    (the constraint Jacobian has rank 3 for 6 rows)";
 *  - a mass matrix singular to working precision: the bodies' masses and principal moments
 *    span more than 1e12; the message names the bodies at both ends.
 * LD_ESINGULAR with the reason in msg (n bytes; may be NULL), LD_OK (msg empty) when neither
 * is found, LD_ENOTSUPPORTED when B has more than 4·10⁶ entries in the columns it touches and,
 * with rods, so have the joints' rows alone, which are examined instead otherwise (not
 * examined; msg says so), LD_EINVAL, LD_ENOMEM. Memory: O(rows · columns touched) ≤ 4·10⁶
 * doubles; time: O(log m) dense QR factorizations of that size. */
int ld_model_diagnose(const ld_system *s, double t, const double *q, char *msg, size_t n);
/* The owner of constraint row `row` (0-based) of a compiled model, as text: "joint 'pivot'
 * (line 21), row 2 of 3", "rod 'r' (line 4), Kirchhoff row 7 of 16", "body 'top' (line 9),
 * unit norm of the Euler parameters". LD_OK, or LD_EINVAL (no compiled model, row out of
 * range; buf then ""). */
int ld_model_row_name(const ld_system *s, int row, char *buf, size_t cap);
/* The joints' constraint rows that compiling left out because they depend on the others at the
 * initial configuration (a planar loop of revolute joints, an overconstrained mechanism;
 * docs/constraints.md): their number (0 for NULL or a system not compiled from a model); with
 * joint and row not NULL the first cap of them, each as the joint's index in the model and the
 * row of its equations (0-based, in the order of model.h), in row order. The integrators never
 * see these rows: their multipliers, and so their share of the joint reactions, are 0. */
int ld_model_redundant_rows(const ld_system *s, int *joint, int *row, int cap);
/* max |Φ| over every joint equation of the model as written, the rows left out as redundant
 * included (ld_sys_phi_max sees the system's rows only); *joint (may be NULL) receives the
 * joint of the largest entry (−1: none). 0 without joints, NaN when it cannot be evaluated.
 * Allocates O(rows) scratch: for checks outside the steps. */
double ld_model_joint_phi_max(const ld_system *s, double t, const double *q, int *joint);
/* The initial state is consistent: every joint closed (to 1e-9 relative) and every given
 * velocity of a jointed body equal to the joint's (to 1e-6 relative); every Kirchhoff
 * constraint of the rods satisfied, in position (to 1e-9 relative to max(1, ds)) and velocity
 * (to 1e-6 relative). LD_OK, or LD_EINVAL with a one-line reason in msg (n bytes; may be
 * NULL), or LD_ENOMEM with "out of memory: N bytes for WHAT". ld_model_compile refuses a model
 * that fails this check. */
int ld_model_check_initial(const ld_model *m, char *msg, size_t n);
/* Per body, from a state of a compiled system: centre of mass x (spatial), quaternion q,
 * body angular velocity Ω, centre-of-mass velocity v (spatial). LD_EINVAL for a NULL or
 * uncompiled s or a bad index; q, v and the outputs must not be NULL. */
int ld_model_body_state(const ld_system *s, int body, const double *q, const double *v, double x[3],
                        double quat[4], double omega[3], double xdot[3]);
/* Per body, from a state (q, v) and its accelerations v̇ (ld_sys_initial_accel, ld_integ_vdot):
 * the body angular acceleration dw = Ω̇ (the time derivative of ld_model_body_state's omega:
 * the angular acceleration's components in the body frame) and the centre of mass's
 * acceleration a = ẍ (spatial), in every formulation. LD_EINVAL for a NULL or uncompiled s,
 * NULL arrays or a bad index. */
int ld_model_body_accel(const ld_system *s, int body, const double *q, const double *v,
                        const double *vdot, double dw[3], double a[3]);
/* Force and torque (spatial frame; the torque about the body's centre of mass) that joint j
 * exerts on its second body, from the multipliers λ of the state (the generalized
 * constraint force −B_jᵀλ_j on that body). LD_EINVAL for a bad index or a NULL s, q or
 * lambda; f and tau must not be NULL. */
int ld_model_joint_reaction(const ld_system *s, int joint, const double *q, const double *lambda,
                            double f[3], double tau[3]);
/* The same at the state (t, q, v) with its multipliers λ, in every formulation: the tree
 * formulation has no multipliers (lambda may be NULL there; ld_model_joint_reaction gives NaN),
 * and its reactions come from the accelerations of the state — each body's rate of momentum
 * less its weight, summed beyond the joint, less the joint's springs and dampers
 * (docs/tree.md). The status codes of ld_model_joint_reaction, or a status of the force. */
int ld_model_joint_reaction_at(const ld_system *s, int joint, double t, const double *q,
                               const double *v, const double *lambda, double f[3], double tau[3]);
/* The power P of the model's loads (forces and torques at the bodies' centres of mass, the
 * prescribed torques; not gravity, which is in the potential energy) and of its drivers
 * (λᵀ ∂Φ/∂t, the work of the constraint forces of prescribed motion) at the state
 * (t, q, v, λ): dW/dt in the energy balance T + V − E₀ − W = 0 of a model without dampers
 * (docs/cli-run.md). lambda may be NULL (no drivers' power); work: s->m doubles of scratch
 * when lambda is given. No allocation. LD_EINVAL for NULL arguments. */
int ld_model_power(const ld_system *s, double t, const double *q, const double *v,
                   const double *lambda, double *work, double *P);
/* The exact orientation of body `body` at time t if the model prescribes it (an exact_torque
 * load): LD_OK and quat filled, or LD_ENOTSUPPORTED (also for a NULL m); quat must not be
 * NULL. */
int ld_model_exact_rotation(const ld_model *m, int body, double t, double quat[4]);
/* Do the bodies with a prescribed rotation (exact_torque loads) start on it at run.t_start:
 * orientation within 1e-9 rad, angular velocity within 1e-9 relative? Returns the number of
 * such loads whose body does not (0: all do; the angle error of a run then measures the
 * integrator), with the first one described in msg (n bytes; may be NULL), e.g. "body 'body'
 * (line 4) starts 2.14 rad away from the rotation that its exact_torque load (case ii)
 * prescribes at t = 0, …"; LD_EINVAL for a bad model. */
int ld_model_check_exact(const ld_model *m, char *msg, size_t n);

LD_END_DECLS

#endif

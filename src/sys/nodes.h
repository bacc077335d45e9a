/*
 * Internal: the node kinds of the system interface (system.h) as one table of descriptors,
 * one entry per value of ld_node_kind (nodes.c). Everything that depends on the kind of a
 * node — its sizes, the retraction q ∘ exp(ξ), the tangent operator T(ξ) and its inverse, the
 * bracket, the normalization of a stored element, the Euler-parameter operations of HHT —
 * reads this table instead of switching over the kinds.
 *
 * A node's slice of q holds nq doubles, of v (and of every tangent vector) nv doubles; the
 * group elements and tangent vectors are those of lie.h, rotation first. Vector-space kinds
 * (flat) compose by addition: q ∘ exp(ξ) = q + ξ, T = T⁻¹ = I, brackets vanish; their group
 * hooks are NULL and the ld_node_* functions below do the vector-space operation.
 *
 * Adding a node kind: a value of ld_node_kind before LD_NODE_KIND_COUNT (system.h), one line
 * of the table in nodes.c with its functions (lie.h), and the kind's storage in system.h's
 * comment. tests/test_nodes.c checks every entry.
 */
#ifndef LIEDYN_SRC_SYS_NODES_H
#define LIEDYN_SRC_SYS_NODES_H

#include <stddef.h>

#include "liedyn/system.h"

/* Largest storage and tangent size of a kind that is not flat (local buffers of exp, T). */
#define LD_NODE_GROUP_MAX_NQ 12
#define LD_NODE_GROUP_MAX_NV 6

/* Euler parameters e (4 plain coordinates, not assumed unit) inside a node, and the kernels of
 * Sherif et al. 2019 (src/lie/ep.h) that the modified HHT velocity (eq. 34) and its Jacobian
 * (eq. 69) use. Row-major; outputs never alias inputs. */
typedef struct ld_node_ep {
    int off; /* offset of e in the node's slice of q and of v */
    /* L(e) of eq. 4 (3×4). */
    void (*L)(double L[12], const double e[4]);
    /* y = L(e) x. */
    void (*Lmul)(double y[3], const double e[4], const double x[4]);
    /* y = L(e)ᵀ w. */
    void (*Ltmul)(double y[4], const double e[4], const double w[3]);
    /* ŵ of eq. 70: L(e)ᵀ w = ŵ e (4×4). */
    void (*what)(double W[16], const double w[3]);
    /* The modified velocity of eq. 34: ė = L(e)ᵀ w + hg (ë − e (eᵀë)), with
     * w = L(e_n)(ė_n + h(1 − γ) ë_n) (Lmul), e and ë those of t_{n+1}, hg = hγ. */
    void (*modified_velocity)(double ed[4], const double e[4], const double edd[4],
                              const double w[3], double hg);
    /* D = J₁ − hg I with J₁ = ∂ė/∂ë of eq. 69 when e moves as hb ë (hb = h²β):
     * D = hb ŵ − hg e eᵀ − hg hb (e ëᵀ + (eᵀë) I). */
    void (*modified_jacobian)(double D[16], const double e[4], const double edd[4],
                              const double w[3], double hb, double hg);
} ld_node_ep;

/* One node kind. Group hooks take the slices of one node: g, a, b elements (nq), xi, x, y
 * tangent vectors (nv), T nv×nv row-major; outputs may not alias inputs. */
typedef struct ld_node_kind_info {
    ld_node_kind kind;
    const char *name;  /* the kind in lower case, as the formulations spell it: "so3xr3" */
    const char *group; /* the group, as system.h writes it: "R³×SO(3)" */
    int nq, nv;        /* storage and tangent size; 0 for Rⁿ (from ld_node.n) */
    int flat;          /* a vector space (the group hooks are NULL) */
    /* Groups (flat = 0): lie.h's maps of the group. */
    void (*exp)(double *g, const double *xi);
    void (*log)(double *xi, const double *g);
    void (*compose)(double *g, const double *a, const double *b);
    void (*inverse)(double *g, const double *a);
    void (*tangent)(double *T, const double *xi);      /* T(ξ), the right Jacobian of exp */
    void (*tangent_inv)(double *Ti, const double *xi); /* T⁻¹(ξ) */
    void (*bracket)(double *r, const double *x, const double *y); /* [x, y] as in system.h */
    /* Projection of a stored element onto the group (rotation matrix reorthogonalized,
     * quaternion or Euler parameters to unit norm) in place; NULL: nothing to project. */
    void (*normalize)(double *q);
    const ld_node_ep *ep; /* Euler parameters: their operations; NULL for other kinds */
} ld_node_kind_info;

/* The descriptor of kind k; NULL for a value that is not a kind. */
const ld_node_kind_info *ld_node_kind_get(ld_node_kind k);
/* Number of kinds in the table (LD_NODE_KIND_COUNT). */
int ld_node_kind_count(void);

/* Storage and tangent size of a node: LD_OK, or LD_EINVAL (outputs untouched) for a NULL
 * node, a kind without a table entry or an Rⁿ node with n < 1. */
int ld_node_sizes(const ld_node *nd, int *nq, int *nv);
/* Tangent size of a node, 0 for an invalid one. */
int ld_node_nv(const ld_node *nd);

/* Is the node a direct product R³ × SO(3) or S³ × R³ (either frame), whose T(ξ) is
 * diag(T_rot(3×3), I₃) with the rotation first? */
int ld_node_direct_product(const ld_node *nd);

/* The operations on one valid node (not checked); arrays are the node's slices, e.g.
 * q + nd->qoff and xi + nd->voff. */
/* r = q ∘ exp(ξ) (r may not alias q). */
void ld_node_retract(const ld_node *nd, double *r, const double *q, const double *xi);
/* The nv×nv block T(ξ) at T, rows ld apart (every entry written). */
void ld_node_tangent(const ld_node *nd, double *T, size_t ld, const double *xi);
/* For the direct products R³ × SO(3) and S³ × R³ (either frame), whose T(ξ) is
 * diag(T_rot, I₃): 1 and the 3×3 T_rot (row-major) at T, the same values as ld_node_tangent's
 * block; 0 for every other kind (T untouched). */
int ld_node_tangent_rotation(const ld_node *nd, double T[9], const double *xi);
/* The same for T⁻¹(ξ). */
void ld_node_tangent_inv(const ld_node *nd, double *Ti, size_t ld, const double *xi);
/* r = [x, y] (r may not alias x or y). */
void ld_node_bracket(const ld_node *nd, double *r, const double *x, const double *y);
/* The kind's normalize, if any, on q. */
void ld_node_normalize(const ld_node *nd, double *q);

#endif

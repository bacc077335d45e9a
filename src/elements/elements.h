/*
 * Internal to src/model: the registry of force elements (elements.c, docs/elements.md).
 *
 * An element type is a descriptor: its name (the YAML `type`), the bodies it touches, its YAML
 * reader, its physical checks and one evaluator of its contributions. The evaluator works in
 * one set of coordinates for every formulation, the canonical ones: per body the rotation R
 * (body → spatial) perturbed as R exp(δθ) and the centre of mass x perturbed as x + δx, the
 * velocities (Ω, ẋ) (body angular velocity, spatial centre-of-mass velocity). In these it
 * returns, for body1 then body2 (12 entries, each (δθ, δx)):
 *   F   the generalized force (the sign of g: ∂V/∂(δθ, δx) for the elastic part),
 *   Kq  ∂F/∂(δθ1, δx1, δθ2, δx2) at fixed (Ω, ẋ),
 *   Kv  ∂F/∂(Ω1, ẋ1, Ω2, ẋ2),
 *   V   the potential energy.
 * elements.c maps them to each formulation (g = Pᵀ F with P the map from the formulation's
 * velocity to (Ω, ẋ), and the terms of P's dependence on q), so that an element is written
 * once. The ground is R = I, x = 0 at rest; its entries are dropped.
 *
 * A new element: one file el_NAME.c with its descriptor, one line in the table of elements.c.
 * tests/test_elements.c loops over every entry of the table in every formulation.
 */
#ifndef LIEDYN_SRC_ELEMENTS_ELEMENTS_H
#define LIEDYN_SRC_ELEMENTS_ELEMENTS_H

#include <stddef.h>

#include "liedyn/model.h"
#include "liedyn/system.h"

struct reader;      /* reader.h */
struct yaml_node_s; /* libyaml's yaml_node_t */

/* The state of an element's two bodies in canonical coordinates, and the element. */
typedef struct ld_el_ctx {
    const ld_model *m;
    const ld_element *el;
    double t;
    double R[2][9], x[2][3];        /* body1 (index 0; the ground: I, 0) and body2 */
    double vel[12];                 /* (Ω1, ẋ1, Ω2, ẋ2) */
    const double *ctrl;             /* the system's control inputs per element (NULL: all 0) */
    const struct ld_elem_ctx *inst; /* the instance's context (global q, v), or NULL */
} ld_el_ctx;

#define LD_EL_FORCE  1u /* F */
#define LD_EL_GQ     2u /* Kq */
#define LD_EL_GV     4u /* Kv */
#define LD_EL_ENERGY 8u /* V */

typedef struct ld_el_out {
    double F[12], Kq[144], Kv[144], V; /* row-major; added to, never cleared by an element */
} ld_el_out;

typedef struct ld_el_type {
    const char *name;    /* the YAML `type` */
    const char *summary; /* one line */
    /* 2: body1 (a body or the ground) and body2 as the file gives them; 0: the type's reader
     * sets them (an actuator: its joint's bodies), the file gives neither */
    int bodies;
    /* The YAML keys of the type besides name, type, body1, body2 (NULL-terminated). */
    const char *const *keys;
    /* Read the type's keys of the mapping n into el->par (allocated); el's bodies are read.
     * NULL: the type is added by a program only. Fails through the reader (reader.h). */
    int (*read)(struct reader *r, const struct yaml_node_s *n, const ld_model *m, ld_element *el);
    /* The type's physical checks: LD_OK, or LD_EINVAL with the failing key (relative, e.g.
     * "k", "curve[2]") and the reason. */
    int (*check)(const ld_model *m, const ld_element *el, char *key, size_t nk, char *why,
                 size_t nw);
    /* Add the contributions in want (LD_EL_*) to o. LD_OK, or a status (> 0 retry, < 0 fatal). */
    int (*eval)(const ld_el_ctx *c, unsigned want, ld_el_out *o);
    /* Does the element keep the energy (its forces derive from its potential: no damping, no
     * time dependence)? NULL: it does not. */
    int (*conservative)(const ld_element *el);
} ld_el_type;

/* The registry (elements.c) and its entries (el_*.c). */
const ld_el_type *ld_el_type_get(int type); /* NULL out of range */
extern const ld_el_type ld_el_spring_damper, ld_el_rotational, ld_el_bushing, ld_el_user_force,
    ld_el_actuator;

/* The bodies' motions of force instance c (its local velocity, or at rest) as a user force
 * sees them (elements.c). */
void ld_el_instance_motions(const struct ld_elem_ctx *c, ld_body_motion b[2]);

/* User forces' values through the system's cache (el_user_cache.c): w (12) and, with want
 * holding LD_EL_GQ or LD_EL_GV, the tangents Wq, Wv (144 each) of user-force element c->el at
 * the bodies' motions b. A vectorized group is evaluated in one call for all its instances at
 * the system's state; a value is computed again only when t or the instance's motion differs
 * from the cached one. Status of the callbacks, or LD_ENOMEM. */
int ld_el_user_values(const ld_el_ctx *c, const ld_body_motion b[2], unsigned want,
                      const double **w, const double **Wq, const double **Wv);
/* The cache's setup and release (the force kind's prepare, release). */
int ld_el_user_prepare(const ld_system *s, void **data, char *msg, size_t n);
void ld_el_user_release(void *data);

/* The elements of m are sound (generic checks, then the type's): LD_OK, or LD_EINVAL with the
 * key ("elements[2].k") and the reason (model.c formats the message). */
int ld_el_check_all(const ld_model *m, char *key, size_t nk, char *why, size_t nw);
/* Release the elements' parameters and the array. */
void ld_el_free_all(ld_model *m);
/* The YAML block `elements:` of root (optional), after the bodies (yaml_elements.c). */
int ly_read_elements(struct reader *r, const struct yaml_node_s *root, ld_model *m);

/* ---------------------------------------------------------------- shared by the elements */

/* Initial pose of body b (LD_GROUND: I, 0) from the model. */
void ld_el_pose0(const ld_model *m, int b, double R[9], double x[3]);
/* A spatial point at the start, fixed in body b: p = R0ᵀ (at − x0). */
void ld_el_body_point(const ld_model *m, int b, const double at[3], double p[3]);

/* A strain e (n ≤ 6 components) of the two bodies, its Jacobian J = ∂e/∂(δθ1, δx1, δθ2, δx2)
 * (n×12) and its second derivative H(π, u) = d/dε [J(pose ∘ επ) u] (π, u ∈ R¹²), for the
 * strain elements (el_strain.c). H is bilinear; the elements use it weighted by a row w ∈ Rⁿ,
 * as hess_row: row = ∂/∂π [wᵀ H(π, u)] ∈ R¹² (row_j = wᵀ H(e_j, u)). */
typedef struct ld_el_strain {
    int n;
    double e[6], J[72];
    void (*hess_row)(const void *kin, int n, const double *w, const double u[12], double row[12]);
    unsigned hmask; /* bit i set unless H(·, e_i) = 0 for every state (then never asked for) */
    const void *kin;
} ld_el_strain;

/* ė = J vel. */
void ld_el_strain_rate(const ld_el_strain *s, const double vel[12], double ed[6]);
/* A stress σ(e, ė) with Se = ∂σ/∂e, Sd = ∂σ/∂ė (n×n) applied as the force F = Jᵀσ: adds F,
 * Kq = Jᵀ(Se J + Sd H(·, vel)) + σᵀ H(·, ·), Kv = Jᵀ Sd J as wanted. */
void ld_el_strain_apply(const ld_el_strain *s, const double *sig, const double *Se,
                        const double *Sd, const double vel[12], unsigned want, ld_el_out *o);

/* The relative frame of two bodies (el_frames.c): frames A = R1 C1 at p1 in body1 and
 * B = R2 C2 at p2 in body2 (C, p body-frame constants); e = (θ, r) with θ = log(AᵀB) and
 * r = Aᵀ(x2 + R2 p2 − x1 − R1 p1); n = 3 keeps θ only. */
typedef struct ld_el_frames {
    double R1[9], R2[9], C1[9], C2[9], p1[3], p2[3], A[9];
    double th[3], r[3], Ti[9], Tit[9];
    double gam, gam1; /* γ(|θ|) and γ'(|θ|)/|θ| (el_frames.c) */
} ld_el_frames;
/* Fill f and s (s->kin = f) at the bodies' poses of c. */
void ld_el_frames_eval(const ld_el_ctx *c, const double C1[9], const double C2[9],
                       const double p1[3], const double p2[3], int n, ld_el_frames *f,
                       ld_el_strain *s);

#endif

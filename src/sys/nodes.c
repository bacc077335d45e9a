/* The table of node kinds (nodes.h): one descriptor per value of ld_node_kind, and the
 * operations on one node that read it. */
#include "nodes.h"
#include "liedyn/liedyn.h"
#include "../lie/mat3.h"
#include "../lie/ep.h"

/* ------------------------------------------------------------------ brackets */

/* [x, y] of the direct products R³×SO(3), S³×R³: x_ω × y_ω, translations commute. */
static void bracket_direct(double *r, const double *x, const double *y) {
    ld_v3_cross(r, x, y);
    for (int j = 3; j < 6; ++j) r[j] = 0.0;
}

/* [x, y] of the semidirect products SE(3), S³⋉R³: (x_ω × y_ω, x_ω × y_u − y_ω × x_u). */
static void bracket_semidirect(double *r, const double *x, const double *y) {
    double a[3], b[3];
    ld_v3_cross(r, x, y);
    ld_v3_cross(a, x, y + 3);
    ld_v3_cross(b, y, x + 3);
    for (int j = 0; j < 3; ++j) r[3 + j] = a[j] - b[j];
}

/* ------------------------------------------------------------------ opposite groups */

/* The *_SPATIAL kinds: the opposite group G' of a direct product G (a ∘' b = b ∘ a), whose
 * right composition q ∘' exp(ξ) = exp(ξ) ∘ q puts the increment on the left (spatial angular
 * velocity). Same exp, log and inverse; T'(ξ) = T(−ξ), the left Jacobian of G, because
 * exp(ξ + δ) = exp(T(−ξ)δ) ∘ exp(ξ); the bracket of G' is −[x, y]. */
#define OPPOSITE(G)                                                                                \
    static void G##_opp_compose(double *g, const double *a, const double *b) {                     \
        ld_##G##_compose(g, b, a);                                                                 \
    }                                                                                              \
    static void G##_opp_tangent(double *T, const double *xi) {                                     \
        const double m[6] = {-xi[0], -xi[1], -xi[2], -xi[3], -xi[4], -xi[5]};                      \
        ld_##G##_tangent(T, m);                                                                    \
    }                                                                                              \
    static void G##_opp_tangent_inv(double *Ti, const double *xi) {                                \
        const double m[6] = {-xi[0], -xi[1], -xi[2], -xi[3], -xi[4], -xi[5]};                      \
        ld_##G##_tangent_inv(Ti, m);                                                               \
    }
OPPOSITE(so3xr3)
OPPOSITE(s3xr3)

static void bracket_direct_opposite(double *r, const double *x, const double *y) {
    bracket_direct(r, y, x);
}

/* [x, y] of SO(3), S³: x × y. */
static void bracket_rotation(double *r, const double *x, const double *y) {
    ld_v3_cross(r, x, y);
}

/* ------------------------------------------------------------------ normalization */

/* (R, x): the nearest rotation by one Newton step of the polar decomposition from the
 * quaternion, R ← R(quat(R)), exact for a slightly non-orthogonal R. */
static void normalize_matrix_first(double *g) {
    double q[4];
    ld_quat_from_mat(q, g);
    ld_quat_to_mat(g, q);
}

/* (q, x): q to unit norm (left as it is when it cannot be, zero or not finite). */
static void normalize_quat_first(double *g) {
    (void)ld_quat_normalize(g, g);
}

#define EP_OFF 3 /* (x, e): e after x */

/* (x, e): e to unit norm, the projection onto the constraint |e| = 1. */
static void normalize_euler_parameters(double *g) {
    (void)ld_quat_normalize(g + EP_OFF, g + EP_OFF);
}

/* ------------------------------------------------------------------ Euler parameters */

static void ep_modified_velocity(double ed[4], const double e[4], const double edd[4],
                                 const double w[3], double hg) {
    double lw[4];
    ld_ep_Ltmul(lw, e, w);
    double ee = e[0] * edd[0] + e[1] * edd[1] + e[2] * edd[2] + e[3] * edd[3];
    for (int j = 0; j < 4; ++j) ed[j] = lw[j] + hg * (edd[j] - e[j] * ee);
}

static void ep_modified_jacobian(double D[16], const double e[4], const double edd[4],
                                 const double w[3], double hb, double hg) {
    double W[16];
    ld_ep_what(W, w);
    double ee = e[0] * edd[0] + e[1] * edd[1] + e[2] * edd[2] + e[3] * edd[3];
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            D[4 * r + c] = hb * W[4 * r + c] - hg * e[r] * e[c] -
                           hg * hb * (e[r] * edd[c] + (r == c ? ee : 0.0));
}

static const ld_node_ep EULER_PARAMETERS = {EP_OFF,
                                            ld_ep_L,
                                            ld_ep_Lmul,
                                            ld_ep_Ltmul,
                                            ld_ep_what,
                                            ep_modified_velocity,
                                            ep_modified_jacobian};

/* ------------------------------------------------------------------ the table */

/* kind, name, group, nq, nv, flat,
 * exp, log, compose, inverse, tangent, tangent_inv, bracket, normalize, ep */
static const ld_node_kind_info KINDS[LD_NODE_KIND_COUNT] = {
    [LD_NODE_RN] = {LD_NODE_RN, "rn", "Rⁿ", 0, 0, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                    NULL},
    [LD_NODE_R3] = {LD_NODE_R3, "r3", "R³", 3, 3, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                    NULL},
    [LD_NODE_SO3XR3] = {LD_NODE_SO3XR3, "so3xr3", "R³×SO(3)", 12, 6, 0, ld_so3xr3_exp,
                        ld_so3xr3_log, ld_so3xr3_compose, ld_so3xr3_inverse, ld_so3xr3_tangent,
                        ld_so3xr3_tangent_inv, bracket_direct, normalize_matrix_first, NULL},
    [LD_NODE_SE3] = {LD_NODE_SE3, "se3", "SE(3)", 12, 6, 0, ld_se3_exp, ld_se3_log, ld_se3_compose,
                     ld_se3_inverse, ld_se3_tangent, ld_se3_tangent_inv, bracket_semidirect,
                     normalize_matrix_first, NULL},
    [LD_NODE_S3XR3] = {LD_NODE_S3XR3, "s3xr3", "S³×R³", 7, 6, 0, ld_s3xr3_exp, ld_s3xr3_log,
                       ld_s3xr3_compose, ld_s3xr3_inverse, ld_s3xr3_tangent, ld_s3xr3_tangent_inv,
                       bracket_direct, normalize_quat_first, NULL},
    [LD_NODE_S3SDR3] = {LD_NODE_S3SDR3, "s3sdr3", "S³⋉R³", 7, 6, 0, ld_s3sdr3_exp, ld_s3sdr3_log,
                        ld_s3sdr3_compose, ld_s3sdr3_inverse, ld_s3sdr3_tangent,
                        ld_s3sdr3_tangent_inv, bracket_semidirect, normalize_quat_first, NULL},
    [LD_NODE_R3E4] = {LD_NODE_R3E4, "r3e4", "R³×R⁴", 7, 7, 1, NULL, NULL, NULL, NULL, NULL, NULL,
                      NULL, normalize_euler_parameters, &EULER_PARAMETERS},
    [LD_NODE_SO3XR3_SPATIAL] = {LD_NODE_SO3XR3_SPATIAL, "so3xr3-spatial", "R³×SO(3), left", 12, 6,
                                0, ld_so3xr3_exp, ld_so3xr3_log, so3xr3_opp_compose,
                                ld_so3xr3_inverse, so3xr3_opp_tangent, so3xr3_opp_tangent_inv,
                                bracket_direct_opposite, normalize_matrix_first, NULL},
    [LD_NODE_S3XR3_SPATIAL] = {LD_NODE_S3XR3_SPATIAL, "s3xr3-spatial", "S³×R³, left", 7, 6, 0,
                               ld_s3xr3_exp, ld_s3xr3_log, s3xr3_opp_compose, ld_s3xr3_inverse,
                               s3xr3_opp_tangent, s3xr3_opp_tangent_inv, bracket_direct_opposite,
                               normalize_quat_first, NULL},
    [LD_NODE_SO3] = {LD_NODE_SO3, "so3", "SO(3)", 9, 3, 0, ld_so3_exp, ld_so3_log, ld_so3_compose,
                     ld_so3_inverse, ld_so3_tangent, ld_so3_tangent_inv, bracket_rotation,
                     normalize_matrix_first, NULL},
    [LD_NODE_S3] = {LD_NODE_S3, "s3", "S³", 4, 3, 0, ld_s3_exp, ld_s3_log, ld_quat_mul,
                    ld_quat_conj, ld_so3_tangent, ld_so3_tangent_inv, bracket_rotation,
                    normalize_quat_first, NULL},
};

const ld_node_kind_info *ld_node_kind_get(ld_node_kind k) {
    if ((unsigned)k >= (unsigned)LD_NODE_KIND_COUNT) return NULL;
    return KINDS[k].name ? &KINDS[k] : NULL; /* a kind without its line has no name */
}

int ld_node_kind_count(void) {
    return LD_NODE_KIND_COUNT;
}

/* ------------------------------------------------------------------ one node */

int ld_node_sizes(const ld_node *nd, int *nq, int *nv) {
    const ld_node_kind_info *d = nd ? ld_node_kind_get(nd->kind) : NULL;
    if (!d || (d->nv == 0 && nd->n < 1)) return LD_EINVAL;
    *nq = d->nv == 0 ? nd->n : d->nq;
    *nv = d->nv == 0 ? nd->n : d->nv;
    return LD_OK;
}

int ld_node_nv(const ld_node *nd) {
    int nq = 0, nv = 0;
    return ld_node_sizes(nd, &nq, &nv) == LD_OK ? nv : 0;
}

int ld_node_direct_product(const ld_node *nd) {
    ld_node_kind k = nd->kind;
    return k == LD_NODE_SO3XR3 || k == LD_NODE_S3XR3 || k == LD_NODE_SO3XR3_SPATIAL ||
           k == LD_NODE_S3XR3_SPATIAL;
}

void ld_node_retract(const ld_node *nd, double *r, const double *q, const double *xi) {
    const ld_node_kind_info *d = ld_node_kind_get(nd->kind);
    if (!d) return;
    if (d->flat) {
        for (int j = 0, n = ld_node_nv(nd); j < n; ++j) r[j] = q[j] + xi[j];
        return;
    }
    double e[LD_NODE_GROUP_MAX_NQ];
    d->exp(e, xi);
    d->compose(r, q, e);
}

/* The n×n identity at T, rows ld apart. */
static void identity_block(double *T, size_t ld, int n) {
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) T[(size_t)r * ld + (size_t)c] = r == c ? 1.0 : 0.0;
}

/* The n×n row-major B at T, rows ld apart. */
static void copy_block(double *T, size_t ld, const double *B, int n) {
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) T[(size_t)r * ld + (size_t)c] = B[n * r + c];
}

/* T(ξ) (inv = 0) or T⁻¹(ξ) (inv = 1) of one node at T, rows ld apart. */
static void tangent_block(const ld_node *nd, double *T, size_t ld, const double *xi, int inv) {
    const ld_node_kind_info *d = ld_node_kind_get(nd->kind);
    if (!d) return;
    if (d->flat) {
        identity_block(T, ld, ld_node_nv(nd));
        return;
    }
    double B[LD_NODE_GROUP_MAX_NV * LD_NODE_GROUP_MAX_NV];
    (inv ? d->tangent_inv : d->tangent)(B, xi);
    copy_block(T, ld, B, d->nv);
}

void ld_node_tangent(const ld_node *nd, double *T, size_t ld, const double *xi) {
    tangent_block(nd, T, ld, xi, 0);
}

int ld_node_tangent_rotation(const ld_node *nd, double T[9], const double *xi) {
    switch (nd->kind) {
    case LD_NODE_SO3XR3: /* T(ξ) of the direct product: T_so3(ω) on the rotation first */
    case LD_NODE_S3XR3:
        ld_so3_tangent(T, xi);
        return 1;
    case LD_NODE_SO3XR3_SPATIAL: /* the opposite group's T(ξ) = T(−ξ) (OPPOSITE above) */
    case LD_NODE_S3XR3_SPATIAL: {
        const double m[3] = {-xi[0], -xi[1], -xi[2]};
        ld_so3_tangent(T, m);
        return 1;
    }
    default:
        return 0;
    }
}

void ld_node_tangent_inv(const ld_node *nd, double *Ti, size_t ld, const double *xi) {
    tangent_block(nd, Ti, ld, xi, 1);
}

void ld_node_bracket(const ld_node *nd, double *r, const double *x, const double *y) {
    const ld_node_kind_info *d = ld_node_kind_get(nd->kind);
    if (!d) return;
    if (d->flat) {
        for (int j = 0, n = ld_node_nv(nd); j < n; ++j) r[j] = 0.0;
        return;
    }
    d->bracket(r, x, y);
}

void ld_node_normalize(const ld_node *nd, double *q) {
    const ld_node_kind_info *d = ld_node_kind_get(nd->kind);
    if (d && d->normalize) d->normalize(q);
}

/*
 * Internal to src/model: the geometrically exact beam finite element (Simo–Reissner / GEBT) of
 * order p = 1 … 14 (beam_fe.c, docs/beam.md): p + 1 nodes at the Gauss–Lobatto–Legendre points
 * of ξ ∈ [−1, 1], Gauss quadrature, material strains from the interpolated quaternion.
 *
 * A node is a pose (quaternion q_i, body → spatial, and position x_i). At a quadrature point,
 *   p = Σ N_i q_i,  p_ξ = Σ N_i' q_i,  x_ξ = Σ N_i' x_i   (N_i Lagrange polynomials on the nodes)
 *   R = R(p / |p|),  Γ = Rᵀ x_ξ / J,  K = 2 vec(p̄ ⊗ p_ξ) / (|p|² J)
 * with J = ds/dξ of the reference centreline; the strain is ε = (Γ − Γ₀, K − K₀), Γ₀, K₀ those
 * of the reference configuration (stress-free: initial curvature and twist included), and the
 * elastic energy Σ_g w_g J_g ½ εᵀ C ε with C the 6×6 sectional stiffness in the material frame
 * (the beam axis is material e1: C = diag(EA, GA₂, GA₃, GJ, EI₂, EI₃) for a simple section).
 * Interpolating quaternions linearly is objective (a rigid motion multiplies every q_i by the
 * same unit quaternion); each node's quaternion is signed to the hemisphere of the previous
 * node's, so neighbouring nodes must stay less than a half turn apart.
 *
 * Canonical coordinates, as the force elements' (elements.h): node i moves as
 * R_i exp(δθ_i), x_i + δx_i; its generalized force is (∂V/∂δθ_i, ∂V/∂δx_i), and the stiffness
 * the derivative of that force along the same motions (6 per node, rotation first).
 */
#ifndef LIEDYN_SRC_ELEMENTS_BEAM_FE_H
#define LIEDYN_SRC_ELEMENTS_BEAM_FE_H

#define LD_BEAM_MAX_ORDER 14
#define LD_BEAM_MAX_NODES (LD_BEAM_MAX_ORDER + 1)
#define LD_BEAM_MAX_QP    64 /* the Gauss rules are computed (Newton on P_n) */

/* The n Gauss–Lobatto–Legendre points of [−1, 1] for n = p + 1 ≥ 2, ascending (the roots of
 * (1 − ξ²) P_p'(ξ)); LD_OK or LD_EINVAL (p outside 1 … LD_BEAM_MAX_ORDER). */
int ld_beam_gll(int p, double *xi);
/* The weights of the Gauss–Lobatto–Legendre rule on those points: 2/(p(p + 1) P_p(ξ_i)²). */
void ld_beam_gll_weights(int p, const double *xi, double *w);
/* The n-point Gauss–Legendre rule on [−1, 1] (1 ≤ n ≤ LD_BEAM_MAX_QP): points ascending and
 * weights; LD_OK or LD_EINVAL. */
int ld_beam_gauss(int n, double *xi, double *w);
/* The Lagrange polynomials on the nn nodes and their derivatives at ξ. */
void ld_beam_lagrange(int nn, const double *nodes, double xi, double *N, double *dN);

/* One element: its interpolation at the quadrature points and its reference strains. */
typedef struct ld_beam_fe {
    int p, nn, nq;
    double xi_node[LD_BEAM_MAX_NODES];
    double N[LD_BEAM_MAX_QP][LD_BEAM_MAX_NODES], dN[LD_BEAM_MAX_QP][LD_BEAM_MAX_NODES];
    double w[LD_BEAM_MAX_QP];       /* quadrature weight times J */
    double J[LD_BEAM_MAX_QP];       /* ds/dξ of the reference centreline */
    double eps0[LD_BEAM_MAX_QP][6]; /* reference strains (Γ₀, K₀) */
    double C[36];     /* a uniform sectional stiffness (material frame, row-major), or */
    const double *Cq; /* nq × 36: the stiffness at each quadrature point (the caller's) */
} ld_beam_fe;

/* The sectional stiffness at quadrature point g. */
static inline const double *ld_beam_fe_C(const ld_beam_fe *e, int g) {
    return e->Cq ? e->Cq + 36 * g : e->C;
}

/* Set up an element of order p (1 … LD_BEAM_MAX_ORDER) with nq Gauss points (1 …
 * LD_BEAM_MAX_QP; p + 1 is full integration, p the reduced one, more integrate a varying
 * section better) from the reference poses of its p + 1 nodes (q0: 4 each, x0: 3 each) and the
 * sectional stiffness: with uniform set, C is one 6×6 (copied); else C holds nq × 36, one per
 * quadrature point in ascending ξ, and must outlive the element (it is referenced, not
 * copied). ld_beam_fe_points gives the points' ξ beforehand. LD_OK, or LD_EINVAL (bad order
 * or count, a degenerate reference: J ≤ 0 somewhere, or a zero quaternion). */
int ld_beam_fe_init(ld_beam_fe *e, int p, int nq, const double *q0, const double *x0,
                    const double *C, int uniform);

/* The same with a quadrature rule of one's own: nq points xg ∈ [−1, 1] (ascending, as C's
 * entries) and weights wg > 0 on [−1, 1] (e.g. Gauss rules on pieces of the element). */
int ld_beam_fe_init_rule(ld_beam_fe *e, int p, int nq, const double *xg, const double *wg,
                         const double *q0, const double *x0, const double *C, int uniform);

/* The nq Gauss points' ξ that ld_beam_fe_init uses (ascending); LD_OK or LD_EINVAL. */
int ld_beam_fe_points(int nq, double *xi);

#define LD_BEAM_FORCE  1u
#define LD_BEAM_STIFF  2u
#define LD_BEAM_ENERGY 4u

/* The elastic terms at the nodes' poses (q: 4 per node, x: 3 per node) as wanted: F (6 nn), K
 * (6 nn × 6 nn, row-major) and V, each overwritten (the others untouched). */
void ld_beam_fe_elastic(const ld_beam_fe *e, const double *q, const double *x, unsigned want,
                        double *F, double *K, double *V);

/* The stiffness-proportional viscous damping: the stress σ_d = μ C ε̇ with the nodes' canonical
 * velocities (Om: material angular velocities, xd: spatial velocities, 3 per node). Adds its
 * force to F (6 nn) and, where not NULL, Kq = ∂F/∂(δθ, δx) at fixed (Ω, ẋ) and
 * Kv = ∂F/∂(Ω, ẋ) (6 nn × 6 nn). */
void ld_beam_fe_damping(const ld_beam_fe *e, const double *q, const double *x, const double *Om,
                        const double *xd, double mu, double *F, double *Kq, double *Kv);

#endif

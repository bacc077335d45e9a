/*
 * Euler-parameter kernels of the euler formulation (internal): e = (e0, e1, e2, e3) as plain
 * coordinates, not assumed to be of unit norm (Newton iterates leave the unit sphere).
 * Notation of Sherif et al. (2019): R(e) eq. 2 (quadratic in e), L(e) eq. 4, ω = 2 L(e) ė (body
 * frame), the 4×4 matrix ŵ of eq. 70 with L(e)ᵀ w = ŵ e. Row-major; outputs never alias inputs.
 */
#ifndef LIEDYN_SRC_LIE_EP_H
#define LIEDYN_SRC_LIE_EP_H

/* R(e) of eq. 2: (e0² − εᵀε) I + 2 ε εᵀ + 2 e0 hat(ε); a rotation times |e|². */
static inline void ld_ep_rot(double R[9], const double e[4]) {
    double a = e[0] * e[0] - e[1] * e[1] - e[2] * e[2] - e[3] * e[3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) R[3 * i + j] = 2.0 * e[1 + i] * e[1 + j] + (i == j ? a : 0.0);
    R[1] -= 2.0 * e[0] * e[3];
    R[2] += 2.0 * e[0] * e[2];
    R[3] += 2.0 * e[0] * e[3];
    R[5] -= 2.0 * e[0] * e[1];
    R[6] -= 2.0 * e[0] * e[2];
    R[7] += 2.0 * e[0] * e[1];
}

/* L(e) of eq. 4 (3×4). */
static inline void ld_ep_L(double L[12], const double e[4]) {
    const double l[12] = {-e[1], e[0], e[3],  -e[2], -e[2], -e[3],
                          e[0],  e[1], -e[3], e[2],  -e[1], e[0]};
    for (int i = 0; i < 12; ++i) L[i] = l[i];
}

/* y = L(e) x (x: 4, y: 3). */
static inline void ld_ep_Lmul(double y[3], const double e[4], const double x[4]) {
    double L[12];
    ld_ep_L(L, e);
    for (int i = 0; i < 3; ++i)
        y[i] = L[4 * i] * x[0] + L[4 * i + 1] * x[1] + L[4 * i + 2] * x[2] + L[4 * i + 3] * x[3];
}

/* y = L(e)ᵀ w (w: 3, y: 4). */
static inline void ld_ep_Ltmul(double y[4], const double e[4], const double w[3]) {
    double L[12];
    ld_ep_L(L, e);
    for (int j = 0; j < 4; ++j) y[j] = L[j] * w[0] + L[4 + j] * w[1] + L[8 + j] * w[2];
}

/* ŵ of eq. 70: L(e)ᵀ w = ŵ e for every e (4×4, skew-symmetric). */
static inline void ld_ep_what(double W[16], const double w[3]) {
    const double x = w[0], y = w[1], z = w[2];
    const double m[16] = {0, -x, -y, -z, x, 0, z, -y, y, -z, 0, x, z, y, -x, 0};
    for (int i = 0; i < 16; ++i) W[i] = m[i];
}

/* G = ∂(R(e) p)/∂e (3×4): column 0 is 2(e0 p + ε × p), columns 1..3 are
 * 2[(εᵀp) I + ε pᵀ − p εᵀ − e0 hat(p)]. G is linear in e and G(e) e = 2 R(e) p. */
static inline void ld_ep_drot(double G[12], const double e[4], const double p[3]) {
    const double *s = e + 1;
    double sp = s[0] * p[0] + s[1] * p[1] + s[2] * p[2];
    double c[3] = {s[1] * p[2] - s[2] * p[1], s[2] * p[0] - s[0] * p[2], s[0] * p[1] - s[1] * p[0]};
    for (int i = 0; i < 3; ++i) {
        G[4 * i] = 2.0 * (e[0] * p[i] + c[i]);
        for (int j = 0; j < 3; ++j)
            G[4 * i + 1 + j] = 2.0 * ((i == j ? sp : 0.0) + s[i] * p[j] - p[i] * s[j]);
    }
    /* − 2 e0 hat(p) */
    G[4 * 0 + 2] += 2.0 * e[0] * p[2];
    G[4 * 0 + 3] -= 2.0 * e[0] * p[1];
    G[4 * 1 + 1] -= 2.0 * e[0] * p[2];
    G[4 * 1 + 3] += 2.0 * e[0] * p[0];
    G[4 * 2 + 1] += 2.0 * e[0] * p[1];
    G[4 * 2 + 2] -= 2.0 * e[0] * p[0];
}

/* H = ∂/∂e [G(e)ᵀ c] for G = ∂(R(e) p)/∂e (4×4, constant in e, symmetric): the Hessian of
 * cᵀ R(e) p. */
static inline void ld_ep_drot2(double H[16], const double p[3], const double c[3]) {
    for (int j = 0; j < 4; ++j) {
        double u[4] = {0, 0, 0, 0}, G[12];
        u[j] = 1.0;
        ld_ep_drot(G, u, p);
        for (int i = 0; i < 4; ++i) H[4 * i + j] = G[i] * c[0] + G[4 + i] * c[1] + G[8 + i] * c[2];
    }
}

#endif

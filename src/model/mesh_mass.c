/*
 * The mass properties of the solid a closed triangle mesh bounds (model.h:
 * ld_mesh_mass_props): volume, centre of volume and the inertia tensor about it at unit
 * density, by the divergence theorem. Every volume integral of 1, x, x², xy, ... becomes a sum
 * over the triangles of surface integrals, and those of a triangle are closed-form polynomials
 * of its vertices: Mirtich, "Fast and accurate computation of polyhedral mass properties"
 * (1996), in the triangle-only form of Eberly, "Polyhedral Mass Properties (Revisited)"
 * (2002). Exact in exact arithmetic for any closed, consistently oriented mesh, convex or not;
 * the vertices are taken relative to the centre of their bounding box first, so that the
 * round-off does not grow with the mesh's distance from the origin.
 */
#include <math.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

/* Eberly's subexpressions of one coordinate w0, w1, w2 of a triangle's vertices. */
typedef struct sub {
    double f1, f2, f3, g0, g1, g2;
} sub;

static sub subexpr(double w0, double w1, double w2) {
    sub s;
    double t0 = w0 + w1, t1 = w0 * w0, t2 = t1 + w1 * t0;
    s.f1 = t0 + w2;
    s.f2 = t2 + w2 * s.f1;
    s.f3 = w0 * t1 + w1 * t2 + w2 * s.f2;
    s.g0 = s.f2 + w0 * (s.f1 + w0);
    s.g1 = s.f2 + w1 * (s.f1 + w1);
    s.g2 = s.f2 + w2 * (s.f1 + w2);
    return s;
}

/* The vertex i of m mapped by p ↦ A p + b (A NULL: p + b). */
static void vertex(const ld_mesh *m, int i, const double *A, const double b[3], double p[3]) {
    const float *v = m->verts + 3 * (size_t)i;
    double x[3] = {v[0], v[1], v[2]};
    for (int r = 0; r < 3; ++r)
        p[r] = (A ? A[3 * r] * x[0] + A[3 * r + 1] * x[1] + A[3 * r + 2] * x[2] : x[r]) + b[r];
}

/* The ten integrals ∫1, ∫x, ∫y, ∫z, ∫x², ∫y², ∫z², ∫xy, ∫yz, ∫zx over the solid, its vertices
 * mapped by A, b and moved by −o. */
static void integrals(const ld_mesh *m, const double *A, const double b[3], const double o[3],
                      double I[10]) {
    memset(I, 0, 10 * sizeof(double));
    for (int t = 0; t < m->ntris; ++t) {
        double p[3][3];
        for (int k = 0; k < 3; ++k) {
            vertex(m, m->tris[3 * t + k], A, b, p[k]);
            for (int r = 0; r < 3; ++r) p[k][r] -= o[r];
        }
        double e1[3], e2[3], d[3];
        for (int r = 0; r < 3; ++r) e1[r] = p[1][r] - p[0][r], e2[r] = p[2][r] - p[0][r];
        d[0] = e1[1] * e2[2] - e1[2] * e2[1];
        d[1] = e1[2] * e2[0] - e1[0] * e2[2];
        d[2] = e1[0] * e2[1] - e1[1] * e2[0];
        sub x = subexpr(p[0][0], p[1][0], p[2][0]), y = subexpr(p[0][1], p[1][1], p[2][1]),
            z = subexpr(p[0][2], p[1][2], p[2][2]);
        I[0] += d[0] * x.f1;
        I[1] += d[0] * x.f2;
        I[2] += d[1] * y.f2;
        I[3] += d[2] * z.f2;
        I[4] += d[0] * x.f3;
        I[5] += d[1] * y.f3;
        I[6] += d[2] * z.f3;
        I[7] += d[0] * (p[0][1] * x.g0 + p[1][1] * x.g1 + p[2][1] * x.g2);
        I[8] += d[1] * (p[0][2] * y.g0 + p[1][2] * y.g1 + p[2][2] * y.g2);
        I[9] += d[2] * (p[0][0] * z.g0 + p[1][0] * z.g1 + p[2][0] * z.g2);
    }
    static const double w[10] = {1.0 / 6,  1.0 / 24, 1.0 / 24,  1.0 / 24,  1.0 / 60,
                                 1.0 / 60, 1.0 / 60, 1.0 / 120, 1.0 / 120, 1.0 / 120};
    for (int i = 0; i < 10; ++i) I[i] *= w[i];
}

int ld_mesh_mass_props(const ld_mesh *m, const double *A, const double *b, double *volume,
                       double com[3], double J[9]) {
    if (!m || !m->verts || !m->tris || m->ntris < 4 || !volume || !com || !J) return LD_EINVAL;
    for (int t = 0; t < 3 * m->ntris; ++t)
        if (m->tris[t] < 0 || m->tris[t] >= m->nverts) return LD_EINVAL; /* a bad index */
    const double zero[3] = {0, 0, 0};
    if (!b) b = zero;
    double lo[3], hi[3], o[3], p[3];
    for (int i = 0; i < m->nverts; ++i) { /* the mapped vertices' bounding box: o its centre */
        vertex(m, i, A, b, p);
        for (int r = 0; r < 3; ++r) {
            lo[r] = i ? fmin(lo[r], p[r]) : p[r];
            hi[r] = i ? fmax(hi[r], p[r]) : p[r];
        }
    }
    double size = 0.0;
    for (int r = 0; r < 3; ++r) o[r] = 0.5 * (lo[r] + hi[r]), size = fmax(size, hi[r] - lo[r]);
    double I[10];
    integrals(m, A, b, o, I);
    if (I[0] < 0) /* the triangles face inwards (or A mirrors): the same solid */
        for (int i = 0; i < 10; ++i) I[i] = -I[i];
    double V = I[0];
    if (!(V > 1e-12 * size * size * size) || !isfinite(V)) return LD_EDOMAIN;
    double c[3] = {I[1] / V, I[2] / V, I[3] / V};
    double xx = I[4] - V * c[0] * c[0], yy = I[5] - V * c[1] * c[1], zz = I[6] - V * c[2] * c[2];
    double xy = I[7] - V * c[0] * c[1], yz = I[8] - V * c[1] * c[2], zx = I[9] - V * c[2] * c[0];
    J[0] = yy + zz, J[4] = zz + xx, J[8] = xx + yy;
    J[1] = J[3] = -xy, J[5] = J[7] = -yz, J[2] = J[6] = -zx;
    for (int r = 0; r < 3; ++r) com[r] = c[r] + o[r];
    *volume = V;
    return LD_OK;
}

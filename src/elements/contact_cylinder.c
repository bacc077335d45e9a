/*
 * The cylinder's contact tests (contact.h, docs/contact.md). Against the ground plane and a
 * sphere in closed form: the rim points lowest over the plane, the closest point of the solid
 * cylinder to the sphere's centre. Against a capsule, a box or a cylinder by the shapes'
 * support functions: the normal by GJK while the two are apart (Gilbert, Johnson & Keerthi, "A
 * fast procedure for computing the distance between complex objects in three-dimensional
 * space", 1988) and by EPA when they overlap (van den Bergen, "Proximity queries and
 * penetration depth computation on 3D game objects", 2001); then the features of the two shapes
 * that normal meets (an end face or a box's face, a line of the side or a box's edge, a point)
 * are clipped one to the other, and each contact's gap is measured exactly along the face's or
 * the line's normal. No allocation: fixed arrays on the stack.
 */
#include <math.h>
#include <string.h>

#include "../lie/mat3.h"
#include "contact.h"

#define FEAT_TOL 1e-3 /* the sine within which a direction is normal to a face or a line */
#define EPA_V    64   /* the expanding polytope's vertices, */
#define EPA_F    128  /* faces */
#define EPA_E    128  /* and horizon edges at most */

/* cos and sin of the 8 rim points, 45° apart. */
static const double RIM[8][2] = {{1, 0},  {0.70710678118654752, 0.70710678118654752},
                                 {0, 1},  {-0.70710678118654752, 0.70710678118654752},
                                 {-1, 0}, {-0.70710678118654752, -0.70710678118654752},
                                 {0, -1}, {0.70710678118654752, -0.70710678118654752}};

/* ---------------------------------------------------------------- a cylinder's frame */

/* A cylinder's middle m, unit axis a (from c towards c1), half length hl and radius r. */
typedef struct cyl {
    double m[3], a[3], hl, r;
} cyl;

static cyl cyl_of(const ld_cshape *S) {
    cyl y;
    double d[3];
    for (int i = 0; i < 3; ++i) d[i] = S->c1[i] - S->c[i], y.m[i] = 0.5 * (S->c[i] + S->c1[i]);
    double L = ld_v3_norm(d);
    y.hl = 0.5 * L, y.r = S->r;
    for (int i = 0; i < 3; ++i) y.a[i] = L > 0.0 ? d[i] / L : (i == 2);
    return y;
}

/* Unit u, v completing the unit a to a right-handed frame, the same for the same a. */
static void perp_frame(const double a[3], double u[3], double v[3]) {
    int k = fabs(a[0]) <= fabs(a[1]) ? (fabs(a[0]) <= fabs(a[2]) ? 0 : 2)
                                     : (fabs(a[1]) <= fabs(a[2]) ? 1 : 2);
    double e[3] = {0, 0, 0};
    e[k] = 1.0;
    ld_v3_cross(u, a, e);
    double l = ld_v3_norm(u);
    for (int i = 0; i < 3; ++i) u[i] /= l;
    ld_v3_cross(v, a, u);
}

/* The part w of d across the axis a, and its length. */
static double across(const double d[3], const double a[3], double w[3]) {
    double c = ld_v3_dot(d, a);
    for (int i = 0; i < 3; ++i) w[i] = d[i] - c * a[i];
    return ld_v3_norm(w);
}

/* The unit u across the unit axis a in the direction of d's part across it (square to a to
 * round-off however small that part: any such u when it is 0); the part's length. */
static double radial(const double d[3], const double a[3], double u[3]) {
    double s = across(d, a, u), v[3];
    if (!(s > 1e-300)) {
        perp_frame(a, u, v);
        return 0.0;
    }
    for (int i = 0; i < 3; ++i) u[i] /= s;
    across(u, a, v);
    double l = ld_v3_norm(v);
    for (int i = 0; i < 3; ++i) u[i] = v[i] / l;
    return s;
}

/* A contact (x a point of A's surface, gap along the unit n from B to A) into out[*n] when its
 * gap is below margin, keeping at most 8: past 8, it replaces the shallowest if deeper. */
static void add_point(ld_contact *out, int *n, const double x[3], const double nrm[3], double gap,
                      double margin) {
    if (!(gap < margin)) return;
    int k = *n;
    if (k == 8) {
        for (int i = k = 0; i < 8; ++i)
            if (out[i].gap > out[k].gap) k = i;
        if (!(gap < out[k].gap)) return;
    } else {
        ++*n;
    }
    out[k].gap = gap;
    for (int i = 0; i < 3; ++i) out[k].n[i] = nrm[i], out[k].p[i] = x[i] - 0.5 * gap * nrm[i];
}

/* ---------------------------------------------------------------- the plane and the sphere */

int ld_contact_cylinder_plane(const ld_cshape *A, const double nrm[3], double d, double margin,
                              ld_contact *out) {
    cyl y = cyl_of(A);
    double down[3] = {-nrm[0], -nrm[1], -nrm[2]}, u[3], v[3];
    double s = radial(down, y.a, u), na = ld_v3_dot(nrm, y.a);
    if (s > 1e-9)
        ld_v3_cross(v, y.a, u);
    else
        perp_frame(y.a, u, v); /* standing: any rim point is lowest */
    int n = 0;
    for (int k = 0; k < 2; ++k) {
        double sg = k ? 1.0 : -1.0, e[3];
        for (int i = 0; i < 3; ++i) e[i] = y.m[i] + sg * y.hl * y.a[i];
        int pts = sg * na < 0.0 ? 8 : (s > 1e-9); /* the end facing the plane: its octagon */
        for (int j = 0; j < pts; ++j) {
            double x[3];
            for (int i = 0; i < 3; ++i) x[i] = e[i] + y.r * (RIM[j][0] * u[i] + RIM[j][1] * v[i]);
            add_point(out, &n, x, nrm, ld_v3_dot(nrm, x) - d, margin);
        }
    }
    return n;
}

/* A sphere (q, rs) against the cylinder C: the closest point of the solid cylinder to q, or
 * with q inside the nearer of the side and the end faces; the normal from C to the sphere. */
static int sphere_cyl(const double q[3], double rs, const ld_cshape *C, double margin,
                      ld_contact *o) {
    cyl y = cyl_of(C);
    double d[3], ru[3], pc[3], nrm[3], gap;
    for (int i = 0; i < 3; ++i) d[i] = q[i] - y.m[i];
    double t = ld_v3_dot(d, y.a), rho = radial(d, y.a, ru);
    double sg = t < 0.0 ? -1.0 : 1.0;
    if (fabs(t) <= y.hl && rho <= y.r) { /* the centre inside */
        double ds = y.r - rho, dc = y.hl - fabs(t);
        int cap = dc < ds;
        for (int i = 0; i < 3; ++i) {
            nrm[i] = cap ? sg * y.a[i] : ru[i];
            pc[i] = cap ? q[i] + (sg * y.hl - t) * y.a[i] : q[i] + ds * ru[i];
        }
        gap = -(cap ? dc : ds) - rs;
    } else {
        double tc = fmin(fmax(t, -y.hl), y.hl), rc = fmin(rho, y.r), e[3];
        for (int i = 0; i < 3; ++i) pc[i] = y.m[i] + tc * y.a[i] + rc * ru[i], e[i] = q[i] - pc[i];
        double dist = ld_v3_norm(e);
        for (int i = 0; i < 3; ++i) nrm[i] = e[i] / dist;
        gap = dist - rs;
    }
    if (!(gap < margin)) return 0;
    o->gap = gap;
    for (int i = 0; i < 3; ++i) o->n[i] = nrm[i], o->p[i] = 0.5 * (q[i] - rs * nrm[i] + pc[i]);
    return 1;
}

/* ---------------------------------------------------------------- support functions */

/* The radius around a shape's core: a sphere's or capsule's; 0 for a box or a cylinder. */
static double core_radius(const ld_cshape *S) {
    return S->kind == LD_SHAPE_SPHERE || S->kind == LD_SHAPE_CAPSULE ? S->r : 0.0;
}

/* The point of S's core farthest along d (a sphere's centre, a capsule's segment, a box, a
 * cylinder), the box and the cylinder shrunk by inset. */
static void core_support(const ld_cshape *S, const double d[3], double inset, double p[3]) {
    if (S->kind == LD_SHAPE_BOX) {
        memcpy(p, S->c, 3 * sizeof *p);
        for (int k = 0; k < 3; ++k) {
            double a[3] = {S->R[k], S->R[3 + k], S->R[6 + k]}, h = fmax(S->h[k] - inset, 0.0);
            double sg = ld_v3_dot(a, d) < 0.0 ? -h : h;
            for (int i = 0; i < 3; ++i) p[i] += sg * a[i];
        }
        return;
    }
    double e[3];
    for (int i = 0; i < 3; ++i) e[i] = S->c1[i] - S->c[i];
    int top = ld_v3_dot(e, d) >= 0.0;
    if (S->kind != LD_SHAPE_CYLINDER) {
        memcpy(p, top && S->kind == LD_SHAPE_CAPSULE ? S->c1 : S->c, 3 * sizeof *p);
        return;
    }
    cyl y = cyl_of(S);
    double u[3], hl = fmax(y.hl - inset, 0.0), r = fmax(y.r - inset, 0.0);
    radial(d, y.a, u);
    for (int i = 0; i < 3; ++i) p[i] = y.m[i] + (top ? hl : -hl) * y.a[i] + r * u[i];
}

/* The point of the whole shape S farthest along the unit d. */
static void support(const ld_cshape *S, const double d[3], double p[3]) {
    core_support(S, d, 0.0, p);
    double r = core_radius(S);
    for (int i = 0; i < 3; ++i) p[i] += r * d[i];
}

/* The signed distance of A and B along the unit n (from B to A): the gap of their projections,
 * min over A of n·x − max over B of n·x; the largest over n is their distance or, < 0, minus
 * their penetration depth. */
static double proj_gap(const ld_cshape *A, const ld_cshape *B, const double n[3]) {
    double mn[3] = {-n[0], -n[1], -n[2]}, pa[3], pb[3];
    support(A, mn, pa);
    support(B, n, pb);
    return ld_v3_dot(n, pa) - ld_v3_dot(n, pb);
}

/* A length of the shape, for tolerances. */
static double size_of(const ld_cshape *S) {
    if (S->kind == LD_SHAPE_BOX) return S->h[0] + S->h[1] + S->h[2];
    double e[3] = {S->c1[0] - S->c[0], S->c1[1] - S->c[1], S->c1[2] - S->c[2]};
    return S->r + 0.5 * ld_v3_norm(e);
}

/* ---------------------------------------------------------------- GJK */

/* A simplex of the Minkowski difference A − B (its points core_A − core_B). */
typedef struct simplex {
    double w[4][3];
    int n;
} simplex;

/* Keep the simplex's vertices listed in keep (k of them). */
static void simplex_keep(simplex *S, const int *keep, int k) {
    double w[4][3];
    for (int i = 0; i < k; ++i) memcpy(w[i], S->w[keep[i]], sizeof w[i]);
    memcpy(S->w, w, (size_t)k * sizeof w[0]);
    S->n = k;
}

/* The point v of the triangle (w[i], w[j], w[k]) of S closest to the origin (Ericson,
 * Real-Time Collision Detection, 2005, 5.1.5); the vertices that span it into keep, their
 * number returned. */
static int triangle_closest(const simplex *S, int i, int j, int k, double v[3], int keep[3]) {
    const double *a = S->w[i], *b = S->w[j], *c = S->w[k];
    double ab[3], ac[3], bc[3];
    for (int l = 0; l < 3; ++l) ab[l] = b[l] - a[l], ac[l] = c[l] - a[l], bc[l] = c[l] - b[l];
    double d1 = -ld_v3_dot(ab, a), d2 = -ld_v3_dot(ac, a);
    double d3 = -ld_v3_dot(ab, b), d4 = -ld_v3_dot(ac, b);
    double d5 = -ld_v3_dot(ab, c), d6 = -ld_v3_dot(ac, c);
    double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
    if (d1 <= 0.0 && d2 <= 0.0) return memcpy(v, a, 3 * sizeof *v), keep[0] = i, 1;
    if (d3 >= 0.0 && d4 <= d3) return memcpy(v, b, 3 * sizeof *v), keep[0] = j, 1;
    if (d6 >= 0.0 && d5 <= d6) return memcpy(v, c, 3 * sizeof *v), keep[0] = k, 1;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double t = d1 / (d1 - d3);
        for (int l = 0; l < 3; ++l) v[l] = a[l] + t * ab[l];
        return keep[0] = i, keep[1] = j, 2;
    }
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double t = d2 / (d2 - d6);
        for (int l = 0; l < 3; ++l) v[l] = a[l] + t * ac[l];
        return keep[0] = i, keep[1] = k, 2;
    }
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int l = 0; l < 3; ++l) v[l] = b[l] + t * bc[l];
        return keep[0] = j, keep[1] = k, 2;
    }
    double den = 1.0 / (va + vb + vc), t = vb * den, u = vc * den;
    for (int l = 0; l < 3; ++l) v[l] = a[l] + t * ab[l] + u * ac[l];
    return keep[0] = i, keep[1] = j, keep[2] = k, 3;
}

/* The point v of S's hull closest to the origin, S reduced to the vertices that span it; 1 when
 * S is a tetrahedron holding the origin (S kept whole). */
static int simplex_closest(simplex *S, double v[3]) {
    int keep[3], k;
    if (S->n == 1) return memcpy(v, S->w[0], 3 * sizeof *v), 0;
    if (S->n == 2) {
        const double *a = S->w[0], *b = S->w[1];
        double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, L = ld_v3_dot(ab, ab);
        double t = L > 0.0 ? fmin(fmax(-ld_v3_dot(a, ab) / L, 0.0), 1.0) : 0.0;
        for (int l = 0; l < 3; ++l) v[l] = a[l] + t * ab[l];
        if (t <= 0.0 || t >= 1.0) keep[0] = t >= 1.0, simplex_keep(S, keep, 1);
        return 0;
    }
    if (S->n == 3) {
        k = triangle_closest(S, 0, 1, 2, v, keep);
        simplex_keep(S, keep, k);
        return 0;
    }
    static const int face[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
    double best = INFINITY, vb[3];
    int bk[3] = {0, 0, 0}, nb = 0, outside = 0;
    for (int f = 0; f < 4; ++f) {
        const double *a = S->w[face[f][0]], *b = S->w[face[f][1]], *c = S->w[face[f][2]];
        const double *d = S->w[face[f][3]];
        double ab[3], ac[3], nn[3], ad[3];
        for (int l = 0; l < 3; ++l) ab[l] = b[l] - a[l], ac[l] = c[l] - a[l], ad[l] = d[l] - a[l];
        ld_v3_cross(nn, ab, ac);
        double so = -ld_v3_dot(nn, a), sd = ld_v3_dot(nn, ad);
        double tiny = 1e-13 * ld_v3_norm(nn) * ld_v3_norm(ad);
        if (!(so * sd < 0.0 || fabs(sd) <= tiny)) continue; /* the origin on d's side */
        outside = 1;
        k = triangle_closest(S, face[f][0], face[f][1], face[f][2], vb, keep);
        double dd = ld_v3_dot(vb, vb);
        if (dd < best) best = dd, memcpy(v, vb, sizeof vb), memcpy(bk, keep, sizeof bk), nb = k;
    }
    if (!outside) return 1;
    simplex_keep(S, bk, nb);
    return 0;
}

/* The cores of A and B (the box and the cylinder shrunk by inset) by GJK: 1 when apart, with
 * the unit normal from B to A in n and their distance in *dist; 0 when they touch or overlap,
 * S then the last simplex (a tetrahedron holding the origin when they overlap). */
static int gjk(const ld_cshape *A, const ld_cshape *B, double inset, double scale, simplex *S,
               double n[3], double *dist) {
    double v[3];
    for (int i = 0; i < 3; ++i)
        v[i] = 0.5 * (A->c[i] + A->c1[i]) - 0.5 * (B->c[i] + B->c1[i]) + (i == 0) * 1e-9 * scale;
    S->n = 0;
    for (int it = 0; it < 96; ++it) {
        double mv[3] = {-v[0], -v[1], -v[2]}, pa[3], pb[3], w[3];
        core_support(A, mv, inset, pa);
        core_support(B, v, inset, pb);
        for (int i = 0; i < 3; ++i) w[i] = pa[i] - pb[i];
        double vv = ld_v3_dot(v, v), vl = sqrt(vv);
        /* no nearer point: the bounds |v| and v̂·w on the distance meet (to round-off) */
        if (S->n > 0 && vl - ld_v3_dot(v, w) / vl <= 1e-10 * vl + 1e-14 * scale) break;
        simplex prev = *S;
        double pv[3] = {v[0], v[1], v[2]};
        memcpy(S->w[S->n++], w, sizeof w);
        if (simplex_closest(S, v)) return 0;
        if (S->n > 1 && ld_v3_dot(v, v) >= vv) { /* no progress (a degenerate simplex) */
            *S = prev;
            memcpy(v, pv, sizeof pv);
            break;
        }
        if (ld_v3_dot(v, v) <= 1e-20 * scale * scale) return 0; /* touching */
    }
    *dist = ld_v3_norm(v);
    for (int i = 0; i < 3; ++i) n[i] = v[i] / *dist;
    return 1;
}

/* ---------------------------------------------------------------- EPA */

typedef struct epa_face {
    int v[3];
    double n[3], d;
} epa_face;

/* The face (i, j, k) of the polytope V, its outward normal and its distance from the origin;
 * 0 when it is degenerate. */
static int epa_make(const double (*V)[3], int i, int j, int k, epa_face *f) {
    double ab[3], ac[3];
    for (int l = 0; l < 3; ++l) ab[l] = V[j][l] - V[i][l], ac[l] = V[k][l] - V[i][l];
    ld_v3_cross(f->n, ab, ac);
    double len = ld_v3_norm(f->n);
    if (!(len > 1e-300)) return 0;
    for (int l = 0; l < 3; ++l) f->n[l] /= len;
    f->v[0] = i, f->v[1] = j, f->v[2] = k;
    f->d = ld_v3_dot(f->n, V[i]);
    return 1;
}

/* Add the edge (a, b) to the horizon, or remove its reverse when there. */
static void horizon_edge(int (*E)[2], int *ne, int a, int b) {
    for (int k = 0; k < *ne; ++k)
        if (E[k][0] == b && E[k][1] == a) {
            E[k][0] = E[*ne - 1][0], E[k][1] = E[*ne - 1][1];
            --*ne;
            return;
        }
    if (*ne < EPA_E) E[*ne][0] = a, E[*ne][1] = b, ++*ne;
}

/* Expand the polytope of V (nv vertices, F its nf faces) by the point w seen from the faces
 * it lies beyond by more than tol (a face it is level with stays: the flat end faces give many
 * such); 0 when it could not (full, or a degenerate face). */
static int epa_expand(double (*V)[3], int *nv, epa_face *F, int *nf, const double w[3],
                      double tol) {
    int E[EPA_E][2], ne = 0;
    if (*nv >= EPA_V) return 0;
    memcpy(V[*nv], w, sizeof V[0]);
    for (int i = 0; i < *nf;) {
        double r[3];
        for (int l = 0; l < 3; ++l) r[l] = w[l] - V[F[i].v[0]][l];
        if (ld_v3_dot(F[i].n, r) > tol) {
            for (int e = 0; e < 3; ++e) horizon_edge(E, &ne, F[i].v[e], F[i].v[(e + 1) % 3]);
            F[i] = F[--*nf];
        } else {
            ++i;
        }
    }
    for (int e = 0; e < ne; ++e)
        if (*nf >= EPA_F || !epa_make((const double(*)[3])V, E[e][0], E[e][1], *nv, &F[(*nf)++]))
            return 0;
    ++*nv;
    return 1;
}

/* The penetration of the cores of A and B from the tetrahedron S holding the origin: the unit
 * normal from B to A in n and the depth (≥ 0) in *depth; 0 when the polytope degenerates. */
static int epa(const ld_cshape *A, const ld_cshape *B, const simplex *S, double inset, double scale,
               double n[3], double *depth) {
    double V[EPA_V][3];
    epa_face F[EPA_F];
    int nv = 4, nf = 0;
    static const int tet[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
    memcpy(V, S->w, sizeof S->w);
    for (int f = 0; f < 4; ++f) {
        int i = tet[f][0], j = tet[f][1], k = tet[f][2], o = tet[f][3];
        if (!epa_make((const double(*)[3])V, i, j, k, &F[nf])) return 0;
        double r[3] = {V[o][0] - V[i][0], V[o][1] - V[i][1], V[o][2] - V[i][2]};
        if (ld_v3_dot(F[nf].n, r) > 0.0 && !epa_make((const double(*)[3])V, i, k, j, &F[nf]))
            return 0;
        ++nf;
    }
    double ub = INFINITY; /* the least support distance seen: the depth is at most it */
    for (int it = 0; it < 2 * EPA_V; ++it) {
        int b = 0;
        for (int f = 1; f < nf; ++f)
            if (F[f].d < F[b].d) b = f;
        double mn[3] = {-F[b].n[0], -F[b].n[1], -F[b].n[2]}, pa[3], pb[3], w[3];
        core_support(A, F[b].n, inset, pa);
        core_support(B, mn, inset, pb);
        for (int l = 0; l < 3; ++l) w[l] = pa[l] - pb[l];
        double wn = ld_v3_dot(w, F[b].n);
        if (wn < ub) ub = wn, *depth = fmax(wn, 0.0), memcpy(n, mn, sizeof mn);
        /* the closest face's distance bounds the depth from below while the polytope holds
         * the origin; stop when the bounds meet */
        if (ub - F[b].d <= 1e-12 * scale || F[b].d < -1e-12 * scale) return 1;
        if (!epa_expand(V, &nv, F, &nf, w, 1e-13 * scale)) return 1; /* the best so far */
    }
    return 1;
}

/* The normal n from B to A replaced by ± an axis of X (a box's, a cylinder's) when the gap of
 * the projections on it, *gap, is larger: the signed distance is the largest such gap over all
 * directions, so a larger one is nearer to it (and exact on a face). */
static void better_axis(const ld_cshape *A, const ld_cshape *B, const ld_cshape *X, double scale,
                        double n[3], double *gap) {
    if (X->kind != LD_SHAPE_BOX && X->kind != LD_SHAPE_CYLINDER) return;
    cyl y = cyl_of(X);
    for (int k = 0; k < (X->kind == LD_SHAPE_BOX ? 3 : 1); ++k)
        for (int sg = -1; sg <= 1; sg += 2) {
            double L[3];
            for (int i = 0; i < 3; ++i)
                L[i] = sg * (X->kind == LD_SHAPE_BOX ? X->R[3 * i + k] : y.a[i]);
            double g = proj_gap(A, B, L);
            if (g > *gap + 1e-12 * scale) *gap = g, memcpy(n, L, sizeof L);
        }
}

/* The simplex S of GJK that reached the origin with fewer than 4 vertices grown into a
 * tetrahedron (the origin then on its boundary) by support points along the directions square to
 * it; 0 when the difference has no volume there. */
static int blow_up(const ld_cshape *A, const ld_cshape *B, double inset, double scale, simplex *S) {
    static const double E[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                   {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
    while (S->n < 4) {
        double dirs[4][3], u[3], p[3], q[3];
        int nd = 0;
        for (int i = 0; i < 3; ++i) u[i] = S->w[1][i] - S->w[0][i];
        if (S->n == 1) {
            nd = 4; /* along ±x, ±y below; ±z after */
            memcpy(dirs, E, sizeof dirs);
        } else if (S->n == 2) {
            double l = ld_v3_norm(u);
            for (int i = 0; i < 3; ++i) u[i] /= l;
            perp_frame(u, p, q);
            for (int i = 0; i < 3; ++i)
                dirs[0][i] = p[i], dirs[1][i] = -p[i], dirs[2][i] = q[i], dirs[3][i] = -q[i];
            nd = 4;
        } else {
            double e[3] = {S->w[2][0] - S->w[0][0], S->w[2][1] - S->w[0][1],
                           S->w[2][2] - S->w[0][2]};
            ld_v3_cross(p, u, e);
            double l = ld_v3_norm(p);
            if (!(l > 0.0)) return 0;
            for (int i = 0; i < 3; ++i) dirs[0][i] = p[i] / l, dirs[1][i] = -p[i] / l;
            nd = 2;
        }
        int grown = 0;
        for (int k = 0; k < nd + (S->n == 1 ? 2 : 0) && !grown; ++k) {
            const double *d = k < nd ? dirs[k] : E[k];
            double md[3] = {-d[0], -d[1], -d[2]}, pa[3], pb[3], w[3], r[3];
            core_support(A, d, inset, pa);
            core_support(B, md, inset, pb);
            for (int i = 0; i < 3; ++i) w[i] = pa[i] - pb[i], r[i] = w[i] - S->w[0][i];
            if (ld_v3_dot(r, d) > 1e-9 * scale) memcpy(S->w[S->n++], w, sizeof w), grown = 1;
        }
        if (!grown) return 0;
    }
    return 1;
}

/* The unit normal from B to A along which they are nearest (apart) or least deep (overlapping),
 * from their cores by GJK or EPA; when they just touch, from their cores shrunk by a little;
 * the gap along it in *gap. 0 when they are apart by margin or more. */
static int contact_normal(const ld_cshape *A, const ld_cshape *B, double margin, double n[3],
                          double *gap) {
    double scale = size_of(A) + size_of(B), rs = core_radius(A) + core_radius(B), dist;
    simplex S;
    double inset = 0.0;
    for (int pass = 0; pass < 2; ++pass, inset = 1e-6 * scale) {
        if (gjk(A, B, inset, scale, &S, n, &dist)) {
            if (pass == 0 && dist - rs >= margin + 1e-9 * scale) return 0;
            break;
        }
        if (blow_up(A, B, inset, scale, &S) && epa(A, B, &S, inset, scale, n, &dist)) break;
        if (pass == 1) { /* no direction found: along the centres */
            for (int i = 0; i < 3; ++i) n[i] = 0.5 * (A->c[i] + A->c1[i] - B->c[i] - B->c1[i]);
            dist = ld_v3_norm(n);
            for (int i = 0; i < 3; ++i) n[i] = dist > 0.0 ? n[i] / dist : (i == 2);
        }
    }
    *gap = proj_gap(A, B, n);
    better_axis(A, B, A, scale, n, gap);
    better_axis(A, B, B, scale, n, gap);
    return *gap < margin;
}

/* ---------------------------------------------------------------- features */

/* The points of a shape's surface farthest along a direction: 1 (a corner, a point of a round
 * surface), 2 (an edge, a line of a side) or 4 … 8 (a face, an end face's octagon; in order
 * round it, fn its outward normal, disc 1 for an end face: its centre c and radius r). */
typedef struct feature {
    int n, disc;
    double p[8][3], fn[3], c[3], r;
} feature;

/* The feature of box X along the unit d: its axes within FEAT_TOL of across d span it. */
static void box_feature(const ld_cshape *X, const double d[3], feature *f) {
    double a[3][3], c[3], base[3];
    int fr[3], nfree = 0, fixed = 0;
    memcpy(base, X->c, sizeof base);
    for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < 3; ++i) a[k][i] = X->R[3 * i + k];
        c[k] = ld_v3_dot(a[k], d);
        if (fabs(c[k]) <= FEAT_TOL) {
            fr[nfree++] = k;
            continue;
        }
        fixed = k;
        for (int i = 0; i < 3; ++i) base[i] += (c[k] < 0.0 ? -X->h[k] : X->h[k]) * a[k][i];
    }
    static const double su[4] = {1, -1, -1, 1}, sv[4] = {1, 1, -1, -1};
    f->n = nfree == 0 ? 1 : nfree == 1 ? 2 : 4, f->disc = 0;
    for (int q = 0; q < f->n; ++q)
        for (int i = 0; i < 3; ++i) {
            f->p[q][i] = base[i];
            if (nfree >= 1)
                f->p[q][i] += (nfree == 1 ? (q ? 1 : -1) : su[q]) * X->h[fr[0]] * a[fr[0]][i];
            if (nfree == 2) f->p[q][i] += sv[q] * X->h[fr[1]] * a[fr[1]][i];
        }
    for (int i = 0; i < 3; ++i) f->fn[i] = (c[fixed] < 0.0 ? -1.0 : 1.0) * a[fixed][i];
}

/* The feature of cylinder C along the unit d: an end face (d within FEAT_TOL of the axis), a
 * line of the side (d within FEAT_TOL of across it) or the farthest rim point. */
static void cyl_feature(const ld_cshape *C, const double d[3], feature *f) {
    cyl y = cyl_of(C);
    double w[3], s = radial(d, y.a, w), ca = ld_v3_dot(d, y.a), sg = ca < 0.0 ? -1.0 : 1.0;
    f->disc = 0;
    if (s <= FEAT_TOL) {
        double u[3], v[3];
        perp_frame(y.a, u, v);
        f->n = 8, f->disc = 1, f->r = y.r;
        for (int i = 0; i < 3; ++i) f->c[i] = y.m[i] + sg * y.hl * y.a[i], f->fn[i] = sg * y.a[i];
        for (int q = 0; q < 8; ++q)
            for (int i = 0; i < 3; ++i)
                f->p[q][i] = f->c[i] + y.r * (RIM[q][0] * u[i] + RIM[q][1] * v[i]);
        return;
    }
    f->n = fabs(ca) <= FEAT_TOL ? 2 : 1;
    for (int q = 0; q < f->n; ++q) {
        double e = f->n == 2 ? (q ? y.hl : -y.hl) : sg * y.hl;
        for (int i = 0; i < 3; ++i) f->p[q][i] = y.m[i] + e * y.a[i] + y.r * w[i];
    }
}

/* The feature of shape S along the unit d. */
static void feature_of(const ld_cshape *S, const double d[3], feature *f) {
    if (S->kind == LD_SHAPE_BOX || S->kind == LD_SHAPE_CYLINDER) {
        (S->kind == LD_SHAPE_BOX ? box_feature : cyl_feature)(S, d, f);
        return;
    }
    double e[3] = {S->c1[0] - S->c[0], S->c1[1] - S->c[1], S->c1[2] - S->c[2]};
    double L = ld_v3_norm(e);
    f->disc = 0;
    f->n = S->kind == LD_SHAPE_CAPSULE && L > 0.0 && fabs(ld_v3_dot(e, d)) <= FEAT_TOL * L ? 2 : 1;
    if (f->n == 1) {
        support(S, d, f->p[0]);
        return;
    }
    for (int i = 0; i < 3; ++i)
        f->p[0][i] = S->c[i] + S->r * d[i], f->p[1][i] = S->c1[i] + S->r * d[i];
}

/* ---------------------------------------------------------------- clipping */

/* Clip the polygon p (n points, in order) to the half space u·x ≤ w, into q (at most 24). */
static int clip_poly(const double (*p)[3], int n, const double u[3], double w, double (*q)[3]) {
    int m = 0;
    for (int k = 0; k < n; ++k) {
        const double *s = p[(k + n - 1) % n], *e = p[k];
        double ds = ld_v3_dot(u, s) - w, de = ld_v3_dot(u, e) - w;
        if ((ds > 0.0) != (de > 0.0) && m < 24) {
            double t = ds / (ds - de);
            for (int i = 0; i < 3; ++i) q[m][i] = s[i] + t * (e[i] - s[i]);
            ++m;
        }
        if (de <= 0.0 && m < 24) memcpy(q[m++], e, sizeof q[0]);
    }
    return m;
}

/* Clip the segment p[0]–p[1] to the half space u·x ≤ w; 0 when none of it is left. */
static int clip_seg(double (*p)[3], const double u[3], double w) {
    double d0 = ld_v3_dot(u, p[0]) - w, d1 = ld_v3_dot(u, p[1]) - w;
    if (d0 > 0.0 && d1 > 0.0) return 0;
    if (d0 > 0.0 || d1 > 0.0) {
        int out = d0 > 0.0;
        double t = d0 / (d0 - d1);
        for (int i = 0; i < 3; ++i) p[out ? 0 : 1][i] = p[0][i] + t * (p[1][i] - p[0][i]);
    }
    return 1;
}

/* Clip the segment p[0]–p[1] to the cylinder of radius r about the line through c along the
 * unit a (an end face's disc seen along its normal); 0 when it misses it. */
static int clip_disc(double (*p)[3], const double c[3], const double a[3], double r) {
    double e0[3], e1[3], x0[3], x1[3];
    for (int i = 0; i < 3; ++i) e0[i] = p[0][i] - c[i], e1[i] = p[1][i] - p[0][i];
    across(e0, a, x0);
    across(e1, a, x1);
    double A = ld_v3_dot(x1, x1), Bh = ld_v3_dot(x0, x1), C = ld_v3_dot(x0, x0) - r * r;
    double t0 = 0.0, t1 = 1.0;
    if (A > 1e-300) {
        double disc = Bh * Bh - A * C;
        if (disc < 0.0) return 0;
        double sq = sqrt(disc);
        t0 = fmax(t0, (-Bh - sq) / A), t1 = fmin(t1, (-Bh + sq) / A);
        if (t0 > t1) return 0;
    } else if (C > 0.0) {
        return 0;
    }
    double q0[3], q1[3];
    for (int i = 0; i < 3; ++i) q0[i] = p[0][i] + t0 * e1[i], q1[i] = p[0][i] + t1 * e1[i];
    memcpy(p[0], q0, sizeof q0);
    memcpy(p[1], q1, sizeof q1);
    return 1;
}

/* Drop points of the polygon q (m, in order) with the least corner area until 8 are left. */
static int reduce8(double (*q)[3], int m) {
    while (m > 8) {
        int k = 0;
        double best = INFINITY;
        for (int i = 0; i < m; ++i) {
            const double *a = q[(i + m - 1) % m], *b = q[i], *c = q[(i + 1) % m];
            double u[3], v[3], x[3];
            for (int l = 0; l < 3; ++l) u[l] = b[l] - a[l], v[l] = c[l] - b[l];
            ld_v3_cross(x, u, v);
            double area = ld_v3_norm(x);
            if (area < best) best = area, k = i;
        }
        memmove(q[k], q[k + 1], (size_t)(m - 1 - k) * sizeof q[0]);
        --m;
    }
    return m;
}

/* The contacts of the incident feature I with the reference face R (of the shape Rs; I of Is):
 * I clipped to R's sides (a segment to an end face's disc exactly), each point's gap above R's
 * plane along R's normal, and I's point deepest below it when inside; at most 8. refA: R is
 * A's, so the normal from B to A is −fn. */
static int face_contacts(const feature *R, const feature *I, const ld_cshape *Is, int refA,
                         double margin, ld_contact *out) {
    double poly[2][24][3], nc[3], mid[3] = {0, 0, 0};
    int m = I->n, cur = 0;
    memcpy(poly[0], I->p, (size_t)m * sizeof poly[0][0]);
    for (int q = 0; q < R->n; ++q)
        for (int i = 0; i < 3; ++i) mid[i] += R->p[q][i] / R->n;
    for (int i = 0; i < 3; ++i) nc[i] = refA ? -R->fn[i] : R->fn[i];
    if (m == 2 && R->disc) {
        m = 2 * clip_disc(poly[0], R->c, R->fn, R->r);
    } else {
        for (int q = 0; q < R->n && m > 0; ++q) {
            const double *a = R->p[q], *b = R->p[(q + 1) % R->n];
            double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, u[3], r[3];
            ld_v3_cross(u, e, R->fn);
            for (int i = 0; i < 3; ++i) r[i] = mid[i] - a[i];
            if (ld_v3_dot(u, r) > 0.0)
                for (int i = 0; i < 3; ++i) u[i] = -u[i];
            if (m == 2) {
                m = 2 * clip_seg(poly[cur], u, ld_v3_dot(u, a));
            } else {
                m = clip_poly((const double(*)[3])poly[cur], m, u, ld_v3_dot(u, a), poly[1 - cur]);
                cur = 1 - cur;
            }
        }
    }
    int k = 0;
    for (int q = 0; q < m; ++q) { /* keep those below margin, in order */
        double g = ld_v3_dot(R->fn, poly[cur][q]) - ld_v3_dot(R->fn, R->p[0]);
        if (g < margin) memcpy(poly[cur][k++], poly[cur][q], sizeof poly[0][0]);
    }
    m = reduce8(poly[cur], k);
    int n = 0;
    for (int q = 0; q < m; ++q) {
        double g = ld_v3_dot(R->fn, poly[cur][q]) - ld_v3_dot(R->fn, R->p[0]), x[3];
        for (int i = 0; i < 3; ++i) x[i] = poly[cur][q][i] - 0.5 * g * R->fn[i];
        out[n].gap = g;
        for (int i = 0; i < 3; ++i) out[n].n[i] = nc[i], out[n].p[i] = x[i];
        ++n;
    }
    /* the incident's deepest point (a tilted end face's lowest rim point), when over R */
    double mfn[3] = {-R->fn[0], -R->fn[1], -R->fn[2]}, y[3], g;
    support(Is, mfn, y);
    g = ld_v3_dot(R->fn, y) - ld_v3_dot(R->fn, R->p[0]);
    double low = INFINITY;
    for (int q = 0; q < n; ++q) low = fmin(low, out[q].gap);
    if (!(g < low - 1e-12 * (fabs(g) + 1.0)) || !(g < margin)) return n;
    if (R->disc) {
        double e[3], x[3];
        for (int i = 0; i < 3; ++i) e[i] = y[i] - R->c[i];
        if (across(e, R->fn, x) > R->r) return n;
    } else {
        for (int q = 0; q < R->n; ++q) {
            const double *a = R->p[q], *b = R->p[(q + 1) % R->n];
            double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, u[3], r[3], s[3];
            ld_v3_cross(u, e, R->fn);
            for (int i = 0; i < 3; ++i) r[i] = mid[i] - a[i], s[i] = y[i] - a[i];
            if (ld_v3_dot(u, r) * ld_v3_dot(u, s) < 0.0) return n; /* y outside this side */
        }
    }
    double x[3];
    for (int i = 0; i < 3; ++i) x[i] = y[i] - 0.5 * g * R->fn[i];
    int k8 = n;
    if (n == 8)
        for (int q = k8 = 0; q < 8; ++q)
            if (out[q].gap > out[k8].gap) k8 = q;
    out[k8].gap = g;
    for (int i = 0; i < 3; ++i) out[k8].n[i] = nc[i], out[k8].p[i] = x[i];
    return n < 8 ? n + 1 : 8;
}

/* Two lines (A's a, B's b, each 2 points): parallel, the ends of their common part (2), each
 * with its gap along the normal n made square to them (the lines taken again along it);
 * crossing, their closest points (1), along the normal square to both. */
static int line_contacts(const ld_cshape *A, const ld_cshape *B, feature *a, feature *b,
                         const double n[3], double margin, ld_contact *out) {
    double ua[3], ub[3], x[3], nc[3];
    for (int i = 0; i < 3; ++i) ua[i] = a->p[1][i] - a->p[0][i], ub[i] = b->p[1][i] - b->p[0][i];
    double la = ld_v3_norm(ua), lb = ld_v3_norm(ub);
    for (int i = 0; i < 3; ++i) ua[i] /= la, ub[i] /= lb;
    ld_v3_cross(x, ua, ub);
    double sx = ld_v3_norm(x);
    if (sx <= FEAT_TOL) { /* parallel: A's line clipped to B's extent */
        double seg[2][3], s = across(n, ub, nc), mnc[3];
        feature a2, b2;
        for (int i = 0; i < 3; ++i) nc[i] /= s, mnc[i] = -nc[i];
        feature_of(A, mnc, &a2);
        feature_of(B, nc, &b2);
        if (a2.n == 2 && b2.n == 2) *a = a2, *b = b2;
        memcpy(seg, a->p, sizeof seg);
        double mub[3] = {-ub[0], -ub[1], -ub[2]};
        if (!clip_seg(seg, ub, ld_v3_dot(ub, b->p[1])) ||
            !clip_seg(seg, mub, -ld_v3_dot(ub, b->p[0])))
            return 0;
        int m = 0;
        for (int e = 0; e < 2; ++e) {
            if (e == 1 && fabs(ld_v3_dot(ub, seg[1]) - ld_v3_dot(ub, seg[0])) < 1e-12 * lb) break;
            double r[3] = {seg[e][0] - b->p[0][0], seg[e][1] - b->p[0][1], seg[e][2] - b->p[0][2]};
            add_point(out, &m, seg[e], nc, ld_v3_dot(nc, r), margin);
        }
        return m;
    }
    double pa[3], pb[3], d[3];
    for (int i = 0; i < 3; ++i) nc[i] = (ld_v3_dot(x, n) < 0.0 ? -x[i] : x[i]) / sx;
    double mnc[3] = {-nc[0], -nc[1], -nc[2]};
    feature a2, b2;
    feature_of(A, mnc, &a2);
    feature_of(B, nc, &b2);
    if (a2.n == 2 && b2.n == 2) *a = a2, *b = b2;
    ld_contact_segments(a->p[0], a->p[1], b->p[0], b->p[1], pa, pb);
    for (int i = 0; i < 3; ++i) d[i] = pa[i] - pb[i];
    double g = ld_v3_dot(nc, d);
    if (!(g < margin)) return 0;
    out->gap = g;
    for (int i = 0; i < 3; ++i) out->n[i] = nc[i], out->p[i] = 0.5 * (pa[i] + pb[i]);
    return 1;
}

/* One contact where a point meets (a, b the features of A along −n and B along n, one a single
 * point): the normal made that of the other's face, or square to its line, the gap exact along
 * it, the point midway. */
static int point_contact(const ld_cshape *A, const ld_cshape *B, const feature *a, const feature *b,
                         const double n[3], double margin, ld_contact *out) {
    double nc[3];
    memcpy(nc, n, sizeof nc);
    const feature *o = a->n == 1 ? b : a; /* the other */
    if (o->n >= 4) {
        double sg = o == b ? 1.0 : -1.0;
        for (int i = 0; i < 3; ++i) nc[i] = sg * o->fn[i];
    } else if (o->n == 2) {
        double u[3], w[3];
        for (int i = 0; i < 3; ++i) u[i] = o->p[1][i] - o->p[0][i];
        double l = ld_v3_norm(u);
        for (int i = 0; i < 3; ++i) u[i] /= l;
        double s = across(n, u, w);
        for (int i = 0; i < 3; ++i) nc[i] = w[i] / s;
    }
    double mn[3] = {-nc[0], -nc[1], -nc[2]}, pa[3], pb[3];
    support(A, mn, pa);
    support(B, nc, pb);
    double g = ld_v3_dot(nc, pa) - ld_v3_dot(nc, pb);
    if (!(g < margin)) return 0;
    out->gap = g;
    for (int i = 0; i < 3; ++i) {
        out->n[i] = nc[i];
        out->p[i] = a->n == 1 && b->n == 1 ? 0.5 * (pa[i] + pb[i])
                    : a->n == 1            ? pa[i] - 0.5 * g * nc[i]
                                           : pb[i] + 0.5 * g * nc[i];
    }
    return 1;
}

/* The contacts of A and B about the normal n (from B to A): by the features it meets — a
 * point's one contact; a face the reference, the other's feature taken again along its normal
 * and clipped to it; two lines. */
static int manifold(const ld_cshape *A, const ld_cshape *B, const double n[3], double margin,
                    ld_contact *out) {
    feature fa, fb;
    double mn[3] = {-n[0], -n[1], -n[2]};
    feature_of(A, mn, &fa);
    feature_of(B, n, &fb);
    if (fa.n == 1 || fb.n == 1) return point_contact(A, B, &fa, &fb, n, margin, out);
    if (fa.n < 4 && fb.n < 4) return line_contacts(A, B, &fa, &fb, n, margin, out);
    /* the reference: the face better aligned with n; a box's rather than an end face's */
    double qa = fa.n >= 4 ? fabs(ld_v3_dot(fa.fn, n)) + 1e-9 * (A->kind == LD_SHAPE_BOX) : -1;
    double qb = fb.n >= 4 ? fabs(ld_v3_dot(fb.fn, n)) + 1e-9 * (B->kind == LD_SHAPE_BOX) : -1;
    int refA = qa > qb;
    const feature *R = refA ? &fa : &fb;
    feature *I = refA ? &fb : &fa;
    const ld_cshape *Is = refA ? B : A;
    double d[3] = {-R->fn[0], -R->fn[1], -R->fn[2]};
    feature_of(Is, d, I);
    if (I->n == 1) return point_contact(A, B, &fa, &fb, n, margin, out);
    return face_contacts(R, I, Is, refA, margin, out);
}

int ld_contact_cylinder(const ld_cshape *A, const ld_cshape *B, double margin, ld_contact *out) {
    if (A->kind == LD_SHAPE_SPHERE || B->kind == LD_SHAPE_SPHERE) {
        int sa = A->kind == LD_SHAPE_SPHERE;
        const ld_cshape *S = sa ? A : B, *C = sa ? B : A;
        int n = sphere_cyl(S->c, S->r, C, margin, out);
        for (int i = 0; i < 3 && n && !sa; ++i) out->n[i] = -out->n[i];
        return n;
    }
    double n[3], gap;
    if (!contact_normal(A, B, margin, n, &gap)) return 0;
    return manifold(A, B, n, margin, out);
}

/*
 * The exact contact tests of the primitive pairs (contact.h, docs/contact.md): sphere, capsule
 * and box against the ground plane and each other — round shapes by the closest points of their
 * cores, box–box by the separating axis test with face clipping or the closest points of two
 * edges, capsule–box by the closest points of a segment and a box; the cylinder's pairs in
 * contact_cylinder.c. The placing of a shape at its body's pose. No allocation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "contact.h"
#include "liedyn/liedyn.h"

/* ---------------------------------------------------------------- the pair tests */

/* A contact from the closest points pa (on A's core) and pb (on B's core) of two cores with
 * radii ra and rb (spheres and capsules are points and segments with a radius). */
static int round_pair(const double pa[3], double ra, const double pb[3], double rb, double margin,
                      ld_contact *o) {
    double d[3], dist;
    for (int i = 0; i < 3; ++i) d[i] = pa[i] - pb[i];
    dist = ld_v3_norm(d);
    double gap = dist - ra - rb;
    if (!(gap < margin)) return 0;
    if (dist > 1e-300)
        for (int i = 0; i < 3; ++i) o->n[i] = d[i] / dist;
    else
        o->n[0] = o->n[1] = 0.0, o->n[2] = 1.0; /* coincident centres: any direction */
    o->gap = gap;
    for (int i = 0; i < 3; ++i) o->p[i] = 0.5 * ((pa[i] - ra * o->n[i]) + (pb[i] + rb * o->n[i]));
    return 1;
}

/* The closest points of the segments p0–p1 and q0–q1 (Ericson, Real-Time Collision Detection,
 * 5.1.9), into a and b. */
void ld_contact_segments(const double p0[3], const double p1[3], const double q0[3],
                         const double q1[3], double a[3], double b[3]) {
    double d1[3], d2[3], r[3];
    for (int i = 0; i < 3; ++i) d1[i] = p1[i] - p0[i], d2[i] = q1[i] - q0[i], r[i] = p0[i] - q0[i];
    double A = ld_v3_dot(d1, d1), E = ld_v3_dot(d2, d2), F = ld_v3_dot(d2, r);
    double s = 0.0, t = 0.0;
    if (A <= 1e-300 && E <= 1e-300) {
        s = t = 0.0;
    } else if (A <= 1e-300) {
        t = fmin(fmax(F / E, 0.0), 1.0);
    } else {
        double C = ld_v3_dot(d1, r);
        if (E <= 1e-300) {
            s = fmin(fmax(-C / A, 0.0), 1.0);
        } else {
            double B = ld_v3_dot(d1, d2), den = A * E - B * B;
            s = den > 1e-14 * A * E ? fmin(fmax((B * F - C * E) / den, 0.0), 1.0) : 0.0;
            t = (B * s + F) / E;
            if (t < 0.0) {
                t = 0.0;
                s = fmin(fmax(-C / A, 0.0), 1.0);
            } else if (t > 1.0) {
                t = 1.0;
                s = fmin(fmax((B - C) / A, 0.0), 1.0);
            }
        }
    }
    for (int i = 0; i < 3; ++i) a[i] = p0[i] + s * d1[i], b[i] = q0[i] + t * d2[i];
}

/* The point of segment p0–p1 closest to c. */
static void seg_point(const double p0[3], const double p1[3], const double c[3], double a[3]) {
    double d[3], r[3];
    for (int i = 0; i < 3; ++i) d[i] = p1[i] - p0[i], r[i] = c[i] - p0[i];
    double L = ld_v3_dot(d, d), s = L > 1e-300 ? fmin(fmax(ld_v3_dot(r, d) / L, 0.0), 1.0) : 0.0;
    for (int i = 0; i < 3; ++i) a[i] = p0[i] + s * d[i];
}

/* A sphere (c, r) against a box B; the normal from the box to the sphere. */
static int sphere_box(const double c[3], double r, const ld_cshape *B, double margin,
                      ld_contact *o) {
    double d[3], l[3], q[3];
    for (int i = 0; i < 3; ++i) d[i] = c[i] - B->c[i];
    ld_m3_tmulv(l, B->R, d);
    int inside = 1;
    for (int i = 0; i < 3; ++i) {
        q[i] = fmin(fmax(l[i], -B->h[i]), B->h[i]);
        inside &= fabs(l[i]) <= B->h[i];
    }
    double nl[3] = {0, 0, 0}, gap;
    if (inside) { /* the face of least depth */
        int k = 0;
        for (int i = 1; i < 3; ++i)
            if (B->h[i] - fabs(l[i]) < B->h[k] - fabs(l[k])) k = i;
        nl[k] = l[k] < 0.0 ? -1.0 : 1.0;
        q[k] = nl[k] * B->h[k];
        gap = -(B->h[k] - fabs(l[k])) - r;
    } else {
        double e[3];
        for (int i = 0; i < 3; ++i) e[i] = l[i] - q[i];
        double dist = ld_v3_norm(e);
        for (int i = 0; i < 3; ++i) nl[i] = e[i] / dist;
        gap = dist - r;
    }
    if (!(gap < margin)) return 0;
    double pb[3], ql[3];
    ld_m3_mulv(o->n, B->R, nl);
    ld_m3_mulv(ql, B->R, q);
    for (int i = 0; i < 3; ++i) pb[i] = B->c[i] + ql[i];
    o->gap = gap;
    for (int i = 0; i < 3; ++i) o->p[i] = 0.5 * ((c[i] - r * o->n[i]) + pb[i]);
    return 1;
}

/* ---------------------------------------------------------------- box against box */

/* Column i of X's axes (a unit vector in space). */
static void box_axis(const ld_cshape *X, int i, double a[3]) {
    for (int k = 0; k < 3; ++k) a[k] = X->R[3 * k + i];
}

/* The half width of box X's projection on the unit L: Σ h_i |a_i·L|. */
static double box_reach(const ld_cshape *X, const double L[3]) {
    double r = 0.0, a[3];
    for (int i = 0; i < 3; ++i) {
        box_axis(X, i, a);
        r += X->h[i] * fabs(ld_v3_dot(a, L));
    }
    return r;
}

/* A candidate separating axis: A's face i (kind 0), B's face j (1), or the edges i of A and
 * j of B (2); s the gap of the projections on it (< 0: they overlap), n the axis, unit, from B
 * towards A. */
typedef struct box_axis_gap {
    int kind, i, j;
    double s, n[3];
} box_axis_gap;

/* The gap of A's and B's projections on the unit L, with the axis turned from B to A. */
static box_axis_gap axis_gap(const ld_cshape *A, const ld_cshape *B, const double L[3], int kind,
                             int i, int j) {
    double d[3];
    for (int k = 0; k < 3; ++k) d[k] = A->c[k] - B->c[k];
    double dl = ld_v3_dot(d, L), sg = dl < 0.0 ? -1.0 : 1.0;
    box_axis_gap g = {kind, i, j, fabs(dl) - box_reach(A, L) - box_reach(B, L), {0, 0, 0}};
    for (int k = 0; k < 3; ++k) g.n[k] = sg * L[k];
    return g;
}

/* The separating axis test over the 15 axes: the axis of largest gap (least penetration), a face
 * axis unless an edge axis is clearly better (by 5 % of the depth: a resting face keeps its
 * manifold), A's faces unless B's are better beyond round-off. Edge pairs within 10⁻⁶ rad of
 * parallel are skipped (their axis is a face axis's or undefined). */
static box_axis_gap box_sat(const ld_cshape *A, const ld_cshape *B) {
    double a[3], b[3], L[3];
    double scale = A->h[0] + A->h[1] + A->h[2] + B->h[0] + B->h[1] + B->h[2];
    box_axis_gap best, g;
    box_axis(A, 0, a);
    best = axis_gap(A, B, a, 0, 0, 0);
    for (int i = 1; i < 3; ++i) {
        box_axis(A, i, a);
        g = axis_gap(A, B, a, 0, i, 0);
        if (g.s > best.s) best = g;
    }
    for (int j = 0; j < 3; ++j) {
        box_axis(B, j, b);
        g = axis_gap(A, B, b, 1, 0, j);
        if (g.s > best.s + 1e-12 * scale + 1e-9 * fabs(best.s)) best = g;
    }
    double face = best.s, tol = 0.05 * fabs(face) + 1e-9 * scale;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            box_axis(A, i, a);
            box_axis(B, j, b);
            ld_v3_cross(L, a, b);
            double len = ld_v3_norm(L);
            if (len < 1e-6) continue;
            for (int k = 0; k < 3; ++k) L[k] /= len;
            g = axis_gap(A, B, L, 2, i, j);
            if (g.s > face + tol && g.s > best.s) best = g;
        }
    return best;
}

/* Clip the polygon p (n points, at most 8) to the half space u·x ≤ w, into q; the new number
 * (at most n + 1, kept at most 8: a convex polygon cut by a plane gains at most one corner). */
static int clip_half(const double (*p)[3], int n, const double u[3], double w, double (*q)[3]) {
    int m = 0;
    for (int k = 0; k < n; ++k) {
        const double *s = p[(k + n - 1) % n], *e = p[k];
        double ds = ld_v3_dot(u, s) - w, de = ld_v3_dot(u, e) - w;
        if ((ds > 0.0) != (de > 0.0) && m < 8) { /* the edge crosses the plane */
            double t = ds / (ds - de);
            for (int i = 0; i < 3; ++i) q[m][i] = s[i] + t * (e[i] - s[i]);
            ++m;
        }
        if (de <= 0.0 && m < 8) memcpy(q[m++], e, sizeof q[0]);
    }
    return m;
}

/* The face of box X whose outward normal is most opposed to the unit nr, its 4 corners into
 * f (in order round the face). */
static void incident_face(const ld_cshape *X, const double nr[3], double f[4][3]) {
    double a[3][3], dots[3];
    int m = 0;
    for (int i = 0; i < 3; ++i) {
        box_axis(X, i, a[i]);
        dots[i] = ld_v3_dot(a[i], nr);
        if (fabs(dots[i]) > fabs(dots[m])) m = i;
    }
    int u = (m + 1) % 3, v = (m + 2) % 3;
    double sm = dots[m] > 0.0 ? -1.0 : 1.0;
    static const double su[4] = {1, -1, -1, 1}, sv[4] = {1, 1, -1, -1};
    for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 3; ++i)
            f[k][i] = X->c[i] + sm * X->h[m] * a[m][i] + su[k] * X->h[u] * a[u][i] +
                      sv[k] * X->h[v] * a[v][i];
}

/* The face contact of the reference box Ref's face k (outward normal nr, towards Inc) and the
 * box Inc: Inc's incident face clipped to the reference face's sides (Sutherland–Hodgman), its
 * corners with a gap below margin above the reference face; at most 8 into out. flip: Ref is
 * A, so the normal (from B to A) is −nr. */
static int box_face(const ld_cshape *Ref, const ld_cshape *Inc, int k, const double nr[3],
                    double margin, int flip, ld_contact *out) {
    double poly[2][8][3], a[3];
    incident_face(Inc, nr, poly[0]);
    int n = 4, cur = 0;
    for (int s = 1; s <= 2 && n > 0; ++s) {
        box_axis(Ref, (k + s) % 3, a);
        double w = ld_v3_dot(a, Ref->c), h = Ref->h[(k + s) % 3], na[3] = {-a[0], -a[1], -a[2]};
        n = clip_half((const double(*)[3])poly[cur], n, a, w + h, poly[1 - cur]);
        cur = 1 - cur;
        n = clip_half((const double(*)[3])poly[cur], n, na, h - w, poly[1 - cur]);
        cur = 1 - cur;
    }
    double top = ld_v3_dot(nr, Ref->c) + Ref->h[k];
    int m = 0;
    for (int q = 0; q < n; ++q) {
        const double *p = poly[cur][q];
        double gap = ld_v3_dot(nr, p) - top;
        if (!(gap < margin)) continue;
        ld_contact *o = &out[m++];
        o->gap = gap;
        for (int i = 0; i < 3; ++i) {
            o->n[i] = flip ? -nr[i] : nr[i];
            o->p[i] = p[i] - 0.5 * gap * nr[i];
        }
    }
    return m;
}

/* The middle of the edge of box X along axis i that lies farthest along dir, into e. */
static void support_edge(const ld_cshape *X, int i, const double dir[3], double e[3]) {
    double a[3];
    memcpy(e, X->c, 3 * sizeof *e);
    for (int k = 0; k < 3; ++k) {
        if (k == i) continue;
        box_axis(X, k, a);
        double sg = ld_v3_dot(a, dir) < 0.0 ? -1.0 : 1.0;
        for (int l = 0; l < 3; ++l) e[l] += sg * X->h[k] * a[l];
    }
}

/* The edge–edge contact on the axis g (A's edge i, B's edge j): one contact at the closest
 * points of the two edges, its gap along g.n; 0 or 1 into out. */
static int box_edges(const ld_cshape *A, const ld_cshape *B, const box_axis_gap *g, double margin,
                     ld_contact *out) {
    double down[3] = {-g->n[0], -g->n[1], -g->n[2]}, ea[3], eb[3], a[3], b[3];
    double a0[3], a1[3], b0[3], b1[3], pa[3], pb[3], d[3];
    support_edge(A, g->i, down, ea);
    support_edge(B, g->j, g->n, eb);
    box_axis(A, g->i, a);
    box_axis(B, g->j, b);
    for (int l = 0; l < 3; ++l) {
        a0[l] = ea[l] - A->h[g->i] * a[l], a1[l] = ea[l] + A->h[g->i] * a[l];
        b0[l] = eb[l] - B->h[g->j] * b[l], b1[l] = eb[l] + B->h[g->j] * b[l];
    }
    ld_contact_segments(a0, a1, b0, b1, pa, pb);
    for (int l = 0; l < 3; ++l) d[l] = pa[l] - pb[l];
    double gap = ld_v3_dot(d, g->n);
    if (!(gap < margin)) return 0;
    out->gap = gap;
    memcpy(out->n, g->n, sizeof out->n);
    for (int l = 0; l < 3; ++l) out->p[l] = 0.5 * (pa[l] + pb[l]);
    return 1;
}

/* Two boxes: the separating axis of least penetration, then its manifold (a face: at most 8
 * clipped corners; two edges: their closest points). None when some axis separates them by
 * margin or more (the distance is at least that gap). */
static int box_box(const ld_cshape *A, const ld_cshape *B, double margin, ld_contact *out) {
    box_axis_gap g = box_sat(A, B);
    if (!(g.s < margin)) return 0;
    if (g.kind == 2) return box_edges(A, B, &g, margin, out);
    if (g.kind == 1) return box_face(B, A, g.j, g.n, margin, 0, out);
    double nr[3] = {-g.n[0], -g.n[1], -g.n[2]}; /* A's face, towards B */
    return box_face(A, B, g.i, nr, margin, 1, out);
}

/* ---------------------------------------------------------------- capsule against box */

/* A contact of a capsule (radius r) with the box B, from box-local points: sp on the capsule's
 * segment, q on the box's surface, the unit normal nl from the box to the capsule and the gap;
 * into o in space, 0 when the gap is not below margin. */
static int cap_contact(const ld_cshape *B, double r, const double sp[3], const double q[3],
                       const double nl[3], double gap, double margin, ld_contact *o) {
    if (!(gap < margin)) return 0;
    double mid[3], w[3];
    for (int i = 0; i < 3; ++i) mid[i] = 0.5 * ((sp[i] - r * nl[i]) + q[i]);
    ld_m3_mulv(o->n, B->R, nl);
    ld_m3_mulv(w, B->R, mid);
    for (int i = 0; i < 3; ++i) o->p[i] = B->c[i] + w[i];
    o->gap = gap;
    return 1;
}

/* The part of the segment p0–p1 within the slabs |x_k| ≤ h_k, k ≠ skip (skip −1: the box): its
 * parameters t[0] ≤ t[1] in [0, 1], and 1; 0 when it is empty. */
static int clip_slabs(const double p0[3], const double p1[3], const double h[3], int skip,
                      double t[2]) {
    t[0] = 0.0, t[1] = 1.0;
    for (int k = 0; k < 3; ++k) {
        if (k == skip) continue;
        double d = p1[k] - p0[k];
        if (fabs(d) < 1e-300) {
            if (fabs(p0[k]) > h[k]) return 0;
            continue;
        }
        double ta = (-h[k] - p0[k]) / d, tb = (h[k] - p0[k]) / d;
        t[0] = fmax(t[0], fmin(ta, tb)), t[1] = fmin(t[1], fmax(ta, tb));
        if (t[0] > t[1]) return 0;
    }
    return 1;
}

/* The capsule's segment p0–p1 (box-local, radius r) on the face k of B with outward normal
 * s e_k: the ends of the segment's part over the face, each with its own gap; at most 2. */
static int cap_face(const ld_cshape *B, const double p0[3], const double p1[3], double r, int k,
                    double s, double margin, ld_contact *out) {
    double t[2], nl[3] = {0, 0, 0};
    nl[k] = s;
    if (!clip_slabs(p0, p1, B->h, k, t)) return 0;
    int n = 0;
    for (int e = 0; e < 2; ++e) {
        if (e == 1 && t[1] - t[0] < 1e-9) break; /* one point */
        double sp[3], q[3];
        for (int i = 0; i < 3; ++i) sp[i] = p0[i] + t[e] * (p1[i] - p0[i]);
        memcpy(q, sp, sizeof q);
        q[k] = s * B->h[k];
        n += cap_contact(B, r, sp, q, nl, s * sp[k] - B->h[k] - r, margin, out + n);
    }
    return n;
}

/* The closest points of the segment p0–p1 (box-local, outside the box) and the box of half
 * edges h: the segment's ends against the box, the segment against the 12 edges; sp on the
 * segment, q on the box, their distance returned. */
static double seg_box_closest(const double p0[3], const double p1[3], const double h[3],
                              double sp[3], double q[3]) {
    double best = INFINITY, a[3], b[3], e0[3], e1[3];
    for (int c = 0; c < 2 + 12; ++c) {
        if (c < 2) { /* an end and its clamp */
            memcpy(a, c ? p1 : p0, sizeof a);
            for (int i = 0; i < 3; ++i) b[i] = fmin(fmax(a[i], -h[i]), h[i]);
        } else { /* edge along axis i at the corner signs of the other two */
            int i = (c - 2) / 4, u = (i + 1) % 3, v = (i + 2) % 3, sg = (c - 2) % 4;
            e0[u] = e1[u] = (sg & 1 ? 1 : -1) * h[u];
            e0[v] = e1[v] = (sg & 2 ? 1 : -1) * h[v];
            e0[i] = -h[i], e1[i] = h[i];
            ld_contact_segments(p0, p1, e0, e1, a, b);
        }
        double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]}, dist = ld_v3_norm(d);
        if (dist < best) best = dist, memcpy(sp, a, 3 * sizeof *a), memcpy(q, b, 3 * sizeof *b);
    }
    return best;
}

/* The segment p0–p1 (box-local) crossing the box B: the separating axis of least penetration
 * among B's faces and the crossings e_k × (p1 − p0) (a face unless a crossing is clearly
 * better); its face contacts, or one at the segment's closest point to B's edge along it. */
static int cap_deep(const ld_cshape *B, const double p0[3], const double p1[3], double r,
                    double margin, ld_contact *out) {
    double d[3], m[3], L[3], nl[3], best = -INFINITY, face = -INFINITY;
    int kind = 0, k = 0;
    for (int i = 0; i < 3; ++i) d[i] = p1[i] - p0[i], m[i] = 0.5 * (p0[i] + p1[i]);
    for (int c = 0; c < 6; ++c) {
        if (c == 3) face = best;
        double e[3] = {0, 0, 0};
        e[c % 3] = 1.0;
        if (c < 3) {
            memcpy(L, e, sizeof L);
        } else {
            ld_v3_cross(L, e, d);
            double len = ld_v3_norm(L);
            if (len < 1e-6 * ld_v3_norm(d)) continue;
            for (int i = 0; i < 3; ++i) L[i] /= len;
        }
        double s = fabs(ld_v3_dot(m, L)) - 0.5 * fabs(ld_v3_dot(d, L)) -
                   (B->h[0] * fabs(L[0]) + B->h[1] * fabs(L[1]) + B->h[2] * fabs(L[2]));
        if (c < 3 ? s > best : s > face + 0.05 * fabs(face) && s > best) {
            double sg = ld_v3_dot(m, L) < 0.0 ? -1.0 : 1.0;
            best = s, kind = c >= 3, k = c % 3;
            for (int i = 0; i < 3; ++i) nl[i] = sg * L[i];
        }
    }
    if (!kind) return cap_face(B, p0, p1, r, k, nl[k] < 0.0 ? -1.0 : 1.0, margin, out);
    double e0[3], e1[3], sp[3], q[3], w[3];
    for (int i = 0; i < 3; ++i) e0[i] = e1[i] = (nl[i] < 0.0 ? -1.0 : 1.0) * B->h[i];
    e0[k] = -B->h[k], e1[k] = B->h[k];
    ld_contact_segments(p0, p1, e0, e1, sp, q);
    for (int i = 0; i < 3; ++i) w[i] = sp[i] - q[i];
    return cap_contact(B, r, sp, q, nl, ld_v3_dot(w, nl) - r, margin, out);
}

/* A capsule (segment c0–c1, radius r) against the box B; the normal from the box to the
 * capsule. Apart: the closest points of the segment and the box — and when they meet a face,
 * the ends of the segment's part over that face (a capsule lying on a face touches along a
 * line: two contacts). Crossing the box: cap_deep. At most 2 contacts. */
static int capsule_box(const double c0[3], const double c1[3], double r, const ld_cshape *B,
                       double margin, ld_contact *out) {
    double p0[3], p1[3], d[3], t[2], sp[3], q[3];
    for (int i = 0; i < 3; ++i) d[i] = c0[i] - B->c[i];
    ld_m3_tmulv(p0, B->R, d);
    for (int i = 0; i < 3; ++i) d[i] = c1[i] - B->c[i];
    ld_m3_tmulv(p1, B->R, d);
    if (clip_slabs(p0, p1, B->h, -1, t)) return cap_deep(B, p0, p1, r, margin, out);
    double dist = seg_box_closest(p0, p1, B->h, sp, q);
    if (!(dist - r < margin)) return 0;
    double nl[3];
    int k = 0;
    for (int i = 0; i < 3; ++i) nl[i] = (sp[i] - q[i]) / dist;
    for (int i = 1; i < 3; ++i)
        if (fabs(nl[i]) > fabs(nl[k])) k = i;
    if (fabs(nl[k]) > 1.0 - 1e-12) {
        int n = cap_face(B, p0, p1, r, k, nl[k] < 0.0 ? -1.0 : 1.0, margin, out);
        if (n > 0) return n;
    }
    return cap_contact(B, r, sp, q, nl, dist - r, margin, out);
}

/* The core of a round shape: the segment c–c1 (a sphere: c–c). */
static const double *core_end(const ld_cshape *S) {
    return S->kind == LD_SHAPE_CAPSULE ? S->c1 : S->c;
}

/* A shape kind with pair tests: sphere, capsule, box, cylinder (each against each and the
 * plane). */
int ld_contact_detected(ld_shape_kind k) {
    return k == LD_SHAPE_SPHERE || k == LD_SHAPE_CAPSULE || k == LD_SHAPE_BOX ||
           k == LD_SHAPE_CYLINDER;
}

void ld_cshape_place(const ld_shape *sh, const double R[9], const double x[3], ld_cshape *c,
                     double lo[3], double hi[3]) {
    double off[3], a[3], ext[3];
    memset(c, 0, sizeof *c);
    c->kind = sh->kind;
    ld_m3_mulv(off, R, sh->center);
    for (int i = 0; i < 3; ++i) c->c[i] = x[i] + off[i];
    if (sh->kind == LD_SHAPE_BOX) {
        memcpy(c->R, R, sizeof c->R);
        for (int i = 0; i < 3; ++i) c->h[i] = 0.5 * sh->size[i];
        for (int i = 0; i < 3; ++i)
            ext[i] = fabs(R[3 * i]) * c->h[0] + fabs(R[3 * i + 1]) * c->h[1] +
                     fabs(R[3 * i + 2]) * c->h[2];
        memcpy(c->c1, c->c, sizeof c->c1);
    } else {
        c->r = sh->size[0];
        memcpy(c->c1, c->c, sizeof c->c1);
        ld_m3_mulv(a, R, sh->axis);
        if (sh->kind != LD_SHAPE_SPHERE)
            for (int i = 0; i < 3; ++i) {
                double half = 0.5 * sh->size[1] * a[i];
                c->c1[i] = c->c[i] + half;
                c->c[i] -= half;
            }
        for (int i = 0; i < 3; ++i) /* a disc's reach across axis i: r √(1 − a_i²) */
            ext[i] = sh->kind == LD_SHAPE_CAPSULE || sh->kind == LD_SHAPE_SPHERE
                         ? c->r
                         : c->r * sqrt(fmax(0.0, 1.0 - a[i] * a[i]));
    }
    for (int i = 0; i < 3; ++i) {
        lo[i] = fmin(c->c[i], c->c1[i]) - ext[i];
        hi[i] = fmax(c->c[i], c->c1[i]) + ext[i];
    }
}

int ld_contact_pair(const ld_cshape *A, const ld_cshape *B, double margin, ld_contact *out) {
    int boxA = A->kind == LD_SHAPE_BOX, boxB = B->kind == LD_SHAPE_BOX;
    if (!ld_contact_detected(A->kind) || !ld_contact_detected(B->kind)) return -1;
    if (A->kind == LD_SHAPE_CYLINDER || B->kind == LD_SHAPE_CYLINDER)
        return ld_contact_cylinder(A, B, margin, out);
    if (boxA && boxB) return box_box(A, B, margin, out);
    if (boxA || boxB) {
        const ld_cshape *S = boxA ? B : A, *X = boxA ? A : B;
        int n = S->kind == LD_SHAPE_SPHERE ? sphere_box(S->c, S->r, X, margin, out)
                                           : capsule_box(S->c, S->c1, S->r, X, margin, out);
        for (int k = 0; k < n && boxA; ++k) /* the normal from B (the round one) to A (the box) */
            for (int i = 0; i < 3; ++i) out[k].n[i] = -out[k].n[i];
        return n;
    }
    double a[3], b[3];
    ld_contact_segments(A->c, core_end(A), B->c, core_end(B), a, b);
    int n = round_pair(a, A->r, b, B->r, margin, out);
    /* two parallel capsules side by side touch along a line: also their ends */
    if (n && A->kind == LD_SHAPE_CAPSULE && B->kind == LD_SHAPE_CAPSULE) {
        double da[3], db[3];
        for (int i = 0; i < 3; ++i) da[i] = A->c1[i] - A->c[i], db[i] = B->c1[i] - B->c[i];
        double c = ld_v3_dot(da, db), la = ld_v3_norm(da), lb = ld_v3_norm(db);
        if (la > 0.0 && lb > 0.0 && fabs(c) > (1.0 - 1e-6) * la * lb) {
            /* the ends of the overlap: each segment's ends that project inside the other */
            n = 0;
            const double *ends[4] = {A->c, A->c1, B->c, B->c1};
            for (int e = 0; e < 4 && n < 2; ++e) {
                const double *p0 = e < 2 ? B->c : A->c, *p1 = e < 2 ? B->c1 : A->c1;
                double d[3], r[3];
                for (int i = 0; i < 3; ++i) d[i] = p1[i] - p0[i], r[i] = ends[e][i] - p0[i];
                double u = ld_v3_dot(r, d) / ld_v3_dot(d, d);
                if (u < -1e-12 || u > 1.0 + 1e-12) continue;
                seg_point(p0, p1, ends[e], b);
                n += e < 2 ? round_pair(ends[e], A->r, b, B->r, margin, out + n)
                           : round_pair(b, A->r, ends[e], B->r, margin, out + n);
            }
        }
    }
    return n;
}

int ld_contact_plane(const ld_cshape *A, const double nrm[3], double d, double margin,
                     ld_contact *out) {
    double pts[8][3], rad = 0.0;
    int np = 0;
    if (A->kind == LD_SHAPE_CYLINDER) return ld_contact_cylinder_plane(A, nrm, d, margin, out);
    if (A->kind == LD_SHAPE_BOX) {
        for (int k = 0; k < 8; ++k) {
            double l[3] = {(k & 1 ? 1 : -1) * A->h[0], (k & 2 ? 1 : -1) * A->h[1],
                           (k & 4 ? 1 : -1) * A->h[2]},
                   w[3];
            ld_m3_mulv(w, A->R, l);
            for (int i = 0; i < 3; ++i) pts[np][i] = A->c[i] + w[i];
            ++np;
        }
    } else {
        rad = A->r;
        memcpy(pts[np++], A->c, sizeof pts[0]);
        if (A->kind == LD_SHAPE_CAPSULE) memcpy(pts[np++], A->c1, sizeof pts[0]);
    }
    int n = 0;
    for (int k = 0; k < np; ++k) {
        double dist = ld_v3_dot(nrm, pts[k]) - d, gap = dist - rad;
        if (!(gap < margin)) continue;
        ld_contact *o = &out[n++];
        memcpy(o->n, nrm, sizeof o->n);
        o->gap = gap;
        for (int i = 0; i < 3; ++i) o->p[i] = pts[k][i] - (rad + 0.5 * gap) * nrm[i];
    }
    return n;
}

/*
 * The gaps between colliding shapes placed at their poses (cli/overlap.h): against the ground
 * plane and pair by pair, signed (< 0: they overlap).
 */
#include <math.h>

#include "overlap.h"

/* A placed cylinder's middle m, unit axis a and half length. */
static double cylinder_axis(const placed *p, double m[3], double a[3]) {
    double d[3] = {p->c1[0] - p->c[0], p->c1[1] - p->c[1], p->c1[2] - p->c[2]};
    double l = sqrt(overlap_dot3(d, d));
    for (int i = 0; i < 3; ++i)
        m[i] = 0.5 * (p->c[i] + p->c1[i]), a[i] = l > 0.0 ? d[i] / l : (double)(i == 2);
    return 0.5 * l;
}

/* The signed distance of placed shape p from the plane n·x = d (< 0: below it); a cylinder's
 * lowest point is hl |n·a| + r |n × a| below its middle (|n × a| = √(1 − (n·a)²), taken from
 * the cross product: exact also with the axis along n). */
double overlap_plane_gap(const placed *p, const double n[3], double d) {
    if (p->kind == LD_SHAPE_BOX) {
        double reach = 0.0;
        for (int i = 0; i < 3; ++i)
            reach += p->h[i] * fabs(n[0] * p->R[i] + n[1] * p->R[3 + i] + n[2] * p->R[6 + i]);
        return overlap_dot3(n, p->c) - d - reach;
    }
    if (p->kind == LD_SHAPE_CYLINDER) {
        double m[3], a[3], hl = cylinder_axis(p, m, a), na = overlap_dot3(n, a);
        double x[3] = {n[1] * a[2] - n[2] * a[1], n[2] * a[0] - n[0] * a[2],
                       n[0] * a[1] - n[1] * a[0]};
        return overlap_dot3(n, m) - d - hl * fabs(na) - p->r * sqrt(overlap_dot3(x, x));
    }
    return fmin(overlap_dot3(n, p->c), overlap_dot3(n, p->c1)) - d - p->r;
}

/* The signed distance of the sphere (q, rs) from the solid cylinder y: to its closest point,
 * or with q inside minus the depth to the nearer of its side and its end faces. */
static double sphere_cylinder_gap(const double q[3], double rs, const placed *y) {
    double m[3], a[3], hl = cylinder_axis(y, m, a), d[3], w[3];
    for (int i = 0; i < 3; ++i) d[i] = q[i] - m[i];
    double t = overlap_dot3(d, a);
    for (int i = 0; i < 3; ++i) w[i] = d[i] - t * a[i];
    double rho = sqrt(overlap_dot3(w, w));
    if (fabs(t) <= hl && rho <= y->r) return -fmin(hl - fabs(t), y->r - rho) - rs;
    double dt = fabs(t) > hl ? fabs(t) - hl : 0.0, dr = rho > y->r ? rho - y->r : 0.0;
    return sqrt(dt * dt + dr * dr) - rs;
}

/* The point of segment a–b nearest to c into out. */
static void segment_nearest(const double *a, const double *b, const double *c, double *out) {
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, l2 = overlap_dot3(ab, ab);
    double s = l2 > 0.0 ? fmin(1.0, fmax(0.0, overlap_dot3(ac, ab) / l2)) : 0.0;
    for (int i = 0; i < 3; ++i) out[i] = a[i] + s * ab[i];
}

/* The signed distance of point q from box b (< 0: inside, minus the depth to the nearest
 * face): a convex function of q. */
static double point_box_gap(const double q[3], const placed *b) {
    double d[3], out = 0.0, in = INFINITY;
    for (int i = 0; i < 3; ++i) d[i] = q[i] - b->c[i];
    for (int i = 0; i < 3; ++i) { /* q in the box's frame */
        double l = b->R[i] * d[0] + b->R[3 + i] * d[1] + b->R[6 + i] * d[2];
        double e = fabs(l) - b->h[i];
        out += e > 0.0 ? e * e : 0.0;
        in = fmin(in, -e);
    }
    return out > 0.0 ? sqrt(out) : -in;
}

/* The signed distance of q from the segment of placed capsule or sphere o (its radius not
 * taken off): convex in q. */
static double point_segment_gap(const double q[3], const placed *o) {
    double p[3];
    segment_nearest(o->c, o->c1, q, p);
    double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    return sqrt(overlap_dot3(d, d));
}

typedef double (*point_gap)(const double q[3], const placed *o);

/* f at the point c + s (c1 − c) of p's segment. */
static double at(const placed *p, double s, const placed *o, point_gap f) {
    double x[3];
    for (int i = 0; i < 3; ++i) x[i] = p->c[i] + s * (p->c1[i] - p->c[i]);
    return f(x, o);
}

/* The least over the segment of p (a sphere's: one point) of f(point, o), f convex, by
 * golden-section search to the rounding of the segment's parameter. */
static double segment_min(const placed *p, const placed *o, point_gap f) {
    if (p->c[0] == p->c1[0] && p->c[1] == p->c1[1] && p->c[2] == p->c1[2]) return f(p->c, o);
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    double lo = 0.0, hi = 1.0, s1 = hi - g, s2 = lo + g, f1 = at(p, s1, o, f), f2 = at(p, s2, o, f);
    for (int k = 0; k < 80; ++k) { /* 0.618⁸⁰ ≈ 2·10⁻¹⁷ of the segment */
        if (f1 <= f2)
            hi = s2, s2 = s1, f2 = f1, s1 = hi - g * (hi - lo), f1 = at(p, s1, o, f);
        else
            lo = s1, s1 = s2, f1 = f2, s2 = lo + g * (hi - lo), f2 = at(p, s2, o, f);
    }
    return fmin(fmin(f1, f2), fmin(at(p, 0.0, o, f), at(p, 1.0, o, f)));
}

/* The signed distance of two placed shapes where it is exact: sphere or capsule against
 * sphere or capsule or against a box (the least over the segment of a convex distance), and a
 * sphere against a cylinder; NAN (not measured) for two boxes and for a cylinder against a
 * capsule, a box or a cylinder. */
double overlap_pair_gap(const placed *a, const placed *b) {
    if (a->kind == LD_SHAPE_CYLINDER || b->kind == LD_SHAPE_CYLINDER) {
        const placed *y = a->kind == LD_SHAPE_CYLINDER ? a : b, *o = y == a ? b : a;
        if (o->kind != LD_SHAPE_SPHERE) return NAN;
        return sphere_cylinder_gap(o->c, o->r, y);
    }
    if (a->kind == LD_SHAPE_BOX && b->kind == LD_SHAPE_BOX) return NAN;
    if (a->kind == LD_SHAPE_BOX) return segment_min(b, a, point_box_gap) - b->r;
    if (b->kind == LD_SHAPE_BOX) return segment_min(a, b, point_box_gap) - a->r;
    return segment_min(a, b, point_segment_gap) - a->r - b->r;
}

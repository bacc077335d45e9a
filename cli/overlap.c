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
 * lowest point is hl |n·a| + r √(1 − (n·a)²) below its middle. */
double overlap_plane_gap(const placed *p, const double n[3], double d) {
    if (p->kind == LD_SHAPE_BOX) {
        double reach = 0.0;
        for (int i = 0; i < 3; ++i)
            reach += p->h[i] * fabs(n[0] * p->R[i] + n[1] * p->R[3 + i] + n[2] * p->R[6 + i]);
        return overlap_dot3(n, p->c) - d - reach;
    }
    if (p->kind == LD_SHAPE_CYLINDER) {
        double m[3], a[3], hl = cylinder_axis(p, m, a), na = overlap_dot3(n, a);
        return overlap_dot3(n, m) - d - hl * fabs(na) - p->r * sqrt(fmax(0.0, 1.0 - na * na));
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

/* The signed distance of a sphere or capsule p from box b (< 0: they overlap; a capsule by its
 * segment's point nearest to the box's centre, exact when that point is the nearest). */
static double round_box_gap(const placed *p, const placed *b) {
    double c[3], d[3], l[3], out = 0.0, in = INFINITY;
    segment_nearest(p->c, p->c1, b->c, c);
    for (int i = 0; i < 3; ++i) d[i] = c[i] - b->c[i];
    for (int i = 0; i < 3; ++i) { /* the centre in the box's frame */
        l[i] = b->R[i] * d[0] + b->R[3 + i] * d[1] + b->R[6 + i] * d[2];
        double e = fabs(l[i]) - b->h[i];
        out += e > 0.0 ? e * e : 0.0;
        in = fmin(in, -e);
    }
    return (out > 0.0 ? sqrt(out) : -in) - p->r;
}

/* The signed distance of two placed shapes where it is exact: sphere or capsule against
 * sphere or capsule (capsules by their segments' points nearest to the other's centre) or
 * against a box, and a sphere against a cylinder; NAN (not measured) for two boxes and for a
 * cylinder against a capsule, a box or a cylinder. */
double overlap_pair_gap(const placed *a, const placed *b) {
    if (a->kind == LD_SHAPE_CYLINDER || b->kind == LD_SHAPE_CYLINDER) {
        const placed *y = a->kind == LD_SHAPE_CYLINDER ? a : b, *o = y == a ? b : a;
        if (o->kind != LD_SHAPE_SPHERE) return NAN;
        return sphere_cylinder_gap(o->c, o->r, y);
    }
    if (a->kind == LD_SHAPE_BOX && b->kind == LD_SHAPE_BOX) return NAN;
    if (a->kind == LD_SHAPE_BOX) return round_box_gap(b, a);
    if (b->kind == LD_SHAPE_BOX) return round_box_gap(a, b);
    double mb[3], pa[3], pb[3];
    for (int i = 0; i < 3; ++i) mb[i] = 0.5 * (b->c[i] + b->c1[i]);
    segment_nearest(a->c, a->c1, mb, pa);
    segment_nearest(b->c, b->c1, pa, pb);
    segment_nearest(a->c, a->c1, pb, pa);
    double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
    return sqrt(overlap_dot3(d, d)) - a->r - b->r;
}

/*
 * Internal to the liedyn tool: the gaps between colliding shapes placed at their poses, which
 * `liedyn run` measures at the end of every step to report overlaps (cli/sim.c).
 */
#ifndef LIEDYN_CLI_OVERLAP_H
#define LIEDYN_CLI_OVERLAP_H

#include "liedyn/model.h"

/* A colliding shape placed at its body's pose at the end of a step (the ground's where it is):
 * a sphere (c, r), a capsule (segment c–c1, r), a cylinder (axis from the centre c of one end
 * face to the centre c1 of the other, r) or a box (centre c, axes the columns of R, half
 * edges h). */
typedef struct placed {
    ld_shape_kind kind;
    double c[3], c1[3], r, R[9], h[3];
} placed;

/* a · b of two 3-vectors. */
static inline double overlap_dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The signed distance of placed shape p from the plane n·x = d (< 0: below it); a cylinder's
 * lowest point is hl |n·a| + r |n × a| below its middle. */
double overlap_plane_gap(const placed *p, const double n[3], double d);

/* The signed distance of two placed shapes where it is exact: sphere or capsule against
 * sphere or capsule or against a box (the least over the segment of a convex distance), and a
 * sphere against a cylinder; NAN (not measured) for two boxes and for a cylinder against a
 * capsule, a box or a cylinder. */
double overlap_pair_gap(const placed *a, const placed *b);

#endif

/*
 * Internal to src/elements and the reader: placing beams (beam.c) — the limit of the nodes, the
 * material frame of a direction, and the nodes of a beam whose reference axis is a smooth curve
 * through its points (beam_curve.c).
 */
#ifndef LIEDYN_SRC_ELEMENTS_BEAM_CURVE_H
#define LIEDYN_SRC_ELEMENTS_BEAM_CURVE_H

#include "liedyn/model.h"

/* Nodes of one beam, elements · order + 1 (the nodes are bodies: memory grows with them; a rod
 * has at most 10⁶ segments likewise); ld_beam_place and the reader refuse more. */
#define LD_BEAM_NODES_MAX 1000001

/* The nodes elements · order + 1 that beam b would have, without overflow (its order, nelem and
 * npoints in their ranges). */
static inline long long ld_beam__node_count(const ld_beam *b) {
    return (b->curve ? 1LL : (long long)b->npoints - 1) * b->nelem * b->order + 1;
}

/* e1 along d, e2 along normal ⊥ e1: the material frame R = [e1 e2 e3] as a quaternion q. LD_OK,
 * or LD_EINVAL when d is zero or not finite, or normal (nearly) parallel to it. */
int ld_beam__frame(const double d[3], const double normal[3], double q[4]);

/* The nodes of the curved beam b (b->curve): at the GLL points of b->nelem elements of equal arc
 * length, e1 along the tangent, e2 along the normal projected ⊥ e1 — positions x0 (3 per node),
 * frames q0 (4 per node) and qe0 (4 per node of each element: no corners), length shares w and
 * arc-length fractions eta (w zeroed by the caller); *len the curve's length. Work O(nodes +
 * points · log points). LD_OK, or LD_EINVAL where the normal is parallel to the tangent. */
int ld_beam__place_curve(const ld_beam *b, double *q0, double *x0, double *qe0, double *w,
                         double *eta, double *len);

/* The spline evaluations the calling thread has made in ld_beam__place_curve so far: the
 * measure of its work (tests check that it grows in proportion to the nodes). */
long ld_beam__curve_work(void);

#endif

/*
 * Contact detection between the bodies' collision shapes and the ground plane (contact.c,
 * docs/contact.md): the interface the contact methods use.
 *
 * A contact joins shape sa of body a to shape sb of body b, to the ground plane (b = sb = −1)
 * or to the ground's shape g (b = −1, sb = −2 − g, ld_model.ground). n is the unit normal from b
 * towards a, gap the signed distance of the two surfaces along it (< 0: they overlap), p the point
 * midway between the surfaces' closest points; e and μ the pair's restitution and friction (the
 * larger of each of the two shapes'). A point of body a moves at u_a(p) = ẋ_a + ω_a × (p − x_a);
 * the contact's normal velocity is n·(u_a − u_b).
 */
#ifndef LIEDYN_SRC_ELEMENTS_CONTACT_H
#define LIEDYN_SRC_ELEMENTS_CONTACT_H

#include "liedyn/model.h"

typedef struct ld_contact {
    int a, b, sa, sb;
    double n[3], p[3], gap;
    double e, mu;
    double rc; /* the pair's contact radius (the larger; 0: a point) */
} ld_contact;

/* A shape placed in space: a sphere (c, r), a capsule (segment c0–c1, r), a box (centre c,
 * axes R (columns, row-major), half edges h), a cylinder (the centres c, c1 of its two end
 * faces, radius r). */
typedef struct ld_cshape {
    ld_shape_kind kind;
    double c[3], c1[3], r, R[9], h[3];
} ld_cshape;

/* The contacts of two placed shapes (sphere, capsule, box or cylinder, each against each) with
 * a gap below margin, into out (at most 8); their number, or −1 for a kind without tests. The
 * normal points from B to A; the bodies, shapes and material are left for the caller. Box–box: the
 * separating axis of least penetration over the 15 axes (a face unless an edge pair is clearly
 * better); on a face, the other box's incident face clipped to the reference face (at most 8
 * corners), on two edges their closest points (1); apart, the gap is the separation along that
 * axis. Box–capsule: the closest points of the segment and the box, or the segment's part over
 * a face (its two ends) when they meet on a face; a segment crossing the box, the least
 * penetration over the box's faces and its axes × the segment (at most 2). */
int ld_contact_pair(const ld_cshape *A, const ld_cshape *B, double margin, ld_contact *out);
/* Does the narrow phase test shapes of kind k (sphere, capsule, box, cylinder)? */
int ld_contact_detected(ld_shape_kind k);
/* Shape sh placed at the pose (R row-major, x) of its body: into *c, and its bounding box into
 * lo, hi (exact for every kind but the cone, whose bounds are those of its cylinder). */
void ld_cshape_place(const ld_shape *sh, const double R[9], const double x[3], ld_cshape *c,
                     double lo[3], double hi[3]);
/* The closest points a, b of the segments p0–p1 and q0–q1 (Ericson, Real-Time Collision
 * Detection, 2005, 5.1.9). */
void ld_contact_segments(const double p0[3], const double p1[3], const double q0[3],
                         const double q1[3], double a[3], double b[3]);
/* A cylinder A (or B) against B (or A), a sphere, capsule, box or cylinder: as
 * ld_contact_pair (contact_cylinder.c). Against a sphere, the closest point of the solid
 * cylinder; against the others, the normal by the support functions (GJK apart, EPA when
 * overlapping), then the features of both shapes the normal meets — an end face, a line of the
 * side or a point; a box's face, edge or corner — clipped one to the other: a cylinder standing
 * on a face up to 8 points of its rim, lying on a face or beside a parallel line the two ends of
 * its line, else one point. */
int ld_contact_cylinder(const ld_cshape *A, const ld_cshape *B, double margin, ld_contact *out);
/* A cylinder against the plane n·x = d: each end's lowest rim point, and for the end facing the
 * plane 7 more rim points 45° apart from it, those with a gap below margin (at most 8: standing,
 * its rim; lying, the two ends of its lowest line; tilted, its lowest rim point). */
int ld_contact_cylinder_plane(const ld_cshape *A, const double n[3], double d, double margin,
                              ld_contact *out);
/* The contacts of a placed shape with the plane n·x = d (n unit, out of the ground), at most
 * 8; their number. */
int ld_contact_plane(const ld_cshape *A, const double n[3], double d, double margin,
                     ld_contact *out);

/* A segment of a rod or beam (contact_segment.c): its two nodes' bodies (LD_GROUND: a clamped
 * beam node, then at x0), the rod or beam (the other −1) and its node k (the segment joins
 * nodes k and k + 1), and how it collides. */
typedef struct ld_cseg {
    int body[2];
    double x0[2][3];
    int rod, beam, k;
    ld_collide c;
} ld_cseg;
/* The colliding segments of m's rods and beams. */
int ld_cseg_count(const ld_model *m);
/* Segment g (0 … ld_cseg_count − 1) into *out: LD_OK, or LD_EINVAL out of range. */
int ld_cseg_get(const ld_model *m, int g, ld_cseg *out);
/* Do segments g and h collide with each other: both set spans, they share no node, no joint
 * joins a node of one to a node of the other, and, of one rod or beam, their capsules are
 * apart in the model as written (node bodies at their given positions)? 1 or 0. */
int ld_cseg_pair(const ld_model *m, int g, int h);
/* The capsule of radius r about the segment xa–xb. */
void ld_cseg_place(const double xa[3], const double xb[3], double radius, ld_cshape *c);
/* Where contact ct of the capsule (ld_cseg_place; the capsule its side a) lies along the
 * segment: the weight s ∈ [0, 1] of node b and the axis point c = (1 − s) xa + s xb nearest to
 * the capsule's surface point p + (gap/2) n, moved in by the radius. The capsule's material point
 * at p moves at (1 − s) u_a(p) + s u_b(p) with u_k(p) = ẋ_k + ω_k × (p − c): the axis point
 * as the nodes carry it, turned by the nodes' weighted angular velocity. */
double ld_cseg_weight(const double xa[3], const double xb[3], double radius, const ld_contact *ct,
                      double c[3]);

/* The detector of a model: its colliding shapes, their bounds and the sweep order, the
 * contacts found (sized once: no allocation while finding). */
typedef struct ld_cworld ld_cworld;

/* NULL (LD_ENOMEM) or the detector of m's colliding shapes; cap contacts at most per call.
 * Shapes of the same body, and of two bodies a joint joins, do not collide with each other. */
ld_cworld *ld_cworld_create(const ld_model *m, int cap);
void ld_cworld_free(ld_cworld *w);
/* Does some pair of m's colliding shapes (of different bodies) have no detection (a shape of a
 * kind other than sphere, capsule, box and cylinder: none as the model is checked)? Its shapes into
 * *s1, *s2, and 1; else 0. */
int ld_cworld_unsupported(const ld_model *m, int *s1, int *s2);
/* The number of colliding shapes. */
int ld_cworld_shapes(const ld_cworld *w);
/* The contacts at the bodies' poses (R: 9 per body, row-major; x: 3 per body) with a gap below
 * margin: sweep and prune along the axis of largest spread, then the exact pair tests. Their
 * number (in *out, owned by w), or −1 when more than cap were found. */
int ld_cworld_find(ld_cworld *w, const double *R, const double *x, double margin,
                   const ld_contact **out);

#endif

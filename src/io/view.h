/*
 * Internal to the library (src/io; the liedyn tool uses it too): what the HTML viewer and the VTK
 * output draw. The frames of a run at a bounded number of output times (src/io/frames.c), the drawn
 * shapes of the bodies and the joints' and tubes' geometry (src/io/scene.c), the HTML file
 * (src/io/html.c), the VTK files (src/io/vtk.c) and `liedyn view` (cli/view.c).
 */
#ifndef LIEDYN_CLI_VIEW_H
#define LIEDYN_CLI_VIEW_H

#include <stdio.h>

#include "liedyn/integrator.h"
#include "liedyn/model.h"

#define VIEW_FRAMES_DEFAULT 1000
#define VIEW_FRAMES_MAX     100000
#define VIEW_SERIES_MAX     200
#define VIEW_NAME_CAP       (LD_NAME_MAX + 16)

/* Poses (x, y, z, qw, qx, qy, qz per body, float) and scalar series at the kept times: at most
 * max of them, spaced at least (t1 − t0)/(max − 1) apart, and always the last row offered. */
typedef struct view_frames {
    int nb, ns;                   /* bodies, series */
    long n, cap, max;             /* frames kept, allocated, the bound */
    double spacing, next_t;       /* the keep rule */
    double *t;                    /* n times */
    float *pose;                  /* n × nb × 7 */
    float *val;                   /* n × ns */
    char (*sname)[VIEW_NAME_CAP]; /* ns names */
    double last_t;                /* the last row offered (NAN: none) */
    float *last_pose, *last_val;  /* its data (kept when finishing) */
    int last_kept;
    /* contacts (ld_io_frames_contacts): per kept frame its contacts, VIEW_CONTACT_FLOATS floats
     * each (point, normal, force on body1, gap), in cdat from coff[f] to coff[f + 1] */
    int with_contacts;
    long nc, ccap;   /* contacts kept, room in cdat (contacts) */
    int *coff;       /* cap + 1 offsets */
    float *cdat;     /* nc × VIEW_CONTACT_FLOATS */
    float *pend;     /* the contacts that go with the next frame kept */
    int npend, pcap; /* their number, room */
} view_frames;

#define VIEW_CONTACT_FLOATS 10
#define VIEW_CONTACTS_MAX   (2L << 20) /* contacts kept over all frames (80 MB) */

/* Frames for model m over [t0, t1], at most max (≥ 2; lowered so that the poses stay within
 * about 64 MB), series named names[0 .. ns−1]. 0 or -1 (out of memory). */
int ld_io_frames_init(view_frames *F, const ld_model *m, double t0, double t1, long max, int ns,
                      char (*names)[VIEW_NAME_CAP]);
/* Offer a row: x (3 per body), q (4 per body), the series' values. 0 or -1 (out of memory). */
int ld_io_frames_offer(view_frames *F, double t, const double *x, const double *q,
                       const double *val);
/* The contacts that go with the next frames kept (until the next call; the last row offered
 * takes those set when ld_io_frames_finish keeps it). Frames kept after VIEW_CONTACTS_MAX
 * contacts hold none. 0 or -1 (out of memory). */
int ld_io_frames_contacts(view_frames *F, const ld_contact_point *c, int n);
/* Keep the last row offered if it was not kept. 0 or -1. */
int ld_io_frames_finish(view_frames *F);
void ld_io_frames_free(view_frames *F);
/* The series a run records: energy, constraint_residual, per rigid body (not a node of a rod
 * or beam) wx, wy, wz, vx, vy, vz, then per joint its coordinates and rates (jcols.h: the
 * CSV's names, angles unwrapped), each body and joint while all of its series fit in
 * VIEW_SERIES_MAX. names must hold VIEW_SERIES_MAX. Returns the count. */
int ld_io_frames_series_names(const ld_model *m, char (*names)[VIEW_NAME_CAP]);
/* view_csv.c: the frames of a finished run from the CSV that `liedyn run --out` wrote for m
 * (RFC 4180, csv.h), read from f (named csv in messages) into F: the header must start with t
 * and hold every body's x … qz; the series of ld_io_frames_series_names that the file lacks are
 * NaN; the rows must have the header's field count, numbers in the columns used and times
 * that do not decrease; at most max frames. f must be seekable (the first pass finds the time
 * range [*t0, *t1]). LD_OK (F to be freed), or LD_EINVAL / LD_ENOMEM / LD_EIO with why
 * ("RUN.csv:7: 12 fields, the header has 14") and F freed. */
int ld_io_view_csv(FILE *f, const char *csv, const ld_model *m, long max, view_frames *F,
                   double *t0, double *t1, char *why, size_t cap);

/* One drawn shape: the model's, or the inertia box of a rigid body without one (q: the
 * orientation of the shape in the body frame, its axis the shape's z). */
typedef struct view_shape {
    ld_shape s;
    double q[4];
    int automatic; /* 1: the inertia box */
} view_shape;
/* The drawn shapes of m (malloc'ed into *out, *n of them). Per body: is it a node of a rod or
 * a beam (node may be NULL; nbodies entries). 0 or -1. */
int ld_io_scene_shapes(const ld_model *m, view_shape **out, int *n, unsigned char *node);
/* The model's drawn ground shapes (ld_model.ground, those not hidden) as drawn shapes, body
 * −1, center and q in the world frame (malloc'ed into *out, *n of them). 0 or -1. */
int ld_io_scene_ground(const ld_model *m, view_shape **out, int *n);
/* The square drawn for the ground plane: its centre c (the bodies' mean initial centre projected
 * onto the plane), two unit vectors u, w along it and its half side (1.5 times the reach of
 * the bodies and ground shapes from c, at least 0.5 m). 1, or 0 when m has no plane. */
int ld_io_scene_plane(const ld_model *m, double c[3], double u[3], double w[3], double *half);
/* The tube radius of rod/beam i (rods first, then beams) from its section: a full circle of
 * the same bending to axial stiffness ratio, r = 2 √(EI/EA), within its length / 300 … / 40. */
double ld_io_scene_tube_radius(const ld_model *m, int i);
/* Joint j's points in the frames of its bodies (relative to the centre of mass; the ground's
 * spatial), and its axis in body1's frame (0 0 0 when it has none). */
void ld_io_scene_joint(const ld_model *m, int j, double p1[3], double p2[3], double axis1[3]);

/* How the viewer draws a force element (docs/viewer.md): a spring-damper as a coil and/or a
 * damper between its two points; a rotational spring-damper as a torsion coil and/or drum at
 * the joint between its bodies, about its axis; another element (bushing, user force) as
 * lines from body1's centre through its points to body2's; an actuator not at all (its joint
 * shows where it acts). */
enum { VIEW_EL_NONE, VIEW_EL_SPRING, VIEW_EL_TORSION, VIEW_EL_LINE };
typedef struct view_element {
    int kind;        /* VIEW_EL_* */
    int spring;      /* 1: it has an elastic part (stiffness, curve or preload) */
    int damper;      /* 1: it has damping */
    double p1[3];    /* its point in body1's frame (the ground's: spatial) */
    double p2[3];    /* its point in body2's frame */
    double axis1[3]; /* VIEW_EL_TORSION: its unit axis in body1's frame */
} view_element;
/* Element i of m as drawn into *out. 1, or 0 when it is not drawn. */
int ld_io_scene_element(const ld_model *m, int i, view_element *out);

/* Is the HTML viewer built in? NULL, or why not. */
const char *ld_io_html_missing(void);
/* Write the self-contained HTML file of F for model m to path (atomically). 0, or -1 with the
 * reason in err (errno ENOMEM when out of memory). */
int ld_io_html_write(const char *path, const ld_model *m, const char *title, const view_frames *F,
                     char *err, size_t cap);

/* The triangles of shape v (body frame) as points and faces, for VTK: *np points into pts
 * (3 each), *nt triangles into tri (3 each); the arrays must hold VIEW_SHAPE_PTS points and
 * VIEW_SHAPE_TRIS triangles. */
#define VIEW_SHAPE_PTS  400
#define VIEW_SHAPE_TRIS 800
void ld_io_scene_tessellate(const view_shape *v, double *pts, int *np, int *tri, int *nt);
/* The triangles of mesh shape v of model m in the body frame: each vertex p of its mesh at
 * center + R(q) (scale ⊙ p) into pts (3 per vertex: m->meshes[v->s.mesh].nverts of them),
 * its triangles into tri (3 each, ntris of them), their order reversed when the scale
 * mirrors (so they stay counter-clockwise seen from outside). */
void ld_io_scene_mesh(const ld_model *m, const view_shape *v, double *pts, int *tri);

/* The VTK geometry of a model (src/io/vtk.c): the bodies' shapes as triangles in body frames,
 * fixed over the run. */
typedef struct vtk_geom {
    int npts, ntri;
    int ntri_body;   /* the bodies' triangles come first, then the ground's (shapes, plane) */
    double *pts;     /* npts × 3, body frame (the ground's points: world) */
    int *pbody;      /* npts: the body of each point */
    int *tri;        /* ntri × 3 */
    int *tube;       /* per body: the rod or beam of a node (−1: none) */
    double axis_len; /* half-length of a joint's axis line */
} vtk_geom;
/* 0 or -1 (out of memory; g is freed). */
int ld_io_vtk_geom_init(vtk_geom *g, const ld_model *m);
void ld_io_vtk_geom_free(vtk_geom *g);
/* The contacts of one output time (ld_integ_contacts) as a legacy-VTK POLYDATA data set: a
 * vertex per contact at its point, with the point data normal, force (on body1), gap, fn
 * (normal·force), body1 and body2 (−1: the ground). */
void ld_io_vtk_contacts_write(FILE *f, const char *title, double t, const ld_contact_point *c,
                              int n);
/* One legacy-VTK POLYDATA data set at time t: the bodies' centres (vertices) with the vectors
 * e1 e2 e3 velocity angular_velocity (vec: 15 per body, those five in that order), their
 * shapes (polygons), the joints (lines from each body's centre to the joint point, and the
 * axis), rods and beams (polylines through the nodes and clamped ends); point data body,
 * radius (the tube radius on rods and beams) and the vectors, cell data part (0 centre,
 * 1 shape, 2 joint, 3 rod or beam, 4 the ground's shapes and plane). x: 3 per body, q: 4 per body.
 */
void ld_io_vtk_geom_write(FILE *f, const vtk_geom *g, const ld_model *m, const char *title,
                          double t, const double *x, const double *q, const double *vec);

#endif

/*
 * What the viewer and the VTK output draw of a model (src/io/view.h): the bodies' shapes (the
 * model's, else the box of the body's inertia), the joints' points and axes in the bodies'
 * frames, the tube radius of rods and beams, and shapes as triangles.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"

#include "liedyn/liedyn.h"
#include "view.h"
#include "../core/oom.h"

#define VIEW_PI 3.14159265358979323846

/* The rotation taking z to the unit vector a, as a quaternion [w x y z]. */
static void quat_z_to(const double a[3], double q[4]) {
    double c = a[2];        /* cos of the angle between z and a */
    if (c < -1.0 + 1e-12) { /* a = −z: half a turn about x */
        q[0] = 0.0, q[1] = 1.0, q[2] = 0.0, q[3] = 0.0;
        return;
    }
    double w = sqrt(0.5 * (1.0 + c)), s = 0.5 / w; /* axis z × a = (−a_y, a_x, 0) */
    q[0] = w, q[1] = -a[1] * s, q[2] = a[0] * s, q[3] = 0.0;
}

/* The uniform box of body b's mass and principal moments, along its principal axes. */
static void inertia_box(const ld_body *b, int index, view_shape *v) {
    double d[3], V[9];
    ld_m3_sym_eigen(b->inertia, V, d);
    double det = V[0] * (V[4] * V[8] - V[5] * V[7]) - V[1] * (V[3] * V[8] - V[5] * V[6]) +
                 V[2] * (V[3] * V[7] - V[4] * V[6]);
    if (det < 0)
        for (int k = 0; k < 3; ++k) V[3 * k + 2] = -V[3 * k + 2];
    double e[3], big = 0.0;
    for (int i = 0; i < 3; ++i) { /* I_i = m (e_j² + e_k²)/12 */
        double s2 = 6.0 * (d[(i + 1) % 3] + d[(i + 2) % 3] - d[i]) / b->mass;
        e[i] = s2 > 0.0 ? sqrt(s2) : 0.0;
        big = fmax(big, e[i]);
    }
    if (!(big > 0.0 && isfinite(big))) big = 0.1;
    memset(v, 0, sizeof *v);
    v->automatic = 1;
    v->s.body = index;
    v->s.kind = LD_SHAPE_BOX;
    for (int i = 0; i < 3; ++i) v->s.size[i] = fmax(e[i], 0.05 * big); /* no flat sheets */
    v->s.axis[2] = 1.0;
    v->s.color[0] = v->s.color[1] = v->s.color[2] = -1.0;
    ld_quat_from_mat(v->q, V);
}

int ld_io_scene_shapes(const ld_model *m, view_shape **out, int *n, unsigned char *node) {
    unsigned char *is_node = ld_xcalloc((size_t)m->nbodies + 1, 1, "the viewer's scene");
    unsigned char *has = ld_xcalloc((size_t)m->nbodies + 1, 1, "the viewer's scene");
    view_shape *v = ld_xmalloc(((size_t)m->nshapes + (size_t)m->nbodies + 1) * sizeof *v,
                               "the viewer's shapes");
    if (!is_node || !has || !v) {
        free(is_node), free(has), free(v);
        return -1;
    }
    for (int r = 0; r < m->nrods; ++r)
        for (int i = 0; i <= m->rods[r].n; ++i) is_node[m->rods[r].body0 + i] = 1;
    for (int i = 0; i < m->nbeams; ++i)
        for (int k = 0; k < m->beams[i].nnodes; ++k)
            if (m->beams[i].node_body[k] >= 0) is_node[m->beams[i].node_body[k]] = 1;
    int k = 0;
    for (int i = 0; i < m->nshapes; ++i) {
        v[k].s = m->shapes[i];
        v[k].automatic = 0;
        if (m->shapes[i].kind == LD_SHAPE_MESH)
            memcpy(v[k].q, m->shapes[i].orient, sizeof v[k].q);
        else
            quat_z_to(m->shapes[i].axis, v[k].q);
        has[m->shapes[i].body] = 1;
        ++k;
    }
    for (int b = 0; b < m->nbodies; ++b)
        if (!has[b] && !is_node[b]) inertia_box(&m->bodies[b], b, &v[k++]);
    if (node) memcpy(node, is_node, (size_t)m->nbodies);
    free(is_node);
    free(has);
    *out = v;
    *n = k;
    return 0;
}

int ld_io_scene_ground(const ld_model *m, view_shape **out, int *n) {
    view_shape *v = ld_xmalloc(((size_t)m->nground + 1) * sizeof *v, "the viewer's ground shapes");
    if (!v) return -1;
    int k = 0;
    for (int i = 0; i < m->nground; ++i) {
        if (m->ground[i].hidden) continue; /* its body draws it */
        v[k].s = m->ground[i];
        v[k].s.body = -1;
        v[k].automatic = 0;
        quat_z_to(m->ground[i].axis, v[k].q);
        ++k;
    }
    *out = v;
    *n = k;
    return 0;
}

/* The largest distance from its centre of a point of shape s (a mesh: of its scaled box). */
static double shape_extent(const ld_model *m, const ld_shape *s) {
    if (s->kind != LD_SHAPE_MESH) return fmax(fmax(s->size[0], s->size[1]), s->size[2]);
    const ld_mesh *M = &m->meshes[s->mesh];
    double e2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        double a = fmax(fabs(M->lo[i]), fabs(M->hi[i])) * fabs(s->size[i]);
        e2 += a * a;
    }
    return sqrt(e2);
}

/* The largest distance from c of the bodies' initial centres and the ground shapes, each
 * with its shapes' size. */
static double scene_reach(const ld_model *m, const double c[3]) {
    double r = 0.0;
    for (int b = 0; b < m->nbodies; ++b) {
        double d[3] = {m->bodies[b].x[0] - c[0], m->bodies[b].x[1] - c[1],
                       m->bodies[b].x[2] - c[2]};
        r = fmax(r, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    double ext = 0.0;
    for (int i = 0; i < m->nshapes; ++i) {
        const ld_shape *s = &m->shapes[i];
        ext = fmax(ext, shape_extent(m, s) + sqrt(ld_v3_dot(s->center, s->center)));
    }
    for (int i = 0; i < m->nground; ++i) {
        const ld_shape *s = &m->ground[i];
        double d[3] = {s->center[0] - c[0], s->center[1] - c[1], s->center[2] - c[2]};
        double e = fmax(fmax(s->size[0], s->size[1]), s->size[2]);
        r = fmax(r, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + e);
    }
    return r + ext;
}

int ld_io_scene_plane(const ld_model *m, double c[3], double u[3], double w[3], double *half) {
    if (!m->plane.on) return 0;
    const double *n = m->plane.normal, *p0 = m->plane.point;
    double mean[3] = {0, 0, 0};
    for (int b = 0; b < m->nbodies; ++b)
        for (int i = 0; i < 3; ++i) mean[i] += m->bodies[b].x[i] / m->nbodies;
    double d = ld_v3_dot(n, mean) - ld_v3_dot(n, p0);
    for (int i = 0; i < 3; ++i) c[i] = mean[i] - d * n[i];
    double a[3] = {1, 0, 0};
    if (fabs(n[0]) > 0.9) a[0] = 0.0, a[1] = 1.0;
    double an = ld_v3_dot(a, n);
    for (int i = 0; i < 3; ++i) u[i] = a[i] - an * n[i];
    double un = sqrt(ld_v3_dot(u, u));
    for (int i = 0; i < 3; ++i) u[i] /= un;
    w[0] = n[1] * u[2] - n[2] * u[1];
    w[1] = n[2] * u[0] - n[0] * u[2];
    w[2] = n[0] * u[1] - n[1] * u[0];
    *half = fmax(0.5, 1.5 * scene_reach(m, c));
    return 1;
}

double ld_io_scene_tube_radius(const ld_model *m, int i) {
    double L, ei, ea;
    if (i < m->nrods) {
        const ld_rod *r = &m->rods[i];
        L = r->length;
        ei = fmin(r->stiffness[0], r->stiffness[1]);
        ea = r->stiffness[5];
    } else {
        const ld_beam *b = &m->beams[i - m->nrods];
        L = 0.0;
        for (int k = 0; k + 1 < b->npoints; ++k) {
            const double *p = b->points + 3 * k;
            L += sqrt((p[3] - p[0]) * (p[3] - p[0]) + (p[4] - p[1]) * (p[4] - p[1]) +
                      (p[5] - p[2]) * (p[5] - p[2]));
        }
        double C[36];
        ld_beam_section_at(b, 0.0, C, NULL, NULL, NULL);
        ei = fmin(C[28], C[35]);
        ea = C[0];
    }
    double r = ea > 0.0 && ei > 0.0 ? 2.0 * sqrt(ei / ea) : L / 50.0;
    return fmin(fmax(r, L / 300.0), L / 40.0);
}

/* R^T (p − x) for a body, p itself for the ground. */
static void to_body(const ld_model *m, int b, const double p[3], double out[3]) {
    if (b < 0) {
        memcpy(out, p, 3 * sizeof *out);
        return;
    }
    double d[3] = {p[0] - m->bodies[b].x[0], p[1] - m->bodies[b].x[1], p[2] - m->bodies[b].x[2]};
    ld_quat_rotate_inv(out, m->bodies[b].q, d);
}

void ld_io_scene_joint(const ld_model *m, int j, double p1[3], double p2[3], double axis1[3]) {
    const ld_joint *J = &m->joints[j];
    if (J->point_form) {
        memcpy(p1, J->xg, 3 * sizeof *p1);
        memcpy(p2, J->p, 3 * sizeof *p2);
        axis1[0] = axis1[1] = axis1[2] = 0.0;
        return;
    }
    to_body(m, J->body1, J->at, p1);
    to_body(m, J->body2, J->at, p2);
    int axial = J->kind != LD_JOINT_SPHERICAL && J->kind != LD_JOINT_FIXED;
    if (!axial) {
        axis1[0] = axis1[1] = axis1[2] = 0.0;
    } else if (J->body1 < 0) {
        memcpy(axis1, J->axis, 3 * sizeof *axis1);
    } else {
        ld_quat_rotate_inv(axis1, m->bodies[J->body1].q, J->axis);
    }
}

/* A surface of revolution about z: profile (r_i, z_i), i < np, 16 segments. */
static void lathe(const double *rz, int np, double *pts, int *npts, int *tri, int *nt) {
    enum { SEG = 16 };
    int p = 0, t = 0;
    for (int i = 0; i < np; ++i)
        for (int s = 0; s < SEG; ++s) {
            double a = 2.0 * VIEW_PI * s / SEG;
            pts[3 * p] = rz[2 * i] * cos(a);
            pts[3 * p + 1] = rz[2 * i] * sin(a);
            pts[3 * p + 2] = rz[2 * i + 1];
            ++p;
        }
    for (int i = 0; i + 1 < np; ++i)
        for (int s = 0; s < SEG; ++s) {
            int a = i * SEG + s, b = i * SEG + (s + 1) % SEG, c = a + SEG, d = b + SEG;
            tri[3 * t] = a, tri[3 * t + 1] = b, tri[3 * t + 2] = d, ++t;
            tri[3 * t] = a, tri[3 * t + 1] = d, tri[3 * t + 2] = c, ++t;
        }
    *npts = p;
    *nt = t;
}

void ld_io_scene_tessellate(const view_shape *v, double *pts, int *np, int *tri, int *nt) {
    const ld_shape *s = &v->s;
    double rz[2 * 24];
    int k = 0;
    double r = s->size[0], h = 0.5 * s->size[1];
    switch (s->kind) {
    case LD_SHAPE_BOX: {
        static const int f[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6},
                                     {0, 1, 4}, {1, 5, 4}, {2, 6, 3}, {3, 6, 7},
                                     {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
        for (int i = 0; i < 8; ++i) {
            pts[3 * i] = (i & 1 ? 0.5 : -0.5) * s->size[0];
            pts[3 * i + 1] = (i & 2 ? 0.5 : -0.5) * s->size[1];
            pts[3 * i + 2] = (i & 4 ? 0.5 : -0.5) * s->size[2];
        }
        for (int i = 0; i < 12; ++i)
            for (int c = 0; c < 3; ++c) tri[3 * i + c] = f[i][c];
        *np = 8, *nt = 12;
        break;
    }
    case LD_SHAPE_SPHERE:
    case LD_SHAPE_CAPSULE: {
        int half = 6; /* per half-sphere */
        for (int i = 0; i <= half; ++i) {
            double a = -0.5 * VIEW_PI + 0.5 * VIEW_PI * i / half;
            rz[2 * k] = r * cos(a),
                   rz[2 * k + 1] = r * sin(a) - (s->kind == LD_SHAPE_CAPSULE ? h : 0);
            ++k;
        }
        for (int i = s->kind == LD_SHAPE_CAPSULE ? 0 : 1; i <= half; ++i) {
            double a = 0.5 * VIEW_PI * i / half;
            rz[2 * k] = r * cos(a),
                   rz[2 * k + 1] = r * sin(a) + (s->kind == LD_SHAPE_CAPSULE ? h : 0);
            ++k;
        }
        lathe(rz, k, pts, np, tri, nt);
        break;
    }
    default: { /* cylinder, cone */
        const double top = s->kind == LD_SHAPE_CONE ? 0.0 : r;
        const double prof[8] = {0.0, -h, r, -h, top, h, 0.0, h};
        lathe(prof, s->kind == LD_SHAPE_CONE ? 3 : 4, pts, np, tri, nt);
    }
    }
    for (int i = 0; i < *np; ++i) { /* into the body frame: center + R(q) p */
        double p[3];
        ld_quat_rotate(p, v->q, pts + 3 * i);
        for (int c = 0; c < 3; ++c) pts[3 * i + c] = s->center[c] + p[c];
    }
}

void ld_io_scene_mesh(const ld_model *m, const view_shape *v, double *pts, int *tri) {
    const ld_shape *s = &v->s;
    const ld_mesh *M = &m->meshes[s->mesh];
    for (int i = 0; i < M->nverts; ++i) { /* center + R(q) (scale ⊙ p) */
        double p[3], r[3];
        for (int c = 0; c < 3; ++c) p[c] = s->size[c] * (double)M->verts[3 * (size_t)i + (size_t)c];
        ld_quat_rotate(r, v->q, p);
        for (int c = 0; c < 3; ++c) pts[3 * (size_t)i + (size_t)c] = s->center[c] + r[c];
    }
    int flip = s->size[0] * s->size[1] * s->size[2] < 0.0; /* mirrored: keep them outward */
    for (int t = 0; t < M->ntris; ++t) {
        const int *f = M->tris + 3 * (size_t)t;
        int *o = tri + 3 * (size_t)t;
        o[0] = f[0], o[1] = f[flip ? 2 : 1], o[2] = f[flip ? 1 : 2];
    }
}

/* A spatial direction of the initial configuration in body b's frame (the ground's: itself). */
static void dir_to_body(const ld_model *m, int b, const double a[3], double out[3]) {
    if (b < 0)
        memcpy(out, a, 3 * sizeof *out);
    else
        ld_quat_rotate_inv(out, m->bodies[b].q, a);
}

/* The initial centre of body b (the ground: the origin). */
static void centre0(const ld_model *m, int b, double x[3]) {
    for (int i = 0; i < 3; ++i) x[i] = b < 0 ? 0.0 : m->bodies[b].x[i];
}

/* A rotational spring-damper: at the joint between its bodies (else midway between their
 * centres), about its axis, else the joint's, else the line between the centres. */
static void torsion_place(const ld_model *m, const ld_element *e, view_element *v) {
    double at[3], c1[3], c2[3], a[3] = {0, 0, 0};
    centre0(m, e->body1, c1), centre0(m, e->body2, c2);
    for (int i = 0; i < 3; ++i) at[i] = e->body1 < 0 ? c2[i] : 0.5 * (c1[i] + c2[i]);
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *J = &m->joints[j];
        int same = J->body1 == e->body1 && J->body2 == e->body2;
        int swapped = J->body1 == e->body2 && J->body2 == e->body1;
        if (J->kind == LD_JOINT_DRIVER || (!same && !swapped)) continue;
        if (!J->point_form) {
            memcpy(at, J->at, sizeof at);
            if (J->kind != LD_JOINT_SPHERICAL && J->kind != LD_JOINT_FIXED)
                memcpy(a, J->axis, sizeof a);
        }
        break;
    }
    if (e->npar >= 5 && ld_v3_dot(e->par + 2, e->par + 2) > 0.0) memcpy(a, e->par + 2, sizeof a);
    if (!(ld_v3_dot(a, a) > 0.0))
        for (int i = 0; i < 3; ++i) a[i] = c2[i] - c1[i];
    double n = sqrt(ld_v3_dot(a, a));
    if (!(n > 0.0)) a[0] = a[1] = 0.0, a[2] = n = 1.0;
    for (int i = 0; i < 3; ++i) a[i] /= n;
    to_body(m, e->body1, at, v->p1);
    to_body(m, e->body2, at, v->p2);
    dir_to_body(m, e->body1, a, v->axis1);
}

int ld_io_scene_element(const ld_model *m, int i, view_element *v) {
    const ld_element *e = &m->elements[i];
    const char *type = ld_element_type_name(e->type);
    memset(v, 0, sizeof *v);
    if (strcmp(type, "spring-damper") == 0 && e->npar >= 10) {
        v->kind = VIEW_EL_SPRING;
        v->spring = e->par[6] != 0.0 || e->par[9] != 0.0 || e->npar > 10;
        v->damper = e->par[7] != 0.0;
        to_body(m, e->body1, e->par, v->p1);
        to_body(m, e->body2, e->par + 3, v->p2);
    } else if (strcmp(type, "rotational-spring-damper") == 0 && e->npar >= 5) {
        v->kind = VIEW_EL_TORSION;
        v->spring = e->par[0] != 0.0;
        v->damper = e->par[1] != 0.0;
        torsion_place(m, e, v);
    } else if (strcmp(type, "actuator") == 0) {
        return 0;
    } else {
        v->kind = VIEW_EL_LINE; /* a user force: between the centres (the ground's origin) */
        if (strcmp(type, "bushing") == 0 && e->npar >= 3) {
            to_body(m, e->body1, e->par, v->p1);
            to_body(m, e->body2, e->par, v->p2);
        }
    }
    return 1;
}

/*
 * VTK output of a model's geometry (src/io/view.h): per output time one legacy-VTK POLYDATA data
 * set with the bodies' shapes moved to their poses, the joints as lines and the rods and beams
 * as polylines with their tube radius — what ParaView opens (docs/paraview.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "liedyn/liedyn.h"
#include "view.h"
#include "../core/oom.h"

void ld_io_vtk_geom_free(vtk_geom *g) {
    free(g->pts);
    free(g->pbody);
    free(g->tri);
    free(g->tube);
    memset(g, 0, sizeof *g);
}

/* Append shape v's triangles to g (its points on body v->s.body, the ground's in the world);
 * the largest distance of a point from its body's origin into *ext. */
static void geom_add(vtk_geom *g, const ld_model *m, const view_shape *v, double *ext) {
    int np = 0, nt = 0;
    if (v->s.kind == LD_SHAPE_MESH) {
        ld_io_scene_mesh(m, v, g->pts + 3 * g->npts, g->tri + 3 * g->ntri);
        np = m->meshes[v->s.mesh].nverts, nt = m->meshes[v->s.mesh].ntris;
    } else {
        ld_io_scene_tessellate(v, g->pts + 3 * g->npts, &np, g->tri + 3 * g->ntri, &nt);
    }
    for (int k = 0; k < 3 * nt; ++k) g->tri[3 * g->ntri + k] += g->npts;
    for (int k = 0; k < np; ++k) {
        g->pbody[g->npts + k] = v->s.body;
        const double *p = g->pts + 3 * (g->npts + k);
        *ext = fmax(*ext, sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
    }
    g->npts += np;
    g->ntri += nt;
}

/* The square of the ground plane (ld_io_scene_plane) as two triangles on the ground. */
static void geom_plane(vtk_geom *g, const ld_model *m) {
    double c[3], u[3], w[3], h;
    if (!ld_io_scene_plane(m, c, u, w, &h)) return;
    static const double su[4] = {-1, 1, 1, -1}, sw[4] = {-1, -1, 1, 1};
    for (int k = 0; k < 4; ++k) {
        for (int i = 0; i < 3; ++i)
            g->pts[3 * (g->npts + k) + i] = c[i] + h * (su[k] * u[i] + sw[k] * w[i]);
        g->pbody[g->npts + k] = -1;
    }
    static const int t[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; ++k) g->tri[3 * g->ntri + k] = g->npts + t[k];
    g->npts += 4;
    g->ntri += 2;
}

int ld_io_vtk_geom_init(vtk_geom *g, const ld_model *m) {
    memset(g, 0, sizeof *g);
    view_shape *v = NULL, *gv = NULL;
    int n = 0, ng = 0;
    if (ld_io_scene_shapes(m, &v, &n, NULL) != 0) return -1;
    if (ld_io_scene_ground(m, &gv, &ng) != 0) {
        free(v);
        return -1;
    }
    size_t np = (size_t)ng * VIEW_SHAPE_PTS, nt = (size_t)ng * VIEW_SHAPE_TRIS;
    for (int i = 0; i < n; ++i) { /* a mesh has its own counts, the others at most these */
        int mesh = v[i].s.kind == LD_SHAPE_MESH;
        np += mesh ? (size_t)m->meshes[v[i].s.mesh].nverts : VIEW_SHAPE_PTS;
        nt += mesh ? (size_t)m->meshes[v[i].s.mesh].ntris : VIEW_SHAPE_TRIS;
    }
    g->pts = ld_xmalloc((np + 5) * 3 * sizeof *g->pts, "the VTK geometry");
    g->pbody = ld_xmalloc((np + 5) * sizeof *g->pbody, "the VTK geometry");
    g->tri = ld_xmalloc((nt + 3) * 3 * sizeof *g->tri, "the VTK geometry");
    g->tube = ld_xmalloc(((size_t)m->nbodies + 1) * sizeof *g->tube, "the VTK geometry");
    if (!g->pts || !g->pbody || !g->tri || !g->tube) {
        free(v);
        free(gv);
        ld_io_vtk_geom_free(g);
        return -1;
    }
    double ext = 0.0, gext = 0.0;
    for (int i = 0; i < n; ++i) geom_add(g, m, &v[i], &ext);
    g->ntri_body = g->ntri;
    for (int i = 0; i < ng; ++i) geom_add(g, m, &gv[i], &gext);
    geom_plane(g, m);
    free(v);
    free(gv);
    for (int b = 0; b < m->nbodies; ++b) g->tube[b] = -1;
    for (int r = 0; r < m->nrods; ++r)
        for (int k = 0; k <= m->rods[r].n; ++k) g->tube[m->rods[r].body0 + k] = r;
    for (int i = 0; i < m->nbeams; ++i)
        for (int k = 0; k < m->beams[i].nnodes; ++k)
            if (m->beams[i].node_body[k] >= 0) g->tube[m->beams[i].node_body[k]] = m->nrods + i;
    g->axis_len = ext > 0.0 ? 0.3 * ext : 0.1;
    return 0;
}

/* The joints' extra points: the joint point, the ground point of body1 if any, the two ends
 * of the axis if any. */
static int joint_points(const ld_joint *J, const double axis[3]) {
    if (J->kind == LD_JOINT_DRIVER) return 0;
    int has_axis = axis[0] != 0.0 || axis[1] != 0.0 || axis[2] != 0.0;
    return 1 + (J->body1 < 0) + 2 * has_axis;
}

/* p = x_b + R_b p_body (the ground: p_body itself). */
static void place(const double *x, const double *q, int b, const double pb[3], double out[3]) {
    if (b < 0) {
        memcpy(out, pb, 3 * sizeof *out);
        return;
    }
    ld_quat_rotate(out, q + 4 * b, pb);
    for (int i = 0; i < 3; ++i) out[i] += x[3 * b + i];
}

/* The polylines of rods and beams: (count, size) of the LINES section; a beam's clamped nodes
 * are extra points after the joints' (numbered from *extra). */
static void tube_counts(const ld_model *m, int *lines, int *size, int *extra) {
    *extra = 0;
    for (int r = 0; r < m->nrods; ++r) (*lines)++, *size += m->rods[r].n + 2;
    for (int i = 0; i < m->nbeams; ++i) {
        (*lines)++, *size += m->beams[i].nnodes + 1;
        for (int k = 0; k < m->beams[i].nnodes; ++k) *extra += m->beams[i].node_body[k] < 0;
    }
}

void ld_io_vtk_geom_write(FILE *f, const vtk_geom *g, const ld_model *m, const char *title,
                          double t, const double *x, const double *q, const double *vec) {
    int nb = m->nbodies, nj = m->njoints;
    int njp = 0, jlines = 0;
    for (int j = 0; j < nj; ++j) {
        double p1[3], p2[3], a[3];
        ld_io_scene_joint(m, j, p1, p2, a);
        int k = joint_points(&m->joints[j], a);
        njp += k;
        jlines += k ? 2 + (k - 1 - (m->joints[j].body1 < 0) > 0) : 0;
    }
    int tlines = 0, tsize = 0, nclamp = 0;
    tube_counts(m, &tlines, &tsize, &nclamp);
    int npts = nb + g->npts + njp + nclamp;
    fprintf(f, "# vtk DataFile Version 3.0\n%s t = %.17g\nASCII\nDATASET POLYDATA\n", title, t);
    fprintf(f, "POINTS %d double\n", npts);
    for (int b = 0; b < nb; ++b)
        fprintf(f, "%.9g %.9g %.9g\n", x[3 * b], x[3 * b + 1], x[3 * b + 2]);
    for (int i = 0; i < g->npts; ++i) {
        double p[3];
        place(x, q, g->pbody[i], g->pts + 3 * i, p);
        fprintf(f, "%.9g %.9g %.9g\n", p[0], p[1], p[2]);
    }
    int *jfirst = ld_xmalloc(((size_t)nj + 1) * sizeof *jfirst, "the VTK joints");
    int next = nb + g->npts;
    for (int j = 0; j < nj; ++j) {
        double p1[3], p2[3], a[3], jp[3], w[3];
        ld_io_scene_joint(m, j, p1, p2, a);
        if (jfirst) jfirst[j] = next;
        int k = joint_points(&m->joints[j], a);
        if (!k) continue;
        place(x, q, m->joints[j].body2, p2, jp);
        fprintf(f, "%.9g %.9g %.9g\n", jp[0], jp[1], jp[2]);
        if (m->joints[j].body1 < 0) fprintf(f, "%.9g %.9g %.9g\n", p1[0], p1[1], p1[2]);
        if (k > 1 + (m->joints[j].body1 < 0)) {
            if (m->joints[j].body1 >= 0)
                ld_quat_rotate(w, q + 4 * m->joints[j].body1, a);
            else
                memcpy(w, a, sizeof w);
            for (int s = -1; s <= 1; s += 2)
                fprintf(f, "%.9g %.9g %.9g\n", jp[0] + s * g->axis_len * w[0],
                        jp[1] + s * g->axis_len * w[1], jp[2] + s * g->axis_len * w[2]);
        }
        next += k;
    }
    for (int i = 0; i < m->nbeams; ++i)
        for (int k = 0; k < m->beams[i].nnodes; ++k)
            if (m->beams[i].node_body[k] < 0)
                fprintf(f, "%.9g %.9g %.9g\n", m->beams[i].x0[3 * k], m->beams[i].x0[3 * k + 1],
                        m->beams[i].x0[3 * k + 2]);
    fprintf(f, "VERTICES %d %d\n", nb, 2 * nb);
    for (int b = 0; b < nb; ++b) fprintf(f, "1 %d\n", b);
    int nlines = (jfirst ? jlines : 0) + tlines;
    if (nlines > 0) {
        fprintf(f, "LINES %d %d\n", nlines, 3 * (jfirst ? jlines : 0) + tsize);
        for (int j = 0; jfirst && j < nj; ++j) {
            double p1[3], p2[3], a[3];
            ld_io_scene_joint(m, j, p1, p2, a);
            int k = joint_points(&m->joints[j], a), jp = jfirst[j];
            if (!k) continue;
            const ld_joint *J = &m->joints[j];
            fprintf(f, "2 %d %d\n", J->body1 >= 0 ? J->body1 : jp + 1, jp);
            fprintf(f, "2 %d %d\n", J->body2, jp);
            int ax = jp + 1 + (J->body1 < 0);
            if (k > 1 + (J->body1 < 0)) fprintf(f, "2 %d %d\n", ax, ax + 1);
        }
        for (int r = 0; r < m->nrods; ++r) {
            fprintf(f, "%d", m->rods[r].n + 1);
            for (int i = 0; i <= m->rods[r].n; ++i) fprintf(f, " %d", m->rods[r].body0 + i);
            fputc('\n', f);
        }
        int c = nb + g->npts + njp;
        for (int i = 0; i < m->nbeams; ++i) {
            fprintf(f, "%d", m->beams[i].nnodes);
            for (int k = 0; k < m->beams[i].nnodes; ++k)
                fprintf(f, " %d", m->beams[i].node_body[k] >= 0 ? m->beams[i].node_body[k] : c++);
            fputc('\n', f);
        }
    }
    if (g->ntri > 0) {
        fprintf(f, "POLYGONS %d %d\n", g->ntri, 4 * g->ntri);
        for (int i = 0; i < g->ntri; ++i)
            fprintf(f, "3 %d %d %d\n", nb + g->tri[3 * i], nb + g->tri[3 * i + 1],
                    nb + g->tri[3 * i + 2]);
    }
    /* point data: the body of each point (−1: none), the tube radius, the body's vectors */
    fprintf(f, "POINT_DATA %d\nSCALARS body int 1\nLOOKUP_TABLE default\n", npts);
    for (int b = 0; b < nb; ++b) fprintf(f, "%d\n", b);
    for (int i = 0; i < g->npts; ++i) fprintf(f, "%d\n", g->pbody[i]);
    for (int i = nb + g->npts; i < npts; ++i) fputs("-1\n", f);
    fputs("SCALARS radius double 1\nLOOKUP_TABLE default\n", f);
    for (int b = 0; b < nb; ++b)
        fprintf(f, "%.9g\n", g->tube[b] >= 0 ? ld_io_scene_tube_radius(m, g->tube[b]) : 0.0);
    for (int i = 0; i < g->npts + njp; ++i) fputs("0\n", f);
    for (int i = 0; i < m->nbeams; ++i) {
        double r = ld_io_scene_tube_radius(m, m->nrods + i);
        for (int k = 0; k < m->beams[i].nnodes; ++k)
            if (m->beams[i].node_body[k] < 0) fprintf(f, "%.9g\n", r);
    }
    static const char *const names[5] = {"e1", "e2", "e3", "velocity", "angular_velocity"};
    for (int v = 0; v < 5; ++v) {
        fprintf(f, "VECTORS %s double\n", names[v]);
        for (int i = 0; i < npts; ++i) {
            int b = i < nb ? i : i < nb + g->npts ? g->pbody[i - nb] : -1;
            if (b < 0)
                fputs("0 0 0\n", f);
            else
                fprintf(f, "%.9g %.9g %.9g\n", vec[15 * b + 3 * v], vec[15 * b + 3 * v + 1],
                        vec[15 * b + 3 * v + 2]);
        }
    }
    /* cell data, in the order of the sections: vertices, lines, polygons */
    int ncells = nb + nlines + g->ntri;
    fprintf(f, "CELL_DATA %d\nSCALARS part int 1\nLOOKUP_TABLE default\n", ncells);
    for (int i = 0; i < nb; ++i) fputs("0\n", f);
    for (int i = 0; i < (jfirst ? jlines : 0); ++i) fputs("2\n", f);
    for (int i = 0; i < tlines; ++i) fputs("3\n", f);
    for (int i = 0; i < g->ntri; ++i) fputs(i < g->ntri_body ? "1\n" : "4\n", f);
    free(jfirst);
}

void ld_io_vtk_contacts_write(FILE *f, const char *title, double t, const ld_contact_point *c,
                              int n) {
    fprintf(f, "# vtk DataFile Version 3.0\n%s contacts t = %.17g\nASCII\nDATASET POLYDATA\n",
            title, t);
    fprintf(f, "POINTS %d double\n", n);
    for (int i = 0; i < n; ++i)
        fprintf(f, "%.9g %.9g %.9g\n", c[i].point[0], c[i].point[1], c[i].point[2]);
    fprintf(f, "VERTICES %d %d\n", n, 2 * n);
    for (int i = 0; i < n; ++i) fprintf(f, "1 %d\n", i);
    fprintf(f, "POINT_DATA %d\n", n);
    fputs("VECTORS normal double\n", f);
    for (int i = 0; i < n; ++i)
        fprintf(f, "%.9g %.9g %.9g\n", c[i].normal[0], c[i].normal[1], c[i].normal[2]);
    fputs("VECTORS force double\n", f);
    for (int i = 0; i < n; ++i)
        fprintf(f, "%.9g %.9g %.9g\n", c[i].force[0], c[i].force[1], c[i].force[2]);
    fputs("SCALARS gap double 1\nLOOKUP_TABLE default\n", f);
    for (int i = 0; i < n; ++i) fprintf(f, "%.9g\n", c[i].gap);
    fputs("SCALARS fn double 1\nLOOKUP_TABLE default\n", f);
    for (int i = 0; i < n; ++i) fprintf(f, "%.9g\n", ld_v3_dot(c[i].force, c[i].normal));
    static const char *const names[2] = {"body1", "body2"};
    for (int k = 0; k < 2; ++k) {
        fprintf(f, "SCALARS %s int 1\nLOOKUP_TABLE default\n", names[k]);
        for (int i = 0; i < n; ++i) fprintf(f, "%d\n", k ? c[i].body2 : c[i].body1);
    }
}

/*
 * The frames the HTML viewer animates: poses and scalar series at a bounded number of output
 * times (src/io/view.h), spaced evenly in time whatever the step, the last row always kept.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jcols.h"
#include "liedyn/coords.h"
#include "view.h"
#include "../core/oom.h"

int ld_io_frames_series_names(const ld_model *m, char (*names)[VIEW_NAME_CAP]) {
    static const char *const cols[6] = {"wx", "wy", "wz", "vx", "vy", "vz"};
    int n = 0;
    snprintf(names[n++], VIEW_NAME_CAP, "energy");
    snprintf(names[n++], VIEW_NAME_CAP, "constraint_residual");
    unsigned char *node =
        ld_xcalloc((size_t)m->nbodies + 1, 1, "the viewer's frames"); /* nodes of rods and beams */
    for (int r = 0; node && r < m->nrods; ++r)
        for (int i = 0; i <= m->rods[r].n; ++i) node[m->rods[r].body0 + i] = 1;
    for (int i = 0; node && i < m->nbeams; ++i)
        for (int k = 0; k < m->beams[i].nnodes; ++k)
            if (m->beams[i].node_body[k] >= 0) node[m->beams[i].node_body[k]] = 1;
    for (int b = 0; node && b < m->nbodies && n + 6 <= VIEW_SERIES_MAX; ++b) {
        if (node[b]) continue;
        for (int c = 0; c < 6; ++c)
            snprintf(names[n++], VIEW_NAME_CAP, "%s.%s", m->bodies[b].name, cols[c]);
    }
    free(node);
    for (int j = 0; j < m->njoints; ++j) { /* the joints' coordinates and rates (jcols.h) */
        ld_joint_kind kind = m->joints[j].kind;
        int nc = 2 * ld_joint_coords_count(kind);
        if (nc == 0 || n + nc > VIEW_SERIES_MAX) continue;
        char lab[LD_NAME_MAX];
        ld_io_jcols_label(m, j, lab, sizeof lab);
        for (int i = 0; i < nc; ++i)
            snprintf(names[n++], VIEW_NAME_CAP, "%s.%s", lab, ld_joint_coord_name(kind, i));
    }
    return n;
}

int ld_io_frames_init(view_frames *F, const ld_model *m, double t0, double t1, long max, int ns,
                      char (*names)[VIEW_NAME_CAP]) {
    memset(F, 0, sizeof *F);
    F->nb = m->nbodies;
    F->ns = ns;
    long budget = (64L << 20) / (28L * (F->nb > 0 ? F->nb : 1) + 4L * ns + 8L);
    F->max = max < budget ? max : budget;
    if (F->max < 2) F->max = 2;
    F->spacing = (t1 - t0) / (double)(F->max - 1);
    F->next_t = -INFINITY;
    F->last_t = NAN;
    F->sname = ld_xcalloc((size_t)ns + 1, sizeof *F->sname, "the viewer's frames");
    F->last_pose = ld_xcalloc(7 * (size_t)F->nb + 1, sizeof(float), "the viewer's frames");
    F->last_val = ld_xcalloc((size_t)ns + 1, sizeof(float), "the viewer's frames");
    if (!F->sname || !F->last_pose || !F->last_val) return -1;
    for (int i = 0; i < ns; ++i) memcpy(F->sname[i], names[i], VIEW_NAME_CAP);
    return 0;
}

int ld_io_frames_contacts(view_frames *F, const ld_contact_point *c, int n) {
    F->with_contacts = 1;
    if (n > F->pcap) {
        float *p = ld_xrealloc(F->pend, (size_t)n * VIEW_CONTACT_FLOATS * sizeof *p,
                               "the viewer's contacts");
        if (!p) return -1;
        F->pend = p;
        F->pcap = n;
    }
    for (int i = 0; i < n; ++i) {
        float *o = F->pend + (size_t)i * VIEW_CONTACT_FLOATS;
        for (int k = 0; k < 3; ++k) {
            o[k] = (float)c[i].point[k];
            o[3 + k] = (float)c[i].normal[k];
            o[6 + k] = (float)c[i].force[k];
        }
        o[9] = (float)c[i].gap;
    }
    F->npend = n > 0 ? n : 0;
    return 0;
}

/* The pending contacts after the frame F->n just kept (none once VIEW_CONTACTS_MAX are kept).
 * 0 or -1. */
static int keep_contacts(view_frames *F) {
    long n = F->npend;
    if (F->nc + n > VIEW_CONTACTS_MAX) n = 0;
    if (F->nc + n > F->ccap) {
        long cap = F->ccap ? 2 * F->ccap : 1024;
        while (cap < F->nc + n) cap *= 2;
        float *d = ld_xrealloc(F->cdat, (size_t)cap * VIEW_CONTACT_FLOATS * sizeof *d,
                               "the viewer's contacts");
        if (!d) return -1;
        F->cdat = d;
        F->ccap = cap;
    }
    if (n > 0)
        memcpy(F->cdat + (size_t)F->nc * VIEW_CONTACT_FLOATS, F->pend,
               (size_t)n * VIEW_CONTACT_FLOATS * sizeof *F->pend);
    F->nc += n;
    F->coff[F->n + 1] = (int)F->nc;
    return 0;
}

/* Append the row (pose, val) at t. */
static int keep(view_frames *F, double t, const float *pose, const float *val) {
    if (F->n == F->cap) {
        long cap = F->cap ? 2 * F->cap : 64;
        if (cap > F->max + 1) cap = F->max + 1;
        double *nt = ld_xrealloc(F->t, (size_t)cap * sizeof *nt, "the viewer's frames");
        if (nt) F->t = nt;
        float *np = ld_xrealloc(F->pose, (size_t)cap * 7 * (size_t)F->nb * sizeof *np + 1,
                                "the viewer's frames");
        if (np) F->pose = np;
        float *nv = ld_xrealloc(F->val, (size_t)cap * (size_t)F->ns * sizeof *nv + 1,
                                "the viewer's frames");
        if (nv) F->val = nv;
        int *no = ld_xrealloc(F->coff, ((size_t)cap + 1) * sizeof *no, "the viewer's contacts");
        if (no) F->coff = no;
        if (!nt || !np || !nv || !no) return -1;
        if (F->cap == 0) F->coff[0] = 0;
        F->cap = cap;
    }
    F->t[F->n] = t;
    memcpy(F->pose + (size_t)F->n * 7 * (size_t)F->nb, pose, 7 * (size_t)F->nb * sizeof *pose);
    memcpy(F->val + (size_t)F->n * (size_t)F->ns, val, (size_t)F->ns * sizeof *val);
    if (keep_contacts(F) != 0) return -1;
    F->n++;
    return 0;
}

int ld_io_frames_offer(view_frames *F, double t, const double *x, const double *q,
                       const double *val) {
    for (int b = 0; b < F->nb; ++b) {
        float *p = F->last_pose + 7 * b;
        for (int i = 0; i < 3; ++i) p[i] = (float)x[3 * b + i];
        for (int i = 0; i < 4; ++i) p[3 + i] = (float)q[4 * b + i];
    }
    for (int i = 0; i < F->ns; ++i) F->last_val[i] = (float)val[i];
    F->last_t = t;
    F->last_kept = 0;
    /* a rounding margin of 1e-9 of the spacing keeps rows that fall on the grid */
    if (F->n >= F->max - 1 || t < F->next_t - 1e-9 * F->spacing) return 0;
    F->next_t = (F->n == 0 ? t : F->next_t) + F->spacing;
    if (F->next_t <= t) F->next_t = t + F->spacing;
    F->last_kept = 1;
    return keep(F, t, F->last_pose, F->last_val);
}

int ld_io_frames_finish(view_frames *F) {
    if (isnan(F->last_t) || F->last_kept) return 0;
    F->last_kept = 1;
    return keep(F, F->last_t, F->last_pose, F->last_val);
}

void ld_io_frames_free(view_frames *F) {
    free(F->t);
    free(F->pose);
    free(F->val);
    free(F->sname);
    free(F->last_pose);
    free(F->last_val);
    free(F->coff);
    free(F->cdat);
    free(F->pend);
    memset(F, 0, sizeof *F);
}

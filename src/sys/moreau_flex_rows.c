/*
 * moreau with rods and beams (moreau_flex.c, docs/contact.md, "Rods and beams under moreau"): the
 * contacts of a state and their rows in the system's velocity coordinates.
 *
 * The contacts are those of the colliding shapes (the detector, ld_cworld) and those of the rods'
 * and beams' spans (capsules, ld_cseg_*) with the ground plane, the ground shapes and the bodies'
 * colliding shapes, as under the compliant law. A contact's parts are the nodes it moves: a
 * body's shape its body (weight 1, the arm from its centre of mass to its surface point; the
 * other body weight −1), a span its two nodes (weights 1 − s and s, the arm from the axis point
 * c to its surface point). A part's row in the direction d of node i holds wt (Rᵀ(r × d), d)
 * in (Ω, ẋ), carried into the formulation's coordinates: (r × d) for a spatial ω, Rᵀd for a
 * body-frame translation.
 */
#include <math.h>
#include <string.h>

#include "moreau_flex.h"

/* Two unit tangents completing n. */
static void frame(const double n[3], double t1[3], double t2[3]) {
    double a[3] = {0, 0, 0};
    a[fabs(n[0]) < 0.6 ? 0 : fabs(n[1]) < 0.6 ? 1 : 2] = 1.0;
    ld_v3_cross(t1, n, a);
    double l = ld_v3_norm(t1);
    for (int i = 0; i < 3; ++i) t1[i] /= l;
    ld_v3_cross(t2, n, t1);
}

/* Part of body i (≥ 0) with weight wt acting at point p, the arm from c; into c's list. */
static void add_part(const ld_system *s, const mjf *F, mjf_contact *c, int i, double wt,
                     const double p[3], const double o[3]) {
    if (i < 0 || wt == 0.0 || c->np >= MJF_PARTS) return;
    const rb_sys *rb = ld_rb(s);
    mjf_part *pt = &c->pt[c->np++];
    const double *R = F->Rb + 9 * i;
    double r[3];
    for (int j = 0; j < 3; ++j) r[j] = p[j] - o[j];
    pt->off = s->nodes[i].voff, pt->body = i, pt->wt = wt;
    memcpy(pt->r, r, sizeof r);
    for (int k = 0; k < 3; ++k) {
        double rd[3], a[3];
        ld_v3_cross(rd, r, c->d[k]);
        if (rb->left)
            memcpy(a, rd, sizeof a);
        else
            ld_m3_tmulv(a, R, rd);
        for (int j = 0; j < 3; ++j) pt->h[k][j] = wt * a[j];
        if (rb->semi)
            ld_m3_tmulv(a, R, c->d[k]);
        else
            memcpy(a, c->d[k], sizeof a);
        for (int j = 0; j < 3; ++j) pt->h[k][3 + j] = wt * a[j];
    }
}

/* Contact slot n of F filled from the detector's ct (frame, gap, point, material); no parts. */
static mjf_contact *start(mjf *F, int n, const ld_contact *ct) {
    mjf_contact *c = &F->c[n];
    memset(c, 0, sizeof *c);
    memcpy(c->d[0], ct->n, sizeof c->d[0]);
    frame(ct->n, c->d[1], c->d[2]);
    memcpy(c->p, ct->p, sizeof c->p);
    c->gap = ct->gap, c->e = ct->e, c->mu = ct->mu;
    c->a = ct->a, c->b = ct->b, c->sa = ct->sa, c->sb = ct->sb;
    return c;
}

/* The shapes' contacts (the detector's list f of n) as contacts from slot n0: the new count. */
static int shape_contacts(const ld_system *s, mjf *F, const ld_contact *f, int n, int n0) {
    for (int i = 0; i < n && n0 < F->cap; ++i) {
        mjf_contact *c = start(F, n0++, &f[i]);
        double pa[3], pb[3];
        for (int j = 0; j < 3; ++j) {
            pa[j] = f[i].p[j] + 0.5 * f[i].gap * f[i].n[j];
            pb[j] = f[i].p[j] - 0.5 * f[i].gap * f[i].n[j];
        }
        add_part(s, F, c, f[i].a, 1.0, pa, F->xb + 3 * f[i].a);
        if (f[i].b >= 0) add_part(s, F, c, f[i].b, -1.0, pb, F->xb + 3 * f[i].b);
    }
    return n0;
}

/* The ends of span g at the present poses. */
static void span_ends(const mjf *F, int g, double xa[3], double xb[3]) {
    const ld_cseg *sg = &F->seg[g];
    for (int e = 0; e < 2; ++e)
        memcpy(e ? xb : xa, sg->body[e] == LD_GROUND ? sg->x0[e] : F->xb + 3 * sg->body[e],
               3 * sizeof(double));
}

/* The contacts tmp[0 … c) of span g (ends xa, xb) with shape sb (the detector's numbering: −1
 * the plane, −2 − j ground shape j) of material (e, mu), from slot n0, the other side body b
 * (−1: the ground); the count, −1 past the capacity. */
static int span_add(const ld_system *s, mjf *F, int g, const double xa[3], const double xb[3],
                    ld_contact *tmp, int c, int b, int sb, double e, double mu, int n0) {
    const ld_cseg *sg = &F->seg[g];
    for (int i = 0; i < c; ++i) {
        if (n0 >= F->cap) return -1;
        tmp[i].e = fmax(sg->c.restitution, e), tmp[i].mu = fmax(sg->c.friction, mu);
        tmp[i].a = sg->body[0], tmp[i].b = b, tmp[i].sa = -1, tmp[i].sb = sb;
        mjf_contact *k = start(F, n0++, &tmp[i]);
        k->seg = g + 1;
        double cc[3], pa[3], pb[3];
        double sw = ld_cseg_weight(xa, xb, sg->c.radius, &tmp[i], cc);
        for (int j = 0; j < 3; ++j) {
            pa[j] = tmp[i].p[j] + 0.5 * tmp[i].gap * tmp[i].n[j];
            pb[j] = tmp[i].p[j] - 0.5 * tmp[i].gap * tmp[i].n[j];
        }
        add_part(s, F, k, sg->body[0], 1.0 - sw, pa, cc);
        add_part(s, F, k, sg->body[1], sw, pa, cc);
        if (b >= 0) add_part(s, F, k, b, -1.0, pb, F->xb + 3 * b);
    }
    return n0;
}

/* Span g's contacts with the plane, the ground shapes and the bodies' shapes, within margin,
 * from slot n0: the new count, or −1 past the capacity. */
static int span_contacts(const ld_system *s, mjf *F, int g, double margin, int n0) {
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, O3[3] = {0, 0, 0};
    const ld_model *m = ld_rb(s)->m;
    const ld_cseg *sg = &F->seg[g];
    double xa[3], xb[3], o[3], half[3], lo[3], hi[3];
    span_ends(F, g, xa, xb);
    ld_cshape ca, cb;
    ld_cseg_place(xa, xb, sg->c.radius, &ca);
    for (int i = 0; i < 3; ++i) o[i] = 0.5 * (xa[i] + xb[i]), half[i] = xb[i] - o[i];
    double rad = ld_v3_norm(half) + sg->c.radius + margin;
    ld_contact tmp[8];
    if (m->plane.on) {
        const double *pn = m->plane.normal;
        double d = ld_v3_dot(pn, m->plane.point);
        if (ld_v3_dot(pn, o) - d <= rad) {
            int c = ld_contact_plane(&ca, pn, d, margin, tmp);
            n0 = span_add(s, F, g, xa, xb, tmp, c, -1, -1, m->plane.restitution, m->plane.friction,
                          n0);
            if (n0 < 0) return -1;
        }
    }
    for (int j = -m->nground; j < m->nshapes; ++j) { /* ground shapes, then the bodies' */
        const ld_shape *sh = j < 0 ? &m->ground[j + m->nground] : &m->shapes[j];
        if (!sh->collide || !ld_contact_detected(sh->kind)) continue;
        int b = j < 0 ? -1 : sh->body;
        if (b >= 0 && (b == sg->body[0] || b == sg->body[1])) continue;
        ld_cshape_place(sh, b < 0 ? I3 : F->Rb + 9 * b, b < 0 ? O3 : F->xb + 3 * b, &cb, lo, hi);
        int far = 0;
        for (int i = 0; i < 3; ++i) far |= o[i] + rad < lo[i] || o[i] - rad > hi[i];
        if (far) continue;
        int c = ld_contact_pair(&ca, &cb, margin, tmp);
        n0 = span_add(s, F, g, xa, xb, tmp, c < 0 ? 0 : c, b, j < 0 ? -2 - (j + m->nground) : j,
                      sh->restitution, sh->friction, n0);
        if (n0 < 0) return -1;
    }
    return n0;
}

void ld_mjf_poses(const ld_system *s, mjf *F, const double *q) {
    int nb = ld_rb(s)->m->nbodies;
    for (int i = 0; i < nb; ++i) {
        const double *x;
        ld_rb_pose(s, q, i, F->Rb + 9 * i, &x);
        memcpy(F->xb + 3 * i, x, 3 * sizeof *x);
    }
}

int ld_mjf_detect(const ld_system *s, mjf *F, const double *q, double margin) {
    ld_mjf_poses(s, F, q);
    int n = 0;
    if (F->w && ld_cworld_shapes(F->w) > 0) {
        const ld_contact *found = NULL;
        int nf = ld_cworld_find(F->w, F->Rb, F->xb, margin, &found);
        if (nf < 0 || nf > F->cap) return -1;
        n = shape_contacts(s, F, found, nf, 0);
    }
    for (int g = 0; g < F->nseg && n >= 0; ++g) n = span_contacts(s, F, g, margin, n);
    return n;
}

double ld_mjf_dot(const mjf_contact *c, int k, const double *v) {
    double u = 0.0;
    for (int p = 0; p < c->np; ++p)
        for (int j = 0; j < 6; ++j) u += c->pt[p].h[k][j] * v[c->pt[p].off + j];
    return u;
}

void ld_mjf_axpy(const mjf_contact *c, int k, double a, double *v) {
    for (int p = 0; p < c->np; ++p)
        for (int j = 0; j < 6; ++j) v[c->pt[p].off + j] += a * c->pt[p].h[k][j];
}

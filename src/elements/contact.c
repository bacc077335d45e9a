/*
 * Contact detection (contact.h, docs/contact.md): the exact tests of the primitive pairs —
 * sphere, capsule and box against the ground plane and each other, except box–box and
 * box–capsule — and a sweep-and-prune broad phase over the shapes' bounding boxes, so that a
 * model of n shapes costs O(n log n) per call (O(n) when the order hardly changes, as between
 * steps: the order is kept and re-sorted by insertion).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "contact.h"
#include "liedyn/liedyn.h"

/* ---------------------------------------------------------------- the pair tests */

/* A contact from the closest points pa (on A's core) and pb (on B's core) of two cores with
 * radii ra and rb (spheres and capsules are points and segments with a radius). */
static int round_pair(const double pa[3], double ra, const double pb[3], double rb, double margin,
                      ld_contact *o) {
    double d[3], dist;
    for (int i = 0; i < 3; ++i) d[i] = pa[i] - pb[i];
    dist = ld_v3_norm(d);
    double gap = dist - ra - rb;
    if (!(gap < margin)) return 0;
    if (dist > 1e-300)
        for (int i = 0; i < 3; ++i) o->n[i] = d[i] / dist;
    else
        o->n[0] = o->n[1] = 0.0, o->n[2] = 1.0; /* coincident centres: any direction */
    o->gap = gap;
    for (int i = 0; i < 3; ++i) o->p[i] = 0.5 * ((pa[i] - ra * o->n[i]) + (pb[i] + rb * o->n[i]));
    return 1;
}

/* The closest points of the segments p0–p1 and q0–q1 (Ericson, Real-Time Collision Detection,
 * 5.1.9), into a and b. */
static void segments(const double p0[3], const double p1[3], const double q0[3], const double q1[3],
                     double a[3], double b[3]) {
    double d1[3], d2[3], r[3];
    for (int i = 0; i < 3; ++i) d1[i] = p1[i] - p0[i], d2[i] = q1[i] - q0[i], r[i] = p0[i] - q0[i];
    double A = ld_v3_dot(d1, d1), E = ld_v3_dot(d2, d2), F = ld_v3_dot(d2, r);
    double s = 0.0, t = 0.0;
    if (A <= 1e-300 && E <= 1e-300) {
        s = t = 0.0;
    } else if (A <= 1e-300) {
        t = fmin(fmax(F / E, 0.0), 1.0);
    } else {
        double C = ld_v3_dot(d1, r);
        if (E <= 1e-300) {
            s = fmin(fmax(-C / A, 0.0), 1.0);
        } else {
            double B = ld_v3_dot(d1, d2), den = A * E - B * B;
            s = den > 1e-14 * A * E ? fmin(fmax((B * F - C * E) / den, 0.0), 1.0) : 0.0;
            t = (B * s + F) / E;
            if (t < 0.0) {
                t = 0.0;
                s = fmin(fmax(-C / A, 0.0), 1.0);
            } else if (t > 1.0) {
                t = 1.0;
                s = fmin(fmax((B - C) / A, 0.0), 1.0);
            }
        }
    }
    for (int i = 0; i < 3; ++i) a[i] = p0[i] + s * d1[i], b[i] = q0[i] + t * d2[i];
}

/* The point of segment p0–p1 closest to c. */
static void seg_point(const double p0[3], const double p1[3], const double c[3], double a[3]) {
    double d[3], r[3];
    for (int i = 0; i < 3; ++i) d[i] = p1[i] - p0[i], r[i] = c[i] - p0[i];
    double L = ld_v3_dot(d, d), s = L > 1e-300 ? fmin(fmax(ld_v3_dot(r, d) / L, 0.0), 1.0) : 0.0;
    for (int i = 0; i < 3; ++i) a[i] = p0[i] + s * d[i];
}

/* A sphere (c, r) against a box B; the normal from the box to the sphere. */
static int sphere_box(const double c[3], double r, const ld_cshape *B, double margin,
                      ld_contact *o) {
    double d[3], l[3], q[3];
    for (int i = 0; i < 3; ++i) d[i] = c[i] - B->c[i];
    ld_m3_tmulv(l, B->R, d);
    int inside = 1;
    for (int i = 0; i < 3; ++i) {
        q[i] = fmin(fmax(l[i], -B->h[i]), B->h[i]);
        inside &= fabs(l[i]) <= B->h[i];
    }
    double nl[3] = {0, 0, 0}, gap;
    if (inside) { /* the face of least depth */
        int k = 0;
        for (int i = 1; i < 3; ++i)
            if (B->h[i] - fabs(l[i]) < B->h[k] - fabs(l[k])) k = i;
        nl[k] = l[k] < 0.0 ? -1.0 : 1.0;
        q[k] = nl[k] * B->h[k];
        gap = -(B->h[k] - fabs(l[k])) - r;
    } else {
        double e[3];
        for (int i = 0; i < 3; ++i) e[i] = l[i] - q[i];
        double dist = ld_v3_norm(e);
        for (int i = 0; i < 3; ++i) nl[i] = e[i] / dist;
        gap = dist - r;
    }
    if (!(gap < margin)) return 0;
    double pb[3], ql[3];
    ld_m3_mulv(o->n, B->R, nl);
    ld_m3_mulv(ql, B->R, q);
    for (int i = 0; i < 3; ++i) pb[i] = B->c[i] + ql[i];
    o->gap = gap;
    for (int i = 0; i < 3; ++i) o->p[i] = 0.5 * ((c[i] - r * o->n[i]) + pb[i]);
    return 1;
}

/* The core of a round shape: the segment c–c1 (a sphere: c–c). */
static const double *core_end(const ld_cshape *S) {
    return S->kind == LD_SHAPE_CAPSULE ? S->c1 : S->c;
}

int ld_contact_pair(const ld_cshape *A, const ld_cshape *B, double margin, ld_contact *out) {
    int boxA = A->kind == LD_SHAPE_BOX, boxB = B->kind == LD_SHAPE_BOX;
    if (boxA && boxB) return -1;
    if (boxA || boxB) {
        const ld_cshape *S = boxA ? B : A, *X = boxA ? A : B;
        if (S->kind != LD_SHAPE_SPHERE) return -1;
        int n = sphere_box(S->c, S->r, X, margin, out);
        if (n && boxA) /* the normal from B (the sphere) to A (the box) */
            for (int i = 0; i < 3; ++i) out->n[i] = -out->n[i];
        return n;
    }
    double a[3], b[3];
    segments(A->c, core_end(A), B->c, core_end(B), a, b);
    int n = round_pair(a, A->r, b, B->r, margin, out);
    /* two parallel capsules side by side touch along a line: also their ends */
    if (n && A->kind == LD_SHAPE_CAPSULE && B->kind == LD_SHAPE_CAPSULE) {
        double da[3], db[3];
        for (int i = 0; i < 3; ++i) da[i] = A->c1[i] - A->c[i], db[i] = B->c1[i] - B->c[i];
        double c = ld_v3_dot(da, db), la = ld_v3_norm(da), lb = ld_v3_norm(db);
        if (la > 0.0 && lb > 0.0 && fabs(c) > (1.0 - 1e-6) * la * lb) {
            /* the ends of the overlap: each segment's ends that project inside the other */
            n = 0;
            const double *ends[4] = {A->c, A->c1, B->c, B->c1};
            for (int e = 0; e < 4 && n < 2; ++e) {
                const double *p0 = e < 2 ? B->c : A->c, *p1 = e < 2 ? B->c1 : A->c1;
                double d[3], r[3];
                for (int i = 0; i < 3; ++i) d[i] = p1[i] - p0[i], r[i] = ends[e][i] - p0[i];
                double u = ld_v3_dot(r, d) / ld_v3_dot(d, d);
                if (u < -1e-12 || u > 1.0 + 1e-12) continue;
                seg_point(p0, p1, ends[e], b);
                n += e < 2 ? round_pair(ends[e], A->r, b, B->r, margin, out + n)
                           : round_pair(b, A->r, ends[e], B->r, margin, out + n);
            }
        }
    }
    return n;
}

int ld_contact_plane(const ld_cshape *A, const double nrm[3], double d, double margin,
                     ld_contact *out) {
    double pts[8][3], rad = 0.0;
    int np = 0;
    if (A->kind == LD_SHAPE_BOX) {
        for (int k = 0; k < 8; ++k) {
            double l[3] = {(k & 1 ? 1 : -1) * A->h[0], (k & 2 ? 1 : -1) * A->h[1],
                           (k & 4 ? 1 : -1) * A->h[2]},
                   w[3];
            ld_m3_mulv(w, A->R, l);
            for (int i = 0; i < 3; ++i) pts[np][i] = A->c[i] + w[i];
            ++np;
        }
    } else {
        rad = A->r;
        memcpy(pts[np++], A->c, sizeof pts[0]);
        if (A->kind == LD_SHAPE_CAPSULE) memcpy(pts[np++], A->c1, sizeof pts[0]);
    }
    int n = 0;
    for (int k = 0; k < np; ++k) {
        double dist = ld_v3_dot(nrm, pts[k]) - d, gap = dist - rad;
        if (!(gap < margin)) continue;
        ld_contact *o = &out[n++];
        memcpy(o->n, nrm, sizeof o->n);
        o->gap = gap;
        for (int i = 0; i < 3; ++i) o->p[i] = pts[k][i] - (rad + 0.5 * gap) * nrm[i];
    }
    return n;
}

/* ---------------------------------------------------------------- the model's shapes */

struct ld_cworld {
    const ld_model *m;
    int ns, cap, axis;
    int *shape;         /* ns: the model's index of each colliding shape */
    int *order;         /* ns: the sweep order */
    ld_cshape *placed;  /* ns */
    double *lo, *hi;    /* ns × 3: the bounds */
    ld_contact *found;  /* cap */
    ld_contact tmp[16]; /* one pair's */
};

int ld_cworld_unsupported(const ld_model *m, int *s1, int *s2) {
    for (int i = 0; i < m->nshapes; ++i) {
        const ld_shape *a = &m->shapes[i];
        if (!a->collide || a->kind != LD_SHAPE_BOX) continue;
        for (int j = 0; j < m->nshapes; ++j) {
            const ld_shape *b = &m->shapes[j];
            if (j == i || !b->collide || b->body == a->body) continue;
            if (b->kind == LD_SHAPE_BOX || b->kind == LD_SHAPE_CAPSULE) {
                *s1 = i, *s2 = j;
                return 1;
            }
        }
    }
    return 0;
}

ld_cworld *ld_cworld_create(const ld_model *m, int cap) {
    ld_cworld *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->m = m;
    w->cap = cap > 0 ? cap : 1;
    for (int i = 0; i < m->nshapes; ++i) w->ns += m->shapes[i].collide != 0;
    size_t n = (size_t)w->ns + 1;
    w->shape = malloc(n * sizeof *w->shape);
    w->order = malloc(n * sizeof *w->order);
    w->placed = malloc(n * sizeof *w->placed);
    w->lo = malloc(3 * n * sizeof *w->lo);
    w->hi = malloc(3 * n * sizeof *w->hi);
    w->found = malloc((size_t)w->cap * sizeof *w->found);
    if (!w->shape || !w->order || !w->placed || !w->lo || !w->hi || !w->found) {
        ld_cworld_free(w);
        return NULL;
    }
    int k = 0;
    for (int i = 0; i < m->nshapes; ++i)
        if (m->shapes[i].collide) w->order[k] = k, w->shape[k++] = i;
    return w;
}

void ld_cworld_free(ld_cworld *w) {
    if (!w) return;
    free(w->shape);
    free(w->order);
    free(w->placed);
    free(w->lo);
    free(w->hi);
    free(w->found);
    free(w);
}

int ld_cworld_shapes(const ld_cworld *w) {
    return w->ns;
}

/* Shape k placed at its body's pose, with its bounds grown by margin/2. */
static void place(ld_cworld *w, int k, const double *R, const double *x, double margin) {
    const ld_shape *sh = &w->m->shapes[w->shape[k]];
    const double *Rb = R + 9 * sh->body, *xb = x + 3 * sh->body;
    ld_cshape *c = &w->placed[k];
    double off[3], a[3], ext[3];
    c->kind = sh->kind;
    ld_m3_mulv(off, Rb, sh->center);
    for (int i = 0; i < 3; ++i) c->c[i] = xb[i] + off[i];
    if (sh->kind == LD_SHAPE_BOX) {
        memcpy(c->R, Rb, sizeof c->R);
        for (int i = 0; i < 3; ++i) c->h[i] = 0.5 * sh->size[i];
        for (int i = 0; i < 3; ++i)
            ext[i] = fabs(Rb[3 * i]) * c->h[0] + fabs(Rb[3 * i + 1]) * c->h[1] +
                     fabs(Rb[3 * i + 2]) * c->h[2];
        c->r = 0.0;
    } else {
        c->r = sh->size[0];
        memcpy(c->c1, c->c, sizeof c->c1);
        if (sh->kind == LD_SHAPE_CAPSULE) {
            ld_m3_mulv(a, Rb, sh->axis);
            for (int i = 0; i < 3; ++i) {
                double half = 0.5 * sh->size[1] * a[i];
                c->c1[i] = c->c[i] + half;
                c->c[i] -= half;
            }
        }
        for (int i = 0; i < 3; ++i) ext[i] = c->r;
    }
    for (int i = 0; i < 3; ++i) {
        double l = fmin(c->c[i], c->c1[i]), h = fmax(c->c[i], c->c1[i]);
        if (sh->kind == LD_SHAPE_BOX) l = h = c->c[i];
        w->lo[3 * k + i] = l - ext[i] - 0.5 * margin;
        w->hi[3 * k + i] = h + ext[i] + 0.5 * margin;
    }
}

/* Append n pair contacts of tmp with the pair's bodies, shapes and material. */
static int keep(ld_cworld *w, int n, int sa, int sb, int *count) {
    const ld_shape *A = &w->m->shapes[sa], *B = sb >= 0 ? &w->m->shapes[sb] : NULL;
    const ld_ground_plane *pl = &w->m->plane;
    double e = fmax(A->restitution, B ? B->restitution : pl->restitution);
    double mu = fmax(A->friction, B ? B->friction : pl->friction);
    for (int i = 0; i < n; ++i) {
        if (*count >= w->cap) return -1;
        ld_contact *o = &w->found[(*count)++];
        *o = w->tmp[i];
        o->a = A->body, o->sa = sa;
        o->b = B ? B->body : -1, o->sb = sb;
        o->e = e, o->mu = mu;
    }
    return 0;
}

int ld_cworld_find(ld_cworld *w, const double *R, const double *x, double margin,
                   const ld_contact **out) {
    const ld_model *m = w->m;
    int count = 0, ns = w->ns;
    *out = w->found;
    double mean[3] = {0, 0, 0}, var[3] = {0, 0, 0};
    for (int k = 0; k < ns; ++k) {
        place(w, k, R, x, margin);
        for (int i = 0; i < 3; ++i) mean[i] += 0.5 * (w->lo[3 * k + i] + w->hi[3 * k + i]);
    }
    for (int i = 0; i < 3 && ns > 0; ++i) mean[i] /= ns;
    for (int k = 0; k < ns; ++k)
        for (int i = 0; i < 3; ++i) {
            double c = 0.5 * (w->lo[3 * k + i] + w->hi[3 * k + i]) - mean[i];
            var[i] += c * c;
        }
    int ax = var[1] > var[0] ? 1 : 0;
    if (var[2] > var[ax]) ax = 2;
    w->axis = ax;
    for (int i = 1; i < ns; ++i) { /* insertion sort of the kept order by the lower bound */
        int k = w->order[i], j = i - 1;
        double key = w->lo[3 * k + ax];
        while (j >= 0 && w->lo[3 * w->order[j] + ax] > key) {
            w->order[j + 1] = w->order[j];
            --j;
        }
        w->order[j + 1] = k;
    }
    for (int i = 0; i < ns; ++i) {
        int ka = w->order[i];
        const ld_shape *sa = &m->shapes[w->shape[ka]];
        for (int j = i + 1; j < ns; ++j) {
            int kb = w->order[j];
            if (w->lo[3 * kb + ax] > w->hi[3 * ka + ax]) break;
            const ld_shape *sb = &m->shapes[w->shape[kb]];
            if (sb->body == sa->body) continue;
            int apart = 0;
            for (int d = 0; d < 3; ++d)
                apart |=
                    w->lo[3 * kb + d] > w->hi[3 * ka + d] || w->lo[3 * ka + d] > w->hi[3 * kb + d];
            if (apart) continue;
            int first = sa->body < sb->body; /* A: the body of the smaller index */
            int k1 = first ? ka : kb, k2 = first ? kb : ka;
            int n = ld_contact_pair(&w->placed[k1], &w->placed[k2], margin, w->tmp);
            if (n > 0 && keep(w, n, w->shape[k1], w->shape[k2], &count)) return -1;
        }
    }
    if (m->plane.on) {
        const double *nrm = m->plane.normal;
        double d = ld_v3_dot(nrm, m->plane.point);
        for (int k = 0; k < ns; ++k) {
            if (w->lo[3 * k] != w->lo[3 * k]) continue;
            int n = ld_contact_plane(&w->placed[k], nrm, d, margin, w->tmp);
            if (n > 0 && keep(w, n, w->shape[k], -1, &count)) return -1;
        }
    }
    return count;
}

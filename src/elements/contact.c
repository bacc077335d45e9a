/*
 * Contact detection over a model (contact.h, docs/contact.md): its colliding shapes placed at
 * the bodies' poses, a sweep-and-prune broad phase over their bounding boxes — O(n log n) per
 * call for n shapes, O(n) when the order hardly changes, as between steps (the order is kept and
 * re-sorted by insertion) — then the exact pair tests (contact_pairs.c) and the ground plane.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "contact.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

/* ---------------------------------------------------------------- the model's shapes */

struct ld_cworld {
    const ld_model *m;
    int ns, cap, axis;
    int *shape; /* ns: each colliding shape, i of m->shapes[i] or −2 − g of m->ground[g] */
    int *order; /* ns: the sweep order */
    ld_cshape *placed;  /* ns */
    double *lo, *hi;    /* ns × 3: the bounds */
    ld_contact *found;  /* cap */
    ld_contact tmp[16]; /* one pair's */
    long *joined; /* njoined: the pairs of bodies a joint joins, a·nb + b with a < b, sorted */
    int njoined;
};

/* Does a joint join bodies a and b (both ≥ 0), or does contact_exclude name them? Such bodies
 * do not collide. */
static int joined(const ld_cworld *w, int a, int b) {
    long key = a < b ? (long)a * w->m->nbodies + b : (long)b * w->m->nbodies + a;
    int lo = 0, hi = w->njoined - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (w->joined[mid] == key) return 1;
        if (w->joined[mid] < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

static int cmp_long(const void *x, const void *y) {
    long a = *(const long *)x, b = *(const long *)y;
    return (a > b) - (a < b);
}

/* The sorted list of the joined and excluded pairs of bodies. LD_OK or LD_ENOMEM. */
static int joined_create(ld_cworld *w) {
    const ld_model *m = w->m;
    w->joined = ld_xmalloc(((size_t)m->njoints + (size_t)m->nexclude + 1) * sizeof *w->joined,
                           "the contact's joints");
    if (!w->joined) return LD_ENOMEM;
    for (int j = 0; j < m->njoints + m->nexclude; ++j) { /* the joints, then contact_exclude */
        int a = j < m->njoints ? m->joints[j].body1 : m->exclude[2 * (j - m->njoints)],
            b = j < m->njoints ? m->joints[j].body2 : m->exclude[2 * (j - m->njoints) + 1];
        if (a < 0 || b < 0 || a == b) continue;
        w->joined[w->njoined++] = a < b ? (long)a * m->nbodies + b : (long)b * m->nbodies + a;
    }
    qsort(w->joined, (size_t)w->njoined, sizeof *w->joined, cmp_long);
    return LD_OK;
}

/* Shape i of the world's numbering: m->shapes[i], or m->ground[−2 − i] for i ≤ −2. */
static const ld_shape *shape_of(const ld_model *m, int i) {
    return i >= 0 ? &m->shapes[i] : &m->ground[-2 - i];
}

int ld_cworld_unsupported(const ld_model *m, int *s1, int *s2) {
    for (int i = -1 - m->nground; i < m->nshapes; ++i) {
        if (i == -1) continue;
        const ld_shape *a = shape_of(m, i);
        if (!a->collide || ld_contact_detected(a->kind)) continue;
        for (int j = -1 - m->nground; j < m->nshapes; ++j) {
            if (j == -1 || j == i) continue;
            const ld_shape *b = shape_of(m, j);
            if (!b->collide || b->body == a->body) continue;
            *s1 = i, *s2 = j;
            return 1;
        }
    }
    return 0;
}

ld_cworld *ld_cworld_create(const ld_model *m, int cap) {
    ld_cworld *w = ld_xcalloc(1, sizeof *w, "the contact world");
    if (!w) return NULL;
    w->m = m;
    w->cap = cap > 0 ? cap : 1;
    for (int i = 0; i < m->nshapes; ++i) w->ns += m->shapes[i].collide != 0;
    for (int g = 0; g < m->nground; ++g) w->ns += m->ground[g].collide != 0;
    size_t n = (size_t)w->ns + 1;
    w->shape = ld_xmalloc(n * sizeof *w->shape, "the contact world");
    w->order = ld_xmalloc(n * sizeof *w->order, "the contact world");
    w->placed = ld_xmalloc(n * sizeof *w->placed, "the contact world");
    w->lo = ld_xmalloc(3 * n * sizeof *w->lo, "the contact world");
    w->hi = ld_xmalloc(3 * n * sizeof *w->hi, "the contact world");
    w->found = ld_xmalloc((size_t)w->cap * sizeof *w->found, "the contact pairs");
    if (!w->shape || !w->order || !w->placed || !w->lo || !w->hi || !w->found || joined_create(w)) {
        ld_cworld_free(w);
        return NULL;
    }
    int k = 0;
    for (int i = 0; i < m->nshapes; ++i)
        if (m->shapes[i].collide) w->order[k] = k, w->shape[k++] = i;
    for (int g = 0; g < m->nground; ++g)
        if (m->ground[g].collide) w->order[k] = k, w->shape[k++] = -2 - g;
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
    free(w->joined);
    free(w);
}

int ld_cworld_shapes(const ld_cworld *w) {
    return w->ns;
}

/* Shape k placed at its body's pose (a ground shape where it is), with its bounds grown by
 * margin/2. */
static void place(ld_cworld *w, int k, const double *R, const double *x, double margin) {
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, o[3] = {0, 0, 0};
    const ld_shape *sh = shape_of(w->m, w->shape[k]);
    int ground = sh->body == LD_GROUND;
    double lo[3], hi[3];
    ld_cshape_place(sh, ground ? I : R + 9 * sh->body, ground ? o : x + 3 * sh->body, &w->placed[k],
                    lo, hi);
    for (int i = 0; i < 3; ++i) {
        w->lo[3 * k + i] = lo[i] - 0.5 * margin;
        w->hi[3 * k + i] = hi[i] + 0.5 * margin;
    }
}

/* Append n pair contacts of tmp with the pair's bodies, shapes and material. */
static int keep(ld_cworld *w, int n, int sa, int sb, int *count) {
    const ld_shape *A = shape_of(w->m, sa), *B = sb != -1 ? shape_of(w->m, sb) : NULL;
    const ld_ground_plane *pl = &w->m->plane;
    double e = fmax(A->restitution, B ? B->restitution : pl->restitution);
    double rc = fmax(A->contact_radius, B ? B->contact_radius : 0.0);
    double mu = fmax(A->friction, B ? B->friction : pl->friction);
    for (int i = 0; i < n; ++i) {
        if (*count >= w->cap) return -1;
        ld_contact *o = &w->found[(*count)++];
        *o = w->tmp[i];
        o->a = A->body, o->sa = sa;
        o->b = B ? B->body : -1, o->sb = sb;
        o->e = e, o->mu = mu, o->rc = rc;
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
        const ld_shape *sa = shape_of(m, w->shape[ka]);
        for (int j = i + 1; j < ns; ++j) {
            int kb = w->order[j];
            if (w->lo[3 * kb + ax] > w->hi[3 * ka + ax]) break;
            const ld_shape *sb = shape_of(m, w->shape[kb]);
            if (sb->body == sa->body) continue;
            if (sa->body >= 0 && sb->body >= 0 && joined(w, sa->body, sb->body)) continue;
            int apart = 0;
            for (int d = 0; d < 3; ++d)
                apart |=
                    w->lo[3 * kb + d] > w->hi[3 * ka + d] || w->lo[3 * ka + d] > w->hi[3 * kb + d];
            if (apart) continue;
            /* A: the body of the smaller index, or the one that is not the ground */
            int first = sb->body == LD_GROUND || (sa->body != LD_GROUND && sa->body < sb->body);
            int k1 = first ? ka : kb, k2 = first ? kb : ka;
            int n = ld_contact_pair(&w->placed[k1], &w->placed[k2], margin, w->tmp);
            if (n > 0 && keep(w, n, w->shape[k1], w->shape[k2], &count)) return -1;
        }
    }
    if (m->plane.on) {
        const double *nrm = m->plane.normal;
        double d = ld_v3_dot(nrm, m->plane.point);
        for (int k = 0; k < ns; ++k) {
            if (isnan(w->lo[3 * k]) || w->shape[k] < -1) continue; /* not finite; ground's */
            int n = ld_contact_plane(&w->placed[k], nrm, d, margin, w->tmp);
            if (n > 0 && keep(w, n, w->shape[k], -1, &count)) return -1;
        }
    }
    return count;
}

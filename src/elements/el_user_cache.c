/*
 * The user forces' values during a system's evaluations (elements.h, docs/elements.md): one
 * cache per group of user-force elements, a group being the n instances of a vectorized user
 * force (ld_model_add_user_forces) or one plain user force. The group's force w and tangents
 * Wq, Wv are kept with the time and the bodies' motions they were computed at, so that
 *   - a vectorized force is called once for all its instances: the first instance evaluated
 *     at a new state computes the whole group at the system's state (q, v), the others find
 *     their values computed;
 *   - the tangents, asked by ∂g/∂v and then by ∂g/∂q at the same state, are computed once;
 *   - without the callback's tangents, the central differences on the group (the bodies moved
 *     as R exp(δθ), x + δx, and (Ω, ẋ) shifted) perturb only the bodies w depends on
 *     (ld_element.depends), never the ground, and all instances of a group in the same call:
 *     at most 24 pairs of calls for a whole group.
 * A value is reused only for the same t and bitwise the same motion of the instance, so the
 * numbers are those of calling the callbacks every time (for callbacks that are functions of
 * their arguments).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oom.h"
#include "../lie/mat3.h"
#include "elements.h"
#include "kinds.h"
#include "liedyn/liedyn.h"

typedef struct ugroup {
    int first, n;       /* its elements first … first + n − 1 */
    int have_w, have_t; /* w (and the tangents) hold the values at (t, b) */
    double t;
    ld_body_motion *b, *bp; /* 2n: the motions of w; the differences' perturbed ones */
    double *w, *Wq, *Wv;    /* 12n, 144n, 144n */
    double *wp, *wm, *h;    /* the differences' scratch: 12n, 12n, n */
} ugroup;

typedef struct udata {
    int *group; /* per element: its group (−1: not a user force) */
    int *inst;  /* per element: its instance among the system's */
    int ngroups;
    ugroup *g;
} udata;

void ld_el_user_release(void *data) {
    udata *d = data;
    if (!d) return;
    for (int i = 0; d->g && i < d->ngroups; ++i) {
        free(d->g[i].b);
        free(d->g[i].w);
    }
    free(d->g);
    free(d->group);
    free(d->inst);
    free(d);
}

/* Group i's arrays, in two blocks. */
static int group_alloc(ugroup *g) {
    size_t n = (size_t)g->n;
    g->b = ld_xmalloc(4 * n * sizeof *g->b, "a user force group's motions");
    g->w = ld_xmalloc((12 + 288 + 24 + 1) * n * sizeof *g->w, "a user force group's values");
    if (!g->b || !g->w) return LD_ENOMEM;
    g->bp = g->b + 2 * n;
    g->Wq = g->w + 12 * n;
    g->Wv = g->Wq + 144 * n;
    g->wp = g->Wv + 144 * n;
    g->wm = g->wp + 12 * n;
    g->h = g->wm + 12 * n;
    return LD_OK;
}

int ld_el_user_prepare(const ld_system *s, void **data, char *msg, size_t n) {
    const ld_model *m = ld_rb(s)->m;
    const ld_elems *E = &ld_rb(s)->E;
    int ne = m->nelements, ng = 0, ty = ld_element_type_find(ld_el_user_force.name);
    *data = NULL;
    for (int i = 0; i < ne; ++i) ng += m->elements[i].type == ty && m->elements[i].group == 0;
    if (ng == 0) return LD_OK;
    udata *d = ld_xcalloc(1, sizeof *d, "the user forces' cache");
    if (!d) return ld_oom_last(msg, n), LD_ENOMEM;
    *data = d;
    d->group = ld_xmalloc((size_t)ne * sizeof *d->group, "the user forces' cache");
    d->inst = ld_xcalloc((size_t)ne, sizeof *d->inst, "the user forces' cache");
    d->g = ld_xcalloc((size_t)ng, sizeof *d->g, "the user forces' cache");
    if (!d->group || !d->inst || !d->g) /* the caller releases */
        return ld_oom_last(msg, n), LD_ENOMEM;
    for (int i = 0; i < ne; ++i) {
        const ld_element *el = &m->elements[i];
        d->group[i] = -1;
        if (el->type != ty) continue;
        if (el->group == 0) {
            ugroup *g = &d->g[d->ngroups++];
            g->first = i;
            g->n = el->fns ? el->ngroup : 1;
            if (group_alloc(g)) return ld_oom_last(msg, n), LD_ENOMEM;
        } else if (d->ngroups == 0 || i - el->group != d->g[d->ngroups - 1].first ||
                   el->group >= d->g[d->ngroups - 1].n) {
            snprintf(msg, n,
                     "elements[%d]: instance %d of a vectorized user force apart from "
                     "its group",
                     i, el->group);
            return LD_EINVAL;
        }
        d->group[i] = d->ngroups - 1;
    }
    for (int i = 0; i < E->n; ++i)
        if (E->e[i].kind == &ld_ek_force) d->inst[E->e[i].item] = i;
    return LD_OK;
}

/* The group's force at motions b into w. */
static int call_force(const ld_model *m, const ugroup *g, double t, const ld_body_motion *b,
                      double *w) {
    const ld_element *el = &m->elements[g->first];
    return el->fns ? el->fns(t, g->n, b, w, el->user) : el->fn(t, b, w, el->user);
}

/* Instance j's bodies at the system's state of c (the others' motions for a group). */
static void motions_at(const ld_elem_ctx *c, const udata *d, int element, ld_body_motion b[2]) {
    const ld_elems *E = &ld_rb(c->s)->E;
    ld_elem_ctx ci = *c;
    double vl[2 * 7];
    ci.e = &E->e[d->inst[element]];
    ci.v = NULL;
    if (c->vg && ci.e->nl <= (int)(sizeof vl / sizeof *vl)) {
        ld_elems_local_velocity(c->s, ci.e, c->q, c->vg, vl);
        ci.v = vl;
    }
    ld_el_instance_motions(&ci, b);
}

/* The whole group's force at the state of c, instance j at b. */
static int refresh(const ld_el_ctx *c, const udata *d, ugroup *g, int j,
                   const ld_body_motion b[2]) {
    for (int i = 0; i < g->n; ++i)
        if (i != j) motions_at(c->inst, d, g->first + i, g->b + 2 * i);
    memcpy(g->b + 2 * j, b, 2 * sizeof *b);
    g->have_w = g->have_t = 0;
    g->t = c->t;
    int rc = call_force(c->m, g, c->t, g->b, g->w);
    g->have_w = rc == LD_OK;
    return rc;
}

/* Does instance i move body `body` (0, 1) and does its force depend on it? */
static int active(const ld_element *el, int body) {
    if (body == 0 && el->body1 < 0) return 0;
    return el->depends == 0 || (el->depends & (body ? LD_DEPENDS_BODY2 : LD_DEPENDS_BODY1));
}

/* Column j (of 24: Wq's 12, then Wv's) of every instance by central differences. */
static int difference(const ld_model *m, ugroup *g, int j) {
    int body = (j % 12) / 6, comp = j % 6, vel = j >= 12, any = 0;
    for (int sg = -1; sg <= 1; sg += 2) {
        memcpy(g->bp, g->b, 2 * (size_t)g->n * sizeof *g->b);
        for (int i = 0; i < g->n; ++i) {
            const ld_element *el = &m->elements[g->first + i];
            ld_body_motion *p = &g->bp[2 * i + body];
            const ld_body_motion *b = &g->b[2 * i + body];
            g->h[i] = 0.0;
            if (!active(el, body)) continue;
            double h = 1e-6;
            if (vel && comp < 3) h *= fmax(1.0, fabs(b->omega[comp]));
            if (vel && comp >= 3) h *= fmax(1.0, fabs(b->xdot[comp - 3]));
            if (!vel && comp >= 3) h *= fmax(1.0, fabs(b->x[comp - 3]));
            g->h[i] = h, any = 1;
            if (vel && comp < 3)
                p->omega[comp] += sg * h;
            else if (vel)
                p->xdot[comp - 3] += sg * h;
            else if (comp >= 3)
                p->x[comp - 3] += sg * h;
            else {
                double dv[3] = {0, 0, 0}, E[9];
                dv[comp] = sg * h;
                ld_so3_exp(E, dv);
                ld_m3_mul(p->R, b->R, E);
            }
        }
        if (!any) break;
        int rc = call_force(m, g, g->t, g->bp, sg < 0 ? g->wm : g->wp);
        if (rc) return rc;
    }
    double *W = vel ? g->Wv : g->Wq;
    for (int i = 0; i < g->n; ++i)
        for (int r = 0; r < 12; ++r)
            W[144 * i + 12 * r + j % 12] =
                g->h[i] > 0.0 ? (g->wp[12 * i + r] - g->wm[12 * i + r]) / (2.0 * g->h[i]) : 0.0;
    return LD_OK;
}

/* The group's tangents at (t, b): the callback's, or differences. */
static int tangents(const ld_model *m, ugroup *g) {
    const ld_element *el = &m->elements[g->first];
    int rc = LD_OK;
    if (el->fns && el->tangents)
        rc = el->tangents(g->t, g->n, g->b, g->Wq, g->Wv, el->user);
    else if (!el->fns && el->tangent)
        rc = el->tangent(g->t, g->b, g->Wq, g->Wv, el->user);
    else
        for (int j = 0; !rc && j < 24; ++j) rc = difference(m, g, j);
    g->have_t = rc == LD_OK;
    return rc;
}

void ld_el_user_forget(const ld_system *s) {
    udata *d = ld_elems_scratch(s, &ld_ek_force);
    for (int i = 0; d && i < d->ngroups; ++i) d->g[i].have_w = d->g[i].have_t = 0;
}

int ld_el_user_values(const ld_el_ctx *c, const ld_body_motion b[2], unsigned want,
                      const double **w, const double **Wq, const double **Wv) {
    udata *d = ld_elems_scratch(c->inst->s, &ld_ek_force);
    int e = (int)(c->el - c->m->elements);
    if (!d || d->group[e] < 0) return LD_EINVAL;
    ugroup *g = &d->g[d->group[e]];
    int j = e - g->first, rc = LD_OK;
    if (!g->have_w || g->t != c->t || memcmp(g->b + 2 * j, b, 2 * sizeof *b) != 0)
        rc = refresh(c, d, g, j, b);
    if (!rc && (want & (LD_EL_GQ | LD_EL_GV)) && !g->have_t) rc = tangents(c->m, g);
    if (rc) return rc;
    *w = g->w + 12 * j;
    *Wq = g->Wq + 144 * j;
    *Wv = g->Wv + 144 * j;
    return LD_OK;
}

/* The moreau method's warm start and contact output (moreau_impl.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "moreau_impl.h"

/* ---------------------------------------------------------------- contact forces */

/* The trial's contact forces and torques per body (spatial, about the centre of mass) from the
 * impulses of the nc contacts of the step h. */
void ld_mj_contact_forces(mj *S, int nc, double h) {
    memset(S->cft, 0, 6 * (size_t)S->nb * sizeof *S->cft);
    for (int i = 0; i < nc; ++i) {
        const mj_contact *c = &S->c[i];
        double F[3] = {0, 0, 0}, ta[3] = {0, 0, 0}, tb[3] = {0, 0, 0}, w[3];
        for (int k = 0; k < 3; ++k)
            for (int j = 0; j < 3; ++j) {
                F[j] += c->P[k] * c->d[k][j] / h;
                ta[j] += c->P[k] * c->ja[k][j] / h;
                tb[j] += c->P[k] * c->jb[k][j] / h;
            }
        for (int j = 0; c->rs > 0.0 && j < 3; ++j) /* the drilling torque */
            ta[j] += c->Ps * c->js_a[j] / h, tb[j] += c->Ps * c->js_b[j] / h;
        double *fa = S->cft + 6 * c->a;
        ld_m3_mulv(w, S->b[c->a].R, ta);
        for (int j = 0; j < 3; ++j) fa[j] += F[j], fa[3 + j] += w[j];
        if (c->b < 0) continue;
        double *fb = S->cft + 6 * c->b;
        ld_m3_mulv(w, S->b[c->b].R, tb);
        for (int j = 0; j < 3; ++j) fb[j] -= F[j], fb[3 + j] -= w[j];
    }
}

/* Keep the nf shapes' contacts of the accepted step h for ld_integ_contacts. */
void ld_mj_keep_points(mj *S, int nf, double h) {
    int n = 0;
    for (int i = 0; i < nf; ++i) {
        const mj_contact *c = &S->c[i];
        if (c->open && c->P[0] == 0.0) continue; /* open and idle */
        ld_contact_point *o = &S->pts[n++];
        o->body1 = c->a, o->body2 = c->b, o->shape1 = c->sa, o->shape2 = c->sb;
        memcpy(o->point, c->p, sizeof o->point);
        memcpy(o->normal, c->d[0], sizeof o->normal);
        o->gap = c->gap;
        for (int j = 0; j < 3; ++j)
            o->force[j] = (c->P[0] * c->d[0][j] + c->P[1] * c->d[1][j] + c->P[2] * c->d[2][j]) / h;
    }
    S->npts = n;
}

/* ---------------------------------------------------------------- warm start */

/* The key of contact c of the list: its shapes (ns of the bodies, the ground's after them),
 * and its place among the pair's contacts. */
long ld_mj_warm_key(const ld_contact *f, int c, int ns, int ng) {
    int j = 0;
    while (j < c && f[c - j - 1].sa == f[c].sa && f[c - j - 1].sb == f[c].sb) ++j;
    long sb = f[c].sb >= -1 ? f[c].sb + 1 : ns + 1 + (-2 - f[c].sb);
    return ((long)f[c].sa * (ns + ng + 1) + sb) * 16 + (j < 15 ? j : 15);
}

/* Sift-down of a heap of n entries (heap sort, in place: no allocation in a step). */
static void sift(mj_warm *a, int i, int n) {
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && a[c + 1].key > a[c].key) ++c;
        if (a[c].key <= a[i].key) return;
        mj_warm t = a[i];
        a[i] = a[c], a[c] = t;
        i = c;
    }
}

static void warm_sort(mj_warm *a, int n) {
    for (int i = n / 2 - 1; i >= 0; --i) sift(a, i, n);
    for (int e = n - 1; e > 0; --e) {
        mj_warm t = a[0];
        a[0] = a[e], a[e] = t;
        sift(a, 0, e);
    }
}

/* The impulse kept for key, projected onto contact c's cone and applied to its bodies. */
void ld_mj_warm_apply(mj *S, mj_contact *c, long key) {
    int lo = 0, hi = S->nwarm - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (S->warm[mid].key < key) {
            lo = mid + 1;
        } else if (S->warm[mid].key > key) {
            hi = mid - 1;
        } else {
            const double *F = S->warm[mid].F;
            double P[4] = {fmax(0.0, ld_v3_dot(F, c->d[0])), ld_v3_dot(F, c->d[1]),
                           ld_v3_dot(F, c->d[2]), c->rs > 0.0 ? S->warm[mid].Ps : 0.0};
            ld_mj_friction_project(P, c->mu);
            memcpy(c->P, P, sizeof c->P);
            ld_mj_apply(S, c, P);
            if (c->rs > 0.0) c->Ps = P[3], ld_mj_apply_spin(S, c, P[3]);
            return;
        }
    }
}

/* Keep the step's contact impulses for the next step. */
void ld_mj_warm_keep(mj *S, const ld_contact *f, int nc) {
    for (int c = 0; c < nc; ++c) {
        mj_warm *w = &S->warm[c];
        w->key = ld_mj_warm_key(f, c, S->nshapes, S->nground);
        for (int i = 0; i < 3; ++i)
            w->F[i] = S->c[c].P[0] * S->c[c].d[0][i] + S->c[c].P[1] * S->c[c].d[1][i] +
                      S->c[c].P[2] * S->c[c].d[2][i];
        w->Ps = S->c[c].rs > 0.0 ? S->c[c].Ps : 0.0;
    }
    S->nwarm = nc;
    warm_sort(S->warm, nc);
}

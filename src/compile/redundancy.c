/*
 * Redundant joint rows (ld_rb_redundancy, kinds.h).
 *
 * A planar loop of revolute joints written in 3-D, or an overconstrained but mobile mechanism
 * (Bricard's), has joint equations whose rows of B depend on the others at every configuration
 * of its motion: B has fewer independent rows than it has rows, and the saddle-point matrices
 * of every integrator are singular. The equations themselves are consistent (the mechanism is
 * assembled), so the dependent rows can be left out: the others hold them to first order, and
 * where B keeps its rank along the motion, to every order (the constant-rank theorem: both
 * sets of equations define the same manifold near the start).
 *
 * Which rows: the rows of B at the start, each scaled to unit length, are taken in order — the
 * rods' Kirchhoff rows and the unit norms first (never dropped), then the joints' rows in the
 * order of the model — and a row is dropped when its part orthogonal to the rows kept before it
 * is below DEP_TOL (Householder reflections of the kept rows, one pass: O(m · r · kc) for m
 * rows, rank r and kc columns touched). So the first joints of the list keep their rows and a
 * loop's closing joint gives up the rows that the loop already holds, as a user expects.
 *
 * A singular position at the start (a four-bar with its links aligned) also makes rows
 * dependent, but only there: leaving them out would free a motion the mechanism does not have.
 * So the start is moved by a small random motion ξ that the kept rows allow (|ξ| = PERTURB in
 * the largest entry) and the rows are examined there again: a dropped row that is independent
 * of the kept ones there by more than SING_TOL (a singular position: O(|ξ|); a redundant row:
 * O(|ξ|²) at most) refuses the model with the joint named.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "btrans.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"
#include "compile.h"
#include "../core/oom.h"

#define DEP_TOL  1e-8 /* a unit row whose part outside the kept rows is below this depends */
#define PERTURB  1e-5 /* the largest entry of the test motion (rad or m) */
#define SING_TOL 1e-7 /* a dropped row this independent near the start: a singular position */

/* The kept rows' Householder reflectors: V (kc × r, column j nonzero from entry j to end[j] at
 * most, v_j[j] = 1), tau, end; x: a column's scratch. Rows of B touch few columns, so a
 * reflector's support and a column's stay short when the rows of a mechanism come body by
 * body: the loops below visit only the entries where both are nonzero. */
typedef struct hh {
    int kc, r;
    double *V, *tau, *x;
    int *end;
} hh;

/* x ← H_{r−1} … H_0 x (Qᵀ x); the norm of x below entry r: the part of x outside the span. */
static double hh_residual(const hh *h, double *x) {
    int lo = h->kc, hi = -1;
    for (int i = 0; i < h->kc; ++i)
        if (x[i] != 0.0) {
            if (lo == h->kc) lo = i;
            hi = i;
        }
    for (int j = 0; j < h->r && hi >= 0; ++j) {
        if (h->end[j] < lo || j > hi) continue; /* no common support */
        const double *v = h->V + (size_t)j * (size_t)h->kc;
        int a = j > lo ? j : lo, b = h->end[j] < hi ? h->end[j] : hi;
        double d = 0.0;
        for (int i = a; i <= b; ++i) d += v[i] * x[i];
        if (d == 0.0) continue;
        d *= h->tau[j];
        for (int i = j; i <= h->end[j]; ++i) x[i] -= d * v[i];
        if (j < lo) lo = j;
        if (h->end[j] > hi) hi = h->end[j];
    }
    double big = 0.0, sum = 0.0;
    for (int i = h->r; i <= hi; ++i) big = fmax(big, fabs(x[i]));
    for (int i = h->r; big > 0.0 && i <= hi; ++i) sum += (x[i] / big) * (x[i] / big);
    return big * sqrt(sum);
}

/* A new reflector from x (reduced by hh_residual, with residual nrm > 0) that zeroes x below
 * entry r. */
static void hh_add(hh *h, const double *x, double nrm) {
    int r = h->r, end = r;
    double *v = h->V + (size_t)r * (size_t)h->kc, alpha = x[r];
    double beta = alpha >= 0.0 ? -nrm : nrm;
    for (int i = r + 1; i < h->kc; ++i)
        if (x[i] != 0.0) end = i;
    memset(v, 0, (size_t)h->kc * sizeof *v);
    v[r] = 1.0;
    for (int i = r + 1; i <= end; ++i) v[i] = x[i] / (alpha - beta);
    h->tau[r] = (beta - alpha) / beta;
    h->end[r] = end;
    h->r = r + 1;
}

/* Take the columns of o (unit rows of B) in the order ord[0 … no − 1]: each either extends
 * the span (kept) or not (dep[row] = 1, the largest such residual in *worst when not NULL).
 * Returns the rank. */
static int greedy(const ld_bt *o, const int *ord, int no, hh *h, unsigned char *dep,
                  double *worst) {
    h->r = 0;
    for (int p = 0; p < no; ++p) {
        int j = ord[p];
        memcpy(h->x, o->a + (size_t)j * (size_t)o->kc, (size_t)o->kc * sizeof *h->x);
        double res = h->r < o->kc ? hh_residual(h, h->x) : 0.0;
        dep[j] = res <= DEP_TOL;
        if (dep[j] && worst && res > *worst) *worst = res;
        if (!dep[j]) hh_add(h, h->x, res);
    }
    return h->r;
}

/* The rows in the order of the test: those of the rods and unit norms (j ≥ nj) first, then the
 * joints' rows (j < nj); *with the dropped ones last when drop is given. */
static int order_rows(const ld_bt *o, int nj, const unsigned char *drop, int *ord) {
    int p = 0;
    for (int j = nj; j < o->m; ++j) ord[p++] = j;
    for (int j = 0; j < nj && j < o->m; ++j)
        if (!drop || !drop[j]) ord[p++] = j;
    for (int j = 0; drop && j < nj && j < o->m; ++j)
        if (drop[j]) ord[p++] = j;
    return p;
}

/* A small motion ξ (k) that the kept rows allow: Q [0; g] for a fixed pseudo-random g, mapped
 * back to the columns of B, scaled to PERTURB in its largest entry. */
static void test_motion(const hh *h, const ld_bt *o, int k, double *xi) {
    unsigned long long st = 0x9E3779B97F4A7C15ull;
    double *z = h->x;
    for (int i = 0; i < h->kc; ++i) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        z[i] = i < h->r ? 0.0 : (double)(st >> 11) / 9007199254740992.0 - 0.5;
    }
    for (int j = h->r - 1; j >= 0; --j) { /* z ← H_j z */
        const double *v = h->V + (size_t)j * (size_t)h->kc;
        double d = 0.0;
        for (int i = j; i <= h->end[j]; ++i) d += v[i] * z[i];
        d *= h->tau[j];
        for (int i = j; i <= h->end[j]; ++i) z[i] -= d * v[i];
    }
    double big = 0.0;
    for (int i = 0; i < h->kc; ++i) big = fmax(big, fabs(z[i]));
    for (int c = 0; c < k; ++c)
        xi[c] = o->col[c] >= 0 && big > 0.0 ? PERTURB * z[o->col[c]] / big : 0.0;
}

/* The first dropped row that is independent of the kept ones near the start (−1: none). */
static int singular_row(const ld_system *s, double t, const double *q, const hh *h0,
                        const ld_bt *o0, const unsigned char *drop, int nj, char *msg, size_t n,
                        int *rc) {
    double *xi = ld_xmalloc((size_t)s->k * sizeof *xi, "the redundancy check"),
           *qn = ld_xmalloc((size_t)s->nq * sizeof *qn, "the redundancy check");
    ld_bt o = {0, 0, NULL, NULL};
    int *ord = ld_xmalloc((size_t)o0->m * sizeof *ord, "the redundancy check"), found = -1;
    *rc = xi && qn && ord ? LD_OK : LD_ENOMEM;
    if (!*rc) {
        test_motion(h0, o0, s->k, xi);
        ld_sys_retract(s, qn, q, xi);
        *rc = ld_bt_build(s, t, qn, &o, msg, n);
    }
    if (!*rc && (o.m != o0->m || o.kc != o0->kc)) *rc = LD_EINVAL;
    if (!*rc) {
        hh h = *h0; /* its buffers; the span is built anew at the moved configuration */
        h.r = 0;
        ld_bt_normalize(&o);
        int no = order_rows(&o, nj, drop, ord);
        for (int p = 0; p < no; ++p) { /* kept rows build the span, dropped ones are tested */
            int j = ord[p];
            memcpy(h.x, o.a + (size_t)j * (size_t)o.kc, (size_t)o.kc * sizeof *h.x);
            double res = h.r < o.kc ? hh_residual(&h, h.x) : 0.0;
            if (drop[j] && res > SING_TOL) {
                found = j;
                break;
            }
            if (!drop[j] && res > 0.0) hh_add(&h, h.x, res);
        }
    }
    ld_bt_free(&o);
    free(xi);
    free(qn);
    free(ord);
    return found;
}

int ld_rb_redundancy(const ld_system *s, double t, const double *q, unsigned char *drop, int *ndrop,
                     char *msg, size_t n) {
    int nj = ld_rb(s)->njrows;
    *ndrop = 0;
    memset(drop, 0, (size_t)(s->m > 0 ? s->m : 1));
    if (nj == 0) return LD_OK;
    ld_bt o = {0, 0, NULL, NULL};
    int rc = ld_bt_build(s, t, q, &o, msg, n);
    if (rc == LD_ENOTSUPPORTED) { /* too large to examine: compile as written */
        ld_bt_free(&o);
        if (msg && n) msg[0] = '\0';
        return LD_OK;
    }
    size_t kc = (size_t)o.kc, rmax = (size_t)(o.m < o.kc ? o.m : o.kc) + 1;
    hh h = {o.kc, 0, NULL, NULL, NULL, NULL};
    int *ord = NULL;
    unsigned char *dep = NULL;
    if (!rc) {
        h.V = ld_xmalloc((kc * rmax + 1) * sizeof *h.V, "the redundancy check");
        h.tau = ld_xmalloc(rmax * sizeof *h.tau, "the redundancy check");
        h.x = ld_xmalloc((kc + 1) * sizeof *h.x, "the redundancy check");
        h.end = ld_xmalloc(rmax * sizeof *h.end, "the redundancy check");
        ord = ld_xmalloc((size_t)(o.m > 0 ? o.m : 1) * sizeof *ord, "the redundancy check");
        dep = ld_xcalloc((size_t)(o.m > 0 ? o.m : 1), 1, "the redundancy check");
        if (!h.V || !h.tau || !h.x || !h.end || !ord || !dep) rc = LD_ENOMEM;
    }
    if (!rc) {
        ld_bt_normalize(&o);
        int no = order_rows(&o, nj, NULL, ord);
        (void)greedy(&o, ord, no, &h, dep, NULL);
        for (int j = 0; j < nj && j < o.m; ++j) *ndrop += drop[j] = dep[j];
    }
    if (!rc && *ndrop > 0 && h.r < o.kc) {
        hh kept = h;
        int bad = singular_row(s, t, q, &kept, &o, drop, nj, msg, n, &rc);
        if (!rc && bad >= 0) {
            char row[LD_NAME_MAX + 96];
            (void)ld_model_row_name(s, bad, row, sizeof row);
            strf(msg, n,
                 "the initial configuration is a singular position of the mechanism: %s "
                 "depends on the other constraint rows at the start but not nearby (the "
                 "mechanism could branch there); start it away from the singular position",
                 row);
            rc = LD_EINVAL;
        }
    }
    if (rc) *ndrop = 0;
    ld_bt_free(&o);
    free(h.V);
    free(h.tau);
    free(h.x);
    free(h.end);
    free(ord);
    free(dep);
    return rc;
}

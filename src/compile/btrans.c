/* The transpose of the constraint Jacobian on the columns its rows touch (btrans.h). */
#include "btrans.h"

#include <math.h>
#include <stdlib.h>

#include "../core/strf.h"
#include "liedyn/liedyn.h"
#include "../elements/kinds.h"
#include "../core/oom.h"

/* Columns touched by the rows 0 … mr − 1 of the sparse pattern, numbered in col[] (−1:
 * untouched); their count. The pattern is sorted by row. */
static int touched_columns(const ld_system *s, int mr, int *col) {
    int kc = 0;
    for (int c = 0; c < s->k; ++c) col[c] = -1;
    for (int e = 0; e < s->bnnz && s->brow[e] < mr; ++e)
        if (col[s->bcol[e]] < 0) col[s->bcol[e]] = kc++;
    return kc;
}

/* From the sparse pattern of the Lie formulations. */
static int bt_sparse(const ld_system *s, double t, const double *q, ld_bt *o, char *msg, size_t n) {
    double *vals =
        ld_xmalloc((size_t)(s->bnnz > 0 ? s->bnnz : 1) * sizeof *vals, "the constraint Jacobian");
    int rc = vals ? LD_OK : LD_ENOMEM, kc = 0, mr = s->m;
    if (!rc) kc = touched_columns(s, mr, o->col);
    if (!rc && (double)kc * mr > LD_BT_MAX_ENTRIES && ld_rb(s)->njrows < mr)
        kc = touched_columns(s, mr = ld_rb(s)->njrows, o->col);
    if (!rc && (double)kc * mr > LD_BT_MAX_ENTRIES) {
        strf(msg, n, "the constraints are too many to diagnose (%d rows on %d columns)", mr, kc);
        rc = LD_ENOTSUPPORTED;
    }
    if (!rc) rc = s->ops.phi_q_sparse(s, t, q, vals) ? LD_ESINGULAR : LD_OK;
    if (!rc &&
        !(o->a = ld_xcalloc((size_t)kc * (size_t)mr + 1, sizeof *o->a, "the constraint Jacobian")))
        rc = LD_ENOMEM;
    for (int e = 0; !rc && e < s->bnnz && s->brow[e] < mr; ++e)
        o->a[(size_t)s->brow[e] * (size_t)kc + (size_t)o->col[s->bcol[e]]] = vals[e];
    o->kc = kc;
    o->m = mr;
    free(vals);
    return rc;
}

/* From the dense B (m×k row-major, which is Bᵀ column-major); every column counts. */
static int bt_dense(const ld_system *s, double t, const double *q, ld_bt *o, char *msg, size_t n) {
    if ((double)s->k * s->m > LD_BT_MAX_ENTRIES) {
        strf(msg, n, "the constraints are too many to diagnose (%d rows on %d columns)", s->m,
             s->k);
        return LD_ENOTSUPPORTED;
    }
    for (int c = 0; c < s->k; ++c) o->col[c] = c;
    if (!(o->a = ld_xmalloc(((size_t)s->k * (size_t)s->m + 1) * sizeof *o->a,
                            "the constraint Jacobian")))
        return LD_ENOMEM;
    o->kc = s->k;
    o->m = s->m;
    return s->ops.phi_q(s, t, q, o->a) ? LD_ESINGULAR : LD_OK;
}

int ld_bt_build(const ld_system *s, double t, const double *q, ld_bt *o, char *msg, size_t n) {
    o->kc = o->m = 0;
    o->a = NULL;
    o->col = ld_xmalloc((size_t)(s->k > 0 ? s->k : 1) * sizeof *o->col, "the constraint Jacobian");
    if (!o->col) return LD_ENOMEM;
    return s->ops.phi_q_sparse && s->brow ? bt_sparse(s, t, q, o, msg, n)
                                          : bt_dense(s, t, q, o, msg, n);
}

void ld_bt_normalize(ld_bt *o) {
    for (int j = 0; j < o->m; ++j) {
        double *c = o->a + (size_t)j * (size_t)o->kc, big = 0.0, sum = 0.0;
        for (int i = 0; i < o->kc; ++i) big = fmax(big, fabs(c[i]));
        if (big == 0.0) continue;
        for (int i = 0; i < o->kc; ++i) sum += (c[i] / big) * (c[i] / big);
        double nrm = big * sqrt(sum);
        for (int i = 0; i < o->kc; ++i) c[i] /= nrm;
    }
}

void ld_bt_free(ld_bt *o) {
    free(o->a);
    free(o->col);
    o->a = NULL;
    o->col = NULL;
}

/*
 * Why a compiled model has no consistent initial accelerations (ld_model_diagnose, system.h):
 * the saddle-point matrix [M Bᵀ; B 0] is singular when the rows of the constraint Jacobian B are
 * linearly dependent (redundant or conflicting joints), and singular to working precision when
 * the scale of M spreads too far across the bodies.
 *
 * Rank of B: Bᵀ restricted to the columns its rows touch, each row scaled to unit length, is
 * factored by QR with column pivoting (LAPACK dgeqp3); a diagonal entry of R below RANK_TOL
 * times the largest counts as zero. The first dependent row is the smallest prefix of the rows
 * that is rank deficient (a bisection over prefixes), the rows it depends on the support of the
 * least-squares combination of the rows before it (dgels). Memory: the columns touched times
 * the rows; above MAX_ENTRIES the joints' rows alone are examined (a rod's Kirchhoff rows are
 * independent of each other), and if even they are too many, nothing is.
 */
#include <lapacke.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"
#include "btrans.h"
#include "../elements/kinds.h"
#include "../core/oom.h"

#define RANK_TOL    1e-10 /* relative: |R_ii| ≤ RANK_TOL |R_00| counts as zero */
#define COEF_TOL    1e-8  /* a row takes part in a dependency above this relative weight */
#define MASS_SPREAD 1e12  /* largest / smallest mass or moment of inertia that a solve survives */
#define MAX_NAMED   6     /* items named in one message */

/* ------------------------------------------------------------------ ranks */

/* Numerical rank of the first p rows of B (columns of Bᵀ), by dgeqp3 on a copy in w (kc·p) with
 * pivots in jpvt (p) and tau (p). −1 when LAPACK fails. */
static int prefix_rank(const ld_bt *o, int p, double *w, lapack_int *jpvt, double *tau) {
    if (p == 0) return 0;
    memcpy(w, o->a, (size_t)o->kc * (size_t)p * sizeof *w);
    memset(jpvt, 0, (size_t)p * sizeof *jpvt);
    if (LAPACKE_dgeqp3(LAPACK_COL_MAJOR, o->kc, p, w, o->kc, jpvt, tau) != 0) return -1;
    int nd = p < o->kc ? p : o->kc, r = 0;
    double r00 = fabs(w[0]);
    for (int i = 0; i < nd; ++i)
        if (fabs(w[(size_t)i * (size_t)o->kc + (size_t)i]) > RANK_TOL * r00) ++r;
    return r00 > 0.0 ? r : 0;
}

/* Scratch for prefix_rank. */
typedef struct rank_ws {
    double *w, *tau;
    lapack_int *jpvt;
} rank_ws;

/* The smallest p with rank(first p rows) < p, given that all m rows are rank deficient: the
 * first dependent row is p − 1. −1 when LAPACK fails. */
static int first_dependent(const ld_bt *o, const rank_ws *ws) {
    int lo = 1, hi = o->m; /* deficient(hi) holds */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, r = prefix_rank(o, mid, ws->w, ws->jpvt, ws->tau);
        if (r < 0) return -1;
        if (r < mid)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo - 1;
}

/* x (i0 entries): the combination of rows 0 … i0 − 1 of B that gives row i0 (least squares;
 * those rows are independent). LD_OK or LD_ESINGULAR. */
static int combination(const ld_bt *o, int i0, double *w, double *x) {
    if (i0 == 0) return LD_OK;
    size_t kc = (size_t)o->kc;
    memcpy(w, o->a, kc * (size_t)i0 * sizeof *w);
    memcpy(x, o->a + kc * (size_t)i0, kc * sizeof *x);
    return LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', o->kc, i0, 1, w, o->kc, x, o->kc) == 0
               ? LD_OK
               : LD_ESINGULAR;
}

/* ------------------------------------------------------------------ naming rows */

/* The item a row of B belongs to: a joint (< njoints), a rod's Kirchhoff rows (njoints + rod),
 * a body's unit norm in the euler formulation (njoints + nrods + body); *local: the row within
 * the item, from 0. */
static int row_owner(const ld_system *s, int row, int *local) {
    const ld_model *m = ld_rb(s)->m;
    const ld_elem *e = ld_elems_row_local(s, row, local);
    if (!e) return *local = 0, 0;
    if (e->kind == &ld_ek_joint) return e->item;
    if (e->kind == &ld_ek_rod) {
        *local += 2 * e->sub;
        return m->njoints + e->item;
    }
    return m->njoints + m->nrods + e->item;
}

/* "'name' (line L)" of an owner; "joints[j]" (…) when it has no name; no line when with_line
 * is 0 or the model was built in code. */
static const char *owner_label(const ld_model *m, int who, int with_line, char *buf, size_t cap) {
    const char *name = "", *what = "joints";
    int line = 0, idx = who;
    if (who < m->njoints) {
        name = m->joints[who].name, line = m->joints[who].line;
    } else if ((idx = who - m->njoints) < m->nrods) {
        name = m->rods[idx].name, line = m->rods[idx].line, what = "rods";
    } else {
        idx -= m->nrods, what = "bodies";
        if (idx >= 0 && idx < m->nbodies) name = m->bodies[idx].name, line = m->bodies[idx].line;
    }
    int w = name[0] ? strf(buf, cap, "'%s'", name) : strf(buf, cap, "%s[%d]", what, idx);
    if (with_line && line > 0 && w >= 0 && (size_t)w < cap)
        strf(buf + w, cap - (size_t)w, " (line %d)", line);
    return buf;
}

/* Append formatted text to out[cap] at *len. */
LD_PRINTF(4, 5)
static void append(char *out, size_t cap, size_t *len, const char *fmt, ...) {
    if (*len >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(out + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (w > 0) *len = *len + (size_t)w < cap ? *len + (size_t)w : cap - 1;
}

/* "rows 1..3", "row 4", "rows 1, 2 and 5" of the local rows flagged in dep[0 … nr − 1]. */
static void rows_text(const int *dep, int nr, char *out, size_t cap) {
    int cnt = 0, first = -1, last = -1, contiguous = 1;
    size_t len = 0;
    for (int r = 0; r < nr; ++r) {
        if (!dep[r]) continue;
        if (last >= 0 && r != last + 1) contiguous = 0;
        if (first < 0) first = r;
        last = r, ++cnt;
    }
    out[0] = '\0';
    if (cnt == 1 || contiguous) {
        if (cnt == 1)
            strf(out, cap, "row %d", first + 1);
        else
            strf(out, cap, "rows %d..%d", first + 1, last + 1);
        return;
    }
    append(out, cap, &len, "rows");
    for (int r = 0, k = 0; r < nr; ++r)
        if (dep[r]) {
            ++k;
            append(out, cap, &len, "%s%d", k == 1 ? " " : k == cnt ? " and " : ", ", r + 1);
        }
}

/* ------------------------------------------------------------------ the redundancy report */

typedef struct finding {
    int owner, nrows; /* the item whose rows depend on the others, and its row count */
    int dep[12];      /* its dependent rows (local) */
    int *others;      /* flags per owner: takes part in the dependency */
    int rank, mrows;  /* of the rows examined */
} finding;

/* The system rows of an owner: its first in *row0 and their number (a joint's rows kept in
 * the system, a rod's Kirchhoff rows, a unit norm); at most 12 are examined. */
static int owner_rows(const ld_system *s, int who, int *row0) {
    const ld_model *m = ld_rb(s)->m;
    const ld_elems *E = &ld_rb(s)->E;
    int first = -1, cnt = 0;
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        int owner = e->kind == &ld_ek_joint ? e->item
                    : e->kind == &ld_ek_rod ? m->njoints + e->item
                                            : m->njoints + m->nrods + e->item;
        if (e->nkeep == 0 || owner != who) continue;
        if (first < 0) first = e->row0;
        cnt += e->nkeep;
    }
    *row0 = first < 0 ? 0 : first;
    return cnt;
}

int ld_model_row_name(const ld_system *s, int row, char *buf, size_t cap) {
    return ld_elems_row_name(s, row, buf, cap);
}

/* The message of a finding. */
static void report(const ld_system *s, const finding *f, char *msg, size_t n) {
    const ld_model *m = ld_rb(s)->m;
    int nown = m->njoints + m->nrods + m->nbodies, cnt = 0, named = 0;
    char lab[LD_NAME_MAX + 48], rows[96];
    size_t len = 0;
    for (int w = 0; w < nown; ++w) cnt += f->others[w] && w != f->owner;
    rows_text(f->dep, 12, rows, sizeof rows);
    if (cnt == 0) {
        append(msg, n, &len, "constraint %s of %s depend%s on its other rows", rows,
               owner_label(m, f->owner, 1, lab, sizeof lab), rows[3] == 's' ? "" : "s");
    } else {
        append(msg, n, &len, "%s ", f->owner < m->njoints ? "joints" : "constraints");
        for (int w = 0; w < nown && named < MAX_NAMED; ++w)
            if (f->others[w] && w != f->owner)
                append(msg, n, &len, "%s%s", named++ ? ", " : "",
                       owner_label(m, w, 1, lab, sizeof lab));
        if (cnt > named) append(msg, n, &len, " (and %d more)", cnt - named);
        append(msg, n, &len,
               " and %s constrain the same motion: ", owner_label(m, f->owner, 1, lab, sizeof lab));
        append(msg, n, &len, "constraint %s of %s depend%s on the others", rows,
               owner_label(m, f->owner, 0, lab, sizeof lab), rows[3] == 's' ? "" : "s");
    }
    if (f->mrows == s->m)
        append(msg, n, &len, " (the constraint Jacobian has rank %d for %d rows)", f->rank,
               f->mrows);
    else
        append(msg, n, &len, " (the joints' rows of the constraint Jacobian have rank %d for %d)",
               f->rank, f->mrows);
}

/* Find the first dependent row, the dependent rows of its item and the items it depends on. */
static int find_redundancy(const ld_system *s, const ld_bt *o, const rank_ws *ws, finding *f) {
    int i0 = first_dependent(o, ws), local, row0;
    if (i0 < 0) return LD_ESINGULAR;
    f->owner = row_owner(s, i0, &local);
    f->nrows = owner_rows(s, f->owner, &row0);
    int end = row0 + (f->nrows < 12 ? f->nrows : 12), rk = i0; /* rank of rows 0 … i0 − 1 */
    for (int i = i0; i < end; ++i) {
        int r = prefix_rank(o, i + 1, ws->w, ws->jpvt, ws->tau), lr = 0;
        if (r < 0) return LD_ESINGULAR;
        (void)row_owner(s, i, &lr); /* the row among the owner's equations as written */
        if (lr >= 0 && lr < 12) f->dep[lr] = r == rk;
        rk = r;
    }
    double *x = ws->tau; /* the right-hand side and solution: kc entries (tau has more) */
    int rc = combination(o, i0, ws->w, x);
    double big = 0.0;
    for (int j = 0; !rc && j < i0; ++j) big = fmax(big, fabs(x[j]));
    for (int j = 0; !rc && j < i0; ++j)
        if (fabs(x[j]) > COEF_TOL * big) f->others[row_owner(s, j, &local)] = 1;
    if (rc) return rc;
    f->rank = prefix_rank(o, o->m, ws->w, ws->jpvt, ws->tau);
    f->mrows = o->m;
    return f->rank < 0 ? LD_ESINGULAR : LD_OK;
}

/* LD_OK (msg empty) when B has full row rank, LD_ESINGULAR with the report otherwise. */
static int check_rank(const ld_system *s, double t, const double *q, char *msg, size_t n) {
    ld_bt o = {0, 0, NULL, NULL};
    int rc = ld_bt_build(s, t, q, &o, msg, n);
    const ld_model *m = ld_rb(s)->m;
    size_t nw = (size_t)o.kc * (size_t)o.m, nt = (size_t)(o.m > o.kc ? o.m : o.kc) + 1;
    rank_ws ws = {NULL, NULL, NULL};
    finding f = {0};
    if (!rc) {
        ws.w = ld_xmalloc((nw > 0 ? nw : 1) * sizeof *ws.w, "the diagnosis");
        ws.tau = ld_xmalloc(nt * sizeof *ws.tau, "the diagnosis");
        ws.jpvt = ld_xmalloc(nt * sizeof *ws.jpvt, "the diagnosis");
        f.others = ld_xcalloc((size_t)(m->njoints + m->nrods + m->nbodies), sizeof *f.others,
                              "the diagnosis");
        if (!ws.w || !ws.tau || !ws.jpvt || !f.others) rc = LD_ENOMEM;
    }
    if (!rc) {
        ld_bt_normalize(&o);
        int r = prefix_rank(&o, o.m, ws.w, ws.jpvt, ws.tau);
        if (r < 0) rc = LD_ESINGULAR;
        if (r >= 0 && r < o.m && (rc = find_redundancy(s, &o, &ws, &f)) == LD_OK) {
            report(s, &f, msg, n);
            rc = LD_ESINGULAR;
        }
    }
    ld_bt_free(&o);
    free(ws.w);
    free(ws.tau);
    free(ws.jpvt);
    free(f.others);
    return rc;
}

/* ------------------------------------------------------------------ the mass scale */

/* LD_OK, or LD_ESINGULAR when the masses and principal moments of the bodies span more than
 * MASS_SPREAD (the report names the bodies at both ends). */
static int check_mass_scale(const ld_model *m, char *msg, size_t n) {
    int lo_b = -1, hi_b = -1, lo_k = 0, hi_k = 0;
    double lo = INFINITY, hi = 0.0;
    for (int b = 0; b < m->nbodies; ++b) {
        const ld_body *bd = &m->bodies[b];
        const double v[4] = {bd->mass, bd->inertia[0], bd->inertia[4], bd->inertia[8]};
        for (int k = 0; k < 4; ++k) {
            if (v[k] < lo) lo = v[k], lo_b = b, lo_k = k;
            if (v[k] > hi) hi = v[k], hi_b = b, hi_k = k;
        }
    }
    if (lo_b < 0 || hi <= MASS_SPREAD * lo) return LD_OK;
    static const char *const what[4] = {"mass", "moment J11", "moment J22", "moment J33"};
    const ld_body *bl = &m->bodies[lo_b], *bh = &m->bodies[hi_b];
    strf(msg, n,
         "the mass matrix is singular to working precision: the masses and moments of inertia "
         "span a factor %.3g, from %.6g (%s of body '%s', line %d) to %.6g (%s of body '%s', "
         "line %d); keep them within a factor 1e12 of each other",
         hi / lo, lo, what[lo_k], bl->name, bl->line, hi, what[hi_k], bh->name, bh->line);
    return LD_ESINGULAR;
}

/* ------------------------------------------------------------------ entry */

int ld_model_diagnose(const ld_system *s, double t, const double *q, char *msg, size_t n) {
    char scratch[8];
    if (!msg || n == 0) msg = scratch, n = sizeof scratch;
    msg[0] = '\0';
    if (!s || !s->user || !q || !ld_rb(s)->m) return LD_EINVAL;
    int rc = s->m > 0 ? check_rank(s, t, q, msg, n) : LD_OK;
    if (rc == LD_OK) rc = check_mass_scale(ld_rb(s)->m, msg, n);
    if (rc != LD_ESINGULAR && rc != LD_ENOTSUPPORTED) msg[0] = '\0';
    return rc;
}

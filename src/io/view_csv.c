/* The frames of a finished run read back from its CSV (view.h, ld_io_view_csv). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "liedyn/liedyn.h"
#include "view.h"
#include "../core/oom.h"

/* A column of the header: its name and place. */
typedef struct col {
    const char *name;
    int idx;
} col;

static int col_cmp(const void *a, const void *b) {
    const col *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* The first column called name in the sorted header h[n], or −1. */
static int col_find(const col *h, int n, const char *name) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(h[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && strcmp(h[lo].name, name) == 0 ? h[lo].idx : -1;
}

/* What the reader needs besides the caller's arguments. */
typedef struct reading {
    FILE *f;
    const char *csv;
    const ld_model *m;
    ld_io_csv_record r;
    int ncols, *pose, *series; /* pose: 7 per body; series: F->ns (−1: absent) */
    char *why;
    size_t cap;
} reading;

/* Map the header record (in R->r) to the model: t first, every body's x … qz. LD_OK or
 * LD_EINVAL / LD_ENOMEM with why. */
static int map_header(reading *R, int ns, char (*names)[VIEW_NAME_CAP]) {
    static const char *const pc[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    int n = R->r.n;
    if (strcmp(R->r.field[0], "t") != 0) {
        snprintf(R->why, R->cap,
                 "%s: the first column is not 't' (not a CSV of 'liedyn run --out')", R->csv);
        return LD_EINVAL;
    }
    col *h = ld_xmalloc((size_t)n * sizeof *h, "the CSV header's columns");
    if (!h) {
        ld_oom_last(R->why, R->cap);
        return LD_ENOMEM;
    }
    for (int i = 0; i < n; ++i) h[i] = (col){R->r.field[i], i};
    qsort(h, (size_t)n, sizeof *h, col_cmp);
    int rc = LD_OK;
    for (int b = 0; !rc && b < R->m->nbodies; ++b)
        for (int k = 0; !rc && k < 7; ++k) {
            char name[VIEW_NAME_CAP];
            snprintf(name, sizeof name, "%s.%s", R->m->bodies[b].name, pc[k]);
            if ((R->pose[7 * b + k] = col_find(h, n, name)) < 0) {
                snprintf(R->why, R->cap, "%s has no column '%s': is it a run of this model?",
                         R->csv, name);
                rc = LD_EINVAL;
            }
        }
    for (int s = 0; !rc && s < ns; ++s) R->series[s] = col_find(h, n, names[s]);
    free(h);
    R->ncols = n;
    return rc;
}

/* The next record into R->r: 1, 0 at the end, or LD_EINVAL with why. */
static int next(reading *R) {
    char why[160];
    int got = ld_io_csv_read(R->f, &R->r, why, sizeof why);
    if (got < 0) {
        snprintf(R->why, R->cap, "%s: %s", R->csv, why);
        return strncmp(why, "out of memory", 13) == 0 ? LD_ENOMEM : LD_EINVAL;
    }
    return got;
}

/* The first and last time of the data rows (for the spacing of the frames), then back to where
 * they start. LD_OK or an error with why. */
static int time_range(reading *R, double *t0, double *t1) {
    long start = ftell(R->f);
    long rows = 0;
    int got;
    while ((got = next(R)) == 1) {
        double t = strtod(R->r.field[0], NULL);
        if (rows++ == 0) *t0 = t;
        *t1 = t;
    }
    if (got < 0) return got;
    if (start < 0 || fseek(R->f, start, SEEK_SET) != 0) {
        snprintf(R->why, R->cap, "cannot reread %s (not a regular file?)", R->csv);
        return LD_EIO;
    }
    R->r.next_line = 2;
    if (rows == 0) {
        snprintf(R->why, R->cap, "%s has no data rows", R->csv);
        return LD_EINVAL;
    }
    if (!(*t1 > *t0)) *t1 = *t0 + 1.0;
    return LD_OK;
}

/* Field i of the record as a number into *v. 0, or LD_EINVAL with why. */
static int number(reading *R, int i, double *v) {
    const char *s = R->r.field[i];
    char *end;
    *v = strtod(s, &end);
    if (end != s && *end == '\0') return 0;
    snprintf(R->why, R->cap, "%s:%ld: field %d is not a number: '%.40s'", R->csv, R->r.line, i + 1,
             s);
    return LD_EINVAL;
}

/* One data row (in R->r) offered to F; tprev the time before. LD_OK or an error with why. */
static int offer_row(reading *R, view_frames *F, double *x, double *tprev) {
    int nb = R->m->nbodies;
    double *q = x + 3 * nb, *val = q + 4 * nb, t;
    if (R->r.n != R->ncols) {
        snprintf(R->why, R->cap, "%s:%ld: %d fields, the header has %d", R->csv, R->r.line, R->r.n,
                 R->ncols);
        return LD_EINVAL;
    }
    if (number(R, 0, &t) || !(t >= *tprev)) {
        snprintf(R->why, R->cap, "%s:%ld: bad or decreasing time '%.40s'", R->csv, R->r.line,
                 R->r.field[0]);
        return LD_EINVAL;
    }
    *tprev = t;
    for (int b = 0; b < nb; ++b)
        for (int k = 0; k < 7; ++k)
            if (number(R, R->pose[7 * b + k], k < 3 ? &x[3 * b + k] : &q[4 * b + k - 3]))
                return LD_EINVAL;
    for (int s = 0; s < F->ns; ++s)
        if (R->series[s] < 0)
            val[s] = (double)NAN;
        else if (number(R, R->series[s], &val[s]))
            return LD_EINVAL;
    if (ld_io_frames_offer(F, t, x, q, val) == 0) return LD_OK;
    ld_oom_last(R->why, R->cap);
    return LD_ENOMEM;
}

/* The data rows into F. */
static int read_rows(reading *R, view_frames *F) {
    int nb = R->m->nbodies;
    double *x =
               ld_xmalloc((7 * (size_t)nb + (size_t)F->ns + 1) * sizeof *x, "the CSV row's values"),
           tprev = -INFINITY;
    if (!x) {
        ld_oom_last(R->why, R->cap);
        return LD_ENOMEM;
    }
    int rc = LD_OK, got;
    while (!rc && (got = next(R)) != 0) rc = got < 0 ? got : offer_row(R, F, x, &tprev);
    free(x);
    return rc;
}

int ld_io_view_csv(FILE *f, const char *csv, const ld_model *m, long max, view_frames *F,
                   double *t0, double *t1, char *why, size_t cap) {
    char names[VIEW_SERIES_MAX][VIEW_NAME_CAP];
    int ns = ld_io_frames_series_names(m, names);
    reading R = {f,
                 csv,
                 m,
                 {0},
                 0,
                 ld_xcalloc(7 * (size_t)m->nbodies + 1, sizeof(int), "the CSV columns' map"),
                 ld_xcalloc((size_t)ns + 1, sizeof(int), "the CSV columns' map"),
                 why,
                 cap};
    memset(F, 0, sizeof *F);
    *t0 = 0.0;
    *t1 = 1.0;
    int rc = !R.pose || !R.series ? LD_ENOMEM : LD_OK, got = 0;
    if (rc) ld_oom_last(why, cap);
    if (!rc && (got = next(&R)) <= 0) {
        rc = got < 0 ? got : LD_EINVAL;
        if (!got) snprintf(why, cap, "%s is empty", csv);
    }
    if (!rc) rc = map_header(&R, ns, names);
    if (!rc) rc = time_range(&R, t0, t1);
    if (!rc && ld_io_frames_init(F, m, *t0, *t1, max, ns, names) != 0) {
        rc = LD_ENOMEM;
        ld_oom_last(why, cap);
    }
    if (!rc) rc = read_rows(&R, F);
    if (!rc && ld_io_frames_finish(F) != 0) {
        rc = LD_ENOMEM;
        ld_oom_last(why, cap);
    }
    ld_io_csv_record_free(&R.r);
    free(R.pose);
    free(R.series);
    if (rc) ld_io_frames_free(F);
    return rc;
}

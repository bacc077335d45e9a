/*
 * liedyn view — the HTML viewer file of a finished run: the model and the CSV that
 * `liedyn run --out` wrote, read back into frames (the same as `run --html` records).
 * Reference: docs/viewer.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "sim.h"
#include "view.h"

static void view_usage(FILE *f) {
    fprintf(f, "usage: liedyn view MODEL --csv RUN.csv --html FILE.html [--frames N]\n"
               "  MODEL               the model of the run (a YAML file or a shipped model)\n"
               "  --csv RUN.csv       the CSV that 'liedyn run MODEL --out RUN.csv' wrote\n"
               "  --html FILE.html    the self-contained HTML file to write (docs/viewer.md)\n"
               "  --frames N          at most N output times, evenly spaced (and the last;\n"
               "                      default 1000)\n"
               "  --quiet             no line on what was written\n"
               "exit status: 0 ok, 2 bad usage or input, 4 the HTML file could not be written\n");
}

/* The CSV's columns: the index of each wanted name, -1 if absent. */
typedef struct columns {
    int t, *pose, *series; /* pose: 7 per body; series: ns */
    int ncols;
} columns;

/* Split line at commas in place; up to cap fields. Returns the count. */
static int split(char *line, char **field, int cap) {
    if (cap < 1) return 0;
    int n = 0;
    char *p = line;
    while (n < cap) {
        field[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    char *last = n > 0 ? field[n - 1] : line;
    size_t len = strlen(last);
    while (len && (last[len - 1] == '\n' || last[len - 1] == '\r')) last[--len] = '\0';
    return n;
}

static int find(char **field, int n, const char *name) {
    for (int i = 0; i < n; ++i)
        if (strcmp(field[i], name) == 0) return i;
    return -1;
}

/* Map the header to the model: every body's x … qz must be there. 0 or 2. */
static int map_header(const char *csv, char **field, int n, const ld_model *m, const view_frames *F,
                      columns *c) {
    static const char *const pc[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    c->t = find(field, n, "t");
    if (c->t != 0)
        return cli_error("view: %s: the first column is not 't' (not a CSV of 'liedyn run --out')",
                         csv);
    for (int b = 0; b < m->nbodies; ++b)
        for (int k = 0; k < 7; ++k) {
            char name[VIEW_NAME_CAP];
            snprintf(name, sizeof name, "%s.%s", m->bodies[b].name, pc[k]);
            if ((c->pose[7 * b + k] = find(field, n, name)) < 0)
                return cli_error("view: %s has no column '%s': is it a run of this model?", csv,
                                 name);
        }
    for (int s = 0; s < F->ns; ++s) c->series[s] = find(field, n, F->sname[s]);
    c->ncols = n;
    return 0;
}

/* Read the rows of f into F. 0 or 2. */
static int read_rows(const char *csv, FILE *f, const ld_model *m, view_frames *F, columns *c,
                     char **field, char *line, size_t cap) {
    int nb = m->nbodies;
    double *x = malloc((7 * (size_t)nb + (size_t)F->ns + 1) * sizeof *x);
    if (!x) return cli_error("view: out of memory");
    double *q = x + 3 * nb, *val = q + 4 * nb;
    long row = 1;
    int rc = 0;
    double tprev = -INFINITY;
    while (!rc && fgets(line, (int)cap, f)) {
        ++row;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = cli_error("view: %s:%ld: line too long", csv, row);
            break;
        }
        int n = split(line, field, c->ncols + 1);
        if (n != c->ncols) {
            rc = cli_error("view: %s:%ld: %d fields, the header has %d", csv, row, n, c->ncols);
            break;
        }
        char *end;
        double t = strtod(field[0], &end);
        if (end == field[0] || !(t >= tprev)) {
            rc = cli_error("view: %s:%ld: bad or decreasing time '%s'", csv, row, field[0]);
            break;
        }
        tprev = t;
        for (int b = 0; b < nb; ++b)
            for (int k = 0; k < 7; ++k) {
                double v = strtod(field[c->pose[7 * b + k]], NULL);
                if (k < 3)
                    x[3 * b + k] = v;
                else
                    q[4 * b + k - 3] = v;
            }
        for (int s = 0; s < F->ns; ++s)
            val[s] = c->series[s] >= 0 ? strtod(field[c->series[s]], NULL) : (double)NAN;
        if (ld_io_frames_offer(F, t, x, q, val) != 0) rc = cli_error("view: out of memory");
    }
    if (!rc && ferror(f)) rc = cli_error("view: reading %s failed: %s", csv, strerror(errno));
    if (!rc && row < 2) rc = cli_error("view: %s has no data rows", csv);
    free(x);
    return rc;
}

/* The first and last time of the CSV (for the spacing of the frames). 0 or 2. */
static int time_range(const char *csv, FILE *f, char *line, size_t cap, double *t0, double *t1) {
    long start = ftell(f);
    int rows = 0;
    while (fgets(line, (int)cap, f)) {
        double t = strtod(line, NULL);
        if (rows++ == 0) *t0 = t;
        *t1 = t;
    }
    if (fseek(f, start, SEEK_SET) != 0) return cli_error("view: cannot reread %s", csv);
    if (rows == 0) return cli_error("view: %s has no data rows", csv);
    if (!(*t1 > *t0)) *t1 = *t0 + 1.0;
    return 0;
}

/* Frames of the CSV for model m, then the HTML file. */
static int view_file(const run_args *a, const char *csv, const char *html, long nframes,
                     const ld_model *m, const char *title) {
    FILE *f = fopen(csv, "r");
    if (!f) return cli_error("view: cannot read '%s': %s", csv, strerror(errno));
    /* a field per column (ld_out_columns): 13 per body, 6 reactions and up to 6 coordinates
     * and rates per joint, a few more */
    size_t cap = 64 + 520 * ((size_t)m->nbodies * 13 + 64 + 12 * (size_t)m->njoints);
    int nfield = 13 * m->nbodies + 16 + 12 * m->njoints + 8;
    char *line = malloc(cap);
    char **field = malloc(((size_t)nfield + 1) * sizeof *field);
    static char names[VIEW_SERIES_MAX][VIEW_NAME_CAP];
    int ns = ld_io_frames_series_names(m, names);
    columns c = {0, calloc(7 * (size_t)m->nbodies + 1, sizeof(int)),
                 calloc((size_t)ns + 1, sizeof(int)), 0};
    view_frames F;
    memset(&F, 0, sizeof F);
    int rc = !line || !field || !c.pose || !c.series ? cli_error("view: out of memory") : 0;
    double t0 = 0.0, t1 = 1.0;
    if (!rc && !fgets(line, (int)cap, f)) rc = cli_error("view: %s is empty", csv);
    if (!rc) rc = time_range(csv, f, line + strlen(line) + 1, cap - strlen(line) - 1, &t0, &t1);
    if (!rc && ld_io_frames_init(&F, m, t0, t1, nframes, ns, names) != 0)
        rc = cli_error("view: out of memory");
    if (!rc) rc = map_header(csv, field, split(line, field, nfield), m, &F, &c);
    if (!rc) rc = read_rows(csv, f, m, &F, &c, field, line, cap);
    if (!rc && ld_io_frames_finish(&F) != 0) rc = cli_error("view: out of memory");
    char why[PATH_CAP + 256];
    if (!rc && ld_io_html_write(html, m, title, &F, why, sizeof why) != 0) {
        cli_error("view: %s", why);
        rc = 4;
    }
    if (!rc && !a->quiet)
        printf("%s: %ld frames, t = %.6g .. %.6g -> %s\n", title, F.n, t0, t1, html);
    fclose(f);
    ld_io_frames_free(&F);
    free(c.pose);
    free(c.series);
    free(field);
    free(line);
    return rc;
}

int cli_view(int argc, char **argv) {
    run_args a;
    memset(&a, 0, sizeof a);
    a.cmd = "view";
    a.integ = a.form = a.la = -1;
    a.dt = a.t_end = a.atol = a.rtol = a.fac = a.facmin = a.facmax = NAN;
    a.checkpoint_every = a.out_dt = a.newton_atol = a.newton_rtol = NAN;
    a.error_atol = a.error_rtol = NAN;
    const char *csv = NULL;
    for (int i = 0; i < argc; ++i) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            view_usage(stdout);
            return 0;
        }
        int takes = !strcmp(o, "--csv") || !strcmp(o, "--html") || !strcmp(o, "--frames");
        if (takes && i + 1 >= argc) return cli_error("view: %s needs a value", o);
        if (!strcmp(o, "--csv")) {
            csv = argv[++i];
        } else if (!strcmp(o, "--html")) {
            a.html = argv[++i];
        } else if (!strcmp(o, "--frames")) {
            char *end;
            a.frames = strtol(argv[++i], &end, 10);
            if (*end || a.frames < 2 || a.frames > VIEW_FRAMES_MAX)
                return cli_error("view: --frames must be from 2 to %d, got '%s'", VIEW_FRAMES_MAX,
                                 argv[i]);
        } else if (!strcmp(o, "--quiet")) {
            a.quiet = 1;
        } else if (o[0] == '-' && o[1]) {
            return cli_error("view: unknown option '%s' (try 'liedyn view --help')", o);
        } else if (a.model) {
            return cli_error("view: unexpected argument '%s' (one MODEL only)", o);
        } else {
            a.model = o;
        }
    }
    if (!a.model) return cli_error("view: no MODEL given (try 'liedyn view --help')");
    if (!csv) return cli_error("view: --csv RUN.csv is required");
    if (!a.html) return cli_error("view: --html FILE.html is required");
    char why[512];
    if (!ld_out_html_available(why, sizeof why))
        return cli_error("view: the HTML viewer is not available: %s", why);
    char path[PATH_CAP], base[LD_NAME_MAX];
    ld_model m;
    int method;
    if (load_model(&a, path, sizeof path, &m, &method)) return 2;
    model_base(&m, path, base, sizeof base);
    int rc = view_file(&a, csv, a.html, a.frames > 0 ? a.frames : VIEW_FRAMES_DEFAULT, &m, base);
    ld_model_free(&m);
    return rc;
}

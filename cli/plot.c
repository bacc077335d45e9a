/*
 * liedyn run --plot: a PNG of chosen quantities against time, drawn by gnuplot from the run's
 * CSV of every column. One panel per name of --plot-what (or of the model's output.plot, or,
 * by default, the position of the body that moves most and the energy); every panel gets an
 * explicit range, so constant or vanishing data draws a flat line instead of an empty panel.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "columns.h"
#include "plot.h"
#include "../src/core/oom.h"

#define MAX_PANELS 8
#define MAX_LINES  16

typedef struct panel {
    char name[256];
    int col[MAX_LINES], ncol;
    double lo, hi;
} panel;

/* s as a gnuplot single-quoted string (quotes doubled). */
static void gp_quoted(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; ++s) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* Per column the smallest and largest finite value of the CSV's data rows (NaN when none), and
 * the first and last t. 0 or 2 (message printed). */
static int csv_ranges(const char *csv, int ncols, double *lo, double *hi, double *t0, double *t1) {
    FILE *f = fopen(csv, "rb");
    if (!f) return cli_error("run: cannot read '%s' for the plot: %s", csv, strerror(errno));
    for (int i = 0; i < ncols; ++i) lo[i] = hi[i] = NAN;
    ld_io_csv_record r = {0};
    char why[160];
    long row = 0;
    *t0 = *t1 = NAN;
    while (ld_io_csv_read(f, &r, why, sizeof why) > 0) {
        if (row++ == 0) continue; /* the header */
        for (int i = 0; i < ncols && i < r.n; ++i) {
            char *end;
            double x = strtod(r.field[i], &end);
            if (end != r.field[i] && isfinite(x)) {
                lo[i] = isnan(lo[i]) ? x : fmin(lo[i], x);
                hi[i] = isnan(hi[i]) ? x : fmax(hi[i], x);
            }
            if (i == 0) {
                if (isnan(*t0)) *t0 = x;
                *t1 = x;
            }
        }
    }
    ld_io_csv_record_free(&r);
    fclose(f);
    return 0;
}

/* The body whose centre of mass moves most (its largest coordinate range), else the one whose
 * angular velocity changes most; its group name ("top.pos" or "top.omega") into out. */
static void auto_body(const plot_input *in, const double *lo, const double *hi, char *out,
                      size_t cap) {
    int best = 0, bestw = 0;
    double rx = -1.0, rw = -1.0;
    for (int b = 0; b < in->m->nbodies; ++b) {
        int c = 1 + 13 * b;
        for (int j = 0; j < 3; ++j) {
            double r = hi[c + j] - lo[c + j], w = hi[c + 7 + j] - lo[c + 7 + j];
            if (r > rx) rx = r, best = b;
            if (w > rw) rw = w, bestw = b;
        }
    }
    if (rx > 1e-9 || !(rw > 0.0))
        snprintf(out, cap, "%s.pos", in->m->bodies[best].name);
    else
        snprintf(out, cap, "%s.omega", in->m->bodies[bestw].name);
}

/* The panels of the comma-separated list. 0 or 2 (message printed). */
static int make_panels(const plot_input *in, const char *list, panel *p, int *np) {
    const char *src = in->what && in->what[0] ? "--plot-what" : "the model's output.plot";
    *np = 0;
    const char *s = list;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (*np == MAX_PANELS) return cli_error("run: %s: at most %d panels", src, MAX_PANELS);
        panel *P = &p[*np];
        if (len == 0 || len >= sizeof P->name)
            return cli_error("run: %s: empty or overlong name in '%s'", src, list);
        memcpy(P->name, s, len);
        P->name[len] = '\0';
        P->ncol = ld_io_cols_expand(in->names, in->ncols, P->name, P->col, MAX_LINES);
        if (P->ncol < 0) return cli_error("run: %s: '%s' has too many columns", src, P->name);
        if (P->ncol == 0) {
            char why[512];
            int tmp[1];
            (void)ld_io_cols_select(in->names, in->ncols, P->name, tmp, 1, why, sizeof why);
            return cli_error("run: %s: %s", src, why);
        }
        ++*np;
        s += len;
        if (*s == ',') ++s;
    }
    return 0;
}

/* The y range of panel P from the columns' ranges; constant data gets a band around it. 0, or
 * 2 when the panel has no finite value. */
static int panel_range(panel *P, const double *lo, const double *hi) {
    double a = NAN, b = NAN;
    for (int i = 0; i < P->ncol; ++i) {
        int c = P->col[i];
        if (isnan(lo[c])) continue;
        a = isnan(a) ? lo[c] : fmin(a, lo[c]);
        b = isnan(b) ? hi[c] : fmax(b, hi[c]);
    }
    if (isnan(a)) return cli_error("run: --plot: '%s' has no finite value to plot", P->name);
    double scale = fmax(fabs(a), fabs(b)), span = b - a;
    if (span > 1e-9 * scale && span > 1e-200) {
        P->lo = a - 0.05 * span;
        P->hi = b + 0.05 * span;
    } else { /* constant (to round-off): a band of ±5 % around it, ±1 around ~0 */
        double c = 0.5 * (a + b), d = fabs(c) > 1e-200 ? 0.05 * fabs(c) : 1.0;
        P->lo = c - d;
        P->hi = c + d;
    }
    return 0;
}

/* The gnuplot script of the panels. */
static void write_script(FILE *gp, const plot_input *in, const panel *p, int np, double t0,
                         double t1) {
    fputs("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo size 1000,",
          gp);
    fprintf(gp, "%d noenhanced\n} else {\n  set terminal png size 1000,%d noenhanced\n}\n",
            180 + 220 * np, 180 + 220 * np);
    fputs("set output ", gp);
    gp_quoted(gp, in->png);
    fputs("\nset datafile separator ','\nset grid\nset key outside right top\n"
          "set lmargin 12\nset rmargin 26\n",
          gp);
    if (!(t1 > t0)) t1 = (isfinite(t0) ? t0 : 0.0) + 1.0;
    if (!isfinite(t0)) t0 = t1 - 1.0;
    fprintf(gp, "set xrange [%.17g:%.17g]\nset multiplot layout %d,1 title ", t0, t1, np);
    gp_quoted(gp, in->title);
    fputc('\n', gp);
    for (int k = 0; k < np; ++k) {
        fputs(k == np - 1 ? "set xlabel 't [s]'\n" : "unset xlabel\n", gp);
        fputs("set ylabel ", gp);
        gp_quoted(gp, p[k].name);
        fprintf(gp, "\nset yrange [%.17g:%.17g]\nplot ", p[k].lo, p[k].hi);
        for (int i = 0; i < p[k].ncol; ++i) {
            if (i) fputs(", ", gp);
            gp_quoted(gp, in->csv);
            fprintf(gp, " using 1:%d with lines lw 1.5 title ", p[k].col[i] + 1);
            gp_quoted(gp, in->names[p[k].col[i]]);
        }
        fputc('\n', gp);
    }
    fputs("unset multiplot\n", gp);
}

/* Run gnuplot on the script of the panels, its messages into a temporary file shown only when
 * it fails. 0 or 2. */
static int run_gnuplot(const plot_input *in, const panel *p, int np, double t0, double t1) {
    char errf[] = "/tmp/liedyn-gnuplot-XXXXXX", cmd[64];
    int fd = mkstemp(errf);
    if (fd < 0) return cli_error("run: cannot create a temporary file: %s", strerror(errno));
    close(fd);
    snprintf(cmd, sizeof cmd, "gnuplot 2>%s", errf);
    FILE *gp = popen(cmd, "w");
    if (!gp) {
        unlink(errf);
        return cli_error("run: cannot start gnuplot: %s", strerror(errno));
    }
    write_script(gp, in, p, np, t0, t1);
    int st = pclose(gp), rc = 0;
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char msg[512] = "";
        FILE *e = fopen(errf, "r");
        if (e) {
            size_t n = fread(msg, 1, sizeof msg - 1, e);
            msg[n] = '\0';
            fclose(e);
            msg[strcspn(msg, "\n")] = '\0';
        }
        rc = cli_error("run: gnuplot could not write '%s': %s", in->png,
                       msg[0] ? msg : "no message");
    }
    unlink(errf);
    return rc;
}

int plot_check(const plot_input *in) {
    const char *what = in->what && in->what[0] ? in->what : in->m->output.plot;
    panel p[MAX_PANELS];
    int np = 0;
    return what[0] ? make_panels(in, what, p, &np) : 0;
}

int plot_run(const plot_input *in) {
    int n = in->ncols;
    double *lo = ld_xmalloc(2 * (size_t)n * sizeof(double), "the plot's range"), t0 = NAN, t1 = NAN;
    if (!lo) return cli_error("run: the plot: %s", ld_oom_last_str());
    double *hi = lo + n;
    int rc = csv_ranges(in->csv, n, lo, hi, &t0, &t1);
    char autos[2 * LD_NAME_MAX + 32];
    const char *what = in->what && in->what[0] ? in->what : in->m->output.plot;
    if (!rc && !what[0]) { /* the default: what moves, and the energy where there is one */
        auto_body(in, lo, hi, autos, sizeof autos - 8);
        if (!isnan(lo[1 + 13 * in->m->nbodies])) strcat(autos, ",energy");
        what = autos;
    }
    panel p[MAX_PANELS];
    int np = 0;
    if (!rc) rc = make_panels(in, what, p, &np);
    for (int k = 0; !rc && k < np; ++k) rc = panel_range(&p[k], lo, hi);
    if (!rc) rc = run_gnuplot(in, p, np, t0, t1);
    free(lo);
    return rc;
}

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
               "  --quiet             print only errors and warnings (on stderr): no line on\n"
               "                      what was written\n"
               "exit status: 0 ok, 2 bad usage or input, 4 the HTML file could not be written\n");
}

/* Frames of the CSV for model m, then the HTML file. */
static int view_file(const run_args *a, const char *csv, const char *html, long nframes,
                     const ld_model *m, const char *title) {
    FILE *f = fopen(csv, "rb");
    if (!f) return cli_error("view: cannot read '%s': %s", csv, strerror(errno));
    view_frames F;
    double t0, t1;
    char why[PATH_CAP + 256];
    int rc = ld_io_view_csv(f, csv, m, nframes, &F, &t0, &t1, why, sizeof why);
    fclose(f);
    if (rc) return cli_error("view: %s", why);
    if (!rc && ld_io_html_write(html, m, title, &F, why, sizeof why) != 0) {
        cli_error("view: %s", why);
        rc = 4;
    }
    if (!rc && !a->quiet)
        printf("%s: %ld frames, t = %.6g .. %.6g -> %s\n", title, F.n, t0, t1, html);
    ld_io_frames_free(&F);
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

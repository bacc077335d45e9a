/*
 * liedyn sweep FILE --out TABLE.csv — an ensemble of runs from a sweep file, one table row per
 * case; liedyn workprec MODEL — a work–precision study (CPU time against error) run as a
 * sweep. Reference: docs/sweep.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "sim.h"
#include "sweep.h"

static void sweep_usage(FILE *f) {
    fprintf(f,
            "usage: liedyn sweep FILE --out TABLE.csv [options]\n"
            "  FILE                a sweep file (YAML, docs/sweep.md): model, the parameters to\n"
            "                      vary by dotted path (vary: a grid, cases: a list, random:\n"
            "                      samples from distributions with a seed), what to record\n"
            "  --out TABLE.csv     the table, one row per case (resumed when it exists)\n"
            "  --jobs N, -j N      local worker processes (default: the number of cores; 1: run\n"
            "                      in this process); under mpirun rank 0 hands out the cases to\n"
            "                      the other ranks\n"
            "  --case-dir DIR      each case's time series as DIR/case-NNNNN.csv\n"
            "  --fresh             replace an existing table instead of resuming it\n"
            "  --list              print the cases' values and exit\n"
            "  --quiet             print only errors and warnings (on stderr): no summary\n"
            "                      line; the exit status says how the sweep ended\n"
            "  --stats             print the wall time and this process's CPU time (the master's\n"
            "                      when workers or ranks run the cases) on stderr\n");
}

/* A positive integer option value. 0 or 2. */
static int count_arg(const char *cmd, const char *opt, const char *s, int *n) {
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < 1 || x > 4096)
        return cli_error("%s: %s needs a positive integer, got '%s'", cmd, opt, s);
    *n = (int)x;
    return 0;
}

static int mkdir_p(const char *dir) {
    char buf[PATH_CAP];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1;; ++p) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = c;
            if (!c) break;
        }
    }
    return 0;
}

static void print_cases(const sweep *sw) {
    printf("case");
    for (int k = 0; k < sw->nparams; ++k) printf("\t%s", sw->params[k].path);
    printf("\n");
    char val[4096];
    for (long i = 0; i < sw->ncases; ++i) {
        printf("%ld", i);
        for (int k = 0; k < sw->nparams; ++k) {
            sweep_case_value(sw, i, k, val, sizeof val);
            printf("\t%s", val[0] ? val : "-");
        }
        printf("\n");
    }
}

/* Run a loaded sweep with x; prints the summary on rank 0. The exit code. */
static int run_sweep(sweep *sw, sw_exec *x, int rank, const char *case_dir) {
    if (case_dir && rank == 0 && mkdir_p(case_dir) != 0)
        return cli_error("sweep: cannot create directory '%s': %s", case_dir, strerror(errno));
    sw->case_dir = case_dir;
    int rc = sweep_exec(sw, x);
    if (rank == 0 && !x->quiet && (rc == 0 || rc > 128))
        printf("%s: %ld cases (%ld run, %ld taken from the table), %ld not ok; table %s%s\n",
               sw->base, sw->ncases, x->ran, x->resumed, x->failed, x->out,
               rc ? " (incomplete: run the same command again to resume)" : "");
    if (rank == 0 && rc > 128)
        cli_error("sweep stopped by signal %d after %ld of %ld cases", rc - 128,
                  x->ran + x->resumed, sw->ncases);
    return rc;
}

int cli_sweep(int argc, char **argv) {
    const char *file = NULL, *case_dir = NULL;
    sw_exec x;
    memset(&x, 0, sizeof x);
    int list = 0, stats = 0;
    for (int i = 0; i < argc; ++i) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            sweep_usage(stdout);
            return 0;
        }
        int takes = !strcmp(o, "--out") || !strcmp(o, "--jobs") || !strcmp(o, "-j") ||
                    !strcmp(o, "--case-dir");
        if (takes && i + 1 >= argc) return cli_error("sweep: %s needs a value", o);
        if (!strcmp(o, "--out"))
            x.out = argv[++i];
        else if (!strcmp(o, "--jobs") || !strcmp(o, "-j")) {
            if (count_arg("sweep", o, argv[++i], &x.jobs)) return 2;
        } else if (!strcmp(o, "--case-dir"))
            case_dir = argv[++i];
        else if (!strcmp(o, "--fresh"))
            x.fresh = 1;
        else if (!strcmp(o, "--quiet"))
            x.quiet = 1;
        else if (!strcmp(o, "--list"))
            list = 1;
        else if (!strcmp(o, "--stats"))
            stats = 1;
        else if (o[0] == '-')
            return cli_error("sweep: unknown option '%s' (try 'liedyn sweep --help')", o);
        else if (file)
            return cli_error("sweep: unexpected argument '%s' (one FILE only)", o);
        else
            file = o;
    }
    if (!file) return cli_error("sweep: no sweep FILE given (try 'liedyn sweep --help')");
    if (!x.out && !list) return cli_error("sweep: --out TABLE.csv is required");
    int rank = 0, size = 1;
    if (sweep_mpi_init(&argc, &argv, &rank, &size) < 0) return 2;
    char quiet_buf[1024];
    if (rank > 0) cli_error_capture(quiet_buf, sizeof quiet_buf); /* rank 0 speaks */
    sweep sw;
    int rc = sweep_load(&sw, file, NULL);
    if (rank > 0) cli_error_capture(NULL, 0);
    if (rc) {
        sweep_mpi_finalize();
        return 2;
    }
    if (list) {
        if (rank == 0) print_cases(&sw);
    } else {
        double w0 = wall_seconds(), c0 = cpu_seconds();
        rc = run_sweep(&sw, &x, rank, case_dir);
        if (stats && rank == 0)
            fprintf(stderr, "sweep stats: cases_run=%ld wall_s=%.6f master_cpu_s=%.6f ranks=%d\n",
                    x.ran, wall_seconds() - w0, cpu_seconds() - c0, size);
    }
    sweep_free(&sw);
    sweep_mpi_finalize();
    return rc;
}

/* ------------------------------------------------------------------ liedyn workprec */

static void workprec_usage(FILE *f) {
    fprintf(f, "usage: liedyn workprec MODEL --integrators A,B,... --out TABLE.csv [options]\n"
               "  CPU time against error of integrators on a model, run as a sweep (one case per\n"
               "  integrator and tolerance or step size; the error at the end against one\n"
               "  reference run)\n"
               "  --integrators LIST  integrators (liedyn run --help lists them)\n"
               "  --tolerances LIST   error tolerances of the methods with an error estimate (run\n"
               "                      with step-size control; default 1e-3,1e-4,1e-5,1e-6)\n"
               "  --dt-list LIST      step sizes of the others (default the model's dt times 1,\n"
               "                      1/2, 1/4, 1/8)\n"
               "  --t-end T           end time (default the model's)\n"
               "  --ref-integrator M  the reference run's integrator (default the model's)\n"
               "  --ref-dt H          its step size (default the model's dt / 64)\n"
               "  --out TABLE.csv     the table (resumed when it exists; --fresh replaces it)\n"
               "  --plot FILE.png     CPU time against error, log-log (needs gnuplot)\n"
               "  --jobs N, -j N      worker processes (default: the number of cores)\n"
               "  --fresh             replace an existing table instead of resuming it\n"
               "  --quiet             print only errors and warnings (on stderr): no table of\n"
               "                      results; the exit status says how the runs ended\n");
}

/* Split "a,b,c" into at most max items of at most 63 characters. The count, or -1. */
static int split_list(const char *s, char items[][64], int max) {
    int n = 0;
    while (*s) {
        size_t k = strcspn(s, ",");
        if (k == 0 || k >= 64 || n == max) return -1;
        memcpy(items[n], s, k);
        items[n++][k] = '\0';
        s += k;
        if (*s == ',') ++s;
    }
    return n;
}

static int number_list(const char *opt, const char *s, char items[][64], int max) {
    int n = split_list(s, items, max);
    if (n < 1) return cli_error("workprec: %s needs a comma-separated list, got '%s'", opt, s);
    for (int i = 0; i < n; ++i) {
        char *end;
        double v = strtod(items[i], &end);
        if (end == items[i] || *end || !(v > 0.0) || !isfinite(v))
            return cli_error("workprec: %s: '%s' is not a positive number", opt, items[i]);
    }
    return 0;
}

static void gp_str(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; ++s) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* The plot: per integrator its (error, cpu) points. 0 or 2. */
static int workprec_plot(const sw_table *t, const char *png, const char *title, char integ[][64],
                         int ni) {
    int ci = sweep_table_col(t, "integrator.name"), ce = sweep_table_col(t, "rot_error"),
        cp = sweep_table_col(t, "pos_error"), cc = sweep_table_col(t, "cpu_s"),
        cs = sweep_table_col(t, "status");
    char dat[PATH_CAP + 16];
    snprintf(dat, sizeof dat, "%s.dat", png);
    FILE *d = fopen(dat, "w");
    if (!d) return cli_error("workprec: cannot write '%s': %s", dat, strerror(errno));
    int nblocks = 0;
    for (int k = 0; k < ni; ++k) {
        int any = 0;
        for (long r = 0; r < t->nrows; ++r) {
            char **f = t->cells[r];
            if (strcmp(f[ci], integ[k]) || strcmp(f[cs], "ok")) continue;
            double e = strtod(f[ce], NULL);
            if (!(e > 0.0)) e = strtod(f[cp], NULL);
            double c = strtod(f[cc], NULL);
            if (!(e > 0.0) || !(c > 0.0)) continue;
            fprintf(d, "%.6g %.6g\n", e, c);
            any = 1;
        }
        if (any) {
            fprintf(d, "\n\n");
            ++nblocks;
        }
    }
    fclose(d);
    if (nblocks == 0) {
        unlink(dat);
        return cli_error("workprec: no case succeeded with a positive error: nothing to plot");
    }
    FILE *gp = popen("gnuplot", "w");
    if (!gp) {
        unlink(dat);
        return cli_error("workprec: cannot start gnuplot: %s", strerror(errno));
    }
    fputs("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo size 900,640 noenhanced\n"
          "} else {\n"
          "  set terminal png size 900,640 noenhanced\n"
          "}\nset output ",
          gp);
    gp_str(gp, png);
    fputs("\nset logscale xy\nset format x '%.0e'\nset format y '%g'\nset grid\n"
          "set xlabel 'error at the end (rotation, rad)'\nset ylabel 'CPU time [s]'\n"
          "set key outside right\nset title ",
          gp);
    gp_str(gp, title);
    fputs("\nplot ", gp);
    int b = 0;
    for (int k = 0; k < ni; ++k) {
        int any = 0;
        for (long r = 0; r < t->nrows; ++r)
            if (!strcmp(t->cells[r][ci], integ[k]) && !strcmp(t->cells[r][cs], "ok")) any = 1;
        if (!any) continue;
        if (b) fputs(", ", gp);
        gp_str(gp, dat);
        fprintf(gp, " index %d using 1:2 with linespoints pt 7 title ", b++);
        gp_str(gp, integ[k]);
    }
    fputs("\n", gp);
    int st = pclose(gp);
    unlink(dat);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return cli_error("workprec: gnuplot could not write '%s'", png);
    return 0;
}

/* printf unless quiet. */
__attribute__((format(printf, 2, 3))) static void say(int quiet, const char *fmt, ...) {
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

int cli_workprec(int argc, char **argv) {
    int quiet = 0;
    const char *model = NULL, *integrators = NULL, *tols = "1e-3,1e-4,1e-5,1e-6", *dts = NULL,
               *t_end = NULL, *ref_integ = NULL, *ref_dt = NULL, *plot = NULL;
    sw_exec x;
    memset(&x, 0, sizeof x);
    for (int i = 0; i < argc; ++i) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            workprec_usage(stdout);
            return 0;
        }
        if (o[0] != '-') {
            if (model) return cli_error("workprec: unexpected argument '%s' (one MODEL only)", o);
            model = o;
            continue;
        }
        if (!strcmp(o, "--fresh")) {
            x.fresh = 1;
            continue;
        }
        if (!strcmp(o, "--quiet")) {
            quiet = 1;
            continue;
        }
        static const char *const opts[] = {
            "--integrators", "--tolerances", "--dt-list", "--t-end", "--ref-integrator",
            "--ref-dt",      "--out",        "--plot",    "--jobs",  "-j"};
        int k = -1;
        for (int j = 0; j < 10; ++j)
            if (!strcmp(o, opts[j])) k = j;
        if (k < 0)
            return cli_error("workprec: unknown option '%s' (try 'liedyn workprec --help')", o);
        if (i + 1 >= argc) return cli_error("workprec: %s needs a value", o);
        const char *v = argv[++i];
        const char **dst[] = {&integrators, &tols,   &dts,   &t_end,
                              &ref_integ,   &ref_dt, &x.out, &plot};
        if (k >= 8) {
            if (count_arg("workprec", o, v, &x.jobs)) return 2;
        } else {
            *dst[k] = v;
        }
    }
    if (!model) return cli_error("workprec: no MODEL given (try 'liedyn workprec --help')");
    if (!integrators) return cli_error("workprec: --integrators A,B,... is required");
    if (!x.out) return cli_error("workprec: --out TABLE.csv is required");
    char integ[16][64], tol[32][64], dtl[32][64];
    int ni = split_list(integrators, integ, 16);
    if (ni < 1) return cli_error("workprec: --integrators needs a comma-separated list");
    for (int i = 0; i < ni; ++i)
        if (ld_integ_method_find(integ[i]) < 0)
            return cli_error("workprec: unknown integrator '%s' (liedyn run --help)", integ[i]);
    if (ref_integ && ld_integ_method_find(ref_integ) < 0)
        return cli_error("workprec: unknown integrator '%s' (liedyn run --help)", ref_integ);
    int nt = 0, nd = 0;
    if ((nt = number_list("--tolerances", tols, tol, 32)) < 0) return 2;
    nt = split_list(tols, tol, 32);
    if (dts) {
        if (number_list("--dt-list", dts, dtl, 32)) return 2;
        nd = split_list(dts, dtl, 32);
    }
    if (t_end) {
        char *end;
        double te = strtod(t_end, &end);
        if (end == t_end || *end || !isfinite(te))
            return cli_error("workprec: --t-end needs a number, got '%s'", t_end);
    }
    if (ref_dt) {
        char *end;
        double h = strtod(ref_dt, &end);
        if (end == ref_dt || *end || !(h > 0.0))
            return cli_error("workprec: --ref-dt needs a positive number, got '%s'", ref_dt);
    }
    if (plot && system("command -v gnuplot >/dev/null 2>&1") != 0)
        return cli_error("workprec: --plot needs gnuplot (apt-get install gnuplot-nox)");
    /* the model's dt (defaults of --dt-list and --ref-dt) */
    run_args a;
    memset(&a, 0, sizeof a);
    a.cmd = "workprec";
    a.model = model;
    a.integ = a.form = a.la = -1;
    a.dt = a.t_end = a.atol = a.rtol = a.fac = a.facmin = a.facmax = NAN;
    char path[PATH_CAP];
    ld_model m;
    int method;
    if (load_model(&a, path, sizeof path, &m, &method)) return 2;
    double dt0 = m.run.dt;
    ld_model_free(&m);
    /* the sweep file */
    sw_buf b = {0};
    sw_buf_printf(&b, "model: ");
    sweep_yaml_quoted(&b, path);
    sw_buf_printf(&b, "\n");
    if (t_end) sw_buf_printf(&b, "t_end: %s\n", t_end);
    sw_buf_printf(&b, "cases:\n");
    for (int i = 0; i < ni; ++i) {
        int est = ld_integ_method_has_estimate((ld_integ_method)ld_integ_method_find(integ[i]));
        if (est)
            for (int k = 0; k < nt; ++k)
                sw_buf_printf(&b,
                              "  - {integrator.name: %s, integrator.adaptive: true, "
                              "integrator.error_atol: %s, integrator.error_rtol: %s}\n",
                              integ[i], tol[k], tol[k]);
        else if (nd)
            for (int k = 0; k < nd; ++k)
                sw_buf_printf(&b, "  - {integrator.name: %s, integrator.dt: %s}\n", integ[i],
                              dtl[k]);
        else
            for (int k = 0; k < 4; ++k)
                sw_buf_printf(&b, "  - {integrator.name: %s, integrator.dt: %.17g}\n", integ[i],
                              dt0 / (double)(1 << k));
    }
    sw_buf_printf(&b, "reference: {shared: true, integrator.adaptive: false");
    if (ref_integ) sw_buf_printf(&b, ", integrator.name: %s", ref_integ);
    if (ref_dt)
        sw_buf_printf(&b, ", integrator.dt: %s}\n", ref_dt);
    else
        sw_buf_printf(&b, ", integrator.dt: %.17g}\n", dt0 / 64.0);
    sw_buf_printf(&b, "record: [error, steps, status, cpu_time]\n");
    int rank = 0, size = 1;
    if (sweep_mpi_init(&argc, &argv, &rank, &size) < 0) return 2;
    sweep sw;
    int rc = sweep_load(&sw, "workprec", b.s);
    sw_buf_free(&b);
    if (rc) {
        sweep_mpi_finalize();
        return 2;
    }
    x.quiet = 1;
    rc = run_sweep(&sw, &x, rank, NULL);
    if (rc == 0 && rank == 0) {
        sw_table t;
        char why[512];
        if (sweep_table_read(x.out, &t, why, sizeof why) != 0) {
            rc = cli_error("workprec: %s", why);
        } else {
            int ci = sweep_table_col(&t, "integrator.name"), ce = sweep_table_col(&t, "rot_error"),
                cp = sweep_table_col(&t, "pos_error"), cc = sweep_table_col(&t, "cpu_s"),
                cs = sweep_table_col(&t, "status"), cn = sweep_table_col(&t, "steps"),
                ct = sweep_table_col(&t, "integrator.error_atol"),
                cd = sweep_table_col(&t, "integrator.dt");
            say(quiet,
                "%s: work against precision at t_end, errors against a reference run; table %s\n",
                sw.base, x.out);
            say(quiet, "  %-13s %-12s %12s %12s %10s %8s  %s\n", "integrator", "tol / dt",
                "rot error", "pos error", "cpu [s]", "steps", "status");
            for (long r = 0; r < t.nrows; ++r) {
                char **f = t.cells[r];
                char setting[80];
                /* the table's numbers are exact (%.17g); the human line rounds them */
                const char *sv = ct >= 0 && f[ct][0] ? f[ct] : (cd >= 0 ? f[cd] : "?");
                char *end = NULL;
                double val = strtod(sv, &end);
                if (end && end != sv && *end == '\0')
                    snprintf(setting, sizeof setting, "%s%.6g",
                             ct >= 0 && f[ct][0] ? "tol " : "dt ", val);
                else
                    snprintf(setting, sizeof setting, "%s%s", ct >= 0 && f[ct][0] ? "tol " : "dt ",
                             sv);
                if (strcmp(f[cs], "ok") != 0) {
                    int cm = sweep_table_col(&t, "message");
                    say(quiet, "  %-13s %-12s %s: %.160s\n", f[ci], setting, f[cs], f[cm]);
                    continue;
                }
                say(quiet, "  %-13s %-12s %12.4e %12.4e %10.4g %8s  %s\n", f[ci], setting,
                    strtod(f[ce], NULL), strtod(f[cp], NULL), strtod(f[cc], NULL), f[cn], f[cs]);
            }
            if (plot) {
                char title[LD_NAME_MAX + 64];
                snprintf(title, sizeof title, "%s: work against precision", sw.base);
                rc = workprec_plot(&t, plot, title, integ, ni);
                if (!rc) say(quiet, "  plot: %s\n", plot);
            }
            sweep_table_free(&t);
        }
    }
    sweep_free(&sw);
    sweep_mpi_finalize();
    return rc;
}

/*
 * Options of `liedyn run` and `liedyn convergence`, and finding and loading the model with
 * the command-line overrides applied. Reference: docs/cli-run.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <float.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "sim.h"

#ifndef LD_MODELS_DIR
#define LD_MODELS_DIR "models"
#endif

/* ------------------------------------------------------------------ options */

typedef enum opt_id {
    O_INTEG,
    O_FORM,
    O_DT,
    O_TEND,
    O_ATOL,
    O_RTOL,
    O_MAXIT,
    O_LA,
    O_EVERY,
    O_OUT,
    O_VTK,
    O_PLOT,
    O_JSON,
    O_QUIET,
    O_DTLIST,
    O_REF,
    O_ADAPT,
    O_FAC,
    O_FACMIN,
    O_FACMAX,
    O_PROJECT,
    O_CKPT,
    O_CKPT_EVERY,
    O_RESTART,
    O_MAXSTEPS,
    O_HTML,
    O_FRAMES,
    O_OUTDT,
    O_PLOTWHAT,
    O_COLUMNS,
    O_NATOL,
    O_NRTOL,
    O_EATOL,
    O_ERTOL,
    O_REUSE,
    O_JOBS,
    O_CTOL,
    O_CONTACTS,
    O_OVTOL,
    O_HELP
} opt_id;

typedef struct opt_def {
    const char *name;
    opt_id id;
    int takes;      /* takes a value */
    int cmds;       /* CMD_RUN | CMD_CONV */
    int switchable; /* a boolean a model file may set: --no-X switches it off */
} opt_def;

static const opt_def opt_defs[] = {
    {"--integrator", O_INTEG, 1, CMD_BOTH, 0},
    {"--method", O_INTEG, 1, CMD_BOTH, 0},
    {"--formulation", O_FORM, 1, CMD_BOTH, 0},
    {"--dt", O_DT, 1, CMD_RUN, 0},
    {"--t-end", O_TEND, 1, CMD_BOTH, 0},
    {"--atol", O_ATOL, 1, CMD_BOTH, 0},
    {"--rtol", O_RTOL, 1, CMD_BOTH, 0},
    {"--max-iter", O_MAXIT, 1, CMD_BOTH, 0},
    {"--la", O_LA, 1, CMD_BOTH, 0},
    {"--output-every", O_EVERY, 1, CMD_RUN, 0},
    {"--output-dt", O_OUTDT, 1, CMD_RUN, 0},
    {"--columns", O_COLUMNS, 1, CMD_RUN, 0},
    {"--plot-what", O_PLOTWHAT, 1, CMD_RUN, 0},
    {"--newton-atol", O_NATOL, 1, CMD_BOTH, 0},
    {"--newton-rtol", O_NRTOL, 1, CMD_BOTH, 0},
    {"--error-atol", O_EATOL, 1, CMD_RUN, 0},
    {"--error-rtol", O_ERTOL, 1, CMD_RUN, 0},
    {"--newton-reuse", O_REUSE, 0, CMD_BOTH, 1},
    {"--out", O_OUT, 1, CMD_RUN, 0},
    {"--vtk", O_VTK, 1, CMD_RUN, 0},
    {"--plot", O_PLOT, 1, CMD_RUN, 0},
    {"--json", O_JSON, 0, CMD_BOTH, 0},
    {"--quiet", O_QUIET, 0, CMD_RUN, 0},
    {"--dt-list", O_DTLIST, 1, CMD_CONV, 0},
    {"--ref", O_REF, 1, CMD_CONV, 0},
    {"--adaptive", O_ADAPT, 0, CMD_RUN, 1},
    {"--fac", O_FAC, 1, CMD_RUN, 0},
    {"--facmin", O_FACMIN, 1, CMD_RUN, 0},
    {"--facmax", O_FACMAX, 1, CMD_RUN, 0},
    {"--project", O_PROJECT, 0, CMD_BOTH, 1},
    {"--constraint-tol", O_CTOL, 1, CMD_RUN, 0},
    {"--overlap-tol", O_OVTOL, 1, CMD_RUN, 0},
    {"--contacts", O_CONTACTS, 1, CMD_RUN, 0},
    {"--checkpoint", O_CKPT, 1, CMD_RUN, 0},
    {"--checkpoint-every", O_CKPT_EVERY, 1, CMD_RUN, 0},
    {"--restart", O_RESTART, 1, CMD_RUN, 0},
    {"--max-steps", O_MAXSTEPS, 1, CMD_RUN, 0},
    {"--html", O_HTML, 1, CMD_RUN, 0},
    {"--frames", O_FRAMES, 1, CMD_RUN, 0},
    {"--jobs", O_JOBS, 1, CMD_CONV, 0},
    {"-j", O_JOBS, 1, CMD_CONV, 0},
    {"--help", O_HELP, 0, CMD_BOTH, 0},
    {"-h", O_HELP, 0, CMD_BOTH, 0},
};

/* The integrators, one line each (name, order, estimate, title), from the method table. */
static void methods_usage(FILE *f) {
    fprintf(f, "integrators (--integrator M; order, and of the embedded estimate):\n");
    for (int i = 0; i < ld_method_count(); ++i) {
        const ld_method_info *d = ld_method_get(i);
        char ord[16];
        snprintf(ord, sizeof ord, d->order_estimate ? "%d(%d)" : "%d", d->order, d->order_estimate);
        fprintf(f, "  %-13s %-5s %s\n", d->name, ord, d->title);
    }
}

/* The methods' own parameters, one line each, from their descriptors. */
static void params_usage(FILE *f) {
    for (int i = 0; i < ld_method_count(); ++i) {
        const ld_method_info *d = ld_method_get(i);
        for (int j = 0; j < d->nparams; ++j) {
            const ld_method_param *p = &d->params[j];
            int m = -1;
            if (ld_method_param_find(p->key, &m) != p || m != i) continue; /* listed already */
            char opt[48];
            snprintf(opt, sizeof opt, "%s X", p->option);
            fprintf(f, "  %-19s %s; in %s, default %g (%s", opt, p->help, p->range, p->def,
                    d->name);
            for (int k = i + 1; k < ld_method_count(); ++k) {
                const ld_method_info *e = ld_method_get(k);
                for (int l = 0; l < e->nparams; ++l)
                    if (e->params[l].offset == p->offset) fprintf(f, ", %s", e->name);
            }
            fprintf(f, ")\n");
        }
    }
}

static void run_usage(FILE *f) {
    fprintf(f, "usage: liedyn run MODEL [options]\n"
               "  MODEL               a YAML model file, or the name of a shipped model\n"
               "                      (models/NAME.yaml: heavy-top, free-top, torque-body-i, ...)\n"
               "  --integrator M      one of the integrators below (default: the model's);\n"
               "                      --method M is the same\n"
               "  --formulation F     so3xr3 se3 s3xr3 s3sdr3 euler, so3xr3-spatial s3xr3-spatial\n"
               "                      (spatial angular velocity, increments on the left),\n"
               "                      tree (joint coordinates of a tree of joints)\n"
               "  --dt H              step size\n"
               "  --t-end T           end time\n");
    params_usage(f);
    fprintf(f, "  --newton-atol A --newton-rtol R   the Newton stop (weighted norm of the\n"
               "                      corrections)\n"
               "  --error-atol A --error-rtol R     the local error tolerances of --adaptive\n"
               "  --atol A --rtol R   shorthand: the Newton stop; with --adaptive the error\n"
               "                      tolerances (Newton then stops at 1/100 of them)\n"
               "  --adaptive          step-size control by the error estimate (tb3, tb3-paper,\n"
               "                      hem2, hem5);\n"
               "                      --dt is the first step, one output row per step\n"
               "  --fac F --facmin A --facmax B   step-ratio factors (0.8, 0.2, 5)\n"
               "  --project           hem1 … hem5: project onto the position constraints after\n"
               "                      every step; genalpha, newmark, newmark-beta: project the\n"
               "                      velocity and the acceleration onto their constraints\n"
               "                      (runs rho_inf = 1 on constrained models)\n"
               "  --constraint-tol X  end the run, status DRIFTED (exit 6), at the first step\n"
               "                      whose constraint residual max |Phi| exceeds X (default\n"
               "                      1e-6 times the model's largest joint-to-centre-of-mass\n"
               "                      distance; 0: no check)\n"
               "  --overlap-tol X     contact: end the run, status DRIFTED (exit 6), at the first\n"
               "                      step at whose end two shapes overlap by more than X m\n"
               "                      (default 1e-6 times the smallest colliding shape's radius\n"
               "                      or half edge; 0: no check)\n"
               "  --max-iter N        Newton iterations per step\n");
    fprintf(f, "  --newton-reuse [on|off|auto]\n"
               "                      on: keep the factored iteration matrix across steps while\n"
               "                      the step size stays and Newton contracts; auto (default):\n"
               "                      one matrix per step, kept for its iterations; off: a new\n"
               "                      one every iteration; alone: on\n"
               "  --la dense|klu|auto linear solver (default auto: KLU where its measured cost\n"
               "                      on the model's sparse structure is below dense LU's, from\n"
               "                      32 unknowns; JSON la_order, la_entries)\n"
               "  --no-adaptive, --no-project, --no-newton-reuse\n"
               "                      switch off what the model file's integrator block (or an\n"
               "                      earlier option) switched on\n");
    fprintf(f, /* the output options (one literal stays within C's 4095 characters) */
            "  --output-every K    a row every K-th step (and the first and the last);\n"
            "                      default: every step up to 5000 fixed steps, else about\n"
            "                      2000 rows; every accepted step under --adaptive\n"
            "  --output-dt T       rows at t_start + jT, interpolated on the group between\n"
            "                      the steps (third order), and at t_end\n"
            "  --columns LIST      the CSV's columns after t: body or joint names, BODY.pos,\n"
            "                      .q, .omega, .v, JOINT.f, .t, .coords, .rate, or single\n"
            "                      columns (top.z, elbow.angle, energy, ...), comma-separated\n"
            "  --out FILE.csv      t, then per body x,y,z,qw,qx,qy,qz,wx,wy,wz,vx,vy,vz, then\n"
            "                      energy, constraint_residual[, BODY.angle_error]\n"
            "                      [, h, error_estimate (tb3, tb3-paper, hem2, hem5)], per\n"
            "                      joint fx,fy,fz,tx,ty,tz, then per joint its coordinates\n"
            "                      and rates (angle, angle_rate, slide, slide_rate, rx..wz,\n"
            "                      value, value_rate; angles unwrapped)\n"
            "  --vtk DIR           legacy-VTK files (bodies as their shapes, joints as lines,\n"
            "                      rods and beams as polylines, the ground's shapes and\n"
            "                      plane) + DIR/MODEL.vtk.series; with contact also\n"
            "                      DIR/MODEL_contacts_*.vtk (points, normal, force, gap)\n"
            "  --contacts FILE.csv a model with contact: one line per contact per output row,\n"
            "                      t,body1,body2,shape1,shape2,px,py,pz,nx,ny,nz,gap,fn,ft,\n"
            "                      fx,fy,fz (the last step's contacts, at its midpoint)\n"
            "  --html FILE.html    one self-contained HTML file that animates the run in a\n"
            "                      browser, offline (docs/viewer.md); with contact, the\n"
            "                      ground and the contacts' points and forces\n"
            "  --frames N          at most N output times, evenly spaced, in the --html and\n"
            "                      --vtk output (and the last; default 1000)\n"
            "  --plot FILE.png     quantities against time (needs gnuplot): the model's\n"
            "                      output.plot, else the position of the body that moves\n"
            "                      most and the energy\n"
            "  --plot-what LIST    the plot's panels, names as for --columns\n"
            "  --json              print one JSON object with the run's results\n"
            "  --quiet             print only errors and warnings (on stderr): no progress\n"
            "                      line, no summary; the exit status says how the run ended\n"
            "                      (--json still prints its record)\n"
            "  --checkpoint FILE   write the whole integrator state to FILE (atomically) at\n"
            "                      the end, when stopped or failing, and every T with\n"
            "  --checkpoint-every T\n"
            "  --restart FILE      continue from a checkpoint of this model, integrator,\n"
            "                      formulation and method parameters (bit for bit as the\n"
            "                      run that wrote it)\n"
            "  --max-steps N       stop after N steps, as on SIGINT/SIGTERM: the row and the\n"
            "                      checkpoint of the state reached, exit status 5\n"
            "CSV files hold whole rows at every moment (written in blocks of rows at least\n"
            "every 0.1 s); SIGINT/SIGTERM finish the current step, write its row and the\n"
            "checkpoint, and exit with 128 + the signal number.\n"
            "exit status: 0 ok, 2 bad usage or input, 3 the integration failed, 4 output\n"
            "could not be written, 5 stopped by --max-steps, 6 drifted off the constraints\n"
            "(--constraint-tol) or into overlap (--overlap-tol), 130/143 stopped by a signal\n");
    methods_usage(f);
}

static void conv_usage(FILE *f) {
    fprintf(f,
            "usage: liedyn convergence MODEL --dt-list H1,H2,... [options]\n"
            "  --dt-list H1,H2,... step sizes (at least 2, distinct)\n"
            "  --integrator M      an integrator of 'liedyn run --help' (default: the model's)\n"
            "  --formulation F     so3xr3 se3 s3xr3 s3sdr3 euler, so3xr3-spatial s3xr3-spatial\n"
            "                      (spatial angular velocity, increments on the left),\n"
            "                      tree (joint coordinates of a tree of joints)\n"
            "  --t-end T           time at which the errors are measured (default: the model's)\n"
            "  --ref FILE.csv      reference: the row t = T of a CSV from 'liedyn run --out'\n"
            "                      (default: the exact rotation if the model has one, and a\n"
            "                      run at the smallest step / 16)\n"
            "  --atol A --rtol R --max-iter N --la dense|klu|auto --project, and the\n"
            "                      integrators' parameters (--rho-inf, --alpha, ...)\n"
            "                      as for run\n"
            "  --json              print one JSON object\n"
            "  --jobs N, -j N      the runs in N worker processes (default: one per core; 1:\n"
            "                      in this process), as the cases of a sweep\n"
            "exit status: 0 ok, 2 bad usage or input, 3 a run failed\n");
}

/* A finite number; sign = 1: > 0, 0: ≥ 0, -1: any. Returns 0 or 2 (message printed). */
static int parse_num(const char *cmd, const char *opt, const char *s, int sign, double *v) {
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(x))
        return cli_error("%s: %s needs a finite number, got '%s'", cmd, opt, s);
    if (errno == ERANGE && fabs(x) > 1.0)
        return cli_error("%s: %s is too large, got '%s'", cmd, opt, s);
    if (errno == ERANGE || (x != 0.0 && fabs(x) < DBL_MIN))
        return cli_error("%s: %s is too small (below %g), got '%s'", cmd, opt, DBL_MIN, s);
    if (sign == 1 && !(x > 0.0)) return cli_error("%s: %s must be positive, got '%s'", cmd, opt, s);
    if (sign == 0 && !(x >= 0.0))
        return cli_error("%s: %s must be non-negative, got '%s'", cmd, opt, s);
    *v = x;
    return 0;
}

static int parse_long(const char *cmd, const char *opt, const char *s, long *n) {
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || x < 1 || x > 1000000000L)
        return cli_error("%s: %s needs a positive integer, got '%s'", cmd, opt, s);
    *n = x;
    return 0;
}

static int parse_count(const char *cmd, const char *opt, const char *s, int *n) {
    long x = 0;
    if (parse_long(cmd, opt, s, &x)) return 2;
    *n = (int)x;
    return 0;
}

/* --newton-reuse [on|off|auto] (the word optional: alone it means on) or --no-newton-reuse
 * (off) at argv[*i]; *out = 1 + the ld_newton_reuse chosen. A following word is taken only if
 * it is one of the three. */
static int parse_reuse(int argc, char **argv, int *i, int off, int *out) {
    static const char *const words[] = {"off", "on", "auto"}; /* in ld_newton_reuse's order */
    int v = off ? LD_REUSE_OFF : LD_REUSE_ON;
    for (int w = 0; !off && *i + 1 < argc && w < 3; ++w)
        if (strcmp(argv[*i + 1], words[w]) == 0) {
            v = w;
            ++*i;
            break;
        }
    *out = 1 + v;
    return 0;
}

/* "a, b, c" from a name function over 0..count-1. */
static void name_list(char *buf, size_t cap, int count, const char *(*name)(int)) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && len < cap; ++i) {
        int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", name(i));
        if (w < 0) break;
        len += (size_t)w;
    }
}

const char *integ_name_i(int i) {
    return ld_integ_method_name((ld_integ_method)i);
}
const char *form_name_i(int i) {
    return ld_formulation_name((ld_formulation)i);
}

static int parse_dt_list(const char *cmd, const char *s, run_args *a) {
    const char *p = s;
    a->ndt = 0;
    for (;;) {
        char item[64];
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof item)
            return cli_error("%s: --dt-list needs comma-separated step sizes, got '%s'", cmd, s);
        memcpy(item, p, n);
        item[n] = '\0';
        if (a->ndt == MAX_DT_LIST)
            return cli_error("%s: --dt-list takes at most %d step sizes", cmd, MAX_DT_LIST);
        double h = 0.0;
        if (parse_num(cmd, "--dt-list", item, 1, &h)) return 2;
        for (int i = 0; i < a->ndt; ++i)
            if (a->dts[i] == h)
                return cli_error("%s: --dt-list: step size %s appears twice", cmd, item);
        a->dts[a->ndt++] = h;
        if (p[n] == '\0') break;
        p += n + 1;
    }
    if (a->ndt < 2)
        return cli_error("%s: --dt-list needs at least 2 step sizes, got %d", cmd, a->ndt);
    return 0;
}

/* The value of a method's parameter option, in its descriptor's range. 0 or 2. */
static int parse_param(const char *cmd, const ld_method_param *p, const char *v, run_args *a) {
    double x = 0.0;
    if (parse_num(cmd, p->option, v, -1, &x)) return 2;
    if (!(x >= p->lo && x <= p->hi))
        return cli_error("%s: %s must be in %s, got '%s'", cmd, p->option, p->range, v);
    if (ld_run_param_set(&a->params, p->key, x) != LD_OK)
        return cli_error("%s: too many integrator parameters", cmd);
    return 0;
}

/* Parse argv for command cmds (CMD_RUN or CMD_CONV). Returns 0, 1 (help printed) or 2. */
/* "CMD: unknown option 'O'", with the nearest option of the command if one is near (exit 2). */
static int unknown_option(const char *cmd, const char *o, int cmds) {
    enum { N = sizeof opt_defs / sizeof opt_defs[0] };
    const char *names[N];
    int n = 0;
    for (size_t k = 0; k < N; ++k)
        if (opt_defs[k].cmds & cmds) names[n++] = opt_defs[k].name;
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)strcspn(o, "="), o);
    const char *near = cli_closest(key, names, n);
    if (near) return cli_error("%s: unknown option '%s' (did you mean '%s'?)", cmd, o, near);
    return cli_error("%s: unknown option '%s' (see 'liedyn %s --help')", cmd, o, cmd);
}

int parse_args(int argc, char **argv, int cmds, run_args *a) {
    memset(a, 0, sizeof *a);
    a->cmd = cmds == CMD_RUN ? "run" : "convergence";
    a->integ = a->form = a->la = -1;
    a->dt = a->t_end = a->atol = a->rtol = NAN;
    a->fac = a->facmin = a->facmax = a->checkpoint_every = NAN;
    a->out_dt = a->newton_atol = a->newton_rtol = a->error_atol = a->error_rtol = NAN;
    a->constraint_tol = NAN;
    a->overlap_tol = NAN;
    const char *cmd = a->cmd;
    char list[512];
    for (int i = 0; i < argc; ++i) {
        const char *o = argv[i];
        if (o[0] != '-' || o[1] == '\0') {
            if (a->model) return cli_error("%s: unexpected argument '%s' (one MODEL only)", cmd, o);
            a->model = o;
            continue;
        }
        const ld_method_param *mp = ld_method_param_find(o, NULL);
        if (mp && strcmp(o, mp->option) == 0) { /* a method's parameter */
            if (i + 1 >= argc) return cli_error("%s: %s needs a value", cmd, o);
            if (parse_param(cmd, mp, argv[++i], a)) return 2;
            continue;
        }
        const opt_def *d = NULL;
        int off = 0; /* --no-X: the boolean X switched off (over the model file's setting) */
        for (size_t k = 0; k < sizeof opt_defs / sizeof opt_defs[0]; ++k)
            if (strcmp(o, opt_defs[k].name) == 0) d = &opt_defs[k];
        for (size_t k = 0; !d && k < sizeof opt_defs / sizeof opt_defs[0]; ++k)
            if (!strncmp(o, "--no-", 5) && opt_defs[k].switchable &&
                !strcmp(o + 5, opt_defs[k].name + 2))
                d = &opt_defs[k], off = 1;
        if (!d || !(d->cmds & cmds)) return unknown_option(cmd, o, cmds);
        const char *v = NULL;
        if (d->takes) {
            if (i + 1 >= argc) return cli_error("%s: %s needs a value", cmd, o);
            v = argv[++i];
        }
        int rc = 0;
        switch (d->id) {
        case O_INTEG:
            a->integ = ld_integ_method_find(v);
            name_list(list, sizeof list, ld_method_count(), integ_name_i);
            if (a->integ < 0) return cli_error("%s: unknown integrator '%s' (%s)", cmd, v, list);
            break;
        case O_FORM:
            a->form = ld_formulation_find(v);
            name_list(list, sizeof list, LD_FORM_ALL, form_name_i);
            if (a->form < 0) return cli_error("%s: unknown formulation '%s' (%s)", cmd, v, list);
            break;
        case O_LA:
            a->la = ld_la_kind_find(v);
            if (a->la < 0)
                return cli_error("%s: unknown linear solver '%s' (dense, klu, auto)", cmd, v);
            break;
        case O_DT:
            rc = parse_num(cmd, o, v, 1, &a->dt);
            break;
        case O_TEND:
            rc = parse_num(cmd, o, v, -1, &a->t_end);
            break;
        case O_ATOL:
            rc = parse_num(cmd, o, v, 1, &a->atol);
            break;
        case O_RTOL:
            rc = parse_num(cmd, o, v, 0, &a->rtol);
            break;
        case O_MAXIT:
            rc = parse_count(cmd, o, v, &a->max_iter);
            break;
        case O_EVERY:
            rc = parse_count(cmd, o, v, &a->every);
            break;
        case O_OUTDT:
            rc = parse_num(cmd, o, v, 1, &a->out_dt);
            break;
        case O_COLUMNS:
            a->columns = v;
            break;
        case O_PLOTWHAT:
            a->plot_what = v;
            break;
        case O_NATOL:
            rc = parse_num(cmd, o, v, 1, &a->newton_atol);
            break;
        case O_NRTOL:
            rc = parse_num(cmd, o, v, 0, &a->newton_rtol);
            break;
        case O_EATOL:
            rc = parse_num(cmd, o, v, 1, &a->error_atol);
            break;
        case O_ERTOL:
            rc = parse_num(cmd, o, v, 0, &a->error_rtol);
            break;
        case O_REUSE:
            rc = parse_reuse(argc, argv, &i, off, &a->newton_reuse);
            break;
        case O_OUT:
            a->out = v;
            break;
        case O_VTK:
            a->vtk = v;
            break;
        case O_PLOT:
            a->plot = v;
            break;
        case O_REF:
            a->ref = v;
            break;
        case O_ADAPT:
            a->adaptive = off ? -1 : 1;
            break;
        case O_PROJECT:
            a->project = off ? -1 : 1;
            break;
        case O_CTOL:
            rc = parse_num(cmd, o, v, 0, &a->constraint_tol);
            break;
        case O_OVTOL:
            rc = parse_num(cmd, o, v, 0, &a->overlap_tol);
            break;
        case O_CONTACTS:
            a->contacts = v;
            break;
        case O_CKPT:
            a->checkpoint = v;
            break;
        case O_CKPT_EVERY:
            rc = parse_num(cmd, o, v, 1, &a->checkpoint_every);
            break;
        case O_RESTART:
            a->restart = v;
            break;
        case O_MAXSTEPS:
            rc = parse_long(cmd, o, v, &a->max_steps);
            break;
        case O_HTML:
            a->html = v;
            break;
        case O_FRAMES:
            rc = parse_long(cmd, o, v, &a->frames);
            if (!rc && (a->frames < 2 || a->frames > 100000))
                rc = cli_error("%s: --frames must be from 2 to 100000, got '%s'", cmd, v);
            break;
        case O_JOBS:
            rc = parse_count(cmd, o, v, &a->jobs);
            break;
        case O_FAC:
            rc = parse_num(cmd, o, v, 1, &a->fac);
            break;
        case O_FACMIN:
            rc = parse_num(cmd, o, v, 1, &a->facmin);
            break;
        case O_FACMAX:
            rc = parse_num(cmd, o, v, 1, &a->facmax);
            break;
        case O_DTLIST:
            rc = parse_dt_list(cmd, v, a);
            break;
        case O_JSON:
            a->json = 1;
            break;
        case O_QUIET:
            a->quiet = 1;
            break;
        case O_HELP:
            if (cmds == CMD_RUN)
                run_usage(stdout);
            else
                conv_usage(stdout);
            return 1;
        }
        if (rc) return rc;
    }
    if (!a->model) return cli_error("%s: no MODEL given (try 'liedyn %s --help')", cmd, cmd);
    if (cmds == CMD_CONV && a->ndt == 0)
        return cli_error("%s: --dt-list H1,H2,... is required", cmd);
    if (!isnan(a->checkpoint_every) && !a->checkpoint)
        return cli_error("%s: --checkpoint-every needs --checkpoint FILE", cmd);
    if (!isnan(a->out_dt) && a->every > 0)
        return cli_error("%s: give one of --output-dt (rows at fixed times) and --output-every "
                         "(every K-th step)",
                         cmd);
    if (a->plot_what && !a->plot) return cli_error("%s: --plot-what needs --plot FILE.png", cmd);
    return 0;
}

/* ------------------------------------------------------------------ models */

int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_names(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

/* "free-top, heavy-top, ..." from the models directory (cli_models_dir). */
static void shipped_models(char *buf, size_t cap) {
    static char names[64][LD_NAME_MAX];
    int n = 0;
    const char *dir = cli_models_dir();
    DIR *d = opendir(dir);
    buf[0] = '\0';
    if (!d) {
        snprintf(buf, cap, "none found in %s", dir);
        return;
    }
    struct dirent *e;
    while (n < 64 && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 5 && len - 5 < LD_NAME_MAX && strcmp(e->d_name + len - 5, ".yaml") == 0 &&
            e->d_name[0] != '.') {
            memcpy(names[n], e->d_name, len - 5);
            names[n][len - 5] = '\0';
            ++n;
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_names);
    size_t len = 0;
    for (int i = 0; i < n && len < cap; ++i) {
        int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", names[i]);
        if (w < 0) break;
        len += (size_t)w;
    }
    if (n == 0) snprintf(buf, cap, "none found in %s", dir);
}

/* MODEL as a path, else models/MODEL.yaml, else MODEL.yaml in the models directory. */
static int resolve_model(const char *cmd, const char *name, char *path, size_t cap) {
    if (is_file(name)) {
        snprintf(path, cap, "%s", name);
        return 0;
    }
    if (!strchr(name, '/')) {
        snprintf(path, cap, "models/%s.yaml", name);
        if (is_file(path)) return 0;
        snprintf(path, cap, "%s/%s.yaml", cli_models_dir(), name);
        if (is_file(path)) return 0;
    }
    char list[1024];
    shipped_models(list, sizeof list);
    return cli_error("%s: '%s' is neither a model file nor a shipped model (shipped: %s)", cmd,
                     name, list);
}

/* "tb3, tb3-paper, …": the methods with an error estimate. */
static const char *estimating_methods(char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < ld_method_count() && len < cap; ++i) {
        if (!ld_integ_method_has_estimate((ld_integ_method)i)) continue;
        int w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", integ_name_i(i));
        if (w < 0) break;
        len += (size_t)w;
    }
    return buf;
}

/* Load the model and apply the command-line overrides to m->run; 0 or 2 (message printed).
 * *method receives the integrator. On failure nothing needs freeing. */
int load_model(const run_args *a, char *path, size_t cap, ld_model *m, int *method) {
    const char *cmd = a->cmd;
    if (resolve_model(cmd, a->model, path, cap)) return 2;
    ld_model_error err;
    memset(&err, 0, sizeof err);
    int rc = cli_model_load(path, m, &err); /* YAML, or URDF / MJCF imported */
    if (rc) {
        if (err.msg[0]) return cli_error("%s", err.msg);
        return cli_error("%s: cannot read model '%s': %s", cmd, path, ld_strerror(rc));
    }
    ld_run_spec *r = &m->run;
    if (a->form >= 0) r->formulation = (ld_formulation)a->form;
    if (!isnan(a->dt)) r->dt = a->dt;
    if (!isnan(a->t_end)) r->t_end = a->t_end;
    for (int i = 0; i < a->params.nparams; ++i)
        if (ld_run_param_set(r, a->params.params[i].key, a->params.params[i].value) != LD_OK) {
            ld_model_free(m);
            return cli_error("%s: too many integrator parameters", cmd);
        }
    if (a->adaptive) r->adaptive = a->adaptive > 0;
    /* under step-size control --atol/--rtol are the local error tolerances */
    if (!isnan(a->atol)) *(r->adaptive ? &r->error_atol : &r->newton_atol) = a->atol;
    if (!isnan(a->rtol)) *(r->adaptive ? &r->error_rtol : &r->newton_rtol) = a->rtol;
    if (!isnan(a->newton_atol)) r->newton_atol = a->newton_atol;
    if (!isnan(a->newton_rtol)) r->newton_rtol = a->newton_rtol;
    if (!isnan(a->error_atol)) r->error_atol = a->error_atol;
    if (!isnan(a->error_rtol)) r->error_rtol = a->error_rtol;
    if (!isnan(a->fac)) r->fac = a->fac;
    if (!isnan(a->facmin)) r->facmin = a->facmin;
    if (!isnan(a->facmax)) r->facmax = a->facmax;
    if (a->max_iter > 0) r->max_iter = a->max_iter;
    if (a->newton_reuse) r->newton_reuse = a->newton_reuse - 1;
    if (a->every > 0) r->output_every = a->every, m->output.dt = 0.0;
    if (!isnan(a->out_dt)) m->output.dt = a->out_dt, r->output_every = 0;
    char list[512];
    name_list(list, sizeof list, ld_method_count(), integ_name_i);
    *method = a->integ >= 0 ? a->integ : ld_integ_method_find(r->integrator);
    rc = 0;
    if (*method < 0)
        rc = cli_error("%s: unknown integrator '%.*s' in the integrator block (%s)", path,
                       LD_NAME_MAX - 1, r->integrator, list);
    else if (!(r->t_end > r->t_start))
        rc = cli_error("%s: the end time %.17g must be greater than the start time %.17g", cmd,
                       r->t_end, r->t_start);
    else if (!(r->dt > 0.0 && isfinite(r->dt)))
        rc = cli_error("%s: the step size must be positive, found %g", cmd, r->dt);
    else if (r->adaptive && !ld_integ_method_has_estimate((ld_integ_method)*method))
        rc = cli_error("%s: step-size control%s needs an integrator with an error estimate "
                       "(%s), not %s",
                       a->adaptive ? cmd : path, a->adaptive ? "" : " (adaptive: true)",
                       estimating_methods(list, sizeof list),
                       ld_integ_method_name((ld_integ_method)*method));
    else if (!r->adaptive && !(isnan(a->fac) && isnan(a->facmin) && isnan(a->facmax)))
        rc = cli_error("%s: --fac, --facmin and --facmax act only with --adaptive", cmd);
    else if (r->adaptive && !(r->fac > 0.0 && r->fac <= 1.0 && r->facmin < 1.0 && r->facmax > 1.0 &&
                              isfinite(r->facmax)))
        rc = cli_error("%s: step-ratio factors need 0 < fac <= 1, 0 < facmin < 1 < facmax "
                       "(fac %g, facmin %g, facmax %g)",
                       cmd, r->fac, r->facmin, r->facmax);
    else if (r->t_start + r->dt == r->t_start || r->t_end - r->dt == r->t_end)
        rc = cli_error("%s: the step size %g is below the resolution of the time %g (its spacing "
                       "of doubles is %g)",
                       cmd, r->dt, fmax(fabs(r->t_start), fabs(r->t_end)),
                       nextafter(fmax(fabs(r->t_start), fabs(r->t_end)), INFINITY) -
                           fmax(fabs(r->t_start), fabs(r->t_end)));
    else if ((r->t_end - r->t_start) / r->dt > 1e12)
        rc = cli_error("%s: %g steps of %g to reach %g are too many", cmd,
                       (r->t_end - r->t_start) / r->dt, r->dt, r->t_end);
    if (rc) ld_model_free(m);
    return rc;
}

/* A file-name-safe base name: the model's name, else the file's without .yaml. */
void model_base(const ld_model *m, const char *path, char *out, size_t cap) {
    const char *src = m->name;
    char tmp[LD_NAME_MAX];
    if (!src[0]) {
        const char *slash = strrchr(path, '/');
        snprintf(tmp, sizeof tmp, "%s", slash ? slash + 1 : path);
        size_t len = strlen(tmp);
        if (len > 5 && strcmp(tmp + len - 5, ".yaml") == 0) tmp[len - 5] = '\0';
        src = tmp;
    }
    size_t k = 0;
    for (; src[k] && k + 1 < cap; ++k) {
        char c = src[k];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.';
        out[k] = ok ? c : '_';
    }
    out[k] = '\0';
    if (k == 0) snprintf(out, cap, "model");
}

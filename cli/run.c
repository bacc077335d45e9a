/*
 * liedyn run — integrate a multibody model (a YAML file or a shipped model) with an implicit
 * Lie-group integrator; CSV, legacy-VTK and gnuplot output.
 * liedyn convergence — the same runs over a list of step sizes: errors at the end time against
 * the exact rotation, a finer reference run or a CSV, and the observed orders.
 * Exit codes: 0 ok, 2 bad usage or input, 3 the integration failed (the JSON and the CSV
 * written so far stay valid and say where it stopped). Reference: docs/cli-run.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#ifndef LD_MODELS_DIR
#define LD_MODELS_DIR "models"
#endif

#define MAX_DT_LIST 32
#define PATH_CAP    4096

/* ------------------------------------------------------------------ options */

enum {
    CMD_RUN = 1,
    CMD_CONV = 2,
    CMD_BOTH = 3,
};

typedef enum opt_id {
    O_INTEG,
    O_FORM,
    O_DT,
    O_TEND,
    O_RHO,
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
    O_HELP
} opt_id;

typedef struct opt_def {
    const char *name;
    opt_id id;
    int takes; /* takes a value */
    int cmds;  /* CMD_RUN | CMD_CONV */
} opt_def;

static const opt_def opt_defs[] = {
    {"--integrator", O_INTEG, 1, CMD_BOTH},
    {"--formulation", O_FORM, 1, CMD_BOTH},
    {"--dt", O_DT, 1, CMD_RUN},
    {"--t-end", O_TEND, 1, CMD_BOTH},
    {"--rho-inf", O_RHO, 1, CMD_BOTH},
    {"--atol", O_ATOL, 1, CMD_BOTH},
    {"--rtol", O_RTOL, 1, CMD_BOTH},
    {"--max-iter", O_MAXIT, 1, CMD_BOTH},
    {"--la", O_LA, 1, CMD_BOTH},
    {"--output-every", O_EVERY, 1, CMD_RUN},
    {"--out", O_OUT, 1, CMD_RUN},
    {"--vtk", O_VTK, 1, CMD_RUN},
    {"--plot", O_PLOT, 1, CMD_RUN},
    {"--json", O_JSON, 0, CMD_BOTH},
    {"--quiet", O_QUIET, 0, CMD_RUN},
    {"--dt-list", O_DTLIST, 1, CMD_CONV},
    {"--ref", O_REF, 1, CMD_CONV},
    {"--adaptive", O_ADAPT, 0, CMD_RUN},
    {"--fac", O_FAC, 1, CMD_RUN},
    {"--facmin", O_FACMIN, 1, CMD_RUN},
    {"--facmax", O_FACMAX, 1, CMD_RUN},
    {"--help", O_HELP, 0, CMD_BOTH},
    {"-h", O_HELP, 0, CMD_BOTH},
};

typedef struct run_args {
    const char *cmd;   /* "run" or "convergence" (message prefix) */
    const char *model; /* the MODEL argument */
    int integ, form, la;
    double dt, t_end, rho_inf, atol, rtol; /* NAN: the model's */
    double fac, facmin, facmax;            /* NAN: the model's */
    int max_iter, every;                   /* 0: the model's */
    int adaptive;                          /* --adaptive given */
    const char *out, *vtk, *plot, *ref;
    int json, quiet;
    int ndt;
    double dts[MAX_DT_LIST];
} run_args;

static void run_usage(FILE *f) {
    fprintf(f, "usage: liedyn run MODEL [options]\n"
               "  MODEL               a YAML model file, or the name of a shipped model\n"
               "                      (models/NAME.yaml: heavy-top, free-top, torque-body-i, ...)\n"
               "  --integrator M      genalpha, newmark, tb3 or tb3-paper (default: the model's)\n"
               "  --formulation F     so3xr3 se3 s3xr3 s3sdr3\n"
               "  --dt H              step size\n"
               "  --t-end T           end time\n"
               "  --rho-inf R         spectral radius at infinity in [0, 1] (genalpha)\n"
               "  --atol A --rtol R   Newton stop (weighted norm of the corrections); with\n"
               "                      --adaptive the local error tolerances (Newton then\n"
               "                      stops at 1/100 of them)\n"
               "  --adaptive          step-size control by the error estimate (tb3, tb3-paper);\n"
               "                      --dt is the first step, one output row per step\n"
               "  --fac F --facmin A --facmax B   step-ratio factors (0.8, 0.2, 5)\n"
               "  --max-iter N        Newton iterations per step\n"
               "  --la dense|klu      linear solver\n"
               "  --output-every K    write every K-th step (and the first and the last)\n"
               "  --out FILE.csv      t, then per body x,y,z,qw,qx,qy,qz,wx,wy,wz,vx,vy,vz, then\n"
               "                      energy, constraint_residual[, BODY.angle_error]\n"
               "                      [, h, error_estimate (tb3, tb3-paper)]\n"
               "  --vtk DIR           legacy-VTK file per output row + DIR/MODEL.vtk.series\n"
               "  --plot FILE.png     centre-of-mass path of the first body (needs gnuplot)\n"
               "  --json              print one JSON object with the run's results\n"
               "  --quiet             no progress line\n"
               "exit status: 0 ok, 2 bad usage or input, 3 the integration failed\n");
}

static void conv_usage(FILE *f) {
    fprintf(f,
            "usage: liedyn convergence MODEL --dt-list H1,H2,... [options]\n"
            "  --dt-list H1,H2,... step sizes (at least 2, distinct)\n"
            "  --integrator M      genalpha, newmark, tb3 or tb3-paper (default: the model's)\n"
            "  --formulation F     so3xr3 se3 s3xr3 s3sdr3\n"
            "  --t-end T           time at which the errors are measured (default: the model's)\n"
            "  --ref FILE.csv      reference: the row t = T of a CSV from 'liedyn run --out'\n"
            "                      (default: the exact rotation if the model has one, and a\n"
            "                      run at the smallest step / 16)\n"
            "  --rho-inf R --atol A --rtol R --max-iter N --la dense|klu   as for run\n"
            "  --json              print one JSON object\n"
            "exit status: 0 ok, 2 bad usage or input, 3 a run failed\n");
}

/* A finite number; sign = 1: > 0, 0: ≥ 0, -1: any. Returns 0 or 2 (message printed). */
static int parse_num(const char *cmd, const char *opt, const char *s, int sign, double *v) {
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(x))
        return cli_error("%s: %s needs a finite number, got '%s'", cmd, opt, s);
    if (sign == 1 && !(x > 0.0)) return cli_error("%s: %s must be positive, got '%s'", cmd, opt, s);
    if (sign == 0 && !(x >= 0.0))
        return cli_error("%s: %s must be non-negative, got '%s'", cmd, opt, s);
    *v = x;
    return 0;
}

static int parse_count(const char *cmd, const char *opt, const char *s, int *n) {
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || x < 1 || x > 1000000000L)
        return cli_error("%s: %s needs a positive integer, got '%s'", cmd, opt, s);
    *n = (int)x;
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

static const char *integ_name_i(int i) {
    return ld_integ_method_name((ld_integ_method)i);
}
static const char *form_name_i(int i) {
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

/* Parse argv for command cmds (CMD_RUN or CMD_CONV). Returns 0, 1 (help printed) or 2. */
static int parse_args(int argc, char **argv, int cmds, run_args *a) {
    memset(a, 0, sizeof *a);
    a->cmd = cmds == CMD_RUN ? "run" : "convergence";
    a->integ = a->form = a->la = -1;
    a->dt = a->t_end = a->rho_inf = a->atol = a->rtol = NAN;
    a->fac = a->facmin = a->facmax = NAN;
    const char *cmd = a->cmd;
    char list[128];
    for (int i = 0; i < argc; ++i) {
        const char *o = argv[i];
        if (o[0] != '-' || o[1] == '\0') {
            if (a->model) return cli_error("%s: unexpected argument '%s' (one MODEL only)", cmd, o);
            a->model = o;
            continue;
        }
        const opt_def *d = NULL;
        for (size_t k = 0; k < sizeof opt_defs / sizeof opt_defs[0]; ++k)
            if (strcmp(o, opt_defs[k].name) == 0) d = &opt_defs[k];
        if (!d || !(d->cmds & cmds)) return cli_error("%s: unknown option '%s'", cmd, o);
        const char *v = NULL;
        if (d->takes) {
            if (i + 1 >= argc) return cli_error("%s: %s needs a value", cmd, o);
            v = argv[++i];
        }
        int rc = 0;
        switch (d->id) {
        case O_INTEG:
            a->integ = ld_integ_method_find(v);
            name_list(list, sizeof list, LD_INTEG_COUNT, integ_name_i);
            if (a->integ < 0) return cli_error("%s: unknown integrator '%s' (%s)", cmd, v, list);
            break;
        case O_FORM:
            a->form = ld_formulation_find(v);
            name_list(list, sizeof list, LD_FORM_COUNT, form_name_i);
            if (a->form < 0) return cli_error("%s: unknown formulation '%s' (%s)", cmd, v, list);
            break;
        case O_LA:
            a->la = ld_la_kind_find(v);
            if (a->la < 0) return cli_error("%s: unknown linear solver '%s' (dense, klu)", cmd, v);
            break;
        case O_DT:
            rc = parse_num(cmd, o, v, 1, &a->dt);
            break;
        case O_TEND:
            rc = parse_num(cmd, o, v, -1, &a->t_end);
            break;
        case O_RHO:
            rc = parse_num(cmd, o, v, 0, &a->rho_inf);
            if (!rc && a->rho_inf > 1.0)
                return cli_error("%s: --rho-inf must be in [0, 1], got '%s'", cmd, v);
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
            a->adaptive = 1;
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
    return 0;
}

/* ------------------------------------------------------------------ models */

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_names(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

/* "free-top, heavy-top, ..." from LD_MODELS_DIR. */
static void shipped_models(char *buf, size_t cap) {
    static char names[64][LD_NAME_MAX];
    int n = 0;
    DIR *d = opendir(LD_MODELS_DIR);
    buf[0] = '\0';
    if (!d) {
        snprintf(buf, cap, "none found in %s", LD_MODELS_DIR);
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
    if (n == 0) snprintf(buf, cap, "none found in %s", LD_MODELS_DIR);
}

/* MODEL as a path, else models/MODEL.yaml, else LD_MODELS_DIR/MODEL.yaml. */
static int resolve_model(const char *cmd, const char *name, char *path, size_t cap) {
    if (is_file(name)) {
        snprintf(path, cap, "%s", name);
        return 0;
    }
    if (!strchr(name, '/')) {
        snprintf(path, cap, "models/%s.yaml", name);
        if (is_file(path)) return 0;
        snprintf(path, cap, "%s/%s.yaml", LD_MODELS_DIR, name);
        if (is_file(path)) return 0;
    }
    char list[1024];
    shipped_models(list, sizeof list);
    return cli_error("%s: '%s' is neither a model file nor a shipped model (shipped: %s)", cmd,
                     name, list);
}

/* Load the model and apply the command-line overrides to m->run; 0 or 2 (message printed).
 * *method receives the integrator. On failure nothing needs freeing. */
static int load_model(const run_args *a, char *path, size_t cap, ld_model *m, int *method) {
    const char *cmd = a->cmd;
    if (resolve_model(cmd, a->model, path, cap)) return 2;
    ld_model_error err;
    memset(&err, 0, sizeof err);
    int rc = ld_model_load(path, m, &err);
    if (rc) {
        if (err.msg[0]) return cli_error("%s", err.msg);
        return cli_error("%s: cannot read model '%s': %s", cmd, path, ld_strerror(rc));
    }
    ld_run_spec *r = &m->run;
    if (a->form >= 0) r->formulation = (ld_formulation)a->form;
    if (!isnan(a->dt)) r->dt = a->dt;
    if (!isnan(a->t_end)) r->t_end = a->t_end;
    if (!isnan(a->rho_inf)) r->rho_inf = a->rho_inf;
    if (a->adaptive) r->adaptive = 1;
    /* under step-size control --atol/--rtol are the local error tolerances */
    if (!isnan(a->atol)) *(r->adaptive ? &r->error_atol : &r->atol) = a->atol;
    if (!isnan(a->rtol)) *(r->adaptive ? &r->error_rtol : &r->rtol) = a->rtol;
    if (!isnan(a->fac)) r->fac = a->fac;
    if (!isnan(a->facmin)) r->facmin = a->facmin;
    if (!isnan(a->facmax)) r->facmax = a->facmax;
    if (a->max_iter > 0) r->max_iter = a->max_iter;
    if (a->every > 0) r->output_every = a->every;
    char list[128];
    name_list(list, sizeof list, LD_INTEG_COUNT, integ_name_i);
    *method = a->integ >= 0 ? a->integ : ld_integ_method_find(r->integrator);
    rc = 0;
    if (*method < 0)
        rc = cli_error("%s: unknown integrator '%.*s' in the integrator block (%s)", path,
                       LD_NAME_MAX - 1, r->integrator, list);
    else if (!(r->t_end > r->t_start))
        rc = cli_error("%s: the end time %.10g must be greater than the start time %.10g", cmd,
                       r->t_end, r->t_start);
    else if (!(r->dt > 0.0 && isfinite(r->dt)))
        rc = cli_error("%s: the step size must be positive, found %g", cmd, r->dt);
    else if (!(r->rho_inf >= 0.0 && r->rho_inf <= 1.0))
        rc = cli_error("%s: rho_inf must be in [0, 1], found %g", cmd, r->rho_inf);
    else if (r->adaptive && !ld_integ_method_has_estimate((ld_integ_method)*method))
        rc = cli_error("%s: step-size control needs an integrator with an error estimate "
                       "(tb3, tb3-paper), not %s",
                       cmd, ld_integ_method_name((ld_integ_method)*method));
    else if (r->adaptive && !(r->fac > 0.0 && r->fac <= 1.0 && r->facmin < 1.0 && r->facmax > 1.0 &&
                              isfinite(r->facmax)))
        rc = cli_error("%s: step-ratio factors need 0 < fac <= 1, 0 < facmin < 1 < facmax "
                       "(fac %g, facmin %g, facmax %g)",
                       cmd, r->fac, r->facmin, r->facmax);
    else if ((r->t_end - r->t_start) / r->dt > 1e12)
        rc = cli_error("%s: %g steps of %g to reach %g are too many", cmd,
                       (r->t_end - r->t_start) / r->dt, r->dt, r->t_end);
    if (rc) ld_model_free(m);
    return rc;
}

/* A file-name-safe base name: the model's name, else the file's without .yaml. */
static void model_base(const ld_model *m, const char *path, char *out, size_t cap) {
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

/* ------------------------------------------------------------------ the simulation */

typedef struct sim {
    /* configuration */
    const ld_model *m;
    const char *path; /* the model file (messages) */
    const char *cmd;
    ld_formulation form;
    ld_integ_options o;
    double t0, t1, dt;
    int every;
    FILE *csv;           /* optional */
    const char *vtk_dir; /* optional */
    char base[LD_NAME_MAX];
    int progress;
    /* run time */
    ld_system s;
    int compiled;
    double *q0, *v0, *phi;
    int *exact; /* per body: the model prescribes its rotation */
    ld_integ *it;
    FILE *series;
    long vtk_files;
    double last_row_t;
    int rows;
    /* results */
    int status; /* 0 or the status of the failing advance */
    char msg[320];
    double t, cpu, e0, e1, phimax, angmax;
    int est;                   /* the method estimates its error: h, error_estimate columns */
    double row_h, row_err;     /* the last step's size and estimate (for the row) */
    double hmin, hmax, errmax; /* over the accepted steps */
    int any_exact, io_error;
    char io_msg[PATH_CAP + 128];
    ld_integ_stats st;
    double *bx, *bq, *bw, *bv; /* final per-body state: 3, 4, 3, 3 per body */
} sim;

static double cpu_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return (double)clock() / CLOCKS_PER_SEC;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double wall_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sim_free(sim *S) {
    ld_integ_free(S->it);
    if (S->compiled) ld_model_system_free(&S->s);
    free(S->q0);
    free(S->v0);
    free(S->phi);
    free(S->exact);
    free(S->bx);
    S->it = NULL;
    S->compiled = 0;
    S->q0 = S->v0 = S->phi = S->bx = NULL;
    S->exact = NULL;
}

/* Compile, create and initialize. 0 or 2 (message printed; sim_free cleans up). */
static int sim_setup(sim *S) {
    const ld_model *m = S->m;
    int nb = m->nbodies;
    char why[256];
    if (ld_model_check_initial(m, why, sizeof why) != LD_OK)
        return cli_error("%s: inconsistent initial state: %s", S->path, why);
    int rc = ld_model_compile(m, S->form, &S->s, &S->q0, &S->v0);
    if (rc) return cli_error("%s: cannot compile the model: %s", S->path, ld_strerror(rc));
    S->compiled = 1;
    S->phi = calloc((size_t)S->s.m + 1, sizeof(double));
    S->exact = calloc((size_t)nb, sizeof(int));
    S->bx = calloc(13 * (size_t)nb, sizeof(double));
    if (!S->phi || !S->exact || !S->bx) return cli_error("%s: out of memory", S->cmd);
    S->bq = S->bx + 3 * nb;
    S->bw = S->bq + 4 * nb;
    S->bv = S->bw + 3 * nb;
    for (int b = 0; b < nb; ++b) {
        double q[4];
        S->exact[b] = ld_model_exact_rotation(m, b, S->t0, q) == LD_OK;
        S->any_exact |= S->exact[b];
    }
    const char *why_not = ld_integ_options_check(&S->s, &S->o);
    if (why_not)
        return cli_error("%s: %s cannot run this model: %s", S->path,
                         ld_integ_method_name(S->o.method), why_not);
    S->it = ld_integ_create(&S->s, &S->o, &rc);
    if (!S->it) return cli_error("%s: cannot create the integrator: %s", S->cmd, ld_strerror(rc));
    rc = ld_integ_init(S->it, S->t0, S->q0, S->v0);
    if (rc)
        return cli_error("%s: no consistent initial accelerations at t = %.10g: %s", S->path, S->t0,
                         ld_strerror(rc));
    return 0;
}

static double state_energy(const sim *S, double t, const double *q, const double *v) {
    double e = NAN;
    if (!S->s.ops.energy || S->s.ops.energy(&S->s, t, q, v, &e) != LD_OK) return NAN;
    return e;
}

/* max |Φ(t, q)|; 0 without constraints, NaN if Φ cannot be evaluated. */
static double state_phi(const sim *S, double t, const double *q) {
    if (S->s.m == 0) return 0.0;
    if (!S->s.ops.phi || S->s.ops.phi(&S->s, t, q, S->phi) != LD_OK) return NAN;
    double mx = 0.0;
    for (int i = 0; i < S->s.m; ++i) {
        if (isnan(S->phi[i])) return NAN;
        mx = fmax(mx, fabs(S->phi[i]));
    }
    return mx;
}

/* Geodesic error of body b's rotation against its exact one (the model prescribes it). */
static double angle_error(const sim *S, int b, double t, const double quat[4]) {
    double qe[4];
    if (ld_model_exact_rotation(S->m, b, t, qe) != LD_OK) return NAN;
    return ld_quat_angle(qe, quat);
}

/* Update the running maxima with the state at t (every step). */
static void sim_measure(sim *S, double t, const double *q, const double *v) {
    double ph = state_phi(S, t, q);
    S->phimax = (isnan(ph) || isnan(S->phimax)) ? (double)NAN : fmax(S->phimax, ph);
    for (int b = 0; S->any_exact && b < S->m->nbodies; ++b) {
        if (!S->exact[b]) continue;
        double x[3], qq[4], w[3], xd[3];
        ld_model_body_state(&S->s, b, q, v, x, qq, w, xd);
        double e = angle_error(S, b, t, qq);
        S->angmax = (isnan(e) || isnan(S->angmax)) ? (double)NAN : fmax(S->angmax, e);
    }
}

static void io_fail(sim *S, const char *what, const char *name) {
    if (S->io_error) return;
    S->io_error = 1;
    snprintf(S->io_msg, sizeof S->io_msg, "writing %s '%s' failed: %s", what, name,
             strerror(errno));
}

static void csv_header(sim *S) {
    static const char *const cols[13] = {"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                                         "wx", "wy", "wz", "vx", "vy", "vz"};
    fputs("t", S->csv);
    for (int b = 0; b < S->m->nbodies; ++b)
        for (int c = 0; c < 13; ++c) fprintf(S->csv, ",%s.%s", S->m->bodies[b].name, cols[c]);
    fputs(",energy,constraint_residual", S->csv);
    for (int b = 0; b < S->m->nbodies; ++b)
        if (S->exact[b]) fprintf(S->csv, ",%s.angle_error", S->m->bodies[b].name);
    if (S->est) fputs(",h,error_estimate", S->csv);
    fputc('\n', S->csv);
}

static void vtk_vectors(FILE *f, const char *name, const double *v, int n) {
    fprintf(f, "VECTORS %s double\n", name);
    for (int i = 0; i < n; ++i)
        fprintf(f, "%.17g %.17g %.17g\n", v[3 * i], v[3 * i + 1], v[3 * i + 2]);
}

/* One legacy-VTK POLYDATA file: a vertex per body at its centre of mass, the body axes and
 * the velocity as point vectors; listed in the .vtk.series file. */
static void write_vtk(sim *S, double t, const double *q, const double *v) {
    int nb = S->m->nbodies;
    char name[PATH_CAP + LD_NAME_MAX + 32];
    snprintf(name, sizeof name, "%s/%s_%05ld.vtk", S->vtk_dir, S->base, S->vtk_files);
    FILE *f = fopen(name, "w");
    if (!f) {
        io_fail(S, "VTK file", name);
        return;
    }
    double *x = malloc(18 * (size_t)nb * sizeof(double));
    if (!x) {
        fclose(f);
        io_fail(S, "VTK file", name);
        return;
    }
    double *e1 = x + 3 * nb, *e2 = e1 + 3 * nb, *e3 = e2 + 3 * nb, *vel = e3 + 3 * nb,
           *om = vel + 3 * nb;
    for (int b = 0; b < nb; ++b) {
        double qq[4], w[3], R[9];
        ld_model_body_state(&S->s, b, q, v, x + 3 * b, qq, w, vel + 3 * b);
        ld_quat_to_mat(R, qq);
        for (int i = 0; i < 3; ++i) {
            e1[3 * b + i] = R[3 * i];
            e2[3 * b + i] = R[3 * i + 1];
            e3[3 * b + i] = R[3 * i + 2];
        }
        ld_quat_rotate(om + 3 * b, qq, w);
    }
    fprintf(f, "# vtk DataFile Version 3.0\n%s t = %.17g\nASCII\nDATASET POLYDATA\n", S->base, t);
    fprintf(f, "POINTS %d double\n", nb);
    for (int b = 0; b < nb; ++b)
        fprintf(f, "%.17g %.17g %.17g\n", x[3 * b], x[3 * b + 1], x[3 * b + 2]);
    fprintf(f, "VERTICES %d %d\n", nb, 2 * nb);
    for (int b = 0; b < nb; ++b) fprintf(f, "1 %d\n", b);
    fprintf(f, "POINT_DATA %d\n", nb);
    vtk_vectors(f, "e1", e1, nb);
    vtk_vectors(f, "e2", e2, nb);
    vtk_vectors(f, "e3", e3, nb);
    vtk_vectors(f, "velocity", vel, nb);
    vtk_vectors(f, "angular_velocity", om, nb);
    free(x);
    if (ferror(f) | fclose(f)) io_fail(S, "VTK file", name);
    if (S->series) {
        fprintf(S->series, "%s    {\"name\": \"%s_%05ld.vtk\", \"time\": %.17g}",
                S->vtk_files ? ",\n" : "", S->base, S->vtk_files, t);
    }
    S->vtk_files++;
}

/* One output row: CSV and VTK. */
static void write_row(sim *S, double t, const double *q, const double *v) {
    S->last_row_t = t;
    S->rows++;
    if (S->csv) {
        FILE *f = S->csv;
        int nb = S->m->nbodies;
        fprintf(f, "%.17g", t);
        for (int b = 0; b < nb; ++b) {
            double x[3], qq[4], w[3], xd[3];
            ld_model_body_state(&S->s, b, q, v, x, qq, w, xd);
            fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", x[0], x[1], x[2], qq[0], qq[1],
                    qq[2], qq[3]);
            fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", w[0], w[1], w[2], xd[0], xd[1],
                    xd[2]);
        }
        fprintf(f, ",%.17g,%.17g", state_energy(S, t, q, v), state_phi(S, t, q));
        for (int b = 0; b < nb; ++b) {
            if (!S->exact[b]) continue;
            double x[3], qq[4], w[3], xd[3];
            ld_model_body_state(&S->s, b, q, v, x, qq, w, xd);
            fprintf(f, ",%.17g", angle_error(S, b, t, qq));
        }
        if (S->est) fprintf(f, ",%.17g,%.17g", S->row_h, S->row_err);
        fputc('\n', f);
        if (ferror(f)) io_fail(S, "CSV file", "output");
    }
    if (S->vtk_dir) write_vtk(S, t, q, v);
}

/* "\r t = … / T  (… steps/s, … s to go)" at most five times a second. */
/* Returns the width of the line printed (0 if none). */
static int show_progress(const sim *S, double t, long steps, double wall0, double *next) {
    double now = wall_seconds();
    if (now < *next) return 0;
    *next = now + 0.2;
    double el = now - wall0, done = t - S->t0;
    double rate = el > 0.0 ? (double)steps / el : 0.0;
    double togo = done > 0.0 ? el * (S->t1 - t) / done : 0.0;
    int w = fprintf(stderr, "\r t = %-12.6g / %.6g  (%.0f steps/s, %.1f s to go)   ", t, S->t1,
                    rate, togo);
    fflush(stderr);
    return w > 0 ? w : 0;
}

/* Step n of nsteps: to the grid point n·dt (fixed steps) or one controlled step. */
static int sim_advance(sim *S, long n, long nsteps) {
    if (S->o.adaptive) return ld_integ_step_adaptive(S->it, S->t1);
    double target = n == nsteps ? S->t1 : S->t0 + (double)n * S->dt;
    return ld_integ_advance_to(S->it, target);
}

/* Step from t0 to t1; fills the results. Returns 0 or 3 (a step failed; S->msg says why). */
static int sim_run(sim *S) {
    ld_integ *it = S->it;
    const double *q = ld_integ_q(it), *v = ld_integ_v(it);
    double span = S->t1 - S->t0;
    long nsteps = (long)ceil(span / S->dt - 1e-9);
    if (nsteps < 1) nsteps = 1;
    S->phimax = 0.0;
    S->angmax = 0.0;
    S->hmin = INFINITY;
    S->hmax = S->errmax = 0.0;
    S->row_h = 0.0;
    S->row_err = NAN;
    S->e0 = state_energy(S, S->t0, q, v);
    sim_measure(S, S->t0, q, v);
    write_row(S, S->t0, q, v);
    double wall0 = wall_seconds(), next = wall0 + 0.2;
    int shown = 0;
    for (long n = 1; S->o.adaptive ? ld_integ_t(it) < S->t1 : n <= nsteps; ++n) {
        double c0 = cpu_seconds();
        int rc = sim_advance(S, n, nsteps);
        S->cpu += cpu_seconds() - c0;
        q = ld_integ_q(it);
        v = ld_integ_v(it);
        double t = ld_integ_t(it);
        if (rc) {
            const char *why = ld_integ_message(it);
            snprintf(S->msg, sizeof S->msg, "%s", why[0] ? why : ld_strerror(rc));
            S->status = rc;
            if (t != S->last_row_t) {
                sim_measure(S, t, q, v);
                write_row(S, t, q, v);
            }
            break;
        }
        S->row_h = ld_integ_last_h(it);
        S->row_err = ld_integ_last_error(it);
        S->hmin = fmin(S->hmin, S->row_h);
        S->hmax = fmax(S->hmax, S->row_h);
        S->errmax = fmax(S->errmax, S->row_err);
        sim_measure(S, t, q, v);
        if (n % S->every == 0 || t >= S->t1) write_row(S, t, q, v);
        if (S->progress) {
            int w = show_progress(S, t, n, wall0, &next);
            shown = w > shown ? w : shown;
        }
    }
    if (shown) {
        fprintf(stderr, "\r%*s\r", shown, "");
        fflush(stderr);
    }
    S->t = ld_integ_t(it);
    S->e1 = state_energy(S, S->t, q, v);
    ld_integ_get_stats(it, &S->st);
    int nb = S->m->nbodies;
    for (int b = 0; b < nb; ++b)
        ld_model_body_state(&S->s, b, q, v, S->bx + 3 * b, S->bq + 4 * b, S->bw + 3 * b,
                            S->bv + 3 * b);
    return S->status ? 3 : 0;
}

/* A sim from the model's (overridden) run block. */
static void sim_init(sim *S, const ld_model *m, const char *path, const char *cmd, int method,
                     int la) {
    memset(S, 0, sizeof *S);
    S->m = m;
    S->path = path;
    S->cmd = cmd;
    S->form = m->run.formulation;
    ld_integ_options_init(&S->o);
    S->o.method = (ld_integ_method)method;
    S->o.rho_inf = m->run.rho_inf;
    S->o.atol = m->run.atol;
    S->o.rtol = m->run.rtol;
    S->o.max_iter = m->run.max_iter;
    if (la >= 0) S->o.la = (ld_la_kind)la;
    S->o.adaptive = m->run.adaptive;
    if (S->o.adaptive) {
        S->o.err_atol = m->run.error_atol;
        S->o.err_rtol = m->run.error_rtol;
        S->o.fac = m->run.fac;
        S->o.facmin = m->run.facmin;
        S->o.facmax = m->run.facmax;
        S->o.h_init = m->run.dt;
        /* Newton converges well below the error tolerance */
        S->o.atol = fmin(S->o.atol, 1e-2 * S->o.err_atol);
        S->o.rtol = fmin(S->o.rtol, 1e-2 * S->o.err_rtol);
    }
    S->t0 = m->run.t_start;
    S->t1 = m->run.t_end;
    S->dt = m->run.dt;
    S->every = m->run.output_every > 0 ? m->run.output_every : 1;
    S->est = ld_integ_method_has_estimate(S->o.method);
}

/* ------------------------------------------------------------------ JSON helpers */

static void json_str(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", (unsigned)*p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void json_num(double v) {
    if (isfinite(v))
        printf("%.17g", v);
    else
        fputs("null", stdout);
}

static void json_vec(const double *v, int n) {
    putchar('[');
    for (int i = 0; i < n; ++i) {
        if (i) fputs(", ", stdout);
        json_num(v[i]);
    }
    putchar(']');
}

/* ------------------------------------------------------------------ liedyn run */

/* Is prog an executable on PATH? */
static int on_path(const char *prog) {
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    char buf[PATH_CAP];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && n + strlen(prog) + 2 < sizeof buf) {
            memcpy(buf, path, n);
            buf[n] = '/';
            strcpy(buf + n + 1, prog);
            if (is_file(buf) && access(buf, X_OK) == 0) return 1;
        }
        path += n;
        if (*path == ':') ++path;
    }
    return 0;
}

/* mkdir -p; 0 or -1 (errno set). */
static int make_dirs(const char *dir) {
    char buf[PATH_CAP];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        struct stat st;
        if (stat(buf, &st) != 0) {
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        } else if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return -1;
        }
        buf[i] = c;
    }
    return 0;
}

/* s as a gnuplot single-quoted string (quotes doubled). */
static void gp_quoted(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; ++s) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* Plot the centre-of-mass path of the first body: x–y and z(t). 0 or 2. */
static int plot_run(const char *csv, const char *png, const ld_model *m) {
    FILE *gp = popen("gnuplot", "w");
    if (!gp) return cli_error("run: cannot start gnuplot: %s", strerror(errno));
    const char *body = m->bodies[0].name;
    fputs("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo size 1200,520 noenhanced\n"
          "} else {\n"
          "  set terminal png size 1200,520 noenhanced\n"
          "}\n",
          gp);
    fputs("set output ", gp);
    gp_quoted(gp, png);
    fputs("\nset datafile separator ','\nset key autotitle columnheader\nset grid\n"
          "set multiplot layout 1,2 title ",
          gp);
    char title[3 * LD_NAME_MAX];
    snprintf(title, sizeof title, "%s: centre of mass of %s", m->name, body);
    gp_quoted(gp, title);
    fputs("\nset xlabel 'x [m]'\nset ylabel 'y [m]'\nset size ratio -1\nplot ", gp);
    gp_quoted(gp, csv);
    fputs(" using 2:3 with lines notitle\nset size noratio\nset xlabel 't [s]'\n"
          "set ylabel 'z [m]'\nplot ",
          gp);
    gp_quoted(gp, csv);
    fputs(" using 1:4 with lines notitle\nunset multiplot\n", gp);
    int st = pclose(gp);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return cli_error("run: gnuplot could not write '%s' (status %d)", png,
                         st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}

/* A temporary CSV next to png for --plot without --out. NULL with a message on failure. */
static FILE *plot_temp_csv(const char *png, char *name, size_t cap) {
    const char *slash = strrchr(png, '/');
    int dlen = slash ? (int)(slash - png) : 1;
    snprintf(name, cap, "%.*s/.liedyn-plot-XXXXXX", dlen, slash ? png : ".");
    int fd = mkstemp(name);
    if (fd < 0) {
        cli_error("run: cannot create a temporary file next to '%s': %s", png, strerror(errno));
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        cli_error("run: cannot write '%s': %s", name, strerror(errno));
        close(fd);
        unlink(name);
    }
    return f;
}

static void print_json(const sim *S, const ld_model *m, const char *base) {
    int nb = m->nbodies;
    printf("{\"model\": ");
    json_str(base);
    printf(", \"integrator\": \"%s\", \"formulation\": \"%s\", \"la\": \"%s\", ",
           ld_integ_method_name(S->o.method), ld_formulation_name(S->form),
           ld_la_kind_name(S->o.la));
    printf("\"dt\": ");
    json_num(S->dt);
    printf(", \"t_start\": ");
    json_num(S->t0);
    printf(", \"t_end\": ");
    json_num(S->t1);
    if (S->o.method == LD_INTEG_GENALPHA) {
        printf(", \"rho_inf\": ");
        json_num(S->o.rho_inf);
    }
    if (S->est) {
        printf(", \"adaptive\": %s", S->o.adaptive ? "true" : "false");
        if (S->o.adaptive) {
            printf(", \"error_atol\": ");
            json_num(S->o.err_atol);
            printf(", \"error_rtol\": ");
            json_num(S->o.err_rtol);
        }
        printf(", \"h_min\": ");
        json_num(S->st.steps > 0 ? S->hmin : 0.0);
        printf(", \"h_max\": ");
        json_num(S->hmax);
        printf(", \"max_error_estimate\": ");
        json_num(S->errmax);
    }
    printf(", \"status\": \"%s\", ", S->status ? "failed" : "ok");
    if (S->status) {
        printf("\"error\": ");
        json_str(S->msg);
        printf(", ");
    }
    printf("\"t\": ");
    json_num(S->t);
    printf(", \"steps\": %ld, \"newton_iterations\": %ld, \"rejected\": %ld, ", S->st.steps,
           S->st.newton_iterations, S->st.rejected);
    printf("\"cpu_s\": %.10g, \"energy\": ", S->cpu);
    json_num(S->e1);
    printf(", \"energy_initial\": ");
    json_num(S->e0);
    printf(", \"constraint_residual\": ");
    json_num(S->phimax);
    if (S->any_exact) {
        printf(", \"max_angle_error\": ");
        json_num(S->angmax);
    }
    printf(", \"bodies\": [");
    for (int b = 0; b < nb; ++b) {
        printf("%s{\"name\": ", b ? ", " : "");
        json_str(m->bodies[b].name);
        printf(", \"x\": ");
        json_vec(S->bx + 3 * b, 3);
        printf(", \"q\": ");
        json_vec(S->bq + 4 * b, 4);
        printf(", \"omega\": ");
        json_vec(S->bw + 3 * b, 3);
        printf(", \"v\": ");
        json_vec(S->bv + 3 * b, 3);
        printf("}");
    }
    printf("]}\n");
}

static void print_summary(const sim *S, const char *base, const run_args *a) {
    printf("%s: %s on %s, dt = %.6g, t = %.6g .. %.6g: %s at t = %.10g\n", base,
           ld_integ_method_name(S->o.method), ld_formulation_name(S->form), S->dt, S->t0, S->t1,
           S->status ? "FAILED" : "ok", S->t);
    printf("  %ld steps, %.3g Newton iterations/step, %ld rejected, cpu %.3g s\n", S->st.steps,
           S->st.steps > 0 ? (double)S->st.newton_iterations / (double)S->st.steps : 0.0,
           S->st.rejected, S->cpu);
    if (S->est && S->st.steps > 0)
        printf("  %s steps h = %.3g .. %.3g, max error estimate %.3g%s\n",
               S->o.adaptive ? "controlled" : "fixed", S->hmin, S->hmax, S->errmax,
               S->o.adaptive ? " (tolerance 1)" : "");
    double de = S->e1 - S->e0;
    printf("  energy %.10g -> %.10g (drift %.3e", S->e0, S->e1, de);
    if (S->e0 != 0.0 && isfinite(S->e0)) printf(", relative %.3e", de / fabs(S->e0));
    printf(")\n  max |Phi| %.3e", S->phimax);
    if (S->any_exact) printf(", max angle error %.3e rad", S->angmax);
    printf("\n");
    if (a->out) printf("  csv: %s (%d rows)\n", a->out, S->rows);
    if (a->vtk) printf("  vtk: %s/%s_*.vtk, %s/%s.vtk.series\n", a->vtk, base, a->vtk, base);
    if (a->plot) printf("  plot: %s\n", a->plot);
}

int cli_run(int argc, char **argv) {
    run_args a;
    int rc = parse_args(argc, argv, CMD_RUN, &a);
    if (rc) return rc == 1 ? 0 : 2;
    if (a.plot && !on_path("gnuplot"))
        return cli_error("--plot needs gnuplot (apt-get install gnuplot-nox)");
    char path[PATH_CAP];
    ld_model m;
    int method;
    if (load_model(&a, path, sizeof path, &m, &method)) return 2;
    sim S;
    sim_init(&S, &m, path, "run", method, a.la);
    model_base(&m, path, S.base, sizeof S.base);
    char tmp_csv[PATH_CAP] = "";
    char series_name[PATH_CAP + LD_NAME_MAX + 32] = "";
    rc = sim_setup(&S);
    if (!rc && a.vtk) {
        S.vtk_dir = a.vtk;
        snprintf(series_name, sizeof series_name, "%s/%s.vtk.series", a.vtk, S.base);
        if (make_dirs(a.vtk) != 0)
            rc = cli_error("run: cannot create directory '%s': %s", a.vtk, strerror(errno));
        else if (!(S.series = fopen(series_name, "w")))
            rc = cli_error("run: cannot write '%s': %s", series_name, strerror(errno));
        else
            fputs("{\n  \"file-series-version\": \"1.0\",\n  \"files\": [\n", S.series);
    }
    if (!rc && a.out) {
        S.csv = fopen(a.out, "w");
        if (!S.csv) rc = cli_error("run: cannot write '%s': %s", a.out, strerror(errno));
    } else if (!rc && a.plot) {
        S.csv = plot_temp_csv(a.plot, tmp_csv, sizeof tmp_csv);
        if (!S.csv) rc = 2;
    }
    if (rc) {
        if (S.series) {
            fclose(S.series);
            unlink(series_name);
        }
        sim_free(&S);
        ld_model_free(&m);
        return 2;
    }
    if (S.csv) csv_header(&S);
    S.progress = !a.quiet && !a.json && isatty(2);
    int run_rc = sim_run(&S);
    if (S.csv && (ferror(S.csv) | fclose(S.csv))) io_fail(&S, "CSV file", a.out ? a.out : tmp_csv);
    if (S.series) {
        fputs("\n  ]\n}\n", S.series);
        if (ferror(S.series) | fclose(S.series)) io_fail(&S, "series file", series_name);
    }
    if (a.json)
        print_json(&S, &m, S.base);
    else
        print_summary(&S, S.base, &a);
    fflush(stdout);
    int plot_rc = 0;
    if (a.plot && !S.io_error) plot_rc = plot_run(a.out ? a.out : tmp_csv, a.plot, &m);
    if (tmp_csv[0]) unlink(tmp_csv);
    if (run_rc) cli_error("run failed at t = %.10g: %s", S.t, S.msg);
    int io = S.io_error;
    if (io && !run_rc) cli_error("run: %s", S.io_msg);
    sim_free(&S);
    ld_model_free(&m);
    if (run_rc) return 3;
    return io || plot_rc ? 2 : 0;
}

/* ------------------------------------------------------------------ liedyn convergence */

/* The row t = T (to 1e-9) of a CSV from liedyn run --out: per body x (3) and q (4). */
static int read_ref_csv(const char *path, const ld_model *m, double T, double *x, double *q) {
    FILE *f = fopen(path, "r");
    if (!f) return cli_error("convergence: cannot open '%s': %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int nb = m->nbodies, rc = 0, found = 0, *col = NULL, ncols = 0;
    double *row = NULL;
    ssize_t len = getline(&line, &cap, f);
    if (len <= 0) {
        rc = cli_error("convergence: '%s' is empty", path);
        goto done;
    }
    /* Header: count the columns, find BODY.x … BODY.qz. */
    for (ssize_t i = 0; i < len; ++i)
        if (line[i] == ',') ++ncols;
    ++ncols;
    col = malloc(7 * (size_t)nb * sizeof(int));
    row = malloc((size_t)ncols * sizeof(double));
    if (!col || !row) {
        rc = cli_error("convergence: out of memory");
        goto done;
    }
    static const char *const names[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    for (int b = 0; b < nb; ++b)
        for (int c = 0; c < 7; ++c) {
            char want[LD_NAME_MAX + 8];
            snprintf(want, sizeof want, "%s.%s", m->bodies[b].name, names[c]);
            size_t wl = strlen(want);
            col[7 * b + c] = -1;
            const char *p = line;
            for (int k = 0; k < ncols; ++k) {
                size_t n = strcspn(p, ",\r\n");
                if (n == wl && strncmp(p, want, wl) == 0) col[7 * b + c] = k;
                p += n;
                if (*p == ',') ++p;
            }
            if (col[7 * b + c] < 0) {
                rc = cli_error("convergence: '%s' has no column '%s' (use a CSV written by "
                               "'liedyn run --out' for this model)",
                               path, want);
                goto done;
            }
        }
    int lineno = 1;
    while (!found && (len = getline(&line, &cap, f)) > 0) {
        ++lineno;
        const char *p = line;
        int k = 0;
        for (; k < ncols; ++k) {
            char *end;
            row[k] = strtod(p, &end);
            if (end == p) break;
            p = end;
            if (*p == ',') ++p;
        }
        if (k < ncols) {
            rc = cli_error("convergence: %s:%d: expected %d numbers", path, lineno, ncols);
            goto done;
        }
        if (fabs(row[0] - T) <= 1e-9) found = 1;
    }
    if (!found) {
        rc = cli_error("convergence: '%s' has no row at t = %.10g (to 1e-9)", path, T);
        goto done;
    }
    for (int b = 0; b < nb; ++b) {
        for (int c = 0; c < 3; ++c) x[3 * b + c] = row[col[7 * b + c]];
        for (int c = 0; c < 4; ++c) q[4 * b + c] = row[col[7 * b + 3 + c]];
    }
done:
    free(line);
    free(col);
    free(row);
    fclose(f);
    return rc;
}

/* One run of the study at step h; final x, q per body into x, q. 0, 2 or 3 (message printed).
 */
static int conv_run(const ld_model *m, const char *path, int method, int la, double h, double *x,
                    double *q, long *steps, long *iters) {
    sim S;
    sim_init(&S, m, path, "convergence", method, la);
    S.dt = h;
    S.every = 1 << 30;
    int rc = sim_setup(&S);
    if (!rc) rc = sim_run(&S);
    if (rc == 3)
        cli_error("convergence: the run at dt = %.6g failed at t = %.10g: %s", h, S.t, S.msg);
    if (!rc) {
        memcpy(x, S.bx, 3 * (size_t)m->nbodies * sizeof(double));
        memcpy(q, S.bq, 4 * (size_t)m->nbodies * sizeof(double));
        *steps = S.st.steps;
        *iters = S.st.newton_iterations;
    }
    sim_free(&S);
    return rc;
}

static double order_of(double e0, double e1, double h0, double h1) {
    if (!(e0 > 0.0) || !(e1 > 0.0) || !isfinite(e0) || !isfinite(e1)) return NAN;
    return log(e0 / e1) / log(h0 / h1);
}

int cli_convergence(int argc, char **argv) {
    run_args a;
    int rc = parse_args(argc, argv, CMD_CONV, &a);
    if (rc) return rc == 1 ? 0 : 2;
    char path[PATH_CAP];
    ld_model m;
    int method;
    if (load_model(&a, path, sizeof path, &m, &method)) return 2;
    int nb = m.nbodies, nh = a.ndt;
    double T = m.run.t_end, hmin = a.dts[0];
    for (int i = 1; i < nh; ++i) hmin = fmin(hmin, a.dts[i]);
    double *xr = calloc(14 * (size_t)nb, sizeof(double));
    double *res = calloc(4 * (size_t)nh, sizeof(double));
    long cnt[2 * MAX_DT_LIST];
    if (!xr || !res) {
        free(xr);
        free(res);
        ld_model_free(&m);
        return cli_error("convergence: out of memory");
    }
    double *qr = xr + 3 * nb, *x = qr + 4 * nb, *q = x + 3 * nb;
    double *rot = res, *pos = res + nh, *rord = pos + nh, *pord = rord + nh;
    int *exact = calloc((size_t)nb, sizeof(int)), any_exact = 0;
    double h_ref = hmin / 16.0;
    long ref_steps = 0, ref_iters = 0;
    if (!exact) rc = cli_error("convergence: out of memory");
    for (int b = 0; !rc && b < nb; ++b) {
        double qe[4];
        exact[b] = !a.ref && ld_model_exact_rotation(&m, b, T, qe) == LD_OK;
        any_exact |= exact[b];
    }
    if (!rc && a.ref)
        rc = read_ref_csv(a.ref, &m, T, xr, qr);
    else if (!rc)
        rc = conv_run(&m, path, method, a.la, h_ref, xr, qr, &ref_steps, &ref_iters);
    for (int b = 0; !rc && b < nb; ++b)
        if (exact[b]) ld_model_exact_rotation(&m, b, T, qr + 4 * b);
    for (int i = 0; !rc && i < nh; ++i) {
        rc = conv_run(&m, path, method, a.la, a.dts[i], x, q, &cnt[2 * i], &cnt[2 * i + 1]);
        if (rc) break;
        rot[i] = pos[i] = 0.0;
        for (int b = 0; b < nb; ++b) {
            const double *d0 = x + 3 * b, *d1 = xr + 3 * b;
            double dx = d0[0] - d1[0], dy = d0[1] - d1[1], dz = d0[2] - d1[2];
            rot[i] = fmax(rot[i], ld_quat_angle(qr + 4 * b, q + 4 * b));
            pos[i] = fmax(pos[i], sqrt(dx * dx + dy * dy + dz * dz));
        }
    }
    if (rc) {
        free(exact);
        free(xr);
        free(res);
        ld_model_free(&m);
        return rc;
    }
    for (int i = 0; i + 1 < nh; ++i) {
        rord[i] = order_of(rot[i], rot[i + 1], a.dts[i], a.dts[i + 1]);
        pord[i] = order_of(pos[i], pos[i + 1], a.dts[i], a.dts[i + 1]);
    }
    char base[LD_NAME_MAX], refdesc[PATH_CAP + 64];
    model_base(&m, path, base, sizeof base);
    if (a.ref)
        snprintf(refdesc, sizeof refdesc, "the row t = %.10g of %s", T, a.ref);
    else
        snprintf(refdesc, sizeof refdesc, "%sa run at dt = %.6g",
                 any_exact ? "the exact rotation; positions: " : "", h_ref);
    const char *integ = ld_integ_method_name((ld_integ_method)method);
    const char *form = ld_formulation_name(m.run.formulation);
    if (a.json) {
        printf("{\"model\": ");
        json_str(base);
        printf(", \"integrator\": \"%s\", \"formulation\": \"%s\", \"t_end\": ", integ, form);
        json_num(T);
        printf(", \"reference\": \"%s\", ", a.ref ? "file" : any_exact ? "exact" : "run");
        if (!a.ref) {
            printf("\"dt_ref\": ");
            json_num(h_ref);
            printf(", ");
        }
        printf("\"dt\": ");
        json_vec(a.dts, nh);
        printf(", \"rot_error\": ");
        json_vec(rot, nh);
        printf(", \"pos_error\": ");
        json_vec(pos, nh);
        printf(", \"rot_order\": ");
        json_vec(rord, nh - 1);
        printf(", \"pos_order\": ");
        json_vec(pord, nh - 1);
        printf(", \"steps\": [");
        for (int i = 0; i < nh; ++i) printf("%s%ld", i ? ", " : "", cnt[2 * i]);
        printf("], \"newton_iterations\": [");
        for (int i = 0; i < nh; ++i) printf("%s%ld", i ? ", " : "", cnt[2 * i + 1]);
        printf("]}\n");
    } else {
        printf("%s: %s on %s, errors at t = %.10g against %s\n", base, integ, form, T, refdesc);
        printf("  %12s  %12s  %6s  %12s  %6s  %11s\n", "dt", "rot error", "order", "pos error",
               "order", "Newton/step");
        for (int i = 0; i < nh; ++i) {
            char ro[16] = "-", po[16] = "-";
            if (i == 0) ro[0] = po[0] = '\0';
            if (i > 0) {
                if (isfinite(rord[i - 1])) snprintf(ro, sizeof ro, "%.3f", rord[i - 1]);
                if (isfinite(pord[i - 1])) snprintf(po, sizeof po, "%.3f", pord[i - 1]);
            }
            printf("  %12.6g  %12.4e  %6s  %12.4e  %6s  %11.2f\n", a.dts[i], rot[i], ro, pos[i], po,
                   cnt[2 * i] > 0 ? (double)cnt[2 * i + 1] / (double)cnt[2 * i] : 0.0);
        }
    }
    free(exact);
    free(xr);
    free(res);
    ld_model_free(&m);
    return 0;
}

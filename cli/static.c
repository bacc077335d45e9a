/*
 * liedyn static — the static equilibrium of a model under its loads at a given time, by Newton
 * with load stepping (liedyn/statics.h). Reference: docs/beam.md, docs/cli-run.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "liedyn/liedyn.h"
#include "liedyn/statics.h"
#include "sim.h"
#include "../src/core/oom.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: liedyn static MODEL [options]\n"
            "  MODEL             a YAML model file, or the name of a shipped model\n"
            "  --time T          time at which the loads are evaluated (default: the model's\n"
            "                    end time)\n"
            "  --steps N         load steps: the loads grow in N equal steps, a step whose\n"
            "                    Newton iteration fails is halved (default 10)\n"
            "  --formulation F   so3xr3 se3 s3xr3 s3sdr3 so3xr3-spatial s3xr3-spatial euler tree\n"
            "                    (default: the model's)\n"
            "  --tol X           residual tolerance relative to the loads (default 1e-10)\n"
            "  --out FILE.csv    the equilibrium as one row: t, then per body\n"
            "                    x,y,z,qw,qx,qy,qz\n"
            "  --json            print one JSON object with the result\n"
            "exit status: 0 ok, 2 bad usage or input, 3 no equilibrium found, 4 output could\n"
            "not be written\n");
}

typedef struct static_args {
    const char *model, *out;
    double time, tol;
    int steps, form, json;
} static_args;

/* The value after option argv[*i] (also --opt=value). */
static const char *value(int argc, char **argv, int *i, const char *eq) {
    if (eq) return eq + 1;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

static int parse(int argc, char **argv, static_args *a) {
    memset(a, 0, sizeof *a);
    a->time = NAN, a->tol = 1e-10, a->steps = 10, a->form = -1;
    for (int i = 0; i < argc; ++i) {
        const char *arg = argv[i], *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        char *end = NULL;
        if (arg[0] != '-') {
            if (a->model) return cli_error("static: more than one model ('%s')", arg);
            a->model = arg;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return -1;
        }
        if (strcmp(arg, "--json") == 0) {
            a->json = 1;
            continue;
        }
        const char *v = value(argc, argv, &i, eq);
        if (!v) return cli_error("static: %.*s needs a value", (int)len, arg);
        if (strncmp(arg, "--time", len) == 0 && len == 6) {
            a->time = strtod(v, &end);
            if (!end || *end || !isfinite(a->time)) return cli_error("static: bad --time '%s'", v);
        } else if (strncmp(arg, "--tol", len) == 0 && len == 5) {
            a->tol = strtod(v, &end);
            if (!end || *end || !(a->tol > 0.0)) return cli_error("static: bad --tol '%s'", v);
        } else if (strncmp(arg, "--steps", len) == 0 && len == 7) {
            long n = strtol(v, &end, 10);
            if (!end || *end || n < 1 || n > 1000000)
                return cli_error("static: --steps must be 1 ... 1000000, found '%s'", v);
            a->steps = (int)n;
        } else if (strncmp(arg, "--formulation", len) == 0 && len == 13) {
            a->form = ld_formulation_find(v);
            if (a->form < 0)
                return cli_error("static: unknown formulation '%s' (so3xr3 se3 s3xr3 s3sdr3 "
                                 "so3xr3-spatial s3xr3-spatial euler tree)",
                                 v);
        } else if (strncmp(arg, "--out", len) == 0 && len == 5) {
            a->out = v;
        } else {
            return cli_error("static: unknown option '%.*s' (see 'liedyn static --help')", (int)len,
                             arg);
        }
    }
    if (!a->model) return cli_error("static: no model given (see 'liedyn static --help')");
    return 0;
}

/* The equilibrium row: t, then per body x, q. */
static int write_csv(const char *path, const ld_model *m, const ld_system *s, double t,
                     const double *q, const double *v) {
    FILE *f = fopen(path, "w");
    if (!f) return cli_error("static: cannot write '%s'", path);
    fprintf(f, "t");
    static const char *const cols[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    for (int b = 0; b < m->nbodies; ++b) ld_io_csv_put_names(f, m->bodies[b].name, cols, 7);
    fprintf(f, "\n%.17g", t);
    for (int b = 0; b < m->nbodies; ++b) {
        double x[3], qq[4], om[3], xd[3];
        (void)ld_model_body_state(s, b, q, v, x, qq, om, xd);
        fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", x[0], x[1], x[2], qq[0], qq[1],
                qq[2], qq[3]);
    }
    fprintf(f, "\n");
    if (fclose(f) != 0) {
        cli_error("static: writing '%s' failed", path);
        return 4;
    }
    return 0;
}

/* The body that moved most from its start, and how far. */
static int farthest(const ld_model *m, const ld_system *s, const double *q, const double *v,
                    double *dist) {
    int who = 0;
    *dist = -1.0;
    for (int b = 0; b < m->nbodies; ++b) {
        double x[3], qq[4], om[3], xd[3], d = 0.0;
        (void)ld_model_body_state(s, b, q, v, x, qq, om, xd);
        for (int i = 0; i < 3; ++i) d += (x[i] - m->bodies[b].x[i]) * (x[i] - m->bodies[b].x[i]);
        if (sqrt(d) > *dist) *dist = sqrt(d), who = b;
    }
    return who;
}

int cli_static(int argc, char **argv) {
    static_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    run_args ra;
    memset(&ra, 0, sizeof ra);
    ra.cmd = "static", ra.model = a.model, ra.integ = -1, ra.form = a.form, ra.la = -1;
    ra.dt = ra.t_end = ra.atol = ra.rtol = ra.fac = ra.facmin = ra.facmax = NAN;
    ra.checkpoint_every = NAN;
    char path[PATH_CAP], msg[512];
    ld_model m;
    int method;
    if ((rc = load_model(&ra, path, sizeof path, &m, &method))) return rc;
    double t = isnan(a.time) ? m.run.t_end : a.time;
    ld_system s;
    double *q = NULL, *v = NULL, *lam = NULL;
    rc = ld_model_compile_msg(&m, m.run.formulation, &s, &q, &v, msg, sizeof msg);
    if (rc) {
        cli_error("%s: cannot compile the model: %s", path, msg);
        ld_model_free(&m);
        return 2;
    }
    memset(v, 0, (size_t)s.k * sizeof *v);
    lam = ld_xcalloc((size_t)(s.m > 0 ? s.m : 1), sizeof *lam, "the multipliers");
    ld_static_options o;
    ld_static_options_init(&o);
    o.steps = a.steps, o.tol = a.tol;
    ld_static_stats st;
    double c0 = cpu_seconds();
    int src = lam ? ld_static_solve(&s, t, q, lam, &o, &st, msg, sizeof msg)
                  : ld_oom_last(msg, sizeof msg);
    double cpu = cpu_seconds() - c0, dist;
    int who = farthest(&m, &s, q, v, &dist), exit_code = src ? 3 : 0;
    if (src) cli_error("%s: %s", path, msg[0] ? msg : ld_strerror(src));
    if (a.json) {
        printf("{\"model\": ");
        json_str(m.name);
        printf(", \"formulation\": ");
        json_str(ld_formulation_name(m.run.formulation));
        printf(", \"t\": %.17g, \"status\": ", t);
        json_str(src ? "failed" : "ok");
        printf(", \"load_steps\": %d, \"halvings\": %d, \"newton_iterations\": %ld, "
               "\"relaxed\": %s, \"residual\": %.6g, \"cpu_s\": %.6g, "
               "\"largest_displacement\": %.17g, \"largest_displacement_body\": ",
               st.steps, st.cuts, st.iterations, st.relaxed ? "true" : "false", st.residual, cpu,
               dist);
        json_str(m.bodies[who].name);
        printf("}\n");
    } else {
        printf("%s: static equilibrium at t = %g (%s): %s\n", m.name, t,
               ld_formulation_name(m.run.formulation), src ? "not found" : "found");
        if (st.relaxed) /* a mechanism: the loads could not be stepped in */
            printf("  settled by pseudo-transient continuation (the loads could not be stepped "
                   "in: a mechanism), %ld Newton iterations, residual %.3g, cpu %.3g s\n",
                   st.iterations, st.residual, cpu);
        else
            printf("  %d load steps (%d halvings), %ld Newton iterations, residual %.3g, cpu "
                   "%.3g s\n",
                   st.steps, st.cuts, st.iterations, st.residual, cpu);
        printf("  largest displacement %.10g m, of body '%s' from its initial position\n", dist,
               m.bodies[who].name);
    }
    if (!src && a.out) {
        int wr = write_csv(a.out, &m, &s, t, q, v);
        if (wr) exit_code = 4;
    }
    free(lam);
    free(q);
    free(v);
    ld_model_system_free(&s);
    ld_model_free(&m);
    if (cli_flush_stdout()) return 4;
    return exit_code;
}

/*
 * liedyn attitude — integrate orientation from angular velocity (analytic case or gyro CSV).
 * Exit codes: 0 ok, 2 bad usage or input, 3 the integration failed (the JSON/CSV written so
 * far stays valid and says where it stopped).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "rowfile.h"

typedef struct att_args {
    const char *case_name, *input, *out, *q0s;
    int method, param, frame, json, fixed, param_set, control_set;
    double dt, rtol, atol, t_end, hmin, hmax;
    long max_steps;
} att_args;

static void att_usage(FILE *f) {
    fprintf(f,
            "usage: liedyn attitude (--case NAME | --input FILE.csv [--q0 w,x,y,z]) [options]\n"
            "  --case NAME        analytic case: ex1 ex2 ex2-3d ex3 spin lin3\n"
            "  --input FILE       body-frame gyro samples 't,wx,wy,wz' (rad/s), linear in t\n"
            "  --q0 w,x,y,z       initial rotation for --input (default 1,0,0,0)\n"
            "  --method M         mpr mpq mpq-eq25 rk4 ode23 ode45 rkmk4 rkmk45 magnus4\n"
            "                     magnus6 magnus8 magnus8x2 (default mpq)\n"
            "  --param P          quat rotvec tanvec, for mpr rk4 ode23 ode45 (default quat)\n"
            "  --frame F          body (default) or spatial: the frame of the given omega\n"
            "  --dt H             fixed step (default: the case's, or the mean sample spacing);\n"
            "                     first step for adaptive methods (default automatic)\n"
            "  --fixed            run an adaptive method at the fixed step --dt\n"
            "  --rtol R --atol A  tolerances of adaptive methods (default 1e-3, 1e-6)\n"
            "  --hmin H --hmax H  step limits of adaptive methods\n"
            "  --max-steps N      give up after N step attempts\n"
            "  --t-end T          end time (default: the case's or the last sample's)\n"
            "  --out FILE.csv     write t,qw,qx,qy,qz[,angle_error] at every step\n"
            "  --json             print one JSON object with the run's results\n"
            "  --integrator M     the same as --method (the name 'liedyn run' uses)\n"
            "exit status: 0 ok, 2 bad usage or input, 3 the integration failed (the CSV\n"
            "written so far stays valid), 4 output could not be written\n");
}

/* Parse a finite number into *v; positive = 1: must be > 0, 0: ≥ 0, -1: any. */
static int parse_double(const char *opt, const char *s, double *v, int positive) {
    char *end;
    errno = 0;
    double x = s ? strtod(s, &end) : 0.0;
    if (!s || end == s || *end != '\0' || errno == ERANGE || !isfinite(x))
        return cli_error("attitude: %s needs a finite number, got '%s'", opt, s ? s : "");
    if ((positive == 1 && !(x > 0.0)) || (positive == 0 && !(x >= 0.0)))
        return cli_error("attitude: %s must be %s", opt, positive ? "positive" : "non-negative");
    *v = x;
    return 0;
}

static int parse_q0(const char *s, double q[4]) {
    const char *p = s;
    for (int i = 0; i < 4; ++i) {
        char *end;
        errno = 0;
        q[i] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(q[i]) || (i < 3 && *end != ',') ||
            (i == 3 && *end != '\0'))
            return cli_error("attitude: --q0 needs four numbers w,x,y,z, got '%s'", s);
        p = end + 1;
    }
    if (!(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] > 0.0))
        return cli_error("attitude: --q0 must not be zero");
    return 0;
}

/* Parse argv into a; returns 0 or 2 (message printed). */
static int parse_args(int argc, char **argv, att_args *a) {
    memset(a, 0, sizeof *a);
    a->method = LD_ATT_MPQ;
    a->t_end = NAN;
    for (int i = 0; i < argc; ++i) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0, takes = 1;
        if (!strcmp(o, "--json")) {
            a->json = 1;
            takes = 0;
        } else if (!strcmp(o, "--fixed")) {
            a->fixed = 1;
            takes = 0;
        } else if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            att_usage(stdout);
            return 1;
        } else if (!v) {
            return cli_error("attitude: unknown option '%s' or missing value", o);
        } else if (!strcmp(o, "--case")) {
            a->case_name = v;
        } else if (!strcmp(o, "--input")) {
            a->input = v;
        } else if (!strcmp(o, "--out")) {
            a->out = v;
        } else if (!strcmp(o, "--q0")) {
            a->q0s = v;
        } else if (!strcmp(o, "--method") || !strcmp(o, "--integrator")) {
            a->method = ld_att_method_find(v);
            if (a->method < 0) return cli_error("attitude: unknown method '%s'", v);
        } else if (!strcmp(o, "--param")) {
            a->param = ld_param_find(v);
            a->param_set = 1;
            if (a->param < 0)
                return cli_error("attitude: unknown parametrization '%s' (quat, rotvec, tanvec)",
                                 v);
        } else if (!strcmp(o, "--frame")) {
            if (!strcmp(v, "body"))
                a->frame = LD_FRAME_BODY;
            else if (!strcmp(v, "spatial"))
                a->frame = LD_FRAME_SPATIAL;
            else
                return cli_error("attitude: unknown frame '%s' (body, spatial)", v);
        } else if (!strcmp(o, "--dt")) {
            rc = parse_double(o, v, &a->dt, 1);
        } else if (!strcmp(o, "--rtol")) {
            rc = parse_double(o, v, &a->rtol, 1);
            a->control_set = 1;
        } else if (!strcmp(o, "--atol")) {
            rc = parse_double(o, v, &a->atol, 1);
            a->control_set = 1;
        } else if (!strcmp(o, "--t-end")) {
            rc = parse_double(o, v, &a->t_end, -1);
        } else if (!strcmp(o, "--hmin")) {
            rc = parse_double(o, v, &a->hmin, 0);
            a->control_set = 1;
        } else if (!strcmp(o, "--hmax")) {
            rc = parse_double(o, v, &a->hmax, 1);
            a->control_set = 1;
        } else if (!strcmp(o, "--max-steps")) {
            double n = 0.0;
            rc = parse_double(o, v, &n, 1);
            if (!rc && (n < 1 || n != floor(n) || n > 1e15))
                return cli_error("attitude: --max-steps needs a positive integer, got '%s'", v);
            a->max_steps = (long)n;
        } else {
            return cli_error("attitude: unknown option '%s'", o);
        }
        if (rc) return rc;
        i += takes;
    }
    if (!a->case_name == !a->input)
        return cli_error("attitude: give exactly one of --case NAME or --input FILE");
    if (a->q0s && !a->input) return cli_error("attitude: --q0 applies to --input only");
    if (a->param_set && !ld_att_method_has_param((ld_att_method)a->method))
        return cli_error("attitude: --param does not apply to method '%s'",
                         ld_att_method_name((ld_att_method)a->method));
    if (a->fixed && !ld_att_method_is_adaptive((ld_att_method)a->method))
        return cli_error("attitude: --fixed applies to adaptive methods only");
    if (a->control_set && (!ld_att_method_is_adaptive((ld_att_method)a->method) || a->fixed))
        return cli_error("attitude: --rtol, --atol, --hmin and --hmax apply to adaptive runs "
                         "(ode23, ode45, rkmk45 without --fixed) only");
    if (a->fixed && !(a->dt > 0.0)) return cli_error("attitude: --fixed needs --dt");
    return 0;
}

typedef struct att_sink {
    rowfile *csv;
    const ld_att_case *c;
    ld_att_metrics m;
    int write_error;
    ld_param param;
} att_sink;

/* Per output point: metrics against the exact solution, and one CSV row. */
static int att_sink_fn(const ld_attitude_point *pt, void *user) {
    att_sink *s = user;
    double err = NAN;
    if (s->c) {
        double qe[4], pe[4];
        ld_att_case_quat(s->c, pt->t, qe);
        ld_att_case_param(s->c, pt->t, s->param, pt->branch_reduced, pe);
        ld_att_metrics_add(&s->m, pt->t, pt->q, qe, pt->p, pe, pt->np);
        err = ld_quat_angle(qe, pt->q);
    }
    if (s->csv) {
        ld_io_rowfile_printf(s->csv, "%.17g,%.17g,%.17g,%.17g,%.17g", pt->t, pt->q[0], pt->q[1],
                             pt->q[2], pt->q[3]);
        if (s->c) ld_io_rowfile_printf(s->csv, ",%.6e", err);
        ld_io_rowfile_printf(s->csv, "\n");
        if (ld_io_rowfile_end_row(s->csv, 1) != 0) {
            s->write_error = 1;
            return LD_EIO;
        }
    }
    return 0;
}

static double cpu_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return (double)clock() / CLOCKS_PER_SEC;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void json_num(const char *key, double v, int comma) {
    if (isfinite(v))
        printf("\"%s\": %.10g%s", key, v, comma ? ", " : "");
    else
        printf("\"%s\": null%s", key, comma ? ", " : "");
}

int cli_attitude(int argc, char **argv) {
    att_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc == 1 ? 0 : 2;
    ld_attitude_problem pb;
    memset(&pb, 0, sizeof pb);
    ld_attitude_options o;
    ld_attitude_options_default(&o);
    o.method = (ld_att_method)a.method;
    o.param = (ld_param)a.param;
    o.fixed = a.fixed;
    o.error_rtol = a.rtol > 0 ? a.rtol : o.error_rtol;
    o.error_atol = a.atol > 0 ? a.atol : o.error_atol;
    o.h_min = a.hmin;
    o.h_max = a.hmax;
    o.max_steps = a.max_steps;
    pb.frame = (ld_frame)a.frame;
    const ld_att_case *c = NULL;
    ld_gyro *g = NULL;
    ld_att_case_omega_ctx cctx;
    if (a.case_name) {
        c = ld_att_case_find(a.case_name);
        if (!c)
            return cli_error("attitude: unknown case '%s' (ex1 ex2 ex2-3d ex3 spin lin3)",
                             a.case_name);
        cctx.c = c;
        cctx.frame = pb.frame;
        pb.omega = ld_att_case_omega_fn;
        pb.user = &cctx;
        pb.t0 = c->t0;
        pb.t1 = c->t1;
        ld_att_case_quat(c, c->t0, pb.q0);
    } else {
        char msg[512];
        if (ld_gyro_read(a.input, &g, msg, sizeof msg) != LD_OK) return cli_error("%s", msg);
        if (pb.frame != LD_FRAME_BODY) {
            ld_gyro_free(g);
            return cli_error(
                "attitude: gyro data are body-frame rates; --frame spatial applies to --case only");
        }
        pb.omega = ld_gyro_omega_fn;
        pb.user = g;
        pb.t0 = ld_gyro_t_first(g);
        pb.t1 = ld_gyro_t_last(g);
        pb.q0[0] = 1.0;
        if (a.q0s && parse_q0(a.q0s, pb.q0)) {
            ld_gyro_free(g);
            return 2;
        }
    }
    o.dt = a.dt > 0.0 ? a.dt : ld_attitude_dt_default(o.method, a.fixed, c, g);
    if (!isnan(a.t_end)) {
        if (!(a.t_end > pb.t0) || (g && a.t_end > pb.t1)) {
            ld_gyro_free(g);
            return cli_error("attitude: --t-end %.17g outside (%.17g, %.17g]", a.t_end, pb.t0,
                             g ? pb.t1 : (double)INFINITY);
        }
        pb.t1 = a.t_end;
    }
    att_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.c = c;
    sink.param = ld_att_method_has_param(o.method) ? o.param : LD_PARAM_QUAT;
    rowfile csv;
    if (a.out) {
        if (ld_io_rowfile_open(&csv, a.out) != 0) {
            ld_gyro_free(g);
            return cli_error("attitude: cannot write '%s': %s", a.out, strerror(errno));
        }
        sink.csv = &csv;
        ld_io_rowfile_printf(sink.csv, "t,qw,qx,qy,qz%s\n", c ? ",angle_error" : "");
        if (ld_io_rowfile_end_row(sink.csv, 0) != 0) sink.write_error = 1;
    }
    ld_att_metrics_init(&sink.m);
    ld_attitude_stats st;
    double cpu0 = cpu_seconds();
    rc = ld_attitude_integrate(&pb, &o, att_sink_fn, &sink, &st);
    double cpu = cpu_seconds() - cpu0;
    if (sink.csv && ld_io_rowfile_close(sink.csv) != 0) sink.write_error = 1;
    if (sink.write_error && rc == LD_EIO) rc = 0; /* reported as an output failure below */
    ld_gyro_free(g);
    double rl2[4];
    ld_att_metrics_rl2(&sink.m, rl2);
    int np = sink.m.np;
    if (a.json) {
        printf("{\"case\": \"%s\", \"method\": \"%s\", \"param\": \"%s\", \"frame\": \"%s\", ",
               c ? c->name : "input", ld_att_method_name(o.method),
               ld_att_method_has_param(o.method) ? ld_param_name(o.param) : "quat",
               pb.frame == LD_FRAME_BODY ? "body" : "spatial");
        printf("\"status\": \"%s\", ", rc ? "failed" : sink.write_error ? "output_failed" : "ok");
        if (rc) printf("\"error\": \"%s\", ", ld_strerror(rc));
        if (sink.csv) printf("\"csv_rows\": %ld, ", sink.csv->rows);
        if (sink.write_error) {
            printf("\"output_error\": ");
            json_str(sink.csv->err);
            printf(", ");
        }
        json_num("t_end", pb.t1, 1);
        json_num("t_end_reached", st.t_reached, 1);
        printf("\"steps\": %ld, \"rejected\": %ld, \"fevals\": %ld, ", st.steps, st.rejected,
               st.fevals);
        json_num("h_min", st.h_min_used, 1);
        json_num("h_max", st.h_max_used, 1);
        json_num("max_angle_error", c ? sink.m.max_angle : (double)NAN, 1);
        json_num("t_max_angle_error", c ? sink.m.t_max_angle : (double)NAN, 1);
        printf("\"rl2\": ");
        if (c) {
            printf("[");
            for (int k = 0; k < np; ++k) printf("%s%.6g", k ? ", " : "", rl2[k]);
            printf("], ");
        } else {
            printf("null, ");
        }
        printf("\"q_end\": [%.17g, %.17g, %.17g, %.17g], ", st.q_end[0], st.q_end[1], st.q_end[2],
               st.q_end[3]);
        json_num("cpu_s", cpu, 0);
        printf("}\n");
    } else {
        printf("%s %s%s%s: %s at t = %.10g (of %.10g), %ld steps, %ld rejected, %ld omega evals, "
               "cpu %.3g s\n",
               c ? c->name : a.input, ld_att_method_name(o.method),
               ld_att_method_has_param(o.method) ? "/" : "",
               ld_att_method_has_param(o.method) ? ld_param_name(o.param) : "",
               rc == 0 ? "ok" : "FAILED", st.t_reached, pb.t1, st.steps, st.rejected, st.fevals,
               cpu);
        if (c) {
            printf("  max geodesic error %.3e rad (at t = %.6g); RL2", sink.m.max_angle,
                   sink.m.t_max_angle);
            for (int k = 0; k < np; ++k) printf(" %.3e", rl2[k]);
            printf("\n");
        }
        printf("  q(end) = [%.15g, %.15g, %.15g, %.15g]\n", st.q_end[0], st.q_end[1], st.q_end[2],
               st.q_end[3]);
    }
    if (sink.write_error && !rc) {
        cli_error("attitude: %s", csv.err);
        return 4;
    }
    if (rc) {
        cli_error("attitude: integration failed at t = %.10g: %s", st.t_reached, ld_strerror(rc));
        return 3;
    }
    return 0;
}

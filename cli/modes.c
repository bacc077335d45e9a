/*
 * liedyn modes — the modes of a model about its static equilibrium: the equilibrium by Newton
 * with load stepping (liedyn/statics.h), the linearization with the constraints eliminated,
 * and the undamped or damped eigenvalues and shapes (liedyn/linearize.h). Reference:
 * docs/modes.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "liedyn/statics.h"
#include "modes.h"
#include "sim.h"
#include "../src/core/oom.h"

#define TWO_PI 6.283185307179586476925

static void usage(FILE *f) {
    fprintf(f, "usage: liedyn modes MODEL [options]\n"
               "  MODEL             a YAML model file, or the name of a shipped model\n"
               "  --count N         the N lowest modes (default 10; 0: all)\n"
               "  --damped          damped modes: eigenvalues of the first-order form with the\n"
               "                    damping dg/dv (default: undamped, K z = w^2 M z)\n"
               "  --csv FILE        one row per mode: frequency, eigenvalue, damping ratio, and\n"
               "                    per body the shape as centre-of-mass motion dx,dy,dz and\n"
               "                    rotation rx,ry,rz (spatial; real part)\n"
               "  --time T          time of the equilibrium's loads (default: the model's end\n"
               "                    time, as 'liedyn static')\n"
               "  --steps N         load steps of the static solve (default 10)\n"
               "  --no-static       linearize about the initial configuration as it is (a model\n"
               "                    that starts at its equilibrium; no static solve)\n"
               "  --no-loads        leave out the model's loads (its 'loads' list; gravity and\n"
               "                    the force elements stay): the modes of the unloaded model\n"
               "  --formulation F   so3xr3 se3 s3xr3 s3sdr3 so3xr3-spatial s3xr3-spatial euler "
               "(not tree)\n"
               "                    (default: the model's)\n"
               "  --sparse          the lowest undamped modes by subspace iteration with the\n"
               "                    sparse solver, joints kept as constraint rows of a saddle-\n"
               "                    point matrix: for large models (no k x k matrix); taken\n"
               "                    without asking for undamped modes from 2000 unknowns on\n"
               "  --shift S         with --sparse: a shift below the wanted w^2 (default 0)\n"
               "  --campbell A:B:N  a Campbell diagram instead: the damped modes of the model's\n"
               "                    initial motion, its velocities scaled so that its fastest\n"
               "                    body turns at N speeds from A to B rad/s, linearized in the\n"
               "                    bodies' own (turning) frames, followed by their shapes (MAC);\n"
               "                    --csv writes one row per speed\n"
               "  --plot FILE.png   with --campbell: the diagram drawn by gnuplot\n"
               "  --vtk DIR         each mode animated over one period as a VTK file series\n"
               "                    DIR/NAME_modeJ.vtk.series (ParaView; not with --campbell)\n"
               "  --html FILE       the modes animated in the browser viewer, one after another\n"
               "                    (mode J over two periods at t = 2 (J - 1) ... 2 J s; not\n"
               "                    with --campbell)\n"
               "The model is linearized about its static equilibrium (found as by 'liedyn\n"
               "static'), in the body-frame tangent increments of the formulation, with the\n"
               "joints eliminated by a basis of the motions they allow (docs/modes.md).\n"
               "exit status: 0 ok, 2 bad usage or input, 3 no equilibrium or no eigenvalues,\n"
               "4 output could not be written\n");
}

typedef struct modes_args {
    const char *model, *csv, *png, *vtk, *html;
    double time, from, to, shift;
    int count, steps, form, damped, sparse, nostatic, noloads, npts; /* npts > 0: --campbell */
} modes_args;

/* --campbell A:B:N. 0 or the usage error. */
static int parse_speeds(const char *v, modes_args *a) {
    char *end = NULL;
    a->from = strtod(v, &end);
    if (end && *end == ':') a->to = strtod(end + 1, &end);
    long n = end && *end == ':' ? strtol(end + 1, &end, 10) : 0;
    if (!end || *end || !isfinite(a->from) || !isfinite(a->to) || a->from < 0.0 ||
        a->to < a->from || n < 1 || n > 100000)
        return cli_error("modes: --campbell wants FROM:TO:N, speeds 0 <= FROM <= TO in rad/s and "
                         "1 <= N <= 100000, found '%s'",
                         v);
    a->npts = (int)n;
    return 0;
}

/* An integer option value in [lo, hi] into *out; 0 or the usage error. */
static int int_value(const char *opt, const char *v, long lo, long hi, int *out) {
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (!end || *end || n < lo || n > hi)
        return cli_error("modes: %s must be %ld ... %ld, found '%s'", opt, lo, hi, v);
    *out = (int)n;
    return 0;
}

/* One option with a value (argv[*i] its name, the value after it). */
static int parse_value(int argc, char **argv, int *i, modes_args *a) {
    const char *arg = argv[*i], *v = *i + 1 < argc ? argv[++*i] : NULL;
    char *end = NULL;
    if (!v) return cli_error("modes: %s needs a value", arg);
    if (strcmp(arg, "--count") == 0) return int_value(arg, v, 0, 1000000, &a->count);
    if (strcmp(arg, "--steps") == 0) return int_value(arg, v, 1, 1000000, &a->steps);
    if (strcmp(arg, "--csv") == 0) {
        a->csv = v;
        return 0;
    }
    if (strcmp(arg, "--plot") == 0) {
        a->png = v;
        return 0;
    }
    if (strcmp(arg, "--html") == 0) {
        a->html = v;
        return 0;
    }
    if (strcmp(arg, "--vtk") == 0) {
        a->vtk = v;
        return 0;
    }
    if (strcmp(arg, "--campbell") == 0) return parse_speeds(v, a);
    if (strcmp(arg, "--shift") == 0) {
        a->shift = strtod(v, &end);
        return end && !*end && isfinite(a->shift) ? 0 : cli_error("modes: bad --shift '%s'", v);
    }
    if (strcmp(arg, "--time") == 0) {
        a->time = strtod(v, &end);
        return end && !*end && isfinite(a->time) ? 0 : cli_error("modes: bad --time '%s'", v);
    }
    if (strcmp(arg, "--formulation") == 0) {
        a->form = ld_formulation_find(v);
        return a->form >= 0 ? 0
                            : cli_error("modes: unknown formulation '%s' (so3xr3 se3 s3xr3 "
                                        "s3sdr3 so3xr3-spatial s3xr3-spatial euler)",
                                        v);
    }
    return cli_error("modes: unknown option '%s' (see 'liedyn modes --help')", arg);
}

/* 0, -1 (help printed) or 2. (main has split --name=value already.) */
static int parse(int argc, char **argv, modes_args *a) {
    memset(a, 0, sizeof *a);
    a->time = NAN, a->count = 10, a->steps = 10, a->form = -1;
    for (int i = 0; i < argc; ++i) {
        const char *arg = argv[i];
        if (arg[0] != '-') {
            if (a->model) return cli_error("modes: more than one model ('%s')", arg);
            a->model = arg;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(arg, "--damped") == 0) {
            a->damped = 1;
        } else if (strcmp(arg, "--sparse") == 0) {
            a->sparse = 1;
        } else if (strcmp(arg, "--no-static") == 0) {
            a->nostatic = 1;
        } else if (strcmp(arg, "--no-loads") == 0) {
            a->noloads = 1;
        } else {
            int rc = parse_value(argc, argv, &i, a);
            if (rc) return rc;
        }
    }
    if (!a->model) return cli_error("modes: no model given (see 'liedyn modes --help')");
    if (a->png && !a->npts) return cli_error("modes: --plot needs --campbell");
    if (a->vtk && a->npts)
        return cli_error("modes: --vtk writes the modes of one state: not with --campbell");
    if (a->html && a->npts)
        return cli_error("modes: --html shows the modes of one state: not with --campbell");
    if (a->sparse && (a->damped || a->npts))
        return cli_error("modes: --sparse gives undamped modes at rest: not with --damped or "
                         "--campbell");
    return 0;
}

/* The body whose centre moves most in mode j (real part), its motion and rotation. */
static int dominant(const ld_model *m, const ld_system *s, const double *q, const ld_modes *md,
                    int j, double dx[3], double dth[3]) {
    int who = -1;
    double best = -1.0, bestr = -1.0;
    const double *phi = md->phi + (size_t)j * (size_t)md->k;
    for (int b = 0; b < m->nbodies; ++b) {
        double x[3], r[3];
        if (ld_modes_body_shape(s, q, phi, b, x, r)) continue;
        double nx = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        double nr = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        if (nx > best * (1.0 + 1e-9) || (fabs(nx - best) <= 1e-9 * nx && nr > bestr)) {
            best = nx, bestr = nr, who = b;
            memcpy(dx, x, sizeof x);
            memcpy(dth, r, sizeof r);
        }
    }
    return who;
}

/* The direction of v as text ("+y", or "(0.6, -0.8, 0)"); "-" for 0. */
static void direction(const double v[3], char *buf, size_t cap) {
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(n > 0.0)) {
        snprintf(buf, cap, "-");
        return;
    }
    for (int i = 0; i < 3; ++i)
        if (fabs(fabs(v[i]) - n) <= 1e-6 * n) {
            snprintf(buf, cap, "%c%c", v[i] > 0 ? '+' : '-', "xyz"[i]);
            return;
        }
    double u[3];
    for (int i = 0; i < 3; ++i) u[i] = fabs(v[i]) > 1e-9 * n ? v[i] / n : 0.0;
    snprintf(buf, cap, "(%.3g, %.3g, %.3g)", u[0], u[1], u[2]);
}

static void print_table(const ld_model *m, const ld_system *s, const double *q,
                        const ld_modes *md) {
    if (md->damped)
        printf("  %4s  %15s  %15s  %13s  %15s  %s\n", "mode", "frequency (Hz)", "|s| (rad/s)",
               "damping ratio", "damped (Hz)", "largest motion");
    else
        printf("  %4s  %15s  %15s  %15s  %s\n", "mode", "frequency (Hz)", "omega (rad/s)",
               "omega^2", "largest motion");
    for (int j = 0; j < md->count; ++j) {
        double dx[3] = {0}, dth[3] = {0};
        char motion[LD_NAME_MAX + 160] = "-", d1[48], d2[48];
        int b = dominant(m, s, q, md, j, dx, dth);
        direction(dx, d1, sizeof d1);
        direction(dth, d2, sizeof d2);
        if (b >= 0)
            snprintf(motion, sizeof motion, "'%s' moves %s, turns %s", m->bodies[b].name, d1, d2);
        if (md->damped)
            printf("  %4d  %15.8g  %15.8g  %13.6g  %15.8g  %s\n", j + 1, md->hz[j],
                   TWO_PI * md->hz[j], md->zeta[j], md->im[j] / TWO_PI, motion);
        else
            printf("  %4d  %15.8g  %15.8g  %15.8g  %s%s\n", j + 1, md->hz[j],
                   sqrt(fabs(md->omega2[j])), md->omega2[j],
                   fabs(md->omega2[j]) <= md->noise[j] ? "neutral: "
                   : md->omega2[j] < 0                 ? "UNSTABLE: "
                                                       : "",
                   motion);
    }
}

/* One row per mode: the numbers, then every body's shape. 0 or 4. */
static int write_csv(const char *path, const ld_model *m, const ld_system *s, const double *q,
                     const ld_modes *md) {
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error("modes: cannot write '%s'", path);
        return 4;
    }
    fprintf(f, "mode,hz,omega2,re,im,zeta");
    static const char *const cols[6] = {"dx", "dy", "dz", "rx", "ry", "rz"};
    for (int b = 0; b < m->nbodies; ++b) ld_io_csv_put_names(f, m->bodies[b].name, cols, 6);
    fprintf(f, "\n");
    for (int j = 0; j < md->count; ++j) {
        fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g", j + 1, md->hz[j], md->omega2[j], md->re[j],
                md->im[j], md->zeta[j]);
        for (int b = 0; b < m->nbodies; ++b) {
            double dx[3], dth[3];
            if (ld_modes_body_shape(s, q, md->phi + (size_t)j * (size_t)md->k, b, dx, dth))
                dx[0] = dx[1] = dx[2] = dth[0] = dth[1] = dth[2] = NAN;
            fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", dx[0], dx[1], dx[2], dth[0], dth[1],
                    dth[2]);
        }
        fprintf(f, "\n");
    }
    if (fclose(f) != 0) {
        cli_error("modes: writing '%s' failed", path);
        return 4;
    }
    return 0;
}

/* The modes on the sparse path (after the equilibrium); the exit code. */
static int analyse_sparse(const modes_args *a, const char *path, const ld_model *m,
                          const ld_system *s, const double *q, double t,
                          const ld_static_stats *st) {
    char msg[512];
    ld_modes md;
    int dof = s->k - s->m; /* the compiler has dropped the dependent rows */
    int count = a->count > 0 && a->count < dof ? a->count : dof < 10 ? dof : 10;
    double c0 = cpu_seconds();
    int rc = ld_modes_sparse(s, t, q, count, a->shift, &md, msg, sizeof msg);
    if (rc) {
        cli_error("%s: no modes: %s", path, msg[0] ? msg : ld_strerror(rc));
        return rc == LD_ENOTSUPPORTED ? 2 : 3;
    }
    int red = ld_model_redundant_rows(s, NULL, NULL, 0);
    printf("%s: %d degree%s of freedom (%d velocities, %d constraint rows", m->name, dof,
           dof == 1 ? "" : "s", s->k, s->m);
    if (red > 0) printf(", %d redundant joint rows left out", red);
    printf("), about the %s at t = %g (%s, %sundamped, sparse: %d mode%s by subspace iteration, "
           "cpu %.3g s)\n",
           a->nostatic ? "initial configuration" : "static equilibrium", t,
           ld_formulation_name(m->run.formulation), st->relaxed ? "settled, " : "", count,
           count == 1 ? "" : "s", cpu_seconds() - c0);
    if (a->nostatic)
        printf("  statics not solved (--no-static)\n");
    else
        printf("  equilibrium residual %.3g\n", st->residual);
    print_table(m, s, q, &md);
    int exit_code = a->csv ? write_csv(a->csv, m, s, q, &md) : 0;
    if (!exit_code && a->vtk) exit_code = modes_vtk(a->vtk, m, s, q, &md);
    if (!exit_code && a->html) exit_code = modes_html(a->html, m, s, q, &md);
    ld_modes_free(&md);
    return exit_code;
}

/* From this many unknowns (k + m) on, undamped modes take the sparse path without --sparse:
 * the dense one holds several k × k arrays (0.6 s and 100 MB at 1200 unknowns, growing as k³
 * and k²; bench_modes) where the sparse one takes milliseconds. */
#define AUTO_SPARSE 2000

/* The sparse path without --sparse: a large system with node blocks, undamped modes, fewer
 * than its degrees of freedom. */
static int auto_sparse(const modes_args *a, const ld_system *s) {
    return !a->damped && !a->npts && a->count >= 1 && a->count < s->k - s->m &&
           s->k + s->m >= AUTO_SPARSE && ld_sys_has_blocks(s);
}

/* The equilibrium, the linearization and the modes of a compiled model; the exit code. */
static int analyse(const modes_args *a, const char *path, const ld_model *m, const ld_system *s,
                   double *q, double *lam, double t) {
    char msg[512];
    ld_static_options o;
    ld_static_options_init(&o);
    o.steps = a->steps;
    ld_static_stats st;
    memset(&st, 0, sizeof st);
    st.residual = NAN;
    int rc = a->nostatic ? LD_OK : ld_static_solve(s, t, q, lam, &o, &st, msg, sizeof msg);
    if (rc) {
        cli_error("%s: no static equilibrium: %s", path, msg[0] ? msg : ld_strerror(rc));
        return 3;
    }
    if (a->sparse || auto_sparse(a, s)) return analyse_sparse(a, path, m, s, q, t, &st);
    ld_linear lin;
    if ((rc = ld_linearize(s, t, q, NULL, &lin, msg, sizeof msg))) {
        cli_error("%s: cannot linearize: %s", path, msg[0] ? msg : ld_strerror(rc));
        return 3;
    }
    ld_modes md;
    rc = a->damped ? ld_modes_damped(&lin, a->count, &md, msg, sizeof msg)
                   : ld_modes_undamped(&lin, a->count, &md, msg, sizeof msg);
    if (rc) {
        cli_error("%s: no modes: %s", path, msg[0] ? msg : ld_strerror(rc));
        ld_linear_free(&lin);
        return 3;
    }
    int red = ld_model_redundant_rows(s, NULL, NULL, 0);
    printf("%s: %d degree%s of freedom (%d velocities, %d constraint rows", m->name, lin.n,
           lin.n == 1 ? "" : "s", lin.k, lin.m);
    if (red > 0) printf(", %d redundant joint rows left out", red);
    printf("), about the %s at t = %g (%s, %s%s)\n",
           a->nostatic ? "initial configuration" : "static equilibrium", t,
           ld_formulation_name(m->run.formulation), st.relaxed ? "settled, " : "",
           a->damped ? "damped" : "undamped");
    if (a->nostatic)
        printf("  statics not solved (--no-static): largest acceleration %.3g (0 at an "
               "equilibrium), stiffness asymmetry %.2g\n",
               lin.accel, lin.asym);
    else
        printf("  equilibrium residual %.3g, stiffness asymmetry %.2g\n", st.residual, lin.asym);
    if (!a->damped && lin.asym > 1e-8)
        printf("  the stiffness is not symmetric (non-conservative loads such as follower loads):\n"
               "  these undamped modes use its symmetric part; --damped solves with the full\n"
               "  matrices (and finds flutter)\n");
    print_table(m, s, q, &md);
    int exit_code = a->csv ? write_csv(a->csv, m, s, q, &md) : 0;
    if (!exit_code && a->vtk) exit_code = modes_vtk(a->vtk, m, s, q, &md);
    if (!exit_code && a->html) exit_code = modes_html(a->html, m, s, q, &md);
    ld_modes_free(&md);
    ld_linear_free(&lin);
    return exit_code;
}

/* --no-loads: the model without its loads list (their time-function tables freed). */
static void drop_loads(ld_model *m) {
    for (int i = 0; i < m->nloads; ++i) {
        free(m->loads[i].fn.tab_t);
        free(m->loads[i].fn.tab_f);
    }
    free(m->loads);
    m->loads = NULL;
    m->nloads = 0;
}

int cli_modes(int argc, char **argv) {
    modes_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    run_args ra;
    memset(&ra, 0, sizeof ra);
    ra.cmd = "modes", ra.model = a.model, ra.integ = -1, ra.form = a.form, ra.la = -1;
    ra.dt = ra.t_end = ra.atol = ra.rtol = ra.fac = ra.facmin = ra.facmax = NAN;
    ra.checkpoint_every = NAN;
    char path[PATH_CAP], msg[512];
    ld_model m;
    int method;
    if ((rc = load_model(&ra, path, sizeof path, &m, &method))) return rc;
    if (a.noloads) drop_loads(&m);
    double t = isnan(a.time) ? m.run.t_end : a.time;
    ld_system s;
    double *q = NULL, *v = NULL;
    if (m.run.formulation == LD_FORM_TREE) { /* v̇ = q̈: M = I, its stiffness is H⁻¹ K */
        cli_error("%s: modes: the tree formulation is for runs (its equations are solved for the "
                  "accelerations, which makes the stiffness unsymmetric); use a maximal-coordinate "
                  "formulation (so3xr3)",
                  path);
        ld_model_free(&m);
        return 2;
    }
    if (ld_model_compile_msg(&m, m.run.formulation, &s, &q, &v, msg, sizeof msg)) {
        cli_error("%s: cannot compile the model: %s", path, msg);
        ld_model_free(&m);
        return 2;
    }
    double *lam = ld_xcalloc((size_t)s.m + 1, sizeof *lam, "the multipliers");
    int exit_code;
    if (a.npts > 0) {
        campbell_in in = {path, a.csv, a.png, &m, &s, q, v, a.from, a.to, a.npts, a.count};
        exit_code = modes_campbell(&in);
    } else {
        exit_code = lam ? analyse(&a, path, &m, &s, q, lam, t) : cli_error("%s", ld_oom_last_str());
    }
    free(lam);
    free(q);
    free(v);
    ld_model_system_free(&s);
    ld_model_free(&m);
    if (cli_flush_stdout()) return 4;
    return exit_code;
}

/*
 * liedyn — command-line front end. Uses only the public API.
 *   liedyn demo        print exp/log of a sample rotation in every representation
 *   liedyn attitude    integrate orientation from angular velocity (see cli/attitude.c)
 *   liedyn run         integrate a multibody model (see cli/run.c)
 *   liedyn convergence observed order of an integrator on a model (see cli/run.c)
 *   liedyn static      static equilibrium of a model (see cli/static.c)
 *   liedyn modes       modes of a model about its static equilibrium (see cli/modes.c)
 *   liedyn sweep       an ensemble of runs from a sweep file (see cli/sweep.c)
 *   liedyn workprec    work-precision study of integrators on a model (see cli/sweep.c)
 *   liedyn models      the shipped models (see cli/models.c)
 *   liedyn view        an HTML viewer file of a finished run (see cli/view.c)
 *   liedyn version     print the library version
 * Options may be written `--name value` or `--name=value`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "../src/core/oom.h"

static void print_vec(const char *label, const double *v, int n) {
    printf("  %-28s [", label);
    for (int i = 0; i < n; ++i) printf("%s% .15g", i ? ", " : "", v[i]);
    printf("]\n");
}

/* A tour of the core maps on one sample; returns 0. */
static int cmd_demo(void) {
    const double psi[3] = {0.3, -1.2, 2.5}; /* rotation vector, rad */
    double q[4], R[9], back[3], qm[4], t[3], T[9], Ti[9];
    printf("liedyn %s — Lie-group core demo\n", ld_version());
    print_vec("rotation vector psi", psi, 3);
    ld_quat_from_rotvec(q, psi);
    print_vec("quaternion exp_S3(psi)", q, 4);
    ld_so3_exp(R, psi);
    print_vec("R = exp_SO3(psi), row 1", R, 3);
    ld_so3_log(back, R);
    print_vec("log(exp(psi))", back, 3);
    ld_quat_from_mat(qm, R);
    print_vec("Spurrier quaternion of R", qm, 4);
    if (ld_quat_to_tanvec(t, q) == LD_OK) print_vec("tangential vector", t, 3);
    ld_so3_tangent(T, psi);
    ld_so3_tangent_inv(Ti, psi);
    print_vec("T(psi), row 1", T, 3);
    print_vec("T^-1(psi), row 1", Ti, 3);
    const double v[6] = {0.3, -1.2, 2.5, 1.0, 2.0, 3.0};
    double g[7], vb[6];
    ld_s3sdr3_exp(g, v);
    ld_s3sdr3_log(vb, g);
    print_vec("S3xR3 semidirect exp(v)", g, 7);
    print_vec("S3xR3 semidirect log(exp(v))", vb, 6);
    printf("  angle between exp(psi) and Spurrier(R): %.3e rad\n", ld_quat_angle(q, qm));
    return 0;
}

static void usage(FILE *f) {
    fprintf(f, "usage: liedyn <command>\n"
               "commands:\n"
               "  demo         exp/log/tangent maps of a sample rotation\n"
               "  attitude     integrate orientation from angular velocity (attitude --help)\n"
               "  run          integrate a multibody model, e.g. 'run heavy-top' (run --help)\n"
               "  convergence  observed order of an integrator on a model (convergence --help)\n"
               "  static       static equilibrium of a model under its loads (static --help)\n"
               "  modes        frequencies, damping and shapes of the modes about the static\n"
               "               equilibrium (modes --help)\n"
               "  assemble     the assembled initial configuration of a model, written as YAML\n"
               "               (assemble --help)\n"
               "  sweep        an ensemble of runs from a sweep file, one table row per case\n"
               "               (sweep --help)\n"
               "  workprec     CPU time against error of integrators on a model (workprec --help)\n"
               "  view         an HTML file that animates a finished run's CSV (view --help)\n"
               "  convert      a URDF or MJCF file as a liedyn YAML model (convert --help)\n"
               "  models       list the shipped models with their descriptions\n"
               "  version      print the library version\n"
               "options are written '--name value' or '--name=value'; 'liedyn COMMAND -h'\n"
               "shows a command's options and exit codes\n"
               "exit status: 0 ok, 2 bad usage or an unknown command; each command's own\n"
               "codes in its help\n");
}

/* Run the command named by argv[1]; its exit status. */
static int dispatch(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "demo") == 0) {
        if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            printf("usage: liedyn demo\nPrint exp, log and the tangent maps of a sample rotation "
                   "in every representation.\nexit status: 0 ok, 2 bad usage\n");
            return 0;
        }
        if (argc > 2) return cli_error("demo: unexpected argument '%s'", argv[2]);
        return cmd_demo();
    }
    if (strcmp(argv[1], "models") == 0) return cli_models(argc - 2, argv + 2);
    if (strcmp(argv[1], "attitude") == 0) return cli_attitude(argc - 2, argv + 2);
    if (strcmp(argv[1], "run") == 0) return cli_run(argc - 2, argv + 2);
    if (strcmp(argv[1], "convergence") == 0) return cli_convergence(argc - 2, argv + 2);
    if (strcmp(argv[1], "static") == 0) return cli_static(argc - 2, argv + 2);
    if (strcmp(argv[1], "modes") == 0) return cli_modes(argc - 2, argv + 2);
    if (strcmp(argv[1], "assemble") == 0) return cli_assemble(argc - 2, argv + 2);
    if (strcmp(argv[1], "sweep") == 0) return cli_sweep(argc - 2, argv + 2);
    if (strcmp(argv[1], "workprec") == 0) return cli_workprec(argc - 2, argv + 2);
    if (strcmp(argv[1], "view") == 0) return cli_view(argc - 2, argv + 2);
    if (strcmp(argv[1], "convert") == 0) return cli_convert(argc - 2, argv + 2);
    if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
        if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            printf("usage: liedyn version\nPrint the library version.\nexit status: 0\n");
            return 0;
        }
        printf("liedyn %s\n", ld_version());
        return 0;
    }
    if (!strcmp(argv[1], "help") && argc > 2 && strcmp(argv[2], "help") != 0) {
        /* liedyn help CMD: CMD's own help, as `liedyn CMD --help` */
        char flag[] = "--help";
        char *args[] = {argv[0], argv[2], flag, NULL};
        return dispatch(3, args);
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    static const char *const cmds[] = {"demo",   "models",  "attitude", "run",   "convergence",
                                       "static", "modes",   "assemble", "sweep", "workprec",
                                       "view",   "convert", "version",  "help"};
    const char *near = cli_closest(argv[1], cmds, (int)(sizeof cmds / sizeof cmds[0]));
    if (near)
        fprintf(stderr, "liedyn: unknown command '%s' (did you mean '%s'? try 'liedyn help')\n",
                argv[1], near);
    else
        fprintf(stderr, "liedyn: unknown command '%s' (try 'liedyn help')\n", argv[1]);
    return 2;
}

static int stdout_errno = 0; /* errno of the first failed flush of stdout */

int cli_flush_stdout(void) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    if (!stdout_errno) stdout_errno = errno ? errno : EIO;
    return -1;
}

/* Whatever the command printed must reach standard output: a failed write there (a full
 * disk, a closed pipe, /dev/full) turns a success into exit status 4. */
/* argv with every "--name=value" split into "--name" "value" (a new array; NULL: out of
 * memory). */
static char **split_equals(int argc, char **argv, int *out_argc) {
    char **a = ld_xmalloc((2 * (size_t)argc + 1) * sizeof *a, "the arguments");
    int n = 0;
    for (int i = 0; a && i < argc; ++i) {
        char *eq = strchr(argv[i], '=');
        if (i > 1 && !strncmp(argv[i], "--", 2) && eq && eq > argv[i] + 2) {
            *eq = '\0'; /* argv's strings are ours to modify */
            a[n++] = argv[i];
            a[n++] = eq + 1;
        } else {
            a[n++] = argv[i];
        }
    }
    if (a) a[n] = NULL;
    *out_argc = n;
    return a;
}

int main(int argc, char **argv) {
    ld_cli_quiet_blas(); /* no idle BLAS workers spinning beside the steps */
    int nargc = argc;
    char **nargv = split_equals(argc, argv, &nargc);
    int rc = nargv ? dispatch(nargc, nargv) : cli_error("%s", ld_oom_last_str());
    free(nargv);
    int bad = cli_flush_stdout() != 0;
    if (fclose(stdout) != 0 && !stdout_errno) stdout_errno = errno ? errno : EIO;
    if (bad || stdout_errno) {
        cli_error("writing to standard output failed: %s", strerror(stdout_errno));
        if (rc == 0) rc = 4;
    }
    return rc;
}

/*
 * liedyn convert — a URDF or MJCF file as a liedyn YAML model a user can edit
 * (include/liedyn/import.h, docs/import.md), and the loader that lets every command that takes
 * a model (run, assemble, static, …) take such a file too.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "liedyn/import.h"
#include "liedyn/liedyn.h"
#include "safefile.h"

/* The warnings on f: those about the dynamics all, the others up to max_ignored (−1: all),
 * each "PREFIX FILE:LINE: ELEMENT: MESSAGE". */
static void print_warnings(FILE *f, const ld_import_report *r, const char *prefix,
                           int max_ignored) {
    int shown = 0, hidden = 0;
    for (int i = 0; i < r->nwarn; ++i) {
        const ld_import_warning *w = &r->warn[i];
        if (w->severity == LD_IMPORT_IGNORED && max_ignored >= 0 && shown >= max_ignored) {
            ++hidden;
            continue;
        }
        shown += w->severity == LD_IMPORT_IGNORED;
        fprintf(f, "%s%s:%d: %s: %s\n", prefix, w->file[0] ? w->file : r->file, w->line, w->element,
                w->msg);
    }
    if (hidden)
        fprintf(f,
                "%s%d more with no effect on the dynamics (meshes, collision geometry, "
                "sites, …): 'liedyn convert --verbose %s' lists them\n",
                prefix, hidden, r->file);
}

int cli_model_load(const char *path, ld_model *m, ld_model_error *err) {
    if (!ld_import_recognizes(path)) return ld_model_load(path, m, err);
    ld_import_report rep;
    int rc = ld_model_import(path, m, err, &rep);
    if (!rc) print_warnings(stderr, &rep, "liedyn: warning: ", 3);
    ld_import_report_free(&rep);
    return rc;
}

static void usage(FILE *f) {
    fprintf(f, "usage: liedyn convert FILE [options]\n"
               "  FILE              a URDF (.urdf, <robot>) or MJCF (.xml, <mujoco>) file\n"
               "  -o, --out FILE.yaml  write the liedyn model there (default: standard output)\n"
               "  --limits          write the joints' position limits as joint limits, and\n"
               "                    moreau, the method that holds them, as the integrator;\n"
               "                    default: comments\n"
               "  --contact         MJCF: the geoms that collide in MuJoCo collide (spheres,\n"
               "                    capsules, cylinders, boxes, with their friction; the\n"
               "                    worldbody's plane and geoms are the ground's), and the\n"
               "                    integrator is moreau; default: no contact (reported)\n"
               "  --fixed-base      fix a URDF root link that has a mass to the ground (default:\n"
               "                    it floats freely)\n"
               "  --chain-joints    MJCF, a body with several joints: always a chain of auxiliary\n"
               "                    bodies, one joint each, so that each hinge keeps its own\n"
               "                    spring and damper on its own angle (default: one universal,\n"
               "                    spherical or cylindrical joint where it is the same motion)\n"
               "  --aux-mass-ratio R  an auxiliary body's mass as a fraction of its body's\n"
               "                    (0 < R <= 1; default 1e-3)\n"
               "  --verbose         list every warning (default: those about the dynamics, and\n"
               "                    the first 3 others)\n"
               "The model runs with 'liedyn run FILE.yaml', as 'liedyn run FILE' runs the file\n"
               "itself; the warnings name what the model does not represent\n"
               "(docs/import.md).\n"
               "exit status: 0 ok, 2 bad usage or input, 4 the output could not be written\n");
}

typedef struct conv_args {
    const char *in, *out;
    ld_import_options opt;
    int verbose;
} conv_args;

static int parse(int argc, char **argv, conv_args *a) {
    memset(a, 0, sizeof *a);
    ld_import_options_init(&a->opt);
    for (int i = 0; i < argc; ++i) {
        const char *s = argv[i];
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(s, "-o") || !strcmp(s, "--out")) {
            if (i + 1 >= argc || !argv[i + 1][0])
                return cli_error("convert: %s needs a file name", s);
            a->out = argv[++i];
        } else if (!strcmp(s, "--limits")) {
            a->opt.limits = 1;
        } else if (!strcmp(s, "--contact")) {
            a->opt.contact = 1;
        } else if (!strcmp(s, "--fixed-base")) {
            a->opt.fixed_base = 1;
        } else if (!strcmp(s, "--chain-joints")) {
            a->opt.chain_joints = 1;
        } else if (!strcmp(s, "--aux-mass-ratio")) {
            char *end = NULL;
            double r = i + 1 < argc ? strtod(argv[i + 1], &end) : -1.0;
            if (i + 1 >= argc || end == argv[i + 1] || *end || !(r > 0.0 && r <= 1.0))
                return cli_error("convert: --aux-mass-ratio wants a number in (0, 1], got '%s'",
                                 i + 1 < argc ? argv[i + 1] : "");
            a->opt.aux_mass_ratio = r;
            ++i;
        } else if (!strcmp(s, "--verbose") || !strcmp(s, "-v")) {
            a->verbose = 1;
        } else if (s[0] == '-') {
            return cli_error("convert: unknown option '%s' (see 'liedyn convert --help')", s);
        } else if (a->in) {
            return cli_error("convert: more than one input file ('%s')", s);
        } else {
            a->in = s;
        }
    }
    if (!a->in) return cli_error("convert: no file given (see 'liedyn convert --help')");
    return 0;
}

/* Write the header, the warnings as comments and the text to path (whole or not at all:
 * safefile.h) or stdout. 0 or 4. */
static int write_out(const conv_args *a, const ld_import_report *rep, const char *text,
                     size_t len) {
    safefile w;
    FILE *f = stdout;
    if (a->out) {
        if (ld_io_safefile_open(&w, a->out, NULL, 0) != 0)
            return cli_error("convert: %s", w.err), 4;
        f = w.f;
    }
    fprintf(f, "# converted by liedyn convert from %s (%s)\n", rep->file,
            rep->format == LD_IMPORT_URDF ? "URDF" : "MJCF");
    if (rep->nwarn) fprintf(f, "# what this model does not represent (docs/import.md):\n");
    print_warnings(f, rep, "#   ", -1);
    fwrite(text, 1, len, f);
    if (a->out && ld_io_safefile_commit(&w) != 0) return cli_error("convert: %s", w.err), 4;
    return 0;
}

int cli_convert(int argc, char **argv) {
    conv_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    ld_model m;
    ld_model_error err;
    ld_import_report rep;
    rc = ld_model_import_opt(a.in, &a.opt, &m, &err, &rep); /* the text must read as a model */
    if (rc) {
        ld_import_report_free(&rep);
        if (err.msg[0]) return cli_error("%s", err.msg);
        return cli_error("convert: cannot import '%s': %s", a.in, ld_strerror(rc));
    }
    int nb = m.nbodies, nj = m.njoints, ne = m.nelements, ns = m.nshapes;
    ld_model_free(&m);
    ld_import_report_free(&rep);
    char *text = NULL;
    size_t len = 0;
    rc = ld_import_translate(a.in, &a.opt, &text, &len, &err, &rep);
    if (rc) {
        ld_import_report_free(&rep);
        return cli_error("convert: cannot import '%s': %s", a.in,
                         err.msg[0] ? err.msg : ld_strerror(rc));
    }
    rc = write_out(&a, &rep, text, len);
    free(text);
    if (!rc) {
        FILE *f = a.out ? stdout : stderr;
        fprintf(f, "%s (%s): %d bodies, %d joints, %d force elements, %d shapes", a.in,
                rep.format == LD_IMPORT_URDF ? "URDF" : "MJCF", nb, nj, ne, ns);
        if (rep.merged)
            fprintf(f, "; %d massless link%s merged", rep.merged, rep.merged == 1 ? "" : "s");
        if (rep.auxiliary)
            fprintf(f, "; %d auxiliary bod%s", rep.auxiliary, rep.auxiliary == 1 ? "y" : "ies");
        fprintf(f, "; %d warning%s%s%s\n", rep.nwarn, rep.nwarn == 1 ? "" : "s",
                a.out ? ", written to " : "", a.out ? a.out : "");
        if (a.verbose)
            fprintf(f, "  libxml2's parse %.3f ms, translation %.3f ms\n", 1e3 * rep.parse_seconds,
                    1e3 * rep.translate_seconds);
        print_warnings(stderr, &rep, "liedyn: warning: ", a.verbose ? -1 : 3);
    }
    ld_import_report_free(&rep);
    return rc;
}

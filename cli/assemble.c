/*
 * liedyn assemble — the assembled initial configuration of a model (ld_model_assemble): the
 * bodies placed by their joints and every joint of the frame form closed, printed and written
 * as the model's YAML with each body's position and orientation set. Reference:
 * docs/model-format.md#assembly.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "safefile.h"
#include "sim.h"
#include "sweep.h"
#include "../src/core/oom.h"

static void usage(FILE *f) {
    fprintf(f, "usage: liedyn assemble MODEL [options]\n"
               "  MODEL             a YAML model file, or the name of a shipped model\n"
               "  --out FILE.yaml   write the assembled model: the model's YAML with every\n"
               "                    body's position and orientation set (comments are not\n"
               "                    kept)\n"
               "  --json            print one JSON object with the result\n"
               "Reading a model assembles it (docs/model-format.md#assembly); this command\n"
               "shows what assembly did and keeps its result.\n"
               "exit status: 0 ok, 2 bad usage or input (a joint that cannot be closed is\n"
               "named with its line and the gap left), 4 output could not be written\n");
}

typedef struct asm_args {
    const char *model, *out;
    int json;
} asm_args;

static int parse(int argc, char **argv, asm_args *a) {
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; ++i) {
        const char *arg = argv[i], *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (arg[0] != '-') {
            if (a->model) return cli_error("assemble: more than one model ('%s')", arg);
            a->model = arg;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(arg, "--json") == 0) {
            a->json = 1;
        } else if (strncmp(arg, "--out", len) == 0 && len == 5) {
            a->out = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
            if (!a->out || !a->out[0]) return cli_error("assemble: --out needs a file name");
        } else {
            return cli_error("assemble: unknown option '%.*s' (see 'liedyn assemble --help')",
                             (int)len, arg);
        }
    }
    if (!a->model) return cli_error("assemble: no model given (see 'liedyn assemble --help')");
    return 0;
}

/* The whole file (NUL-terminated), or NULL. */
static char *read_text(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    sw_buf b = {0};
    char chunk[1 << 14];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sw_buf_printf(&b, "%.*s", (int)n, chunk);
    int bad = ferror(f);
    fclose(f);
    if (bad || !b.s) {
        sw_buf_free(&b);
        return NULL;
    }
    *len = b.len;
    return b.s;
}

/* The bodies of the model's 'bodies' list: those before the first node of a rod or a beam. */
static int listed_bodies(const ld_model *m) {
    int n = m->nbodies;
    for (int r = 0; r < m->nrods; ++r)
        if (m->rods[r].body0 < n) n = m->rods[r].body0;
    for (int e = 0; e < m->nbeams; ++e)
        for (int k = 0; m->beams[e].node_body && k < m->beams[e].nnodes; ++k)
            if (m->beams[e].node_body[k] >= 0 && m->beams[e].node_body[k] < n)
                n = m->beams[e].node_body[k];
    return n;
}

/* Write the assembled model to path (whole or not at all: safefile.h). 0 or 4. */
static int write_model(const char *src, const ld_model *m, const char *path) {
    size_t len = 0;
    char *text = read_text(src, &len), why[512] = "";
    if (!text) return cli_error("assemble: cannot read '%s' again: %s", src, strerror(errno)), 4;
    int nb = listed_bodies(m);
    sw_set *set = ld_xcalloc(2 * (size_t)(nb > 0 ? nb : 1), sizeof *set, "the assembly's settings");
    char *vals = ld_xmalloc(2 * (size_t)(nb > 0 ? nb : 1) * 128, "the assembly's settings");
    int rc = set && vals ? 0 : -1;
    for (int b = 0; !rc && b < nb; ++b) {
        const ld_body *bd = &m->bodies[b];
        char *v = vals + 256 * (size_t)b;
        snprintf(set[2 * b].path, sizeof set[2 * b].path, "bodies[%d].position", b);
        snprintf(v, 128, "[%.17g, %.17g, %.17g]", bd->x[0], bd->x[1], bd->x[2]);
        set[2 * b].value = v;
        snprintf(set[2 * b + 1].path, sizeof set[2 * b + 1].path, "bodies[%d].orientation", b);
        snprintf(v + 128, 128, "[%.17g, %.17g, %.17g, %.17g]", bd->q[0], bd->q[1], bd->q[2],
                 bd->q[3]);
        set[2 * b + 1].value = v + 128;
    }
    sweep sw;
    memset(&sw, 0, sizeof sw);
    sw.model_text = text;
    sw.model_len = len;
    char *out = NULL;
    size_t olen = 0;
    if (!rc) rc = sweep_case_text(&sw, -1, set, 2 * nb, &out, &olen, why, sizeof why);
    free(set);
    free(vals);
    free(text);
    if (rc) return cli_error("assemble: cannot write the model: %s", why[0] ? why : "no memory"), 4;
    safefile w;
    if (ld_io_safefile_open(&w, path, NULL, 0) != 0) {
        free(out);
        return cli_error("assemble: %s", w.err), 4;
    }
    fprintf(w.f, "# assembled by liedyn assemble from %s\n", src);
    fwrite(out, 1, olen, w.f);
    rc = ld_io_safefile_commit(&w);
    free(out);
    return rc ? (cli_error("assemble: %s", w.err), 4) : 0;
}

static void print_json(const ld_model *m) {
    const ld_assembly *A = &m->assembly;
    printf("{\"model\": ");
    json_str(m->name);
    printf(", \"status\": \"ok\", \"placed\": %d, \"iterations\": %d, \"gap\": %.6g, "
           "\"gap_joint\": ",
           A->placed, A->iterations, A->gap);
    json_str(A->gap_joint >= 0 ? m->joints[A->gap_joint].name : "");
    printf(", \"misalignment\": %.6g, \"misalignment_joint\": ", A->misalign);
    json_str(A->misalign_joint >= 0 ? m->joints[A->misalign_joint].name : "");
    printf(", \"moved\": %.6g, \"turned\": %.6g, \"residual\": %.6g}\n", A->moved, A->turned,
           A->residual);
}

const char *cli_at_line(char *buf, size_t cap, int line) {
    if (line > 0)
        snprintf(buf, cap, " (line %d)", line);
    else if (cap)
        buf[0] = '\0';
    return buf;
}

void print_assembly(const struct ld_model *m, const char *indent) {
    const ld_assembly *A = &m->assembly;
    int frames = 0;
    for (int j = 0; j < m->njoints; ++j) frames += m->joints[j].local;
    if (!frames && !A->placed) return;
    printf("%sassembly: %d bod%s placed by %s joints, %d Newton iteration%s; ", indent, A->placed,
           A->placed == 1 ? "y" : "ies", "their", A->iterations, A->iterations == 1 ? "" : "s");
    char at[32];
    if (A->gap_joint >= 0)
        printf("largest gap %.3g m at joint '%s'%s, ", A->gap, m->joints[A->gap_joint].name,
               cli_at_line(at, sizeof at, m->joints[A->gap_joint].line));
    if (A->misalign_joint >= 0)
        printf("axes %.3g rad apart at joint '%s'%s, ", A->misalign,
               m->joints[A->misalign_joint].name,
               cli_at_line(at, sizeof at, m->joints[A->misalign_joint].line));
    printf("bodies moved up to %.3g m and turned up to %.3g rad; joint residual %.3g\n", A->moved,
           A->turned, A->residual);
}

int cli_assemble(int argc, char **argv) {
    asm_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    run_args ra;
    memset(&ra, 0, sizeof ra);
    ra.cmd = "assemble", ra.model = a.model, ra.integ = -1, ra.form = -1, ra.la = -1;
    ra.dt = ra.t_end = ra.atol = ra.rtol = ra.fac = ra.facmin = ra.facmax = NAN;
    ra.checkpoint_every = NAN;
    char path[PATH_CAP];
    ld_model m;
    int method;
    if ((rc = load_model(&ra, path, sizeof path, &m, &method))) return rc;
    int frames = 0;
    for (int j = 0; j < m.njoints; ++j) frames += m.joints[j].local;
    if (a.json) {
        print_json(&m);
    } else if (!frames && !m.assembly.placed) {
        /* nothing to place; a joint in the point form may still be open */
        char why[512];
        int ck = ld_model_check_initial(&m, why, sizeof why);
        if (ck == LD_ENOMEM) {
            rc = cli_error("assemble: out of memory");
        } else if (ck) {
            rc = cli_error("%s: nothing to assemble (every body has its position, no joint is in "
                           "the frame form), but the start is inconsistent: %s",
                           path, why);
        } else {
            printf("%s: nothing to assemble: every body has its position, and no joint is in the "
                   "frame form; every joint is closed at the start\n",
                   m.name);
        }
    } else {
        printf("%s: assembled\n", m.name);
        print_assembly(&m, "  ");
    }
    if (!rc && a.out) rc = write_model(path, &m, a.out);
    if (!rc && a.out && !a.json) printf("  written to %s\n", a.out);
    ld_model_free(&m);
    return rc;
}

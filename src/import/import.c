/*
 * Importing URDF and MJCF files (include/liedyn/import.h, docs/import.md): libxml2 parses the
 * file, urdf.c or mjcf.c fill the importers' tree, imp_tree.c merges and places it, imp_yaml.c
 * writes it as liedyn YAML, and the model reader reads that text — so an imported model passes
 * every check of a model file, and `liedyn convert` writes the very text that runs.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "imp.h"
#include "liedyn/import.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

void ld_import_options_init(ld_import_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->format = LD_IMPORT_AUTO;
    o->aux_mass_ratio = 1e-3;
}

void ld_import_report_free(ld_import_report *rep) {
    if (!rep) return;
    free(rep->warn);
    rep->warn = NULL;
    rep->nwarn = 0;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k) return 0;
    for (size_t i = 0; i < k; ++i)
        if (tolower((unsigned char)s[n - k + i]) != suffix[i]) return 0;
    return 1;
}

int ld_import_recognizes(const char *path) {
    if (!path) return 0;
    if (ends_with(path, ".urdf") || ends_with(path, ".xml") || ends_with(path, ".mjcf")) return 1;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char head[4097];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    for (char *p = head; (p = strchr(p, '<')) != NULL; ++p) {
        if (p[1] == '?' || p[1] == '!') continue; /* declaration, comment */
        return !strncmp(p + 1, "robot", 5) || !strncmp(p + 1, "mujoco", 6);
    }
    return 0;
}

/* Parse path with libxml2 (no network, no entities from outside): the document or NULL with
 * the error set (the parser's message and line). */
static xmlDoc *parse(imp_model *M, int *code) {
    struct stat st;
    FILE *f = fopen(M->path, "rb");
    if (!f || stat(M->path, &st) != 0) {
        int e = errno;
        if (f) fclose(f);
        *code = imp_fail(M, LD_EIO, 0, "(file)", "cannot open: %s", strerror(e));
        return NULL;
    }
    fclose(f);
    if ((size_t)st.st_size > LD_MODEL_MAX_BYTES) {
        *code =
            imp_fail(M, LD_EINVAL, 0, "(file)", "larger than 64 MB (the limit of a model file)");
        return NULL;
    }
    size_t used;
    return imp_read_xml(M, M->path, 0, LD_MODEL_MAX_BYTES, &used, code);
}

/* The format from the root element. */
static int pick_format(imp_model *M, xmlDoc *doc) {
    const xmlNode *root = xmlDocGetRootElement(doc);
    ld_import_format f = imp_is(root, "robot")    ? LD_IMPORT_URDF
                         : imp_is(root, "mujoco") ? LD_IMPORT_MJCF
                                                  : LD_IMPORT_AUTO;
    if (f == LD_IMPORT_AUTO || (M->opt.format != LD_IMPORT_AUTO && M->opt.format != f))
        return imp_fail(M, LD_EINVAL, imp_line(root), "(document)",
                        "the root element is <%s>: expected <robot> (URDF) or <mujoco> (MJCF)",
                        (const char *)root->name);
    M->format = f;
    return LD_OK;
}

/* LD_ENOMEM, with "FILE:0: (translation): out of memory: N bytes for WHAT" in M->err unless a
 * message at the element that failed is there already. */
static int out_of_memory(imp_model *M) {
    if (M->err && M->err->msg[0]) return LD_ENOMEM;
    return imp_fail(M, LD_ENOMEM, 0, "(translation)", "%s", ld_oom_last_str());
}

/* Translate into M's tree and then YAML text with its line table. */
static int translate(imp_model *M, char **yaml, size_t *len, int **lines, int *nlines) {
    int rc = LD_OK;
    double t0 = now();
    xmlDoc *doc = parse(M, &rc);
    double t1 = now();
    if (M->rep) M->rep->parse_seconds = t1 - t0;
    if (!doc) return rc;
    rc = pick_format(M, doc);
    if (M->rep) M->rep->format = M->format;
    M->gravity[2] = -9.81;
    if (!rc) rc = M->format == LD_IMPORT_URDF ? imp_urdf(M, doc) : imp_mjcf(M, doc);
    xmlFreeDoc(doc);
    if (M->rep) M->rep->links = M->nlinks;
    if (!rc) rc = imp_finish(M);
    if (!rc) imp_check_actuators(M);
    if (!rc) rc = imp_write_yaml(M, yaml, len, lines, nlines);
    if (!rc && M->nomem) rc = LD_ENOMEM;
    if (M->rep) M->rep->translate_seconds = now() - t1;
    return rc == LD_ENOMEM ? out_of_memory(M) : rc;
}

static void begin(imp_model *M, const char *path, const ld_import_options *opt, ld_model_error *err,
                  ld_import_report *rep) {
    memset(M, 0, sizeof *M);
    M->path = path;
    if (opt)
        M->opt = *opt;
    else
        ld_import_options_init(&M->opt);
    if (!(M->opt.aux_mass_ratio > 0)) M->opt.aux_mass_ratio = 1e-3;
    M->err = err;
    M->rep = rep;
    if (err) memset(err, 0, sizeof *err);
    if (rep) {
        memset(rep, 0, sizeof *rep);
        snprintf(rep->file, sizeof rep->file, "%s", path);
    }
}

int ld_import_translate(const char *path, const ld_import_options *opt, char **yaml, size_t *len,
                        ld_model_error *err, ld_import_report *rep) {
    if (!path || !yaml || !len) return LD_EINVAL;
    ld_import_report own; /* the warnings inform the errors (a missing mesh file) */
    if (!rep) {
        int rc = ld_import_translate(path, opt, yaml, len, err, &own);
        ld_import_report_free(&own);
        return rc;
    }
    imp_model M;
    begin(&M, path, opt, err, rep);
    int *lines = NULL, nlines = 0;
    int rc = translate(&M, yaml, len, &lines, &nlines);
    free(lines);
    imp_free(&M);
    return rc;
}

/* A message of the reader about the YAML text, pointed at the imported file's line (or the
 * included file's: M's table of included files). */
static void remap_error(ld_model_error *err, const imp_model *M, const int *lines, int nlines) {
    if (!err) return;
    const char *path;
    int line =
        imp_where(M, err->line >= 1 && err->line <= nlines ? lines[err->line - 1] : 0, &path);
    const char *why = err->msg, *k = err->key[0] ? strstr(err->msg, err->key) : NULL;
    if (k && strncmp(k + strlen(err->key), ": ", 2) == 0) why = k + strlen(err->key) + 2;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%.200s:%d: %.100s (of the translation): %.180s", path, line,
             err->key, why);
    memcpy(err->msg, msg, sizeof msg);
    snprintf(err->file, sizeof err->file, "%s", path);
    err->line = line;
}

/* The items' lines of the model read from the YAML text: the imported file's; 0 (no line)
 * for an item of an included file, whose line would name the wrong file (the model has one
 * source). */
static int map_line(int l, const int *lines, int nlines) {
    int f = l >= 1 && l <= nlines ? lines[l - 1] : 0;
    return f < IMP_LINE_STRIDE ? f : 0;
}

static void remap_lines(ld_model *m, const int *lines, int nlines) {
#define MAPL(l) map_line((l), lines, nlines)
    for (int i = 0; i < m->nbodies; ++i) m->bodies[i].line = MAPL(m->bodies[i].line);
    for (int i = 0; i < m->njoints; ++i) m->joints[i].line = MAPL(m->joints[i].line);
    for (int i = 0; i < m->nelements; ++i) m->elements[i].line = MAPL(m->elements[i].line);
    for (int i = 0; i < m->nshapes; ++i) m->shapes[i].line = MAPL(m->shapes[i].line);
    for (int i = 0; i < m->nmeshes; ++i) m->meshes[i].line = MAPL(m->meshes[i].line);
#undef MAPL
}

int ld_model_import_opt(const char *path, const ld_import_options *opt, ld_model *out,
                        ld_model_error *err, ld_import_report *rep) {
    if (!path || !out) return LD_EINVAL;
    ld_import_report own;
    if (!rep) {
        int rc = ld_model_import_opt(path, opt, out, err, &own);
        ld_import_report_free(&own);
        return rc;
    }
    imp_model M;
    begin(&M, path, opt, err, rep);
    char *yaml = NULL;
    size_t len = 0;
    int *lines = NULL, nlines = 0;
    int rc = translate(&M, &yaml, &len, &lines, &nlines);
    ld_model m;
    if (!rc) {
        rc = ld_model_parse(yaml, len, path, &m, err);
        if (rc) remap_error(err, &M, lines, nlines);
    }
    imp_free(&M);
    if (!rc) {
        remap_lines(&m, lines, nlines);
        *out = m;
    }
    free(yaml);
    free(lines);
    return rc;
}

int ld_model_import(const char *path, ld_model *out, ld_model_error *err, ld_import_report *rep) {
    return ld_model_import_opt(path, NULL, out, err, rep);
}

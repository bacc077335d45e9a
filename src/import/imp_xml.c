/*
 * Attributes of libxml2's tree for the importers (imp.h): numbers, vectors, names, lines.
 */
#include <errno.h>
#include <limits.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imp.h"
#include "../core/oom.h"
#include "liedyn/liedyn.h"

char *imp_attr(const xmlNode *n, const char *name) {
    return (char *)xmlGetProp(n, (const xmlChar *)name);
}

int imp_parse_numbers(const char *s, double *v, int max) {
    int k = 0;
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',') ++p;
        if (!*p) return k;
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || !isfinite(x) || errno == ERANGE) return -1;
        if (k < max) v[k] = x;
        ++k;
        p = end;
    }
}

int imp_get_vec(imp_model *M, const xmlNode *n, const char *name, double *v, int count,
                int *given) {
    char *s = imp_attr(n, name);
    if (given) *given = s != NULL;
    if (!s) return LD_OK;
    double tmp[16];
    int k = imp_parse_numbers(s, tmp, 16), rc = LD_OK;
    if (k != count) {
        char what[300];
        snprintf(what, sizeof what, "%s %s", (const char *)n->name, name);
        if (k < 0)
            rc = imp_fail(M, LD_EINVAL, imp_line(n), what, "expected %d number%s, found '%.80s'",
                          count, count == 1 ? "" : "s", s);
        else
            rc = imp_fail(M, LD_EINVAL, imp_line(n), what, "expected %d number%s, found %d", count,
                          count == 1 ? "" : "s", k);
    } else {
        memcpy(v, tmp, (size_t)count * sizeof *v);
    }
    xmlFree(s);
    return rc;
}

int imp_is(const xmlNode *n, const char *tag) {
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, tag) == 0;
}

int imp_line(const xmlNode *n) {
    long e = n ? (long)(intptr_t)n->_private : 0; /* an included element's encoded line */
    if (e > 0 && e < (long)(IMP_MAX_INCLUDES + 1) * IMP_LINE_STRIDE) return (int)e;
    long l = n ? xmlGetLineNo(n) : 0;
    return l > 0 && l < IMP_LINE_STRIDE ? (int)l : 0;
}

void imp_set_name(imp_model *M, char *out, const char *name, int line, const char *what) {
    size_t len = strlen(name);
    if (len >= LD_NAME_MAX) {
        snprintf(out, LD_NAME_MAX, "%.*s", LD_NAME_MAX - 1, name);
        imp_warn(M, LD_IMPORT_IGNORED, line, what,
                 "the name '%.100s' is longer than %d bytes: cut to '%s'", name, LD_NAME_MAX - 1,
                 out);
    } else if (strcmp(name, "ground") == 0) {
        snprintf(out, LD_NAME_MAX, "ground_");
        imp_warn(M, LD_IMPORT_IGNORED, line, what,
                 "the name 'ground' is reserved in liedyn (the fixed frame): renamed 'ground_'");
    } else {
        memcpy(out, name, len + 1);
    }
}

/* The bytes of path (malloc'ed) and their count in *len, at most cap of them; NULL with the
 * error set (f: its file number for the message): it cannot be read, or it is larger. */
static char *read_capped(imp_model *M, const char *path, int f, size_t cap, size_t *len,
                         int *code) {
    FILE *in = fopen(path, "rb");
    if (!in) {
        *code =
            imp_fail(M, LD_EIO, f * IMP_LINE_STRIDE, "(file)", "cannot open: %s", strerror(errno));
        return NULL;
    }
    const size_t chunk = (size_t)1 << 16;
    size_t size = 0, got = chunk, room = 0;
    char *buf = NULL;
    while (got > 0 && size <= cap) {
        if (size + chunk + 1 > room) { /* doubled: linear time for the largest file */
            room = 2 * room > size + chunk + 1 ? 2 * room : size + chunk + 1;
            char *nb = ld_xrealloc(buf, room, "the file's text");
            if (!nb) {
                free(buf), fclose(in);
                *code = imp_fail(M, LD_ENOMEM, f * IMP_LINE_STRIDE, "(file)", "cannot read: %s",
                                 ld_oom_last_str());
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + size, 1, chunk, in);
        size += got;
    }
    int bad = ferror(in);
    fclose(in);
    if (bad || size > cap) {
        free(buf);
        *code = bad ? imp_fail(M, LD_EIO, f * IMP_LINE_STRIDE, "(file)", "cannot be read")
                    : imp_fail(M, LD_EINVAL, f * IMP_LINE_STRIDE, "(file)",
                               "larger than 64 MB with the files read before it (the limit of "
                               "a model file)");
        return NULL;
    }
    buf[size] = '\0';
    *len = size;
    return buf;
}

xmlDoc *imp_read_xml(imp_model *M, const char *path, int f, size_t cap, size_t *used, int *code) {
    size_t len = 0;
    char *text = read_capped(M, path, f, cap, &len, code);
    if (!text) return NULL;
    *used = len;
    xmlParserCtxt *ctx = xmlNewParserCtxt();
    if (!ctx) {
        free(text);
        char why[160];
        ld_oom_format_lib(why, sizeof why, "libxml2");
        *code = imp_fail(M, LD_ENOMEM, f * IMP_LINE_STRIDE, "(file)", "%s", why);
        return NULL;
    }
    /* from memory: no decompression of a gzip file behind the size check, no second open */
    xmlDoc *doc = len > (size_t)INT_MAX
                      ? NULL
                      : xmlCtxtReadMemory(ctx, text, (int)len, path, NULL,
                                          XML_PARSE_NONET | XML_PARSE_NOERROR |
                                              XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
    free(text);
    if (!doc || !xmlDocGetRootElement(doc)) {
        const xmlError *e = xmlCtxtGetLastError(ctx);
        char msg[300];
        snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "not an XML document");
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = '\0';
        int line = e && e->line > 0 && e->line < IMP_LINE_STRIDE ? e->line : 0;
        *code = imp_fail(M, LD_EINVAL, f * IMP_LINE_STRIDE + line, "(syntax)",
                         "%s (not an XML file)", msg);
        if (doc) xmlFreeDoc(doc);
        doc = NULL;
    }
    xmlFreeParserCtxt(ctx);
    return doc;
}

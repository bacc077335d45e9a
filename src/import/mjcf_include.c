/*
 * MJCF's <include file="..."/> (docs/import.md), assembled as MuJoCo assembles its document
 * before reading it: each include element is replaced by the elements under the top-level
 * element of the file it names. The file's path is relative to the directory of the main file
 * (for nested includes too); includes may be nested and stand wherever an element may; a file
 * is included at most once in the whole model (which also rules out cycles); at least one
 * element must be inserted. The inserted elements are copies in the main document whose
 * _private holds their encoded line (the included file's number and the element's own line),
 * so that every message about them names that file and line (imp_line, imp_where).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <libxml/parser.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/oom.h"
#include "liedyn/liedyn.h"
#include "mjcf.h"

/* The files read so far (the main one first) by device and inode, and their total size. */
typedef struct seen {
    imp_model *M;
    dev_t dev[IMP_MAX_INCLUDES + 1];
    ino_t ino[IMP_MAX_INCLUDES + 1];
    int n;
    size_t bytes;
} seen;

/* name relative to the directory of main (name itself when absolute), malloc'ed; NULL when
 * out of memory. */
static char *resolve(const char *main, const char *name) {
    const char *slash = strrchr(main, '/');
    size_t d = name[0] != '/' && slash ? (size_t)(slash - main) + 1 : 0, n = strlen(name);
    char *p = ld_xmalloc(d + n + 1, "the path of an included file");
    if (!p) return NULL;
    memcpy(p, main, d);
    memcpy(p + d, name, n + 1);
    return p;
}

/* Note path (stat st) as read: LD_OK, or LD_EINVAL when it was read before or too many files
 * are included (reported at line of the include). */
static int note(seen *S, const struct stat *st, int line, const char *name) {
    for (int i = 0; i < S->n; ++i)
        if (S->dev[i] == st->st_dev && S->ino[i] == st->st_ino)
            return imp_fail(S->M, LD_EINVAL, line, "include",
                            i == 0 ? "'%s' is the main file: a file cannot include itself"
                                   : "'%s' is included a second time (a file is included at "
                                     "most once, as in MuJoCo)",
                            name);
    if (S->n > IMP_MAX_INCLUDES)
        return imp_fail(S->M, LD_EINVAL, line, "include", "'%s': more than %d included files", name,
                        IMP_MAX_INCLUDES);
    S->dev[S->n] = st->st_dev, S->ino[S->n] = st->st_ino, ++S->n;
    return LD_OK;
}

/* Append path (owned from here on) to M->inc: its file number (1, 2, …), or 0 out of memory
 * (path freed). */
static int add_file(imp_model *M, char *path) {
    if (M->ninc == M->inccap) {
        int cap = M->inccap ? 2 * M->inccap : 8;
        char **f = ld_xrealloc(M->inc, (size_t)cap * sizeof *f, "the included files");
        if (!f) {
            free(path);
            return 0;
        }
        M->inc = f, M->inccap = cap;
    }
    M->inc[M->ninc++] = path;
    return M->ninc;
}

/* The first element at or after n in its list, or NULL. */
static const xmlNode *element_from(const xmlNode *n) {
    while (n && n->type != XML_ELEMENT_NODE) n = n->next;
    return n;
}

static xmlNode *copy_from(xmlNode *n) {
    while (n && n->type != XML_ELEMENT_NODE) n = n->next;
    return n;
}

/* Give the element copy (of orig, in file number f) and the elements under it their encoded
 * lines, f · IMP_LINE_STRIDE + the original's own line (read before copying: a copy's line
 * above 65535 is not kept), in _private (imp_line). */
static void mark(const xmlNode *orig, xmlNode *copy, int f) {
    long l = xmlGetLineNo(orig);
    if (!(l > 0 && l < IMP_LINE_STRIDE)) l = 0;
    copy->_private = (void *)(intptr_t)((long)f * IMP_LINE_STRIDE + l);
    const xmlNode *o = element_from(orig->children);
    xmlNode *c = copy_from(copy->children);
    for (; o && c; o = element_from(o->next), c = copy_from(c->next)) mark(o, c, f);
}

/* Insert before inc copies of the elements under the top-level element of d (file number f):
 * the first of them in *first (NULL: none). LD_OK or LD_ENOMEM (reported on M). */
static int insert_copies(imp_model *M, xmlNode *inc, xmlDoc *d, int f, xmlNode **first) {
    *first = NULL;
    for (xmlNode *c = xmlDocGetRootElement(d)->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        xmlNode *cp = xmlDocCopyNode(c, inc->doc, 1);
        if (!cp) {
            char why[160];
            ld_oom_format_lib(why, sizeof why, "libxml2");
            return imp_fail(M, LD_ENOMEM, imp_line(inc), "include", "%s", why);
        }
        mark(c, cp, f);
        xmlAddPrevSibling(inc, cp);
        if (!*first) *first = cp;
    }
    return LD_OK;
}

/* Replace the include element n by its file's elements; *next: where the walk goes on (the
 * first inserted element, so that nested includes are expanded in turn). */
static int expand_one(seen *S, xmlNode *n, xmlNode **next) {
    imp_model *M = S->M;
    int line = imp_line(n), rc;
    char *name = imp_attr(n, "file");
    if (!name || !name[0]) {
        xmlFree(name);
        return imp_fail(M, LD_EINVAL, line, "include", "no file attribute (the file to include)");
    }
    char *path = resolve(M->path, name);
    struct stat st;
    int missing = path ? stat(path, &st) : 0, err = errno;
    if (!path) {
        rc = LD_ENOMEM;
    } else if (missing || !S_ISREG(st.st_mode)) {
        rc = imp_fail(M, LD_EIO, line, "include", "'%s': cannot open %s: %s%s", name, path,
                      missing ? strerror(err) : "not a regular file",
                      line >= IMP_LINE_STRIDE ? " (an included file's includes are relative to "
                                                "the main file's directory, as in MuJoCo)"
                                              : "");
        free(path);
    } else if ((rc = note(S, &st, line, name)) != LD_OK) {
        free(path);
    }
    int f = rc ? 0 : add_file(M, path);
    if (!rc && !f) rc = LD_ENOMEM;
    size_t used = 0; /* the files together within the limit of one model file */
    xmlDoc *d =
        rc ? NULL : imp_read_xml(M, M->inc[f - 1], f, LD_MODEL_MAX_BYTES - S->bytes, &used, &rc);
    S->bytes += used;
    xmlNode *first = NULL;
    if (d && (d->intSubset || d->extSubset)) /* its entities would not survive the copy */
        rc = imp_fail(M, LD_ENOTSUPPORTED, line, "include",
                      "'%s' has a document type declaration (entities): not read in an "
                      "included file",
                      name);
    if (d && !rc) rc = insert_copies(M, n, d, f, &first);
    if (d) xmlFreeDoc(d);
    if (!rc && !first)
        rc = imp_fail(M, LD_EINVAL, line, "include",
                      "'%s' has no element under its top-level element: nothing to include", name);
    xmlFree(name);
    if (rc) return rc;
    *next = first;
    xmlUnlinkNode(n);
    xmlFreeNode(n);
    return LD_OK;
}

/* Expand the includes among the descendants of parent (depth elements deep), in document
 * order; deeper than MJ_DEPTH_MAX is refused (the recursion's stack stays bounded). */
static int expand_under(seen *S, xmlNode *parent, int depth) {
    int rc = LD_OK;
    for (xmlNode *c = parent->children; !rc && c;) {
        if (imp_is(c, "include")) {
            xmlNode *next = NULL;
            rc = expand_one(S, c, &next);
            c = next;
            continue;
        }
        if (c->type == XML_ELEMENT_NODE && c->children && depth >= MJ_DEPTH_MAX)
            return imp_fail(S->M, LD_EINVAL, imp_line(c), (const char *)c->name,
                            "nested deeper than %d elements (a chain of included files?)",
                            MJ_DEPTH_MAX);
        if (c->type == XML_ELEMENT_NODE) rc = expand_under(S, c, depth + 1);
        c = c->next;
    }
    return rc;
}

int mj_expand_includes(imp_model *M, xmlDoc *doc) {
    seen *S = ld_xcalloc(1, sizeof *S, "the included files");
    if (!S) return LD_ENOMEM;
    S->M = M;
    struct stat st;
    int rc = LD_OK;
    S->n = 1; /* the main file: included by none */
    if (stat(M->path, &st) == 0) {
        S->dev[0] = st.st_dev, S->ino[0] = st.st_ino;
        S->bytes = (size_t)st.st_size;
    }
    rc = expand_under(S, xmlDocGetRootElement(doc), 1);
    free(S);
    return rc;
}

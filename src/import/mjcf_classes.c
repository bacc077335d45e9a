/*
 * The names of MJCF's default classes (docs/import.md), checked as MuJoCo's parser checks them
 * once the included files are assembled: every <default> nested in a top-level one needs a
 * class name, and that name is unique in the whole model — main is the top-level class's, and
 * a name used in one top-level section cannot come again in the same one or in another (one
 * per included file). The top-level sections themselves are together the class main and may
 * be repeated. The first offending element in the document is reported, at its file and line,
 * with the place of the class it repeats.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/oom.h"
#include "liedyn/liedyn.h"
#include "mjcf.h"

/* A nested class: its name (xmlFree), line and place in the document. */
typedef struct mj_class {
    char *name;
    int line;
    long order;
} mj_class;

typedef struct classes {
    mj_class *c;
    long n, cap;
    long bad; /* the first nested default without a name or named main (order), −1: none */
} classes;

/* Append nested default d to K (its name may be NULL). LD_OK or LD_ENOMEM. */
static int add_class(classes *K, const xmlNode *d) {
    if (K->n == K->cap) {
        long cap = K->cap ? 2 * K->cap : 16;
        mj_class *c = ld_xrealloc(K->c, (size_t)cap * sizeof *c, "the default classes");
        if (!c) return LD_ENOMEM;
        K->c = c, K->cap = cap;
    }
    mj_class *k = &K->c[K->n];
    k->name = imp_attr(d, "class");
    k->line = imp_line(d);
    k->order = K->n;
    if (K->bad < 0 && (!k->name || !k->name[0] || !strcmp(k->name, "main"))) K->bad = K->n;
    ++K->n;
    return LD_OK;
}

/* The classes nested in default d, in document order (depth bounded by the includes' check,
 * MJ_DEPTH_MAX). LD_OK or LD_ENOMEM. */
static int collect(classes *K, const xmlNode *d) {
    int rc = LD_OK;
    for (const xmlNode *c = d->children; !rc && c; c = c->next) {
        if (!imp_is(c, "default")) continue;
        rc = add_class(K, c);
        if (!rc) rc = collect(K, c);
    }
    return rc;
}

/* By name (unnamed last), then by place in the document. */
static int by_name(const void *pa, const void *pb) {
    const mj_class *a = pa, *b = pb;
    int s = !a->name || !b->name ? (a->name == NULL) - (b->name == NULL) : strcmp(a->name, b->name);
    return s ? s : (a->order > b->order) - (a->order < b->order);
}

/* Among the named classes sorted by_name, the first repeat in the document (its index in
 * K->c, the first class of that name in *first), or −1. */
static long first_repeat(const classes *K, long *first) {
    long best = -1;
    for (long i = 1; i < K->n; ++i) {
        const mj_class *a = &K->c[i - 1], *b = &K->c[i];
        if (!a->name || !b->name || !a->name[0] || strcmp(a->name, b->name)) continue;
        const mj_class *z = i >= 2 ? &K->c[i - 2] : NULL; /* a third of the name: b no repeat */
        if (z && z->name && !strcmp(z->name, b->name)) continue;
        if (best < 0 || b->order < K->c[best].order) best = i, *first = i - 1;
    }
    return best;
}

/* The error for the first offending class in the document: bad (no name or main; NULL: none)
 * or the repeat K->c[rep] (rep < 0: none) of K->c[first]. */
static int refuse(imp_model *M, const classes *K, const mj_class *bad, long rep, long first) {
    if (bad && (rep < 0 || bad->order < K->c[rep].order)) {
        if (bad->name && bad->name[0])
            return imp_fail(M, LD_EINVAL, bad->line, "default",
                            "class 'main' is the top-level class: a nested class cannot take "
                            "the name (MuJoCo: repeated default class name)");
        return imp_fail(M, LD_EINVAL, bad->line, "default",
                        "a nested default needs a class name (MuJoCo: empty class name)");
    }
    char at[300];
    return imp_fail(M, LD_EINVAL, K->c[rep].line, "default",
                    "class '%.60s' is defined a second time (first at %s): class names are "
                    "unique in a model, as in MuJoCo",
                    K->c[rep].name, imp_at(M, K->c[first].line, at, sizeof at));
}

int mj_check_classes(imp_model *M, const xmlNode *root) {
    classes K = {NULL, 0, 0, -1};
    int rc = LD_OK;
    for (const xmlNode *d = root->children; !rc && d; d = d->next)
        if (imp_is(d, "default")) rc = collect(&K, d);
    mj_class bad = {NULL, 0, -1};
    if (!rc && K.bad >= 0) bad = K.c[K.bad];
    if (!rc && K.n > 1) qsort(K.c, (size_t)K.n, sizeof *K.c, by_name);
    long first = -1, rep = rc ? -1 : first_repeat(&K, &first);
    if (!rc && (rep >= 0 || bad.order >= 0))
        rc = refuse(M, &K, bad.order >= 0 ? &bad : NULL, rep, first);
    for (long i = 0; i < K.n; ++i) xmlFree(K.c[i].name);
    free(K.c);
    return rc;
}

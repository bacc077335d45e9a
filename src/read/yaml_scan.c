/*
 * The YAML model reader, continued (yaml.c): a linear pre-scan of the text with libyaml's event
 * parser, run before the document loader. It checks the limits of every YAML file liedyn reads
 * (yaml_limits.h: nesting, anchors and aliases; the loader's work grows with the square of the
 * depth, so a deeply nested file would hang it) and notes the scalars that carry an explicit
 * tag: `mass: !!str 15` is a string, not the number 15, but the loaded document no longer tells
 * the two apart.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "reader.h"
#include "yaml_limits.h"
#include "../core/oom.h"

/* ------------------------------------------------------------------ the limits */

#define ANCHOR_SLOTS (2 * LD_MODEL_MAX_ANCHORS) /* power of two, at most half full */
#define OPEN_NODE    SIZE_MAX                   /* the size of an anchor whose node is open */

/* The slot of anchor a in the table: where it is, or the free slot where it would go. */
static size_t anchor_slot(const ld_yaml_limits *s, const char *a) {
    uint32_t h = 2166136261u;
    for (const char *p = a; *p; ++p) h = (h ^ (unsigned char)*p) * 16777619u;
    size_t i = h & (ANCHOR_SLOTS - 1);
    while (s->name[i] && strcmp(s->name[i], a) != 0) i = (i + 1) & (ANCHOR_SLOTS - 1);
    return i;
}

/* Forget the anchors (a new document starts). */
static void anchors_clear(ld_yaml_limits *s) {
    for (size_t i = 0; s->name && i < ANCHOR_SLOTS; ++i) {
        free(s->name[i]);
        s->name[i] = NULL;
    }
}

void ld_yaml_limits_free(ld_yaml_limits *s) {
    anchors_clear(s);
    free(s->name);
    free(s->size);
    s->name = NULL;
    s->size = NULL;
}

/* A new anchor a, its node open: its slot + 1, or 0 with why (too many, given twice, no
 * memory: *nomem set). */
static size_t anchor_new(ld_yaml_limits *s, const char *a, const char *what, char *why, size_t cap,
                         int *nomem) {
    if (++s->anchors > LD_MODEL_MAX_ANCHORS) {
        snprintf(why, cap, "more than %d anchors (the limit of %s)", LD_MODEL_MAX_ANCHORS, what);
        return 0;
    }
    if (!s->name) {
        s->name = ld_xcalloc(ANCHOR_SLOTS, sizeof *s->name, "the anchors' names");
        s->size = ld_xcalloc(ANCHOR_SLOTS, sizeof *s->size, "the anchors' sizes");
    }
    size_t i = s->name && s->size ? anchor_slot(s, a) : 0;
    if (s->name && s->size && s->name[i]) {
        snprintf(why, cap, "the anchor '&%.40s' is given twice", a);
        return 0;
    }
    if (!s->name || !s->size || !(s->name[i] = ld_xstrdup(a, "an anchor's name"))) {
        *nomem = 1;
        ld_oom_last(why, cap);
        return 0;
    }
    s->size[i] = OPEN_NODE;
    return i + 1;
}

/* Add n nodes to the collection that is open (or to the top level). */
static void add_nodes(ld_yaml_limits *s, size_t n) {
    if (s->depth > 0)
        s->open[s->depth] += n;
    else
        s->root += n;
}

/* An alias: the nodes it stands for. 0 or LD_EINVAL with why. */
static int alias_event(ld_yaml_limits *s, const char *a, const char *what, char *why, size_t cap) {
    if (++s->aliases > LD_MODEL_MAX_ALIASES) {
        snprintf(why, cap, "more than %d aliases (the limit of %s)", LD_MODEL_MAX_ALIASES, what);
        return LD_EINVAL;
    }
    size_t i = s->name ? anchor_slot(s, a) : 0, n = s->name && s->name[i] ? s->size[i] : 0;
    if (n == OPEN_NODE) {
        snprintf(why, cap, "the alias '*%.40s' is inside the node it names (a cycle)", a);
        return LD_EINVAL;
    }
    s->alias_nodes += n;
    if (s->alias_nodes > LD_MODEL_MAX_ALIAS_NODES) {
        snprintf(why, cap,
                 "the aliases stand for more than %d nodes in all (nested aliases; the limit of "
                 "%s)",
                 LD_MODEL_MAX_ALIAS_NODES, what);
        return LD_EINVAL;
    }
    add_nodes(s, n);
    return LD_OK;
}

/* A node's start (collection: open = 1) or a scalar (open = 0) with anchor a (NULL: none). */
static int node_event(ld_yaml_limits *s, const char *a, int open, const char *what, char *why,
                      size_t cap) {
    int nomem = 0;
    size_t slot = a ? anchor_new(s, a, what, why, cap, &nomem) : 0;
    if (a && !slot) return nomem ? LD_ENOMEM : LD_EINVAL;
    if (!open) {
        if (slot) s->size[slot - 1] = 1;
        add_nodes(s, 1);
        return LD_OK;
    }
    if (s->depth >= LD_MODEL_MAX_DEPTH) {
        snprintf(why, cap, "nesting deeper than %d levels (the limit of %s)", LD_MODEL_MAX_DEPTH,
                 what);
        return LD_EINVAL;
    }
    ++s->depth;
    s->open[s->depth] = 1;
    s->anchored[s->depth] = slot;
    return LD_OK;
}

/* A collection ends: its nodes go to its anchor and its parent. */
static void end_event(ld_yaml_limits *s) {
    if (s->depth < 1) return;
    size_t n = s->open[s->depth], slot = s->anchored[s->depth];
    if (slot) s->size[slot - 1] = n;
    --s->depth;
    add_nodes(s, n);
}

int ld_yaml_limits_event(ld_yaml_limits *s, const yaml_event_t *ev, const char *what, int *line,
                         char *why, size_t cap) {
    *line = (int)ev->start_mark.line + 1;
    switch (ev->type) {
    case YAML_SEQUENCE_START_EVENT:
        return node_event(s, (const char *)ev->data.sequence_start.anchor, 1, what, why, cap);
    case YAML_MAPPING_START_EVENT:
        return node_event(s, (const char *)ev->data.mapping_start.anchor, 1, what, why, cap);
    case YAML_SCALAR_EVENT:
        return node_event(s, (const char *)ev->data.scalar.anchor, 0, what, why, cap);
    case YAML_ALIAS_EVENT:
        return alias_event(s, (const char *)ev->data.alias.anchor, what, why, cap);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        end_event(s);
        return LD_OK;
    case YAML_DOCUMENT_END_EVENT:
        anchors_clear(s);
        return LD_OK;
    default:
        return LD_OK;
    }
}

int ld_yaml_check(const char *text, size_t len, const char *what, int *line, char *why,
                  size_t cap) {
    yaml_parser_t p;
    *line = 0;
    if (!yaml_parser_initialize(&p)) return ld_oom_format_lib(why, cap, "libyaml");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    ld_yaml_limits s;
    memset(&s, 0, sizeof s);
    int rc = LD_OK, done = 0;
    while (!rc && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = p.error == YAML_MEMORY_ERROR ? LD_ENOMEM : LD_EINVAL;
            *line = (int)p.problem_mark.line + 1;
            if (rc == LD_ENOMEM)
                ld_oom_format_lib(why, cap, "libyaml");
            else
                snprintf(why, cap, "%s", p.problem ? p.problem : "not valid YAML");
            break;
        }
        rc = ld_yaml_limits_event(&s, &ev, what, line, why, cap);
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    ld_yaml_limits_free(&s);
    yaml_parser_delete(&p);
    return rc;
}

/* ------------------------------------------------------------------ the model reader's pass */

/* Is tag one that keeps a number a number (!!int, !!float)? */
static int numeric_tag(const unsigned char *tag) {
    const char *t = (const char *)tag;
    return strcmp(t, YAML_INT_TAG) == 0 || strcmp(t, YAML_FLOAT_TAG) == 0;
}

/* Append offset to r->tagged (ascending: events come in document order). */
static int note_tagged(reader *r, size_t offset) {
    if (r->ntagged == r->tagcap) {
        size_t cap = r->tagcap ? 2 * r->tagcap : 16;
        size_t *t = ld_xrealloc(r->tagged, cap * sizeof *t, "the tagged nodes");
        if (!t) return LD_ENOMEM;
        r->tagged = t;
        r->tagcap = cap;
    }
    r->tagged[r->ntagged++] = offset;
    return LD_OK;
}

/* One event: the limits and the tagged scalars. *done is set at the end of the stream. */
static int scan_event(reader *r, ld_yaml_limits *s, const yaml_event_t *ev, int *done) {
    char why[200];
    int line, rc = ld_yaml_limits_event(s, ev, "a model file", &line, why, sizeof why);
    if (rc == LD_ENOMEM) return ly_fail(r, line, "%s", why), LD_ENOMEM;
    if (rc) return ly_fail_key(r, line, "(document)", "%s", why);
    if (ev->type == YAML_SCALAR_EVENT && ev->data.scalar.tag && !ev->data.scalar.plain_implicit &&
        !ev->data.scalar.quoted_implicit && !numeric_tag(ev->data.scalar.tag) &&
        note_tagged(r, ev->start_mark.index) != LD_OK)
        return ly_out_of_memory(r, line);
    *done = ev->type == YAML_STREAM_END_EVENT;
    return LD_OK;
}

int ly_prescan(reader *r, const char *text, size_t len) {
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) return ly_yaml_out_of_memory(r);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    ld_yaml_limits s;
    memset(&s, 0, sizeof s);
    int done = 0, rc = LD_OK;
    while (!rc && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = ly_syntax_error(r, &p, text, len);
            break;
        }
        rc = scan_event(r, &s, &ev, &done);
        yaml_event_delete(&ev);
    }
    ld_yaml_limits_free(&s);
    yaml_parser_delete(&p);
    return rc;
}

int ly_is_tagged(const reader *r, const yaml_node_t *n) {
    size_t lo = 0, hi = r->ntagged, at = n->start_mark.index;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->tagged[mid] < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->ntagged && r->tagged[lo] == at;
}

/*
 * The YAML model reader, continued (yaml.c): a linear pre-scan of the text with libyaml's event
 * parser, run before the document loader. It bounds the nesting depth (the loader's work grows
 * with the square of the depth, so a deeply nested file would hang it) and notes the scalars
 * that carry an explicit tag: `mass: !!str 15` is a string, not the number 15, but the loaded
 * document no longer tells the two apart.
 */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "reader.h"

/* Is tag one that keeps a number a number (!!int, !!float)? */
static int numeric_tag(const unsigned char *tag) {
    const char *t = (const char *)tag;
    return strcmp(t, YAML_INT_TAG) == 0 || strcmp(t, YAML_FLOAT_TAG) == 0;
}

/* Append offset to r->tagged (ascending: events come in document order). */
static int note_tagged(reader *r, size_t offset) {
    if (r->ntagged == r->tagcap) {
        size_t cap = r->tagcap ? 2 * r->tagcap : 16;
        size_t *t = realloc(r->tagged, cap * sizeof *t);
        if (!t) return LD_ENOMEM;
        r->tagged = t;
        r->tagcap = cap;
    }
    r->tagged[r->ntagged++] = offset;
    return LD_OK;
}

/* One event: depth bookkeeping and tagged scalars. *done is set at the end of the stream. */
static int scan_event(reader *r, const yaml_event_t *ev, int *depth, int *done) {
    switch (ev->type) {
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        if (++*depth > LD_MODEL_MAX_DEPTH)
            return ly_fail_key(r, (int)ev->start_mark.line + 1, "(document)",
                               "nesting deeper than %d levels (the limit of a model file)",
                               LD_MODEL_MAX_DEPTH);
        return LD_OK;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        --*depth;
        return LD_OK;
    case YAML_SCALAR_EVENT:
        if (ev->data.scalar.tag && !ev->data.scalar.plain_implicit &&
            !ev->data.scalar.quoted_implicit && !numeric_tag(ev->data.scalar.tag) &&
            note_tagged(r, ev->start_mark.index) != LD_OK)
            return ly_out_of_memory(r, (int)ev->start_mark.line + 1);
        return LD_OK;
    case YAML_STREAM_END_EVENT:
        *done = 1;
        return LD_OK;
    default:
        return LD_OK;
    }
}

int ly_prescan(reader *r, const char *text, size_t len) {
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        ly_fail_key(r, 0, "(syntax)", "out of memory");
        return LD_ENOMEM;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int depth = 0, done = 0, rc = LD_OK;
    while (!rc && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = ly_syntax_error(r, &p, text, len);
            break;
        }
        rc = scan_event(r, &ev, &depth, &done);
        yaml_event_delete(&ev);
    }
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

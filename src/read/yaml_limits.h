/*
 * Internal to the library (src/read; the liedyn tool uses it too): the limits of every YAML
 * file liedyn reads — model files and sweep files alike — checked by one linear pass of
 * libyaml's event parser before its document loader runs:
 *   nesting at most LD_MODEL_MAX_DEPTH levels (the loader's work grows with the square of the
 *     depth);
 *   at most LD_MODEL_MAX_ANCHORS anchors and LD_MODEL_MAX_ALIASES aliases (the loader looks
 *     each of them up in a list of the anchors);
 *   each anchor given once, and no alias inside the node it names (a cycle);
 *   aliases that stand for at most LD_MODEL_MAX_ALIAS_NODES nodes in all, counted as if each
 *     were replaced by a copy of its node (so nested aliases — "billion laughs" — cannot make
 *     a few hundred bytes stand for 10⁹ nodes in whoever walks the document).
 * (The size limit, LD_MODEL_MAX_BYTES, is checked on reading the file.)
 */
#ifndef LIEDYN_READ_YAML_LIMITS_H
#define LIEDYN_READ_YAML_LIMITS_H

#include <stddef.h>

#include <yaml.h>

#include "liedyn/model.h"

/* The state of the pass: zero it before the first event, free it after the last. */
typedef struct ld_yaml_limits {
    int depth;
    size_t
        open[LD_MODEL_MAX_DEPTH + 1]; /* per open collection: its nodes so far (aliases expanded) */
    size_t anchored[LD_MODEL_MAX_DEPTH + 1]; /* its anchor's slot in the table + 1 (0: none) */
    size_t root;                             /* nodes at the top level */
    size_t anchors, aliases, alias_nodes;
    char **name;  /* the anchors of the current document: open-addressed table */
    size_t *size; /* their nodes (SIZE_MAX while the node is open) */
    size_t cap;
} ld_yaml_limits;

/* Account one event. LD_OK, or LD_EINVAL with the reason in why ("nesting deeper than 64
 * levels", "the alias '*a' stands for more than 1000000 nodes in all (nested aliases)", …;
 * `what` names the kind of file in it: "a model file") and *line the event's line, or
 * LD_ENOMEM. */
int ld_yaml_limits_event(ld_yaml_limits *s, const yaml_event_t *ev, const char *what, int *line,
                         char *why, size_t cap);
void ld_yaml_limits_free(ld_yaml_limits *s);

/* The whole pass over text[len]. LD_OK, or LD_EINVAL (a limit, or a syntax error: libyaml's
 * reason) / LD_ENOMEM with *line and why. */
int ld_yaml_check(const char *text, size_t len, const char *what, int *line, char *why, size_t cap);

#endif

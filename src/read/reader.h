/*
 * Internal to the YAML model reader (yaml.c, yaml_joints.c, yaml_rods.c): the walk's state and
 * the helpers
 * that read one item of a mapping with its key on the path (docs/model-format.md).
 *
 * Every helper fails with "FILE:LINE: KEY: REASON" in r->err (KEY the current path) and
 * returns LD_EINVAL (LD_ENOMEM when out of memory); outputs keep their defaults when a key is
 * absent.
 */
#ifndef LIEDYN_SRC_READ_READER_H
#define LIEDYN_SRC_READ_READER_H

#include <stddef.h>

#include <yaml.h>

#include "liedyn/model.h"

#include "../core/strf.h"
#include "../model/names.h"

typedef struct reader {
    yaml_document_t *doc;
    const char *file;
    ld_model_error *err; /* never NULL */
    char path[128];      /* key path of the item being read: "bodies[0].inertia" */
    size_t plen;
    /* byte offsets of the scalars with an explicit tag other than !!int and !!float, ascending
     * (ly_prescan); such a scalar is not a number whatever its text */
    size_t *tagged;
    size_t ntagged, tagcap;
    ld_name_index bodies; /* names of the bodies read so far (ly_find_body) */
} reader;

/* A looked-up value: the node (NULL if absent) and the line of its key. */
typedef struct field {
    yaml_node_t *val;
    int line;
} field;

/* Failure of the item at the current path. */
LD_PRINTF(3, 4)
int ly_fail(reader *r, int line, const char *fmt, ...);
/* Failure of something without a key path: key is "(document)", "(syntax)", "(file)". */
LD_PRINTF(4, 5)
int ly_fail_key(reader *r, int line, const char *key, const char *fmt, ...);
/* libyaml's complaint (a failed parse of text[len]) as an error; LD_EINVAL or LD_ENOMEM. */
int ly_syntax_error(reader *r, const yaml_parser_t *p, const char *text, size_t len);

/* Append ".key" ("[i]") to the path; returns the length to restore with ly_pop. */
size_t ly_push_key(reader *r, const char *key);
size_t ly_push_index(reader *r, int i);
void ly_pop(reader *r, size_t mark);

int ly_line_of(const yaml_node_t *n);
/* The line of key in map (the map's own line when the key is absent). */
int ly_key_line(reader *r, const yaml_node_t *map, const char *key);
/* "out of memory: N bytes for WHAT" (the last refusal, oom.h) at line; returns LD_ENOMEM. */
int ly_out_of_memory(reader *r, int line);
/* libyaml ran out of memory (it does not say how much); returns LD_ENOMEM. */
int ly_yaml_out_of_memory(reader *r);
/* Length and item i of a sequence node. */
int ly_seq_len(const yaml_node_t *n);
yaml_node_t *ly_seq_item(reader *r, const yaml_node_t *n, int i);

/* The keys of map are scalars from allowed[] (NULL-terminated), each given once; context
 * (NULL for "unknown key") says why a key is not allowed, e.g. "for shape 'ramp'". */
int ly_check_keys(reader *r, const yaml_node_t *map, const char *const *allowed,
                  const char *context);
/* Value of key in map, NULL if absent or empty (the caller has pushed key on the path); a
 * required key that is absent or empty fails. */
int ly_lookup(reader *r, const yaml_node_t *map, const char *key, int required, field *f);
int ly_expect_map(reader *r, const yaml_node_t *n, int line, const char *what);
/* n is a list ("expected a list of WHAT"). */
int ly_expect_seq(reader *r, const yaml_node_t *n, int line, const char *what);

/* A scalar as a name of at most LD_NAME_MAX − 1 bytes. */
int ly_read_name(reader *r, const yaml_node_t *n, int line, char out[LD_NAME_MAX], int allow_empty);
/* A list of numbers of any length, allocated (NULL when empty). */
int ly_read_list(reader *r, field f, double **out, int *count);

/* Key of map read into out (which keeps its default when the key is absent). */
int ly_get_number(reader *r, const yaml_node_t *map, const char *key, int required, double *out);
int ly_get_int(reader *r, const yaml_node_t *map, const char *key, int required, int *out);
/* given (may be NULL) is set to 1 when the key is present. */
int ly_get_vec(reader *r, const yaml_node_t *map, const char *key, int required, double *out,
               int len, int *given);
int ly_get_name(reader *r, const yaml_node_t *map, const char *key, int required, int allow_empty,
                char out[LD_NAME_MAX]);
/* One of the words of choices[] (NULL-terminated); *out = its index. */
int ly_get_choice(reader *r, const yaml_node_t *map, const char *key, int required,
                  const char *const *choices, int *out);

/* The index of the body called name among the bodies of m read so far, or −1 (a sorted index
 * of the names, rebuilt when the bodies change; O(log n) per lookup). */
int ly_find_body(reader *r, const ld_model *m, const char *name);
/* yaml_contact.c: the top-level `contact_exclude:` (optional), after every body (rods' and
 * beams' nodes included). */
int ly_read_contact_exclude(reader *r, const yaml_node_t *root, ld_model *m);

/* yaml_scan.c: one linear pass of libyaml's event parser over text[len] before the document is
 * loaded: checks the limits of every YAML file (yaml_limits.h: nesting, anchors, aliases) and
 * records the explicitly tagged scalars in r->tagged. LD_OK, LD_EINVAL (syntax or a limit;
 * r->err filled in), LD_ENOMEM. */
int ly_prescan(reader *r, const char *text, size_t len);
/* Does scalar n carry an explicit tag other than !!int and !!float (ly_prescan)? */
int ly_is_tagged(const reader *r, const yaml_node_t *n);

/* yaml_joints.c: the time function under key "time" of map (constant 1 when absent), and one
 * joint (bodies already read). */
int ly_read_time(reader *r, const yaml_node_t *map, ld_tfn *fn);
int ly_read_joint(reader *r, const yaml_node_t *n, const ld_model *m, ld_joint *j);
/* yaml_rods.c: the list under key "rods" of root (optional), each rod's nodes appended to the
 * bodies (read before the joints and loads, which may name the nodes). */
int ly_read_rods(reader *r, const yaml_node_t *root, ld_model *m);
/* The block `beams:` (yaml_beams.c), after the rods: their free nodes become bodies. */
int ly_read_beams(reader *r, const yaml_node_t *root, ld_model *m);

/* The `shape:` of each body (yaml_shapes.c), after the bodies (body i of the list is body i of
 * the model): appended to m->shapes. */
int ly_read_shapes(reader *r, const yaml_node_t *root, ld_model *m);
/* The optional `collide: {radius, restitution, friction}` of a rod or beam item into *c (on = 0
 * when absent; yaml_collide.c). */
int ly_read_collide(reader *r, const yaml_node_t *item, ld_collide *c);
/* The top-level `contact_law:` (optional; yaml_contact.c): how contacts act (model.h). */
int ly_read_contact_law(reader *r, const yaml_node_t *root, ld_model *m);

/* The integrator block (yaml_run.c) of the document root into s. */
int ly_read_run(reader *r, const yaml_node_t *root, ld_run_spec *s);
/* yaml_output.c: the output block into m->output (and m->run.output_every). */
int ly_read_output(reader *r, const yaml_node_t *root, ld_model *m);

/* The loads list (yaml_loads.c) of the document root into m (bodies read before). */
int ly_read_loads(reader *r, const yaml_node_t *root, ld_model *m);

/* One item of the lists bodies, elements, and a body's shapes (body i, its mapping n); the
 * validation of the whole model with its failure at the line of its key in the tree of root (NULL:
 * no line); the single document of text[len] into doc (yaml.c, yaml_elements.c, yaml_shapes.c). */
int ly_read_body(reader *r, const yaml_node_t *n, ld_body *b);
int ly_read_element(reader *r, const yaml_node_t *n, const ld_model *m, ld_element *el);
int ly_read_body_shapes(reader *r, const yaml_node_t *n, int i, ld_model *m);
int ly_validate_located(reader *r, const yaml_node_t *root, const ld_model *m);
int ly_load_document(reader *r, yaml_parser_t *p, yaml_document_t *doc, const char *text,
                     size_t len);

#endif

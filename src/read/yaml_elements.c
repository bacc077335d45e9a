/*
 * The YAML model reader, continued (yaml.c): the block `elements:` (docs/model-format.md,
 * docs/elements.md). Each item names its type from the element registry (elements.c); the
 * common keys name, type, body1, body2 are read here, the type's own keys by its reader.
 * Structure only; ld_model_validate checks the physics through the registry's checks.
 */
#include <stdlib.h>
#include <string.h>

#include "../elements/elements.h"
#include "liedyn/liedyn.h"
#include "reader.h"
#include "../core/oom.h"

#define MAX_KEYS 32

static const char *const common_keys[] = {"name", "type", "body1", "body2", NULL};

/* The common keys and those of every type that a file can give (NULL-terminated). */
static void all_keys(const char **keys, const char **types) {
    int n = 0, nt = 0;
    for (int i = 0; common_keys[i]; ++i) keys[n++] = common_keys[i];
    for (int t = 0; t < ld_element_type_count(); ++t) {
        const ld_el_type *ty = ld_el_type_get(t);
        if (!ty->read) continue;
        types[nt++] = ty->name;
        for (int i = 0; ty->keys[i] && n < MAX_KEYS - 1; ++i) {
            int dup = 0;
            for (int j = 0; j < n; ++j) dup |= strcmp(keys[j], ty->keys[i]) == 0;
            if (!dup) keys[n++] = ty->keys[i];
        }
    }
    keys[n] = NULL;
    types[nt] = NULL;
}

/* The keys of type ty. */
static void type_keys(const ld_el_type *ty, const char **keys) {
    int n = 0;
    for (int i = 0; common_keys[i]; ++i)
        if (ty->bodies == 2 || strncmp(common_keys[i], "body", 4) != 0) keys[n++] = common_keys[i];
    for (int i = 0; ty->keys[i] && n < MAX_KEYS - 1; ++i) keys[n++] = ty->keys[i];
    keys[n] = NULL;
}

/* The body named by key: its index, or LD_GROUND for 'ground' when allowed. */
static int get_body(reader *r, const yaml_node_t *map, const ld_model *m, const char *key,
                    int required, int *out) {
    field f;
    char name[LD_NAME_MAX];
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, required, &f);
    if (!rc && f.val) rc = ly_read_name(r, f.val, f.line, name, 0);
    if (!rc && f.val) {
        int k = ly_find_body(r, m, name);
        if (strcmp(name, "ground") == 0)
            *out = LD_GROUND;
        else if (k >= 0)
            *out = k;
        else
            rc = ly_fail(r, f.line, "no body named '%s'", name);
    }
    ly_pop(r, mark);
    return rc;
}

int ly_read_element(reader *r, const yaml_node_t *n, const ld_model *m, ld_element *el) {
    const char *keys[MAX_KEYS], *types[MAX_KEYS];
    int rc, type = 0;
    all_keys(keys, types);
    el->body1 = LD_GROUND;
    el->body2 = LD_GROUND;
    if ((rc = ly_expect_map(r, n, ly_line_of(n), "an element"))) return rc;
    if ((rc = ly_check_keys(r, n, keys, NULL))) return rc;
    if ((rc = ly_get_name(r, n, "name", 0, 1, el->name))) return rc;
    if ((rc = ly_get_choice(r, n, "type", 1, types, &type))) return rc;
    el->type = ld_element_type_find(types[type]);
    const ld_el_type *ty = ld_el_type_get(el->type);
    char why[64];
    strf(why, sizeof why, "for type '%s'", ty->name);
    type_keys(ty, keys);
    if ((rc = ly_check_keys(r, n, keys, why))) return rc;
    if (ty->bodies == 2 && (rc = get_body(r, n, m, "body1", 0, &el->body1))) return rc;
    if (ty->bodies == 2 && (rc = get_body(r, n, m, "body2", 1, &el->body2))) return rc;
    return ty->read(r, n, m, el);
}

int ly_read_elements(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "elements");
    int rc = ly_lookup(r, root, "elements", 0, &f), n = 0;
    if (!rc && f.val) rc = ly_expect_seq(r, f.val, f.line, "elements");
    if (!rc && f.val && (n = ly_seq_len(f.val)) > 0 &&
        !(m->elements = ld_xcalloc((size_t)n, sizeof *m->elements, "the elements")))
        rc = ly_out_of_memory(r, f.line);
    if (!rc) m->nelements = n;
    for (int i = 0; !rc && i < n; ++i) {
        size_t im = ly_push_index(r, i);
        const yaml_node_t *item = ly_seq_item(r, f.val, i);
        m->elements[i].line = ly_line_of(item);
        rc = ly_read_element(r, item, m, &m->elements[i]);
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

/*
 * One item appended to a model's list of bodies, joints or elements (ld_model_add_item), read
 * by the reader's own item functions from the item's text, so that a model built item by item
 * (the Python API's add_body, add_joint, add_element) means exactly what the same items mean
 * in a model file: the same keys, defaults, forms and messages. The whole model is validated
 * afterwards; on any failure the model is as it was.
 */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

#include "../core/oom.h"
#include "reader.h"

/* The counts of the lists an item may extend. */
typedef struct counts {
    int nbodies, njoints, nelements, nshapes, nmeshes;
} counts;

static counts counts_of(const ld_model *m) {
    counts c = {m->nbodies, m->njoints, m->nelements, m->nshapes, m->nmeshes};
    return c;
}

/* Undo what was appended since c: the new items' own arrays freed, the counts restored. */
static void roll_back(ld_model *m, counts c) {
    for (int i = c.njoints; i < m->njoints; ++i) {
        free(m->joints[i].fn.tab_t);
        free(m->joints[i].fn.tab_f);
    }
    for (int i = c.nelements; i < m->nelements; ++i) free(m->elements[i].par);
    for (int i = c.nmeshes; i < m->nmeshes; ++i) ld_mesh_free(&m->meshes[i]);
    m->nbodies = c.nbodies;
    m->njoints = c.njoints;
    m->nelements = c.nelements;
    m->nshapes = c.nshapes;
    m->nmeshes = c.nmeshes;
}

/* One zeroed slot appended to the array *p of *n items of size bytes (the count not yet
 * raised): the slot, or NULL (LD_ENOMEM in *rc). */
static void *slot(reader *r, void **p, int n, size_t size, const char *what, int *rc) {
    char *a = ld_xrealloc(*p, ((size_t)n + 1) * size, what);
    if (!a) {
        *rc = ly_out_of_memory(r, 0);
        return NULL;
    }
    *p = a;
    memset(a + (size_t)n * size, 0, size);
    return a + (size_t)n * size;
}

/* Read item n into the list `list` of m (the count raised only when it was read). */
static int read_item(reader *r, const yaml_node_t *n, const char *list, ld_model *m) {
    int rc = LD_OK;
    size_t mark = ly_push_key(r, list);
    if (strcmp(list, "bodies") == 0) {
        size_t im = ly_push_index(r, m->nbodies);
        ld_body *b = slot(r, (void **)&m->bodies, m->nbodies, sizeof *b, "the bodies", &rc);
        if (b && !(rc = ly_read_body(r, n, b))) {
            m->nbodies++;
            rc = ly_read_body_shapes(r, n, m->nbodies - 1, m);
        }
        ly_pop(r, im);
    } else if (strcmp(list, "joints") == 0) {
        size_t im = ly_push_index(r, m->njoints);
        ld_joint *j = slot(r, (void **)&m->joints, m->njoints, sizeof *j, "the joints", &rc);
        if (j) rc = ly_read_joint(r, n, m, j);
        if (j) m->njoints++; /* counted even on failure: roll_back frees its tables */
        ly_pop(r, im);
    } else if (strcmp(list, "elements") == 0) {
        size_t im = ly_push_index(r, m->nelements);
        ld_element *e =
            slot(r, (void **)&m->elements, m->nelements, sizeof *e, "the elements", &rc);
        if (e) rc = ly_read_element(r, n, m, e);
        if (e) m->nelements++;
        ly_pop(r, im);
    } else {
        rc = ly_fail_key(r, 0, "(arguments)", "no list '%s' (bodies, joints, elements)", list);
    }
    ly_pop(r, mark);
    return rc;
}

/* Parse text, read its item into m and validate; roll back on failure. */
static int add_parsed(reader *r, ld_model *m, const char *list, const char *text, size_t len) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return ly_yaml_out_of_memory(r);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    yaml_document_t doc;
    counts c = counts_of(m);
    int rc = ly_load_document(r, &parser, &doc, text, len);
    if (rc == LD_OK) {
        r->doc = &doc;
        rc = read_item(r, yaml_document_get_root_node(&doc), list, m);
        if (rc == LD_OK) rc = ly_validate_located(r, NULL, m);
        if (rc != LD_OK) roll_back(m, c);
        yaml_document_delete(&doc);
        r->doc = NULL;
    }
    yaml_parser_delete(&parser);
    return rc;
}

int ld_model_add_item(ld_model *m, const char *list, const char *text, size_t len, const char *name,
                      ld_model_error *err) {
    ld_model_error scratch;
    memset(&scratch, 0, sizeof scratch);
    reader r = {.file = name ? name : "<item>", .err = &scratch};
    int rc;
    if (!m || !list || !text)
        rc = ly_fail_key(&r, 0, "(arguments)", "no model, list or text");
    else
        rc = ly_prescan(&r, text, len);
    if (rc == LD_OK) rc = add_parsed(&r, m, list, text, len);
    free(r.tagged);
    ld_names_free(&r.bodies);
    if (rc != LD_OK && err) *err = scratch;
    return rc;
}

/*
 * The `shape:` of a body in a YAML model (docs/model-format.md): one mapping or a list of
 * them, each with its type and sizes, read after the bodies into the model's list of shapes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "reader.h"

static const char *const shape_types[] = {"box", "sphere", "cylinder", "cone", "capsule", NULL};

/* The keys each type takes (besides type, center, color and, for the round ones, axis). */
static const char *const keys_box[] = {"type", "size", "center", "color", NULL};
static const char *const keys_sphere[] = {"type", "radius", "center", "color", NULL};
static const char *const keys_round[] = {"type",   "radius", "length", "axis",
                                         "center", "color",  NULL};

/* The line of key in map (the map's own line when absent). */
static int key_line(reader *r, const yaml_node_t *map, const char *key) {
    field f;
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, 0, &f);
    ly_pop(r, mark);
    return !rc && f.val ? f.line : ly_line_of(map);
}

/* A unit axis: the given one normalized (not zero). */
static int read_axis(reader *r, const yaml_node_t *n, double axis[3]) {
    int given = 0;
    double a[3] = {0.0, 0.0, 1.0};
    int rc = ly_get_vec(r, n, "axis", 0, a, 3, &given);
    if (rc) return rc;
    double s = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(s > 1e-12 && isfinite(s))) {
        size_t mark = ly_push_key(r, "axis");
        rc = ly_fail(r, key_line(r, n, "axis"), "must be a non-zero finite vector");
        ly_pop(r, mark);
        return rc;
    }
    for (int i = 0; i < 3; ++i) axis[i] = a[i] / s;
    return LD_OK;
}

/* One shape mapping of body b. */
static int read_shape(reader *r, const yaml_node_t *n, int b, int nbodies, ld_shape *s) {
    int rc, kind = 0;
    memset(s, 0, sizeof *s);
    s->body = b;
    s->line = ly_line_of(n);
    s->axis[2] = 1.0;
    s->color[0] = s->color[1] = s->color[2] = -1.0;
    if ((rc = ly_expect_map(r, n, ly_line_of(n), "a shape (type: box, sphere, cylinder, ...)")))
        return rc;
    if ((rc = ly_get_choice(r, n, "type", 1, shape_types, &kind))) return rc;
    s->kind = (ld_shape_kind)kind;
    const char *const *keys = kind == LD_SHAPE_BOX      ? keys_box
                              : kind == LD_SHAPE_SPHERE ? keys_sphere
                                                        : keys_round;
    char ctx[48];
    strf(ctx, sizeof ctx, "for type '%s'", shape_types[kind]);
    if ((rc = ly_check_keys(r, n, keys, ctx))) return rc;
    if (kind == LD_SHAPE_BOX) {
        if ((rc = ly_get_vec(r, n, "size", 1, s->size, 3, NULL))) return rc;
    } else {
        if ((rc = ly_get_number(r, n, "radius", 1, &s->size[0]))) return rc;
        if (kind != LD_SHAPE_SPHERE) {
            if ((rc = ly_get_number(r, n, "length", 1, &s->size[1]))) return rc;
            if ((rc = read_axis(r, n, s->axis))) return rc;
        }
    }
    if ((rc = ly_get_vec(r, n, "center", 0, s->center, 3, NULL))) return rc;
    if ((rc = ly_get_vec(r, n, "color", 0, s->color, 3, NULL))) return rc;
    char key[32], why[256];
    if (ld_shape_check(s, nbodies, key, sizeof key, why, sizeof why) == LD_OK) return LD_OK;
    size_t mark = ly_push_key(r, key);
    rc = ly_fail(r, key_line(r, n, key), "%s", why);
    ly_pop(r, mark);
    return rc;
}

/* Append one shape slot to m->shapes. */
static ld_shape *grow(reader *r, ld_model *m, int line, int *rc) {
    ld_shape *p = realloc(m->shapes, ((size_t)m->nshapes + 1) * sizeof *p);
    if (!p) {
        *rc = ly_out_of_memory(r, line);
        return NULL;
    }
    m->shapes = p;
    return &p[m->nshapes];
}

/* The shapes of body i (its mapping n). */
static int body_shapes(reader *r, const yaml_node_t *n, int i, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "shape");
    int rc = ly_lookup(r, n, "shape", 0, &f);
    if (rc || !f.val) {
        ly_pop(r, mark);
        return rc;
    }
    int count = f.val->type == YAML_SEQUENCE_NODE ? ly_seq_len(f.val) : 1;
    if (count > LD_SHAPES_PER_BODY_MAX)
        rc = ly_fail(r, f.line, "at most %d shapes per body, found %d", LD_SHAPES_PER_BODY_MAX,
                     count);
    for (int k = 0; !rc && k < count; ++k) {
        const yaml_node_t *item = f.val;
        size_t im = 0;
        if (f.val->type == YAML_SEQUENCE_NODE) {
            im = ly_push_index(r, k);
            item = ly_seq_item(r, f.val, k);
        }
        ld_shape *s = grow(r, m, f.line, &rc);
        if (s && !(rc = read_shape(r, item, i, m->nbodies, s))) m->nshapes++;
        if (f.val->type == YAML_SEQUENCE_NODE) ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

int ly_read_shapes(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "bodies");
    int rc = ly_lookup(r, root, "bodies", 0, &f);
    int n = !rc && f.val && f.val->type == YAML_SEQUENCE_NODE ? ly_seq_len(f.val) : 0;
    for (int i = 0; !rc && i < n; ++i) {
        size_t im = ly_push_index(r, i);
        rc = body_shapes(r, ly_seq_item(r, f.val, i), i, m);
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

/*
 * The `shape:` of a body in a YAML model (docs/model-format.md): one mapping or a list of
 * them, each with its type and sizes, read after the bodies into the model's list of shapes.
 * A mesh shape's file is read here (ld_mesh_load), once per distinct file.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/lie.h"
#include "liedyn/liedyn.h"
#include "reader.h"
#include "../core/oom.h"

static const char *const shape_types[] = {"box",     "sphere", "cylinder", "cone",
                                          "capsule", "mesh",   NULL};

/* The keys each type takes (besides type, center, color and, for the round ones, axis); a
 * ground shape also takes draw. */
static const char *const keys_box[] = {"type",     "size",           "center",
                                       "color",    "collide",        "restitution",
                                       "friction", "contact_radius", NULL};
static const char *const keys_sphere[] = {"type",     "radius",         "center",
                                          "color",    "collide",        "restitution",
                                          "friction", "contact_radius", NULL};
static const char *const keys_round[] = {"type",     "radius",         "length",  "axis",
                                         "center",   "color",          "collide", "restitution",
                                         "friction", "contact_radius", NULL};
static const char *const keys_mesh[] = {"type",        "file",  "scale", "center",
                                        "orientation", "color", NULL};
static const char *const bools[] = {"false", "true", NULL};

/* A unit direction under key (default: axis as it is), the given one normalized (not zero). */
static int read_axis_key(reader *r, const yaml_node_t *n, const char *key, double axis[3]) {
    double a[3];
    memcpy(a, axis, sizeof a);
    int rc = ly_get_vec(r, n, key, 0, a, 3, NULL);
    if (rc) return rc;
    double s = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(s > 1e-12 && isfinite(s))) {
        size_t mark = ly_push_key(r, key);
        rc = ly_fail(r, ly_key_line(r, n, key), "must be a non-zero finite vector");
        ly_pop(r, mark);
        return rc;
    }
    for (int i = 0; i < 3; ++i) axis[i] = a[i] / s;
    return LD_OK;
}

static int read_axis(reader *r, const yaml_node_t *n, double axis[3]) {
    axis[0] = axis[1] = 0.0, axis[2] = 1.0;
    return read_axis_key(r, n, "axis", axis);
}

/* ld_shape_check of shape mapping n, its complaint at the key at fault. */
static int check_shape(reader *r, const yaml_node_t *n, const ld_shape *s, int nbodies) {
    char key[32], why[256];
    if (ld_shape_check(s, nbodies, key, sizeof key, why, sizeof why) == LD_OK) return LD_OK;
    size_t mark = ly_push_key(r, key);
    int rc = ly_fail(r, ly_key_line(r, n, key), "%s", why);
    ly_pop(r, mark);
    return rc;
}

/* The file named by a mesh shape: name as written, path as opened — relative names from the
 * model file's directory (for a model read from a string: from the name it was given). */
static int mesh_path(reader *r, const yaml_node_t *n, char *name, size_t ncap, char *path,
                     size_t pcap) {
    field f;
    size_t mark = ly_push_key(r, "file");
    int rc = ly_lookup(r, n, "file", 1, &f);
    if (!rc && (f.val->type != YAML_SCALAR_NODE || f.val->data.scalar.length == 0 ||
                f.val->data.scalar.length >= ncap ||
                strlen((const char *)f.val->data.scalar.value) != f.val->data.scalar.length))
        rc = ly_fail(r, f.line, "expected the name of a mesh file (STL, OBJ, DAE) of 1 to %d bytes",
                     (int)ncap - 1);
    if (!rc) {
        memcpy(name, f.val->data.scalar.value, f.val->data.scalar.length);
        name[f.val->data.scalar.length] = '\0';
        const char *slash = strrchr(r->file, '/');
        int dir = slash ? (int)(slash - r->file) : 0;
        if (name[0] == '/' || !slash)
            strf(path, pcap, "%s", name);
        else
            strf(path, pcap, "%.*s/%s", dir, r->file, name);
    }
    ly_pop(r, mark);
    return rc;
}

/* The index in m->meshes of the mesh file of shape mapping n, read now if no shape named it
 * before (the same file, after resolving links and "..": one copy). */
static int mesh_index(reader *r, const yaml_node_t *n, ld_model *m, int *index) {
    char name[LD_MESH_PATH_MAX], path[LD_MESH_PATH_MAX + 8], real[PATH_MAX];
    int rc = mesh_path(r, n, name, sizeof name, path, sizeof path);
    if (rc) return rc;
    const char *key = realpath(path, real) ? real : path;
    for (int i = 0; i < m->nmeshes; ++i)
        if (strcmp(m->meshes[i].path, key) == 0) {
            *index = i;
            return LD_OK;
        }
    ld_mesh *p = ld_xrealloc(m->meshes, ((size_t)m->nmeshes + 1) * sizeof *p, "the meshes");
    if (!p) return ly_out_of_memory(r, ly_line_of(n));
    m->meshes = p;
    char why[256];
    size_t mark = ly_push_key(r, "file");
    rc = ld_mesh_load(key, &p[m->nmeshes], why, sizeof why);
    if (rc) {
        int fail = ly_fail(r, ly_key_line(r, n, "file"),
                           "cannot read the mesh '%.200s' (%.300s): %s", name, path, why);
        rc = rc == LD_ENOMEM ? rc : fail; /* why says how much */
    }
    ly_pop(r, mark);
    if (rc) return rc;
    p[m->nmeshes].line = ly_line_of(n);
    *index = m->nmeshes++;
    return LD_OK;
}

/* The keys of a mesh shape (after its type): file, scale, orientation. */
static int read_mesh(reader *r, const yaml_node_t *n, ld_model *m, ld_shape *s) {
    if (!m)
        return ly_fail(r, ly_line_of(n),
                       "a mesh is not a ground shape (ground shapes collide; meshes are drawn "
                       "only)");
    int rc = ly_check_keys(r, n, keys_mesh, "for type 'mesh'"), given = 0;
    double q[4] = {1, 0, 0, 0};
    s->size[0] = s->size[1] = s->size[2] = 1.0;
    if (!rc) rc = ly_get_vec(r, n, "scale", 0, s->size, 3, NULL);
    if (!rc) rc = ly_get_vec(r, n, "orientation", 0, q, 4, &given);
    if (!rc && ld_quat_normalize(s->orient, q) != LD_OK) {
        size_t mark = ly_push_key(r, "orientation");
        rc = ly_fail(r, ly_key_line(r, n, "orientation"),
                     "must be non-zero (a quaternion w, x, y, z; it is normalized)");
        ly_pop(r, mark);
    }
    if (!rc) rc = mesh_index(r, n, m, &s->mesh);
    return rc;
}

/* One shape mapping of body b (m: the model, whose meshes a mesh shape adds to; NULL for a
 * ground shape). */
static int read_shape(reader *r, const yaml_node_t *n, int b, int nbodies, ld_model *m,
                      ld_shape *s) {
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
    if (kind == LD_SHAPE_MESH) {
        if ((rc = read_mesh(r, n, m, s))) return rc;
        if ((rc = ly_get_vec(r, n, "center", 0, s->center, 3, NULL))) return rc;
        if ((rc = ly_get_vec(r, n, "color", 0, s->color, 3, NULL))) return rc;
        return check_shape(r, n, s, nbodies);
    }
    const char *const *keys = kind == LD_SHAPE_BOX      ? keys_box
                              : kind == LD_SHAPE_SPHERE ? keys_sphere
                                                        : keys_round;
    char ctx[48];
    strf(ctx, sizeof ctx, "for type '%s'", shape_types[kind]);
    const char *allowed[16];
    size_t nk = 0;
    for (; keys[nk]; ++nk) allowed[nk] = keys[nk];
    if (!m) allowed[nk++] = "draw"; /* a ground shape's: not drawn, only colliding */
    allowed[nk] = NULL;
    if ((rc = ly_check_keys(r, n, allowed, ctx))) return rc;
    s->collide = m == NULL; /* a ground shape collides unless told not to */
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
    if ((rc = ly_get_choice(r, n, "collide", 0, bools, &s->collide))) return rc;
    if ((rc = ly_get_number(r, n, "restitution", 0, &s->restitution))) return rc;
    if ((rc = ly_get_number(r, n, "friction", 0, &s->friction))) return rc;
    if ((rc = ly_get_number(r, n, "contact_radius", 0, &s->contact_radius))) return rc;
    int draw = 1;
    if ((rc = ly_get_choice(r, n, "draw", 0, bools, &draw))) return rc;
    s->hidden = !draw;
    return check_shape(r, n, s, nbodies);
}

/* Append one shape slot to m->shapes. */
static ld_shape *grow(reader *r, ld_model *m, int line, int *rc) {
    ld_shape *p = ld_xrealloc(m->shapes, ((size_t)m->nshapes + 1) * sizeof *p, "the shapes");
    if (!p) {
        *rc = ly_out_of_memory(r, line);
        return NULL;
    }
    m->shapes = p;
    return &p[m->nshapes];
}

/* The shapes of body i (its mapping n). */
int ly_read_body_shapes(reader *r, const yaml_node_t *n, int i, ld_model *m) {
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
        if (s && !(rc = read_shape(r, item, i, m->nbodies, m, s))) m->nshapes++;
        if (f.val->type == YAML_SEQUENCE_NODE) ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

static const char *const plane_keys[] = {"normal", "point", "restitution", "friction", NULL};

/* The top-level `ground_plane:` (optional): the ground's plane of contact. */
static int read_plane(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "ground_plane");
    int rc = ly_lookup(r, root, "ground_plane", 0, &f);
    if (rc || !f.val) {
        ly_pop(r, mark);
        return rc;
    }
    ld_ground_plane *p = &m->plane;
    p->on = 1;
    p->line = f.line;
    p->normal[2] = 1.0;
    if (!(rc = ly_expect_map(r, f.val, f.line, "the ground plane (normal, point, ...)")))
        rc = ly_check_keys(r, f.val, plane_keys, NULL);
    if (!rc) rc = read_axis_key(r, f.val, "normal", p->normal);
    if (!rc) rc = ly_get_vec(r, f.val, "point", 0, p->point, 3, NULL);
    if (!rc) rc = ly_get_number(r, f.val, "restitution", 0, &p->restitution);
    if (!rc) rc = ly_get_number(r, f.val, "friction", 0, &p->friction);
    if (!rc && !(p->restitution >= 0.0 && p->restitution <= 1.0))
        rc = ly_fail(r, ly_key_line(r, f.val, "restitution"), "restitution must be from 0 to 1");
    if (!rc && !(p->friction >= 0.0 && p->friction < 1e3))
        rc = ly_fail(r, ly_key_line(r, f.val, "friction"), "friction must be from 0 to 1000");
    ly_pop(r, mark);
    return rc;
}

/* The top-level `ground_shapes:` (optional): a list of shapes fixed to the ground, read as a
 * body's shapes are (center and axis in the world frame) with collide true unless given. */
static int read_ground(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "ground_shapes");
    int rc = ly_lookup(r, root, "ground_shapes", 0, &f);
    if (rc || !f.val) {
        ly_pop(r, mark);
        return rc;
    }
    if (f.val->type != YAML_SEQUENCE_NODE) {
        rc = ly_fail(r, f.line, "must be a list of shapes (- {type: box, size: [...], ...})");
        ly_pop(r, mark);
        return rc;
    }
    int count = ly_seq_len(f.val);
    m->ground = ld_xcalloc((size_t)count + 1, sizeof *m->ground, "the ground shapes");
    if (!m->ground) rc = ly_out_of_memory(r, f.line);
    for (int k = 0; !rc && k < count; ++k) {
        size_t im = ly_push_index(r, k);
        const yaml_node_t *item = ly_seq_item(r, f.val, k);
        ld_shape *s = &m->ground[k];
        if (!(rc = read_shape(r, item, 0, 1, NULL, s))) { /* checked as a shape of a body 0 */
            s->body = LD_GROUND;
            m->nground++;
        }
        ly_pop(r, im);
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
        rc = ly_read_body_shapes(r, ly_seq_item(r, f.val, i), i, m);
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    if (!rc) rc = read_plane(r, root, m);
    return rc ? rc : read_ground(r, root, m);
}

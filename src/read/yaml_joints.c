/*
 * The YAML model reader, continued (yaml.c): time functions and joints
 * (docs/model-format.md). Structure only; ld_model_validate checks the physics (unit axes,
 * axis ⊥ axis2, body1 ≠ body2, the parameters of time functions).
 */
#include <math.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "reader.h"

/* ------------------------------------------------------------------ time functions */

static const char *const time_keys[] = {"shape", "t0", "t1", "t2", "t", "f", "period", NULL};
/* in the order of ld_tfn_kind */
static const char *const shapes[] = {"constant", "ramp", "hat",     "table",
                                     "linear",   "sine", "spin-up", NULL};
static const char *const shape_keys[7][5] = {{"shape", NULL},
                                             {"shape", "t0", "t1", NULL},
                                             {"shape", "t0", "t1", "t2", NULL},
                                             {"shape", "t", "f", NULL},
                                             {"shape", "t0", NULL},
                                             {"shape", "period", "t0", NULL},
                                             {"shape", "t0", "t1", NULL}};

/* t and f of a table, of equal length. */
static int read_table(reader *r, const yaml_node_t *map, ld_tfn *fn) {
    field f;
    int nf = 0;
    size_t mark = ly_push_key(r, "t");
    int rc = ly_lookup(r, map, "t", 1, &f);
    if (!rc) rc = ly_read_list(r, f, &fn->tab_t, &fn->ntab);
    ly_pop(r, mark);
    if (rc) return rc;
    mark = ly_push_key(r, "f");
    rc = ly_lookup(r, map, "f", 1, &f);
    if (!rc) rc = ly_read_list(r, f, &fn->tab_f, &nf);
    if (!rc && nf != fn->ntab)
        rc = ly_fail(r, f.line, "must have as many values as t (%d, not %d)", fn->ntab, nf);
    ly_pop(r, mark);
    return rc;
}

int ly_read_time(reader *r, const yaml_node_t *map, ld_tfn *fn) {
    field f;
    int shape = 0;
    size_t mark = ly_push_key(r, "time");
    int rc = ly_lookup(r, map, "time", 0, &f);
    if (rc || !f.val) goto done;
    if ((rc = ly_expect_map(r, f.val, f.line, "a time function"))) goto done;
    if ((rc = ly_check_keys(r, f.val, time_keys, NULL))) goto done;
    if ((rc = ly_get_choice(r, f.val, "shape", 1, shapes, &shape))) goto done;
    char why[64];
    strf(why, sizeof why, "for shape '%s'", shapes[shape]);
    if ((rc = ly_check_keys(r, f.val, shape_keys[shape], why))) goto done;
    fn->kind = (ld_tfn_kind)shape;
    switch (fn->kind) {
    case LD_TFN_TABLE:
        rc = read_table(r, f.val, fn);
        break;
    case LD_TFN_RAMP:
    case LD_TFN_SPIN_UP:
    case LD_TFN_HAT:
        rc = ly_get_number(r, f.val, "t0", 1, &fn->t0);
        if (!rc) rc = ly_get_number(r, f.val, "t1", 1, &fn->t1);
        if (!rc && fn->kind == LD_TFN_HAT) rc = ly_get_number(r, f.val, "t2", 1, &fn->t2);
        break;
    case LD_TFN_SINE:
        rc = ly_get_number(r, f.val, "period", 1, &fn->period);
        if (!rc) rc = ly_get_number(r, f.val, "t0", 0, &fn->t0);
        break;
    case LD_TFN_LINEAR:
        rc = ly_get_number(r, f.val, "t0", 0, &fn->t0);
        break;
    case LD_TFN_CONSTANT:
        break;
    }
done:
    ly_pop(r, mark);
    return rc;
}

/* ------------------------------------------------------------------ joints */

static const char *const joint_keys[] = {
    "name",  "type", "body1",      "body2",      "at",     "axis",   "axis2",  "motion",
    "value", "time", "body",       "point",      "ground", "frame1", "frame2", "angle",
    "slide", "hold", "angle_rate", "slide_rate", "limits", NULL};
/* in the order of ld_joint_kind */
static const char *const joint_types[] = {"spherical", "universal", "revolute", "cylindrical",
                                          "prismatic", "fixed",     "driver",   NULL};
static const char *const type_keys[LD_JOINT_KIND_COUNT][10] = {
    {"name", "type", "body1", "body2", "at", NULL},                                 /* spherical */
    {"name", "type", "body1", "body2", "at", "axis", "axis2", NULL},                /* universal */
    {"name", "type", "body1", "body2", "at", "axis", "angle_rate", "limits", NULL}, /* rev */
    {"name", "type", "body1", "body2", "at", "axis", "angle_rate", "slide_rate", NULL}, /* cyl */
    {"name", "type", "body1", "body2", "at", "axis", "slide_rate", "limits", NULL},     /* pri */
    {"name", "type", "body1", "body2", "at", NULL},                                     /* fixed */
    {"name", "type", "body1", "body2", "at", "axis", "motion", "value", "time", NULL}};
static const char *const point_form_keys[] = {"name", "type", "body", "point", "ground", NULL};
static const char *const rotation_keys[] = {"name",   "type",  "body1", "body2", "axis",
                                            "motion", "value", "time",  NULL};
static const char *const motions[] = {"rotation", "translation", NULL}; /* ld_motion_kind */
/* the frame form, per kind (no driver) */
static const char *const frame_keys[LD_JOINT_KIND_COUNT][12] = {
    {"name", "type", "body1", "body2", "frame1", "frame2", NULL}, /* spherical */
    {"name", "type", "body1", "body2", "frame1", "frame2", NULL}, /* universal */
    {"name", "type", "body1", "body2", "frame1", "frame2", "angle", "hold", "angle_rate", "limits",
     NULL}, /* revolute */
    {"name", "type", "body1", "body2", "frame1", "frame2", "angle", "slide", "hold", "angle_rate",
     "slide_rate"}, /* cylindrical */
    {"name", "type", "body1", "body2", "frame1", "frame2", "slide", "hold", "slide_rate", "limits",
     NULL},                                                       /* prismatic */
    {"name", "type", "body1", "body2", "frame1", "frame2", NULL}, /* fixed */
    {NULL}};
static const char *const frame_map_keys[] = {"at", "axis", "ref", NULL};
static const char *const bools[] = {"false", "true", NULL};

/* Is key present in map (keys already checked)? */
static int has_key(reader *r, const yaml_node_t *map, const char *key) {
    size_t len = strlen(key);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         ++p) {
        const yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        if (k->type == YAML_SCALAR_NODE && k->data.scalar.length == len &&
            memcmp(k->data.scalar.value, key, len) == 0)
            return 1;
    }
    return 0;
}

/* The body named by key: its index, or LD_GROUND for the name 'ground' when allow_ground;
 * *out keeps its default when the key is absent. */
static int get_joint_body(reader *r, const yaml_node_t *map, const ld_model *m, const char *key,
                          int required, int allow_ground, int *out) {
    field f;
    char name[LD_NAME_MAX];
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, required, &f);
    if (!rc && f.val) rc = ly_read_name(r, f.val, f.line, name, 0);
    if (!rc && f.val) {
        int k = ly_find_body(r, m, name);
        if (allow_ground && strcmp(name, "ground") == 0)
            *out = LD_GROUND;
        else if (k >= 0)
            *out = k;
        else
            rc = ly_fail(r, f.line, "no body named '%s'", name);
    }
    ly_pop(r, mark);
    return rc;
}

/* A direction: 3 numbers, not all zero, normalized (scaled first: no overflow). */
static int get_axis(reader *r, const yaml_node_t *map, const char *key, double out[3]) {
    double v[3] = {0, 0, 0}, s = 0.0;
    int rc = ly_get_vec(r, map, key, 1, v, 3, NULL);
    if (rc) return rc;
    for (int i = 0; i < 3; ++i) s = fmax(s, fabs(v[i]));
    if (s == 0.0) {
        field f;
        size_t mark = ly_push_key(r, key);
        ly_lookup(r, map, key, 1, &f);
        rc = ly_fail(r, f.line, "must be non-zero (a direction; it is normalized)");
        ly_pop(r, mark);
        return rc;
    }
    for (int i = 0; i < 3; ++i) v[i] /= s;
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; ++i) out[i] = v[i] / n;
    return LD_OK;
}

/* The point form of a spherical joint: body, point (body frame), ground (spatial). */
static int read_point_form(reader *r, const yaml_node_t *n, const ld_model *m, ld_joint *j) {
    int rc = ly_check_keys(r, n, point_form_keys,
                           "in the point form of a spherical joint (with 'body')");
    if (rc) return rc;
    j->point_form = 1;
    j->body1 = LD_GROUND;
    if ((rc = get_joint_body(r, n, m, "body", 1, 0, &j->body2))) return rc;
    if ((rc = ly_get_vec(r, n, "point", 1, j->p, 3, NULL))) return rc;
    return ly_get_vec(r, n, "ground", 0, j->xg, 3, NULL);
}

/* One frame of the frame form: origin `at` (default 0), `axis` its z (default z), `ref` its x
 * (default: the body axis least aligned with axis), made ⊥ axis; the quaternion into q. */
static int read_frame(reader *r, const yaml_node_t *map, const char *key, double at[3],
                      double q[4]) {
    field f;
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, 1, &f);
    if (!rc) rc = ly_expect_map(r, f.val, f.line, "a frame (at, axis, ref)");
    if (!rc) rc = ly_check_keys(r, f.val, frame_map_keys, NULL);
    double z[3] = {0, 0, 1}, x[3] = {0, 0, 0}, y[3];
    if (!rc) rc = ly_get_vec(r, f.val, "at", 0, at, 3, NULL);
    if (!rc && has_key(r, f.val, "axis")) rc = get_axis(r, f.val, "axis", z);
    if (!rc && has_key(r, f.val, "ref")) {
        rc = get_axis(r, f.val, "ref", x);
    } else if (!rc) {
        int k = 0;
        for (int i = 1; i < 3; ++i)
            if (fabs(z[i]) < fabs(z[k])) k = i;
        x[k] = 1.0;
    }
    if (!rc) {
        double d = x[0] * z[0] + x[1] * z[1] + x[2] * z[2], nx = 0.0;
        for (int i = 0; i < 3; ++i) x[i] -= d * z[i], nx += x[i] * x[i];
        nx = sqrt(nx);
        if (!(nx > 1e-6)) {
            field g;
            size_t mk = ly_push_key(r, "ref");
            (void)ly_lookup(r, f.val, "ref", 1, &g);
            rc = ly_fail(r, g.line, "must not be parallel to axis (it is the frame's x axis)");
            ly_pop(r, mk);
        }
        for (int i = 0; !rc && i < 3; ++i) x[i] /= nx;
    }
    if (!rc) {
        y[0] = z[1] * x[2] - z[2] * x[1];
        y[1] = z[2] * x[0] - z[0] * x[2];
        y[2] = z[0] * x[1] - z[1] * x[0];
        const double R[9] = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
        ld_quat_from_mat(q, R);
    }
    ly_pop(r, mark);
    return rc;
}

/* angle_rate, slide_rate (keys checked): rates of the joint's coordinates at the start, held
 * when the joints determine the velocities. Negated when body1 and body2 were swapped. */
static int read_rates(reader *r, const yaml_node_t *n, ld_joint *j) {
    int rc = ly_get_vec(r, n, "limits", 0, j->limits, 2, &j->has_limits);
    if (!rc && j->has_limits && j->swapped) { /* the motion reversed: so are the limits */
        double lo = -j->limits[1];
        j->limits[1] = -j->limits[0], j->limits[0] = lo;
    }
    if (!rc) rc = ly_get_number(r, n, "angle_rate", 0, &j->rate[0]);
    if (!rc) rc = ly_get_number(r, n, "slide_rate", 0, &j->rate[1]);
    j->has_rate = has_key(r, n, "angle_rate") | (has_key(r, n, "slide_rate") << 1);
    if (j->swapped) j->rate[0] = -j->rate[0], j->rate[1] = -j->rate[1];
    return rc;
}

/* body1 and body2 swapped: so are the frames, and the motion is reversed. */
static void swap_frames(ld_joint *j) {
    double t[4];
    memcpy(t, j->at1, 3 * sizeof *t);
    memcpy(j->at1, j->at2, 3 * sizeof *t);
    memcpy(j->at2, t, 3 * sizeof *t);
    memcpy(t, j->f1, sizeof t);
    memcpy(j->f1, j->f2, sizeof t);
    memcpy(j->f2, t, sizeof t);
    j->coord[0] = -j->coord[0];
    j->coord[1] = -j->coord[1];
}

/* The frame form (frame1, frame2; angle, slide, hold): joint kinds other than the driver. */
static int read_frame_form(reader *r, const yaml_node_t *n, ld_joint *j, const char *type) {
    char why[96];
    if (j->kind == LD_JOINT_DRIVER) {
        field f;
        size_t mark = ly_push_key(r, has_key(r, n, "frame1") ? "frame1" : "frame2");
        (void)ly_lookup(r, n, has_key(r, n, "frame1") ? "frame1" : "frame2", 1, &f);
        int rc = ly_fail(r, f.line,
                         "a driver is given in the spatial form (at, axis) only; the frame form "
                         "is for the joint it drives");
        ly_pop(r, mark);
        return rc;
    }
    strf(why, sizeof why, "for type '%s' in the frame form (frame1, frame2)", type);
    int rc = ly_check_keys(r, n, frame_keys[j->kind], why);
    if (rc) return rc;
    j->local = 1;
    if ((rc = read_frame(r, n, "frame1", j->at1, j->f1))) return rc;
    if ((rc = read_frame(r, n, "frame2", j->at2, j->f2))) return rc;
    if ((rc = ly_get_number(r, n, "angle", 0, &j->coord[0]))) return rc;
    if ((rc = ly_get_number(r, n, "slide", 0, &j->coord[1]))) return rc;
    j->has_coord = has_key(r, n, "angle") || has_key(r, n, "slide");
    return ly_get_choice(r, n, "hold", 0, bools, &j->hold);
}

int ly_read_joint(reader *r, const yaml_node_t *n, const ld_model *m, ld_joint *j) {
    int rc, type = 0, motion = 0;
    j->body1 = LD_GROUND;
    j->body2 = LD_GROUND;
    if ((rc = ly_expect_map(r, n, ly_line_of(n), "a joint"))) return rc;
    if ((rc = ly_check_keys(r, n, joint_keys, NULL))) return rc;
    if ((rc = ly_get_name(r, n, "name", 0, 1, j->name))) return rc;
    if ((rc = ly_get_choice(r, n, "type", 1, joint_types, &type))) return rc;
    j->kind = (ld_joint_kind)type;
    if (j->kind == LD_JOINT_SPHERICAL &&
        (has_key(r, n, "body") || has_key(r, n, "point") || has_key(r, n, "ground")))
        return read_point_form(r, n, m, j);
    int frames = has_key(r, n, "frame1") || has_key(r, n, "frame2");
    char why[64];
    strf(why, sizeof why, "for type '%s'", joint_types[type]);
    if (!frames && (rc = ly_check_keys(r, n, type_keys[type], why))) return rc;
    if (frames && (rc = read_frame_form(r, n, j, joint_types[type]))) return rc;
    int rotation = 0;
    if (j->kind == LD_JOINT_DRIVER) {
        if ((rc = ly_get_choice(r, n, "motion", 1, motions, &motion))) return rc;
        j->motion = (ld_motion_kind)motion;
        rotation = j->motion == LD_MOTION_ROTATION;
        if (rotation &&
            (rc = ly_check_keys(r, n, rotation_keys, "for a driver of motion 'rotation'")))
            return rc;
    }
    if ((rc = get_joint_body(r, n, m, "body1", 0, 1, &j->body1))) return rc;
    int only_body1 = j->body1 != LD_GROUND && !has_key(r, n, "body2");
    if ((rc = get_joint_body(r, n, m, "body2", !only_body1, 1, &j->body2))) return rc;
    if (j->body2 == LD_GROUND && j->body1 != LD_GROUND && j->kind != LD_JOINT_DRIVER) {
        j->body2 = j->body1; /* a body on the ground, written either way round */
        j->body1 = LD_GROUND;
        j->swapped = 1;
        if (frames) swap_frames(j);
    }
    if ((rc = read_rates(r, n, j))) return rc;
    if (frames) return LD_OK;
    if (!rotation && (rc = ly_get_vec(r, n, "at", 1, j->at, 3, NULL))) return rc;
    if (j->kind == LD_JOINT_SPHERICAL || j->kind == LD_JOINT_FIXED) return LD_OK;
    if ((rc = get_axis(r, n, "axis", j->axis))) return rc;
    if (j->kind == LD_JOINT_UNIVERSAL) return get_axis(r, n, "axis2", j->axis2);
    if (j->kind != LD_JOINT_DRIVER) return LD_OK;
    if ((rc = ly_get_number(r, n, "value", 1, &j->value))) return rc;
    return ly_read_time(r, n, &j->fn);
}

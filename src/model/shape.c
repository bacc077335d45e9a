/*
 * Shapes of bodies: names of the kinds and the check of one shape (model.h). Shapes are for
 * the viewer and VTK output only; the dynamics never read them (contact reads the colliding
 * ones, and a mesh never collides).
 */
#include <math.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

#include "../core/strf.h"

static const char *const kind_names[LD_SHAPE_KIND_COUNT] = {"box",  "sphere",  "cylinder",
                                                            "cone", "capsule", "mesh"};

const char *ld_shape_kind_name(ld_shape_kind k) {
    return (unsigned)k < LD_SHAPE_KIND_COUNT ? kind_names[k] : "";
}

int ld_shape_kind_find(const char *name) {
    for (int k = 0; name && k < LD_SHAPE_KIND_COUNT; ++k)
        if (strcmp(name, kind_names[k]) == 0) return k;
    return -1;
}

/* A positive finite size, or LD_EINVAL with key and why. */
static int positive(double v, const char *name, char *key, size_t keycap, char *why,
                    size_t whycap) {
    if (isfinite(v) && v > 0.0 && v < 1e9) return LD_OK;
    strf(key, keycap, "%s", name);
    strf(why, whycap, "must be a positive number below 1e9 (m), found %g", v);
    return LD_EINVAL;
}

/* The colour: unset (all −1) or each in [0, 1]. */
static int color_check(const ld_shape *s, char *key, size_t keycap, char *why, size_t whycap) {
    int unset = s->color[0] == -1.0 && s->color[1] == -1.0 && s->color[2] == -1.0;
    for (int i = 0; !unset && i < 3; ++i)
        if (!(s->color[i] >= 0.0 && s->color[i] <= 1.0)) {
            strf(key, keycap, "color");
            strf(why, whycap, "element %d must be in [0, 1] (red, green, blue), found %g", i + 1,
                 s->color[i]);
            return LD_EINVAL;
        }
    return LD_OK;
}

/* A mesh: drawn only (no contact), a scale with non-zero finite factors, a unit orientation. */
static int mesh_check(const ld_shape *s, char *key, size_t keycap, char *why, size_t whycap) {
    if (s->collide) {
        strf(key, keycap, "collide");
        strf(why, whycap,
             "meshes are drawn only and never collide: give the body a sphere, capsule, box or "
             "cylinder to collide with");
        return LD_EINVAL;
    }
    for (int i = 0; i < 3; ++i)
        if (!(isfinite(s->size[i]) && s->size[i] != 0.0 && fabs(s->size[i]) < 1e9)) {
            strf(key, keycap, "scale");
            strf(why, whycap, "element %d must be a non-zero number below 1e9 in size, found %g",
                 i + 1, s->size[i]);
            return LD_EINVAL;
        }
    const double *q = s->orient;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(n - 1.0) < 1e-9)) {
        strf(key, keycap, "orientation");
        strf(why, whycap, "must be a unit quaternion, |q| = %g", n);
        return LD_EINVAL;
    }
    return color_check(s, key, keycap, why, whycap);
}

int ld_shape_check(const ld_shape *s, int nbodies, char *key, size_t keycap, char *why,
                   size_t whycap) {
    if (!s) return LD_EINVAL;
    if (s->body < 0 || s->body >= nbodies) {
        strf(key, keycap, "body");
        strf(why, whycap, "body index %d outside 0 .. %d", s->body, nbodies - 1);
        return LD_EINVAL;
    }
    if ((unsigned)s->kind >= LD_SHAPE_KIND_COUNT) {
        strf(key, keycap, "type");
        strf(why, whycap, "unknown kind %d", (int)s->kind);
        return LD_EINVAL;
    }
    for (int i = 0; i < 3; ++i)
        if (!isfinite(s->center[i]) || fabs(s->center[i]) > 1e9) {
            strf(key, keycap, "center");
            strf(why, whycap, "element %d must be finite and below 1e9 (m), found %g", i + 1,
                 s->center[i]);
            return LD_EINVAL;
        }
    if (!(s->restitution >= 0.0 && s->restitution <= 1.0)) {
        strf(key, keycap, "restitution");
        strf(why, whycap, "must be from 0 to 1, found %g", s->restitution);
        return LD_EINVAL;
    }
    if (!(s->contact_radius >= 0.0 && s->contact_radius < 1e9)) {
        strf(key, keycap, "contact_radius");
        strf(why, whycap, "must be a number from 0 to 1e9 (m), found %g", s->contact_radius);
        return LD_EINVAL;
    }
    if (!(s->friction >= 0.0 && s->friction < 1e3)) {
        strf(key, keycap, "friction");
        strf(why, whycap, "must be from 0 to 1000, found %g", s->friction);
        return LD_EINVAL;
    }
    if ((s->hidden != 0 && s->hidden != 1) || (s->hidden && !s->collide)) {
        strf(key, keycap, "draw");
        strf(why, whycap,
             "a shape that is not drawn must collide (draw: false is for a ground shape that "
             "only collides)");
        return LD_EINVAL;
    }
    if (s->collide && s->kind == LD_SHAPE_CONE) {
        strf(key, keycap, "collide");
        strf(why, whycap,
             "cones do not collide in this version: use a cylinder, a capsule, a sphere or a "
             "box");
        return LD_EINVAL;
    }
    if (s->kind == LD_SHAPE_MESH) return mesh_check(s, key, keycap, why, whycap);
    switch (s->kind) {
    case LD_SHAPE_BOX:
        for (int i = 0; i < 3; ++i)
            if (positive(s->size[i], "size", key, keycap, why, whycap)) return LD_EINVAL;
        break;
    case LD_SHAPE_SPHERE:
        if (positive(s->size[0], "radius", key, keycap, why, whycap)) return LD_EINVAL;
        break;
    case LD_SHAPE_CAPSULE:
        if (positive(s->size[0], "radius", key, keycap, why, whycap)) return LD_EINVAL;
        if (!(s->size[1] >= 0.0 && s->size[1] < 1e9)) {
            strf(key, keycap, "length");
            strf(why, whycap, "must be a number from 0 to 1e9 (m), found %g", s->size[1]);
            return LD_EINVAL;
        }
        break;
    default: /* cylinder, cone */
        if (positive(s->size[0], "radius", key, keycap, why, whycap) ||
            positive(s->size[1], "length", key, keycap, why, whycap))
            return LD_EINVAL;
    }
    double n = sqrt(s->axis[0] * s->axis[0] + s->axis[1] * s->axis[1] + s->axis[2] * s->axis[2]);
    if (!(fabs(n - 1.0) < 1e-9)) {
        strf(key, keycap, "axis");
        strf(why, whycap, "must be a unit vector, |axis| = %g", n);
        return LD_EINVAL;
    }
    return color_check(s, key, keycap, why, whycap);
}

int ld_model_has_contact(const ld_model *m) {
    for (int i = 0; m && i < m->nshapes; ++i)
        if (m->shapes[i].collide) return 1;
    for (int j = 0; m && j < m->njoints; ++j)
        if (m->joints[j].has_limits) return 1;
    for (int r = 0; m && r < m->nrods; ++r)
        if (m->rods[r].collide.on) return 1;
    for (int b = 0; m && b < m->nbeams; ++b)
        if (m->beams[b].collide.on) return 1;
    return 0;
}

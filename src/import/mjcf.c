/*
 * MJCF (MuJoCo's XML model format, as its XML reference documents it) into the importers'
 * tree (imp.h): the worldbody's nested bodies with pos and orientation (quat, axisangle, euler
 * with eulerseq, xyaxes, zaxis), inertial or the mass and inertia inferred from the geoms,
 * joints hinge / slide / ball / free, the default classes' joint and geom attributes, and the
 * compiler attributes that change meaning. The rules are those of docs/import.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imp.h"
#include "../core/oom.h"
#include "mjcf.h"
#include "liedyn/lie.h"
#include "liedyn/liedyn.h"

static void tally(mj_tally *t, const xmlNode *n) {
    if (!t->n++) t->line = imp_line(n);
}

/* ------------------------------------------------------------------ default classes */

static xmlNode *find_class_in(xmlNode *d, const char *name) {
    for (xmlNode *c = d ? d->children : NULL; c; c = c->next) {
        if (!imp_is(c, "default")) continue;
        char *cl = imp_attr(c, "class");
        int hit = cl && strcmp(cl, name) == 0;
        xmlFree(cl);
        if (hit) return c;
        xmlNode *r = find_class_in(c, name);
        if (r) return r;
    }
    return NULL;
}

/* The <default> of class name ("main": the top one), or NULL. */
xmlNode *mj_find_class(const mj_ctx *C, const char *name) {
    if (!strcmp(name, "main")) return C->main;
    for (xmlNode *d = C->root ? C->root->children : NULL; d; d = d->next) {
        xmlNode *r = imp_is(d, "default") ? find_class_in(d, name) : NULL;
        if (r) return r;
    }
    return NULL;
}

/* Attribute name of the tag child of default d (xmlFree), or NULL. */
static char *own_default(const xmlNode *d, const char *tag, const char *name) {
    char *s = NULL;
    for (const xmlNode *c = d->children; !s && c; c = c->next)
        if (imp_is(c, tag)) s = imp_attr(c, name);
    return s;
}

int mj_elem_class(mj_ctx *C, const xmlNode *n, xmlNode *cls, xmlNode **out) {
    char *cl = imp_attr(n, "class");
    *out = cls;
    if (!cl) return LD_OK;
    xmlNode *d = mj_find_class(C, cl);
    int rc = d ? LD_OK
               : imp_fail(C->M, LD_EINVAL, imp_line(n), (const char *)n->name,
                          "no default class named '%s'", cl);
    xmlFree(cl);
    if (d) *out = d;
    return rc;
}

/* Attribute name of element n (of kind tag: "joint", "geom", "mesh"): its own, else the nearest
 * default class from cls upwards that sets it for tag. The top-level <default> sections (more
 * than one where files are included) are together the class main, as MuJoCo builds it: a class
 * copies its parent when it is declared, so a class nested in a section sees that section and
 * the ones before it, the last that sets the attribute counting; main itself (cls a top-level
 * section) sees them all. xmlFree the result; NULL: none. */
char *mj_attr(const xmlNode *n, const char *tag, const xmlNode *cls, const char *name) {
    char *s = imp_attr(n, name);
    int nested = 0;
    for (const xmlNode *d = cls; !s && d && imp_is(d, "default"); d = d->parent, nested = 1) {
        const xmlNode *root = d->parent;
        if (!root || imp_is(root, "default")) {
            s = own_default(d, tag, name);
            continue;
        }
        for (const xmlNode *t = nested ? d : root->last; !s && t; t = t->prev)
            if (imp_is(t, "default")) s = own_default(t, tag, name);
        break;
    }
    return s;
}

/* count numbers of attribute name (own or default); absent: v untouched, *given 0. */
int mj_vec(mj_ctx *C, const xmlNode *n, const char *tag, const xmlNode *cls, const char *name,
           double *v, int count, int *given) {
    char *s = mj_attr(n, tag, cls, name);
    if (given) *given = s != NULL;
    if (!s) return LD_OK;
    double t[16];
    int k = imp_parse_numbers(s, t, 16), rc = LD_OK;
    if (k != count)
        rc = imp_fail(C->M, LD_EINVAL, imp_line(n), (const char *)n->name,
                      "%s: expected %d number%s, found '%.60s'", name, count, count == 1 ? "" : "s",
                      s);
    else
        memcpy(v, t, (size_t)count * sizeof *v);
    xmlFree(s);
    return rc;
}

int mj_nums(mj_ctx *C, const xmlNode *n, const char *tag, const xmlNode *cls, const char *name,
            double *v, int max) {
    char *s = mj_attr(n, tag, cls, name);
    if (!s) return 0;
    int k = imp_parse_numbers(s, v, max);
    if (k < 0 || k > max)
        imp_fail(C->M, LD_EINVAL, imp_line(n), (const char *)n->name,
                 "%s: expected at most %d numbers, found '%.60s'", name, max, s);
    xmlFree(s);
    return k > max ? -1 : k;
}

/* ------------------------------------------------------------------ frames */

static double angle(const mj_ctx *C, double a) {
    return C->degree ? a * (IMP_PI / 180.0) : a;
}

static void quat_axis_angle(double q[4], const double ax[3], double a) {
    double v[3] = {ax[0], ax[1], ax[2]};
    imp_normalize(v);
    for (int i = 0; i < 3; ++i) v[i] *= a;
    ld_quat_from_rotvec(q, v);
}

/* euler with the compiler's eulerseq: lower case turns about the moving axes (q ∘ r), upper
 * case about the fixed ones (r ∘ q). */
static void quat_euler(const mj_ctx *C, double q[4], const double e[3]) {
    q[0] = 1, q[1] = q[2] = q[3] = 0;
    for (int i = 0; i < 3; ++i) {
        char c = C->eulerseq[i];
        double ax[3] = {0, 0, 0}, r[4], t[4];
        ax[(c | 32) - 'x'] = 1.0;
        quat_axis_angle(r, ax, angle(C, e[i]));
        if (c >= 'a')
            ld_quat_mul(t, q, r);
        else
            ld_quat_mul(t, r, q);
        memcpy(q, t, sizeof t);
    }
}

/* The orientation of element n (quat, axisangle, euler, xyaxes, zaxis; identity if none). */
static int mj_orient(mj_ctx *C, const xmlNode *n, const char *tag, const xmlNode *cls,
                     double q[4]) {
    double v[6];
    int g = 0, rc;
    q[0] = 1, q[1] = q[2] = q[3] = 0;
    if ((rc = mj_vec(C, n, tag, cls, "quat", v, 4, &g)) || g) {
        double m = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
        if (!rc && !(m > 0))
            return imp_fail(C->M, LD_EINVAL, imp_line(n), (const char *)n->name,
                            "quat: must be non-zero");
        for (int i = 0; !rc && i < 4; ++i) q[i] = v[i] / m;
        return rc;
    }
    if ((rc = mj_vec(C, n, tag, cls, "axisangle", v, 4, &g)) || g) {
        if (!rc) quat_axis_angle(q, v, angle(C, v[3]));
        return rc;
    }
    if ((rc = mj_vec(C, n, tag, cls, "euler", v, 3, &g)) || g) {
        if (!rc) quat_euler(C, q, v);
        return rc;
    }
    if ((rc = mj_vec(C, n, tag, cls, "xyaxes", v, 6, &g)) || g) {
        double *x = v, *y = v + 3, z[3];
        if (!rc && imp_normalize(x) == 0) {
            double d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
            for (int i = 0; i < 3; ++i) y[i] -= d * x[i];
        }
        if (!rc && (imp_normalize(x) || imp_normalize(y)))
            return imp_fail(C->M, LD_EINVAL, imp_line(n), (const char *)n->name,
                            "xyaxes: the axes must be non-zero and not parallel");
        z[0] = x[1] * y[2] - x[2] * y[1];
        z[1] = x[2] * y[0] - x[0] * y[2];
        z[2] = x[0] * y[1] - x[1] * y[0];
        const double R[9] = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
        if (!rc) ld_quat_from_mat(q, R);
        return rc;
    }
    if ((rc = mj_vec(C, n, tag, cls, "zaxis", v, 3, &g)) || g) {
        if (!rc && imp_normalize(v))
            return imp_fail(C->M, LD_EINVAL, imp_line(n), (const char *)n->name,
                            "zaxis: must be non-zero");
        if (!rc) imp_quat_zaxis(q, v);
        return rc;
    }
    return LD_OK;
}

/* ------------------------------------------------------------------ geoms */

static const char *const gtypes[] = {"plane",     "hfield",   "sphere", "capsule",
                                     "ellipsoid", "cylinder", "box",    "mesh"};

static int read_geom(mj_ctx *C, const xmlNode *n, xmlNode *cls, mj_geom *g) {
    memset(g, 0, sizeof *g);
    g->line = imp_line(n);
    g->quat[0] = 1;
    g->density = 1000;
    int rc = mj_elem_class(C, n, cls, &cls);
    char *t = rc ? NULL : mj_attr(n, "geom", cls, "type");
    g->type = G_SPHERE;
    if (t) {
        g->type = -1;
        for (int i = 0; i < G_N; ++i)
            if (!strcmp(t, gtypes[i])) g->type = i;
        if (g->type < 0)
            rc = imp_fail(C->M, g->type < 0 && !strcmp(t, "sdf") ? LD_ENOTSUPPORTED : LD_EINVAL,
                          g->line, "geom", "unknown type '%s'", t);
        xmlFree(t);
    }
    if (!rc && mj_nums(C, n, "geom", cls, "size", g->size, 3) < 0) rc = LD_EINVAL;
    if (!rc) rc = mj_vec(C, n, "geom", cls, "pos", g->pos, 3, NULL);
    if (!rc) rc = mj_orient(C, n, "geom", cls, g->quat);
    if (!rc) rc = mj_vec(C, n, "geom", cls, "rgba", g->rgba, 4, &g->has_rgba);
    if (!rc) rc = mj_vec(C, n, "geom", cls, "mass", &g->mass, 1, &g->has_mass);
    if (!rc) rc = mj_vec(C, n, "geom", cls, "density", &g->density, 1, NULL);
    double ct = 1, ca = 1, fr[3] = {1, 0.005, 0.0001};
    if (C->M->opt.contact) { /* read only for contact: without it a geom never collides */
        if (!rc) rc = mj_vec(C, n, "geom", cls, "contype", &ct, 1, NULL);
        if (!rc) rc = mj_vec(C, n, "geom", cls, "conaffinity", &ca, 1, NULL);
        if (!rc && mj_nums(C, n, "geom", cls, "friction", fr, 3) < 0) rc = LD_EINVAL;
        double cd = 3;
        if (!rc) rc = mj_vec(C, n, "geom", cls, "condim", &cd, 1, NULL);
        if (!rc && cd == 1.0) fr[0] = 0.0; /* condim 1: frictionless */
    }
    g->contype = (int)fmax(0, fmin(ct, 1e9)), g->conaffinity = (int)fmax(0, fmin(ca, 1e9));
    g->friction = fr[0];
    char *mesh = rc ? NULL : mj_attr(n, "geom", cls, "mesh");
    if (mesh) snprintf(g->mesh, sizeof g->mesh, "%s", mesh);
    xmlFree(mesh);
    double ft[6];
    int has_ft = 0;
    if (!rc) rc = mj_vec(C, n, "geom", cls, "fromto", ft, 6, &has_ft);
    if (!rc && has_ft) { /* the segment from → to: centre, z axis, half length */
        double d[3] = {ft[3] - ft[0], ft[4] - ft[1], ft[5] - ft[2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int i = 0; i < 3; ++i) g->pos[i] = 0.5 * (ft[i] + ft[i + 3]);
        if (imp_normalize(d))
            return imp_fail(C->M, LD_EINVAL, g->line, "geom", "fromto: the two points coincide");
        imp_quat_zaxis(g->quat, d);
        if (g->type == G_BOX || g->type == G_ELLIPSOID)
            g->size[2] = 0.5 * len;
        else
            g->size[1] = 0.5 * len;
    }
    return rc;
}

/* Volume and the principal moments per unit mass (geom frame) as MuJoCo's compiler computes
 * them; 0 for a type without them. */
static double geom_volume(const mj_geom *g, double J[3]) {
    const double *s = g->size, pi = IMP_PI;
    double r = s[0], h = 2.0 * s[1];
    switch (g->type) {
    case G_SPHERE:
        J[0] = J[1] = J[2] = 0.4 * r * r;
        return 4.0 / 3.0 * pi * r * r * r;
    case G_CAPSULE: { /* a cylinder and two half-spheres, moved to the ends */
        double vs = 4.0 / 3.0 * pi * r * r * r, vc = pi * r * r * h, ws = vs / (vs + vc),
               wc = 1.0 - ws;
        J[0] = J[1] =
            wc * (3 * r * r + h * h) / 12.0 + ws * (0.4 * r * r + h * (3 * r + 2 * h) / 8.0);
        J[2] = wc * r * r / 2.0 + ws * 0.4 * r * r;
        return vs + vc;
    }
    case G_CYLINDER:
        J[0] = J[1] = (3 * r * r + h * h) / 12.0;
        J[2] = r * r / 2.0;
        return pi * r * r * h;
    case G_BOX:
        J[0] = (s[1] * s[1] + s[2] * s[2]) / 3.0;
        J[1] = (s[0] * s[0] + s[2] * s[2]) / 3.0;
        J[2] = (s[0] * s[0] + s[1] * s[1]) / 3.0;
        return 8.0 * s[0] * s[1] * s[2];
    case G_ELLIPSOID:
        J[0] = (s[1] * s[1] + s[2] * s[2]) / 5.0;
        J[1] = (s[0] * s[0] + s[2] * s[2]) / 5.0;
        J[2] = (s[0] * s[0] + s[1] * s[1]) / 5.0;
        return 4.0 / 3.0 * pi * s[0] * s[1] * s[2];
    default:
        return 0.0;
    }
}

/* Add geom g's mass and inertia to link L (density or its mass). */
static int geom_mass(mj_ctx *C, const mj_geom *g, imp_link *L) {
    double Jp[3] = {0, 0, 0}, v = geom_volume(g, Jp);
    if (g->type == G_MESH) return mj_mesh_mass(C, g, L);
    if (g->type == G_HFIELD)
        return imp_fail(C->M, LD_ENOTSUPPORTED, g->line, "geom",
                        "the mass and inertia of body '%s' would come from a %s geom, whose "
                        "volume liedyn does not compute yet: give the body an <inertial>",
                        L->name, gtypes[g->type]);
    if (g->type == G_PLANE) return LD_OK;
    double m = g->has_mass ? g->mass : g->density * v;
    if (!(m > 0)) return LD_OK;
    const double D[9] = {m * Jp[0], 0, 0, 0, m * Jp[1], 0, 0, 0, m * Jp[2]};
    double J[9];
    imp_rotate_tensor(J, g->quat, D);
    imp_add_mass(L, m, g->pos, J);
    return LD_OK;
}

/* Can g collide in MuJoCo (contype or conaffinity not 0)? Whether it meets any other geom, and
 * the pairs its bitmasks keep apart, imp_contact_finish decides. */
static int mj_collides(const mj_geom *g) {
    return (g->contype | g->conaffinity) != 0;
}

/* The sphere, capsule, cylinder or box of geom g as sh (line, pos, orientation, colour, size;
 * collide and friction with the contact option); 0 for another type. */
static int primitive(mj_ctx *C, const mj_geom *g, imp_shape *sh) {
    memset(sh, 0, sizeof *sh);
    sh->line = g->line;
    memcpy(sh->pos, g->pos, sizeof sh->pos);
    memcpy(sh->quat, g->quat, sizeof sh->quat);
    for (int i = 0; i < 3; ++i) sh->color[i] = g->has_rgba ? fmin(1, fmax(0, g->rgba[i])) : -1;
    const double *s = g->size;
    switch (g->type) {
    case G_SPHERE:
        sh->kind = LD_SHAPE_SPHERE, sh->size[0] = s[0];
        break;
    case G_CAPSULE:
        sh->kind = LD_SHAPE_CAPSULE, sh->size[0] = s[0], sh->size[1] = 2 * s[1];
        break;
    case G_CYLINDER:
        sh->kind = LD_SHAPE_CYLINDER, sh->size[0] = s[0], sh->size[1] = 2 * s[1];
        break;
    case G_BOX:
        sh->kind = LD_SHAPE_BOX;
        for (int i = 0; i < 3; ++i) sh->size[i] = 2 * s[i];
        break;
    default:
        return 0;
    }
    sh->collide = C->M->opt.contact && mj_collides(g);
    sh->friction = g->friction;
    if (sh->collide && !(g->friction >= 0.0 && g->friction < 1e9)) {
        imp_warn(C->M, LD_IMPORT_DYNAMICS, g->line, "geom",
                 "its sliding friction %g is not a coefficient >= 0: it does not collide",
                 g->friction);
        sh->collide = 0;
    }
    sh->contype = g->contype, sh->conaffinity = g->conaffinity;
    return 1;
}

/* Geom g as a shape of L (sphere, capsule, cylinder, box, mesh; others reported). */
static int geom_shape(mj_ctx *C, const mj_geom *g, imp_link *L) {
    imp_shape sh;
    if (primitive(C, g, &sh)) {
        if (L->nshapes == LD_SHAPES_PER_BODY_MAX)
            L->dropped_shapes++;
        else
            L->shapes[L->nshapes++] = sh;
        return LD_OK;
    }
    if (C->M->opt.contact && mj_collides(g) && !C->nocontact.n++) C->nocontact.line = g->line;
    switch (g->type) {
    case G_MESH: {
        int rc = LD_OK;
        if (!mj_mesh_shape(C, g, L, &sh, &rc)) return rc;
        break;
    }
    default:
        imp_warn(C->M, LD_IMPORT_IGNORED, g->line, "geom",
                 "of body '%s': a %s is not drawn (no liedyn shape)", L->name, gtypes[g->type]);
        return LD_OK;
    }
    if (L->nshapes == LD_SHAPES_PER_BODY_MAX)
        L->dropped_shapes++;
    else
        L->shapes[L->nshapes++] = sh;
    return LD_OK;
}

/* ------------------------------------------------------------------ bodies */

/* <inertial>: pos, orientation, mass, diaginertia or fullinertia. */
static int read_inertial(mj_ctx *C, const xmlNode *n, imp_link *L) {
    double p[3] = {0, 0, 0}, q[4], m = 0, d[6] = {0, 0, 0, 0, 0, 0};
    int gd = 0, gf = 0, gm = 0;
    int rc = mj_vec(C, n, "inertial", NULL, "pos", p, 3, NULL);
    if (!rc) rc = mj_orient(C, n, "inertial", NULL, q);
    if (!rc) rc = mj_vec(C, n, "inertial", NULL, "mass", &m, 1, &gm);
    if (!rc) rc = mj_vec(C, n, "inertial", NULL, "diaginertia", d, 3, &gd);
    if (!rc && !gd) rc = mj_vec(C, n, "inertial", NULL, "fullinertia", d, 6, &gf);
    if (rc) return rc;
    if (!gm || (!gd && !gf))
        return imp_fail(C->M, LD_EINVAL, imp_line(n), "inertial",
                        "needs mass and diaginertia or fullinertia");
    if (!(m >= 0))
        return imp_fail(C->M, LD_EINVAL, imp_line(n), "inertial", "mass must be >= 0, found %g", m);
    /* fullinertia: ixx iyy izz ixy ixz iyz */
    const double J0[9] = {d[0], d[3], d[4], d[3], d[1], d[5], d[4], d[5], d[2]};
    double J[9];
    imp_rotate_tensor(J, q, J0);
    imp_add_mass(L, m, p, J);
    return LD_OK;
}

static int read_joint(mj_ctx *C, const xmlNode *n, xmlNode *cls, mj_joint *j, const char *body) {
    memset(j, 0, sizeof *j);
    j->line = imp_line(n);
    j->axis[2] = 1.0;
    int rc = mj_elem_class(C, n, cls, &cls);
    char *s = rc ? NULL : mj_attr(n, "joint", cls, "type");
    j->type = imp_is(n, "freejoint") ? MJ_FREE : MJ_HINGE;
    if (s && !imp_is(n, "freejoint")) {
        j->type = !strcmp(s, "hinge")   ? MJ_HINGE
                  : !strcmp(s, "slide") ? MJ_SLIDE
                  : !strcmp(s, "ball")  ? MJ_BALL
                  : !strcmp(s, "free")  ? MJ_FREE
                                        : -1;
        if (j->type < 0)
            rc = imp_fail(C->M, LD_EINVAL, j->line, "joint",
                          "unknown type '%s' (expected hinge, slide, ball or free)", s);
    }
    xmlFree(s);
    char *nm = rc ? NULL : imp_attr(n, "name");
    if (nm) imp_set_name(C->M, j->name, nm, j->line, "joint");
    xmlFree(nm);
    if (rc || j->type == MJ_FREE) return rc;
    rc = mj_vec(C, n, "joint", cls, "pos", j->pos, 3, NULL);
    if (!rc) rc = mj_vec(C, n, "joint", cls, "axis", j->axis, 3, NULL);
    if (!rc && imp_normalize(j->axis))
        rc = imp_fail(C->M, LD_EINVAL, j->line, "joint", "axis: must be non-zero");
    int has_range = 0;
    double ref = 0, v = 0;
    if (!rc) rc = mj_vec(C, n, "joint", cls, "range", j->range, 2, &has_range);
    char *lim = rc ? NULL : mj_attr(n, "joint", cls, "limited");
    j->limited = has_range && !(lim && !strcmp(lim, "false"));
    xmlFree(lim);
    if (j->type == MJ_HINGE)
        for (int i = 0; i < 2; ++i) j->range[i] = angle(C, j->range[i]);
    if (!rc) rc = mj_vec(C, n, "joint", cls, "damping", &j->damping, 1, NULL);
    if (!rc) rc = mj_vec(C, n, "joint", cls, "stiffness", &j->stiffness, 1, NULL);
    if (!rc) rc = mj_vec(C, n, "joint", cls, "springref", &j->springref, 1, NULL);
    if (!rc) rc = mj_vec(C, n, "joint", cls, "ref", &ref, 1, NULL);
    if (!rc && ref != 0)
        imp_warn(C->M, LD_IMPORT_DYNAMICS, j->line, "joint",
                 "'%s' of body '%s': ref %g not applied (the coordinates count from the pose "
                 "as written)",
                 j->name, body, ref);
    if (j->type == MJ_HINGE) j->springref = angle(C, j->springref), ref = angle(C, ref);
    j->ref = ref;
    if (!rc) rc = mj_vec(C, n, "joint", cls, "armature", &v, 1, NULL);
    if (!rc && v > 0) tally(&C->armature, n);
    v = 0;
    if (!rc) rc = mj_vec(C, n, "joint", cls, "frictionloss", &v, 1, NULL);
    if (!rc && v > 0) tally(&C->friction, n);
    return rc;
}

/* A spring and damper on joint j of link k (hinge or slide), if it has any. */
static void add_spring(imp_model *M, int k, const mj_joint *j) {
    imp_link *L = &M->links[k];
    if (!(j->stiffness > 0 || j->damping > 0) || j->type >= MJ_BALL || L->nsprings == 3) return;
    imp_spring *s = &L->springs[L->nsprings++];
    memset(s, 0, sizeof *s);
    s->slide = j->type == MJ_SLIDE;
    memcpy(s->axis, j->axis, sizeof s->axis);
    memcpy(s->anchor, j->pos, sizeof s->anchor);
    /* the rest coordinate counted from the pose as written (where MuJoCo's is ref) */
    s->k = j->stiffness, s->c = j->damping, s->ref = j->springref - j->ref;
    if (!s->slide && s->k > 0 && !(fabs(s->ref) < IMP_PI)) {
        imp_warn(M, LD_IMPORT_DYNAMICS, j->line, "joint",
                 "'%s': springref %g not applied: %g rad from the pose as written, liedyn's "
                 "rest angles lie within (-pi, pi)",
                 j->name, j->springref, s->ref);
        s->ref = 0.0;
    }
    s->line = j->line;
    snprintf(s->name, sizeof s->name, "%s", j->name[0] ? j->name : L->name);
}

static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static int same_point(const mj_joint *a, const mj_joint *b) {
    double d[3] = {a->pos[0] - b->pos[0], a->pos[1] - b->pos[1], a->pos[2] - b->pos[2]};
    return sqrt(dot3(d, d)) < 1e-12;
}

/* One liedyn joint for the body's joints where one is exact: a single joint; two hinges at
 * one point with perpendicular axes (universal); three hinges at one point with independent
 * axes (spherical); a hinge and a slide on one axis (cylindrical). 1 if set on L, else 0. */
static int combine(const mj_joint *j, int nj, imp_link *L) {
    static const imp_jkind single[] = {IMP_J_REVOLUTE, IMP_J_PRISMATIC, IMP_J_SPHERICAL,
                                       IMP_J_FREE};
    memcpy(L->anchor, j[0].pos, sizeof L->anchor);
    memcpy(L->axis, j[0].axis, sizeof L->axis);
    if (nj == 1) {
        L->jkind = single[j[0].type];
        return 1;
    }
    int hinges = 0;
    for (int i = 0; i < nj; ++i) hinges += j[i].type == MJ_HINGE;
    int same = 1;
    for (int i = 1; i < nj; ++i) same &= same_point(&j[0], &j[i]);
    if (nj == 2 && hinges == 2 && same && fabs(dot3(j[0].axis, j[1].axis)) < 1e-9) {
        L->jkind = IMP_J_UNIVERSAL;
        memcpy(L->axis2, j[1].axis, sizeof L->axis2);
        return 1;
    }
    if (nj == 3 && hinges == 3 && same) {
        const double *a = j[0].axis, *b = j[1].axis, *c = j[2].axis;
        double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                     a[2] * (b[0] * c[1] - b[1] * c[0]);
        if (fabs(det) > 1e-6) return L->jkind = IMP_J_SPHERICAL, 1;
    }
    if (nj == 2 && hinges == 1 && j[0].type <= MJ_SLIDE && j[1].type <= MJ_SLIDE &&
        fabs(fabs(dot3(j[0].axis, j[1].axis)) - 1) < 1e-12) {
        const mj_joint *h = j[0].type == MJ_HINGE ? &j[0] : &j[1];
        memcpy(L->anchor, h->pos, sizeof L->anchor);
        memcpy(L->axis, h->axis, sizeof L->axis);
        return L->jkind = IMP_J_CYLINDRICAL, 1;
    }
    return 0;
}

/* The body's joints as a chain of auxiliary bodies (docs/import.md): joint i between
 * auxiliary body i − 1 (or the parent) and auxiliary body i (or the body itself), all frames
 * the body's at coordinates zero. k is the body's link (its pose and mass already set). */
static int aux_chain(mj_ctx *C, int k, const mj_joint *j, int nj) {
    imp_model *M = C->M;
    int prev = M->links[k].parent;
    double pos[3], quat[4];
    memcpy(pos, M->links[k].pos, sizeof pos);
    memcpy(quat, M->links[k].quat, sizeof quat);
    for (int i = 0; i < nj; ++i) {
        if (j[i].type == MJ_FREE)
            return imp_fail(M, LD_EINVAL, j[i].line, "joint",
                            "a free joint must be the only joint of its body");
        int a = i + 1 < nj ? imp_add_link(M) : k;
        if (a < 0) return LD_ENOMEM;
        imp_link *L = &M->links[a], *B = &M->links[k];
        if (a != k) {
            double r = M->opt.aux_mass_ratio, tr = B->inertia[0] + B->inertia[4] + B->inertia[8];
            char nm[LD_NAME_MAX];
            snprintf(nm, sizeof nm, "%.40s/%.20s", B->name, j[i].name[0] ? j[i].name : "aux");
            memcpy(L->name, nm, sizeof nm);
            L->line = j[i].line;
            L->auxiliary = 1;
            L->mass = r * B->mass;
            memcpy(L->com, j[i].pos, sizeof L->com);
            for (int d = 0; d < 3; ++d) L->inertia[4 * d] = r * tr / 3.0;
            if (M->rep) ++M->rep->auxiliary;
        }
        L->parent = prev;
        memcpy(L->pos, pos, sizeof pos);
        memcpy(L->quat, quat, sizeof quat);
        pos[0] = pos[1] = pos[2] = 0, quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
        memcpy(L->jname, j[i].name, sizeof L->jname);
        L->jline = j[i].line;
        combine(&j[i], 1, L);
        add_spring(M, a, &j[i]);
        prev = a;
    }
    imp_warn(M, LD_IMPORT_DYNAMICS, j[0].line, "joint",
             "body '%s' has %d joints %s: %d auxiliary bod%s of %g of its mass placed between "
             "them",
             M->links[k].name, nj,
             M->opt.chain_joints ? "(chained, as asked)"
                                 : "that no single liedyn joint represents (not at one point, or "
                                   "axes not perpendicular)",
             nj - 1, nj == 2 ? "y" : "ies", M->opt.aux_mass_ratio);
    return LD_OK;
}

/* The joints of body k: one joint, a combination, or a chain of auxiliary bodies. */
static int body_joints(mj_ctx *C, int k, const mj_joint *j, int nj) {
    imp_model *M = C->M;
    imp_link *L = &M->links[k];
    if (nj == 0) {
        L->jkind = IMP_J_FIXED;
        return LD_OK;
    }
    for (int i = 0; i < nj; ++i)
        if (j[i].type == MJ_FREE && nj > 1)
            return imp_fail(M, LD_EINVAL, j[i].line, "joint",
                            "a free joint must be the only joint of its body ('%s')", L->name);
    if ((nj == 1 || !M->opt.chain_joints) && combine(j, nj, L)) {
        memcpy(L->jname, j[0].name, sizeof L->jname);
        L->jline = j[0].line;
        if (nj == 1 && j[0].limited && j[0].type <= MJ_SLIDE) {
            L->has_limits = 1, L->lo = j[0].range[0], L->hi = j[0].range[1];
            if (!C->limits.n++) C->limits.line = j[0].line;
        }
        int ranges = 0, springs = 0;
        for (int i = 0; i < nj; ++i) {
            add_spring(M, k, &j[i]);
            ranges += j[i].limited;
            springs += j[i].stiffness > 0 || j[i].damping > 0;
        }
        if (nj > 1)
            imp_warn(M, LD_IMPORT_DYNAMICS, j[0].line, "joint",
                     "body '%s': its %d joints are one %s joint%s%s", L->name, nj,
                     L->jkind == IMP_J_UNIVERSAL   ? "universal"
                     : L->jkind == IMP_J_SPHERICAL ? "spherical"
                                                   : "cylindrical",
                     ranges ? "; their ranges are not kept" : "",
                     springs ? "; their springs and dampers act on the components of the "
                               "relative rotation vector about their axes"
                             : "");
        return LD_OK;
    }
    return aux_chain(C, k, j, nj);
}

static int read_body(mj_ctx *C, const xmlNode *n, int parent, xmlNode *cls);

/* Elements of a body (or the worldbody) that carry no dynamics liedyn models. */
static int other_element(mj_ctx *C, const xmlNode *c, const char *body) {
    if (imp_is(c, "site") || imp_is(c, "camera") || imp_is(c, "light")) {
        tally(&C->visual, c);
        return LD_OK;
    }
    imp_warn(C->M, LD_IMPORT_DYNAMICS, imp_line(c), (const char *)c->name,
             "in body '%s': not represented, ignored", body);
    return LD_OK;
}

/* The mass of body k: its inertial, or its geoms' (compiler inertiafromgeom). */
static int body_mass(mj_ctx *C, int k, const xmlNode *n, xmlNode *cls) {
    const xmlNode *in = NULL;
    for (const xmlNode *c = n->children; c; c = c->next)
        if (imp_is(c, "inertial")) in = c;
    int rc = LD_OK, fromgeom = C->fromgeom == 1 || (C->fromgeom == 2 && !in);
    if (in && !fromgeom) rc = read_inertial(C, in, &C->M->links[k]);
    for (const xmlNode *c = n->children; !rc && c; c = c->next) {
        if (!imp_is(c, "geom")) continue;
        mj_geom g;
        rc = read_geom(C, c, cls, &g);
        if (!rc && fromgeom) rc = geom_mass(C, &g, &C->M->links[k]);
        if (!rc) rc = geom_shape(C, &g, &C->M->links[k]);
    }
    return rc;
}

/* <body>: a link with its pose in the parent body, mass, joints; then its child bodies. */
static int read_body(mj_ctx *C, const xmlNode *n, int parent, xmlNode *cls) {
    imp_model *M = C->M;
    int k = imp_add_link(M), rc = LD_OK;
    if (k < 0) return LD_ENOMEM;
    ++C->nbody;
    imp_link *L = &M->links[k];
    L->line = imp_line(n);
    L->parent = parent;
    char *nm = imp_attr(n, "name"), gen[32];
    snprintf(gen, sizeof gen, "body%d", C->nbody);
    imp_set_name(M, L->name, nm && nm[0] ? nm : gen, L->line, "body");
    xmlFree(nm);
    char *cc = imp_attr(n, "childclass");
    if (cc) {
        xmlNode *d = mj_find_class(C, cc);
        if (!d) rc = imp_fail(M, LD_EINVAL, L->line, "body", "no default class named '%s'", cc);
        cls = d;
        xmlFree(cc);
    }
    char *mocap = imp_attr(n, "mocap");
    if (mocap && !strcmp(mocap, "true"))
        imp_warn(M, LD_IMPORT_DYNAMICS, L->line, "body",
                 "'%s' is a mocap body: fixed where it is (it is moved by the user in MuJoCo)",
                 L->name);
    xmlFree(mocap);
    if (!rc) rc = mj_vec(C, n, "body", NULL, "pos", L->pos, 3, NULL);
    if (!rc) rc = mj_orient(C, n, "body", NULL, L->quat);
    if (!rc) rc = body_mass(C, k, n, cls);
    mj_joint j[MJ_JOINTS_MAX];
    int nj = 0;
    for (const xmlNode *c = n->children; !rc && c; c = c->next) {
        if (imp_is(c, "joint") || imp_is(c, "freejoint")) {
            if (nj == MJ_JOINTS_MAX)
                return imp_fail(M, LD_EINVAL, imp_line(c), "joint",
                                "body '%s' has more than %d joints", M->links[k].name,
                                MJ_JOINTS_MAX);
            rc = read_joint(C, c, cls, &j[nj++], M->links[k].name);
        } else if (c->type == XML_ELEMENT_NODE && !imp_is(c, "body") && !imp_is(c, "geom") &&
                   !imp_is(c, "inertial")) {
            rc = other_element(C, c, M->links[k].name);
        }
    }
    if (!rc) rc = body_joints(C, k, j, nj);
    if (!rc && C->depth == MJ_DEPTH_MAX) /* the stack of this recursion stays bounded */
        for (const xmlNode *c = n->children; !rc && c; c = c->next)
            if (imp_is(c, "body"))
                rc = imp_fail(M, LD_EINVAL, imp_line(c), "body",
                              "nested deeper than %d bodies (a chain of included files?)",
                              MJ_DEPTH_MAX);
    ++C->depth;
    for (const xmlNode *c = n->children; !rc && c; c = c->next)
        if (imp_is(c, "body")) rc = read_body(C, c, k, cls);
    --C->depth;
    return rc;
}

/* A geom of the worldbody with the contact option: the first plane the ground plane, a sphere,
 * capsule, cylinder or box a ground shape (world frame); the others reported. */
static int world_contact(mj_ctx *C, const xmlNode *n, const mj_geom *g, const char *name) {
    imp_model *M = C->M;
    imp_shape sh;
    if (g->type == G_PLANE && !M->plane_on) {
        double ez[3] = {0, 0, 1};
        M->plane_on = 1, M->plane_line = g->line, M->plane_mu = g->friction;
        M->plane_contype = g->contype, M->plane_conaffinity = g->conaffinity;
        ld_quat_rotate(M->plane_n, g->quat, ez);
        memcpy(M->plane_p, g->pos, sizeof M->plane_p);
        return LD_OK;
    }
    if (!primitive(C, g, &sh)) {
        imp_warn(M, LD_IMPORT_DYNAMICS, imp_line(n), "geom",
                 "'%s' (%s) of the worldbody: not a liedyn contact shape (%s), no contact with "
                 "it",
                 name, gtypes[g->type],
                 g->type == G_PLANE ? "liedyn has one ground plane: the first is kept"
                                    : "the ground's shapes are spheres, capsules, cylinders and "
                                      "boxes");
        return LD_OK;
    }
    if (M->nground == M->gcap) {
        int cap = M->gcap ? 2 * M->gcap : 8;
        imp_shape *a = ld_xrealloc(M->ground, (size_t)cap * sizeof *a, "the ground's shapes");
        if (!a) return LD_ENOMEM;
        M->ground = a, M->gcap = cap;
    }
    M->ground[M->nground++] = sh;
    return LD_OK;
}

/* A geom of the worldbody: the ground's (with the contact option a contact shape, else not
 * drawn and reported). */
/* An attribute that is one number (own or default), else dflt (absent or not a number). */
static double loose_number(const xmlNode *n, const xmlNode *cls, const char *name, double dflt) {
    char *s = mj_attr(n, "geom", cls, name);
    double v = dflt;
    if (s && imp_parse_numbers(s, &v, 1) != 1) v = dflt;
    xmlFree(s);
    return v;
}

static int world_geom(mj_ctx *C, const xmlNode *n) {
    char *nm = imp_attr(n, "name");
    const char *name = nm ? nm : "";
    int rc = LD_OK;
    if (C->M->opt.contact) {
        mj_geom g;
        rc = read_geom(C, n, C->main, &g);
        if (rc == LD_ENOTSUPPORTED) { /* a type of a later MuJoCo (sdf): no contact with it */
            imp_warn(C->M, LD_IMPORT_DYNAMICS, imp_line(n), "geom",
                     "'%s' of the worldbody: %s, no contact with it", name,
                     C->M->err ? C->M->err->msg : "not supported");
            if (C->M->err) memset(C->M->err, 0, sizeof *C->M->err);
            xmlFree(nm);
            return LD_OK;
        }
        if (!rc && mj_collides(&g)) rc = world_contact(C, n, &g, name);
        if (!rc && !mj_collides(&g))
            imp_warn(C->M, LD_IMPORT_IGNORED, imp_line(n), "geom",
                     "'%s' (%s) of the worldbody: not drawn, and it collides with none", name,
                     gtypes[g.type]);
    } else { /* only reported, as MuJoCo's types and attributes go (not read) */
        char *cl = imp_attr(n, "class");
        xmlNode *cls = cl ? mj_find_class(C, cl) : C->main;
        xmlFree(cl);
        char *t = mj_attr(n, "geom", cls ? cls : C->main, "type");
        int collides = loose_number(n, cls, "contype", 1) != 0.0 ||
                       loose_number(n, cls, "conaffinity", 1) != 0.0,
            kind = -1;
        for (int i = 0; i < G_N; ++i)
            if (!strcmp(t ? t : "sphere", gtypes[i])) kind = i;
        int shape = kind == G_PLANE || kind == G_SPHERE || kind == G_CAPSULE ||
                    kind == G_CYLINDER || kind == G_BOX;
        imp_warn(C->M, LD_IMPORT_IGNORED, imp_line(n), "geom",
                 "'%s' (%s) of the worldbody: the ground's geometry is not drawn and no contact "
                 "is modelled%s",
                 name, t ? t : "sphere",
                 !collides ? " (it collides with none)"
                 : shape   ? " (liedyn convert --contact models it)"
                           : " (liedyn has no contact shape for it)");
        xmlFree(t);
    }
    xmlFree(nm);
    return rc;
}

/* <worldbody>: its geoms are the ground's, its bodies the roots. */
static int read_world(mj_ctx *C, const xmlNode *w) {
    int rc = LD_OK;
    for (const xmlNode *c = w->children; !rc && c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (imp_is(c, "body")) {
            rc = read_body(C, c, -1, C->main);
        } else if (imp_is(c, "geom")) {
            rc = world_geom(C, c);
        } else {
            rc = other_element(C, c, "world");
        }
    }
    return rc;
}

/* ------------------------------------------------------------------ sections */

static int read_compiler(mj_ctx *C, const xmlNode *n) {
    imp_model *M = C->M;
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        const char *k = (const char *)a->name;
        char *v = imp_attr(n, k);
        int rc = LD_OK;
        if (!strcmp(k, "angle")) {
            C->degree = strcmp(v, "radian") != 0;
        } else if (!strcmp(k, "coordinate")) {
            if (strcmp(v, "local"))
                rc = imp_fail(M, LD_ENOTSUPPORTED, imp_line(n), "compiler",
                              "coordinate=\"%s\" is not supported (only local coordinates, as "
                              "MuJoCo itself since version 2.3.3)",
                              v);
        } else if (!strcmp(k, "inertiafromgeom")) {
            C->fromgeom = !strcmp(v, "true") ? 1 : !strcmp(v, "false") ? 0 : 2;
        } else if (!strcmp(k, "eulerseq")) {
            int ok = strlen(v) == 3;
            for (int i = 0; ok && i < 3; ++i) ok = strchr("xyzXYZ", v[i]) != NULL;
            if (!ok)
                rc = imp_fail(M, LD_EINVAL, imp_line(n), "compiler",
                              "eulerseq=\"%s\": expected 3 of x, y, z, X, Y, Z", v);
            else
                memcpy(C->eulerseq, v, 4);
        } else if (!strcmp(k, "meshdir") || !strcmp(k, "assetdir")) {
            char **d = k[0] == 'm' ? &C->meshdir : &C->assetdir;
            xmlFree(*d);
            *d = v;
            v = NULL;
        } else if (!strcmp(k, "exactmeshinertia")) {
            C->exactmesh = !strcmp(v, "true");
        } else if (!strcmp(k, "strippath")) {
            C->strippath = !strcmp(v, "true");
        } else if (!strcmp(k, "settotalmass") || !strcmp(k, "boundmass") ||
                   !strcmp(k, "boundinertia") || !strcmp(k, "balanceinertia")) {
            imp_warn(M, LD_IMPORT_DYNAMICS, imp_line(n), "compiler",
                     "%s=\"%s\" not applied: the masses and inertias are the file's", k, v);
        } else {
            imp_warn(M, LD_IMPORT_IGNORED, imp_line(n), "compiler", "%s=\"%s\" ignored", k, v);
        }
        xmlFree(v);
        if (rc) return rc;
    }
    return LD_OK;
}

static int read_option(mj_ctx *C, const xmlNode *n) {
    imp_model *M = C->M;
    int rc = mj_vec(C, n, "option", NULL, "gravity", M->gravity, 3, NULL);
    char list[300] = "";
    size_t len = 0;
    for (const xmlAttr *a = n->properties; !rc && a; a = a->next)
        if (strcmp((const char *)a->name, "gravity") && len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                    (const char *)a->name);
    for (const xmlNode *c = n->children; !rc && c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s<%s>", len ? ", " : "",
                                    (const char *)c->name);
    if (!rc && len)
        imp_warn(M, LD_IMPORT_IGNORED, imp_line(n), "option",
                 "%s not used (the run settings are liedyn's: docs/import.md)", list);
    return rc;
}

/* Sections whose children liedyn does not represent: each child reported. */
static void report_children(mj_ctx *C, const xmlNode *n, ld_import_severity sev, const char *what) {
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        char *nm = imp_attr(c, "name");
        imp_warn(C->M, sev, imp_line(c), (const char *)c->name, "%s%s%s: %s", nm ? "'" : "",
                 nm ? nm : "", nm ? "'" : "", what);
        xmlFree(nm);
    }
}

/* <contact>: with the contact option its exclusions kept (imp_contact_finish), its explicit
 * pairs reported; without it, each child reported. */
static int read_contact(mj_ctx *C, const xmlNode *n) {
    imp_model *M = C->M;
    if (!M->opt.contact) {
        report_children(C, n, LD_IMPORT_DYNAMICS,
                        "contact pair or exclusion not represented (no contact is modelled; "
                        "liedyn convert --contact models exclusions)");
        return LD_OK;
    }
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (!imp_is(c, "exclude")) {
            if (c->type == XML_ELEMENT_NODE)
                imp_warn(M, LD_IMPORT_DYNAMICS, imp_line(c), (const char *)c->name,
                         "an explicit contact pair is not represented (every colliding pair "
                         "is tested)");
            continue;
        }
        if (M->ngiven == M->givencap) {
            int cap = M->givencap ? 2 * M->givencap : 8;
            struct imp_exclude *g =
                ld_xrealloc(M->given, (size_t)cap * sizeof *g, "the contact exclusions");
            if (!g) return LD_ENOMEM;
            M->given = g, M->givencap = cap;
        }
        struct imp_exclude *x = &M->given[M->ngiven];
        x->line = imp_line(c);
        for (int k = 0; k < 2; ++k) {
            char *b = imp_attr(c, k ? "body2" : "body1");
            if (!b) return imp_fail(M, LD_EINVAL, x->line, "exclude", "needs body1 and body2");
            snprintf(x->body[k], sizeof x->body[k], "%s", b);
            xmlFree(b);
        }
        ++M->ngiven;
    }
    return LD_OK;
}

static int read_section(mj_ctx *C, const xmlNode *n) {
    imp_model *M = C->M;
    const char *t = (const char *)n->name;
    if (imp_is(n, "compiler")) return read_compiler(C, n);
    if (imp_is(n, "option")) return read_option(C, n);
    if (imp_is(n, "worldbody")) return read_world(C, n);
    if (imp_is(n, "actuator")) {
        int rc = LD_OK;
        for (const xmlNode *c = n->children; !rc && c; c = c->next)
            if (c->type == XML_ELEMENT_NODE) rc = mj_read_actuator(C, c);
        return rc;
    } else if (imp_is(n, "tendon"))
        report_children(C, n, LD_IMPORT_DYNAMICS, "tendon not represented");
    else if (imp_is(n, "equality"))
        report_children(C, n, LD_IMPORT_DYNAMICS, "equality constraint not represented");
    else if (imp_is(n, "contact"))
        return read_contact(C, n);
    else if (imp_is(n, "sensor"))
        report_children(C, n, LD_IMPORT_IGNORED, "sensor ignored");
    else if (imp_is(n, "keyframe"))
        report_children(C, n, LD_IMPORT_IGNORED,
                        "keyframe ignored (the start is the pose as written)");
    else if (!imp_is(n, "default") && !imp_is(n, "asset") && !imp_is(n, "visual") &&
             !imp_is(n, "size") && !imp_is(n, "statistic"))
        imp_warn(M, LD_IMPORT_DYNAMICS, imp_line(n), t, "section not represented, ignored");
    return LD_OK;
}

int imp_mjcf(imp_model *M, xmlDoc *doc) {
    int rc = mj_expand_includes(M, doc);
    if (!rc) rc = mj_check_classes(M, xmlDocGetRootElement(doc));
    if (rc) return rc;
    mj_ctx C;
    memset(&C, 0, sizeof C);
    C.M = M;
    C.root = xmlDocGetRootElement(doc);
    C.degree = 1;
    C.fromgeom = 2;
    memcpy(C.eulerseq, "xyz", 4);
    M->name_line = imp_line(C.root);
    M->gravity[2] = -9.81;
    char *mn = imp_attr(C.root, "model");
    imp_set_name(M, M->name, mn && mn[0] ? mn : "mujoco", M->name_line, "mujoco");
    xmlFree(mn);
    for (xmlNode *n = C.root->children; n && !C.main; n = n->next)
        if (imp_is(n, "default")) C.main = n;
    for (const xmlNode *n = C.root->children; !rc && n; n = n->next) /* the compiler first */
        if (imp_is(n, "compiler")) rc = read_compiler(&C, n);
    for (const xmlNode *n = C.root->children; !rc && n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && !imp_is(n, "compiler")) rc = read_section(&C, n);
    xmlFree(C.meshdir);
    xmlFree(C.assetdir);
    if (rc) return rc;
    if (C.limits.n)
        imp_warn(M, LD_IMPORT_DYNAMICS, C.limits.line, "joint",
                 M->opt.limits ? "ranges of %d joint(s) written as joint limits (only the moreau "
                                 "integrator enforces them)"
                               : "ranges of %d joint(s) not enforced: kept as comments (liedyn "
                                 "convert --limits writes them; only moreau enforces them)",
                 C.limits.n);
    if (C.armature.n)
        imp_warn(M, LD_IMPORT_DYNAMICS, C.armature.line, "joint",
                 "armature of %d joint(s) (rotor inertia) not represented", C.armature.n);
    if (C.friction.n)
        imp_warn(M, LD_IMPORT_DYNAMICS, C.friction.line, "joint",
                 "frictionloss of %d joint(s) not represented (no joint friction)", C.friction.n);
    if (C.nocontact.n)
        imp_warn(M, LD_IMPORT_DYNAMICS, C.nocontact.line, "geom",
                 "%d geom(s) that collide in MuJoCo (ellipsoids, meshes, planes and height "
                 "fields of bodies) do not collide here: liedyn's contact shapes are spheres, "
                 "capsules, cylinders and boxes",
                 C.nocontact.n);
    if (C.visual.n)
        imp_warn(M, LD_IMPORT_IGNORED, C.visual.line, "site",
                 "%d sites, cameras and lights ignored (no effect on the dynamics)", C.visual.n);
    return LD_OK;
}

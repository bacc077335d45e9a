/*
 * URDF (the Unified Robot Description Format of ROS, its XML specification on the ROS wiki)
 * into the importers' tree (imp.h): links with their inertial, visual and collision elements,
 * joints with origin, axis, limit and dynamics. The rules are those of docs/import.md.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "imp.h"
#include "liedyn/lie.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

/* Counts of elements reported together (one warning each kind, with the first line). */
typedef struct urdf_tally {
    int collision, collision_line;
    int limits, limits_line;
    int effort, effort_line;
    int safety, safety_line;
} urdf_tally;

typedef struct urdf_ctx {
    imp_model *M;
    xmlNode *root;
    urdf_tally t;
} urdf_ctx;

/* <origin xyz rpy> of n (absent: identity). */
static int read_origin(imp_model *M, const xmlNode *n, double p[3], double q[4]) {
    p[0] = p[1] = p[2] = 0.0;
    q[0] = 1.0, q[1] = q[2] = q[3] = 0.0;
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (!imp_is(c, "origin")) continue;
        double rpy[3] = {0, 0, 0};
        int rc = imp_get_vec(M, c, "xyz", p, 3, NULL);
        if (!rc) rc = imp_get_vec(M, c, "rpy", rpy, 3, NULL);
        if (rc) return rc;
        imp_quat_rpy(q, rpy[0], rpy[1], rpy[2]);
        return LD_OK;
    }
    return LD_OK;
}

static const xmlNode *child(const xmlNode *n, const char *tag) {
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (imp_is(c, tag)) return c;
    return NULL;
}

/* A number attribute; absent: *v keeps its default. */
static int get_num(imp_model *M, const xmlNode *n, const char *name, double *v) {
    return imp_get_vec(M, n, name, v, 1, NULL);
}

/* A required attribute's text (xmlFree), or NULL with the error set. */
static char *need_attr(imp_model *M, const xmlNode *n, const char *name) {
    char *s = imp_attr(n, name);
    if (!s || !s[0]) {
        xmlFree(s);
        imp_fail(M, LD_EINVAL, imp_line(n), (const char *)n->name, "the attribute '%s' is required",
                 name);
        return NULL;
    }
    return s;
}

/* <inertial>: origin, mass, inertia (tensor entries in the inertial frame). */
static int read_inertial(imp_model *M, const xmlNode *in, imp_link *L) {
    double p[3], q[4], m = 0.0, I[6] = {0, 0, 0, 0, 0, 0};
    int rc = read_origin(M, in, p, q);
    const xmlNode *mass = child(in, "mass"), *ine = child(in, "inertia");
    if (!mass) return imp_fail(M, LD_EINVAL, imp_line(in), "inertial", "a <mass> is required");
    if (!rc) rc = get_num(M, mass, "value", &m);
    static const char *const keys[6] = {"ixx", "iyy", "izz", "ixy", "iyz", "ixz"};
    for (int k = 0; !rc && ine && k < 6; ++k) rc = get_num(M, ine, keys[k], &I[k]);
    if (rc) return rc;
    if (!(m >= 0.0))
        return imp_fail(M, LD_EINVAL, imp_line(mass), "mass", "must be >= 0, found %g", m);
    if (m == 0.0) return LD_OK;
    const double J[9] = {I[0], I[3], I[5], I[3], I[1], I[4], I[5], I[4], I[2]};
    double Jl[9];
    imp_rotate_tensor(Jl, q, J);
    imp_add_mass(L, m, p, Jl);
    return LD_OK;
}

/* The colour of a <material>: its own <color rgba>, else the robot's material of that name. */
static void material_color(urdf_ctx *C, const xmlNode *mat, double rgb[3]) {
    const xmlNode *col = child(mat, "color");
    char *name = col ? NULL : imp_attr(mat, "name");
    for (const xmlNode *t = C->root->children; !col && name && t; t = t->next) {
        if (!imp_is(t, "material")) continue;
        char *tn = imp_attr(t, "name");
        if (tn && strcmp(tn, name) == 0) col = child(t, "color");
        xmlFree(tn);
    }
    xmlFree(name);
    char *s = col ? imp_attr(col, "rgba") : NULL;
    double v[4];
    if (s && imp_parse_numbers(s, v, 4) == 4)
        for (int i = 0; i < 3; ++i) rgb[i] = fmin(1.0, fmax(0.0, v[i]));
    xmlFree(s);
}

/* Where a mesh's file is: "package://P/rest" in ROS_PACKAGE_PATH or an ancestor directory of
 * the robot file named P; "file://" and plain paths relative to the robot file. 1 when the
 * file exists (its absolute path into found), else 0 with what was looked for into out. */
static int mesh_where(const imp_model *M, const char *fn, char found[PATH_MAX], char *out,
                      size_t cap) {
    char dir[PATH_MAX], path[2 * PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s", M->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    struct stat st;
    if (strncmp(fn, "package://", 10) == 0) {
        const char *pkg = fn + 10, *rest = strchr(pkg, '/');
        int plen = rest ? (int)(rest - pkg) : (int)strlen(pkg);
        const char *env = getenv("ROS_PACKAGE_PATH");
        char list[4096];
        snprintf(list, sizeof list, "%s", env ? env : "");
        for (char *tok = strtok(list, ":"); tok; tok = strtok(NULL, ":")) {
            snprintf(path, sizeof path, "%s/%.*s%s", tok, plen, pkg, rest ? rest : "");
            if (stat(path, &st) == 0) return realpath(path, found) != NULL;
        }
        char up[PATH_MAX];
        if (realpath(dir, up)) /* ancestors named like the package */
            for (char *s = up + strlen(up); s > up; s = strrchr(up, '/')) {
                *s = '\0';
                const char *base = strrchr(up, '/');
                base = base ? base + 1 : up;
                if ((int)strlen(base) == plen && strncmp(base, pkg, (size_t)plen) == 0) {
                    snprintf(path, sizeof path, "%s%s", up, rest ? rest : "");
                    if (stat(path, &st) == 0 && realpath(path, found)) return 1;
                    snprintf(out, cap, "the file does not exist: %.540s", path);
                    return 0;
                }
            }
        snprintf(out, cap, "the package '%.*s' is not found (ROS_PACKAGE_PATH %s)", plen, pkg,
                 env ? "does not hold it" : "is not set");
        return 0;
    }
    const char *p = strncmp(fn, "file://", 7) == 0 ? fn + 7 : fn;
    if (p[0] == '/')
        snprintf(path, sizeof path, "%s", p);
    else
        snprintf(path, sizeof path, "%s/%s", dir, p);
    if (stat(path, &st) == 0 && realpath(path, found)) return 1;
    snprintf(out, cap, "the file does not exist: %.540s", path);
    return 0;
}

/* <mesh filename scale> as shape sh: drawn when its file is found, else reported. 1 when it is
 * a shape; 0 (reported, or *rc set on a bad scale). */
static int read_mesh(urdf_ctx *C, const xmlNode *g, imp_link *L, imp_shape *sh, int *rc) {
    imp_model *M = C->M;
    char *fn = imp_attr(g, "filename"), where[600], found[PATH_MAX];
    int ok = 0;
    if (!fn || !fn[0]) {
        *rc = imp_fail(M, LD_EINVAL, imp_line(g), "mesh",
                       "of link '%s': the attribute "
                       "'filename' is required",
                       L->name);
    } else if (!mesh_where(M, fn, found, where, sizeof where)) {
        imp_warn(M, LD_IMPORT_IGNORED, imp_line(g), "mesh", "'%.200s' of link '%s' not drawn: %s",
                 fn, L->name, where);
    } else {
        sh->kind = LD_SHAPE_MESH;
        sh->size[0] = sh->size[1] = sh->size[2] = 1.0;
        *rc = imp_get_vec(M, g, "scale", sh->size, 3, NULL);
        sh->file = *rc ? -1 : imp_add_file(M, found);
        if (!*rc && sh->file < 0) *rc = LD_ENOMEM;
        ok = !*rc;
    }
    xmlFree(fn);
    return ok;
}

/* <geometry> of a <visual> or <collision> at frame (p, q) as a shape of L; meshes reported. */
static int read_geometry(urdf_ctx *C, const xmlNode *vis, imp_link *L, const double rgb[3]) {
    imp_model *M = C->M;
    double p[3], q[4];
    int rc = read_origin(M, vis, p, q);
    const xmlNode *g = child(vis, "geometry");
    for (g = g ? g->children : NULL; g && g->type != XML_ELEMENT_NODE;) g = g->next;
    if (rc || !g) return rc;
    imp_shape sh;
    memset(&sh, 0, sizeof sh);
    memcpy(sh.pos, p, sizeof p), memcpy(sh.quat, q, sizeof q),
        memcpy(sh.color, rgb, sizeof sh.color);
    sh.line = imp_line(g);
    double d[3] = {0, 0, 0};
    if (imp_is(g, "box")) {
        sh.kind = LD_SHAPE_BOX;
        rc = imp_get_vec(M, g, "size", sh.size, 3, NULL);
    } else if (imp_is(g, "sphere")) {
        sh.kind = LD_SHAPE_SPHERE;
        rc = get_num(M, g, "radius", &sh.size[0]);
    } else if (imp_is(g, "cylinder")) {
        sh.kind = LD_SHAPE_CYLINDER;
        rc = get_num(M, g, "radius", &d[0]);
        if (!rc) rc = get_num(M, g, "length", &d[1]);
        sh.size[0] = d[0], sh.size[1] = d[1];
    } else if (imp_is(g, "mesh")) {
        if (!read_mesh(C, g, L, &sh, &rc)) return rc;
    } else {
        imp_warn(M, LD_IMPORT_IGNORED, imp_line(g), (const char *)g->name,
                 "geometry of link '%s' not drawn (not a URDF primitive)", L->name);
        return LD_OK;
    }
    if (rc) return rc;
    if (L->nshapes == LD_SHAPES_PER_BODY_MAX)
        L->dropped_shapes++;
    else
        L->shapes[L->nshapes++] = sh;
    return LD_OK;
}

/* <link>: name, inertial, visual (drawn), collision (drawn when there is no visual). */
static int read_link(urdf_ctx *C, const xmlNode *n) {
    imp_model *M = C->M;
    char *name = need_attr(M, n, "name");
    if (!name) return LD_EINVAL;
    for (int i = 0; i < M->nlinks; ++i)
        if (strncmp(M->links[i].name, name, LD_NAME_MAX - 1) == 0) {
            int rc =
                imp_fail(M, LD_EINVAL, imp_line(n), "link",
                         "a second link named '%s' (the first at line %d)", name, M->links[i].line);
            xmlFree(name);
            return rc;
        }
    int k = imp_add_link(M);
    if (k < 0) return xmlFree(name), LD_ENOMEM;
    imp_link *L = &M->links[k];
    L->line = imp_line(n);
    imp_set_name(M, L->name, name, L->line, "link");
    xmlFree(name);
    int rc = LD_OK, visuals = 0;
    for (const xmlNode *c = n->children; !rc && c; c = c->next) visuals += imp_is(c, "visual");
    for (const xmlNode *c = n->children; !rc && c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        double rgb[3] = {-1, -1, -1};
        if (imp_is(c, "inertial")) {
            rc = read_inertial(M, c, L);
        } else if (imp_is(c, "visual")) {
            const xmlNode *mat = child(c, "material");
            if (mat) material_color(C, mat, rgb);
            rc = read_geometry(C, c, L, rgb);
        } else if (imp_is(c, "collision")) {
            if (!C->t.collision++) C->t.collision_line = imp_line(c);
            if (!visuals) rc = read_geometry(C, c, L, rgb);
        } else {
            imp_warn(M, LD_IMPORT_IGNORED, imp_line(c), (const char *)c->name,
                     "in link '%s': not a URDF link element, ignored", L->name);
        }
    }
    return rc;
}

static int find_link(const imp_model *M, const char *name) {
    for (int i = 0; i < M->nlinks; ++i)
        if (strncmp(M->links[i].name, name, LD_NAME_MAX - 1) == 0) return i;
    return -1;
}

/* <parent link> or <child link> of joint n: the link's index, or −1 with the error set. */
static int joint_end(imp_model *M, const xmlNode *n, const char *tag, const char *jname) {
    const xmlNode *e = child(n, tag);
    if (!e) {
        imp_fail(M, LD_EINVAL, imp_line(n), "joint", "'%s' needs a <%s link=\"...\"/>", jname, tag);
        return -1;
    }
    char *ln = need_attr(M, e, "link");
    if (!ln) return -1;
    int k = find_link(M, ln);
    if (k < 0)
        imp_fail(M, LD_EINVAL, imp_line(e), tag, "joint '%s': no link named '%s'", jname, ln);
    xmlFree(ln);
    return k;
}

/* The joint's type into L (child link); planar refused. */
static int joint_type(imp_model *M, const xmlNode *n, imp_link *L, int *continuous) {
    char *type = need_attr(M, n, "type");
    if (!type) return LD_EINVAL;
    int rc = LD_OK;
    *continuous = 0;
    if (!strcmp(type, "revolute"))
        L->jkind = IMP_J_REVOLUTE;
    else if (!strcmp(type, "continuous"))
        L->jkind = IMP_J_REVOLUTE, *continuous = 1;
    else if (!strcmp(type, "prismatic"))
        L->jkind = IMP_J_PRISMATIC;
    else if (!strcmp(type, "fixed"))
        L->jkind = IMP_J_FIXED;
    else if (!strcmp(type, "floating"))
        L->jkind = IMP_J_FREE;
    else if (!strcmp(type, "planar"))
        rc = imp_fail(M, LD_ENOTSUPPORTED, imp_line(n), "joint",
                      "'%s': the planar joint is not supported (liedyn has no joint that keeps "
                      "a body in a plane; a prismatic pair and a revolute joint with a body "
                      "between them would)",
                      L->jname);
    else
        rc = imp_fail(M, LD_EINVAL, imp_line(n), "joint",
                      "'%s': unknown type '%s' (expected revolute, continuous, prismatic, "
                      "fixed, floating or planar)",
                      L->jname, type);
    xmlFree(type);
    return rc;
}

/* <limit> and <dynamics> of a moving joint. */
static int joint_limits(urdf_ctx *C, const xmlNode *n, imp_link *L, int continuous) {
    imp_model *M = C->M;
    const xmlNode *lim = child(n, "limit"), *dyn = child(n, "dynamics");
    int rc = LD_OK;
    if (lim) {
        double lo = 0, hi = 0;
        rc = get_num(M, lim, "lower", &lo);
        if (!rc) rc = get_num(M, lim, "upper", &hi);
        if (!rc) rc = get_num(M, lim, "effort", &L->effort);
        if (!rc) rc = get_num(M, lim, "velocity", &L->velocity);
        if (!rc && !continuous && lo < hi) {
            L->has_limits = 1, L->lo = lo, L->hi = hi;
            if (!C->t.limits++) C->t.limits_line = imp_line(lim);
        }
        if (!rc && (L->effort > 0 || L->velocity > 0) && !C->t.effort++)
            C->t.effort_line = imp_line(lim);
    }
    if (!rc && dyn) {
        double c = 0, fr = 0;
        rc = get_num(M, dyn, "damping", &c);
        if (!rc) rc = get_num(M, dyn, "friction", &fr);
        if (!rc && c > 0) {
            imp_spring *s = &L->springs[L->nsprings++];
            memset(s, 0, sizeof *s);
            s->slide = L->jkind == IMP_J_PRISMATIC;
            memcpy(s->axis, L->axis, sizeof s->axis);
            s->c = c;
            s->line = imp_line(dyn);
            snprintf(s->name, sizeof s->name, "%s", L->jname);
        }
        if (!rc && fr > 0)
            imp_warn(M, LD_IMPORT_DYNAMICS, imp_line(dyn), "dynamics",
                     "joint '%s': friction %g not represented (liedyn has no joint friction)",
                     L->jname, fr);
    }
    return rc;
}

/* <joint>: the child link's joint to its parent link. */
static int read_joint(urdf_ctx *C, const xmlNode *n) {
    imp_model *M = C->M;
    char *jn = need_attr(M, n, "name");
    if (!jn) return LD_EINVAL;
    char jname[LD_NAME_MAX];
    imp_set_name(M, jname, jn, imp_line(n), "joint");
    xmlFree(jn);
    int p = joint_end(M, n, "parent", jname), c = p < 0 ? -1 : joint_end(M, n, "child", jname);
    if (p < 0 || c < 0) return LD_EINVAL;
    imp_link *L = &M->links[c];
    if (L->jline)
        return imp_fail(M, LD_EINVAL, imp_line(n), "joint",
                        "'%s': link '%s' is already the child of joint '%s' (line %d); a link "
                        "has one parent (closed chains are not URDF)",
                        jname, L->name, L->jname, L->jline);
    if (p == c)
        return imp_fail(M, LD_EINVAL, imp_line(n), "joint", "'%s' joins link '%s' to itself", jname,
                        L->name);
    memcpy(L->jname, jname, sizeof jname);
    L->jline = imp_line(n);
    L->parent = p;
    int continuous = 0, rc = joint_type(M, n, L, &continuous);
    if (!rc) rc = read_origin(M, n, L->pos, L->quat);
    const xmlNode *ax = child(n, "axis");
    if (!rc && ax) rc = imp_get_vec(M, ax, "xyz", L->axis, 3, NULL);
    if (!rc && (L->jkind == IMP_J_REVOLUTE || L->jkind == IMP_J_PRISMATIC) &&
        imp_normalize(L->axis))
        rc = imp_fail(M, LD_EINVAL, imp_line(ax ? ax : n), "axis", "joint '%s': must be non-zero",
                      jname);
    if (!rc && (L->jkind == IMP_J_REVOLUTE || L->jkind == IMP_J_PRISMATIC))
        rc = joint_limits(C, n, L, continuous);
    for (const xmlNode *e = n->children; !rc && e; e = e->next) {
        if (imp_is(e, "mimic"))
            imp_warn(M, LD_IMPORT_DYNAMICS, imp_line(e), "mimic",
                     "joint '%s': the coupling to another joint is not represented (it moves "
                     "freely)",
                     jname);
        else if (imp_is(e, "safety_controller") || imp_is(e, "calibration"))
            C->t.safety++ ? 0 : (C->t.safety_line = imp_line(e));
    }
    return rc;
}

/* The root: a link named "world" or without mass is the ground; a root with mass floats
 * (or, with fixed_base, is fixed to the ground). Exactly one root. */
static int choose_root(urdf_ctx *C) {
    imp_model *M = C->M;
    int root = -1;
    for (int i = 0; i < M->nlinks; ++i) {
        if (M->links[i].jline) continue;
        if (root >= 0)
            return imp_fail(M, LD_EINVAL, M->links[i].line, "link",
                            "'%s' and '%s' (line %d) both have no parent joint: a URDF robot is "
                            "one tree with one root",
                            M->links[i].name, M->links[root].name, M->links[root].line);
        root = i;
    }
    if (root < 0)
        return imp_fail(M, LD_EINVAL, M->name_line, "robot",
                        M->nlinks ? "every link is the child of a joint: the links form a "
                                    "closed chain (a URDF robot is a tree)"
                                  : "no <link> elements");
    imp_link *R = &M->links[root];
    if (strcmp(R->name, "world") == 0 && R->mass > 0) {
        imp_warn(M, LD_IMPORT_DYNAMICS, R->line, "link",
                 "'world' is the ground: its mass %g is not used", R->mass);
        R->mass = 0;
    }
    if (R->mass > 0 && M->opt.fixed_base) R->jkind = IMP_J_FIXED;
    return LD_OK;
}

static void report_tally(urdf_ctx *C) {
    imp_model *M = C->M;
    const urdf_tally *t = &C->t;
    if (t->collision)
        imp_warn(M, LD_IMPORT_IGNORED, t->collision_line, "collision",
                 "%d collision element%s: no contact is modelled (drawn only for links without "
                 "a visual)",
                 t->collision, t->collision == 1 ? "" : "s");
    if (t->limits)
        imp_warn(M, LD_IMPORT_DYNAMICS, t->limits_line, "limit",
                 M->opt.limits ? "position limits of %d joint(s) written as joint limits (only the "
                                 "moreau integrator enforces them)"
                               : "position limits of %d joint(s) not enforced: kept as comments "
                                 "(liedyn convert --limits writes them; only moreau enforces "
                                 "them)",
                 t->limits);
    if (t->effort)
        imp_warn(M, LD_IMPORT_DYNAMICS, t->effort_line, "limit",
                 "effort and velocity limits of %d joint(s) kept as comments (an effort limits "
                 "the actuator of a <transmission> on the joint; velocity limits are not "
                 "applied)",
                 t->effort);
    if (t->safety)
        imp_warn(M, LD_IMPORT_IGNORED, t->safety_line, "safety_controller",
                 "%d safety_controller or calibration elements ignored (controller settings)",
                 t->safety);
}

/* The text of the first child element tag of n (xmlFree), or NULL. */
static char *child_text(const xmlNode *n, const char *tag) {
    for (const xmlNode *c = n->children; c; c = c->next)
        if (imp_is(c, tag)) return (char *)xmlNodeGetContent(c);
    return NULL;
}

/* A <transmission>: an actuator with input control on each joint it names, its force limited to
 * ±the joint's effort (the control is the joint's effort, as an effort interface commands it;
 * a mechanicalReduction is reported, not applied). */
static int read_transmission(urdf_ctx *C, const xmlNode *n) {
    imp_model *M = C->M;
    char *tn = imp_attr(n, "name");
    int rc = LD_OK, found = 0;
    for (const xmlNode *c = n->children; !rc && c; c = c->next) {
        if (imp_is(c, "actuator")) {
            char *red = child_text(c, "mechanicalReduction");
            double r = 1.0;
            if (red && imp_parse_numbers(red, &r, 1) == 1 && r != 1.0)
                imp_warn(M, LD_IMPORT_DYNAMICS, imp_line(c), "actuator",
                         "mechanicalReduction %g not applied (the control is the joint's effort)",
                         r);
            xmlFree(red);
        }
        if (!imp_is(c, "joint")) continue;
        char *jn = imp_attr(c, "name");
        imp_actuator *a = jn ? imp_add_actuator(M) : NULL;
        if (jn && !a)
            rc = imp_fail(M, LD_ENOMEM, imp_line(c), "transmission", "%s", ld_oom_last_str());
        if (a) {
            snprintf(a->kind, sizeof a->kind, "transmission");
            a->line = imp_line(c), a->input = LD_ACT_CONTROL;
            a->effort = 1;
            snprintf(a->joint, sizeof a->joint, "%s", jn);
            imp_set_name(M, a->name, tn ? tn : jn, a->line, "transmission");
            if (found++) snprintf(a->name, sizeof a->name, "%.40s-%s", tn ? tn : "", jn);
        }
        xmlFree(jn);
    }
    if (!rc && !found)
        imp_warn(M, LD_IMPORT_DYNAMICS, imp_line(n), "transmission",
                 "'%s': names no joint: not imported", tn ? tn : "");
    xmlFree(tn);
    return rc;
}

int imp_urdf(imp_model *M, xmlDoc *doc) {
    urdf_ctx C;
    memset(&C, 0, sizeof C);
    C.M = M;
    C.root = xmlDocGetRootElement(doc);
    M->name_line = imp_line(C.root);
    char *rn = imp_attr(C.root, "name");
    imp_set_name(M, M->name, rn && rn[0] ? rn : "robot", M->name_line, "robot");
    xmlFree(rn);
    int rc = LD_OK;
    for (const xmlNode *n = C.root->children; !rc && n; n = n->next)
        if (imp_is(n, "link")) rc = read_link(&C, n);
    for (const xmlNode *n = C.root->children; !rc && n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || imp_is(n, "link") || imp_is(n, "material")) continue;
        if (imp_is(n, "joint"))
            rc = read_joint(&C, n);
        else if (imp_is(n, "transmission"))
            rc = read_transmission(&C, n);
        else
            imp_warn(M, LD_IMPORT_IGNORED, imp_line(n), (const char *)n->name,
                     "not a URDF robot element (e.g. a simulator's extension): ignored");
    }
    if (!rc) rc = choose_root(&C);
    if (!rc) report_tally(&C);
    return rc;
}

/*
 * The importers' tree as a liedyn YAML model (docs/model-format.md, docs/import.md): bodies
 * with their frame at the centre of mass and the link's axes, joints in the frame form (the
 * bodies placed by them at coordinates zero), force elements for the joints' springs and
 * dampers, shapes. Every item carries a comment with the file's line, and a table maps each
 * YAML line to that line, so the reader's messages can point into the imported file.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imp.h"
#include "liedyn/lie.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

typedef struct ybuf {
    char *s;
    size_t len, cap;
    int *lines; /* the file's line of each YAML line */
    int nlines, lcap;
    int src; /* the file's line of what is written now */
    int nomem;
    const char *file; /* the imported file's base name (comments) */
} ybuf;

static void put(ybuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "FILE:LINE" of an importer's line for the comments: the imported file's base name, or the
 * included file's (imp_at). */
static const char *src_at(const ybuf *b, const imp_model *M, int line, char *buf, size_t cap) {
    if (line / IMP_LINE_STRIDE == 0)
        snprintf(buf, cap, "%s:%d", b->file, line);
    else
        imp_at(M, line, buf, cap);
    return buf;
}
static void put(ybuf *b, const char *fmt, ...) {
    if (b->nomem) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = 2 * b->cap + (size_t)n + 4096;
        char *s = ld_xrealloc(b->s, cap, "the model's text");
        if (!s) {
            b->nomem = 1;
            return;
        }
        b->s = s, b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    for (size_t i = b->len; i < b->len + (size_t)n; ++i) {
        if (b->s[i] != '\n') continue;
        if (b->nlines == b->lcap) {
            int cap = b->lcap ? 2 * b->lcap : 256;
            int *l = ld_xrealloc(b->lines, (size_t)cap * sizeof *l, "the model's line map");
            if (!l) {
                b->nomem = 1;
                return;
            }
            b->lines = l, b->lcap = cap;
        }
        b->lines[b->nlines++] = b->src;
    }
    b->len += (size_t)n;
}

/* A number that reads back to the same double: the shortest of %.15g, %.16g, %.17g. */
static const char *num(char buf[32], double v) {
    if (v == 0.0) v = 0.0; /* no "-0" */
    for (int p = 15; p <= 17; ++p) {
        snprintf(buf, 32, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

static void put_vec(ybuf *b, const double *v, int n) {
    char t[32];
    put(b, "[");
    for (int i = 0; i < n; ++i) put(b, "%s%s", i ? ", " : "", num(t, v[i]));
    put(b, "]");
}

/* A double-quoted YAML string. */
static void put_str(ybuf *b, const char *s) {
    put(b, "\"");
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            put(b, "\\%c", c);
        else if (c < 0x20)
            put(b, "\\x%02x", c);
        else
            put(b, "%c", c);
    }
    put(b, "\"");
}

static const char *ground_or(const imp_model *M, int i) {
    return i < 0 ? "ground" : M->links[i].name;
}

/* A mesh shape: its file, scale, centre and orientation in the body (the link's axes). */
static void put_mesh(ybuf *b, const imp_model *M, const double c[3], const imp_shape *sh) {
    put(b, "      - {type: mesh, file: ");
    put_str(b, M->files[sh->file]);
    put(b, ", scale: ");
    put_vec(b, sh->size, 3);
    put(b, ", center: ");
    put_vec(b, c, 3);
    if (sh->quat[0] != 1.0) {
        put(b, ", orientation: ");
        put_vec(b, sh->quat, 4);
    }
    if (sh->color[0] >= 0) {
        put(b, ", color: ");
        put_vec(b, sh->color, 3);
    }
    char at[300];
    put(b, "}   # %s\n", imp_at(M, sh->line, at, sizeof at));
}

/* Are L's joint limits written as limits (the limits option; liedyn holds them)? */
static int limits_written(const imp_model *M, const imp_link *L) {
    return L->has_limits && M->opt.limits &&
           (L->jkind == IMP_J_PRISMATIC || (L->lo > -IMP_PI && L->hi < IMP_PI));
}

/* A sphere, capsule, cylinder or box at centre c (its body's frame, or the world's for a
 * ground shape) as a flow mapping after lead, with collide and friction when it collides. */
static void put_primitive(ybuf *b, const imp_model *M, const char *lead, const imp_shape *sh,
                          const double c[3]) {
    double ax[3];
    const double ez[3] = {0, 0, 1};
    ld_quat_rotate(ax, sh->quat, ez);
    char t[32];
    put(b, "%s{type: %s, ", lead, ld_shape_kind_name(sh->kind));
    if (sh->kind == LD_SHAPE_BOX) {
        put(b, "size: ");
        put_vec(b, sh->size, 3);
    } else {
        put(b, "radius: %s", num(t, sh->size[0]));
    }
    if (sh->kind != LD_SHAPE_BOX && sh->kind != LD_SHAPE_SPHERE) {
        put(b, ", length: %s, axis: ", num(t, sh->size[1]));
        put_vec(b, ax, 3);
    }
    put(b, ", center: ");
    put_vec(b, c, 3);
    if (sh->color[0] >= 0) {
        put(b, ", color: ");
        put_vec(b, sh->color, 3);
    }
    if (sh->collide) put(b, ", collide: true, friction: %s", num(t, sh->friction));
    if (sh->hidden) put(b, ", draw: false");
    char at[300];
    put(b, "}   # %s\n", imp_at(M, sh->line, at, sizeof at));
}

static void put_shape(ybuf *b, const imp_model *M, const imp_link *L, const imp_shape *sh) {
    double c[3];
    for (int i = 0; i < 3; ++i) c[i] = sh->pos[i] - L->com[i];
    b->src = sh->line; /* the reader's messages about the shape point at its element */
    if (sh->kind == LD_SHAPE_MESH)
        put_mesh(b, M, c, sh);
    else
        put_primitive(b, M, "      - ", sh, c);
}

/* The contact option's ground plane and ground shapes (imp_model), if any. */
static void put_ground(ybuf *b, const imp_model *M) {
    char t[32];
    if (M->plane_on) {
        char at[300];
        b->src = M->plane_line;
        put(b, "ground_plane: {normal: ");
        put_vec(b, M->plane_n, 3);
        put(b, ", point: ");
        put_vec(b, M->plane_p, 3);
        put(b, ", friction: %s}   # %s\n", num(t, M->plane_mu),
            src_at(b, M, M->plane_line, at, sizeof at));
    }
    for (int s = 0; s < M->nground; ++s) {
        if (!s) b->src = M->ground[0].line, put(b, "ground_shapes:\n");
        b->src = M->ground[s].line;
        put_primitive(b, M, "  - ", &M->ground[s], M->ground[s].pos);
    }
}

/* Does the model need moreau: a colliding shape, a ground or joint limits written? */
static int needs_moreau(const imp_model *M) {
    if (M->plane_on || M->nground) return 1;
    for (int i = 0; i < M->nlinks; ++i) {
        const imp_link *L = &M->links[i];
        if (L->merged) continue;
        if (limits_written(M, L)) return 1;
        for (int s = 0; s < L->nshapes; ++s)
            if (L->shapes[s].collide) return 1;
    }
    return 0;
}

static void put_body(ybuf *b, const imp_model *M, const imp_link *L) {
    b->src = L->line;
    put(b, "  - name: ");
    put_str(b, L->name);
    char at[300];
    put(b, "   # %s %s\n", src_at(b, M, L->line, at, sizeof at),
        L->auxiliary                  ? "auxiliary body (docs/import.md)"
        : M->format == LD_IMPORT_URDF ? "link"
                                      : "body");
    char t[32];
    put(b, "    mass: %s\n    inertia: ", num(t, L->mass));
    put_vec(b, L->inertia, 9);
    put(b, "\n");
    if (L->jkind == IMP_J_FREE) { /* no joint places it */
        double x[3];
        ld_quat_rotate(x, L->wq, L->com);
        for (int i = 0; i < 3; ++i) x[i] += L->wx[i];
        put(b, "    position: ");
        put_vec(b, x, 3);
        put(b, "\n    orientation: ");
        put_vec(b, L->wq, 4);
        put(b, "\n");
    }
    if (L->nshapes) put(b, "    shape:\n");
    for (int s = 0; s < L->nshapes; ++s) put_shape(b, M, L, &L->shapes[s]);
}

static const char *const jtypes[] = {"free",        "fixed",     "revolute", "prismatic",
                                     "cylindrical", "universal", "spherical"};

/* frame1 and frame2 of the joint of link L (docs/import.md). */
static void put_frames(ybuf *b, const imp_model *M, const imp_link *L) {
    const double *cp = L->parent >= 0 ? M->links[L->parent].com : (const double[3]){0, 0, 0};
    double u[3] = {0, 0, 1}, r[3] = {1, 0, 0}, a1[3], a2[3], u1[3], r1[3], qa[3];
    if (L->jkind == IMP_J_REVOLUTE || L->jkind == IMP_J_PRISMATIC ||
        L->jkind == IMP_J_CYLINDRICAL) {
        memcpy(u, L->axis, sizeof u);
        imp_perp(r, u);
    } else if (L->jkind == IMP_J_UNIVERSAL) {
        memcpy(u, L->axis, sizeof u);
        memcpy(r, L->axis2, sizeof r);
    }
    ld_quat_rotate(qa, L->quat, L->anchor);
    ld_quat_rotate(u1, L->quat, u);
    ld_quat_rotate(r1, L->quat, r);
    for (int i = 0; i < 3; ++i) a1[i] = L->pos[i] + qa[i] - cp[i], a2[i] = L->anchor[i] - L->com[i];
    put(b, "    frame1: {at: ");
    put_vec(b, a1, 3);
    put(b, ", axis: ");
    put_vec(b, u1, 3);
    put(b, ", ref: ");
    put_vec(b, r1, 3);
    put(b, "}\n    frame2: {at: ");
    put_vec(b, a2, 3);
    put(b, ", axis: ");
    put_vec(b, u, 3);
    put(b, ", ref: ");
    put_vec(b, r, 3);
    put(b, "}\n");
}

static void put_joint(ybuf *b, const imp_model *M, const imp_link *L) {
    b->src = L->jline ? L->jline : L->line;
    put(b, "  - name: ");
    put_str(b, L->jname[0] ? L->jname : L->name);
    char at[300];
    put(b, "   # %s\n    type: %s\n    body1: ", src_at(b, M, b->src, at, sizeof at),
        jtypes[L->jkind]);
    put_str(b, ground_or(M, L->parent));
    put(b, "\n    body2: ");
    put_str(b, L->name);
    put(b, "\n");
    put_frames(b, M, L);
    char t[32], t2[32];
    if (L->has_limits) {
        int ok = limits_written(M, L);
        put(b, "    %slimits: [%s, %s]%s\n", ok ? "" : "# ", num(t, L->lo), num(t2, L->hi),
            ok ? ""
            : L->jkind == IMP_J_PRISMATIC || (L->lo > -IMP_PI && L->hi < IMP_PI)
                ? "   # only the moreau integrator enforces limits"
                : "   # outside (-pi, pi): liedyn cannot hold these");
    }
    if (L->effort > 0 || L->velocity > 0)
        put(b, "    # effort: %s, velocity: %s (for actuators)\n", num(t, L->effort),
            num(t2, L->velocity));
}

/* A hinge spring's rest angle to write: nonzero and within (−π, π) (the importer reports the
 * others). */
static int rest_angle(const imp_spring *s) {
    return !s->slide && s->k > 0 && s->ref != 0.0 && fabs(s->ref) < IMP_PI;
}

static void put_spring(ybuf *b, const imp_model *M, const imp_link *L, const imp_spring *s) {
    b->src = s->line;
    double ax[3], at[3], t3[3];
    char t[32];
    ld_quat_rotate(ax, L->wq, s->axis);
    put(b, "  - {name: ");
    put_str(b, s->name);
    put(b, ", type: %s, body1: ", s->slide ? "spring-damper" : "rotational-spring-damper");
    put_str(b, ground_or(M, L->parent));
    put(b, ", body2: ");
    put_str(b, L->name);
    if (s->k > 0) put(b, ", k: %s", num(t, s->k));
    if (s->c > 0) put(b, ", c: %s", num(t, s->c));
    if (s->slide) { /* along the slide: points 1 m apart on its line */
        ld_quat_rotate(t3, L->wq, s->anchor);
        for (int i = 0; i < 3; ++i) at[i] = L->wx[i] + t3[i];
        put(b, ", at1: ");
        put_vec(b, at, 3);
        for (int i = 0; i < 3; ++i) at[i] += ax[i];
        put(b, ", at2: ");
        put_vec(b, at, 3);
        if (s->k > 0) put(b, ", l0: %s", num(t, 1.0 + s->ref));
    } else if ((L->jkind != IMP_J_REVOLUTE && L->jkind != IMP_J_CYLINDRICAL) || rest_angle(s)) {
        put(b, ", axis: ");
        put_vec(b, ax, 3);
        if (rest_angle(s)) put(b, ", angle0: %s", num(t, s->ref));
    } /* a revolute (cylindrical) joint turns its bodies about its axis only: the spring on the
       * whole relative rotation is the hinge's, at any starting angle (an axis written here
       * would be spatial at zero coordinates, wrong once a joint is given an `angle`); a rest
       * angle needs the axis, and counts from the pose as written */
    char wh[300];
    put(b, "}   # %s\n", src_at(b, M, s->line, wh, sizeof wh));
}

/* Is name the name of a spring element the model writes? */
static int spring_named(const imp_model *M, const char *name) {
    for (int i = 0; i < M->nlinks; ++i)
        for (int s = 0; !M->links[i].merged && s < M->links[i].nsprings; ++s)
            if (!strcmp(M->links[i].springs[s].name, name)) return 1;
    return 0;
}

/* An actuator on its joint (found: link k); its name given a suffix when a spring has it. */
static void put_actuator(ybuf *b, const imp_model *M, const imp_actuator *a, int k) {
    static const char *const inputs[] = {"force", "position", "velocity", "control"};
    const imp_link *L = &M->links[k];
    char name[LD_NAME_MAX + 16], t[32], t2[32];
    b->src = a->line;
    snprintf(name, sizeof name, "%s%s", a->name[0] ? a->name : a->joint,
             spring_named(M, a->name[0] ? a->name : a->joint) ? "-actuator" : "");
    put(b, "  - {name: ");
    put_str(b, name);
    put(b, ", type: actuator, joint: ");
    put_str(b, L->jname[0] ? L->jname : L->name);
    put(b, ", input: %s", inputs[a->input]);
    if (a->input != LD_ACT_CONTROL) put(b, ", reference: control");
    if (a->gear != 1.0) put(b, ", gear: %s", num(t, a->gear));
    if (a->input == LD_ACT_POSITION) put(b, ", kp: %s", num(t, a->kp));
    if (a->input != LD_ACT_CONTROL && a->kv > 0) put(b, ", kv: %s", num(t, a->kv));
    if (a->has_flim) put(b, ", force_limits: [%s, %s]", num(t, a->flim[0]), num(t2, a->flim[1]));
    if (!a->has_flim && a->effort && L->effort > 0)
        put(b, ", force_limits: [%s, %s]", num(t, -L->effort), num(t2, L->effort));
    if (a->has_clim) put(b, ", ctrl_limits: [%s, %s]", num(t, a->clim[0]), num(t2, a->clim[1]));
    char at[300];
    put(b, "}   # %s %s\n", src_at(b, M, a->line, at, sizeof at), a->kind);
}

int imp_write_yaml(const imp_model *M, char **text, size_t *len, int **lines, int *nlines) {
    ybuf b;
    memset(&b, 0, sizeof b);
    const char *slash = strrchr(M->path, '/');
    b.file = slash ? slash + 1 : M->path;
    b.src = M->name_line;
    char t[32];
    put(&b, "name: ");
    put_str(&b, M->name);
    put(&b, "\ndescription: ");
    char d[400];
    snprintf(d, sizeof d, "imported from %.300s (%s)", b.file,
             M->format == LD_IMPORT_URDF ? "URDF" : "MJCF");
    put_str(&b, d);
    put(&b, "\ngravity: ");
    put_vec(&b, M->gravity, 3);
    if (needs_moreau(M)) /* contact or joint limits: the method that treats them */
        put(&b, "\nintegrator: {name: moreau, dt: %s, t_end: 1}\n", num(t, 1e-3));
    else
        put(&b, "\nintegrator: {name: genalpha, formulation: so3xr3, dt: %s, t_end: 1}\n",
            num(t, 1e-3));
    put_ground(&b, M);
    put(&b, "bodies:\n");
    for (int i = 0; i < M->nlinks; ++i)
        if (!M->links[i].merged) put_body(&b, M, &M->links[i]);
    int nj = 0, ns = 0;
    for (int i = 0; i < M->nlinks; ++i) {
        const imp_link *L = &M->links[i];
        if (L->merged || L->jkind == IMP_J_FREE) continue;
        if (!nj++) b.src = L->jline, put(&b, "joints:\n");
        put_joint(&b, M, L);
    }
    for (int i = 0; i < M->nlinks; ++i) {
        const imp_link *L = &M->links[i];
        for (int s = 0; !L->merged && s < L->nsprings; ++s) {
            if (!ns++) b.src = L->springs[s].line, put(&b, "elements:\n");
            put_spring(&b, M, L, &L->springs[s]);
        }
    }
    for (int i = 0; i < M->nacts; ++i) {
        int k = imp_find_joint(M, M->acts[i].joint, NULL);
        if (k < 0) continue; /* reported by imp_check_actuators */
        if (!ns++) b.src = M->acts[i].line, put(&b, "elements:\n");
        put_actuator(&b, M, &M->acts[i], k);
    }
    for (int k = 0; k < M->nexcl; ++k) {
        if (!k)
            put(&b, "contact_exclude:   # pairs MuJoCo never tests: a body and its parent, the "
                    "file's <exclude>\n");
        put(&b, "  - [");
        put_str(&b, M->links[M->excl[2 * k]].name);
        put(&b, ", ");
        put_str(&b, M->links[M->excl[2 * k + 1]].name);
        put(&b, "]\n");
    }
    if (b.nomem) {
        free(b.s), free(b.lines);
        return LD_ENOMEM;
    }
    *text = b.s, *len = b.len, *lines = b.lines, *nlines = b.nlines;
    return LD_OK;
}

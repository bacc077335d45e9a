/*
 * The importers' tree (imp.h): links, warnings and errors, merging massless links, placing
 * the tree at joint coordinates zero, and the small geometry both formats need.
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

int imp_add_link(imp_model *M) {
    if (M->nlinks == M->cap) {
        int cap = M->cap ? 2 * M->cap : 16;
        imp_link *l = ld_xrealloc(M->links, (size_t)cap * sizeof *l, "the links");
        if (!l) return -1;
        M->links = l, M->cap = cap;
    }
    imp_link *L = &M->links[M->nlinks];
    memset(L, 0, sizeof *L);
    L->parent = -1;
    L->quat[0] = 1.0;
    L->wq[0] = 1.0;
    L->axis[0] = 1.0;
    L->axis2[1] = 1.0;
    L->jkind = IMP_J_FREE;
    return M->nlinks++;
}

void imp_warn(imp_model *M, ld_import_severity sev, int line, const char *element, const char *fmt,
              ...) {
    ld_import_report *r = M->rep;
    if (!r) return;
    if ((r->nwarn & (r->nwarn - 1)) == 0) { /* grow at powers of two */
        size_t cap = r->nwarn ? 2 * (size_t)r->nwarn : 8;
        ld_import_warning *w = ld_xrealloc(r->warn, cap * sizeof *w, "the warnings");
        if (!w) {
            M->nomem = 1;
            return;
        }
        r->warn = w;
    }
    ld_import_warning *w = &r->warn[r->nwarn++];
    memset(w, 0, sizeof *w);
    const char *file;
    w->line = imp_where(M, line, &file);
    snprintf(w->file, sizeof w->file, "%s", file);
    w->severity = sev;
    snprintf(w->element, sizeof w->element, "%s", element);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg, sizeof w->msg, fmt, ap);
    va_end(ap);
}

int imp_fail(imp_model *M, int code, int line, const char *element, const char *fmt, ...) {
    ld_model_error *e = M->err;
    if (!e) return code;
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    memset(e, 0, sizeof *e);
    const char *file;
    e->line = imp_where(M, line, &file);
    snprintf(e->file, sizeof e->file, "%s", file);
    snprintf(e->key, sizeof e->key, "%s", element);
    snprintf(e->msg, sizeof e->msg, "%.200s:%d: %.60s: %.230s", file, e->line, element, why);
    return code;
}

int imp_where(const imp_model *M, int line, const char **file) {
    int f = line / IMP_LINE_STRIDE;
    *file = f >= 1 && f <= M->ninc ? M->inc[f - 1] : M->path;
    return f >= 1 && f <= M->ninc ? line % IMP_LINE_STRIDE : line;
}

const char *imp_at(const imp_model *M, int line, char *buf, size_t cap) {
    const char *file;
    int l = imp_where(M, line, &file);
    if (file == M->path) {
        snprintf(buf, cap, "line %d", l);
    } else {
        const char *slash = strrchr(file, '/');
        snprintf(buf, cap, "%s:%d", slash ? slash + 1 : file, l);
    }
    return buf;
}

imp_actuator *imp_add_actuator(imp_model *M) {
    if (M->nacts == M->acap) {
        int nc = M->acap ? 2 * M->acap : 16;
        imp_actuator *a = ld_xrealloc(M->acts, (size_t)nc * sizeof *a, "the actuators");
        if (!a) return NULL;
        M->acts = a, M->acap = nc;
    }
    imp_actuator *a = &M->acts[M->nacts++];
    memset(a, 0, sizeof *a);
    a->gear = 1.0;
    return a;
}

int imp_find_joint(const imp_model *M, const char *name, int *kind) {
    if (kind) *kind = -1;
    for (int i = 0; i < M->nlinks; ++i) {
        const imp_link *L = &M->links[i];
        if (strcmp(L->jname[0] ? L->jname : L->name, name) != 0 || L->jkind == IMP_J_FREE) continue;
        if (!L->merged && (L->jkind == IMP_J_REVOLUTE || L->jkind == IMP_J_PRISMATIC)) return i;
        if (kind) *kind = L->merged ? IMP_J_FIXED : (int)L->jkind;
    }
    return -1;
}

void imp_check_actuators(imp_model *M) {
    static const char *const kinds[] = {"free",        "fixed",     "revolute", "prismatic",
                                        "cylindrical", "universal", "spherical"};
    for (int i = 0; i < M->nacts; ++i) {
        const imp_actuator *a = &M->acts[i];
        int kind, k = imp_find_joint(M, a->joint, &kind);
        if (k >= 0) continue;
        if (kind >= 0)
            imp_warn(M, LD_IMPORT_DYNAMICS, a->line, a->kind,
                     "'%s': its joint '%s' is %s in liedyn: not actuated (only revolute and "
                     "prismatic joints take an actuator)",
                     a->name[0] ? a->name : "(unnamed)", a->joint, kinds[kind]);
        else
            imp_warn(M, LD_IMPORT_DYNAMICS, a->line, a->kind,
                     "'%s': no single hinge or slide named '%s' (a joint combined with others "
                     "into a universal, spherical or cylindrical one cannot be actuated yet): not "
                     "imported",
                     a->name[0] ? a->name : "(unnamed)", a->joint);
    }
}

void imp_free(imp_model *M) {
    free(M->acts);
    M->acts = NULL;
    M->nacts = M->acap = 0;
    free(M->links);
    M->links = NULL;
    M->nlinks = M->cap = 0;
    free(M->given), free(M->excl);
    M->given = NULL, M->excl = NULL;
    M->ngiven = M->givencap = M->nexcl = 0;
    free(M->ground);
    M->ground = NULL;
    M->nground = M->gcap = 0;
    for (int i = 0; i < M->ninc; ++i) free(M->inc[i]);
    free(M->inc);
    M->inc = NULL;
    M->ninc = M->inccap = 0;
    for (int i = 0; i < M->nfiles; ++i) free(M->files[i]);
    free(M->files);
    M->files = NULL;
    M->nfiles = M->fcap = 0;
}

int imp_add_file(imp_model *M, const char *path) {
    for (int i = 0; i < M->nfiles; ++i)
        if (strcmp(M->files[i], path) == 0) return i;
    if (M->nfiles == M->fcap) {
        int cap = M->fcap ? 2 * M->fcap : 16;
        char **f = ld_xrealloc(M->files, (size_t)cap * sizeof *f, "the mesh files");
        if (!f) return -1;
        M->files = f, M->fcap = cap;
    }
    size_t n = strlen(path) + 1;
    char *c = ld_xmalloc(n, "a mesh file's name");
    if (!c) return -1;
    memcpy(c, path, n);
    M->files[M->nfiles] = c;
    return M->nfiles++;
}

/* ------------------------------------------------------------------ geometry */

void imp_quat_rpy(double q[4], double roll, double pitch, double yaw) {
    /* R = Rz(yaw) Ry(pitch) Rx(roll): fixed axes x, y, z (URDF) */
    const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
    double a[3], b[3], c[3], qx[4], qy[4], qz[4], t[4];
    for (int i = 0; i < 3; ++i) a[i] = roll * x[i], b[i] = pitch * y[i], c[i] = yaw * z[i];
    ld_quat_from_rotvec(qx, a);
    ld_quat_from_rotvec(qy, b);
    ld_quat_from_rotvec(qz, c);
    ld_quat_mul(t, qy, qx);
    ld_quat_mul(q, qz, t);
}

void imp_quat_zaxis(double q[4], const double z[3]) {
    /* the half-way quaternion between e_z and z; z = −e_z: half a turn about x */
    double c = z[2], n = sqrt(2.0 * (1.0 + c));
    if (n < 1e-12) {
        q[0] = 0, q[1] = 1, q[2] = 0, q[3] = 0;
        return;
    }
    q[0] = 0.5 * n;
    q[1] = -z[1] / n;
    q[2] = z[0] / n;
    q[3] = 0.0;
    double m = ld_quat_norm(q);
    for (int i = 0; i < 4; ++i) q[i] /= m;
}

void imp_compose(double p[3], double q[4], const double pa[3], const double qa[4],
                 const double pb[3], const double qb[4]) {
    double r[3], t[4];
    ld_quat_rotate(r, qa, pb);
    ld_quat_mul(t, qa, qb);
    double m = ld_quat_norm(t);
    for (int i = 0; i < 3; ++i) p[i] = pa[i] + r[i];
    for (int i = 0; i < 4; ++i) q[i] = t[i] / m;
}

void imp_rotate_tensor(double out[9], const double q[4], const double in[9]) {
    double R[9], T[9];
    ld_quat_to_mat(R, q);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0;
            for (int k = 0; k < 3; ++k) s += R[3 * i + k] * in[3 * k + j];
            T[3 * i + j] = s;
        }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0;
            for (int k = 0; k < 3; ++k) s += T[3 * i + k] * R[3 * j + k];
            out[3 * i + j] = s;
        }
    for (int i = 0; i < 3; ++i) /* exactly symmetric */
        for (int j = i + 1; j < 3; ++j) out[3 * j + i] = out[3 * i + j];
}

/* J about the point c shifted by d = c − c_new: J + m (|d|² I − d dᵀ). */
static void shift_inertia(double J[9], double m, const double d[3]) {
    double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) J[3 * i + j] += m * ((i == j ? dd : 0.0) - d[i] * d[j]);
}

void imp_add_mass(imp_link *L, double m, const double c[3], const double J[9]) {
    if (!(m > 0.0)) return;
    double M = L->mass + m, com[3], A[9], B[9], da[3], db[3];
    for (int i = 0; i < 3; ++i) com[i] = (L->mass * L->com[i] + m * c[i]) / M;
    for (int i = 0; i < 3; ++i) da[i] = L->com[i] - com[i], db[i] = c[i] - com[i];
    memcpy(A, L->inertia, sizeof A);
    memcpy(B, J, sizeof B);
    shift_inertia(A, L->mass, da);
    shift_inertia(B, m, db);
    for (int i = 0; i < 9; ++i) L->inertia[i] = A[i] + B[i];
    memcpy(L->com, com, sizeof com);
    L->mass = M;
}

void imp_perp(double r[3], const double a[3]) {
    int k = 0; /* the axis least aligned with a, made ⊥ a */
    for (int i = 1; i < 3; ++i)
        if (fabs(a[i]) < fabs(a[k])) k = i;
    double e[3] = {0, 0, 0};
    e[k] = 1.0;
    double d = a[k];
    for (int i = 0; i < 3; ++i) r[i] = e[i] - d * a[i];
    imp_normalize(r);
}

int imp_normalize(double v[3]) {
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(n > 1e-300) || !isfinite(n)) return -1;
    for (int i = 0; i < 3; ++i) v[i] /= n;
    return 0;
}

/* ------------------------------------------------------------------ merging and placing */

static const char *const jkind_names[] = {"floating",    "fixed",     "revolute", "prismatic",
                                          "cylindrical", "universal", "spherical"};

/* Move link b's shapes into its parent p (b's frame is (b.pos, b.quat) in p's). */
static void move_shapes(imp_model *M, imp_link *b, imp_link *p) {
    for (int s = 0; s < b->nshapes; ++s) {
        if (p->nshapes == LD_SHAPES_PER_BODY_MAX) {
            p->dropped_shapes++;
            continue;
        }
        imp_shape sh = b->shapes[s];
        imp_compose(sh.pos, sh.quat, b->pos, b->quat, b->shapes[s].pos, b->shapes[s].quat);
        p->shapes[p->nshapes++] = sh;
    }
    p->dropped_shapes += b->dropped_shapes;
    (void)M;
}

/* Is a link's index order parents first? (URDF files list links in any order.) Sort the
 * links so: a depth-first order from the roots, keeping file order among siblings. Cycles
 * were excluded by the readers (one parent per link, and the roots reach every link). */
static int sort_links(imp_model *M) {
    int n = M->nlinks, *order = ld_xmalloc((size_t)(n ? n : 1) * sizeof *order, "the link order");
    int *map = ld_xmalloc((size_t)(n ? n : 1) * sizeof *map, "the link order");
    int *stack = ld_xmalloc((size_t)(n ? n : 1) * sizeof *stack, "the link order");
    imp_link *sorted = ld_xmalloc((size_t)(n ? n : 1) * sizeof *sorted, "the link order");
    if (!order || !map || !stack || !sorted) {
        free(order), free(map), free(stack), free(sorted);
        return LD_ENOMEM;
    }
    int k = 0, top = 0;
    for (int i = n - 1; i >= 0; --i)
        if (M->links[i].parent < 0) stack[top++] = i;
    while (top > 0) { /* O(n²) child search: robot files have at most a few hundred links */
        int i = stack[--top];
        order[k++] = i;
        for (int c = n - 1; c >= 0; --c)
            if (M->links[c].parent == i) stack[top++] = c;
    }
    int rc = LD_OK;
    if (k != n) {
        int bad = 0;
        for (int i = 0; i < n; ++i) map[i] = 0;
        for (int i = 0; i < k; ++i) map[order[i]] = 1;
        while (bad < n && map[bad]) ++bad;
        rc = imp_fail(M, LD_EINVAL, M->links[bad].line, "link",
                      "'%s' is part of a closed chain of parents (a tree is required)",
                      M->links[bad].name);
    } else {
        for (int i = 0; i < n; ++i) map[order[i]] = i;
        for (int i = 0; i < n; ++i) {
            sorted[i] = M->links[order[i]];
            if (sorted[i].parent >= 0) sorted[i].parent = map[sorted[i].parent];
        }
        if (n > 0) memcpy(M->links, sorted, (size_t)n * sizeof *sorted);
    }
    free(order), free(map), free(stack), free(sorted);
    return rc;
}

/* Merge massless links fixed to their parent (parents first: chains collapse). */
static int merge_massless(imp_model *M) {
    for (int i = 0; i < M->nlinks; ++i) {
        imp_link *b = &M->links[i];
        if (b->mass > 0.0) continue;
        char at[300];
        if (b->jkind != IMP_J_FIXED && !(b->parent < 0 && b->jkind == IMP_J_FREE))
            return imp_fail(M, LD_EINVAL, b->jline ? b->jline : b->line, "link",
                            "'%s' has no mass but moves on the %s joint '%s' (%s); a "
                            "liedyn body needs a mass: give the link an inertial element",
                            b->name, jkind_names[b->jkind], b->jname,
                            imp_at(M, b->jline, at, sizeof at));
        b->merged = 1;
        M->rep ? (void)++M->rep->merged : (void)0;
        for (int c = i + 1; c < M->nlinks; ++c) {
            imp_link *ch = &M->links[c];
            if (ch->parent != i) continue;
            double p[3], q[4];
            imp_compose(p, q, b->pos, b->quat, ch->pos, ch->quat);
            memcpy(ch->pos, p, sizeof p), memcpy(ch->quat, q, sizeof q);
            ch->parent = b->parent;
        }
        if (b->parent >= 0) {
            move_shapes(M, b, &M->links[b->parent]);
        } else if (b->nshapes) {
            imp_warn(M, LD_IMPORT_IGNORED, b->line, "link",
                     "'%s' is part of the ground (massless, fixed): its %d shape%s not drawn",
                     b->name, b->nshapes, b->nshapes == 1 ? " is" : "s are");
        }
    }
    return LD_OK;
}

/* World poses at joint coordinates zero, parents first. */
static void place(imp_model *M) {
    for (int i = 0; i < M->nlinks; ++i) {
        imp_link *L = &M->links[i];
        if (L->parent < 0) {
            memcpy(L->wx, L->pos, sizeof L->wx);
            memcpy(L->wq, L->quat, sizeof L->wq);
        } else {
            const imp_link *P = &M->links[L->parent];
            imp_compose(L->wx, L->wq, P->wx, P->wq, L->pos, L->quat);
        }
    }
}

int imp_fix_shape(imp_model *M, const imp_link *L, imp_shape *sh) {
    if (sh->kind == LD_SHAPE_MESH) { /* scale factors: non-zero (negative mirrors) */
        int ok = 1;
        for (int i = 0; i < 3; ++i)
            ok &= isfinite(sh->size[i]) && sh->size[i] != 0.0 && fabs(sh->size[i]) < 1e9;
        if (!ok)
            imp_warn(M, LD_IMPORT_IGNORED, sh->line, "mesh",
                     "'%.200s' of '%s' not drawn: a scale factor is zero or not finite",
                     M->files[sh->file], L->name);
        return ok;
    }
    double s = fmax(sh->size[0], fmax(sh->size[1], sh->size[2]));
    int round = sh->kind != LD_SHAPE_BOX && sh->kind != LD_SHAPE_SPHERE;
    if (!(sh->size[0] > 0) || (sh->kind == LD_SHAPE_BOX && !(sh->size[1] > 0 && sh->size[2] > 0)) ||
        (round && !(sh->size[1] > 0) && sh->kind != LD_SHAPE_CAPSULE) || !(s < 1e9)) {
        if (L->name[0])
            imp_warn(M, LD_IMPORT_IGNORED, sh->line, ld_shape_kind_name(sh->kind),
                     "of '%s' not drawn: its sizes are not positive", L->name);
        else
            imp_warn(M, LD_IMPORT_DYNAMICS, sh->line, ld_shape_kind_name(sh->kind),
                     "of the ground: its sizes are not positive, no contact with it");
        return 0;
    }
    if (sh->kind != LD_SHAPE_BOX) return 1;
    double R[9], size[3];
    ld_quat_to_mat(R, sh->quat);
    int perm = 1;
    for (int i = 0; i < 3; ++i) { /* row i: the box axis along link axis i */
        int k = -1;
        for (int j = 0; j < 3; ++j)
            if (fabs(fabs(R[3 * i + j]) - 1.0) < 1e-9) k = j;
        if (k < 0)
            perm = 0;
        else
            size[i] = sh->size[k];
    }
    if (perm)
        memcpy(sh->size, size, sizeof size);
    else if (L->name[0])
        imp_warn(M, sh->collide ? LD_IMPORT_DYNAMICS : LD_IMPORT_IGNORED, sh->line, "box",
                 "of '%s' is turned against the link's axes: drawn along them%s (liedyn's boxes "
                 "lie along the body axes)",
                 L->name, sh->collide ? ", and no contact with it" : "");
    else /* a ground shape (imp_ground_shapes) */
        imp_warn(M, LD_IMPORT_DYNAMICS, sh->line, "box",
                 "of the ground is turned against the world axes: no contact with it "
                 "(liedyn's ground boxes lie along the world axes)");
    if (!perm) sh->collide = 0;
    sh->quat[0] = 1, sh->quat[1] = sh->quat[2] = sh->quat[3] = 0;
    return 1;
}

int imp_finish(imp_model *M) {
    for (int i = 0; i < M->nlinks; ++i) {
        imp_link *L = &M->links[i];
        int k = 0;
        for (int s = 0; s < L->nshapes; ++s)
            if (imp_fix_shape(M, L, &L->shapes[s])) L->shapes[k++] = L->shapes[s];
        L->nshapes = k;
    }
    int rc = sort_links(M);
    if (!rc) rc = merge_massless(M);
    if (rc) return rc;
    int bodies = 0;
    for (int i = 0; i < M->nlinks; ++i) bodies += !M->links[i].merged;
    if (!bodies) { /* one message, naming a mesh file the robot lacks, if any */
        char also[300] = "";
        for (int w = 0; M->rep && w < M->rep->nwarn; ++w) {
            const ld_import_warning *W = &M->rep->warn[w];
            if (strcmp(W->element, "mesh") ||
                (!strstr(W->msg, "does not exist") && !strstr(W->msg, "is not found")))
                continue;
            const char *tail = strstr(W->msg, "not drawn: ");
            const char *slash = strrchr(W->file, '/');
            if (strcmp(W->file, M->path))
                snprintf(also, sizeof also, "; the mesh of %.60s:%d is missing too: %.200s",
                         slash ? slash + 1 : W->file, W->line, tail ? tail + 11 : W->msg);
            else
                snprintf(also, sizeof also, "; the mesh of line %d is missing too: %.200s", W->line,
                         tail ? tail + 11 : W->msg);
            break;
        }
        return imp_fail(M, LD_EINVAL, M->name_line,
                        M->format == LD_IMPORT_URDF ? "robot" : "mujoco",
                        "no %s has a mass: nothing to simulate (a liedyn body needs a mass: give "
                        "a link an inertial element)%s",
                        M->format == LD_IMPORT_URDF ? "link" : "body", also);
    }
    place(M);
    if (M->opt.contact && (rc = imp_contact_finish(M)) != LD_OK) return rc;
    for (int i = 0; i < M->nlinks; ++i)
        if (M->links[i].dropped_shapes)
            imp_warn(M, LD_IMPORT_IGNORED, M->links[i].line, "geometry",
                     "'%s': %d shape%s beyond the %d a liedyn body draws not drawn",
                     M->links[i].name, M->links[i].dropped_shapes,
                     M->links[i].dropped_shapes == 1 ? "" : "s", LD_SHAPES_PER_BODY_MAX);
    return LD_OK;
}

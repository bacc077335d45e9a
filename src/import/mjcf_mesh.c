/*
 * MJCF mesh geoms (docs/import.md): the <asset><mesh> a geom names, its file found as MuJoCo's
 * compiler finds it (meshdir, else assetdir, relative to the model file's directory; strippath)
 * and its vertices placed as MuJoCo places them. MuJoCo reads a mesh's vertices v, turns them
 * into  v' = scale ⊙ (R(refquat)ᵀ (v − refpos))  and draws v' in the geom's frame (it also
 * moves the mesh to its centre of mass and principal axes, and moves the geom's frame back by
 * as much, so that the drawing does not change). A liedyn mesh shape draws
 * center + R(orientation) (scale ⊙ v): the same when refquat is the identity or the scale is
 * the same on every axis, and so it is written. A body without an <inertial> takes the mass
 * and inertia of its mesh geoms' solids under that map (ld_mesh_mass_props), as MuJoCo's
 * compiler does.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "liedyn/lie.h"
#include "liedyn/liedyn.h"
#include "mjcf.h"

/* The <mesh> of <asset> named name (a mesh without a name is named by its file without
 * directory and extension, as MuJoCo names it), or NULL. */
static const xmlNode *find_mesh(const mj_ctx *C, const char *name) {
    for (const xmlNode *a = C->root->children; a; a = a->next) {
        if (!imp_is(a, "asset")) continue;
        for (const xmlNode *m = a->children; m; m = m->next) {
            if (!imp_is(m, "mesh")) continue;
            char *nm = imp_attr(m, "name"), *file = nm ? NULL : imp_attr(m, "file"), own[256];
            own[0] = '\0';
            if (file) {
                const char *b = strrchr(file, '/');
                snprintf(own, sizeof own, "%s", b ? b + 1 : file);
                char *dot = strrchr(own, '.');
                if (dot) *dot = '\0';
            }
            int hit = strcmp(nm ? nm : own, name) == 0;
            xmlFree(nm), xmlFree(file);
            if (hit) return m;
        }
    }
    return NULL;
}

/* The path of mesh file `file` (absolute into found): the model file's directory, then
 * meshdir (else assetdir; either may be absolute), then the file (absolute: as it is). 1 when
 * it exists, else 0 with the path tried in tried. */
static int mesh_file(const mj_ctx *C, const char *file, char found[PATH_MAX], char *tried,
                     size_t cap) {
    char dir[PATH_MAX], path[3 * PATH_MAX];
    snprintf(dir, sizeof dir, "%s", C->M->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    const char *sub = C->meshdir ? C->meshdir : C->assetdir;
    if (C->strippath && strrchr(file, '/')) file = strrchr(file, '/') + 1;
    if (file[0] == '/')
        snprintf(path, sizeof path, "%s", file);
    else if (sub && sub[0] == '/')
        snprintf(path, sizeof path, "%s/%s", sub, file);
    else if (sub && sub[0])
        snprintf(path, sizeof path, "%s/%s/%s", dir, sub, file);
    else
        snprintf(path, sizeof path, "%s/%s", dir, file);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && realpath(path, found)) return 1;
    snprintf(tried, cap, "%.500s", path);
    return 0;
}

/* Place the shape: geom frame (g->pos, g->quat) ∘ MuJoCo's vertex map of the asset. */
static void place(mj_ctx *C, const mj_geom *g, const imp_link *L, const double scale[3],
                  const double refpos[3], const double refquat[4], imp_shape *sh) {
    double rq[4], rqc[4], d[3], sd[3], off[3];
    memcpy(rq, refquat, sizeof rq);
    if (ld_quat_normalize(rq, refquat) != LD_OK) rq[0] = 1, rq[1] = rq[2] = rq[3] = 0;
    ld_quat_conj(rqc, rq);
    int turned = rq[0] != 1.0, uniform = scale[0] == scale[1] && scale[1] == scale[2];
    if (turned && !uniform)
        imp_warn(C->M, LD_IMPORT_IGNORED, g->line, "geom",
                 "mesh '%s' of body '%s': its scale is applied before its refquat turns it "
                 "(MuJoCo scales after turning; a liedyn mesh shape turns the scaled mesh)",
                 g->mesh, L->name);
    /* v' = scale ⊙ (Rᵀ v) − scale ⊙ (Rᵀ refpos) ≈ Rᵀ (scale ⊙ v) − scale ⊙ (Rᵀ refpos) */
    ld_quat_rotate(d, rqc, refpos);
    for (int i = 0; i < 3; ++i) sd[i] = -scale[i] * d[i];
    ld_quat_rotate(off, g->quat, sd);
    for (int i = 0; i < 3; ++i) sh->pos[i] = g->pos[i] + off[i], sh->size[i] = scale[i];
    ld_quat_mul(sh->quat, g->quat, rqc);
}

/* The scale, refpos and refquat of mesh asset m (its own, else its class's). LD_OK or the
 * error set. */
static int asset_map(mj_ctx *C, const xmlNode *m, double scale[3], double refpos[3],
                     double refquat[4]) {
    xmlNode *cls = C->main;
    char *cl = imp_attr(m, "class");
    int rc = LD_OK;
    if (cl && !(cls = mj_find_class(C, cl)))
        rc = imp_fail(C->M, LD_EINVAL, imp_line(m), "mesh", "no default class named '%s'", cl);
    xmlFree(cl);
    if (!rc) rc = mj_vec(C, m, "mesh", cls, "scale", scale, 3, NULL);
    if (!rc) rc = mj_vec(C, m, "mesh", cls, "refpos", refpos, 3, NULL);
    if (!rc) rc = mj_vec(C, m, "mesh", cls, "refquat", refquat, 4, NULL);
    return rc;
}

/* The solid of mesh file path under MuJoCo's vertex map v' = scale ⊙ (R(refquat)ᵀ (v − refpos)):
 * volume, centre (geom frame) and inertia about it at unit density. LD_OK or the error set. */
static int solid(mj_ctx *C, const mj_geom *g, const imp_link *L, const char *path,
                 const double scale[3], const double refpos[3], const double refquat[4], double *V,
                 double c[3], double J[9]) {
    double rq[4], R[9], A[9], b[3];
    if (ld_quat_normalize(rq, refquat) != LD_OK) rq[0] = 1, rq[1] = rq[2] = rq[3] = 0;
    ld_quat_to_mat(R, rq);
    for (int i = 0; i < 3; ++i) { /* A = diag(scale) Rᵀ, b = −A refpos */
        for (int j = 0; j < 3; ++j) A[3 * i + j] = scale[i] * R[3 * j + i];
        b[i] = -(A[3 * i] * refpos[0] + A[3 * i + 1] * refpos[1] + A[3 * i + 2] * refpos[2]);
    }
    ld_mesh mesh;
    char why[256];
    int rc = ld_mesh_load(path, &mesh, why, sizeof why);
    if (rc == LD_ENOMEM) return rc;
    if (rc)
        return imp_fail(C->M, rc, g->line, "geom",
                        "the mass and inertia of body '%s' come from mesh '%s': cannot read "
                        "'%s': %s",
                        L->name, g->mesh, path, why);
    rc = ld_mesh_mass_props(&mesh, A, b, V, c, J);
    ld_mesh_free(&mesh);
    if (rc)
        return imp_fail(C->M, LD_EINVAL, g->line, "geom",
                        "the mass and inertia of body '%s' come from mesh '%s', which encloses no "
                        "volume (an open or flat mesh): give the body an <inertial>",
                        L->name, g->mesh);
    return LD_OK;
}

int mj_mesh_mass(mj_ctx *C, const mj_geom *g, imp_link *L) {
    imp_model *M = C->M;
    const xmlNode *m = g->mesh[0] ? find_mesh(C, g->mesh) : NULL;
    if (!m)
        return imp_fail(M, LD_EINVAL, g->line, "geom",
                        g->mesh[0] ? "of body '%s': no <asset><mesh> named '%s'"
                                   : "of body '%s': a mesh geom needs mesh=\"...\"%s",
                        L->name, g->mesh);
    char *file = imp_attr(m, "file"), found[PATH_MAX], tried[520];
    int rc = LD_OK;
    if (!file || !file[0])
        rc = imp_fail(M, LD_ENOTSUPPORTED, g->line, "geom",
                      "the mass and inertia of body '%s' would come from mesh '%s', whose "
                      "vertices are given in the model file (not read yet): give the body an "
                      "<inertial>",
                      L->name, g->mesh);
    else if (!mesh_file(C, file, found, tried, sizeof tried))
        rc = imp_fail(M, LD_EINVAL, imp_line(m), "mesh",
                      "'%.200s': the mass and inertia of body '%s' come from it, but the file "
                      "does not exist: %s",
                      file, L->name, tried);
    xmlFree(file);
    double scale[3] = {1, 1, 1}, refpos[3] = {0, 0, 0}, refquat[4] = {1, 0, 0, 0};
    double V = 0, c[3], J[9], Jb[9], cb[3];
    if (!rc) rc = asset_map(C, m, scale, refpos, refquat);
    if (!rc) rc = solid(C, g, L, found, scale, refpos, refquat, &V, c, J);
    if (rc) return rc;
    if (!C->exactmesh && !C->mesh_noted) {
        C->mesh_noted = 1;
        imp_warn(M, LD_IMPORT_DYNAMICS, g->line, "geom",
                 "mesh '%s' of body '%s' (and any other mesh geom): its mass and inertia are "
                 "those of the exact solid, as MuJoCo computes them with compiler "
                 "exactmeshinertia=\"true\"; MuJoCo 2.2's default rule agrees for convex meshes "
                 "only",
                 g->mesh, L->name);
    }
    double mass = g->has_mass ? g->mass : g->density * V;
    if (!(mass > 0)) return LD_OK;
    for (int i = 0; i < 9; ++i) J[i] *= mass / V;
    imp_rotate_tensor(Jb, g->quat, J); /* geom frame → body frame */
    ld_quat_rotate(cb, g->quat, c);
    for (int i = 0; i < 3; ++i) cb[i] += g->pos[i];
    imp_add_mass(L, mass, cb, Jb);
    return LD_OK;
}

int mj_mesh_shape(mj_ctx *C, const mj_geom *g, imp_link *L, imp_shape *sh, int *rc) {
    imp_model *M = C->M;
    const xmlNode *m = g->mesh[0] ? find_mesh(C, g->mesh) : NULL;
    if (!m) {
        *rc = imp_fail(M, LD_EINVAL, g->line, "geom",
                       g->mesh[0] ? "of body '%s': no <asset><mesh> named '%s'"
                                  : "of body '%s': a mesh geom needs mesh=\"...\"%s",
                       L->name, g->mesh);
        return 0;
    }
    char *file = imp_attr(m, "file"), found[PATH_MAX], tried[520];
    int ok = 0;
    if (!file || !file[0]) {
        imp_warn(M, LD_IMPORT_IGNORED, g->line, "geom",
                 "mesh '%s' of body '%s' not drawn: its vertices are given in the file, not "
                 "read from a mesh file (not read yet)",
                 g->mesh, L->name);
    } else if (!mesh_file(C, file, found, tried, sizeof tried)) {
        imp_warn(M, LD_IMPORT_IGNORED, imp_line(m), "mesh",
                 "'%.200s' of body '%s' not drawn: the file does not exist: %s", file, L->name,
                 tried);
    } else {
        double scale[3] = {1, 1, 1}, refpos[3] = {0, 0, 0}, refquat[4] = {1, 0, 0, 0};
        *rc = asset_map(C, m, scale, refpos, refquat);
        if (!*rc) {
            sh->kind = LD_SHAPE_MESH;
            place(C, g, L, scale, refpos, refquat, sh);
            sh->file = imp_add_file(M, found);
            if (sh->file < 0) *rc = LD_ENOMEM;
        }
        ok = !*rc;
    }
    xmlFree(file);
    return ok;
}

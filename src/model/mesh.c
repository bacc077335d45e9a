/*
 * Triangle meshes from files (model.h: ld_mesh_load), read with the Open Asset Import Library
 * (assimp, its C interface). What the meshes are for: drawing a body (the mesh shape of
 * docs/model-format.md); contact never reads them.
 *
 * Frames. assimp returns a scene of nodes, each with a transform relative to its parent and
 * the meshes it places. The vertices kept are every placed mesh's, moved by its node's
 * transforms composed up to (not including) the root node. The root's transform is where
 * assimp puts its own conversions of a COLLADA file — the rotation from the file's up_axis to
 * y up and the scale of its <unit meter> — and nothing of the file itself. ROS's mesh loader
 * (RViz) draws a COLLADA file the same way: up_axis ignored, unit applied; so the root's scale
 * is kept (the cube root of its determinant) and its rotation dropped. STL and OBJ files have
 * an identity root and no units (MuJoCo reads them as they are, too).
 */
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

#include "../core/strf.h"
#include "../core/oom.h"

/* An affine map: p ↦ A p + t (A row-major). */
typedef struct affine {
    double A[9], t[3];
} affine;

void ld_mesh_free(ld_mesh *m) {
    if (!m) return;
    free(m->verts);
    free(m->tris);
    memset(m, 0, sizeof *m);
}

/* r = a ∘ b (b first). */
static void affine_mul(affine *r, const affine *a, const affine *b) {
    affine o;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j)
            o.A[3 * i + j] = a->A[3 * i] * b->A[j] + a->A[3 * i + 1] * b->A[3 + j] +
                             a->A[3 * i + 2] * b->A[6 + j];
        o.t[i] =
            a->A[3 * i] * b->t[0] + a->A[3 * i + 1] * b->t[1] + a->A[3 * i + 2] * b->t[2] + a->t[i];
    }
    *r = o;
}

static void affine_of(affine *r, const struct aiMatrix4x4 *m) {
    const double A[9] = {m->a1, m->a2, m->a3, m->b1, m->b2, m->b3, m->c1, m->c2, m->c3};
    memcpy(r->A, A, sizeof A);
    r->t[0] = m->a4, r->t[1] = m->b4, r->t[2] = m->c4;
}

static double det3(const double A[9]) {
    return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
           A[2] * (A[3] * A[7] - A[4] * A[6]);
}

/* The triangles of a mesh (faces of 3 indices; assimp's points and lines left out). */
static long mesh_tris(const struct aiMesh *am) {
    long n = 0;
    for (unsigned f = 0; f < am->mNumFaces; ++f) n += am->mFaces[f].mNumIndices == 3;
    return n;
}

/* Count the vertices and triangles placed under node n (every instance of a mesh counts). */
static void count(const struct aiScene *sc, const struct aiNode *n, long *nv, long *nt) {
    for (unsigned k = 0; k < n->mNumMeshes; ++k) {
        const struct aiMesh *am = sc->mMeshes[n->mMeshes[k]];
        *nv += am->mNumVertices;
        *nt += mesh_tris(am);
    }
    for (unsigned c = 0; c < n->mNumChildren; ++c) count(sc, n->mChildren[c], nv, nt);
}

/* Append the meshes under node n, placed by T ∘ (the node's transform unless it is the root). */
static void gather(const struct aiScene *sc, const struct aiNode *n, const affine *T, int root,
                   ld_mesh *out) {
    affine M = *T;
    if (!root) {
        affine N;
        affine_of(&N, &n->mTransformation);
        affine_mul(&M, T, &N);
    }
    int flip = det3(M.A) < 0.0; /* a mirroring transform: keep the triangles outward */
    for (unsigned k = 0; k < n->mNumMeshes; ++k) {
        const struct aiMesh *am = sc->mMeshes[n->mMeshes[k]];
        int base = out->nverts;
        for (unsigned v = 0; v < am->mNumVertices; ++v) {
            const double p[3] = {am->mVertices[v].x, am->mVertices[v].y, am->mVertices[v].z};
            float *q = out->verts + 3 * (size_t)out->nverts++;
            for (int i = 0; i < 3; ++i)
                q[i] = (float)(M.A[3 * i] * p[0] + M.A[3 * i + 1] * p[1] + M.A[3 * i + 2] * p[2] +
                               M.t[i]);
        }
        for (unsigned f = 0; f < am->mNumFaces; ++f) {
            const struct aiFace *fc = &am->mFaces[f];
            if (fc->mNumIndices != 3) continue;
            int *t = out->tris + 3 * (size_t)out->ntris++;
            t[0] = base + (int)fc->mIndices[0];
            t[1] = base + (int)fc->mIndices[flip ? 2 : 1];
            t[2] = base + (int)fc->mIndices[flip ? 1 : 2];
        }
    }
    for (unsigned c = 0; c < n->mNumChildren; ++c) gather(sc, n->mChildren[c], &M, 0, out);
}

/* The bounding box; LD_EINVAL for a vertex that is not finite. */
static int bounds(ld_mesh *m, char *why, size_t cap) {
    for (int i = 0; i < 3; ++i) m->lo[i] = HUGE_VAL, m->hi[i] = -HUGE_VAL;
    for (int v = 0; v < m->nverts; ++v)
        for (int i = 0; i < 3; ++i) {
            double x = m->verts[3 * (size_t)v + (size_t)i];
            if (!isfinite(x)) {
                strf(why, cap, "vertex %d is not finite", v + 1);
                return LD_EINVAL;
            }
            m->lo[i] = fmin(m->lo[i], x), m->hi[i] = fmax(m->hi[i], x);
        }
    return LD_OK;
}

/* The scene's triangles into out. */
static int from_scene(const struct aiScene *sc, ld_mesh *out, char *why, size_t cap) {
    long nv = 0, nt = 0;
    count(sc, sc->mRootNode, &nv, &nt);
    if (nt == 0) {
        strf(why, cap, "the file holds no triangles");
        return LD_EINVAL;
    }
    if (nv > INT_MAX / 3 || nt > INT_MAX / 3) {
        strf(why, cap, "too large: %ld vertices, %ld triangles", nv, nt);
        return LD_EINVAL;
    }
    out->verts = ld_xmalloc(3 * (size_t)nv * sizeof *out->verts, "the mesh's vertices");
    out->tris = ld_xmalloc(3 * (size_t)nt * sizeof *out->tris, "the mesh's triangles");
    if (!out->verts || !out->tris) {
        ld_oom_last(why, cap);
        return LD_ENOMEM;
    }
    affine U;
    affine_of(&U, &sc->mRootNode->mTransformation);
    double unit = cbrt(fabs(det3(U.A)));
    memset(&U, 0, sizeof U);
    for (int i = 0; i < 3; ++i) U.A[4 * i] = unit > 0.0 && isfinite(unit) ? unit : 1.0;
    gather(sc, sc->mRootNode, &U, 1, out);
    return bounds(out, why, cap);
}

int ld_mesh_load(const char *path, ld_mesh *out, char *why, size_t cap) {
    char scratch[8];
    if (!why || !cap) why = scratch, cap = sizeof scratch;
    why[0] = '\0';
    if (!path || !out) {
        strf(why, cap, "no path or no output");
        return LD_EINVAL;
    }
    memset(out, 0, sizeof *out);
    if (strlen(path) >= sizeof out->path) {
        strf(why, cap, "the path is longer than %d bytes", LD_MESH_PATH_MAX - 1);
        return LD_EINVAL;
    }
    struct stat st; /* the system's reason first: assimp's is vaguer */
    int special = stat(path, &st) == 0 && !S_ISREG(st.st_mode); /* a directory, a device */
    FILE *f = special ? NULL : fopen(path, "rb");
    if (!f) {
        strf(why, cap, "%s",
             special           ? "not a regular file"
             : errno == ENOENT ? "the file does not exist"
                               : strerror(errno));
        return LD_EIO;
    }
    fclose(f);
    /* only positions are kept: without normals, texture coordinates and colours, the
     * vertices that differ only in those (an STL's, one per face corner) are joined */
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props) return ld_oom_format_lib(why, cap, "assimp");
    aiSetImportPropertyInteger(props, AI_CONFIG_PP_RVC_FLAGS,
                               aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS |
                                   aiComponent_COLORS | aiComponent_TEXCOORDS |
                                   aiComponent_BONEWEIGHTS | aiComponent_ANIMATIONS |
                                   aiComponent_TEXTURES | aiComponent_LIGHTS | aiComponent_CAMERAS |
                                   aiComponent_MATERIALS);
    const struct aiScene *sc = aiImportFileExWithProperties(
        path,
        aiProcess_RemoveComponent | aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
            aiProcess_ValidateDataStructure,
        NULL, props);
    aiReleasePropertyStore(props);
    if (!sc || !sc->mRootNode) {
        const char *e = aiGetErrorString();
        strf(why, cap, "not a mesh that can be read: %s", e && e[0] ? e : "unknown reason");
        if (sc) aiReleaseImport(sc);
        return LD_EIO;
    }
    int rc = from_scene(sc, out, why, cap);
    aiReleaseImport(sc);
    if (rc != LD_OK) {
        ld_mesh_free(out);
        return rc;
    }
    strf(out->path, sizeof out->path, "%s", path);
    return LD_OK;
}

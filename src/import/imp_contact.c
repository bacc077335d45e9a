/*
 * Contact of an imported model (ld_import_options.contact, docs/import.md "Contact"), once the
 * tree is placed. MuJoCo never tests a static geom (of the world, or of a body welded to it)
 * against another static one, and tests two geoms only when their bitmasks match, (contype_a &
 * conaffinity_b) || (contype_b & conaffinity_a). liedyn's ground shapes do not collide with
 * each other nor with the ground plane, and its colliding shapes meet every other shape. So:
 * the colliding shapes of links welded to the ground become ground shapes (still drawn with
 * their link); a shape whose bitmasks match no other colliding shape collides with nothing; and
 * the pairs that liedyn will test while MuJoCo keeps them apart are counted and reported.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oom.h"
#include "imp.h"
#include "liedyn/lie.h"
#include "liedyn/liedyn.h"

/* Would MuJoCo test a and b (their bitmasks)? */
static int match(int ct_a, int ca_a, int ct_b, int ca_b) {
    return (ct_a & ca_b) != 0 || (ct_b & ca_a) != 0;
}

static int shapes_match(const imp_shape *a, const imp_shape *b) {
    return match(a->contype, a->conaffinity, b->contype, b->conaffinity);
}

/* Append sh to the ground's shapes. LD_OK or LD_ENOMEM. */
static int add_ground(imp_model *M, const imp_shape *sh) {
    if (M->nground == M->gcap) {
        int cap = M->gcap ? 2 * M->gcap : 8;
        imp_shape *a = ld_xrealloc(M->ground, (size_t)cap * sizeof *a, "the ground's shapes");
        if (!a) return LD_ENOMEM;
        M->ground = a, M->gcap = cap;
    }
    M->ground[M->nground++] = *sh;
    return LD_OK;
}

/* Does the rotation q turn the axes onto the axes (a signed permutation)? */
static int along_axes(const double q[4]) {
    double R[9];
    ld_quat_to_mat(R, q);
    for (int i = 0; i < 3; ++i) {
        int ones = 0;
        for (int j = 0; j < 3; ++j) ones += fabs(fabs(R[3 * i + j]) - 1.0) < 1e-9;
        if (ones != 1) return 0;
    }
    return 1;
}

/* The colliding shapes of the links welded to the ground (fixed joints down to a root fixed to
 * it; links sorted parents first) copied to the ground in the world frame; theirs stop
 * colliding. */
static int weld(imp_model *M) {
    for (int i = 0; i < M->nlinks; ++i) {
        imp_link *L = &M->links[i];
        L->welded =
            !L->merged && L->jkind == IMP_J_FIXED && (L->parent < 0 || M->links[L->parent].welded);
        for (int s = 0; L->welded && s < L->nshapes; ++s) {
            imp_shape g = L->shapes[s], *sh = &L->shapes[s];
            if (!sh->collide) continue;
            double off[3];
            ld_quat_rotate(off, L->wq, sh->pos);
            for (int k = 0; k < 3; ++k) g.pos[k] = L->wx[k] + off[k];
            ld_quat_mul(g.quat, L->wq, sh->quat);
            if (g.kind == LD_SHAPE_BOX && !along_axes(g.quat))
                continue; /* a ground box must lie along the world axes: it stays the body's */
            sh->collide = 0;
            if (add_ground(M, &g)) return LD_ENOMEM;
        }
    }
    return LD_OK;
}

/* The ground's shapes that contact takes: valid sizes, boxes along the world axes. */
static void check_ground(imp_model *M) {
    static const imp_link world; /* no name: the ground's messages */
    int k = 0;
    for (int s = 0; s < M->nground; ++s)
        if (imp_fix_shape(M, &world, &M->ground[s]) && M->ground[s].collide)
            M->ground[k++] = M->ground[s];
    M->nground = k;
}

/* Can sh (of link li, or of the ground: li < 0) meet another colliding shape or the plane? */
static int partner(const imp_model *M, const imp_shape *sh, int li) {
    if (li >= 0 && M->plane_on &&
        match(sh->contype, sh->conaffinity, M->plane_contype, M->plane_conaffinity))
        return 1;
    for (int g = 0; li >= 0 && g < M->nground; ++g)
        if (shapes_match(sh, &M->ground[g])) return 1;
    for (int j = 0; j < M->nlinks; ++j)
        for (int s = 0; j != li && !M->links[j].merged && s < M->links[j].nshapes; ++s)
            if (M->links[j].shapes[s].collide && shapes_match(sh, &M->links[j].shapes[s])) return 1;
    return 0;
}

/* The pairs liedyn tests that MuJoCo's bitmasks keep apart: shapes of two links, a shape and a
 * ground shape or the plane. Their count, and the first one's line in *line. */
static int kept_apart(const imp_model *M, int *line) {
    int n = 0;
    for (int i = 0; i < M->nlinks; ++i)
        for (int s = 0; !M->links[i].merged && s < M->links[i].nshapes; ++s) {
            const imp_shape *a = &M->links[i].shapes[s];
            if (!a->collide) continue;
            int here = 0;
            if (M->plane_on &&
                !match(a->contype, a->conaffinity, M->plane_contype, M->plane_conaffinity))
                ++here;
            for (int g = 0; g < M->nground; ++g) here += !shapes_match(a, &M->ground[g]);
            for (int j = i + 1; j < M->nlinks; ++j)
                for (int t = 0; !M->links[j].merged && t < M->links[j].nshapes; ++t)
                    here +=
                        M->links[j].shapes[t].collide && !shapes_match(a, &M->links[j].shapes[t]);
            if (here && !n) *line = a->line;
            n += here;
        }
    return n;
}

int imp_contact_finish(imp_model *M) {
    if (weld(M)) return LD_ENOMEM;
    check_ground(M);
    /* who has a partner, decided before any shape stops colliding */
    size_t nb = (size_t)M->nlinks * LD_SHAPES_PER_BODY_MAX + (size_t)M->nground;
    unsigned char *alone = ld_xcalloc(nb ? nb : 1, 1, "the colliding shapes' partners");
    if (!alone) return LD_ENOMEM;
    for (int i = 0; i < M->nlinks; ++i)
        for (int s = 0; !M->links[i].merged && s < M->links[i].nshapes; ++s) {
            const imp_shape *sh = &M->links[i].shapes[s];
            alone[(size_t)i * LD_SHAPES_PER_BODY_MAX + (size_t)s] =
                sh->collide && !partner(M, sh, i);
        }
    unsigned char *galone = alone + (size_t)M->nlinks * LD_SHAPES_PER_BODY_MAX;
    for (int g = 0; g < M->nground; ++g) galone[g] = !partner(M, &M->ground[g], -1);
    int lonely = 0, lline = 0, k = 0;
    for (int i = 0; i < M->nlinks; ++i)
        for (int s = 0; !M->links[i].merged && s < M->links[i].nshapes; ++s) {
            if (!alone[(size_t)i * LD_SHAPES_PER_BODY_MAX + (size_t)s]) continue;
            M->links[i].shapes[s].collide = 0;
            if (!lonely++) lline = M->links[i].shapes[s].line;
        }
    for (int g = 0; g < M->nground; ++g)
        if (!galone[g])
            M->ground[k++] = M->ground[g];
        else if (!lonely++)
            lline = M->ground[g].line;
    M->nground = k;
    free(alone);
    int moving = 0; /* colliding shapes that move */
    for (int i = 0; i < M->nlinks; ++i)
        for (int s = 0; !M->links[i].merged && s < M->links[i].nshapes; ++s)
            moving += M->links[i].shapes[s].collide;
    if (lonely && !moving)
        imp_warn(M, LD_IMPORT_IGNORED, lline, "geom",
                 "%d geom(s) of the world or of bodies welded to it, and none that moves: no "
                 "contact (MuJoCo tests no two static geoms)",
                 lonely);
    else if (lonely)
        imp_warn(M, LD_IMPORT_IGNORED, lline, "geom",
                 "%d geom(s) whose contype and conaffinity match no other colliding geom's: "
                 "they collide with nothing, as in MuJoCo",
                 lonely);
    int aline = 0, apart = kept_apart(M, &aline);
    if (apart)
        imp_warn(M, LD_IMPORT_DYNAMICS, aline, "geom",
                 "%d pair(s) of geoms that MuJoCo's contype and conaffinity keep apart collide "
                 "here (liedyn has no collision bitmasks)",
                 apart);
    return LD_OK;
}

/*
 * Contact of an imported model (ld_import_options.contact, docs/import.md "Contact"), once the
 * tree is placed. MuJoCo never tests a static geom (of the world, or of a body welded to it)
 * against another static one, and tests two geoms only when their bitmasks match, (contype_a &
 * conaffinity_b) || (contype_b & conaffinity_a). liedyn's ground shapes do not collide with
 * each other nor with the ground plane, and its colliding shapes meet every other shape. So:
 * the colliding shapes of links welded to the ground become ground shapes that are not drawn
 * (their link draws them, as before); MuJoCo's parent–child filter (on its bodies welded together:
 * through liedyn's auxiliary and welded links too) and the file's <contact><exclude> become
 * contact_exclude pairs; a shape whose bitmasks match no other testable shape collides with
 * nothing; and the pairs that liedyn will test while MuJoCo's bitmasks keep them apart are counted
 * and reported.
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
 * it; links sorted parents first) copied to the ground in the world frame, not drawn there
 * (the link draws them); theirs stop colliding. */
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
            g.hidden = 1; /* drawn with its link, not a second time as the ground's */
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

/* MuJoCo's bodies as liedyn links: grp[i] the weld group of link i (a link of a moving joint
 * heads its own; a fixed one joins its parent's; −1 welded to the world), up[i] the group of
 * the MJCF parent of that group's head (−1: the world). An auxiliary link is part of the body
 * it was made for (its child's group); links are sorted parents first. given: the file's
 * exclusions as pairs of links. */
typedef struct welds {
    int *grp, *up, *given;
    int ngiven;
} welds;

static void weld_groups(const imp_model *M, welds *W) {
    int n = M->nlinks, *mj = W->up; /* up serves first as the MJCF body of each link */
    for (int i = 0; i < n; ++i) mj[i] = i;
    for (int j = n - 1; j >= 0; --j) {
        int p = M->links[j].parent;
        if (p >= 0 && M->links[p].auxiliary) mj[p] = mj[j];
    }
    for (int i = 0; i < n; ++i) {
        const imp_link *L = &M->links[i];
        int fixed = L->jkind == IMP_J_FIXED && !L->auxiliary;
        W->grp[i] = !fixed ? i : L->parent < 0 ? -1 : W->grp[L->parent];
    }
    for (int i = 0; i < n; ++i)
        if (M->links[i].auxiliary) W->grp[i] = W->grp[mj[i]];
    for (int i = 0; i < n; ++i) {
        int p = M->links[i].parent;
        while (p >= 0 && M->links[p].auxiliary) p = M->links[p].parent;
        W->up[i] = p < 0 ? -1 : W->grp[p];
    }
    for (int i = 0; i < n; ++i) /* a group's parent is its head's (heads come first) */
        if (W->grp[i] >= 0 && W->grp[i] != i) W->up[i] = W->up[W->grp[i]];
}

/* Are links a and b kept apart: one MuJoCo body, a body and its parent (weld groups), or an
 * exclusion of the file? */
static int kept(const welds *W, int a, int b) {
    for (int k = 0; k < W->ngiven; ++k)
        if ((W->given[2 * k] == a && W->given[2 * k + 1] == b) ||
            (W->given[2 * k] == b && W->given[2 * k + 1] == a))
            return 1;
    int ga = W->grp[a], gb = W->grp[b];
    if (ga < 0 || gb < 0) return 0; /* a static link's shapes are the ground's */
    return ga == gb || W->up[ga] == gb || W->up[gb] == ga;
}

/* Does liedyn test links a and b: two links, not joined by a joint, not kept apart? */
static int testable(const imp_model *M, const welds *W, int a, int b) {
    return a != b && M->links[a].parent != b && M->links[b].parent != a && !kept(W, a, b);
}

/* Can sh (of link li, or of the ground: li < 0) meet another colliding shape or the plane? */
static int partner(const imp_model *M, const welds *W, const imp_shape *sh, int li) {
    if (li >= 0 && M->plane_on &&
        match(sh->contype, sh->conaffinity, M->plane_contype, M->plane_conaffinity))
        return 1;
    for (int g = 0; li >= 0 && g < M->nground; ++g)
        if (shapes_match(sh, &M->ground[g])) return 1;
    for (int j = 0; j < M->nlinks; ++j)
        for (int s = 0; !M->links[j].merged && s < M->links[j].nshapes; ++s) {
            const imp_shape *o = &M->links[j].shapes[s];
            if (o->collide && (li < 0 || testable(M, W, li, j)) && shapes_match(sh, o)) return 1;
        }
    return 0;
}

/* The pairs liedyn tests that MuJoCo's bitmasks keep apart: shapes of two links, a shape and a
 * ground shape or the plane. Their count, and the first one's line in *line. */
static int bitmask_pairs(const imp_model *M, const welds *W, int *line) {
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
                for (int t = 0; !M->links[j].merged && t < M->links[j].nshapes; ++t) {
                    const imp_shape *b = &M->links[j].shapes[t];
                    here += b->collide && testable(M, W, i, j) && !shapes_match(a, b);
                }
            if (here && !n) *line = a->line;
            n += here;
        }
    return n;
}

/* The link of the body named name (a merged link: the one it was merged into), or −1. */
static int link_named(const imp_model *M, const char *name) {
    for (int i = 0; i < M->nlinks; ++i) {
        if (strcmp(M->links[i].name, name)) continue;
        int k = i;
        while (k >= 0 && M->links[k].merged) k = M->links[k].parent;
        return k;
    }
    return -1;
}

/* The file's exclusions as pairs of links into W->given (each reported if a body is unknown). */
static void given_pairs(imp_model *M, welds *W) {
    for (int k = 0; k < M->ngiven; ++k) {
        const struct imp_exclude *x = &M->given[k];
        int a = link_named(M, x->body[0]), b = link_named(M, x->body[1]);
        if (a < 0 || b < 0)
            imp_warn(M, LD_IMPORT_DYNAMICS, x->line, "exclude", "no body named '%s': ignored",
                     a < 0 ? x->body[0] : x->body[1]);
        else
            W->given[2 * W->ngiven] = a, W->given[2 * W->ngiven + 1] = b, ++W->ngiven;
    }
}

/* Does link i have a colliding shape? */
static int collides(const imp_model *M, int i) {
    for (int s = 0; !M->links[i].merged && s < M->links[i].nshapes; ++s)
        if (M->links[i].shapes[s].collide) return 1;
    return 0;
}

/* The pairs of colliding links that liedyn would test but MuJoCo keeps apart into M->excl
 * (contact_exclude). LD_OK or LD_ENOMEM. */
static int exclusions(imp_model *M, const welds *W) {
    int n = 0, cap = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass) {
            M->excl =
                ld_xmalloc(2 * (size_t)(cap ? cap : 1) * sizeof *M->excl, "the contact exclusions");
            if (!M->excl) return LD_ENOMEM;
        }
        n = 0;
        for (int a = 0; a < M->nlinks; ++a)
            for (int b = a + 1; collides(M, a) && b < M->nlinks; ++b) {
                if (!collides(M, b) || M->links[a].parent == b || M->links[b].parent == a ||
                    !kept(W, a, b))
                    continue;
                if (pass) M->excl[2 * n] = a, M->excl[2 * n + 1] = b;
                ++n;
            }
        cap = n;
    }
    M->nexcl = n;
    return LD_OK;
}

/* Which shapes have a partner, decided before any stops colliding: those without stop (their
 * count, the first one's line). LD_OK or LD_ENOMEM. */
static int drop_lonely(imp_model *M, const welds *W, int *lonely, int *lline) {
    size_t nb = (size_t)M->nlinks * LD_SHAPES_PER_BODY_MAX + (size_t)M->nground;
    unsigned char *alone = ld_xcalloc(nb ? nb : 1, 1, "the colliding shapes' partners");
    if (!alone) return LD_ENOMEM;
    unsigned char *galone = alone + (size_t)M->nlinks * LD_SHAPES_PER_BODY_MAX;
    for (int i = 0; i < M->nlinks; ++i)
        for (int s = 0; !M->links[i].merged && s < M->links[i].nshapes; ++s) {
            const imp_shape *sh = &M->links[i].shapes[s];
            alone[(size_t)i * LD_SHAPES_PER_BODY_MAX + (size_t)s] =
                sh->collide && !partner(M, W, sh, i);
        }
    for (int g = 0; g < M->nground; ++g) galone[g] = !partner(M, W, &M->ground[g], -1);
    int k = 0;
    *lonely = *lline = 0;
    for (int i = 0; i < M->nlinks; ++i)
        for (int s = 0; !M->links[i].merged && s < M->links[i].nshapes; ++s) {
            if (!alone[(size_t)i * LD_SHAPES_PER_BODY_MAX + (size_t)s]) continue;
            M->links[i].shapes[s].collide = 0;
            if (!(*lonely)++) *lline = M->links[i].shapes[s].line;
        }
    for (int g = 0; g < M->nground; ++g)
        if (!galone[g])
            M->ground[k++] = M->ground[g];
        else if (!(*lonely)++)
            *lline = M->ground[g].line;
    M->nground = k;
    free(alone);
    return LD_OK;
}

int imp_contact_finish(imp_model *M) {
    if (weld(M)) return LD_ENOMEM;
    check_ground(M);
    size_t n = (size_t)M->nlinks + 1;
    welds W = {ld_xmalloc((4 * n + 2 * (size_t)M->ngiven) * sizeof(int), "the weld groups"), NULL,
               NULL, 0};
    if (!W.grp) return LD_ENOMEM;
    W.up = W.grp + n, W.given = W.up + n;
    weld_groups(M, &W);
    given_pairs(M, &W);
    int lonely, lline, rc = drop_lonely(M, &W, &lonely, &lline);
    if (!rc) rc = exclusions(M, &W);
    int aline = 0, apart = rc ? 0 : bitmask_pairs(M, &W, &aline);
    free(W.grp);
    if (rc) return rc;
    int moving = 0; /* colliding shapes that move */
    for (int i = 0; i < M->nlinks; ++i) moving += collides(M, i);
    if (lonely && !moving)
        imp_warn(M, LD_IMPORT_IGNORED, lline, "geom",
                 "%d geom(s) of the world or of bodies welded to it, and none that moves: no "
                 "contact (MuJoCo tests no two static geoms)",
                 lonely);
    else if (lonely)
        imp_warn(M, LD_IMPORT_IGNORED, lline, "geom",
                 "%d geom(s) whose contype and conaffinity match no other geom they could meet: "
                 "they collide with nothing, as in MuJoCo",
                 lonely);
    if (apart)
        imp_warn(M, LD_IMPORT_DYNAMICS, aline, "geom",
                 "%d pair(s) of geoms that MuJoCo's contype and conaffinity keep apart collide "
                 "here (liedyn has no collision bitmasks)",
                 apart);
    return LD_OK;
}

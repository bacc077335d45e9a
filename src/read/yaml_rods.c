/*
 * The YAML model reader, continued (yaml.c): rods (docs/model-format.md, "Rods"). Each rod's
 * n + 1 node bodies are appended to the model's bodies (ld_rod_place) as soon as the rod is
 * read, so that the joints and loads, read next, can name them ("rod[0]"). The reader checks
 * what it needs to place the nodes (segments, from ≠ to, the normal, the node names);
 * ld_model_validate checks the section data (stiffness, damping, ρA, ρI).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "reader.h"
#include "../core/oom.h"

static const char *const rod_keys[] = {
    "name",  "segments", "from",      "to",       "normal",           "stiffness", "damping",
    "rho_a", "rho_i",    "kirchhoff", "velocity", "angular_velocity", "collide",   NULL};
static const char *const bools[] = {"false", "true", NULL};

/* More segments than this are refused (the nodes are bodies: memory grows with n). */
#define ROD_MAX_SEGMENTS 1000000

/* Line of key in map (the map's line when the key is absent). */
static int key_line(reader *r, const yaml_node_t *map, const char *key) {
    field f;
    (void)ly_lookup(r, map, key, 0, &f);
    return f.line;
}

/* segments: an integer in [1, ROD_MAX_SEGMENTS]. */
static int get_segments(reader *r, const yaml_node_t *n, int *out) {
    int rc = ly_get_int(r, n, "segments", 1, out);
    if (rc || (*out >= 1 && *out <= ROD_MAX_SEGMENTS)) return rc;
    size_t mark = ly_push_key(r, "segments");
    if (*out < 1)
        rc = ly_fail(r, key_line(r, n, "segments"), "must be at least 1, found %d", *out);
    else
        rc = ly_fail(r, key_line(r, n, "segments"), "must be at most %d, found %d",
                     ROD_MAX_SEGMENTS, *out);
    ly_pop(r, mark);
    return rc;
}

/* |to − from| > 0 into *length; a given normal not parallel to the centreline. */
static int check_geometry(reader *r, const yaml_node_t *n, const double from[3], const double to[3],
                          const double *normal, double *length) {
    double d[3], e[3], p[3];
    for (int i = 0; i < 3; ++i) d[i] = to[i] - from[i];
    double len = ld_v3_norm(d);
    const char *key = NULL, *why = NULL;
    if (!(len > 0.0) || !isfinite(len)) {
        key = "to";
        why = "must differ from 'from' by a finite distance (the rod's length |to − from|)";
    } else if (normal) {
        for (int i = 0; i < 3; ++i) e[i] = d[i] / len;
        double pn = ld_v3_norm(normal), pe = ld_v3_dot(normal, e);
        for (int i = 0; i < 3; ++i) p[i] = normal[i] - pe * e[i];
        if (!(ld_v3_norm(p) > 1e-9 * pn) || !isfinite(pn)) {
            key = "normal";
            why = pn > 0.0 ? "must not be parallel to the centreline (to − from)"
                           : "must be non-zero (a direction; it is projected ⊥ to − from)";
        }
    }
    if (!key) {
        *length = len;
        return LD_OK;
    }
    size_t mark = ly_push_key(r, key);
    int rc = ly_fail(r, key_line(r, n, key), "%s", why);
    ly_pop(r, mark);
    return rc;
}

/* The node names of the rod fit in LD_NAME_MAX. */
static int check_name_length(reader *r, const yaml_node_t *n, const ld_rod *rod) {
    char last[LD_NAME_MAX + 16];
    if (strf(last, sizeof last, "%s[%d]", rod->name, rod->n) < LD_NAME_MAX) return LD_OK;
    size_t mark = ly_push_key(r, "name");
    int rc = ly_fail(r, key_line(r, n, "name"),
                     "is too long for the node names ('%s' has more than %d characters)", last,
                     LD_NAME_MAX - 1);
    ly_pop(r, mark);
    return rc;
}

/* first[i] of the n items at base (names.h); NULL when out of memory. */
static int *first_dups(const void *base, size_t stride, int n) {
    ld_name_index idx;
    int *first = ld_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *first, "the name index");
    if (!first || ld_names_build(&idx, base, stride, n) != LD_OK) {
        free(first);
        return NULL;
    }
    ld_names_first_dup(&idx, first);
    ld_names_free(&idx);
    return first;
}

/* Failure at the name of rods[i] (item node n). */
LD_PRINTF(4, 5)
static int fail_rod_name(reader *r, const yaml_node_t *n, int i, const char *fmt, ...) {
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    size_t mark = ly_push_index(r, i), km = ly_push_key(r, "name");
    int rc = ly_fail(r, key_line(r, n, "name"), "%s", reason);
    ly_pop(r, km);
    ly_pop(r, mark);
    return rc;
}

/* After all rods are read (their nodes appended after the nb0 bodies of the list): the rod
 * names are unique and no node has the name of a body. Sorted indexes: O(n log n). */
static int check_names(reader *r, const yaml_node_t *list, const ld_model *m, int nb0) {
    int *rfirst = first_dups(m->rods, sizeof *m->rods, m->nrods), rc = LD_OK;
    if (!rfirst) return ly_out_of_memory(r, ly_line_of(list));
    for (int i = 0; !rc && i < m->nrods; ++i)
        if (rfirst[i] >= 0)
            rc = fail_rod_name(r, ly_seq_item(r, list, i), i,
                               "duplicate rod name '%s' (also rods[%d])", m->rods[i].name,
                               rfirst[i]);
    free(rfirst);
    if (rc || nb0 == 0) return rc;
    int *bfirst = first_dups(m->bodies, sizeof *m->bodies, m->nbodies);
    if (!bfirst) return ly_out_of_memory(r, ly_line_of(list));
    for (int i = 0; !rc && i < m->nrods; ++i) {
        const ld_rod *rod = &m->rods[i];
        for (int k = 0; !rc && k <= rod->n; ++k) {
            int b = bfirst[rod->body0 + k];
            if (b >= 0)
                rc = fail_rod_name(r, ly_seq_item(r, list, i), i,
                                   "the node '%s' would have the name of bodies[%d]",
                                   m->bodies[b].name, b);
        }
    }
    free(bfirst);
    return rc;
}

/* The rod's n + 1 nodes appended to the bodies. */
static int add_nodes(reader *r, const yaml_node_t *n, ld_model *m, ld_rod *rod,
                     const double from[3], const double to[3], const double *normal) {
    size_t total = (size_t)m->nbodies + (size_t)rod->n + 1;
    ld_body *nb = ld_xrealloc(m->bodies, total * sizeof *nb, "the rods' bodies");
    if (!nb) return ly_out_of_memory(r, ly_line_of(n));
    m->bodies = nb;
    rod->body0 = m->nbodies;
    if (ld_rod_place(rod, from, to, normal, nb + m->nbodies))
        return ly_fail(r, ly_line_of(n), "cannot place the rod's nodes");
    m->nbodies = (int)total;
    return LD_OK;
}

static int read_rod(reader *r, const yaml_node_t *n, ld_model *m, int index) {
    ld_rod *rod = &m->rods[index];
    double from[3] = {0}, to[3] = {0}, normal[3] = {0};
    int rc, has_normal = 0, kirchhoff = 0;
    if ((rc = ly_expect_map(r, n, ly_line_of(n), "a rod"))) return rc;
    if ((rc = ly_check_keys(r, n, rod_keys, NULL))) return rc;
    if ((rc = ly_get_name(r, n, "name", 1, 0, rod->name))) return rc;
    if ((rc = get_segments(r, n, &rod->n))) return rc;
    if ((rc = ly_get_vec(r, n, "from", 1, from, 3, NULL))) return rc;
    if ((rc = ly_get_vec(r, n, "to", 1, to, 3, NULL))) return rc;
    if ((rc = ly_get_vec(r, n, "normal", 0, normal, 3, &has_normal))) return rc;
    if ((rc = ly_get_vec(r, n, "stiffness", 1, rod->stiffness, 6, NULL))) return rc;
    if ((rc = ly_get_vec(r, n, "damping", 0, rod->damping, 6, NULL))) return rc;
    if ((rc = ly_get_number(r, n, "rho_a", 1, &rod->rho_a))) return rc;
    if ((rc = ly_get_vec(r, n, "rho_i", 1, rod->rho_i, 3, NULL))) return rc;
    if ((rc = ly_get_choice(r, n, "kirchhoff", 0, bools, &kirchhoff))) return rc;
    rod->kirchhoff = kirchhoff;
    int hv = 0, hw = 0;
    if ((rc = ly_get_vec(r, n, "velocity", 0, rod->v0, 3, &hv))) return rc;
    if ((rc = ly_get_vec(r, n, "angular_velocity", 0, rod->w0, 3, &hw))) return rc;
    rod->has_motion = hv || hw;
    if ((rc = ly_read_collide(r, n, &rod->collide))) return rc;
    const double *nrm = has_normal ? normal : NULL;
    if ((rc = check_geometry(r, n, from, to, nrm, &rod->length))) return rc;
    if ((rc = check_name_length(r, n, rod))) return rc;
    rod->line = ly_line_of(n);
    return add_nodes(r, n, m, rod, from, to, nrm);
}

int ly_read_rods(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "rods");
    int rc = ly_lookup(r, root, "rods", 0, &f), n = 0;
    if (!rc && f.val) rc = ly_expect_seq(r, f.val, f.line, "rods");
    if (!rc && f.val && (n = ly_seq_len(f.val)) > 0 &&
        !(m->rods = ld_xcalloc((size_t)n, sizeof *m->rods, "the rods")))
        rc = ly_out_of_memory(r, f.line);
    if (!rc) m->nrods = n;
    const int nb0 = m->nbodies;
    for (int i = 0; !rc && i < n; ++i) {
        size_t im = ly_push_index(r, i);
        rc = read_rod(r, ly_seq_item(r, f.val, i), m, i);
        ly_pop(r, im);
    }
    if (!rc && n > 0) rc = check_names(r, f.val, m, nb0);
    ly_pop(r, mark);
    return rc;
}

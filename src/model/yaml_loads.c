/* The loads of a model file (docs/model-format.md): forces and torques with time functions,
 * and the exact torques of the prescribed-rotation cases. */
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "yaml_impl.h"

/* A body named by key: its index among the bodies read so far. */
static int get_body(reader *r, const yaml_node_t *map, const ld_model *m, int *out) {
    field f;
    char name[LD_NAME_MAX];
    size_t mark = ly_push_key(r, "body");
    int rc = ly_lookup(r, map, "body", 1, &f);
    if (!rc) rc = ly_read_name(r, f.val, f.line, name, 0);
    if (!rc) {
        int k = ly_find_body(r, m, name);
        if (k >= 0)
            *out = k;
        else
            rc = ly_fail(r, f.line, "no body named '%s'", name);
    }
    ly_pop(r, mark);
    return rc;
}

static const char *const load_keys[] = {"body", "type", "frame", "value", "time", "case", NULL};
static const char *const load_types[] = {"force", "torque", "exact_torque", NULL}; /* kind */
static const char *const vector_load_keys[] = {"body", "type", "frame", "value", "time", NULL};
static const char *const exact_load_keys[] = {"body", "type", "case", "frame", NULL};
static const char *const frames[] = {"spatial", "body", NULL}; /* ld_frame_kind */
static const char *const exact_cases[] = {"i", "ii", NULL};    /* ld_exact_case − 1 */

static int read_load(reader *r, const yaml_node_t *n, const ld_model *m, ld_load *l) {
    int rc, type = 0, frame = 0, ecase = 0;
    if ((rc = ly_expect_map(r, n, ly_line_of(n), "a load"))) return rc;
    if ((rc = ly_check_keys(r, n, load_keys, NULL))) return rc;
    if ((rc = ly_get_choice(r, n, "type", 1, load_types, &type))) return rc;
    l->kind = (ld_load_kind)type;
    const int exact = l->kind == LD_LOAD_EXACT_TORQUE;
    char why[64];
    strf(why, sizeof why, "for type '%s'", load_types[type]);
    if ((rc = ly_check_keys(r, n, exact ? exact_load_keys : vector_load_keys, why))) return rc;
    if ((rc = get_body(r, n, m, &l->body))) return rc;
    if (exact) {
        if ((rc = ly_get_choice(r, n, "case", 1, exact_cases, &ecase))) return rc;
        l->exact = ecase == 0 ? LD_EXACT_I : LD_EXACT_II;
        frame = 1; /* body unless given */
        if ((rc = ly_get_choice(r, n, "frame", 0, frames, &frame))) return rc;
        l->frame = frame == 1 ? LD_IN_BODY : LD_IN_SPATIAL;
        return LD_OK;
    }
    if ((rc = ly_get_choice(r, n, "frame", 0, frames, &frame))) return rc;
    l->frame = frame == 1 ? LD_IN_BODY : LD_IN_SPATIAL;
    if ((rc = ly_get_vec(r, n, "value", 1, l->vec, 3, NULL))) return rc;
    return ly_read_time(r, n, &l->fn);
}

/* The `loads:` list: allocated, the count set right away, each item read with its index on
 * the path. */
int ly_read_loads(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "loads");
    int rc = ly_lookup(r, root, "loads", 0, &f), n = 0;
    if (!rc && f.val) rc = ly_expect_seq(r, f.val, f.line, "loads");
    if (!rc && f.val && (n = ly_seq_len(f.val)) > 0 &&
        !(m->loads = calloc((size_t)n, sizeof *m->loads)))
        rc = ly_out_of_memory(r, f.line);
    if (!rc) m->nloads = n;
    for (int i = 0; !rc && i < n; ++i) {
        size_t im = ly_push_index(r, i);
        const yaml_node_t *item = ly_seq_item(r, f.val, i);
        m->loads[i].line = ly_line_of(item);
        rc = read_load(r, item, m, &m->loads[i]);
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

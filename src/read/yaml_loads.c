/* The loads of a model file (docs/model-format.md): forces and torques with time functions,
 * and the exact torques of the prescribed-rotation cases. */
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "reader.h"
#include "../core/oom.h"

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

static const char *const load_keys[] = {"body",  "beam", "type", "frame",
                                        "value", "time", "case", NULL};
static const char *const beam_load_keys[] = {"beam", "type", "frame", "value", "time", NULL};
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

/* A load per unit length on a beam (`beam:` instead of `body:`), spread over its nodes. */
static int read_beam_load(reader *r, const yaml_node_t *n, ld_model *m) {
    int rc, type = 0, frame = 0, bi = -1;
    char name[LD_NAME_MAX];
    field f;
    ld_load l;
    memset(&l, 0, sizeof l);
    if ((rc = ly_check_keys(r, n, beam_load_keys, "for a load on a beam (per unit length)")))
        return rc;
    size_t mark = ly_push_key(r, "beam");
    rc = ly_lookup(r, n, "beam", 1, &f);
    if (!rc) rc = ly_read_name(r, f.val, f.line, name, 0);
    for (int i = 0; !rc && i < m->nbeams; ++i)
        if (!strcmp(m->beams[i].name, name)) bi = i;
    if (!rc && bi < 0) rc = ly_fail(r, f.line, "no beam named '%s'", name);
    ly_pop(r, mark);
    if (rc) return rc;
    if ((rc = ly_get_choice(r, n, "type", 1, load_types, &type))) return rc;
    if (type > 1) {
        size_t mk = ly_push_key(r, "type");
        rc = ly_fail(r, ly_line_of(n), "a beam takes 'force' or 'torque' per length");
        ly_pop(r, mk);
        return rc;
    }
    if ((rc = ly_get_choice(r, n, "frame", 0, frames, &frame))) return rc;
    if ((rc = ly_get_vec(r, n, "value", 1, l.vec, 3, NULL))) return rc;
    if ((rc = ly_read_time(r, n, &l.fn))) return rc;
    rc = ld_model_add_beam_load(m, bi, type == 0 ? LD_LOAD_FORCE : LD_LOAD_TORQUE,
                                frame == 1 ? LD_IN_BODY : LD_IN_SPATIAL, l.vec, &l.fn,
                                ly_line_of(n));
    free(l.fn.tab_t), free(l.fn.tab_f);
    return rc == LD_ENOMEM ? ly_out_of_memory(r, ly_line_of(n)) : rc;
}

/* The `loads:` list, appended item by item (each item read with its index on the path): a
 * load on a body, or a load per length on a beam (one load per free node). */
int ly_read_loads(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "loads");
    int rc = ly_lookup(r, root, "loads", 0, &f), n = 0;
    if (!rc && f.val) rc = ly_expect_seq(r, f.val, f.line, "loads");
    if (!rc && f.val) n = ly_seq_len(f.val);
    for (int i = 0; !rc && i < n; ++i) {
        size_t im = ly_push_index(r, i);
        const yaml_node_t *item = ly_seq_item(r, f.val, i);
        field b;
        rc = ly_expect_map(r, item, ly_line_of(item), "a load");
        if (!rc) rc = ly_lookup(r, item, "beam", 0, &b);
        if (!rc && b.val) {
            rc = read_beam_load(r, item, m);
        } else if (!rc) {
            ld_load *a = ld_xrealloc(m->loads, ((size_t)m->nloads + 1) * sizeof *a, "the loads");
            if (!a) rc = ly_out_of_memory(r, ly_line_of(item));
            if (!rc) {
                m->loads = a;
                memset(&a[m->nloads], 0, sizeof *a);
                a[m->nloads].line = ly_line_of(item);
                rc = read_load(r, item, m, &a[m->nloads]);
                ++m->nloads; /* counted even on failure: its tables are freed with the model */
            }
        }
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

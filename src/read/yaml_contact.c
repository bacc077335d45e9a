/*
 * The top-level `contact_law:` of a YAML model (docs/contact.md): how contacts act, hard
 * (default) or the compliant Hunt–Crossley law with its parameters:
 *   contact_law: {type: hunt_crossley, stiffness: 1e6, exponent: 1.5, slip_velocity: 1e-3}
 * stiffness k > 0 (N/m^p, required with hunt_crossley), exponent p in [1, 3] (default 1.5),
 * slip_velocity > 0 (m/s, default 1e-3). A hard law takes no parameters. And the top-level
 * `contact_exclude:`, pairs of bodies whose shapes never collide:
 *   contact_exclude: [[pelvis, left_thigh], [pelvis, right_thigh]]
 */
#include <math.h>
#include <string.h>

#include "../core/oom.h"

#include "liedyn/liedyn.h"
#include "reader.h"

static const char *const law_keys[] = {"type", "stiffness", "exponent", "slip_velocity", NULL};
static const char *const law_types[] = {"hard", "hunt_crossley", NULL};

/* A parameter out of its range: the failure at the key's line, on the key's path. */
static int bad_key(reader *r, const yaml_node_t *map, const char *key, const char *why, double v) {
    size_t mark = ly_push_key(r, key);
    int rc = ly_fail(r, ly_key_line(r, map, key), "%s, found %g", why, v);
    ly_pop(r, mark);
    return rc;
}

/* The Hunt–Crossley parameters of map into c (defaults set), checked. */
static int read_hunt_crossley(reader *r, const yaml_node_t *map, ld_contact_law *c) {
    int rc = ly_get_number(r, map, "stiffness", 1, &c->stiffness);
    if (!rc) rc = ly_get_number(r, map, "exponent", 0, &c->exponent);
    if (!rc) rc = ly_get_number(r, map, "slip_velocity", 0, &c->slip_velocity);
    if (rc) return rc;
    if (!(c->stiffness > 0.0 && isfinite(c->stiffness)))
        return bad_key(r, map, "stiffness", "the contact stiffness k must be finite and > 0",
                       c->stiffness);
    if (!(c->exponent >= 1.0 && c->exponent <= 3.0))
        return bad_key(r, map, "exponent", "the exponent p must lie in [1, 3] (1.5: Hertz)",
                       c->exponent);
    if (!(c->slip_velocity > 0.0 && isfinite(c->slip_velocity)))
        return bad_key(r, map, "slip_velocity", "the slip velocity must be finite and > 0",
                       c->slip_velocity);
    return LD_OK;
}

/* A hard law with a compliant law's parameter: which one, as a failure. */
static int hard_with_parameter(reader *r, const yaml_node_t *map) {
    for (int i = 1; law_keys[i]; ++i) {
        field f;
        size_t mark = ly_push_key(r, law_keys[i]);
        int rc = ly_lookup(r, map, law_keys[i], 0, &f);
        if (!rc && f.val)
            rc = ly_fail(r, f.line,
                         "belongs to type hunt_crossley; a hard contact law has no "
                         "parameters");
        ly_pop(r, mark);
        if (rc) return rc;
    }
    return LD_OK;
}

int ly_read_contact_law(reader *r, const yaml_node_t *root, ld_model *m) {
    ld_contact_law *c = &m->contact;
    c->kind = LD_CONTACT_HARD;
    c->stiffness = 0.0, c->exponent = 1.5, c->slip_velocity = 1e-3;
    field f;
    size_t mark = ly_push_key(r, "contact_law");
    int rc = ly_lookup(r, root, "contact_law", 0, &f), type = 0;
    if (rc || !f.val) {
        ly_pop(r, mark);
        return rc;
    }
    c->line = f.line;
    if (!(rc = ly_expect_map(r, f.val, f.line, "the contact law (type, stiffness, ...)")))
        rc = ly_check_keys(r, f.val, law_keys, NULL);
    if (!rc) rc = ly_get_choice(r, f.val, "type", 1, law_types, &type);
    if (!rc) {
        c->kind = type == 1 ? LD_CONTACT_HUNT_CROSSLEY : LD_CONTACT_HARD;
        rc = type == 1 ? read_hunt_crossley(r, f.val, c) : hard_with_parameter(r, f.val);
    }
    ly_pop(r, mark);
    return rc;
}

/* Item i of the list n: two names of different bodies read before, into pair[2]. */
static int exclude_pair(reader *r, const yaml_node_t *n, int i, const ld_model *m, int pair[2]) {
    const yaml_node_t *it = ly_seq_item(r, n, i);
    int line = it ? ly_line_of(it) : ly_line_of(n), rc = LD_OK;
    if (!it || it->type != YAML_SEQUENCE_NODE || ly_seq_len(it) != 2)
        return ly_fail(r, line, "expected a pair of body names, e.g. [pelvis, thigh]");
    for (int k = 0; !rc && k < 2; ++k) {
        char name[LD_NAME_MAX];
        const yaml_node_t *b = ly_seq_item(r, it, k);
        rc = ly_read_name(r, b, line, name, 0);
        if (!rc && (pair[k] = ly_find_body(r, m, name)) < 0)
            rc = ly_fail(r, line, "no body named '%s'", name);
    }
    if (!rc && pair[0] == pair[1])
        rc = ly_fail(r, line, "a body with itself: its shapes never collide anyway");
    return rc;
}

int ly_read_contact_exclude(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "contact_exclude");
    int rc = ly_lookup(r, root, "contact_exclude", 0, &f);
    if (!rc && f.val) rc = ly_expect_seq(r, f.val, f.line, "pairs of body names");
    int n = !rc && f.val ? ly_seq_len(f.val) : 0;
    if (!rc && n > 0) {
        m->exclude = ld_xmalloc(2 * (size_t)n * sizeof *m->exclude, "the excluded contact pairs");
        if (!m->exclude) rc = ly_out_of_memory(r, f.line);
    }
    for (int i = 0; !rc && i < n; ++i) {
        size_t im = ly_push_index(r, i);
        rc = exclude_pair(r, f.val, i, m, m->exclude + 2 * i);
        if (!rc) m->nexclude = i + 1;
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

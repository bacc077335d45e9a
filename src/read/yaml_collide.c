/*
 * The `collide:` of a rod or a beam in a YAML model (docs/contact.md, "Rods and beams"): a
 * mapping {radius, restitution, friction, spans} that makes each segment between two
 * consecutive nodes a colliding capsule (spans: true, also with other segments). The sections
 * give no outer radius, so radius is required.
 */
#include <math.h>

#include "liedyn/liedyn.h"
#include "reader.h"

static const char *const collide_keys[] = {"radius", "restitution", "friction", "spans", NULL};
static const char *const bools[] = {"false", "true", NULL};

/* Fails at key of map with why. */
static int fail_key(reader *r, const yaml_node_t *map, const char *key, const char *why) {
    size_t mark = ly_push_key(r, key);
    int rc = ly_fail(r, ly_key_line(r, map, key), "%s", why);
    ly_pop(r, mark);
    return rc;
}

int ly_read_collide(reader *r, const yaml_node_t *item, ld_collide *c) {
    field f;
    c->on = 0;
    size_t mark = ly_push_key(r, "collide");
    int rc = ly_lookup(r, item, "collide", 0, &f);
    if (rc || !f.val) goto done;
    const yaml_node_t *n = f.val;
    if ((rc = ly_expect_map(r, f.val, f.line, "{radius, restitution, friction, spans}"))) goto done;
    if ((rc = ly_check_keys(r, n, collide_keys, NULL))) goto done;
    c->restitution = c->friction = 0.0;
    c->spans = 0;
    if ((rc = ly_get_number(r, n, "radius", 1, &c->radius))) goto done;
    if ((rc = ly_get_number(r, n, "restitution", 0, &c->restitution))) goto done;
    if ((rc = ly_get_number(r, n, "friction", 0, &c->friction))) goto done;
    if ((rc = ly_get_choice(r, n, "spans", 0, bools, &c->spans))) goto done;
    if (!(c->radius > 0.0 && isfinite(c->radius)))
        rc = fail_key(r, n, "radius", "must be > 0 (the segments' capsule radius, m)");
    else if (!(c->restitution >= 0.0 && c->restitution <= 1.0))
        rc = fail_key(r, n, "restitution", "must be in [0, 1]");
    else if (!(c->friction >= 0.0 && isfinite(c->friction)))
        rc = fail_key(r, n, "friction", "must be >= 0");
    else
        c->on = 1;
done:
    ly_pop(r, mark);
    return rc;
}

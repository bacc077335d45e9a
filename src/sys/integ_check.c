/* The integrators' refusals and option checks (integrator.h: ld_integ_options_check,
 * ld_integ_options_caution): what a method cannot treat at all, contact for the smooth
 * methods, parameters out of range. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../elements/kinds.h"
#include "integ_impl.h"
#include "liedyn/liedyn.h"
#include "nodes.h"

/* The descriptor of the options' method (NULL if unknown). */
static const ld_method_impl *method_of(const ld_integ_options *o) {
    return o ? ld_integ__method((int)o->method) : NULL;
}

/* The system has Euler-parameter nodes (the euler formulation). */
static int has_euler_nodes(const ld_system *s) {
    for (int i = 0; i < s->nnodes; ++i) {
        const ld_node_kind_info *d = ld_node_kind_get(s->nodes[i].kind);
        if (d && d->ep) return 1;
    }
    return 0;
}

int ld_integ__unsupported(const ld_system *s, const ld_method_impl *d) {
    return (!d->info.constraints && s->m > 0) || (!d->info.euler && has_euler_nodes(s));
}

/* Does m have joint limits (unilateral constraints, hard whatever the contact law)? */
static int has_limits(const ld_model *m) {
    for (int j = 0; j < m->njoints; ++j)
        if (m->joints[j].has_limits) return 1;
    return 0;
}

/* Does m have a colliding rod or beam? */
static int has_colliding_segments(const ld_model *m) {
    for (int r = 0; r < m->nrods; ++r)
        if (m->rods[r].collide.on) return 1;
    for (int b = 0; b < m->nbeams; ++b)
        if (m->beams[b].collide.on) return 1;
    return 0;
}

/* Does m have a colliding shape, rod or beam? */
static int has_colliding(const ld_model *m) {
    for (int i = 0; i < m->nshapes; ++i)
        if (m->shapes[i].collide) return 1;
    return has_colliding_segments(m);
}

/* Why method info cannot run the contacts of s (NULL: it can). Hard contact and joint limits
 * are unilateral constraints that only moreau treats; compliant contact (contact_law:
 * hunt_crossley) is a force that the methods through the system's callbacks integrate, and
 * moreau, which treats contact as hard, refuses it (docs/contact.md). */
static const char *contact_refusal(const ld_system *s, const ld_method_info *info) {
    if (s->ops.force != ld_elems_force || !ld_model_has_contact(ld_rb(s)->m)) return NULL;
    const ld_model *m = ld_rb(s)->m;
    int compliant = m->contact.kind == LD_CONTACT_HUNT_CROSSLEY;
    if (info->contact)
        return compliant && has_colliding(m)
                   ? "contact_law hunt_crossley makes the contacts forces, and moreau "
                     "treats contact as hard (contact_law: hard; the other integrators "
                     "take hunt_crossley)"
                   : NULL;
    if (!compliant && has_colliding_segments(m))
        return "rods and beams collide hard under moreau only, or under compliant contact "
               "(contact_law: hunt_crossley) with the other methods "
               "(docs/contact.md)";
    if (!compliant)
        return "the model has contact (colliding shapes or joint limits), which only moreau "
               "treats (docs/contact.md)";
    if (has_limits(m))
        return "the model has joint limits, unilateral constraints whatever the contact law, "
               "which only moreau treats (docs/contact.md)";
    if (info->model_only)
        return "compliant contact forces (contact_law: hunt_crossley) are not split: the "
               "splitting methods run the bodies' own data only";
    return NULL;
}

/* The first parameter of the method outside its range: a message (static per thread). */
static const char *param_out_of_range(const ld_integ_options *o, const ld_method_info *d) {
    static _Thread_local char buf[160];
    for (int j = 0; j < d->nparams; ++j) {
        const ld_method_param *p = &d->params[j];
        double v = ld_method_param_value(o, p);
        if (!(v >= p->lo && v <= p->hi)) {
            snprintf(buf, sizeof buf, "%s must lie in %s (%s), found %g", p->key, p->range, d->name,
                     v);
            return buf;
        }
    }
    return NULL;
}

const char *ld_integ_options_caution(const ld_system *s, const ld_integ_options *o) {
    if (!s || !o || s->m == 0 || ld_integ_options_check(s, o)) return NULL;
    const ld_method_impl *d = method_of(o);
    const char *name = d->info.name;
    int undamped = 0;
    if (strcmp(name, "genalpha") == 0) undamped = o->rho_inf >= 1.0 && !o->project;
    if (strcmp(name, "newmark") == 0) undamped = !o->project;
    if (strcmp(name, "newmark-beta") == 0)
        undamped = ld_method_param_value(o, &d->info.params[1]) <= 0.5 && !o->project;
    if (strcmp(name, "hht") == 0 || strcmp(name, "hht-modified") == 0) undamped = o->alpha >= 0.0;
    if (!undamped) return NULL;
    return "this method has no numerical damping here, and on constraints in the index-3 form "
           "the errors of the multipliers do not decay: runs are known to blow up after some "
           "seconds (a pendulum at t = 13.7 s, a four-bar at 1.7 s with h = 1e-3); use "
           "numerical damping (genalpha with rho_inf = 0.9, hht with alpha = -0.05), --project "
           "(genalpha, newmark) or hem5 (docs/constraints.md)";
}

const char *ld_integ_options_check(const ld_system *s, const ld_integ_options *o) {
    if (!o) return "no options";
    const ld_method_impl *d = method_of(o);
    if (!d) return "unknown integrator";
    const char *bad = param_out_of_range(o, &d->info);
    if (bad) return bad;
    if (!(o->newton_atol > 0.0 && isfinite(o->newton_atol) && o->newton_rtol >= 0.0 &&
          isfinite(o->newton_rtol)))
        return "Newton tolerances must be finite, atol > 0 and rtol >= 0";
    if (o->max_iter < 1 || o->max_halvings < 0) return "max_iter must be >= 1, max_halvings >= 0";
    if (o->la != LD_LA_DENSE && o->la != LD_LA_KLU && o->la != LD_LA_AUTO)
        return "unknown linear solver";
    if (o->newton_reuse != LD_REUSE_OFF && o->newton_reuse != LD_REUSE_ON &&
        o->newton_reuse != LD_REUSE_AUTO)
        return "newton_reuse must be LD_REUSE_OFF, LD_REUSE_ON or LD_REUSE_AUTO";
    if (o->adaptive) {
        if (d->info.order_estimate <= 0)
            return "step-size control needs an integrator with an error estimate (tb3, "
                   "tb3-paper, hem2, hem5)";
        if (!(o->error_atol > 0.0 && isfinite(o->error_atol) && o->error_rtol >= 0.0 &&
              isfinite(o->error_rtol)))
            return "error tolerances must be finite, atol > 0 and rtol >= 0";
        if (!(o->fac > 0.0 && o->fac <= 1.0 && o->facmin > 0.0 && o->facmin < 1.0 &&
              o->facmax > 1.0 && isfinite(o->facmax)))
            return "step-ratio factors need 0 < fac <= 1, 0 < facmin < 1 < facmax";
        if (!(o->h_init >= 0.0 && o->h_min > 0.0 && o->h_max >= o->h_min) || isnan(o->h_max))
            return "step bounds need h_init >= 0 and 0 < h_min <= h_max";
        if (o->max_rejects < 1) return "max_rejects must be >= 1";
    }
    if (!s) return NULL;
    if (s->k < 1 || s->m < 0 || !s->ops.mass || !s->ops.force ||
        (s->m > 0 && (!s->ops.phi || !s->ops.phi_q)))
        return "incomplete system (mass, force and, with constraints, phi and phi_q needed)";
    if (ld_integ__unsupported(s, d)) return d->info.refuses;
    const char *why = contact_refusal(s, &d->info);
    if (why) return why;
    return d->refuse ? d->refuse(s) : NULL;
}

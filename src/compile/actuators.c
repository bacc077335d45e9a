/*
 * The actuators of a compiled model (liedyn/actuator.h, docs/actuators.md): their indexes among
 * the elements, the system's control inputs (rb_sys.ctrl) and what each measures and applies
 * at a state (the element's own law, el_actuator.c, in canonical coordinates built from the
 * bodies' states). No allocation.
 */
#include <math.h>
#include <string.h>

#include "../elements/actuator.h"
#include "../elements/kinds.h"
#include "../lie/mat3.h"
#include "liedyn/actuator.h"
#include "liedyn/liedyn.h"

/* The model of s, or NULL when s is not a compiled model. */
static const ld_model *model_of(const ld_system *s) {
    return s && s->user ? ld_rb(s)->m : NULL;
}

int ld_sys_actuator_count(const ld_system *s) {
    const ld_model *m = model_of(s);
    int n = 0;
    for (int i = 0; m && i < m->nelements; ++i) n += ld_act_is(&m->elements[i]);
    return n;
}

int ld_sys_actuator_element(const ld_system *s, int i) {
    const ld_model *m = model_of(s);
    for (int e = 0; m && i >= 0 && e < m->nelements; ++e)
        if (ld_act_is(&m->elements[e]) && i-- == 0) return e;
    return -1;
}

int ld_sys_set_control(const ld_system *s, int i, double u) {
    int e = ld_sys_actuator_element(s, i);
    if (e < 0 || !isfinite(u) || !ld_rb(s)->ctrl) return LD_EINVAL;
    ld_rb(s)->ctrl[e] = u;
    return LD_OK;
}

int ld_sys_get_control(const ld_system *s, int i, double *u) {
    int e = ld_sys_actuator_element(s, i);
    if (e < 0 || !u || !ld_rb(s)->ctrl) return LD_EINVAL;
    *u = ld_rb(s)->ctrl[e];
    return LD_OK;
}

/* Body b's pose and velocity into slot k of the context (the ground: at rest at the origin). */
static int put_body(const ld_system *s, int b, const double *q, const double *v, int k,
                    ld_el_ctx *c) {
    double x[3], qq[4], om[3], xd[3];
    memset(c->R[k], 0, sizeof c->R[k]);
    c->R[k][0] = c->R[k][4] = c->R[k][8] = 1.0;
    memset(c->x[k], 0, sizeof c->x[k]);
    memset(c->vel + 6 * k, 0, 6 * sizeof(double));
    if (b < 0) return LD_OK;
    int rc = ld_model_body_state(s, b, q, v, x, qq, om, xd);
    if (rc) return rc;
    ld_quat_to_mat(c->R[k], qq);
    memcpy(c->x[k], x, sizeof x);
    memcpy(c->vel + 6 * k, om, sizeof om);
    memcpy(c->vel + 6 * k + 3, xd, sizeof xd);
    return LD_OK;
}

int ld_sys_actuator_state(const ld_system *s, int i, double t, const double *q, const double *v,
                          double *theta, double *theta_rate, double *force, double *input) {
    int e = ld_sys_actuator_element(s, i);
    if (e < 0 || !q || !v) return LD_EINVAL;
    const ld_model *m = ld_rb(s)->m;
    ld_el_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.el = &m->elements[e];
    c.t = t;
    c.ctrl = ld_rb(s)->ctrl;
    int rc = put_body(s, c.el->body1, q, v, 0, &c);
    if (!rc) rc = put_body(s, c.el->body2, q, v, 1, &c);
    if (rc) return rc;
    double th, thd, in, f = ld_act_eval_force(&c, &th, &thd, &in);
    if (input) *input = in;
    if (theta) *theta = th;
    if (theta_rate) *theta_rate = thd;
    if (force) *force = f;
    return LD_OK;
}

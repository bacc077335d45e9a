/*
 * Element `actuator` (docs/actuators.md): a motor on a revolute or prismatic joint. With the
 * joint's coordinate φ (the angle about its axis a, or the slide along it) and its rate φ̇ as
 * the element measures them, the actuator force f(t, φ, φ̇) (model.h: input, servo, gear,
 * limits) drives the joint with τ = gear · f, of power τ φ̇.
 *
 * The coordinate is a strain of the relative frame of the two bodies (el_frames.c) with the
 * frames A = G1, B = G2 (each body's rotation since the start, as coords.h counts): for a
 * revolute joint φ = a·θ, θ = log(G1ᵀG2) (= the joint's angle while the joint holds), for a
 * prismatic one φ = a·r, r = G1ᵀ d, d the separation of the joint point's two copies (the
 * joint's slide); a frame-form joint adds its coordinate at the start. The generalized force
 * is F = J_eᵀ σ with σ = −τ a on the θ (or r) rows, and
 *   Se = ∂σ/∂e = −(∂τ/∂φ) a aᵀ,   Sd = ∂σ/∂ė = −(∂τ/∂φ̇) a aᵀ
 * (ld_el_strain_apply: Kq = Jᵀ(Se J + Sd H(·, v)) + σᵀH, Kv = Jᵀ Sd J). A saturated force has
 * zero derivatives. No energy.
 *
 * Parameters (ld_element.par): joint, input, gear, force_limits[2], ctrl_limits[2], kp, kv,
 * value, then the time function: kind, t0, t1, t2, period, n, and n times, n values.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compile/compile.h"
#include "../core/strf.h"
#include "../lie/mat3.h"
#include "actuator.h"
#include "elements.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

#define ACT_PI     3.14159265358979323846
#define ACT_TWO_PI 6.28318530717958647692

void ld_act_view_get(const ld_element *el, ld_act_view *a) {
    const double *p = el->par;
    memset(a, 0, sizeof *a);
    a->joint = (int)p[LD_ACTP_JOINT];
    a->input = (int)p[LD_ACTP_INPUT];
    a->gear = p[LD_ACTP_GEAR];
    a->flo = p[LD_ACTP_FLIM], a->fhi = p[LD_ACTP_FLIM + 1];
    a->clo = p[LD_ACTP_CLIM], a->chi = p[LD_ACTP_CLIM + 1];
    a->kp = p[LD_ACTP_KP], a->kv = p[LD_ACTP_KV], a->value = p[LD_ACTP_VALUE];
    a->from_control = p[LD_ACTP_FROM_CONTROL] != 0.0;
    a->fn.kind = (ld_tfn_kind)(int)p[LD_ACTP_TFN];
    a->fn.t0 = p[LD_ACTP_TFN + 1], a->fn.t1 = p[LD_ACTP_TFN + 2], a->fn.t2 = p[LD_ACTP_TFN + 3];
    a->fn.period = p[LD_ACTP_TFN + 4];
    a->fn.ntab = (int)p[LD_ACTP_TFN + 5];
    if (a->fn.ntab > 0) {
        a->fn.tab_t = (double *)(uintptr_t)(p + LD_ACTP_TAB);
        a->fn.tab_f = a->fn.tab_t + a->fn.ntab;
    }
}

/* x into [lo, hi]; *inside 0 when it was moved. */
static double clampd(double x, double lo, double hi, int *inside) {
    *inside = 1;
    if (x < lo) return *inside = 0, lo;
    if (x > hi) return *inside = 0, hi;
    return x;
}

/* The angle into (−π, π]. */
static double wrap_pi(double x) {
    double y = x - ACT_TWO_PI * floor((x + ACT_PI) / ACT_TWO_PI);
    return y <= -ACT_PI ? y + ACT_TWO_PI : y;
}

double ld_act_input(const ld_act_view *a, double t, double ctrl, double *rate) {
    double c, cd = 0.0, d[3];
    int in;
    if (a->input == LD_ACT_CONTROL || a->from_control)
        c = ctrl;
    else {
        ld_tfn_eval_d(&a->fn, t, d);
        c = a->value * d[0], cd = a->value * d[1];
    }
    c = clampd(c, a->clo, a->chi, &in);
    if (rate) *rate = in ? cd : 0.0;
    return c;
}

double ld_act_force(const ld_act_view *a, int revolute, double t, double ctrl, double phi,
                    double phid, double *dphi, double *dphid) {
    double cd, u, du = 0.0, dud = 0.0;
    int in;
    double c = ld_act_input(a, t, ctrl, &cd);
    switch (a->input) {
    case LD_ACT_POSITION: {
        double err = c / a->gear - phi;
        if (revolute) err = wrap_pi(err);
        u = a->kp * a->gear * err + a->kv * (cd - a->gear * phid);
        du = -a->kp * a->gear, dud = -a->kv * a->gear;
        break;
    }
    case LD_ACT_VELOCITY:
        u = a->kv * (c - a->gear * phid);
        dud = -a->kv * a->gear;
        break;
    default:
        u = c;
    }
    double f = clampd(u, a->flo, a->fhi, &in);
    if (dphi) *dphi = in ? du : 0.0;
    if (dphid) *dphid = in ? dud : 0.0;
    return f;
}

/* The unit axis of joint jd (z when it has none). */
static void joint_axis(const ld_joint *jd, double a[3]) {
    double n = ld_v3_norm(jd->axis);
    a[0] = a[1] = 0.0, a[2] = 1.0;
    if (n > 0.0 && isfinite(n))
        for (int i = 0; i < 3; ++i) a[i] = jd->axis[i] / n;
}

/* The joint's coordinate strain at c: frames f, strain s, its rate ed, the axis, φ and φ̇. */
typedef struct act_state {
    ld_act_view a;
    const ld_joint *jd;
    int slide; /* prismatic */
    ld_el_frames f;
    ld_el_strain s;
    double ed[6], ax[3], phi, phid;
} act_state;

static void act_measure(const ld_el_ctx *c, act_state *st) {
    double R[9], x[3], C1[9], C2[9], p1[3] = {0, 0, 0}, p2[3] = {0, 0, 0}, c0[2];
    ld_act_view_get(c->el, &st->a);
    st->jd = &c->m->joints[st->a.joint];
    st->slide = st->jd->kind == LD_JOINT_PRISMATIC;
    ld_el_pose0(c->m, c->el->body1, R, x);
    ld_m3_transpose(C1, R);
    ld_el_pose0(c->m, c->el->body2, R, x);
    ld_m3_transpose(C2, R);
    if (st->slide) {
        ld_el_body_point(c->m, c->el->body1, st->jd->at, p1);
        ld_el_body_point(c->m, c->el->body2, st->jd->at, p2);
    }
    ld_el_frames_eval(c, C1, C2, p1, p2, st->slide ? 6 : 3, &st->f, &st->s);
    ld_el_strain_rate(&st->s, c->vel, st->ed);
    joint_axis(st->jd, st->ax);
    ld_joint_frame_coords(c->m, st->a.joint, c0);
    st->phi = ld_v3_dot(st->ax, st->slide ? st->f.r : st->f.th) + (st->slide ? c0[1] : c0[0]);
    st->phid = ld_v3_dot(st->ax, st->ed + (st->slide ? 3 : 0));
}

/* The control input of the element at c (0 without a system's inputs). */
static double act_ctrl(const ld_el_ctx *c) {
    return c->ctrl ? c->ctrl[c->el - c->m->elements] : 0.0;
}

double ld_act_eval_force(const ld_el_ctx *c, double *phi, double *phid, double *input) {
    act_state st;
    act_measure(c, &st);
    if (phi) *phi = st.phi;
    if (phid) *phid = st.phid;
    if (input) *input = ld_act_input(&st.a, c->t, act_ctrl(c), NULL);
    return ld_act_force(&st.a, !st.slide, c->t, act_ctrl(c), st.phi, st.phid, NULL, NULL);
}

static int act_eval(const ld_el_ctx *c, unsigned want, ld_el_out *o) {
    if (!(want & (LD_EL_FORCE | LD_EL_GQ | LD_EL_GV))) return LD_OK;
    act_state st;
    double dphi, dphid, sig[6] = {0}, Se[36] = {0}, Sd[36] = {0};
    act_measure(c, &st);
    double f = ld_act_force(&st.a, !st.slide, c->t, act_ctrl(c), st.phi, st.phid, &dphi, &dphid);
    double g = st.a.gear;
    int n = st.slide ? 6 : 3, off = st.slide ? 3 : 0;
    for (int i = 0; i < 3; ++i) {
        sig[off + i] = -g * f * st.ax[i];
        for (int j = 0; j < 3; ++j) {
            Se[n * (off + i) + off + j] = -g * dphi * st.ax[i] * st.ax[j];
            Sd[n * (off + i) + off + j] = -g * dphid * st.ax[i] * st.ax[j];
        }
    }
    if (!isfinite(f)) return LD_RETRY;
    ld_el_strain_apply(&st.s, sig, Se, Sd, c->vel, want, o);
    return LD_OK;
}

/* ---------------------------------------------------------------- checks */

LD_PRINTF(6, 7)
static int bad(char *key, size_t nk, const char *k, char *why, size_t nw, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    snprintf(key, nk, "%s", k);
    vsnprintf(why, nw, fmt, ap);
    va_end(ap);
    return LD_EINVAL;
}

/* The time function's parameters. */
static int check_tfn(const ld_tfn *f, char *key, size_t nk, char *why, size_t nw) {
    if ((unsigned)f->kind > LD_TFN_SPIN_UP)
        return bad(key, nk, "time.shape", why, nw, "unknown time-function kind %d", (int)f->kind);
    if (f->kind == LD_TFN_SINE && !(f->period > 0.0 && isfinite(f->period)))
        return bad(key, nk, "time.period", why, nw, "must be positive and finite, found %g",
                   f->period);
    int np = f->kind == LD_TFN_HAT ? 3 : (f->kind == LD_TFN_RAMP || f->kind == LD_TFN_SPIN_UP);
    np = np == 1 ? 2 : np;
    const double p[3] = {f->t0, f->t1, f->t2};
    static const char *const keys[3] = {"time.t0", "time.t1", "time.t2"};
    for (int k = 0; k < np; ++k) { /* both times to the last digit: they may differ there */
        if (!isfinite(p[k]))
            return bad(key, nk, keys[k], why, nw, "must be finite, found %g", p[k]);
        if (k > 0 && !(p[k] > p[k - 1]))
            return bad(key, nk, keys[k], why, nw,
                       "must be greater than t%d (t%d = %.17g, t%d = %.17g)", k - 1, k - 1,
                       p[k - 1], k, p[k]);
    }
    if (f->kind != LD_TFN_TABLE) return LD_OK;
    if (f->ntab < 2)
        return bad(key, nk, "time.t", why, nw, "a table needs 2 points, found %d", f->ntab);
    for (int k = 0; k < f->ntab; ++k)
        if (!isfinite(f->tab_t[k]) || !isfinite(f->tab_f[k]) ||
            (k > 0 && !(f->tab_t[k] > f->tab_t[k - 1])))
            return bad(key, nk, "time.t", why, nw,
                       "times must be finite and increase strictly, values finite (point %d)", k);
    return LD_OK;
}

/* Limits [lo, hi] with lo < hi (infinite ends: none). */
static int check_limits(double lo, double hi, const char *k, char *key, size_t nk, char *why,
                        size_t nw) {
    if (isnan(lo) || isnan(hi) || !(lo < hi))
        return bad(key, nk, k, why, nw, "must be [lo, hi] with lo < hi (lo = %g)", lo);
    return LD_OK;
}

static int act_check(const ld_model *m, const ld_element *el, char *key, size_t nk, char *why,
                     size_t nw) {
    ld_act_view a;
    if (el->npar < LD_ACTP_TAB || el->npar != LD_ACTP_TAB + 2 * (int)el->par[LD_ACTP_TFN + 5])
        return bad(key, nk, "type", why, nw, "an actuator's parameters are malformed (%d)",
                   el->npar);
    ld_act_view_get(el, &a);
    if (a.joint < 0 || a.joint >= m->njoints || a.joint != el->par[LD_ACTP_JOINT])
        return bad(key, nk, "joint", why, nw, "joint index %g is out of range",
                   el->par[LD_ACTP_JOINT]);
    const ld_joint *jd = &m->joints[a.joint];
    if (jd->kind != LD_JOINT_REVOLUTE && jd->kind != LD_JOINT_PRISMATIC) {
        snprintf(key, nk, "joint");
        snprintf(why, nw, "must be a revolute or prismatic joint, '%s' is %s", jd->name,
                 ld_joint_kind_name(jd->kind));
        return LD_EINVAL;
    }
    if (el->body1 != jd->body1 || el->body2 != jd->body2)
        return bad(key, nk, "body2", why, nw, "must be the joint's bodies (joint %d)", a.joint);
    if (a.input < 0 || a.input >= LD_ACT_INPUT_COUNT || a.input != el->par[LD_ACTP_INPUT])
        return bad(key, nk, "input", why, nw, "unknown input kind %g", el->par[LD_ACTP_INPUT]);
    if (!(a.gear != 0.0 && isfinite(a.gear)))
        return bad(key, nk, "gear", why, nw, "must be finite and non-zero, found %g", a.gear);
    if (!(a.kp >= 0.0 && isfinite(a.kp)))
        return bad(key, nk, "kp", why, nw, "must be finite and >= 0, found %g", a.kp);
    if (!(a.kv >= 0.0 && isfinite(a.kv)))
        return bad(key, nk, "kv", why, nw, "must be finite and >= 0, found %g", a.kv);
    if (!isfinite(a.value))
        return bad(key, nk, "value", why, nw, "must be finite, found %g", a.value);
    int rc = check_limits(a.flo, a.fhi, "force_limits", key, nk, why, nw);
    if (!rc) rc = check_limits(a.clo, a.chi, "ctrl_limits", key, nk, why, nw);
    return rc ? rc : check_tfn(&a.fn, key, nk, why, nw);
}

static const char *const act_keys[] = {"joint", "input",        "reference",   "value",
                                       "time",  "file",         "gear",        "kp",
                                       "kv",    "force_limits", "ctrl_limits", NULL};

const ld_el_type ld_el_actuator = {
    .name = "actuator",
    .summary = "a motor on a revolute or prismatic joint: force, table, servo or control input",
    .bodies = 0,
    .keys = act_keys,
    .read = ly_read_actuator,
    .check = act_check,
    .eval = act_eval,
};

int ld_act_is(const ld_element *el) {
    return el && ld_el_type_get(el->type) == &ld_el_actuator;
}

/* ---------------------------------------------------------------- building */

static const char *const input_names[] = {"force", "position", "velocity", "control"};

const char *ld_actuator_input_name(ld_actuator_input k) {
    return (unsigned)k < LD_ACT_INPUT_COUNT ? input_names[k] : "";
}

int ld_actuator_input_find(const char *name) {
    for (int i = 0; name && i < LD_ACT_INPUT_COUNT; ++i)
        if (strcmp(name, input_names[i]) == 0) return i;
    return -1;
}

void ld_actuator_spec_init(ld_actuator_spec *a) {
    memset(a, 0, sizeof *a);
    a->input = LD_ACT_FORCE;
    a->value = 1.0;
    a->fn.kind = LD_TFN_CONSTANT;
    a->gear = 1.0;
    a->force_limits[0] = a->ctrl_limits[0] = -INFINITY;
    a->force_limits[1] = a->ctrl_limits[1] = INFINITY;
}

int ld_act_pack(int joint, const ld_actuator_spec *s, double **par, int *npar) {
    int nt = s->fn.kind == LD_TFN_TABLE && s->fn.tab_t && s->fn.tab_f ? s->fn.ntab : 0;
    if (nt < 0) nt = 0;
    int n = LD_ACTP_TAB + 2 * nt;
    double *p = ld_xcalloc((size_t)n, sizeof *p, "the actuator's parameters");
    if (!p) return LD_ENOMEM;
    p[LD_ACTP_JOINT] = joint;
    p[LD_ACTP_INPUT] = (double)s->input;
    p[LD_ACTP_GEAR] = s->gear;
    p[LD_ACTP_FLIM] = s->force_limits[0], p[LD_ACTP_FLIM + 1] = s->force_limits[1];
    p[LD_ACTP_CLIM] = s->ctrl_limits[0], p[LD_ACTP_CLIM + 1] = s->ctrl_limits[1];
    p[LD_ACTP_KP] = s->kp, p[LD_ACTP_KV] = s->kv, p[LD_ACTP_VALUE] = s->value;
    p[LD_ACTP_FROM_CONTROL] = s->from_control != 0;
    p[LD_ACTP_TFN] = (double)s->fn.kind;
    p[LD_ACTP_TFN + 1] = s->fn.t0, p[LD_ACTP_TFN + 2] = s->fn.t1, p[LD_ACTP_TFN + 3] = s->fn.t2;
    p[LD_ACTP_TFN + 4] = s->fn.period, p[LD_ACTP_TFN + 5] = nt;
    for (int k = 0; k < nt; ++k)
        p[LD_ACTP_TAB + k] = s->fn.tab_t[k], p[LD_ACTP_TAB + nt + k] = s->fn.tab_f[k];
    *par = p;
    *npar = n;
    return LD_OK;
}

int ld_model_add_actuator(ld_model *m, const char *name, int joint, const ld_actuator_spec *a) {
    if (!m || !a || joint < 0 || joint >= m->njoints || !m->joints || m->nelements < 0 ||
        (name && strlen(name) >= LD_NAME_MAX))
        return LD_EINVAL;
    ld_element *e =
        ld_xrealloc(m->elements, ((size_t)m->nelements + 1) * sizeof *e, "the elements");
    if (!e) return LD_ENOMEM;
    m->elements = e;
    e += m->nelements;
    memset(e, 0, sizeof *e);
    if (name) strcpy(e->name, name);
    e->type = ld_element_type_find(ld_el_actuator.name);
    e->body1 = m->joints[joint].body1;
    e->body2 = m->joints[joint].body2;
    int rc = ld_act_pack(joint, a, &e->par, &e->npar);
    if (rc) return rc;
    m->nelements++;
    return LD_OK;
}

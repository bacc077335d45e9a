/*
 * The model as plain data: formulation names, time functions, defaults, release, and the
 * physical checks of ld_model_validate.
 *
 * Error keys name the item as the YAML format does ("bodies[1].inertia", "integrator.dt",
 * "loads[0].time.t[2]"; docs/model-format.md), so that the reader (yaml.c) can map a key
 * back to the line it came from. Every message is "FILE:LINE: KEY: REASON".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"

#include "../core/strf.h"
#include "../lie/mat3.h"
#include "../elements/elements.h"
#include "../elements/kinds.h"
#include "names.h"
#include "../core/oom.h"

/* ------------------------------------------------------------------ names */

static const char *const form_names[LD_FORM_ALL] = {
    "so3xr3", "se3", "s3xr3", "s3sdr3", "so3xr3-spatial", "s3xr3-spatial", "euler", "tree"};

const char *ld_formulation_name(ld_formulation f) {
    return (unsigned)f < LD_FORM_ALL ? form_names[f] : "?";
}

int ld_formulation_find(const char *name) {
    for (int i = 0; name && i < LD_FORM_ALL; ++i)
        if (strcmp(name, form_names[i]) == 0) return i;
    return -1;
}

/* ------------------------------------------------------------------ time functions */

/* Piecewise linear through the table, constant outside; exact at the knots. */
static double table_eval(const ld_tfn *f, double t) {
    const double *x = f->tab_t, *y = f->tab_f;
    int n = f->ntab;
    if (n < 1 || !x || !y) return NAN;
    if (!(t > x[0])) return y[0]; /* also t = NaN */
    if (t >= x[n - 1]) return y[n - 1];
    int lo = 0, hi = n - 1; /* x[lo] ≤ t < x[hi] */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (x[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return y[lo] + (y[hi] - y[lo]) * ((t - x[lo]) / (x[hi] - x[lo]));
}

/* Slope of the table's piece that starts at or before t; 0 outside [t_0, t_last). */
static double table_slope(const ld_tfn *f, double t) {
    const double *x = f->tab_t, *y = f->tab_f;
    int n = f->ntab;
    if (n < 1 || !x || !y) return NAN;
    if (!(t >= x[0]) || t >= x[n - 1]) return 0.0;
    int lo = 0, hi = n - 1; /* x[lo] ≤ t < x[hi] */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (x[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return (y[hi] - y[lo]) / (x[hi] - x[lo]);
}

static const double two_pi = 6.283185307179586476925286766559;

double ld_tfn_eval(const ld_tfn *f, double t) {
    if (!f) return 1.0;
    switch (f->kind) {
    case LD_TFN_CONSTANT:
        return 1.0;
    case LD_TFN_RAMP:
        if (t <= f->t0) return 0.0;
        if (t >= f->t1) return 1.0;
        return (t - f->t0) / (f->t1 - f->t0);
    case LD_TFN_HAT:
        if (t <= f->t0 || t >= f->t2) return 0.0;
        if (t <= f->t1) return (t - f->t0) / (f->t1 - f->t0);
        return (f->t2 - t) / (f->t2 - f->t1);
    case LD_TFN_TABLE:
        return table_eval(f, t);
    case LD_TFN_LINEAR:
        return t - f->t0;
    case LD_TFN_SINE:
        return sin(two_pi * (t - f->t0) / f->period);
    case LD_TFN_SPIN_UP:
        if (t <= f->t0) return 0.0;
        if (t >= f->t1) return t - 0.5 * (f->t0 + f->t1);
        return 0.5 * (t - f->t0) * (t - f->t0) / (f->t1 - f->t0);
    }
    return NAN;
}

void ld_tfn_eval_d(const ld_tfn *f, double t, double d[3]) {
    d[0] = ld_tfn_eval(f, t);
    d[1] = d[2] = 0.0;
    if (!f) return;
    switch (f->kind) {
    case LD_TFN_CONSTANT:
        break;
    case LD_TFN_RAMP:
        if (t >= f->t0 && t < f->t1) d[1] = 1.0 / (f->t1 - f->t0);
        break;
    case LD_TFN_HAT:
        if (t >= f->t0 && t < f->t1)
            d[1] = 1.0 / (f->t1 - f->t0);
        else if (t >= f->t1 && t < f->t2)
            d[1] = -1.0 / (f->t2 - f->t1);
        break;
    case LD_TFN_TABLE:
        d[1] = table_slope(f, t);
        break;
    case LD_TFN_LINEAR:
        d[1] = 1.0;
        break;
    case LD_TFN_SINE: {
        double w = two_pi / f->period, ph = w * (t - f->t0);
        d[1] = w * cos(ph);
        d[2] = -w * w * sin(ph);
        break;
    }
    case LD_TFN_SPIN_UP:
        if (t >= f->t1)
            d[1] = 1.0;
        else if (t >= f->t0)
            d[1] = (t - f->t0) / (f->t1 - f->t0), d[2] = 1.0 / (f->t1 - f->t0);
        break;
    default:
        d[1] = d[2] = NAN;
    }
}

/* ------------------------------------------------------------------ joint kinds */

static const char *const joint_names[LD_JOINT_KIND_COUNT] = {
    "spherical", "universal", "revolute", "cylindrical", "prismatic", "fixed", "driver"};
static const int joint_rows[LD_JOINT_KIND_COUNT] = {3, 4, 5, 4, 5, 6, 1};

const char *ld_joint_kind_name(ld_joint_kind k) {
    return (unsigned)k < LD_JOINT_KIND_COUNT ? joint_names[k] : "?";
}

int ld_joint_kind_rows(ld_joint_kind k) {
    return (unsigned)k < LD_JOINT_KIND_COUNT ? joint_rows[k] : 0;
}

/* ------------------------------------------------------------------ life cycle */

void ld_model_init(ld_model *m) {
    memset(m, 0, sizeof *m);
    strcpy(m->run.integrator, "genalpha");
    m->run.formulation = LD_FORM_SO3XR3;
    m->run.dt = 1e-3;
    m->run.t_start = 0.0;
    m->run.t_end = 1.0;
    m->run.newton_atol = 1e-10;
    m->run.newton_rtol = 1e-8;
    m->run.max_iter = 20;
    m->run.newton_reuse = LD_REUSE_AUTO;
    m->run.output_every = 0; /* automatic */
    m->run.adaptive = 0;
    m->run.error_atol = 1e-6;
    m->run.error_rtol = 1e-4;
    m->run.fac = 0.8;
    m->run.facmin = 0.2;
    m->run.facmax = 5.0;
    m->assembly.gap_joint = m->assembly.misalign_joint = -1;
}

void ld_model_free(ld_model *m) {
    if (!m) return;
    for (int i = 0; m->loads && i < m->nloads; ++i) {
        free(m->loads[i].fn.tab_t);
        free(m->loads[i].fn.tab_f);
    }
    for (int i = 0; m->joints && i < m->njoints; ++i) {
        free(m->joints[i].fn.tab_t);
        free(m->joints[i].fn.tab_f);
    }
    free(m->bodies);
    free(m->joints);
    free(m->loads);
    free(m->rods);
    ld_el_free_all(m); /* force elements (elements.c) */
    ld_beam_free_all(m);
    free(m->shapes);
    free(m->ground);
    free(m->exclude);
    for (int i = 0; m->meshes && i < m->nmeshes; ++i) ld_mesh_free(&m->meshes[i]);
    free(m->meshes);
    ld_model_init(m);
}

/* ------------------------------------------------------------------ validation */

/* A check in progress: the model, where its first failure goes, and per item the first earlier
 * item of the same name (−1 if none; NULL: compare with every earlier item instead). */
typedef struct checker {
    const ld_model *m;
    ld_model_error *err; /* may be NULL */
    int *body_dup, *joint_dup, *rod_dup;
    int *owner; /* per body: the rod whose nodes include it, −1 (NULL: compare rod ranges) */
} checker;

/* Length of s within cap characters; cap when it is not terminated there. */
static size_t bounded_len(const char *s, size_t cap) {
    const char *z = memchr(s, '\0', cap);
    return z ? (size_t)(z - s) : cap;
}

/* Shortest of %.15g / %.17g that reads back as v. */
static const char *num(char buf[32], double v) {
    strf(buf, 32, "%.15g", v);
    if (strtod(buf, NULL) != v) strf(buf, 32, "%.17g", v);
    return buf;
}

/* Record the failure of key: "FILE:0: KEY: REASON". Returns LD_EINVAL. */
LD_PRINTF(3, 4)
static int invalid(const checker *c, const char *key, const char *fmt, ...) {
    ld_model_error *e = c->err;
    if (!e) return LD_EINVAL;
    size_t n = bounded_len(c->m->source, sizeof c->m->source);
    if (n == sizeof c->m->source) --n;
    if (n == 0)
        strcpy(e->file, "<model>");
    else {
        memcpy(e->file, c->m->source, n);
        e->file[n] = '\0';
    }
    e->line = 0;
    strf(e->key, sizeof e->key, "%s", key);
    char reason[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    strf(e->msg, sizeof e->msg, "%s:%d: %s: %s", e->file, e->line, e->key, reason);
    return LD_EINVAL;
}

/* Every element of v[n] finite? */
static int check_finite(const checker *c, const char *key, const double *v, int n) {
    char b[32];
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i]))
            return invalid(c, key, "element %d is %s; every number must be finite", i + 1,
                           num(b, v[i]));
    return LD_OK;
}

/* A name stored in char[LD_NAME_MAX]: terminated, non-empty unless allow_empty. */
static int check_name(const checker *c, const char *key, const char *name, int allow_empty) {
    size_t n = bounded_len(name, LD_NAME_MAX);
    if (n == LD_NAME_MAX)
        return invalid(c, key, "is not terminated within %d characters", LD_NAME_MAX);
    if (n == 0 && !allow_empty) return invalid(c, key, "must not be empty");
    return LD_OK;
}

/* The first of the items 0 … i − 1 at base (stride bytes apart, names at offset 0, all
 * terminated) named like item i, or −1: the quadratic fallback of the name index. */
static int first_same(const void *base, size_t stride, int i) {
    const char *b = base, *name = b + (size_t)i * stride;
    for (int j = 0; j < i; ++j)
        if (strcmp(b + (size_t)j * stride, name) == 0) return j;
    return -1;
}

/* Eigenvalues of the symmetric part of a 3×3 matrix, ascending (closed form; for messages). */
static void sym_eigenvalues(const double a[9], double ev[3]) {
    double s01 = 0.5 * (a[1] + a[3]), s02 = 0.5 * (a[2] + a[6]), s12 = 0.5 * (a[5] + a[7]);
    double p1 = s01 * s01 + s02 * s02 + s12 * s12;
    double q = (a[0] + a[4] + a[8]) / 3.0;
    double d0 = a[0] - q, d1 = a[4] - q, d2 = a[8] - q;
    double p = sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * p1) / 6.0);
    if (p == 0.0) {
        ev[0] = ev[1] = ev[2] = q;
        return;
    }
    double b0 = d0 / p, b1 = d1 / p, b2 = d2 / p, c01 = s01 / p, c02 = s02 / p, c12 = s12 / p;
    double r = 0.5 * (b0 * (b1 * b2 - c12 * c12) - c01 * (c01 * b2 - c12 * c02) +
                      c02 * (c01 * c12 - b1 * c02));
    r = r < -1.0 ? -1.0 : r > 1.0 ? 1.0 : r;
    double phi = acos(r) / 3.0;
    ev[2] = q + 2.0 * p * cos(phi);
    ev[0] = q + 2.0 * p * cos(phi + 2.0943951023931957);
    ev[1] = 3.0 * q - ev[0] - ev[2];
}

/* Finite, symmetric to 1e-12 relative, positive definite. */
static int check_inertia(const checker *c, const char *key, const double J[9]) {
    char b1[32], b2[32];
    int rc = check_finite(c, key, J, 9);
    if (rc) return rc;
    double big = 0.0;
    for (int i = 0; i < 9; ++i) big = fmax(big, fabs(J[i]));
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (fabs(J[3 * i + j] - J[3 * j + i]) > 1e-12 * big)
                return invalid(
                    c, key, "must be symmetric, but element (%d,%d) is %s and (%d,%d) is %s", i + 1,
                    j + 1, num(b1, J[3 * i + j]), j + 1, i + 1, num(b2, J[3 * j + i]));
    if (!ld_mat_positive_definite(J, 3)) {
        double ev[3];
        sym_eigenvalues(J, ev);
        return invalid(c, key,
                       "must be positive definite, but its principal moments are %.6g, %.6g, %.6g",
                       ev[0], ev[1], ev[2]);
    }
    return LD_OK;
}

/* Finite and of unit length (to 1e-10): the loader normalizes what it reads. */
static int check_quaternion(const checker *c, const char *key, const double q[4]) {
    char b[32];
    int rc = check_finite(c, key, q, 4);
    if (rc) return rc;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n == 0.0) return invalid(c, key, "must be non-zero");
    if (fabs(n - 1.0) > 1e-10)
        return invalid(c, key, "must be a unit quaternion, but its norm is %s", num(b, n));
    return LD_OK;
}

static int check_body(const checker *c, int i) {
    const ld_body *b = &c->m->bodies[i];
    char key[128], v[32];
    int rc;
    strf(key, sizeof key, "bodies[%d].name", i);
    if ((rc = check_name(c, key, b->name, 0))) return rc;
    int j = c->body_dup ? c->body_dup[i] : first_same(c->m->bodies, sizeof *b, i);
    if (j >= 0) return invalid(c, key, "duplicate body name '%s' (also bodies[%d])", b->name, j);
    strf(key, sizeof key, "bodies[%d].mass", i);
    if (!(isfinite(b->mass) && b->mass > 0.0))
        return invalid(c, key, "must be positive and finite, found %s", num(v, b->mass));
    strf(key, sizeof key, "bodies[%d].inertia", i);
    if ((rc = check_inertia(c, key, b->inertia))) return rc;
    strf(key, sizeof key, "bodies[%d].position", i);
    if ((rc = check_finite(c, key, b->x, 3))) return rc;
    strf(key, sizeof key, "bodies[%d].orientation", i);
    if ((rc = check_quaternion(c, key, b->q))) return rc;
    strf(key, sizeof key, "bodies[%d].angular_velocity", i);
    if ((rc = check_finite(c, key, b->omega, 3))) return rc;
    strf(key, sizeof key, "bodies[%d].velocity", i);
    if ((rc = check_finite(c, key, b->v, 3))) return rc;
    strf(key, sizeof key, "bodies[%d].pin", i);
    if (b->pin < LD_PIN_NONE || b->pin > LD_PIN_AXIS)
        return invalid(c, key, "must be none, a point or an axis (found %d)", b->pin);
    double an = sqrt(b->pin_axis[0] * b->pin_axis[0] + b->pin_axis[1] * b->pin_axis[1] +
                     b->pin_axis[2] * b->pin_axis[2]);
    if (b->pin == LD_PIN_AXIS && !(fabs(an - 1.0) <= 1e-10))
        return invalid(c, key, "the axis of a pinned body must be a unit vector, its norm is %s",
                       num(v, an));
    return LD_OK;
}

/* An index into the bodies. */
static int check_body_ref(const checker *c, const char *key, int body) {
    if (body < 0 || body >= c->m->nbodies)
        return invalid(c, key, "body index %d is out of range (the model has %d bodies)", body,
                       c->m->nbodies);
    return LD_OK;
}

/* Parameters of a time function, keys under prefix ("loads[0].time"). */
static int check_tfn(const checker *c, const char *prefix, const ld_tfn *f) {
    char key[128], a[32], b[32];
    const double p[3] = {f->t0, f->t1, f->t2};
    int np = f->kind == LD_TFN_RAMP || f->kind == LD_TFN_SPIN_UP ? 2
             : f->kind == LD_TFN_HAT                             ? 3
                                                                 : 0;
    if ((unsigned)f->kind > LD_TFN_SPIN_UP) {
        strf(key, sizeof key, "%s.shape", prefix);
        return invalid(c, key, "unknown time-function kind %d", (int)f->kind);
    }
    if (f->kind == LD_TFN_LINEAR || f->kind == LD_TFN_SINE) np = 1;
    for (int k = 0; k < np; ++k) {
        strf(key, sizeof key, "%s.t%d", prefix, k);
        if (!isfinite(p[k])) return invalid(c, key, "must be finite, found %s", num(a, p[k]));
        if (k > 0 && !(p[k] > p[k - 1]))
            return invalid(c, key, "must be greater than t%d (t%d = %s, t%d = %s)", k - 1, k - 1,
                           num(a, p[k - 1]), k, num(b, p[k]));
    }
    if (f->kind == LD_TFN_SINE && !(isfinite(f->period) && f->period > 0.0)) {
        strf(key, sizeof key, "%s.period", prefix);
        return invalid(c, key, "must be positive and finite, found %s", num(a, f->period));
    }
    if (f->kind != LD_TFN_TABLE) return LD_OK;
    strf(key, sizeof key, "%s.t", prefix);
    if (f->ntab < 2 || !f->tab_t || !f->tab_f)
        return invalid(c, key, "a table needs at least 2 points, found %d", f->ntab);
    for (int k = 0; k < f->ntab; ++k) {
        strf(key, sizeof key, "%s.t[%d]", prefix, k);
        if (!isfinite(f->tab_t[k]))
            return invalid(c, key, "must be finite, found %s", num(a, f->tab_t[k]));
        if (k > 0 && !(f->tab_t[k] > f->tab_t[k - 1]))
            return invalid(c, key,
                           "times must increase strictly, but t[%d] = %s follows t[%d] = %s", k,
                           num(a, f->tab_t[k]), k - 1, num(b, f->tab_t[k - 1]));
        strf(key, sizeof key, "%s.f[%d]", prefix, k);
        if (!isfinite(f->tab_f[k]))
            return invalid(c, key, "must be finite, found %s", num(a, f->tab_f[k]));
    }
    return LD_OK;
}

/* A finite vector of unit length (to 1e-10): the reader normalizes what it reads. */
static int check_unit(const checker *c, const char *key, const double v[3]) {
    char b[32];
    int rc = check_finite(c, key, v, 3);
    if (rc) return rc;
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(fabs(n - 1.0) <= 1e-10))
        return invalid(c, key, "must be a unit vector, but its norm is %s", num(b, n));
    return LD_OK;
}

/* The point form of a spherical joint to the ground (keys body, point, ground). */
static int check_point_form(const checker *c, int i) {
    const ld_joint *jt = &c->m->joints[i];
    char key[128];
    int rc;
    strf(key, sizeof key, "joints[%d].type", i);
    if (jt->kind != LD_JOINT_SPHERICAL)
        return invalid(c, key, "the point form (body, point, ground) is for spherical joints only");
    strf(key, sizeof key, "joints[%d].body", i);
    if (jt->body1 != LD_GROUND)
        return invalid(c, key, "the point form holds a body to the ground, but body1 is %d",
                       jt->body1);
    if ((rc = check_body_ref(c, key, jt->body2))) return rc;
    strf(key, sizeof key, "joints[%d].point", i);
    if ((rc = check_finite(c, key, jt->p, 3))) return rc;
    strf(key, sizeof key, "joints[%d].ground", i);
    return check_finite(c, key, jt->xg, 3);
}

static int check_driver(const checker *c, int i);

/* The frame form: the frames' origins and rotations, the coordinates. */
static int check_frames(const checker *c, int i) {
    const ld_joint *jt = &c->m->joints[i];
    char key[128];
    int rc;
    strf(key, sizeof key, "joints[%d].frame1.at", i);
    if ((rc = check_finite(c, key, jt->at1, 3))) return rc;
    strf(key, sizeof key, "joints[%d].frame2.at", i);
    if ((rc = check_finite(c, key, jt->at2, 3))) return rc;
    strf(key, sizeof key, "joints[%d].frame1", i);
    if ((rc = check_quaternion(c, key, jt->f1))) return rc;
    strf(key, sizeof key, "joints[%d].frame2", i);
    if ((rc = check_quaternion(c, key, jt->f2))) return rc;
    strf(key, sizeof key, "joints[%d].angle", i);
    if ((rc = check_finite(c, key, jt->coord, 2))) return rc;
    return jt->kind == LD_JOINT_DRIVER ? check_driver(c, i) : LD_OK;
}

/* A joint's limits: lo < hi, finite; an angle within (−π, π). */
static int check_limits(const checker *c, int i) {
    const ld_joint *jt = &c->m->joints[i];
    if (!jt->has_limits) return LD_OK;
    char key[128], a[32], b[32];
    strf(key, sizeof key, "joints[%d].limits", i);
    if (jt->kind != LD_JOINT_REVOLUTE && jt->kind != LD_JOINT_PRISMATIC)
        return invalid(c, key, "only revolute and prismatic joints have limits");
    double lo = jt->limits[0], hi = jt->limits[1];
    if (!(isfinite(lo) && isfinite(hi) && lo < hi))
        return invalid(c, key, "must be [lo, hi] with lo < hi, found [%s, %s]", num(a, lo),
                       num(b, hi));
    if (jt->kind == LD_JOINT_REVOLUTE && !(lo > -3.14159265358979 && hi < 3.14159265358979))
        return invalid(c, key, "an angle's limits must lie within (-pi, pi), found [%s, %s]",
                       num(a, lo), num(b, hi));
    return LD_OK;
}

static int check_joint(const checker *c, int i) {
    const ld_joint *jt = &c->m->joints[i];
    char key[128], a[32];
    int rc;
    strf(key, sizeof key, "joints[%d].name", i);
    if ((rc = check_name(c, key, jt->name, 1))) return rc;
    int dup = c->joint_dup ? c->joint_dup[i] : first_same(c->m->joints, sizeof *jt, i);
    if (jt->name[0] && dup >= 0)
        return invalid(c, key, "duplicate joint name '%s' (also joints[%d])", jt->name, dup);
    strf(key, sizeof key, "joints[%d].type", i);
    if ((unsigned)jt->kind >= LD_JOINT_KIND_COUNT)
        return invalid(c, key, "unknown joint kind %d", (int)jt->kind);
    if (jt->point_form) return check_point_form(c, i);
    if ((rc = check_limits(c, i))) return rc;
    strf(key, sizeof key, "joints[%d].body1", i);
    if (jt->body1 != LD_GROUND && (rc = check_body_ref(c, key, jt->body1))) return rc;
    strf(key, sizeof key, "joints[%d].body2", i);
    if (jt->body2 == LD_GROUND) return invalid(c, key, "must be a body, not the ground");
    if ((rc = check_body_ref(c, key, jt->body2))) return rc;
    if (jt->body1 == jt->body2)
        return invalid(c, key, "must differ from body1 (both are '%s')",
                       c->m->bodies[jt->body2].name);
    if (jt->local) return check_frames(c, i);
    strf(key, sizeof key, "joints[%d].at", i);
    if ((rc = check_finite(c, key, jt->at, 3))) return rc;
    ld_joint_kind k = jt->kind;
    if (k == LD_JOINT_SPHERICAL || k == LD_JOINT_FIXED) return LD_OK;
    strf(key, sizeof key, "joints[%d].axis", i);
    if ((rc = check_unit(c, key, jt->axis))) return rc;
    if (k == LD_JOINT_UNIVERSAL) {
        strf(key, sizeof key, "joints[%d].axis2", i);
        if ((rc = check_unit(c, key, jt->axis2))) return rc;
        double d =
            jt->axis[0] * jt->axis2[0] + jt->axis[1] * jt->axis2[1] + jt->axis[2] * jt->axis2[2];
        if (!(fabs(d) <= 1e-9))
            return invalid(c, key, "must be perpendicular to axis, but axis · axis2 = %s",
                           num(a, d));
    }
    return k == LD_JOINT_DRIVER ? check_driver(c, i) : LD_OK;
}

static int check_driver(const checker *c, int i) {
    const ld_joint *jt = &c->m->joints[i];
    char key[128], a[32];
    strf(key, sizeof key, "joints[%d].motion", i);
    if (jt->motion != LD_MOTION_ROTATION && jt->motion != LD_MOTION_TRANSLATION)
        return invalid(c, key, "unknown motion %d", (int)jt->motion);
    strf(key, sizeof key, "joints[%d].value", i);
    if (!isfinite(jt->value)) return invalid(c, key, "must be finite, found %s", num(a, jt->value));
    strf(key, sizeof key, "joints[%d].time", i);
    return check_tfn(c, key, &jt->fn);
}

static int check_load(const checker *c, int i) {
    const ld_load *l = &c->m->loads[i];
    char key[128];
    int rc;
    strf(key, sizeof key, "loads[%d].type", i);
    if ((unsigned)l->kind > LD_LOAD_EXACT_TORQUE)
        return invalid(c, key, "unknown load kind %d", (int)l->kind);
    strf(key, sizeof key, "loads[%d].body", i);
    if ((rc = check_body_ref(c, key, l->body))) return rc;
    strf(key, sizeof key, "loads[%d].frame", i);
    if (l->frame != LD_IN_SPATIAL && l->frame != LD_IN_BODY)
        return invalid(c, key, "unknown frame %d", (int)l->frame);
    if (l->kind == LD_LOAD_EXACT_TORQUE) {
        strf(key, sizeof key, "loads[%d].case", i);
        if (l->exact != LD_EXACT_I && l->exact != LD_EXACT_II)
            return invalid(c, key, "an exact_torque load needs case i or ii");
        return LD_OK;
    }
    strf(key, sizeof key, "loads[%d].value", i);
    if ((rc = check_finite(c, key, l->vec, 3))) return rc;
    strf(key, sizeof key, "loads[%d].time", i);
    return check_tfn(c, key, &l->fn);
}

/* The rod's own numbers: segments, length, section data (keys rods[i].*). */
static int check_rod_data(const checker *c, int i) {
    const ld_rod *rd = &c->m->rods[i];
    char key[128], b[32];
    int rc;
    strf(key, sizeof key, "rods[%d].name", i);
    if ((rc = check_name(c, key, rd->name, 0))) return rc;
    int dup = c->rod_dup ? c->rod_dup[i] : first_same(c->m->rods, sizeof *rd, i);
    if (dup >= 0) return invalid(c, key, "duplicate rod name '%s' (also rods[%d])", rd->name, dup);
    strf(key, sizeof key, "rods[%d].segments", i);
    if (rd->n < 1) return invalid(c, key, "must be at least 1, found %d", rd->n);
    strf(key, sizeof key, "rods[%d].length", i);
    if (!(isfinite(rd->length) && rd->length > 0.0))
        return invalid(c, key, "must be positive and finite, found %s", num(b, rd->length));
    strf(key, sizeof key, "rods[%d].kirchhoff", i);
    if (rd->kirchhoff != 0 && rd->kirchhoff != 1)
        return invalid(c, key, "must be 0 or 1, found %d", rd->kirchhoff);
    const char *names[2] = {"stiffness", "damping"};
    const double *vals[2] = {rd->stiffness, rd->damping};
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 6; ++j) {
            strf(key, sizeof key, "rods[%d].%s", i, names[k]);
            if (!(isfinite(vals[k][j]) && vals[k][j] >= 0.0))
                return invalid(c, key, "element %d must be finite and >= 0, found %s", j + 1,
                               num(b, vals[k][j]));
        }
    strf(key, sizeof key, "rods[%d].rho_a", i);
    if (!(isfinite(rd->rho_a) && rd->rho_a > 0.0))
        return invalid(c, key, "must be positive and finite, found %s", num(b, rd->rho_a));
    strf(key, sizeof key, "rods[%d].rho_i", i);
    for (int j = 0; j < 3; ++j)
        if (!(isfinite(rd->rho_i[j]) && rd->rho_i[j] > 0.0))
            return invalid(c, key, "element %d must be positive and finite, found %s", j + 1,
                           num(b, rd->rho_i[j]));
    return LD_OK;
}

/* Does a equal b to 1e-12 relative? */
static int close_rel(double a, double b) {
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* An earlier rod (index < i) sharing a node with rod i (whose range is valid), or −1; with the
 * owner map the rod then claims its nodes (the rods are checked in order), otherwise the
 * ranges are compared pairwise. */
static int overlapping_rod(const checker *c, int i) {
    const ld_rod *rd = &c->m->rods[i];
    for (int j = 0; !c->owner && j < i; ++j) {
        const ld_rod *o = &c->m->rods[j];
        if (rd->body0 <= o->body0 + o->n && o->body0 <= rd->body0 + rd->n) return j;
    }
    for (int k = 0; c->owner && k <= rd->n; ++k)
        if (c->owner[rd->body0 + k] >= 0) return c->owner[rd->body0 + k];
    for (int k = 0; c->owner && k <= rd->n; ++k) c->owner[rd->body0 + k] = i;
    return -1;
}

/* The rod's nodes: bodies of the model, no other rod's, carrying the lumped mass. */
static int check_rod_nodes(const checker *c, int i) {
    const ld_rod *rd = &c->m->rods[i];
    char key[128], a[32], b[32];
    strf(key, sizeof key, "rods[%d].body0", i);
    if (rd->body0 < 0 || rd->body0 > c->m->nbodies - 1 - rd->n)
        return invalid(c, key,
                       "the nodes bodies[%d] … bodies[%d] are out of range (the model "
                       "has %d bodies)",
                       rd->body0, rd->body0 + rd->n, c->m->nbodies);
    int j = overlapping_rod(c, i);
    if (j >= 0)
        return invalid(c, key, "the nodes overlap those of rods[%d] ('%s')", j, c->m->rods[j].name);
    double ds = rd->length / rd->n;
    for (int k = 0; k <= rd->n; ++k) {
        const ld_body *nb = &c->m->bodies[rd->body0 + k];
        double w = (k == 0 || k == rd->n) ? 0.5 * ds : ds;
        if (!close_rel(nb->mass, rd->rho_a * w))
            return invalid(c, key, "node body '%s' has mass %s, but rho_a ds%s gives %s", nb->name,
                           num(a, nb->mass), w < ds ? "/2" : "", num(b, rd->rho_a * w));
        for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 3; ++q)
                if (!close_rel(nb->inertia[3 * r + q], r == q ? rd->rho_i[r] * w : 0.0))
                    return invalid(c, key,
                                   "node body '%s' has inertia element (%d,%d) %s, but "
                                   "diag(rho_i) ds%s gives %s",
                                   nb->name, r + 1, q + 1, num(a, nb->inertia[3 * r + q]),
                                   w < ds ? "/2" : "", num(b, r == q ? rd->rho_i[r] * w : 0.0));
    }
    return LD_OK;
}

/* "genalpha, newmark, …": the integrators' names. */
static const char *integrator_list(char *out, size_t cap) {
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < ld_method_count(); ++i) {
        int w =
            strf(out + n, cap - n, "%s%s", i ? ", " : "", ld_integ_method_name((ld_integ_method)i));
        if (w < 0 || (size_t)w >= cap - n) break;
        n += (size_t)w;
    }
    return out;
}

/* The methods' parameters of the integrator block: known keys, in their descriptors' ranges. */
static int check_params(const checker *c) {
    const ld_run_spec *r = &c->m->run;
    char a[32], key[64];
    if (r->nparams < 0 || r->nparams > LD_RUN_MAX_PARAMS)
        return invalid(c, "integrator", "%d method parameters (at most %d)", r->nparams,
                       LD_RUN_MAX_PARAMS);
    for (int i = 0; i < r->nparams; ++i) {
        const ld_run_param *p = &r->params[i];
        size_t n = bounded_len(p->key, sizeof p->key);
        strf(key, sizeof key, "integrator.%.*s", (int)n, p->key);
        const ld_method_param *d = n < sizeof p->key ? ld_method_param_find(p->key, NULL) : NULL;
        if (!d) return invalid(c, key, "no integrator has this parameter");
        if (!(p->value >= d->lo && p->value <= d->hi))
            return invalid(c, key, "must be in %s, found %s", d->range, num(a, p->value));
    }
    return LD_OK;
}

double ld_run_param_get(const ld_run_spec *r, const char *key) {
    const ld_method_param *d = ld_method_param_find(key, NULL);
    if (!r || !d) return NAN;
    for (int i = 0; i < r->nparams && i < LD_RUN_MAX_PARAMS; ++i)
        if (strncmp(r->params[i].key, d->key, sizeof r->params[i].key) == 0)
            return r->params[i].value;
    return d->def;
}

int ld_run_param_set(ld_run_spec *r, const char *key, double value) {
    const ld_method_param *d = ld_method_param_find(key, NULL);
    if (!r || !d || strlen(d->key) >= sizeof r->params[0].key) return LD_EINVAL;
    int i = 0;
    while (i < r->nparams && strcmp(r->params[i].key, d->key) != 0) ++i;
    if (i == LD_RUN_MAX_PARAMS) return LD_ENOMEM;
    if (i == r->nparams) r->nparams++;
    strcpy(r->params[i].key, d->key);
    r->params[i].value = value;
    return LD_OK;
}

/* A positive finite number of the integrator block. */
static int check_positive(const checker *c, const char *key, double v) {
    char b[32];
    if (!(isfinite(v) && v > 0.0))
        return invalid(c, key, "must be positive and finite, found %s", num(b, v));
    return LD_OK;
}

static int check_run(const checker *c) {
    const ld_run_spec *r = &c->m->run;
    char a[32], b[32];
    int rc;
    if ((rc = check_name(c, "integrator.name", r->integrator, 0))) return rc;
    if (ld_integ_method_find(r->integrator) < 0) {
        char list[256];
        return invalid(c, "integrator.name", "unknown integrator '%s' (expected one of: %s)",
                       r->integrator, integrator_list(list, sizeof list));
    }
    if ((unsigned)r->formulation >= LD_FORM_ALL)
        return invalid(c, "integrator.formulation", "unknown formulation %d", (int)r->formulation);
    if ((rc = check_positive(c, "integrator.dt", r->dt))) return rc;
    if (!isfinite(r->t_start))
        return invalid(c, "integrator.t_start", "must be finite, found %s", num(a, r->t_start));
    if (!(isfinite(r->t_end) && r->t_end > r->t_start))
        return invalid(c, "integrator.t_end",
                       "must be finite and greater than t_start (t_start = %s, t_end = %s)",
                       num(a, r->t_start), num(b, r->t_end));
    if ((rc = check_params(c))) return rc;
    if ((rc = check_positive(c, "integrator.newton_atol", r->newton_atol))) return rc;
    if ((rc = check_positive(c, "integrator.newton_rtol", r->newton_rtol))) return rc;
    if (r->max_iter < 1)
        return invalid(c, "integrator.max_iter", "must be at least 1, found %d", r->max_iter);
    if (r->output_every < 0)
        return invalid(c, "integrator.output_every",
                       "must be at least 1 (or 0: chosen by the tool), found %d", r->output_every);
    if ((rc = check_positive(c, "integrator.error_atol", r->error_atol))) return rc;
    if (!(r->error_rtol >= 0.0 && isfinite(r->error_rtol)))
        return invalid(c, "integrator.error_rtol", "must be finite and >= 0, found %s",
                       num(a, r->error_rtol));
    if (!(r->fac > 0.0 && r->fac <= 1.0))
        return invalid(c, "integrator.fac", "must be in (0, 1], found %s", num(a, r->fac));
    if (!(r->facmin > 0.0 && r->facmin < 1.0))
        return invalid(c, "integrator.facmin", "must be in (0, 1), found %s", num(a, r->facmin));
    if (!(r->facmax > 1.0 && isfinite(r->facmax)))
        return invalid(c, "integrator.facmax", "must be finite and > 1, found %s",
                       num(a, r->facmax));
    const ld_output_spec *o = &c->m->output;
    if (!(o->dt >= 0.0 && isfinite(o->dt)))
        return invalid(c, "output.dt", "must be finite and >= 0 (0: a row per step), found %s",
                       num(a, o->dt));
    if (memchr(o->plot, '\0', sizeof o->plot) == NULL)
        return invalid(c, "output.plot", "is not terminated");
    return LD_OK;
}

/* Counts and arrays agree. */
static int check_counts(const checker *c) {
    const ld_model *m = c->m;
    if (m->nbodies < 1 || !m->bodies)
        return invalid(c, "bodies", "at least one body is required, found %d", m->nbodies);
    if (m->njoints < 0 || (m->njoints > 0 && !m->joints))
        return invalid(c, "joints", "count %d does not match the array", m->njoints);
    if (m->nloads < 0 || (m->nloads > 0 && !m->loads))
        return invalid(c, "loads", "count %d does not match the array", m->nloads);
    if (m->nrods < 0 || (m->nrods > 0 && !m->rods))
        return invalid(c, "rods", "count %d does not match the array", m->nrods);
    return LD_OK;
}

/* Are the names of the n items at base (stride bytes apart) all terminated? */
static int names_terminated(const void *base, size_t stride, int n) {
    const char *b = base;
    for (int i = 0; i < n; ++i)
        if (bounded_len(b + (size_t)i * stride, LD_NAME_MAX) == LD_NAME_MAX) return 0;
    return 1;
}

/* first[i]: the first earlier item of item i's name, from a sorted index (O(n log n)); NULL
 * when a name is not terminated or memory is short (the checks then compare pairwise). */
static int *first_dups(const void *base, size_t stride, int n) {
    ld_name_index idx;
    if (n < 2 || !names_terminated(base, stride, n)) return NULL;
    int *first = ld_xmalloc((size_t)n * sizeof *first, "the name index");
    if (!first || ld_names_build(&idx, base, stride, n) != LD_OK) {
        free(first);
        return NULL;
    }
    ld_names_first_dup(&idx, first);
    ld_names_free(&idx);
    return first;
}

/* The checks in their order (validate's body). */
static int check_all(const checker *c) {
    const ld_model *m = c->m;
    int rc;
    for (int i = 0; i < m->nrods; ++i) /* before the bodies: a bad ρA is the rod's fault */
        if ((rc = check_rod_data(c, i)) || (rc = check_rod_nodes(c, i))) return rc;
    for (int i = 0; i < m->nbodies; ++i)
        if ((rc = check_body(c, i))) return rc;
    for (int i = 0; i < m->njoints; ++i)
        if ((rc = check_joint(c, i))) return rc;
    for (int i = 0; i < m->nloads; ++i)
        if ((rc = check_load(c, i))) return rc;
    { /* force elements: the registry's checks (elements.c) */
        char key[96], why[256];
        if (ld_el_check_all(m, key, sizeof key, why, sizeof why)) return invalid(c, key, "%s", why);
    }
    if (m->nbeams < 0 || (m->nbeams > 0 && !m->beams))
        return invalid(c, "beams", "count %d does not match the array", m->nbeams);
    for (int i = 0; i < m->nbeams; ++i) { /* beams (beam.c) */
        char key[64], why[256], path[96];
        if (ld_beam_check(m, i, key, sizeof key, why, sizeof why)) {
            strf(path, sizeof path, "beams[%d].%s", i, key);
            return invalid(c, path, "%s", why);
        }
    }
    if (m->nshapes < 0 || (m->nshapes > 0 && !m->shapes))
        return invalid(c, "shapes", "count %d does not match the array", m->nshapes);
    for (int i = 0; i < m->nshapes; ++i) { /* shapes (shape.c) */
        char key[32], why[256], path[96];
        if (ld_shape_check(&m->shapes[i], m->nbodies, key, sizeof key, why, sizeof why)) {
            strf(path, sizeof path, "shapes[%d].%s", i, key);
            return invalid(c, path, "%s", why);
        }
        const ld_shape *s = &m->shapes[i];
        if (s->hidden) {
            strf(path, sizeof path, "shapes[%d].draw", i);
            return invalid(c, path, "a body's shapes are drawn (only a ground shape may be not)");
        }
        if (s->kind == LD_SHAPE_MESH &&
            (s->mesh < 0 || s->mesh >= m->nmeshes || !m->meshes || !m->meshes[s->mesh].verts)) {
            strf(path, sizeof path, "shapes[%d].mesh", i);
            return invalid(c, path, "mesh index %d outside the model's %d loaded meshes", s->mesh,
                           m->nmeshes);
        }
    }
    if (m->nground < 0 || (m->nground > 0 && !m->ground))
        return invalid(c, "ground_shapes", "count %d does not match the array", m->nground);
    if (m->nexclude < 0 || (m->nexclude > 0 && !m->exclude))
        return invalid(c, "contact_exclude", "count %d does not match the array", m->nexclude);
    for (int i = 0; i < m->nexclude; ++i) {
        int a = m->exclude[2 * i], b = m->exclude[2 * i + 1];
        char path[48];
        strf(path, sizeof path, "contact_exclude[%d]", i);
        if (a < 0 || a >= m->nbodies || b < 0 || b >= m->nbodies || a == b)
            return invalid(c, path, "bodies %d and %d: two different bodies of the model's %d", a,
                           b, m->nbodies);
    }
    for (int i = 0; i < m->nground; ++i) { /* checked as a shape of a body 0 */
        char key[32], why[256], path[96];
        ld_shape s = m->ground[i];
        s.body = s.body == LD_GROUND ? 0 : -2;
        if (ld_shape_check(&s, 1, key, sizeof key, why, sizeof why)) {
            strf(path, sizeof path, "ground_shapes[%d].%s", i, key);
            return invalid(c, path, "%s", why);
        }
    }
    return check_run(c);
}

int ld_model_validate(const ld_model *m, ld_model_error *err) {
    if (!m) return LD_EINVAL;
    checker c = {m, err, NULL, NULL, NULL, NULL};
    int rc;
    if ((rc = check_name(&c, "name", m->name, 1))) return rc;
    if ((rc = check_finite(&c, "gravity", m->gravity, 3))) return rc;
    if ((rc = check_counts(&c))) return rc;
    c.body_dup = first_dups(m->bodies, sizeof *m->bodies, m->nbodies);
    c.joint_dup = first_dups(m->joints, sizeof *m->joints, m->njoints);
    c.rod_dup = first_dups(m->rods, sizeof *m->rods, m->nrods);
    if (m->nrods > 1 &&
        (c.owner = ld_xmalloc((size_t)m->nbodies * sizeof *c.owner, "the rods' owners")))
        for (int i = 0; i < m->nbodies; ++i) c.owner[i] = -1;
    rc = check_all(&c);
    free(c.owner);
    free(c.body_dup);
    free(c.joint_dup);
    free(c.rod_dup);
    return rc;
}

int ld_inertia_from_numbers(const double *v, int n, double J[9]) {
    if (!v || !J || (n != 3 && n != 6 && n != 9)) return LD_EINVAL;
    if (n == 9) {
        memcpy(J, v, 9 * sizeof *J);
        return LD_OK;
    }
    double xy = n == 6 ? v[3] : 0.0, yz = n == 6 ? v[4] : 0.0, xz = n == 6 ? v[5] : 0.0;
    const double M[9] = {v[0], xy, xz, xy, v[1], yz, xz, yz, v[2]};
    memcpy(J, M, sizeof M);
    return LD_OK;
}

int ld_model_contact_excluded(const ld_model *m, int a, int b) {
    for (int i = 0; m && i < m->nexclude; ++i)
        if ((m->exclude[2 * i] == a && m->exclude[2 * i + 1] == b) ||
            (m->exclude[2 * i] == b && m->exclude[2 * i + 1] == a))
            return 1;
    return 0;
}

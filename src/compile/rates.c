/*
 * The initial velocities not given, with the joints' given rates held (ld_rb_initial_velocity,
 * compile.h; docs/constraints.md#initial-velocities).
 *
 * A joint's `angle_rate` or `slide_rate` is one more velocity equation: it is added as a driver
 * of the same joint (the same frames, or the same point and axis) whose value runs through the
 * joint's coordinate at the start with the given slope — a table through (t₀, c₀) and
 * (t₀ + 1, c₀ + rate) — so that its row of B v + ∂Φ/∂t = 0 says ċ = rate, and the joints'
 * velocity solve (ld_jsys_initial_velocity) holds it with the others. The drivers exist only
 * for that solve: the compiled system does not have them.
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

/* The number of given rates of m. */
static int count_rates(const ld_model *m) {
    int n = 0;
    for (int j = 0; j < m->njoints; ++j)
        n += (m->joints[j].has_rate & 1) + (m->joints[j].has_rate >> 1 & 1);
    return n;
}

/* The driver of joint jd that holds the rate of coordinate c (0 angle, 1 slide) at t0. */
static void rate_driver(const ld_model *m, int j, int c, double t0, double *tab, ld_joint *d) {
    const ld_joint *jd = &m->joints[j];
    *d = *jd;
    d->kind = LD_JOINT_DRIVER;
    d->motion = c == 0 ? LD_MOTION_ROTATION : LD_MOTION_TRANSLATION;
    d->hold = d->has_rate = d->has_coord = 0;
    double c0[2] = {0.0, 0.0}; /* the spatial form counts from the start */
    if (jd->local) ld_joint_frame_coords(m, j, c0);
    d->value = 1.0;
    memset(&d->fn, 0, sizeof d->fn);
    d->fn.kind = LD_TFN_TABLE;
    d->fn.ntab = 2;
    d->fn.tab_t = tab;
    d->fn.tab_f = tab + 2;
    tab[0] = t0, tab[1] = t0 + 1.0;
    tab[2] = c0[c], tab[3] = c0[c] + jd->rate[c];
}

int ld_rb_initial_velocity(const ld_model *m, const ld_jsys *J, const ld_system *s, const double *q,
                           double *v, char *msg, size_t n) {
    double t0 = m->run.t_start;
    int nr = count_rates(m);
    if (nr == 0) return ld_jsys_initial_velocity(J, s, t0, q, v, msg, n);
    ld_model t = *m;
    t.joints =
        ld_xmalloc(((size_t)m->njoints + (size_t)nr) * sizeof *t.joints, "the rates' joints");
    double *tab = ld_xmalloc(4 * (size_t)nr * sizeof *tab, "the rates' table");
    if (!t.joints || !tab) {
        free(t.joints);
        free(tab);
        return LD_ENOMEM;
    }
    memcpy(t.joints, m->joints, (size_t)m->njoints * sizeof *t.joints);
    int k = m->njoints;
    for (int j = 0; j < m->njoints; ++j)
        for (int c = 0; c < 2; ++c)
            if (m->joints[j].has_rate >> c & 1) {
                rate_driver(m, j, c, t0, tab + 4 * (k - m->njoints), &t.joints[k]);
                ++k;
            }
    t.njoints = k;
    ld_jsys *Jr = NULL;
    int rc = ld_jsys_create(&t, ld_rb(s)->f, &Jr, msg, n);
    if (!rc) rc = ld_jsys_initial_velocity(Jr, s, t0, q, v, msg, n);
    ld_jsys_free(Jr);
    free(t.joints);
    free(tab);
    return rc;
}

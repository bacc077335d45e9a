/*
 * The sampled controller of an integrator (liedyn/actuator.h, docs/actuators.md): a callback
 * run every `period` seconds that sets the actuators' control inputs, held constant between the
 * samples (zero-order hold). The integrator's steps end on the sample instants (integ.c asks
 * ld_integ__sample_end for the end of every step), so that the held input is exact: each step
 * sees one input. The sensors (joint coordinate, rate and applied force per actuator) are read
 * at the instant from the state; the coordinate is unwrapped from the previous sample. The
 * scratch is allocated when the controller is set, never during a step: the restart at each
 * sample solves for consistent accelerations in the integrator's kept workspace (accel.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "integ_impl.h"
#include "liedyn/actuator.h"
#include "liedyn/coords.h"
#include "liedyn/liedyn.h"

typedef struct ld_sampler {
    double period, t0; /* samples at t0 + k period */
    long k;            /* samples taken; the next one at t0 + k period */
    ld_controller_fn fn;
    void *user;
    int nact;
    double *sensors; /* 3 nact */
    double *u;       /* nact */
    double *prev;    /* nact: each coordinate at the previous sample (NaN: none) */
} ld_sampler;

/* Instants closer than this count as the same (a fraction of the period, and of t's ulp). */
static double tol(const ld_sampler *p, double t) {
    return fmax(1e-9 * p->period, 64.0 * 2.2204460492503131e-16 * fabs(t));
}

static double next_instant(const ld_sampler *p) {
    return p->t0 + (double)p->k * p->period;
}

void ld_integ__sample_free(ld_integ *it) {
    if (!it->smp) return;
    free(it->smp->sensors);
    free(it->smp);
    it->smp = NULL;
}

int ld_integ_set_controller(ld_integ *it, double period, ld_controller_fn fn, void *user) {
    if (!it) return LD_EINVAL;
    if (!fn) {
        ld_integ__sample_free(it);
        return LD_OK;
    }
    int n = ld_sys_actuator_count(it->s);
    if (!(period > 0.0) || !isfinite(period) || n < 1) return LD_EINVAL;
    ld_sampler *p = calloc(1, sizeof *p);
    double *buf = calloc(5 * (size_t)n, sizeof *buf);
    if (!it->aws) /* the samples' restarts solve with it: none allocates */
        it->aws = ld_sys_accel_ws_new(it->s, NULL, 0);
    if (!p || !buf || !it->aws) {
        free(p);
        free(buf);
        return LD_ENOMEM;
    }
    ld_integ__sample_free(it);
    *p = (ld_sampler){.period = period, .t0 = it->t, .fn = fn, .user = user, .nact = n};
    p->sensors = buf, p->u = buf + 3 * n, p->prev = buf + 4 * n;
    for (int i = 0; i < n; ++i) {
        p->prev[i] = NAN;
        (void)ld_sys_get_control(it->s, i, &p->u[i]);
    }
    it->smp = p;
    return LD_OK;
}

void ld_integ__sample_reset(ld_integ *it) {
    ld_sampler *p = it->smp;
    if (!p) return;
    p->t0 = it->t;
    p->k = 0;
    for (int i = 0; i < p->nact; ++i) p->prev[i] = NAN;
}

long ld_integ_controller_samples(const ld_integ *it) {
    return it && it->smp ? it->smp->k : 0;
}

/* The sensors at the current state; a revolute joint's angle continued from the last sample. */
static void read_sensors(ld_integ *it, ld_sampler *p) {
    for (int i = 0; i < p->nact; ++i) {
        double *o = p->sensors + LD_SENSORS_PER_ACTUATOR * i;
        (void)ld_sys_actuator_state(it->s, i, it->t, it->q, it->v, &o[0], &o[1], &o[2], NULL);
        o[0] = ld_joint_angle_unwrap(o[0], p->prev[i]);
        p->prev[i] = o[0];
    }
}

int ld_integ__sample(ld_integ *it) {
    ld_sampler *p = it->smp;
    if (!p || it->t < next_instant(p) - tol(p, it->t)) return LD_OK;
    read_sensors(it, p);
    int rc = p->fn(it->t, it->q, it->v, p->sensors, p->u, p->user);
    if (rc) {
        snprintf(it->msg, sizeof it->msg, "the controller failed at t = %.9g with status %d", it->t,
                 rc);
        return rc < 0 ? rc : LD_EINVAL;
    }
    for (int i = 0; i < p->nact; ++i)
        if (ld_sys_set_control(it->s, i, p->u[i])) {
            snprintf(it->msg, sizeof it->msg,
                     "the controller set a non-finite input %g for actuator %d at t = %.9g",
                     p->u[i], i, it->t);
            return LD_EDOMAIN;
        }
    /* the forces jumped: start anew (consistent v̇, λ and the method's own state) */
    if ((rc = ld_integ_restart(it))) return rc;
    /* the next instant after t (a late call skips none: t lies within tol of an instant) */
    p->k = (long)floor((it->t - p->t0) / p->period + 0.5) + 1;
    return LD_OK;
}

double ld_integ__sample_end(const ld_integ *it, double t1) {
    const ld_sampler *p = it->smp;
    if (!p) return t1;
    double tn = next_instant(p);
    return t1 < tn - tol(p, tn) ? t1 : tn;
}

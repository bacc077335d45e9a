/*
 * Models built in code for the system and integrator tests (independent of the YAML reader).
 * Header-only.
 */
#ifndef LIEDYN_TESTS_MBS_MODELS_H
#define LIEDYN_TESTS_MBS_MODELS_H

#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

static ld_body tm_bodies[3];
static ld_joint tm_joints[2];
static ld_load tm_loads[6];

static void tm_body(ld_body *b, const char *name, double mass, const double J[9], const double x[3],
                    const double q[4], const double om[3]) {
    memset(b, 0, sizeof *b);
    strncpy(b->name, name, LD_NAME_MAX - 1);
    b->mass = mass;
    memcpy(b->inertia, J, sizeof b->inertia);
    memcpy(b->x, x, sizeof b->x);
    memcpy(b->q, q, sizeof b->q);
    memcpy(b->omega, om, sizeof b->omega);
}

static void tm_base(ld_model *m) {
    memset(m, 0, sizeof *m);
    strcpy(m->name, "test");
    strcpy(m->run.integrator, "genalpha");
    m->run.dt = 1e-3;
    m->run.t_end = 1.0;
    m->run.newton_atol = 1e-10;
    m->run.newton_rtol = 1e-8;
    m->run.max_iter = 20;
    m->run.output_every = 1;
}

/* The heavy top of Brüls & Cardona 2010 (Ω(0) scaled by `spin`: 1 = fast top, 0.01 = slow top). */
static void tm_heavy_top(ld_model *m, double spin) {
    const double J[9] = {0.234375, 0, 0, 0, 0.46875, 0, 0, 0, 0.234375};
    const double x[3] = {0, 1, 0}, q[4] = {1, 0, 0, 0};
    const double om[3] = {0, 150 * spin, -4.61538 * spin};
    tm_base(m);
    tm_body(&tm_bodies[0], "top", 15.0, J, x, q, om);
    memset(&tm_joints[0], 0, sizeof tm_joints[0]);
    strcpy(tm_joints[0].name, "pivot");
    tm_joints[0].point_form = 1; /* body point p held at the ground point xg */
    tm_joints[0].body1 = LD_GROUND;
    tm_joints[0].body2 = 0;
    tm_joints[0].p[1] = -1.0;
    m->gravity[2] = -9.81;
    m->nbodies = 1;
    m->bodies = tm_bodies;
    m->njoints = 1;
    m->joints = tm_joints;
}

/* A second heavy top beside the first of m (tm_heavy_top), on its own pivot 2 m along x, with
 * a joint only when m has one: k + m grows past the small-system path (to 18). */
__attribute__((unused)) static void tm_add_second_top(ld_model *m) {
    tm_bodies[1] = tm_bodies[0];
    strcpy(tm_bodies[1].name, "top2");
    tm_bodies[1].x[0] = 2.0;
    tm_joints[1] = tm_joints[0];
    strcpy(tm_joints[1].name, "pivot2");
    tm_joints[1].body2 = 1;
    tm_joints[1].xg[0] = 2.0;
    m->nbodies = 2;
    if (m->njoints) m->njoints = 2;
}

/* Two bodies, a tilted joint, and every load kind (spatial/body force and torque with
 * ramp/hat/constant time functions), so that every analytic tangent term is exercised. */
static void tm_loaded(ld_model *m) {
    const double J1[9] = {2.0, 0.1, 0.0, 0.1, 3.0, 0.2, 0.0, 0.2, 4.0};
    const double J2[9] = {5, 0, 0, 0, 5, 0, 0, 0, 1};
    const double x1[3] = {0.3, -0.2, 1.1}, x2[3] = {1, 2, 3};
    const double q1[4] = {0.8, 0.2, -0.4, 0.4} /* |q1| = 1 */, q2[4] = {0.6, 0.0, 0.8, 0.0};
    const double o1[3] = {1.5, -2.0, 0.7}, o2[3] = {0.1, 0.2, 3.0};
    tm_base(m);
    tm_body(&tm_bodies[0], "a", 2.5, J1, x1, q1, o1);
    tm_body(&tm_bodies[1], "b", 1.0, J2, x2, q2, o2);
    tm_bodies[1].v[0] = 0.3, tm_bodies[1].v[1] = -0.1, tm_bodies[1].has_v = 1;
    memset(tm_joints, 0, sizeof tm_joints[0]);
    tm_joints[0].point_form = 1;
    tm_joints[0].body1 = LD_GROUND;
    tm_joints[0].body2 = 0;
    tm_joints[0].p[0] = 0.1, tm_joints[0].p[1] = -0.5, tm_joints[0].p[2] = 0.3;
    { /* the joint closed at t = 0: xg = x + R p */
        double qn[4], Rp[3];
        ld_quat_normalize(qn, q1);
        ld_quat_rotate(Rp, qn, tm_joints[0].p);
        for (int i = 0; i < 3; ++i) tm_joints[0].xg[i] = x1[i] + Rp[i];
    }
    m->gravity[0] = 1.0, m->gravity[2] = -9.81;
    memset(tm_loads, 0, sizeof tm_loads);
    for (int i = 0; i < 4; ++i) {
        tm_loads[i].body = i % 2;
        tm_loads[i].kind = i < 2 ? LD_LOAD_FORCE : LD_LOAD_TORQUE;
        tm_loads[i].frame = (i % 2) ? LD_IN_BODY : LD_IN_SPATIAL;
        tm_loads[i].vec[0] = 1.0 + i, tm_loads[i].vec[1] = -2.0, tm_loads[i].vec[2] = 0.5 * i;
        tm_loads[i].fn.kind = i == 0 ? LD_TFN_CONSTANT : i == 1 ? LD_TFN_RAMP : LD_TFN_HAT;
        tm_loads[i].fn.t0 = 0.0, tm_loads[i].fn.t1 = 1.0, tm_loads[i].fn.t2 = 2.0;
    }
    /* the same body-frame force and spatial torque on body 0 too */
    tm_loads[4] = tm_loads[1], tm_loads[4].body = 0;
    tm_loads[5] = tm_loads[2], tm_loads[5].body = 0, tm_loads[5].frame = LD_IN_SPATIAL;
    m->nbodies = 2;
    m->bodies = tm_bodies;
    m->njoints = 1;
    m->joints = tm_joints;
    m->nloads = 6;
    m->loads = tm_loads;
}

#endif

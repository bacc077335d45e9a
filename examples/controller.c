/*
 * A sampled controller: a pendulum on a hinge driven by a torque motor (an actuator with input
 * `control`, limited to ±8 N m) that a discrete PD law sets every 10 ms and holds in between
 * (docs/actuators.md). The controller reads the actuator's sensors (the hinge angle, its rate
 * and the torque applied) and swings the pendulum from hanging to 2 rad. Build against an
 * installed liedyn with
 *   cc controller.c $(pkg-config --cflags --libs liedyn) -o controller
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <liedyn/actuator.h>
#include <liedyn/integrator.h>
#include <liedyn/liedyn.h>
#include <liedyn/model.h>
#include <liedyn/system.h>

static const char *const MODEL =
    "name: pendulum\n"
    "gravity: [0, -9.81, 0]\n"
    "bodies:\n"
    "  - {name: arm, mass: 1, inertia: [0.01, 0.01, 0.01], position: [0, -0.5, 0]}\n"
    "joints:\n"
    "  - {name: pivot, type: revolute, body1: ground, body2: arm, at: [0, 0, 0], axis: [0, 0, 1]}\n"
    "elements:\n"
    "  - {name: motor, type: actuator, joint: pivot, input: control, force_limits: [-8, 8]}\n"
    "integrator: {name: genalpha, dt: 2e-3, t_end: 4}\n";

typedef struct pd {
    double kp, kd, target; /* N m/rad, N m s/rad, rad */
} pd;

/* u = kp (target − θ) − kd θ̇ from the sensors of actuator 0 (angle, rate, torque). */
static int pd_law(double t, const double *q, const double *v, const double *sensors, double *u,
                  void *user) {
    (void)t, (void)q, (void)v;
    const pd *c = user;
    u[0] = c->kp * (c->target - sensors[0]) - c->kd * sensors[1];
    return 0;
}

int main(void) {
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(MODEL, strlen(MODEL), "pendulum.yaml", &m, &err) != LD_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    ld_system s;
    double *q0, *v0;
    int st;
    if (ld_model_compile(&m, m.run.formulation, &s, &q0, &v0) != LD_OK) return 2;
    ld_integ_options o;
    ld_integ_options_from_model(&m, &o);
    ld_integ *it = ld_integ_create(&s, &o, &st);
    if (!it || ld_integ_init(it, m.run.t_start, q0, v0) != LD_OK) return 2;
    pd law = {30.0, 4.0, 2.0};
    if (ld_integ_set_controller(it, 0.01, pd_law, &law) != LD_OK) return 2;
    double theta = 0.0, rate = 0.0, torque = 0.0;
    for (int k = 1; k <= 8; ++k) {
        if ((st = ld_integ_advance_to(it, 0.5 * k)) != LD_OK) {
            fprintf(stderr, "%s\n", ld_integ_message(it));
            return 1;
        }
        ld_sys_actuator_state(&s, 0, ld_integ_t(it), ld_integ_q(it), ld_integ_v(it), &theta, &rate,
                              &torque, NULL);
        printf("t = %.1f s: angle %.4f rad, rate %+.4f rad/s, torque %+.3f N m\n", ld_integ_t(it),
               theta, rate, torque);
    }
    /* at rest the motor holds gravity's torque m g l sin θ (a PD law leaves an offset) */
    printf("%ld samples; gravity's torque m g l sin(angle) = %.3f N m\n",
           ld_integ_controller_samples(it), 1.0 * 9.81 * 0.5 * sin(theta));
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
    return fabs(theta - 2.0) < 0.2 ? 0 : 1;
}

/*
 * A force of the program's own: a ball hung from a spring of the program's (a user force with
 * its own law, here a linear spring between the ground point (0, 0, 1) and the ball, plus
 * quadratic air drag), integrated with the Lie-group generalized-α method. The callback gets
 * both bodies' motion and returns the force and torque on each; without a tangent callback the
 * library differentiates it numerically. Build against an installed liedyn with
 *   cc user_force.c $(pkg-config --cflags --libs liedyn) -o user_force
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <liedyn/integrator.h>
#include <liedyn/liedyn.h>
#include <liedyn/model.h>
#include <liedyn/system.h>

typedef struct law {
    double k, cd; /* spring stiffness (N/m), drag coefficient (N s²/m²) */
} law;

/* body1 is the ground (b[0]), body2 the ball (b[1]): only w[6..8] (force on the ball). */
static int spring_and_drag(double t, const ld_body_motion b[2], double w[12], void *user) {
    (void)t;
    const law *L = user;
    const double *x = b[1].x, *v = b[1].xdot, anchor[3] = {0.0, 0.0, 1.0};
    double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    memset(w, 0, 12 * sizeof(double));
    for (int i = 0; i < 3; ++i) w[6 + i] = -L->k * (x[i] - anchor[i]) - L->cd * speed * v[i];
    return 0;
}

static const char *const MODEL = "name: ball\n"
                                 "gravity: [0, 0, -9.81]\n"
                                 "bodies:\n"
                                 "  - {name: ball, mass: 2, inertia: [0.01, 0.01, 0.01],\n"
                                 "     position: [0.3, 0, 0], velocity: [0, 1, 0]}\n"
                                 "integrator: {name: genalpha, dt: 1e-3, t_end: 5}\n";

int main(void) {
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(MODEL, strlen(MODEL), "ball.yaml", &m, &err) != LD_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    law L = {40.0, 0.5};
    int ball = ld_model_body_find(&m, "ball");
    if (ld_model_add_user_force(&m, "spring-and-drag", LD_GROUND, ball, spring_and_drag, NULL,
                                &L) != LD_OK)
        return 2;
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    ld_integ_options o;
    int status = ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0);
    if (status == LD_OK) status = ld_integ_options_from_model(&m, &o);
    ld_integ *it = status == LD_OK ? ld_integ_create(&s, &o, &status) : NULL;
    if (it) status = ld_integ_init(it, m.run.t_start, q0, v0);
    long n = (long)llround((m.run.t_end - m.run.t_start) / m.run.dt),
         per = (long)llround(1.0 / m.run.dt);
    for (long i = 1; it && status == LD_OK && i <= n; ++i) {
        status = ld_integ_advance_to(it, m.run.t_start + (double)i * m.run.dt);
        if (i % per) continue; /* a line per second */
        double t = ld_integ_t(it);
        double x[3], q[4], w[3], xd[3];
        ld_model_body_state(&s, ball, ld_integ_q(it), ld_integ_v(it), x, q, w, xd);
        printf("t = %.0f: ball at (%+.4f, %+.4f, %+.4f), speed %.4f m/s\n", t, x[0], x[1], x[2],
               sqrt(xd[0] * xd[0] + xd[1] * xd[1] + xd[2] * xd[2]));
    }
    if (status != LD_OK) fprintf(stderr, "user_force: %s\n", ld_strerror(status));
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
    return status == LD_OK ? 0 : 1;
}

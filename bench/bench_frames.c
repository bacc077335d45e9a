/*
 * Which frame for the velocities (docs/mechanics.md): the error of generalized-α (ρ∞ = 0.9) at
 * a fixed time against the step size, in the body-frame formulations (so3xr3, s3xr3: Ω, right
 * composition) and the spatial ones (so3xr3-spatial, s3xr3-spatial: ω = RΩ, left composition),
 * on motions of different character:
 *   heavy-top     fast spin (150 rad/s) about the symmetry axis, slow precession, t = 0.8
 *   free-top      torque-free J = diag(1, 2, 3), Ω(0) = (0.2, 5, 0.3): tumbling about the
 *                 unstable middle axis, t = 10
 *   slow-tumble   the same body with Ω(0) = (0.5, 0.4, 0.3): a slow tumble, no dominant axis
 *   torque-ii     the prescribed rotation of Zupan & Zupan's case (ii) under its exact body
 *                 torque, t = 10, against the exact rotation
 *   cantilever    the right-angle cantilever beam (Simo & Vu-Quoc), its tip at t = 5
 * The reference of the bodies is hem5 (order 5) at a small step in so3xr3, of the beam
 * genalpha at h/32. CSV on stdout:
 * model, formulation, h, rotation error (rad), position error (m), rotation error / h² (the
 * error constant). BENCH_QUICK=1: a twentieth of each interval, one step size, a coarse
 * reference (the numbers then mean nothing).
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME      "bench_frames"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "liedyn/integrator.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

typedef struct end_state {
    double x[3], q[4];
} end_state;

static void load(const char *name, ld_model *m) {
    char path[4608];
    snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, name);
    ld_model_error err;
    if (ld_model_load(path, m, &err)) die(path, err.msg);
}

/* n steps of h with method meth in formulation f; the state of body `body` at the end. */
static void run(const ld_model *m, ld_formulation f, ld_integ_method meth, double h, long n,
                int body, end_state *out) {
    ld_system s;
    double *q0, *v0;
    check_ld("compile", ld_model_compile(m, f, &s, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    o.rho_inf = 0.9;
    int st;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    if (!it) die_code("ld_integ_create", st);
    check_ld("ld_integ_init", ld_integ_init(it, m->run.t_start, q0, v0));
    for (long i = 0; i < n; ++i)
        if (ld_integ_step(it, h)) die("step", ld_integ_message(it));
    double om[3], xd[3];
    check_ld("body state",
             ld_model_body_state(&s, body, ld_integ_q(it), ld_integ_v(it), out->x, out->q, om, xd));
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

typedef struct study {
    const char *name, *file;
    double T, h0;
    int exact;       /* the model prescribes the rotation: compare with it */
    double omega[3]; /* when not all 0: replaces body 0's initial angular velocity */
    long ref_steps;  /* steps of the reference (not exact) */
    int beam;        /* the last body (the beam's tip); reference genalpha */
} study;

static void one(const study *c, int quick) {
    ld_model m;
    load(c->file, &m);
    m.run.t_start = 0.0;
    if (c->omega[0] != 0.0 || c->omega[1] != 0.0 || c->omega[2] != 0.0)
        memcpy(m.bodies[0].omega, c->omega, sizeof c->omega);
    end_state ref = {{0}, {0}};
    double T = quick ? c->T / 20 : c->T; /* the smoke run: a twentieth of the interval */
    if (c->exact) {
        check_ld("exact rotation", ld_model_exact_rotation(&m, 0, T, ref.q));
    } else {
        long n = quick ? c->ref_steps / 320 : c->ref_steps;
        run(&m, LD_FORM_SO3XR3, c->beam ? LD_INTEG_GENALPHA : LD_INTEG_HEM5, T / (double)n, n,
            c->beam ? m.nbodies - 1 : 0, &ref);
    }
    const ld_formulation fs[4] = {LD_FORM_SO3XR3, LD_FORM_SO3XR3_SPATIAL, LD_FORM_S3XR3,
                                  LD_FORM_S3XR3_SPATIAL};
    int nh = quick ? 1 : c->beam ? 3 : 4;
    for (int f = 0; f < 4; ++f)
        for (int i = 0; i < nh; ++i) {
            long n = lround(T / c->h0) << i;
            double h = T / (double)n;
            end_state e;
            run(&m, fs[f], LD_INTEG_GENALPHA, h, n, c->beam ? m.nbodies - 1 : 0, &e);
            double er = ld_quat_angle(e.q, ref.q), ep = 0.0;
            for (int j = 0; j < 3; ++j) ep += (e.x[j] - ref.x[j]) * (e.x[j] - ref.x[j]);
            printf("%s,%s,%.6g,%.4e,%.4e,%.4g\n", c->name, ld_formulation_name(fs[f]), h, er,
                   c->exact ? (double)NAN : sqrt(ep), er / (h * h));
        }
    ld_model_free(&m);
}

int main(void) {
    int quick = bench_quick();
    const study cases[] = {
        {"heavy-top", "heavy-top", 0.8, 2e-3, 0, {0, 0, 0}, 64000, 0},
        {"free-top", "free-top", 10.0, 1e-2, 0, {0, 0, 0}, 128000, 0},
        {"slow-tumble", "free-top", 10.0, 1e-2, 0, {0.5, 0.4, 0.3}, 64000, 0},
        {"torque-ii", "torque-body-ii", 10.0, 1e-2, 1, {0, 0, 0}, 0, 0},
        {"cantilever", "right-angle-cantilever", 5.0, 2e-2, 0, {0, 0, 0}, 8000, 1},
    };
    printf("model,formulation,h,err_rot,err_pos,c_rot\n");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) one(&cases[k], quick);
    return 0;
}

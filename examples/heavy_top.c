/*
 * The heavy top from a model file, driven by a program: load, compile, take the integrator
 * settings from the file's integrator block, step to the end time, and report the energy drift
 * and the top's final state. Build against an installed liedyn with
 *   cc heavy_top.c $(pkg-config --cflags --libs liedyn) -o heavy_top
 * and run it on a model file:  ./heavy_top $(pkg-config --variable=prefix
 * liedyn)/share/liedyn/models/heavy-top.yaml
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <liedyn/integrator.h>
#include <liedyn/liedyn.h>
#include <liedyn/model.h>
#include <liedyn/system.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: heavy_top MODEL.yaml\n");
        return 2;
    }
    ld_model m;
    ld_model_error err;
    if (ld_model_load(argv[1], &m, &err) != LD_OK) { /* err.msg: "FILE:LINE: KEY: REASON" */
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    ld_system s;
    double *q0 = NULL, *v0 = NULL; /* the initial state; the caller frees them */
    ld_integ_options o;
    int status = ld_model_compile(&m, m.run.formulation, &s, &q0, &v0);
    if (status == LD_OK) status = ld_integ_options_from_model(&m, &o);
    ld_integ *it = status == LD_OK ? ld_integ_create(&s, &o, &status) : NULL;
    if (it) status = ld_integ_init(it, m.run.t_start, q0, v0);
    double e0 = it ? ld_sys_energy(&s, m.run.t_start, q0, v0) : NAN;
    /* fixed steps of the block's dt; each ends exactly on its grid time (the last on t_end) */
    long n = (long)ceil((m.run.t_end - m.run.t_start) / m.run.dt - 1e-9);
    for (long i = 1; it && status == LD_OK && i <= n; ++i)
        status =
            ld_integ_advance_to(it, i == n ? m.run.t_end : m.run.t_start + (double)i * m.run.dt);
    int top = ld_model_body_find(&m, "top");
    if (it && status == LD_OK && top >= 0) {
        double x[3], q[4], w[3], xd[3], t = ld_integ_t(it);
        const double *qn = ld_integ_q(it), *vn = ld_integ_v(it); /* owned by the integrator */
        ld_model_body_state(&s, top, qn, vn, x, q, w, xd);
        ld_integ_stats st;
        ld_integ_get_stats(it, &st);
        printf("t = %g after %ld steps: top at (%.6f, %.6f, %.6f), spin %.3f rad/s, energy "
               "drift %.3e\n",
               t, st.steps, x[0], x[1], x[2], w[1], ld_sys_energy(&s, t, qn, vn) - e0);
    } else {
        fprintf(stderr, "heavy_top: %s\n", top < 0 ? "no body called 'top'" : ld_strerror(status));
        status = status ? status : LD_EINVAL;
    }
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
    return status == LD_OK ? 0 : 1;
}

/*
 * Fuzz target: the YAML model reader and what runs a model (docs/fuzzing.md).
 *
 * The input bytes are a model file. ld_model_parse reads them; a model it accepts is
 * validated again, compiled in a formulation, handed to an integrator, initialized and
 * stepped a few times, and everything is freed. The target checks the contracts a caller
 * relies on and aborts when one is broken:
 *   - a refused model comes with a NUL-terminated one-line message;
 *   - an accepted model passes ld_model_validate (ld_model_parse validates);
 *   - a step that returns LD_OK leaves a finite state, a rejected one (status > 0) leaves the
 *     state untouched (integrator.h, failure contract).
 * Work per input is capped (bodies, equations, steps, Newton iterations) so that every input
 * runs in milliseconds.
 *
 * The run variant: the model's own integrator block, or — for half of the inputs, chosen by a
 * hash of the bytes — another formulation, method, linear solver and projection, so that the
 * shipped models reach every integrator.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "liedyn/liedyn.h"

/* Larger models are read and validated, not compiled: compiling allocates O(k²). */
#define MAX_COMPILE_BODIES 200
/* Models with more unknowns k + m are compiled, not integrated (dense LU is O((k + m)³)). */
#define MAX_INTEG_UNKNOWNS 256
#define MAX_STEPS          5
#define MAX_NEWTON         10

/* Stop on a broken contract: libFuzzer records the input as a crash. */
static void contract(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "fuzz_model: contract broken: %s\n", what);
    abort();
}

static int all_finite(const double *x, int n) {
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* The integrator options of the model's run block for method, with the work capped. */
static void integ_options(const ld_model *m, ld_integ_method method, uint32_t h,
                          ld_integ_options *o) {
    ld_integ_options_init(o);
    o->method = method;
    o->rho_inf = ld_run_param_get(&m->run, "rho_inf");
    o->alpha = ld_run_param_get(&m->run, "alpha");
    o->newton_atol = m->run.newton_atol;
    o->newton_rtol = m->run.newton_rtol;
    o->max_iter = m->run.max_iter < MAX_NEWTON ? m->run.max_iter : MAX_NEWTON;
    o->max_halvings = 2;
    o->max_rejects = 4;
    o->la = (h >> 12) & 1 ? LD_LA_KLU : LD_LA_DENSE;
    o->project = (int)((h >> 13) & 1);
    o->adaptive = m->run.adaptive && ld_integ_method_has_estimate(method);
    o->error_atol = m->run.error_atol;
    o->error_rtol = m->run.error_rtol;
    o->fac = m->run.fac;
    o->facmin = m->run.facmin;
    o->facmax = m->run.facmax;
    o->h_init = m->run.dt;
}

/* Read back what a caller reads after a step: bodies, joint reactions, energy. */
static void inspect(const ld_model *m, const ld_system *s, const ld_integ *it) {
    const double *q = ld_integ_q(it), *v = ld_integ_v(it), *lambda = ld_integ_lambda(it);
    double x[3], quat[4], w[3], xd[3], f[3], tau[3], e = 0.0;
    for (int b = 0; b < m->nbodies; ++b) {
        ld_model_body_state(s, b, q, v, x, quat, w, xd);
        (void)ld_model_exact_rotation(m, b, ld_integ_t(it), quat);
    }
    for (int j = 0; j < m->njoints; ++j) ld_model_joint_reaction(s, j, q, lambda, f, tau);
    if (s->ops.energy) (void)s->ops.energy(s, ld_integ_t(it), q, v, &e);
    contract(ld_integ_message(it) != NULL, "ld_integ_message is never NULL");
}

/* One step: fixed size h, or controlled up to t_max. */
static int step_once(ld_integ *it, int adaptive, double h, double t_max) {
    if (adaptive) return t_max > ld_integ_t(it) ? ld_integ_step_adaptive(it, t_max) : LD_EINVAL;
    return ld_integ_step(it, h);
}

/* Up to MAX_STEPS steps (fixed h = dt, halved after a rejection, or controlled). save holds
 * nq + k doubles: the state before each step, which a rejected step must leave untouched. */
static void step_some(const ld_model *m, const ld_system *s, ld_integ *it, int adaptive,
                      double *save) {
    double h = m->run.dt, t_max = m->run.t_start + MAX_STEPS * m->run.dt;
    size_t nq = (size_t)s->nq, k = (size_t)s->k;
    for (int i = 0; i < MAX_STEPS; ++i) {
        double t = ld_integ_t(it);
        memcpy(save, ld_integ_q(it), nq * sizeof *save);
        memcpy(save + nq, ld_integ_v(it), k * sizeof *save);
        int rc = step_once(it, adaptive, h, t_max);
        if (rc < 0) break;
        if (rc > 0) { /* rejected: the state is exactly as before */
            contract(ld_integ_t(it) == t && !memcmp(save, ld_integ_q(it), nq * sizeof *save) &&
                         !memcmp(save + nq, ld_integ_v(it), k * sizeof *save),
                     "a rejected step leaves the state untouched");
            h *= 0.5;
            continue;
        }
        contract(all_finite(ld_integ_q(it), s->nq) && all_finite(ld_integ_v(it), s->k),
                 "a step that returns LD_OK leaves a finite state");
        inspect(m, s, it);
    }
}

/* Integrate the compiled system a few steps, if the options suit it. */
static void integrate(const ld_model *m, const ld_system *s, const double *q0, const double *v0,
                      ld_integ_method method, uint32_t h) {
    ld_integ_options o;
    integ_options(m, method, h, &o);
    if (s->k + s->m > MAX_INTEG_UNKNOWNS || ld_integ_options_check(s, &o)) return;
    int rc = LD_OK;
    ld_integ *it = ld_integ_create(s, &o, &rc);
    if (!it) {
        contract(rc < 0, "ld_integ_create reports why it failed");
        return;
    }
    double *save = malloc(((size_t)s->nq + (size_t)s->k) * sizeof *save);
    if (save && ld_integ_init(it, m->run.t_start, q0, v0) == LD_OK)
        step_some(m, s, it, o.adaptive, save);
    free(save);
    ld_integ_free(it);
}

void fuzz_run_model(const ld_model *m, uint32_t h) {
    ld_formulation form = m->run.formulation;
    int method = ld_integ_method_find(m->run.integrator);
    if (method < 0) method = LD_INTEG_GENALPHA;
    if (h & 1) {
        form = (ld_formulation)((h >> 1) % LD_FORM_COUNT);
        method = (int)((h >> 4) % (uint32_t)ld_method_count());
    }
    char why[256];
    (void)ld_model_check_initial(m, why, sizeof why);
    contract(memchr(why, '\0', sizeof why) != NULL, "check_initial's message is terminated");
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    if (ld_model_compile(m, form, &s, &q0, &v0) != LD_OK) return;
    integrate(m, &s, q0, v0, (ld_integ_method)method, h);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* The entry point; renamed (FUZZ_MODEL_ENTRY) where another target links this file for
 * fuzz_run_model. */
#ifndef FUZZ_MODEL_ENTRY
#define FUZZ_MODEL_ENTRY LLVMFuzzerTestOneInput
#endif
int FUZZ_MODEL_ENTRY(const uint8_t *data, size_t size);
int fuzz_parse_model(const uint8_t *data, size_t size, ld_model *m) {
    ld_model_error err;
    int rc = ld_model_parse((const char *)data, size, "fuzz.yaml", m, &err);
    if (rc != LD_OK) {
        contract(rc < 0, "a refused model returns a negative status");
        contract(memchr(err.msg, '\0', sizeof err.msg) != NULL, "the message is terminated");
        contract(err.msg[0] != '\0', "a refused model comes with a message");
        return 0;
    }
    contract(ld_model_validate(m, &err) == LD_OK, "an accepted model validates");
    return 1;
}

int FUZZ_MODEL_ENTRY(const uint8_t *data, size_t size) {
    ld_model m;
    if (!fuzz_parse_model(data, size, &m)) return 0;
    if (m.nbodies <= MAX_COMPILE_BODIES) fuzz_run_model(&m, fuzz_hash(data, size));
    ld_model_free(&m);
    return 0;
}

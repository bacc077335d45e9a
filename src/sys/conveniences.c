/*
 * Conveniences of the public API for programs that drive a model themselves: names to indices,
 * the model's integrator block as integrator options, and the diagnostics of a state (energy,
 * constraint violation) behind named functions.
 */
#include <math.h>
#include <string.h>

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

int ld_model_body_find(const ld_model *m, const char *name) {
    if (!m || !name) return -1;
    for (int b = 0; b < m->nbodies; ++b)
        if (strcmp(m->bodies[b].name, name) == 0) return b;
    return -1;
}

int ld_model_joint_find(const ld_model *m, const char *name) {
    if (!m || !name || !name[0]) return -1;
    for (int j = 0; j < m->njoints; ++j)
        if (strcmp(m->joints[j].name, name) == 0) return j;
    return -1;
}

int ld_integ_options_from_model(const ld_model *m, ld_integ_options *o) {
    if (!m || !o) return LD_EINVAL;
    const ld_run_spec *r = &m->run;
    int method = ld_integ_method_find(r->integrator);
    if (method < 0) return LD_EINVAL;
    ld_integ_options_init(o);
    o->method = (ld_integ_method)method;
    for (int i = 0; i < r->nparams; ++i) { /* the methods' parameters that were set */
        const ld_method_param *p = ld_method_param_find(r->params[i].key, NULL);
        if (p) memcpy((char *)o + p->offset, &r->params[i].value, sizeof(double));
    }
    o->newton_atol = r->newton_atol;
    o->newton_rtol = r->newton_rtol;
    o->max_iter = r->max_iter;
    o->newton_reuse = r->newton_reuse;
    o->la = LD_LA_AUTO;
    o->adaptive = r->adaptive;
    if (o->adaptive) {
        o->error_atol = r->error_atol;
        o->error_rtol = r->error_rtol;
        o->fac = r->fac;
        o->facmin = r->facmin;
        o->facmax = r->facmax;
        o->h_init = r->dt;
        /* Newton converges well below the error tolerance */
        o->newton_atol = fmin(o->newton_atol, 1e-2 * o->error_atol);
        o->newton_rtol = fmin(o->newton_rtol, 1e-2 * o->error_rtol);
    }
    return LD_OK;
}

double ld_sys_energy(const ld_system *s, double t, const double *q, const double *v) {
    double e = NAN;
    if (!s || !q || !v || !s->ops.energy || s->ops.energy(s, t, q, v, &e) != LD_OK) return NAN;
    return e;
}

double ld_sys_phi_max(const ld_system *s, double t, const double *q, double *work, int *row) {
    if (row) *row = -1;
    if (!s || !q) return NAN;
    if (s->m == 0) return 0.0;
    if (!work || !s->ops.phi || s->ops.phi(s, t, q, work) != LD_OK) return NAN;
    double mx = 0.0;
    for (int i = 0; i < s->m; ++i) {
        if (isnan(work[i])) return NAN;
        if (fabs(work[i]) > mx) {
            mx = fabs(work[i]);
            if (row) *row = i;
        }
    }
    return mx;
}

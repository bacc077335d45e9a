/*
 * The power of a model's loads and drivers at a state (ld_model_power, system.h): what the
 * energy balance T + V − E₀ − W = 0 integrates into the work W.
 *
 * Loads act at the bodies' centres of mass (model.h): a force f (spatial, or body: Rf) and a
 * torque τ (spatial, or body: Rτ) do the power f·ẋ + τ·ω, ω = RΩ. Gravity is in the potential
 * energy V and not here. A driver's rows are the rheonomic ones: B v + ∂Φ/∂t = 0 along the
 * motion, and the constraint forces −Bᵀλ do the power −λᵀ B v = λᵀ ∂Φ/∂t (zero for every
 * other joint).
 */
#include <string.h>

#include "../lie/mat3.h"
#include "compile.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"

int ld_model_power(const ld_system *s, double t, const double *q, const double *v,
                   const double *lambda, double *work, double *P) {
    if (!s || !s->user || !q || !v || !P || (lambda && s->m > 0 && !work)) return LD_EINVAL;
    const rb_sys *rb = ld_rb(s);
    const ld_model *m = rb->m;
    double p = 0.0;
    for (int i = 0; i < m->nbodies; ++i) {
        if (rb->load_start[i] == rb->load_start[i + 1]) continue;
        ld_rb_loads L;
        ld_rb_loads_eval(rb, i, t, &L);
        double x[3], quat[4], Om[3], xd[3], R[9], f[3], tau[3];
        int rc = ld_model_body_state(s, i, q, v, x, quat, Om, xd);
        if (rc) return rc;
        ld_quat_to_mat(R, quat);
        ld_m3_mulv(f, R, L.fb);
        ld_m3_mulv(tau, R, L.tb);
        for (int j = 0; j < 3; ++j) {
            f[j] += L.fs[j] - m->bodies[i].mass * m->gravity[j];
            tau[j] += L.ts[j];
        }
        double w[3];
        ld_m3_mulv(w, R, Om);
        p += ld_v3_dot(f, xd) + ld_v3_dot(tau, w);
    }
    if (lambda && s->m > 0 && s->ops.phi_t) {
        int rc = s->ops.phi_t(s, t, q, work);
        if (rc) return rc;
        for (int r = 0; r < s->m; ++r) p += lambda[r] * work[r];
    }
    *P = p;
    return LD_OK;
}

/*
 * The Newton iteration shared by the implicit methods (integ_impl.h): the correction from the
 * factored iteration matrix, the convergence test (full Newton, or a kept matrix judged by its
 * contraction rate), and the rejection of a step with its reason.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"

int ld_integ__reject(ld_integ *it, int cause, const char *why, double h) {
    it->st.rejected++;
    it->jac_ok = 0; /* the retry forms its matrix anew */
    if (cause == LD_RETRY_ERROR_TEST) it->st.error_test_failures++;
    if (cause >= LD_RETRY_NEWTON) it->st.newton_failures++;
    snprintf(it->msg, sizeof it->msg, "step h = %.3g at t = %.9g rejected: %s", h, it->t, why);
    return cause;
}

int ld_integ__newton_status(ld_integ *it, int rc, double err, double h) {
    if (rc == LD_ESINGULAR)
        return ld_integ__reject(it, LD_RETRY_SINGULAR, "singular iteration matrix", h);
    if (rc == LD_EDOMAIN || (rc == LD_OK && !isfinite(err)))
        return ld_integ__reject(it, LD_RETRY_NONFINITE,
                                it->why ? it->why : "non-finite Newton correction", h);
    if (rc > 0) return ld_integ__reject(it, LD_RETRY, "the model asked for a smaller step", h);
    return rc;
}

int ld_integ__newton_end(ld_integ *it, double err, int floor, double h) {
    if (err <= 1.0) return LD_OK;
    if (floor) {
        it->st.roundoff_stops++;
        return LD_OK;
    }
    char why[96];
    snprintf(why, sizeof why, "Newton did not converge in %d iterations (error norm %.3g)",
             it->o.max_iter, err);
    return ld_integ__reject(it, LD_RETRY_NEWTON, why, h);
}

int ld_integ__correction(ld_integ *it, int *at_roundoff) {
    int k = it->k, m = it->m, n = it->n;
    double bh2 = it->bh2, rn = ld_integ__residual_rms(it);
    it->rhist[it->nhist] = rn;
    *at_roundoff = rn <= 1e3 * DBL_EPSILON * it->rscale;
    for (int i = 0; i < k; ++i) it->dx[i] = -bh2 * it->r[i];
    for (int i = k; i < n; ++i) it->dx[i] = -it->r[i];
    int rc = ld_integ__factor(it);
    if (!rc) rc = ld_integ__solve(it, it->dx);
    if (rc) return rc;
    for (int i = 0; i < m; ++i) it->dx[k + i] /= bh2;
    return LD_OK;
}

int ld_integ__correction_finite(ld_integ *it) {
    return ld_integ__finite(it, it->dx, (size_t)it->n, "non-finite Newton correction");
}

/* The convergence test of iteration i with correction norm err after prev. Full Newton:
 * err itself. With a kept matrix the iteration converges linearly, at a rate ρ = err / prev,
 * and the distance to the solution is about err ρ / (1 − ρ) (Hairer & Wanner, Solving ODEs II,
 * Sec. IV.8): that is tested, with ρ = 1/2 for the first iteration of a step. */
static double newton_test(const ld_integ *it, int i, double err, double prev) {
    if (it->o.newton_reuse == LD_REUSE_OFF) return err;
    double rho = i >= 2 ? err / prev : 0.5;
    return rho < 0.99 ? err * rho / (1.0 - rho) : (double)INFINITY;
}

int ld_integ__newton(ld_integ *it, double t1, double h, ld_integ_newton_fn iter, int *iters) {
    double err = 2.0, test = 2.0, prev = INFINITY;
    int i = 0, floor = 0;
    while (i < it->o.max_iter && test > 1.0 && !floor) {
        ++i;
        it->st.newton_iterations++;
        int rc = iter(it, t1, h, &err, &floor);
        rc = ld_integ__newton_status(it, rc, err, h);
        if (rc) return rc;
        it->hist[it->nhist++] = err;
        test = newton_test(it, i, err, prev);
        if (test > 1.0 && err > 0.5 * prev) it->jac_ok = 0; /* a kept matrix stalls: renew */
        prev = err;
    }
    *iters = i;
    return ld_integ__newton_end(it, test, floor, h);
}

/*
 * The three-stage TR-BDF2 quaternion scheme of Zupan & Zupan on the system interface
 * (integrator.h: tb3, tb3-paper). Derivation, variants and verification: docs/tb3.md.
 *
 * Stage 1 (trapezoidal rule to t + τh) and stage 2 (BDF2 to t + h) each solve for an average
 * velocity v̄ with q_s = q ∘ exp(c h v̄), v_s = ν v̄ + v_c, a_s = α v̄ + a_c:
 *   stage 1: c = τ, ν = 2,   α = 4/(τh),   v̄ = (v + v₁)/2;
 *   stage 2: c = 1, ν = 2/τ, α = 4/(τ²h),  v̄ = w v + w v₁ + (τ/2) v₂,
 * and the equations of motion M(q_s) a_s + g(t_s, q_s, v_s) = 0. Newton's matrix, divided by
 * α, is M + (τh/2) C + (τh/2)² K T(c h v̄) in both stages. Stage 3 is explicit.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"

#define SQRT2 1.41421356237309504880
static const double TAU = 2.0 - SQRT2; /* node of stage 1 */
static const double W = SQRT2 / 4.0;   /* stage-2 weights (w, w, τ/2) */

/* Third-order weights of the explicit stage (Zupan & Zupan eq. 18; the last row of the printed
 * Butcher array (9) does not sum to one). */
static const double B3[3] = {(1.0 - SQRT2 / 4.0) / 3.0, (3.0 * SQRT2 / 4.0 + 1.0) / 3.0,
                             (2.0 - SQRT2) / 6.0};

/* Coefficient of the commutator correction on the rotation vector: ξ gets
 * κ h² [v, τ² v₂ − v₁] / (τ(τ − 1)). The second Magnus term gives κ = 1/12; the printed
 * eq. 20 (1/48 on the quaternion half angle) is κ = 1/24. */
#define KAPPA_MAGNUS (1.0 / 12.0)
#define KAPPA_PAPER  (1.0 / 24.0)

/* The method's own work space (nothing carried between steps): the stage velocities and
 * accelerations, the unknown average velocity v̄, the estimate in (θ, v), the stage
 * constants v_c, a_c, and the stage's c, ν, α. */
typedef struct tb3 {
    double *v1, *a1, *v2, *a2, *vbar, *est, *vc, *ac, *cna;
} tb3;

static tb3 tb3_of(const ld_integ *it) {
    size_t k = (size_t)it->k;
    double *p = it->ws;
    tb3 b = {p, p + k, p + 2 * k, p + 3 * k, p + 4 * k, p + 5 * k, p + 7 * k, p + 8 * k, p + 9 * k};
    return b;
}

static size_t tb3_work(const ld_system *s, size_t *keep) {
    *keep = 0;
    return 9 * (size_t)s->k + 3;
}

/* One Newton iteration of a stage (the driver of integ_newton.c): the stage state from v̄, the
 * residual, the matrix M + (τh/2) C + (τh/2)² K T divided by α, and the correction of v̄. */
static int stage_iteration(ld_integ *it, double ts, double h, double *err, int *at_roundoff) {
    tb3 b = tb3_of(it);
    int k = it->k;
    double c = b.cna[0], nu = b.cna[1], alpha = b.cna[2], ch = c * h, th2 = 0.5 * TAU * h;
    for (int j = 0; j < k; ++j) {
        it->xi[j] = ch * b.vbar[j];
        it->vn[j] = nu * b.vbar[j] + b.vc[j];
        it->vdn[j] = alpha * b.vbar[j] + b.ac[j];
    }
    ld_sys_retract(it->s, it->qn, it->q, it->xi);
    int rc = ld_integ__residual(it, ts);
    if (!rc) rc = ld_integ__assemble(it, ts, 1.0, th2, th2 * th2, NULL);
    double rn = rc ? 0.0 : ld_integ__residual_rms(it);
    it->rhist[it->nhist] = rn;
    *at_roundoff = rn <= 1e3 * DBL_EPSILON * it->rscale;
    for (int j = 0; !rc && j < k; ++j) it->dx[j] = -it->r[j] / alpha;
    if (!rc) rc = ld_integ__factor(it);
    if (!rc) rc = ld_integ__solve(it, it->dx);
    double sum = 0.0;
    for (int j = 0; !rc && j < k; ++j) {
        b.vbar[j] += it->dx[j];
        double wgt = it->o.newton_atol + it->o.newton_rtol * fabs(ch * b.vbar[j]);
        sum += (ch * it->dx[j] / wgt) * (ch * it->dx[j] / wgt);
    }
    if (!rc) rc = ld_integ__correction_finite(it);
    *err = sqrt(sum / (double)k);
    return rc;
}

/* One stage: Newton on v̄ (b.vbar holds the predictor on entry, the solution on exit; qn,
 * vn, vdn the stage state). c, nu, alpha and b.vc, b.ac as in the header comment; *iters
 * counts. */
static int stage(ld_integ *it, double ts, double h, double c, double nu, double alpha, int *iters) {
    tb3 b = tb3_of(it);
    int k = it->k, i = 0;
    b.cna[0] = c, b.cna[1] = nu, b.cna[2] = alpha;
    it->bh2 = 1.0 / alpha;
    int rc = ld_integ__newton(it, ts, h, stage_iteration, &i);
    *iters += i;
    if (rc) return rc;
    /* the stage state at the converged v̄ */
    for (int j = 0; j < k; ++j) {
        it->vn[j] = nu * b.vbar[j] + b.vc[j];
        it->vdn[j] = alpha * b.vbar[j] + b.ac[j];
    }
    return LD_OK;
}

/* Weighted RMS of the estimate (Tumiotto & Arnold 2024, eq. 21) over y = (θ, v): θ scaled by the
 * size of the step's own increment xi (θ = 0 at the start of the step), v by max(|v|, |v_new|). */
static double estimate_norm(const ld_integ *it, const double *est, const double *xi,
                            const double *vnew) {
    int k = it->k;
    double sum = 0.0, at = it->o.error_atol, rt = it->o.error_rtol;
    for (int j = 0; j < k; ++j) {
        double wq = at + rt * fabs(xi[j]);
        double wv = at + rt * fmax(fabs(it->v[j]), fabs(vnew[j]));
        sum += (est[j] / wq) * (est[j] / wq) + (est[k + j] / wv) * (est[k + j] / wv);
    }
    return sqrt(sum / (2.0 * k));
}

/* Stage 3 (explicit): ξ₃ = h Σ bᵢ vᵢ + κ h² [v, τ² v₂ − v₁] / (τ(τ − 1)), v₃ from the
 * third-order weights; the estimate against the second-order results h v̄₂ and v₂; with
 * step-size control a step whose estimate exceeds 1 is rejected here. On success qn = q ∘
 * exp(ξ₃) and vn = v₃ (which tb3-paper then replaces by v₂). */
static int explicit_stage(ld_integ *it, double h, int paper) {
    const ld_system *s = it->s;
    tb3 b = tb3_of(it);
    int k = it->k;
    double *d = it->dx, *xi3 = it->xi;
    for (int j = 0; j < k; ++j) d[j] = TAU * TAU * b.v2[j] - b.v1[j];
    ld_sys_bracket(s, it->r, it->v, d);
    double kappa = (paper ? KAPPA_PAPER : KAPPA_MAGNUS) * h * h / (TAU * (TAU - 1.0));
    for (int j = 0; j < k; ++j) {
        xi3[j] = h * (B3[0] * it->v[j] + B3[1] * b.v1[j] + B3[2] * b.v2[j]);
        xi3[j] += kappa * it->r[j];
        it->vn[j] = it->v[j] + h * (B3[0] * it->vd[j] + B3[1] * b.a1[j] + B3[2] * b.a2[j]);
        b.est[j] = xi3[j] - h * b.vbar[j];
        b.est[k + j] = it->vn[j] - b.v2[j];
    }
    it->last_err = estimate_norm(it, b.est, xi3, paper ? b.v2 : it->vn);
    if (it->o.adaptive && !(it->last_err <= 1.0)) {
        char why[64];
        snprintf(why, sizeof why, "error estimate %.3g above 1", it->last_err);
        return ld_integ__reject(it, LD_RETRY_ERROR_TEST, why, h);
    }
    ld_sys_retract(s, it->qn, it->q, xi3);
    return LD_OK;
}

/* The acceleration at the new state (qn, vn): M(q₃) a = −g(t₁, q₃, v₃) into vdn; a failure
 * (model status, singular M, non-finite a) rejects the step. */
static int new_acceleration(ld_integ *it, double t1, double h) {
    int k = it->k;
    memset(it->vdn, 0, (size_t)k * sizeof(double));
    it->bh2 = 1.0;
    int rc = ld_integ__residual(it, t1);
    ld_integ__assemble_mass(it);
    if (!rc) rc = ld_integ__factor(it);
    for (int j = 0; !rc && j < k; ++j) it->vdn[j] = -it->r[j];
    if (!rc) rc = ld_integ__solve(it, it->vdn);
    if (!rc) rc = ld_integ__finite(it, it->vdn, (size_t)k, "non-finite acceleration");
    return ld_integ__newton_status(it, rc, 0.0, h);
}

static int tb3_step(ld_integ *it, double t1) {
    tb3 b = tb3_of(it);
    int k = it->k, iters = 0, paper = it->meth->variant;
    double h = t1 - it->t, ta = it->t + TAU * h;
    double *vc = b.vc, *ac = b.ac;
    /* stage 1: trapezoidal rule to t + τh; predictor a₁ = a (the old acceleration) */
    for (int j = 0; j < k; ++j) {
        vc[j] = -it->v[j];
        ac[j] = -it->vd[j] - 4.0 / (TAU * h) * it->v[j];
        b.vbar[j] = it->v[j] + 0.5 * TAU * h * it->vd[j];
    }
    int rc = stage(it, ta, h, TAU, 2.0, 4.0 / (TAU * h), &iters);
    if (rc) return rc;
    memcpy(b.v1, it->vn, (size_t)k * sizeof(double));
    memcpy(b.a1, it->vdn, (size_t)k * sizeof(double));
    /* stage 2: BDF2 to t + h; predictor v₂ from the cubic Hermite interpolant of (v, a) at t
     * and t + τh */
    double c1 = (2.0 - 3.0 * TAU) / (TAU * TAU * TAU), c2 = h * (1.0 - TAU) / (TAU * TAU);
    double a2 = 4.0 / (TAU * TAU * h);
    for (int j = 0; j < k; ++j) {
        double v, a = it->vd[j], va = b.v1[j], aa = b.a1[j];
        v = it->v[j] + c1 * (it->v[j] - va) + c2 * ((1.0 - TAU) * a + aa);
        b.vbar[j] = W * (it->v[j] + va) + 0.5 * TAU * v;
        vc[j] = -2.0 * W / TAU * (it->v[j] + va);
        ac[j] = -2.0 * W / TAU * (a + aa) - a2 * ((W + 0.5 * TAU) * it->v[j] + W * va);
    }
    rc = stage(it, t1, h, 1.0, 2.0 / TAU, a2, &iters);
    if (rc) return rc;
    memcpy(b.v2, it->vn, (size_t)k * sizeof(double));
    memcpy(b.a2, it->vdn, (size_t)k * sizeof(double));
    rc = explicit_stage(it, h, paper);
    if (!rc && paper) { /* velocities and accelerations of stage 2 kept */
        memcpy(it->vdn, b.a2, (size_t)k * sizeof(double));
        memcpy(it->vn, b.v2, (size_t)k * sizeof(double));
    } else if (!rc) {
        rc = new_acceleration(it, t1, h);
    }
    if (!rc) rc = ld_integ__newton_status(it, ld_integ__trial_finite(it), 0.0, h);
    if (rc) return rc;
    memcpy(it->lamn, it->lam, (size_t)it->m * sizeof(double));
    ld_integ__commit(it, iters);
    return LD_OK;
}

#define TB3_REFUSES                                                                                \
    "tb3 integrates unconstrained systems only; this system has constraints (use genalpha, "       \
    "newmark or a hem method)"

/* The descriptor of the scheme: variant 0 the third-order form, 1 the scheme as printed. */
#define TB3_METHOD(nm, ttl, p, v)                                                                  \
    {                                                                                              \
        .info = {.name = nm,                                                                       \
                 .title = ttl,                                                                     \
                 .order = p,                                                                       \
                 .order_estimate = 2,                                                              \
                 .constraints = 0,                                                                 \
                 .euler = 1,                                                                       \
                 .newton = 1,                                                                      \
                 .refuses = TB3_REFUSES},                                                          \
        .variant = v, .work = tb3_work, .step = tb3_step                                           \
    }

const ld_method_impl ld_method_tb3 =
    TB3_METHOD("tb3",
               "three-stage TR-BDF2 quaternion scheme of Zupan & Zupan in its third-order form "
               "(Magnus correction 1/12)",
               3, 0);
const ld_method_impl ld_method_tb3_paper =
    TB3_METHOD("tb3-paper",
               "the TR-BDF2 quaternion scheme as printed (correction 1/48 on the half angle, "
               "stage-2 velocities kept): second order",
               2, 1);

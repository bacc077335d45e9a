/* The HHT α-method, classical and with the modified Newmark velocity of Sherif et al. (2019) on
 * Euler parameters (integrator.h). Unknowns v̇_{n+1} and λ_{n+1}; the common Newton pieces are
 * in integ_residual.c, integ_matrix.c and integ_newton.c. */
#include <stddef.h>
#include <string.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"
#include "nodes.h"

static int modified(const ld_integ *it) {
    return it->meth->variant;
}

/* The method's own work space: the force history fo = (g + Bᵀλ)_n of the last accepted state
 * (carried from step to step), its copy while a step is tried, the acceleration at which the
 * stiffness is taken; and β = ¼(1 − α)², γ = ½ − α (Sherif et al. 2019, eq. 19). */
typedef struct hht {
    double *fo, *fo_old, *acc;
    double beta, gamma;
} hht;

static hht hht_of(const ld_integ *it) {
    size_t k = (size_t)it->k;
    double a = it->o.alpha;
    hht c = {it->ws, it->ws + k, it->ws + 2 * k, 0.25 * (1.0 - a) * (1.0 - a), 0.5 - a};
    return c;
}

static size_t hht_work(const ld_system *s, size_t *keep) {
    *keep = (size_t)s->k;
    return 3 * (size_t)s->k;
}

/* The Euler-parameter operations of node nd; NULL for a node without them. */
static const ld_node_ep *node_ep(const ld_system *s, int nd) {
    return ld_node_kind_get(s->nodes[nd].kind)->ep;
}

/* w = L(e_n)(ė_n + h(1 − γ) ë_n) of eqs. 34 and 70 for the Euler parameters at offsets
 * (qo, vo) of the old state; fixed during the step. */
static void old_w(const ld_integ *it, const ld_node_ep *ep, size_t qo, size_t vo, double h,
                  double w[3]) {
    double u[4], gamma = hht_of(it).gamma;
    for (size_t j = 0; j < 4; ++j) u[j] = it->v[vo + j] + h * (1.0 - gamma) * it->vd[vo + j];
    ep->Lmul(w, it->q + qo, u);
}

/* The modified velocity of eq. 34 on one Euler-parameter node: ė = L(e)ᵀ w + hγ (ë − e (eᵀë))
 * with w = L(e_n)(ė_n + h(1 − γ) ë_n) and e, ë those of t_{n+1}. */
static void modified_velocity(const ld_integ *it, const ld_node *nd, const ld_node_ep *ep,
                              double h) {
    size_t qo = (size_t)(nd->qoff + ep->off), vo = (size_t)(nd->voff + ep->off);
    double w[3];
    old_w(it, ep, qo, vo, h, w);
    ep->modified_velocity(it->vn + vo, it->qn + qo, it->vdn + vo, w, h * hht_of(it).gamma);
}

/* Position increment, configuration and velocity of t_{n+1} from v̇_{n+1} (eqs. 59–60, and
 * eq. 34 on the Euler parameters of hht-modified). */
static void kinematics(ld_integ *it, double h) {
    const ld_system *s = it->s;
    hht c = hht_of(it);
    double h2 = h * h, b = c.beta, g = c.gamma;
    for (int i = 0; i < it->k; ++i) {
        it->xi[i] = h * it->v[i] + h2 * (0.5 - b) * it->vd[i] + h2 * b * it->vdn[i];
        it->vn[i] = it->v[i] + h * (1.0 - g) * it->vd[i] + h * g * it->vdn[i];
    }
    ld_sys_retract(s, it->qn, it->q, it->xi);
    if (!modified(it)) return;
    for (int i = 0; i < s->nnodes; ++i)
        if (node_ep(s, i)) modified_velocity(it, &s->nodes[i], node_ep(s, i), h);
}

/* S += C (J₁ − hγ I) on the Euler-parameter columns: J₁ = ∂ė_{n+1}/∂ë_{n+1} of eq. 69,
 *   h²β ŵ + hγ (I − e eᵀ) − h³γβ (e ëᵀ + (eᵀë) I),
 * where the assembled matrix holds C hγ. */
static void modified_jacobian(ld_integ *it, double h) {
    const ld_system *s = it->s;
    size_t k = (size_t)it->k, n = (size_t)it->n;
    hht co = hht_of(it);
    double hb = h * h * co.beta, hg = h * co.gamma;
    for (int nd = 0; nd < s->nnodes; ++nd) {
        const ld_node_ep *ep = node_ep(s, nd);
        if (!ep) continue;
        size_t o = (size_t)(s->nodes[nd].voff + ep->off),
               qo = (size_t)(s->nodes[nd].qoff + ep->off);
        double w[3], D[16];
        old_w(it, ep, qo, o, h, w);
        ep->modified_jacobian(D, it->qn + qo, it->vdn + o, w, hb, hg);
        for (size_t i = 0; i < k; ++i) {
            const double *Ci = it->C + i * k + o;
            double *Si = it->S + i * n + o;
            for (int c = 0; c < 4; ++c)
                Si[c] += Ci[0] * D[c] + Ci[1] * D[4 + c] + Ci[2] * D[8 + c] + Ci[3] * D[12 + c];
        }
    }
}

/* The dynamic rows of eq. 62 times (1 + α) from the residual r = M v̇ + g + Bᵀλ of integ_residual.c:
 * r − α/(1 + α) (M v̇ + f_n), f_n = (g + Bᵀλ)_n. */
static void hht_residual(ld_integ *it) {
    size_t k = (size_t)it->k;
    double c = it->o.alpha / (1.0 + it->o.alpha);
    const double *fo = hht_of(it).fo;
    double *mv = hht_of(it).acc; /* scratch here: set again before the assembly */
    if (c == 0.0) return;
    memset(mv, 0, k * sizeof(double));
    ld_integ__mass_times(it, it->vdn, mv, NULL);
    for (size_t i = 0; i < k; ++i) it->r[i] -= c * (mv[i] + fo[i]);
}

/* One Newton iteration on (v̇_{n+1}, λ_{n+1}); *err the correction norm, *at_roundoff as in
 * genalpha.c. The matrix is the one of eq. 65 scaled by D_L = diag(βh² I, I),
 * D_R = diag(I, I/(βh²)): [M/(1 + α) + βh² K T + C J₁, Bᵀ; B T, 0]. */
static int newton_iteration(ld_integ *it, double t1, double h, double *err, int *at_roundoff) {
    int k = it->k, m = it->m;
    hht c = hht_of(it);
    double bh2 = c.beta * h * h, a1 = 1.0 + it->o.alpha;
    it->bh2 = bh2;
    kinematics(it, h);
    int rc = ld_integ__residual(it, t1);
    if (rc) return rc;
    hht_residual(it);
    for (int i = 0; i < k; ++i) c.acc[i] = it->vdn[i] / a1; /* K at M v̇/(1 + α) */
    rc = ld_integ__assemble(it, t1, 1.0 / a1, h * c.gamma, bh2, c.acc);
    if (rc) return rc;
    if (modified(it)) modified_jacobian(it, h);
    rc = ld_integ__correction(it, at_roundoff);
    if (rc) return rc;
    for (int i = 0; i < k; ++i) it->vdn[i] += it->dx[i] / bh2;
    for (int i = 0; i < m; ++i) it->lamn[i] += it->dx[k + i];
    *err = ld_integ__correction_norm(it, it->xi);
    return ld_integ__correction_finite(it);
}

/* fo = g + Bᵀλ at (t, q, v, λ) (q, v, λ: it->qn, it->vn, it->lamn or the state). */
static int force_history(ld_integ *it, double t, const double *q, const double *v,
                         const double *lam) {
    const ld_system *s = it->s;
    double *fo = hht_of(it).fo;
    int rc = s->ops.force(s, t, q, v, fo);
    if (!rc) rc = ld_integ__add_bt_lambda(it, t, q, lam, fo);
    return rc;
}

static int hht_init(ld_integ *it) {
    int rc = force_history(it, it->t, it->q, it->v, it->lam);
    if (!rc) rc = ld_integ__finite(it, hht_of(it).fo, (size_t)it->k, "non-finite force history");
    return rc;
}

static int hht_step(ld_integ *it, double t1) {
    double h = t1 - it->t;
    size_t k = (size_t)it->k;
    hht c = hht_of(it);
    memcpy(it->vdn, it->vd, k * sizeof(double)); /* predictor: constant acceleration */
    memcpy(it->lamn, it->lam, (size_t)it->m * sizeof(double));
    int i = 0, rc = ld_integ__newton(it, t1, h, newton_iteration, &i);
    if (rc) return rc;
    /* the state of the final v̇, and its force history (kept apart until it succeeds) */
    kinematics(it, h);
    memcpy(c.fo_old, c.fo, k * sizeof(double));
    rc = ld_integ__trial_finite(it);
    if (!rc) rc = force_history(it, t1, it->qn, it->vn, it->lamn);
    if (!rc) rc = ld_integ__finite(it, c.fo, k, "non-finite force history g + B'λ");
    if (rc) {
        memcpy(c.fo, c.fo_old, k * sizeof(double));
        return ld_integ__newton_status(it, rc, 0.0, h);
    }
    ld_integ__commit(it, i);
    return LD_OK;
}

static const ld_method_param hht_params[] = {
    {"alpha", "--alpha", offsetof(ld_integ_options, alpha), -1.0 / 3.0, 0.0, -0.1, "[-1/3, 0]",
     "HHT damping parameter alpha (0: Newmark's trapezoidal rule; more negative: more damping)"},
};

const ld_method_impl ld_method_hht = {
    .info = {.name = "hht",
             .title = "Hilber-Hughes-Taylor alpha-method in the form of Negrut et al. (2005), "
                      "index-3 constraints",
             .order = 2,
             .nparams = 1,
             .params = hht_params,
             .constraints = 1,
             .euler = 1,
             .newton = 1,
             .refuses = ""},
    .work = hht_work,
    .init = hht_init,
    .step = hht_step,
};

const ld_method_impl ld_method_hht_modified = {
    .info = {.name = "hht-modified",
             .title =
                 "HHT with the modified Newmark velocity of the Euler parameters (Sherif, "
                 "Nachbagauer, Steiner & Lauss 2019); equal to hht on the Lie-group formulations",
             .order = 2,
             .nparams = 1,
             .params = hht_params,
             .constraints = 1,
             .euler = 1,
             .newton = 1,
             .refuses = ""},
    .variant = 1,
    .work = hht_work,
    .init = hht_init,
    .step = hht_step,
};

/*
 * Element `spring-damper` (docs/elements.md): a force along the line between a point of body1
 * (or the ground) and a point of body2. With the points P_i = x_i + R_i p_i, d = P2 − P1,
 * l = |d|, n = d/l, the tension
 *   s = k (l − l0) + f0 + c l̇        or, with a curve,   s = f(l) + f0 + c l̇,
 * f piecewise linear through the points (l_j, f_j), extended by its end pieces, acts as the
 * generalized force F = Jᵀ s with J = ∂l/∂(δθ1, δx1, δθ2, δx2) = nᵀ [R1 hat(p1), −I,
 * −R2 hat(p2), I] (a strain of one component, el_strain.c). The energy is
 * ½ k (l − l0)² + f0 (l − l0), or ∫ f from l0 to l plus f0 (l − l0).
 *
 * Parameters (ld_element.par): at1[3], at2[3] (spatial, initial configuration), k, c, l0, f0,
 * then the curve's points l_0, f_0, l_1, f_1, … (npar = 10 + 2 · points).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "elements.h"
#include "liedyn/liedyn.h"
#include "../read/reader.h"
#include "../core/oom.h"

enum { P_AT1 = 0, P_AT2 = 3, P_K = 6, P_C, P_L0, P_F0, P_CURVE };

/* ---------------------------------------------------------------- the curve */

/* f(l) and its slope: piecewise linear through the n points, extended by the end pieces. */
static double curve_eval(const double *pts, int n, double l, double *slope) {
    int j = 0;
    while (j < n - 2 && l >= pts[2 * (j + 1)]) ++j;
    double l0 = pts[2 * j], f0 = pts[2 * j + 1], l1 = pts[2 * j + 2], f1 = pts[2 * j + 3];
    *slope = (f1 - f0) / (l1 - l0);
    return f0 + *slope * (l - l0);
}

/* ∫ f from the first point to l. */
static double curve_prim(const double *pts, int n, double l) {
    double acc = 0.0, slope;
    int j = 0;
    for (; j < n - 2 && l >= pts[2 * (j + 1)]; ++j) /* whole pieces before l */
        acc += 0.5 * (pts[2 * j + 1] + pts[2 * j + 3]) * (pts[2 * j + 2] - pts[2 * j]);
    double fl = curve_eval(pts, n, l, &slope);
    return acc + 0.5 * (pts[2 * j + 1] + fl) * (l - pts[2 * j]);
}

/* ---------------------------------------------------------------- kinematics */

typedef struct spring_kin {
    double R1[9], R2[9], p1[3], p2[3], d[3], l, n[3];
} spring_kin;

/* D u = ux2 − ux1 − R2 (p2 × u2) + R1 (p1 × u1). */
static void d_mul(const spring_kin *k, const double u[12], double out[3]) {
    double a[3], b[3], Ra[3], Rb[3];
    ld_v3_cross(a, k->p1, u);
    ld_v3_cross(b, k->p2, u + 6);
    ld_m3_mulv(Ra, k->R1, a);
    ld_m3_mulv(Rb, k->R2, b);
    for (int i = 0; i < 3; ++i) out[i] = u[9 + i] - u[3 + i] - Rb[i] + Ra[i];
}

/* H(π, u) = dnᵀ (D u) + nᵀ (R1 (π1 × (p1 × u1)) − R2 (π2 × (p2 × u2))), dn = (I − n nᵀ) D π / l,
 * as the gradient row = ∂/∂π [w H(π, u)] (elements.h; n = 1):
 *   w (Dᵀ y + (c1 × R1ᵀn on π1's rotation) − (c2 × R2ᵀn on π2's)),  y = (I − n nᵀ) D u / l,
 * ci = pi × ui, Dᵀ y = ((R1ᵀy) × p1, −y, −(R2ᵀy) × p2, y). */
static void spring_hess_row(const void *kin, int n, const double *w, const double u[12],
                            double row[12]) {
    const spring_kin *k = kin;
    (void)n;
    double Du[3], y[3], t[3], c[3], Rn[3];
    d_mul(k, u, Du);
    double nu = ld_v3_dot(k->n, Du);
    for (int i = 0; i < 3; ++i) y[i] = (Du[i] - nu * k->n[i]) / k->l;
    ld_m3_tmulv(t, k->R1, y);
    ld_v3_cross(row, t, k->p1);
    ld_m3_tmulv(t, k->R2, y);
    ld_v3_cross(row + 6, k->p2, t);
    ld_v3_cross(c, k->p1, u);
    ld_m3_tmulv(Rn, k->R1, k->n);
    ld_v3_cross(t, c, Rn);
    for (int i = 0; i < 3; ++i) row[i] += t[i], row[3 + i] = -y[i], row[9 + i] = y[i];
    ld_v3_cross(c, k->p2, u + 6);
    ld_m3_tmulv(Rn, k->R2, k->n);
    ld_v3_cross(t, c, Rn);
    for (int i = 0; i < 3; ++i) row[6 + i] -= t[i];
    for (int i = 0; i < 12; ++i) row[i] *= w[0];
}

/* The strain l of the element at c. LD_RETRY when the points meet or the length is not finite
 * (no direction: a smaller step of the integrator may avoid the configuration). */
static int spring_strain(const ld_el_ctx *c, spring_kin *k, ld_el_strain *s) {
    const double *par = c->el->par;
    double P[2][3];
    ld_el_body_point(c->m, c->el->body1, par + P_AT1, k->p1);
    ld_el_body_point(c->m, c->el->body2, par + P_AT2, k->p2);
    memcpy(k->R1, c->R[0], sizeof k->R1);
    memcpy(k->R2, c->R[1], sizeof k->R2);
    ld_m3_mulv(P[0], k->R1, k->p1);
    ld_m3_mulv(P[1], k->R2, k->p2);
    for (int i = 0; i < 3; ++i) k->d[i] = c->x[1][i] + P[1][i] - c->x[0][i] - P[0][i];
    k->l = ld_v3_norm(k->d);
    if (!(k->l > 0.0) || !isfinite(k->l)) return LD_RETRY;
    for (int i = 0; i < 3; ++i) k->n[i] = k->d[i] / k->l;
    s->n = 1;
    s->e[0] = k->l;
    s->kin = k;
    s->hess_row = spring_hess_row;
    s->hmask = 07777u;
    for (int j = 0; j < 12; ++j) {
        double u[12] = {0}, Du[3];
        u[j] = 1.0;
        d_mul(k, u, Du);
        s->J[j] = ld_v3_dot(k->n, Du);
    }
    return LD_OK;
}

static int spring_eval(const ld_el_ctx *c, unsigned want, ld_el_out *o) {
    const double *par = c->el->par;
    int npts = (c->el->npar - P_CURVE) / 2;
    spring_kin k;
    ld_el_strain s;
    int rc = spring_strain(c, &k, &s);
    if (rc) return rc;
    double l = k.l, l0 = par[P_L0], slope = par[P_K], ed[6];
    double fel = npts >= 2 ? curve_eval(par + P_CURVE, npts, l, &slope) : par[P_K] * (l - l0);
    if (want & LD_EL_ENERGY)
        o->V += par[P_F0] * (l - l0) + (npts >= 2 ? curve_prim(par + P_CURVE, npts, l) -
                                                        curve_prim(par + P_CURVE, npts, l0)
                                                  : 0.5 * par[P_K] * (l - l0) * (l - l0));
    if (!(want & (LD_EL_FORCE | LD_EL_GQ | LD_EL_GV))) return LD_OK;
    ld_el_strain_rate(&s, c->vel, ed);
    double sig[1] = {fel + par[P_F0] + par[P_C] * ed[0]}, Se[1] = {slope}, Sd[1] = {par[P_C]};
    ld_el_strain_apply(&s, sig, Se, Sd, c->vel, want, o);
    return LD_OK;
}

/* ---------------------------------------------------------------- checks */

static int spring_check(const ld_model *m, const ld_element *el, char *key, size_t nk, char *why,
                        size_t nw) {
    const double *p = el->par;
    const char *names[] = {"k", "c", "l0"};
    if (el->npar < P_CURVE || (el->npar - P_CURVE) % 2 != 0) {
        snprintf(key, nk, "type");
        snprintf(why, nw, "a spring-damper has 10 + 2 n parameters, found %d", el->npar);
        return LD_EINVAL;
    }
    for (int i = 0; i < el->npar; ++i)
        if (!isfinite(p[i])) {
            snprintf(key, nk, "%s", i < P_AT2 ? "at1" : i < P_K ? "at2" : "curve");
            snprintf(why, nw, "every number must be finite");
            return LD_EINVAL;
        }
    for (int i = 0; i < 3; ++i)
        if (!(p[P_K + i] >= 0.0)) {
            snprintf(key, nk, "%s", names[i]);
            snprintf(why, nw, "must be finite and >= 0, found %.17g", p[P_K + i]);
            return LD_EINVAL;
        }
    int npts = (el->npar - P_CURVE) / 2;
    if (npts == 1) {
        snprintf(key, nk, "curve");
        snprintf(why, nw, "a curve needs at least 2 points, found 1");
        return LD_EINVAL;
    }
    for (int j = 1; j < npts; ++j)
        if (!(p[P_CURVE + 2 * j] > p[P_CURVE + 2 * j - 2])) {
            snprintf(key, nk, "curve[%d]", j);
            snprintf(why, nw, "lengths must increase strictly, but %.17g follows %.17g",
                     p[P_CURVE + 2 * j], p[P_CURVE + 2 * j - 2]);
            return LD_EINVAL;
        }
    double d[3];
    for (int i = 0; i < 3; ++i) d[i] = p[P_AT2 + i] - p[P_AT1 + i];
    (void)m;
    if (!(ld_v3_norm(d) > 0.0)) {
        snprintf(key, nk, "at2");
        snprintf(why, nw, "must differ from at1 (the spring needs a direction at the start)");
        return LD_EINVAL;
    }
    return LD_OK;
}

/* ---------------------------------------------------------------- reader */

static const char *const spring_keys[] = {"at1", "at2", "k", "c", "l0", "f0", "curve", NULL};

/* The curve's points into *pts (2 per point), *n points. */
static int read_curve(reader *r, const yaml_node_t *map, double **pts, int *n) {
    field f;
    size_t mark = ly_push_key(r, "curve");
    int rc = ly_lookup(r, map, "curve", 0, &f);
    if (!rc && f.val) rc = ly_expect_seq(r, f.val, f.line, "[length, force] points");
    int np = !rc && f.val ? ly_seq_len(f.val) : 0;
    if (!rc && np > 0 && !(*pts = ld_xcalloc(2 * (size_t)np, sizeof **pts, "the spring's curve")))
        rc = ly_out_of_memory(r, f.line);
    for (int j = 0; !rc && j < np; ++j) {
        size_t im = ly_push_index(r, j);
        yaml_node_t *it = ly_seq_item(r, f.val, j);
        double *v = NULL;
        int cnt = 0;
        rc = ly_read_list(r, (field){it, ly_line_of(it)}, &v, &cnt);
        if (!rc && cnt != 2)
            rc = ly_fail(r, ly_line_of(it), "expected a point [length, force], found %d numbers",
                         cnt);
        if (!rc) memcpy(*pts + 2 * j, v, 2 * sizeof(double));
        free(v);
        ly_pop(r, im);
    }
    *n = np;
    ly_pop(r, mark);
    return rc;
}

/* Is key given (with a value) in map? */
static int given(reader *r, const yaml_node_t *map, const char *key, int *line) {
    field f;
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, 0, &f);
    ly_pop(r, mark);
    *line = f.line;
    return !rc && f.val;
}

static int spring_read(reader *r, const yaml_node_t *n, const ld_model *m, ld_element *el) {
    double at1[3], at2[3], k = 0.0, c = 0.0, l0 = NAN, f0 = 0.0, R[9], *pts = NULL;
    int np = 0, rc, line;
    ld_el_pose0(m, el->body1, R, at1);
    ld_el_pose0(m, el->body2, R, at2);
    if ((rc = ly_get_vec(r, n, "at1", 0, at1, 3, NULL))) return rc;
    if ((rc = ly_get_vec(r, n, "at2", 0, at2, 3, NULL))) return rc;
    if ((rc = ly_get_number(r, n, "k", 0, &k))) return rc;
    if ((rc = ly_get_number(r, n, "c", 0, &c))) return rc;
    if ((rc = ly_get_number(r, n, "l0", 0, &l0))) return rc;
    if ((rc = ly_get_number(r, n, "f0", 0, &f0))) return rc;
    rc = read_curve(r, n, &pts, &np);
    if (!rc && np > 0 && given(r, n, "k", &line)) {
        size_t mark = ly_push_key(r, "curve");
        (void)given(r, n, "curve", &line);
        rc = ly_fail(r, line, "replaces k (l - l0); give one of them");
        ly_pop(r, mark);
    }
    if (!rc && !(el->par = ld_xmalloc((size_t)(P_CURVE + 2 * np) * sizeof(double),
                                      "the element's parameters")))
        rc = ly_out_of_memory(r, ly_line_of(n));
    if (rc) {
        free(pts);
        return rc;
    }
    if (isnan(l0)) { /* the length at the start */
        double d[3];
        for (int i = 0; i < 3; ++i) d[i] = at2[i] - at1[i];
        l0 = ld_v3_norm(d);
    }
    memcpy(el->par + P_AT1, at1, sizeof at1);
    memcpy(el->par + P_AT2, at2, sizeof at2);
    el->par[P_K] = k, el->par[P_C] = c, el->par[P_L0] = l0, el->par[P_F0] = f0;
    if (np > 0) memcpy(el->par + P_CURVE, pts, 2 * (size_t)np * sizeof(double));
    el->npar = P_CURVE + 2 * np;
    free(pts);
    return LD_OK;
}

/* No damping c (the curve and the preload derive from the energy the element reports). */
static int spring_conservative(const ld_element *el) {
    return el->par[P_C] == 0.0;
}

const ld_el_type ld_el_spring_damper = {
    .name = "spring-damper",
    .summary = "force along the line between two points: k (l - l0) + f0 + c dl/dt, or a curve",
    .bodies = 2,
    .keys = spring_keys,
    .read = spring_read,
    .check = spring_check,
    .eval = spring_eval,
    .conservative = spring_conservative,
};

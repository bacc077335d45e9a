/*
 * Element `rotational-spring-damper` (docs/elements.md): a torque from the relative rotation of
 * two bodies' frames. The frames are fixed in body1 (or the ground) and body2 and coincide
 * with the spatial axes at the start; θ = log(AᵀB) is the rotation vector of B relative to A
 * (el_frames.c, |θ| ≤ π), zero at the start. With S = I, or S = a aᵀ for a spring about the
 * unit axis a only (given spatial at the start, fixed in body1: a hinge spring),
 *   σ = k (S θ − φ₀ a) + c S θ̇,   F = J_θᵀ σ,   V = ½ k (θᵀ S θ − 2 φ₀ a·θ + φ₀²),
 * θ̇ = J_θ vel the rate of the rotation vector (a Rayleigh dissipation ½ c θ̇ᵀ S θ̇). About a
 * hinge's axis θ = φ a, so the torque is −k (φ − φ₀) − c φ̇ about it: φ₀ the rest angle (the
 * spring relaxed at φ = φ₀; axis springs only, |φ₀| < π; MJCF's springref − ref).
 *
 * Parameters (ld_element.par): k, c, axis[3] (zero: every direction), and optionally φ₀
 * (npar 6; 0 when absent).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "elements.h"
#include "liedyn/liedyn.h"
#include "../read/reader.h"
#include "../core/oom.h"

enum { P_K = 0, P_C, P_AXIS, P_REST = 5, NPAR = 6 };

static int rot_eval(const ld_el_ctx *c, unsigned want, ld_el_out *o) {
    const double *par = c->el->par, *a = par + P_AXIS;
    double R[9], x[3], C1[9], C2[9], p0[3] = {0, 0, 0}, S[9], Se[9], Sd[9], th[3], ed[6];
    ld_el_frames f;
    ld_el_strain s;
    ld_el_pose0(c->m, c->el->body1, R, x);
    ld_m3_transpose(C1, R);
    ld_el_pose0(c->m, c->el->body2, R, x);
    ld_m3_transpose(C2, R);
    ld_el_frames_eval(c, C1, C2, p0, p0, 3, &f, &s);
    int iso = ld_v3_norm(a) == 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) S[3 * i + j] = iso ? (i == j) : a[i] * a[j];
    ld_m3_mulv(th, S, f.th);
    double rest = c->el->npar > P_REST && !iso ? par[P_REST] : 0.0;
    for (int i = 0; i < 3 && rest != 0.0; ++i) th[i] -= rest * a[i]; /* S θ − φ₀ a */
    if (want & LD_EL_ENERGY) { /* ½ k (a·θ − φ₀)² about an axis, ½ k θᵀθ in every direction */
        double e = iso ? ld_v3_dot(f.th, th) : ld_v3_dot(th, th);
        o->V += 0.5 * par[P_K] * e;
    }
    if (!(want & (LD_EL_FORCE | LD_EL_GQ | LD_EL_GV))) return LD_OK;
    ld_el_strain_rate(&s, c->vel, ed);
    double sig[3], Sed[3];
    ld_m3_mulv(Sed, S, ed);
    for (int i = 0; i < 3; ++i) sig[i] = par[P_K] * th[i] + par[P_C] * Sed[i];
    for (int i = 0; i < 9; ++i) Se[i] = par[P_K] * S[i], Sd[i] = par[P_C] * S[i];
    ld_el_strain_apply(&s, sig, Se, Sd, c->vel, want, o);
    return LD_OK;
}

static int rot_check(const ld_model *m, const ld_element *el, char *key, size_t nk, char *why,
                     size_t nw) {
    (void)m;
    const double *p = el->par;
    if (el->npar != NPAR && el->npar != NPAR - 1) {
        snprintf(key, nk, "type");
        snprintf(why, nw, "a rotational spring-damper has %d or %d parameters, found %d", NPAR - 1,
                 NPAR, el->npar);
        return LD_EINVAL;
    }
    for (int i = 0; i < 2; ++i)
        if (!(p[i] >= 0.0) || !isfinite(p[i])) {
            snprintf(key, nk, "%s", i == P_K ? "k" : "c");
            snprintf(why, nw, "must be finite and >= 0, found %.17g", p[i]);
            return LD_EINVAL;
        }
    double n = ld_v3_norm(p + P_AXIS);
    if (!isfinite(n) || (n != 0.0 && fabs(n - 1.0) > 1e-10)) {
        snprintf(key, nk, "axis");
        snprintf(why, nw, "must be a unit vector (or zero for every direction)");
        return LD_EINVAL;
    }
    double rest = el->npar == NPAR ? p[P_REST] : 0.0;
    if (!isfinite(rest) || fabs(rest) >= 3.14159265358979323846 || (rest != 0.0 && n == 0.0)) {
        snprintf(key, nk, "angle0");
        snprintf(why, nw, "%s, found %.17g",
                 n == 0.0 ? "a rest angle needs an axis (the spring of a hinge)"
                          : "must lie within (-pi, pi) rad (the rotation vector wraps at pi)",
                 rest);
        return LD_EINVAL;
    }
    return LD_OK;
}

static const char *const rot_keys[] = {"k", "c", "axis", "angle0", NULL};

static int rot_read(reader *r, const yaml_node_t *n, const ld_model *m, ld_element *el) {
    (void)m;
    double par[NPAR] = {0, 0, 0, 0, 0, 0}, s = 0.0;
    int rc, has_axis = 0;
    if ((rc = ly_get_number(r, n, "k", 0, &par[P_K]))) return rc;
    if ((rc = ly_get_number(r, n, "c", 0, &par[P_C]))) return rc;
    if ((rc = ly_get_vec(r, n, "axis", 0, par + P_AXIS, 3, &has_axis))) return rc;
    if ((rc = ly_get_number(r, n, "angle0", 0, &par[P_REST]))) return rc;
    for (int i = 0; i < 3; ++i) s = fmax(s, fabs(par[P_AXIS + i]));
    if (has_axis && s == 0.0) {
        field f;
        size_t mark = ly_push_key(r, "axis");
        (void)ly_lookup(r, n, "axis", 1, &f);
        rc = ly_fail(r, f.line, "must be non-zero (a direction; it is normalized)");
        ly_pop(r, mark);
        return rc;
    }
    if (has_axis) {
        for (int i = 0; i < 3; ++i) par[P_AXIS + i] /= s;
        double nn = ld_v3_norm(par + P_AXIS);
        for (int i = 0; i < 3; ++i) par[P_AXIS + i] /= nn;
    }
    if (!(el->par = ld_xmalloc(sizeof par, "the element's parameters")))
        return ly_out_of_memory(r, ly_line_of(n));
    memcpy(el->par, par, sizeof par);
    el->npar = NPAR;
    return LD_OK;
}

/* No damping c. */
static int rotational_conservative(const ld_element *el) {
    return el->par[P_C] == 0.0;
}

const ld_el_type ld_el_rotational = {
    .name = "rotational-spring-damper",
    .summary = "torque k theta + c dtheta/dt on the relative rotation vector, or about one axis "
               "(rest angle angle0)",
    .bodies = 2,
    .keys = rot_keys,
    .read = rot_read,
    .check = rot_check,
    .eval = rot_eval,
    .conservative = rotational_conservative,
};

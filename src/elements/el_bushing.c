/*
 * Element `bushing` (docs/elements.md): linear 6×6 stiffness K and damping C between two body
 * frames. The bushing frame (origin `at`, axes the rotation `orientation`, both spatial at the
 * start) is fixed in body1 (or the ground) as A and in body2 as B; the strain
 *   e = (θ, r),  θ = log(AᵀB),  r = Aᵀ (origin of B − origin of A)
 * (rotation first, as every 6-vector of liedyn; el_frames.c) is zero at the start, and
 *   σ = K e + C ė,   F = Jᵀ σ,   V = ½ eᵀ K e,
 * with ė = J vel the strain rate (a Rayleigh dissipation ½ ėᵀ C ė). K and C are symmetric.
 *
 * Parameters (ld_element.par): at[3], orientation[4] (w, x, y, z; unit), K[36], C[36]
 * (row-major, npar = 79).
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

enum { P_AT = 0, P_Q = 3, P_K = 7, P_C = 43, NPAR = 79 };

static int bushing_eval(const ld_el_ctx *c, unsigned want, ld_el_out *o) {
    const double *par = c->el->par;
    double Q[9], R[9], x[3], C1[9], C2[9], p1[3], p2[3], ed[6], sig[6];
    ld_el_frames f;
    ld_el_strain s;
    ld_quat_to_mat(Q, par + P_Q);
    double Rt[9]; /* C_i = R_i(0)ᵀ Q: the bushing frame in body i */
    ld_el_pose0(c->m, c->el->body1, R, x);
    ld_m3_transpose(Rt, R);
    ld_m3_mul(C1, Rt, Q);
    ld_el_body_point(c->m, c->el->body1, par + P_AT, p1);
    ld_el_pose0(c->m, c->el->body2, R, x);
    ld_m3_transpose(Rt, R);
    ld_m3_mul(C2, Rt, Q);
    ld_el_body_point(c->m, c->el->body2, par + P_AT, p2);
    ld_el_frames_eval(c, C1, C2, p1, p2, 6, &f, &s);
    const double *K = par + P_K, *D = par + P_C;
    if (want & LD_EL_ENERGY)
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) o->V += 0.5 * s.e[i] * K[6 * i + j] * s.e[j];
    if (!(want & (LD_EL_FORCE | LD_EL_GQ | LD_EL_GV))) return LD_OK;
    ld_el_strain_rate(&s, c->vel, ed);
    for (int i = 0; i < 6; ++i) {
        sig[i] = 0.0;
        for (int j = 0; j < 6; ++j) sig[i] += K[6 * i + j] * s.e[j] + D[6 * i + j] * ed[j];
    }
    ld_el_strain_apply(&s, sig, K, D, c->vel, want, o);
    return LD_OK;
}

/* A 6×6 matrix: finite, symmetric (to 1e-12 of its largest entry), diagonal ≥ 0. */
static const char *check_matrix(const double *M) {
    double big = 0.0;
    for (int i = 0; i < 36; ++i) {
        if (!isfinite(M[i])) return "every number must be finite";
        big = fmax(big, fabs(M[i]));
    }
    for (int i = 0; i < 6; ++i) {
        if (!(M[7 * i] >= 0.0)) return "its diagonal must be >= 0";
        for (int j = 0; j < i; ++j)
            if (fabs(M[6 * i + j] - M[6 * j + i]) > 1e-12 * big) return "must be symmetric";
    }
    return NULL;
}

static int bushing_check(const ld_model *m, const ld_element *el, char *key, size_t nk, char *why,
                         size_t nw) {
    (void)m;
    const double *p = el->par;
    const char *bad = NULL, *k = NULL;
    if (el->npar != NPAR)
        k = "type", bad = "a bushing has 79 parameters";
    else if (!isfinite(ld_v3_norm(p + P_AT)))
        k = "at", bad = "every number must be finite";
    else if (!(fabs(ld_quat_norm(p + P_Q) - 1.0) <= 1e-10))
        k = "orientation", bad = "must be a unit quaternion";
    else if ((bad = check_matrix(p + P_K)))
        k = "stiffness";
    else if ((bad = check_matrix(p + P_C)))
        k = "damping";
    if (!bad) return LD_OK;
    snprintf(key, nk, "%s", k);
    snprintf(why, nw, "%s", bad);
    return LD_EINVAL;
}

/* A 6×6 matrix under key: 6 numbers (the diagonal) or 36 (row-major). */
static int read_matrix(reader *r, const yaml_node_t *n, const char *key, double *M) {
    field f;
    double *v = NULL;
    int cnt = 0;
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, n, key, 0, &f);
    if (!rc && f.val) rc = ly_read_list(r, f, &v, &cnt);
    if (!rc && f.val && cnt != 6 && cnt != 36)
        rc = ly_fail(r, f.line,
                     "expected 6 (the diagonal) or 36 (a row-major 6x6 matrix) numbers, found %d",
                     cnt);
    if (!rc && cnt == 6)
        for (int i = 0; i < 6; ++i) M[7 * i] = v[i];
    if (!rc && cnt == 36) memcpy(M, v, 36 * sizeof(double));
    free(v);
    ly_pop(r, mark);
    return rc;
}

static const char *const bushing_keys[] = {"at", "orientation", "stiffness", "damping", NULL};

static int bushing_read(reader *r, const yaml_node_t *n, const ld_model *m, ld_element *el) {
    double par[NPAR] = {0}, R[9], s = 0.0;
    int rc, has_q = 0;
    ld_el_pose0(m, el->body2, R, par + P_AT);
    par[P_Q] = 1.0;
    if ((rc = ly_get_vec(r, n, "at", 0, par + P_AT, 3, NULL))) return rc;
    if ((rc = ly_get_vec(r, n, "orientation", 0, par + P_Q, 4, &has_q))) return rc;
    for (int i = 0; i < 4; ++i) s = fmax(s, fabs(par[P_Q + i]));
    if (has_q && s == 0.0) {
        field f;
        size_t mark = ly_push_key(r, "orientation");
        (void)ly_lookup(r, n, "orientation", 1, &f);
        rc = ly_fail(r, f.line, "must be non-zero (a quaternion w, x, y, z; it is normalized)");
        ly_pop(r, mark);
        return rc;
    }
    double qn[4] = {1, 0, 0, 0};
    if (has_q) (void)ld_quat_normalize(qn, par + P_Q);
    memcpy(par + P_Q, qn, sizeof qn);
    if ((rc = read_matrix(r, n, "stiffness", par + P_K))) return rc;
    if ((rc = read_matrix(r, n, "damping", par + P_C))) return rc;
    if (!(el->par = ld_xmalloc(sizeof par, "the bushing's parameters")))
        return ly_out_of_memory(r, ly_line_of(n));
    memcpy(el->par, par, sizeof par);
    el->npar = NPAR;
    return LD_OK;
}

/* A zero damping matrix. */
static int bushing_conservative(const ld_element *el) {
    for (int i = 0; i < 36; ++i)
        if (el->par[P_C + i] != 0.0) return 0;
    return 1;
}

const ld_el_type ld_el_bushing = {
    .name = "bushing",
    .summary = "6x6 stiffness and damping on the relative rotation vector and position",
    .bodies = 2,
    .keys = bushing_keys,
    .read = bushing_read,
    .check = bushing_check,
    .eval = bushing_eval,
    .conservative = bushing_conservative,
};

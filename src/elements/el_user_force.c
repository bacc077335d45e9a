/*
 * Element `user-force` (docs/elements.md): a program's callback w = (f1, τ1, f2, τ2)(t, bodies)
 * with forces and torques in the spatial frame, torques about the centres of mass. Its
 * generalized force in canonical coordinates is F_i = (−R_iᵀ τ_i, −f_i), so with the
 * callback's tangents Wq, Wv (or central differences of the callback on the group, the bodies
 * moved as R exp(δθ), x + δx, when it gives none; el_user_cache.c computes them, and calls a
 * vectorized force once for all its instances):
 *   Kq = −[R_iᵀ ∂τ_i; ∂f_i] − hat(R_iᵀ τ_i) in body i's δθ columns,   Kv = −[R_iᵀ ∂τ_i; ∂f_i].
 * No energy (V = 0). Added by ld_model_add_user_force; a model file cannot hold one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "elements.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

/* The bodies as the callback sees them. */
static void motions(const ld_el_ctx *c, const double vel[12], ld_body_motion b[2]) {
    for (int i = 0; i < 2; ++i) {
        memcpy(b[i].x, c->x[i], sizeof b[i].x);
        memcpy(b[i].R, c->R[i], sizeof b[i].R);
        memcpy(b[i].omega, vel + 6 * i, sizeof b[i].omega);
        memcpy(b[i].xdot, vel + 6 * i + 3, sizeof b[i].xdot);
    }
}

/* dst (12×12) += −[R_iᵀ W(τ_i rows); W(f_i rows)] per body. */
static void add_mapped(const ld_el_ctx *c, const double *W, double *dst) {
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 12; ++j) {
            double col[3] = {W[12 * (6 * i + 3) + j], W[12 * (6 * i + 4) + j],
                             W[12 * (6 * i + 5) + j]};
            double rt[3];
            ld_m3_tmulv(rt, c->R[i], col);
            for (int r = 0; r < 3; ++r) {
                dst[12 * (6 * i + r) + j] -= rt[r];
                dst[12 * (6 * i + 3 + r) + j] -= W[12 * (6 * i + r) + j];
            }
        }
}

static int user_eval(const ld_el_ctx *c, unsigned want, ld_el_out *o) {
    ld_body_motion b[2];
    const double *w, *Wq, *Wv;
    double Rt[2][3];
    if (!(want & (LD_EL_FORCE | LD_EL_GQ | LD_EL_GV))) return LD_OK;
    if (!c->inst) return LD_EINVAL;
    motions(c, c->vel, b);
    int rc = ld_el_user_values(c, b, want, &w, &Wq, &Wv);
    if (rc) return rc;
    for (int i = 0; i < 2; ++i) ld_m3_tmulv(Rt[i], c->R[i], w + 6 * i + 3);
    if (want & LD_EL_FORCE)
        for (int i = 0; i < 2; ++i)
            for (int r = 0; r < 3; ++r)
                o->F[6 * i + r] -= Rt[i][r], o->F[6 * i + 3 + r] -= w[6 * i + r];
    if (want & LD_EL_GV) add_mapped(c, Wv, o->Kv);
    if (!(want & LD_EL_GQ)) return LD_OK;
    add_mapped(c, Wq, o->Kq);
    for (int i = 0; i < 2; ++i) { /* −∂(R_iᵀ τ_i)/∂δθ_i = −hat(R_iᵀ τ_i) */
        double H[9];
        ld_so3_hat(H, Rt[i]);
        for (int r = 0; r < 3; ++r)
            for (int j = 0; j < 3; ++j) o->Kq[12 * (6 * i + r) + 6 * i + j] -= H[3 * r + j];
    }
    return LD_OK;
}

static int user_check(const ld_model *m, const ld_element *el, char *key, size_t nk, char *why,
                      size_t nw) {
    (void)m;
    if (el->fn || (el->fns && el->ngroup >= 1 && el->group >= 0 && el->group < el->ngroup))
        return LD_OK;
    snprintf(key, nk, "type");
    snprintf(why, nw, "a user force needs its callback (ld_model_add_user_force)");
    return LD_EINVAL;
}

static const char *const user_keys[] = {NULL};

const ld_el_type ld_el_user_force = {
    .name = "user-force",
    .summary = "a program's callback f(t, q, v) on two bodies (ld_model_add_user_force)",
    .bodies = 2,
    .keys = user_keys,
    .read = NULL,
    .check = user_check,
    .eval = user_eval,
};

int ld_model_add_user_force(ld_model *m, const char *name, int body1, int body2,
                            ld_user_force_fn fn, ld_user_force_tangent_fn tangent, void *user) {
    if (!m || !fn || body2 < 0 || body2 >= m->nbodies || body1 < LD_GROUND || body1 >= m->nbodies ||
        body1 == body2 || (name && strlen(name) >= LD_NAME_MAX) || m->nelements < 0)
        return LD_EINVAL;
    ld_element *e =
        ld_xrealloc(m->elements, ((size_t)m->nelements + 1) * sizeof *e, "the elements");
    if (!e) return LD_ENOMEM;
    m->elements = e;
    e += m->nelements;
    memset(e, 0, sizeof *e);
    if (name) strcpy(e->name, name);
    e->type = ld_element_type_find(ld_el_user_force.name);
    e->body1 = body1;
    e->body2 = body2;
    e->fn = fn;
    e->tangent = tangent;
    e->user = user;
    m->nelements++;
    return LD_OK;
}

int ld_model_add_user_forces(ld_model *m, const char *name, int n, const int *body1,
                             const int *body2, ld_user_forces_fn fn,
                             ld_user_forces_tangent_fn tangent, void *user) {
    char nm[LD_NAME_MAX];
    if (!m || !fn || !body1 || !body2 || n < 1 || m->nelements < 0 ||
        (name && name[0] && snprintf(nm, sizeof nm, "%s[%d]", name, n - 1) >= (int)sizeof nm))
        return LD_EINVAL;
    for (int i = 0; i < n; ++i)
        if (body2[i] < 0 || body2[i] >= m->nbodies || body1[i] < LD_GROUND ||
            body1[i] >= m->nbodies || body1[i] == body2[i])
            return LD_EINVAL;
    ld_element *e = realloc(m->elements, ((size_t)m->nelements + (size_t)n) * sizeof *e);
    if (!e) return LD_ENOMEM;
    m->elements = e;
    e += m->nelements;
    memset(e, 0, (size_t)n * sizeof *e);
    for (int i = 0; i < n; ++i) {
        if (name && name[0]) snprintf(e[i].name, sizeof e[i].name, "%s[%d]", name, i);
        e[i].type = ld_element_type_find(ld_el_user_force.name);
        e[i].body1 = body1[i];
        e[i].body2 = body2[i];
        e[i].fns = fn;
        e[i].tangents = tangent;
        e[i].user = user;
        e[i].group = i;
        e[i].ngroup = n;
    }
    m->nelements += n;
    return LD_OK;
}

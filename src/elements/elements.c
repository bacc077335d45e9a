/*
 * The registry of force elements (elements.h, docs/elements.md) and its use by the compiled
 * rigid-body system: one loop over the model's elements per operation of the system, each
 * element evaluated in canonical coordinates and mapped to the formulation.
 *
 * Per body, with ξ the formulation's perturbation (q ∘ exp(ξ), or q + ξ for euler) and v its
 * velocity, the canonical perturbation and velocity are P ξ and P v:
 *   direct (so3xr3, s3xr3)   P = I
 *   semidirect (se3, s3sdr3) P = diag(I, R)                 (ẋ = R U)
 *   euler (x, e)             δθ = E(e) δe, δx = δx; E = 2 L(e)/|e|²  (the rotation R(e)/|e|²)
 * so g += Pᵀ F, ∂g/∂v += Pᵀ Kv P and ∂g/∂q += Pᵀ (Kq P + Kv Q) + N, with Q = ∂(P v)/∂ξ at fixed
 * v and N = ∂(Pᵀ F)/∂ξ at fixed F:
 *   semidirect  Q: ẋ rows, Ω columns −R hat(U);   N: U rows, Ω columns hat(Rᵀ f)
 *   euler       Q: Ω rows, e columns −2 L(ė)/|e|² − 4 L(e)ė eᵀ/|e|⁴ (L(e)ė = −L(ė)e);
 *               N: e rows and columns 2 ŵ/|e|² − 4 ŵ e eᵀ/|e|⁴, ŵ e = L(e)ᵀ m.
 * Nothing is allocated.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "elements.h"
#include "../lie/ep.h"
#include "liedyn/liedyn.h"
#include "../model/names.h"
#include "kinds.h"
#include "../core/oom.h"

/* ---------------------------------------------------------------- the registry */

static const ld_el_type *const registry[] = {
    &ld_el_spring_damper, &ld_el_rotational, &ld_el_bushing, &ld_el_user_force, &ld_el_actuator,
};
#define NTYPES ((int)(sizeof registry / sizeof *registry))

const ld_el_type *ld_el_type_get(int type) {
    return type >= 0 && type < NTYPES ? registry[type] : NULL;
}

int ld_element_type_count(void) {
    return NTYPES;
}

const char *ld_element_type_name(int type) {
    return type >= 0 && type < NTYPES ? registry[type]->name : "";
}

int ld_element_type_find(const char *name) {
    for (int i = 0; name && i < NTYPES; ++i)
        if (strcmp(name, registry[i]->name) == 0) return i;
    return -1;
}

/* ---------------------------------------------------------------- shared helpers */

void ld_el_pose0(const ld_model *m, int b, double R[9], double x[3]) {
    static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (b < 0 || b >= m->nbodies) {
        memcpy(R, eye, sizeof eye);
        memset(x, 0, 3 * sizeof(double));
        return;
    }
    double qn[4];
    if (ld_quat_normalize(qn, m->bodies[b].q)) qn[0] = 1.0, qn[1] = qn[2] = qn[3] = 0.0;
    ld_quat_to_mat(R, qn);
    memcpy(x, m->bodies[b].x, 3 * sizeof(double));
}

void ld_el_body_point(const ld_model *m, int b, const double at[3], double p[3]) {
    double R[9], x[3], d[3];
    ld_el_pose0(m, b, R, x);
    for (int i = 0; i < 3; ++i) d[i] = at[i] - x[i];
    ld_m3_tmulv(p, R, d);
}

/* ---------------------------------------------------------------- one body's maps */

typedef struct elbody {
    int body;    /* LD_GROUND: no columns */
    int nv;      /* velocity entries of the node: 0 (ground), 6 or 7 */
    size_t voff; /* the node's velocity offset */
    double R[9], x[3], w[3], xd[3];
    double P[42], Q[42]; /* 6 × nv */
    double e[4], e2;     /* euler: the parameters and |e|² */
} elbody;

static void body_euler(const ld_system *s, const double *q, const double *v, elbody *b) {
    const double *g = q + s->nodes[b->body].qoff, *vb = v ? v + b->voff : NULL;
    double L[12], Ld[12], Le[3];
    memcpy(b->e, g + 3, sizeof b->e);
    b->e2 = b->e[0] * b->e[0] + b->e[1] * b->e[1] + b->e[2] * b->e[2] + b->e[3] * b->e[3];
    ld_ep_rot(b->R, b->e);
    for (int i = 0; i < 9; ++i) b->R[i] /= b->e2;
    memcpy(b->x, g, sizeof b->x);
    b->nv = 7;
    ld_ep_L(L, b->e);
    for (int r = 0; r < 3; ++r) {
        b->P[7 * (3 + r) + r] = 1.0;
        for (int j = 0; j < 4; ++j) b->P[7 * r + 3 + j] = 2.0 * L[4 * r + j] / b->e2;
    }
    if (!vb) return;
    memcpy(b->xd, vb, sizeof b->xd);
    ld_ep_Lmul(Le, b->e, vb + 3);
    ld_ep_L(Ld, vb + 3);
    for (int r = 0; r < 3; ++r) {
        b->w[r] = 2.0 * Le[r] / b->e2;
        for (int j = 0; j < 4; ++j)
            b->Q[7 * r + 3 + j] =
                -2.0 * Ld[4 * r + j] / b->e2 - 4.0 * Le[r] * b->e[j] / (b->e2 * b->e2);
    }
}

/* Body `body`'s canonical pose, velocity (v may be NULL: at rest; the body's entries at voff)
 * and maps P, Q. */
static void body_maps(const ld_system *s, const double *q, const double *v, int body, size_t voff,
                      elbody *b) {
    const rb_sys *rb = ld_rb(s);
    memset(b, 0, sizeof *b);
    b->body = body;
    if (body < 0) {
        b->R[0] = b->R[4] = b->R[8] = 1.0;
        return;
    }
    b->voff = voff;
    if (rb->euler) {
        body_euler(s, q, v, b);
        return;
    }
    const double *x, *vb = v ? v + b->voff : NULL;
    ld_rb_pose(s, q, body, b->R, &x);
    memcpy(b->x, x, sizeof b->x);
    b->nv = 6;
    for (int r = 0; r < 3; ++r) {
        b->P[6 * r + r] = 1.0;
        for (int j = 0; j < 3; ++j)
            b->P[6 * (3 + r) + 3 + j] = rb->semi ? b->R[3 * r + j] : (r == j ? 1.0 : 0.0);
    }
    if (!vb) return;
    memcpy(b->w, vb, sizeof b->w);
    if (!rb->semi) {
        memcpy(b->xd, vb + 3, sizeof b->xd);
        return;
    }
    double H[9], RH[9];
    ld_m3_mulv(b->xd, b->R, vb + 3);
    ld_so3_hat(H, vb + 3);
    ld_m3_mul(RH, b->R, H);
    for (int r = 0; r < 3; ++r)
        for (int j = 0; j < 3; ++j) b->Q[6 * (3 + r) + j] = -RH[3 * r + j];
}

/* The element's context from its two bodies. */
static void make_ctx(const ld_system *s, const ld_element *el, double t, const elbody b[2],
                     ld_el_ctx *c) {
    c->m = ld_rb(s)->m;
    c->el = el;
    c->ctrl = ld_rb(s)->ctrl;
    c->t = t;
    for (int i = 0; i < 2; ++i) {
        memcpy(c->R[i], b[i].R, sizeof c->R[i]);
        memcpy(c->x[i], b[i].x, sizeof c->x[i]);
        memcpy(c->vel + 6 * i, b[i].w, 3 * sizeof(double));
        memcpy(c->vel + 6 * i + 3, b[i].xd, 3 * sizeof(double));
    }
}

/* Evaluate the element of instance c at (t, q, v) (v may be NULL: at rest), its bodies' entries
 * at their local offsets. */
static int eval_el(const ld_elem_ctx *c, unsigned want, elbody b[2], ld_el_out *o) {
    const ld_element *el = &ld_rb(c->s)->m->elements[c->e->item];
    const ld_el_type *ty = ld_el_type_get(el->type);
    size_t off1 = el->body1 >= 0 ? (size_t)c->e->off[0] : 0;
    size_t off2 = (size_t)c->e->off[el->body1 >= 0 ? 1 : 0];
    ld_el_ctx ec;
    body_maps(c->s, c->q, c->v, el->body1, off1, &b[0]);
    body_maps(c->s, c->q, c->v, el->body2, off2, &b[1]);
    make_ctx(c->s, el, c->t, b, &ec);
    ec.inst = c;
    memset(o, 0, sizeof *o);
    return ty ? ty->eval(&ec, want, o) : LD_EINVAL;
}

void ld_el_instance_motions(const ld_elem_ctx *c, ld_body_motion m[2]) {
    const ld_element *el = &ld_rb(c->s)->m->elements[c->e->item];
    size_t off1 = el->body1 >= 0 ? (size_t)c->e->off[0] : 0;
    size_t off2 = (size_t)c->e->off[el->body1 >= 0 ? 1 : 0];
    elbody b[2];
    body_maps(c->s, c->q, c->v, el->body1, off1, &b[0]);
    body_maps(c->s, c->q, c->v, el->body2, off2, &b[1]);
    for (int i = 0; i < 2; ++i) {
        memcpy(m[i].x, b[i].x, sizeof m[i].x);
        memcpy(m[i].R, b[i].R, sizeof m[i].R);
        memcpy(m[i].omega, b[i].w, sizeof m[i].omega);
        memcpy(m[i].xdot, b[i].xd, sizeof m[i].xdot);
    }
}

/* ---------------------------------------------------------------- the element kind */

/* One instance per force element (element.h), on body1 (unless the ground) and body2. */
static int fel_instances(const ld_model *m, ld_formulation f, ld_elem *out) {
    (void)f;
    for (int i = 0; out && i < m->nelements; ++i) {
        const ld_element *el = &m->elements[i];
        ld_elem *e = &out[i];
        e->item = i;
        e->nn = 0;
        if (el->body1 >= 0) e->node[e->nn++] = el->body1;
        e->node[e->nn++] = el->body2;
        e->nrows = 0;
    }
    return m->nelements;
}

/* g += Pᵀ F of an evaluated element. */
static void map_force(const elbody b[2], const ld_el_out *o, double *g) {
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < b[i].nv; ++j) {
            double acc = 0.0;
            for (int r = 0; r < 6; ++r) acc += b[i].P[b[i].nv * r + j] * o->F[6 * i + r];
            g[b[i].voff + (size_t)j] += acc;
        }
}

static int fel_force(const ld_elem_ctx *c, double *g) {
    elbody b[2];
    ld_el_out o;
    int rc = eval_el(c, LD_EL_FORCE, b, &o);
    if (!rc) map_force(b, &o, g);
    return rc;
}

/* K[bi, bc] += P_iᵀ A (A: 6 × nv_c, row stride nv_c). */
static void add_pt(const elbody *bi, const elbody *bc, const double *A, double *K, size_t k) {
    for (int r = 0; r < bi->nv; ++r)
        for (int j = 0; j < bc->nv; ++j) {
            double acc = 0.0;
            for (int l = 0; l < 6; ++l) acc += bi->P[bi->nv * l + r] * A[bc->nv * l + j];
            K[(bi->voff + (size_t)r) * k + bc->voff + (size_t)j] += acc;
        }
}

/* A = X_ic M_c (+ Y_ic Q_c): the 6×6 block (i, c) of the 12×12 X times the 6 × nv_c maps. */
static void block_times(const double *X, const double *Y, int i, int c, const elbody *bc,
                        double *A) {
    for (int r = 0; r < 6; ++r)
        for (int j = 0; j < bc->nv; ++j) {
            double acc = 0.0;
            for (int l = 0; l < 6; ++l) {
                acc += X[12 * (6 * i + r) + 6 * c + l] * bc->P[bc->nv * l + j];
                if (Y) acc += Y[12 * (6 * i + r) + 6 * c + l] * bc->Q[bc->nv * l + j];
            }
            A[bc->nv * r + j] = acc;
        }
}

/* Do body b's maps reduce to P = I, Q = 0 (the body-frame product formulations; the ground has
 * no columns)? */
static int plain(const ld_system *s, const elbody *b) {
    return b->nv == 6 && !ld_rb(s)->euler && !ld_rb(s)->semi;
}

/* K[bi, bc] += the 6×6 block (i, c) of the 12×12 X (both bodies plain). */
static void add_block(const double *X, int i, int c, const elbody *bi, const elbody *bc, double *K,
                      size_t k) {
    for (size_t r = 0; r < 6; ++r) {
        const double *src = X + 12 * (6 * (size_t)i + r) + 6 * (size_t)c;
        double *dst = K + (bi->voff + r) * k + bc->voff;
        for (size_t j = 0; j < 6; ++j) dst[j] += src[j];
    }
}

/* K += Pᵀ (X P + Y Q) over the bodies' blocks (Y may be NULL: no Q term). */
static void map_mat(const ld_system *s, const elbody b[2], const double *X, const double *Y,
                    double *K, size_t k) {
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            if (b[i].nv == 0 || b[j].nv == 0) continue;
            if (plain(s, &b[i]) && plain(s, &b[j])) {
                add_block(X, i, j, &b[i], &b[j], K, k);
                continue;
            }
            double A[42];
            block_times(X, Y, i, j, &b[j], A);
            add_pt(&b[i], &b[j], A, K, k);
        }
}

/* C += Pᵀ Kv P (k: C's row stride). */
static void map_g_v(const ld_system *s, const elbody b[2], const ld_el_out *o, double *C,
                    size_t k) {
    map_mat(s, b, o->Kv, NULL, C, k);
}

static int fel_g_v(const ld_elem_ctx *c, double *C) {
    elbody b[2];
    ld_el_out o;
    int rc = eval_el(c, LD_EL_GV, b, &o);
    if (!rc) map_g_v(c->s, b, &o, C, (size_t)c->e->nl);
    return rc;
}

/* K[b, b] += N = ∂(Pᵀ F_b)/∂ξ at fixed F_b (m = F_b[0..2], f = F_b[3..5]). */
static void add_n(const ld_system *s, const elbody *b, const double F[6], double *K, size_t k) {
    if (b->nv == 0) return;
    size_t o = b->voff;
    if (ld_rb(s)->euler) {
        double W[16], We[4];
        ld_ep_what(W, F);
        for (int r = 0; r < 4; ++r) {
            We[r] = 0.0;
            for (int j = 0; j < 4; ++j) We[r] += W[4 * r + j] * b->e[j];
        }
        for (int r = 0; r < 4; ++r)
            for (int j = 0; j < 4; ++j)
                K[(o + 3 + (size_t)r) * k + o + 3 + (size_t)j] +=
                    2.0 * W[4 * r + j] / b->e2 - 4.0 * We[r] * b->e[j] / (b->e2 * b->e2);
        return;
    }
    if (!ld_rb(s)->semi) return;
    double w[3], H[9];
    ld_m3_tmulv(w, b->R, F + 3);
    ld_so3_hat(H, w);
    for (size_t r = 0; r < 3; ++r)
        for (size_t j = 0; j < 3; ++j) K[(o + 3 + r) * k + o + j] += H[3 * r + j];
}

/* K += Pᵀ (Kq P + Kv Q) + N (k: K's row stride). */
static void map_stiffness(const ld_system *s, const elbody b[2], const ld_el_out *o, double *K,
                          size_t k) {
    map_mat(s, b, o->Kq, o->Kv, K, k);
    for (int i = 0; i < 2; ++i) add_n(s, &b[i], o->F + 6 * i, K, k);
}

static int fel_stiffness(const ld_elem_ctx *c, double *K) {
    elbody b[2];
    ld_el_out o;
    int rc = eval_el(c, LD_EL_FORCE | LD_EL_GQ | LD_EL_GV, b, &o);
    if (!rc) map_stiffness(c->s, b, &o, K, (size_t)c->e->nl);
    return rc;
}

/* The fused hook (element.h): g, ∂g/∂v and the stiffness from one evaluation of the element
 * (its strain, kinematics and stress once, not once per output). */
static int fel_newton(const ld_elem_ctx *c, const ld_elem_nout *out) {
    unsigned want = (out->g ? LD_EL_FORCE : 0u) | (out->C ? LD_EL_GV : 0u) |
                    (out->K ? LD_EL_FORCE | LD_EL_GQ | LD_EL_GV : 0u);
    if (!want) return LD_OK;
    elbody b[2];
    ld_el_out o;
    size_t k = (size_t)c->e->nl;
    int rc = eval_el(c, want, b, &o);
    if (rc) return rc;
    if (out->g) map_force(b, &o, out->g);
    if (out->C) map_g_v(c->s, b, &o, out->C, k);
    if (out->K) map_stiffness(c->s, b, &o, out->K, k);
    return LD_OK;
}

/* The potential energy (NaN when the element fails). */
static int fel_energy(const ld_elem_ctx *c, double *V) {
    elbody b[2];
    ld_el_out o;
    ld_elem_ctx at_rest = *c;
    at_rest.v = NULL;
    *V = eval_el(&at_rest, LD_EL_ENERGY, b, &o) ? (double)NAN : o.V;
    return LD_OK;
}

const ld_ekind ld_ek_force = {.name = "element",
                              .instances = fel_instances,
                              .force = fel_force,
                              .g_v = fel_g_v,
                              .stiffness = fel_stiffness,
                              .energy = fel_energy,
                              .newton = fel_newton,
                              .prepare = ld_el_user_prepare,
                              .release = ld_el_user_release};

/* ---------------------------------------------------------------- checks, release */

/* The generic checks of element i: type, bodies, name. */
static int check_generic(const ld_model *m, int i, const int *dup, char *key, size_t nk, char *why,
                         size_t nw) {
    const ld_element *el = &m->elements[i];
    const char *k = NULL, *bad = NULL;
    char buf[160];
    if (!memchr(el->name, '\0', LD_NAME_MAX))
        k = "name", bad = "is not terminated";
    else if (!ld_el_type_get(el->type))
        k = "type", bad = "is not a type of the element registry";
    else if (el->body2 < 0 || el->body2 >= m->nbodies)
        k = "body2", bad = "must be a body, not the ground";
    else if (el->body1 < LD_GROUND || el->body1 >= m->nbodies)
        k = "body1", bad = "must be a body or the ground";
    else if (el->body1 == el->body2) {
        snprintf(buf, sizeof buf, "must differ from body1 (both are '%s')",
                 m->bodies[el->body2].name);
        k = "body2", bad = buf;
    } else if (el->npar < 0 || (el->npar > 0 && !el->par))
        k = "type", bad = "its parameters are missing";
    else if (el->name[0] && dup && dup[i] >= 0) {
        snprintf(buf, sizeof buf, "duplicate element name '%s' (also elements[%d])", el->name,
                 dup[i]);
        k = "name", bad = buf;
    }
    if (!bad) return LD_OK;
    snprintf(key, nk, "elements[%d].%s", i, k);
    snprintf(why, nw, "%s", bad);
    return LD_EINVAL;
}

/* first[i]: the first earlier element with element i's (non-empty) name, −1; NULL if short
 * of memory (then names are compared pairwise). */
static int *name_dups(const ld_model *m) {
    ld_name_index idx;
    int n = m->nelements;
    for (int i = 0; i < n; ++i)
        if (!memchr(m->elements[i].name, '\0', LD_NAME_MAX)) return NULL;
    int *first = n > 1 ? ld_xmalloc((size_t)n * sizeof *first, "the name index") : NULL;
    if (!first) return NULL;
    if (ld_names_build(&idx, m->elements, sizeof *m->elements, n) != LD_OK) {
        free(first);
        return NULL;
    }
    ld_names_first_dup(&idx, first);
    ld_names_free(&idx);
    return first;
}

int ld_el_check_all(const ld_model *m, char *key, size_t nk, char *why, size_t nw) {
    if (m->nelements < 0 || (m->nelements > 0 && !m->elements)) {
        snprintf(key, nk, "elements");
        snprintf(why, nw, "count %d does not match the array", m->nelements);
        return LD_EINVAL;
    }
    int *dup = name_dups(m), rc = LD_OK;
    for (int i = 0; !rc && i < m->nelements; ++i) {
        rc = check_generic(m, i, dup, key, nk, why, nw);
        const ld_el_type *ty = ld_el_type_get(m->elements[i].type);
        char sub[64] = "";
        if (!rc && ty->check && (rc = ty->check(m, &m->elements[i], sub, sizeof sub, why, nw)))
            snprintf(key, nk, "elements[%d]%s%s", i, sub[0] ? "." : "", sub);
    }
    free(dup);
    return rc;
}

void ld_el_free_all(ld_model *m) {
    for (int i = 0; m->elements && i < m->nelements; ++i) free(m->elements[i].par);
    free(m->elements);
    m->elements = NULL;
    m->nelements = 0;
}

/*
 * Compliant contact (docs/contact.md, "A compliant alternative: Hunt–Crossley"): with
 * `contact_law: {type: hunt_crossley, ...}` the contacts of the colliding shapes act as forces,
 * so that every integrator runs the model. An element kind (element.h) with one instance per
 * body that can touch the ground (the plane or a ground shape) and one per pair of bodies with
 * colliding shapes, and one per segment of a colliding rod or beam with the ground and with
 * each body with colliding shapes (contact_segment.c); each evaluation finds its pair's contacts
 * with the detector's exact tests (contact_pairs.c) on the shapes placed at the present poses,
 * a segment as the capsule about its two nodes' positions, on the stack (nothing is allocated
 * after prepare).
 *
 * At a contact of overlap δ = −gap > 0, normal n (from body b to body a), point p and the
 * pair's restitution e and friction μ, with u the velocity of a's material point at p relative
 * to b's, δ̇ = −n·u and u_t = u − (n·u) n:
 *   normal    f_n = max(0, k δ^p (1 + c δ̇/V)),  c = 3(1 − e)/2
 *             (Hunt & Crossley 1975, "Coefficient of restitution interpreted as damping in
 *             vibroimpact"; the form of Lankarani & Nikravesh 1990, "A contact force model with
 *             hysteresis damping for impact analysis of multibody systems", whose δ̇/δ̇₀ divides
 *             by the approach speed at first touch). A force function keeps no memory of the
 *             first touch (it is called at trial states, in Newton iterations, after rejected
 *             steps), so δ̇₀ is estimated from the present state as the speed of the same
 *             energy in an undamped contact: V² = δ̇² + 2 k δ^(p+1) / ((p + 1) m_c), m_c the
 *             contact's effective mass from the two free bodies' masses and inertias. That is
 *             δ̇₀ exactly at first touch and for e = 1; |δ̇/V| ≤ 1, so the damping stays bounded.
 *   friction  f_t = −μ f_n u_t / max(|u_t|, v_s): Coulomb's, linear below the slip velocity v_s.
 * The force f = f_n n + f_t acts on a at p and −f on b at p (the momenta are kept).
 *
 * In the canonical coordinates of elements.h (per body R exp(δθ), x + δx; velocities (Ω, ẋ)),
 * with r = p − x and W = [−hat(r_a) R_a, I, hat(r_b) R_b, −I] (u = W vel): F = −Wᵀ f. Its
 * tangents hold the contact's point and normal where the detector put them (the geometric
 * terms of their own motion are left out: relative size δ/(size of the shapes), exact for a
 * sphere centred on its body's centre of mass against the plane):
 *   Kv = −Wᵀ ∂f/∂u W                                                          (exact)
 *   Kq = −Wᵀ (∂f/∂δ (−nᵀ W) + ∂f/∂u U_q) + the turning of the body-frame torques,
 * U_q the change of u with the bodies' rotations at fixed body angular velocities. A segment's
 * contact at the weight s from node a to node b, axis point c, enters as its nodes with weights
 * 1 − s and s and the arm r = p − c (ld_cseg_weight): each node's block of W is its weight times
 * that of a body centred at c, its effective mass Σ w² of the nodes' (the weight's own motion
 * along the segment is one more geometric term left out). They are
 * mapped to the formulation as elements.c maps the force elements' (direct and semidirect Lie
 * formulations; the spatial ones through elem_spatial.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "contact.h"
#include "element.h"
#include "kinds.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

extern const ld_ekind ld_ek_contact_penalty; /* below; element.h lists the kinds */

/* Most bodies with colliding shapes: the kind couples every pair of them. */
#define PEN_BODIES_MAX 64
/* Contacts of one pair of shapes (ld_contact_pair gives at most 8). */
#define PEN_PAIR_MAX 16
/* Nodes of an instance: a body, two bodies, a segment's two nodes and a body, or two
 * segments' nodes. */
#define PEN_SLOTS 4
/* Most segments that collide with other segments (spans: true): their pairs couple all to all. */
#define PEN_SPANS_MAX 256
#define PEN_N         (6 * PEN_SLOTS)

/* The kind's data for a compiled system: each body's colliding shapes and inverse inertia. */
typedef struct pen_data {
    ld_contact_law law;
    int *start, *list; /* body i's colliding shapes: list[start[i] … start[i+1]) */
    double *jinv;      /* 9 per body: the inverse inertia, body frame */
} pen_data;

/* One node of an instance at the present state (b < 0: the ground). */
typedef struct pen_body {
    int b;
    double R[9], x[3], w[3], xd[3]; /* w = R Ω, spatial */
    double Om[3];
} pen_body;

/* How a node takes part in a contact: its slot in the instance, its weight (+ on side a, − on
 * side b; a segment's nodes (1 − s) and s) and the arm r from its reference point (its centre
 * of mass; a segment's axis point) to the contact point. */
typedef struct pen_part {
    int slot;
    double wt, r[3];
} pen_part;

/* The forces and tangents of one instance in canonical coordinates (its nodes in slot order;
 * row stride PEN_N). */
typedef struct pen_out {
    double F[PEN_N], Kq[PEN_N * PEN_N], Kv[PEN_N * PEN_N], V;
} pen_out;

/* ---------------------------------------------------------------- instances */

/* Does shape i of m collide (a kind the detector tests)? */
static int colliding(const ld_shape *sh) {
    return sh->collide && ld_contact_detected(sh->kind);
}

/* Body i has a colliding shape. */
static int body_collides(const ld_model *m, int i) {
    for (int s = 0; s < m->nshapes; ++s)
        if (m->shapes[s].body == i && colliding(&m->shapes[s])) return 1;
    return 0;
}

/* The ground collides: the plane or a colliding ground shape. */
static int ground_collides(const ld_model *m) {
    if (m->plane.on) return 1;
    for (int g = 0; g < m->nground; ++g)
        if (colliding(&m->ground[g])) return 1;
    return 0;
}

static int colliding_bodies(const ld_model *m) {
    int n = 0;
    for (int i = 0; i < m->nbodies; ++i) n += body_collides(m, i);
    return n;
}

/* The instances of segment g (item g, sub < 0): one with the ground (sub = −1; nodes: its
 * nodes that are bodies) and one per body b with colliding shapes (sub = −2 − b; nodes: the
 * segment's, then b), b not one of its nodes. Their number; into out + n when out. */
static int segment_instances(const ld_model *m, int g, int ground, ld_elem *out) {
    ld_cseg sg;
    if (ld_cseg_get(m, g, &sg)) return 0;
    ld_elem e = {.item = g, .sub = -1};
    for (int k = 0; k < 2; ++k)
        if (sg.body[k] != LD_GROUND) e.node[e.nn++] = sg.body[k];
    int n = 0;
    if (ground) {
        if (out) out[n] = e;
        ++n;
    }
    for (int b = 0; b < m->nbodies; ++b) {
        if (!body_collides(m, b) || b == sg.body[0] || b == sg.body[1]) continue;
        if (out) {
            out[n] = e;
            out[n].sub = -2 - b;
            out[n].node[out[n].nn++] = b;
        }
        ++n;
    }
    return n;
}

/* Segments that collide with segments (spans: true). */
static int span_segments(const ld_model *m) {
    int n = 0;
    for (int r = 0; r < m->nrods; ++r)
        if (m->rods[r].collide.on && m->rods[r].collide.spans) n += m->rods[r].n;
    for (int b = 0; b < m->nbeams; ++b)
        if (m->beams[b].collide.on && m->beams[b].collide.spans) n += m->beams[b].nnodes - 1;
    return n;
}

/* The instances of segment g with the later segments h it collides with (ld_cseg_pair; item
 * g, sub = −2 − nbodies − h; nodes: g's that are bodies, then h's). Their number; into out
 * when out. */
static int span_instances(const ld_model *m, int g, int nseg, ld_elem *out) {
    ld_cseg a, b;
    if (ld_cseg_get(m, g, &a) || !a.c.spans) return 0;
    int n = 0;
    for (int h = g + 1; h < nseg; ++h) {
        if (!ld_cseg_pair(m, g, h)) continue;
        if (out) {
            ld_cseg_get(m, h, &b);
            ld_elem e = {.item = g, .sub = -2 - m->nbodies - h};
            for (int k = 0; k < 4; ++k) {
                int body = k < 2 ? a.body[k] : b.body[k - 2];
                if (body != LD_GROUND) e.node[e.nn++] = body;
            }
            out[n] = e;
        }
        ++n;
    }
    return n;
}

/* One instance per body touching the ground (node: the body; sub = 0) and per pair of
 * colliding bodies a < b (nodes a, b; sub = b + 1), then the segments' of the colliding rods
 * and beams, and their pairs; none with the hard law, the euler formulation, more than
 * PEN_BODIES_MAX colliding bodies or PEN_SPANS_MAX segments with spans (prepare says why). */
static int pen_instances(const ld_model *m, ld_formulation f, ld_elem *out) {
    if (m->contact.kind != LD_CONTACT_HUNT_CROSSLEY || f == LD_FORM_EULER) return 0;
    if (colliding_bodies(m) > PEN_BODIES_MAX || span_segments(m) > PEN_SPANS_MAX) return 0;
    int n = 0, ground = ground_collides(m), nseg = ld_cseg_count(m);
    for (int g = 0; g < nseg; ++g) n += segment_instances(m, g, ground, out ? out + n : NULL);
    for (int g = 0; g < nseg; ++g) n += span_instances(m, g, nseg, out ? out + n : NULL);
    for (int a = 0; a < m->nbodies; ++a) {
        if (!body_collides(m, a)) continue;
        if (ground) {
            if (out) out[n] = (ld_elem){.item = a, .sub = 0, .nn = 1, .node = {a}};
            ++n;
        }
        for (int b = a + 1; b < m->nbodies; ++b) {
            if (!body_collides(m, b) || ld_model_contact_excluded(m, a, b)) continue;
            if (out) out[n] = (ld_elem){.item = a, .sub = b + 1, .nn = 2, .node = {a, b}};
            ++n;
        }
    }
    return n;
}

/* ---------------------------------------------------------------- prepare */

static void pen_release(void *data) {
    pen_data *d = data;
    if (!d) return;
    free(d->start);
    free(d->list);
    free(d->jinv);
    free(d);
}

/* Why the compliant law cannot take the model (NULL: it can). */
static const char *pen_refusal(const ld_system *s, char *buf, size_t n) {
    const ld_model *m = ld_rb(s)->m;
    const ld_contact_law *c = &m->contact;
    if (ld_rb(s)->euler)
        return "compliant contact (contact_law: hunt_crossley) needs a Lie-group "
               "formulation, not euler";
    int nb = colliding_bodies(m);
    if (nb > PEN_BODIES_MAX) {
        snprintf(buf, n,
                 "compliant contact couples every pair of bodies with colliding shapes: %d "
                 "bodies, at most %d (contact_law: hard and moreau take many bodies)",
                 nb, PEN_BODIES_MAX);
        return buf;
    }
    int ns = span_segments(m);
    if (ns > PEN_SPANS_MAX) {
        snprintf(buf, n,
                 "segments that collide with each other (collide: {spans: true}) are coupled "
                 "all to all: %d segments, at most %d",
                 ns, PEN_SPANS_MAX);
        return buf;
    }
    if (!(c->stiffness > 0.0 && isfinite(c->stiffness) && c->exponent >= 1.0 &&
          c->exponent <= 3.0 && c->slip_velocity > 0.0 && isfinite(c->slip_velocity)))
        return "contact_law: stiffness must be > 0, exponent in [1, 3], slip_velocity > 0";
    for (int i = 0; i < m->nrods + m->nbeams; ++i) {
        int rod = i < m->nrods;
        const ld_collide *cl = rod ? &m->rods[i].collide : &m->beams[i - m->nrods].collide;
        if (cl->on && !(cl->radius > 0.0 && isfinite(cl->radius) && cl->restitution >= 0.0 &&
                        cl->restitution <= 1.0 && cl->friction >= 0.0 && isfinite(cl->friction))) {
            snprintf(buf, n,
                     "%s '%s': collide needs radius > 0, restitution in [0, 1], friction >= 0",
                     rod ? "rod" : "beam", rod ? m->rods[i].name : m->beams[i - m->nrods].name);
            return buf;
        }
    }
    return NULL;
}

/* The inverse of the symmetric positive definite 3×3 J (adjugate over determinant). */
static void inverse3(const double J[9], double Ji[9]) {
    double c[9] = {J[4] * J[8] - J[5] * J[7], J[2] * J[7] - J[1] * J[8], J[1] * J[5] - J[2] * J[4],
                   J[5] * J[6] - J[3] * J[8], J[0] * J[8] - J[2] * J[6], J[2] * J[3] - J[0] * J[5],
                   J[3] * J[7] - J[4] * J[6], J[1] * J[6] - J[0] * J[7], J[0] * J[4] - J[1] * J[3]};
    double det = J[0] * c[0] + J[1] * c[3] + J[2] * c[6];
    for (int i = 0; i < 9; ++i) Ji[i] = c[i] / det;
}

/* Each body's colliding shapes and inverse inertia. LD_OK, LD_ENOTSUPPORTED (euler), LD_EINVAL
 * (too many bodies, bad parameters) with the reason in msg, LD_ENOMEM. */
static int pen_prepare(const ld_system *s, void **data, char *msg, size_t n) {
    const ld_model *m = ld_rb(s)->m;
    *data = NULL;
    if (m->contact.kind != LD_CONTACT_HUNT_CROSSLEY || !ld_model_has_contact(m)) return LD_OK;
    char buf[200];
    const char *why = pen_refusal(s, buf, sizeof buf);
    if (why) {
        if (msg && n) snprintf(msg, n, "%s", why);
        return ld_rb(s)->euler ? LD_ENOTSUPPORTED : LD_EINVAL;
    }
    pen_data *d = ld_xcalloc(1, sizeof *d, "the penalty contact");
    if (!d) return LD_ENOMEM;
    d->law = m->contact;
    d->start = ld_xcalloc((size_t)m->nbodies + 1, sizeof *d->start, "the penalty contact");
    d->list = ld_xmalloc(((size_t)m->nshapes + 1) * sizeof *d->list, "the penalty contact");
    d->jinv = ld_xmalloc(9 * ((size_t)m->nbodies + 1) * sizeof *d->jinv, "the penalty contact");
    if (!d->start || !d->list || !d->jinv) {
        pen_release(d);
        return LD_ENOMEM;
    }
    int k = 0;
    for (int i = 0; i < m->nbodies; ++i) {
        d->start[i] = k;
        for (int j = 0; j < m->nshapes; ++j)
            if (m->shapes[j].body == i && colliding(&m->shapes[j])) d->list[k++] = j;
        inverse3(m->bodies[i].inertia, d->jinv + 9 * i);
    }
    d->start[m->nbodies] = k;
    *data = d;
    return LD_OK;
}

/* ---------------------------------------------------------------- the state */

/* Body b (< 0: the ground) of the instance, its local velocity at vl (NULL: at rest). */
static void read_body(const ld_system *s, const double *q, const double *vl, int b, pen_body *o) {
    memset(o, 0, sizeof *o);
    o->b = b;
    if (b < 0) {
        o->R[0] = o->R[4] = o->R[8] = 1.0;
        return;
    }
    const double *x;
    ld_rb_pose(s, q, b, o->R, &x);
    memcpy(o->x, x, sizeof o->x);
    if (!vl) return;
    memcpy(o->Om, vl, sizeof o->Om);
    ld_m3_mulv(o->w, o->R, o->Om);
    if (ld_rb(s)->semi)
        ld_m3_mulv(o->xd, o->R, vl + 3);
    else
        memcpy(o->xd, vl + 3, sizeof o->xd);
}

/* Shape sh placed at the pose (R, x) as the detector places it (ld_cshape_place), and the
 * sphere about it: its centre o (that of its bounding box) and radius. */
static double place(const ld_shape *sh, const double R[9], const double x[3], ld_cshape *c,
                    double o[3]) {
    double lo[3], hi[3], d[3];
    ld_cshape_place(sh, R, x, c, lo, hi);
    for (int i = 0; i < 3; ++i) o[i] = 0.5 * (lo[i] + hi[i]), d[i] = 0.5 * (hi[i] - lo[i]);
    return ld_v3_norm(d);
}

/* ---------------------------------------------------------------- the law at one contact */

/* The normal force and its derivatives by δ and δ̇: f_n (≥ 0), *fd = ∂f_n/∂δ, *fv = ∂f_n/∂δ̇
 * (0 where the clamp holds). meff > 0 the contact's effective mass. */
static double normal_force(const ld_contact_law *L, double e, double meff, double dl, double dv,
                           double *fd, double *fv) {
    double k = L->stiffness, p = L->exponent, c = 1.5 * (1.0 - e);
    double kp = k * pow(dl, p), s = 2.0 * kp * dl / ((p + 1.0) * meff), V2 = dv * dv + s;
    double V = sqrt(V2), ratio = V > 0.0 ? dv / V : 0.0, f = kp * (1.0 + c * ratio);
    *fd = *fv = 0.0;
    if (!(f > 0.0)) return 0.0;
    *fd = p * kp / dl * (1.0 + c * ratio);
    if (V > 0.0) {
        *fd -= kp * c * dv * (kp / meff) / (V2 * V);
        *fv = kp * c * s / (V2 * V);
    }
    return f;
}

/* 1/m + (Rᵀ(r × n))ᵀ J⁻¹ (Rᵀ(r × n)) of body B (0 for the ground; the translation left out of a
 * pinned body). */
static double inv_mass(const ld_model *m, const pen_data *d, const pen_body *B, const double r[3],
                       const double n[3]) {
    if (B->b < 0) return 0.0;
    double rn[3], y[3], z[3];
    ld_v3_cross(rn, r, n);
    ld_m3_tmulv(y, B->R, rn);
    ld_m3_mulv(z, d->jinv + 9 * B->b, y);
    const ld_body *bd = &m->bodies[B->b];
    return (bd->pin ? 0.0 : 1.0 / bd->mass) + ld_v3_dot(y, z);
}

/* −hat(r) R into columns c0 … c0+2 of the 3×PEN_N W, scaled by sg; sg I into the next three. */
static void w_block(double W[3 * PEN_N], int c0, const double r[3], const double R[9], double sg) {
    double H[9];
    ld_so3_hat(H, r);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double acc = 0.0;
            for (int l = 0; l < 3; ++l) acc += H[3 * i + l] * R[3 * l + j];
            W[PEN_N * i + c0 + j] = -sg * acc;
            W[PEN_N * i + c0 + 3 + j] = sg * (i == j);
        }
}

/* U_q: hat(r) R hat(Ω) of a node, scaled by its weight sg, in its rotation columns. */
static void uq_block(double U[3 * PEN_N], int c0, const double r[3], const pen_body *B, double sg) {
    double Hr[9], Ho[9], T[9], X[9];
    ld_so3_hat(Hr, r);
    ld_so3_hat(Ho, B->Om);
    ld_m3_mul(T, Hr, B->R);
    ld_m3_mul(X, T, Ho);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) U[PEN_N * i + c0 + j] = sg * X[3 * i + j];
}

/* o += the force and tangents of one contact whose nodes (in slots of S, the ground left out)
 * take part as parts[0 … np) say. */
static void add_contact(const ld_model *m, const pen_data *d, const ld_contact *ct,
                        const pen_body *S, const pen_part *parts, int np, pen_out *o) {
    enum { N = PEN_N };
    const ld_contact_law *L = &d->law;
    const double *n = ct->n;
    double dl = -ct->gap, W[3 * N] = {0}, Uq[3 * N] = {0}, u[3] = {0}, vel[N] = {0}, minv = 0.0;
    for (int k = 0; k < np; ++k) {
        const pen_part *pt = &parts[k];
        const pen_body *B = &S[pt->slot];
        w_block(W, 6 * pt->slot, pt->r, B->R, pt->wt);
        uq_block(Uq, 6 * pt->slot, pt->r, B, pt->wt);
        memcpy(vel + 6 * pt->slot, B->Om, 3 * sizeof(double));
        memcpy(vel + 6 * pt->slot + 3, B->xd, 3 * sizeof(double));
        minv += pt->wt * pt->wt * inv_mass(m, d, B, pt->r, n);
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < N; ++j) u[i] += W[N * i + j] * vel[j];
    double un = ld_v3_dot(n, u), ut[3], phi[3], Dphi[9];
    for (int i = 0; i < 3; ++i) ut[i] = u[i] - un * n[i];
    if (!(minv > 0.0)) return; /* nothing the contact can move */
    double meff = 1.0 / minv, fd, fv;
    double fn = normal_force(L, ct->e, meff, dl, -un, &fd, &fv), st = ld_v3_norm(ut);
    double sc = st > L->slip_velocity ? st : L->slip_velocity;
    for (int i = 0; i < 3; ++i) phi[i] = ut[i] / sc;
    for (int i = 0; i < 3; ++i) /* ∂φ/∂u = (P_t − [|u_t| > v_s] t tᵀ)/sc, P_t = I − n nᵀ */
        for (int j = 0; j < 3; ++j)
            Dphi[3 * i + j] = ((i == j) - n[i] * n[j] -
                               (st > L->slip_velocity ? ut[i] * ut[j] / (st * st) : 0.0)) /
                              sc;
    double f[3], Fu[9], Fd[3], mu = ct->mu; /* f, ∂f/∂u, ∂f/∂δ */
    for (int i = 0; i < 3; ++i) {
        f[i] = fn * n[i] - mu * fn * phi[i];
        Fd[i] = fd * (n[i] - mu * phi[i]);
        for (int j = 0; j < 3; ++j) /* ∂f_n/∂u = −fv nᵀ */
            Fu[3 * i + j] = -fv * n[j] * (n[i] - mu * phi[i]) - mu * fn * Dphi[3 * i + j];
    }
    o->V += L->stiffness * pow(dl, L->exponent + 1.0) / (L->exponent + 1.0);
    double G[3 * N], nW[N]; /* G = ∂f/∂q = Fd (−nᵀW) + Fu U_q (3×N) */
    for (int j = 0; j < N; ++j) nW[j] = n[0] * W[j] + n[1] * W[N + j] + n[2] * W[2 * N + j];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < N; ++j) {
            double acc = -Fd[i] * nW[j];
            for (int l = 0; l < 3; ++l) acc += Fu[3 * i + l] * Uq[N * l + j];
            G[N * i + j] = acc;
        }
    double FW[3 * N]; /* Fu W */
    for (int l = 0; l < 3; ++l)
        for (int j = 0; j < N; ++j) {
            double acc = 0.0;
            for (int h = 0; h < 3; ++h) acc += Fu[3 * l + h] * W[N * h + j];
            FW[N * l + j] = acc;
        }
    for (int r = 0; r < N; ++r) {
        if (W[r] == 0.0 && W[N + r] == 0.0 && W[2 * N + r] == 0.0) continue;
        o->F[r] -= W[r] * f[0] + W[N + r] * f[1] + W[2 * N + r] * f[2];
        for (int j = 0; j < N; ++j) {
            double kq = 0.0, kv = 0.0;
            for (int l = 0; l < 3; ++l) {
                kq += W[N * l + r] * G[N * l + j];
                kv += W[N * l + r] * FW[N * l + j];
            }
            o->Kq[N * r + j] -= kq;
            o->Kv[N * r + j] -= kv;
        }
    }
    /* the body-frame torques −wt Rᵀ(r × f) of the nodes turn with them */
    for (int k = 0; k < np; ++k) {
        const pen_part *pt = &parts[k];
        double tq[3], y[3], H[9];
        int c0 = 6 * pt->slot;
        ld_v3_cross(tq, pt->r, f);
        ld_m3_tmulv(y, S[pt->slot].R, tq);
        ld_so3_hat(H, y);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) o->Kq[N * (c0 + i) + c0 + j] -= pt->wt * H[3 * i + j];
    }
}

/* ---------------------------------------------------------------- one instance */

/* Side a of an instance's contacts: a shape of the body in slot 0 (the arm from its centre of
 * mass), or a segment (its nodes' slots, −1 for a clamped node; its ends and radius), placed as
 * ca inside the sphere (o, rad), with its restitution and friction. */
typedef struct pen_side {
    int seg, slot[2];
    double xa[3], xb[3], radius;
    ld_cshape ca;
    double o[3], rad, e, mu;
} pen_side;

/* The parts of segment side sd in contact ct (sd on ct's side a) with the sign sg (+1 side a,
 * −1 side b) into pt + np; the new np. */
static int segment_parts(const pen_side *sd, const ld_contact *ct, double sg, pen_part *pt,
                         int np) {
    double c[3], s = ld_cseg_weight(sd->xa, sd->xb, sd->radius, ct, c), w[2] = {1.0 - s, s};
    for (int k = 0; k < 2; ++k) {
        if (sd->slot[k] < 0 || w[k] == 0.0) continue;
        pt[np] = (pen_part){.slot = sd->slot[k], .wt = sg * w[k]};
        for (int i = 0; i < 3; ++i) pt[np].r[i] = ct->p[i] - c[i];
        ++np;
    }
    return np;
}

/* The parts of contact ct: side a's nodes, and the body in slot bslot (−1: the ground) with
 * weight −1. Their number. */
static int contact_parts(const pen_side *sa, const pen_body *S, int bslot, const ld_contact *ct,
                         pen_part pt[PEN_SLOTS]) {
    int np = 0;
    if (!sa->seg) {
        pt[np] = (pen_part){.slot = 0, .wt = 1.0};
        for (int i = 0; i < 3; ++i) pt[np].r[i] = ct->p[i] - S[0].x[i];
        ++np;
    } else {
        np = segment_parts(sa, ct, 1.0, pt, np);
    }
    if (bslot >= 0) {
        pt[np] = (pen_part){.slot = bslot, .wt = -1.0};
        for (int i = 0; i < 3; ++i) pt[np].r[i] = ct->p[i] - S[bslot].x[i];
        ++np;
    }
    return np;
}

/* The contacts of side a with the ground (plane and ground shapes; bslot < 0) or with the
 * shapes of the body in slot bslot, each added to o. */
static void side_contacts(const ld_model *m, const pen_data *d, const pen_side *sa,
                          const pen_body *S, int bslot, pen_out *o) {
    ld_cshape cb;
    ld_contact tmp[PEN_PAIR_MAX];
    pen_part parts[PEN_SLOTS];
    double ob[3];
    const pen_body *B = bslot >= 0 ? &S[bslot] : NULL;
    int nb = B ? d->start[B->b + 1] - d->start[B->b] : m->nground;
    for (int j = -1; j < nb; ++j) {
        const ld_shape *shb = NULL;
        int c = 0;
        if (j < 0 && !B && m->plane.on) {
            const double *pn = m->plane.normal;
            if (ld_v3_dot(pn, sa->o) - ld_v3_dot(pn, m->plane.point) > sa->rad) continue;
            c = ld_contact_plane(&sa->ca, pn, ld_v3_dot(pn, m->plane.point), 0.0, tmp);
        } else if (j >= 0) {
            static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, O3[3] = {0, 0, 0};
            shb = B ? &m->shapes[d->list[d->start[B->b] + j]] : &m->ground[j];
            if (!colliding(shb)) continue;
            double rb = place(shb, B ? B->R : I3, B ? B->x : O3, &cb, ob);
            double dd[3] = {sa->o[0] - ob[0], sa->o[1] - ob[1], sa->o[2] - ob[2]};
            if (ld_v3_norm(dd) > sa->rad + rb) continue;
            c = ld_contact_pair(&sa->ca, &cb, 0.0, tmp);
        }
        double e = fmax(sa->e, shb ? shb->restitution : m->plane.restitution);
        double mu = fmax(sa->mu, shb ? shb->friction : m->plane.friction);
        for (int i = 0; i < c && i < PEN_PAIR_MAX; ++i) {
            if (!(tmp[i].gap < 0.0)) continue;
            tmp[i].e = e, tmp[i].mu = mu;
            int np = contact_parts(sa, S, bslot, &tmp[i], parts);
            add_contact(m, d, &tmp[i], S, parts, np, o);
        }
    }
}

/* Segment g as a side whose nodes take the instance's slots from *slot on (advanced). */
static void segment_side(const ld_model *m, int g, const pen_body *S, int *slot, pen_side *sd) {
    ld_cseg sg;
    memset(sd, 0, sizeof *sd);
    ld_cseg_get(m, g, &sg);
    sd->seg = 1, sd->radius = sg.c.radius, sd->e = sg.c.restitution, sd->mu = sg.c.friction;
    for (int k = 0; k < 2; ++k) {
        double *x = k ? sd->xb : sd->xa;
        sd->slot[k] = sg.body[k] == LD_GROUND ? -1 : (*slot)++;
        memcpy(x, sd->slot[k] < 0 ? sg.x0[k] : S[sd->slot[k]].x, 3 * sizeof(double));
    }
    ld_cseg_place(sd->xa, sd->xb, sd->radius, &sd->ca);
    double half[3];
    for (int i = 0; i < 3; ++i)
        sd->o[i] = 0.5 * (sd->xa[i] + sd->xb[i]), half[i] = sd->xb[i] - sd->o[i];
    sd->rad = ld_v3_norm(half) + sd->radius;
}

/* The contacts of segment side a with segment side b (both capsules), each added to o: side
 * a's nodes with weights 1 − s, s, side b's with −(1 − t), −t, each at its own axis point. */
static void span_contacts(const ld_model *m, const pen_data *d, const pen_side *sa,
                          const pen_side *sb, const pen_body *S, pen_out *o) {
    double dd[3] = {sa->o[0] - sb->o[0], sa->o[1] - sb->o[1], sa->o[2] - sb->o[2]};
    if (ld_v3_norm(dd) > sa->rad + sb->rad) return;
    ld_contact tmp[PEN_PAIR_MAX];
    pen_part parts[PEN_SLOTS];
    int c = ld_contact_pair(&sa->ca, &sb->ca, 0.0, tmp);
    for (int i = 0; i < c && i < PEN_PAIR_MAX; ++i) {
        if (!(tmp[i].gap < 0.0)) continue;
        tmp[i].e = fmax(sa->e, sb->e), tmp[i].mu = fmax(sa->mu, sb->mu);
        ld_contact flip = tmp[i]; /* side b seen as side a: its axis point */
        for (int k = 0; k < 3; ++k) flip.n[k] = -tmp[i].n[k];
        int np = segment_parts(sa, &tmp[i], 1.0, parts, 0);
        np = segment_parts(sb, &flip, -1.0, parts, np);
        add_contact(m, d, &tmp[i], S, parts, np, o);
    }
}

/* Segment instance c (item: the segment g; sub = −1 the ground, −2 − b body b, −2 − nbodies
 * − h segment h) into o. */
static void segment_instance(const ld_elem_ctx *c, const pen_data *d, const pen_body *S,
                             pen_out *o) {
    const ld_model *m = ld_rb(c->s)->m;
    pen_side sa, sb;
    int slot = 0, h = -2 - m->nbodies - c->e->sub;
    segment_side(m, c->e->item, S, &slot, &sa);
    if (h >= 0) {
        segment_side(m, h, S, &slot, &sb);
        span_contacts(m, d, &sa, &sb, S, o);
        return;
    }
    side_contacts(m, d, &sa, S, c->e->sub == -1 ? -1 : slot, o);
}

/* The instance's forces and tangents in canonical coordinates; its nodes into S. */
static void eval_instance(const ld_elem_ctx *c, pen_body S[PEN_SLOTS], pen_out *o) {
    const ld_model *m = ld_rb(c->s)->m;
    const pen_data *d = ld_elems_data(c->s, &ld_ek_contact_penalty);
    memset(o, 0, sizeof *o);
    for (int k = 0; k < c->e->nn && k < PEN_SLOTS; ++k)
        read_body(c->s, c->q, c->v ? c->v + c->e->off[k] : NULL, c->e->node[k], &S[k]);
    if (!d) return;
    if (c->e->sub < 0) {
        segment_instance(c, d, S, o);
        return;
    }
    int a = c->e->node[0];
    for (int k = d->start[a]; k < d->start[a + 1]; ++k) {
        const ld_shape *sh = &m->shapes[d->list[k]];
        pen_side sa = {.e = sh->restitution, .mu = sh->friction};
        sa.rad = place(sh, S[0].R, S[0].x, &sa.ca, sa.o);
        side_contacts(m, d, &sa, S, c->e->nn == 2 ? 1 : -1, o);
    }
}

/* ---------------------------------------------------------------- the formulation's maps */

/* P of body B (6×6: I, or diag(I, R) in the semidirect formulations). */
static void map_p(const ld_system *s, const pen_body *B, double P[36]) {
    memset(P, 0, 36 * sizeof(double));
    for (int i = 0; i < 3; ++i) {
        P[6 * i + i] = 1.0;
        for (int j = 0; j < 3; ++j)
            P[6 * (3 + i) + 3 + j] = ld_rb(s)->semi ? B->R[3 * i + j] : (i == j ? 1.0 : 0.0);
    }
}

/* Q of body B: ∂(P v)/∂ξ at fixed v — the ẋ rows, Ω columns −R hat(U) when semidirect. */
static void map_q(const ld_system *s, const pen_body *B, double Q[36]) {
    memset(Q, 0, 36 * sizeof(double));
    if (!ld_rb(s)->semi) return;
    double U[3], H[9], RH[9];
    ld_m3_tmulv(U, B->R, B->xd);
    ld_so3_hat(H, U);
    ld_m3_mul(RH, B->R, H);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) Q[6 * (3 + i) + j] = -RH[3 * i + j];
}

static int nbodies_of(const ld_elem_ctx *c) {
    return c->e->nn;
}

/* g += Pᵀ F. */
static int pen_force(const ld_elem_ctx *c, double *g) {
    pen_body B[PEN_SLOTS];
    pen_out o;
    eval_instance(c, B, &o);
    for (int k = 0; k < nbodies_of(c); ++k) {
        double P[36];
        map_p(c->s, &B[k], P);
        for (int j = 0; j < 6; ++j)
            for (int r = 0; r < 6; ++r) g[6 * k + j] += P[6 * r + j] * o.F[6 * k + r];
    }
    return LD_OK;
}

/* Out(k, l block) += P_kᵀ (X_kl P_l + Y_kl Q_l) over the instance's bodies (Y may be NULL). */
static void add_mapped(const ld_elem_ctx *c, const pen_body B[PEN_SLOTS], const double *X,
                       const double *Y, double *out) {
    int nn = nbodies_of(c);
    size_t nl = (size_t)c->e->nl;
    double P[PEN_SLOTS][36], Q[PEN_SLOTS][36];
    for (int k = 0; k < nn; ++k) map_p(c->s, &B[k], P[k]), map_q(c->s, &B[k], Q[k]);
    for (int k = 0; k < nn; ++k)
        for (int l = 0; l < nn; ++l) {
            double A[36];
            for (int r = 0; r < 6; ++r)
                for (int j = 0; j < 6; ++j) {
                    double acc = 0.0;
                    for (int h = 0; h < 6; ++h) {
                        acc += X[PEN_N * (6 * k + r) + 6 * l + h] * P[l][6 * h + j];
                        if (Y) acc += Y[PEN_N * (6 * k + r) + 6 * l + h] * Q[l][6 * h + j];
                    }
                    A[6 * r + j] = acc;
                }
            for (int r = 0; r < 6; ++r)
                for (int j = 0; j < 6; ++j) {
                    double acc = 0.0;
                    for (int h = 0; h < 6; ++h) acc += P[k][6 * h + r] * A[6 * h + j];
                    out[(6 * (size_t)k + (size_t)r) * nl + 6 * (size_t)l + (size_t)j] += acc;
                }
        }
}

/* C += Pᵀ Kv P. */
static int pen_g_v(const ld_elem_ctx *c, double *C) {
    pen_body B[PEN_SLOTS];
    pen_out o;
    eval_instance(c, B, &o);
    add_mapped(c, B, o.Kv, NULL, C);
    return LD_OK;
}

/* K += Pᵀ (Kq P + Kv Q) + N, N = ∂(Pᵀ F)/∂ξ at fixed F: the U rows, Ω columns hat(Rᵀ f) when
 * semidirect. */
static int pen_stiffness(const ld_elem_ctx *c, double *K) {
    pen_body B[PEN_SLOTS];
    pen_out o;
    size_t nl = (size_t)c->e->nl;
    eval_instance(c, B, &o);
    add_mapped(c, B, o.Kq, o.Kv, K);
    for (int k = 0; ld_rb(c->s)->semi && k < nbodies_of(c); ++k) {
        double w[3], H[9];
        ld_m3_tmulv(w, B[k].R, o.F + 6 * k + 3);
        ld_so3_hat(H, w);
        for (size_t r = 0; r < 3; ++r)
            for (size_t j = 0; j < 3; ++j)
                K[(6 * (size_t)k + 3 + r) * nl + 6 * (size_t)k + j] += H[3 * r + j];
    }
    return LD_OK;
}

/* The elastic energy Σ k δ^(p+1)/(p + 1) of the instance's contacts. */
static int pen_energy(const ld_elem_ctx *c, double *V) {
    pen_body B[PEN_SLOTS];
    pen_out o;
    ld_elem_ctx at_rest = *c;
    at_rest.v = NULL;
    eval_instance(&at_rest, B, &o);
    *V += o.V;
    return LD_OK;
}

const ld_ekind ld_ek_contact_penalty = {.name = "contact",
                                        .instances = pen_instances,
                                        .force = pen_force,
                                        .g_v = pen_g_v,
                                        .stiffness = pen_stiffness,
                                        .energy = pen_energy,
                                        .prepare = pen_prepare,
                                        .release = pen_release};

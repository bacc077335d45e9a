/*
 * Beams in the models (model.h, docs/beam.md): placing a beam's nodes, and the beam element kind
 * of the compiled systems (element.h) — one instance per finite element, on the element's free
 * nodes, with the elastic force, stiffness and energy of beam_fe.c mapped to the formulation.
 *
 * The kernel works in canonical coordinates (per node δθ in the material frame, δx spatial).
 * The direct products (so3xr3, s3xr3) perturb x in the spatial frame: the same coordinates.
 * The semidirect ones (se3, s3sdr3) move x by R δu: with P = diag(I, R) per node the force is
 * Pᵀ F and the stiffness Pᵀ K P + N, N = ∂(Rᵀ F_x)/∂δθ = hat(Rᵀ F_x) in the translation rows
 * (as for the force elements, elements.c). The inertia is the nodes' (lumped on the
 * Gauss–Lobatto–Legendre points, the bodies' element); a clamped node keeps its reference pose.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "../lie/mat3.h"
#include "beam_curve.h"
#include "beam_fe.h"
#include "element.h"
#include "liedyn/liedyn.h"
#include "kinds.h"
#include "../core/oom.h"

_Static_assert(LD_ELEM_MAX_NODES >= LD_BEAM_MAX_NODES, "an element instance holds a beam element");

/* ---------------------------------------------------------------- placement */

int ld_beam__frame(const double d[3], const double normal[3], double q[4]) {
    double e1[3], e2[3], e3[3], R[9], len = ld_v3_norm(d);
    if (!(len > 0.0) || !isfinite(len)) return LD_EINVAL;
    for (int i = 0; i < 3; ++i) e1[i] = d[i] / len;
    double pn = ld_v3_dot(normal, e1);
    for (int i = 0; i < 3; ++i) e2[i] = normal[i] - pn * e1[i];
    double n2 = ld_v3_norm(e2);
    if (!(n2 > 1e-9 * fmax(1.0, ld_v3_norm(normal)))) return LD_EINVAL;
    for (int i = 0; i < 3; ++i) e2[i] /= n2;
    ld_v3_cross(e3, e1, e2);
    for (int i = 0; i < 3; ++i) R[3 * i] = e1[i], R[3 * i + 1] = e2[i], R[3 * i + 2] = e3[i];
    ld_quat_from_mat(q, R);
    return LD_OK;
}

/* A symmetric (exactly) positive definite n×n matrix. */
static int spd(const double *A, int n) {
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < r; ++c)
            if (A[n * r + c] != A[n * c + r] || !isfinite(A[n * r + c])) return 0;
    return ld_mat_positive_definite(A, n);
}

/* The rotary inertia about the centre of mass, ρJ + hat(ρA ξ)²/ρA, is positive definite (the
 * 6×6 section mass then is). */
static int mass_ok(double rho_a, const double rho_j[9], const double mxi[3]) {
    double H[9], H2[9], Jc[9];
    ld_so3_hat(H, mxi);
    ld_m3_mul(H2, H, H);
    for (int i = 0; i < 9; ++i) Jc[i] = rho_j[i] + H2[i] / rho_a;
    return isfinite(mxi[0] + mxi[1] + mxi[2]) && ld_mat_positive_definite(Jc, 3);
}

/* The reference frames of the segments (qs: 4 per segment); LD_EINVAL for a degenerate one. */
static int segment_frames(const ld_beam *b, double *qs) {
    for (int sg = 0; sg + 1 < b->npoints; ++sg) {
        double d[3];
        for (int i = 0; i < 3; ++i) d[i] = b->points[3 * (sg + 1) + i] - b->points[3 * sg + i];
        if (ld_beam__frame(d, b->normal, qs + 4 * sg)) return LD_EINVAL;
    }
    return LD_OK;
}

/* The length of one element of the straight (piecewise) beam b's element e. */
static double seg_len(const ld_beam *b, int e) {
    const double *A = b->points + 3 * (e / b->nelem), *B = A + 3;
    double d[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
    return ld_v3_norm(d) / b->nelem;
}

/* The centreline's length. */
static double total_len(const ld_beam *b) {
    double L = 0.0;
    for (int e = 0; e < ld_beam_elements(b); ++e) L += seg_len(b, e);
    return L;
}

/* C ← T C Tᵀ, ρJ ← R ρJ Rᵀ, m ξ ← R m ξ with R the turn by a about e1, T = diag(R, R). */
static void twist_section(double a, double *C, double *rho_j, double *mxi) {
    double c = cos(a), s = sin(a), R[9] = {1, 0, 0, 0, c, -s, 0, s, c}, T[36] = {0}, X[36];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) T[6 * i + j] = T[6 * (i + 3) + j + 3] = R[3 * i + j];
    if (C) {
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) {
                double acc = 0.0;
                for (int k = 0; k < 6; ++k) acc += T[6 * i + k] * C[6 * k + j];
                X[6 * i + j] = acc;
            }
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) {
                double acc = 0.0;
                for (int k = 0; k < 6; ++k) acc += X[6 * i + k] * T[6 * j + k];
                C[6 * i + j] = acc;
            }
    }
    if (rho_j) {
        double Y[9], Rt[9];
        ld_m3_transpose(Rt, R);
        ld_m3_mul(Y, R, rho_j);
        ld_m3_mul(rho_j, Y, Rt);
    }
    if (mxi) {
        double v[3];
        ld_m3_mulv(v, R, mxi);
        memcpy(mxi, v, sizeof v);
    }
}

void ld_beam_section_at(const ld_beam *b, double eta, double C[36], double *rho_a, double rho_j[9],
                        double mxi[3]) {
    const double *C0 = b->C, *C1 = b->C, *J0 = b->rho_j, *J1 = b->rho_j, *m0 = b->mxi, *m1 = b->mxi;
    double a0 = b->rho_a, a1 = b->rho_a, t = 0.0, tw = 0.0;
    if (b->nstations >= 2 && b->stations) {
        const ld_beam_station *st = b->stations;
        int k = 0;
        while (k + 2 < b->nstations && eta > st[k + 1].eta) ++k;
        double d = st[k + 1].eta - st[k].eta;
        t = d > 0.0 ? (eta - st[k].eta) / d : 0.0;
        t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
        C0 = st[k].C, C1 = st[k + 1].C, J0 = st[k].rho_j, J1 = st[k + 1].rho_j;
        m0 = st[k].mxi, m1 = st[k + 1].mxi;
        a0 = st[k].rho_a, a1 = st[k + 1].rho_a;
        tw = (1.0 - t) * st[k].twist + t * st[k + 1].twist;
    }
    for (int i = 0; C && i < 36; ++i) C[i] = (1.0 - t) * C0[i] + t * C1[i];
    for (int i = 0; rho_j && i < 9; ++i) rho_j[i] = (1.0 - t) * J0[i] + t * J1[i];
    for (int i = 0; mxi && i < 3; ++i) mxi[i] = (1.0 - t) * m0[i] + t * m1[i];
    if (rho_a) *rho_a = (1.0 - t) * a0 + t * a1;
    if (tw != 0.0) twist_section(tw, C, rho_j, mxi);
}

/* The first fault of the section(s) (defined below): key and reason, or NULL. */
static const char *section_fault(const ld_beam *b, const char **why, char *key, size_t nk);

/* The section(s) hold: stiffness and mass positive definite, stations ascending from 0 to 1. */
static int sections_ok(const ld_beam *b) {
    const char *why;
    char key[64];
    return section_fault(b, &why, key, sizeof key) == NULL;
}

/* The beam's pin axis (spatial) as a unit vector; 0 when none is given (the ends turn freely). */
static int pin_axis(const ld_beam *b, double a[3]) {
    double n = ld_v3_norm(b->pin_axis);
    if (!(n > 0.0) || !isfinite(n)) return 0;
    for (int i = 0; i < 3; ++i) a[i] = b->pin_axis[i] / n;
    return 1;
}

/* Append the free nodes as bodies (lumped masses m_k, inertias J: 9 per node), at rest; a
 * pinned end's body keeps its position (turning freely or about the pin axis). */
static void add_bodies(ld_model *m, ld_beam *b, const double *mass, const double *J) {
    for (int k = 0; k < b->nnodes; ++k) {
        int end = k == 0 ? 0 : (k == b->nnodes - 1 ? 1 : -1);
        if (end >= 0 && b->clamp[end]) {
            b->node_body[k] = LD_GROUND;
            continue;
        }
        ld_body *bd = &m->bodies[m->nbodies];
        memset(bd, 0, sizeof *bd);
        strf(bd->name, sizeof bd->name, "%s[%d]", b->name, k);
        bd->mass = mass[k];
        memcpy(bd->inertia, J + 9 * k, sizeof bd->inertia);
        memcpy(bd->x, b->x0 + 3 * k, sizeof bd->x);
        memcpy(bd->q, b->q0 + 4 * k, sizeof bd->q);
        ld_rigid_motion(bd, b->has_motion, b->v0, b->w0, b->x0);
        bd->line = b->line;
        double a[3];
        if (end >= 0 && b->pin[end]) {
            bd->pin = pin_axis(b, a) ? LD_PIN_AXIS : LD_PIN_POINT;
            if (bd->pin == LD_PIN_AXIS) ld_quat_rotate_inv(bd->pin_axis, bd->q, a);
        }
        b->node_body[k] = m->nbodies++;
    }
}

/* The nodes' reference poses, each element's frames at its nodes, the nodes' length shares w
 * and arc-length fractions eta. */
static void place_nodes(const ld_beam *b, const double *qs, double *q0, double *x0, double *qe0,
                        double *w, double *eta) {
    int p = b->order, ne = ld_beam_elements(b);
    double xi[LD_BEAM_MAX_NODES], wg[LD_BEAM_MAX_NODES], L = total_len(b), s0 = 0.0;
    ld_beam_gll(p, xi);
    ld_beam_gll_weights(p, xi, wg);
    for (int e = 0; e < ne; ++e) {
        int sg = e / b->nelem, es = e % b->nelem;
        const double *A = b->points + 3 * sg, *B = A + 3;
        double Le = seg_len(b, e);
        for (int j = 0; j <= p; ++j) {
            int k = e * p + j;
            double t = (es + 0.5 * (xi[j] + 1.0)) / b->nelem;
            for (int i = 0; i < 3; ++i) x0[3 * k + i] = A[i] + t * (B[i] - A[i]);
            memcpy(qe0 + 4 * ((size_t)e * (size_t)(p + 1) + (size_t)j), qs + 4 * sg,
                   4 * sizeof(double));
            if (!(j == 0 && e > 0)) memcpy(q0 + 4 * k, qs + 4 * sg, 4 * sizeof(double));
            w[k] += 0.5 * Le * wg[j];
            eta[k] = fmin(1.0, (s0 + 0.5 * Le * (xi[j] + 1.0)) / L);
        }
        s0 += Le;
    }
    eta[0] = 0.0, eta[ne * p] = 1.0;
}

/* The lumped inertia: each element's share of ρA, ρJ and ρA ξ at the node (GLL quadrature), ρJ
 * and ρA ξ turned into the node's frame (mass: 1 per node, J: 9, mxi: 3 per node, all zeroed by
 * the caller). curve_len: a curved beam's length. */
static void lump(const ld_beam *b, double curve_len, const double *q0, const double *qe0,
                 const double *eta, double *mass, double *J, double *mxi) {
    int p = b->order;
    double xi[LD_BEAM_MAX_NODES], wg[LD_BEAM_MAX_NODES];
    ld_beam_gll(p, xi);
    ld_beam_gll_weights(p, xi, wg);
    for (int e = 0; e < ld_beam_elements(b); ++e)
        for (int j = 0; j <= p; ++j) {
            int k = e * p + j;
            double ci[4], c[4], Rc[9], Rt[9], T[9], Jn[9], rj[9], ra, mx[3], mn[3],
                wk = 0.5 * (b->curve ? curve_len / b->nelem : seg_len(b, e)) * wg[j];
            ld_beam_section_at(b, eta[k], NULL, &ra, rj, mx);
            ld_quat_conj(ci, q0 + 4 * k);
            ld_quat_mul(c, ci, qe0 + 4 * ((size_t)e * (size_t)(p + 1) + (size_t)j));
            ld_quat_to_mat(Rc, c);
            ld_m3_transpose(Rt, Rc);
            ld_m3_mul(T, Rc, rj);
            ld_m3_mul(Jn, T, Rt);
            ld_m3_mulv(mn, Rc, mx);
            mass[k] += wk * ra;
            for (int i = 0; i < 9; ++i) J[9 * k + i] += wk * Jn[i];
            for (int i = 0; i < 3; ++i) mxi[3 * k + i] += wk * mn[i];
        }
}

int ld_beam_place(ld_model *m, ld_beam *b) {
    if (!m || !b || b->order < 1 || b->order > LD_BEAM_ORDER_MAX || b->nelem < 1 ||
        b->npoints < 2 || b->npoints > LD_BEAM_POINTS_MAX || b->nelem > 1000000 || b->nquad < 0 ||
        b->nquad > LD_BEAM_QUAD_MAX || !sections_ok(b) || (b->pin[0] && b->clamp[0]) ||
        (b->pin[1] && b->clamp[1]) || !isfinite(ld_v3_norm(b->pin_axis)) ||
        ld_beam__node_count(b) > LD_BEAM_NODES_MAX)
        return LD_EINVAL;
    int p = b->order, ne = ld_beam_elements(b), nn = ne * p + 1;
    int nfree = nn - (b->clamp[0] != 0) - (b->clamp[1] != 0);
    double qs[4 * LD_BEAM_POINTS_MAX];
    if (!b->curve && segment_frames(b, qs)) return LD_EINVAL;
    char name[LD_NAME_MAX + 16];
    if (strf(name, sizeof name, "%.*s[%d]", LD_NAME_MAX, b->name, nn - 1) >= LD_NAME_MAX)
        return LD_EINVAL;
    int *nb = ld_xmalloc((size_t)nn * sizeof *nb, "the beam's nodes");
    double *q0 = ld_xmalloc(4 * (size_t)nn * sizeof *q0, "the beam's nodes"),
           *x0 = ld_xmalloc(3 * (size_t)nn * sizeof *x0, "the beam's nodes");
    double *qe0 =
        ld_xmalloc(4 * (size_t)ne * (size_t)(p + 1) * sizeof *qe0, "the beam's element frames");
    double *wl = ld_xcalloc(5 * (size_t)nn, sizeof *wl, "the beam's sections"),
           *eta = wl ? wl + nn : NULL;
    double *lm = ld_xcalloc(10 * (size_t)nn, sizeof *lm, "the beam's sections"),
           *J = lm ? lm + nn : NULL;
    ld_body *bodies = ld_xrealloc(m->bodies, ((size_t)m->nbodies + (size_t)nfree) * sizeof *bodies,
                                  "the beam's bodies");
    if (bodies) m->bodies = bodies;
    int rc = !nb || !q0 || !x0 || !qe0 || !wl || !lm || !bodies ? LD_ENOMEM : LD_OK;
    double curve_len = 0.0; /* a curved beam's length (its elements are of equal length) */
    if (!rc && b->curve)
        rc = ld_beam__place_curve(b, q0, x0, qe0, wl, eta, &curve_len);
    else if (!rc)
        place_nodes(b, qs, q0, x0, qe0, wl, eta);
    if (rc) {
        free(nb), free(q0), free(x0), free(qe0), free(wl), free(lm);
        return rc;
    }
    double *mxi = wl + 2 * (size_t)nn;
    lump(b, curve_len, q0, qe0, eta, lm, J, mxi);
    int off = 0;
    for (size_t i = 0; i < 3 * (size_t)nn; ++i) off |= mxi[i] != 0.0;
    b->nnodes = nn;
    b->node_body = nb;
    b->q0 = q0;
    b->x0 = x0;
    b->qe0 = qe0;
    b->wlen = wl;
    b->eta = eta;
    b->mxi_node = off ? mxi : NULL;
    add_bodies(m, b, lm, J);
    free(lm);
    return LD_OK;
}

int ld_model_add_beam(ld_model *m, ld_beam *b) {
    if (!m || !b) return LD_EINVAL;
    ld_beam *a = ld_xrealloc(m->beams, ((size_t)m->nbeams + 1) * sizeof *a, "the beams");
    if (!a) return LD_ENOMEM;
    m->beams = a;
    a[m->nbeams++] = *b;
    b->node_body = NULL, b->q0 = b->x0 = b->qe0 = b->wlen = NULL, b->eta = NULL;
    b->mxi_node = NULL;
    b->stations = NULL;
    return LD_OK;
}

void ld_beam_free_all(ld_model *m) {
    for (int i = 0; m->beams && i < m->nbeams; ++i) {
        free(m->beams[i].node_body);
        free(m->beams[i].q0);
        free(m->beams[i].x0);
        free(m->beams[i].qe0);
        free(m->beams[i].wlen); /* eta lives in the same block */
        free(m->beams[i].stations);
    }
    free(m->beams);
    m->beams = NULL;
    m->nbeams = 0;
}

/* The first fault of the section(s): key and reason, or NULL. */
static const char *section_fault(const ld_beam *b, const char **why, char *key, size_t nk) {
    if (b->nstations == 0) {
        if (!spd(b->C, 6))
            return *why = "the 6x6 section stiffness must be symmetric positive definite",
                   "stiffness";
        if (!(b->rho_a > 0.0) || !isfinite(b->rho_a)) return *why = "must be positive", "rho_a";
        if (!spd(b->rho_j, 3)) return *why = "must be symmetric positive definite", "rho_j";
        if (!mass_ok(b->rho_a, b->rho_j, b->mxi))
            return *why = "the 6x6 section mass must be positive definite (its centre of mass "
                          "too far off the axis for its rotary inertia)",
                   "mass";
        return NULL;
    }
    if (b->nstations < 2 || b->nstations > LD_BEAM_STATIONS_MAX || !b->stations)
        return *why = "need 2 … 1024 stations", "sections";
    for (int k = 0; k < b->nstations; ++k) {
        const ld_beam_station *st = &b->stations[k];
        const char *f = NULL;
        if (!(st->eta >= 0.0 && st->eta <= 1.0) || (k > 0 && !(st->eta > st[-1].eta)) ||
            (k == 0 && st->eta != 0.0) || (k == b->nstations - 1 && st->eta != 1.0))
            f = "eta", *why = "the stations' eta must ascend from 0 to 1";
        else if (!spd(st->C, 6))
            f = "stiffness", *why = "the 6x6 section stiffness must be symmetric positive definite";
        else if (!(st->rho_a > 0.0) || !isfinite(st->rho_a))
            f = "rho_a", *why = "must be positive";
        else if (!spd(st->rho_j, 3))
            f = "rho_j", *why = "must be symmetric positive definite";
        else if (!mass_ok(st->rho_a, st->rho_j, st->mxi))
            f = "mass", *why = "the 6x6 section mass must be positive definite (its centre of "
                               "mass too far off the axis for its rotary inertia)";
        else if (!isfinite(st->twist))
            f = "twist", *why = "must be a finite angle (rad)";
        if (f) {
            strf(key, nk, "sections[%d].%s", k, f);
            return key;
        }
    }
    return NULL;
}

int ld_beam_section_check(const ld_beam *b, char *key, size_t nk, char *why, size_t nw) {
    const char *w = NULL, *k = section_fault(b, &w, key, nk);
    if (!k) return LD_OK;
    if (k != key) strf(key, nk, "%s", k);
    strf(why, nw, "%s", w);
    return LD_EINVAL;
}

static int element_rule(const ld_beam *b, int e, double *xg, double *wg);

int ld_beam_check(const ld_model *m, int i, char *key, size_t nk, char *why, size_t nw) {
    const ld_beam *b = &m->beams[i];
    const char *k = NULL, *w = NULL;
    char sk[64];
    if (b->order < 1 || b->order > LD_BEAM_ORDER_MAX)
        k = "order", w = "must be 1 … 14";
    else if (b->nelem < 1)
        k = "elements", w = "must be at least 1";
    else if (b->nquad < 0 || b->nquad > LD_BEAM_QUAD_MAX)
        k = "quadrature", w = "must be full, reduced or a number of points 1 … 64";
    else if (b->nqsec < 0 || b->nqsec > LD_BEAM_QSEC_MAX)
        k = "quadrature_per_section", w = "must be 1 … 8";
    else if ((k = section_fault(b, &w, sk, sizeof sk)))
        ;
    else if (!(b->damping >= 0.0) || !isfinite(b->damping))
        k = "damping", w = "must be a finite number >= 0 (seconds)";
    else if ((b->pin[0] && b->clamp[0]) || (b->pin[1] && b->clamp[1]))
        k = "pin", w = "an end cannot be clamped and pinned both";
    else if (!isfinite(ld_v3_norm(b->pin_axis)))
        k = "pin_axis", w = "must be finite";
    else if (b->npoints < 2 || b->npoints > LD_BEAM_POINTS_MAX ||
             b->nnodes != ld_beam_elements(b) * b->order + 1 || !b->node_body || !b->q0 || !b->x0 ||
             !b->qe0 || !b->wlen || !b->eta)
        k = "nodes", w = "not placed (ld_beam_place)";
    for (int n = 0; !k && n < b->nnodes; ++n)
        if (b->node_body[n] < LD_GROUND || b->node_body[n] >= m->nbodies)
            k = "nodes", w = "a node's body is not one of the model's bodies";
    for (int e = 0; !k && e < ld_beam_elements(b); ++e)
        if (element_rule(b, e, NULL, NULL) < 1)
            k = "quadrature_per_section",
            w = "too many Gauss points in an element (more than 64: fewer per section or more "
                "elements)";
    if (!k) return LD_OK;
    strf(key, nk, "%s", k);
    strf(why, nw, "%s", w);
    return LD_EINVAL;
}

/* A copy of time function f with its own tables. */
static int tfn_copy(ld_tfn *out, const ld_tfn *f) {
    *out = *f;
    out->tab_t = out->tab_f = NULL;
    if (f->kind != LD_TFN_TABLE || f->ntab <= 0) return LD_OK;
    out->tab_t = ld_xmalloc((size_t)f->ntab * sizeof(double), "the load's table");
    out->tab_f = ld_xmalloc((size_t)f->ntab * sizeof(double), "the load's table");
    if (!out->tab_t || !out->tab_f) {
        free(out->tab_t), free(out->tab_f);
        out->tab_t = out->tab_f = NULL;
        return LD_ENOMEM;
    }
    memcpy(out->tab_t, f->tab_t, (size_t)f->ntab * sizeof(double));
    memcpy(out->tab_f, f->tab_f, (size_t)f->ntab * sizeof(double));
    return LD_OK;
}

int ld_model_add_beam_load(ld_model *m, int i, ld_load_kind kind, ld_frame_kind frame,
                           const double vec[3], const ld_tfn *fn, int line) {
    if (!m || i < 0 || i >= m->nbeams || !vec || !fn ||
        (kind != LD_LOAD_FORCE && kind != LD_LOAD_TORQUE) ||
        (frame != LD_IN_SPATIAL && frame != LD_IN_BODY))
        return LD_EINVAL;
    const ld_beam *b = &m->beams[i];
    if (!b->node_body || !b->wlen) return LD_EINVAL;
    int nfree = 0;
    for (int k = 0; k < b->nnodes; ++k) nfree += b->node_body[k] >= 0;
    ld_load *l =
        ld_xrealloc(m->loads, ((size_t)m->nloads + (size_t)nfree) * sizeof *l, "the beam's loads");
    if (!l) return LD_ENOMEM;
    m->loads = l;
    for (int k = 0; k < b->nnodes; ++k) {
        if (b->node_body[k] < 0) continue;
        ld_load *a = &m->loads[m->nloads];
        memset(a, 0, sizeof *a);
        a->kind = kind, a->frame = frame, a->body = b->node_body[k], a->line = line;
        for (int c = 0; c < 3; ++c) a->vec[c] = b->wlen[k] * vec[c];
        if (tfn_copy(&a->fn, fn)) return LD_ENOMEM;
        ++m->nloads;
    }
    return LD_OK;
}

/* ---------------------------------------------------------------- the element kind */

/* The prepared elements: one ld_beam_fe per finite element of every beam, in order, and the
 * sections at the quadrature points of the beams whose section varies. */
typedef struct beam_data {
    int n;
    ld_beam_fe *fe;
    double *Cq;
} beam_data;

/* The quadrature rule of element e of beam b (points ascending in ξ, weights on [−1, 1]): the
 * Gauss rule of nquad points, or with nqsec a Gauss rule of nqsec points on each piece of the
 * element between the stations (Kynema's segmented rule); its point count, or 0 if more than
 * LD_BEAM_MAX_QP. xg, wg may be NULL (the count only). */
static int element_rule(const ld_beam *b, int e, double *xg, double *wg) {
    if (b->nqsec <= 0) {
        int nq = b->nquad > 0 ? b->nquad : (b->reduced ? b->order : b->order + 1);
        if (xg && wg) ld_beam_gauss(nq, xg, wg);
        return nq;
    }
    double gx[LD_BEAM_MAX_QP], gw[LD_BEAM_MAX_QP], e0 = b->eta[e * b->order],
                                                   e1 = b->eta[e * b->order + b->order], a = e0;
    int n = 0, st = 0;
    if (b->nqsec > LD_BEAM_QSEC_MAX) return 0;
    ld_beam_gauss(b->nqsec, gx, gw);
    while (a < e1) {
        double c = e1;
        for (; b->nstations && st < b->nstations; ++st)
            if (b->stations[st].eta > a) {
                c = fmin(c, b->stations[st].eta);
                break;
            }
        if (n + b->nqsec > LD_BEAM_MAX_QP) return 0;
        for (int g = 0; g < b->nqsec && xg && wg; ++g) {
            double et = a + 0.5 * (gx[g] + 1.0) * (c - a);
            xg[n + g] = 2.0 * (et - e0) / (e1 - e0) - 1.0;
            wg[n + g] = gw[g] * (c - a) / (e1 - e0);
        }
        n += b->nqsec;
        a = c;
    }
    return n;
}

/* The stiffness at element e's nq quadrature points xg (arc-length fractions from the nodes'). */
static void element_sections(const ld_beam *b, int e, int nq, const double *xg, double *Cq) {
    int p = b->order;
    double e0 = b->eta[e * p], e1 = b->eta[e * p + p];
    for (int g = 0; g < nq; ++g)
        ld_beam_section_at(b, e0 + 0.5 * (xg[g] + 1.0) * (e1 - e0), Cq + 36 * g, NULL, NULL, NULL);
}

/* Free node slots of element e of beam b: their count; slot[] the local node numbers. */
static int free_slots(const ld_beam *b, int e, int *slot) {
    int n = 0;
    for (int j = 0; j <= b->order; ++j)
        if (b->node_body[e * b->order + j] >= 0) slot[n++] = j;
    return n;
}

static int bel_instances(const ld_model *m, ld_formulation f, ld_elem *out) {
    (void)f;
    int n = 0;
    for (int i = 0; i < m->nbeams; ++i) {
        const ld_beam *b = &m->beams[i];
        for (int e = 0; e < ld_beam_elements(b); ++e, ++n) {
            if (!out) continue;
            int slot[LD_BEAM_MAX_NODES], ns = free_slots(b, e, slot);
            out[n].item = i, out[n].sub = e, out[n].nn = ns, out[n].nrows = 0;
            for (int a = 0; a < ns; ++a) out[n].node[a] = b->node_body[e * b->order + slot[a]];
        }
    }
    return n;
}

static int bel_prepare(const ld_system *s, void **data, char *msg, size_t n) {
    const ld_model *m = ld_rb(s)->m;
    if (m->nbeams == 0) return LD_OK;
    int total = 0;
    size_t ncq = 0;
    for (int i = 0; i < m->nbeams; ++i) {
        const ld_beam *b = &m->beams[i];
        total += ld_beam_elements(b);
        for (int e = 0; b->nstations && e < ld_beam_elements(b); ++e)
            ncq += 36 * (size_t)element_rule(b, e, NULL, NULL);
    }
    beam_data *d = ld_xcalloc(1, sizeof *d, "the beam's elements");
    ld_beam_fe *fe = ld_xmalloc((size_t)total * sizeof *fe, "the beam's elements");
    double *Cq = ncq ? ld_xmalloc(ncq * sizeof *Cq, "the beam's elements") : NULL;
    if (!d || !fe || (ncq && !Cq)) {
        free(d), free(fe), free(Cq);
        return LD_ENOMEM;
    }
    d->n = total, d->fe = fe, d->Cq = Cq;
    *data = d;
    for (int i = 0, k = 0; i < m->nbeams; ++i) {
        const ld_beam *b = &m->beams[i];
        for (int e = 0; e < ld_beam_elements(b); ++e, ++k) {
            double xg[LD_BEAM_MAX_QP], wg[LD_BEAM_MAX_QP];
            int p = b->order, o = e * p, nq = element_rule(b, e, xg, wg), uni = b->nstations == 0;
            const double *qe = b->qe0 + 4 * (size_t)e * (size_t)(p + 1);
            if (!uni && nq > 0) element_sections(b, e, nq, xg, Cq);
            if (nq < 1 || ld_beam_fe_init_rule(&fe[k], p, nq, xg, wg, qe, b->x0 + 3 * o,
                                               uni ? b->C : Cq, uni)) {
                if (msg)
                    strf(msg, n, "beam %d ('%s'): element %d has a degenerate reference", i,
                         b->name, e);
                return LD_EINVAL;
            }
            if (!uni) Cq += 36 * (size_t)nq;
        }
    }
    return LD_OK;
}

static void bel_release(void *data) {
    beam_data *d = data;
    if (d) free(d->fe), free(d->Cq);
    free(d);
}

/* The element of an instance and its nodes' poses in the element's frames (clamped: the
 * reference): q_node ∘ c with c = q0⁻¹ ∘ qe0 the node's turn into the element's frame (the
 * identity but at corners); Rc[j] the rotation of c, R[j] the node's own rotation. */
static const ld_beam_fe *bel_poses(const ld_elem_ctx *c, double *q, double *x, double R[][9],
                                   double Rc[][9]) {
    const ld_model *m = ld_rb(c->s)->m;
    const ld_beam *b = &m->beams[c->e->item];
    const beam_data *d = ld_elems_data(c->s, &ld_ek_beam);
    int k = c->e->sub;
    for (int i = 0; i < c->e->item; ++i) k += ld_beam_elements(&m->beams[i]);
    for (int j = 0; j <= b->order; ++j) {
        int g = c->e->sub * b->order + j, body = b->node_body[g];
        const double *qe = b->qe0 + 4 * ((size_t)c->e->sub * (size_t)(b->order + 1) + (size_t)j);
        double qn[4], ci[4], cq[4];
        ld_quat_conj(ci, b->q0 + 4 * g);
        ld_quat_mul(cq, ci, qe);
        ld_quat_to_mat(Rc[j], cq);
        if (body < 0) {
            memcpy(q + 4 * j, qe, 4 * sizeof(double));
            memcpy(x + 3 * j, b->x0 + 3 * g, 3 * sizeof(double));
            ld_quat_to_mat(R[j], b->q0 + 4 * g);
            continue;
        }
        const double *xp;
        ld_rb_pose(c->s, c->q, body, R[j], &xp);
        ld_quat_from_mat(qn, R[j]);
        ld_quat_mul(q + 4 * j, qn, cq);
        memcpy(x + 3 * j, xp, 3 * sizeof(double));
    }
    return &d->fe[k];
}

/* The canonical force and stiffness (K may be NULL) of the element turned from its frames into
 * the nodes' (δθ_element = Rcᵀ δθ_node): rotation entries times Rc. */
static void turn(int nn, double Rc[][9], double *F, double *K) {
    size_t nc = 6 * (size_t)nn;
    for (int a = 0; a < nn; ++a) {
        double t[3];
        ld_m3_mulv(t, Rc[a], F + 6 * a);
        memcpy(F + 6 * a, t, sizeof t);
        for (size_t col = 0; K && col < nc; ++col) { /* rows: Rc K */
            double v[3];
            for (int i = 0; i < 3; ++i) v[i] = K[nc * (6 * (size_t)a + (size_t)i) + col];
            ld_m3_mulv(t, Rc[a], v);
            for (int i = 0; i < 3; ++i) K[nc * (6 * (size_t)a + (size_t)i) + col] = t[i];
        }
    }
    for (int b = 0; K && b < nn; ++b) /* columns: K Rcᵀ */
        for (size_t row = 0; row < nc; ++row) {
            double *r = K + nc * row + 6 * (size_t)b, t[3];
            ld_m3_mulv(t, Rc[b], r);
            memcpy(r, t, sizeof t);
        }
}

/* Evaluate and map to the instance's local arrays (free slots, formulation's coordinates). */
/* A(local, slots a, b) += Pᵀ X P for the canonical 6n-square X (rows and columns of the free
 * slots; P = diag(I, R) per node in the semidirect products, the identity otherwise). */
static void add_ptxp(const double *X, size_t nc, const int *slot, int ns, double R[][9], int semi,
                     double *A, size_t nl) {
    if (!semi) { /* P = I: the free slots' rows and columns */
        for (int a = 0; a < ns; ++a)
            for (int r = 0; r < 6; ++r) {
                const double *x = X + nc * (6 * (size_t)slot[a] + (size_t)r);
                double *o = A + nl * (6 * (size_t)a + (size_t)r);
                for (int bb = 0; bb < ns; ++bb)
                    for (int cc = 0; cc < 6; ++cc)
                        o[6 * bb + cc] += x[6 * (size_t)slot[bb] + (size_t)cc];
            }
        return;
    }
    for (int a = 0; a < ns; ++a)
        for (int bb = 0; bb < ns; ++bb)
            for (int r = 0; r < 6; ++r)
                for (int cc = 0; cc < 6; ++cc) {
                    double acc = 0.0;
                    int rs = r >= 3 && semi, cs = cc >= 3 && semi;
                    for (int i = 0; i < (rs ? 3 : 1); ++i)
                        for (int j = 0; j < (cs ? 3 : 1); ++j) {
                            int rr = rs ? 3 + i : r, cj = cs ? 3 + j : cc;
                            double wr = rs ? R[slot[a]][3 * i + (r - 3)] : 1.0;
                            double wc = cs ? R[slot[bb]][3 * j + (cc - 3)] : 1.0;
                            acc += wr *
                                   X[nc * (6 * (size_t)slot[a] + (size_t)rr) +
                                     6 * (size_t)slot[bb] + (size_t)cj] *
                                   wc;
                        }
                    A[nl * (6 * (size_t)a + (size_t)r) + 6 * (size_t)bb + (size_t)cc] += acc;
                }
}

/* The nodes' canonical velocities in the element's frames (Ω turned by Rcᵀ; ẋ = R U in the
 * semidirect products; clamped nodes at rest), from the instance's local v. */
static void canonical_velocity(const ld_elem_ctx *c, const ld_beam *b, double R[][9],
                               double Rc[][9], double *Om, double *xd) {
    int semi = ld_rb(c->s)->semi, a = 0;
    memset(Om, 0, 3 * (size_t)(b->order + 1) * sizeof(double));
    memset(xd, 0, 3 * (size_t)(b->order + 1) * sizeof(double));
    for (int j = 0; j <= b->order; ++j) {
        if (b->node_body[c->e->sub * b->order + j] < 0) continue;
        const double *v = c->v + c->e->off[a++];
        ld_m3_tmulv(Om + 3 * j, Rc[j], v);
        if (semi)
            ld_m3_mulv(xd + 3 * j, R[j], v + 3);
        else
            memcpy(xd + 3 * j, v + 3, 3 * sizeof(double));
    }
}

/* Evaluate and map to the instance's local arrays (free slots, formulation's coordinates): the
 * force g, the stiffness K (∂/∂q at fixed v), the damping matrix Cd (∂g/∂v), the energy V, as
 * wanted (NULL: not). */
static int bel_eval(const ld_elem_ctx *c, double *g, double *K, double *Cd, double *V) {
    enum { M = 6 * LD_BEAM_MAX_NODES };
    double q[4 * LD_BEAM_MAX_NODES], x[3 * LD_BEAM_MAX_NODES], R[LD_BEAM_MAX_NODES][9];
    double Rc[LD_BEAM_MAX_NODES][9], F[M], Om[3 * LD_BEAM_MAX_NODES], xd[3 * LD_BEAM_MAX_NODES];
    static _Thread_local double Kc[M * M], Kv[M * M];
    const ld_model *m = ld_rb(c->s)->m;
    const ld_beam *b = &m->beams[c->e->item];
    const ld_beam_fe *fe = bel_poses(c, q, x, R, Rc);
    int nn = b->order + 1, stiff = K != NULL, damp = b->damping > 0.0 && c->v;
    size_t nc = 6 * (size_t)nn, nl = (size_t)c->e->nl;
    if (V) ld_beam_fe_elastic(fe, q, x, LD_BEAM_ENERGY, NULL, NULL, V);
    if (!g && !K && !Cd) return LD_OK;
    if (g || stiff) /* ∂g/∂v alone needs only the damping */
        ld_beam_fe_elastic(fe, q, x, LD_BEAM_FORCE | (stiff ? LD_BEAM_STIFF : 0u), F, Kc, NULL);
    else
        memset(F, 0, sizeof F);
    if (damp) {
        if (Cd || stiff) memset(Kv, 0, nc * nc * sizeof(double));
        canonical_velocity(c, b, R, Rc, Om, xd);
        ld_beam_fe_damping(fe, q, x, Om, xd, b->damping, F, stiff ? Kc : NULL,
                           Cd || stiff ? Kv : NULL);
    }
    int corner = 0; /* some node's frame is not the element's (Rc ≠ I): turn */
    for (int j = 0; j < nn && !corner; ++j)
        for (int k = 0; k < 9; ++k) corner |= Rc[j][k] != (k % 4 == 0 ? 1.0 : 0.0);
    if (corner) turn(nn, Rc, F, stiff ? Kc : NULL);
    if (corner && damp && (Cd || stiff)) {
        double F0[M];
        memset(F0, 0, sizeof F0);
        turn(nn, Rc, F0, Kv);
    }
    int slot[LD_BEAM_MAX_NODES], ns = free_slots(b, c->e->sub, slot), semi = ld_rb(c->s)->semi;
    if (damp && stiff && semi) /* Kv Q: ẋ = R U moves with δθ as −R hat(U) */
        for (int a = 0; a < ns; ++a) {
            const double *U = c->v + c->e->off[a] + 3;
            double H[9], Qb[9];
            ld_so3_hat(H, U);
            ld_m3_mul(Qb, R[slot[a]], H);
            size_t cb = 6 * (size_t)slot[a];
            for (size_t r = 0; r < nc; ++r)
                for (int j = 0; j < 3; ++j) {
                    double acc = 0.0;
                    for (int l = 0; l < 3; ++l)
                        acc -= Kv[nc * r + cb + 3 + (size_t)l] * Qb[3 * l + j];
                    Kc[nc * r + cb + (size_t)j] += acc;
                }
        }
    for (int a = 0; a < ns; ++a) {
        const double *Fa = F + 6 * slot[a];
        double Fx[3];
        if (semi)
            ld_m3_tmulv(Fx, R[slot[a]], Fa + 3);
        else
            memcpy(Fx, Fa + 3, sizeof Fx);
        if (g)
            for (int i = 0; i < 3; ++i) g[6 * a + i] += Fa[i], g[6 * a + 3 + i] += Fx[i];
        if (stiff && semi) { /* N = hat(Rᵀ F_x) in the translation rows, rotation columns */
            double H[9];
            ld_so3_hat(H, Fx);
            for (int r = 0; r < 3; ++r)
                for (int cc = 0; cc < 3; ++cc)
                    K[nl * (6 * (size_t)a + 3 + (size_t)r) + 6 * (size_t)a + (size_t)cc] +=
                        H[3 * r + cc];
        }
    }
    if (stiff) add_ptxp(Kc, nc, slot, ns, R, semi, K, nl);
    if (damp && Cd) add_ptxp(Kv, nc, slot, ns, R, semi, Cd, nl);
    return LD_OK;
}

static int bel_force(const ld_elem_ctx *c, double *g) {
    return bel_eval(c, g, NULL, NULL, NULL);
}

static int bel_g_v(const ld_elem_ctx *c, double *Cd) {
    if (!(ld_rb(c->s)->m->beams[c->e->item].damping > 0.0)) return LD_OK; /* ∂g/∂v = 0 */
    return bel_eval(c, NULL, NULL, Cd, NULL);
}

static int bel_stiffness(const ld_elem_ctx *c, double *K) {
    return bel_eval(c, NULL, K, NULL, NULL);
}

static int bel_energy(const ld_elem_ctx *c, double *V) {
    return bel_eval(c, NULL, NULL, NULL, V);
}

/* The fused pass (element.h): g, K and ∂g/∂v from one evaluation of the element's strains. */
static int bel_newton(const ld_elem_ctx *c, const ld_elem_nout *o) {
    double *Cd = ld_rb(c->s)->m->beams[c->e->item].damping > 0.0 ? o->C : NULL;
    if (!o->g && !o->K && !Cd) return LD_OK;
    return bel_eval(c, o->g, o->K, Cd, NULL);
}

const ld_ekind ld_ek_beam = {.name = "beam",
                             .instances = bel_instances,
                             .force = bel_force,
                             .g_v = bel_g_v,
                             .stiffness = bel_stiffness,
                             .energy = bel_energy,
                             .newton = bel_newton,
                             .prepare = bel_prepare,
                             .release = bel_release};

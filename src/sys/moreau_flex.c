/*
 * moreau with rods and beams (docs/contact.md, "Rods and beams under moreau"): the Moreau–Jean
 * step of the whole system with its forces taken linearly implicit, the θ-method of the
 * MoreauJean scheme of Acary & Brogliato (2008, "Numerical Methods for Nonsmooth Dynamical
 * Systems", ch. 10) with θ = 1/2, in moreau's midpoint form on the group:
 *   q_M = q_k ∘ exp(h/2 v_k)
 *   Ŝ = [M̂ Bᵀ; B 0],  M̂ = M + hθ ∂g/∂v + h²θ² ∂g/∂q   (g = −f, at t_M, q_M, v_k)
 *   Ŝ (v_free − v_k; μ) = (−h (g + Bᵀλ_k); −B v_k − Φ_t)
 *   v_{k+1} = v_free + X P,  X = the velocity part of Ŝ⁻¹ (Hᵀ; 0)
 *   q_{k+1} = q_M ∘ exp(h/2 (v_{k+1} + δv))
 * For a linear system this is the implicit midpoint rule: the force acts at (q_k + q_{k+1})/2
 * and (v_k + v_{k+1})/2, so the stiff elastic forces of rods and beams are A-stable. The
 * constraints (joints, the rods' Kirchhoff rows) hold at the velocity level in Ŝ, their drift is
 * corrected by the split velocity δv with B δv = −2 Φ(q_M)/h. The contacts' impulses P solve
 * the same laws as moreau's bodies (Newton's impact law, Coulomb's friction, the open contacts'
 * touching bound) on the Delassus operator W = H X of the step's rows, assembled from one
 * factorization of Ŝ per step, by projected Gauss–Seidel on W; the position correction and the
 * end-of-step projection by the same sweeps on W's normal rows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oom.h"
#include "../core/strf.h"
#include "moreau_flex.h"

#define THETA 0.5

const char *ld_mjf_unfit(const ld_system *s) {
    const rb_sys *rb = ld_rb(s);
    const ld_model *m = rb->m;
    if (rb->euler) return "moreau needs a Lie-group formulation, not euler";
    for (int i = 0; i < m->nbodies; ++i)
        if (m->bodies[i].pin)
            return "pinned bodies (their position eliminated) are not in contact models yet";
    for (int j = 0; j < m->njoints; ++j)
        if (m->joints[j].has_limits) return "joint limits with rods or beams are not in moreau yet";
    for (int r = 0; r < m->nrods; ++r)
        if (m->rods[r].collide.on && m->rods[r].collide.spans)
            return "spans of rods and beams against each other (collide: spans) are not in moreau "
                   "yet";
    for (int b = 0; b < m->nbeams; ++b)
        if (m->beams[b].collide.on && m->beams[b].collide.spans)
            return "spans of rods and beams against each other (collide: spans) are not in moreau "
                   "yet";
    int s1, s2;
    if (ld_cworld_unsupported(m, &s1, &s2))
        return "a colliding shape that contact detection does not test (spheres, capsules and "
               "boxes collide)";
    return NULL;
}

/* The colliding spans into F->seg and F's scale: the largest span or shape reach (m). */
static double spans(const ld_model *m, mjf *F) {
    double sc = 1e-3;
    for (int g = 0; g < F->nseg; ++g) {
        ld_cseg_get(m, g, &F->seg[g]);
        sc = fmax(sc, F->seg[g].c.radius);
    }
    for (int i = 0; i < m->nshapes; ++i)
        if (m->shapes[i].collide) sc = fmax(sc, m->shapes[i].size[0]);
    return sc;
}

int ld_mjf_create(ld_integ *it, mj *S) {
    const ld_system *s = it->s;
    const ld_model *m = ld_rb(s)->m;
    mjf *F = ld_xcalloc(1, sizeof *F, "moreau's rods and beams");
    if (!F) return LD_ENOMEM;
    S->F = F;
    int ns = 0;
    for (int i = 0; i < m->nshapes; ++i) ns += m->shapes[i].collide != 0;
    F->nseg = ld_cseg_count(m);
    F->cap = 4 * F->nseg + 16 * ns + 64;
    size_t cap = (size_t)F->cap, R = 3 * cap, k = (size_t)s->k, n = (size_t)(s->k + s->m);
    size_t nb = (size_t)m->nbodies;
    S->nb = m->nbodies, S->cap = F->cap;
    F->seg = ld_xcalloc((size_t)F->nseg + 1, sizeof *F->seg, "the spans");
    F->c = ld_xmalloc(cap * sizeof *F->c, "the contacts");
    F->Rb = ld_xmalloc(12 * nb * sizeof *F->Rb, "the poses");
    F->X = ld_xmalloc(R * n * sizeof *F->X, "the contacts' columns");
    F->W = ld_xmalloc(R * R * sizeof *F->W, "the Delassus operator");
    F->P = ld_xmalloc(3 * R * sizeof *F->P, "the impulses");
    F->warm = ld_xmalloc(2 * cap * sizeof *F->warm, "the warm start");
    F->rhs = ld_xmalloc((n + 3 * k + (size_t)s->nq + (size_t)s->m) * sizeof *F->rhs, "the step");
    S->pts = ld_xmalloc(cap * sizeof *S->pts, "the contact points");
    S->cf = ld_xcalloc(12 * nb, sizeof *S->cf, "the contact forces");
    if (ns > 0) F->w = ld_cworld_create(m, F->cap);
    if (!F->seg || !F->c || !F->Rb || !F->X || !F->W || !F->P || !F->warm || !F->rhs || !S->pts ||
        !S->cf || (ns > 0 && !F->w)) {
        /* the whole work asked for (the refused part is one of these) */
        it->oom_bytes = 8.0 * ((double)R * (double)(R + n + 3) + 2.0 * (double)cap +
                               12.0 * (double)nb + (double)(n + 3 * k + (size_t)s->nq)) +
                        (double)cap * (double)(sizeof *F->c + sizeof *S->pts);
        return LD_ENOMEM;
    }
    F->xb = F->Rb + 9 * nb;
    F->Uf = F->P + R, F->tg = F->Uf + R;
    F->wtrial = F->warm + cap;
    F->vk = F->rhs + n, F->dvp = F->vk + k, F->qm = F->dvp + k, F->phim = F->qm + s->nq;
    S->cft = S->cf + 6 * nb;
    S->scale = spans(m, F);
    return LD_OK;
}

void ld_mjf_free(mj *S) {
    mjf *F = S->F;
    if (!F) return;
    free(F->seg);
    free(F->c);
    free(F->Rb);
    free(F->X);
    free(F->W);
    free(F->P);
    free(F->warm);
    free(F->rhs);
    ld_cworld_free(F->w);
    free(F);
    S->F = NULL;
}

/* ---------------------------------------------------------------- the contacts' operator */

/* The columns X_j = Ŝ⁻¹ (H_jᵀ; 0) of the rows of the nc contacts (rows: 3 each, or the normal
 * only when normal) and W = H X (compact, its rows' count R). LD_OK or the solver's status. */
static int delassus(ld_integ *it, mjf *F, int nc, int normal) {
    int n = it->n, per = normal ? 1 : 3, R = per * nc;
    for (int c = 0; c < nc; ++c)
        for (int d = 0; d < per; ++d) {
            double *x = F->X + (size_t)(per * c + d) * (size_t)n;
            memset(x, 0, (size_t)n * sizeof *x);
            ld_mjf_axpy(&F->c[c], d, 1.0, x);
            int rc = ld_integ__solve(it, x);
            if (rc) return rc;
        }
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < R; ++j)
            F->W[(size_t)i * (size_t)R + (size_t)j] =
                ld_mjf_dot(&F->c[i / per], i % per, F->X + (size_t)j * (size_t)n);
    return LD_OK;
}

/* v += Σ_j X_j P_j over the R columns (the first len entries of each). */
static void apply(const mjf *F, int R, int n, int len, const double *P, double *v) {
    for (int j = 0; j < R; ++j) {
        if (P[j] == 0.0) continue;
        const double *x = F->X + (size_t)j * (size_t)n;
        for (int i = 0; i < len; ++i) v[i] += P[j] * x[i];
    }
}

/* (W P)_i of the R rows. */
static double wrow(const mjf *F, int R, int i, const double *P) {
    const double *w = F->W + (size_t)i * (size_t)R;
    double u = 0.0;
    for (int j = 0; j < R; ++j) u += w[j] * P[j];
    return u;
}

/* ---------------------------------------------------------------- the warm start */

/* Contact c's key (its place j among the contacts before it of the same span and shapes). */
static mjf_warm key_of(const mjf *F, int c) {
    const mjf_contact *k = &F->c[c];
    mjf_warm w = {.seg = k->seg, .sa = k->sa, .sb = k->sb};
    for (int i = c - 1; i >= 0; --i) {
        const mjf_contact *o = &F->c[i];
        if (o->seg != k->seg || o->sa != k->sa || o->sb != k->sb) break;
        ++w.j;
    }
    return w;
}

static int same_key(const mjf_warm *a, const mjf_warm *b) {
    return a->seg == b->seg && a->sa == b->sa && a->sb == b->sb && a->j == b->j;
}

/* The impulses P of the nc contacts started from the last step's of the same keys (in space,
 * taken onto the present frames and projected onto the cones), else 0. Both lists are in the
 * detector's order: the search goes on from the last match. */
static void warm_start(mjf *F, int nc) {
    int at = 0;
    memset(F->P, 0, 3 * (size_t)nc * sizeof *F->P);
    for (int c = 0; c < nc && F->nwarm > 0; ++c) {
        mjf_warm w = key_of(F, c);
        for (int n = 0; n < F->nwarm; ++n) {
            const mjf_warm *o = &F->warm[(at + n) % F->nwarm];
            if (!same_key(o, &w)) continue;
            const mjf_contact *k = &F->c[c];
            double *P = F->P + 3 * c;
            for (int d = 0; d < 3; ++d) P[d] = ld_v3_dot(o->F, k->d[d]);
            P[0] = fmax(P[0], 0.0);
            double l = sqrt(P[1] * P[1] + P[2] * P[2]),
                   sc = l > k->mu * P[0] ? k->mu * P[0] / l : 1.0;
            P[1] *= sc, P[2] *= sc;
            at = (at + n + 1) % F->nwarm;
            break;
        }
    }
}

/* The trial's impulses of the nc contacts kept with their keys. */
static void warm_keep(mjf *F, int nc) {
    for (int c = 0; c < nc; ++c) {
        mjf_warm *w = &F->wtrial[c];
        *w = key_of(F, c);
        const double *P = F->P + 3 * c;
        for (int i = 0; i < 3; ++i)
            w->F[i] = P[0] * F->c[c].d[0][i] + P[1] * F->c[c].d[1][i] + P[2] * F->c[c].d[2][i];
    }
    F->nwtrial = nc;
}

/* The velocities' impulses of the nc contacts (3 rows each) by projected Gauss–Seidel on W:
 * U = Uf + W P, the normal U_n ≥ vmin ⊥ P_n ≥ 0, the friction (P_t1, P_t2) moved by −U_t/D_f
 * (D_f the larger diagonal) and projected onto the disc μ P_n; until no impulse changes by more
 * than tol of the largest, at most maxit sweeps: the sweeps made. */
static int pgs_velocity(mjf *F, int nc, double tol, int maxit) {
    int R = 3 * nc;
    double *P = F->P;
    warm_start(F, nc);
    for (int it = 1; it <= maxit; ++it) {
        double change = 0.0, size = 0.0;
        for (int c = 0; c < nc; ++c) {
            const mjf_contact *k = &F->c[c];
            int i = 3 * c;
            double Dn = F->W[(size_t)i * (size_t)R + (size_t)i];
            if (!(Dn > 0.0)) continue;
            double un = F->Uf[i] + wrow(F, R, i, P);
            double pn = fmax(0.0, P[i] - (un - k->vmin) / Dn);
            change = fmax(change, fabs(pn - P[i])), P[i] = pn, size = fmax(size, pn);
            double D1 = F->W[(size_t)(i + 1) * (size_t)(R + 1)],
                   D2 = F->W[(size_t)(i + 2) * (size_t)(R + 1)], Df = fmax(D1, D2);
            if (!(Df > 0.0) || k->mu <= 0.0) continue;
            double t[2], l = 0.0;
            for (int d = 0; d < 2; ++d) {
                double u = F->Uf[i + 1 + d] + wrow(F, R, i + 1 + d, P);
                t[d] = P[i + 1 + d] - u / Df, l += t[d] * t[d];
            }
            l = sqrt(l);
            double sc = l > k->mu * pn ? k->mu * pn / l : 1.0;
            for (int d = 0; d < 2; ++d) {
                change = fmax(change, fabs(sc * t[d] - P[i + 1 + d]));
                P[i + 1 + d] = sc * t[d];
            }
            size = fmax(size, sc * l);
        }
        if (change <= tol * size) return it;
    }
    return maxit;
}

/* The normal impulses dP ≥ 0 of the nc contacts (W of the normal rows) with W dP ≥ tg ⊥ dP ≥ 0,
 * by the same sweeps, to tol or the violation floor: the sweeps made. */
static int pgs_normal(mjf *F, int nc, double tol, double floor, int maxit) {
    double *P = F->P;
    memset(P, 0, (size_t)nc * sizeof *P);
    int any = 0;
    for (int c = 0; c < nc; ++c) any |= F->tg[c] > floor;
    if (!any) return 0;
    for (int it = 1; it <= maxit; ++it) {
        double change = 0.0, size = 0.0, viol = 0.0;
        for (int c = 0; c < nc; ++c) {
            double D = F->W[(size_t)c * (size_t)(nc + 1)];
            if (!(D > 0.0)) continue;
            double u = wrow(F, nc, c, P), p = fmax(0.0, P[c] - (u - F->tg[c]) / D);
            change = fmax(change, fabs(p - P[c])), P[c] = p, size = fmax(size, p);
        }
        for (int c = 0; c < nc; ++c) viol = fmax(viol, F->tg[c] - wrow(F, nc, c, P));
        if (change <= tol * size || viol <= floor) return it;
    }
    return maxit;
}

/* ---------------------------------------------------------------- the step's parts */

/* The largest speed of a node or body at v: |ẋ| + |Ω| ρ, ρ the scale. */
static double speed(const ld_system *s, const double *q, const double *v, double rho) {
    double u = 0.0, R[9], x[3], Om[3], xd[3];
    for (int i = 0; i < ld_rb(s)->m->nbodies; ++i) {
        ld_rb_state_read(s, q, v, i, R, x, Om, xd);
        u = fmax(u, ld_v3_norm(xd) + ld_v3_norm(Om) * rho);
    }
    return isfinite(u) ? u : 0.0;
}

/* The contact forces per body (S->cft, impulses P of the nc contacts over h) and the points. */
static void forces(mj *S, int nc, double h) {
    mjf *F = S->F;
    memset(S->cft, 0, 6 * (size_t)S->nb * sizeof *S->cft);
    S->npts = 0;
    for (int c = 0; c < nc; ++c) {
        const mjf_contact *k = &F->c[c];
        const double *P = F->P + 3 * c;
        double f[3];
        for (int j = 0; j < 3; ++j)
            f[j] = (P[0] * k->d[0][j] + P[1] * k->d[1][j] + P[2] * k->d[2][j]) / h;
        for (int p = 0; p < k->np; ++p) {
            const mjf_part *pt = &k->pt[p];
            double tq[3], *o = S->cft + 6 * pt->body;
            ld_v3_cross(tq, pt->r, f);
            for (int j = 0; j < 3; ++j) o[j] += pt->wt * f[j], o[3 + j] += pt->wt * tq[j];
        }
        if (k->open && P[0] == 0.0) continue;
        ld_contact_point *o = &S->pts[S->npts++];
        o->body1 = k->np > 0 ? k->pt[0].body : -1, o->body2 = k->b, o->shape1 = k->sa;
        o->shape2 = k->sb;
        memcpy(o->point, k->p, sizeof o->point);
        memcpy(o->normal, k->d[0], sizeof o->normal);
        o->gap = k->gap;
        memcpy(o->force, f, sizeof f);
    }
}

/* The contacts' law at the free velocities F->Uf: open (not closed, not closing), U_n ≥ −2g/h;
 * else Newton's, U_n ≥ −e min(U_n,k, 0). */
static void laws(mjf *F, int nc, double h, const double *v) {
    for (int c = 0; c < nc; ++c) {
        mjf_contact *k = &F->c[c];
        for (int d = 0; d < 3; ++d) F->Uf[3 * c + d] = ld_mjf_dot(k, d, v);
        k->un0 = ld_mjf_dot(k, 0, F->vk);
        k->open = k->gap > CLOSED && k->gap + 0.5 * h * F->Uf[3 * c] > CLOSED;
        k->vmin = k->open ? -2.0 * k->gap / h : -k->e * fmin(k->un0, 0.0);
    }
}

/* The end-of-step projection: where a contact overlaps by more than 10⁻⁹ of the scale or a
 * constraint is open, q ← q ∘ exp(δ) with δ = Ŝ⁻¹ (Σ H_nᵀ dP; −Φ) and W dP ≥ −g − H δ_Φ ⊥ dP ≥ 0,
 * at most LD_MJ_PROJECT_PASSES passes; the overlap left. LD_OK or a status. */
static int project(ld_integ *it, mj *S, double t, double *q, double tol, int maxit, double *left) {
    const ld_system *s = it->s;
    mjf *F = S->F;
    int k = it->k, n = it->n, m = it->m;
    double ptol = 1e-9 * S->scale, over = 0.0;
    for (int pass = 0; pass <= LD_MJ_PROJECT_PASSES; ++pass) {
        int nc = ld_mjf_detect(s, F, q, 0.0);
        if (nc < 0) return LD_ENOMEM;
        over = 0.0;
        for (int c = 0; c < nc; ++c) over = fmax(over, -F->c[c].gap);
        double open = 0.0;
        if (m > 0) {
            int rc = s->ops.phi(s, t, q, F->rhs + k);
            if (rc) return rc;
            for (int r = 0; r < m; ++r) open = fmax(open, fabs(F->rhs[k + r]));
        }
        if ((over <= ptol && open <= ptol) || pass == LD_MJ_PROJECT_PASSES) break;
        memset(F->rhs, 0, (size_t)k * sizeof *F->rhs);
        for (int r = 0; r < m; ++r) F->rhs[k + r] = -F->rhs[k + r];
        int rc = m > 0 ? ld_integ__solve(it, F->rhs) : LD_OK;
        if (!rc) rc = delassus(it, F, nc, 1);
        if (rc) return rc;
        for (int c = 0; c < nc; ++c) F->tg[c] = -F->c[c].gap - ld_mjf_dot(&F->c[c], 0, F->rhs);
        S->trial_csweeps += pgs_normal(F, nc, tol, 1e-12 * S->scale, maxit);
        apply(F, nc, n, k, F->P, F->rhs);
        memcpy(F->qm, q, (size_t)s->nq * sizeof *q);
        ld_sys_retract(s, q, F->qm, F->rhs);
    }
    *left = over;
    return LD_OK;
}

/* ---------------------------------------------------------------- the step */

/* q_M, the force and Ŝ at (t_M, q_M, v_k) factored, v_free into it->vn, the constraints'
 * multipliers into it->lamn, the joints' correction into F->dvp. LD_OK or a rejection. */
static int free_flight(ld_integ *it, mjf *F, double tm, double h) {
    const ld_system *s = it->s;
    int k = it->k, m = it->m, n = it->n;
    for (int i = 0; i < k; ++i) it->xi[i] = 0.5 * h * it->v[i];
    ld_sys_retract(s, it->qn, it->q, it->xi);
    memset(it->xi, 0, (size_t)k * sizeof *it->xi);
    memcpy(F->qm, it->qn, (size_t)s->nq * sizeof *it->qn);
    memcpy(F->vk, it->v, (size_t)k * sizeof *it->v);
    memcpy(it->vn, it->v, (size_t)k * sizeof *it->v);
    memset(it->vdn, 0, (size_t)k * sizeof *it->vdn);
    memcpy(it->lamn, it->lam, (size_t)m * sizeof *it->lam);
    it->bh2 = h * h;
    int rc = ld_integ__residual(it, tm);
    if (!rc) rc = ld_integ__assemble(it, tm, 1.0, THETA * h, THETA * THETA * h * h, NULL);
    if (rc) return ld_integ__reject(it, rc > 0 ? rc : LD_RETRY_NONFINITE, "the step's matrix", h);
    memcpy(F->phim, it->r + k, (size_t)m * sizeof *F->phim);
    for (int i = 0; i < k; ++i) F->rhs[i] = -h * it->r[i];
    for (int r = 0; r < m; ++r) {
        double bv = 0.0;
        for (int i = 0; i < k; ++i) bv += it->B[(size_t)r * (size_t)k + (size_t)i] * it->v[i];
        F->rhs[k + r] = -bv;
    }
    if (m > 0 && s->ops.phi_t) {
        rc = s->ops.phi_t(s, tm, it->qn, F->dvp);
        if (rc) return ld_integ__reject(it, rc > 0 ? rc : LD_RETRY_NONFINITE, "Φ_t", h);
        for (int r = 0; r < m; ++r) F->rhs[k + r] -= F->dvp[r];
    }
    if ((rc = ld_integ__factor(it)) || (rc = ld_integ__solve(it, F->rhs)))
        return ld_integ__reject(it, LD_RETRY_SINGULAR, "the step's matrix is singular", h);
    for (int i = 0; i < k; ++i) it->vn[i] = it->v[i] + F->rhs[i];
    for (int r = 0; r < m; ++r) it->lamn[r] = it->lam[r] + F->rhs[k + r] / h;
    memset(F->rhs, 0, (size_t)n * sizeof *F->rhs); /* B δv = −2 Φ(q_M)/h */
    for (int r = 0; r < m; ++r) F->rhs[k + r] = -2.0 * F->phim[r] / h;
    if (m > 0 && ld_integ__solve(it, F->rhs))
        return ld_integ__reject(it, LD_RETRY_SINGULAR, "the step's matrix is singular", h);
    memcpy(F->dvp, F->rhs, (size_t)k * sizeof *F->dvp);
    return LD_OK;
}

/* The split correction of the positions: δv = δv_Φ + Σ X_n δP_n with the gaps at the step's end
 * g + h/2 (U_n + δU_n) ≥ 0; into F->dvp. The sweeps. */
static int correct(ld_integ *it, mj *S, int nc, double h, double tol, int maxit) {
    mjf *F = S->F;
    int k = it->k, n = it->n;
    for (int c = 0; c < nc; ++c) {
        const mjf_contact *q = &F->c[c];
        F->tg[c] = -2.0 * q->gap / h - ld_mjf_dot(q, 0, it->vn) - ld_mjf_dot(q, 0, F->dvp);
    }
    /* the normal rows' W and columns are the velocities' every third: compacted in place,
     * W_n(i, j) = W(3i, 3j), X_n,j = X_3j */
    int R = 3 * nc, sw = 0;
    if (nc > 0) {
        for (int i = 0; i < nc; ++i)
            for (int j = 0; j < nc; ++j)
                F->W[(size_t)i * (size_t)nc + (size_t)j] =
                    F->W[(size_t)(3 * i) * (size_t)R + (size_t)(3 * j)];
        for (int j = 1; j < nc; ++j)
            memcpy(F->X + (size_t)j * (size_t)n, F->X + (size_t)(3 * j) * (size_t)n,
                   (size_t)n * sizeof *F->X);
        sw = pgs_normal(F, nc, tol, 1e-12 * S->scale / h, maxit);
        apply(F, nc, n, k, F->P, F->dvp);
    }
    return sw;
}

int ld_mjf_step(ld_integ *it, double t1) {
    const ld_system *s = it->s;
    mj *S = it->priv;
    mjf *F = S->F;
    int k = it->k, n = it->n, m = it->m;
    double h = t1 - it->t, tm = it->t + 0.5 * h, tol = PGS_TOL(&it->o);
    int maxit = (int)PGS_ITER(&it->o);
    S->trial_csweeps = 0;
    int rc = free_flight(it, F, tm, h);
    if (rc) return rc;
    double u = fmax(speed(s, F->qm, it->vn, S->scale), speed(s, F->qm, F->vk, S->scale));
    int nc = ld_mjf_detect(s, F, F->qm, CLOSED + h * u);
    if (nc < 0) {
        strf(it->msg, sizeof it->msg, "moreau: more than %d contacts at t = %.10g", F->cap, tm);
        return LD_ENOMEM;
    }
    laws(F, nc, h, it->vn);
    if ((rc = delassus(it, F, nc, 0)))
        return ld_integ__reject(it, LD_RETRY_SINGULAR, "the contacts' operator", h);
    int sweeps = nc > 0 ? pgs_velocity(F, nc, tol, maxit) : 1;
    double *full = F->rhs; /* the impulses' share of (v, λ h) */
    memset(full, 0, (size_t)n * sizeof *full);
    apply(F, 3 * nc, n, n, F->P, full);
    for (int i = 0; i < k; ++i) it->vn[i] += full[i];
    for (int r = 0; r < m; ++r) it->lamn[r] += full[k + r] / h;
    S->last_sweeps = sweeps, S->last_contacts = nc, S->sweeps += sweeps;
    it->st.newton_iterations += sweeps;
    forces(S, nc, h);
    warm_keep(F, nc);
    double over = 0.0;
    for (int c = 0; c < nc; ++c) over = fmax(over, -F->c[c].gap);
    S->trial_overlap = over;
    S->trial_csweeps += correct(it, S, nc, h, tol, maxit);
    for (int i = 0; i < k; ++i) it->xi[i] = 0.5 * h * (it->vn[i] + F->dvp[i]);
    ld_sys_retract(s, it->qn, F->qm, it->xi);
    memset(it->xi, 0, (size_t)k * sizeof *it->xi);
    double left = 0.0;
    rc = project(it, S, t1, it->qn, tol, maxit, &left);
    if (rc == LD_ENOMEM) {
        strf(it->msg, sizeof it->msg, "moreau: more than %d contacts at t = %.10g", F->cap, t1);
        return LD_ENOMEM;
    }
    if (rc) return ld_integ__reject(it, LD_RETRY_NONFINITE, "the step's projection", h);
    rc = ld_integ__finite(it, it->qn, (size_t)s->nq, "non-finite configuration");
    if (!rc) rc = ld_integ__finite(it, it->vn, (size_t)k, "non-finite velocity");
    if (rc) return ld_integ__reject(it, LD_RETRY_NONFINITE, it->why, h);
    memcpy(it->q, it->qn, (size_t)s->nq * sizeof(double));
    memcpy(it->v, it->vn, (size_t)k * sizeof(double));
    memcpy(it->lam, it->lamn, (size_t)m * sizeof(double));
    for (int i = 0; i < k; ++i) it->vd[i] = NAN;
    memcpy(S->cf, S->cft, 6 * (size_t)S->nb * sizeof *S->cf);
    F->end_overlap = left, F->max_end_overlap = fmax(F->max_end_overlap, left);
    memcpy(F->warm, F->wtrial, (size_t)F->nwtrial * sizeof *F->warm);
    F->nwarm = F->nwtrial;
    S->overlap = S->trial_overlap, S->max_overlap = fmax(S->max_overlap, S->overlap);
    S->last_csweeps = S->trial_csweeps, S->csweeps += S->trial_csweeps;
    return LD_OK;
}

/*
 * moreau: the Moreau–Jean time-stepping scheme for rigid bodies in contact with each other and
 * the ground plane, with Newton's impact law and Coulomb friction (docs/contact.md; Moreau
 * 1988, "Unilateral contact and dry friction in finite freedom dynamics", and Jean 1999, "The
 * non-smooth contact dynamics method"), on the group: Moreau's midpoint form
 *   q_M = q_k ∘ exp(h/2 v_k)                     (each body: R exp(h/2 Ω), x + h/2 ẋ)
 *   M (v_{k+1} − v_k) = h f(t_k + h/2, q_M, v_k) + Σ_c W_cᵀ P_c
 *   q_{k+1} = q_M ∘ exp(h/2 v_{k+1})
 * where f holds gravity, the loads and the gyroscopic torque −Ω × JΩ, and the contacts c are
 * those closed at the midpoint (gap(q_M) ≤ 0, to 10⁻¹² m). Each contact's impulse P_c = (P_n, P_t1,
 * P_t2) in its frame (n, t1, t2) obeys, with U = W_c v the relative velocity there, 0 ≤ U_n,{k+1} +
 * e U_n,k  ⊥  P_n ≥ 0        (Newton's impact law, restitution e) |P_t| ≤ μ P_n, P_t opposing U_t
 * when sliding (Coulomb, dry friction) The impulses are found by projected Gauss–Seidel over the
 * contacts (each: the normal impulse projected onto P_n ≥ 0, the tangential onto the disc |P_t| ≤ μ
 * P_n, from the diagonal of the Delassus operator W M⁻¹ Wᵀ), until no impulse changes by more than
 * pgs_tol of the largest, at most pgs_max_iter sweeps; by default each sweep starts from
 * Nesterov's extrapolation of the last two (solve_accel), which stops also when the bodies'
 * velocities no longer change. The contact constraints hold at the velocity
 * level: a resting contact stays at rest, it does not sink; the overlap a contact reaches is
 * that of its closing step, O(h U_n). First order (the explicit gyroscopic torque and the
 * impact law); second order for translation under position-dependent forces between contacts.
 *
 * Joints take part through their rows of B at the midpoint, held at the velocity level,
 * B v_{k+1} = −Φ_t, by impulses λ in the same sweeps (the state's multipliers are λ/h), and
 * their drift is corrected in the positions only: the last half drift moves the bodies with
 * v_{k+1} + δv, B δv = −2 Φ(q_M)/h (a split impulse: δv does not enter the velocities); the
 * rows of the semidirect and spatial formulations are carried over to (Ω, ẋ). No pinned
 * bodies (refused with the reason); force elements act in the kick, evaluated explicitly at the
 * midpoint (docs/contact.md). A model with rods or beams takes the path of moreau_flex.c: the
 * whole system's step with its forces linearly implicit (their elastic forces are stiff). Every
 * Lie-group formulation: the state is read and written in the formulation's layout. The parts of
 * the method are in the files moreau_impl.h lists.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "liedyn/liedyn.h"
#include "moreau_flex.h"

/* ---------------------------------------------------------------- refusals */

/* Has the compiled model of s rods or beams (moreau_flex.c's path)? */
static int flexible(const ld_system *s) {
    if (!s || !s->user || s->ops.force != ld_elems_force) return 0;
    const ld_model *m = ld_rb(s)->m;
    return m->nrods > 0 || m->nbeams > 0;
}

static const char *unfit(const ld_system *s) {
    if (flexible(s)) return ld_mjf_unfit(s);
    const char *why = ld_rb_rigid_only(s, "moreau needs", "in contact models yet", 1);
    if (why) return why;
    const ld_model *m = ld_rb(s)->m;
    if (s->m > 0 && !s->ops.phi_q_sparse)
        return "joints with moreau need the sparse rows of a Lie-group formulation";
    int s1, s2;
    if (ld_cworld_unsupported(m, &s1, &s2))
        return "a colliding shape that contact detection does not test (spheres, capsules and "
               "boxes collide)";
    return NULL;
}

static const char *moreau_refuse(const ld_system *s) {
    return unfit(s);
}

/* ---------------------------------------------------------------- state */

/* J⁻¹ (τ − Ω × JΩ): the angular acceleration at Ω under the body-frame torque τ. */
static void euler_rate(const mj_body *b, const double Om[3], const double tau[3], double dO[3]) {
    double JO[3], g[3], w[3];
    ld_m3_mulv(JO, b->J, Om);
    ld_v3_cross(g, Om, JO);
    for (int k = 0; k < 3; ++k) w[k] = tau[k] - g[k];
    ld_m3_mulv(dO, b->Ji, w);
}

/* The force elements' generalized force −g_i on body i (g_i its node's slice of the system's
 * g, in the formulation's velocity coordinates) added to the body-frame torque tb and the
 * spatial force f: a spatial formulation's torque is spatial (Rᵀ), a semidirect one's force is
 * in the body frame (R). */
static void element_forces(const rb_sys *rb, const mj_body *b, const double *gi, double tb[3],
                           double f[3]) {
    double tq[3] = {-gi[0], -gi[1], -gi[2]}, fo[3] = {-gi[3], -gi[4], -gi[5]}, w[3];
    if (rb->left) {
        ld_m3_tmulv(w, b->R, tq);
        memcpy(tq, w, sizeof w);
    }
    if (rb->semi) {
        ld_m3_mulv(w, b->R, fo);
        memcpy(fo, w, sizeof w);
    }
    for (int k = 0; k < 3; ++k) tb[k] += tq[k], f[k] += fo[k];
}

/* The force elements' g at the midpoint state (poses at q_M, velocities v_k, in the bodies of
 * S) into S->g, the state written into (q, v) on the way. LD_OK or the elements' status. */
static int elements_eval(const ld_system *s, mj *S, double t, double *q, double *v) {
    for (int i = 0; i < S->nb; ++i) store_body(s, &S->b[i], i, q, v);
    memset(S->g, 0, (size_t)s->k * sizeof *S->g);
    return ld_elems_add_force_of(s, &ld_ek_force, t, q, v, S->g);
}

/* Ω ← Ω + h J⁻¹ (τ − Ω* × JΩ*) with Ω* the explicit midpoint value (Euler's equations to second
 * order), ẋ ← ẋ + h f/m, at time t (the body at its midpoint pose). */
static void kick(const rb_sys *rb, mj_body *b, int i, double t, double h, const double *gi) {
    ld_rb_loads L;
    ld_rb_loads_eval(rb, i, t, &L);
    double f[3], tb[3], dO[3], Om[3];
    ld_m3_mulv(f, b->R, L.fb);
    ld_m3_tmulv(tb, b->R, L.ts);
    for (int k = 0; k < 3; ++k) tb[k] += L.tb[k], f[k] += L.fs[k];
    if (gi) element_forces(rb, b, gi, tb, f);
    euler_rate(b, b->Om, tb, dO);
    for (int k = 0; k < 3; ++k) Om[k] = b->Om[k] + 0.5 * h * dO[k];
    euler_rate(b, Om, tb, dO);
    for (int k = 0; k < 3; ++k) b->Om[k] += h * dO[k], b->xd[k] += h * f[k] / b->m;
}

/* ---------------------------------------------------------------- output */

static int moreau_contacts(const ld_integ *it, ld_contact_point *out, int cap) {
    const mj *S = it->priv;
    if (!S) return 0;
    for (int i = 0; i < S->npts && i < cap; ++i) out[i] = S->pts[i];
    return S->npts;
}

static void moreau_contact_stats(const ld_integ *it, ld_contact_stats *st) {
    const mj *S = it->priv;
    if (!S) return;
    st->contacts = S->last_contacts, st->sweeps = S->last_sweeps;
    st->total_sweeps = S->sweeps;
    st->overlap = S->overlap, st->max_overlap = S->max_overlap;
    st->correction_sweeps = S->last_csweeps, st->total_correction_sweeps = S->csweeps;
}

static int moreau_contact_force(const ld_integ *it, int body, double f[3], double tau[3]) {
    const mj *S = it->priv;
    if (!S || body < 0 || body >= S->nb) return LD_EINVAL;
    memcpy(f, S->cf + 6 * body, 3 * sizeof *f);
    memcpy(tau, S->cf + 6 * body + 3, 3 * sizeof *tau);
    return LD_OK;
}

/* The reach of body i's colliding shapes from its centre of mass (m). */
static double reach(const ld_model *m, int i) {
    double r = 0.0;
    for (int k = 0; k < m->nshapes; ++k) {
        const ld_shape *sh = &m->shapes[k];
        if (sh->body != i || !sh->collide) continue;
        double c = sqrt(ld_v3_dot(sh->center, sh->center)), e = sh->size[0] + 0.5 * sh->size[1];
        if (sh->kind == LD_SHAPE_BOX) e = 0.5 * sqrt(ld_v3_dot(sh->size, sh->size));
        r = fmax(r, c + e);
    }
    return r;
}

/* The inverse of a symmetric positive definite 3×3 (an inertia), by its adjugate. */
static void inverse3(double Ai[9], const double A[9]) {
    double c[9] = {A[4] * A[8] - A[5] * A[7], A[2] * A[7] - A[1] * A[8], A[1] * A[5] - A[2] * A[4],
                   A[5] * A[6] - A[3] * A[8], A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                   A[3] * A[7] - A[4] * A[6], A[1] * A[6] - A[0] * A[7], A[0] * A[4] - A[1] * A[3]};
    double det = A[0] * c[0] + A[1] * c[3] + A[2] * c[6];
    for (int i = 0; i < 9; ++i) Ai[i] = c[i] / det;
}

/* ---------------------------------------------------------------- the method */

static int moreau_create(ld_integ *it) {
    const ld_system *s = it->s;
    const char *why = unfit(s);
    if (why) {
        strf(it->msg, sizeof it->msg, "%s: %s", it->meth->info.name, why);
        return LD_ENOTSUPPORTED;
    }
    const ld_model *m = ld_rb(s)->m;
    mj *S = calloc(1, sizeof *S);
    if (!S) return LD_ENOMEM;
    it->priv = S;
    if (flexible(s)) return ld_mjf_create(it, S);
    S->nb = m->nbodies;
    int ns = 0;
    for (int i = 0; i < m->nshapes; ++i) ns += m->shapes[i].collide != 0;
    for (int j = 0; j < m->njoints; ++j) ns += m->joints[j].has_limits;
    S->cap = 16 * ns + 64;
    S->nshapes = m->nshapes, S->nground = m->nground;
    S->b = calloc((size_t)S->nb, sizeof *S->b);
    S->R = malloc(12 * (size_t)S->nb * sizeof *S->R);
    S->c = malloc((size_t)S->cap * sizeof *S->c);
    S->vs = malloc(6 * (size_t)S->nb * sizeof *S->vs);
    S->warm = malloc((size_t)S->cap * sizeof *S->warm);
    S->pts = malloc((size_t)S->cap * sizeof *S->pts);
    S->kept = malloc((size_t)S->cap * sizeof *S->kept);
    S->cp = malloc((size_t)S->cap * sizeof *S->cp);
    S->cf = calloc(12 * (size_t)S->nb, sizeof *S->cf);
    S->cft = S->cf ? S->cf + 6 * (size_t)S->nb : NULL;
    S->w = ld_cworld_create(m, S->cap);
    if (!S->b || !S->R || !S->c || !S->vs || !S->warm || !S->pts || !S->kept || !S->cp || !S->cf ||
        !S->w) {
        it->oom_bytes = (double)S->cap * (double)sizeof *S->c;
        return LD_ENOMEM;
    }
    S->x = S->R + 9 * (size_t)S->nb;
    if (m->nelements > 0 && !(S->g = malloc((size_t)s->k * sizeof *S->g))) return LD_ENOMEM;
    if (s->m > 0 && ld_mj_rows_create(s, &S->J)) return LD_ENOMEM;
    for (int i = 0; i < S->nb; ++i) {
        const ld_body *bd = &m->bodies[i];
        S->b[i].m = bd->mass;
        memcpy(S->b[i].J, bd->inertia, sizeof S->b[i].J);
        inverse3(S->b[i].Ji, bd->inertia);
        S->b[i].reach = reach(m, i);
        S->scale = fmax(S->scale, S->b[i].reach);
    }
    for (int j = 0; j < m->njoints; ++j) /* the joints' points from the bodies' centres */
        for (int e = 0; e < 2; ++e) {
            int b = e ? m->joints[j].body2 : m->joints[j].body1;
            if (b < 0) continue;
            double d[3];
            for (int i = 0; i < 3; ++i) d[i] = m->joints[j].at[i] - m->bodies[b].x[i];
            S->scale = fmax(S->scale, ld_v3_norm(d));
        }
    S->scale = fmax(S->scale, 1e-3);
    return LD_OK;
}

static void moreau_destroy(ld_integ *it) {
    mj *S = it->priv;
    if (S) {
        ld_mjf_free(S);
        free(S->b);
        free(S->R);
        free(S->c);
        free(S->vs);
        free(S->warm);
        free(S->pts);
        free(S->kept);
        free(S->cp);
        free(S->cf);
        free(S->g);
        ld_cworld_free(S->w);
        ld_mj_rows_free(&S->J);
    }
    free(S);
    it->priv = NULL;
}

static int moreau_initial(ld_integ *it, char *why, size_t cap) {
    return ld_integ__initial_accel(it, why, cap);
}

/* The largest speed of a point of a colliding shape at the free velocities: |ẋ| + |Ω| ρ over
 * the bodies, ρ the reach of a body's shapes from its centre of mass. */
static double free_speed(const mj *S) {
    double v = 0.0;
    for (int i = 0; i < S->nb; ++i) {
        const mj_body *b = &S->b[i];
        v = fmax(v, sqrt(ld_v3_dot(b->xd, b->xd)) + sqrt(ld_v3_dot(b->Om, b->Om)) * b->reach);
    }
    return isfinite(v) ? v : 0.0;
}

/* Exchange the velocities with the saved ones (sOm, sxd) of every body. */
static void swap_saved(mj *S) {
    for (int i = 0; i < S->nb; ++i) {
        mj_body *b = &S->b[i];
        for (int k = 0; k < 3; ++k) {
            double t = b->Om[k];
            b->Om[k] = b->sOm[k], b->sOm[k] = t;
            t = b->xd[k];
            b->xd[k] = b->sxd[k], b->sxd[k] = t;
        }
    }
}

/* The contacts of the step, the detector's n (found within the step's reach), set up into S->c
 * and copied to S->kept: closed at the midpoint, gap ≤ 0, or closing — the free velocities
 * would close them by the step's end, gap + h/2 U_n ≤ 0 —, or open, which may close up to
 * touching (U_n ≥ −2 gap/h: a contact resting at gap 0⁺ under a load that the free motion does
 * not show, as in a stack); their number. */
static int closing(mj *S, const ld_contact *found, int n, double h) {
    for (int c = 0; c < n; ++c) {
        mj_contact *k = &S->c[c];
        ld_mj_setup(S, k, &found[c]);
        double U[3];
        ld_mj_rel_velocity(S, k, U);
        k->open = found[c].gap > CLOSED && found[c].gap + 0.5 * h * U[0] > CLOSED;
        k->vmin = k->open ? -2.0 * found[c].gap / h : 0.0;
        S->kept[c] = found[c];
    }
    return n;
}

/* The velocity law of the nc contacts not open (un0 known): U_n ≥ −e min(U_n,k, 0), Newton's
 * impact law for a closing contact, U_n ≥ 0 for one that was not closing. */
static void newton_law(mj *S, int nc) {
    for (int c = 0; c < nc; ++c)
        if (!S->c[c].open) S->c[c].vmin = -S->c[c].e * fmin(S->c[c].un0, 0.0);
}

/* A new start (ld_integ_init, a load): no contacts yet, the statistics anew. */
static int moreau_init(ld_integ *it) {
    mj *S = it->priv;
    S->npts = S->nwarm = S->last_contacts = S->last_sweeps = 0;
    S->sweeps = S->csweeps = 0;
    S->last_csweeps = 0;
    S->overlap = S->max_overlap = 0.0;
    memset(S->cf, 0, 6 * (size_t)S->nb * sizeof *S->cf);
    if (S->F) S->F->end_overlap = S->F->max_end_overlap = 0.0, S->F->nwarm = 0;
    return LD_OK;
}

static int moreau_step(ld_integ *it, double t1) {
    const ld_system *s = it->s;
    const rb_sys *rb = ld_rb(s);
    mj *S = it->priv;
    if (S->F) return ld_mjf_step(it, t1);
    double h = t1 - it->t, tm = it->t + 0.5 * h;
    S->trial_csweeps = 0;
    for (int i = 0; i < S->nb; ++i) {
        mj_body *b = &S->b[i];
        load_body(s, b, i, it->q, it->v);
        drift(b, 0.5 * h);
        memcpy(S->R + 9 * i, b->R, sizeof b->R);
        memcpy(S->x + 3 * i, b->x, sizeof b->x);
    }
    if (S->g) { /* the force elements at (t_M, q_M, v_k), explicitly */
        int rc = elements_eval(s, S, tm, it->qn, it->vn);
        if (rc) return ld_integ__reject(it, rc > 0 ? rc : LD_RETRY_NONFINITE, "force elements", h);
    }
    for (int i = 0; i < S->nb; ++i) { /* v_k kept in sOm, sxd; the free velocities */
        mj_body *b = &S->b[i];
        memcpy(b->sOm, b->Om, sizeof b->Om);
        memcpy(b->sxd, b->xd, sizeof b->xd);
        kick(rb, b, i, tm, h, S->g ? S->g + s->nodes[i].voff : NULL);
    }
    const ld_contact *found = NULL;
    int nc = 0;
    if (ld_cworld_shapes(S->w) > 0) {
        nc = ld_cworld_find(S->w, S->R, S->x, CLOSED + h * free_speed(S), &found);
        if (nc < 0) {
            strf(it->msg, sizeof it->msg,
                 "moreau: more than %d contacts at t = %.10g (the detector's capacity: 16 per "
                 "colliding shape and 64)",
                 S->cap, tm);
            return LD_ENOMEM;
        }
        nc = closing(S, found, nc, h);
    }
    int nf = nc;   /* the shapes' contacts; the joints' limits follow */
    swap_saved(S); /* v_k in Om, ẋ for the pre-step normal velocities and the joints */
    for (int c = 0; c < nf; ++c) {
        double U[3];
        ld_mj_rel_velocity(S, &S->c[c], U);
        S->c[c].un0 = U[0];
    }
    if (S->J.m > 0) { /* the joints' rows at the midpoint state */
        for (int i = 0; i < S->nb; ++i) store_body(s, &S->b[i], i, it->qn, it->vn);
        int rc = ld_mj_rows_eval(s, S, tm, it->qn);
        if (rc) return ld_integ__reject(it, rc > 0 ? rc : LD_RETRY_NONFINITE, "joint rows", h);
        nc = ld_mj_limits(s, S, tm, it->qn, it->vn, nc);
    }
    swap_saved(S); /* the free velocities back */
    newton_law(S, nc);
    for (int c = 0; c < nf && S->nwarm > 0; ++c)
        ld_mj_warm_apply(S, &S->c[c], ld_mj_warm_key(found, c, S->nshapes, S->nground));
    int maxit = (int)PGS_ITER(&it->o), active = nc > 0 || S->J.m > 0, k = 0;
    double tol = PGS_TOL(&it->o);
    if (active)
        k = SOLVER(&it->o) == 1 ? ld_mj_solve_accel(S, nc, h, tol, maxit)
                                : ld_mj_solve_pgs(S, nc, h, tol, maxit);
    S->last_sweeps = active ? k : 1, S->last_contacts = nc, S->sweeps += S->last_sweeps;
    it->st.newton_iterations += active ? S->last_sweeps : 0;
    for (int r = 0; r < S->J.m; ++r) S->J.F[r] = S->J.lam[r] / h; /* impulse → force */
    ld_mj_contact_forces(S, nc, h);
    ld_mj_correct(S, nc, h, tol, maxit, &S->trial_overlap);
    for (int i = 0; i < S->nb; ++i) {
        mj_body *b = &S->b[i];
        drift(b, 0.5 * h); /* with v_{k+1} + δv; v_{k+1} is kept */
        memcpy(b->Om, b->sOm, sizeof b->Om);
        memcpy(b->xd, b->sxd, sizeof b->xd);
        store_body(s, b, i, it->qn, it->vn);
    }
    if (ld_mj_project(s, S, t1, it->qn, it->vn, tol, maxit))
        return ld_integ__reject(it, LD_RETRY_NONFINITE, "joint rows at the step's end", h);
    int rc = ld_integ__finite(it, it->qn, (size_t)s->nq, "non-finite configuration");
    if (!rc) rc = ld_integ__finite(it, it->vn, (size_t)s->k, "non-finite velocity");
    if (rc) return ld_integ__reject(it, LD_RETRY_NONFINITE, it->why, h);
    memcpy(it->q, it->qn, (size_t)s->nq * sizeof(double));
    memcpy(it->v, it->vn, (size_t)s->k * sizeof(double));
    for (int i = 0; i < it->k; ++i) it->vd[i] = NAN;
    for (int r = 0; r < S->J.m; ++r) it->lam[r] = S->J.F[r];
    memcpy(S->cf, S->cft, 6 * (size_t)S->nb * sizeof *S->cf);
    ld_mj_warm_keep(S, S->kept, nf);
    ld_mj_keep_points(S, nf, h);
    S->overlap = S->trial_overlap, S->max_overlap = fmax(S->max_overlap, S->overlap);
    S->last_csweeps = S->trial_csweeps, S->csweeps += S->trial_csweeps;
    return LD_OK;
}

static const ld_method_param mj_params[] = {
    {"pgs_tol", "--pgs-tol", offsetof(ld_integ_options, param) + 2 * sizeof(double), 1e-15, 1e-2,
     1e-10, "[1e-15, 1e-2]",
     "moreau: stop the projected Gauss-Seidel sweeps when no impulse changes by more than "
     "this part of the largest"},
    {"pgs_max_iter", "--pgs-max-iter", offsetof(ld_integ_options, param) + 3 * sizeof(double), 1.0,
     1e6, 1000.0, "[1, 1e6]", "moreau: at most this many projected Gauss-Seidel sweeps"},
#if LD_METHOD_MAX_PARAMS > 4
    {"contact_solver", "--contact-solver", offsetof(ld_integ_options, param) + 4 * sizeof(double),
     0.0, 1.0, 1.0, "{0, 1}",
     "moreau: 0 projected Gauss-Seidel, 1 the same sweeps accelerated by Nesterov's "
     "extrapolation with restart, stopping also when the velocities no longer change"},
#endif
};

const ld_method_impl ld_method_moreau = {
    .info = {.name = "moreau",
             .title = "Moreau-Jean time stepping on the group: unilateral contact, Newton impacts "
                      "and Coulomb friction by projected Gauss-Seidel (Moreau 1988, Jean 1999)",
             .order = 1,
             .order_estimate = 0,
             .nparams = (int)(sizeof mj_params / sizeof mj_params[0]),
             .params = mj_params,
             .constraints = 1,
             .euler = 0,
             .model_only = 1,
             .contact = 1,
             .refuses = "the euler formulation; the tree formulation; pinned bodies; joint limits "
                        "with rods or beams; spans colliding with spans (collide: spans); "
                        "accelerations are not computed (NaN)"},
    .refuse = moreau_refuse,
    .create = moreau_create,
    .destroy = moreau_destroy,
    .initial = moreau_initial,
    .step = moreau_step,
    .contact_force = moreau_contact_force,
    .contacts = moreau_contacts,
    .contact_stats = moreau_contact_stats,
    .init = moreau_init,
};

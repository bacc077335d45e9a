/*
 * The simulation behind `liedyn run` and `liedyn convergence`: compile the model, step it
 * (fixed or controlled steps), measure, and write CSV and VTK rows as it goes.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "overlap.h"
#include "sim.h"
#include "../src/core/oom.h"

/* ------------------------------------------------------------------ the simulation */

double cpu_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return (double)clock() / CLOCKS_PER_SEC;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double wall_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sim_free(sim *S) {
    ld_integ_free(S->it);
    if (S->compiled) ld_model_system_free(&S->s);
    free(S->q0);
    free(S->v0);
    free(S->phi);
    free(S->exact);
    free(S->bx);
    ld_runcheck_free(&S->chk);
    free(S->names);
    S->names = NULL;
    ld_out_csv_free(S->csv);
    ld_out_csv_free(S->pcsv);
    ld_out_vtk_free(S->vtk);
    S->csv = S->pcsv = NULL;
    S->vtk = NULL;
    free(S->qa);
    S->qa = S->va = S->la = S->qi = S->vi = S->li = NULL;
    ld_out_html_free(S->html);
    S->html = NULL;
    ld_out_contacts_free(S->ccsv);
    S->ccsv = NULL;
    free(S->cp);
    S->cp = NULL;
    S->ncp = S->cpcap = 0;
    S->it = NULL;
    S->compiled = 0;
    S->q0 = S->v0 = S->phi = S->bx = NULL;
    S->exact = NULL;
}

/* A note on stderr when the dense solver was asked for on a system far above the size from
 * which KLU is faster (LD_LA_CROSSOVER; the default would have chosen KLU). */
static void dense_note(const sim *S) {
    int n = S->s.k + S->s.m;
    if (S->o.la != LD_LA_DENSE || n < 4 * LD_LA_CROSSOVER ||
        ld_integ_la_auto(&S->s, &S->o) != LD_LA_KLU)
        return;
    fprintf(stderr,
            "liedyn %s: note: the dense solver on %d unknowns; the sparse one (--la klu, the "
            "default for this model) is faster from about %d\n",
            S->cmd, n, LD_LA_CROSSOVER);
}

/* Compile, create and initialize. 0 or 2 (message printed; sim_free cleans up). */
int sim_setup(sim *S) {
    const ld_model *m = S->m;
    int nb = m->nbodies;
    char why[512];
    int rc = ld_model_check_initial(m, why, sizeof why);
    if (rc == LD_ENOMEM) return cli_error("%s: cannot compile the model: %s", S->path, why);
    if (rc) return cli_error("%s: inconsistent initial state: %s", S->path, why);
    rc = ld_model_compile_msg(m, S->form, &S->s, &S->q0, &S->v0, why, sizeof why);
    if (rc) return cli_error("%s: cannot compile the model: %s", S->path, why);
    S->compiled = 1;
    S->has_contact = ld_model_has_contact(m) && ld_method_get((int)S->o.method)->contact;
    S->ov_max = 0.0, S->ov_t = NAN, S->ov_b1 = S->ov_b2 = -1;
    S->phi = ld_xcalloc((size_t)S->s.m + 1, sizeof(double), "the constraint residuals");
    S->exact = ld_xcalloc((size_t)nb, sizeof(int), "the exact solutions");
    S->bx = ld_xcalloc(19 * (size_t)nb, sizeof(double),
                       "the bodies' output"); /* bx, bq, bw, bv, then cf */
    if (!S->phi || !S->exact || !S->bx) return cli_error("%s: %s", S->cmd, ld_oom_last_str());
    if (ld_runcheck_init(&S->chk, &S->s, S->phi_tol) != LD_OK)
        return cli_error("%s: %s", S->cmd, ld_oom_last_str());
    if (S->out_dt > 0.0) { /* dense output: the previous step end and the interpolated state */
        size_t nq = (size_t)S->s.nq, k = (size_t)S->s.k, nm = (size_t)S->s.m;
        S->qa = ld_xcalloc(2 * (nq + k + nm) + 1, sizeof(double), "the assembly's work");
        if (!S->qa) return cli_error("%s: %s", S->cmd, ld_oom_last_str());
        S->va = S->qa + nq, S->la = S->va + k;
        S->qi = S->la + nm, S->vi = S->qi + nq, S->li = S->vi + k;
    }
    S->bq = S->bx + 3 * nb;
    S->bw = S->bq + 4 * nb;
    S->bv = S->bw + 3 * nb;
    for (int l = 0; l < m->nloads; ++l) { /* the bodies whose rotation the model prescribes */
        const ld_load *ld = &m->loads[l];
        if (ld->kind != LD_LOAD_EXACT_TORQUE || ld->exact == LD_EXACT_NONE) continue;
        S->exact[ld->body] = 1;
        S->any_exact = 1;
    }
    if (ld_model_check_exact(m, why, sizeof why) > 0) { /* the angle error would mislead */
        snprintf(S->warning, sizeof S->warning, "%s: %.240s", S->path, why);
        fprintf(stderr, "liedyn %s: warning: %s\n", S->cmd, S->warning);
    }
    const char *caution = ld_integ_options_caution(&S->s, &S->o);
    if (!caution && !S->o.project && !ld_method_get((int)S->o.method)->newton &&
        ld_method_get((int)S->o.method)->constraints && ld_model_loop_count(m) > 0)
        caution = "without --project the half-explicit methods drift off the position "
                  "constraints, and at a singular position of a closed loop the drift can switch "
                  "the mechanism to another assembly branch (measured: hem5 at tolerance 1e-5 "
                  "ends the N-four-bar 2 m off); the run stops where the drift exceeds "
                  "--constraint-tol; use --project (docs/constraints.md)";
    if (caution && !S->warning[0]) { /* said before the run, and in its JSON */
        snprintf(S->warning, sizeof S->warning, "%s: %s: %.400s", S->path,
                 ld_integ_method_name(S->o.method), caution);
        fprintf(stderr, "liedyn %s: warning: %s\n", S->cmd, S->warning);
    }
    const char *why_not = ld_integ_options_check(&S->s, &S->o);
    if (why_not)
        return cli_error("%s: %s cannot run this model: %s", S->path,
                         ld_integ_method_name(S->o.method), why_not);
    S->it = ld_integ_create_msg(&S->s, &S->o, &rc, why, sizeof why);
    if (!S->it)
        return cli_error("%s: cannot create the integrator: %s", S->path,
                         why[0] ? why : ld_strerror(rc));
    dense_note(S);
    rc = ld_integ_init(S->it, S->t0, S->q0, S->v0);
    if (rc && ld_model_diagnose(&S->s, S->t0, S->q0, why, sizeof why) == LD_ESINGULAR)
        return cli_error("%s: no consistent initial accelerations at t = %.10g: %s", S->path, S->t0,
                         why);
    if (rc) {
        const char *said = ld_integ_message(S->it);
        return cli_error("%s: no consistent initial accelerations at t = %.10g: %s", S->path, S->t0,
                         said && said[0] ? said : ld_strerror(rc));
    }
    return 0;
}

double state_energy(const sim *S, double t, const double *q, const double *v) {
    return ld_sys_energy(&S->s, t, q, v);
}

/* max |Φ(t, q)|; 0 without constraints, NaN if Φ cannot be evaluated. *row (may be NULL)
 * receives the row of the largest entry (-1: none). */
static double phi_max(const sim *S, double t, const double *q, int *row) {
    return ld_sys_phi_max(&S->s, t, q, S->phi, row);
}

double state_phi(const sim *S, double t, const double *q) {
    return phi_max(S, t, q, NULL);
}

/* Geodesic error of body b's rotation against its exact one (the model prescribes it). */
static double angle_error(const sim *S, int b, double t, const double quat[4]) {
    double qe[4];
    if (ld_model_exact_rotation(S->m, b, t, qe) != LD_OK) return NAN;
    return ld_quat_angle(qe, quat);
}

/* ------------------------------------------------------------------ the overlap check */

/* Shape sh at the pose of its body in the state (q, v). */
static void place_shape(const sim *S, const ld_shape *sh, const double *q, const double *v,
                        placed *p) {
    double x[3] = {0, 0, 0}, qq[4] = {1, 0, 0, 0}, w[3], xd[3], off[3], a[3];
    if (sh->body >= 0) ld_model_body_state(&S->s, sh->body, q, v, x, qq, w, xd);
    ld_quat_to_mat(p->R, qq);
    ld_quat_rotate(off, qq, sh->center);
    p->kind = sh->kind;
    p->r = sh->kind == LD_SHAPE_BOX ? 0.0 : sh->size[0];
    for (int i = 0; i < 3; ++i) {
        p->c[i] = p->c1[i] = x[i] + off[i];
        p->h[i] = 0.5 * sh->size[i];
    }
    if (sh->kind != LD_SHAPE_CAPSULE && sh->kind != LD_SHAPE_CYLINDER) return;
    ld_quat_rotate(a, qq, sh->axis);
    for (int i = 0; i < 3; ++i) {
        p->c[i] -= 0.5 * sh->size[1] * a[i];
        p->c1[i] += 0.5 * sh->size[1] * a[i];
    }
}

/* The shape of a contact's side: index s of m->shapes, ≤ −2 the ground shape −2 − s; NULL for
 * the plane. */
static const ld_shape *contact_shape(const ld_model *m, int s) {
    if (s >= 0 && s < m->nshapes) return &m->shapes[s];
    if (s <= -2 && -2 - s < m->nground) return &m->ground[-2 - s];
    return NULL;
}

/* Record an overlap ov between bodies b1 and b2 at t when it is the largest so far. */
static void overlap_seen(sim *S, double ov, double t, int b1, int b2) {
    if (!(ov > S->ov_max)) return;
    S->ov_max = ov, S->ov_t = t, S->ov_b1 = b1, S->ov_b2 = b2;
}

/* The position of body b in (q, v), or x0 for the ground (a clamped beam node). */
static void node_at(const sim *S, int b, const double *x0, const double *q, const double *v,
                    double x[3]) {
    double qq[4], w[3], xd[3];
    if (b >= 0)
        ld_model_body_state(&S->s, b, q, v, x, qq, w, xd);
    else
        memcpy(x, x0, 3 * sizeof *x);
}

/* The span of nodes b0, b1 (capsule of radius r) against the plane and every colliding ground
 * and body shape (none of its own nodes'). */
static void span_overlap(sim *S, double t, const double *q, const double *v, int b0, int b1,
                         const double *x0, const double *x1, double r) {
    const ld_model *m = S->m;
    placed a = {.kind = LD_SHAPE_CAPSULE, .r = r}, b;
    node_at(S, b0, x0, q, v, a.c);
    node_at(S, b1, x1, q, v, a.c1);
    if (m->plane.on)
        overlap_seen(
            S,
            -overlap_plane_gap(&a, m->plane.normal, overlap_dot3(m->plane.normal, m->plane.point)),
            t, b0 >= 0 ? b0 : b1, -1);
    for (int j = -m->nground; j < m->nshapes; ++j) {
        const ld_shape *sh = j < 0 ? &m->ground[j + m->nground] : &m->shapes[j];
        if (!sh->collide || (sh->body >= 0 && (sh->body == b0 || sh->body == b1))) continue;
        place_shape(S, sh, q, v, &b);
        overlap_seen(S, -overlap_pair_gap(&a, &b), t, b0 >= 0 ? b0 : b1, sh->body);
    }
}

/* The colliding rods' and beams' spans at (t, q, v) (moreau: hard contact of the spans). */
static void spans_overlap(sim *S, double t, const double *q, const double *v) {
    const ld_model *m = S->m;
    for (int r = 0; r < m->nrods; ++r) {
        const ld_rod *rd = &m->rods[r];
        for (int k = 0; rd->collide.on && k < rd->n; ++k)
            span_overlap(S, t, q, v, rd->body0 + k, rd->body0 + k + 1, NULL, NULL,
                         rd->collide.radius);
    }
    for (int i = 0; i < m->nbeams; ++i) {
        const ld_beam *bm = &m->beams[i];
        for (int k = 0; bm->collide.on && bm->node_body && k + 1 < bm->nnodes; ++k) {
            int b0 = bm->node_body[k], b1 = bm->node_body[k + 1];
            if (b0 < 0 && b1 < 0) continue;
            span_overlap(S, t, q, v, b0, b1, bm->x0 + 3 * k, bm->x0 + 3 * (k + 1),
                         bm->collide.radius);
        }
    }
}

/* The overlaps at the end of the step that reached (t, q, v): every colliding shape against
 * the ground plane, the pairs among the step's contacts where overlap_pair_gap measures them, and
 * the rods' and beams' spans against the plane and the shapes. */
static void overlap_measure(sim *S, double t, const double *q, const double *v) {
    const ld_model *m = S->m;
    placed a, b;
    if (m->plane.on) {
        double d = overlap_dot3(m->plane.normal, m->plane.point);
        for (int i = 0; i < m->nshapes; ++i) {
            if (!m->shapes[i].collide) continue;
            place_shape(S, &m->shapes[i], q, v, &a);
            overlap_seen(S, -overlap_plane_gap(&a, m->plane.normal, d), t, m->shapes[i].body, -1);
        }
    }
    for (int k = 0; k < S->ncp; ++k) {
        const ld_shape *s1 = contact_shape(m, S->cp[k].shape1),
                       *s2 = contact_shape(m, S->cp[k].shape2);
        if (!s1 || !s2) continue;
        place_shape(S, s1, q, v, &a);
        place_shape(S, s2, q, v, &b);
        overlap_seen(S, -overlap_pair_gap(&a, &b), t, S->cp[k].body1, S->cp[k].body2);
    }
    spans_overlap(S, t, q, v);
    if (S->ov_tol > 0.0 && S->ov_max > S->ov_tol) S->overlapped = 1;
}

double overlap_tol_default(const ld_model *m) {
    double size = INFINITY;
    for (int i = 0; i < m->nshapes + m->nground; ++i) {
        const ld_shape *s = i < m->nshapes ? &m->shapes[i] : &m->ground[i - m->nshapes];
        if (!s->collide) continue;
        double l = s->kind == LD_SHAPE_BOX ? 0.5 * fmin(fmin(s->size[0], s->size[1]), s->size[2])
                                           : s->size[0];
        if (l > 0.0) size = fmin(size, l);
    }
    return 1e-6 * (isfinite(size) ? size : 1.0);
}

/* The contacts of the last step into S->cp (grown as needed), the statistics into S->cst. */
static void contacts_fetch(sim *S) {
    if (!S->has_contact) return;
    int n = ld_integ_contacts(S->it, S->cp, S->cpcap);
    if (n > S->cpcap) {
        ld_contact_point *p = ld_xrealloc(S->cp, (size_t)n * sizeof *p, "the contacts");
        if (!p) {
            io_fail_oom(S, "keeping the contacts");
            n = 0;
        } else {
            S->cp = p, S->cpcap = n;
            n = ld_integ_contacts(S->it, S->cp, S->cpcap);
        }
    }
    S->ncp = n > 0 ? n : 0;
    (void)ld_integ_contact_stats(S->it, &S->cst);
}

/* Update the running maxima with the state at t (every step). */
static void sim_measure(sim *S, double t, const double *q, const double *v) {
    const ld_runcheck *c = &S->chk;
    if (ld_runcheck_state(&S->chk, &S->s, t, q, v)) S->drifted = 1;
    if (c->phimax > S->tot.phimax && c->phirow >= 0) { /* where the largest violation so far is */
        S->tot.phirow = c->phirow;
        S->tot.phit = c->phit;
    }
    S->tot.phimax =
        (isnan(c->phimax) || isnan(S->tot.phimax)) ? (double)NAN : fmax(S->tot.phimax, c->phimax);
    S->tot.escale = c->escale;
    double P = NAN; /* the work of loads and drivers, by the trapezoidal rule over the steps */
    if (ld_model_power(&S->s, t, q, v, ld_integ_lambda(S->it), S->phi, &P) != LD_OK) P = NAN;
    if (t > S->tot.wt) S->tot.work += 0.5 * (t - S->tot.wt) * (P + S->tot.wp);
    if (!(t <= S->tot.wt)) S->tot.wt = t, S->tot.wp = P; /* NaN wt: the first state */
    for (int b = 0; S->any_exact && b < S->m->nbodies; ++b) {
        if (!S->exact[b]) continue;
        double x[3], qq[4], w[3], xd[3];
        ld_model_body_state(&S->s, b, q, v, x, qq, w, xd);
        double e = angle_error(S, b, t, qq);
        S->tot.angmax = (isnan(e) || isnan(S->tot.angmax)) ? (double)NAN : fmax(S->tot.angmax, e);
    }
}

void io_fail_msg(sim *S, const char *msg) {
    if (S->io_error) return;
    S->io_error = 1;
    snprintf(S->io_msg, sizeof S->io_msg, "%s", msg);
}

void io_fail_oom(sim *S, const char *doing) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s: %s", doing, ld_oom_last_str());
    io_fail_msg(S, buf);
}

void io_fail(sim *S, const char *what, const char *name) {
    char buf[PATH_CAP + 128];
    snprintf(buf, sizeof buf, "writing %s '%s' failed: %s", what, name, strerror(errno));
    io_fail_msg(S, buf);
}

int csv_columns(sim *S, const char *list) {
    if (!S->names && ld_out_columns(S->m, S->est, &S->names, &S->ncols) != LD_OK)
        return cli_error("%s: %s", S->cmd, ld_oom_last_str());
    if (!list) return 0;
    char why[512];
    int rc = ld_out_columns_check(S->m, S->est, list, why, sizeof why);
    if (rc) return cli_error("%s: --columns: %s", S->cmd, why);
    return 0;
}

int csv_open(sim *S, ld_out_csv **w, const char *path, const char *columns, char *why, size_t cap) {
    *w = ld_out_csv_open(path, &S->s, S->m, columns, S->est, NULL, why, cap);
    return *w ? 0 : -1;
}

void outputs_close(sim *S) {
    if (S->csv && ld_out_csv_close(S->csv) != LD_OK) io_fail_msg(S, ld_out_csv_message(S->csv));
    if (S->pcsv && ld_out_csv_close(S->pcsv) != LD_OK) io_fail_msg(S, ld_out_csv_message(S->pcsv));
    if (S->vtk && ld_out_vtk_close(S->vtk) != LD_OK) io_fail_msg(S, ld_out_vtk_message(S->vtk));
    if (S->ccsv && ld_out_contacts_close(S->ccsv) != LD_OK)
        io_fail_msg(S, ld_out_contacts_message(S->ccsv));
}

/* One VTK file of the state (t, q, v) (ld_out_vtk_frame); a failure is recorded. */
static void write_vtk(sim *S, double t, const double *q, const double *v) {
    if (ld_out_vtk_frame(S->vtk, t, q, v) != LD_OK) io_fail_msg(S, ld_out_vtk_message(S->vtk));
}

/* One row of the state (t, q, v, λ) to w; a failure is recorded. */
/* The contact forces of the last step into the writer (a model with contact). */
static void row_contacts(sim *S, ld_out_csv *w) {
    if (!ld_model_has_contact(S->m)) return;
    double *cf = S->bx + 13 * (size_t)S->m->nbodies;
    int ok = 1;
    for (int b = 0; ok && b < S->m->nbodies; ++b)
        ok = ld_integ_contact_force(S->it, b, cf + 6 * b, cf + 6 * b + 3) == LD_OK;
    ld_out_csv_set_contact_forces(w, ok ? cf : NULL);
}

static void emit_row(sim *S, ld_out_csv *w, double t, const double *q, const double *v,
                     const double *lam) {
    row_contacts(S, w);
    double W = S->tot.work; /* a dense row between step ends: W linear between them */
    if (S->out_dt > 0.0 && t < S->tot.wt && S->tot.wt > S->ta)
        W = S->wa + (t - S->ta) / (S->tot.wt - S->ta) * (S->tot.work - S->wa);
    ld_out_csv_set_balance(w, S->tot.e0, W);
    if (ld_out_csv_row(w, t, q, v, lam, S->tot.row_h, S->tot.row_err) != LD_OK)
        io_fail_msg(S, ld_out_csv_message(w));
}

/* One output row of the state (t, q, v, λ): CSV and VTK. */
static void write_row_at(sim *S, double t, const double *q, const double *v, const double *lam) {
    S->last_row_t = t;
    S->rows++;
    if (S->ccsv && ld_out_contacts_rows(S->ccsv, t, S->cp, S->ncp) != LD_OK)
        io_fail_msg(S, ld_out_contacts_message(S->ccsv));
    if (S->has_contact && S->vtk && ld_out_vtk_set_contacts(S->vtk, S->cp, S->ncp) != LD_OK)
        io_fail_msg(S, ld_out_vtk_message(S->vtk));
    if (S->has_contact && S->html && ld_out_html_set_contacts(S->html, S->cp, S->ncp) != LD_OK)
        io_fail_oom(S, "recording the viewer's contacts");
    if (S->csv) emit_row(S, S->csv, t, q, v, lam);
    if (S->pcsv) emit_row(S, S->pcsv, t, q, v, lam);
    if (S->vtk && (t >= S->vtk_next - 1e-9 * S->vtk_spacing || t >= S->t1)) {
        S->vtk_next = isfinite(S->vtk_next)
                          ? fmax(S->vtk_next + S->vtk_spacing, t + 0.5 * S->vtk_spacing)
                          : t + S->vtk_spacing;
        write_vtk(S, t, q, v);
    }
    if (S->html && ld_out_html_frame(S->html, t, q, v) != LD_OK)
        io_fail_oom(S, "recording the viewer's frames");
}

/* One output row of the integrator's state. */
static void write_row(sim *S, double t, const double *q, const double *v) {
    write_row_at(S, t, q, v, ld_integ_lambda(S->it));
}

/* Remember the step end (t, q, v, λ) that dense output interpolates from. */
static void dense_keep(sim *S, double t, const double *q, const double *v) {
    S->ta = t;
    S->wa = S->tot.work;
    memcpy(S->qa, q, (size_t)S->s.nq * sizeof(double));
    memcpy(S->va, v, (size_t)S->s.k * sizeof(double));
    if (S->s.m > 0) memcpy(S->la, ld_integ_lambda(S->it), (size_t)S->s.m * sizeof(double));
}

/* The output times t0 + j out_dt in (ta, t] after the step ta → t: a row each, interpolated on
 * the group (ld_sys_interpolate; λ linearly), the step end itself when a time falls on it
 * (within 1e-9 out_dt), and always the row of t1. */
static void dense_rows(sim *S, double t, const double *q, const double *v) {
    double tol = 1e-9 * S->out_dt, h = t - S->ta;
    const double *lam = ld_integ_lambda(S->it);
    for (;;) {
        double tj = S->t0 + (double)S->out_j * S->out_dt;
        if (tj > t + tol || tj > S->t1 + tol) break;
        S->out_j++;
        if (tj <= S->last_row_t + tol) continue;
        if (fabs(tj - t) <= tol || !(h > 0.0)) {
            write_row(S, t, q, v);
            continue;
        }
        double th = (tj - S->ta) / h;
        if (ld_sys_interpolate(&S->s, S->qa, S->va, q, v, h, th, S->qi, S->vi) != LD_OK) {
            io_fail_msg(S, "dense output: cannot interpolate");
            return;
        }
        for (int i = 0; i < S->s.m; ++i) S->li[i] = (1.0 - th) * S->la[i] + th * lam[i];
        write_row_at(S, tj, S->qi, S->vi, S->li);
    }
    if (t >= S->t1 && t != S->last_row_t) write_row(S, t, q, v);
    dense_keep(S, t, q, v);
}

/* "\r t = … / T  (… steps/s, … s to go)" at most five times a second. */
/* Returns the width of the line printed (0 if none). */
static int show_progress(const sim *S, double t, long steps, double wall0, double *next) {
    double now = wall_seconds();
    if (now < *next) return 0;
    *next = now + 0.2;
    double el = now - wall0, done = t - S->t0;
    double rate = el > 0.0 ? (double)steps / el : 0.0;
    double togo = done > 0.0 ? el * (S->t1 - t) / done : 0.0;
    int w = fprintf(stderr, "\r t = %-12.6g / %.6g  (%.0f steps/s, %.1f s to go)   ", t, S->t1,
                    rate, togo);
    fflush(stderr);
    return w > 0 ? w : 0;
}

/* Step n of nsteps: to the grid point t0 + n·dt (fixed steps) or one controlled step. */
static int sim_advance(sim *S, long n, long nsteps) {
    if (S->o.adaptive) return ld_integ_step_adaptive(S->it, S->t1);
    double target = n == nsteps ? S->t1 : S->grid0 + (double)n * S->dt;
    return ld_integ_advance_to(S->it, target);
}

/* The step failed: keep the reason and write the state reached. */
static void sim_failed(sim *S, int rc, double t, const double *q, const double *v) {
    const char *why = ld_integ_message(S->it);
    snprintf(S->msg, sizeof S->msg, "%s", why[0] ? why : ld_strerror(rc));
    S->status = rc;
    if (t != S->last_row_t) {
        sim_measure(S, t, q, v);
        write_row(S, t, q, v);
    }
}

/* After an accepted step: the step statistics, running maxima, the output row and the
 * periodic checkpoint. */
static void sim_accepted(sim *S, double t, const double *q, const double *v) {
    S->tot.row_h = ld_integ_last_h(S->it);
    S->tot.row_err = ld_integ_last_error(S->it);
    S->tot.hmin = fmin(S->tot.hmin, S->tot.row_h);
    S->tot.hmax = fmax(S->tot.hmax, S->tot.row_h);
    S->tot.errmax = fmax(S->tot.errmax, S->tot.row_err);
    sim_measure(S, t, q, v);
    if (S->has_contact) {
        contacts_fetch(S);
        if (S->m->contact.kind == LD_CONTACT_HARD) /* a compliant law overlaps by design */
            overlap_measure(S, t, q, v);
    }
    if (S->out_dt > 0.0)
        dense_rows(S, t, q, v);
    else if (S->n % S->every == 0 || t >= S->t1)
        write_row(S, t, q, v);
    if (S->drifted || S->overlapped) { /* the run ends here: the row of the state at fault */
        if (t != S->last_row_t) write_row(S, t, q, v);
        return;
    }
    if (S->ck_path && isfinite(S->ck_every) && t >= S->ck_next && t < S->t1) {
        (void)sim_checkpoint(S);
        while (S->ck_next <= t) S->ck_next += S->ck_every;
    }
}

/* Stop early (a signal or --max-steps): the row of the state reached and a checkpoint. */
static void sim_stop(sim *S, double t, const double *q, const double *v, int why) {
    S->stopped = why;
    if (t != S->last_row_t) write_row(S, t, q, v);
}

/* The results of the run from the final state. */
static void sim_finish(sim *S, const double *q, const double *v) {
    S->t = ld_integ_t(S->it);
    S->e1 = state_energy(S, S->t, q, v);
    ld_integ_get_stats(S->it, &S->st);
    int nb = S->m->nbodies;
    for (int b = 0; b < nb; ++b)
        ld_model_body_state(&S->s, b, q, v, S->bx + 3 * b, S->bq + 4 * b, S->bw + 3 * b,
                            S->bv + 3 * b);
    if (S->has_contact) (void)ld_integ_contact_stats(S->it, &S->cst);
    if (S->ck_path && S->status >= 0) (void)sim_checkpoint(S);
}

/* Step from t0 (or the restart point) to t1; fills the results. Returns 0, 3 (a step failed;
 * S->msg says why), 4 (output failed; S->io_msg), 5 (stopped early; S->stopped) or 6 (the
 * residual exceeded S->phi_tol, S->drifted, or an overlap S->ov_tol, S->overlapped). */
int sim_run(sim *S) {
    ld_integ *it = S->it;
    const double *q = ld_integ_q(it), *v = ld_integ_v(it);
    long nsteps = (long)ceil((S->t1 - S->grid0) / S->dt - 1e-9);
    if (nsteps < 1) nsteps = 1;
    if (!S->restarted) {
        S->tot.phimax = S->tot.angmax = 0.0;
        S->tot.phirow = -1;
        S->tot.hmin = INFINITY;
        S->tot.hmax = S->tot.errmax = 0.0;
        S->tot.row_h = 0.0;
        S->tot.row_err = NAN;
        S->tot.e0 = state_energy(S, S->t0, q, v);
        S->tot.work = 0.0;
        S->tot.wt = S->tot.wp = NAN;
        S->tot.escale = NAN;
    } else { /* the energy's reference and scale go on from the checkpoint's */
        S->chk.e0 = S->tot.e0;
        S->chk.escale = S->tot.escale;
        S->chk.states = 1;
    }
    double tc = ld_integ_t(it);
    if (S->ck_path && isfinite(S->ck_every))
        S->ck_next = S->t0 + S->ck_every * (floor((tc - S->t0) / S->ck_every) + 1.0);
    if (S->every <= 0) /* chosen here: every step up to 5000 steps, else about 2000 rows */
        S->every = S->o.adaptive || nsteps <= 5000 ? 1 : (int)((nsteps + 1999) / 2000);
    sim_measure(S, tc, q, v);
    contacts_fetch(S);
    write_row(S, tc, q, v);
    if (S->out_dt > 0.0) {
        S->out_j = (long)floor((tc - S->t0) / S->out_dt + 1e-9) + 1;
        dense_keep(S, tc, q, v);
    }
    double wall0 = wall_seconds(), next = wall0 + 0.2;
    int shown = 0;
    long taken = 0;
    while (!S->io_error && !S->drifted && !S->overlapped &&
           (S->o.adaptive ? ld_integ_t(it) < S->t1 : S->n < nsteps)) {
        if (sim_stop_signal || (S->max_steps > 0 && taken >= S->max_steps)) {
            sim_stop(S, ld_integ_t(it), q, v, sim_stop_signal ? (int)sim_stop_signal : -1);
            break;
        }
        double c0 = cpu_seconds();
        int rc = sim_advance(S, S->n + 1, nsteps);
        S->tot.cpu += cpu_seconds() - c0;
        q = ld_integ_q(it);
        v = ld_integ_v(it);
        double t = ld_integ_t(it);
        if (rc) {
            sim_failed(S, rc, t, q, v);
            break;
        }
        S->n++;
        taken++;
        sim_accepted(S, t, q, v);
        if (S->progress) {
            int w = show_progress(S, t, taken, wall0, &next);
            shown = w > shown ? w : shown;
        }
    }
    if (shown) {
        fprintf(stderr, "\r%*s\r", shown, "");
        fflush(stderr);
    }
    sim_finish(S, q, v);
    if (S->status) return 3;
    if (S->io_error) return 4;
    if (S->drifted || S->overlapped) return 6;
    return S->stopped ? 5 : 0;
}

/* A sim from the model's (overridden) run block. */
void sim_init(sim *S, const ld_model *m, const char *path, const char *cmd, int method, int la,
              int project) {
    memset(S, 0, sizeof *S);
    S->m = m;
    S->path = path;
    S->cmd = cmd;
    S->form = m->run.formulation;
    (void)ld_integ_options_from_model(m, &S->o); /* the loader checked the integrator's name */
    S->o.method = (ld_integ_method)method;
    S->o.la = la >= 0 ? (ld_la_kind)la : LD_LA_AUTO;
    S->o.project = project;
    S->t0 = S->grid0 = m->run.t_start;
    S->t1 = m->run.t_end;
    S->dt = m->run.dt;
    S->every = m->run.output_every;
    S->out_dt = m->output.dt;
    S->est = ld_integ_method_has_estimate(S->o.method);
}

/* ------------------------------------------------------------------ JSON helpers */

void json_str(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", (unsigned)*p);
        else
            putchar(*p);
    }
    putchar('"');
}

void json_num(double v) {
    if (isfinite(v))
        printf("%.17g", v);
    else
        fputs("null", stdout);
}

void json_vec(const double *v, int n) {
    putchar('[');
    for (int i = 0; i < n; ++i) {
        if (i) fputs(", ", stdout);
        json_num(v[i]);
    }
    putchar(']');
}

/* The checks and measures of a run's states (liedyn/runcheck.h): constraint residuals, the
 * drift checks, the energy scale. */
#include "../core/oom.h"
#include "liedyn/runcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"

/* B evaluated densely up to this many entries (a system without sparse structure); larger: the
 * velocity residual is not evaluated (NaN). */
#define VRES_DENSE_MAX ((size_t)4 << 20)

int ld_runcheck_init(ld_runcheck *c, const ld_system *s, double phi_tol) {
    if (!c || !s || !(phi_tol >= 0.0)) return LD_EINVAL;
    memset(c, 0, sizeof *c);
    c->phi_tol = phi_tol;
    c->phirow = c->vres_row = c->d_row = -1;
    c->phit = c->vres_t = c->d_t = c->d_val = NAN;
    c->e0 = c->escale = NAN;
    size_t m = (size_t)s->m, k = (size_t)s->k, mk = m * k;
    if (m > 0) c->nb = ld_sys_has_sparse(s) ? (size_t)s->bnnz : mk <= VRES_DENSE_MAX ? mk : 0;
    c->work = ld_xmalloc((c->nb + 3 * m + k + 1) * sizeof(double), "the run checks' work");
    return c->work ? LD_OK : LD_ENOMEM;
}

void ld_runcheck_free(ld_runcheck *c) {
    if (!c) return;
    free(c->work);
    c->work = NULL;
}

/* max |B(q) v + Φ_t(t, q)| over the constraint rows; 0 without constraints, NaN when it cannot
 * be evaluated (B too large for a dense evaluation, a callback failed). *row: the row of the
 * largest entry (−1: none). Φ_t is the system's, else a central difference in t. */
static double vel_residual(const ld_runcheck *c, const ld_system *s, double t, const double *q,
                           const double *v, int *row) {
    int m = s->m, k = s->k;
    *row = -1;
    if (m == 0) return 0.0;
    if (c->nb == 0) return NAN;
    double *B = c->work, *r = B + c->nb, *p1 = r + m, *p2 = p1 + m;
    memset(r, 0, (size_t)m * sizeof(double));
    if (ld_sys_has_sparse(s)) {
        if (s->ops.phi_q_sparse(s, t, q, B) != LD_OK) return NAN;
        for (int e = 0; e < s->bnnz; ++e) r[s->brow[e]] += B[e] * v[s->bcol[e]];
    } else {
        if (s->ops.phi_q(s, t, q, B) != LD_OK) return NAN;
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < k; ++j) r[i] += B[(size_t)i * (size_t)k + (size_t)j] * v[j];
    }
    if (s->ops.phi_t) {
        if (s->ops.phi_t(s, t, q, p1) != LD_OK) return NAN;
        for (int i = 0; i < m; ++i) r[i] += p1[i];
    } else {
        double d = 1e-6 * fmax(1.0, fabs(t));
        if (s->ops.phi(s, t + d, q, p1) != LD_OK || s->ops.phi(s, t - d, q, p2) != LD_OK)
            return NAN;
        for (int i = 0; i < m; ++i) r[i] += (p1[i] - p2[i]) / (2.0 * d);
    }
    double mx = 0.0;
    for (int i = 0; i < m; ++i) {
        if (isnan(r[i])) return NAN;
        if (fabs(r[i]) > mx || *row < 0) mx = fabs(r[i]), *row = i;
    }
    return mx;
}

/* The energy scale with the state's terms: T = E(t, q, v) − E(t, q, 0), V = E(t, q, 0). */
static void energy_terms(ld_runcheck *c, const ld_system *s, double t, const double *q,
                         const double *v) {
    double e = ld_sys_energy(s, t, q, v);
    if (c->states == 0) c->e0 = e;
    if (isnan(e)) return;
    double *zero = c->work + c->nb + 3 * (size_t)s->m;
    memset(zero, 0, (size_t)s->k * sizeof(double));
    double V = ld_sys_energy(s, t, q, zero), T = e - V;
    if (isnan(V)) return;
    double big = fmax(fabs(T), fabs(V));
    c->escale = isnan(c->escale) ? big : fmax(c->escale, big);
}

int ld_runcheck_state(ld_runcheck *c, const ld_system *s, double t, const double *q,
                      const double *v) {
    if (!c || !c->work || !s || !q || !v) return LD_EINVAL;
    int row = -1, vrow = -1;
    double ph = ld_sys_phi_max(s, t, q, c->work + c->nb, &row);
    if (ph > c->phimax && row >= 0) c->phirow = row, c->phit = t;
    c->phimax = (isnan(ph) || isnan(c->phimax)) ? (double)NAN : fmax(c->phimax, ph);
    double vr = vel_residual(c, s, t, q, v, &vrow);
    if (vr > c->vres && vrow >= 0) c->vres_row = vrow, c->vres_t = t;
    c->vres = (isnan(vr) || isnan(c->vres)) ? (double)NAN : fmax(c->vres, vr);
    for (int i = 0; i < s->k; ++i) c->vscale = fmax(c->vscale, fabs(v[i]));
    /* both checks failing at one state: the velocities' (the positions follow them) */
    if (c->phi_tol > 0.0 && !c->drifted && vr > LD_VEL_TOL_REL * c->vscale && vr > c->phi_tol)
        c->drifted = 2, c->d_val = vr, c->d_row = vrow, c->d_t = t;
    if (c->phi_tol > 0.0 && !c->drifted && !(ph <= c->phi_tol)) /* NaN too */
        c->drifted = 1, c->d_val = ph, c->d_row = row, c->d_t = t;
    energy_terms(c, s, t, q, v);
    c->states++;
    return c->drifted;
}

void ld_runcheck_message(const ld_runcheck *c, const ld_system *s, const ld_model *m,
                         const char *tol_name, char *buf, size_t cap) {
    if (!buf || cap == 0) return;
    buf[0] = '\0';
    if (!c || !s || !c->drifted) return;
    char row[LD_NAME_MAX + 96] = "";
    if (c->d_row < 0 || ld_model_row_name(s, c->d_row, row, sizeof row) != LD_OK) row[0] = '\0';
    if (c->drifted == 2) {
        snprintf(buf, cap,
                 "drifted off its velocity constraints at t = %.10g: |B v + Phi_t| %.3e%s%s "
                 "exceeds %g times the largest velocity component so far (%.3g), so the "
                 "velocities no longer satisfy the joints (the method may be unstable at this "
                 "step size)",
                 c->d_t, c->d_val, row[0] ? " in " : "", row, LD_VEL_TOL_REL, c->vscale);
        return;
    }
    snprintf(buf, cap,
             "drifted off its constraints at t = %.10g: max |Phi| %.3e%s%s exceeds %s %.3g, so "
             "the positions no longer satisfy the joints%s",
             c->d_t, c->d_val, row[0] ? " in " : "", row, tol_name ? tol_name : "the tolerance",
             c->phi_tol,
             m && ld_model_loop_count(m) > 0 ? " (a closed loop may switch its assembly branch)"
                                             : "");
}

/* The distance between two points. */
static double dist3(const double a[3], const double b[3]) {
    return hypot(hypot(a[0] - b[0], a[1] - b[1]), a[2] - b[2]);
}

double ld_model_constraint_length(const ld_model *m) {
    if (!m) return NAN;
    int nb = m->nbodies, nj = m->njoints;
    double len = 0.0;
    /* the joints of each body: first[b] .. first[b + 1] - 1 in list */
    int *first = ld_xcalloc((size_t)nb + 1, sizeof(int), "the joint index");
    int *list = ld_xmalloc((2 * (size_t)nj + 1) * sizeof(int), "the joint index");
    for (int j = 0; j < nj; ++j) {
        const ld_joint *jd = &m->joints[j];
        int bs[2] = {jd->body1, jd->body2};
        for (int i = 0; i < 2; ++i) {
            if (bs[i] < 0 || bs[i] >= nb) continue; /* the ground */
            double d = jd->point_form ? hypot(hypot(jd->p[0], jd->p[1]), jd->p[2])
                                      : dist3(jd->at, m->bodies[bs[i]].x);
            if (isfinite(d)) len = fmax(len, d);
            if (first && !jd->point_form) first[bs[i] + 1]++;
        }
    }
    if (first && list) { /* two joint points on one body */
        for (int b = 0; b < nb; ++b) first[b + 1] += first[b];
        int *fill = ld_xmalloc(((size_t)nb + 1) * sizeof(int), "the joint index");
        if (fill) {
            memcpy(fill, first, ((size_t)nb + 1) * sizeof(int));
            for (int j = 0; j < nj; ++j) {
                const ld_joint *jd = &m->joints[j];
                int bs[2] = {jd->body1, jd->body2};
                for (int i = 0; i < 2 && !jd->point_form; ++i)
                    if (bs[i] >= 0 && bs[i] < nb) list[fill[bs[i]]++] = j;
            }
            for (int b = 0; b < nb; ++b)
                for (int x = first[b]; x < first[b + 1]; ++x)
                    for (int y = x + 1; y < first[b + 1]; ++y) {
                        double d = dist3(m->joints[list[x]].at, m->joints[list[y]].at);
                        if (isfinite(d)) len = fmax(len, d);
                    }
            free(fill);
        }
    }
    free(first);
    free(list);
    return len > 0.0 ? len : 1.0;
}

double ld_model_constraint_tol(const ld_model *m) {
    return 1e-6 * ld_model_constraint_length(m);
}

double ld_energy_drift_rel(double e0, double e1, double scale) {
    double de = e1 - e0;
    if (isnan(de)) return NAN;
    return scale > 0.0 ? de / scale : de;
}

/*
 * One run of repro_iftomm: a benchmark problem integrated by one method at one setting, with the
 * measured quantity at every output row, the energy balance and the constraint residuals
 * (repro_iftomm.h).
 */
#include "repro_iftomm.h"

const char *ri_meth_name[NMETH] = {"genalpha", "hht", "hem5", "hem5+proj"};
const char *ri_meth_desc[NMETH] = {
    "genalpha, ρ∞ = 0.9, fixed step h", "hht, α = −0.1 (= hht-modified here), fixed step h",
    "hem5, step-size control, atol = rtol = tol", "hem5, step-size control, tol, projected"};

/* The integrator options of method k at setting set (h or tol). */
static ld_integ_options meth_options(int k, double set) {
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.la = LD_LA_AUTO;
    switch (k) {
    case M_GENALPHA:
        o.method = LD_INTEG_GENALPHA;
        o.rho_inf = 0.9;
        break;
    case M_HHT:
        o.method = LD_INTEG_HHT;
        o.alpha = -0.1;
        break;
    default:
        o.method = LD_INTEG_HEM5;
        o.adaptive = 1;
        o.error_atol = o.error_rtol = set;
        o.project = k == M_HEM5P;
        break;
    }
    return o;
}

/* The process's CPU time (s). */
static double cpu_now(void) {
    return (double)clock() / (double)CLOCKS_PER_SEC;
}

/* Spatial position and velocity of the body point p; the ground (b < 0): p itself, at rest. */
static void point_state(const ld_system *s, int b, const double p[3], const double *q,
                        const double *v, double x[3], double xd[3]) {
    if (b < 0) {
        for (int i = 0; i < 3; ++i) x[i] = p[i], xd[i] = 0.0;
        return;
    }
    double xc[3], qu[4], om[3], vc[3], R[9], r[3], w[3];
    ld_model_body_state(s, b, q, v, xc, qu, om, vc);
    ld_quat_to_mat(R, qu);
    for (int i = 0; i < 3; ++i) {
        r[i] = R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2];
        w[i] = R[3 * i] * om[0] + R[3 * i + 1] * om[1] + R[3 * i + 2] * om[2];
    }
    x[0] = xc[0] + r[0], x[1] = xc[1] + r[1], x[2] = xc[2] + r[2];
    xd[0] = vc[0] + w[1] * r[2] - w[2] * r[1];
    xd[1] = vc[1] + w[2] * r[0] - w[0] * r[2];
    xd[2] = vc[2] + w[0] * r[1] - w[1] * r[0];
}

typedef struct track {
    double ang[NANG];   /* A03: unwrapped absolute angles of the bodies' x axes */
    double diss, pdiss; /* A05: dissipated energy and the last dissipation power */
    double tprev;
} track;

/* The angle of body b about z (a planar body's rotation). */
static double plane_angle(const ld_system *s, int b, const double *q, const double *v) {
    double x[3], qu[4], om[3], vc[3];
    ld_model_body_state(s, b, q, v, x, qu, om, vc);
    return 2.0 * atan2(qu[3], qu[0]);
}

/* The power dissipated by p's dampers in the state (q, v). */
static double diss_power(const problem *p, const ld_system *s, const double *q, const double *v) {
    double P = 0.0;
    for (int e = 0; e < p->nd; ++e) {
        double x1[3], v1[3], x2[3], v2[3], d[3], dv[3];
        point_state(s, p->d_b[e][0], p->d_p[e][0], q, v, x1, v1);
        point_state(s, p->d_b[e][1], p->d_p[e][1], q, v, x2, v2);
        for (int i = 0; i < 3; ++i) d[i] = x2[i] - x1[i], dv[i] = v2[i] - v1[i];
        double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double ld = (d[0] * dv[0] + d[1] * dv[1] + d[2] * dv[2]) / l;
        P += p->d_c[e] * ld * ld;
    }
    return P;
}

/* After every step: what must be followed step by step (cheap; inside the timed loop). */
static void track_step(const problem *p, const ld_system *s, const ld_integ *it, track *tr) {
    const double *q = ld_integ_q(it), *v = ld_integ_v(it), t = ld_integ_t(it);
    if (p->id == P_A03)
        for (int b = 0; b < NANG; ++b)
            tr->ang[b] = ld_joint_angle_unwrap(plane_angle(s, p->ang_body[b], q, v), tr->ang[b]);
    if (p->id == P_A05) {
        double P = diss_power(p, s, q, v);
        tr->diss += 0.5 * (P + tr->pdiss) * (t - tr->tprev);
        tr->pdiss = P;
    }
    tr->tprev = t;
}

/* The measured quantity at a row, from the state (q, v); tr holds the tracked values of the last
 * step end (A03: the angles, against which those of q are unwrapped). */
static void probe(const problem *p, const ld_system *s, const double *q, const double *v,
                  const track *tr, double *y) {
    if (p->id == P_A03) {
        double a[NANG];
        for (int b = 0; b < NANG; ++b)
            a[b] = ld_joint_angle_unwrap(plane_angle(s, p->ang_body[b], q, v), tr->ang[b]);
        double vals[NANG] = {a[0], a[1] - a[0], a[2], a[3] - a[4], a[4], a[5] - a[6], a[6]};
        memcpy(y, vals, sizeof vals);
    } else if (p->id == P_A05) {
        double x[3], xd[3];
        point_state(s, p->slider, (double[3]){0, 0, 0}, q, v, x, xd);
        y[0] = x[1];
    } else {
        double x[3], xd[3];
        point_state(s, p->pbody, p->pp, q, v, x, xd);
        for (int i = 0; i < p->pcomp; ++i) y[i] = x[i];
    }
}

/* Our own measure of every joint equation as written (the rows left out as redundant included):
 * the largest separation |(x2 + R2 p2) − (x1 + R1 p1)| of a joint point's two copies (spherical,
 * universal, revolute, fixed joints) and |R1 a1 × R2 a2| of the axis fixed in each body (revolute,
 * cylindrical, prismatic, fixed): a bound on the joints' point and axis rows (model.h). */
static double joint_check(const problem *p, const ld_system *s, const double *q, const double *v) {
    double worst = 0.0;
    for (int j = 0; j < p->nj; ++j) {
        double x[2][3], a[2][3];
        for (int i = 0; i < 2; ++i) {
            double xd[3];
            point_state(s, p->jb[j][i], p->jp[j][i], q, v, x[i], xd);
            if (p->jb[j][i] < 0) {
                memcpy(a[i], p->ja[j][i], sizeof a[i]);
            } else {
                double xc[3], qu[4], om[3], vc[3], R[9];
                ld_model_body_state(s, p->jb[j][i], q, v, xc, qu, om, vc);
                ld_quat_to_mat(R, qu);
                const double *b = p->ja[j][i];
                for (int c = 0; c < 3; ++c)
                    a[i][c] = R[3 * c] * b[0] + R[3 * c + 1] * b[1] + R[3 * c + 2] * b[2];
            }
        }
        if (p->jgap[j])
            worst = fmax(worst, sqrt((x[1][0] - x[0][0]) * (x[1][0] - x[0][0]) +
                                     (x[1][1] - x[0][1]) * (x[1][1] - x[0][1]) +
                                     (x[1][2] - x[0][2]) * (x[1][2] - x[0][2])));
        if (p->jaxis[j]) {
            double c0 = a[0][1] * a[1][2] - a[0][2] * a[1][1],
                   c1 = a[0][2] * a[1][0] - a[0][0] * a[1][2],
                   c2 = a[0][0] * a[1][1] - a[0][1] * a[1][0];
            worst = fmax(worst, sqrt(c0 * c0 + c1 * c1 + c2 * c2));
        }
    }
    return worst;
}

void ri_run_free(run *r) {
    free(r->rows);
    free(r->ebal);
    r->rows = r->ebal = NULL;
}

/* Integrate problem p with method k at setting set (h or tol) to T (≤ p->T), a row every out_dt;
 * rho_inf > 0 overrides genalpha's. Fixed steps end on the rows. The adaptive runs step freely
 * (ld_integ_step_adaptive towards T) and their rows are interpolated between the step ends
 * (ld_sys_interpolate, third order on the group: the dense output of a user). The energy balance
 * and the constraint residuals are taken at step ends only: at every row of a fixed-step run, at
 * the first step end at or after each row of an adaptive one. Fills r. */
void ri_do_run(problem *p, int k, double set, double rho_inf, double T, run *r) {
    memset(r, 0, sizeof *r);
    r->meth = k, r->set = set, r->rho_inf = rho_inf;
    r->err = r->ebal_max = r->phis = r->phij = r->phio = DNAN;
    int nrows = (int)lround(T / p->out_dt);
    r->rows = calloc((size_t)(nrows + 1) * (size_t)p->ncomp, sizeof(double));
    r->ebal = calloc((size_t)nrows + 1, sizeof(double));
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    char msg[240] = "";
    int rc = ld_model_compile_msg(&p->m, p->m.run.formulation, &s, &q0, &v0, msg, sizeof msg);
    if (rc) {
        r->status = rc;
        snprintf(r->msg, sizeof r->msg, "compile: %.200s", msg);
        return;
    }
    p->redundant = ld_model_redundant_rows(&s, NULL, NULL, 0);
    p->nrows_sys = s.m;
    ld_integ_options o = meth_options(k, set);
    if (rho_inf > 0.0) o.rho_inf = rho_inf;
    ld_integ *it = ld_integ_create_msg(&s, &o, &rc, msg, sizeof msg);
    if (it) rc = ld_integ_init(it, 0.0, q0, v0);
    if (rc) {
        r->status = rc;
        snprintf(r->msg, sizeof r->msg, "%s", it ? ld_integ_message(it) : msg);
        ld_integ_free(it);
        free(q0), free(v0);
        ld_model_system_free(&s);
        return;
    }
    track tr;
    memset(&tr, 0, sizeof tr);
    for (int b = 0; b < NANG; ++b) tr.ang[b] = DNAN;
    track_step(p, &s, it, &tr);
    const double E0 = ld_sys_energy(&s, 0.0, q0, v0), beta0 = tr.ang[0];
    double *work = malloc((size_t)(s.m > 0 ? s.m : 1) * sizeof(double));
    /* the state before the last step (adaptive runs) and an interpolated one */
    double *qa = malloc((size_t)s.nq * sizeof(double)), *va = malloc((size_t)s.k * sizeof(double));
    double *qi = malloc((size_t)s.nq * sizeof(double)), *vi = malloc((size_t)s.k * sizeof(double));
    double phis = 0.0, phij = 0.0, phio = 0.0, ebm = 0.0, cpu = 0.0, ta = 0.0;
    probe(p, &s, q0, v0, &tr, r->rows);
    const int fixed = meth_fixed(k);
    /* fixed steps: nsteps of h (T/h whole); the rows fall on step ends when h divides out_dt,
     * else (h > out_dt) they are interpolated like those of the adaptive runs */
    const long nsteps = fixed ? lround(T / set) : 0;
    const int interp = !fixed || set > p->out_dt * (1.0 + 1e-12);
    long i = 0;
    int row = 1; /* the next row */
    while (!rc && row <= nrows) {
        const double trow = (double)row * p->out_dt;
        double c0 = cpu_now();
        while (!rc && ld_integ_t(it) < trow - 1e-9 * p->out_dt) {
            if (interp) {
                memcpy(qa, ld_integ_q(it), (size_t)s.nq * sizeof(double));
                memcpy(va, ld_integ_v(it), (size_t)s.k * sizeof(double));
                ta = ld_integ_t(it);
            }
            if (fixed) {
                ++i;
                rc = ld_integ_advance_to(it, i >= nsteps ? T : (double)i * set);
            } else {
                rc = ld_integ_step_adaptive(it, T);
            }
            if (!rc) track_step(p, &s, it, &tr);
        }
        cpu += cpu_now() - c0;
        if (rc) break;
        const double *q = ld_integ_q(it), *v = ld_integ_v(it), t = ld_integ_t(it);
        /* the rows reached: at the step end, or interpolated between the last two */
        const double h = t - ta;
        const int row0 = r->nrows;
        for (; row <= nrows && (double)row * p->out_dt <= t + 1e-9 * p->out_dt; ++row) {
            double *y = r->rows + (size_t)row * (size_t)p->ncomp;
            const double tr_ = (double)row * p->out_dt;
            if (fabs(tr_ - t) <= 1e-9 * p->out_dt || !interp) {
                probe(p, &s, q, v, &tr, y);
            } else {
                double th = (tr_ - ta) / h;
                ld_sys_interpolate(&s, qa, va, q, v, h,
                                   th < 0.0   ? 0.0
                                   : th > 1.0 ? 1.0
                                              : th,
                                   qi, vi);
                probe(p, &s, qi, vi, &tr, y);
            }
            r->nrows = row;
        }
        /* energy balance and residuals at this step end */
        double E = ld_sys_energy(&s, t, q, v), W = 0.0;
        if (p->id == P_A03) W = p->tau * (tr.ang[0] - beta0);
        const double bal = E - E0 - W + tr.diss;
        for (int j = row0 + 1; j <= r->nrows; ++j) r->ebal[j] = bal;
        ebm = fmax(ebm, fabs(bal));
        phis = fmax(phis, ld_sys_phi_max(&s, t, q, work, NULL));
        phij = fmax(phij, ld_model_joint_phi_max(&s, t, q, NULL));
        phio = fmax(phio, joint_check(p, &s, q, v));
    }
    r->status = rc;
    r->cpu = cpu;
    r->t_end = ld_integ_t(it);
    if (rc)
        snprintf(r->msg, sizeof r->msg, "%s",
                 ld_integ_message(it)[0] ? ld_integ_message(it) : ld_strerror(rc));
    ld_integ_stats st;
    ld_integ_get_stats(it, &st);
    r->steps = st.steps, r->rejected = st.rejected, r->newton = st.newton_iterations;
    r->ebal_max = ebm / p->escale;
    r->phis = phis, r->phij = phij, r->phio = phio;
    free(work), free(qa), free(va), free(qi), free(vi);
    ld_integ_free(it);
    free(q0), free(v0);
    ld_model_system_free(&s);
}

/* Error of run r against reference ref (rows × ncomp): the largest |difference| over the rows
 * (A03: at the last row only). NaN when the run did not reach the end. */
double ri_run_error(const problem *p, const run *r, const double *ref, int nrows) {
    if (r->status || r->nrows < nrows || !ref) return DNAN;
    double e = 0.0;
    for (int i = p->err_final_only ? nrows : 1; i <= nrows; ++i)
        for (int c = 0; c < p->ncomp; ++c) {
            size_t j = (size_t)i * (size_t)p->ncomp + (size_t)c;
            e = fmax(e, fabs(r->rows[j] - ref[j]));
        }
    return e;
}

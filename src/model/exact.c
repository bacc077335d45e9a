/* Prescribed rotations of Zupan & Zupan Sec. IV.A: the exact q(t), Ω(t), Ω̇(t) of ϑ(t), computed
 * with second-order Taylor jets (value, first and second time derivative) so that the
 * torque τ = J Ω̇ + Ω × JΩ is exact to round-off; and the check that a model's bodies start on
 * their exact solution (ld_model_check_exact). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exact.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"

typedef struct jet {
    double f, d, dd;
} jet;

static jet jmul(jet a, jet b) {
    jet r = {a.f * b.f, a.d * b.f + a.f * b.d, a.dd * b.f + 2.0 * a.d * b.d + a.f * b.dd};
    return r;
}

static jet jadd(jet a, jet b) {
    jet r = {a.f + b.f, a.d + b.d, a.dd + b.dd};
    return r;
}

/* F(a) for a scalar function with value F0, derivatives F1, F2 at a.f (chain rule). */
static jet jchain(jet a, double F0, double F1, double F2) {
    jet r = {F0, F1 * a.d, F2 * a.d * a.d + F1 * a.dd};
    return r;
}

/* ϑ(t) of the two cases with first and second derivatives. */
static void theta_jets(ld_exact_case c, double t, jet th[3]) {
    if (c == LD_EXACT_I) { /* (t², 0, t/5) */
        th[0] = (jet){t * t, 2.0 * t, 2.0};
        th[1] = (jet){0.0, 0.0, 0.0};
        th[2] = (jet){t / 5.0, 0.2, 0.0};
    } else { /* (t + sin t, 0, cos t) */
        double s = sin(t), co = cos(t);
        th[0] = (jet){t + s, 1.0 + co, -s};
        th[1] = (jet){0.0, 0.0, 0.0};
        th[2] = (jet){co, -s, -co};
    }
}

/* c(u) = cos(√u/2) and s(u) = sin(√u/2)/√u with their first two derivatives in u, by series
 * for small u and in closed form otherwise. */
static void half_angle_fns(double u, double c[3], double s[3]) {
    if (u < 1e-2) {
        /* c = Σ (−u/4)^k/(2k)!, s = ½ Σ (−u/4)^k/(2k+1)!, to u⁸ (error < 1e-20) */
        double x = -0.25 * u, p[10];
        p[0] = 1.0;
        for (int i = 1; i < 10; ++i) p[i] = p[i - 1] * x;
        double fc[10], fs[10], f = 1.0;
        for (int i = 0; i < 10; ++i) {
            fc[i] = 1.0 / f;  /* 1/(2i)! */
            f *= (2 * i + 1); /* (2i+1)! */
            fs[i] = 0.5 / f;
            f *= (2 * i + 2);
        }
        c[0] = c[1] = c[2] = s[0] = s[1] = s[2] = 0.0;
        for (int i = 0; i < 10; ++i) {
            c[0] += fc[i] * p[i];
            s[0] += fs[i] * p[i];
            if (i >= 1) {
                c[1] += fc[i] * i * p[i - 1] * -0.25;
                s[1] += fs[i] * i * p[i - 1] * -0.25;
            }
            if (i >= 2) {
                c[2] += fc[i] * i * (i - 1) * p[i - 2] * 0.0625;
                s[2] += fs[i] * i * (i - 1) * p[i - 2] * 0.0625;
            }
        }
        return;
    }
    double r = sqrt(u), h = 0.5 * r, sn = sin(h), cs = cos(h);
    /* d/du = (1/(2r)) d/dr; with dh/dr = ½ */
    c[0] = cs;
    c[1] = -sn / (4.0 * r);
    /* c″: d/du(−sin h/(4r)) = −(cos h/2 · 1/(4r) − sin h/(4r²)) · 1/(2r) */
    c[2] = -(cs / (8.0 * r) - sn / (4.0 * u)) / (2.0 * r);
    s[0] = sn / r;
    /* s = sin h / r: ds/dr = cos h/(2r) − sin h/r²; ds/du = ds/dr / (2r) */
    double sr = cs / (2.0 * r) - sn / u;
    s[1] = sr / (2.0 * r);
    /* d²s/dr² = −sin h/(4r) − cos h/(2r²) − cos h/(2r²) + 2 sin h/r³ */
    double srr = -sn / (4.0 * r) - cs / u + 2.0 * sn / (u * r);
    /* d²s/du² = (srr − sr/r)/(4u) */
    s[2] = (srr - sr / r) / (4.0 * u);
}

void ld_exact_eval(ld_exact_case c, double t, double q[4], double Om[3], double Omd[3]) {
    jet th[3], u = {0.0, 0.0, 0.0};
    theta_jets(c, t, th);
    for (int i = 0; i < 3; ++i) u = jadd(u, jmul(th[i], th[i]));
    double cf[3], sf[3];
    half_angle_fns(u.f, cf, sf);
    jet cj = jchain(u, cf[0], cf[1], cf[2]), sj = jchain(u, sf[0], sf[1], sf[2]);
    jet qj[4] = {cj, jmul(sj, th[0]), jmul(sj, th[1]), jmul(sj, th[2])};
    double q0[4], q1[4], q2[4], qc[4], r1[4], r2[4];
    for (int i = 0; i < 4; ++i) {
        q0[i] = qj[i].f;
        q1[i] = qj[i].d;
        q2[i] = qj[i].dd;
    }
    /* Ω = 2 vec(q* q̇); Ω̇ = 2 vec(q* q̈) since q̇* q̇ is real */
    ld_quat_conj(qc, q0);
    ld_quat_mul(r1, qc, q1);
    ld_quat_mul(r2, qc, q2);
    memcpy(q, q0, sizeof q0);
    for (int i = 0; i < 3; ++i) {
        Om[i] = 2.0 * r1[i + 1];
        Omd[i] = 2.0 * r2[i + 1];
    }
}

/* ------------------------------------------------------------------ initial state */

#define EXACT_TOL 1e-9 /* rad, and relative for Ω */

/* Does body b start on its prescribed rotation `c` at t? 0, or 1 with the reason in msg. */
static int exact_mismatch(const ld_body *b, ld_exact_case c, double t, char *msg, size_t n) {
    double q[4], Om[3], Omd[3], qb[4], dw = 0.0, wmax = 1.0;
    ld_exact_eval(c, t, q, Om, Omd);
    if (ld_quat_normalize(qb, b->q) != LD_OK) return 0; /* validation's business */
    double ang = ld_quat_angle(q, qb);
    for (int i = 0; i < 3; ++i) {
        dw = fmax(dw, fabs(b->omega[i] - Om[i]));
        wmax = fmax(wmax, fabs(Om[i]));
    }
    if (ang <= EXACT_TOL && dw <= EXACT_TOL * wmax) return 0;
    char where[32] = "";
    if (b->line > 0) snprintf(where, sizeof where, " (line %d)", b->line);
    const char *cs = c == LD_EXACT_I ? "i" : "ii";
    if (ang > EXACT_TOL)
        snprintf(msg, n,
                 "body '%s'%s starts %.3g rad from the rotation [%.15g, %.15g, %.15g, %.15g] "
                 "that its exact_torque load (case %s) prescribes at t = %.10g; the angle "
                 "errors will include this offset",
                 b->name, where, ang, q[0], q[1], q[2], q[3], cs, t);
    else
        snprintf(msg, n,
                 "body '%s'%s starts %.3g rad/s from the angular velocity [%.15g, %.15g, %.15g] "
                 "that its exact_torque load (case %s) prescribes at t = %.10g; the angle "
                 "errors will include its effect",
                 b->name, where, dw, Om[0], Om[1], Om[2], cs, t);
    return 1;
}

int ld_model_check_exact(const ld_model *m, char *msg, size_t n) {
    char scratch[8];
    if (!msg || n == 0) msg = scratch, n = sizeof scratch;
    msg[0] = '\0';
    if (!m || (m->nloads > 0 && !m->loads) || (m->nbodies > 0 && !m->bodies)) return LD_EINVAL;
    int count = 0;
    char *first = msg;
    for (int l = 0; l < m->nloads; ++l) {
        const ld_load *ld = &m->loads[l];
        if (ld->kind != LD_LOAD_EXACT_TORQUE || ld->exact == LD_EXACT_NONE || ld->body < 0 ||
            ld->body >= m->nbodies)
            continue;
        char other[8];
        count += exact_mismatch(&m->bodies[ld->body], ld->exact, m->run.t_start,
                                count ? other : first, count ? sizeof other : n);
    }
    return count;
}

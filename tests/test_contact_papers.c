/*
 * Two examples of Capobianco, Harsch, Eugster & Leine (2021, "A nonsmooth generalized-alpha
 * method for mechanical systems with frictional contact", Int. J. Numer. Methods Eng. 122),
 * run by moreau from the shipped models (docs/contact.md):
 *
 * - the rotating bouncing ball (models/rotating-ball.yaml and the cases of the paper's
 *   figures), against its exact solution: the impacts' times and places, the velocity a
 *   sliding impact leaves, the rolling that follows, the end of the bounces at
 *   t∞ = t₁ (1 + e)/(1 − e), and the final rolling speed that the angular momentum about the
 *   contact point fixes;
 * - the tippe top of Leine & Glocker (2003, "A set-valued force law for spatial
 *   Coulomb-Contensou friction") (models/tippe-top.yaml) over the paper's 8 s, with the
 *   Coulomb–Contensou friction of a contact disc of radius 5·10⁻⁴ m: against an independent
 *   implementation of the same top (repro/tippe_top_reference.py), the time it turns over
 *   onto its peg, the time it falls off, the energy; and, with point contacts, against what
 *   holds exactly for any contact force at the sphere's contact point: Jellett's integral
 *   L·(p − x) (Jellett 1872, "A treatise on the theory of friction"). Always: the energy never
 *   increasing, no overlap, the friction force inside Coulomb's cone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "moreau_run.h"

#include "liedyn/integrator.h"
#include "liedyn/lie.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define G 9.81

static void near(double got, double want, double tol, const char *what) {
    if (!(fabs(got - want) <= tol)) fail_msg("%s: %.17g, want %.17g", what, got, want);
}

static double energy(const run *r) {
    return ld_sys_energy(&r->s, ld_integ_t(r->it), ld_integ_q(r->it), ld_integ_v(r->it));
}

/* ------------------------------------------------------------------ the ball */

/* What a ball's run records: the impacts (a step that turns a falling ball, vz < −2·10⁻³ m/s,
 * upwards or to rest; 2·10⁻³ m/s is two steps of gravity at 10⁻⁴ s), the first two with their time,
 * place and the velocity left; the last impact's time; the first time after the first impact that
 * the lowest point slips by less than 10⁻⁴ m/s (moreau holds the rolling at the contact point
 * midway between the surfaces, which a contact closing within a step leaves up to h |vz| / 2 above
 * the plane); the highest centre after the first impact; the largest rise of the energy over one
 * step. */
typedef struct ball_log {
    int impacts;
    double t[2], x[2], vx[2], w[2];
    double t_last, t_roll, z_after, rise;
} ball_log;

/* The ball (body 0, radius r) run at step h up to T; its final state in x, w (body), v. */
static void ball_run(run *rr, double r, double h, double T, ball_log *lg, double x[3], double w[3],
                     double v[3]) {
    double q[4], vz_prev = 0.0, e_prev = energy(rr);
    memset(lg, 0, sizeof *lg);
    lg->t_roll = -1.0;
    int n = (int)lround(T / h);
    for (int i = 1; i <= n; ++i) {
        assert_int_equal(ld_integ_advance_to(rr->it, i * h), LD_OK);
        body(rr, x, q, w, v);
        double e = energy(rr), t = i * h, slip = v[0] - r * w[1];
        lg->rise = fmax(lg->rise, e - e_prev);
        e_prev = e;
        if (vz_prev < -2e-3 && v[2] > -1e-9) {
            if (lg->impacts < 2) {
                lg->t[lg->impacts] = t, lg->x[lg->impacts] = x[0];
                lg->vx[lg->impacts] = v[0], lg->w[lg->impacts] = w[1];
            }
            lg->impacts++;
            lg->t_last = t;
        }
        if (lg->impacts > 0 && lg->t_roll < 0 && fabs(slip) < 1e-4) lg->t_roll = t;
        if (lg->impacts > 0) lg->z_after = fmax(lg->z_after, x[2]);
        vz_prev = v[2];
    }
}

/* The most the energy of a ball of 1 kg may rise in a step: none, except where a bounce ends
 * within a step (moreau's last bounces, |vz| < g h / 2): the first half drift lifts the ball
 * by h |vz| / 2 before the contact stops it, m g h |vz| / 2 ≤ m g² h² / 4 (1.03·10⁻⁷ J
 * measured at h = 10⁻⁴ s, once, where a rest begins). */
#define RISE(h) (G * G * (h) * (h) / 4.0)

/* The slip of a ball on the plane z = 0 at its lowest point, where moreau's impulses act (each
 * body's own surface point, the arm r from its centre). */
static double surface_slip(const double x[3], const double w[3], const double v[3], double r) {
    (void)x;
    return v[0] - r * w[1];
}

/* The shipped rotating-ball: e = 0.5, μ = 0.2, thrown at 1 m/s from x = −0.5 m, spinning at
 * −50 rad/s about y. Exact: first impact at t₁ = √(2·0.9/g), x = −0.5 + t₁, sliding through it
 * (friction impulse μ (1 + e) m v₁) to x' = 1 − μ (1 + e) v₁; second at t₂ = t₁ + 2 e v₁/g,
 * sticking; then rolling at −(J ω₀ − m r x'₀) r/(J + m r²) = −0.714286 m/s; bounces end at
 * t∞ = 3 t₁ (e = 0.5). */
static void test_rotating_ball(void **state) {
    (void)state;
    const double h = 1e-4, r = 0.1, mu = 0.2, e = 0.5, J = 0.004;
    const double t1 = sqrt(2 * 0.9 / G), v1 = G * t1, t2 = t1 + 2 * e * v1 / G;
    const double vx1 = 1.0 - mu * (1 + e) * v1, x1 = -0.5 + t1, x2 = x1 + vx1 * (t2 - t1);
    const double v_roll = -(J * 50.0 - r * 1.0) * r / (J + r * r), t_inf = t1 * (1 + e) / (1 - e);
    char *text = model_text("rotating-ball");
    run rr;
    start(&rr, text, LD_FORM_SO3XR3, h);
    free(text);
    ball_log lg;
    double x[3], w[3], v[3];
    ball_run(&rr, r, h, 1.5, &lg, x, w, v);
    near(lg.t[0], t1, 2 * h, "rotating ball: first impact, time");
    near(lg.x[0], x1, 3e-4, "rotating ball: first impact, place");
    near(lg.vx[0], vx1, 3e-4, "rotating ball: velocity after the sliding impact");
    near(-lg.w[0], 50.0 - mu * (1 + e) * v1 * r / J, 2e-2, "rotating ball: spin after it");
    near(lg.t[1], t2, 3 * h, "rotating ball: second impact, time");
    near(lg.x[1], x2, 3e-4, "rotating ball: second impact, place");
    near(lg.vx[1], v_roll, 2e-4, "rotating ball: rolling from the second impact");
    near(lg.t_roll, t2, 3 * h, "rotating ball: the slip ends at the second impact");
    near(lg.t_last, t_inf, 1e-3, "rotating ball: the bounces end at t_inf");
    near(v[0], v_roll, 2e-4, "rotating ball: final rolling speed");
    near(surface_slip(x, w, v, r), 0.0, 1e-9, "rotating ball: rolls without slip");
    near(v[2], 0.0, 1e-9, "rotating ball: on the plane");
    near(x[2], r, 1e-5, "rotating ball: height");
    near(x[0], x2 + v_roll * (1.5 - t2), 1e-3, "rotating ball: place at t = 1.5 s");
    if (!(lg.rise <= RISE(h)))
        fail_msg("rotating ball: the energy rose by %.3g J in a step", lg.rise);
    stop(&rr);
}

/* The paper's cases: e = 0, μ = 0.2, dropped from 1 m spinning at w0 (−w0 about y here),
 * or e = 0.5 without spin. */
static void paper_ball(run *rr, double e, double w0, double h) {
    char text[1024];
    snprintf(text, sizeof text,
             "gravity: [0, 0, -9.81]\n"
             "bodies:\n  - {name: ball, mass: 1, inertia: [0.004, 0.004, 0.004],\n"
             "     position: [0, 0, 1], angular_velocity: [0, %.17g, 0],\n"
             "     shape: {type: sphere, radius: 0.1, collide: true, restitution: %g,"
             " friction: 0.2}}\n"
             "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0]}\n",
             -w0, e);
    start(rr, text, LD_FORM_SO3XR3, h);
}

/* Spin 50 rad/s, e = 0: the landing's friction impulse μ m v₁ cannot stop the slip of 5 m/s;
 * the ball slides, decelerating the slip at 3.5 μ g, and rolls from
 * t_r = t₁ + (r ω₀ − 3.5 μ v₁)/(3.5 μ g) = 0.72812 s at −2/7 r ω₀; spin 10 rad/s: the landing
 * stops the slip, rolling at −2/7 r ω₀ from t₁. No spin, e = 0.5: the bounces end at 3 t₁. */
static void test_paper_balls(void **state) {
    (void)state;
    const double h = 1e-4, r = 0.1, mu = 0.2, t1 = sqrt(2 * 0.9 / G), v1 = G * t1;
    ball_log lg;
    double x[3], w[3], v[3], vr = -2.0 / 7.0 * r * 50.0;
    run rr;
    paper_ball(&rr, 0.0, 50.0, h);
    ball_run(&rr, r, h, 1.1, &lg, x, w, v);
    double tau = (r * 50.0 - 3.5 * mu * v1) / (3.5 * mu * G);
    double xr = -mu * v1 * tau - 0.5 * mu * G * tau * tau;
    near(lg.t[0], t1, 2 * h, "spin 50: landing");
    near(lg.vx[0], -mu * v1, 3e-4, "spin 50: velocity after the landing");
    near(lg.t_roll, t1 + tau, 1e-3, "spin 50: rolling starts");
    near(v[0], vr, 2e-4, "spin 50: rolling speed");
    near(surface_slip(x, w, v, r), 0.0, 1e-9, "spin 50: no slip");
    near(x[0], xr + vr * (1.1 - t1 - tau), 1e-3, "spin 50: place at 1.1 s");
    if (!(lg.z_after <= r + v1 * h)) fail_msg("spin 50, e = 0: rose to %.9g m", lg.z_after);
    stop(&rr);
    paper_ball(&rr, 0.0, 10.0, h);
    ball_run(&rr, r, h, 1.1, &lg, x, w, v);
    near(lg.t_roll, lg.t[0], 0.0, "spin 10: sticks at the landing");
    near(v[0], vr / 5.0, 1e-4, "spin 10: rolling speed");
    near(x[0], vr / 5.0 * (1.1 - t1), 1e-3, "spin 10: place at 1.1 s");
    stop(&rr);
    paper_ball(&rr, 0.5, 0.0, h);
    ball_run(&rr, r, h, 1.5, &lg, x, w, v);
    near(lg.t_last, 3.0 * t1, 1e-3, "no spin, e = 0.5: bounces end at 3 t1");
    near(x[0], 0.0, 1e-12, "no spin: stays at x = 0");
    if (!(lg.rise <= RISE(h)))
        fail_msg("bouncing ball: the energy rose by %.3g J in a step", lg.rise);
    stop(&rr);
}

/* ------------------------------------------------------------- the tippe top */

/* The top's data (models/tippe-top.yaml): the big sphere (radius r1, centre a1 along the
 * body's z from the centre of mass) and the peg's sphere (r2, a2). */
static const double A1 = 3e-3, R1 = 1.5e-2, A2 = 1.6e-2, R2 = 5e-3, MU = 0.3;
static const double I1 = 8e-7, I3 = 7e-7;

/* The same top written independently (repro/tippe_top_reference.py: the symmetry axis and the
 * spatial angular velocity as unknowns, Moreau–Jean with each step's contact problem solved
 * exactly), at h = 2e-4, 1e-4, 5e-5, 2.5e-5 s: the centre of mass rises through 18 mm (the top
 * turns over onto its peg) at 1.4162, 1.4194, 1.4211, 1.4220 s, first order, T_UP in the limit
 * h -> 0; it falls back through it (the top falls off its peg) at 4.527, 4.523, 4.541, 4.543 s,
 * about T_DOWN; the energy at 4 s, 3.680, 3.658, 3.647, 3.641 mJ, and at 8 s, 1.049, 1.047,
 * 1.046, 1.046 mJ, E_MID and E_END in the limit. */
#define T_UP   1.4229
#define T_DOWN 4.535
#define E_MID  3.636e-3
#define E_END  1.045e-3
#define Z_UP   0.018

/* Jellett's quantity L·(p − x) for the big sphere's contact point p = x + a1 e3 − r1 ez, and
 * the gaps of both spheres to the plane z = 0. */
static double top_jellett(const double x[3], const double q[4], const double w[3], double gap[2]) {
    double Lb[3] = {I1 * w[0], I1 * w[1], I3 * w[2]}, L[3], e3[3];
    const double ez[3] = {0, 0, 1};
    ld_quat_rotate(L, q, Lb);
    ld_quat_rotate(e3, q, ez);
    gap[0] = x[2] + A1 * e3[2] - R1;
    gap[1] = x[2] + A2 * e3[2] - R2;
    return A1 * (L[0] * e3[0] + L[1] * e3[1] + L[2] * e3[2]) - R1 * L[2];
}

/* What a run of the top records: the times the centre of mass rises and falls through Z_UP
 * (linear between the steps; −1: never), its highest point, the energy at the end, the largest
 * rise of the energy over a step, the largest overlap at a step's end, the largest relative
 * drift of Jellett's integral and the highest the big sphere lifts off while the peg does not
 * touch, how far the friction force leaves the cone μ F_n. */
typedef struct top_log {
    double t_up, t_down, z_max, e_mid, e_end, rise, overlap, jellett, hop, cone;
} top_log;

static void top_run(const char *text, double h, double T, top_log *lg) {
    run rr;
    start(&rr, text, LD_FORM_SO3XR3, h);
    double x[3], q[4], w[3], v[3], gap[2], f[3], tau[3];
    body(&rr, x, q, w, v);
    double j0 = top_jellett(x, q, w, gap), e_prev = energy(&rr), z_prev = x[2];
    memset(lg, 0, sizeof *lg);
    lg->t_up = lg->t_down = -1.0;
    int n = (int)lround(T / h);
    for (int i = 1; i <= n; ++i) {
        assert_int_equal(ld_integ_advance_to(rr.it, i * h), LD_OK);
        body(&rr, x, q, w, v);
        double j = top_jellett(x, q, w, gap), e = energy(&rr), t = i * h;
        double s = (Z_UP - z_prev) / (x[2] - z_prev);
        if (lg->t_up < 0 && z_prev < Z_UP && x[2] >= Z_UP) lg->t_up = t - h + s * h;
        if (lg->t_up >= 0 && lg->t_down < 0 && z_prev >= Z_UP && x[2] < Z_UP)
            lg->t_down = t - h + s * h;
        z_prev = x[2];
        if (i == n / 2) lg->e_mid = e;
        lg->z_max = fmax(lg->z_max, x[2]);
        lg->rise = fmax(lg->rise, e - e_prev);
        e_prev = e;
        lg->overlap = fmax(lg->overlap, -fmin(gap[0], gap[1]));
        if (gap[1] > 1e-3)
            lg->jellett = fmax(lg->jellett, fabs(j - j0) / fabs(j0)),
            lg->hop = fmax(lg->hop, gap[0]);
        assert_int_equal(ld_integ_contact_force(rr.it, 0, f, tau), LD_OK);
        lg->cone = fmax(lg->cone, hypot(f[0], f[1]) - MU * f[2] * (1 + 1e-9));
    }
    lg->e_end = e_prev;
    stop(&rr);
}

/* The shipped tippe top (Coulomb–Contensou friction on a contact disc of radius 5·10⁻⁴ m) over
 * the paper's 8 s at its step 10⁻⁴ s, against the independent reference:
 * - it turns over onto its peg at T_UP within 4 ms: moreau's own first-order error at this step
 *   is 1.6 ms (1.4199, 1.4213, 1.4221, 1.4225 s at h = 2e-4 … 2.5e-5 s: the limit 1.4229 s, as
 *   the reference's), the reference's limit is known to 0.2 ms. A point contact never turns it
 * within 8 s; R̄ = R instead of 3π/16 R turns it at 1.467 s, R̄ = (3π/16)² R at 1.437 s (the
 * inversion depends little on R̄);
 * - it then stands on its peg, the centre of mass within 0.02 mm of the upright a2 + r2;
 * - it falls off the peg at T_DOWN within 50 ms (moreau: 4.4796, 4.5004, 4.5129, 4.5190 s at
 *   h = 2e-4 … 2.5e-5: 25 ms of first-order error at this step, the limit about 4.525 s; the
 * reference's spread over h: 20 ms); the fall is the sensitive part: a contact radius 10 % smaller
 * or larger moves it by +0.22 or −0.37 s;
 * - the energy at 4 s within 0.5 % of the reference's (moreau 3.637 mJ, converged to 1 µJ;
 *   ±10 % on the contact radius moves it by 3.5 %), at 8 s within 2 %;
 * - the energy never rises but by 1e-14 J in a step (1e-12 of it): while the top slides, its
 *   big sphere leaves the plane for single steps (393 in the first 0.6 s, at up to 0.01 m/s),
 *   and such a step of free flight (Euler's equations by the explicit midpoint rule) gains up
 *   to 6.7e-15 J;
 * - no overlap at a step's end beyond the CLI's check (1e-6 of r2); the friction force inside
 *   the cone μ F_n (the ball of the impulses bounds the friction's part). */
static void test_tippe_top(void **state) {
    (void)state;
    char *text = model_text("tippe-top");
    if (!strstr(text, "contact_radius: 5.0e-4")) fail_msg("tippe top: no contact_radius 5e-4");
    top_log lg;
    top_run(text, 1e-4, 8.0, &lg);
    free(text);
    near(lg.t_up, T_UP, 4e-3, "tippe top: turns over onto its peg");
    near(lg.z_max, A2 + R2, 2e-5, "tippe top: upright on its peg");
    near(lg.t_down, T_DOWN, 5e-2, "tippe top: falls off its peg");
    near(lg.e_mid, E_MID, 0.005 * E_MID, "tippe top: energy at 4 s");
    near(lg.e_end, E_END, 0.02 * E_END, "tippe top: energy at 8 s");
    if (!(lg.rise <= 1e-14)) fail_msg("tippe top: the energy rose by %.3g J in a step", lg.rise);
    if (!(lg.overlap <= 5e-9)) fail_msg("tippe top: overlap %.3g m at a step's end", lg.overlap);
    if (!(lg.cone <= 0.0)) fail_msg("tippe top: friction outside the cone by %.3g N", lg.cone);
}

/* The same top with point contacts (contact_radius 0: Coulomb friction alone), where Jellett's
 * integral L·(p − x) holds exactly for any force at the big sphere's contact point (Jellett
 * 1872, "A treatise on the theory of friction"): over 8 s at 10⁻⁴ s it drifts by 6.9·10⁻⁵
 * (relative; the drilling torque of a contact disc breaks it); the top does not turn over
 * within 8 s; the energy never rises; the big sphere never leaves the plane (by 10⁻⁶ m: it
 * rolls and slides, it does not hop). */
static void test_tippe_top_point_contact(void **state) {
    (void)state;
    char *text = model_text("tippe-top");
    for (char *p = text; (p = strstr(p, "contact_radius: 5.0e-4")) != NULL;)
        memcpy(p, "contact_radius: 0.0000", 22);
    top_log lg;
    top_run(text, 1e-4, 8.0, &lg);
    free(text);
    if (!(lg.jellett <= 1.2e-4))
        fail_msg("tippe top: Jellett's integral drifted by %.3g", lg.jellett);
    if (!(lg.t_up < 0)) fail_msg("tippe top: point contact turned over at %.4g s", lg.t_up);
    if (!(lg.rise <= 1e-15)) fail_msg("tippe top: the energy rose by %.3g J in a step", lg.rise);
    if (!(lg.overlap <= 5e-9)) fail_msg("tippe top: overlap %.3g m at a step's end", lg.overlap);
    if (!(lg.hop <= 1e-6)) fail_msg("tippe top: the big sphere left the plane by %.3g m", lg.hop);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotating_ball),
        cmocka_unit_test(test_paper_balls),
        cmocka_unit_test(test_tippe_top),
        cmocka_unit_test(test_tippe_top_point_contact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

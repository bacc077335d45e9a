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
 *   Coulomb-Contensou friction") (models/tippe-top.yaml) over the paper's 8 s, against what
 *   holds exactly for any contact forces at the sphere's contact point: Jellett's integral
 *   L·(p − x) (Jellett 1872, "A treatise on the theory of friction"), the energy never
 *   increasing, no overlap, the friction force inside Coulomb's cone.
 *
 * The top's inversion is not asserted: the paper's top inverts under Coulomb–Contensou friction
 * (a contact disc of radius 5·10⁻⁴ m); liedyn's point contact is its limit R → 0, where the top
 * sticks within 0.04 s and then rolls upright, and the inversion moreau gives later comes at a
 * time that grows as 1/h (docs/contact.md).
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

/* The text of the shipped model models/NAME.yaml (malloc'd): found from the source tree
 * (LD_SOURCE_DIR if given, else this file's directory's parent). */
static char *model_text(const char *name) {
    char path[1024];
#ifdef LD_SOURCE_DIR
    snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, name);
#else
    const char *src = __FILE__, *slash = strrchr(src, '/');
    int dir = slash ? (int)(slash - src) : 0;
    snprintf(path, sizeof path, "%.*s%s../models/%s.yaml", dir, src, slash ? "/" : "", name);
#endif
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    char *text = calloc(1 << 16, 1);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    if (n == 0) fail_msg("empty %s", path);
    return text;
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

/* The shipped tippe top over the paper's 8 s at its step 10⁻⁴ s: while the big sphere alone
 * touches, Jellett's integral stays (relative drift measured 6.9·10⁻⁵ at 8 s); the energy never
 * rises (beyond rounding); no overlap at a step's end beyond the CLI's check (10⁻⁶ of r2); the
 * big sphere never leaves the plane (by 10⁻⁶ m: it rolls and slides, it does not hop); the
 * friction force inside the cone μ F_n. */
static void test_tippe_top(void **state) {
    (void)state;
    const double h = 1e-4;
    const int n = 80000;
    char *text = model_text("tippe-top");
    run rr;
    start(&rr, text, LD_FORM_SO3XR3, h);
    free(text);
    double x[3], q[4], w[3], v[3], gap[2], f[3], tau[3];
    body(&rr, x, q, w, v);
    double j0 = top_jellett(x, q, w, gap), jmax = 0.0, e_prev = energy(&rr), rise = 0.0;
    double overlap = 0.0, hop = 0.0, cone = 0.0;
    for (int i = 1; i <= n; ++i) {
        assert_int_equal(ld_integ_advance_to(rr.it, i * h), LD_OK);
        body(&rr, x, q, w, v);
        double j = top_jellett(x, q, w, gap), e = energy(&rr);
        rise = fmax(rise, e - e_prev);
        e_prev = e;
        overlap = fmax(overlap, -fmin(gap[0], gap[1]));
        if (gap[1] > 1e-3) jmax = fmax(jmax, fabs(j - j0) / fabs(j0)), hop = fmax(hop, gap[0]);
        assert_int_equal(ld_integ_contact_force(rr.it, 0, f, tau), LD_OK);
        cone = fmax(cone, hypot(f[0], f[1]) - MU * f[2] * (1 + 1e-9));
    }
    if (!(jmax <= 1.2e-4)) fail_msg("tippe top: Jellett's integral drifted by %.3g", jmax);
    if (!(rise <= 1e-15)) fail_msg("tippe top: the energy rose by %.3g J in a step", rise);
    if (!(overlap <= 5e-9)) fail_msg("tippe top: overlap %.3g m at a step's end", overlap);
    if (!(hop <= 1e-6)) fail_msg("tippe top: the big sphere left the plane by %.3g m", hop);
    if (!(cone <= 0.0)) fail_msg("tippe top: friction outside the cone by %.3g N", cone);
    stop(&rr);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotating_ball),
        cmocka_unit_test(test_paper_balls),
        cmocka_unit_test(test_tippe_top),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The cost and the quality of many-body contact (docs/contact.md), beside MuJoCo when it was
 * found at configure time. Two scenes (contact_scenes.c), μ = 0.4, e = 0:
 *   spheres-in-box   n spheres of radius 5 cm, 0.5 kg, released in a cube lattice 12 cm apart
 *                    (±5 mm horizontal offsets at random, the lowest layer 10 cm up) into a box
 *                    of a floor and four walls (ground shapes) 1 cm beyond the lattice;
 *                    n = 27, 125, 343, 1000;
 *   chain-on-ground  100 capsules (radius 1 cm, 5 cm from joint to joint, 50 g) joined end to end
 *                    by spherical joints, straight at 10° to the horizontal, its lower end 10 cm
 *                    above the ground plane.
 * liedyn integrates them by moreau in so3xr3 (Moreau–Jean, hard contact, projected Gauss–Seidel,
 * position correction, default tolerances) for 1 s at h = 1 ms and, for accuracy, at
 * h = 0.25 ms (the smaller scenes); MuJoCo (contact_mujoco.c) the same scene from an MJCF text
 * with its soft contacts, the same h and horizon, by its default solver (Newton, code mujoco;
 * n ≤ 125: it factors a dense Hessian) and by its CG solver (code mujoco-cg; n ≤ 343: 2.2.2
 * cannot allocate the data of 1000 spheres). The smoke run
 * (BENCH_QUICK=1): 27 spheres and a chain of 10 for 0.2 s, liedyn and MuJoCo's default.
 * BENCH_SCENE=chain or BENCH_SCENE=spheres runs one of the two scenes only, BENCH_N=n the
 * spheres' scene at one of the sizes only.
 * CSV, one row per code, scene, n and h:
 *   code (liedyn, mujoco), scene, n (bodies), joints, h, steps, cpu_s (the steps only),
 *   us_per_step, contacts_avg and contacts_end (per step: liedyn, the contacts its solve held,
 *   closed at the midpoint or closing within the step; MuJoCo, ncon), sweeps_per_step (PGS
 *   sweeps; MuJoCo: solver iterations), ns_per_contact_sweep (the time per step over (contacts
 *   + joints) × sweeps), max_overlap_mid_m (liedyn: the largest overlap at a step's midpoint,
 *   ld_integ_contact_stats), max_overlap_end_m (the largest overlap of two shapes, or a shape
 *   and a wall or the floor, at any step's end, from the bodies' poses by the exact pair tests),
 *   max_floor_overlap_end_m (the deepest point of a body below the floor's top, any step's
 *   end), overlap_final_m (the largest overlap at the end), max_joint_gap_m (the largest
 *   distance between a joint's two points at a step's end), energy_start_J, energy_end_J
 *   (kinetic + m g z), max_speed_end (of a centre of mass), escaped (bodies outside the box or
 *   below the floor at the end).
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME      "bench_contact"
#include <math.h>
#include <string.h>

#include "bench_common.h"
#include "contact_scenes.h"
#include "liedyn/integrator.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* The bodies' poses and velocities of a state of the compiled system s (n bodies). */
static void ld_state(const ld_system *s, int n, const double *q, const double *v, double *R,
                     double *x, double *om, double *xd) {
    for (int b = 0; b < n; ++b) {
        double qq[4];
        ld_model_body_state(s, b, q, v, x + 3 * b, qq, om + 3 * b, xd + 3 * b);
        ld_quat_to_mat(R + 9 * b, qq);
    }
}

/* Integrate scene sc by moreau for steps steps of h and print its row. */
static void run_liedyn(const cs_scene *sc, double h, int steps) {
    ld_model m;
    cs_model(sc, &m);
    ld_system s;
    double *q0, *v0;
    check_ld(sc->name, ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)ld_integ_method_find("moreau");
    int st = 0;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    if (!it) die(sc->name, ld_strerror(st));
    check_ld(sc->name, ld_integ_init(it, 0.0, q0, v0));
    ld_cworld *w = ld_cworld_create(&m, 64 * sc->n + 64);
    double *buf = malloc(18 * (size_t)sc->n * sizeof *buf);
    if (!w || !buf) die(sc->name, "out of memory");
    double *R = buf, *x = R + 9 * sc->n, *om = x + 3 * sc->n, *xd = om + 3 * sc->n;
    cs_row r = {
        .code = "liedyn", .scene = sc->name, .n = sc->n, .joints = sc->nj, .h = h, .steps = steps};
    ld_state(&s, sc->n, q0, v0, R, x, om, xd);
    cs_measure(sc, w, R, x, om, xd, &r.end);
    r.energy0 = r.end.energy;
    double contacts = 0.0;
    ld_contact_stats cst;
    for (int k = 1; k <= steps; ++k) {
        double c0 = cpu_now();
        check_ld(sc->name, ld_integ_advance_to(it, k * h));
        r.cpu += cpu_now() - c0;
        check_ld(sc->name, ld_integ_contact_stats(it, &cst));
        contacts += cst.contacts;
        r.contacts_end = cst.contacts;
        ld_state(&s, sc->n, ld_integ_q(it), ld_integ_v(it), R, x, om, xd);
        cs_measure(sc, w, R, x, om, xd, &r.end);
        cs_worst(&r.worst, &r.end);
    }
    r.contacts_avg = contacts / steps;
    r.sweeps_per_step = (double)cst.total_sweeps / steps;
    r.max_overlap_mid = cst.max_overlap;
    cs_print_row(&r);
    ld_cworld_free(w);
    free(buf);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* Scene sc for T at h by liedyn and, when found, by MuJoCo's default solver (mj: 1) and its CG
 * solver (cg: 1). */
static void study(cs_scene *sc, double T, double h, int mj, int cg) {
    int steps = (int)lround(T / h);
    run_liedyn(sc, h, steps);
    if (mj) cs_mujoco_run(sc, h, steps, -1);
    if (cg) cs_mujoco_run(sc, h, steps, 1);
}

int main(void) {
    int quick = bench_quick();
    cs_mujoco_describe();
    cs_print_header();
    static const int sizes[] = {27, 125, 343, 1000};
    double T = quick ? 0.2 : 1.0;
    const char *only = getenv("BENCH_SCENE");
    int spheres = !only || !strcmp(only, "spheres"), chain = !only || !strcmp(only, "chain");
    cs_scene sc;
    const char *nn = getenv("BENCH_N");
    for (int i = 0; spheres && i < (quick ? 1 : 4); ++i) {
        if (nn && atoi(nn) != sizes[i]) continue;
        cs_spheres_in_box(&sc, sizes[i]);
        /* MuJoCo 2.2.2's Newton factors a dense nv × nv Hessian: too slow beyond n = 125; its
         * constraint arrays of njmax × (nv + njmax) exceed its 2 GB buffer at n = 1000 */
        study(&sc, T, 1e-3, i < 2, !quick && i < 3);
        if (!quick && i == 3) printf("# mujoco: n = 1000 not run (mjData beyond 2 GB)\n");
        if (!quick && i < 2) study(&sc, T, 2.5e-4, i == 0, 0);
        cs_free(&sc);
    }
    if (!chain) return 0;
    cs_chain(&sc, quick ? 10 : 100);
    study(&sc, T, 1e-3, 1, !quick);
    if (!quick) study(&sc, T, 2.5e-4, 1, 0);
    cs_free(&sc);
    return 0;
}

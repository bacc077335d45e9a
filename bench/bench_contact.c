/*
 * The cost of contact (docs/contact.md): n spheres poured onto the ground plane — a cube of
 * side ⌈n^(1/3)⌉ spheres of radius 5 cm, 12 cm apart, dropped from 0.1 m with a small random
 * offset, restitution 0.2, friction 0.4 — integrated by moreau at h = 1 ms for 1 s (0.2 s
 * in the smoke run). Per n: the CPU time per step, the contacts per step (average and last),
 * the projected Gauss–Seidel sweeps per step, the time per contact and sweep, the largest
 * overlap reached and the largest speed at the end (the upper layers are still falling and
 * bouncing at 1 s). The contacts are counted by a second detector outside the timed steps.
 * CSV: n,steps,cpu_s,us_per_step,contacts_avg,contacts_end,sweeps_per_step,
 *      ns_per_contact_sweep,max_overlap_m,max_speed_end.
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME      "bench_contact"
#include <math.h>
#include <string.h>

#include "bench_common.h"

#include "../src/elements/contact.h"
#include "liedyn/integrator.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* The model text of n spheres above the plane (malloc'ed). */
static char *pile(int n) {
    int side = (int)ceil(cbrt((double)n) - 1e-9);
    size_t cap = 256 + (size_t)n * 200;
    char *t = malloc(cap);
    if (!t) die("pile", "out of memory");
    size_t len = (size_t)snprintf(t, cap,
                                  "gravity: [0, 0, -9.81]\n"
                                  "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0], friction: "
                                  "0.4, restitution: 0.2}\n"
                                  "bodies:\n");
    unsigned seed = 12345u;
    for (int i = 0; i < n; ++i) {
        int a = i % side, b = (i / side) % side, c = i / (side * side);
        seed = seed * 1103515245u + 12345u;
        double jx = 0.01 * ((double)(seed >> 16 & 0x7fff) / 32767.0 - 0.5);
        seed = seed * 1103515245u + 12345u;
        double jy = 0.01 * ((double)(seed >> 16 & 0x7fff) / 32767.0 - 0.5);
        len += (size_t)snprintf(t + len, cap - len,
                                "  - {name: s%d, mass: 0.5, inertia: [5e-4, 5e-4, 5e-4], position: "
                                "[%.6f, %.6f, %.6f], shape: {type: sphere, radius: 0.05, collide: "
                                "true, restitution: 0.2, friction: 0.4}}\n",
                                i, 0.12 * a + jx, 0.12 * b + jy, 0.15 + 0.12 * c);
    }
    return t;
}

static void study(int n, double T, double h) {
    char *text = pile(n), what[32];
    snprintf(what, sizeof what, "pile of %d", n);
    ld_model m;
    ld_model_error e;
    memset(&e, 0, sizeof e);
    if (ld_model_parse(text, strlen(text), what, &m, &e)) die(what, e.msg);
    free(text);
    ld_system s;
    double *q0, *v0;
    check_ld(what, ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)ld_integ_method_find("moreau");
    int st = 0;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    if (!it) die(what, ld_strerror(st));
    check_ld(what, ld_integ_init(it, 0.0, q0, v0));
    /* the contacts along the run, counted by a detector of the same model */
    ld_cworld *w = ld_cworld_create(&m, 64 * n + 64);
    double *R = malloc(12 * (size_t)n * sizeof *R), *x = R + 9 * (size_t)n;
    if (!w || !R) die(what, "out of memory");
    int steps = (int)lround(T / h), cend = 0;
    double contacts = 0.0, overlap = 0.0, cpu = 0.0;
    long sweeps0 = 0;
    for (int k = 1; k <= steps; ++k) {
        double c0 = cpu_now();
        check_ld(what, ld_integ_advance_to(it, k * h));
        cpu += cpu_now() - c0;
        const double *q = ld_integ_q(it), *v = ld_integ_v(it);
        for (int b = 0; b < n; ++b) {
            double qq[4], om[3], xd[3];
            ld_model_body_state(&s, b, q, v, x + 3 * b, qq, om, xd);
            ld_quat_to_mat(R + 9 * b, qq);
        }
        const ld_contact *c;
        int nc = ld_cworld_find(w, R, x, 1e-12, &c);
        if (nc < 0) die(what, "too many contacts to count");
        contacts += nc;
        cend = nc;
        for (int i = 0; i < nc; ++i) overlap = fmax(overlap, -c[i].gap);
    }
    ld_integ_stats sts;
    ld_integ_get_stats(it, &sts);
    long sweeps = sts.newton_iterations - sweeps0;
    double vmax = 0.0;
    const double *v = ld_integ_v(it);
    for (int b = 0; b < n; ++b)
        vmax = fmax(vmax, hypot(hypot(v[6 * b + 3], v[6 * b + 4]), v[6 * b + 5]));
    double cavg = contacts / steps, sps = (double)sweeps / steps;
    printf("%d,%d,%.4f,%.2f,%.1f,%d,%.1f,%.2f,%.3e,%.3e\n", n, steps, cpu, 1e6 * cpu / steps, cavg,
           cend, sps, cavg * sps > 0 ? 1e9 * cpu / steps / (cavg * sps) : 0.0, overlap, vmax);
    fflush(stdout);
    ld_cworld_free(w);
    free(R);
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

int main(void) {
    int quick = bench_quick();
    printf("n,steps,cpu_s,us_per_step,contacts_avg,contacts_end,sweeps_per_step,"
           "ns_per_contact_sweep,max_overlap_m,max_speed_end\n");
    static const int sizes[] = {27, 125, 343, 1000};
    for (int i = 0; i < (quick ? 1 : 4); ++i) study(sizes[i], quick ? 0.2 : 1.0, 1e-3);
    return 0;
}

/*
 * The scenes of bench_contact and the measurements liedyn and MuJoCo share (contact_scenes.h).
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME      "bench_contact"
#include <math.h>
#include <string.h>

#include "bench_common.h"
#include "contact_scenes.h"

/* A uniform number in [−0.5, 0.5] from the generator's state. */
static double jitter(unsigned *seed) {
    *seed = *seed * 1103515245u + 12345u;
    return (double)(*seed >> 16 & 0x7fff) / 32767.0 - 0.5;
}

static void *alloc0(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) die("scene", "out of memory");
    return p;
}

void cs_spheres_in_box(cs_scene *s, int n) {
    memset(s, 0, sizeof *s);
    int side = (int)ceil(cbrt((double)n) - 1e-9);
    const double r = 0.05, d = 0.12, z0 = 0.15;
    s->name = "spheres-in-box", s->n = n, s->mu = 0.4, s->e = 0.0;
    s->b = alloc0((size_t)n, sizeof *s->b);
    unsigned seed = 12345u;
    for (int i = 0; i < n; ++i) {
        int a = i % side, b = (i / side) % side, c = i / (side * side);
        cs_body *B = &s->b[i];
        B->r = r, B->m = 0.5;
        B->J[0] = B->J[1] = B->J[2] = 0.4 * B->m * r * r;
        B->x[0] = d * (a - 0.5 * (side - 1)) + 0.01 * jitter(&seed);
        B->x[1] = d * (b - 0.5 * (side - 1)) + 0.01 * jitter(&seed);
        B->x[2] = z0 + d * c;
        B->q[0] = 1.0;
    }
    int layers = (n + side * side - 1) / (side * side);
    double w = 0.5 * d * (side - 1) + r + 0.005 + 0.01, top = z0 + d * (layers - 1) + r + 0.2;
    double t = 0.1, L = w + t; /* wall thickness 0.2 m, the floor under all */
    s->wall = w, s->nbox = 5;
    s->box[0] = (cs_box){{0, 0, -t}, {L + t, L + t, t}};
    s->box[1] = (cs_box){{w + t, 0, 0.5 * top}, {t, L, 0.5 * top}};
    s->box[2] = (cs_box){{-w - t, 0, 0.5 * top}, {t, L, 0.5 * top}};
    s->box[3] = (cs_box){{0, w + t, 0.5 * top}, {w, t, 0.5 * top}};
    s->box[4] = (cs_box){{0, -w - t, 0.5 * top}, {w, t, 0.5 * top}};
}

void cs_chain(cs_scene *s, int n) {
    memset(s, 0, sizeof *s);
    const double r = 0.01, l = 0.05, half = 0.013, m = 0.05,
                 th = 10.0 * 3.14159265358979323846 / 180.0;
    s->name = "chain-on-ground", s->n = n, s->nj = n - 1, s->plane = 1, s->mu = 0.4, s->e = 0.0;
    s->b = alloc0((size_t)n, sizeof *s->b);
    s->j = alloc0((size_t)n, sizeof *s->j);
    for (int i = 0; i < n; ++i) {
        cs_body *B = &s->b[i];
        B->capsule = 1, B->r = r, B->half = half, B->m = m;
        B->J[0] = 0.5 * m * r * r; /* a solid cylinder of length l */
        B->J[1] = B->J[2] = m * (3.0 * r * r + l * l) / 12.0;
        B->x[0] = l * i * cos(th);
        B->x[2] = 0.1 + l * i * sin(th);
        B->q[0] = cos(-0.5 * th), B->q[2] = sin(-0.5 * th); /* body x up the slope */
    }
    for (int i = 0; i + 1 < n; ++i) {
        s->j[i].p1[0] = 0.5 * l;
        s->j[i].p2[0] = -0.5 * l;
    }
}

void cs_free(cs_scene *s) {
    free(s->b);
    free(s->j);
    memset(s, 0, sizeof *s);
}

/* The point p (body frame) of a body at (R, x), spatial. */
static void body_point(const double R[9], const double x[3], const double p[3], double out[3]) {
    for (int i = 0; i < 3; ++i)
        out[i] = x[i] + R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2];
}

/* R (row-major) of a unit quaternion [w x y z]. */
static void quat_mat(const double q[4], double R[9]) {
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* Append one body's YAML line. */
static size_t yaml_body(char *t, size_t cap, int i, const cs_body *B, const cs_scene *s) {
    size_t len = (size_t)snprintf(
        t, cap,
        "  - {name: b%d, mass: %.17g, inertia: [%.17g, %.17g, %.17g], position: [%.17g, %.17g, "
        "%.17g], orientation: [%.17g, %.17g, %.17g, %.17g], shape: {type: %s, radius: %.17g, ",
        i, B->m, B->J[0], B->J[1], B->J[2], B->x[0], B->x[1], B->x[2], B->q[0], B->q[1], B->q[2],
        B->q[3], B->capsule ? "capsule" : "sphere", B->r);
    if (B->capsule)
        len +=
            (size_t)snprintf(t + len, cap - len, "length: %.17g, axis: [1, 0, 0], ", 2.0 * B->half);
    len += (size_t)snprintf(t + len, cap - len,
                            "collide: true, restitution: %.17g, friction: %.17g}}\n", s->e, s->mu);
    return len;
}

/* The scene's YAML text (malloc'ed). */
static char *yaml(const cs_scene *s) {
    size_t cap = 1024 + (size_t)(s->n + s->nj + s->nbox) * 400, len = 0;
    char *t = alloc0(cap, 1);
    len += (size_t)snprintf(t, cap, "name: %s\ngravity: [0, 0, -%.17g]\n", s->name, CS_GRAVITY);
    if (s->plane)
        len += (size_t)snprintf(t + len, cap - len,
                                "ground_plane: {normal: [0, 0, 1], point: [0, 0, 0], friction: "
                                "%.17g, restitution: %.17g}\n",
                                s->mu, s->e);
    if (s->nbox) len += (size_t)snprintf(t + len, cap - len, "ground_shapes:\n");
    for (int k = 0; k < s->nbox; ++k) {
        const cs_box *B = &s->box[k];
        len += (size_t)snprintf(t + len, cap - len,
                                "  - {type: box, size: [%.17g, %.17g, %.17g], center: [%.17g, "
                                "%.17g, %.17g], friction: %.17g, restitution: %.17g}\n",
                                2 * B->hsz[0], 2 * B->hsz[1], 2 * B->hsz[2], B->c[0], B->c[1],
                                B->c[2], s->mu, s->e);
    }
    len += (size_t)snprintf(t + len, cap - len, "bodies:\n");
    for (int i = 0; i < s->n; ++i) len += yaml_body(t + len, cap - len, i, &s->b[i], s);
    if (s->nj) len += (size_t)snprintf(t + len, cap - len, "joints:\n");
    for (int i = 0; i < s->nj; ++i) {
        double R[9], p[3];
        quat_mat(s->b[i].q, R);
        body_point(R, s->b[i].x, s->j[i].p1, p);
        len += (size_t)snprintf(t + len, cap - len,
                                "  - {type: spherical, body1: b%d, body2: b%d, at: [%.17g, %.17g, "
                                "%.17g]}\n",
                                i, i + 1, p[0], p[1], p[2]);
    }
    if (len >= cap) die(s->name, "model text too long");
    return t;
}

void cs_model(const cs_scene *s, ld_model *m) {
    char *text = yaml(s);
    ld_model_error e;
    memset(&e, 0, sizeof e);
    if (ld_model_parse(text, strlen(text), s->name, m, &e)) die(s->name, e.msg);
    free(text);
}

/* The kinetic and potential energy of body B at (x, Ω, ẋ). */
static double body_energy(const cs_body *B, const double x[3], const double om[3],
                          const double xd[3]) {
    double k = B->m * (xd[0] * xd[0] + xd[1] * xd[1] + xd[2] * xd[2]);
    for (int i = 0; i < 3; ++i) k += B->J[i] * om[i] * om[i];
    return 0.5 * k + B->m * CS_GRAVITY * x[2];
}

/* The depth of body B at (R, x) below z = 0 (≤ 0 when above). */
static double below_floor(const cs_body *B, const double R[9], const double x[3]) {
    double zl = x[2] - fabs(R[6]) * B->half; /* the lower end of the segment along body x */
    return B->r - zl;
}

void cs_measure(const cs_scene *s, ld_cworld *w, const double *R, const double *x, const double *om,
                const double *xd, cs_meas *out) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < s->n; ++i) {
        const double *xi = x + 3 * i;
        out->energy += body_energy(&s->b[i], xi, om + 3 * i, xd + 3 * i);
        out->floor_overlap = fmax(out->floor_overlap, below_floor(&s->b[i], R + 9 * i, xi));
        out->vmax = fmax(out->vmax, sqrt(xd[3 * i] * xd[3 * i] + xd[3 * i + 1] * xd[3 * i + 1] +
                                         xd[3 * i + 2] * xd[3 * i + 2]));
        out->escaped +=
            xi[2] < 0 || (s->wall > 0 && (fabs(xi[0]) > s->wall || fabs(xi[1]) > s->wall));
    }
    for (int i = 0; i < s->nj; ++i) {
        double a[3], b[3];
        body_point(R + 9 * i, x + 3 * i, s->j[i].p1, a);
        body_point(R + 9 * (i + 1), x + 3 * (i + 1), s->j[i].p2, b);
        out->joint_gap = fmax(out->joint_gap, hypot(hypot(a[0] - b[0], a[1] - b[1]), a[2] - b[2]));
    }
    const ld_contact *c;
    int nc = ld_cworld_find(w, R, x, 1e-12, &c);
    if (nc < 0) die(s->name, "too many contacts to measure");
    for (int i = 0; i < nc; ++i) out->overlap = fmax(out->overlap, -c[i].gap);
}

void cs_worst(cs_meas *worst, const cs_meas *m) {
    worst->overlap = fmax(worst->overlap, m->overlap);
    worst->floor_overlap = fmax(worst->floor_overlap, m->floor_overlap);
    worst->joint_gap = fmax(worst->joint_gap, m->joint_gap);
    worst->escaped = worst->escaped > m->escaped ? worst->escaped : m->escaped;
}

void cs_print_header(void) {
    printf("code,scene,n,joints,h,steps,cpu_s,us_per_step,contacts_avg,contacts_end,"
           "sweeps_per_step,ns_per_contact_sweep,max_overlap_mid_m,max_overlap_end_m,"
           "max_floor_overlap_end_m,overlap_final_m,max_joint_gap_m,energy_start_J,energy_end_J,"
           "max_speed_end,escaped\n");
}

void cs_print_row(const cs_row *r) {
    double per = r->cpu / r->steps, work = (r->contacts_avg + r->joints) * r->sweeps_per_step;
    printf("%s,%s,%d,%d,%.3g,%d,%.3f,%.1f,%.1f,%d,%.1f,%.1f,%.3e,%.3e,%.3e,%.3e,%.3e,%.4f,%.4f,%."
           "3e,%d\n",
           r->code, r->scene, r->n, r->joints, r->h, r->steps, r->cpu, 1e6 * per, r->contacts_avg,
           r->contacts_end, r->sweeps_per_step, work > 0 ? 1e9 * per / work : 0.0,
           r->max_overlap_mid, r->worst.overlap, r->worst.floor_overlap, r->end.overlap,
           r->worst.joint_gap, r->energy0, r->end.energy, r->end.vmax, r->end.escaped);
    fflush(stdout);
    if (!isfinite(r->end.energy)) die(r->code, "the energy is not finite");
}

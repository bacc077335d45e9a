/*
 * The MuJoCo peer of bench_contact (contact_scenes.h): the same scene as an MJCF text made here
 * — each body with a free joint (a chain: the first link free, each next one its child on a
 * ball joint at the shared point), its mass and principal moments given, a sphere or capsule
 * geom with the same radius and friction; the floor and walls as world box geoms, the ground
 * plane as a plane geom — stepped by mj_step at the same h with MuJoCo's default options
 * (printed by cs_mujoco_describe). Compiled to a stub without MuJoCo (LD_HAVE_MUJOCO).
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME      "bench_contact"
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "bench_common.h"
#include "contact_scenes.h"

#ifdef LD_HAVE_MUJOCO
#include <mujoco/mujoco.h>

static char warning_text[200];

/* MuJoCo prints warnings on stdout; keep the last one to die with. */
static void keep_warning(const char *msg) {
    snprintf(warning_text, sizeof warning_text, "%s", msg);
}

/* MuJoCo's fatal errors end the run with the message (instead of waiting for a key). */
static void keep_error(const char *msg) {
    die("MuJoCo", msg);
}

/* Append printf-formatted text at *len of t (cap bytes); dies when it does not fit. */
__attribute__((format(printf, 4, 5))) static void put(char *t, size_t cap, size_t *len,
                                                      const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= cap - *len) die("MuJoCo", "model text too long");
    *len += (size_t)k;
}

/* Body i's inertial and geom elements (body frame). */
static void mj_body_inside(char *t, size_t cap, size_t *len, const cs_scene *s, int i) {
    const cs_body *B = &s->b[i];
    put(t, cap, len, "<inertial pos=\"0 0 0\" mass=\"%.17g\" diaginertia=\"%.17g %.17g %.17g\"/>",
        B->m, B->J[0], B->J[1], B->J[2]);
    if (B->capsule)
        put(t, cap, len, "<geom type=\"capsule\" size=\"%.17g\" fromto=\"%.17g 0 0 %.17g 0 0\"",
            B->r, -B->half, B->half);
    else
        put(t, cap, len, "<geom type=\"sphere\" size=\"%.17g\"", B->r);
    put(t, cap, len, " friction=\"%.17g 0.005 0.0001\"/>\n", s->mu);
}

/* Link i of a chain as a child on a ball joint at the point its parent shares with it (the
 * same orientation: the offset is the parent's joint point less the child's); up: the parent is
 * link i − 1, else link i + 1. */
static void mj_link(char *t, size_t cap, size_t *len, const cs_scene *s, int i, int up) {
    const cs_joint *J = &s->j[up ? i - 1 : i];
    const double *pp = up ? J->p1 : J->p2, *pc = up ? J->p2 : J->p1;
    put(t, cap, len,
        "<body pos=\"%.17g %.17g %.17g\"><joint type=\"ball\" pos=\"%.17g %.17g %.17g\"/>",
        pp[0] - pc[0], pp[1] - pc[1], pp[2] - pc[2], pc[0], pc[1], pc[2]);
    mj_body_inside(t, cap, len, s, i);
}

/* The chain's bodies: the middle link free, the links above it nested each in the one before,
 * those below each in the one after (MuJoCo's parser nests at most 100 elements deep). Body k
 * of MuJoCo is link order[k − 1]. */
static void mj_chain(char *t, size_t cap, size_t *len, const cs_scene *s, int *order) {
    int r = s->n / 2, k = 0;
    const cs_body *B = &s->b[r];
    put(t, cap, len,
        "<body pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\"><joint "
        "type=\"free\"/>",
        B->x[0], B->x[1], B->x[2], B->q[0], B->q[1], B->q[2], B->q[3]);
    mj_body_inside(t, cap, len, s, r);
    order[k++] = r;
    for (int i = r + 1; i < s->n; ++i) mj_link(t, cap, len, s, i, 1), order[k++] = i;
    for (int i = r + 1; i < s->n; ++i) put(t, cap, len, "</body>");
    for (int i = r - 1; i >= 0; --i) mj_link(t, cap, len, s, i, 0), order[k++] = i;
    for (int i = r - 1; i >= 0; --i) put(t, cap, len, "</body>");
    put(t, cap, len, "</body>\n");
}

/* The scene's MJCF text (malloc'ed). Adjacent links collide as in liedyn (filterparent off).
 * newton: room on the stack for the Newton solver's dense Hessian (nv × nv in 2.2.2). Body k
 * of MuJoCo is body order[k − 1] of the scene. */
static char *mjcf(const cs_scene *s, int newton, int *order) {
    size_t cap = 4096 + (size_t)(s->n + s->nbox) * 500, len = 0;
    char *t = malloc(cap);
    if (!t) die("MuJoCo", "out of memory");
    /* 2.2.2 allocates njmax × (nv + njmax) for the constraints: size them to what a pile
     * needs (MuJoCo warns, and the run dies, when a buffer is full) */
    int ncon = 7 * s->n / 2 + 64, nv = 6 * s->n, njmax = 4 * ncon + 3 * s->nj;
    put(t, cap, &len,
        "<mujoco model=\"%s\">\n<option timestep=\"0.001\" gravity=\"0 0 -%.17g\">"
        "<flag filterparent=\"disable\"/></option>\n<size nconmax=\"%d\" njmax=\"%d\" "
        "nstack=\"%d\"/>\n<worldbody>\n",
        s->name, CS_GRAVITY, ncon, njmax, (newton ? nv * nv : 0) + 4000 * ncon + 1000000);
    if (s->plane)
        put(t, cap, &len, "<geom type=\"plane\" size=\"0 0 1\" friction=\"%.17g 0.005 0.0001\"/>\n",
            s->mu);
    for (int k = 0; k < s->nbox; ++k)
        put(t, cap, &len,
            "<geom type=\"box\" pos=\"%.17g %.17g %.17g\" size=\"%.17g %.17g %.17g\" "
            "friction=\"%.17g 0.005 0.0001\"/>\n",
            s->box[k].c[0], s->box[k].c[1], s->box[k].c[2], s->box[k].hsz[0], s->box[k].hsz[1],
            s->box[k].hsz[2], s->mu);
    if (s->nj) {
        mj_chain(t, cap, &len, s, order);
    } else {
        for (int i = 0; i < s->n; ++i) {
            order[i] = i;
            const cs_body *B = &s->b[i];
            put(t, cap, &len,
                "<body pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\">"
                "<joint type=\"free\"/>",
                B->x[0], B->x[1], B->x[2], B->q[0], B->q[1], B->q[2], B->q[3]);
            mj_body_inside(t, cap, &len, s, i);
            put(t, cap, &len, "</body>\n");
        }
    }
    put(t, cap, &len, "</worldbody>\n</mujoco>\n");
    return t;
}

/* Load the MJCF text through a virtual file system. */
static mjModel *mj_load_text(const char *text) {
    mjVFS *vfs = malloc(sizeof *vfs);
    if (!vfs) die("MuJoCo", "out of memory");
    mj_defaultVFS(vfs);
    int len = (int)strlen(text);
    if (mj_makeEmptyFileVFS(vfs, "scene.xml", len) != 0) die("MuJoCo", "VFS failed");
    int i = mj_findFileVFS(vfs, "scene.xml");
    if (i < 0) die("MuJoCo", "VFS file not found");
    memcpy(vfs->filedata[i], text, (size_t)len);
    char err[1000] = "";
    mjModel *m = mj_loadXML("scene.xml", vfs, err, (int)sizeof err);
    mj_deleteVFS(vfs);
    free(vfs);
    if (!m) die("mj_loadXML", err);
    return m;
}

/* The bodies' poses and velocities after mj_step (the kinematics recomputed for the new
 * state): R row-major, x, Ω in body axes, ẋ, of scene body order[k] from MuJoCo body k + 1,
 * its frame at its centre of mass. */
static void mj_state(const mjModel *m, mjData *d, int n, const int *order, double *R, double *x,
                     double *om, double *xd) {
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_comVel(m, d);
    for (int k = 0; k < n; ++k) {
        double v[6];
        int i = order[k];
        mj_objectVelocity(m, d, mjOBJ_BODY, k + 1, v, 1); /* local: body axes */
        memcpy(R + 9 * i, d->xmat + 9 * (k + 1), 9 * sizeof *R);
        memcpy(x + 3 * i, d->xpos + 3 * (k + 1), 3 * sizeof *x);
        memcpy(om + 3 * i, v, 3 * sizeof *om);
        for (int c = 0; c < 3; ++c) /* ẋ = R (local linear velocity) */
            xd[3 * i + c] =
                R[9 * i + 3 * c] * v[3] + R[9 * i + 3 * c + 1] * v[4] + R[9 * i + 3 * c + 2] * v[5];
    }
}

/* Die when MuJoCo warned (a full contact or constraint buffer, a bad number). */
static void mj_check(const mjData *d) {
    for (int k = 0; k < mjNWARNING; ++k)
        if (d->warning[k].number > 0) die("MuJoCo", warning_text);
}

int cs_mujoco_run(const cs_scene *s, double h, int steps, int solver) {
    mju_user_warning = keep_warning;
    mju_user_error = keep_error;
    int *order = malloc((size_t)s->n * sizeof *order);
    if (!order) die("MuJoCo", "out of memory");
    char *text = mjcf(s, solver < 0 || solver == mjSOL_NEWTON, order);
    mjModel *m = mj_load_text(text);
    free(text);
    if (m->nbody != s->n + 1) die("MuJoCo", "unexpected model");
    m->opt.timestep = h;
    static const char *code[] = {"mujoco-pgs", "mujoco-cg", "mujoco-newton"};
    if (solver >= 0) m->opt.solver = solver;
    mjData *d = mj_makeData(m);
    ld_model lm;
    cs_model(s, &lm);
    ld_cworld *w = ld_cworld_create(&lm, 64 * s->n + 64);
    double *buf = malloc(18 * (size_t)s->n * sizeof *buf);
    if (!d || !w || !buf) die("MuJoCo", "out of memory");
    double *R = buf, *x = R + 9 * s->n, *om = x + 3 * s->n, *xd = om + 3 * s->n;
    cs_row r = {.code = solver >= 0 && solver < 3 ? code[solver] : "mujoco",
                .scene = s->name,
                .n = s->n,
                .joints = 0,
                .h = h,
                .steps = steps,
                .max_overlap_mid = NAN};
    mj_state(m, d, s->n, order, R, x, om, xd);
    cs_measure(s, w, R, x, om, xd, &r.end);
    r.energy0 = r.end.energy;
    long iters = 0;
    double contacts = 0.0;
    for (int k = 1; k <= steps; ++k) {
        double c0 = cpu_now();
        mj_step(m, d);
        r.cpu += cpu_now() - c0;
        contacts += d->ncon;
        iters += d->solver_iter;
        r.contacts_end = d->ncon;
        mj_state(m, d, s->n, order, R, x, om, xd);
        cs_measure(s, w, R, x, om, xd, &r.end);
        cs_worst(&r.worst, &r.end);
    }
    mj_check(d);
    r.contacts_avg = contacts / steps, r.sweeps_per_step = (double)iters / steps;
    cs_print_row(&r);
    free(buf);
    free(order);
    ld_cworld_free(w);
    ld_model_free(&lm);
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}

void cs_mujoco_describe(void) {
    mju_user_warning = keep_warning;
    mjModel *m = mj_load_text("<mujoco><worldbody><geom type=\"sphere\" size=\"1\"/>"
                              "</worldbody></mujoco>");
    static const char *solver[] = {"PGS", "CG", "Newton"};
    const mjOption *o = &m->opt;
    const mjtNum *ref = m->geom_solref, *imp = m->geom_solimp;
    printf("# peer: MuJoCo %s, its defaults: solver %s (at most %d iterations, tolerance %g), "
           "%s friction cone, %s integrator, soft contacts solref (%g, %g) solimp (%g, %g, %g, "
           "%g, %g), margin 0, condim 3; adjacent links collide (filterparent off); contacts = "
           "ncon, sweeps = solver iterations, no midpoint overlap\n",
           mj_versionString(), o->solver >= 0 && o->solver < 3 ? solver[o->solver] : "?",
           o->iterations, o->tolerance, o->cone == mjCONE_PYRAMIDAL ? "pyramidal" : "elliptic",
           o->integrator == mjINT_EULER ? "Euler" : "another", ref[0], ref[1], imp[0], imp[1],
           imp[2], imp[3], imp[4]);
    mj_deleteModel(m);
}

#else

int cs_mujoco_run(const cs_scene *s, double h, int steps, int solver) {
    (void)s, (void)h, (void)steps, (void)solver;
    return -1;
}

void cs_mujoco_describe(void) {
    if (0) die("MuJoCo", "absent"); /* keeps the shared helper used */
    printf("# peer: MuJoCo not found at configure time (skipped)\n");
}

#endif

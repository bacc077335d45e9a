/*
 * The MuJoCo peer of bench_robots (robots.h): the file loaded by mj_loadXML, the options that
 * make it the passive tree liedyn imports (contacts, limits, actuation, equality constraints and
 * frictionloss off, armature 0), runs with mj_step and the joint-space mass matrix by mj_fullM.
 * Compiled to a stub without MuJoCo (LD_HAVE_MUJOCO).
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME      "bench_robots"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "robots.h"

#ifdef LD_HAVE_MUJOCO
#include <mujoco/mujoco.h>

struct rm_model {
    mjModel *m;
    mjData *d;
    double *qpos0, *qvel0; /* the initial state */
};

static char warning_text[200];
static void keep_warning(const char *msg) {
    snprintf(warning_text, sizeof warning_text, "%s", msg);
}
static void keep_error(const char *msg) {
    die("MuJoCo", msg);
}

const char *rm_version(void) {
    return mj_versionString();
}

rm_model *rm_load(const char *path, char *err, size_t n) {
    mju_user_warning = keep_warning;
    mju_user_error = keep_error;
    char e[500] = "";
    mjModel *m = mj_loadXML(path, NULL, e, (int)sizeof e);
    if (!m) {
        snprintf(err, n, "%s", e);
        return NULL;
    }
    m->opt.disableflags |=
        mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_ACTUATION | mjDSBL_EQUALITY | mjDSBL_FRICTIONLOSS;
    for (int i = 0; i < m->nv; ++i) m->dof_armature[i] = 0.0, m->dof_frictionloss[i] = 0.0;
    rm_model *r = calloc(1, sizeof *r);
    r->m = m;
    r->d = mj_makeData(m);
    r->qpos0 = malloc((size_t)m->nq * sizeof *r->qpos0);
    memcpy(r->qpos0, m->qpos0, (size_t)m->nq * sizeof *r->qpos0);
    r->qvel0 = calloc((size_t)m->nv + 1, sizeof *r->qvel0);
    return r;
}

void rm_free(rm_model *r) {
    if (!r) return;
    mj_deleteData(r->d);
    mj_deleteModel(r->m);
    free(r->qpos0);
    free(r->qvel0);
    free(r);
}

int rm_njnt(const rm_model *r) {
    return r->m->njnt;
}
int rm_nbody(const rm_model *r) {
    return r->m->nbody;
}
int rm_nv(const rm_model *r) {
    return r->m->nv;
}
const char *rm_jnt_name(const rm_model *r, int j) {
    const char *s = mj_id2name(r->m, mjOBJ_JOINT, j);
    return s ? s : "";
}
int rm_jnt_type(const rm_model *r, int j) {
    switch (r->m->jnt_type[j]) {
    case mjJNT_FREE:
        return RM_FREE;
    case mjJNT_BALL:
        return RM_BALL;
    case mjJNT_SLIDE:
        return RM_SLIDE;
    default:
        return RM_HINGE;
    }
}
int rm_jnt_dof(const rm_model *r, int j) {
    return r->m->jnt_dofadr[j];
}
int rm_jnt_body(const rm_model *r, int j) {
    return r->m->jnt_bodyid[j];
}
double rm_jnt_stiffness(const rm_model *r, int j) {
    return r->m->jnt_stiffness[j];
}
void rm_body_inertia(const rm_model *r, int b, double J[9]) {
    double R[9];
    mju_quat2Mat(R, r->m->body_iquat + 4 * b);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double acc = 0.0;
            for (int k = 0; k < 3; ++k)
                acc += R[3 * i + k] * r->m->body_inertia[3 * b + k] * R[3 * j + k];
            J[3 * i + j] = acc;
        }
}
const char *rm_body_name(const rm_model *r, int b) {
    const char *s = mj_id2name(r->m, mjOBJ_BODY, b);
    return s ? s : "";
}
double rm_body_mass(const rm_model *r, int b) {
    return r->m->body_mass[b];
}

void rm_set_coord(rm_model *r, int j, double c) {
    r->qpos0[r->m->jnt_qposadr[j]] = c;
}
void rm_set_rate(rm_model *r, int j, double w) {
    r->qvel0[r->m->jnt_dofadr[j]] = w;
}
void rm_set_dof_rate(rm_model *r, int d, double w) {
    r->qvel0[d] = w;
}

/* The initial state in d, its kinematics and the mass matrix computed. */
static void rm_initial(rm_model *r) {
    mj_resetData(r->m, r->d);
    memcpy(r->d->qpos, r->qpos0, (size_t)r->m->nq * sizeof *r->qpos0);
    memcpy(r->d->qvel, r->qvel0, (size_t)r->m->nv * sizeof *r->qvel0);
    mj_forward(r->m, r->d);
}

void rm_initial_axis(rm_model *r, int j, double axis[3]) {
    rm_initial(r);
    for (int i = 0; i < 3; ++i) axis[i] = r->d->xaxis[3 * j + i];
}

void rm_initial_body(rm_model *r, int b, double xpos[3], double quat[4]) {
    rm_initial(r);
    for (int i = 0; i < 3; ++i) xpos[i] = r->d->xpos[3 * b + i];
    for (int i = 0; i < 4; ++i) quat[i] = r->d->xquat[4 * b + i];
}

void rm_mass_matrix(rm_model *r, double *M) {
    rm_initial(r);
    mj_fullM(r->m, M, r->d->qM);
}

/* Sample k of out from d. */
static void rm_sample(const rm_model *r, rm_samples *out, int k) {
    const mjModel *m = r->m;
    const mjData *d = r->d;
    for (int j = 0; j < m->njnt; ++j) {
        int t = m->jnt_type[j];
        out->jc[(size_t)k * (size_t)m->njnt + (size_t)j] =
            (t == mjJNT_HINGE || t == mjJNT_SLIDE) ? d->qpos[m->jnt_qposadr[j]] : (double)NAN;
    }
    memcpy(out->xpos + (size_t)k * (size_t)m->nbody * 3, d->xpos,
           3 * (size_t)m->nbody * sizeof *d->xpos);
    memcpy(out->quat + (size_t)k * (size_t)m->nbody * 4, d->xquat,
           4 * (size_t)m->nbody * sizeof *d->xquat);
}

double rm_run(rm_model *r, int integrator, double h, double t_end, int ns, rm_samples *out,
              int may_fail) {
    mjModel *m = r->m;
    m->opt.integrator = integrator == 1   ? mjINT_RK4
                        : integrator == 2 ? mjINT_IMPLICIT
                                          : mjINT_EULER;
    m->opt.timestep = h;
    rm_initial(r);
    long per = lround(t_end / (ns - 1) / h);
    if (per < 1 || fabs((double)per * h * (ns - 1) - t_end) > 1e-9 * t_end)
        die("rm_run", "the sampling interval is not a multiple of the step");
    if (out) {
        out->ns = ns;
        rm_sample(r, out, 0);
    }
    double cpu = 0.0;
    for (int k = 1; k < ns; ++k) {
        double c0 = cpu_now();
        for (long i = 0; i < per; ++i) mj_step(m, r->d);
        cpu += cpu_now() - c0;
        if (mju_isBad(r->d->qpos[0]) || r->d->warning[mjWARN_BADQACC].number > 0) {
            if (may_fail) return -1.0;
            die("MuJoCo", "the state became non-finite");
        }
        if (out) {
            mj_kinematics(m, r->d); /* the poses of the new qpos */
            rm_sample(r, out, k);
        }
    }
    return cpu;
}

#else /* no MuJoCo: loads nothing */

const char *rm_version(void) {
    return NULL;
}
rm_model *rm_load(const char *path, char *err, size_t n) {
    (void)path;
    snprintf(err, n, "built without MuJoCo");
    return NULL;
}
void rm_free(rm_model *r) {
    (void)r;
}
int rm_njnt(const rm_model *r) {
    (void)r;
    return 0;
}
int rm_nbody(const rm_model *r) {
    (void)r;
    return 0;
}
int rm_nv(const rm_model *r) {
    (void)r;
    return 0;
}
const char *rm_jnt_name(const rm_model *r, int j) {
    (void)r, (void)j;
    return "";
}
int rm_jnt_type(const rm_model *r, int j) {
    (void)r, (void)j;
    return RM_HINGE;
}
int rm_jnt_dof(const rm_model *r, int j) {
    (void)r, (void)j;
    return 0;
}
int rm_jnt_body(const rm_model *r, int j) {
    (void)r, (void)j;
    return 0;
}
double rm_jnt_stiffness(const rm_model *r, int j) {
    (void)r, (void)j;
    return 0.0;
}
void rm_body_inertia(const rm_model *r, int b, double J[9]) {
    (void)r, (void)b;
    memset(J, 0, 9 * sizeof *J);
}
const char *rm_body_name(const rm_model *r, int b) {
    (void)r, (void)b;
    return "";
}
double rm_body_mass(const rm_model *r, int b) {
    (void)r, (void)b;
    return 0.0;
}
void rm_set_coord(rm_model *r, int j, double c) {
    (void)r, (void)j, (void)c;
}
void rm_set_rate(rm_model *r, int j, double w) {
    (void)r, (void)j, (void)w;
}
void rm_set_dof_rate(rm_model *r, int d, double w) {
    (void)r, (void)d, (void)w;
}
void rm_initial_axis(rm_model *r, int j, double axis[3]) {
    (void)r, (void)j, (void)axis;
}
void rm_initial_body(rm_model *r, int b, double xpos[3], double quat[4]) {
    (void)r, (void)b, (void)xpos, (void)quat;
}
void rm_mass_matrix(rm_model *r, double *M) {
    (void)r, (void)M;
}
double rm_run(rm_model *r, int integrator, double h, double t_end, int ns, rm_samples *out,
              int may_fail) {
    (void)r, (void)integrator, (void)h, (void)t_end, (void)ns, (void)out, (void)may_fail;
    return 0.0;
}

#endif

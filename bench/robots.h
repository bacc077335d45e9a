/*
 * bench_robots: robot files (URDF, MJCF) loaded by MuJoCo and by liedyn's importer, run side
 * by side (bench_robots.c). This header is the MuJoCo peer's interface (robots_mujoco.c; a
 * stub that loads nothing without MuJoCo, LD_HAVE_MUJOCO).
 */
#ifndef LIEDYN_BENCH_ROBOTS_H
#define LIEDYN_BENCH_ROBOTS_H

#include <stddef.h>

/* MuJoCo's joint types as the bench uses them. */
enum { RM_FREE = 0, RM_BALL = 1, RM_SLIDE = 2, RM_HINGE = 3 };

typedef struct rm_model rm_model;

/* A sampled run: per sample the hinge and slide coordinates (qpos of each joint of one
 * coordinate, njc of them, the others NaN), and per body (1 … nbody − 1) the frame's origin
 * (xpos) and orientation (xquat). */
typedef struct rm_samples {
    int ns;
    double *jc;   /* ns × njnt */
    double *xpos; /* ns × nbody × 3 */
    double *quat; /* ns × nbody × 4 */
} rm_samples;

/* MuJoCo's version string, or NULL without MuJoCo. */
const char *rm_version(void);
/* Load path (URDF or MJCF) with contacts, joint limits, actuation, equality constraints and
 * frictionloss disabled and the armature set to zero; NULL with a reason in err. */
rm_model *rm_load(const char *path, char *err, size_t n);
void rm_free(rm_model *r);
int rm_njnt(const rm_model *r);
int rm_nbody(const rm_model *r); /* the world body 0 included */
int rm_nv(const rm_model *r);
const char *rm_jnt_name(const rm_model *r, int j);
int rm_jnt_type(const rm_model *r, int j);
int rm_jnt_dof(const rm_model *r, int j);  /* its first dof */
int rm_jnt_body(const rm_model *r, int j); /* the body it moves */
double rm_jnt_stiffness(const rm_model *r, int j);
/* Body b's inertia tensor about its centre of mass in its frame's axes, R(iquat) diag Rᵀ. */
void rm_body_inertia(const rm_model *r, int b, double J[9]);
const char *rm_body_name(const rm_model *r, int b);
/* Total mass of body b (after MuJoCo's compiler: fused static children included). */
double rm_body_mass(const rm_model *r, int b);
/* The initial state: qpos0 with hinge or slide j at value c (call for each to set; 0 else). */
void rm_set_coord(rm_model *r, int j, double c);
/* The initial rate of the hinge or slide j (0 else). */
void rm_set_rate(rm_model *r, int j, double w);
/* The initial rate of dof d. */
void rm_set_dof_rate(rm_model *r, int d, double w);
/* At the initial state: the joint's axis (spatial), the body's origin and orientation. */
void rm_initial_axis(rm_model *r, int j, double axis[3]);
void rm_initial_body(rm_model *r, int b, double xpos[3], double quat[4]);
/* Joint-space mass matrix at the initial state (mj_fullM, nv × nv, row-major). */
void rm_mass_matrix(rm_model *r, double *M);
/* Integrate from the initial state to t_end with step h by integrator (0 Euler, 1 RK4,
 * 2 implicit), sampling every t_end/(ns − 1) (ns ≥ 2; out may be NULL); the CPU seconds of the
 * stepping alone. A state that becomes non-finite: −1 when may_fail, else the bench dies. */
double rm_run(rm_model *r, int integrator, double h, double t_end, int ns, rm_samples *out,
              int may_fail);

/* ---------------------------------------------------------------- liedyn's side (robots_liedyn.c)
 */

#include "liedyn/model.h"

/* A sampled liedyn run: per sample each joint's first coordinate (a revolute joint's angle,
 * unwrapped; a prismatic joint's slide; NaN for the others) and each body's centre of mass and
 * orientation. */
typedef struct lt_samples {
    int ns;
    double *jc; /* ns × njoints */
    double *x;  /* ns × nbodies × 3 */
    double *q;  /* ns × nbodies × 4 */
} lt_samples;

/* Write a copy of the URDF file src to dst without its visual and collision elements (MuJoCo
 * loads every mesh they name) and with <dynamics damping="c[i]"/> on the moving joint named
 * names[i] when it has no dynamics element; 0, or −1 when a file cannot be read or written. */
int lt_prepare_urdf(const char *src, const char *dst, const char *const *names, const double *c,
                    int n);
/* Import path (URDF: the root fixed to the ground, as MuJoCo places it; auxiliary bodies of
 * aux times their body's mass; chain: an MJCF body's several joints always as a chain of
 * auxiliary bodies, ld_import_options.chain_joints) with the revolute joints named in
 * names[0 … n − 1] at the angles and angle rates given (NULL: none; the others at 0). Dies on
 * an error. */
void lt_load(const char *path, double aux, int chain, const char *const *names,
             const double *angles, const double *rates, int n, ld_model *m);
/* Run m by method ("hem5", "genalpha", …; hem in maximal coordinates: projected) in formulation
 * form (LD_FORM_SO3XR3, LD_FORM_TREE) at step h to t_end, sampling ns times (out may be NULL,
 * else allocated here: lt_samples_free); the CPU seconds of the stepping. A step that fails: −1
 * when may_fail (out freed), else the bench dies. */
double lt_run(const ld_model *m, const char *method, ld_formulation form, double h, double t_end,
              int ns, lt_samples *out, int may_fail);
/* m compiles in formulation form: 1, else 0 with the reason in why. */
int lt_compiles(const ld_model *m, ld_formulation form, char *why, size_t n);
void lt_samples_free(lt_samples *s);
void rm_samples_alloc(rm_samples *s, int ns, int njnt, int nbody);
void rm_samples_free(rm_samples *s);

/* Largest differences of two runs: joint angles (rad), body orientations (rad), positions (m). */
typedef struct rb_diff {
    double ang, rot, pos;
    double motion;   /* rb_compare: the largest change of a compared angle in MuJoCo's run */
    int nang, nbody; /* what was compared */
} rb_diff;

/* liedyn against MuJoCo: the hinges and bodies of the same names; positions of each body's
 * MuJoCo frame origin, carried by the liedyn body from where it is at the start. */
rb_diff rb_compare(const rm_model *r, const ld_model *m, const rm_samples *a, const lt_samples *b);
/* liedyn against liedyn, MuJoCo against MuJoCo (the same model). */
rb_diff lt_compare(const ld_model *m, const lt_samples *a, const lt_samples *b);
rb_diff rm_compare(const rm_model *r, const rm_samples *a, const rm_samples *b);

/* MuJoCo's initial velocities set to liedyn's initial state of m (the rates liedyn solves for
 * from the given ones, carried to MuJoCo's coordinates); 0, or −1 when the dofs do not map. */
int rb_match_velocity(rm_model *r, const ld_model *m);
/* liedyn's body of MuJoCo's body k: the same name (an unnamed one: "body<k>"), or −1. */
int rb_body_of(const rm_model *r, const ld_model *m, int k);

/* The joint-space mass matrix at the start, liedyn's (ld_model_joint_mass_matrix) carried to
 * MuJoCo's coordinates Tᵀ M T against mj_fullM: the largest entry difference *dmax, the largest
 * entry *mmax, the dofs compared *ndof (those of MuJoCo that map: all, when every joint does). */
void rb_mass_compare(rm_model *r, const ld_model *m, double *dmax, double *mmax, int *ndof);

#endif

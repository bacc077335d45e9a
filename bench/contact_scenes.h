/*
 * The scenes of bench_contact (never part of the library): spheres poured into a box and a
 * chain of capsules falling onto the ground, described once as plain data, from which the
 * liedyn model (YAML text) and the MuJoCo model (MJCF text, contact_mujoco.c) are both written,
 * and the measurements both codes share — the overlaps at a step's end, the energy, the joints'
 * gaps — taken from the bodies' poses and velocities alone.
 */
#ifndef LIEDYN_BENCH_CONTACT_SCENES_H
#define LIEDYN_BENCH_CONTACT_SCENES_H

#include "../src/elements/contact.h"
#include "liedyn/model.h"

#define CS_GRAVITY 9.81

/* A body: a sphere (capsule = 0) of radius r, or a capsule of radius r whose segment runs
 * from −half to +half along body x; mass m, principal moments J about its centre of mass in
 * body axes, initial centre x and quaternion q (body → spatial, [w x y z]), at rest. */
typedef struct cs_body {
    int capsule;
    double r, half, m, J[3], x[3], q[4];
} cs_body;

/* A spherical joint between bodies i and i + 1 (chains only): the point p1 of body i and p2 of
 * body i + 1 (body frames) coincide. */
typedef struct cs_joint {
    double p1[3], p2[3];
} cs_joint;

/* A box fixed to the ground, along the world axes: centre c, half edges hsz. */
typedef struct cs_box {
    double c[3], hsz[3];
} cs_box;

/* A scene: bodies, the joints of a chain (joint i joins bodies i and i + 1), ground boxes (a
 * floor with its top at z = 0 and walls), or the ground plane z = 0; one friction coefficient μ
 * and restitution e for every pair. wall > 0: the box's inner half-width (a body whose centre
 * leaves |x|, |y| < wall has escaped). */
typedef struct cs_scene {
    const char *name;
    int n, nj, nbox, plane;
    cs_body *b;
    cs_joint *j;
    cs_box box[5];
    double mu, e, wall;
} cs_scene;

/* n spheres of radius 5 cm and 0.5 kg in a cube lattice 12 cm apart (side ⌈n^(1/3)⌉, the
 * lowest layer 10 cm above the floor), each moved by up to ±5 mm horizontally at random (a
 * fixed seed), above a box — a floor and four walls 1 cm beyond the lattice's outer spheres
 * with their offsets, high enough to hold it; μ = 0.4, e = 0. Free with cs_free. */
void cs_spheres_in_box(cs_scene *s, int n);
/* A chain of n capsules (radius 1 cm, 5 cm from joint to joint, 26 mm of segment: the caps of
 * straight neighbours 4 mm apart; 50 g) joined end to end by spherical joints, straight at 10°
 * to the horizontal, its lower end 10 cm above the ground plane z = 0; μ = 0.4, e = 0. */
void cs_chain(cs_scene *s, int n);
void cs_free(cs_scene *s);

/* The scene as a liedyn model (ld_model_parse of its YAML text); dies on failure. */
void cs_model(const cs_scene *s, ld_model *m);

/* What the bodies' state shows at one instant. */
typedef struct cs_meas {
    double overlap;       /* the largest overlap of two shapes (or a shape and the ground), m */
    double floor_overlap; /* the largest depth of a body below the floor's top z = 0, m */
    double joint_gap;     /* the largest distance between a joint's two points, m */
    double energy;        /* kinetic + potential (m g z), J */
    double vmax;          /* the largest speed of a centre of mass, m/s */
    int escaped;          /* bodies whose centre is below the floor or outside the walls */
} cs_meas;

/* Measure the state given per body as R (9, row-major, body → spatial), x (3, centre), om (3,
 * body angular velocity) and xd (3, centre velocity); w: a detector of the scene's model (its
 * overlaps are its contacts' negative gaps). Dies when the detector overflows. */
void cs_measure(const cs_scene *s, ld_cworld *w, const double *R, const double *x, const double *om,
                const double *xd, cs_meas *out);

/* One line of the CSV (cs_print_header names its columns); dies after printing it when the
 * energy is not finite. */
typedef struct cs_row {
    const char *code, *scene;
    int n, joints, steps;
    double h, cpu, contacts_avg;
    int contacts_end;
    double sweeps_per_step; /* PGS sweeps (liedyn), solver iterations (MuJoCo) */
    double max_overlap_mid; /* liedyn: at the steps' midpoints; NaN for MuJoCo */
    cs_meas worst;          /* the largest overlaps and joint gap over the steps' ends */
    cs_meas end;            /* at the end */
    double energy0;
} cs_row;

void cs_print_header(void);
void cs_print_row(const cs_row *r);
/* Fold a step's end into the run's worst overlaps and joint gap. */
void cs_worst(cs_meas *worst, const cs_meas *m);

/* The MuJoCo peer (contact_mujoco.c): run scene s for steps steps of h with MuJoCo's default
 * solver (solver −1; code "mujoco") or the solver mjtSolver solver (0 PGS, 1 CG, 2 Newton; code
 * "mujoco-pgs", …) and print its row; returns 0, or −1 when MuJoCo was not found at configure
 * time. */
int cs_mujoco_run(const cs_scene *s, double h, int steps, int solver);
/* A comment line describing the peer (or its absence). */
void cs_mujoco_describe(void);

#endif

/*
 * Internal to the joints (joints.c, the kinematics, the evaluators and the joint element;
 * joints_setup.c, the joints' body-frame data from the model; joints_velocity.c, the
 * consistent initial velocities): a joint as the sum of its primitive terms, and the joint
 * system of a compiled model.
 */
#ifndef LIEDYN_SRC_ELEMENTS_JOINTS_IMPL_H
#define LIEDYN_SRC_ELEMENTS_JOINTS_IMPL_H

#include "kinds.h"
#include "liedyn/model.h"

enum { T_POINT = 0, T_VV, T_VD };       /* the primitives */
enum { C_ONE = 0, C_COS, C_MSIN, C_N }; /* coefficients: 1, cos θ(t), −sin θ(t) */

typedef struct jterm {
    int kind;
    int row;           /* first row, relative to the joint */
    int coef;          /* C_* */
    double a[3], b[3]; /* body1 direction, body2 direction (T_VV), body frames */
} jterm;

typedef struct jnt {
    int b1, b2; /* body indices, LD_GROUND for the ground */
    int row0, nrows, nterm;
    jterm term[6];
    double p1[3], p2[3]; /* the joint point in the frames of body1 and body2 */
    int rot_driver, trans_driver;
    double value, s0;
    const ld_tfn *fn;
} jnt;

struct ld_jsys {
    const ld_model *m;
    int nj, rows;
    jnt *j;
};

#endif

/* A user force in C for the tests of the fast path (Model.add_c_force): a linear spring and
 * damper pulling body2's centre of mass towards the point p, par = user = {k, c, px, py, pz}. */
#include "liedyn/model.h"

int ld_py_test_spring(double t, const ld_body_motion b[2], double w[12], void *user);

int ld_py_test_spring(double t, const ld_body_motion b[2], double w[12], void *user) {
    (void)t;
    const double *par = user;
    for (int i = 0; i < 12; ++i) w[i] = 0.0;
    for (int i = 0; i < 3; ++i)
        w[6 + i] = -par[0] * (b[1].x[i] - par[2 + i]) - par[1] * b[1].xdot[i];
    return 0;
}

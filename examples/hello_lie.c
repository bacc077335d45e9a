/*
 * A user's first liedyn program: rotate a vector by exp of a rotation vector and get the
 * rotation vector back. Build against an installed liedyn with
 *   cc hello_lie.c $(pkg-config --cflags --libs liedyn) -o hello_lie
 */
#include <math.h>
#include <stdio.h>

#include <liedyn/liedyn.h>

int main(void) {
    const double psi[3] = {0.0, 0.0, 1.5707963267948966}; /* 90 degrees about z */
    const double ex[3] = {1.0, 0.0, 0.0};
    double q[4], v[3], back[3];
    ld_quat_from_rotvec(q, psi);
    ld_quat_rotate(v, q, ex);
    ld_quat_to_rotvec(back, q);
    printf("liedyn %s: R(psi) e_x = [%.3f %.3f %.3f], log = [%.6f %.6f %.6f]\n", ld_version(), v[0],
           v[1], v[2], back[0], back[1], back[2]);
    /* e_x turns into e_y */
    return fabs(v[0]) < 1e-15 && fabs(v[1] - 1.0) < 1e-15 ? 0 : 1;
}

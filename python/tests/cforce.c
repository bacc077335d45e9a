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

/* A drag on each body: force −c ẋ and torque −d R Ω (spatial) on body2, par = user = {c, d};
 * the C twin of the Python drag in bench/python_overhead.py and test_forces.py. */
int ld_py_test_drag(double t, const ld_body_motion b[2], double w[12], void *user);
int ld_py_test_drag_tangent(double t, const ld_body_motion b[2], double Wq[144], double Wv[144],
                            void *user);

int ld_py_test_drag(double t, const ld_body_motion b[2], double w[12], void *user) {
    (void)t;
    const double *par = user;
    for (int i = 0; i < 6; ++i) w[i] = 0.0;
    for (int r = 0; r < 3; ++r) {
        double ro = 0.0;
        for (int c = 0; c < 3; ++c) ro += b[1].R[3 * r + c] * b[1].omega[c];
        w[6 + r] = -par[0] * b[1].xdot[r];
        w[9 + r] = -par[1] * ro;
    }
    return 0;
}

/* Its tangents: ∂(−d R exp(δθ) Ω)/∂δθ = d R hat(Ω), ∂/∂Ω = −d R, ∂(−c ẋ)/∂ẋ = −c I. */
int ld_py_test_drag_tangent(double t, const ld_body_motion b[2], double Wq[144], double Wv[144],
                            void *user) {
    (void)t;
    const double *par = user, *R = b[1].R, *o = b[1].omega;
    const double H[9] = {0, -o[2], o[1], o[2], 0, -o[0], -o[1], o[0], 0};
    for (int i = 0; i < 144; ++i) Wq[i] = Wv[i] = 0.0;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            double rh = 0.0;
            for (int l = 0; l < 3; ++l) rh += R[3 * r + l] * H[3 * l + c];
            Wq[12 * (9 + r) + 6 + c] = par[1] * rh;
            Wv[12 * (9 + r) + 6 + c] = -par[1] * R[3 * r + c];
            Wv[12 * (6 + r) + 9 + c] = r == c ? -par[0] : 0.0;
        }
    return 0;
}

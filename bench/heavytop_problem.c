/*
 * The heavy top of the benchmark (bench_heavytop.c): its data, the reduced ODE in (q, Omega)
 * that the reference and every ODE solver integrate, the error of a final state against the
 * reference, and the checks that models/heavy-top.yaml and liedyn's formulations describe the
 * same top.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heavytop.h"

#define BENCH_NAME "bench_heavytop"
#include "bench_common.h"

const double MASS = 15.0;
const double JC[3] = {0.234375, 0.46875, 0.234375}; /* about the centre of mass */
const double XB[3] = {0.0, 1.0, 0.0};               /* centre of mass from the fixed point, body */
const double GRAV[3] = {0.0, 0.0, -9.81};
const double OMEGA0[3] = {0.0, 150.0, -4.61538};
static const double OMEGADOT0_KYNEMA[3] = {661.3461692307692, 0.0, 0.0};

static double J0[9], J0INV[9]; /* inertia about the fixed point and its inverse */
double Y0[NY];                 /* reduced initial state */
double QREF[4], XREF[3];
ld_model MODEL;

/* ------------------------------------------------------------------ helpers */

static void mat3_vec(double r[3], const double A[9], const double v[3]) {
    for (int i = 0; i < 3; ++i) r[i] = A[3 * i] * v[0] + A[3 * i + 1] * v[1] + A[3 * i + 2] * v[2];
}

static void cross3(double r[3], const double a[3], const double b[3]) {
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static void inv3(double Ai[9], const double A[9]) {
    double c[9];
    c[0] = A[4] * A[8] - A[5] * A[7];
    c[1] = A[2] * A[7] - A[1] * A[8];
    c[2] = A[1] * A[5] - A[2] * A[4];
    c[3] = A[5] * A[6] - A[3] * A[8];
    c[4] = A[0] * A[8] - A[2] * A[6];
    c[5] = A[2] * A[3] - A[0] * A[5];
    c[6] = A[3] * A[7] - A[4] * A[6];
    c[7] = A[1] * A[6] - A[0] * A[7];
    c[8] = A[0] * A[4] - A[1] * A[3];
    double det = A[0] * c[0] + A[1] * c[3] + A[2] * c[6];
    for (int i = 0; i < 9; ++i) Ai[i] = c[i] / det;
}

void problem_init(void) {
    double x2 = XB[0] * XB[0] + XB[1] * XB[1] + XB[2] * XB[2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            J0[3 * i + j] = (i == j ? JC[i] + MASS * x2 : 0.0) - MASS * XB[i] * XB[j];
    inv3(J0INV, J0);
    Y0[0] = 1.0, Y0[1] = Y0[2] = Y0[3] = 0.0;
    memcpy(Y0 + 4, OMEGA0, sizeof OMEGA0);
}

/* The reduced ODE. The rotation is that of q/|q| (q itself is never renormalized). */
void top_rhs(const double *y, double *dy) {
    const double *q = y, *w = y + 4;
    double wq[4] = {0.0, 0.5 * w[0], 0.5 * w[1], 0.5 * w[2]};
    ld_quat_mul(dy, q, wq);
    /* R^T g for R = R(q/|q|): q* g q / |q|^2 */
    double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], s = 2.0 / n2;
    double R[9] = {1.0 - s * (q[2] * q[2] + q[3] * q[3]), s * (q[1] * q[2] - q[0] * q[3]),
                   s * (q[1] * q[3] + q[0] * q[2]),       s * (q[1] * q[2] + q[0] * q[3]),
                   1.0 - s * (q[1] * q[1] + q[3] * q[3]), s * (q[2] * q[3] - q[0] * q[1]),
                   s * (q[1] * q[3] - q[0] * q[2]),       s * (q[2] * q[3] + q[0] * q[1]),
                   1.0 - s * (q[1] * q[1] + q[2] * q[2])};
    double gb[3], tau[3], Jw[3], wJw[3];
    for (int i = 0; i < 3; ++i)
        gb[i] = MASS * (R[i] * GRAV[0] + R[3 + i] * GRAV[1] + R[6 + i] * GRAV[2]);
    cross3(tau, XB, gb);
    mat3_vec(Jw, J0, w);
    cross3(wJw, w, Jw);
    for (int i = 0; i < 3; ++i) tau[i] -= wJw[i];
    mat3_vec(dy + 4, J0INV, tau);
}

void set_error(result *r, const double q[4], const double x[3]) {
    double d = 0.0;
    for (int i = 0; i < 3; ++i) d += (x[i] - XREF[i]) * (x[i] - XREF[i]);
    r->rot_err = ld_quat_angle(q, QREF);
    r->pos_err = sqrt(d);
    r->err = fmax(r->rot_err, r->pos_err);
    if (isnan(r->rot_err) || isnan(r->pos_err)) r->err = NAN;
}

/* Centre of mass x = R(q/|q|) X of a reduced state. */
void com_of(double x[3], const double q[4]) {
    double R[9];
    ld_quat_to_mat(R, q);
    mat3_vec(x, R, XB);
}

/* The loaded model is the top the reduced ODE and MuJoCo describe. */
void check_model(void) {
    const ld_body *b = MODEL.nbodies == 1 ? &MODEL.bodies[0] : NULL;
    const ld_joint *j = MODEL.njoints == 1 ? &MODEL.joints[0] : NULL;
    int ok = b && j && b->mass == MASS && b->q[0] == 1.0 && j->body == 0;
    for (int i = 0; ok && i < 3; ++i)
        ok = b->inertia[4 * i] == JC[i] && b->x[i] == XB[i] && b->omega[i] == OMEGA0[i] &&
             MODEL.gravity[i] == GRAV[i] && j->xg[i] == 0.0 && j->p[i] == -XB[i];
    if (!ok) die("check_model", "models/heavy-top.yaml is not the top of Brüls & Cardona (2010)");
}

/* The reduced ODE's initial acceleration and liedyn's consistent one (ld_integ_init). */
void check_initial(void) {
    double dy[NY];
    top_rhs(Y0, dy);
    double d = 0.0;
    for (int i = 0; i < 3; ++i) d = fmax(d, fabs(dy[4 + i] - OMEGADOT0_KYNEMA[i]));
    printf("# initial state: reduced ODE Omega'(0) = (%.13g, %.3g, %.3g); published "
           "(661.3461692307692, 0, 0); max difference %.1e\n",
           dy[4], dy[5], dy[6], d);
    if (d > 1e-9 * OMEGADOT0_KYNEMA[0]) die("check_initial", "reduced ODE inconsistent");
    /* the Lie-group formulations, whose v̇ starts with Ω̇ (the euler formulation's holds ẍ, ë) */
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        ld_system sys;
        double *q0, *v0;
        check_ld("ld_model_compile", ld_model_compile(&MODEL, (ld_formulation)f, &sys, &q0, &v0));
        ld_integ_options o;
        ld_integ_options_init(&o);
        int st;
        ld_integ *it = ld_integ_create(&sys, &o, &st);
        if (!it) die("ld_integ_create", ld_strerror(st));
        check_ld("ld_integ_init", ld_integ_init(it, 0.0, q0, v0));
        const double *vd = ld_integ_vdot(it);
        double e = 0.0;
        for (int i = 0; i < 3; ++i) e = fmax(e, fabs(vd[i] - dy[4 + i]));
        printf("# initial state: liedyn %s Omega'(0) = (%.13g, %.3g, %.3g), max difference to "
               "the reduced ODE %.1e\n",
               ld_formulation_name((ld_formulation)f), vd[0], vd[1], vd[2], e);
        if (e > 1e-6 * OMEGADOT0_KYNEMA[0]) die("check_initial", "liedyn's Omega'(0) differs");
        ld_integ_free(it);
        free(q0);
        free(v0);
        ld_model_system_free(&sys);
    }
}

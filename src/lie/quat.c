/*
 * Quaternions [w x y z], Hamilton product; unit quaternions rotate body -> spatial.
 * Conversions to and from matrices, rotation vectors and tangential vectors.
 */
#include "liedyn/liedyn.h"

#include <float.h>
#include <math.h>

#include "fn.h"
#include "mat3.h"

void ld_quat_mul(double r[4], const double a[4], const double b[4]) {
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    r[0] = w;
    r[1] = x;
    r[2] = y;
    r[3] = z;
}

void ld_quat_conj(double r[4], const double q[4]) {
    r[0] = q[0];
    r[1] = -q[1];
    r[2] = -q[2];
    r[3] = -q[3];
}

double ld_quat_norm(const double q[4]) {
    return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
}

int ld_quat_inv(double r[4], const double q[4]) {
    double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(n2 > 0.0) || !isfinite(n2)) return LD_EDOMAIN;
    r[0] = q[0] / n2;
    r[1] = -q[1] / n2;
    r[2] = -q[2] / n2;
    r[3] = -q[3] / n2;
    return LD_OK;
}

/* Scaled by the largest component first, so that |q|² neither overflows (components up to
 * DBL_MAX) nor underflows (denormal components): u = q/s with s = max |q_i|, r = u/|u|. */
int ld_quat_normalize(double r[4], const double q[4]) {
    double s = 0.0, u[4];
    for (int i = 0; i < 4; ++i) {
        double a = fabs(q[i]);
        if (!(a <= DBL_MAX)) return LD_EDOMAIN; /* NaN or infinite */
        s = fmax(s, a);
    }
    if (s == 0.0) return LD_EDOMAIN;
    for (int i = 0; i < 4; ++i) u[i] = q[i] / s;
    double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3]);
    for (int i = 0; i < 4; ++i) r[i] = u[i] / n;
    return LD_OK;
}

/* r = v + w t + u × t with t = 2 u × v, u = vec q: the rotation of v by a unit q. */
static void rotate(double r[3], double w, const double u[3], const double v[3]) {
    double t[3], ut[3];
    ld_v3_cross(t, u, v);
    for (int i = 0; i < 3; ++i) t[i] *= 2.0;
    ld_v3_cross(ut, u, t);
    for (int i = 0; i < 3; ++i) r[i] = v[i] + w * t[i] + ut[i];
}

void ld_quat_rotate(double r[3], const double q[4], const double v[3]) {
    double vv[3] = {v[0], v[1], v[2]};
    rotate(r, q[0], q + 1, vv);
}

void ld_quat_rotate_inv(double r[3], const double q[4], const double v[3]) {
    double u[3] = {-q[1], -q[2], -q[3]}, vv[3] = {v[0], v[1], v[2]};
    rotate(r, q[0], u, vv);
}

void ld_quat_to_mat(double R[9], const double q[4]) {
    double w = q[0], x = q[1], y = q[2], z = q[3], n2 = w * w + x * x + y * y + z * z;
    if (!(n2 > 1e-290 && n2 < 1e290)) { /* rescale a tiny or huge q before squaring */
        double m = fmax(fmax(fabs(w), fabs(x)), fmax(fabs(y), fabs(z)));
        if (m > 0.0 && isfinite(m)) {
            w /= m, x /= m, y /= m, z /= m;
            n2 = w * w + x * x + y * y + z * z;
        }
    }
    double s = 2.0 / n2;
    R[0] = 1.0 - s * (y * y + z * z);
    R[1] = s * (x * y - w * z);
    R[2] = s * (x * z + w * y);
    R[3] = s * (x * y + w * z);
    R[4] = 1.0 - s * (x * x + z * z);
    R[5] = s * (y * z - w * x);
    R[6] = s * (x * z - w * y);
    R[7] = s * (y * z + w * x);
    R[8] = 1.0 - s * (x * x + y * y);
}

/* Spurrier: take the largest of 4w², 4x², 4y², 4z² (read off the trace and diagonal) by
 * a square root, and the other three from off-diagonal sums/differences divided by it. */
void ld_quat_from_mat(double q[4], const double R[9]) {
    double tr = R[0] + R[4] + R[8];
    int i = 0;
    if (R[4] > R[i * 4]) i = 1;
    if (R[8] > R[i * 4]) i = 2;
    if (tr >= R[i * 4]) {
        double w = 0.5 * sqrt(1.0 + tr), f = 0.25 / w;
        q[0] = w;
        q[1] = (R[7] - R[5]) * f;
        q[2] = (R[2] - R[6]) * f;
        q[3] = (R[3] - R[1]) * f;
    } else {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        double qi = sqrt(0.5 * R[4 * i] + 0.25 * (1.0 - tr)), f = 0.25 / qi;
        q[0] = (R[3 * k + j] - R[3 * j + k]) * f;
        q[1 + i] = qi;
        q[1 + j] = (R[3 * j + i] + R[3 * i + j]) * f;
        q[1 + k] = (R[3 * k + i] + R[3 * i + k]) * f;
    }
    double n = ld_quat_norm(q);
    if (q[0] < 0.0) n = -n;
    for (int m = 0; m < 4; ++m) q[m] /= n;
}

void ld_quat_from_rotvec(double q[4], const double psi[3]) {
    double x = ld_v3_norm(psi); /* |ψ|² may overflow beyond 1e154 */
    double f = ld_fn_half_sinc(x);
    q[0] = cos(0.5 * x);
    q[1] = f * psi[0];
    q[2] = f * psi[1];
    q[3] = f * psi[2];
}

void ld_quat_to_rotvec(double psi[3], const double q[4]) {
    double s = ld_v3_norm(q + 1);
    double w = q[0];
    double f = (s == 0.0 && w == 0.0) ? 0.0 : ld_fn_log_factor(s, fabs(w));
    if (w < 0.0) f = -f; /* -q is the same rotation: take the shorter way */
    for (int i = 0; i < 3; ++i) psi[i] = f * q[1 + i];
}

void ld_quat_from_tanvec(double q[4], const double psi_t[3]) {
    double m = fmax(1.0, fmax(fabs(psi_t[0]), fmax(fabs(psi_t[1]), fabs(psi_t[2]))));
    double u[4] = {1.0 / m, psi_t[0] / m, psi_t[1] / m, psi_t[2] / m};
    double n = ld_quat_norm(u);
    for (int i = 0; i < 4; ++i) q[i] = u[i] / n;
}

int ld_quat_to_tanvec(double psi_t[3], const double q[4]) {
    double s = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(q[0]) > DBL_EPSILON * s)) return LD_ESINGULAR; /* also q = 0 and NaN */
    for (int i = 0; i < 3; ++i) psi_t[i] = q[1 + i] / q[0];
    return LD_OK;
}

void ld_quat_cayley(double q[4], const double a[3]) {
    double h[3] = {0.5 * a[0], 0.5 * a[1], 0.5 * a[2]};
    ld_quat_from_tanvec(q, h);
}

double ld_quat_angle(const double a[4], const double b[4]) {
    double c[4], d[4];
    ld_quat_conj(c, a);
    ld_quat_mul(d, c, b);
    double s = sqrt(d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
    return 2.0 * atan2(s, fabs(d[0]));
}

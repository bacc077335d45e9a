/* Eigen-decomposition of a symmetric 3×3 matrix (mat3.h): principal axes of inertia for the
 * splitting integrators and for the drawn inertia boxes. */
#include <math.h>
#include <string.h>

#include "mat3.h"

void ld_m3_sym_eigen(const double A0[9], double V[9], double d[3]) {
    double A[9];
    memcpy(A, A0, sizeof A);
    for (int i = 0; i < 9; ++i) V[i] = i % 4 == 0 ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
        if (off <= 1e-300 + 1e-17 * (fabs(A[0]) + fabs(A[4]) + fabs(A[8]))) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                double apq = A[3 * p + q];
                if (apq == 0.0) continue;
                double th = 0.5 * (A[3 * q + q] - A[3 * p + p]) / apq;
                double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; ++k) { /* A ← Jᵀ A J */
                    double akp = A[3 * k + p], akq = A[3 * k + q];
                    A[3 * k + p] = c * akp - s * akq, A[3 * k + q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) {
                    double apk = A[3 * p + k], aqk = A[3 * q + k];
                    A[3 * p + k] = c * apk - s * aqk, A[3 * q + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; ++k) {
                    double vkp = V[3 * k + p], vkq = V[3 * k + q];
                    V[3 * k + p] = c * vkp - s * vkq, V[3 * k + q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < 3; ++i) d[i] = A[4 * i];
}

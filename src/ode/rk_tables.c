/*
 * Built-in explicit Runge–Kutta tables and the order conditions up to order 5.
 * Coefficients are written as exact fractions; each table is checked by tests/test_rk.c.
 */
#include "liedyn/rk.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* ---- forward Euler (order 1) ---- */
static const double euler_c[] = {0.0};
static const double euler_A[] = {0.0};
static const double euler_b[] = {1.0};

/* ---- Heun (order 2), embedded Euler (order 1) ---- */
static const double heun_c[] = {0.0, 1.0};
static const double heun_A[] = {0.0, 0.0, 1.0, 0.0};
static const double heun_b[] = {0.5, 0.5};
static const double heun_bh[] = {1.0, 0.0};

/* ---- explicit midpoint (order 2) ---- */
static const double mid_c[] = {0.0, 0.5};
static const double mid_A[] = {0.0, 0.0, 0.5, 0.0};
static const double mid_b[] = {0.0, 1.0};

/* ---- Kutta's third-order method ---- */
static const double k3_c[] = {0.0, 0.5, 1.0};
static const double k3_A[] = {0.0, 0.0, 0.0, 0.5, 0.0, 0.0, -1.0, 2.0, 0.0};
static const double k3_b[] = {1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0};

/* ---- classical Runge–Kutta (order 4) ---- */
static const double rk4_c[] = {0.0, 0.5, 0.5, 1.0};
static const double rk4_A[] = {0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0,
                               0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0};
static const double rk4_b[] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};

/* ---- Bogacki–Shampine 3(2), FSAL (MATLAB's ode23) ---- */
static const double bs_c[] = {0.0, 0.5, 0.75, 1.0};
/* clang-format off */
static const double bs_A[] = {
    0.0,       0.0,       0.0,       0.0,
    0.5,       0.0,       0.0,       0.0,
    0.0,       0.75,      0.0,       0.0,
    2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0};
/* clang-format on */
static const double bs_b[] = {2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0};
static const double bs_bh[] = {7.0 / 24.0, 1.0 / 4.0, 1.0 / 3.0, 1.0 / 8.0};

/* ---- Dormand–Prince 5(4), FSAL (MATLAB's ode45); row 5 with a54 = -212/729 and
 *      a53 = 64448/6561 (the latter is missing from one printed copy of the array) ---- */
static const double dp_c[] = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};
/* clang-format off */
static const double dp_A[] = {
    0.0,              0.0,               0.0,              0.0,           0.0,              0.0,        0.0,
    1.0 / 5.0,        0.0,               0.0,              0.0,           0.0,              0.0,        0.0,
    3.0 / 40.0,       9.0 / 40.0,        0.0,              0.0,           0.0,              0.0,        0.0,
    44.0 / 45.0,      -56.0 / 15.0,      32.0 / 9.0,       0.0,           0.0,              0.0,        0.0,
    19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0.0,             0.0,        0.0,
    9017.0 / 3168.0,  -355.0 / 33.0,     46732.0 / 5247.0, 49.0 / 176.0,  -5103.0 / 18656.0, 0.0,       0.0,
    35.0 / 384.0,     0.0,               500.0 / 1113.0,   125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0, 0.0};
/* clang-format on */
static const double dp_b[] = {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0,
                              11.0 / 84.0,  0.0};
static const double dp_bh[] = {
    5179.0 / 57600.0, 0.0,       7571.0 / 16695.0, 393.0 / 640.0, -92097.0 / 339200.0,
    187.0 / 2100.0,   1.0 / 40.0};

static const ld_rk_table TABLES[] = {
    {"euler", "forward Euler", 1, 1, 0, 0, euler_c, euler_A, euler_b, NULL},
    {"heun", "Heun's method 2(1)", 2, 2, 1, 0, heun_c, heun_A, heun_b, heun_bh},
    {"midpoint", "explicit midpoint rule", 2, 2, 0, 0, mid_c, mid_A, mid_b, NULL},
    {"kutta3", "Kutta's third-order method", 3, 3, 0, 0, k3_c, k3_A, k3_b, NULL},
    {"rk4", "classical Runge-Kutta", 4, 4, 0, 0, rk4_c, rk4_A, rk4_b, NULL},
    {"bs23", "Bogacki-Shampine 3(2), FSAL", 4, 3, 2, 1, bs_c, bs_A, bs_b, bs_bh},
    {"dopri5", "Dormand-Prince 5(4), FSAL", 7, 5, 4, 1, dp_c, dp_A, dp_b, dp_bh},
};
#define NTABLES ((int)(sizeof TABLES / sizeof TABLES[0]))

int ld_rk_table_count(void) {
    return NTABLES;
}

const ld_rk_table *ld_rk_table_at(int i) {
    return (i >= 0 && i < NTABLES) ? &TABLES[i] : NULL;
}

const ld_rk_table *ld_rk_table_find(const char *name) {
    for (int i = 0; name && i < NTABLES; ++i)
        if (strcmp(TABLES[i].name, name) == 0) return &TABLES[i];
    return NULL;
}

double ld_rk_rowsum_residual(const ld_rk_table *t) {
    if (!t || !t->A || !t->c) return NAN;
    double r = 0.0;
    for (int i = 0; i < t->stages; ++i) {
        double s = 0.0;
        for (int j = 0; j < t->stages; ++j) s += t->A[t->stages * i + j];
        r = fmax(r, fabs(s - t->c[i]));
    }
    return r;
}

/* ---- order conditions ---- */

/* r = A x. */
static void amul(const ld_rk_table *t, const double *x, double *r) {
    for (int i = 0; i < t->stages; ++i) {
        double a = 0.0;
        for (int j = 0; j < i; ++j) a += t->A[t->stages * i + j] * x[j];
        r[i] = a;
    }
}

/* w · (x ∘ y ∘ z), with NULL standing for a vector of ones. */
static double wdot(const double *w, int s, const double *x, const double *y, const double *z) {
    double r = 0.0;
    for (int i = 0; i < s; ++i) r += w[i] * (x ? x[i] : 1.0) * (y ? y[i] : 1.0) * (z ? z[i] : 1.0);
    return r;
}

/* Residuals of the trees of one order, largest absolute value. */
double ld_rk_order_residual(const ld_rk_table *t, const double *w, int k) {
    enum { M = LD_RK_MAX_STAGES };
    if (!t || !w || !t->A) return -1.0;
    int s = t->stages;
    double c[M], c2[M], c3[M], Ac[M], Ac2[M], Ac3[M], AAc[M], cAc[M], AcAc[M], AAc2[M], AAAc[M];
    if (k < 1 || k > LD_RK_MAX_CHECKED_ORDER || s > M) return -1.0;
    for (int i = 0; i < s; ++i) {
        c[i] = 0.0;
        for (int j = 0; j < s; ++j) c[i] += t->A[s * i + j];
        c2[i] = c[i] * c[i];
        c3[i] = c2[i] * c[i];
    }
    amul(t, c, Ac);
    amul(t, c2, Ac2);
    amul(t, c3, Ac3);
    amul(t, Ac, AAc);
    for (int i = 0; i < s; ++i) cAc[i] = c[i] * Ac[i];
    amul(t, cAc, AcAc); /* A (c ∘ Ac) */
    amul(t, Ac2, AAc2);
    amul(t, AAc, AAAc);
    double r[9];
    int n = 0;
    switch (k) {
    case 1:
        r[n++] = wdot(w, s, NULL, NULL, NULL) - 1.0;
        break;
    case 2:
        r[n++] = wdot(w, s, c, NULL, NULL) - 1.0 / 2.0;
        break;
    case 3:
        r[n++] = wdot(w, s, c2, NULL, NULL) - 1.0 / 3.0;
        r[n++] = wdot(w, s, Ac, NULL, NULL) - 1.0 / 6.0;
        break;
    case 4:
        r[n++] = wdot(w, s, c3, NULL, NULL) - 1.0 / 4.0;
        r[n++] = wdot(w, s, c, Ac, NULL) - 1.0 / 8.0;
        r[n++] = wdot(w, s, Ac2, NULL, NULL) - 1.0 / 12.0;
        r[n++] = wdot(w, s, AAc, NULL, NULL) - 1.0 / 24.0;
        break;
    default:
        r[n++] = wdot(w, s, c3, c, NULL) - 1.0 / 5.0;
        r[n++] = wdot(w, s, c2, Ac, NULL) - 1.0 / 10.0;
        r[n++] = wdot(w, s, c, Ac2, NULL) - 1.0 / 15.0;
        r[n++] = wdot(w, s, c, AAc, NULL) - 1.0 / 30.0;
        r[n++] = wdot(w, s, Ac, Ac, NULL) - 1.0 / 20.0;
        r[n++] = wdot(w, s, Ac3, NULL, NULL) - 1.0 / 20.0;
        r[n++] = wdot(w, s, AcAc, NULL, NULL) - 1.0 / 40.0;
        r[n++] = wdot(w, s, AAc2, NULL, NULL) - 1.0 / 60.0;
        r[n++] = wdot(w, s, AAAc, NULL, NULL) - 1.0 / 120.0;
        break;
    }
    double m = 0.0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(r[i]));
    return m;
}

/*
 * Tables of the half-explicit Runge–Kutta methods hem1 … hem5 (integrator.h, docs/hem.md).
 * Stored as data: A is (s̄+1)×s̄ row-major, c has s̄+1 entries, d and bhat s̄. The tests check
 * the classical order conditions of the result row, the embedded weights, the row sums and
 * Σ d = 1.
 *
 * Sources: half-explicit Euler (Brasey & Hairer 1993, stage 1 solved); Heun, the order-3 and
 * the order-4 tables of the half-explicit methods with an explicit first stage (Murua 1997,
 * Arnold 1998) as used by the public code of the half-explicit Lie-group integrators of
 * Tumiotto & Arnold (2024) (github.com/DeniseTumiotto/lie_group_integration_methods); the
 * order-5 method on the Dormand–Prince 5(4) pair with its extra stage for the velocity
 * constraint, and the embedded weights of Tumiotto & Arnold (2024) Sec. 3.1.
 */
#include <math.h>
#include <stddef.h>

#include "integ_impl.h"
#include "liedyn/integrator.h"

#define SQ3 1.7320508075688772935

/* ---- order 1: half-explicit Euler (stage 1 solves for Λ_1) ---- */
static const double h1_c[] = {0.0, 1.0};
static const double h1_A[] = {0.0, 1.0};
static const double h1_d[] = {1.0};

/* ---- order 2: Heun, embedded order 1 ---- */
static const double h2_c[] = {0.0, 1.0, 1.0};
static const double h2_A[] = {0.0, 0.0, 1.0, 0.0, 0.5, 0.5};
static const double h2_d[] = {0.5, 0.5};
static const double h2_bh[] = {0.0, 1.0};

/* ---- order 3 ---- */
static const double h3_c[] = {0.0, 0.5, 2.0 / 3.0, 1.0};
/* clang-format off */
static const double h3_A[] = {
    0.0,       0.0,       0.0,
    0.5,       0.0,       0.0,
    2.0 / 9.0, 4.0 / 9.0, 0.0,
    0.25,      0.0,       0.75};
/* clang-format on */
static const double h3_d[] = {0.0, -2.0, 3.0};

/* ---- order 4 (s = 4, s̄ = 5) ---- */
static const double h4_c[] = {0.0, 1.0, 0.5, 1.0, 1.0, (3.0 - SQ3) / 6.0};
/* clang-format off */
static const double h4_A[] = {
    0.0,                      0.0, 0.0,                          0.0,               0.0,
    1.0,                      0.0, 0.0,                          0.0,               0.0,
    3.0 / 8.0,                1.0 / 8.0, 0.0,                    0.0,               0.0,
    -0.5,                     -0.5, 2.0,                         0.0,               0.0,
    1.0 / 6.0,                0.0, 2.0 / 3.0,                    1.0 / 6.0,         0.0,
    1.0 / 6.0 - SQ3 / 108.0,  0.0, 1.0 / 3.0 - 4.0 * SQ3 / 27.0, -7.0 * SQ3 / 108.0, SQ3 / 18.0};
/* clang-format on */
static const double h4_d[] = {0.0, 0.0, 0.0, 0.0, 1.0};

/* ---- order 5 (s = 6, s̄ = 7): Dormand–Prince rows 1–7, an extra row 8 for the constraint
 *      of stage 7, embedded order-4 weights ---- */
static const double h5_c[] = {0.0, 0.2, 0.3, 0.8, 8.0 / 9.0, 1.0, 1.0, 19.0 / 20.0};
/* clang-format off */
static const double h5_A[] = {
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0, 0.0,
    19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0.0, 0.0, 0.0,
    9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0.0, 0.0,
    35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0, 0.0,
    -18611506045861.0 / 19738176307200.0, 59332529.0 / 14479296.0,
    -2509441598627.0 / 893904224850.0, 2763523204159.0 / 3289696051200.0,
    -41262869588913.0 / 116235927142400.0, 46310205821.0 / 287848404480.0, -3280.0 / 75413.0};
/* clang-format on */
static const double h5_d[] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0};
static const double h5_bh[] = {
    5179.0 / 57600.0, 0.0,       7571.0 / 16695.0, 393.0 / 640.0, -92097.0 / 339200.0,
    187.0 / 2100.0,   1.0 / 40.0};

static const ld_hem_table tables[5] = {
    {"hem1", "half-explicit Euler (Brasey & Hairer 1993)", 1, 0, 1, 1, 0, h1_c, h1_A, h1_d, NULL},
    {"hem2", "half-explicit Heun, explicit first stage, embedded Euler", 2, 1, 2, 2, 1, h2_c, h2_A,
     h2_d, h2_bh},
    {"hem3", "half-explicit order 3, explicit first stage (Murua 1997)", 3, 0, 3, 3, 1, h3_c, h3_A,
     h3_d, NULL},
    {"hem4", "half-explicit order 4, s = 4, one extra stage (Arnold 1998)", 4, 0, 4, 5, 1, h4_c,
     h4_A, h4_d, NULL},
    {"hem5", "half-explicit Dormand-Prince 5(4), one extra stage (Tumiotto & Arnold 2024)", 5, 4, 6,
     7, 1, h5_c, h5_A, h5_d, h5_bh},
};

const ld_hem_table *ld_hem__table(int i) {
    return i >= 0 && i < (int)(sizeof tables / sizeof tables[0]) ? &tables[i] : NULL;
}

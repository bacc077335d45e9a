/*
 * Coefficient functions of the SO(3) / S³ / SE(3) maps (internal).
 *
 * Each function f(x), x = |Ω| ≥ 0, has a removable singularity at x = 0. Below a
 * threshold it is evaluated from its Taylor series (Horner in x², with as many terms as
 * the bracket of x needs for round-off accuracy); above it from a closed form written to
 * avoid cancellation where possible. Thresholds are chosen so that both branches are at
 * round-off level where they meet (docs/lie-numerics.md gives the measured errors).
 */
#ifndef LIEDYN_SRC_LIE_FN_H
#define LIEDYN_SRC_LIE_FN_H

/* Values at one angle x. Fields beyond the requested count are left unset. */
typedef struct ld_fn {
    double a; /* sin x / x                          -> 1    */
    double b; /* (1 - cos x) / x²                   -> 1/2  */
    double c; /* (x - sin x) / x³                   -> 1/6  */
    double d; /* (2 - 2cos x - x sin x) / x⁴        -> 1/12 */
    double e; /* (x(2 + cos x) - 3 sin x) / x⁵      -> 1/60 */
} ld_fn;

/* Thresholds below which c, d, e use their series (exposed for the continuity tests). */
#define LD_FN_SERIES_AB   1e-4
#define LD_FN_SERIES_C    3.0
#define LD_FN_SERIES_D    4.0
#define LD_FN_SERIES_E    5.0
#define LD_FN_SERIES_HALF 1e-4

/* Upper edges of the x brackets that fix how many series terms are summed. */
#define LD_FN_BRACKET_EDGES                                                                        \
    { 1e-3, 1e-2, 0.1, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0 }
/* Every x at which some coefficient function changes formula or series length. */
#define LD_FN_SWITCH_POINTS                                                                        \
    {                                                                                              \
        LD_FN_SERIES_AB, LD_FN_SERIES_C, LD_FN_SERIES_D, LD_FN_SERIES_E, LD_FN_SERIES_HALF, 1e-3,  \
            1e-2, 0.1, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0                                                \
    }

/* Fill the first n (1..5) of a, b, c, d, e at x >= 0 (NaN propagates). */
void ld_fn_eval(ld_fn *f, double x, int n);

/* (1 - (x/2) cot(x/2)) / x² = d / (2b) from a filled f (n >= 4); -> 1/12; singular at 2πk. */
double ld_fn_tinv(const ld_fn *f);

/* sin(x/2) / x  -> 1/2 (the S³ exponential's factor). */
double ld_fn_half_sinc(double x);

/* 2 atan2(s, w) / s for s >= 0 (the S³ logarithm's factor); 2/w when s = 0. */
double ld_fn_log_factor(double s, double w);

/* Single-function entry points (for tests and the accuracy tool). */
double ld_fn_sinx_x(double x);
double ld_fn_1mcosx_x2(double x);
double ld_fn_xmsinx_x3(double x);
double ld_fn_d4(double x);
double ld_fn_e5(double x);
double ld_fn_tinv_x(double x);

#endif

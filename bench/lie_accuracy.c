/*
 * Accuracy study of the coefficient functions of the rotation maps (docs/lie-numerics.md):
 * the library's functions and, for comparison, the published Taylor-polynomial thresholds
 * of one public implementation (shared tables, "singular functions"), both against a
 * quad-precision reference. CSV on stdout:
 *   function,scheme,threshold,max_rel_err_eps,x_at_max,rel_jump_at_threshold
 * The jump is the change across the switch beyond the function's own change over one ulp.
 * (for the library, threshold/jump are the worst over all its switch points).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fn.h"
#include "../tests/quadref.h"

#define NS 200000

/* The published scheme: closed form above the threshold, short polynomial below. */
static double pub_a(double x) {
    return x < 1e-4 ? 1.0 - x * x / 6.0 : sin(x) / x;
}
static double pub_b(double x) { /* -(cos x - 1)/x² */
    double x2 = x * x;
    return x < 1e-2 ? -(-0.5 + x2 / 24.0 - x2 * x2 / 720.0) : -((cos(x) - 1.0) / x2);
}
static double pub_c(double x) {
    double x2 = x * x;
    return x < 1e-4 ? 1.0 / 6 - x2 / 120 + x2 * x2 / 5040 : (x - sin(x)) / (x * x2);
}
static double pub_d(double x) {
    double x2 = x * x;
    if (x < 1e-1) return 1.0 / 12 - x2 / 180 + x2 * x2 / 6720 - x2 * x2 * x2 / 453600;
    return (2 - 2 * cos(x) - x * sin(x)) / (x2 * x2);
}
static double pub_e(double x) {
    double x2 = x * x;
    if (x < 1e-1) return 1.0 / 60 - x2 / 1260 + x2 * x2 / 60480 - x2 * x2 * x2 / 4989600;
    return (x * (2 + cos(x)) - 3 * sin(x)) / (x2 * x2 * x);
}
static double pub_g(double x) { /* (2 - x cot(x/2))/(2x²) */
    double x2 = x * x;
    return x < 1e-2 ? 1.0 / 12 + x2 / 720 + x2 * x2 / 30240 : (2 - x / tan(0.5 * x)) / (2 * x2);
}

typedef double (*fn1)(double);
static const struct {
    const char *name;
    enum qfn q;
    fn1 ours, pub;
    double pub_threshold;
} F[] = {
    {"sin(x)/x", QA, ld_fn_sinx_x, pub_a, 1e-4},
    {"(1-cos(x))/x^2", QB, ld_fn_1mcosx_x2, pub_b, 1e-2},
    {"(x-sin(x))/x^3", QC, ld_fn_xmsinx_x3, pub_c, 1e-4},
    {"(2-2cos(x)-x*sin(x))/x^4", QD, ld_fn_d4, pub_d, 1e-1},
    {"(x(2+cos(x))-3sin(x))/x^5", QE, ld_fn_e5, pub_e, 1e-1},
    {"(2-x*cot(x/2))/(2x^2)", QG, ld_fn_tinv_x, pub_g, 1e-2},
};

static double rel(enum qfn q, fn1 f, double x) {
    quad r = q_ref(q, (quad)x);
    return (double)fabsq(((quad)f(x) - r) / r);
}

/* Jump across the switch at t beyond the function's own change over one ulp of x. */
static double jump(enum qfn q, fn1 f, double t) {
    double lo = nextafter(t, 0.0);
    quad d = ((quad)f(t) - (quad)f(lo)) - (q_ref(q, (quad)t) - q_ref(q, (quad)lo));
    return (double)fabsq(d / q_ref(q, (quad)t));
}

static void study(int k, int pub) {
    fn1 f = pub ? F[k].pub : F[k].ours;
    double worst = 0.0, at = 0.0;
    unsigned long long s = 88172645463325252ULL;
    const char *quick = getenv("BENCH_QUICK"); /* the smoke run of make test: 1 % of the samples */
    int ns = quick && quick[0] && quick[0] != '0' ? NS / 100 : NS;
    for (int i = 0; i < ns; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double u = (double)(s >> 11) * 0x1.0p-53;
        double x = (i % 2) ? exp(log(1e-8) + u * (log(6.0) - log(1e-8))) : 6.0 * u + 1e-300;
        if (F[k].q == QA && fabs(x - 3.141592653589793) < 1e-3) continue;
        double e = rel(F[k].q, f, x);
        if (e > worst) worst = e, at = x;
    }
    double thr, jmp = 0.0;
    if (pub) {
        thr = F[k].pub_threshold;
        jmp = jump(F[k].q, f, thr);
    } else {
        const double sw[] = LD_FN_SWITCH_POINTS;
        thr = 0.0;
        for (size_t i = 0; i < sizeof sw / sizeof sw[0]; ++i)
            if (jump(F[k].q, f, sw[i]) >= jmp) jmp = jump(F[k].q, f, sw[i]), thr = sw[i];
    }
    printf("%s,%s,%g,%.2f,%.3g,%.2e\n", F[k].name, pub ? "published" : "liedyn", thr,
           worst / 0x1.0p-52, at, jmp);
}

int main(void) {
    printf("function,scheme,threshold,max_rel_err_eps,x_at_max,rel_jump_at_threshold\n");
    for (size_t k = 0; k < sizeof F / sizeof F[0]; ++k) {
        study((int)k, 1);
        study((int)k, 0);
    }
    return 0;
}

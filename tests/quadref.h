/*
 * Quad-precision (__float128, ~34 digits) references for the coefficient functions:
 * closed forms above 0.01, long Taylor series (coefficients built here from factorials,
 * independently of the library's tables) below.
 */
#ifndef LIEDYN_TESTS_QUADREF_H
#define LIEDYN_TESTS_QUADREF_H

#include <quadmath.h>

__extension__ typedef __float128 quad;

enum qfn { QA, QB, QC, QD, QE, QG, QH, QFN_COUNT };

static inline quad q_fact(int n) {
    quad f = 1;
    for (int i = 2; i <= n; ++i) f *= i;
    return f;
}

/* Taylor series in quad (30 terms: truncation far below quad round-off for x < 0.05). */
static inline quad q_series(enum qfn k, quad x) {
    quad s = 0, x2 = x * x, p = 1;
    for (int j = 0; j < 30; ++j, p *= x2) {
        quad sg = (j % 2) ? -1 : 1, t;
        switch (k) {
        case QA:
            t = 1 / q_fact(2 * j + 1);
            break;
        case QB:
            t = 1 / q_fact(2 * j + 2);
            break;
        case QC:
            t = 1 / q_fact(2 * j + 3);
            break;
        case QD:
            t = (quad)(2 * j + 2) / q_fact(2 * j + 4);
            break;
        case QE:
            t = (quad)(2 * j + 2) / q_fact(2 * j + 5);
            break;
        default:
            t = (quad)0.5 * powq((quad)0.5, 2 * j) / q_fact(2 * j + 1);
            break; /* QH */
        }
        s += sg * t * p;
    }
    return s;
}

static inline quad q_closed(enum qfn k, quad x) {
    quad s = sinq(x), c = cosq(x);
    switch (k) {
    case QA:
        return s / x;
    case QB:
        return (1 - c) / (x * x);
    case QC:
        return (x - s) / (x * x * x);
    case QD:
        return (2 - 2 * c - x * s) / (x * x * x * x);
    case QE:
        return (x * (2 + c) - 3 * s) / (x * x * x * x * x);
    case QG:
        return (1 - (quad)0.5 * x * cosq((quad)0.5 * x) / sinq((quad)0.5 * x)) / (x * x);
    default:
        return sinq((quad)0.5 * x) / x; /* QH */
    }
}

static inline quad q_ref(enum qfn k, quad x) {
    if (x >= (quad)0.01) return q_closed(k, x);
    if (k == QG) return q_series(QD, x) / (2 * q_series(QB, x));
    return q_series(k, x);
}

#endif

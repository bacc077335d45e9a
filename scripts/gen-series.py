#!/usr/bin/env python3
"""Print the Taylor coefficients (in x²) of the coefficient functions of the SO(3)/S³
maps, and how many terms each bracket of x needs, as C initializers for src/lie/fn.c.

c(x) = (x - sin x)/x³               = sum_k (-1)^k / (2k+3)!            x^{2k}
d(x) = (2 - 2cos x - x sin x)/x⁴    = sum_k (-1)^k (2k+2) / (2k+4)!     x^{2k}
e(x) = (x(2 + cos x) - 3 sin x)/x⁵  = sum_k (-1)^k (2k+2) / (2k+5)!     x^{2k}
Exact rationals (fractions) are rounded once to double by float().
Term counts: the first omitted term at the bracket's upper edge is below 2^-56 |f|.
"""
from fractions import Fraction as F
from math import factorial, sin, cos

N = 24
coef = {
    "c": [F((-1) ** k, factorial(2 * k + 3)) for k in range(N)],
    "d": [F((-1) ** k * (2 * k + 2), factorial(2 * k + 4)) for k in range(N)],
    "e": [F((-1) ** k * (2 * k + 2), factorial(2 * k + 5)) for k in range(N)],
}
closed = {
    "c": lambda x: (x - sin(x)) / x**3,
    "d": lambda x: (2 - 2 * cos(x) - x * sin(x)) / x**4,
    "e": lambda x: (x * (2 + cos(x)) - 3 * sin(x)) / x**5,
}
edges = [1e-3, 1e-2, 0.1, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0]


def series(name, x, n):
    return float(sum(c * F(x) ** (2 * k) for k, c in enumerate(coef[name][:n])))


for name in "cde":
    print(f"static const double k_{name}[{N}] = {{")
    for k in range(0, N, 3):
        print("    " + ", ".join(f"{float(c):.17e}" for c in coef[name][k:k + 3]) + ",")
    print("};")
    counts = []
    for x in edges:
        fx = abs(series(name, x, N))
        n = next(n for n in range(1, N) if abs(float(coef[name][n]) * x ** (2 * n)) < 2.0**-56 * fx)
        counts.append(n)
    print(f"/* terms needed for x <= {edges}: */")
    print(f"static const int n_{name}[] = {{{', '.join(map(str, counts))}}};")

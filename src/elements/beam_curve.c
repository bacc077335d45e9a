/*
 * The nodes of a beam whose reference axis is a smooth curve (`curve: true`, docs/beam.md): a
 * clamped cubic spline through the points in their cumulative chord length σ, and the nodes at
 * the GLL points of elements of equal arc length along it.
 *
 * The arc length from the start to σ is the table of the arc lengths at the knots (8-point
 * Gauss on each knot interval, summed once) plus the same rule on the part of one interval; a
 * knot interval is found by bisection. Placing n nodes thus takes O(n + points · log points)
 * spline evaluations — each node's arc length used to be integrated from the start of the curve
 * in every Newton iteration, and the whole curve's length once more per node, O(n · points²).
 * The sums are formed in the same order as then, so the nodes are the same to the last bit.
 */
#include <math.h>
#include <string.h>

#include "../lie/mat3.h"
#include "beam_curve.h"
#include "beam_fe.h"
#include "liedyn/liedyn.h"

static _Thread_local long evals; /* spline evaluations of this thread (ld_beam__curve_work) */

long ld_beam__curve_work(void) {
    return evals;
}

/* The spline of a beam's points and the arc-length table. */
typedef struct curve {
    const ld_beam *b;
    int n;                             /* points (knots) */
    double sg[LD_BEAM_POINTS_MAX];     /* σ: cumulative chord length at the knots */
    double M2[3 * LD_BEAM_POINTS_MAX]; /* second derivatives at the knots (3 per knot) */
    double arc[LD_BEAM_POINTS_MAX];    /* arc length from the start to each knot */
    double xg[8], wg[8];               /* the 8-point Gauss rule on [−1, 1] */
} curve;

/* The derivative at σ = t of the cubic (or lower) through the n ≤ 4 points (ts, ys). */
static double end_slope(const double *ts, const double *ys, int n, double t) {
    double d = 0.0;
    for (int i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int k = 0; k < n; ++k) {
            if (k == i) continue;
            double term = 1.0 / (ts[i] - ts[k]);
            for (int j = 0; j < n; ++j)
                if (j != i && j != k) term *= (t - ts[j]) / (ts[i] - ts[j]);
            sum += term;
        }
        d += ys[i] * sum;
    }
    return d;
}

/* The spline's second derivatives at the knots σ: a clamped cubic spline whose end slopes are
 * those of the cubic through the four end points (so the tangents are third-order accurate up
 * to the ends). */
static void spline_setup(curve *cv) {
    const ld_beam *b = cv->b;
    int n = cv->n, ne = n < 4 ? n : 4;
    double *sg = cv->sg, *M2 = cv->M2, c[LD_BEAM_POINTS_MAX], d[3 * LD_BEAM_POINTS_MAX];
    sg[0] = 0.0;
    for (int i = 1; i < n; ++i) {
        double dd[3];
        for (int k = 0; k < 3; ++k) dd[k] = b->points[3 * i + k] - b->points[3 * (i - 1) + k];
        sg[i] = sg[i - 1] + ld_v3_norm(dd);
    }
    for (int k = 0; k < 3; ++k) { /* rows i: sub M[i−1] + diag M[i] + sup M[i+1] = r (Thomas) */
        double ys[4], y0, y1;
        for (int i = 0; i < ne; ++i) ys[i] = b->points[3 * i + k];
        y0 = end_slope(sg, ys, ne, sg[0]);
        for (int i = 0; i < ne; ++i) ys[i] = b->points[3 * (n - ne + i) + k];
        y1 = end_slope(sg + n - ne, ys, ne, sg[n - 1]);
        for (int i = 0; i < n; ++i) {
            double h0 = i > 0 ? sg[i] - sg[i - 1] : 0.0, h1 = i + 1 < n ? sg[i + 1] - sg[i] : 0.0;
            double sub = h0, sup = h1, diag = 2.0 * (h0 + h1), r;
            const double *P = b->points;
            double s0 = i > 0 ? (P[3 * i + k] - P[3 * (i - 1) + k]) / h0 : y0;
            double s1 = i + 1 < n ? (P[3 * (i + 1) + k] - P[3 * i + k]) / h1 : y1;
            r = 6.0 * (s1 - s0);
            double den = diag - (i > 0 ? sub * c[i - 1] : 0.0);
            c[i] = sup / den;
            d[i] = (r - (i > 0 ? sub * d[i - 1] : 0.0)) / den;
        }
        M2[3 * (n - 1) + k] = d[n - 1];
        for (int i = n - 2; i >= 0; --i) M2[3 * i + k] = d[i] - c[i] * M2[3 * (i + 1) + k];
    }
}

/* The knot interval of σ = s: the first i with s ≤ σ_{i+1}, at most n − 2 (0 for NaN). */
static int interval_of(const curve *cv, double s) {
    int lo = 0, hi = cv->n - 2;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s > cv->sg[mid + 1])
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The spline's point x and derivative dx at σ = s. */
static void spline_eval(const curve *cv, double s, double x[3], double dx[3]) {
    const double *sg = cv->sg, *M2 = cv->M2, *P = cv->b->points;
    int i = interval_of(cv, s);
    double h = sg[i + 1] - sg[i], A = (sg[i + 1] - s) / h, B = (s - sg[i]) / h;
    for (int k = 0; k < 3; ++k) {
        double y0 = P[3 * i + k], y1 = P[3 * (i + 1) + k], m0 = M2[3 * i + k],
               m1 = M2[3 * (i + 1) + k];
        x[k] = A * y0 + B * y1 + ((A * A * A - A) * m0 + (B * B * B - B) * m1) * h * h / 6.0;
        dx[k] = (y1 - y0) / h + (-(3.0 * A * A - 1.0) * m0 + (3.0 * B * B - 1.0) * m1) * h / 6.0;
    }
    ++evals;
}

/* L += the 8-point Gauss rule for the arc length over [a, c], term by term. */
static double add_arc(const curve *cv, double L, double a, double c) {
    for (int g = 0; g < 8; ++g) {
        double x[3], dx[3];
        spline_eval(cv, a + 0.5 * (cv->xg[g] + 1.0) * (c - a), x, dx);
        L += 0.5 * (c - a) * cv->wg[g] * ld_v3_norm(dx);
    }
    return L;
}

/* The spline and the arc lengths at the knots. */
static void curve_setup(curve *cv, const ld_beam *b) {
    cv->b = b;
    cv->n = b->npoints;
    spline_setup(cv);
    ld_beam_gauss(8, cv->xg, cv->wg);
    double L = 0.0;
    cv->arc[0] = 0.0;
    for (int i = 0; i + 1 < cv->n; ++i) {
        L = add_arc(cv, L, cv->sg[i], cv->sg[i + 1]);
        cv->arc[i + 1] = L;
    }
}

/* The arc length from the start to σ = s: the knots up to s, then the part of the next
 * interval (s beyond the last knot: the whole length). */
static double arc_to(const curve *cv, double s) {
    int lo = 0, hi = cv->n - 1; /* j: the knots 1 … n − 1 at or before s */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (cv->sg[mid] <= s)
            lo = mid;
        else
            hi = mid - 1;
    }
    int j = lo;
    double L = cv->arc[j];
    if (j + 1 < cv->n && cv->sg[j] < s) L = add_arc(cv, L, cv->sg[j], s);
    return L;
}

int ld_beam__place_curve(const ld_beam *b, double *q0, double *x0, double *qe0, double *w,
                         double *eta, double *len) {
    curve cv;
    int p = b->order, ne = b->nelem;
    double xi[LD_BEAM_MAX_NODES], wg[LD_BEAM_MAX_NODES];
    curve_setup(&cv, b);
    double end = cv.sg[b->npoints - 1], L = arc_to(&cv, end), s = 0.0;
    *len = L;
    ld_beam_gll(p, xi);
    ld_beam_gll_weights(p, xi, wg);
    for (int e = 0; e < ne; ++e)
        for (int j = 0; j <= p; ++j) {
            int k = e * p + j;
            double f = (e + 0.5 * (xi[j] + 1.0)) / ne, x[3], dx[3];
            for (int it = 0; it < 50; ++it) { /* σ of the arc length f L (Newton) */
                spline_eval(&cv, s, x, dx);
                double ds = (arc_to(&cv, s) - f * L) / ld_v3_norm(dx);
                s = fmin(fmax(s - ds, 0.0), end);
                if (fabs(ds) <= 1e-14 * end) break;
            }
            spline_eval(&cv, s, x, dx);
            if (ld_beam__frame(dx, b->normal, q0 + 4 * k)) return LD_EINVAL;
            memcpy(x0 + 3 * k, x, sizeof x);
            memcpy(qe0 + 4 * ((size_t)e * (size_t)(p + 1) + (size_t)j), q0 + 4 * k,
                   4 * sizeof(double));
            w[k] += 0.5 * (L / ne) * wg[j];
            eta[k] = f;
        }
    eta[0] = 0.0, eta[ne * p] = 1.0;
    return LD_OK;
}

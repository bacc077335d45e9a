/* The step-size controller of controller.h. */
#include "liedyn/controller.h"

#include <math.h>

void ld_ctrl_init(ld_ctrl *c, ld_ctrl_kind kind, int mu) {
    if (!c) return;
    c->kind = kind;
    c->mu = mu > 0 ? mu : 1;
    c->fac = 0.8;
    c->facmin = 0.2;
    c->facmax = 5.0;
    c->shrink_min = 0.1;
    c->rejected = 0;
    c->h_cap = INFINITY;
}

/* The step ratio of the I controller for the error err, at most facmax. */
static double ratio_i(const ld_ctrl *c, double err, double facmax) {
    double f = err > 0.0 ? c->fac * pow(err, -1.0 / (c->mu + 1.0)) : facmax;
    return fmin(facmax, fmax(c->facmin, f));
}

double ld_ctrl_accepted(ld_ctrl *c, double h, double err, double hp) {
    double hn;
    if (c->kind == LD_CTRL_MATLAB) {
        double tmp = 1.25 * pow(err, 1.0 / (c->mu + 1));
        hn = c->rejected ? h : tmp > 0.2 ? h / tmp : 5.0 * h;
    } else {
        double ratio = ratio_i(c, err, c->rejected ? 1.0 : c->facmax);
        hn = h * ratio;
        /* a step cut short to land on an end time says nothing against the proposed one */
        if (h < hp && ratio >= 1.0) hn = fmax(hn, hp);
        c->h_cap *= 1.25; /* a failed solve's cap relaxes gradually */
    }
    c->rejected = 0;
    return hn;
}

double ld_ctrl_rejected(ld_ctrl *c, double h, double err, int solve_failed) {
    double hn;
    if (c->kind == LD_CTRL_MATLAB) {
        int first = !c->rejected && !solve_failed && isfinite(err);
        hn = first ? h * fmax(c->shrink_min, 0.8 * pow(1.0 / err, 1.0 / (c->mu + 1))) : 0.5 * h;
    } else if (!solve_failed) {
        hn = h * ratio_i(c, err, 1.0);
    } else {
        /* halve, and cap the following steps at that size so that they do not grow straight
         * back into failure */
        hn = 0.5 * h;
        c->h_cap = hn;
    }
    c->rejected = 1;
    return hn;
}

double ld_ctrl_bound(const ld_ctrl *c, double h) {
    return fmin(h, c->h_cap);
}

/*
 * The search of repro_iftomm: for each problem and method, the step halved or the tolerance
 * divided by ten until the benchmark's precision levels are met within a CPU budget; the runs of
 * a problem's table and the queries on them (repro_iftomm.h).
 */
#include "repro_iftomm.h"

run *ri_find_run(problem *p, int k, double set) {
    for (int i = 0; i < p->nruns; ++i)
        if (p->runs[i].meth == k && fabs(p->runs[i].set - set) <= 1e-9 * set) return &p->runs[i];
    return NULL;
}

run *ri_get_run(problem *p, int k, double set) {
    run *r = ri_find_run(p, k, set);
    if (r) return r;
    if (p->nruns == MAX_RUNS) return NULL;
    r = &p->runs[p->nruns++];
    ri_do_run(p, k, set, 0.0, p->T, r);
    /* short runs: the least CPU time of repetitions that take 0.3 s together (timer noise) */
    double total = r->cpu;
    for (int rep = 0; !ri_quick && !r->status && total < 0.3 && rep < 50; ++rep) {
        run again;
        ri_do_run(p, k, set, 0.0, p->T, &again);
        total += again.cpu;
        if (!again.status) r->cpu = fmin(r->cpu, again.cpu);
        ri_run_free(&again);
    }
    r->err = ri_run_error(p, r, p->ref[meth_hem(k)], p->nrows);
    r->done = 1;
    fprintf(stderr, "repro_iftomm: %s %-9s %-9.4g %s err %.3e cpu %.2f s\n", p->tag,
            ri_meth_name[k], set, r->status ? "FAILED" : "ok", r->err, r->cpu);
    return r;
}

/* Run r ended ok with an error within level. */
static int meets(const run *r, double level) {
    return r && !r->status && r->err <= level;
}

/* The cheapest run of method k that meets level, or NULL. */
const run *ri_cheapest(const problem *p, int k, double level) {
    const run *b = NULL;
    for (int i = 0; i < p->nruns; ++i) {
        const run *r = &p->runs[i];
        if (r->meth == k && meets(r, level) && (!b || r->cpu < b->cpu)) b = r;
    }
    return b;
}

/* The run of method k with the smallest error (NULL if none ran to the end). */
const run *ri_best(const problem *p, int k) {
    const run *b = NULL;
    for (int i = 0; i < p->nruns; ++i) {
        const run *r = &p->runs[i];
        if (r->meth == k && !r->status && !isnan(r->err) && (!b || r->err < b->err)) b = r;
    }
    return b;
}

/* A fixed step h fits problem p: T/h whole, and out_dt/h whole or h/out_dt whole. */
static int step_fits(const problem *p, double h) {
    double a = p->T / h, b = p->out_dt / h, c = h / p->out_dt;
    return fabs(a - round(a)) < 1e-9 * a &&
           (fabs(b - round(b)) < 1e-9 * b || fabs(c - round(c)) < 1e-9 * c);
}

/* The setting `n` refinements finer than set: h/2ⁿ (fixed), tol/10ⁿ (adaptive). */
static double finer(int k, double set, int n) {
    return meth_fixed(k) ? set / (double)(1 << n) : set * pow(10.0, -n);
}

/* Predicted cost of a run n refinements finer than one that cost c. */
static double cost_of(int k, double c, int n) {
    return meth_fixed(k) ? c * (double)(1 << n) : c * pow(2.5, n);
}

const double ri_levels[2] = {1e-1, 1e-3};

static void coarsen(problem *p, int k, double level);

/* Halve (double) until both levels are met, within p->budget of CPU. Where the observed order of
 * the last two runs predicts that one halving will not reach 1e-3, several at once (then the
 * setting between is tried too, so that the cheapest is found to one halving). */
void ri_search(problem *p, int k) {
    const double set0 = meth_fixed(k) ? p->h0 : p->tol0;
    double spent = 0.0;
    run *r = ri_get_run(p, k, set0);
    if (!r) return;
    spent += r->cpu;
    /* coarser while the low level is met (steps: up to the output step) */
    double s = set0;
    for (int d = 0; d < 4 && meets(r, ri_levels[0]); ++d) {
        double sc = meth_fixed(k) ? 2.0 * s : 10.0 * s;
        if (meth_fixed(k) && (!step_fits(p, sc) || sc > p->T / 50.0)) break;
        if (!meth_fixed(k) && sc > 1e-2) break;
        run *rc = ri_get_run(p, k, sc);
        if (!rc) break;
        spent += rc->cpu;
        s = sc;
        r = rc;
    }
    /* finer until the high level is met */
    s = set0;
    r = ri_find_run(p, k, s);
    double eprev = DNAN;
    while (!meets(r, ri_levels[1])) {
        int n = 1;
        double e = r->err;
        if (!r->status && isfinite(e) && isfinite(eprev) && eprev > e && e > ri_levels[1]) {
            double ord = meth_fixed(k) ? log2(eprev / e) : log10(eprev / e);
            ord = fmin(fmax(ord, 0.5), 6.0);
            double need =
                log(e / (0.7 * ri_levels[1])) / (ord * (meth_fixed(k) ? log(2) : log(10)));
            n = (int)ceil(need);
            n = n < 1 ? 1 : n > 3 ? 3 : n;
        }
        double pred = cost_of(k, fmax(r->cpu, 1e-3), n);
        while (n > 1 && spent + pred > p->budget) pred = cost_of(k, fmax(r->cpu, 1e-3), --n);
        if (spent + pred > p->budget) break;
        if (!meth_fixed(k) && finer(k, s, n) < 1e-13) break;
        eprev = r->status ? DNAN : e;
        s = finer(k, s, n);
        run *rn = ri_get_run(p, k, s);
        if (!rn) break;
        spent += rn->cpu;
        if (meets(rn, ri_levels[1]) && n > 1) {
            double sb = meth_fixed(k) ? 2.0 * s : 10.0 * s;
            if (spent + 0.6 * rn->cpu <= p->budget) {
                run *rb = ri_get_run(p, k, sb);
                if (rb) spent += rb->cpu;
            }
        }
        r = rn;
        if (n > 1) eprev = DNAN; /* the next order estimate needs neighbours */
    }
    for (int l = 0; l < 2; ++l) coarsen(p, k, ri_levels[l]);
}

/* Coarser than the cheapest run that meets level while the coarser one meets it too (each is
 * cheaper than the last): the cheapest setting to one halving (one decade). */
static void coarsen(problem *p, int k, double level) {
    for (int n = 0; n < 8; ++n) {
        /* the coarsest setting that meets the level (CPU times are noisy; settings are not) */
        const run *c = NULL;
        for (int i = 0; i < p->nruns; ++i)
            if (p->runs[i].meth == k && meets(&p->runs[i], level) &&
                (!c || p->runs[i].set > c->set))
                c = &p->runs[i];
        if (!c) return;
        double sc = meth_fixed(k) ? 2.0 * c->set : 10.0 * c->set;
        if (meth_fixed(k) ? !step_fits(p, sc) || sc > p->T / 50.0 : sc > 1e-2) return;
        if (ri_find_run(p, k, sc)) return; /* known: it does not meet the level, or failed */
        if (!ri_get_run(p, k, sc)) return;
    }
}

/* Quick mode: one setting per method. */
void ri_quick_runs(problem *p, double h, double tol) {
    for (int k = 0; k < NMETH; ++k) ri_get_run(p, k, meth_fixed(k) ? h : tol);
}

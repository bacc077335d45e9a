/*
 * Checkpoints and restarts of `liedyn run`, and the signals that stop a run cleanly. The
 * integrator's checkpoint (ld_integ_save) carries the run's own counters as its caller data:
 * the output grid, the step index and the running maxima of the summary, so a restarted run
 * continues bit for bit and reports over the whole run.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "sim.h"

volatile sig_atomic_t sim_stop_signal = 0;

static void on_stop(int sig) {
    sim_stop_signal = sig;
}

void sim_catch_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGXFSZ, SIG_IGN);
}

/* The run's counters in a checkpoint (fixed layout). */
typedef struct run_blob {
    double t0, dt; /* the output grid t0 + n dt */
    int64_t n;
    sim_totals tot;
} run_blob;

static void fnv(uint64_t *h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; ++i) {
        *h ^= c[i];
        *h *= 1099511628211ull;
    }
}

static void fnv_str(uint64_t *h, const char *s) {
    fnv(h, s, strlen(s) + 1);
}

uint64_t model_tag(const ld_model *m, int formulation) {
    uint64_t h = 1469598103934665603ull;
    fnv(&h, &formulation, sizeof formulation);
    fnv(&h, m->gravity, sizeof m->gravity);
    for (int b = 0; b < m->nbodies; ++b) {
        fnv_str(&h, m->bodies[b].name);
        fnv(&h, &m->bodies[b].mass, sizeof(double));
        fnv(&h, m->bodies[b].inertia, sizeof m->bodies[b].inertia);
    }
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *J = &m->joints[j];
        int d[3] = {(int)J->kind, J->body1, J->body2};
        fnv_str(&h, J->name);
        fnv(&h, d, sizeof d);
    }
    for (int l = 0; l < m->nloads; ++l) {
        int d[2] = {(int)m->loads[l].kind, m->loads[l].body};
        fnv(&h, d, sizeof d);
        fnv(&h, m->loads[l].vec, sizeof m->loads[l].vec);
    }
    for (int r = 0; r < m->nrods; ++r) fnv(&h, &m->rods[r].n, sizeof m->rods[r].n);
    for (int e = 0; e < m->nelements; ++e) {
        const ld_element *el = &m->elements[e];
        int d[4] = {el->type, el->body1, el->body2, el->npar};
        fnv(&h, d, sizeof d);
        if (el->npar > 0) fnv(&h, el->par, (size_t)el->npar * sizeof(double));
    }
    return h;
}

int sim_checkpoint(sim *S) {
    run_blob b;
    memset(&b, 0, sizeof b);
    b.t0 = S->grid0;
    b.dt = S->dt;
    b.n = S->n;
    b.tot = S->tot;
    char msg[PATH_CAP + 128];
    if (ld_integ_save(S->it, S->ck_path, S->tag, &b, sizeof b, msg, sizeof msg) != LD_OK) {
        io_fail_msg(S, msg);
        return 4;
    }
    S->ck_written++;
    return 0;
}

/* "PATH: the checkpoint's NAME is V: WHY" (exit status 2). */
static int blob_fail(const char *path, const char *name, double v, const char *why) {
    return cli_error("%s: the checkpoint's %s is %.17g: %s", path, name, v, why);
}

/* v is NaN (none yet) or finite. */
static int nan_or_finite(double v) {
    return isnan(v) || isfinite(v);
}

/* The running maxima of the run: finite where a number is always there, NaN where "none" is
 * allowed, in range. 0 or 2 (message printed). */
static int check_totals(const sim *S, const sim_totals *T, const char *path) {
    if (!(T->cpu >= 0.0) || !isfinite(T->cpu))
        return blob_fail(path, "CPU time", T->cpu, "not a finite time >= 0");
    if (!(T->phimax >= 0.0) || !isfinite(T->phimax))
        return blob_fail(path, "max |Phi|", T->phimax, "not a finite value >= 0");
    if (!isfinite(T->phit)) return blob_fail(path, "time of max |Phi|", T->phit, "not finite");
    if (T->phirow < -1 || T->phirow >= S->s.m)
        return blob_fail(path, "constraint row of max |Phi|", T->phirow,
                         "not a row of this model (-1: none)");
    if (!(T->row_h >= 0.0) || !isfinite(T->row_h))
        return blob_fail(path, "last step size", T->row_h, "not a finite step >= 0");
    if (!(T->hmin > 0.0)) return blob_fail(path, "smallest step", T->hmin, "not positive");
    if (!(T->hmax >= 0.0) || !isfinite(T->hmax))
        return blob_fail(path, "largest step", T->hmax, "not a finite step >= 0");
    if (T->row_err < 0.0 || T->errmax < 0.0 || isnan(T->errmax))
        return blob_fail(path, "error estimate", T->row_err < 0.0 ? T->row_err : T->errmax,
                         "negative or not a number");
    const struct {
        const char *name;
        double v;
    } opt[] = {{"initial energy", T->e0},         {"max angle error", T->angmax},
               {"work of the loads", T->work},    {"last power", T->wp},
               {"time of the last power", T->wt}, {"energy scale", T->escale}};
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; ++i)
        if (!nan_or_finite(opt[i].v)) return blob_fail(path, opt[i].name, opt[i].v, "infinite");
    if (T->angmax < 0.0) return blob_fail(path, "max angle error", T->angmax, "negative");
    if (T->escale < 0.0) return blob_fail(path, "energy scale", T->escale, "negative");
    return 0;
}

/* The checkpoint's time and the run's counters suit this run: t in [t0, t1), the output grid
 * t0' + n dt with t0 <= t0' <= t, dt > 0 finite, 0 <= n <= the steps taken, and (fixed steps)
 * t0' + n dt within half a step of t. 0 or 2. */
static int check_blob(const sim *S, const run_blob *b, const char *path) {
    double t = ld_integ_t(S->it);
    if (!(t < S->t1))
        return cli_error("%s: the checkpoint is at t = %.10g, not before the end time %.10g", path,
                         t, S->t1);
    if (!(t >= S->t0))
        return cli_error("%s: the checkpoint is at t = %.10g, before the start time %.10g", path, t,
                         S->t0);
    if (!(b->t0 >= S->t0) || !(b->t0 <= t))
        return blob_fail(path, "output grid origin", b->t0,
                         "not between the run's start and the checkpoint's time");
    if (!(b->dt > 0.0) || !isfinite(b->dt))
        return blob_fail(path, "output step", b->dt, "not a positive finite step");
    ld_integ_stats st;
    ld_integ_get_stats(S->it, &st);
    if (b->n < 0 || b->n > (int64_t)st.steps)
        return cli_error("%s: the checkpoint's output step index is %lld: not in 0 ... %ld (the "
                         "steps it counts)",
                         path, (long long)b->n, st.steps);
    if (!S->o.adaptive && !(fabs(b->t0 + (double)b->n * b->dt - t) <= 0.5 * b->dt))
        return cli_error("%s: the checkpoint's output grid (%.17g + %lld x %.17g) does not reach "
                         "its time t = %.17g",
                         path, b->t0, (long long)b->n, b->dt, t);
    return check_totals(S, &b->tot, path);
}

int sim_restart(sim *S, const char *path) {
    run_blob b;
    char msg[PATH_CAP + 128];
    if (ld_integ_load(S->it, path, S->tag, &b, sizeof b, msg, sizeof msg) != LD_OK)
        return cli_error("%s", msg);
    if (check_blob(S, &b, path)) return 2;
    double t = ld_integ_t(S->it);
    /* the same output grid if the step is the same, else a new one from the restart time */
    if (b.dt == S->dt && b.t0 == S->grid0) {
        S->n = (long)b.n;
    } else {
        S->grid0 = t;
        S->n = 0;
    }
    S->restarted = 1;
    S->tot = b.tot;
    return 0;
}

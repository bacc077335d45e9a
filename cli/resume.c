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

int sim_restart(sim *S, const char *path) {
    run_blob b;
    char msg[PATH_CAP + 128];
    if (ld_integ_load(S->it, path, S->tag, &b, sizeof b, msg, sizeof msg) != LD_OK)
        return cli_error("%s", msg);
    double t = ld_integ_t(S->it);
    if (!(t < S->t1))
        return cli_error("%s: the checkpoint is at t = %.10g, not before the end time %.10g", path,
                         t, S->t1);
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

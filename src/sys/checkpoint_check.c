/*
 * What a checkpoint holds, checked before it replaces an integrator's state (checkpoint.c):
 * a file with a valid checksum can still carry values no run writes — a step count of 2^63, a
 * time of −inf, a negative step, a NaN in q — or come from a run with other method parameters
 * (ρ∞, α, the tolerances), whose continuation would not be the run it claims to continue.
 * Every field is checked as the model reader checks a model: finite, in range, consistent.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "checkpoint_impl.h"
#include "liedyn/liedyn.h"

/* An option of ld_integ_options that defines the run's arithmetic: its name (the model
 * file's key where it has one), where it is, and how it is shown. */
typedef enum ck_kind { CK_REAL, CK_INT, CK_LA } ck_kind;
typedef struct ck_option {
    const char *name;
    size_t offset;
    ck_kind kind;
} ck_option;

#define OPT(f, k)                                                                                  \
    { #f, offsetof(ld_integ_options, f), k }
static const ck_option common[LD_CK_NCOMMON] = {
    OPT(newton_atol, CK_REAL), OPT(newton_rtol, CK_REAL),
    OPT(max_iter, CK_INT),     OPT(la, CK_LA),
    OPT(adaptive, CK_INT),     OPT(error_atol, CK_REAL),
    OPT(error_rtol, CK_REAL),  OPT(fac, CK_REAL),
    OPT(facmin, CK_REAL),      OPT(facmax, CK_REAL),
    OPT(h_min, CK_REAL),       OPT(h_max, CK_REAL),
    OPT(project, CK_INT),      OPT(newton_reuse, CK_INT),
};
#undef OPT

/* The value of option d of o as a double (ints and enums are exact in one). */
static double option_value(const ld_integ_options *o, const ck_option *d) {
    const char *p = (const char *)o + d->offset;
    if (d->kind == CK_REAL) {
        double v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    if (d->kind == CK_LA) {
        ld_la_kind k;
        memcpy(&k, p, sizeof k);
        return (double)k;
    }
    int v;
    memcpy(&v, p, sizeof v);
    return (double)v;
}

/* The method's own parameters stored (at most LD_CK_NOWN). */
static int own_count(const ld_integ *it) {
    int n = it->meth->info.nparams;
    return n < LD_CK_NOWN ? n : LD_CK_NOWN;
}

void ld_ck__method_of(const ld_integ *it, ck_scalars *c) {
    for (int i = 0; i < LD_CK_NCOMMON; ++i) c->common[i] = option_value(&it->o, &common[i]);
    for (int i = 0; i < own_count(it); ++i)
        c->own[i] = ld_method_param_value(&it->o, &it->meth->info.params[i]);
}

/* v as text: the shortest of %.15g … %.17g that reads back as v; a solver kind by its name. */
static void show(char *buf, size_t cap, double v, ck_kind kind) {
    if (kind == CK_LA && (v == 0.0 || v == 1.0 || v == 2.0)) {
        snprintf(buf, cap, "%s", ld_la_kind_name((ld_la_kind)(int)v));
        return;
    }
    for (int prec = 15; prec <= 17; ++prec) {
        snprintf(buf, cap, "%.*g", prec, v);
        double back;
        if (sscanf(buf, "%lf", &back) == 1 && (back == v || (isnan(back) && isnan(v)))) return;
    }
}

static int same(double a, double b) {
    return a == b || (isnan(a) && isnan(b));
}

/* "PATH: written with NAME = A, this run uses NAME = B". */
static int differs(const char *path, const char *name, double was, double now, ck_kind kind,
                   char *msg, size_t cap) {
    char a[64], b[64];
    show(a, sizeof a, was, kind);
    show(b, sizeof b, now, kind);
    if (msg && cap)
        snprintf(msg, cap,
                 "%s: written with %s = %s, this run uses %s = %s (a restart continues the run "
                 "only with the method parameters that wrote it)",
                 path, name, a, name, b);
    return LD_EINVAL;
}

static int check_method(const ld_integ *it, const ck_scalars *c, const char *path, char *msg,
                        size_t cap) {
    ck_scalars mine;
    ld_ck__method_of(it, &mine);
    const ld_method_info *info = &it->meth->info;
    for (int i = 0; i < own_count(it); ++i)
        if (!same(c->own[i], mine.own[i]))
            return differs(path, info->params[i].key, c->own[i], mine.own[i], CK_REAL, msg, cap);
    for (int i = 0; i < LD_CK_NCOMMON; ++i)
        if (!same(c->common[i], mine.common[i]))
            return differs(path, common[i].name, c->common[i], mine.common[i], common[i].kind, msg,
                           cap);
    return LD_OK;
}

/* "PATH: the checkpoint's NAME is VALUE: WHY". */
static int bad_value(const char *path, const char *name, double v, const char *why, char *msg,
                     size_t cap) {
    char a[64];
    show(a, sizeof a, v, CK_REAL);
    if (msg && cap) snprintf(msg, cap, "%s: the checkpoint's %s is %s: %s", path, name, a, why);
    return LD_EINVAL;
}

static int bad_count(const char *path, const char *name, long long v, const char *why, char *msg,
                     size_t cap) {
    if (msg && cap) snprintf(msg, cap, "%s: the checkpoint's %s is %lld: %s", path, name, v, why);
    return LD_EINVAL;
}

/* The time and the controller's step sizes. */
static int check_times(const ck_scalars *c, const char *path, char *msg, size_t cap) {
    if (!isfinite(c->t)) return bad_value(path, "time t", c->t, "not finite", msg, cap);
    if (!(c->h_next > 0.0) || !isfinite(c->h_next))
        return bad_value(path, "next step size", c->h_next, "not a positive finite step", msg, cap);
    if (!(c->last_h >= 0.0) || !isfinite(c->last_h))
        return bad_value(path, "last step size", c->last_h, "not a finite step >= 0", msg, cap);
    if (c->last_err < 0.0)
        return bad_value(path, "last error estimate", c->last_err, "negative", msg, cap);
    if (!(c->h_cap > 0.0))
        return bad_value(path, "step-size cap", c->h_cap, "not positive (+inf: none)", msg, cap);
    if (c->after_reject != 0 && c->after_reject != 1)
        return bad_count(path, "rejection flag", c->after_reject, "not 0 or 1", msg, cap);
    return LD_OK;
}

/* The statistics: each count in 0 … 2^53, the parts within their totals. */
static int check_counts(const ck_scalars *c, const char *path, char *msg, size_t cap) {
    const struct {
        const char *name;
        int64_t v;
    } n[] = {{"step count", c->steps},
             {"rejected steps", c->rejected},
             {"Newton iterations", c->newton_iterations},
             {"factorizations", c->factorizations},
             {"round-off stops", c->roundoff_stops},
             {"error-test failures", c->error_test_failures},
             {"solve failures", c->newton_failures},
             {"last step's iterations", c->last_iterations}};
    for (size_t i = 0; i < sizeof n / sizeof n[0]; ++i)
        if (n[i].v < 0 || n[i].v > LD_CK_COUNT_MAX)
            return bad_count(path, n[i].name, (long long)n[i].v, "outside 0 ... 2^53", msg, cap);
    if (c->error_test_failures + c->newton_failures > c->rejected)
        return bad_count(path, "rejected steps", (long long)c->rejected,
                         "fewer than its error-test and solve failures", msg, cap);
    if (c->roundoff_stops > c->newton_iterations)
        return bad_count(path, "round-off stops", (long long)c->roundoff_stops,
                         "more than its Newton iterations", msg, cap);
    if (c->last_iterations > c->newton_iterations)
        return bad_count(path, "last step's iterations", (long long)c->last_iterations,
                         "more than all Newton iterations", msg, cap);
    return LD_OK;
}

/* q, v, v̇, λ and the method's state: every entry finite — except that the methods that run
 * a model from its data (model_only: the splitting methods, moreau) leave v̇ and λ NaN, "not
 * computed", after a step. */
static int check_state(const ld_integ *it, const double *state, const char *path, char *msg,
                       size_t cap) {
    const char *names[5] = {"configuration q", "velocity v", "acceleration v'", "multiplier",
                            "method state"};
    size_t len[5] = {(size_t)it->s->nq, (size_t)it->k, (size_t)it->k, (size_t)it->m, it->nkeep};
    for (int i = 0; i < 5; ++i) {
        int nan_ok = (i == 2 || i == 3) && it->meth->info.model_only;
        for (size_t j = 0; j < len[i]; ++j)
            if (!isfinite(state[j]) && !(nan_ok && isnan(state[j]))) {
                char name[64];
                snprintf(name, sizeof name, "%s entry %zu", names[i], j);
                return bad_value(path, name, state[j], "not finite", msg, cap);
            }
        state += len[i];
    }
    return LD_OK;
}

int ld_ck__check(const ld_integ *it, const ck_scalars *c, const double *state, const char *path,
                 char *msg, size_t cap) {
    int rc = check_method(it, c, path, msg, cap);
    if (!rc) rc = check_times(c, path, msg, cap);
    if (!rc) rc = check_counts(c, path, msg, cap);
    if (!rc) rc = check_state(it, state, path, msg, cap);
    return rc;
}

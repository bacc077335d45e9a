/*
 * Internal: the scalar part of a checkpoint (checkpoint.c reads and writes it) and the checks
 * of what a checkpoint holds (checkpoint_check.c).
 */
#ifndef LIEDYN_CHECKPOINT_IMPL_H
#define LIEDYN_CHECKPOINT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "integ_impl.h"

/* The options that define a run's arithmetic besides the method's own parameters
 * (checkpoint_check.c lists them), and room for the method's own parameters. */
#define LD_CK_NCOMMON 14
#define LD_CK_NOWN    8

/* A count in a checkpoint is at most 2^53: exact in a double, far from overflow. */
#define LD_CK_COUNT_MAX 9007199254740992ll

typedef struct ck_scalars {
    double t, h_next, last_h, last_err, h_cap;
    int32_t after_reject, pad;
    int64_t steps, rejected, newton_iterations, factorizations, roundoff_stops;
    int32_t last_iterations, pad2;
    int64_t error_test_failures, newton_failures;
    double common[LD_CK_NCOMMON]; /* the options of ld_ck__method_of, in its order */
    double own[LD_CK_NOWN];       /* the method's parameters, in its descriptor's order */
} ck_scalars;

/* Fill c->common and c->own from the integrator's options. */
void ld_ck__method_of(const ld_integ *it, ck_scalars *c);

/* The scalars and the state vectors read from a checkpoint (state: q, v, v̇, λ, the method's
 * carried state, in file order) suit the integrator: the method parameters equal the run's,
 * times and step sizes are finite and in range, the counts are in 0 … LD_CK_COUNT_MAX and
 * consistent, the state is finite. LD_OK, or LD_EINVAL with "PATH: reason" in msg. */
int ld_ck__check(const ld_integ *it, const ck_scalars *c, const double *state, const char *path,
                 char *msg, size_t cap);

#endif

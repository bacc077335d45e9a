/*
 * Internal to src/sys: the solve for consistent accelerations and multipliers
 * [M Bᵀ; B 0] [v̇; λ] = [−g; −z] (ld_sys_initial_accel, system.c) with its arrays and solver
 * kept in a workspace, so that a caller that solves again and again (the restart at every
 * sample of a controller, integ_sample.c) allocates once: every later solve of the same system
 * allocates nothing, unless the sparse solver must pivot anew (KLU, when its kept pivot order
 * no longer serves).
 */
#ifndef LIEDYN_SRC_SYS_ACCEL_H
#define LIEDYN_SRC_SYS_ACCEL_H

#include <stddef.h>

#include "liedyn/system.h"

typedef struct ld_sys_accel_ws ld_sys_accel_ws;

/* A workspace for the solves of s (dense or sparse as ld_sys_initial_accel chooses), or NULL
 * with "out of memory: N bytes for …" in msg (cap bytes; may be NULL). */
ld_sys_accel_ws *ld_sys_accel_ws_new(const ld_system *s, char *msg, size_t cap);
void ld_sys_accel_ws_free(ld_sys_accel_ws *w);
/* ld_sys_initial_accel_msg with the workspace w of s: the same statuses and messages. */
int ld_sys_initial_accel_ws(const ld_system *s, ld_sys_accel_ws *w, double t, const double *q,
                            const double *v, double *vdot, double *lambda, char *msg, size_t cap);

#endif

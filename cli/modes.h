/* Internal to the liedyn tool: the Campbell diagram of `liedyn modes --campbell`
 * (cli/modes_campbell.c). */
#ifndef LIEDYN_CLI_MODES_H
#define LIEDYN_CLI_MODES_H

#include "liedyn/model.h"
#include "liedyn/system.h"

typedef struct campbell_in {
    const char *path;      /* the model file (messages) */
    const char *csv, *png; /* outputs, or NULL */
    const ld_model *m;     /* the model, compiled into s */
    const ld_system *s;
    const double *q, *v1; /* the initial state: its configuration and velocities */
    double from, to;      /* the speeds (rad/s of the fastest-turning body) */
    int npts, count;      /* speeds, modes to follow (≤ 0: all) */
} campbell_in;

/* Sweep, print the table, write the CSV and the PNG. The exit code: 0, 2 (the model does not
 * turn), 3 (no linearization or modes), 4 (output). */
int modes_campbell(const campbell_in *in);

#endif

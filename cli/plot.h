/* Internal to the liedyn tool: the PNG of `liedyn run --plot` (cli/plot.c). */
#ifndef LIEDYN_CLI_PLOT_H
#define LIEDYN_CLI_PLOT_H

#include "liedyn/model.h"

typedef struct plot_input {
    const char *csv;          /* a CSV of every column (the names below, in order) */
    const char *png;          /* the file to write */
    const char *const *names; /* the column names (ncols) */
    int ncols;
    const ld_model *m; /* its bodies (the default) and output.plot */
    const char *what;  /* --plot-what, or NULL: the model's, else automatic */
    const char *title; /* model, integrator, formulation, step */
} plot_input;

/* Check the quantities (--plot-what, else the model's) before the run: 0 or 2 (message). */
int plot_check(const plot_input *in);
/* Draw the PNG. 0, or 2 with one message printed (unknown quantity, no finite value,
 * gnuplot failed: its first line of complaint). */
int plot_run(const plot_input *in);

#endif

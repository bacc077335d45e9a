/*
 * Internal to the liedyn tool: the options shared by `liedyn run` and `liedyn convergence`
 * (cli/args.c), and the simulation they both drive (cli/sim.c).
 */
#ifndef LIEDYN_CLI_SIM_H
#define LIEDYN_CLI_SIM_H

#include <stdio.h>

#include "liedyn/integrator.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define MAX_DT_LIST 32
#define PATH_CAP    4096

enum {
    CMD_RUN = 1,
    CMD_CONV = 2,
    CMD_BOTH = 3,
};

typedef struct run_args {
    const char *cmd;   /* "run" or "convergence" (message prefix) */
    const char *model; /* the MODEL argument */
    int integ, form, la;
    double dt, t_end, rho_inf, alpha, atol, rtol; /* NAN: the model's */
    double fac, facmin, facmax;                   /* NAN: the model's */
    int max_iter, every;                          /* 0: the model's */
    int adaptive;                                 /* --adaptive given */
    int project;                                  /* --project given */
    const char *out, *vtk, *plot, *ref;
    int json, quiet;
    int ndt;
    double dts[MAX_DT_LIST];
} run_args;

typedef struct sim {
    /* configuration */
    const ld_model *m;
    const char *path; /* the model file (messages) */
    const char *cmd;
    ld_formulation form;
    ld_integ_options o;
    double t0, t1, dt;
    int every;
    FILE *csv;           /* optional */
    const char *vtk_dir; /* optional */
    char base[LD_NAME_MAX];
    int progress;
    /* run time */
    ld_system s;
    int compiled;
    double *q0, *v0, *phi;
    int *exact; /* per body: the model prescribes its rotation */
    ld_integ *it;
    FILE *series;
    long vtk_files;
    double last_row_t;
    int rows;
    /* results */
    int status; /* 0 or the status of the failing advance */
    char msg[320];
    double t, cpu, e0, e1, phimax, angmax;
    int est;                   /* the method estimates its error: h, error_estimate columns */
    double row_h, row_err;     /* the last step's size and estimate (for the row) */
    double hmin, hmax, errmax; /* over the accepted steps */
    int any_exact, io_error;
    char io_msg[PATH_CAP + 128];
    ld_integ_stats st;
    double *bx, *bq, *bw, *bv; /* final per-body state: 3, 4, 3, 3 per body */
} sim;

/* Parse argv for command cmds (CMD_RUN or CMD_CONV): 0, 1 (help printed) or 2 (message
 * printed). */
int parse_args(int argc, char **argv, int cmds, run_args *a);
/* Find and load the model and apply the overrides of a to its integrator block; *method
 * receives the integrator. 0, or 2 with a message printed and nothing to free. */
int load_model(const run_args *a, char *path, size_t cap, ld_model *m, int *method);
/* A file-name-safe base name: the model's name, else the file's without .yaml. */
void model_base(const ld_model *m, const char *path, char *out, size_t cap);
/* Names by index (for lists in messages). */
const char *integ_name_i(int i);
const char *form_name_i(int i);
/* Process CPU time and monotonic wall time, s. */
double cpu_seconds(void);
double wall_seconds(void);
/* Release what sim_setup allocated (idempotent). */
void sim_free(sim *S);
/* Compile, create and initialize: 0, or 2 (message printed; sim_free cleans up). */
int sim_setup(sim *S);
/* Step from t0 to t1 writing rows; 0, or 3 when a step failed (S->msg says why). */
int sim_run(sim *S);
/* A sim from the model's (overridden) integrator block. */
void sim_init(sim *S, const ld_model *m, const char *path, const char *cmd, int method, int la,
              int project);
/* CSV header line; output failures are recorded with io_fail. */
void csv_header(sim *S);
void io_fail(sim *S, const char *what, const char *name);
/* JSON values on stdout: an escaped string, a number (null if not finite), an array. */
void json_str(const char *s);
void json_num(double v);
void json_vec(const double *v, int n);
/* Total energy (NaN if the model has none) and max |Φ| (0 without constraints). */
double state_energy(const sim *S, double t, const double *q, const double *v);
double state_phi(const sim *S, double t, const double *q);
/* A regular file exists at p. */
int is_file(const char *p);

#endif

/*
 * Internal to the liedyn tool: the options shared by `liedyn run` and `liedyn convergence`
 * (cli/args.c), and the simulation they both drive (cli/sim.c).
 */
#ifndef LIEDYN_CLI_SIM_H
#define LIEDYN_CLI_SIM_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "liedyn/integrator.h"
#include "liedyn/model.h"
#include "liedyn/output.h"
#include "liedyn/runcheck.h"
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
    double dt, t_end, atol, rtol;                            /* NAN: the model's */
    double newton_atol, newton_rtol, error_atol, error_rtol; /* NAN: the model's */
    double out_dt;                                           /* NAN: the model's */
    const char *columns, *plot_what;                         /* NULL: all, the default plot */
    ld_run_spec params;         /* the methods' parameters given (params, nparams only) */
    double fac, facmin, facmax; /* NAN: the model's */
    int max_iter, every;        /* 0: the model's */
    int adaptive;               /* --adaptive given: 1, --no-adaptive: -1, neither: 0 */
    int newton_reuse;           /* 1 + the ld_newton_reuse of --newton-reuse [on|off|auto] or
                                 * --no-newton-reuse; 0: neither given */
    int project;                /* --project: 1, --no-project: -1, neither: 0 */
    double constraint_tol;      /* --constraint-tol (NAN: the model's default; 0: no check) */
    const char *out, *vtk, *plot, *ref;
    const char *html;     /* --html FILE */
    const char *contacts; /* --contacts FILE.csv */
    double overlap_tol;   /* --overlap-tol (NAN: the default; 0: no check) */
    long frames;          /* --frames N: output times of --html and --vtk (0: the default) */
    const char *checkpoint, *restart; /* --checkpoint FILE, --restart FILE */
    double checkpoint_every;          /* NAN: only at the end and when stopped */
    long max_steps;                   /* 0: no limit */
    int json, quiet;
    int jobs; /* convergence: worker processes (0: one per core) */
    int ndt;
    double dts[MAX_DT_LIST];
} run_args;

/* What a run accumulates over its steps; a checkpoint carries it, so a restarted run reports
 * over the whole run. */
typedef struct sim_totals {
    double cpu, e0;            /* CPU seconds in the steps, the initial energy */
    double phimax, angmax;     /* max |Φ| and max angle error */
    double phit;               /* the time of phimax */
    double row_h, row_err;     /* the last step's size and estimate (for the row) */
    double hmin, hmax, errmax; /* over the accepted steps */
    int32_t phirow, pad;       /* the constraint row of phimax (-1: none) */
    double work, wp, wt;       /* the loads' and drivers' work W, the power at wt (the last
                                * state measured; NaN: none yet) */
    double escale;             /* the energy scale (ld_runcheck; NaN: no energy) */
} sim_totals;

typedef struct sim {
    /* configuration */
    const ld_model *m;
    const char *path; /* the model file (messages) */
    const char *cmd;
    ld_formulation form;
    ld_integ_options o;
    double t0, t1, dt;
    int every;        /* a row every K-th step (0: chosen by sim_run from the run's size) */
    double out_dt;    /* > 0: rows at t0 + j out_dt by dense output instead */
    ld_out_csv *csv;  /* optional: the chosen columns (--out) */
    ld_out_csv *pcsv; /* optional: every column (the data of --plot) */
    char **names;     /* the names of all the columns of a row (ncols) */
    int ncols;
    ld_out_vtk *vtk;              /* optional: the VTK files */
    double vtk_spacing, vtk_next; /* VTK files at least vtk_spacing apart (and the last) */
    ld_out_html *html;            /* --html: the frames recorded (optional) */
    const char *ck_path;          /* checkpoint file (optional) */
    double ck_every;              /* interval of checkpoints (NAN: at the end and when stopped) */
    long max_steps;               /* stop after this many steps of this invocation (0: no limit) */
    uint64_t tag;                 /* the model's tag in checkpoints */
    char base[LD_NAME_MAX];
    int progress;
    /* run time */
    ld_system s;
    int compiled;
    double *q0, *v0, *phi;
    int *exact; /* per body: the model prescribes its rotation */
    ld_integ *it;
    double last_row_t;
    long out_j;           /* dense output: the index of the next output time */
    double ta;            /* dense output: the time of the previous step end */
    double wa;            /* dense output: the work W at ta */
    double *qa, *va, *la; /* dense output: its state (nq, k, m) */
    double *qi, *vi, *li; /* dense output: the interpolated state */
    int rows;
    double grid0;    /* origin of the output grid grid0 + n dt (t0, or a restart time) */
    long n;          /* steps taken on the output grid */
    int restarted;   /* the state and the running maxima come from a checkpoint */
    double ck_next;  /* time of the next periodic checkpoint */
    long ck_written; /* checkpoints written */
    /* results */
    int status;  /* 0 or the status of the failing advance */
    int stopped; /* the run stopped early: the signal number, or -1 for --max-steps */
    /* The drift checks (liedyn run --constraint-tol; ld_runcheck): a step whose max |Phi|
     * exceeds phi_tol, or whose velocities leave their constraints, ends the run with drifted
     * set; phi_tol 0: no check. chk: the checks' state over this invocation (its velocity
     * residual, the energy scale); tot the maxima over the whole run. */
    double phi_tol;
    int drifted;
    ld_runcheck chk;
    /* Contact (a model with contact and a method that treats it): the last step's contacts
     * (cp, ncp of them; room for cpcap), their CSV (--contacts), the statistics after the
     * last step, and the overlap check: the largest overlap of two shapes measured at a step's
     * end (ov_max, at ov_t between bodies ov_b1, ov_b2, −1 the ground); a step whose overlap
     * exceeds ov_tol (> 0) ends the run with overlapped set. */
    int has_contact;
    ld_contact_point *cp;
    int ncp, cpcap;
    ld_out_contacts *ccsv;
    ld_contact_stats cst;
    double ov_tol, ov_max, ov_t;
    int ov_b1, ov_b2, overlapped;
    char msg[320];
    char warning[640]; /* "" or a warning about the run's meaning (printed on stderr too) */
    double t, e1;
    sim_totals tot; /* over the whole run (carried by checkpoints) */
    int est;        /* the method estimates its error: h, error_estimate columns */
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
/* Step from t0 (or the restart point) to t1 writing rows; 0, 3 when a step failed (S->msg
 * says why), 4 when output could not be written (S->io_msg), 5 when stopped early
 * (S->stopped; a checkpoint is written when S->ck_path is set), 6 when the constraint residual
 * exceeded S->phi_tol (S->drifted) or two shapes overlapped by more than S->ov_tol at a step's
 * end (S->overlapped; the run ends at that step, its row written). */
int sim_run(sim *S);
/* Continue from a checkpoint file: the state, step counts and running maxima of the run that
 * wrote it. 0, or 2 (message printed). */
int sim_restart(sim *S, const char *path);
/* Write a checkpoint of the current state to S->ck_path. 0, or 4 (S->io_msg set). */
int sim_checkpoint(sim *S);
/* A 64-bit tag of the model's bodies, joints, loads, rods and elements (the identity checked when a
 * checkpoint is read). */
uint64_t model_tag(const ld_model *m, int formulation);
/* Set by SIGINT/SIGTERM: the signal number (the run stops after the current step). */
extern volatile sig_atomic_t sim_stop_signal;
/* Route SIGINT and SIGTERM to sim_stop_signal and ignore SIGXFSZ (a file-size limit then
 * fails the write instead of killing the process). */
void sim_catch_signals(void);
/* A sim from the model's (overridden) integrator block. */
void sim_init(sim *S, const ld_model *m, const char *path, const char *cmd, int method, int la,
              int project);
/* The names of all the columns (S->names) and a check of list as for --columns (NULL: all).
 * 0 or 2 (message printed). */
int csv_columns(sim *S, const char *list);
/* Open a CSV writer of the run's rows at path (columns: NULL for all) into *w. 0, or -1 with
 * the reason in why. */
int csv_open(sim *S, ld_out_csv **w, const char *path, const char *columns, char *why, size_t cap);
/* Close the CSV and VTK writers (the series file rewritten); failures are recorded with
 * io_fail_msg. The writers stay for their counts until sim_free. */
void outputs_close(sim *S);
void io_fail(sim *S, const char *what, const char *name);
void io_fail_msg(sim *S, const char *msg);
/* io_fail_msg of "DOING: out of memory: N bytes for WHAT" (the last refusal, oom.h). */
void io_fail_oom(sim *S, const char *doing);
/* JSON values on stdout (strings: json_str in cli.h): a number (null if not finite), an array. */
void json_num(double v);
void json_vec(const double *v, int n);
/* The overlap check's default tolerance: 1e-6 times the smallest colliding shape's size (a
 * sphere's or capsule's radius, a box's shortest half edge), 1e-6 m without one. */
double overlap_tol_default(const ld_model *m);
/* Total energy (NaN if the model has none) and max |Φ| (0 without constraints). */
double state_energy(const sim *S, double t, const double *q, const double *v);
double state_phi(const sim *S, double t, const double *q);
/* A regular file exists at p. */
int is_file(const char *p);

#endif

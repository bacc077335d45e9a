/*
 * Internal to repro_iftomm: the methods, the problems and their runs, and the functions the
 * program's parts share — one run (repro_iftomm_run.c), the search (repro_iftomm_search.c), the
 * references (repro_iftomm_ref.c), the models' set-up (repro_iftomm_setup.c), the report
 * (repro_iftomm_report.c), the five problems (repro_iftomm_problems.c), main (repro_iftomm.c).
 */
#ifndef LIEDYN_REPRO_IFTOMM_H
#define LIEDYN_REPRO_IFTOMM_H

/* the whole program is POSIX: fork, waitpid, open_memstream */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "liedyn/liedyn.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif

#define PI   3.14159265358979323846
#define DNAN ((double)NAN)

/* ------------------------------------------------------------------ methods */

enum { M_GENALPHA = 0, M_HHT, M_HEM5, M_HEM5P, NMETH };
/* The methods' names in the tables and their descriptions in the report. */
extern const char *ri_meth_name[NMETH];
extern const char *ri_meth_desc[NMETH];
/* Method k runs with fixed steps h (genalpha, hht), else with step-size control at tol. */
static inline int meth_fixed(int k) {
    return k == M_GENALPHA || k == M_HHT;
}
/* Method k is one of the hem5 variants (measured against ref[1]). */
static inline int meth_hem(int k) {
    return k == M_HEM5 || k == M_HEM5P;
}

/* ------------------------------------------------------------------ problems */

enum { P_A01 = 0, P_A02, P_A03, P_A04, P_A05, NPROB };
#define MAX_RUNS 48
#define NANG     7

typedef struct run {
    int meth;
    double set; /* h (fixed) or tol (adaptive) */
    double rho_inf;
    int status;
    double t_end;
    char msg[240];
    double cpu;
    long steps, rejected, newton;
    int nrows;       /* rows reached */
    double *rows;    /* nrows_max × ncomp: the measured quantity */
    double *ebal;    /* nrows_max: the energy balance E − E0 − W + D (J) */
    double ebal_max; /* max |balance| / escale */
    double phis, phij, phio;
    double err; /* against the reference of its method (NaN: none) */
    int done;
} run;

typedef struct problem {
    int id;
    const char *tag, *model, *title, *quantity, *unit;
    int ncomp;
    double T, out_dt, h0, tol0, budget;
    int nrows; /* output rows after t = 0 */
    int err_final_only;
    ld_model m;
    /* the reference point (A01, A02, A04): body and body-frame offset */
    int pbody;
    double pp[3];
    int pcomp; /* components of the point reported (2: x, y; 3: x, y, z) */
    /* A03 */
    int ang_body[NANG];
    double tau;
    double ts_ref[NANG];
    /* A05: the dampers */
    int nd, d_b[2][2];
    double d_p[2][2][3], d_c[2];
    int slider;
    /* energy */
    double escale;
    const char *escale_desc;
    /* references: ref[0] for genalpha and hht, ref[1] for hem5 (nrows × ncomp) */
    double *ref[2];
    char ref_desc[2][320];
    double ref_cross; /* max difference of the two references (NaN: one reference) */
    int redundant, nrows_sys;
    /* our own check of the joints (every row as written): per joint the bodies, the joint point
     * in each body's frame, the axis in each body's frame; gap/axis: which parts apply */
    int nj;
    int (*jb)[2];
    double (*jp)[2][3], (*ja)[2][3];
    int *jgap, *jaxis;
    run runs[MAX_RUNS];
    int nruns;
    int bad; /* a run that had to succeed failed */
} problem;

/* ------------------------------------------------------------------ the program's state */

extern int ri_quick;          /* REPRO_QUICK: short end times, one setting per method */
extern FILE *ri_out;          /* the report of the problem being run (stdout or a part file) */
extern const char *ri_outdir; /* where the .dat and .gp files go */

/* The benchmark's precision levels, low and high. */
extern const double ri_levels[2];

/* ------------------------------------------------------------------ one run (run.c) */

/* Integrate problem p with method k at setting set (h or tol) to T (≤ p->T), a row every out_dt;
 * rho_inf > 0 overrides genalpha's. Fills r (its rows and ebal allocated: ri_run_free). */
void ri_do_run(problem *p, int k, double set, double rho_inf, double T, run *r);
/* Release the rows of r (r stays valid, without rows). */
void ri_run_free(run *r);
/* Error of run r against reference ref (rows × ncomp): the largest |difference| over the rows
 * (A03: at the last row only). NaN when the run did not reach the end. */
double ri_run_error(const problem *p, const run *r, const double *ref, int nrows);

/* ------------------------------------------------------------------ the search (search.c) */

/* The run of method k at setting set in p's table, or NULL. */
run *ri_find_run(problem *p, int k, double set);
/* That run, made and measured (against its method's reference) if not yet in the table; NULL
 * when the table is full. */
run *ri_get_run(problem *p, int k, double set);
/* The cheapest run of method k that meets level, or NULL. */
const run *ri_cheapest(const problem *p, int k, double level);
/* The run of method k with the smallest error (NULL if none ran to the end). */
const run *ri_best(const problem *p, int k);
/* Refine (coarsen) method k's setting until both levels are met, within p->budget of CPU. */
void ri_search(problem *p, int k);
/* Quick mode: one setting per method (h for the fixed steps, tol for hem5). */
void ri_quick_runs(problem *p, double h, double tol);

/* ------------------------------------------------------------------ references (ref.c) */

/* P1(t) of A01's pendulum of length L under gravity g, exactly. */
void ri_a01_exact(double t, double g, double L, double P[2]);
/* The Test Set's seven angles of A03 into v; 0, or 1 if the file cannot be read in full. */
int ri_read_andrews_reference(double v[NANG]);
/* ref[which] := the rows of r (zeros if r failed), described by desc. */
void ri_set_ref(problem *p, int which, const run *r, const char *desc);
/* A reference run outside the search table into r (its rows become ref[which]); its status. */
int ri_ref_run(problem *p, int which, int k, double set, run *r);
/* The largest difference of the two references over the rows. */
double ri_ref_diff(const problem *p);

/* ------------------------------------------------------------------ set-up (setup.c) */

/* Load p's model and derive what its measures need; 0, or 1 (reported on stderr). */
int ri_setup(problem *p);

/* ------------------------------------------------------------------ the report (report.c) */

/* A setting as the tables show it (h = … s, tol = …) and a number or "—" for NaN. */
void ri_fmt_set(int k, double set, char *buf, size_t n);
void ri_fmt_e(double x, char *buf, size_t n);
/* The table of every run of p (to ri_out) and p's summary rows (to f). */
void ri_print_runs(const problem *p);
void ri_print_summary(const problem *p, FILE *f);
/* The file name in ri_outdir opened for writing, or NULL (reported on stderr). */
FILE *ri_open_out(const char *name);
/* The largest component error of row i of r against ref (NaN: no such row). */
double ri_row_err(const problem *p, const run *r, const double *ref, int i);
/* "method, setting" of r for a plot's legend ("(none)" for NULL). */
void ri_title_of(const run *r, char *buf, size_t n);
/* p's section heading and its references (to ri_out). */
void ri_print_head(const problem *p);
void ri_print_refs(const problem *p);

/* ------------------------------------------------------------------ the problems (problems.c) */

/* Each problem's references, runs, section of the report and plot files (p set up). */
void ri_a01(problem *p);
void ri_a02(problem *p);
void ri_a03(problem *p);
void ri_a04_a05(problem *p);

#endif

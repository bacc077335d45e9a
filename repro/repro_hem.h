/*
 * Internal to repro_hem: shared run helpers (repro_hem.c) and the rod studies
 * (repro_hem_rod.c).
 */
#ifndef LIEDYN_REPRO_HEM_H
#define LIEDYN_REPRO_HEM_H

#include <stdio.h>

#include "liedyn/liedyn.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif

#define RH_MAX_BODIES 64
#define RH_MAX_LAMBDA 256

typedef struct rh_run {
    ld_system s;
    double *q0, *v0;
    ld_integ *it;
} rh_run;

/* The state at the end of a run: per body x, quaternion; the multipliers. */
typedef struct rh_result {
    int nb, m;
    double x[3 * RH_MAX_BODIES], q[4 * RH_MAX_BODIES], lam[RH_MAX_LAMBDA];
    double cpu;
} rh_result;

double rh_cpu(void);
int rh_quick(void);
int rh_load(const char *name, ld_model *m);
ld_integ_options rh_options(ld_integ_method meth, ld_la_kind la);
/* Compile, create, initialize at the model's t_start; rh_finish releases (also after a failure). */
int rh_start(rh_run *r, const ld_model *m, ld_formulation f, const ld_integ_options *o);
void rh_finish(rh_run *r);
/* n equal steps from t_start = 0 to T; the end state into out. 0 or the failing status. */
int rh_fixed(const ld_model *m, ld_formulation f, const ld_integ_options *o, double T, long n,
             rh_result *out);
/* Configuration error (max of geodesic angles and |Δx| relative to max(1, |x|)) and the relative
 * multiplier error. */
double rh_pos_err(const rh_result *a, const rh_result *b);
double rh_lam_err(const rh_result *a, const rh_result *b);
/* log2(e[j−1]/e[j]) for the last j with both errors above floor (NaN if none): steps halving. */
double rh_order(const double *e, int n, double floor);

/* The rod studies (report on stdout, .dat files in outdir); their gnuplot commands. */
int rh_rods(const char *outdir);
void rh_rod_plots(FILE *f);

#endif

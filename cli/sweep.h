/*
 * Internal to the liedyn tool: ensembles of runs (`liedyn sweep`, `liedyn workprec`).
 *
 * A sweep is a base model (its YAML text), fixed overrides, and a list of cases, each a set of
 * values for parameters named by their dotted path in the model document (`bodies[0].mass`,
 * `integrator.dt`). A case is run by setting the values in a fresh copy of the document,
 * reading the model from it and integrating it (sweep_case.c); its result is one CSV row that
 * depends on the sweep file and the case index only, so the table is the same whoever runs
 * the case. Reference: docs/sweep.md.
 */
#ifndef LIEDYN_CLI_SWEEP_H
#define LIEDYN_CLI_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "liedyn/model.h"

#define SW_MAX_PARAMS 16
#define SW_PATH_MAX   128

/* How a varied parameter takes its values. */
typedef enum sw_kind { SW_GRID = 0, SW_LIST, SW_UNIFORM, SW_LOGUNIFORM, SW_NORMAL } sw_kind;

typedef struct sw_param {
    char path[SW_PATH_MAX]; /* dotted path in the model document */
    sw_kind kind;
    int nvalues;   /* SW_GRID: the values; SW_LIST: one per case */
    char **values; /* YAML text of each value (a scalar, or a flow sequence) */
    double a, b;   /* the distribution: [a, b], or mean a and standard deviation b */
    int line;      /* in the sweep file */
} sw_param;

/* What each case records (bit flags); the status columns are always there. */
enum {
    SW_REC_STATE = 1,  /* final state of the bodies named (all when none is named) */
    SW_REC_ENERGY = 2, /* energy drift, absolute and relative */
    SW_REC_PHI = 4,    /* max constraint residual */
    SW_REC_ERROR = 8,  /* rotation and position error at the end against the exact solution or
                        * the reference run */
    SW_REC_STEPS = 16, /* steps, Newton iterations, rejected steps */
    SW_REC_CPU = 32,   /* CPU seconds of the case (the last column; differs between runs) */
};

typedef struct sw_set {
    char path[SW_PATH_MAX];
    char *value; /* YAML text */
    int line;
} sw_set;

typedef struct sweep {
    char file[256];        /* the sweep file (messages) */
    char model_path[4096]; /* the base model file */
    char *model_text;      /* its YAML text */
    size_t model_len;
    char base[LD_NAME_MAX]; /* the model's base name */
    int nset;
    sw_set set[SW_MAX_PARAMS]; /* fixed overrides (integrator keys, `set:`) */
    int nparams;
    sw_param params[SW_MAX_PARAMS];
    long ncases;
    uint64_t seed; /* random samples: the case's generator is seeded by (seed, case) */
    int record;    /* SW_REC_* */
    int nbodies;   /* bodies of the final state (names from the base model) */
    char (*bodies)[LD_NAME_MAX];
    int has_ref; /* the error is taken against a reference run */
    int ref_shared;
    int nref;
    sw_set ref[SW_MAX_PARAMS]; /* the reference run's overrides */
    const char *case_dir;      /* per-case time series DIR/case-NNNNN.csv (optional) */
    /* set by programs that build a sweep (liedyn convergence), not by sweep files: */
    int la;            /* the linear solver (ld_la_kind), -1: auto */
    int project;       /* hem methods: project after every step */
    const char *label; /* the name of every case's model in messages ("case N" when NULL) */
} sweep;

/* A growing text buffer. When it cannot grow, the text is dropped (s NULL) and nomem set: the
 * text is never silently cut short. */
typedef struct sw_buf {
    char *s;
    size_t len, cap;
    int nomem; /* a request was refused (the last one recorded, oom.h) */
} sw_buf;
void sw_buf_printf(sw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sw_buf_free(sw_buf *b);

/* The file at path (at most LD_MODEL_MAX_BYTES, the limit of every YAML file) into *out
 * (malloc'ed, NUL-terminated) and *len. 0, or 2 with a message printed. */
int sweep_read_file(const char *path, char **out, size_t *len);
/* s as a YAML double-quoted scalar appended to b. */
void sweep_yaml_quoted(sw_buf *b, const char *s);
/* Read the sweep file `path` (text `text` instead when not NULL, named `path` in messages).
 * 0, or 2 with a message printed ("FILE:LINE: KEY: REASON"). */
int sweep_load(sweep *sw, const char *path, const char *text);
/* The same for text[len] (at most LD_MODEL_MAX_BYTES), checked against the limits of every YAML
 * file (yaml_limits.h) before it is loaded; the model is model_text[model_len] (named
 * model_path) when model_text is not NULL, else the file its `model:` key names. Every varied
 * and fixed path is checked against the model (sweep_check_paths). */
int sweep_parse(sweep *sw, const char *path, const char *text, size_t len, const char *model_path,
                const char *model_text, size_t model_len);
/* sweep_paths.c: every path of sw (varied, set, reference) set to its first value in the base
 * model, and the model read: a key the model format does not allow at that place is refused
 * ("FILE:LINE: vary: bodies[0].mas: unknown key 'mas' (did you mean 'mass'? expected one of:
 * …)"), before any case runs. 0, or 2 with the message printed. */
int sweep_check_paths(const sweep *sw);
void sweep_free(sweep *sw);

/* The model text of case i (overrides applied) into *out (malloc'ed). 0, or -1 with why. */
int sweep_case_text(const sweep *sw, long i, const sw_set *extra, int nextra, char **out,
                    size_t *len, char *why, size_t cap);
/* The value (YAML text) of parameter k in case i into buf. */
void sweep_case_value(const sweep *sw, long i, int k, char *buf, size_t cap);

/* The header line of the table (with its newline). */
void sweep_header(const sweep *sw, sw_buf *b);
/* Run case i and append its row (with its newline) to b. Returns 0, or 1 when the case was
 * interrupted by SIGINT/SIGTERM (nothing appended). */
int sweep_case_row(const sweep *sw, long i, sw_buf *b);
/* The row of case i that could not be run (status, message) appended to b. */
void sweep_fail_row(const sweep *sw, long i, const char *status, const char *msg, sw_buf *b);

/* How a sweep is run. */
typedef struct sw_exec {
    const char *out; /* the table; NULL: the rows are kept in memory only (rows below) */
    int jobs;        /* local worker processes (1: in this process) */
    int fresh;       /* ignore an existing table instead of resuming it */
    int quiet;
    long ran, resumed, failed; /* results: cases run now, taken from the table, not ok */
    char **rows; /* without out: each case's row by index (malloc'ed; sweep_rows_free) */
} sw_exec;
void sweep_rows_free(sw_exec *x, long ncases);

/* Run the cases missing from the table and write it (sweep_exec.c). When the process was
 * started by mpirun with more than one rank, rank 0 hands out the cases to the others.
 * 0, 2 (message printed), 4 (the table could not be written), 128 + N (stopped by signal N). */
int sweep_exec(const sweep *sw, sw_exec *x);
/* Under mpirun (LD_MPI builds): initialize MPI; *rank, *size. 1 under MPI, 0 when not, −1
 * (message printed) when started by mpirun with several ranks in a build without MPI. */
int sweep_mpi_init(int *argc, char ***argv, int *rank, int *size);
void sweep_mpi_finalize(void);

/* The table's rows by case after sweep_exec: read back from the file. */
typedef struct sw_table {
    int ncols;
    char **names; /* ncols */
    long nrows;
    char ***cells; /* nrows × ncols, by case index */
} sw_table;
int sweep_table_read(const char *path, sw_table *t, char *why, size_t cap);
void sweep_table_free(sw_table *t);
int sweep_table_col(const sw_table *t, const char *name); /* -1 when absent */

/* Split one CSV line into fields (RFC 4180 quotes); the number of fields, -1 when malformed. */
int sweep_csv_split(const char *line, size_t len, char ***fields);
void sweep_csv_field(sw_buf *b, const char *s); /* s as a CSV field (quoted when needed) */

#endif

/*
 * Shared helpers of the liedyn command-line tool.
 */
#ifndef LIEDYN_CLI_H
#define LIEDYN_CLI_H

/* Print "liedyn: <message>" on stderr as one line; returns 2 (the usage-error exit code). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Keep the messages of cli_error in buf (the first one, without the "liedyn: " prefix) instead
 * of printing them, until called with NULL. */
void cli_error_capture(char *buf, size_t cap);
/* Flush stdout, remembering the reason of a failure for the exit check in main. 0 or -1. */
int cli_flush_stdout(void);
/* s as a JSON string (quoted, escaped) on stdout. */
void json_str(const char *s);
/* OpenBLAS on one thread and its idle workers stopped (they spin for ~0.1 s after starting and
 * after each parallel call; cli/blas_quiet.c): 1 when done, 0 when the BLAS is not OpenBLAS or
 * the user set OPENBLAS_NUM_THREADS or OPENBLAS_THREAD_TIMEOUT. */
int ld_cli_quiet_blas(void);

/* liedyn attitude ARGS... (argv without the command name). Returns the exit code. */
int cli_attitude(int argc, char **argv);

/* liedyn run MODEL ARGS... and liedyn convergence MODEL ARGS... (cli/run.c, cli/convergence.c; argv
 * without the command name). Return the exit code: 0 ok, 2 bad usage or input, 3 the integration
 * failed, 4 output could not be written, 5 stopped by --max-steps, 128 + N stopped by signal N. */
int cli_run(int argc, char **argv);
int cli_convergence(int argc, char **argv);
/* liedyn static MODEL ARGS... (cli/static.c): 0 ok, 2 bad usage or input, 3 no equilibrium,
 * 4 output could not be written. */
/* liedyn models: the shipped models and their descriptions (cli/models.c). */
int cli_models(int argc, char **argv);
/* The directory of the shipped models: $LIEDYN_MODELS, ../share/liedyn/models beside the
 * executable, or the source tree's models/ (the first that exists). */
const char *cli_models_dir(void);
int cli_static(int argc, char **argv);
/* liedyn modes MODEL ARGS... (cli/modes.c): 0 ok, 2 bad usage or input, 3 no equilibrium or no
 * eigenvalues, 4 output could not be written. */
int cli_modes(int argc, char **argv);
/* " (line N)" into buf (cap bytes), or "" for an item without a line (built in code, or read
 * from a file that the imported one includes); buf. */
const char *cli_at_line(char *buf, size_t cap, int line);
/* liedyn assemble (cli/assemble.c); print_assembly: the line of what assembly did, if any. */
int cli_assemble(int argc, char **argv);
struct ld_model;
void print_assembly(const struct ld_model *m, const char *indent);
/* liedyn view MODEL --csv FILE --html FILE (cli/view.c): 0 ok, 2 bad usage or input, 4 the
 * HTML file could not be written. */
int cli_view(int argc, char **argv);
/* liedyn sweep FILE and liedyn workprec MODEL (cli/sweep.c): 0 ok (cases that failed are rows
 * of the table), 2 bad usage or input, 4 the table could not be written, 128 + N stopped by
 * signal N (the table holds the cases done: the same command resumes it). */
int cli_sweep(int argc, char **argv);
int cli_workprec(int argc, char **argv);
/* liedyn convert FILE (cli/convert.c); cli_model_load: ld_model_load, or the import of a URDF or
 * MJCF file (its warnings on stderr). */
int cli_convert(int argc, char **argv);
struct ld_model_error;
int cli_model_load(const char *path, struct ld_model *m, struct ld_model_error *err);

/* mkdir -p dir: each missing directory of the path made (run.c). 0, or −1 with errno set
 * (ENOTDIR: a part of the path is a file; ENAMETOOLONG). */
int cli_make_dirs(const char *dir);

/* The name of names[0 … n−1] nearest to word (a mistyped option or command) when it is near
 * enough to suggest (at most a third of the word's letters apart, at least 1), else NULL
 * (suggest.c). */
const char *cli_closest(const char *word, const char *const *names, int n);

#endif /* LIEDYN_CLI_H */

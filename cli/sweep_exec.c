/*
 * Running a sweep: the table (locked against a second sweep, resumed from its whole rows,
 * appended to one whole row per write, rewritten in case order at the end whole or not at
 * all), and who runs the cases:
 * this process (--jobs 1), local worker processes (fork; results through pipes), or the ranks
 * of an MPI job (LD_MPI builds under mpirun). Both hand out case indices one at a time as the
 * workers become free (dynamic balancing: case costs differ by orders of magnitude).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#ifdef LD_MPI
#include <mpi.h>
#endif

#include "cli.h"
#include "sim.h"
#include "safefile.h"
#include "sweep.h"
#include "../src/core/oom.h"

/* ------------------------------------------------------------------ CSV lines */

int sweep_csv_split(const char *line, size_t len, char ***fields) {
    int n = 0, cap = 16;
    char **f = ld_xmalloc((size_t)cap * sizeof *f, "the row's fields");
    size_t i = 0;
    if (!f) return -1;
    for (;;) {
        sw_buf b = {0};
        sw_buf_printf(&b, "%s", "");
        if (i < len && line[i] == '"') {
            ++i;
            for (;;) {
                if (i >= len) goto bad; /* an unterminated quote */
                if (line[i] == '"') {
                    if (i + 1 < len && line[i + 1] == '"') {
                        sw_buf_printf(&b, "\"");
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                sw_buf_printf(&b, "%c", line[i++]);
            }
            if (i < len && line[i] != ',') goto bad;
        } else {
            size_t s = i;
            while (i < len && line[i] != ',') ++i;
            sw_buf_printf(&b, "%.*s", (int)(i - s), line + s);
        }
        if (n == cap) {
            char **g = ld_xrealloc(f, 2 * (size_t)cap * sizeof *f, "the row's fields");
            if (!g) goto bad;
            f = g;
            cap *= 2;
        }
        f[n++] = b.s;
        if (i >= len) break;
        ++i; /* the comma */
        continue;
    bad:
        sw_buf_free(&b);
        for (int k = 0; k < n; ++k) free(f[k]);
        free(f);
        *fields = NULL;
        return -1;
    }
    *fields = f;
    return n;
}

static void free_fields(char **f, int n) {
    for (int k = 0; k < n; ++k) free(f[k]);
    free(f);
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    sw_buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sw_buf_printf(&b, "%.*s", (int)n, chunk);
    fclose(f);
    *len = b.len;
    return b.s ? b.s : ld_xstrdup("", "a field");
}

int sweep_table_read(const char *path, sw_table *t, char *why, size_t cap) {
    memset(t, 0, sizeof *t);
    size_t len = 0;
    char *s = slurp(path, &len);
    if (!s) {
        snprintf(why, cap, "cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    size_t nl = strcspn(s, "\n");
    t->ncols = sweep_csv_split(s, nl, &t->names);
    long cap_rows = 0;
    for (size_t i = nl; i < len; ++i) cap_rows += s[i] == '\n';
    t->cells = ld_xcalloc((size_t)cap_rows + 1, sizeof *t->cells, "the table's cells");
    if (t->ncols < 1 || !t->cells) {
        free(s);
        snprintf(why, cap, "'%s' has no header", path);
        return -1;
    }
    size_t p = nl + 1;
    while (p < len) {
        size_t e = p;
        while (e < len && s[e] != '\n') ++e;
        if (e >= len) break; /* not a whole row */
        char **f = NULL;
        int n = sweep_csv_split(s + p, e - p, &f);
        if (n == t->ncols) {
            long c = strtol(f[0], NULL, 10);
            if (c == t->nrows) {
                t->cells[t->nrows++] = f;
                f = NULL;
            }
        }
        if (f) free_fields(f, n);
        p = e + 1;
    }
    free(s);
    return 0;
}

void sweep_table_free(sw_table *t) {
    for (long r = 0; r < t->nrows; ++r) free_fields(t->cells[r], t->ncols);
    free(t->cells);
    if (t->names) free_fields(t->names, t->ncols);
    memset(t, 0, sizeof *t);
}

int sweep_table_col(const sw_table *t, const char *name) {
    for (int k = 0; k < t->ncols; ++k)
        if (strcmp(t->names[k], name) == 0) return k;
    return -1;
}

/* ------------------------------------------------------------------ the table file */

typedef struct table {
    const sweep *sw;
    const char *path;
    int fd;
    off_t size;
    char **rows; /* by case: the row's text (with its newline), NULL: not done */
    long done;
    int ncols;
    sw_buf header;
} table;

static int write_all(int fd, const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Whether a row read back from the table belongs to case c of this sweep (its values). */
static int row_matches(const sweep *sw, long c, char **f) {
    char val[4096];
    for (int k = 0; k < sw->nparams; ++k) {
        sweep_case_value(sw, c, k, val, sizeof val);
        if (strcmp(f[1 + k], val) != 0) return 0;
    }
    return 1;
}

/* row[0 .. len) as a string, allocated; NULL when out of memory (recorded, oom.h). */
static char *row_dup(const char *row, size_t len) {
    char *d = ld_xmalloc(len + 1, "a row of the table");
    if (d) memcpy(d, row, len), d[len] = '\0';
    return d;
}

/* The whole rows of an existing table of this sweep. 0, or 2 (message printed). */
static int table_resume(table *T) {
    size_t len = 0;
    char *s = slurp(T->path, &len);
    if (!s) return 0; /* nothing to resume */
    size_t hl = T->header.len;
    if (len == 0) {
        free(s);
        return 0;
    }
    if (len < hl || memcmp(s, T->header.s, hl) != 0) {
        free(s);
        return cli_error("sweep: '%s' holds another table (its header differs from this sweep's): "
                         "remove it, or give --fresh to replace it",
                         T->path);
    }
    size_t p = hl;
    long dropped = 0;
    while (p < len) {
        size_t e = p;
        while (e < len && s[e] != '\n') ++e;
        if (e >= len) { /* a row cut short: run the case again */
            ++dropped;
            break;
        }
        char **f = NULL;
        int n = sweep_csv_split(s + p, e - p, &f);
        char *end = NULL;
        long c = n == T->ncols ? strtol(f[0], &end, 10) : -1;
        if (n != T->ncols || !end || *end || c < 0 || c >= T->sw->ncases || T->rows[c] ||
            !f[n - 1 - ((T->sw->record & SW_REC_CPU) ? 3 : 2)][0]) {
            ++dropped;
        } else if (!row_matches(T->sw, c, f)) {
            free_fields(f, n);
            free(s);
            return cli_error("sweep: '%s': the row of case %ld has other values than this sweep "
                             "gives it: remove the table, or give --fresh to replace it",
                             T->path, c);
        } else {
            if (!(T->rows[c] = row_dup(s + p, e + 1 - p))) {
                if (f) free_fields(f, n);
                free(s);
                return cli_error("sweep: '%s': the row of case %ld: %s", T->path, c,
                                 ld_oom_last_str());
            }
            ++T->done;
        }
        if (f) free_fields(f, n);
        p = e + 1;
    }
    free(s);
    if (dropped)
        fprintf(stderr, "liedyn sweep: %s: %ld incomplete or malformed row%s dropped (rerun)\n",
                T->path, dropped, dropped == 1 ? "" : "s");
    return 0;
}

/* Lock the table: open it (an empty one when there is none) and take its exclusive lock
 * (flock), so that one sweep at a time writes it. The table is replaced (table_rewrite) only
 * by files locked before they take its name, so a lock on a file that no longer carries the
 * name is dropped and the new one locked. 0, or 2 (message printed). */
static int table_lock(table *T) {
    for (int tries = 0; tries < 100; ++tries) {
        int fd = open(T->path, O_RDWR | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
        if (fd < 0) return cli_error("sweep: cannot write '%s': %s", T->path, strerror(errno));
        struct stat a, b;
        if (fstat(fd, &a) != 0 || !S_ISREG(a.st_mode)) {
            close(fd);
            return cli_error("sweep: '%s' is not a regular file (a sweep's table is read back "
                             "and rewritten)",
                             T->path);
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
            close(fd);
            return cli_error("sweep: '%s' is being written by another sweep (it holds the "
                             "table's lock): wait until that sweep ends, or give another table",
                             T->path);
        } /* other errors: a file system without locks; go on without one */
        if (stat(T->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            T->fd = fd;
            return 0;
        }
        close(fd); /* replaced since it was opened: lock the new one */
    }
    return cli_error("sweep: '%s' keeps being replaced by another process", T->path);
}

/* Write the header and the rows done, in case order, to the table (whole or not at all:
 * safefile.h). With keep, the new file stays open in T->fd for appending (and locked);
 * without, T->fd is closed. 0, or 4 (message printed). */
static int table_rewrite(table *T, int keep) {
    safefile w;
    int flags = SAFEFILE_SYNC | SAFEFILE_REGULAR | (keep ? SAFEFILE_KEEP : 0);
    if (ld_io_safefile_open(&w, T->path, "the table", flags) != 0)
        return cli_error("sweep: %s", w.err), 4;
    fputs(T->header.s, w.f);
    size_t size = T->header.len;
    for (long c = 0; c < T->sw->ncases; ++c)
        if (T->rows[c]) {
            fputs(T->rows[c], w.f);
            size += strlen(T->rows[c]);
        }
    if (ld_io_safefile_commit(&w) != 0) return cli_error("sweep: %s", w.err), 4;
    if (T->fd >= 0) close(T->fd); /* after the rename: the lock passes to the new file */
    T->fd = keep ? w.fd : -1;
    if (T->fd >= 0 && fcntl(T->fd, F_SETFL, O_APPEND) != 0) { /* its offset is the end anyway */
    }
    T->size = (off_t)size;
    return 0;
}

/* Keep the row of case c and append it to the file (one write: the file holds whole rows;
 * a failed write is cut back). 0 or -1. */
static int table_add(table *T, long c, const char *row, size_t len) {
    if (T->rows[c]) return 0;
    T->rows[c] = row_dup(row, len);
    if (!T->rows[c]) return cli_error("sweep: the row of case %ld: %s", c, ld_oom_last_str()), -1;
    ++T->done;
    if (!T->path) return 0; /* in memory only */
    if (T->fd < 0) return -1;
    if (write_all(T->fd, row, len) != 0) {
        int e = errno;
        if (ftruncate(T->fd, T->size) != 0) { /* leave whole rows */
        }
        close(T->fd);
        T->fd = -1;
        errno = e;
        return -1;
    }
    T->size += (off_t)len;
    return 0;
}

/* ------------------------------------------------------------------ local workers */

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig) {
    stop_sig = sig;
    sim_stop_signal = sig;
}

typedef struct worker {
    pid_t pid;
    int task_fd, res_fd;
    long cas; /* the case it runs, -1: idle */
} worker;

static int read_all(int fd, void *p, size_t n) {
    char *s = p;
    while (n > 0) {
        ssize_t r = read(fd, s, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        s += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The worker's loop: case indices in, rows out (length, text); ends on EOF or -1. */
static void worker_main(const sweep *sw, int in, int out) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (;;) {
        int64_t c;
        if (read_all(in, &c, sizeof c) != 0 || c < 0) break;
        sw_buf b = {0};
        if (sweep_case_row(sw, (long)c, &b) != 0) _exit(128 + SIGINT);
        uint32_t n = (uint32_t)b.len;
        if (write_all(out, (const char *)&n, sizeof n) || write_all(out, b.s, b.len)) _exit(1);
        sw_buf_free(&b);
    }
    _exit(0);
}

/* Start the worker w (all: the nw workers, whose pipes it closes; table_fd: the table, which
 * it closes too, so that only this process holds the table's lock). 0 or -1. */
static int spawn(const sweep *sw, worker *w, worker *all, int nw, int table_fd) {
    int tp[2], rp[2];
    if (pipe(tp) != 0) return -1;
    if (pipe(rp) != 0) {
        close(tp[0]);
        close(tp[1]);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(tp[0]);
        close(tp[1]);
        close(rp[0]);
        close(rp[1]);
        return -1;
    }
    if (pid == 0) {
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        for (int k = 0; k < nw; ++k) /* the other workers' pipes */
            if (all[k].pid > 0 && &all[k] != w) {
                close(all[k].task_fd);
                close(all[k].res_fd);
            }
        if (table_fd >= 0) close(table_fd);
        close(tp[1]);
        close(rp[0]);
        worker_main(sw, tp[0], rp[1]);
    }
    close(tp[0]);
    close(rp[1]);
    w->pid = pid;
    w->task_fd = tp[1];
    w->res_fd = rp[0];
    w->cas = -1;
    return 0;
}

/* The next case not done from *next on (-1: none left). */
static long next_case(const table *T, long *next) {
    while (*next < T->sw->ncases && T->rows[*next]) ++*next;
    return *next < T->sw->ncases ? (*next)++ : -1;
}

/* Hand case c to w: 0, or -1 when the write fails (w has died). w->cas is c only on success. */
static int give(worker *w, long c) {
    int64_t v = c;
    if (write_all(w->task_fd, (const char *)&v, sizeof v) != 0) return -1;
    w->cas = c;
    return 0;
}

/* Close w's pipes and wait for it to end; its wait status. */
static int reap(worker *w) {
    close(w->task_fd);
    close(w->res_fd);
    int st = 0;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
    }
    w->pid = 0;
    w->cas = -1;
    return st;
}

/* Whether a worker's end (wait status st) came from outside, by a signal that stops the sweep;
 * if so, the sweep stops (stop_sig). */
static int killed_from_outside(int st) {
    int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    if (sig == SIGINT || sig == SIGTERM || sig == SIGKILL || sig == SIGHUP ||
        (WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGINT)) {
        stop_sig = sig ? sig : SIGINT;
        return 1;
    }
    return 0;
}

/* How a worker ended (wait status st), as "died by signal 11 (Segmentation fault)" or "exited
 * with status 1", into buf. */
static void end_text(int st, char *buf, size_t cap) {
    if (WIFSIGNALED(st))
        snprintf(buf, cap, "died by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(buf, cap, "exited with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Give worker k the next missing case. A worker that died while it waited for one (the write
 * fails) is replaced and the case goes to its successor, so that no case is lost. 1: k runs a
 * case; 0: it is idle (none left, a stop from outside, or no new worker). */
static int give_next(table *T, worker *w, int nw, int k, long *next) {
    long c = next_case(T, next);
    w[k].cas = -1;
    if (c < 0) return 0;
    if (give(&w[k], c) == 0) return 1;
    int st = reap(&w[k]);
    if (killed_from_outside(st)) return 0;
    char how[96];
    end_text(st, how, sizeof how);
    fprintf(stderr, "liedyn sweep: a worker waiting for its next case %s; a new one takes over\n",
            how);
    if (spawn(T->sw, &w[k], w, nw, T->fd) == 0 && give(&w[k], c) == 0) return 1;
    --*next; /* not run: the case goes back, to the next worker that asks */
    return 0;
}

/* Take worker k's finished case: its row into the table, or, if it died in the case, a crashed
 * row and a new worker in its place. 1: k can take a case; 0: it is gone (a stop from outside,
 * or no new worker); sets *io when the table could not be written. */
static int take_result(table *T, worker *w, int nw, int k, sw_exec *x, int *io) {
    long c = w[k].cas;
    uint32_t n = 0;
    char *row = NULL;
    int ok = read_all(w[k].res_fd, &n, sizeof n) == 0 &&
             (row = ld_xmalloc(n + 1u, "a case's row")) && read_all(w[k].res_fd, row, n) == 0;
    if (ok && table_add(T, c, row, n) != 0) *io = 1;
    free(row);
    if (ok) {
        ++x->ran;
        return 1;
    }
    int st = reap(&w[k]);
    if (killed_from_outside(st)) return 0;
    char how[96], msg[128];
    end_text(st, how, sizeof how);
    snprintf(msg, sizeof msg, "the worker running the case %s", how);
    sw_buf b = {0};
    sweep_fail_row(T->sw, c, "crashed", msg, &b);
    if (table_add(T, c, b.s, b.len) != 0) *io = 1;
    ++x->ran;
    sw_buf_free(&b);
    return spawn(T->sw, &w[k], w, nw, T->fd) == 0;
}

/* Run the missing cases in nw worker processes. 0, or 4 (the table could not be written). */
static int run_local(table *T, int nw, sw_exec *x) {
    worker *w = ld_xcalloc((size_t)nw, sizeof *w, "the workers");
    if (!w) return cli_error("sweep: %s", ld_oom_last_str());
    long next = 0;
    int active = 0, io = 0;
    for (int k = 0; k < nw; ++k) {
        if (spawn(T->sw, &w[k], w, nw, T->fd) != 0) {
            for (int j = 0; j < k; ++j) /* the started ones end on their pipes' EOF */
                if (w[j].pid > 0) (void)reap(&w[j]);
            free(w);
            return cli_error("sweep: cannot start a worker: %s", strerror(errno));
        }
        active += give_next(T, w, nw, k, &next);
    }
    struct pollfd *pf = ld_xcalloc((size_t)nw, sizeof *pf, "the workers");
    while (active > 0 && !stop_sig && pf) {
        for (int k = 0; k < nw; ++k) {
            pf[k].fd = w[k].cas >= 0 ? w[k].res_fd : -1;
            pf[k].events = POLLIN;
            pf[k].revents = 0;
        }
        int r = poll(pf, (nfds_t)nw, 500);
        if (r < 0 && errno != EINTR) break;
        for (int k = 0; r > 0 && k < nw && !stop_sig; ++k) {
            if (!pf[k].revents) continue;
            --active;
            if (take_result(T, w, nw, k, x, &io)) active += give_next(T, w, nw, k, &next);
        }
    }
    for (int k = 0; k < nw; ++k)
        if (w[k].pid > 0) {
            if (stop_sig && w[k].cas >= 0) kill(w[k].pid, SIGKILL);
            (void)reap(&w[k]);
        }
    free(pf);
    free(w);
    return io ? 4 : 0;
}

/* Run the missing cases here, in order. 0 or 4. */
static int run_here(table *T, sw_exec *x) {
    long next = 0, c;
    int io = 0;
    while (!stop_sig && (c = next_case(T, &next)) >= 0) {
        sw_buf b = {0};
        if (sweep_case_row(T->sw, c, &b) != 0) {
            sw_buf_free(&b);
            break;
        }
        if (table_add(T, c, b.s, b.len) != 0) io = 1;
        ++x->ran;
        sw_buf_free(&b);
    }
    return io ? 4 : 0;
}

/* ------------------------------------------------------------------ MPI */

#ifdef LD_MPI
static int mpi_on, mpi_rank, mpi_size;
#endif

int sweep_mpi_init(int *argc, char ***argv, int *rank, int *size) {
    *rank = 0;
    *size = 1;
#ifdef LD_MPI
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return 0;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) return 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    mpi_on = 1;
    *rank = mpi_rank;
    *size = mpi_size;
    return 1;
#else
    (void)argc;
    (void)argv;
    const char *n = getenv("OMPI_COMM_WORLD_SIZE");
    if (!n) n = getenv("PMI_SIZE");
    if (n && atoi(n) > 1) { /* N copies would each run the whole sweep into one table */
        cli_error("sweep: started by mpirun with %s ranks, but this liedyn is built "
                  "without MPI (install libopenmpi-dev and rebuild, or run without "
                  "mpirun: the cores are used by worker processes)",
                  n);
        return -1;
    }
    return 0;
#endif
}

void sweep_mpi_finalize(void) {
#ifdef LD_MPI
    if (mpi_on) MPI_Finalize();
    mpi_on = 0;
#endif
}

#ifdef LD_MPI
enum { TAG_TASK = 1, TAG_ROW = 2 };

/* Cases a rank holds at once: the one it runs and the next two, already in its receive queue, so
 * that it never waits for rank 0 between two cases. */
#define MPI_AHEAD 3

/* Send rank r its next case (or −1: no more, once). The number of cases it holds. */
static int mpi_give(table *T, long *next, int r, int *held, int *ended) {
    if (ended[r]) return held[r];
    int64_t c = next_case(T, next);
    MPI_Send(&c, 1, MPI_INT64_T, r, TAG_TASK, MPI_COMM_WORLD);
    if (c < 0)
        ended[r] = 1;
    else
        ++held[r];
    return held[r];
}

/* Rank 0: hand out cases to ranks 1 … size−1 as they report; keep their rows. 0 or 4. */
static int mpi_master(table *T, sw_exec *x) {
    long next = 0;
    int io = 0, busy = 0; /* ranks holding cases */
    int *held = ld_xcalloc(2 * (size_t)mpi_size, sizeof *held, "the ranks' cases"),
        *ended = held + mpi_size;
    if (!held) return cli_error("sweep: %s", ld_oom_last_str());
    for (int k = 0; k < MPI_AHEAD; ++k)
        for (int r = 1; r < mpi_size; ++r) (void)mpi_give(T, &next, r, held, ended);
    for (int r = 1; r < mpi_size; ++r) {
        busy += held[r] > 0;
        if (!held[r] && !ended[r]) (void)mpi_give(T, &next, r, held, ended);
    }
    long sleep_ns = 20000;
    while (busy > 0 && !stop_sig) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROW, MPI_COMM_WORLD, &flag, &st);
        if (!flag) { /* sleep, not spin: rank 0 shares the cores with the workers */
            struct timespec ts = {0, sleep_ns};
            nanosleep(&ts, NULL);
            if (sleep_ns < 1000000) sleep_ns *= 2;
            continue;
        }
        sleep_ns = 20000;
        int n = 0, r = st.MPI_SOURCE;
        MPI_Get_count(&st, MPI_CHAR, &n);
        char *row = ld_xmalloc((size_t)n + 1, "a case's row");
        if (!row) {
            io = 1;
            break;
        }
        MPI_Recv(row, n, MPI_CHAR, r, TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        char *end = NULL;
        long c = n > 0 ? strtol(row, &end, 10) : -1; /* a row starts with its case */
        if (n == 0 || !end || *end != ',' || c < 0 || c >= T->sw->ncases) {
            stop_sig = SIGINT; /* the rank was interrupted */
            free(row);
            break;
        }
        if (table_add(T, c, row, (size_t)n) != 0) io = 1;
        ++x->ran;
        free(row);
        --held[r];
        if (mpi_give(T, &next, r, held, ended) == 0) --busy;
    }
    free(held);
    return io ? 4 : 0;
}

/* Ranks 1 …: run the cases rank 0 hands out, in the order received, until −1. */
static void mpi_worker(const sweep *sw) {
    for (;;) {
        int64_t c;
        MPI_Recv(&c, 1, MPI_INT64_T, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (c < 0) break;
        sw_buf b = {0};
        int stopped = sweep_case_row(sw, (long)c, &b) != 0;
        MPI_Send(b.s && !stopped ? b.s : "", stopped ? 0 : (int)b.len, MPI_CHAR, 0, TAG_ROW,
                 MPI_COMM_WORLD);
        sw_buf_free(&b);
        if (stopped) break;
    }
}
#endif

/* ------------------------------------------------------------------ the sweep */

static long ncpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

void sweep_rows_free(sw_exec *x, long ncases) {
    for (long c = 0; x->rows && c < ncases; ++c) free(x->rows[c]);
    free(x->rows);
    x->rows = NULL;
}

int sweep_exec(const sweep *sw, sw_exec *x) {
    x->ran = x->resumed = x->failed = 0;
#ifdef LD_MPI
    if (mpi_on && mpi_size > 1 && mpi_rank > 0) {
        mpi_worker(sw);
        return 0;
    }
#endif
    table T;
    memset(&T, 0, sizeof T);
    T.sw = sw;
    T.path = x->out;
    T.fd = -1;
    sweep_header(sw, &T.header);
    char **hf = NULL;
    T.ncols = sweep_csv_split(T.header.s, T.header.len - 1, &hf);
    free_fields(hf, T.ncols);
    T.rows = ld_xcalloc((size_t)sw->ncases, sizeof *T.rows, "the table's rows");
    if (!T.rows) return cli_error("sweep: %s", ld_oom_last_str());
    int rc = T.path ? table_lock(&T) : 0;
    if (!rc && T.path && !x->fresh) rc = table_resume(&T);
    if (!rc && T.path && table_rewrite(&T, 1) != 0) rc = 2;
    x->resumed = T.done;
    struct sigaction sa, old_int, old_term, old_pipe;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old_pipe);
    stop_sig = 0;
#ifdef LD_MPI
    if (rc && mpi_on && mpi_size > 1) /* the workers wait for cases: none */
        for (int r = 1; r < mpi_size; ++r) {
            int64_t none = -1;
            MPI_Send(&none, 1, MPI_INT64_T, r, TAG_TASK, MPI_COMM_WORLD);
        }
#endif
    if (!rc) {
        long missing = sw->ncases - T.done;
        int jobs = x->jobs > 0 ? x->jobs : (int)ncpus();
        if (jobs > missing) jobs = (int)(missing > 0 ? missing : 1);
#ifdef LD_MPI
        if (mpi_on && mpi_size > 1)
            rc = mpi_master(&T, x);
        else
#endif
            rc = jobs > 1 ? run_local(&T, jobs, x) : run_here(&T, x);
        if (rc == 4 || (T.path && T.fd < 0)) {
            cli_error("sweep: writing '%s' failed: %s", T.path, strerror(errno));
            rc = 4;
        }
        if (rc == 0 && T.path) rc = table_rewrite(&T, 0);
    }
    if (T.fd >= 0) close(T.fd); /* the lock ends */
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    for (long c = 0; c < sw->ncases; ++c) {
        if (T.rows[c]) {
            char **f = NULL;
            int n = sweep_csv_split(T.rows[c], strlen(T.rows[c]) - 1, &f);
            int sc = n - ((sw->record & SW_REC_CPU) ? 4 : 3);
            if (n > 3 && strcmp(f[sc], "ok") != 0) ++x->failed;
            if (f) free_fields(f, n);
        }
        if (T.path) free(T.rows[c]);
    }
    if (T.path)
        free(T.rows);
    else
        x->rows = T.rows;
    sw_buf_free(&T.header);
    if (!rc && stop_sig) {
        rc = 128 + stop_sig;
#ifdef LD_MPI
        if (mpi_on && mpi_size > 1) {
            cli_error("sweep stopped by signal %d: %ld of %ld cases in '%s'", (int)stop_sig,
                      x->ran + x->resumed, sw->ncases, x->out);
            MPI_Abort(MPI_COMM_WORLD, rc);
        }
#endif
    }
    return rc;
}

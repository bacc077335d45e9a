/* An output file of whole rows (rowfile.h). */
#define _POSIX_C_SOURCE 200809L
#include "rowfile.h"
#include "../core/oom.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (64 * 1024)

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int ld_io_rowfile_open(rowfile *r, const char *path) {
    memset(r, 0, sizeof *r);
    r->fd = -1;
    snprintf(r->name, sizeof r->name, "%s", path);
    r->buf = ld_xmalloc(BLOCK, "the row buffer");
    if (!r->buf) return errno = ENOMEM, -1;
    r->cap = BLOCK;
    r->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (r->fd < 0) {
        free(r->buf);
        r->buf = NULL;
        return -1;
    }
    r->last_write = now_s();
    return 0;
}

static void set_failed(rowfile *r, int err) {
    r->failed = 1;
    snprintf(r->err, sizeof r->err, "writing '%s' failed after %ld rows: %s", r->name, r->rows,
             err ? strerror(err) : ld_oom_last_str());
}

/* Room for n more bytes in the buffer; 0 or -1. */
static int reserve(rowfile *r, size_t n) {
    if (r->len + n <= r->cap) return 0;
    size_t cap = r->cap;
    while (cap < r->len + n) cap *= 2;
    char *b = ld_xrealloc(r->buf, cap, "the row buffer");
    if (!b) return -1;
    r->buf = b;
    r->cap = cap;
    return 0;
}

void ld_io_rowfile_printf(rowfile *r, const char *fmt, ...) {
    if (r->failed || r->fd < 0) return;
    for (int pass = 0; pass < 2; ++pass) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(r->buf + r->len, r->cap - r->len, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if ((size_t)n < r->cap - r->len) {
            r->len += (size_t)n;
            return;
        }
        if (reserve(r, (size_t)n + 1) != 0) {
            set_failed(r, 0);
            return;
        }
    }
}

/* After a short or failed write: cut the file back to its last whole row (regular files). */
static void cut_back(rowfile *r) {
    struct stat st;
    if (fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode)) (void)ftruncate(r->fd, r->size);
}

int ld_io_rowfile_flush(rowfile *r) {
    if (r->failed) return -1;
    if (r->fd < 0 || r->done == 0) return 0;
    size_t off = 0;
    while (off < r->done) {
        ssize_t w = write(r->fd, r->buf + off, r->done - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int err = w < 0 ? errno : ENOSPC;
            cut_back(r);
            set_failed(r, err);
            return -1;
        }
        off += (size_t)w;
    }
    r->size += (off_t)r->done;
    r->rows += r->rows_done;
    memmove(r->buf, r->buf + r->done, r->len - r->done);
    r->len -= r->done;
    r->done = 0;
    r->rows_done = 0;
    r->last_write = now_s();
    return 0;
}

int ld_io_rowfile_end_row(rowfile *r, int count) {
    if (r->failed) return -1;
    if (r->fd < 0) return 0;
    r->done = r->len;
    r->rows_done += count;
    if (r->done >= BLOCK || now_s() - r->last_write > ROWFILE_FLUSH_S)
        return ld_io_rowfile_flush(r);
    return 0;
}

int ld_io_rowfile_close(rowfile *r) {
    if (r->fd < 0) return r->failed ? -1 : 0;
    int rc = ld_io_rowfile_flush(r);
    if (close(r->fd) != 0 && rc == 0) {
        set_failed(r, errno);
        rc = -1;
    }
    r->fd = -1;
    free(r->buf);
    r->buf = NULL;
    return rc;
}

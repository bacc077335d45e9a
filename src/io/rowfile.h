/*
 * Internal to the library (src/io; the liedyn tool uses it too): an output file of whole rows
 * (CSV). Rows are formatted into a buffer and written to the file in blocks that end on a row
 * boundary, so the file holds complete rows at every moment: a process killed between two writes
 * leaves whole rows, a failed or short write (full disk, file-size limit) is cut back to the last
 * whole row. (A SIGKILL during the kernel's copy of a block can still cut it between two pages.) A
 * block goes out when the buffered rows pass 64 KiB, when a row ends and the last write is
 * more than ROWFILE_FLUSH_S seconds old, and at close.
 */
#ifndef LIEDYN_CLI_ROWFILE_H
#define LIEDYN_CLI_ROWFILE_H

#include <stddef.h>
#include <sys/types.h>

#define ROWFILE_FLUSH_S 0.1

typedef struct rowfile {
    int fd;          /* -1: closed */
    char name[4096]; /* for messages */
    char *buf;       /* pending text: whole rows, then the row being formatted */
    size_t len, cap; /* bytes in buf, its size */
    size_t done;     /* bytes of buf that form whole rows */
    long rows_done;  /* whole rows in buf */
    long rows;       /* whole rows in the file */
    off_t size;      /* bytes in the file */
    double last_write;
    int failed;     /* a write failed: nothing more is written */
    char err[4200]; /* "writing NAME failed after N rows: reason" */
} rowfile;

/* Create (truncate) path. 0, or -1 with errno set. */
int ld_io_rowfile_open(rowfile *r, const char *path);
/* Append printf-formatted text to the row being formatted (no-op after a failure). */
void ld_io_rowfile_printf(rowfile *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* End the row being formatted (the caller's text ends with its newline; count 0 for a header
 * line, 1 for a data row) and write a block when one is due. 0, or -1 once a write has
 * failed (r->err says why). */
int ld_io_rowfile_end_row(rowfile *r, int count);
/* Write every whole row now. 0 or -1. */
int ld_io_rowfile_flush(rowfile *r);
/* Flush and close. 0 or -1 (r->err says why). Idempotent. */
int ld_io_rowfile_close(rowfile *r);

#endif

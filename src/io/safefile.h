/*
 * Internal to the library (src/io; the liedyn tool uses it too): writing a whole file safely,
 * for every writer that replaces its target (checkpoints, the HTML viewer, VTK files and their
 * series, converted and assembled models, a sweep's table).
 *
 * What the target is decides how it is written:
 *   - absent, or a regular file: the text goes to a temporary file in the target's directory,
 *     created exclusively under an unpredictable name (TARGET.tmp.PID.RANDOM; never opened
 *     through a symbolic link), and is renamed over the target only when every write
 *     succeeded; on any failure the temporary is removed and the target is left as it was.
 *     The new file gets the permission bits (and, where allowed, the owner and group) of the
 *     file it replaces, or those a plain fopen gives (0666 less the umask) when it is new.
 *   - a symbolic link: followed to its final target, which is replaced as above (the link
 *     stays a link); a dangling link makes the file it names.
 *   - a character device or a FIFO: opened and written directly (nothing is renamed or
 *     removed; errors are reported as for any write), unless SAFEFILE_REGULAR is given,
 *     which refuses them.
 *   - a directory, a block device or a socket: refused with a message.
 * The temporary stays locked (flock) by its creator while it exists. One left behind by a
 * process killed before it could remove it (SIGKILL, or a signal the program does not
 * handle) is removed at the next write of the same target, once its creator has provably
 * gone: no process of the PID in its name exists and nobody holds its lock.
 */
#ifndef LIEDYN_IO_SAFEFILE_H
#define LIEDYN_IO_SAFEFILE_H

#include <stdio.h>

enum {
    SAFEFILE_SYNC = 1,    /* fsync the file before the rename, and its directory after */
    SAFEFILE_KEEP = 2,    /* commit leaves the target open (fd) and locked, for appending */
    SAFEFILE_NOCLEAN = 4, /* skip the removal of stale temporaries (the caller does it once) */
    SAFEFILE_REGULAR = 8, /* refuse character devices and FIFOs too */
};

typedef struct safefile {
    FILE *f;          /* the stream to write; NULL when closed */
    int fd;           /* with SAFEFILE_KEEP, after a commit: the target, open and locked; else -1 */
    int through;      /* 1: a character device or FIFO written directly, 0: a temporary file */
    int flags;        /* SAFEFILE_* */
    char *name;       /* the target as given (for messages) */
    char *path;       /* the file written: the target, or the final target of its symbolic links */
    char *tmp;        /* the temporary's name; NULL when written through or committed */
    char err[4400];   /* after a failure: "writing [WHAT ]'NAME' failed: reason" */
    const char *what; /* a word for messages ("checkpoint", "VTK file"), or "" */
} safefile;

/* Open path for writing as described above; what names the file in messages (may be NULL).
 * 0, or -1 with w->err and errno set (nothing is left behind). */
int ld_io_safefile_open(safefile *w, const char *path, const char *what, int flags);
/* Finish: flush and check the stream, fsync if asked, rename the temporary over the target.
 * 0, or -1 with w->err and errno set, the temporary removed and the target untouched
 * (a device or FIFO holds what reached it). Either way w->f is closed afterwards. */
int ld_io_safefile_commit(safefile *w);
/* Give up: close the stream and remove the temporary (the target is untouched). Also frees
 * what open allocated, and closes w->fd; safe to call after commit and more than once. */
void ld_io_safefile_abort(safefile *w);
/* Remove, in the directory dir, the temporaries of targets whose names begin with prefix
 * whose creators have gone (see above). Returns how many were removed. */
int ld_io_safefile_clean(const char *dir, const char *prefix);

#endif

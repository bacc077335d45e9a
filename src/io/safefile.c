/* Writing a whole file safely (safefile.h). */
#define _GNU_SOURCE
#include "safefile.h"
#include "../core/oom.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_TAG   ".tmp."
#define RAND_LEN  10
#define BASE_KEEP 200 /* bytes of the target's name kept in its temporary's (NAME_MAX is 255) */
#define LINK_HOPS 40

/* w->err = "writing [WHAT ]'NAME' failed: " + the formatted reason; errno = e. */
__attribute__((format(printf, 3, 4))) static void set_err(safefile *w, int e, const char *fmt,
                                                          ...) {
    int n = snprintf(w->err, sizeof w->err, "writing %s%s'%s' failed: ", w->what,
                     w->what[0] ? " " : "", w->name ? w->name : "");
    if (n < 0) n = 0;
    if ((size_t)n < sizeof w->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err + n, sizeof w->err - (size_t)n, fmt, ap);
        va_end(ap);
    }
    errno = e;
}

/* Free what open allocated (not w->fd, not w->err). */
static void release(safefile *w) {
    free(w->name);
    free(w->path);
    free(w->tmp);
    w->name = w->path = w->tmp = NULL;
}

/* The directory part of path ("." when it has none), allocated; NULL: no memory. */
static char *dir_of(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return ld_xstrdup(".", "a directory name");
    if (slash == path) return ld_xstrdup("/", "a directory name");
    char *d = ld_xmalloc((size_t)(slash - path) + 1, "a directory name");
    if (d) memcpy(d, path, (size_t)(slash - path)), d[slash - path] = '\0';
    return d;
}

static const char *base_of(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The file path finally names, its symbolic links followed (allocated), with its lstat in st
 * and *exists 0 when it does not exist. NULL with errno on failure. */
static char *resolve(const char *path, struct stat *st, int *exists) {
    char *p = ld_xstrdup(path, "a file name");
    if (!p) errno = ENOMEM;
    for (int hops = 0; p; ++hops) {
        if (lstat(p, st) != 0) {
            if (errno != ENOENT) break;
            *exists = 0;
            return p;
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = 1;
            return p;
        }
        char link[PATH_MAX];
        ssize_t n = hops < LINK_HOPS ? readlink(p, link, sizeof link - 1) : (errno = ELOOP, -1);
        if (n < 0) break;
        link[n] = '\0';
        char *dir = link[0] == '/' ? ld_xstrdup("", "a directory name") : dir_of(p), *q = NULL;
        if (dir && (q = ld_xmalloc(strlen(dir) + (size_t)n + 2, "a link's target")))
            sprintf(q, "%s%s%s", dir, dir[0] ? "/" : "", link);
        free(dir);
        free(p);
        p = q;
        if (!p) errno = ENOMEM;
    }
    free(p);
    return NULL;
}

/* n characters [0-9a-z] from the system's random source (a clock-and-counter mix if that
 * fails: the name stays unique through O_EXCL, only less unpredictable). */
static void random_chars(char *s, int n) {
    static const char set[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    static unsigned counter;
    unsigned char b[RAND_LEN];
    if (getrandom(b, (size_t)n, GRND_NONBLOCK) != n) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)s ^
                     (0x9E3779B97F4A7C15ull * ++counter) ^ ((uint64_t)getpid() << 40);
        for (int i = 0; i < n; ++i) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            b[i] = (unsigned char)(x >> 24);
        }
    }
    for (int i = 0; i < n; ++i) s[i] = set[b[i] % 36];
}

/* Whether name is a temporary of this module: PREFIX[ANY]".tmp."PID"."RANDOM, with ANY empty
 * when exact; its PID in *pid. */
static int temp_pid(const char *name, const char *prefix, int exact, long *pid) {
    size_t pl = strnlen(prefix, BASE_KEEP), nl = strlen(name);
    if (strncmp(name, prefix, pl) != 0 || nl < pl + strlen(TMP_TAG) + 2 + RAND_LEN) return 0;
    const char *r = name + nl - RAND_LEN, *d = r - 1;
    for (const char *c = r; *c; ++c)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z'))) return 0;
    if (*d != '.') return 0;
    const char *digits = d;
    while (digits > name + pl && digits[-1] >= '0' && digits[-1] <= '9') --digits;
    size_t tl = strlen(TMP_TAG);
    if (digits == d || d - digits > 9 || digits < name + pl + tl ||
        strncmp(digits - tl, TMP_TAG, tl) != 0 || (exact && digits - tl != name + pl))
        return 0;
    *pid = strtol(digits, NULL, 10);
    return *pid > 0;
}

/* Remove the stale temporaries in dir (see ld_io_safefile_clean). */
static int clean(const char *dir, const char *prefix, int exact) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0, dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        if (!temp_pid(e->d_name, prefix, exact, &pid) || pid == (long)getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* its creator may live */
        int fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat a, b;
        if (fstat(fd, &a) == 0 && S_ISREG(a.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
            fstatat(dfd, e->d_name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino && unlinkat(dfd, e->d_name, 0) == 0)
            ++n;
        close(fd);
    }
    closedir(d);
    return n;
}

int ld_io_safefile_clean(const char *dir, const char *prefix) {
    if (!prefix) return 0;
    return clean(dir && dir[0] ? dir : ".", prefix, 0);
}

/* The kind of a file that is not written, for messages; NULL: it is written. */
static const char *refused_kind(mode_t m, int flags) {
    if (S_ISDIR(m)) return "it is a directory";
    if (S_ISBLK(m))
        return "it is a block device (only regular files, character devices and "
               "FIFOs are written)";
    if (S_ISSOCK(m))
        return "it is a socket (only regular files, character devices and FIFOs "
               "are written)";
    if ((flags & SAFEFILE_REGULAR) && S_ISCHR(m))
        return "it is a character device, not a regular file";
    if ((flags & SAFEFILE_REGULAR) && S_ISFIFO(m)) return "it is a FIFO, not a regular file";
    return NULL;
}

/* Write a character device or FIFO directly. 0 or -1 (w->err). */
static int open_through(safefile *w) {
    int fd = open(w->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        set_err(w, errno, "%s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        close(fd);
        set_err(w, EAGAIN, "it changed while it was opened (no longer a device or FIFO)");
        return -1;
    }
    w->through = 1;
    w->f = fdopen(fd, "wb");
    if (!w->f) {
        int e = errno;
        close(fd);
        set_err(w, e, "%s", strerror(e));
        return -1;
    }
    return 0;
}

/* Create the temporary next to w->path, with the mode and owner of the file it replaces
 * (st, when exists). 0 or -1 (w->err). */
static int open_temp(safefile *w, const struct stat *st, int exists) {
    char *dir = dir_of(w->path);
    const char *base = base_of(w->path);
    size_t cap = (dir ? strlen(dir) : 0) + BASE_KEEP + 64;
    w->tmp = dir ? ld_xmalloc(cap, "a temporary name") : NULL;
    if (!w->tmp) {
        free(dir);
        set_err(w, ENOMEM, "%s", ld_oom_last_str());
        return -1;
    }
    if (!(w->flags & SAFEFILE_NOCLEAN)) clean(dir, base, 1);
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; ++tries) {
        char r[RAND_LEN + 1] = {0};
        random_chars(r, RAND_LEN);
        snprintf(w->tmp, cap, "%s/%.*s%s%ld.%s", dir, BASE_KEEP, base, TMP_TAG, (long)getpid(), r);
        fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        int e = errno;
        set_err(w, e, "cannot create a temporary file in '%s': %s", dir, strerror(e));
        free(dir);
        free(w->tmp);
        w->tmp = NULL;
        return -1;
    }
    free(dir);
    (void)flock(fd, LOCK_EX | LOCK_NB); /* shows that its creator lives (clean) */
    struct stat t;
    if (exists && fstat(fd, &t) == 0) { /* as writing the file in place would leave it */
        if ((t.st_uid != st->st_uid || t.st_gid != st->st_gid) &&
            fchown(fd, st->st_uid, st->st_gid) != 0) { /* not allowed: the writer's own */
        }
        if ((t.st_mode & 07777) != (st->st_mode & 0777) && fchmod(fd, st->st_mode & 0777) != 0) {
        }
    }
    w->f = fdopen(fd, "wb");
    if (!w->f) {
        int e = errno;
        close(fd);
        unlink(w->tmp);
        free(w->tmp);
        w->tmp = NULL;
        set_err(w, e, "%s", strerror(e));
        return -1;
    }
    return 0;
}

int ld_io_safefile_open(safefile *w, const char *path, const char *what, int flags) {
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->flags = flags;
    w->what = what ? what : "";
    w->name = ld_xstrdup(path ? path : "", "a file name");
    if (!w->name) {
        snprintf(w->err, sizeof w->err, "writing %s%s'%s' failed: %s", w->what,
                 w->what[0] ? " " : "", path ? path : "", ld_oom_last_str());
        errno = ENOMEM;
        return -1;
    }
    struct stat st;
    int exists = 0, rc = -1;
    const char *why = NULL;
    if (!path || !path[0] || !base_of(path)[0])
        set_err(w, EINVAL, "no file name");
    else if (!(w->path = resolve(path, &st, &exists)))
        set_err(w, errno, "%s", errno == ENOMEM ? ld_oom_last_str() : strerror(errno));
    else if (exists && (why = refused_kind(st.st_mode, flags)))
        set_err(w, S_ISDIR(st.st_mode) ? EISDIR : EINVAL, "%s", why);
    else if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
        rc = open_through(w);
    else if (exists && faccessat(AT_FDCWD, w->path, W_OK, AT_EACCESS) != 0)
        set_err(w, errno, "%s", strerror(errno)); /* as opening it to write would fail */
    else
        rc = open_temp(w, &st, exists);
    if (rc != 0) {
        int e = errno;
        release(w);
        errno = e;
        return -1;
    }
    errno = 0; /* a write error below sets it: commit reports that */
    return 0;
}

/* fsync the directory of path (after a rename): best effort. */
static void sync_dir(const char *path) {
    char *dir = dir_of(path);
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

/* Whether fsync's error e means only that the file cannot be synced (a device, a pipe). */
static int sync_unsupported(int e) {
    return e == EINVAL || e == EROFS || e == ENOTSUP;
}

int ld_io_safefile_commit(safefile *w) {
    if (!w->f) {
        if (!w->err[0]) set_err(w, EBADF, "not open");
        release(w);
        return -1;
    }
    int e = 0, keep = -1, fd = fileno(w->f);
    if (fflush(w->f) != 0 || ferror(w->f)) e = errno ? errno : EIO;
    if (!e && (w->flags & SAFEFILE_SYNC) && fsync(fd) != 0 &&
        !(w->through && sync_unsupported(errno)))
        e = errno;
    if (!e && (w->flags & SAFEFILE_KEEP) && (keep = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) e = errno;
    if (fclose(w->f) != 0 && !e) e = errno ? errno : EIO;
    w->f = NULL;
    if (!e && w->tmp && rename(w->tmp, w->path) != 0) e = errno;
    if (e) {
        if (keep >= 0) close(keep);
        if (w->tmp) unlink(w->tmp);
        set_err(w, e, "%s", strerror(e));
        release(w);
        errno = e;
        return -1;
    }
    if (w->tmp && (w->flags & SAFEFILE_SYNC)) sync_dir(w->path);
    free(w->tmp); /* renamed: nothing to remove */
    w->tmp = NULL;
    w->fd = keep;
    release(w);
    return 0;
}

void ld_io_safefile_abort(safefile *w) {
    if (w->f) fclose(w->f);
    w->f = NULL;
    if (w->tmp) unlink(w->tmp);
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    release(w);
}

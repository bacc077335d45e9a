/*
 * Writing a whole file safely (src/io/safefile.h): a new or regular target is replaced whole or
 * left as it was, through a temporary that is created exclusively, never through a symbolic link
 * planted at a guessable name, and removed on failure; the new file has the permission bits a
 * plain fopen gives (or those of the file it replaces); a symbolic link keeps pointing at the
 * file it names, which is replaced; character devices and FIFOs are written through and stay
 * what they are; directories, block devices and sockets are refused; a temporary whose creator
 * has gone is removed at the next write, one whose creator may live is kept; a kept target stays
 * locked.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

#include "safefile.h"

static char dir[64];

/* dir/name in p. */
static const char *in_dir(char *p, size_t cap, const char *name) {
    snprintf(p, cap, "%s/%s", dir, name);
    return p;
}

static void put_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The text of path (at most cap - 1 bytes) in buf. */
static const char *get_file(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* How many entries of the directory contain ".tmp". */
static int temporaries(void) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) n += strstr(e->d_name, ".tmp") != NULL;
    closedir(d);
    return n;
}

/* Open path, write text and commit: the commit's result. */
static int write_text(const char *path, const char *text, int flags) {
    safefile w;
    if (ld_io_safefile_open(&w, path, NULL, flags) != 0) return -1;
    fputs(text, w.f);
    return ld_io_safefile_commit(&w);
}

static void remove_all(void) {
    char cmd[2 * sizeof dir + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/* '%s'/.[!.]*", dir, dir);
    assert_int_equal(system(cmd), 0);
}

/* A new file and a replaced one hold the text, no temporary is left; abort and a failed write
 * leave the old file and no temporary. */
static void test_whole_or_untouched(void **state) {
    (void)state;
    char p[128], buf[256];
    in_dir(p, sizeof p, "out.txt");
    assert_int_equal(write_text(p, "first\n", 0), 0);
    assert_string_equal(get_file(p, buf, sizeof buf), "first\n");
    assert_int_equal(write_text(p, "second\n", SAFEFILE_SYNC), 0);
    assert_string_equal(get_file(p, buf, sizeof buf), "second\n");
    assert_int_equal(temporaries(), 0);

    safefile w;
    assert_int_equal(ld_io_safefile_open(&w, p, NULL, 0), 0);
    fputs("never seen\n", w.f);
    assert_int_equal(temporaries(), 1);
    ld_io_safefile_abort(&w);
    ld_io_safefile_abort(&w); /* twice: harmless */
    assert_string_equal(get_file(p, buf, sizeof buf), "second\n");
    assert_int_equal(temporaries(), 0);

    /* a write that fails (a file-size limit of 1 KiB, SIGXFSZ ignored) */
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 1024;
    void (*h)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    assert_int_equal(ld_io_safefile_open(&w, p, "table", 0), 0);
    for (int i = 0; i < 1000; ++i) fputs("0123456789", w.f);
    int rc = ld_io_safefile_commit(&w);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, h);
    assert_int_equal(rc, -1);
    assert_int_equal(errno, EFBIG);
    assert_non_null(strstr(w.err, "writing table '"));
    assert_non_null(strstr(w.err, "out.txt' failed: File too large"));
    assert_string_equal(get_file(p, buf, sizeof buf), "second\n");
    assert_int_equal(temporaries(), 0);

    /* no directory to write in: a message naming the file and the directory */
    char q[160];
    snprintf(q, sizeof q, "%s/no/such/dir/x.txt", dir);
    assert_int_equal(ld_io_safefile_open(&w, q, NULL, 0), -1);
    assert_non_null(strstr(w.err, "x.txt' failed: cannot create a temporary file in '"));
    assert_non_null(strstr(w.err, "No such file or directory"));
    assert_int_equal(ld_io_safefile_open(&w, "", NULL, 0), -1);
    assert_int_equal(ld_io_safefile_open(&w, p, NULL, 0), 0);
    ld_io_safefile_abort(&w);
    remove_all();
}

/* Symbolic links planted at the names a temporary could be given (NAME.tmp, NAME.tmp.PID.X...)
 * are not followed: their victims are unchanged. The temporary is created exclusively, is a
 * regular file, is locked, and carries the PID and an unpredictable part. */
static void test_planted_links_not_followed(void **state) {
    (void)state;
    char p[128], v[128], l[200], buf[256];
    in_dir(p, sizeof p, "out.html");
    in_dir(v, sizeof v, "victim");
    put_file(v, "victim\n");
    const char *planted[] = {"out.html.tmp", "out.html.tmp-XXXXXX", "out.html.tmp.0.aaaaaaaaaa"};
    for (int i = 0; i < 3; ++i) assert_int_equal(symlink(v, in_dir(l, sizeof l, planted[i])), 0);
    snprintf(l, sizeof l, "%s/out.html.tmp.%ld.", dir, (long)getpid());
    safefile a, b;
    assert_int_equal(ld_io_safefile_open(&a, p, NULL, 0), 0);
    assert_int_equal(ld_io_safefile_open(&b, p, NULL, 0), 0);
    assert_non_null(a.tmp);
    assert_non_null(b.tmp);
    assert_string_not_equal(a.tmp, b.tmp);
    assert_int_equal(strncmp(a.tmp, l, strlen(l)), 0);
    assert_int_equal(strlen(a.tmp), strlen(l) + 10);
    struct stat st;
    assert_int_equal(lstat(a.tmp, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    int fd = open(a.tmp, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1); /* its creator holds the lock */
    close(fd);
    fputs("page\n", a.f);
    fputs("other\n", b.f);
    assert_int_equal(ld_io_safefile_commit(&a), 0);
    ld_io_safefile_abort(&b);
    assert_string_equal(get_file(v, buf, sizeof buf), "victim\n");
    assert_string_equal(get_file(p, buf, sizeof buf), "page\n");
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(lstat(in_dir(l, sizeof l, planted[i]), &st), 0);
        assert_true(S_ISLNK(st.st_mode));
    }
    remove_all();
}

/* Permission bits: 0666 less the umask for a new file; a replaced file keeps its own. */
static void test_permissions(void **state) {
    (void)state;
    char p[128];
    struct stat st;
    in_dir(p, sizeof p, "new.txt");
    mode_t old = umask(027);
    assert_int_equal(write_text(p, "x\n", 0), 0);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    umask(0);
    assert_int_equal(chmod(p, 0604), 0);
    assert_int_equal(write_text(p, "y\n", SAFEFILE_SYNC), 0);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0604);
    in_dir(p, sizeof p, "other.txt");
    assert_int_equal(write_text(p, "z\n", 0), 0);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0666);
    umask(old);
    remove_all();
}

/* A symbolic link to a file: the file is replaced, the link stays (relative links from another
 * directory, chains of links); a dangling link makes the file it names; a loop is refused. */
static void test_symlink_targets(void **state) {
    (void)state;
    char p[128], l[128], l2[128], buf[64], sub[128];
    in_dir(sub, sizeof sub, "sub");
    assert_int_equal(mkdir(sub, 0777), 0);
    in_dir(p, sizeof p, "sub/real.txt");
    put_file(p, "old\n");
    in_dir(l, sizeof l, "sub/link.txt");
    assert_int_equal(symlink("real.txt", l), 0); /* relative to sub/ */
    in_dir(l2, sizeof l2, "chain.txt");
    assert_int_equal(symlink("sub/link.txt", l2), 0);
    assert_int_equal(write_text(l2, "new\n", 0), 0);
    struct stat st;
    assert_int_equal(lstat(l, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(lstat(l2, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(get_file(p, buf, sizeof buf), "new\n");
    assert_int_equal(temporaries(), 0);

    in_dir(l, sizeof l, "dangling.txt");
    assert_int_equal(symlink("sub/made.txt", l), 0);
    assert_int_equal(write_text(l, "made\n", 0), 0);
    assert_int_equal(lstat(l, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(get_file(in_dir(p, sizeof p, "sub/made.txt"), buf, sizeof buf), "made\n");

    in_dir(l, sizeof l, "loop.txt");
    assert_int_equal(symlink("loop.txt", l), 0);
    safefile w;
    assert_int_equal(ld_io_safefile_open(&w, l, NULL, 0), -1);
    assert_non_null(strstr(w.err, "Too many levels of symbolic links"));
    remove_all();
}

/* A FIFO is written through (read at the other end) and stays a FIFO; SAFEFILE_REGULAR refuses
 * it; a directory and a socket are refused and stay. */
static void test_fifo_directory_socket(void **state) {
    (void)state;
    char p[128], buf[64];
    in_dir(p, sizeof p, "fifo");
    assert_int_equal(mkfifo(p, 0666), 0);
    int rd = open(p, O_RDONLY | O_NONBLOCK); /* a reader: the writer's open does not wait */
    assert_true(rd >= 0);
    safefile w;
    assert_int_equal(ld_io_safefile_open(&w, p, NULL, 0), 0);
    assert_int_equal(w.through, 1);
    assert_null(w.tmp);
    fputs("through the fifo\n", w.f);
    assert_int_equal(ld_io_safefile_commit(&w), 0);
    ssize_t n = read(rd, buf, sizeof buf - 1);
    assert_int_equal(n, 17);
    buf[n] = '\0';
    assert_string_equal(buf, "through the fifo\n");
    close(rd);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(ld_io_safefile_open(&w, p, "the table", SAFEFILE_REGULAR), -1);
    assert_non_null(strstr(w.err, "it is a FIFO, not a regular file"));

    in_dir(p, sizeof p, "adir");
    assert_int_equal(mkdir(p, 0777), 0);
    assert_int_equal(ld_io_safefile_open(&w, p, NULL, 0), -1);
    assert_non_null(strstr(w.err, "adir' failed: it is a directory"));

    in_dir(p, sizeof p, "sock");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s >= 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    assert_true(strlen(p) < sizeof a.sun_path);
    memcpy(a.sun_path, p, strlen(p) + 1);
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(ld_io_safefile_open(&w, p, NULL, 0), -1);
    assert_non_null(strstr(w.err, "it is a socket"));
    close(s);
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(temporaries(), 0);
    remove_all();
}

/* Device nodes made in the test's directory (root only; skipped otherwise): the null and full
 * character devices are written through and stay devices, the full one's write fails with
 * ENOSPC; a block device is refused and stays. */
static void test_devices(void **state) {
    (void)state;
    char null[128], full[128], blk[128];
    in_dir(null, sizeof null, "null");
    in_dir(full, sizeof full, "full");
    in_dir(blk, sizeof blk, "loop");
    if (mknod(null, S_IFCHR | 0666, makedev(1, 3)) != 0 ||
        mknod(full, S_IFCHR | 0666, makedev(1, 7)) != 0 ||
        mknod(blk, S_IFBLK | 0600, makedev(7, 0)) != 0) {
        print_message("device nodes cannot be made here (%s): skipped\n", strerror(errno));
        remove_all();
        skip();
    }
    assert_int_equal(write_text(null, "nothing\n", SAFEFILE_SYNC), 0);
    safefile w;
    assert_int_equal(ld_io_safefile_open(&w, full, "the checkpoint", SAFEFILE_SYNC), 0);
    for (int i = 0; i < 1000; ++i) fputs("0123456789", w.f);
    assert_int_equal(ld_io_safefile_commit(&w), -1);
    assert_int_equal(errno, ENOSPC);
    assert_non_null(strstr(w.err, "writing the checkpoint '"));
    assert_non_null(strstr(w.err, "full' failed: No space left on device"));
    assert_int_equal(ld_io_safefile_open(&w, blk, NULL, 0), -1);
    assert_non_null(strstr(w.err, "it is a block device"));
    struct stat st;
    assert_int_equal(lstat(null, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(lstat(full, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(lstat(blk, &st), 0);
    assert_true(S_ISBLK(st.st_mode));
    assert_int_equal(temporaries(), 0);
    remove_all();
}

/* A PID that no process has: a child that has exited and been reaped. */
static pid_t dead_pid(void) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return pid;
}

/* Stale temporaries: removed at the next write of their target when their creator is gone;
 * kept when its PID lives, when someone holds its lock, when it belongs to another target or
 * does not have the form of a temporary. ld_io_safefile_clean removes by prefix. */
static void test_stale_temporaries(void **state) {
    (void)state;
    char p[128], n[200];
    pid_t dead = dead_pid();
    in_dir(p, sizeof p, "t.ck");
    snprintf(n, sizeof n, "%s/t.ck.tmp.%ld.abcdefghij", dir, (long)dead);
    put_file(n, "stale");
    char live[200], locked[200], other[200], odd[200];
    snprintf(live, sizeof live, "%s/t.ck.tmp.%ld.abcdefghij", dir, (long)getppid());
    put_file(live, "its creator lives");
    snprintf(locked, sizeof locked, "%s/t.ck.tmp.%ld.0123456789", dir, (long)dead);
    put_file(locked, "someone holds its lock");
    int fd = open(locked, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX), 0);
    snprintf(other, sizeof other, "%s/t.ck2.tmp.%ld.abcdefghij", dir, (long)dead);
    put_file(other, "another target");
    snprintf(odd, sizeof odd, "%s/t.ck.tmp.%ld.ABCDEFGHIJ", dir, (long)dead);
    put_file(odd, "not a temporary's name");
    assert_int_equal(write_text(p, "x", 0), 0);
    struct stat st;
    assert_int_equal(stat(n, &st), -1);
    assert_int_equal(stat(live, &st), 0);
    assert_int_equal(stat(locked, &st), 0);
    assert_int_equal(stat(other, &st), 0);
    assert_int_equal(stat(odd, &st), 0);
    assert_int_equal(write_text(p, "y", SAFEFILE_NOCLEAN), 0); /* skips the cleaning */
    assert_int_equal(stat(other, &st), 0);
    close(fd); /* the lock ends: its temporary is stale now */
    assert_int_equal(ld_io_safefile_clean(dir, "t.ck"), 2); /* by prefix: locked and other */
    assert_int_equal(stat(locked, &st), -1);
    assert_int_equal(stat(other, &st), -1);
    assert_int_equal(stat(live, &st), 0);
    assert_int_equal(stat(odd, &st), 0);
    assert_int_equal(ld_io_safefile_clean("/nonexistent-dir", "t"), 0);
    remove_all();
}

/* SAFEFILE_KEEP: the new file stays open for appending and locked; a long name fits. */
static void test_keep_and_long_names(void **state) {
    (void)state;
    char p[400], buf[64], name[251];
    in_dir(p, sizeof p, "table.csv");
    safefile w;
    assert_int_equal(ld_io_safefile_open(&w, p, NULL, SAFEFILE_KEEP | SAFEFILE_REGULAR), 0);
    fputs("head\n", w.f);
    assert_int_equal(ld_io_safefile_commit(&w), 0);
    assert_true(w.fd >= 0);
    int fd = open(p, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);
    assert_int_equal(errno, EWOULDBLOCK);
    assert_int_equal(write(w.fd, "row\n", 4), 4);
    ld_io_safefile_abort(&w); /* closes the kept file: the lock ends */
    assert_int_equal(w.fd, -1);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    close(fd);
    assert_string_equal(get_file(p, buf, sizeof buf), "head\nrow\n");

    memset(name, 'n', sizeof name - 1); /* 250 bytes: with ".tmp.PID.RANDOM" over NAME_MAX */
    name[sizeof name - 1] = '\0';
    in_dir(p, sizeof p, name);
    assert_int_equal(write_text(p, "long\n", 0), 0);
    assert_string_equal(get_file(p, buf, sizeof buf), "long\n");
    assert_int_equal(temporaries(), 0);
    remove_all();
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/liedyn-safefile-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_or_untouched),
        cmocka_unit_test(test_planted_links_not_followed),
        cmocka_unit_test(test_permissions),
        cmocka_unit_test(test_symlink_targets),
        cmocka_unit_test(test_fifo_directory_socket),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_stale_temporaries),
        cmocka_unit_test(test_keep_and_long_names),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    return rc;
}

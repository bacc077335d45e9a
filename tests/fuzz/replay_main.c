/*
 * A plain main() for the fuzz targets (docs/fuzzing.md): feeds every file named on the command
 * line — or every regular file under a named directory, recursively, in name order — to
 * LLVMFuzzerTestOneInput once. Built with any C compiler, without libFuzzer, it turns a corpus into
 * a regression test: a crash, a sanitizer report or a leak fails the run. Exit status 0 when every
 * input ran, 1 when a file or directory could not be read, 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* The whole file at path in a malloc'ed buffer (at least one byte allocated) of *len bytes.
 * NULL if it cannot be read. */
static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) free(buf);
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (buf && bad) {
        free(buf);
        buf = NULL;
    }
    *len = n;
    return buf;
}

/* Run one file through the target. 0, or 1 if it cannot be read. The input is handed over in
 * a buffer of exactly its size, so that the sanitizers see reads past its end. */
static int run_file(const char *path) {
    size_t len = 0;
    uint8_t *data = slurp(path, &len);
    if (!data) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(data);
        fprintf(stderr, "replay: out of memory for %s\n", path);
        return 1;
    }
    if (len) memcpy(exact, data, len);
    free(data);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

/* Skip ".", "..", and hidden files (editor and version-control droppings). */
static int visible(const struct dirent *e) {
    return e->d_name[0] != '.';
}

/* Run every regular file under directory dir, in name order, descending into
 * subdirectories. *count is increased by the number run. 0, or 1 if something could not be
 * read. */
static int run_dir(const char *dir, long *count) {
    struct dirent **list = NULL;
    int n = scandir(dir, &list, visible, alphasort), rc = 0;
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s\n", dir);
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        size_t need = strlen(dir) + strlen(list[i]->d_name) + 2;
        char *path = malloc(need);
        struct stat st;
        if (!path) {
            rc = 1;
        } else {
            snprintf(path, need, "%s/%s", dir, list[i]->d_name);
            if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
                rc |= run_dir(path, count);
            } else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                rc |= run_file(path);
                ++*count;
            }
        }
        free(path);
        free(list[i]);
    }
    free(list);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    long count = 0;
    int rc = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            rc |= run_dir(argv[i], &count);
        } else {
            rc |= run_file(argv[i]);
            ++count;
        }
    }
    printf("replay: %ld inputs%s\n", count, rc ? ", some unreadable" : "");
    return rc;
}

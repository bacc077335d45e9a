/*
 * The shipped models' file names (the .yaml files of models/), for the tests that loop over
 * every one.
 */
#ifndef LIEDYN_TESTS_SHIPPED_H
#define LIEDYN_TESTS_SHIPPED_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODELS 64

static inline int shipped_cmp_name(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

/* The names of the .yaml files in dir (at most MAX_MODELS, each shorter than 64), sorted;
 * returns their number, -1 when dir cannot be read. */
static inline int shipped_models(const char *dir, char names[][64]) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_MODELS;) {
        size_t l = strlen(e->d_name);
        if (l > 5 && l < 64 && strcmp(e->d_name + l - 5, ".yaml") == 0)
            memcpy(names[n++], e->d_name, l + 1);
    }
    closedir(d);
    qsort(names, (size_t)n, 64, shipped_cmp_name);
    return n;
}

#endif

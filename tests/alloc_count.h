/*
 * Allocation counter for tests linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc:
 * every allocation of the (statically linked) library passes through here and increments
 * n_alloc. Header-only; include it in one test program.
 */
#ifndef LIEDYN_TESTS_ALLOC_COUNT_H
#define LIEDYN_TESTS_ALLOC_COUNT_H

#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t sz);
void *__wrap_realloc(void *p, size_t n);
static long n_alloc;
void *__wrap_malloc(size_t n) {
    n_alloc++;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t sz) {
    n_alloc++;
    return __real_calloc(n, sz);
}
void *__wrap_realloc(void *p, size_t n) {
    n_alloc++;
    return __real_realloc(p, n);
}

#endif

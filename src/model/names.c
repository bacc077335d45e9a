/*
 * Sorted name index of a model's items (names.h): qsort by (name, index), binary search.
 */
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "names.h"
#include "../core/oom.h"

typedef struct keyed {
    const char *name;
    int index;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
    const keyed *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return (x->index > y->index) - (x->index < y->index);
}

static const char *name_of(const ld_name_index *idx, int i) {
    return idx->base + (size_t)i * idx->stride;
}

int ld_names_build(ld_name_index *idx, const void *base, size_t stride, int n) {
    memset(idx, 0, sizeof *idx);
    if (n <= 0) return LD_OK;
    keyed *k = ld_xmalloc((size_t)n * sizeof *k, "the name index");
    int *order = ld_xmalloc((size_t)n * sizeof *order, "the name index");
    if (!k || !order) {
        free(k);
        free(order);
        return LD_ENOMEM;
    }
    idx->base = base;
    idx->stride = stride;
    for (int i = 0; i < n; ++i) k[i] = (keyed){name_of(idx, i), i};
    qsort(k, (size_t)n, sizeof *k, cmp_keyed);
    for (int i = 0; i < n; ++i) order[i] = k[i].index;
    free(k);
    idx->n = n;
    idx->order = order;
    return LD_OK;
}

void ld_names_free(ld_name_index *idx) {
    free(idx->order);
    memset(idx, 0, sizeof *idx);
}

int ld_names_find(const ld_name_index *idx, const char *name) {
    int lo = 0, hi = idx->n; /* first position whose name is >= name */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(name_of(idx, idx->order[mid]), name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < idx->n && strcmp(name_of(idx, idx->order[lo]), name) == 0) return idx->order[lo];
    return -1;
}

void ld_names_first_dup(const ld_name_index *idx, int *first) {
    for (int p = 0; p < idx->n; ++p) {
        int i = idx->order[p];
        int same = p > 0 && strcmp(name_of(idx, idx->order[p - 1]), name_of(idx, i)) == 0;
        first[i] =
            same ? (first[idx->order[p - 1]] >= 0 ? first[idx->order[p - 1]] : idx->order[p - 1])
                 : -1;
    }
}

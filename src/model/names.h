/*
 * Internal to src/model: a sorted index of the names of a model's items (bodies, joints, rods),
 * so that looking a name up and finding repeated names cost O(n log n) for the whole model
 * instead of O(n²).
 *
 * The items are any array whose elements start with `char name[LD_NAME_MAX]` (ld_body,
 * ld_joint, ld_rod), given by its base address, element size and count.
 */
#ifndef LIEDYN_SRC_MODEL_NAMES_H
#define LIEDYN_SRC_MODEL_NAMES_H

#include <stddef.h>

typedef struct ld_name_index {
    const char *base; /* the items */
    size_t stride;    /* bytes per item */
    int n;            /* items indexed */
    int *order;       /* item indices sorted by name, ties by index (n entries) */
} ld_name_index;

/* Index the n items at base (stride bytes apart). LD_OK or LD_ENOMEM (idx empty). */
int ld_names_build(ld_name_index *idx, const void *base, size_t stride, int n);
void ld_names_free(ld_name_index *idx);
/* The lowest index of an item called name, or −1. */
int ld_names_find(const ld_name_index *idx, const char *name);
/* first[i] = the lowest index j < i of an item with the same name as item i, or −1 (n entries,
 * filled from the index). */
void ld_names_first_dup(const ld_name_index *idx, int *first);

#endif

/*
 * Shared by the fuzz targets (docs/fuzzing.md): the libFuzzer entry point and a hash of the
 * input that picks the variant of the run (integrator, formulation, method) deterministically.
 */
#ifndef LIEDYN_TESTS_FUZZ_FUZZ_H
#define LIEDYN_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Run one input. Must return 0; a crash, a sanitizer report, a leak or a hang is a finding. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run an accepted model as fuzz_model does (fuzz_model.c): compiled in its own formulation and
 * integrator or in the variant of hash h, a few capped steps, the contracts checked. */
struct ld_model;
void fuzz_run_model(const struct ld_model *m, uint32_t h);

/* Parse data[size] as a model file with the reader's contracts checked (a refusal: negative
 * status and a terminated, non-empty message; an acceptance: the model validates). 1 with *m
 * to free when accepted, 0 when refused (fuzz_model.c). */
int fuzz_parse_model(const uint8_t *data, size_t size, struct ld_model *m);

/* FNV-1a of data[size]: the same input always runs the same variant. */
static inline uint32_t fuzz_hash(const uint8_t *data, size_t size) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
    return h;
}

#endif

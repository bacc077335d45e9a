/*
 * Fuzz target: the beam and shape readers (docs/fuzzing.md) — `beams:` (straight and curved
 * centrelines, uniform sections, 6×6 matrices, stations with twist, quadrature, clamps, pins)
 * and the bodies' `shape:` lists, ground shapes and contact laws.
 *
 * The input bytes are a model file, as for fuzz_model; its dictionary (beam.dict) and seeds
 * (the shipped beam models, tests/fuzz/corpus/beam/) lead the mutator to beams and shapes, and
 * larger beams are allowed: every accepted beam's placement is checked whatever its size
 * (placing is linear in the nodes), while models of at most 200 bodies are compiled and stepped
 * as fuzz_model does (fuzz_run_model). Contracts on an accepted model's beams:
 *   - elements · order + 1 nodes, each a body of the model or the ground (clamped ends only);
 *   - node positions finite, frames unit quaternions, length shares positive and finite;
 *   - arc-length fractions from 0 ascending to 1;
 *   - a straight beam's length shares sum to its centreline's length.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "liedyn/liedyn.h"

#define MAX_RUN_BODIES 200

static void contract(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "fuzz_beam: contract broken: %s\n", what);
    abort();
}

/* The centreline's length of a straight (polyline) beam. */
static double polyline_length(const ld_beam *b) {
    double L = 0.0;
    for (int i = 0; i + 1 < b->npoints; ++i) {
        const double *A = b->points + 3 * i, *B = A + 3;
        L += hypot(hypot(B[0] - A[0], B[1] - A[1]), B[2] - A[2]);
    }
    return L;
}

static void check_beam(const ld_model *m, const ld_beam *b) {
    contract(b->nnodes == ld_beam_elements(b) * b->order + 1, "elements * order + 1 nodes");
    double wsum = 0.0, prev = 0.0;
    for (int k = 0; k < b->nnodes; ++k) {
        int body = b->node_body[k];
        int end = k == 0 ? 0 : (k == b->nnodes - 1 ? 1 : -1);
        contract((body >= 0 && body < m->nbodies) ||
                     (body == LD_GROUND && end >= 0 && b->clamp[end]),
                 "a node is a body of the model, or a clamped end");
        const double *x = b->x0 + 3 * k, *q = b->q0 + 4 * k;
        contract(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]), "node positions finite");
        double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        contract(fabs(qn - 1.0) <= 1e-9, "node frames are unit quaternions");
        contract(b->wlen[k] > 0.0 && isfinite(b->wlen[k]), "length shares positive and finite");
        contract(b->eta[k] >= prev && b->eta[k] <= 1.0, "arc-length fractions ascend in [0, 1]");
        prev = b->eta[k];
        wsum += b->wlen[k];
    }
    contract(b->eta[0] == 0.0 && b->eta[b->nnodes - 1] == 1.0, "eta runs from 0 to 1");
    if (!b->curve) {
        double L = polyline_length(b);
        contract(fabs(wsum - L) <= 1e-9 * L, "a straight beam's shares sum to its length");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ld_model m;
    if (!fuzz_parse_model(data, size, &m)) return 0;
    for (int i = 0; i < m.nbeams; ++i) check_beam(&m, &m.beams[i]);
    (void)ld_model_has_contact(&m);
    if (m.nbodies <= MAX_RUN_BODIES) fuzz_run_model(&m, fuzz_hash(data, size));
    ld_model_free(&m);
    return 0;
}

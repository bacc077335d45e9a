/*
 * Fuzz target: the checkpoint reader, ld_integ_load (docs/fuzzing.md).
 *
 * The input bytes are a checkpoint file. The heavy top (a body on a spherical joint) is compiled
 * once per process, with an integrator for every method that runs it (fixed steps, and
 * controlled steps for the methods with an estimate); the input goes to the integrator of the
 * method its header names (else one picked by a hash of the input). For half of the inputs,
 * chosen by that hash, the harness writes a valid FNV-1a checksum over the last 8 bytes first,
 * so that the mutations reach the checks of the contents behind the checksum. Contracts:
 *   - a refused file comes with a message naming the file, and leaves the integrator's time,
 *     state and statistics untouched, bit for bit;
 *   - an accepted file gives a finite time and state, statistics >= 0 and a next step > 0,
 *     and the integrator then steps (the status is free, the state after LD_OK finite).
 * After each input the integrator is set back to its initial state.
 *
 * LIEDYN_FUZZ_CHECKPOINT_SEEDS=DIR in the environment: write a checkpoint of every integrator
 * after three steps to DIR (the seeds in tests/fuzz/corpus/checkpoint/ were made so).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "liedyn/liedyn.h"

#define TAG       0x5eed5eedull
#define USER_SIZE 24
#define MAX_INTEG 64

static const char model_text[] = "name: top\n"
                                 "gravity: [0, 0, -9.81]\n"
                                 "bodies:\n"
                                 "  - name: top\n"
                                 "    mass: 15.0\n"
                                 "    inertia: [0.234375, 0.46875, 0.234375]\n"
                                 "    position: [0, 1, 0]\n"
                                 "    angular_velocity: [0, 150, -4.61538]\n"
                                 "joints:\n"
                                 "  - {name: pivot, type: spherical, body: top, point: [0, -1, "
                                 "0], ground: [0, 0, 0]}\n";

typedef struct harness {
    int ready;
    ld_model m;
    ld_system s;
    double *q0, *v0;
    ld_integ *it[MAX_INTEG];
    int method[MAX_INTEG], adaptive[MAX_INTEG], n;
    char path[4096];
} harness;

static harness H;

static void contract(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "fuzz_checkpoint: contract broken: %s\n", what);
    abort();
}

static void remove_tmp(void) {
    if (H.path[0]) unlink(H.path);
}

/* One step of integrator i: a controlled one or a fixed 1 ms. */
static int step(int i) {
    return H.adaptive[i] ? ld_integ_step_adaptive(H.it[i], ld_integ_t(H.it[i]) + 1.0)
                         : ld_integ_advance(H.it[i], 1e-3);
}

/* Add the integrator of method m (adaptive a) if the method runs the heavy top. */
static void add_integ(int m, int a) {
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)m;
    o.adaptive = a;
    o.h_init = 1e-3;
    o.max_iter = 10;
    o.max_halvings = 2;
    o.max_rejects = 4;
    if (ld_integ_options_check(&H.s, &o) || H.n == MAX_INTEG) return;
    int st = 0;
    ld_integ *it = ld_integ_create(&H.s, &o, &st);
    if (!it) return;
    if (ld_integ_init(it, 0.0, H.q0, H.v0) != LD_OK) {
        ld_integ_free(it);
        return;
    }
    H.it[H.n] = it, H.method[H.n] = m, H.adaptive[H.n] = a;
    H.n++;
}

/* Write a seed of every integrator to dir (after three steps), then start them again. */
static void write_seeds(const char *dir) {
    for (int i = 0; i < H.n; ++i) {
        for (int k = 0; k < 3; ++k) (void)step(i);
        char file[4200];
        snprintf(file, sizeof file, "%s/%s%s.ck", dir, ld_integ_method_name(H.method[i]),
                 H.adaptive[i] ? "-adaptive" : "");
        unsigned char user[USER_SIZE];
        for (int k = 0; k < USER_SIZE; ++k) user[k] = (unsigned char)k;
        (void)ld_integ_save(H.it[i], file, TAG, user, sizeof user, NULL, 0);
        (void)ld_integ_init(H.it[i], 0.0, H.q0, H.v0);
    }
}

static void setup(void) {
    ld_model_error e;
    H.ready = -1;
    if (ld_model_parse(model_text, strlen(model_text), "top.yaml", &H.m, &e) != LD_OK) return;
    if (ld_model_compile(&H.m, LD_FORM_SO3XR3, &H.s, &H.q0, &H.v0) != LD_OK) return;
    for (int m = 0; m < ld_method_count(); ++m) {
        add_integ(m, 0);
        if (ld_integ_method_has_estimate((ld_integ_method)m)) add_integ(m, 1);
    }
    const char *dir = getenv("TMPDIR");
    snprintf(H.path, sizeof H.path, "%s/liedyn-fuzz-ck-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(H.path);
    if (fd < 0) return;
    close(fd);
    atexit(remove_tmp);
    const char *seeds = getenv("LIEDYN_FUZZ_CHECKPOINT_SEEDS");
    if (seeds && *seeds) write_seeds(seeds);
    H.ready = H.n > 0;
}

/* The FNV-1a hash of p[n] (the checkpoint's checksum). */
static uint64_t fnv64(const unsigned char *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The integrator for the input: the method of its header (offset 20), adaptive by bit a. */
static int pick(const uint8_t *data, size_t size, uint32_t h) {
    uint32_t m = 0xffffffffu;
    if (size >= 24) memcpy(&m, data + 20, 4);
    int first = -1;
    for (int i = 0; i < H.n; ++i)
        if ((uint32_t)H.method[i] == m) {
            if (first < 0) first = i;
            if (H.adaptive[i] == (int)((h >> 1) & 1)) return i;
        }
    return first >= 0 ? first : (int)((h >> 2) % (uint32_t)H.n);
}

/* What a caller observes of integrator it. */
typedef struct snapshot {
    double t, h;
    double *q;
    ld_integ_stats st;
} snapshot;

static void snap(const ld_integ *it, snapshot *sn) {
    sn->t = ld_integ_t(it);
    sn->h = ld_integ_next_h(it);
    ld_integ_get_stats(it, &sn->st);
    size_t n = (size_t)H.s.nq + 2 * (size_t)H.s.k + (size_t)H.s.m;
    sn->q = malloc(n * sizeof(double));
    contract(sn->q != NULL, "memory for a snapshot");
    memcpy(sn->q, ld_integ_q(it), (size_t)H.s.nq * sizeof(double));
    memcpy(sn->q + H.s.nq, ld_integ_v(it), (size_t)H.s.k * sizeof(double));
    memcpy(sn->q + H.s.nq + H.s.k, ld_integ_vdot(it), (size_t)H.s.k * sizeof(double));
    memcpy(sn->q + H.s.nq + 2 * H.s.k, ld_integ_lambda(it), (size_t)H.s.m * sizeof(double));
}

static int same_snapshot(const snapshot *a, const snapshot *b) {
    size_t n = (size_t)H.s.nq + 2 * (size_t)H.s.k + (size_t)H.s.m;
    return memcmp(&a->t, &b->t, sizeof a->t) == 0 && memcmp(&a->h, &b->h, sizeof a->h) == 0 &&
           memcmp(a->q, b->q, n * sizeof(double)) == 0 && a->st.steps == b->st.steps &&
           a->st.rejected == b->st.rejected && a->st.newton_iterations == b->st.newton_iterations;
}

static int finite_all(const double *x, int n) {
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* An accepted checkpoint: a sane state, and the integrator steps from it. */
static void accepted(int i) {
    ld_integ *it = H.it[i];
    ld_integ_stats st;
    ld_integ_get_stats(it, &st);
    contract(isfinite(ld_integ_t(it)), "an accepted checkpoint has a finite time");
    contract(finite_all(ld_integ_q(it), H.s.nq) && finite_all(ld_integ_v(it), H.s.k),
             "an accepted checkpoint has a finite state");
    contract(ld_integ_next_h(it) > 0.0, "an accepted checkpoint has a next step > 0");
    contract(st.steps >= 0 && st.rejected >= 0 && st.newton_iterations >= 0 &&
                 st.factorizations >= 0,
             "an accepted checkpoint has statistics >= 0");
    for (int k = 0; k < 3; ++k) {
        int rc = step(i);
        if (rc != LD_OK) break;
        contract(finite_all(ld_integ_q(it), H.s.nq), "a step from a checkpoint stays finite");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!H.ready) setup();
    if (H.ready < 0) return 0;
    uint32_t h = fuzz_hash(data, size);
    unsigned char *bytes = malloc(size ? size : 1);
    contract(bytes != NULL, "memory for the input");
    if (size) memcpy(bytes, data, size);
    if ((h & 1) && size >= 8) { /* a valid checksum over the rest */
        uint64_t sum = fnv64(bytes, size - 8);
        memcpy(bytes + size - 8, &sum, 8);
    }
    FILE *f = fopen(H.path, "wb");
    if (!f) {
        free(bytes);
        return 0;
    }
    size_t w = size ? fwrite(bytes, 1, size, f) : 0;
    free(bytes);
    if (fclose(f) != 0 || w != size) return 0;

    int i = pick(data, size, h);
    snapshot before, after;
    snap(H.it[i], &before);
    unsigned char user[USER_SIZE];
    char msg[512];
    int rc = ld_integ_load(H.it[i], H.path, TAG, user, sizeof user, msg, sizeof msg);
    if (rc == LD_OK) {
        accepted(i);
    } else {
        contract(rc < 0, "a refused checkpoint is a fatal status");
        contract(memchr(msg, '\0', sizeof msg) && strstr(msg, H.path), "a refusal names the file");
        snap(H.it[i], &after);
        contract(same_snapshot(&before, &after), "a refused checkpoint leaves the integrator");
        free(after.q);
    }
    free(before.q);
    contract(ld_integ_init(H.it[i], 0.0, H.q0, H.v0) == LD_OK, "the integrator starts again");
    return 0;
}

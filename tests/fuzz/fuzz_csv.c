/*
 * Fuzz target: the CSV reader of `liedyn view` (RFC 4180, src/io/csv.h) against a small model,
 * and the round trip of the CSV writer's quoting (docs/fuzzing.md).
 *
 * The input bytes are, first, a run's CSV: ld_io_view_csv reads them for the model below (at
 * most a number of frames picked by a hash of the input); read frames have times that do not
 * decrease, a refusal comes with a message. Second, the bytes cut at NUL bytes are names
 * (any bytes but NUL, as a model allows): written as a header line by ld_io_csv_field, the
 * writer's quoting, then read back by ld_io_csv_read, each must be the name written. Third,
 * the first two names that fit become the model's body names: the header that the run writer
 * would write for it (ld_out_columns, quoted) and a row of zeros must be read by
 * ld_io_view_csv. Contract violations abort (libFuzzer records a crash).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "fuzz.h"
#include "liedyn/liedyn.h"
#include "liedyn/output.h"
#include "view.h"

#define MAX_NAMES 64

static const char model_text[] =
    "name: fuzz-csv\n"
    "bodies:\n"
    "  - {name: \"top, \\\"1\\\"\", mass: 15, inertia: [1, 2, 1], position: [0, 1, 0]}\n"
    "  - {name: arm, mass: 1, inertia: [1, 1, 1], position: [1, 1, 0]}\n"
    "joints:\n"
    "  - {name: pivot, type: spherical, body: \"top, \\\"1\\\"\", point: [0, -1, 0],\n"
    "     ground: [0, 0, 0]}\n"
    "  - {name: hinge, type: revolute, body1: \"top, \\\"1\\\"\", body2: arm, at: [0.5, 1, 0],\n"
    "     axis: [0, 0, 1]}\n";

static ld_model model;
static int have_model;

static void contract(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "fuzz_csv: contract broken: %s\n", what);
    abort();
}

static void free_model(void) {
    ld_model_free(&model);
}

/* The model, read once. */
static ld_model *get_model(void) {
    if (!have_model) {
        ld_model_error err;
        contract(ld_model_parse(model_text, sizeof model_text - 1, "fuzz-csv.yaml", &model, &err) ==
                     LD_OK,
                 "the target's model reads");
        have_model = 1;
        atexit(free_model);
    }
    return &model;
}

/* ld_io_view_csv on text[len] for m. Returns its status; the contract checked. */
static int view(const ld_model *m, const char *text, size_t len, long max) {
    FILE *f = len ? fmemopen((void *)(uintptr_t)text, len, "rb") : fopen("/dev/null", "rb");
    if (!f) return 0;
    view_frames F;
    double t0, t1;
    char why[512];
    why[0] = '\0';
    int rc = ld_io_view_csv(f, "fuzz.csv", m, max, &F, &t0, &t1, why, sizeof why);
    fclose(f);
    if (rc != LD_OK) {
        contract(rc < 0 && why[0], "a refused CSV comes with a message");
        return rc;
    }
    contract(F.n >= 1 && F.n <= F.max, "frames within the bound");
    for (long i = 1; i < F.n; ++i) contract(F.t[i] >= F.t[i - 1], "frame times increase");
    ld_io_frames_free(&F);
    return rc;
}

/* The names of data[size]: the pieces between NUL bytes (at most MAX_NAMES). */
static int split_names(const uint8_t *data, size_t size, char **names) {
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && n < MAX_NAMES; ++i) {
        if (i < size && data[i]) continue;
        names[n] = malloc(i - start + 1);
        if (!names[n]) break;
        memcpy(names[n], data + start, i - start);
        names[n++][i - start] = '\0';
        start = i + 1;
    }
    return n;
}

/* Append s to the growing buffer *b (*len, *cap). */
static void append(char **b, size_t *len, size_t *cap, const char *s) {
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t c = 2 * (*len + n + 1);
        char *g = realloc(*b, c);
        contract(g != NULL, "memory");
        *b = g;
        *cap = c;
    }
    memcpy(*b + *len, s, n + 1);
    *len += n;
}

/* The names as a header written with the writer's quoting and read back: equal. */
static void round_trip(char **names, int n) {
    char *line = NULL;
    size_t len = 0, cap = 0;
    for (int i = 0; i < n; ++i) {
        size_t qcap = 2 * strlen(names[i]) + 3;
        char *q = malloc(qcap);
        contract(q && ld_io_csv_field(names[i], q, qcap) >= 0, "a field fits twice its length");
        if (i) append(&line, &len, &cap, ",");
        append(&line, &len, &cap, q);
        free(q);
    }
    append(&line, &len, &cap, "\n");
    FILE *f = fmemopen(line, len, "rb");
    contract(f != NULL, "fmemopen");
    ld_io_csv_record r = {0};
    char why[256];
    int got = ld_io_csv_read(f, &r, why, sizeof why);
    contract(got == 1 && r.n == n, "the header reads back with its field count");
    for (int i = 0; i < n; ++i) contract(strcmp(r.field[i], names[i]) == 0, "names read back");
    contract(ld_io_csv_read(f, &r, why, sizeof why) == 0, "one record only");
    ld_io_csv_record_free(&r);
    fclose(f);
    free(line);
}

/* The run writer's header for m with the first two usable names as its body names, a row of
 * zeros: view reads it. */
static void writer_header(ld_model *m, char **names, int n) {
    const char *use[2] = {NULL, NULL};
    for (int i = 0, k = 0; i < n && k < 2; ++i)
        if (names[i][0] && strlen(names[i]) < LD_NAME_MAX && (k == 0 || strcmp(names[i], use[0])))
            use[k++] = names[i];
    if (!use[1]) return;
    char keep[2][LD_NAME_MAX];
    for (int b = 0; b < 2; ++b) {
        memcpy(keep[b], m->bodies[b].name, LD_NAME_MAX);
        snprintf(m->bodies[b].name, LD_NAME_MAX, "%s", use[b]);
    }
    char **cols;
    int nc;
    contract(ld_out_columns(m, 0, &cols, &nc) == LD_OK, "ld_out_columns");
    char *text = NULL;
    size_t len = 0, cap = 0;
    char q[2 * (LD_NAME_MAX + 24) + 3];
    for (int i = 0; i < nc; ++i) {
        contract(ld_io_csv_field(cols[i], q, sizeof q) >= 0, "a column name fits");
        if (i) append(&text, &len, &cap, ",");
        append(&text, &len, &cap, q);
    }
    append(&text, &len, &cap, "\n");
    for (int i = 0; i < nc; ++i) append(&text, &len, &cap, i ? ",0" : "0");
    append(&text, &len, &cap, "\n");
    contract(view(m, text, len, 10) == LD_OK, "view reads the header the writer writes");
    free(text);
    free(cols);
    for (int b = 0; b < 2; ++b) memcpy(m->bodies[b].name, keep[b], LD_NAME_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ld_model *m = get_model();
    (void)view(m, (const char *)data, size, 2 + (long)(fuzz_hash(data, size) % 50));
    char *names[MAX_NAMES];
    int n = split_names(data, size, names);
    round_trip(names, n);
    writer_header(m, names, n);
    for (int i = 0; i < n; ++i) free(names[i]);
    return 0;
}

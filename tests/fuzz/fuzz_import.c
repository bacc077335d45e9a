/*
 * Fuzz target: the URDF and MJCF importers and what runs an imported model (docs/fuzzing.md).
 *
 * The input bytes are a robot file. They are written to a file in a private temporary
 * directory (named .urdf or .xml by a hash of the bytes: the importer chooses the format by
 * the root element, not the name), and ld_import_translate and ld_model_import read it; an
 * imported model runs as fuzz_model runs one (fuzz_run_model: compiled, a few capped steps).
 * Mesh files the input names resolve inside that empty directory or wherever its paths point:
 * the importer must refuse what it cannot read with a message, never crash on it. Contracts:
 *   - a refused file returns a negative status with a non-empty, NUL-terminated message, and
 *     leaves the outputs untouched (the YAML text NULL);
 *   - the translated text and the import agree: ld_model_import accepts exactly when the model
 *     reader accepts the text of ld_import_translate (what `liedyn convert` writes is what
 *     `liedyn run` runs), and the model it gives passes ld_model_validate.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "liedyn/import.h"
#include "liedyn/liedyn.h"

#define MAX_RUN_BODIES 200

static char dir[4096], files[2][4200];

static void remove_tmp(void) {
    for (int i = 0; i < 2; ++i)
        if (files[i][0]) unlink(files[i]);
    if (dir[0]) rmdir(dir);
}

/* The private directory's file for format f (0: .urdf, 1: .xml), created on first use ("" if
 * it cannot be). */
static const char *tmp_file(int f) {
    if (!dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/liedyn-fuzz-import-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(dir)) {
            dir[0] = '\0';
            return "";
        }
        snprintf(files[0], sizeof files[0], "%s/robot.urdf", dir);
        snprintf(files[1], sizeof files[1], "%s/model.xml", dir);
        atexit(remove_tmp);
    }
    return files[f];
}

static void contract(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "fuzz_import: contract broken: %s\n", what);
    abort();
}

static int write_file(const char *path, const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) != 0 || w != size ? -1 : 0;
}

/* The translation: refused with a message, or a text; 1 if the model reader accepts it. */
static int translate(const char *path) {
    char *yaml = NULL;
    size_t len = 0;
    ld_model_error err;
    memset(&err, 0, sizeof err);
    int rc = ld_import_translate(path, NULL, &yaml, &len, &err, NULL);
    if (rc != LD_OK) {
        contract(rc < 0, "a refused file returns a negative status");
        contract(yaml == NULL, "a refused file leaves no text");
        contract(memchr(err.msg, '\0', sizeof err.msg) && err.msg[0], "a refusal's message");
        return 0;
    }
    contract(yaml != NULL && strlen(yaml) == len, "the text and its length");
    ld_model m;
    int ok = ld_model_parse(yaml, len, "translated.yaml", &m, &err) == LD_OK;
    if (ok) ld_model_free(&m);
    free(yaml);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint32_t h = fuzz_hash(data, size);
    const char *path = tmp_file((int)(h & 1));
    if (!path[0] || write_file(path, data, size)) return 0;
    int text_ok = translate(path);
    ld_model m;
    ld_model_error err;
    ld_import_report rep;
    memset(&rep, 0, sizeof rep);
    int rc = ld_model_import(path, &m, &err, &rep);
    contract((rc == LD_OK) == text_ok, "the import accepts what the reader takes of its text");
    if (rc != LD_OK) {
        contract(rc < 0, "a refused import returns a negative status");
        contract(memchr(err.msg, '\0', sizeof err.msg) && err.msg[0], "a refusal's message");
        ld_import_report_free(&rep);
        return 0;
    }
    contract(ld_model_validate(&m, &err) == LD_OK, "an imported model validates");
    if (m.nbodies <= MAX_RUN_BODIES) fuzz_run_model(&m, h >> 1);
    ld_model_free(&m);
    ld_import_report_free(&rep);
    return 0;
}

/*
 * Fuzz target: the sweep-file reader (docs/sweep.md, docs/fuzzing.md) and the check of its
 * paths against a small model, without running a case.
 *
 * The input bytes are a sweep file; its `model:` key is not looked up: the model is the text
 * below (sweep_parse). An accepted sweep is checked against its contract — at least one case,
 * at most SW_MAX_PARAMS parameters with non-empty paths — and the model text of up to three of
 * its cases is built (the first, the last, one picked by a hash of the input) and read by the
 * model reader; a case whose text cannot be built says why. A refused file comes with a
 * message. Contract violations abort (libFuzzer records a crash).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz.h"
#include "liedyn/liedyn.h"
#include "sweep.h"

/* Two bodies on a spherical and a revolute joint: lists, names and the integrator to vary. */
static const char model_text[] =
    "name: fuzz-sweep\n"
    "gravity: [0, 0, -9.81]\n"
    "bodies:\n"
    "  - {name: top, mass: 15, inertia: [0.234375, 0.46875, 0.234375], position: [0, 1, 0],\n"
    "     angular_velocity: [0, 150, -4.6]}\n"
    "  - {name: \"arm, 2\", mass: 1, inertia: [1, 1, 1], position: [1, 1, 0]}\n"
    "joints:\n"
    "  - {name: pivot, type: spherical, body: top, point: [0, -1, 0], ground: [0, 0, 0]}\n"
    "  - {name: hinge, type: revolute, body1: top, body2: \"arm, 2\", at: [0.5, 1, 0],\n"
    "     axis: [0, 0, 1]}\n"
    "integrator: {name: genalpha, formulation: so3xr3, dt: 1.0e-3, t_end: 0.01, rho_inf: 0.9}\n";

static void contract(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "fuzz_sweep: contract broken: %s\n", what);
    abort();
}

/* Build case i's model text and read it. */
static void try_case(const sweep *sw, long i) {
    char *text = NULL, why[512];
    size_t len = 0;
    why[0] = '\0';
    if (sweep_case_text(sw, i, NULL, 0, &text, &len, why, sizeof why) != 0) {
        contract(text == NULL && why[0], "a case that cannot be built says why");
        return;
    }
    contract(text != NULL, "a case's text");
    ld_model m;
    ld_model_error err;
    if (ld_model_parse(text, len, "case.yaml", &m, &err) == LD_OK) ld_model_free(&m);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char msg[2048];
    cli_error_capture(msg, sizeof msg);
    sweep sw;
    int rc = sweep_parse(&sw, "fuzz.yaml", (const char *)data, size, "model.yaml", model_text,
                         sizeof model_text - 1);
    cli_error_capture(NULL, 0);
    if (rc != 0) {
        contract(rc == 2 && msg[0], "a refused sweep file comes with a message");
        return 0;
    }
    contract(sw.ncases >= 1 && sw.nparams >= 0 && sw.nparams <= SW_MAX_PARAMS,
             "an accepted sweep has cases and at most SW_MAX_PARAMS parameters");
    for (int k = 0; k < sw.nparams; ++k) contract(sw.params[k].path[0], "a path is not empty");
    uint32_t h = fuzz_hash(data, size);
    try_case(&sw, 0);
    if (sw.ncases > 1) try_case(&sw, sw.ncases - 1);
    if (sw.ncases > 2) try_case(&sw, (long)(h % (uint32_t)sw.ncases));
    sweep_free(&sw);
    return 0;
}

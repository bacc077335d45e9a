/*
 * Out of memory says how much, for what: each refusal reads "out of memory: N bytes for WHAT"
 * (N the size asked for), never a bare "out of memory". The test is linked with
 * --wrap=malloc,calloc,realloc: the wrappers refuse every request while refuse_all is set
 * (the statics, the linearization, the modes), or only the request numbered fail_at. The
 * readers and writers (model files, imported URDF and MJCF, sweep files, gyro files, the CSV
 * and HTML writers, the CSV reader of the viewer, checkpoints) are run once per allocation
 * they make with that allocation refused, until a run makes no refused request: every run
 * that fails must fail with the sized message (the allocator of libyaml, libxml2 and assimp
 * is not wrapped: they are shared libraries).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "cli.h"
#include "liedyn/attitude.h"
#include "liedyn/import.h"
#include "liedyn/integrator.h"
#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/output.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"
#include "oom.h"
#include "sweep.h"
#include "view.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t sz);
void *__wrap_realloc(void *p, size_t n);

static int refuse_all;    /* an exhausted machine */
static long n_calls;      /* requests since the count was reset */
static long fail_at = -1; /* the request to refuse (counted from 0), or −1 */
static int refused;       /* a request was refused */

/* Refuse this request? */
static int refuse(void) {
    long k = n_calls++;
    if (!refuse_all && k != fail_at) return 0;
    refused = 1;
    return 1;
}

void *__wrap_malloc(size_t n) {
    return refuse() ? NULL : __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t sz) {
    return refuse() ? NULL : __real_calloc(n, sz);
}
void *__wrap_realloc(void *p, size_t n) {
    return refuse() ? NULL : __real_realloc(p, n);
}

/* A double pendulum on two hinges with a damper: constraints, two modes. */
static const char MODEL[] =
    "name: oom\n"
    "bodies:\n"
    "  - {name: a, mass: 1, inertia: [0.1, 0.1, 0.1], position: [0.5, 0, 0]}\n"
    "  - {name: b, mass: 1, inertia: [0.1, 0.1, 0.1], position: [1.5, 0, 0]}\n"
    "joints:\n"
    "  - {name: j1, type: revolute, body1: ground, body2: a, at: [0, 0, 0], "
    "axis: [0, 1, 0]}\n"
    "  - {name: j2, type: revolute, body1: a, body2: b, at: [1, 0, 0], "
    "axis: [0, 1, 0]}\n"
    "elements:\n"
    "  - {type: rotational-spring-damper, body1: ground, body2: a, axis: [0, 1, 0], k: 0, c: "
    "0.3}\n";

typedef struct fixture {
    ld_model m;
    ld_system s;
    double *q0, *v0;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    ld_model_error e;
    if (!f || ld_model_parse(MODEL, sizeof MODEL - 1, "oom.yaml", &f->m, &e) != LD_OK) {
        if (f) fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    if (ld_model_compile(&f->m, LD_FORM_SO3XR3, &f->s, &f->q0, &f->v0) != LD_OK) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    free(f->q0);
    free(f->v0);
    ld_model_system_free(&f->s);
    ld_model_free(&f->m);
    free(f);
    return 0;
}

/* msg says "out of memory: N bytes for WHAT" with N > 0 and a WHAT. */
static void says_how_much(int rc, const char *msg, const char *what) {
    const char *p = strstr(msg, "out of memory: ");
    char *end = NULL;
    double n = p ? strtod(p + 15, &end) : 0.0;
    if (rc != LD_ENOMEM || !p || !(n > 0.0) || strncmp(end, " bytes for ", 11) != 0 ||
        end[11] == '\0' || end[11] == ' ')
        fail_msg("%s: status %d, '%s'", what, rc, msg);
    printf("%s: %s\n", what, msg);
}

static void test_statics(void **state) {
    fixture *f = *state;
    double q[64], lam[16];
    char msg[512] = "";
    memcpy(q, f->q0, (size_t)f->s.nq * sizeof *q);
    ld_static_options o;
    ld_static_options_init(&o);
    refuse_all = 1;
    int rc = ld_static_solve(&f->s, 0.0, q, lam, &o, NULL, msg, sizeof msg);
    refuse_all = 0;
    says_how_much(rc, msg, "statics");
}

static void test_linearize_and_modes(void **state) {
    fixture *f = *state;
    char msg[512] = "";
    ld_linear lin;
    refuse_all = 1;
    int rc = ld_linearize(&f->s, 0.0, f->q0, NULL, &lin, msg, sizeof msg);
    refuse_all = 0;
    says_how_much(rc, msg, "linearize");
    assert_int_equal(ld_linearize(&f->s, 0.0, f->q0, NULL, &lin, msg, sizeof msg), LD_OK);
    ld_modes md;
    refuse_all = 1;
    rc = ld_modes_undamped(&lin, 0, &md, msg, sizeof msg);
    refuse_all = 0;
    says_how_much(rc, msg, "undamped modes");
    refuse_all = 1;
    rc = ld_modes_damped(&lin, 0, &md, msg, sizeof msg);
    refuse_all = 0;
    says_how_much(rc, msg, "damped modes");
    ld_linear_free(&lin);
}

/* ------------------------------------------------------------------ every allocation refused */

/* msg holds "out of memory: N bytes for WHAT" (N > 0), and every "out of memory" in it is so. */
static int sized(const char *msg) {
    const char *p = strstr(msg, "out of memory");
    if (!p) return 0;
    for (; p; p = strstr(p + 1, "out of memory")) {
        char *end = NULL;
        double n = strncmp(p, "out of memory: ", 15) == 0 ? strtod(p + 15, &end) : 0.0;
        if (!(n > 0.0) || strncmp(end, " bytes for ", 11) != 0 || end[11] == '\0' || end[11] == ' ')
            return 0;
    }
    return 1;
}

/* An operation: its status, its message into msg[cap] on failure. */
typedef int (*op_fn)(void *ctx, char *msg, size_t cap);

/* Run op once per allocation it makes, with that allocation refused, until a run makes no
 * refused request (it must then succeed). A run that fails must return `status` (any but 0
 * when status is 0) with a sized message. Returns the count of allocations of a successful run. */
static long every_refusal(const char *name, op_fn op, void *ctx, int status) {
    char msg[2048], first[2048] = "";
    long k = 0, failed = 0, bad = 0;
    for (;; ++k) {
        msg[0] = '\0';
        ld_oom_last_str(); /* no record left by the run before */
        n_calls = 0, refused = 0, fail_at = k;
        int rc = op(ctx, msg, sizeof msg);
        fail_at = -1;
        if (!refused) {
            if (rc) fail_msg("%s: fails with nothing refused: status %d, '%s'", name, rc, msg);
            break;
        }
        if (rc == 0) continue; /* the refusal was survived */
        if ((status ? rc != status : rc == 0) || !sized(msg)) {
            print_error("%s: allocation %ld refused: status %d, '%s'\n", name, k, rc, msg);
            ++bad;
        }
        if (!failed++) memcpy(first, msg, sizeof first);
    }
    if (bad) fail_msg("%s: %ld refusals reported without their size", name, bad);
    printf("%s: %ld allocations; %ld refusals fail it, each sized, e.g. '%s'\n", name, k, failed,
           first);
    assert_true(failed > 0);
    return k;
}

/* every_refusal of a command of the tool: any exit code but 0. */
static long every_refusal_any(const char *name, op_fn op, void *ctx) {
    return every_refusal(name, op, ctx, 0);
}

/* ld_model_load of the file ctx (LD_SOURCE_DIR/...). */
static int op_model_load(void *ctx, char *msg, size_t cap) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", LD_SOURCE_DIR, (const char *)ctx);
    ld_model m;
    ld_model_error e;
    int rc = ld_model_load(path, &m, &e);
    if (rc == LD_OK)
        ld_model_free(&m);
    else
        snprintf(msg, cap, "%s", e.msg);
    return rc;
}

/* ld_model_import of the URDF or MJCF file ctx. */
static int op_import(void *ctx, char *msg, size_t cap) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", LD_SOURCE_DIR, (const char *)ctx);
    ld_model m;
    ld_model_error e;
    int rc = ld_model_import(path, &m, &e, NULL);
    if (rc == LD_OK)
        ld_model_free(&m);
    else
        snprintf(msg, cap, "%s", e.msg);
    return rc;
}

static void test_model_files(void **state) {
    (void)state;
    static const char *const files[] = {
        "models/heavy-top.yaml",      "models/flying-spaghetti.yaml",
        "models/beam-roll-up.yaml",   "models/two-link-arm-servo.yaml",
        "models/spheres-in-box.yaml", "models/slider-crank.yaml",
        "models/iea15-blade.yaml",    "tests/data/import/meshes.yaml",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i)
        every_refusal(files[i], op_model_load, (void *)(uintptr_t)files[i], LD_ENOMEM);
}

static void test_import(void **state) {
    (void)state;
    static const char *const files[] = {
        "tests/data/import/double-pendulum.urdf", "tests/data/import/double-pendulum.xml",
        "tests/data/import/meshes.urdf",          "tests/data/import/meshes.xml",
        "tests/data/import/two-link.urdf",        "tests/data/import/include/arm.xml",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i)
        every_refusal(files[i], op_import, (void *)(uintptr_t)files[i], LD_ENOMEM);
}

/* The sweep files' model: a top and an arm. */
static const char SWEEP_MODEL[] =
    "name: sweep\n"
    "bodies:\n"
    "  - {name: top, mass: 15, inertia: [0.234375, 0.46875, 0.234375], position: [0, 1, 0]}\n"
    "  - {name: arm, mass: 1, inertia: [1, 1, 1], position: [1, 1, 0]}\n"
    "joints:\n"
    "  - {name: pivot, type: spherical, body: top, point: [0, -1, 0], ground: [0, 0, 0]}\n"
    "  - {name: hinge, type: revolute, body1: top, body2: arm, at: [0.5, 1, 0], axis: [0, 0, 1]}\n"
    "integrator: {name: genalpha, dt: 1.0e-3, t_end: 0.01}\n";

/* sweep_parse of the text ctx (the tool's messages captured). */
static int op_sweep(void *ctx, char *msg, size_t cap) {
    const char *text = ctx;
    sweep sw;
    cli_error_capture(msg, cap);
    int rc = sweep_parse(&sw, "sweep.yaml", text, strlen(text), "model.yaml", SWEEP_MODEL,
                         sizeof SWEEP_MODEL - 1);
    cli_error_capture(NULL, 0);
    if (rc == 0) sweep_free(&sw);
    return rc;
}

static void test_sweep_files(void **state) {
    (void)state;
    static const char grid[] = "model: m\n"
                               "t_end: 0.01\n"
                               "vary:\n"
                               "  integrator.dt: &dt [2e-3, 1e-3]\n"
                               "  bodies[0].mass: [10, 15]\n"
                               "  joints[1].axis: [[0, 0, 1], [0, 1, 0]]\n"
                               "record: [final_state, energy_drift, status]\n";
    static const char cases[] = "model: m\n"
                                "cases:\n"
                                "  - {integrator.name: hem5, \"bodies[1].mass\": 2}\n"
                                "  - {integrator.name: genalpha}\n"
                                "reference: {integrator.dt: 1e-5, shared: true}\n"
                                "record: [error, steps, status]\n";
    every_refusal("sweep grid", op_sweep, (void *)(uintptr_t)grid, 2);
    every_refusal("sweep cases", op_sweep, (void *)(uintptr_t)cases, 2);
}

/* ld_gyro_read of tests/data/gyro_const.csv. */
static int op_gyro(void *ctx, char *msg, size_t cap) {
    (void)ctx;
    ld_gyro *g = NULL;
    int rc = ld_gyro_read(LD_SOURCE_DIR "/tests/data/gyro_const.csv", &g, msg, cap);
    ld_gyro_free(g);
    return rc;
}

static void test_gyro_file(void **state) {
    (void)state;
    every_refusal("gyro file", op_gyro, NULL, LD_ENOMEM);
}

/* Write a run of the fixture to path: 21 rows over [0, 0.02]. */
static int write_csv(fixture *f, const char *path, char *msg, size_t cap) {
    int st = 0;
    ld_out_csv *w = ld_out_csv_open(path, &f->s, &f->m, NULL, 0, &st, msg, cap);
    if (!w) return st;
    int rc = LD_OK;
    for (int i = 0; i <= 20 && !rc; ++i)
        rc = ld_out_csv_row(w, 1e-3 * i, f->q0, f->v0, NULL, 1e-3, 0.0);
    if (rc) snprintf(msg, cap, "%s", ld_out_csv_message(w));
    int rc2 = ld_out_csv_close(w);
    ld_out_csv_free(w);
    return rc ? rc : rc2;
}

static int op_csv_writer(void *ctx, char *msg, size_t cap) {
    return write_csv(ctx, "oom_run.csv", msg, cap);
}

/* ld_io_view_csv of oom_run.csv. */
static int op_view_csv(void *ctx, char *msg, size_t cap) {
    fixture *f = ctx;
    FILE *in = fopen("oom_run.csv", "rb");
    if (!in) return snprintf(msg, cap, "cannot open oom_run.csv"), LD_EIO;
    view_frames F;
    double t0, t1;
    int rc = ld_io_view_csv(in, "oom_run.csv", &f->m, 100, &F, &t0, &t1, msg, cap);
    if (rc == LD_OK) ld_io_frames_free(&F);
    fclose(in);
    return rc;
}

static void test_csv(void **state) {
    fixture *f = *state;
    every_refusal("CSV writer", op_csv_writer, f, LD_ENOMEM);
    char msg[512];
    assert_int_equal(write_csv(f, "oom_run.csv", msg, sizeof msg), LD_OK);
    every_refusal("CSV reader of the viewer", op_view_csv, f, LD_ENOMEM);
    remove("oom_run.csv");
}

/* ld_out_html_open, 21 frames, ld_out_html_write to oom_run.html. */
static int op_html(void *ctx, char *msg, size_t cap) {
    fixture *f = ctx;
    int st = 0;
    ld_out_html *w = ld_out_html_open(&f->s, &f->m, 0.0, 0.02, 0, &st, msg, cap);
    if (!w) return st;
    int rc = LD_OK;
    for (int i = 0; i <= 20 && !rc; ++i) rc = ld_out_html_frame(w, 1e-3 * i, f->q0, f->v0);
    if (rc) ld_oom_last(msg, cap); /* what `liedyn run --html` reports */
    if (!rc) rc = ld_out_html_write(w, "oom_run.html", "oom", msg, cap);
    ld_out_html_free(w);
    return rc;
}

static void test_html(void **state) {
    char why[256];
    if (!ld_out_html_available(why, sizeof why)) {
        printf("HTML writer: not built in (%s)\n", why);
        skip();
    }
    every_refusal("HTML writer", op_html, *state, LD_ENOMEM);
    remove("oom_run.html");
}

/* ld_out_vtk_open, 3 frames, ld_out_vtk_close into the current directory (oom_vtk_*). */
static int op_vtk(void *ctx, char *msg, size_t cap) {
    fixture *f = ctx;
    int st = 0;
    ld_out_vtk *w = ld_out_vtk_open(".", "oom_vtk", &f->s, &f->m, &st, msg, cap);
    if (!w) return st;
    int rc = LD_OK;
    for (int i = 0; i < 3 && !rc; ++i) rc = ld_out_vtk_frame(w, 1e-3 * i, f->q0, f->v0);
    if (!rc) rc = ld_out_vtk_close(w);
    if (rc) snprintf(msg, cap, "%s", ld_out_vtk_message(w));
    ld_out_vtk_free(w);
    return rc;
}

static void test_vtk(void **state) {
    every_refusal("VTK writer", op_vtk, *state, LD_ENOMEM);
    char name[64];
    for (int i = 0; i < 3; ++i) {
        snprintf(name, sizeof name, "oom_vtk_%05d.vtk", i);
        remove(name);
    }
    remove("oom_vtk.vtk.series");
}

/* ld_integ_load of oom_run.ck into the integrator ctx. */
static int op_checkpoint(void *ctx, char *msg, size_t cap) {
    double user[2];
    return ld_integ_load(ctx, "oom_run.ck", 7, user, sizeof user, msg, cap);
}

static void test_checkpoint(void **state) {
    fixture *f = *state;
    ld_integ_options o;
    ld_integ_options_init(&o);
    int st = 0;
    ld_integ *it = ld_integ_create(&f->s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, f->q0, f->v0), LD_OK);
    assert_int_equal(ld_integ_advance(it, 1e-3), LD_OK);
    const double user[2] = {1, 2};
    char msg[256];
    assert_int_equal(ld_integ_save(it, "oom_run.ck", 7, user, sizeof user, msg, sizeof msg), LD_OK);
    every_refusal("checkpoint load", op_checkpoint, it, LD_ENOMEM);
    ld_integ_free(it);
    remove("oom_run.ck");
}

/* The formatter: exact bytes, a readable size from 1000 bytes on, the purpose. */
static void test_format(void **state) {
    (void)state;
    char buf[128];
    assert_int_equal(ld_oom_format(buf, sizeof buf, 1234567.0, "the row buffer"), LD_ENOMEM);
    assert_string_equal(buf, "out of memory: 1234567 bytes for the row buffer (1.2 MB)");
    ld_oom_format(buf, sizeof buf, 48.0, "a name");
    assert_string_equal(buf, "out of memory: 48 bytes for a name");
    ld_oom_format(buf, sizeof buf, 176042242592.0, "the dense matrices");
    assert_string_equal(buf, "out of memory: 176042242592 bytes for the dense matrices (176.0 GB)");
    ld_oom_format(buf, sizeof buf, 999999.0, "x");
    assert_string_equal(buf, "out of memory: 999999 bytes for x (1.0 MB)");
    /* the record: made by a refused allocation, read once */
    fail_at = 0, n_calls = 0;
    void *p = ld_xcalloc(1000, 24, "the test's table");
    fail_at = -1;
    assert_null(p);
    ld_oom_last(buf, sizeof buf);
    assert_string_equal(buf, "out of memory: 24000 bytes for the test's table (24.0 kB)");
    ld_oom_last(buf, sizeof buf);
    assert_string_equal(buf, "out of memory (the size was not reported)");
    assert_false(sized(buf));
}

/* A command of the tool (argv without the command's name; ctx: cmd_args), its first message
 * captured, stdout discarded. */
typedef struct cmd_args {
    int (*cmd)(int argc, char **argv);
    int argc;
    const char *argv[12];
} cmd_args;

/* The tool's main() defines this (cli.h); the commands here print to /dev/null. */
int cli_flush_stdout(void) {
    return fflush(stdout) == 0 ? 0 : -1;
}

static int op_cli(void *ctx, char *msg, size_t cap) {
    cmd_args *c = ctx;
    char *argv[12];
    for (int i = 0; i < c->argc; ++i) argv[i] = (char *)(uintptr_t)c->argv[i];
    fflush(stdout);
    FILE *keep = stdout;
    FILE *null = fopen("/dev/null", "w");
    if (null) stdout = null;
    cli_error_capture(msg, cap);
    int rc = c->cmd(c->argc, argv);
    cli_error_capture(NULL, 0);
    stdout = keep;
    if (null) fclose(null);
    return rc;
}

/* The tool's commands: run (CSV, HTML), static, modes, view. A refusal ends them with exit
 * code 2, 3 or 4 and a sized message. */
static void test_cli(void **state) {
    (void)state;
    char top[512];
    snprintf(top, sizeof top, "%s/models/simple-pendulum.yaml", LD_SOURCE_DIR);
    cmd_args run = {
        cli_run, 8, {top, "--t-end", "0.005", "--dt", "1e-3", "--out", "oom_cli.csv", "--quiet"}};
    every_refusal_any("liedyn run --out", op_cli, &run);
    cmd_args st = {cli_static, 1, {top}};
    every_refusal_any("liedyn static", op_cli, &st);
    cmd_args md = {cli_modes, 1, {top}};
    every_refusal_any("liedyn modes", op_cli, &md);
    char why[256];
    if (ld_out_html_available(why, sizeof why)) {
        cmd_args html = {
            cli_run,
            8,
            {top, "--t-end", "0.005", "--dt", "1e-3", "--html", "oom_cli.html", "--quiet"}};
        every_refusal_any("liedyn run --html", op_cli, &html);
        cmd_args view = {cli_view, 5, {top, "--csv", "oom_cli.csv", "--html", "oom_cli.html"}};
        every_refusal_any("liedyn view", op_cli, &view);
    }
    remove("oom_cli.csv");
    remove("oom_cli.html");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_statics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_linearize_and_modes, setup, teardown),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_model_files),
        cmocka_unit_test(test_import),
        cmocka_unit_test(test_sweep_files),
        cmocka_unit_test(test_gyro_file),
        cmocka_unit_test_setup_teardown(test_csv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_html, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vtk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checkpoint, setup, teardown),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Fuzz target: the gyro CSV reader and a short attitude integration over its samples
 * (docs/fuzzing.md).
 *
 * The input bytes are a gyro file ("t,wx,wy,wz" lines). ld_gyro_read takes a path, so the
 * bytes go to a private temporary file first (created once per process, removed at exit).
 * Data the reader accepts is checked against its contract — at least two samples, times
 * finite and strictly increasing, ω interpolated inside the range and refused outside — and
 * integrated over its whole range by one attitude method (picked by a hash of the input) with
 * at most MAX_STEPS steps. Contract violations abort (libFuzzer records a crash).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "liedyn/liedyn.h"

#define MAX_STEPS 200

static char tmp_path[4096];

static void remove_tmp(void) {
    if (tmp_path[0]) unlink(tmp_path);
}

/* The temporary file's path, created on first use ("" if it cannot be). */
static const char *tmp_file(void) {
    if (tmp_path[0]) return tmp_path;
    const char *dir = getenv("TMPDIR");
    snprintf(tmp_path, sizeof tmp_path, "%s/liedyn-fuzz-gyro-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp_path);
    if (fd < 0) {
        tmp_path[0] = '\0';
        return tmp_path;
    }
    close(fd);
    atexit(remove_tmp);
    return tmp_path;
}

/* Write data[size] to path (replacing its content). 0 on success. */
static int write_file(const char *path, const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) != 0 || w != size ? -1 : 0;
}

static void contract(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "fuzz_gyro: contract broken: %s\n", what);
    abort();
}

/* The accepted data's invariants, and ω at the ends, the middle and outside the range. */
static void check_data(ld_gyro *g) {
    double t0 = ld_gyro_t_first(g), t1 = ld_gyro_t_last(g), w[3];
    contract(ld_gyro_count(g) >= 2, "at least two samples");
    contract(isfinite(t0) && isfinite(t1) && t1 > t0, "finite, increasing times");
    contract(ld_gyro_omega_fn(t0, w, g) == 0 && ld_gyro_omega_fn(t1, w, g) == 0,
             "omega is defined at both ends");
    contract(ld_gyro_omega_fn(0.5 * t0 + 0.5 * t1, w, g) == 0, "omega is defined inside");
    contract(ld_gyro_omega_fn((double)NAN, w, g) != 0, "omega is refused at NaN");
    contract(ld_gyro_omega_fn(t1 + (t1 - t0), w, g) != 0, "omega is refused after the end");
    contract(ld_gyro_omega_fn(t0 - (t1 - t0), w, g) != 0, "omega is refused before the start");
}

/* Integrate over the data's range with the method of hash h, at most MAX_STEPS steps. */
static void integrate(ld_gyro *g, uint32_t h) {
    ld_attitude_problem pb = {ld_gyro_omega_fn,  g,
                              LD_FRAME_BODY,     ld_gyro_t_first(g),
                              ld_gyro_t_last(g), {1.0, 0.0, 0.0, 0.0}};
    ld_attitude_options o;
    ld_attitude_options_default(&o);
    o.method = (ld_att_method)(h % LD_ATT_METHOD_COUNT);
    o.param = (ld_param)((h >> 8) % 3);
    o.max_steps = MAX_STEPS;
    /* enough steps to cover the range (the cap stops the rest) */
    o.dt = (pb.t1 - pb.t0) / (double)(ld_gyro_count(g) < MAX_STEPS ? ld_gyro_count(g) : MAX_STEPS);
    o.fixed = (int)((h >> 16) & 1);
    ld_attitude_stats st;
    int rc = ld_attitude_integrate(&pb, &o, NULL, NULL, &st);
    contract(rc == st.status, "the status is returned and recorded");
    if (rc == LD_OK) contract(st.t_reached == pb.t1, "a successful run reaches t1");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = tmp_file();
    if (!path[0] || write_file(path, data, size) != 0) return 0;
    ld_gyro *g = NULL;
    char msg[256];
    msg[0] = '\0';
    int rc = ld_gyro_read(path, &g, msg, sizeof msg);
    if (rc != LD_OK) {
        contract(rc < 0 && g == NULL, "a refused file leaves *out NULL");
        contract(memchr(msg, '\0', sizeof msg) && msg[0], "a refused file comes with a message");
        return 0;
    }
    contract(g != NULL, "an accepted file gives data");
    check_data(g);
    integrate(g, fuzz_hash(data, size));
    ld_gyro_free(g);
    return 0;
}

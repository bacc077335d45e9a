/*
 * The output writers of the public API (liedyn/output.h), used the way a program would: a short
 * heavy-top run written as CSV (all columns, and chosen ones), as a VTK series and (when the
 * library has the viewer) as an HTML file, each read back and checked against the integrator's
 * state: the header's names, the row count, every value bit-exact, the VTK files' points, the
 * HTML file's frames; the joint's coordinates (liedyn/coords.h) in the CSV and among the HTML
 * file's series.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#include "liedyn/coords.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/output.h"
#include "liedyn/system.h"

#define NSTEPS 20
#define NCOL                                                                                       \
    30 /* t, top's 13, energy, constraint_residual, work, energy_balance, pivot's 6,               \
        its rx … wz */

typedef struct run {
    ld_model m;
    ld_system s;
    double *q0, *v0;
    ld_integ *it;
    char dir[64];
    double rows[NSTEPS + 1][NCOL]; /* the expected values */
} run;

static run R;

/* A fresh temporary directory for the files. */
static void run_setup(run *r) {
    char p[512];
    ld_model_error e;
    snprintf(p, sizeof p, "%s/models/heavy-top.yaml", LD_SOURCE_DIR);
    if (ld_model_load(p, &r->m, &e) != LD_OK) fail_msg("%s", e.msg);
    assert_int_equal(ld_model_compile(&r->m, r->m.run.formulation, &r->s, &r->q0, &r->v0), LD_OK);
    ld_integ_options o;
    assert_int_equal(ld_integ_options_from_model(&r->m, &o), LD_OK);
    int st;
    r->it = ld_integ_create(&r->s, &o, &st);
    assert_non_null(r->it);
    assert_int_equal(ld_integ_init(r->it, r->m.run.t_start, r->q0, r->v0), LD_OK);
    snprintf(r->dir, sizeof r->dir, "/tmp/ld_test_output_XXXXXX");
    assert_non_null(mkdtemp(r->dir));
}

static void run_free(run *r) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
    assert_int_equal(system(cmd), 0);
    ld_integ_free(r->it);
    free(r->q0);
    free(r->v0);
    ld_model_system_free(&r->s);
    ld_model_free(&r->m);
}

/* The expected row of the integrator's state, from the system's own functions. */
static void expect_row(run *r, int i) {
    double t = ld_integ_t(r->it), *e = r->rows[i];
    const double *q = ld_integ_q(r->it), *v = ld_integ_v(r->it);
    e[0] = t;
    assert_int_equal(ld_model_body_state(&r->s, 0, q, v, e + 1, e + 4, e + 8, e + 11), LD_OK);
    e[14] = ld_sys_energy(&r->s, t, q, v);
    double work[16];
    assert_true(r->s.m < 16);
    e[15] = ld_sys_phi_max(&r->s, t, q, work, NULL);
    e[16] = 0.0; /* no loads, no drivers: no work; the balance is the energy's drift */
    e[17] = e[14] - r->rows[0][14] - 0.0;
    assert_int_equal(ld_model_joint_reaction(&r->s, 0, q, ld_integ_lambda(r->it), e + 18, e + 21),
                     LD_OK);
    double c[3], cd[3];
    int n = 0;
    assert_int_equal(ld_model_joint_coords(&r->s, 0, t, q, v, c, cd, &n), LD_OK);
    assert_int_equal(n, 3);
    memcpy(e + 24, c, sizeof c);
    memcpy(e + 27, cd, sizeof cd);
    assert_true(fabs(e[4] * e[4] + e[5] * e[5] + e[6] * e[6] + e[7] * e[7] - 1.0) < 1e-12);
}

/* Read path whole (NUL-terminated; the caller frees). */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    return b;
}

static void test_csv_vtk_html(void **state) {
    (void)state;
    run *r = &R;
    run_setup(r);
    char all[300], some[300], html[300], why[512];
    snprintf(all, sizeof all, "%.63s/all.csv", r->dir);
    snprintf(some, sizeof some, "%.63s/some.csv", r->dir);
    snprintf(html, sizeof html, "%.63s/top.html", r->dir);
    int st = 99;
    assert_null(ld_out_csv_open(some, &r->s, &r->m, "top.q,nothing", 0, &st, why, sizeof why));
    assert_int_equal(st, LD_EINVAL);
    assert_non_null(strstr(why, "nothing"));
    assert_int_equal(ld_out_columns_check(&r->m, 0, "pivot.f,energy", why, sizeof why), LD_OK);
    ld_out_csv *wa = ld_out_csv_open(all, &r->s, &r->m, NULL, 0, &st, why, sizeof why);
    assert_non_null(wa);
    ld_out_csv *ws = ld_out_csv_open(some, &r->s, &r->m, "energy,top.q", 0, &st, why, sizeof why);
    assert_non_null(ws);
    ld_out_vtk *wv = ld_out_vtk_open(r->dir, "top", &r->s, &r->m, &st, why, sizeof why);
    assert_non_null(wv);
    char hwhy[512];
    int have_html = ld_out_html_available(hwhy, sizeof hwhy);
    double t0 = r->m.run.t_start, dt = r->m.run.dt; /* 11 frames: every other step */
    ld_out_html *wh =
        ld_out_html_open(&r->s, &r->m, t0, t0 + NSTEPS * dt, NSTEPS / 2 + 1, &st, why, sizeof why);
    if (!have_html) {
        assert_null(wh);
        assert_int_equal(st, LD_ENOTSUPPORTED);
        assert_string_equal(why, hwhy);
    } else {
        assert_non_null(wh);
    }
    for (int i = 0; i <= NSTEPS; ++i) {
        if (i) assert_int_equal(ld_integ_advance_to(r->it, t0 + i * dt), LD_OK);
        expect_row(r, i);
        double t = ld_integ_t(r->it);
        const double *q = ld_integ_q(r->it), *v = ld_integ_v(r->it), *lam = ld_integ_lambda(r->it);
        assert_int_equal(ld_out_csv_row(wa, t, q, v, lam, dt, NAN), LD_OK);
        assert_int_equal(ld_out_csv_row(ws, t, q, v, lam, dt, NAN), LD_OK);
        if (i % 5 == 0) assert_int_equal(ld_out_vtk_frame(wv, t, q, v), LD_OK);
        if (wh) assert_int_equal(ld_out_html_frame(wh, t, q, v), LD_OK);
    }
    assert_int_equal(ld_out_csv_close(wa), LD_OK);
    assert_int_equal(ld_out_csv_close(ws), LD_OK);
    assert_int_equal(ld_out_csv_rows(wa), NSTEPS + 1);
    assert_int_equal(ld_out_csv_rows(ws), NSTEPS + 1);
    assert_string_equal(ld_out_csv_message(wa), "");
    ld_out_csv_free(wa);
    ld_out_csv_free(ws);
    assert_int_equal(ld_out_vtk_close(wv), LD_OK);
    assert_int_equal(ld_out_vtk_files(wv), 5);
    ld_out_vtk_free(wv);

    /* the CSV of every column: the header, then NSTEPS + 1 rows equal to the state bit for bit */
    char *text = slurp(all), *save = NULL;
    const char *names = "t,top.x,top.y,top.z,top.qw,top.qx,top.qy,top.qz,top.wx,top.wy,top.wz,"
                        "top.vx,top.vy,top.vz,energy,constraint_residual,work,energy_balance,"
                        "pivot.fx,pivot.fy,"
                        "pivot.fz,pivot.tx,pivot.ty,pivot.tz,pivot.rx,pivot.ry,pivot.rz,"
                        "pivot.wx,pivot.wy,pivot.wz";
    char *line = strtok_r(text, "\n", &save);
    assert_string_equal(line, names);
    int nrows = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        assert_true(nrows <= NSTEPS);
        char *p = line;
        for (int c = 0; c < NCOL; ++c) {
            char *end;
            double x = strtod(p, &end);
            assert_true(end != p);
            assert_memory_equal(&x, &r->rows[nrows][c], sizeof x); /* bit-exact */
            p = *end == ',' ? end + 1 : end;
        }
        assert_int_equal(*p, '\0');
        ++nrows;
    }
    assert_int_equal(nrows, NSTEPS + 1);
    free(text);

    /* the chosen columns: t first, then in the order asked */
    text = slurp(some);
    line = strtok_r(text, "\n", &save);
    assert_string_equal(line, "t,energy,top.qw,top.qx,top.qy,top.qz");
    line = strtok_r(NULL, "\n", &save);
    double x[6];
    assert_int_equal(sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf", x, x + 1, x + 2, x + 3, x + 4, x + 5),
                     6);
    assert_true(x[0] == r->rows[0][0] && x[1] == r->rows[0][14] && x[2] == r->rows[0][4] &&
                x[5] == r->rows[0][7]);
    free(text);

    /* VTK: five files of the same point count, the first point the top's centre, the series */
    long npts0 = -1;
    for (int k = 0; k < 5; ++k) {
        char p[400];
        snprintf(p, sizeof p, "%.63s/top_%05d.vtk", r->dir, k);
        text = slurp(p);
        const char *at = strstr(text, "POINTS ");
        assert_non_null(at);
        long npts = strtol(at + 7, NULL, 10);
        assert_true(npts > 8);
        if (k == 0) npts0 = npts;
        assert_int_equal(npts, npts0);
        const char *first = strchr(at, '\n') + 1;
        double c[3];
        assert_int_equal(sscanf(first, "%lf %lf %lf", c, c + 1, c + 2), 3);
        for (int i = 0; i < 3; ++i)
            assert_true(fabs(c[i] - r->rows[5 * k][1 + i]) <= 1e-8 * (1.0 + fabs(c[i])));
        long lines = 0; /* the coordinate lines up to VERTICES */
        for (const char *s = first; strncmp(s, "VERTICES", 8) != 0; s = strchr(s, '\n') + 1)
            ++lines;
        assert_int_equal(lines, npts);
        char pd[64];
        snprintf(pd, sizeof pd, "POINT_DATA %ld\n", npts);
        assert_non_null(strstr(text, pd));
        free(text);
    }
    char sp[400];
    snprintf(sp, sizeof sp, "%.63s/top.vtk.series", r->dir);
    text = slurp(sp);
    int listed = 0;
    for (const char *s = text; (s = strstr(s, "\"name\": \"top_")) != NULL; ++s) ++listed;
    assert_int_equal(listed, 5);
    free(text);

    /* HTML: the frames recorded, the title, the three.js payload */
    if (wh) {
        assert_int_equal(ld_out_html_write(wh, html, "heavy top", why, sizeof why), LD_OK);
        assert_int_equal(ld_out_html_frames(wh), NSTEPS / 2 + 1);
        text = slurp(html);
        assert_non_null(strstr(text, "\"title\":\"heavy top\""));
        assert_non_null(strstr(text, "\"nframes\":11,"));
        assert_non_null(strstr(text, "id=\"three-core\""));
        assert_non_null(strstr(text, "{\"name\":\"pivot.rx\""));
        assert_non_null(strstr(text, "{\"name\":\"pivot.wz\""));
        free(text);
        ld_out_html_free(wh);
    }
    assert_int_equal(access(html, F_OK) == 0, have_html);
    run_free(r);
}

/* A file that cannot be created: a clear refusal, nothing allocated left behind. */
static void test_refusals(void **state) {
    (void)state;
    run *r = &R;
    run_setup(r);
    char why[512];
    int st = 0;
    assert_null(
        ld_out_csv_open("/nonexistent-dir/x.csv", &r->s, &r->m, NULL, 0, &st, why, sizeof why));
    assert_int_equal(st, LD_EIO);
    assert_non_null(strstr(why, "cannot write '/nonexistent-dir/x.csv'"));
    ld_out_vtk *w = ld_out_vtk_open("/nonexistent-dir", "x", &r->s, &r->m, &st, why, sizeof why);
    assert_non_null(w);
    assert_int_equal(ld_out_vtk_frame(w, 0.0, r->q0, r->v0), LD_EIO);
    assert_non_null(
        strstr(ld_out_vtk_message(w), "writing VTK file '/nonexistent-dir/x_00000.vtk'"));
    assert_int_equal(ld_out_vtk_files(w), 0);
    ld_out_vtk_free(w);
    ld_out_csv_free(NULL);
    ld_out_vtk_free(NULL);
    ld_out_html_free(NULL);
    run_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_vtk_html),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The simulation behind `liedyn run` and `liedyn convergence`: compile the model, step it
 * (fixed or controlled steps), measure, and write CSV and VTK rows as it goes.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "cli.h"
#include "columns.h"
#include "liedyn/liedyn.h"
#include "sim.h"
#include "view.h"

/* ------------------------------------------------------------------ the simulation */

double cpu_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return (double)clock() / CLOCKS_PER_SEC;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double wall_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sim_free(sim *S) {
    ld_integ_free(S->it);
    if (S->compiled) ld_model_system_free(&S->s);
    free(S->q0);
    free(S->v0);
    free(S->phi);
    free(S->exact);
    free(S->bx);
    free(S->names);
    free(S->namebuf);
    free(S->rowv);
    free(S->sel);
    S->names = NULL, S->namebuf = NULL, S->rowv = NULL, S->sel = NULL;
    free(S->qa);
    S->qa = S->va = S->la = S->qi = S->vi = S->li = NULL;
    free(S->vtk_times);
    free(S->frame_buf);
    S->frame_buf = NULL;
    if (S->vtk_geom) vtk_geom_free(S->vtk_geom);
    free(S->vtk_geom);
    S->vtk_geom = NULL;
    S->vtk_times = NULL;
    S->vtk_cap = 0;
    S->it = NULL;
    S->compiled = 0;
    S->q0 = S->v0 = S->phi = S->bx = NULL;
    S->exact = NULL;
}

/* A note on stderr when the dense solver was asked for on a system far above the size from
 * which KLU is faster (LD_LA_CROSSOVER; the default would have chosen KLU). */
static void dense_note(const sim *S) {
    int n = S->s.k + S->s.m;
    if (S->o.la != LD_LA_DENSE || n < 4 * LD_LA_CROSSOVER ||
        ld_integ_la_auto(&S->s, &S->o) != LD_LA_KLU)
        return;
    fprintf(stderr,
            "liedyn %s: note: the dense solver on %d unknowns; the sparse one (--la klu, the "
            "default for this model) is faster from about %d\n",
            S->cmd, n, LD_LA_CROSSOVER);
}

/* Compile, create and initialize. 0 or 2 (message printed; sim_free cleans up). */
int sim_setup(sim *S) {
    const ld_model *m = S->m;
    int nb = m->nbodies;
    char why[512];
    int rc = ld_model_check_initial(m, why, sizeof why);
    if (rc == LD_ENOMEM) return cli_error("%s: cannot compile the model: out of memory", S->path);
    if (rc) return cli_error("%s: inconsistent initial state: %s", S->path, why);
    rc = ld_model_compile_msg(m, S->form, &S->s, &S->q0, &S->v0, why, sizeof why);
    if (rc) return cli_error("%s: cannot compile the model: %s", S->path, why);
    S->compiled = 1;
    S->phi = calloc((size_t)S->s.m + 1, sizeof(double));
    S->exact = calloc((size_t)nb, sizeof(int));
    S->bx = calloc(13 * (size_t)nb, sizeof(double));
    if (!S->phi || !S->exact || !S->bx) return cli_error("%s: out of memory", S->cmd);
    if (S->out_dt > 0.0) { /* dense output: the previous step end and the interpolated state */
        size_t nq = (size_t)S->s.nq, k = (size_t)S->s.k, nm = (size_t)S->s.m;
        S->qa = calloc(2 * (nq + k + nm) + 1, sizeof(double));
        if (!S->qa) return cli_error("%s: out of memory", S->cmd);
        S->va = S->qa + nq, S->la = S->va + k;
        S->qi = S->la + nm, S->vi = S->qi + nq, S->li = S->vi + k;
    }
    S->bq = S->bx + 3 * nb;
    S->bw = S->bq + 4 * nb;
    S->bv = S->bw + 3 * nb;
    for (int l = 0; l < m->nloads; ++l) { /* the bodies whose rotation the model prescribes */
        const ld_load *ld = &m->loads[l];
        if (ld->kind != LD_LOAD_EXACT_TORQUE || ld->exact == LD_EXACT_NONE) continue;
        S->exact[ld->body] = 1;
        S->any_exact = 1;
    }
    if (ld_model_check_exact(m, why, sizeof why) > 0) { /* the angle error would mislead */
        snprintf(S->warning, sizeof S->warning, "%s: %.240s", S->path, why);
        fprintf(stderr, "liedyn %s: warning: %s\n", S->cmd, S->warning);
    }
    const char *why_not = ld_integ_options_check(&S->s, &S->o);
    if (why_not)
        return cli_error("%s: %s cannot run this model: %s", S->path,
                         ld_integ_method_name(S->o.method), why_not);
    S->it = ld_integ_create_msg(&S->s, &S->o, &rc, why, sizeof why);
    if (!S->it)
        return cli_error("%s: cannot create the integrator: %s", S->path,
                         why[0] ? why : ld_strerror(rc));
    dense_note(S);
    rc = ld_integ_init(S->it, S->t0, S->q0, S->v0);
    if (rc && ld_model_diagnose(&S->s, S->t0, S->q0, why, sizeof why) == LD_ESINGULAR)
        return cli_error("%s: no consistent initial accelerations at t = %.10g: %s", S->path, S->t0,
                         why);
    if (rc) {
        const char *said = ld_integ_message(S->it);
        return cli_error("%s: no consistent initial accelerations at t = %.10g: %s", S->path, S->t0,
                         said && said[0] ? said : ld_strerror(rc));
    }
    return 0;
}

double state_energy(const sim *S, double t, const double *q, const double *v) {
    return ld_sys_energy(&S->s, t, q, v);
}

/* max |Φ(t, q)|; 0 without constraints, NaN if Φ cannot be evaluated. *row (may be NULL)
 * receives the row of the largest entry (-1: none). */
static double phi_max(const sim *S, double t, const double *q, int *row) {
    return ld_sys_phi_max(&S->s, t, q, S->phi, row);
}

double state_phi(const sim *S, double t, const double *q) {
    return phi_max(S, t, q, NULL);
}

/* Geodesic error of body b's rotation against its exact one (the model prescribes it). */
static double angle_error(const sim *S, int b, double t, const double quat[4]) {
    double qe[4];
    if (ld_model_exact_rotation(S->m, b, t, qe) != LD_OK) return NAN;
    return ld_quat_angle(qe, quat);
}

/* Update the running maxima with the state at t (every step). */
static void sim_measure(sim *S, double t, const double *q, const double *v) {
    int row = -1;
    double ph = phi_max(S, t, q, &row);
    if (ph > S->tot.phimax && row >= 0) { /* where the largest violation so far is */
        S->tot.phirow = row;
        S->tot.phit = t;
    }
    S->tot.phimax = (isnan(ph) || isnan(S->tot.phimax)) ? (double)NAN : fmax(S->tot.phimax, ph);
    for (int b = 0; S->any_exact && b < S->m->nbodies; ++b) {
        if (!S->exact[b]) continue;
        double x[3], qq[4], w[3], xd[3];
        ld_model_body_state(&S->s, b, q, v, x, qq, w, xd);
        double e = angle_error(S, b, t, qq);
        S->tot.angmax = (isnan(e) || isnan(S->tot.angmax)) ? (double)NAN : fmax(S->tot.angmax, e);
    }
}

void io_fail_msg(sim *S, const char *msg) {
    if (S->io_error) return;
    S->io_error = 1;
    snprintf(S->io_msg, sizeof S->io_msg, "%s", msg);
}

void io_fail(sim *S, const char *what, const char *name) {
    char buf[PATH_CAP + 128];
    snprintf(buf, sizeof buf, "writing %s '%s' failed: %s", what, name, strerror(errno));
    io_fail_msg(S, buf);
}

/* The names of all the columns of a row (S->names, S->ncols) and the value buffer. 0 or -1. */
static int columns_make(sim *S) {
    static const char *const cols[13] = {"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                                         "wx", "wy", "wz", "vx", "vy", "vz"};
    static const char *const rc[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};
    const ld_model *m = S->m;
    int nb = m->nbodies, n = 1 + 13 * nb + 2 + 2 * S->est + 6 * m->njoints;
    for (int b = 0; b < nb; ++b) n += S->exact[b];
    size_t w = LD_NAME_MAX + 24;
    S->names = calloc((size_t)n, sizeof(char *));
    S->namebuf = calloc((size_t)n, w);
    S->rowv = calloc((size_t)n, sizeof(double));
    S->sel = calloc(2 * (size_t)n, sizeof(int));
    if (!S->names || !S->namebuf || !S->rowv || !S->sel) return -1;
    for (int i = 0; i < n; ++i) S->names[i] = S->namebuf + (size_t)i * w;
    int k = 0;
    snprintf(S->names[k++], w, "t");
    for (int b = 0; b < nb; ++b)
        for (int c = 0; c < 13; ++c)
            snprintf(S->names[k++], w, "%s.%s", m->bodies[b].name, cols[c]);
    snprintf(S->names[k++], w, "energy");
    snprintf(S->names[k++], w, "constraint_residual");
    for (int b = 0; b < nb; ++b)
        if (S->exact[b]) snprintf(S->names[k++], w, "%s.angle_error", m->bodies[b].name);
    if (S->est) {
        snprintf(S->names[k++], w, "h");
        snprintf(S->names[k++], w, "error_estimate");
    }
    for (int j = 0; j < m->njoints; ++j)
        for (int c = 0; c < 6; ++c) {
            if (m->joints[j].name[0])
                snprintf(S->names[k++], w, "%s.%s", m->joints[j].name, rc[c]);
            else
                snprintf(S->names[k++], w, "joint%d.%s", j, rc[c]);
        }
    S->ncols = n;
    S->nsel = n;
    for (int i = 0; i < n; ++i) S->sel[i] = i;
    return 0;
}

int csv_columns(sim *S, const char *list) {
    if (!S->names && columns_make(S) != 0) return cli_error("%s: out of memory", S->cmd);
    if (!list) return 0;
    char why[512];
    int got = cols_select((const char *const *)S->names, S->ncols, list, S->sel + 1, S->ncols - 1,
                          why, sizeof why);
    if (got < 0) return cli_error("%s: --columns: %s", S->cmd, why);
    S->sel[0] = 0; /* t first, always */
    int k = 1;
    for (int i = 1; i <= got; ++i)
        if (S->sel[i] != 0) S->sel[k++] = S->sel[i];
    S->nsel = k;
    return 0;
}

/* The header line of f: the columns sel[0..n-1]. */
static void header_of(sim *S, rowfile *f, const int *sel, int n) {
    for (int i = 0; i < n; ++i) rowfile_printf(f, "%s%s", i ? "," : "", S->names[sel[i]]);
    rowfile_printf(f, "\n");
    if (rowfile_end_row(f, 0) != 0) io_fail_msg(S, f->err);
}

void csv_header(sim *S) {
    if (!S->names && csv_columns(S, NULL) != 0) {
        io_fail_msg(S, "out of memory for the columns");
        return;
    }
    if (S->csv) header_of(S, S->csv, S->sel, S->nsel);
    if (S->pcsv) {
        for (int i = 0; i < S->ncols; ++i) S->sel[S->ncols + i] = i;
        header_of(S, S->pcsv, S->sel + S->ncols, S->ncols);
    }
}

/* Open NAME.tmp for writing; its content replaces name at close_atomic. */
static FILE *open_atomic(const char *name, char *tmp, size_t cap) {
    snprintf(tmp, cap, "%s.tmp", name);
    return fopen(tmp, "w");
}

/* Close f and rename tmp to name, or remove tmp on any failure (io_fail then). 0 or -1. */
static int close_atomic(sim *S, FILE *f, const char *tmp, const char *name, const char *what) {
    int bad = ferror(f) | fclose(f);
    if (!bad && rename(tmp, name) == 0) return 0;
    io_fail(S, what, name);
    unlink(tmp);
    return -1;
}

int write_series(sim *S) {
    if (!S->series_name[0]) return 0;
    char tmp[sizeof S->series_name + 8];
    FILE *f = open_atomic(S->series_name, tmp, sizeof tmp);
    if (!f) {
        io_fail(S, "series file", S->series_name);
        return -1;
    }
    fputs("{\n  \"file-series-version\": \"1.0\",\n  \"files\": [\n", f);
    for (long i = 0; i < S->vtk_files; ++i)
        fprintf(f, "%s    {\"name\": \"%s_%05ld.vtk\", \"time\": %.17g}", i ? ",\n" : "", S->base,
                i, S->vtk_times[i]);
    fputs("\n  ]\n}\n", f);
    S->series_written = wall_seconds();
    return close_atomic(S, f, tmp, S->series_name, "series file");
}

/* Record the time of VTK file number S->vtk_files for the series. 0 or -1. */
static int series_add(sim *S, double t) {
    if (S->vtk_files == S->vtk_cap) {
        long cap = S->vtk_cap ? 2 * S->vtk_cap : 256;
        double *p = realloc(S->vtk_times, (size_t)cap * sizeof(double));
        if (!p) return -1;
        S->vtk_times = p;
        S->vtk_cap = cap;
    }
    S->vtk_times[S->vtk_files] = t;
    return 0;
}

/* One legacy-VTK POLYDATA file (cli/vtk.c): the bodies' shapes at their poses, the joints as
 * lines, rods and beams as polylines with their radius, and a vertex per body at its centre of
 * mass with the body axes and the velocities as point vectors; listed in the .vtk.series file.
 * Written to a temporary name and renamed, so a file is whole or absent. */
static void write_vtk(sim *S, double t, const double *q, const double *v) {
    int nb = S->m->nbodies;
    char name[PATH_CAP + LD_NAME_MAX + 32], tmp[sizeof name + 8];
    snprintf(name, sizeof name, "%s/%s_%05ld.vtk", S->vtk_dir, S->base, S->vtk_files);
    if (!S->vtk_geom && (S->vtk_geom = calloc(1, sizeof *S->vtk_geom)) != NULL &&
        vtk_geom_init(S->vtk_geom, S->m) != 0) {
        free(S->vtk_geom);
        S->vtk_geom = NULL;
    }
    double *x = malloc(22 * (size_t)nb * sizeof(double));
    if (!x || !S->vtk_geom || series_add(S, t) != 0) {
        free(x);
        errno = ENOMEM;
        io_fail(S, "VTK file", name);
        return;
    }
    FILE *f = open_atomic(name, tmp, sizeof tmp);
    if (!f) {
        free(x);
        io_fail(S, "VTK file", name);
        return;
    }
    double *qq = x + 3 * nb, *vec = qq + 4 * nb;
    for (int b = 0; b < nb; ++b) {
        double w[3], R[9], *e = vec + 15 * b;
        ld_model_body_state(&S->s, b, q, v, x + 3 * b, qq + 4 * b, w, e + 9);
        ld_quat_to_mat(R, qq + 4 * b);
        for (int i = 0; i < 3; ++i) {
            e[i] = R[3 * i];
            e[3 + i] = R[3 * i + 1];
            e[6 + i] = R[3 * i + 2];
        }
        ld_quat_rotate(e + 12, qq + 4 * b, w);
    }
    vtk_geom_write(f, S->vtk_geom, S->m, S->base, t, x, qq, vec);
    free(x);
    if (close_atomic(S, f, tmp, name, "VTK file") != 0) return;
    S->vtk_files++;
    if (wall_seconds() - S->series_written > 0.5) (void)write_series(S);
}

/* Offer the row to the viewer's frames: poses, energy, constraint residual, and the angular
 * and centre-of-mass velocities of the rigid bodies (frames_series_names). */
static void record_frame(sim *S, double t, const double *q, const double *v) {
    view_frames *F = S->frames;
    int nb = S->m->nbodies;
    if (!S->frame_buf &&
        !(S->frame_buf = malloc((7 * (size_t)nb + (size_t)F->ns + 1) * sizeof(double)))) {
        io_fail_msg(S, "recording the viewer's frames: out of memory");
        return;
    }
    double *x = S->frame_buf, *qq = x + 3 * nb, *val = qq + 4 * nb;
    int k = 0;
    val[k++] = state_energy(S, t, q, v);
    val[k++] = state_phi(S, t, q);
    for (int b = 0; b < nb; ++b) {
        double w[3], xd[3];
        ld_model_body_state(&S->s, b, q, v, x + 3 * b, qq + 4 * b, w, xd);
        /* the series name this body's velocities when it has them */
        if (k + 6 <= F->ns &&
            strncmp(F->sname[k], S->m->bodies[b].name, strlen(S->m->bodies[b].name)) == 0 &&
            F->sname[k][strlen(S->m->bodies[b].name)] == '.') {
            memcpy(val + k, w, sizeof w);
            memcpy(val + k + 3, xd, sizeof xd);
            k += 6;
        }
    }
    if (frames_offer(F, t, x, qq, val) != 0)
        io_fail_msg(S, "recording the viewer's frames: out of memory");
}

/* All the values of a row at (t, q, v, λ) into S->rowv (the order of S->names). */
static void row_values(sim *S, double t, const double *q, const double *v, const double *lam) {
    const ld_model *m = S->m;
    int nb = m->nbodies, k = 0;
    double *r = S->rowv;
    r[k++] = t;
    for (int b = 0; b < nb; ++b) {
        ld_model_body_state(&S->s, b, q, v, r + k, r + k + 3, r + k + 7, r + k + 10);
        k += 13;
    }
    r[k++] = state_energy(S, t, q, v);
    r[k++] = state_phi(S, t, q);
    for (int b = 0; b < nb; ++b)
        if (S->exact[b]) r[k++] = angle_error(S, b, t, S->rowv + 1 + 13 * b + 3);
    if (S->est) {
        r[k++] = S->tot.row_h;
        r[k++] = S->tot.row_err;
    }
    for (int j = 0; j < m->njoints; ++j) {
        double *jf = r + k, *jt = r + k + 3;
        for (int c = 0; c < 6; ++c) r[k + c] = NAN;
        (void)ld_model_joint_reaction(&S->s, j, q, lam, jf, jt);
        k += 6;
    }
}

/* The columns sel[0..n-1] of S->rowv as one row of f. */
static void emit_row(sim *S, rowfile *f, const int *sel, int n) {
    for (int i = 0; i < n; ++i) rowfile_printf(f, i ? ",%.17g" : "%.17g", S->rowv[sel[i]]);
    rowfile_printf(f, "\n");
    if (rowfile_end_row(f, 1) != 0) io_fail_msg(S, f->err);
}

/* One output row of the state (t, q, v, λ): CSV and VTK. */
static void write_row_at(sim *S, double t, const double *q, const double *v, const double *lam) {
    S->last_row_t = t;
    S->rows++;
    if (S->csv || S->pcsv) {
        row_values(S, t, q, v, lam);
        if (S->csv) emit_row(S, S->csv, S->sel, S->nsel);
        if (S->pcsv) emit_row(S, S->pcsv, S->sel + S->ncols, S->ncols);
    }
    if (S->vtk_dir && (t >= S->vtk_next - 1e-9 * S->vtk_spacing || t >= S->t1)) {
        S->vtk_next = isfinite(S->vtk_next)
                          ? fmax(S->vtk_next + S->vtk_spacing, t + 0.5 * S->vtk_spacing)
                          : t + S->vtk_spacing;
        write_vtk(S, t, q, v);
    }
    if (S->frames) record_frame(S, t, q, v);
}

/* One output row of the integrator's state. */
static void write_row(sim *S, double t, const double *q, const double *v) {
    write_row_at(S, t, q, v, ld_integ_lambda(S->it));
}

/* Remember the step end (t, q, v, λ) that dense output interpolates from. */
static void dense_keep(sim *S, double t, const double *q, const double *v) {
    S->ta = t;
    memcpy(S->qa, q, (size_t)S->s.nq * sizeof(double));
    memcpy(S->va, v, (size_t)S->s.k * sizeof(double));
    if (S->s.m > 0) memcpy(S->la, ld_integ_lambda(S->it), (size_t)S->s.m * sizeof(double));
}

/* The output times t0 + j out_dt in (ta, t] after the step ta → t: a row each, interpolated on
 * the group (ld_sys_interpolate; λ linearly), the step end itself when a time falls on it
 * (within 1e-9 out_dt), and always the row of t1. */
static void dense_rows(sim *S, double t, const double *q, const double *v) {
    double tol = 1e-9 * S->out_dt, h = t - S->ta;
    const double *lam = ld_integ_lambda(S->it);
    for (;;) {
        double tj = S->t0 + (double)S->out_j * S->out_dt;
        if (tj > t + tol || tj > S->t1 + tol) break;
        S->out_j++;
        if (tj <= S->last_row_t + tol) continue;
        if (fabs(tj - t) <= tol || !(h > 0.0)) {
            write_row(S, t, q, v);
            continue;
        }
        double th = (tj - S->ta) / h;
        if (ld_sys_interpolate(&S->s, S->qa, S->va, q, v, h, th, S->qi, S->vi) != LD_OK) {
            io_fail_msg(S, "dense output: cannot interpolate");
            return;
        }
        for (int i = 0; i < S->s.m; ++i) S->li[i] = (1.0 - th) * S->la[i] + th * lam[i];
        write_row_at(S, tj, S->qi, S->vi, S->li);
    }
    if (t >= S->t1 && t != S->last_row_t) write_row(S, t, q, v);
    dense_keep(S, t, q, v);
}

/* "\r t = … / T  (… steps/s, … s to go)" at most five times a second. */
/* Returns the width of the line printed (0 if none). */
static int show_progress(const sim *S, double t, long steps, double wall0, double *next) {
    double now = wall_seconds();
    if (now < *next) return 0;
    *next = now + 0.2;
    double el = now - wall0, done = t - S->t0;
    double rate = el > 0.0 ? (double)steps / el : 0.0;
    double togo = done > 0.0 ? el * (S->t1 - t) / done : 0.0;
    int w = fprintf(stderr, "\r t = %-12.6g / %.6g  (%.0f steps/s, %.1f s to go)   ", t, S->t1,
                    rate, togo);
    fflush(stderr);
    return w > 0 ? w : 0;
}

/* Step n of nsteps: to the grid point t0 + n·dt (fixed steps) or one controlled step. */
static int sim_advance(sim *S, long n, long nsteps) {
    if (S->o.adaptive) return ld_integ_step_adaptive(S->it, S->t1);
    double target = n == nsteps ? S->t1 : S->grid0 + (double)n * S->dt;
    return ld_integ_advance_to(S->it, target);
}

/* The step failed: keep the reason and write the state reached. */
static void sim_failed(sim *S, int rc, double t, const double *q, const double *v) {
    const char *why = ld_integ_message(S->it);
    snprintf(S->msg, sizeof S->msg, "%s", why[0] ? why : ld_strerror(rc));
    S->status = rc;
    if (t != S->last_row_t) {
        sim_measure(S, t, q, v);
        write_row(S, t, q, v);
    }
}

/* After an accepted step: the step statistics, running maxima, the output row and the
 * periodic checkpoint. */
static void sim_accepted(sim *S, double t, const double *q, const double *v) {
    S->tot.row_h = ld_integ_last_h(S->it);
    S->tot.row_err = ld_integ_last_error(S->it);
    S->tot.hmin = fmin(S->tot.hmin, S->tot.row_h);
    S->tot.hmax = fmax(S->tot.hmax, S->tot.row_h);
    S->tot.errmax = fmax(S->tot.errmax, S->tot.row_err);
    sim_measure(S, t, q, v);
    if (S->out_dt > 0.0)
        dense_rows(S, t, q, v);
    else if (S->n % S->every == 0 || t >= S->t1)
        write_row(S, t, q, v);
    if (S->ck_path && isfinite(S->ck_every) && t >= S->ck_next && t < S->t1) {
        (void)sim_checkpoint(S);
        while (S->ck_next <= t) S->ck_next += S->ck_every;
    }
}

/* Stop early (a signal or --max-steps): the row of the state reached and a checkpoint. */
static void sim_stop(sim *S, double t, const double *q, const double *v, int why) {
    S->stopped = why;
    if (t != S->last_row_t) write_row(S, t, q, v);
}

/* The results of the run from the final state. */
static void sim_finish(sim *S, const double *q, const double *v) {
    S->t = ld_integ_t(S->it);
    S->e1 = state_energy(S, S->t, q, v);
    ld_integ_get_stats(S->it, &S->st);
    int nb = S->m->nbodies;
    for (int b = 0; b < nb; ++b)
        ld_model_body_state(&S->s, b, q, v, S->bx + 3 * b, S->bq + 4 * b, S->bw + 3 * b,
                            S->bv + 3 * b);
    if (S->ck_path && S->status >= 0) (void)sim_checkpoint(S);
}

/* Step from t0 (or the restart point) to t1; fills the results. Returns 0, 3 (a step failed;
 * S->msg says why), 4 (output failed; S->io_msg) or 5 (stopped early; S->stopped). */
int sim_run(sim *S) {
    ld_integ *it = S->it;
    const double *q = ld_integ_q(it), *v = ld_integ_v(it);
    long nsteps = (long)ceil((S->t1 - S->grid0) / S->dt - 1e-9);
    if (nsteps < 1) nsteps = 1;
    if (!S->restarted) {
        S->tot.phimax = S->tot.angmax = 0.0;
        S->tot.phirow = -1;
        S->tot.hmin = INFINITY;
        S->tot.hmax = S->tot.errmax = 0.0;
        S->tot.row_h = 0.0;
        S->tot.row_err = NAN;
        S->tot.e0 = state_energy(S, S->t0, q, v);
    }
    double tc = ld_integ_t(it);
    if (S->ck_path && isfinite(S->ck_every))
        S->ck_next = S->t0 + S->ck_every * (floor((tc - S->t0) / S->ck_every) + 1.0);
    if (S->every <= 0) /* chosen here: every step up to 5000 steps, else about 2000 rows */
        S->every = S->o.adaptive || nsteps <= 5000 ? 1 : (int)((nsteps + 1999) / 2000);
    sim_measure(S, tc, q, v);
    write_row(S, tc, q, v);
    if (S->out_dt > 0.0) {
        S->out_j = (long)floor((tc - S->t0) / S->out_dt + 1e-9) + 1;
        dense_keep(S, tc, q, v);
    }
    double wall0 = wall_seconds(), next = wall0 + 0.2;
    int shown = 0;
    long taken = 0;
    while (!S->io_error && (S->o.adaptive ? ld_integ_t(it) < S->t1 : S->n < nsteps)) {
        if (sim_stop_signal || (S->max_steps > 0 && taken >= S->max_steps)) {
            sim_stop(S, ld_integ_t(it), q, v, sim_stop_signal ? (int)sim_stop_signal : -1);
            break;
        }
        double c0 = cpu_seconds();
        int rc = sim_advance(S, S->n + 1, nsteps);
        S->tot.cpu += cpu_seconds() - c0;
        q = ld_integ_q(it);
        v = ld_integ_v(it);
        double t = ld_integ_t(it);
        if (rc) {
            sim_failed(S, rc, t, q, v);
            break;
        }
        S->n++;
        taken++;
        sim_accepted(S, t, q, v);
        if (S->progress) {
            int w = show_progress(S, t, taken, wall0, &next);
            shown = w > shown ? w : shown;
        }
    }
    if (shown) {
        fprintf(stderr, "\r%*s\r", shown, "");
        fflush(stderr);
    }
    sim_finish(S, q, v);
    if (S->status) return 3;
    if (S->io_error) return 4;
    return S->stopped ? 5 : 0;
}

/* A sim from the model's (overridden) run block. */
void sim_init(sim *S, const ld_model *m, const char *path, const char *cmd, int method, int la,
              int project) {
    memset(S, 0, sizeof *S);
    S->m = m;
    S->path = path;
    S->cmd = cmd;
    S->form = m->run.formulation;
    (void)ld_integ_options_from_model(m, &S->o); /* the loader checked the integrator's name */
    S->o.method = (ld_integ_method)method;
    S->o.la = la >= 0 ? (ld_la_kind)la : LD_LA_AUTO;
    S->o.project = project;
    S->t0 = S->grid0 = m->run.t_start;
    S->t1 = m->run.t_end;
    S->dt = m->run.dt;
    S->every = m->run.output_every;
    S->out_dt = m->output.dt;
    S->est = ld_integ_method_has_estimate(S->o.method);
}

/* ------------------------------------------------------------------ JSON helpers */

void json_str(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", (unsigned)*p);
        else
            putchar(*p);
    }
    putchar('"');
}

void json_num(double v) {
    if (isfinite(v))
        printf("%.17g", v);
    else
        fputs("null", stdout);
}

void json_vec(const double *v, int n) {
    putchar('[');
    for (int i = 0; i < n; ++i) {
        if (i) fputs(", ", stdout);
        json_num(v[i]);
    }
    putchar(']');
}

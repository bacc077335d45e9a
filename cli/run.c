/*
 * liedyn run — integrate a multibody model (a YAML file or a shipped model) with a Lie-group
 * integrator; CSV, legacy-VTK and gnuplot output. Exit codes: 0 ok, 2 bad usage or input,
 * 3 the integration failed (the JSON and the CSV written so far stay valid and say where it
 * stopped). Reference: docs/cli-run.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "plot.h"
#include "sim.h"
#include "view.h"
#include "../src/core/oom.h"

/* ------------------------------------------------------------------ liedyn run */

/* Is prog an executable on PATH? */
static int on_path(const char *prog) {
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    char buf[PATH_CAP];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && n + strlen(prog) + 2 < sizeof buf) {
            memcpy(buf, path, n);
            buf[n] = '/';
            strcpy(buf + n + 1, prog);
            if (is_file(buf) && access(buf, X_OK) == 0) return 1;
        }
        path += n;
        if (*path == ':') ++path;
    }
    return 0;
}

int cli_make_dirs(const char *dir) {
    char buf[PATH_CAP];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        struct stat st;
        if (stat(buf, &st) != 0) {
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        } else if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return -1;
        }
        buf[i] = c;
    }
    return 0;
}

/* A temporary file name next to png for the CSV of --plot without --out. 0 or 2. */
static int plot_temp_csv(const char *png, char *name, size_t cap) {
    const char *slash = strrchr(png, '/');
    int dlen = slash ? (int)(slash - png) : 1;
    snprintf(name, cap, "%.*s/.liedyn-plot-XXXXXX", dlen, slash ? png : ".");
    int fd = mkstemp(name);
    if (fd < 0)
        return cli_error("run: cannot create a temporary file next to '%s': %s", png,
                         strerror(errno));
    close(fd);
    return 0;
}

/* The PNG of --plot from csv (every column of the run). 0 or 2. */
static int plot_of_run(const sim *S, const run_args *a, const char *csv) {
    char title[3 * LD_NAME_MAX + 160], par[96] = "";
    const ld_method_info *d = ld_method_get((int)S->o.method);
    for (int j = 0; d && j < d->nparams && strlen(par) < 60; ++j)
        snprintf(par + strlen(par), sizeof par - strlen(par), ", %s = %g", d->params[j].key,
                 ld_method_param_value(&S->o, &d->params[j]));
    if (S->o.adaptive)
        snprintf(title, sizeof title, "%s: %s on %s, adaptive (tolerances %g, %g)%s", S->base,
                 ld_integ_method_name(S->o.method), ld_formulation_name(S->form), S->o.error_atol,
                 S->o.error_rtol, par);
    else
        snprintf(title, sizeof title, "%s: %s on %s, h = %g%s", S->base,
                 ld_integ_method_name(S->o.method), ld_formulation_name(S->form), S->dt, par);
    plot_input in = {csv,          a->plot, (const char *const *)S->names, S->ncols, S->m,
                     a->plot_what, title};
    return plot_run(&in);
}

/* "ok", "failed", "output_failed", "drifted" or "stopped". */
static const char *run_status(const sim *S) {
    if (S->status) return "failed";
    if (S->io_error) return "output_failed";
    if (S->drifted || S->overlapped) return "drifted";
    return S->stopped ? "stopped" : "ok";
}

/* Why a drifted run ended, one line: where and by how much the residual exceeded the
 * tolerance, and what to do about it. */
static void drift_message(const sim *S, char *buf, size_t cap) {
    const ld_method_info *d = ld_method_get((int)S->o.method);
    const char *fix =
        d->newton ? "a tighter --atol/--rtol or a smaller --dt"
        : ld_hem_table_of(S->o.method) && !S->o.project
            ? "--project, a tighter --atol/--rtol, or a Newton method such as genalpha"
            : "a tighter --atol/--rtol, a smaller --dt, or a Newton method such as "
              "genalpha";
    char what[2 * LD_NAME_MAX + 400];
    ld_runcheck_message(&S->chk, &S->s, S->m, "--constraint-tol", what, sizeof what);
    snprintf(buf, cap, "run %s; rerun with %s, or %s", what, fix,
             S->chk.drifted == 2 ? "turn the checks off with --constraint-tol 0"
                                 : "raise --constraint-tol");
}

/* The name of body b, "ground" for b < 0. */
static const char *body_or_ground(const sim *S, int b) {
    return b >= 0 && b < S->m->nbodies ? S->m->bodies[b].name : "ground";
}

/* Why a run that overlapped ended, one line. */
static void overlap_message(const sim *S, char *buf, size_t cap) {
    snprintf(buf, cap,
             "run drifted into overlap at t = %.10g: '%s' and '%s' overlap by %.3e m at the "
             "step's end, more than --overlap-tol %.3g, so the contacts no longer hold; rerun "
             "with a smaller --dt or a tighter --pgs-tol, or raise --overlap-tol",
             S->ov_t, body_or_ground(S, S->ov_b1), body_or_ground(S, S->ov_b2), S->ov_max,
             S->ov_tol);
}

/* The contact members of the JSON record (a model with contact). */
static void json_contact(const sim *S) {
    if (!S->has_contact) return;
    printf(", \"contacts\": %d, \"contact_sweeps\": %ld, \"correction_sweeps\": %ld, "
           "\"max_midpoint_overlap\": ",
           S->cst.contacts, S->cst.total_sweeps, S->cst.total_correction_sweeps);
    json_num(S->cst.max_overlap);
    printf(", \"max_end_overlap\": ");
    json_num(S->ov_max);
    printf(", \"max_end_overlap_t\": ");
    json_num(S->ov_t);
    printf(", \"max_end_overlap_bodies\": [");
    if (S->ov_b1 >= 0 || S->ov_b2 >= 0) {
        json_str(body_or_ground(S, S->ov_b1));
        printf(", ");
        json_str(body_or_ground(S, S->ov_b2));
    }
    printf("], \"overlap_tol\": ");
    json_num(S->ov_tol);
    if (S->ccsv) printf(", \"contact_rows\": %ld", ld_out_contacts_count(S->ccsv));
}

/* What the run wrote, as JSON members (", \"csv_rows\": …"). */
/* ", "redundant_rows": [{"joint": "D", "row": 3}, …], "joint_residual": x' (rows from 1). */
static void json_redundant(const sim *S) {
    int n = ld_model_redundant_rows(&S->s, NULL, NULL, 0);
    int *jr = ld_xmalloc(2 * (size_t)(n > 0 ? n : 1) * sizeof *jr, "the joint and rod columns"),
        *rr = jr + (n > 0 ? n : 1);
    if (jr) (void)ld_model_redundant_rows(&S->s, jr, rr, n);
    printf(", \"redundant_rows\": [");
    for (int i = 0; jr && i < n; ++i) {
        printf("%s{\"joint\": ", i ? ", " : "");
        json_str(S->m->joints[jr[i]].name);
        printf(", \"row\": %d}", rr[i] + 1);
    }
    free(jr);
    printf("], \"joint_residual\": ");
    json_num(S->it ? ld_model_joint_phi_max(&S->s, S->t, ld_integ_q(S->it), NULL) : (double)NAN);
    const ld_assembly *A = &S->m->assembly; /* what reading the model assembled */
    printf(", \"assembly\": {\"placed\": %d, \"iterations\": %d, \"gap\": ", A->placed,
           A->iterations);
    json_num(A->gap);
    printf(", \"gap_joint\": ");
    json_str(A->gap_joint >= 0 ? S->m->joints[A->gap_joint].name : "");
    printf(", \"moved\": ");
    json_num(A->moved);
    printf(", \"residual\": ");
    json_num(A->residual);
    printf("}");
}

static void json_outputs(const sim *S) {
    if (S->csv) printf(", \"csv_rows\": %ld", ld_out_csv_rows(S->csv));
    if (S->vtk) printf(", \"vtk_files\": %ld", ld_out_vtk_files(S->vtk));
    if (S->html) printf(", \"html_frames\": %ld", ld_out_html_frames(S->html));
    if (S->ck_path) printf(", \"checkpoints\": %ld", S->ck_written);
    if (S->io_error) {
        printf(", \"output_error\": ");
        json_str(S->io_msg);
    }
    if (S->stopped) {
        printf(", \"stopped_by\": ");
        json_str(S->stopped > 0 ? (S->stopped == SIGINT ? "SIGINT" : "SIGTERM") : "max-steps");
    }
}

static void print_json(const sim *S, const ld_model *m, const char *base) {
    int nb = m->nbodies;
    printf("{\"model\": ");
    json_str(base);
    printf(", \"integrator\": \"%s\", \"formulation\": \"%s\", \"la\": \"%s\", ",
           ld_integ_method_name(S->o.method), ld_formulation_name(S->form),
           ld_la_kind_name(ld_integ_la(S->it)));
    printf("\"la_order\": %d, \"la_entries\": %zu, ", S->s.k + S->s.m,
           ld_integ_la_entries(&S->s, &S->o));
    printf("\"dt\": ");
    json_num(S->dt);
    printf(", \"t_start\": ");
    json_num(S->t0);
    printf(", \"t_end\": ");
    json_num(S->t1);
    const ld_method_info *d = ld_method_get((int)S->o.method);
    for (int j = 0; d && j < d->nparams; ++j) { /* the method's own parameters */
        printf(", \"%s\": ", d->params[j].key);
        json_num(ld_method_param_value(&S->o, &d->params[j]));
    }
    if (ld_hem_table_of(S->o.method)) printf(", \"project\": %s", S->o.project ? "true" : "false");
    if (S->est) {
        printf(", \"adaptive\": %s", S->o.adaptive ? "true" : "false");
        if (S->o.adaptive) {
            printf(", \"error_atol\": ");
            json_num(S->o.error_atol);
            printf(", \"error_rtol\": ");
            json_num(S->o.error_rtol);
        }
        printf(", \"h_smallest\": ");
        json_num(S->st.steps > 0 ? S->tot.hmin : 0.0);
        printf(", \"h_largest\": ");
        json_num(S->tot.hmax);
        printf(", \"max_error_estimate\": ");
        json_num(S->tot.errmax);
    }
    if (S->warning[0]) {
        printf(", \"warning\": ");
        json_str(S->warning);
    }
    printf(", \"status\": \"%s\"", run_status(S));
    json_outputs(S);
    printf(", ");
    if (S->status) {
        printf("\"error\": ");
        json_str(S->msg);
        printf(", ");
    } else if (S->drifted || S->overlapped) {
        char why[3 * LD_NAME_MAX + 512];
        if (S->drifted)
            drift_message(S, why, sizeof why);
        else
            overlap_message(S, why, sizeof why);
        printf("\"error\": ");
        json_str(why);
        printf(", ");
    }
    printf("\"t\": ");
    json_num(S->t);
    printf(", \"steps\": %ld, \"newton_iterations\": %ld, \"rejected\": %ld, "
           "\"rejected_error_test\": %ld, \"rejected_solve\": %ld, ",
           S->st.steps, S->st.newton_iterations, S->st.rejected, S->st.error_test_failures,
           S->st.newton_failures);
    printf("\"factorizations\": %ld, ", S->st.factorizations);
    printf("\"cpu_s\": %.10g, \"energy\": ", S->tot.cpu);
    json_num(S->e1);
    printf(", \"energy_initial\": ");
    json_num(S->tot.e0);
    printf(", \"energy_scale\": ");
    json_num(S->tot.escale);
    printf(", \"energy_drift_rel\": ");
    json_num(ld_energy_drift_rel(S->tot.e0, S->e1, S->tot.escale));
    printf(", \"constraint_residual\": ");
    json_num(S->tot.phimax);
    char row[LD_NAME_MAX + 96] = "";
    if (S->tot.phimax > 0.0) (void)ld_model_row_name(&S->s, S->tot.phirow, row, sizeof row);
    printf(", \"constraint_residual_row\": ");
    json_str(row);
    printf(", \"constraint_tol\": ");
    json_num(S->phi_tol);
    printf(", \"velocity_residual\": ");
    json_num(S->chk.vres);
    char vrow[LD_NAME_MAX + 96] = "";
    if (S->chk.vres > 0.0) (void)ld_model_row_name(&S->s, S->chk.vres_row, vrow, sizeof vrow);
    printf(", \"velocity_residual_row\": ");
    json_str(vrow);
    json_redundant(S);
    json_contact(S);
    if (S->any_exact) {
        printf(", \"max_angle_error\": ");
        json_num(S->tot.angmax);
    }
    printf(", \"bodies\": [");
    for (int b = 0; b < nb; ++b) {
        printf("%s{\"name\": ", b ? ", " : "");
        json_str(m->bodies[b].name);
        printf(", \"x\": ");
        json_vec(S->bx + 3 * b, 3);
        printf(", \"q\": ");
        json_vec(S->bq + 4 * b, 4);
        printf(", \"omega\": ");
        json_vec(S->bw + 3 * b, 3);
        printf(", \"v\": ");
        json_vec(S->bv + 3 * b, 3);
        printf("}");
    }
    printf("]}\n");
}

/* Start recording the viewer's frames (--html). 0 or 2. */
static int open_html(sim *S, const run_args *a) {
    char why[512];
    int rc;
    S->html =
        ld_out_html_open(&S->s, S->m, S->t0, S->t1, a->frames > 0 ? a->frames : VIEW_FRAMES_DEFAULT,
                         &rc, why, sizeof why);
    if (rc == LD_ENOTSUPPORTED) return cli_error("run: --html is not available: %s", why);
    if (rc) return cli_error("run: --html: %s", why);
    return 0;
}

/* Write the HTML file of the frames recorded; failures are recorded in S (io_error). */
static void close_html(sim *S, const run_args *a, const char *title) {
    char why[PATH_CAP + 256];
    if (ld_out_html_write(S->html, a->html, title, why, sizeof why) != LD_OK) io_fail_msg(S, why);
}

/* "rho_inf = 0.9, …": the method's own parameters in use. */
static void method_params(const sim *S, char *out, size_t cap) {
    const ld_method_info *d = ld_method_get((int)S->o.method);
    out[0] = '\0';
    for (int j = 0; d && j < d->nparams; ++j) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s%s = %g", j ? ", " : "", d->params[j].key,
                 ld_method_param_value(&S->o, &d->params[j]));
    }
}

/* The energy line: its drift where the model keeps its energy, else the change and why. */
static void print_energy(const sim *S) {
    char why[160];
    if (!isfinite(S->tot.e0) && !isfinite(S->e1)) return; /* a model without energy */
    double de = S->e1 - S->tot.e0;
    if (!ld_model_energy_conserved(S->m, why, sizeof why)) {
        printf("  energy %.10g -> %.10g (not conserved: %s)\n", S->tot.e0, S->e1, why);
        return;
    }
    printf("  energy %.10g -> %.10g (drift %.3e, relative %.3e to the largest energy term %.4g)\n",
           S->tot.e0, S->e1, de, ld_energy_drift_rel(S->tot.e0, S->e1, S->tot.escale),
           S->tot.escale);
}

/* The final position and body angular velocity of the (at most 3) bodies that moved most. */
/* The joints' rows left out as redundant (docs/constraints.md), the first MAXJ joints named:
 * "joint 'D' (line 11) rows 3, 4, 5; … and 37 more joints" into buf; their count. */
static int redundant_text(const sim *S, char *buf, size_t cap) {
    enum { MAXJ = 4 };
    int n = ld_model_redundant_rows(&S->s, NULL, NULL, 0), joints = 0;
    int *jr = ld_xmalloc(2 * (size_t)(n > 0 ? n : 1) * sizeof *jr, "the joint and rod columns"),
        *rr = jr + (n > 0 ? n : 1);
    size_t len = 0;
    buf[0] = '\0';
    if (!jr) return n;
    (void)ld_model_redundant_rows(&S->s, jr, rr, n);
    for (int i = 0; i < n; ++i) {
        int first = i == 0 || jr[i - 1] != jr[i];
        joints += first;
        if (joints > MAXJ || len + 96 + LD_NAME_MAX >= cap) continue;
        const ld_joint *jd = &S->m->joints[jr[i]];
        char at[32];
        int w = first ? snprintf(buf + len, cap - len, "%sjoint '%s'%s row%s %d", i ? "; " : "",
                                 jd->name, cli_at_line(at, sizeof at, jd->line),
                                 i + 1 < n && jr[i + 1] == jr[i] ? "s" : "", rr[i] + 1)
                      : snprintf(buf + len, cap - len, ", %d", rr[i] + 1);
        if (w > 0) len += (size_t)w;
    }
    if (joints > MAXJ && len + 48 < cap)
        snprintf(buf + len, cap - len, "; and %d more joint%s", joints - MAXJ,
                 joints - MAXJ == 1 ? "" : "s");
    free(jr);
    return n;
}

/* "  redundant: …" after the constraint line, when compiling left joint rows out. */
static void print_redundant(const sim *S) {
    char txt[2048];
    int n = redundant_text(S, txt, sizeof txt), jbad = -1;
    if (n == 0 || !S->it) return;
    double ph = ld_model_joint_phi_max(&S->s, S->t, ld_integ_q(S->it), &jbad);
    printf("  redundant: %d joint equation%s left out, dependent on the others (%s); every "
           "joint equation holds to %.3e at the end\n",
           n, n == 1 ? "" : "s", txt, ph);
}

/* A vector as the summary shows it: a component below 1e-15 of the vector's largest (round-off
 * of the others, e.g. an out-of-plane 1e-38 beside 0.04) or below the smallest normal double
 * shown as 0, not as data. */
static void shown3(const double v[3], double out[3]) {
    double big = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    for (int i = 0; i < 3; ++i)
        out[i] = fabs(v[i]) < 1e-15 * big || fabs(v[i]) < DBL_MIN ? 0.0 : v[i];
}

static void print_moving(const sim *S) {
    const ld_model *m = S->m;
    int pick[3] = {-1, -1, -1}, moved = 0;
    double score[3] = {0, 0, 0};
    for (int b = 0; b < m->nbodies; ++b) {
        const double *x = S->bx + 3 * b, *x0 = m->bodies[b].x, *w = S->bw + 3 * b;
        double d = hypot(hypot(x[0] - x0[0], x[1] - x0[1]), x[2] - x0[2]);
        double sc = d + hypot(hypot(w[0], w[1]), w[2]) * (S->t - S->t0);
        if (!(sc > 1e-12)) continue;
        moved++;
        for (int k = 0; k < 3; ++k) {
            if (sc <= score[k] && pick[k] >= 0) continue;
            for (int l = 2; l > k; --l) pick[l] = pick[l - 1], score[l] = score[l - 1];
            pick[k] = b, score[k] = sc;
            break;
        }
    }
    for (int k = 0; k < 3 && pick[k] >= 0; ++k) {
        double x[3], w[3];
        shown3(S->bx + 3 * pick[k], x);
        shown3(S->bw + 3 * pick[k], w);
        printf("  %s: x = (%.6g, %.6g, %.6g), omega = (%.6g, %.6g, %.6g) rad/s (body frame)\n",
               m->bodies[pick[k]].name, x[0], x[1], x[2], w[0], w[1], w[2]);
    }
    if (moved > 3) printf("  (%d bodies moved; the 3 that moved most are shown)\n", moved);
}

/* "  contact: …": the last step's contacts, the sweeps, the overlaps and the check. */
static void print_contact(const sim *S) {
    if (!S->has_contact) return;
    double n = S->st.steps > 0 ? (double)S->st.steps : 1.0;
    printf("  contact: %d contacts in the last step, %ld PGS sweeps (%.3g per step) and %ld of "
           "the positions (%.3g); largest overlap %.3e m at a step's midpoint, %.3e m at a "
           "step's end",
           S->cst.contacts, S->cst.total_sweeps, (double)S->cst.total_sweeps / n,
           S->cst.total_correction_sweeps, (double)S->cst.total_correction_sweeps / n,
           S->cst.max_overlap, S->ov_max);
    if (S->ov_max > 0.0)
        printf(" ('%s' and '%s' at t = %.6g)", body_or_ground(S, S->ov_b1),
               body_or_ground(S, S->ov_b2), S->ov_t);
    printf("; overlap tolerance %.3g%s\n", S->ov_tol, S->ov_tol > 0.0 ? "" : " (no check)");
}

static void print_summary(const sim *S, const char *base, const run_args *a) {
    const char *st = S->status                     ? "FAILED"
                     : S->io_error                 ? "OUTPUT FAILED"
                     : S->drifted || S->overlapped ? "DRIFTED"
                     : S->stopped                  ? "stopped"
                                                   : "ok";
    char par[128] = "";
    method_params(S, par, sizeof par);
    printf("%s: %s on %s%s%s%s, dt = %.6g, t = %.6g .. %.6g: %s at t = %.10g\n", base,
           ld_integ_method_name(S->o.method), ld_formulation_name(S->form), par[0] ? " (" : "", par,
           par[0] ? ")" : "", S->dt, S->t0, S->t1, st, S->t);
    if (ld_method_get((int)S->o.method)->newton)
        printf("  %ld steps, %.3g Newton iterations/step, ", S->st.steps,
               S->st.steps > 0 ? (double)S->st.newton_iterations / (double)S->st.steps : 0.0);
    else
        printf("  %ld steps (no Newton iteration), ", S->st.steps);
    printf("%ld rejected", S->st.rejected);
    if (S->st.rejected)
        printf(" (%ld by the error estimate, %ld in the solve)", S->st.error_test_failures,
               S->st.newton_failures);
    printf(", cpu %.3g s\n", S->tot.cpu);
    if (S->est && S->st.steps > 0)
        printf("  %s steps h = %.3g .. %.3g, max error estimate %.3g%s\n",
               S->o.adaptive ? "controlled" : "fixed", S->tot.hmin, S->tot.hmax, S->tot.errmax,
               S->o.adaptive ? " (tolerance 1)" : "");
    print_energy(S);
    print_moving(S);
    printf("  max |Phi| %.3e", S->tot.phimax);
    char row[LD_NAME_MAX + 96];
    if (S->tot.phimax > 0.0 && ld_model_row_name(&S->s, S->tot.phirow, row, sizeof row) == LD_OK)
        printf(" (%s, at t = %.6g)", row, S->tot.phit);
    if (S->any_exact) printf(", max angle error %.3e rad", S->tot.angmax);
    printf("\n");
    if (S->s.m > 0) {
        printf("  max |B v + Phi_t| %.3e", S->chk.vres);
        if (S->chk.vres > 0.0 &&
            ld_model_row_name(&S->s, S->chk.vres_row, row, sizeof row) == LD_OK)
            printf(" (%s, at t = %.6g)", row, S->chk.vres_t);
        printf("; constraint tolerance %.3g%s\n", S->phi_tol,
               S->phi_tol > 0.0 ? "" : " (no check)");
    }
    print_assembly(S->m, "  ");
    print_redundant(S);
    print_contact(S);
    if (a->out) printf("  csv: %s (%ld rows)\n", a->out, S->csv ? ld_out_csv_rows(S->csv) : 0L);
    if (a->contacts)
        printf("  contacts: %s (%ld lines)\n", a->contacts,
               S->ccsv ? ld_out_contacts_count(S->ccsv) : 0L);
    if (a->vtk)
        printf("  vtk: %s/%s_*.vtk (%ld files), %s/%s.vtk.series\n", a->vtk, base,
               S->vtk ? ld_out_vtk_files(S->vtk) : 0L, a->vtk, base);
    if (a->vtk && S->has_contact)
        printf("  vtk contacts: %s/%s_contacts_*.vtk, %s/%s_contacts.vtk.series\n", a->vtk, base,
               a->vtk, base);
    if (S->ck_path) printf("  checkpoint: %s (t = %.10g)\n", S->ck_path, S->t);
    if (a->plot) printf("  plot: %s\n", a->plot);
    if (a->html && S->html)
        printf("  html: %s (%ld frames)\n", a->html, ld_out_html_frames(S->html));
}

/* Open the outputs asked for: the VTK directory, the CSV (its columns), and the plot's CSV of
 * every column when the CSV cannot serve (none, or chosen columns). 0 or 2 (message printed). */
static int open_outputs(sim *S, const run_args *a, char *tmp_csv, size_t cap) {
    char why[PATH_CAP + 256];
    long frames = a->frames > 0 ? a->frames : VIEW_FRAMES_DEFAULT;
    S->vtk_spacing = (S->t1 - S->t0) / (double)(frames - 1);
    S->vtk_next = -INFINITY;
    if (a->vtk) {
        if (cli_make_dirs(a->vtk) != 0)
            return cli_error("run: cannot create directory '%s': %s", a->vtk, strerror(errno));
        S->vtk = ld_out_vtk_open(a->vtk, S->base, &S->s, S->m, NULL, why, sizeof why);
        if (!S->vtk) return cli_error("run: --vtk: %s", why);
    }
    if (a->contacts) {
        if (!S->has_contact)
            return cli_error("run: --contacts: the model '%s' has no contact (no colliding shape "
                             "and no joint limits)",
                             S->base);
        int st;
        S->ccsv = ld_out_contacts_open(a->contacts, S->m, &st, why, sizeof why);
        if (!S->ccsv) return cli_error("run: --contacts: %s", why);
    }
    if (csv_columns(S, a->columns)) return 2;
    plot_input pin = {NULL,         a->plot, (const char *const *)S->names, S->ncols, S->m,
                      a->plot_what, ""};
    if (a->plot && plot_check(&pin)) return 2;
    if (a->plot && (!a->out || a->columns)) {
        if (plot_temp_csv(a->plot, tmp_csv, cap)) return 2;
        if (csv_open(S, &S->pcsv, tmp_csv, NULL, why, sizeof why) != 0)
            return cli_error("run: %s", why);
    }
    if (!a->out) return 0;
    if (csv_open(S, &S->csv, a->out, a->columns, why, sizeof why) != 0)
        return cli_error("run: %s", why);
    return 0;
}

/* The one line on stderr that says how the run ended (nothing if it ended well). */
static void report_end(const sim *S, int run_rc) {
    if (run_rc == 3) cli_error("run failed at t = %.10g: %s", S->t, S->msg);
    if (run_rc == 6) {
        char why[3 * LD_NAME_MAX + 512];
        if (S->drifted)
            drift_message(S, why, sizeof why);
        else
            overlap_message(S, why, sizeof why);
        cli_error("%s", why);
    }
    if (S->io_error) cli_error("run: %s", S->io_msg);
    if (S->stopped)
        cli_error("run stopped by %s at t = %.10g after %ld steps%s%s%s",
                  S->stopped > 0 ? (S->stopped == SIGINT ? "SIGINT" : "SIGTERM") : "--max-steps",
                  S->t, S->st.steps, S->ck_path ? "; continue with --restart " : "",
                  S->ck_path ? S->ck_path : "", S->ck_path ? "" : " (no --checkpoint given)");
}

/* Exit status of a run: 3 failed, 4 output failed, 6 drifted, 128 + signal or 5 stopped,
 * 2 plot. */
static int run_exit(const sim *S, int run_rc, int plot_rc) {
    if (run_rc == 3) return 3;
    if (S->io_error) return 4;
    if (run_rc == 6) return 6;
    if (S->stopped) return S->stopped > 0 ? 128 + S->stopped : 5;
    return plot_rc ? 2 : 0;
}

int cli_run(int argc, char **argv) {
    run_args a;
    int rc = parse_args(argc, argv, CMD_RUN, &a);
    if (rc) return rc == 1 ? 0 : 2;
    if (a.plot && !on_path("gnuplot"))
        return cli_error("--plot needs gnuplot (apt-get install gnuplot-nox)");
    char path[PATH_CAP];
    ld_model m;
    int method;
    if (load_model(&a, path, sizeof path, &m, &method)) return 2;
    sim S;
    sim_init(&S, &m, path, "run", method, a.la, a.project > 0);
    model_base(&m, path, S.base, sizeof S.base);
    S.ck_path = a.checkpoint;
    S.ck_every = a.checkpoint_every;
    S.max_steps = a.max_steps;
    S.phi_tol = isnan(a.constraint_tol) ? ld_model_constraint_tol(&m) : a.constraint_tol;
    S.ov_tol = isnan(a.overlap_tol) ? overlap_tol_default(&m) : a.overlap_tol;
    S.tag = model_tag(&m, (int)S.form);
    char tmp_csv[PATH_CAP] = "";
    rc = sim_setup(&S);
    if (!rc && a.restart) rc = sim_restart(&S, a.restart);
    if (!rc) rc = open_outputs(&S, &a, tmp_csv, sizeof tmp_csv);
    if (!rc && a.html) rc = open_html(&S, &a);
    if (rc) {
        if (tmp_csv[0]) unlink(tmp_csv);
        sim_free(&S);
        ld_model_free(&m);
        return 2;
    }
    S.progress = !a.quiet && !a.json && isatty(2);
    sim_catch_signals();
    int run_rc = sim_run(&S);
    outputs_close(&S);
    if (a.html) close_html(&S, &a, S.base);
    if (a.json)
        print_json(&S, &m, S.base);
    else if (!a.quiet)
        print_summary(&S, S.base, &a);
    (void)cli_flush_stdout();
    int plot_rc = 0;
    if (a.plot && !S.io_error) plot_rc = plot_of_run(&S, &a, tmp_csv[0] ? tmp_csv : a.out);
    if (tmp_csv[0]) unlink(tmp_csv);
    report_end(&S, run_rc);
    int code = run_exit(&S, run_rc, plot_rc);
    sim_free(&S);
    ld_model_free(&m);
    return code;
}

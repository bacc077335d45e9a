/*
 * liedyn convergence — runs over a list of step sizes: errors at the end time against the
 * exact rotation, a finer reference run or a CSV, and the observed orders. The runs are the
 * cases of a sweep (cli/sweep.h), run in worker processes.
 * Reference: docs/cli-run.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "csv.h"
#include "liedyn/liedyn.h"
#include "sim.h"
#include "sweep.h"
#include "../src/core/oom.h"

/* ------------------------------------------------------------------ liedyn convergence */

/* The column called want in the header record h, or −1. */
static int ref_column(const ld_io_csv_record *h, const char *want) {
    for (int k = 0; k < h->n; ++k)
        if (strcmp(h->field[k], want) == 0) return k;
    return -1;
}

/* The row t = T (to 1e-9) of a CSV from liedyn run --out (RFC 4180, csv.h): per body x (3) and
 * q (4). */
static int read_ref_csv(const char *path, const ld_model *m, double T, double *x, double *q) {
    FILE *f = fopen(path, "rb");
    if (!f) return cli_error("convergence: cannot open '%s': %s", path, strerror(errno));
    ld_io_csv_record r = {0};
    char why[160];
    int nb = m->nbodies, rc = 0, found = 0,
        *col = ld_xmalloc(7 * (size_t)nb * sizeof(int) + 1, "the reference columns");
    int got = col ? ld_io_csv_read(f, &r, why, sizeof why) : -1;
    if (!col) ld_oom_last(why, sizeof why);
    if (got <= 0) {
        rc = got ? cli_error("convergence: %s: %s", path, why)
                 : cli_error("convergence: '%s' is empty", path);
        goto done;
    }
    static const char *const names[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    for (int b = 0; b < nb; ++b)
        for (int c = 0; c < 7; ++c) {
            char want[LD_NAME_MAX + 8];
            snprintf(want, sizeof want, "%s.%s", m->bodies[b].name, names[c]);
            if ((col[7 * b + c] = ref_column(&r, want)) < 0) {
                rc = cli_error("convergence: '%s' has no column '%s' (use a CSV written by "
                               "'liedyn run --out' for this model)",
                               path, want);
                goto done;
            }
        }
    int ncols = r.n;
    while (!found && (got = ld_io_csv_read(f, &r, why, sizeof why)) > 0) {
        int k = 0;
        for (char *end; k < ncols && k < r.n; ++k) {
            (void)strtod(r.field[k], &end);
            if (end == r.field[k] || *end) break;
        }
        if (k < ncols || r.n != ncols) {
            rc = cli_error("convergence: %s:%ld: expected %d numbers", path, r.line, ncols);
            goto done;
        }
        if (fabs(strtod(r.field[0], NULL) - T) <= 1e-9) found = 1;
    }
    if (got < 0) {
        rc = cli_error("convergence: %s: %s", path, why);
        goto done;
    }
    if (!found) {
        rc = cli_error("convergence: '%s' has no row at t = %.10g (to 1e-9)", path, T);
        goto done;
    }
    for (int b = 0; b < nb; ++b) {
        for (int c = 0; c < 3; ++c) x[3 * b + c] = strtod(r.field[col[7 * b + c]], NULL);
        for (int c = 0; c < 4; ++c) q[4 * b + c] = strtod(r.field[col[7 * b + 3 + c]], NULL);
    }
done:
    ld_io_csv_record_free(&r);
    free(col);
    fclose(f);
    return rc;
}

/* The study's runs as a sweep (cli/sweep.h): the model with the command line's integrator
 * settings, one case per step size (the reference run's first when there is one), run in
 * worker processes. *rows receives each case's row; *sw the sweep. 0, or the exit code (a
 * message printed). */
static int conv_sweep(const run_args *a, const ld_model *m, const char *path, int method,
                      const double *hs, int nh, sweep *sw, sw_exec *x) {
    sw_buf b = {0};
    sw_buf_printf(&b, "model: ");
    sweep_yaml_quoted(&b, path);
    sw_buf_printf(&b,
                  "\nset: {integrator.name: %s, integrator.formulation: %s, "
                  "integrator.t_end: %.17g",
                  ld_integ_method_name((ld_integ_method)method),
                  ld_formulation_name(m->run.formulation), m->run.t_end);
    /* the run block as load_model left it (the file's values and the options' overrides) */
    const ld_run_spec *r = &m->run;
    for (int i = 0; i < r->nparams; ++i)
        sw_buf_printf(&b, ", integrator.%s: %.17g", r->params[i].key, r->params[i].value);
    sw_buf_printf(&b,
                  ", integrator.newton_atol: %.17g, integrator.newton_rtol: %.17g, "
                  "integrator.error_atol: %.17g, integrator.error_rtol: %.17g, "
                  "integrator.max_iter: %d, integrator.newton_reuse: %s",
                  r->newton_atol, r->newton_rtol, r->error_atol, r->error_rtol, r->max_iter,
                  r->newton_reuse == LD_REUSE_AUTO ? "auto"
                  : r->newton_reuse                ? "true"
                                                   : "false");
    sw_buf_printf(&b, "}\ncases:\n");
    for (int i = 0; i < nh; ++i) sw_buf_printf(&b, "  - {integrator.dt: %.17g}\n", hs[i]);
    sw_buf_printf(&b, "record: [final_state, steps, status]\n");
    int rc = sweep_load(sw, "convergence", b.s);
    sw_buf_free(&b);
    if (rc) return 2;
    sw->la = a->la;
    sw->project = a->project > 0;
    sw->label = path;
    memset(x, 0, sizeof *x);
    x->jobs = a->jobs;
    x->fresh = 1;
    rc = sweep_exec(sw, x);
    if (rc) {
        sweep_rows_free(x, sw->ncases);
        sweep_free(sw);
    }
    return rc;
}

/* The final x, q per body and the step counts of case c from its row; 0, or 2/3 with the
 * message of the failed run printed. */
static int conv_case(const sweep *sw, const sw_exec *x, long c, double h, double *xb, double *qb,
                     long *steps, long *iters) {
    sw_buf hd = {0};
    sweep_header(sw, &hd);
    char **names = NULL, **f = NULL;
    int nc = sweep_csv_split(hd.s, hd.len - 1, &names);
    int n = x->rows[c] ? sweep_csv_split(x->rows[c], strlen(x->rows[c]) - 1, &f) : -1;
    sw_buf_free(&hd);
    int rc = 0;
    if (n != nc) {
        rc = cli_error("convergence: the run at dt = %.6g gave no result", h);
    } else {
        const char *status = f[nc - 3], *t = f[nc - 2], *msg = f[nc - 1];
        if (strcmp(status, "failed") == 0)
            rc = 3, cli_error("convergence: the run at dt = %.6g failed at t = %.10g: %s", h,
                              strtod(t, NULL), msg);
        else if (strcmp(status, "ok") != 0)
            rc = cli_error("%s", msg);
        for (int b = 0; !rc && b < sw->nbodies; ++b)
            for (int k = 0; k < 7; ++k) {
                double v = strtod(f[1 + sw->nparams + 13 * b + k], NULL);
                if (k < 3)
                    xb[3 * b + k] = v;
                else
                    qb[4 * b + k - 3] = v;
            }
        if (!rc) {
            *steps = strtol(f[nc - 6], NULL, 10);
            *iters = strtol(f[nc - 5], NULL, 10);
        }
    }
    for (int k = 0; k < nc && names; ++k) free(names[k]);
    for (int k = 0; k < n && f; ++k) free(f[k]);
    free(names);
    free(f);
    return rc;
}

static double order_of(double e0, double e1, double h0, double h1) {
    if (!(e0 > 0.0) || !(e1 > 0.0) || !isfinite(e0) || !isfinite(e1)) return NAN;
    return log(e0 / e1) / log(h0 / h1);
}

int cli_convergence(int argc, char **argv) {
    run_args a;
    int rc = parse_args(argc, argv, CMD_CONV, &a);
    if (rc) return rc == 1 ? 0 : 2;
    char path[PATH_CAP];
    ld_model m;
    int method;
    if (load_model(&a, path, sizeof path, &m, &method)) return 2;
    int nb = m.nbodies, nh = a.ndt;
    double T = m.run.t_end, hmin = a.dts[0];
    for (int i = 1; i < nh; ++i) hmin = fmin(hmin, a.dts[i]);
    double *xr = ld_xcalloc(14 * (size_t)nb, sizeof(double), "the reference states");
    double *res = ld_xcalloc(4 * (size_t)nh, sizeof(double), "the results");
    long cnt[2 * MAX_DT_LIST];
    if (!xr || !res) {
        free(xr);
        free(res);
        ld_model_free(&m);
        return cli_error("convergence: %s", ld_oom_last_str());
    }
    double *qr = xr + 3 * nb, *x_ = qr + 4 * nb, *q = x_ + 3 * nb;
    double *rot = res, *pos = res + nh, *rord = pos + nh, *pord = rord + nh;
    int *exact = ld_xcalloc((size_t)nb, sizeof(int), "the exact solutions"), any_exact = 0;
    double h_ref = hmin / 16.0;
    long ref_steps = 0, ref_iters = 0;
    if (!exact) rc = cli_error("convergence: %s", ld_oom_last_str());
    for (int b = 0; !rc && b < nb; ++b) {
        double qe[4];
        exact[b] = !a.ref && ld_model_exact_rotation(&m, b, T, qe) == LD_OK;
        any_exact |= exact[b];
    }
    if (!rc && a.ref) rc = read_ref_csv(a.ref, &m, T, xr, qr);
    double hs[MAX_DT_LIST + 1];
    int nref = a.ref ? 0 : 1;
    hs[0] = h_ref;
    memcpy(hs + nref, a.dts, (size_t)nh * sizeof(double));
    sweep sw;
    sw_exec x;
    if (!rc) rc = conv_sweep(&a, &m, path, method, hs, nh + nref, &sw, &x);
    int swept = !rc;
    if (!rc && nref) rc = conv_case(&sw, &x, 0, h_ref, xr, qr, &ref_steps, &ref_iters);
    for (int b = 0; !rc && b < nb; ++b)
        if (exact[b]) ld_model_exact_rotation(&m, b, T, qr + 4 * b);
    for (int i = 0; !rc && i < nh; ++i) {
        rc = conv_case(&sw, &x, nref + i, a.dts[i], x_, q, &cnt[2 * i], &cnt[2 * i + 1]);
        if (rc) break;
        rot[i] = pos[i] = 0.0;
        for (int b = 0; b < nb; ++b) {
            const double *d0 = x_ + 3 * b, *d1 = xr + 3 * b;
            double dx = d0[0] - d1[0], dy = d0[1] - d1[1], dz = d0[2] - d1[2];
            rot[i] = fmax(rot[i], ld_quat_angle(qr + 4 * b, q + 4 * b));
            pos[i] = fmax(pos[i], sqrt(dx * dx + dy * dy + dz * dz));
        }
    }
    if (swept) {
        sweep_rows_free(&x, sw.ncases);
        sweep_free(&sw);
    }
    if (rc) {
        free(exact);
        free(xr);
        free(res);
        ld_model_free(&m);
        return rc;
    }
    for (int i = 0; i + 1 < nh; ++i) {
        rord[i] = order_of(rot[i], rot[i + 1], a.dts[i], a.dts[i + 1]);
        pord[i] = order_of(pos[i], pos[i + 1], a.dts[i], a.dts[i + 1]);
    }
    char base[LD_NAME_MAX], refdesc[PATH_CAP + 64];
    model_base(&m, path, base, sizeof base);
    if (a.ref)
        snprintf(refdesc, sizeof refdesc, "the row t = %.10g of %s", T, a.ref);
    else
        snprintf(refdesc, sizeof refdesc, "%sa run at dt = %.6g",
                 any_exact ? "the exact rotation; positions: " : "", h_ref);
    const char *integ = ld_integ_method_name((ld_integ_method)method);
    const char *form = ld_formulation_name(m.run.formulation);
    if (a.json) {
        printf("{\"model\": ");
        json_str(base);
        printf(", \"integrator\": \"%s\", \"formulation\": \"%s\", \"t_end\": ", integ, form);
        json_num(T);
        printf(", \"reference\": \"%s\", ", a.ref ? "file" : any_exact ? "exact" : "run");
        if (!a.ref) {
            printf("\"dt_ref\": ");
            json_num(h_ref);
            printf(", ");
        }
        printf("\"dt\": ");
        json_vec(a.dts, nh);
        printf(", \"rot_error\": ");
        json_vec(rot, nh);
        printf(", \"pos_error\": ");
        json_vec(pos, nh);
        printf(", \"rot_order\": ");
        json_vec(rord, nh - 1);
        printf(", \"pos_order\": ");
        json_vec(pord, nh - 1);
        printf(", \"steps\": [");
        for (int i = 0; i < nh; ++i) printf("%s%ld", i ? ", " : "", cnt[2 * i]);
        printf("], \"newton_iterations\": [");
        for (int i = 0; i < nh; ++i) printf("%s%ld", i ? ", " : "", cnt[2 * i + 1]);
        printf("]}\n");
    } else {
        printf("%s: %s on %s, errors at t = %.10g against %s\n", base, integ, form, T, refdesc);
        printf("  %12s  %12s  %6s  %12s  %6s  %11s\n", "dt", "rot error", "order", "pos error",
               "order", "Newton/step");
        for (int i = 0; i < nh; ++i) {
            char ro[16] = "-", po[16] = "-";
            if (i == 0) ro[0] = po[0] = '\0';
            if (i > 0) {
                if (isfinite(rord[i - 1])) snprintf(ro, sizeof ro, "%.3f", rord[i - 1]);
                if (isfinite(pord[i - 1])) snprintf(po, sizeof po, "%.3f", pord[i - 1]);
            }
            printf("  %12.6g  %12.4e  %6s  %12.4e  %6s  %11.2f\n", a.dts[i], rot[i], ro, pos[i], po,
                   cnt[2 * i] > 0 ? (double)cnt[2 * i + 1] / (double)cnt[2 * i] : 0.0);
        }
    }
    free(exact);
    free(xr);
    free(res);
    ld_model_free(&m);
    return 0;
}

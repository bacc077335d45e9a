/*
 * One case of a sweep: its model (the base model with the case's values), an integration of
 * it (an independent model, system and integrator), and its row of the table. The row is a
 * function of the sweep file and the case index only (numbers as %.17g), so it is the same
 * bit for bit in whichever process runs it; only the cpu_s column measures the process.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "sim.h"
#include "sweep.h"
#include "../src/core/oom.h"

static const char *const state_cols[13] = {"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                                           "wx", "wy", "wz", "vx", "vy", "vz"};

void sweep_csv_field(sw_buf *b, const char *s) {
    if (!strpbrk(s, ",\"\n\r")) {
        sw_buf_printf(b, "%s", s);
        return;
    }
    sw_buf_printf(b, "\"");
    for (; *s; ++s) {
        if (*s == '"')
            sw_buf_printf(b, "\"\"");
        else if (*s == '\n' || *s == '\r')
            sw_buf_printf(b, " ");
        else
            sw_buf_printf(b, "%c", *s);
    }
    sw_buf_printf(b, "\"");
}

void sweep_header(const sweep *sw, sw_buf *b) {
    sw_buf_printf(b, "case");
    for (int k = 0; k < sw->nparams; ++k) {
        sw_buf_printf(b, ",");
        sweep_csv_field(b, sw->params[k].path);
    }
    if (sw->record & SW_REC_STATE)
        for (int i = 0; i < sw->nbodies; ++i)
            for (int c = 0; c < 13; ++c) {
                char name[LD_NAME_MAX + 8];
                snprintf(name, sizeof name, "%s.%s", sw->bodies[i], state_cols[c]);
                sw_buf_printf(b, ",");
                sweep_csv_field(b, name);
            }
    if (sw->record & SW_REC_ENERGY) sw_buf_printf(b, ",energy_drift,energy_drift_rel");
    if (sw->record & SW_REC_PHI) sw_buf_printf(b, ",constraint_residual");
    if (sw->record & SW_REC_ERROR) sw_buf_printf(b, ",rot_error,pos_error");
    if (sw->record & SW_REC_STEPS) sw_buf_printf(b, ",steps,newton_iterations,rejected");
    sw_buf_printf(b, ",status,t,message");
    if (sw->record & SW_REC_CPU) sw_buf_printf(b, ",cpu_s");
    sw_buf_printf(b, "\n");
}

/* What a run of a case gives. */
typedef struct outcome {
    const char *status; /* "ok", "bad_parameter", "setup_failed", "failed", ... */
    char msg[640];
    double t, e0, e1, escale, phimax, cpu;
    long steps, iters, rejected;
    int nb;
    char (*names)[LD_NAME_MAX];
    double *x, *q, *w, *v; /* per body of the case's model: 3, 4, 3, 3 */
    int *exact;            /* per body: its exact rotation at t_end exists */
    double *qe;            /* the exact rotations */
} outcome;

static void outcome_free(outcome *o) {
    free(o->names);
    free(o->x);
    free(o->exact);
    memset(o, 0, sizeof *o);
}

/* "KEY: REASON" of the model reader's "FILE:LINE: KEY: REASON". */
static const char *reader_reason(const ld_model_error *e) {
    const char *k = e->key[0] ? strstr(e->msg, e->key) : NULL;
    return k ? k : e->msg;
}

/* Run the model of case i (with the extra overrides). 0 (o filled in, o->status says how it
 * went) or 1 (interrupted by a signal). */
static int run_case_model(const sweep *sw, long i, const sw_set *extra, int nextra, int write_csv,
                          outcome *o) {
    memset(o, 0, sizeof *o);
    o->t = o->e0 = o->e1 = o->escale = o->phimax = NAN;
    char name[PATH_CAP];
    snprintf(name, sizeof name, "case %ld", i);
    if (sw->label) snprintf(name, sizeof name, "%s", sw->label);
    char *text = NULL;
    size_t len = 0;
    if (sweep_case_text(sw, i, extra, nextra, &text, &len, o->msg, sizeof o->msg)) {
        o->status = "bad_parameter";
        return 0;
    }
    ld_model m;
    ld_model_error err;
    memset(&err, 0, sizeof err);
    int rc = ld_model_parse(text, len, name, &m, &err);
    free(text);
    if (rc) {
        o->status = "bad_parameter";
        snprintf(o->msg, sizeof o->msg, "%s", err.msg[0] ? reader_reason(&err) : ld_strerror(rc));
        return 0;
    }
    int method = ld_integ_method_find(m.run.integrator);
    o->status = "bad_parameter";
    if (method < 0)
        snprintf(o->msg, sizeof o->msg, "integrator.name: unknown integrator '%s'",
                 m.run.integrator);
    else if (m.run.adaptive && !ld_integ_method_has_estimate((ld_integ_method)method))
        snprintf(o->msg, sizeof o->msg,
                 "integrator.adaptive: %s has no error estimate for step-size control",
                 m.run.integrator);
    else
        o->status = NULL;
    if (o->status) {
        ld_model_free(&m);
        return 0;
    }
    sim S;
    sim_init(&S, &m, name, "sweep", method, sw->la, sw->project);
    if (!write_csv || !sw->case_dir) { /* no rows: the final state only */
        S.every = 1 << 30;
        S.out_dt = 0.0;
    }
    char capture[640] = "";
    cli_error_capture(capture, sizeof capture);
    rc = sim_setup(&S);
    char path[PATH_CAP], why[PATH_CAP + 256];
    if (!rc && write_csv && sw->case_dir) {
        snprintf(path, sizeof path, "%s/case-%05ld.csv", sw->case_dir, i);
        (void)csv_open(&S, &S.csv, path, NULL, why, sizeof why);
    }
    int run_rc = rc ? 0 : sim_run(&S);
    outputs_close(&S);
    cli_error_capture(NULL, 0);
    if (rc) {
        o->status = "setup_failed";
        snprintf(o->msg, sizeof o->msg, "%s", capture);
    } else if (run_rc == 5 && S.stopped > 0) {
        sim_free(&S);
        ld_model_free(&m);
        return 1;
    } else {
        o->status = run_rc == 3 ? "failed" : S.io_error ? "output_failed" : "ok";
        if (run_rc == 3) snprintf(o->msg, sizeof o->msg, "%s", S.msg);
        if (S.io_error) snprintf(o->msg, sizeof o->msg, "%.600s", S.io_msg);
        o->t = S.t;
        o->e0 = S.tot.e0;
        o->escale = S.tot.escale;
        o->e1 = S.e1;
        o->phimax = S.tot.phimax;
        o->cpu = S.tot.cpu;
        o->steps = S.st.steps;
        o->iters = S.st.newton_iterations;
        o->rejected = S.st.rejected;
        int nb = m.nbodies;
        o->names = ld_xcalloc((size_t)nb + 1, sizeof *o->names, "the case's bodies");
        o->x = ld_xcalloc(17 * (size_t)nb + 1, sizeof(double), "the case's bodies");
        o->exact = ld_xcalloc((size_t)nb + 1, sizeof(int), "the case's bodies");
        if (o->names && o->x && o->exact) {
            o->nb = nb;
            o->q = o->x + 3 * nb;
            o->w = o->q + 4 * nb;
            o->v = o->w + 3 * nb;
            o->qe = o->v + 3 * nb;
            memcpy(o->x, S.bx, 13 * (size_t)nb * sizeof(double));
            for (int b = 0; b < nb; ++b) {
                snprintf(o->names[b], LD_NAME_MAX, "%s", m.bodies[b].name);
                o->exact[b] = ld_model_exact_rotation(&m, b, S.t, o->qe + 4 * b) == LD_OK;
            }
        } else {
            o->status = "failed";
            ld_oom_last(o->msg, sizeof o->msg);
        }
    }
    sim_free(&S);
    ld_model_free(&m);
    return 0;
}

/* The shared reference run (computed once per process). */
static outcome shared_ref;
static int shared_ref_done;

static int body_index(const outcome *o, const char *name) {
    for (int b = 0; b < o->nb; ++b)
        if (strcmp(o->names[b], name) == 0) return b;
    return -1;
}

/* Rotation and position errors at the end against the reference (or the exact rotations). */
static void case_errors(const outcome *o, const outcome *ref, double *rot, double *pos) {
    *rot = *pos = 0.0;
    if (!ref) *pos = NAN;
    int any_rot = 0;
    for (int b = 0; b < o->nb; ++b) {
        const double *qr = NULL, *xr = NULL;
        int rb = ref ? body_index(ref, o->names[b]) : -1;
        if (rb >= 0) {
            qr = ref->q + 4 * rb;
            xr = ref->x + 3 * rb;
        }
        if (o->exact[b]) qr = o->qe + 4 * b;
        if (qr) {
            *rot = fmax(*rot, ld_quat_angle(qr, o->q + 4 * b));
            any_rot = 1;
        }
        if (xr) {
            const double *x = o->x + 3 * b;
            double dx = x[0] - xr[0], dy = x[1] - xr[1], dz = x[2] - xr[2];
            *pos = fmax(*pos, sqrt(dx * dx + dy * dy + dz * dz));
        }
    }
    if (!any_rot) *rot = NAN;
}

static void num(sw_buf *b, double x) {
    sw_buf_printf(b, ",%.17g", x);
}

/* The case's varied values, after its index. */
static void row_params(const sweep *sw, long i, sw_buf *b) {
    sw_buf_printf(b, "%ld", i);
    char val[4096];
    for (int k = 0; k < sw->nparams; ++k) {
        sweep_case_value(sw, i, k, val, sizeof val);
        sw_buf_printf(b, ",");
        sweep_csv_field(b, val);
    }
}

/* Empty fields for the outputs of a case without results. */
static void empty_outputs(const sweep *sw, sw_buf *b) {
    int n = 0;
    if (sw->record & SW_REC_STATE) n += 13 * sw->nbodies;
    if (sw->record & SW_REC_ENERGY) n += 2;
    if (sw->record & SW_REC_PHI) n += 1;
    if (sw->record & SW_REC_ERROR) n += 2;
    if (sw->record & SW_REC_STEPS) n += 3;
    for (int k = 0; k < n; ++k) sw_buf_printf(b, ",");
}

void sweep_fail_row(const sweep *sw, long i, const char *status, const char *msg, sw_buf *b) {
    row_params(sw, i, b);
    empty_outputs(sw, b);
    sw_buf_printf(b, ",%s,,", status);
    sweep_csv_field(b, msg);
    if (sw->record & SW_REC_CPU) sw_buf_printf(b, ",");
    sw_buf_printf(b, "\n");
}

int sweep_case_row(const sweep *sw, long i, sw_buf *b) {
    outcome o, r;
    const outcome *ref = NULL;
    memset(&r, 0, sizeof r);
    if (run_case_model(sw, i, NULL, 0, 1, &o)) return 1;
    int have = o.nb > 0 || strcmp(o.status, "ok") == 0 || strcmp(o.status, "failed") == 0;
    if ((sw->record & SW_REC_ERROR) && sw->has_ref && strcmp(o.status, "ok") == 0) {
        if (sw->ref_shared) {
            if (!shared_ref_done) {
                if (run_case_model(sw, -1, sw->ref, sw->nref, 0, &shared_ref)) {
                    outcome_free(&o);
                    return 1;
                }
                shared_ref_done = 1;
            }
            ref = &shared_ref;
        } else {
            if (run_case_model(sw, i, sw->ref, sw->nref, 0, &r)) {
                outcome_free(&o);
                return 1;
            }
            ref = &r;
        }
        if (strcmp(ref->status, "ok") != 0) {
            o.status = "reference_failed";
            snprintf(o.msg, sizeof o.msg, "the reference run: %s: %.580s", ref->status, ref->msg);
            ref = NULL;
        }
    }
    row_params(sw, i, b);
    if (!have) {
        empty_outputs(sw, b);
    } else {
        if (sw->record & SW_REC_STATE)
            for (int k = 0; k < sw->nbodies; ++k) {
                int bi = body_index(&o, sw->bodies[k]);
                for (int c = 0; c < 13; ++c) {
                    if (bi < 0) {
                        sw_buf_printf(b, ",");
                        continue;
                    }
                    const double *v = c < 3    ? o.x + 3 * bi + c
                                      : c < 7  ? o.q + 4 * bi + (c - 3)
                                      : c < 10 ? o.w + 3 * bi + (c - 7)
                                               : o.v + 3 * bi + (c - 10);
                    num(b, *v);
                }
            }
        if (sw->record & SW_REC_ENERGY) {
            double de = o.e1 - o.e0;
            num(b, de);
            num(b, ld_energy_drift_rel(o.e0, o.e1, o.escale));
        }
        if (sw->record & SW_REC_PHI) num(b, o.phimax);
        if (sw->record & SW_REC_ERROR) {
            double rot = NAN, pos = NAN;
            if (ref || !sw->has_ref) case_errors(&o, ref, &rot, &pos);
            num(b, rot);
            num(b, pos);
        }
        if (sw->record & SW_REC_STEPS)
            sw_buf_printf(b, ",%ld,%ld,%ld", o.steps, o.iters, o.rejected);
    }
    sw_buf_printf(b, ",%s,", o.status);
    if (isfinite(o.t)) sw_buf_printf(b, "%.17g", o.t);
    sw_buf_printf(b, ",");
    sweep_csv_field(b, o.msg);
    if (sw->record & SW_REC_CPU) sw_buf_printf(b, ",%.6g", o.cpu);
    sw_buf_printf(b, "\n");
    outcome_free(&o);
    outcome_free(&r);
    return 0;
}

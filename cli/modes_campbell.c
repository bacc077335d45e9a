/*
 * liedyn modes --campbell: the damped modes of a steady motion against its speed. The model's
 * initial velocities are scaled so that its fastest-turning body turns at each speed, the
 * motion is linearized in the bodies' own frames (liedyn/linearize.h: the turning frame of a
 * rotor), and the modes are followed from speed to speed by their shapes (MAC). A table, a
 * CSV and a gnuplot PNG. Reference: docs/modes.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "modes.h"
#include "../src/core/oom.h"

#define TWO_PI 6.283185307179586476925

/* The sweep's results: per speed p and track j (ntr tracks) the frequency, damping ratio and
 * the MAC with the speed before. */
typedef struct sweep {
    int npts, ntr, steady;                   /* steady: the states are ld_steady_rotation's */
    double *speed, *accel, *hz, *zeta, *mac; /* npts; npts; npts × ntr each */
} sweep;

/* The largest angular velocity of a body in the state (q, v). */
static double turn_rate(const ld_model *m, const ld_system *s, const double *q, const double *v) {
    double big = 0.0;
    for (int b = 0; b < m->nbodies; ++b) {
        double x[3], qq[4], om[3], xd[3];
        if (ld_model_body_state(s, b, q, v, x, qq, om, xd) == LD_OK)
            big = fmax(big, sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]));
    }
    return big;
}

/* How the sweep finds each speed's state: with body-frame velocities (se3, s3sdr3) the steady
 * rotation's configuration (ld_steady_rotation: a flexible rotor stretched by its centrifugal
 * forces), continued from speed to speed in q; otherwise the initial configuration as it is. */
typedef struct spin {
    int steady;                   /* 1: ld_steady_rotation at each speed */
    double axis[3], point[3], r0; /* the rotation: axis, a point on it, rate of the start */
    double *q;                    /* the configuration, continued */
} spin;

/* The fastest-turning body's rotation axis (spatial), through the point about which its
 * centre of mass turns, into sp; whether every node has body-frame velocities. */
static void spin_axis(const campbell_in *in, double ref, spin *sp) {
    int best = -1;
    double bw = 0.0, x[3], qq[4], om[3], xd[3];
    for (int b = 0; b < in->m->nbodies; ++b)
        if (ld_model_body_state(in->s, b, in->q, in->v1, x, qq, om, xd) == LD_OK) {
            double w = sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]);
            if (w > bw) bw = w, best = b;
        }
    sp->r0 = ref;
    sp->steady = best >= 0;
    for (int i = 0; i < in->s->nnodes; ++i)
        if (in->s->nodes[i].kind != LD_NODE_SE3 && in->s->nodes[i].kind != LD_NODE_S3SDR3)
            sp->steady = 0;
    if (best < 0) return;
    ld_model_body_state(in->s, best, in->q, in->v1, x, qq, om, xd);
    double w[3];
    ld_quat_rotate(w, qq, om); /* spatial */
    double ww = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    double c[3] = {w[1] * xd[2] - w[2] * xd[1], w[2] * xd[0] - w[0] * xd[2],
                   w[0] * xd[1] - w[1] * xd[0]};
    for (int i = 0; i < 3; ++i) sp->axis[i] = w[i], sp->point[i] = x[i] + c[i] / ww;
}

/* The damped modes at speed sp (all of them). 0 or the exit code 3 (message printed). */
static int modes_at(const campbell_in *in, spin *S, double speed, double *v, ld_modes *md,
                    double *accel) {
    char msg[512];
    const double *q = in->q;
    int rc = 0;
    if (S->steady) {
        rc = ld_steady_rotation(in->s, in->m->run.t_start, S->axis, S->point, speed, S->q, v, NULL,
                                msg, sizeof msg);
        if (rc) return cli_error("%s: %s", in->path, msg), 3;
        q = S->q;
    } else {
        for (int i = 0; i < in->s->k; ++i) v[i] = speed / S->r0 * in->v1[i];
    }
    ld_linear lin;
    rc = ld_linearize(in->s, in->m->run.t_start, q, v, &lin, msg, sizeof msg);
    if (rc) {
        cli_error("%s: cannot linearize: %s", in->path, msg[0] ? msg : ld_strerror(rc));
        return 3;
    }
    *accel = lin.accel;
    rc = ld_modes_damped(&lin, 0, md, msg, sizeof msg);
    ld_linear_free(&lin);
    if (rc) cli_error("%s: no modes: %s", in->path, msg[0] ? msg : ld_strerror(rc));
    return rc ? 3 : 0;
}

/* The tracks: the first modes of the first speed that are not neutral (|s| above 10⁻⁹ of the
 * largest), at most count of them; their indices into tr. */
static int first_tracks(const ld_modes *md, int count, int *tr) {
    double big = 0.0;
    int n = 0;
    for (int j = 0; j < md->count; ++j) big = fmax(big, md->hz[j]);
    for (int j = 0; j < md->count && (count <= 0 || n < count); ++j)
        if (md->hz[j] > 1e-9 * big) tr[n++] = j;
    return n;
}

/* Record the tracked modes of md at speed point p. */
static void record(sweep *w, int p, const ld_modes *md, const int *tr, const double *mac) {
    for (int j = 0; j < w->ntr; ++j) {
        size_t at = (size_t)p * (size_t)w->ntr + (size_t)j;
        w->hz[at] = tr[j] >= 0 ? md->hz[tr[j]] : (double)NAN;
        w->zeta[at] = tr[j] >= 0 ? md->zeta[tr[j]] : (double)NAN;
        w->mac[at] = mac ? mac[j] : 1.0;
    }
}

/* Follow the tracks tr of prev into cur (order: scratch of prev->count). */
static int follow(const ld_modes *prev, const ld_modes *cur, int *tr, int ntr, int *order,
                  double *mac_all, double *mac) {
    if (ld_modes_track(prev, cur, order, mac_all)) return 3;
    for (int j = 0; j < ntr; ++j) {
        mac[j] = tr[j] >= 0 ? mac_all[tr[j]] : (double)NAN;
        tr[j] = tr[j] >= 0 ? order[tr[j]] : -1;
    }
    return 0;
}

/* The whole sweep into w (allocated here). 0 or an exit code (message printed). */
static int run_sweep(const campbell_in *in, double ref, sweep *w) {
    size_t k = (size_t)in->s->k;
    double *v = ld_xmalloc(k * sizeof *v, "the speeds' modes");
    spin S;
    spin_axis(in, ref, &S);
    S.q = ld_xmalloc((size_t)in->s->nq * sizeof *S.q, "the steady rotation's configuration");
    w->steady = S.steady;
    ld_modes prev, cur;
    memset(&prev, 0, sizeof prev);
    int *tr = NULL, *order = NULL, rc = v && S.q ? 0 : cli_error("%s", ld_oom_last_str());
    if (S.q) memcpy(S.q, in->q, (size_t)in->s->nq * sizeof *S.q);
    double *mac_all = NULL, *mac = NULL;
    for (int p = 0; !rc && p < w->npts; ++p) {
        double sp = w->speed[p];
        if ((rc = modes_at(in, &S, sp, v, &cur, &w->accel[p]))) break;
        if (p == 0) {
            tr = ld_xmalloc((size_t)cur.count * sizeof *tr, "the mode tracking");
            /* per mode of a speed: their number varies (an overdamped pair is two modes), at
             * most 2n */
            size_t most = 2 * (size_t)(cur.n > cur.count ? cur.n : cur.count);
            order = ld_xmalloc(most * sizeof *order, "the mode tracking");
            mac_all = ld_xmalloc(most * sizeof *mac_all, "the mode tracking");
            mac = ld_xmalloc((size_t)cur.count * sizeof *mac, "the mode tracking");
            size_t cells = (size_t)w->npts * (size_t)cur.count;
            w->hz = ld_xmalloc(3 * cells * sizeof *w->hz, "the Campbell diagram");
            if (!tr || !order || !mac_all || !mac || !w->hz) {
                rc = cli_error("%s", ld_oom_last_str());
                ld_modes_free(&cur);
                break;
            }
            w->zeta = w->hz + cells, w->mac = w->zeta + cells;
            w->ntr = first_tracks(&cur, in->count, tr);
            record(w, p, &cur, tr, NULL);
        } else {
            rc = follow(&prev, &cur, tr, w->ntr, order, mac_all, mac);
            if (!rc) record(w, p, &cur, tr, mac);
        }
        ld_modes_free(&prev);
        prev = cur;
    }
    ld_modes_free(&prev);
    free(v), free(S.q), free(tr), free(order), free(mac_all), free(mac);
    return rc;
}

static void print_sweep(const campbell_in *in, const sweep *w, double ref) {
    double amax = 0.0, macmin = 1.0;
    printf("%s: Campbell diagram of the steady motion of the model's initial velocities, scaled "
           "(%g rad/s at the start), %d modes followed by their shapes (MAC), frequencies in Hz "
           "in the bodies' own (turning) frames\n",
           in->m->name, ref, w->ntr);
    printf("  %13s", "speed (rad/s)");
    for (int j = 0; j < w->ntr; ++j) printf("  %10s %-2d", "mode", j + 1);
    printf("\n");
    for (int p = 0; p < w->npts; ++p) {
        printf("  %13.6g", w->speed[p]);
        for (int j = 0; j < w->ntr; ++j) {
            size_t at = (size_t)p * (size_t)w->ntr + (size_t)j;
            printf("  %13.7g", w->hz[at]);
            if (isfinite(w->mac[at])) macmin = fmin(macmin, w->mac[at]);
        }
        printf("\n");
        amax = fmax(amax, w->accel[p]);
    }
    printf("  largest acceleration of the states %.3g (0: steady motions), smallest MAC between "
           "neighbouring speeds %.4f\n",
           amax, macmin);
    if (w->steady)
        printf(
            "  each speed's state: the steady rotation (the configuration its centrifugal forces "
            "balance, continued from the speed before)\n");
}

/* The sweep as CSV: speed, acceleration, then per mode hz, zeta, mac. 0 or 4. */
static int write_sweep(const char *path, const sweep *w) {
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error("modes: cannot write '%s'", path);
        return 4;
    }
    fprintf(f, "speed_rad_s,accel");
    for (int j = 1; j <= w->ntr; ++j) fprintf(f, ",mode%d_hz,mode%d_zeta,mode%d_mac", j, j, j);
    fprintf(f, "\n");
    for (int p = 0; p < w->npts; ++p) {
        fprintf(f, "%.17g,%.17g", w->speed[p], w->accel[p]);
        for (int j = 0; j < w->ntr; ++j) {
            size_t at = (size_t)p * (size_t)w->ntr + (size_t)j;
            fprintf(f, ",%.17g,%.17g,%.17g", w->hz[at], w->zeta[at], w->mac[at]);
        }
        fprintf(f, "\n");
    }
    if (fclose(f) != 0) {
        cli_error("modes: writing '%s' failed", path);
        return 4;
    }
    return 0;
}

/* s in gnuplot's single quotes (quotes doubled). */
static void quoted(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; ++s) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* The PNG of the CSV csv: each mode's frequency against the speed, and the line of the speed
 * itself (1 per revolution). 0 or 4 (message printed). */
static int plot_sweep(const char *csv, const char *png, const sweep *w, const char *name) {
    char errf[] = "/tmp/liedyn-gnuplot-XXXXXX", cmd[64];
    int fd = mkstemp(errf);
    if (fd < 0) return cli_error("modes: cannot create a temporary file: %s", strerror(errno)), 4;
    close(fd);
    snprintf(cmd, sizeof cmd, "gnuplot 2>%s", errf);
    FILE *gp = popen(cmd, "w");
    if (!gp) {
        unlink(errf);
        return cli_error("modes: cannot start gnuplot: %s", strerror(errno)), 4;
    }
    fputs("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n  set terminal pngcairo size 900,600 "
          "noenhanced\n} else {\n  set terminal png size 900,600 noenhanced\n}\nset output ",
          gp);
    quoted(gp, png);
    fputs("\nset datafile separator ','\nset grid\nset key outside right top\n"
          "set xlabel 'speed [rad/s]'\nset ylabel 'frequency in the turning frame [Hz]'\n"
          "set title ",
          gp);
    quoted(gp, name);
    fputs("\nplot ", gp);
    for (int j = 0; j < w->ntr; ++j) {
        quoted(gp, csv);
        fprintf(gp, " using 1:%d with linespoints pt 7 ps 0.6 lw 1.5 title 'mode %d', ", 3 + 3 * j,
                j + 1);
    }
    fputs("x / (2 * pi) with lines dt 2 lc rgb 'gray40' title '1 per revolution'\n", gp);
    int st = pclose(gp), rc = 0;
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char msg[512] = "";
        FILE *e = fopen(errf, "r");
        if (e) {
            size_t n = fread(msg, 1, sizeof msg - 1, e);
            msg[n] = '\0';
            fclose(e);
            msg[strcspn(msg, "\n")] = '\0';
        }
        cli_error("modes: gnuplot could not write '%s': %s", png, msg[0] ? msg : "no message");
        rc = 4;
    }
    unlink(errf);
    return rc;
}

/* CSV and PNG as asked; the PNG from the CSV (a temporary one when none was asked). */
static int outputs(const campbell_in *in, const sweep *w) {
    int rc = in->csv ? write_sweep(in->csv, w) : 0;
    if (rc || !in->png) return rc;
    char tmp[] = "/tmp/liedyn-campbell-XXXXXX";
    const char *csv = in->csv;
    if (!csv) {
        int fd = mkstemp(tmp);
        if (fd < 0) return cli_error("modes: cannot create a temporary file"), 4;
        close(fd);
        if ((rc = write_sweep(tmp, w))) {
            unlink(tmp);
            return rc;
        }
        csv = tmp;
    }
    rc = plot_sweep(csv, in->png, w, in->m->name);
    if (!in->csv) unlink(tmp);
    return rc;
}

/* A body whose centre moves at the start while the formulation carries spatial translational
 * velocities: its steady rotation is no constant velocity there (the linearization would take
 * a state that accelerates for a steady one). Its index, or −1. */
static int off_axis_body(const campbell_in *in, double ref) {
    for (int i = 0; i < in->s->nnodes; ++i)
        if (in->s->nodes[i].kind == LD_NODE_SE3 || in->s->nodes[i].kind == LD_NODE_S3SDR3)
            return -1; /* body-frame velocities: ld_steady_rotation takes any body */
    for (int b = 0; b < in->m->nbodies; ++b) {
        double x[3], qq[4], om[3], xd[3];
        if (ld_model_body_state(in->s, b, in->q, in->v1, x, qq, om, xd) != LD_OK) continue;
        double sp = sqrt(xd[0] * xd[0] + xd[1] * xd[1] + xd[2] * xd[2]);
        double size = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (sp > 1e-9 * ref * (1.0 + size)) return b;
    }
    return -1;
}

int modes_campbell(const campbell_in *in) {
    double ref = turn_rate(in->m, in->s, in->q, in->v1);
    if (!(ref > 0.0))
        return cli_error("%s: --campbell: no body of the model turns at the start: give the "
                         "rotor's angular_velocity (the speeds scale the initial velocities)",
                         in->path);
    int off = off_axis_body(in, ref);
    if (off >= 0)
        return cli_error("%s: --campbell: body '%s' turns off the axis; its steady rotation needs "
                         "body-frame velocities: add --formulation se3 or s3sdr3 (liedyn then "
                         "finds each speed's stretched, steady state)",
                         in->path, in->m->bodies[off].name);
    sweep w;
    memset(&w, 0, sizeof w);
    w.npts = in->npts;
    w.speed = ld_xmalloc(2 * (size_t)w.npts * sizeof *w.speed, "the speeds");
    if (!w.speed) return cli_error("%s", ld_oom_last_str());
    w.accel = w.speed + w.npts;
    for (int p = 0; p < w.npts; ++p)
        w.speed[p] = w.npts > 1 ? in->from + (in->to - in->from) * p / (w.npts - 1) : in->from;
    int rc = run_sweep(in, ref, &w);
    if (!rc) print_sweep(in, &w, ref);
    if (!rc) rc = outputs(in, &w);
    free(w.speed);
    free(w.hz);
    return rc;
}

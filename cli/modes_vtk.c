/*
 * liedyn modes --vtk DIR: each mode as a VTK file series that animates one period of it —
 * DIR/NAME_modeJ.vtk.series listing DIR/NAME_modeJ_00000.vtk … (MODES_VTK_FRAMES files), the
 * model drawn at q ∘ exp(a Re(e^{iθ} φ)) for θ = 2π k / MODES_VTK_FRAMES at the times θ / ω
 * (one period of the mode; k / MODES_VTK_FRAMES for a neutral one), with the velocity of that
 * motion as the bodies' point data. docs/modes.md, docs/paraview.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "liedyn/output.h"
#include "modes.h"
#include "../src/core/oom.h"

#define TWO_PI 6.283185307179586476925

double modes_model_size(const ld_system *s, const ld_model *m, const double *q, const double *v0) {
    double c[3] = {0, 0, 0}, x[3], qq[4], om[3], xd[3], big = 0.0;
    int nb = m->nbodies;
    for (int b = 0; b < nb; ++b) {
        ld_model_body_state(s, b, q, v0, x, qq, om, xd);
        for (int i = 0; i < 3; ++i) c[i] += x[i] / nb;
        big = fmax(big, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
    }
    for (int b = 0; b < nb; ++b) {
        ld_model_body_state(s, b, q, v0, x, qq, om, xd);
        double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
        big = fmax(big, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    return big > 0.0 ? big : 1.0;
}

#define MODES_VTK_MOVE 0.1
#define MODES_VTK_TURN 0.3
double modes_amplitude(const ld_system *s, const ld_model *m, const double *q, const ld_modes *md,
                       int j, double size) {
    double dmax = 0.0, rmax = 0.0;
    const double *parts[2] = {md->phi + (size_t)j * (size_t)md->k,
                              md->phi_im + (size_t)j * (size_t)md->k};
    for (int p = 0; p < 2; ++p)
        for (int b = 0; b < m->nbodies; ++b) {
            double dx[3], dth[3];
            if (ld_modes_body_shape(s, q, parts[p], b, dx, dth)) continue;
            dmax = fmax(dmax, sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]));
            rmax = fmax(rmax, sqrt(dth[0] * dth[0] + dth[1] * dth[1] + dth[2] * dth[2]));
        }
    double a = INFINITY;
    if (dmax > 0.0) a = MODES_VTK_MOVE * size / dmax;
    if (rmax > 0.0) a = fmin(a, MODES_VTK_TURN / rmax);
    return isfinite(a) ? a : 0.0;
}

/* One mode's series; 0 or the exit code 4. */
static int mode_series(const char *dir, const ld_model *m, const ld_system *s, const double *q,
                       const ld_modes *md, int j, double size, double *xi, double *qk, double *vk) {
    char base[LD_NAME_MAX + 32], why[512];
    snprintf(base, sizeof base, "%s_mode%d", m->name, j + 1);
    int st = 0;
    ld_out_vtk *w = ld_out_vtk_open(dir, base, s, m, &st, why, sizeof why);
    if (!w) return cli_error("modes: --vtk '%s': %s", dir, why), 4;
    size_t k = (size_t)md->k;
    const double *re = md->phi + (size_t)j * k, *im = md->phi_im + (size_t)j * k;
    double a = modes_amplitude(s, m, q, md, j, size), w0 = TWO_PI * md->hz[j];
    int rc = LD_OK;
    for (int f = 0; f < MODES_VTK_FRAMES && rc == LD_OK; ++f) {
        double th = TWO_PI * f / MODES_VTK_FRAMES, c = cos(th), sn = sin(th);
        for (size_t i = 0; i < k; ++i) {
            xi[i] = a * (c * re[i] - sn * im[i]);
            vk[i] = a * w0 * (-sn * re[i] - c * im[i]);
        }
        ld_sys_retract(s, qk, q, xi);
        double t = w0 > 0.0 ? th / w0 : (double)f / MODES_VTK_FRAMES;
        rc = ld_out_vtk_frame(w, t, qk, vk);
    }
    if (rc == LD_OK) rc = ld_out_vtk_close(w);
    if (rc != LD_OK) cli_error("modes: %s", ld_out_vtk_message(w));
    ld_out_vtk_free(w);
    return rc == LD_OK ? 0 : 4;
}

int modes_vtk(const char *dir, const ld_model *m, const ld_system *s, const double *q,
              const ld_modes *md) {
    if (cli_make_dirs(dir) != 0)
        return cli_error("modes: --vtk: cannot create the directory '%s': %s", dir,
                         strerror(errno)),
               4;
    double *xi = ld_xcalloc((size_t)md->k * 2 + (size_t)s->nq + 1, sizeof *xi, "the mode shape");
    if (!xi) return cli_error("%s", ld_oom_last_str()), 4;
    double *vk = xi + md->k, *qk = vk + md->k, size = modes_model_size(s, m, q, vk);
    int code = 0;
    for (int j = 0; j < md->count && code == 0; ++j)
        code = mode_series(dir, m, s, q, md, j, size, xi, qk, vk);
    free(xi);
    if (code == 0)
        printf("  VTK: %d mode%s in %s/%s_modeN.vtk.series (%d files each, one period)\n",
               md->count, md->count == 1 ? "" : "s", dir, m->name, MODES_VTK_FRAMES);
    return code;
}

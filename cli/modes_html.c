/*
 * liedyn modes --html FILE: the modes as one animation in the browser viewer. Mode J is played
 * in the time slot [MODES_HTML_SLOT (J − 1), MODES_HTML_SLOT J): two periods of the model drawn
 * at q ∘ exp(a Re(e^{iθ} φ_J)), θ = 2π k / (MODES_HTML_FRAMES / 2), with the amplitude of
 * --vtk (modes_amplitude). The page's title lists each mode's slot and frequency.
 * docs/modes.md, docs/viewer.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"
#include "liedyn/output.h"
#include "modes.h"
#include "../src/core/oom.h"

#define TWO_PI 6.283185307179586476925

/* Offer mode j's frames to w; LD_OK or a writer's status. */
static int mode_frames(ld_out_html *w, const ld_system *s, const ld_model *m, const double *q,
                       const ld_modes *md, int j, double size, double *xi, double *qk, double *vk) {
    size_t k = (size_t)md->k;
    const double *re = md->phi + (size_t)j * k, *im = md->phi_im + (size_t)j * k;
    double a = modes_amplitude(s, m, q, md, j, size), t0 = MODES_HTML_SLOT * j;
    double dt = MODES_HTML_SLOT / MODES_HTML_FRAMES; /* display time per frame */
    int rc = LD_OK;
    for (int f = 0; f < MODES_HTML_FRAMES && rc == LD_OK; ++f) {
        double th = 2.0 * TWO_PI * f / MODES_HTML_FRAMES, c = cos(th), sn = sin(th);
        for (size_t i = 0; i < k; ++i) {
            xi[i] = a * (c * re[i] - sn * im[i]);
            vk[i] = 0.0; /* the page shows poses; the rates would be in real time */
        }
        ld_sys_retract(s, qk, q, xi);
        rc = ld_out_html_frame(w, t0 + f * dt, qk, vk);
    }
    return rc;
}

/* The title: the model and each mode's slot and frequency (cut to fit). */
static void title_of(const ld_model *m, const ld_modes *md, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "%s: modes", m->name);
    for (int j = 0; j < md->count && n < cap; ++j)
        n += (size_t)snprintf(buf + n, cap - n, "%s %d at t %g-%g s: %.6g Hz", j ? ";" : "", j + 1,
                              MODES_HTML_SLOT * j, MODES_HTML_SLOT * (j + 1), md->hz[j]);
}

int modes_html(const char *path, const ld_model *m, const ld_system *s, const double *q,
               const ld_modes *md) {
    char why[512];
    int st = 0;
    if (md->count < 1) return cli_error("modes: --html: no modes to show"), 3;
    long frames = (long)md->count * MODES_HTML_FRAMES + 1;
    ld_out_html *w =
        ld_out_html_open(s, m, 0.0, MODES_HTML_SLOT * md->count, frames, &st, why, sizeof why);
    if (!w)
        return cli_error("modes: --html: %s", why[0] ? why : ld_strerror(st)),
               st == LD_ENOTSUPPORTED ? 2 : 4;
    double *xi = ld_xcalloc((size_t)md->k * 2 + (size_t)s->nq + 1, sizeof *xi, "the mode shape");
    int rc = xi ? LD_OK : LD_ENOMEM;
    if (!xi) snprintf(why, sizeof why, "%s", ld_oom_last_str());
    double *vk = xi ? xi + md->k : NULL, *qk = vk ? vk + md->k : NULL;
    double size = xi ? modes_model_size(s, m, q, vk) : 1.0;
    for (int j = 0; j < md->count && rc == LD_OK; ++j)
        rc = mode_frames(w, s, m, q, md, j, size, xi, qk, vk);
    if (rc == LD_OK) { /* the last frame: the rest state at the end of the last slot */
        memset(vk, 0, (size_t)md->k * sizeof *vk);
        rc = ld_out_html_frame(w, MODES_HTML_SLOT * md->count, q, vk);
    }
    char title[1024];
    title_of(m, md, title, sizeof title);
    if (rc == LD_OK)
        rc = ld_out_html_write(w, path, title, why, sizeof why);
    else if (!why[0])
        snprintf(why, sizeof why, "%s", ld_oom_last_str());
    ld_out_html_free(w);
    free(xi);
    if (rc != LD_OK) return cli_error("modes: --html '%s': %s", path, why), 4;
    printf("  HTML: %d mode%s in %s, mode J shown at t = %g (J - 1) ... %g J s (two periods)\n",
           md->count, md->count == 1 ? "" : "s", path, MODES_HTML_SLOT, MODES_HTML_SLOT);
    return 0;
}

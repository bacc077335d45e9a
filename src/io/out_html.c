/* The HTML writer (liedyn/output.h): the frames of a run (frames.c) and, at the end, the
 * viewer's file (html.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/output.h"
#include "view.h"

struct ld_out_html {
    const ld_system *s;
    const ld_model *m;
    view_frames F;
    double *buf; /* a row's poses (7 per body) and series */
    double *phi; /* the constraint residual's scratch (s->m + 1) */
};

int ld_out_html_available(char *why, size_t cap) {
    const char *missing = ld_io_html_missing();
    if (why && cap) snprintf(why, cap, "%s", missing ? missing : "");
    return missing == NULL;
}

void ld_out_html_free(ld_out_html *w) {
    if (!w) return;
    ld_io_frames_free(&w->F);
    free(w->buf);
    free(w->phi);
    free(w);
}

ld_out_html *ld_out_html_open(const ld_system *s, const ld_model *m, double t0, double t1,
                              long max_frames, int *status, char *why, size_t cap) {
    char scratch[8];
    if (!why || !cap) why = scratch, cap = sizeof scratch;
    why[0] = '\0';
    int rc = LD_OK;
    ld_out_html *w = NULL;
    if (!ld_out_html_available(why, cap)) {
        rc = LD_ENOTSUPPORTED;
    } else if (!s || !m || max_frames == 1 || max_frames < 0 || max_frames > VIEW_FRAMES_MAX ||
               !(t1 >= t0)) {
        rc = LD_EINVAL;
        snprintf(why, cap, "no system or model, frames not from 2 to %d, or t1 < t0",
                 VIEW_FRAMES_MAX);
    } else if (!(w = calloc(1, sizeof *w))) {
        rc = LD_ENOMEM;
    } else {
        static char names[VIEW_SERIES_MAX][VIEW_NAME_CAP];
        w->s = s, w->m = m;
        int ns = ld_io_frames_series_names(m, names);
        w->buf = malloc((7 * (size_t)m->nbodies + (size_t)ns + 1) * sizeof(double));
        w->phi = calloc((size_t)s->m + 1, sizeof(double));
        if (!w->buf || !w->phi ||
            ld_io_frames_init(&w->F, m, t0, t1, max_frames ? max_frames : VIEW_FRAMES_DEFAULT, ns,
                              names) != 0)
            rc = LD_ENOMEM;
    }
    if (rc == LD_ENOMEM) snprintf(why, cap, "out of memory");
    if (status) *status = rc;
    if (rc == LD_OK) return w;
    ld_out_html_free(w);
    return NULL;
}

int ld_out_html_frame(ld_out_html *w, double t, const double *q, const double *v) {
    const ld_model *m = w->m;
    view_frames *F = &w->F;
    int nb = m->nbodies, k = 0;
    double *x = w->buf, *qq = x + 3 * nb, *val = qq + 4 * nb;
    val[k++] = ld_sys_energy(w->s, t, q, v);
    val[k++] = ld_sys_phi_max(w->s, t, q, w->phi, NULL);
    for (int b = 0; b < nb; ++b) {
        double om[3], xd[3];
        size_t len = strlen(m->bodies[b].name);
        ld_model_body_state(w->s, b, q, v, x + 3 * b, qq + 4 * b, om, xd);
        /* the series name this body's velocities when it has them */
        if (k + 6 <= F->ns && strncmp(F->sname[k], m->bodies[b].name, len) == 0 &&
            F->sname[k][len] == '.') {
            memcpy(val + k, om, sizeof om);
            memcpy(val + k + 3, xd, sizeof xd);
            k += 6;
        }
    }
    return ld_io_frames_offer(F, t, x, qq, val) == 0 ? LD_OK : LD_ENOMEM;
}

long ld_out_html_frames(const ld_out_html *w) {
    return w->F.n;
}

int ld_out_html_write(ld_out_html *w, const char *path, const char *title, char *why, size_t cap) {
    char scratch[8];
    if (!why || !cap) why = scratch, cap = sizeof scratch;
    why[0] = '\0';
    if (ld_io_frames_finish(&w->F) != 0) {
        snprintf(why, cap, "recording the viewer's frames: out of memory");
        return LD_ENOMEM;
    }
    if (ld_io_html_write(path, w->m, title ? title : "", &w->F, why, cap) != 0)
        return ld_io_html_missing() ? LD_ENOTSUPPORTED : LD_EIO;
    return LD_OK;
}

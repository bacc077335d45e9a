/* The HTML writer (liedyn/output.h): the frames of a run (frames.c) and, at the end, the
 * viewer's file (html.c). */
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jcols.h"
#include "liedyn/liedyn.h"
#include "liedyn/output.h"
#include "view.h"
#include "../core/oom.h"

struct ld_out_html {
    const ld_system *s;
    const ld_model *m;
    view_frames F;
    double *buf;  /* a row's poses (7 per body) and series */
    double *phi;  /* the constraint residual's scratch (s->m + 1) */
    double *all;  /* every value a series may show: energy, residual, 6 per body, the joints' */
    double *prev; /* the joints' values of the frame before (unwrapping; NaN: none) */
    int *src;     /* per series its index in all */
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
    free(w->all);
    free(w->prev);
    free(w->src);
    free(w);
}

/* The name of entry p of a row's values (all): energy, constraint_residual, BODY.wx … BODY.vz
 * per body, then the joints' (jnames). */
static void value_name(const ld_model *m, char (*jnames)[VIEW_NAME_CAP], int p, char *buf) {
    static const char *const cols[6] = {"wx", "wy", "wz", "vx", "vy", "vz"};
    int nb = m->nbodies;
    if (p < 2)
        snprintf(buf, VIEW_NAME_CAP, "%s", p == 0 ? "energy" : "constraint_residual");
    else if (p < 2 + 6 * nb)
        snprintf(buf, VIEW_NAME_CAP, "%s.%s", m->bodies[(p - 2) / 6].name, cols[(p - 2) % 6]);
    else
        memcpy(buf, jnames[p - 2 - 6 * nb], VIEW_NAME_CAP);
}

/* The series' places among a row's values: the series are a subsequence of them, in order.
 * 0 or -1 (out of memory). */
static int map_series(ld_out_html *w) {
    const ld_model *m = w->m;
    int nj = ld_io_jcols_count(m), nall = 2 + 6 * m->nbodies + nj;
    char(*jn)[VIEW_NAME_CAP] = ld_xcalloc((size_t)nj + 1, sizeof *jn, "the viewer's joint names");
    char **jp = ld_xcalloc((size_t)nj + 1, sizeof *jp, "the viewer's joint names");
    w->all = ld_xcalloc((size_t)nall, sizeof(double), "the viewer's series");
    w->prev = ld_xmalloc(((size_t)nj + 1) * sizeof(double), "the viewer's series");
    w->src = ld_xcalloc((size_t)w->F.ns + 1, sizeof(int), "the viewer's series");
    int rc = !jn || !jp || !w->all || !w->prev || !w->src ? -1 : 0;
    for (int i = 0; !rc && i < nj; ++i) jp[i] = jn[i], w->prev[i] = NAN;
    if (!rc) (void)ld_io_jcols_names(m, jp, VIEW_NAME_CAP);
    char name[VIEW_NAME_CAP];
    for (int i = 0, p = 0; !rc && i < w->F.ns; ++i) {
        for (; p < nall; ++p) {
            value_name(m, jn, p, name);
            if (strcmp(name, w->F.sname[i]) == 0) break;
        }
        w->src[i] = p < nall ? p++ : 0;
    }
    free(jn);
    free(jp);
    return rc;
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
    } else if (!(w = ld_xcalloc(1, sizeof *w, "the HTML writer"))) {
        rc = LD_ENOMEM;
    } else {
        static char names[VIEW_SERIES_MAX][VIEW_NAME_CAP];
        w->s = s, w->m = m;
        int ns = ld_io_frames_series_names(m, names);
        w->buf = ld_xmalloc((7 * (size_t)m->nbodies + (size_t)ns + 1) * sizeof(double),
                            "the HTML writer's row");
        w->phi =
            ld_xcalloc((size_t)s->m + 1, sizeof(double), "the HTML writer's constraint residuals");
        if (!w->buf || !w->phi ||
            ld_io_frames_init(&w->F, m, t0, t1, max_frames ? max_frames : VIEW_FRAMES_DEFAULT, ns,
                              names) != 0 ||
            map_series(w) != 0)
            rc = LD_ENOMEM;
    }
    if (rc == LD_ENOMEM) ld_oom_last(why, cap);
    if (status) *status = rc;
    if (rc == LD_OK) return w;
    ld_out_html_free(w);
    return NULL;
}

int ld_out_html_frame(ld_out_html *w, double t, const double *q, const double *v) {
    const ld_model *m = w->m;
    view_frames *F = &w->F;
    int nb = m->nbodies;
    double *x = w->buf, *qq = x + 3 * nb, *val = qq + 4 * nb, *all = w->all;
    all[0] = ld_sys_energy(w->s, t, q, v);
    all[1] = ld_sys_phi_max(w->s, t, q, w->phi, NULL);
    for (int b = 0; b < nb; ++b) {
        double *ov = all + 2 + 6 * b;
        ld_model_body_state(w->s, b, q, v, x + 3 * b, qq + 4 * b, ov, ov + 3);
    }
    /* every frame offered, kept or not, so that the angles unwrap as in the CSV */
    ld_io_jcols_values(w->s, m, t, q, v, w->prev, all + 2 + 6 * nb);
    for (int i = 0; i < F->ns; ++i) val[i] = all[w->src[i]];
    return ld_io_frames_offer(F, t, x, qq, val) == 0 ? LD_OK : LD_ENOMEM;
}

int ld_out_html_set_contacts(ld_out_html *w, const ld_contact_point *c, int n) {
    if (!w || n < 0 || (n > 0 && !c)) return LD_EINVAL;
    return ld_io_frames_contacts(&w->F, c, n) == 0 ? LD_OK : LD_ENOMEM;
}

long ld_out_html_frames(const ld_out_html *w) {
    return w->F.n;
}

int ld_out_html_write(ld_out_html *w, const char *path, const char *title, char *why, size_t cap) {
    char scratch[8];
    if (!why || !cap) why = scratch, cap = sizeof scratch;
    why[0] = '\0';
    if (ld_io_frames_finish(&w->F) != 0) {
        snprintf(why, cap, "recording the viewer's frames: %s", ld_oom_last_str());
        return LD_ENOMEM;
    }
    if (ld_io_html_write(path, w->m, title ? title : "", &w->F, why, cap) != 0)
        return ld_io_html_missing() ? LD_ENOTSUPPORTED : errno == ENOMEM ? LD_ENOMEM : LD_EIO;
    return LD_OK;
}

/* The VTK writer (liedyn/output.h): one legacy-VTK POLYDATA file per call (vtk.c draws it), each
 * written whole or not at all (safefile.h), and the .vtk.series file that lists them. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "liedyn/liedyn.h"
#include "liedyn/output.h"
#include "safefile.h"
#include "view.h"
#include "../core/oom.h"

#define OUT_PATH_CAP 4096

struct ld_out_vtk {
    const ld_system *s;
    const ld_model *m;
    char dir[OUT_PATH_CAP], base[LD_NAME_MAX];
    char series[OUT_PATH_CAP + LD_NAME_MAX + 32];
    vtk_geom geom;
    int have_geom, failed;
    double *times; /* the times of the files (cap) */
    long files, cap;
    double series_written; /* monotonic time of the last rewrite of the series file */
    ld_contact_point *cp;  /* the contacts of the next frames (ld_out_vtk_set_contacts) */
    int ncp, cpcap, with_contacts;
    char cseries[OUT_PATH_CAP + LD_NAME_MAX + 48];
    char msg[OUT_PATH_CAP + LD_NAME_MAX + 160];
};

static double mono_s(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Record the first failure: "writing WHAT 'NAME' failed: strerror(errno)" (with errno ENOMEM:
 * the last refusal's size and purpose, oom.h). */
static void fail(ld_out_vtk *w, const char *what, const char *name) {
    if (w->failed) return;
    w->failed = 1;
    snprintf(w->msg, sizeof w->msg, "writing %s '%s' failed: %s", what, name,
             errno == ENOMEM ? ld_oom_last_str() : strerror(errno));
}

/* Record the first failure of the safe writer f. */
static void fail_file(ld_out_vtk *w, const safefile *f) {
    if (w->failed) return;
    w->failed = 1;
    snprintf(w->msg, sizeof w->msg, "%.*s", (int)sizeof w->msg - 1, f->err);
}

ld_out_vtk *ld_out_vtk_open(const char *dir, const char *base, const ld_system *s,
                            const ld_model *m, int *status, char *why, size_t cap) {
    char scratch[8];
    if (!why || !cap) why = scratch, cap = sizeof scratch;
    why[0] = '\0';
    int rc = LD_EINVAL;
    if (!dir || !base || !s || !m || strlen(dir) >= OUT_PATH_CAP || strlen(base) >= LD_NAME_MAX) {
        snprintf(why, cap, "no directory, base name, system or model, or a name too long");
    } else {
        ld_out_vtk *w = ld_xcalloc(1, sizeof *w, "the VTK writer");
        if (w) {
            w->s = s, w->m = m;
            snprintf(w->dir, sizeof w->dir, "%s", dir);
            snprintf(w->base, sizeof w->base, "%s", base);
            snprintf(w->series, sizeof w->series, "%s/%s.vtk.series", dir, base);
            snprintf(w->cseries, sizeof w->cseries, "%s/%s_contacts.vtk.series", dir, base);
            ld_io_safefile_clean(dir, base); /* once here: the files below skip it */
            if (status) *status = LD_OK;
            return w;
        }
        rc = LD_ENOMEM;
        ld_oom_last(why, cap);
    }
    if (status) *status = rc;
    return NULL;
}

/* Open the file name for writing (whole or absent): 0, or LD_ENOMEM / LD_EIO with the failure
 * recorded. */
static int file_open(ld_out_vtk *w, safefile *f, const char *name, const char *what) {
    if (ld_io_safefile_open(f, name, what, SAFEFILE_NOCLEAN) == 0) return 0;
    int rc = errno == ENOMEM ? LD_ENOMEM : LD_EIO;
    fail_file(w, f);
    return rc;
}

/* Finish the file f (written whole, or removed). 0, or -1 with the failure recorded. */
static int file_close(ld_out_vtk *w, safefile *f) {
    if (ld_io_safefile_commit(f) == 0) return 0;
    fail_file(w, f);
    return -1;
}

/* Write the series file path listing the files BASE<tag>_NNNNN.vtk (whole). 0, LD_ENOMEM or
 * LD_EIO. */
static int write_series(ld_out_vtk *w, const char *path, const char *tag) {
    safefile sf;
    int rc = file_open(w, &sf, path, "series file");
    if (rc) return rc;
    FILE *f = sf.f;
    fputs("{\n  \"file-series-version\": \"1.0\",\n  \"files\": [\n", f);
    for (long i = 0; i < w->files; ++i)
        fprintf(f, "%s    {\"name\": \"%s%s_%05ld.vtk\", \"time\": %.17g}", i ? ",\n" : "", w->base,
                tag, i, w->times[i]);
    fputs("\n  ]\n}\n", f);
    return file_close(w, &sf) ? LD_EIO : LD_OK;
}

int ld_out_vtk_series(ld_out_vtk *w) {
    w->series_written = mono_s();
    int rc = write_series(w, w->series, "");
    if (!rc && w->with_contacts) rc = write_series(w, w->cseries, "_contacts");
    return rc;
}

int ld_out_vtk_set_contacts(ld_out_vtk *w, const ld_contact_point *c, int n) {
    if (n > w->cpcap) {
        ld_contact_point *p =
            ld_xrealloc(w->cp, (size_t)n * sizeof *p, "the VTK writer's contacts");
        if (!p) {
            errno = ENOMEM;
            fail(w, "contacts of VTK file", w->series);
            return LD_ENOMEM;
        }
        w->cp = p;
        w->cpcap = n;
    }
    if (n > 0) memcpy(w->cp, c, (size_t)n * sizeof *c);
    w->ncp = n > 0 ? n : 0;
    w->with_contacts = 1;
    return LD_OK;
}

/* The contacts file of frame number w->files (after its frame): 0, or LD_ENOMEM / LD_EIO
 * (recorded). */
static int contacts_file(ld_out_vtk *w, double t) {
    char name[sizeof w->cseries];
    snprintf(name, sizeof name, "%s/%s_contacts_%05ld.vtk", w->dir, w->base, w->files);
    safefile f;
    int rc = file_open(w, &f, name, "VTK file");
    if (rc) return rc;
    ld_io_vtk_contacts_write(f.f, w->base, t, w->cp, w->ncp);
    return file_close(w, &f) ? LD_EIO : LD_OK;
}

/* Room for the time of file number w->files. 0 or -1. */
static int times_reserve(ld_out_vtk *w) {
    if (w->files < w->cap) return 0;
    long cap = w->cap ? 2 * w->cap : 256;
    double *p = ld_xrealloc(w->times, (size_t)cap * sizeof(double), "the VTK writer's times");
    if (!p) return -1;
    w->times = p;
    w->cap = cap;
    return 0;
}

/* The poses x (3 per body), q (4) and the point vectors (15 per body: e1 e2 e3, velocity,
 * angular velocity in the spatial frame) of the state (q, v). */
static void body_vectors(const ld_out_vtk *w, const double *q, const double *v, double *x,
                         double *qq, double *vec) {
    for (int b = 0; b < w->m->nbodies; ++b) {
        double om[3], R[9], *e = vec + 15 * b;
        ld_model_body_state(w->s, b, q, v, x + 3 * b, qq + 4 * b, om, e + 9);
        ld_quat_to_mat(R, qq + 4 * b);
        for (int i = 0; i < 3; ++i) {
            e[i] = R[3 * i];
            e[3 + i] = R[3 * i + 1];
            e[6 + i] = R[3 * i + 2];
        }
        ld_quat_rotate(e + 12, qq + 4 * b, om);
    }
}

int ld_out_vtk_frame(ld_out_vtk *w, double t, const double *q, const double *v) {
    if (w->failed) return LD_EIO;
    int nb = w->m->nbodies;
    char name[sizeof w->series];
    snprintf(name, sizeof name, "%s/%s_%05ld.vtk", w->dir, w->base, w->files);
    if (!w->have_geom && ld_io_vtk_geom_init(&w->geom, w->m) == 0) w->have_geom = 1;
    double *x = ld_xmalloc(22 * (size_t)nb * sizeof(double) + 1, "the VTK frame");
    if (!x || !w->have_geom || times_reserve(w) != 0) {
        free(x);
        errno = ENOMEM;
        fail(w, "VTK file", name);
        return LD_ENOMEM;
    }
    w->times[w->files] = t;
    safefile f;
    int rc = file_open(w, &f, name, "VTK file");
    if (rc) {
        free(x);
        return rc;
    }
    double *qq = x + 3 * nb, *vec = qq + 4 * nb;
    body_vectors(w, q, v, x, qq, vec);
    ld_io_vtk_geom_write(f.f, &w->geom, w->m, w->base, t, x, qq, vec);
    free(x);
    if (file_close(w, &f) != 0) return LD_EIO;
    if (w->with_contacts && (rc = contacts_file(w, t)) != 0) return rc;
    w->files++;
    if (mono_s() - w->series_written > 0.5) return ld_out_vtk_series(w);
    return LD_OK;
}

long ld_out_vtk_files(const ld_out_vtk *w) {
    return w->files;
}

const char *ld_out_vtk_message(const ld_out_vtk *w) {
    return w->failed ? w->msg : "";
}

int ld_out_vtk_close(ld_out_vtk *w) {
    return ld_out_vtk_series(w);
}

void ld_out_vtk_free(ld_out_vtk *w) {
    if (!w) return;
    if (w->have_geom) ld_io_vtk_geom_free(&w->geom);
    free(w->times);
    free(w->cp);
    free(w);
}

/* Internal to the liedyn tool: the Campbell diagram of `liedyn modes --campbell`
 * (cli/modes_campbell.c) and the modes' VTK series of `liedyn modes --vtk` (cli/modes_vtk.c). */
#ifndef LIEDYN_CLI_MODES_H
#define LIEDYN_CLI_MODES_H

#include "liedyn/linearize.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

typedef struct campbell_in {
    const char *path;      /* the model file (messages) */
    const char *csv, *png; /* outputs, or NULL */
    const ld_model *m;     /* the model, compiled into s */
    const ld_system *s;
    const double *q, *v1; /* the initial state: its configuration and velocities */
    double from, to;      /* the speeds (rad/s of the fastest-turning body) */
    int npts, count;      /* speeds, modes to follow (≤ 0: all) */
} campbell_in;

/* Sweep, print the table, write the CSV and the PNG. The exit code: 0, 2 (the model does not
 * turn), 3 (no linearization or modes), 4 (output). */
int modes_campbell(const campbell_in *in);

/* Files per mode of --vtk: one period of the motion. */
#define MODES_VTK_FRAMES 24

/* Write each mode of md (of s at q, m compiled as s) as DIR/NAME_modeJ.vtk.series and its
 * MODES_VTK_FRAMES files (DIR created if missing), the model at q ∘ exp(a Re(e^{iθ} φ_J)) over
 * one period, a scaled so that the largest centre displacement is a tenth of the model's size
 * or the largest rotation 0.3 rad; print where. The exit code: 0 or 4 (output). */
int modes_vtk(const char *dir, const ld_model *m, const ld_system *s, const double *q,
              const ld_modes *md);

/* The size of the model for a mode's amplitude: the largest distance of a body's centre of mass
 * from the centroid of the centres or from the origin (1 when all are at the origin). v0: k
 * zeros. */
double modes_model_size(const ld_system *s, const ld_model *m, const double *q, const double *v0);
/* The amplitude a of mode j's shape: its largest centre displacement a tenth of the model's
 * size, or its largest rotation 0.3 rad, whichever is smaller (0 for a zero shape). */
double modes_amplitude(const ld_system *s, const ld_model *m, const double *q, const ld_modes *md,
                       int j, double size);

/* Display seconds per mode in --html, and frames per period (two periods each). */
#define MODES_HTML_SLOT   2.0
#define MODES_HTML_FRAMES 48
/* Write the modes of md (of s at q, m compiled as s) as one HTML animation (the browser
 * viewer): mode J animated over two periods at the model drawn at q ∘ exp(a Re(e^{iθ} φ_J)),
 * shown in the time slot [2 (J − 1), 2 J) s, the amplitude as for --vtk; the title names each
 * mode's slot and frequency. The exit code: 0, 2 (the viewer is not built in) or 4 (output). */
int modes_html(const char *path, const ld_model *m, const ld_system *s, const double *q,
               const ld_modes *md);

#endif

/*
 * liedyn/output.h — the files a run writes: rows of the state as CSV, the bodies' shapes at
 * their poses as a VTK series, and the animation as one HTML file (what `liedyn run --out`,
 * `--vtk` and `--html` write; docs/cli-run.md, docs/paraview.md, docs/viewer.md).
 *
 * A row of a state (t, q, v, λ) of a model m compiled as s (ld_model_compile) holds, in order:
 *   t; per body BODY.x BODY.y BODY.z BODY.qw BODY.qx BODY.qy BODY.qz BODY.wx BODY.wy BODY.wz
 *   BODY.vx BODY.vy BODY.vz (ld_model_body_state); energy; constraint_residual (max |Φ|);
 *   work W, the work of the loads and drivers since the first row (ld_model_power integrated
 *   by the trapezoidal rule over the rows, or as ld_out_csv_set_balance gives it); energy_balance
 *   E − E₀ − W (E₀ the first row's energy: 0 up to the method's error where no damper acts);
 *   BODY.angle_error per body whose rotation the model prescribes (an exact-torque load);
 *   h, error_estimate (when asked for: the step's size and error estimate); per joint
 *   JOINT.fx … JOINT.tz, its reaction (ld_model_joint_reaction; a joint without a name is
 *   "jointJ"); per joint its coordinates, then its rates (ld_model_joint_coords, coords.h:
 *   JOINT.angle, JOINT.angle_rate, JOINT.slide, JOINT.slide_rate, JOINT.rx … JOINT.wz,
 *   JOINT.value, JOINT.value_rate as its kind has them); a model with contact (colliding
 *   shapes or joint limits) then per body BODY.cfx … BODY.ctz, its contact force and torque
 *   (ld_out_csv_set_contact_forces; NaN unless given); per actuator NAME.force, NAME.input.
 *   Chosen by name only (not among "all" columns): per body BODY.ax BODY.ay BODY.az (ẍ, spatial)
 *   and BODY.dwx BODY.dwy BODY.dwz (Ω̇, body frame), the accelerations of the row's state
 *   (ld_sys_initial_accel, ld_model_body_accel; NaN where that solve fails). The CSV and
 *   HTML writers unwrap the angles row by row (ld_joint_angle_unwrap against the row before,
 *   so they run on through ±π; rows more than half a turn apart lose whole turns; a new
 *   writer starts the count anew). Numbers are written with 17 significant digits (read back
 * bit-exact).
 *
 * Ownership: a writer keeps pointers to s and m (they must outlive it) and owns its buffers
 * and file. Status codes as everywhere (liedyn.h): 0, < 0 fatal. A writer whose write failed
 * writes nothing more and says why (ld_out_*_message). Nothing is allocated per row (the CSV
 * writer) once its buffer has grown to a block, unless acceleration columns are chosen (their
 * solve allocates its matrix per row); the VTK writer allocates per file.
 */
#ifndef LIEDYN_OUTPUT_H
#define LIEDYN_OUTPUT_H

#include <stddef.h>

#include "liedyn/export.h"
#include "liedyn/integrator.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

LD_BEGIN_DECLS

/* ------------------------------------------------------------------ the columns of a row */

/* The names of all the columns of a row of m (estimates ≠ 0: with h, error_estimate): *n
 * names into *names, one malloc'ed block (free(*names) frees it all). 0 or LD_ENOMEM. */
int ld_out_columns(const ld_model *m, int estimates, char ***names, int *n);
/* Check a comma-separated column list (column names, BODY, BODY.pos/.q/.omega/.v, JOINT,
 * JOINT.f/.t/.coords/.rate/.rotvec/.omega; docs/cli-run.md) against m's columns: 0, or
 * LD_EINVAL with the reason ("unknown column 'foo' …") in why. */
int ld_out_columns_check(const ld_model *m, int estimates, const char *columns, char *why,
                         size_t cap);

/* ------------------------------------------------------------------ CSV */

typedef struct ld_out_csv ld_out_csv;

/* Create (truncate) path for the rows of m compiled as s: the columns named in columns
 * (NULL: all; t always first), estimates as for ld_out_columns. The header line goes out
 * with the first row (or at close). NULL on failure with *status (may be NULL) LD_EINVAL (a
 * bad column list), LD_EIO (the file cannot be created) or LD_ENOMEM, and the reason in why
 * ("cannot write 'PATH': reason"). */
ld_out_csv *ld_out_csv_open(const char *path, const ld_system *s, const ld_model *m,
                            const char *columns, int estimates, int *status, char *why, size_t cap);
/* One row of the state (t, q, v, λ); h and err fill the h and error_estimate columns (ignored
 * without them). Rows go to the file in blocks that end on a row boundary, so the file holds
 * whole rows at every moment; a failed write is cut back to the last whole row. 0, or LD_EIO
 * once a write has failed (ld_out_csv_message says why). */
int ld_out_csv_row(ld_out_csv *w, double t, const double *q, const double *v, const double *lambda,
                   double h, double err);
/* The next row's work column is W and its balance E − E₀ − W with the E₀ given (a caller that
 * integrates the power over every step, finer than the rows, or that restarts a run), not the
 * writer's own sum over the rows from its first row. Once called, call it before every row. */
void ld_out_csv_set_balance(ld_out_csv *w, double e0, double work);
/* The contact columns of the next rows (a model with contact: per body BODY.cfx … BODY.ctz
 * after the joints' columns): f holds 6 per body, the force and the torque about the centre of
 * mass, spatial (ld_integ_contact_force); NULL: NaN. */
void ld_out_csv_set_contact_forces(ld_out_csv *w, const double *f);
/* Whole data rows in the file so far (after ld_out_csv_close: all that were written). */
long ld_out_csv_rows(const ld_out_csv *w);
/* "" or why the writer failed ("writing PATH failed after N rows: reason"). */
const char *ld_out_csv_message(const ld_out_csv *w);
/* Write what is buffered and close the file, keeping w for ld_out_csv_rows and
 * ld_out_csv_message. 0 or LD_EIO. Idempotent. */
int ld_out_csv_close(ld_out_csv *w);
/* Close (if open) and free w. NULL is ignored. */
void ld_out_csv_free(ld_out_csv *w);

/* ------------------------------------------------------------------ contacts */

/* The contacts CSV (`liedyn run --contacts`, docs/cli-run.md): one line per contact per output
 * time, the columns t, body1, body2 (body names; "ground"), shape1, shape2 (the shape's index
 * among its body's shapes in the model's order; the ground's: −1 its plane, g its
 * ground_shapes[g]), px py pz (the point), nx ny nz (the unit normal from body2 towards body1),
 * gap (m, < 0: overlap), fn (normal·force), ft (the tangential force's magnitude), fx fy fz (the
 * force on body1, N), at the step's midpoint as ld_integ_contacts gives them. */
typedef struct ld_out_contacts ld_out_contacts;
/* Create (truncate) path and write its header. NULL on failure with *status (may be NULL)
 * LD_EINVAL, LD_EIO or LD_ENOMEM and the reason in why. */
ld_out_contacts *ld_out_contacts_open(const char *path, const ld_model *m, int *status, char *why,
                                      size_t cap);
/* The n contacts c of the output time t (n may be 0), one line each. The lines of one call
 * reach the file together, so it holds the whole list of every output time written (blocks as
 * the CSV writer's). 0, or LD_EIO once a write has failed (ld_out_contacts_message). */
int ld_out_contacts_rows(ld_out_contacts *w, double t, const ld_contact_point *c, int n);
/* Contact lines in the file so far. */
long ld_out_contacts_count(const ld_out_contacts *w);
/* "" or why the writer failed. */
const char *ld_out_contacts_message(const ld_out_contacts *w);
/* Write what is buffered and close, keeping w for its count and message. 0 or LD_EIO. */
int ld_out_contacts_close(ld_out_contacts *w);
/* Close (if open) and free w. NULL is ignored. */
void ld_out_contacts_free(ld_out_contacts *w);

/* ------------------------------------------------------------------ VTK */

typedef struct ld_out_vtk ld_out_vtk;

/* A series of legacy-VTK POLYDATA files DIR/BASE_00000.vtk, … of m compiled as s (the
 * directory must exist; base names the files and titles them), listed with their times in
 * DIR/BASE.vtk.series (ParaView's file series). NULL on failure (*status LD_ENOMEM or
 * LD_EINVAL, the reason in why). */
ld_out_vtk *ld_out_vtk_open(const char *dir, const char *base, const ld_system *s,
                            const ld_model *m, int *status, char *why, size_t cap);
/* One file of the state (t, q, v): the bodies' shapes at their poses (the inertia box of a
 * rigid body without a shape), the joints as lines, rods and beams as polylines with their
 * tube radius, a vertex per body at its centre of mass with the body axes e1 e2 e3, velocity
 * and angular_velocity as point vectors. Written to a temporary name and renamed (a file is
 * whole or absent); the series file is rewritten (atomically) at most twice a second and at
 * close. 0, or LD_EIO / LD_ENOMEM (ld_out_vtk_message says why; nothing more is written). */
int ld_out_vtk_frame(ld_out_vtk *w, double t, const double *q, const double *v);
/* The contacts of the next frames (ld_integ_contacts; copied): once called, every frame also
 * writes DIR/BASE_contacts_NNNNN.vtk (the same number; a POLYDATA of one vertex per contact
 * with the point data normal, force, gap, fn, body1, body2) and DIR/BASE_contacts.vtk.series.
 * 0 or LD_ENOMEM (then recorded as the writer's failure). */
int ld_out_vtk_set_contacts(ld_out_vtk *w, const ld_contact_point *c, int n);
/* Files written so far. */
long ld_out_vtk_files(const ld_out_vtk *w);
/* "" or why the writer failed ("writing VTK file 'NAME' failed: reason"). */
const char *ld_out_vtk_message(const ld_out_vtk *w);
/* Rewrite the series file now (atomically). 0, or LD_EIO / LD_ENOMEM. */
int ld_out_vtk_series(ld_out_vtk *w);
/* The end of the series: rewrite the series file, keeping w for ld_out_vtk_files and
 * ld_out_vtk_message. 0, or LD_EIO / LD_ENOMEM. */
int ld_out_vtk_close(ld_out_vtk *w);
/* Free w (without writing anything). NULL is ignored. */
void ld_out_vtk_free(ld_out_vtk *w);

/* ------------------------------------------------------------------ HTML */

typedef struct ld_out_html ld_out_html;

/* Is the HTML writer built in? It embeds three.js, fetched with npm when the library was built
 * (docs/viewer.md); without it the library builds all the same and the writer refuses. 1, or 0
 * with the reason in why (cap bytes; why may be NULL). */
int ld_out_html_available(char *why, size_t cap);
/* Record the animation of m compiled as s over [t0, t1]: at most max_frames (≥ 2; 0: 1000;
 * lowered so that the poses stay within about 64 MB) frames spaced at least
 * (t1 − t0)/(max_frames − 1) apart, and the last one offered. Each frame holds the bodies' poses
 * and the series energy, constraint_residual, the rigid bodies' wx … vz and the joints'
 * coordinates and rates (float; the CSV's names, angles unwrapped over every frame offered,
 * up to 200 series). NULL on
 * failure: *status LD_ENOTSUPPORTED (not built in; why says why), LD_EINVAL or LD_ENOMEM. */
ld_out_html *ld_out_html_open(const ld_system *s, const ld_model *m, double t0, double t1,
                              long max_frames, int *status, char *why, size_t cap);
/* Offer the state (t, q, v); kept when due. 0 or LD_ENOMEM. */
int ld_out_html_frame(ld_out_html *w, double t, const double *q, const double *v);
/* The contacts (ld_integ_contacts; copied) that go with the next frames offered: the viewer
 * draws them (points, and their normal and tangential forces) when its contacts toggle is on.
 * At most about 2·10⁶ contacts are kept over the whole animation; the frames after that hold
 * none. 0 or LD_ENOMEM. */
int ld_out_html_set_contacts(ld_out_html *w, const ld_contact_point *c, int n);
/* Frames kept so far (after ld_out_html_write: all that the file holds). */
long ld_out_html_frames(const ld_out_html *w);
/* Keep the last frame offered and write the self-contained HTML file (the page, three.js and
 * the frames as JSON; any browser opens it offline) to path atomically (a character device
 * or FIFO is written through: docs/reliability.md), titled title. 0, or
 * LD_EIO / LD_ENOMEM / LD_ENOTSUPPORTED with the reason in why ("writing 'PATH' failed: …"). */
int ld_out_html_write(ld_out_html *w, const char *path, const char *title, char *why, size_t cap);
/* Free w. NULL is ignored. */
void ld_out_html_free(ld_out_html *w);

LD_END_DECLS

#endif /* LIEDYN_OUTPUT_H */

/*
 * Internal to the library (src/io; the liedyn tool uses it too): the joints' coordinate columns
 * of a run's rows (liedyn/coords.h, liedyn/output.h). Per joint in order, its n coordinates then
 * its n rates (ld_joint_coords_count of its kind; none for a fixed joint), named
 * "JOINT.angle", "JOINT.angle_rate", … after the joint's name ("jointJ" for a joint without
 * one). The angles of revolute and cylindrical joints come unwrapped against the previous row
 * (ld_joint_angle_unwrap), so they run on through ±π.
 */
#ifndef LIEDYN_IO_JCOLS_H
#define LIEDYN_IO_JCOLS_H

#include <stddef.h>

#include "liedyn/model.h"
#include "liedyn/system.h"

/* The number of joint-coordinate values of a row of m. */
int ld_io_jcols_count(const ld_model *m);
/* Joint j's name in column names: its name, or "jointJ". */
void ld_io_jcols_label(const ld_model *m, int j, char *buf, size_t cap);
/* The names of the values, one into each of names[0 …] (cap bytes each). Returns their number. */
int ld_io_jcols_names(const ld_model *m, char **names, size_t cap);
/* The values at (t, q, v) of the model compiled as s into out (ld_io_jcols_count of them; NaN
 * where a joint cannot be evaluated). prev (as many) holds the previous row's values and
 * receives these where they are finite: the periodic angles are unwrapped against it (NaN:
 * the first row, not unwrapped). No allocation. */
void ld_io_jcols_values(const ld_system *s, const ld_model *m, double t, const double *q,
                        const double *v, double *prev, double *out);

#endif

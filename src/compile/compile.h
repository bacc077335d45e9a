/*
 * Internal to src/compile: what its files share beyond the element interface
 * (../elements/element.h, ../elements/kinds.h).
 */
#ifndef LIEDYN_SRC_COMPILE_COMPILE_H
#define LIEDYN_SRC_COMPILE_COMPILE_H

#include <stddef.h>

#include "../elements/kinds.h"

/* Compile m in so3xr3 without the checks of the initial state (joints closed, velocities,
 * redundant rows): for assembly (assemble.c), whose joints are not closed yet. */
int ld_rb_compile_raw(const ld_model *m, ld_system *s, double **q0, char *msg, size_t n);

/* The coordinates of joint j (frame form) at the model's initial configuration, measured from
 * where its frames coincide: c[0] the angle about the axis, c[1] the slide (assemble.c). */
void ld_joint_frame_coords(const ld_model *m, int j, double c[2]);

/* ------------------------------------------------------- redundant rows (redundancy.c) */

/* The joints' rows of B(t, q) that depend on the others (a planar loop of revolute joints in
 * 3-D, an overconstrained mechanism): drop[row] = 1 for each (s->m entries; rows of other
 * kinds are never flagged), *ndrop their count. LD_OK (also when the constraints are too many
 * to examine: nothing flagged); LD_EINVAL with the reason in msg when the start is a singular
 * position (rows dependent there but not nearby); LD_ENOMEM. */
int ld_rb_redundancy(const ld_system *s, double t, const double *q, unsigned char *drop, int *ndrop,
                     char *msg, size_t n);

/* The initial velocities v that the model does not give, from the joints' velocity equations
 * with the given velocities and the joints' given rates (angle_rate, slide_rate) held
 * (rates.c; ld_jsys_initial_velocity without rates). LD_OK, LD_EINVAL with msg, LD_ENOMEM. */
int ld_rb_initial_velocity(const ld_model *m, const ld_jsys *J, const ld_system *s, const double *q,
                           double *v, char *msg, size_t n);

#endif

/* Exact solutions of the prescribed-rotation cases (internal). */
#ifndef LIEDYN_SRC_MODEL_EXACT_H
#define LIEDYN_SRC_MODEL_EXACT_H

#include "liedyn/model.h"

/* q(t) = q(ϑ(t)) (body → spatial), the body angular velocity Ω and its derivative Ω̇ for the
 * case c (LD_EXACT_I or LD_EXACT_II), exact to round-off. */
void ld_exact_eval(ld_exact_case c, double t, double q[4], double Om[3], double Omd[3]);

#endif

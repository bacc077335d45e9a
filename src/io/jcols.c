/* The joints' coordinate columns of a run's rows (jcols.h). */
#include "jcols.h"

#include <math.h>
#include <stdio.h>

#include "liedyn/coords.h"
#include "liedyn/liedyn.h"

int ld_io_jcols_count(const ld_model *m) {
    int n = 0;
    for (int j = 0; j < m->njoints; ++j) n += 2 * ld_joint_coords_count(m->joints[j].kind);
    return n;
}

void ld_io_jcols_label(const ld_model *m, int j, char *buf, size_t cap) {
    if (m->joints[j].name[0])
        snprintf(buf, cap, "%s", m->joints[j].name);
    else
        snprintf(buf, cap, "joint%d", j);
}

int ld_io_jcols_names(const ld_model *m, char **names, size_t cap) {
    int k = 0;
    for (int j = 0; j < m->njoints; ++j) {
        ld_joint_kind kind = m->joints[j].kind;
        char lab[LD_NAME_MAX + 16];
        ld_io_jcols_label(m, j, lab, sizeof lab);
        for (int i = 0; i < 2 * ld_joint_coords_count(kind); ++i)
            snprintf(names[k++], cap, "%s.%s", lab, ld_joint_coord_name(kind, i));
    }
    return k;
}

void ld_io_jcols_values(const ld_system *s, const ld_model *m, double t, const double *q,
                        const double *v, double *prev, double *out) {
    int k = 0;
    for (int j = 0; j < m->njoints; ++j) {
        ld_joint_kind kind = m->joints[j].kind;
        int n = ld_joint_coords_count(kind), got = 0;
        if (n == 0) continue;
        double c[LD_JOINT_COORDS_MAX], cd[LD_JOINT_COORDS_MAX];
        if (ld_model_joint_coords(s, j, t, q, v, c, cd, &got) != LD_OK || got != n)
            for (int i = 0; i < n; ++i) c[i] = cd[i] = NAN;
        for (int i = 0; i < n; ++i) {
            out[k + i] =
                ld_joint_coord_periodic(kind, i) ? ld_joint_angle_unwrap(c[i], prev[k + i]) : c[i];
            out[k + n + i] = cd[i];
        }
        for (int i = 0; i < 2 * n; ++i) /* a failed row keeps the count of the one before */
            if (isfinite(out[k + i])) prev[k + i] = out[k + i];
        k += 2 * n;
    }
}

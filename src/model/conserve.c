/* Whether a model keeps its mechanical energy (ld_model_energy_conserved, model.h). */
#include <stdio.h>

#include "../elements/elements.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"

/* The first reason the energy of m changes, into why; 0 when there is none. */
static int changes(const ld_model *m, char *why, size_t n) {
    if (m->nloads > 0) return snprintf(why, n, "the model has loads"), 1;
    for (int j = 0; j < m->njoints; ++j)
        if (m->joints[j].kind == LD_JOINT_DRIVER)
            return snprintf(why, n, "joint '%s' drives a motion", m->joints[j].name), 1;
    for (int r = 0; r < m->nrods; ++r)
        for (int i = 0; i < 6; ++i)
            if (m->rods[r].damping[i] != 0.0)
                return snprintf(why, n, "rod '%s' is damped", m->rods[r].name), 1;
    for (int b = 0; b < m->nbeams; ++b)
        if (m->beams[b].damping != 0.0)
            return snprintf(why, n, "beam '%s' is damped", m->beams[b].name), 1;
    for (int e = 0; e < m->nelements; ++e) {
        const ld_el_type *t = ld_el_type_get(m->elements[e].type);
        if (!t || !t->conservative || !t->conservative(&m->elements[e]))
            return snprintf(why, n, "element '%s' (%s) dissipates or adds energy",
                            m->elements[e].name, t ? t->name : "?"),
                   1;
    }
    for (int i = 0; i < m->nshapes; ++i) { /* contact: impacts and friction dissipate */
        const ld_shape *sh = &m->shapes[i];
        if (sh->collide)
            return snprintf(why, n,
                            "body '%s' collides: impacts with restitution below 1 and friction "
                            "dissipate energy",
                            m->bodies[sh->body].name),
                   1;
    }
    return 0;
}

int ld_model_energy_conserved(const ld_model *m, char *why, size_t n) {
    char tmp[8];
    if (!why || n == 0) why = tmp, n = sizeof tmp;
    why[0] = '\0';
    if (!m) return snprintf(why, n, "no model"), 0;
    return !changes(m, why, n);
}

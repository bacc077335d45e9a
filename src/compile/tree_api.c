/*
 * The tree formulation's mass matrix and bias forces in the system's coordinates (coords.h):
 * for checks against the maximal formulations and differences of the energy.
 */
#include <string.h>

#include "../elements/kinds.h"
#include "liedyn/coords.h"
#include "liedyn/liedyn.h"
#include "tree.h"

/* The tree of s, or NULL when s is not a tree system. */
static ld_tree *tree_of(const ld_system *s) {
    return s && s->user && ld_rb(s)->f == LD_FORM_TREE ? ld_rb(s)->tree : NULL;
}

int ld_sys_is_tree(const ld_system *s) {
    return s && s->user && s->ops.force == ld_tree_force;
}

int ld_model_tree_mass_matrix(const ld_system *s, const double *q, double *H) {
    ld_tree *T = tree_of(s);
    if (!T || !q || !H) return LD_EINVAL;
    ld_tree_fk(T, q);
    ld_tree_crba(T);
    int n = T->n;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            H[(size_t)T->sys[i] * (size_t)n + (size_t)T->sys[j]] =
                T->H[(size_t)i * (size_t)n + (size_t)j];
    T->fk_valid = 0;
    return LD_OK;
}

int ld_model_tree_bias(const ld_system *s, double t, const double *q, const double *v, double *c) {
    (void)t;
    ld_tree *T = tree_of(s);
    if (!T || !q || !v || !c) return LD_EINVAL;
    ld_tree_fk(T, q);
    ld_tree_velocities(T, v);
    ld_tree_inertias(T);
    ld_tree_rnea(T, T->b);
    ld_tree_springs_sub(T, T->b);
    for (int i = 0; i < T->n; ++i) c[T->sys[i]] = T->b[i];
    T->fk_valid = 0;
    return LD_OK;
}

/* The closed kinematic loops of a model's joints (ld_model_loop_count, model.h). */
#include <stdlib.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "../core/oom.h"

/* The root of node i (path halving). */
static int root(int *parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

int ld_model_loop_count(const ld_model *m) {
    if (!m || m->nbodies < 0 || (m->njoints > 0 && !m->joints)) return -1;
    int n = m->nbodies + 1, loops = 0; /* node nbodies: the ground */
    int *parent = ld_xmalloc((size_t)n * sizeof *parent, "the joint graph");
    if (!parent) return -1;
    for (int i = 0; i < n; ++i) parent[i] = i;
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jt = &m->joints[j];
        if (jt->kind == LD_JOINT_DRIVER) continue; /* it repeats a joint's pair of bodies */
        int a = jt->body1 == LD_GROUND ? m->nbodies : jt->body1;
        int b = jt->body2 == LD_GROUND ? m->nbodies : jt->body2;
        if (a < 0 || a >= n || b < 0 || b >= n) continue;
        int ra = root(parent, a), rb = root(parent, b);
        if (ra == rb)
            ++loops; /* this joint closes a loop */
        else
            parent[ra] = rb;
    }
    free(parent);
    return loops;
}

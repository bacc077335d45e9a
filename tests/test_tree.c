/*
 * The tree formulation (LD_FORM_TREE, docs/tree.md) against the maximal coordinates of the same
 * model: a spatial chain of five bodies — revolute joints about skew axes, one written from the
 * child to the parent, a fixed joint that merges a body into its parent's link, a prismatic
 * joint — with springs and dampers on the joints:
 *  - the runs (hem5 in both) agree in every joint coordinate and body pose over 1 s;
 *  - without dampers the energy is conserved;
 *  - the mass matrix of the composite-rigid-body algorithm equals Jᵀ M J of the maximal
 *    formulation (ld_model_joint_mass_matrix) at a configuration away from the start, and the
 *    bias forces of recursive Newton–Euler equal those of the Lagrangian by central differences
 *    of the energy: c = Ḣ q̇ − ∂T/∂q + ∂V/∂q;
 *  - the robots of dart-doc (the WAM, DRC-Hubo; else the shipped arm of tests/data/import)
 *    imported with the root fixed follow the maximal run to 1e-6 rad over 1 s;
 *  - what the formulation cannot hold is refused with the joint, body or element named.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/coords.h"
#include "liedyn/import.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#define CHAIN_BODIES                                                                               \
    "gravity: [0, -3, -9.81]\n"                                                                    \
    "bodies:\n"                                                                                    \
    "  - {name: b1, mass: 2, inertia: [0.1, 0.2, 0.15], position: [0.25, 0, 0],\n"                 \
    "     orientation: [0.9, 0.1, 0.2, 0.3]}\n"                                                    \
    "  - {name: b2, mass: 1.5, inertia: [0.05, 0.08, 0.07], position: [0.5, 0.1, -0.2],\n"         \
    "     orientation: [0.8, -0.2, 0.1, 0.4]}\n"                                                   \
    "  - {name: b3, mass: 0.7, inertia: [0.01, 0.02, 0.015], position: [0.7, 0.1, -0.3]}\n"        \
    "  - {name: b4, mass: 1, inertia: [0.03, 0.02, 0.04], position: [0.9, 0.2, -0.3]}\n"           \
    "  - {name: b5, mass: 0.5, inertia: [0.01, 0.01, 0.02], position: [1.1, 0.3, -0.2],\n"         \
    "     orientation: [0.7, 0.3, -0.2, 0.1]}\n"                                                   \
    "joints:\n"                                                                                    \
    "  - {name: j1, type: revolute, body1: ground, body2: b1, at: [0, 0, 0], axis: [0, 0, 1],\n"   \
    "     angle_rate: 1}\n"                                                                        \
    "  - {name: j2, type: revolute, body1: b1, body2: b2, at: [0.5, 0, 0], axis: [0, 1, 0.3],\n"   \
    "     angle_rate: -0.7}\n"                                                                     \
    "  - {name: j3, type: fixed, body1: b2, body2: b3, at: [0.6, 0.1, -0.3]}\n"                    \
    "  - {name: j4, type: prismatic, body1: b3, body2: b4, at: [0.8, 0.2, -0.3],\n"                \
    "     axis: [1, 0.2, 0], slide_rate: 0.3}\n"                                                   \
    "  - {name: j5, type: revolute, body1: b5, body2: b4, at: [1, 0.25, -0.25], axis: [1, 1, "     \
    "0],\n"                                                                                        \
    "     angle_rate: 0.8}\n"

#define CHAIN_ELEMENTS                                                                             \
    "elements:\n"                                                                                  \
    "  - {type: rotational-spring-damper, body1: ground, body2: b1, k: 2, c: 0.1}\n"               \
    "  - {type: rotational-spring-damper, body1: b2, body2: b1, k: 1, c: 0.05,\n"                  \
    "     axis: [0, 1, 0.3], angle0: 0.1}\n"                                                       \
    "  - {type: spring-damper, body1: b3, body2: b4, at1: [0.8, 0.2, -0.3], at2: [1.8, 0.4, "      \
    "-0.3],\n"                                                                                     \
    "     k: 5, c: 0.2, l0: 0.9, f0: 0.1}\n"                                                       \
    "  - {type: rotational-spring-damper, body1: b4, body2: b5, c: 0.03}\n"

#define CHAIN_SPRINGS                                                                              \
    "elements:\n"                                                                                  \
    "  - {type: rotational-spring-damper, body1: ground, body2: b1, k: 2}\n"                       \
    "  - {type: rotational-spring-damper, body1: b2, body2: b1, k: 1, axis: [0, 1, 0.3],\n"        \
    "     angle0: 0.1}\n"                                                                          \
    "  - {type: spring-damper, body1: b3, body2: b4, at1: [0.8, 0.2, -0.3], at2: [1.8, 0.4, "      \
    "-0.3],\n"                                                                                     \
    "     k: 5, l0: 0.9, f0: 0.1}\n"

static void parse(const char *text, ld_model *m) {
    ld_model_error err;
    int st = ld_model_parse(text, strlen(text), "chain.yaml", m, &err);
    if (st != LD_OK) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, LD_OK);
}

/* A sampled run: every joint's first coordinate and every body's centre and orientation. */
typedef struct samples {
    int ns;
    double jc[64 * 16], x[64 * 3 * 64], q[64 * 4 * 64];
    double e[64];
} samples;

static void sample(const ld_system *s, const ld_model *m, double t, const double *q,
                   const double *v, samples *o, int k) {
    for (int j = 0; j < m->njoints; ++j) {
        double c[LD_JOINT_COORDS_MAX] = {0}, cd[LD_JOINT_COORDS_MAX];
        int n = 0;
        assert_int_equal(ld_model_joint_coords(s, j, t, q, v, c, cd, &n), LD_OK);
        o->jc[k * m->njoints + j] = n > 0 ? c[0] : 0.0;
        if (n > 0 && k > 0 && m->joints[j].kind == LD_JOINT_REVOLUTE)
            o->jc[k * m->njoints + j] =
                ld_joint_angle_unwrap(c[0], o->jc[(k - 1) * m->njoints + j]);
    }
    for (int b = 0; b < m->nbodies; ++b) {
        double w[3], xd[3];
        size_t i = (size_t)k * (size_t)m->nbodies + (size_t)b;
        assert_int_equal(ld_model_body_state(s, b, q, v, o->x + 3 * i, o->q + 4 * i, w, xd), LD_OK);
    }
    o->e[k] = ld_sys_energy(s, t, q, v);
}

/* m run by hem5 in formulation f at step h for ns − 1 intervals of t_end/(ns − 1). */
static void run(const ld_model *m, ld_formulation f, double h, double t_end, int ns, samples *o) {
    ld_system s;
    double *q0, *v0;
    char msg[512];
    int st = ld_model_compile_msg(m, f, &s, &q0, &v0, msg, sizeof msg);
    if (st) fprintf(stderr, "%s\n", msg);
    assert_int_equal(st, LD_OK);
    assert_true(m->njoints <= 64 && m->nbodies <= 64 && ns <= 16);
    ld_integ_options op;
    ld_integ_options_init(&op);
    op.method = LD_INTEG_HEM5;
    op.project = s.m > 0;
    op.la = LD_LA_AUTO;
    ld_integ *it = ld_integ_create(&s, &op, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    o->ns = ns;
    sample(&s, m, 0.0, q0, v0, o, 0);
    long per = lround(t_end / (ns - 1) / h), step = 0;
    for (int k = 1; k < ns; ++k) {
        for (long i = 0; i < per; ++i)
            assert_int_equal(ld_integ_advance_to(it, (double)++step * h), LD_OK);
        sample(&s, m, (double)step * h, ld_integ_q(it), ld_integ_v(it), o, k);
    }
    ld_integ_free(it);
    free(q0), free(v0);
    ld_model_system_free(&s);
}

/* The largest differences of two runs: joint coordinates, body positions, orientations. */
static void compare(const ld_model *m, const samples *a, const samples *b, double *dj, double *dx,
                    double *dq) {
    *dj = *dx = *dq = 0.0;
    for (int k = 0; k < a->ns; ++k) {
        for (int j = 0; j < m->njoints; ++j)
            *dj = fmax(*dj, fabs(a->jc[k * m->njoints + j] - b->jc[k * m->njoints + j]));
        for (int i = 0; i < m->nbodies; ++i) {
            size_t o = (size_t)k * (size_t)m->nbodies + (size_t)i;
            for (size_t c = 0; c < 3; ++c) *dx = fmax(*dx, fabs(a->x[3 * o + c] - b->x[3 * o + c]));
            *dq = fmax(*dq, ld_quat_angle(a->q + 4 * o, b->q + 4 * o));
        }
    }
}

static void test_chain_runs(void **state) {
    (void)state;
    ld_model m;
    parse(CHAIN_BODIES CHAIN_ELEMENTS, &m);
    static samples a, b;
    run(&m, LD_FORM_TREE, 1e-3, 1.0, 11, &a);
    run(&m, LD_FORM_SO3XR3, 1e-3, 1.0, 11, &b);
    double dj, dx, dq, motion = 0.0;
    compare(&m, &a, &b, &dj, &dx, &dq);
    for (int j = 0; j < m.njoints; ++j) motion = fmax(motion, fabs(a.jc[10 * m.njoints + j]));
    printf("chain: motion %.3g; tree against so3xr3: joints %.2e, positions %.2e m, "
           "orientations %.2e rad\n",
           motion, dj, dx, dq);
    assert_true(motion > 0.3);
    assert_true(dj < 1e-9 && dx < 1e-9 && dq < 1e-9);
    /* the same energy, falling with the dampers */
    for (int k = 0; k < a.ns; ++k) assert_true(fabs(a.e[k] - b.e[k]) < 1e-8 * (1 + fabs(b.e[k])));
    assert_true(a.e[10] < a.e[0] - 1e-3);
    ld_model_free(&m);
}

/* The so3xr3 state of the tree state (q, v) of st: each body's pose and velocity. */
static void maximal_state(const ld_system *st, const ld_system *sm, const ld_model *m,
                          const double *q, const double *v, double *Q, double *V) {
    for (int b = 0; b < m->nbodies; ++b) {
        double x[3], qq[4], w[3], xd[3], R[9];
        assert_int_equal(ld_model_body_state(st, b, q, v, x, qq, w, xd), LD_OK);
        ld_quat_to_mat(R, qq);
        memcpy(Q + sm->nodes[b].qoff, R, sizeof R);
        memcpy(Q + sm->nodes[b].qoff + 9, x, sizeof x);
        memcpy(V + sm->nodes[b].voff, w, sizeof w);
        memcpy(V + sm->nodes[b].voff + 3, xd, sizeof xd);
    }
}

/* The chain with b1 floating (j1 and its spring left out), thrown: b1 at 0.4 m/s, turning. */
static void floating_chain(char *text, size_t cap, const char *elements) {
    snprintf(text, cap, "%s%s", CHAIN_BODIES, elements);
    char *j1 = strstr(text, "  - {name: j1,"), *j2 = strstr(text, "  - {name: j2,");
    assert_true(j1 && j2);
    memmove(j1, j2, strlen(j2) + 1);
    char *b1 = strstr(text, "orientation: [0.9, 0.1, 0.2, 0.3]}");
    assert_non_null(b1);
    const char *add = "velocity: [0.4, -0.2, 0.3], angular_velocity: [0.5, -1.2, 0.8], ";
    memmove(b1 + strlen(add), b1, strlen(b1) + 1);
    memcpy(b1, add, strlen(add));
    char *sp = strstr(text, "  - {type: rotational-spring-damper, body1: ground, body2: b1");
    if (sp) memmove(sp, strchr(sp, '\n') + 1, strlen(strchr(sp, '\n') + 1) + 1);
}

static void test_floating(void **state) {
    (void)state;
    char text[4096];
    floating_chain(text, sizeof text, CHAIN_ELEMENTS);
    ld_model m;
    parse(text, &m);
    static samples a, b;
    run(&m, LD_FORM_TREE, 1e-3, 1.0, 11, &a);
    run(&m, LD_FORM_SO3XR3, 1e-3, 1.0, 11, &b);
    double dj, dx, dq;
    compare(&m, &a, &b, &dj, &dx, &dq);
    printf("floating chain: tree against so3xr3: joints %.2e, positions %.2e m, orientations "
           "%.2e rad; b1 dropped by %.3g m\n",
           dj, dx, dq, a.x[2] - a.x[3 * 10 * m.nbodies + 2]);
    assert_true(dj < 1e-9 && dx < 1e-9 && dq < 1e-9);
    ld_model_free(&m);
    /* the mass matrix against Jᵀ M J: the tree's (Ω, ẋ) of the root, then j2, j4, j5; the
     * maximal joint space's j2, j4, j5, then the root's (ẋ, Ω) */
    floating_chain(text, sizeof text, CHAIN_SPRINGS);
    char *p = strstr(text, "body1: b5, body2: b4");
    memcpy(p, "body1: b4, body2: b5", 20);
    parse(text, &m);
    ld_system st, sm;
    double *q0, *v0, *Q0, *V0, H[81], Mj[81];
    assert_int_equal(ld_model_compile(&m, LD_FORM_TREE, &st, &q0, &v0), LD_OK);
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &sm, &Q0, &V0), LD_OK);
    assert_int_equal(st.k, 9);
    assert_int_equal(ld_model_joint_dofs(&sm), 9);
    const int map[9] = {6, 7, 8, 3, 4, 5, 0, 1, 2};
    double *q = malloc((size_t)st.nq * sizeof *q), *v = calloc((size_t)st.k, sizeof *v);
    double *Q = calloc((size_t)sm.nq, sizeof *Q), *V = calloc((size_t)sm.k, sizeof *V);
    memcpy(q, q0, (size_t)st.nq * sizeof *q);
    const double dq3[9] = {0.3, -0.5, 0.2, 0.1, 0.2, -0.3, -1.1, 0.25, 2.0};
    ld_sys_retract(&st, q, q0, dq3); /* away from the start */
    maximal_state(&st, &sm, &m, q, v, Q, V);
    assert_int_equal(ld_model_tree_mass_matrix(&st, q, H), LD_OK);
    assert_int_equal(ld_model_joint_mass_matrix(&sm, 0.0, Q, Mj), LD_OK);
    double d = 0.0, hm = maxabs(H, 81);
    for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 9; ++j) d = fmax(d, fabs(H[9 * i + j] - Mj[9 * map[i] + map[j]]));
    printf("floating chain: CRBA against J^T M J of so3xr3: %.2e (largest entry %.3g)\n", d, hm);
    assert_true(d < 1e-12 * hm);
    free(q), free(v), free(Q), free(V), free(q0), free(v0), free(Q0), free(V0);
    ld_model_system_free(&st);
    ld_model_system_free(&sm);
    ld_model_free(&m);
}

/* The joints' reactions at a state away from the start (the chain with its springs and dampers,
 * fixed and reversed joints) against the maximal formulation's from its multipliers. */
static void test_reactions(void **state) {
    (void)state;
    ld_model m;
    parse(CHAIN_BODIES CHAIN_ELEMENTS, &m);
    ld_system st, sm;
    double *q0, *v0, *Q0, *V0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_TREE, &st, &q0, &v0), LD_OK);
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &sm, &Q0, &V0), LD_OK);
    const double q[4] = {0.7, -1.1, 0.25, 2.0}, v[4] = {1.3, -0.4, 0.6, -2.1};
    double *Q = calloc((size_t)sm.nq, sizeof *Q), *V = calloc((size_t)sm.k, sizeof *V);
    double *vd = calloc((size_t)sm.k, sizeof *vd), *lam = calloc((size_t)sm.m, sizeof *lam);
    maximal_state(&st, &sm, &m, q, v, Q, V);
    assert_int_equal(ld_sys_initial_accel(&sm, 0.0, Q, V, vd, lam), LD_OK);
    double d = 0.0, big = 0.0;
    for (int j = 0; j < m.njoints; ++j) {
        double f1[3], t1[3], f2[3], t2[3];
        assert_int_equal(ld_model_joint_reaction_at(&st, j, 0.0, q, v, NULL, f1, t1), LD_OK);
        assert_int_equal(ld_model_joint_reaction_at(&sm, j, 0.0, Q, V, lam, f2, t2), LD_OK);
        for (int k = 0; k < 3; ++k) {
            d = fmax(d, fmax(fabs(f1[k] - f2[k]), fabs(t1[k] - t2[k])));
            big = fmax(big, fmax(fabs(f2[k]), fabs(t2[k])));
        }
    }
    printf("reactions against so3xr3's multipliers: %.2e (largest %.3g)\n", d, big);
    assert_true(big > 1.0 && d < 1e-10 * big);
    free(Q), free(V), free(vd), free(lam), free(q0), free(v0), free(Q0), free(V0);
    ld_model_system_free(&st);
    ld_model_system_free(&sm);
    ld_model_free(&m);
}

static void test_chain_energy(void **state) {
    (void)state;
    ld_model m;
    parse(CHAIN_BODIES CHAIN_SPRINGS, &m);
    static samples a;
    run(&m, LD_FORM_TREE, 1e-3, 2.0, 11, &a);
    double drift = 0.0, scale = 0.0;
    for (int k = 0; k < a.ns; ++k) {
        drift = fmax(drift, fabs(a.e[k] - a.e[0]));
        scale = fmax(scale, fabs(a.e[k]));
    }
    printf("chain without dampers: energy %.6g J, drift over 2 s %.2e J\n", a.e[0], drift);
    assert_true(drift < 1e-9 * fmax(1.0, scale));
    ld_model_free(&m);
}

static void test_crba_rnea(void **state) {
    (void)state;
    /* j5 written from the parent b4 to b5: the maximal joint space takes each joint's body2 as
     * the moving one (a body that is no joint's body2 floats there) */
    char text[4096];
    snprintf(text, sizeof text, "%s", CHAIN_BODIES CHAIN_SPRINGS);
    char *p = strstr(text, "body1: b5, body2: b4");
    assert_non_null(p);
    memcpy(p, "body1: b4, body2: b5", 20);
    ld_model m;
    parse(text, &m);
    ld_system st, sm;
    double *q0, *v0, *Q0, *V0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_TREE, &st, &q0, &v0), LD_OK);
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &sm, &Q0, &V0), LD_OK);
    int n = st.k;
    assert_int_equal(n, 4);
    assert_int_equal(ld_model_joint_dofs(&sm), n);
    const double q[4] = {0.7, -1.1, 0.25, 2.0}, v[4] = {1.3, -0.4, 0.6, -2.1};
    double H[16], Mj[16], c[4], cfd[4];
    double *Q = calloc((size_t)sm.nq, sizeof *Q), *V = calloc((size_t)sm.k, sizeof *V);
    maximal_state(&st, &sm, &m, q, v, Q, V);
    assert_int_equal(ld_model_tree_mass_matrix(&st, q, H), LD_OK);
    assert_int_equal(ld_model_joint_mass_matrix(&sm, 0.0, Q, Mj), LD_OK);
    double d = maxabs_diff(H, Mj, 16), hm = maxabs(H, 16);
    printf("CRBA against J^T M J of so3xr3: %.2e (largest entry %.3g)\n", d, hm);
    assert_true(d < 1e-12 * hm);
    /* the energies agree at that state: the poses and velocities are the same */
    double et = ld_sys_energy(&st, 0, q, v), em = ld_sys_energy(&sm, 0, Q, V);
    assert_true(fabs(et - em) < 1e-12 * fmax(1.0, fabs(em)));
    /* c = Ḣ q̇ − ∂T/∂q + ∂V/∂q by central differences (T = E(q, v) − E(q, 0), V = E(q, 0)) */
    assert_int_equal(ld_model_tree_bias(&st, 0.0, q, v, c), LD_OK);
    const double eps = 1e-6, zero[4] = {0};
    double Hp[16], Hm[16], qp[4], qm[4];
    for (int i = 0; i < n; ++i) qp[i] = q[i] + eps * v[i], qm[i] = q[i] - eps * v[i];
    ld_model_tree_mass_matrix(&st, qp, Hp);
    ld_model_tree_mass_matrix(&st, qm, Hm);
    for (int i = 0; i < n; ++i) {
        cfd[i] = 0.0;
        for (int j = 0; j < n; ++j) cfd[i] += (Hp[4 * i + j] - Hm[4 * i + j]) / (2 * eps) * v[j];
        memcpy(qp, q, sizeof qp), memcpy(qm, q, sizeof qm);
        qp[i] += eps, qm[i] -= eps;
        double Tp = ld_sys_energy(&st, 0, qp, v) - ld_sys_energy(&st, 0, qp, zero);
        double Tm = ld_sys_energy(&st, 0, qm, v) - ld_sys_energy(&st, 0, qm, zero);
        double Vp = ld_sys_energy(&st, 0, qp, zero), Vm = ld_sys_energy(&st, 0, qm, zero);
        cfd[i] += -(Tp - Tm) / (2 * eps) + (Vp - Vm) / (2 * eps);
    }
    d = maxabs_diff(c, cfd, n);
    printf("RNEA against the Lagrangian's differences: %.2e (largest entry %.3g)\n", d,
           maxabs(c, n));
    assert_true(d < 1e-7 * fmax(1.0, maxabs(c, n)));
    free(Q), free(V), free(q0), free(v0), free(Q0), free(V0);
    ld_model_system_free(&st);
    ld_model_system_free(&sm);
    ld_model_free(&m);
}

/* The file's YAML with every revolute joint at angle 0.5 sin(1.3 i + 0.4) (with angles set) and
 * rate cos(0.7 i + 0.2) (i its index among them), as bench_robots starts the robots. */
static int import_moving(const char *path, int angles, ld_model *m) {
    ld_import_options o;
    ld_import_options_init(&o);
    o.fixed_base = 1;
    char *text = NULL;
    size_t len = 0;
    ld_model_error err;
    if (ld_import_translate(path, &o, &text, &len, &err, NULL) != LD_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    char *out = malloc(2 * len + 1), *w = out;
    int i = 0;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t k = nl ? (size_t)(nl - l + 1) : strlen(l);
        memcpy(w, l, k), w += k;
        if (strncmp(l, "    type: revolute", 18) == 0) {
            if (angles) w += sprintf(w, "    angle: %.17g\n", 0.5 * sin(1.3 * i + 0.4));
            w += sprintf(w, "    angle_rate: %.17g\n", cos(0.7 * i + 0.2));
            ++i;
        }
        l += k;
    }
    *w = '\0';
    int st = ld_model_parse(out, (size_t)(w - out), path, m, &err);
    if (st != LD_OK) fprintf(stderr, "%s\n", err.msg);
    free(out);
    free(text);
    return st;
}

static int exists(const char *path) {
    FILE *f = fopen(path, "r");
    if (f) fclose(f);
    return f != NULL;
}

static void test_robots(void **state) {
    (void)state;
    const char *files[] = {"/usr/share/doc/dart/data/urdf/wam/wam.urdf",
                           "/usr/share/doc/dart/data/urdf/drchubo/drchubo.urdf"};
    /* the steps at which both runs are within 1e-7 rad of their limits (the WAM whips round by
     * 10 rad in the second, undamped) */
    const double steps[3] = {2.5e-4, 1e-3, 5e-4};
    int ran = 0;
    for (int f = 0; f < 3; ++f) {
        const char *path = f < 2 ? files[f] : LD_SOURCE_DIR "/tests/data/import/tree-arm.urdf";
        if (f < 2 && !exists(path)) continue;
        if (f == 2 && ran) break;
        ld_model m;
        /* the shipped arm at zero angles: its slide's damper is written at the zero pose */
        assert_int_equal(import_moving(path, f < 2, &m), LD_OK);
        static samples a, b;
        run(&m, LD_FORM_TREE, steps[f], 1.0, 11, &a);
        run(&m, LD_FORM_SO3XR3, steps[f], 1.0, 11, &b);
        double dj, dx, dq, motion = 0.0;
        compare(&m, &a, &b, &dj, &dx, &dq);
        for (int k = 0; k < 11 * m.njoints; ++k)
            motion = fmax(motion, fabs(a.jc[k] - a.jc[k % m.njoints]));
        printf("%s (%d bodies, %d joints): motion %.3g rad; tree against so3xr3 over 1 s: joints "
               "%.2e, positions %.2e m, orientations %.2e rad\n",
               path, m.nbodies, m.njoints, motion, dj, dx, dq);
        assert_true(motion > 0.1);
        assert_true(dj < 1e-6 && dq < 1e-6 && dx < 1e-6);
        /* the same energy: the bodies fixed to the ground (the base) keep their potential */
        double de = 0.0;
        for (int k = 0; k < a.ns; ++k) de = fmax(de, fabs(a.e[k] - b.e[k]) / (1 + fabs(b.e[k])));
        printf("  energy %.10g against %.10g (relative %.1e)\n", a.e[0], b.e[0], de);
        assert_true(de < 1e-6);
        ld_model_free(&m);
        ++ran;
    }
}

/* text compiled in the tree formulation: LD_ENOTSUPPORTED with the message containing want. */
static void refused(const char *text, const char *want) {
    ld_model m;
    parse(text, &m);
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    char msg[512] = "";
    assert_int_equal(ld_model_compile_msg(&m, LD_FORM_TREE, &s, &q0, &v0, msg, sizeof msg),
                     LD_ENOTSUPPORTED);
    if (!strstr(msg, want)) fprintf(stderr, "message: %s\nwanted: %s\n", msg, want);
    assert_non_null(strstr(msg, want));
    ld_model_free(&m);
}

static void test_refusals(void **state) {
    (void)state;
    const char *two = "bodies:\n"
                      "  - {name: a, mass: 1, inertia: [1, 1, 1], position: [1, 0, 0]}\n"
                      "  - {name: b, mass: 1, inertia: [1, 1, 1], position: [2, 0, 0]}\n";
    char text[2048];
    snprintf(
        text, sizeof text,
        "%sjoints:\n  - {name: ball, type: spherical, body1: ground, body2: a, at: [0, 0, 0]}\n"
        "  - {name: h, type: revolute, body1: a, body2: b, at: [1.5, 0, 0], axis: [0, 0, 1]}\n",
        two);
    refused(text, "joint 0 ('ball', spherical");
    snprintf(text, sizeof text,
             "%sjoints:\n  - {name: h, type: revolute, body1: ground, body2: a, at: [0, 0, 0], "
             "axis: [0, 0, 1]}\n  - {name: c, type: cylindrical, body1: a, body2: b, at: [1.5, 0, "
             "0], axis: [1, 0, 0]}\n",
             two);
    refused(text, "joint 1 ('c', cylindrical");
    snprintf(
        text, sizeof text,
        "%sjoints:\n  - {name: h1, type: revolute, body1: ground, body2: a, at: [0, 0, 0], "
        "axis: [0, 0, 1]}\n"
        "  - {name: h2, type: revolute, body1: a, body2: b, at: [1.5, 0, 0], axis: [0, 0, 1]}\n"
        "  - {name: h3, type: revolute, body1: b, body2: ground, at: [3, 0, 0], axis: [0, 0, 1]}\n",
        two);
    refused(text, "it closes a loop");
    snprintf(
        text, sizeof text,
        "%sjoints:\n  - {name: h1, type: revolute, body1: ground, body2: a, at: [0, 0, 0], "
        "axis: [0, 0, 1]}\n"
        "  - {name: h2, type: revolute, body1: a, body2: b, at: [1.5, 0, 0], axis: [0, 0, 1]}\n"
        "elements:\n  - {name: sd, type: spring-damper, body1: ground, body2: b, k: 1}\n",
        two);
    refused(text, "element 0 ('sd', spring-damper");
    snprintf(
        text, sizeof text,
        "%sjoints:\n  - {name: h1, type: revolute, body1: ground, body2: a, at: [0, 0, 0], "
        "axis: [0, 0, 1]}\n"
        "  - {name: h2, type: revolute, body1: a, body2: b, at: [1.5, 0, 0], axis: [0, 0, 1]}\n"
        "elements:\n  - {name: tilt, type: rotational-spring-damper, body1: a, body2: b, k: 1, "
        "axis: [1, 0, 0]}\n",
        two);
    refused(text, "element 0 ('tilt', rotational-spring-damper");
    /* the methods for bodies as nodes say why they cannot run it */
    ld_model m;
    parse(CHAIN_BODIES CHAIN_ELEMENTS, &m);
    ld_system st;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_TREE, &st, &q0, &v0), LD_OK);
    const char *meths[] = {"moreau", "split2"};
    for (int i = 0; i < 2; ++i) {
        ld_integ_options op;
        ld_integ_options_init(&op);
        op.method = (ld_integ_method)ld_integ_method_find(meths[i]);
        const char *why = ld_integ_options_check(&st, &op);
        assert_non_null(why);
        assert_non_null(strstr(why, "not tree"));
    }
    free(q0), free(v0);
    ld_model_system_free(&st);
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_runs), cmocka_unit_test(test_chain_energy),
        cmocka_unit_test(test_crba_rnea),  cmocka_unit_test(test_floating),
        cmocka_unit_test(test_reactions),  cmocka_unit_test(test_robots),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

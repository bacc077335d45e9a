/*
 * Pinned beam ends (docs/beam.md, "Boundary conditions"): a pinned end node keeps its
 * reference position and only turns — a node of SO(3) or S³ (as the formulation stores
 * rotations), or one angle about a fixed axis (a hinge) — so a pinned beam has no constraint
 * rows. Checked here:
 *   - the nodes' kinds in every Lie-group formulation, the euler formulation and a joint on a
 *     pinned node refused with the reason;
 *   - the force, the stiffness (and ∂g/∂v of a damped beam) of the reduced system against
 *     central differences on its group, the force against the energy, in every Lie-group
 *     formulation, with pinned and hinged ends, gravity, loads on the pinned node and a centre
 *     of mass off the axis; the pinned node never moves;
 *   - statics of a simply supported beam (hinged at both ends) under a small midspan load
 *     against P L³/(48 EI) + P L/(4 GA);
 *   - the first bending frequency of the hinged–hinged beam: the discrete one (the generalized
 *     eigenvalues of K and M at rest) against Timoshenko's closed form, converging with the
 *     elements' order and count, and the one measured from small free vibrations with
 *     generalized-α and with tb3;
 *   - a beam pinned at one end swinging under gravity moves as the same beam held by a
 *     spherical joint (a hinge: by a revolute joint) to the ground, with generalized-α; tb3
 *     runs the pinned beam and refuses the joint.
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/statics.h"
#include "liedyn/system.h"

/* A straight beam along x of length L: nel elements of order p, section diag(EA, GA, GA, GJ,
 * EI, EI), ρA, ρJ = diag(2 rj, rj, rj), material e2 = y; ends pinned (pin) or clamped
 * (clamp), the pinned ends turning about axis (NULL: freely). */
static void beam(ld_model *m, int nel, int p, double L, const double sec[6], double rho_a,
                 double rj, int pin0, int pin1, const double *axis) {
    ld_model_init(m);
    strcpy(m->name, "pinned");
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "beam");
    b.order = p, b.nelem = nel, b.npoints = 2;
    b.points[3] = L;
    b.normal[1] = 1.0;
    for (int k = 0; k < 6; ++k) b.C[7 * k] = sec[k];
    b.rho_a = rho_a;
    b.rho_j[0] = 2.0 * rj, b.rho_j[4] = b.rho_j[8] = rj;
    b.pin[0] = pin0, b.pin[1] = pin1;
    for (int i = 0; axis && i < 3; ++i) b.pin_axis[i] = axis[i];
    assert_int_equal(ld_beam_place(m, &b), LD_OK);
    assert_int_equal(ld_model_add_beam(m, &b), LD_OK);
    ld_model_error err;
    if (ld_model_validate(m, &err)) fail_msg("%s", err.msg);
}

static const double Z[3] = {0.0, 0.0, 1.0};

/* ---------------------------------------------------------------- nodes and refusals */

/* The pinned nodes are bodies at their reference points with the formulation's rotations
 * only (SO(3) for so3xr3 and se3, S³ for s3xr3 and s3sdr3; a hinge: one angle); euler and a
 * joint on a pinned node are refused with the reason. */
static void test_nodes_and_refusals(void **state) {
    (void)state;
    const double sec[6] = {1e3, 4e2, 3e2, 10, 20, 30};
    ld_model m;
    beam(&m, 2, 3, 2.0, sec, 1.0, 0.01, 1, 1, NULL);
    assert_int_equal(m.nbodies, 7); /* no node eliminated as a whole */
    assert_int_equal(m.bodies[0].pin, LD_PIN_POINT);
    assert_int_equal(m.bodies[6].pin, LD_PIN_POINT);
    assert_int_equal(m.bodies[3].pin, LD_PIN_NONE);
    static const ld_node_kind want[LD_FORM_COUNT] = {[LD_FORM_SO3XR3] = LD_NODE_SO3,
                                                     [LD_FORM_SE3] = LD_NODE_SO3,
                                                     [LD_FORM_S3XR3] = LD_NODE_S3,
                                                     [LD_FORM_S3SDR3] = LD_NODE_S3};
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0;
        char msg[256];
        int rc = ld_model_compile_msg(&m, (ld_formulation)f, &s, &q0, &v0, msg, sizeof msg);
        if (f == LD_FORM_EULER) {
            assert_int_equal(rc, LD_ENOTSUPPORTED);
            assert_non_null(strstr(msg, "Lie-group formulation"));
            continue;
        }
        if (f == LD_FORM_SO3XR3_SPATIAL || f == LD_FORM_S3XR3_SPATIAL) {
            assert_int_equal(rc, LD_ENOTSUPPORTED);
            assert_non_null(strstr(msg, "spatial formulations do not support pinned nodes"));
            continue;
        }
        if (rc) fail_msg("%s", msg);
        assert_int_equal(s.nodes[0].kind, want[f]);
        assert_int_equal(s.nodes[6].kind, want[f]);
        assert_int_equal(s.k, 3 + 5 * 6 + 3);
        assert_int_equal(s.m, 0);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    ld_model_free(&m);
    beam(&m, 2, 3, 2.0, sec, 1.0, 0.01, 1, 0, Z);
    assert_int_equal(m.bodies[0].pin, LD_PIN_AXIS);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_S3SDR3, &s, &q0, &v0), LD_OK);
    assert_int_equal(s.nodes[0].kind, LD_NODE_RN);
    assert_int_equal(s.nodes[0].n, 1);
    assert_int_equal(s.k, 1 + 6 * 6);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    /* a joint on the pinned node */
    ld_joint j;
    memset(&j, 0, sizeof j);
    strcpy(j.name, "ball");
    j.kind = LD_JOINT_SPHERICAL, j.body1 = LD_GROUND, j.body2 = 0;
    m.joints = &j, m.njoints = 1;
    char msg[256];
    assert_int_equal(ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg),
                     LD_EINVAL);
    assert_non_null(strstr(msg, "beam[0]"));
    assert_non_null(strstr(msg, "a joint cannot hold it too"));
    m.joints = NULL, m.njoints = 0;
    ld_model_free(&m);
    /* a body's pin checked by validation: its kind, the axis a unit vector */
    beam(&m, 2, 3, 2.0, sec, 1.0, 0.01, 1, 0, Z);
    ld_model_error err;
    m.bodies[0].pin = 3;
    assert_int_equal(ld_model_validate(&m, &err), LD_EINVAL);
    assert_non_null(strstr(err.msg, "bodies[0].pin"));
    m.bodies[0].pin = LD_PIN_AXIS, m.bodies[0].pin_axis[2] = 1.5;
    assert_int_equal(ld_model_validate(&m, &err), LD_EINVAL);
    assert_non_null(strstr(err.msg, "must be a unit vector"));
    ld_model_free(&m);
    /* an end clamped and pinned both */
    ld_beam b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "beam");
    b.order = 2, b.nelem = 1, b.npoints = 2, b.points[3] = 1.0, b.normal[1] = 1.0;
    for (int k = 0; k < 6; ++k) b.C[7 * k] = sec[k];
    b.rho_a = 1.0, b.rho_j[0] = b.rho_j[4] = b.rho_j[8] = 0.01;
    b.clamp[1] = b.pin[1] = 1;
    ld_model_init(&m);
    assert_int_equal(ld_beam_place(&m, &b), LD_EINVAL);
    ld_model_free(&m);
}

/* ---------------------------------------------------------------- tangents */

/* The reduced system's stiffness (and ∂g/∂v when damped) against central differences on its
 * group (the SO(3)/S³ and angle nodes retract by their own maps), its force against the
 * energy, in every Lie-group formulation, at a random configuration and velocity; the pinned
 * nodes stay at their reference points. */
static void check_tangents(ld_model *m) {
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        if (f == LD_FORM_SO3XR3_SPATIAL || f == LD_FORM_S3XR3_SPATIAL) continue; /* refused */
        ld_system s;
        double *q0, *v0;
        char msg[256];
        if (ld_model_compile_msg(m, (ld_formulation)f, &s, &q0, &v0, msg, sizeof msg))
            fail_msg("%s", msg);
        size_t k = (size_t)s.k;
        double *buf = calloc(2 * k * k + 6 * k + 2 * (size_t)s.nq, sizeof *buf);
        assert_non_null(buf);
        double *KA = buf, *KF = KA + k * k, *q = KF + k * k, *qs = q + s.nq, *v = qs + s.nq;
        double *a = v + k, *xi = a + k, *g = xi + k, *d = g + k;
        rng r = rng_seed(11u + (unsigned)f);
        for (size_t i = 0; i < k; ++i)
            xi[i] = rng_range(&r, -0.2, 0.2), a[i] = rng_range(&r, -1, 1),
            v[i] = rng_range(&r, -1, 1);
        ld_sys_retract(&s, q, q0, xi);
        for (int i = 0; i < m->nbodies; ++i) { /* the pinned nodes did not move */
            double x[3], qq[4], om[3], xd[3];
            ld_model_body_state(&s, i, q, v, x, qq, om, xd);
            if (m->bodies[i].pin)
                assert_true(maxabs_diff(x, m->bodies[i].x, 3) == 0.0 && maxabs(xd, 3) == 0.0);
            if (m->bodies[i].pin == LD_PIN_AXIS) { /* it turned about its axis, fixed in space */
                double a0[3], a1[3];
                ld_quat_rotate(a0, m->bodies[i].q, m->bodies[i].pin_axis);
                ld_quat_rotate(a1, qq, m->bodies[i].pin_axis);
                assert_true(maxabs_diff(a0, a1, 3) < 1e-14 &&
                            fabs(ld_quat_angle(qq, m->bodies[i].q)) > 1e-3);
            }
        }
        double ek = 0.0, sk = 1.0, ev = 0.0, sv = 1e-300;
        assert_int_equal(s.ops.stiffness(&s, 0.0, q, v, a, NULL, KA), LD_OK);
        assert_int_equal(ld_sys_stiffness_fd(&s, 0.0, q, v, a, NULL, KF), LD_OK);
        for (size_t i = 0; i < k * k; ++i)
            ek = fmax(ek, fabs(KA[i] - KF[i])), sk = fmax(sk, fabs(KA[i]));
        assert_int_equal(s.ops.g_v(&s, 0.0, q, v, KA), LD_OK);
        assert_int_equal(ld_sys_g_v_fd(&s, 0.0, q, v, KF), LD_OK);
        for (size_t i = 0; i < k * k; ++i)
            ev = fmax(ev, fabs(KA[i] - KF[i])), sv = fmax(sv, fabs(KA[i]));
        /* the mass blocks of the sparse paths are the dense mass's diagonal blocks */
        double *Mb = malloc(ld_sys_mass_block_entries(&s) * sizeof *Mb), em = 0.0;
        assert_non_null(Mb);
        assert_int_equal(s.ops.mass(&s, q, KA), LD_OK);
        assert_int_equal(s.ops.mass_blocks(&s, q, Mb), LD_OK);
        for (size_t n = 0, o = 0; n < (size_t)s.nnodes; ++n) {
            size_t vo = (size_t)s.nodes[n].voff;
            size_t nv = (n + 1 < (size_t)s.nnodes ? (size_t)s.nodes[n + 1].voff : k) - vo;
            for (size_t i = 0; i < nv; ++i)
                for (size_t j = 0; j < nv; ++j)
                    em = fmax(em, fabs(Mb[o + nv * i + j] - KA[k * (vo + i) + vo + j]));
            o += nv * nv;
        }
        free(Mb);
        /* at rest, g = dV/dq along the group (V: elastic, gravity; without loads, which
         * have no potential here) */
        memset(v, 0, k * sizeof *v);
        assert_int_equal(s.ops.force(&s, 0.0, q, v, g), LD_OK);
        double eg = 0.0, sg = 1.0;
        for (size_t j = 0; m->nloads == 0 && j < k; ++j) {
            double ep, emn, h = 1e-6;
            memset(d, 0, k * sizeof *d);
            d[j] = h;
            ld_sys_retract(&s, qs, q, d);
            assert_int_equal(s.ops.energy(&s, 0.0, qs, v, &ep), LD_OK);
            d[j] = -h;
            ld_sys_retract(&s, qs, q, d);
            assert_int_equal(s.ops.energy(&s, 0.0, qs, v, &emn), LD_OK);
            eg = fmax(eg, fabs((ep - emn) / (2 * h) - g[j]));
            sg = fmax(sg, fabs(g[j]));
        }
        printf("%s (k = %zu): stiffness error %.2e of %.2e, dg/dv %.2e of %.2e, force %.2e of "
               "%.2e, mass blocks %.1e\n",
               ld_formulation_name((ld_formulation)f), k, ek, sk, ev, sv, eg, sg, em);
        assert_true(ek <= 1e-6 * sk && eg <= 1e-6 * sg && em == 0.0);
        assert_true(ev <= 1e-6 * fmax(sv, 1.0));
        free(buf);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
}

/* Both ends pinned; one pinned end, damped, its centre of mass off the axis (the beam-mass
 * element on the pinned node too) on a beam out of the xy-plane; hinged ends about an oblique
 * axis. Gravity, and on the first node a force (a reaction: no effect) and a follower torque. */
static void test_tangents(void **state) {
    (void)state;
    const double sec[6] = {1e3, 4e2, 3e2, 10, 20, 30}, axis[3] = {0.3, 0.4, 1.2};
    static const char *const what[3] = {"both ends pinned", "pinned, damped, mass off the axis",
                                        "a tilted beam hinged about an oblique axis"};
    ld_load ld[2];
    memset(ld, 0, sizeof ld);
    ld[0].kind = LD_LOAD_FORCE, ld[0].frame = LD_IN_SPATIAL, ld[0].body = 0;
    ld[0].vec[0] = 3.0, ld[0].vec[2] = -2.0;
    ld[1].kind = LD_LOAD_TORQUE, ld[1].frame = LD_IN_BODY, ld[1].body = 0;
    ld[1].vec[0] = 0.5, ld[1].vec[1] = -0.7, ld[1].vec[2] = 0.2;
    for (int variant = 0; variant < 3; ++variant) {
        ld_model m;
        if (variant == 0) {
            beam(&m, 2, 3, 2.0, sec, 1.0, 0.01, 1, 1, NULL);
        } else if (variant == 2) { /* a tilted beam: its nodes' frames are not the spatial one */
            ld_model_init(&m);
            ld_beam b;
            memset(&b, 0, sizeof b);
            strcpy(b.name, "beam");
            b.order = 3, b.nelem = 2, b.npoints = 2, b.points[3] = 2.0, b.points[4] = 0.7;
            b.points[5] = -0.4, b.normal[1] = 1.0;
            for (int i = 0; i < 6; ++i) b.C[7 * i] = sec[i];
            b.rho_a = 1.0, b.rho_j[0] = 0.02, b.rho_j[4] = b.rho_j[8] = 0.01;
            b.pin[0] = b.pin[1] = 1;
            memcpy(b.pin_axis, axis, sizeof b.pin_axis);
            assert_int_equal(ld_beam_place(&m, &b), LD_OK);
            assert_int_equal(ld_model_add_beam(&m, &b), LD_OK);
            assert_int_equal(m.bodies[0].pin, LD_PIN_AXIS);
        } else {
            ld_model_init(&m);
            ld_beam b;
            memset(&b, 0, sizeof b);
            strcpy(b.name, "beam");
            b.order = 3, b.nelem = 2, b.npoints = 2, b.points[3] = 2.0, b.points[5] = 0.3;
            b.normal[1] = 1.0;
            for (int i = 0; i < 6; ++i) b.C[7 * i] = sec[i];
            b.rho_a = 1.0, b.rho_j[0] = 0.02, b.rho_j[4] = b.rho_j[8] = 0.01;
            b.mxi[1] = 0.002, b.mxi[2] = -0.001;
            b.damping = 0.02;
            b.pin[0] = 1;
            assert_int_equal(ld_beam_place(&m, &b), LD_OK);
            assert_int_equal(ld_model_add_beam(&m, &b), LD_OK);
            assert_non_null(m.beams[0].mxi_node);
        }
        m.gravity[2] = -9.81;
        m.loads = ld, m.nloads = 2;
        printf("%s, with loads:\n", what[variant]);
        check_tangents(&m);
        m.loads = NULL, m.nloads = 0;
        printf("%s, without loads:\n", what[variant]);
        check_tangents(&m);
        ld_model_free(&m);
    }
}

/* ---------------------------------------------------------------- statics */

/* A simply supported beam: hinged at both ends about z (pinned points: the supports' axial
 * reaction is second order in the load), midspan load P along −y. The deflection is
 * P L³/(48 EI) + P L/(4 GA) to the discretization's accuracy (an element of order ≥ 3 per
 * half holds the cubic exactly) up to the axial stretching, ∝ P². One end turning freely
 * (an S³/SO(3) node) and the other hinged holds the same deflection. */
static void test_statics(void **state) {
    (void)state;
    const double L = 2.0, sec[6] = {1e4, 2e3, 2e3, 10, 20, 30}, EI = sec[5], GA = sec[1];
    const double want1 = L * L * L / (48.0 * EI) + L / (4.0 * GA);
    ld_static_options o;
    ld_static_options_init(&o);
    ld_static_stats st;
    static const struct {
        int nel, p, free0;
        double P, tol;
    } cases[] = {
        {2, 4, 0, 1e-3, 5e-9},   {2, 4, 0, 1e-4, 5e-11}, {2, 3, 1, 1e-4, 5e-11},
        {4, 4, 0, 1e-4, 5e-11},  {2, 2, 0, 1e-4, 0.15},  {4, 2, 0, 1e-4, 0.015},
        {8, 2, 0, 1e-4, 1.5e-3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        for (int f = 0; f < LD_FORM_EULER; ++f) {
            if (f == LD_FORM_SO3XR3_SPATIAL || f == LD_FORM_S3XR3_SPATIAL) continue;
            ld_model m;
            beam(&m, cases[c].nel, cases[c].p, L, sec, 1.0, 0.01, 1, 1, Z);
            if (cases[c].free0) m.bodies[0].pin = LD_PIN_POINT; /* turns freely */
            int mid = cases[c].nel * cases[c].p / 2;
            ld_load ld;
            memset(&ld, 0, sizeof ld);
            ld.kind = LD_LOAD_FORCE, ld.frame = LD_IN_SPATIAL, ld.body = mid;
            ld.vec[1] = -cases[c].P;
            m.loads = &ld, m.nloads = 1;
            ld_system s;
            double *q0, *v0, x[3], qq[4], om[3], xd[3];
            char msg[256];
            assert_int_equal(ld_model_compile(&m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
            if (ld_static_solve(&s, 0.0, q0, NULL, &o, &st, msg, sizeof msg)) fail_msg("%s", msg);
            ld_model_body_state(&s, mid, q0, v0, x, qq, om, xd);
            double w = -x[1], want = cases[c].P * want1, rel = w / want - 1.0;
            if (f == 0 || fabs(rel) > cases[c].tol)
                printf("%d x p%d%s, P = %.0e (%s): midspan %.12e, linear theory %.12e (relative "
                       "%+.2e), %ld Newton iterations\n",
                       cases[c].nel, cases[c].p, cases[c].free0 ? " (one end free)" : "",
                       cases[c].P, ld_formulation_name((ld_formulation)f), w, want, rel,
                       st.iterations);
            assert_true(fabs(rel) <= cases[c].tol);
            /* the supports did not move */
            ld_model_body_state(&s, 0, q0, v0, x, qq, om, xd);
            assert_true(maxabs(x, 3) == 0.0);
            free(q0);
            free(v0);
            ld_model_system_free(&s);
            m.loads = NULL, m.nloads = 0;
            ld_model_free(&m);
        }
    }
}

/* ---------------------------------------------------------------- the first frequency */

/* Timoshenko's first bending frequency of a simply supported beam: the smaller root ω² of
 * (ρA ω² − GA k²)(ρJ ω² − EI k² − GA) = GA² k², k = π/L. */
static double timoshenko_w1(double L, double EI, double GA, double rho_a, double rho_j) {
    double k = PI / L, a = rho_a * rho_j, b = -(rho_a * (EI * k * k + GA) + rho_j * GA * k * k),
           c = GA * EI * k * k * k * k;
    return sqrt(2.0 * c / (-b + sqrt(b * b - 4.0 * a * c)));
}

/* The section of the frequency study: L = 1, EI = 1, ρA = 1, slender (EA = GA = 10⁴). */
static const double FL = 1.0, FSEC[6] = {1e4, 1e4, 1e4, 1.0, 1.0, 1.0}, FRJ = 1e-3;

/* The lowest frequency of the compiled hinged–hinged beam at rest: the generalized
 * eigenvalues of the stiffness and the (lumped, block-diagonal) mass; its mode (velocity
 * coordinates, largest entry 1) into phi when not NULL. */
static double discrete_w1(const ld_system *s, const double *q0, double *phi) {
    size_t k = (size_t)s->k;
    double *K = malloc(2 * k * k * sizeof *K), *M = K + k * k, *v = calloc(k, sizeof *v);
    double *ev = malloc(k * sizeof *ev);
    assert_true(K && v && ev);
    assert_int_equal(s->ops.stiffness(s, 0.0, q0, v, v, NULL, K), LD_OK);
    assert_int_equal(s->ops.mass(s, q0, M), LD_OK);
    for (size_t i = 0; i < k; ++i) /* symmetric at rest: average round-off away */
        for (size_t j = 0; j < i; ++j)
            K[i * k + j] = K[j * k + i] = 0.5 * (K[i * k + j] + K[j * k + i]);
    assert_int_equal(LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, phi ? 'V' : 'N', 'U', (lapack_int)k, K,
                                   (lapack_int)k, M, (lapack_int)k, ev),
                     0);
    double w = sqrt(ev[0]), big = 0.0;
    for (size_t i = 0; phi && i < k; ++i) big = fmax(big, fabs(K[i * k]));
    for (size_t i = 0; phi && i < k; ++i) phi[i] = K[i * k] / big;
    free(K);
    free(v);
    free(ev);
    return w;
}

/* A run from the velocity 10⁻⁶ φ₁ of the discrete first mode (so that no other mode moves):
 * the midspan's zero crossings over one period give the period. */
static double measured_w1(ld_model *m, ld_integ_method meth, double h, double *wh,
                          double *steps_out) {
    int mid = -1;
    for (int i = 0; i < m->nbodies; ++i)
        if (fabs(m->bodies[i].x[0] - 0.5 * FL) < 1e-12) mid = i;
    assert_true(mid >= 0);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    *wh = discrete_w1(&s, q0, v0);
    for (int i = 0; i < s.k; ++i) v0[i] *= 1e-6;
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth, o.rho_inf = 1.0, o.newton_atol = 1e-16, o.newton_rtol = 1e-12;
    o.la = LD_LA_AUTO;
    int rc;
    ld_integ *it = ld_integ_create(&s, &o, &rc);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    double prev = 0.0, tc[8], x[3], qq[4], om[3], xd[3];
    int nc = 0, n = 0;
    for (; nc < 3 && n < 200000; ++n) {
        rc = ld_integ_step(it, h);
        if (rc) fail_msg("step %d: %s", n, ld_strerror(rc));
        ld_model_body_state(&s, mid, ld_integ_q(it), ld_integ_v(it), x, qq, om, xd);
        if (n > 0 && (prev < 0.0) != (x[1] < 0.0)) tc[nc++] = n * h + h * prev / (prev - x[1]);
        prev = x[1];
    }
    assert_int_equal(nc, 3);
    *steps_out = n;
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return PI * (nc - 1) / (tc[nc - 1] - tc[0]); /* crossings half a period apart */
}

/* The discrete frequency converges to Timoshenko's with the elements' order and count; free
 * vibrations measured with generalized-α (ρ∞ = 1) and tb3 match the discrete frequency to
 * their period error. */
static void test_first_frequency(void **state) {
    (void)state;
    const double w1 = timoshenko_w1(FL, FSEC[5], FSEC[1], 1.0, FRJ);
    const double web = PI * PI; /* Euler–Bernoulli: (π/L)² √(EI/ρA) */
    printf("Timoshenko w1 = %.12f (Euler-Bernoulli %.12f, relative %.2e)\n", w1, web,
           w1 / web - 1.0);
    static const struct {
        int nel, p;
        double tol;
    } mesh[] = {{1, 2, 1e-2}, {2, 2, 0.12}, {4, 2, 3e-2}, {8, 2, 6e-3}, {1, 4, 5e-5},
                {2, 4, 1e-4}, {4, 4, 1e-6}, {2, 6, 5e-9}, {2, 8, 3e-11}}; /* p = 8: at round-off */
    double prev_err = INFINITY;
    for (size_t c = 0; c < sizeof mesh / sizeof mesh[0]; ++c) {
        ld_model m;
        beam(&m, mesh[c].nel, mesh[c].p, FL, FSEC, 1.0, FRJ, 1, 1, Z);
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
        double wh = discrete_w1(&s, q0, NULL), err = wh / w1 - 1.0;
        printf("%d x p%d (%d nodes): discrete w1 %.12f, relative error %+.3e\n", mesh[c].nel,
               mesh[c].p, m.beams[0].nnodes, wh, err);
        assert_true(fabs(err) <= mesh[c].tol);
        if (c > 0 && mesh[c].p == mesh[c - 1].p && mesh[c - 1].nel > 1) /* more elements: closer */
            assert_true(fabs(err) < fabs(prev_err));
        prev_err = err;
        free(q0);
        free(v0);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
    /* measured in time on 2 × 4 (whose stiffest mode is softer than 4 × 4's: tb3 grows every
     * undamped mode a little, docs/beam.md) */
    static const struct {
        ld_integ_method meth;
        const char *name;
        int nel;
        double h, tol;
    } runs[] = {{LD_INTEG_GENALPHA, "genalpha", 2, 4e-4, 2e-6},
                {LD_INTEG_GENALPHA, "genalpha", 2, 2e-4, 5e-7},
                {LD_INTEG_TB3, "tb3", 2, 1e-4, 1e-9}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
        ld_model m;
        beam(&m, runs[r].nel, 4, FL, FSEC, 1.0, FRJ, 1, 1, Z);
        double wh, steps, wm = measured_w1(&m, runs[r].meth, runs[r].h, &wh, &steps);
        printf("%s, %d x p4, h = %.1e (%.0f steps): measured w1 %.9f, discrete %.9f (relative "
               "%+.2e), Timoshenko (relative %+.2e)\n",
               runs[r].name, runs[r].nel, runs[r].h, steps, wm, wh, wm / wh - 1.0, wm / w1 - 1.0);
        assert_true(fabs(wm / wh - 1.0) < runs[r].tol);
        ld_model_free(&m);
    }
}

/* ---------------------------------------------------------------- against joints */

/* Tip positions of a beam pinned at node 0 (or held there by a joint) swinging under gravity,
 * every 10 of n steps of h; NULL on an integrator's refusal. */
static double *swing(ld_model *m, ld_integ_method meth, double h, int n, int *rc_create) {
    ld_system s;
    double *q0, *v0;
    char msg[256];
    if (ld_model_compile_msg(m, LD_FORM_SE3, &s, &q0, &v0, msg, sizeof msg)) fail_msg("%s", msg);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth, o.newton_atol = 1e-13, o.newton_rtol = 1e-11;
    ld_integ *it = ld_integ_create(&s, &o, rc_create);
    double *tip = NULL;
    if (it) {
        tip = malloc(3 * (size_t)(n / 10) * sizeof *tip);
        assert_non_null(tip);
        assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
        for (int i = 1; i <= n; ++i) {
            int rc = ld_integ_step(it, h);
            if (rc) fail_msg("step %d: %s", i, ld_strerror(rc));
            double qq[4], om[3], xd[3];
            if (i % 10 == 0)
                ld_model_body_state(&s, m->nbodies - 1, ld_integ_q(it), ld_integ_v(it),
                                    tip + 3 * (i / 10 - 1), qq, om, xd);
        }
        ld_integ_free(it);
    }
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return tip;
}

/* A flexible pendulum: the beam pinned at node 0 (turning freely, or hinged about y) swings
 * down under gravity like the same beam held by a spherical (revolute) joint to the ground.
 * tb3 runs the pinned beam and refuses the joint. */
static void test_against_joints(void **state) {
    (void)state;
    const double sec[6] = {1e3, 1e3, 1e3, 5.0, 5.0, 5.0}, Y[3] = {0.0, 1.0, 0.0};
    for (int hinge = 0; hinge < 2; ++hinge) {
        ld_model mp, mj;
        beam(&mp, 2, 3, 1.0, sec, 1.0, 1e-3, 1, 0, hinge ? Y : NULL);
        beam(&mj, 2, 3, 1.0, sec, 1.0, 1e-3, 0, 0, NULL);
        /* a swing out of the plane (not hinged): the nodes start with the rigid rotation
         * ω = 2 about z (body frames = the spatial one), v = ω × x */
        double w = hinge ? 0.0 : 2.0;
        for (int i = 0; i < mp.nbodies; ++i) {
            ld_body *bp = &mp.bodies[i], *bj = &mj.bodies[i];
            bp->omega[2] = bj->omega[2] = w;
            bp->v[1] = bj->v[1] = w * bp->x[0];
        }
        mp.gravity[2] = mj.gravity[2] = -9.81;
        ld_joint j;
        memset(&j, 0, sizeof j);
        strcpy(j.name, "support");
        j.kind = hinge ? LD_JOINT_REVOLUTE : LD_JOINT_SPHERICAL;
        j.body1 = LD_GROUND, j.body2 = 0;
        j.axis[1] = 1.0;
        mj.joints = &j, mj.njoints = 1;
        int rcp, rcj;
        double *tp = swing(&mp, LD_INTEG_GENALPHA, 1e-3, 500, &rcp);
        double *tj = swing(&mj, LD_INTEG_GENALPHA, 1e-3, 500, &rcj);
        assert_true(tp && tj);
        double d = 0.0, zmin = 0.0;
        for (int i = 0; i < 3 * 50; ++i) d = fmax(d, fabs(tp[i] - tj[i]));
        for (int i = 0; i < 50; ++i) zmin = fmin(zmin, tp[3 * i + 2]);
        printf("%s: tip at t = 0.5 (%.9f, %.9f, %.9f), lowest z %.4f, largest difference to "
               "the %s joint %.2e\n",
               hinge ? "hinged" : "pinned", tp[147], tp[148], tp[149], zmin,
               hinge ? "revolute" : "spherical", d);
        assert_true(zmin < -0.5 && d < 1e-8);
        free(tp);
        free(tj);
        /* tb3 runs the pinned beam (0.1 s at h = 2e-4: within generalized-α's error of the
         * same steps) and refuses the joint */
        double *t3 = swing(&mp, LD_INTEG_TB3, 2e-4, 500, &rcp);
        double *ta = swing(&mp, LD_INTEG_GENALPHA, 2e-4, 500, &rcp);
        double *tr = swing(&mj, LD_INTEG_TB3, 2e-4, 500, &rcj);
        assert_true(t3 && ta && !tr && rcj == LD_ENOTSUPPORTED);
        double d3 = 0.0;
        for (int i = 0; i < 3 * 50; ++i) d3 = fmax(d3, fabs(t3[i] - ta[i]));
        printf("  tb3: tip at t = 0.1 (%.9f, %.9f, %.9f), largest difference to genalpha %.2e\n",
               t3[147], t3[148], t3[149], d3);
        assert_true(d3 < 1e-4 && t3[149] < -0.02);
        free(t3);
        free(ta);
        mj.joints = NULL, mj.njoints = 0;
        ld_model_free(&mp);
        ld_model_free(&mj);
    }
}

/* ---------------------------------------------------------------- the model format */

static void test_yaml(void **state) {
    (void)state;
    char path[4608];
    snprintf(path, sizeof path, "%s/models/beam-pinned.yaml", LD_SOURCE_DIR);
    ld_model m;
    ld_model_error err;
    if (ld_model_load(path, &m, &err)) fail_msg("%s", err.msg);
    assert_int_equal(m.nbodies, 9);
    assert_int_equal(m.bodies[0].pin, LD_PIN_AXIS);
    assert_int_equal(m.bodies[8].pin, LD_PIN_AXIS);
    assert_true(fabs(m.bodies[8].pin_axis[2] - 1.0) < 1e-15); /* z in the body frame too */
    ld_model_free(&m);
    static const char *const good = "name: b\n"
                                    "beams:\n"
                                    "  - name: leg\n"
                                    "    order: 2\n"
                                    "    from: [0, 0, 0]\n"
                                    "    to: [0, 3, 0]\n"
                                    "    section: {EA: 1e4, GA2: 1e4, GA3: 1e4, GJ: 10, EI2: "
                                    "10, EI3: 10}\n"
                                    "    rho_a: 1\n"
                                    "    rho_j: [2, 1, 1]\n"
                                    "    pin: start\n";
    if (ld_model_parse(good, strlen(good), "b.yaml", &m, &err)) fail_msg("%s", err.msg);
    assert_int_equal(m.bodies[0].pin, LD_PIN_POINT);
    assert_int_equal(m.bodies[2].pin, LD_PIN_NONE);
    ld_model_free(&m);
    static const struct {
        const char *to, *msg;
    } bad[] = {
        {"    pin: middle\n", "beams[0].pin"},
        {"    pin: end\n    clamp: both\n", "beams[0].pin: names an end that 'clamp' clamps"},
        {"    pin: both\n    pin_axis: [0, 0, 0]\n", "beams[0].pin_axis: must be a non-zero"},
        {"    pin_axis: [0, 0, 1]\n", "beams[0].pin_axis: needs 'pin'"},
        {"    pin: start\n"
         "joints:\n"
         "  - {name: j, type: spherical, body1: ground, body2: 'leg[0]', at: [0, 0, 0]}\n",
         "is pinned (its position eliminated): a joint cannot hold it too"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char text[2048];
        const char *at = strstr(good, "    pin: start\n");
        snprintf(text, sizeof text, "%.*s%s", (int)(at - good), good, bad[i].to);
        int rc = ld_model_parse(text, strlen(text), "b.yaml", &m, &err);
        char msg[512] = "";
        if (rc == LD_OK) {
            ld_system s;
            double *q0, *v0;
            rc = ld_model_validate(&m, &err);
            if (rc == LD_OK) {
                rc = ld_model_compile_msg(&m, LD_FORM_SO3XR3, &s, &q0, &v0, msg, sizeof msg);
                snprintf(err.msg, sizeof err.msg, "%s", msg);
            }
            if (rc == LD_OK) free(q0), free(v0), ld_model_system_free(&s);
            ld_model_free(&m);
        }
        if (rc == LD_OK || !strstr(err.msg, bad[i].msg))
            fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, err.msg, bad[i].msg);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nodes_and_refusals),
        cmocka_unit_test(test_tangents),
        cmocka_unit_test(test_statics),
        cmocka_unit_test(test_first_frequency),
        cmocka_unit_test(test_against_joints),
        cmocka_unit_test(test_yaml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

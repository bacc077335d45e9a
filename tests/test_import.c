/*
 * Import of URDF and MJCF files (include/liedyn/import.h, docs/import.md): a double pendulum
 * written in URDF, in MJCF and in liedyn YAML gives the same bodies and joints and the same
 * trajectory; the kinetic energy of the imported chain at given joint rates against the hand
 * computation (its mass matrix); the mass and inertia MuJoCo infers from geoms; the YAML text
 * of `liedyn convert` runs to the same result; merged links, warnings and errors with lines;
 * and the robots of the dart-doc and libmujoco-samples packages when they are installed
 * (skipped, with a message, when they are not).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

#include "../src/elements/actuator.h"
#include "liedyn/actuator.h"
#include "liedyn/import.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif
#define DATA LD_SOURCE_DIR "/tests/data/import/"

static double maxdiff(const double *a, const double *b, int n) {
    double d = 0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static void load(const char *path, ld_model *m) {
    ld_model_error err;
    int rc = ld_import_recognizes(path) ? ld_model_import(path, m, &err, NULL)
                                        : ld_model_load(path, m, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, LD_OK);
}

/* The same bodies (mass, inertia, pose after assembly) and joints (kind, bodies, spatial
 * point and axis). */
static void same_model(const ld_model *a, const ld_model *b, double tol) {
    assert_int_equal(a->nbodies, b->nbodies);
    assert_int_equal(a->njoints, b->njoints);
    for (int i = 0; i < a->nbodies; ++i) {
        const ld_body *x = &a->bodies[i], *y = &b->bodies[i];
        assert_string_equal(x->name, y->name);
        assert_true(fabs(x->mass - y->mass) <= tol);
        assert_true(maxdiff(x->inertia, y->inertia, 9) <= tol);
        assert_true(maxdiff(x->x, y->x, 3) <= tol);
        assert_true(maxdiff(x->q, y->q, 4) <= tol);
    }
    for (int j = 0; j < a->njoints; ++j) {
        const ld_joint *x = &a->joints[j], *y = &b->joints[j];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->body1, y->body1);
        assert_int_equal(x->body2, y->body2);
        assert_true(maxdiff(x->at, y->at, 3) <= tol);
        assert_true(maxdiff(x->axis, y->axis, 3) <= tol);
    }
}

/* Integrate m with its integrator block up to t_end; the final q and v (malloc'ed). */
static void run(const ld_model *m, double t_end, double **q, double **v, int *nq, int *nv) {
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    ld_integ_options o;
    int st = ld_model_compile(m, m->run.formulation, &s, &q0, &v0);
    assert_int_equal(st, LD_OK);
    assert_int_equal(ld_integ_options_from_model(m, &o), LD_OK);
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    long n = (long)lround(t_end / m->run.dt);
    for (long i = 1; i <= n && st == LD_OK; ++i)
        st = ld_integ_advance_to(it, (double)i * m->run.dt);
    assert_int_equal(st, LD_OK);
    *nq = s.nq, *nv = s.k;
    *q = malloc((size_t)s.nq * sizeof **q);
    *v = malloc((size_t)s.k * sizeof **v);
    memcpy(*q, ld_integ_q(it), (size_t)s.nq * sizeof **q);
    memcpy(*v, ld_integ_v(it), (size_t)s.k * sizeof **v);
    ld_integ_free(it);
    free(q0), free(v0);
    ld_model_system_free(&s);
}

/* URDF, MJCF and YAML: the same pendulum, the same motion over 0.5 s (1e-12). */
static void test_pendulum_three_ways(void **state) {
    (void)state;
    ld_model u, x, y;
    load(DATA "double-pendulum.urdf", &u);
    load(DATA "double-pendulum.xml", &x);
    load(DATA "double-pendulum.yaml", &y);
    same_model(&u, &y, 1e-12);
    same_model(&x, &y, 1e-12);
    assert_int_equal(u.nelements, 2); /* the shoulder's damper, the elbow's motor */
    assert_int_equal(x.nelements, 2);
    assert_int_equal(y.nelements, 2);
    for (int i = 0; i < 2; ++i) {
        ld_act_view a, b;
        ld_act_view_get(i ? &x.elements[1] : &u.elements[1], &a);
        ld_act_view_get(&y.elements[1], &b);
        assert_int_equal(a.joint, b.joint);
        assert_int_equal(a.input, LD_ACT_CONTROL);
        assert_string_equal(i ? x.elements[1].name : u.elements[1].name, "elbow-motor");
        /* URDF: the elbow's effort 10 limits the force; MJCF and the YAML give no limit */
        assert_true(a.fhi == (i ? (double)INFINITY : 10.0) && a.flo == -a.fhi);
    }
    double *qa, *va, *qb, *vb, *qc, *vc;
    int nq, nv, nq2, nv2;
    run(&y, 0.5, &qa, &va, &nq, &nv);
    run(&u, 0.5, &qb, &vb, &nq2, &nv2);
    assert_int_equal(nq, nq2);
    double dq = maxdiff(qa, qb, nq), dv = maxdiff(va, vb, nv);
    run(&x, 0.5, &qc, &vc, &nq2, &nv2);
    dq = fmax(dq, maxdiff(qa, qc, nq)), dv = fmax(dv, maxdiff(va, vc, nv));
    printf("double pendulum, 0.5 s: URDF and MJCF against YAML: |dq| %.2e, |dv| %.2e\n", dq, dv);
    assert_true(dq <= 1e-12 && dv <= 1e-12);
    assert_true(maxdiff(qa, qa + 0, nq) == 0 && fabs(qa[0]) + fabs(va[0]) > 0);
    free(qa), free(va), free(qb), free(vb), free(qc), free(vc);
    ld_model_free(&u), ld_model_free(&x), ld_model_free(&y);
}

/* Kinetic energy of the imported chain at joint rates (w1, w2), from the compiled state. */
static double kinetic(const ld_model *m0, double w1, double w2) {
    ld_model m;
    load(DATA "double-pendulum.urdf", &m);
    (void)m0;
    m.joints[0].rate[0] = w1, m.joints[0].has_rate = 1;
    m.joints[1].rate[0] = w2, m.joints[1].has_rate = 1;
    for (int i = 0; i < m.nbodies; ++i) m.bodies[i].omega_free = 1;
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    double *z = calloc((size_t)s.k, sizeof *z);
    double T = ld_sys_energy(&s, 0.0, q0, v0) - ld_sys_energy(&s, 0.0, q0, z);
    free(z), free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
    return T;
}

/* T = ½ θ̇ᵀ M θ̇ of the planar double pendulum: M11 = m1 a1² + I1 + m2 l1² + M22 + 2 c,
 * M22 = m2 a2² + I2, M12 = M22 + c, c = m2 l1 a2 cos β (β = 0.5, the elbow's bend). */
static void test_mass_matrix_by_hand(void **state) {
    (void)state;
    const double m1 = 1, a1 = 0.5, I1 = 0.0845, l1 = 1, m2 = 0.5, a2 = 0.4, I2 = 0.03;
    double c = m2 * l1 * a2 * cos(0.5), M22 = m2 * a2 * a2 + I2;
    double M11 = m1 * a1 * a1 + I1 + m2 * l1 * l1 + M22 + 2 * c, M12 = M22 + c;
    double T10 = kinetic(NULL, 1, 0), T01 = kinetic(NULL, 0, 1), T11 = kinetic(NULL, 1.5, -0.7);
    printf("mass matrix: M11 %.15g (hand %.15g), M22 %.15g (hand %.15g)\n", 2 * T10, M11, 2 * T01,
           M22);
    assert_true(fabs(2 * T10 - M11) < 1e-12);
    assert_true(fabs(2 * T01 - M22) < 1e-12);
    double hand = 0.5 * (M11 * 1.5 * 1.5 + 2 * M12 * 1.5 * -0.7 + M22 * 0.7 * 0.7);
    assert_true(fabs(T11 - hand) < 1e-12);
}

/* The YAML text of `liedyn convert` reads to the very model, and runs to the same state. */
static void test_convert_round_trip(void **state) {
    (void)state;
    const char *files[] = {DATA "double-pendulum.urdf", DATA "two-link.urdf",
                           DATA "double-pendulum.xml"};
    for (int f = 0; f < 3; ++f) {
        char *text = NULL;
        size_t len = 0;
        ld_model_error err;
        assert_int_equal(ld_import_translate(files[f], NULL, &text, &len, &err, NULL), LD_OK);
        ld_model a, b;
        assert_int_equal(ld_model_parse(text, len, "converted.yaml", &a, &err), LD_OK);
        load(files[f], &b);
        same_model(&a, &b, 0.0);
        double *qa, *va, *qb, *vb;
        int nq, nv;
        a.run.dt = b.run.dt = 2e-3;
        run(&a, 0.2, &qa, &va, &nq, &nv);
        run(&b, 0.2, &qb, &vb, &nq, &nv);
        assert_true(maxdiff(qa, qb, nq) == 0.0 && maxdiff(va, vb, nv) == 0.0);
        free(qa), free(va), free(qb), free(vb), free(text);
        ld_model_free(&a), ld_model_free(&b);
    }
}

/* Massless links merged, a fixed base, a prismatic joint with its damper, the inertial's
 * rotation, the lines of the file in the model, the warnings. */
static void test_two_link(void **state) {
    (void)state;
    ld_model m;
    ld_model_error err;
    ld_import_report rep;
    assert_int_equal(ld_model_import(DATA "two-link.urdf", &m, &err, &rep), LD_OK);
    assert_int_equal(rep.format, LD_IMPORT_URDF);
    assert_int_equal(rep.links, 5);
    assert_int_equal(rep.merged, 2); /* world and tool_frame */
    assert_int_equal(m.nbodies, 3);
    assert_int_equal(m.njoints, 3);
    assert_int_equal(m.joints[0].kind, LD_JOINT_FIXED);
    assert_int_equal(m.joints[0].body1, LD_GROUND);
    assert_int_equal(m.joints[1].kind, LD_JOINT_PRISMATIC);
    assert_int_equal(m.joints[1].line, 19);
    assert_int_equal(m.bodies[1].line, 27);
    assert_int_equal(m.elements[0].line, 25);
    assert_int_equal(m.nshapes, 3); /* the merged tool frame's sphere is the hand's */
    /* arm: the inertial turned 0.4 about z, the link 0.3: its centre at (0, 0, 0.2) +
     * Rz(0.3) (0.2, 0, 0.05) */
    const ld_body *arm = &m.bodies[1];
    double ex[3] = {0.2 * cos(0.3), 0.2 * sin(0.3), 0.25};
    assert_true(maxdiff(arm->x, ex, 3) < 1e-15);
    double c = cos(0.4), s = sin(0.4), Jxx = 0.01 * c * c - 2 * 0.001 * c * s + 0.04 * s * s;
    assert_true(fabs(arm->inertia[0] - Jxx) < 1e-15);
    int friction = 0, transmission = 0;
    for (int i = 0; i < rep.nwarn; ++i) {
        friction += strstr(rep.warn[i].msg, "friction 0.1") != NULL && rep.warn[i].line == 25;
        transmission += !strcmp(rep.warn[i].element, "transmission") && rep.warn[i].line == 61;
    }
    assert_int_equal(friction, 1);
    assert_int_equal(transmission, 1);
    ld_import_report_free(&rep);
    ld_model_free(&m);
}

static const char *write_tmp(const char *name, const char *text) {
    static char path[512];
    snprintf(path, sizeof path, "%s", name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* MuJoCo's inertia from geoms (density 1000): a sphere, a box, a cylinder and a capsule. */
static void test_mjcf_geom_inertia(void **state) {
    (void)state;
    const char *p = write_tmp("imp_geoms.xml",
                              "<mujoco><worldbody>\n"
                              "<body name='s'><freejoint/><geom type='sphere' size='0.1'/></body>\n"
                              "<body name='b' pos='1 0 0'><freejoint/><geom type='box' size='0.1 "
                              "0.2 0.3'/></body>\n"
                              "<body name='c' pos='2 0 0'><freejoint/><geom type='cylinder' "
                              "size='0.1 0.2'/></body>\n"
                              "<body name='k' pos='3 0 0'><freejoint/><geom type='capsule' "
                              "fromto='0 0 0 0 0 0.4' size='0.1'/></body>\n"
                              "</worldbody></mujoco>\n");
    ld_model m;
    load(p, &m);
    assert_int_equal(m.nbodies, 4);
    assert_int_equal(m.njoints, 0);
    const double r = 0.1, pi = PI;
    double ms = 1000 * 4.0 / 3 * pi * r * r * r;
    assert_true(fabs(m.bodies[0].mass - ms) < 1e-12);
    assert_true(fabs(m.bodies[0].inertia[0] - 0.4 * ms * r * r) < 1e-15);
    double mb = 1000 * 0.2 * 0.4 * 0.6;
    assert_true(fabs(m.bodies[1].mass - mb) < 1e-12);
    assert_true(fabs(m.bodies[1].inertia[0] - mb * (0.4 * 0.4 + 0.6 * 0.6) / 12) < 1e-14);
    double mc = 1000 * pi * r * r * 0.4;
    assert_true(fabs(m.bodies[2].mass - mc) < 1e-12);
    assert_true(fabs(m.bodies[2].inertia[0] - mc * (3 * r * r + 0.16) / 12) < 1e-14);
    assert_true(fabs(m.bodies[2].inertia[8] - mc * r * r / 2) < 1e-15);
    /* capsule: cylinder h = 0.4 and two half-spheres, its centre at (3, 0, 0.2) */
    double h = 0.4, vs = 4.0 / 3 * pi * r * r * r, vc = pi * r * r * h, mk = 1000 * (vs + vc);
    double msp = 1000 * vs, mcy = 1000 * vc;
    double Ixx = mcy * (3 * r * r + h * h) / 12 + msp * (0.4 * r * r + h * (3 * r + 2 * h) / 8);
    assert_true(fabs(m.bodies[3].mass - mk) < 1e-12);
    assert_true(fabs(m.bodies[3].inertia[0] - Ixx) < 1e-13);
    assert_true(fabs(m.bodies[3].x[2] - 0.2) < 1e-15);
    ld_model_free(&m);
    remove(p);
}

/* Has the report a warning at line whose text holds part? */
static int warned(const ld_import_report *rep, int line, const char *part) {
    for (int i = 0; i < rep->nwarn; ++i)
        if (rep->warn[i].line == line && strstr(rep->warn[i].msg, part)) return 1;
    return 0;
}

/* MJCF actuators on hinges and a slide: motor, position, velocity and the general forms of
 * those with gear, ctrlrange and forcerange (a default class's too); the others reported by
 * element and line. The force each applies checked at a state against MuJoCo's law. */
static void test_mjcf_actuators(void **state) {
    (void)state;
    const char *p = write_tmp(
        "imp_act.xml",
        "<mujoco><compiler angle='radian'/>\n"                                       /* 1 */
        "<default><motor ctrlrange='-2 2' ctrllimited='true'/></default>\n"          /* 2 */
        "<worldbody><body name='a' pos='0 0 1'>\n"                                   /* 3 */
        "<joint name='h1' type='hinge' axis='0 1 0'/>\n"                             /* 4 */
        "<geom type='sphere' size='0.1'/>\n"                                         /* 5 */
        "<body name='b' pos='0 0 -1'><joint name='s1' type='slide' axis='1 0 0'/>\n" /* 6 */
        "<geom type='sphere' size='0.1'/>\n"                                         /* 7 */
        "<body name='c' pos='0 0 -1'><joint name='h2' type='hinge' axis='0 0 1'/>\n" /* 8 */
        "<geom type='sphere' size='0.1'/></body></body></body></worldbody>\n"        /* 9 */
        "<actuator>\n"                                                               /* 10 */
        "<motor name='m1' joint='h1' gear='3' forcerange='-1 1'/>\n"                 /* 11 */
        "<position name='p1' joint='s1' kp='50' kv='4'/>\n"                          /* 12 */
        "<velocity name='v1' joint='h2' kv='7' ctrlrange='-1 1'/>\n"                 /* 13 */
        "<general name='g1' joint='h2' biastype='affine' gainprm='9' biasprm='0 -9 -2'/>\n"
        "<general name='g2' joint='h1' gainprm='2'/>\n" /* 15 */
        "<motor name='t1' tendon='x'/>\n"               /* 16 */
        "<muscle name='mu' joint='h1'/>\n"              /* 17 */
        "<motor name='f1' joint='nope'/>\n"             /* 18 */
        "</actuator></mujoco>\n");
    ld_model m;
    ld_model_error err;
    ld_import_report rep;
    int rc = ld_model_import(p, &m, &err, &rep);
    if (rc) fail_msg("%s", err.msg);
    for (int i = 0; i < rep.nwarn; ++i) printf("  %d: %s\n", rep.warn[i].line, rep.warn[i].msg);
    assert_true(warned(&rep, 15, "not imported"));
    assert_true(warned(&rep, 16, "tendon transmission not imported"));
    assert_true(warned(&rep, 17, "not imported"));
    assert_true(warned(&rep, 18, "no single hinge or slide named 'nope'"));
    /* four actuators in file order: m1, p1, v1, g1 */
    const char *names[4] = {"m1", "p1", "v1", "g1"};
    const int inputs[4] = {LD_ACT_CONTROL, LD_ACT_POSITION, LD_ACT_VELOCITY, LD_ACT_POSITION};
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    assert_int_equal(ld_sys_actuator_count(&s), 4);
    for (int i = 0; i < 4; ++i) {
        const ld_element *el = &m.elements[ld_sys_actuator_element(&s, i)];
        ld_act_view a;
        ld_act_view_get(el, &a);
        assert_string_equal(el->name, names[i]);
        assert_int_equal(a.input, inputs[i]);
        assert_int_equal(a.from_control, i > 0);
    }
    /* MuJoCo's laws at ctrl = 5 (clamped by ctrlrange where given; g1 at 2, within half a turn
     * of its hinge), at rest at q0: m1: clamp(ctrl to [−2, 2] (the default class), 2 →
     * forcerange [−1, 1]) = 1; p1: 50 (5 − 0) = 250 (no ctrlrange); v1: 7 (clamp(5, −1, 1) − 0)
     * = 7; g1: 9 · 2 = 18 */
    const double want[4] = {1.0, 250.0, 7.0, 18.0}, ctrl[4] = {5.0, 5.0, 5.0, 2.0};
    for (int i = 0; i < 4; ++i) {
        double f;
        assert_int_equal(ld_sys_set_control(&s, i, ctrl[i]), LD_OK);
        assert_int_equal(ld_sys_actuator_state(&s, i, 0.0, q0, v0, NULL, NULL, &f, NULL), LD_OK);
        if (fabs(f - want[i]) > 1e-12)
            fail_msg("actuator %s: force %g, expected %g", names[i], f, want[i]);
    }
    ld_act_view a;
    ld_act_view_get(&m.elements[ld_sys_actuator_element(&s, 0)], &a);
    assert_true(a.gear == 3.0);
    free(q0), free(v0);
    ld_model_system_free(&s);
    ld_import_report_free(&rep);
    ld_model_free(&m);
    remove(p);
}

/* Errors: one line each, with the file's line and the element. */
static void expect_error(const char *name, const char *text, int code, int line, const char *part) {
    const char *p = write_tmp(name, text);
    ld_model m;
    ld_model_error err;
    ld_import_report rep;
    int rc = ld_model_import(p, &m, &err, &rep);
    printf("  %s\n", err.msg);
    assert_int_equal(rc, code);
    assert_int_equal(err.line, line);
    assert_non_null(strstr(err.msg, part));
    ld_import_report_free(&rep);
    remove(p);
}

static void test_errors(void **state) {
    (void)state;
    expect_error("imp_e1.urdf", "this is not XML\n", LD_EINVAL, 1, "(syntax)");
    expect_error("imp_e2.urdf",
                 "<robot name='r'>\n<link name='a'><inertial><mass value='1'/><inertia ixx='1' "
                 "iyy='1' izz='1'/></inertial></link>\n<link name='b'/>\n<joint name='j' "
                 "type='planar'>\n<parent link='a'/><child link='b'/></joint>\n</robot>\n",
                 LD_ENOTSUPPORTED, 4, "planar joint is not supported");
    expect_error("imp_e3.urdf",
                 "<robot name='r'>\n<link name='a'/>\n<joint name='j' type='revolute'>\n<parent "
                 "link='a'/>\n<child link='nope'/></joint>\n</robot>\n",
                 LD_EINVAL, 5, "no link named 'nope'");
    expect_error("imp_e4.urdf",
                 "<robot name='r'>\n<link name='a'/>\n<link name='b'/>\n<joint name='j' "
                 "type='revolute'>\n<parent link='a'/><child link='b'/></joint>\n</robot>\n",
                 LD_EINVAL, 4, "has no mass but moves on the revolute joint 'j'");
    expect_error("imp_e5.xml",
                 "<mujoco>\n<worldbody>\n<body><joint type='screw'/></body>\n"
                 "</worldbody></mujoco>\n",
                 LD_EINVAL, 3, "unknown type 'screw'");
    expect_error("imp_e6.xml", "<mujoco><compiler coordinate='global'/></mujoco>\n",
                 LD_ENOTSUPPORTED, 1, "coordinate");
    expect_error("imp_e7.xml", "<notmujoco/>\n", LD_EINVAL, 1, "expected <robot> (URDF)");
    /* a physical check of the reader, pointed at the file's line */
    expect_error("imp_e8.urdf",
                 "<robot name='r'>\n<link name='a'>\n<inertial><mass value='1'/>\n<inertia "
                 "ixx='1' iyy='1' izz='-1'/></inertial></link>\n</robot>\n",
                 LD_EINVAL, 2, "positive definite");
}

/* The packages' robots (dart-doc, libmujoco-samples) when installed: each imports, compiles
 * and runs 20 steps; the broken test files give one message each. */
typedef struct robot {
    const char *path;
    int bodies, joints;
} robot;

static int have(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

static void test_packages(void **state) {
    (void)state;
    const char *D = "/usr/share/doc/dart/data/", *J = "/usr/share/mujoco/model/";
    char p[512];
    const robot robots[] = {{"urdf/wam/wam.urdf", 8, 8},
                            {"sdf/atlas/atlas_v3_no_head.urdf", 31, 30},
                            {"urdf/drchubo/drchubo.urdf", 52, 51},
                            {"humanoid/humanoid.xml", 18, 17},
                            {"tendon_arm/arm26.xml", 2, 2}};
    int ran = 0;
    for (int i = 0; i < 5; ++i) {
        snprintf(p, sizeof p, "%s%s", i < 3 ? D : J, robots[i].path);
        if (!have(p)) {
            printf("skipped %s: not installed (apt-get install dart-doc libmujoco-samples)\n", p);
            continue;
        }
        ld_model m;
        ld_model_error err;
        ld_import_report rep;
        int rc = ld_model_import(p, &m, &err, &rep);
        if (rc) printf("%s\n", err.msg);
        assert_int_equal(rc, LD_OK);
        printf("%s: %d bodies, %d joints, %d warnings, parse %.2f ms, translation %.2f ms\n",
               robots[i].path, m.nbodies, m.njoints, rep.nwarn, 1e3 * rep.parse_seconds,
               1e3 * rep.translate_seconds);
        assert_int_equal(m.nbodies, robots[i].bodies);
        assert_int_equal(m.njoints, robots[i].joints);
        double *q, *v;
        int nq, nv;
        run(&m, 20 * m.run.dt, &q, &v, &nq, &nv);
        free(q), free(v);
        ld_import_report_free(&rep);
        ld_model_free(&m);
        ++ran;
    }
    const char *broken[] = {"invalid.urdf", "missing_mesh.urdf", "missing_package.urdf"};
    for (int i = 0; i < 3; ++i) {
        snprintf(p, sizeof p, "%surdf/test/%s", D, broken[i]);
        if (!have(p)) continue;
        ld_model m;
        ld_model_error err;
        assert_int_equal(ld_model_import(p, &m, &err, NULL), LD_EINVAL);
        assert_null(strchr(err.msg, '\n'));
        printf("%s\n", err.msg);
    }
    if (!ran) skip();
}

/* Two hinges at one point: one universal joint by default; with chain_joints two revolute
 * joints and an auxiliary body, each hinge with its own damper (no axis: the hinge's). */
static void test_chain_joints(void **state) {
    (void)state;
    const char *p =
        write_tmp("imp_chain.xml", "<mujoco><worldbody><body name='a' pos='0 0 1'>\n"
                                   "<joint name='j1' axis='1 0 0' damping='0.5'/>\n"
                                   "<joint name='j2' axis='0 1 0' damping='0.25' stiffness='2'/>\n"
                                   "<geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.05'/>\n"
                                   "</body></worldbody></mujoco>\n");
    ld_model m;
    load(p, &m);
    assert_int_equal(m.nbodies, 1);
    assert_int_equal(m.njoints, 1);
    assert_int_equal(m.joints[0].kind, LD_JOINT_UNIVERSAL);
    ld_model_free(&m);
    ld_import_options o;
    ld_import_options_init(&o);
    o.chain_joints = 1;
    ld_model_error err;
    ld_import_report rep;
    assert_int_equal(ld_model_import_opt(p, &o, &m, &err, &rep), LD_OK);
    assert_int_equal(rep.auxiliary, 1);
    assert_int_equal(m.nbodies, 2);
    assert_int_equal(m.njoints, 2);
    assert_int_equal(m.nelements, 2);
    assert_true(ld_model_body_find(&m, "a/j1") >= 0);
    for (int j = 0; j < 2; ++j) {
        assert_int_equal(m.joints[j].kind, LD_JOINT_REVOLUTE);
        assert_true(fabs(m.elements[j].par[1] - (j ? 0.25 : 0.5)) < 1e-15);   /* c */
        for (int i = 2; i < 5; ++i) assert_true(m.elements[j].par[i] == 0.0); /* no axis */
    }
    assert_true(fabs(m.elements[1].par[0] - 2.0) < 1e-15); /* k */
    ld_import_report_free(&rep);
    ld_model_free(&m);
    remove(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pendulum_three_ways),
        cmocka_unit_test(test_mass_matrix_by_hand),
        cmocka_unit_test(test_convert_round_trip),
        cmocka_unit_test(test_two_link),
        cmocka_unit_test(test_mjcf_geom_inertia),
        cmocka_unit_test(test_chain_joints),
        cmocka_unit_test(test_mjcf_actuators),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_packages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

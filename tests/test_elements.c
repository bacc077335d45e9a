/*
 * Force elements (src/elements/elements.c and el_*.c, docs/elements.md): for every entry of the
 * element registry, in every variant below and every formulation, the analytic tangents ∂g/∂q
 * and ∂g/∂v against central differences on the group, the force against the gradient of the
 * energy (g = ∂V/∂q at rest) and a non-negative dissipated power; then exact solutions: a mass
 * on a spring-damper (the damped oscillator in closed form) at the orders of genalpha and hem5,
 * an undamped spring's energy, and a hinge's torsional spring at the frequency √(k/J).
 * The fused model pass gives the separate callbacks' values bit for bit for every case.
 * The YAML form of the elements is in test_elements_yaml.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "../src/elements/actuator.h"
#include "../src/elements/element.h"
#include "../src/elements/elements.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* ---------------------------------------------------------------- models built in code */

typedef struct em {
    ld_model m;
    ld_body b[2];
    ld_element e[1];
    ld_joint j[1];
} em;

static const double JA[9] = {2.0, 0.1, 0.0, 0.1, 3.0, 0.2, 0.0, 0.2, 4.0};
static const double JB[9] = {1.0, 0.0, 0.05, 0.0, 1.5, 0.0, 0.05, 0.0, 0.7};
static const double XA[3] = {0.3, -0.2, 1.1}, QA[4] = {0.8, 0.2, -0.4, 0.4};
static const double XB[3] = {1.0, 0.6, 0.4}, QB[4] = {0.7, -0.1, 0.5, 0.5};

static void body(ld_body *b, const char *name, double mass, const double J[9], const double x[3],
                 const double q[4]) {
    memset(b, 0, sizeof *b);
    strcpy(b->name, name);
    b->mass = mass;
    memcpy(b->inertia, J, sizeof b->inertia);
    memcpy(b->x, x, sizeof b->x);
    assert_int_equal(ld_quat_normalize(b->q, q), LD_OK);
}

static void em_init(em *w) {
    memset(w, 0, sizeof *w);
    ld_model_init(&w->m);
    strcpy(w->m.name, "elements");
    w->m.bodies = w->b;
    w->m.elements = w->e;
    w->m.joints = w->j;
    body(&w->b[0], "a", 2.5, JA, XA, QA);
    body(&w->b[1], "b", 1.5, JB, XB, QB);
    w->m.nbodies = 2;
}

/* ---------------------------------------------------------------- the variants */

/* spring-damper: at1, at2, k, c, l0, f0, curve */
static double sd_lin[10] = {0.5, 0.1, 1.2, 1.1, 0.3, 0.2, 50.0, 3.0, 0.9, 2.0};
static double sd_curve[18] = {0.5,  0.1, 1.2,   1.1, 0.3, 0.2, 0.0,  1.5, 0.9,
                              -1.0, 0.5, -10.0, 1.0, 0.0, 1.5, 30.0, 2.5, 50.0};

/* rotational-spring-damper: k, c, axis (unit; zero: every direction) */
static double rs_iso[5] = {20.0, 2.0, 0.0, 0.0, 0.0};
static double rs_axis[5] = {20.0, 1.5, 0.43643578047198476, 0.87287156094396952,
                            -0.21821789023599238};
/* and with a rest angle φ₀ = 0.7 rad */
static double rs_rest[6] = {
    20.0, 1.5, 0.43643578047198476, 0.87287156094396952, -0.21821789023599238, 0.7};
/* bushing: at, orientation, K, C (filled by fill_bushings) */
static double bu_diag[79], bu_full[79];

static void fill_bushings(void) {
    const double at[3] = {0.6, 0.2, 0.8}, q[4] = {0.5, 0.5, -0.5, 0.5};
    const double kd[6] = {30, 40, 50, 200, 300, 400}, cd[6] = {1, 2, 3, 4, 5, 6};
    memset(bu_diag, 0, sizeof bu_diag);
    memcpy(bu_diag, at, sizeof at);
    memcpy(bu_diag + 3, q, sizeof q);
    for (int i = 0; i < 6; ++i) bu_diag[7 + 7 * i] = kd[i], bu_diag[43 + 7 * i] = cd[i];
    memcpy(bu_full, bu_diag, sizeof bu_full);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < i; ++j) {
            double kk = 5.0 + i - 2.0 * j, cc = 0.3 * (i + j) - 0.5;
            bu_full[7 + 6 * i + j] = bu_full[7 + 6 * j + i] = kk;
            bu_full[43 + 6 * i + j] = bu_full[43 + 6 * j + i] = cc;
        }
}

/* A user force: f2 = −K (x2 − x1) − c (ẋ2 − ẋ1), f1 = −f2; τ2 = κ (R2 b) × s − μ R2 Ω2. */
static const double UF_K = 7.0, UF_C = 0.6, UF_KAP = 3.0, UF_MU = 0.4;
static const double UF_B[3] = {0.3, -0.5, 0.8}, UF_S[3] = {1.0, 0.2, -0.4};

static int uf_force(double t, const ld_body_motion b[2], double w[12], void *user) {
    (void)t;
    (void)user;
    double Rb[3], Rw[3];
    ld_so3_act(Rb, b[1].R, UF_B);
    ld_so3_act(Rw, b[1].R, b[1].omega);
    for (int i = 0; i < 3; ++i) {
        double f = -UF_K * (b[1].x[i] - b[0].x[i]) - UF_C * (b[1].xdot[i] - b[0].xdot[i]);
        w[6 + i] = f, w[i] = -f, w[3 + i] = 0.0;
    }
    double c[3] = {Rb[1] * UF_S[2] - Rb[2] * UF_S[1], Rb[2] * UF_S[0] - Rb[0] * UF_S[2],
                   Rb[0] * UF_S[1] - Rb[1] * UF_S[0]};
    for (int i = 0; i < 3; ++i) w[9 + i] = UF_KAP * c[i] - UF_MU * Rw[i];
    return LD_OK;
}

static void mat3_mul(double C[9], const double A[9], const double B[9]) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            C[3 * i + j] = 0.0;
            for (int l = 0; l < 3; ++l) C[3 * i + j] += A[3 * i + l] * B[3 * l + j];
        }
}

static int uf_tangent(double t, const ld_body_motion b[2], double Wq[144], double Wv[144],
                      void *user) {
    (void)t;
    (void)user;
    memset(Wq, 0, 144 * sizeof(double));
    memset(Wv, 0, 144 * sizeof(double));
    for (int i = 0; i < 3; ++i) {
        /* f2 rows 6..8, f1 rows 0..2; x1 columns 3..5, x2 columns 9..11 */
        Wq[12 * (6 + i) + 9 + i] = -UF_K, Wq[12 * (6 + i) + 3 + i] = UF_K;
        Wq[12 * i + 9 + i] = UF_K, Wq[12 * i + 3 + i] = -UF_K;
        Wv[12 * (6 + i) + 9 + i] = -UF_C, Wv[12 * (6 + i) + 3 + i] = UF_C;
        Wv[12 * i + 9 + i] = UF_C, Wv[12 * i + 3 + i] = -UF_C;
    }
    double Hs[9], Hb[9], Hw[9], A[9], B[9], C[9];
    ld_so3_hat(Hs, UF_S);
    ld_so3_hat(Hb, UF_B);
    ld_so3_hat(Hw, b[1].omega);
    mat3_mul(A, b[1].R, Hb);
    mat3_mul(B, Hs, A); /* κ hat(s) R2 hat(b) */
    mat3_mul(C, b[1].R, Hw);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            Wq[12 * (9 + i) + 6 + j] = UF_KAP * B[3 * i + j] + UF_MU * C[3 * i + j];
            Wv[12 * (9 + i) + 6 + j] = -UF_MU * b[1].R[3 * i + j];
        }
    return LD_OK;
}

/* Actuators (packed by fill_actuators): a position servo with a sine reference on a revolute
 * joint, a velocity servo on a prismatic joint with gear 2, a table force, a saturated servo. */
static double *act_pos, *act_vel, *act_tab, *act_sat;
static int nact_pos, nact_vel, nact_tab, nact_sat;
static const double ACT_AXIS[3] = {0.26726124191242440, 0.53452248382484879, 0.80178372573727319};

static void fill_actuators(void) {
    if (act_pos) return;
    static double tt[3] = {0.0, 0.5, 1.5}, tf[3] = {-1.0, 2.0, 0.5};
    ld_actuator_spec a;
    ld_actuator_spec_init(&a);
    a.input = LD_ACT_POSITION, a.kp = 30.0, a.kv = 4.0, a.value = 0.8;
    a.fn.kind = LD_TFN_SINE, a.fn.period = 2.0, a.fn.t0 = 0.1;
    assert_int_equal(ld_act_pack(0, &a, &act_pos, &nact_pos), LD_OK);
    ld_actuator_spec_init(&a);
    a.input = LD_ACT_VELOCITY, a.kv = 5.0, a.value = 0.3, a.gear = 2.0;
    assert_int_equal(ld_act_pack(0, &a, &act_vel, &nact_vel), LD_OK);
    ld_actuator_spec_init(&a);
    a.input = LD_ACT_FORCE, a.value = 3.0, a.gear = -1.5;
    a.fn.kind = LD_TFN_TABLE, a.fn.ntab = 3, a.fn.tab_t = tt, a.fn.tab_f = tf;
    assert_int_equal(ld_act_pack(0, &a, &act_tab, &nact_tab), LD_OK);
    ld_actuator_spec_init(&a);
    a.input = LD_ACT_POSITION, a.kp = 300.0, a.kv = 1.0, a.value = 2.0;
    a.force_limits[0] = -0.5, a.force_limits[1] = 0.25;
    assert_int_equal(ld_act_pack(0, &a, &act_sat, &nact_sat), LD_OK);
}

typedef struct el_case {
    const char *type; /* the registry's name */
    const char *variant;
    double *par;
    int npar;
    int conservative;              /* g = ∂V/∂q at rest */
    ld_user_force_tangent_fn tang; /* user-force */
} el_case;

static const el_case cases[] = {
    {"spring-damper", "linear, preload", sd_lin, 10, 1, NULL},
    {"spring-damper", "curve", sd_curve, 18, 1, NULL},
    {"rotational-spring-damper", "every direction", rs_iso, 5, 1, NULL},
    {"rotational-spring-damper", "hinge axis", rs_axis, 5, 1, NULL},
    {"rotational-spring-damper", "hinge axis, rest angle", rs_rest, 6, 1, NULL},
    {"bushing", "diagonal", bu_diag, 79, 1, NULL},
    {"bushing", "full matrices", bu_full, 79, 1, NULL},
    {"user-force", "analytic tangent", NULL, 0, 0, uf_tangent},
    {"user-force", "differences", NULL, 0, 0, NULL},
    {"actuator", "position servo, revolute", NULL, 1, 0, NULL},
    {"actuator", "velocity servo, prismatic", NULL, 2, 0, NULL},
    {"actuator", "table force, revolute", NULL, 3, 0, NULL},
    {"actuator", "saturated servo, prismatic", NULL, 4, 0, NULL},
};
#define NCASES (sizeof cases / sizeof *cases)

/* The element of case cs between bodies b1 and b2 (b1 may be the ground). */
static void add_case(em *w, const el_case *cs, int b1, int b2) {
    ld_element *el = &w->e[w->m.nelements++];
    memset(el, 0, sizeof *el);
    strcpy(el->name, cs->variant);
    el->type = ld_element_type_find(cs->type);
    assert_true(el->type >= 0);
    el->body1 = b1;
    el->body2 = b2;
    el->par = cs->par;
    el->npar = cs->npar;
    if (strcmp(cs->type, "user-force") == 0) {
        el->fn = uf_force;
        el->tangent = cs->tang;
    }
    if (strcmp(cs->type, "actuator") == 0) { /* its joint: joints[0] between the bodies */
        fill_actuators();
        double *const pars[4] = {act_pos, act_vel, act_tab, act_sat};
        const int npars[4] = {nact_pos, nact_vel, nact_tab, nact_sat};
        ld_joint *j = &w->j[0];
        memset(j, 0, sizeof *j);
        strcpy(j->name, "j");
        j->kind = cs->npar % 2 ? LD_JOINT_REVOLUTE : LD_JOINT_PRISMATIC;
        j->body1 = b1, j->body2 = b2;
        const double at[3] = {0.6, 0.1, 0.9};
        memcpy(j->at, at, sizeof at);
        memcpy(j->axis, ACT_AXIS, sizeof ACT_AXIS);
        w->m.njoints = 1;
        el->par = pars[cs->npar - 1];
        el->npar = npars[cs->npar - 1];
    }
}

/* ---------------------------------------------------------------- the registry */

static void test_registry(void **state) {
    (void)state;
    int n = ld_element_type_count();
    assert_true(n >= 1);
    for (int t = 0; t < n; ++t) {
        const ld_el_type *ty = ld_el_type_get(t);
        assert_non_null(ty);
        assert_non_null(ty->name);
        assert_non_null(ty->summary);
        assert_non_null(ty->keys);
        assert_non_null(ty->eval);
        assert_true(ty->bodies == 2 || ty->bodies == 0);
        assert_int_equal(ld_element_type_find(ty->name), t);
        assert_string_equal(ld_element_type_name(t), ty->name);
        int covered = 0; /* every entry has a variant below */
        for (size_t c = 0; c < NCASES; ++c) covered |= strcmp(cases[c].type, ty->name) == 0;
        if (!covered) fail_msg("element type '%s' has no case in test_elements.c", ty->name);
    }
    assert_null(ld_el_type_get(n));
    assert_null(ld_el_type_get(-1));
    assert_string_equal(ld_element_type_name(n), "");
    assert_int_equal(ld_element_type_find("no-such-element"), -1);
    assert_int_equal(ld_element_type_find(NULL), -1);
}

/* ---------------------------------------------------------------- tangents and energy */

/* max |A − B| / max(1, max |B|) */
static double rel_diff(const double *A, const double *B, size_t n) {
    double d = 0.0, s = 1.0;
    for (size_t i = 0; i < n; ++i) {
        d = fmax(d, fabs(A[i] - B[i]));
        s = fmax(s, fabs(B[i]));
    }
    return d / s;
}

typedef struct errs {
    double kq, kv, grad, power;
} errs;

/* The element's energy at q ∘ exp(ε d). */
static double energy_at(const ld_system *s, const double *q, const double *d, double eps,
                        double *qs, double *xi) {
    for (int i = 0; i < s->k; ++i) xi[i] = eps * d[i];
    ld_sys_retract(s, qs, q, xi);
    double e = NAN;
    (void)ld_elems_energy_of(s, &ld_ek_force, 0.7, qs, NULL, &e);
    return e;
}

/* The fused model pass (ops.eval_newton: g, ∂g/∂v and K from one evaluation of each element)
 * gives the separate callbacks' values bit for bit, asked for together and each alone. */
static void fused_equals_separate(const ld_system *s, double t, const double *q, const double *v,
                                  const double *a, const double *lam) {
    size_t k = (size_t)s->k, n[3] = {k, k * k, k * k};
    double *buf = calloc(4 * (k + 2 * k * k), sizeof(double));
    assert_non_null(buf);
    double *sep[3] = {buf, buf + k, buf + k + k * k}, *all[3], *one[3];
    for (int i = 0; i < 3; ++i)
        all[i] = sep[i] + (k + 2 * k * k), one[i] = all[i] + (k + 2 * k * k);
    assert_int_equal(s->ops.force(s, t, q, v, sep[0]), LD_OK);
    assert_int_equal(s->ops.g_v(s, t, q, v, sep[1]), LD_OK);
    assert_int_equal(s->ops.stiffness(s, t, q, v, a, lam, sep[2]), LD_OK);
    ld_newton_eval e = {.t = t, .q = q, .v = v, .a = a, .lambda = lam};
    e.g = all[0], e.C = all[1], e.K = all[2];
    assert_int_equal(s->ops.eval_newton(s, &e), LD_OK);
    for (int i = 0; i < 3; ++i) {
        ld_newton_eval x = {.t = t, .q = q, .v = v, .a = a, .lambda = lam};
        *(i == 0 ? &x.g : i == 1 ? &x.C : &x.K) = one[i];
        assert_int_equal(s->ops.eval_newton(s, &x), LD_OK);
        static const char *const what[3] = {"g", "dg/dv", "K"};
        if (memcmp(all[i], sep[i], n[i] * sizeof(double)) != 0)
            fail_msg("the fused pass's %s differs from the separate callback's", what[i]);
        if (memcmp(one[i], sep[i], n[i] * sizeof(double)) != 0)
            fail_msg("the fused pass's %s alone differs from the separate callback's", what[i]);
    }
    free(buf);
}

/* Tangents, gradient and power of the model's one element in formulation f. */
static errs check_case(const em *w, ld_formulation f, uint64_t seed) {
    ld_system s;
    double *q0, *v0;
    char msg[256];
    errs r = {0, 0, 0, 0};
    int rc = ld_model_compile_msg(&w->m, f, &s, &q0, &v0, msg, sizeof msg);
    if (rc) fail_msg("%s: %s", ld_formulation_name(f), msg);
    size_t k = (size_t)s.k, mm = (size_t)s.m;
    double *buf = calloc(2 * (size_t)s.nq + 5 * k + mm + 2 * k * k, sizeof(double));
    assert_non_null(buf);
    double *q = buf, *qs = q + s.nq, *v = qs + s.nq, *a = v + k, *xi = a + k, *g = xi + k;
    double *zero = g + k, *lam = zero + k, *KA = lam + mm, *KF = KA + k * k;
    rng gen = rng_seed(seed);
    for (size_t i = 0; i < k; ++i) {
        xi[i] = rng_range(&gen, -0.6, 0.6);
        v[i] = v0[i] + rng_range(&gen, -1.0, 1.0);
        a[i] = rng_range(&gen, -2.0, 2.0);
    }
    for (size_t i = 0; i < mm; ++i) lam[i] = rng_range(&gen, -5.0, 5.0);
    ld_sys_retract(&s, q, q0, xi);
    const double t = 0.7;
    assert_int_equal(s.ops.stiffness(&s, t, q, v, a, lam, KA), LD_OK);
    assert_int_equal(ld_sys_stiffness_fd(&s, t, q, v, a, lam, KF), LD_OK);
    r.kq = rel_diff(KA, KF, k * k);
    assert_int_equal(s.ops.g_v(&s, t, q, v, KA), LD_OK);
    assert_int_equal(ld_sys_g_v_fd(&s, t, q, v, KF), LD_OK);
    r.kv = rel_diff(KA, KF, k * k);
    fused_equals_separate(&s, t, q, v, a, lam);
    /* at rest the element's force is the gradient of its energy */
    assert_int_equal(ld_elems_add_force_of(&s, &ld_ek_force, t, q, zero, g), LD_OK);
    const double h = 1e-5;
    double gmax = 0.0, scale = 1.0;
    for (size_t j = 0; j < k; ++j) {
        double d[64] = {0};
        d[j] = 1.0;
        double dv = (energy_at(&s, q, d, h, qs, xi) - energy_at(&s, q, d, -h, qs, xi)) / (2 * h);
        gmax = fmax(gmax, fabs(dv - g[j]));
        scale = fmax(scale, fabs(g[j]));
    }
    r.grad = gmax / scale;
    /* power: vᵀ g(q, v) ≥ dV/dt (the dissipation is ≥ 0) */
    memset(g, 0, k * sizeof(double));
    memset(a, 0, k * sizeof(double));
    assert_int_equal(ld_elems_add_force_of(&s, &ld_ek_force, t, q, v, g), LD_OK);
    assert_int_equal(ld_elems_add_force_of(&s, &ld_ek_force, t, q, zero, a),
                     LD_OK); /* a: the elastic part */
    double pw = 0.0, pel = 0.0, dVdt;
    for (size_t j = 0; j < k; ++j) pw += v[j] * (g[j] - a[j]), pel += v[j] * a[j];
    dVdt = (energy_at(&s, q, v, h, qs, xi) - energy_at(&s, q, v, -h, qs, xi)) / (2 * h);
    r.power = fabs(dVdt - pel) / fmax(1.0, fabs(pel));
    if (pw < -1e-9) fail_msg("%s: the damping part feeds power %g", ld_formulation_name(f), -pw);
    free(buf);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return r;
}

static void test_tangents(void **state) {
    (void)state;
    fill_bushings();
    const int pairs[3][2] = {{0, 1}, {LD_GROUND, 1}, {1, 0}};
    for (size_t c = 0; c < NCASES; ++c) {
        errs big = {0, 0, 0, 0};
        for (int p = 0; p < 3; ++p)
            for (int f = 0; f < LD_FORM_COUNT; ++f) {
                em w;
                em_init(&w);
                add_case(&w, &cases[c], pairs[p][0], pairs[p][1]);
                errs e = check_case(&w, (ld_formulation)f, 17 + (uint64_t)(3 * p + f));
                const char *fn = ld_formulation_name((ld_formulation)f);
                if (!(e.kq < 1e-7))
                    fail_msg("%s (%s), bodies %d-%d, %s: dg/dq differs from differences by %.3e",
                             cases[c].type, cases[c].variant, pairs[p][0], pairs[p][1], fn, e.kq);
                if (!(e.kv < 1e-7))
                    fail_msg("%s (%s), bodies %d-%d, %s: dg/dv differs from differences by %.3e",
                             cases[c].type, cases[c].variant, pairs[p][0], pairs[p][1], fn, e.kv);
                if (cases[c].conservative && !(e.grad < 1e-7 && e.power < 1e-7))
                    fail_msg("%s (%s), bodies %d-%d, %s: g - dV/dq %.3e, power %.3e", cases[c].type,
                             cases[c].variant, pairs[p][0], pairs[p][1], fn, e.grad, e.power);
                big.kq = fmax(big.kq, e.kq), big.kv = fmax(big.kv, e.kv);
                if (cases[c].conservative)
                    big.grad = fmax(big.grad, e.grad), big.power = fmax(big.power, e.power);
            }
        print_message("%-26s %-18s dg/dq %.1e  dg/dv %.1e  g-dV/dq %.1e  power %.1e\n",
                      cases[c].type, cases[c].variant, big.kq, big.kv, big.grad, big.power);
    }
    free(act_pos), free(act_vel), free(act_tab), free(act_sat);
    act_pos = act_vel = act_tab = act_sat = NULL;
}

/* ---------------------------------------------------------------- exact solutions */

/* A mass m on a spring-damper (k, c, l0) to the ground along x: x(t) = l − l0 of
 * m ẍ + c ẋ + k x = 0 from x(0) = X0, ẋ(0) = V0 (underdamped). */
static const double OSC_M = 2.0, OSC_K = 50.0, OSC_L0 = 1.0, OSC_X0 = 0.5, OSC_V0 = 0.3;

static double osc_exact(double c, double t) {
    double w = sqrt(OSC_K / OSC_M), z = c / (2.0 * sqrt(OSC_K * OSC_M)), wd = w * sqrt(1 - z * z);
    double B = (OSC_V0 + z * w * OSC_X0) / wd;
    return exp(-z * w * t) * (OSC_X0 * cos(wd * t) + B * sin(wd * t));
}

static double osc_par[10];

static void osc_model(em *w, double c) {
    const double J[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, x[3] = {OSC_L0 + OSC_X0, 0, 0};
    const double q[4] = {1, 0, 0, 0};
    memset(w, 0, sizeof *w);
    ld_model_init(&w->m);
    w->m.bodies = w->b;
    w->m.elements = w->e;
    body(&w->b[0], "mass", OSC_M, J, x, q);
    w->b[0].v[0] = OSC_V0, w->b[0].has_v = 1;
    w->m.nbodies = 1;
    const double par[10] = {0, 0, 0, OSC_L0 + OSC_X0, 0, 0, OSC_K, c, OSC_L0, 0};
    memcpy(osc_par, par, sizeof par);
    const el_case cs = {"spring-damper", "oscillator", osc_par, 10, 1, NULL};
    add_case(w, &cs, LD_GROUND, 0);
}

typedef struct run_out {
    double x, e0, emax; /* x(t1) − l0, the energy at 0, the largest |E(t) − E(0)| */
} run_out;

/* Integrate the model with method from 0 to t1 in n steps of formulation f. */
static run_out integrate(const ld_model *m, ld_formulation f, ld_integ_method meth, double t1,
                         long n) {
    ld_system s;
    double *q0, *v0, xb[3], qb[4], om[3], xd[3], e;
    run_out r = {0, 0, 0};
    assert_int_equal(ld_model_compile(m, f, &s, &q0, &v0), LD_OK);
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = meth;
    o.rho_inf = 0.9;
    int st = 0;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    assert_non_null(it);
    assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
    assert_int_equal(s.ops.energy(&s, 0.0, q0, v0, &r.e0), LD_OK);
    for (long i = 0; i < n; ++i) {
        int rc = ld_integ_step(it, t1 / (double)n);
        if (rc) fail_msg("%s: step %ld: %s", ld_formulation_name(f), i, ld_integ_message(it));
        assert_int_equal(s.ops.energy(&s, 0.0, ld_integ_q(it), ld_integ_v(it), &e), LD_OK);
        r.emax = fmax(r.emax, fabs(e - r.e0));
    }
    assert_int_equal(ld_model_body_state(&s, 0, ld_integ_q(it), ld_integ_v(it), xb, qb, om, xd),
                     LD_OK);
    r.x = xb[0] - OSC_L0;
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return r;
}

/* The damped oscillator at the orders of genalpha (2) and hem5 (5), every formulation. */
static void test_oscillator_orders(void **state) {
    (void)state;
    const double c = 0.8, t1 = 1.0;
    struct {
        ld_integ_method m;
        long n0;
        double order;
    } runs[2] = {{LD_INTEG_GENALPHA, 100, 2.0}, {LD_INTEG_HEM5, 80, 5.0}};
    em w;
    osc_model(&w, c);
    for (int k = 0; k < 2; ++k)
        for (int f = 0; f < LD_FORM_COUNT; ++f) {
            if (runs[k].m == LD_INTEG_HEM5 && f == LD_FORM_EULER) continue; /* Lie groups only */
            double err[3];
            for (int l = 0; l < 3; ++l) {
                run_out r = integrate(&w.m, (ld_formulation)f, runs[k].m, t1, runs[k].n0 << l);
                err[l] = fabs(r.x - osc_exact(c, t1));
            }
            double p = log2(err[1] / err[2]);
            print_message("%-8s %-7s errors %.3e %.3e %.3e  observed order %.2f\n",
                          ld_integ_method_name(runs[k].m), ld_formulation_name((ld_formulation)f),
                          err[0], err[1], err[2], p);
            if (!(fabs(p - runs[k].order) < 0.3))
                fail_msg("%s, %s: observed order %.2f", ld_integ_method_name(runs[k].m),
                         ld_formulation_name((ld_formulation)f), p);
        }
}

/* An undamped spring keeps the energy: Newmark exactly for this linear oscillator (round-off),
 * genalpha and hem5 to their accuracy over 20 periods. */
static void test_spring_energy(void **state) {
    (void)state;
    em w;
    osc_model(&w, 0.0);
    const double t1 = 20.0 * 2.0 * PI / sqrt(OSC_K / OSC_M);
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        run_out a = integrate(&w.m, (ld_formulation)f, LD_INTEG_NEWMARK, t1, 2000);
        run_out b = integrate(&w.m, (ld_formulation)f, LD_INTEG_GENALPHA, t1, 2000);
        double hem = 0.0;
        if (f != LD_FORM_EULER)
            hem = integrate(&w.m, (ld_formulation)f, LD_INTEG_HEM5, t1, 2000).emax;
        char hb[16] = "-"; /* hem5: Lie groups only */
        if (f != LD_FORM_EULER) snprintf(hb, sizeof hb, "%.1e", hem / a.e0);
        print_message("%-7s energy drift / E0 over 20 periods: newmark %.1e, genalpha %.1e, "
                      "hem5 %s\n",
                      ld_formulation_name((ld_formulation)f), a.emax / a.e0, b.emax / b.e0, hb);
        assert_true(a.emax / a.e0 < 1e-10);
        assert_true(b.emax / b.e0 < 2e-2);
        assert_true(hem / a.e0 < 1e-6);
    }
}

/* A spring whose points meet has no direction: the force asks for a smaller step. */
static void test_spring_zero_length(void **state) {
    (void)state;
    em w;
    osc_model(&w, 0.8);
    ld_system s;
    double *q0, *v0, g[6], K[36];
    assert_int_equal(ld_model_compile(&w.m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    q0[9] = 0.0; /* the mass's centre on the ground point */
    assert_int_equal(s.ops.force(&s, 0.0, q0, v0, g), LD_RETRY);
    assert_int_equal(s.ops.g_v(&s, 0.0, q0, v0, K), LD_RETRY);
    assert_int_equal(s.ops.stiffness(&s, 0.0, q0, v0, v0, NULL, K), LD_RETRY);
    q0[9] = 1e-300; /* tiny but not zero: a direction */
    assert_int_equal(s.ops.force(&s, 0.0, q0, v0, g), LD_OK);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* The oscillator's spring and damper as a user force on the mass (body2; body1 the ground):
 * f = −k (x − l0) − c ẋ along x, with and without its tangent; a status > 0 from the callback
 * rejects the step and leaves the state as it was. */
static int osc_fail_after = 0; /* steps after which the callback asks for a retry (0: never) */
static int osc_calls = 0;

static int osc_force(double t, const ld_body_motion b[2], double w[12], void *user) {
    (void)t;
    const double c = *(const double *)user;
    if (osc_fail_after && ++osc_calls > osc_fail_after) return 1;
    memset(w, 0, 12 * sizeof(double));
    w[6] = -OSC_K * (b[1].x[0] - OSC_L0) - c * b[1].xdot[0];
    return LD_OK;
}

static int osc_tangent(double t, const ld_body_motion b[2], double Wq[144], double Wv[144],
                       void *user) {
    (void)t, (void)b;
    memset(Wq, 0, 144 * sizeof(double));
    memset(Wv, 0, 144 * sizeof(double));
    Wq[12 * 6 + 9] = -OSC_K;
    Wv[12 * 6 + 9] = -*(const double *)user;
    return LD_OK;
}

static void test_user_force_oscillator(void **state) {
    (void)state;
    const double J[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, x[3] = {OSC_L0 + OSC_X0, 0, 0};
    const double q[4] = {1, 0, 0, 0};
    double c = 0.8;
    for (int tg = 0; tg < 2; ++tg) {
        ld_model m;
        ld_model_init(&m);
        ld_body b;
        body(&b, "mass", OSC_M, J, x, q);
        b.v[0] = OSC_V0, b.has_v = 1;
        m.bodies = &b;
        m.nbodies = 1;
        assert_int_equal(ld_model_add_user_force(&m, "spring", LD_GROUND, 0, osc_force,
                                                 tg ? osc_tangent : NULL, &c),
                         LD_OK);
        for (int f = 0; f < LD_FORM_COUNT; ++f) {
            run_out r = integrate(&m, (ld_formulation)f, LD_INTEG_GENALPHA, 1.0, 400);
            double e = fabs(r.x - osc_exact(c, 1.0));
            if (!(e < 2.7e-5))
                fail_msg("user force (%s), %s: error %.3e", tg ? "tangent" : "differences",
                         ld_formulation_name((ld_formulation)f), e);
        }
        /* a retry requested by the callback: rejected, state untouched */
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
        ld_integ_options o;
        ld_integ_options_init(&o);
        int st = 0;
        ld_integ *it = ld_integ_create(&s, &o, &st);
        assert_non_null(it);
        assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
        osc_calls = 0, osc_fail_after = 1;
        assert_true(ld_integ_step(it, 1e-2) > 0);
        assert_true(ld_integ_t(it) == 0.0);
        assert_memory_equal(ld_integ_q(it), q0, (size_t)s.nq * sizeof(double));
        osc_fail_after = 0;
        assert_int_equal(ld_integ_step(it, 1e-2), LD_OK);
        ld_integ_free(it);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
        m.bodies = NULL, m.nbodies = 0; /* not the model's */
        ld_model_free(&m);
    }
}

/* A coupling that switches on at t = 0.05: f = −k (x₂ − x₁ − 1) along x between two free
 * bodies, with its exact tangent (zero before the switch, so the first iteration matrix has
 * no coupling block). */
#define SW_T 0.05
static int switch_force(double t, const ld_body_motion b[2], double w[12], void *user) {
    (void)user;
    double k = t >= SW_T ? 50.0 : 0.0, f = -k * (b[1].x[0] - b[0].x[0] - 1.0);
    memset(w, 0, 12 * sizeof(double));
    w[0] = -f, w[6] = f;
    return LD_OK;
}

static int switch_tangent(double t, const ld_body_motion b[2], double Wq[144], double Wv[144],
                          void *user) {
    (void)b, (void)user;
    double k = t >= SW_T ? 50.0 : 0.0;
    memset(Wq, 0, 144 * sizeof(double));
    memset(Wv, 0, 144 * sizeof(double));
    Wq[12 * 0 + 3] = -k, Wq[12 * 0 + 9] = k; /* ∂w₁/∂(δx₁, δx₂) */
    Wq[12 * 6 + 3] = k, Wq[12 * 6 + 9] = -k;
    return LD_OK;
}

/* The sparse iteration matrix keeps the blocks of force-coupled bodies even where the tangent
 * vanishes when its pattern is fixed (ld_system.pair): KLU then follows the dense solver's
 * Newton iterations exactly. */
static void test_sparse_pattern_keeps_element_couplings(void **state) {
    (void)state;
    const double J[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[4] = {1, 0, 0, 0};
    const double x1[3] = {0, 0, 0}, x2[3] = {1.2, 0, 0};
    ld_body b[2];
    body(&b[0], "a", 1.0, J, x1, q);
    body(&b[1], "b", 2.0, J, x2, q);
    b[0].has_v = b[1].has_v = 1;
    ld_model m;
    ld_model_init(&m);
    m.bodies = b;
    m.nbodies = 2;
    assert_int_equal(
        ld_model_add_user_force(&m, "switch", 0, 1, switch_force, switch_tangent, NULL), LD_OK);
    ld_system s;
    double *q0, *v0;
    assert_int_equal(ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0), LD_OK);
    assert_int_equal(s.npairs, 1);
    long iters[2];
    double xb[2];
    for (int la = 0; la < 2; ++la) {
        ld_integ_options o;
        ld_integ_options_init(&o);
        o.la = la ? LD_LA_KLU : LD_LA_DENSE;
        ld_integ *it = ld_integ_create(&s, &o, NULL);
        assert_non_null(it);
        assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
        for (int i = 1; i <= 50; ++i) assert_int_equal(ld_integ_advance_to(it, 0.004 * i), LD_OK);
        ld_integ_stats st;
        ld_integ_get_stats(it, &st);
        iters[la] = st.newton_iterations;
        xb[la] = ld_integ_q(it)[s.nodes[1].qoff + 9];
        ld_integ_free(it);
    }
    assert_int_equal(iters[0], iters[1]);
    assert_true(fabs(xb[0] - xb[1]) < 1e-12);
    assert_true(xb[0] < 1.2 - 1e-3); /* the spring acted */
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    m.bodies = NULL, m.nbodies = 0;
    ld_model_free(&m);
}

/* A body (J_zz = 2) on a hinge about z with a rotational spring-damper about the hinge's axis
 * (and, with axis 0, in every direction: the hinge leaves only θ = φ e_z): J φ̈ + c φ̇ + k φ = 0,
 * φ(0) = 0, φ̇(0) = ω0, so φ(t) = (ω0/ω_d) e^(−ζΩt) sin(ω_d t) with Ω = √(k/J). */
static void test_torsional_pendulum(void **state) {
    (void)state;
    const double J[9] = {0.5, 0, 0, 0, 0.5, 0, 0, 0, 2.0}, x[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0};
    const double k = 8.0, c = 0.4, w0 = 1.0, t1 = 2.0, h = 1e-3;
    double par[2][5] = {{k, c, 0, 0, 1}, {k, c, 0, 0, 0}};
    double W = sqrt(k / J[8]), z = c / (2.0 * sqrt(k * J[8])), wd = W * sqrt(1 - z * z);
    for (int v = 0; v < 2; ++v)
        for (int f = 0; f < LD_FORM_COUNT; ++f) {
            em w;
            memset(&w, 0, sizeof w);
            ld_model_init(&w.m);
            w.m.bodies = w.b, w.m.elements = w.e, w.m.joints = w.j;
            body(&w.b[0], "disc", 3.0, J, x, q);
            w.b[0].omega[2] = w0;
            w.m.nbodies = 1;
            ld_joint *jt = &w.j[w.m.njoints++];
            jt->kind = LD_JOINT_REVOLUTE, jt->body1 = LD_GROUND, jt->body2 = 0, jt->axis[2] = 1.0;
            const el_case cs = {"rotational-spring-damper", "hinge", par[v], 5, 1, NULL};
            add_case(&w, &cs, LD_GROUND, 0);
            ld_system s;
            double *q0, *v0, xb[3], qb[4], om[3], xd[3], emax = 0.0;
            assert_int_equal(ld_model_compile(&w.m, (ld_formulation)f, &s, &q0, &v0), LD_OK);
            ld_integ_options o;
            ld_integ_options_init(&o);
            int st = 0;
            ld_integ *it = ld_integ_create(&s, &o, &st);
            assert_non_null(it);
            assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
            for (long i = 1; i <= lround(t1 / h); ++i) {
                assert_int_equal(ld_integ_step(it, h), LD_OK);
                assert_int_equal(
                    ld_model_body_state(&s, 0, ld_integ_q(it), ld_integ_v(it), xb, qb, om, xd),
                    LD_OK);
                double t = (double)i * h, phi = 2.0 * atan2(qb[3], qb[0]);
                emax = fmax(emax, fabs(phi - w0 / wd * exp(-z * W * t) * sin(wd * t)));
            }
            print_message("torsional pendulum (%s), %-7s genalpha h = 1e-3: max angle error "
                          "%.2e rad (amplitude %.2f)\n",
                          v ? "every direction" : "hinge axis",
                          ld_formulation_name((ld_formulation)f), emax, w0 / wd);
            assert_true(emax < 2e-6);
            ld_integ_free(it);
            free(q0);
            free(v0);
            ld_model_system_free(&s);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_tangents),
        cmocka_unit_test(test_oscillator_orders),
        cmocka_unit_test(test_spring_energy),
        cmocka_unit_test(test_torsional_pendulum),
        cmocka_unit_test(test_user_force_oscillator),
        cmocka_unit_test(test_sparse_pattern_keeps_element_couplings),
        cmocka_unit_test(test_spring_zero_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The compiler of the rigid-body models: a model (bodies, joints, Cosserat rods whose nodes are
 * bodies, force elements, loads, gravity) into a system (system.h) in one of seven formulations.
 * One node per body; everything that acts on the nodes is an element instance (element.h: bodies,
 * joints, rod segments, force elements, unit norms), and the system's operations are the loops
 * of elem_eval.c over them. Here: the node kinds, the initial state and its checks, and the
 * accessors of a compiled system (body state, joint reactions, exact rotations). The Lie
 * formulations also give M by blocks and B in a sparse pattern built from the elements. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "../elements/element.h"
#include "../lie/ep.h"
#include "../model/exact.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"
#include "compile.h"
#include "tree.h"
#include "../core/oom.h"

static const rb_sys *RB(const ld_system *s) {
    return ld_rb(s);
}

/* ---------------------------------------------------------------- compiling */

/* The loads by body (load_start, load_list: counting sort, in the order of the model), so
 * that evaluating them costs O(bodies + loads), not O(bodies · loads). */
static int index_loads(rb_sys *rb) {
    const ld_model *m = rb->m;
    rb->load_start = ld_xcalloc((size_t)m->nbodies + 1, sizeof *rb->load_start, "the loads' index");
    rb->load_list = ld_xmalloc((size_t)(m->nloads > 0 ? m->nloads : 1) * sizeof *rb->load_list,
                               "the loads' index");
    if (!rb->load_start || !rb->load_list) return LD_ENOMEM;
    for (int l = 0; l < m->nloads; ++l)
        if (m->loads[l].body >= 0 && m->loads[l].body < m->nbodies)
            rb->load_start[m->loads[l].body + 1]++;
    for (int b = 0; b < m->nbodies; ++b) rb->load_start[b + 1] += rb->load_start[b];
    int *fill = ld_xmalloc((size_t)m->nbodies * sizeof *fill, "the loads' index");
    if (!fill) return LD_ENOMEM;
    memcpy(fill, rb->load_start, (size_t)m->nbodies * sizeof *fill);
    for (int l = 0; l < m->nloads; ++l)
        if (m->loads[l].body >= 0 && m->loads[l].body < m->nbodies)
            rb->load_list[fill[m->loads[l].body]++] = l;
    free(fill);
    return LD_OK;
}

static ld_node_kind node_kind(ld_formulation f) {
    switch (f) {
    case LD_FORM_SE3:
        return LD_NODE_SE3;
    case LD_FORM_S3XR3:
        return LD_NODE_S3XR3;
    case LD_FORM_S3SDR3:
        return LD_NODE_S3SDR3;
    case LD_FORM_EULER:
        return LD_NODE_R3E4;
    case LD_FORM_SO3XR3_SPATIAL:
        return LD_NODE_SO3XR3_SPATIAL;
    case LD_FORM_S3XR3_SPATIAL:
        return LD_NODE_S3XR3_SPATIAL;
    default:
        return LD_NODE_SO3XR3;
    }
}

/* The node of body b in formulation f: the formulation's group, or for a pinned body its
 * rotations only (SO(3) or S³) or, turning about an axis, its angle (R¹). */
static ld_node node_of(ld_formulation f, const ld_body *b) {
    int quat = f == LD_FORM_S3XR3 || f == LD_FORM_S3SDR3;
    if (b->pin == LD_PIN_AXIS) return (ld_node){LD_NODE_RN, 1, 0, 0};
    if (b->pin) return (ld_node){quat ? LD_NODE_S3 : LD_NODE_SO3, 0, 0, 0};
    return (ld_node){node_kind(f), 0, 0, 0};
}

/* The initial state of body i from the model: configuration, Ω, and ẋ where given (else 0;
 * the joints complete it). */
static void initial_body(const ld_system *s, const ld_body *b, int i, double *q, double *v) {
    double *g = q + s->nodes[i].qoff, *vi = v + s->nodes[i].voff, R[9], qn[4];
    (void)ld_quat_normalize(qn, b->q);
    ld_quat_to_mat(R, qn);
    if (b->pin == LD_PIN_AXIS) { /* θ = 0, θ̇ = a · Ω */
        g[0] = 0.0;
        vi[0] = ld_v3_dot(b->pin_axis, b->omega);
        return;
    }
    if (b->pin) {
        if (RB(s)->quat)
            memcpy(g, qn, sizeof qn);
        else
            memcpy(g, R, sizeof R);
        memcpy(vi, b->omega, 3 * sizeof(double));
        return;
    }
    if (RB(s)->euler) {
        memcpy(g, b->x, 3 * sizeof(double));
        memcpy(g + 3, qn, sizeof qn);
        if (b->has_v) memcpy(vi, b->v, 3 * sizeof(double));
        ld_ep_Ltmul(vi + 3, qn, b->omega); /* ė = ½ Lᵀ Ω */
        for (int j = 0; j < 4; ++j) vi[3 + j] *= 0.5;
        return;
    }
    if (RB(s)->quat) {
        memcpy(g, qn, sizeof qn);
        memcpy(g + 4, b->x, 3 * sizeof(double));
    } else {
        memcpy(g, R, sizeof R);
        memcpy(g + 9, b->x, 3 * sizeof(double));
    }
    memcpy(vi, b->omega, 3 * sizeof(double));
    if (!b->has_v) return;
    if (RB(s)->semi)
        ld_m3_tmulv(vi + 3, R, b->v);
    else
        memcpy(vi + 3, b->v, 3 * sizeof(double));
}

/* The model's size for the closure check: its largest body coordinate, at least 1 m. */
static double model_size(const ld_model *m) {
    double sc = 1.0;
    for (int i = 0; i < m->nbodies; ++i)
        for (int j = 0; j < 3; ++j) sc = fmax(sc, fabs(m->bodies[i].x[j]));
    return sc;
}

/* Largest joint-closure violation at the initial state, relative to the model's size; the
 * joint at fault in *jbad. */
static double closure_error(const ld_system *s, const double *q, double t, double *Phi, int *jbad) {
    const ld_model *m = RB(s)->m;
    double worst = 0.0;
    if (ld_jsys_phi(RB(s)->J, s, t, q, Phi)) return INFINITY;
    *jbad = -1;
    for (int j = 0; j < m->njoints; ++j) {
        int r0, nr = ld_jsys_joint_rows(RB(s)->J, j, &r0);
        for (int r = r0; r < r0 + nr; ++r)
            if (!(fabs(Phi[r]) <= worst)) {
                worst = fabs(Phi[r]);
                *jbad = j;
            }
    }
    return worst / model_size(m);
}

/* The rows of joint kind k that measure a distance (m): the separation d of the joint point's
 * copies (3 rows) or its part off the axis (2); the others compare axes (cosines, no unit). */
static int distance_rows(const ld_joint *jt) {
    switch (jt->kind) {
    case LD_JOINT_CYLINDRICAL:
    case LD_JOINT_PRISMATIC:
        return 2;
    case LD_JOINT_DRIVER:
        return jt->motion == LD_MOTION_TRANSLATION;
    default:
        return 3;
    }
}

/* "joint J ('name') is not closed at the start: the joint point's two copies are 1 m apart
 * (must be 0; the check allows 1e-9 times the model's size 2 m; joints[J] at line L)": what is
 * off, by how much and in which unit, from the joint's rows Phi (r0, nr of them). */
static void not_closed(const ld_model *m, int j, const double *Phi, int r0, int nr, char *msg,
                       size_t n) {
    const ld_joint *jt = &m->joints[j];
    int nd = distance_rows(jt);
    double dist = 0.0, ang = 0.0;
    for (int r = 0; r < nr; ++r) {
        if (r < nd)
            dist = hypot(dist, Phi[r0 + r]);
        else
            ang = fmax(ang, fabs(Phi[r0 + r]));
    }
    char what[160], where[64] = "";
    if (jt->kind == LD_JOINT_DRIVER)
        snprintf(what, sizeof what,
                 "the driven %s is off by %.3g %s (its value at t_start must be 0)",
                 jt->motion == LD_MOTION_TRANSLATION ? "slide" : "angle",
                 jt->motion == LD_MOTION_TRANSLATION ? dist : asin(fmin(1.0, ang)),
                 jt->motion == LD_MOTION_TRANSLATION ? "m" : "rad");
    else if (dist >= ang)
        snprintf(what, sizeof what, "the joint point's two copies are %.3g m apart%s", dist,
                 nd == 2 ? " across the axis" : "");
    else
        snprintf(what, sizeof what,
                 "its axes are out of line (a cosine of %.3g between directions that must be "
                 "perpendicular)",
                 ang);
    if (jt->line > 0) snprintf(where, sizeof where, "; joints[%d] at line %d", j, jt->line);
    snprintf(msg, n,
             "joint %d ('%s') is not closed at the start: %s; the start must close it to 1e-9 "
             "times the model's size %.3g m%s",
             j, jt->name, what, model_size(m), where);
}

/* The rods' nodes are bodies of the model, and the formulation is one of the Lie groups. */
static int check_rods(const ld_model *m, ld_formulation f, char *msg, size_t n) {
    if (m->nrods < 0 || (m->nrods > 0 && !m->rods)) return LD_EINVAL;
    if (m->nbeams > 0 && f == LD_FORM_EULER) {
        if (msg)
            snprintf(msg, n,
                     "beams need a Lie-group formulation (so3xr3, se3, s3xr3, s3sdr3, "
                     "so3xr3-spatial or s3xr3-spatial); the "
                     "euler formulation does not support them");
        return LD_ENOTSUPPORTED;
    }
    if (m->nrods > 0 && f == LD_FORM_EULER) {
        if (msg)
            snprintf(
                msg, n,
                "rods need a Lie-group formulation (so3xr3, se3, s3xr3, s3sdr3, "
                "so3xr3-spatial or s3xr3-spatial); the euler formulation does not support them");
        return LD_ENOTSUPPORTED;
    }
    for (int r = 0; r < m->nrods; ++r) {
        const ld_rod *rod = &m->rods[r];
        if (rod->n >= 1 && rod->body0 >= 0 && rod->body0 <= m->nbodies - 1 - rod->n &&
            rod->length > 0.0)
            continue;
        if (msg)
            snprintf(msg, n,
                     "rod %d ('%s'): its nodes must be bodies of the model and its "
                     "length positive",
                     r, rod->name);
        return LD_EINVAL;
    }
    return LD_OK;
}

/* Pinned bodies: Lie formulations only, no joints on them, not a rod's node (the joints' and
 * rods' evaluators address a body's position). */
static int check_pins(const ld_model *m, ld_formulation f, char *msg, size_t n) {
    for (int i = 0; i < m->nbodies; ++i) {
        const ld_body *b = &m->bodies[i];
        if (!b->pin) continue;
        const char *why = NULL;
        if (f == LD_FORM_EULER)
            why = "needs a Lie-group formulation (so3xr3, se3, s3xr3 or s3sdr3); the euler "
                  "formulation does not support pinned nodes";
        else if (f == LD_FORM_SO3XR3_SPATIAL || f == LD_FORM_S3XR3_SPATIAL)
            why = "is pinned: pinned nodes carry body-frame velocities; use so3xr3, se3, s3xr3 or "
                  "s3sdr3 (the spatial formulations do not support pinned nodes)";
        for (int j = 0; !why && j < m->njoints; ++j)
            if (m->joints[j].body1 == i || m->joints[j].body2 == i)
                why = "is pinned (its position eliminated): a joint cannot hold it too; clamp or "
                      "leave the end free and use the joint";
        for (int r = 0; !why && r < m->nrods; ++r)
            if (i >= m->rods[r].body0 && i <= m->rods[r].body0 + m->rods[r].n)
                why = "is a rod's node: rods cannot pin their nodes";
        if (!why) continue;
        if (msg) snprintf(msg, n, "body %d ('%s') %s", i, b->name, why);
        return f == LD_FORM_EULER || f == LD_FORM_SO3XR3_SPATIAL || f == LD_FORM_S3XR3_SPATIAL
                   ? LD_ENOTSUPPORTED
                   : LD_EINVAL;
    }
    return LD_OK;
}

/* ld_model_validate on the model's content, so that a model built in code is checked like a
 * file's; the run block, of which compiling uses t_start only, is checked with the defaults. */
static int validate_content(const ld_model *m, char *msg, size_t n) {
    ld_model c;
    ld_model_init(&c);
    ld_run_spec run = c.run;
    c = *m;
    c.run = run;
    c.run.t_start = m->run.t_start;
    c.run.t_end = m->run.t_start + fmax(1.0, fabs(m->run.t_start));
    ld_model_error e = {0};
    int rc = ld_model_validate(&c, &e);
    if (rc && msg && n) snprintf(msg, n, "%s", e.msg);
    return rc;
}

/* Leave out the joints' rows that depend on the others at the start (redundancy.c). */
static int drop_redundant(ld_system *s, double t, const double *q, char *msg, size_t n) {
    unsigned char *drop = ld_xmalloc((size_t)s->m, "the redundant rows");
    int nd = 0, rc = drop ? ld_rb_redundancy(s, t, q, drop, &nd, msg, n) : LD_ENOMEM;
    if (!rc && nd > 0) rc = ld_elems_drop(s, drop);
    if (!rc) ((rb_sys *)s->user)->njrows -= nd;
    free(drop);
    return rc;
}

/* Compile, with a one-line reason in msg when the model's initial state is inconsistent or the
 * formulation cannot hold it. */
static int compile(const ld_model *m, ld_formulation f, ld_system *s, double **q0, double **v0,
                   int raw, char *msg, size_t n) {
    if (msg && n) msg[0] = '\0';
    if (!m || !s || !q0 || !v0 || f < 0 || f >= LD_FORM_ALL || m->nbodies < 1 ||
        (m->njoints > 0 && !m->joints) || !m->bodies)
        return LD_EINVAL;
    int rc = validate_content(m, msg, n);
    if (!rc && f == LD_FORM_TREE) return raw ? LD_EINVAL : ld_tree_compile(m, s, q0, v0, msg, n);
    if (!rc) rc = check_rods(m, f, msg, n);
    if (!rc) rc = check_pins(m, f, msg, n);
    if (rc) return rc;
    memset(s, 0, sizeof *s);
    rb_sys *rb = ld_xcalloc(1, sizeof *rb, "the system");
    ld_node *nodes = ld_xcalloc((size_t)m->nbodies, sizeof *nodes, "the system's nodes");
    rc = rb && nodes ? LD_OK : LD_ENOMEM;
    if (rc) {
        free(rb);
        free(nodes);
        return rc;
    }
    rb->m = m;
    rb->left = f == LD_FORM_SO3XR3_SPATIAL || f == LD_FORM_S3XR3_SPATIAL;
    rb->f = f == LD_FORM_SO3XR3_SPATIAL  ? LD_FORM_SO3XR3
            : f == LD_FORM_S3XR3_SPATIAL ? LD_FORM_S3XR3
                                         : f;
    rb->semi = f == LD_FORM_SE3 || f == LD_FORM_S3SDR3;
    rb->quat = rb->f == LD_FORM_S3XR3 || f == LD_FORM_S3SDR3;
    rb->euler = f == LD_FORM_EULER;
    for (int i = 0; i < m->nbodies; ++i) nodes[i] = node_of(f, &m->bodies[i]);
    s->nnodes = m->nbodies;
    s->nodes = nodes;
    s->user = rb;
    s->ops = (ld_system_ops){.mass = ld_elems_mass,
                             .force = ld_elems_force,
                             .phi = ld_elems_phi,
                             .phi_q = ld_elems_phi_q,
                             .g_v = ld_elems_g_v,
                             .stiffness = ld_elems_stiffness,
                             .phi_dd = ld_elems_phi_dd,
                             .energy = ld_elems_energy,
                             .mass_blocks = rb->euler ? NULL : ld_elems_mass_blocks,
                             .phi_q_sparse = rb->euler ? NULL : ld_elems_phi_q_sparse,
                             .tangent_blocks = rb->euler ? NULL : ld_elems_tangent_blocks,
                             .forget = ld_el_user_forget,
                             .phi_t = ld_elems_phi_t,
                             .eval_newton = ld_elems_eval_newton};
    rc = index_loads(rb);
    if (!rc) rc = ld_jsys_create(m, rb->f, &rb->J, msg, n);
    if (!rc) {
        rb->njrows = ld_jsys_rows(rb->J);
        rb->nkrows = ld_rod_rows(m);
        rc = ld_sys_layout(s);
    }
    if (!rc && m->nelements > 0 &&
        !(rb->ctrl = ld_xcalloc((size_t)m->nelements, sizeof *rb->ctrl, "the controllers")))
        rc = LD_ENOMEM;
    if (!rc) rc = ld_elems_build(s, &rb->E, &s->m, msg, n);
    if (!rc && s->m != rb->njrows + rb->nkrows + (rb->euler ? m->nbodies : 0)) rc = LD_EINVAL;
    if (!rc && !rb->euler) rc = ld_elems_pattern(s);
    if (!rc) s->mass_const = ld_elems_mass_const(s);
    if (!rc) rc = ld_sys_alloc_work(s);
    double *q = rc ? NULL : ld_xcalloc((size_t)s->nq, sizeof(double), "the initial positions");
    double *v = rc ? NULL : ld_xcalloc((size_t)s->k, sizeof(double), "the initial velocities");
    if (!rc && (!q || !v)) rc = LD_ENOMEM;
    for (int i = 0; !rc && i < m->nbodies; ++i) initial_body(s, &m->bodies[i], i, q, v);
    if (!rc && !raw) {
        int jbad = -1;
        double err = closure_error(s, q, m->run.t_start, s->work, &jbad);
        if (err > 1e-9) {
            rc = LD_EINVAL;
            int r0 = 0, nr = jbad >= 0 ? ld_jsys_joint_rows(rb->J, jbad, &r0) : 0;
            if (msg && jbad >= 0) not_closed(m, jbad, s->work, r0, nr, msg, n);
        }
    }
    if (!rc && !raw) rc = ld_rb_initial_velocity(m, rb->J, s, q, v, msg, n);
    if (!rc && !raw && rb->nkrows > 0) rc = ld_rod_check_initial(s, q, v, msg, n);
    if (!rc && !raw && rb->njrows > 0 && !m->keep_redundant)
        rc = drop_redundant(s, m->run.t_start, q, msg, n);
    for (int i = 0; !rc && rb->left && i < m->nbodies; ++i) /* Ω → ω = RΩ */
        ld_rb_velocity_frame(s, q, i, v + s->nodes[i].voff, v + s->nodes[i].voff, 1);
    if (!rc && !raw) rc = ld_sys_probe_pattern(s, m->run.t_start, q, v);
    if (rc) {
        free(q);
        free(v);
        ld_model_system_free(s);
        return rc;
    }
    *q0 = q;
    *v0 = v;
    return LD_OK;
}

int ld_rb_compile_raw(const ld_model *m, ld_system *s, double **q0, char *msg, size_t n) {
    double *v0 = NULL;
    int rc = compile(m, LD_FORM_SO3XR3, s, q0, &v0, 1, msg, n);
    free(v0);
    return rc;
}

int ld_model_compile(const ld_model *m, ld_formulation f, ld_system *s, double **q0, double **v0) {
    return compile(m, f, s, q0, v0, 0, NULL, 0);
}

int ld_model_compile_msg(const ld_model *m, ld_formulation f, ld_system *s, double **q0,
                         double **v0, char *msg, size_t n) {
    int rc = compile(m, f, s, q0, v0, 0, msg, n);
    if (rc == LD_ENOMEM && msg && n && !strstr(msg, "out of memory: ")) ld_oom_last(msg, n);
    if (rc != LD_OK && msg && n && !msg[0]) snprintf(msg, n, "%s", ld_strerror(rc));
    return rc;
}

int ld_model_check_initial(const ld_model *m, char *msg, size_t n) {
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    int rc = compile(m, LD_FORM_SO3XR3, &s, &q0, &v0, 0, msg, n);
    if (rc == LD_OK) {
        if (msg && n) msg[0] = '\0';
    } else if (rc == LD_ENOMEM) {
        if (msg && n && !strstr(msg, "out of memory: ")) ld_oom_last(msg, n);
    } else if (msg && n && !msg[0]) {
        snprintf(msg, n, "the model cannot be compiled");
    }
    if (rc == LD_OK) {
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    return rc;
}

void ld_model_system_free(ld_system *s) {
    if (!s) return;
    ld_sys_free_work(s);
    free(s->nodes);
    ld_elems_free_pattern(s);
    if (s->user) {
        ld_jsys_free(((rb_sys *)s->user)->J);
        ld_elems_free(&((rb_sys *)s->user)->E);
        free(((rb_sys *)s->user)->load_start);
        free(((rb_sys *)s->user)->load_list);
        free(((rb_sys *)s->user)->ctrl);
        ld_tree_free(((rb_sys *)s->user)->tree);
    }
    free(s->user);
    s->nodes = NULL;
    s->user = NULL;
}

int ld_model_body_state(const ld_system *s, int body, const double *q, const double *v, double x[3],
                        double quat[4], double omega[3], double xdot[3]) {
    if (!s || !s->user || body < 0 || body >= RB(s)->m->nbodies) return LD_EINVAL;
    if (RB(s)->tree) {
        ld_tree_body_state(s, body, q, v, x, quat, omega, xdot);
        return LD_OK;
    }
    if (body >= s->nnodes) return LD_EINVAL;
    const double *g = q + s->nodes[body].qoff, *xp;
    double R[9];
    ld_rb_pose(s, q, body, R, &xp);
    if (RB(s)->m->bodies[body].pin == LD_PIN_AXIS) {
        ld_quat_from_mat(quat, R);
    } else if (RB(s)->euler) {
        if (ld_quat_normalize(quat, g + 3)) return LD_EDOMAIN;
    } else if (RB(s)->quat) {
        (void)ld_quat_normalize(quat, g);
    } else {
        ld_quat_from_mat(quat, R);
    }
    memcpy(x, xp, 3 * sizeof(double));
    double vb[7];
    ld_rb_velocity_frame(s, q, body, v + s->nodes[body].voff, vb, 0);
    ld_rb_body_velocity(s, q, vb, body, omega, xdot);
    return LD_OK;
}

int ld_model_body_accel(const ld_system *s, int body, const double *q, const double *v,
                        const double *vdot, double dw[3], double a[3]) {
    if (!s || !s->user || !q || !v || !vdot || body < 0 || body >= s->nnodes) return LD_EINVAL;
    double vb[7], ab[7];
    const double *vi = v + s->nodes[body].voff, *ai = vdot + s->nodes[body].voff;
    ld_rb_velocity_frame(s, q, body, vi, vb, 0);
    ld_rb_velocity_frame(s, q, body, ai, ab, 0); /* ω̇ → Rᵀω̇ = Ω̇ (spatial formulations) */
    ld_rb_body_accel(s, q, vb, ab, body, dw, a);
    return LD_OK;
}

int ld_model_joint_reaction(const ld_system *s, int joint, const double *q, const double *lambda,
                            double f[3], double tau[3]) {
    if (!s || !s->user || !q || !lambda || joint < 0 || joint >= RB(s)->m->njoints)
        return LD_EINVAL;
    if (RB(s)->tree) { /* no multipliers in joint coordinates */
        for (int i = 0; i < 3; ++i) f[i] = tau[i] = NAN;
        return LD_OK;
    }
    const ld_elems *E = &RB(s)->E;
    const ld_elem *e = NULL;
    for (int i = 0; i < E->n && !e; ++i)
        if (E->e[i].kind == &ld_ek_joint && E->e[i].item == joint) e = &E->e[i];
    if (!e || e->nrows > 6) return LD_EINVAL;
    double lj[6] = {0};
    for (int kr = 0; kr < e->nkeep; ++kr) lj[ld_elem_kept_row(e, kr)] = lambda[e->row0 + kr];
    return ld_jsys_reaction(RB(s)->J, s, joint, q, lj, f, tau);
}

int ld_model_joint_reaction_at(const ld_system *s, int joint, double t, const double *q,
                               const double *v, const double *lambda, double f[3], double tau[3]) {
    if (!s || !s->user || !q || !v || joint < 0 || joint >= RB(s)->m->njoints) return LD_EINVAL;
    if (RB(s)->tree) return ld_tree_reaction(s, joint, t, q, v, f, tau);
    return ld_model_joint_reaction(s, joint, q, lambda, f, tau);
}

int ld_model_exact_rotation(const ld_model *m, int body, double t, double quat[4]) {
    for (int l = 0; m && l < m->nloads; ++l) {
        const ld_load *ld = &m->loads[l];
        if (ld->body == body && ld->kind == LD_LOAD_EXACT_TORQUE && ld->exact != LD_EXACT_NONE) {
            double Om[3], Omd[3];
            ld_exact_eval(ld->exact, t, quat, Om, Omd);
            return LD_OK;
        }
    }
    return LD_ENOTSUPPORTED;
}

int ld_model_redundant_rows(const ld_system *s, int *joint, int *row, int cap) {
    if (!s || !s->user) return 0;
    const ld_elems *E = &RB(s)->E;
    int cnt = 0;
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        for (int r = 0; e->drop && r < e->nrows; ++r) {
            if (!(e->drop >> r & 1u)) continue;
            if (joint && row && cnt < cap) joint[cnt] = e->item, row[cnt] = r;
            ++cnt;
        }
    }
    return cnt;
}

double ld_model_joint_phi_max(const ld_system *s, double t, const double *q, int *joint) {
    if (joint) *joint = -1;
    if (!s || !s->user || !q) return NAN;
    if (RB(s)->tree) return 0.0; /* the joints hold by construction */
    const ld_jsys *J = RB(s)->J;
    int rows = ld_jsys_rows(J), nj = RB(s)->m->njoints;
    if (rows == 0) return 0.0;
    double *Phi = ld_xmalloc((size_t)rows * sizeof *Phi, "the constraint residuals"), worst = 0.0;
    if (!Phi || ld_jsys_phi(J, s, t, q, Phi)) {
        free(Phi);
        return NAN;
    }
    for (int j = 0; j < nj && !isnan(worst); ++j) {
        int r0, nr = ld_jsys_joint_rows(J, j, &r0);
        for (int r = r0; r < r0 + nr; ++r) {
            if (isnan(Phi[r])) worst = NAN;
            if (!(fabs(Phi[r]) > worst)) continue;
            if (joint) *joint = j;
            worst = fabs(Phi[r]);
        }
    }
    free(Phi);
    return worst;
}

/*
 * Compiling a model in the tree formulation (tree.h, docs/tree.md): the joints' tree from the
 * ground, the links (bodies joined by fixed joints combined), the joint spring-dampers, the
 * initial rates, and the refusals of what the formulation does not hold — each naming the
 * joint, body, element or feature.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oom.h"
#include "../elements/kinds.h"
#include "../lie/mat3.h"
#include "liedyn/coords.h"
#include "liedyn/liedyn.h"
#include "tree.h"

void ld_tree_free(ld_tree *T) {
    if (!T) return;
    free(T->par);
    free(T->u0);
    free(T->carrier);
    free(T->spring);
    free(T->I);
    free(T->react);
    free(T);
}

/* The model's features the formulation does not hold: LD_ENOTSUPPORTED with the reason. */
static int refuse_features(const ld_model *m, char *msg, size_t n) {
    const char *what = m->nrods > 0    ? "rods"
                       : m->nbeams > 0 ? "beams"
                       : m->nloads > 0 ? "loads (forces and torques on bodies)"
                       : m->plane.on   ? "contact (a ground plane)"
                                       : NULL;
    for (int i = 0; !what && i < m->nshapes; ++i)
        if (m->shapes[i].collide) what = "contact (colliding shapes)";
    for (int b = 0; !what && b < m->nbodies; ++b)
        if (m->bodies[b].pin) what = "pinned bodies";
    if (!what) return LD_OK;
    snprintf(msg, n,
             "the tree formulation does not hold %s: use a maximal-coordinate formulation "
             "(so3xr3)",
             what);
    return LD_ENOTSUPPORTED;
}

/* ", line L" or "" (line 0: built in code). */
static const char *at_line(char *buf, size_t cap, int line) {
    buf[0] = '\0';
    if (line > 0) snprintf(buf, cap, ", line %d", line);
    return buf;
}

static int refuse_joint(const ld_model *m, int j, const char *why, char *msg, size_t n) {
    const ld_joint *jt = &m->joints[j];
    char w[32];
    snprintf(msg, n, "the tree formulation cannot hold joint %d ('%s', %s%s): %s", j, jt->name,
             ld_joint_kind_name(jt->kind), at_line(w, sizeof w, jt->line), why);
    return LD_ENOTSUPPORTED;
}

/* Allocate the arrays for n links and nb bodies (one block per kind). */
static int alloc_tree(ld_tree *T, int n, int nb, int nj, int nel) {
    size_t N = (size_t)(n > 0 ? n : 1);
    T->n = n;
    T->par = ld_xcalloc(6 * N, sizeof(int), "the tree's links");
    T->u0 = ld_xcalloc(76 * N + N * N, sizeof(double), "the tree's links");
    T->carrier = ld_xmalloc(4 * (size_t)nb * sizeof(int), "the tree's bodies");
    T->react = ld_xcalloc(6 * (size_t)(nj > 0 ? nj : 1) + 12 * (size_t)nb, sizeof(double),
                          "the joints' reactions");
    if (!T->react) return LD_ENOMEM;
    T->bf = T->react + 6 * (size_t)(nj > 0 ? nj : 1);
    T->spring = ld_xcalloc((size_t)(nel > 0 ? nel : 1), sizeof *T->spring, "the tree's springs");
    T->I = ld_xcalloc(2 * N, sizeof *T->I, "the tree's inertias");
    if (!T->par || !T->u0 || !T->carrier || !T->spring || !T->I) return LD_ENOMEM;
    T->sys = T->par + N, T->joint = T->sys + N, T->kind = T->joint + N;
    T->col = T->kind + N, T->qsys = T->col + N;
    T->border = T->carrier + nb, T->bjoint = T->border + nb, T->bpar = T->bjoint + nb;
    double *p = T->u0;
    T->r0 = p += 3 * N, T->lm = p += 3 * N, T->lc0 = p += N, T->lJ0 = p += 3 * N;
    T->R = p += 9 * N, T->p = p += 9 * N, T->S = p += 3 * N, T->V = p += 6 * N;
    T->A = p += 6 * N, T->F = p += 6 * N, T->b = p += 6 * N, T->qi = p += N, T->vi = p += N;
    T->fkq = p += N, T->fkv = p += 2 * N, T->sig = p += N, T->H = p += N;
    T->Ic = T->I + N;
    return LD_OK;
}

/* Link for joint j from body `from` (already placed) to body `to`. */
static void add_link(ld_tree *T, const ld_model *m, int j, int from, int to, int *nl,
                     const int *sysidx) {
    const ld_joint *jt = &m->joints[j];
    if (jt->kind == LD_JOINT_FIXED) {
        T->carrier[to] = from < 0 ? -1 : T->carrier[from];
        return;
    }
    int i = (*nl)++;
    T->par[i] = from < 0 ? -1 : T->carrier[from];
    T->sys[i] = sysidx[j];
    T->qsys[i] = sysidx[j] + 6 * T->nroot; /* after the roots' 12 (R, x) each */
    T->joint[i] = j;
    T->kind[i] = jt->kind == LD_JOINT_PRISMATIC ? LD_TREE_PRISMATIC : LD_TREE_REVOLUTE;
    T->sig[i] = to == jt->body2 ? 1.0 : -1.0;
    double a = ld_v3_norm(jt->axis);
    for (int k = 0; k < 3; ++k) T->u0[3 * i + k] = jt->axis[k] / a, T->r0[3 * i + k] = jt->at[k];
    T->carrier[to] = i;
}

/* The joints not yet used at body `from` (LD_GROUND: the ground): each adds a link (or merges a
 * fixed joint's body) and queues its far body; a far body already reached closes a loop. */
static int visit(ld_tree *T, const ld_model *m, int from, unsigned char *used, int *queue,
                 int *tail, int *nl, const int *sysidx, char *msg, size_t n) {
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jt = &m->joints[j];
        if (used[j] || (jt->body1 != from && jt->body2 != from)) continue;
        int to = jt->body1 == from ? jt->body2 : jt->body1;
        used[j] = 1;
        if (to == LD_GROUND || T->carrier[to] != -2)
            return refuse_joint(m, j,
                                "it closes a loop (the joints must form a tree rooted at the "
                                "ground)",
                                msg, n);
        add_link(T, m, j, from, to, nl, sysidx);
        T->bjoint[to] = j, T->bpar[to] = from;
        queue[(*tail)++] = to;
    }
    return LD_OK;
}

/* The tree by breadth-first search from the ground, then from each floating root (the first
 * body not yet reached); refuses loops. */
static int build_tree(ld_tree *T, const ld_model *m, const int *sysidx, char *msg, size_t n) {
    int nb = m->nbodies, nl = 0, head = 0, tail = 0;
    int *queue = ld_xmalloc((size_t)nb * sizeof(int) + (size_t)(m->njoints + 1), "the tree");
    if (!queue) return LD_ENOMEM;
    unsigned char *used = (unsigned char *)(queue + nb);
    memset(used, 0, (size_t)m->njoints + 1);
    for (int b = 0; b < nb; ++b) T->carrier[b] = -2; /* not reached */
    int rc = visit(T, m, LD_GROUND, used, queue, &tail, &nl, sysidx, msg, n);
    while (!rc && head < tail)
        rc = visit(T, m, queue[head++], used, queue, &tail, &nl, sysidx, msg, n);
    for (int b = 0, r = 0; !rc && b < nb; ++b) { /* the floating roots, each with its tree */
        if (T->carrier[b] != -2) continue;
        for (int k = 0; k < 6; ++k, ++nl) {
            T->par[nl] = k == 0 ? -1 : nl - 1;
            T->kind[nl] = LD_TREE_FREE, T->col[nl] = k, T->joint[nl] = b;
            T->sys[nl] = 6 * r + k; /* (Ω, ẋ) of root node r */
            T->qsys[nl] = 12 * r;
            T->sig[nl] = 1.0;
        }
        ++r;
        T->carrier[b] = nl - 1;
        T->bjoint[b] = -1, T->bpar[b] = -1;
        queue[tail++] = b;
        while (!rc && head < tail)
            rc = visit(T, m, queue[head++], used, queue, &tail, &nl, sysidx, msg, n);
    }
    memcpy(T->border, queue, (size_t)tail * sizeof *queue);
    T->nborder = tail;
    free(queue);
    return rc;
}

/* Each link's mass, centre and inertia at the start: its bodies combined. */
static void link_inertias(ld_tree *T, const ld_model *m) {
    for (int b = 0; b < m->nbodies; ++b) {
        int i = T->carrier[b];
        if (i < 0) continue;
        T->lm[i] += m->bodies[b].mass;
        for (int k = 0; k < 3; ++k) T->lc0[3 * i + k] += m->bodies[b].mass * m->bodies[b].x[k];
    }
    for (int i = 0; i < T->n; ++i) /* a floating root's first five links are massless */
        for (int k = 0; k < 3 && T->lm[i] > 0.0; ++k) T->lc0[3 * i + k] /= T->lm[i];
    for (int b = 0; b < m->nbodies; ++b) {
        int i = T->carrier[b];
        if (i < 0) continue;
        const ld_body *bd = &m->bodies[b];
        double R[9], qn[4], RJ[9], Rt[9], J[9], d[3], mb = bd->mass;
        (void)ld_quat_normalize(qn, bd->q);
        ld_quat_to_mat(R, qn);
        ld_m3_mul(RJ, R, bd->inertia);
        ld_m3_transpose(Rt, R);
        ld_m3_mul(J, RJ, Rt);
        for (int k = 0; k < 3; ++k) d[k] = bd->x[k] - T->lc0[3 * i + k];
        double dd = ld_v3_dot(d, d);
        for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c)
                T->lJ0[9 * i + 3 * a + c] += J[3 * a + c] + mb * ((a == c) * dd - d[a] * d[c]);
    }
}

/* Element e (a rotational-spring-damper) about revolute link i's axis: 1 with *sp filled when it
 * acts between the joint's two bodies about every direction or the joint's axis. */
static int hinge_spring(const ld_tree *T, const ld_model *m, int e, int i, ld_tree_spring *sp) {
    if (T->kind[i] != LD_TREE_REVOLUTE) return 0;
    const ld_element *el = &m->elements[e];
    const ld_joint *jt = &m->joints[T->joint[i]];
    double sig = el->body1 == jt->body1 && el->body2 == jt->body2   ? 1.0
                 : el->body1 == jt->body2 && el->body2 == jt->body1 ? -1.0
                                                                    : 0.0;
    const double *par = el->par, *a = par + 2;
    double an = ld_v3_norm(a), dot = an > 0 ? ld_v3_dot(a, T->u0 + 3 * i) : 1.0;
    if (T->kind[i] != LD_TREE_REVOLUTE || sig == 0.0 || fabs(fabs(dot) - 1.0) > 1e-9) return 0;
    *sp = (ld_tree_spring){.link = i, .sig = dot < 0 ? -sig : sig, .k = par[0], .c = par[1]};
    sp->rest = an > 0 && el->npar > 5 ? par[5] : 0.0;
    return 1;
}

/* Element e (a spring-damper without a force-length curve) along prismatic link i: 1 with *sp
 * filled when it acts between the joint's two bodies at two distinct points of the joint's line
 * (to 1e-9 of their distance). */
static int slide_spring(const ld_tree *T, const ld_model *m, int e, int i, ld_tree_spring *sp) {
    if (T->kind[i] != LD_TREE_PRISMATIC) return 0;
    const ld_element *el = &m->elements[e];
    const ld_joint *jt = &m->joints[T->joint[i]];
    const double *par = el->par, *u = T->u0 + 3 * i;
    const double *p1, *p2; /* the points on the joint's body1 and body2 */
    if (T->kind[i] != LD_TREE_PRISMATIC || el->npar != 10) return 0;
    if (el->body1 == jt->body1 && el->body2 == jt->body2)
        p1 = par, p2 = par + 3;
    else if (el->body1 == jt->body2 && el->body2 == jt->body1)
        p1 = par + 3, p2 = par;
    else
        return 0;
    double d[3], r[3], x[3];
    for (int k = 0; k < 3; ++k) d[k] = p2[k] - p1[k], r[k] = p1[k] - T->r0[3 * i + k];
    double L = ld_v3_dot(d, u), dn = ld_v3_norm(d);
    ld_v3_cross(x, r, u);
    double off = ld_v3_norm(x);
    ld_v3_cross(x, d, u);
    if (!(dn > 0.0) || ld_v3_norm(x) > 1e-9 * dn || off > 1e-9 * fmax(dn, 1.0)) return 0;
    *sp = (ld_tree_spring){.link = i, .slide = 1, .sig = 1.0, .k = par[6], .c = par[7]};
    sp->L = L, sp->l0 = par[8], sp->f0 = par[9];
    return 1;
}

/* The model's force elements as joint spring-dampers (hinge_spring, slide_spring); any other
 * element is refused by name. */
static int build_springs(ld_tree *T, const ld_model *m, char *msg, size_t n) {
    int rot = ld_element_type_find("rotational-spring-damper");
    int lin = ld_element_type_find("spring-damper");
    for (int e = 0; e < m->nelements; ++e) {
        const ld_element *el = &m->elements[e];
        int ok = 0;
        for (int i = 0; i < T->n && !ok; ++i)
            ok = el->type == rot   ? hinge_spring(T, m, e, i, &T->spring[T->nspring])
                 : el->type == lin ? slide_spring(T, m, e, i, &T->spring[T->nspring])
                                   : 0;
        if (ok) {
            T->nspring++;
            continue;
        }
        char w[32];
        snprintf(msg, n,
                 "the tree formulation cannot hold element %d ('%s', %s%s): it supports a "
                 "rotational-spring-damper between the two bodies of a revolute joint (about "
                 "every direction or the joint's axis) and a spring-damper without a curve "
                 "between the two bodies of a prismatic joint, on the joint's line",
                 e, el->name, ld_element_type_name(el->type), at_line(w, sizeof w, el->line));
        return LD_ENOTSUPPORTED;
    }
    return LD_OK;
}

/* The representative of body b (nb: the ground) in the union-find forest f. */
static int find(int *f, int b) {
    while (f[b] != b) b = f[b] = f[f[b]];
    return b;
}

/* The bodies' groups that no chain of joints joins to the ground: the floating roots (−1: no
 * memory). */
static int count_roots(const ld_model *m) {
    int nb = m->nbodies, *f = ld_xmalloc((size_t)(nb + 1) * sizeof(int), "the tree"), r = 0;
    if (!f) return -1;
    for (int b = 0; b <= nb; ++b) f[b] = b;
    for (int j = 0; j < m->njoints; ++j) {
        int a = m->joints[j].body1 < 0 ? nb : m->joints[j].body1, b = m->joints[j].body2;
        f[find(f, a)] = find(f, b < 0 ? nb : b);
    }
    int g = find(f, nb);
    for (int b = 0; b < nb; ++b) r += find(f, b) == b && b != g;
    free(f);
    return r;
}

/* The system's coordinate of every joint (−1: fixed), after refusing the kinds not held. */
static int number_joints(const ld_model *m, int *sysidx, int *ndof, char *msg, size_t n) {
    *ndof = 0;
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jt = &m->joints[j];
        sysidx[j] = -1;
        switch (jt->kind) {
        case LD_JOINT_REVOLUTE:
        case LD_JOINT_PRISMATIC:
            sysidx[j] = (*ndof)++;
            break;
        case LD_JOINT_FIXED:
            break;
        case LD_JOINT_DRIVER:
            return refuse_joint(m, j, "prescribed motion is not supported", msg, n);
        default:
            return refuse_joint(m, j,
                                "it supports revolute, prismatic and fixed joints (spherical, "
                                "universal and cylindrical ones are not supported)",
                                msg, n);
        }
        if (jt->kind != LD_JOINT_FIXED && jt->point_form)
            return refuse_joint(m, j, "the point form is not supported", msg, n);
    }
    return LD_OK;
}

/* The initial rates: the joints' rates of the model's initial velocities, solved as the
 * maximal formulations solve them (an so3xr3 system compiled for this). */
static int initial_rates(const ld_model *m, const ld_tree *T, double *q, double *v, char *msg,
                         size_t n) {
    ld_system c;
    double *Q = NULL, *V = NULL;
    int rc = ld_model_compile_msg(m, LD_FORM_SO3XR3, &c, &Q, &V, msg, n);
    if (rc) return rc;
    for (int i = 0; !rc && i < T->n; ++i) {
        double cc[LD_JOINT_COORDS_MAX], cd[LD_JOINT_COORDS_MAX], x[3], qu[4], w[3], xd[3];
        int nc = 0;
        if (T->kind[i] == LD_TREE_FREE && T->col[i] == 0) { /* the root's pose and (Ω, ẋ) */
            rc = ld_model_body_state(&c, T->joint[i], Q, V, x, qu, w, xd);
            ld_quat_to_mat(q + T->qsys[i], qu);
            memcpy(q + T->qsys[i] + 9, x, sizeof x);
            memcpy(v + T->sys[i], w, sizeof w);
            memcpy(v + T->sys[i] + 3, xd, sizeof xd);
        }
        if (T->kind[i] == LD_TREE_FREE) continue;
        rc = ld_model_joint_coords(&c, T->joint[i], m->run.t_start, Q, V, cc, cd, &nc);
        if (!rc) v[T->sys[i]] = cd[0];
    }
    free(Q);
    free(V);
    ld_model_system_free(&c);
    return rc;
}

static int no_phi(const ld_system *s, double t, const double *q, double *out) {
    (void)s, (void)t, (void)q, (void)out;
    return LD_OK;
}

int ld_tree_compile(const ld_model *m, ld_system *s, double **q0, double **v0, char *msg,
                    size_t n) {
    char dummy[8];
    if (!msg || !n) msg = dummy, n = sizeof dummy;
    int rc = refuse_features(m, msg, n), ndof = 0;
    if (rc) return rc;
    int *sysidx = ld_xmalloc((size_t)(m->njoints + 1) * sizeof(int), "the tree");
    if (!sysidx) return LD_ENOMEM;
    rc = number_joints(m, sysidx, &ndof, msg, n);
    int nroot = rc ? 0 : count_roots(m);
    if (!rc && nroot < 0) rc = LD_ENOMEM;
    for (int j = 0; !rc && j < m->njoints; ++j)
        if (sysidx[j] >= 0) sysidx[j] += 6 * nroot;
    if (!rc && ndof + nroot == 0) {
        snprintf(msg, n, "the tree formulation has nothing to move: every body is fixed");
        rc = LD_ENOTSUPPORTED;
    }
    memset(s, 0, sizeof *s);
    rb_sys *rb = rc ? NULL : ld_xcalloc(1, sizeof *rb, "the system");
    ld_tree *T = rc ? NULL : ld_xcalloc(1, sizeof *T, "the tree");
    if (!rc && (!rb || !T)) rc = LD_ENOMEM;
    if (!rc) {
        T->m = m, T->nroot = nroot, T->nq = 12 * nroot + ndof;
        rc = alloc_tree(T, ndof + 6 * nroot, m->nbodies, m->njoints, m->nelements);
    }
    if (!rc) rc = build_tree(T, m, sysidx, msg, n);
    free(sysidx);
    if (!rc) rc = build_springs(T, m, msg, n);
    if (!rc) {
        link_inertias(T, m);
        memcpy(T->g, m->gravity, sizeof T->g);
        T->e_ground = 0.0;
        for (int b = 0; b < m->nbodies; ++b)
            if (T->carrier[b] == -1)
                T->e_ground -= m->bodies[b].mass * ld_v3_dot(T->g, m->bodies[b].x);
        rb->m = m;
        rb->f = LD_FORM_TREE;
        rb->tree = T;
        T = NULL;
        s->user = rb;
        rb = NULL;
        rb_sys *r = s->user;
        r->load_start = ld_xcalloc((size_t)m->nbodies + 1, sizeof(int), "the loads' index");
        r->load_list = ld_xcalloc(1, sizeof(int), "the loads' index");
        if (m->nelements > 0)
            r->ctrl = ld_xcalloc((size_t)m->nelements, sizeof(double), "the controllers");
        s->nodes = ld_xcalloc((size_t)(ndof + nroot), sizeof *s->nodes, "the system's nodes");
        if (!r->load_start || !r->load_list || (m->nelements > 0 && !r->ctrl) || !s->nodes)
            rc = LD_ENOMEM;
    }
    if (rc) {
        ld_tree_free(T);
        free(rb);
        if (s->user) ld_model_system_free(s);
        return rc;
    }
    s->nnodes = ndof + nroot;
    for (int i = 0; i < s->nnodes; ++i)
        s->nodes[i] =
            i < nroot ? (ld_node){LD_NODE_SO3XR3, 0, 0, 0} : (ld_node){LD_NODE_RN, 1, 0, 0};
    s->ops = (ld_system_ops){.mass = ld_tree_mass,
                             .force = ld_tree_force,
                             .phi = no_phi,
                             .phi_q = no_phi,
                             .energy = ld_tree_energy,
                             .mass_blocks = ld_tree_mass_blocks,
                             .phi_q_sparse = ld_tree_phi_q_sparse};
    s->mass_const = 1; /* M = I */
    rc = ld_sys_layout(s);
    if (!rc) rc = ld_sys_alloc_work(s);
    double *q = rc ? NULL : ld_xcalloc((size_t)s->nq, sizeof(double), "the initial positions");
    double *v = rc ? NULL : ld_xcalloc((size_t)s->k, sizeof(double), "the initial velocities");
    if (!rc && (!q || !v)) rc = LD_ENOMEM;
    if (!rc && (s->nq != ld_rb(s)->tree->nq || s->k != ld_rb(s)->tree->n)) rc = LD_EINVAL;
    if (!rc) rc = initial_rates(m, ld_rb(s)->tree, q, v, msg, n);
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

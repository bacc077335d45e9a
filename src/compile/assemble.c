/*
 * Assembly of the initial configuration (ld_model_assemble, liedyn/model.h;
 * docs/model-format.md#assembly).
 *
 * Joints of the frame form give the joint's frame in each body; the user's placement of the
 * bodies need not close them. Two steps:
 *   1. Placement. A body given without position and orientation is placed by a joint of the
 *      frame form that joins it to a placed body (the ground is placed): with P the pose of a
 *      body, F1, F2 the joint's frames and M(c) its motion at the coordinates c (rotation about
 *      z by the angle, translation along z by the slide), P2 = P1 F1 M F2⁻¹, or
 *      P1 = P2 F2 M⁻¹ F1⁻¹ the other way round; joints are taken in model order, repeatedly,
 *      until no body is left (a tree from the ground, as URDF and MJCF files describe one).
 *   2. Closure. The joints' equations Φ(q) = 0 (every joint, every kind, with the held
 *      coordinates as drivers of the same frames) are solved by Gauss–Newton on the group from
 *      that placement: each step the least-squares solution of smallest norm of B Δ = −Φ over
 *      the bodies not held (LAPACK dgelsy, so the redundant rows of a planar loop are harmless),
 *      with rotations weighted by the model's size L (the smallest motion of points at L), the
 *      bodies moved by q ← q ∘ exp(Δ) and the step halved while |Φ| does not fall. The model's
 *      joints are closed when max |Φ| < TOL · max(1, L).
 * Dense in the rows and the free columns: O(m k min(m, k)) per iteration, once, before the run.
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "liedyn/liedyn.h"
#include "liedyn/system.h"
#include "compile.h"
#include "../core/oom.h"

#define TOL     1e-12 /* closed: max |Φ| below TOL · max(1, L) */
#define ITER    60    /* Gauss–Newton iterations at most */
#define HALVING 12    /* step halvings at most */
#define RCOND   1e-10 /* dgelsy: singular values below RCOND · the largest are dropped */

/* ---------------------------------------------------------------- poses */

typedef struct pose {
    double R[9], x[3];
} pose;

static void pose_body(const ld_model *m, int b, pose *p) {
    static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (b < 0) {
        memcpy(p->R, eye, sizeof eye);
        memset(p->x, 0, sizeof p->x);
        return;
    }
    double q[4];
    if (ld_quat_normalize(q, m->bodies[b].q)) q[0] = 1.0, q[1] = q[2] = q[3] = 0.0;
    ld_quat_to_mat(p->R, q);
    memcpy(p->x, m->bodies[b].x, sizeof p->x);
}

static void pose_frame(const double at[3], const double f[4], pose *p) {
    double q[4];
    if (ld_quat_normalize(q, f)) q[0] = 1.0, q[1] = q[2] = q[3] = 0.0;
    ld_quat_to_mat(p->R, q);
    memcpy(p->x, at, sizeof p->x);
}

/* out = a ∘ b (out may not alias). */
static void pose_mul(pose *out, const pose *a, const pose *b) {
    ld_m3_mul(out->R, a->R, b->R);
    ld_m3_mulv(out->x, a->R, b->x);
    for (int i = 0; i < 3; ++i) out->x[i] += a->x[i];
}

static void pose_inv(pose *out, const pose *a) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out->R[3 * i + j] = a->R[3 * j + i];
    ld_m3_mulv(out->x, out->R, a->x);
    for (int i = 0; i < 3; ++i) out->x[i] = -out->x[i];
}

/* Does the kind move about (angle) or along (slide) its axis? */
static int has_angle(ld_joint_kind k) {
    return k == LD_JOINT_REVOLUTE || k == LD_JOINT_CYLINDRICAL;
}
static int has_slide(ld_joint_kind k) {
    return k == LD_JOINT_PRISMATIC || k == LD_JOINT_CYLINDRICAL;
}

/* M(c): the joint's motion at its coordinates c (only those its kind has). */
static void pose_motion(const ld_joint *jd, pose *p) {
    double th = has_angle(jd->kind) ? jd->coord[0] : 0.0;
    double c = cos(th), s = sin(th);
    const double R[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(p->R, R, sizeof R);
    p->x[0] = p->x[1] = 0.0;
    p->x[2] = has_slide(jd->kind) ? jd->coord[1] : 0.0;
}

/* The two frames of joint j in space at the model's configuration. */
static void joint_frames(const ld_model *m, int j, pose *P1, pose *P2) {
    const ld_joint *jd = &m->joints[j];
    pose b, f;
    pose_body(m, jd->body1, &b);
    pose_frame(jd->at1, jd->f1, &f);
    pose_mul(P1, &b, &f);
    pose_body(m, jd->body2, &b);
    pose_frame(jd->at2, jd->f2, &f);
    pose_mul(P2, &b, &f);
}

void ld_joint_frame_coords(const ld_model *m, int j, double c[2]) {
    const ld_joint *jd = &m->joints[j];
    c[0] = c[1] = 0.0;
    if (!jd->local) return;
    pose P1, P2, I1, rel;
    joint_frames(m, j, &P1, &P2);
    pose_inv(&I1, &P1);
    pose_mul(&rel, &I1, &P2);
    if (has_angle(jd->kind)) c[0] = atan2(rel.R[3], rel.R[0]);
    if (has_slide(jd->kind)) c[1] = rel.x[2];
}

static void set_body_pose(ld_body *b, const pose *p) {
    memcpy(b->x, p->x, sizeof b->x);
    ld_quat_from_mat(b->q, p->R);
}

/* ---------------------------------------------------------------- placement */

/* The first joint of the frame form that joins a placed body (or the ground) to an unplaced
 * one, among those whose coordinates are given when given_only; −1 if none. */
static int next_placing(const ld_model *m, const unsigned char *set, int given_only) {
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jd = &m->joints[j];
        int s1 = jd->body1 < 0 || set[jd->body1], s2 = set[jd->body2];
        if (jd->local && s1 != s2 && (jd->has_coord || !given_only)) return j;
    }
    return -1;
}

/* Place the unplaced body of joint j from the other one. */
static void place_by(ld_model *m, int j, unsigned char *set) {
    const ld_joint *jd = &m->joints[j];
    int b1 = jd->body1, b2 = jd->body2;
    pose F1, F2, M, A, B, C, T;
    pose_frame(jd->at1, jd->f1, &F1);
    pose_frame(jd->at2, jd->f2, &F2);
    pose_motion(jd, &M);
    if (b1 < 0 || set[b1]) { /* P2 = P1 F1 M F2⁻¹ */
        pose_body(m, b1, &A);
        pose_mul(&B, &A, &F1);
        pose_mul(&C, &B, &M);
        pose_inv(&T, &F2);
        pose_mul(&A, &C, &T);
        set_body_pose(&m->bodies[b2], &A);
        set[b2] = 1;
    } else { /* P1 = P2 F2 M⁻¹ F1⁻¹ */
        pose_body(m, b2, &A);
        pose_mul(&B, &A, &F2);
        pose_inv(&T, &M);
        pose_mul(&C, &B, &T);
        pose_inv(&T, &F1);
        pose_mul(&A, &C, &T);
        set_body_pose(&m->bodies[b1], &A);
        set[b1] = 1;
    }
    m->assembly.placed++;
}

/* Place the unplaced bodies by their joints (set[b]: placed), the joints whose coordinates are
 * given first, each in model order. The first body left unplaced, or −1. */
static int place(ld_model *m, unsigned char *set) {
    for (int b = 0; b < m->nbodies; ++b) set[b] = !m->bodies[b].unplaced;
    for (;;) {
        int j = next_placing(m, set, 1);
        if (j < 0) j = next_placing(m, set, 0);
        if (j < 0) break;
        place_by(m, j, set);
    }
    for (int b = 0; b < m->nbodies; ++b)
        if (!set[b]) return b;
    return -1;
}

/* ---------------------------------------------------------------- closure */

/* The model to solve: m's joints, then a driver of the same frames per held coordinate. */
static int with_holds(const ld_model *m, ld_model *t, int **held_of) {
    int nh = 0;
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jd = &m->joints[j];
        if (jd->local && jd->hold) nh += has_angle(jd->kind) + has_slide(jd->kind);
    }
    *t = *m;
    t->keep_redundant = 1;
    t->joints = ld_xmalloc(((size_t)m->njoints + (size_t)nh + 1) * sizeof *t->joints,
                           "the assembly's joints");
    *held_of = ld_xmalloc(((size_t)nh + 1) * sizeof **held_of, "the assembly's holds");
    if (!t->joints || !*held_of) {
        free(t->joints);
        free(*held_of);
        return LD_ENOMEM;
    }
    if (m->njoints > 0) memcpy(t->joints, m->joints, (size_t)m->njoints * sizeof *t->joints);
    int k = m->njoints;
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *jd = &m->joints[j];
        if (!jd->local || !jd->hold) continue;
        for (int c = 0; c < 2; ++c) {
            if (c == 0 ? !has_angle(jd->kind) : !has_slide(jd->kind)) continue;
            ld_joint *d = &t->joints[k];
            memset(d, 0, sizeof *d);
            d->kind = LD_JOINT_DRIVER;
            d->body1 = jd->body1, d->body2 = jd->body2;
            d->local = 1;
            memcpy(d->at1, jd->at1, sizeof d->at1);
            memcpy(d->at2, jd->at2, sizeof d->at2);
            memcpy(d->f1, jd->f1, sizeof d->f1);
            memcpy(d->f2, jd->f2, sizeof d->f2);
            d->motion = c == 0 ? LD_MOTION_ROTATION : LD_MOTION_TRANSLATION;
            d->value = jd->coord[c];
            d->fn.kind = LD_TFN_CONSTANT;
            d->line = jd->line;
            (*held_of)[k - m->njoints] = 2 * j + c;
            ++k;
        }
    }
    t->njoints = k;
    return LD_OK;
}

/* Per body: 1 when assembly may move it (not held, not a node of a rod or a beam). */
static void free_bodies(const ld_model *m, unsigned char *mov) {
    for (int b = 0; b < m->nbodies; ++b)
        mov[b] = !m->bodies[b].hold && m->bodies[b].pin == LD_PIN_NONE;
    for (int r = 0; r < m->nrods; ++r)
        for (int i = 0; i <= m->rods[r].n; ++i) mov[m->rods[r].body0 + i] = 0;
    for (int e = 0; e < m->nbeams; ++e)
        for (int k = 0; k < m->beams[e].nnodes; ++k)
            if (m->beams[e].node_body && m->beams[e].node_body[k] >= 0)
                mov[m->beams[e].node_body[k]] = 0;
}

/* The model's size L: the largest distance of a body or a frame's origin from the origin. */
static double model_size(const ld_model *m) {
    double L = 0.0;
    for (int b = 0; b < m->nbodies; ++b) L = fmax(L, ld_v3_norm(m->bodies[b].x));
    for (int j = 0; j < m->njoints; ++j) {
        if (!m->joints[j].local) continue;
        L = fmax(L, ld_v3_norm(m->joints[j].at1));
        L = fmax(L, ld_v3_norm(m->joints[j].at2));
    }
    return L > 1e-3 ? L : 1e-3;
}

typedef struct solver {
    const ld_system *s;
    int m, k, nf;
    int *col;    /* nf: the free columns of v */
    double *csc; /* nf: their scale (1/L for a rotation, 1 for a translation) */
    double *B, *A, *rhs, *Phi, *xi, *qt;
    lapack_int *piv;
    double L;
} solver;

static double norm2(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += x[i] * x[i];
    return sqrt(s);
}

static double max_abs(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s = fmax(s, fabs(x[i]));
    return s;
}

/* One Gauss–Newton step from q (Φ in w->Phi): q updated, w->Phi the new Φ. 0 when |Φ| fell,
 * 1 when no step along the direction lowers it, < 0 on failure. */
static int gn_step(solver *w, double t, double *q) {
    const ld_system *s = w->s;
    size_t M = (size_t)w->m, N = (size_t)w->nf, R = M > N ? M : N;
    if (s->ops.phi_q(s, t, q, w->B)) return LD_EINVAL;
    for (size_t c = 0; c < N; ++c) { /* column-major, rotations scaled by 1/L */
        size_t col = (size_t)w->col[c];
        for (size_t r = 0; r < M; ++r) w->A[c * M + r] = w->B[r * (size_t)w->k + col] * w->csc[c];
    }
    for (size_t r = 0; r < R; ++r) w->rhs[r] = r < M ? -w->Phi[r] : 0.0;
    for (size_t c = 0; c < N; ++c) w->piv[c] = 0;
    lapack_int rank = 0;
    if (LAPACKE_dgelsy(LAPACK_COL_MAJOR, (lapack_int)M, (lapack_int)N, 1, w->A, (lapack_int)M,
                       w->rhs, (lapack_int)R, w->piv, RCOND, &rank) != 0)
        return LD_EINVAL;
    double f0 = norm2(w->Phi, w->m);
    for (int h = 0; h <= HALVING; ++h) {
        double a = ldexp(1.0, -h);
        memset(w->xi, 0, (size_t)w->k * sizeof *w->xi);
        for (size_t c = 0; c < N; ++c) w->xi[w->col[c]] = a * w->rhs[c] * w->csc[c];
        ld_sys_retract(s, w->qt, q, w->xi);
        if (s->ops.phi(s, t, w->qt, w->B)) continue;
        if (norm2(w->B, w->m) < f0) {
            memcpy(q, w->qt, (size_t)s->nq * sizeof *q);
            memcpy(w->Phi, w->B, M * sizeof *w->Phi);
            return 0;
        }
    }
    return 1;
}

/* Per joint of m (the first nj of the system): the norm of its rows of distance (m) and the
 * largest of its rows of direction (≈ rad), in the joint order of the rows. */
static void joint_gaps(const ld_system *s, const ld_model *m, const double *Phi, double *gap,
                       double *ang) {
    const ld_jsys *J = ld_rb(s)->J;
    for (int j = 0; j < m->njoints; ++j) {
        int r0, nr = ld_jsys_joint_rows(J, j, &r0);
        ld_joint_kind k = m->joints[j].kind;
        int nd = k == LD_JOINT_CYLINDRICAL || k == LD_JOINT_PRISMATIC ? 2
                 : k == LD_JOINT_DRIVER                               ? 0
                                                                      : 3;
        double g = 0.0, a = 0.0;
        for (int r = 0; r < nr; ++r) {
            double v = Phi[r0 + r];
            if (r < nd)
                g += v * v;
            else
                a = fmax(a, fabs(v));
        }
        gap[j] = sqrt(g);
        ang[j] = a;
    }
}

/* The message when the joints cannot be closed: the worst joint (a held coordinate: the joint
 * whose coordinate it holds; of gaps equal to round-off, the first) and what is left, and the
 * first held coordinate, if any. */
static int not_closed(const ld_model *m, const ld_model *t, const ld_system *s, const int *held_of,
                      const double *Phi, char *msg, size_t n, int *item) {
    double *gap = ld_xmalloc(2 * ((size_t)t->njoints + 1) * sizeof *gap, "the assembly's gaps"),
           *ang = gap + t->njoints + 1;
    if (!gap) return LD_ENOMEM;
    joint_gaps(s, t, Phi, gap, ang);
    int w = 0;
    double worst = -1.0;
    for (int j = 0; j < t->njoints; ++j) {
        int r0, nr = ld_jsys_joint_rows(ld_rb(s)->J, j, &r0);
        double v = max_abs(Phi + r0, nr);
        if (v > worst * (1.0 + 1e-9)) worst = v, w = j; /* of equal gaps, the first joint */
    }
    char held[160] = "";
    if (t->njoints > m->njoints) {
        int hj = held_of[0] / 2, c = held_of[0] % 2;
        snprintf(held, sizeof held, "; with joint %d ('%s') held at %s %.6g %s", hj,
                 m->joints[hj].name, c ? "slide" : "angle", m->joints[hj].coord[c],
                 c ? "m" : "rad");
    }
    int j = w < m->njoints ? w : held_of[w - m->njoints] / 2;
    const ld_joint *jd = &m->joints[j];
    if (w >= m->njoints) {
        int c = held_of[w - m->njoints] % 2;
        snprintf(msg, n,
                 "joint %d ('%s') cannot be assembled with its %s held at %.6g %s: the joints "
                 "cannot all close with it (a residual of %.3g remains)",
                 j, jd->name, c ? "slide" : "angle", jd->coord[c], c ? "m" : "rad", worst);
    } else {
        snprintf(msg, n,
                 "joint %d ('%s') cannot be closed: a gap of %.3g m remains at its point (%.3g "
                 "rad between its axes) after assembly; check its frames, the links' lengths "
                 "and the held bodies and coordinates%s",
                 j, jd->name, gap[w], ang[w], held);
    }
    *item = j;
    free(gap);
    return LD_EINVAL;
}

/* Write the solution back: bodies' poses, the joints' spatial geometry, the report. */
static void write_back(ld_model *m, const ld_system *s, const double *q) {
    for (int b = 0; b < m->nbodies; ++b) {
        pose p, old;
        const double *x;
        ld_rb_pose(s, q, b, p.R, &x);
        memcpy(p.x, x, sizeof p.x);
        pose_body(m, b, &old);
        double d[3], Ot[9], Rt[9], c;
        for (int i = 0; i < 3; ++i) d[i] = p.x[i] - old.x[i];
        ld_m3_transpose(Ot, old.R);
        ld_m3_mul(Rt, Ot, p.R);
        c = 0.5 * (Rt[0] + Rt[4] + Rt[8] - 1.0);
        m->assembly.moved = fmax(m->assembly.moved, ld_v3_norm(d));
        m->assembly.turned = fmax(m->assembly.turned, acos(fmin(1.0, fmax(-1.0, c))));
        set_body_pose(&m->bodies[b], &p);
    }
    for (int j = 0; j < m->njoints; ++j) {
        ld_joint *jd = &m->joints[j];
        if (!jd->local) continue;
        pose P1, P2;
        joint_frames(m, j, &P1, &P2);
        for (int i = 0; i < 3; ++i) {
            jd->at[i] = P1.x[i];
            jd->axis[i] = P1.R[3 * i + 2];
            jd->axis2[i] = P2.R[3 * i];
        }
    }
}

/* Close the joints from the placement (m's bodies); LD_OK or LD_EINVAL with msg. */
static int close_joints(ld_model *m, char *msg, size_t n, int *item) {
    ld_model t;
    int *held_of = NULL;
    int rc = with_holds(m, &t, &held_of);
    if (rc) return rc;
    ld_system s;
    double *q = NULL;
    char why[512] = "";
    rc = ld_rb_compile_raw(&t, &s, &q, why, sizeof why);
    if (rc) {
        if (msg && n) snprintf(msg, n, "assembly: %s", why[0] ? why : ld_strerror(rc));
        free(t.joints);
        free(held_of);
        return rc == LD_ENOMEM ? rc : LD_EINVAL;
    }
    solver w = {.s = &s, .m = s.m, .k = s.k, .L = model_size(m)};
    size_t M = (size_t)s.m, K = (size_t)s.k, R = M > K ? M : K;
    unsigned char *mov = ld_xmalloc((size_t)m->nbodies, "the assembly's work");
    w.col = ld_xmalloc((K + 1) * sizeof *w.col, "the assembly's work");
    w.csc = ld_xmalloc((K + 1) * sizeof *w.csc, "the assembly's work");
    w.B = ld_xmalloc((M * K + M * K + R + M + K + (size_t)s.nq + 1) * sizeof(double),
                     "the assembly's work");
    w.piv = ld_xmalloc((K + 1) * sizeof *w.piv, "the assembly's work");
    rc = mov && w.col && w.csc && w.B && w.piv ? LD_OK : LD_ENOMEM;
    if (!rc) {
        w.A = w.B + M * K, w.rhs = w.A + M * K, w.Phi = w.rhs + R, w.xi = w.Phi + M;
        w.qt = w.xi + K;
        free_bodies(m, mov);
        for (int b = 0; b < m->nbodies; ++b)
            for (int c = 0; mov[b] && c < 6; ++c) {
                w.col[w.nf] = (int)s.nodes[b].voff + c;
                w.csc[w.nf++] = c < 3 ? 1.0 / w.L : 1.0;
            }
        double t0 = m->run.t_start, tol = TOL * fmax(1.0, w.L);
        rc = s.ops.phi(&s, t0, q, w.Phi) ? LD_EINVAL : LD_OK;
        double *gap =
            rc ? NULL
               : ld_xmalloc(2 * ((size_t)t.njoints + 1) * sizeof *gap, "the assembly's gaps");
        if (!rc && !gap) rc = LD_ENOMEM;
        if (!rc) { /* the gaps before */
            double *ang = gap + t.njoints + 1;
            joint_gaps(&s, m, w.Phi, gap, ang);
            for (int j = 0; j < m->njoints; ++j) {
                if (gap[j] > m->assembly.gap) m->assembly.gap = gap[j], m->assembly.gap_joint = j;
                if (ang[j] > m->assembly.misalign)
                    m->assembly.misalign = ang[j], m->assembly.misalign_joint = j;
            }
        }
        free(gap);
        int it = 0, st = 0;
        while (!rc && w.m > 0 && max_abs(w.Phi, w.m) > tol && it < ITER && st == 0) {
            st = gn_step(&w, t0, q);
            if (st < 0) rc = st;
            it += st == 0;
        }
        m->assembly.iterations = it;
        m->assembly.residual = w.m > 0 ? max_abs(w.Phi, w.m) : 0.0;
        if (!rc && m->assembly.residual > tol)
            rc = not_closed(m, &t, &s, held_of, w.Phi, msg, n, item);
        if (!rc) write_back(m, &s, q);
    }
    free(mov);
    free(w.col);
    free(w.csc);
    free(w.B);
    free(w.piv);
    free(q);
    ld_model_system_free(&s);
    free(t.joints);
    free(held_of);
    return rc;
}

/* ---------------------------------------------------------------- the whole */

int ld_model_assemble(ld_model *m, char *msg, size_t n, int *item, int *is_joint) {
    int dummy = -1, dj = 0;
    if (!item) item = &dummy;
    if (!is_joint) is_joint = &dj;
    *item = -1, *is_joint = 0;
    if (msg && n) msg[0] = '\0';
    if (!m || m->nbodies < 1 || !m->bodies) return LD_EINVAL;
    int any = 0;
    for (int j = 0; j < m->njoints; ++j) any |= m->joints[j].local;
    for (int b = 0; b < m->nbodies; ++b) any |= m->bodies[b].unplaced;
    if (!any) return LD_OK;
    /* on failure the model is left as it was: work on copies of the bodies and joints */
    size_t nb = (size_t)m->nbodies, nj = (size_t)m->njoints;
    ld_body *bodies = ld_xmalloc(nb * sizeof *bodies, "the assembly's bodies");
    ld_joint *joints = ld_xmalloc((nj + 1) * sizeof *joints, "the assembly's joints");
    unsigned char *set = ld_xmalloc(nb, "the assembly's work");
    if (!bodies || !joints || !set) {
        free(bodies);
        free(joints);
        free(set);
        return LD_ENOMEM;
    }
    memcpy(bodies, m->bodies, nb * sizeof *bodies);
    if (nj) memcpy(joints, m->joints, nj * sizeof *joints);
    ld_assembly before = m->assembly;
    memset(&m->assembly, 0, sizeof m->assembly);
    m->assembly.gap_joint = m->assembly.misalign_joint = -1;
    int rc = LD_OK, b = place(m, set);
    if (b >= 0) {
        if (msg)
            snprintf(msg, n,
                     "body '%s' has no position, and no joint in the frame form joins it to a "
                     "placed body or the ground: give its position, or a joint with frame1 and "
                     "frame2 that places it",
                     m->bodies[b].name);
        *item = b;
        rc = LD_EINVAL;
    }
    if (!rc) {
        rc = close_joints(m, msg, n, item);
        *is_joint = rc == LD_EINVAL && *item >= 0;
    }
    if (rc) { /* restore */
        memcpy(m->bodies, bodies, nb * sizeof *bodies);
        if (nj) memcpy(m->joints, joints, nj * sizeof *joints);
        m->assembly = before;
    }
    free(bodies);
    free(joints);
    free(set);
    return rc;
}

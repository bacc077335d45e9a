/*
 * liedyn's side of bench_robots (robots.h): the robot file prepared for both codes, imported
 * with given joint angles, run and sampled, and the runs compared with MuJoCo's by the names of
 * joints and bodies; the joint-space mass matrices compared in MuJoCo's coordinates.
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME      "bench_robots"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "liedyn/coords.h"
#include "liedyn/import.h"
#include "liedyn/integrator.h"
#include "liedyn/lie.h"
#include "liedyn/system.h"
#include "robots.h"

/* ---------------------------------------------------------------- files */

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *t = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        t = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (t && fread(t, 1, (size_t)n, f) == (size_t)n) {
            t[n] = '\0';
            *len = (size_t)n;
        } else {
            free(t);
            t = NULL;
        }
    }
    fclose(f);
    return t;
}

/* The end of the element starting at p (a tag "<name"): after its "/>" or its "</name>". */
static const char *element_end(const char *p, const char *name) {
    const char *gt = strchr(p, '>');
    if (!gt) return p + strlen(p);
    if (gt[-1] == '/') return gt + 1;
    char close[32];
    snprintf(close, sizeof close, "</%s>", name);
    const char *e = strstr(gt, close);
    return e ? e + strlen(close) : p + strlen(p);
}

/* The damping of the joint whose opening tag is lt … gt, by its name (0: none). */
static double damping_of(const char *lt, const char *gt, const char *const *names, const double *c,
                         int n) {
    const char *a = strstr(lt, "name=\"");
    if (!a || a > gt) return 0.0;
    a += 6;
    const char *b = strchr(a, '"');
    for (int i = 0; b && i < n; ++i)
        if (strlen(names[i]) == (size_t)(b - a) && strncmp(names[i], a, (size_t)(b - a)) == 0)
            return c[i];
    return 0.0;
}

int lt_prepare_urdf(const char *src, const char *dst, const char *const *names, const double *c,
                    int n) {
    size_t len = 0;
    char *t = read_all(src, &len);
    FILE *f = t ? fopen(dst, "wb") : NULL;
    if (!f) {
        free(t);
        return -1;
    }
    const char *p = t;
    while (*p) {
        const char *lt = strchr(p, '<');
        if (!lt) {
            fputs(p, f);
            break;
        }
        fwrite(p, 1, (size_t)(lt - p), f);
        if (strncmp(lt, "<visual", 7) == 0 || strncmp(lt, "<collision", 10) == 0) {
            p = element_end(lt, lt[1] == 'v' ? "visual" : "collision");
            continue;
        }
        const char *gt = strchr(lt, '>');
        if (!gt) gt = lt + strlen(lt) - 1;
        fwrite(lt, 1, (size_t)(gt - lt + 1), f);
        p = gt + 1;
        /* a joint of the tree (it has a type; a transmission's joint has none) */
        if (strncmp(lt, "<joint ", 7) == 0 && gt[-1] != '/') {
            const char *ty = strstr(lt, "type=\"");
            const char *end = element_end(lt, "joint");
            const char *dyn = strstr(lt, "<dynamics");
            int moving = ty && ty < gt && strncmp(ty + 6, "fixed", 5) != 0;
            double cj = damping_of(lt, gt, names, c, n);
            if (moving && cj > 0.0 && (!dyn || dyn > end))
                fprintf(f, "<dynamics damping=\"%.17g\"/>", cj);
        }
    }
    int bad = ferror(f);
    bad |= fclose(f);
    free(t);
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------------- import with angles */

/* The quoted name after "name: " in line l (up to its closing quote) into out. */
static void yaml_name(const char *l, char *out, size_t n) {
    const char *a = strchr(l, '"');
    out[0] = '\0';
    if (!a) return;
    const char *b = strchr(a + 1, '"');
    size_t k = b ? (size_t)(b - a - 1) : 0;
    if (k >= n) k = n - 1;
    memcpy(out, a + 1, k);
    out[k] = '\0';
}

void lt_load(const char *path, double aux, int chain, const char *const *names,
             const double *angles, const double *rates, int n, ld_model *m) {
    ld_import_options o;
    ld_import_options_init(&o);
    o.fixed_base = 1;
    o.aux_mass_ratio = aux;
    o.chain_joints = chain;
    char *text = NULL;
    size_t len = 0;
    ld_model_error err;
    if (ld_import_translate(path, &o, &text, &len, &err, NULL) != LD_OK) die(path, err.msg);
    char *out = malloc(len + (size_t)n * 128 + 1), *w = out, name[128] = "";
    int in_joints = 0;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t k = nl ? (size_t)(nl - l + 1) : strlen(l);
        memcpy(w, l, k), w += k;
        if (l[0] != ' ' && l[0] != '#') in_joints = strncmp(l, "joints:", 7) == 0;
        if (in_joints && strncmp(l, "  - name: ", 10) == 0) yaml_name(l, name, sizeof name);
        if (in_joints && strncmp(l, "    type: revolute", 18) == 0)
            for (int i = 0; i < n; ++i)
                if (strcmp(names[i], name) == 0) {
                    if (angles) w += sprintf(w, "    angle: %.17g\n", angles[i]);
                    if (rates) w += sprintf(w, "    angle_rate: %.17g\n", rates[i]);
                }
        l += k;
    }
    *w = '\0';
    if (ld_model_parse(out, (size_t)(w - out), path, m, &err) != LD_OK) die(path, err.msg);
    free(out);
    free(text);
}

/* ---------------------------------------------------------------- runs */

/* Sample k of m's state (q, v) at t into out; the angles unwrapped against sample k − 1. */
static void lt_sample(const ld_system *s, const ld_model *m, double t, const double *q,
                      const double *v, lt_samples *out, int k) {
    for (int j = 0; j < m->njoints; ++j) {
        double c[LD_JOINT_COORDS_MAX], cd[LD_JOINT_COORDS_MAX];
        int n = 0, kind = m->joints[j].kind;
        double *o = out->jc + (size_t)k * (size_t)m->njoints + (size_t)j;
        *o = NAN;
        if (kind != LD_JOINT_REVOLUTE && kind != LD_JOINT_PRISMATIC) continue;
        check_ld("joint coordinates", ld_model_joint_coords(s, j, t, q, v, c, cd, &n));
        *o = c[0];
        if (kind == LD_JOINT_REVOLUTE && k > 0) *o = ld_joint_angle_unwrap(c[0], o[-m->njoints]);
    }
    for (int b = 0; b < m->nbodies; ++b) {
        double om[3], xd[3];
        size_t i = (size_t)k * (size_t)m->nbodies + (size_t)b;
        check_ld("body state",
                 ld_model_body_state(s, b, q, v, out->x + 3 * i, out->q + 4 * i, om, xd));
    }
}

int lt_compiles(const ld_model *m, ld_formulation form, char *why, size_t n) {
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    if (ld_model_compile_msg(m, form, &s, &q0, &v0, why, n) != LD_OK) return 0;
    free(q0), free(v0);
    ld_model_system_free(&s);
    return 1;
}

double lt_run(const ld_model *m, const char *method, ld_formulation form, double h, double t_end,
              int ns, lt_samples *out, int may_fail) {
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    check_ld("compile", ld_model_compile(m, form, &s, &q0, &v0));
    ld_integ_options o;
    ld_integ_options_init(&o);
    int mi = ld_integ_method_find(method);
    if (mi < 0) die(method, "no such method");
    o.method = (ld_integ_method)mi;
    o.project = strncmp(method, "hem", 3) == 0 && s.m > 0;
    o.la = LD_LA_AUTO;
    int st = 0;
    ld_integ *it = ld_integ_create(&s, &o, &st);
    if (!it) die(method, ld_strerror(st));
    check_ld(method, ld_integ_init(it, 0.0, q0, v0));
    long per = lround(t_end / (ns - 1) / h);
    if (per < 1 || fabs((double)per * h * (ns - 1) - t_end) > 1e-9 * t_end)
        die("lt_run", "the sampling interval is not a multiple of the step");
    if (out) {
        out->ns = ns;
        out->jc = malloc((size_t)ns * (size_t)m->njoints * sizeof *out->jc);
        out->x = malloc((size_t)ns * (size_t)m->nbodies * 3 * sizeof *out->x);
        out->q = malloc((size_t)ns * (size_t)m->nbodies * 4 * sizeof *out->q);
        if (!out->jc || !out->x || !out->q) die("lt_run", "out of memory");
        lt_sample(&s, m, 0.0, q0, v0, out, 0);
    }
    double cpu = 0.0;
    long step = 0;
    for (int k = 1; k < ns; ++k) {
        double c0 = cpu_now();
        for (long i = 0; i < per; ++i) {
            ++step;
            st = ld_integ_advance_to(it, (double)step * h);
            if (st != LD_OK && !may_fail) die(method, ld_integ_message(it));
            if (st != LD_OK) break;
        }
        cpu += cpu_now() - c0;
        if (st != LD_OK) break;
        if (out) lt_sample(&s, m, (double)step * h, ld_integ_q(it), ld_integ_v(it), out, k);
    }
    ld_integ_free(it);
    free(q0), free(v0);
    ld_model_system_free(&s);
    if (st != LD_OK) {
        if (out) lt_samples_free(out);
        return -1.0;
    }
    return cpu;
}

void lt_samples_free(lt_samples *s) {
    free(s->jc), free(s->x), free(s->q);
    memset(s, 0, sizeof *s);
}

void rm_samples_alloc(rm_samples *s, int ns, int njnt, int nbody) {
    s->ns = ns;
    s->jc = malloc((size_t)ns * (size_t)(njnt > 0 ? njnt : 1) * sizeof *s->jc);
    s->xpos = malloc((size_t)ns * (size_t)nbody * 3 * sizeof *s->xpos);
    s->quat = malloc((size_t)ns * (size_t)nbody * 4 * sizeof *s->quat);
    if (!s->jc || !s->xpos || !s->quat) die("samples", "out of memory");
}

void rm_samples_free(rm_samples *s) {
    free(s->jc), free(s->xpos), free(s->quat);
    memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- comparisons */

/* The angle between two orientations (unit quaternions [w, x, y, z]). */
static double rot_angle(const double a[4], const double b[4]) {
    double c[4], d[4];
    ld_quat_conj(c, a);
    ld_quat_mul(d, c, b);
    double s = sqrt(d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
    return 2.0 * atan2(s, fabs(d[0]));
}

/* MuJoCo's joint and body of liedyn's joint j and body b, by name (−1: none). */
static int rm_joint_named(const rm_model *r, const char *name) {
    for (int j = 0; j < rm_njnt(r); ++j)
        if (strcmp(rm_jnt_name(r, j), name) == 0) return j;
    return -1;
}

int rb_body_of(const rm_model *r, const ld_model *m, int k) {
    char name[32];
    const char *nm = rm_body_name(r, k);
    if (!nm[0]) snprintf(name, sizeof name, "body%d", k), nm = name;
    return ld_model_body_find(m, nm);
}

rb_diff rb_compare(const rm_model *r, const ld_model *m, const rm_samples *a, const lt_samples *b) {
    rb_diff d = {0};
    int nj = rm_njnt(r), nb = rm_nbody(r);
    for (int j = 0; j < m->njoints; ++j) {
        int k = rm_joint_named(r, m->joints[j].name), kind = m->joints[j].kind;
        if (k < 0 || !((kind == LD_JOINT_REVOLUTE && rm_jnt_type(r, k) == RM_HINGE) ||
                       (kind == LD_JOINT_PRISMATIC && rm_jnt_type(r, k) == RM_SLIDE)))
            continue;
        d.nang++;
        for (int s = 0; s < a->ns; ++s)
            d.motion = fmax(d.motion, fabs(a->jc[(size_t)s * (size_t)nj + (size_t)k] - a->jc[k]));
        for (int s = 0; s < a->ns; ++s)
            d.ang = fmax(d.ang, fabs(a->jc[(size_t)s * (size_t)nj + (size_t)k] -
                                     b->jc[(size_t)s * (size_t)m->njoints + (size_t)j]));
    }
    for (int k = 1; k < nb; ++k) {
        int i = rb_body_of(r, m, k);
        if (i < 0) continue;
        d.nbody++;
        const double *x0 = b->x + 3 * (size_t)i, *q0 = b->q + 4 * (size_t)i;
        double off[3], t[3]; /* MuJoCo's origin in liedyn's body frame at the start */
        for (int c = 0; c < 3; ++c) t[c] = a->xpos[3 * (size_t)k + (size_t)c] - x0[c];
        ld_quat_rotate_inv(off, q0, t);
        for (int s = 0; s < a->ns; ++s) {
            size_t li = (size_t)s * (size_t)m->nbodies + (size_t)i;
            size_t mi = (size_t)s * (size_t)nb + (size_t)k;
            d.rot = fmax(d.rot, rot_angle(b->q + 4 * li, a->quat + 4 * mi));
            ld_quat_rotate(t, b->q + 4 * li, off);
            for (int c = 0; c < 3; ++c)
                d.pos = fmax(d.pos,
                             fabs(b->x[3 * li + (size_t)c] + t[c] - a->xpos[3 * mi + (size_t)c]));
        }
    }
    return d;
}

rb_diff lt_compare(const ld_model *m, const lt_samples *a, const lt_samples *b) {
    rb_diff d = {0};
    for (int s = 0; s < a->ns; ++s) {
        for (int j = 0; j < m->njoints; ++j) {
            size_t i = (size_t)s * (size_t)m->njoints + (size_t)j;
            if (!isnan(a->jc[i])) d.ang = fmax(d.ang, fabs(a->jc[i] - b->jc[i]));
        }
        for (int k = 0; k < m->nbodies; ++k) {
            size_t i = (size_t)s * (size_t)m->nbodies + (size_t)k;
            d.rot = fmax(d.rot, rot_angle(a->q + 4 * i, b->q + 4 * i));
            for (size_t c = 0; c < 3; ++c)
                d.pos = fmax(d.pos, fabs(a->x[3 * i + c] - b->x[3 * i + c]));
        }
    }
    d.nang = m->njoints, d.nbody = m->nbodies;
    return d;
}

rb_diff rm_compare(const rm_model *r, const rm_samples *a, const rm_samples *b) {
    rb_diff d = {0};
    int nj = rm_njnt(r), nb = rm_nbody(r);
    for (int s = 0; s < a->ns; ++s) {
        for (int j = 0; j < nj; ++j) {
            size_t i = (size_t)s * (size_t)nj + (size_t)j;
            if (!isnan(a->jc[i])) d.ang = fmax(d.ang, fabs(a->jc[i] - b->jc[i]));
        }
        for (int k = 1; k < nb; ++k) {
            size_t i = (size_t)s * (size_t)nb + (size_t)k;
            d.rot = fmax(d.rot, rot_angle(a->quat + 4 * i, b->quat + 4 * i));
            for (size_t c = 0; c < 3; ++c)
                d.pos = fmax(d.pos, fabs(a->xpos[3 * i + c] - b->xpos[3 * i + c]));
        }
    }
    d.nang = nj, d.nbody = nb - 1;
    return d;
}

/* ---------------------------------------------------------------- mass matrices */

/* Rates per joint of kind k in ld_model_joint_dofs's order. */
static int dofs_of(int kind) {
    switch (kind) {
    case LD_JOINT_REVOLUTE:
    case LD_JOINT_PRISMATIC:
        return 1;
    case LD_JOINT_CYLINDRICAL:
    case LD_JOINT_UNIVERSAL:
        return 2;
    case LD_JOINT_SPHERICAL:
        return 3;
    default:
        return 0;
    }
}

/* T (nl × nv, row-major): liedyn's rates ċ = T ċ_MuJoCo at the start; covered[d] = 1 for each
 * MuJoCo dof d that maps. A revolute or prismatic joint is the MuJoCo joint of its name; a
 * universal joint the hinge of its name and the next (rates about their axes); a spherical
 * joint three hinges, w = Σ θ̇ᵢ aᵢ (axes aᵢ spatial at the start, as w is there); a free root
 * ẋ = v₀ − R ĉ ω, Ω = ω with c the centre of mass in MuJoCo's body frame (MuJoCo's free
 * joint: the origin's spatial velocity v₀, the body angular velocity ω). */
static void mass_map(rm_model *r, const ld_model *m, const double *x0, const double *q0, double *T,
                     int nl, int *covered) {
    int nv = rm_nv(r), col = 0;
    memset(T, 0, (size_t)nl * (size_t)nv * sizeof *T);
    for (int j = 0; j < m->njoints; ++j) {
        int kind = m->joints[j].kind, n = dofs_of(kind), k = rm_joint_named(r, m->joints[j].name);
        if (k >= 0 && n > 0 && k + n <= rm_njnt(r)) {
            int d = rm_jnt_dof(r, k);
            for (int i = 0; i < n; ++i) {
                covered[d + i] = 1;
                if (kind != LD_JOINT_SPHERICAL) {
                    T[(size_t)(col + i) * (size_t)nv + (size_t)(d + i)] = 1.0;
                    continue;
                }
                double a[3];
                rm_initial_axis(r, k + i, a);
                for (int c = 0; c < 3; ++c)
                    T[(size_t)(col + c) * (size_t)nv + (size_t)(d + i)] = a[c];
            }
        }
        col += n;
    }
    for (int b = 0; b < m->nbodies; ++b) {
        int root = 1;
        for (int j = 0; j < m->njoints; ++j)
            if (m->joints[j].kind != LD_JOINT_DRIVER && m->joints[j].body2 == b) root = 0;
        if (!root) continue;
        for (int k = 0; k < rm_njnt(r); ++k) {
            if (rm_jnt_type(r, k) != RM_FREE ||
                strcmp(rm_body_name(r, rm_jnt_body(r, k)), m->bodies[b].name))
                continue;
            int d = rm_jnt_dof(r, k);
            double xp[3], qm[4], t[3], c[3], e[3], Rc[3][3];
            rm_initial_body(r, rm_jnt_body(r, k), xp, qm);
            for (int i = 0; i < 3; ++i) t[i] = x0[3 * b + i] - xp[i];
            ld_quat_rotate_inv(c, qm, t);
            for (int i = 0; i < 3; ++i) { /* column i of −R ĉ: −R (c × eᵢ) */
                double ei[3] = {i == 0, i == 1, i == 2},
                       cx[3] = {c[1] * ei[2] - c[2] * ei[1], c[2] * ei[0] - c[0] * ei[2],
                                c[0] * ei[1] - c[1] * ei[0]};
                ld_quat_rotate(e, qm, cx);
                for (int rr = 0; rr < 3; ++rr) Rc[rr][i] = -e[rr];
            }
            for (int i = 0; i < 6; ++i) covered[d + i] = 1;
            for (int rr = 0; rr < 3; ++rr) {
                T[(size_t)(col + rr) * (size_t)nv + (size_t)(d + rr)] = 1.0;
                T[(size_t)(col + 3 + rr) * (size_t)nv + (size_t)(d + 3 + rr)] = 1.0;
                for (int i = 0; i < 3; ++i)
                    T[(size_t)(col + rr) * (size_t)nv + (size_t)(d + 3 + i)] = Rc[rr][i];
            }
        }
        (void)q0;
        col += 6;
    }
}

void rb_mass_compare(rm_model *r, const ld_model *m, double *dmax, double *mmax, int *ndof) {
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    check_ld("compile", ld_model_compile(m, LD_FORM_SO3XR3, &s, &q0, &v0));
    int nl = ld_model_joint_dofs(&s), nv = rm_nv(r);
    if (nl < 0) die(m->name, "not a tree");
    double *Ml = malloc((size_t)nl * (size_t)nl * sizeof *Ml);
    double *Mm = malloc((size_t)nv * (size_t)nv * sizeof *Mm);
    double *T = malloc((size_t)nl * (size_t)nv * sizeof *T);
    double *x0 = malloc(3 * (size_t)m->nbodies * sizeof *x0);
    double *qq = malloc(4 * (size_t)m->nbodies * sizeof *qq);
    int *cov = calloc((size_t)nv, sizeof *cov);
    if (!Ml || !Mm || !T || !x0 || !qq || !cov) die("mass", "out of memory");
    check_ld("joint mass matrix", ld_model_joint_mass_matrix(&s, 0.0, q0, Ml));
    for (int b = 0; b < m->nbodies; ++b) {
        double om[3], xd[3];
        check_ld("body", ld_model_body_state(&s, b, q0, v0, x0 + 3 * b, qq + 4 * b, om, xd));
    }
    mass_map(r, m, x0, qq, T, nl, cov);
    rm_mass_matrix(r, Mm);
    *dmax = *mmax = 0.0;
    *ndof = 0;
    for (int a = 0; a < nv; ++a) {
        *ndof += cov[a];
        for (int b = 0; b < nv; ++b) {
            if (!cov[a] || !cov[b]) continue;
            double acc = 0.0; /* (Tᵀ Ml T)_ab */
            for (int i = 0; i < nl; ++i) {
                double ti = T[(size_t)i * (size_t)nv + (size_t)a];
                if (ti == 0.0) continue;
                for (int j = 0; j < nl; ++j)
                    acc += ti * Ml[(size_t)i * (size_t)nl + (size_t)j] *
                           T[(size_t)j * (size_t)nv + (size_t)b];
            }
            double mm = Mm[(size_t)a * (size_t)nv + (size_t)b];
            *dmax = fmax(*dmax, fabs(acc - mm));
            *mmax = fmax(*mmax, fabs(mm));
        }
    }
    free(Ml), free(Mm), free(T), free(x0), free(qq), free(cov), free(q0), free(v0);
    ld_model_system_free(&s);
}

/* ---------------------------------------------------------------- the same initial velocity */

/* Solve A x = b (n × n row-major, overwritten) by Gaussian elimination with partial pivoting;
 * 0, or −1 when A is singular. */
static int solve_dense(double *A, double *b, int n) {
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(A[(size_t)r * (size_t)n + (size_t)c]) >
                fabs(A[(size_t)p * (size_t)n + (size_t)c]))
                p = r;
        if (A[(size_t)p * (size_t)n + (size_t)c] == 0.0) return -1;
        for (int k = 0; k < n; ++k) {
            double t = A[(size_t)c * (size_t)n + (size_t)k];
            A[(size_t)c * (size_t)n + (size_t)k] = A[(size_t)p * (size_t)n + (size_t)k];
            A[(size_t)p * (size_t)n + (size_t)k] = t;
        }
        double t = b[c];
        b[c] = b[p], b[p] = t;
        for (int r = c + 1; r < n; ++r) {
            double f = A[(size_t)r * (size_t)n + (size_t)c] / A[(size_t)c * (size_t)n + (size_t)c];
            for (int k = c; k < n; ++k)
                A[(size_t)r * (size_t)n + (size_t)k] -= f * A[(size_t)c * (size_t)n + (size_t)k];
            b[r] -= f * b[c];
        }
    }
    for (int r = n - 1; r >= 0; --r) {
        double acc = b[r];
        for (int k = r + 1; k < n; ++k) acc -= A[(size_t)r * (size_t)n + (size_t)k] * b[k];
        b[r] = acc / A[(size_t)r * (size_t)n + (size_t)r];
    }
    return 0;
}

int rb_match_velocity(rm_model *r, const ld_model *m) {
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    check_ld("compile", ld_model_compile(m, LD_FORM_SO3XR3, &s, &q0, &v0));
    int nl = ld_model_joint_dofs(&s), nv = rm_nv(r), k = s.k, st = -1;
    if (nl != nv) goto done;
    double *J = malloc((size_t)k * (size_t)nl * sizeof *J),
           *N = malloc((size_t)nl * (size_t)nl * sizeof *N);
    double *c = malloc((size_t)nl * sizeof *c), *T = malloc((size_t)nl * (size_t)nv * sizeof *T);
    double *x0 = malloc(3 * (size_t)m->nbodies * sizeof *x0),
           *qq = malloc(4 * (size_t)m->nbodies * sizeof *qq);
    int *cov = calloc((size_t)nv, sizeof *cov);
    if (!J || !N || !c || !T || !x0 || !qq || !cov) die("velocity", "out of memory");
    check_ld("joint jacobian", ld_model_joint_jacobian(&s, 0.0, q0, J));
    for (int a = 0; a < nl; ++a) { /* Jᵀ J ċ = Jᵀ v0: liedyn's rates of its initial state */
        double acc = 0.0;
        for (int i = 0; i < k; ++i) acc += J[(size_t)a * (size_t)k + (size_t)i] * v0[i];
        c[a] = acc;
        for (int b = 0; b < nl; ++b) {
            acc = 0.0;
            for (int i = 0; i < k; ++i)
                acc += J[(size_t)a * (size_t)k + (size_t)i] * J[(size_t)b * (size_t)k + (size_t)i];
            N[(size_t)a * (size_t)nl + (size_t)b] = acc;
        }
    }
    if (solve_dense(N, c, nl) == 0) {
        for (int b = 0; b < m->nbodies; ++b) {
            double om[3], xd[3];
            check_ld("body", ld_model_body_state(&s, b, q0, v0, x0 + 3 * b, qq + 4 * b, om, xd));
        }
        mass_map(r, m, x0, qq, T, nl, cov);
        if (solve_dense(T, c, nl) == 0) { /* T ċ_MuJoCo = ċ */
            for (int d = 0; d < nv; ++d) rm_set_dof_rate(r, d, c[d]);
            st = 0;
        }
    }
    free(J), free(N), free(c), free(T), free(x0), free(qq), free(cov);
done:
    free(q0), free(v0);
    ld_model_system_free(&s);
    return st;
}

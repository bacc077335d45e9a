/*
 * Robot files side by side with MuJoCo: the same URDF or MJCF file loaded by MuJoCo
 * (mj_loadXML) and by liedyn's importer, started from the same joint angles, falling passively
 * under gravity with joint damping for 1 s; contacts, joint limits, actuators, equality
 * constraints, frictionloss and armature off in MuJoCo (liedyn does not import them). Prints
 * CSV tables (docs/import.md#side-by-side-with-mujoco):
 *
 *   model    what each code built: bodies, joints, MuJoCo's dofs, total masses
 *   mass     the joint-space mass matrix at the start: liedyn's Jᵀ M J in MuJoCo's coordinates
 *            against mj_fullM
 *   run      per code, method and step: the largest differences of the joint angles, the bodies'
 *            orientations and positions against MuJoCo's reference (RK4, h = 1e-5) and against
 *            the same code at half the step (convergence), and the CPU time of the stepping
 *   cost     the largest robot: CPU time per simulated second of each code at the largest step
 *            whose angles are within 1e-6 rad of the reference (cost_try: the steps tried),
 *            medians of alternated repeats
 *
 * BENCH_QUICK=1: the WAM arm only, 0.05 s, coarse steps (seconds; RB_ALL=1 adds the other
 * robots). RB_COST_ONLY=1: the model, mass and cost tables alone. Without MuJoCo or without
 * the robot files (dart-doc, libmujoco-samples) the bench says what it skips and succeeds.
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME      "bench_robots"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "liedyn/coords.h"
#include "liedyn/system.h"
#include "robots.h"

typedef struct rcase {
    const char *name, *path;
    int urdf;
    int chain; /* MJCF: several joints of a body as a chain (ld_import_options.chain_joints) */
} rcase;

static const rcase cases[] = {
    {"wam", "/usr/share/doc/dart/data/urdf/wam/wam.urdf", 1, 0},
    {"drchubo", "/usr/share/doc/dart/data/urdf/drchubo/drchubo.urdf", 1, 0},
    {"humanoid", "/usr/share/mujoco/model/humanoid/humanoid.xml", 0, 0},
    {"humanoid-chained", "/usr/share/mujoco/model/humanoid/humanoid.xml", 0, 1},
    {"arm26", "/usr/share/mujoco/model/tendon_arm/arm26.xml", 0, 0},
};
#define NCASES  ((int)(sizeof cases / sizeof cases[0]))
#define LARGEST 1 /* drchubo: 51 joints */

/* Damping given to the URDF joints that have none: c = M_jj / TAU with M_jj the joint's diagonal
 * entry of the mass matrix at zero angles, so that every joint's damping acts on the same time
 * scale (a uniform c would make the light fingers' joints stiff: c/M_jj of 10⁶ /s). */
#define TAU 0.1
/* Auxiliary bodies of MJCF bodies with two hinges at different points: this fraction of the
 * body's mass (the import's default is 1e-3; MuJoCo has no such bodies). */
#define AUX_RATIO 1e-8

/* One loaded case: both codes' models at the same initial angles. */
typedef struct loaded {
    const rcase *c;
    char path[512]; /* the file both load */
    rm_model *r;
    ld_model m;
} loaded;

/* The initial angle of the i-th shared hinge: ±0.5 rad, deterministic. */
static double angle_of(int i) {
    return 0.5 * sin(1.3 * i + 0.4);
}

/* Rewrite path (a copy of src) with each revolute joint damped by c = M_jj / TAU. */
static void urdf_damping(const char *path, const char *src) {
    ld_model m;
    lt_load(path, AUX_RATIO, 0, NULL, NULL, NULL, 0, &m);
    ld_system s;
    double *q0 = NULL, *v0 = NULL;
    check_ld("compile", ld_model_compile(&m, LD_FORM_SO3XR3, &s, &q0, &v0));
    int n = ld_model_joint_dofs(&s), col = 0, k = 0;
    double *M = malloc((size_t)n * (size_t)n * sizeof *M), *c = malloc((size_t)n * sizeof *c);
    const char **names = malloc((size_t)n * sizeof *names);
    check_ld("joint mass matrix", ld_model_joint_mass_matrix(&s, 0.0, q0, M));
    for (int j = 0; j < m.njoints; ++j) {
        if (m.joints[j].kind == LD_JOINT_REVOLUTE)
            names[k] = m.joints[j].name, c[k++] = M[(size_t)col * (size_t)n + (size_t)col] / TAU;
        col += m.joints[j].kind == LD_JOINT_REVOLUTE || m.joints[j].kind == LD_JOINT_PRISMATIC;
        if (m.joints[j].kind != LD_JOINT_REVOLUTE && m.joints[j].kind != LD_JOINT_PRISMATIC &&
            m.joints[j].kind != LD_JOINT_FIXED)
            die(src, "a URDF joint other than revolute, prismatic or fixed");
    }
    if (lt_prepare_urdf(src, path, names, c, k) != 0) die(src, "cannot copy");
    free(M), free(c), free(names), free(q0), free(v0);
    ld_model_system_free(&s);
    ld_model_free(&m);
}

/* The initial rate of the i-th shared hinge: ±1 rad/s. */
static double rate_of(int i) {
    return cos(0.7 * i + 0.2);
}

static int load_case(const rcase *c, const char *dir, loaded *L) {
    L->c = c;
    if (access(c->path, R_OK) != 0) {
        printf("# %s: skipped: %s not installed (apt-get install dart-doc libmujoco-samples)\n",
               c->name, c->path);
        return 0;
    }
    snprintf(L->path, sizeof L->path, "%s", c->path);
    if (c->urdf) {
        snprintf(L->path, sizeof L->path, "%s/%s.urdf", dir, c->name);
        if (lt_prepare_urdf(c->path, L->path, NULL, NULL, 0) != 0) die(c->path, "cannot copy");
        urdf_damping(L->path, c->path);
    }
    char err[600];
    L->r = rm_load(L->path, err, sizeof err);
    if (!L->r) die(L->path, err);
    ld_model m0;
    lt_load(L->path, AUX_RATIO, c->chain, NULL, NULL, NULL, 0, &m0);
    /* the hinges that are revolute joints in liedyn get rates and angles, but no angle where
     * they have a spring (MuJoCo's rests at springref, liedyn's where the run starts); the
     * others start at rest at 0 */
    int nj = rm_njnt(L->r), n = 0;
    const char **names = malloc((size_t)(nj > 0 ? nj : 1) * sizeof *names);
    double *ang = malloc((size_t)(nj > 0 ? nj : 1) * sizeof *ang);
    double *rate = malloc((size_t)(nj > 0 ? nj : 1) * sizeof *rate);
    for (int j = 0; j < nj; ++j) {
        const char *nm = rm_jnt_name(L->r, j);
        for (int k = 0; k < m0.njoints; ++k)
            if (rm_jnt_type(L->r, j) == RM_HINGE && m0.joints[k].kind == LD_JOINT_REVOLUTE &&
                strcmp(m0.joints[k].name, nm) == 0) {
                names[n] = nm, ang[n] = angle_of(n), rate[n] = rate_of(n);
                if (rm_jnt_stiffness(L->r, j) != 0.0) ang[n] = 0.0;
                rm_set_coord(L->r, j, ang[n]);
                rm_set_rate(L->r, j, rate[n]);
                ++n;
            }
    }
    lt_load(L->path, AUX_RATIO, c->chain, names, ang, rate, n, &L->m);
    /* liedyn solves the velocities no rate is given for (a floating root's, a universal or
     * spherical joint's) from the joints (docs/constraints.md): MuJoCo starts from the same */
    if (rb_match_velocity(L->r, &L->m) != 0) die(c->path, "the dofs of the two codes do not map");
    ld_model_free(&m0);
    double ml = 0.0, mm = 0.0;
    for (int b = 0; b < L->m.nbodies; ++b) ml += L->m.bodies[b].mass;
    for (int b = 0; b < rm_nbody(L->r); ++b) mm += rm_body_mass(L->r, b);
    /* the inertia tensors of the bodies both have with the same mass (MuJoCo fuses the bodies
     * fixed to their parent) */
    double dj = 0.0;
    for (int b = 1; b < rm_nbody(L->r); ++b) {
        int i = rb_body_of(L->r, &L->m, b);
        if (i < 0 ||
            fabs(L->m.bodies[i].mass - rm_body_mass(L->r, b)) > 1e-12 * rm_body_mass(L->r, b))
            continue;
        double J[9];
        rm_body_inertia(L->r, b, J);
        for (int e = 0; e < 9; ++e)
            dj = fmax(dj, fabs(J[e] - L->m.bodies[i].inertia[e]) / fabs(J[0] + J[4] + J[8]));
    }
    printf("model,%s,%d,%d,%d,%d,%d,%.10g,%.10g,%.3e\n", c->name, L->m.nbodies, L->m.njoints,
           rm_nbody(L->r) - 1, rm_nv(L->r), n, ml, mm, dj);
    free(names), free(ang), free(rate);
    return 1;
}

/* liedyn's inertia tensors into save (9 per body), then MuJoCo's compiled ones (R(iquat) diag
 * Rᵀ) in their place for the bodies both have with the same mass. */
static void mujoco_inertia(loaded *L, double *save) {
    for (int i = 0; i < L->m.nbodies; ++i)
        memcpy(save + 9 * i, L->m.bodies[i].inertia, 9 * sizeof *save);
    for (int b = 1; b < rm_nbody(L->r); ++b) {
        int i = rb_body_of(L->r, &L->m, b);
        double mm = rm_body_mass(L->r, b);
        if (i >= 0 && fabs(L->m.bodies[i].mass - mm) <= 1e-12 * mm)
            rm_body_inertia(L->r, b, L->m.bodies[i].inertia);
    }
}

static void restore_inertia(loaded *L, const double *save) {
    for (int i = 0; i < L->m.nbodies; ++i)
        memcpy(L->m.bodies[i].inertia, save + 9 * i, 9 * sizeof *save);
}

static void free_case(loaded *L) {
    rm_free(L->r);
    ld_model_free(&L->m);
}

static void print_diff_row(const char *cs, const char *code, const char *method, double h,
                           double cpu, rb_diff ref, const rb_diff *self) {
    printf("run,%s,%s,%s,%.3g,%.3g,%d,%d,%.3g,%.3e,%.3e,%.3e,", cs, code, method, h, cpu, ref.nang,
           ref.nbody, ref.motion, ref.ang, ref.rot, ref.pos);
    if (self)
        printf("%.3e,%.3e,%.3e\n", self->ang, self->rot, self->pos);
    else
        printf(",,\n");
}

/* The tree formulation's rows of the run study (hem5 at h0 … h0/2^nh against MuJoCo's
 * reference and against the previous step), or a line saying why the model is not a tree. */
static void tree_study(loaded *L, const rm_samples *ref, double t_end, int ns, double h0, int nh) {
    char why[512];
    if (!lt_compiles(&L->m, LD_FORM_TREE, why, sizeof why)) {
        printf("# run,%s,liedyn,hem5-tree: not run: %s\n", L->c->name, why);
        return;
    }
    lt_samples prev = {0}, cur = {0};
    for (int i = 0; i <= nh; ++i) {
        double h = h0 / (double)(1 << i);
        double cpu = lt_run(&L->m, "hem5", LD_FORM_TREE, h, t_end, ns, &cur, 0);
        rb_diff d = rb_compare(L->r, &L->m, ref, &cur), s;
        if (i > 0) s = lt_compare(&L->m, &prev, &cur);
        print_diff_row(L->c->name, "liedyn", "hem5-tree", h, cpu, d, i > 0 ? &s : NULL);
        lt_samples_free(&prev);
        prev = cur;
        memset(&cur, 0, sizeof cur);
    }
    lt_samples_free(&prev);
}

/* The run study of one case: MuJoCo's reference, liedyn's method at h0, h0/2, h0/4 (each
 * against the reference and against the next), MuJoCo RK4 at a few steps. */
static void run_study(loaded *L, double t_end, int ns, double h_ref, double h0, int nh) {
    const char *cs = L->c->name;
    rm_samples ref, mr;
    int nj = rm_njnt(L->r), nb = rm_nbody(L->r);
    rm_samples_alloc(&ref, ns, nj, nb);
    double cpu = rm_run(L->r, 1, h_ref, t_end, ns, &ref, 0);
    rb_diff zero = {0};
    print_diff_row(cs, "mujoco", "rk4", h_ref, cpu, zero, NULL);
    lt_samples prev = {0}, cur = {0};
    for (int i = 0; i <= nh; ++i) {
        double h = h0 / (double)(1 << i);
        cpu = lt_run(&L->m, "hem5", LD_FORM_SO3XR3, h, t_end, ns, &cur, 0);
        rb_diff d = rb_compare(L->r, &L->m, &ref, &cur), s;
        if (i > 0) s = lt_compare(&L->m, &prev, &cur);
        print_diff_row(cs, "liedyn", "hem5-so3xr3", h, cpu, d, i > 0 ? &s : NULL);
        lt_samples_free(&prev);
        prev = cur;
        memset(&cur, 0, sizeof cur);
    }
    lt_samples_free(&prev);
    { /* liedyn with MuJoCo's compiled inertia tensors at the finest step */
        double h = h0 / (double)(1 << nh);
        double *save = malloc(9 * (size_t)L->m.nbodies * sizeof *save);
        mujoco_inertia(L, save);
        cpu = lt_run(&L->m, "hem5", LD_FORM_SO3XR3, h, t_end, ns, &cur, 0);
        restore_inertia(L, save);
        free(save);
        print_diff_row(cs, "liedyn", "hem5-so3xr3-mujoco-inertia", h, cpu,
                       rb_compare(L->r, &L->m, &ref, &cur), NULL);
        lt_samples_free(&cur);
    }
    tree_study(L, &ref, t_end, ns, h0, nh);
    rm_samples_alloc(&mr, ns, nj, nb);
    for (int i = 0; i <= nh; ++i) {
        double h = h0 / (double)(1 << i);
        cpu = rm_run(L->r, 1, h, t_end, ns, &mr, 0);
        rb_diff d = rm_compare(L->r, &ref, &mr);
        print_diff_row(cs, "mujoco", "rk4", h, cpu, d, NULL);
    }
    rm_samples_free(&mr);
    rm_samples_free(&ref);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The codes of the cost study: liedyn's hem5 in maximal coordinates and in the tree
 * formulation, MuJoCo's RK4; evaluations of the dynamics per step (hem5's 6 stages, RK4's 4). */
typedef struct cost_code {
    const char *code, *label, *method; /* the rows' code and method, the method run */
    int liedyn;
    ld_formulation form;
    int evals;
    double h, err; /* the step found and its error (0: none yet) */
} cost_code;

/* One run of code c at step h, sampled ns times (ref: compared, NULL: timing alone): the CPU
 * seconds (−1: failed) and the largest angle difference to ref in *d. */
static double cost_run(loaded *L, const cost_code *c, double h, double t_end, int ns,
                       const rm_samples *ref, rm_samples *mr, double *d) {
    if (c->liedyn) {
        lt_samples cur = {0};
        double cpu = lt_run(&L->m, c->method, c->form, h, t_end, ns, ref ? &cur : NULL, 1);
        if (cpu >= 0.0 && ref) {
            *d = rb_compare(L->r, &L->m, ref, &cur).ang;
            lt_samples_free(&cur);
        }
        return cpu;
    }
    double cpu = rm_run(L->r, 1, h, t_end, ns, ref ? mr : NULL, 1);
    if (cpu >= 0.0 && ref) *d = rm_compare(L->r, ref, mr).ang;
    return cpu;
}

/* The cost study: per code the largest step of hs[] within tol of the reference in the joint
 * angles, then the median CPU time of reps alternated runs at that step. */
static void cost_study(loaded *L, double t_end, int ns, double h_ref, const double *hs, int nh,
                       double tol, int reps) {
    int nj = rm_njnt(L->r), nb = rm_nbody(L->r);
    char why[512];
    cost_code codes[3] = {{"liedyn", "hem5-so3xr3", "hem5", 1, LD_FORM_SO3XR3, 6, 0, NAN},
                          {"liedyn", "hem5-tree", "hem5", 1, LD_FORM_TREE, 6, 0, NAN},
                          {"mujoco", "rk4", "rk4", 0, LD_FORM_SO3XR3, 4, 0, NAN}};
    int nc = 3, mj = 2;
    if (!lt_compiles(&L->m, LD_FORM_TREE, why, sizeof why)) {
        printf("# cost,%s,liedyn,hem5-tree: not run: %s\n", L->c->name, why);
        codes[1] = codes[2], nc = 2, mj = 1;
    }
    rm_samples ref, mr;
    rm_samples_alloc(&ref, ns, nj, nb);
    rm_samples_alloc(&mr, ns, nj, nb);
    rm_run(L->r, 1, h_ref, t_end, ns, &ref, 0);
    for (int c = 0; c < nc; ++c) {
        cost_code *k = &codes[c];
        for (int i = 0; i < nh && k->h == 0.0; ++i) {
            double d = NAN;
            double cpu = cost_run(L, k, hs[i], t_end, ns, &ref, &mr, &d);
            if (cpu < 0.0) {
                printf("cost_try,%s,%s,%s,%.3g,failed\n", L->c->name, k->code, k->label, hs[i]);
                continue;
            }
            printf("cost_try,%s,%s,%s,%.3g,%.3e\n", L->c->name, k->code, k->label, hs[i], d);
            if (d <= tol) k->h = hs[i], k->err = d;
        }
    }
    rm_samples_free(&ref);
    rm_samples_free(&mr);
    for (int c = 0; c < nc; ++c)
        if (codes[c].h == 0.0) {
            printf("# cost,%s: %s %s reaches %.0e rad at no step of the list\n", L->c->name,
                   codes[c].code, codes[c].label, tol);
            return;
        }
    double *t = malloc((size_t)(reps * nc) * sizeof *t);
    for (int r = 0; r < reps; ++r) /* alternated */
        for (int c = 0; c < nc; ++c)
            t[c * reps + r] =
                cost_run(L, &codes[c], codes[c].h, t_end, 2, NULL, NULL, NULL) / t_end;
    for (int c = 0; c < nc; ++c) qsort(t + c * reps, (size_t)reps, sizeof *t, cmp_double);
    double mm = t[mj * reps + reps / 2];
    for (int c = 0; c < nc; ++c) {
        const cost_code *k = &codes[c];
        const double *tc = t + c * reps, med = tc[reps / 2];
        printf("cost,%s,%s,%s,%.3g,%.3e,%ld,%.4g,%.4g,%.4g,%.4g,%.4g,%.3g\n", L->c->name, k->code,
               k->label, k->h, k->err, lround(t_end / k->h), med, tc[0], tc[reps - 1],
               1e6 * med * k->h, 1e6 * med * k->h / k->evals, med / mm);
    }
    free(t);
}

int main(void) {
    int quick = bench_quick();
    const char *ver = rm_version();
    if (!ver) {
        printf("# bench_robots: skipped: built without MuJoCo (libmujoco-dev; LD_PEERS=OFF or "
               "not found)\n");
        return 0;
    }
    printf("# bench_robots: MuJoCo %s; URDF joints without damping get c = M_jj/%g s; MJCF "
           "auxiliary bodies %g of their body's mass\n",
           ver, TAU, AUX_RATIO);
    char dir[] = "/tmp/bench_robots.XXXXXX";
    if (!mkdtemp(dir)) die("mkdtemp", "failed");
    double t_end = quick ? 0.05 : 1.0, h_ref = quick ? 1e-4 : 1e-5;
    int ns = quick ? 6 : 101;
    printf("model,case,liedyn_bodies,liedyn_joints,mujoco_bodies,mujoco_dofs,angles_set,"
           "liedyn_mass,mujoco_mass,inertia_rel_diff\n");
    loaded L[NCASES];
    int have[NCASES] = {0};
    for (int i = 0; i < (quick ? (getenv("RB_ALL") ? NCASES : 1) : NCASES); ++i)
        have[i] = load_case(&cases[i], dir, &L[i]);
    printf("mass,case,inertia,dofs_compared,max_abs_diff,max_abs_entry,relative\n");
    for (int i = 0; i < NCASES; ++i) {
        if (!have[i]) continue;
        double dm, mm;
        int nd;
        rb_mass_compare(L[i].r, &L[i].m, &dm, &mm, &nd);
        printf("mass,%s,liedyn,%d,%.3e,%.4g,%.3e\n", cases[i].name, nd, dm, mm, dm / mm);
        double *save = malloc(9 * (size_t)L[i].m.nbodies * sizeof *save);
        mujoco_inertia(&L[i], save);
        rb_mass_compare(L[i].r, &L[i].m, &dm, &mm, &nd);
        restore_inertia(&L[i], save);
        free(save);
        printf("mass,%s,mujoco-inertia,%d,%.3e,%.4g,%.3e\n", cases[i].name, nd, dm, mm, dm / mm);
    }
    printf("run,case,code,method,h,cpu_s,angles,bodies,motion_rad,ang_vs_ref,rot_vs_ref,pos_vs_ref,"
           "ang_vs_half,"
           "rot_vs_half,pos_vs_half\n");
    /* RB_COST_ONLY=1: the cost study alone (the model and mass rows stay) */
    int cost_only = getenv("RB_COST_ONLY") && getenv("RB_COST_ONLY")[0] == '1';
    for (int i = 0; i < NCASES && !cost_only; ++i)
        if (have[i]) run_study(&L[i], t_end, ns, h_ref, quick ? 1e-3 : 4e-4, quick ? 1 : 2);
    if (!quick && have[LARGEST]) {
        printf("cost_try,case,code,method,h,ang_vs_ref\n");
        printf("cost,case,code,method,h,ang_vs_ref,steps,cpu_per_s_median,min,max,us_per_step,"
               "us_per_evaluation,ratio_to_mujoco\n");
        static const double hs[] = {1e-2,     5e-3,    1e-2 / 3, 2.5e-3, 2e-3,   1e-2 / 6,
                                    1e-2 / 7, 1.25e-3, 1e-3,     5e-4,   2.5e-4, 1e-4};
        cost_study(&L[LARGEST], t_end, ns, h_ref, hs, (int)(sizeof hs / sizeof hs[0]), 1e-6, 5);
    }
    for (int i = 0; i < NCASES; ++i)
        if (have[i]) free_case(&L[i]);
    if (cases[0].urdf) {
        char p[600];
        for (int i = 0; i < NCASES; ++i)
            if (cases[i].urdf) snprintf(p, sizeof p, "%s/%s.urdf", dir, cases[i].name), remove(p);
    }
    rmdir(dir);
    return 0;
}

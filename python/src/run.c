/* liedyn.run (the C part): the simulation loop of `liedyn run` on a Model — fixed steps on the
 * grid t0 + n dt (the last one ending on t_end) or controlled steps — with the GIL released,
 * rows of t, the bodies' x, q, ω, v, the joints' coordinates and rates (liedyn/coords.h,
 * angles unwrapped row by row) and reactions, the energy and the constraint residual at the
 * output times (every k-th step, or requested times by dense output between steps), the
 * statistics, and the checks of `liedyn run` on every step (liedyn/runcheck.h: a run that
 * drifts off its constraints ends there with status "drifted"). */
#define _POSIX_C_SOURCE 200809L
#include "ext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROW_BODY  13 /* x 3, q 4, omega 3, v 3 */
#define CONTACT_W 16 /* row, t, body1, body2, shape1, shape2, point 3, normal 3, gap, force 3 */

typedef struct run_ctx {
    ld_py_system *S;
    ld_integ *it;
    double t0, t1, dt;
    int every, adaptive;
    const double *times; /* requested output times (sorted) or NULL */
    npy_intp ntimes, next_time;
    /* rows: t, per body 13, the joints' values (njc), per joint its reaction (6), energy,
     * residual */
    int width, njc;
    double *jprev; /* the joints' values of the row before (NaN: none) */
    double *rows;
    npy_intp nrows, cap;
    /* the previous step's state (dense output: λ linear between the steps) and scratch */
    double *qp, *vp, *qd, *vd, *lp, *ld;
    double tp;
    ld_runcheck chk; /* the checks over every step */
    double cpu;      /* process CPU seconds of the loop */
    /* contact (a model with contact): per output row the last step's contacts, 15 doubles
     * each (row, t, body1, body2, shape1, shape2, point 3, normal 3, gap, force 3 ... see
     * CONTACT_W), ncon of them; cp the integrator's list (cpcap) */
    int contact;
    double *con;
    npy_intp ncon, concap;
    ld_contact_point *cp;
    int cpcap;
    long steps;
    int status, interrupted;
    /* why the loop returned −1 (it runs without the GIL: no exception there): the bytes and
     * what they were for, or the time of a step dense output could not interpolate */
    size_t oom;
    const char *oom_what;
    double t_interp;
} run_ctx;

/* CPU seconds of the calling thread, which runs the steps (and the user's Python callbacks):
 * not the process's, which in Python holds the idle workers of numpy's BLAS as well — they
 * spin for about 0.1 s after each parallel call and doubled the cpu_s of a 0.05 s run. */
static double cpu_now(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return (double)clock() / CLOCKS_PER_SEC;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The joints' coordinates and rates at (t, q, v) into out (c->njc): per joint its n coordinates,
 * then its n rates, the periodic angles unwrapped against the row before. */
static void joint_values(run_ctx *c, double t, const double *q, const double *v, double *out) {
    const ld_model *m = &c->S->model->m;
    int k = 0;
    for (int j = 0; j < m->njoints; ++j) {
        ld_joint_kind kind = m->joints[j].kind;
        int n = ld_joint_coords_count(kind), got = 0;
        if (n == 0) continue;
        double jc[LD_JOINT_COORDS_MAX], jd[LD_JOINT_COORDS_MAX];
        if (ld_model_joint_coords(&c->S->s, j, t, q, v, jc, jd, &got) != LD_OK || got != n)
            for (int i = 0; i < n; ++i) jc[i] = jd[i] = NAN;
        for (int i = 0; i < n; ++i) {
            out[k + i] = ld_joint_coord_periodic(kind, i)
                             ? ld_joint_angle_unwrap(jc[i], c->jprev[k + i])
                             : jc[i];
            out[k + n + i] = jd[i];
        }
        for (int i = 0; i < 2 * n; ++i)
            if (isfinite(out[k + i])) c->jprev[k + i] = out[k + i];
        k += 2 * n;
    }
}

/* Append the last step's contacts as those of output row c->nrows at t; −1 when out of
 * memory (c->oom says how much). */
static int add_contacts(run_ctx *c, double t) {
    int n = ld_integ_contacts(c->it, c->cp, c->cpcap);
    if (n > c->cpcap) {
        ld_contact_point *p = realloc(c->cp, (size_t)n * sizeof *p);
        if (!p) {
            c->oom = (size_t)n * sizeof *p, c->oom_what = "the contact points";
            return -1;
        }
        c->cp = p, c->cpcap = n;
        n = ld_integ_contacts(c->it, c->cp, c->cpcap);
    }
    if (n < 0) n = 0;
    if (c->ncon + n > c->concap) {
        npy_intp cap = c->concap ? 2 * c->concap : 1024;
        while (cap < c->ncon + n) cap *= 2;
        double *r = realloc(c->con, (size_t)cap * CONTACT_W * sizeof(double));
        if (!r) {
            c->oom = (size_t)cap * CONTACT_W * sizeof(double), c->oom_what = "the contact rows";
            return -1;
        }
        c->con = r, c->concap = cap;
    }
    for (int i = 0; i < n; ++i) {
        const ld_contact_point *p = &c->cp[i];
        double *o = c->con + (c->ncon + i) * CONTACT_W;
        o[0] = (double)c->nrows, o[1] = t;
        o[2] = p->body1, o[3] = p->body2, o[4] = p->shape1, o[5] = p->shape2;
        memcpy(o + 6, p->point, 3 * sizeof(double));
        memcpy(o + 9, p->normal, 3 * sizeof(double));
        o[12] = p->gap;
        memcpy(o + 13, p->force, 3 * sizeof(double));
    }
    c->ncon += n;
    return 0;
}

/* Append the row of the state (t, q, v, λ); −1 when out of memory (c->oom says how much). */
static int add_row(run_ctx *c, double t, const double *q, const double *v, const double *lam) {
    if (c->nrows == c->cap) {
        npy_intp cap = c->cap ? 2 * c->cap : 256;
        double *r = realloc(c->rows, (size_t)cap * (size_t)c->width * sizeof(double));
        if (!r) {
            c->oom = (size_t)cap * (size_t)c->width * sizeof(double), c->oom_what = "the rows";
            return -1;
        }
        c->rows = r;
        c->cap = cap;
    }
    double *row = c->rows + c->nrows * c->width;
    const ld_py_system *S = c->S;
    if (c->contact && add_contacts(c, t) != 0) return -1;
    row[0] = t;
    for (int b = 0; b < S->model->m.nbodies; ++b) {
        double *p = row + 1 + ROW_BODY * b;
        ld_model_body_state(&S->s, b, q, v, p, p + 3, p + 7, p + 10);
    }
    joint_values(c, t, q, v, row + 1 + ROW_BODY * S->model->m.nbodies);
    double *react = row + 1 + ROW_BODY * S->model->m.nbodies + c->njc;
    for (int j = 0; j < S->model->m.njoints; ++j) {
        for (int i = 0; i < 6; ++i) react[6 * j + i] = NAN;
        if (lam) (void)ld_model_joint_reaction(&S->s, j, q, lam, react + 6 * j, react + 6 * j + 3);
    }
    row[c->width - 2] = ld_py_system_energy(S, t, q, v);
    row[c->width - 1] = ld_py_system_phimax(S, t, q);
    c->nrows++;
    return 0;
}

/* The requested times in (tp, t] of the step just taken, by dense output; −1 when out of
 * memory or the step cannot be interpolated (c->t_interp). */
static int dense_rows(run_ctx *c, double t, const double *q, const double *v) {
    double h = t - c->tp;
    while (c->next_time < c->ntimes && c->times[c->next_time] <= t) {
        double tt = c->times[c->next_time++];
        int rc;
        const double *lam = ld_integ_lambda(c->it);
        int m = c->S->s.m;
        if (tt == t)
            rc = add_row(c, t, q, v, lam);
        else if (tt <= c->tp)
            rc = add_row(c, c->tp, c->qp, c->vp, c->lp);
        else {
            double th = (tt - c->tp) / h;
            if (ld_sys_interpolate(&c->S->s, c->qp, c->vp, q, v, h, th, c->qd, c->vd) != LD_OK) {
                c->t_interp = t;
                return -1;
            }
            for (int i = 0; i < m; ++i) c->ld[i] = (1.0 - th) * c->lp[i] + th * lam[i];
            rc = add_row(c, tt, c->qd, c->vd, c->ld);
        }
        if (rc) return rc;
    }
    return 0;
}

/* The loop; returns 0, a library status, or −1 (out of memory). Runs without the GIL; every
 * 256 steps it takes the GIL to check for signals (Ctrl-C stops it). */
static int loop(run_ctx *c, PyThreadState **save) {
    ld_integ *it = c->it;
    const ld_system *s = &c->S->s;
    const double *q = ld_integ_q(it), *v = ld_integ_v(it);
    long nsteps = (long)ceil((c->t1 - c->t0) / c->dt - 1e-9);
    if (nsteps < 1) nsteps = 1;
    c->tp = ld_integ_t(it);
    (void)ld_runcheck_state(&c->chk, s, c->tp, q, v);
    if (c->times ? dense_rows(c, c->tp, q, v) : add_row(c, c->tp, q, v, ld_integ_lambda(it)))
        return -1;
    for (long n = 1; c->adaptive ? ld_integ_t(it) < c->t1 : n <= nsteps; ++n) {
        if (c->times) {
            memcpy(c->qp, q, (size_t)s->nq * sizeof(double));
            memcpy(c->vp, v, (size_t)s->k * sizeof(double));
            memcpy(c->lp, ld_integ_lambda(it), (size_t)s->m * sizeof(double));
            c->tp = ld_integ_t(it);
        }
        int rc = c->adaptive
                     ? ld_integ_step_adaptive(it, c->t1)
                     : ld_integ_advance_to(it, n == nsteps ? c->t1 : c->t0 + (double)n * c->dt);
        double t = ld_integ_t(it);
        if (rc) { /* the state reached, as the CLI writes it */
            if (!c->times && t != c->rows[(c->nrows - 1) * c->width] &&
                add_row(c, t, q, v, ld_integ_lambda(it)))
                return -1;
            return rc;
        }
        c->steps++;
        int drifted = ld_runcheck_state(&c->chk, s, t, q, v) != 0;
        int last = drifted || (c->adaptive ? t >= c->t1 : n == nsteps);
        if (c->times ? dense_rows(c, t, q, v)
                     : ((n % c->every == 0 || last) && add_row(c, t, q, v, ld_integ_lambda(it))))
            return -1;
        /* a drifted run ends here, with the row of the state at fault (as the CLI's) */
        if (drifted) {
            if (c->times && (c->nrows == 0 || c->rows[(c->nrows - 1) * c->width] != t) &&
                add_row(c, t, q, v, ld_integ_lambda(it)))
                return -1;
            return 0;
        }
        if ((n & 255) == 0) {
            PyEval_RestoreThread(*save);
            int sig = PyErr_CheckSignals();
            *save = PyEval_SaveThread();
            if (sig < 0) {
                c->interrupted = 1;
                return 0;
            }
        }
    }
    return 0;
}

/* Column col of the rows as a new array into dict d under key. 0, or −1 with an exception. */
static int put_column(const run_ctx *c, PyObject *d, const char *key, int col) {
    npy_intp n = c->nrows, s1[1] = {n};
    PyArrayObject *a = ld_py_new(1, s1);
    if (!a) return -1;
    double *x = PyArray_DATA(a);
    for (npy_intp r = 0; r < n; ++r) x[r] = c->rows[r * c->width + col];
    int rc = PyDict_SetItemString(d, key, (PyObject *)a) < 0 ? -1 : 0;
    Py_DECREF(a);
    return rc;
}

/* The joints' columns of the rows: {joint name ("joint<i>" when unnamed): {value name: (n,)
 * array}}, per joint its coordinates and rates (the joints that have some) and its reaction
 * fx, fy, fz, tx, ty, tz (the CSV's JOINT.fx ... JOINT.tz). NULL with an exception. */
static PyObject *joint_results(const run_ctx *c) {
    static const char *const rname[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};
    const ld_model *m = &c->S->model->m;
    int col = 1 + ROW_BODY * m->nbodies, rcol = col + c->njc;
    PyObject *all = PyDict_New();
    for (int j = 0; all && j < m->njoints; ++j) {
        ld_joint_kind kind = m->joints[j].kind;
        int nv = 2 * ld_joint_coords_count(kind);
        PyObject *d = PyDict_New();
        int bad = !d;
        for (int i = 0; !bad && i < nv; ++i, ++col)
            bad = put_column(c, d, ld_joint_coord_name(kind, i), col) < 0;
        for (int i = 0; !bad && i < 6; ++i) bad = put_column(c, d, rname[i], rcol + 6 * j + i) < 0;
        char name[LD_NAME_MAX + 16];
        if (m->joints[j].name[0])
            snprintf(name, sizeof name, "%s", m->joints[j].name);
        else
            snprintf(name, sizeof name, "joint%d", j);
        if (bad || PyDict_SetItemString(all, name, d) < 0) Py_CLEAR(all);
        Py_XDECREF(d);
    }
    return all;
}

/* The contacts of the rows as a dict of arrays (row, t, body1, body2, shape1, shape2 (n,), point,
 * normal, force (n, 3), gap (n,)), or None for a model without contact. NULL with an exception. */
static PyObject *contact_results(const run_ctx *c) {
    if (!c->contact) Py_RETURN_NONE;
    static const char *const names[10] = {"row",    "t",     "body1",  "body2", "shape1",
                                          "shape2", "point", "normal", "gap",   "force"};
    static const int col[10] = {0, 1, 2, 3, 4, 5, 6, 9, 12, 13},
                     w[10] = {1, 1, 1, 1, 1, 1, 3, 3, 1, 3};
    PyObject *d = PyDict_New();
    for (int k = 0; d && k < 10; ++k) {
        npy_intp shape[2] = {c->ncon, 3};
        PyArrayObject *a = ld_py_new(w[k] == 3 ? 2 : 1, shape);
        if (!a) {
            Py_CLEAR(d);
            break;
        }
        double *x = PyArray_DATA(a);
        for (npy_intp i = 0; i < c->ncon; ++i)
            for (int j = 0; j < w[k]; ++j) x[i * w[k] + j] = c->con[i * CONTACT_W + col[k] + j];
        if (PyDict_SetItemString(d, names[k], (PyObject *)a) < 0) Py_CLEAR(d);
        Py_DECREF(a);
    }
    ld_contact_stats st;
    if (d && ld_integ_contact_stats(c->it, &st) == LD_OK) {
        PyObject *s = Py_BuildValue("{s:i,s:l,s:d}", "contacts", st.contacts, "sweeps",
                                    st.total_sweeps, "max_overlap", st.max_overlap);
        if (!s || PyDict_SetItemString(d, "stats", s) < 0) Py_CLEAR(d);
        Py_XDECREF(s);
    }
    return d;
}

/* The result dict from the rows. */
static PyObject *result(run_ctx *c, const ld_integ_options *o, double wall) {
    const ld_model *m = &c->S->model->m;
    int nb = m->nbodies;
    npy_intp n = c->nrows;
    npy_intp s1[1] = {n}, s3[3] = {n, nb, 3}, s4[3] = {n, nb, 4};
    PyArrayObject *T = ld_py_new(1, s1), *X = ld_py_new(3, s3), *Q = ld_py_new(3, s4),
                  *W = ld_py_new(3, s3), *V = ld_py_new(3, s3), *E = ld_py_new(1, s1),
                  *P = ld_py_new(1, s1);
    PyObject *names = PyList_New(nb), *joints = joint_results(c), *cons = contact_results(c);
    PyObject *out = NULL;
    if (!T || !X || !Q || !W || !V || !E || !P || !names || !joints || !cons) goto done;
    for (int b = 0; b < nb; ++b) {
        PyObject *nm = PyUnicode_FromString(m->bodies[b].name);
        if (!nm) goto done;
        PyList_SET_ITEM(names, b, nm);
    }
    double *t = PyArray_DATA(T), *x = PyArray_DATA(X), *q = PyArray_DATA(Q), *w = PyArray_DATA(W),
           *v = PyArray_DATA(V), *e = PyArray_DATA(E), *p = PyArray_DATA(P);
    for (npy_intp i = 0; i < n; ++i) {
        const double *row = c->rows + i * c->width;
        t[i] = row[0];
        for (int b = 0; b < nb; ++b) {
            const double *r = row + 1 + ROW_BODY * b;
            memcpy(x + (i * nb + b) * 3, r, 3 * sizeof(double));
            memcpy(q + (i * nb + b) * 4, r + 3, 4 * sizeof(double));
            memcpy(w + (i * nb + b) * 3, r + 7, 3 * sizeof(double));
            memcpy(v + (i * nb + b) * 3, r + 10, 3 * sizeof(double));
        }
        e[i] = row[c->width - 2];
        p[i] = row[c->width - 1];
    }
    ld_integ_stats st;
    ld_integ_get_stats(c->it, &st);
    double e0 = c->chk.e0,
           e1 = ld_sys_energy(&c->S->s, ld_integ_t(c->it), ld_integ_q(c->it), ld_integ_v(c->it));
    char why[2 * LD_NAME_MAX + 512] = "";
    if (c->chk.drifted) {
        char what[2 * LD_NAME_MAX + 400];
        ld_runcheck_message(&c->chk, &c->S->s, m, "constraint_tol", what, sizeof what);
        snprintf(why, sizeof why, "run %s; rerun with tighter tolerances or a smaller dt, or %s",
                 what,
                 c->chk.drifted == 2 ? "turn the checks off with constraint_tol=0"
                                     : "raise constraint_tol");
    }
    out = Py_BuildValue(
        "{s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:{s:l,s:l,s:l,s:l,s:l,s:l,s:l,s:d,s:d,s:d,s:d,s:d,"
        "s:d,s:d,s:d},s:s,s:s,s:d,s:d,s:d,s:O,s:s,s:s}",
        "t", T, "x", X, "q", Q, "omega", W, "v", V, "energy", E, "constraint_residual", P,
        "body_names", names, "joints", joints, "stats", "steps", st.steps, "rejected", st.rejected,
        "error_test_failures", st.error_test_failures, "newton_failures", st.newton_failures,
        "newton_iterations", st.newton_iterations, "factorizations", st.factorizations,
        "roundoff_stops", st.roundoff_stops, "constraint_residual_max", c->chk.phimax,
        "velocity_residual_max", c->chk.vres, "constraint_tol", c->chk.phi_tol, "energy_drift",
        e1 - e0, "energy_drift_rel", ld_energy_drift_rel(e0, e1, c->chk.escale), "energy_scale",
        c->chk.escale, "cpu_s", c->cpu, "wall_s", wall, "integrator",
        ld_integ_method_name(o->method), "formulation", ld_formulation_name(c->S->form), "dt",
        c->dt, "t_start", c->t0, "t_end", c->t1, "contacts", cons, "status",
        c->status        ? "failed"
        : c->chk.drifted ? "drifted"
                         : "ok",
        "message", why);
done:
    Py_XDECREF(T);
    Py_XDECREF(X);
    Py_XDECREF(Q);
    Py_XDECREF(W);
    Py_XDECREF(V);
    Py_XDECREF(E);
    Py_XDECREF(P);
    Py_XDECREF(names);
    Py_XDECREF(joints);
    Py_XDECREF(cons);
    return out;
}

const char ld_py_time_steps_doc[] =
    "_time_steps(model, dt, t_end) -> float\n\n"
    "CPU seconds (of the calling thread) of the bare C loop of ld_integ_advance_to over the grid "
    "of dt from the model's t_start to t_end (the model's integrator block otherwise; no "
    "output): the library's own time, the reference of the overhead benchmark.";

PyObject *ld_py_time_steps(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *mo;
    double dt, t1;
    if (!PyArg_ParseTuple(args, "O!dd:_time_steps", &ld_py_model_type, &mo, &dt, &t1)) return NULL;
    ld_py_model *M = (ld_py_model *)mo;
    double t0 = M->m.run.t_start;
    if (!(dt > 0.0) || !(t1 > t0) || (t1 - t0) / dt > 1e9) {
        PyErr_SetString(PyExc_ValueError, "_time_steps: need dt > 0 and t_end > t_start");
        return NULL;
    }
    ld_integ_options o;
    if (ld_py_integ_options(&M->m, NULL, NULL, &o) < 0) return NULL;
    ld_py_system *S = ld_py_system_compile(M, (int)M->m.run.formulation);
    if (!S) return NULL;
    ld_integ *it = ld_py_integ_start(S, &o, t0);
    if (!it) {
        Py_DECREF(S);
        return NULL;
    }
    long nsteps = (long)ceil((t1 - t0) / dt - 1e-9);
    int rc = 0;
    double a = 0.0, b = 0.0;
    Py_BEGIN_ALLOW_THREADS a = cpu_now();
    for (long n = 1; n <= nsteps && !rc; ++n)
        rc = ld_integ_advance_to(it, n == nsteps ? t1 : t0 + (double)n * dt);
    b = cpu_now();
    Py_END_ALLOW_THREADS PyObject *out =
        rc ? ld_py_integ_fail(S, it, rc, "step failed") : PyFloat_FromDouble(b - a);
    ld_integ_free(it);
    Py_DECREF(S);
    return out;
}

const char ld_py_run_doc[] =
    "_run(model, integrator=None, dt=None, t_end=None, *, formulation=None, t_start=None, "
    "times=None, every=None, **options) -> dict\n\n"
    "The simulation loop of `liedyn run` on a Model, without the GIL (use liedyn.run).";

static int opt_double(PyObject *kw, const char *key, double *out) {
    PyObject *v = kw ? PyDict_GetItemString(kw, key) : NULL;
    if (!v) return 0;
    int rc = v == Py_None ? 0 : ld_py_double(v, key, 1, out);
    if (PyDict_DelItemString(kw, key) < 0) return -1;
    return rc;
}

PyObject *ld_py_run(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *mo = NULL, *integ = Py_None, *dto = Py_None, *t1o = Py_None;
    if (!PyArg_ParseTuple(args, "O|OOO:run", &mo, &integ, &dto, &t1o)) return NULL;
    if (!PyObject_TypeCheck(mo, &ld_py_model_type)) {
        ld_py_errorf(PyExc_TypeError, "run: a Model is required, not %.80s", Py_TYPE(mo)->tp_name);
        return NULL;
    }
    ld_py_model *M = (ld_py_model *)mo;
    const ld_run_spec *r = &M->m.run;
    PyObject *rest = kw ? PyDict_Copy(kw) : PyDict_New();
    if (!rest) return NULL;
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.t0 = r->t_start;
    c.t1 = r->t_end;
    c.dt = r->dt;
    c.every = r->output_every > 0 ? r->output_every : 1;
    PyObject *out = NULL, *form = NULL, *times = NULL, *every = NULL;
    PyArrayObject *ta = NULL;
    ld_py_system *S = NULL;
    const char *method = NULL;
    if (integ != Py_None && !(method = PyUnicode_AsUTF8(integ))) goto done;
    if ((dto != Py_None && ld_py_double(dto, "dt", 1, &c.dt) < 0) ||
        (t1o != Py_None && ld_py_double(t1o, "t_end", 1, &c.t1) < 0) ||
        opt_double(rest, "t_start", &c.t0) < 0)
        goto done;
    double tol = ld_model_constraint_tol(&M->m);
    if (opt_double(rest, "constraint_tol", &tol) < 0) goto done;
    if (!(tol >= 0.0) || !isfinite(tol)) {
        ld_py_errorf(PyExc_ValueError, "constraint_tol: must be finite and non-negative (got %g)",
                     tol);
        goto done;
    }
    form = PyDict_GetItemString(rest, "formulation");
    times = PyDict_GetItemString(rest, "times");
    every = PyDict_GetItemString(rest, "every");
    Py_XINCREF(form);
    Py_XINCREF(times);
    Py_XINCREF(every);
    (void)PyDict_DelItemString(rest, "formulation");
    (void)PyDict_DelItemString(rest, "times");
    (void)PyDict_DelItemString(rest, "every");
    PyErr_Clear();
    if (!(c.t1 > c.t0)) {
        ld_py_errorf(PyExc_ValueError, "t_end %.17g must be greater than t_start %.17g", c.t1,
                     c.t0);
        goto done;
    }
    if (!(c.dt > 0.0) || c.t0 + c.dt == c.t0 || (c.t1 - c.t0) / c.dt > 1e12) {
        ld_py_errorf(PyExc_ValueError, "dt: must be positive and resolve t (got %g)", c.dt);
        goto done;
    }
    if (every && every != Py_None) {
        long k = PyLong_AsLong(every);
        if (k == -1 && PyErr_Occurred()) goto done;
        if (k < 1 || k > 1000000000L) {
            PyErr_SetString(PyExc_ValueError, "every: must be a positive integer");
            goto done;
        }
        c.every = (int)k;
    }
    if (times && times != Py_None) {
        npy_intp any = -1;
        ta = ld_py_array(times, "times", 1, &any, 1);
        if (!ta) goto done;
        if (PyArray_NDIM(ta) != 1) {
            PyErr_SetString(PyExc_ValueError, "times: expected a vector");
            goto done;
        }
        /* a private copy: the loop reads it while the forces' callbacks and other threads
         * run, which could change the caller's array */
        Py_SETREF(ta, (PyArrayObject *)PyArray_NewCopy(ta, NPY_CORDER));
        if (!ta) goto done;
        c.times = PyArray_DATA(ta);
        c.ntimes = PyArray_DIM(ta, 0);
        for (npy_intp i = 0; i < c.ntimes; ++i)
            if (c.times[i] < c.t0 || c.times[i] > c.t1 || (i && c.times[i] < c.times[i - 1])) {
                ld_py_errorf(PyExc_ValueError,
                             "times: must be ascending within [t_start, t_end] = [%.17g, %.17g] "
                             "(entry %ld is %.17g)",
                             c.t0, c.t1, (long)i, c.times[i]);
                goto done;
            }
    }
    int f = (int)r->formulation;
    if (form && form != Py_None) {
        const char *fs = PyUnicode_AsUTF8(form);
        if (!fs) goto done;
        if ((f = ld_formulation_find(fs)) < 0) {
            ld_py_errorf(PyExc_ValueError, "unknown formulation '%s'", fs);
            goto done;
        }
    }
    ld_integ_options o;
    if (ld_py_integ_options(&M->m, method, rest, &o) < 0) goto done;
    if (o.adaptive) o.h_init = c.dt;
    c.adaptive = o.adaptive;
    if (!(S = ld_py_system_compile(M, f))) goto done;
    c.S = S;
    if (ld_runcheck_init(&c.chk, &S->s, tol) != LD_OK) {
        ld_py_nomem((size_t)(S->s.m + S->s.k) * sizeof(double), "the run's checks");
        goto done;
    }
    if (!(c.it = ld_py_integ_start(S, &o, c.t0))) goto done;
    c.contact = ld_model_has_contact(&M->m) && ld_method_get((int)o.method)->contact;
    for (int j = 0; j < M->m.njoints; ++j) c.njc += 2 * ld_joint_coords_count(M->m.joints[j].kind);
    c.width = 3 + ROW_BODY * M->m.nbodies + c.njc + 6 * M->m.njoints;
    if (!(c.jprev = malloc(((size_t)c.njc + 1) * sizeof(double)))) {
        ld_py_nomem(((size_t)c.njc + 1) * sizeof(double), "the joints' values");
        goto done;
    }
    for (int i = 0; i < c.njc; ++i) c.jprev[i] = NAN;
    /* the rows' storage at once when their number is known (fixed steps) */
    if (!c.adaptive) {
        double nst = ceil((c.t1 - c.t0) / c.dt - 1e-9);
        c.cap = c.times ? c.ntimes : (npy_intp)(nst / c.every) + 2;
        if (c.cap < 1) c.cap = 1;
        c.rows = malloc((size_t)c.cap * (size_t)c.width * sizeof(double));
        if (!c.rows) c.cap = 0; /* grown on demand instead */
    }
    size_t nstate = (size_t)(2 * S->s.nq + 2 * S->s.k + 2 * S->s.m + 4) * sizeof(double);
    if (!(c.qp = malloc(nstate))) {
        ld_py_nomem(nstate, "the dense output's states");
        goto done;
    }
    c.vp = c.qp + S->s.nq;
    c.qd = c.vp + S->s.k;
    c.vd = c.qd + S->s.nq;
    c.lp = c.vd + S->s.k;
    c.ld = c.lp + S->s.m;
    int rc;
    double w0 = 0.0;
    double cpu0 = cpu_now();
    {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        w0 = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
        PyThreadState *save = PyEval_SaveThread();
        rc = loop(&c, &save);
        PyEval_RestoreThread(save);
        clock_gettime(CLOCK_MONOTONIC, &ts);
        w0 = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - w0;
    }
    c.cpu = cpu_now() - cpu0;
    if (c.interrupted) goto done;
    if (rc == -1) {
        if (c.oom)
            ld_py_nomem(c.oom, c.oom_what);
        else
            ld_py_errorf(PyExc_RuntimeError,
                         "dense output: cannot interpolate the step to t = %.17g", c.t_interp);
        goto done;
    }
    c.status = rc;
    out = result(&c, &o, w0);
    if (rc && out) { /* the failure, with the rows so far as e.result */
        ld_py_integ_fail(S, c.it, rc, "step failed");
        ld_py_attach("result", out);
        Py_CLEAR(out);
    }
done:
    ld_integ_free(c.it);
    ld_runcheck_free(&c.chk);
    Py_XDECREF(S);
    free(c.rows);
    free(c.qp);
    free(c.jprev);
    free(c.con);
    free(c.cp);
    Py_XDECREF(ta);
    Py_XDECREF(form);
    Py_XDECREF(times);
    Py_XDECREF(every);
    Py_DECREF(rest);
    return out;
}

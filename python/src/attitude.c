/* Attitude from angular velocity (attitude.h) for Python: ω from gyro samples (arrays), from
 * an analytic case, or from a Python callable; the output points as arrays; the analytic
 * cases' exact rotations. */
#include "ext.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct points {
    double *t, *q, *p; /* n, 4n, 4n */
    npy_intp n, cap;
    int np;
    size_t oom; /* the bytes that could not be had (0: none) */
} points;

static int collect(const ld_attitude_point *pt, void *user) {
    points *P = user;
    if (P->n == P->cap) {
        npy_intp cap = P->cap ? 2 * P->cap : 1024;
        double *t = realloc(P->t, (size_t)cap * sizeof(double));
        if (t) P->t = t;
        double *q = t ? realloc(P->q, (size_t)cap * 4 * sizeof(double)) : NULL;
        if (q) P->q = q;
        double *p = q ? realloc(P->p, (size_t)cap * 4 * sizeof(double)) : NULL;
        if (!p) {
            P->oom = (size_t)cap * (t ? 4 : 1) * sizeof(double);
            return LD_ENOMEM;
        }
        P->p = p;
        P->cap = cap;
    }
    P->t[P->n] = pt->t;
    memcpy(P->q + 4 * P->n, pt->q, 4 * sizeof(double));
    memcpy(P->p + 4 * P->n, pt->p, 4 * sizeof(double));
    P->np = pt->np;
    P->n++;
    return 0;
}

/* ω from a Python callable (takes the GIL). */
typedef struct py_omega {
    PyObject *fn;
    PyObject *error;
} py_omega;

static int omega_py(double t, double w[3], void *user) {
    py_omega *c = user;
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = -1;
    PyObject *r = PyObject_CallFunction(c->fn, "d", t);
    if (r) {
        npy_intp three = 3;
        PyArrayObject *a = ld_py_array(r, "omega(t): the returned value", 1, &three, 0);
        Py_DECREF(r);
        if (a && PyArray_SIZE(a) == 3) {
            memcpy(w, PyArray_DATA(a), 3 * sizeof(double));
            rc = 0;
        } else if (a)
            PyErr_SetString(PyExc_ValueError, "omega(t): expected 3 numbers");
        Py_XDECREF(a);
    }
    if (rc && !c->error) {
        PyObject *tp, *v, *tb;
        PyErr_Fetch(&tp, &v, &tb);
        PyErr_NormalizeException(&tp, &v, &tb);
        if (v && tb) PyException_SetTraceback(v, tb);
        c->error = v;
        Py_XDECREF(tp);
        Py_XDECREF(tb);
    }
    PyErr_Clear();
    PyGILState_Release(g);
    return rc ? LD_EINVAL : 0;
}

static int opt(PyObject *kw, const char *key, double *x) {
    PyObject *v = kw ? PyDict_GetItemString(kw, key) : NULL;
    if (!v || v == Py_None) return 0;
    if (ld_py_double(v, key, 0, x) < 0) return -1;
    if (isnan(*x)) {
        ld_py_errorf(PyExc_ValueError, "%s: must not be NaN", key);
        return -1;
    }
    return 0;
}

static const char *opt_str(PyObject *kw, const char *key, const char *def) {
    PyObject *v = kw ? PyDict_GetItemString(kw, key) : NULL;
    if (!v || v == Py_None) return def;
    const char *s = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
    if (!s) ld_py_errorf(PyExc_TypeError, "%s: a string is required", key);
    return s;
}

static const char *const KEYS[] = {"t",    "q0",    "method", "param",     "dt",
                                   "t0",   "t1",    "frame",  "fixed",     "rtol",
                                   "atol", "h_max", "h_min",  "max_steps", NULL};

static PyObject *py_attitude(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *om;
    if (!PyArg_ParseTuple(args, "O:attitude", &om)) return NULL;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (kw && PyDict_Next(kw, &pos, &k, &v)) {
        const char *key = PyUnicode_AsUTF8(k);
        int known = 0;
        for (int i = 0; key && KEYS[i]; ++i) known |= strcmp(KEYS[i], key) == 0;
        if (!known) {
            ld_py_errorf(PyExc_TypeError, "attitude: unknown option '%s'", key ? key : "?");
            return NULL;
        }
    }
    ld_attitude_problem pb;
    memset(&pb, 0, sizeof pb);
    ld_attitude_options o;
    ld_attitude_options_default(&o);
    pb.q0[0] = 1.0;
    ld_gyro *gyro = NULL;
    ld_att_case_omega_ctx cctx;
    py_omega pyo = {NULL, NULL};
    PyArrayObject *ta = NULL, *wa = NULL, *qa = NULL;
    PyObject *out = NULL;
    points P;
    memset(&P, 0, sizeof P);
    const char *mname = opt_str(kw, "method", "mpq"), *pname = opt_str(kw, "param", "quat"),
               *fname = opt_str(kw, "frame", NULL);
    if (!mname || !pname || (PyErr_Occurred())) goto done;
    int mi = ld_att_method_find(mname), pi = ld_param_find(pname);
    if (mi < 0 || pi < 0) {
        ld_py_errorf(PyExc_ValueError, "unknown %s '%s'", mi < 0 ? "method" : "param",
                     mi < 0 ? mname : pname);
        goto done;
    }
    o.method = (ld_att_method)mi;
    o.param = (ld_param)pi;
    pb.frame = LD_FRAME_BODY;
    if (fname) {
        if (strcmp(fname, "body") != 0 && strcmp(fname, "spatial") != 0) {
            PyErr_SetString(PyExc_ValueError, "frame: 'body' or 'spatial'");
            goto done;
        }
        pb.frame = fname[0] == 's' ? LD_FRAME_SPATIAL : LD_FRAME_BODY;
    }
    double t0 = NAN, t1 = NAN;
    const ld_att_case *ac = NULL;
    if (PyUnicode_Check(om)) { /* an analytic case */
        ac = ld_att_case_find(PyUnicode_AsUTF8(om));
        if (!ac) {
            PyErr_Format(PyExc_ValueError, "unknown case %R (see liedyn.attitude_cases())", om);
            goto done;
        }
        cctx.c = ac;
        cctx.frame = pb.frame;
        pb.omega = ld_att_case_omega_fn;
        pb.user = &cctx;
        t0 = ac->t0;
        t1 = ac->t1;
        ld_att_case_quat(ac, t0, pb.q0);
    } else if (PyCallable_Check(om)) {
        pyo.fn = om;
        pb.omega = omega_py;
        pb.user = &pyo;
    } else { /* gyro samples */
        npy_intp three = 3, any = -1;
        PyObject *to = kw ? PyDict_GetItemString(kw, "t") : NULL;
        if (!to) {
            PyErr_SetString(PyExc_TypeError, "attitude: samples need their times t=");
            goto done;
        }
        wa = ld_py_array(om, "omega", 1, &three, 1);
        ta = wa ? ld_py_array(to, "t", 1, &any, 1) : NULL;
        if (!ta) goto done;
        if (PyArray_NDIM(wa) != 2 || PyArray_NDIM(ta) != 1 ||
            PyArray_DIM(ta, 0) != PyArray_DIM(wa, 0)) {
            PyErr_SetString(PyExc_ValueError, "attitude: omega (n, 3) and t (n,) are required");
            goto done;
        }
        int rc =
            ld_gyro_create(&gyro, PyArray_DATA(ta), PyArray_DATA(wa), (long)PyArray_DIM(ta, 0));
        if (rc) {
            ld_py_raise(rc, "attitude: gyro samples: need at least 2, times strictly increasing");
            goto done;
        }
        pb.omega = ld_gyro_omega_fn;
        pb.user = gyro;
        t0 = ld_gyro_t_first(gyro);
        t1 = ld_gyro_t_last(gyro);
    }
    PyObject *q0o = kw ? PyDict_GetItemString(kw, "q0") : NULL;
    if (q0o && q0o != Py_None) {
        npy_intp four = 4;
        qa = ld_py_array(q0o, "q0", 1, &four, 1);
        if (!qa || PyArray_NDIM(qa) != 1) {
            if (qa) PyErr_SetString(PyExc_ValueError, "q0: expected 4 numbers");
            goto done;
        }
        memcpy(pb.q0, PyArray_DATA(qa), 4 * sizeof(double));
    }
    double fixed = 0.0, maxs = 0.0, dt = NAN;
    if (opt(kw, "t0", &t0) || opt(kw, "t1", &t1) || opt(kw, "dt", &dt) ||
        opt(kw, "rtol", &o.error_rtol) || opt(kw, "atol", &o.error_atol) ||
        opt(kw, "h_max", &o.h_max) || opt(kw, "h_min", &o.h_min) || opt(kw, "fixed", &fixed) ||
        opt(kw, "max_steps", &maxs))
        goto done;
    if (!isfinite(t0) || !isfinite(t1)) {
        PyErr_SetString(PyExc_TypeError, "attitude: give t0= and t1= for a callable omega");
        goto done;
    }
    pb.t0 = t0;
    pb.t1 = t1;
    if (!(maxs >= 0.0 && maxs <= 1e15)) { /* (long) of a larger double is undefined */
        ld_py_errorf(PyExc_ValueError, "max_steps: must be in [0, 1e15], not %.17g", maxs);
        goto done;
    }
    o.fixed = fixed != 0.0;
    o.max_steps = (long)maxs;
    /* no dt: the step `liedyn attitude` takes (for samples one per sample interval) */
    o.dt = isnan(dt) ? ld_attitude_dt_default(o.method, o.fixed, ac, gyro) : dt;
    ld_attitude_stats st;
    memset(&st, 0, sizeof st);
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = ld_attitude_integrate(&pb, &o, collect, &P, &st);
    Py_END_ALLOW_THREADS if (pyo.error) {
        PyErr_SetObject((PyObject *)Py_TYPE(pyo.error), pyo.error);
        goto done;
    }
    if (P.oom) {
        ld_py_nomem(P.oom, "the output points");
        goto done;
    }
    npy_intp s1 = P.n, s4[2] = {P.n, 4}, sp[2] = {P.n, P.np > 0 ? P.np : 4};
    PyArrayObject *T = ld_py_new(1, &s1), *Q = ld_py_new(2, s4), *Pp = ld_py_new(2, sp);
    if (T && Q && Pp) {
        if (P.n) memcpy(PyArray_DATA(T), P.t, (size_t)P.n * sizeof(double));
        if (P.n) memcpy(PyArray_DATA(Q), P.q, (size_t)P.n * 4 * sizeof(double));
        double *pp = PyArray_DATA(Pp);
        for (npy_intp i = 0; i < P.n; ++i)
            memcpy(pp + i * sp[1], P.p + 4 * i, (size_t)sp[1] * sizeof(double));
        out = Py_BuildValue("{s:O,s:O,s:O,s:{s:l,s:l,s:l,s:d,s:d,s:d},s:s,s:s}", "t", T, "q", Q,
                            "p", Pp, "stats", "steps", st.steps, "rejected", st.rejected, "fevals",
                            st.fevals, "h_min", st.h_min_used, "h_max", st.h_max_used, "t_reached",
                            st.t_reached, "method", ld_att_method_name(o.method), "param",
                            ld_param_name(o.param));
    }
    Py_XDECREF(T);
    Py_XDECREF(Q);
    Py_XDECREF(Pp);
    if (out && rc) {
        ld_py_raise(rc, "attitude: %s stopped at t = %.17g (of %.17g): %s",
                    ld_att_method_name(o.method), st.t_reached, pb.t1, ld_strerror(rc));
        ld_py_attach("result", out);
        Py_CLEAR(out);
    }
done:
    Py_XDECREF(pyo.error);
    ld_gyro_free(gyro);
    Py_XDECREF(ta);
    Py_XDECREF(wa);
    Py_XDECREF(qa);
    free(P.t);
    free(P.q);
    free(P.p);
    return out;
}

static PyObject *py_attitude_case(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *kwlist[] = {"name", "t", "frame", NULL};
    const char *name, *frame = "body";
    PyObject *to;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|s:attitude_case", kwlist, &name, &to, &frame))
        return NULL;
    const ld_att_case *c = ld_att_case_find(name);
    if (!c) {
        ld_py_errorf(PyExc_ValueError, "unknown case '%s' (see liedyn.attitude_cases())", name);
        return NULL;
    }
    ld_frame fr = strcmp(frame, "spatial") == 0 ? LD_FRAME_SPATIAL : LD_FRAME_BODY;
    npy_intp any = -1;
    PyArrayObject *t = ld_py_array(to, "t", 0, &any, 1);
    if (!t) return NULL;
    npy_intp n = PyArray_SIZE(t);
    npy_intp s4[2] = {n, 4}, s3[2] = {n, 3};
    PyArrayObject *Q = ld_py_new(2, s4), *W = ld_py_new(2, s3), *R = ld_py_new(2, s3);
    PyObject *out = NULL;
    if (Q && W && R) {
        const double *tt = PyArray_DATA(t);
        double *q = PyArray_DATA(Q), *w = PyArray_DATA(W), *r = PyArray_DATA(R);
        for (npy_intp i = 0; i < n; ++i) {
            double thd[3];
            ld_att_case_quat(c, tt[i], q + 4 * i);
            ld_att_case_omega(c, tt[i], fr, w + 3 * i);
            c->rotvec(tt[i], r + 3 * i, thd);
        }
        out = Py_BuildValue("{s:O,s:O,s:O}", "q", Q, "omega", W, "rotvec", R);
    }
    Py_DECREF(t);
    Py_XDECREF(Q);
    Py_XDECREF(W);
    Py_XDECREF(R);
    return out;
}

static PyObject *py_attitude_cases(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < ld_att_case_count(); ++i) {
        const ld_att_case *c = ld_att_case_at(i);
        PyObject *v = Py_BuildValue("{s:s,s:d,s:d,s:d}", "title", c->title, "t0", c->t0, "t1",
                                    c->t1, "dt", c->dt);
        if (!v || PyDict_SetItemString(d, c->name, v) < 0) Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

static PyMethodDef METHODS[] = {
    {"_attitude", (PyCFunction)(void (*)(void))py_attitude, METH_VARARGS | METH_KEYWORDS,
     "_attitude(omega, **options) -> dict (use liedyn.attitude)."},
    {"attitude_case", (PyCFunction)(void (*)(void))py_attitude_case, METH_VARARGS | METH_KEYWORDS,
     "attitude_case(name, t, frame='body') -> dict\n\nThe exact solution of an analytic case at "
     "the times t: q (n, 4) the rotation (continuous in t), omega (n, 3) the angular velocity "
     "in `frame`, rotvec (n, 3) the rotation vector."},
    {"attitude_cases", py_attitude_cases, METH_NOARGS,
     "attitude_cases() -> dict\n\nThe analytic cases: name -> title, t0, t1 and the paper's dt."},
    {NULL, NULL, 0, NULL}};

int ld_py_attitude_add(PyObject *module) {
    return PyModule_AddFunctions(module, METHODS);
}

/* User forces as Python callables: trampolines with the library's signatures (one instance:
 * ld_user_force_fn; vectorized: ld_user_forces_fn) that take the GIL, call fn(t, b1, b2) with
 * the bodies' motion as dicts of arrays (vectorized: each array with a leading dimension n)
 * and read the force back, and the user's tangent when given: a callable tangent(t, b1, b2) ->
 * (Wq, Wv), or fn returning (w, (Wq, Wv)). An exception is kept (the first one) for the caller
 * of the integrator to re-raise, and the step fails fatally (status < 0). A user tangent is
 * checked once against central differences of fn (ld_py_force_check). */
#include "ext.h"

#include <math.h>
#include <string.h>

struct ld_py_force {
    PyObject *fn;
    PyObject *tangent; /* a callable, Py_True (fn returns (w, (Wq, Wv))) or NULL */
    int n, vec;        /* instances; vec: arrays with a leading dimension n */
    int ground1;       /* not vectorized, body1 the ground: its dict is shared (read-only) */
    PyObject *error;   /* the first exception fn raised (owned), or NULL */
    /* tangent Py_True: the tangents of fn's last call, at last_t and the motions last_b */
    int have_last;
    double last_t;
    ld_body_motion *last_b;
    double *last_Wq, *last_Wv, *w; /* 144n, 144n; w: 12n scratch */
};

ld_py_force *ld_py_force_new(PyObject *fn, PyObject *tangent, int n, int vec) {
    ld_py_force *f = PyMem_Calloc(1, sizeof *f);
    size_t nb = (size_t)n * (2 * sizeof(ld_body_motion) + 300 * sizeof(double));
    if (!f) return (ld_py_force *)ld_py_nomem(sizeof *f, "a user force");
    f->last_b = PyMem_Malloc(nb);
    if (!f->last_b) {
        PyMem_Free(f);
        return (ld_py_force *)ld_py_nomem(nb, "a user force's tangents");
    }
    f->last_Wq = (double *)(f->last_b + 2 * n);
    f->last_Wv = f->last_Wq + 144 * n;
    f->w = f->last_Wv + 144 * n;
    Py_INCREF(fn);
    Py_XINCREF(tangent);
    f->fn = fn;
    f->tangent = tangent;
    f->n = n;
    f->vec = vec;
    return f;
}

void ld_py_force_free(ld_py_force *f) {
    if (!f) return;
    Py_XDECREF(f->fn);
    Py_XDECREF(f->tangent);
    Py_XDECREF(f->error);
    PyMem_Free(f->last_b);
    PyMem_Free(f);
}

/* The dicts' keys (interned once) and the ground's dict of read-only arrays, shared by every
 * call (it never changes). */
static PyObject *keys[4], *ground_dict;

static int keys_ready(void) {
    static const char *const names[4] = {"x", "R", "omega", "xdot"};
    for (int k = 0; k < 4; ++k)
        if (!keys[k] && !(keys[k] = PyUnicode_InternFromString(names[k]))) return -1;
    return 0;
}

/* Body `which` (0, 1) of the n instances as a dict of arrays x, R, omega, xdot (new arrays
 * per call: the callable may keep them). */
static PyObject *motion_dict(const ld_py_force *f, const ld_body_motion *b, int which) {
    static const int width[4] = {3, 9, 3, 3};
    if (keys_ready() < 0) return NULL;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (int k = 0; k < 4; ++k) {
        npy_intp sh[3] = {f->n, 3, 3};
        int nd = (k == 1 ? 2 : 1) + f->vec;
        PyArrayObject *a = ld_py_new(nd, f->vec ? sh : sh + 1);
        if (!a || PyDict_SetItem(d, keys[k], (PyObject *)a) < 0) {
            Py_XDECREF(a);
            Py_DECREF(d);
            return NULL;
        }
        double *dst = PyArray_DATA(a);
        for (int i = 0; i < f->n; ++i) {
            const ld_body_motion *m = &b[2 * i + which];
            const double *src = k == 0 ? m->x : k == 1 ? m->R : k == 2 ? m->omega : m->xdot;
            memcpy(dst + width[k] * i, src, (size_t)width[k] * sizeof(double));
        }
        Py_DECREF(a);
    }
    return d;
}

/* The ground's dict (new reference): read-only arrays, made once. */
static PyObject *ground(const ld_py_force *f, const ld_body_motion *b) {
    if (!ground_dict) {
        PyObject *d = motion_dict(f, b, 0);
        if (!d) return NULL;
        for (int k = 0; k < 4; ++k)
            PyArray_CLEARFLAGS((PyArrayObject *)PyDict_GetItem(d, keys[k]), NPY_ARRAY_WRITEABLE);
        ground_dict = d;
    }
    Py_INCREF(ground_dict);
    return ground_dict;
}

/* Call fn or the tangent callable with (t, b1, b2). */
static PyObject *call_py(const ld_py_force *f, PyObject *fn, double t, const ld_body_motion *b) {
    PyObject *args[3] = {PyFloat_FromDouble(t), NULL, NULL}, *r = NULL;
    if (args[0]) args[1] = f->ground1 ? ground(f, b) : motion_dict(f, b, 0);
    if (args[1]) args[2] = motion_dict(f, b, 1);
    if (args[2]) r = PyObject_Vectorcall(fn, args, 3, NULL);
    for (int i = 0; i < 3; ++i) Py_XDECREF(args[i]);
    return r;
}

/* count doubles from obj into out; what names it in the message. */
static int read_numbers(PyObject *obj, const char *what, const char *layout, npy_intp count,
                        double *out) {
    npy_intp any = -1;
    if (PyArray_CheckExact(obj) && PyArray_TYPE((PyArrayObject *)obj) == NPY_DOUBLE &&
        PyArray_IS_C_CONTIGUOUS((PyArrayObject *)obj) &&
        PyArray_SIZE((PyArrayObject *)obj) == count) { /* the common case, without a copy */
        memcpy(out, PyArray_DATA((PyArrayObject *)obj), (size_t)count * sizeof(double));
        return 0;
    }
    PyArrayObject *a = ld_py_array(obj, what, 0, &any, 0);
    if (!a) return -1;
    if (PyArray_SIZE(a) != count) {
        ld_py_errorf(PyExc_ValueError, "%s: expected %ld numbers (%s), got %ld", what, (long)count,
                     layout, (long)PyArray_SIZE(a));
        Py_DECREF(a);
        return -1;
    }
    memcpy(out, PyArray_DATA(a), (size_t)count * sizeof(double));
    Py_DECREF(a);
    return 0;
}

/* The pair (Wq, Wv) of obj. */
static int read_tangent(const ld_py_force *f, PyObject *obj, double *Wq, double *Wv) {
    const char *layout = f->vec ? "n x 12 x 12" : "12 x 12";
    if (!PyTuple_Check(obj) && !PyList_Check(obj) && !PyArray_Check(obj)) {
        PyErr_SetString(PyExc_TypeError,
                        "user force: the tangent must be a pair (Wq, Wv) of 12x12 arrays "
                        "(vectorized: n x 12 x 12), or one array (2, ...) of both");
        return -1;
    }
    if (PySequence_Size(obj) != 2) {
        ld_py_errorf(PyExc_ValueError,
                     "user force: the tangent must be a pair (Wq, Wv), got %ld "
                     "items",
                     (long)PySequence_Size(obj));
        return -1;
    }
    PyObject *q = PySequence_GetItem(obj, 0), *v = q ? PySequence_GetItem(obj, 1) : NULL;
    int rc = q && v ? read_numbers(q, "user force: the tangent Wq", layout, 144 * f->n, Wq) : -1;
    if (!rc) rc = read_numbers(v, "user force: the tangent Wv", layout, 144 * f->n, Wv);
    Py_XDECREF(q);
    Py_XDECREF(v);
    return rc;
}

/* fn at (t, b) into w (12n); with tangent Py_True also its tangents, kept for the next
 * ask at the same state. */
static int call_force(ld_py_force *f, double t, const ld_body_motion *b, double *w) {
    PyObject *r = call_py(f, f->fn, t, b);
    if (!r) return -1;
    const char *layout = f->vec ? "n x 12: force, torque on body1, then on body2"
                                : "force, torque on body1, then on body2";
    int rc;
    if (f->tangent == Py_True) {
        f->have_last = 0;
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2) {
            PyErr_SetString(PyExc_TypeError, "user force: fn given with tangent=True must "
                                             "return (w, (Wq, Wv))");
            rc = -1;
        } else {
            rc = read_numbers(PyTuple_GET_ITEM(r, 0), "user force: the returned force", layout,
                              12 * f->n, w);
            if (!rc) rc = read_tangent(f, PyTuple_GET_ITEM(r, 1), f->last_Wq, f->last_Wv);
            if (!rc) {
                f->have_last = 1;
                f->last_t = t;
                memcpy(f->last_b, b, 2 * (size_t)f->n * sizeof *b);
            }
        }
    } else {
        rc = read_numbers(r, "user force: the returned value", layout, 12 * f->n, w);
    }
    Py_DECREF(r);
    return rc;
}

/* The user's tangents at (t, b). */
static int call_tangent(ld_py_force *f, double t, const ld_body_motion *b, double *Wq, double *Wv) {
    size_t nb = 2 * (size_t)f->n * sizeof *b, nw = 144 * (size_t)f->n * sizeof(double);
    if (f->tangent != Py_True) {
        PyObject *r = call_py(f, f->tangent, t, b);
        if (!r) return -1;
        int rc = read_tangent(f, r, Wq, Wv);
        Py_DECREF(r);
        return rc;
    }
    if (!(f->have_last && f->last_t == t && memcmp(f->last_b, b, nb) == 0) &&
        call_force(f, t, b, f->w) < 0)
        return -1;
    memcpy(Wq, f->last_Wq, nw);
    memcpy(Wv, f->last_Wv, nw);
    return 0;
}

/* After a call with the GIL: keep its first exception. LD_OK or LD_EINVAL. */
static int finish(ld_py_force *f, int rc) {
    if (rc < 0 && !f->error) {
        PyObject *tp, *v, *tb;
        PyErr_Fetch(&tp, &v, &tb);
        PyErr_NormalizeException(&tp, &v, &tb);
        if (v && tb) PyException_SetTraceback(v, tb);
        f->error = v;
        Py_XDECREF(tp);
        Py_XDECREF(tb);
    }
    PyErr_Clear();
    return rc < 0 ? LD_EINVAL : LD_OK;
}

static int force1(double t, const ld_body_motion b[2], double w[12], void *user) {
    ld_py_force *f = user;
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = finish(f, f->error ? -1 : call_force(f, t, b, w));
    PyGILState_Release(g);
    return rc;
}

static int tangent1(double t, const ld_body_motion b[2], double Wq[144], double Wv[144],
                    void *user) {
    ld_py_force *f = user;
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = finish(f, f->error ? -1 : call_tangent(f, t, b, Wq, Wv));
    PyGILState_Release(g);
    return rc;
}

static int forces(double t, int n, const ld_body_motion *b, double *w, void *user) {
    (void)n;
    return force1(t, b, w, user);
}

static int tangents(double t, int n, const ld_body_motion *b, double *Wq, double *Wv, void *user) {
    (void)n;
    return tangent1(t, b, Wq, Wv, user);
}

int ld_py_force_register(ld_model *m, const char *name, const int *body1, const int *body2,
                         ld_py_force *f) {
    int user_tangent = f->tangent != NULL;
    f->ground1 = !f->vec && body1[0] == LD_GROUND;
    if (!f->vec)
        return ld_model_add_user_force(m, name, body1[0], body2[0], force1,
                                       user_tangent ? tangent1 : NULL, f);
    return ld_model_add_user_forces(m, name, f->n, body1, body2, forces,
                                    user_tangent ? tangents : NULL, f);
}

/* ---------------------------------------------------------------- the check of a tangent */

static const char *const wrow[12] = {"f1x", "f1y", "f1z", "t1x", "t1y", "t1z",
                                     "f2x", "f2y", "f2z", "t2x", "t2y", "t2z"};
static const char *const wcol[24] = {"dth1x", "dth1y", "dth1z", "dx1x", "dx1y", "dx1z",
                                     "dth2x", "dth2y", "dth2z", "dx2x", "dx2y", "dx2z",
                                     "w1x",   "w1y",   "w1z",   "v1x",  "v1y",  "v1z",
                                     "w2x",   "w2y",   "w2z",   "v2x",  "v2y",  "v2z"};

/* Column j of every instance's tangents by central differences of fn (the library's scheme);
 * the ground's columns are left 0. */
static int fd_column(ld_py_force *f, double t, const ld_body_motion *b, const int *ground1, int j,
                     ld_body_motion *bp, double *wp, double *wm, double *D) {
    int body = (j % 12) / 6, comp = j % 6, vel = j >= 12;
    double *h = D + 288 * f->n; /* n steps after the columns */
    for (int sg = -1; sg <= 1; sg += 2) {
        memcpy(bp, b, 2 * (size_t)f->n * sizeof *b);
        for (int i = 0; i < f->n; ++i) {
            const ld_body_motion *m = &b[2 * i + body];
            ld_body_motion *p = &bp[2 * i + body];
            double s = 1e-6;
            h[i] = 0.0;
            if (body == 0 && ground1[i]) continue;
            if (vel && comp < 3) s *= fmax(1.0, fabs(m->omega[comp]));
            if (vel && comp >= 3) s *= fmax(1.0, fabs(m->xdot[comp - 3]));
            if (!vel && comp >= 3) s *= fmax(1.0, fabs(m->x[comp - 3]));
            h[i] = s;
            if (vel && comp < 3)
                p->omega[comp] += sg * s;
            else if (vel)
                p->xdot[comp - 3] += sg * s;
            else if (comp >= 3)
                p->x[comp - 3] += sg * s;
            else {
                double d[3] = {0, 0, 0}, E[9];
                d[comp] = sg * s;
                ld_so3_exp(E, d);
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c)
                        p->R[3 * r + c] = m->R[3 * r] * E[c] + m->R[3 * r + 1] * E[3 + c] +
                                          m->R[3 * r + 2] * E[6 + c];
            }
        }
        if (call_force(f, t, bp, sg < 0 ? wm : wp) < 0) return -1;
    }
    for (int i = 0; i < f->n; ++i)
        for (int r = 0; r < 12; ++r)
            D[144 * (2 * i + vel) + 12 * r + j % 12] =
                h[i] > 0.0 ? (wp[12 * i + r] - wm[12 * i + r]) / (2.0 * h[i]) : 0.0;
    return 0;
}

/* Compare U (the user's: per instance Wq then Wv, 288 each) with D; raise on the worst entry. */
static int compare(const ld_py_force *f, const char *name, double t, const double *U,
                   const double *D, const int *ground1) {
    double worst = 0.0;
    int wi = 0, wm = 0, wr = 0, wc = 0;
    for (int i = 0; i < f->n; ++i)
        for (int m = 0; m < 2; ++m) {
            const double *u = U + 288 * i + 144 * m, *d = D + 288 * i + 144 * m;
            double scale = 1.0;
            for (int e = 0; e < 144; ++e) scale = fmax(scale, fabs(d[e]));
            for (int e = 0; e < 144; ++e) {
                if (ground1[i] && e % 12 < 6) continue; /* the ground's columns are not used */
                double err = fabs(u[e] - d[e]) / scale;
                if (!(err <= worst)) worst = err, wi = i, wm = m, wr = e / 12, wc = e % 12;
            }
        }
    if (worst <= 1e-5) return 0;
    const double *u = U + 288 * wi + 144 * wm, *d = D + 288 * wi + 144 * wm;
    char inst[48] = "";
    if (f->vec) snprintf(inst, sizeof inst, "[%d]", wi);
    ld_py_errorf(PyExc_ValueError,
                 "user force '%s'%s: its tangent %s[%d, %d] (d%s/d%s) = %.9g, but central "
                 "differences of the force give %.9g at t = %g (relative error %.3g > 1e-05); "
                 "rows are (f1, t1, f2, t2), the columns of Wq (dth1, dx1, dth2, dx2) with the "
                 "bodies moved as R exp(dth), x + dx, those of Wv (omega1, xdot1, omega2, xdot2)",
                 name, inst, wm ? "Wv" : "Wq", wr, wc, wrow[wr], wcol[12 * wm + wc],
                 u[12 * wr + wc], d[12 * wr + wc], t, worst);
    return -1;
}

int ld_py_force_check(ld_py_force *f, const char *name, double t, const ld_body_motion *b,
                      const int *ground1) {
    size_t n = (size_t)f->n;
    size_t bytes = 2 * n * sizeof *b + (288 * n * 2 + 25 * n) * sizeof(double);
    ld_body_motion *bp = PyMem_Malloc(bytes);
    if (!bp) {
        ld_py_nomem(bytes, "the check of a user force's tangent");
        return -1;
    }
    double *U = (double *)(bp + 2 * n), *D = U + 288 * n, *wp = D + 289 * n, *wm = wp + 12 * n;
    double *q = PyMem_Malloc(288 * n * sizeof(double)); /* the user's Wq, then Wv */
    int rc = q ? call_tangent(f, t, b, q, q + 144 * n) : -1;
    if (!q) ld_py_nomem(288 * n * sizeof(double), "the check of a user force's tangent");
    for (size_t i = 0; !rc && i < n; ++i) { /* per instance: Wq then Wv */
        memcpy(U + 288 * i, q + 144 * i, 144 * sizeof(double));
        memcpy(U + 288 * i + 144, q + 144 * (n + i), 144 * sizeof(double));
    }
    PyMem_Free(q);
    for (int j = 0; !rc && j < 24; ++j) rc = fd_column(f, t, b, ground1, j, bp, wp, wm, D);
    if (!rc) rc = compare(f, name, t, U, D, ground1);
    f->have_last = 0;
    PyMem_Free(bp);
    return rc;
}

PyObject *ld_py_force_take_error(ld_py_model *M) {
    PyObject *e = NULL;
    for (int i = 0; i < M->nforces; ++i) {
        if (!M->forces[i]->error) continue;
        if (!e)
            e = M->forces[i]->error;
        else
            Py_DECREF(M->forces[i]->error);
        M->forces[i]->error = NULL;
    }
    return e;
}

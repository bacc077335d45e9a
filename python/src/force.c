/* User forces as Python callables: a trampoline with the ld_user_force_fn signature that takes
 * the GIL, calls fn(t, b1, b2) with the bodies' motion as dicts of arrays and reads 12 numbers
 * back. An exception is kept (the first one) for the caller of the integrator to re-raise, and
 * the step fails fatally (status < 0). */
#include "ext.h"

#include <math.h>
#include <string.h>

struct ld_py_force {
    PyObject *fn;
    PyObject *error; /* the first exception fn raised (owned), or NULL */
};

ld_py_force *ld_py_force_new(PyObject *fn) {
    ld_py_force *f = PyMem_Calloc(1, sizeof *f);
    if (!f) return (ld_py_force *)ld_py_nomem(sizeof *f, "a user force");
    Py_INCREF(fn);
    f->fn = fn;
    return f;
}

void ld_py_force_free(ld_py_force *f) {
    if (!f) return;
    Py_XDECREF(f->fn);
    Py_XDECREF(f->error);
    PyMem_Free(f);
}

static PyObject *motion_dict(const ld_body_motion *b) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    npy_intp sh[2] = {3, 3};
    PyArrayObject *R = ld_py_new(2, sh);
    if (R) memcpy(PyArray_DATA(R), b->R, sizeof b->R);
    PyObject *items[4] = {ld_py_vec(b->x, 3), (PyObject *)R, ld_py_vec(b->omega, 3),
                          ld_py_vec(b->xdot, 3)};
    static const char *const keys[4] = {"x", "R", "omega", "xdot"};
    int bad = 0;
    for (int i = 0; i < 4; ++i) {
        if (!items[i] || PyDict_SetItemString(d, keys[i], items[i]) < 0) bad = 1;
        Py_XDECREF(items[i]);
    }
    if (bad) Py_CLEAR(d);
    return d;
}

static int call(ld_py_force *f, double t, const ld_body_motion b[2], double w[12]) {
    PyObject *b1 = motion_dict(&b[0]), *b2 = motion_dict(&b[1]);
    PyObject *r = b1 && b2 ? PyObject_CallFunction(f->fn, "dOO", t, b1, b2) : NULL;
    Py_XDECREF(b1);
    Py_XDECREF(b2);
    if (!r) return -1;
    npy_intp any = -1;
    PyArrayObject *a = ld_py_array(r, "user force: the returned value", 0, &any, 0);
    Py_DECREF(r);
    if (!a) return -1;
    if (PyArray_SIZE(a) != 12) {
        ld_py_errorf(PyExc_ValueError,
                     "user force: expected 12 numbers (force, torque on body1, then on body2), "
                     "got %ld",
                     (long)PyArray_SIZE(a));
        Py_DECREF(a);
        return -1;
    }
    memcpy(w, PyArray_DATA(a), 12 * sizeof(double));
    Py_DECREF(a);
    return 0;
}

static int trampoline(double t, const ld_body_motion b[2], double w[12], void *user) {
    ld_py_force *f = user;
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = f->error ? -1 : call(f, t, b, w);
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
    PyGILState_Release(g);
    return rc < 0 ? LD_EINVAL : LD_OK;
}

ld_user_force_fn ld_py_force_trampoline(void) {
    return trampoline;
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

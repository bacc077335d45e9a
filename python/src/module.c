/* The _liedyn module: its exception, the array helpers every file uses, and the init that adds
 * each file's types and functions. */
#define LD_PY_MODULE_FILE
#include "ext.h"

#include <math.h>
#include <stdarg.h>

PyObject *ld_py_error;

PyObject *ld_py_raise(int status, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    PyOS_vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    PyObject *exc = PyObject_CallFunction(ld_py_error, "s", buf);
    if (!exc) return NULL;
    PyObject *st = PyLong_FromLong(status);
    if (st) {
        (void)PyObject_SetAttrString(exc, "status", st);
        Py_DECREF(st);
    }
    PyErr_SetObject(ld_py_error, exc);
    Py_DECREF(exc);
    return NULL;
}

PyObject *ld_py_errorf(PyObject *type, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    PyOS_vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    PyErr_SetString(type, buf);
    return NULL;
}

PyObject *ld_py_nomem(size_t bytes, const char *what) {
    return ld_py_errorf(PyExc_MemoryError, "out of memory: %zu bytes for %s", bytes, what);
}

void ld_py_attach(const char *name, PyObject *value) {
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (v && value) (void)PyObject_SetAttrString(v, name, value);
    PyErr_Restore(t, v, tb);
}

static void shape_text(char *buf, size_t cap, int n, const npy_intp *shape) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len + 24 < cap; ++i) {
        int w = shape[i] < 0
                    ? PyOS_snprintf(buf + len, cap - len, "%s*", i ? ", " : "")
                    : PyOS_snprintf(buf + len, cap - len, "%s%ld", i ? ", " : "", (long)shape[i]);
        if (w < 0) break;
        len += (size_t)w;
    }
}

PyArrayObject *ld_py_array(PyObject *obj, const char *what, int n, const npy_intp *shape,
                           int finite) {
    if (obj == NULL || obj == Py_None) {
        ld_py_errorf(PyExc_TypeError, "%s: an array is required, not None", what);
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, 0, 0, NPY_ARRAY_IN_ARRAY);
    if (!a) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        Py_XDECREF(t);
        Py_XDECREF(v);
        Py_XDECREF(tb);
        ld_py_errorf(PyExc_TypeError, "%s: cannot be read as an array of numbers", what);
        return NULL;
    }
    int nd = PyArray_NDIM(a);
    int ok = nd >= n;
    for (int i = 0; ok && i < n; ++i)
        if (shape[i] >= 0 && PyArray_DIM(a, nd - n + i) != shape[i]) ok = 0;
    if (!ok) {
        char want[128], got[128];
        shape_text(want, sizeof want, n, shape);
        shape_text(got, sizeof got, nd, PyArray_DIMS(a));
        ld_py_errorf(PyExc_ValueError, "%s: expected shape (..., %s), got (%s)", what, want, got);
        Py_DECREF(a);
        return NULL;
    }
    if (finite) {
        const double *x = (const double *)PyArray_DATA(a);
        npy_intp size = PyArray_SIZE(a);
        for (npy_intp i = 0; i < size; ++i)
            if (!isfinite(x[i])) {
                ld_py_errorf(PyExc_ValueError, "%s: entry %ld is not finite (%s)", what, (long)i,
                             isnan(x[i]) ? "nan" : "inf");
                Py_DECREF(a);
                return NULL;
            }
    }
    return a;
}

PyArrayObject *ld_py_new(int nd, const npy_intp *shape) {
    return (PyArrayObject *)PyArray_SimpleNew(nd, (npy_intp *)(uintptr_t)shape, NPY_DOUBLE);
}

PyObject *ld_py_vec(const double *x, npy_intp n) {
    PyArrayObject *a = ld_py_new(1, &n);
    if (a && n > 0 && x) memcpy(PyArray_DATA(a), x, (size_t)n * sizeof(double));
    return (PyObject *)a;
}

PyObject *ld_py_view(const double *x, npy_intp n, PyObject *owner) {
    if (!x) return ld_py_vec(NULL, 0);
    PyObject *a = PyArray_New(&PyArray_Type, 1, &n, NPY_DOUBLE, NULL, (void *)(uintptr_t)x, 0,
                              NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, NULL);
    if (!a) return NULL;
    Py_INCREF(owner);
    if (PyArray_SetBaseObject((PyArrayObject *)a, owner) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

int ld_py_double(PyObject *obj, const char *what, int finite, double *out) {
    double x = PyFloat_AsDouble(obj);
    if (x == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        ld_py_errorf(PyExc_TypeError, "%s: a number is required, not %.80s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (finite && !isfinite(x)) {
        PyErr_Format(PyExc_ValueError, "%s: must be finite, got %R", what, obj);
        return -1;
    }
    *out = x;
    return 0;
}

static PyObject *py_version(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    return PyUnicode_FromString(ld_version());
}

static PyObject *py_integrators(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    PyObject *out = PyDict_New();
    for (int i = 0; out && i < ld_method_count(); ++i) {
        const ld_method_info *mi = ld_method_get(i);
        PyObject *t = PyUnicode_FromString(mi->title);
        if (!t || PyDict_SetItemString(out, mi->name, t) < 0) Py_CLEAR(out);
        Py_XDECREF(t);
    }
    return out;
}

static PyObject *py_formulations(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    PyObject *out = PyList_New(0);
    for (int i = 0; out && i < LD_FORM_ALL; ++i) {
        PyObject *s = PyUnicode_FromString(ld_formulation_name((ld_formulation)i));
        if (!s || PyList_Append(out, s) < 0) Py_CLEAR(out);
        Py_XDECREF(s);
    }
    return out;
}

static PyMethodDef methods[] = {
    {"version", py_version, METH_NOARGS, "version() -> str\n\nThe C library's version."},
    {"integrators", py_integrators, METH_NOARGS,
     "integrators() -> dict\n\nThe integration methods: name -> one-line title with its source."},
    {"formulations", py_formulations, METH_NOARGS,
     "formulations() -> list\n\nThe configuration spaces a model compiles to: so3xr3, se3, "
     "s3xr3, s3sdr3, so3xr3-spatial, s3xr3-spatial, euler, tree."},
    {"run", (PyCFunction)(void (*)(void))ld_py_run, METH_VARARGS | METH_KEYWORDS, ld_py_run_doc},
    {"_time_steps", ld_py_time_steps, METH_VARARGS, ld_py_time_steps_doc},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_liedyn",
    "The C core of the liedyn package (use the liedyn package, not this module directly).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL};

PyMODINIT_FUNC PyInit__liedyn(void);
PyMODINIT_FUNC PyInit__liedyn(void) {
    import_array();
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    ld_py_error = PyErr_NewExceptionWithDoc(
        "liedyn.Error",
        "A failure reported by the liedyn library. str(e) is its message (for a model file: "
        "FILE:LINE: ITEM: REASON); e.status is the library's status code (negative: fatal).",
        PyExc_RuntimeError, NULL);
    if (!ld_py_error || PyModule_AddObjectRef(m, "Error", ld_py_error) < 0 ||
        ld_py_lie_add(m) < 0 || ld_py_model_add(m) < 0 || ld_py_system_add(m) < 0 ||
        ld_py_integ_add(m) < 0 || ld_py_attitude_add(m) < 0 || ld_py_linear_add(m) < 0 ||
        ld_py_edit_add(m) < 0 || ld_py_import_add(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

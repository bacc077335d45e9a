/* liedyn.System: a model compiled in one formulation (ld_model_compile) with its initial state,
 * its energy, constraints and the bodies' states read from a state vector. */
#include "ext.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ld_py_system *ld_py_system_compile(ld_py_model *M, int f) {
    ld_py_system *S = PyObject_New(ld_py_system, &ld_py_system_type);
    if (!S) return NULL;
    memset(&S->s, 0, sizeof S->s);
    S->q0 = S->v0 = S->phi = NULL;
    S->busy = 0;
    S->model = M;
    Py_INCREF(M);
    S->form = (ld_formulation)f;
    char why[512] = "";
    int rc = ld_model_check_initial(&M->m, why, sizeof why);
    if (rc) {
        Py_DECREF(S);
        return (ld_py_system *)ld_py_raise(rc, "%s: inconsistent initial state: %s",
                                           M->m.source[0] ? M->m.source : M->m.name, why);
    }
    rc = ld_model_compile_msg(&M->m, (ld_formulation)f, &S->s, &S->q0, &S->v0, why, sizeof why);
    if (rc) {
        memset(&S->s, 0, sizeof S->s);
        Py_DECREF(S);
        return (ld_py_system *)ld_py_raise(rc, "%s: cannot compile the model: %s",
                                           M->m.source[0] ? M->m.source : M->m.name,
                                           why[0] ? why : ld_strerror(rc));
    }
    M->compiled++;
    S->phi = calloc((size_t)S->s.m + 1, sizeof(double));
    if (!S->phi) {
        size_t bytes = ((size_t)S->s.m + 1) * sizeof(double);
        Py_DECREF(S);
        return (ld_py_system *)ld_py_nomem(bytes, "the constraint residual");
    }
    return S;
}

static void system_dealloc(ld_py_system *S) {
    if (S->s.nodes) {
        ld_model_system_free(&S->s);
        S->model->compiled--;
    }
    free(S->q0);
    free(S->v0);
    free(S->phi);
    Py_XDECREF(S->model);
    PyObject_Free(S);
}

double ld_py_system_energy(const ld_py_system *S, double t, const double *q, const double *v) {
    double e = NAN;
    if (!S->s.ops.energy || S->s.ops.energy(&S->s, t, q, v, &e) != LD_OK) return NAN;
    return e;
}

double ld_py_system_phimax(const ld_py_system *S, double t, const double *q) {
    if (S->s.m == 0) return 0.0;
    if (!S->s.ops.phi || S->s.ops.phi(&S->s, t, q, S->phi) != LD_OK) return NAN;
    double mx = 0.0;
    for (int i = 0; i < S->s.m; ++i) {
        if (isnan(S->phi[i])) return NAN;
        mx = fmax(mx, fabs(S->phi[i]));
    }
    return mx;
}

int ld_py_system_claim(ld_py_system *S, const char *what) {
    if (S->busy) {
        ld_py_errorf(PyExc_RuntimeError,
                     "%s: the System is in use by a running step or linearization (in another "
                     "thread, or this is a callback of it): wait for it to return, or compile "
                     "another System",
                     what);
        return -1;
    }
    S->busy = 1;
    return 0;
}

void ld_py_system_release(ld_py_system *S) {
    S->busy = 0;
}

/* q (nq) and v (k) from arguments; new references or -1. */
static int state_args(const ld_py_system *S, PyObject *qo, PyObject *vo, PyArrayObject **q,
                      PyArrayObject **v) {
    npy_intp nq = S->s.nq, k = S->s.k;
    *q = *v = NULL;
    *q = ld_py_array(qo, "q", 1, &nq, 1);
    if (!*q) return -1;
    if (PyArray_NDIM(*q) != 1) {
        PyErr_SetString(PyExc_ValueError, "q: expected a vector");
        Py_CLEAR(*q);
        return -1;
    }
    if (!vo) return 0;
    *v = ld_py_array(vo, "v", 1, &k, 1);
    if (*v && PyArray_NDIM(*v) != 1) {
        PyErr_SetString(PyExc_ValueError, "v: expected a vector");
        Py_CLEAR(*v);
    }
    if (!*v) Py_CLEAR(*q);
    return *v ? 0 : -1;
}

static PyObject *system_energy(ld_py_system *S, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"q", "v", "t", NULL};
    PyObject *qo, *vo;
    double t = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|d:energy", kwlist, &qo, &vo, &t)) return NULL;
    PyArrayObject *q, *v;
    if (state_args(S, qo, vo, &q, &v) < 0) return NULL;
    double e = ld_py_system_energy(S, t, PyArray_DATA(q), PyArray_DATA(v));
    Py_DECREF(q);
    Py_DECREF(v);
    return PyFloat_FromDouble(e);
}

static PyObject *system_phi(ld_py_system *S, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"q", "t", NULL};
    PyObject *qo;
    double t = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|d:phi", kwlist, &qo, &t)) return NULL;
    PyArrayObject *q, *v;
    if (state_args(S, qo, NULL, &q, &v) < 0) return NULL;
    npy_intp m = S->s.m;
    PyArrayObject *r = ld_py_new(1, &m);
    int rc = LD_OK;
    if (r && m > 0) rc = S->s.ops.phi(&S->s, t, PyArray_DATA(q), PyArray_DATA(r));
    Py_DECREF(q);
    if (rc != LD_OK) {
        Py_XDECREF(r);
        return ld_py_raise(rc, "phi: %s", ld_strerror(rc));
    }
    return (PyObject *)r;
}

static PyObject *system_body_state(ld_py_system *S, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"body", "q", "v", NULL};
    PyObject *bo, *qo, *vo;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:body_state", kwlist, &bo, &qo, &vo))
        return NULL;
    int b = ld_py_body_index(S->model, bo, 0);
    if (b < 0) return NULL;
    PyArrayObject *q, *v;
    if (state_args(S, qo, vo, &q, &v) < 0) return NULL;
    double x[3], qq[4], w[3], xd[3];
    int rc = ld_model_body_state(&S->s, b, PyArray_DATA(q), PyArray_DATA(v), x, qq, w, xd);
    Py_DECREF(q);
    Py_DECREF(v);
    if (rc != LD_OK) return ld_py_raise(rc, "body_state: %s", ld_strerror(rc));
    return Py_BuildValue("NNNN", ld_py_vec(x, 3), ld_py_vec(qq, 4), ld_py_vec(w, 3),
                         ld_py_vec(xd, 3));
}

static PyObject *system_row_name(ld_py_system *S, PyObject *args) {
    int row;
    if (!PyArg_ParseTuple(args, "i:row_name", &row)) return NULL;
    char buf[256];
    int rc = ld_model_row_name(&S->s, row, buf, sizeof buf);
    if (rc != LD_OK) {
        ld_py_errorf(PyExc_IndexError, "constraint row %d out of range (m = %d)", row, S->s.m);
        return NULL;
    }
    return PyUnicode_FromString(buf);
}

static PyObject *get_int(ld_py_system *S, void *which) {
    int w = (int)(intptr_t)which;
    return PyLong_FromLong(w == 0   ? S->s.nq
                           : w == 1 ? S->s.k
                           : w == 2 ? S->s.m
                           : w == 3 ? S->s.nnodes
                                    : ld_sys_actuator_count(&S->s));
}
static PyObject *get_q0(ld_py_system *S, void *c) {
    (void)c;
    return ld_py_vec(S->q0, S->s.nq);
}
static PyObject *get_v0(ld_py_system *S, void *c) {
    (void)c;
    return ld_py_vec(S->v0, S->s.k);
}
static PyObject *get_form(ld_py_system *S, void *c) {
    (void)c;
    return PyUnicode_FromString(ld_formulation_name(S->form));
}
static PyObject *get_model(ld_py_system *S, void *c) {
    (void)c;
    Py_INCREF(S->model);
    return (PyObject *)S->model;
}

static PyMethodDef system_methods[] = {
    {"energy", (PyCFunction)(void (*)(void))system_energy, METH_VARARGS | METH_KEYWORDS,
     "energy(q, v, t=0) -> float\n\nTotal mechanical energy at the state (NaN if the model has "
     "none)."},
    {"phi", (PyCFunction)(void (*)(void))system_phi, METH_VARARGS | METH_KEYWORDS,
     "phi(q, t=0) -> array (m,)\n\nThe constraint residual Phi(t, q)."},
    {"body_state", (PyCFunction)(void (*)(void))system_body_state, METH_VARARGS | METH_KEYWORDS,
     "body_state(body, q, v) -> (x, quat, omega, xdot)\n\nA body's centre of mass (spatial), "
     "orientation quaternion [w x y z], body angular velocity and centre-of-mass velocity "
     "(spatial) from a state (q, v) of this system."},
    {"set_control", (PyCFunction)ld_py_system_set_control, METH_VARARGS,
     "set_control(i, u)\n\nSet the control input of actuator i (input 'control')."},
    {"control", (PyCFunction)ld_py_system_control, METH_VARARGS,
     "control(i) -> float\n\nThe control input of actuator i."},
    {"actuator_state", (PyCFunction)(void (*)(void))ld_py_system_actuator_state,
     METH_VARARGS | METH_KEYWORDS,
     "actuator_state(i, q, v, t=0) -> (coordinate, rate, force, input)\n\nWhat actuator i "
     "measures (its joint's coordinate and rate) and applies (the actuator force after "
     "saturation) at the state, and its input after ctrl_limits."},
    {"row_name", (PyCFunction)system_row_name, METH_VARARGS,
     "row_name(row) -> str\n\nThe owner of constraint row `row`, e.g. \"joint 'pivot' row 1\"."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef system_getset[] = {
    {"nq", (getter)get_int, NULL, "Storage size of q.", (void *)0},
    {"k", (getter)get_int, NULL, "Dimension of v (degrees of freedom before constraints).",
     (void *)1},
    {"m", (getter)get_int, NULL, "Number of constraint equations.", (void *)2},
    {"nnodes", (getter)get_int, NULL, "Number of nodes (one per body).", (void *)3},
    {"actuators", (getter)get_int, NULL, "Number of actuators (in the order of the elements).",
     (void *)4},
    {"q0", (getter)get_q0, NULL, "Initial configuration, array (nq,).", NULL},
    {"v0", (getter)get_v0, NULL, "Initial velocity, array (k,).", NULL},
    {"formulation", (getter)get_form, NULL, "The formulation compiled to.", NULL},
    {"model", (getter)get_model, NULL, "The Model compiled.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject ld_py_system_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "liedyn.System",
    .tp_basicsize = sizeof(ld_py_system),
    .tp_dealloc = (destructor)system_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A model compiled into M(q) v' + g(t, q, v) + B(q)^T lambda = 0, Phi(t, q) = 0 on a "
              "product Lie group (Model.compile). It keeps its model alive.",
    .tp_methods = system_methods,
    .tp_getset = system_getset,
};

int ld_py_system_add(PyObject *module) {
    if (PyType_Ready(&ld_py_system_type) < 0) return -1;
    return PyModule_AddObjectRef(module, "System", (PyObject *)&ld_py_system_type);
}

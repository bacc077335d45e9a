/* Linearization and modes (liedyn/linearize.h) for the package's liedyn.linearize and
 * liedyn.modes: a System's state, optionally its static equilibrium first, linearized; the
 * matrices, the state and input matrices and the modes as numpy arrays. */
#include "ext.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/linearize.h"
#include "liedyn/statics.h"

/* A new (r, c) array with a copy of r·c doubles (row-major); NULL with an exception. */
static PyObject *mat(const double *x, npy_intp r, npy_intp c) {
    npy_intp shape[2] = {r, c};
    PyArrayObject *a = ld_py_new(2, shape);
    if (a && r * c > 0) memcpy(PyArray_DATA(a), x, (size_t)(r * c) * sizeof(double));
    return (PyObject *)a;
}

/* Set d[key] = value (stolen); −1 when value is NULL or the set fails. */
static int put(PyObject *d, const char *key, PyObject *value) {
    if (!value) return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

/* The linearization's arrays into d; 0 or −1. */
static int put_linear(PyObject *d, const ld_linear *lin, const double *A) {
    npy_intp k = lin->k, m = lin->m, n = lin->n;
    if (put(d, "M", mat(lin->M, k, k)) || put(d, "D", mat(lin->D, k, k)) ||
        put(d, "K", mat(lin->K, k, k)) || put(d, "B", mat(lin->B, m, k)) ||
        put(d, "N", mat(lin->N, k, n)) || put(d, "Mr", mat(lin->Mr, n, n)) ||
        put(d, "Dr", mat(lin->Dr, n, n)) || put(d, "Kr", mat(lin->Kr, n, n)) ||
        put(d, "A", mat(A, 2 * n, 2 * n)) || put(d, "a", ld_py_vec(lin->a, k)) ||
        put(d, "lambda", ld_py_vec(lin->lambda, m)) ||
        put(d, "accel", PyFloat_FromDouble(lin->accel)) ||
        put(d, "asym", PyFloat_FromDouble(lin->asym)) || put(d, "n", PyLong_FromLong(n)) ||
        put(d, "dependent", PyLong_FromLong(lin->dependent)))
        return -1;
    return 0;
}

/* The modes' arrays into d, with each body's motion in each mode (count, nbodies, 6: the
 * centre's displacement and the rotation, spatial; real and imaginary parts; NaN where it
 * cannot be had); 0 or −1. */
static int put_modes(PyObject *d, const ld_py_system *S, const double *q, const ld_modes *md) {
    npy_intp c = md->count, k = md->k, n = md->n, nb = S->model->m.nbodies;
    npy_intp shape[3] = {c, nb, 6};
    PyArrayObject *re = ld_py_new(3, shape), *im = ld_py_new(3, shape);
    if (!re || !im) {
        Py_XDECREF(re);
        Py_XDECREF(im);
        return -1;
    }
    double *r = PyArray_DATA(re), *i = PyArray_DATA(im);
    for (npy_intp j = 0; j < c; ++j)
        for (npy_intp b = 0; b < nb; ++b) {
            double *rj = r + (j * nb + b) * 6, *ij = i + (j * nb + b) * 6;
            if (ld_modes_body_shape(&S->s, q, md->phi + j * k, (int)b, rj, rj + 3))
                for (int e = 0; e < 6; ++e) rj[e] = NAN;
            if (ld_modes_body_shape(&S->s, q, md->phi_im + j * k, (int)b, ij, ij + 3))
                for (int e = 0; e < 6; ++e) ij[e] = NAN;
        }
    if (put(d, "body_re", (PyObject *)re) || put(d, "body_im", (PyObject *)im) ||
        put(d, "hz", ld_py_vec(md->hz, c)) || put(d, "omega2", ld_py_vec(md->omega2, c)) ||
        put(d, "re", ld_py_vec(md->re, c)) || put(d, "im", ld_py_vec(md->im, c)) ||
        put(d, "zeta", ld_py_vec(md->zeta, c)) || put(d, "noise", ld_py_vec(md->noise, c)) ||
        put(d, "z", mat(md->z, c, n)) || put(d, "z_im", mat(md->z_im, c, n)) ||
        put(d, "phi", mat(md->phi, c, k)) || put(d, "phi_im", mat(md->phi_im, c, k)))
        return -1;
    return 0;
}

/* The work without the GIL: the equilibrium (static ≠ 0), the linearization, A, the modes
 * (count ≥ 0; −1: none) — or, sparse, the equilibrium and the lowest undamped modes by the
 * sparse path (ld_modes_sparse at the shift), no matrices. Returns a status, msg says why. */
typedef struct lin_job {
    const ld_py_system *S;
    double t, *q, *v, *lam, *A, shift;
    int statics, steps, count, damped, sparse;
    ld_linear lin;
    ld_modes md;
    int have_modes;
    char msg[512];
} lin_job;

static int lin_work(lin_job *J) {
    const ld_system *s = &J->S->s;
    int rc;
    if (J->statics) {
        ld_static_options o;
        ld_static_options_init(&o);
        o.steps = J->steps;
        if ((rc = ld_static_solve(s, J->t, J->q, J->lam, &o, NULL, J->msg, sizeof J->msg)))
            return rc;
    }
    if (J->sparse) {
        rc = ld_modes_sparse(s, J->t, J->q, J->count, J->shift, &J->md, J->msg, sizeof J->msg);
        J->have_modes = rc == LD_OK;
        return rc;
    }
    if ((rc = ld_linearize(s, J->t, J->q, J->v, &J->lin, J->msg, sizeof J->msg))) return rc;
    size_t n2 = 2 * (size_t)J->lin.n;
    J->A = malloc(n2 * n2 * sizeof *J->A + 1);
    if (!J->A) return LD_ENOMEM;
    if ((rc = ld_linear_state_matrix(&J->lin, J->A))) {
        snprintf(J->msg, sizeof J->msg, "the state matrix: %s (a singular reduced mass)",
                 ld_strerror(rc));
        return rc;
    }
    if (J->count < 0) return LD_OK;
    rc = J->damped ? ld_modes_damped(&J->lin, J->count, &J->md, J->msg, sizeof J->msg)
                   : ld_modes_undamped(&J->lin, J->count, &J->md, J->msg, sizeof J->msg);
    J->have_modes = rc == LD_OK;
    return rc;
}

/* _linearize(system, q=None, v=None, t=0, static=True, steps=10, count=-1, damped=False,
 * sparse=False, shift=0). */
static PyObject *py_linearize(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *kwlist[] = {"system", "q",      "v",      "t",     "static", "steps",
                             "count",  "damped", "sparse", "shift", NULL};
    PyObject *so, *qo = Py_None, *vo = Py_None;
    lin_job J;
    memset(&J, 0, sizeof J);
    J.statics = 1, J.steps = 10, J.count = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|OOdpiippd:_linearize", kwlist,
                                     &ld_py_system_type, &so, &qo, &vo, &J.t, &J.statics, &J.steps,
                                     &J.count, &J.damped, &J.sparse, &J.shift))
        return NULL;
    if (J.steps < 1) {
        PyErr_SetString(PyExc_ValueError, "steps: at least 1");
        return NULL;
    }
    if (J.sparse && (J.count < 1 || J.damped || vo != Py_None)) {
        PyErr_SetString(PyExc_ValueError,
                        "sparse: the lowest undamped modes about an equilibrium (count >= 1, "
                        "damped=False, no v)");
        return NULL;
    }
    ld_py_system *S = (ld_py_system *)so;
    J.S = S;
    npy_intp nq = S->s.nq, k = S->s.k;
    PyArrayObject *qa = qo == Py_None ? NULL : ld_py_array(qo, "q", 1, &nq, 1);
    PyArrayObject *va = vo == Py_None ? NULL : ld_py_array(vo, "v", 1, &k, 1);
    if ((qo != Py_None && !qa) || (vo != Py_None && !va)) {
        Py_XDECREF(qa);
        Py_XDECREF(va);
        return NULL;
    }
    J.q = malloc((size_t)nq * sizeof *J.q);
    J.lam = calloc((size_t)S->s.m + 1, sizeof *J.lam);
    if (va) J.v = malloc((size_t)k * sizeof *J.v);
    PyObject *out = NULL;
    if (!J.q || !J.lam || (va && !J.v)) {
        ld_py_nomem(((size_t)nq + (size_t)S->s.m + 1 + (va ? (size_t)k : 0)) * sizeof(double),
                    "the state to linearize about");
        goto done;
    }
    memcpy(J.q, qa ? PyArray_DATA(qa) : S->q0, (size_t)nq * sizeof *J.q);
    if (va) memcpy(J.v, PyArray_DATA(va), (size_t)k * sizeof *J.v);
    int rc;
    if (ld_py_system_claim(S, "linearize") < 0) goto done; /* the forces are called */
    Py_BEGIN_ALLOW_THREADS rc = lin_work(&J);
    Py_END_ALLOW_THREADS ld_py_system_release(S);
    PyObject *fe = ld_py_force_take_error(S->model);
    if (fe) { /* a Python force raised: its exception */
        PyErr_SetObject((PyObject *)Py_TYPE(fe), fe);
        Py_DECREF(fe);
        goto done;
    }
    if (rc) {
        const ld_model *m = &S->model->m;
        ld_py_raise(rc, "%s: %s", m->source[0] ? m->source : m->name,
                    J.msg[0] ? J.msg : ld_strerror(rc));
        goto done;
    }
    out = PyDict_New();
    if (!out || (!J.sparse && put_linear(out, &J.lin, J.A)) || put(out, "q", ld_py_vec(J.q, nq)) ||
        put(out, "t", PyFloat_FromDouble(J.t)) || (J.have_modes && put_modes(out, S, J.q, &J.md)))
        Py_CLEAR(out);
done:
    Py_XDECREF(qa);
    Py_XDECREF(va);
    if (J.have_modes) ld_modes_free(&J.md);
    ld_linear_free(&J.lin);
    free(J.q);
    free(J.v);
    free(J.lam);
    free(J.A);
    return out;
}

/* _input_matrix(N, Mr, F) -> Bu (2n, p): ld_linear_input_matrix on the given N (k, n), Mr
 * (n, n) and generalized forces F (k, p). */
static PyObject *py_input_matrix(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *No, *Mo, *Fo;
    if (!PyArg_ParseTuple(args, "OOO:_input_matrix", &No, &Mo, &Fo)) return NULL;
    npy_intp any2[2] = {-1, -1};
    PyArrayObject *N = ld_py_array(No, "N", 2, any2, 1), *Mr = NULL, *F = NULL;
    PyObject *out = NULL;
    if (!N) return NULL;
    npy_intp k = PyArray_DIM(N, 0), n = PyArray_DIM(N, 1), mshape[2] = {n, n}, fshape[2] = {k, -1};
    Mr = ld_py_array(Mo, "Mr", 2, mshape, 1);
    if (Mr) F = ld_py_array(Fo, "F", 2, fshape, 1);
    if (!Mr || !F) goto done;
    npy_intp p = PyArray_DIM(F, 1), oshape[2] = {2 * n, p};
    PyArrayObject *Bu = ld_py_new(2, oshape);
    if (!Bu) goto done;
    ld_linear lin;
    memset(&lin, 0, sizeof lin);
    lin.k = (int)k, lin.n = (int)n, lin.N = PyArray_DATA(N), lin.Mr = PyArray_DATA(Mr);
    int rc = ld_linear_input_matrix(&lin, PyArray_DATA(F), (int)p, PyArray_DATA(Bu));
    if (rc) {
        Py_DECREF(Bu);
        ld_py_raise(rc, "input_matrix: %s", ld_strerror(rc));
        goto done;
    }
    out = (PyObject *)Bu;
done:
    Py_XDECREF(N);
    Py_XDECREF(Mr);
    Py_XDECREF(F);
    return out;
}

/* _body_jacobian(system, q, body) -> (Jx, Jr), each (3, k). */
static PyObject *py_body_jacobian(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *so, *qo, *bo;
    if (!PyArg_ParseTuple(args, "O!OO:_body_jacobian", &ld_py_system_type, &so, &qo, &bo))
        return NULL;
    const ld_py_system *S = (const ld_py_system *)so;
    int b = ld_py_body_index(S->model, bo, 0);
    if (b < 0) return NULL;
    npy_intp nq = S->s.nq, shape[2] = {3, S->s.k};
    PyArrayObject *q = ld_py_array(qo, "q", 1, &nq, 1);
    if (!q) return NULL;
    PyArrayObject *Jx = ld_py_new(2, shape), *Jr = ld_py_new(2, shape);
    int rc = Jx && Jr ? ld_linear_body_jacobian(&S->s, PyArray_DATA(q), b, PyArray_DATA(Jx),
                                                PyArray_DATA(Jr))
                      : LD_ENOMEM;
    Py_DECREF(q);
    if (rc) {
        Py_XDECREF(Jx);
        Py_XDECREF(Jr);
        return rc == LD_ENOMEM && PyErr_Occurred()
                   ? NULL
                   : ld_py_raise(rc, "body_jacobian: %s", ld_strerror(rc));
    }
    return Py_BuildValue("NN", Jx, Jr);
}

static PyMethodDef METHODS[] = {
    {"_linearize", (PyCFunction)(void (*)(void))py_linearize, METH_VARARGS | METH_KEYWORDS,
     "_linearize(system, q=None, v=None, t=0, static=True, steps=10, count=-1, damped=False) "
     "-> dict (use liedyn.linearize and liedyn.modes)."},
    {"_input_matrix", py_input_matrix, METH_VARARGS,
     "_input_matrix(N, Mr, F) -> array (2n, p) (use Linear.input_matrix)."},
    {"_body_jacobian", py_body_jacobian, METH_VARARGS,
     "_body_jacobian(system, q, body) -> (Jx, Jr) (use Linear.body_jacobian)."},
    {NULL, NULL, 0, NULL}};

int ld_py_linear_add(PyObject *module) {
    return PyModule_AddFunctions(module, METHODS);
}

/* Actuators from Python (docs/actuators.md): a system's control inputs and what its actuators
 * measure (System.set_control, .control, .actuator_state, .actuators), and a sampled controller
 * as a Python callable (Integrator.set_controller): a trampoline with the ld_controller_fn
 * signature takes the GIL, calls fn(t, q, v, sensors) and reads the inputs back. An exception
 * is kept for the caller of the integrator to re-raise; the step then fails (status < 0). */
#include "ext.h"

#include <string.h>

struct ld_py_ctrl {
    PyObject *fn;
    PyObject *error; /* the first exception fn raised (owned), or NULL */
    int nact, nq, k;
};

void ld_py_ctrl_free(ld_py_ctrl *c) {
    if (!c) return;
    Py_XDECREF(c->fn);
    Py_XDECREF(c->error);
    PyMem_Free(c);
}

PyObject *ld_py_ctrl_take_error(ld_py_ctrl *c) {
    PyObject *e = c ? c->error : NULL;
    if (c) c->error = NULL;
    return e;
}

/* Call fn and copy its nact inputs into u: 0, or −1 with an exception. */
static int call(ld_py_ctrl *c, double t, const double *q, const double *v, const double *sensors,
                double *u) {
    PyObject *aq = ld_py_vec(q, c->nq), *av = ld_py_vec(v, c->k);
    npy_intp sh[2] = {c->nact, LD_SENSORS_PER_ACTUATOR};
    PyArrayObject *as = ld_py_new(2, sh);
    if (as) memcpy(PyArray_DATA(as), sensors, (size_t)(3 * c->nact) * sizeof(double));
    PyObject *r = aq && av && as ? PyObject_CallFunction(c->fn, "dOOO", t, aq, av, as) : NULL;
    Py_XDECREF(aq);
    Py_XDECREF(av);
    Py_XDECREF((PyObject *)as);
    if (!r) return -1;
    npy_intp any = -1;
    PyArrayObject *a = ld_py_array(r, "controller: the returned inputs", 0, &any, 1);
    Py_DECREF(r);
    if (!a) return -1;
    if (PyArray_SIZE(a) != c->nact) {
        ld_py_errorf(PyExc_ValueError, "controller: expected %d inputs (one per actuator), got %ld",
                     c->nact, (long)PyArray_SIZE(a));
        Py_DECREF(a);
        return -1;
    }
    memcpy(u, PyArray_DATA(a), (size_t)c->nact * sizeof(double));
    Py_DECREF(a);
    return 0;
}

static int trampoline(double t, const double *q, const double *v, const double *sensors, double *u,
                      void *user) {
    ld_py_ctrl *c = user;
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = c->error ? -1 : call(c, t, q, v, sensors, u);
    if (rc < 0 && !c->error) {
        PyObject *tp, *val, *tb;
        PyErr_Fetch(&tp, &val, &tb);
        PyErr_NormalizeException(&tp, &val, &tb);
        if (val && tb) PyException_SetTraceback(val, tb);
        c->error = val;
        Py_XDECREF(tp);
        Py_XDECREF(tb);
    }
    PyErr_Clear();
    PyGILState_Release(g);
    return rc < 0 ? LD_EINVAL : LD_OK;
}

PyObject *ld_py_integ_set_controller(ld_py_integ *I, PyObject *args) {
    double period;
    PyObject *fn;
    if (!PyArg_ParseTuple(args, "dO:set_controller", &period, &fn)) return NULL;
    if (!I->it) {
        PyErr_SetString(PyExc_RuntimeError, "the Integrator was not initialized");
        return NULL;
    }
    if (I->busy) { /* a step of it is running: the controller in use must stay */
        PyErr_SetString(PyExc_RuntimeError,
                        "set_controller: the Integrator is busy: a call on it is running (in "
                        "another thread, or this is a callback of it)");
        return NULL;
    }
    if (fn == Py_None) {
        (void)ld_integ_set_controller(I->it, period, NULL, NULL);
        ld_py_ctrl_free(I->ctrl);
        I->ctrl = NULL;
        Py_RETURN_NONE;
    }
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "set_controller: fn must be callable");
        return NULL;
    }
    ld_py_ctrl *c = PyMem_Calloc(1, sizeof *c);
    if (!c) return ld_py_nomem(sizeof *c, "the controller");
    Py_INCREF(fn);
    c->fn = fn;
    c->nact = ld_sys_actuator_count(&I->sys->s);
    c->nq = I->sys->s.nq, c->k = I->sys->s.k;
    int rc = ld_integ_set_controller(I->it, period, trampoline, c);
    if (rc) {
        int nact = c->nact;
        ld_py_ctrl_free(c);
        if (rc == LD_ENOMEM)
            return ld_py_raise(rc, "set_controller: out of memory: %zu bytes for the sampler",
                               5 * (size_t)nact * sizeof(double));
        if (nact < 1) return ld_py_raise(rc, "set_controller: the model has no actuator");
        return ld_py_raise(rc, "set_controller: the period must be positive and finite, not %.17g",
                           period);
    }
    ld_py_ctrl_free(I->ctrl);
    I->ctrl = c;
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- System */

PyObject *ld_py_system_set_control(ld_py_system *S, PyObject *args) {
    int i;
    double u;
    if (!PyArg_ParseTuple(args, "id:set_control", &i, &u)) return NULL;
    if (ld_sys_set_control(&S->s, i, u))
        return ld_py_raise(LD_EINVAL,
                           "set_control: no actuator %d (the model has %d) or u not finite", i,
                           ld_sys_actuator_count(&S->s));
    Py_RETURN_NONE;
}

PyObject *ld_py_system_control(ld_py_system *S, PyObject *args) {
    int i;
    double u;
    if (!PyArg_ParseTuple(args, "i:control", &i)) return NULL;
    if (ld_sys_get_control(&S->s, i, &u))
        return ld_py_raise(LD_EINVAL, "control: no actuator %d (the model has %d)", i,
                           ld_sys_actuator_count(&S->s));
    return PyFloat_FromDouble(u);
}

PyObject *ld_py_system_actuator_state(ld_py_system *S, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"i", "q", "v", "t", NULL};
    int i;
    PyObject *oq, *ov;
    double t = 0.0, th, rate, f, in;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iOO|d:actuator_state", kwlist, &i, &oq, &ov, &t))
        return NULL;
    npy_intp nq = S->s.nq, k = S->s.k;
    PyArrayObject *q = ld_py_array(oq, "q", 1, &nq, 0);
    PyArrayObject *v = q ? ld_py_array(ov, "v", 1, &k, 0) : NULL;
    int rc = v ? ld_sys_actuator_state(&S->s, i, t, PyArray_DATA(q), PyArray_DATA(v), &th, &rate,
                                       &f, &in)
               : LD_OK;
    Py_XDECREF(q);
    Py_XDECREF(v);
    if (!v) return NULL;
    if (rc)
        return ld_py_raise(rc, "actuator_state: no actuator %d (the model has %d)", i,
                           ld_sys_actuator_count(&S->s));
    return Py_BuildValue("(dddd)", th, rate, f, in);
}

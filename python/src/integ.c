/* liedyn.Integrator: one integrator on a compiled system, stepped from Python (step, advance,
 * advance_to, step_adaptive with the GIL released), its state as read-only array views, its
 * statistics and checkpoints. */
#include "ext.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* The integer and double fields of ld_integ_options that keywords may set. */
typedef struct opt_field {
    const char *key;
    size_t off;
    int is_int;
} opt_field;
static const opt_field FIELDS[] = {
    {"newton_atol", offsetof(ld_integ_options, newton_atol), 0},
    {"newton_rtol", offsetof(ld_integ_options, newton_rtol), 0},
    {"max_iter", offsetof(ld_integ_options, max_iter), 1},
    {"max_halvings", offsetof(ld_integ_options, max_halvings), 1},
    {"adaptive", offsetof(ld_integ_options, adaptive), 1},
    {"error_atol", offsetof(ld_integ_options, error_atol), 0},
    {"error_rtol", offsetof(ld_integ_options, error_rtol), 0},
    {"fac", offsetof(ld_integ_options, fac), 0},
    {"facmin", offsetof(ld_integ_options, facmin), 0},
    {"facmax", offsetof(ld_integ_options, facmax), 0},
    {"h_init", offsetof(ld_integ_options, h_init), 0},
    {"h_min", offsetof(ld_integ_options, h_min), 0},
    {"h_max", offsetof(ld_integ_options, h_max), 0},
    {"max_rejects", offsetof(ld_integ_options, max_rejects), 1},
    {"project", offsetof(ld_integ_options, project), 1},
    {"newton_reuse", offsetof(ld_integ_options, newton_reuse), 1},
};
#define NFIELDS ((int)(sizeof FIELDS / sizeof FIELDS[0]))

static int set_option(ld_integ_options *o, const char *key, PyObject *val) {
    if (strcmp(key, "la") == 0) {
        const char *s = PyUnicode_Check(val) ? PyUnicode_AsUTF8(val) : NULL;
        int la = s ? ld_la_kind_find(s) : -1;
        if (la < 0) {
            PyErr_SetString(PyExc_ValueError, "la: 'dense', 'klu' or 'auto'");
            return -1;
        }
        o->la = (ld_la_kind)la;
        return 0;
    }
    for (int i = 0; i < NFIELDS; ++i) {
        if (strcmp(FIELDS[i].key, key) != 0) continue;
        if (FIELDS[i].is_int) {
            long v = PyLong_AsLong(val);
            if (v == -1 && PyErr_Occurred()) return -1;
            if (v < 0 || v > 1000000000L) {
                ld_py_errorf(PyExc_ValueError, "%s: out of range (%ld)", key, v);
                return -1;
            }
            int iv = (int)v;
            memcpy((char *)o + FIELDS[i].off, &iv, sizeof iv);
            return 0;
        }
        double d;
        if (ld_py_double(val, key, 0, &d) < 0) return -1;
        if (isnan(d)) {
            ld_py_errorf(PyExc_ValueError, "%s: must not be NaN", key);
            return -1;
        }
        memcpy((char *)o + FIELDS[i].off, &d, sizeof d);
        return 0;
    }
    const ld_method_param *p = ld_method_param_find(key, NULL);
    if (p) {
        double d;
        if (ld_py_double(val, key, 1, &d) < 0) return -1;
        if (!(d >= p->lo && d <= p->hi)) {
            ld_py_errorf(PyExc_ValueError, "%s: must be in %s", key, p->range);
            return -1;
        }
        memcpy((char *)o + p->offset, &d, sizeof d);
        return 0;
    }
    ld_py_errorf(PyExc_TypeError,
                 "unknown integrator option '%s' (method parameters such as rho_inf, alpha; "
                 "newton_atol, newton_rtol, max_iter, max_halvings, adaptive, error_atol, "
                 "error_rtol, fac, facmin, facmax, h_init, h_min, h_max, max_rejects, project, "
                 "newton_reuse, la)",
                 key);
    return -1;
}

int ld_py_integ_options(const ld_model *m, const char *method, PyObject *kw, ld_integ_options *o) {
    ld_integ_options_init(o);
    const char *name = method ? method : m->run.integrator;
    int mi = ld_integ_method_find(name);
    if (mi < 0) {
        ld_py_errorf(PyExc_ValueError, "unknown integrator '%s' (see liedyn.integrators())", name);
        return -1;
    }
    if (ld_integ_options_from_model(m, o) != LD_OK) { /* the model's block, as the CLI */
        ld_py_errorf(PyExc_ValueError, "the model's integrator block names an unknown method");
        return -1;
    }
    o->method = (ld_integ_method)mi;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (kw && PyDict_Next(kw, &pos, &k, &v)) {
        const char *key = PyUnicode_AsUTF8(k);
        if (!key || set_option(o, key, v) < 0) return -1;
    }
    if (o->adaptive && !ld_integ_method_has_estimate(o->method)) {
        ld_py_errorf(PyExc_ValueError,
                     "adaptive steps need a method with an error estimate, not %s",
                     ld_integ_method_name(o->method));
        return -1;
    }
    if (o->adaptive) { /* Newton converges well below the error tolerance (as the CLI) */
        o->newton_atol = fmin(o->newton_atol, 1e-2 * o->error_atol);
        o->newton_rtol = fmin(o->newton_rtol, 1e-2 * o->error_rtol);
    }
    return 0;
}

PyObject *ld_py_integ_fail(ld_py_system *S, ld_integ *it, int rc, const char *what) {
    PyObject *e = ld_py_force_take_error(S->model);
    if (e) {
        PyErr_SetObject((PyObject *)Py_TYPE(e), e);
        Py_DECREF(e);
        return NULL;
    }
    const char *msg = it ? ld_integ_message(it) : "";
    const ld_model *m = &S->model->m;
    return ld_py_raise(rc, "%s: %s at t = %.10g: %s", m->source[0] ? m->source : m->name, what,
                       it ? ld_integ_t(it) : (double)NAN, msg && msg[0] ? msg : ld_strerror(rc));
}

ld_integ *ld_py_integ_start(ld_py_system *S, const ld_integ_options *o, double t0) {
    const char *why_not = ld_integ_options_check(&S->s, o);
    const ld_model *m = &S->model->m;
    const char *src = m->source[0] ? m->source : m->name;
    if (why_not) {
        ld_py_raise(LD_ENOTSUPPORTED, "%s: %s cannot run this model: %s", src,
                    ld_integ_method_name(o->method), why_not);
        return NULL;
    }
    char why[512] = "";
    int rc = 0;
    if (ld_py_system_claim(S, "Integrator") < 0) return NULL;
    ld_integ *it = ld_integ_create_msg(&S->s, o, &rc, why, sizeof why);
    if (!it) {
        ld_py_system_release(S);
        ld_py_raise(rc, "%s: cannot create the integrator: %s", src,
                    why[0] ? why : ld_strerror(rc));
        return NULL;
    }
    Py_XDECREF(ld_py_force_take_error(S->model)); /* stale ones */
    Py_BEGIN_ALLOW_THREADS rc = ld_integ_init(it, t0, S->q0, S->v0);
    Py_END_ALLOW_THREADS ld_py_system_release(S);
    if (rc) {
        PyObject *e = ld_py_force_take_error(S->model);
        if (e) {
            PyErr_SetObject((PyObject *)Py_TYPE(e), e);
            Py_DECREF(e);
        } else {
            if (ld_model_diagnose(&S->s, t0, S->q0, why, sizeof why) != LD_ESINGULAR) {
                const char *said = ld_integ_message(it);
                PyOS_snprintf(why, sizeof why, "%s", said && said[0] ? said : ld_strerror(rc));
            }
            ld_py_raise(rc, "%s: no consistent initial accelerations at t = %.10g: %s", src, t0,
                        why);
        }
        ld_integ_free(it);
        return NULL;
    }
    return it;
}

/* ---------------------------------------------------------------- the type */

/* The work of __init__ on an Integrator not initialized: 0, or -1 with an exception. */
static int integ_setup(ld_py_integ *I, PyObject *args, PyObject *kw) {
    PyObject *target = NULL;
    const char *method = NULL, *form = NULL;
    PyObject *t0o = Py_None;
    if (!PyArg_ParseTuple(args, "O|z:Integrator", &target, &method)) return -1;
    PyObject *rest = kw ? PyDict_Copy(kw) : PyDict_New();
    if (!rest) return -1;
    /* integrator=, formulation=, t0= among the keywords; the rest are options */
    PyObject *v;
    int rc = -1;
    if ((v = PyDict_GetItemString(rest, "integrator"))) {
        method = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
        if (!method) {
            PyErr_SetString(PyExc_TypeError, "integrator: a method name is required");
            goto done;
        }
    }
    if ((v = PyDict_GetItemString(rest, "formulation"))) {
        form = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
        if (!form) {
            PyErr_SetString(PyExc_TypeError, "formulation: a name is required");
            goto done;
        }
    }
    if ((v = PyDict_GetItemString(rest, "t0"))) t0o = v;
    Py_INCREF(t0o);
    ld_py_system *S = NULL;
    if (PyObject_TypeCheck(target, &ld_py_system_type)) {
        if (form) {
            PyErr_SetString(PyExc_TypeError, "formulation: given by the System already");
            Py_DECREF(t0o);
            goto done;
        }
        S = (ld_py_system *)target;
        Py_INCREF(S);
    } else if (PyObject_TypeCheck(target, &ld_py_model_type)) {
        ld_py_model *M = (ld_py_model *)target;
        int f = form ? ld_formulation_find(form) : (int)M->m.run.formulation;
        if (f < 0)
            ld_py_errorf(PyExc_ValueError, "unknown formulation '%s'", form);
        else
            S = ld_py_system_compile(M, f);
    } else {
        ld_py_errorf(PyExc_TypeError, "Integrator: a Model or a System is required, not %.80s",
                     Py_TYPE(target)->tp_name);
    }
    if (!S) {
        Py_DECREF(t0o);
        goto done;
    }
    double t0 = S->model->m.run.t_start;
    if (t0o != Py_None && ld_py_double(t0o, "t0", 1, &t0) < 0) {
        Py_DECREF(t0o);
        Py_DECREF(S);
        goto done;
    }
    Py_DECREF(t0o);
    (void)PyDict_DelItemString(rest, "integrator");
    (void)PyDict_DelItemString(rest, "formulation");
    (void)PyDict_DelItemString(rest, "t0");
    PyErr_Clear();
    ld_integ_options o;
    if (ld_py_integ_options(&S->model->m, method, rest, &o) < 0) {
        Py_DECREF(S);
        goto done;
    }
    ld_integ *it = ld_py_integ_start(S, &o, t0);
    if (!it) {
        Py_DECREF(S);
        goto done;
    }
    I->it = it;
    I->sys = S;
    I->o = o;
    rc = 0;
done:
    Py_DECREF(rest);
    return rc;
}

/* Integrator.__init__, once: the arrays q, v, vdot, lambda view the integrator's state (they
 * keep the Integrator alive), and a callback of a running step may call __init__ again, so a
 * second initialization, which would free that state, is refused. The Integrator is busy
 * while it initializes: the Python code that runs meanwhile (the forces, an argument's
 * __float__) cannot initialize it too. */
static int integ_init(ld_py_integ *I, PyObject *args, PyObject *kw) {
    if (I->it || I->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Integrator: already initialized (the arrays it handed out view its "
                        "state): create a new Integrator");
        return -1;
    }
    I->busy = 1;
    int rc = integ_setup(I, args, kw);
    I->busy = 0;
    return rc;
}

static void integ_dealloc(ld_py_integ *I) {
    ld_integ_free(I->it);
    ld_py_ctrl_free(I->ctrl);
    Py_XDECREF(I->sys);
    Py_TYPE(I)->tp_free((PyObject *)I);
}

static int ready(ld_py_integ *I) {
    if (!I->it) {
        PyErr_SetString(PyExc_RuntimeError, "the Integrator was not initialized");
        return 0;
    }
    if (I->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the Integrator is busy: a call on it is running (in another thread, or "
                        "this is a callback of it)");
        return 0;
    }
    return 1;
}

/* ready(I), then I marked busy and its System claimed for a call that may call back into
 * Python: 1, or 0 with an exception. Undo with unclaim. */
static int claim(ld_py_integ *I, const char *what) {
    if (!ready(I) || ld_py_system_claim(I->sys, what) < 0) return 0;
    I->busy = 1;
    return 1;
}

static void unclaim(ld_py_integ *I) {
    I->busy = 0;
    ld_py_system_release(I->sys);
}

enum { OP_STEP, OP_ADVANCE, OP_ADVANCE_TO, OP_ADAPTIVE };

static PyObject *drive(ld_py_integ *I, PyObject *arg, int op) {
    static const char *const names[] = {"step", "advance", "advance_to", "step_adaptive"};
    double x;
    if (!ready(I) || ld_py_double(arg, names[op], 1, &x) < 0) return NULL;
    double t = ld_integ_t(I->it);
    if ((op == OP_STEP || op == OP_ADVANCE) && !(x > 0.0)) {
        ld_py_errorf(PyExc_ValueError, "%s: the step must be positive", names[op]);
        return NULL;
    }
    if ((op == OP_ADVANCE_TO || op == OP_ADAPTIVE) && !(x > t)) {
        ld_py_errorf(PyExc_ValueError, "%s: the time must be after t = %.17g", names[op], t);
        return NULL;
    }
    if (op == OP_ADAPTIVE && !I->o.adaptive) {
        PyErr_SetString(PyExc_ValueError, "step_adaptive: create the Integrator with adaptive=1");
        return NULL;
    }
    int rc;
    if (!claim(I, names[op])) return NULL;
    Py_BEGIN_ALLOW_THREADS switch (op) {
    case OP_STEP:
        rc = ld_integ_step(I->it, x);
        break;
    case OP_ADVANCE:
        rc = ld_integ_advance(I->it, x);
        break;
    case OP_ADVANCE_TO:
        rc = ld_integ_advance_to(I->it, x);
        break;
    default:
        rc = ld_integ_step_adaptive(I->it, x);
        break;
    }
    Py_END_ALLOW_THREADS unclaim(I);
    if (rc == LD_OK) Py_RETURN_TRUE;
    PyObject *ce = ld_py_ctrl_take_error(I->ctrl);
    if (ce) {
        PyErr_SetObject((PyObject *)Py_TYPE(ce), ce);
        Py_DECREF(ce);
        return NULL;
    }
    if (rc > 0 && op == OP_STEP) {
        PyObject *e = ld_py_force_take_error(I->sys->model);
        if (e) {
            PyErr_SetObject((PyObject *)Py_TYPE(e), e);
            Py_DECREF(e);
            return NULL;
        }
        Py_RETURN_FALSE;
    }
    return ld_py_integ_fail(I->sys, I->it, rc, names[op]);
}

static PyObject *integ_step(ld_py_integ *I, PyObject *h) {
    return drive(I, h, OP_STEP);
}
static PyObject *integ_advance(ld_py_integ *I, PyObject *h) {
    return drive(I, h, OP_ADVANCE);
}
static PyObject *integ_advance_to(ld_py_integ *I, PyObject *t) {
    return drive(I, t, OP_ADVANCE_TO);
}
static PyObject *integ_step_adaptive(ld_py_integ *I, PyObject *t) {
    return drive(I, t, OP_ADAPTIVE);
}

static PyObject *stats_dict(const ld_integ_stats *st) {
    return Py_BuildValue(
        "{s:l,s:l,s:l,s:l,s:l,s:l,s:i,s:l}", "steps", st->steps, "rejected", st->rejected,
        "error_test_failures", st->error_test_failures, "newton_failures", st->newton_failures,
        "newton_iterations", st->newton_iterations, "factorizations", st->factorizations,
        "last_iterations", st->last_iterations, "roundoff_stops", st->roundoff_stops);
}

static PyObject *integ_stats(ld_py_integ *I, void *c) {
    (void)c;
    if (!ready(I)) return NULL;
    ld_integ_stats st;
    ld_integ_get_stats(I->it, &st);
    return stats_dict(&st);
}

static PyObject *integ_save(ld_py_integ *I, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"path", "user", NULL};
    PyObject *po;
    Py_buffer user = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|y*:save", kwlist, PyUnicode_FSConverter, &po,
                                     &user))
        return NULL;
    char msg[1024] = "";
    int rc = LD_EINVAL;
    if (ready(I)) {
        uint64_t tag = ld_py_model_tag(&I->sys->model->m, (int)I->sys->form);
        const char *path = PyBytes_AS_STRING(po);
        I->busy = 1;
        Py_BEGIN_ALLOW_THREADS rc =
            ld_integ_save(I->it, path, tag, user.buf, (size_t)user.len, msg, sizeof msg);
        Py_END_ALLOW_THREADS I->busy = 0;
        if (rc) ld_py_raise(rc, "%s", msg[0] ? msg : ld_strerror(rc));
    }
    Py_DECREF(po);
    if (user.obj) PyBuffer_Release(&user);
    if (rc || PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyObject *integ_load(ld_py_integ *I, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"path", "user_size", NULL};
    PyObject *po;
    Py_ssize_t usize = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|n:load", kwlist, PyUnicode_FSConverter, &po,
                                     &usize))
        return NULL;
    if (usize < 0 || usize > (1 << 20)) {
        Py_DECREF(po);
        PyErr_SetString(PyExc_ValueError, "load: user_size out of range");
        return NULL;
    }
    PyObject *user = PyBytes_FromStringAndSize(NULL, usize);
    char msg[1024] = "";
    int rc = LD_EINVAL;
    if (user && ready(I)) {
        uint64_t tag = ld_py_model_tag(&I->sys->model->m, (int)I->sys->form);
        const char *path = PyBytes_AS_STRING(po);
        char *ub = PyBytes_AS_STRING(user);
        I->busy = 1;
        Py_BEGIN_ALLOW_THREADS rc =
            ld_integ_load(I->it, path, tag, usize ? ub : NULL, (size_t)usize, msg, sizeof msg);
        Py_END_ALLOW_THREADS I->busy = 0;
        if (rc) ld_py_raise(rc, "%s", msg[0] ? msg : ld_strerror(rc));
    }
    Py_DECREF(po);
    if (rc || PyErr_Occurred()) {
        Py_XDECREF(user);
        return NULL;
    }
    return user;
}

static PyObject *getter_vec(ld_py_integ *I, void *which) {
    if (!ready(I)) return NULL;
    int w = (int)(intptr_t)which;
    const ld_system *s = &I->sys->s;
    switch (w) {
    case 0:
        return ld_py_view(ld_integ_q(I->it), s->nq, (PyObject *)I);
    case 1:
        return ld_py_view(ld_integ_v(I->it), s->k, (PyObject *)I);
    case 2:
        return ld_py_view(ld_integ_vdot(I->it), s->k, (PyObject *)I);
    default:
        return ld_py_view(ld_integ_lambda(I->it), s->m, (PyObject *)I);
    }
}

static PyObject *getter_num(ld_py_integ *I, void *which) {
    if (!ready(I)) return NULL;
    int w = (int)(intptr_t)which;
    double x = w == 0   ? ld_integ_t(I->it)
               : w == 1 ? ld_integ_last_h(I->it)
               : w == 2 ? ld_integ_last_error(I->it)
                        : ld_integ_next_h(I->it);
    return PyFloat_FromDouble(x);
}

static PyObject *integ_message(ld_py_integ *I, void *c) {
    (void)c;
    if (!ready(I)) return NULL;
    return PyUnicode_FromString(ld_integ_message(I->it));
}
static PyObject *integ_system(ld_py_integ *I, void *c) {
    (void)c;
    if (!ready(I)) return NULL;
    Py_INCREF(I->sys);
    return (PyObject *)I->sys;
}
static PyObject *integ_method(ld_py_integ *I, void *c) {
    (void)c;
    return PyUnicode_FromString(ld_integ_method_name(I->o.method));
}
static PyObject *integ_energy(ld_py_integ *I, void *c) {
    (void)c;
    if (!ready(I)) return NULL;
    return PyFloat_FromDouble(
        ld_py_system_energy(I->sys, ld_integ_t(I->it), ld_integ_q(I->it), ld_integ_v(I->it)));
}

static PyObject *integ_restart(ld_py_integ *I, PyObject *unused) {
    (void)unused;
    if (!claim(I, "restart")) return NULL; /* the forces are called */
    int rc = ld_integ_restart(I->it);
    unclaim(I);
    if (rc) return ld_py_integ_fail(I->sys, I->it, rc, "restart");
    Py_RETURN_NONE;
}

static PyMethodDef integ_methods[] = {
    {"restart", (PyCFunction)integ_restart, METH_NOARGS,
     "restart()\n\nStart anew from the current state after the forces jumped (a control input "
     "set by System.set_control between steps): consistent accelerations and multipliers."},
    {"set_controller", (PyCFunction)ld_py_integ_set_controller, METH_VARARGS,
     "set_controller(period, fn)\n\nRun fn(t, q, v, sensors) -> inputs every `period` seconds "
     "from now, holding the inputs between the samples (zero-order hold; the steps end on the "
     "sample instants). sensors is an array (actuators, 3): each actuator's joint coordinate "
     "(unwrapped), its rate and the force applied; fn returns one input per actuator (used by "
     "the actuators with input 'control'). fn None removes the controller."},
    {"step", (PyCFunction)integ_step, METH_O,
     "step(h) -> bool\n\nOne step of size h. True if accepted; False if rejected (the state is "
     "unchanged: Newton did not converge, a singular matrix, a non-finite value or the error "
     "test; see .message). A fatal failure raises liedyn.Error."},
    {"advance", (PyCFunction)integ_advance, METH_O,
     "advance(h) -> True\n\nAdvance by h, halving the step on rejection (max_halvings). Raises "
     "liedyn.Error when even the smallest step fails."},
    {"advance_to", (PyCFunction)integ_advance_to, METH_O,
     "advance_to(t1) -> True\n\nAdvance to exactly t1 > t (fixed steps: one step of t1 - t, "
     "halved on rejection; adaptive=1: as many controlled steps as needed)."},
    {"step_adaptive", (PyCFunction)integ_step_adaptive, METH_O,
     "step_adaptive(t_max) -> True\n\nOne accepted controlled step not beyond t_max (adaptive=1 "
     "only)."},
    {"save", (PyCFunction)(void (*)(void))integ_save, METH_VARARGS | METH_KEYWORDS,
     "save(path, user=b'')\n\nWrite a checkpoint (atomically): everything the next step depends "
     "on, the statistics and the bytes `user`. A later load() continues bit for bit."},
    {"load", (PyCFunction)(void (*)(void))integ_load, METH_VARARGS | METH_KEYWORDS,
     "load(path, user_size=0) -> bytes\n\nRestore a checkpoint written by save() for the same "
     "model, formulation and method; returns the user bytes. A mismatch or a damaged file "
     "raises liedyn.Error and leaves the state untouched."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef integ_getset[] = {
    {"q", (getter)getter_vec, NULL, "Configuration, read-only view (nq,) (changes as it steps).",
     (void *)0},
    {"v", (getter)getter_vec, NULL, "Velocity, read-only view (k,).", (void *)1},
    {"vdot", (getter)getter_vec, NULL, "Acceleration, read-only view (k,).", (void *)2},
    {"lambda", (getter)getter_vec, NULL, "Lagrange multipliers, read-only view (m,).", (void *)3},
    {"lambda_", (getter)getter_vec, NULL, "The same as 'lambda' (a Python keyword).", (void *)3},
    {"t", (getter)getter_num, NULL, "The current time.", (void *)0},
    {"last_h", (getter)getter_num, NULL, "The last accepted step.", (void *)1},
    {"last_error", (getter)getter_num, NULL, "The last error estimate (NaN: none).", (void *)2},
    {"next_h", (getter)getter_num, NULL, "The step the controller proposes next.", (void *)3},
    {"stats", (getter)integ_stats, NULL,
     "Statistics (dict): steps, rejected, error_test_failures, newton_failures, "
     "newton_iterations, factorizations, last_iterations, roundoff_stops.",
     NULL},
    {"message", (getter)integ_message, NULL, "Why the last step was rejected ('' if none).", NULL},
    {"system", (getter)integ_system, NULL, "The System integrated.", NULL},
    {"method", (getter)integ_method, NULL, "The method's name.", NULL},
    {"energy", (getter)integ_energy, NULL, "Total energy at the current state.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject ld_py_integ_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "liedyn.Integrator",
    .tp_basicsize = sizeof(ld_py_integ),
    .tp_dealloc = (destructor)integ_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Integrator(target, integrator=None, *, formulation=None, t0=None, **options)\n\n"
              "An integrator on a System (or on a Model, compiled in `formulation`), started at "
              "t0 (default: the model's t_start) from the model's initial state with "
              "consistent accelerations. integrator: a method name (default: the model's; see "
              "liedyn.integrators()). options: method parameters by key (rho_inf, alpha, ...) "
              "and newton_atol, newton_rtol, max_iter, max_halvings, adaptive, error_atol, "
              "error_rtol, fac, facmin, facmax, h_init, h_min, h_max, max_rejects, project, la "
              "('dense', 'klu', 'auto'); defaults from the model's integrator block. Each "
              "stepping call releases the GIL.",
    .tp_methods = integ_methods,
    .tp_getset = integ_getset,
    .tp_init = (initproc)integ_init,
    .tp_new = PyType_GenericNew,
};

int ld_py_integ_add(PyObject *module) {
    if (PyType_Ready(&ld_py_integ_type) < 0) return -1;
    return PyModule_AddObjectRef(module, "Integrator", (PyObject *)&ld_py_integ_type);
}

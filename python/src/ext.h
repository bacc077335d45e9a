/*
 * The liedyn Python extension (_liedyn): declarations shared by its files. One idea per file:
 * module.c (the module, errors, array helpers), lie.c (the Lie-group maps over arrays),
 * model.c (Model), system.c (System: a compiled model), integ.c (Integrator), run.c (run:
 * the simulation loop), dense.c (output between steps), force.c (user forces), attitude.c
 * (attitude from angular velocity), linear.c (linearization and modes).
 */
#ifndef LIEDYN_PY_EXT_H
#define LIEDYN_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#ifndef LD_PY_MODULE_FILE
#define NO_IMPORT_ARRAY
#endif
#define PY_ARRAY_UNIQUE_SYMBOL liedyn_ARRAY_API
#define NPY_NO_DEPRECATED_API  NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "liedyn/liedyn.h"

/* ---------------------------------------------------------------- module.c */

/* liedyn.Error: the exception of every failure the library reports (its message carries the
 * library's: file, line, item and reason). */
extern PyObject *ld_py_error;
/* Raise liedyn.Error with the formatted message (and status attribute); returns NULL. */
PyObject *ld_py_raise(int status, const char *fmt, ...);
/* Raise exception type with the message formatted by C's printf rules (%g, %ld, %zd …:
 * PyErr_Format knows no floating-point conversions and would print them as written); returns
 * NULL. Every message of the module with a C conversion goes through here or ld_py_raise. */
PyObject *ld_py_errorf(PyObject *type, const char *fmt, ...);
/* Raise MemoryError "out of memory: N bytes for WHAT" (every out-of-memory message of the
 * module says what could not be had); returns NULL. */
PyObject *ld_py_nomem(size_t bytes, const char *what);
/* Set attribute `name` of the exception being raised (keeps it raised). */
void ld_py_attach(const char *name, PyObject *value);
/* A C-contiguous float64 copy (or view) of obj whose trailing dimensions are shape[0..n) (−1:
 * any); NULL with ValueError/TypeError naming `what` otherwise. finite: reject NaN/inf. */
PyArrayObject *ld_py_array(PyObject *obj, const char *what, int n, const npy_intp *shape,
                           int finite);
/* A new float64 array of the given shape. */
PyArrayObject *ld_py_new(int nd, const npy_intp *shape);
/* A new float64 array with a copy of n doubles. */
PyObject *ld_py_vec(const double *x, npy_intp n);
/* A read-only array viewing n doubles that `owner` keeps alive. */
PyObject *ld_py_view(const double *x, npy_intp n, PyObject *owner);
/* A double from obj (NaN/inf rejected when finite): 0, or −1 with an exception. */
int ld_py_double(PyObject *obj, const char *what, int finite, double *out);

/* ---------------------------------------------------------------- lie.c */
int ld_py_lie_add(PyObject *module);

/* ---------------------------------------------------------------- model.c, force.c */
typedef struct ld_py_force ld_py_force;
typedef struct {
    PyObject_HEAD ld_model m;
    int compiled;         /* systems compiled from it (forces cannot be added then) */
    ld_py_force **forces; /* the Python user forces (owned) */
    int nforces;
    PyObject *refs; /* objects the C forces need kept alive (list) */
} ld_py_model;
extern PyTypeObject ld_py_model_type;
int ld_py_model_add(PyObject *module);
/* Body index of a name or an int (allow_ground: None/"ground" → LD_GROUND); −2 with an
 * exception when unknown. */
int ld_py_body_index(const ld_py_model *M, PyObject *obj, int allow_ground);
/* A 64-bit tag of the model's data and the formulation (checkpoints). */
uint64_t ld_py_model_tag(const ld_model *m, int formulation);

/* A Python callable as a user force of n instances (vec: vectorized, arrays with a leading
 * dimension n; else n = 1); tangent: a callable, Py_True (fn returns (w, (Wq, Wv))) or NULL
 * (the library's differences). The model owns it. NULL with MemoryError. */
ld_py_force *ld_py_force_new(PyObject *fn, PyObject *tangent, int n, int vec);
void ld_py_force_free(ld_py_force *f);
/* Add f to m as a user force (vectorized: n elements "NAME[i]") between body1[i], body2[i]:
 * the library's status. */
int ld_py_force_register(ld_model *m, const char *name, const int *body1, const int *body2,
                         ld_py_force *f);
/* Check f's user tangent at time t and the motions b (2n) against central differences of its
 * force (ground1[i]: instance i's body1 is the ground): 0, or −1 with ValueError naming the
 * worst entry (or fn's exception). */
int ld_py_force_check(ld_py_force *f, const char *name, double t, const ld_body_motion *b,
                      const int *ground1);
/* The first exception a force raised since the last call (new reference, cleared), or NULL. */
PyObject *ld_py_force_take_error(ld_py_model *M);

/* ---------------------------------------------------------------- system.c */
typedef struct {
    PyObject_HEAD ld_py_model *model;
    ld_system s;
    double *q0, *v0, *phi;
    ld_formulation form;
    int busy; /* library calls running on it (ld_py_system_claim) */
} ld_py_system;
extern PyTypeObject ld_py_system_type;
int ld_py_system_add(PyObject *module);
/* Compile M in formulation f: a new System, or NULL with liedyn.Error. */
ld_py_system *ld_py_system_compile(ld_py_model *M, int f);
double ld_py_system_energy(const ld_py_system *S, double t, const double *q, const double *v);
double ld_py_system_phimax(const ld_py_system *S, double t, const double *q);
/* Claim S for a library call that may call back into Python or use the system's scratch (an
 * integrator's creation, steps, restart; a linearization): the callbacks, or another thread
 * while the GIL is released, could otherwise run a second such call on the same scratch, or
 * reallocate it under the first one. 0, or −1 with RuntimeError naming `what` when a call on
 * S is running. With the GIL held; release with ld_py_system_release. */
int ld_py_system_claim(ld_py_system *S, const char *what);
void ld_py_system_release(ld_py_system *S);

/* ---------------------------------------------------------------- integ.c */
typedef struct {
    PyObject_HEAD ld_py_system *sys;
    ld_integ *it;
    ld_integ_options o;
    int busy;                /* a call is running with the GIL released */
    struct ld_py_ctrl *ctrl; /* the Python controller (control.c; owned), or NULL */
} ld_py_integ;
extern PyTypeObject ld_py_integ_type;
int ld_py_integ_add(PyObject *module);
/* Options from the model's run block, then from keyword arguments (method parameters by key,
 * the named fields of ld_integ_options). method: a name or NULL (the model's). 0 or −1. */
int ld_py_integ_options(const ld_model *m, const char *method, PyObject *kw, ld_integ_options *o);
/* Create and initialize at the model's start; NULL with liedyn.Error. */
ld_integ *ld_py_integ_start(ld_py_system *S, const ld_integ_options *o, double t0);
/* After a failed library call with the GIL held: the forces' exception if any, else
 * liedyn.Error with what and the integrator's message. Returns NULL. */
PyObject *ld_py_integ_fail(ld_py_system *S, ld_integ *it, int rc, const char *what);

/* ---------------------------------------------------------------- control.c */
typedef struct ld_py_ctrl ld_py_ctrl;
void ld_py_ctrl_free(ld_py_ctrl *c);
/* The controller's exception (new reference, cleared), or NULL. */
PyObject *ld_py_ctrl_take_error(ld_py_ctrl *c);
PyObject *ld_py_integ_set_controller(ld_py_integ *I, PyObject *args);
PyObject *ld_py_system_set_control(ld_py_system *S, PyObject *args);
PyObject *ld_py_system_control(ld_py_system *S, PyObject *args);
PyObject *ld_py_system_actuator_state(ld_py_system *S, PyObject *args, PyObject *kw);
/* ---------------------------------------------------------------- run.c, attitude.c */
PyObject *ld_py_run(PyObject *self, PyObject *args, PyObject *kw);
extern const char ld_py_run_doc[];
PyObject *ld_py_time_steps(PyObject *self, PyObject *args);
extern const char ld_py_time_steps_doc[];
int ld_py_attitude_add(PyObject *module);

/* ---------------------------------------------------------------- linear.c */
int ld_py_linear_add(PyObject *module);

/* ---------------------------------------------------------------- edit.c, import.c */
/* Editing a model in place (validated), importing URDF / MJCF: module functions. */
int ld_py_edit_add(PyObject *module);
int ld_py_import_add(PyObject *module);

#endif

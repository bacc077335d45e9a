/* Editing a loaded model in place (liedyn.Model's bodies[...].mass = ..., elements[...].k = ...,
 * gravity = ...): each edit writes the new value into the ld_model, checks the whole model with
 * ld_model_validate (the checks the YAML reader runs, so the reasons are the reader's), and
 * restores the old value and raises ValueError("KEY: REASON") when the check fails. A model
 * with live Systems compiled from it cannot be edited (they read it). */
#include "ext.h"

#include <math.h>
#include <string.h>

/* 0 when M may be edited, else -1 with RuntimeError. */
static int editable(const ld_py_model *M) {
    if (M->compiled == 0) return 0;
    PyErr_SetString(PyExc_RuntimeError,
                    "the model has live Systems or Integrators compiled from it: edit it before "
                    "compiling (or drop them, or edit a copy: Model.copy())");
    return -1;
}

/* Validate M; on failure copy n bytes of saved back to dst and raise ValueError "KEY: REASON"
 * (the reason as the YAML reader gives it) with attribute item = KEY. 0 or -1. */
static int commit(ld_py_model *M, void *dst, const void *saved, size_t n) {
    ld_model_error e;
    memset(&e, 0, sizeof e);
    if (ld_model_validate(&M->m, &e) == LD_OK) return 0;
    if (M->m.nbodies == 0 && strcmp(e.key, "bodies") == 0)
        return 0; /* an empty model (Model()) being built: its bodies come later */
    memcpy(dst, saved, n);
    char prefix[sizeof e.file + sizeof e.key + 16];
    int w = snprintf(prefix, sizeof prefix, "%s:%d: %s: ", e.file, e.line, e.key);
    const char *reason = e.msg;
    if (w > 0 && strncmp(e.msg, prefix, (size_t)w) == 0) reason = e.msg + w;
    ld_py_errorf(PyExc_ValueError, "%s: %s", e.key, reason);
    PyObject *k = PyUnicode_FromString(e.key);
    ld_py_attach("item", k);
    Py_XDECREF(k);
    return -1;
}

/* n doubles from obj (a number when n == 1, else n numbers in any shape). 0 or -1. */
static int numbers(PyObject *obj, const char *what, int n, double *out) {
    if (n == 1) return ld_py_double(obj, what, 1, out);
    npy_intp any = -1;
    PyArrayObject *a = ld_py_array(obj, what, 1, &any, 1);
    if (!a) return -1;
    npy_intp size = PyArray_SIZE(a);
    int rc = 0;
    if (size != n) {
        ld_py_errorf(PyExc_ValueError, "%s: expected %d numbers, found %zd", what, n,
                     (Py_ssize_t)size);
        rc = -1;
    } else
        memcpy(out, PyArray_DATA(a), (size_t)n * sizeof(double));
    Py_DECREF(a);
    return rc;
}

/* A 3x3 inertia as the YAML key takes it: 3 numbers (principal moments), 6 (Jxx Jyy Jzz Jxy Jyz
 * Jxz) or 9 (row-major). */
static int inertia(PyObject *obj, const char *what, double I[9]) {
    npy_intp any = -1;
    PyArrayObject *a = ld_py_array(obj, what, 1, &any, 1);
    if (!a) return -1;
    npy_intp n = PyArray_SIZE(a);
    const double *d = PyArray_DATA(a);
    int rc = 0;
    if (n > 9 || ld_inertia_from_numbers(d, (int)n, I) != LD_OK) {
        ld_py_errorf(PyExc_ValueError,
                     "%s: expected 3 principal moments, 6 numbers [Jxx, Jyy, Jzz, Jxy, Jyz, Jxz] "
                     "or a 3x3 matrix, found %zd numbers",
                     what, (Py_ssize_t)n);
        rc = -1;
    }
    Py_DECREF(a);
    return rc;
}

/* _model_set_body(model, body, field, value): field mass or inertia. */
static PyObject *set_body(PyObject *self, PyObject *args) {
    (void)self;
    ld_py_model *M;
    PyObject *bo, *value;
    const char *field;
    if (!PyArg_ParseTuple(args, "O!OsO:_model_set_body", &ld_py_model_type, &M, &bo, &field,
                          &value))
        return NULL;
    int b = ld_py_body_index(M, bo, 0);
    if (b == -2 || editable(M) < 0) return NULL;
    ld_body *B = &M->m.bodies[b];
    if (strchr(B->name, '[')) {
        ld_py_errorf(PyExc_ValueError,
                     "body '%s' is a node of a rod or a beam: its mass and inertia follow from "
                     "the rod's or beam's parameters",
                     B->name);
        return NULL;
    }
    char what[LD_NAME_MAX + 32];
    snprintf(what, sizeof what, "bodies[%d].%s", b, field);
    if (strcmp(field, "mass") == 0) {
        double old = B->mass;
        if (ld_py_double(value, what, 1, &B->mass) < 0) return NULL;
        if (commit(M, &B->mass, &old, sizeof old) < 0) return NULL;
    } else if (strcmp(field, "inertia") == 0) {
        double old[9], I[9];
        memcpy(old, B->inertia, sizeof old);
        if (inertia(value, what, I) < 0) return NULL;
        memcpy(B->inertia, I, sizeof I);
        if (commit(M, B->inertia, old, sizeof old) < 0) return NULL;
    } else {
        ld_py_errorf(PyExc_AttributeError,
                     "a body's '%s' cannot be edited (editable: mass, inertia; the placement "
                     "and velocities are fixed by the joints at assembly)",
                     field);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The element parameters that can be edited: type, YAML key, offset in par, count. */
typedef struct par_field {
    const char *type, *key;
    int at, n;
} par_field;

static const par_field fields[] = {
    {"spring-damper", "k", 6, 1},
    {"spring-damper", "c", 7, 1},
    {"spring-damper", "l0", 8, 1},
    {"spring-damper", "f0", 9, 1},
    {"rotational-spring-damper", "k", 0, 1},
    {"rotational-spring-damper", "c", 1, 1},
    {"bushing", "stiffness", 7, 36},
    {"bushing", "damping", 43, 36},
};

/* A 6x6 matrix from 6 numbers (its diagonal) or 36. */
static int matrix6(PyObject *obj, const char *what, double out[36]) {
    npy_intp any = -1;
    PyArrayObject *a = ld_py_array(obj, what, 1, &any, 1);
    if (!a) return -1;
    npy_intp n = PyArray_SIZE(a);
    const double *d = PyArray_DATA(a);
    int rc = 0;
    memset(out, 0, 36 * sizeof(double));
    if (n == 6)
        for (int i = 0; i < 6; ++i) out[7 * i] = d[i];
    else if (n == 36)
        memcpy(out, d, 36 * sizeof(double));
    else {
        ld_py_errorf(PyExc_ValueError,
                     "%s: expected 6 numbers (the diagonal) or a 6x6 matrix, "
                     "found %zd numbers",
                     what, (Py_ssize_t)n);
        rc = -1;
    }
    Py_DECREF(a);
    return rc;
}

/* _model_set_element(model, index, key, value): a parameter of element index by its YAML key. */
static PyObject *set_element(PyObject *self, PyObject *args) {
    (void)self;
    ld_py_model *M;
    int i;
    const char *key;
    PyObject *value;
    if (!PyArg_ParseTuple(args, "O!isO:_model_set_element", &ld_py_model_type, &M, &i, &key,
                          &value))
        return NULL;
    if (i < 0 || i >= M->m.nelements) {
        ld_py_errorf(PyExc_IndexError, "element index %d out of range", i);
        return NULL;
    }
    if (editable(M) < 0) return NULL;
    ld_element *el = &M->m.elements[i];
    const char *type = ld_element_type_name(el->type);
    const par_field *f = NULL;
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; ++k)
        if (strcmp(fields[k].type, type) == 0 && strcmp(fields[k].key, key) == 0) f = &fields[k];
    if (!f) {
        char list[128] = "";
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; ++k)
            if (strcmp(fields[k].type, type) == 0) {
                strncat(list, list[0] ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, fields[k].key, sizeof list - strlen(list) - 1);
            }
        ld_py_errorf(PyExc_AttributeError, "the '%s' of a %s element cannot be edited (%s%s)", key,
                     type, list[0] ? "editable: " : "none of its parameters is editable", list);
        return NULL;
    }
    char what[LD_NAME_MAX + 32];
    snprintf(what, sizeof what, "elements[%d].%s", i, key);
    if (!el->par || el->npar < f->at + f->n) {
        ld_py_errorf(PyExc_ValueError, "%s: the element has %d parameters", what, el->npar);
        return NULL;
    }
    if (strcmp(type, "spring-damper") == 0 && strcmp(key, "k") == 0 && el->npar > 10) {
        ld_py_errorf(PyExc_ValueError, "%s: the spring's curve replaces k (l - l0)", what);
        return NULL;
    }
    double old[36], v[36];
    int rc = f->n == 36 ? matrix6(value, what, v) : numbers(value, what, f->n, v);
    if (rc < 0) return NULL;
    memcpy(old, el->par + f->at, (size_t)f->n * sizeof(double));
    memcpy(el->par + f->at, v, (size_t)f->n * sizeof(double));
    if (commit(M, el->par + f->at, old, (size_t)f->n * sizeof(double)) < 0) return NULL;
    Py_RETURN_NONE;
}

/* _model_set_gravity(model, g). */
static PyObject *set_gravity(PyObject *self, PyObject *args) {
    (void)self;
    ld_py_model *M;
    PyObject *value;
    if (!PyArg_ParseTuple(args, "O!O:_model_set_gravity", &ld_py_model_type, &M, &value))
        return NULL;
    double g[3], old[3];
    if (editable(M) < 0 || numbers(value, "gravity", 3, g) < 0) return NULL;
    memcpy(old, M->m.gravity, sizeof old);
    memcpy(M->m.gravity, g, sizeof g);
    if (commit(M, M->m.gravity, old, sizeof old) < 0) return NULL;
    Py_RETURN_NONE;
}

/* _model_add_item(model, list, text): one body, joint or element appended, read from its
 * text as the model reader reads an item of that list; ValueError("KEY: REASON") with item =
 * KEY and the model unchanged when it is refused. */
static PyObject *add_item(PyObject *self, PyObject *args) {
    (void)self;
    ld_py_model *M;
    const char *list, *text;
    Py_ssize_t len;
    if (!PyArg_ParseTuple(args, "O!ss#:_model_add_item", &ld_py_model_type, &M, &list, &text, &len))
        return NULL;
    if (editable(M) < 0) return NULL;
    ld_model_error e;
    memset(&e, 0, sizeof e);
    int rc = ld_model_add_item(&M->m, list, text, (size_t)len, M->m.name, &e);
    if (rc == LD_OK) Py_RETURN_NONE;
    if (rc == LD_ENOMEM) return ld_py_raise(rc, "%s", e.msg);
    char prefix[sizeof e.file + sizeof e.key + 16];
    int w = snprintf(prefix, sizeof prefix, "%s:%d: %s: ", e.file, e.line, e.key);
    const char *reason = e.msg;
    if (w > 0 && strncmp(e.msg, prefix, (size_t)w) == 0) reason = e.msg + w;
    ld_py_errorf(PyExc_ValueError, "%s: %s", e.key, reason);
    PyObject *k = PyUnicode_FromString(e.key);
    ld_py_attach("item", k);
    Py_XDECREF(k);
    return NULL;
}

/* _model_assemble(model): ld_model_assemble; ValueError with its reason. */
static PyObject *assemble(PyObject *self, PyObject *args) {
    (void)self;
    ld_py_model *M;
    if (!PyArg_ParseTuple(args, "O!:_model_assemble", &ld_py_model_type, &M)) return NULL;
    if (editable(M) < 0) return NULL;
    char msg[512] = "";
    int item = -1, is_joint = 0;
    int rc = ld_model_assemble(&M->m, msg, sizeof msg, &item, &is_joint);
    if (rc == LD_OK) Py_RETURN_NONE;
    if (rc != LD_EINVAL) return ld_py_raise(rc, "assembly: %s", ld_strerror(rc));
    char key[48] = "joints";
    if (item >= 0) snprintf(key, sizeof key, "%s[%d]", is_joint ? "joints" : "bodies", item);
    ld_py_errorf(PyExc_ValueError, "%s: %s", key, msg);
    PyObject *k = PyUnicode_FromString(key);
    ld_py_attach("item", k);
    Py_XDECREF(k);
    return NULL;
}

/* _model_element_params(model, index) -> dict of the editable parameters by YAML key. */
static PyObject *element_params(PyObject *self, PyObject *args) {
    (void)self;
    ld_py_model *M;
    int i;
    if (!PyArg_ParseTuple(args, "O!i:_model_element_params", &ld_py_model_type, &M, &i))
        return NULL;
    if (i < 0 || i >= M->m.nelements) {
        ld_py_errorf(PyExc_IndexError, "element index %d out of range", i);
        return NULL;
    }
    const ld_element *el = &M->m.elements[i];
    const char *type = ld_element_type_name(el->type);
    PyObject *d = PyDict_New();
    for (size_t k = 0; d && k < sizeof fields / sizeof fields[0]; ++k) {
        const par_field *f = &fields[k];
        if (strcmp(f->type, type) != 0 || !el->par || el->npar < f->at + f->n) continue;
        PyObject *v =
            f->n == 1 ? PyFloat_FromDouble(el->par[f->at]) : ld_py_vec(el->par + f->at, f->n);
        if (v && f->n == 36) {
            npy_intp sh[2] = {6, 6};
            PyArray_Dims dims = {sh, 2};
            PyObject *r = PyArray_Newshape((PyArrayObject *)v, &dims, NPY_CORDER);
            Py_SETREF(v, r);
        }
        if (!v || PyDict_SetItemString(d, f->key, v) < 0) Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

static PyMethodDef edit_methods[] = {
    {"_model_add_item", add_item, METH_VARARGS,
     "_model_add_item(model, list, text): append a body, joint or element, validated."},
    {"_model_assemble", assemble, METH_VARARGS,
     "_model_assemble(model): assemble the model (frame-form joints, unplaced bodies)."},
    {"_model_set_body", set_body, METH_VARARGS,
     "_model_set_body(model, body, field, value): set a body's mass or inertia, validated."},
    {"_model_set_element", set_element, METH_VARARGS,
     "_model_set_element(model, index, key, value): set an element's parameter, validated."},
    {"_model_set_gravity", set_gravity, METH_VARARGS,
     "_model_set_gravity(model, g): set the gravity vector."},
    {"_model_element_params", element_params, METH_VARARGS,
     "_model_element_params(model, index) -> dict of the editable parameters."},
    {NULL, NULL, 0, NULL}};

int ld_py_edit_add(PyObject *module) {
    return PyModule_AddFunctions(module, edit_methods);
}

/* liedyn.Model (the C part): a model read from a file or from YAML text, its bodies, joints
 * and elements as plain records, user forces added to it, and compile(). */
#include "ext.h"

#include <math.h>
#include <string.h>

static PyObject *model_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"path", "text", "name", NULL};
    const char *path = NULL, *name = NULL, *text = NULL;
    Py_ssize_t len = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zz#z:Model", kwlist, &path, &text, &len, &name))
        return NULL;
    if (path && text) {
        PyErr_SetString(PyExc_TypeError, "Model: give one of path= and text=, not both");
        return NULL;
    }
    ld_py_model *M = (ld_py_model *)type->tp_alloc(type, 0);
    if (!M) return NULL;
    ld_model_init(&M->m);
    M->refs = PyList_New(0);
    if (!M->refs) {
        Py_DECREF(M);
        return NULL;
    }
    ld_model_error err;
    memset(&err, 0, sizeof err);
    int rc;
    if (!path && !text) { /* an empty model, built by add_item */
        snprintf(M->m.name, sizeof M->m.name, "%s", name ? name : "model");
        return (PyObject *)M;
    }
    Py_BEGIN_ALLOW_THREADS if (path) rc = ld_model_load(path, &M->m, &err);
    else rc = ld_model_parse(text, (size_t)len, name ? name : "<string>", &M->m, &err);
    Py_END_ALLOW_THREADS if (rc != LD_OK) {
        ld_model_init(&M->m);
        Py_DECREF(M);
        if (err.msg[0]) {
            ld_py_raise(rc, "%s", err.msg);
            /* the parts of the message as attributes */
            PyObject *f = PyUnicode_FromString(err.file), *l = PyLong_FromLong(err.line),
                     *k = PyUnicode_FromString(err.key);
            ld_py_attach("file", f);
            ld_py_attach("line", l);
            ld_py_attach("item", k);
            Py_XDECREF(f);
            Py_XDECREF(l);
            Py_XDECREF(k);
            return NULL;
        }
        return ld_py_raise(rc, "cannot read model '%s': %s",
                           path ? path : (name ? name : "<string>"), ld_strerror(rc));
    }
    return (PyObject *)M;
}

static void model_dealloc(ld_py_model *M) {
    ld_model_free(&M->m);
    for (int i = 0; i < M->nforces; ++i) ld_py_force_free(M->forces[i]);
    PyMem_Free(M->forces);
    Py_XDECREF(M->refs);
    Py_TYPE(M)->tp_free((PyObject *)M);
}

int ld_py_body_index(const ld_py_model *M, PyObject *obj, int allow_ground) {
    if (obj == Py_None ||
        (PyUnicode_Check(obj) && PyUnicode_CompareWithASCIIString(obj, "ground") == 0)) {
        if (allow_ground) return LD_GROUND;
        PyErr_SetString(PyExc_ValueError, "the ground is not allowed here: give a body");
        return -2;
    }
    if (PyLong_Check(obj)) {
        long i = PyLong_AsLong(obj);
        if (i >= 0 && i < M->m.nbodies) return (int)i;
        if (!PyErr_Occurred())
            ld_py_errorf(PyExc_IndexError, "body index %ld out of range (the model has %d bodies)",
                         i, M->m.nbodies);
        return -2;
    }
    const char *s = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    if (!s) {
        ld_py_errorf(PyExc_TypeError, "a body is a name or an index, not %.80s",
                     Py_TYPE(obj)->tp_name);
        return -2;
    }
    for (int i = 0; i < M->m.nbodies; ++i)
        if (strcmp(M->m.bodies[i].name, s) == 0) return i;
    ld_py_errorf(PyExc_KeyError, "no body named '%s' in model '%s'", s, M->m.name);
    return -2;
}

/* FNV-1a over bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211u;
    return h;
}

uint64_t ld_py_model_tag(const ld_model *m, int formulation) {
    uint64_t h = 14695981039346656037u;
    h = fnv(h, &formulation, sizeof formulation);
    h = fnv(h, m->gravity, sizeof m->gravity);
    for (int b = 0; b < m->nbodies; ++b) {
        const ld_body *B = &m->bodies[b];
        h = fnv(h, B->name, strlen(B->name));
        h = fnv(h, &B->mass, sizeof B->mass);
        h = fnv(h, B->inertia, sizeof B->inertia);
        h = fnv(h, B->x, sizeof B->x);
        h = fnv(h, B->q, sizeof B->q);
    }
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *J = &m->joints[j];
        h = fnv(h, &J->kind, sizeof J->kind);
        h = fnv(h, &J->body1, sizeof J->body1);
        h = fnv(h, &J->body2, sizeof J->body2);
        h = fnv(h, J->at, sizeof J->at);
    }
    h = fnv(h, &m->nloads, sizeof m->nloads);
    h = fnv(h, &m->nrods, sizeof m->nrods);
    h = fnv(h, &m->nelements, sizeof m->nelements);
    h = fnv(h, &m->nbeams, sizeof m->nbeams);
    return h;
}

/* ---------------------------------------------------------------- records */

static int set_item(PyObject *d, const char *key, PyObject *v) {
    if (!v) return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static PyObject *mat3(const double *x) {
    npy_intp sh[2] = {3, 3};
    PyArrayObject *a = ld_py_new(2, sh);
    if (a) memcpy(PyArray_DATA(a), x, 9 * sizeof(double));
    return (PyObject *)a;
}

static PyObject *body_name(const ld_model *m, int b) {
    if (b == LD_GROUND) return PyUnicode_FromString("ground");
    return PyUnicode_FromString(m->bodies[b].name);
}

static PyObject *model_bodies(ld_py_model *M, PyObject *noargs) {
    (void)noargs;
    PyObject *out = PyList_New(0);
    for (int i = 0; out && i < M->m.nbodies; ++i) {
        const ld_body *b = &M->m.bodies[i];
        PyObject *d = PyDict_New();
        int bad = !d || set_item(d, "name", PyUnicode_FromString(b->name)) ||
                  set_item(d, "index", PyLong_FromLong(i)) ||
                  set_item(d, "mass", PyFloat_FromDouble(b->mass)) ||
                  set_item(d, "inertia", mat3(b->inertia)) ||
                  set_item(d, "x", ld_py_vec(b->x, 3)) || set_item(d, "q", ld_py_vec(b->q, 4)) ||
                  set_item(d, "omega", ld_py_vec(b->omega, 3)) ||
                  set_item(d, "v", ld_py_vec(b->v, 3)) || PyList_Append(out, d) < 0;
        Py_XDECREF(d);
        if (bad) Py_CLEAR(out);
    }
    return out;
}

static PyObject *model_joints(ld_py_model *M, PyObject *noargs) {
    (void)noargs;
    PyObject *out = PyList_New(0);
    for (int i = 0; out && i < M->m.njoints; ++i) {
        const ld_joint *j = &M->m.joints[i];
        PyObject *d = PyDict_New();
        int bad = !d || set_item(d, "name", PyUnicode_FromString(j->name)) ||
                  set_item(d, "index", PyLong_FromLong(i)) ||
                  set_item(d, "type", PyUnicode_FromString(ld_joint_kind_name(j->kind))) ||
                  set_item(d, "body1", body_name(&M->m, j->body1)) ||
                  set_item(d, "body2", body_name(&M->m, j->body2)) ||
                  set_item(d, "at", ld_py_vec(j->at, 3)) ||
                  set_item(d, "axis", ld_py_vec(j->axis, 3)) ||
                  set_item(d, "rows", PyLong_FromLong(ld_joint_kind_rows(j->kind))) ||
                  PyList_Append(out, d) < 0;
        Py_XDECREF(d);
        if (bad) Py_CLEAR(out);
    }
    return out;
}

static PyObject *model_elements(ld_py_model *M, PyObject *noargs) {
    (void)noargs;
    PyObject *out = PyList_New(0);
    for (int i = 0; out && i < M->m.nelements; ++i) {
        const ld_element *e = &M->m.elements[i];
        PyObject *d = PyDict_New();
        int bad = !d || set_item(d, "name", PyUnicode_FromString(e->name)) ||
                  set_item(d, "index", PyLong_FromLong(i)) ||
                  set_item(d, "type", PyUnicode_FromString(ld_element_type_name(e->type))) ||
                  set_item(d, "body1", body_name(&M->m, e->body1)) ||
                  set_item(d, "body2", body_name(&M->m, e->body2)) ||
                  set_item(d, "par", ld_py_vec(e->par, e->npar > 0 ? e->npar : 0)) ||
                  PyList_Append(out, d) < 0;
        Py_XDECREF(d);
        if (bad) Py_CLEAR(out);
    }
    return out;
}

/* The integrator block as a dict. */
static PyObject *model_run_spec(ld_py_model *M, void *closure) {
    (void)closure;
    const ld_run_spec *r = &M->m.run;
    PyObject *d = PyDict_New();
    int bad =
        !d || set_item(d, "integrator", PyUnicode_FromString(r->integrator)) ||
        set_item(d, "formulation", PyUnicode_FromString(ld_formulation_name(r->formulation))) ||
        set_item(d, "dt", PyFloat_FromDouble(r->dt)) ||
        set_item(d, "t_start", PyFloat_FromDouble(r->t_start)) ||
        set_item(d, "t_end", PyFloat_FromDouble(r->t_end)) ||
        set_item(d, "newton_atol", PyFloat_FromDouble(r->newton_atol)) ||
        set_item(d, "newton_rtol", PyFloat_FromDouble(r->newton_rtol)) ||
        set_item(d, "max_iter", PyLong_FromLong(r->max_iter)) ||
        set_item(d, "output_every", PyLong_FromLong(r->output_every)) ||
        set_item(d, "adaptive", PyBool_FromLong(r->adaptive));
    for (int i = 0; !bad && i < r->nparams; ++i)
        bad = set_item(d, r->params[i].key, PyFloat_FromDouble(r->params[i].value));
    if (bad) Py_CLEAR(d);
    return d;
}

static PyObject *model_name(ld_py_model *M, void *c) {
    (void)c;
    return PyUnicode_FromString(M->m.name);
}
static PyObject *model_source(ld_py_model *M, void *c) {
    (void)c;
    return PyUnicode_FromString(M->m.source);
}
static PyObject *model_gravity(ld_py_model *M, void *c) {
    (void)c;
    return ld_py_vec(M->m.gravity, 3);
}

static PyObject *model_compile(ld_py_model *M, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"formulation", NULL};
    const char *fname = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|z:compile", kwlist, &fname)) return NULL;
    int f = (int)M->m.run.formulation;
    if (fname && (f = ld_formulation_find(fname)) < 0) {
        ld_py_errorf(PyExc_ValueError,
                     "unknown formulation '%s' (so3xr3, se3, s3xr3, s3sdr3, so3xr3-spatial, "
                     "s3xr3-spatial, euler, tree)",
                     fname);
        return NULL;
    }
    return (PyObject *)ld_py_system_compile(M, f);
}

/* Append a user force (callable or C function) between body1 and body2. */
static int add_force(ld_py_model *M, const char *name, PyObject *b1, PyObject *b2,
                     ld_user_force_fn fn, ld_user_force_tangent_fn tg, void *user) {
    if (M->compiled) {
        PyErr_SetString(PyExc_RuntimeError,
                        "forces must be added before the model is compiled (make a new Model)");
        return -1;
    }
    int i1 = ld_py_body_index(M, b1, 1), i2 = i1 == -2 ? -2 : ld_py_body_index(M, b2, 1);
    if (i1 == -2 || i2 == -2) return -1;
    if (i2 == LD_GROUND) { /* the ground goes first */
        i2 = i1;
        i1 = LD_GROUND;
    }
    int rc = ld_model_add_user_force(&M->m, name ? name : "", i1, i2, fn, tg, user);
    if (rc != LD_OK) {
        ld_py_raise(rc, "cannot add the force '%s': %s (bodies %d and %d; a name below %d bytes)",
                    name ? name : "", ld_strerror(rc), i1, i2, LD_NAME_MAX);
        return -1;
    }
    return 0;
}

/* The bodies of a vectorized force: body1, body2 as sequences of one length (one of them may
 * be a single body or None: the same for every instance). n and the indices (PyMem, owned by
 * the caller), ground first; −1 with an exception. */
static int body_lists(ld_py_model *M, PyObject *b1, PyObject *b2, int vec, int *n, int **i1,
                      int **i2) {
    PyObject *in[2] = {b1, b2};
    Py_ssize_t len = vec ? -1 : 1;
    for (int k = 0; vec && k < 2; ++k)
        if (PyList_Check(in[k]) || PyTuple_Check(in[k])) {
            Py_ssize_t l = PySequence_Size(in[k]);
            if (len >= 0 && l != len) {
                ld_py_errorf(PyExc_ValueError, "add_force: body1 has %ld bodies, body2 %ld",
                             (long)len, (long)l);
                return -1;
            }
            len = l;
        }
    if (len < 1 || len > 1000000) {
        PyErr_SetString(PyExc_ValueError, "add_force: vectorized=True needs a list of bodies "
                                          "(body1 or body2, at least one)");
        return -1;
    }
    *n = (int)len;
    *i1 = PyMem_Malloc(2 * (size_t)len * sizeof(int));
    if (!*i1) return ld_py_nomem(2 * (size_t)len * sizeof(int), "a force's bodies"), -1;
    *i2 = *i1 + len;
    for (Py_ssize_t i = 0; i < len; ++i) {
        int idx[2];
        for (int k = 0; k < 2; ++k) {
            int seq = vec && (PyList_Check(in[k]) || PyTuple_Check(in[k]));
            PyObject *o = seq ? PySequence_GetItem(in[k], i) : (Py_INCREF(in[k]), in[k]);
            idx[k] = o ? ld_py_body_index(M, o, 1) : -2;
            Py_XDECREF(o);
            if (idx[k] == -2) return -1;
        }
        if (idx[1] == LD_GROUND) idx[1] = idx[0], idx[0] = LD_GROUND; /* the ground goes first */
        (*i1)[i] = idx[0];
        (*i2)[i] = idx[1];
    }
    return 0;
}

/* depends: None, 'body1', 'body2' or a sequence of them → LD_DEPENDS_* bits (0: both). */
static int depends_mask(PyObject *o, unsigned *mask) {
    *mask = 0;
    if (o == Py_None) return 0;
    PyObject *seq = PyUnicode_Check(o) ? PyTuple_Pack(1, o) : PySequence_Tuple(o);
    if (!seq) return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq); ++i) {
        const char *s = PyUnicode_Check(PyTuple_GET_ITEM(seq, i))
                            ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(seq, i))
                            : NULL;
        if (s && strcmp(s, "body1") == 0)
            *mask |= LD_DEPENDS_BODY1;
        else if (s && strcmp(s, "body2") == 0)
            *mask |= LD_DEPENDS_BODY2;
        else {
            Py_DECREF(seq);
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError,
                            "add_force: depends must be 'body1', 'body2' or a list of them");
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* The model's initial motion of instance i's bodies (the ground at rest). */
static void initial_motions(const ld_model *m, int n, const int *i1, const int *i2,
                            ld_body_motion *b) {
    memset(b, 0, 2 * (size_t)n * sizeof *b);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 2; ++k) {
            int idx = k ? i2[i] : i1[i];
            ld_body_motion *bm = &b[2 * i + k];
            if (idx < 0) {
                bm->R[0] = bm->R[4] = bm->R[8] = 1.0;
                continue;
            }
            const ld_body *body = &m->bodies[idx];
            memcpy(bm->x, body->x, sizeof bm->x);
            ld_quat_to_mat(bm->R, body->q);
            memcpy(bm->omega, body->omega, sizeof bm->omega);
            memcpy(bm->xdot, body->v, sizeof bm->xdot);
        }
}

/* Check f's tangent at the model's initial state: 0 or −1 with the exception. */
static int check_at_start(ld_py_model *M, ld_py_force *f, const char *name, int n, const int *i1,
                          const int *i2) {
    size_t bytes = (size_t)n * (2 * sizeof(ld_body_motion) + sizeof(int));
    ld_body_motion *b = PyMem_Malloc(bytes);
    if (!b) return ld_py_nomem(bytes, "the check of a user force's tangent"), -1;
    int *ground1 = (int *)(b + 2 * n);
    for (int i = 0; i < n; ++i) ground1[i] = i1[i] < 0;
    initial_motions(&M->m, n, i1, i2, b);
    int rc = ld_py_force_check(f, name, M->m.run.t_start, b, ground1);
    PyMem_Free(b);
    return rc;
}

static PyObject *model_add_force(ld_py_model *M, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"fn",         "body1",   "body2",         "name", "tangent",
                             "vectorized", "depends", "check_tangent", NULL};
    PyObject *fn, *b1, *b2 = Py_None, *tg = Py_None, *dep = Py_None;
    const char *name = NULL;
    int vec = 0, check = 1, n = 0, *i1 = NULL, *i2 = NULL;
    unsigned mask;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OzOpOp:add_force", kwlist, &fn, &b1, &b2, &name,
                                     &tg, &vec, &dep, &check))
        return NULL;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "add_force: fn must be callable");
        return NULL;
    }
    if (tg != Py_None && tg != Py_True && !PyCallable_Check(tg)) {
        PyErr_SetString(PyExc_TypeError, "add_force: tangent must be None, True (fn returns "
                                         "(w, (Wq, Wv))) or a callable tangent(t, b1, b2)");
        return NULL;
    }
    if (M->compiled) {
        PyErr_SetString(PyExc_RuntimeError,
                        "forces must be added before the model is compiled (make a new Model)");
        return NULL;
    }
    if (depends_mask(dep, &mask) < 0 || body_lists(M, b1, b2, vec, &n, &i1, &i2) < 0) {
        PyMem_Free(i1);
        return NULL;
    }
    ld_py_force *f = ld_py_force_new(fn, tg == Py_None ? NULL : tg, n, vec);
    size_t bytes = (size_t)(M->nforces + 1) * sizeof(ld_py_force *);
    ld_py_force **grown = f ? PyMem_Realloc(M->forces, bytes) : NULL;
    if (!grown) {
        if (f) ld_py_nomem(bytes, "the model's user forces");
        ld_py_force_free(f);
        PyMem_Free(i1);
        return NULL;
    }
    M->forces = grown;
    int ne = M->m.nelements, rc = ld_py_force_register(&M->m, name, i1, i2, f);
    if (rc != LD_OK)
        ld_py_raise(rc, "cannot add the force '%s': %s (bodies %d and %d; a name below %d bytes)",
                    name ? name : "", ld_strerror(rc), i1[0], i2[0], LD_NAME_MAX - (vec ? 8 : 0));
    for (int i = ne; rc == LD_OK && i < M->m.nelements; ++i) M->m.elements[i].depends = mask;
    if (rc == LD_OK && tg != Py_None && check &&
        check_at_start(M, f, name ? name : "", n, i1, i2) < 0) {
        M->m.nelements = ne; /* the model as it was */
        rc = LD_EINVAL;
    }
    PyMem_Free(i1);
    if (rc != LD_OK) {
        ld_py_force_free(f);
        return NULL;
    }
    M->forces[M->nforces++] = f;
    Py_RETURN_NONE;
}

/* An address from an int or a ctypes object (its value through ctypes.cast is the caller's
 * business: accept int and objects with a 'value' of int type, e.g. c_void_p). */
static int address(PyObject *o, const char *what, void **out) {
    *out = NULL;
    if (o == Py_None) return 0;
    PyObject *v = PyLong_Check(o) ? (Py_INCREF(o), o) : PyObject_GetAttrString(o, "value");
    if (!v || !PyLong_Check(v)) {
        Py_XDECREF(v);
        PyErr_Clear();
        ld_py_errorf(PyExc_TypeError, "add_c_force: %s must be an address (int or c_void_p)", what);
        return -1;
    }
    *out = PyLong_AsVoidPtr(v);
    Py_DECREF(v);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *model_add_c_force(ld_py_model *M, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"fn", "body1", "body2", "user", "tangent", "name", "keep", NULL};
    PyObject *fo, *b1, *b2 = Py_None, *uo = Py_None, *to = Py_None, *keep = Py_None;
    const char *name = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOzO:add_c_force", kwlist, &fo, &b1, &b2, &uo,
                                     &to, &name, &keep))
        return NULL;
    void *fn = NULL, *user = NULL, *tg = NULL;
    if (address(fo, "fn", &fn) < 0 || address(uo, "user", &user) < 0 ||
        address(to, "tangent", &tg) < 0)
        return NULL;
    if (!fn) {
        PyErr_SetString(PyExc_ValueError, "add_c_force: fn is a NULL address");
        return NULL;
    }
    ld_user_force_fn f;
    ld_user_force_tangent_fn t;
    memcpy(&f, &fn, sizeof f); /* object pointer to function pointer (POSIX) */
    memcpy(&t, &tg, sizeof t);
    if (add_force(M, name, b1, b2, f, tg ? t : NULL, user) < 0) return NULL;
    if (keep != Py_None && PyList_Append(M->refs, keep) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef model_methods[] = {
    {"_bodies", (PyCFunction)model_bodies, METH_NOARGS,
     "_bodies() -> list of dict: name, index, mass, inertia (3x3), x, q, omega, v (initial)."},
    {"_joints", (PyCFunction)model_joints, METH_NOARGS,
     "_joints() -> list of dict: name, index, type, body1, body2, at, axis, rows."},
    {"_elements", (PyCFunction)model_elements, METH_NOARGS,
     "_elements() -> list of dict: name, index, type, body1, body2, par."},
    {"compile", (PyCFunction)(void (*)(void))model_compile, METH_VARARGS | METH_KEYWORDS,
     "compile(formulation=None) -> System\n\n"
     "Compile the model into a constrained second-order system on a product Lie group in the "
     "given formulation (so3xr3, se3, s3xr3, s3sdr3, so3xr3-spatial, s3xr3-spatial, euler, tree; "
     "default: the model's integrator "
     "block). Raises liedyn.Error with the reason (e.g. which joint is not closed)."},
    {"add_force", (PyCFunction)(void (*)(void))model_add_force, METH_VARARGS | METH_KEYWORDS,
     "add_force(fn, body1, body2=None, name=None, tangent=None, vectorized=False, "
     "depends=None, check_tangent=True)\n\n"
     "Add a user force computed by the Python callable fn(t, b1, b2), where b1, b2 are dicts "
     "with arrays x (centre of mass, spatial), R (3x3, body -> spatial), omega (body angular "
     "velocity) and xdot (spatial); the ground is x = 0, R = I at rest. It returns 12 numbers "
     "(or a 2x6 array): force and torque on body1 (spatial, torque about its centre of mass), "
     "then on body2. A body is a name or an index; None (or 'ground') is the ground, which "
     "always comes first (add_force(fn, 'top') calls fn(t, ground, top)).\n"
     "tangent: None (central differences of fn on the group), a callable tangent(t, b1, b2) "
     "returning (Wq, Wv), or True: fn returns (w, (Wq, Wv)). Wq = dw/d(dth1, dx1, dth2, dx2) "
     "with the bodies moved as R exp(dth), x + dx, Wv = dw/d(omega1, xdot1, omega2, xdot2), "
     "each 12x12 (row i: w[i]); checked against differences at the model's start unless "
     "check_tangent=False (ValueError naming the worst entry).\n"
     "vectorized=True: body1, body2 are lists (one may be a single body or None), fn is called "
     "once for all instances with arrays of a leading dimension n (x (n, 3), R (n, 3, 3), ...) "
     "and returns (n, 12) (tangents (n, 12, 12)); instance i's force may depend on its own "
     "bodies only. The elements are named NAME[i].\n"
     "depends: 'body1', 'body2' or both (default): the bodies whose motion the force depends "
     "on; the differences perturb only those. An exception raised by fn stops the integration "
     "and is re-raised. Add forces before compiling."},
    {"add_c_force", (PyCFunction)(void (*)(void))model_add_c_force, METH_VARARGS | METH_KEYWORDS,
     "add_c_force(fn, body1, body2=None, user=None, tangent=None, name=None, keep=None)\n\n"
     "Add a user force computed by a C function (the fast path): fn is the address (int or "
     "ctypes c_void_p) of an ld_user_force_fn, int fn(double t, const ld_body_motion b[2], "
     "double w[12], void *user), e.g. from a shared library loaded with ctypes; user is passed "
     "to it; tangent an optional ld_user_force_tangent_fn (an invalid address crashes the "
     "process, as in C). keep: any object the model keeps "
     "alive (e.g. the ctypes library). The integrator calls fn without the GIL."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef model_getset[] = {
    {"name", (getter)model_name, NULL, "The model's name.", NULL},
    {"source", (getter)model_source, NULL, "The file it was read from ('' for text).", NULL},
    {"gravity", (getter)model_gravity, NULL, "Gravity (spatial), array (3,).", NULL},
    {"run_spec", (getter)model_run_spec, NULL,
     "The integrator block: integrator, formulation, dt, t_start, t_end, ... (dict).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject ld_py_model_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "liedyn._liedyn.Model",
    .tp_basicsize = sizeof(ld_py_model),
    .tp_dealloc = (destructor)model_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Model(path=None, text=None, name=None)\n\n"
              "A multibody model read from a YAML file (path) or YAML text (text; name names it "
              "in messages). Errors raise liedyn.Error with FILE:LINE: ITEM: REASON and the "
              "attributes file, line, item.",
    .tp_methods = model_methods,
    .tp_getset = model_getset,
    .tp_new = model_new,
};

int ld_py_model_add(PyObject *module) {
    if (PyType_Ready(&ld_py_model_type) < 0) return -1;
    return PyModule_AddObjectRef(module, "Model", (PyObject *)&ld_py_model_type);
}

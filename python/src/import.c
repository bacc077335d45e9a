/* Importing URDF and MJCF files as liedyn.Model (ld_model_import_opt, docs/import.md): the
 * options of ld_import_options as keywords, the import report as a dict. */
#include "ext.h"

#include <math.h>
#include <string.h>

#include "liedyn/import.h"

/* The report as a dict: format, file, links, merged, auxiliary, warnings (list of dicts file,
 * line, element, message, severity). NULL with an exception. */
static PyObject *report_dict(const ld_import_report *rep) {
    PyObject *w = PyList_New(0);
    for (int i = 0; w && i < rep->nwarn; ++i) {
        const ld_import_warning *x = &rep->warn[i];
        PyObject *d =
            Py_BuildValue("{s:s,s:i,s:s,s:s,s:s}", "file", x->file[0] ? x->file : rep->file, "line",
                          x->line, "element", x->element, "message", x->msg, "severity",
                          x->severity == LD_IMPORT_DYNAMICS ? "dynamics" : "ignored");
        if (!d || PyList_Append(w, d) < 0) Py_CLEAR(w);
        Py_XDECREF(d);
    }
    if (!w) return NULL;
    const char *fmt = rep->format == LD_IMPORT_URDF   ? "urdf"
                      : rep->format == LD_IMPORT_MJCF ? "mjcf"
                                                      : "auto";
    return Py_BuildValue("{s:s,s:s,s:i,s:i,s:i,s:N}", "format", fmt, "file", rep->file, "links",
                         rep->links, "merged", rep->merged, "auxiliary", rep->auxiliary, "warnings",
                         w);
}

/* _import(cls, path, format="auto", limits=False, fixed_base=False, aux_mass_ratio=1e-3,
 *         chain_joints=False, contact=False) -> (model of type cls, report dict). */
static PyObject *py_import(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *kwlist[] = {"cls",          "path",       "format",
                             "limits",       "fixed_base", "aux_mass_ratio",
                             "chain_joints", "contact",    NULL};
    PyTypeObject *cls;
    const char *path, *format = "auto";
    int limits = 0, fixed_base = 0, chain = 0, contact = 0;
    ld_import_options opt;
    ld_import_options_init(&opt);
    double aux = opt.aux_mass_ratio;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!s|zppdpp:_import", kwlist, &PyType_Type, &cls,
                                     &path, &format, &limits, &fixed_base, &aux, &chain, &contact))
        return NULL;
    if (!PyType_IsSubtype(cls, &ld_py_model_type)) {
        PyErr_SetString(PyExc_TypeError, "_import: cls must be a Model type");
        return NULL;
    }
    if (!format || strcmp(format, "auto") == 0)
        opt.format = LD_IMPORT_AUTO;
    else if (strcmp(format, "urdf") == 0)
        opt.format = LD_IMPORT_URDF;
    else if (strcmp(format, "mjcf") == 0)
        opt.format = LD_IMPORT_MJCF;
    else {
        ld_py_errorf(PyExc_ValueError, "unknown import format '%s' (auto, urdf, mjcf)", format);
        return NULL;
    }
    if (!(aux > 0.0 && aux < HUGE_VAL)) {
        ld_py_errorf(PyExc_ValueError, "aux_mass_ratio must be positive and finite, found %g", aux);
        return NULL;
    }
    opt.limits = limits, opt.fixed_base = fixed_base, opt.chain_joints = chain;
    opt.contact = contact;
    opt.aux_mass_ratio = aux;
    ld_py_model *M = (ld_py_model *)cls->tp_alloc(cls, 0);
    if (!M) return NULL;
    ld_model_init(&M->m);
    if (!(M->refs = PyList_New(0))) {
        Py_DECREF(M);
        return NULL;
    }
    ld_model_error err;
    ld_import_report rep;
    memset(&err, 0, sizeof err);
    memset(&rep, 0, sizeof rep);
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = ld_model_import_opt(path, &opt, &M->m, &err, &rep);
    Py_END_ALLOW_THREADS if (rc != LD_OK) {
        ld_model_init(&M->m);
        Py_DECREF(M);
        ld_import_report_free(&rep);
        if (!err.msg[0]) return ld_py_raise(rc, "cannot import '%s': %s", path, ld_strerror(rc));
        ld_py_raise(rc, "%s", err.msg);
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
    PyObject *d = report_dict(&rep);
    ld_import_report_free(&rep);
    if (!d) {
        Py_DECREF(M);
        return NULL;
    }
    return Py_BuildValue("NN", (PyObject *)M, d);
}

/* _import_recognizes(path) -> bool: a file the importer reads (as the CLI decides). */
static PyObject *py_recognizes(PyObject *self, PyObject *args) {
    (void)self;
    const char *path;
    if (!PyArg_ParseTuple(args, "s:_import_recognizes", &path)) return NULL;
    return PyBool_FromLong(ld_import_recognizes(path));
}

static PyMethodDef import_methods[] = {
    {"_import", (PyCFunction)(void (*)(void))py_import, METH_VARARGS | METH_KEYWORDS,
     "_import(cls, path, format='auto', limits=False, fixed_base=False, aux_mass_ratio=1e-3, "
     "chain_joints=False, contact=False) -> (Model, report dict)"},
    {"_import_recognizes", py_recognizes, METH_VARARGS,
     "_import_recognizes(path) -> bool: .urdf/.xml, or a <robot>/<mujoco> root."},
    {NULL, NULL, 0, NULL}};

int ld_py_import_add(PyObject *module) {
    return PyModule_AddFunctions(module, import_methods);
}

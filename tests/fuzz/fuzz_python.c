/*
 * Fuzz target: the Python module's argument paths (docs/fuzzing.md).
 *
 * The program embeds CPython and links the extension's sources (python/src), so that the
 * sanitizers and libFuzzer's coverage see the extension and the library under it. The module
 * goes into sys.modules as liedyn._liedyn before the package (python/liedyn) is imported from
 * the source tree. Each input is handed to run(data) of tests/fuzz/fuzz_python.py, which
 * decodes the bytes into values (None, ints, huge ints, floats with NaN and infinities,
 * strings, lists, tuples, dicts, numpy arrays of odd shapes and dtypes, models, callables
 * that call back into the module) and calls the module's functions, types and methods with
 * them. A Python exception is an answer; a crash, a sanitizer report or a hang is a finding.
 *
 * CPython's allocator is switched to malloc (as PYTHONMALLOC=malloc) so that AddressSanitizer
 * sees every object. Leak detection is off: the interpreter keeps objects for the life of
 * the process (interned strings, caches, free lists) that LeakSanitizer reports as leaks, and
 * a Python object leaked by the module cannot be told from them by the allocation's stack.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

#ifndef LD_FUZZ_SOURCE_DIR
#error "LD_FUZZ_SOURCE_DIR: the source tree (CMake defines it)"
#endif

PyMODINIT_FUNC PyInit__liedyn(void);

/* The sanitizers' defaults for this program (see the comment at the top). */
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
    return "detect_leaks=0";
}

static PyObject *driver_run; /* fuzz_python.run */

static void fail(const char *what) {
    fprintf(stderr, "fuzz_python: %s\n", what);
    if (PyErr_Occurred()) PyErr_Print();
    abort();
}

/* Start the interpreter, put the extension into sys.modules, import the driver. */
static void setup(void) {
    PyPreConfig pre;
    PyPreConfig_InitPythonConfig(&pre);
    pre.allocator = PYMEM_ALLOCATOR_MALLOC;
    pre.utf8_mode = 1;
    if (PyStatus_Exception(Py_PreInitialize(&pre))) fail("cannot pre-initialize Python");
    PyConfig cfg;
    PyConfig_InitPythonConfig(&cfg);
    cfg.install_signal_handlers = 0; /* libFuzzer's */
    cfg.parse_argv = 0;
    cfg.use_environment = 0;
    cfg.user_site_directory = 0;
    cfg.write_bytecode = 0;
    cfg.use_hash_seed = 1; /* the same input runs the same way */
    cfg.hash_seed = 0;
    PyStatus st = Py_InitializeFromConfig(&cfg);
    PyConfig_Clear(&cfg);
    if (PyStatus_Exception(st)) fail("cannot initialize Python");
    PyObject *mod = PyInit__liedyn();
    PyObject *modules = PySys_GetObject("modules"), *path = PySys_GetObject("path");
    if (!mod || !modules || !path || PyDict_SetItemString(modules, "liedyn._liedyn", mod) < 0)
        fail("cannot create the module liedyn._liedyn");
    Py_DECREF(mod);
    const char *dirs[2] = {LD_FUZZ_SOURCE_DIR "/python", LD_FUZZ_SOURCE_DIR "/tests/fuzz"};
    for (int i = 0; i < 2; ++i) {
        PyObject *d = PyUnicode_FromString(dirs[i]);
        if (!d || PyList_Insert(path, 0, d) < 0) fail("cannot set sys.path");
        Py_DECREF(d);
    }
    PyObject *drv = PyImport_ImportModule("fuzz_python");
    if (!drv) fail("cannot import tests/fuzz/fuzz_python.py");
    driver_run = PyObject_GetAttrString(drv, "run");
    Py_DECREF(drv);
    if (!driver_run) fail("tests/fuzz/fuzz_python.py has no run()");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!driver_run) setup();
    PyObject *b = PyBytes_FromStringAndSize((const char *)data, (Py_ssize_t)size);
    PyObject *r = b ? PyObject_CallOneArg(driver_run, b) : NULL;
    Py_XDECREF(b);
    /* the driver answers every exception of the module itself: one escaping it is its own
     * bug, or a BaseException the module should not raise */
    if (!r) fail("an exception escaped the driver");
    Py_DECREF(r);
    return 0;
}

/* The Lie-group maps of lie.h over arrays: each entry of a table names a C function, its
 * operands' and its result's shapes; one generic function loops over the leading dimensions
 * (a binary map broadcasts an operand without leading dimensions). The results are the C
 * functions' own, bit for bit. */
#include "ext.h"

#include <math.h>

typedef void (*unary_fn)(double *, const double *);
typedef void (*binary_fn)(double *, const double *, const double *);

typedef struct lie_entry {
    const char *name;
    const char *doc;
    int nin;                /* 1 or 2 */
    int in_nd, out_nd;      /* trailing dimensions of the operands and the result */
    npy_intp in[2], out[2]; /* their shapes */
    unary_fn f1;
    binary_fn f2;
} lie_entry;

/* ld_quat_inv with a status: NaN where the quaternion has no inverse. */
static void s3_inverse(double *r, const double *q) {
    if (ld_quat_inv(r, q) != LD_OK)
        for (int i = 0; i < 4; ++i) r[i] = NAN;
}
static void s3_normalize(double *r, const double *q) {
    if (ld_quat_normalize(r, q) != LD_OK)
        for (int i = 0; i < 4; ++i) r[i] = NAN;
}

#define U(nm, doc, ind, i0, i1, ond, o0, o1, fn)                                                   \
    { nm, doc, 1, ind, ond, {i0, i1}, {o0, o1}, (unary_fn)(fn), NULL }
#define B(nm, doc, ind, i0, i1, ond, o0, o1, fn)                                                   \
    { nm, doc, 2, ind, ond, {i0, i1}, {o0, o1}, NULL, (binary_fn)(fn) }

#define VEC3 "psi: array (..., 3)"
#define V6   "v: array (..., 6), rotation first (Omega, U)"
static const lie_entry TABLE[] = {
    U("so3_exp", "so3_exp(psi) -> R (..., 3, 3)\n\nRodrigues: R = exp(hat psi); " VEC3 ".", 1, 3, 0,
      2, 3, 3, ld_so3_exp),
    U("so3_log", "so3_log(R) -> psi (..., 3)\n\nRotation vector with |psi| <= pi; R: (..., 3, 3).",
      2, 3, 3, 1, 3, 0, ld_so3_log),
    B("so3_compose", "so3_compose(A, B) -> A B (..., 3, 3)", 2, 3, 3, 2, 3, 3, ld_so3_compose),
    U("so3_inverse", "so3_inverse(R) -> R^T (..., 3, 3)", 2, 3, 3, 2, 3, 3, ld_so3_inverse),
    U("so3_tangent",
      "so3_tangent(psi) -> T (..., 3, 3)\n\nThe right Jacobian T(psi): exp(psi + d) = exp(psi) "
      "exp(T d + O(d^2)); " VEC3 ".",
      1, 3, 0, 2, 3, 3, ld_so3_tangent),
    U("so3_tangent_inv",
      "so3_tangent_inv(psi) -> T^-1 (..., 3, 3)\n\nSingular at |psi| = 2 pi k, k >= 1.", 1, 3, 0, 2,
      3, 3, ld_so3_tangent_inv),
    U("so3_hat", "so3_hat(v) -> hat(v) (..., 3, 3), hat(v) w = v x w", 1, 3, 0, 2, 3, 3,
      ld_so3_hat),
    U("so3_vee", "so3_vee(M) -> v (..., 3), the vee of the skew part of M", 2, 3, 3, 1, 3, 0,
      ld_so3_vee),
    U("s3_exp",
      "s3_exp(omega) -> q (..., 4)\n\nThe half-angle map (cos(phi/2), sin(phi/2) omega/phi), "
      "quaternion [w x y z].",
      1, 3, 0, 1, 4, 0, ld_s3_exp),
    U("s3_log", "s3_log(q) -> omega (..., 3)\n\nInverse of s3_exp on |omega| < 2 pi.", 1, 4, 0, 1,
      3, 0, ld_s3_log),
    B("s3_compose", "s3_compose(a, b) -> a o b (..., 4), the Hamilton product.", 1, 4, 0, 1, 4, 0,
      ld_quat_mul),
    U("s3_inverse", "s3_inverse(q) -> q^-1 (..., 4); NaN for a zero or non-finite q.", 1, 4, 0, 1,
      4, 0, s3_inverse),
    U("s3_tangent", "s3_tangent(omega) -> T (..., 3, 3); the S3 tangent operator is SO(3)'s.", 1, 3,
      0, 2, 3, 3, ld_so3_tangent),
    U("s3_tangent_inv", "s3_tangent_inv(omega) -> T^-1 (..., 3, 3)", 1, 3, 0, 2, 3, 3,
      ld_so3_tangent_inv),
    U("quat_to_mat", "quat_to_mat(q) -> R (..., 3, 3), the rotation of q/|q| (body -> spatial).", 1,
      4, 0, 2, 3, 3, ld_quat_to_mat),
    U("quat_from_mat", "quat_from_mat(R) -> q (..., 4), unit, w >= 0 (Spurrier's extraction).", 2,
      3, 3, 1, 4, 0, ld_quat_from_mat),
    U("quat_normalize", "quat_normalize(q) -> q/|q| (..., 4); NaN for zero or non-finite q.", 1, 4,
      0, 1, 4, 0, s3_normalize),
    B("quat_rotate", "quat_rotate(q, v) -> R(q) v (..., 3) for unit q.", 1, 4, 0, 1, 3, 0,
      ld_quat_rotate),
#define GROUP6(g, N, title)                                                                        \
    U(#g "_exp", #g "_exp(v) -> g (..., " #N ")\n\nExponential of " title "; " V6 ".", 1, 6, 0, 1, \
      N, 0, ld_##g##_exp),                                                                         \
        U(#g "_log", #g "_log(g) -> v (..., 6)\n\nLogarithm of " title ".", 1, N, 0, 1, 6, 0,      \
          ld_##g##_log),                                                                           \
        B(#g "_compose", #g "_compose(a, b) -> a o b (..., " #N ")", 1, N, 0, 1, N, 0,             \
          ld_##g##_compose),                                                                       \
        U(#g "_inverse", #g "_inverse(g) -> g^-1 (..., " #N ")", 1, N, 0, 1, N, 0,                 \
          ld_##g##_inverse),                                                                       \
        U(#g "_tangent",                                                                           \
          #g "_tangent(v) -> T (..., 6, 6)\n\nThe right Jacobian of exp on " title ".", 1, 6, 0,   \
          2, 6, 6, ld_##g##_tangent),                                                              \
        U(#g "_tangent_inv", #g "_tangent_inv(v) -> T^-1 (..., 6, 6)", 1, 6, 0, 2, 6, 6,           \
          ld_##g##_tangent_inv)
    GROUP6(se3, 12, "SE(3); g = (R row-major, x)"),
    GROUP6(so3xr3, 12, "R3 x SO(3); g = (R row-major, x)"),
    GROUP6(s3sdr3, 7, "S3 |x R3 (semidirect); g = (q, x)"),
    GROUP6(s3xr3, 7, "S3 x R3 (direct); g = (q, x)"),
};
#define NTABLE ((int)(sizeof TABLE / sizeof TABLE[0]))

static npy_intp prod(const npy_intp *s, int n) {
    npy_intp p = 1;
    for (int i = 0; i < n; ++i) p *= s[i];
    return p;
}

static PyObject *lie_call(PyObject *self, PyObject *args) {
    const lie_entry *e = &TABLE[PyLong_AsLong(self)];
    PyObject *o[2] = {NULL, NULL};
    if (!PyArg_UnpackTuple(args, e->name, (Py_ssize_t)e->nin, (Py_ssize_t)e->nin, &o[0], &o[1]))
        return NULL;
    PyArrayObject *a[2] = {NULL, NULL};
    PyArrayObject *r = NULL;
    static const char *const what[2] = {"first argument", "second argument"};
    char w[2][96];
    for (int i = 0; i < e->nin; ++i) {
        PyOS_snprintf(w[i], sizeof w[i], "%s: %s", e->name, e->nin == 1 ? "argument" : what[i]);
        a[i] = ld_py_array(o[i], w[i], e->in_nd, e->in, 0);
        if (!a[i]) goto done;
    }
    /* leading dimensions: those of the operand that has more (equal, or one has none) */
    int lead[2] = {0, 0}, big = 0;
    for (int i = 0; i < e->nin; ++i) lead[i] = PyArray_NDIM(a[i]) - e->in_nd;
    if (e->nin == 2) {
        big = lead[1] > lead[0];
        int same = lead[0] == lead[1] &&
                   prod(PyArray_DIMS(a[0]), lead[0]) == prod(PyArray_DIMS(a[1]), lead[1]);
        for (int d = 0; same && d < lead[0]; ++d)
            same = PyArray_DIM(a[0], d) == PyArray_DIM(a[1], d);
        if (!same && lead[0] && lead[1]) {
            ld_py_errorf(PyExc_ValueError,
                         "%s: the operands' leading shapes differ (give equal shapes, or one "
                         "operand without leading dimensions)",
                         e->name);
            goto done;
        }
    }
    int nl = lead[big];
    npy_intp shape[NPY_MAXDIMS];
    if (nl + e->out_nd > NPY_MAXDIMS) {
        ld_py_errorf(PyExc_ValueError, "%s: too many dimensions", e->name);
        goto done;
    }
    for (int d = 0; d < nl; ++d) shape[d] = PyArray_DIM(a[big], d);
    for (int d = 0; d < e->out_nd; ++d) shape[nl + d] = e->out[d];
    r = ld_py_new(nl + e->out_nd, shape);
    if (!r) goto done;
    npy_intp n = prod(shape, nl);
    npy_intp isz[2] = {prod(e->in, e->in_nd), prod(e->in, e->in_nd)};
    npy_intp osz = prod(e->out, e->out_nd);
    double *out = (double *)PyArray_DATA(r);
    const double *x0 = (const double *)PyArray_DATA(a[0]);
    if (e->nin == 1) {
        Py_BEGIN_ALLOW_THREADS for (npy_intp j = 0; j < n; ++j)
            e->f1(out + j * osz, x0 + j * isz[0]);
        Py_END_ALLOW_THREADS
    } else {
        const double *x1 = (const double *)PyArray_DATA(a[1]);
        npy_intp s0 = lead[0] ? isz[0] : 0, s1 = lead[1] ? isz[1] : 0;
        Py_BEGIN_ALLOW_THREADS for (npy_intp j = 0; j < n; ++j)
            e->f2(out + j * osz, x0 + j * s0, x1 + j * s1);
        Py_END_ALLOW_THREADS
    }
done:
    Py_XDECREF(a[0]);
    Py_XDECREF(a[1]);
    return (PyObject *)r;
}

static PyMethodDef DEFS[NTABLE];

int ld_py_lie_add(PyObject *module) {
    PyObject *names = PyList_New(0);
    if (!names) return -1;
    for (int i = 0; i < NTABLE; ++i) {
        DEFS[i] = (PyMethodDef){TABLE[i].name, lie_call, METH_VARARGS, TABLE[i].doc};
        PyObject *idx = PyLong_FromLong(i);
        PyObject *f = idx ? PyCFunction_NewEx(&DEFS[i], idx, NULL) : NULL;
        Py_XDECREF(idx);
        PyObject *nm = PyUnicode_FromString(TABLE[i].name);
        int bad = !f || !nm || PyModule_AddObjectRef(module, TABLE[i].name, f) < 0 ||
                  PyList_Append(names, nm) < 0;
        Py_XDECREF(f);
        Py_XDECREF(nm);
        if (bad) {
            Py_DECREF(names);
            return -1;
        }
    }
    return PyModule_AddObject(module, "lie_functions", names) < 0 ? (Py_DECREF(names), -1) : 0;
}

"""The Lie-group maps over arrays: the same numbers as the C functions called one by one
(through ctypes on the shared library), and independent formulas (Rodrigues, Hamilton
product, the SE(3) exponential) to round-off; broadcasting and bad input."""
import ctypes

import numpy as np
import pytest

import liedyn

rng = np.random.default_rng(7)
EPS = np.finfo(float).eps


def hat(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def rodrigues(p):
    th = np.linalg.norm(p)
    K = hat(p / th)
    return np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K


def hamilton(a, b):
    w1, v1, w2, v2 = a[0], a[1:], b[0], b[1:]
    return np.r_[w1 * w2 - v1 @ v2, w1 * v2 + w2 * v1 + np.cross(v1, v2)]


def c_call(clib, name, out_size, *ins):
    """One call of the C function `name` on double arrays."""
    out = (ctypes.c_double * out_size)()
    flat = [np.ravel(x) for x in ins]
    args = [(ctypes.c_double * x.size)(*x) for x in flat]
    getattr(clib, name)(out, *args)
    return np.array(out[:])


GROUP_CASES = [  # name, operand sizes, result size, maker of random operands
    ("ld_so3_exp", "so3_exp", [3], 9),
    ("ld_so3_log", "so3_log", ["R"], 3),
    ("ld_so3_tangent", "so3_tangent", [3], 9),
    ("ld_so3_tangent_inv", "so3_tangent_inv", [3], 9),
    ("ld_s3_exp", "s3_exp", [3], 4),
    ("ld_s3_log", "s3_log", ["q"], 3),
    ("ld_quat_mul", "s3_compose", ["q", "q"], 4),
    ("ld_se3_exp", "se3_exp", [6], 12),
    ("ld_se3_log", "se3_log", ["g12"], 6),
    ("ld_se3_compose", "se3_compose", ["g12", "g12"], 12),
    ("ld_se3_inverse", "se3_inverse", ["g12"], 12),
    ("ld_se3_tangent", "se3_tangent", [6], 36),
    ("ld_se3_tangent_inv", "se3_tangent_inv", [6], 36),
    ("ld_s3sdr3_exp", "s3sdr3_exp", [6], 7),
    ("ld_s3sdr3_log", "s3sdr3_log", ["g7"], 6),
    ("ld_s3sdr3_compose", "s3sdr3_compose", ["g7", "g7"], 7),
    ("ld_s3sdr3_tangent", "s3sdr3_tangent", [6], 36),
    ("ld_s3sdr3_tangent_inv", "s3sdr3_tangent_inv", [6], 36),
    ("ld_so3xr3_exp", "so3xr3_exp", [6], 12),
    ("ld_s3xr3_log", "s3xr3_log", ["g7"], 6),
]


def operand(kind, n):
    if kind == "R":
        return liedyn.so3.exp(rng.normal(size=(n, 3)))
    if kind == "q":
        return liedyn.s3.exp(rng.normal(size=(n, 3)))
    if kind == "g12":
        return liedyn.se3.exp(rng.normal(size=(n, 6)))
    if kind == "g7":
        return liedyn.s3sdr3.exp(rng.normal(size=(n, 6)))
    return rng.normal(size=(n, kind))


@pytest.mark.parametrize("cname,pyname,ins,nout", GROUP_CASES)
def test_same_numbers_as_the_c_functions(clib, cname, pyname, ins, nout):
    n = 50
    ops = [operand(k, n) for k in ins]
    got = getattr(liedyn._liedyn, pyname)(*ops).reshape(n, nout)
    for j in range(n):
        want = c_call(clib, cname, nout, *[o[j] for o in ops])
        assert np.array_equal(got[j], want), (pyname, j)


def test_so3_exp_is_rodrigues_and_log_inverts_it():
    p = rng.normal(size=(200, 3)) * 1.5
    R = liedyn.so3.exp(p)
    for j in range(len(p)):
        assert np.allclose(R[j], rodrigues(p[j]), atol=8 * EPS, rtol=0)
    short = p[np.linalg.norm(p, axis=1) < np.pi]
    assert np.allclose(liedyn.so3.log(liedyn.so3.exp(short)), short, atol=1e-13, rtol=0)


def test_s3_compose_is_hamilton_and_matches_the_rotation_matrices():
    a, b = operand("q", 100), operand("q", 100)
    c = liedyn.s3.compose(a, b)
    for j in range(100):
        assert np.allclose(c[j], hamilton(a[j], b[j]), atol=4 * EPS, rtol=0)
    Rab = liedyn.so3.compose(liedyn.quat.to_mat(a), liedyn.quat.to_mat(b))
    assert np.allclose(liedyn.quat.to_mat(c), Rab, atol=1e-14, rtol=0)
    # s3_exp(psi) is the quaternion of Rodrigues' matrix
    p = rng.normal(size=(100, 3))
    assert np.allclose(liedyn.quat.to_mat(liedyn.s3.exp(p)), liedyn.so3.exp(p), atol=1e-14, rtol=0)


def test_se3_exp_closed_form_and_group_laws():
    v = rng.normal(size=(100, 6))
    g = liedyn.se3.exp(v)
    for j in range(100):
        w, u = v[j, :3], v[j, 3:]
        th = np.linalg.norm(w)
        K = hat(w)
        # translation Tᵀ(Ω) U = (I + (1 - cos)/θ² K + (θ - sin)/θ³ K²) U
        V = np.eye(3) + (1 - np.cos(th)) / th**2 * K + (th - np.sin(th)) / th**3 * K @ K
        assert np.allclose(g[j, :9].reshape(3, 3), rodrigues(w), atol=8 * EPS, rtol=0)
        assert np.allclose(g[j, 9:], V @ u, atol=1e-14, rtol=0)
    ident = liedyn.se3.compose(g, liedyn.se3.inverse(g))
    assert np.allclose(ident, np.r_[np.eye(3).ravel(), 0, 0, 0], atol=1e-14, rtol=0)
    small = v * (1.0 / np.maximum(1.0, np.linalg.norm(v[:, :3], axis=1)))[:, None]
    for grp in (liedyn.se3, liedyn.so3xr3, liedyn.s3sdr3, liedyn.s3xr3):
        assert np.allclose(grp.log(grp.exp(small)), small, atol=1e-13, rtol=0)


@pytest.mark.parametrize("grp,dim", [(liedyn.so3, 3), (liedyn.se3, 6), (liedyn.s3sdr3, 6),
                                     (liedyn.so3xr3, 6), (liedyn.s3xr3, 6)])
def test_tangent_is_the_right_jacobian_and_its_inverse(grp, dim):
    x = rng.normal(size=dim)
    T = grp.tangent(x)
    assert np.allclose(T @ grp.tangent_inv(x), np.eye(dim), atol=1e-13, rtol=0)
    # exp(x + d) = exp(x) exp(T d + O(d²)): compare by central differences
    h = 1e-6
    for k in range(dim):
        d = np.zeros(dim)
        d[k] = h
        inv = grp.inverse(grp.exp(x))
        lp = grp.log(grp.compose(inv, grp.exp(x + d)))
        lm = grp.log(grp.compose(inv, grp.exp(x - d)))
        assert np.allclose((lp - lm) / (2 * h), T[:, k], atol=1e-8, rtol=0)


def test_broadcasting_and_shapes():
    a = operand("q", 1)[0]
    b = operand("q", 10).reshape(2, 5, 4)
    c = liedyn.s3.compose(a, b)
    assert c.shape == (2, 5, 4)
    assert np.array_equal(c[1, 3], liedyn.s3.compose(a, b[1, 3]))
    assert liedyn.so3.exp([0.1, 0.2, 0.3]).shape == (3, 3)
    assert liedyn.so3.exp(np.zeros((0, 3))).shape == (0, 3, 3)
    assert liedyn.so3.exp(np.array([1, 2, 3], dtype=np.int32)).dtype == np.float64


def test_bad_input_raises_not_crashes():
    with pytest.raises(ValueError, match=r"expected shape \(\.\.\., 3\)"):
        liedyn.so3.exp(np.zeros(4))
    with pytest.raises(ValueError, match="leading shapes differ"):
        liedyn.s3.compose(np.zeros((3, 4)), np.zeros((2, 4)))
    with pytest.raises(TypeError):
        liedyn.so3.exp("abc")
    with pytest.raises(TypeError):
        liedyn.so3.exp(None)
    with pytest.raises(TypeError, match="array of numbers"):
        liedyn.so3.exp(np.array([1 + 2j, 0, 0]))  # no silent loss of the imaginary part
    with pytest.raises(TypeError):
        liedyn.so3.exp()
    # NaN goes through as NaN (the C functions' own behaviour), no crash
    assert np.isnan(liedyn.so3.exp([np.nan, 0, 0])).any()
    assert np.isnan(liedyn.s3.inverse([0.0, 0, 0, 0])).all()

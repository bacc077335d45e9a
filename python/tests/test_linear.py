"""liedyn.linearize and liedyn.modes: the C library's linearization and modes over numpy
arrays (docs/modes.md), against closed forms, the matrices' own relations and the command
line's numbers."""
import re

import numpy as np
import pytest

import liedyn
from conftest import source_path


def test_pendulum_frequency():
    # a pendulum started horizontal settles hanging; its one mode has w^2 = g / l = 9.81
    m = liedyn.modes("simple-pendulum")
    assert m.count == 1 and not m.damped
    assert m.omega2[0] == pytest.approx(9.81, rel=1e-8)
    assert m.hz[0] == pytest.approx(np.sqrt(9.81) / (2 * np.pi), rel=1e-8)
    assert m.zeta[0] == 0.0
    # the bob swings along x and turns about z at the bottom (docs/modes.md)
    shape = m.bodies["bob"][0]
    assert abs(shape[0]) > 0 and abs(shape[1]) < 1e-9 * abs(shape[0])
    assert abs(shape[5]) > 0 and abs(shape[3]) < 1e-9 * abs(shape[5])


def test_sparse_modes_equal_the_dense_ones():
    # the sparse path (saddle-point matrix, KLU) on a closed loop with a spring and on a beam:
    # the dense path's lowest w^2 and body motions (up to sign), no matrices
    for name, count in (("four-bar", 1), ("beam-pinned", 4)):
        dense = liedyn.modes(name, count)
        sparse = liedyn.modes(name, count, sparse=True)
        assert sparse.linear is None and sparse.count == count
        assert np.abs(sparse.omega2 / dense.omega2 - 1).max() < 1e-9
        for body, d in dense.bodies.items():
            s = sparse.bodies[body]
            for j in range(count):
                sign = 1.0 if np.dot(s[j], d[j]) >= 0 else -1.0
                assert np.abs(sign * s[j] - d[j]).max() <= 1e-6 * (1 + np.abs(d[j]).max())
    with pytest.raises(ValueError, match="sparse"):
        liedyn.modes("four-bar", 1, sparse=True, damped=True)


def test_reduced_matrices_and_state_matrix():
    lin = liedyn.linearize("double-pendulum-damped")
    assert lin.k == 12 and lin.n == 2 and lin.B.shape == (10, 12)
    assert lin.accel < 1e-9  # the statics found the equilibrium
    N = lin.N
    assert np.abs(lin.B @ N).max() < 1e-12 * np.abs(lin.B).max()
    assert np.allclose(N.T @ N, np.eye(lin.n), atol=1e-14)
    for full, red in ((lin.M, lin.Mr), (lin.D, lin.Dr), (lin.K, lin.Kr)):
        assert np.abs(N.T @ full @ N - red).max() <= 1e-12 * np.abs(full).max()
    n = lin.n
    A = np.block([[np.zeros((n, n)), np.eye(n)],
                  [-np.linalg.solve(lin.Mr, lin.Kr), -np.linalg.solve(lin.Mr, lin.Dr)]])
    assert np.abs(lin.A - A).max() <= 1e-12 * np.abs(A).max()


def test_damped_modes_are_the_state_matrix_eigenvalues():
    md = liedyn.modes("double-pendulum-damped", damped=True, count=0)
    ev = np.linalg.eigvals(md.linear.A)
    upper = np.sort_complex(ev[ev.imag >= 0])
    assert md.count == 2 and md.damped
    got = np.sort_complex(md.s)
    assert np.abs(got - upper).max() < 1e-10 * np.abs(upper).max()
    assert np.allclose(md.zeta, -md.s.real / np.abs(md.s), rtol=1e-14)
    assert np.all(md.zeta > 0)


def test_undamped_shapes_are_mass_normalized():
    md = liedyn.modes("double-pendulum-damped", count=0)
    lin = md.linear
    Z = md.z.T
    assert np.allclose(Z.T @ lin.Mr @ Z, np.eye(2), atol=1e-12)
    assert np.allclose(Z.T @ ((lin.Kr + lin.Kr.T) / 2) @ Z, np.diag(md.omega2), rtol=1e-10,
                       atol=1e-12 * md.omega2.max())
    assert np.allclose(md.shapes, (lin.N @ Z).T, atol=1e-14)


def test_input_matrix_and_body_jacobian():
    lin = liedyn.linearize("double-pendulum-damped")
    Jx, Jr = lin.body_jacobian("link2")
    assert Jx.shape == (3, lin.k) and Jr.shape == (3, lin.k)
    F = Jx.T[:, :1]  # a horizontal force at link2's centre
    Bu = lin.input_matrix(F)
    n = lin.n
    assert Bu.shape == (2 * n, 1)
    assert np.all(Bu[:n] == 0)
    assert np.allclose(Bu[n:], np.linalg.solve(lin.Mr, lin.N.T @ F), rtol=1e-12, atol=0)
    # static gain of the displacement output: -C A^-1 Bu = Jx N Kr^-1 N^T F (Kr symmetric)
    C = np.hstack([Jx[:1] @ lin.N, np.zeros((1, n))])
    gain = -C @ np.linalg.solve(lin.A, Bu)
    want = Jx[:1] @ lin.N @ np.linalg.solve(lin.Kr, lin.N.T @ F)
    assert gain[0, 0] == pytest.approx(want[0, 0], rel=1e-10)
    assert gain[0, 0] > 0  # pushed along x, it moves along x


def test_the_iea_blade_as_the_command_line():
    # the blade without its tip load, about its reference configuration: the frequencies
    # `liedyn modes iea15-blade --no-loads --no-static` prints (docs/modes.md)
    with open(source_path("models", "iea15-blade.yaml")) as f:
        text = f.read()
    text = re.sub(r"\nloads:\n.*?\nintegrator:", "\nintegrator:", text, flags=re.S)
    md = liedyn.modes(liedyn.Model.from_yaml(text, name="blade"), count=4, static=False)
    assert md.linear.accel < 1e-6 and md.linear.n == 60
    # to the digits the command line prints
    assert md.hz == pytest.approx([0.50568176, 0.69148208, 1.4790461, 2.1361723], rel=5e-8)
    tip = md.bodies["blade[10]"]
    assert abs(tip[0, 2]) > 0.99 * np.linalg.norm(tip[0, :3])  # flapwise (z)
    assert abs(tip[1, 1]) > 0.98 * np.linalg.norm(tip[1, :3])  # edgewise (y)


def test_errors():
    with pytest.raises(ValueError):
        liedyn.modes("simple-pendulum", count=-1)
    falling = {"name": "fall", "gravity": [0, 0, -9.81],
               "bodies": [{"name": "b", "mass": 1, "inertia": [1, 1, 1], "position": [0, 0, 0]}]}
    with pytest.raises(liedyn.Error, match="statics"):  # no equilibrium: nothing holds it
        liedyn.linearize(falling)
    with pytest.raises(ValueError):
        liedyn.linearize("simple-pendulum", q=[1.0, 2.0])
    with pytest.raises(ValueError):
        liedyn.linearize("simple-pendulum", static=False, v=[np.nan] * 6)
    with pytest.raises(KeyError):
        liedyn.linearize("simple-pendulum").body_jacobian("nobody")


def test_a_python_force():
    # a mass on a slide held by a spring-damper written in Python (the force's tangents by
    # differences): |s| = sqrt(k / m) = 5 rad/s, zeta = c / (2 sqrt(k m)) = 0.04
    model = {"name": "user-spring",
             "bodies": [{"name": "mass", "mass": 2.0, "inertia": [1, 1, 1],
                         "position": [1.0, 0, 0]}],
             "joints": [{"name": "slide", "type": "prismatic", "body1": "ground",
                         "body2": "mass", "at": [1.0, 0, 0], "axis": [1, 0, 0]}]}

    def spring(t, b1, b2):
        f = -50.0 * (b2["x"] - [1.0, 0, 0]) - 0.8 * b2["xdot"]
        return np.r_[np.zeros(6), f, np.zeros(3)]

    m = liedyn.Model(model)
    m.add_force(spring, None, "mass")
    md = liedyn.modes(m, damped=True)
    assert md.count == 1
    assert abs(md.s[0]) == pytest.approx(5.0, rel=1e-6)
    assert md.zeta[0] == pytest.approx(0.04, rel=1e-6)

    def broken(t, b1, b2):
        raise ZeroDivisionError("from the force")

    m2 = liedyn.Model(model)
    m2.add_force(broken, None, "mass")
    with pytest.raises(ZeroDivisionError, match="from the force"):
        liedyn.modes(m2)

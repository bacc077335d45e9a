"""User forces: a Python callable and the same force in C (a shared library through ctypes)
give the same motion, and it is the damped oscillator's closed form; exceptions and bad
return values of a callable surface as Python exceptions."""
import ctypes
import os

import numpy as np
import pytest

import liedyn

# mass-spring without its spring element: the force comes from the user
MODEL = {
    "name": "user-spring",
    "bodies": [{"name": "mass", "mass": 2.0, "inertia": [1, 1, 1], "position": [1.5, 0, 0],
                "velocity": [0.3, 0, 0]}],
    "joints": [{"name": "slide", "type": "prismatic", "body1": "ground", "body2": "mass",
                "at": [1.5, 0, 0], "axis": [1, 0, 0]}],
    "integrator": {"name": "genalpha", "dt": 1e-3, "t_end": 2.0, "rho_inf": 1.0},
}
K, C, P = 50.0, 0.8, np.array([1.0, 0, 0])


def spring(t, b1, b2):
    f = -K * (b2["x"] - P) - C * b2["xdot"]
    return np.r_[np.zeros(6), f, np.zeros(3)]


def closed_form(t):
    w, z, x0, v0 = 5.0, 0.8 / (2 * np.sqrt(100.0)), 0.5, 0.3
    wd = w * np.sqrt(1 - z * z)
    return np.exp(-z * w * t) * (x0 * np.cos(wd * t) + (v0 + z * w * x0) / wd * np.sin(wd * t))


def test_python_and_c_forces_agree_with_the_closed_form():
    mp = liedyn.Model(MODEL)
    mp.add_force(spring, "ground", "mass", name="spring")
    rp = liedyn.run(mp, t_end=0.5)
    ext = rp.bodies["mass"].x[:, 0] - 1.0
    assert np.abs(ext - closed_form(rp.t)).max() < 2e-4  # genalpha, second order at dt = 1e-3
    lib_path = os.environ.get("LIEDYN_PY_CFORCE")
    if not lib_path:
        pytest.skip("LIEDYN_PY_CFORCE not set")
    lib = ctypes.CDLL(lib_path)
    par = (ctypes.c_double * 5)(K, C, *P)
    mc = liedyn.Model(MODEL)
    fn = ctypes.cast(lib.ld_py_test_spring, ctypes.c_void_p)
    mc.add_c_force(fn, "mass", None, user=ctypes.addressof(par), keep=(lib, par))
    rc = liedyn.run(mc, t_end=0.5)
    assert np.allclose(rc.bodies["mass"].x, rp.bodies["mass"].x, rtol=0, atol=1e-12)
    assert mc.elements["element0"].type == "user-force"


def test_callable_errors_surface():
    def broken(t, b1, b2):
        if t > 0.01:
            raise ZeroDivisionError("from the force")
        return np.zeros(12)

    m = liedyn.Model(MODEL)
    m.add_force(broken, None, "mass")
    with pytest.raises(ZeroDivisionError, match="from the force"):
        liedyn.run(m, t_end=0.1)
    m2 = liedyn.Model(MODEL)
    m2.add_force(lambda t, b1, b2: np.zeros(5), None, "mass")
    with pytest.raises(ValueError, match="expected 12 numbers"):
        liedyn.Integrator(m2)
    m3 = liedyn.Model(MODEL)
    m3.add_force(lambda t, b1, b2: "nonsense", None, "mass")
    with pytest.raises(TypeError):
        liedyn.run(m3, t_end=0.01)
    m4 = liedyn.Model(MODEL)
    with pytest.raises(TypeError, match="callable"):
        m4.add_force(3, None, "mass")
    with pytest.raises(KeyError, match="no body named"):
        m4.add_force(spring, None, "nobody")
    with pytest.raises(ValueError, match="NULL"):
        m4.add_c_force(0, None, "mass")
    s = m4.compile()
    with pytest.raises(RuntimeError, match="before the model is compiled"):
        m4.add_force(spring, None, "mass")
    del s
    m4.add_force(spring, None, "mass")  # no system alive any more

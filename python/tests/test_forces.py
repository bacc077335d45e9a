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


# ---- user tangents, vectorized forces, the fewest calls: a drag on heavy tops
CD, DD = 0.1, 0.01


def drag(t, g, top):
    return np.concatenate((np.zeros(6), -CD * top["xdot"], -DD * (top["R"] @ top["omega"])))


def drag_tangent(t, g, top):
    """dw/d(dth, dx) with R -> R exp(dth): d(-D R exp(dth) w)/d dth = D R hat(w)."""
    R, o = top["R"], top["omega"]
    H = np.array([[0, -o[2], o[1]], [o[2], 0, -o[0]], [-o[1], o[0], 0]])
    Wq, Wv = np.zeros((12, 12)), np.zeros((12, 12))
    Wq[9:, 6:9] = DD * R @ H
    Wv[9:, 6:9] = -DD * R
    Wv[6:9, 9:] = -CD * np.eye(3)
    return Wq, Wv


def counted(fn, count):
    def f(*a):
        count[0] += 1
        return fn(*a)
    return f


def tops(n):
    """n heavy tops side by side, each on its own pivot."""
    top = liedyn.Model("heavy-top")
    b = top.bodies["top"]
    bodies, joints = [], []
    for i in range(n):
        bodies.append({"name": f"top{i}", "mass": b.mass, "inertia": [0.234375, 0.46875, 0.234375],
                       "position": [2.0 * i, 1, 0], "angular_velocity": [0, 150 - i, -4.61538]})
        joints.append({"name": f"pivot{i}", "type": "spherical", "body": f"top{i}",
                       "point": [0, -1, 0], "ground": [2.0 * i, 0, 0]})
    return {"name": "tops", "gravity": [0, 0, -9.81], "bodies": bodies, "joints": joints,
            "integrator": {"name": "genalpha", "dt": 2e-4, "t_end": 0.02, "rho_inf": 0.9}}


def test_user_tangent_is_used_and_agrees_with_differences():
    nf, nt, nd = [0], [0], [0]
    mt = liedyn.Model("heavy-top")
    mt.add_force(counted(drag, nf), None, "top", tangent=counted(drag_tangent, nt))
    nf[0] = nt[0] = 0  # the check at add_force called both
    rt = liedyn.run(mt, dt=2e-4, t_end=0.02)
    md = liedyn.Model("heavy-top")
    md.add_force(counted(drag, nd), None, "top")
    rd = liedyn.run(md, dt=2e-4, t_end=0.02)
    steps = rt.stats["steps"]
    # the tangent once per step (the matrix is formed once per step), the force once per
    # Newton iteration and once for the initial accelerations; the differences need 24 more
    # calls per step (12 pairs: the ground's columns are not taken)
    assert nt[0] == steps
    assert nf[0] == rt.stats["newton_iterations"] + 1
    assert nd[0] == rd.stats["newton_iterations"] + 1 + 24 * steps
    # the same motion to the Newton tolerance
    assert np.abs(rt.bodies["top"].x - rd.bodies["top"].x).max() < 1e-8
    assert np.abs(rt.bodies["top"].q - rd.bodies["top"].q).max() < 1e-8
    # fn returning (w, (Wq, Wv)): one call serves both
    nb = [0]
    mb = liedyn.Model("heavy-top")
    mb.add_force(counted(lambda t, g, p: (drag(t, g, p), drag_tangent(t, g, p)), nb), None, "top",
                 tangent=True)
    nb[0] = 0
    rb = liedyn.run(mb, dt=2e-4, t_end=0.02)
    assert nb[0] == rb.stats["newton_iterations"] + 1
    assert np.array_equal(rb.bodies["top"].x, rt.bodies["top"].x)


def test_no_tangent_when_the_matrix_is_kept():
    n_auto, n_off = [0], [0]
    for count, reuse in ((n_auto, "auto"), (n_off, 0)):
        m = liedyn.Model("heavy-top")
        m.add_force(drag, None, "top", tangent=counted(drag_tangent, count), check_tangent=False)
        r = liedyn.run(m, dt=2e-4, t_end=0.01, newton_reuse=2 if reuse == "auto" else reuse)
        if reuse == "auto":
            assert count[0] == r.stats["steps"]
        else:  # full Newton: a matrix per iteration
            assert count[0] == r.stats["newton_iterations"]


def test_wrong_tangent_refused():
    def wrong(t, g, top):
        Wq, Wv = drag_tangent(t, g, top)
        Wv[6:9, 9:] *= -1.0  # the damping with the wrong sign
        return Wq, Wv

    m = liedyn.Model("heavy-top")
    with pytest.raises(ValueError, match=r"'drag'.*Wv\[6, 9\] \(df2x/dv2x\) = 0.1, but central "
                                         r"differences of the force give -0.1"):
        m.add_force(drag, None, "top", name="drag", tangent=wrong)
    assert len(m.elements) == 0  # nothing added
    m.add_force(drag, None, "top", tangent=wrong, check_tangent=False)  # on the user's word
    assert len(m.elements) == 1


def test_vectorized_force_equals_the_per_instance_one():
    n = 4
    names = [f"top{i}" for i in range(n)]
    calls = [0]

    def drags(t, g, top):  # arrays (n, 3), (n, 3, 3)
        calls[0] += 1
        w = np.zeros((n, 12))
        w[:, 6:9] = -CD * top["xdot"]
        w[:, 9:] = -DD * np.einsum("nij,nj->ni", top["R"], top["omega"])
        return w

    def drags_tangent(t, g, top):
        return tuple(np.stack(T) for T in zip(*[drag_tangent(
            t, None, {k: v[i] for k, v in top.items()}) for i in range(n)]))

    one = liedyn.Model(tops(n))
    for b in names:
        one.add_force(drag, None, b)
    r1 = liedyn.run(one)
    vec = liedyn.Model(tops(n))
    vec.add_force(drags, None, names, vectorized=True, name="drag")
    rv = liedyn.run(vec)
    for b in names:
        assert np.abs(rv.bodies[b].x - r1.bodies[b].x).max() <= 1e-12
        assert np.abs(rv.bodies[b].q - r1.bodies[b].q).max() <= 1e-12
    # one call per evaluation for all instances; the differences perturb all tops at once
    assert calls[0] == rv.stats["newton_iterations"] + 1 + 24 * rv.stats["steps"]
    assert vec.elements["drag[3]"].type == "user-force"
    vt = liedyn.Model(tops(n))
    vt.add_force(drags, "ground", names, vectorized=True, tangent=drags_tangent)
    rt = liedyn.run(vt)
    for b in names:
        assert np.abs(rt.bodies[b].x - r1.bodies[b].x).max() < 1e-8


def test_declared_dependencies_halve_the_differences():
    """A force between two bodies that depends on body2's motion only: the differences perturb
    body2 alone (12 pairs of calls per matrix instead of 24)."""
    both, only2 = [0], [0]

    def pull(t, b1, b2):  # on both tops, from top1's velocity
        f = -CD * b2["xdot"]
        return np.r_[-f, np.zeros(3), f, np.zeros(3)]

    runs = []
    for count, dep in ((both, None), (only2, "body2")):
        m = liedyn.Model(tops(2))
        m.add_force(counted(pull, count), "top0", "top1", depends=dep)
        runs.append(liedyn.run(m))
    r = runs[1]
    assert both[0] == runs[0].stats["newton_iterations"] + 1 + 48 * runs[0].stats["steps"]
    assert only2[0] == r.stats["newton_iterations"] + 1 + 24 * r.stats["steps"]
    assert np.array_equal(runs[0].bodies["top0"].x, r.bodies["top0"].x)
    with pytest.raises(ValueError, match="depends"):
        liedyn.Model(tops(2)).add_force(pull, "top0", "top1", depends="body3")

"""Attitude from angular velocity: the analytic cases converge to their exact rotation at the
methods' orders; gyro samples (arrays) and a Python callable give the case's solution; bad
input raises."""
import numpy as np
import pytest

import liedyn


def angle(a, b):
    """Geodesic angle between unit quaternions (rows), accurate for small angles."""
    d = np.asarray(b) * np.asarray(a)[..., :1] - np.asarray(a) * np.asarray(b)[..., :1]
    d[..., 0] = np.sum(a * b, axis=-1)  # a* b: scalar a.b, vector wa vb - wb va - va x vb
    d[..., 1:] -= np.cross(np.asarray(a)[..., 1:], np.asarray(b)[..., 1:])
    return 2 * np.arctan2(np.linalg.norm(d[..., 1:], axis=-1), np.abs(d[..., 0]))


@pytest.mark.parametrize("method,order", [("mpq", 2), ("rk4", 4), ("magnus4", 4)])
def test_case_converges_at_the_order(method, order):
    errs = []
    for dt in (0.02, 0.01):
        r = liedyn.attitude("ex1", method=method, dt=dt)
        exact = liedyn.attitude_case("ex1", r.t)["q"]
        errs.append(angle(r.q, exact).max())
    rate = np.log2(errs[0] / errs[1])
    assert abs(rate - order) < 0.3, (errs, rate)


def test_gyro_samples_and_callable():
    case = "ex1"
    t0, t1 = 0.0, 5.0
    ts = np.linspace(t0, t1, 5001)
    ex = liedyn.attitude_case(case, ts)
    r = liedyn.attitude(ex["omega"], t=ts, q0=ex["q"][0], method="rkmk4", dt=1e-3)
    assert r.t[0] == ts[0] and np.isclose(r.t[-1], ts[-1])
    # linear interpolation of the samples: second order in their spacing
    err = angle(r.q[-1], liedyn.attitude_case(case, r.t[-1:])["q"][0])
    assert err < 1e-4
    calls = []

    def omega(t):
        calls.append(t)
        return liedyn.attitude_case(case, [t])["omega"][0]

    rc = liedyn.attitude(omega, t0=t0, t1=t1, q0=ex["q"][0], method="rkmk4", dt=1e-3)
    rs = liedyn.attitude(case, method="rkmk4", dt=1e-3, t1=t1)
    assert np.allclose(rc.q, rs.q, atol=1e-14, rtol=0) and len(calls) == rc.stats["fevals"]


def test_spatial_frame_and_parameters():
    r = liedyn.attitude("ex1", method="mpr", param="rotvec", frame="spatial", dt=0.01)
    assert r.p.shape[1] == 3 and r.param == "rotvec"
    exact = liedyn.attitude_case("ex1", r.t)["q"]
    assert angle(r.q, exact).max() < 1e-2


def test_bad_input():
    with pytest.raises(ValueError, match="unknown case"):
        liedyn.attitude("ex9")
    with pytest.raises(ValueError, match="unknown method"):
        liedyn.attitude("ex1", method="euler")
    with pytest.raises(TypeError, match="times"):
        liedyn.attitude(np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"\(\.\.\., 3\)"):
        liedyn.attitude(np.zeros((5, 2)), t=np.arange(5.0))
    with pytest.raises(ValueError, match="not finite"):
        liedyn.attitude(np.full((5, 3), np.nan), t=np.arange(5.0))
    with pytest.raises(liedyn.Error, match="strictly increasing"):
        liedyn.attitude(np.zeros((3, 3)), t=[0.0, 0.0, 1.0])
    with pytest.raises(TypeError, match="t0="):
        liedyn.attitude(lambda t: [0, 0, 1])
    with pytest.raises(ZeroDivisionError):
        liedyn.attitude(lambda t: 1 / 0, t0=0, t1=1)
    with pytest.raises(liedyn.Error, match="EINVAL|invalid"):
        liedyn.attitude("ex1", dt=-1.0)
    with pytest.raises(liedyn.Error) as e:
        liedyn.attitude("ex1", method="ode45", max_steps=3)
    assert len(e.value.result.t) >= 1


def test_default_step_is_the_clis(tmp_path, cli):
    """Without dt, samples are integrated with one step per sample interval, as `liedyn
    attitude --input` does (not at a fixed 0.01, which for samples 1 s apart took 100 times
    the steps and memory); cases with their own step; adaptive methods start automatically."""
    import json
    import subprocess

    t = np.arange(0.0, 201.0)  # 201 samples, 1 s apart
    w = np.c_[0.01 * np.sin(0.05 * t), 0.02 * np.ones_like(t), 0.005 * t / t[-1]]
    r = liedyn.attitude(w, t=t)
    assert r.stats["steps"] == 200 and len(r.t) == 201
    explicit = liedyn.attitude(w, t=t, dt=1.0)
    assert np.array_equal(r.q, explicit.q)
    path = tmp_path / "gyro.csv"
    np.savetxt(path, np.c_[t, w], delimiter=",", fmt="%.17g")
    for method in ("mpq", "rk4", "ode45"):
        out = subprocess.run([cli, "attitude", "--input", str(path), "--method", method,
                              "--json"], capture_output=True, text=True, check=True).stdout
        c = json.loads(out)
        p = liedyn.attitude(w, t=t, method=method)
        assert p.stats["steps"] == c["steps"], (method, p.stats, c)
        assert np.allclose(p.q[-1], c["q_end"], rtol=0, atol=1e-12), method
    case = liedyn.attitude("ex1")
    assert np.isclose(np.diff(case.t).max(), liedyn.attitude_cases()["ex1"]["dt"])


@pytest.mark.parametrize("bad", [1e300, float("inf"), -1.0])
def test_max_steps_out_of_range_is_refused(bad):
    """max_steps beyond what a C long holds is refused before the conversion (which would be
    undefined), as are negative ones."""
    with pytest.raises(ValueError, match="max_steps: must be in"):
        liedyn.attitude("ex1", max_steps=bad)

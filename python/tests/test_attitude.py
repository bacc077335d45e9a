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

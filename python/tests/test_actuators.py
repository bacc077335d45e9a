"""Actuators from Python: a discrete PD controller written in Python against the exact
sampled-data recurrence of a hinge (a double integrator under a held torque), the system's
control inputs and sensors, and a controller's exception surfacing from the integrator."""
import numpy as np
import pytest

import liedyn

I_AXIS, KP, KD, REF, T = 0.2, 4.0, 0.9, 1.0, 0.05
MODEL = {
    "name": "hinge",
    "bodies": [{"name": "disk", "mass": 1.0, "inertia": [0.5, 0.5, I_AXIS],
                "position": [0, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body1": "ground", "body2": "disk",
                "at": [0, 0, 0], "axis": [0, 0, 1]}],
    "elements": [{"name": "motor", "type": "actuator", "joint": "hinge", "input": "control",
                  "force_limits": [-3, 3]}],
    "integrator": {"name": "genalpha", "dt": 7.3e-3, "t_end": 1.0},
}


def test_discrete_pd_against_the_exact_recurrence():
    it = liedyn.Integrator(liedyn.Model(MODEL), "genalpha")
    seen = []

    def law(t, q, v, sensors):
        seen.append((t, sensors[0, 0], sensors[0, 1], sensors[0, 2]))
        return [KP * (REF - sensors[0, 0]) - KD * sensors[0, 1]]

    it.set_controller(T, law)
    while it.t < 1.0 - 1e-12:
        it.advance_to(min(1.0, it.t + 7.3e-3))
    th = thd = 0.0
    for k, (t, s_th, s_thd, s_f) in enumerate(seen[:20]):
        assert abs(t - k * T) < 1e-12
        assert abs(s_th - th) < 1e-9 and abs(s_thd - thd) < 1e-9
        u = np.clip(KP * (REF - th) - KD * thd, -3, 3)
        th, thd = th + T * thd + 0.5 * T * T * u / I_AXIS, thd + T * u / I_AXIS
    assert len(seen) == 20
    s = it.system
    assert s.actuators == 1
    theta, rate, force, inp = s.actuator_state(0, it.q, it.v, t=it.t)
    assert inp == s.control(0) and force == np.clip(inp, -3, 3)


def test_set_control_and_errors():
    m = liedyn.Model(MODEL)
    s = m.compile()
    s.set_control(0, 2.5)
    assert s.control(0) == 2.5
    assert s.actuator_state(0, s.q0, s.v0)[2] == 2.5
    with pytest.raises(liedyn.Error):
        s.set_control(1, 0.0)
    it = liedyn.Integrator(m, "genalpha")

    def bad(t, q, v, sensors):
        raise RuntimeError("controller broke")

    it.set_controller(0.1, bad)
    with pytest.raises(RuntimeError, match="controller broke"):
        it.advance_to(0.5)

"""The lifetime of what the module hands out and of what it borrows while Python runs inside
a call: the state arrays of an Integrator view its memory and keep it alive; a second
__init__, which would free that memory, is refused; a callback of a running step (a user
force, a controller) may call anything, and what would free or share the state under the
running step raises RuntimeError instead: re-initializing, replacing the controller, a step
of another integrator on the same System, a new integrator on it."""
import gc

import numpy as np
import pytest

import liedyn

# a mass on a prismatic joint, its spring a Python force
SPRING = {
    "name": "user-spring",
    "bodies": [{"name": "mass", "mass": 2.0, "inertia": [1, 1, 1], "position": [1.5, 0, 0],
                "velocity": [0.3, 0, 0]}],
    "joints": [{"name": "slide", "type": "prismatic", "body1": "ground", "body2": "mass",
                "at": [1.5, 0, 0], "axis": [1, 0, 0]}],
    "integrator": {"name": "genalpha", "dt": 1e-3, "t_end": 2.0},
}
# a disk on a hinge driven by an actuator with a control input
HINGE = {
    "name": "hinge",
    "bodies": [{"name": "disk", "mass": 1.0, "inertia": [0.5, 0.5, 0.2], "position": [0, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body1": "ground", "body2": "disk",
                "at": [0, 0, 0], "axis": [0, 0, 1]}],
    "elements": [{"name": "motor", "type": "actuator", "joint": "hinge", "input": "control"}],
    "integrator": {"name": "genalpha", "dt": 1e-2, "t_end": 1.0},
}


def spring_model(during_step):
    """SPRING with a force that calls during_step() once a step is running (not during the
    integrator's creation), then returns the spring's force."""
    state = {"armed": False}

    def force(t, b1, b2):
        if state["armed"]:
            state["armed"] = False
            during_step()
        f = -50.0 * (b2["x"] - [1.0, 0, 0])
        return np.r_[np.zeros(6), f, np.zeros(3)]

    m = liedyn.Model(SPRING)
    m.add_force(force, None, "mass")
    return m, state


def test_views_keep_the_state_alive_and_a_second_init_is_refused():
    m = liedyn.Model(HINGE)
    it = liedyn.Integrator(m)
    q, v = it.q, it.v
    assert q.base is it and not q.flags.writeable
    with pytest.raises(RuntimeError, match="already initialized"):
        it.__init__(m)
    with pytest.raises(RuntimeError, match="already initialized"):
        it.__init__(liedyn.Model(SPRING))
    it.system.set_control(0, 1.0)
    it.restart()
    assert it.advance(0.1)
    assert np.array_equal(q, it.q) and np.array_equal(v, it.v) and np.any(v != 0.0)
    last = q.copy()
    del it
    gc.collect()
    assert np.array_equal(q, last)  # the view keeps the Integrator and its state alive


def test_reinit_from_a_force_callback_is_refused():
    holder = []
    m, state = spring_model(lambda: holder[0].__init__(m))
    it = liedyn.Integrator(m)
    holder.append(it)
    q = it.q
    state["armed"] = True
    with pytest.raises(RuntimeError, match="already initialized"):
        it.step(1e-3)
    assert np.isfinite(q).all() and it.step(1e-3)


def test_a_controller_cannot_replace_itself_while_it_runs():
    it = liedyn.Integrator(liedyn.Model(HINGE))

    def law(t, q, v, sensors):
        it.set_controller(0.05, None)
        return [0.0]

    it.set_controller(0.05, law)
    with pytest.raises(RuntimeError, match="busy"):
        it.advance_to(0.2)
    it.set_controller(0.05, None)  # outside a step it may
    assert it.advance_to(0.2)


def test_no_second_step_on_the_same_system_inside_a_callback():
    holder = []
    m, state = spring_model(lambda: holder[0].step(1e-3))
    s = m.compile()
    it = liedyn.Integrator(s)
    other = liedyn.Integrator(s)
    holder.append(other)
    state["armed"] = True
    with pytest.raises(RuntimeError, match="System is in use"):
        it.step(1e-3)
    holder[0] = it  # the integrator itself: busy
    state["armed"] = True
    with pytest.raises(RuntimeError, match="busy"):
        it.step(1e-3)
    assert other.step(1e-3) and it.step(1e-3)


def test_no_new_integrator_on_a_system_in_use():
    holder = []
    m, state = spring_model(lambda: liedyn.Integrator(holder[0], "hht"))
    s = m.compile()
    holder.append(s)
    it = liedyn.Integrator(s)
    state["armed"] = True
    with pytest.raises(RuntimeError, match="System is in use"):
        it.advance(1e-3)
    assert liedyn.Integrator(s, "hht").step(1e-3)


def test_restart_and_linearize_hold_the_system_too():
    holder = []
    m, state = spring_model(lambda: holder[0].step(1e-3))
    s = m.compile()
    it = liedyn.Integrator(s)
    holder.append(liedyn.Integrator(s))
    state["armed"] = True
    with pytest.raises(RuntimeError, match="System is in use"):
        it.restart()
    state["armed"] = True
    with pytest.raises(RuntimeError, match="System is in use"):
        liedyn.linearize(s, static=False)
    assert it.step(1e-3)


def test_set_controller_refusals_name_the_reason():
    it = liedyn.Integrator(liedyn.Model(HINGE))
    with pytest.raises(liedyn.Error, match="positive and finite, not inf"):
        it.set_controller(float("inf"), lambda *a: [0.0])
    with pytest.raises(liedyn.Error, match="positive and finite, not -0.5"):
        it.set_controller(-0.5, lambda *a: [0.0])
    it2 = liedyn.Integrator(liedyn.Model(SPRING))
    with pytest.raises(liedyn.Error, match="no actuator"):
        it2.set_controller(0.1, lambda *a: [0.0])


def test_run_reads_its_own_copy_of_the_output_times():
    """A callback that changes the caller's array of output times while the run reads it does
    not change the rows (run copies the times before the loop)."""
    times = np.linspace(0.0, 0.1, 11)
    want = times.copy()

    def force(t, b1, b2):
        times[:] = 0.05
        return np.zeros(12)

    m = liedyn.Model(SPRING)
    m.add_force(force, None, "mass")
    r = liedyn.run(m, t_end=0.1, times=times)
    assert np.array_equal(r.t, want)


def test_an_init_cannot_start_inside_an_init():
    """Python code that runs while an Integrator initializes (here t0's __float__) cannot
    initialize it too (the outer one would overwrite, and leak, the inner one's state)."""
    it = liedyn.Integrator.__new__(liedyn.Integrator)
    seen = []

    class T0:
        def __float__(self):
            try:
                it.__init__(liedyn.Model(HINGE))
            except RuntimeError as e:
                seen.append(str(e))
            return 0.0

    it.__init__(liedyn.Model(HINGE), t0=T0())
    assert len(seen) == 1 and "already initialized" in seen[0]
    assert it.t == 0.0 and it.step(1e-2)

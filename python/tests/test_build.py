"""Models built in Python: add_body, add_joint, add_element, assemble."""

import math

import numpy as np
import pytest

import liedyn

LINK = [1.0e-4, 0.0833333333333333, 0.0833333333333333]


def double_pendulum():
    m = liedyn.Model(name="double-pendulum-damped")
    m.gravity = [0, -9.81, 0]
    m.add_body("link1", mass=1.0, inertia=LINK, position=[0.5, 0, 0])
    m.add_body("link2", mass=1.0, inertia=LINK, position=[1.5, 0, 0])
    m.add_joint("revolute", "ground", "link1", point=[0, 0, 0], axis=[0, 0, 1], name="shoulder")
    m.add_joint("revolute", "link1", "link2", point=[1, 0, 0], axis=[0, 0, 1], name="elbow")
    m.add_element("rotational-spring-damper", "ground", "link1", name="shoulder-damper",
                  c=0.05, axis=[0, 0, 1])
    m.add_element("rotational-spring-damper", "link1", "link2", name="elbow-damper",
                  c=0.05, axis=np.array([0, 0, 1.0]))
    return m


def test_double_pendulum_equals_the_yaml_model():
    built = double_pendulum()
    shipped = liedyn.Model("double-pendulum-damped")
    opts = dict(integrator="genalpha", dt=1e-3, t_end=0.5, formulation="so3xr3", rho_inf=0.9)
    a, b = liedyn.run(built, **opts), liedyn.run(shipped, **opts)
    for name in ("link1", "link2"):
        assert np.array_equal(a.bodies[name].x, b.bodies[name].x)
        assert np.array_equal(a.bodies[name].q, b.bodies[name].q)
    assert np.array_equal(a.energy, b.energy)
    assert a.bodies["link2"].x[-1, 1] < -0.5  # it fell
    assert list(built.elements) == ["shoulder-damper", "elbow-damper"]
    assert built.joints["elbow"].type == "revolute"


def test_copy_replays_the_items():
    m = double_pendulum()
    m.bodies["link2"].mass = 2.0
    c = m.copy()
    assert list(c.bodies) == ["link1", "link2"] and c.bodies["link2"].mass == 2.0
    assert list(c.elements) == list(m.elements)


def four_bar():
    """The shipped four-bar (crank 0.3 m, coupler 1.1 m, rocker 0.7 m, ground 1 m) from its
    joints in the frame form: no body placed by hand."""
    m = liedyn.Model(name="four-bar")
    m.gravity = [0, -9.81, 0]
    for name, length in (("crank", 0.3), ("coupler", 1.1), ("rocker", 0.7)):
        m.add_body(name, mass=length, inertia=[0.5 * length * 0.015**2,
                                                length * (3 * 0.015**2 + length**2) / 12,
                                                length * (3 * 0.015**2 + length**2) / 12])
    m.add_joint("revolute", "ground", "crank", name="A", frame1={"at": [0, 0, 0]},
                frame2={"at": [-0.15, 0, 0]}, angle=math.pi / 2, hold=True, angle_rate=2 * math.pi)
    m.add_joint("revolute", "crank", "coupler", name="B", frame1={"at": [0.15, 0, 0]},
                frame2={"at": [-0.55, 0, 0]}, angle=-1.2)
    m.add_joint("revolute", "coupler", "rocker", name="C", frame1={"at": [0.55, 0, 0]},
                frame2={"at": [0.35, 0, 0]}, angle=2.0)
    m.add_joint("revolute", "ground", "rocker", name="D", frame1={"at": [1, 0, 0]},
                frame2={"at": [-0.35, 0, 0]})
    m.assemble()
    return m


def test_four_bar_assembles_and_runs():
    m = four_bar()
    shipped = liedyn.Model("four-bar")
    for name in ("crank", "coupler", "rocker"):  # the open assembly of the shipped model
        np.testing.assert_allclose(m.bodies[name].x, shipped.bodies[name].x, atol=1e-9)
    r = liedyn.run(m, integrator="genalpha", dt=1e-3, t_end=0.5, formulation="so3xr3")
    np.testing.assert_allclose(r.bodies["crank"].x[0], [0, 0.15, 0], atol=1e-12)
    assert r.stats["steps"] == 500
    # the loop stays closed: C of the coupler and of the rocker coincide
    R = liedyn.quat.to_mat(r.bodies["coupler"].q)
    Rr = liedyn.quat.to_mat(r.bodies["rocker"].q)
    c1 = r.bodies["coupler"].x + R @ [0.55, 0, 0]
    c2 = r.bodies["rocker"].x + Rr @ [0.35, 0, 0]
    assert np.abs(c1 - c2).max() < 1e-8


def test_bad_items_raise_and_leave_the_model():
    m = double_pendulum()
    with pytest.raises(ValueError, match=r"^bodies\[2\]\.mass: must be positive") as e:
        m.add_body("link3", mass=-1.0, inertia=LINK, position=[2.5, 0, 0])
    assert e.value.item == "bodies[2].mass"
    with pytest.raises(ValueError, match=r"joints\[2\]\.body2: no body named 'link9'"):
        m.add_joint("revolute", "link2", "link9", point=[2, 0, 0], axis=[0, 0, 1])
    with pytest.raises(ValueError, match=r"joints\[2\]\.type: expected one of spherical, .*hinge"):
        m.add_joint("hinge", "link1", "link2", point=[2, 0, 0], axis=[0, 0, 1])
    with pytest.raises(ValueError, match=r"elements\[2\]\.c"):
        m.add_element("rotational-spring-damper", "link1", "link2", c=-1.0, axis=[0, 0, 1])
    with pytest.raises(ValueError, match=r"bodies\[2\]\.name.*link1"):
        m.add_body("link1", mass=1.0, inertia=LINK, position=[2.5, 0, 0])
    with pytest.raises(TypeError, match="not a number"):
        m.add_body("link3", mass=1.0, inertia=LINK, position=object())
    assert list(m.bodies) == ["link1", "link2"] and len(m.joints) == 2 and len(m.elements) == 2
    r = liedyn.run(m, integrator="genalpha", dt=1e-3, t_end=0.01)
    assert r.stats["steps"] == 10
    u = liedyn.Model()
    u.add_body("a", 1.0, [1, 1, 1])
    u.add_body("b", 1.0, [1, 1, 1])
    u.add_joint("revolute", "ground", "b", frame1={}, frame2={})
    with pytest.raises(ValueError, match=r"bodies\[0\]"):  # nothing places body a
        u.assemble()

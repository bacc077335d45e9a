"""Editing a model in place (Model.set, the records' setters, gravity), copies, run(overrides=),
and URDF / MJCF import from Python: edits checked against the physics they change."""
import math
import os

import numpy as np
import pytest

import liedyn
from conftest import source_path

PENDULUM = """
name: pendulum
gravity: [0, -9.81, 0]
bodies:
  - {name: bob, mass: 1, inertia: [1e-9, 1e-9, 1e-9], position: [1, 0, 0]}
joints:
  - {name: pivot, type: revolute, body1: ground, body2: bob, at: [0, 0, 0], axis: [0, 0, 1]}
integrator: {name: genalpha, formulation: so3xr3, dt: 1.0e-3, t_end: 4.0, rho_inf: 0.9}
"""


def agm(a, b):
    while abs(a - b) > 1e-15 * a:
        a, b = 0.5 * (a + b), math.sqrt(a * b)
    return a


def pendulum_period(J, m, g, L, theta0):
    """Exact period of a rigid pendulum from rest at theta0: 4 sqrt(J/(m g L)) K(sin(theta0/2)),
    J the moment of inertia about the pivot, K(k) = pi / (2 AGM(1, sqrt(1 - k^2)))."""
    k = math.sin(theta0 / 2)
    return 4 * math.sqrt(J / (m * g * L)) * math.pi / (2 * agm(1.0, math.sqrt(1 - k * k)))


def crossings(t, y, level):
    """Times where y crosses level (linear interpolation between rows)."""
    s = y - level
    i = np.nonzero(s[:-1] * s[1:] < 0)[0]
    return t[i] - s[i] * (t[i + 1] - t[i]) / (s[i + 1] - s[i])


def swing_period(r):
    """The pendulum's period: from rest at 90 degrees its angle passes -90 degrees (the bottom)
    every half period."""
    c = crossings(r.t, r.joints["pivot"].angle, -math.pi / 2)
    assert len(c) >= 3
    return 2 * np.mean(np.diff(c))


@pytest.mark.parametrize("edits", [
    {},
    {"bodies.bob.inertia": [0.5, 0.5, 0.5]},
    {"bodies.bob.inertia": [0.5, 0.5, 0.5], "bodies.bob.mass": 2.0},
    {"gravity": [0, -4.0, 0]},
])
def test_pendulum_period_follows_edits(edits):
    m = liedyn.Model(PENDULUM)
    for k, v in edits.items():
        m.set(k, v)
    mass = m.bodies["bob"].mass
    Izz = m.bodies["bob"].inertia[2, 2]
    g = -m.gravity[1]
    expect = pendulum_period(Izz + mass * 1.0, mass, g, 1.0, math.pi / 2)
    r = liedyn.run(m, every=1, t_end=1.6 * expect)
    assert swing_period(r) == pytest.approx(expect, rel=2e-5)


def test_record_setters_edit_the_model():
    m = liedyn.Model(PENDULUM)
    b = m.bodies["bob"]
    b.mass = 3.0
    b.inertia = [[0.2, 0, 0], [0, 0.3, 0], [0, 0, 0.4]]
    assert b.mass == 3.0 and m.bodies["bob"].mass == 3.0
    assert np.array_equal(m.bodies["bob"].inertia, np.diag([0.2, 0.3, 0.4]))
    b.inertia = [1, 2, 3, 0.1, 0.2, 0.3]  # Jxx Jyy Jzz Jxy Jyz Jxz as in the YAML file
    y = liedyn.Model(PENDULUM.replace("inertia: [1e-9, 1e-9, 1e-9]",
                                      "inertia: [1, 2, 3, 0.1, 0.2, 0.3]"))
    assert np.array_equal(m.bodies["bob"].inertia, y.bodies["bob"].inertia)
    I = m.bodies["bob"].inertia
    assert I[0, 1] == I[1, 0] == 0.1 and I[1, 2] == I[2, 1] == 0.2 and I[0, 2] == 0.3
    m.gravity = [0, 0, -1.5]
    assert list(m.gravity) == [0, 0, -1.5]


def spring_period(r, l0):
    c = crossings(r.t, r.bodies["mass"].x[:, 0], l0)
    assert len(c) >= 3
    return 2 * np.mean(np.diff(c))


def test_spring_frequency_after_editing_k_and_mass():
    m = liedyn.Model("mass-spring")
    e = m.elements["spring"]
    assert (e.k, e.c, e.l0) == (50.0, 0.8, 1.0)
    e.c = 0.0
    before = spring_period(liedyn.run(m, dt=1e-4, every=1, t_end=3.0), 1.0)
    assert before == pytest.approx(2 * math.pi * math.sqrt(2.0 / 50.0), rel=1e-5)
    e.k = 200.0
    assert e.k == 200.0 and e.par[6] == 200.0
    m.bodies["mass"].mass = 0.5
    after = spring_period(liedyn.run(m, dt=1e-4, every=1, t_end=1.0), 1.0)
    assert after == pytest.approx(2 * math.pi * math.sqrt(0.5 / 200.0), rel=1e-5)


def test_run_overrides_edit_a_copy():
    m = liedyn.Model("mass-spring")
    over = {"elements.spring.c": 0.0, "elements.spring.k": 800.0, "bodies.mass.mass": 0.5}
    r = liedyn.run(m, dt=1e-4, every=1, t_end=0.5, overrides=over)
    assert spring_period(r, 1.0) == pytest.approx(2 * math.pi * math.sqrt(0.5 / 800.0), rel=1e-5)
    assert m.elements["spring"].k == 50.0 and m.bodies["mass"].mass == 2.0  # untouched
    r2 = liedyn.run("mass-spring", dt=1e-4, every=1, t_end=0.5, overrides=over)  # by name
    assert np.array_equal(r.bodies["mass"].x, r2.bodies["mass"].x)


def test_copy_replays_edits():
    m = liedyn.Model("mass-spring")
    m.elements["spring"].k = 75.0
    m.gravity = [0, -1, 0]
    c = m.copy()
    assert c.elements["spring"].k == 75.0 and list(c.gravity) == [0, -1, 0]
    c.elements["spring"].k = 10.0
    assert m.elements["spring"].k == 75.0


def yaml_error(text):
    with pytest.raises(liedyn.Error) as e:
        liedyn.Model.from_yaml(text)
    return str(e.value).split(": ", 2)[2]  # FILE:LINE: ITEM: REASON -> REASON


@pytest.mark.parametrize("key,value,yaml_old,yaml_new", [
    ("bodies.bob.inertia", [1, -1, 1], "inertia: [1e-9, 1e-9, 1e-9]", "inertia: [1, -1, 1]"),
    ("bodies.bob.inertia", [[1, 2, 0], [2, 1, 0], [0, 0, 1]], "inertia: [1e-9, 1e-9, 1e-9]",
     "inertia: [1, 2, 0, 2, 1, 0, 0, 0, 1]"),
    ("bodies.bob.inertia", [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]], "inertia: [1e-9, 1e-9, 1e-9]",
     "inertia: [1, 0.5, 0, 0, 1, 0, 0, 0, 1]"),
    ("bodies.bob.mass", 0.0, "mass: 1,", "mass: 0,"),
    ("bodies.bob.mass", -2.0, "mass: 1,", "mass: -2,"),
])
def test_invalid_edits_raise_the_readers_reason(key, value, yaml_old, yaml_new):
    m = liedyn.Model(PENDULUM)
    before = (m.bodies["bob"].mass, m.bodies["bob"].inertia)
    with pytest.raises(ValueError) as e:
        m.set(key, value)
    reason = yaml_error(PENDULUM.replace(yaml_old, yaml_new))
    assert str(e.value) == f"bodies[0].{key.split('.')[-1]}: {reason}"
    assert e.value.item == f"bodies[0].{key.split('.')[-1]}"
    assert m.bodies["bob"].mass == before[0]  # unchanged
    assert np.array_equal(m.bodies["bob"].inertia, before[1])


def test_invalid_element_edit():
    m = liedyn.Model("mass-spring")
    with pytest.raises(ValueError, match=r"elements\[0\].k: must be finite and >= 0, found -1"):
        m.elements["spring"].k = -1
    assert m.elements["spring"].k == 50.0
    with pytest.raises(AttributeError, match="editable: k, c, l0, f0"):
        m.elements["spring"].at1 = [0, 0, 0]
    with pytest.raises(AttributeError, match="editable: mass, inertia"):
        m.bodies["mass"].x = [0, 0, 0]
    with pytest.raises(KeyError):
        m.set("elements.nothing.k", 1)
    with pytest.raises(KeyError):
        m.set("bodies.nothing.mass", 1)
    with pytest.raises(KeyError):
        m.set("joints.slide.axis", [0, 1, 0])
    with pytest.raises(ValueError, match="expected 3 principal moments"):
        m.bodies["mass"].inertia = [1, 2]
    with pytest.raises(ValueError):
        m.gravity = [0, float("nan"), 0]


def test_no_edit_while_compiled():
    m = liedyn.Model("mass-spring")
    s = m.compile()
    with pytest.raises(RuntimeError, match="live Systems"):
        m.elements["spring"].k = 10
    c = m.copy()  # a copy can be edited
    c.elements["spring"].k = 10
    del s
    m.elements["spring"].k = 10
    assert m.elements["spring"].k == 10


def test_user_forces_are_not_copied():
    m = liedyn.Model("mass-spring")
    m.add_force(lambda t, b1, b2: np.zeros(12), "mass")
    with pytest.raises(ValueError, match="user forces"):
        m.copy()


# ---------------------------------------------------------------- URDF / MJCF import

DATA = source_path("tests", "data", "import")


def test_urdf_import_matches_the_yaml_model():
    path = os.path.join(DATA, "double-pendulum.urdf")
    u = liedyn.Model.from_urdf(path)
    assert liedyn.Model(path).bodies.keys() == u.bodies.keys() == {"upper", "lower"}
    assert u.bodies["upper"].mass == 1.0 and u.bodies["lower"].mass == 0.5
    assert u.import_report["format"] == "urdf" and u.import_report["merged"] == 1
    # the elbow's position limits are reported, with their line in the file
    lim = [w for w in u.import_warnings if "position limits" in w.message]
    assert len(lim) == 1 and lim[0].line > 0 and lim[0].severity == "dynamics"
    assert str(lim[0]).startswith(f"{path}:{lim[0].line}: ")
    y = liedyn.Model(os.path.join(DATA, "double-pendulum.yaml"))
    ru = liedyn.run(u, "genalpha", 1e-3, 1.0)
    ry = liedyn.run(y, "genalpha", 1e-3, 1.0)
    np.testing.assert_allclose(ru.bodies["lower"].x, ry.bodies["lower"].x, atol=1e-9)


def test_import_options():
    path = os.path.join(DATA, "double-pendulum.urdf")
    plain = liedyn.Model.from_urdf(path)
    lim = liedyn.Model.from_urdf(path, limits=True)
    assert any("position limits" in w.message for w in plain.import_warnings)
    assert any("position limits" in w.message and "not enforced" in w.message
               for w in plain.import_warnings)
    assert any("written as joint limits" in w.message for w in lim.import_warnings)
    assert [str(w) for w in liedyn.Model(path, limits=True).import_warnings] == \
        [str(w) for w in lim.import_warnings]
    with pytest.raises(TypeError, match="unknown import option"):
        liedyn.Model(path, limit=True)
    with pytest.raises(TypeError, match="for URDF and MJCF files only"):
        liedyn.Model("mass-spring", limits=True)
    mj = os.path.join(DATA, "double-pendulum.xml")
    x = liedyn.Model.from_mjcf(mj)
    assert x.import_report["format"] == "mjcf" and x.bodies.keys() == {"upper", "lower"}
    assert liedyn.Model(mj).bodies.keys() == x.bodies.keys()
    with pytest.raises(ValueError, match="aux_mass_ratio"):
        liedyn.Model.from_mjcf(mj, aux_mass_ratio=0)


def test_mjcf_include_warnings_name_their_file():
    m = liedyn.Model(os.path.join(DATA, "include", "arm.xml"))
    assert m.bodies.keys() == {"upper", "fore"} and len(m.elements) == 4
    links = os.path.join(DATA, "include", "arm-links.xml")
    rng = [w for w in m.import_warnings if "ranges of 1 joint" in w.message]
    assert len(rng) == 1 and rng[0].file == links and rng[0].line == 7
    assert str(rng[0]).startswith(f"{links}:7: joint: ")
    assert m.import_report["file"] == os.path.join(DATA, "include", "arm.xml")


def test_mjcf_contact_option():
    path = os.path.join(DATA, "ball-floor.xml")
    plain = liedyn.Model.from_mjcf(path)
    touch = liedyn.Model.from_mjcf(path, contact=True)
    assert plain.run_spec["integrator"] == "genalpha"
    assert touch.run_spec["integrator"] == "moreau"
    with pytest.raises(Exception, match="contact"):  # its shapes collide: only moreau
        liedyn.run(touch, "genalpha", 1e-3, 0.01)
    assert liedyn.run(touch, "moreau", 1e-3, 0.01).status == "ok"


def test_imported_model_edit_and_copy():
    u = liedyn.Model.from_urdf(os.path.join(DATA, "double-pendulum.urdf"), fixed_base=True)
    u.bodies["lower"].mass = 2.0
    c = u.copy()
    assert c.bodies["lower"].mass == 2.0 and c.import_report == u.import_report
    assert [str(w) for w in c.import_warnings] == [str(w) for w in u.import_warnings]


def test_import_errors(tmp_path):
    bad = tmp_path / "bad.urdf"
    bad.write_text('<robot name="r">\n  <link name="a"/>\n  <joint name="j" type="revolute">\n'
                   '    <parent link="a"/>\n    <child link="nowhere"/>\n  </joint>\n</robot>\n')
    with pytest.raises(liedyn.Error) as e:
        liedyn.Model.from_urdf(bad)
    assert e.value.file == str(bad) and e.value.line > 0 and "nowhere" in str(e.value)
    with pytest.raises(liedyn.Error):
        liedyn.Model.from_urdf(tmp_path / "missing.urdf")


ROTOR = """
name: rotor
gravity: [0, 0, 0]
bodies:
  - {name: disc, mass: 1, inertia: [0.25, 0.25, 0.5], position: [0, 0, 0],
     angular_velocity: [0, 0, 1]}
joints:
  - {name: axle, type: revolute, body1: ground, body2: disc, at: [0, 0, 0], axis: [0, 0, 1]}
elements:
  - {name: torsion, type: rotational-spring-damper, body1: ground, body2: disc, k: 1,
     axis: [0, 0, 1]}
integrator: {name: genalpha, formulation: so3xr3, dt: 1.0e-4, t_end: 3.0, rho_inf: 0.9}
"""


def test_rotational_spring_frequency_after_editing_k():
    """A disc on an axle with a torsion spring: omega = sqrt(k / J), J = 0.5 kg m^2."""
    m = liedyn.Model(ROTOR)
    assert m.elements["torsion"].k == 1.0
    for k in (2.0, 8.0):
        m.elements["torsion"].k = k
        T = 2 * math.pi * math.sqrt(0.5 / k)
        r = liedyn.run(m, every=1, t_end=1.6 * T)
        c = crossings(r.t, r.joints["axle"].angle, 0.0)
        assert len(c) == 3 and 2 * np.mean(np.diff(c)) == pytest.approx(T, rel=1e-5)
    with pytest.raises(ValueError, match=r"elements\[0\].c: must be"):
        m.elements["torsion"].c = -0.1


BUSHING = """
name: bushed
gravity: [0, 0, 0]
bodies:
  - {name: box, mass: 2, inertia: [0.1, 0.1, 0.1], position: [0, 0, 0], velocity: [0.1, 0, 0]}
elements:
  - {name: mount, type: bushing, body1: ground, body2: box, at: [0, 0, 0],
     stiffness: [50, 50, 50, 50, 50, 50]}
integrator: {name: genalpha, formulation: so3xr3, dt: 1.0e-4, t_end: 2.0, rho_inf: 0.9}
"""


def test_bushing_stiffness_edit():
    """A free box on a bushing at its centre: x oscillates at sqrt(K / m)."""
    m = liedyn.Model(BUSHING)
    assert np.array_equal(m.elements["mount"].stiffness, 50 * np.eye(6))
    m.elements["mount"].stiffness = [200.0] * 6
    assert np.array_equal(m.elements["mount"].stiffness, 200 * np.eye(6))
    r = liedyn.run(m, every=1)
    c = crossings(r.t, r.bodies["box"].x[:, 0], 0.0)
    T = 2 * math.pi * math.sqrt(2 / 200.0)
    assert len(c) >= 2 and 2 * np.mean(np.diff(c)) == pytest.approx(T, rel=1e-5)
    K = 200 * np.eye(6)
    K[0, 1] = 1.0  # not symmetric
    with pytest.raises(ValueError) as e:
        m.elements["mount"].stiffness = K
    reason = yaml_error(BUSHING.replace("stiffness: [50, 50, 50, 50, 50, 50]",
                                        f"stiffness: {list(K.ravel())}"))
    assert str(e.value) == f"elements[0].stiffness: {reason}"
    assert np.array_equal(m.elements["mount"].stiffness, 200 * np.eye(6))

"""liedyn.Model: from a file, a shipped name, YAML text and a dict (the same model each way),
its records, compile, and the reader's errors as exceptions with file, line and item."""
import os

import numpy as np
import pytest

import liedyn
from conftest import source_path

HEAVY_TOP = {
    "name": "top-dict",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "top", "mass": 15.0, "inertia": [0.234375, 0.46875, 0.234375],
                "position": [0, 1, 0], "orientation": [1, 0, 0, 0],
                "angular_velocity": [0, 150, -4.61538]}],
    "joints": [{"name": "pivot", "type": "spherical", "body": "top", "point": [0, -1, 0],
                "ground": [0, 0, 0]}],
    "integrator": {"name": "genalpha", "formulation": "so3xr3", "dt": 1e-3, "t_end": 0.2,
                   "rho_inf": 0.9},
}


def test_the_four_sources_give_the_same_model():
    path = source_path("models", "heavy-top.yaml")
    with open(path) as f:
        text = f.read()
    models = [liedyn.Model(path), liedyn.Model("heavy-top"), liedyn.Model(text),
              liedyn.Model.from_dict(HEAVY_TOP), liedyn.Model(HEAVY_TOP)]
    assert models[0].source == path
    for m in models:
        b = m.bodies["top"]
        assert b.mass == 15.0
        assert np.array_equal(np.diag(b.inertia), [0.234375, 0.46875, 0.234375])
        assert np.array_equal(b.x, [0, 1, 0])
        assert np.array_equal(b.omega, [0, 150, -4.61538])
        assert m.joints["pivot"].type == "spherical"
        assert m.joints["pivot"].body1 == "ground"
        assert np.array_equal(m.gravity, [0, 0, -9.81])
    r = [liedyn.run(m, t_end=0.2) for m in (models[0], models[3])]
    assert np.array_equal(r[0].bodies["top"].q, r[1].bodies["top"].q)


def test_elements_and_run_spec():
    m = liedyn.Model("mass-spring")
    e = m.elements["spring"]
    assert e.type == "spring-damper" and e.body1 == "ground" and e.body2 == "mass"
    spec = m.run_spec
    assert spec["integrator"] == "genalpha" and spec["dt"] == 1e-3 and spec["rho_inf"] == 0.9


@pytest.mark.parametrize("form", [f for f in liedyn.formulations() if f != "tree"])
def test_compile_every_formulation(form):
    s = liedyn.Model("heavy-top").compile(formulation=form)
    assert s.formulation == form
    assert s.m == (4 if form == "euler" else 3)
    assert s.q0.shape == (s.nq,) and s.v0.shape == (s.k,)
    assert np.max(np.abs(s.phi(s.q0))) < 1e-14
    x, q, w, v = s.body_state("top", s.q0, s.v0)
    assert np.allclose(x, [0, 1, 0]) and np.allclose(w, [0, 150, -4.61538])
    assert s.row_name(0).startswith("joint 'pivot'")
    e0 = s.energy(s.q0, s.v0)
    assert np.isclose(e0, 0.5 * (0.46875 * 150**2 + 0.234375 * 4.61538**2)
                      + 0.5 * 15 * 4.61538**2 + 15 * 9.81 * 0)


def test_compile_tree():
    # joint coordinates: no constraint, the bodies' state by forward kinematics
    s = liedyn.Model("double-pendulum-damped").compile(formulation="tree")
    m = liedyn.Model("double-pendulum-damped").compile(formulation="so3xr3")
    assert s.formulation == "tree" and s.m == 0 and s.k == 2
    assert np.isclose(s.energy(s.q0, s.v0), m.energy(m.q0, m.v0), rtol=1e-14)
    for a, b in zip(s.body_state("link2", s.q0, s.v0), m.body_state("link2", m.q0, m.v0)):
        assert np.allclose(a, b, rtol=0, atol=1e-14)
    with pytest.raises(Exception, match="spherical"):
        liedyn.Model("heavy-top").compile(formulation="tree")


def test_reader_errors_name_file_line_and_item(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nbodies:\n  - name: b\n    mass: -1\n    inertia: [1, 1, 1]\n"
                   "    position: [0, 0, 0]\n")
    with pytest.raises(liedyn.Error) as e:
        liedyn.Model(str(bad))
    assert str(bad) in str(e.value) and e.value.file == str(bad)
    assert e.value.line == 4 and "mass" in e.value.item
    assert e.value.status < 0
    with pytest.raises(liedyn.Error, match="<dict>"):
        liedyn.Model({"bodies": [{"name": "b", "mass": 1, "inertia": [1, 1]}]})
    with pytest.raises(liedyn.Error, match="neither a model file nor a shipped model"):
        liedyn.Model("no-such-model")
    with pytest.raises(liedyn.Error):
        liedyn.Model("name: x\nbodies: [\n")  # broken YAML
    with pytest.raises(TypeError):
        liedyn.Model(42)
    with pytest.raises(KeyError, match="no body named"):
        liedyn.Model("heavy-top").compile().body_state("nobody", np.zeros(12), np.zeros(6))
    with pytest.raises(ValueError, match="unknown formulation"):
        liedyn.Model("heavy-top").compile(formulation="so4")


def test_compile_errors_are_the_librarys():
    d = dict(HEAVY_TOP)
    d["joints"] = [{"name": "pivot", "type": "spherical", "body1": "ground", "body2": "top",
                    "at": [0, 0.5, 0]}]
    m = liedyn.Model(d)
    s = m.compile()  # the joint is written at the joint point: closed
    assert s.m == 3
    split = dict(HEAVY_TOP, bodies=HEAVY_TOP["bodies"] * 1)
    split["joints"] = [{"name": "pivot", "type": "spherical", "body": "top",
                        "point": [0, -1, 0], "ground": [0, 0, 1]}]
    with pytest.raises(liedyn.Error, match="pivot"):
        liedyn.run(liedyn.Model(split), t_end=0.01)


def test_environment_models_dir(tmp_path, monkeypatch):
    (tmp_path / "mine.yaml").write_text(open(source_path("models", "free-top.yaml")).read())
    monkeypatch.setenv("LIEDYN_MODELS", str(tmp_path))
    assert "mine" in liedyn.models()
    assert liedyn.Model("mine").name == liedyn.Model(os.path.join(str(tmp_path), "mine.yaml")).name

"""liedyn.run: the same numbers as `liedyn run` (its CSV), output every k-th step, dense output
at requested times (exact on the grid, third order between), the result's fields, and errors
for bad arguments and failing steps."""
import csv
import json
import subprocess

import numpy as np
import pytest

import liedyn


def cli_rows(cli, tmp_path, *args):
    out = tmp_path / "out.csv"
    subprocess.run([cli, "run", *args, "--out", str(out), "--quiet"], check=True,
                   capture_output=True)
    with open(out) as f:
        rows = list(csv.reader(f))
    head = rows[0]
    data = np.array([[float(x) for x in r] for r in rows[1:]])
    return {h: data[:, i] for i, h in enumerate(head)}


@pytest.mark.parametrize("method,form", [("genalpha", "so3xr3"), ("hht", "se3"),
                                         ("hem5", "s3sdr3"), ("hht-modified", "s3xr3")])
def test_same_as_the_cli(cli, tmp_path, method, form):
    c = cli_rows(cli, tmp_path, "heavy-top", "--integrator", method, "--formulation", form,
                 "--dt", "2e-3", "--t-end", "0.3")
    r = liedyn.run("heavy-top", integrator=method, formulation=form, dt=2e-3, t_end=0.3)
    top = r.bodies["top"]
    assert np.array_equal(r.t, c["t"])
    for k, col in enumerate("xyz"):
        assert np.array_equal(top.x[:, k], c[f"top.{col}"])
        assert np.array_equal(top.omega[:, k], c[f"top.w{col}"])
        assert np.array_equal(top.v[:, k], c[f"top.v{col}"])
    for k, col in enumerate("wxyz"):
        assert np.array_equal(top.q[:, k], c[f"top.q{col}"])
    assert np.array_equal(r.energy, c["energy"])
    assert np.array_equal(r.constraint_residual, c["constraint_residual"])
    assert r.stats["steps"] == 150 and r.integrator == method and r.formulation == form


REACTION = ["fx", "fy", "fz", "tx", "ty", "tz"]


def test_joints_as_the_cli(cli, tmp_path):
    """The joints' coordinates, rates and reactions: the CLI's columns bit for bit, angles
    unwrapped."""
    c = cli_rows(cli, tmp_path, "double-pendulum-damped", "--t-end", "3")
    r = liedyn.run("double-pendulum-damped", t_end=3.0)
    assert sorted(r.joints) == ["elbow", "shoulder"]
    for name, j in r.joints.items():
        assert j.names == ["angle", "angle_rate"] + REACTION
        for k in j.names:
            assert np.array_equal(j[k], c[f"{name}.{k}"]), (name, k)
    assert np.abs(r.joints["shoulder"].fy).max() > 1.0  # the links' weight, not zeros
    w = r.bodies["link2"].omega[:, 2] - r.bodies["link1"].omega[:, 2]
    assert np.allclose(r.joints["elbow"].angle_rate, w, rtol=0, atol=1e-12)
    heavy = liedyn.run("heavy-top", t_end=0.05)
    assert heavy.joints["pivot"].names == ["rx", "ry", "rz", "wx", "wy", "wz"] + REACTION
    assert np.array_equal(heavy.joints["pivot"].rx[0], 0.0)


def test_reactions_as_the_cli_at_requested_times(cli, tmp_path):
    """Dense output: the reactions from the multipliers interpolated linearly between the
    steps, as the CLI's --output-dt rows (a closed loop: the slider-crank's four joints)."""
    c = cli_rows(cli, tmp_path, "crank-v8", "--t-end", "0.05", "--output-dt", "0.0037")
    r = liedyn.run("crank-v8", t_end=0.05, times=c["t"])
    assert len(r.joints) >= 3
    for name, j in r.joints.items():
        for k in REACTION:
            assert np.allclose(j[k], c[f"{name}.{k}"], rtol=1e-12, atol=1e-9), (name, k)


def test_drift_as_the_cli(cli):
    """The CLI's drift checks: genalpha on Euler parameters at twice the heavy top's step
    leaves its velocity constraints; the result says so as `liedyn run` does and ends at the
    same step; constraint_tol=0 turns the checks off."""
    args = ["--integrator", "genalpha", "--formulation", "euler", "--dt", "2e-3", "--t-end", "0.3"]
    p = subprocess.run([cli, "run", "heavy-top", *args, "--json"], capture_output=True, text=True)
    assert p.returncode == 6
    d = json.loads(p.stdout)
    r = liedyn.run("heavy-top", "genalpha", 2e-3, 0.3, formulation="euler")
    assert r.status == d["status"] == "drifted"
    what = d["error"].split("; rerun with")[0]
    assert r.message.startswith(what + "; rerun with")
    assert "constraint_tol=0" in r.message
    assert r.t[-1] == d["t"] < 0.3
    assert r.stats["constraint_tol"] == d["constraint_tol"]
    assert r.stats["velocity_residual_max"] == d["velocity_residual"]
    off = liedyn.run("heavy-top", "genalpha", 2e-3, 0.3, formulation="euler", constraint_tol=0)
    assert off.status == "ok" and off.message == "" and off.t[-1] == 0.3
    ok = liedyn.run("heavy-top", t_end=0.05)
    assert ok.status == "ok" and ok.stats["constraint_tol"] == pytest.approx(1e-6)
    with pytest.raises(ValueError, match="constraint_tol"):
        liedyn.run("heavy-top", t_end=0.05, constraint_tol=-1)


def test_energy_drift_from_rest(cli):
    """The simple pendulum starts at rest at zero potential: its energy drift relative to the
    largest energy term met (the potential at the bottom, about -9.81 J) is defined, and the
    CLI's."""
    p = subprocess.run([cli, "run", "simple-pendulum", "--t-end", "0.5", "--dt", "1e-3",
                        "--json"], capture_output=True, text=True, check=True)
    d = json.loads(p.stdout)
    r = liedyn.run("simple-pendulum", dt=1e-3, t_end=0.5)
    s = r.stats
    assert r.energy[0] == 0.0 and 4.0 < s["energy_scale"] <= 9.81 + 1e-9
    assert s["energy_drift"] == r.energy[-1] - r.energy[0]
    assert np.isfinite(s["energy_drift_rel"])
    assert s["energy_drift_rel"] == d["energy_drift_rel"]
    assert s["energy_scale"] == d["energy_scale"]


def test_a_failure_reads_as_the_clis(cli, tmp_path):
    args = ["--integrator", "genalpha", "--formulation", "euler", "--dt", "2e-3", "--t-end", "0.3",
            "--newton-reuse", "off", "--constraint-tol", "0"]
    p = subprocess.run([cli, "run", "heavy-top", *args, "--quiet"], capture_output=True, text=True)
    assert p.returncode == 3
    why = p.stderr.split("run failed at ")[1].strip()
    with pytest.raises(liedyn.Error) as e:
        liedyn.run("heavy-top", integrator="genalpha", formulation="euler", dt=2e-3, t_end=0.3,
                   newton_reuse=0, constraint_tol=0)
    assert str(e.value).endswith(why)
    assert np.isclose(e.value.result.t[-1], float(why.split(":")[0].split("=")[1]), rtol=1e-9)


def test_every_and_fields():
    r = liedyn.run("heavy-top", dt=1e-3, t_end=0.1, every=10, rho_inf=0.5)
    assert len(r.t) == 11 and np.allclose(r.t, np.linspace(0, 0.1, 11), atol=1e-15)
    full = liedyn.run("heavy-top", dt=1e-3, t_end=0.1, rho_inf=0.5)
    assert np.array_equal(full.bodies["top"].x[::10], r.bodies["top"].x)
    assert r.stats["newton_iterations"] > 0 and r.stats["cpu_s"] >= 0
    assert r.stats["constraint_residual_max"] < 1e-12
    assert abs(r.energy[-1] / r.energy[0] - 1) < 1e-4


def test_cpu_s_is_the_loops_thread():
    """cpu_s counts the thread that ran the steps, not the process: numpy's BLAS workers,
    woken by a parallel product, spin beside it for about 0.1 s (their CPU doubled the cpu_s of
    a short run when it was process time). One thread's CPU time cannot exceed the wall time it
    ran for."""
    a = np.random.default_rng(1).standard_normal((600, 600))
    np.dot(a, a)  # a parallel call where the BLAS has threads
    r = liedyn.run("n-four-bar", t_end=0.05)
    assert 0 < r.stats["cpu_s"] <= r.stats["wall_s"] + 2e-3


def test_dense_output():
    times = np.array([0.0, 0.05, 0.0503, 0.1234567, 0.2])
    r = liedyn.run("heavy-top", dt=1e-3, t_end=0.2, times=times)
    assert np.array_equal(r.t, times)
    grid = liedyn.run("heavy-top", dt=1e-3, t_end=0.2)
    on = [0, 50, 200]
    assert np.array_equal(r.bodies["top"].q[[0, 1, 4]], grid.bodies["top"].q[on])
    # between steps: third order in the step against a fine reference at those times
    ref = liedyn.run("heavy-top", integrator="hem5", dt=1e-5, t_end=0.2, times=times)
    err = []
    for dt in (4e-3, 2e-3):
        coarse = liedyn.run("heavy-top", integrator="hem5", dt=dt, t_end=0.2, times=times)
        e = np.abs(coarse.bodies["top"].x[[2, 3]] - ref.bodies["top"].x[[2, 3]]).max()
        err.append(e)
        # the interpolated state is on the group and keeps the constraint to the curve's error
        assert np.allclose(np.linalg.norm(coarse.bodies["top"].q, axis=1), 1, atol=1e-14)
    assert err[0] / err[1] > 2**2.5, err
    assert np.all(np.isfinite(r.energy)) and r.constraint_residual[2] < 1e-5


def test_bad_arguments():
    with pytest.raises(TypeError):
        liedyn.run("heavy-top", dt="big")
    with pytest.raises(ValueError, match="dt"):
        liedyn.run("heavy-top", dt=-1e-3)
    with pytest.raises(ValueError, match="finite"):
        liedyn.run("heavy-top", dt=float("nan"))
    with pytest.raises(ValueError, match="t_end"):
        liedyn.run("heavy-top", t_end=-1)
    with pytest.raises(ValueError, match="unknown integrator"):
        liedyn.run("heavy-top", integrator="euler-forward")
    with pytest.raises(TypeError, match="unknown integrator option 'rho'"):
        liedyn.run("heavy-top", rho=0.5)
    with pytest.raises(ValueError, match=r"rho_inf: must be in \[0, 1\]"):
        liedyn.run("heavy-top", rho_inf=2)
    with pytest.raises(ValueError, match="ascending"):
        liedyn.run("heavy-top", t_end=0.1, times=[0.05, 0.01])
    with pytest.raises(ValueError, match="not finite"):
        liedyn.run("heavy-top", t_end=0.1, times=[0.05, np.nan])
    with pytest.raises(ValueError, match="every"):
        liedyn.run("heavy-top", t_end=0.1, every=0)
    with pytest.raises(liedyn.Error, match="tb3 cannot run this model"):
        liedyn.run("heavy-top", integrator="tb3", t_end=0.1)
    with pytest.raises(ValueError, match="error estimate"):
        liedyn.run("heavy-top", t_end=0.1, adaptive=1)


def test_failing_step_raises_with_the_rows_so_far():
    with pytest.raises(liedyn.Error) as e:
        liedyn.run("heavy-top", dt=0.05, t_end=2.0, max_iter=1, max_halvings=0)
    assert "heavy-top.yaml" in str(e.value) and "t = 0" in str(e.value)
    assert isinstance(e.value.result, liedyn.Result) and len(e.value.result.t) >= 1


def test_adaptive():
    r = liedyn.run("free-top", integrator="tb3", adaptive=1, error_atol=1e-8, error_rtol=1e-6,
                   t_end=1.0)
    assert r.t[-1] == 1.0 and r.stats["steps"] == len(r.t) - 1
    assert np.all(np.diff(r.t) > 0)

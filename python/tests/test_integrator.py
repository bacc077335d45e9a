"""liedyn.Integrator: a Python loop of steps gives run()'s numbers; the state views; the
statistics; checkpoints continue bit for bit; bad arguments raise."""
import numpy as np
import pytest

import liedyn


def test_loop_of_steps_is_run():
    m = liedyn.Model("heavy-top")
    it = liedyn.Integrator(m, "genalpha", rho_inf=0.8)
    n, dt = 100, 1e-3
    for i in range(1, n + 1):
        assert it.advance_to(i * dt)
    r = liedyn.run(m, "genalpha", dt=dt, t_end=n * dt, rho_inf=0.8)
    x, q, w, v = it.system.body_state("top", it.q, it.v)
    assert np.array_equal(q, r.bodies["top"].q[-1]) and np.array_equal(x, r.bodies["top"].x[-1])
    assert it.stats["steps"] == r.stats["steps"] == n
    assert it.energy == r.energy[-1]


def test_views_and_fields():
    s = liedyn.Model("heavy-top").compile(formulation="s3sdr3")
    it = liedyn.Integrator(s, integrator="hem5")
    q = it.q
    assert q.shape == (s.nq,) and it.v.shape == (s.k,) and it.vdot.shape == (s.k,)
    assert getattr(it, "lambda").shape == (s.m,) and np.array_equal(it.lambda_, getattr(it, "lambda"))
    with pytest.raises(ValueError):
        q[0] = 1.0  # read-only
    before = q.copy()
    assert it.step(1e-3) is True
    assert not np.array_equal(q, before)  # a view: it follows the state
    assert it.t == 1e-3 and it.last_h == 1e-3 and it.method == "hem5" and it.message == ""
    # M v' + g + B^T lambda = 0 at consistent accelerations: the reactions hold the top up
    assert np.linalg.norm(it.lambda_) > 0


def test_checkpoint_continues_bit_for_bit(tmp_path):
    m = liedyn.Model("heavy-top")
    a = liedyn.Integrator(m, "hht")
    for _ in range(20):
        a.advance(1e-3)
    ck = tmp_path / "ck.bin"
    a.save(str(ck), user=b"grid=20")
    for _ in range(30):
        a.advance(1e-3)
    b = liedyn.Integrator(m, "hht")
    assert b.load(str(ck), user_size=7) == b"grid=20"
    assert b.t == pytest.approx(0.02) and b.stats["steps"] == 20
    for _ in range(30):
        b.advance(1e-3)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.v, b.v)
    other = liedyn.Integrator(m, "hht", formulation="se3")
    with pytest.raises(liedyn.Error, match="ck.bin"):
        other.load(str(ck))
    with pytest.raises(liedyn.Error):
        b.load(str(tmp_path / "missing.bin"))


def test_rejected_step_leaves_the_state():
    it = liedyn.Integrator(liedyn.Model("heavy-top"), max_iter=1)
    q = it.q.copy()
    assert it.step(0.05) is False
    assert np.array_equal(it.q, q) and it.message and it.stats["rejected"] == 1
    with pytest.raises(liedyn.Error, match="at t = 0"):
        it.advance(0.05)


def test_bad_arguments():
    m = liedyn.Model("heavy-top")
    with pytest.raises(TypeError, match="Model or a System"):
        liedyn.Integrator(3)
    with pytest.raises(TypeError, match="unknown integrator option"):
        liedyn.Integrator(m, nonsense=1)
    with pytest.raises(ValueError):
        liedyn.Integrator(m, max_iter=-1)
    with pytest.raises(ValueError, match="la"):
        liedyn.Integrator(m, la="gauss")
    it = liedyn.Integrator(m, la="klu")
    for bad in (-1.0, 0.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            it.step(bad)
    with pytest.raises(TypeError):
        it.step("x")
    with pytest.raises(ValueError, match="after t"):
        it.advance_to(0.0)
    with pytest.raises(ValueError, match="adaptive"):
        it.step_adaptive(1.0)
    with pytest.raises(RuntimeError, match="not initialized"):
        liedyn.Integrator.__new__(liedyn.Integrator).q
    with pytest.raises(ValueError, match="nq|shape|vector"):
        m.compile().energy(np.zeros(3), np.zeros(6))
    with pytest.raises(ValueError, match="not finite"):
        m.compile().energy(np.full(12, np.nan), np.zeros(6))


def test_adaptive_steps():
    it = liedyn.Integrator(liedyn.Model("free-top"), "tb3", adaptive=1, error_atol=1e-8)
    n = 0
    while it.t < 0.5:
        it.step_adaptive(0.5)
        n += 1
    assert it.t == 0.5 and it.stats["steps"] == n and np.isfinite(it.last_error)

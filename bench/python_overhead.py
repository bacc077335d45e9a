#!/usr/bin/env python3
"""Overhead of the Python layer (docs/python.md): the same 10^4-step run of the heavy top
(generalized-alpha, dt = 2e-4, t in [0, 2]) timed as
  c_loop         the C library's time: a bare C loop of ld_integ_advance_to (no output)
                 in the same process
  cli_cpu_s      the CLI's own report of CPU seconds in its steps (`liedyn run --json`)
  cli_process    the whole `liedyn run` process (parse, compile, steps, CSV rows to a file)
  run            liedyn.run(...) (steps, a row per step into numpy arrays)
  run_every100   liedyn.run(..., every=100) (rows every 100th step)
  py_advance_to  a Python loop of Integrator.advance_to(t_n) calls
  py_step        a Python loop of Integrator.step(dt) calls
and a user force on the damped oscillator (mass-spring without its spring, 10^4 steps) as a
Python callable and as a C function (ctypes). Then a drag on the heavy top (force -c xdot,
torque -d R omega), per step, Python against its C twin (ld_py_test_drag of
python/tests/cforce.c), alternated rounds, medians of the CPU time of the running thread:
  drag_fd_py / drag_fd_c       the force alone: central differences for the tangent
  drag_tangent_py / _c         with the user's tangent (Python: a tangent= callable)
  drag10_vec_py / drag10_c     ten tops, one vectorized Python call for the ten drags (its
                               tangent too) against ten C forces with their tangents The heavy-top cases are measured in the CPU
time of the thread that runs them (less disturbed by other jobs on the machine than wall time;
not counting a BLAS library's idle workers in other threads), best of interleaved
rounds; the CLI process and the forces in wall time. CSV on stdout: case, steps, seconds (best of
the repeats), us_per_step, ratio to c_loop (for the force: to c_force).
usage: python_overhead.py LIEDYN_CLI   (BENCH_QUICK=1: 1000 steps, one repeat: a smoke run)
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

import liedyn
import numpy as np

QUICK = os.environ.get("BENCH_QUICK") == "1"
STEPS = 1000 if QUICK else 10000
REPEATS = 1 if QUICK else 25
DT = 2e-4
T_END = STEPS * DT


def best(fn, repeats=None):
    times = []
    for _ in range(repeats or REPEATS):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def cli_steps(cli):
    out = []
    for _ in range(min(REPEATS, 5)):
        p = subprocess.run([cli, "run", "heavy-top", "--dt", str(DT), "--t-end", str(T_END),
                            "--json"], check=True, capture_output=True, text=True)
        out.append(json.loads(p.stdout)["cpu_s"])
    return min(out)


def cli_process(cli, tmp):
    args = [cli, "run", "heavy-top", "--dt", str(DT), "--t-end", str(T_END), "--quiet",
            "--out", os.path.join(tmp, "out.csv")]
    return best(lambda: subprocess.run(args, check=True, capture_output=True), 5)


def py_loop(model, use_step):
    it = liedyn.Integrator(model)
    if use_step:
        step = it.step
        for _ in range(STEPS):
            step(DT)
    else:
        adv = it.advance_to
        for n in range(1, STEPS + 1):
            adv(n * DT)


MASS = {
    "name": "user-spring",
    "bodies": [{"name": "mass", "mass": 2.0, "inertia": [1, 1, 1], "position": [1.5, 0, 0],
                "velocity": [0.3, 0, 0]}],
    "joints": [{"name": "slide", "type": "prismatic", "body1": "ground", "body2": "mass",
                "at": [1.5, 0, 0], "axis": [1, 0, 0]}],
    "integrator": {"name": "genalpha", "dt": 1e-3, "rho_inf": 0.9},
}


def force_runs():
    def spring(t, b1, b2):
        return np.r_[np.zeros(6), -50.0 * (b2["x"] - (1.0, 0, 0)) - 0.8 * b2["xdot"], np.zeros(3)]

    n = STEPS // 10  # the callable is slow: fewer steps, reported per step
    mp = liedyn.Model(MASS)
    mp.add_force(spring, None, "mass")
    rows = [("python_force", n, best(lambda: liedyn.run(mp, dt=1e-3, t_end=n * 1e-3), 3))]
    lib = os.environ.get("LIEDYN_PY_CFORCE")
    if lib:
        cl = ctypes.CDLL(lib)
        par = (ctypes.c_double * 5)(50.0, 0.8, 1.0, 0.0, 0.0)
        mc = liedyn.Model(MASS)
        mc.add_c_force(ctypes.cast(cl.ld_py_test_spring, ctypes.c_void_p), None, "mass",
                       user=ctypes.addressof(par), keep=(cl, par))
        rows.append(("c_force", n, best(lambda: liedyn.run(mc, dt=1e-3, t_end=n * 1e-3), 3)))
    return rows


CD, DD = 0.1, 0.01
SCALE = np.r_[-CD, -CD, -CD, -DD, -DD, -DD]
WV0 = np.zeros((12, 12))
WV0[6:9, 9:] = -CD * np.eye(3)
HAT = np.zeros((3, 3, 3))  # hat(o) = sum_k o_k HAT[k], as (9, 3): hat(o).ravel() = HATF @ o
HAT[0, 2, 1], HAT[0, 1, 2], HAT[1, 0, 2], HAT[1, 2, 0], HAT[2, 1, 0], HAT[2, 0, 1] = 1, -1, 1, -1, 1, -1
HATF = HAT.reshape(3, 9).T.copy()


def drag(t, g, top):
    w = np.zeros(12)
    w[6:9] = top["xdot"]
    w[9:] = top["R"] @ top["omega"]
    w[6:] *= SCALE
    return w


T0 = np.zeros((2, 12, 12))  # (Wq, Wv) in one array; Wv's constant part set once
T0[1] = WV0
HATD = DD * HATF


def drag_tangent(t, g, top):
    """Wq = dw/d(dth, dx) with R -> R exp(dth): D R hat(omega); Wv = dw/d(omega, xdot)."""
    R, T = top["R"], T0.copy()
    np.matmul(R, (HATD @ top["omega"]).reshape(3, 3), out=T[0, 9:, 6:9])
    np.multiply(R, -DD, out=T[1, 9:, 6:9])
    return T


def drags(t, g, tops):
    """Vectorized: arrays (n, 3), (n, 3, 3) in, (n, 12) out."""
    w = np.zeros((len(tops["x"]), 12))
    w[:, 6:9] = tops["xdot"]
    w[:, 9:] = np.einsum("nij,nj->ni", tops["R"], tops["omega"])
    w[:, 6:] *= SCALE
    return w


def drags_tangent(t, g, tops):
    R, n = tops["R"], len(tops["x"])
    Wq, Wv = np.zeros((n, 12, 12)), np.repeat(WV0[None], n, axis=0)
    Wq[:, 9:, 6:9] = DD * R @ (tops["omega"] @ HATF.T).reshape(n, 3, 3)
    Wv[:, 9:, 6:9] = -DD * R
    return Wq, Wv


def tops(n):
    """n heavy tops side by side, each on its own pivot."""
    bodies, joints = [], []
    for i in range(n):
        bodies.append({"name": f"top{i}", "mass": 15.0, "inertia": [0.234375, 0.46875, 0.234375],
                       "position": [2.0 * i, 1, 0], "angular_velocity": [0, 150 - i, -4.61538]})
        joints.append({"name": f"pivot{i}", "type": "spherical", "body": f"top{i}",
                       "point": [0, -1, 0], "ground": [2.0 * i, 0, 0]})
    return {"name": "tops", "gravity": [0, 0, -9.81], "bodies": bodies, "joints": joints,
            "integrator": {"name": "genalpha", "dt": DT, "t_end": 1.0, "rho_inf": 0.9}}


def drag_runs():
    """Per step, Python against C, in alternated rounds: medians of the thread's CPU time."""
    lib = os.environ.get("LIEDYN_PY_CFORCE")
    if not lib:
        return []
    cl = ctypes.CDLL(lib)
    par = (ctypes.c_double * 2)(CD, DD)
    fn = ctypes.cast(cl.ld_py_test_drag, ctypes.c_void_p)
    tg = ctypes.cast(cl.ld_py_test_drag_tangent, ctypes.c_void_p)
    keep = (cl, par)

    def c_model(src, bodies, tangent):
        m = liedyn.Model(src)
        for b in bodies:
            m.add_c_force(fn, None, b, user=ctypes.addressof(par), tangent=tg if tangent else None,
                          keep=keep)
        return m

    names = [f"top{i}" for i in range(10)]
    m_fd, m_t, m_v = liedyn.Model("heavy-top"), liedyn.Model("heavy-top"), liedyn.Model(tops(10))
    m_fd.add_force(drag, None, "top")
    m_t.add_force(drag, None, "top", tangent=drag_tangent)
    m_v.add_force(drags, None, names, vectorized=True, tangent=drags_tangent)
    n = max(STEPS // 10, 100)
    cases = [("drag_fd_py", m_fd, n // 4), ("drag_fd_c", c_model("heavy-top", ["top"], False), n),
             ("drag_tangent_py", m_t, n), ("drag_tangent_c", c_model("heavy-top", ["top"], True), n),
             ("drag10_vec_py", m_v, n), ("drag10_c", c_model(tops(10), names, True), n)]
    times = {name: [] for name, _, _ in cases}
    for _ in range(1 if QUICK else 7):
        for name, m, steps in cases:
            t0 = time.thread_time()
            liedyn.run(m, dt=DT, t_end=steps * DT, every=steps)
            times[name].append((time.thread_time() - t0) / steps)
    med = {k: float(np.median(v)) for k, v in times.items()}
    rows = []
    for name, _, steps in cases:
        twin = name.replace("_py", "_c").replace("drag10_vec_c", "drag10_c")
        rows.append((name, steps, med[name] * steps, 1e6 * med[name], med[name] / med[twin]))
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cli = sys.argv[1]
    model = liedyn.Model("heavy-top")
    cases = {  # timed in interleaved rounds (the machine's load shifts), best of the rounds
        "c_loop": lambda: liedyn._liedyn._time_steps(model, DT, T_END),
        "run": lambda: liedyn.run(model, dt=DT, t_end=T_END),
        "run_every100": lambda: liedyn.run(model, dt=DT, t_end=T_END, every=100),
        "py_advance_to": lambda: py_loop(model, False),
        "py_step": lambda: py_loop(model, True),
    }
    best_s = {k: float("inf") for k in cases}
    for _ in range(REPEATS):
        for k, fn in cases.items():
            t0 = time.thread_time()
            inner = fn()
            s = inner if k == "c_loop" else time.thread_time() - t0
            best_s[k] = min(best_s[k], s)
    c = best_s["c_loop"]
    with tempfile.TemporaryDirectory() as tmp:
        rows = [("c_loop", STEPS, c), ("cli_cpu_s", STEPS, cli_steps(cli)),
                ("cli_process", STEPS, cli_process(cli, tmp))]
    rows += [(k, STEPS, best_s[k]) for k in cases if k != "c_loop"]
    print("case,steps,seconds,us_per_step,ratio")
    for name, n, s in rows:
        print(f"{name},{n},{s:.6f},{1e6 * s / n:.3f},{s / c:.3f}")
    frows = force_runs()
    ref = frows[-1][2] / frows[-1][1]
    for name, n, s in frows:
        print(f"{name},{n},{s:.6f},{1e6 * s / n:.3f},{s / n / ref:.3f}")
    for name, n, s, us, ratio in drag_runs():  # ratio: to the C twin
        print(f"{name},{n},{s:.6f},{us:.3f},{ratio:.3f}")
    print(f"# load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Newton matrix reuse on the shipped models: a fresh matrix every iteration (off), one matrix
per step (auto, the default) and one matrix kept across steps (on), side by side.

Every shipped model whose integrator is a Newton method (genalpha, newmark, hht, hht-modified,
tb3) runs with `--newton-reuse off|auto|on`, alternated, REPS times; CSV on stdout:

  model,integrator,la,mode,status,steps,newton_iterations,factorizations,cpu_s,speedup,dx

cpu_s is the median of the runs' own CPU time (the JSON's cpu_s), speedup = cpu_s(off) /
cpu_s(mode), dx the largest difference of a body's position or orientation at the end from the
run with a fresh matrix (the Newton tolerances decide it). The long models run for 0.1 s (the
simple pendulum for 20 s of its 2000).

usage: newton_reuse.py LIEDYN [--smoke]   (--smoke: three models, short runs, one repetition;
exit 1 if a mode fails where off succeeds or a row is missing)
"""
import statistics
import sys

from runjson import arguments, run_json, shipped_models

NEWTON = ("genalpha", "newmark", "hht", "hht-modified", "tb3")
SHORT = {"crank-v8": "0.1", "n-four-bar": "0.1", "n-four-bar-revolute": "0.1", "simple-pendulum": "20"}
SMOKE = {"heavy-top": "0.2", "four-bar": "0.2", "beam-pinned": "0.1"}
MODES = ("off", "auto", "on")


def run(liedyn, model, t_end, mode):
    return run_json(liedyn, model, t_end, "--newton-reuse", mode)


def difference(a, b):
    dx = 0.0
    for x, y in zip(a.get("bodies", []), b.get("bodies", [])):
        for key in ("x", "q"):
            if key in x and key in y:
                dx = max(dx, max(abs(u - v) for u, v in zip(x[key], y[key])))
    return dx


def main():
    liedyn, smoke = arguments(__doc__)
    shipped = shipped_models()
    models = list(SMOKE) if smoke else shipped
    reps = 1 if smoke else 3
    print("model,integrator,la,mode,status,steps,newton_iterations,factorizations,cpu_s,speedup,dx")
    bad = 0
    for model in models:
        t_end = SMOKE[model] if smoke else SHORT.get(model)
        first = run(liedyn, model, t_end, "off")
        if not first or first["integrator"] not in NEWTON:
            continue
        cpu, last = {m: [] for m in MODES}, {}
        for _ in range(reps):
            for mode in MODES:
                d = run(liedyn, model, t_end, mode)
                if d is None:
                    bad += 1
                    continue
                cpu[mode].append(d["cpu_s"])
                last[mode] = d
        for mode in MODES:
            d = last.get(mode)
            if d is None or "off" not in last:
                print(f"{model},{first['integrator']},{first['la']},{mode},missing,,,,,,")
                continue
            if d["status"] != "ok" and last["off"]["status"] == "ok":
                bad += 1
            med, off = statistics.median(cpu[mode]), statistics.median(cpu["off"])
            print(f"{model},{d['integrator']},{d['la']},{mode},{d['status']},{d['steps']},"
                  f"{d['newton_iterations']},{d['factorizations']},{med:.4g},"
                  f"{off / med if med > 0 else float('nan'):.3g},{difference(last['off'], d):.2g}",
                  flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The linear solver `--la auto` picks, against the faster of dense and KLU, on every shipped model
and on the robots and mechanisms of Debian's optional dart-doc and libmujoco-samples that liedyn
imports (those on the machine; the model column holds the file's name).

Every shipped model runs with `--la dense` and `--la klu`, alternated, REPS times; the cost of a
Newton iteration (a step for the methods without Newton iterations) is the run's own CPU time
(the JSON's cpu_s) divided by its iterations, the minimum over the repetitions (the least
disturbed run). CSV on stdout:

  model,integrator,order,entries,auto,dense_us,klu_us,klu_over_dense,auto_over_best,verdict

order and entries are what the choice weighs (the JSON's la_order and la_entries), auto what it
picked. verdict is "ok" when auto's cost is within 10 % of the faster one (the measurements'
own scatter on a shared machine), "slower" otherwise. Models whose order is below the smallest
order at which KLU is considered (32) are listed once, with auto = dense and no timing.

usage: la_choice.py LIEDYN [--smoke]   (--smoke: three models, short runs, one repetition; exit 1
if a row is missing; the verdicts are not enforced there)
"""
import os
import sys

from runjson import arguments, run_json, shipped_models

SHORT = {"crank-v8": "0.05", "n-four-bar": "0.05", "n-four-bar-revolute": "0.05", "iea15-blade": "0.5",
         "andrews-squeezer": "0.003", "simple-pendulum": "20", "woodpecker": "0.05", "bricard": "1",
         "beam-roll-up": "0.3", "spheres-in-box": "0.5", "slider-crank-clearance": "0.5"}
SMOKE = {"four-bar": "0.05", "bricard": "0.05", "beam-roll-up": "0.02"}
CROSSOVER = 32
IMPORTED = {"/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.urdf": "0.2",
            "/usr/share/doc/dart/data/urdf/drchubo/drchubo.urdf": "0.2",
            "/usr/share/doc/dart/data/urdf/wam/wam.urdf": "0.2",
            "/usr/share/doc/dart/data/urdf/KR5/KR5 sixx R650.urdf": "0.2",
            "/usr/share/mujoco/model/humanoid/humanoid.xml": "0.2",
            "/usr/share/mujoco/model/humanoid/22_humanoids.xml": "0.02",
            "/usr/share/mujoco/model/slider_crank/slider_crank.xml": "0.2"}


def run(liedyn, model, t_end, la):
    return run_json(liedyn, model, t_end, *(["--la", la] if la else []))


def per_iteration(d):
    return d["cpu_s"] / max(d["newton_iterations"] or d["steps"], 1)


def main():
    liedyn, smoke = arguments(__doc__)
    shipped = shipped_models()
    models = list(SMOKE) if smoke else shipped + [f for f in IMPORTED if os.path.exists(f)]
    reps = 1 if smoke else 5
    print("model,integrator,order,entries,auto,dense_us,klu_us,klu_over_dense,auto_over_best,verdict")
    bad = missing = 0
    for model in models:
        t_end = SMOKE[model] if smoke else SHORT.get(model, IMPORTED.get(model))
        auto = run(liedyn, model, "1e-9", None)
        if auto is None:
            missing += 1
            print(f"{os.path.basename(model)},,,,missing,,,,,")
            continue
        head = f"{os.path.basename(model)},{auto['integrator']},{auto['la_order']},{auto['la_entries']},{auto['la']}"
        if auto["la_order"] < CROSSOVER:
            print(f"{head},,,,,small")
            continue
        cost = {"dense": [], "klu": []}
        for _ in range(reps):
            for la in cost:
                d = run(liedyn, model, t_end, la)
                if d is not None and d["status"] == "ok":
                    cost[la].append(per_iteration(d))
        if not cost["dense"] or not cost["klu"]:
            missing += 1
            print(f"{head},,,,,missing")
            continue
        dense, klu = min(cost["dense"]), min(cost["klu"])
        ratio = min(cost[auto["la"]]) / min(dense, klu)
        verdict = "ok" if ratio <= 1.10 else "slower"
        bad += verdict != "ok"
        print(f"{head},{dense * 1e6:.2f},{klu * 1e6:.2f},{klu / dense:.2f},{ratio:.2f},{verdict}", flush=True)
    print(f"# {bad} of {len(models)} models where auto is more than 10 % slower than the faster solver")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()

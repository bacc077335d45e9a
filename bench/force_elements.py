#!/usr/bin/python3
"""The cost of a genalpha Newton iteration on models whose force elements dominate, this build
against another: MuJoCo's humanoids (a spring-damper on every hinge, motors), Atlas and the
slider-crank of MuJoCo's samples, two shipped models with springs and servos, and the double
pendulum of the import tests (hinge damping). Models not on the machine (the optional
libmujoco-samples and dart-doc) are left out with a line on stderr.

Each case runs `liedyn run MODEL --json` with both executables, alternated REPS times, with the
model's settings; CSV on stdout:

  model,iterations_before,iterations_after,before_us,after_us,speedup,before_instr,after_instr,instr_speedup

before_us / after_us: the median over the runs of the run's CPU time (the JSON's cpu_s) per
Newton iteration; instr: instructions per Newton iteration inside the genalpha step (valgrind's
callgrind, one run each; empty without valgrind or with --no-callgrind). The iteration counts may
differ by round-off: the two builds' tangents are equal only to round-off.

usage: force_elements.py LIEDYN_AFTER LIEDYN_BEFORE [--smoke] [--no-callgrind]
  (--smoke: the double pendulum alone, short, one repetition, no callgrind)
Exit 1 when a run fails.
"""
import os
import sys

from fused_pass import alternated, ratios
from runjson import two_builds

HERE = os.path.dirname(os.path.abspath(__file__))
MUJOCO = "/usr/share/mujoco/model"
CASES = ((MUJOCO + "/humanoid/humanoid.xml", "0.2"),
         (MUJOCO + "/humanoid/22_humanoids.xml", "0.02"),
         (MUJOCO + "/slider_crank/slider_crank.xml", "0.5"),
         ("/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.urdf", "0.2"),
         (os.path.join(HERE, "..", "models", "double-pendulum-damped.yaml"), "2"),
         (os.path.join(HERE, "..", "models", "two-link-arm-servo.yaml"), "1"),
         (os.path.join(HERE, "..", "tests", "data", "import", "double-pendulum.xml"), "2"))
SMOKE = ((os.path.join(HERE, "..", "tests", "data", "import", "double-pendulum.xml"), "0.05"),)


def main():
    after, before, smoke, callgrind, reps = two_builds(
        __doc__, "model,iterations_before,iterations_after,before_us,after_us,speedup,"
                 "before_instr,after_instr,instr_speedup")
    bad = 0
    for model, t_end in SMOKE if smoke else CASES:
        name = os.path.basename(model)
        if not os.path.exists(model):
            print("force_elements.py: %s not found, left out" % model, file=sys.stderr)
            continue
        cpu, its, failed = alternated(before, after, reps, model, t_end)
        bad += failed
        if not cpu["before"] or not cpu["after"]:
            bad += 1
            print("%s,,,,,,,," % name)
            continue
        cols = ratios(before, after, model, t_end, "auto", cpu, callgrind)
        print("%s,%d,%d,%s" % (name, its["before"], its["after"], cols))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The cost of one genalpha Newton iteration, this build against another (the code before the
fused model pass), on the heavy top (k + m = 9, the small-system path) and the n-four-bar
(971 unknowns, KLU), with the model's Newton setting (one matrix per step) and with full Newton
(a matrix in every iteration).

Each case runs `liedyn run MODEL --json` with both executables, alternated REPS times; CSV on
stdout:

  model,newton,iterations,before_us,after_us,speedup,before_instr,after_instr,instr_speedup

before_us / after_us: the median over the runs of the run's CPU time (the JSON's cpu_s) per
Newton iteration; instr: instructions per Newton iteration inside the genalpha step (valgrind's
callgrind, one run each; empty without valgrind or with --no-callgrind). The two executables must
take the same number of iterations (the fused pass changes no iterate).

usage: fused_pass.py LIEDYN_AFTER LIEDYN_BEFORE [--smoke] [--no-callgrind]
  (--smoke: short runs, one repetition, no callgrind; exit 1 when a run fails or the counts differ)
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from runjson import run_json, two_builds

CASES = (("heavy-top", "2"), ("n-four-bar", "0.1"))
SMOKE = (("heavy-top", "0.05"), ("n-four-bar", "0.005"))
NEWTON = ("auto", "off")


def instructions(liedyn, model, t_end, mode):
    """Instructions per Newton iteration inside ga_step (callgrind), None when unavailable."""
    if not shutil.which("valgrind"):
        return None
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "cg")
        cmd = ["valgrind", "--tool=callgrind", "--toggle-collect=ga_step",
               "--callgrind-out-file=" + out, liedyn, "run", model, "--json", "--t-end", t_end,
               "--newton-reuse", mode]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        d = run_json_text(p.stdout)
        a = subprocess.run(["callgrind_annotate", "--auto=no", out], capture_output=True,
                           text=True).stdout
    total = None
    for line in a.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
    if total is None or not d or not d.get("newton_iterations"):
        return None
    return total / d["newton_iterations"]


def run_json_text(text):
    import json
    try:
        return json.loads(text)
    except ValueError:
        return None


def alternated(before, after, reps, model, t_end, *options):
    """Both builds run MODEL reps times, alternated: ({"before": [...], "after": [...]} of µs
    of CPU per Newton iteration, {build: its iterations}, the number of runs that failed)."""
    cpu, its, failed = {"before": [], "after": []}, {}, 0
    for _ in range(reps):
        for name, exe in (("before", before), ("after", after)):
            d = run_json(exe, model, t_end, *options)
            if not d or d.get("status") != "ok" or not d.get("newton_iterations"):
                failed += 1
                continue
            its[name] = d["newton_iterations"]
            cpu[name].append(d["cpu_s"] / d["newton_iterations"] * 1e6)
    return cpu, its, failed


def ratios(before, after, model, t_end, mode, cpu, callgrind):
    """The CSV columns before_us,after_us,speedup,before_instr,after_instr,instr_speedup of a
    case timed by alternated() (the instructions empty without callgrind)."""
    b, a = statistics.median(cpu["before"]), statistics.median(cpu["after"])
    ib = instructions(before, model, t_end, mode) if callgrind else None
    ia = instructions(after, model, t_end, mode) if callgrind else None
    instr = ("%.0f,%.0f,%.2f" % (ib, ia, ib / ia)) if ib and ia else ",,"
    return "%.2f,%.2f,%.2f,%s" % (b, a, b / a, instr)


def main():
    after, before, smoke, callgrind, reps = two_builds(
        __doc__, "model,newton,iterations,before_us,after_us,speedup,before_instr,after_instr,"
                 "instr_speedup")
    bad = 0
    for model, t_end in SMOKE if smoke else CASES:
        for mode in NEWTON:
            cpu, its, failed = alternated(before, after, reps, model, t_end, "--newton-reuse", mode)
            bad += failed
            if not cpu["before"] or not cpu["after"] or its.get("before") != its.get("after"):
                bad += 1
                print("%s,%s,,,,,,," % (model, mode))
                continue
            cols = ratios(before, after, model, t_end, mode, cpu, callgrind)
            print("%s,%s,%d,%s" % (model, mode, its["after"], cols))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

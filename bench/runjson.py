"""What the benches that drive the `liedyn` command share: one run's JSON record, the shipped
models, the common command line of a bench script."""
import json
import os
import subprocess
import sys


def run_json(liedyn, model, t_end, *options):
    """`liedyn run MODEL --json [--t-end T] OPTIONS...`: its JSON record, None when it printed
    none (a refused run)."""
    cmd = [liedyn, "run", model, "--json"] + (["--t-end", t_end] if t_end else []) + list(options)
    # OpenBLAS on one thread from the start, for every executable compared: builds older than
    # the tool's own stop of the idle workers would otherwise count their ~0.1 s of spinning
    env = dict(os.environ, OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return None


def shipped_models():
    """The names of the models in models/, sorted."""
    here = os.path.dirname(os.path.abspath(__file__))
    return sorted(f[:-5] for f in os.listdir(os.path.join(here, "..", "models")) if f.endswith(".yaml"))


def arguments(doc):
    """(the liedyn executable, smoke) from `SCRIPT LIEDYN [--smoke]`; exits with doc otherwise."""
    if len(sys.argv) < 2:
        sys.exit(doc)
    return os.path.abspath(sys.argv[1]), "--smoke" in sys.argv[2:]


def two_builds(doc, header):
    """(after, before, smoke, callgrind, reps) from `SCRIPT LIEDYN_AFTER LIEDYN_BEFORE [--smoke]
    [--no-callgrind]`, the command line of the benches that compare two builds, after printing
    the CSV header; exits with doc otherwise. A smoke run: one repetition, no callgrind; else
    seven."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) < 2:
        sys.exit(doc)
    smoke = "--smoke" in sys.argv
    callgrind = not smoke and "--no-callgrind" not in sys.argv
    print(header)
    return os.path.abspath(args[0]), os.path.abspath(args[1]), smoke, callgrind, 1 if smoke else 7

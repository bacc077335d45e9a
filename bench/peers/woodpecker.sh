#!/bin/sh
# The woodpecker toy (models/woodpecker.yaml) three ways, side by side (docs/contact.md):
#   liedyn           the model as shipped: three bodies, three joints, a torsion spring, moreau;
#   reference        repro/woodpecker_reference.py: the same geometry in three coordinates,
#                    Moreau-Jean written apart from liedyn (python3 with numpy);
#   reference-linear and siconos: the papers' linearized equations, by the same reference and by
#                    Siconos (bench/peers/siconos_woodpecker.py; optional peer).
# Each prints the beak's impact times, the periods between them and the descent speed after
# t = 0.1 s. T_END (default 1 s) and DT (default 2e-5 s) set the run; the smoke run of make test
# takes T_END=0.01. Without numpy only liedyn runs; without Siconos its line says skipped.
# usage: woodpecker.sh LIEDYN [OUTDIR]
set -eu
LIEDYN=$1
OUT=${2:-woodpecker}
T_END=${T_END:-1}
DT=${DT:-2e-5}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
mkdir -p "$OUT"
"$LIEDYN" run "$SRC/models/woodpecker.yaml" --t-end "$T_END" --dt "$DT" --output-every 1 \
    --out "$OUT/liedyn.csv" >"$OUT/liedyn.txt"
grep -E "ok at|cpu" "$OUT/liedyn.txt"
PY=""
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    echo "woodpecker: no python3 with numpy: the reference and Siconos skipped"
    exit 0
fi
# liedyn's run in the reference's terms: the beak's impacts (the bird's rate turns negative
# with its angle above 0.05 rad) and the descent speed
"$PY" - "$OUT/liedyn.csv" <<'PYEOF'
import sys
import numpy as np
d = np.genfromtxt(sys.argv[1], delimiter=",", names=True)
t, y = d["t"], d["carriagez"]
phi = -2 * np.arctan2(d["birdqy"], d["birdqw"])
rate = -d["birdwy"]
imp = [t[i] for i in range(1, len(t)) if rate[i - 1] > 0.5 and rate[i] < 0 and phi[i] > 0.05]
print("woodpecker in liedyn (full geometry)")
print("  beak impacts at t = " + ", ".join("%.5f" % x for x in imp))
if len(imp) > 1:
    per = np.diff(imp)
    print("  periods " + ", ".join("%.5f" % p for p in per) + "; mean of the last four %.5f s"
          % per[-4:].mean())
late = t > 0.1
if late.sum() > 2:
    print("  descent speed after t = 0.1 s: %.5f m/s" % np.polyfit(t[late], y[late], 1)[0])
PYEOF
"$PY" "$SRC/repro/woodpecker_reference.py" --t-end "$T_END" --dt "$DT"
"$PY" "$SRC/repro/woodpecker_reference.py" --linear --t-end "$T_END" --dt "$DT"
"$PY" "$HERE/siconos_woodpecker.py" --t-end "$T_END" --dt "$DT"

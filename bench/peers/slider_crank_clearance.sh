#!/bin/bash
# The slider-crank with a translational clearance joint of Flores, Leine & Glocker (2010), run
# in liedyn (models/slider-crank-clearance.yaml, moreau) and in Siconos
# (siconos_slider_crank.py, MoreauJeanOSI) on the same data, side by side.
#
# Writes to OUTDIR: liedyn.csv, siconos.csv, slider_crank_clearance.csv (the two side by side
# at the common output times: t, then for each of liedyn and siconos the slider's x, y, angle,
# the crank's angle and speed) and slider_crank_clearance.png (gnuplot: the slider's y over the
# clearance against the crank's angle in turns, as in Flores et al.'s figures; the crank's
# speed, the slider's angle and the difference in y against time). Prints the agreement (the
# largest and the RMS differences) and the cost of each on stdout.
#
# usage: slider_crank_clearance.sh LIEDYN [OUTDIR] [-- liedyn run options, e.g. --dt 5e-6]
#   env: E (restitution, default 0.4), MU (friction, default 0.01), H (step, 1e-5),
#        T_END (0.2), PYTHON (a python3 with the siconos module; default: the first of
#        python3, /usr/bin/python3 that has it). Without Siconos only liedyn runs.
set -u
LIEDYN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
OUT=${1:-slider-crank-clearance}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
MODEL=$HERE/../../models/slider-crank-clearance.yaml
E=${E:-0.4} MU=${MU:-0.01} H=${H:-1e-5} T_END=${T_END:-0.2}
mkdir -p "$OUT" && cd "$OUT" || exit 1
EVERY=$(awk -v h="$H" 'BEGIN { k = int(1e-4 / h + 0.5); print (k < 1 ? 1 : k) }')

# the same e and mu on the slider and the walls (a pair takes the larger of each)
sed -e "s/restitution: 0.4/restitution: $E/g" -e "s/friction: 0.01/friction: $MU/g" \
    "$MODEL" >model.yaml

echo "liedyn: moreau, h = $H, e = $E, mu = $MU, t_end = $T_END"
"$LIEDYN" run model.yaml --dt "$H" --t-end "$T_END" --output-every "$EVERY" \
    --columns slider.x,slider.y,slider.qw,slider.qz,O.angle,O.angle_rate \
    --out liedyn.csv --json "$@" >liedyn.json 2>liedyn.err \
    || { echo "liedyn failed: $(tail -3 liedyn.err)" >&2; exit 1; }

PY=${PYTHON:-}
if [ -z "$PY" ]; then
    for p in python3 /usr/bin/python3; do
        if "$p" -c 'import siconos.kernel' 2>/dev/null; then PY=$p; break; fi
    done
fi
HAVE_SICONOS=0
if [ -n "$PY" ]; then
    echo "siconos: MoreauJeanOSI (theta = 0.5), h = $H, e = $E, mu = $MU"
    "$PY" "$HERE/siconos_slider_crank.py" \
        --out siconos.csv --h "$H" --t-end "$T_END" --e "$E" --mu "$MU" --every "$EVERY" \
        2>siconos.err >siconos.out || { echo "siconos failed: $(tail -3 siconos.err)" >&2; exit 1; }
    if grep -q skipped siconos.out; then cat siconos.out; else HAVE_SICONOS=1; fi
else
    echo "siconos not installed: skipped"
fi

python3 - "$HAVE_SICONOS" <<'EOF'
import csv, json, math, re, sys
have = sys.argv[1] == "1"
C = 0.001                                     # the clearance, m
lj = json.load(open("liedyn.json"))

def table(path):
    with open(path) as f:
        return list(csv.DictReader(f))

rows = {}
for r in table("liedyn.csv"):
    t = float(r["t"])
    ang = 2.0 * math.atan2(float(r["slider.qz"]), float(r["slider.qw"]))
    rows[round(t, 7)] = [float(r["slider.x"]), float(r["slider.y"]), ang,
                         float(r["O.angle"]), float(r["O.angle_rate"])]
if have:
    for r in table("siconos.csv"):
        k = round(float(r["t"]), 7)
        if k in rows:
            rows[k] += [float(r["slider.x"]), float(r["slider.y"]), float(r["slider.angle"]),
                        float(r["crank.angle"]), float(r["crank.omega"])]
ts = sorted(k for k in rows if len(rows[k]) == (10 if have else 5))
with open("slider_crank_clearance.csv", "w") as f:
    head = ["t", "liedyn.x", "liedyn.y", "liedyn.angle", "liedyn.crank", "liedyn.omega"]
    if have:
        head += ["siconos.x", "siconos.y", "siconos.angle", "siconos.crank", "siconos.omega"]
    f.write(",".join(head) + "\n")
    for t in ts:
        f.write(",".join(["%.7g" % t] + ["%.12g" % v for v in rows[t]]) + "\n")

steps = lj["steps"]
print("liedyn : %d steps, cpu %.3f s (%.1f us/step), %.1f Gauss-Seidel sweeps/step, "
      "energy %.4f -> %.4f J, joints' max |Phi| %.1e m"
      % (steps, lj["cpu_s"], 1e6 * lj["cpu_s"] / steps, lj["newton_iterations"] / steps,
         lj["energy_initial"], lj["energy"], lj["constraint_residual"]))
if not have:
    sys.exit(0)
m = re.search(r"(\d+) steps of \S+ s in ([0-9.]+) s \(([0-9.]+) us/step\), (\d+) Newton", open("siconos.err").read())
if m:
    print("siconos: %s steps, %s s (%s us/step; Python loop included), %.2f Newton iterations/step"
          % (m.group(1), m.group(2), m.group(3), int(m.group(4)) / float(m.group(1))))

def stats(i, j, scale=1.0):
    d = [(rows[t][i] - rows[t][j]) * scale for t in ts]
    return max(abs(x) for x in d), math.sqrt(sum(x * x for x in d) / len(d))

def first_impact(i):   # the first time the slider's centre is within 1 % of c of a wall
    for t in ts:
        if abs(rows[t][i]) > 0.99 * C:
            return t
    return float("nan")

print("agreement over %d common rows, t = 0 .. %g s:" % (len(ts), ts[-1]))
for name, i, scale, unit in (("slider y", 1, 1e3, "mm"), ("slider angle", 2, 1e3, "mrad"),
                             ("crank angle", 3, 1.0, "rad"), ("crank speed", 4, 1.0, "rad/s"),
                             ("slider x", 0, 1e3, "mm")):
    mx, rms = stats(i, i + 5, scale)
    print("  %-12s max |diff| %.4g %s, RMS %.4g %s" % (name, mx, unit, rms, unit))
for lim in (0.01, 0.02, 0.05, 0.1):
    sub = [t for t in ts if t <= lim + 1e-12]
    my = max(abs(rows[t][1] - rows[t][6]) for t in sub) * 1e3
    mw = max(abs(rows[t][4] - rows[t][9]) for t in sub)
    print("  up to t = %-5g slider y max |diff| %.4f mm, crank speed max |diff| %.4f rad/s"
          % (lim, my, mw))
print("  first contact (|y| > 0.99 c): liedyn t = %.4f s, siconos t = %.4f s"
      % (first_impact(1), first_impact(6)))
t = ts[-1]
print("  at t = %g: crank angle %.4f / %.4f rad, crank speed %.3f / %.3f rad/s (liedyn / siconos)"
      % (t, rows[t][3], rows[t][8], rows[t][4], rows[t][9]))
EOF

if command -v gnuplot >/dev/null 2>&1; then
    if [ "$HAVE_SICONOS" = 1 ]; then
        S1=", '' u (\$10/(2*pi)):(\$8/0.001) w l lw 1 lc rgb '#d62728' t 'Siconos'"
        S2=", '' u 1:11 w l lw 1 lc rgb '#d62728' t 'Siconos'"
        S3=", '' u 1:(\$9*1e3) w l lw 1 lc rgb '#d62728' t 'Siconos'"
        S4="plot 'slider_crank_clearance.csv' u 1:((\$3-\$8)/0.001) w l lc rgb '#2ca02c' t 'liedyn − Siconos'"
    else
        S1="" S2="" S3="" S4="plot 'slider_crank_clearance.csv' u 1:(\$3/0.001) w l t 'liedyn'"
    fi
    gnuplot <<EOF
set terminal pngcairo size 1400,1000 font ',11'
set output 'slider_crank_clearance.png'
set datafile separator ','
set key top right
set grid
set multiplot layout 2,2 title "Slider-crank with a translational clearance joint (Flores, Leine and Glocker 2010): e = $E, μ = $MU, h = $H s"
set xlabel 'crank angle (turns)'
set ylabel 'slider y / c'
set yrange [-1.6:1.6]
plot 'slider_crank_clearance.csv' u (\$5/(2*pi)):(\$3/0.001) w l lw 2 lc rgb '#1f77b4' t 'liedyn' $S1
set yrange [*:*]
set xlabel 't (s)'
set ylabel 'crank speed (rad/s)'
plot 'slider_crank_clearance.csv' u 1:6 w l lw 2 lc rgb '#1f77b4' t 'liedyn' $S2
set ylabel 'slider angle (mrad)'
plot 'slider_crank_clearance.csv' u 1:(\$4*1e3) w l lw 2 lc rgb '#1f77b4' t 'liedyn' $S3
set ylabel 'Δ slider y / c'
$S4
unset multiplot
EOF
    echo "plot: $PWD/slider_crank_clearance.png"
fi

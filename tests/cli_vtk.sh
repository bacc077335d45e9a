#!/bin/sh
# VTK output with geometry: the number of files is bounded by --frames; the heavy top's cone
# keeps its tip on the pivot (the origin) in every file; every shape stays rigid (distances
# between the points of one body do not change); the crank drive's file is consistent (point
# indices in range, point and cell data of the right length); rods and beams carry a radius.
# liedyn modes --vtk: the modes animated (below).
# usage: cli_vtk.sh LIEDYN WORK_DIR
set -u
LIEDYN=$1 WORK=$2
rm -rf "$WORK"
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$LIEDYN" run heavy-top --t-end 0.5 --frames 11 --quiet --vtk "$WORK/top" >/dev/null 2>"$WORK/e" ||
    fail "heavy-top --vtk: $(cat "$WORK/e")"
n=$(ls "$WORK/top" | grep -c '^heavy-top_[0-9]*\.vtk$')
# 500 steps, at most 11 output times plus the last
[ "$n" -ge 11 ] && [ "$n" -le 12 ] || fail "heavy-top: $n VTK files for --frames 11"
grep -q '"name": "heavy-top_00000.vtk", "time": 0}' "$WORK/top/heavy-top.vtk.series" ||
    fail "series: $(head -n 4 "$WORK/top/heavy-top.vtk.series")"
for f in "$WORK"/top/heavy-top_*.vtk; do
    # the points of the POINTS section within 1e-6 of the origin: the cone's tip
    tip=$(awk '/^POINTS/ {n = $2; on = 1; next} on && n-- > 0 { if ($1*$1 + $2*$2 + $3*$3 < 1e-12) c++ }
               n == 0 {on = 0} END {print c + 0}' "$f")
    [ "$tip" -ge 1 ] || fail "$(basename "$f"): the cone's tip is not on the pivot"
done

# rigidity: distances between consecutive points of the same body, first against last file
rigid() { # FILE0 FILE1
    awk 'FNR == 1 {file++}
         /^POINTS/ {n = $2; k = 0; on = 1; next}
         on && k < n { x[file, k] = $1; y[file, k] = $2; z[file, k] = $3; k++; if (k == n) on = 0; next }
         /^SCALARS body/ {getline; bk = 0; inb = 1; next}
         inb && bk < n { b[file, bk] = $1; bk++; if (bk == n) inb = 0; next }
         END {
             bad = 0; pairs = 0
             for (i = 1; i < n; i++) {
                 if (b[1, i] < 0 || b[1, i] != b[1, i - 1]) continue
                 d1 = (x[1,i]-x[1,i-1])^2 + (y[1,i]-y[1,i-1])^2 + (z[1,i]-z[1,i-1])^2
                 d2 = (x[2,i]-x[2,i-1])^2 + (y[2,i]-y[2,i-1])^2 + (z[2,i]-z[2,i-1])^2
                 pairs++
                 if ((d1 - d2)^2 > 1e-14 * (d1 + 1e-9)) bad++
             }
             print pairs, bad
         }' "$1" "$2"
}
"$LIEDYN" run crank-v8 --t-end 0.3 --frames 4 --quiet --vtk "$WORK/crank" >/dev/null 2>"$WORK/e" ||
    fail "crank-v8 --vtk: $(cat "$WORK/e")"
set -- "$WORK"/crank/crank-v8_*.vtk
first=$1
eval "last=\${$#}"
[ $# -ge 4 ] && [ $# -le 5 ] || fail "crank-v8: $# VTK files for --frames 4"
r=$(rigid "$first" "$last")
[ "${r% *}" -gt 1000 ] && [ "${r#* }" -eq 0 ] || fail "crank-v8 shapes not rigid (pairs, bad): $r"
# the crankshaft turned: its points moved
cmp -s "$first" "$last" && fail "crank-v8: first and last file are the same"
# consistency of the sections
awk '/^POINTS/ {np = $2}
     /^(VERTICES|LINES|POLYGONS)/ {sec = $1; cells += $2; left = $2; next}
     left > 0 && sec != "" { for (i = 2; i <= NF; i++) if ($i >= np) bad = "index " $i " >= " np; left--; if (!left) sec = "" }
     /^POINT_DATA/ && $2 != np {bad = "POINT_DATA " $2 " != " np}
     /^CELL_DATA/ && $2 != cells {bad = "CELL_DATA " $2 " != " cells}
     END {if (!cells) bad = "no cells"; if (bad) {print bad; exit 1}}' "$last" ||
    fail "crank-v8 file inconsistent: $(awk '/^POINTS/ {np = $2} END {}' "$last")"
grep -q '^POLYGONS ' "$last" || fail "crank-v8: no polygons"
# 25 joints: 2 lines each to the bodies' centres, and the axis of the 17 with one (1 revolute,
# 8 universal, 8 prismatic; the 8 spherical have none): 50 + 17 = 67 lines, no rods
grep -q '^LINES 67 201$' "$last" || fail "crank-v8: not 67 joint lines: $(grep '^LINES' "$last")"

# a beam: its polyline includes the clamped end, with the tube radius as point data
"$LIEDYN" run right-angle-cantilever --t-end 0.2 --frames 2 --quiet --vtk "$WORK/beam" >/dev/null 2>"$WORK/e" ||
    fail "right-angle-cantilever --vtk: $(cat "$WORK/e")"
f=$(ls "$WORK"/beam/*.vtk | tail -n 1)
awk '/^SCALARS radius/ {getline; on = 1; next} on && /^[A-Z]/ {on = 0} on && $1 > 0 {c++} END {exit !(c > 2)}' "$f" ||
    fail "beam: no radius on its nodes"

# a pinned beam: its end nodes stay at their points (0, 0, 0) and (10, 0, 0), the midspan sags
"$LIEDYN" run beam-pinned --t-end 2 --frames 2 --quiet --vtk "$WORK/pinned" >/dev/null 2>"$WORK/e" ||
    fail "beam-pinned --vtk: $(cat "$WORK/e")"
f=$(ls "$WORK"/pinned/*.vtk | tail -n 1)
awk '/^POINTS/ {on = 1; n = 0; next} on && /^[A-Z]/ {on = 0} on {p[n++] = $0}
     END {exit !(p[0] == "0 0 0" && p[8] == "10 0 0" && (p[4] ~ /^5 -/))}' "$f" ||
    fail "beam-pinned: the ends moved or the midspan did not sag: $(sed -n '/^POINTS/,/^VERTICES/p' "$f" | tr '\n' ' ')"

# liedyn modes --vtk: each mode a series of 24 files over one period (times k T / 24), the
# bodies' centres (the first POINTS, one per body) at q ∘ exp(a cos(θ) φ): half the difference
# of the files at θ = 0 and θ = π is a φ's centre displacement (the even a² terms cancel), in
# the ratio of the CSV's shape, and the largest one a tenth of the model's size (1.5 here) or
# less where the rotation reaches 0.3 rad first (mode 2)
"$LIEDYN" modes double-pendulum-damped --vtk "$WORK/dp" --csv "$WORK/dp.csv" >"$WORK/o" 2>"$WORK/e" ||
    fail "modes --vtk: $(cat "$WORK/e")"
for j in 1 2; do
    s="$WORK/dp/double-pendulum-damped_mode$j.vtk.series"
    n=$(grep -c '"name": "double-pendulum-damped_mode'$j'_[0-9]*\.vtk"' "$s")
    [ "$n" -eq 24 ] || fail "modes --vtk: mode $j lists $n files, not 24"
    [ "$(ls "$WORK/dp" | grep -c "_mode${j}_[0-9]*\.vtk$")" -eq 24 ] || fail "modes --vtk: mode $j files"
    hz=$(awk -F, -v j=$j '$1 == j {print $2}' "$WORK/dp.csv")
    last=$(grep -o '"time": [0-9.e+-]*' "$s" | tail -n 1 | cut -d' ' -f2)
    awk -v t="$last" -v hz="$hz" 'BEGIN {exit !(t * hz > 23 / 24 - 1e-12 && t * hz < 23 / 24 + 1e-12)}' ||
        fail "modes --vtk: mode $j ends at t = $last, not 23/24 of the period 1/$hz"
    centres() { awk '/^POINTS/ {on = 1; next} on && n < 2 {print $1, $2, $3; n++}' "$1"; }
    centres "$WORK/dp/double-pendulum-damped_mode${j}_00000.vtk" >"$WORK/c0"
    centres "$WORK/dp/double-pendulum-damped_mode${j}_00012.vtk" >"$WORK/c12"
    # (x0 - x12) / 2 per body against the CSV's link1.dx, link2.dx (columns 7 and 13) times a
    paste -d' ' "$WORK/c0" "$WORK/c12" | awk -v j=$j -v row="$(awk -F, -v j=$j '$1 == j' "$WORK/dp.csv")" '
        { d[NR] = ($1 - $4) / 2; e[NR] = ($2 - $5) / 2 }
        END { split(row, c, ","); big = (c[7] * c[7] > c[13] * c[13]) ? 1 : 2
              a = d[big] / c[big == 1 ? 7 : 13]
              r1 = d[1] - a * c[7]; r2 = d[2] - a * c[13]; r3 = e[1] - a * c[8]; r4 = e[2] - a * c[14]
              err = sqrt(r1 * r1 + r2 * r2 + r3 * r3 + r4 * r4) / sqrt(d[big] * d[big])
              m = sqrt(d[big] * d[big] + e[big] * e[big])
              printf "mode shape from the files: relative error %.2e, largest displacement %.6f\n", err, m
              exit !(err < 1e-6 && m < 0.15 * 1.000001 && (j == 2 || m > 0.15 * 0.999999)) }' ||
        fail "modes --vtk: mode $j's files do not move the bodies as its shape"
done
touch "$WORK/file"
"$LIEDYN" modes simple-pendulum --vtk "$WORK/file/sub" >/dev/null 2>"$WORK/e"
[ $? -eq 4 ] && grep -q "cannot create the directory" "$WORK/e" || fail "modes --vtk into a file: $(cat "$WORK/e")"
"$LIEDYN" modes simple-pendulum --vtk "$WORK/x" --campbell 0:1:2 >/dev/null 2>"$WORK/e"
[ $? -eq 2 ] && grep -q "not with --campbell" "$WORK/e" || fail "modes --vtk --campbell: $(cat "$WORK/e")"

[ "$fails" -eq 0 ] || exit 1
echo "cli_vtk: all checks passed"

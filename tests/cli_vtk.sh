#!/bin/sh
# VTK output with geometry: the number of files is bounded by --frames; the heavy top's cone
# keeps its tip on the pivot (the origin) in every file; every shape stays rigid (distances
# between the points of one body do not change); the crank drive's file is consistent (point
# indices in range, point and cell data of the right length); rods and beams carry a radius.
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

[ "$fails" -eq 0 ] || exit 1
echo "cli_vtk: all checks passed"

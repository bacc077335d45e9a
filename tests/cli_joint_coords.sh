#!/bin/sh
# liedyn run's joint columns (include/liedyn/coords.h): the double pendulum's hinge angles and
# rates after the reactions, continuous, the rates against differences of the angles; a crank
# driven through ten turns ends at 20π (the angle unwrapped through ±π, also with rows 0.3 turn
# apart); choosing them by name and group (--columns, --plot-what); `liedyn view` carries them
# as series; a restart from a checkpoint counts the turns anew (equal modulo 2π).
# usage: cli_joint_coords.sh LIEDYN WORK_DIR
set -u
LIEDYN=$1 WORK=$2
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# col FILE NAME: the 1-based index of column NAME in the header of FILE
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

# ---- the double pendulum: the columns after the reactions, continuous angles
"$LIEDYN" run double-pendulum-damped --t-end 4 --out "$WORK/dp.csv" --quiet >/dev/null \
    2>"$WORK/dp.err" || fail "double pendulum: $(cat "$WORK/dp.err")"
head -1 "$WORK/dp.csv" |
    grep -q ',elbow.tz,shoulder.angle,shoulder.angle_rate,elbow.angle,elbow.angle_rate$' ||
    fail "double pendulum: header $(head -1 "$WORK/dp.csv")"
for j in shoulder elbow; do
    a=$(col "$WORK/dp.csv" $j.angle) r=$(col "$WORK/dp.csv" $j.angle_rate)
    # rows 2 ms apart: steps of the angle are small, its central difference is the rate, and it
    # starts at 0
    awk -F, -v a="$a" -v r="$r" '
        NR == 2 && ($a != 0 || $r != 0) { print "row 1: " $a ", " $r; bad = 1 }
        NR > 2 { d = $a - pa; if (d < 0) d = -d; if (d > big) big = d }
        NR > 3 { e = (($a - ppa) / ($1 - ppt)) - pr; if (e < 0) e = -e
                 s = pr < 0 ? -pr : pr; if (e > 1e-3 * (1 + s)) { print "t " pt ": rate " pr ", difference " e; bad = 1 } }
        { ppa = pa; ppt = pt; pa = $a; pt = $1; pr = $r }
        END { if (big > 0.1) { print "a step of " big; bad = 1 }; exit bad }' "$WORK/dp.csv" \
        >"$WORK/dp-$j.txt" || fail "double pendulum: $j: $(head -3 "$WORK/dp-$j.txt")"
done

# ---- a crank driven at one turn per second for 10 s: the angle runs on to 20π
cat >"$WORK/crank.yaml" <<'EOF'
name: crank
bodies:
  - {name: crank, mass: 2, inertia: [0.01, 0.05, 0.05], position: [0.1, 0, 0], angular_velocity: [0, 0, 6.283185307179586]}
joints:
  - {name: bearing, type: revolute, body2: crank, at: [0, 0, 0], axis: [0, 0, 1]}
  - {name: motor, type: driver, body2: crank, axis: [0, 0, 1], motion: rotation, value: 6.283185307179586, time: {shape: linear}}
gravity: [0, -9.81, 0]
integrator: {name: genalpha, formulation: se3, dt: 0.005, t_end: 10}
EOF
"$LIEDYN" run "$WORK/crank.yaml" --out "$WORK/crank.csv" --quiet >/dev/null 2>"$WORK/crank.err" ||
    fail "crank: $(cat "$WORK/crank.err")"
a=$(col "$WORK/crank.csv" bearing.angle) m=$(col "$WORK/crank.csv" motor.value)
[ -n "$a" ] && [ -n "$m" ] || fail "crank: header $(head -1 "$WORK/crank.csv")"
tail -1 "$WORK/crank.csv" | awk -F, -v a="$a" -v m="$m" '
    { p = 20 * 3.14159265358979324; d = $a - p; e = $m - p; if (d < 0) d = -d; if (e < 0) e = -e
      exit !(d < 1e-6 && e < 1e-9) }' || fail "crank: last row angle $(tail -1 "$WORK/crank.csv" | cut -d, -f"$a"), value $(tail -1 "$WORK/crank.csv" | cut -d, -f"$m"), not 20 pi"
awk -F, -v a="$a" 'NR > 2 && !($a > pa) { bad = 1 } { pa = $a } END { exit bad }' \
    "$WORK/crank.csv" || fail "crank: the angle does not grow steadily"
# rows 0.3 s apart (0.3 turn): still unwrapped
"$LIEDYN" run "$WORK/crank.yaml" --output-dt 0.3 --columns bearing.coords,motor.coords,motor.rate \
    --out "$WORK/sparse.csv" --quiet >/dev/null 2>&1 || fail "crank --output-dt 0.3"
[ "$(head -1 "$WORK/sparse.csv")" = "t,bearing.angle,motor.value,motor.value_rate" ] ||
    fail "--columns bearing.coords,motor.coords,motor.rate: $(head -1 "$WORK/sparse.csv")"
tail -1 "$WORK/sparse.csv" | awk -F, '{ d = $2 - 20 * 3.14159265358979324; exit !(d < 1e-6 && d > -1e-6) }' ||
    fail "crank, rows 0.3 turn apart: last row $(tail -1 "$WORK/sparse.csv")"

# ---- names: single columns and groups; a wrong one is refused with the joint names listed
"$LIEDYN" run double-pendulum-damped --t-end 0.01 --columns elbow.angle,shoulder.rate \
    --out "$WORK/c.csv" >/dev/null || fail "columns: run failed"
[ "$(head -1 "$WORK/c.csv")" = "t,elbow.angle,shoulder.angle_rate" ] ||
    fail "columns: header $(head -1 "$WORK/c.csv")"
"$LIEDYN" run double-pendulum-damped --columns elbow.slide --out "$WORK/x.csv" >/dev/null \
    2>"$WORK/bad.err"
[ $? -eq 2 ] || fail "columns: elbow.slide not refused"
grep -q "unknown column 'elbow.slide' (.*JOINT.f, .t, .coords, .rate" "$WORK/bad.err" ||
    fail "columns: message $(cat "$WORK/bad.err")"
if command -v gnuplot >/dev/null 2>&1; then
    "$LIEDYN" run double-pendulum-damped --t-end 0.5 --plot "$WORK/p.png" \
        --plot-what shoulder.angle,elbow.rate >/dev/null 2>"$WORK/p.err" ||
        fail "plot-what: $(cat "$WORK/p.err")"
    [ -s "$WORK/p.png" ] || fail "plot-what: no PNG"
fi

# ---- liedyn view: the angles are series of the viewer's file
if "$LIEDYN" view "$WORK/crank.yaml" --csv "$WORK/crank.csv" --html "$WORK/crank.html" \
    >/dev/null 2>"$WORK/view.err"; then
    grep -q '{"name":"bearing.angle"' "$WORK/crank.html" || fail "view: no series bearing.angle"
    grep -q '{"name":"motor.value_rate"' "$WORK/crank.html" || fail "view: no series motor.value_rate"
else
    grep -q "is not available" "$WORK/view.err" || fail "view: $(cat "$WORK/view.err")"
fi

# ---- a restart counts the turns anew: the restarted rows equal the full run's modulo 2π
"$LIEDYN" run "$WORK/crank.yaml" --t-end 4 --max-steps 450 --checkpoint "$WORK/crank.ck" \
    --out "$WORK/part.csv" --quiet >/dev/null 2>&1
[ $? -eq 5 ] || fail "restart: the first part did not stop at --max-steps"
"$LIEDYN" run "$WORK/crank.yaml" --t-end 4 --restart "$WORK/crank.ck" --out "$WORK/rest.csv" \
    --quiet >/dev/null 2>"$WORK/rest.err" || fail "restart: $(cat "$WORK/rest.err")"
"$LIEDYN" run "$WORK/crank.yaml" --t-end 4 --out "$WORK/full.csv" --quiet >/dev/null 2>&1 ||
    fail "restart: the full run failed"
a=$(col "$WORK/full.csv" bearing.angle)
# the restart at t = 2.25 (two and a quarter turns): its first angle is π/2, the full run's 4.5π
sed -n 2p "$WORK/rest.csv" | awk -F, -v a="$a" '{ d = $a - 1.57079632679489662; exit !($1 == 2.25 && d < 1e-6 && d > -1e-6) }' ||
    fail "restart: first row $(sed -n 2p "$WORK/rest.csv" | cut -d, -f1,"$a")"
# the same output grid: the restarted rows are the full run's last rows
n=$(($(wc -l <"$WORK/rest.csv") - 1))
tail -n "$n" "$WORK/rest.csv" | cut -d, -f1,"$a" >"$WORK/rest.ta"
tail -n "$n" "$WORK/full.csv" | cut -d, -f1,"$a" >"$WORK/full.ta"
paste -d, "$WORK/rest.ta" "$WORK/full.ta" | awk -F, '
    { k = ($4 - $2) / (2 * 3.14159265358979324); r = k - int(k + 0.5); if (r < 0) r = -r
      if ($1 != $3 || r > 1e-9 || k < 1.5) bad = 1; n++ }
    END { exit bad || n < 100 }' || fail "restart: rows not equal to the full run's modulo 2 pi"

[ "$fails" -eq 0 ]

#!/bin/sh
# liedyn run's rows and plots: --output-dt (rows at fixed times by dense output on the group,
# the step ends themselves where they fall on the grid), the automatic row spacing of long runs,
# --columns, and --plot with --plot-what (panels that exist, no gnuplot chatter on stderr,
# clear refusals).
# usage: cli_rows.sh LIEDYN WORK_DIR
set -u
LIEDYN=$1 WORK=$2
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
rows() { echo $(($(wc -l <"$1") - 1)); }
# col FILE NAME: the 1-based index of column NAME in the header of FILE
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

# rows at t = 0, 0.01, ..., 0.1 from steps of 3e-3 (interpolated), the last at t_end
"$LIEDYN" run heavy-top --dt 3e-3 --t-end 0.1 --output-dt 0.01 --out "$WORK/d.csv" \
    >/dev/null 2>"$WORK/d.err" || fail "output-dt: $(cat "$WORK/d.err")"
[ "$(rows "$WORK/d.csv")" -eq 11 ] || fail "output-dt: $(rows "$WORK/d.csv") rows, expected 11"
times=$(cut -d, -f1 "$WORK/d.csv" | tail -n +2 | awk '{printf "%.6f ", $1}')
[ "$times" = "0.000000 0.010000 0.020000 0.030000 0.040000 0.050000 0.060000 0.070000 0.080000 0.090000 0.100000 " ] ||
    fail "output-dt: times $times"

# where the grid meets the steps (dt 1e-3, rows every 0.01) the rows are the steps' own states
"$LIEDYN" run heavy-top --dt 1e-3 --t-end 0.05 --output-dt 0.01 --out "$WORK/e.csv" >/dev/null &&
    "$LIEDYN" run heavy-top --dt 1e-3 --t-end 0.05 --output-every 10 --out "$WORK/f.csv" >/dev/null ||
    fail "output-dt on the steps: a run failed"
cmp -s "$WORK/e.csv" "$WORK/f.csv" || fail "output-dt on the step grid differs from every 10th step"

# between steps, the interpolated rows are as accurate as the step ends: against a fine run,
# the rows in the middle of the steps are off by at most 3 times the step ends' error
"$LIEDYN" run heavy-top --dt 4e-3 --t-end 0.1 --output-dt 0.002 --out "$WORK/g.csv" >/dev/null &&
    "$LIEDYN" run heavy-top --dt 1e-5 --t-end 0.1 --output-dt 0.002 --out "$WORK/h.csv" >/dev/null ||
    fail "dense output accuracy: a run failed"
[ "$(rows "$WORK/g.csv")" -eq 51 ] || fail "dense output: $(rows "$WORK/g.csv") rows, expected 51"
c=$(col "$WORK/g.csv" top.qx)
paste -d, "$WORK/g.csv" "$WORK/h.csv" | awk -F, -v c="$c" -v n="$(head -1 "$WORK/g.csv" | tr ',' '\n' | wc -l)" '
    NR > 2 { d = $c - $(c + n); if (d < 0) d = -d; if (NR % 2) { if (d > es) es = d } else { if (d > em) em = d } }
    END { printf "step ends %.3g, mid-step %.3g\n", es, em; exit !(em <= 3 * es && es > 0) }' >"$WORK/g.txt" ||
    fail "dense output: $(cat "$WORK/g.txt")"

# a long fixed-step run writes about 2000 rows unless told otherwise
"$LIEDYN" run heavy-top --dt 1e-4 --t-end 1 --out "$WORK/long.csv" >/dev/null ||
    fail "long run failed"
[ "$(rows "$WORK/long.csv")" -eq 2001 ] || fail "long run: $(rows "$WORK/long.csv") rows, not 2001"
"$LIEDYN" run heavy-top --dt 1e-4 --t-end 0.6 --output-every 1 --out "$WORK/all.csv" >/dev/null ||
    fail "every step failed"
[ "$(rows "$WORK/all.csv")" -eq 6001 ] || fail "--output-every 1: $(rows "$WORK/all.csv") rows"

# --columns: the named columns after t; unknown names refused before running
"$LIEDYN" run heavy-top --t-end 0.01 --columns top.pos,energy,top.wz --out "$WORK/c.csv" \
    >/dev/null || fail "columns: run failed"
[ "$(head -1 "$WORK/c.csv")" = "t,top.x,top.y,top.z,energy,top.wz" ] ||
    fail "columns: header $(head -1 "$WORK/c.csv")"
"$LIEDYN" run crank-v8 --t-end 1e-3 --columns crankshaft --out "$WORK/cr.csv" >/dev/null ||
    fail "columns of a body by its name"
[ "$(head -1 "$WORK/cr.csv" | tr ',' '\n' | wc -l)" -eq 14 ] || fail "columns crankshaft: $(head -1 "$WORK/cr.csv")"
"$LIEDYN" run heavy-top --columns top.speed --out "$WORK/x.csv" >"$WORK/bad.out" 2>"$WORK/bad.err"
[ $? -eq 2 ] || fail "columns: unknown name not refused"
grep -q "unknown column 'top.speed'" "$WORK/bad.err" || fail "columns: message $(cat "$WORK/bad.err")"
[ -s "$WORK/bad.out" ] && fail "columns: ran despite a bad name"
"$LIEDYN" run heavy-top --output-dt 0.1 --output-every 3 >/dev/null 2>"$WORK/both.err"
[ $? -eq 2 ] || fail "--output-dt with --output-every accepted"

if command -v gnuplot >/dev/null 2>&1; then
    # chosen panels, a constant one among them (z of a planar motion is 0): no stderr at all
    "$LIEDYN" run heavy-top --t-end 0.2 --plot "$WORK/p1.png" --plot-what top.omega,energy,top.vz \
        >/dev/null 2>"$WORK/p1.err" || fail "plot-what: $(cat "$WORK/p1.err")"
    [ -s "$WORK/p1.png" ] || fail "plot-what: no PNG"
    [ -s "$WORK/p1.err" ] && fail "plot-what: stderr $(cat "$WORK/p1.err")"
    # every shipped rigid model plots its default without a word on stderr
    for m in torque-body-ii spinning-body crank-v8 free-top; do
        "$LIEDYN" run "$m" --t-end 0.05 --plot "$WORK/$m.png" >/dev/null 2>"$WORK/$m.err" ||
            fail "plot $m: $(cat "$WORK/$m.err")"
        [ -s "$WORK/$m.err" ] && fail "plot $m: stderr $(cat "$WORK/$m.err")"
        [ -s "$WORK/$m.png" ] || fail "plot $m: no PNG"
    done
    "$LIEDYN" run heavy-top --t-end 0.01 --plot "$WORK/p2.png" --plot-what top.spin \
        >/dev/null 2>"$WORK/p2.err"
    [ $? -eq 2 ] || fail "plot-what: unknown quantity accepted"
    grep -q "unknown column 'top.spin'" "$WORK/p2.err" || fail "plot-what: $(cat "$WORK/p2.err")"
    "$LIEDYN" run heavy-top --t-end 0.01 --plot-what energy >/dev/null 2>&1 &&
        fail "--plot-what without --plot accepted"
fi

[ "$fails" -eq 0 ] && echo "cli_rows: all checks passed"
exit "$fails"

#!/bin/sh
# liedyn attitude end to end: JSON answer files, CSV output, gyro input, and one readable
# error line with a non-zero exit for every kind of bad input.
# usage: cli_attitude.sh LIEDYN JSON_COMPARE SOURCE_DIR WORK_DIR
set -u
LIEDYN=$1 CMP=$2 SRC=$3 WORK=$4
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# answer: NAME EXPECTED_EXIT ARGS... — run with --json, compare with tests/answers/NAME.json
answer() {
    name=$1 want=$2
    shift 2
    "$LIEDYN" attitude "$@" --json >"$WORK/$name.json" 2>"$WORK/$name.err"
    rc=$?
    [ "$rc" -eq "$want" ] || fail "$name: exit $rc, expected $want ($(cat "$WORK/$name.err"))"
    if [ -n "${UPDATE_ANSWERS:-}" ]; then cp "$WORK/$name.json" "$SRC/tests/answers/$name.json"; fi
    "$CMP" "$SRC/tests/answers/$name.json" "$WORK/$name.json" cpu_s || fail "$name: JSON differs"
}

answer attitude_ex1_ode45 0 --case ex1 --method ode45 --param quat --rtol 1e-10 --t-end 2
answer attitude_ex2_mpq 0 --case ex2 --method mpq --t-end 1
answer attitude_ex3_ode45_rotvec_fails 3 --case ex3 --method ode45 --param rotvec --rtol 1e-10 --t-end 2
answer attitude_gyro_rkmk4 0 --input "$SRC/tests/data/gyro_const.csv" --method rkmk4 --dt 0.1 --q0 1,0,0,0

# CSV output: header and one row per step plus the initial point
"$LIEDYN" attitude --case ex1 --method mpr --param tanvec --dt 0.1 --t-end 1 --out "$WORK/ex1.csv" >/dev/null ||
    fail "csv run"
[ "$(head -n 1 "$WORK/ex1.csv")" = "t,qw,qx,qy,qz,angle_error" ] || fail "csv header: $(head -n 1 "$WORK/ex1.csv")"
[ "$(wc -l <"$WORK/ex1.csv")" -eq 12 ] || fail "csv rows: $(wc -l <"$WORK/ex1.csv")"
[ "$(tail -n 1 "$WORK/ex1.csv" | cut -d, -f1)" = "1" ] || fail "csv last time"

# bad input: exit code 2 and one line on stderr naming the problem
bad() {
    pattern=$1
    shift
    "$LIEDYN" attitude "$@" >"$WORK/bad.out" 2>"$WORK/bad.err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "'$*': exit $rc, expected 2"
    [ "$(wc -l <"$WORK/bad.err")" -eq 1 ] || fail "'$*': stderr has $(wc -l <"$WORK/bad.err") lines"
    grep -q -- "$pattern" "$WORK/bad.err" || fail "'$*': stderr '$(cat "$WORK/bad.err")' lacks '$pattern'"
}
bad "unknown option '--bogus'" --case ex1 --bogus 1
bad "unknown case 'ex9'" --case ex9
bad "unknown method 'rk9'" --case ex1 --method rk9
bad "unknown parametrization 'euler'" --case ex1 --method rk4 --param euler
bad "does not apply to method 'mpq'" --case ex1 --method mpq --param rotvec
bad "needs a finite number, got 'abc'" --case ex1 --dt abc
bad "exactly one of" --method mpq
bad "gyro_bad_line.csv:3: expected 4" --input "$SRC/tests/data/gyro_bad_line.csv"
bad "cannot open" --input "$WORK/no-such-file.csv"
bad "--q0 needs four numbers" --input "$SRC/tests/data/gyro_const.csv" --q0 1,0,0
bad "missing value" --case ex1 --dt
bad "--fixed needs --dt" --case ex1 --method ode45 --fixed
bad "apply to adaptive runs" --case ex1 --method mpq --rtol 1e-9
bad "--dt must be positive" --case ex1 --method mpq --dt 0
# an end time just past the data: the message shows the two times apart (not 1 and 1)
bad "--t-end 1.0000000000000002 outside (0, 1\]" --input "$SRC/tests/data/gyro_const.csv" --t-end 1.0000000000000002

# an integration failure: exit 3, one line on stderr, the CSV written so far stays valid
"$LIEDYN" attitude --case ex3 --method ode45 --param tanvec --rtol 1e-10 --out "$WORK/ex3.csv" \
    >/dev/null 2>"$WORK/ex3.err"
rc=$?
[ "$rc" -eq 3 ] || fail "ex3 tanvec: exit $rc, expected 3"
grep -q "integration failed at t = 0.5375" "$WORK/ex3.err" || fail "ex3 tanvec: $(cat "$WORK/ex3.err")"
last=$(tail -n 1 "$WORK/ex3.csv" | cut -d, -f1)
case "$last" in 0.5375*) ;; *) fail "ex3 tanvec: last CSV time $last" ;; esac

[ "$fails" -eq 0 ] && echo "cli_attitude: all checks passed"
exit "$fails"

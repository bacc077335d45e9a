#!/bin/sh
# One vocabulary: every command answers -h and --help on stdout with exit 0 and lists its exit
# codes; the top level too; `run --method` is `run --integrator`, `attitude --integrator` is
# `attitude --method`; `--name=value` equals `--name value`.
# usage: cli_help.sh LIEDYN WORK_DIR
set -u
LIEDYN=$1 WORK=$2
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

for c in "" demo attitude run convergence static modes models version; do
    for h in -h --help; do
        # shellcheck disable=SC2086
        "$LIEDYN" $c $h >"$WORK/help.txt" 2>"$WORK/help.err" || fail "liedyn $c $h: exit $?"
        grep -q "^usage: liedyn" "$WORK/help.txt" || fail "liedyn $c $h: no usage line"
        grep -q "exit status:" "$WORK/help.txt" || fail "liedyn $c $h: no exit codes"
        [ -s "$WORK/help.err" ] && fail "liedyn $c $h: stderr $(cat "$WORK/help.err")"
    done
done
# liedyn help CMD is CMD --help
for c in run static modes sweep convert view; do
    "$LIEDYN" help $c >"$WORK/h1.txt" 2>&1 || fail "liedyn help $c: exit $?"
    "$LIEDYN" $c --help >"$WORK/h2.txt" 2>&1
    cmp -s "$WORK/h1.txt" "$WORK/h2.txt" || fail "liedyn help $c differs from liedyn $c --help"
done
"$LIEDYN" help no-such-command >/dev/null 2>&1 && fail "liedyn help no-such-command: exit 0"
"$LIEDYN" run heavy-top --t-end 0.01 --method newmark --json >"$WORK/a.json" &&
    "$LIEDYN" run heavy-top --t-end=0.01 --integrator=newmark --json >"$WORK/b.json" ||
    fail "run --method / --integrator= failed"
grep -q '"integrator": "newmark"' "$WORK/a.json" || fail "run --method did not choose the integrator"
sed 's/"cpu_s": [^,]*,//' "$WORK/a.json" >"$WORK/a2.json"
sed 's/"cpu_s": [^,]*,//' "$WORK/b.json" >"$WORK/b2.json"
cmp -s "$WORK/a2.json" "$WORK/b2.json" || fail "run --method differs from --integrator="
"$LIEDYN" attitude --case ex1 --integrator rk4 --json >"$WORK/c.json" &&
    "$LIEDYN" attitude --case ex1 --method rk4 --json >"$WORK/d.json" || fail "attitude failed"
grep -q '"method": "rk4"' "$WORK/c.json" || fail "attitude --integrator: $(head -c 200 "$WORK/c.json")"

[ "$fails" -eq 0 ] && echo "cli_help: all checks passed"
exit "$fails"

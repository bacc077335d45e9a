#!/bin/sh
# overhead_counts.sh BENCH_OVERHEAD — instruction counts (valgrind's callgrind, repeatable on a
# loaded machine, unlike the timings) of the units that bench_overhead times: the bare model
# evaluation, the evaluations of a Newton iteration and of a hem stage, a hem5 stage and a
# genalpha Newton iteration on the small and on the generic path. The heavy top in so3xr3 and
# s3xr3 together (200 steps of each, BENCH_QUICK=1). CSV on stdout: unit, path, instructions per
# unit, and the unit in units of the bare evaluation. Needs valgrind (not part of make test).
set -eu
BENCH=$1
command -v valgrind >/dev/null || { echo "overhead_counts.sh: valgrind not found" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# run FUNCTION PATH: callgrind collecting inside FUNCTION only, into $WORK/cg (BENCH_METHOD
# from the environment: one method alone)
run() {
    BENCH_QUICK=1 BENCH_PATH=$2 valgrind --tool=callgrind --toggle-collect="$1" \
        --callgrind-out-file="$WORK/cg" "$BENCH" >/dev/null 2>&1
}
# total: the instructions collected; calls FUNCTION: how often it was called
total() {
    (cd "$WORK" && callgrind_annotate --auto=no cg) 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' |
        tr -d ,
}
calls() {
    (cd "$WORK" && callgrind_annotate --auto=no --tree=caller cg) 2>/dev/null | awk -v f=":$1 " '
        /^ *[0-9,]+ .*< / { if (match($0, /\(([0-9,]+)x\)/)) { s = substr($0, RSTART + 1, RLENGTH - 3); gsub(",", "", s); pend += s } next }
        /\*  / { if (index($0, f)) n += pend; pend = 0; next }
        { pend = 0 }
        END { print n }'
}
# per FUNCTION PATH [PER_CALL_UNITS] [COUNTED_FUNCTION]: instructions per unit (a call of
# FUNCTION, or of COUNTED_FUNCTION, divided into PER_CALL_UNITS units)
per() {
    run "$1" "$2"
    t=$(total)
    c=$(calls "${4:-$1}")
    awk -v t="$t" -v c="$c" -v u="${3:-1}" 'BEGIN {printf "%.0f", t / (c * u)}'
}
bare=$(per eval_bare small)
echo "unit,path,instructions,units_of_bare"
echo "bare M+g+Phi+B,,$bare,1.00"
for f in eval_newton eval_fused eval_stage; do
    c=$(per $f small)
    awk -v c="$c" -v b="$bare" -v f="$f" 'BEGIN {printf "%s,,%s,%.2f\n", f, c, c / b}'
done
for p in small generic separate; do
    h=$(BENCH_METHOD=hem5 per hem_step $p 7)
    awk -v h="$h" -v b="$bare" -v p="$p" 'BEGIN {printf "hem5 stage,%s,%s,%.2f\n", p, h, h / b}'
    for mth in genalpha genalpha-full; do
        g=$(BENCH_METHOD=$mth per ga_step $p 1 newton_iteration)
        awk -v g="$g" -v b="$bare" -v p="$p" -v m="$mth" 'BEGIN {printf "%s iteration,%s,%s,%.2f\n", m, p, g, g / b}'
    done
done

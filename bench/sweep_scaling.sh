#!/bin/bash
# Strong scaling of `liedyn sweep`: one sweep of 1,000 heavy-top cases whose costs differ by
# two orders of magnitude (t_end log-uniform in [0.01, 2] s at dt = 1e-3: 10 to 2,000 steps),
# run in this process (the baseline), in N local worker processes, and under mpirun with
# N + 1 ranks (rank 0 hands out the cases, ranks 1 … N run them). CSV on stdout:
#   mode,workers,cases,wall_s,speedup,efficiency,case_cpu_s,master_cpu_s,master_us_per_case,
#   overhead_us_per_case,same_table
# speedup = baseline wall / wall; efficiency = speedup / workers; case_cpu_s = the sum of the
# cases' cpu_s (their steps); overhead_us_per_case = (workers × wall − case_cpu_s) / cases,
# all the workers' time not spent stepping (reading the model, setting up, handing out, idle
# at the end); same_table = the table equals the baseline's without its cpu_s column.
# usage: sweep_scaling.sh LIEDYN [MAX_WORKERS]   (BENCH_QUICK=1: 40 cases, seconds)
set -u
LIEDYN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MAXW=${2:-$(nproc 2>/dev/null || echo 2)}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
N=1000
[ "${BENCH_QUICK:-0}" != 0 ] && N=40
cat >scaling.yaml <<EOF
model: heavy-top
dt: 1e-3
samples: $N
seed: 7
random:
  integrator.t_end: {loguniform: [0.01, 2]}
record: [{final_state: [top]}, energy_drift, status, cpu_time]
EOF
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# run MODE WORKERS CMD...: one CSV line
base_wall=""
run() {
    mode=$1 workers=$2
    shift 2
    rm -f t.csv
    "$@" >out.txt 2>err.txt || { echo "sweep_scaling: $mode $workers failed: $(tail -3 err.txt)" >&2; return 1; }
    wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' err.txt)
    mcpu=$(sed -n 's/.*master_cpu_s=\([0-9.]*\).*/\1/p' err.txt)
    ccpu=$(awk -F, 'NR > 1 { s += $NF } END { printf "%.6f", s }' t.csv)
    sed 's/,[^,]*$//' t.csv >t.nocpu
    if [ -z "$base_wall" ]; then
        base_wall=$wall
        cp t.nocpu base.nocpu
    fi
    same=no
    cmp -s t.nocpu base.nocpu && same=yes
    awk -v m="$mode" -v w="$workers" -v n="$N" -v wall="$wall" -v b="$base_wall" -v cc="$ccpu" \
        -v mc="$mcpu" -v same="$same" 'BEGIN {
            sp = b / wall
            mus = (m == "serial") ? 0 : 1e6 * mc / n
            printf "%s,%d,%d,%.4f,%.3f,%.3f,%.4f,%.4f,%.1f,%.1f,%s\n", m, w, n, wall, sp, sp / w,
                   cc, mc, mus, 1e6 * (w * wall - cc) / n, same }'
}

echo "mode,workers,cases,wall_s,speedup,efficiency,case_cpu_s,master_cpu_s,master_us_per_case,overhead_us_per_case,same_table"
run serial 1 "$LIEDYN" sweep scaling.yaml --out t.csv -j 1 --stats --quiet || exit 1
w=2
while [ "$w" -le "$MAXW" ]; do
    run local "$w" "$LIEDYN" sweep scaling.yaml --out t.csv -j "$w" --stats --quiet || exit 1
    w=$((w * 2))
done
if command -v mpirun >/dev/null 2>&1 && "$LIEDYN" sweep --help | grep -q mpirun &&
    ldd "$LIEDYN" 2>/dev/null | grep -q libmpi; then
    w=1
    while [ "$w" -le "$MAXW" ]; do
        # (sanitizer builds: the leak reports of the MPI library itself are not ours)
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 run mpi "$w" mpirun -n $((w + 1)) \
            --oversubscribe "$LIEDYN" sweep scaling.yaml --out t.csv --stats --quiet || exit 1
        w=$((w * 2))
    done
else
    echo "sweep_scaling: no MPI in this build (or no mpirun): the MPI rows are left out" >&2
fi

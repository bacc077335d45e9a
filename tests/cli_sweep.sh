#!/bin/bash
# liedyn sweep / workprec end to end: the grid sweep's table is the same bit for bit in this
# process, in worker processes and under `mpirun -n 3 --oversubscribe` (skipped with a notice
# where the tool is built without MPI or mpirun is missing); a case's row agrees with
# `liedyn run` of the same model; failing cases record their status and the sweep goes on; a
# sweep killed with SIGKILL (and a half row at the end of its table) resumes without redoing the
# finished cases and gives the same table; a second sweep on a table in use is refused;
# random samples are reproducible; bad sweep files are refused naming file, line and key;
# workprec writes its table (and plot with gnuplot).
# usage: cli_sweep.sh LIEDYN SOURCE_DIR WORK_DIR HAVE_MPI(ON|OFF)
set -u
LIEDYN=$1 SRC=$2 WORK=$3 HAVE_MPI=$4
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
EX=$SRC/examples/sweep
# the table without its last column (cpu_s: the only one that measures the machine)
nocpu() { sed 's/,[^,]*$//' "$1"; }

# ---- the grid: 9 cases, serial = 2 workers = MPI
"$LIEDYN" sweep "$EX/heavy-top-grid.yaml" --out serial.csv -j 1 >serial.out 2>&1 || fail "serial sweep: $(cat serial.out)"
[ "$(wc -l <serial.csv)" -eq 10 ] || fail "serial: expected a header and 9 rows, got $(wc -l <serial.csv) lines"
"$LIEDYN" sweep "$EX/heavy-top-grid.yaml" --out jobs.csv -j 2 >jobs.out 2>&1 || fail "-j 2 sweep: $(cat jobs.out)"
cmp -s serial.csv jobs.csv || fail "the table of 2 worker processes differs from the serial one"
# per-case time series: case 8 is dt = 5e-4 to t = 0.2: a header and 401 rows
"$LIEDYN" sweep "$EX/heavy-top-grid.yaml" --out cases.csv -j 2 --case-dir cases >/dev/null 2>&1 || fail "--case-dir"
[ "$(find cases -name 'case-*.csv' | wc -l)" -eq 9 ] || fail "--case-dir: expected 9 files"
[ "$(wc -l <cases/case-00008.csv)" -eq 402 ] || fail "--case-dir: case 8 has $(wc -l <cases/case-00008.csv) lines"
awk -F, 'END { exit !($1 > 0.2 - 1e-12 && $1 < 0.2 + 1e-12) }' cases/case-00008.csv || fail "--case-dir: last row not at t = 0.2"
grep -q "9 cases (9 run, 0 taken from the table), 0 not ok" serial.out || fail "summary: $(cat serial.out)"
if [ "$HAVE_MPI" = ON ] && command -v mpirun >/dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    # leak reports of the MPI library itself are not ours (sanitizer builds)
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        mpirun -n 3 --oversubscribe "$LIEDYN" sweep "$EX/heavy-top-grid.yaml" --out mpi.csv >mpi.out 2>&1 ||
        fail "mpirun -n 3 sweep: $(tail -5 mpi.out)"
    cmp -s serial.csv mpi.csv || fail "the table of mpirun -n 3 differs from the serial one"
    [ "$(grep -c '9 cases' mpi.out)" -eq 1 ] || fail "mpirun: expected one summary (rank 0): $(cat mpi.out)"
    # random samples under MPI: the same as serial
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        mpirun -n 3 --oversubscribe "$LIEDYN" sweep "$EX/heavy-top-random.yaml" --out rmpi.csv >rmpi.out 2>&1 ||
        fail "mpirun random sweep: $(tail -5 rmpi.out)"
else
    echo "NOTICE: MPI part skipped: the tool is built without MPI or mpirun is missing" \
        "(scripts/install-deps installs libopenmpi-dev openmpi-bin)"
fi

# ---- a row against liedyn run: case 4 is dt = 1e-3, mass 15 (the shipped heavy top)
"$LIEDYN" run heavy-top --dt 1e-3 --t-end 0.2 --out run.csv >/dev/null 2>&1 || fail "liedyn run"
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
         FNR == NR { last = $0; next }
         FNR == 1 { for (i = 1; i <= NF; ++i) s[$i] = i; next }
         $1 == 4 { split(last, r, ","); n = 0
                   split("top.x top.y top.z top.qw top.qx top.qy top.qz top.wx top.wy top.wz", k, " ")
                   for (j in k) { d = r[c[k[j]]] - $(s[k[j]]); if (d < 0) d = -d
                                  if (d > 1e-12) { print k[j], r[c[k[j]]], $(s[k[j]]); bad = 1 } ; ++n }
                   found = 1 }
         END { exit !(found && !bad && n == 10) }' run.csv serial.csv || fail "case 4 differs from liedyn run"
# the mass column varies fastest: case 4 is (1e-3, 15)
awk -F, '$1 == 4 { exit !($2 == "1e-3" && $3 == "15") }' serial.csv || fail "case 4's values"

# ---- failing cases
"$LIEDYN" sweep "$EX/failing.yaml" --out failing.csv -j 2 >failing.out 2>&1 || fail "failing sweep exits $?: $(cat failing.out)"
[ "$(wc -l <failing.csv)" -eq 7 ] || fail "failing: expected 6 rows"
grep -q "6 cases (6 run, 0 taken from the table), 4 not ok" failing.out || fail "failing summary: $(cat failing.out)"
st() { awk -F, -v c="$1" '$1 == c { print $0 }' failing.csv; }
case "$(st 0)" in *,ok,*) ;; *) fail "case 0 should be ok: $(st 0)" ;; esac
case "$(st 1)" in *bad_parameter*"bodies[0].mass: must be positive"*) ;; *) fail "case 1: $(st 1)" ;; esac
case "$(st 2)" in *bad_parameter*"unknown integrator 'rk9'"*) ;; *) fail "case 2: $(st 2)" ;; esac
case "$(st 3)" in *,failed,*"Newton did not converge"*) ;; *) fail "case 3: $(st 3)" ;; esac
case "$(st 4)" in *bad_parameter*"bodies[0].inertia"*) ;; *) fail "case 4: $(st 4)" ;; esac
case "$(st 5)" in *,ok,*) ;; *) fail "case 5 should be ok: $(st 5)" ;; esac

# ---- killed and resumed: 40 cases of ~0.05 s in 2 workers, SIGKILL once 5 rows are written
cat >long.yaml <<EOF
model: heavy-top
t_end: 0.25
vary:
  integrator.dt: [2e-4, 1e-4]
  bodies[0].mass: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]
record: [final_state, energy_drift, status, cpu_time]
EOF
"$LIEDYN" sweep long.yaml --out full.csv -j 2 >/dev/null 2>&1 || fail "long sweep"
"$LIEDYN" sweep long.yaml --out part.csv -j 2 >/dev/null 2>&1 &
pid=$!
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do
    [ -f part.csv ] && [ "$(wc -l <part.csv)" -ge 6 ] && break
    sleep 0.1
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
done_rows=$(($(wc -l <part.csv) - 1))
if [ "$done_rows" -ge 40 ]; then
    echo "NOTICE: the sweep finished before it was killed; resuming a complete table"
fi
# every line of the killed table is whole (ends in a newline and has all columns)
ncol=$(head -1 full.csv | tr ',' '\n' | wc -l)
awk -F, -v n="$ncol" 'NF != n { exit 1 }' part.csv || fail "the killed sweep left a partial row"
cp part.csv killed.csv
printf '39,1e-4,29,0.123' >>part.csv # a half row, as a kill in the middle of a write leaves it
"$LIEDYN" sweep long.yaml --out part.csv -j 2 >resume.out 2>resume.err || fail "resume: $(cat resume.err)"
grep -q "$((40 - done_rows)) run, $done_rows taken from the table" resume.out ||
    fail "resume should take $done_rows rows from the table: $(cat resume.out)"
grep -q "1 incomplete or malformed row dropped" resume.err || fail "the half row was not reported"
cmp -s <(nocpu full.csv) <(nocpu part.csv) || fail "the resumed table differs from the uninterrupted one"
# the finished cases were not run again: their rows (with their CPU times) are unchanged
tail -n +2 killed.csv | while IFS= read -r row; do
    grep -qxF "$row" part.csv || { echo "FAIL: row redone: $row" >&2; exit 1; }
done || fail "finished cases were run again"
# a resumed complete table runs nothing
"$LIEDYN" sweep long.yaml --out part.csv -j 2 >again.out 2>&1
grep -q "0 run, 40 taken from the table" again.out || fail "a complete table: $(cat again.out)"

# ---- two sweeps on one table: while the first runs, the second is refused (exit 2, one line
# that says what happened and names the table); the first's table stays whole; nothing of the
# second is left behind
cat >race.yaml <<EOF
model: heavy-top
t_end: 1000
vary:
  integrator.dt: [1e-3, 2e-3]
record: [final_state, status]
EOF
"$LIEDYN" sweep race.yaml --out race.csv -j 2 >race1.out 2>&1 &
pid=$!
for _ in $(seq 1 400); do [ -s race.csv ] && break; sleep 0.05; done
[ -s race.csv ] || fail "the first sweep wrote no table in 20 s: $(cat race1.out)"
timeout 20 "$LIEDYN" sweep race.yaml --out race.csv -j 1 >race2.out 2>race2.err
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <race2.err)" -eq 1 ] &&
    grep -q "sweep: 'race.csv' is being written by another sweep" race2.err ||
    fail "a second sweep on a table in use: exit $rc: $(cat race2.err)"
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
[ "$rc" -eq 143 ] || fail "the first sweep, stopped: exit $rc: $(cat race1.out)"
head -1 race.csv | grep -q '^case,integrator.dt,' || fail "the raced table has no header: $(cat race.csv)"
ncol=$(head -1 race.csv | tr ',' '\n' | wc -l)
awk -F, -v n="$ncol" 'NF != n { exit 1 }' race.csv || fail "the raced table is not whole: $(cat race.csv)"
ls -a | grep -q '^race\.csv\..*tmp' && fail "a temporary of the raced table was left: $(ls -a | grep tmp)"

# The sweep's worker processes (children of the process $1), one per line: pid state.
workers_of() {
    awk -v p="$1" '$4 == p { print $1, $3 }' /proc/[0-9]*/stat 2>/dev/null
}

# ---- a worker that dies in a case (SIGSEGV): the case is recorded as crashed, a new worker
# takes over, the sweep goes on. The worker killed is one that computes (state R), not one
# that waits for its next case.
"$LIEDYN" sweep long.yaml --out crash.csv -j 2 >crash.out 2>crash.err &
pid=$!
worker=""
for _ in $(seq 1 200); do
    if [ -f crash.csv ] && [ "$(wc -l <crash.csv)" -ge 2 ]; then
        worker=$(workers_of "$pid" | awk '$2 == "R" { print $1; exit }')
        [ -n "$worker" ] && break
    fi
    sleep 0.02
done
[ -n "$worker" ] || fail "a crashed worker: no worker of the sweep found computing"
kill -SEGV "$worker" 2>/dev/null
wait $pid
rc=$?
[ "$rc" -eq 0 ] || fail "a crashed worker: the sweep exits $rc: $(cat crash.out crash.err)"
[ "$(wc -l <crash.csv)" -eq 41 ] || fail "a crashed worker: expected 40 rows, got $(($(wc -l <crash.csv) - 1))"
ncrash=$(grep -c ',crashed,' crash.csv)
if [ "$ncrash" -eq 0 ] && grep -q "a worker waiting for its next case" crash.err; then
    # the case ended between the look at the worker's state and the signal
    echo "NOTICE: the worker was killed between two cases; every case ran"
    grep -q "40 cases (40 run" crash.out || fail "a worker killed between cases: $(cat crash.out)"
else
    [ "$ncrash" -eq 1 ] || fail "a crashed worker: expected one crashed row: $(grep -v ',ok,' crash.csv)"
    grep -q ',crashed,,the worker running the case \(died by signal 11\|exited with status\)' crash.csv ||
        fail "a crashed worker: message: $(grep crashed crash.csv)"
    grep -q "1 not ok" crash.out || fail "a crashed worker: summary $(cat crash.out)"
fi

# ---- a worker that dies while it waits for its next case: the sweep is stopped (SIGSTOP), so
# that its workers finish their cases and wait; one is killed, the sweep continues. The case
# it would have been given goes to a new worker: every case runs, none is crashed.
"$LIEDYN" sweep long.yaml --out idle.csv -j 2 >idle.out 2>idle.err &
pid=$!
for _ in $(seq 1 200); do
    [ -f idle.csv ] && [ "$(wc -l <idle.csv)" -ge 2 ] && break
    sleep 0.02
done
kill -STOP $pid
waiting=0
for _ in $(seq 1 200); do # both workers asleep in their read, twice in a row
    if [ "$(workers_of "$pid" | awk '$2 == "S"' | wc -l)" -eq 2 ]; then
        waiting=$((waiting + 1))
        [ "$waiting" -ge 2 ] && break
    else
        waiting=0
    fi
    sleep 0.05
done
worker=$(workers_of "$pid" | awk '{ print $1; exit }')
[ "$waiting" -ge 2 ] && [ -n "$worker" ] || fail "a worker waiting for a case: none found: $(workers_of "$pid")"
kill -SEGV "$worker"
for _ in $(seq 1 100); do # until it is a zombie (its parent, stopped, cannot reap it yet)
    awk '$3 == "Z" { exit 1 }' "/proc/$worker/stat" 2>/dev/null || break
    sleep 0.02
done
kill -CONT $pid
wait $pid
rc=$?
[ "$rc" -eq 0 ] || fail "a worker killed between cases: the sweep exits $rc: $(cat idle.out idle.err)"
[ "$(wc -l <idle.csv)" -eq 41 ] ||
    fail "a worker killed between cases: expected 40 rows, got $(($(wc -l <idle.csv) - 1)): $(cat idle.out)"
[ "$(grep -c ',ok,' idle.csv)" -eq 40 ] || fail "a worker killed between cases: $(grep -v ',ok,' idle.csv)"
grep -q "a worker waiting for its next case \(died by signal 11\|exited with status\)" idle.err ||
    fail "a worker killed between cases: no word of it: $(cat idle.err)"

# ---- random samples: reproducible, in range, whoever runs them
"$LIEDYN" sweep "$EX/heavy-top-random.yaml" --out r1.csv -j 1 >/dev/null 2>&1 || fail "random sweep"
"$LIEDYN" sweep "$EX/heavy-top-random.yaml" --out r2.csv -j 2 >/dev/null 2>&1 || fail "random sweep -j 2"
cmp -s <(nocpu r1.csv) <(nocpu r2.csv) || fail "random samples differ between -j 1 and -j 2"
if [ -f rmpi.csv ]; then cmp -s <(nocpu r1.csv) <(nocpu rmpi.csv) || fail "random samples differ under MPI"; fi
awk -F, 'NR > 1 && !($2 >= 10 && $2 <= 20 && $4 >= 2e-4 && $4 <= 2e-3) { exit 1 }' r1.csv || fail "random values out of range"
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
         !($(c["status"]) == "ok" && $(c["rot_error"]) > 0 && $(c["rot_error"]) < 1e-2) { exit 1 }' r1.csv ||
    fail "random: errors against the reference run not small and positive"
# the error falls with the step (second order): the case with the smallest dt has the smallest error
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
         { h = $(c["integrator.dt"]); e = $(c["rot_error"])
           if (NR == 2 || h < hmin) { hmin = h; emin = e } if (NR == 2 || h > hmax) { hmax = h; emax = e } }
         END { exit !(emin < emax / 5) }' r1.csv || fail "random: the error does not fall with the step"

# ---- bad sweep files: one line naming file, line and key; exit 2
bad() { # NAME EXPECTED_TEXT YAML
    printf '%s\n' "$3" >"$1.yaml"
    "$LIEDYN" sweep "$1.yaml" --out "$1.csv" >"$1.out" 2>"$1.err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2"
    grep -qF "$2" "$1.err" || fail "$1: expected '$2', got: $(cat "$1.err")"
    [ "$(wc -l <"$1.err")" -eq 1 ] || fail "$1: expected one line: $(cat "$1.err")"
}
bad nopath "nopath.yaml:3: vary: bodies[3].mass: index 3 is out of range" \
    "model: heavy-top
vary:
  bodies[3].mass: [1, 2]"
bad nokey "nokey.yaml:3: vary: bodies[0].colour.r: the model has no key 'colour'" \
    "model: heavy-top
vary:
  bodies[0].colour.r: [1, 2]"
bad unknown "unknown.yaml:2: colour: unknown key" \
    "model: heavy-top
colour: red
vary: {integrator.dt: [1e-3]}"
bad nomodel "nomodel.yaml:1: model: 'no-such-model' is neither" \
    "model: no-such-model
vary: {integrator.dt: [1e-3]}"
bad novary "novary.yaml:1: vary: required" "model: heavy-top"
bad dist "dist.yaml:4: random: bodies[0].mass: unknown distribution 'gamma'" \
    "model: heavy-top
samples: 3
seed: 1
random: {\"bodies[0].mass\": {gamma: [1, 2]}}"
bad flowkey "flowkey.yaml:2: did not find expected ',' or '}' (in a flow mapping { }, quote a path" \
    "model: heavy-top
vary: {bodies[0].mass: [1, 2]}"
bad noref "noref.yaml:3: record: error needs a reference" \
    "model: heavy-top
vary: {integrator.dt: [1e-3]}
record: [error]"
# a table of another sweep is not overwritten
"$LIEDYN" sweep "$EX/failing.yaml" --out serial.csv >other.out 2>&1
rc=$?
if [ "$rc" -ne 2 ] || ! grep -q "holds another table" other.out; then
    fail "another sweep's table: exit $rc: $(cat other.out)"
fi
"$LIEDYN" sweep "$EX/failing.yaml" --out serial.csv --fresh >/dev/null 2>&1 || fail "--fresh"

# ---- workprec: one table row per integrator and setting; the error falls with the tolerance
"$LIEDYN" workprec heavy-top --integrators hem5,genalpha --tolerances 1e-4,1e-6 --t-end 0.1 \
    --dt-list 2e-3,1e-3 --ref-dt 1e-5 --out wp.csv -j 2 >wp.out 2>&1 || fail "workprec: $(cat wp.out)"
[ "$(wc -l <wp.csv)" -eq 5 ] || fail "workprec: expected 4 rows: $(cat wp.csv)"
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
         { e[NR] = $(c["rot_error"]); if ($(c["status"]) != "ok") bad = 1 }
         END { exit !(!bad && e[3] < e[2] && e[5] < e[4] && e[2] > 0 && e[4] > 0) }' wp.csv ||
    fail "workprec: errors do not fall with the tolerance and the step: $(cat wp.csv)"
# the human table rounds the exact numbers of the CSV: dt 0.0005, not 0.00050000000000000001
"$LIEDYN" workprec heavy-top --integrators genalpha --dt-list 5e-4 --t-end 0.01 --ref-dt 1e-4 \
    --out wp2.csv >wp2.out 2>&1 || fail "workprec 5e-4: $(cat wp2.out)"
grep -q "genalpha  *dt 0.0005  " wp2.out || fail "workprec: the dt shown as $(grep genalpha wp2.out)"
if command -v gnuplot >/dev/null 2>&1; then
    "$LIEDYN" workprec heavy-top --integrators hem5,genalpha --tolerances 1e-4,1e-6 --t-end 0.1 \
        --dt-list 2e-3,1e-3 --ref-dt 1e-5 --out wp.csv --plot wp.png >/dev/null 2>&1 || fail "workprec --plot"
    [ -s wp.png ] || fail "workprec: no plot"
fi

[ "$fails" -eq 0 ] && echo "cli_sweep: all checks passed"
[ "$fails" -eq 0 ]

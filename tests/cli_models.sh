#!/bin/bash
# Every shipped model runs with every integrator of the table in every formulation, for three
# small steps — or is refused with the integrator's or the compiler's stated reason (exit 2,
# "cannot run this model: …" / "cannot compile the model: …"), or, for a half-explicit method
# (no projection here), stops with exit 6 and its one line when the positions drift off the
# joints beyond the default --constraint-tol (hem1 on the heavy top, hem2 on the flyball
# governor: their drift grows to centimetres within 1 s). Any other outcome fails. (The
# N-four-bars take a subset: see below.)
# usage: cli_models.sh LIEDYN SOURCE_DIR
set -u
LIEDYN=$1 SRC=$2
fails=0 ran=0 refused=0 drifted=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# the integrators, from the table as `liedyn run --help` lists them
methods=$("$LIEDYN" run --help | sed -n '/^integrators/,$p' | awk 'NR > 1 { print $1 }')
[ -n "$methods" ] || { echo "FAIL: no integrator listed by run --help" >&2; exit 1; }

# The N-four-bars (81 bodies, 121 joints) take every integrator in so3xr3 and genalpha in
# every formulation: the combinations of both are the other models' (and test_redundant's).
forms_all="so3xr3 se3 s3xr3 s3sdr3 so3xr3-spatial s3xr3-spatial euler tree"
for model in "$SRC"/models/*.yaml; do
    for meth in $methods; do
        forms=$forms_all
        case $(basename "$model") in
        n-four-bar*) [ "$meth" = genalpha ] || forms=so3xr3 ;;
        esac
        for form in $forms; do
            err=$("$LIEDYN" run "$model" --integrator "$meth" --formulation "$form" --dt 1e-4 \
                --t-end 3e-4 --quiet 2>&1 >/dev/null)
            rc=$?
            if [ "$rc" -eq 0 ]; then
                ran=$((ran + 1))
            elif [ "$rc" -eq 2 ] && echo "$err" | grep -Eq "cannot (run|compile) the model: .+|cannot run this model: .+"; then
                refused=$((refused + 1))
            elif [ "$rc" -eq 6 ] && case $meth in hem*) true ;; *) false ;; esac &&
                [ "$(echo "$err" | grep -c "^liedyn: run drifted off its constraints at t = .*--project")" -eq 1 ]; then
                drifted=$((drifted + 1))
            else
                fail "$(basename "$model") $meth $form: exit $rc: $err"
            fi
        done
    done
done
echo "cli_models: $ran runs, $refused refusals with their reason, $drifted half-explicit runs stopped as drifted"
[ "$ran" -gt 100 ] || fail "only $ran runs"
[ "$fails" -eq 0 ]

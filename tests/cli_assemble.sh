#!/bin/sh
# liedyn assemble (docs/model-format.md#assembly): the slider-crank of joints in the frame form,
# no body placed, is assembled from its held crank angle; the written model reads back with
# nothing left to assemble and runs like the original (its summary to round-off); a model that
# cannot close is refused with the joint, its line and the gap (exit 2); output that cannot be
# written exits 4 and leaves nothing behind; the run's summary and JSON carry the assembly.
# usage: cli_assemble.sh LIEDYN WORK_DIR
set -u
LIEDYN=$1 WORK=$2
rm -rf "$WORK"
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

out=$("$LIEDYN" assemble slider-crank --out "$WORK/sc.yaml" 2>&1) || fail "assemble: $out"
echo "$out" | grep -q "^slider-crank: assembled$" || fail "no headline: $out"
echo "$out" | grep -Eq "assembly: 3 bodies placed by their joints, [0-9]+ Newton iterations; largest gap 0.0136 m at joint 'P' \(line 38\)" ||
    fail "assembly line: $out"
echo "$out" | grep -Eq "joint residual [0-9.]+e-1[5-9]" || fail "residual: $out"
[ -s "$WORK/sc.yaml" ] && [ ! -e "$WORK/sc.yaml.tmp" ] || fail "no written model"
grep -q "position: \[" "$WORK/sc.yaml" || fail "written model has no positions"

# read back: placed and closed, so nothing moves
json=$("$LIEDYN" assemble "$WORK/sc.yaml" --json 2>&1) || fail "assemble written: $json"
echo "$json" | grep -q '"placed": 0, "iterations": 0' || fail "written model re-assembled: $json"
echo "$json" | grep -q '"moved": 0, "turned": 0' || fail "written model moved: $json"

# the original and the written model run alike (to the 6 digits of the summary; the entries
# below 1e-20 that are round-off out of the plane set to 0)
tiny() { grep -E "^  (crank|rod|slider):" | sed -E 's/-?[0-9.]+e-[2-9][0-9]/0/g'; }
a=$("$LIEDYN" run slider-crank --t-end 0.5 2>&1 | tiny)
b=$("$LIEDYN" run "$WORK/sc.yaml" --t-end 0.5 2>&1 | tiny)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "runs differ: '$a' vs '$b'"

# the run's summary and JSON say what assembly did
out=$("$LIEDYN" run slider-crank --t-end 0.01 2>&1) || fail "run: $out"
echo "$out" | grep -q "^  assembly: 3 bodies placed by their joints" || fail "run summary: $out"
json=$("$LIEDYN" run slider-crank --t-end 0.01 --json 2>&1) || fail "run json: $json"
echo "$json" | grep -q '"assembly": {"placed": 3, "iterations": [0-9]*, "gap": 0.0136' ||
    fail "run json: $json"

# a rod too short: refused with the joint, its line and the gap; nothing written
cat >"$WORK/short.yaml" <<'YAML'
bodies:
  - {name: crank, mass: 0.5, inertia: [1e-4, 2e-3, 2e-3]}
  - {name: rod, mass: 1.0, inertia: [1e-4, 3e-2, 3e-2]}
  - {name: slider, mass: 2.0, inertia: [3e-3, 5e-3, 5e-3]}
joints:
  - {name: O, type: revolute, body1: ground, body2: crank, frame1: {}, frame2: {at: [-0.1, 0, 0]}, angle: 1.5708, hold: true}
  - {name: A, type: revolute, body1: crank, body2: rod, frame1: {at: [0.1, 0, 0]}, frame2: {at: [-0.05, 0, 0]}, angle: -1.0}
  - {name: B, type: revolute, body1: rod, body2: slider, frame1: {at: [0.05, 0, 0]}, frame2: {}}
  - {name: P, type: prismatic, body1: ground, body2: slider, frame1: {axis: [1, 0, 0]}, frame2: {axis: [1, 0, 0]}}
YAML
err=$("$LIEDYN" assemble "$WORK/short.yaml" --out "$WORK/short-out.yaml" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "short rod: exit $rc"
[ "$(echo "$err" | wc -l)" -eq 1 ] || fail "short rod: more than one line: $err"
echo "$err" | grep -Eq "short.yaml:[0-9]+: joints\[[123]\]: joint [123] \('[ABP]'\) cannot be closed: a gap of 0.05 m remains" ||
    fail "short rod: $err"
echo "$err" | grep -q "with joint 0 ('O') held at angle 1.5708 rad" || fail "short rod hold: $err"
[ ! -e "$WORK/short-out.yaml" ] || fail "short rod: output written"
err=$("$LIEDYN" run "$WORK/short.yaml" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "cannot be closed" || fail "run short rod: $err"

# unwritable output: exit 4, no temporary left
err=$("$LIEDYN" assemble slider-crank --out "$WORK/no/such/dir/x.yaml" 2>&1)
rc=$?
[ "$rc" -eq 4 ] && echo "$err" | grep -q "writing '.*x.yaml' failed" || fail "unwritable: exit $rc: $err"
err=$("$LIEDYN" assemble slider-crank --frobnicate 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "unknown option '--frobnicate'" || fail "bad option: $err"
"$LIEDYN" assemble --help | grep -q "usage: liedyn assemble MODEL" || fail "help"

# a model without the frame form: nothing to assemble
out=$("$LIEDYN" assemble four-bar 2>&1) || fail "four-bar: $out"
echo "$out" | grep -q "nothing to assemble" || fail "four-bar: $out"
# nothing to place, but a joint in the point form left open: said, exit 2 (before: "closed at
# the start by construction")
printf 'bodies:\n  - {name: top, mass: 1, inertia: [1, 1, 1], position: [0, 2, 0]}\njoints:\n  - {name: pivot, type: spherical, body: top, point: [0, -1, 0]}\n' >"$WORK/open.yaml"
err=$("$LIEDYN" assemble "$WORK/open.yaml" 2>&1 >/dev/null)
[ $? -eq 2 ] && echo "$err" | grep -q "nothing to assemble (.*), but the start is inconsistent: joint 0 ('pivot') is not closed at the start: the joint point's two copies are 1 m apart" ||
    fail "an open joint: $err"

[ "$fails" -eq 0 ] && echo "cli_assemble: ok"
[ "$fails" -eq 0 ]

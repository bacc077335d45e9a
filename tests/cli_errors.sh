#!/bin/sh
# liedyn run on bad and hostile models: exit code 2 and the exact one-line message naming the
# file, the line, the item and the reason — deep nesting, a file over the size limit, repeated
# names in a rod of 10^5 segments, redundant joints, a mass beyond double precision, a joint not
# closed at the start, an unknown integrator, a body called ground, a number tagged as a
# string, a rod in the euler formulation — and a warning (exit 0) for a model that does not
# start on its exact solution.
# usage: cli_errors.sh LIEDYN SOURCE_DIR WORK_DIR
set -u
LIEDYN=$1 SRC=$2 WORK=$3
mkdir -p "$WORK"
cd "$WORK" || exit 1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# refused MESSAGE ARGS...: `liedyn run ARGS...` exits 2 with exactly "liedyn: MESSAGE" on stderr
refused() {
    want=$1
    shift
    "$LIEDYN" run "$@" >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq 2 ] || fail "'$*': exit $rc, expected 2 ($(cat err.txt))"
    [ "$(cat err.txt)" = "liedyn: $want" ] || fail "'$*': stderr
  got:  $(cat err.txt)
  want: liedyn: $want"
}

# ---------------------------------------------------------------- limits of the reader

awk 'BEGIN { s = "a: "; for (i = 0; i < 100000; ++i) s = s "["; for (i = 0; i < 100000; ++i) s = s "]"; print s }' >deep.yaml
refused "deep.yaml:1: (document): nesting deeper than 64 levels (the limit of a model file)" deep.yaml

# 65 MB of comments, generated here (never committed), removed after the check
{ echo "# a large file"; yes "# padding padding padding padding padding padding padding padding" | head -c 68000000; } >big.yaml
refused "big.yaml:0: (file): larger than 64 MB (the limit of a model file)" big.yaml
rm -f big.yaml

# a body named like a node in the middle of a rod of 10^5 segments
cat >dup-rod.yaml <<'EOF'
bodies:
  - {name: 'rod[77777]', mass: 1, inertia: [1, 1, 1], position: [0, 0, 5]}
rods:
  - name: rod
    segments: 100000
    from: [0, 0, 0]
    to: [10, 0, 0]
    stiffness: [500, 500, 500, 1e4, 1e4, 1e4]
    rho_a: 1
    rho_i: [10, 10, 10]
EOF
refused "dup-rod.yaml:4: rods[0].name: the node 'rod[77777]' would have the name of bodies[0]" dup-rod.yaml

# ---------------------------------------------------------------- the reader's refusals

cat >ground.yaml <<'EOF'
bodies:
  - name: ground
    mass: 1
    inertia: [1, 1, 1]
    position: [0, 0, 0]
EOF
refused "ground.yaml:2: bodies[0].name: 'ground' is reserved: joints use it for the fixed frame" ground.yaml

sed 's/name: ground/name: top/; s/mass: 1/mass: !!str 15/' ground.yaml >str-mass.yaml
refused "str-mass.yaml:3: bodies[0].mass: expected a number, found '15' tagged !!str (not a number)" str-mass.yaml

cat >rk9.yaml <<'EOF'
bodies:
  - {name: a, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}
integrator:
  dt: 0.01
  name: rk9
EOF
refused "rk9.yaml:5: integrator.name: unknown integrator 'rk9' (expected one of: genalpha, newmark, tb3, tb3-paper, hht, hht-modified, hem1, hem2, hem3, hem4, hem5, newmark-beta, split2, split4, split6, split8, moreau)" rk9.yaml

# ---------------------------------------------------------------- compiling and starting

# the heavy top with its centre of mass moved away from the pivot
sed 's/position: \[0, 1, 0\]/position: [0, 2, 0]/' "$SRC/models/heavy-top.yaml" >open-joint.yaml
line=$(grep -n "name: pivot" open-joint.yaml | cut -d: -f1)
refused "open-joint.yaml: inconsistent initial state: joint 0 ('pivot') is not closed at the start: the joint point's two copies are 1 m apart; the start must close it to 1e-9 times the model's size 2 m; joints[0] at line $line" open-joint.yaml

refused "$SRC/models/roll-up.yaml: cannot compile the model: rods need a Lie-group formulation (so3xr3, se3, s3xr3, s3sdr3, so3xr3-spatial or s3xr3-spatial); the euler formulation does not support them" roll-up --formulation euler

cat >two-spherical.yaml <<'EOF'
bodies:
  - {name: arm, mass: 1, inertia: [1, 2, 3], position: [0, 1, 0]}
joints:
  - {name: a, type: spherical, body1: ground, body2: arm, at: [0, 0, 0]}
  - {name: b, type: spherical, body1: ground, body2: arm, at: [0, 0, 0]}
EOF
# redundant but consistent joints run: the dependent rows are left out and the summary says so
runs_redundant() {
    want=$1
    shift
    "$LIEDYN" run "$@" --t-end 0.01 >out.txt 2>err.txt || fail "'$*': exit $? ($(cat err.txt))"
    grep -qF "$want" out.txt || fail "'$*': no '$want' in: $(cat out.txt)"
}
runs_redundant "redundant: 3 joint equations left out, dependent on the others (joint 'b' (line 5) rows 1, 2, 3)" two-spherical.yaml

cat >fixed-revolute.yaml <<'EOF'
bodies:
  - {name: arm, mass: 1, inertia: [1, 2, 3], position: [0, 1, 0]}
joints:
  - name: weld
    type: fixed
    body2: arm
    at: [0, 0, 0]
  - name: hinge
    type: revolute
    body2: arm
    at: [0, 0, 0]
    axis: [0, 0, 1]
EOF
runs_redundant "redundant: 5 joint equations left out, dependent on the others (joint 'hinge' (line 8) rows 1, 2, 3, 4, 5)" fixed-revolute.yaml
# the same in Euler parameters (a dense Jacobian) and with a sparse solver
runs_redundant "joint 'hinge' (line 8) rows 1, 2, 3, 4, 5" fixed-revolute.yaml --formulation euler
runs_redundant "joint 'hinge' (line 8) rows 1, 2, 3, 4, 5" fixed-revolute.yaml --la klu

# joints that cannot both hold are still refused
cat >two-points.yaml <<'EOF'
bodies:
  - {name: arm, mass: 1, inertia: [1, 2, 3], position: [0, 1, 0]}
joints:
  - {name: a, type: spherical, body: arm, point: [0, -1, 0], ground: [0, 0, 0]}
  - {name: b, type: spherical, body: arm, point: [0, -1, 0], ground: [0, 0.5, 0]}
EOF
refused "two-points.yaml: inconsistent initial state: joint 1 ('b') is not closed at the start: the joint point's two copies are 0.5 m apart; the start must close it to 1e-9 times the model's size 1 m; joints[1] at line 5" two-points.yaml

# the half-explicit methods without projection on a closed loop are cautioned before the run
"$LIEDYN" run four-bar --integrator hem5 --t-end 0.01 >out.txt 2>err.txt || fail "hem5 four-bar: exit $?"
grep -qF "warning: $SRC/models/four-bar.yaml: hem5: without --project" err.txt ||
    fail "hem5 four-bar: no caution: $(cat err.txt)"
"$LIEDYN" run four-bar --integrator hem5 --project --t-end 0.01 >out.txt 2>err.txt || fail "hem5 --project: exit $?"
[ ! -s err.txt ] || fail "hem5 --project four-bar: $(cat err.txt)"
"$LIEDYN" run four-bar --integrator newmark --t-end 0.01 >out.txt 2>err.txt || fail "newmark: exit $?"
grep -qF "no numerical damping" err.txt || fail "newmark four-bar: no caution: $(cat err.txt)"

# a mechanism started at a singular position (a parallelogram with its links aligned)
cat >aligned.yaml <<'EOF'
bodies:
  - {name: crank, mass: 1, inertia: [0.1, 0.1, 0.1], position: [0.5, 0, 0]}
  - {name: coupler, mass: 1, inertia: [0.1, 0.1, 0.1], position: [1.5, 0, 0]}
  - {name: rocker, mass: 1, inertia: [0.1, 0.1, 0.1], position: [1.5, 0, 0]}
joints:
  - {name: A, type: revolute, body2: crank, at: [0, 0, 0], axis: [0, 0, 1]}
  - {name: B, type: revolute, body1: crank, body2: coupler, at: [1, 0, 0], axis: [0, 0, 1]}
  - {name: C, type: revolute, body1: coupler, body2: rocker, at: [2, 0, 0], axis: [0, 0, 1]}
  - {name: D, type: revolute, body2: rocker, at: [1, 0, 0], axis: [0, 0, 1]}
EOF
"$LIEDYN" run aligned.yaml >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 2 ] || fail "aligned.yaml: exit $rc, expected 2"
grep -qF "the initial configuration is a singular position of the mechanism" err.txt ||
    fail "aligned.yaml: $(cat err.txt)"

sed 's/mass: 15\.0.*/mass: 1e300/' "$SRC/models/heavy-top.yaml" >heavy-mass.yaml
line=$(grep -n "name: top" heavy-mass.yaml | cut -d: -f1)
refused "heavy-mass.yaml: no consistent initial accelerations at t = 0: the mass matrix is singular to working precision: the masses and moments of inertia span a factor 4.27e+300, from 0.234375 (moment J11 of body 'top', line $line) to 1e+300 (mass of body 'top', line $line); keep them within a factor 1e12 of each other" heavy-mass.yaml

# ---------------------------------------------------------------- a warning, not an error

# torque-body-ii's exact torque, but the body starts at the identity (1 rad off ϑ(0))
sed 's/orientation: .*/orientation: [1, 0, 0, 0]/' "$SRC/models/torque-body-ii.yaml" >off-start.yaml
line=$(grep -n "name: body" off-start.yaml | cut -d: -f1)
"$LIEDYN" run off-start.yaml --t-end 0.1 --quiet >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 0 ] || fail "off-start.yaml: exit $rc ($(cat err.txt))"
want="liedyn run: warning: off-start.yaml: body 'body' (line $line) starts 1 rad from the rotation [0.877582561890373, 0, 0, 0.479425538604203] that its exact_torque load (case ii) prescribes at t = 0; the angle errors will include this offset"
[ "$(cat err.txt)" = "$want" ] || fail "off-start.yaml: stderr
  got:  $(cat err.txt)
  want: $want"
# the shipped model starts on its exact solution: no warning
"$LIEDYN" run torque-body-ii --t-end 0.1 --quiet >out.txt 2>err.txt || fail "torque-body-ii: $(cat err.txt)"
[ -s err.txt ] && fail "torque-body-ii warns: $(cat err.txt)"

# ---------------------------------------------------------------- liedyn static

# static_exit CODE MESSAGE-PART ARGS...: `liedyn static ARGS...` exits CODE, stderr holds the part
static_exit() {
    code=$1 part=$2
    shift 2
    "$LIEDYN" static "$@" >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq "$code" ] || fail "static $*: exit $rc, expected $code ($(cat err.txt))"
    grep -qF -- "$part" err.txt || fail "static $*: stderr '$(cat err.txt)' lacks '$part'"
}
static_exit 2 "liedyn: static: no model given" --steps 3
static_exit 2 "liedyn: static: --steps must be 1 ... 1000000, found '0'" beam-roll-up --steps 0
static_exit 2 "liedyn: static: unknown option '--dt'" beam-roll-up --dt 0.1
static_exit 2 "beams need a Lie-group formulation" beam-roll-up --formulation euler
# a free beam under a force is a mechanism: no equilibrium, exit 3 with the load fraction
sed 's/    clamp: start//' "$SRC/models/beam-roll-up.yaml" | sed 's/type: torque/type: force/' >free-beam.yaml
static_exit 3 "at load fraction" free-beam.yaml --steps 2
"$LIEDYN" static beam-roll-up --steps 1 --json >out.txt 2>err.txt || fail "static beam-roll-up: $(cat err.txt)"
grep -q '"status": "ok"' out.txt || fail "static beam-roll-up --json: $(cat out.txt)"

# ---------------------------------------------------------------- liedyn modes

# modes_exit CODE MESSAGE-PART ARGS...: `liedyn modes ARGS...` exits CODE, stderr holds the part
modes_exit() {
    code=$1 part=$2
    shift 2
    "$LIEDYN" modes "$@" >out.txt 2>err.txt
    rc=$?
    [ "$rc" -eq "$code" ] || fail "modes $*: exit $rc, expected $code ($(cat err.txt))"
    grep -qF -- "$part" err.txt || fail "modes $*: stderr '$(cat err.txt)' lacks '$part'"
}
modes_exit 2 "liedyn: modes: no model given" --count 3
modes_exit 2 "liedyn: modes: --count must be 0 ... 1000000, found '-1'" four-bar --count -1
modes_exit 2 "liedyn: modes: unknown option '--dt'" four-bar --dt 0.1
modes_exit 2 "liedyn: modes: --count needs a value" four-bar --count
modes_exit 2 "liedyn: modes: unknown formulation 'so4'" four-bar --formulation so4
modes_exit 3 "no static equilibrium" free-beam.yaml --steps 2
modes_exit 4 "modes: cannot write" simple-pendulum --csv /nonexistent-dir/m.csv
modes_exit 2 "liedyn: modes: --campbell wants FROM:TO:N" simple-pendulum --campbell 5:1:3
modes_exit 2 "liedyn: modes: --plot needs --campbell" simple-pendulum --plot x.png
modes_exit 2 "no body of the model turns at the start" simple-pendulum --campbell 0:10:3
modes_exit 2 "liedyn: modes: --sparse gives undamped modes at rest" right-angle-cantilever --sparse --damped
modes_exit 2 "the system has no sparse tangent blocks" four-bar --sparse --formulation euler
# --sparse with joints: the four-bar's mode as on the dense path (docs/modes.md)
"$LIEDYN" modes four-bar --sparse --csv sparse.csv >out.txt 2>err.txt || fail "modes four-bar --sparse: $(cat err.txt)"
"$LIEDYN" modes four-bar --csv dense.csv >out.txt 2>err.txt || fail "modes four-bar: $(cat err.txt)"
paste -d, sparse.csv dense.csv | awk -F, -v n="$(head -1 dense.csv | awk -F, '{ print NF }')" \
    'NR == 2 { d = $3 / $(n + 3) - 1; exit !(d < 1e-12 && d > -1e-12) }' ||
    fail "modes four-bar --sparse against dense: $(cat sparse.csv dense.csv)"
# from 2000 unknowns on undamped modes take the sparse path without --sparse; --damped the dense
cat >big-beam.yaml <<'YAML'
name: big-beam
beams:
  - {name: b, order: 4, elements: 90, from: [0, 0, 0], to: [10, 0, 0], normal: [0, 1, 0],
     section: {EA: 1.0e+5, GA2: 1.0e+5, GA3: 1.0e+5, GJ: 100, EI2: 100, EI3: 150},
     rho_a: 1, rho_j: [0.02, 0.01, 0.01], clamp: start}
YAML
"$LIEDYN" modes big-beam.yaml --no-static --count 2 >out.txt 2>err.txt || fail "modes big-beam: $(cat err.txt)"
grep -q "2160 velocities.*sparse: 2 modes by subspace iteration" out.txt ||
    fail "modes big-beam without --sparse: not the sparse path: $(head -1 out.txt)"
sed -i 's/elements: 90/elements: 80/' big-beam.yaml
"$LIEDYN" modes big-beam.yaml --no-static --count 2 >out.txt 2>err.txt || fail "modes big-beam 80: $(cat err.txt)"
grep -q "1920 velocities" out.txt && ! grep -q "sparse:" out.txt ||
    fail "modes big-beam of 1920 unknowns: not the dense path: $(head -1 out.txt)"
"$LIEDYN" modes simple-pendulum --csv modes.csv >out.txt 2>err.txt || fail "modes simple-pendulum: $(cat err.txt)"
grep -q "^1,0.4984879" modes.csv || fail "modes simple-pendulum --csv: $(cat modes.csv)"
# --no-loads: the IEA blade without its tip load, at its reference configuration (docs/modes.md)
"$LIEDYN" modes iea15-blade --no-loads --no-static --count 2 --csv iea.csv >out.txt 2>err.txt ||
    fail "modes iea15-blade --no-loads: $(cat err.txt)"
grep -q "^1,0.505681" iea.csv || fail "modes iea15-blade --no-loads --csv: $(head -c 300 iea.csv)"
grep -q "^2,0.691482" iea.csv || fail "modes iea15-blade --no-loads --csv: $(head -c 300 iea.csv)"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "cli_errors: all checks passed"

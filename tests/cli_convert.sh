#!/bin/sh
# liedyn convert's options for bodies with several joints: an MJCF body with two hinges at one
# point becomes one universal joint by default (its springs on the components of the relative
# rotation vector), and with --chain-joints two revolute joints through an auxiliary body whose
# mass is --aux-mass-ratio of its body's (each hinge's spring on its own angle); a ratio outside
# (0, 1] is refused. The converted models run. A hinge's springref becomes its spring's rest
# angle.
# usage: cli_convert.sh LIEDYN WORK_DIR
set -u
LIEDYN=$1 WORK=$2
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

cat > "$WORK/twohinge.xml" <<'XML'
<mujoco model="two-hinge">
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hx" type="hinge" axis="1 0 0" stiffness="2" damping="0.1"/>
      <joint name="hy" type="hinge" axis="0 1 0" stiffness="3"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/>
    </body>
  </worldbody>
</mujoco>
XML

"$LIEDYN" convert "$WORK/twohinge.xml" -o "$WORK/combined.yaml" 2>/dev/null || fail "convert"
[ "$(grep -c 'type: universal' "$WORK/combined.yaml")" = 1 ] || fail "default: not one universal joint"
grep -q 'type: revolute' "$WORK/combined.yaml" && fail "default: a revolute joint"

"$LIEDYN" convert "$WORK/twohinge.xml" --chain-joints --aux-mass-ratio 0.01 -o "$WORK/chained.yaml" \
    2>/dev/null || fail "convert --chain-joints"
[ "$(grep -c 'type: revolute' "$WORK/chained.yaml")" = 2 ] || fail "chained: not two revolute joints"
grep -q 'type: universal' "$WORK/chained.yaml" && fail "chained: a universal joint"
grep -q 'auxiliary body' "$WORK/chained.yaml" || fail "chained: no auxiliary body"
# the auxiliary body's mass is 0.01 of the arm's
awk '/auxiliary body/ {aux = 1; next} /mass:/ && aux == 1 {a = $2; aux = 2} /# .* body$/ {arm = 1; next}
     /mass:/ && arm == 1 {m = $2; arm = 2}
     END {r = a / m; exit !(r > 0.00999999 && r < 0.01000001)}' "$WORK/chained.yaml" ||
    fail "chained: the auxiliary mass is not 0.01 of the arm's"

for m in combined chained; do
    "$LIEDYN" run "$WORK/$m.yaml" --t-end 0.05 --quiet >/dev/null 2>&1 || fail "$m.yaml does not run"
done

# A hinge spring relaxed at springref, the pose as written at ref (MuJoCo's qpos0): the rest
# angle counts from the pose as written, 30 - 10 = 20 degrees; the arm settles there.
cat > "$WORK/springref.xml" <<'XML'
<mujoco model="spring-ref">
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="arm" pos="0 0 0">
      <joint name="h" type="hinge" axis="0 0 1" stiffness="4" damping="1" springref="30" ref="10"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05"/>
    </body>
  </worldbody>
</mujoco>
XML
"$LIEDYN" convert "$WORK/springref.xml" -o "$WORK/springref.yaml" >/dev/null 2>&1 || fail "convert springref"
grep -q 'axis: \[0, 0, 1\], angle0: 0.34906585039886' "$WORK/springref.yaml" ||
    fail "springref: no rest angle of 20 degrees: $(grep rotational "$WORK/springref.yaml")"
"$LIEDYN" run "$WORK/springref.yaml" --t-end 20 --out "$WORK/springref.csv" --quiet 2>/dev/null ||
    fail "springref: the run failed"
col=$(head -1 "$WORK/springref.csv" | tr ',' '\n' | grep -n '^h.angle$' | cut -d: -f1)
tail -1 "$WORK/springref.csv" | cut -d, -f"$col" |
    awk '{d = $1 - 0.3490658503988659; exit !(d < 1e-8 && d > -1e-8)}' ||
    fail "springref: the arm does not settle at 20 degrees"

for bad in 0 2 x -1; do
    "$LIEDYN" convert "$WORK/twohinge.xml" --aux-mass-ratio "$bad" >/dev/null 2>"$WORK/err"
    rc=$?
    [ $rc = 2 ] && grep -q "aux-mass-ratio wants a number in (0, 1]" "$WORK/err" ||
        fail "--aux-mass-ratio $bad: exit $rc, $(cat "$WORK/err")"
done

[ $fails = 0 ] && echo "cli_convert: all checks passed"
exit $fails

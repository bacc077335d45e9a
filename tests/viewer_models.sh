#!/bin/sh
# The HTML viewer on beams, force elements and shapeless bodies, in headless Chromium (the
# page reports what it drew in attributes of its body, docs/viewer.md "Testing"):
# - beam-pinned with the side panel open: the fitted view holds the box of the whole run
#   (data-view-extent <= 1), every node's displacement is offered for plotting (the midspan
#   node beam[4] among them, its uy plotted first), the deformation scale is automatic (the
#   largest deflection, 4.1 mm, drawn at about a tenth of the 10 m length), the drawn midspan
#   point moves by the scale and a rigid body beside the beam does not;
# - mass-spring: its spring is drawn from the ground point to the mass's centre, at the frame
#   shown; double-pendulum-damped: its two rotational dampers at the hinges;
# - a body without a shape whose inertia box would be a cube (inertia [1, 1, 1]) is a marker,
#   the links of the double pendulum (slender inertia boxes) are not.
# Skipped (exit 77, with the reason) when this liedyn has no viewer or Chromium is missing.
# usage: viewer_models.sh LIEDYN SOURCE_DIR WORK_DIR
set -u
LIEDYN=$1 SRC=$2 WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$LIEDYN" run beam-pinned --t-end 10 --frames 200 --quiet --html "$WORK/beam.html" \
    --out "$WORK/beam.csv" >/dev/null 2>"$WORK/run.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'built without the HTML viewer\|is not available' "$WORK/run.err"; then
    echo "SKIP: $(cat "$WORK/run.err")" >&2
    exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: run --html: exit $rc: $(cat "$WORK/run.err")" >&2; exit 1; }
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium is not installed (scripts/install-deps installs it)" >&2; exit 77; }
HOME=$WORK/home
export HOME
dom() { # FILE FRAGMENT OUT: the page's DOM, ready and without an error
    "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --enable-unsafe-swiftshader \
        --hide-scrollbars --no-first-run --user-data-dir="$WORK/profile" \
        --virtual-time-budget=8000 --window-size=640,480 --dump-dom "file://$WORK/$1#$2" \
        >"$WORK/$3" 2>/dev/null
    grep -q '<body[^>]* data-status="ready"' "$WORK/$3" ||
        fail "$1#$2 not ready: $(grep -o '<title>[^<]*' "$WORK/$3")"
}
attr() { # OUT NAME: the body's attribute data-NAME
    grep -o "<body[^>]*>" "$WORK/$1" | head -n 1 | sed -n "s/.* data-$2=\"\([^\"]*\)\".*/\1/p"
}

# beam-pinned: the view, the plot list, the deformation scale
dom beam.html "t=10" b1.html
ext=$(attr b1.html view-extent)
awk -v e="$ext" 'BEGIN { exit !(e != "" && e <= 1 && e > 0.5) }' ||
    fail "beam-pinned: the fitted box takes $ext of the view (must be in (0.5, 1])"
for n in 0 4 8; do
    grep -q "<option value=\"beam\[$n\].uy\">" "$WORK/b1.html" || fail "beam[$n].uy is not in the plot list"
done
[ "$(attr b1.html plot)" = "beam[4].uy" ] || fail "beam-pinned: plotted first: '$(attr b1.html plot)'"
scale=$(attr b1.html deform)
[ "$scale" = 200 ] || fail "beam-pinned: the automatic deformation scale is '$scale', expected 200 (the largest deflection 4.1 mm)"
dom beam.html "t=10&deform=1" b2.html
mid1=$(attr b2.html tube-mid) midN=$(attr b1.html tube-mid)
# the drawn midspan point moves by the scale: y(scale) = scale * y(1) (y at rest: 0)
awk -v a="$mid1" -v b="$midN" -v s="$scale" 'BEGIN {
    split(a, p, " "); split(b, q, " ");
    ok = p[2] < -3e-3 && p[2] > -5e-3 && q[2] / p[2] > s * 0.999 && q[2] / p[2] < s * 1.001 &&
         (q[1] - 5) < 1e-3 * s && (q[1] - 5) > -1e-3 * s;
    exit !ok }' || fail "beam-pinned: the midspan point at scale 1: '$mid1', at $scale: '$midN'"

# a rigid body beside the beam is drawn where it is, whatever the deformation scale
awk '/^loads:/ { print "bodies:"
    print "  - {name: ball, mass: 1, inertia: [1, 2, 3], position: [0, 3, 0], velocity: [0.1, 0, 0]}" }
    { print }' "$SRC/models/beam-pinned.yaml" >"$WORK/ball.yaml"
"$LIEDYN" run "$WORK/ball.yaml" --t-end 10 --frames 50 --quiet --html "$WORK/ball.html" \
    >/dev/null 2>&1 || fail "beam-pinned with a ball --html"
dom ball.html "t=10" r1.html
[ "$(attr r1.html deform)" = 200 ] && [ "$(attr r1.html rigid)" = "1.000000 3.000000 0.000000" ] ||
    fail "beam-pinned with a ball at t = 10: scale $(attr r1.html deform), the ball at '$(attr r1.html rigid)'"

# mass-spring: the spring from the ground point to the mass's centre, every frame
"$LIEDYN" run mass-spring --t-end 2 --frames 201 --quiet --html "$WORK/ms.html" --out "$WORK/ms.csv" \
    >/dev/null 2>&1 || fail "mass-spring --html"
dom ms.html "t=1" m1.html
els=$(attr m1.html elements)
x1=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "mass.x") c = i }
              NR > 1 && $1 + 0 >= 1 - 1e-9 { print $c; exit }' "$WORK/ms.csv")
echo "$els" | awk -v x="$x1" '{ split($0, a, "[: ]"); d = a[5] - x
    exit !(a[1] == "spring" && a[2] == 0 && a[3] == 0 && a[4] == 0 && d < 1e-5 && d > -1e-5 && x != 1.5) }' ||
    fail "mass-spring at t = 1: elements '$els', the mass at x = $x1"
[ "$(attr m1.html markers)" = 0 ] || fail "mass-spring (a sphere shape) drawn as a marker"

# double-pendulum-damped: two rotational dampers; its links keep their inertia boxes
"$LIEDYN" run double-pendulum-damped --t-end 1 --frames 50 --quiet --html "$WORK/dp.html" \
    >/dev/null 2>&1 || fail "double-pendulum-damped --html"
dom dp.html "t=0.5" d1.html
[ "$(attr d1.html elements | grep -o 'torsion:' | wc -l)" -eq 2 ] ||
    fail "double-pendulum-damped: elements '$(attr d1.html elements)'"
[ "$(attr d1.html markers)" = 0 ] || fail "double-pendulum-damped: its links drawn as markers"

# a shapeless mass of inertia [1, 1, 1] (its inertia box a cube of 1.7 m): a marker
grep -v 'shape:' "$SRC/models/mass-spring.yaml" >"$WORK/bare.yaml"
"$LIEDYN" run "$WORK/bare.yaml" --t-end 0.5 --frames 20 --quiet --html "$WORK/bare.html" \
    >/dev/null 2>&1 || fail "bare mass --html"
dom bare.html "t=0.5" s1.html
[ "$(attr s1.html markers)" = 1 ] || fail "the shapeless mass: markers '$(attr s1.html markers)', expected 1"

[ "$fails" -eq 0 ] || exit 1
echo "viewer_models: all checks passed"

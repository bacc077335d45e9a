#!/bin/sh
# The HTML viewer in a real browser (headless Chromium): `liedyn run --html` writes one file
# that needs no network, the page loads without an error, pictures of the 3-D view at two times
# differ where the model moves (and two pictures of one time do not), and `liedyn view` of the
# run's CSV writes the same data as `run --html`. Bad `shape:` entries fail with file, line,
# key and reason. Skipped (exit 77) only when this liedyn was built without the viewer's
# library (no npm or no registry at build time): the message says so.
# usage: viewer_browser.sh LIEDYN SOURCE_DIR WORK_DIR
set -u
LIEDYN=$1 SRC=$2 WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$LIEDYN" run heavy-top --t-end 1 --html "$WORK/top.html" --out "$WORK/top.csv" \
    >"$WORK/run.out" 2>"$WORK/run.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'built without the HTML viewer\|is not available' "$WORK/run.err"; then
    echo "SKIP: $(cat "$WORK/run.err")" >&2
    exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: run --html: exit $rc: $(cat "$WORK/run.err")" >&2; exit 1; }
grep -q 'html: .*top.html (1000 frames)' "$WORK/run.out" || fail "run summary: $(cat "$WORK/run.out")"

# self-contained: no external script, style or import
if grep -qiE '<script[^>]* src=|<link[^>]* href=|import\(["'"'"']https?:' "$WORK/top.html"; then
    fail "the HTML file loads something from outside"
fi

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "FAIL: chromium is not installed (scripts/install-deps installs it)" >&2; exit 1; }
HOME=$WORK/home
export HOME
chrome() {
    "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --enable-unsafe-swiftshader \
        --hide-scrollbars --no-first-run --user-data-dir="$WORK/profile" \
        --virtual-time-budget=8000 --window-size=640,480 "$@"
}

# loads, reports ready, no error in the page or on the console
chrome --enable-logging=stderr --dump-dom "file://$WORK/top.html#t=0.2" >"$WORK/dom.html" \
    2>"$WORK/chrome.err"
grep -q '<body data-status="ready" data-frame="[0-9]*" data-t="0.2"' "$WORK/dom.html" ||
    fail "page not ready at t = 0.2: $(grep -o '<body[^>]*>' "$WORK/dom.html" | head -n 1)" \
        "$(grep -o '<title>[^<]*' "$WORK/dom.html")"
grep -q '<title>ERROR' "$WORK/dom.html" && fail "page error: $(grep -o '<title>[^<]*' "$WORK/dom.html")"
grep -q 'CONSOLE.*\(Uncaught\|Error\)' "$WORK/chrome.err" &&
    fail "console errors: $(grep 'CONSOLE' "$WORK/chrome.err" | head -n 3)"

# pictures of the 3-D view: t = 0.1 and 0.6 differ, t = 0.1 twice does not
shot() { chrome --screenshot="$WORK/$1.png" "file://$WORK/top.html#ui=0&t=$2" 2>/dev/null; }
shot a 0.1
shot b 0.6
shot c 0.1
for p in a b c; do
    [ -s "$WORK/$p.png" ] || fail "no screenshot $p.png"
done
cmp -s "$WORK/a.png" "$WORK/c.png" || fail "two pictures at t = 0.1 differ (not deterministic)"
cmp -s "$WORK/a.png" "$WORK/b.png" && fail "pictures at t = 0.1 and t = 0.6 are the same"

# liedyn view of the CSV: the same data element as run --html
"$LIEDYN" view heavy-top --csv "$WORK/top.csv" --html "$WORK/view.html" >"$WORK/view.out" 2>&1 ||
    fail "view: $(cat "$WORK/view.out")"
grep -o '<script type="application/json" id="liedyn-data">.*' "$WORK/top.html" >"$WORK/d1"
grep -o '<script type="application/json" id="liedyn-data">.*' "$WORK/view.html" >"$WORK/d2"
[ -s "$WORK/d1" ] && cmp -s "$WORK/d1" "$WORK/d2" || fail "view: its data differ from run --html's"
chrome --dump-dom "file://$WORK/view.html#at=0.5&frames=1&path=1&plot=top.z,energy" \
    >"$WORK/dom2.html" 2>/dev/null
grep -q '<body data-status="ready"' "$WORK/dom2.html" || fail "view's page not ready"

# the crank drive: shapes of 17 bodies, 57 joints drawn
"$LIEDYN" run crank-v8 --t-end 0.05 --frames 20 --quiet --html "$WORK/crank.html" >/dev/null 2>&1 ||
    fail "crank-v8 --html"
chrome --dump-dom "file://$WORK/crank.html#t=0.05" >"$WORK/dom3.html" 2>/dev/null
grep -q '<body data-status="ready" data-frame="19" data-t="0.05"' "$WORK/dom3.html" ||
    fail "crank page not ready at its last frame: $(grep -o '<body[^>]*>' "$WORK/dom3.html" | head -n 1)"

# usage errors
"$LIEDYN" run heavy-top --frames 1 --html "$WORK/x.html" >/dev/null 2>"$WORK/e1" && fail "--frames 1 accepted"
grep -q -- '--frames must be from 2' "$WORK/e1" || fail "--frames 1: $(cat "$WORK/e1")"
"$LIEDYN" view heavy-top --csv "$WORK/none.csv" --html "$WORK/x.html" >/dev/null 2>"$WORK/e2" &&
    fail "view of a missing CSV succeeded"
grep -q "cannot read '$WORK/none.csv'" "$WORK/e2" || fail "view missing CSV: $(cat "$WORK/e2")"
"$LIEDYN" view free-top --csv "$WORK/top.csv" --html "$WORK/x.html" >/dev/null 2>"$WORK/e3" &&
    fail "view of another model's CSV succeeded"
grep -q "has no column 'body.x'" "$WORK/e3" || fail "view other model: $(cat "$WORK/e3")"

# bad shapes: file, line, key and reason
bad_shape() { # LINE-KEY-REASON SHAPE
    printf 'bodies:\n  - name: b\n    mass: 1\n    inertia: [1, 1, 1]\n    position: [0, 0, 0]\n    shape: %s\n' \
        "$2" >"$WORK/s.yaml"
    "$LIEDYN" run "$WORK/s.yaml" --t-end 0.01 >/dev/null 2>"$WORK/s.err" && fail "shape accepted: $2"
    grep -qF "$1" "$WORK/s.err" || fail "shape $2: $(cat "$WORK/s.err"), expected: $1"
}
bad_shape "s.yaml:6: bodies[0].shape.type: expected one of box, sphere" "{type: torus, radius: 1}"
bad_shape "bodies[0].shape.radius: must be a positive number" "{type: sphere, radius: -1}"
bad_shape "bodies[0].shape.size: expected a list of 3 numbers, found 2" "{type: box, size: [1, 2]}"
bad_shape "bodies[0].shape.radius: key not allowed for type 'box' (expected one of: type, size, center, color, collide, restitution, friction, contact_radius)" "{type: box, size: [1, 1, 1], radius: 2}"
bad_shape "bodies[0].shape.axis: must be a non-zero finite vector" "{type: cylinder, radius: 1, length: 1, axis: [0, 0, 0]}"
bad_shape "bodies[0].shape[1].color: element 2 must be in [0, 1]" "[{type: sphere, radius: 1}, {type: sphere, radius: 1, color: [0, 2, 0]}]"
bad_shape "s.yaml:6: bodies[0].shape.length: required key is missing" "{type: capsule, radius: 1}"

[ "$fails" -eq 0 ] || exit 1
echo "viewer_browser: all checks passed"

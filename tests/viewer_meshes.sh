#!/bin/sh
# Mesh shapes in the HTML viewer and the VTK output (docs/viewer.md, docs/paraview.md):
# tests/data/import/meshes.yaml in headless Chromium — the page decodes the three meshes and
# reports the 34 triangles of its four mesh shapes and the box they cover at t = 0,
# [0, −1, 0] .. [8, 3, 9] (each bound to 1e-4 m: the vertices travel as 16-bit steps across
# each mesh's box) — and as VTK files with those 34 triangles. When dart-doc is installed
# (skipped with a message otherwise): DRC-Hubo's HTML file, its size and its picture
# (WORK/drchubo.png), and its 110 368 triangles in the page (52 shapes of 37 files).
# Skipped (exit 77) when this liedyn was built without the viewer's library.
# usage: viewer_meshes.sh LIEDYN SOURCE_DIR WORK_DIR
set -u
LIEDYN=$1 SRC=$2 WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
DATA=$SRC/tests/data/import

"$LIEDYN" run "$DATA/meshes.yaml" --t-end 0.01 --quiet --html "$WORK/m.html" --vtk "$WORK/vtk" \
    >"$WORK/run.out" 2>"$WORK/run.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'built without the HTML viewer\|is not available' "$WORK/run.err"; then
    echo "SKIP: $(cat "$WORK/run.err")" >&2
    exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: run: exit $rc: $(cat "$WORK/run.err")" >&2; exit 1; }

# VTK: the bodies' triangles are the meshes' (12 + 12 + 6 + 4), no inertia boxes
grep -q '^POLYGONS 34 136$' "$WORK/vtk/meshes_00000.vtk" ||
    fail "VTK polygons: $(grep '^POLYGONS' "$WORK/vtk/meshes_00000.vtk")"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "FAIL: chromium is not installed (scripts/install-deps installs it)" >&2; exit 1; }
HOME=$WORK/home
export HOME
chrome() {
    "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --enable-unsafe-swiftshader \
        --hide-scrollbars --no-first-run --user-data-dir="$WORK/profile" \
        --virtual-time-budget=8000 --window-size=800,800 "$@"
}

# the page: ready, no console error, the meshes' triangles and box
page() { # FILE FRAGMENT OUT
    chrome --enable-logging=stderr --dump-dom "file://$1#$2" >"$3" 2>"$3.err"
    grep -q '<body[^>]* data-status="ready"' "$3" ||
        fail "$1: page not ready: $(grep -o '<body[^>]*>' "$3" | head -n 1) $(grep -o '<title>[^<]*' "$3")"
    grep -q 'CONSOLE.*\(Uncaught\|Error\)' "$3.err" &&
        fail "$1: console errors: $(grep 'CONSOLE' "$3.err" | head -n 3)"
}
page "$WORK/m.html" "t=0" "$WORK/dom.html"
grep -q 'data-mesh-triangles="34"' "$WORK/dom.html" ||
    fail "triangles drawn: $(grep -o '<body[^>]*>' "$WORK/dom.html")"
box=$(grep -o 'data-mesh-box="[^"]*"' "$WORK/dom.html" | sed 's/.*="\(.*\)"/\1/')
echo "$box" | awk '{ split("0 -1 0 8 3 9", e, " "); ok = NF == 6;
    for (i = 1; i <= 6; i++) if ((($i - e[i]) > 1e-4) || ((e[i] - $i) > 1e-4)) ok = 0; exit !ok }' ||
    fail "mesh box at t = 0: '$box', expected 0 -1 0 8 3 9"

# DRC-Hubo (dart-doc): 52 mesh shapes, their file's size, a picture
HUBO=/usr/share/doc/dart/data/urdf/drchubo/drchubo.urdf
if [ -f "$HUBO" ]; then
    "$LIEDYN" run "$HUBO" --t-end 0.2 --frames 50 --quiet --html "$WORK/drchubo.html" \
        >"$WORK/hubo.out" 2>&1 || fail "DRC-Hubo --html: $(tail -n 3 "$WORK/hubo.out")"
    page "$WORK/drchubo.html" "t=0&joints=0" "$WORK/hubo.html"
    tris=$(grep -o 'data-mesh-triangles="[0-9]*"' "$WORK/hubo.html" | grep -o '[0-9]*')
    echo "DRC-Hubo: $(wc -c <"$WORK/drchubo.html") bytes of HTML, $tris triangles drawn"
    [ "${tris:-0}" -eq 110368 ] || fail "DRC-Hubo: $tris triangles drawn, expected 110368"
    chrome --screenshot="$WORK/drchubo.png" "file://$WORK/drchubo.html#ui=0&t=0&joints=0" 2>/dev/null
    [ -s "$WORK/drchubo.png" ] || fail "no picture of DRC-Hubo"
else
    echo "skipped DRC-Hubo: dart-doc is not installed (apt-get install dart-doc)"
fi

[ "$fails" -eq 0 ] || exit 1
echo "viewer_meshes: all checks passed"

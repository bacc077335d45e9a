#!/bin/sh
# Contact made visible (docs/cli-run.md, docs/viewer.md, docs/paraview.md): `liedyn run
# --contacts` writes one line per contact per output row (the sliding box: four corners carrying
# m g, friction mu m g while it slides); it is refused for a model without contact; the summary
# and --json report the contact statistics; a step that ends with two shapes overlapping by
# more than --overlap-tol ends the run DRIFTED (exit 6) with whole contact rows, cylinders at rest
# measured as the solids they are; --vtk writes the
# contacts' files beside the frames and the ground (part 4); --html carries the ground and the
# contacts, and in headless Chromium (when installed) the contacts toggle changes the picture.
# usage: cli_contacts.sh LIEDYN SOURCE_DIR WORK_DIR
set -u
LIEDYN=$1 SRC=$2 WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
PILE=$SRC/tests/data/contact-pile.yaml

# the contacts CSV of the sliding box: 101 output times, 4 corners from the first step on
"$LIEDYN" run sliding-box --output-every 100 --contacts "$WORK/box.csv" >"$WORK/box.out" \
    2>"$WORK/e" || fail "sliding-box --contacts: $(cat "$WORK/e")"
[ "$(head -n 1 "$WORK/box.csv")" = "t,body1,body2,shape1,shape2,px,py,pz,nx,ny,nz,gap,fn,ft,fx,fy,fz" ] ||
    fail "contacts header: $(head -n 1 "$WORK/box.csv")"
n=$(($(wc -l <"$WORK/box.csv") - 1))
[ "$n" -eq 400 ] || fail "sliding-box: $n contact lines, expected 4 per output row after the first (400)"
grep -q 'contacts: .*box.csv (400 lines)' "$WORK/box.out" || fail "summary: $(cat "$WORK/box.out")"
# per output time: the sum of fn is m g = 9.81; sliding (t = 0.1) the friction is mu m g
# against x at every corner; at rest (t = 1) the net tangential force is 0
awk -F, 'NR > 1 { fn[$1] += $13; ft[$1] += $14; fx[$1] += $15; fy[$1] += $16
                  if ($2 != "box" || $3 != "ground" || $5 != -1) bad++ }
         END { for (t in fn) if ((fn[t] - 9.81)^2 > 1e-12) bad++
               t = "0.10000000000000001"
               if ((ft[t] - 4.905)^2 > 1e-12 || (fx[t] + 4.905)^2 > 1e-12) bad++
               if (fx["1"]^2 + fy["1"]^2 > 1e-18) bad++
               exit bad > 0 }' "$WORK/box.csv" || fail "sliding-box: contact forces not m g and mu m g"

# refused for a model without contact
"$LIEDYN" run heavy-top --contacts "$WORK/x.csv" >/dev/null 2>"$WORK/e"
rc=$?
[ $rc -eq 2 ] || fail "--contacts on heavy-top: exit $rc"
grep -q "run: --contacts: the model 'heavy-top' has no contact" "$WORK/e" || fail "heavy-top: $(cat "$WORK/e")"
[ -e "$WORK/x.csv" ] && fail "heavy-top: a contacts file was written"

# the pile: ok by default, the statistics in the summary and the JSON
"$LIEDYN" run "$PILE" >"$WORK/pile.out" 2>"$WORK/e" || fail "pile: $(cat "$WORK/e")"
grep -q '^  contact: [0-9]* contacts in the last step, [0-9]* PGS sweeps .*overlap tolerance 2.5e-08$' \
    "$WORK/pile.out" || fail "pile summary: $(cat "$WORK/pile.out")"
"$LIEDYN" run "$PILE" --quiet --json >"$WORK/pile.json" 2>"$WORK/e" || fail "pile --json: $(cat "$WORK/e")"
python3 - "$WORK/pile.json" <<'PY' || fail "pile JSON: $(cat "$WORK/pile.json" | head -c 300)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok", d["status"]
assert d["contacts"] >= 20 and d["contact_sweeps"] > 1000, d
assert 1e-4 < d["max_midpoint_overlap"] < 5e-3, d["max_midpoint_overlap"]
assert 0 <= d["max_end_overlap"] <= d["overlap_tol"] == 2.5e-08, d
PY

# the overlap check: with one Gauss-Seidel sweep the steps' ends keep overlaps of about 1e-11 m
# (the projection stops within 1e-9 of the model's size), above a tolerance of 1e-13
"$LIEDYN" run "$PILE" --pgs-max-iter 1 --overlap-tol 1e-13 --json --contacts "$WORK/bad.csv" >"$WORK/bad.json" \
    2>"$WORK/bad.err"
rc=$?
[ $rc -eq 6 ] || fail "pile, 1 sweep: exit $rc, expected 6"
[ "$(wc -l <"$WORK/bad.err")" -eq 1 ] || fail "pile, 1 sweep: stderr $(cat "$WORK/bad.err")"
grep -q "run drifted into overlap at t = .*overlap by .* m at the step's end, more than --overlap-tol 1e-13" \
    "$WORK/bad.err" || fail "pile, 1 sweep: $(cat "$WORK/bad.err")"
python3 - "$WORK/bad.json" "$WORK/bad.csv" <<'PY' || fail "pile, 1 sweep: JSON or contacts CSV"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "drifted" and "overlap" in d["error"], d["status"]
assert d["max_end_overlap"] > d["overlap_tol"] and d["max_end_overlap_t"] == d["t"], d
lines = open(sys.argv[2]).read().split("\n")
assert lines[-1] == "" and all(len(l.split(",")) == 17 for l in lines[:-1])
assert float(lines[-2].split(",")[0]) == d["t"]     # the contacts of the state at fault
PY
"$LIEDYN" run "$PILE" --pgs-max-iter 1 --overlap-tol 0 --quiet >"$WORK/off.out" 2>&1 ||
    fail "pile, 1 sweep, --overlap-tol 0: $(cat "$WORK/off.out")"
"$LIEDYN" run "$PILE" --overlap-tol -1 >/dev/null 2>"$WORK/e" && fail "--overlap-tol -1 accepted"
grep -q -- "--overlap-tol must be non-negative" "$WORK/e" || fail "--overlap-tol -1: $(cat "$WORK/e")"

# the check measures a cylinder as the solid it is: discs shorter than their diameter and a tall
# cylinder standing on the plane or on each other, a sphere on a lying one, each at rest at its
# exact height (the check once took a cylinder for a sphere of its radius: a disc at rest
# "overlapped" the plane by r - l/2 and a tall one could sink unseen)
CYL=$SRC/tests/data/contact-cylinders.yaml
"$LIEDYN" run "$CYL" --out "$WORK/cyl.csv" --columns disc.z,low.z,high.z,tall.z,lying.z,ball.z \
    >"$WORK/cyl.out" 2>&1 || fail "contact-cylinders: $(cat "$WORK/cyl.out")"
tail -n 1 "$WORK/cyl.csv" | awk -F, '{ split("0.05 0.05 0.15 0.2 0.1 0.3", z, " ")
    for (i = 1; i <= 6; ++i) if (($(i + 1) - z[i])^2 > 1e-10) { print "column " i ": " $(i + 1); bad = 1 }
    exit bad }' || fail "contact-cylinders: not at rest at their heights"

# VTK: a contacts file beside every frame, its series, the ground as part 4
"$LIEDYN" run "$PILE" --quiet --frames 16 --vtk "$WORK/vtk" >/dev/null 2>"$WORK/e" || fail "pile --vtk: $(cat "$WORK/e")"
python3 - "$WORK/vtk" <<'PY' || fail "pile VTK files"
import json, os, sys
d = sys.argv[1]
frames = sorted(f for f in os.listdir(d) if f.startswith("contact-pile_0"))
cons = sorted(f for f in os.listdir(d) if f.startswith("contact-pile_contacts_0"))
assert len(frames) == 16 and len(cons) == 16, (len(frames), len(cons))
ser = json.load(open(os.path.join(d, "contact-pile_contacts.vtk.series")))
assert [f["name"] for f in ser["files"]] == cons

def sections(path):
    """Every section's header and its item count; checks that each has that many lines."""
    lines = open(path).read().split("\n")
    out, i = {}, 4
    while i < len(lines) and lines[i]:
        w = lines[i].split()
        if w[0] in ("POINTS", "VERTICES", "POLYGONS", "LINES"):
            out[w[0]] = int(w[1]); i += 1 + int(w[1])
        elif w[0] in ("POINT_DATA", "CELL_DATA"):
            n = out[w[0]] = int(w[1]); i += 1
        elif w[0] == "VECTORS":
            vals = [x.split() for x in lines[i + 1:i + 1 + n]]
            assert all(len(v) == 3 for v in vals), (path, w)
            out[w[1]] = vals; i += 1 + n
        elif w[0] == "SCALARS":
            out[w[1]] = [float(x) for x in lines[i + 2:i + 2 + n]]; i += 2 + n
        else:
            raise AssertionError((path, lines[i]))
    return out

total = 0
for f in cons:
    s = sections(os.path.join(d, f))
    n = s["POINTS"]
    assert s["VERTICES"] == n == s["POINT_DATA"] and len(s["gap"]) == n and len(s["fn"]) == n
    total += n
    for k in range(n):  # fn = normal . force
        nv, fv = map(float, s["normal"][k]), map(float, s["force"][k])
        assert abs(sum(a * b for a, b in zip(nv, fv)) - s["fn"][k]) <= 1e-6 * (1 + abs(s["fn"][k]))
assert total > 100, total
s = sections(os.path.join(d, frames[-1]))
assert s["part"].count(4) == 2 * 12 + 2, s["part"].count(4)  # 2 wall boxes, the plane
PY

# HTML: the ground and the contacts in the data, the toggle in a browser
"$LIEDYN" run "$PILE" --quiet --frames 100 --html "$WORK/pile.html" >/dev/null 2>"$WORK/e"
rc=$?
if [ $rc -ne 0 ] && grep -q 'built without the HTML viewer\|is not available' "$WORK/e"; then
    echo "note: HTML viewer not built in; its checks skipped" >&2
else
    [ $rc -eq 0 ] || fail "pile --html: $(cat "$WORK/e")"
    grep -q '"plane":{"normal":\[0,0,1\],"point":\[0,0,0\]}' "$WORK/pile.html" || fail "no plane in the HTML data"
    grep -q '"ground":\[{"body":-1,"type":"box"' "$WORK/pile.html" || fail "no ground shapes in the HTML data"
    grep -q '"contacts":{"count":[1-9]' "$WORK/pile.html" || fail "no contacts in the HTML data"
    CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
    if [ -n "$CHROMIUM" ]; then
        HOME=$WORK/home
        export HOME
        chrome() {
            "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --enable-unsafe-swiftshader \
                --hide-scrollbars --no-first-run --user-data-dir="$WORK/profile" \
                --virtual-time-budget=8000 --window-size=640,480 "$@" 2>/dev/null
        }
        chrome --dump-dom "file://$WORK/pile.html#t=0.3&contacts=1" >"$WORK/dom.html"
        grep -q '<body data-contacts="[1-9][0-9]*" data-status="ready"' "$WORK/dom.html" ||
            fail "pile page: $(grep -o '<body[^>]*>' "$WORK/dom.html" | head -n 1) $(grep -o '<title>[^<]*' "$WORK/dom.html")"
        chrome --screenshot="$WORK/on.png" "file://$WORK/pile.html#ui=0&t=0.3&contacts=1"
        chrome --screenshot="$WORK/off.png" "file://$WORK/pile.html#ui=0&t=0.3"
        chrome --screenshot="$WORK/noground.png" "file://$WORK/pile.html#ui=0&t=0.3&ground=0"
        for p in on off noground; do [ -s "$WORK/$p.png" ] || fail "no screenshot $p.png"; done
        cmp -s "$WORK/on.png" "$WORK/off.png" && fail "the contacts toggle does not change the picture"
        cmp -s "$WORK/off.png" "$WORK/noground.png" && fail "the ground toggle does not change the picture"
    else
        echo "note: chromium not installed; the browser checks skipped" >&2
    fi
fi

[ "$fails" -eq 0 ] || exit 1
echo "cli_contacts: all checks passed"

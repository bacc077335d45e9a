#!/bin/bash
# The tool's readers (docs/reliability.md): `liedyn view` reads a header of any length (the old
# reader looped for ever when the header was 3 bytes shorter than its read buffer); names with
# a comma, a double quote or a line break are quoted in the CSV header after RFC 4180, and
# `view` and other CSV readers (Python's csv) read back what `run --out` wrote; a sweep file
# is held to the limits of a model file (a 412-byte file of nested aliases, 100,000 levels of
# nesting, 65 MB) and refused at once; a quoted sweep value keeps its exact text; a mistyped
# path of a sweep file is refused before any case runs, with a did-you-mean.
# usage: cli_readers.sh LIEDYN SOURCE_DIR WORK_DIR
set -u
LIEDYN=$1 SRC=$2 WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
PY=$(command -v /usr/bin/python3 || command -v python3 || true)
[ -n "$PY" ] || { echo "FAIL: python3 is needed" >&2; exit 1; }

# ---- view: headers around the old read buffer's size, 64 + 520 (13 nb + 64 + 12 nj) = 46344
# bytes for the heavy top (1 body, 1 joint)
"$LIEDYN" run heavy-top --t-end 0.01 --out top.csv >/dev/null 2>&1 || fail "run heavy-top"
VIEW=1
if ! "$LIEDYN" view heavy-top --csv top.csv --html top.html --quiet 2>e; then
    if grep -q 'is not available' e; then
        echo "note: HTML viewer not built in; the view checks are skipped" >&2
        VIEW=0
    else
        fail "view of a plain run: $(cat e)"
    fi
fi
if [ $VIEW = 1 ]; then
    for short in 1 2 3 4 5 46344; do
        # the header padded with one more column to 46344 - short bytes (without its line end)
        "$PY" - "$short" <<'PY' || fail "building the header $short bytes short"
import sys
short = int(sys.argv[1])
lines = open("top.csv").read().split("\n")
head = lines[0]
want = 46344 - short if short < 46344 else len(head) + 5
pad = "," + "p" * (want - len(head) - 1)
assert len(head + pad) == want
rows = [l + ",0" for l in lines[1:] if l]
open("pad.csv", "w").write("\n".join([head + pad] + rows) + "\n")
PY
        timeout 20 "$LIEDYN" view heavy-top --csv pad.csv --html pad.html --quiet 2>e
        rc=$?
        [ $rc -eq 0 ] || fail "view of a header $short bytes short of the old buffer: exit $rc ($(cat e))"
    done
    # a header longer than the old buffer (it was cut and its columns not found)
    "$PY" - <<'PY'
lines = open("top.csv").read().split("\n")
pad = "," + "q" * 100000
open("long.csv", "w").write("\n".join([lines[0] + pad] + [l + ",0" for l in lines[1:] if l]) + "\n")
PY
    timeout 20 "$LIEDYN" view heavy-top --csv long.csv --html long.html --quiet 2>e ||
        fail "view of a 100 kB header: $(cat e)"
    # malformed files: one line naming the file, the line and the reason
    { head -n 1 top.csv; printf '"0,1\n'; } >bad.csv
    "$LIEDYN" view heavy-top --csv bad.csv --html bad.html --quiet 2>e && fail "an unclosed quote was accepted"
    grep -q "bad.csv: line 2: field 1 opens a quote that is not closed" e || fail "unclosed quote: $(cat e)"
fi

# ---- names that need quoting: a comma, double quotes, a line break
cat >names.yaml <<'YAML'
name: names
gravity: [0, 0, -9.81]
bodies:
  - name: "a,b \"q\"\nline"
    mass: 1.0
    inertia: [1, 1, 1]
    position: [0, 1, 0]
    angular_velocity: [0, 1, 0]
  - {name: plain, mass: 1.0, inertia: [1, 1, 1], position: [1, 1, 0]}
joints:
  - {name: "p,1", type: spherical, body: "a,b \"q\"\nline", point: [0, -1, 0], ground: [0, 0, 0]}
integrator: {name: genalpha, dt: 1.0e-3, t_end: 0.01}
YAML
"$LIEDYN" run names.yaml --out names.csv >/dev/null 2>e || fail "run names.yaml: $(cat e)"
"$PY" - <<'PY' || fail "the header of names.csv does not read back (RFC 4180)"
import csv
rows = list(csv.reader(open("names.csv", newline="")))
head = rows[0]
body = 'a,b "q"\nline'
assert head[:3] == ["t", body + ".x", body + ".y"], head[:3]
assert "p,1.fx" in head and "plain.qw" in head, head
assert len(rows) == 12 and all(len(r) == len(head) for r in rows), [len(r) for r in rows]
PY
"$LIEDYN" run names.yaml --out sel.csv --columns 'p,1.fx' >/dev/null 2>e
if [ $VIEW = 1 ]; then
    "$LIEDYN" view names.yaml --csv names.csv --html names.html --quiet 2>e ||
        fail "view does not read the CSV that run wrote for quoted names: $(cat e)"
fi

# ---- sweep files: the limits of a model file, at once
"$PY" - <<'PY'
s = "model: heavy-top\nvary:\n  integrator.dt: [1e-3]\nset:\n"
s += '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
for i in range(1, 9):  # 9^9 nodes in the last one
    p, c = chr(96 + i), chr(97 + i)
    s += "  " + c + ": &" + c + " [" + ",".join(["*" + p] * 9) + "]\n"
open("laughs.yaml", "w").write(s)
open("deep.yaml", "w").write("model: heavy-top\nvary:\n  integrator.dt: " + "[" * 100000 + "]" * 100000 + "\n")
with open("huge.yaml", "w") as f:
    f.write("model: heavy-top\nvary:\n  integrator.dt: [1e-3]\n#")
    f.truncate(65 << 20)
PY
for f in laughs deep huge; do
    start=$(date +%s%N)
    timeout 20 "$LIEDYN" sweep $f.yaml --list >/dev/null 2>e
    rc=$? ms=$((($(date +%s%N) - start) / 1000000))
    [ $rc -eq 2 ] || fail "sweep $f.yaml: exit $rc, expected 2 ($(head -c 300 e))" # 124: hung
    echo "sweep $f.yaml --list: refused in $ms ms"
    case $f in
    laughs) want="laughs.yaml:11: the aliases stand for more than 1000000 nodes in all (nested aliases; the limit of a sweep file)" ;;
    deep) want="deep.yaml:3: nesting deeper than 64 levels (the limit of a sweep file)" ;;
    huge) want="huge.yaml: larger than 64 MB (the limit of a YAML file)" ;;
    esac
    grep -qF "$want" e || fail "sweep $f.yaml: expected '$want', got '$(head -c 300 e)'"
done
rm -f huge.yaml

# ---- a quoted value keeps its text: "hem5 # x" is no integrator (it ran as hem5)
printf 'model: heavy-top\nt_end: 0.002\nvary:\n  integrator.name: ["hem5 # x", "genalpha"]\nrecord: [status]\n' >quoted.yaml
"$LIEDYN" sweep quoted.yaml --out quoted.csv -j 1 >/dev/null 2>e || fail "sweep quoted.yaml: $(cat e)"
"$PY" - <<'PY' || fail "quoted value: $(cat quoted.csv)"
import csv
rows = list(csv.DictReader(open("quoted.csv", newline="")))
assert rows[0]["status"] == "bad_parameter", rows[0]
assert "unknown integrator 'hem5 # x'" in rows[0]["message"], rows[0]["message"]
assert rows[1]["status"] == "ok", rows[1]
PY

# ---- mistyped paths: refused before any case runs, with a did-you-mean
printf 'model: heavy-top\nt_end: 0.002\nvary:\n  bodies[0].mas: [10, 15]\n' >typo.yaml
"$LIEDYN" sweep typo.yaml --out typo.csv -j 1 >/dev/null 2>e
rc=$?
[ $rc -eq 2 ] || fail "typo.yaml: exit $rc, expected 2"
[ ! -e typo.csv ] || fail "typo.yaml: a table was written"
grep -q "typo.yaml:4: vary: bodies\[0\].mas: the model format has no key 'mas' there (did you mean 'mass'? expected one of: name, mass," e ||
    fail "typo.yaml: $(cat e)"
printf 'model: heavy-top\nt_end: 0.002\nset:\n  joints[0].pont: [0, -1, 0]\ncases:\n  - {integrator.dt: 1e-3}\n' >typo2.yaml
"$LIEDYN" sweep typo2.yaml --list >/dev/null 2>e && fail "typo2.yaml accepted"
grep -q "typo2.yaml:4: set: joints\[0\].pont: .*did you mean 'point'?" e || fail "typo2.yaml: $(cat e)"
# a key the model does not give but the format allows is still a path
printf 'model: heavy-top\nt_end: 0.002\nvary:\n  bodies[0].velocity: [[0, 0, 0]]\n' >newkey.yaml
"$LIEDYN" sweep newkey.yaml --list >/dev/null 2>e || fail "newkey.yaml refused: $(cat e)"

[ $fails -eq 0 ] && echo "cli_readers: all checks passed"
exit $((fails > 0))

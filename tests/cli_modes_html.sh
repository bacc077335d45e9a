#!/bin/sh
# liedyn modes --html: the modes as one animation in the browser viewer — mode J over two
# periods in the time slot [2 (J - 1), 2 J) s, 48 frames each and the rest state at the end, the
# title naming each mode's slot and frequency (the frequencies of the printed table); refused
# with --campbell. Skips (77) when the viewer is not built in.
# usage: cli_modes_html.sh LIEDYN WORK_DIR
set -u
LIEDYN=$1 WORK=$2
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$LIEDYN" modes beam-pinned --count 3 --html "$WORK/m.html" >"$WORK/out" 2>"$WORK/err"
rc=$?
if [ $rc = 2 ] && grep -q "not built in\|three.js" "$WORK/err"; then
    echo "SKIP: the viewer is not built in" >&2
    exit 77
fi
[ $rc = 0 ] || fail "modes --html: exit $rc: $(cat "$WORK/err")"
grep -q '"nframes":145' "$WORK/m.html" || fail "not 3 x 48 + 1 frames"
title=$(grep -o '"title":"[^"]*"' "$WORK/m.html")
for j in 1 2 3; do
    hz=$(awk -v j=$j '$1 == j && NF >= 3 {print $2; exit}' "$WORK/out")
    lo=$(( (j - 1) * 2 )) hi=$(( j * 2 ))
    want=$(printf '%s at t %s-%s s: %.6g Hz' $j $lo $hi "$hz")
    case "$title" in *"$want"*) ;; *) fail "title lacks '$want': $title" ;; esac
done
grep -q "HTML: 3 modes in" "$WORK/out" || fail "no line saying where the page is"

"$LIEDYN" modes rotor.yaml --campbell 0:1:2 --html "$WORK/c.html" >/dev/null 2>"$WORK/err"
rc=$?
[ $rc = 2 ] && grep -q "not with --campbell" "$WORK/err" || fail "--campbell --html: exit $rc"
[ -e "$WORK/c.html" ] && fail "--campbell --html wrote a file"

[ $fails = 0 ] && echo "cli_modes_html: all checks passed"
exit $fails

#!/bin/bash
# The README's list of the shipped models is the list `liedyn models` prints: every model named
# there, and no name there that is not a model.
# usage: docs_models.sh LIEDYN SOURCE_DIR
set -u
LIEDYN=$1 SRC=$2
listed=$("$LIEDYN" models | awk 'NR > 1 && NF { print $1 }' | sort)
[ -n "$listed" ] || { echo "FAIL: liedyn models lists nothing" >&2; exit 1; }
readme=$(grep '^| `models/` |' "$SRC/README.md" | grep -o '`[a-z0-9-]*`' | tr -d '`' | sort -u)
missing=$(comm -23 <(echo "$listed") <(echo "$readme"))
extra=$(comm -13 <(echo "$listed") <(echo "$readme"))
fails=0
[ -z "$missing" ] || { echo "FAIL: README.md does not name the shipped models:" $missing >&2; fails=1; }
[ -z "$extra" ] || { echo "FAIL: README.md names models that are not shipped:" $extra >&2; fails=1; }
# the count written in words in the README and in docs/cli-run.md
n=$(echo "$listed" | wc -l)
words=(zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty)
tens=([2]=twenty [3]=thirty [4]=forty [5]=fifty [6]=sixty)
if [ "$n" -lt 21 ]; then word=${words[$n]}; else
    word=${tens[$((n / 10))]}; [ $((n % 10)) -eq 0 ] || word="$word-${words[$((n % 10))]}"; fi
grep -qi "$word ship in" "$SRC/README.md" ||
    { echo "FAIL: README.md does not say '$word ship in' ($n models)" >&2; fails=1; }
grep -qi "descriptions ($word:" "$SRC/docs/cli-run.md" ||
    { echo "FAIL: docs/cli-run.md does not say '($word:' ($n models)" >&2; fails=1; }
[ "$fails" -eq 0 ] && echo "docs_models: the README names the $n shipped models"
exit "$fails"

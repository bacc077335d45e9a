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
[ "$fails" -eq 0 ] && echo "docs_models: the README names the $(echo "$listed" | wc -l) shipped models"
exit "$fails"

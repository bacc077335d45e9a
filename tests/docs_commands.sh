#!/bin/bash
# The commands the docs show work as the docs say: every `liedyn …` line of the ```sh blocks
# of the given Markdown files (continuation lines joined) runs in one scratch directory, in
# order, and must exit 0 — or N where its comment says `# exit N`. The directory holds the
# files the examples name: my-model.yaml (a copy of the heavy top), gyro.csv (gyro samples)
# and a copy of examples/; a ```yaml block that starts with `# file: NAME` is written to NAME.
# Lines with --plot are skipped when gnuplot is not installed, lines with --html when the
# liedyn was built without its HTML viewer. A plain ``` block right after a ```sh block (only
# blank lines between) quotes what the sh block's first command prints (stdout, then stderr):
# the two must agree (docs_output.py: the same text, the numbers to the digits shown, CPU
# times free).
# usage: docs_commands.sh LIEDYN SOURCE_DIR WORK_DIR FILE.md...
set -u
LIEDYN=$1 SRC=$2 WORK=$3
shift 3
rm -rf "$WORK"
mkdir -p "$WORK"
cp "$SRC/models/heavy-top.yaml" "$WORK/my-model.yaml"
cp "$SRC/tests/data/gyro_const.csv" "$WORK/gyro.csv"
cp -r "$SRC/examples" "$WORK/examples" # commands shown from the source tree name examples/…
mkdir -p "$WORK/tests/data" && cp -r "$SRC/tests/data/import" "$WORK/tests/data/import" # docs/import.md
fails=0 ran=0 quoted=0
# Without the HTML viewer (built where npm or its registry was missing) its lines are skipped.
viewer=1
"$LIEDYN" run heavy-top --t-end 0.002 --quiet --html "$WORK/probe.html" >/dev/null 2>&1 || viewer=0

# The liedyn command lines of the sh blocks of a Markdown file, one per line; the first command
# of a block followed by a quoted output gets "QUOTE:FILE<TAB>" before it (the output in FILE).
commands() {
    awk -v dir="$WORK" '
        function flush(tag) {
            for (i = 1; i <= n; ++i) print (i == 1 && tag != "" ? "QUOTE:" tag "\t" : "") cmd[i]
            n = 0
        }
        state == "after" && /^$/ { next }
        state == "after" && /^```$/ { state = "quote"; q = dir "/quote-" (++nq) ".txt"; printf "" > q; next }
        state == "after" { flush(""); state = "" }
        state == "quote" && /^```/ { close(q); flush(q); state = ""; next }
        state == "quote" { print > q; next }
        /^```sh/ { if (state == "after") flush(""); state = "sh"; next }
        state == "sh" && /^```/ { state = "after"; next }
        state == "sh" { line = line $0; if (line ~ /\\$/) { sub(/\\$/, " ", line); next }
              if (line ~ /^(build\/release\/)?liedyn /) cmd[++n] = line; line = "" }
        END { flush("") }' "$1"
}

# Write the ```yaml blocks whose first line is "# file: NAME" to NAME in the scratch directory
# (the whole block, that line included, so that line numbers in messages match the docs).
write_files() {
    awk -v dir="$WORK" '/^```yaml/ { on = 1; name = ""; next } /^```/ { on = 0; next }
         on && name == "" && /^# file: / { name = dir "/" $3 }
         on && name != "" { print > name }' "$1"
}

for doc in "$@"; do
    write_files "$doc"
    while IFS= read -r line; do
        quote=""
        case "$line" in QUOTE:*)
            quote=${line%%$'\t'*}
            quote=${quote#QUOTE:}
            line=${line#*$'\t'}
            ;;
        esac
        want=0
        case "$line" in *"# exit "[0-9]*) want=$(sed 's/.*# exit \([0-9]*\).*/\1/' <<<"$line") ;; esac
        cmd=${line%%#*}
        cmd=${cmd#build/release/}
        cmd=${cmd#liedyn }
        if [ "$viewer" -eq 0 ] && [[ "$cmd" == *--html* ]]; then
            echo "skipped (this liedyn has no HTML viewer): liedyn $cmd"
            continue
        fi
        if [[ "$cmd" == *--plot* ]] && ! command -v gnuplot >/dev/null; then
            echo "skipped (no gnuplot): liedyn $cmd"
            continue
        fi
        # shellcheck disable=SC2086
        (cd "$WORK" && "$LIEDYN" $cmd >"$WORK/out.txt" 2>"$WORK/err.txt")
        rc=$?
        ran=$((ran + 1))
        if [ "$rc" -ne "$want" ]; then
            echo "FAIL: $(basename "$doc"): 'liedyn $cmd' exit $rc, expected $want: $(head -c 300 "$WORK/err.txt")" >&2
            fails=$((fails + 1))
        elif [ -n "$quote" ] && ! python3 "$SRC/tests/docs_output.py" "$quote" "$WORK/out.txt" "$WORK/err.txt" 2>"$WORK/cmp.txt"; then
            echo "FAIL: $(basename "$doc"): 'liedyn $cmd' does not print what the document quotes: $(cat "$WORK/cmp.txt")" >&2
            fails=$((fails + 1))
        fi
        [ -n "$quote" ] && quoted=$((quoted + 1))
    done < <(commands "$doc")
done
[ "$ran" -gt 0 ] || { echo "FAIL: no command found in $*" >&2; exit 1; }
echo "docs_commands: $ran commands ($quoted with their output quoted), $fails failed"
[ "$fails" -eq 0 ]

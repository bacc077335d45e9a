#!/bin/sh
# Install the build tree into a scratch prefix and build examples/hello_lie.c against it
# with pkg-config, linked both shared and static, then run both.
# usage: install_example.sh CMAKE BUILD_DIR EXAMPLE_C CC "EXTRA_FLAGS"
set -eu
cmake=$1 build=$2 example=$3 cc=$4 extra=$(echo "$5" | tr ';' ' ')
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
pc=$(dirname "$(find "$prefix" -name liedyn.pc | head -n 1)")
export PKG_CONFIG_PATH="$pc"
# shellcheck disable=SC2046,SC2086
"$cc" $extra -o "$prefix/hello_shared" "$example" $(pkg-config --cflags --libs liedyn)
libdir=$(pkg-config --variable=libdir liedyn)
LD_LIBRARY_PATH="$libdir" "$prefix/hello_shared"
# shellcheck disable=SC2046,SC2086
"$cc" $extra -o "$prefix/hello_static" "$example" $(pkg-config --cflags liedyn) \
    "$libdir/libliedyn.a" $(pkg-config --static --libs-only-l liedyn | sed 's/-lliedyn//')
"$prefix/hello_static"
test -f "$prefix/bin/liedyn"
# the models install beside the tool, which finds them there first (from any directory)
test -f "$prefix/share/liedyn/models/heavy-top.yaml"
"$prefix/bin/liedyn" models | head -n 1 | grep -q "$prefix/bin/../share/liedyn/models"
(cd "$prefix" && LD_LIBRARY_PATH="$libdir" "$prefix/bin/liedyn" run heavy-top --t-end 0.01 --quiet >/dev/null)
# the programs of examples/, built by the command their comments and the README give (no more
# libraries than pkg-config names: the examples call libm themselves): the heavy top driven
# through the API reaches the state that `liedyn run` reaches (the same integrator settings from
# the model file), and a user force runs
exdir=$(dirname "$example")
for ex in heavy_top user_force controller; do
    grep -q "cc $ex.c \$(pkg-config --cflags --libs liedyn) -o $ex" "$exdir/$ex.c" ||
        { echo "$ex.c: its comment no longer shows the command built here" >&2; exit 1; }
    # shellcheck disable=SC2046,SC2086
    "$cc" $extra -o "$prefix/$ex" "$exdir/$ex.c" $(pkg-config --cflags --libs liedyn)
done
model="$prefix/share/liedyn/models/heavy-top.yaml"
api=$(LD_LIBRARY_PATH="$libdir" "$prefix/heavy_top" "$model" | sed -n 's/.*top at \(([^)]*)\).*/\1/p')
cli=$(LD_LIBRARY_PATH="$libdir" "$prefix/bin/liedyn" run "$model" | sed -n 's/^  top: x = \(([^)]*)\).*/\1/p')
[ -n "$api" ] && [ "$api" = "$cli" ] || { echo "heavy_top example: '$api', liedyn run: '$cli'" >&2; exit 1; }
[ "$(LD_LIBRARY_PATH="$libdir" "$prefix/user_force" | grep -c '^t = [1-5]: ball at')" -eq 5 ] ||
    { echo "user_force example: wrong output" >&2; exit 1; }
echo "install example: ok"

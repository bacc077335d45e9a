#!/bin/sh
# Install the build tree into a scratch prefix and use the installed Python package from
# another directory: import, find a shipped model among the installed ones, run it.
# usage: install_python.sh CMAKE BUILD_DIR PYTHON SITE_DIR (SITE_DIR relative to the prefix)
set -eu
cmake=$1 build=$2 python=$3 site=$4
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/$site/liedyn/__init__.py"
cd "$prefix"
PYTHONPATH="$prefix/$site" LIEDYN_MODELS="" "$python" -c "
import liedyn, os
assert liedyn.__file__.startswith('$prefix'), liedyn.__file__
assert liedyn.find_model('heavy-top').startswith('$prefix/'), liedyn.find_model('heavy-top')
r = liedyn.run('heavy-top', t_end=0.01)
assert r.stats['steps'] == 10
print('install python: ok')
"

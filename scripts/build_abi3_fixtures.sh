#!/bin/sh
# Build the abi3 extension fixtures (tests/data/abi3/) with gcc and this Python's headers.
#   clean.abi3.so: Py_LIMITED_API=3.10, only stable-ABI symbols
#   leaky.abi3.so: named abi3 but built without Py_LIMITED_API, calls non-limited functions
# Usage: scripts/build_abi3_fixtures.sh [OUT_DIR] [PYTHON]
set -eu
# --help prints the comment above and writes nothing (issue 29 item 6).
case "${1:-}" in -h|--help)
    sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../tests/data/abi3}
python=${2:-python3}
src=$here/../tests/data/abi3/src
include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
mkdir -p "$out"
for name in clean leaky; do
    gcc -shared -fPIC -O2 -g0 -s -I"$include" -o "$out/$name.abi3.so" "$src/$name.c"
done
echo "abi3 fixtures written to $out"

#!/bin/sh
# Rebuild the CUDA fatbin fixtures (tests/data/cuda/) with the machine's nvcc.
# Usage: scripts/build_cuda_fixtures.sh [OUT_DIR]
set -eu
# --help prints the comment above and writes nothing (issue 29 item 6).
case "${1:-}" in -h|--help)
    sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
esac
here=$(dirname "$0")
exec python3 "$here/build_cuda_fixtures.py" "$@"

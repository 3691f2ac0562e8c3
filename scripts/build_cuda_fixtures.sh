#!/bin/sh
# Rebuild the CUDA fatbin fixtures (tests/data/cuda/) with the machine's nvcc.
# Usage: scripts/build_cuda_fixtures.sh [OUT_DIR]
set -eu
here=$(dirname "$0")
exec python3 "$here/build_cuda_fixtures.py" "$@"

"""Build the standalone-cubin fixtures under tests/data/cubin/ with the machine's nvcc.

Each ``k_<arch>.cubin`` is ``nvcc -cubin -arch=<arch>`` of ``tests/data/cuda/src/kernels_v1.cu``
(no host code at all: what ``flashinfer-cubin`` ships, one file per kernel configuration).
``manifest.json`` records, per file, the architecture nvcc was asked for and the size, and
``cuobjdump -lelf`` is not needed: the file *is* the one code object.

    python3 scripts/build_cubin_fixtures.py [OUT_DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "cuda" / "src" / "kernels_v1.cu"
ARCHS = ("sm_80", "sm_90", "sm_100a", "sm_103")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "out", nargs="?", type=Path, default=ROOT / "tests" / "data" / "cubin",
        help="where the cubins go (default: tests/data/cubin)",
    )  # fmt: skip
    out: Path = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, check=True)
    files = {}
    builds = [(f"k_{arch}.cubin", arch, [], SOURCE) for arch in ARCHS]
    # the same SASS with line tables: only bytes no function covers differ
    builds.append(("k_sm_90_lineinfo.cubin", "sm_90", ["-lineinfo"], SOURCE))
    # an uninitialised __device__ array: a .nv.global section (tests patch its type)
    builds.append(("k_global_sm_80.cubin", "sm_80", [], out / "k_global.cu"))
    for name, arch, extra, source in builds:
        subprocess.run(
            ["nvcc", "-cubin", f"-arch={arch}", *extra, "-o", str(out / name), str(source)],
            check=True,
        )
        # the SM field of the ELF header has no a/f suffix (sm_100a reads sm_100)
        files[name] = {
            "arch": arch.rstrip("f"),  # cuobjdump names an "a" cubin sm_XYa, an "f" one sm_XY
            "bytes": (out / name).stat().st_size,
            "nvcc_args": [f"-arch={arch}", *extra],
        }
    manifest = {
        "generator": "scripts/build_cubin_fixtures.py",
        "nvcc_version": version.stdout.strip().splitlines()[-1],
        "files": files,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

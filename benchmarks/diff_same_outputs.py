"""Does a change to the kernel diff keep every output byte? Two checkouts, the same pairs.

A speed change to ``wheel-size diff --by`` must not move a byte of what it says. This runs
``diff --by kernel|family|symbol --format json|markdown --top 20|1000000 -j 2`` on pinned
real wheel pairs (``pypi_wheels.PINNED``, fetched with pip into ``--cache``) with this
checkout's ``src`` and with ``--compare DIR``'s, and compares stdout, stderr and the exit
status byte for byte. The pairs are ones no ranking or speed change was tuned on: CUDA
(nvidia-curand-cu12), ROCm CCOB (jax-rocm7-pjrt), ROCm plain bundles (cupy-rocm-7-0) and
Windows DLLs (bitsandbytes win_amd64).

Usage: python benchmarks/diff_same_outputs.py --compare DIR [--cache DIR]
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks")]

from pypi_wheels import PINNED, NotOnIndex, fetch  # noqa: E402

PAIRS = (
    ("nvidia-curand-cu12", "10.3.9.90", "10.3.10.19"),
    ("jax-rocm7-pjrt", "0.11.2", "0.12.0"),
    ("cupy-rocm-7-0", "14.1.1", "14.2.0"),
    ("bitsandbytes", "0.50.1", "0.50.2"),
)
WIN = "win_amd64"


def _pin_path(name: str, version: str, cache: Path) -> Path:
    """The pinned wheel of ``name`` ``version`` (the Windows one for bitsandbytes: its
    DLLs are the pair's point)."""
    pins = [p for p in PINNED if p.name == name and p.version == version]
    if name == "bitsandbytes":
        pins = [p for p in pins if p.platform == WIN]
    return fetch(pins[0], cache)


def _run(checkout: Path, args: list[str]) -> tuple[bytes, bytes, int]:
    env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
    command = [sys.executable, "-m", "wheel_size", "diff", *args]
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    return done.stdout, done.stderr, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", type=Path, required=True, help="the other checkout")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/pypi-pins"))
    args = parser.parse_args()
    differ = 0
    for name, old_version, new_version in PAIRS:
        try:
            old = _pin_path(name, old_version, args.cache)
            new = _pin_path(name, new_version, args.cache)
        except NotOnIndex as exc:
            print(f"skipped: {exc}")
            continue
        for by, fmt, top in itertools.product(
            ("kernel", "family", "symbol"), ("json", "markdown"), ("20", "1000000")
        ):
            argv = ["--by", by, "--format", fmt, "--top", top, "-j", "2", str(old), str(new)]
            same = _run(ROOT, argv) == _run(args.compare, argv)
            differ += not same
            verdict = "SAME" if same else "DIFFER"
            print(f"{verdict} {name} {old_version}->{new_version} {by} {fmt} {top}")
    print(f"{differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

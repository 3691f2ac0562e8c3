#!/usr/bin/env python3
"""Benchmark ``wheel-size diff --by family`` and ``wheel-size bloat`` on two real torch
wheels from PyPI (CUDA), against ``sha256sum`` of both wheels measured in the same run.

The wheels are fetched with ``pip download`` into ``--cache`` (never into the repository).
Printed: wall time and peak RSS of each command, the per-architecture totals, the top
families, and sha256sum's time.

Usage: python benchmarks/bench_kernels.py [--old 2.8.0] [--new 2.9.0] [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLATFORM = "manylinux_2_28_x86_64"


def _fetch(version: str, cache: Path) -> Path:
    found = sorted(cache.glob(f"torch-{version}-cp311-cp311-{PLATFORM}.whl"))
    if found:
        return found[0]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         "--python-version", "3.11", "--platform", PLATFORM, f"torch=={version}",
         "-d", str(cache)],
        check=True,
    )  # fmt: skip
    return sorted(cache.glob(f"torch-{version}-*.whl"))[0]


def _timed(cmd: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS of the child in MiB, stdout."""
    paths = [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed: {proc.stderr.strip()}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    return wall, peak, proc.stdout


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", default="2.8.0")
    parser.add_argument("--new", default="2.9.0")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/wheel-size-bench-torch"))
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    old, new = _fetch(args.old, args.cache), _fetch(args.new, args.cache)
    sha, _, _ = _timed(["sha256sum", str(old), str(new)])
    ws = [sys.executable, "-m", "wheel_size"]
    diff_t, diff_rss, out = _timed(
        [*ws, "diff", "--by", "family", "--format", "json", "--top", "10", str(old), str(new)]
    )
    data = json.loads(out)
    bloat_t, bloat_rss, bloat_out = _timed([*ws, "bloat", "--format", "json", str(new)])
    bloat = json.loads(bloat_out)
    print(f"sha256sum of both wheels: {sha:.1f} s")
    print(f"diff --by family: {diff_t:.1f} s, peak RSS {diff_rss} MiB")
    print(f"bloat (new wheel): {bloat_t:.1f} s, peak RSS {bloat_rss} MiB")
    for comparison in data["comparisons"]:
        for table in comparison["archs"]:
            print(
                f"  {table['arch']}: {table['old_total']:,} -> {table['new_total']:,} bytes "
                f"(unattributed {table['old_unattributed']:,} -> {table['new_unattributed']:,})"
            )
        for row in comparison["summed"]["rows"]:
            print(
                f"  {row['name'][:90]}: {row['new_bytes'] - row['old_bytes']:+,} bytes, "
                f"+{row['added']}/-{row['removed']} instantiations x {len(row['archs'])} archs"
            )
        print("  problems:", comparison["problems"][:5])
    dup = sum(d["saving"] for d in bloat["duplicates"])
    twin = sum(t["saving"] for t in bloat["twins"])
    print(f"bloat: {bloat['code_bytes']:,} code bytes; duplicates save {dup:,}; twins {twin:,}")
    for item in bloat["duplicates"][:5]:
        print(
            f"  dup {item['arch']} x{item['copies']} {item['name'][:90]}: saves {item['saving']:,}"
        )
    for family in bloat["families"][:10]:
        print(f"  {family['family'][:90]}: {family['bytes']:,} bytes, {family['instantiations']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

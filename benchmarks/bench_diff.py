#!/usr/bin/env python3
"""Benchmark ``wheel-size diff`` on two ~1 GB wheels that differ in a few libraries.

Each wheel holds LIBS real ELF libraries (an nvcc-built library from tests/data/cuda with a
big ``__nv_relfatbin`` section of real fatbin containers and a big data section added by
objcopy). The new wheel changes three libraries (one with 30% more device code), adds one
and removes one. Measured: wall time and peak RSS of ``wheel-size diff --format json``
against ``sha256sum`` of both files (reading every byte once: the floor for any tool that
looks at the contents).

Usage: python benchmarks/bench_diff.py [--libs 24] [--lib-mb 80] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from wheel_size.wheel.writer import WheelEntry, write_wheel  # noqa: E402

CUDA = ROOT / "tests" / "data" / "cuda"


def _fatbin(mb: float) -> bytes:
    """Real fatbin containers (the fixture's), repeated to ``mb`` MiB."""
    unit = (CUDA / "k_ident.fatbin").read_bytes()
    unit += b"\0" * (-len(unit) % 8)
    return unit * (int(mb * (1 << 20)) // len(unit))


def _blob(mb: int, seed: int) -> bytes:
    """Half random, half repetitive: deflates to roughly 55%, like real machine code."""
    rng = random.Random(seed)
    half = mb << 19
    return rng.randbytes(half) + (b"\x48\x89\xe5\x41\x57\x41\x56" * (half // 7 + 1))[:half]


def _library(out: Path, name: str, mb: int, fatbin_mb: float, seed: int) -> Path:
    blob = out / f"{name}.blob"
    fat = out / f"{name}.fatbin"
    blob.write_bytes(_blob(mb, seed))
    fat.write_bytes(_fatbin(fatbin_mb))
    lib = out / name
    sections = ["--add-section", f".rodata.big={blob}", "--add-section", f"__nv_relfatbin={fat}"]
    # objcopy warns that the added sections are in no segment: true, and harmless here
    subprocess.run(
        ["objcopy", *sections, str(CUDA / "libk_v1.so"), str(lib)],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    blob.unlink()
    fat.unlink()
    return lib


def _wheel(out: Path, version: str, libs: dict[str, Path]) -> Path:
    dist_info = f"bigpkg-{version}.dist-info"
    entries = [WheelEntry(f"bigpkg/lib/{n}", file=p, mode=0o755) for n, p in libs.items()]
    wheel = b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp312-cp312-linux_x86_64\n"
    metadata = f"Metadata-Version: 2.1\nName: bigpkg\nVersion: {version}\n".encode()
    entries += [
        WheelEntry("bigpkg/__init__.py", data=b""),
        WheelEntry(f"{dist_info}/WHEEL", data=wheel),
        WheelEntry(f"{dist_info}/METADATA", data=metadata),
    ]
    dest = out / f"bigpkg-{version}-cp312-cp312-linux_x86_64.whl"
    write_wheel(dest, entries, dist_info=dist_info, level=1)
    return dest


def _measure(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{argv[:4]} failed with status {status}")
    return elapsed, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libs", type=int, default=24)
    parser.add_argument("--lib-mb", type=int, default=80)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/wheel-size-bench-diff"))
    parser.add_argument("--reuse", action="store_true", help="reuse wheels already generated")
    parser.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    args = parser.parse_args()
    work: Path = args.workdir
    if args.reuse and (work / "old").is_dir() and (work / "new").is_dir():
        (old,) = (work / "old").glob("*.whl")
        (new,) = (work / "new").glob("*.whl")
        _run(work, old, new, args.repeat)
        return
    shutil.rmtree(work, ignore_errors=True)
    (work / "libs").mkdir(parents=True)
    started = time.perf_counter()
    old_libs = {
        f"lib{i:02d}.so": _library(work / "libs", f"lib{i:02d}.so", args.lib_mb, 8, i)
        for i in range(args.libs)
    }
    new_libs = dict(old_libs)
    for i in (1, 2):
        new_libs[f"lib{i:02d}.so"] = _library(
            work / "libs", f"lib{i:02d}-new.so", args.lib_mb, 8, 1000 + i
        )
    new_libs["lib00.so"] = _library(work / "libs", "lib00-more.so", args.lib_mb, 8 * 1.3, 2000)
    del new_libs[f"lib{args.libs - 1:02d}.so"]
    new_libs["libextra.so"] = _library(work / "libs", "libextra.so", args.lib_mb // 2, 2, 3000)
    (work / "old").mkdir()
    (work / "new").mkdir()
    old = _wheel(work / "old", "1.0.dev20260101", old_libs)
    new = _wheel(work / "new", "1.0.dev20260102", new_libs)
    sizes = f"old {old.stat().st_size / 2**20:.0f} MiB, new {new.stat().st_size / 2**20:.0f} MiB"
    print(f"generated in {time.perf_counter() - started:.0f} s: {sizes}")
    _run(work, old, new, args.repeat)


def _run(work: Path, old: Path, new: Path, repeat: int) -> None:
    subprocess.run(["cat", str(old), str(new)], stdout=subprocess.DEVNULL, check=True)  # warm cache
    commands = {
        "sha256sum of both wheels": ["sha256sum", str(old), str(new)],
        "wheel-size diff --format json": [
            sys.executable, "-m", "wheel_size", "diff", str(old), str(new),
            "--format", "json", "--output", str(work / "diff.json"),
        ],
    }  # fmt: skip
    for label, argv in commands.items():
        runs = [_measure(argv) for _ in range(repeat)]
        best = min(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        print(f"| {label} | {best:.1f} s | {peak:.0f} MiB |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Throughput and peak memory of ROCm device-code extraction and the host rewrite.

    python benchmarks/bench_rocm_extract.py [--size-mb 1024] [--bundles 16] [--compressed]
                                            [--host-mb 0]

Builds a large HIP-style shared library with the real toolchain: the code objects of the
clang fixture libplain19.so (6 targets), grown to the requested size with a mix of their
own bytes and random bytes (so zstd has realistic work), packed into ``--bundles`` offload
bundles (plain, or CCOB v2 zstd with ``--compressed``), assembled into ``.hip_fatbin`` with
one ``.hipFatBinSegment`` wrapper per bundle and linked ``-shared`` by clang-19.  Then each
stage runs in a fresh subprocess (so its peak RSS is its own):

  cp       shutil.copyfile of the library (the machine's floor)
  scan     open_fat_library + iter_code_objects (e_flags checked), data discarded
  scan-nohash   the same without the CCOB MD5 check (--compressed only)
  kpack    the same, writing one zstd-3 .kpack per target (single process)
  strip    strip_library (host rewrite, streamed)

Prints a Markdown table: MB/s of the library size and peak RSS per stage.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from wheel_size.rocm.ccob import Method, build_ccob  # noqa: E402
from wheel_size.rocm.fatbin_library import open_fat_library  # noqa: E402
from wheel_size.rocm.offload_bundle import build_plain_bundle  # noqa: E402

FIXTURE = REPO / "tests" / "data" / "hip" / "libplain19.so"
MB = 1 << 20


def grown_objects(per_object: int, rng: random.Random) -> list[tuple[str, bytes]]:
    """Real code objects (6 targets) padded to ``per_object`` bytes: 3/4 repeats of the
    object itself, 1/4 random, so they compress roughly like real kernels."""
    out = []
    with open_fat_library(FIXTURE) as lib:
        for co in lib.iter_code_objects():
            body = bytearray(co.data)
            while len(body) < per_object:
                body += co.data if rng.random() < 0.75 else rng.randbytes(len(co.data))
            out.append((f"hipv4-amdgcn-amd-amdhsa--{co.target}", bytes(body[:per_object])))
    return out


def build_library(
    work: Path, size_mb: int, bundles: int, compressed: bool, host_mb: int = 0
) -> Path:
    rng = random.Random(1234)
    per_bundle = size_mb * MB // bundles
    objects = grown_objects(per_bundle // 6, rng)
    asm = ['.section .note.GNU-stack,"",@progbits', '.section .hip_fatbin,"a",@progbits']
    for b in range(bundles):
        entries = [("host-x86_64-unknown-linux--", b"")] + [
            (eid, data[:-8] + b.to_bytes(8, "little")) for eid, data in objects
        ]
        blob = build_plain_bundle(entries)
        if compressed:
            blob = build_ccob(blob, version=2, method=Method.ZSTD, level=1)
        path = work / f"bundle{b}.bin"
        path.write_bytes(blob)
        asm += [".p2align 12", f"fatbin{b}:", f'.incbin "{path}"']
    if host_mb:  # host code/data the rewrite has to copy (libtorch_hip has hundreds of MB)
        blob = work / "host.bin"
        with blob.open("wb") as fh:
            for _ in range(host_mb):
                fh.write(rng.randbytes(MB))
        asm += ['.section .rodata.hostblob,"a",@progbits', f'.incbin "{blob}"']
    asm.append('.section .hipFatBinSegment,"aw",@progbits')
    for b in range(bundles):
        asm += [".p2align 3", ".long 0x48495046, 1", f".quad fatbin{b}", ".quad 0"]
    (work / "fat.s").write_text("\n".join(asm) + "\n")
    (work / "host.c").write_text("int host_entry(int x) { return x + 1; }\n")
    lib = work / "libbig.so"
    subprocess.run(
        ["clang-19", "-shared", "-fPIC", "-o", str(lib), str(work / "fat.s"), str(work / "host.c")],
        check=True,
    )
    for b in range(bundles):
        (work / f"bundle{b}.bin").unlink()
    return lib


def stage(name: str, lib: Path, out: Path) -> None:
    """Run in a child process; print elapsed seconds."""
    start = time.perf_counter()
    if name == "cp":
        shutil.copyfile(lib, out / "copy.so")
    elif name in ("scan", "scan-nohash"):
        with open_fat_library(lib) as fat:
            for _co in fat.iter_code_objects(check_hash=name == "scan"):
                pass
    elif name == "kpack":
        from wheel_size.rocm.kpack import KpackWriter

        writers: dict[str, KpackWriter] = {}
        with open_fat_library(lib) as fat:
            for co in fat.iter_code_objects():
                if co.target not in writers:
                    writers[co.target] = KpackWriter(
                        out / f"torch_{co.target}.kpack", arch=co.target, level=3
                    )
                writers[co.target].add(key=f"lib/libbig.so#{co.index}", data=co.data)
        for w in writers.values():
            w.close()
    elif name == "strip":
        from wheel_size.rocm.host_rewrite import strip_library

        strip_library(
            lib,
            out / "stripped.so",
            kernel_name="lib/libbig.so",
            search_paths=["../.kpack/torch_@GFXARCH@.kpack"],
        )
    print(time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--bundles", type=int, default=16)
    parser.add_argument("--compressed", action="store_true")
    parser.add_argument("--host-mb", type=int, default=0, help="extra host data in the library")
    parser.add_argument("--stage", nargs=3, metavar=("NAME", "LIB", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stage:
        name, lib, out = args.stage
        stage(name, Path(lib), Path(out))
        # VmHWM is this process's own high-water mark (ru_maxrss would include the
        # parent's size inherited across fork/exec).
        status = Path("/proc/self/status").read_text()
        hwm = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
        print(json.dumps({"peak_rss_mb": int(hwm.split()[1]) / 1024}), file=sys.stderr)
        return
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        work = Path(tmp)
        lib = build_library(work, args.size_mb, args.bundles, args.compressed, args.host_mb)
        size = lib.stat().st_size
        with open_fat_library(lib) as fat:
            fatbin = fat.fatbin_size
            targets = fat.targets
        kind = "CCOB v2 zstd" if args.compressed else "plain"
        print(
            f"library {size / MB:.0f} MB, .hip_fatbin {fatbin / MB:.0f} MB in {args.bundles} "
            f"{kind} bundles, {len(targets)} targets, {args.host_mb} MB of host data"
        )
        print("\n| stage | seconds | MB/s (library size) | peak RSS MB |")
        print("| --- | ---: | ---: | ---: |")
        stages = ["cp", "scan", "kpack", "strip"]
        if args.compressed:
            stages.insert(2, "scan-nohash")
        for name in stages:
            out = work / f"out-{name}"
            out.mkdir()
            proc = subprocess.run(
                [sys.executable, __file__, "--stage", name, str(lib), str(out)],
                capture_output=True,
                text=True,
                check=True,
            )
            seconds = float(proc.stdout.strip().splitlines()[-1])
            peak = json.loads(proc.stderr.strip().splitlines()[-1])["peak_rss_mb"]
            print(f"| {name} | {seconds:.2f} | {size / MB / seconds:.0f} | {peak:.0f} |")
            shutil.rmtree(out)


if __name__ == "__main__":
    main()

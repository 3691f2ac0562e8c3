"""Benchmark ``wheel-size split`` on a generated fat wheel of at least 2 GB.

The wheel is built on the fly under ``--work`` (default /tmp/wheel-size-bench-split): one real
HIP library compiled by clang++-19 with 8 GPU targets whose code objects each embed a 16 MiB
table (``#embed``), copied under several names; a large host-only ELF library; and database
files of every routed type. Reported: input throughput (wheel bytes / wall time) and peak
memory (summed RSS of the process tree, sampled every 50 ms), next to ``cp`` of the same file.

    python benchmarks/bench_split.py [--jobs 2] [--libraries 12] [--keep] [--compare DIR]

``--compare DIR`` also splits the same wheel with the checkout at DIR (its ``src``), before
this one, so a change is measured against its base in one run on one machine state.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from wheel_size.wheel.writer import WheelEntry, compress_file, write_wheel  # noqa: E402

TARGETS = [
    "gfx906",
    "gfx90a:xnack+",
    "gfx90a:xnack-",
    "gfx942",
    "gfx1030",
    "gfx1100",
    "gfx1101",
    "gfx1201",
]
KERNEL = """\
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
__device__ const unsigned char table[] = {
#embed "table.bin"
};
__global__ void k(int *p) { unsigned i = __builtin_amdgcn_workitem_id_x(); p[i] = table[i * 4099]; }
"""
VERSION = "2.10.0+rocm7.1"


def semi_random(size: int, seed: int, alphabet: int = 32) -> bytes:
    """Bytes that compress about as well as GPU code (each byte one of ``alphabet`` values)."""
    step = 256 // alphabet
    table = bytes((i // step) * step for i in range(256))
    rng = random.Random(seed)
    chunks = (rng.randbytes(min(1 << 24, size - at)) for at in range(0, size, 1 << 24))
    return b"".join(chunk.translate(table) for chunk in chunks)


def build_library(work: Path, table_mib: int) -> Path:
    lib = work / f"libbig{table_mib}.so"
    if lib.exists():
        return lib
    (work / "table.bin").write_bytes(semi_random(table_mib << 20, 1))
    (work / "k.hip").write_text(KERNEL)
    command = [
        # clang-19 sometimes reads #embed bytes as signed char for one offload target and
        # then rejects 0xF0 as a narrowing of -16; the stored byte is the same either way.
        "clang++-19", "-Wno-c23-extensions", "-Wno-c++11-narrowing", "-x", "hip", "-nogpulib",
        "-nogpuinc", "-fPIC", "-shared", "-no-hip-rt", *(f"--offload-arch={t}" for t in TARGETS),
        "-o", str(lib), "k.hip",
    ]  # fmt: skip
    subprocess.run(command, cwd=work, check=True)
    return lib


def build_wheel(work: Path, libraries: int, table_mib: int) -> Path:
    path = work / f"torch-{VERSION}-cp311-cp311-manylinux_2_28_x86_64.whl"
    if path.exists():
        return path
    lib = build_library(work, table_mib)
    raw_dir = work / "raw"
    raw_dir.mkdir(exist_ok=True)
    entries: list[WheelEntry] = []
    lib_raw, lib_hash = compress_file(lib, raw_dir / "lib.deflate", level=1, bounded=False)
    for i in range(libraries):
        entries.append(
            WheelEntry(f"torch/lib/libfat{i:02}.so", raw=lib_raw, record_hash=lib_hash, mode=0o755)
        )
    host = Path(__file__).resolve().parents[1] / "tests" / "data" / "hip" / "libhost.so"
    big_host = work / "libtorch_cpu.so"
    big_host.write_bytes(host.read_bytes() + semi_random(400 << 20, 2, alphabet=64))
    host_raw, host_hash = compress_file(big_host, raw_dir / "host.deflate", level=1, bounded=False)
    entries.append(
        WheelEntry("torch/lib/libtorch_cpu.so", raw=host_raw, record_hash=host_hash, mode=0o755)
    )
    entries += shared_entries(work, raw_dir, "cp311-cp311-manylinux_2_28_x86_64")
    dist = f"torch-{VERSION}.dist-info"
    write_wheel(path, entries, dist_info=dist)
    shutil.rmtree(raw_dir)
    return path


def shared_entries(work: Path, raw_dir: Path, tag: str) -> list[WheelEntry]:
    """What every benchmark fat wheel holds besides its libraries: 570 database files of
    2 MB (rocBLAS, hipBLASLt, AOTriton, MIOpen) and the dist-info for ``tag``."""
    db_names = []
    for arch in ["gfx942", "gfx90a", "gfx1100", "gfx1201", "gfx950"]:
        db_names += [f"torch/lib/rocblas/library/TensileLibrary_{i}_{arch}.co" for i in range(40)]
        db_names += [
            f"torch/lib/hipblaslt/library/TensileLibrary_HH_{i}_{arch}.co" for i in range(30)
        ]
    db_names += [f"torch/lib/aotriton.images/amd-gfx11xx/flash/k{i}.aks2" for i in range(60)]
    db_names += [f"torch/share/miopen/db/gfx942{i:03}.db.txt" for i in range(20)]
    chunk = semi_random(8 << 20, 3, alphabet=128)
    entries = []
    for i, name in enumerate(db_names):
        data = work / "db.bin"
        start = (i * 7919) % (6 << 20)
        data.write_bytes(chunk[start : start + (2 << 20)])
        raw, digest = compress_file(data, raw_dir / f"db{i}.deflate", level=1, bounded=False)
        entries.append(WheelEntry(name, raw=raw, record_hash=digest))
    dist = f"torch-{VERSION}.dist-info"
    entries += [
        WheelEntry(
            f"{dist}/METADATA",
            data=f"Metadata-Version: 2.1\nName: torch\nVersion: {VERSION}\n".encode(),
        ),
        WheelEntry(
            f"{dist}/WHEEL",
            data=b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: false\n"
            + f"Tag: {tag}\n".encode(),
        ),
    ]
    return entries


def _tree_rss(pid: int) -> int:
    """Summed RSS (bytes) of ``pid`` and all its descendants."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ppid, pages = int(fields[1]), int(fields[21])
        children.setdefault(ppid, []).append(int(entry.name))
        rss[int(entry.name)] = pages * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        total += rss.get(current, 0)
        stack.extend(children.get(current, []))
    return total


def measure(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Wall time, CPU time (user + system, all processes) and peak process-tree RSS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.05)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    code = proc.wait()
    elapsed = time.perf_counter() - start
    done.set()
    thread.join()
    if code:
        raise SystemExit(f"{command[0]} failed with {code}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu, peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "wheel-size-bench-split"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--libraries", type=int, default=12)
    parser.add_argument("--table-mib", type=int, default=16)
    parser.add_argument("--keep", action="store_true", help="keep the generated wheel")
    parser.add_argument("--compare", type=Path, help="another checkout to split with first")
    args = parser.parse_args()
    if shutil.which("clang++-19") is None:
        raise SystemExit("clang++-19 not installed")
    args.work.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(args.work, args.libraries, args.table_mib)
    size = wheel.stat().st_size
    print(f"input: {wheel.name}: {size / 1e6:,.0f} MB")
    subprocess.run(["sync"], check=False)
    copy = args.work / "copy.whl"
    cp_time, cp_cpu, cp_rss = measure(["cp", str(wheel), str(copy)])
    copy.unlink()
    out = args.work / "out"
    command = [
        *(sys.executable, "-m", "wheel_size", "split", "--input", str(wheel)),
        *("--output-dir", str(out), "--device-package-prefix", "amd-torch-device"),
        *("--overlay-root", "torch/", "--wheel-type", "torch-fat", "--jobs", str(args.jobs)),
        *("--report-json", str(args.work / "report.json")),
        *("--report-md", str(args.work / "report.md")),
    ]
    rows = [("cp", cp_time, cp_cpu, cp_rss, 0, 0)]
    checkouts = [(f"{args.compare.name}", args.compare)] if args.compare else []
    for label, checkout in [*checkouts, ("this", ROOT)]:
        shutil.rmtree(out, ignore_errors=True)
        env = dict(os.environ, PYTHONPATH=str(checkout / "src"))
        wall, cpu, rss = measure(command, env)
        outputs = sorted(out.iterdir())
        phases = json.loads((args.work / "report.json").read_text())["timings"]
        spent = " + ".join(f"{p['phase']} {p['seconds']:.1f}" for p in phases["phases"])
        summed = sum(p["seconds"] for p in phases["phases"])
        print(
            f"{label}: phases {spent} = {summed:.1f} s of {phases['total']:.1f} s in-process "
            f"({wall:.1f} s wall with interpreter start; {wall / cp_time:.2f}x cp)"
        )
        rows.append(
            (f"split -j{args.jobs} ({label})", wall, cpu, rss, len(outputs),
             sum(p.stat().st_size for p in outputs))
        )  # fmt: skip
    print(f"load average during the runs: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for label, wall, cpu, rss, count, out_size in rows:
        print(
            f"{label:18} {wall:6.1f} s wall  {size / 1e6 / wall:5.0f} MB/s  "
            f"CPU {cpu:6.1f} s ({size / 1e6 / max(cpu, 0.01):5.0f} MB per CPU-second)  "
            f"peak RSS {rss / 2**20:5.0f} MiB"
            + (f"  -> {count} wheels, {out_size / 1e6:,.0f} MB" if count else "")
        )
    shutil.rmtree(out, ignore_errors=True)
    if not args.keep:
        wheel.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark ``wheel-size split`` on a generated fat wheel of at least 2 GB.

The wheel is built on the fly under ``--work`` (default /tmp/wheel-size-bench-split): one real
HIP library compiled by clang++-19 with 8 GPU targets whose code objects each embed a 16 MiB
table (``#embed``), copied under several names; a large host-only ELF library; and database
files of every routed type. Reported: input throughput (wheel bytes / wall time) and peak
memory (summed RSS of the process tree, sampled every 50 ms), side by side with ``cp`` of the
same file; both are charged the ``sync`` of what they wrote (``sync FILE...``), so ``cp`` is
bytes on disk, not in the page cache. The decode floor (``benchmarks/decode_floor.py``: every
ELF library inflated with ISA-L, its ``.hip_fatbin`` compressed at zstd 3, on as many
processes as the split's ``--jobs``) runs in the same rounds, and each split is printed as
``x floor`` beside ``x cp+sync``, in wall time (the split's own, without the ``sync`` of its
outputs: the floor writes nothing) and in CPU time. ``floor+`` is the floor with every layer
a split cannot avoid (``decode_floor.py``: CCOB payloads decoded before their code objects are
compressed, and the fat libraries' host bytes deflated at zlib 6 on the split's cores), and
``x floor+`` the split against it. Every contender runs once per
round, in an order rotated each round; medians are reported with the load average, and each
split's phase columns (its report's timings, plus interpreter start and report rendering,
plus the sync) add up to its wall time.

``--device`` picks what the device code is made of: ``code`` (about as compressible as GPU
code), ``incompressible`` (random bytes) or ``compressible`` (long runs); ``--ccob`` builds
its bundles compressed (``clang --offload-compress``, CCOB), as ROCm's own builds ship them.

    python benchmarks/bench_split.py [--jobs 1,2] [--repeat 3] [--keep] [--compare DIR]
        [--device code|incompressible|compressible] [--ccob]

``--compare DIR`` also splits the same wheel with the checkout at DIR (its ``src``) in every
round, so a change is measured against its base in one run on one machine state.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import decode_floor  # noqa: E402

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


# What the device code's embedded table is made of: "code" compresses about as well as GPU
# code (zstd -3 ~0.6), "incompressible" not at all (random bytes), "compressible" ~0.01
# (long runs), so the floor and the split are measured at both ends of what zstd can do.
DEVICE_KINDS = {"code": 32, "incompressible": 256, "compressible": 0}


def device_table(size: int, kind: str) -> bytes:
    """The ``size``-byte table embedded in every code object for device code of ``kind``."""
    alphabet = DEVICE_KINDS[kind]
    if alphabet == 0:
        rng = random.Random(1)
        runs = (bytes([rng.randrange(256)]) * rng.randrange(256, 4096) for _ in range(size // 256))
        return b"".join(runs)[:size].ljust(size, b"\0")
    return semi_random(size, 1, alphabet)


def build_library(work: Path, table_mib: int, kind: str = "code", ccob: bool = False) -> Path:
    """The fat library every ``libfatNN.so`` copies; ``ccob``: its bundles compressed
    (``--offload-compress``, zstd when clang has it, as ROCm's own builds)."""
    lib = work / f"libbig{table_mib}-{kind}{'-ccob' if ccob else ''}.so"
    if lib.exists():
        return lib
    (work / "table.bin").write_bytes(device_table(table_mib << 20, kind))
    (work / "k.hip").write_text(KERNEL)
    command = [
        # clang-19 sometimes reads #embed bytes as signed char for one offload target and
        # then rejects 0xF0 as a narrowing of -16; the stored byte is the same either way.
        "clang++-19", "-Wno-c23-extensions", "-Wno-c++11-narrowing", "-x", "hip", "-nogpulib",
        "-nogpuinc", "-fPIC", "-shared", "-no-hip-rt", *(f"--offload-arch={t}" for t in TARGETS),
        *(["--offload-compress"] if ccob else []), "-o", str(lib), "k.hip",
    ]  # fmt: skip
    subprocess.run(command, cwd=work, check=True)
    return lib


def build_wheel(
    work: Path, libraries: int, table_mib: int, kind: str = "code", ccob: bool = False
) -> Path:
    folder = work if kind == "code" and not ccob else work / f"{kind}{'-ccob' if ccob else ''}"
    path = folder / f"torch-{VERSION}-cp311-cp311-manylinux_2_28_x86_64.whl"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    lib = build_library(work, table_mib, kind, ccob)
    raw_dir = folder / "raw"
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


def _tree_pss(pids: list[int]) -> int:
    """Summed PSS (bytes) of ``pids``: a page shared by n processes counts 1/n in each, so a
    forked worker is not charged again for the parent's pages (summed RSS is)."""
    total = 0
    for pid in pids:
        try:
            with Path(f"/proc/{pid}/smaps_rollup").open() as fh:
                total += sum(int(line.split()[1]) << 10 for line in fh if line.startswith("Pss:"))
        except OSError:
            continue
    return total


def _tree(pid: int) -> tuple[list[int], int]:
    """``pid`` and all its descendants, and their summed RSS (bytes), from one scan of
    ``/proc``."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        rss[int(entry.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    found, stack = [], [pid]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(children.get(current, []))
    return found, sum(rss.get(p, 0) for p in found)


PEAK_PSS: list[int] = [0]  # the last measure()'s peak summed PSS (bytes)


def _tree_rss(pid: int) -> int:
    """Summed RSS (bytes) of ``pid`` and all its descendants."""
    return _tree(pid)[1]


def measure(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Wall time, CPU time (user + system, all processes) and peak process-tree RSS; the
    peak summed PSS is left in ``PEAK_PSS[0]``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    peak = 0
    PEAK_PSS[0] = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            pids, rss = _tree(proc.pid)
            peak = max(peak, rss)
            PEAK_PSS[0] = max(PEAK_PSS[0], _tree_pss(pids))
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


def synced(paths: list[Path]) -> float:
    """Seconds to flush ``paths`` to disk (``sync FILE...``: fsync of those files only, so
    other users' dirty pages are not charged to this run)."""
    start = time.perf_counter()
    subprocess.run(["sync", *map(str, paths)], check=True)
    return time.perf_counter() - start


# How the wheel is split (``--wheel`` sets its own)
SPLIT_ARGS = [
    *("--device-package-prefix", "amd-torch-device"),
    *("--overlay-root", "torch/", "--wheel-type", "torch-fat"),
]
PHASES = ["scan", "libraries", "kpacks", "wheels", "move", "cleanup"]


@dataclass
class Run:
    """One measured run: wall = its phases + ``start+report`` (interpreter start, report
    rendering, exit) + ``sync`` (the outputs flushed to disk), exactly."""

    label: str
    wall: float
    cpu: float
    rss: int
    load: float
    phases: dict[str, float] = field(default_factory=dict)
    outputs: int = 0
    out_bytes: int = 0
    pss: int = field(default_factory=lambda: PEAK_PSS[0])  # of the measure() just before


def run_cp(wheel: Path, work: Path) -> Run:
    copy = work / "copy.whl"
    load = os.getloadavg()[0]
    wall, cpu, rss = measure(["cp", str(wheel), str(copy)])
    flush = synced([copy])
    copy.unlink()
    return Run("cp + sync", wall + flush, cpu, rss, load, {"copy": wall, "sync": flush})


def prepare_checkout(checkout: Path) -> None:
    """Before timing, a checkout as an installed package runs: its modules byte-compiled
    (``pip install`` writes the ``.pyc`` files; with ``PYTHONDONTWRITEBYTECODE`` set, as in
    some shells, every run would compile ~60 modules from source, 0.1-0.2 CPU-s) and, where
    the checkout has the step, its templates compiled as the Action's image compiles them
    (``wheel_size.render.bytecode``)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    src = checkout / "src"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True)
    if (src / "wheel_size" / "render" / "bytecode.py").exists():
        env = dict(os.environ, PYTHONPATH=str(src))
        subprocess.run([sys.executable, "-m", "wheel_size.render.bytecode"], env=env, check=True)


def floor_label(label: str) -> tuple[str, int] | None:
    """``("floor", N)`` or ``("floor+", N)`` for a floor contender's label."""
    kind, _, jobs = label.partition(" -j")
    return (kind, int(jobs)) if kind in ("floor", "floor+") else None


def run_floor(label: str, plan: Path, jobs: int) -> Run:
    load = os.getloadavg()[0]
    wall, cpu, rss = measure(decode_floor.command(plan, jobs))
    return Run(label, wall, cpu, rss, load, {"floor": wall})


def floor_jobs(jobs: str) -> int:
    """The cores a split of ``--jobs jobs`` may use (``auto``: all of them)."""
    return int(jobs) if jobs.isdigit() else os.cpu_count() or 1


def run_split(label: str, checkout: Path, jobs: str, wheel: Path, work: Path) -> Run:
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    report = work / "report.json"
    command = [
        *(sys.executable, "-m", "wheel_size", "split", "--input", str(wheel)),
        *("--output-dir", str(out), *SPLIT_ARGS, "--jobs", jobs),
        *("--report-json", str(report), "--report-md", str(work / "report.md")),
    ]
    env = dict(os.environ, PYTHONPATH=str(checkout / "src"))
    load = os.getloadavg()[0]
    wall, cpu, rss = measure(command, env)
    outputs = sorted(out.iterdir())
    flush = synced(outputs)
    timings = json.loads(report.read_text())["timings"]
    phases = {p["phase"]: p["seconds"] for p in timings["phases"]}
    phases["start+report"] = wall - sum(phases.values())
    phases["sync"] = flush
    size = sum(p.stat().st_size for p in outputs)
    shutil.rmtree(out)
    return Run(label, wall + flush, cpu, rss, load, phases, len(outputs), size)


def table(runs: list[Run], size: int) -> str:
    """Medians per label, as a markdown table whose phase columns add up to the wall time."""
    labels = list(dict.fromkeys(r.label for r in runs))
    copies = sorted(r.wall for r in runs if r.label == "cp + sync")
    floor = copies[(len(copies) - 1) // 2]  # the median run's, as for every row below
    columns = [*PHASES, "start+report", "copy", "sync"]
    lines = [
        "| run | n | load | wall | x cp+sync | x floor | CPU x floor | x floor+ | CPU x floor+ "
        "| MB/s | " + " | ".join(columns) + " | CPU | peak RSS | peak PSS |",
        "|---|" + "---:|" * (9 + len(columns)) + "---:|---:|---:|",
    ]

    def decode(label: str, kind: str = "floor") -> tuple[float, float] | None:
        """The median wall and CPU of the floor (``kind``) at the split's cores."""
        if not label.startswith("split -j"):
            return None
        jobs = floor_jobs(label.split()[1][2:])
        mine = [r for r in runs if r.label == f"{kind} -j{jobs}"]
        if not mine:
            return None
        walls = sorted(r.wall for r in mine)
        return walls[(len(walls) - 1) // 2], statistics.median(r.cpu for r in mine)

    for label in labels:
        mine = [r for r in runs if r.label == label]
        # Phase medians do not add up to the median wall: show the run with the median wall
        # (the lower of the two middle ones for an even count), its phases and its wall.
        middle = sorted(mine, key=lambda r: r.wall)[(len(mine) - 1) // 2]
        wall = middle.wall
        cells = [f"{middle.phases[c]:.1f}" if c in middle.phases else "" for c in columns]
        cpu = statistics.median(r.cpu for r in mine)
        # The command against the floor: its own wall, without the sync of its outputs
        # (the floor writes nothing; x cp+sync charges both for their writes).
        own = wall - middle.phases.get("sync", 0.0)
        ratios = " | ".join(
            f"{own / base[0]:.2f} | {cpu / base[1]:.2f}" if base else " | "
            for base in (decode(label), decode(label, "floor+"))
        )
        lines.append(
            f"| {label} | {len(mine)} | {statistics.median(r.load for r in mine):.1f} | "
            f"{wall:.1f} s | {wall / floor:.2f} | {ratios} | {size / 1e6 / wall:.0f} | "
            + " | ".join(cells)
            + f" | {statistics.median(r.cpu for r in mine):.1f} s | "
            f"{max(r.rss for r in mine) / 2**20:.0f} MiB | "
            f"{max(r.pss for r in mine) / 2**20:.0f} MiB |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "wheel-size-bench-split"
    )
    parser.add_argument(
        "--jobs",
        default="1,2",
        help="comma-separated --jobs values to measure, auto among them (default 1,2)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="rounds (medians are reported)")
    parser.add_argument("--libraries", type=int, default=12)
    parser.add_argument("--table-mib", type=int, default=16)
    parser.add_argument("--keep", action="store_true", help="keep the generated wheel")
    parser.add_argument(
        "--device", choices=sorted(DEVICE_KINDS), default="code", help="device code's content"
    )
    parser.add_argument(
        "--ccob", action="store_true", help="compressed offload bundles (--offload-compress)"
    )
    parser.add_argument("--wheel", type=Path, help="split this wheel instead of generating one")
    parser.add_argument("--overlay-root", default="torch/", help="with --wheel")
    parser.add_argument("--prefix", default="amd-torch-device", help="with --wheel")
    parser.add_argument("--wheel-type", help="with --wheel (default: none)")
    parser.add_argument("--extra-naming", default="plain", help="with --wheel")
    parser.add_argument("--compare", type=Path, help="another checkout to split with as well")
    args = parser.parse_args()
    if shutil.which("clang++-19") is None:
        raise SystemExit("clang++-19 not installed")
    args.work.mkdir(parents=True, exist_ok=True)
    if args.wheel is not None:
        wheel, args.keep = args.wheel.resolve(), True
        SPLIT_ARGS[:] = [
            *("--overlay-root", args.overlay_root, "--extra-naming", args.extra_naming),
            *("--device-package-prefix", args.prefix),
            *(("--wheel-type", args.wheel_type) if args.wheel_type else ()),
        ]
    else:
        wheel = build_wheel(args.work, args.libraries, args.table_mib, args.device, args.ccob)
    size = wheel.stat().st_size
    print(f"input: {wheel.name}: {size / 1e6:,.0f} MB")
    synced([wheel])
    plan = decode_floor.save(decode_floor.split_plan(wheel), args.work / "floor-plan.json")
    plans = {("floor", 0): plan}
    checkouts = [(args.compare.name, args.compare)] if args.compare else []
    checkouts.append(("this", ROOT))
    for _name, checkout in checkouts:
        prepare_checkout(checkout)
    contenders: list[tuple[str, Path | None, str]] = [("cp + sync", None, "")]
    for cores in dict.fromkeys(floor_jobs(j) for j in args.jobs.split(",")):
        contenders.append((f"floor -j{cores}", None, str(cores)))
        contenders.append((f"floor+ -j{cores}", None, str(cores)))
        layered = decode_floor.split_plan(wheel, layers=True, threads=cores)
        plans[("floor+", cores)] = decode_floor.save(
            layered, args.work / f"floor-plus-{cores}-plan.json"
        )
    for jobs in args.jobs.split(","):
        # "auto" (one worker per idle core) is this checkout's; a base may not know it
        ours = checkouts[-1:] if jobs == "auto" else checkouts
        contenders += [(f"split -j{jobs} ({name})", path, jobs) for name, path in ours]
    runs: list[Run] = []
    for round_ in range(args.repeat):
        # Rotate the order each round so no contender always runs first (or after cp).
        shift = round_ % len(contenders)
        for label, checkout, jobs in contenders[shift:] + contenders[:shift]:
            which = floor_label(label)
            if which is not None:
                kind, cores = which
                run = run_floor(label, plans[(kind, 0 if kind == "floor" else cores)], cores)
            elif checkout is None:
                run = run_cp(wheel, args.work)
            else:
                run = run_split(label, checkout, jobs, wheel, args.work)
            runs.append(run)
            spent = " + ".join(f"{k} {v:.1f}" for k, v in run.phases.items())
            for kind in ("floor", "floor+"):
                floors = [r for r in runs if r.label == f"{kind} -j{floor_jobs(jobs or '1')}"]
                if label.startswith("split") and floors:
                    last = floors[-1]
                    own = run.wall - run.phases["sync"]
                    spent += f" [x {kind} {own / last.wall:.2f} wall, {run.cpu / last.cpu:.2f} CPU]"
            print(
                f"round {round_ + 1}: {label}: {run.wall:.1f} s = {spent} "
                f"(load {run.load:.1f}, CPU {run.cpu:.1f} s, peak RSS {run.rss / 2**20:.0f} MiB, "
                f"PSS {run.pss / 2**20:.0f} MiB"
                + (
                    f", {run.outputs} wheels, {run.out_bytes / 1e6:,.0f} MB)"
                    if run.outputs
                    else ")"
                ),
                flush=True,
            )
    print(f"\nmedians of {args.repeat} rounds, {os.cpu_count()} cores, input {size / 1e6:,.0f} MB")
    print(table(runs, size))
    if not args.keep:
        wheel.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())

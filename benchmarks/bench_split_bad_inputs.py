"""Time ``wheel-size split`` on bad inputs against each input's decode floor (issue #30, "Bad
input": the same outputs as before, never slower than 3x the floor, never a traceback).

The inputs are built under ``--work`` from the benchmark's generated fat library
(``bench_split.build_library``: clang++-19, 8 GPU targets, a 16 MiB table per code object),
``--libraries`` copies of it per wheel (default 4, about 340 MB deflated) plus a small host
library, each wheel once and kept:

* ``good``: the reference, deflated members (level 1, as ``bench_split.py`` builds them);
* ``stored``: the same members stored (zip method 0);
* ``lying``: ``good`` with its first fat library's local and central headers claiming half
  its compressed size (the member's deflate stream does not end where the headers say);
* ``incompressible``: device code of random bytes, so every zstd frame and kpack is bigger
  than the code it holds;
* ``no-device``: every fat library's ``.hipFatBinSegment`` renamed (``objcopy``), so its
  device code is registered by nothing and none can move (the split refuses the wheel).

Each round runs, per input, the split (``--jobs``) and its floor (``decode_floor.py``; for
``lying`` the floor of ``good``, whose bytes are the same: a floor of headers that lie is not
defined), order rotated. Printed: exit status, the first line of stderr, whether a traceback
appeared, ``x floor`` in wall and CPU time (medians), the split's peak process-tree RSS
(sampled every 50 ms, the highest of the rounds), with the load average.

    python benchmarks/bench_split_bad_inputs.py [--jobs 2] [--repeat 3] [--libraries 4]
        [--compare OTHER_CHECKOUT]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import bench_split  # noqa: E402
import decode_floor  # noqa: E402

from wheel_size.wheel.writer import WheelEntry, compress_file, write_wheel  # noqa: E402

INPUTS = ("good", "stored", "lying", "incompressible", "no-device")
TAG = "cp311-cp311-manylinux_2_28_x86_64"
NAME = f"torch-{bench_split.VERSION}-{TAG}.whl"
DIST = f"torch-{bench_split.VERSION}.dist-info"


def _dist_entries() -> list[WheelEntry]:
    return [
        WheelEntry(
            f"{DIST}/METADATA",
            data=f"Metadata-Version: 2.1\nName: torch\nVersion: {bench_split.VERSION}\n".encode(),
        ),
        WheelEntry(
            f"{DIST}/WHEEL",
            data=b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: false\n"
            + f"Tag: {TAG}\n".encode(),
        ),
    ]


def _wheel(path: Path, libraries: list[Path], *, stored: bool) -> Path:
    """A wheel of ``libraries`` (as ``torch/lib/libfatNN.so``) and a small host library."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    raw_dir = Path(tempfile.mkdtemp(dir=path.parent))
    try:
        host = ROOT / "tests" / "data" / "hip" / "libhost.so"
        entries = []
        for i, lib in enumerate([*libraries, host]):
            name = "torch/lib/libhost.so" if lib == host else f"torch/lib/libfat{i:02}.so"
            if stored:
                entries.append(WheelEntry(name, file=lib, compress=False, mode=0o755))
            else:
                raw, digest = compress_file(lib, raw_dir / f"{i}.deflate", level=1, bounded=False)
                entries.append(WheelEntry(name, raw=raw, record_hash=digest, mode=0o755))
        write_wheel(path, [*entries, *_dist_entries()], dist_info=DIST)
    finally:
        shutil.rmtree(raw_dir)
    return path


def _lying(good: Path, path: Path) -> Path:
    """``good`` with its first fat library's compressed size halved in both headers."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(good, path)
    with zipfile.ZipFile(path) as zf:
        info = next(i for i in zf.infolist() if i.filename.startswith("torch/lib/libfat"))
    lie = struct.pack("<I", info.compress_size // 2)
    size = path.stat().st_size
    with path.open("r+b") as fh:
        fh.seek(info.header_offset + 18)  # the local header's compressed size
        fh.write(lie)
        fh.seek(max(0, size - (1 << 20)))  # the central directory, at the end
        tail = fh.read()
        at = tail.find(b"PK\x01\x02")
        while at >= 0:  # this member's central record: its compressed size too
            name_len = struct.unpack_from("<H", tail, at + 28)[0]
            if tail[at + 46 : at + 46 + name_len].decode() == info.filename:
                fh.seek(size - len(tail) + at + 20)
                fh.write(lie)
                break
            at = tail.find(b"PK\x01\x02", at + 46 + name_len)
    return path


def _no_device(lib: Path, work: Path) -> Path:
    """``lib`` with its wrapper section renamed: device code nothing registers."""
    out = work / f"{lib.stem}-unregistered.so"
    if not out.exists():
        subprocess.run(
            ["objcopy", "--rename-section", ".hipFatBinSegment=.hipFatBinSegmentX",
             str(lib), str(out)],
            check=True,
        )  # fmt: skip
    return out


def build(work: Path, kind: str, libraries: int, table_mib: int) -> Path:
    """The wheel for input ``kind`` (built once under ``work``)."""
    folder = work / kind
    device = "incompressible" if kind == "incompressible" else "code"
    lib = bench_split.build_library(work, table_mib, device)
    if kind == "lying":
        return _lying(build(work, "good", libraries, table_mib), folder / NAME)
    if kind == "no-device":
        lib = _no_device(lib, work)
    return _wheel(folder / NAME, [lib] * libraries, stored=kind == "stored")


@dataclass
class Outcome:
    label: str
    wall: float
    cpu: float
    rss: int
    load: float
    code: int = 0
    first_line: str = ""
    traceback: bool = False


def run_split(wheel: Path, out: Path, jobs: int, checkout: Path = ROOT) -> Outcome:
    shutil.rmtree(out, ignore_errors=True)
    command = [
        *(sys.executable, "-m", "wheel_size", "split", "--input", str(wheel)),
        *("--output-dir", str(out), "--device-package-prefix", "amd-torch-device"),
        *("--overlay-root", "torch/", "--jobs", str(jobs)),
    ]
    env = dict(os.environ, PYTHONPATH=str(checkout / "src"))
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        before = os.times()
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=err)
        peak = 0
        done = threading.Event()

        def sample() -> None:  # the process tree's RSS, as bench_split.measure samples it
            nonlocal peak
            while not done.is_set():
                peak = max(peak, bench_split._tree_rss(proc.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        proc.wait()
        wall = time.perf_counter() - start
        done.set()
        sampler.join()
        after = os.times()
        err.seek(0)
        text = err.read()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("split: ")]
    shutil.rmtree(out, ignore_errors=True)
    return Outcome(
        "split",
        wall,
        cpu,
        peak,
        load,
        proc.returncode,
        lines[0][:160] if lines else "",
        "Traceback (most recent call last)" in text,
    )


def run_floor(plan: Path, jobs: int) -> Outcome:
    load = os.getloadavg()[0]
    wall, cpu, rss = bench_split.measure(decode_floor.command(plan, jobs))
    return Outcome("floor", wall, cpu, rss, load)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "wheel-size-bench-split-bad",
        help="where the inputs are built and kept",
    )
    parser.add_argument("--jobs", type=int, default=2, help="the split's --jobs and the floor's")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (medians are reported)")
    parser.add_argument("--libraries", type=int, default=4, help="fat libraries per wheel")
    parser.add_argument("--table-mib", type=int, default=16)
    parser.add_argument("--inputs", default=",".join(INPUTS), help="comma-separated subset")
    parser.add_argument(
        "--compare", type=Path, help="another checkout whose split runs in every round too"
    )
    args = parser.parse_args()
    for tool in ("clang++-19", "objcopy"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not installed")
    args.work.mkdir(parents=True, exist_ok=True)
    kinds = args.inputs.split(",")
    wheels = {kind: build(args.work, kind, args.libraries, args.table_mib) for kind in kinds}
    plans = {}
    for kind, wheel in wheels.items():
        honest = (
            build(args.work, "good", args.libraries, args.table_mib) if kind == "lying" else wheel
        )
        plans[kind] = decode_floor.save(
            decode_floor.split_plan(honest), args.work / f"floor-{kind}.json"
        )
    runs: dict[tuple[str, str], list[Outcome]] = {}
    for checkout in (ROOT, *([args.compare] if args.compare else [])):
        bench_split.prepare_checkout(checkout)
    splits = ["split", *(["split (compare)"] if args.compare else [])]
    contenders = [(kind, what) for kind in kinds for what in (*splits, "floor")]
    for round_ in range(args.repeat):
        shift = round_ % len(contenders)
        for kind, what in contenders[shift:] + contenders[:shift]:
            if what.startswith("split"):
                checkout = args.compare if what == "split (compare)" else ROOT
                outcome = run_split(wheels[kind], args.work / "out", args.jobs, checkout)
            else:
                outcome = run_floor(plans[kind], args.jobs)
            runs.setdefault((kind, what), []).append(outcome)
            print(
                f"round {round_ + 1}: {kind}: {what}: {outcome.wall:.1f} s wall, "
                f"{outcome.cpu:.1f} CPU-s (load {outcome.load:.1f})"
                + (f", exit {outcome.code}: {outcome.first_line}" if what != "floor" else ""),
                flush=True,
            )
    print(f"\nmedians of {args.repeat} rounds, {os.cpu_count()} cores, --jobs {args.jobs}")
    print(
        "| input | split | MB | load | floor wall / CPU | split wall / CPU | x floor (wall) | "
        "CPU x floor | peak RSS | exit | traceback | first line |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for kind in kinds:
        floor = runs[(kind, "floor")]
        fw, fc = statistics.median(r.wall for r in floor), statistics.median(r.cpu for r in floor)
        for what in splits:
            split = runs[(kind, what)]
            sw = statistics.median(r.wall for r in split)
            sc = statistics.median(r.cpu for r in split)
            load = statistics.median(r.load for r in split + floor)
            codes = sorted({r.code for r in split})
            traceback = any(r.traceback for r in split)
            label = "compare" if what == "split (compare)" else "this"
            print(
                f"| {kind} | {label} | {wheels[kind].stat().st_size / 1e6:,.0f} | {load:.1f} | "
                f"{fw:.1f} s / {fc:.1f} s | {sw:.1f} s / {sc:.1f} s | {sw / fw:.2f} | "
                f"{sc / fc:.2f} | {max(r.rss for r in split) / 2**20:.0f} MiB | "
                f"{','.join(map(str, codes))} | {'yes' if traceback else 'no'} | "
                f"{split[-1].first_line.replace('|', '/')} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Benchmark ``wheel-size diff --by family`` and ``wheel-size bloat`` on two real torch
wheels from PyPI (CUDA), against ``sha256sum`` of both wheels measured in the same run.

The wheels are fetched with ``pip download`` into ``--cache`` (never into the repository).
``sha256sum`` and the diff run alternately ``--repeat`` times; printed for each: wall time,
CPU time (user + system of the command and its workers), peak RSS and the load average,
and the diff's time as a multiple of sha256sum's in the same round. Then the
per-architecture totals, checked against ``cuobjdump -xelf all`` run on every changed
library of both wheels (``nvidia-cuda-cuobjdump``; skipped with ``--no-cuobjdump`` or when
it is not installed), the top families, and ``wheel-size bloat`` of the new wheel.

With ``--jobs 1,2`` each round runs the diff once per worker count (``diff -j N``), side by
side with the same round's ``sha256sum``; without it, the diff's default.

The decode floor (``benchmarks/decode_floor.py``: every ELF member that differs between the
wheels inflated with ISA-L, on as many processes as the diff's workers) runs in the same
rounds, its order alternating with the diff's, and each diff is printed as ``x floor``
beside ``x sha256sum``, in wall and in CPU time.

A second floor counts every decode layer a kernel diff cannot avoid: the inflate floor
plus the **inner decode** (``decode_floor.diff_inner_plan``: every distinct compressed
SASS/PTX entry of those members decoded once), timed as its own command in the same
rounds. Each diff is printed against both: ``x floor (inflate only)``, the issue's
definition, and ``x floor (every decode layer)``, its wall and CPU time over the sums of
the two floor commands'.

``--by kernel`` times ``diff --by kernel`` instead (it also hashes every function for its
duplicate marks); the summary gives the best and median ``x floor`` in wall and in CPU
time, CPU being what a shared machine's load disturbs least.

``--compare TREE`` also times the diff of another source tree (``TREE/src``, e.g. main
exported) in the same rounds and order, against the same floors.

Usage: python benchmarks/bench_kernels.py [--old 2.8.0] [--new 2.9.0] [--cache DIR]
       [--repeat 3] [--jobs 1,2] [--by family|kernel] [--no-cuobjdump] [--no-bloat]
       [--compare TREE]
Run it under the shared lock on a shared machine: flock /work/wt/bench.lock python ...
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_split  # noqa: E402
import decode_floor  # noqa: E402

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


@dataclass
class Timing:
    wall: float
    cpu: float  # user + system seconds of the command and everything it waited for
    peak: int  # MiB, the largest process of this command (wait4)
    load: float  # one-minute load average when it started

    def __str__(self) -> str:
        return f"{self.wall:.1f} s wall, {self.cpu:.1f} s CPU (load {self.load:.1f})"


def _timed(cmd: list[str], src: Path = ROOT / "src") -> tuple[Timing, str]:
    """How long ``cmd`` took (``wheel_size`` imported from ``src``), and its stdout."""
    paths = [str(src), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))
    load = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    # The pipes drained by threads, the process reaped here: wait4's usage is this
    # command's alone (RUSAGE_CHILDREN's peak would be the largest child of the run).
    outputs: dict[str, str] = {}
    readers = [
        threading.Thread(target=lambda k=k, f=f: outputs.__setitem__(k, f.read()))
        for k, f in (("out", proc.stdout), ("err", proc.stderr))
    ]
    for reader in readers:
        reader.start()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join()
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed: {outputs['err'].strip()}")
    cpu = usage.ru_utime + usage.ru_stime
    return Timing(wall, cpu, usage.ru_maxrss // 1024, load), outputs["out"]


def cuobjdump_tool() -> str | None:
    """cuobjdump from the ``nvidia-cuda-cuobjdump`` wheel, ``CUOBJDUMP`` or PATH."""
    from importlib.metadata import PackageNotFoundError, distribution

    if os.environ.get("CUOBJDUMP"):
        return os.environ["CUOBJDUMP"]
    try:
        dist = distribution("nvidia-cuda-cuobjdump")
    except PackageNotFoundError:
        return shutil.which("cuobjdump")
    for entry in dist.files or []:
        if entry.name == "cuobjdump":
            path = Path(str(dist.locate_file(entry)))
            path.chmod(path.stat().st_mode | 0o111)
            return str(path)
    return shutil.which("cuobjdump")


def _cuobjdump_totals(tool: str, wheel: Path, members: list[str]) -> Counter[str]:
    """SASS bytes per architecture of ``members`` of ``wheel``, as cuobjdump extracts them
    (``-all``: the relocatable ``__nv_relfatbin`` entries too, which the diff counts)."""
    totals: Counter[str] = Counter()
    with (
        tempfile.TemporaryDirectory(prefix="bench-cuobjdump-") as tmp,
        zipfile.ZipFile(wheel) as zf,
    ):
        for member in members:
            lib = Path(tmp) / "lib.so"
            with zf.open(member) as src, lib.open("wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            out = Path(tmp) / "out"
            out.mkdir()
            proc = subprocess.run(
                [tool, "-all", "-xelf", "all", str(lib)], cwd=out, capture_output=True, check=False
            )
            if proc.returncode and b"does not contain" not in proc.stderr:
                sys.exit(f"cuobjdump failed on {member}: {proc.stderr.decode().strip()}")
            for cubin in out.glob("*.cubin"):
                found = re.findall(r"\.(sm_\d+[af]?)\.cubin$", cubin.name)
                if found:
                    totals[found[0]] += cubin.stat().st_size
            shutil.rmtree(out)
            lib.unlink()
    return totals


def _changed_elf(old: Path, new: Path) -> tuple[list[str], list[str]]:
    """The ELF members of each wheel whose bytes (CRC and size) the other wheel lacks."""
    out: tuple[list[str], list[str]] = ([], [])
    with zipfile.ZipFile(old) as a, zipfile.ZipFile(new) as b:
        sides = ({i.filename: i for i in a.infolist()}, {i.filename: i for i in b.infolist()})
        for side, (zf, mine, theirs) in enumerate(
            ((a, sides[0], sides[1]), (b, sides[1], sides[0]))
        ):
            for name, info in mine.items():
                other = theirs.get(name)
                if other and (other.CRC, other.file_size) == (info.CRC, info.file_size):
                    continue
                if info.file_size > 4:
                    with zf.open(info) as src:
                        if src.read(4) == b"\x7fELF":
                            out[side].append(name)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", default="2.8.0")
    parser.add_argument("--new", default="2.9.0")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/wheel-size-bench-torch"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-cuobjdump", action="store_true")
    parser.add_argument("--no-bloat", action="store_true")
    parser.add_argument("--jobs", default="", help="worker counts to compare, e.g. 1,2")
    parser.add_argument("--by", choices=("family", "kernel"), default="family")
    parser.add_argument(
        "--compare", type=Path, help="another source tree (its src/): its diff in the same rounds"
    )
    args = parser.parse_args()
    jobs = [j.strip() for j in args.jobs.split(",") if j.strip()] or [""]
    args.cache.mkdir(parents=True, exist_ok=True)
    old, new = _fetch(args.old, args.cache), _fetch(args.new, args.cache)
    ws = [sys.executable, "-m", "wheel_size"]
    diff_cmd = [
        *ws,
        "diff",
        "--by",
        args.by,
        "--format",
        "json",
        "--top",
        "10",
        str(old),
        str(new),
    ]
    _timed(["sha256sum", str(old), str(new)])  # page cache warm for both
    for tree in (ROOT, *([args.compare] if args.compare else [])):
        bench_split.prepare_checkout(tree)  # byte-compiled, as an installed package runs
    plan = decode_floor.save(
        decode_floor.diff_plan(old, new), Path(tempfile.gettempdir()) / "bench-kernels-floor.json"
    )
    inner = _inner_plan(old, new, Path(tempfile.gettempdir()))
    ratios = []
    floors: dict[str, list[tuple[float, float]]] = {"inflate only": [], "every decode layer": []}
    based: dict[str, list[tuple[float, float]]] = {"inflate only": [], "every decode layer": []}
    out = base_out = ""
    for round_ in range(1, args.repeat + 1):
        sha, _ = _timed(["sha256sum", str(old), str(new)])
        print(f"round {round_}: sha256sum of both wheels {sha}")
        for job in jobs:
            cores = int(job) if job else min(os.cpu_count() or 1, 4)
            floor_cmd = decode_floor.command(plan, cores)
            inner_cmd = decode_floor.inner_command(inner, cores)
            diff_args = [*diff_cmd, *(["-j", job] if job else [])]
            # alternate which runs first
            order = [("floor", floor_cmd), ("inner", inner_cmd), ("diff", diff_args)]
            if args.compare:
                order.append(("base", diff_args))
            timings: dict[str, Timing] = {}
            for what, cmd in order if round_ % 2 else order[::-1]:
                src = args.compare / "src" if what == "base" else ROOT / "src"
                timings[what], text = _timed(cmd, src)
                out = text if what == "diff" else out
                base_out = text if what == "base" else base_out
            diff, floor, decode = timings["diff"], timings["floor"], timings["inner"]
            ratios.append((diff.wall / sha.wall, diff.cpu / sha.cpu))
            every = (floor.wall + decode.wall, floor.cpu + decode.cpu)
            floors["inflate only"].append((diff.wall / floor.wall, diff.cpu / floor.cpu))
            floors["every decode layer"].append((diff.wall / every[0], diff.cpu / every[1]))
            name = f"diff --by {args.by} -j {job}" if job else f"diff --by {args.by}"
            print(f"round {round_}: floor -j {cores:<17} {floor}, peak RSS {floor.peak} MiB")
            label = f"inner decode -j {cores}"
            print(f"round {round_}: {label:<26} {decode}, peak RSS {decode.peak} MiB")
            print(f"round {round_}: {name:<24} {diff}, peak RSS {diff.peak} MiB")
            wall, cpu = ratios[-1]
            print(
                f"round {round_}: {name} = {wall:.2f}x sha256sum wall, {cpu:.2f}x CPU "
                f"(load {diff.load:.1f})"
            )
            for label, found in floors.items():
                print(
                    f"round {round_}: {name} = {found[-1][0]:.2f}x floor ({label}) wall, "
                    f"{found[-1][1]:.2f}x CPU"
                )
            if args.compare:
                base = timings["base"]
                print(f"round {round_}: base {name:<19} {base}, peak RSS {base.peak} MiB")
                based["inflate only"].append((base.wall / floor.wall, base.cpu / floor.cpu))
                based["every decode layer"].append((base.wall / every[0], base.cpu / every[1]))
                for label, found in based.items():
                    print(
                        f"round {round_}: base = {found[-1][0]:.2f}x floor ({label}) wall, "
                        f"{found[-1][1]:.2f}x CPU"
                    )
    best = min(r[0] for r in ratios)
    print(
        f"best wall ratio {best:.2f}x; median {sorted(r[0] for r in ratios)[len(ratios) // 2]:.2f}x"
    )
    for label, found in floors.items():
        walls, cpus = sorted(f[0] for f in found), sorted(f[1] for f in found)
        middle = len(found) // 2
        print(f"x floor ({label}), wall: best {walls[0]:.2f}, median {walls[middle]:.2f}")
        print(f"CPU x floor ({label}): best {cpus[0]:.2f}, median {cpus[middle]:.2f}")
    for label, found in based.items() if args.compare else ():
        cpus = sorted(f[1] for f in found)
        print(f"base: CPU x floor ({label}): best {cpus[0]:.2f}, median {cpus[len(cpus) // 2]:.2f}")
    if args.compare:  # the JSON of the last round (``--top 10``), byte for byte
        print(f"output byte-identical to base: {'yes' if out == base_out else 'NO'}")
    data = json.loads(out)
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
    tool = None if args.no_cuobjdump else cuobjdump_tool()
    if tool is None:
        print("cuobjdump check skipped")
    else:
        _check_cuobjdump(tool, old, new, data)
    if not args.no_bloat:
        _bloat(ws, new)
    return 0


def _inner_plan(old: Path, new: Path, tmp: Path) -> Path:
    """The inner decode's plan (``decode_floor.diff_inner_plan``), kept beside its payload
    file and made again only when a wheel changed (it inflates every changed member)."""
    key = [[str(w), w.stat().st_size, w.stat().st_mtime_ns] for w in (old, new)]
    path, payloads = tmp / "bench-kernels-inner.json", tmp / "bench-kernels-inner.bin"
    if path.exists() and payloads.exists():
        try:
            if json.loads(path.read_text()).get("key") == key:
                return path
        except ValueError:
            pass
    entries = decode_floor.diff_inner_plan(old, new, payloads)
    decode_floor.save_inner(entries, payloads, path)
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "key": key}))
    return path


def _check_cuobjdump(tool: str, old: Path, new: Path, data: dict[str, Any]) -> None:
    """The diff's per-architecture SASS totals against cuobjdump's on the changed libraries."""
    [comparison] = data["comparisons"]
    got = {t["arch"]: (t["old_total"], t["new_total"]) for t in comparison["archs"]}
    changed = _changed_elf(old, new)
    sides = [_cuobjdump_totals(tool, wheel, changed[i]) for i, wheel in enumerate((old, new))]
    bad = 0
    for arch in sorted(set(sides[0]) | set(sides[1]) | {a for a in got if a.startswith("sm_")}):
        want = (sides[0][arch], sides[1][arch])
        have = got.get(arch)
        if have is None and want[0] == want[1]:
            same = "unchanged: the diff lists changed architectures only"
        else:
            same = "equal" if have == want else f"DIFFERENT: the diff says {have}"
            bad += have != want
        print(f"  cuobjdump {arch}: {want[0]:,} -> {want[1]:,} ({same})")
    print("cuobjdump per-architecture totals:", "all equal" if not bad else f"{bad} differ")


def _bloat(ws: list[str], new: Path) -> None:
    timing, out = _timed([*ws, "bloat", "--format", "json", str(new)])
    bloat = json.loads(out)
    print(f"bloat (new wheel): {timing}, peak RSS {timing.peak} MiB")
    dup = sum(d["saving"] for d in bloat["duplicates"])
    twin = sum(t["saving"] for t in bloat["twins"])
    print(f"bloat: {bloat['code_bytes']:,} code bytes; duplicates save {dup:,}; twins {twin:,}")
    for item in bloat["duplicates"][:5]:
        print(
            f"  dup {item['arch']} x{item['copies']} {item['name'][:90]}: saves {item['saving']:,}"
        )
    for family in bloat["families"][:10]:
        print(f"  {family['family'][:90]}: {family['bytes']:,} bytes, {family['instantiations']}")


if __name__ == "__main__":
    raise SystemExit(main())

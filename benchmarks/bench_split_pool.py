"""What a split's worker pool costs, against what its work costs per MiB: the figures behind
the constants of ``wheel_size.split.jobs.pool_workers`` (``docs/split.md``, "When a pool
pays"; the run is in ``docs/benchmarks.md``).

``pool``: each wheel is split with every job in one process and with a pool of N workers,
alternating, each run a fresh interpreter (as the command runs); the CPU time (user + system,
the process and its children) the pool adds, per worker, is the pool's cost. Use small
wheels, where the work itself hardly varies.

``work``: each wheel is split in one process; every library job's seconds against its
inflated size (fat libraries, whose host bytes are rewritten and deflated, are the dear
ones), and the wheel wave's seconds against the libraries' inflated bytes.

    python benchmarks/bench_split_pool.py pool --workers 2,3 --repeat 9 SPEC...
    python benchmarks/bench_split_pool.py work SPEC...

A SPEC is ``WHEEL:DEVICE_PREFIX:OVERLAY_ROOT[:EXTRA_NAMING]``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MB = 1 << 20


def one(spec: str, workers: int, out: Path) -> dict[str, object]:
    """Split ``spec`` on ``workers`` processes (1: no pool), in this process."""
    sys.path.insert(0, str(ROOT / "src"))
    from wheel_size.split.apply import split_wheel
    from wheel_size.split.job import checked_split_options

    wheel, prefix, overlay, *naming = spec.split(":")
    options = checked_split_options(
        device_package_prefix=prefix,
        overlay_root=overlay,
        jobs=max(2, workers),
        extra_naming=naming[0] if naming else "plain",
    )
    result = split_wheel(Path(wheel), out, options, log=io.StringIO(), workers=workers)
    return {
        "libraries": [
            (member.size, plan.fat, plan.seconds)
            for member, plan in zip(result.plan.candidates, result.plan.libraries, strict=True)
        ],
        "wheels": result.timings["host_wheel"] + result.timings["device_wheels"],
        "wheel_count": len(result.wheels),
    }


def run_one(spec: str, workers: int) -> tuple[float, float, dict[str, object]]:
    """CPU and wall seconds of a split in a fresh interpreter, and what it measured."""
    work = Path(tempfile.mkdtemp(prefix="bench-split-pool-"))
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, __file__, "_one", spec, str(workers), str(work / "out")],
            check=True,
            capture_output=True,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, wall, json.loads(done.stdout)


def pool_cost(specs: list[str], counts: list[int], repeat: int) -> None:
    """Each wheel with and without a pool of each count; ``rule`` is what
    ``pool_workers`` picks for it with that many jobs, ``paid`` whether the pool took off
    more wall time than it added CPU time (the rule's aim)."""
    sys.path.insert(0, str(ROOT / "src"))
    from wheel_size.split.jobs import pool_workers

    print(
        "| wheel | workers | CPU, no pool | CPU, pool | pool's CPU | wall, no pool | wall, pool "
        "| paid | rule |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    added: list[tuple[int, float]] = []
    for spec in specs:
        for n in counts:
            runs: dict[int, list[tuple[float, float]]] = {1: [], n: []}
            sizes: list[int] = []
            for r in range(repeat):
                for workers in (1, n) if r % 2 == 0 else (n, 1):
                    cpu, wall, found = run_one(spec, workers)
                    runs[workers].append((cpu, wall))
                    sizes = [size for size, _, _ in found["libraries"]]  # type: ignore[union-attr]
            alone = statistics.median(c for c, _ in runs[1])
            pooled = statistics.median(c for c, _ in runs[n])
            wall_alone = statistics.median(w for _, w in runs[1])
            wall_pooled = statistics.median(w for _, w in runs[n])
            added.append((n, pooled - alone))
            paid = wall_alone - wall_pooled > pooled - alone
            print(
                f"| {Path(spec.split(':')[0]).name} | {n} | {alone:.3f} s | {pooled:.3f} s "
                f"| {pooled - alone:.3f} s | {wall_alone:.3f} s | {wall_pooled:.3f} s "
                f"| {'yes' if paid else 'no'} | {pool_workers(n, sizes)} |"
            )
    ns = [n for n, _ in added]
    if len(set(ns)) > 1:  # least squares: pool's CPU = fixed + per_worker * n
        slope, fixed = statistics.linear_regression(ns, [c for _, c in added])
        print(f"\npool's CPU = {fixed:.3f} s + {slope:.3f} s per worker", end="")
    print(f" (load {os.getloadavg()[0]:.1f})")


def work_rates(specs: list[str]) -> None:
    print(
        "| wheel | libraries | MiB | fat: s/MiB (max) | other: s/MiB | wheels: s/MiB of libraries |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    fat_rates: list[float] = []
    for spec in specs:
        _, _, found = run_one(spec, 1)
        libraries = found["libraries"]
        assert isinstance(libraries, list)
        total = sum(size for size, _, _ in libraries) / MB
        fat = [
            seconds / (size / MB)
            for size, is_fat, seconds in libraries
            if is_fat and size >= MB // 4
        ]
        other = [(size, seconds) for size, is_fat, seconds in libraries if not is_fat]
        fat_rates += fat
        other_rate = (
            sum(s for _, s in other) / (sum(z for z, _ in other) / MB) if other else float("nan")
        )
        wheels = float(found["wheels"]) / total if total else float("nan")  # type: ignore[arg-type]
        print(
            f"| {Path(spec.split(':')[0]).name} | {len(libraries)} | {total:.1f} "
            f"| {max(fat, default=float('nan')):.4f} | {other_rate:.4f} | {wheels:.4f} |"
        )
    if fat_rates:
        median, most = statistics.median(fat_rates), max(fat_rates)
        print(f"\nfat libraries of 0.25 MiB or more: s/MiB median {median:.4f}, max {most:.4f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # "_one SPEC WORKERS OUT" is the child process one timed run is measured in
    parser.add_argument("what", choices=["pool", "work", "_one"])
    parser.add_argument("specs", nargs="+", metavar="SPEC")
    parser.add_argument("--workers", default="2", help="pool sizes to measure, e.g. 2,3")
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args(argv)
    if args.what == "_one":
        spec, workers, out = args.specs
        print(json.dumps(one(spec, int(workers), Path(out))))
    elif args.what == "pool":
        pool_cost(args.specs, [int(n) for n in args.workers.split(",")], args.repeat)
    else:
        work_rates(args.specs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

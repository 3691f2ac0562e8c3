"""``wheel-size audit`` of one wheel against ``sha256sum`` of the same file, side by side.

Issue 31 bounds the audit of a GPU-only wheel (flashinfer-cubin 0.6.12: 15,558 standalone
cubins, 1.84 GB installed, a 447 MB wheel) at twice ``sha256sum`` of the wheel. The audit
inflates and hashes every member to check RECORD, so the bound is mostly about how that work
is spread over the cores. Runs alternate (sha256sum, audit, sha256sum, audit, …) so a load
that comes and goes hits both; each pair can hold an ``flock`` on a shared lock file, so
other benchmarks on the machine do not run at the same time. Prints every run and the median
ratio of wall-clock seconds; with ``--jobs`` also times the wheel's inspection in-process with
that many worker threads (1 is the sequential baseline).

    python benchmarks/bench_audit.py WHEEL [--rounds 5] [--lock /work/wt/bench.lock]
        [--jobs 1 2] [--format markdown|json]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


@contextlib.contextmanager
def _locked(path: str | None) -> Iterator[None]:
    if path is None:
        yield
        return
    with Path(path).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _timed(argv: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KB) of one child run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss


def _inspect_seconds(wheel: Path, jobs: int) -> tuple[float, float]:
    from wheel_size.audit.inspect import inspect_wheel

    start, cpu = time.perf_counter(), time.process_time()
    inspect_wheel(wheel, jobs=jobs)
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--rounds", type=int, default=5, help="pairs of runs (default 5)")
    parser.add_argument("--lock", help="flock this file around each pair of runs")
    parser.add_argument(
        "--jobs", type=int, nargs="*", default=[], help="also time inspect_wheel(jobs=N)"
    )
    parser.add_argument("--format", default="markdown", choices=["markdown", "json"])
    args = parser.parse_args()
    sha = shutil.which("sha256sum")
    if sha is None:
        print("sha256sum not found: skipped", file=sys.stderr)
        return 2
    audit = [sys.executable, "-m", "wheel_size", "audit", "--format", args.format, str(args.wheel)]
    ratios: list[float] = []
    print("| round | sha256sum s | audit s | audit CPU s | audit peak MB | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for round_ in range(1, args.rounds + 1):
        with _locked(args.lock):
            order = [("sha", [sha, str(args.wheel)]), ("audit", audit)]
            if round_ % 2 == 0:
                order.reverse()
            runs = {name: _timed(argv) for name, argv in order}
        (sha_wall, _, _), (audit_wall, audit_cpu, peak) = runs["sha"], runs["audit"]
        ratios.append(audit_wall / sha_wall)
        print(
            f"| {round_} | {sha_wall:.2f} | {audit_wall:.2f} | {audit_cpu:.2f} | "
            f"{peak / 1024:.0f} | {ratios[-1]:.2f}x |"
        )
    print(f"\nmedian ratio {statistics.median(ratios):.2f}x over {len(ratios)} rounds")
    for jobs in args.jobs:
        with _locked(args.lock):
            wall, cpu = _inspect_seconds(args.wheel, jobs)
        print(f"inspect_wheel(jobs={jobs}): {wall:.2f} s wall, {cpu:.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())

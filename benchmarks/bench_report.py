"""Time `wheel-size report` over a year of history with 40 artifacts a night.

Builds a directory store of 365 nightly run files (8 variants × 5 Python versions), then
times loading, analysis and rendering (Markdown and JSON) in-process, best of N, and the
whole command as a subprocess (interpreter start and imports included).

usage: python benchmarks/bench_report.py [--days 365] [--repeat 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from wheel_size.dates import DateRange
from wheel_size.history import ArtifactRecord, DirectoryStore, RunRecord
from wheel_size.report import render_json, render_size_report
from wheel_size.report.build import reports_for

ROOT = Path(__file__).resolve().parents[1]
MB = 1_048_576
VARIANTS = ["cpu", "cuda12_6", "cuda12_8", "cuda12_9", "cuda13_0", "xpu", "rocm6_4", "rocm7_0"]
PYTHONS = ["py3_10", "py3_11", "py3_12", "py3_13", "py3_14"]


def build_store(root: Path, days: int) -> DateRange:
    rng = random.Random(7)
    start = dt.date(2025, 1, 1)
    sizes = {(v, p): 170.0 + 500 * rng.random() for v in VARIANTS for p in PYTHONS}
    runs = []
    for i in range(days):
        day = start + dt.timedelta(days=i)
        arts = []
        for (v, p), size in sizes.items():
            size += rng.uniform(-0.05, 0.15) + (rng.choice([0, 0, 0, 4, -4]) if i % 13 == 0 else 0)
            sizes[(v, p)] = size
            name = f"manywheel-{p}-{v}"
            digest = "sha256:" + "0" * 64
            arts.append(ArtifactRecord(name, round(size * MB), False, f"{day}T10:00:00Z", digest))
        runs.append(
            RunRecord(
                "pytorch/pytorch",
                day,
                18_000_000_000 + i,
                21257348,
                "x.yml",
                status="completed",
                conclusion="success",
                created_at=f"{day}T07:30:00Z",
                head_sha="a" * 40,
                base_sha="b" * 40,
                artifacts=tuple(arts),
            )
        )
    DirectoryStore(root).write_runs(runs)
    return DateRange(start, start + dt.timedelta(days=days - 1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "history"
        period = build_store(root, args.days)
        files = list(root.rglob("*.json"))
        size = sum(f.stat().st_size for f in files)
        store = DirectoryStore(root)
        best_md = best_json = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            reports = reports_for(store, ["cuda12_8"], [period])
            render_size_report(reports)
            best_md = min(best_md, time.perf_counter() - t0)
            t0 = time.perf_counter()
            reports = reports_for(store, ["cuda12_8"], [period])
            render_json(reports)
            best_json = min(best_json, time.perf_counter() - t0)
        t0 = time.perf_counter()
        reports = reports_for(store, VARIANTS, [period])
        render_size_report(reports)
        all_variants = time.perf_counter() - t0
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        cmd = [sys.executable, "-m", "wheel_size", "report", "--history", str(root),
               "--variant", "cuda12_8", "--from", str(period.start), "--to", str(period.end),
               "-o", os.devnull]  # fmt: skip
        best_cli = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, check=True)
            best_cli = min(best_cli, time.perf_counter() - t0)
    print(f"history: {len(files)} run files, {size / 1024:.0f} KiB, "
          f"{len(VARIANTS) * len(PYTHONS)} artifacts a night")  # fmt: skip
    print(f"| Report over the whole history | Time (best of {args.repeat}) |")
    print("|---|---|")
    print(f"| load + analyse + Markdown, 1 variant | {best_md * 1000:.0f} ms |")
    print(f"| load + analyse + JSON, 1 variant | {best_json * 1000:.0f} ms |")
    every = f"load + analyse + Markdown, all {len(VARIANTS)} variants (1 run)"
    print(f"| {every} | {all_variants * 1000:.0f} ms |")
    print(f"| `wheel-size report` subprocess, 1 variant | {best_cli * 1000:.0f} ms |")


if __name__ == "__main__":
    main()

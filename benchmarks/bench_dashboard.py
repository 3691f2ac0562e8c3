"""Time the dashboard for a long history: N variants × D days, and report the page size.

usage: python benchmarks/bench_dashboard.py [--variants 8] [--days 365]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from wheel_size.dashboard import render_dashboard


def report(variant: str, days: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    size = 800.0 + 100 * rng.random()
    rows, jumps, previous = [], [], None
    start = dt.date(2025, 1, 1)
    for index in range(days):
        date = (start + dt.timedelta(days=index)).isoformat()
        size += rng.uniform(-0.05, 0.15) + (
            rng.choice([0, 0, 0, 0, 5, -5]) if index % 17 == 0 else 0
        )
        status = "no_run" if rng.random() < 0.05 else "ok"
        value = round(size, 3) if status == "ok" else None
        delta = round(value - previous, 3) if value is not None and previous is not None else None
        if delta is not None and abs(delta) >= 1:
            jumps.append({"date": date, "delta_mb": delta, "size_mb": value})
        if value is not None:
            previous = value
        rows.append(
            {
                "date": date,
                "size_mb": value,
                "delta_mb": delta,
                "status": status,
                "run_id": 10_000 + index,
                "artifact": f"manywheel-py3_12-{variant}",
            }
        )
    ok = [r for r in rows if r["size_mb"] is not None]
    return {
        "variant": variant,
        "artifact": f"manywheel-py3_12-{variant}",
        "start": {"date": ok[0]["date"], "size_mb": ok[0]["size_mb"]},
        "end": {"date": ok[-1]["date"], "size_mb": ok[-1]["size_mb"]},
        "change_mb": ok[-1]["size_mb"] - ok[0]["size_mb"],
        "change_pct": 1.0,
        "jumps": jumps,
        "days": rows,
        "observations": [],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variants", type=int, default=8)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    reports = [report(f"v{i}", args.days, i) for i in range(args.variants)]
    render_dashboard(reports, repository="o/r")  # warm the template cache
    best = float("inf")
    for _ in range(args.repeat):
        started = time.perf_counter()
        html = render_dashboard(reports, repository="o/r")
        best = min(best, time.perf_counter() - started)
    jumps = sum(len(r["jumps"]) for r in reports)
    print(
        f"{args.variants} variants x {args.days} days ({jumps} jumps): "
        f"best of {args.repeat} {best * 1000:.0f} ms, page {len(html.encode()) / 1024:.0f} KiB"
    )


if __name__ == "__main__":
    main()

"""Baselines that never hide a step, and build time that stays quiet on jitter (issue 29).

Two measurements over generated series (a fixed seed per series, so a run is repeatable):

* size: a level with night-to-night noise under the threshold and steps planted at random
  (up or down, some on consecutive nights, some back again); for every baseline the share
  of planted steps some reported step's commit window covers, the share dated on the
  night it happened, and the reports on nights without a step;
* build time: series that only jitter (uniform, a share of the mean), flagged changes under
  the old default (10 min or 25 % day over day) and the new one (15 min or 25 % beyond the
  band of the median of 7 nights); and the recall of a planted +N min change.

usage: python benchmarks/bench_baselines.py [--series 400] [--nights 60]
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src")]

from wheel_size.series import MB, Baseline, SizePoint, Thresholds, jumps_between  # noqa: E402
from wheel_size.series.baseline import baseline_events_between  # noqa: E402
from wheel_size.series.buildtime import BuildThresholds  # noqa: E402

D0 = dt.date(2025, 10, 1)
KB = 1024


def _size_series(rng: random.Random, nights: int) -> tuple[list[SizePoint], list[int]]:
    level = rng.randint(300, 900) * MB
    noise = 200 * KB
    smallest = MB + 2 * noise + 16 * KB
    plan = {rng.randint(1, nights - 1): rng.choice((1, -1)) * rng.randint(smallest, 12 * MB)
            for _ in range(rng.randint(0, 6))}  # fmt: skip
    points, steps = [], []
    for i in range(nights):
        level += plan.get(i, 0)
        if i in plan:
            steps.append(i)
        size = level + rng.randint(-noise, noise)
        points.append(SizePoint(D0 + dt.timedelta(days=i), "cpu", size))
    return points, steps


def size_table(series: int, nights: int) -> None:
    specs = ["previous", "median:3", "median:7", "median:14", "window:3", "window:7"]
    print("| Baseline | Planted steps | Covered | Dated on their night | Reports on other nights |")
    print("|---|---|---|---|---|")
    for spec in specs:
        t = Thresholds(mb=1.0, baseline=Baseline.parse(spec))
        planted = covered = dated = extra = 0
        for seed in range(series):
            points, steps = _size_series(random.Random(seed), nights)
            found = jumps_between(points, points[0].date, points[-1].date, t)
            planted += len(steps)
            for i in steps:
                night = points[i].date
                covered += any(s.before.date < night <= s.after.date for s in found)
                dated += any(s.date == night for s in found)
            extra += sum(1 for s in found if s.date not in {points[i].date for i in steps})
        print(f"| {spec} | {planted} | {covered} | {dated} | {extra} |")


def _jitter(rng: random.Random, mean: float, share: float, nights: int) -> list[SizePoint]:
    return [
        SizePoint(
            D0 + dt.timedelta(days=i), "b", round(60 * mean * (1 + rng.uniform(-share, share)))
        )
        for i in range(nights)
    ]


def build_table(series: int, nights: int) -> None:
    old = BuildThresholds(minutes=10.0, pct=25.0, baseline=Baseline())
    new = BuildThresholds()
    print()
    print(
        "| Build (min, jitter) | Changes | Flagged, 10 min or 25 % day over day "
        "| Flagged, default | Planted change found |"
    )
    print("|---|---|---|---|---|")
    for mean, share in ((45, 0.15), (45, 0.25), (120, 0.10), (170, 0.08), (170, 0.12)):
        changes = flagged_old = flagged_new = found = 0
        for seed in range(series):
            pts = _jitter(random.Random(seed), mean, share, nights)
            changes += nights - 8
            flagged_old += sum(
                old.crossed(b.size_bytes - a.size_bytes, a.size_bytes)
                for a, b in itertools.pairwise(pts[7:])
            )
            flagged_new += len(baseline_events_between(pts, pts[8].date, pts[-1].date, new))
            half = nights // 2
            rise = round(60 * mean * (0.25 + 2 * share))  # 25 % beyond the jitter's band
            step = [p if i < half else SizePoint(p.date, "b", p.size_bytes + rise)
                    for i, p in enumerate(pts)]  # fmt: skip
            hits = baseline_events_between(step, step[8].date, step[-1].date, new)
            found += any(s.before.date < step[half].date <= s.after.date for s in hits)
        print(
            f"| {mean} ±{share:.0%} | {changes} | {flagged_old} | {flagged_new} "
            f"| {found} of {series} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", type=int, default=400, help="generated series per row")
    parser.add_argument("--nights", type=int, default=60, help="nights per series")
    args = parser.parse_args()
    size_table(args.series, args.nights)
    build_table(max(1, args.series // 10), args.nights)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

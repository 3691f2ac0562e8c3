"""How the forecast does on the held-out history: fit on the nights up to a cut-off, predict
the size on later nights, and count how often the real size falls inside the 95 % prediction
interval (the slope's bounds times the horizon, widened by the nights' scatter around the trend).

    python benchmarks/bench_forecast.py [HISTORY] [NIGHTS]
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from wheel_size.dates import DateRange
from wheel_size.history import DirectoryStore
from wheel_size.report.build import reports_for
from wheel_size.report.model import Thresholds
from wheel_size.series.forecast import Forecast, forecast

MB = 1_048_576
VARIANTS = ["cpu", "cuda12_6", "cuda12_8", "cuda13_0", "rocm6_4", "xpu"]
CUTS = [dt.date(2025, 11, 30), dt.date(2025, 12, 31), dt.date(2026, 1, 31)]
HORIZONS = [30, 60]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("history", nargs="?", type=Path, default=Path("examples/history"))
    parser.add_argument("nights", nargs="?", type=int, default=60, help="nights fitted")
    args = parser.parse_args()
    root: Path = args.history
    nights: int = args.nights
    store = DirectoryStore(root)
    span = DateRange(dt.date(2025, 10, 1), dt.date(2026, 3, 31))
    thresholds = Thresholds(mb=1.0)
    reports = reports_for(store, VARIANTS, [span], thresholds=thresholds)
    inside = total = stepped = 0
    errors: list[float] = []
    print("| variant | cut-off | +days | predicted MB | interval MB | real MB | outside by MB |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for report in reports:
        points = [(d.date, d.size_bytes) for d in report.ok_days if d.size_bytes is not None]
        for cut in CUTS:
            fit = [p for p in points if p[0] <= cut]
            found = forecast(fit, [], nights=nights, is_jump=thresholds.crossed)
            if not isinstance(found, Forecast):
                print(f"| {report.variant} | {cut} | | no forecast: {found.reason} | | | |")
                continue
            for days in HORIZONS:
                day = cut + dt.timedelta(days=days)
                real = next((s for d, s in points if d >= day), None)
                if real is None:
                    continue
                ahead = (day - found.last).days
                mid, lo, hi = found.predicted(ahead)
                ok = lo <= real <= hi
                inside += ok
                # a miss after a one-night step (thresholds crossed) between cut-off and day
                later = [s for d, s in points if cut <= d <= day]
                step = any(thresholds.crossed(b - a, a) for a, b in itertools.pairwise(later))
                stepped += not ok and step
                total += 1
                errors.append(abs(real - mid) / MB)
                print(f"| {report.variant} | {cut} | {days} | {mid / MB:,.1f} | "
                      f"{lo / MB:,.1f} – {hi / MB:,.1f} | {real / MB:,.1f} | "
                      f"{'—' if ok else f'{max(lo - real, real - hi) / MB:,.1f}'} |")  # fmt: skip
    errors.sort()
    median = errors[len(errors) // 2] if errors else float("nan")
    print(f"\n{inside} of {total} real sizes inside the interval; median error {median:.1f} MB; "
          f"{stepped} of {total - inside} misses follow a one-night step")  # fmt: skip


if __name__ == "__main__":
    main()

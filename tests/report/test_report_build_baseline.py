"""Build time against a baseline (issue 29 item 1): a build that only jitters stays quiet,
a real change is still found on its night, and the sentence after the build-time table
is a sentence, not a table row."""

from __future__ import annotations

import datetime as dt
import random

from wheel_size.dates import DateRange
from wheel_size.report import render_size_report
from wheel_size.report.analyze import build_jumps
from wheel_size.report.model import Day, DayStatus, Report
from wheel_size.series import Baseline, Thresholds
from wheel_size.series.buildtime import BuildThresholds

D0 = dt.date(2025, 10, 1)


def days_of(minutes: list[float]) -> list[Day]:
    return [
        Day(
            D0 + dt.timedelta(days=i),
            DayStatus.OK,
            size_bytes=800 << 20,
            run_id=100 + i,
            build_seconds=round(m * 60),
            build_collected=True,
        )
        for i, m in enumerate(minutes)
    ]


def jitter(mean: float, share: float, nights: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [mean * (1 + rng.uniform(-share, share)) for _ in range(nights)]


def test_defaults_stay_quiet_on_jitter() -> None:
    """±15 % around 45 min and ±8 % around 170 min: the night-to-night rule flags a good
    share of these changes, the defaults (beyond the band of 7 nights) none, once 7 nights
    are there (the report reads them from before its range)."""
    for seed in range(20):
        for mean, share in ((45.0, 0.15), (170.0, 0.08)):
            days = days_of(jitter(mean, share, 30, seed))
            flagged = [j for j in build_jumps(days, BuildThresholds()) if j.date >= days[7].date]
            assert flagged == [], (seed, mean)
    # what the old default (10 min or 25 % day over day) flagged on the same series: 40 %
    old = BuildThresholds(minutes=10.0, baseline=Baseline())
    noisy = sum(len(build_jumps(days_of(jitter(170.0, 0.08, 30, s)), old)) for s in range(20))
    assert noisy > 150


def test_a_real_change_is_found_on_its_night() -> None:
    minutes = jitter(45.0, 0.15, 14, 3) + [m + 30 for m in jitter(45.0, 0.15, 14, 4)]
    jumps = build_jumps(days_of(minutes), BuildThresholds())
    assert [j.date for j in jumps] == [D0 + dt.timedelta(days=14)]
    (jump,) = jumps
    assert jump.baseline is not None and jump.baseline.spec == "median:7"


def test_the_size_baseline_applies_to_build_time() -> None:
    t = BuildThresholds().with_baseline(Baseline.parse("window:3"))
    assert t.baseline.spec == "window:3"
    assert BuildThresholds().with_baseline(Baseline()).baseline.spec == "median:7"


def test_the_sentence_after_the_build_table_is_not_a_row() -> None:
    minutes = [45.0] * 10 + [90.0] * 4
    days = days_of(minutes)
    report = Report(
        variant="cpu",
        artifact="manywheel-py3_12-cpu",
        repository=None,
        periods=(DateRange(days[0].date, days[-1].date),),
        thresholds=Thresholds(),
        days=tuple(days),
        jumps=(),
        observations=(),
        build_jumps=build_jumps(days, BuildThresholds()),
    )
    assert report.build_jumps
    md = render_size_report([report])
    lines = md.splitlines()
    sentence = next(i for i, line in enumerate(lines) if line.startswith("Build time: the wall"))
    assert lines[sentence - 1] == "", "the sentence renders as a row of the table above it"
    assert lines[sentence - 2].startswith("| 2025-10-11 |")
    assert "45.0 min (band 45.0–45.0 min)" in md

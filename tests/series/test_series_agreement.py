"""Property: the report's jumps, the regression events and the dashboard's jump marks are
the same set for any series and any thresholds, and that set is what the crossing rule says.

This is the bug class that already bit us: two detectors that disagreed at the threshold
(bytes vs rounded MB). Sizes are generated next to the thresholds on purpose: a delta of
exactly the threshold, one byte less, one byte more.
"""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st
from series_history import D0, history_of

from wheel_size.dashboard.chart import build_chart
from wheel_size.dates import DateRange
from wheel_size.regressions.issues.alerts import AlertSettings, events_for_night
from wheel_size.report import build_size_report
from wheel_size.series import MB, SizeSeries, Thresholds
from wheel_size.variants import ArtifactNaming

THRESHOLD_MB = [None, 0.0, 0.1, 0.5, 1.0, 1.5, 2.0, 3.3]
THRESHOLD_PCT = [None, 0.0, 0.1, 0.25, 0.5, 1.0, 2.5]
BASE = 800 * MB


@st.composite
def scenario(draw: st.DrawFn) -> tuple[list[int | None], Thresholds]:
    mb = draw(st.sampled_from(THRESHOLD_MB) | st.floats(0.0, 4.0, allow_nan=False))
    pct = draw(st.sampled_from(THRESHOLD_PCT) | st.floats(0.0, 3.0, allow_nan=False))
    thresholds = Thresholds(mb=mb, pct=pct)
    size = BASE
    sizes: list[int | None] = []
    for _ in range(draw(st.integers(1, 18))):
        if draw(st.integers(0, 5)) == 0:
            sizes.append(None)  # a night without a run
            continue
        sign = draw(st.sampled_from([1, -1]))
        edge = draw(st.sampled_from(["mb", "pct", "free", "zero"]))
        nudge = draw(st.integers(-1, 1))
        if edge == "mb" and mb is not None:
            delta = int(Decimal(repr(mb)) * MB) + nudge
        elif edge == "pct" and pct is not None:
            delta = int(Decimal(repr(pct)) * size / 100) + nudge
        elif edge == "zero":
            delta = 0
        else:
            delta = draw(st.integers(0, 4 * MB))
        size = max(1, size + sign * max(delta, 0))
        sizes.append(size)
    return sizes, thresholds


def oracle(delta: int, base: int, t: Thresholds) -> bool:
    """The rule in words, in Decimal: a non-zero change of at least mb MB or pct percent."""
    if delta == 0:
        return False
    change = Decimal(abs(delta))
    by_mb = t.mb is not None and change >= Decimal(repr(t.mb)) * MB
    by_pct = t.pct is not None and base > 0 and change * 100 >= Decimal(repr(t.pct)) * base
    return by_mb or by_pct


def span(sizes: list[int | None]) -> list[DateRange]:
    return [DateRange(D0, D0 + dt.timedelta(days=len(sizes) - 1))]


@settings(max_examples=300, deadline=None)
@given(scenario())
def test_report_regressions_and_dashboard_agree(case: tuple[list[int | None], Thresholds]) -> None:
    sizes, thresholds = case
    history = history_of(sizes)
    series = SizeSeries(history)
    report = build_size_report(series, "cpu", span(sizes), thresholds=thresholds)
    reported = {(j.prev_date, j.date, j.prev_size_bytes, j.size_bytes) for j in report.jumps}

    # The regression step reads its own series object built the way it always was.
    regression = SizeSeries(history, ArtifactNaming())
    days = list(span(sizes)[0].days())

    def events(include_drops: bool) -> set[tuple[dt.date, dt.date, int, int]]:
        alert = AlertSettings(thresholds=thresholds, creep=None, include_drops=include_drops)
        return {
            (e.before.date, e.date, e.before.size_bytes, e.after.size_bytes)
            for day in days
            for e in events_for_night(regression, day, ["cpu"], alert)
            if e.kind == "jump"
        }

    assert events(include_drops=True) == reported
    assert events(include_drops=False) == {j for j in reported if j[3] > j[2]}

    marks = {m.date for m in build_chart(report.to_dict()).jumps}
    assert marks == {j[1].isoformat() for j in reported}

    points = [(D0 + dt.timedelta(days=i), s) for i, s in enumerate(sizes) if s is not None]
    expected = {
        (a_day, b_day, a, b)
        for (a_day, a), (b_day, b) in itertools.pairwise(points)
        if oracle(b - a, a, thresholds)
    }
    assert reported == expected
    # and the report's days carry the same deltas the steps were measured on
    for day in report.days:
        step = series["cpu"].step_on(day.date) if "cpu" in series else None
        assert day.delta_bytes == (step.delta_bytes if step else None)


def test_the_boundary_that_bit_us() -> None:
    # Exactly 1 MB more: a jump for everyone; one byte less: a jump for no one.
    for delta, expected in ((MB, True), (MB - 1, False)):
        sizes: list[int | None] = [BASE, BASE + delta]
        report = build_size_report(SizeSeries(history_of(sizes)), "cpu", span(sizes))
        alert = AlertSettings(creep=None)
        regression = SizeSeries(history_of(sizes), ArtifactNaming())
        events = events_for_night(regression, D0 + dt.timedelta(days=1), ["cpu"], alert)
        assert bool(report.jumps) is expected
        assert bool(events) is expected

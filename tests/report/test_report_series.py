"""Reports read the run's SizeSeries: the same answer from a History, a series loaded for
the report alone, or one loaded once for a longer chart and the issues."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from history_factory import run
from wheel_size.dates import DateRange
from wheel_size.errors import InputError
from wheel_size.history import DirectoryStore, History, RunRecord
from wheel_size.report import build_size_report
from wheel_size.report.build import report_window, reports_for, reports_from_series
from wheel_size.series import SizeSeries, load_series

START = dt.date(2025, 6, 1)


def nights() -> list[RunRecord]:
    out = []
    for i in range(100):
        day = START + dt.timedelta(days=i)
        sizes = {"cpu": 180 + i * 0.3 + (5 if i >= 80 else 0)}
        if i < 20:
            sizes["xpu"] = 400.0  # only long before the report window
        out.append(run(day, sizes))
    return out


def test_history_and_series_give_the_same_report() -> None:
    h = History.of(nights())
    period = [DateRange(START + dt.timedelta(days=70), START + dt.timedelta(days=99))]
    a = build_size_report(h, "cpu", period)
    b = build_size_report(SizeSeries(h), "cpu", period)
    assert a.to_json() == b.to_json()
    assert [j.date for j in a.jumps] == [START + dt.timedelta(days=80)]


def test_a_longer_series_gives_the_reports_of_the_short_one(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "h")
    store.write_runs(nights())
    period = [DateRange(START + dt.timedelta(days=70), START + dt.timedelta(days=99))]
    alone = reports_for(store, ["cpu"], period)
    window = report_window(period)
    assert window.start == period[0].start - dt.timedelta(days=31)
    wide = load_series(store, START, window.end)
    shared = reports_from_series(wide, ["cpu"], period, where=store.description)
    assert [r.to_json() for r in shared] == [r.to_json() for r in alone]
    # A variant seen only outside the report's window is still unknown to the report,
    # as when the report loaded its own history.
    with pytest.raises(InputError, match="unknown variant 'xpu'"):
        reports_from_series(wide, ["xpu"], period)


def test_no_runs_in_the_period_names_the_store(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "h")
    store.write_runs(nights())
    later = [DateRange(dt.date(2026, 1, 1), dt.date(2026, 1, 5))]
    with pytest.raises(InputError, match=r"^history directory .* has no runs in 2026-01-01"):
        reports_for(store, ["cpu"], later)
    with pytest.raises(InputError, match="at least one date range"):
        reports_for(store, ["cpu"], [])


def test_a_gap_longer_than_the_lookback_is_compared_when_the_run_loaded_it(tmp_path: Path) -> None:
    """The one place the old report and the old issue step disagreed by how far back each
    had loaded: the night after a 40-day gap. With one series per run both compare it."""
    from wheel_size.regressions.issues.alerts import AlertSettings, events_for_night

    store = DirectoryStore(tmp_path / "h")
    store.write_runs(
        [run(START, {"cpu": 100.0}), run(START + dt.timedelta(days=41), {"cpu": 104.0})]
    )
    night = START + dt.timedelta(days=41)
    period = [DateRange(night, night)]
    (alone,) = reports_for(store, ["cpu"], period)  # reads 31 days back: nothing to compare
    assert alone.days[0].prev_date is None and not alone.jumps
    series = load_series(store, night - dt.timedelta(days=45), night)  # the issue step's reach
    (shared,) = reports_from_series(series, ["cpu"], period)
    events = events_for_night(series, night, ["cpu"], AlertSettings(creep=None))
    assert [j.date for j in shared.jumps] == [e.date for e in events] == [night]
    assert shared.days[0].prev_date == START

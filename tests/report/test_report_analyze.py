from __future__ import annotations

import datetime as dt

import pytest

from history_factory import MB, run
from wheel_size.dates import DateRange
from wheel_size.errors import InputError
from wheel_size.history import History
from wheel_size.report import DayStatus, Thresholds, build_size_report
from wheel_size.report.observations import holiday_name

D = dt.date


def rng(a: str, b: str) -> list[DateRange]:
    return [DateRange(D.fromisoformat(a), D.fromisoformat(b))]


def test_statuses_jumps_and_provenance() -> None:
    h = History.of(
        [
            run("2025-09-30", {"cuda12_8": 100.0}),
            run("2025-10-01", {"cuda12_8": 100.2}),
            # Oct 2: no run
            run("2025-10-03", {"cpu": 1.0}, conclusion="failure"),
            run("2025-10-04", {"cpu": 1.0}),  # finished without the artifact
            run("2025-10-05", {"cuda12_8": 103.0}, run_id=1, created="07:00:00"),
            run("2025-10-05", {"cuda12_8": 104.0}, run_id=2, created="15:00:00"),
            run("2025-10-06", {"cpu": 1.0}, status="in_progress", conclusion=None),
        ]
    )
    r = build_size_report(h, "cuda12_8", rng("2025-10-01", "2025-10-06"))
    assert [d.status for d in r.days] == [
        DayStatus.OK,
        DayStatus.NO_RUN,
        DayStatus.FAILED,
        DayStatus.MISSING,
        DayStatus.OK,
        DayStatus.PENDING,
    ]
    first = r.days[0]
    assert first.prev_date == D(2025, 9, 30)  # the lookback before the range
    assert first.delta_bytes == round(100.2 * MB) - round(100.0 * MB)
    # latest run with the artifact wins, delta against the last night that had it
    oct5 = r.days[4]
    assert oct5.run_id == 2 and oct5.prev_date == D(2025, 10, 1)
    assert [j.date for j in r.jumps] == [D(2025, 10, 5)]
    j = r.jumps[0]
    assert j.prev_run_id == 202510010 and j.run_id == 2
    assert j.base_sha and j.prev_base_sha and j.base_sha != j.prev_base_sha
    assert j.delta_mb == pytest.approx(3.8, abs=1e-3)
    assert r.start and r.start.date == D(2025, 10, 1)
    assert r.end and r.end.date == D(2025, 10, 5)
    assert r.change_mb == pytest.approx(3.8, abs=1e-3)
    kinds = [o.kind for o in r.observations]
    assert {"failed_run", "missing_artifact", "pending_run", "no_run"} <= set(kinds)


def test_percent_threshold_and_off_switch() -> None:
    h = History.of([run("2025-10-01", {"cpu": 100.0}), run("2025-10-02", {"cpu": 100.6})])
    assert not build_size_report(h, "cpu", rng("2025-10-01", "2025-10-02")).jumps
    pct = Thresholds(mb=None, pct=0.5)
    assert build_size_report(h, "cpu", rng("2025-10-01", "2025-10-02"), thresholds=pct).jumps
    assert not build_size_report(
        h, "cpu", rng("2025-10-01", "2025-10-02"), thresholds=Thresholds(None, None)
    ).jumps


def test_rollback_over_two_nights() -> None:
    sizes = {
        "2025-11-03": 867.1,
        "2025-11-04": 870.2,
        "2025-11-05": 871.8,
        "2025-11-08": 871.8,
        "2025-11-12": 867.7,
    }
    h = History.of(run(d, {"cuda12_8": s}) for d, s in sizes.items())
    r = build_size_report(h, "cuda12_8", rng("2025-11-03", "2025-11-12"))
    rb = [o for o in r.observations if o.kind == "rollback"]
    assert len(rb) == 1
    assert rb[0].dates == (D(2025, 11, 4), D(2025, 11, 5), D(2025, 11, 12))
    assert "+4.7 MB" in rb[0].text and "-4.1 MB" in rb[0].text
    assert not [o for o in r.observations if o.kind == "stair_step"]


def test_rollback_window_respected() -> None:
    h = History.of(
        [
            run("2025-10-01", {"cpu": 10.0}),
            run("2025-10-02", {"cpu": 15.0}),
            run("2025-10-30", {"cpu": 10.0}),
        ]
    )
    r = build_size_report(h, "cpu", rng("2025-10-01", "2025-10-30"), rollback_days=10)
    assert not [o for o in r.observations if o.kind == "rollback"]


def test_stair_step() -> None:
    h = History.of(
        run(f"2025-10-{d:02d}", {"cuda12_8": s})
        for d, s in [(1, 855.3), (11, 859.3), (18, 861.6), (29, 863.2), (30, 867.0)]
    )
    r = build_size_report(h, "cuda12_8", rng("2025-10-01", "2025-10-31"))
    steps = [o for o in r.observations if o.kind == "stair_step"]
    assert len(steps) == 1 and len(steps[0].dates) == 4
    assert "growth" in steps[0].text


def test_rename_detected_not_a_regression() -> None:
    h = History.of(
        [
            run("2025-11-14", {"cpu": 175.0, "cuda12_8": 867.9}),
            run("2025-11-15", {"cpu": 175.0, "cuda12_9": 1211.0}),
            run("2025-11-16", {"cpu": 175.0, "cuda12_9": 1210.0}),
            run("2025-11-18", {"cpu": 175.0, "cuda12_8": 868.1, "cuda12_9": 1209.0}),
        ]
    )
    r = build_size_report(h, "cuda12_8", rng("2025-11-14", "2025-11-18"))
    assert [d.status for d in r.days] == ["ok", "renamed", "renamed", "no_run", "ok"]
    assert r.days[1].renamed_to == ("manywheel-py3_12-cuda12_9",)
    assert r.days[4].prev_date == D(2025, 11, 14)
    assert not r.jumps
    rename = [o for o in r.observations if o.kind == "rename"]
    assert rename and "cuda12_9 (~1,210.5 MB)" in rename[0].text
    # the cpu variant is not a CUDA rename target
    r_cpu_missing = build_size_report(
        History.of([run("2025-11-14", {"cuda12_8": 1.0}), run("2025-11-15", {"cpu": 1.0})]),
        "cuda12_8",
        rng("2025-11-14", "2025-11-15"),
    )
    assert r_cpu_missing.days[1].status == DayStatus.MISSING


def test_holidays() -> None:
    assert holiday_name(D(2025, 11, 27)) == "Thanksgiving week"
    assert holiday_name(D(2025, 11, 30)) == "Thanksgiving week"
    assert holiday_name(D(2025, 12, 25)) == "year-end holidays"
    assert holiday_name(D(2026, 1, 1)) == "year-end holidays"
    assert holiday_name(D(2025, 10, 15)) is None
    h = History.of([run("2025-11-24", {"cpu": 1.0}), run("2025-12-01", {"cpu": 1.0})])
    r = build_size_report(h, "cpu", rng("2025-11-24", "2025-12-01"))
    gap = [o for o in r.observations if o.kind == "holiday_gap"]
    assert gap and "Nov 25–30 (6 days, Thanksgiving week)" in gap[0].text


def test_stable_month() -> None:
    h = History.of(
        run(f"2025-12-{d:02d}", {"cuda12_8": 868.3 + (0.9 if d >= 3 else 0)}) for d in range(1, 8)
    )
    r = build_size_report(h, "cuda12_8", rng("2025-12-01", "2025-12-07"))
    kinds = [o.kind for o in r.observations]
    assert "stable" in kinds and "largest_increase" in kinds
    assert "largest_decrease" not in kinds


def test_multi_month_summary() -> None:
    h = History.of(
        [
            run("2025-10-01", {"cpu": 1.0}),
            run("2025-10-31", {"cpu": 2.0}),
            run("2025-11-30", {"cpu": 3.0}),
        ]
    )
    r = build_size_report(h, "cpu", rng("2025-10-01", "2025-11-30"))
    assert [m.month for m in r.months] == ["2025-10", "2025-11"]
    assert r.months[1].start is not None and r.months[1].start.date == D(2025, 11, 30)


def test_needs_a_period() -> None:
    with pytest.raises(InputError):
        build_size_report(History(()), "cpu", [])

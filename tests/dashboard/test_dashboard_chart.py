from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from dashboard_history import generated_report
from hypothesis import given, settings
from hypothesis import strategies as st

from wheel_size.dashboard.chart import MAX_LABEL_ROWS, _label_width, build_chart, nice_ticks


def test_nice_ticks_cover_the_range_with_round_steps() -> None:
    ticks = nice_ticks(869.7, 953.2)
    assert ticks[0] <= 869.7 and ticks[-1] >= 953.2
    steps = {round(b - a, 6) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1
    assert steps.pop() in {10.0, 20.0, 50.0}
    assert 3 <= len(ticks) <= 7


def test_nice_ticks_of_a_flat_history_still_span_something() -> None:
    ticks = nice_ticks(100.0, 100.0)
    assert ticks[0] < 100.0 < ticks[-1]


def test_gaps_break_the_line_and_show_in_the_band() -> None:
    report = generated_report()
    chart = build_chart(report)
    statuses = [day["status"] for day in report["days"]]
    # The line is broken at every run of days without the watched artifact's size.
    runs_of_gaps = sum(
        1 for i, s in enumerate(statuses) if s != "ok" and (i == 0 or statuses[i - 1] == "ok")
    )
    assert len(chart.paths) == runs_of_gaps + 1
    assert [b.status for b in chart.bands] == [s for s in statuses if s != "ok"]
    assert {b.status for b in chart.bands} == {"no_run", "missing", "renamed"}


def test_renamed_sizes_do_not_stretch_the_scale() -> None:
    chart = build_chart(generated_report())
    ok = [p for p in chart.points if p.status == "ok"]
    renamed = [p for p in chart.points if p.status == "renamed"]
    # far off the axis: named in the band, never pinned to the edge as if it were a size
    assert renamed == []
    assert sum(b.status == "renamed" for b in chart.bands) == 3
    spread = max(p.y for p in ok) - min(p.y for p in ok)
    assert spread > 0.5 * (chart.bottom - chart.top)


def test_jumps_are_marked_at_their_day_and_linked() -> None:
    report = generated_report()
    first = report["jumps"][0]["date"]
    chart = build_chart(report, {first: "https://github.com/o/r/issues/7"})
    assert [j.date for j in chart.jumps] == [j["date"] for j in report["jumps"]]
    assert chart.jumps[0].url == "https://github.com/o/r/issues/7"
    assert all(j.url is None for j in chart.jumps[1:])
    point = next(p for p in chart.points if p.date == first)
    assert (chart.jumps[0].x, chart.jumps[0].y) == (point.x, point.y)
    # Two jumps four days apart: their labels are on different rows.
    assert chart.jumps[0].label_row != chart.jumps[1].label_row


def test_upward_growth_is_drawn_upwards() -> None:
    report = generated_report()
    chart = build_chart(report)
    jump = chart.jumps[0]
    before = [p for p in chart.points if p.date < jump.date and p.status == "ok"][-1]
    assert jump.y < before.y  # SVG y grows downwards


def test_an_empty_report_gives_an_empty_chart() -> None:
    chart = build_chart({"variant": "cpu", "days": [], "jumps": []})
    assert chart.empty and not chart.paths and not chart.bands


def test_a_single_day_is_centred() -> None:
    report = {"days": [{"date": "2025-10-01", "size_mb": 10.0, "status": "ok"}], "jumps": []}
    chart = build_chart(report)
    assert chart.points[0].x == pytest.approx((chart.left + chart.right) / 2)


def test_renamed_days_in_the_report_schema_shape() -> None:
    # `report --format json` gives a renamed day no size of its own but the new artifact's
    # name(s) and size in renamed_to / renamed_size_bytes.
    report: dict[str, Any] = {
        "days": [
            {"date": "2025-11-14", "size_mb": 900.0, "status": "ok", "artifact": "a-cuda12_8"},
            {
                "date": "2025-11-15",
                "size_mb": None,
                "status": "renamed",
                "artifact": "a-cuda12_8",
                "renamed_to": ["a-cuda12_9"],
                "renamed_size_bytes": 1250 * 1048576,
            },
            {"date": "2025-11-16", "size_mb": None, "status": "failed", "artifact": None},
            {"date": "2025-11-17", "size_mb": 901.0, "status": "ok", "artifact": "a-cuda12_8"},
        ],
        "jumps": [],
    }
    chart = build_chart(report)
    # 1250 MB is off this variant's axis: the band names it, no point pretends it is a size
    assert [p for p in chart.points if p.status == "renamed"] == []
    near = dict(report, days=[dict(d) for d in report["days"]])
    near["days"][1]["renamed_size_bytes"] = int(900.5 * 1048576)
    renamed = [p for p in build_chart(near).points if p.status == "renamed"]
    assert [(p.size_mb, p.artifact) for p in renamed] == [(900.5, "a-cuda12_9")]
    assert [(b.status, b.artifact) for b in chart.bands] == [
        ("renamed", "a-cuda12_9"),
        ("failed", None),
    ]
    assert len(chart.paths) == 2


def test_jump_marks_are_the_reports_jumps_never_a_detector_of_their_own() -> None:
    report = generated_report()
    assert report["jumps"], "the generated history has jumps"
    marks = build_chart(report).jumps
    assert [m.date for m in marks] == [j["date"] for j in report["jumps"]]
    # Without the report's jumps there is nothing to mark, however the sizes move.
    assert build_chart({**report, "jumps": []}).jumps == []


def _jumps_report(dates_and_deltas: list[tuple[int, float]], days: int = 60) -> dict[str, Any]:
    start = dt.date(2025, 10, 1)
    rows = [
        {"date": (start + dt.timedelta(days=i)).isoformat(), "size_mb": 800.0 + i / 10,
         "status": "ok"}
        for i in range(days)
    ]  # fmt: skip
    jumps = [
        {"date": rows[i]["date"], "delta_mb": delta, "size_mb": rows[i]["size_mb"]}
        for i, delta in dates_and_deltas
    ]
    return {"days": rows, "jumps": jumps}


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 59), st.floats(-300, 300, allow_nan=False)),
        max_size=25,
        unique_by=lambda j: j[0],
    )
)
def test_jump_labels_in_one_row_never_overlap(jumps: list[tuple[int, float]]) -> None:
    chart = build_chart(_jumps_report(sorted(jumps)))
    spans: dict[int, list[tuple[float, float]]] = {}
    for mark in chart.jumps:
        assert -1 <= mark.label_row < MAX_LABEL_ROWS
        if mark.label_row < 0:
            continue
        width = _label_width(mark.delta_mb)
        start = mark.x - 5 - width if mark.label_left else mark.x + 5
        assert chart.left - width <= start and start + width <= chart.width
        for lo, hi in spans.get(mark.label_row, []):
            assert start + width <= lo or start >= hi  # no overlap within a row
        spans.setdefault(mark.label_row, []).append((start, start + width))


def test_close_jumps_stack_and_the_rest_keep_only_their_mark() -> None:
    chart = build_chart(_jumps_report([(10, 4.0), (11, 2.3), (12, 1.6), (13, 3.8), (40, 1.0)]))
    rows = [m.label_row for m in chart.jumps]
    assert rows == [0, 1, 2, -1, 0]


def test_y_axis_from_zero_on_request() -> None:
    report = _jumps_report([])
    assert build_chart(report).y_ticks[0].label != "0"
    assert build_chart(report, y_zero=True).y_ticks[0].label == "0"


def test_days_before_a_variant_existed_are_not_broken_nights() -> None:
    report = _jumps_report([], days=10)
    for row in report["days"][:4]:
        row.update(status="missing", size_mb=None)
    report["days"][6].update(status="missing", size_mb=None)
    statuses = [b.status for b in build_chart(report).bands]
    assert statuses == ["not_built"] * 4 + ["missing"]


def test_axis_dates_are_short_with_the_year_where_it_changes() -> None:
    report = _jumps_report([], days=120)
    labels = [t.label for t in build_chart(report).x_ticks]
    assert labels == [
        "Oct 1, 2025", "Oct 16", "Oct 31", "Nov 15", "Nov 30", "Dec 15", "Dec 30", "Jan 14, 2026",
    ]  # fmt: skip

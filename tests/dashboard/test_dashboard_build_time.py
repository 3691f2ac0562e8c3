"""The dashboard's build-time chart: drawn under the size chart only when the report carries
build time, with left-out nights and build-time jumps marked."""

from __future__ import annotations

import datetime as dt
from typing import Any

from wheel_size.dashboard.buildchart import build_time_chart
from wheel_size.dashboard.page import render_dashboard


def report(build: bool) -> dict[str, Any]:
    days: list[dict[str, Any]] = []
    for i, minutes in enumerate([163.0, 164.5, None, 201.0]):
        day: dict[str, Any] = {
            "date": (dt.date(2025, 10, 1) + dt.timedelta(days=i)).isoformat(),
            "status": "ok",
            "size_mb": 860.0,
            "delta_mb": 0.0,
            "artifact": "manywheel-py3_12-cuda12_8",
        }
        if build:
            day["build_minutes"] = minutes
            day["build_note"] = (
                "job manywheel-py3_12-cuda12_8-build / build ended cancelled"
                if minutes is None
                else None
            )
        days.append(day)
    out: dict[str, Any] = {
        "variant": "cuda12_8",
        "artifact": "manywheel-py3_12-cuda12_8",
        "days": days,
        "jumps": [],
    }
    if build:
        out["build_time"] = {
            "thresholds": {"minutes": 10.0, "pct": 25.0},
            "jumps": [{"date": "2025-10-04", "delta_minutes": 36.5}],
        }
    return out


def test_second_chart_only_with_build_time() -> None:
    stamp = dt.datetime(2025, 10, 5, tzinfo=dt.timezone.utc)
    plain = render_dashboard([report(False)], generated_at=stamp)
    assert "build (min)" not in plain and build_time_chart(report(False)) is None
    html = render_dashboard([report(True)], generated_at=stamp)
    assert 'aria-label="Build time of cuda12_8"' in html
    assert "2025-10-04: 201.0 min" in html
    assert (
        "2025-10-03: build time left out: "
        "job manywheel-py3_12-cuda12_8-build / build ended cancelled" in html
    )
    assert "2025-10-04: +36.5 min build time" in html


def test_gap_breaks_the_line() -> None:
    chart = build_time_chart(report(True))
    assert chart is not None
    assert len(chart.paths) == 2 and len(chart.points) == 3
    assert [j.date for j in chart.jumps] == ["2025-10-04"]
    assert chart.y_ticks[0].label == "0"

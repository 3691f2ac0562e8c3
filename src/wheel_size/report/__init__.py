"""The size report: a pure model built from the history, rendered as Markdown or JSON.

Public API::

    report = build_size_report(history, "cuda12_8", [DateRange(start, end)])   # -> Report
    report.jumps            # Jump events (variant, dates, sizes, run ids, head/base SHAs)
    report.to_json()        # the documented JSON (docs/report-format.md)
    render_size_report([report])
"""

from wheel_size.report.analyze import LOOKBACK_DAYS, build_size_report
from wheel_size.report.model import (
    MB,
    Day,
    DayStatus,
    Jump,
    MonthSummary,
    Observation,
    Report,
    Thresholds,
)
from wheel_size.report.render import render_json, render_size_report

__all__ = [
    "LOOKBACK_DAYS",
    "MB",
    "Day",
    "DayStatus",
    "Jump",
    "MonthSummary",
    "Observation",
    "Report",
    "Thresholds",
    "build_size_report",
    "render_json",
    "render_size_report",
]

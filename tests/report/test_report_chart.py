"""The step summary's Mermaid chart over a month stays readable: short distinct x labels
(the month's name where it starts, the day alone in between), the year where it changes,
and a wider chart, not squeezed labels, past what 700 px holds. It used to label 30 points
"10-01", "10-02", …, which ran into each other."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from wheel_size.dates import DateRange, parse_month
from wheel_size.history import DirectoryStore
from wheel_size.render.chart_labels import chart_labels
from wheel_size.report import render_size_report
from wheel_size.report.build import reports_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "history"


def _mermaid(period: DateRange) -> tuple[list[str], list[str], str]:
    """(x labels, points, the block) of the chart the report renders for ``period``."""
    (report,) = reports_for(DirectoryStore(EXAMPLE), ["cuda12_8"], [period])
    text = render_size_report([report])
    block = re.search(r"```mermaid\n(.*?)```", text, re.S)
    assert block is not None
    axis = re.search(r"x-axis \[(.*)\]", block.group(1))
    line = re.search(r"line \[(.*)\]", block.group(1))
    assert axis is not None and line is not None
    return re.findall(r'"([^"]*)"', axis.group(1)), line.group(1).split(", "), block.group(1)


def test_a_month_has_short_distinct_labels() -> None:
    labels, points, block = _mermaid(parse_month("October 2025"))
    assert len(labels) == len(points) >= 28
    assert len(set(labels)) == len(labels)
    assert labels[0] == "Oct 1" and labels[1:4] == ["2", "3", "4"]
    assert max(len(label) for label in labels) <= len("Oct 31")
    assert "%%{init" not in block  # 31 short labels fit the default width


def test_a_longer_span_names_months_and_years_and_widens() -> None:
    span = DateRange(dt.date(2025, 11, 20), dt.date(2026, 1, 31))
    labels, points, block = _mermaid(span)
    assert len(labels) == len(points) and len(set(labels)) == len(labels)
    assert labels[0] == "2025-11-20"
    assert "Dec 1" in labels or any(label.startswith("Dec ") for label in labels)
    assert any(label.startswith("2026-01-") for label in labels)
    assert re.search(r'%%\{init: \{"xyChart": \{"width": \d+\}\}\}%%', block)


def test_labels_stay_distinct_over_a_year_of_gaps() -> None:
    days = [dt.date(2025, 1, 5), dt.date(2025, 2, 5), dt.date(2025, 2, 6), dt.date(2025, 3, 6)]
    assert chart_labels(days) == ["Jan 5", "Feb 5", "6", "Mar 6"]
    same_day = [dt.date(2025, 1, 5), dt.date(2025, 1, 6), dt.date(2025, 2, 5), dt.date(2025, 2, 6)]
    # "6" would repeat January's: the month is named instead
    assert chart_labels(same_day) == ["Jan 5", "6", "Feb 5", "Feb 6"]

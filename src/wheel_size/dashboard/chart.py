"""Geometry of one history chart, computed here so the page needs no script.

The template draws what this module measures: line segments (broken wherever a day has no
size, so a gap never looks like a flat line), day marks, jump marks, the status band that
shows missing days and renames, and axis ticks. Only numbers leave this module; every label
is written by the template, which escapes it.

Nothing here decides what a jump is: the marks are placed at the report's ``jumps``, which
come from :mod:`wheel_size.series` like the regression issues' events.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wheel_size.report.document import ReportJson
from wheel_size.series import MB
from wheel_size.units import format_mb

__all__ = [
    "Band",
    "Chart",
    "DayMark",
    "JumpMark",
    "Tick",
    "artifact_label",
    "build_chart",
    "nice_ticks",
]

WIDTH = 960
HEIGHT = 280
LEFT = 64
RIGHT = 16
TOP = 16
BOTTOM = 56  # x labels and the status band live below the plot
BAND_HEIGHT = 10
MAX_LABEL_ROWS = 3  # jump labels stack in up to this many rows, then only the mark remains
LABEL_GAP = 6.0
CHAR_WIDTH = 6.6  # 11 px bold digits, a generous estimate so labels never touch


def _label_width(delta_mb: float) -> float:
    """Width of a jump label such as "+12.3 MB" in the chart's 11 px bold font."""
    return len(f"{format_mb(delta_mb, signed=True)} MB") * CHAR_WIDTH


@dataclass(frozen=True)
class DayMark:
    """Where one day that has a size (the watched artifact's, or a renamed one's) is drawn."""

    x: float
    y: float
    date: str
    size_mb: float
    delta_mb: float | None
    status: str
    artifact: str | None


@dataclass(frozen=True)
class JumpMark:
    """Where one of the report's jumps is drawn; ``url`` is its regression issue, if any."""

    x: float
    y: float
    date: str
    delta_mb: float
    size_mb: float | None
    url: str | None
    label_row: int = 0
    label_left: bool = False


@dataclass(frozen=True)
class Band:
    """A day without a usable size, drawn in the status band under the plot."""

    x: float
    width: float
    date: str
    status: str
    artifact: str | None


@dataclass(frozen=True)
class Tick:
    pos: float
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: float
    top: float
    right: float
    bottom: float
    band_y: float
    band_height: float
    paths: list[str] = field(default_factory=list)
    points: list[DayMark] = field(default_factory=list)
    jumps: list[JumpMark] = field(default_factory=list)
    bands: list[Band] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    x_ticks: list[Tick] = field(default_factory=list)
    # The forecast's trend over the nights it was fitted on (dashed), when the report has one.
    trend: str | None = None

    @property
    def empty(self) -> bool:
        return not self.points


def nice_ticks(low: float, high: float, target: int = 5) -> list[float]:
    """Round tick values (1, 2, 5 × 10^k steps) covering ``low``..``high``."""
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError("tick range must be finite")
    if high < low:
        low, high = high, low
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    raw = (high - low) / max(target - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value < high + step * 0.999:
        ticks.append(round(value, 10))
        value += step
    return ticks


def artifact_label(day: Mapping[str, Any]) -> str | None:
    """The artifact a day's size belongs to: the new name(s) on a renamed day."""
    renamed = day.get("renamed_to")
    if isinstance(renamed, list) and renamed:
        return ", ".join(str(name) for name in renamed)
    if isinstance(renamed, str) and renamed:
        return renamed
    artifact = day.get("artifact")
    return None if artifact is None else str(artifact)


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def build_chart(
    report: ReportJson,
    issue_urls: Mapping[str, str] | None = None,
    *,
    width: int = WIDTH,
    height: int = HEIGHT,
    y_zero: bool = False,
) -> Chart:
    """Lay out the chart of one report (the ``report --format json`` object).

    ``issue_urls`` maps a jump's date to the URL of its regression issue; ``y_zero`` starts
    the size axis at 0 MB (honest proportions) instead of fitting it to the sizes (detail).
    """
    issue_urls = issue_urls or {}
    days: Sequence[Mapping[str, Any]] = report.get("days") or []
    left, right = float(LEFT), float(width - RIGHT)
    top, bottom = float(TOP), float(height - BOTTOM)
    band_y = bottom + 30
    chart = Chart(width, height, left, top, right, bottom, band_y, BAND_HEIGHT)
    if not days:
        return chart

    count = len(days)
    step = (right - left) / (count - 1) if count > 1 else 0.0

    def x_of(index: int) -> float:
        return left + index * step if count > 1 else (left + right) / 2

    # The scale follows the watched artifact only: a renamed artifact (often hundreds of MB
    # away, e.g. cuda12_8 -> cuda12_9) is pinned to the edge instead of flattening the line.
    sizes = [_number(d.get("size_mb")) for d in days if (d.get("status") or "ok") == "ok"]
    known = [s for s in sizes if s is not None] or [
        s for s in (_number(d.get("size_mb")) for d in days) if s is not None
    ]
    ticks = nice_ticks(0.0 if y_zero else min(known), max(known)) if known else [0.0, 1.0]
    low, high = ticks[0], ticks[-1]

    def y_of(size: float) -> float:
        size = min(max(size, low), high)
        return bottom - (size - low) / (high - low) * (bottom - top)

    index_of: dict[str, int] = {}
    segment: list[str] = []
    band_width = max(step, 2.0)
    first_ok = next((i for i, d in enumerate(days) if (d.get("status") or "ok") == "ok"), len(days))
    for index, day in enumerate(days):
        date = str(day.get("date", ""))
        index_of[date] = index
        status = str(day.get("status") or "ok")
        if status == "missing" and index < first_ok:
            status = "not_built"  # the variant did not exist yet: not a broken night
        size = _number(day.get("size_mb"))
        if size is None and status == "renamed":
            renamed_bytes = _number(day.get("renamed_size_bytes"))
            size = renamed_bytes / MB if renamed_bytes is not None else None
        artifact = artifact_label(day)
        x = x_of(index)
        if size is None or status != "ok":
            # Every day without the watched artifact's size breaks the line; a renamed
            # day that still has a size is drawn as its own hollow marker.
            if segment:
                chart.paths.append(" ".join(segment))
                segment = []
            shown = status if status != "ok" else "missing"
            chart.bands.append(Band(x - band_width / 2, band_width, date, shown, artifact))
            if size is not None and low <= size <= high:
                # a renamed artifact's size off the axis is named in the band, not pinned
                # to the edge where it would look like a size of this variant
                point = DayMark(
                    x, y_of(size), date, size, _number(day.get("delta_mb")), status, artifact
                )
                chart.points.append(point)
            continue
        y = y_of(size)
        segment.append(f"{'M' if not segment else 'L'}{x:.1f},{y:.1f}")
        chart.points.append(
            DayMark(x, y, date, size, _number(day.get("delta_mb")), status, artifact)
        )
    if segment:
        chart.paths.append(" ".join(segment))

    rows: list[float] = []  # per label row: the x where its last label ends
    for jump in report.get("jumps") or []:
        date = str(jump.get("date", ""))
        if date not in index_of:
            continue
        size = _number(jump.get("size_mb"))
        delta = _number(jump.get("delta_mb")) or 0.0
        y = y_of(size) if size is not None else top
        x = x_of(index_of[date])
        anchor_end = x + _label_width(delta) > right
        start = x - 5 - _label_width(delta) if anchor_end else x + 5
        row = next((i for i, end in enumerate(rows) if start > end + LABEL_GAP), len(rows))
        if row >= MAX_LABEL_ROWS:
            row = -1  # no room: the mark and its tooltip still say it
        elif row < len(rows):
            rows[row] = start + _label_width(delta)
        else:
            rows.append(start + _label_width(delta))
        chart.jumps.append(JumpMark(x, y, date, delta, size, issue_urls.get(date), row, anchor_end))

    trend = _trend_path(report.get("forecast"), index_of, x_of, y_of)
    if trend is not None:
        chart = dataclasses.replace(chart, trend=trend)
    chart.y_ticks.extend(Tick(y_of(value), f"{value:g}") for value in ticks)
    label_every = max(1, math.ceil(count / 8))
    chart.x_ticks.extend(
        Tick(x_of(i), _date_label(str(days[i].get("date", "")), first=i == 0))
        for i in range(0, count, label_every)
    )
    return chart


def _date_label(date: str, *, first: bool) -> str:
    """ "Oct 11" on the axis; the year on the first tick and on every January tick."""
    try:
        day = dt.date.fromisoformat(date)
    except ValueError:
        return date
    label = f"{day:%b} {day.day}"
    return f"{label}, {day.year}" if first or day.month == 1 else label


def _trend_path(
    forecast: Any,
    index_of: Mapping[str, int],
    x_of: Callable[[int], float],
    y_of: Callable[[float], float],
) -> str | None:
    """The forecast's line from its first to its last night (read field by field: a report
    given to ``dashboard`` may hold anything)."""
    if not isinstance(forecast, Mapping):
        return None
    first, last = str(forecast.get("first")), str(forecast.get("last"))
    slope, level = _number(forecast.get("mb_per_day")), _number(forecast.get("level_mb"))
    if slope is None or level is None or first not in index_of or last not in index_of:
        return None
    try:
        days = (dt.date.fromisoformat(last) - dt.date.fromisoformat(first)).days
    except ValueError:
        return None
    start = level - slope * days
    return (
        f"M{x_of(index_of[first]):.1f},{y_of(start):.1f} "
        f"L{x_of(index_of[last]):.1f},{y_of(level):.1f}"
    )

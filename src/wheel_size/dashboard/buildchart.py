"""Geometry of the build-time chart drawn under a variant's size chart.

Drawn only when the report carries build time (``build_time`` in the report JSON): the
build minutes of each night on the same x axis as the size chart, broken where a night has
none (left out, with its reason in the tooltip), and the build-time jumps marked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wheel_size.dashboard.chart import LEFT, RIGHT, WIDTH, Tick, nice_ticks
from wheel_size.report.document import ReportJson

__all__ = ["BuildChart", "BuildMark", "build_time_chart"]

HEIGHT = 170
TOP = 12
BOTTOM = 30


@dataclass(frozen=True)
class BuildMark:
    x: float
    y: float
    date: str
    minutes: float


@dataclass(frozen=True)
class BuildJumpMark:
    x: float
    date: str
    delta_minutes: float


@dataclass(frozen=True)
class BuildChart:
    width: int
    height: int
    left: float
    top: float
    right: float
    bottom: float
    paths: list[str] = field(default_factory=list)
    points: list[BuildMark] = field(default_factory=list)
    jumps: list[BuildJumpMark] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    left_out: list[tuple[float, str, str]] = field(default_factory=list)  # x, date, reason

    @property
    def empty(self) -> bool:
        return not self.points


def _minutes(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def build_time_chart(report: ReportJson, *, width: int = WIDTH) -> BuildChart | None:
    """The chart of ``report``'s build minutes, or None when it has no build time."""
    build = report.get("build_time")
    if not isinstance(build, Mapping):
        return None
    days: Sequence[Mapping[str, Any]] = [
        d for d in report.get("days") or [] if isinstance(d, Mapping)
    ]
    left, right = float(LEFT), float(width - RIGHT)
    top, bottom = float(TOP), float(HEIGHT - BOTTOM)
    chart = BuildChart(width, HEIGHT, left, top, right, bottom)
    count = len(days)
    if not count:
        return chart
    step = (right - left) / (count - 1) if count > 1 else 0.0

    def x_of(index: int) -> float:
        return left + index * step if count > 1 else (left + right) / 2

    known = [m for m in (_minutes(d.get("build_minutes")) for d in days) if m is not None]
    ticks = nice_ticks(0.0, max(known)) if known else [0.0, 1.0]
    low, high = ticks[0], ticks[-1]

    def y_of(value: float) -> float:
        return bottom - (min(max(value, low), high) - low) / (high - low) * (bottom - top)

    index_of: dict[str, int] = {}
    segment: list[str] = []
    for index, day in enumerate(days):
        date = str(day.get("date", ""))
        index_of[date] = index
        minutes = _minutes(day.get("build_minutes"))
        if minutes is None:
            if segment:
                chart.paths.append(" ".join(segment))
                segment = []
            note = day.get("build_note")
            if isinstance(note, str) and note:
                chart.left_out.append((x_of(index), date, note))
            continue
        x, y = x_of(index), y_of(minutes)
        segment.append(f"{'M' if not segment else 'L'}{x:.1f},{y:.1f}")
        chart.points.append(BuildMark(x, y, date, minutes))
    if segment:
        chart.paths.append(" ".join(segment))
    for jump in build.get("jumps") or []:
        if not isinstance(jump, Mapping):
            continue
        date = str(jump.get("date", ""))
        delta = _minutes(jump.get("delta_minutes"))
        if date in index_of and delta is not None:
            chart.jumps.append(BuildJumpMark(x_of(index_of[date]), date, delta))
    chart.y_ticks.extend(Tick(y_of(v), f"{v:g}") for v in ticks)
    return chart

"""Nights with a size, and the day-over-day step between two of them.

A variant's points are a date-sorted sequence with at most one point per night (the
latest run that has the artifact). Every lookup here assumes that order, so a plain list
(tests, markers read back from issues) and a :class:`~wheel_size.series.VariantSeries`
answer alike.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from wheel_size.series.baseline_info import BaselineInfo
from wheel_size.series.thresholds import MB

__all__ = ["SizePoint", "Step", "point_on", "previous_point", "step_on"]


@dataclass(frozen=True)
class SizePoint:
    """One variant's artifact size on one night, with the run it came from."""

    date: dt.date
    variant: str
    size_bytes: int
    run_id: int | None = None
    head_sha: str | None = None
    base_sha: str | None = None
    artifact: str | None = None

    @property
    def size_mb(self) -> float:
        return self.size_bytes / MB


@dataclass(frozen=True)
class Step:
    """A night compared with the previous night that had data (not always yesterday).

    A jump found against a several-night baseline (``--baseline median:N``) is a step from
    the last night before the change to the night it was found on, with ``baseline``
    saying what it was measured against.
    """

    before: SizePoint
    after: SizePoint
    baseline: BaselineInfo | None = None

    @property
    def date(self) -> dt.date:
        return self.after.date

    @property
    def delta_bytes(self) -> int:
        return self.after.size_bytes - self.before.size_bytes


def _index(points: Sequence[SizePoint], date: dt.date) -> int:
    """Position of the first point on or after ``date``."""
    return bisect.bisect_left(points, date, key=lambda p: p.date)


def point_on(points: Sequence[SizePoint], date: dt.date) -> SizePoint | None:
    i = _index(points, date)
    return points[i] if i < len(points) and points[i].date == date else None


def previous_point(points: Sequence[SizePoint], date: dt.date) -> SizePoint | None:
    """The last point before ``date`` (the night a delta is measured against)."""
    i = _index(points, date)
    return points[i - 1] if i > 0 else None


def step_on(points: Sequence[SizePoint], date: dt.date) -> Step | None:
    """``date``'s change against the previous night with data; None without both."""
    i = _index(points, date)
    if i == 0 or i >= len(points) or points[i].date != date:
        return None
    return Step(points[i - 1], points[i])

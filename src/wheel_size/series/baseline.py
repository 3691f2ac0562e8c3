"""Jumps against a baseline of several nights (``median:N``, ``window:N``) as events.

A night *crosses* when its value differs from its baseline by at least the thresholds:

* ``median:N`` — value: the night's size; baseline: the median of the N nights with a
  size before it.
* ``window:N`` — value: the mean of the last N nights with a size (the night included);
  baseline: the mean of the N nights before those.

A night with fewer nights than that (N, or 2N for a window, the night included) within
:data:`BASELINE_DAYS` days before it is not measured: a shorter baseline would let the
noise through again. The day-over-day rule (``previous``) bridges any gap.

Every night of a baseline lies within BASELINE_DAYS days before the night measured,
so every consumer that loads that far back sees the same answer. The noise band shown with
a jump is the lowest and highest size of the baseline nights.

An *event* is a run of consecutive nights that cross the same way; it is reported once, on
its first crossing night (the step's ``after``, what the nightly issue is opened on), so a
level change that keeps crossing until the baseline has caught up is one jump; how far
the run went (its last night, in the data read) travels with it. Its ``before`` night is
where the change started: nights just before the first crossing that had already left
their own noise band the same way (a change spread over two nights, each under the
threshold) belong to the event, so the commit window covers them.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import median
from typing import TypedDict

from wheel_size.series.points import SizePoint, Step
from wheel_size.series.thresholds import BASELINE_DAYS, MB, Baseline, Thresholds

__all__ = ["BaselineDocument", "BaselineInfo", "baseline_event_on", "baseline_events_between"]


class BaselineDocument(TypedDict):
    """A jump's baseline in the report's JSON (``docs/report-format.schema.json``)."""

    spec: str
    nights: int
    size_mb: float
    size_bytes: int
    band_low_mb: float
    band_high_mb: float
    current_mb: float
    delta_mb: float
    delta_bytes: int
    start_date: str
    end_date: str
    end_mb: float
    end_bytes: int


@dataclass(frozen=True)
class BaselineInfo:
    """How a jump measured against a baseline was measured (shown with the jump)."""

    spec: str  # "median:7", "window:5"
    nights: int  # baseline nights (N)
    value_bytes: int  # the median or mean of the baseline nights (rounded to a byte)
    low_bytes: int  # the noise band: lowest and highest baseline night
    high_bytes: int
    current_bytes: int  # the night's size (median) or the mean of the last window
    first_date: dt.date  # the event's first crossing night (the step's ``after``)
    start_date: dt.date  # the first night that moved: the change is from the night before
    end_date: dt.date  # the last night that still crossed the same way (in the data read)
    end_bytes: int  # that night's size: the level the event reached

    @property
    def delta_bytes(self) -> int:
        return self.current_bytes - self.value_bytes

    def to_dict(self) -> BaselineDocument:
        return {
            "spec": self.spec,
            "nights": self.nights,
            "size_mb": round(self.value_bytes / MB, 3),
            "size_bytes": self.value_bytes,
            "band_low_mb": round(self.low_bytes / MB, 3),
            "band_high_mb": round(self.high_bytes / MB, 3),
            "current_mb": round(self.current_bytes / MB, 3),
            "delta_mb": round(self.delta_bytes / MB, 3),
            "delta_bytes": self.delta_bytes,
            "start_date": self.start_date.isoformat(),
            "end_date": self.end_date.isoformat(),
            "end_mb": round(self.end_bytes / MB, 3),
            "end_bytes": self.end_bytes,
        }


@dataclass(frozen=True)
class _Measure:
    value: Fraction  # the night's side
    base: Fraction  # the baseline's side
    band: tuple[int, int]
    nights: int

    @property
    def delta(self) -> Fraction:
        return self.value - self.base


def _index(points: Sequence[SizePoint], date: dt.date) -> int:
    return bisect.bisect_left(points, date, key=lambda p: p.date)


def _before(points: Sequence[SizePoint], i: int, count: int) -> list[SizePoint]:
    """Up to ``count`` points before index ``i``, none more than BASELINE_DAYS before it."""
    limit = points[i].date - dt.timedelta(days=BASELINE_DAYS)
    return [p for p in points[max(0, i - count) : i] if p.date >= limit]


def _mean(points: Sequence[SizePoint]) -> Fraction:
    return Fraction(sum(p.size_bytes for p in points), len(points))


def _measure(points: Sequence[SizePoint], i: int, baseline: Baseline) -> _Measure | None:
    """Night ``i`` against its baseline; None when no night before it is near enough."""
    n = baseline.nights
    if baseline.kind == "median":
        ref = _before(points, i, n)
        if len(ref) < n:
            return None  # too few nights: a shorter baseline would be the noise again
        base = Fraction(median(p.size_bytes for p in ref))
        value = Fraction(points[i].size_bytes)
    else:
        near = [*_before(points, i, 2 * n - 1), points[i]]
        if len(near) < 2 * n:
            return None
        ref, last = near[:n], near[n:]
        base, value = _mean(ref), _mean(last)
    sizes = [p.size_bytes for p in ref]
    return _Measure(value, base, (min(sizes), max(sizes)), len(ref))


def _crossing(points: Sequence[SizePoint], i: int, thresholds: Thresholds) -> int:
    """+1 / -1 when night ``i`` crosses up / down against its baseline, else 0."""
    m = _measure(points, i, thresholds.baseline)
    if m is None or not thresholds.crossed(m.delta, m.base):
        return 0
    return 1 if m.delta > 0 else -1


def _left_band(points: Sequence[SizePoint], i: int, sign: int, nights: int) -> bool:
    """Whether night ``i`` lies outside the band of the ``nights`` nights before it, on the
    ``sign`` side: it moved already, though not by a threshold."""
    ref = _before(points, i, nights)
    if not ref:
        return False
    size = points[i].size_bytes
    return (
        size > max(p.size_bytes for p in ref) if sign > 0 else size < min(p.size_bytes for p in ref)
    )


def _event_at(points: Sequence[SizePoint], i: int, thresholds: Thresholds) -> Step | None:
    baseline = thresholds.baseline
    sign = _crossing(points, i, thresholds)
    if sign == 0 or i == 0:
        return None
    if _crossing(points, i - 1, thresholds) == sign:
        return None  # the same event, already reported on an earlier night
    m = _measure(points, i, baseline)
    assert m is not None
    start = i
    # Lead-in nights: at most N-1 of them, and one night always stays before the event.
    while (
        start - 1 >= 1
        and i - (start - 1) < baseline.nights
        and _left_band(points, start - 1, sign, baseline.nights)
        and (points[start - 1].size_bytes - points[start - 2].size_bytes) * sign > 0
        and points[i].date - points[start - 1].date <= dt.timedelta(days=BASELINE_DAYS)
    ):
        start -= 1
    end = i
    while end + 1 < len(points) and _crossing(points, end + 1, thresholds) == sign:
        end += 1
    info = BaselineInfo(
        spec=baseline.spec,
        nights=m.nights,
        value_bytes=round(m.base),
        low_bytes=m.band[0],
        high_bytes=m.band[1],
        current_bytes=round(m.value),
        first_date=points[i].date,
        start_date=points[start].date,
        end_date=points[end].date,
        end_bytes=points[end].size_bytes,
    )
    return Step(points[start - 1], points[i], baseline=info)


def baseline_event_on(
    points: Sequence[SizePoint], date: dt.date, thresholds: Thresholds
) -> Step | None:
    """The event that starts crossing on ``date`` (None on a night that continues one)."""
    i = _index(points, date)
    if i >= len(points) or points[i].date != date:
        return None
    return _event_at(points, i, thresholds)


def baseline_events_between(
    points: Sequence[SizePoint], start: dt.date, end: dt.date, thresholds: Thresholds
) -> list[Step]:
    """Every event whose first crossing night is from ``start`` to ``end``, oldest first."""
    out = []
    for i in range(_index(points, start), len(points)):
        if points[i].date > end:
            break
        step = _event_at(points, i, thresholds)
        if step is not None:
            out.append(step)
    return out

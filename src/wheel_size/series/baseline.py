"""Jumps against a baseline of several nights (``median:N``, ``window:N``).

A night *crosses* when its value differs from its baseline by at least the thresholds:

* ``median:N`` — value: the night's size; baseline: the median of the N nights with a
  size before it.
* ``window:N`` — value: the mean of the last N nights with a size (the night included);
  baseline: the mean of the N nights before those.

A night with fewer nights than that (N, or 2N for a window, the night included) within
:data:`BASELINE_DAYS` days before it is measured against the nights there are (the median
of the nights there are, for a window too; with one night, day over day; after a gap of
more than BASELINE_DAYS, against the night before it): ``short`` in its :class:`BaselineInfo`, and
one line in the report. Leaving such a night unmeasured would hide a real step.

Every night of a baseline lies within BASELINE_DAYS days before the night measured,
so every consumer that loads that far back sees the same answer. The noise band shown with
a jump is the lowest and highest size of the baseline nights.

An *event* is a run of consecutive nights that cross the same way; it is reported on its
first crossing night, so a level change that keeps crossing until the baseline has caught
up is one jump. A baseline may hide noise the day-over-day rule flags; it never hides a
step:

* a night of a running event that grows again — its size beyond the event's furthest
  night by a threshold — is reported too, as a step from the night before the event
  began, so its commit window covers both nights (``grew_after``);
* a night that goes back against a running event by a threshold, day over day and
  beyond every night of the event, is a step of its own, found that night (a rollback is
  news, as it is day over day);
* ``window:N`` dates a step on the night it happened: when the window crosses, the nights
  of its last N whose own day-over-day change crossed the same way are the step (from the
  night before the first to the last), not the night the mean caught up.

The event's ``before`` night is where the change started: nights just before the first
crossing that had already left their own noise band the same way (a change spread over
two nights, each under the threshold) belong to the event, so the commit window covers
them.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import median
from typing import Protocol

from wheel_size.series.baseline_info import BaselineDocument, BaselineInfo
from wheel_size.series.points import SizePoint, Step
from wheel_size.series.thresholds import BASELINE_DAYS, Baseline

__all__ = [
    "BaselineDocument",
    "BaselineInfo",
    "baseline_event_on",
    "baseline_events_between",
    "short_nights",
]

_SPAN = dt.timedelta(days=BASELINE_DAYS)


class Thresholds(Protocol):
    """What a crossing is measured by: the size's thresholds (bytes) or build time's
    (seconds); :class:`SizePoint.size_bytes` holds the value either way."""

    @property
    def baseline(self) -> Baseline: ...

    @property
    def beyond_band(self) -> bool:
        """Measure from the edge of the baseline's noise band, not from its middle."""
        ...

    def crossed(self, delta: int | Fraction, base: int | Fraction, /) -> bool: ...


@dataclass(frozen=True)
class _Measure:
    value: Fraction  # the night's side
    base: Fraction  # the baseline's side
    band: tuple[int, int]
    nights: int  # negative: too few for the baseline (a short measure, see _measure)

    @property
    def delta(self) -> Fraction:
        return self.value - self.base


def _index(points: Sequence[SizePoint], date: dt.date) -> int:
    return bisect.bisect_left(points, date, key=lambda p: p.date)


def _before(points: Sequence[SizePoint], i: int, count: int) -> list[SizePoint]:
    """Up to ``count`` points before index ``i``, none more than BASELINE_DAYS before it."""
    limit = points[i].date - _SPAN
    return [p for p in points[max(0, i - count) : i] if p.date >= limit]


def _mean(points: Sequence[SizePoint]) -> Fraction:
    return Fraction(sum(p.size_bytes for p in points), len(points))


def _measure(
    points: Sequence[SizePoint], i: int, baseline: Baseline, *, partial: bool = True
) -> _Measure | None:
    """Night ``i`` against its baseline. With too few nights near before it (``partial``):
    the night against the median of the nights there are (``nights`` says how few; 1 is
    day over day); without ``partial``, None. None when no night is near at all."""
    n = baseline.nights
    if baseline.kind == "median":
        ref = _before(points, i, n)
        full = len(ref) == n
    else:
        near = [*_before(points, i, 2 * n - 1), points[i]]
        full = len(near) == 2 * n
        ref = near[:n] if full else _before(points, i, n)
    if not ref or (not full and not partial):
        return None
    if baseline.kind == "window" and full:
        base, value = _mean(ref), _mean(near[n:])
    else:
        base = Fraction(median(p.size_bytes for p in ref))
        value = Fraction(points[i].size_bytes)
    sizes = [p.size_bytes for p in ref]
    return _Measure(value, base, (min(sizes), max(sizes)), len(ref) if full else -len(ref))


def _day_over_day(points: Sequence[SizePoint], i: int, thresholds: Thresholds) -> int:
    """+1 / -1 when night ``i``'s own change against the night before crosses, else 0."""
    if i <= 0:
        return 0
    delta = points[i].size_bytes - points[i - 1].size_bytes
    if not thresholds.crossed(delta, points[i - 1].size_bytes):
        return 0
    return 1 if delta > 0 else -1


def _crossing(points: Sequence[SizePoint], i: int, thresholds: Thresholds) -> int:
    """+1 / -1 when night ``i`` crosses up / down against its baseline, else 0."""
    if i <= 0:
        return 0
    m = _measure(points, i, thresholds.baseline)
    if m is None:  # no night near before it: day over day bridges the gap
        return _day_over_day(points, i, thresholds)
    delta, base = m.delta, m.base
    if thresholds.beyond_band:  # from the band's edge: only what leaves the noise counts
        edge = m.band[1] if delta > 0 else m.band[0]
        delta, base = m.value - edge, Fraction(edge)
        if delta * m.delta <= 0:
            return 0
    if not thresholds.crossed(delta, base):
        return 0
    return 1 if delta > 0 else -1


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


@dataclass(frozen=True)
class _Origin:
    """Where the event whose first crossing night is ``first`` moved: from night
    ``start - 1`` to night ``after`` (indices)."""

    start: int
    after: int
    reported: bool = False  # found on its own night already (a step of its own)


def _origin(points: Sequence[SizePoint], first: int, sign: int, thresholds: Thresholds) -> _Origin:
    """Where the event first crossing on night ``first`` moved (``reported``: on nights
    before it that were found on their own night already)."""
    baseline = thresholds.baseline
    # Steps of the nights the measure reads, back to an earlier event of the same sign:
    # one that was a step of its own, or that earlier event (the measure still sees its
    # change), was reported on its night already.
    steps, reported = [], []
    reach = 2 * baseline.nights - 1 if baseline.kind == "window" else baseline.nights
    for k in range(first, max(0, first - reach), -1):  # the nights the measure reads
        if k < first and _crossing(points, k, thresholds) == sign:
            reported.append(k)
            break
        if _day_over_day(points, k, thresholds) != sign:
            continue
        went_back = k < first and _crossing(points, k - 1, thresholds) == -sign
        if k < first and (went_back or _level_move(points, k, thresholds) == sign):
            reported.append(k)
        else:
            steps.append(k)
    if reported and not steps:
        return _Origin(min(reported), max(reported), reported=True)
    if baseline.kind == "window" and steps:  # the step happened there
        return _Origin(min(steps), max(steps))
    start = first
    # Lead-in nights: at most N-1 of them, and one night always stays before the event.
    while (
        start - 1 >= 1
        and first - (start - 1) < baseline.nights
        and _left_band(points, start - 1, sign, baseline.nights)
        and (points[start - 1].size_bytes - points[start - 2].size_bytes) * sign > 0
        and points[first].date - points[start - 1].date <= _SPAN
    ):
        start -= 1
    return _Origin(max(start, 1), first)


def _event_first(points: Sequence[SizePoint], i: int, sign: int, thresholds: Thresholds) -> int:
    """The first crossing night of the event night ``i`` (crossing ``sign``) belongs to."""
    first = i
    while (
        first - 1 >= 1
        and points[i].date - points[first - 1].date <= _SPAN
        and _crossing(points, first - 1, thresholds) == sign
    ):
        first -= 1
    return first


def _way(nights: Sequence[int], size: int, sign: int, thresholds: Thresholds) -> int:
    """+1 when ``size`` lies beyond every one of ``nights`` by a threshold the ``sign`` way,
    -1 when the other way, else 0 (within their spread: noise)."""
    high, low = max(nights), min(nights)
    for way, edge in ((1, high if sign > 0 else low), (-1, low if sign > 0 else high)):
        delta = size - edge
        if delta * sign * way > 0 and thresholds.crossed(delta, edge):
            return way
    return 0


def _level_move(points: Sequence[SizePoint], i: int, thresholds: Thresholds) -> int:
    """+1 / -1 when night ``i`` is a step of its own: its day-over-day change crosses and
    it lies beyond every night of the level before it (the nights since the last
    day-over-day crossing, at most N) by a threshold. Noise that crosses day over day
    stays within its level's spread; a real step leaves it."""
    way = _day_over_day(points, i, thresholds)
    if way == 0:
        return 0
    level: list[int] = []
    j = i - 1
    while j >= 0 and len(level) < thresholds.baseline.nights:
        if level and points[i].date - points[j].date > _SPAN:
            break
        level.append(points[j].size_bytes)
        if not thresholds.beyond_band and _day_over_day(points, j, thresholds) != 0:
            break  # night j began this level (a band rule reads all N: jitter crosses)
        j -= 1
    return way if _way(level, points[i].size_bytes, way, thresholds) == 1 else 0


def _beyond(points: Sequence[SizePoint], i: int, sign: int, thresholds: Thresholds) -> int:
    """Whether night ``i`` moves a running event (crossing ``sign``) again: +1 further the
    event's way (it grows again), -1 back the other way, 0 within the spread of the
    event's nights since it last moved (its noise)."""
    first = _event_first(points, i - 1, sign, thresholds)
    origin = _origin(points, first, sign, thresholds)
    since = origin.after
    if since >= i:
        return 0
    sizes = [p.size_bytes for p in points]
    for j in range(since + 1, i):  # each move starts a new level
        if _way(sizes[since:j], sizes[j], sign, thresholds) != 0:
            since = j
    return _way(sizes[since:i], sizes[i], sign, thresholds)


def _grows(points: Sequence[SizePoint], i: int, sign: int, thresholds: Thresholds) -> bool:
    """Whether night ``i`` grows the running event (crossing ``sign``) again."""
    return _beyond(points, i, sign, thresholds) == 1


def _end(points: Sequence[SizePoint], i: int, sign: int, thresholds: Thresholds) -> int:
    """The last night from ``i`` that still crosses ``sign`` without growing again."""
    end = i
    while (
        end + 1 < len(points)
        and points[end + 1].date - points[i].date <= _SPAN
        and _crossing(points, end + 1, thresholds) == sign
        and _beyond(points, end + 1, sign, thresholds) == 0
    ):
        end += 1
    return end


def _info(
    points: Sequence[SizePoint],
    i: int,
    start: int,
    end: int,
    thresholds: Thresholds,
    grew_after: dt.date | None = None,
) -> BaselineInfo:
    m = _measure(points, i, thresholds.baseline)
    if m is None:  # no night near before it: measured against the night before
        prev = points[i - 1].size_bytes
        m = _Measure(Fraction(points[i].size_bytes), Fraction(prev), (prev, prev), -1)
    short = m.nights < 0
    return BaselineInfo(
        spec=thresholds.baseline.spec,
        nights=abs(m.nights),
        value_bytes=round(m.base),
        low_bytes=m.band[0],
        high_bytes=m.band[1],
        current_bytes=round(m.value),
        first_date=points[i].date,
        start_date=points[start].date,
        end_date=points[end].date,
        end_bytes=points[end].size_bytes,
        short=short,
        grew_after=grew_after,
    )


def _flicker(points: Sequence[SizePoint], i: int, sign: int, thresholds: Thresholds) -> bool:
    """Whether an event crossing ``sign`` stopped crossing less than N nights before night
    ``i`` (near its edge, noise makes a crossing flicker; a new step is still found when it
    grows the event again or leaves its level)."""
    nights = thresholds.baseline.nights
    return any(
        _crossing(points, j, thresholds) == sign for j in range(i - 2, max(0, i - nights) - 1, -1)
    )


def _event_at(points: Sequence[SizePoint], i: int, thresholds: Thresholds) -> Step | None:
    """The step found on night ``i`` (None when it finds none)."""
    if i <= 0 or i >= len(points):
        return None
    sign = _crossing(points, i, thresholds)
    earlier = _crossing(points, i - 1, thresholds)
    back = _day_over_day(points, i, thresholds)
    if sign != 0 and earlier != sign and _flicker(points, i, sign, thresholds):
        earlier = sign  # the event of a few nights ago crossing again: the same event
    if sign != 0 and earlier != sign:  # a new event (unless found on its night already)
        origin = _origin(points, i, sign, thresholds)
        if not origin.reported:
            end = _end(points, i, sign, thresholds)
            info = _info(points, i, origin.start, end, thresholds)
            return Step(points[origin.start - 1], points[origin.after], baseline=info)
    if back != 0 and earlier == -back and _beyond(points, i, earlier, thresholds) == -1:
        # goes back against a running event, beyond its nights' spread
        return Step(points[i - 1], points[i], baseline=_info(points, i, i, i, thresholds))
    if sign != 0 and earlier == sign:  # a running event: reported when it grows again
        first = _event_first(points, i - 1, sign, thresholds)
        origin = _origin(points, first, sign, thresholds)
        if _grows(points, i, sign, thresholds):
            end = _end(points, i, sign, thresholds)
            info = _info(points, i, i, end, thresholds, grew_after=points[first].date)
            return Step(points[origin.start - 1], points[i], baseline=info)
    if _level_move(points, i, thresholds) != 0:  # a step the baseline would smooth away
        return Step(points[i - 1], points[i], baseline=_info(points, i, i, i, thresholds))
    return None


def baseline_event_on(
    points: Sequence[SizePoint], date: dt.date, thresholds: Thresholds
) -> Step | None:
    """The step found on night ``date`` (a new event, an event growing again, a night going
    back against one); None on a night that only continues one. With ``window:N`` the
    step may be dated earlier than ``date``: on the night it happened."""
    i = _index(points, date)
    if i >= len(points) or points[i].date != date:
        return None
    return _event_at(points, i, thresholds)


def baseline_events_between(
    points: Sequence[SizePoint], start: dt.date, end: dt.date, thresholds: Thresholds
) -> list[Step]:
    """Every step found on a night from ``start`` to ``end``, in the order found."""
    out = []
    for i in range(_index(points, start), len(points)):
        if points[i].date > end:
            break
        step = _event_at(points, i, thresholds)
        if step is not None:
            out.append(step)
    return out


def short_nights(
    points: Sequence[SizePoint], start: dt.date, end: dt.date, baseline: Baseline
) -> list[dt.date]:
    """The nights from ``start`` to ``end`` with too few nights before them for
    ``baseline``: those were measured day over day (the report says so in one line)."""
    if baseline.is_previous:
        return []
    out = []
    for i in range(_index(points, start), len(points)):
        if points[i].date > end:
            break
        if i > 0 and _measure(points, i, baseline, partial=False) is None:
            out.append(points[i].date)
    return out

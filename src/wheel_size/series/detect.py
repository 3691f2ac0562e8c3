"""Jumps and creep, found the same way for every consumer.

A jump is a night whose change against the previous night with data crosses the
:class:`Thresholds`. Creep is growth of at least :class:`CreepSettings` over a window
that no single night crossed: the stair-step a per-night threshold never sees.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from wheel_size.series.baseline import baseline_event_on, baseline_events_between
from wheel_size.series.points import SizePoint, Step, step_on
from wheel_size.series.thresholds import CreepSettings, Thresholds

__all__ = [
    "PREVIOUS_NIGHT_DAYS",
    "creep_on",
    "is_jump",
    "jump_on",
    "jumps_between",
    "lookback_days",
]

# How far before the first night of interest a consumer loads history, so that the first
# night has a previous night with data to be compared with (a month of gaps is bridged).
PREVIOUS_NIGHT_DAYS = 31


def lookback_days(creep: CreepSettings | None, thresholds: Thresholds | None = None) -> int:
    """Days of history before a night that its jump and creep detection read."""
    extra = thresholds.baseline.lookback_days if thresholds is not None else 0
    return max(45, (creep.days if creep is not None else 0) + PREVIOUS_NIGHT_DAYS) + extra


def is_jump(step: Step, thresholds: Thresholds, *, include_drops: bool = True) -> bool:
    """The day-over-day crossing rule applied to one step; drops count unless
    ``include_drops`` is off. (Creep windows are cut at these, whatever the baseline.)"""
    if step.delta_bytes < 0 and not include_drops:
        return False
    return thresholds.crossed(step.delta_bytes, step.before.size_bytes)


def jump_on(
    points: Sequence[SizePoint],
    date: dt.date,
    thresholds: Thresholds,
    *,
    include_drops: bool = True,
) -> Step | None:
    """``date``'s step if it is a jump (with a several-night baseline: the step found on
    ``date`` — a new event, one growing again, a night going back — see
    :mod:`wheel_size.series.baseline`; ``window:N`` dates it on the night it happened)."""
    if not thresholds.baseline.is_previous:
        event = baseline_event_on(points, date, thresholds)
        if event is None or (event.delta_bytes < 0 and not include_drops):
            return None
        return event if event.delta_bytes != 0 else None
    step = step_on(points, date)
    if step is None or not is_jump(step, thresholds, include_drops=include_drops):
        return None
    return step


def jumps_between(
    points: Sequence[SizePoint],
    start: dt.date,
    end: dt.date,
    thresholds: Thresholds,
    *,
    include_drops: bool = True,
) -> list[Step]:
    """Every jump on a night from ``start`` to ``end`` (inclusive), oldest first.

    The first one may be measured against a night before ``start``.
    """
    if not thresholds.baseline.is_previous:
        return [
            e
            for e in baseline_events_between(points, start, end, thresholds)
            if e.delta_bytes != 0 and (include_drops or e.delta_bytes > 0)
        ]
    out = []
    for index in range(1, len(points)):
        after = points[index]
        if start <= after.date <= end:
            step = Step(points[index - 1], after)
            if is_jump(step, thresholds, include_drops=include_drops):
                out.append(step)
    return out


def creep_on(
    points: Sequence[SizePoint],
    date: dt.date,
    thresholds: Thresholds,
    creep: CreepSettings,
) -> Step | None:
    """Growth of at least ``creep.mb`` over the last ``creep.days`` days, none of it a jump.

    The window starts at the first night on or after ``date - days`` (or at the last jump
    in it: a jump is its own event); the growth is measured from the lowest size in the
    window to ``date``, so a dip does not hide it. The step returned runs from that low
    night to ``date``.
    """
    start_day = date - dt.timedelta(days=creep.days)
    window = [p for p in points if start_day <= p.date <= date]
    if len(window) < 2 or window[-1].date != date:
        return None
    for index in range(len(window) - 1, 0, -1):
        if is_jump(Step(window[index - 1], window[index]), thresholds):
            window = window[index:]
            break
    if len(window) < 2:
        return None
    low_index = min(range(len(window) - 1), key=lambda i: (window[i].size_bytes, -i))
    step = Step(window[low_index], window[-1])
    return step if creep.reached(step.delta_bytes) else None

"""What counts as a regression event: a jump over the threshold, or slow creep.

A jump is a day-over-day change that crosses the threshold (absolute MB, percent, or
both). Creep is growth over a window (e.g. +5 MB in 14 days) that no single day crossed:
the stair-step pattern a per-day threshold never sees. Both are found by
:mod:`wheel_size.series`; an :class:`Event` is how the issues name and mark one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from wheel_size.series import (
    MB,
    CreepSettings,
    SizePoint,
    Thresholds,
    creep_on,
    jump_on,
)

__all__ = [
    "CreepSettings",
    "Event",
    "Thresholds",
    "detect_creep",
    "detect_jump",
]


@dataclass(frozen=True)
class Event:
    """A regression event of one variant; ``key`` names it in markers and JSON."""

    kind: Literal["jump", "creep"]
    variant: str
    date: dt.date  # the night the event was seen (jump night, or creep end)
    before: SizePoint  # the night before the jump / the start of the creep window
    after: SizePoint

    @property
    def delta_mb(self) -> float:
        return (self.after.size_bytes - self.before.size_bytes) / MB

    @property
    def key(self) -> str:
        if self.kind == "jump":
            return f"jump/{self.variant}/{self.date.isoformat()}"
        return f"creep/{self.variant}/{self.before.date.isoformat()}"

    @property
    def pct(self) -> float | None:
        if self.before.size_bytes <= 0:
            return None
        return (self.after.size_bytes - self.before.size_bytes) / self.before.size_bytes * 100


def detect_jump(
    points: Sequence[SizePoint],
    date: dt.date,
    thresholds: Thresholds,
    *,
    include_drops: bool = False,
) -> Event | None:
    """The jump on ``date`` if its day-over-day change crosses ``thresholds``.

    The rule is the series' (:func:`wheel_size.series.jump_on`), the same one the report
    lists its jumps by; only drops are left out unless ``include_drops``.
    """
    step = jump_on(points, date, thresholds, include_drops=include_drops)
    if step is None:
        return None
    # Dated on the night the step happened (``window:N`` finds it a few nights later).
    return Event("jump", step.after.variant, step.date, step.before, step.after)


def detect_creep(
    points: Sequence[SizePoint],
    date: dt.date,
    thresholds: Thresholds,
    creep: CreepSettings,
) -> Event | None:
    """Growth of at least ``creep.mb`` over the last ``creep.days`` days, none of it a jump
    (see :func:`wheel_size.series.creep_on`); ``before`` is the window's lowest night."""
    step = creep_on(points, date, thresholds, creep)
    if step is None:
        return None
    return Event("creep", step.after.variant, date, step.before, step.after)

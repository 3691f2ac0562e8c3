"""What counts as a regression event: a jump over the threshold, or slow creep.

A jump is a day-over-day change that crosses the threshold (absolute MB, percent, or
both). Creep is growth over a window (e.g. +5 MB in 14 days) that no single day crossed:
the stair-step pattern a per-day threshold never sees.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from wheel_size.errors import InputError
from wheel_size.regressions.series import MB, SizePoint
from wheel_size.report.model import Thresholds

__all__ = [
    "CreepSettings",
    "Event",
    "Thresholds",
    "detect_creep",
    "detect_jump",
    "rollback_state",
]


@dataclass(frozen=True)
class CreepSettings:
    mb: float = 5.0
    days: int = 14

    def __post_init__(self) -> None:
        if self.mb <= 0 or self.days < 2:
            raise InputError(
                f"creep: need a positive MB amount and a window of 2 days or more "
                f"(got {self.mb:g} MB over {self.days} days)"
            )


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
    """The jump on ``date`` if its day-over-day change crosses ``thresholds``."""
    after = next((p for p in points if p.date == date), None)
    earlier = [p for p in points if p.date < date]
    if after is None or not earlier:
        return None
    before = earlier[-1]
    delta = (after.size_bytes - before.size_bytes) / MB
    if delta == 0 or (delta < 0 and not include_drops):
        return None
    if not thresholds.crossed(after.size_bytes - before.size_bytes, before.size_bytes):
        return None
    return Event("jump", after.variant, date, before, after)


def detect_creep(
    points: Sequence[SizePoint],
    date: dt.date,
    thresholds: Thresholds,
    creep: CreepSettings,
) -> Event | None:
    """Growth of at least ``creep.mb`` over the last ``creep.days`` days, none of it a jump.

    The window starts at the first night on or after ``date - days`` (or after the last
    jump in it); the growth is measured from the lowest size in the window to ``date``,
    so a dip does not hide it.
    """
    end = next((p for p in points if p.date == date), None)
    if end is None:
        return None
    start_day = date - dt.timedelta(days=creep.days)
    window = [p for p in points if start_day <= p.date <= date]
    if len(window) < 2:
        return None
    # A jump inside the window is its own event: creep is measured after the last one.
    for index in range(len(window) - 1, 0, -1):
        a, b = window[index - 1], window[index]
        if thresholds.crossed(b.size_bytes - a.size_bytes, a.size_bytes):
            window = window[index:]
            break
    if len(window) < 2:
        return None
    low_index = min(range(len(window) - 1), key=lambda i: (window[i].size_bytes, -i))
    low = window[low_index]
    growth = (end.size_bytes - low.size_bytes) / MB
    if growth < creep.mb:
        return None
    return Event("creep", end.variant, date, low, end)


def rollback_state(
    event: Event, current: SizePoint, *, fraction: float = 0.75
) -> Literal["rolled-back", "grew", "same"]:
    """Compare a later night with an event.

    ``rolled-back``: at least ``fraction`` of the growth is gone again. ``grew``: the size
    is higher than the event's "after" size by at least the event's own growth (the caller
    applies its threshold on top). Otherwise ``same``.
    """
    growth = event.after.size_bytes - event.before.size_bytes
    if growth <= 0:
        return "same"
    undone = event.after.size_bytes - current.size_bytes
    if undone >= fraction * growth:
        return "rolled-back"
    return "grew" if current.size_bytes > event.after.size_bytes else "same"

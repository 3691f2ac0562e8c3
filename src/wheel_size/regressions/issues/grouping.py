"""One alert per night event: the watched variants that crossed on the same night together.

The Oct 11 -O3 change moved four variants; four issues with the same table is noise. The
jumps of one night in one direction form a :class:`NightGroup` with one issue (its title
lists them; its body has one table of their deltas and one candidate list). Creep spans
its own window per variant and stays alone. A variant that crosses later the same night
(a later run) joins the group's issue instead of opening another. Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wheel_size.regressions.events import Event
from wheel_size.render import render

__all__ = ["NightGroup", "group_events", "group_title", "joins"]


def _direction(event: Event) -> int:
    return 1 if event.after.size_bytes >= event.before.size_bytes else -1


@dataclass(frozen=True)
class NightGroup:
    """Events of one night and direction; the largest change first (it leads the issue)."""

    events: tuple[Event, ...]

    @property
    def primary(self) -> Event:
        return self.events[0]

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(e.variant for e in self.events)


def group_events(events: Sequence[Event]) -> list[NightGroup]:
    """Jumps of the same night and direction share a group; each creep is its own."""
    groups: dict[tuple[str, int], list[Event]] = {}
    alone: list[NightGroup] = []
    for event in events:
        if event.kind != "jump":
            alone.append(NightGroup((event,)))
            continue
        groups.setdefault((event.date.isoformat(), _direction(event)), []).append(event)
    out = [
        NightGroup(tuple(sorted(members, key=lambda e: (-abs(e.delta_mb), e.variant))))
        for members in groups.values()
    ]
    return out + alone


def group_title(group: NightGroup) -> str:
    """Variants, deltas and the night, e.g. ``Wheel size: cuda12_8 +4.3 MB, cpu +1.4 MB on
    2025-10-11`` (``regression_title.txt.j2``); a single event keeps its own title. Plain
    text, controls removed."""
    creep = len(group.events) == 1 and group.primary.kind == "creep"
    return render("regression_title.txt.j2", events=group.events, creep=creep)


def joins(existing: Sequence[Event], event: Event) -> bool:
    """Does ``event`` belong to the issue of ``existing`` (same night, same direction, a
    jump, a variant it does not have yet)?"""
    if event.kind != "jump" or not existing:
        return False
    return all(
        e.kind == "jump"
        and e.date == event.date
        and _direction(e) == _direction(event)
        and e.variant != event.variant
        for e in existing
    )

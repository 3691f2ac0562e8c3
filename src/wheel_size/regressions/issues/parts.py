"""The files and sections an event moved, and whether a later night moved them back.

A size that is not back at the pre-event level can still carry the issue's own change
moving back: the other changes of the night mask it (a revert lands the same night as an
unrelated growth). The wheel content diff of the event says which files and ELF sections
moved (``torch/lib/libtorch_cuda.so`` +4.2 MB, its ``.nv_fatbin`` +4.1 MB); they are kept in
a marker line of the issue body, and a later night whose own diff moves the same parts the
other way by a comparable amount (half to one and a half times each, together at least half
of what the event moved) is news on the issue: "the same files moved back".

Edge-triggered and with hysteresis, like the return (:mod:`.lifecycle`): only a night whose
step goes against the event by at least half its change is looked at (one diff of two
wheels), and after a move back is told, another is told only once the size moved forward
again by half the change in between: a size wobbling does not flap. Pure functions.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence

from wheel_size.markers import PREFIX as MARKER_PREFIX
from wheel_size.markers import regression_marker
from wheel_size.regressions.events import Event
from wheel_size.render import render
from wheel_size.series import SizePoint

__all__ = [
    "Parts",
    "back_step",
    "moved_back",
    "moved_parts",
    "parts_from_body",
    "parts_marker",
    "rearmed",
]

# path (or path#section) -> signed bytes moved
Parts = dict[str, int]

#: A part must carry this share of what the diff moved, and at least this many bytes.
MIN_SHARE = 0.1
MIN_BYTES = 256 * 1024
MAX_PARTS = 6
#: Each part moving back by this much of its event change counts; together at least
#: ``COVER`` of what the event's parts moved.
RATIO = (0.5, 1.5)
COVER = 0.5
#: A night's step against the event of at least this share of its change is looked at.
STEP = 0.5

# Only our own ASCII goes into a marker: a path with anything else is left out.
_SAFE = re.compile(r"[A-Za-z0-9._+/@-]{1,200}(?:#[A-Za-z0-9._$-]{1,64})?")
_PARTS_MARKER = re.compile(re.escape(MARKER_PREFIX) + r"parts=(?P<key>\S+) (?P<items>\S*) -->")


def _items(value: object) -> list[Mapping[str, object]]:
    """The objects of a JSON list (anything else in it, or no list: left out)."""
    if not isinstance(value, (list, tuple)):
        return []
    return [item for item in value if isinstance(item, Mapping)]


def _comparisons(diff: Mapping[str, object]) -> list[Mapping[str, object]]:
    if "comparisons" in diff:
        return _items(diff.get("comparisons"))
    return [diff] if "files" in diff else []


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _all_parts(diff: Mapping[str, object] | None) -> Parts:
    """Every file (installed bytes) and ELF section of a wheel diff's JSON, as parts (the
    JSON came from a worker: read field by field, anything unexpected left out)."""
    parts: Parts = {}
    for comparison in _comparisons(diff or {}):
        for item in _items(comparison.get("files")):
            path = item.get("path")
            if not isinstance(path, str):
                continue
            delta = _int(item.get("new_installed")) - _int(item.get("old_installed"))
            if delta:
                parts[path] = parts.get(path, 0) + delta
            for section in _items(item.get("sections")):
                name = section.get("name")
                if not isinstance(name, str):
                    continue
                moved = _int(section.get("new_size")) - _int(section.get("old_size"))
                if moved:
                    key = f"{path}#{name}"
                    parts[key] = parts.get(key, 0) + moved
    return parts


def moved_parts(diff: Mapping[str, object] | None) -> Parts:
    """The parts that carried the change: each at least a tenth of what moved and 256 KiB,
    the largest first, at most six; only names a marker can hold."""
    every = {k: v for k, v in _all_parts(diff).items() if _SAFE.fullmatch(k)}
    files = sum(abs(v) for k, v in every.items() if "#" not in k)
    floor = max(MIN_BYTES, MIN_SHARE * files)
    big = sorted((k for k, v in every.items() if abs(v) >= floor), key=lambda k: -abs(every[k]))
    return {k: every[k] for k in big[:MAX_PARTS]}


def parts_marker(key: str, parts: Mapping[str, int]) -> str | None:
    """The marker line of the event ``key``'s parts (None: no parts to keep)."""
    items = [f"{k}={v:+d}" for k, v in parts.items() if _SAFE.fullmatch(k)]
    return regression_marker(f"parts={key} {','.join(items)}") if items else None


def parts_from_body(lines: Sequence[str]) -> dict[str, Parts]:
    """Event key → parts, from an issue's marker lines."""
    out: dict[str, Parts] = {}
    for line in lines:
        m = _PARTS_MARKER.fullmatch(line)
        if m is None:
            continue
        parts: Parts = {}
        for item in m["items"].split(","):
            name, _, value = item.rpartition("=")
            if _SAFE.fullmatch(name) and re.fullmatch(r"[+-]\d{1,15}", value):
                parts[name] = int(value)
        if parts:
            out[m["key"]] = parts
    return out


def back_step(event: Event, previous: SizePoint | None, point: SizePoint) -> bool:
    """Tonight's step goes against the event by at least half its change."""
    change = event.after.size_bytes - event.before.size_bytes
    if previous is None or not change:
        return False
    step = point.size_bytes - previous.size_bytes
    return step * change < 0 and abs(step) >= STEP * abs(change)


def rearmed(
    event: Event, points: Sequence[SizePoint], told: dt.date | None, point: SizePoint
) -> bool:
    """Hysteresis: no move back was told yet, or since the last one (night ``told``) the
    size moved forward again by half the event's change before tonight."""
    if told is None:
        return True
    change = event.after.size_bytes - event.before.size_bytes
    direction = 1 if change > 0 else -1
    after = sorted((p for p in points if told <= p.date < point.date), key=lambda p: p.date)
    if not after:
        return False
    low = after[0].size_bytes * direction
    for p in after[1:]:
        if p.size_bytes * direction - low >= STEP * abs(change):
            return True
        low = min(low, p.size_bytes * direction)
    return False


def moved_back(event_parts: Mapping[str, int], tonight: Mapping[str, object] | None) -> str | None:
    """Did tonight's wheel diff (its JSON) move the event's parts back? A sentence naming
    them, or None."""
    now = _all_parts(tonight)
    matched = []
    for name, moved in event_parts.items():
        back = now.get(name, 0)
        if back * moved < 0 and RATIO[0] <= abs(back) / abs(moved) <= RATIO[1]:
            matched.append(name)
    total = sum(abs(v) for v in event_parts.values())
    if not matched or sum(abs(event_parts[n]) for n in matched) < COVER * total:
        return None
    shown = [(name, now[name], event_parts[name]) for name in matched[:3]]
    return render("moved_back.txt.j2", moved=shown, more=max(0, len(matched) - 3)).strip()

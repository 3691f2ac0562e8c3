"""Pair the wheels of the OLD and NEW sides by name, with the version left out.

Resolving a path into wheels (an artifact zip, a folder) is the wheel floor's job
(:mod:`wheel_size.wheel.inputs`); it is re-exported here for existing callers.
"""

from __future__ import annotations

from wheel_size.errors import WheelSizeError
from wheel_size.wheel.filename import parse_wheel_name
from wheel_size.wheel.inputs import WheelInput, resolve_input

__all__ = ["WheelInput", "pair_wheels", "resolve_input"]


def _key(name: str, level: int) -> tuple[object, ...]:
    try:
        parsed = parse_wheel_name(name)
    except WheelSizeError:
        return ("?", name)
    if level == 0:
        tags = ".".join(sorted(str(t) for t in parsed.tags))
        return (parsed.distribution, parsed.local_label, tags, parsed.variant_label)
    return (
        parsed.distribution,
        parsed.local_label,
        tuple(parsed.platform_tags),
        parsed.variant_label,
    )


def pair_wheels(
    old: list[WheelInput], new: list[WheelInput]
) -> tuple[list[tuple[WheelInput, WheelInput]], list[WheelInput], list[WheelInput]]:
    """Pair wheels by name with the version left out (nightlies differ only there).

    Exact tags first, then same platform; a single leftover on each side is paired anyway.
    Returns the pairs and the unpaired wheels of each side.
    """
    pairs: list[tuple[WheelInput, WheelInput]] = []
    left_old, left_new = list(old), list(new)
    for level in (0, 1):
        by_key: dict[tuple[object, ...], list[WheelInput]] = {}
        for item in left_new:
            by_key.setdefault(_key(item.filename, level), []).append(item)
        still_old = []
        for item in left_old:
            bucket = by_key.get(_key(item.filename, level))
            if bucket:
                match = bucket.pop(0)
                pairs.append((item, match))
                left_new.remove(match)
            else:
                still_old.append(item)
        left_old = still_old
    if len(left_old) == 1 and len(left_new) == 1:
        pairs.append((left_old.pop(), left_new.pop()))
    return pairs, left_old, left_new

"""Pair a grafted library with itself across two wheels when only its name's hash changed.

``auditwheel repair`` copies each external library into ``<pkg>.libs/`` under a name that
carries the first 8 hex digits of its sha256 (``libz-f537e57c.so.1``, or
``libz.f537e57c.so.1``), delvewheel likewise on Windows (32 digits, ``.dll``). A rebuilt
wheel therefore renames every grafted library whose bytes moved at all: torchvision 0.22.0 ->
0.22.1 showed five libraries "added" and five "removed" at the same sizes. Such a pair is one
library that changed, compared section by section like any other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["grafted_key", "pair_renamed"]

_HASHED = re.compile(
    r"^(?P<dir>(?:.*/)?)(?P<stem>[^/]+?)[-.](?:[0-9a-f]{8}|[0-9a-f]{32})"
    r"(?P<ext>\.so(?:\.[0-9]+)*|\.dll|\.dylib)$"
)


def grafted_key(path: str) -> str | None:
    """``path`` with the repair tool's hash taken out of the file name; None when the name
    carries no such hash."""
    match = _HASHED.match(path)
    if match is None:
        return None
    return f"{match['dir']}{match['stem']}{match['ext']}"


def pair_renamed(removed: Iterable[str], added: Iterable[str]) -> dict[str, str]:
    """old path -> new path for the members present on one side only whose names differ
    only in the hash; a name that several members share on one side pairs nothing (which
    of them became which would be a guess)."""
    olds: dict[str, list[str]] = {}
    news: dict[str, list[str]] = {}
    for paths, into in ((removed, olds), (added, news)):
        for path in paths:
            key = grafted_key(path)
            if key is not None:
                into.setdefault(key, []).append(path)
    return {
        olds[key][0]: news[key][0]
        for key in olds.keys() & news.keys()
        if len(olds[key]) == 1 and len(news[key]) == 1
    }

"""``wheel-size deps``: the full resolved download of installing wheels, per platform, and the
pin changes between two resolved sets."""

from __future__ import annotations

import platform as _platform
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from wheel_size.deps.resolve import Resolved, ResolveOptions, resolve
from wheel_size.deps.sizes import SizeCache, file_size
from wheel_size.errors import WheelSizeError

__all__ = [
    "DepsDocument",
    "PinChange",
    "ResolvedSet",
    "markers_evaluated_elsewhere",
    "pin_changes",
    "resolved_set",
]

_SYSTEMS = (
    (("manylinux", "musllinux", "linux"), "Linux"),
    (("win",), "Windows"),
    (("macosx",), "Darwin"),
)


def markers_evaluated_elsewhere(platform_tag: str, host: str | None = None) -> str | None:
    """The system pip evaluated environment markers for (this machine's, as pip does) when
    it is not the one ``platform_tag`` names, else None: a dependency limited to one system
    (``; platform_system == "Linux"``) is then counted, or left out, as on this machine."""
    host = host or _platform.system()
    tag = platform_tag.lower()
    named = next((name for prefixes, name in _SYSTEMS if tag.startswith(prefixes)), None)
    return host if named is not None and named != host else None


class FileDocument(TypedDict):
    name: str
    version: str
    filename: str
    bytes: int
    requested: bool


class DepsDocument(TypedDict):
    platform: str
    total_bytes: int | None
    files: list[FileDocument]
    error: str | None


@dataclass(frozen=True)
class ResolvedSet:
    """The files of one resolution with their sizes, or why there is none."""

    platform: str
    files: tuple[tuple[str, str, str, int, bool], ...]  # name, version, filename, bytes, requested
    error: str | None = None

    @property
    def total_bytes(self) -> int | None:
        return None if self.error else sum(f[3] for f in self.files)

    def versions(self) -> dict[str, str]:
        return {name: version for name, version, *_ in self.files}

    def to_json(self) -> DepsDocument:
        return {
            "platform": self.platform,
            "total_bytes": self.total_bytes,
            "files": [
                {"name": n, "version": v, "filename": f, "bytes": b, "requested": r}
                for n, v, f, b, r in self.files
            ],
            "error": self.error,
        }


def resolved_set(wheels: Sequence[Path], options: ResolveOptions, cache: SizeCache) -> ResolvedSet:
    """The set for one platform; a platform that does not resolve is a set with ``error``
    (one line), not an exception: the other platforms are still reported."""
    platform = ",".join(options.platforms) or "host"
    try:
        found: Resolved = resolve(wheels, options)
        files = tuple(
            (f.name, f.version, f.filename, file_size(f, cache), f.requested) for f in found.files
        )
    except WheelSizeError as exc:
        return ResolvedSet(platform, (), str(exc))
    return ResolvedSet(platform, files)


@dataclass(frozen=True)
class PinChange:
    """A dependency whose resolved version moved (or that came or went) between two sets."""

    name: str
    old_version: str | None
    new_version: str | None
    delta_bytes: int


def pin_changes(before: ResolvedSet, after: ResolvedSet) -> list[PinChange]:
    """The dependencies (not the wheels given) that moved, largest change first: a jump of
    the whole download with no change of the wheel itself is one of these."""
    old = {n: (v, b) for n, v, _, b, r in before.files if not r}
    new = {n: (v, b) for n, v, _, b, r in after.files if not r}
    changes = []
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        if a is not None and b is not None and a[0] == b[0]:
            continue
        changes.append(
            PinChange(
                name,
                a[0] if a else None,
                b[0] if b else None,
                (b[1] if b else 0) - (a[1] if a else 0),
            )
        )
    return sorted(changes, key=lambda c: (-abs(c.delta_bytes), c.name))

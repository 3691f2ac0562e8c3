"""What ``pip install host[extra]`` downloads from the split's output files.

The savings report must give the bytes a user really downloads, not a sum the split
believes in: with ``--host-installs all`` the host requires every device wheel without a
marker, so ``pip install jax-rocm7-plugin[gfx900]`` pulls all of them (5,212,792 B against
the fat wheel's 4,522,925 B, while host + gfx900 alone read as "3 % saved").  So the
requirements are read back from the METADATA of the written wheels and followed the way pip
follows them: a ``Requires-Dist`` applies when its marker holds for the extras asked for
(``extra == "gfx900"``; no marker: always), each distribution is downloaded once, and a
requirement on a distribution the outputs do not hold (``rocm-bootstrap``, the host pin of
a device wheel) adds nothing here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from pathlib import Path

from packaging.markers import InvalidMarker, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from wheel_size.wheel.archive import open_source

__all__ = ["Resolved", "Resolver"]


@dataclass(frozen=True)
class Resolved:
    """The wheels one install downloads (distribution names, host first) and their bytes."""

    dists: tuple[str, ...]
    size: int


@dataclass(frozen=True)
class _Wheel:
    dist: str
    size: int
    requires: tuple[Requirement, ...]


def _metadata(path: Path) -> tuple[str, tuple[Requirement, ...], bytes]:
    with open_source(path) as source:
        name = f"{source.dist_info()}/METADATA"
        raw = source.read(name)
    headers = BytesHeaderParser().parsebytes(raw)
    requires = []
    for line in headers.get_all("Requires-Dist") or []:
        try:
            requires.append(Requirement(str(line)))
        except InvalidRequirement:
            continue  # the input's own lines; not ours to judge here
    return canonicalize_name(str(headers.get("Name", ""))), tuple(requires), raw


def _applies(requirement: Requirement, extras: frozenset[str]) -> bool:
    marker = requirement.marker
    if marker is None:
        return True
    # pip evaluates a marker once per requested extra (and with "" when none is asked for)
    for extra in extras or frozenset({""}):
        try:
            if marker.evaluate({"extra": extra}):
                return True
        except (InvalidMarker, UndefinedEnvironmentName):
            return False
    return False


class Resolver:
    """The output wheels (host first), read once; :meth:`resolve` per install.
    ``host_metadata`` is the host's METADATA as read (the report shows its lines)."""

    def __init__(self, host: Path, others: Iterable[Path]) -> None:
        self._wheels: dict[str, _Wheel] = {}
        self.host = ""
        self.host_metadata = b""
        for index, path in enumerate([host, *others]):
            dist, requires, raw = _metadata(path)
            self._wheels[dist] = _Wheel(dist, path.stat().st_size, requires)
            if index == 0:
                self.host, self.host_metadata = dist, raw

    def resolve(self, extras: Iterable[str] = ()) -> Resolved:
        """What ``pip install host[extras]`` downloads among the outputs."""
        wanted = frozenset(extras)
        seen = [self.host]
        queue = [(self.host, wanted)]
        while queue:
            dist, asked = queue.pop(0)
            for requirement in self._wheels[dist].requires:
                name = canonicalize_name(requirement.name)
                if name in seen or name not in self._wheels or not _applies(requirement, asked):
                    continue
                seen.append(name)
                queue.append((name, frozenset(requirement.extras)))
        return Resolved(tuple(seen), sum(self._wheels[d].size for d in seen))

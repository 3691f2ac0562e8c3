"""The project quota: what a project already holds on PyPI, what a release set adds, and
the headroom left under the project's limit.

PyPI counts every file of every release against one per-project limit (10 GiB unless PyPI
raised it); uploads fail once it is full. The total is the sum of the ``size`` of every file
of every release in the index's JSON API (``/pypi/<project>/json``, ``releases``; or its
simple API as JSON, PEP 691/700, where ``releases`` is gone); a file of the set whose name the
index already holds is not added twice (PyPI would refuse it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from wheel_size.errors import InputError

__all__ = [
    "DEFAULT_PROJECT_LIMIT_GB",
    "GIB",
    "ProjectFiles",
    "Quota",
    "QuotaDocument",
    "QuotaOptions",
    "project_files",
    "quota_of",
    "simple_files",
]

GIB = 1 << 30
DEFAULT_PROJECT_LIMIT_GB = 10.0  # PyPI's default per-project limit, 10 GiB


@dataclass(frozen=True)
class QuotaOptions:
    """``project`` on the index at ``index_url`` (its JSON API), against ``limit_gb`` GiB;
    ``timeout`` seconds for the one request."""

    project: str
    index_url: str = "https://pypi.org"
    limit_gb: float = DEFAULT_PROJECT_LIMIT_GB
    timeout: float = 30.0

    def __post_init__(self) -> None:
        if not self.limit_gb > 0:
            raise InputError(
                f"the project limit must be a positive number of GB, not {self.limit_gb:g}"
            )

    @property
    def limit_bytes(self) -> int:
        return round(self.limit_gb * GIB)


@dataclass(frozen=True)
class ProjectFiles:
    """Every file of every release: name -> size."""

    sizes: Mapping[str, int]
    releases: int


class QuotaDocument(TypedDict):
    project: str
    index_url: str
    stored_bytes: int
    stored_files: int
    releases: int
    new_bytes: int
    new_files: int
    already_uploaded: list[str]
    limit_bytes: int
    headroom_bytes: int


@dataclass(frozen=True)
class Quota:
    project: str
    index_url: str
    stored: ProjectFiles
    new_bytes: int
    new_files: int
    already_uploaded: tuple[str, ...]
    limit_bytes: int

    @property
    def stored_bytes(self) -> int:
        return sum(self.stored.sizes.values())

    @property
    def headroom_bytes(self) -> int:
        """What is left after the set is uploaded (negative: the upload would fail)."""
        return self.limit_bytes - self.stored_bytes - self.new_bytes

    def to_json(self) -> QuotaDocument:
        return {
            "project": self.project,
            "index_url": self.index_url,
            "stored_bytes": self.stored_bytes,
            "stored_files": len(self.stored.sizes),
            "releases": self.stored.releases,
            "new_bytes": self.new_bytes,
            "new_files": self.new_files,
            "already_uploaded": list(self.already_uploaded),
            "limit_bytes": self.limit_bytes,
            "headroom_bytes": self.headroom_bytes,
        }


def project_files(data: Any, where: str) -> ProjectFiles:
    """The files of the JSON API's answer, checked field by field (an index may send
    anything); raises :class:`InputError` naming ``where``."""
    releases = data.get("releases") if isinstance(data, Mapping) else None
    if not isinstance(releases, Mapping):
        raise InputError(f"{where}: not a project's JSON (no 'releases' object)")
    sizes: dict[str, int] = {}
    for version, files in releases.items():
        if not isinstance(files, list):
            raise InputError(f"{where}: release {str(version)[:40]!r} is not a list of files")
        for f in files:
            name = f.get("filename") if isinstance(f, Mapping) else None
            size = f.get("size") if isinstance(f, Mapping) else None
            if not isinstance(name, str) or isinstance(size, bool) or not isinstance(size, int):
                raise InputError(
                    f"{where}: a file of release {str(version)[:40]!r} has no name or size"
                )
            if size < 0:
                raise InputError(f"{where}: file {name[:80]!r} has a negative size")
            sizes[name] = size
    return ProjectFiles(sizes, len(releases))


def simple_files(data: Any, where: str) -> ProjectFiles:
    """The files of a PEP 691 JSON simple page, each with its PEP 700 ``size``."""
    files = data.get("files") if isinstance(data, Mapping) else None
    if not isinstance(files, list):
        raise InputError(f"{where}: not a project's simple JSON page (no 'files' list)")
    sizes: dict[str, int] = {}
    versions: set[str] = set()
    for f in files:
        name = f.get("filename") if isinstance(f, Mapping) else None
        size = f.get("size") if isinstance(f, Mapping) else None
        if not isinstance(name, str):
            raise InputError(f"{where}: a file has no name")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise InputError(f"{where}: file {name[:80]!r} has no size (PEP 700)")
        sizes[name] = size
        parts = name.split("-")
        if len(parts) > 1:
            versions.add(parts[1].removesuffix(".tar.gz").removesuffix(".zip"))
    listed = data.get("versions")
    count = len(listed) if isinstance(listed, list) else len(versions)
    return ProjectFiles(sizes, count)


def quota_of(
    options: QuotaOptions, stored: ProjectFiles, release: Sequence[tuple[str, int]]
) -> Quota:
    """The quota once ``release`` ((file name, size) each) is uploaded."""
    new = {name: size for name, size in release if name not in stored.sizes}
    again = tuple(sorted({name for name, _ in release if name in stored.sizes}))
    return Quota(
        options.project,
        options.index_url,
        stored,
        sum(new.values()),
        len(new),
        again,
        options.limit_bytes,
    )

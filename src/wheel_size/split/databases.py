"""Which architecture-specific database files move to which device wheel.

Each handler recognises one library's files by their path (relative to the overlay root,
forward slashes) and names the architecture they serve; the first handler that claims a file
wins. Files a handler recognises but cannot attach to an architecture (Tensile fallback and
mapping files, ``hipblasltTransform.hsaco``) stay in the host wheel. Rules follow AMD's
``database_handlers.py`` as described in the rocm-split spec (section 1.6).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wheel_size.split.names import Hierarchy, hierarchy, normalize_arch

__all__ = [
    "DATABASES",
    "TORCH_FAT",
    "DbMatch",
    "route_database",
    "select_databases",
]

# The general arch pattern of Tensile/MIOpen names; ``-xnack±`` is normalised to ``:xnack±``.
_ARCH = re.compile(r"gfx\d+[a-z]*(?:-xnack[+-])?")
_ARCH_FULL = re.compile(rf"^{_ARCH.pattern}$")
_TENSILE_SUFFIXES = (".co", ".hsaco", ".dat")
_MIOPEN_CK = re.compile(r"^(?:lib)?MIOpenCK\w*?_(gfx\d+[a-z]*(?:-xnack[+-])?)\.(?:so|dll)$")
_MIOPEN_DB_SUFFIXES = (".kdb", ".model", ".db.txt", ".fdb.txt")
# MIOpen glues the CU count onto the arch (gfx942130.db.txt, gfx1030_36.db.txt), so AMD matches
# an explicit list; we try the known targets too, longest first, then ``gfxNNN_`` as a last resort.
_MIOPEN_LISTED = [
    "90a",
    "900",
    "906",
    "908",
    "940",
    "941",
    "942",
    "950",
    "1010",
    "1030",
    "1100",
    "1101",
    "1102",
    "1150",
    "1151",
    "1200",
    "1201",
]


@dataclass(frozen=True)
class DbMatch:
    """A database file claimed by ``handler``; ``arch`` is None when it stays in the host."""

    handler: str
    arch: str | None


Handler = Callable[[str, Hierarchy], DbMatch | None]


def _tensile(library: str) -> Handler:
    marker = f"{library}/library"

    def handler(path: str, table: Hierarchy) -> DbMatch | None:
        if marker not in path:
            return None
        after = path.split(marker, 1)[1].lstrip("/")
        parts = after.split("/")
        if len(parts) > 1 and _ARCH_FULL.match(parts[0]):  # per-arch layout: library/<arch>/…
            return DbMatch(library, normalize_arch(parts[0]))
        name = parts[-1]
        if name.endswith(_TENSILE_SUFFIXES):
            found = _ARCH.search(name)
            if found:
                return DbMatch(library, normalize_arch(found.group(0)))
        return DbMatch(library, None)

    return handler


def _aotriton(path: str, table: Hierarchy) -> DbMatch | None:
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        if part == "aotriton.images":
            following = parts[i + 1]
            if following.startswith("amd-gfx") and i + 2 < len(parts):
                return DbMatch("aotriton", table.aotriton_key(following))
            return DbMatch("aotriton", None)
    return None


def _miopen(path: str, table: Hierarchy) -> DbMatch | None:
    name = path.rsplit("/", 1)[-1]
    found = _MIOPEN_CK.match(name)
    if found:
        return DbMatch("miopen", normalize_arch(found.group(1)))
    if "miopen/db" not in path or not name.endswith(_MIOPEN_DB_SUFFIXES):
        return None
    known = {f"gfx{n}" for n in _MIOPEN_LISTED} | set(table.sub_family_of)
    for arch in sorted(known, key=len, reverse=True):
        if name.startswith(arch):
            return DbMatch("miopen", arch)
    loose = re.match(r"(gfx\d+[a-z]*)[_.]", name)
    return DbMatch("miopen", loose.group(1) if loose else None)


def _hipkernelprovider(path: str, table: Hierarchy) -> DbMatch | None:
    marker = "lib/hipdnn_plugins/engines/arch_content/"
    if marker not in path:
        return None
    parts = path.split(marker, 1)[1].split("/")
    if len(parts) >= 3 and _ARCH_FULL.match(parts[1]):
        return DbMatch("hipkernelprovider", normalize_arch(parts[1]))
    return DbMatch("hipkernelprovider", None)


DATABASES: dict[str, Handler] = {
    "rocblas": _tensile("rocblas"),
    "hipblaslt": _tensile("hipblaslt"),
    "hipsparselt": _tensile("hipsparselt"),
    "aotriton": _aotriton,
    "miopen": _miopen,
    "hipkernelprovider": _hipkernelprovider,
}
TORCH_FAT = ("rocblas", "hipblaslt", "hipsparselt", "aotriton", "miopen")


def select_databases(wheel_type: str | None, databases: Sequence[str] | None) -> tuple[str, ...]:
    """``--databases`` overrides ``--wheel-type``; neither means no database routing."""
    if databases:
        return tuple(databases)
    if wheel_type == "torch-fat":
        return TORCH_FAT
    return ()


def route_database(
    path: str, handlers: Sequence[str], table: Hierarchy | None = None
) -> DbMatch | None:
    """The first handler's verdict on ``path`` (overlay-relative), or None if none claims it."""
    table = table or hierarchy()
    for name in handlers:
        match = DATABASES[name](path, table)
        if match is not None:
            return match
    return None

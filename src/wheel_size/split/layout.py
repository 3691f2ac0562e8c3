"""Which kpack archives and device wheels a split makes, known before any is written.

The plan needs the layout up front (the dry run prints it; names are validated before any
work): the archives :func:`wheel_size.rocm.kpack_layout.plan_archives` lays out (one per
processor, each code object stored once under its ``<rel>#<index>`` key and listed for the
arch strings the loader asks with), and one device wheel per bundle key holding its archives
and database files. The apply phase builds the archives and bundles with
``apply._build_kpacks`` and ``apply._bundles`` from the same inputs; the dry-run tests check
both agree (names, members, sizes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from wheel_size.rocm.kpack_layout import plan_archives
from wheel_size.split.names import (
    Hierarchy,
    check_bundle_key,
    check_target_id,
    device_dist_name,
    normalize_arch,
)
from wheel_size.split.work import LibraryPlan
from wheel_size.wheel.filename import wheel_filename

__all__ = ["PlannedDevice", "PlannedKpack", "plan_layout"]


@dataclass(frozen=True)
class PlannedKpack:
    """One archive: its file name, name part (a processor) and bundle key, with the code
    objects it stores (``(key, uncompressed size)``), each once however many arch strings
    list it."""

    name: str
    arch: str
    key: str
    items: tuple[tuple[str, int], ...]

    @property
    def size(self) -> int:
        """Uncompressed code-object bytes (the archive adds a small TOC; zstd shrinks it)."""
        return sum(size for _key, size in self.items)


@dataclass(frozen=True)
class PlannedDevice:
    """One device wheel: bundle key, level, distribution and file name, its archives and
    the database files routed to it (overlay-relative member names with their sizes)."""

    key: str
    level: str
    dist: str
    filename: str
    kpacks: tuple[PlannedKpack, ...]
    db_files: tuple[tuple[str, int], ...]

    @property
    def size(self) -> int:
        """Uncompressed bytes of its kpacks and database files."""
        return sum(k.size for k in self.kpacks) + sum(size for _name, size in self.db_files)


def plan_layout(
    libraries: Sequence[LibraryPlan],
    db_keys: Sequence[tuple[str, str, int]],
    *,
    where: str,
    overlay: str,
    group: str,
    prefix: str,
    version: str,
    tags: str,
    table: Hierarchy,
    kpack_layout: str = "per-processor",
) -> tuple[tuple[PlannedDevice, ...], list[str]]:
    """The device wheels (bundle-key order) and the warnings about keys the pinned hierarchy
    does not know; ``db_keys`` lists ``(bundle key, member, size)`` of each database file."""
    sizes: dict[str, dict[str, int]] = defaultdict(dict)
    for lib in sorted((lib for lib in libraries if lib.fat), key=lambda lib: lib.rel):
        member = f"{where}:{overlay + '/' if overlay else ''}{lib.rel}"
        for code in sorted(lib.code_objects, key=lambda c: c.index):
            arch = check_target_id(normalize_arch(code.target), member)
            sizes[f"{lib.rel}#{code.index}"].setdefault(arch, code.size)
    kpacks: dict[str, list[PlannedKpack]] = defaultdict(list)
    code_objects = {k: list(v) for k, v in sorted(sizes.items())}
    for archive in plan_archives(code_objects, layout=kpack_layout):
        key = table.bundle_key(archive.name)
        items = tuple((entry, sizes[entry][target]) for entry, target, _ in archive.entries)
        name = f"{group}_{archive.name}.kpack"
        kpacks[key].append(PlannedKpack(name, archive.name, key, items))
    dbs: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for key, member, size in db_keys:
        dbs[key].append((member, size))
    # One warning for all of them: cupy-rocm-5-0 ships gfx801, gfx802 and gfx803, one fact.
    unknown = [key for key in sorted(kpacks, key=table.sort_key) if not table.is_known(key)]
    warnings = (
        [
            f"{where}: code objects for {', '.join(map(repr, unknown))}, "
            f"{'an architecture' if len(unknown) == 1 else 'architectures'} not in the pinned "
            f"hierarchy; {'routed to its own' if len(unknown) == 1 else 'each routed to its own'}"
            " device wheel"
        ]
        if unknown
        else []
    )
    devices = []
    for key in sorted(set(kpacks) | set(dbs), key=table.sort_key):
        check_bundle_key(key, where)
        dist = device_dist_name(prefix, key)
        devices.append(
            PlannedDevice(
                key,
                table.level(key),
                dist,
                wheel_filename(dist, version, tags),
                tuple(kpacks.get(key, ())),
                tuple(dbs.get(key, ())),
            )
        )
    return tuple(devices), warnings

"""``diff --by``: compare two inventories (:mod:`wheel_size.kernels.inventory`) per
architecture and summed across architectures.

Kernels and symbols are compared by demangled name; families by the name without template
arguments, counting instantiations. Only members that differ are read (RECORD hashes, as in
:mod:`wheel_size.diff.compare`): an unchanged library changes no kernel.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from wheel_size.diff.by_kernels import read_kernel_sides
from wheel_size.diff.by_model import ByDiff, ByRow, ByTable
from wheel_size.diff.compare import _is_elf, _record, _same
from wheel_size.diff.jobs import default_jobs
from wheel_size.diff.kpackinfo import is_kpack
from wheel_size.diff.pairing import pair_members
from wheel_size.kernels.archs import arch_key
from wheel_size.kernels.inventory import Inventory, Item, read_inventory
from wheel_size.wheel.archive import Member, WheelSource, open_source

__all__ = ["compare_inventories", "diff_wheels_by", "is_ptx"]

# added, removed, old names, new names (distinct names across architectures)
_Names = tuple[set[str], set[str], set[str], set[str]]


def _arch_rows(old: Inventory, new: Inventory, by: str) -> list[tuple[str, list[ByRow], int, int]]:
    """(arch, changed rows, old named bytes, new named bytes) of every architecture, one
    row per name (``--by kernel`` or ``symbol``) or per template family; the new side's
    identical copies mark kernel rows. Each side is walked once, every architecture at
    a time (not grouped by architecture first, nor the union of both sides' names: 0.1
    CPU-s of a torch diff's serial tail, after the workers are done, and 14 MB)."""
    if by == "family":
        return _family_arch_rows(old, new)
    old_items, new_items, duplicates = old.items, new.items, new.duplicates
    archs = {arch for arch, _name in old_items} | {arch for arch, _name in new_items}
    archs |= old.unattributed.keys() | new.unattributed.keys()
    rows: dict[str, list[ByRow]] = {arch: [] for arch in archs}
    moved: list[tuple[tuple[str, str], Item | None, Item | None]] = []
    for key, b in new_items.items():
        a = old_items.get(key)
        if a is None or a.bytes != b.bytes or a.copies != b.copies:
            moved.append((key, a, b))
    moved += [(key, item, None) for key, item in old_items.items() if key not in new_items]
    for (arch, name), was, now in moved:
        old_bytes, old_count = (was.bytes, was.copies) if was else (0, 0)
        new_bytes, new_count = (now.bytes, now.copies) if now else (0, 0)
        if old_bytes != new_bytes or old_count != new_count:
            row = ByRow(name, old_bytes, new_bytes, old_count, new_count, archs=[arch])
            copies, extra = duplicates.get((arch, name), (0, 0))
            row.new_identical_copies, row.new_duplicate_bytes = copies, extra
            rows[arch].append(row)
    old_named, new_named = _named(old_items, archs), _named(new_items, archs)
    ordered = sorted(archs, key=arch_key)
    return [(arch, rows[arch], old_named[arch], new_named[arch]) for arch in ordered]


def _named(items: dict[tuple[str, str], Item], archs: set[str]) -> dict[str, int]:
    """The bytes of the named functions of each architecture."""
    named = dict.fromkeys(archs, 0)
    for (arch, _name), item in items.items():
        named[arch] += item.bytes
    return named


def _family_arch_rows(old: Inventory, new: Inventory) -> list[tuple[str, list[ByRow], int, int]]:
    """:func:`_arch_rows` by template family, every architecture summed in one walk of
    each side (not grouped by architecture first, nor the union of both sides' names:
    0.1 CPU-s of a torch diff's serial tail, after the workers are done)."""
    # (arch, family) -> [old bytes, new bytes, old names, new names, added, removed]; a
    # name's family is the new side's when both hold it
    sums: dict[tuple[str, str], list[int]] = {}
    old_items, new_items = old.items, new.items
    for key, b in new_items.items():
        slot = _family_slot(sums, key[0], b.family)
        slot[1] += b.bytes
        slot[3] += 1
        a = old_items.get(key)
        if a is None:
            slot[4] += 1
        else:
            slot[0] += a.bytes
            slot[2] += 1
    for key, a in old_items.items():
        if key in new_items:
            continue
        slot = _family_slot(sums, key[0], a.family)
        slot[0] += a.bytes
        slot[2] += 1
        slot[5] += 1
    archs = {arch for arch, _family in sums} | old.unattributed.keys() | new.unattributed.keys()
    # arch -> (its changed rows, old named bytes, new named bytes)
    per_arch: dict[str, tuple[list[ByRow], list[int], list[int]]] = {
        arch: ([], [0], [0]) for arch in archs
    }
    for (arch, family), (old_b, new_b, old_n, new_n, added, removed) in sums.items():
        rows, old_named, new_named = per_arch[arch]
        old_named[0] += old_b
        new_named[0] += new_b
        if old_b != new_b or old_n != new_n or added:
            rows.append(ByRow(family, old_b, new_b, old_n, new_n, added, removed, [arch]))
    ordered = sorted(archs, key=arch_key)
    return [
        (arch, per_arch[arch][0], per_arch[arch][1][0], per_arch[arch][2][0]) for arch in ordered
    ]


def _family_slot(sums: dict[tuple[str, str], list[int]], arch: str, family: str) -> list[int]:
    """The running sums of ``family`` in ``arch`` (six zeros the first time)."""
    slot = sums.get((arch, family))
    if slot is None:
        slot = sums[arch, family] = [0, 0, 0, 0, 0, 0]
    return slot


def _table(arch: str, rows: list[ByRow], top: int) -> ByTable:
    rows.sort(key=lambda r: (-abs(r.delta), r.name))
    table = ByTable(arch, rows=rows[:top])
    rest = rows[top:]
    table.rest_count = len(rest)
    table.rest_delta = sum(r.delta for r in rest)
    statuses = [r.status for r in rows]
    table.counts = {
        "added": statuses.count("added"),
        "removed": statuses.count("removed"),
        "grown": statuses.count("grown"),
        "shrunk": statuses.count("shrunk"),
        "changed": statuses.count("changed"),
        "up": sum(r.delta for r in rows if r.delta > 0),
        "down": sum(r.delta for r in rows if r.delta < 0),
    }
    return table


def _sum(
    per_arch: Iterable[tuple[str, list[ByRow]]], by: str, names: dict[str, _Names]
) -> list[ByRow]:
    summed: dict[str, ByRow] = {}
    for arch, rows in per_arch:
        for row in rows:
            total = summed.setdefault(row.name, ByRow(row.name))
            total.old_bytes += row.old_bytes
            total.new_bytes += row.new_bytes
            total.old_count += row.old_count
            total.new_count += row.new_count
            total.archs.append(arch)
            total.new_identical_copies = max(total.new_identical_copies, row.new_identical_copies)
            total.new_duplicate_bytes += row.new_duplicate_bytes
    if by == "family":
        # Instantiations are names, the same in every architecture: count each once.
        for row in summed.values():
            added, removed, old_n, new_n = names.get(row.name, (set(), set(), set(), set()))
            row.added, row.removed = len(added), len(removed)
            row.old_count, row.new_count = len(old_n), len(new_n)
    return list(summed.values())


def _family_names(old: Inventory, new: Inventory, wanted: set[str]) -> dict[str, _Names]:
    """family -> (names added, names removed, old names, new names), for the families in
    ``wanted`` (those with a changed row somewhere). An instantiation is a name: added when
    no architecture of the old side holds it, removed when none of the new side does, so an
    architecture that comes or goes (xformers 0.0.31 dropping sm_60) adds or removes none."""
    out: dict[str, _Names] = {f: (set(), set(), set(), set()) for f in wanted}
    for side, items in ((2, old.items), (3, new.items)):
        for key, item in items.items():
            sets = out.get(item.family)
            if sets is not None:
                sets[side].add(key[1])
    for _added, _removed, old_n, new_n in out.values():
        _added.update(new_n - old_n)
        _removed.update(old_n - new_n)
    return out


def compare_inventories(
    old: Inventory, new: Inventory, *, by: str, top: int, old_label: str, new_label: str
) -> ByDiff:
    """Per-architecture and summed tables of what changed between two inventories."""
    result = ByDiff(old_label, new_label, by, problems=[*old.problems, *new.problems])
    per_arch: list[tuple[str, list[ByRow]]] = []
    everything: list[ByTable] = []  # every architecture, listed or not: the summed totals
    for arch, rows, old_named, new_named in _arch_rows(old, new, by):
        per_arch.append((arch, list(rows)))
        table = _table(arch, rows, top)
        table.new_duplicate_bytes = sum(
            extra for (where, _name), (_copies, extra) in new.duplicates.items() if where == arch
        )
        table.old_total = old_named + old.unattributed.get(arch, 0)
        table.new_total = new_named + new.unattributed.get(arch, 0)
        table.old_unattributed = old.unattributed.get(arch, 0)
        table.new_unattributed = new.unattributed.get(arch, 0)
        everything.append(table)
        if rows or table.old_total != table.new_total:
            result.archs.append(table)
    wanted = {row.name for _arch, rows in per_arch for row in rows}
    names = _family_names(old, new, wanted) if by == "family" else {}
    # Code objects (SASS, gfx) and embedded PTX are summed apart, as cuobjdump -lelf and
    # -lptx list them: PTX is source the driver compiles, not code a GPU runs, and added to
    # the SASS it would make a total no tool reports.
    for label, keep in (("", False), ("ptx", True)):
        mine = [(arch, rows) for arch, rows in per_arch if is_ptx(arch) is keep]
        summed = _table(label, _sum(mine, by, names), top)
        tables = [t for t in everything if is_ptx(t.arch) is keep]
        # The compared libraries' code in every architecture: an unchanged architecture adds
        # the same bytes to both sides (no row of it moved), so the delta is that of the
        # listed ones, and libraries rebuilt with identical kernels do not read "0 B -> 0 B".
        summed.old_total = sum(t.old_total for t in tables)
        summed.new_total = sum(t.new_total for t in tables)
        summed.old_unattributed = sum(t.old_unattributed for t in tables)
        summed.new_unattributed = sum(t.new_unattributed for t in tables)
        summed.new_duplicate_bytes = sum(t.new_duplicate_bytes for t in tables)
        if keep:
            result.summed_ptx = summed
        else:
            result.summed = summed
    return result


def is_ptx(arch: str) -> bool:
    """PTX embedded for an architecture (``compute_90``), as the kernel readers name it."""
    return arch.startswith("compute_")


def _side(path: Path, names: list[str], label: str, by: str) -> Inventory:
    """The inventory of the members ``names`` of one wheel, each streamed to a temporary
    file and read there (one worker process per side when two cores are free)."""
    inventory = Inventory()
    with (
        tempfile.TemporaryDirectory(prefix="wheel-size-by-") as tmp,
        open_source(path) as source,
    ):
        for name in names:
            fd, tmp_name = tempfile.mkstemp(dir=tmp, suffix=".so")
            member = Path(tmp_name)
            try:
                with source.open(name) as src, os.fdopen(fd, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                read_inventory(inventory, member, f"{label}:{name}", by)
            finally:
                member.unlink(missing_ok=True)
    return inventory


def _changed(
    a_src: WheelSource,
    b_src: WheelSource,
    old_label: str,
    new_label: str,
    problems: list[str],
    *,
    kpacks: bool = True,
) -> tuple[list[str], list[str]]:
    """The ELF members (and, with ``kpacks``, the ``.kpack`` archives: a device wheel's
    kernels) of each wheel that differ from the other wheel's (RECORD first)."""

    def wanted(source: WheelSource, member: Member) -> bool:
        return _is_elf(source, member) or (kpacks and is_kpack(source, member))

    old_names: list[str] = []
    new_names: list[str] = []
    a_rec, b_rec = _record(a_src, old_label, problems), _record(b_src, new_label, problems)
    a_members = {m.name: m for m in a_src.members}
    b_members = {m.name: m for m in b_src.members}
    pairs = pair_members(a_members, b_members)  # the diff's pairing, renames and all
    for a_name, b_name in sorted(pairs, key=lambda p: str(p[1] or p[0])):
        a = a_members[a_name] if a_name else None
        b = b_members[b_name] if b_name else None
        if a and b and _same(a_src, b_src, a, b, a_rec.get(a.name), b_rec.get(b.name)):
            continue
        if a and wanted(a_src, a):
            old_names.append(a.name)
        if b and wanted(b_src, b):
            new_names.append(b.name)
    return old_names, new_names


def _symbol_sides(
    old: Path,
    new: Path,
    names: tuple[list[str], list[str]],
    labels: tuple[str, str],
    jobs: int,
) -> tuple[Inventory, Inventory]:
    """Host symbols of both sides, one worker process per side when two may run."""
    if jobs > 1 and names[0] and names[1]:
        with ProcessPoolExecutor(max_workers=2) as pool:
            later = pool.submit(_side, new, names[1], labels[1], "symbol")
            return _side(old, names[0], labels[0], "symbol"), later.result()
    return _side(old, names[0], labels[0], "symbol"), _side(new, names[1], labels[1], "symbol")


def _source(path: Path, opened: WheelSource | None) -> AbstractContextManager[WheelSource]:
    """``opened`` as it is (its owner closes it), else ``path`` opened here."""
    return nullcontext(opened) if opened is not None else open_source(path)


def diff_wheels_by(
    old: Path,
    new: Path,
    *,
    by: str,
    top: int,
    old_label: str,
    new_label: str,
    jobs: int | None = None,
    opened: tuple[WheelSource | None, WheelSource | None] = (None, None),
) -> ByDiff:
    """Compare the libraries that differ between two wheels by kernel, symbol or family,
    in ``jobs`` worker processes (:func:`default_jobs` when None). ``opened``: either
    wheel already open (the caller closes it; its zip index is not read again)."""
    workers = default_jobs() if jobs is None else jobs
    problems: list[str] = []
    with _source(old, opened[0]) as a_src, _source(new, opened[1]) as b_src:
        kpacks = by != "symbol"  # an archive has kernels, no host symbols
        old_names, new_names = _changed(a_src, b_src, old_label, new_label, problems, kpacks=kpacks)
        if by != "symbol":
            names, labels = (old_names, new_names), (old_label, new_label)
            # --by kernel hashes every function to mark identical copies; families do not
            digests = by == "kernel"
            sources = (a_src, b_src)
            old_inv, new_inv = read_kernel_sides(
                sources, names, labels, workers, digests=digests, families=by == "family"
            )
    if by == "symbol":
        sides = (old_names, new_names), (old_label, new_label)
        old_inv, new_inv = _symbol_sides(old, new, *sides, workers)
    result = compare_inventories(
        old_inv, new_inv, by=by, top=top, old_label=old_label, new_label=new_label
    )
    result.problems[:0] = problems
    return result

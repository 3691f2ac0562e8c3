"""What one side of a comparison holds, per architecture and name: the kernels (and
device functions) of every code object, or the host symbols, with bytes and copies.

Keys are demangled names (``c++filt``'s text); a name the demangler rejects keeps its
mangled text and belongs to the family :data:`UNATTRIBUTED`, and one problem per library
says how many. For each architecture the bytes no function covers are kept too, so an
architecture's functions plus its unattributed bytes are its code objects' bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from wheel_size.errors import WheelSizeError
from wheel_size.kernels.demangle import Demangled, demangle, demangle_many
from wheel_size.kernels.family import template_family
from wheel_size.kernels.host import host_symbols
from wheel_size.kernels.library import iter_code_objects, one_problem
from wheel_size.rocm.elf_file import ElfImage

__all__ = ["UNATTRIBUTED", "Inventory", "Item", "close_library", "read_inventory"]

UNATTRIBUTED = "(unattributed)"


@dataclass(slots=True)  # no __dict__: a diff of two torch releases holds ~300,000
class Item:
    """One name in one architecture: its bytes summed over copies, and how many copies
    (one per code object that holds it: translation units the device linker did not fold)."""

    family: str
    bytes: int = 0
    copies: int = 0


@dataclass
class Inventory:
    """``items[(arch, name)]``; for host symbols ``arch`` is the ELF section."""

    items: dict[tuple[str, str], Item] = field(default_factory=dict)
    unattributed: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    # mangled -> (shown name, family, demangled): one string per name however many
    # architectures hold it (torch's names run to kilobytes).
    _names: dict[str, tuple[str, str, bool]] = field(default_factory=dict, repr=False)
    # (arch, name) -> [most identical copies in one library, bytes the extra copies take]:
    # a kernel with the same bytes more than once in one architecture of one library
    # (``bloat``'s duplicates), known only when the functions were hashed
    duplicates: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    # (arch, mangled) of items whose name libstdc++ rejected, for :meth:`resolve`
    _pending: set[tuple[str, str]] = field(default_factory=set, repr=False)
    # False: no template families (``diff --by kernel`` shows none; an item's family is
    # then ""): working one out is ~70 % of resolving a name, 0.3-0.4 CPU-s of a torch diff
    families: bool = True

    def add_duplicates(self, found: Iterable[tuple[str, str, int, int]]) -> None:
        """Record (arch, mangled, bytes of one copy, identical copies) of one library."""
        for arch, mangled, size, copies in found:
            name = self._name(mangled)[0]
            slot = self.duplicates.setdefault((arch, name), [0, 0])
            slot[0] = max(slot[0], copies)
            slot[1] += (copies - 1) * size

    def _name(self, mangled: str, shown: Demangled | None = None) -> tuple[str, str, bool]:
        known = self._names.get(mangled) if shown is None else None
        if known is None:
            shown = shown or demangle(mangled)
            if not self.families:
                kin = ""
            elif shown.ok and shown.text == mangled and mangled.startswith("$"):
                kin = mangled  # nvcc's ``$kernel$helper`` names are not C++
            else:
                kin = template_family(shown.text) if shown.ok else UNATTRIBUTED
            known = self._names[mangled] = (shown.text, kin, shown.ok)
        return known

    def add(self, arch: str, mangled: str, size: int, copies: int = 1) -> bool:
        """Count one function (or ``copies`` copies of it, ``size`` bytes together); False
        when its name could not be demangled (yet: see :meth:`resolve`)."""
        name, kin, ok = self._name(mangled)
        if not ok:
            self._pending.add((arch, name))
        item = self.items.get((arch, name))
        if item is None:
            item = self.items[(arch, name)] = Item(kin)
        item.bytes += size
        item.copies += copies
        return ok

    def share_names(self, other: Inventory) -> None:
        """Use ``other``'s cache of demangled names: both sides of a diff hold mostly the
        same names, each demangled once (``other`` must agree on :attr:`families`)."""
        if other.families != self.families:
            raise ValueError("shared names must agree on whether families are resolved")
        self._names = other._names

    def add_counts(self, counts: Iterable[tuple[tuple[str, str], Sequence[int]]]) -> None:
        """:meth:`add` for ``((arch, mangled), (bytes, copies))`` pairs (a worker's tally)."""
        names, items, pending = self._names, self.items, self._pending
        for (arch, mangled), (size, copies) in counts:
            known = names.get(mangled)
            name, kin, ok = known if known is not None else self._name(mangled)
            if not ok:
                pending.add((arch, name))
            item = items.get((arch, name))
            if item is None:
                item = items[(arch, name)] = Item(kin)
            item.bytes += size
            item.copies += copies

    def add_columns(
        self, archs: Sequence[str], names: Sequence[str], rows: Iterable[tuple[int, int, int, int]]
    ) -> None:
        """:meth:`add_counts` for items as columns (``kernels.work.Tally.columns``): each
        name is looked up once, however many architectures hold it."""
        cache, items, pending = self._names, self.items, self._pending
        known = [cache.get(mangled) or self._name(mangled) for mangled in names]
        for a, n, size, copies in rows:
            name, kin, ok = known[n]
            arch = archs[a]
            if not ok:
                pending.add((arch, name))
            item = items.get((arch, name))
            if item is None:
                item = items[(arch, name)] = Item(kin)
            item.bytes += size
            item.copies += copies

    def learn(self, names: Iterable[str]) -> None:
        """Demangle ``names`` ahead of :meth:`add` (while other processes still work)."""
        for mangled in names:
            if mangled not in self._names:
                self._name(mangled)

    def resolve(self) -> int:
        """Demangle what libstdc++ rejected through ``llvm-cxxfilt`` (one process) and move
        those items under their names; returns how many names stay mangled."""
        if not self._pending:
            return 0
        pending, self._pending = self._pending, set()
        found = demangle_many({mangled for _arch, mangled in pending})
        still = 0
        for mangled, shown in found.items():
            self._name(mangled, shown)
            still += not shown.ok
        for arch, mangled in pending:
            name, kin, ok = self._names[mangled]
            if not ok:
                continue
            old = self.items.pop((arch, mangled))
            item = self.items.setdefault((arch, name), Item(kin))
            item.bytes += old.bytes
            item.copies += old.copies
        return still

    def leftover(self, arch: str, size: int) -> None:
        self.unattributed[arch] = self.unattributed.get(arch, 0) + size

    def archs(self) -> set[str]:
        return {arch for arch, _name in self.items} | set(self.unattributed)

    def total(self, arch: str) -> int:
        """Every byte of the architecture: its functions and its unattributed bytes."""
        named = sum(i.bytes for (a, _n), i in self.items.items() if a == arch)
        return named + self.unattributed.get(arch, 0)


def _add_kernels(inventory: Inventory, stream: IO[bytes], source: str) -> None:
    problems: list[str] = []
    for code in iter_code_objects(stream, source, inventory.problems, digests=False):
        found = code.functions
        problems.extend(found.problems)
        inventory.leftover(code.arch, found.unattributed)
        for function in found.functions:
            inventory.add(code.arch, function.name, function.size)
    inventory.problems.extend(close_library(inventory, problems, source))


def close_library(inventory: Inventory, problems: list[str], source: str) -> list[str]:
    """After one library's kernels: the lines to report, its code objects' problems as
    one line and how many names no demangler read."""
    lines = list(one_problem(problems, source))
    rejected = inventory.resolve()
    if rejected:
        lines.append(
            f"{source}: {rejected} name(s) the demangler rejects are shown mangled, "
            f"in the family {UNATTRIBUTED}"
        )
    return lines


def _add_symbols(inventory: Inventory, stream: IO[bytes], source: str) -> None:
    try:
        found = host_symbols(ElfImage(stream, source))
    except WheelSizeError as exc:
        inventory.problems.append(f"{exc}; its symbols are not listed")
        return
    inventory.problems.extend(found.problems)
    for section in found.sections:
        inventory.leftover(section.name, section.unattributed)
        for name, size in section.symbols.items():
            inventory.add(section.name, name, size)
    inventory.resolve()


def read_inventory(inventory: Inventory, path: Path, source: str, by: str) -> None:
    """Add the library at ``path`` (named ``source`` in messages) to ``inventory``:
    its kernels (``by`` kernel or family) or its host symbols (``by`` symbol)."""
    try:
        with path.open("rb") as stream:
            if by == "symbol":
                _add_symbols(inventory, stream, source)
            else:
                _add_kernels(inventory, stream, source)
    except OSError as exc:
        inventory.problems.append(f"{source}: cannot read: {exc.strerror or exc}")

"""Kernel inventories of two versions of one library, as independent pieces of work.

``diff --by kernel|family`` of two torch releases decodes ~10 GB of SASS; half of the
cubins are byte-identical between the releases (libtorch_cuda_linalg.so entirely). So the
work is cut in two steps that a process pool can share:

1. :func:`scan_kernel_library`: the library's ELF and fatbin headers, every SASS/PTX entry as an
   :class:`~wheel_size.cuda.images.ImageRef` (checked against its section, not yet read),
   and its HIP code objects, which are read there and then;
2. :func:`read_chunk`: a run of entries of one library pair, each read once: an entry of
   the old library whose header and stored bytes equal one of the new library's is decoded
   once and counted on both sides.

Results are plain :class:`Tally` tables of mangled names (demangling happens once, in the
caller). The pieces keep :func:`wheel_size.kernels.inventory.read_inventory`'s answer:
anything that would have stopped its reading half-way (a payload that does not decode, an
entry outside its section) marks the piece ``fault`` and the caller reads that library
pair the sequential way instead, problems and all.
"""

from __future__ import annotations

import os
import sys
from array import array
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import IO, Any

from wheel_size.cuda.fatbin import FLAG_LZ4, FLAG_ZSTD
from wheel_size.cuda.images import ImageRef, image_ref, load_image
from wheel_size.cuda.library import scan_cuda_sections
from wheel_size.cuda.lz4block import BlockDecoder
from wheel_size.errors import WheelSizeError
from wheel_size.kernels.functions import (
    CodeObjectFunctions,
    Wanted,
    elf_functions,
    ptx_functions,
)
from wheel_size.kernels.library import (
    STRAY_ERRORS,
    container_reader,
    hip_code_objects,
    standalone_code_objects,
)
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.rocm.limits import MAX_CODE_OBJECT

__all__ = [
    "CHUNK_BYTES",
    "DECODER",
    "Chunk",
    "ChunkResult",
    "Columns",
    "Item",
    "LibraryScan",
    "SpotColumns",
    "Tally",
    "entry_functions",
    "entry_where",
    "lz4_sizes",
    "open_side",
    "plan_kernel_chunks",
    "read_chunk",
    "read_payload",
    "scan_kernel_library",
]

_KINDS = ("sass", "ptx")
# Uncompressed bytes a chunk decodes: small enough that two workers end close together,
# large enough that one chunk's names are pickled once for many cubins.
CHUNK_BYTES = 96 << 20
# One LZ4 buffer per worker, for the chunks and kernels.copies' jobs alike: a fresh one
# per chunk faults in its pages again, and two would hold two of the largest entries.
DECODER = BlockDecoder()
_CODECS = FLAG_LZ4 | FLAG_ZSTD


@dataclass
class Tally:
    """What one side's code objects hold: ``items[(arch, mangled)] = [bytes, copies]``,
    bytes no function covers per architecture, and code-object problems by entry number.

    Pickled (a worker's answer) as columns: each name once, and the numbers in ``array``
    objects. As dicts of tuples and lists the ~300,000 entries of one torch library pair
    were ~3 million Python objects, 180 MiB in the parent until the pair was tallied and
    most of its peak memory; unpickled, a tally keeps the columns (:meth:`counts`,
    :meth:`same_counts`, :meth:`names` read either form, in insertion order)."""

    items: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    unattributed: dict[str, int] = field(default_factory=dict)
    problems: list[tuple[int, str]] = field(default_factory=list)
    # (arch, mangled, digest of its bytes) -> [bytes of one copy, copies]: filled only when
    # the functions were hashed (``diff --by kernel``), for identical copies in one library
    same: dict[tuple[str, str, bytes], list[int]] = field(default_factory=dict)
    _packed: _Columns | None = field(default=None, repr=False, compare=False)

    # (arch, mangled, bytes, entry number, where its bytes begin in the entry's code object)
    # of every function, when the caller looks for identical copies without hashing every
    # function (see :mod:`wheel_size.kernels.copies`)
    spots: list[tuple[str, str, int, int, int]] | None = None

    def add(self, arch: str, found: CodeObjectFunctions, number: int, problems: list[str]) -> None:
        items, same, spots, intern = self.items, self.same, self.spots, sys.intern
        # the fields unpacked, not read by name: ~300,000 functions in a torch diff
        for name, size, _kernel, digest, start in found.functions:
            # One object per name: pickled once per chunk, however many archs hold it.
            name = intern(name)
            if spots is not None:
                spots.append((arch, name, size, number, start))
            key = (arch, name)
            slot = items.get(key)
            if slot is None:
                items[key] = [size, 1]
            else:
                slot[0] += size
                slot[1] += 1
            if digest:
                copies = same.get((arch, name, digest))
                if copies is None:
                    same[(arch, name, digest)] = [size, 1]
                else:
                    copies[1] += 1
        self.unattributed[arch] = self.unattributed.get(arch, 0) + found.unattributed
        self.problems.extend((number, text) for text in problems)

    def counts(self) -> Iterator[tuple[tuple[str, str], tuple[int, int]]]:
        """``((arch, mangled), (bytes, copies))`` in insertion order."""
        if self._packed is None:
            for key, slot in self.items.items():
                yield key, (slot[0], slot[1])
            return
        cols = self._packed
        archs, names = cols.archs, cols.names
        for a, n, size, copies in zip(cols.arch, cols.name, cols.size, cols.copies, strict=True):
            yield (archs[a], names[n]), (size, copies)

    def columns(self) -> Columns:
        """The items as columns: the distinct archs and names, then per item (in insertion
        order) indexes into them, bytes and copies; each name is looked up once by the
        caller, not once per architecture (the parent's merge of a torch diff)."""
        if self._packed is None:
            archs: dict[str, int] = {}
            names: dict[str, int] = {}
            rows = [
                (archs.setdefault(a, len(archs)), names.setdefault(n, len(names)), s[0], s[1])
                for (a, n), s in self.items.items()
            ]
            return list(archs), list(names), rows
        cols = self._packed
        rows = list(zip(cols.arch, cols.name, cols.size, cols.copies, strict=True))
        return cols.archs, cols.names, rows

    def distinct_names(self) -> list[str]:
        """Every mangled name once (what :meth:`columns` indexes)."""
        if self._packed is None:
            return list(dict.fromkeys(name for _arch, name in self.items))
        return self._packed.names

    def same_counts(self) -> Iterator[tuple[tuple[str, str, bytes], tuple[int, int]]]:
        """``((arch, mangled, digest), (bytes of one copy, copies))`` in insertion order."""
        if self._packed is None:
            for key, slot in self.same.items():
                yield key, (slot[0], slot[1])
            return
        cols = self._packed
        archs, names, blob = cols.archs, cols.names, cols.digests
        at = 0
        for a, n, width, size, copies in zip(
            cols.same_arch, cols.same_name, cols.same_width, cols.same_size, cols.same_copies,
            strict=True,
        ):  # fmt: skip
            yield (archs[a], names[n], blob[at : at + width]), (size, copies)
            at += width

    def spot_rows(self) -> Iterator[tuple[str, str, int, int, int]]:
        """:attr:`spots` in insertion order (none when they were not recorded)."""
        if self._packed is None:
            yield from self.spots or ()
            return
        cols = self._packed
        archs, names = cols.archs, cols.names
        for a, n, size, number, start in zip(
            cols.spot_arch, cols.spot_name, cols.spot_size, cols.spot_number, cols.spot_start,
            strict=True,
        ):  # fmt: skip
            yield archs[a], names[n], size, number, start

    def spot_columns(self) -> SpotColumns:
        """:attr:`spots` as five sequences (arch, mangled name, bytes, entry number, start),
        in insertion order, made by ``map`` in C rather than a tuple per spot."""
        if self._packed is None:
            spots = self.spots or []
            return tuple(list(map(itemgetter(i), spots)) for i in range(5))  # type: ignore[return-value]
        cols = self._packed
        return (
            list(map(cols.archs.__getitem__, cols.spot_arch)),
            list(map(cols.names.__getitem__, cols.spot_name)),
            cols.spot_size,
            cols.spot_number,
            cols.spot_start,
        )

    def names(self) -> Iterator[str]:
        """The mangled name of every item (once per architecture)."""
        return (key[1] for key, _slot in self.counts())

    def __getstate__(self) -> dict[str, object]:
        cols = _Columns()
        archs: dict[str, int] = {}
        names: dict[str, int] = {}
        for (arch, name), (size, copies) in self.counts():
            cols.arch.append(archs.setdefault(arch, len(archs)))
            cols.name.append(names.setdefault(name, len(names)))
            cols.size.append(size)
            cols.copies.append(copies)
        digests: list[bytes] = []
        for (arch, name, digest), (size, copies) in self.same_counts():
            cols.same_arch.append(archs.setdefault(arch, len(archs)))
            cols.same_name.append(names.setdefault(name, len(names)))
            cols.same_width.append(len(digest))
            cols.same_size.append(size)
            cols.same_copies.append(copies)
            digests.append(digest)
        for arch, name, size, number, start in self.spot_rows():
            cols.spot_arch.append(archs.setdefault(arch, len(archs)))
            cols.spot_name.append(names.setdefault(name, len(names)))
            cols.spot_size.append(size)
            cols.spot_number.append(number)
            cols.spot_start.append(start)
        cols.archs, cols.names, cols.digests = list(archs), list(names), b"".join(digests)
        return {"unattributed": self.unattributed, "problems": self.problems, "cols": cols}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.items, self.same, self.spots = {}, {}, None
        self.unattributed = state["unattributed"]
        self.problems = state["problems"]
        self._packed = state["cols"]


# (archs, mangled names, bytes, entry numbers, starts) of a tally's spots: Tally.spot_columns
SpotColumns = tuple[Sequence[str], Sequence[str], Sequence[int], Sequence[int], Sequence[int]]
# (archs, names, [(arch index, name index, bytes, copies)]): Tally.columns
Columns = tuple[list[str], list[str], list[tuple[int, int, int, int]]]


@dataclass
class _Columns:
    """A tally's items and identical copies as columns (see :class:`Tally`)."""

    archs: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    digests: bytes = b""
    arch: array[int] = field(default_factory=lambda: array("I"))
    name: array[int] = field(default_factory=lambda: array("I"))
    size: array[int] = field(default_factory=lambda: array("q"))
    copies: array[int] = field(default_factory=lambda: array("q"))
    same_arch: array[int] = field(default_factory=lambda: array("I"))
    same_name: array[int] = field(default_factory=lambda: array("I"))
    same_width: array[int] = field(default_factory=lambda: array("I"))
    same_size: array[int] = field(default_factory=lambda: array("q"))
    same_copies: array[int] = field(default_factory=lambda: array("q"))
    spot_arch: array[int] = field(default_factory=lambda: array("I"))
    spot_name: array[int] = field(default_factory=lambda: array("I"))
    spot_size: array[int] = field(default_factory=lambda: array("q"))
    spot_number: array[int] = field(default_factory=lambda: array("q"))
    spot_start: array[int] = field(default_factory=lambda: array("q"))


@dataclass(frozen=True)
class Item:
    """One SASS/PTX entry: its number among the library's images (the ``#n`` in messages)."""

    number: int
    ref: ImageRef


@dataclass
class LibraryScan:
    """One library's headers: its entries, its HIP code objects already tallied, and the
    problems that stop listing part of it (an unreadable ELF or fatbin section)."""

    path: Path
    source: str
    items: list[Item] = field(default_factory=list)
    hip: Tally = field(default_factory=Tally)
    problems: list[str] = field(default_factory=list)
    fault: bool = False  # an entry would stop the sequential reader: read it that way


def scan_kernel_library(path: Path, source: str, digests: bool = False) -> LibraryScan:
    """The entries and HIP code objects of the library at ``path`` (see the module text);
    ``digests`` hashes each HIP function (identical copies, :attr:`Tally.same`)."""
    scan = LibraryScan(path, source)
    try:
        with path.open("rb") as stream:
            reader = container_reader(stream)  # a kpack, a DLL or a .fatbin: read here
            if reader is not None:
                try:
                    for number, code in enumerate(reader(stream, source, digests)):
                        scan.hip.add(code.arch, code.functions, number, code.functions.problems)
                except (WheelSizeError, *STRAY_ERRORS) as exc:
                    scan.problems.append(f"{exc}; its kernels are not listed")
                return scan
            try:
                elf = ElfImage(stream, source)
            except (WheelSizeError, *STRAY_ERRORS) as exc:
                scan.problems.append(f"{exc}; its kernels are not listed")
                return scan
            try:
                scan.items = _items(stream, elf, source)
            except (WheelSizeError, *STRAY_ERRORS) as exc:
                scan.fault = isinstance(exc, _Late)
                if not scan.fault:
                    scan.problems.append(f"{exc}; its kernels are not listed")
            if scan.fault:
                return scan
            try:
                # a standalone cubin / code object is tallied here with the HIP code objects:
                # read whole, once, like them
                for number, code in enumerate(
                    [
                        *standalone_code_objects(stream, elf, source, digests),
                        *hip_code_objects(stream, elf, source, digests),
                    ]
                ):
                    scan.hip.add(code.arch, code.functions, number, code.functions.problems)
            except (WheelSizeError, *STRAY_ERRORS) as exc:
                scan.problems.append(f"{exc}; its kernels are not listed")
    except OSError:
        scan.fault = True  # the sequential reader words it
    return scan


class _Late(WheelSizeError):
    """An entry the sequential reader would stop at after listing the ones before it."""


def _items(stream: IO[bytes], elf: ElfImage, source: str) -> list[Item]:
    sections = {s.name: s for s in elf.sections}
    found = scan_cuda_sections(stream, source=source, elf=elf)
    items: list[Item] = []
    for entry in found:
        if entry.entry.image not in _KINDS:
            continue
        try:
            ref = image_ref(entry, sections[entry.section], source)
        except (WheelSizeError, *STRAY_ERRORS) as exc:
            raise _Late(str(exc)) from None
        items.append(Item(len(items), ref))
    return items


@dataclass(frozen=True)
class Chunk:
    """A run of one library pair's entries: read from the old file, the new file or, for
    an entry both hold with the same header, once for both (when the bytes agree)."""

    pair: int
    index: int
    old: tuple[Path, str] | None
    new: tuple[Path, str] | None
    work: tuple[tuple[Item | None, Item | None], ...]
    # note every function's (arch, name, bytes, entry) of the new side in ``Tally.spots``:
    # its identical copies are then found by hashing only what shares a name and size
    # (kernels.copies); the old side's are shown nowhere, so not looked for
    digests: bool = False
    # the largest LZ4 entry of the library pair: a worker's buffer grows once per pair
    # (a new largest), not once per new largest entry (BlockDecoder.reserve)
    room: int = 0


@dataclass
class ChunkResult:
    pair: int
    index: int
    old: Tally = field(default_factory=Tally)
    new: Tally = field(default_factory=Tally)
    fault: bool = False
    shared: int = 0  # entries decoded once for both sides


def plan_kernel_chunks(
    pair: int,
    old: LibraryScan | None,
    new: LibraryScan | None,
    limit: int = CHUNK_BYTES,
    digests: bool = False,
) -> list[Chunk]:
    """The entries of a library pair cut into chunks of about ``limit`` decoded bytes;
    an old and a new entry with the same header (in file order) are one piece of work."""
    waiting: dict[tuple[int, ...], deque[Item]] = defaultdict(deque)
    for item in old.items if old else []:
        waiting[item.ref.key].append(item)
    work: list[tuple[Item | None, Item | None]] = []
    for item in new.items if new else []:
        twins = waiting.get(item.ref.key)
        work.append((twins.popleft() if twins else None, item))
    matched = {id(a) for a, _b in work if a is not None}
    work.extend((item, None) for item in (old.items if old else []) if id(item) not in matched)
    old_file = (old.path, old.source) if old else None
    new_file = (new.path, new.source) if new else None
    room = max(lz4_sizes(item for piece in work for item in piece if item is not None), default=0)
    chunks: list[Chunk] = []
    run: list[tuple[Item | None, Item | None]] = []
    size = 0
    for piece in work:
        run.append(piece)
        size += _size(piece)
        if size >= limit:
            chunks.append(Chunk(pair, len(chunks), old_file, new_file, tuple(run), digests, room))
            run, size = [], 0
    if run:
        chunks.append(Chunk(pair, len(chunks), old_file, new_file, tuple(run), digests, room))
    return chunks


def _size(piece: tuple[Item | None, Item | None]) -> int:
    item = piece[1] or piece[0]
    assert item is not None
    return max(item.ref.entry.decompressed_size, item.ref.length)


def entry_where(item: Item, source: str) -> str:
    """How problems name one entry (``#n``: its number among the library's)."""
    entry = item.ref.entry
    return f"{source}: {item.ref.section} {entry.image} {entry.arch} #{item.number}"


def entry_functions(
    item: Item, raw: bytes, where: str, lz4: BlockDecoder, only: Wanted | None = None
) -> tuple[str, CodeObjectFunctions]:
    """The architecture and functions of one entry from its stored bytes ``raw``; with
    ``only``, the functions whose ``(name, size)`` it holds are hashed."""
    entry = item.ref.entry
    data = load_image(item.ref, raw, lz4)
    digests = only is not None
    if entry.image == "ptx":
        arch = entry.arch.replace("sm_", "compute_", 1)
        return arch, ptx_functions(bytes(data), where, digests=digests, only=only)
    return entry.arch, elf_functions(data, where, digests=digests, only=only)


def lz4_sizes(items: Iterable[Item]) -> Iterator[int]:
    """The decoded sizes of the LZ4 entries among ``items`` that would be decoded (for
    :meth:`BlockDecoder.reserve`; one over the code-object limit is refused unread)."""
    for item in items:
        entry = item.ref.entry
        if entry.flags & _CODECS == FLAG_LZ4 and entry.decompressed_size <= MAX_CODE_OBJECT:
            yield entry.decompressed_size


def read_payload(fd: int, ref: ImageRef) -> bytes:
    """The stored bytes of one entry (a file that ends inside them is a fault)."""
    data = os.pread(fd, ref.length, ref.start)
    if len(data) != ref.length:
        raise _Late(f"{ref.where}: the file ends inside the payload")
    return data


def _retag(problems: list[str], old: str, new: str) -> list[str]:
    """Problems of an entry decoded for the old side, worded for the new one."""
    return [new + text[len(old) :] if text.startswith(old) else text for text in problems]


def read_chunk(chunk: Chunk) -> ChunkResult:
    """The functions of every entry of ``chunk``, tallied per side."""
    result = ChunkResult(chunk.pair, chunk.index)
    if chunk.digests:  # the new side's: only its copies are shown (``diff --by kernel``)
        result.new.spots = []
    lz4 = DECODER
    lz4.reserve([chunk.room])
    try:
        with open_side(chunk.old) as old_fd, open_side(chunk.new) as new_fd:
            for a, b in chunk.work:
                _one(result, chunk, a, b, old_fd, new_fd, lz4)
    except (WheelSizeError, OSError, *STRAY_ERRORS):
        result.fault = True
        result.old, result.new = Tally(), Tally()
    return result


def _one(
    result: ChunkResult,
    chunk: Chunk,
    a: Item | None,
    b: Item | None,
    old_fd: int,
    new_fd: int,
    lz4: BlockDecoder,
) -> None:
    raw_a = read_payload(old_fd, a.ref) if a else None
    raw_b = read_payload(new_fd, b.ref) if b else None
    if a is not None and raw_a is not None and chunk.old is not None:
        where = entry_where(a, chunk.old[1])
        arch, found = entry_functions(a, raw_a, where, lz4)
        result.old.add(arch, found, a.number, found.problems)
        if b is not None and raw_b == raw_a and chunk.new is not None:
            problems = _retag(found.problems, where, entry_where(b, chunk.new[1]))
            result.new.add(arch, found, b.number, problems)
            result.shared += 1
            return
    if b is not None and raw_b is not None and chunk.new is not None:
        arch, found = entry_functions(b, raw_b, entry_where(b, chunk.new[1]), lz4)
        result.new.add(arch, found, b.number, found.problems)


class open_side:  # noqa: N801 - a context manager used like open()
    """A read-only descriptor for one side's library, or -1 when the side has none."""

    def __init__(self, file: tuple[Path, str] | None) -> None:
        self._path = file[0] if file else None
        self._fd = -1

    def __enter__(self) -> int:
        if self._path is not None:
            self._fd = os.open(self._path, os.O_RDONLY)
        return self._fd

    def __exit__(self, *exc: object) -> None:
        if self._fd >= 0:
            os.close(self._fd)

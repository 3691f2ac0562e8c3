"""The old side of a library pair decoded as it is inflated, its device code never written.

``diff --by kernel|family`` inflates each changed library to a temporary file because its
section headers come last; for libtorch_cuda.so the fatbin is 914 of 975 MB, and writing
it into new page-cache pages costs this VM ~1 CPU-s per GB that no floor pays
(docs/benchmarks.md, "Kernel diff, sixth pass"). Both versions are inflated at once, in
two processes:

* the new side is written whole, as before (``diff --by kernel`` decodes its entries a
  second time to hash identical copies), and as its SASS/PTX entry headers stream past
  (:class:`~wheel_size.kernels.fatstream.FatbinFollower`) it appends each one's header
  key and place to an :class:`EntryLog`;
* the old side's entries are decoded as they stream past (:class:`StreamReader`) and
  left out of its file; an entry whose header key matches one the new side has logged,
  and whose stored bytes equal that one's (read back from the new file once written
  there, compared byte for byte), is counted for both sides, decoded once, as
  :func:`~wheel_size.kernels.work.read_chunk` does for twins. An old entry met before
  its twin was logged is decoded for the old side only, and its twin later on its own.

Nothing counts until it is confirmed: the old side's entries against the section reader's
scan of the file the stream left (:meth:`StreamReader.confirm`), the new entries it counted
against the new side's scan (:func:`confirm_twins`). A disagreement means reading the
library the ordinary way.
"""

from __future__ import annotations

import os
import struct
import time
from collections import defaultdict, deque
from dataclasses import dataclass, replace
from pathlib import Path

from wheel_size.cuda.images import ImageRef
from wheel_size.cuda.lz4block import BlockDecoder
from wheel_size.errors import WheelSizeError
from wheel_size.kernels.fatstream import FatbinFollower, StreamEntry
from wheel_size.kernels.library import STRAY_ERRORS
from wheel_size.kernels.work import (
    Item,
    LibraryScan,
    Tally,
    _retag,
    entry_functions,
    entry_where,
)

__all__ = [
    "STREAM_LIMIT",
    "EntryLog",
    "StreamReader",
    "StreamResult",
    "confirm_twins",
]

# Stored bytes of the largest entry decoded as it streams past: a bigger one (or a forged
# header claiming one) is written to the file and left to the chunks.
STREAM_LIMIT = 64 << 20
_SECTION = ".nv_fatbin"
# number, kind, sm, flags, decompressed size, start, length; a number of -1 ends the log
_RECORD = struct.Struct("<q6Q")
_END = -1
_PATIENCE = 60.0  # seconds without the new file growing before a twin is given up
_DECODER = BlockDecoder()
Key = tuple[int, int, int, int, int]


def _key(found: StreamEntry) -> Key:
    """``ImageRef.key`` of the entry."""
    entry = found.entry
    return (entry.kind, entry.sm, entry.flags, entry.decompressed_size, found.length)


class EntryLog:
    """The new side's SASS/PTX entry headers as its bytes stream past, appended to a small
    file the old side reads (:class:`StreamReader`); ended by a record of number -1, also
    when the scan fails. Entries inside ``holes`` (machine code left out of the file)
    are not logged: their bytes are never written."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.holes: list[tuple[int, int]] = []  # set by the caller before the first block
        self.follower = FatbinFollower(self._log, lambda _found, _raw: None)

    def _log(self, found: StreamEntry) -> bool:
        start, stop = found.start, found.start + found.length
        if found.length <= STREAM_LIMIT and not any(start < b and a < stop for a, b in self.holes):
            entry = found.entry
            record = _RECORD.pack(
                found.number, entry.kind, entry.sm, entry.flags, entry.decompressed_size,
                found.start, found.length,
            )  # fmt: skip
            os.write(self._fd, record)
        return False  # the new side's bytes are written, not taken

    def close(self) -> None:
        os.write(self._fd, _RECORD.pack(_END, 0, 0, 0, 0, 0, 0))
        os.close(self._fd)


class _Twins:
    """The old side's view of an :class:`EntryLog` and the new file it describes."""

    def __init__(self, log: Path, data: Path) -> None:
        self._log = os.open(log, os.O_RDONLY | os.O_CREAT, 0o600)
        self._data = os.open(data, os.O_RDONLY | os.O_CREAT, 0o600)
        self._read = 0
        self._left = b""
        self.ended = False
        self._by_key: defaultdict[Key, deque[tuple[int, int, int]]] = defaultdict(deque)

    def close(self) -> None:
        os.close(self._log)
        os.close(self._data)

    def _poll(self) -> None:
        while not self.ended:
            got = os.pread(self._log, 1 << 16, self._read)
            if not got:
                return
            self._read += len(got)
            data = self._left + got
            whole = len(data) - len(data) % _RECORD.size
            self._left = data[whole:]
            for number, kind, sm, flags, size, start, length in _RECORD.iter_unpack(data[:whole]):
                if number == _END:
                    self.ended = True
                    break
                self._by_key[(kind, sm, flags, size, length)].append((number, start, length))

    def match(self, key: Key, raw: bytes) -> tuple[int, int, int] | None:
        """The first logged new entry with header ``key`` and the bytes ``raw`` (taken:
        no other old entry is matched with it), or None."""
        self._poll()
        waiting = self._by_key.get(key)
        if not waiting:
            return None
        for index, (number, start, length) in enumerate(waiting):
            if self._written(start + length) and os.pread(self._data, length, start) == raw:
                del waiting[index]
                return number, start, length
        return None

    def _written(self, end: int) -> bool:
        """Wait until the new file holds its first ``end`` bytes (it is written in order)."""
        last, since = -1, time.monotonic()
        while True:
            size = os.fstat(self._data).st_size
            if size >= end:
                return True
            self._poll()
            if self.ended and os.fstat(self._data).st_size < end:
                return False
            if size != last:
                last, since = size, time.monotonic()
            elif time.monotonic() - since > _PATIENCE:
                return False
            time.sleep(0.001)


@dataclass
class StreamResult:
    """What :class:`StreamReader` decoded while the old side streamed past: both sides'
    tallies of those entries (a chunk's), the old entries decoded (left out of its
    file), and the new entries counted with them, each with its place (``start``,
    ``length``) and header key as logged, for :func:`confirm_twins`."""

    old: Tally
    new: Tally
    old_done: frozenset[int]
    new_done: dict[int, tuple[int, int, Key]]


class StreamReader:
    """Decodes the old side's SASS/PTX entries as they stream past; see the module text.
    ``twins``: the new side's :class:`EntryLog` and file, when the pair has a new side;
    ``digests``: the new side's spots are noted (``kernels.copies``), as a chunk does."""

    def __init__(
        self, source: str, new_source: str, twins: tuple[Path, Path] | None, digests: bool
    ) -> None:
        self._source, self._new_source = source, new_source
        self._twins = _Twins(*twins) if twins is not None else None
        self._wanted = 0
        self.failed = False
        self.old, self.new = Tally(), Tally()
        if digests:
            self.new.spots = []
        self._done: dict[int, StreamEntry] = {}
        self._shared: dict[int, tuple[int, int, Key]] = {}
        self.follower = FatbinFollower(self._want, self._take)

    def close(self) -> None:
        if self._twins is not None:
            self._twins.close()
            self._twins = None

    def _want(self, found: StreamEntry) -> bool:
        if found.length > STREAM_LIMIT or self.failed:
            return False
        self._wanted += 1
        return True

    def _take(self, found: StreamEntry, raw: bytes) -> None:
        try:
            ref = ImageRef(_SECTION, found.entry, found.start, found.length, self._source)
            item = Item(found.number, ref)
            where = entry_where(item, self._source)
            arch, functions = entry_functions(item, raw, where, _DECODER)
            self.old.add(arch, functions, item.number, functions.problems)
            key = _key(found)
            twin = self._twins.match(key, raw) if self._twins is not None else None
            if twin is not None:
                number, start, length = twin
                other = Item(number, ImageRef(_SECTION, found.entry, start, length, ""))
                problems = _retag(functions.problems, where, entry_where(other, self._new_source))
                self.new.add(arch, functions, number, problems)
                self._shared[number] = (start, length, key)
            self._done[found.number] = found
        except (WheelSizeError, OSError, *STRAY_ERRORS):
            self.failed = True  # the file is inflated again, whole, and read as before
            self.follower.stop()

    @property
    def used(self) -> bool:
        """Whether any entry was left out of the file."""
        return self._wanted > 0

    def confirm(self, scan: LibraryScan) -> StreamResult | None:
        """The decoded entries, if the section reader's ``scan`` of the file the stream
        left lists each one with the same number, section, place, size and header; None
        (read the library the ordinary way) otherwise."""
        if self.failed or scan.fault or scan.problems or self._wanted != len(self._done):
            return None
        items = scan.items
        for number, found in self._done.items():
            if number >= len(items) or not _same(items[number].ref, found):
                return None
        return StreamResult(self.old, self.new, frozenset(self._done), self._shared)


def _same(ref: ImageRef, found: StreamEntry) -> bool:
    entry = replace(ref.entry, container=-1, offset=-1)
    return (
        entry == found.entry
        and ref.section == _SECTION
        and (ref.start, ref.length) == (found.start, found.length)
    )


def confirm_twins(result: StreamResult, new: LibraryScan) -> bool:
    """Whether every new entry ``result`` counted is, in the new side's scan, the entry
    at the place and with the header key the log gave (so the bytes compared were its)."""
    items = new.items
    for number, (start, length, key) in result.new_done.items():
        if number >= len(items):
            return False
        ref = items[number].ref
        if ref.section != _SECTION or (ref.start, ref.length, ref.key) != (start, length, key):
            return False
    return True

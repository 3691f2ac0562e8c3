"""The fatbin entries of a library as its inflated bytes stream past, before its section
headers (which come last) say where its ``.nv_fatbin`` lies.

``diff --by kernel|family`` inflates each changed library to a temporary file; for
libtorch_cuda.so the fatbin is 914 of its 975 MB, and writing those bytes into new
page-cache pages cost this VM ~1 CPU-s per GB (docs/benchmarks.md, "Kernel diff, sixth
pass"). :class:`FatbinFollower` finds fatbin containers in the stream by their header
(magic ``0xBA55ED50``, version 1, a 16-byte header), walks their entries as
:mod:`wheel_size.cuda.fatbin` does, and hands each SASS/PTX payload it is asked for to its
caller whole, so the caller can decode it there and leave its bytes out of the file.

What it finds is a guess until the section headers confirm it: a container header can be
forged by any bytes, and a library may hold fatbins outside ``.nv_fatbin``. The caller
checks every entry it used against the section reader's list (same number, place, size
and header) and reads the library the ordinary way when one disagrees.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Generator
from dataclasses import dataclass

from wheel_size.cuda.fatbin import (
    CONTAINER_MAGIC,
    FLAG_LZ4,
    FLAG_ZSTD,
    KIND_ELF,
    KIND_PTX,
    FatbinEntry,
)

__all__ = ["FatbinFollower", "StreamEntry"]

_MAGIC = struct.pack("<IHH", CONTAINER_MAGIC, 1, 16)  # magic, version 1, 16-byte header
_ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")  # cuda.fatbin's entry header
_MAX_HEADER = 1 << 16
_FIND, _TAKE, _SKIP = 0, 1, 2
_Request = tuple[int, int]


@dataclass(frozen=True)
class StreamEntry:
    """A SASS/PTX entry met in the stream: its number among such entries (in stream
    order), its header (``container`` and ``offset`` unknown: -1), and where its stored
    bytes lie in the file (``start``, ``length``: what ``image_ref`` would say)."""

    number: int
    entry: FatbinEntry
    start: int
    length: int


class FatbinFollower:
    """Feed it the inflated bytes in order (:meth:`feed`); it calls ``wanted`` for every
    SASS/PTX entry header it meets and, when that says yes, ``take`` with the entry's
    stored bytes once they are all in. :meth:`feed` returns the byte ranges of the
    payloads it was asked for that it learned of in that call (``[start, stop)``): a
    payload's range is known before any of its bytes are fed."""

    def __init__(
        self,
        wanted: Callable[[StreamEntry], bool],
        take: Callable[[StreamEntry, bytes], None],
    ) -> None:
        self._wanted = wanted
        self._take = take
        self._count = 0
        self._parser = self._parse()
        self._request: _Request = next(self._parser)
        self._parts: list[bytes] = []
        self._have = 0
        self._carry = b""  # the last bytes of the previous block, while searching
        self._holes: list[tuple[int, int]] = []
        self.stopped = False

    def stop(self) -> None:
        """Follow nothing more (the caller gave up on this stream)."""
        self.stopped = True

    def feed(self, block: bytes, at: int) -> list[tuple[int, int]]:
        """Consume ``block`` (file offset ``at``); the new payload ranges wanted."""
        self._holes = []
        pos, size = 0, len(block)
        while pos < size and not self.stopped:
            kind, count = self._request
            if kind == _FIND:
                found = self._find(block, at, pos)
                if found < 0:
                    self._carry = (self._carry + block[-7:])[-7:]
                    break
                self._carry = b""
                pos = max(found + len(_MAGIC) - at, 0)
                self._request = self._parser.send(found)
            elif kind == _SKIP:
                step = min(count, size - pos)
                pos += step
                if step == count:
                    self._request = self._parser.send(None)
                else:
                    self._request = (_SKIP, count - step)
            else:
                step = min(count - self._have, size - pos)
                self._parts.append(block[pos : pos + step])
                self._have += step
                pos += step
                if self._have == count:
                    data = self._parts[0] if len(self._parts) == 1 else b"".join(self._parts)
                    self._parts, self._have = [], 0
                    self._request = self._parser.send(data)
        return self._holes

    def _find(self, block: bytes, at: int, pos: int) -> int:
        """The file offset of the next container header from ``pos``, or -1."""
        if self._carry:
            joined = self._carry + block[: len(_MAGIC) - 1]
            hit = joined.find(_MAGIC)
            if hit >= 0:
                return at - len(self._carry) + hit
        hit = block.find(_MAGIC, pos)
        return at + hit if hit >= 0 else -1

    def _parse(self) -> Generator[_Request, object, None]:
        while True:
            start = yield (_FIND, 0)
            assert isinstance(start, int)
            raw = yield (_TAKE, 8)
            assert isinstance(raw, bytes)
            end = start + 16 + int.from_bytes(raw, "little")
            at = start + 16
            while end - at >= _ENTRY.size:
                head = yield (_TAKE, _ENTRY.size)
                assert isinstance(head, bytes)
                after = yield from self._entry(head, at, end)
                if after is None:
                    break  # not a header cuda.fatbin would accept: look for the next magic
                at = after

    def _entry(self, head: bytes, at: int, end: int) -> Generator[_Request, object, int | None]:
        """One entry from its 64 header bytes at ``at``: the offset after it, or None."""
        fields = _ENTRY.unpack(head)
        kind, _unknown, header_size, payload_size, compressed_size = fields[:5]
        minor, major, sm, ident_offset, ident_length, flags = fields[6:12]
        decompressed = fields[13]
        if not _ENTRY.size <= header_size <= _MAX_HEADER:
            return None
        stop = at + header_size + payload_size
        if stop > end or (flags & (FLAG_LZ4 | FLAG_ZSTD) and compressed_size > payload_size):
            return None
        extension = b""
        if header_size > _ENTRY.size:
            got = yield (_TAKE, header_size - _ENTRY.size)
            assert isinstance(got, bytes)
            extension = got
        identifier = None
        inside = ident_offset + ident_length <= header_size
        if ident_length and _ENTRY.size <= ident_offset and inside:
            begin = ident_offset - _ENTRY.size
            text = extension[begin : begin + ident_length].split(b"\0", 1)[0]
            identifier = text.decode("utf-8", "replace")
        rest = payload_size
        if kind in (KIND_ELF, KIND_PTX):
            compressed = flags & (FLAG_LZ4 | FLAG_ZSTD)
            entry = FatbinEntry(
                -1, -1, kind, header_size, payload_size, compressed_size, decompressed,
                sm, flags, (major, minor), identifier,
            )  # fmt: skip
            length = compressed_size if compressed else payload_size
            found = StreamEntry(self._count, entry, at + header_size, length)
            self._count += 1
            if not self.stopped and self._wanted(found):
                self._holes.append((found.start, found.start + length))
                data = yield (_TAKE, length)
                assert isinstance(data, bytes)
                if not self.stopped:
                    self._take(found, data)
                rest -= length
        if rest:
            yield (_SKIP, rest)
        return stop

"""Uncompressed clang offload bundles (``__CLANG_OFFLOAD_BUNDLE__``, spec section 2.1).

Layout, little-endian: 24-byte magic, u64 entry count, then per entry u64 offset (from the
bundle start), u64 size, u64 ID length and the ID bytes; the code objects follow.  The
header is read through a ``read(n)`` callable so the same code serves a bundle lying in a
file and one coming out of a decompressor; every count and size is checked against the
bytes that can exist before anything is read or allocated, and against the limits of
:mod:`wheel_size.rocm.limits` (entries, ID length, code-object size); code objects are
handed out in chunks so none is ever held whole.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from wheel_size.errors import InvalidBundle
from wheel_size.rocm.limits import CHUNK, MAX_BUNDLE_ENTRIES, MAX_CODE_OBJECT, MAX_ENTRY_ID
from wheel_size.rocm.target_id import EntryId, parse_entry_id

__all__ = [
    "MAGIC",
    "MAX_CODE_OBJECT",
    "BundleEntry",
    "Chunks",
    "PlainBundleHeader",
    "build_plain_bundle",
    "iter_entry_chunks",
    "iter_entry_data",
    "parse_plain_bundle",
    "read_exact",
    "read_plain_header",
]

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
_FIXED = len(MAGIC) + 8  # magic + entry count
_ENTRY_FIXED = 24  # offset, size, ID length
_SKIP_CHUNK = CHUNK

Reader = Callable[[int], bytes]


@dataclass(frozen=True)
class BundleEntry:
    """One entry: where its bytes are (relative to the bundle start) and what it is."""

    offset: int
    size: int
    entry_id: EntryId


@dataclass(frozen=True)
class PlainBundleHeader:
    entries: tuple[BundleEntry, ...]
    header_size: int

    @property
    def end(self) -> int:
        """Bytes the bundle occupies: the end of its last entry (padding not included)."""
        return max([self.header_size, *(e.offset + e.size for e in self.entries)])

    def device_entries(self) -> list[BundleEntry]:
        """Entries with device code, in file order (host entries dropped)."""
        return sorted((e for e in self.entries if not e.entry_id.is_host), key=_file_order)


def _file_order(entry: BundleEntry) -> tuple[int, int]:
    return (entry.offset, entry.size)


def read_exact(read: Reader, size: int, where: str, what: str) -> bytes:
    """``size`` bytes from ``read`` or InvalidBundle saying what was truncated."""
    data = read(size)
    if len(data) != size:
        raise InvalidBundle(f"{where}: truncated {what} (wanted {size} bytes, got {len(data)})")
    return data


def read_plain_header(read: Reader, limit: int, where: str) -> PlainBundleHeader:
    """Parse a bundle header from ``read``; ``limit`` is how many bytes the bundle can span.

    Raises InvalidBundle when the magic is wrong, the header is truncated, an entry lies
    beyond ``limit``, overlaps the header or another entry, or an ID repeats.
    """
    head = read_exact(read, min(_FIXED, limit), where, "offload bundle header")
    if head[: len(MAGIC)] != MAGIC:
        raise InvalidBundle(f"{where}: not an offload bundle (bad magic {head[:8]!r})")
    if len(head) < _FIXED:
        raise InvalidBundle(f"{where}: truncated offload bundle header")
    (count,) = struct.unpack_from("<Q", head, len(MAGIC))
    if count > (limit - _FIXED) // _ENTRY_FIXED:
        raise InvalidBundle(
            f"{where}: offload bundle claims {count} entries, more than its {limit} bytes can hold"
        )
    if count > MAX_BUNDLE_ENTRIES:
        raise InvalidBundle(
            f"{where}: offload bundle claims {count} entries, over the limit of "
            f"{MAX_BUNDLE_ENTRIES}"
        )
    pos = _FIXED
    raw: list[tuple[int, int, str]] = []
    for index in range(count):
        fixed = read_exact(read, _ENTRY_FIXED, where, f"offload bundle entry {index}")
        offset, size, id_len = struct.unpack("<QQQ", fixed)
        pos += _ENTRY_FIXED
        if id_len == 0 or id_len > limit - pos or id_len > MAX_ENTRY_ID:
            raise InvalidBundle(f"{where}: offload bundle entry {index} has ID length {id_len}")
        id_bytes = read_exact(read, id_len, where, f"offload bundle entry {index} ID")
        pos += id_len
        try:
            text = id_bytes.decode("ascii")
        except UnicodeDecodeError:
            raise InvalidBundle(f"{where}: offload bundle entry {index} ID is not ASCII") from None
        if offset > limit or size > limit - offset:
            raise InvalidBundle(
                f"{where}: offload bundle entry {text} (offset {offset}, size {size}) "
                f"lies beyond the bundle's {limit} bytes"
            )
        raw.append((offset, size, text))
    header_size = pos
    entries = []
    seen: set[str] = set()
    for offset, size, text in raw:
        if text in seen:
            raise InvalidBundle(f"{where}: offload bundle entry {text} appears twice")
        seen.add(text)
        if size and offset < header_size:
            raise InvalidBundle(f"{where}: offload bundle entry {text} overlaps the header")
        entries.append(BundleEntry(offset=offset, size=size, entry_id=parse_entry_id(text)))
    last_end = 0
    for entry in sorted(entries, key=_file_order):
        if entry.size == 0:
            continue
        if entry.offset < last_end:
            raise InvalidBundle(
                f"{where}: offload bundle entry {entry.entry_id.text} overlaps another"
            )
        last_end = entry.offset + entry.size
    return PlainBundleHeader(entries=tuple(entries), header_size=header_size)


class Chunks:
    """The bytes of one code object read sequentially in chunks of at most ``CHUNK``; an
    iterator.  :meth:`drain` skips what the consumer left, so the next entry starts where
    it should in a stream that cannot seek."""

    def __init__(self, read: Reader, size: int, where: str, what: str) -> None:
        self._read = read
        self._left = size
        self._where = where
        self._what = what

    def __iter__(self) -> Chunks:
        return self

    def __next__(self) -> bytes:
        if not self._left:
            raise StopIteration
        data = read_exact(self._read, min(CHUNK, self._left), self._where, self._what)
        self._left -= len(data)
        return data

    def drain(self) -> None:
        for _chunk in self:
            pass


def iter_entry_chunks(
    read: Reader, header: PlainBundleHeader, where: str
) -> Iterator[tuple[BundleEntry, Chunks]]:
    """Device entries and their bytes as :class:`Chunks`, read sequentially after the header
    (file order), for bundles that come out of a decompressor.  Memory is one chunk
    whatever size an entry claims."""
    pos = header.header_size
    for entry in header.device_entries():
        gap = entry.offset - pos
        while gap > 0:
            got = len(read_exact(read, min(gap, _SKIP_CHUNK), where, "offload bundle"))
            gap -= got
        if entry.size > MAX_CODE_OBJECT:
            raise InvalidBundle(
                f"{where}: code object {entry.entry_id.text} claims {entry.size} bytes, "
                f"over the {MAX_CODE_OBJECT >> 20} MiB limit for one code object"
            )
        chunks = Chunks(read, entry.size, where, f"code object {entry.entry_id.text}")
        yield entry, chunks
        chunks.drain()
        pos = entry.offset + entry.size


def iter_entry_data(
    read: Reader, header: PlainBundleHeader, where: str
) -> Iterator[tuple[BundleEntry, bytes]]:
    """Device entries and their bytes, whole (tests and small inputs; split streams with
    :func:`iter_entry_chunks`)."""
    for entry, chunks in iter_entry_chunks(read, header, where):
        yield entry, b"".join(chunks)


def parse_plain_bundle(data: bytes, where: str = "offload bundle") -> PlainBundleHeader:
    """Parse the header of a whole bundle held in memory (tests, small inputs)."""
    view = memoryview(data)
    pos = 0

    def read(n: int) -> bytes:
        nonlocal pos
        chunk = bytes(view[pos : pos + n])
        pos += len(chunk)
        return chunk

    return read_plain_header(read, len(data), where)


def build_plain_bundle(entries: list[tuple[str, bytes]], alignment: int = 4096) -> bytes:
    """Write a bundle the way clang does: header, then each entry at the next multiple of
    ``alignment`` (size-0 entries share the offset of the next one).  For tests and tools."""
    header_size = _FIXED + sum(_ENTRY_FIXED + len(eid.encode()) for eid, _ in entries)
    offsets = []
    pos = header_size
    for _eid, blob in entries:
        pos = -(-pos // alignment) * alignment
        offsets.append(pos)
        pos += len(blob)
    out = bytearray(MAGIC + struct.pack("<Q", len(entries)))
    for (eid, blob), off in zip(entries, offsets, strict=True):
        raw = eid.encode()
        out += struct.pack("<QQQ", off, len(blob), len(raw)) + raw
    for (_eid, blob), off in zip(entries, offsets, strict=True):
        if blob:
            out += bytes(off - len(out))
            out += blob
    return bytes(out)

"""A stored zip member read where it lies in the wheel, instead of copied out first.

A stored member's bytes are its content: the split's scan and apply can read a library at
its data offset in the wheel as they read an inflated copy. The copy cost as much as the
split's whole floor on a wheel of stored members (a 537 MB write of pages the split reads
straight back; issue #30, "Bad input"). Only a member that would copy cleanly is read in
place: stored, its sizes equal, inside the file and its CRC-32 right (checked in one pass,
as the copy checks it). Anything else takes the copy, so a lying or corrupt member fails
with the same error as before.
"""

from __future__ import annotations

import io
import mmap
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

from wheel_size.wheel import deflate
from wheel_size.wheel.archive import STORED, RawData, open_regular

__all__ = ["InPlace", "RangeFile", "stored_in_place"]

_READ = 4 << 20  # bytes read at a time for the CRC pass, where the file cannot be mapped
_WINDOW = 4 << 20  # bytes mapped at a time for the CRC pass (mapped pages count as memory)


@dataclass(frozen=True)
class InPlace:
    """``size`` bytes at ``offset`` of ``path``: a library's content inside the wheel.
    Opens like a path (:meth:`open`), so the scan and the apply read it as they read a copy."""

    path: Path
    offset: int
    size: int

    def open(self, mode: str = "rb") -> BinaryIO:
        if mode != "rb":
            raise ValueError(f"{self}: read-only (mode {mode!r})")
        return cast("BinaryIO", RangeFile(self.path, self.offset, self.size))

    def __str__(self) -> str:
        return f"{self.path}@{self.offset}+{self.size}"


class RangeFile(io.RawIOBase):
    """A read-only, seekable file over ``[offset, offset + size)`` of ``path``. It is a
    ``rocm.source.ByteSource`` too (``size``, ``pread``), so parsers read it with ``pread``
    at their own offsets; it has no ``fileno``: the descriptor is the whole wheel's."""

    def __init__(self, path: Path, offset: int, size: int) -> None:
        super().__init__()
        self._fd = open_regular(path)
        self._start = offset
        self._size = size
        self._pos = 0

    @property
    def size(self) -> int:
        return self._size

    def pread(self, offset: int, size: int) -> bytes:
        """Up to ``size`` bytes at ``offset`` of the member (fewer only at its end)."""
        size = max(0, min(size, self._size - offset))
        parts = []
        while size > 0:
            chunk = os.pread(self._fd, size, self._start + offset)
            if not chunk:
                break
            parts.append(chunk)
            offset += len(chunk)
            size -= len(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(base + offset, 0)
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = self._size - self._pos
        data = self.pread(self._pos, size)
        self._pos += len(data)
        return data

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


def stored_in_place(raw: RawData) -> InPlace | None:
    """The member ``raw`` as an :class:`InPlace` when it is stored and reads back whole with
    the CRC-32 its headers declare; None otherwise (the caller copies it out, and the copy
    raises whatever is wrong with it)."""
    if raw.method != STORED or raw.compressed_size != raw.size:
        return None
    fd = open_regular(raw.path)
    try:
        if os.fstat(fd).st_size < raw.offset + raw.size:
            return None
        crc = _crc(fd, raw.offset, raw.offset + raw.size)
    finally:
        os.close(fd)
    if crc != raw.crc32:
        return None
    return InPlace(raw.path, raw.offset, raw.size)


def _crc(fd: int, start: int, end: int, window: int = _WINDOW) -> int | None:
    """CRC-32 of ``[start, end)`` of ``fd`` (None when it ends early), read through mapped
    windows of ``window`` bytes: the checksum reads the page cache where it lies, with no
    copy into this process (four 134 MB stored members: 0.11-0.13 against 0.17-0.45 CPU-s
    through ``pread``; docs/benchmarks.md, "Split, fifth pass: the per-byte path"). A window
    is unmapped before the next, so the pages it maps count against memory one window at
    a time. A file that cannot be mapped is read with ``pread``, and so is anything past
    the file's end when this started (a page mapped past it could not be read)."""
    crc, at = 0, start
    populate = getattr(mmap, "MAP_POPULATE", 0)
    mapped = min(end, os.fstat(fd).st_size)
    while at < mapped:
        base = at - at % mmap.ALLOCATIONGRANULARITY
        length = min(window, mapped - base)
        try:
            mapping = mmap.mmap(
                fd, length, flags=mmap.MAP_SHARED | populate, prot=mmap.PROT_READ, offset=base
            )
        except (OSError, ValueError):
            break
        with mapping, memoryview(mapping) as view, view[at - base :] as part:
            crc = deflate.crc32(part, crc)
        at = base + length
    while at < end:
        chunk = os.pread(fd, min(_READ, end - at), at)
        if not chunk:
            return None
        crc = deflate.crc32(chunk, crc)
        at += len(chunk)
    return crc

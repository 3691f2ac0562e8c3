"""Ranged reads over bytes or an open file, so parsers never hold a whole library.

Reading with ``os.pread`` rather than through an ``mmap`` keeps the resident set small:
pages of a mapped multi-GB library that we touched would count against peak memory.
"""

from __future__ import annotations

import io
import os
from typing import IO, Protocol, TypeAlias

__all__ = ["ByteSource", "RangeReader", "as_source"]


class ByteSource(Protocol):
    """Random access to a finite byte string."""

    @property
    def size(self) -> int: ...

    def pread(self, offset: int, size: int) -> bytes:
        """Up to ``size`` bytes at ``offset`` (fewer only at the end)."""
        ...


class _BytesSource:
    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        self._data = memoryview(data).cast("B")

    @property
    def size(self) -> int:
        return len(self._data)

    def pread(self, offset: int, size: int) -> bytes:
        return bytes(self._data[offset : offset + size])


class _FileSource:
    def __init__(self, fileobj: IO[bytes]) -> None:
        self._file = fileobj
        try:
            self._fd: int | None = fileobj.fileno()
        except (AttributeError, OSError, io.UnsupportedOperation):
            self._fd = None
        fileobj.seek(0, os.SEEK_END)
        self._size = fileobj.tell()

    @property
    def size(self) -> int:
        return self._size

    def pread(self, offset: int, size: int) -> bytes:
        size = max(0, min(size, self._size - offset))
        if size == 0:
            return b""
        if self._fd is not None:
            chunks = []
            while size:
                chunk = os.pread(self._fd, size, offset)
                if not chunk:
                    break
                chunks.append(chunk)
                offset += len(chunk)
                size -= len(chunk)
            return b"".join(chunks)
        self._file.seek(offset)
        return self._file.read(size)


SourceLike: TypeAlias = "bytes | bytearray | memoryview | IO[bytes] | ByteSource"


def as_source(obj: SourceLike) -> ByteSource:
    """Wrap bytes or a seekable binary file (an existing ByteSource passes through)."""
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return _BytesSource(obj)
    if hasattr(obj, "pread") and hasattr(obj, "size"):
        return obj
    return _FileSource(obj)


class RangeReader(io.RawIOBase):
    """A sequential, read-only file over ``[start, end)`` of a source (for decompressors)."""

    def __init__(self, source: ByteSource, start: int, end: int) -> None:
        super().__init__()
        self._source = source
        self._pos = start
        self._end = end

    def readable(self) -> bool:
        return True

    @property
    def position(self) -> int:
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = self._end - self._pos
        size = min(size, self._end - self._pos)
        data = self._source.pread(self._pos, size) if size > 0 else b""
        self._pos += len(data)
        return data

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

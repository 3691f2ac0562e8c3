"""Where a zip's bytes come from: a file, bytes in memory, or ranged reads of a remote blob.

Reading a central directory needs a few slices, not the whole archive; a
:class:`RangeSource` answers exactly those (and counts them, so a test can say how many
reads a measurement cost).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

from wheel_size.errors import InvalidWheel

__all__ = ["BytesRanges", "FileRanges", "RangeSource", "StreamingSource", "chunks"]


@runtime_checkable
class RangeSource(Protocol):
    """``size`` bytes named ``name``; ``read(offset, length)`` returns exactly that slice."""

    @property
    def name(self) -> str: ...

    @property
    def size(self) -> int: ...

    def read(self, offset: int, length: int) -> bytes: ...


@runtime_checkable
class StreamingSource(Protocol):
    """A source that can also hand a long span over in chunks, in one go (one request)."""

    def stream(self, offset: int, length: int, chunk: int) -> Iterator[bytes]: ...


def chunks(source: RangeSource, offset: int, length: int, chunk: int) -> Iterator[bytes]:
    """``length`` bytes from ``offset``, ``chunk`` at a time: streamed when the source can,
    else one read per chunk."""
    if isinstance(source, StreamingSource):
        yield from source.stream(offset, length, chunk)
        return
    done = 0
    while done < length:
        n = min(chunk, length - done)
        yield source.read(offset + done, n)
        done += n


class BytesRanges:
    """A zip held in memory (a tail kept while streaming, a test's archive)."""

    def __init__(self, data: bytes, name: str, *, base: int = 0, size: int | None = None):
        # ``base``: where ``data`` starts in a larger stream of ``size`` bytes (a kept tail)
        self._data = data
        self.name = name
        self._base = base
        self.size = len(data) + base if size is None else size
        self.reads = 0

    def read(self, offset: int, length: int) -> bytes:
        self.reads += 1
        start = offset - self._base
        if start < 0 or offset + length > self.size or start + length > len(self._data):
            raise InvalidWheel(
                f"{self.name}: the central directory lies outside the bytes kept "
                f"({length} bytes at {offset})"
            )
        return self._data[start : start + length]


class FileRanges:
    """A zip on disk (an artifact already downloaded, a wheel)."""

    def __init__(self, path: Path):
        self.name = str(path)
        self._path = path
        self.size = path.stat().st_size
        self.reads = 0

    def read(self, offset: int, length: int) -> bytes:
        self.reads += 1
        with self._path.open("rb") as f:
            data = os.pread(f.fileno(), length, offset)
        if len(data) != length:
            raise InvalidWheel(f"{self.name}: short read at {offset}")
        return data

"""A minimal ZIP writer that can copy a member's compressed bytes verbatim.

``zipfile`` cannot add an already-compressed member, and copying unchanged files is the
whole speed of a wheel splitter: a 1 GB library that does not change is moved with
``copy_file_range`` (no decompress, no recompress, no CRC pass). Entries get fixed
timestamps and Unix modes; ZIP64 records are written only where a size or an offset needs
them, as zipfile and pip expect. A write the file system refuses (full, quota, read-only) is
an OutputError naming the archive; read errors of a source keep their own OSError.
"""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from wheel_size.errors import InvalidWheel
from wheel_size.fileio import output_error
from wheel_size.wheel import deflate
from wheel_size.wheel.archive import RawData

__all__ = ["ZipEntryWriter", "dos_datetime", "source_date_epoch"]

_LOCAL = struct.Struct("<4s5H3L2H")
_CENTRAL = struct.Struct("<4s6H3L5H2L")
_EOCD = struct.Struct("<4s4H2LH")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
_LOCATOR64 = struct.Struct("<4sLQL")
_LIMIT = 0xFFFFFFFF
_DEFLATED = 8
_STORED = 0
_UTF8 = 0x800
_DEFAULT_EPOCH = 315532800  # 1980-01-01T00:00:00Z, the earliest time a zip can hold


def source_date_epoch() -> int:
    """The timestamp of every entry: ``SOURCE_DATE_EPOCH`` if set, else 1980-01-01."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "")
    try:
        return max(int(value), _DEFAULT_EPOCH) if value else _DEFAULT_EPOCH
    except ValueError:
        return _DEFAULT_EPOCH


def dos_datetime(epoch: int) -> tuple[int, int]:
    """(time, date) in MS-DOS format, UTC."""
    t = time.gmtime(epoch)
    dos_date = ((t.tm_year - 1980) << 9) | (t.tm_mon << 5) | t.tm_mday
    dos_time = (t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec // 2)
    return dos_time, dos_date


@dataclass
class _Written:
    name: bytes
    offset: int
    method: int
    crc: int
    compressed_size: int
    size: int
    mode: int


class ZipEntryWriter:
    """Append entries to an unbuffered, seekable binary file; ``finish()`` writes the index."""

    def __init__(
        self, fp: BinaryIO, *, epoch: int | None = None, label: str | os.PathLike[str] | None = None
    ) -> None:
        self._fp = fp
        self._label = str(label if label is not None else getattr(fp, "name", "zip archive"))
        self._pos = fp.tell()
        self._entries: list[_Written] = []
        self._time, self._date = dos_datetime(source_date_epoch() if epoch is None else epoch)

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Turn a refused write into an OutputError that names the archive."""
        try:
            yield
        except OSError as exc:
            raise output_error(self._label, exc) from None

    # -- local headers -------------------------------------------------------------------
    def _local_header(self, entry: _Written, zip64: bool) -> bytes:
        extra = b""
        csize, size = entry.compressed_size, entry.size
        if zip64:
            extra = struct.pack("<HHQQ", 1, 16, size, csize)
            csize = size = _LIMIT
        return (
            _LOCAL.pack(
                b"PK\x03\x04",
                45 if zip64 else 20,
                _UTF8,
                entry.method,
                self._time,
                self._date,
                entry.crc,
                csize,
                size,
                len(entry.name),
                len(extra),
            )
            + entry.name
            + extra
        )

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        with self._writing():
            while view:
                view = view[self._fp.write(view) or 0 :]
        self._pos += len(data)

    # -- adding entries ------------------------------------------------------------------
    def add_raw(self, name: str, raw: RawData, *, mode: int = 0o644) -> None:
        """Copy ``raw``'s compressed bytes as they are, reusing its CRC and sizes."""
        entry = _Written(
            name.encode(), self._pos, raw.method, raw.crc32, raw.compressed_size, raw.size, mode
        )
        zip64 = raw.size >= _LIMIT or raw.compressed_size >= _LIMIT
        self._write(self._local_header(entry, zip64))
        self._copy_range(raw)
        self._entries.append(entry)

    def _copy_range(self, raw: RawData) -> None:
        out = self._fp.fileno()
        with raw.path.open("rb", buffering=0) as src:
            offset, left = raw.offset, raw.compressed_size
            while left:
                try:
                    done = os.copy_file_range(src.fileno(), out, left, offset)
                except OSError:  # not supported here, or the target is full: the slow path
                    done = 0  # copies what it can and reports a refused write
                if done == 0:
                    self._copy_slow(src.fileno(), offset, left, raw)
                    left = 0
                    break
                offset += done
                left -= done
        self._pos += raw.compressed_size

    def _copy_slow(self, src: int, offset: int, left: int, raw: RawData) -> None:
        while left:
            chunk = os.pread(src, min(left, 1 << 20), offset)
            if not chunk:
                raise InvalidWheel(
                    f"{raw.path}: member at offset {raw.offset}: the file ends at {offset}, "
                    "before the member's declared compressed size"
                )
            view = memoryview(chunk)
            with self._writing():
                while view:
                    view = view[self._fp.write(view) or 0 :]
            offset += len(chunk)
            left -= len(chunk)

    def add_chunks(
        self,
        name: str,
        chunks: Iterable[bytes],
        *,
        size_hint: int,
        compress: bool = True,
        level: int = 6,
        mode: int = 0o644,
    ) -> None:
        """Compress (or store) streamed data; the header is patched once sizes are known."""
        method = _DEFLATED if compress else _STORED
        entry = _Written(name.encode(), self._pos, method, 0, 0, 0, mode)
        zip64 = size_hint * 1.05 + 4096 >= _LIMIT
        header_len = len(self._local_header(entry, zip64))
        self._write(b"\x00" * header_len)
        # zlib at ``level``: streamed entries are small (metadata) or from an unpacked wheel,
        # and must not come out larger than the wheel tools would make them.
        compressor = deflate.reference_compressobj(level) if compress else None
        crc = size = csize = 0
        for chunk in chunks:
            crc = deflate.crc32(chunk, crc)
            size += len(chunk)
            out = compressor.compress(chunk) if compressor else chunk
            csize += len(out)
            self._write(out)
        if compressor:
            tail = compressor.flush()
            csize += len(tail)
            self._write(tail)
        if not zip64 and (size >= _LIMIT or csize >= _LIMIT):
            raise ValueError(f"{name}: {size} bytes, more than its size hint allowed")
        entry.crc, entry.size, entry.compressed_size = crc, size, csize
        end = self._pos
        header = self._local_header(entry, zip64)
        assert len(header) == header_len
        with self._writing():
            self._fp.seek(entry.offset)
            view = memoryview(header)
            while view:
                view = view[self._fp.write(view) or 0 :]
            self._fp.seek(end)
        self._entries.append(entry)

    # -- central directory ---------------------------------------------------------------
    def finish(self) -> int:
        """Write the central directory and end records; return the archive size."""
        start = self._pos
        for entry in self._entries:
            self._write(self._central_header(entry))
        cd_size = self._pos - start
        count = len(self._entries)
        if count >= 0xFFFF or start >= _LIMIT or cd_size >= _LIMIT:
            eocd64_at = self._pos
            self._write(_EOCD64.pack(b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, cd_size, start))
            self._write(_LOCATOR64.pack(b"PK\x06\x07", 0, eocd64_at, 1))
        self._write(
            _EOCD.pack(
                b"PK\x05\x06",
                0,
                0,
                min(count, 0xFFFF),
                min(count, 0xFFFF),
                min(cd_size, _LIMIT),
                min(start, _LIMIT),
                0,
            )
        )
        return self._pos

    def _central_header(self, entry: _Written) -> bytes:
        extra_fields: list[int] = []
        size, csize, offset = entry.size, entry.compressed_size, entry.offset
        if size >= _LIMIT:
            extra_fields.append(size)
            size = _LIMIT
        if csize >= _LIMIT:
            extra_fields.append(csize)
            csize = _LIMIT
        if offset >= _LIMIT:
            extra_fields.append(offset)
            offset = _LIMIT
        extra = b""
        if extra_fields:
            extra = struct.pack(f"<HH{len(extra_fields)}Q", 1, 8 * len(extra_fields), *extra_fields)
        version = 45 if extra_fields else 20
        return (
            _CENTRAL.pack(
                b"PK\x01\x02",
                (3 << 8) | version,
                version,
                _UTF8,
                entry.method,
                self._time,
                self._date,
                entry.crc,
                csize,
                size,
                len(entry.name),
                len(extra),
                0,
                0,
                0,
                ((0o100000 | entry.mode) << 16) & 0xFFFFFFFF,
                offset,
            )
            + entry.name
            + extra
        )

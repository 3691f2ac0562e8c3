"""A fat library's CUDA kernels read while it inflates, without writing it to disk.

``diff --by kernel|family`` used to inflate every changed library into a temporary file and
read its fatbin entries back from there; on two torch releases that wrote 3.2 GB to the page
cache, a third of the diff's CPU time, for bytes read once. Here one pass over the inflating
member does the work: fatbin containers are recognised by their magic as they stream by,
each SASS/PTX entry is decoded and tallied on the spot, and only headers go to the temporary
file, a sparse file of the member's size (the ELF header and program headers, the section
header table with 64 KiB around it, every container and entry header and the padding after
a container).

Recognising by magic is a guess; the validated reader then decides, as before: it reads that
sparse file (:func:`wheel_size.kernels.work.scan_library`) through :class:`Guarded`, which
refuses to read a byte that was not written (:class:`Hole`). The tally is used only when
every entry the validated reader lists was decoded here, with the same header, and nothing
else was; otherwise (a hole read, an entry missing or extra, a payload that did not decode,
a layout it does not follow) the caller inflates the member again to a whole file and reads
it the old way, so the answer, problems and all, is always the validated reader's.
"""

from __future__ import annotations

import bisect
import io
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from wheel_size.cuda.fatbin import CONTAINER_MAGIC, FLAG_LZ4, FLAG_ZSTD, FatbinEntry
from wheel_size.cuda.images import ImageRef, load_image
from wheel_size.cuda.lz4block import BlockDecoder
from wheel_size.errors import WheelSizeError
from wheel_size.kernels.functions import CodeObjectFunctions, elf_functions, ptx_functions
from wheel_size.kernels.library import STRAY_ERRORS
from wheel_size.rocm.limits import MAX_CODE_OBJECT

__all__ = ["PLACEHOLDER", "Guarded", "Hole", "Streamed", "stream_member"]

_MAGIC = struct.pack("<I", CONTAINER_MAGIC)
_CONTAINER = struct.Struct("<IHHQ")
_ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")
_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_MAX_HEADER = 1 << 16
_AROUND_SHT = 1 << 16  # the section-name table sits next to the section headers
_PADDING = 1 << 12  # zero padding kept after a container (the reader checks it)
_READ = 4 << 20
_KINDS = {1: "ptx", 2: "sass"}
_EM_CUDA, _EM_AMDGPU = 190, 224
# Stands for an entry's place in messages (``source: section sass sm_90 #12``), known only
# once the validated reader has numbered the entries.
PLACEHOLDER = "\x00entry\x00"


class Hole(Exception):  # not an error of the input: a byte we did not keep
    """A read of bytes the stream did not write: the member must be read whole."""


# Where each decoded code object's functions go: (architecture, functions).
Add = Callable[[str, CodeObjectFunctions], None]


@dataclass
class Decoded:
    """One entry decoded while streaming: its header key and its problems (worded with
    :data:`PLACEHOLDER` for its place); ``problems`` None: the payload did not decode."""

    key: tuple[int, int, int, int, int]
    problems: list[str] | None


@dataclass
class Streamed:
    """What one pass over a member found: its entries by payload offset, and the byte
    ranges written to the sparse file."""

    size: int
    decoded: dict[int, Decoded] = field(default_factory=dict)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)

    def covers(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` lies inside one written range."""
        if end <= start:
            return True
        at = bisect.bisect_right(self.starts, start) - 1
        return at >= 0 and end <= self.ends[at]


class Guarded(io.RawIOBase):
    """The sparse file, readable only where the stream wrote it (else :class:`Hole`).
    It has no ``fileno``: readers go through ``seek``/``read``, which check each range."""

    def __init__(self, stream: IO[bytes], streamed: Streamed) -> None:
        super().__init__()
        self._stream = stream
        self._streamed = streamed
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._streamed.size}
        self._pos = max(0, base[whence] + offset)
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        end = self._streamed.size if size is None or size < 0 else self._pos + size
        end = min(end, self._streamed.size)
        if not self._streamed.covers(self._pos, end):
            raise Hole(f"bytes {self._pos}-{end} were not kept")
        self._stream.seek(self._pos)
        data = self._stream.read(max(end - self._pos, 0))
        self._pos += len(data)
        return data

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class _Cursor:
    """The inflating member as a forward-only byte stream; ``keep`` writes what it passes
    over to the sparse file at the same offset."""

    def __init__(self, src: IO[bytes], fd: int, streamed: Streamed) -> None:
        self._src = src
        self._fd = fd
        self._streamed = streamed
        self._spans: list[tuple[int, int]] = []
        self.buf = bytearray()
        self.pos = 0  # member offset of buf[0]
        self.eof = False
        self.windows: list[tuple[int, int]] = []  # fixed ranges always kept

    def ensure(self, count: int) -> bool:
        while len(self.buf) < count and not self.eof:
            data = self._src.read(max(_READ, count - len(self.buf)))
            if not data:
                self.eof = True
            self.buf += data
        return len(self.buf) >= count

    def consume(self, count: int, keep: bool = False) -> None:
        """Move past ``count`` bytes (fewer at the end of the member)."""
        while count:
            if not self.buf and not self.ensure(1):
                return
            step = min(count, len(self.buf))
            self._write(step, keep)
            del self.buf[:step]
            self.pos += step
            count -= step

    def take(self, count: int) -> bytes | None:
        """The next ``count`` bytes, consumed; None when the member ends first."""
        if not self.ensure(count):
            return None
        with memoryview(self.buf) as view:
            data = bytes(view[:count])
        self._write(count, False)
        del self.buf[:count]
        self.pos += count
        return data

    def _write(self, count: int, keep: bool) -> None:
        start, end = self.pos, self.pos + count
        ranges = [(start, end)] if keep else []
        ranges += [(max(a, start), min(b, end)) for a, b in self.windows if a < end and start < b]
        for a, b in ranges:
            if a < b:
                os.pwrite(self._fd, self.buf[a - start : b - start], a)
                self._spans.append((a, b))

    def find(self, pattern: bytes, keep_until: int) -> bool:
        """Consume up to the next ``pattern``; bytes before ``keep_until`` are kept."""
        while True:
            at = self.buf.find(pattern)
            if at >= 0:
                self._pass(at, keep_until)
                return True
            if self.eof:
                self._pass(len(self.buf), keep_until)
                return False
            self._pass(max(len(self.buf) - len(pattern) + 1, 0), keep_until)
            self.ensure(len(self.buf) + 1)

    def _pass(self, count: int, keep_until: int) -> None:
        kept = min(max(keep_until - self.pos, 0), count)
        self.consume(kept, keep=True)
        self.consume(count - kept)

    def finish(self) -> None:
        """Read to the member's end (its CRC is checked there) and record what was kept."""
        while self.ensure(1):
            self.consume(len(self.buf))
        merged: list[list[int]] = []
        for a, b in sorted(self._spans):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        self._streamed.starts = [a for a, _b in merged]
        self._streamed.ends = [b for _a, b in merged]


def stream_member(
    src: IO[bytes], fd: int, size: int, source: str, digests: bool, lz4: BlockDecoder, add: Add
) -> Streamed | None:
    """Read the member ``src`` (``size`` bytes inflated) once: decode the fatbin entries it
    seems to hold, hand each one's functions to ``add`` and write its headers to ``fd`` (see
    the module text). None when it is not a 64-bit little-endian host ELF file; the caller
    then writes it whole."""
    streamed = Streamed(size)
    cursor = _Cursor(src, fd, streamed)
    if not cursor.ensure(_EHDR.size) or bytes(cursor.buf[:6]) != b"\x7fELF\x02\x01":
        return None
    fields = _EHDR.unpack_from(cursor.buf)
    machine, phoff, shoff = fields[2], fields[5], fields[6]
    phentsize, phnum, shentsize, shnum = fields[9:13]
    if machine in (_EM_CUDA, _EM_AMDGPU):
        return None  # a standalone code object: read whole
    cursor.windows = [
        (0, max(_EHDR.size, phoff + phnum * phentsize)),
        (max(shoff - _AROUND_SHT, 0), shoff + shnum * shentsize + _AROUND_SHT),
    ]
    keep_until = 0
    while cursor.find(_MAGIC, keep_until):
        start = cursor.pos
        if not cursor.ensure(_CONTAINER.size):
            break
        _magic, version, header, fat = _CONTAINER.unpack_from(cursor.buf)
        if (
            version != 1
            or not _CONTAINER.size <= header <= _MAX_HEADER
            or start + header + fat > size
        ):
            cursor.consume(1, keep=start < keep_until)
            continue
        cursor.consume(header, keep=True)
        _entries(cursor, start + header + fat, streamed, (source, digests, lz4, add))
        keep_until = cursor.pos + _PADDING
    cursor.finish()
    os.ftruncate(fd, size)
    return streamed


def _entries(
    cursor: _Cursor, end: int, streamed: Streamed, how: tuple[str, bool, BlockDecoder, Add]
) -> None:
    """The entries of one container, up to ``end``; stops at the first that does not parse."""
    source = how[0]
    while cursor.pos < end:
        at = cursor.pos
        if end - at < _ENTRY.size or not cursor.ensure(_ENTRY.size):
            return
        fields = _ENTRY.unpack_from(cursor.buf)
        kind, header, payload, compressed, sm, flags, unpacked = (
            fields[0], fields[2], fields[3], fields[4], fields[8], fields[11], fields[13]
        )  # fmt: skip
        if not _ENTRY.size <= header <= _MAX_HEADER or at + header + payload > end:
            return
        packed = flags & (FLAG_LZ4 | FLAG_ZSTD)
        if packed and compressed > payload:
            return
        cursor.consume(header, keep=True)
        length = compressed if packed else payload
        if kind not in _KINDS or packed == FLAG_LZ4 | FLAG_ZSTD or length > MAX_CODE_OBJECT:
            cursor.consume(payload)
            continue
        raw = cursor.take(length)
        if raw is None:
            return
        cursor.consume(payload - length)
        entry = FatbinEntry(0, 0, kind, header, payload, compressed, unpacked, sm, flags, (0, 0))
        ref = ImageRef("", entry, at + header, length, source)
        streamed.decoded[ref.start] = _decode(ref, raw, how)


def _decode(ref: ImageRef, raw: bytes, how: tuple[str, bool, BlockDecoder, Add]) -> Decoded:
    _source, digests, lz4, add = how
    entry = ref.entry
    arch = entry.arch
    try:
        data = load_image(ref, raw, lz4)
        if entry.image == "ptx":
            arch = arch.replace("sm_", "compute_", 1)
            found = ptx_functions(bytes(data), PLACEHOLDER, digests=digests)
        else:
            found = elf_functions(data, PLACEHOLDER, digests=digests)
    except (WheelSizeError, *STRAY_ERRORS):
        return Decoded(ref.key, None)
    add(arch, found)
    return Decoded(ref.key, found.problems)

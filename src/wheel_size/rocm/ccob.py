"""Compressed offload bundles ("CCOB", spec section 2.2).

| field             | v1     | v2     | v3     |
| magic "CCOB"      | 0, 4   | 0, 4   | 0, 4   |
| version u16       | 4      | 4      | 4      |
| method u16        | 6      | 6      | 6      |   0 = zlib, 1 = zstd
| total size        | —      | 8 u32  | 8 u64  |   header + payload
| uncompressed size | 8 u32  | 12 u32 | 16 u64 |
| hash u64          | 12     | 16     | 24     |   low 64 bits of MD5(uncompressed)
| header size       | 20     | 24     | 32     |

The payload is one zlib or zstd stream of a plain bundle.  Its end is found from the
total size (v2, v3) or, for v1, by walking the zstd frame's block headers or by letting
zlib find its end, never by scanning for the next magic (which can occur in a payload).
Decompression is streamed with bounded reads and checked against the declared size and hash.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from dataclasses import dataclass
from enum import IntEnum
from typing import IO, cast

import zstandard

from wheel_size.errors import InvalidBundle
from wheel_size.rocm.source import ByteSource, RangeReader

__all__ = [
    "HEADER_SIZES",
    "MAGIC",
    "CcobHeader",
    "DecompressedStream",
    "Method",
    "build_ccob",
    "md5_low64",
    "open_payload",
    "parse_ccob_header",
    "payload_end",
    "zstd_frame_end",
]

MAGIC = b"CCOB"
HEADER_SIZES = {1: 20, 2: 24, 3: 32}
MAX_HEADER = 32
_CHUNK = 1 << 16
# LLVM compresses with long-distance matching, whose default window is 2**27 (zstd's
# default decoder limit); refusing more keeps a hostile frame from asking for GBs.
_MAX_WINDOW = 1 << 27


class Method(IntEnum):
    """``llvm::compression::Format``."""

    ZLIB = 0
    ZSTD = 1


@dataclass(frozen=True)
class CcobHeader:
    version: int
    method: Method
    total_size: int | None  # None for v1
    uncompressed_size: int
    hash: int
    header_size: int


def md5_low64(data: bytes) -> int:
    """``MD5Result::low()``: the first 8 digest bytes read as a little-endian u64."""
    return int.from_bytes(hashlib.md5(data).digest()[:8], "little")


def parse_ccob_header(head: bytes, available: int, where: str) -> CcobHeader:
    """Parse the header at the start of ``head`` (at least 32 bytes unless truncated).

    ``available`` is how many bytes the bundle may span (the rest of the section).
    """
    if head[:4] != MAGIC:
        raise InvalidBundle(f"{where}: not a compressed offload bundle (bad magic {head[:4]!r})")
    if len(head) < 8:
        raise InvalidBundle(f"{where}: truncated compressed bundle header")
    version, method = struct.unpack_from("<HH", head, 4)
    if version not in HEADER_SIZES:
        raise InvalidBundle(f"{where}: compressed bundle version {version} is not 1, 2 or 3")
    header_size = HEADER_SIZES[version]
    if len(head) < header_size or available < header_size:
        raise InvalidBundle(f"{where}: truncated compressed bundle v{version} header")
    if method not in (Method.ZLIB, Method.ZSTD):
        raise InvalidBundle(
            f"{where}: compressed bundle method {method} is not zlib (0) or zstd (1)"
        )
    total: int | None
    if version == 1:
        total = None
        uncompressed, digest = struct.unpack_from("<IQ", head, 8)
    elif version == 2:
        total, uncompressed, digest = struct.unpack_from("<IIQ", head, 8)
    else:
        total, uncompressed, digest = struct.unpack_from("<QQQ", head, 8)
    if total is not None and not header_size < total <= available:
        raise InvalidBundle(
            f"{where}: compressed bundle total size {total} is outside "
            f"({header_size}, {available}] (the bytes left in the section)"
        )
    return CcobHeader(
        version=version,
        method=Method(method),
        total_size=total,
        uncompressed_size=uncompressed,
        hash=digest,
        header_size=header_size,
    )


def zstd_frame_end(source: ByteSource, start: int, limit: int, where: str) -> int:
    """End offset of the zstd frame at ``start`` (RFC 8878 frame and block headers),
    without decompressing it; InvalidBundle when it does not end by ``limit``."""
    head = source.pread(start, 18)
    if len(head) < 6 or head[:4] != b"\x28\xb5\x2f\xfd":
        raise InvalidBundle(f"{where}: compressed bundle payload is not a zstd frame")
    descriptor = head[4]
    if descriptor & 0x08:
        raise InvalidBundle(f"{where}: zstd frame header has the reserved bit set")
    single_segment = bool(descriptor & 0x20)
    fcs_size = {0: 1 if single_segment else 0, 1: 2, 2: 4, 3: 8}[descriptor >> 6]
    dict_size = {0: 0, 1: 1, 2: 2, 3: 4}[descriptor & 0x03]
    pos = start + 5 + (0 if single_segment else 1) + dict_size + fcs_size
    while True:
        block = source.pread(pos, 3)
        if len(block) < 3 or pos + 3 > limit:
            raise InvalidBundle(f"{where}: zstd frame is truncated")
        (value,) = struct.unpack("<I", block + b"\0")
        last, kind, size = value & 1, (value >> 1) & 3, value >> 3
        if kind == 3:
            raise InvalidBundle(f"{where}: zstd frame has a reserved block type")
        pos += 3 + (1 if kind == 1 else size)
        if pos > limit:
            raise InvalidBundle(f"{where}: zstd frame runs past the end of its bundle")
        if last:
            break
    if descriptor & 0x04:
        pos += 4
    if pos > limit:
        raise InvalidBundle(f"{where}: zstd frame checksum runs past the end of its bundle")
    return pos


class DecompressedStream:
    """The uncompressed bundle of one CCOB, read in bounded pieces.

    ``read(n)`` returns at most ``n`` bytes; ``finish()`` drains the rest and checks the
    declared size and hash, and tells where the compressed payload ended.
    """

    def __init__(
        self,
        source: ByteSource,
        start: int,
        end: int,
        header: CcobHeader,
        where: str,
        check_hash: bool = True,
    ) -> None:
        self._where = where
        self._check_hash = check_hash
        self._header = header
        self._produced = 0
        self._md5 = hashlib.md5()
        self._pending = b""
        self._raw = RangeReader(source, start, end)
        self._start = start
        self._end = end
        self.compressed_end: int | None = None
        if header.method == Method.ZSTD:
            dctx = zstandard.ZstdDecompressor(max_window_size=_MAX_WINDOW)
            self._zstd = dctx.stream_reader(
                cast("IO[bytes]", self._raw),
                read_size=_CHUNK,
                read_across_frames=False,
                closefd=False,
            )
            self.compressed_end = end
        else:
            self._zlib = zlib.decompressobj()
            self._tail = b""

    def _zlib_done(self) -> bool:
        return bool(self._zlib.eof)

    def _zlib_read(self, size: int) -> bytes:
        while True:
            if self._zlib.eof:
                return b""
            data = self._tail or self._raw.read(_CHUNK)
            if not data:
                raise InvalidBundle(f"{self._where}: zlib stream is truncated")
            out = self._zlib.decompress(data, size)
            self._tail = self._zlib.unconsumed_tail
            if self._zlib_done():
                self.compressed_end = self._raw.position - len(self._zlib.unused_data)
                self._tail = b""
            if out:
                return out

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the uncompressed bundle; b"" at its declared end."""
        size = min(size, self._header.uncompressed_size - self._produced)
        if size <= 0:
            return b""
        try:
            if self._header.method == Method.ZSTD:
                out = self._zstd.read(size)
            else:
                out = self._zlib_read(size)
        except (zstandard.ZstdError, zlib.error) as exc:
            raise InvalidBundle(
                f"{self._where}: cannot decompress compressed bundle: {exc}"
            ) from None
        self._produced += len(out)
        if self._check_hash:
            self._md5.update(out)
        return out

    def read_exact(self, size: int) -> bytes:
        """Exactly ``size`` bytes (several decompressor calls if needed)."""
        parts = []
        want = size
        while want:
            chunk = self.read(min(want, 1 << 24))
            if not chunk:
                break
            parts.append(chunk)
            want -= len(chunk)
        return b"".join(parts)

    def finish(self) -> int:
        """Drain, check size and hash; return the offset where the payload ended."""
        while self.read(_CHUNK):
            pass
        if self._produced != self._header.uncompressed_size:
            raise InvalidBundle(
                f"{self._where}: compressed bundle decompresses to {self._produced} bytes, "
                f"header says {self._header.uncompressed_size}"
            )
        try:
            if self._header.method == Method.ZSTD:
                extra = self._zstd.read(1)
            else:
                extra = self._zlib_read(1) if not self._zlib.eof else b""
        except (zstandard.ZstdError, zlib.error) as exc:
            raise InvalidBundle(
                f"{self._where}: cannot decompress compressed bundle: {exc}"
            ) from None
        if extra:
            raise InvalidBundle(
                f"{self._where}: compressed bundle decompresses to more than the "
                f"{self._header.uncompressed_size} bytes its header says"
            )
        if self._header.method == Method.ZLIB and not self._zlib.eof:
            raise InvalidBundle(f"{self._where}: zlib stream does not end where its size says")
        low = int.from_bytes(self._md5.digest()[:8], "little")
        if self._check_hash and low != self._header.hash:
            raise InvalidBundle(
                f"{self._where}: compressed bundle hash {self._header.hash:016x} does not match "
                f"its content ({low:016x})"
            )
        assert self.compressed_end is not None
        return self.compressed_end


def payload_end(source: ByteSource, start: int, limit: int, header: CcobHeader, where: str) -> int:
    """Where the CCOB at ``start`` ends (header + payload), without decompressing when
    the format allows (v2/v3 total size; v1 zstd frame walk).  v1 zlib is decompressed."""
    payload = start + header.header_size
    if header.total_size is not None:
        end = start + header.total_size
        if header.method == Method.ZSTD and zstd_frame_end(source, payload, end, where) != end:
            raise InvalidBundle(
                f"{where}: zstd payload does not end at the compressed bundle's total size"
            )
        return end
    if header.method == Method.ZSTD:
        return zstd_frame_end(source, payload, limit, where)
    stream = DecompressedStream(source, payload, limit, header, where)
    return stream.finish()


def open_payload(
    source: ByteSource,
    start: int,
    end: int,
    header: CcobHeader,
    where: str,
    check_hash: bool = True,
) -> DecompressedStream:
    """Stream the uncompressed bundle of the CCOB occupying ``[start, end)``.

    ``check_hash=False`` skips the MD5 (the slowest step, ~600 MB/s); sizes are still checked.
    """
    return DecompressedStream(source, start + header.header_size, end, header, where, check_hash)


def build_ccob(
    bundle: bytes, *, version: int = 2, method: Method = Method.ZSTD, level: int = 3
) -> bytes:
    """Compress a plain bundle into a CCOB of the given version (for tests and tools).

    clang-19 writes only v2 zstd; v1, v3 and zlib are built here from the same fields.
    """
    if method == Method.ZSTD:
        payload = zstandard.ZstdCompressor(level=level).compress(bundle)
    else:
        payload = zlib.compress(bundle, min(max(level, 0), 9))
    digest = md5_low64(bundle)
    header_size = HEADER_SIZES[version]
    total = header_size + len(payload)
    if version == 1:
        head = struct.pack("<4sHHIQ", MAGIC, 1, method, len(bundle), digest)
    elif version == 2:
        head = struct.pack("<4sHHIIQ", MAGIC, 2, method, total, len(bundle), digest)
    elif version == 3:
        head = struct.pack("<4sHHQQQ", MAGIC, 3, method, total, len(bundle), digest)
    else:
        raise ValueError(f"CCOB version {version} is not 1, 2 or 3")
    return head + payload

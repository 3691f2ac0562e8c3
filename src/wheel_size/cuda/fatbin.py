"""NVIDIA fat binaries (``.nv_fatbin`` / ``__nv_relfatbin``), read from their headers only.

A fatbin section is a run of containers laid end to end; each container is a 16-byte
header followed by entries, and every entry header carries the SM architecture, the
kind (SASS cubin, PTX, LTO-IR), the bytes it occupies and, when compressed, both the
compressed and the decompressed size. Sizes per architecture therefore need no
decompression, and we never read a payload: the parser seeks over them, so memory stays
bounded by one entry header however large the section is (libtorch_cuda.so carries
gigabytes of SASS).

Layout: CUDA's ``fatbinary_section.h`` plus the observations recorded in
the wheel-audit and fatbin specification, §B2 (all integers little-endian).
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from wheel_size.errors import InvalidBundle

__all__ = [
    "CONTAINER_MAGIC",
    "FLAG_LZ4",
    "FLAG_ZSTD",
    "KIND_ELF",
    "KIND_LTO",
    "KIND_PTX",
    "FatbinContainer",
    "FatbinEntry",
    "iter_containers",
    "parse_fatbin",
    "parse_fatbin_bytes",
]

CONTAINER_MAGIC = 0xBA55ED50
_CONTAINER = struct.Struct("<IHHQ")
# kind, unknown(0x0101), header size, payload size, compressed size, options offset,
# minor, major, arch, identifier offset, identifier length, flags, reserved, decompressed size
_ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")
assert _CONTAINER.size == 16 and _ENTRY.size == 64

KIND_PTX = 1
KIND_ELF = 2
KIND_LTO = 8
_IMAGE_NAMES = {KIND_PTX: "ptx", KIND_ELF: "sass", KIND_LTO: "lto"}

FLAG_64BIT = 0x1
FLAG_DEBUG = 0x2
FLAG_LZ4 = 0x2000
FLAG_ZSTD = 0x8000
FLAG_ARCH_SPECIFIC = 0x100000
FLAG_FAMILY_SPECIFIC = 0x200000

# Entry headers seen in the wild are 64-120 bytes; the extension area holds an identifier
# and an option string. Anything far larger is corruption, not a header we should buffer.
_MAX_HEADER = 1 << 16


@dataclass(frozen=True)
class FatbinEntry:
    """One device image: its kind, architecture and the bytes it takes and expands to."""

    container: int
    offset: int
    kind: int
    header_size: int
    payload_size: int
    compressed_size: int
    decompressed_size: int
    sm: int
    flags: int
    version: tuple[int, int]
    identifier: str | None = None

    @property
    def image(self) -> str:
        """``sass``, ``ptx``, ``lto`` or ``kind<N>`` for kinds we do not know."""
        return _IMAGE_NAMES.get(self.kind, f"kind{self.kind}")

    @property
    def arch(self) -> str:
        """``sm_90``, with the ``a`` (arch-specific) or ``f`` (family) suffix from the flags."""
        suffix = ""
        if self.flags & FLAG_ARCH_SPECIFIC:
            suffix = "a"
        elif self.flags & FLAG_FAMILY_SPECIFIC:
            suffix = "f"
        return f"sm_{self.sm}{suffix}"

    @property
    def compression(self) -> str | None:
        if self.flags & FLAG_ZSTD:
            return "zstd"
        if self.flags & FLAG_LZ4:
            return "lz4"
        return None

    @property
    def debug(self) -> bool:
        return bool(self.flags & FLAG_DEBUG)

    @property
    def stored_size(self) -> int:
        """Bytes this entry occupies in the section (header plus padded payload)."""
        return self.header_size + self.payload_size

    @property
    def uncompressed_size(self) -> int:
        """Bytes of the image once decompressed (the payload itself when not compressed)."""
        if self.compression is not None and self.decompressed_size:
            return self.decompressed_size
        return self.payload_size


@dataclass(frozen=True)
class FatbinContainer:
    """A container header and the entries it announces."""

    index: int
    offset: int
    version: int
    header_size: int
    fat_size: int
    entries: tuple[FatbinEntry, ...]

    @property
    def end(self) -> int:
        return self.offset + self.header_size + self.fat_size


def _read_exact(stream: IO[bytes], count: int, source: str, what: str, at: int) -> bytes:
    data = stream.read(count)
    if len(data) != count:
        raise InvalidBundle(f"{source}: truncated fatbin: {what} at offset {at} is cut short")
    return data


def _skip(stream: IO[bytes], count: int) -> None:
    if count:
        stream.seek(count, os.SEEK_CUR)


def _parse_entry(
    stream: IO[bytes], at: int, container: int, limit: int, source: str
) -> FatbinEntry:
    raw = _read_exact(stream, _ENTRY.size, source, "entry header", at)
    (
        kind,
        _unknown,
        header_size,
        payload_size,
        compressed_size,
        _options_offset,
        minor,
        major,
        sm,
        ident_offset,
        ident_length,
        flags,
        _reserved,
        decompressed_size,
    ) = _ENTRY.unpack(raw)
    if not _ENTRY.size <= header_size <= _MAX_HEADER:
        raise InvalidBundle(
            f"{source}: corrupt fatbin: entry at offset {at} has header size {header_size}"
        )
    end = at + header_size + payload_size
    if end > limit:
        raise InvalidBundle(
            f"{source}: corrupt fatbin: entry at offset {at} ends at {end}, "
            f"past its container's end {limit}"
        )
    if (flags & (FLAG_LZ4 | FLAG_ZSTD)) and compressed_size > payload_size:
        raise InvalidBundle(
            f"{source}: corrupt fatbin: entry at offset {at} claims {compressed_size} "
            f"compressed bytes in a {payload_size}-byte payload"
        )
    extension = _read_exact(stream, header_size - _ENTRY.size, source, "entry header", at)
    identifier = None
    if ident_length and _ENTRY.size <= ident_offset and ident_offset + ident_length <= header_size:
        start = ident_offset - _ENTRY.size
        text = extension[start : start + ident_length].split(b"\0", 1)[0]
        identifier = text.decode("utf-8", "replace")
    _skip(stream, payload_size)
    return FatbinEntry(
        container=container,
        offset=at,
        kind=kind,
        header_size=header_size,
        payload_size=payload_size,
        compressed_size=compressed_size,
        decompressed_size=decompressed_size,
        sm=sm,
        flags=flags,
        version=(major, minor),
        identifier=identifier,
    )


def iter_containers(stream: IO[bytes], size: int, *, source: str) -> Iterator[FatbinContainer]:
    """Walk ``size`` bytes of fatbin data starting at the stream's current position.

    Containers follow each other at 8-byte aligned offsets, possibly with zero padding in
    between. The stream must support relative ``seek`` (forward only is enough).
    """
    pos = 0
    index = 0
    while pos < size:
        if size - pos < _CONTAINER.size:
            tail = _read_exact(stream, size - pos, source, "padding", pos)
            if tail.strip(b"\0"):
                raise InvalidBundle(
                    f"{source}: corrupt fatbin: {size - pos} stray bytes at offset {pos}"
                )
            return
        head = _read_exact(stream, 8, source, "container header", pos)
        if not head.strip(b"\0"):
            pos += 8  # zero padding between containers, in 8-byte steps
            continue
        raw = head + _read_exact(stream, _CONTAINER.size - 8, source, "container header", pos)
        magic, version, header_size, fat_size = _CONTAINER.unpack(raw)
        if magic != CONTAINER_MAGIC:
            raise InvalidBundle(
                f"{source}: not a fatbin: bad magic 0x{magic:08x} at offset {pos} "
                f"(expected 0x{CONTAINER_MAGIC:08x})"
            )
        if version != 1:
            raise InvalidBundle(
                f"{source}: unsupported fatbin container version {version} at offset {pos}"
            )
        if header_size < _CONTAINER.size or header_size > _MAX_HEADER:
            raise InvalidBundle(
                f"{source}: corrupt fatbin: container header size {header_size} at offset {pos}"
            )
        end = pos + header_size + fat_size
        if end > size:
            raise InvalidBundle(
                f"{source}: truncated fatbin: container at offset {pos} needs {end} bytes, "
                f"the data has {size}"
            )
        _skip(stream, header_size - _CONTAINER.size)
        entries: list[FatbinEntry] = []
        at = pos + header_size
        while at < end:
            if end - at < _ENTRY.size:
                raise InvalidBundle(
                    f"{source}: corrupt fatbin: container at offset {pos} has {end - at} "
                    "bytes left over after its entries"
                )
            entry = _parse_entry(stream, at, index, end, source)
            entries.append(entry)
            at = entry.offset + entry.stored_size
        yield FatbinContainer(index, pos, version, header_size, fat_size, tuple(entries))
        index += 1
        pos = end
        padding = -pos % 8
        if padding and pos + padding <= size:
            pad = _read_exact(stream, padding, source, "padding", pos)
            if pad.strip(b"\0"):
                raise InvalidBundle(f"{source}: corrupt fatbin: non-zero padding at offset {pos}")
            pos += padding


def parse_fatbin(stream: IO[bytes], size: int, *, source: str) -> list[FatbinContainer]:
    """All containers in ``size`` bytes from the stream's position; see :func:`iter_containers`."""
    return list(iter_containers(stream, size, source=source))


def parse_fatbin_bytes(data: bytes, *, source: str = "fatbin") -> list[FatbinContainer]:
    """Parse fatbin data held in memory (a bare ``fatbinary --create`` file or a section)."""
    return parse_fatbin(io.BytesIO(data), len(data), source=source)

"""The device images of a host library's fatbins, decompressed one at a time.

:mod:`wheel_size.cuda.fatbin` reads headers only; listing kernels needs the cubin itself.
Each entry's payload is read from inside its ELF section (the validated reader checked the
section against the file, the fatbin parser the entry against its container) and inflated
to exactly the size its header claims, at most ``MAX_CODE_OBJECT`` bytes: one image is in
memory at a time, whatever the library holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import zstandard

from wheel_size.cuda.fatbin import FLAG_LZ4, FLAG_ZSTD, FatbinEntry
from wheel_size.cuda.library import CudaEntry, scan_cuda_sections
from wheel_size.cuda.lz4block import BlockDecoder, decompress_block
from wheel_size.errors import InvalidBundle, InvalidElf
from wheel_size.rocm.elf_file import ElfImage, Section, check_span
from wheel_size.rocm.limits import MAX_CODE_OBJECT

__all__ = ["DeviceImage", "ImageRef", "image_ref", "iter_images", "load_image"]


@dataclass(frozen=True)
class DeviceImage:
    """One fatbin entry and its decompressed bytes (a cubin, PTX text or LTO-IR)."""

    section: str
    entry: FatbinEntry
    data: bytes | memoryview  # a view into a reused buffer when iter_images(reuse=True)


def _inflate(
    entry: FatbinEntry, raw: bytes, where: str, lz4: BlockDecoder | None
) -> bytes | memoryview:
    size = entry.decompressed_size
    if size > MAX_CODE_OBJECT:
        raise InvalidBundle(f"{where}: claims {size} decompressed bytes, over the limit")
    if entry.flags & FLAG_ZSTD:
        try:
            out = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
        except zstandard.ZstdError as exc:
            raise InvalidBundle(f"{where}: zstd payload does not decompress ({exc})") from None
        if len(out) != size:
            raise InvalidBundle(f"{where}: decompresses to {len(out)} bytes, not {size}")
        return out
    if lz4 is not None:
        return lz4.decode(raw, size, where)
    return decompress_block(raw, size, where)


@dataclass(frozen=True)
class ImageRef:
    """Where one entry's payload lies in the library file, checked against its section:
    what a worker needs to read and decode it without the ELF or fatbin headers."""

    section: str
    entry: FatbinEntry
    start: int  # file offset of the payload
    length: int  # bytes stored: the compressed size, or the payload size when plain
    source: str  # the library, as messages name it (one string shared by its entries)

    @property
    def where(self) -> str:
        entry = self.entry
        return f"{self.source}: {self.section} entry at {entry.offset} ({entry.arch} {entry.image})"

    @property
    def key(self) -> tuple[int, int, int, int, int]:
        """What two entries must share to decode alike (their bytes must be equal too)."""
        entry = self.entry
        return (entry.kind, entry.sm, entry.flags, entry.decompressed_size, self.length)


def image_ref(found: CudaEntry, section: Section, source: str) -> ImageRef:
    """The payload of ``found`` inside ``section``; InvalidBundle/InvalidElf for a
    compression flag we do not know, a payload over the limit or outside its section."""
    entry = found.entry
    where = f"{source}: {found.section} entry at {entry.offset} ({entry.arch} {entry.image})"
    compressed = entry.flags & (FLAG_LZ4 | FLAG_ZSTD)
    if compressed == FLAG_LZ4 | FLAG_ZSTD:
        raise InvalidBundle(f"{where}: both LZ4 and zstd compression flags are set")
    length = entry.compressed_size if compressed else entry.payload_size
    if length > MAX_CODE_OBJECT:
        raise InvalidBundle(f"{where}: a {length}-byte payload is over the limit")
    offset = entry.offset + entry.header_size
    if section.file_size != section.size or not check_span(offset, length, section.size):
        raise InvalidElf(
            f"{source}: read of {length} bytes at {offset} lies outside section "
            f"{section.name or section.index} ({section.file_size} bytes in the file)"
        )
    return ImageRef(found.section, entry, section.offset + offset, length, source)


def load_image(ref: ImageRef, raw: bytes, lz4: BlockDecoder | None) -> bytes | memoryview:
    """The image ``raw`` (the ``ref.length`` bytes at ``ref.start``) decodes to."""
    if ref.entry.flags & (FLAG_LZ4 | FLAG_ZSTD):
        return _inflate(ref.entry, raw, ref.where, lz4)
    return raw


def iter_images(
    stream: IO[bytes],
    elf: ElfImage,
    source: str,
    kinds: frozenset[str] = frozenset({"sass"}),
    *,
    reuse: bool = False,
) -> Iterator[DeviceImage]:
    """Every fatbin entry of ``kinds`` (``sass``, ``ptx``, ``lto``) with its bytes, in file
    order. InvalidBundle for a payload that does not decompress to its claimed size or
    carries a compression flag we do not know. With ``reuse`` LZ4 entries are decoded into
    one buffer: an image's ``data`` is then valid only until the next image."""
    lz4 = BlockDecoder() if reuse else None
    sections = {s.name: s for s in elf.sections}
    for found in scan_cuda_sections(stream, source=source, elf=elf):
        if found.entry.image not in kinds:
            continue
        ref = image_ref(found, sections[found.section], source)
        raw = elf.source.pread(ref.start, ref.length)
        yield DeviceImage(found.section, found.entry, load_image(ref, raw, lz4))

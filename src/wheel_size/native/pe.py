"""The device code of a Windows DLL, for the views that read ELF libraries.

``split`` already reads a HIP DLL's ``.hip_fat`` bundles (:mod:`wheel_size.rocm.pe_library`);
this gives ``diff``, ``diff --by``, ``bloat`` and ``audit`` the same facts an ELF library
gives them: the section sizes, and per target the code-object bytes (stored: a plain
entry's own size, a compressed bundle's stored length shared out in proportion to its
entries' uncompressed sizes, as for ``.hip_fatbin``), and a CUDA DLL's ``.nv_fatb``
(``.nv_fatbin`` cut to 8 characters) fatbin entries.  A section that lies is one problem
naming the DLL; its other facts stand.  Never raises for a bad file.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from wheel_size.cuda.fatbin import FLAG_LZ4, FLAG_ZSTD, FatbinEntry, iter_containers
from wheel_size.cuda.images import ImageRef, load_image
from wheel_size.errors import InvalidBundle, WheelSizeError
from wheel_size.native.gpu import GpuTotals
from wheel_size.native.library import LibraryFacts
from wheel_size.native.standalone import STANDALONE_SECTION
from wheel_size.rocm.pe_file import PeImage, is_pe
from wheel_size.rocm.pe_library import FATBIN_NAMES, FATBIN_SECTION, read_dll
from wheel_size.rocm.source import ByteSource

__all__ = [
    "CUDA_PE_SECTIONS",
    "FATBIN_MAGIC",
    "is_pe_head",
    "iter_fatbin_images",
    "iter_pe_code_objects",
    "iter_pe_cuda_images",
    "read_fatbin_facts",
    "read_pe_facts",
]

#: CUDA fatbin sections as an MSVC-linked image names them (8 characters: ``.nv_fatb``,
#: ``__nv_rel`` for ``__nv_relfatbin``, relocatable device code) or keeps them.
CUDA_PE_SECTIONS = (".nv_fatb", ".nv_fatbin", "__nv_rel", "__nv_relfatbin")
_STRAY = (ValueError, struct.error, IndexError, KeyError, EOFError, OverflowError)


def is_pe_head(head: bytes) -> bool:
    """Whether a file's first bytes start a PE image (``MZ``)."""
    return is_pe(head[:2])


def _reason(exc: BaseException, source: str) -> str:
    if isinstance(exc, WheelSizeError):
        return str(exc)
    return f"{source}: not a readable PE image ({type(exc).__name__})"


def _hip(stream: IO[bytes], image: PeImage, source: str, facts: LibraryFacts) -> None:
    fatbin = image.section(*FATBIN_NAMES)
    if fatbin is None or not fatbin.file_size:
        return  # no device code, or a split DLL whose code is in .kpack archives
    stream.seek(0)
    library = read_dll(stream, source)
    stored: dict[str, float] = {}
    for ordinal, ref in enumerate(library.bundles):
        entries = library.bundle_entries(ordinal)
        whole = sum(e.size for e in entries) or 1
        codec = "none" if ref.plain is not None else "ccob"
        for entry in entries:
            assert entry.entry_id.target is not None  # device entries name their target
            target = entry.entry_id.target.text
            key = ("hip", FATBIN_SECTION, target, "code_object")
            slot = facts.gpu.setdefault(key, GpuTotals())
            slot.entries += 1
            slot.uncompressed += entry.size
            slot.compression.add(codec)
            share = entry.size if ref.plain is not None else ref.length * entry.size / whole
            stored[target] = stored.get(target, 0) + share
    for (kind, _section, target, _image), slot in facts.gpu.items():
        if kind == "hip":
            slot.bytes = int(stored.get(target, 0))
    if any(ref.plain is None for ref in library.bundles):
        digests: dict[str, hashlib._Hash] = {}
        for code in library.iter_code_object_streams(verify=False, check_hash=False):
            digest = digests.setdefault(code.target, hashlib.sha256())
            digest.update(code.size.to_bytes(8, "little"))
            for chunk in code.chunks:
                digest.update(chunk)
        for target, digest in digests.items():
            facts.gpu[("hip", FATBIN_SECTION, target, "code_object")].digest = digest.hexdigest()


def _cuda(stream: IO[bytes], image: PeImage, source: str, facts: LibraryFacts) -> None:
    for section in image.sections:
        if section.name not in CUDA_PE_SECTIONS or not section.file_size:
            continue
        stream.seek(section.raw_offset)
        where = f"{source}: {section.name}"
        for container in iter_containers(stream, section.file_size, source=where):
            for entry in container.entries:
                key = ("cuda", section.name, entry.arch, entry.image)
                slot = facts.gpu.setdefault(key, GpuTotals())
                slot.bytes += entry.stored_size
                slot.uncompressed += entry.header_size + entry.uncompressed_size
                slot.entries += 1
                slot.compression.add(entry.compression or "none")


def read_pe_facts(path: Path, *, source: str) -> LibraryFacts:
    """Sections and device code of the PE image at ``path``; messages name ``source``."""
    facts = LibraryFacts(source)
    try:
        with path.open("rb") as stream:
            image = PeImage(stream, source)
            for section in image.sections:
                facts.sections[section.name] = (
                    facts.sections.get(section.name, 0) + section.file_size
                )
            for scan in (_hip, _cuda):
                try:
                    scan(stream, image, source, facts)
                except (WheelSizeError, *_STRAY) as exc:
                    facts.gpu_problems.append(_reason(exc, source))
    except (WheelSizeError, OSError, *_STRAY) as exc:
        return LibraryFacts(source, unreadable=_reason(exc, source))
    return facts


FATBIN_MAGIC = b"\x50\xed\x55\xba"  # 0xBA55ED50: a standalone .fatbin (nvcc -fatbin)


def read_fatbin_facts(path: Path, *, source: str) -> LibraryFacts:
    """A standalone ``.fatbin`` file's entries as device code of the whole file (section
    ``(code object file)``, as a standalone cubin's); a fatbin that lies is one problem."""
    facts = LibraryFacts(source)
    try:
        with path.open("rb") as stream:
            size = path.stat().st_size
            for container in iter_containers(stream, size, source=source):
                for entry in container.entries:
                    key = ("cuda", STANDALONE_SECTION, entry.arch, entry.image)
                    slot = facts.gpu.setdefault(key, GpuTotals())
                    slot.bytes += entry.stored_size
                    slot.uncompressed += entry.header_size + entry.uncompressed_size
                    slot.entries += 1
                    slot.compression.add(entry.compression or "none")
    except (WheelSizeError, OSError, *_STRAY) as exc:
        facts.gpu = {}
        facts.gpu_problems.append(_reason(exc, source))
    return facts


def iter_pe_code_objects(stream: IO[bytes], source: str) -> Iterator[tuple[str, bytes]]:
    """(target, code object) of each code object of a HIP DLL's ``.hip_fat``, in file
    order; nothing for a DLL without one. Raises InvalidPe / InvalidBundle."""
    image = PeImage(stream, source)
    fatbin = image.section(*FATBIN_NAMES)
    if fatbin is None or not fatbin.file_size:
        return
    stream.seek(0)
    library = read_dll(stream, source)
    for code in library.iter_code_object_streams(verify=True, check_hash=True):
        yield code.target, b"".join(code.chunks)


def iter_pe_cuda_images(
    stream: IO[bytes], source: str, kinds: frozenset[str] = frozenset({"sass", "ptx"})
) -> Iterator[tuple[FatbinEntry, bytes | memoryview]]:
    """(entry, decoded image) of each CUDA fatbin entry of ``kinds`` in a DLL's
    ``.nv_fatb`` / ``__nv_rel`` sections, in file order. Raises InvalidPe / InvalidBundle
    for an image or a fatbin that lies (an entry outside its section)."""
    image = PeImage(stream, source)
    for section in image.sections:
        if section.name in CUDA_PE_SECTIONS and section.file_size:
            yield from iter_fatbin_images(
                stream, image.source, source, section.name, section.raw_offset,
                section.file_size, kinds,
            )  # fmt: skip


def iter_fatbin_images(
    stream: IO[bytes],
    data: ByteSource,
    source: str,
    name: str,
    start: int,
    size: int,
    kinds: frozenset[str] = frozenset({"sass", "ptx"}),
) -> Iterator[tuple[FatbinEntry, bytes | memoryview]]:
    """(entry, decoded image) of the fatbin containers in ``size`` bytes at ``start`` (a
    section, or a whole standalone ``.fatbin`` file), in file order."""
    stream.seek(start)
    where = f"{source}: {name}"
    # every header first: reading a payload moves a stream that is not a real file
    entries = [
        entry
        for container in iter_containers(stream, size, source=where)
        for entry in container.entries
        if entry.image in kinds
    ]
    for entry in entries:
        compressed = entry.flags & (FLAG_LZ4 | FLAG_ZSTD)
        length = entry.compressed_size if compressed else entry.payload_size
        offset = entry.offset + entry.header_size
        if offset + length > size:
            raise InvalidBundle(
                f"{where}: entry at {entry.offset} ({entry.arch} {entry.image}) runs past "
                f"its {size} bytes"
            )
        ref = ImageRef(name, entry, start + offset, length, source)
        yield entry, load_image(ref, data.pread(ref.start, length), None)

"""Device code of one host ELF library, per (kind, section, architecture, image).

CUDA: every fatbin entry of ``.nv_fatbin`` / ``__nv_relfatbin`` (headers only). HIP: the
code objects of each offload bundle in ``.hip_fatbin``; plain bundles give per-target sizes
from their headers, a compressed (CCOB) bundle has its header inflated by the reader and
its stored bytes shared out over the targets in proportion to their uncompressed sizes
(``FatLibrary.stored_bytes_per_target``).  A split host library (an empty ``.hip_fatbin``,
its code moved to ``.kpack`` archives) holds no device code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO

from wheel_size.cuda.library import scan_cuda_sections
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.rocm.fatbin_library import FATBIN_SECTION, read_library

__all__ = ["GpuKey", "GpuTotals", "cuda_totals", "hip_totals"]

#: (kind, section, arch, image): kind "cuda" or "hip"; image sass, ptx, lto or code_object.
GpuKey = tuple[str, str, str, str]


@dataclass
class GpuTotals:
    """Stored bytes (compressed when compressed), headers plus uncompressed payloads,
    entry count and the compressions seen, for one :data:`GpuKey`."""

    bytes: int = 0
    uncompressed: int = 0
    entries: int = 0
    compression: set[str] = field(default_factory=set)
    # HIP targets of compressed bundles: SHA-256 of the decompressed code objects, so a diff
    # can tell an unchanged target from the share of a recompressed bundle it is given
    digest: str | None = None


def cuda_totals(stream: IO[bytes], elf: ElfImage, source: str) -> dict[GpuKey, GpuTotals]:
    """Fatbin entries of the validated ``elf`` (read from ``stream``), summed per key.

    Raises InvalidBundle for a corrupt fatbin section."""
    totals: dict[GpuKey, GpuTotals] = {}
    for found in scan_cuda_sections(stream, source=source, elf=elf):
        entry = found.entry
        slot = totals.setdefault(("cuda", found.section, entry.arch, entry.image), GpuTotals())
        slot.bytes += entry.stored_size
        slot.uncompressed += entry.header_size + entry.uncompressed_size
        slot.entries += 1
        slot.compression.add(entry.compression or "none")
    return totals


def hip_totals(stream: IO[bytes], elf: ElfImage, source: str) -> dict[GpuKey, GpuTotals]:
    """Code-object bytes per gfx target ID of the ``.hip_fatbin`` of ``elf``.

    Only 64-bit little-endian libraries carry HIP host code; others give nothing.
    Raises InvalidElf / InvalidBundle for a corrupt section or bundle."""
    section = elf.section(FATBIN_SECTION)
    if section is None or not section.file_size or not (elf.is64 and elf.little_endian):
        return {}
    library = read_library(stream, source)
    stored = library.stored_bytes_per_target()
    uncompressed = library.bytes_per_target()
    digests = library.compressed_code_digests()
    totals: dict[GpuKey, GpuTotals] = {}
    for ordinal, ref in enumerate(library.bundles):
        codec = "none" if ref.plain is not None else "ccob"
        for entry in library.bundle_entries(ordinal):
            assert entry.entry_id.target is not None  # device entries name their target
            key = ("hip", FATBIN_SECTION, entry.entry_id.target.text, "code_object")
            slot = totals.setdefault(key, GpuTotals())
            slot.entries += 1
            slot.compression.add(codec)
    for (_kind, _section, target, _image), slot in totals.items():
        slot.bytes = stored.get(target, 0)
        slot.uncompressed = uncompressed.get(target, 0)
        slot.digest = digests.get(target)
    return totals

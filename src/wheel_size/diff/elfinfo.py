"""What a shared library holds, for diffing: ELF section sizes and GPU code per arch.

Reads headers only (ELF section headers, fatbin entry headers), from a file on disk so that
random access is cheap; the caller extracts wheel members to a temporary file first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from wheel_size.cuda.library import scan_cuda_sections
from wheel_size.errors import WheelSizeError

__all__ = ["ELF_MAGIC", "GpuKey", "GpuTotals", "LibraryInfo", "read_library_info"]

ELF_MAGIC = b"\x7fELF"

# (kind, section, arch, image)
GpuKey = tuple[str, str, str, str]


@dataclass
class GpuTotals:
    bytes: int = 0
    uncompressed: int = 0
    entries: int = 0
    compression: set[str] = field(default_factory=set)


@dataclass
class LibraryInfo:
    """Section sizes (file bytes; NOBITS sections count 0) and device code totals."""

    sections: dict[str, int] = field(default_factory=dict)
    gpu: dict[GpuKey, GpuTotals] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


# A hook for other device-code formats: (path, source name, sections) -> gpu totals.
HipScanner = Callable[[Path, str], dict[GpuKey, GpuTotals]]


def _cuda(path: Path, source: str) -> dict[GpuKey, GpuTotals]:
    totals: dict[GpuKey, GpuTotals] = {}
    with path.open("rb") as stream:
        for found in scan_cuda_sections(stream, source=source):
            entry = found.entry
            key = ("cuda", found.section, entry.arch, entry.image)
            slot = totals.setdefault(key, GpuTotals())
            slot.bytes += entry.stored_size
            slot.uncompressed += entry.header_size + entry.uncompressed_size
            slot.entries += 1
            slot.compression.add(entry.compression or "none")
    return totals


def read_library_info(
    path: Path, *, source: str, extra_scanners: tuple[HipScanner, ...] = ()
) -> LibraryInfo:
    """Sections and GPU code of the ELF file at ``path``; problems are recorded, not raised."""
    info = LibraryInfo()
    try:
        with path.open("rb") as stream:
            elf = ELFFile(stream)
            for section in elf.iter_sections():
                if not section.name:
                    continue
                size = 0 if section["sh_type"] == "SHT_NOBITS" else int(section["sh_size"])
                info.sections[section.name] = info.sections.get(section.name, 0) + size
    except (ELFError, ValueError, OSError, KeyError) as exc:
        info.problems.append(f"{source}: not a readable ELF file ({exc})")
        return info
    for scanner in (_cuda, *extra_scanners):
        try:
            info.gpu.update(scanner(path, source))
        except WheelSizeError as exc:
            info.problems.append(str(exc))
    return info

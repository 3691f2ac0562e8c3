"""What a shared library holds, for diffing: ELF section sizes and GPU code per arch.

Reads headers only (ELF section headers, fatbin entry headers), from a file on disk so that
random access is cheap; the caller extracts wheel members to a temporary file first.  The
ELF headers go through the validated reader split and audit use; a file whose headers lie
is marked unreadable with the reason (``readable`` / ``gpu_readable`` False), so the diff
compares nothing for it instead of reporting its sections or device code as removed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.cuda.library import scan_cuda_sections
from wheel_size.errors import WheelSizeError
from wheel_size.rocm.elf_file import ElfImage

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
    """Section sizes (file bytes; NOBITS sections count 0) and device code totals.

    ``readable`` is False when the ELF headers could not be trusted (then ``sections`` and
    ``gpu`` are empty and mean nothing); ``gpu_readable`` is False when a device-code scan
    failed (then ``gpu`` is incomplete).  Comparisons skip what is not readable.
    """

    sections: dict[str, int] = field(default_factory=dict)
    gpu: dict[GpuKey, GpuTotals] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    readable: bool = True
    gpu_readable: bool = True


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
            elf = ElfImage(stream, source)
            for section in elf.sections:
                if section.name:
                    size = section.file_size
                    info.sections[section.name] = info.sections.get(section.name, 0) + size
    except (WheelSizeError, OSError) as exc:
        reason = str(exc) if isinstance(exc, WheelSizeError) else f"{source}: {exc.strerror}"
        info.sections.clear()
        info.readable = info.gpu_readable = False
        info.problems.append(f"{reason}; unreadable, its sections are not compared")
        return info
    for scanner in (_cuda, *extra_scanners):
        try:
            info.gpu.update(scanner(path, source))
        except WheelSizeError as exc:
            info.gpu_readable = False
            info.problems.append(f"{exc}; its device code is not compared")
    return info

"""The NVIDIA device code of one host ELF library: every fatbin entry, by section.

Only section headers and fatbin headers are read, through the validated ELF reader shared
with split and diff (every section checked against the file size before a seek), so a
multi-gigabyte ``libtorch_cuda.so`` costs a few kilobytes and a hostile one one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from wheel_size.cuda.fatbin import FatbinEntry, iter_containers
from wheel_size.rocm.elf_file import ElfImage

__all__ = ["FATBIN_SECTIONS", "CudaEntry", "scan_cuda_sections"]

# Linked device code, and the relocatable (-rdc) copy kept for later device linking.
FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")


@dataclass(frozen=True)
class CudaEntry:
    """A fatbin entry together with the ELF section it was found in."""

    section: str
    entry: FatbinEntry


def scan_cuda_sections(
    stream: IO[bytes], *, source: str, elf: ElfImage | None = None
) -> list[CudaEntry]:
    """Every fatbin entry in the fatbin sections of the ELF file in ``stream``.

    ``elf`` is the already validated image of the same stream, when the caller has one.
    Raises :class:`~wheel_size.errors.InvalidElf` if the stream is not a valid ELF file and
    :class:`~wheel_size.errors.InvalidBundle` if a fatbin section is corrupt.
    """
    elf = elf if elf is not None else ElfImage(stream, source)
    found: list[CudaEntry] = []
    for section in elf.sections:
        if section.name not in FATBIN_SECTIONS or not section.file_size:
            continue
        # ElfImage has checked offset + size against the file: this seek stays inside it.
        stream.seek(section.offset)
        containers = iter_containers(stream, section.size, source=f"{source}: {section.name}")
        for container in containers:
            found.extend(CudaEntry(section.name, entry) for entry in container.entries)
    return found

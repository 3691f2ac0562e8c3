"""The NVIDIA device code of one host ELF library: every fatbin entry, by section.

Only section headers and fatbin headers are read; the library is opened through pyelftools
on a seekable stream, so a multi-gigabyte ``libtorch_cuda.so`` costs a few kilobytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from wheel_size.cuda.fatbin import FatbinEntry, iter_containers
from wheel_size.errors import InvalidBundle, InvalidElf

__all__ = ["FATBIN_SECTIONS", "CudaEntry", "scan_cuda_sections"]

# Linked device code, and the relocatable (-rdc) copy kept for later device linking.
FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")


@dataclass(frozen=True)
class CudaEntry:
    """A fatbin entry together with the ELF section it was found in."""

    section: str
    entry: FatbinEntry


def scan_cuda_sections(stream: IO[bytes], *, source: str) -> list[CudaEntry]:
    """Every fatbin entry in the fatbin sections of the ELF file in ``stream``.

    Raises :class:`InvalidElf` if the stream is not ELF and
    :class:`~wheel_size.errors.InvalidBundle` if a fatbin section is corrupt.
    """
    try:
        elf = ELFFile(stream)
        sections = [
            (s.name, s["sh_offset"], s["sh_size"], s["sh_type"]) for s in elf.iter_sections()
        ]
    except (ELFError, ValueError, OSError) as exc:
        raise InvalidElf(f"{source}: not a readable ELF file ({exc})") from None
    found: list[CudaEntry] = []
    file_size = stream.seek(0, 2)
    for name, offset, size, sh_type in sections:
        if name not in FATBIN_SECTIONS or sh_type == "SHT_NOBITS" or not size:
            continue
        if offset + size > file_size:
            raise InvalidBundle(
                f"{source}: truncated: section {name} ends at {offset + size}, "
                f"the file has {file_size} bytes"
            )
        stream.seek(offset)
        for container in iter_containers(stream, size, source=f"{source}: {name}"):
            found.extend(CudaEntry(name, entry) for entry in container.entries)
    return found

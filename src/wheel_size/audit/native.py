"""Native files inside a wheel: what they are, what they link to, which GPU code they carry.

Formats are told by magic bytes (ELF, Mach-O, PE), never by suffix. ELF files are read from a
temporary file through the same validated reader as split and diff
(:class:`~wheel_size.rocm.elf_file.ElfImage`: every offset and size checked against the file
before it is read): dynamic imports and exports (for the abi3 check), DT_NEEDED (which
accelerator runtime they really need), the GLIBC symbol versions they require, and GPU
architectures from ``.nv_fatbin`` / ``.hip_fatbin``.  A file whose headers lie is recorded
as unreadable with the reason, and nothing is claimed about it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.cuda.library import scan_cuda_sections
from wheel_size.errors import WheelSizeError
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.rocm.elf_tables import iter_symbols, needed_libraries, version_needs

__all__ = ["NativeInfo", "inspect_elf", "native_format"]

_MACHO = {
    b"\xfe\xed\xfa\xce",
    b"\xce\xfa\xed\xfe",
    b"\xfe\xed\xfa\xcf",
    b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
}
_GLIBC = re.compile(r"^GLIBC_(\d+(?:\.\d+)+)$")

# Extra GPU scanners (HIP): path, source -> set of architectures.
ArchScanner = Callable[[Path, str], set[str]]


def native_format(head: bytes) -> str | None:
    """``elf``, ``mach-o``, ``pe`` or ``None`` from a file's first bytes."""
    if head[:4] == b"\x7fELF":
        return "elf"
    if head[:4] in _MACHO:
        return "mach-o"
    if head[:2] == b"MZ":
        return "pe"
    return None


@dataclass
class NativeInfo:
    format: str
    needed: list[str] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)
    defined: set[str] = field(default_factory=set)
    glibc_required: tuple[int, ...] | None = None
    gpu_archs: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    unreadable: str | None = None  # why nothing could be read (headers that lie)


def _symbols(elf: ElfImage, info: NativeInfo) -> None:
    for symbol in iter_symbols(elf):
        if not symbol.name:
            continue
        if symbol.shndx == 0:
            if symbol.table == ".dynsym":
                info.imports.add(symbol.name)
        else:
            info.defined.add(symbol.name)


def _dynamic(elf: ElfImage, info: NativeInfo) -> None:
    info.needed.extend(needed_libraries(elf))
    floor: tuple[int, ...] | None = None
    for _file, names in version_needs(elf):
        for name in names:
            match = _GLIBC.match(name)
            if match:
                version = tuple(int(p) for p in match.group(1).split("."))
                floor = max(floor, version) if floor else version
    info.glibc_required = floor


def inspect_elf(path: Path, *, source: str, scanners: tuple[ArchScanner, ...] = ()) -> NativeInfo:
    """Read what the audit needs from the ELF file at ``path``; problems are recorded.

    An ELF file whose headers or tables lie gets ``unreadable`` set and nothing else: no
    imports, no architectures, rather than a partial answer that reads like a fact.
    """
    info = NativeInfo("elf")
    try:
        with path.open("rb") as stream:
            elf = ElfImage(stream, source)
            _symbols(elf, info)
            _dynamic(elf, info)
            try:
                info.gpu_archs |= {
                    c.entry.arch for c in scan_cuda_sections(stream, source=source, elf=elf)
                }
            except WheelSizeError as exc:
                info.problems.append(str(exc))
    except WheelSizeError as exc:
        return _unreadable(str(exc))
    except OSError as exc:
        return _unreadable(f"{source}: cannot read: {exc.strerror or exc}")
    for scanner in scanners:
        try:
            info.gpu_archs |= scanner(path, source)
        except WheelSizeError as exc:
            info.problems.append(str(exc))
    return info


def _unreadable(reason: str) -> NativeInfo:
    info = NativeInfo("elf", unreadable=reason)
    info.problems.append(f"{reason} (not inspected further)")
    return info

"""Native files inside a wheel: what they are, what they link to, which GPU code they carry.

Formats are told by magic bytes (ELF, Mach-O, PE), never by suffix. ELF files are read with
pyelftools from a temporary file: dynamic imports and exports (for the abi3 check),
DT_NEEDED (which accelerator runtime they really need), the GLIBC symbol versions they
require, and GPU architectures from ``.nv_fatbin`` / ``.hip_fatbin``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection
from elftools.elf.sections import SymbolTableSection

from wheel_size.cuda.library import scan_cuda_sections
from wheel_size.errors import WheelSizeError

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


def _symbols(elf: ELFFile, info: NativeInfo) -> None:
    for section in elf.iter_sections():
        if not isinstance(section, SymbolTableSection):
            continue
        for symbol in section.iter_symbols():
            name = symbol.name
            if not name:
                continue
            if symbol["st_shndx"] == "SHN_UNDEF":
                if section.name == ".dynsym":
                    info.imports.add(name)
            else:
                info.defined.add(name)


def _dynamic(elf: ELFFile, info: NativeInfo) -> None:
    floor: tuple[int, ...] | None = None
    for section in elf.iter_sections():
        if isinstance(section, DynamicSection):
            for tag in section.iter_tags():
                if tag.entry.d_tag == "DT_NEEDED":
                    info.needed.append(str(tag.needed))  # type: ignore[attr-defined]
        elif isinstance(section, GNUVerNeedSection):
            for _verneed, auxiliaries in section.iter_versions():
                for aux in auxiliaries:
                    match = _GLIBC.match(aux.name)
                    if match:
                        version = tuple(int(p) for p in match.group(1).split("."))
                        floor = max(floor, version) if floor else version
    info.glibc_required = floor


def inspect_elf(path: Path, *, source: str, scanners: tuple[ArchScanner, ...] = ()) -> NativeInfo:
    """Read what the audit needs from the ELF file at ``path``; problems are recorded."""
    info = NativeInfo("elf")
    try:
        with path.open("rb") as stream:
            elf = ELFFile(stream)
            _symbols(elf, info)
            _dynamic(elf, info)
    except (ELFError, ValueError, OSError, KeyError, AttributeError) as exc:
        info.problems.append(f"{source}: not a readable ELF file ({exc})")
        return info
    try:
        with path.open("rb") as stream:
            info.gpu_archs |= {c.entry.arch for c in scan_cuda_sections(stream, source=source)}
    except WheelSizeError as exc:
        info.problems.append(str(exc))
    for scanner in scanners:
        try:
            info.gpu_archs |= scanner(path, source)
        except WheelSizeError as exc:
            info.problems.append(str(exc))
    return info

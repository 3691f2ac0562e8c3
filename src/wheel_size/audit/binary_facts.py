"""What a native file needs from the platform it lands on: its CPU, the glibc symbol
versions it imports (ELF), the lowest macOS it was built for (Mach-O).

These are the facts auditwheel's policy and delocate check against a wheel's platform
tag. ELF symbol versions come from ``.gnu.version_r`` (every entry there must be provided
by the loader, whether or not a symbol uses it) with ``.gnu.version`` naming the symbols
that ask for each version; Mach-O minimums come from ``LC_BUILD_VERSION`` or
``LC_VERSION_MIN_MACOSX`` of every slice; PE gives its machine only (Windows platform tags
name no OS version).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection, GNUVerSymSection
from elftools.elf.sections import SymbolTableSection

__all__ = ["BinaryFacts", "elf_facts", "macho_facts", "pe_facts"]

Version = tuple[int, ...]

_GLIBC = re.compile(r"^GLIBC_(\d+(?:\.\d+)+)$")
_ELF_MACHINES = {
    "EM_X86_64": "x86_64",
    "EM_AARCH64": "aarch64",
    "EM_386": "i686",
    "EM_ARM": "armv7l",
    "EM_PPC64": "ppc64le",
    "EM_S390": "s390x",
    "EM_RISCV": "riscv64",
    "EM_LOONGARCH": "loongarch64",
}
_MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "arm64", 7: "i386", 18: "ppc", 0x01000012: "ppc64"}
_PE_MACHINES = {0x8664: "amd64", 0x14C: "x86", 0xAA64: "arm64", 0x1C4: "arm"}
_LC_BUILD_VERSION = 0x32
_LC_VERSION_MIN_MACOSX = 0x24
_PLATFORM_MACOS = 1
_MAX_SLICES = 16  # a "fat" header claiming more is a Java class file or garbage
_MAX_SYMBOLS_KEPT = 3
_MAX_VERSION_ENTRIES = 4096  # real libraries need a few dozen
_MAX_SYMBOLS_SCANNED = 1_000_000
_MAX_LOAD_COMMANDS = 4 << 20
# pyelftools raises these on malformed input (besides ELFError)
_ELF_FAILURES = (ELFError, ValueError, OSError, KeyError, AttributeError, IndexError, struct.error)


@dataclass
class BinaryFacts:
    """Platform facts of one native file; empty where the format does not say."""

    machines: list[str] = field(default_factory=list)  # one per Mach-O slice, else one
    glibc: dict[Version, list[str]] = field(default_factory=dict)  # version -> symbols (newest)
    macos_minimum: dict[str, Version] = field(default_factory=dict)  # slice cpu -> minos
    problems: list[str] = field(default_factory=list)


def _version(text: str) -> Version:
    return tuple(int(p) for p in text.split("."))


def elf_facts(path: Path, source: str) -> BinaryFacts:
    """Machine and required GLIBC versions (with up to three importing symbols each)."""
    facts = BinaryFacts()
    try:
        with path.open("rb") as stream:
            elf = ELFFile(stream)
            machine = str(elf["e_machine"])
            facts.machines.append(_ELF_MACHINES.get(machine, machine))
            _glibc_versions(elf, facts)
    except _ELF_FAILURES as exc:
        facts.problems.append(f"{source}: symbol versions unreadable ({type(exc).__name__})")
    return facts


def _glibc_versions(elf: ELFFile, facts: BinaryFacts) -> None:
    by_index: dict[int, Version] = {}
    versym: GNUVerSymSection | None = None
    dynsym: SymbolTableSection | None = None
    budget = _MAX_VERSION_ENTRIES  # a hostile vn_next / vn_cnt can loop for ever
    for section in elf.iter_sections():
        if isinstance(section, GNUVerNeedSection):
            for _verneed, auxiliaries in section.iter_versions():
                for aux in [None, *auxiliaries]:
                    budget -= 1
                    if budget < 0:
                        raise ValueError("more version entries than any real library has")
                    if aux is None:
                        continue
                    match = _GLIBC.match(aux.name)
                    if match:
                        version = _version(match.group(1))
                        by_index[int(aux["vna_other"])] = version
                        facts.glibc.setdefault(version, [])
        elif isinstance(section, GNUVerSymSection):
            versym = section
        elif isinstance(section, SymbolTableSection) and section.name == ".dynsym":
            dynsym = section
    if not by_index or versym is None or dynsym is None:
        return
    newest = max(facts.glibc)
    count = min(versym.num_symbols(), dynsym.num_symbols(), _MAX_SYMBOLS_SCANNED)
    # The version indices are one array of Elf_Half: read it whole rather than symbol by
    # symbol through pyelftools, which parsed every entry of cupy-cuda12x 13.6.0's 66
    # extensions (a third of its audit's CPU) to find the few of the newest version.
    wanted = {index for index, version in by_index.items() if version == newest}
    half = "<H" if elf.little_endian else ">H"
    raw = versym.data()[: 2 * count]
    hits = [
        index
        for index, (ndx,) in enumerate(struct.iter_unpack(half, raw[: len(raw) & ~1]))
        if index and ndx & 0x7FFF in wanted
    ]
    for index in hits:
        if len(facts.glibc[newest]) >= _MAX_SYMBOLS_KEPT:
            break  # only the newest version's symbols are ever shown
        names = facts.glibc[newest]
        symbol = dynsym.get_symbol(index)
        if symbol["st_shndx"] == "SHN_UNDEF" and symbol.name not in names:
            names.append(symbol.name)


def _decode_version(raw: int) -> Version:
    """Mach-O ``xxxx.yy.zz`` nibbles; a zero patch is dropped (``13.0``)."""
    major, minor, patch = raw >> 16, (raw >> 8) & 0xFF, raw & 0xFF
    return (major, minor, patch) if patch else (major, minor)


def _read_at(stream: BinaryIO, offset: int, size: int) -> bytes:
    stream.seek(offset)
    return stream.read(size)


def _macho_slice(stream: BinaryIO, offset: int, facts: BinaryFacts) -> None:
    header = _read_at(stream, offset, 32)
    magic = header[:4]
    if magic in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe"):
        endian = "<"
    elif magic in (b"\xfe\xed\xfa\xcf", b"\xfe\xed\xfa\xce"):
        endian = ">"
    else:
        return
    if len(header) < 28:
        return
    is64 = magic in (b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf")
    cpu, _sub, _type, ncmds, sizeofcmds = struct.unpack_from(endian + "IiiII", header, 4)
    name = _MACHO_CPUS.get(cpu, f"cpu-{cpu:#x}")
    facts.machines.append(name)
    data = _read_at(stream, offset + (32 if is64 else 28), min(sizeofcmds, _MAX_LOAD_COMMANDS))
    pos = 0
    for _ in range(ncmds):
        if pos + 8 > len(data):
            break
        cmd, size = struct.unpack_from(endian + "II", data, pos)
        if size < 8:
            break
        if cmd == _LC_BUILD_VERSION and pos + 16 <= len(data):
            platform, minos = struct.unpack_from(endian + "II", data, pos + 8)
            if platform == _PLATFORM_MACOS:
                facts.macos_minimum[name] = _decode_version(minos)
        elif cmd == _LC_VERSION_MIN_MACOSX and pos + 12 <= len(data):
            (version,) = struct.unpack_from(endian + "I", data, pos + 8)
            facts.macos_minimum[name] = _decode_version(version)
        pos += size


def macho_facts(path: Path, source: str) -> BinaryFacts:
    """CPU and minimum macOS of every slice (thin or universal Mach-O); reads headers only."""
    del source  # nothing here raises: unreadable parts are simply not reported
    facts = BinaryFacts()
    with path.open("rb") as stream:
        head = stream.read(8)
        if head[:4] not in (b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf"):
            _macho_slice(stream, 0, facts)
            return facts
        wide = head[3] == 0xBF
        count = struct.unpack_from(">I", head, 4)[0] if len(head) == 8 else 0
        if count > _MAX_SLICES:
            return facts
        entry = 32 if wide else 20
        table = _read_at(stream, 8, count * entry)
        for i in range(len(table) // entry):
            fmt = ">Q" if wide else ">I"
            (offset,) = struct.unpack_from(fmt, table, i * entry + 8)
            _macho_slice(stream, offset, facts)
    return facts


def pe_facts(path: Path, source: str) -> BinaryFacts:
    """The PE machine (``amd64``, ``x86``, ``arm64``)."""
    facts = BinaryFacts()
    with path.open("rb") as stream:
        head = stream.read(4096)
    if len(head) >= 0x40:
        (pe_offset,) = struct.unpack_from("<I", head, 0x3C)
        if pe_offset + 6 <= len(head) and head[pe_offset : pe_offset + 4] == b"PE\0\0":
            (machine,) = struct.unpack_from("<H", head, pe_offset + 4)
            facts.machines.append(_PE_MACHINES.get(machine, f"machine-{machine:#x}"))
            return facts
    facts.problems.append(f"{source}: starts with MZ but has no PE header")
    return facts

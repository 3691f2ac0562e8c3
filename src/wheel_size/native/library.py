"""Everything diff and audit ask of one ELF library, from one open file and one header parse.

Sections and their file sizes (what the diff compares), the dynamic tables (DT_NEEDED,
the GLIBC versions its symbol-version needs require, imported and defined symbols: what the
audit checks), and the device code per architecture (:mod:`wheel_size.native.gpu`).

Headers go through :class:`~wheel_size.rocm.elf_file.ElfImage`, which checks every offset
and size against the file before reading.  A file whose headers (or, when asked for, its
dynamic tables) lie is *unreadable*, with the reason, and nothing else is claimed about it;
a device-code section that lies leaves the rest of the facts standing and its reason in
``gpu_problems``.  Nothing here raises for a bad file: callers decide how to word it.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.errors import WheelSizeError
from wheel_size.native.gpu import GpuKey, GpuTotals, cuda_totals, hip_totals
from wheel_size.native.standalone import (
    EM_AMDGPU,
    EM_CUDA,
    STANDALONE_SECTION,
    StandaloneCode,
    standalone_code,
)
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.rocm.elf_tables import iter_symbols, needed_libraries, version_needs

__all__ = ["LibraryFacts", "Version", "read_library_facts"]

Version = tuple[int, ...]

_GLIBC = re.compile(r"^GLIBC_(\d+(?:\.\d+)+)$")
# What a reader below us could still raise on hostile bytes besides our own errors; each
# becomes a reason naming the file, never a traceback.
_STRAY = (ValueError, struct.error, IndexError, KeyError, EOFError, OverflowError)


@dataclass
class LibraryFacts:
    """What one ELF library holds.

    ``unreadable`` is the reason its headers (or requested tables) could not be trusted; then
    every other field is empty and means nothing.  ``gpu_problems`` are the reasons a
    device-code scan failed; then ``gpu`` holds only what the other scans read.
    """

    source: str
    sections: dict[str, int] = field(default_factory=dict)  # name -> file bytes (NOBITS: 0)
    gpu: dict[GpuKey, GpuTotals] = field(default_factory=dict)
    needed: list[str] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)  # undefined .dynsym symbols
    defined: set[str] = field(default_factory=set)
    glibc_required: Version | None = None  # highest GLIBC_x.y the version needs name
    unreadable: str | None = None
    gpu_problems: list[str] = field(default_factory=list)
    # a standalone cubin / AMDGPU code object: the whole file is device code for this target
    standalone: StandaloneCode | None = None

    @property
    def readable(self) -> bool:
        return self.unreadable is None

    @property
    def gpu_readable(self) -> bool:
        return self.readable and not self.gpu_problems

    @property
    def gpu_archs(self) -> set[str]:
        """Every architecture with device code: CUDA SASS ``sm_XY``, embedded PTX
        ``compute_XY`` (JIT input, not code for ``sm_XY``), HIP target IDs."""
        return {
            arch.replace("sm_", "compute_", 1) if kind == "cuda" and image == "ptx" else arch
            for (kind, _section, arch, image) in self.gpu
        }


def _reason(exc: BaseException, source: str) -> str:
    if isinstance(exc, WheelSizeError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"{source}: cannot read: {exc.strerror or exc}"
    return f"{source}: not a readable ELF file ({type(exc).__name__})"


def _sections(elf: ElfImage) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for section in elf.sections:
        if section.name:
            sizes[section.name] = sizes.get(section.name, 0) + section.file_size
    return sizes


def _tables(elf: ElfImage, facts: LibraryFacts) -> None:
    for symbol in iter_symbols(elf):
        if not symbol.name:
            continue
        if symbol.shndx == 0:
            if symbol.table == ".dynsym":
                facts.imports.add(symbol.name)
        else:
            facts.defined.add(symbol.name)
    facts.needed.extend(needed_libraries(elf))
    for _file, names in version_needs(elf):
        for name in names:
            match = _GLIBC.match(name)
            if match:
                version = tuple(int(p) for p in match.group(1).split("."))
                if facts.glibc_required is None or version > facts.glibc_required:
                    facts.glibc_required = version


_WHOLE_CUBIN = 64 << 20  # a cubin up to this size is read whole for its .nv.compat


def _standalone(facts: LibraryFacts, elf: ElfImage, source: str) -> None:
    """The whole file as one code object of the architecture its header names."""
    try:
        code = standalone_code(elf.source.pread(0, 64), source)
    except WheelSizeError as exc:
        facts.gpu_problems.append(str(exc))
        return
    if code is None:
        return
    size = elf.source.size
    if code.kind == "cuda" and size <= _WHOLE_CUBIN:  # its .nv.compat may add the ``a``
        whole = elf.source.pread(0, size)
        code = standalone_code(whole[:64], source, whole) or code
    facts.standalone = code
    facts.gpu[(code.kind, STANDALONE_SECTION, code.arch, code.image)] = GpuTotals(
        bytes=size, uncompressed=size, entries=1, compression={"none"}
    )


def read_library_facts(
    path: Path, *, source: str, tables: bool = False, cuda: bool = True, hip: bool = True
) -> LibraryFacts:
    """The facts of the ELF file at ``path``; messages name ``source`` (the wheel member).

    ``tables`` also reads symbols, DT_NEEDED and version needs (the audit; the diff does not
    need them and libtorch's symbol table is large).  ``cuda`` / ``hip`` choose the device
    code scans.  Never raises for a bad file.
    """
    facts = LibraryFacts(source)
    try:
        with path.open("rb") as stream:
            elf = ElfImage(stream, source)
            facts.sections = _sections(elf)
            if elf.machine in (EM_CUDA, EM_AMDGPU):
                _standalone(facts, elf, source)
                return facts  # device code only: no host tables, no embedded fatbins
            if tables:
                _tables(elf, facts)
            scans = [scan for scan, wanted in ((cuda_totals, cuda), (hip_totals, hip)) if wanted]
            for scan in scans:
                try:
                    facts.gpu.update(scan(stream, elf, source))
                except (WheelSizeError, *_STRAY) as exc:
                    facts.gpu_problems.append(_reason(exc, source))
    except (WheelSizeError, OSError, *_STRAY) as exc:
        return LibraryFacts(source, unreadable=_reason(exc, source))
    return facts

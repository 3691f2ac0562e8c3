"""The functions of one code object (a cubin, an AMDGPU code object, PTX text), with sizes.

Symbols come from the code object's own ELF symbol table through the validated reader
(:class:`~wheel_size.rocm.elf_file.ElfImage`, :func:`~wheel_size.rocm.elf_tables.iter_symbols`).
A function is a ``STT_FUNC`` symbol with a size inside an executable section with bytes in
the file. Its bytes are ``[value, value + size)`` of its section; a function that starts
inside another one (nvcc places non-inlined helpers inside the calling kernel's section:
``$kernel$helper``) is part of that one's bytes, not counted again. What no function covers
(headers, metadata, constant banks, AMDGPU's padding of ``.text``) is ``unattributed``, so
``sum(sizes) + unattributed`` is the code object's size.

A symbol that lies (bytes past its section, a name without a terminator) or that cannot be
demangled keeps its mangled name, is counted as unattributed, and adds one line to
``problems``; at most ``MAX_FUNCTIONS`` functions are kept per code object (the rest are
unattributed), so a table of a million symbols costs a bounded list.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from wheel_size.errors import WheelSizeError
from wheel_size.rocm.elf_file import ElfImage, check_span
from wheel_size.rocm.elf_tables import iter_symbols

__all__ = ["MAX_FUNCTIONS", "CodeObjectFunctions", "Function", "elf_functions", "ptx_functions"]

MAX_FUNCTIONS = 1 << 16
STT_OBJECT = 1
STT_FUNC = 2
SHF_EXECINSTR = 0x4
STO_CUDA_ENTRY = 0x10
_PTX_ENTRY = re.compile(rb"^[ \t]*(?:\.visible[ \t]+|\.weak[ \t]+)?\.entry[ \t]+([^\s(]+)", re.M)


@dataclass(frozen=True)
class Function:
    """One function: its mangled name, bytes, whether it is a kernel (a CUDA entry, an
    AMDGPU function with a kernel descriptor ``.kd``), and a digest of its bytes."""

    name: str
    size: int
    kernel: bool
    digest: bytes = b""


@dataclass
class CodeObjectFunctions:
    """The functions of one code object and the bytes none of them covers."""

    size: int
    functions: list[Function] = field(default_factory=list)
    unattributed: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def attributed(self) -> int:
        return sum(f.size for f in self.functions)


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=12).digest()


def elf_functions(data: bytes, where: str, *, digests: bool = True) -> CodeObjectFunctions:
    """The functions of the code object ``data`` (a cubin or AMDGPU ELF); never raises
    for bad bytes: an unreadable code object is all unattributed, with the reason.
    ``digests`` hashes each function's bytes (for duplicates; a diff does not need it)."""
    result = CodeObjectFunctions(size=len(data))
    try:
        elf = ElfImage(data, where)
        found, lies, extra, descriptors = _candidates(elf)
    except WheelSizeError as exc:
        result.unattributed = len(data)
        result.problems.append(f"{exc}; its functions are counted as unattributed")
        return result
    covered = 0
    cover_end: dict[int, int] = {}
    # Largest first at one address, kernels before aliases: helpers inside a kernel and
    # aliases of one body are the enclosing function's bytes.
    found.sort(key=lambda c: (c[0], c[1], -c[3], c[4] not in descriptors, c[4]))
    for shndx, offset, _value, size, name, other in found:
        if offset < cover_end.get(shndx, 0):
            continue
        cover_end[shndx] = offset + size
        kernel = bool(other & STO_CUDA_ENTRY) or name in descriptors
        digest = _digest(elf.read(elf.sections[shndx], offset, size)) if digests else b""
        result.functions.append(Function(name, size, kernel, digest))
        covered += size
    result.unattributed = len(data) - covered
    if lies:
        result.problems.append(
            f"{where}: {lies} symbol(s) lie about their bytes or names (e.g. {extra[0]}); "
            "they are counted as unattributed"
        )
    if len(extra) > 1 and extra[1]:
        result.problems.append(
            f"{where}: more than {MAX_FUNCTIONS} functions; the rest are counted as unattributed"
        )
    return result


def _candidates(
    elf: ElfImage,
) -> tuple[list[tuple[int, int, int, int, str, int]], int, list[str], set[str]]:
    """(shndx, offset in section, value, size, name, st_other) of every function symbol,
    the number of lying symbols, [an example of a lie, whether the cap was hit] and the
    names that have a kernel descriptor."""
    found: list[tuple[int, int, int, int, str, int]] = []
    descriptors: set[str] = set()
    lies = 0
    example = ""
    capped = False
    for symbol in iter_symbols(elf):
        kind = symbol.info & 0xF
        if kind == STT_OBJECT and symbol.name.endswith(".kd"):
            if len(descriptors) < MAX_FUNCTIONS:
                descriptors.add(symbol.name[:-3])
            continue
        if kind != STT_FUNC or not symbol.size:
            continue
        if not 0 < symbol.shndx < len(elf.sections):
            continue
        section = elf.sections[symbol.shndx]
        if not section.file_size or not section.flags & SHF_EXECINSTR:
            continue
        offset = symbol.value - section.addr
        if symbol.unterminated or not check_span(offset, symbol.size, section.size):
            lies += 1
            example = example or (
                f"{symbol.name[:80]!r} claims {symbol.size} bytes at {symbol.value:#x} in "
                f"{section.name}"
                if not symbol.unterminated
                else f"{symbol.name[:80]!r} has no terminator"
            )
            continue
        if len(found) >= MAX_FUNCTIONS:
            capped = True
            continue
        found.append((symbol.shndx, offset, symbol.value, symbol.size, symbol.name, symbol.other))
    return found, lies, [example, "1" if capped else ""], descriptors


def ptx_functions(data: bytes, where: str, *, digests: bool = True) -> CodeObjectFunctions:
    """The ``.entry`` kernels of PTX text, each sized as its text up to the next entry."""
    result = CodeObjectFunctions(size=len(data))
    starts = [(m.start(), m.group(1).decode("utf-8", "replace")) for m in _PTX_ENTRY.finditer(data)]
    covered = 0
    for i, (start, name) in enumerate(starts[:MAX_FUNCTIONS]):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(data.rstrip(b"\0"))
        body = data[start:end]
        result.functions.append(Function(name, len(body), True, _digest(body) if digests else b""))
        covered += len(body)
    if len(starts) > MAX_FUNCTIONS:
        result.problems.append(
            f"{where}: more than {MAX_FUNCTIONS} PTX entries; the rest are counted as unattributed"
        )
    result.unattributed = len(data) - covered
    return result

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
from collections.abc import Container
from dataclasses import dataclass, field
from typing import NamedTuple

from wheel_size.errors import WheelSizeError
from wheel_size.kernels.cubin import Candidates, fast_candidates
from wheel_size.rocm.elf_file import ElfImage, check_span
from wheel_size.rocm.elf_tables import iter_symbols

__all__ = [
    "MAX_FUNCTIONS",
    "CodeObjectFunctions",
    "Function",
    "elf_functions",
    "function_digest",
    "ptx_functions",
]

MAX_FUNCTIONS = 1 << 16
STT_OBJECT = 1
STT_FUNC = 2
SHF_EXECINSTR = 0x4
STO_CUDA_ENTRY = 0x10
_PTX_ENTRY = re.compile(rb"^[ \t]*(?:\.visible[ \t]+|\.weak[ \t]+)?\.entry[ \t]+([^\s(]+)", re.M)


class Function(NamedTuple):
    """One function: its mangled name, bytes, whether it is a kernel (a CUDA entry, an
    AMDGPU function with a kernel descriptor ``.kd``), and a digest of its bytes. A tuple:
    a diff of two torch releases makes ~300,000 of them."""

    name: str
    size: int
    kernel: bool
    digest: bytes = b""
    start: int = -1  # where its bytes begin in the code object (kernels.copies reads them)


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


def function_digest(data: bytes | memoryview) -> bytes:
    """96 bits of SHA-256: as strong as the BLAKE2b-96 it replaces and, with the SHA
    instructions x86-64 and ARMv8 CPUs carry (OpenSSL uses them), 1.3x faster here (1.21
    against 0.95 GB/s): ``diff --by kernel`` and ``bloat`` hash every function's bytes
    (~7 GB for two torch releases)."""
    return hashlib.sha256(data).digest()[:12]


Wanted = Container[tuple[str, int]]


def elf_functions(
    data: bytes | memoryview, where: str, *, digests: bool = True, only: Wanted | None = None
) -> CodeObjectFunctions:
    """The functions of the code object ``data`` (a cubin or AMDGPU ELF); never raises
    for bad bytes: an unreadable code object is all unattributed, with the reason.
    ``digests`` hashes each function's bytes (for duplicates; a diff does not need it),
    or, with ``only``, just the functions whose ``(name, size)`` it holds.
    ``data`` may be a view of a reused buffer: nothing returned refers to it."""
    view = memoryview(data).cast("B")
    result = CodeObjectFunctions(size=len(view))
    fast = fast_candidates(view, MAX_FUNCTIONS)
    if fast is None:
        return reference_functions(view, where, digests=digests, only=only)
    _cover(result, fast, view, digests, only)
    _problems(result, fast, where)
    return result


def reference_functions(
    data: bytes | memoryview, where: str, *, digests: bool = True, only: Wanted | None = None
) -> CodeObjectFunctions:
    """:func:`elf_functions` through the validated reader (:class:`ElfImage`): for what
    the fast path leaves to it, and as the reference the tests compare that path with."""
    result = CodeObjectFunctions(size=len(data))
    try:
        elf = ElfImage(data, where)
        found = _candidates(elf)
    except WheelSizeError as exc:
        result.unattributed = len(data)
        result.problems.append(f"{exc}; its functions are counted as unattributed")
        return result
    found.bases = {s.index: s.offset for s in elf.sections}
    _cover(result, found, memoryview(data).cast("B"), digests, only)
    _problems(result, found, where)
    return result


# Function's fields given in order, all of them: built without the generated ``__new__``
# that fills in defaults (0.25 -> 0.12 us a function, ~300,000 of them in a torch diff).
_function = tuple.__new__


def _cover(
    result: CodeObjectFunctions,
    found: Candidates,
    view: memoryview,
    digests: bool,
    only: Wanted | None = None,
) -> None:
    covered = 0
    cover_end: dict[int, int] = {}
    descriptors = found.descriptors
    # Largest first at one address, kernels before aliases: helpers inside a kernel and
    # aliases of one body are the enclosing function's bytes.
    found.found.sort(key=lambda c: (c[0], c[1], -c[3], c[4] not in descriptors, c[4]))
    for shndx, offset, _value, size, name, other in found.found:
        if offset < cover_end.get(shndx, 0):
            continue
        cover_end[shndx] = offset + size
        kernel = bool(other & STO_CUDA_ENTRY) or name in descriptors
        digest = b""
        start = found.bases[shndx] + offset
        if digests and (only is None or (name, size) in only):
            digest = function_digest(view[start : start + size])
        result.functions.append(_function(Function, (name, size, kernel, digest, start)))
        covered += size
    result.unattributed = result.size - covered


def _problems(result: CodeObjectFunctions, found: Candidates, where: str) -> None:
    if found.lies:
        result.problems.append(
            f"{where}: {found.lies} symbol(s) lie about their bytes or names "
            f"(e.g. {found.example}); they are counted as unattributed"
        )
    if found.capped:
        result.problems.append(
            f"{where}: more than {MAX_FUNCTIONS} functions; the rest are counted as unattributed"
        )


def _candidates(elf: ElfImage) -> Candidates:
    """Every function symbol of ``elf`` through :func:`iter_symbols` (the reference path)."""
    out = Candidates([], 0, "", False, set(), {})
    for symbol in iter_symbols(elf):
        kind = symbol.info & 0xF
        if kind == STT_OBJECT and symbol.name.endswith(".kd"):
            if len(out.descriptors) < MAX_FUNCTIONS:
                out.descriptors.add(symbol.name[:-3])
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
            out.lies += 1
            out.example = out.example or (
                f"{symbol.name[:80]!r} claims {symbol.size} bytes at {symbol.value:#x} in "
                f"{section.name}"
                if not symbol.unterminated
                else f"{symbol.name[:80]!r} has no terminator"
            )
            continue
        if len(out.found) >= MAX_FUNCTIONS:
            out.capped = True
            continue
        out.found.append(
            (symbol.shndx, offset, symbol.value, symbol.size, symbol.name, symbol.other)
        )
    return out


def ptx_functions(
    data: bytes, where: str, *, digests: bool = True, only: Wanted | None = None
) -> CodeObjectFunctions:
    """The ``.entry`` kernels of PTX text, each sized as its text up to the next entry
    (``digests`` and ``only`` as for :func:`elf_functions`)."""
    result = CodeObjectFunctions(size=len(data))
    starts = [(m.start(), m.group(1).decode("utf-8", "replace")) for m in _PTX_ENTRY.finditer(data)]
    covered = 0
    for i, (start, name) in enumerate(starts[:MAX_FUNCTIONS]):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(data.rstrip(b"\0"))
        body = data[start:end]
        hashed = digests and (only is None or (name, len(body)) in only)
        digest = function_digest(body) if hashed else b""
        result.functions.append(Function(name, len(body), True, digest, start))
        covered += len(body)
    if len(starts) > MAX_FUNCTIONS:
        result.problems.append(
            f"{where}: more than {MAX_FUNCTIONS} PTX entries; the rest are counted as unattributed"
        )
    result.unattributed = len(data) - covered
    return result

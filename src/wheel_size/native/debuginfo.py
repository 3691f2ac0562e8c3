"""Debug information and symbol tables in a library, priced: what ``strip`` would save.

From the section table alone (:attr:`wheel_size.native.LibraryFacts.sections`, already read
for the diff and the audit): ``strip --strip-debug`` removes the debug sections (DWARF
``.debug_*``, compressed ``.zdebug_*``, ``.stab*``, ``.gdb_index``, LTO's
``.gnu.debuglto_*``); ``strip --strip-unneeded`` on a shared library or executable also removes
the static symbol table (``.symtab`` and its ``.strtab``: the dynamic linker reads
``.dynsym``). Each removed section also frees its section header and its name in
``.shstrtab``. Both GNU strip and llvm-strip lay the rest out again, so the estimate is the
removed bytes; alignment padding between what stays moves it by a few bytes (the tests run
both tools on libraries built by real compilers).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["DWARF_PREFIXES", "StripSavings", "is_debug_section", "strip_savings"]

#: DWARF sections, plain and compressed (what a wheel diff reads as "debug info").
DWARF_PREFIXES = (".debug", ".zdebug")
_DEBUG_PREFIXES = (*DWARF_PREFIXES, ".stab", ".gnu.debuglto_")
_DEBUG_NAMES = frozenset({".gdb_index", ".line"})
SYMBOL_TABLES = (".symtab", ".strtab")


def is_debug_section(name: str) -> bool:
    return name.startswith(_DEBUG_PREFIXES) or name in _DEBUG_NAMES


@dataclass(frozen=True)
class StripSavings:
    """``debug``: the debug sections (name -> bytes); ``symbols``: the static symbol table's
    bytes (0: stripped already); the bytes each strip mode would save."""

    debug: Mapping[str, int]
    symbols: int
    strip_debug: int
    strip_unneeded: int

    @property
    def debug_bytes(self) -> int:
        return sum(self.debug.values())

    @property
    def stripped(self) -> bool:
        """Nothing left to strip."""
        return self.strip_unneeded == 0


def _removed(names: Mapping[str, int], header_bytes: int) -> int:
    return sum(size + header_bytes + len(name) + 1 for name, size in names.items())


def strip_savings(
    sections: Mapping[str, int], *, linked: bool = True, header_bytes: int = 64
) -> StripSavings:
    """What stripping a library with these ``sections`` (name -> file bytes) would save.

    ``linked``: a shared library or executable (``--strip-unneeded`` then drops the static
    symbol table; an object file keeps the symbols its relocations need). ``header_bytes``:
    one section header (64 for ELF64, 40 for ELF32).
    """
    debug = {n: s for n, s in sections.items() if is_debug_section(n)}
    tables = {n: sections[n] for n in SYMBOL_TABLES if n in sections} if linked else {}
    strip_debug = _removed(debug, header_bytes) if debug else 0
    unneeded = strip_debug + (_removed(tables, header_bytes) if tables else 0)
    return StripSavings(debug, sum(tables.values()), strip_debug, unneeded)

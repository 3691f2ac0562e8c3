"""Host symbols of one ELF library with their sizes (Bloaty's "symbols" view).

Defined ``STT_FUNC`` / ``STT_OBJECT`` / ``STT_TLS`` / ``STT_GNU_IFUNC`` symbols with a size,
from ``.symtab`` when the library keeps one, else ``.dynsym``. Each is placed in its section
(``value - sh_addr``); aliases and symbols inside another one count once. Per section the
bytes no symbol covers are ``unattributed``, so attributed plus unattributed is the
section's size; sections with file bytes and no symbols are wholly unattributed.
Symbols that lie (past their section, unterminated names) are unattributed with one problem.
At most ``MAX_SYMBOLS`` symbols are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wheel_size.rocm.elf_file import ElfImage, check_span
from wheel_size.rocm.elf_tables import SHT_SYMTAB, iter_symbols

__all__ = ["MAX_SYMBOLS", "HostSection", "HostSymbols", "host_symbols"]

MAX_SYMBOLS = 1 << 20
_TYPES = frozenset({1, 2, 6, 10})  # OBJECT, FUNC, TLS, GNU_IFUNC


@dataclass
class HostSection:
    """One section with file bytes: its symbols (name -> bytes) and what they leave."""

    name: str
    size: int
    symbols: dict[str, int] = field(default_factory=dict)

    @property
    def unattributed(self) -> int:
        return self.size - sum(self.symbols.values())


@dataclass
class HostSymbols:
    table: str  # ".symtab", ".dynsym" or "" (stripped)
    sections: list[HostSection] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def host_symbols(elf: ElfImage) -> HostSymbols:
    """The sized symbols of ``elf`` per section. InvalidElf for unreadable tables."""
    has_symtab = any(s.type == SHT_SYMTAB and s.file_size for s in elf.sections)
    table = ".symtab" if has_symtab else ".dynsym"
    result = HostSymbols(table if any(s.name == table for s in elf.sections) else "")
    sections = {
        s.index: HostSection(s.name or f"#{s.index}", s.size)
        for s in elf.sections
        if s.file_size and s.index
    }
    found: list[tuple[int, int, int, str]] = []
    lies = 0
    capped = False
    for symbol in iter_symbols(elf):
        if symbol.table != table or not symbol.size or symbol.info & 0xF not in _TYPES:
            continue
        if symbol.shndx not in sections:
            continue
        section = elf.sections[symbol.shndx]
        offset = symbol.value - section.addr
        if symbol.unterminated or not check_span(offset, symbol.size, section.size):
            lies += 1
            continue
        if len(found) >= MAX_SYMBOLS:
            capped = True
            continue
        found.append((symbol.shndx, offset, symbol.size, symbol.name))
    found.sort(key=lambda s: (s[0], s[1], -s[2], s[3]))
    ends: dict[int, int] = {}
    for shndx, offset, size, name in found:
        if offset < ends.get(shndx, 0):
            continue  # an alias, or a symbol inside one already counted
        ends[shndx] = offset + size
        symbols = sections[shndx].symbols
        symbols[name] = symbols.get(name, 0) + size
    if lies:
        result.problems.append(
            f"{elf.name}: {lies} symbol(s) lie about their bytes or names; counted as unattributed"
        )
    if capped:
        result.problems.append(
            f"{elf.name}: more than {MAX_SYMBOLS} symbols; the rest are counted as unattributed"
        )
    result.sections = list(sections.values())
    return result

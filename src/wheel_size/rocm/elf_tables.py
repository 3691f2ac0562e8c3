"""Symbol tables, DT_NEEDED and GNU version needs of a validated :class:`ElfImage`.

The audit needs these from every native file of a wheel.  Each table is read through
``ElfImage.read`` (inside its section, which was checked against the file), every string
offset is checked against its string table, and the version-need chain is walked with a
visited set and a step budget, so a table that lies costs at most its own size.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from wheel_size.errors import InvalidElf
from wheel_size.rocm.elf_file import SHT_NOBITS, ElfImage, Section

__all__ = ["Symbol", "iter_symbols", "needed_libraries", "version_needs"]

SHT_SYMTAB = 2
SHT_DYNSYM = 11
SHT_DYNAMIC = 6
SHT_GNU_VERNEED = 0x6FFFFFFE
DT_NULL = 0
DT_NEEDED = 1
_TABLE_CHUNK = 1 << 20


@dataclass(frozen=True)
class Symbol:
    name: str
    value: int
    shndx: int  # 0 = undefined
    table: str  # ".dynsym" or ".symtab"
    size: int = 0
    info: int = 0  # st_info: binding << 4 | type
    other: int = 0
    unterminated: bool = False  # the name ran to the end of its string table


def _strings(elf: ElfImage, sec: Section) -> bytes:
    link = elf.sections[sec.link] if 0 < sec.link < len(elf.sections) else None
    if link is None or link.type == SHT_NOBITS:
        return b""
    return elf.read(link)


def _string(table: bytes, offset: int, elf: ElfImage, what: str) -> str:
    if offset >= len(table):
        if offset == 0:
            return ""
        raise InvalidElf(f"{elf.name}: {what} name offset {offset} lies outside its string table")
    end = table.find(b"\0", offset)
    return table[offset : end if end >= 0 else len(table)].decode("utf-8", "replace")


def iter_symbols(elf: ElfImage) -> Iterator[Symbol]:
    """Every symbol of ``.dynsym``/``.symtab`` (SHT_DYNSYM/SYMTAB sections), in order."""
    order = "<" if elf.little_endian else ">"
    entry = struct.Struct(order + ("IBBHQQ" if elf.is64 else "IIIBBH"))
    for sec in elf.sections:
        if sec.type not in (SHT_SYMTAB, SHT_DYNSYM) or not sec.file_size:
            continue
        names = _strings(elf, sec)
        usable = sec.size - sec.size % entry.size
        step = _TABLE_CHUNK - _TABLE_CHUNK % entry.size
        for start in range(0, usable, step):
            raw = elf.read(sec, start, min(step, usable - start))
            for fields in entry.iter_unpack(raw):
                if elf.is64:
                    st_name, info, other, shndx, value, size = fields
                else:
                    st_name, value, size, info, other, shndx = fields
                name = _string(names, st_name, elf, "symbol") if st_name else ""
                open_end = bool(st_name) and names.find(b"\0", st_name) < 0
                yield Symbol(name, value, shndx, sec.name, size, info, other, open_end)


def needed_libraries(elf: ElfImage) -> list[str]:
    """DT_NEEDED entries of the SHT_DYNAMIC section(s), in order."""
    order = "<" if elf.little_endian else ">"
    entry = struct.Struct(order + ("qQ" if elf.is64 else "iI"))
    needed = []
    for sec in elf.sections:
        if sec.type != SHT_DYNAMIC or not sec.file_size:
            continue
        names = _strings(elf, sec)
        raw = elf.read(sec, 0, sec.size - sec.size % entry.size)
        for tag, value in entry.iter_unpack(raw):
            if tag == DT_NULL:
                break
            if tag == DT_NEEDED:
                needed.append(_string(names, value, elf, "DT_NEEDED"))
    return needed


def version_needs(elf: ElfImage) -> list[tuple[str, list[str]]]:
    """(file, [version names]) from SHT_GNU_verneed sections (``GLIBC_2.28`` ...).

    Entries and their auxiliaries are followed through their ``next`` offsets inside the
    section; a chain that leaves the section, loops or claims more entries than the section
    can hold is InvalidElf.
    """
    order = "<" if elf.little_endian else ">"
    verneed = struct.Struct(order + "HHIII")  # version, count, file, aux, next
    vernaux = struct.Struct(order + "IHHII")  # hash, flags, other, name, next
    out: list[tuple[str, list[str]]] = []
    for sec in elf.sections:
        if sec.type != SHT_GNU_VERNEED or not sec.file_size:
            continue
        names = _strings(elf, sec)
        data = elf.read(sec)
        budget = len(data) // verneed.size
        seen: set[int] = set()
        pos = 0
        for _ in range(min(sec.info, budget)):
            if pos in seen or pos + verneed.size > len(data):
                raise InvalidElf(f"{elf.name}: {sec.name} version-need chain is broken")
            seen.add(pos)
            _version, count, file_off, aux, nxt = verneed.unpack_from(data, pos)
            versions = []
            at = pos + aux
            for _a in range(count):
                if at in seen or at + vernaux.size > len(data) or len(seen) > budget:
                    raise InvalidElf(f"{elf.name}: {sec.name} version-need chain is broken")
                seen.add(at)
                _h, _f, _o, name, aux_next = vernaux.unpack_from(data, at)
                versions.append(_string(names, name, elf, "version"))
                if not aux_next:
                    break
                at += aux_next
            out.append((_string(names, file_off, elf, "version file"), versions))
            if not nxt:
                break
            pos += nxt
    return out

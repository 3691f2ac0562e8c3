"""The function symbols of a 64-bit little-endian code object, read in bulk.

A diff of two torch releases reads ~7,000 cubins of ~100 sections and ~200 symbols each;
building a validated :class:`~wheel_size.rocm.elf_file.ElfImage` (one object per section,
every section name decoded) and one ``Symbol`` per symbol cost ~4 ms a cubin, more than
inflating and LZ4-decoding it. Here the header tables are unpacked with
``struct.iter_unpack`` straight from a memoryview of the code object and only the names of
functions are decoded.

This is a fast path, not a second validator: it applies every check ``ElfImage`` and
:func:`~wheel_size.rocm.elf_tables.iter_symbols` apply (header tables, each section and
the section-name table inside the file, links and entry sizes, every symbol name inside its
string table) and returns None when one fails or the file uses what it does not read
(32-bit or big-endian classes, extended section numbering). The caller then goes through
the validated reader, which names the lie in its own words; a code object accepted here is
one it accepts, with the same symbols.
"""

from __future__ import annotations

import operator
import struct
from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["Candidate", "Candidates", "fast_candidates"]

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_PHDR = struct.Struct("<IIQQQQQQ")
_SYM = struct.Struct("<IBBHQQ")
_NAME = struct.Struct("<I")  # st_name, the first field of a symbol
_SHT_SYMTAB = 2
_SHT_DYNSYM = 11
_SHT_NOBITS = 8
_SHT_CUDA_NOBITS = 0x7000000A
_SHT_CUDA_GLOBAL = 0x70000007  # .nv.global of CUDA 11 cubins: no file bytes either
_CUDA_NOBITS = (_SHT_CUDA_NOBITS, _SHT_CUDA_GLOBAL)
_EM_CUDA = 190
_SHN_XINDEX = 0xFFFF
_PN_XNUM = 0xFFFF
_STT_OBJECT = 1
_STT_FUNC = 2
# st_info -> its kind as one letter: "F" a function, "O" an object, "." anything else
_KIND_OF = bytes(
    ord("F" if b & 0xF == _STT_FUNC else "O" if b & 0xF == _STT_OBJECT else ".") for b in range(256)
)
_SHF_EXECINSTR = 0x4
# The section types ElfImage follows through sh_link, and the tables whose entry size it checks.
_LINKED_TYPES = frozenset({2, 4, 5, 6, 9, 11, 18, 0x6FFFFFF6, 0x6FFFFFFD, 0x6FFFFFFE, 0x6FFFFFFF})
_ENTRY_SIZES = {2: 24, 11: 24, 6: 16, 4: 24, 9: 16}
_ENTRY_KINDS = frozenset(_ENTRY_SIZES)

# (shndx, offset in section, value, size, name, st_other)
Candidate = tuple[int, int, int, int, str, int]


@dataclass
class Candidates:
    """Every function symbol with bytes in an executable section, and what lied."""

    found: list[Candidate]
    lies: int
    example: str  # the first lie, in words
    capped: bool  # more than ``limit`` functions: the rest were dropped
    descriptors: set[str]  # names with an AMDGPU kernel descriptor (``name.kd``)
    bases: dict[int, int]  # section index -> its file offset, for reading function bytes


class _Sections(NamedTuple):
    """The section header table as columns (one list per field we use); a tuple, made
    once per cubin (a frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``)."""

    names: list[int]
    types: list[int]
    flags: list[int]
    addrs: list[int]
    offsets: list[int]
    sizes: list[int]
    links: list[int]
    name_table: memoryview  # a view of the code object: copied only to name a lie
    cuda: bool

    def nobits(self, index: int) -> bool:
        kind = self.types[index]
        return kind == _SHT_NOBITS or (self.cuda and kind in _CUDA_NOBITS)


def _headers(data: memoryview) -> _Sections | None:
    """The section headers when every check ElfImage makes passes, else None."""
    size = len(data)
    if size < _EHDR.size or bytes(data[:6]) != b"\x7fELF\x02\x01":
        return None
    fields = _EHDR.unpack_from(data)
    machine, phoff, shoff = fields[2], fields[5], fields[6]
    phentsize, phnum, shentsize, shnum, shstrndx = fields[9:14]
    if shoff and (shnum == 0 or shstrndx == _SHN_XINDEX or phnum == _PN_XNUM):
        return None  # extended numbering
    if not shoff:
        shnum = 0
    if phnum:
        end = phoff + phnum * phentsize
        if phentsize != _PHDR.size or end > size:
            return None
        for segment in _PHDR.iter_unpack(data[phoff:end]):
            if segment[5] and segment[2] + segment[5] > size:
                return None
    cuda = machine == _EM_CUDA
    if not shnum:
        return _Sections([], [], [], [], [], [], [], data[:0], cuda)
    end = shoff + shnum * shentsize
    if shentsize != _SHDR.size or end > size or shstrndx >= shnum:
        return None
    words, quads = data[shoff:end].cast("I"), data[shoff:end].cast("Q")
    types = words[1::16].tolist()
    offsets, sizes = quads[3::8].tolist(), quads[4::8].tolist()
    name_table = data[:0]
    if shstrndx:
        start, length = offsets[shstrndx], sizes[shstrndx]
        if types[shstrndx] == _SHT_NOBITS or start + length > size:
            return None
        name_table = data[start : start + length]
    names = words[0::16].tolist()
    if max(names) >= max(len(name_table), 1):
        return None  # a section name outside the section-name table
    links = words[10::16].tolist()
    table = _Sections(
        names, types, quads[1::8].tolist(), quads[2::8].tolist(), offsets, sizes, links,
        name_table, cuda,
    )  # fmt: skip
    if max(map(operator.add, offsets, sizes)) > size and any(
        length and not table.nobits(i) and start + length > size
        for i, (start, length) in enumerate(zip(offsets, sizes, strict=True))
    ):
        return None  # a section with bytes past the end of the file
    if max(links) >= shnum and any(
        kind in _LINKED_TYPES and link >= shnum for kind, link in zip(types, links, strict=True)
    ):
        return None
    entsizes = quads[7::8]
    for kind in _ENTRY_KINDS.intersection(types):  # a cubin: ~300 sections, few such
        want, at = _ENTRY_SIZES[kind], types.index(kind)
        while at >= 0:
            entsize = entsizes[at]
            if sizes[at] and entsize != want and (entsize or kind in (2, 11)):
                return None
            at = _next_index(types, kind, at + 1)
    return table


def _next_index(values: list[int], value: int, start: int) -> int:
    """Where ``value`` is next in ``values`` from ``start``, or -1."""
    try:
        return values.index(value, start)
    except ValueError:
        return -1


def _section_name(table: memoryview, offset: int) -> str:
    names = bytes(table)
    end = names.find(b"\0", offset)
    return names[offset : end if end >= 0 else len(names)].decode("utf-8", "replace")


def fast_candidates(data: memoryview, limit: int) -> Candidates | None:
    """The function symbols of the code object ``data``, or None when the validated reader
    must look at it (see the module docstring). At most ``limit`` functions are kept."""
    table = _headers(data)
    if table is None:
        return None
    count = len(table.types)
    out = Candidates([], 0, "", False, set(), {})
    for index in _symbol_tables(table.types):
        length = table.sizes[index]
        if not length:
            continue
        strings = b""
        link = table.links[index]
        if 0 < link < count and table.types[link] != _SHT_NOBITS:
            if table.nobits(link):
                return None  # the validated reader refuses to read it
            start = table.offsets[link]
            strings = bytes(data[start : start + table.sizes[link]])
        usable = length - length % _SYM.size
        start = table.offsets[index]
        symbols = data[start : start + usable]
        if usable and max(symbols.cast("I")[::6]) >= max(len(strings), 1):
            return None  # a name offset outside its string table
        _collect(out, symbols, table, strings, limit)
    return out


def _symbol_tables(types: list[int]) -> list[int]:
    """The indexes of the ``SHT_SYMTAB``/``SHT_DYNSYM`` sections, in order (found by
    ``list.index``: a cubin has ~300 sections and one symbol table)."""
    found: list[int] = []
    for kind in (_SHT_SYMTAB, _SHT_DYNSYM):
        at = -1
        while kind in types[at + 1 :]:
            at = types.index(kind, at + 1)
            found.append(at)
    return sorted(found)


def _collect(
    out: Candidates, symbols: memoryview, table: _Sections, strings: bytes, limit: int
) -> None:
    """Add the symbols of one table to ``out`` (what ``_candidates`` keeps, in its order).

    Only the functions and, when the names could hold one, the objects are unpacked: the
    symbols' kinds are read as one byte string (``st_info`` of each, strided), and a
    cubin's ~140 section symbols of ~250 are never looked at one by one."""
    kinds = symbols[4 :: _SYM.size].tobytes().translate(_KIND_OF)
    if b"O" in kinds:
        _descriptors(out, symbols, kinds, strings, limit)
    if b"F" not in kinds:
        return
    sizes, flags, types, count = table.sizes, table.flags, table.types, len(table.types)
    found, bases, offsets, addrs = out.found, out.bases, table.offsets, table.addrs
    cuda, unpack, width = table.cuda, _SYM.unpack_from, _SYM.size
    at = kinds.find(b"F")
    while at >= 0:
        st_name, _info, other, shndx, value, size = unpack(symbols, at * width)
        at = kinds.find(b"F", at + 1)
        if not size or not 0 < shndx < count:
            continue
        section_size, kind = sizes[shndx], types[shndx]
        if not flags[shndx] & _SHF_EXECINSTR or not section_size or kind == _SHT_NOBITS:
            continue
        if cuda and kind in _CUDA_NOBITS:
            continue
        end = strings.find(b"\0", st_name) if st_name else 0
        name = strings[st_name : end if end >= 0 else len(strings)].decode("utf-8", "replace")
        offset = value - addrs[shndx]
        if end < 0 or not (0 <= offset <= section_size and size <= section_size - offset):
            out.lies += 1
            if not out.example:
                where = _section_name(table.name_table, table.names[shndx])
                out.example = (
                    f"{name[:80]!r} has no terminator"
                    if end < 0
                    else f"{name[:80]!r} claims {size} bytes at {value:#x} in {where}"
                )
            continue
        if len(found) >= limit:
            out.capped = True
            continue
        found.append((shndx, offset, value, size, name, other))
        bases[shndx] = offsets[shndx]


def _descriptors(
    out: Candidates, symbols: memoryview, kinds: bytes, strings: bytes, limit: int
) -> None:
    """The names of the objects that are kernel descriptors (``name.kd``), in order."""
    at = kinds.find(b"O")
    while at >= 0:
        st_name = _NAME.unpack_from(symbols, at * _SYM.size)[0]
        at = kinds.find(b"O", at + 1)
        if st_name and len(out.descriptors) < limit:
            end = _end(strings, st_name)
            if strings.endswith(b".kd", st_name, end):
                out.descriptors.add(strings[st_name : end - 3].decode("utf-8", "replace"))


def _end(strings: bytes, start: int) -> int:
    end = strings.find(b"\0", start)
    return end if end >= 0 else len(strings)

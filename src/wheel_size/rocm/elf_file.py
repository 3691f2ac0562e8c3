"""The few facts about an ELF file that split, diff and audit need: section and segment
headers, address translation, and dynamic relocations read in bulk with ``struct``
(libtorch_hip has millions; per-entry objects would take minutes).

This is the one place that decides whether an ELF file's headers can be trusted: every
offset and size (header tables, each section's and segment's bytes, the section-name
table, section links) is checked against the file size *before* anything is read, so a
truncated or hostile file is InvalidElf naming the file and the lie, never an ``lseek``
EINVAL (offsets past 2**44 on ext4), an IndexError or a guess.  Readers of section data
(:mod:`wheel_size.rocm.elf_tables`, the fatbin parsers) go through :meth:`ElfImage.read`,
which keeps every read inside its section.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypedDict

from wheel_size.errors import InvalidElf
from wheel_size.rocm.source import ByteSource, SourceLike, as_source

__all__ = [
    "ElfHeader",
    "ElfImage",
    "Relocation",
    "Section",
    "Segment",
    "check_span",
    "is_elf",
]

SHT_NOBITS = 8
# CUDA relocatable cubins (nvcc -rdc, e.g. libtorch_nvshmem's __nv_relfatbin) carry
# ``.nv_debug.shared`` with this processor-specific type: memory only, like NOBITS.
EM_CUDA = 190
SHT_CUDA_NOBITS = 0x7000000A
# .nv.global (uninitialised device globals) before CUDA 12.x's plain SHT_NOBITS: no file
# bytes either (CUDA 11.8 cubins in bitsandbytes' DLLs; cuobjdump calls it CUDA_GLOBAL)
SHT_CUDA_GLOBAL = 0x70000007
SHT_RELA = 4
SHT_REL = 9
SHT_RELR = 19
SHF_ALLOC = 0x2
PT_LOAD = 1
PT_PHDR = 6
SHN_XINDEX = 0xFFFF
PN_XNUM = 0xFFFF

EM_X86_64 = 62
EM_AARCH64 = 183
# machine -> (RELATIVE, absolute 64-bit)
RELOC_TYPES = {EM_X86_64: (8, 1), EM_AARCH64: (1027, 257)}
_RELA = struct.Struct("<QQq")
_CHUNK_ENTRIES = 1 << 16  # RELA entries read and filtered at a time (1.5 MB)
# A RELA section this big is filtered as numpy arrays; a smaller one is walked in Python,
# which costs less than importing numpy (0.1 CPU-s and 15-20 MB in every worker).
_ARRAY_ENTRIES = 1 << 15
_ET_NAMES = {0: "ET_NONE", 1: "ET_REL", 2: "ET_EXEC", 3: "ET_DYN", 4: "ET_CORE"}
# Section types whose sh_link is a section index that readers follow.
_LINKED_TYPES = frozenset({2, 4, 5, 6, 9, 11, 18, 0x6FFFFFF6, 0x6FFFFFFD, 0x6FFFFFFE, 0x6FFFFFFF})
# Section types read as tables of fixed-size entries: type -> entry size (ELF64, ELF32).
_ENTRY_SIZES = {2: (24, 16), 11: (24, 16), 6: (16, 8), 4: (24, 12), 9: (16, 8)}


class ElfHeader(TypedDict):
    """The ELF header fields the rewrite and the verifier read (``e_type`` as its name,
    ``ET_DYN``; the counts with their extended values from section header 0 resolved)."""

    e_type: str
    e_machine: int
    e_flags: int
    e_phoff: int
    e_shoff: int
    e_phentsize: int
    e_phnum: int
    e_shentsize: int
    e_shnum: int
    e_shstrndx: int


def check_span(offset: int, size: int, total: int) -> bool:
    """True when ``[offset, offset + size)`` lies inside ``total`` bytes: the one bounds
    rule every binary parser applies before it seeks or allocates."""
    return 0 <= offset <= total and 0 <= size <= total - offset


@dataclass(frozen=True)
class Section:
    index: int
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    addralign: int
    entsize: int
    nobits: bool = False  # no bytes in the file (SHT_NOBITS, or CUDA's own NOBITS type)

    @property
    def file_size(self) -> int:
        """Bytes the section occupies in the file (0 for NOBITS)."""
        return 0 if self.type == SHT_NOBITS or self.nobits else self.size


@dataclass(frozen=True)
class Segment:
    index: int
    type: int
    flags: int
    offset: int
    vaddr: int
    paddr: int
    filesz: int
    memsz: int
    align: int


@dataclass(frozen=True)
class Relocation:
    """One RELA/RELR entry: where it applies, type, symbol index, addend, and the section
    and byte offset of the entry itself (so a rewrite can patch it in place)."""

    offset: int
    type: int
    symbol: int
    addend: int
    section: int
    entry_offset: int  # file offset of this entry (-1 for RELR, which has no entry per word)


def is_elf(head: bytes) -> bool:
    return head[:4] == b"\x7fELF"


@dataclass(frozen=True)
class _Layout:
    """struct formats of one ELF class and byte order."""

    ehdr: struct.Struct
    shdr: struct.Struct
    phdr: struct.Struct
    is64: bool


def _layout(ident: bytes) -> _Layout:
    order = "<" if ident[5] == 1 else ">"
    if ident[4] == 2:
        return _Layout(
            struct.Struct(order + "16sHHIQQQIHHHHHH"),
            struct.Struct(order + "IIQQQQIIQQ"),
            struct.Struct(order + "IIQQQQQQ"),
            True,
        )
    return _Layout(
        struct.Struct(order + "16sHHIIIIIHHHHHH"),
        struct.Struct(order + "IIIIIIIIII"),
        struct.Struct(order + "IIIIIIII"),
        False,
    )


class ElfImage:
    """Validated headers of one ELF file opened from bytes or a binary file (never read
    whole).  32- and 64-bit, either byte order; the fat-binary code asks for 64-bit
    little-endian through :meth:`require_64le`."""

    # RELA sections of at least this many entries are filtered as numpy arrays
    array_entries: int = _ARRAY_ENTRIES

    def __init__(self, data: SourceLike, name: str) -> None:
        self.name = name
        self.source: ByteSource = as_source(data)
        head = self.source.pread(0, 64)
        if not is_elf(head):
            raise InvalidElf(f"{name}: not an ELF file")
        if len(head) < 6 or head[4] not in (1, 2) or head[5] not in (1, 2):
            raise InvalidElf(f"{name}: ELF class or byte order is not valid")
        self.layout = _layout(head)
        self.is64 = self.layout.is64
        self.little_endian = head[5] == 1
        if len(head) < self.layout.ehdr.size:
            raise InvalidElf(f"{name}: truncated ELF header")
        fields = self.layout.ehdr.unpack_from(head)
        (_ident, e_type, machine, _version, _entry, phoff, shoff, flags, _ehsize,
         phentsize, phnum, shentsize, shnum, shstrndx) = fields  # fmt: skip
        self.machine = machine
        self.elf_type = e_type
        size = self.source.size
        if shoff and (shnum == 0 or shstrndx == SHN_XINDEX or phnum == PN_XNUM):
            # Extended numbering: the real counts sit in section header 0.
            if shentsize != self.layout.shdr.size or not check_span(shoff, shentsize, size):
                raise InvalidElf(f"{name}: section header 0 lies outside the file")
            zero = self.layout.shdr.unpack(self.source.pread(shoff, shentsize))
            shnum = shnum or zero[5]
            shstrndx = zero[6] if shstrndx == SHN_XINDEX else shstrndx
            phnum = zero[7] if phnum == PN_XNUM else phnum
        if not shoff:
            shnum = 0
        self.header: ElfHeader = {
            "e_type": _ET_NAMES.get(e_type, f"ET_{e_type:#x}"),
            "e_machine": machine,
            "e_flags": flags,
            "e_phoff": phoff,
            "e_shoff": shoff,
            "e_phentsize": phentsize,
            "e_phnum": phnum,
            "e_shentsize": shentsize,
            "e_shnum": shnum,
            "e_shstrndx": shstrndx,
        }
        if phnum and (
            phentsize != self.layout.phdr.size or not check_span(phoff, phnum * phentsize, size)
        ):
            raise InvalidElf(f"{name}: program header table lies outside the file (truncated?)")
        if shnum and (
            shentsize != self.layout.shdr.size or not check_span(shoff, shnum * shentsize, size)
        ):
            raise InvalidElf(f"{name}: section header table lies outside the file (truncated?)")
        self.segments = self._read_segments(phoff, phnum)
        self.sections = self._read_sections(shoff, shnum, shstrndx)

    def _read_segments(self, phoff: int, phnum: int) -> list[Segment]:
        size = self.source.size
        raw = self.source.pread(phoff, phnum * self.layout.phdr.size) if phnum else b""
        segments = []
        for i, fields in enumerate(self.layout.phdr.iter_unpack(raw)):
            if self.is64:
                p_type, flags, offset, vaddr, paddr, filesz, memsz, align = fields
            else:
                p_type, offset, vaddr, paddr, filesz, memsz, flags, align = fields
            if filesz and not check_span(offset, filesz, size):
                raise InvalidElf(
                    f"{self.name}: segment {i} (offset {offset:#x}, size {filesz:#x}) lies "
                    f"outside the file ({size:#x} bytes)"
                )
            segments.append(Segment(i, p_type, flags, offset, vaddr, paddr, filesz, memsz, align))
        return segments

    def _read_sections(self, shoff: int, shnum: int, shstrndx: int) -> list[Section]:
        size = self.source.size
        raw = self.source.pread(shoff, shnum * self.layout.shdr.size) if shnum else b""
        headers = list(self.layout.shdr.iter_unpack(raw))
        if headers and shstrndx >= len(headers):
            raise InvalidElf(
                f"{self.name}: section name table index {shstrndx} is outside the "
                f"{len(headers)} section headers"
            )
        names = b""
        if headers and shstrndx:
            strtab = headers[shstrndx]
            if strtab[1] == SHT_NOBITS or not check_span(strtab[4], strtab[5], size):
                raise InvalidElf(
                    f"{self.name}: section name table (offset {strtab[4]:#x}, size "
                    f"{strtab[5]:#x}) lies outside the file ({size:#x} bytes)"
                )
            names = self.source.pread(strtab[4], strtab[5])
        sections = []
        for i, (
            sh_name,
            sh_type,
            flags,
            addr,
            offset,
            sh_size,
            link,
            info,
            align,
            entsize,
        ) in enumerate(headers):
            text = ""
            if sh_name or names:
                if sh_name >= max(len(names), 1):
                    raise InvalidElf(
                        f"{self.name}: section {i} name offset {sh_name} lies outside the "
                        "section name table"
                    )
                end = names.find(b"\0", sh_name)
                text = names[sh_name : end if end >= 0 else len(names)].decode("utf-8", "replace")
            what = f"section {text or i}"
            nobits = sh_type == SHT_NOBITS or (
                self.machine == EM_CUDA and sh_type in (SHT_CUDA_NOBITS, SHT_CUDA_GLOBAL)
            )
            if not nobits and sh_size and not check_span(offset, sh_size, size):
                raise InvalidElf(
                    f"{self.name}: {what} (offset {offset:#x}, size {sh_size:#x}) lies "
                    f"outside the file ({size:#x} bytes; truncated or corrupt)"
                )
            if sh_type in _LINKED_TYPES and link >= len(headers):
                raise InvalidElf(
                    f"{self.name}: {what} links to section {link}, outside the "
                    f"{len(headers)} section headers"
                )
            want = _ENTRY_SIZES.get(sh_type)
            if want and sh_size:
                right = want[0 if self.is64 else 1]
                if entsize != right and (entsize or sh_type in (2, 11)):  # symbol tables
                    raise InvalidElf(f"{self.name}: {what} has {entsize}-byte entries, not {right}")
            fields = (addr, offset, sh_size, link, info, align, entsize)
            sections.append(Section(i, text, sh_type, flags, *fields, nobits))
        return sections

    def require_64le(self) -> None:
        """InvalidElf unless the file is 64-bit little-endian (what HIP host code is)."""
        if not (self.is64 and self.little_endian):
            raise InvalidElf(f"{self.name}: only 64-bit little-endian ELF files are supported")

    def section(self, name: str) -> Section | None:
        for sec in self.sections:
            if sec.name == name:
                return sec
        return None

    def vaddr_to_offset(self, vaddr: int, size: int = 1) -> int | None:
        """File offset of ``[vaddr, vaddr+size)`` when a PT_LOAD holds it in the file."""
        for seg in self.segments:
            if (
                seg.type == PT_LOAD
                and seg.vaddr <= vaddr
                and vaddr + size <= seg.vaddr + seg.filesz
            ):
                return seg.offset + (vaddr - seg.vaddr)
        return None

    def read(self, sec: Section, offset: int = 0, size: int | None = None) -> bytes:
        """``size`` bytes (default: to the end) at ``offset`` inside section ``sec``;
        InvalidElf for a range outside the section or a section without file bytes."""
        size = sec.size - offset if size is None else size
        if sec.type == SHT_NOBITS or sec.nobits or not check_span(offset, size, sec.size):
            raise InvalidElf(
                f"{self.name}: read of {size} bytes at {offset} lies outside section "
                f"{sec.name or sec.index} ({sec.file_size} bytes in the file)"
            )
        return self.source.pread(sec.offset + offset, size)

    @property
    def reloc_types(self) -> tuple[int, int]:
        """(RELATIVE, absolute 64-bit) relocation types for this machine."""
        try:
            return RELOC_TYPES[self.machine]
        except KeyError:
            raise InvalidElf(
                f"{self.name}: machine {self.machine} is not supported (x86-64 and AArch64 are)"
            ) from None

    def dynamic_relocations(self, within: tuple[int, int] | None = None) -> Iterator[Relocation]:
        """Every RELA and RELR relocation of the file, in section order; with ``within``
        (lo, hi) only those whose offset lies in [lo, hi), the others never built as objects
        (a torch-sized library has ~900,000: building them all cost seconds)."""
        for sec in self.sections:
            if sec.type == SHT_REL:
                raise InvalidElf(f"{self.name}: REL relocations ({sec.name}) are not supported")
            if sec.type == SHT_RELA:
                if sec.entsize not in (0, _RELA.size) or sec.size % _RELA.size:
                    raise InvalidElf(f"{self.name}: {sec.name} has entries of {sec.entsize} bytes")
                yield from self._rela(sec, within)
            elif sec.type == SHT_RELR:
                relocs = self._relr(sec)
                if within is None:
                    yield from relocs
                else:
                    yield from (r for r in relocs if within[0] <= r.offset < within[1])

    def rela_chunks(self, sec: Section) -> Iterator[tuple[int, Any]]:
        """A RELA section as numpy record arrays (``offset``, ``info``, ``addend``) of at most
        ``_CHUNK_ENTRIES`` entries, each with the index of its first entry: a torch-sized
        library has ~900,000 relocations, which one by one in Python cost 1-2 s a pass."""
        import numpy as np  # only the relocation passes use it

        dtype = np.dtype([("offset", "<u8"), ("info", "<u8"), ("addend", "<i8")])
        step = _CHUNK_ENTRIES * _RELA.size
        for start in range(0, sec.size, step):
            chunk = self.read(sec, start, min(step, sec.size - start))
            yield start // _RELA.size, np.frombuffer(chunk, dtype=dtype)

    def _rela(self, sec: Section, within: tuple[int, int] | None = None) -> Iterator[Relocation]:
        if sec.size // _RELA.size < self.array_entries:
            yield from self._rela_walk(sec, within)
            return
        import numpy as np

        for first, table in self.rela_chunks(sec):
            if within is None:
                picked = range(len(table))
            else:
                offsets = table["offset"]
                picked = np.flatnonzero((offsets >= within[0]) & (offsets < within[1])).tolist()
            for i in picked:
                r_offset, info, addend = (int(v) for v in table[i])
                yield Relocation(
                    offset=r_offset,
                    type=info & 0xFFFFFFFF,
                    symbol=info >> 32,
                    addend=addend,
                    section=sec.index,
                    entry_offset=sec.offset + (first + i) * _RELA.size,
                )

    def _rela_walk(
        self, sec: Section, within: tuple[int, int] | None = None
    ) -> Iterator[Relocation]:
        """:meth:`_rela` one entry at a time in Python (small sections)."""
        step = _CHUNK_ENTRIES * _RELA.size
        lo, hi = within if within is not None else (0, 1 << 64)
        for start in range(0, sec.size, step):
            chunk = self.read(sec, start, min(step, sec.size - start))
            for i, (r_offset, info, addend) in enumerate(_RELA.iter_unpack(chunk)):
                if not lo <= r_offset < hi:
                    continue
                yield Relocation(
                    offset=r_offset,
                    type=info & 0xFFFFFFFF,
                    symbol=info >> 32,
                    addend=addend,
                    section=sec.index,
                    entry_offset=sec.offset + start + i * _RELA.size,
                )

    def _symtab_bytes(self, symtab_index: int) -> bytes:
        """The whole ``Elf64_Sym`` entries of the section a relocation section links to."""
        if not 0 <= symtab_index < len(self.sections):
            raise InvalidElf(f"{self.name}: relocation section links to no symbol table")
        sec = self.sections[symtab_index]
        return self.read(sec, 0, sec.size - sec.size % 24) if sec.file_size else b""

    def symbol_table(self, symtab_index: int) -> Any:
        """The symbol table at section index ``symtab_index`` as a numpy record array
        (``shndx``, ``value``), read once and cached; InvalidElf when there is none."""
        import numpy as np

        cache = self.__dict__.setdefault("_symbol_arrays", {})
        table = cache.get(symtab_index)
        if table is None:
            raw = self._symtab_bytes(symtab_index)
            dtype = np.dtype(
                [("name", "<u4"), ("info", "u1"), ("other", "u1"), ("shndx", "<u2"),
                 ("value", "<u8"), ("size", "<u8")]
            )  # fmt: skip
            table = np.frombuffer(raw, dtype=dtype)
            cache[symtab_index] = table
        return table

    def first_pointer_into(
        self, lo: int, hi: int, skip: frozenset[int] = frozenset()
    ) -> Relocation | None:
        """The first dynamic relocation (section order, then entry order) whose target lies
        in [lo, hi), or None; relocations applied at an offset in ``skip`` are not looked
        at. The target is the addend of a RELATIVE entry, the word in the file for RELR, a
        defined symbol's value plus the addend for a symbolic one (undefined symbols and
        symbol 0 point nowhere). RELA sections are filtered as numpy arrays, then the few
        candidates checked exactly in Python; the errors (REL, odd entry sizes, a symbol
        outside its table) are the ones the one-by-one walk raised, at the same entry."""
        relative, _ = self.reloc_types
        skipped: Any = None  # the skipped offsets as an array, made once when needed
        for sec in self.sections:
            if sec.type == SHT_REL:
                raise InvalidElf(f"{self.name}: REL relocations ({sec.name}) are not supported")
            if sec.type == SHT_RELR:
                for rel in self._relr(sec):
                    if rel.offset not in skip and self._points_into(rel, lo, hi, relative):
                        return rel
                continue
            if sec.type != SHT_RELA:
                continue
            if sec.entsize not in (0, _RELA.size) or sec.size % _RELA.size:
                raise InvalidElf(f"{self.name}: {sec.name} has entries of {sec.entsize} bytes")
            if sec.size // _RELA.size < self.array_entries:
                for rel in self._rela_walk(sec):
                    if rel.offset not in skip and self._points_into(rel, lo, hi, relative):
                        return rel
                continue
            if skipped is None:
                import numpy as np

                skipped = np.array(sorted(skip), dtype=np.uint64)
            for first, table in self.rela_chunks(sec):
                found = self._pointer_in_chunk(sec, first, table, lo, hi, skipped, relative)
                if found is not None:
                    return found
        return None

    def _points_into(self, rel: Relocation, lo: int, hi: int, relative: int) -> bool:
        """Whether ``rel``'s target lies in [lo, hi) (the rules of :meth:`first_pointer_into`)."""
        if rel.type == relative:
            if rel.entry_offset >= 0:
                target = rel.addend
            else:  # RELR: the addend is the word in the file
                at = self.vaddr_to_offset(rel.offset, 8)
                if at is None:
                    return False
                (target,) = struct.unpack("<Q", self.source.pread(at, 8))
        elif rel.symbol:
            value, shndx = self.symbol_address(self.sections[rel.section].link, rel.symbol)
            if shndx == 0:
                return False
            target = value + rel.addend
        else:
            return False
        return lo <= target < hi

    def _pointer_in_chunk(
        self, sec: Section, first: int, table: Any, lo: int, hi: int, skipped: Any, relative: int
    ) -> Relocation | None:
        """:meth:`first_pointer_into` over one chunk of a RELA section."""
        import numpy as np

        info = table["info"]
        types = info & np.uint64(0xFFFFFFFF)
        symbols = info >> np.uint64(32)
        kept = ~np.isin(table["offset"], skipped) if len(skipped) else np.ones(len(table), bool)
        addends = table["addend"].view(np.uint64)  # two's complement: lo <= a < hi for a >= 0
        low, high = np.uint64(lo), np.uint64(min(hi, (1 << 64) - 1))
        maybe = kept & (types == relative) & (addends >= low) & (addends < high)
        symbolic = kept & (types != relative) & (symbols != 0)
        if symbolic.any():
            try:
                symtab = self.symbol_table(sec.link)
            except InvalidElf:  # raised at the first symbolic entry, as the walk did
                before = maybe[: int(np.argmax(symbolic))]
                if before.any():
                    return self._pointer_in_chunk(
                        sec, first, table[: len(before)], lo, hi, skipped, relative
                    )
                raise
            inside = symbols < np.uint64(len(symtab))
            outside = symbolic & ~inside
            index = np.where(inside, symbols, 0).astype(np.intp)
            values = symtab["value"][index] if len(symtab) else np.zeros(len(table), np.uint64)
            defined = (symtab["shndx"][index] != 0) if len(symtab) else np.zeros(len(table), bool)
            targets = values + addends  # wraps mod 2**64: candidates, checked exactly below
            maybe |= outside | (symbolic & inside & defined & (targets >= low) & (targets < high))
        for i in np.flatnonzero(maybe).tolist():
            r_offset, word, addend = (int(v) for v in table[i])
            rel = Relocation(
                r_offset,
                word & 0xFFFFFFFF,
                word >> 32,
                addend,
                sec.index,
                sec.offset + (first + i) * _RELA.size,
            )
            if self._points_into(rel, lo, hi, relative):  # raises for a symbol outside
                return rel
        return None

    def _relr(self, sec: Section) -> Iterator[Relocation]:
        if sec.size % 8:
            raise InvalidElf(f"{self.name}: {sec.name} size is not a multiple of 8")
        relative, _ = self.reloc_types
        base = 0
        for (word,) in struct.iter_unpack("<Q", self.read(sec)):
            if word & 1 == 0:
                yield Relocation(word, relative, 0, 0, sec.index, -1)
                base = word + 8
            else:
                for bit in range(63):
                    if word >> (bit + 1) & 1:
                        yield Relocation(base + 8 * bit, relative, 0, 0, sec.index, -1)
                base += 8 * 63

    def symbol_address(self, symtab_index: int, symbol: int) -> tuple[int, int]:
        """(st_value, st_shndx) of a symbol; the table is read once and cached, because
        big libraries have a symbol-based relocation for most of their symbols."""
        cache = self.__dict__.setdefault("_symbols", {})
        table = cache.get(symtab_index)
        if table is None:
            raw = self._symtab_bytes(symtab_index)
            table = [
                (value, shndx)
                for _n, _i, _o, shndx, value, _s in struct.iter_unpack("<IBBHQQ", raw)
            ]
            cache[symtab_index] = table
        if not 0 <= symbol < len(table):
            raise InvalidElf(f"{self.name}: relocation names symbol {symbol}, outside its table")
        value, shndx = table[symbol]
        return value, shndx

    def symbol_value(self, symtab_index: int, symbol: int) -> tuple[str, int, int]:
        """(name, st_value, st_shndx) of symbol ``symbol`` in the table at section index."""
        if not 0 <= symtab_index < len(self.sections):
            raise InvalidElf(f"{self.name}: relocation section links to no symbol table")
        table = self.sections[symtab_index]
        if symbol < 0 or (symbol + 1) * 24 > table.file_size:
            raise InvalidElf(f"{self.name}: symbol {symbol} is outside {table.name}")
        raw = self.read(table, symbol * 24, 24)
        st_name, _info, _other, shndx, value, _size = struct.unpack("<IBBHQQ", raw)
        name = ""
        if 0 <= table.link < len(self.sections):
            strtab = self.sections[table.link]
            if st_name < strtab.file_size:
                tail = self.read(strtab, st_name, min(256, strtab.size - st_name))
                name = tail.split(b"\0", 1)[0].decode("utf-8", "replace")
        return name, value, shndx

"""The few facts about a host shared library that the fat-binary code needs: section and
segment headers (through pyelftools), address translation, and dynamic relocations read
in bulk with ``struct`` (libtorch_hip has millions; pyelftools' per-entry objects would
take minutes).  Every offset and size is checked against the file, so a truncated or
hostile ELF gives InvalidElf with one line, never an IndexError.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from wheel_size.errors import InvalidElf
from wheel_size.rocm.source import ByteSource, as_source

__all__ = [
    "ElfImage",
    "Relocation",
    "Section",
    "Segment",
    "is_elf",
]

SHT_NOBITS = 8
SHT_RELA = 4
SHT_REL = 9
SHT_RELR = 19
SHF_ALLOC = 0x2
PT_LOAD = 1
PT_PHDR = 6

EM_X86_64 = 62
EM_AARCH64 = 183
# machine -> (RELATIVE, absolute 64-bit)
RELOC_TYPES = {EM_X86_64: (8, 1), EM_AARCH64: (1027, 257)}
_RELA = struct.Struct("<QQq")
_CHUNK_ENTRIES = 1 << 14


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

    @property
    def file_size(self) -> int:
        """Bytes the section occupies in the file (0 for NOBITS)."""
        return 0 if self.type == SHT_NOBITS else self.size


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


class ElfImage:
    """Headers of one ELF file opened from bytes or a binary file (never read whole)."""

    def __init__(self, data: bytes | IO[bytes], name: str) -> None:
        self.name = name
        self.source: ByteSource = as_source(data)
        head = self.source.pread(0, 64)
        if not is_elf(head):
            raise InvalidElf(f"{name}: not an ELF file")
        if len(head) < 64:
            raise InvalidElf(f"{name}: truncated ELF header")
        if head[4] != 2 or head[5] != 1:
            raise InvalidElf(f"{name}: only 64-bit little-endian ELF files are supported")
        phoff, shoff = struct.unpack_from("<QQ", head, 32)
        phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", head, 54)
        size = self.source.size
        if phnum and (phentsize != 56 or phoff > size or phnum * 56 > size - phoff):
            raise InvalidElf(f"{name}: program header table lies outside the file (truncated?)")
        if shnum and (shentsize != 64 or shoff > size or shnum * 64 > size - shoff):
            raise InvalidElf(f"{name}: section header table lies outside the file (truncated?)")
        stream = data if not isinstance(data, (bytes, bytearray, memoryview)) else None
        try:
            elf = ELFFile(stream if stream is not None else io.BytesIO(bytes(data)))  # type: ignore[arg-type]
            self.header = dict(elf.header)
            self.machine = int(struct.unpack_from("<H", head, 18)[0])
            self.elf_type = int(struct.unpack_from("<H", head, 16)[0])
            self.sections = self._read_sections(elf)
            self.segments = [
                Segment(
                    index=i,
                    type=int(struct.unpack_from("<I", self._phdr_raw(i))[0]),
                    flags=seg["p_flags"],
                    offset=seg["p_offset"],
                    vaddr=seg["p_vaddr"],
                    paddr=seg["p_paddr"],
                    filesz=seg["p_filesz"],
                    memsz=seg["p_memsz"],
                    align=seg["p_align"],
                )
                for i, seg in enumerate(elf.iter_segments())
            ]
        except (
            ELFError,
            struct.error,
            ValueError,
            KeyError,
            IndexError,
            OverflowError,
            UnicodeDecodeError,
            AssertionError,
            AttributeError,
            TypeError,
        ) as exc:  # pyelftools on hostile input: all mean "not a usable ELF"
            raise InvalidElf(f"{name}: malformed or truncated ELF ({exc})") from None
        self._check_bounds()

    def _phdr_raw(self, index: int) -> bytes:
        off = self.header["e_phoff"] + index * self.header["e_phentsize"]
        raw = self.source.pread(off, 56)
        if len(raw) != 56:
            raise InvalidElf(f"{self.name}: program header {index} is truncated")
        return raw

    def _read_sections(self, elf: ELFFile) -> list[Section]:
        count = elf.num_sections()
        if self.header["e_shoff"] + count * self.header["e_shentsize"] > self.source.size:
            raise InvalidElf(f"{self.name}: section header table runs past the end of the file")
        sections = []
        for i in range(count):
            sec = elf.get_section(i)
            sections.append(
                Section(
                    index=i,
                    name=sec.name,
                    type=int(struct.unpack_from("<I", self._shdr_raw(i), 4)[0]),
                    flags=sec["sh_flags"],
                    addr=sec["sh_addr"],
                    offset=sec["sh_offset"],
                    size=sec["sh_size"],
                    link=sec["sh_link"],
                    info=sec["sh_info"],
                    addralign=sec["sh_addralign"],
                    entsize=sec["sh_entsize"],
                )
            )
        return sections

    def _shdr_raw(self, index: int) -> bytes:
        off = self.header["e_shoff"] + index * self.header["e_shentsize"]
        raw = self.source.pread(off, 64)
        if len(raw) != 64:
            raise InvalidElf(f"{self.name}: section header {index} is truncated")
        return raw

    def _check_bounds(self) -> None:
        size = self.source.size
        shstrndx = self.header["e_shstrndx"]
        if self.sections and shstrndx >= len(self.sections):
            raise InvalidElf(
                f"{self.name}: section name table index {shstrndx} is outside the "
                f"{len(self.sections)} section headers"
            )
        if self.header["e_phoff"] + len(self.segments) * self.header["e_phentsize"] > size:
            raise InvalidElf(f"{self.name}: program header table runs past the end of the file")
        for sec in self.sections:
            if sec.file_size and sec.offset + sec.size > size:
                raise InvalidElf(
                    f"{self.name}: section {sec.name or sec.index} (offset {sec.offset:#x}, "
                    f"size {sec.size:#x}) runs past the end of the file ({size:#x} bytes)"
                )
        for seg in self.segments:
            if seg.filesz and seg.offset + seg.filesz > size:
                raise InvalidElf(
                    f"{self.name}: segment {seg.index} runs past the end of the file "
                    f"(truncated ELF?)"
                )

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
        size = sec.size - offset if size is None else size
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

    def dynamic_relocations(self) -> Iterator[Relocation]:
        """Every RELA and RELR relocation of the file, in section order."""
        for sec in self.sections:
            if sec.type == SHT_REL:
                raise InvalidElf(f"{self.name}: REL relocations ({sec.name}) are not supported")
            if sec.type == SHT_RELA:
                if sec.entsize not in (0, _RELA.size) or sec.size % _RELA.size:
                    raise InvalidElf(f"{self.name}: {sec.name} has entries of {sec.entsize} bytes")
                yield from self._rela(sec)
            elif sec.type == SHT_RELR:
                yield from self._relr(sec)

    def _rela(self, sec: Section) -> Iterator[Relocation]:
        step = _CHUNK_ENTRIES * _RELA.size
        for start in range(0, sec.size, step):
            chunk = self.read(sec, start, min(step, sec.size - start))
            for i, (r_offset, info, addend) in enumerate(_RELA.iter_unpack(chunk)):
                yield Relocation(
                    offset=r_offset,
                    type=info & 0xFFFFFFFF,
                    symbol=info >> 32,
                    addend=addend,
                    section=sec.index,
                    entry_offset=sec.offset + start + i * _RELA.size,
                )

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
            if not 0 <= symtab_index < len(self.sections):
                raise InvalidElf(f"{self.name}: relocation section links to no symbol table")
            sec = self.sections[symtab_index]
            raw = self.read(sec, 0, sec.size - sec.size % 24) if sec.file_size else b""
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
        raw = self.read(table, symbol * 24, 24)
        if len(raw) != 24 or (symbol + 1) * 24 > table.size:
            raise InvalidElf(f"{self.name}: symbol {symbol} is outside {table.name}")
        st_name, _info, _other, shndx, value, _size = struct.unpack("<IBBHQQ", raw)
        name = ""
        if 0 <= table.link < len(self.sections):
            strtab = self.sections[table.link]
            if st_name < strtab.size:
                tail = self.read(strtab, st_name, min(256, strtab.size - st_name))
                name = tail.split(b"\0", 1)[0].decode("utf-8", "replace")
        return name, value, shndx

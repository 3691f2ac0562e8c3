"""The few facts about a PE/COFF image (a Windows DLL) that the split needs: the headers,
the section table, the data directories, RVA translation and the base relocations.

This is the one place that decides whether a PE file's headers can be trusted, with the same
discipline as :mod:`wheel_size.rocm.elf_file`: every offset and size (the PE header, the
optional header and its data directories, the section table, each section's raw data, the
COFF string table of long section names, the base relocation blocks) is checked against
the file size *before* anything is read, so a truncated or hostile file is InvalidPe naming
the file and the lie, never a ``struct.error`` or a guess.  Section data is read through
:meth:`PeImage.read_rva` / :meth:`PeImage.read_image`, which stay inside the file-backed
part of a section.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Iterator
from dataclasses import dataclass

from wheel_size.errors import InvalidPe
from wheel_size.rocm.elf_file import check_span
from wheel_size.rocm.source import ByteSource, SourceLike, as_source

__all__ = [
    "DIR_BASERELOC",
    "DIR_BOUND_IMPORT",
    "DIR_DEBUG",
    "DIR_SECURITY",
    "IMAGE_FILE_DLL",
    "MACHINE_AMD64",
    "PE32PLUS",
    "REL_ABSOLUTE",
    "REL_DIR64",
    "REL_HIGHLOW",
    "SECTION_HEADER",
    "PeImage",
    "PeSection",
    "is_pe",
]

MZ = b"MZ"
PE_SIGNATURE = b"PE\0\0"
PE32 = 0x10B
PE32PLUS = 0x20B
MACHINE_AMD64 = 0x8664
IMAGE_FILE_DLL = 0x2000
IMAGE_FILE_RELOCS_STRIPPED = 0x0001
DIR_SECURITY = 4
DIR_BASERELOC = 5
DIR_DEBUG = 6
DIR_BOUND_IMPORT = 11
MAX_DIRECTORIES = 16
REL_ABSOLUTE = 0
REL_HIGHLOW = 3
REL_DIR64 = 10
COFF_HEADER = struct.Struct("<HHIIIHH")
SECTION_HEADER = struct.Struct("<8sIIIIIIHHI")
SYMBOL_SIZE = 18
_DIRECTORY = struct.Struct("<II")
_BLOCK = struct.Struct("<II")
# Optional-header field offsets: (PE32, PE32+).
_OPT = {
    "SizeOfInitializedData": (8, 8),
    "SectionAlignment": (32, 32),
    "FileAlignment": (36, 36),
    "SizeOfImage": (56, 56),
    "SizeOfHeaders": (60, 60),
    "CheckSum": (64, 64),
    "DllCharacteristics": (70, 70),
    "NumberOfRvaAndSizes": (92, 108),
}
_DIRECTORIES_AT = {PE32: 96, PE32PLUS: 112}


def is_pe(head: bytes) -> bool:
    """True when ``head`` starts like a DOS/PE executable (``MZ``)."""
    return head[:2] == MZ


@dataclass(frozen=True)
class PeSection:
    """One section header; ``header_offset`` is where its 40 bytes sit in the file."""

    index: int
    name: str
    virtual_size: int
    rva: int
    raw_size: int
    raw_offset: int
    pointer_to_relocations: int
    characteristics: int
    header_offset: int

    @property
    def extent(self) -> int:
        """Bytes the section spans in memory (VirtualSize; SizeOfRawData when that is 0)."""
        return self.virtual_size or self.raw_size

    @property
    def file_size(self) -> int:
        """Bytes of the section that come from the file (the rest is zero-filled)."""
        return min(self.raw_size, self.extent)


class PeImage:
    """Validated headers of one PE image opened from bytes or a binary file (never read
    whole).  ``name`` is what error messages call the file."""

    machine: int
    symbol_table: int
    symbol_count: int
    characteristics: int
    magic: int
    pe_offset: int
    optional_offset: int
    section_table: int
    directories_offset: int
    directories: list[tuple[int, int]]

    def __init__(self, data: SourceLike, name: str) -> None:
        self.name = name
        self.source: ByteSource = as_source(data)
        size = self.source.size
        head = self.source.pread(0, 64)
        if len(head) < 64 or head[:2] != MZ:
            raise InvalidPe(f"{name}: not a PE image (no 64-byte MZ header)")
        (self.pe_offset,) = struct.unpack_from("<I", head, 0x3C)
        if not check_span(self.pe_offset, 4 + COFF_HEADER.size, size):
            raise InvalidPe(
                f"{name}: PE header offset {self.pe_offset:#x} is past the end of the file "
                f"({size} bytes)"
            )
        sig = self.source.pread(self.pe_offset, 4 + COFF_HEADER.size)
        if sig[:4] != PE_SIGNATURE:
            raise InvalidPe(f"{name}: no PE signature at {self.pe_offset:#x} (a DOS program?)")
        (
            self.machine,
            nsections,
            _stamp,
            self.symbol_table,
            self.symbol_count,
            opt_size,
            self.characteristics,
        ) = COFF_HEADER.unpack_from(sig, 4)
        self.optional_offset = self.pe_offset + 4 + COFF_HEADER.size
        if opt_size < 2 or not check_span(self.optional_offset, opt_size, size):
            raise InvalidPe(
                f"{name}: optional header ({opt_size} bytes at {self.optional_offset:#x}) "
                "is missing or runs past the end of the file"
            )
        opt = self.source.pread(self.optional_offset, opt_size)
        (self.magic,) = struct.unpack_from("<H", opt, 0)
        if self.magic not in _DIRECTORIES_AT:
            raise InvalidPe(f"{name}: optional header magic {self.magic:#x} is not PE32 or PE32+")
        plus = self.magic == PE32PLUS
        dirs_at = _DIRECTORIES_AT[self.magic]
        if opt_size < dirs_at:
            raise InvalidPe(f"{name}: optional header is {opt_size} bytes, too short")
        self._opt = opt

        def field(key: str, fmt: str = "<I") -> int:
            value: int = struct.unpack_from(fmt, opt, _OPT[key][plus])[0]
            return value

        self.image_base: int = struct.unpack_from("<Q" if plus else "<I", opt, 24 if plus else 28)[
            0
        ]
        self.section_alignment = field("SectionAlignment")
        self.file_alignment = field("FileAlignment")
        self.size_of_image = field("SizeOfImage")
        self.size_of_headers = field("SizeOfHeaders")
        self.checksum = field("CheckSum")
        self.initialized_data = field("SizeOfInitializedData")
        self.dll_characteristics = field("DllCharacteristics", "<H")
        ndirs = field("NumberOfRvaAndSizes")
        count = min(ndirs, MAX_DIRECTORIES)
        if dirs_at + count * _DIRECTORY.size > opt_size:
            raise InvalidPe(
                f"{name}: {ndirs} data directories do not fit a {opt_size}-byte optional header"
            )
        self.directories_offset = self.optional_offset + dirs_at
        self.directories = [
            _DIRECTORY.unpack_from(opt, dirs_at + i * _DIRECTORY.size) for i in range(count)
        ]
        self.section_table = self.optional_offset + opt_size
        if not check_span(self.section_table, nsections * SECTION_HEADER.size, size):
            raise InvalidPe(
                f"{name}: section table ({nsections} sections at {self.section_table:#x}) "
                "runs past the end of the file"
            )
        raw = self.source.pread(self.section_table, nsections * SECTION_HEADER.size)
        strings = (
            self._string_table() if any(raw[i * 40] == 0x2F for i in range(nsections)) else b""
        )
        sections = []
        for i in range(nsections):
            (name8, vsize, rva, rsize, rptr, relocs, _lines, _nrel, _nlines, chars) = (
                SECTION_HEADER.unpack_from(raw, i * SECTION_HEADER.size)
            )
            sname = self._section_name(name8, strings)
            if rsize and not check_span(rptr, rsize, size):
                raise InvalidPe(
                    f"{name}: section {sname} raw data [{rptr:#x}, +{rsize:#x}) runs past the "
                    f"end of the file ({size} bytes)"
                )
            if rva + max(vsize, rsize) > 0xFFFFFFFF:
                raise InvalidPe(f"{name}: section {sname} spans past the 4 GiB image limit")
            sections.append(
                PeSection(
                    i,
                    sname,
                    vsize,
                    rva,
                    rsize,
                    rptr,
                    relocs,
                    chars,
                    self.section_table + i * SECTION_HEADER.size,
                )
            )
        self.sections = sections

    # --- header facts -----------------------------------------------------------------

    @property
    def is_dll(self) -> bool:
        return bool(self.characteristics & IMAGE_FILE_DLL)

    @property
    def is_pe32plus(self) -> bool:
        return self.magic == PE32PLUS

    @property
    def checksum_offset(self) -> int:
        return self.optional_offset + _OPT["CheckSum"][self.is_pe32plus]

    def optional_field_offset(self, key: str) -> int:
        """File offset of one optional-header field (see ``_OPT``)."""
        return self.optional_offset + _OPT[key][self.is_pe32plus]

    def directory(self, index: int) -> tuple[int, int]:
        """(RVA, size) of a data directory; (0, 0) when absent."""
        if index >= len(self.directories):
            return (0, 0)
        return self.directories[index]

    @property
    def section_table_end(self) -> int:
        return self.section_table + len(self.sections) * SECTION_HEADER.size

    def section(self, *names: str) -> PeSection | None:
        """The first section called any of ``names``."""
        for sec in self.sections:
            if sec.name in names:
                return sec
        return None

    # --- names --------------------------------------------------------------------------

    def _string_table(self) -> bytes:
        """The COFF string table after the symbol table (long section names, MinGW)."""
        if not self.symbol_table:
            return b""
        at = self.symbol_table + self.symbol_count * SYMBOL_SIZE
        if not check_span(at, 4, self.source.size):
            raise InvalidPe(
                f"{self.name}: COFF string table at {at:#x} is past the end of the file"
            )
        (length,) = struct.unpack("<I", self.source.pread(at, 4))
        if length < 4 or not check_span(at, length, self.source.size):
            raise InvalidPe(f"{self.name}: COFF string table ({length} bytes) is truncated")
        return self.source.pread(at, length)

    def _section_name(self, raw: bytes, strings: bytes) -> str:
        text = raw.rstrip(b"\0").decode("latin-1")
        if text.startswith("/") and text[1:].isdigit() and strings:
            at = int(text[1:])
            end = strings.find(b"\0", at)
            if at < 4 or end < 0:
                raise InvalidPe(f"{self.name}: section name {text!r} is outside the string table")
            return strings[at:end].decode("latin-1")
        return text

    # --- addresses -----------------------------------------------------------------------

    def section_at(self, rva: int) -> PeSection | None:
        """The section whose memory range holds ``rva``."""
        for sec in self.sections:
            if sec.rva <= rva < sec.rva + sec.extent:
                return sec
        return None

    def rva_to_offset(self, rva: int, size: int = 1) -> int | None:
        """File offset of ``[rva, rva + size)`` when it is file-backed inside one section."""
        sec = self.section_at(rva)
        if sec is None:
            return None
        delta = rva - sec.rva
        if delta + size > sec.file_size:
            return None
        return sec.raw_offset + delta

    def read_rva(self, rva: int, size: int, what: str) -> bytes:
        """``size`` file-backed bytes at ``rva`` or InvalidPe naming ``what``."""
        at = self.rva_to_offset(rva, size)
        if at is None:
            raise InvalidPe(
                f"{self.name}: {what} [{rva:#x}, +{size:#x}) is not inside one section's data"
            )
        return self.source.pread(at, size)

    def read_section(self, sec: PeSection) -> bytes:
        """The file-backed bytes of one (small) section."""
        return self.source.pread(sec.raw_offset, sec.file_size) if sec.file_size else b""

    def read_image(self, rva: int, size: int) -> bytes:
        """``size`` bytes of the loaded image at ``rva``: file bytes where a section has
        them, zeros elsewhere (zero-filled tails, gaps, past the last section)."""
        out = bytearray(size)
        for sec in self.sections:
            lo, hi = max(rva, sec.rva), min(rva + size, sec.rva + sec.file_size)
            if lo < hi:
                out[lo - rva : hi - rva] = self.source.pread(sec.raw_offset + lo - sec.rva, hi - lo)
        return bytes(out)

    # --- base relocations ----------------------------------------------------------------

    def relocation_blocks(self) -> Iterator[tuple[int, array[int]]]:
        """(page RVA, entries) per base relocation block; an entry is ``type << 12 |
        offset``.  Block sizes are checked against the directory."""
        rva, size = self.directory(DIR_BASERELOC)
        if not rva or not size:
            return
        data = self.read_rva(rva, size, "base relocation directory")
        pos = 0
        while pos + _BLOCK.size <= size:
            page, block = _BLOCK.unpack_from(data, pos)
            if block < _BLOCK.size or block % 2 or pos + block > size:
                raise InvalidPe(
                    f"{self.name}: base relocation block at {rva + pos:#x} has size {block}"
                )
            entries = array("H")
            entries.frombytes(data[pos + _BLOCK.size : pos + block])
            yield page, entries
            pos += block

    def relocations(self, lo: int, hi: int) -> dict[int, int]:
        """RVA -> type of every base relocation (ABSOLUTE padding excluded) in ``[lo, hi)``."""
        found: dict[int, int] = {}
        for page, entries in self.relocation_blocks():
            if page + 0x1000 <= lo or page >= hi:
                continue
            for entry in entries:
                kind, at = entry >> 12, page + (entry & 0xFFF)
                if kind != REL_ABSOLUTE and lo <= at < hi:
                    found[at] = kind
        return found


def pe_checksum(source: ByteSource, checksum_offset: int, chunk: int = 1 << 20) -> int:
    """The PE image checksum (``CheckSumMappedFile``): the one's-complement sum of the file's
    16-bit little-endian words with the CheckSum field read as zero, plus the file length.

    Computed in big chunks: since 2**16 = 1 (mod 0xFFFF), a chunk read as one base-2**16
    number is congruent to the sum of its words, so ``int.from_bytes(...) % 0xFFFF`` folds
    a megabyte at C speed.
    """
    size = source.size
    total = 0
    nonzero = False
    pos = 0
    while pos < size:
        data = bytearray(source.pread(pos, min(chunk, size - pos)))
        if not data:
            break
        lo, hi = max(checksum_offset, pos), min(checksum_offset + 4, pos + len(data))
        if lo < hi:
            data[lo - pos : hi - pos] = bytes(hi - lo)
        if len(data) % 2:
            data.append(0)
        value = int.from_bytes(data, "little")
        nonzero = nonzero or value != 0
        total = (total + value % 0xFFFF) % 0xFFFF
        pos += len(data)
    folded = total if total or not nonzero else 0xFFFF
    return (folded + size) & 0xFFFFFFFF

"""Code objects that lie: symbols past their section, names without terminators, a million
symbols, names the demangler rejects, corrupt or unknown fatbin compression. Each is shown
mangled or counted as unattributed with one problem line; nothing raises."""

from __future__ import annotations

import struct
from pathlib import Path

from kernelfx import library
from wheel_size.cuda.fatbin import FLAG_LZ4, FLAG_ZSTD
from wheel_size.cuda.library import scan_cuda_sections
from wheel_size.kernels.functions import MAX_FUNCTIONS, elf_functions
from wheel_size.kernels.inventory import UNATTRIBUTED, Inventory, read_inventory

_SYM = struct.Struct("<IBBHQQ")
_SHDR = struct.Struct("<IIQQQQIIQQ")
STT_FUNC = 2


def _elf(symbols: bytes, strtab: bytes, text_size: int = 256) -> bytes:
    """A minimal ELF64 code object: .text, .symtab, .strtab, .shstrtab."""
    shstrtab = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    text = bytes(text_size)
    symtab = bytes(_SYM.size) + symbols  # the null symbol first
    body = [text, symtab, strtab, shstrtab]
    offset = 64
    offsets = []
    for part in body:
        offsets.append(offset)
        offset += len(part)
    shoff = offset
    headers = [bytes(_SHDR.size)]
    headers.append(_SHDR.pack(1, 1, 0x6, 0, offsets[0], len(text), 0, 0, 16, 0))
    headers.append(_SHDR.pack(7, 2, 0, 0, offsets[1], len(symtab), 3, 1, 8, _SYM.size))
    headers.append(_SHDR.pack(15, 3, 0, 0, offsets[2], len(strtab), 0, 0, 1, 0))
    headers.append(_SHDR.pack(23, 3, 0, 0, offsets[3], len(shstrtab), 0, 0, 1, 0))
    ehdr = struct.pack(
        "<16sHHIQQQIHHHHHH",
        b"\x7fELF\x02\x01\x01" + bytes(9),
        2, 224, 1, 0, 0, shoff, 0, 64, 0, 0, _SHDR.size, len(headers), 4,
    )  # fmt: skip
    return ehdr + b"".join(body) + b"".join(headers)


def _func(name_offset: int, value: int, size: int) -> bytes:
    return _SYM.pack(name_offset, 0x10 | STT_FUNC, 0, 1, value, size)


def test_sizes_past_the_section_are_unattributed() -> None:
    strtab = b"\0_Z4goodv\0_Z3badv\0"
    data = _elf(_func(1, 0, 64) + _func(10, 128, 1 << 40), strtab)
    found = elf_functions(data, "lib.so: code object")
    assert [f.name for f in found.functions] == ["_Z4goodv"]
    assert found.attributed + found.unattributed == len(data)
    [problem] = found.problems
    assert problem.startswith("lib.so: code object: 1 symbol(s) lie") and "_Z3badv" in problem


def test_a_name_without_terminator_is_unattributed() -> None:
    strtab = b"\0_Z4goodv\0_Z3endless"  # the last name runs off the table
    data = _elf(_func(1, 0, 64) + _func(10, 64, 64), strtab)
    found = elf_functions(data, "lib.so: code object")
    assert [f.name for f in found.functions] == ["_Z4goodv"]
    assert found.unattributed == len(data) - 64
    assert "no terminator" in found.problems[0]


def test_a_million_symbols_keep_a_bounded_list() -> None:
    strtab = b"\0_Z4manyv\0"
    symbols = b"".join(_func(1, (i % 64) * 4, 4) for i in range(64)) * (10**6 // 64)
    data = _elf(symbols, strtab)
    found = elf_functions(data, "lib.so: code object")
    assert len(found.functions) <= MAX_FUNCTIONS
    assert any(f"more than {MAX_FUNCTIONS} functions" in p for p in found.problems)
    assert found.attributed + found.unattributed == len(data)


def test_names_the_demangler_rejects_are_shown_mangled() -> None:
    inventory = Inventory()
    assert not inventory.add("sm_90", "_Z3badX", 64)
    item = inventory.items[("sm_90", "_Z3badX")]
    assert item.family == UNATTRIBUTED


def _patched(tmp_path: Path, name: str, patch: str) -> Path:
    data = bytearray(library(name).read_bytes())
    with library(name).open("rb") as stream:
        from wheel_size.rocm.elf_file import ElfImage

        elf = ElfImage(stream, name)
        found = scan_cuda_sections(stream, source=name, elf=elf)
    entry = next(f for f in found if f.entry.compression)
    section = next(s for s in elf.sections if s.name == entry.section)
    at = section.offset + entry.entry.offset
    if patch == "payload":
        start = at + entry.entry.header_size  # the frame header / first LZ4 tokens
        data[start : start + 16] = b"\xff" * 16
    else:  # both compression flags
        (flags,) = struct.unpack_from("<Q", data, at + 40)
        struct.pack_into("<Q", data, at + 40, flags | FLAG_LZ4 | FLAG_ZSTD)
    out = tmp_path / f"{patch}-{name}"
    out.write_bytes(bytes(data))
    return out


def test_corrupt_or_unknown_compression_is_one_problem(tmp_path: Path) -> None:
    for name in ("libkern_v2.so", "libkern_v2_lz4.so"):
        for patch in ("payload", "flags"):
            inventory = Inventory()
            read_inventory(inventory, _patched(tmp_path, name, patch), f"whl:{name}", "kernel")
            assert len(inventory.problems) == 1, inventory.problems
            assert inventory.problems[0].startswith(f"whl:{name}: .nv_fatbin")


def test_every_cubin_lying_is_one_warning_for_the_library(tmp_path: Path) -> None:
    from wheel_size.cuda.images import iter_images
    from wheel_size.rocm.elf_file import ElfImage

    path = library("libkern_v1.so")  # raw SASS: the cubins sit in the file as they are
    data = bytearray(path.read_bytes())
    lied = 0
    with path.open("rb") as stream:
        elf = ElfImage(stream, "lib")
        sections = {s.name: s for s in elf.sections}
        for image in iter_images(stream, elf, "lib"):
            base = sections[image.section].offset + image.entry.offset + image.entry.header_size
            cubin = ElfImage(image.data, "cubin")
            for sec in cubin.sections:
                if sec.type != 2:  # SHT_SYMTAB
                    continue
                for at in range(sec.offset, sec.offset + sec.size, _SYM.size):
                    name, info, other, shndx, value, size = _SYM.unpack_from(image.data, at)
                    if info & 0xF == STT_FUNC and size:
                        _SYM.pack_into(data, base + at, name, info, other, shndx, value, 1 << 40)
                        lied += 1
    assert lied > 4
    hostile = tmp_path / "libkern_v1.so"
    hostile.write_bytes(bytes(data))
    inventory = Inventory()
    read_inventory(inventory, hostile, "whl:libkern_v1.so", "kernel")
    [problem] = inventory.problems
    assert "lie about their bytes" in problem and "more problems in whl:libkern_v1.so" in problem
    assert not [key for key in inventory.items if key[0].startswith("sm_")]


def test_host_symbols_that_lie_are_unattributed_and_sections_add_up() -> None:
    from wheel_size.kernels.host import host_symbols
    from wheel_size.rocm.elf_file import ElfImage

    strtab = b"\0good\0alias\0bad\0inner\0"
    symbols = (
        _func(1, 0, 64)  # good: [0, 64)
        + _func(6, 0, 64)  # alias: same bytes, counted once
        + _func(12, 200, 100)  # bad: past the 256-byte .text
        + _func(16, 16, 8)  # inner: inside good
    )
    found = host_symbols(ElfImage(_elf(symbols, strtab), "lib.so"))
    [text] = [s for s in found.sections if s.name == ".text"]
    assert sum(text.symbols.values()) == 64 and len(text.symbols) == 1
    assert text.unattributed == 256 - 64
    [problem] = found.problems
    assert problem.startswith("lib.so: 1 symbol(s) lie")

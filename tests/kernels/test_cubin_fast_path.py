"""The bulk symbol reader (kernels.cubin) against the validated reader it stands in for.

The fast path must list the same functions, bytes, digests and problems as the path through
ElfImage and iter_symbols, on the compilers' own code objects and on every corruption of
their headers and symbol tables: it either agrees or hands the code object back."""

from __future__ import annotations

import struct
from functools import cache

import lz4.block
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernelfx import library
from wheel_size.cuda.images import iter_images
from wheel_size.cuda.lz4block import BlockDecoder
from wheel_size.errors import InvalidBundle
from wheel_size.kernels.cubin import fast_candidates
from wheel_size.kernels.functions import MAX_FUNCTIONS, elf_functions, reference_functions
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.rocm.fatbin_library import read_library

CUDA = ("libkern_v1.so", "libkern_v2.so", "libkern_v2_lz4.so")
HIP = ("libhkern_v1.so", "libhkern_v2.so")


@cache
def _code_objects(name: str) -> tuple[bytes, ...]:
    path = library(name)
    with path.open("rb") as stream:
        if name in HIP:
            return tuple(bytes(c.data) for c in read_library(stream, name).iter_code_objects())
        elf = ElfImage(stream, name)
        return tuple(bytes(i.data) for i in iter_images(stream, elf, name))


@pytest.mark.parametrize("name", CUDA + HIP)
def test_the_compilers_code_objects_take_the_fast_path_and_agree(name: str) -> None:
    objects = _code_objects(name)
    assert objects
    for data in objects:
        assert fast_candidates(memoryview(data), MAX_FUNCTIONS) is not None
        assert elf_functions(data, "co") == reference_functions(data, "co")


def _regions(data: bytes) -> list[tuple[int, int]]:
    """Where the readers look: the ELF header, section headers, symbol and name tables."""
    elf = ElfImage(data, "co")
    shoff, shnum = elf.header["e_shoff"], elf.header["e_shnum"]
    regions = [(0, 64), (shoff, shoff + shnum * 64)]
    for section in elf.sections:
        if section.type in (2, 3, 11):  # symbol tables and string tables
            regions.append((section.offset, section.offset + section.size))
    return [(a, b) for a, b in regions if b > a]


@st.composite
def _corrupted(draw: st.DrawFn) -> bytes:
    name = draw(st.sampled_from(CUDA + HIP))
    objects = _code_objects(name)
    data = bytearray(draw(st.sampled_from(objects)))
    regions = _regions(bytes(data))
    for _ in range(draw(st.integers(1, 6))):
        start, end = draw(st.sampled_from(regions))
        at = draw(st.integers(start, end - 1))
        width = draw(st.sampled_from([1, 2, 4, 8]))
        value = draw(st.sampled_from([0, 1, 0xFF, 0x7FFFFFFF, 1 << 40, draw(st.integers(0))]))
        chunk = (value % (1 << (8 * width))).to_bytes(width, "little")
        data[at : at + width] = chunk[: len(data) - at]
    if draw(st.booleans()):
        del data[draw(st.integers(0, len(data))) :]
    return bytes(data)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_corrupted())
def test_corrupt_code_objects_agree_with_the_validated_reader(data: bytes) -> None:
    assert elf_functions(data, "co") == reference_functions(data, "co")


def test_a_view_of_a_larger_buffer_reads_like_the_bytes() -> None:
    data = _code_objects("libkern_v1.so")[0]
    padded = memoryview(bytearray(data) + bytes(4096))[: len(data)]
    assert elf_functions(padded, "co") == elf_functions(data, "co")


def test_block_decoder_reuses_its_buffer_and_checks_the_size() -> None:
    decoder = BlockDecoder()
    first, second = b"a" * 5000 + bytes(range(256)), b"xyz" * 100
    for plain in (first, second, first):
        packed = lz4.block.compress(plain, store_size=False)
        assert bytes(decoder.decode(packed, len(plain), "e")) == plain
    packed = lz4.block.compress(first, store_size=False)
    with pytest.raises(InvalidBundle, match=r"^e: LZ4 block"):
        decoder.decode(packed, len(first) - 1, "e")  # the block is longer than claimed
    with pytest.raises(InvalidBundle, match=r"^e: LZ4 block decodes to"):
        decoder.decode(packed, len(first) + 7, "e")
    with pytest.raises(InvalidBundle, match=r"^e: LZ4 block does not decompress"):
        decoder.decode(b"\xff" * 32, 1000, "e")


def test_symbols_of_a_32_bit_code_object_go_through_the_validated_reader() -> None:
    data = bytearray(_code_objects("libkern_v1.so")[0])
    data[4] = 1  # ELFCLASS32: the fast path does not read it
    assert fast_candidates(memoryview(bytes(data)), MAX_FUNCTIONS) is None
    found = elf_functions(bytes(data), "co")
    assert found == reference_functions(bytes(data), "co")
    assert struct.unpack_from("<I", data, 0)[0] == 0x464C457F


# Section header fields (offset in the header, width) and the values that make each lie.
_FIELDS = {
    "name": (0, 4),
    "type": (4, 4),
    "flags": (8, 8),
    "addr": (16, 8),
    "offset": (24, 8),
    "size": (32, 8),
    "link": (40, 4),
    "entsize": (56, 8),
}
_VALUES = (0, 1, 8, 0x7000000A, 0xFFFF, 1 << 32, 1 << 40)


@pytest.mark.parametrize("name", ["libkern_v1.so", "libkern_v2_lz4.so", "libhkern_v1.so"])
@pytest.mark.parametrize("field", sorted(_FIELDS))
def test_every_section_header_field_that_lies_agrees(name: str, field: str) -> None:
    data = max(_code_objects(name), key=len)
    elf = ElfImage(data, "co")
    at, width = _FIELDS[field]
    for section in elf.sections:
        base = elf.header["e_shoff"] + section.index * 64 + at
        for value in _VALUES:
            bad = bytearray(data)
            bad[base : base + width] = (value % (1 << (8 * width))).to_bytes(width, "little")
            assert elf_functions(bytes(bad), "co") == reference_functions(bytes(bad), "co")


@pytest.mark.parametrize("name", ["libkern_v1.so", "libhkern_v1.so"])
def test_an_unterminated_function_name_agrees(name: str) -> None:
    data = bytearray(max(_code_objects(name), key=len))  # not a device-link stub
    elf = ElfImage(bytes(data), "co")
    [symtab] = [s for s in elf.sections if s.type == 2]
    strtab = elf.sections[symtab.link]
    table = elf.read(symtab)
    last = max(
        st_name
        for st_name, info, *_rest in struct.iter_unpack("<IBBHQQ", table)
        if info & 0xF == 2  # STT_FUNC: the last function name runs off the table
    )
    end = strtab.offset + strtab.size
    data[strtab.offset + last : end] = b"x" * (strtab.size - last)
    found = elf_functions(bytes(data), "co")
    assert found == reference_functions(bytes(data), "co")
    assert any("no terminator" in p for p in found.problems)

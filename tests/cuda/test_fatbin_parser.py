"""Corrupt and truncated fatbins: one clear InvalidBundle line, never a crash."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest

from wheel_size.cuda.fatbin import CONTAINER_MAGIC, parse_fatbin, parse_fatbin_bytes
from wheel_size.errors import InvalidBundle, InvalidElf

DATA = Path(__file__).resolve().parents[1] / "data" / "cuda"
BARE = (DATA / "k_ident.fatbin").read_bytes()


def test_two_containers_back_to_back_with_padding() -> None:
    data = BARE + b"\0" * (-len(BARE) % 8) + b"\0" * 16 + BARE
    containers = parse_fatbin_bytes(data)
    assert len(containers) == 2
    assert containers[1].offset > containers[0].end
    assert [e.arch for e in containers[0].entries] == [e.arch for e in containers[1].entries]


def test_sizes_add_up_to_the_container() -> None:
    (container,) = parse_fatbin_bytes(BARE)
    assert container.header_size + sum(e.stored_size for e in container.entries) == len(BARE)


@pytest.mark.parametrize("cut", [1, 15, 16, 40, 64, 100, len(BARE) - 1])
def test_truncated(cut: int) -> None:
    with pytest.raises(InvalidBundle, match=r"truncated|corrupt") as info:
        parse_fatbin_bytes(BARE[:cut], source="lib.so")
    assert "\n" not in str(info.value)
    assert str(info.value).startswith("lib.so")


def test_bad_magic() -> None:
    with pytest.raises(InvalidBundle, match="bad magic"):
        parse_fatbin_bytes(b"\x7fELF" + BARE[4:])


def test_entry_larger_than_container() -> None:
    data = bytearray(BARE)
    struct.pack_into("<Q", data, 16 + 8, 1 << 40)  # first entry's payload size
    with pytest.raises(InvalidBundle, match="past its container"):
        parse_fatbin_bytes(bytes(data))


def test_absurd_header_size() -> None:
    data = bytearray(BARE)
    struct.pack_into("<I", data, 16 + 4, 12)
    with pytest.raises(InvalidBundle, match="header size"):
        parse_fatbin_bytes(bytes(data))


def test_compressed_size_beyond_payload() -> None:
    data = bytearray(BARE)
    struct.pack_into("<Q", data, 16 + 0x28, 0x8011)
    struct.pack_into("<I", data, 16 + 0x10, 1 << 30)
    with pytest.raises(InvalidBundle, match="compressed bytes"):
        parse_fatbin_bytes(bytes(data))


def test_huge_declared_container_does_not_allocate() -> None:
    header = struct.pack("<IHHQ", CONTAINER_MAGIC, 1, 16, 1 << 62)
    with pytest.raises(InvalidBundle, match="truncated"):
        parse_fatbin(io.BytesIO(header), 1 << 40, source="x")


def test_fatbin_section_past_the_end_of_the_file(tmp_path: Path) -> None:
    from elftools.elf.elffile import ELFFile

    from wheel_size.cuda.library import scan_cuda_sections

    data = bytearray((DATA / "libk_v1.so").read_bytes())
    with (DATA / "libk_v1.so").open("rb") as stream:
        elf = ELFFile(stream)
        index = next(i for i, s in enumerate(elf.iter_sections()) if s.name == ".nv_fatbin")
        shoff, shentsize = elf["e_shoff"], elf["e_shentsize"]
    # grow the section's sh_size (offset 0x20 in an Elf64_Shdr) beyond the file
    at = shoff + index * shentsize + 0x20
    data[at : at + 8] = (len(data) * 2).to_bytes(8, "little")
    path = tmp_path / "lib.so"
    path.write_bytes(bytes(data))
    with (
        path.open("rb") as stream,
        pytest.raises(InvalidElf, match=r"section \.nv_fatbin .* lies outside the file"),
    ):
        scan_cuda_sections(stream, source="lib.so")

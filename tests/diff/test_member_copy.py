"""Changed libraries inflated for the kernel readers without their machine code
(diff.member_copy): only executable segments become holes, a section of data inside one
gets the member written whole, and the inventories stay the sequential reader's."""

from __future__ import annotations

import os
import struct
from pathlib import Path

from fatwheel import write_wheel
from kernelfx import kernel_wheel, library
from wheel_size.diff.by_compare import _changed
from wheel_size.diff.by_kernels import read_kernel_sides
from wheel_size.diff.member_copy import code_holes, holes_unread, inflate_member
from wheel_size.kernels.inventory import Inventory, read_inventory
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.wheel.archive import open_source

SHF_EXECINSTR = 0x4


def _inflate(
    tmp_path: Path, data: bytes, *, whole: bool = False
) -> tuple[Path, list[tuple[int, int]]]:
    wheel = tmp_path / "w"
    wheel.mkdir(exist_ok=True)
    (wheel / "lib.so").write_bytes(data)
    out = tmp_path / "out.so"
    fd = os.open(out, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
    try:
        holes = inflate_member(lambda: (wheel / "lib.so").open("rb"), fd, len(data), whole=whole)
    finally:
        os.close(fd)
    return out, holes


def test_only_the_code_segment_is_left_out(tmp_path: Path) -> None:
    data = library("libkern_v1.so").read_bytes()
    out, holes = _inflate(tmp_path, data)
    assert holes and holes == code_holes(data, len(data))
    got = out.read_bytes()
    assert len(got) == len(data)
    with library("libkern_v1.so").open("rb") as stream:
        elf = ElfImage(stream, "lib")
        code = [s for s in elf.sections if s.flags & SHF_EXECINSTR and s.file_size]
    for start, stop in holes:
        assert got[start:stop] == bytes(stop - start)
        # a hole lies inside the machine code sections, whole pages of it
        assert any(s.offset <= start and stop <= s.offset + s.file_size + 4096 for s in code)
    kept = bytearray(data)
    for start, stop in holes:
        kept[start:stop] = bytes(stop - start)
    assert got == bytes(kept)
    assert holes_unread(out, holes, "lib")
    whole, none = _inflate(tmp_path, data, whole=True)
    assert none == [] and whole.read_bytes() == data


def test_device_code_objects_are_written_whole() -> None:
    data = bytearray(library("libkern_v1.so").read_bytes())
    assert code_holes(bytes(data), len(data))
    for machine in (190, 224):  # EM_CUDA, EM_AMDGPU
        struct.pack_into("<H", data, 18, machine)
        assert code_holes(bytes(data), len(data)) == []
    assert code_holes(b"\x7fELF\x01\x01" + bytes(100), 106) == []  # 32-bit: not looked at


def test_a_code_segment_from_the_first_page_is_written() -> None:
    """The classic text segment (headers, read-only data and code from offset 0) would
    fail the section check and be inflated twice: it is not left out at all."""
    data = bytearray(library("libkern_v1.so").read_bytes())
    assert code_holes(bytes(data), len(data))
    (phoff,) = struct.unpack_from("<Q", data, 32)
    (phnum,) = struct.unpack_from("<H", data, 56)
    for i in range(phnum):
        at = phoff + i * 56
        kind, flags = struct.unpack_from("<II", data, at)
        if kind == 1 and flags & 1:
            (offset, _vaddr, _paddr, filesz) = struct.unpack_from("<QQQQ", data, at + 8)
            struct.pack_into("<QQ", data, at + 8, 0, 0)  # from the file's start
            struct.pack_into("<Q", data, at + 32, offset + filesz)
    assert code_holes(bytes(data), len(data)) == []


def _data_in_the_code_segment(name: str) -> bytes:
    """``name`` with its machine code sections marked as data (SHF_EXECINSTR cleared), as
    a linker that puts read-only data in the executable segment leaves it."""
    data = bytearray(library(name).read_bytes())
    with library(name).open("rb") as stream:
        elf = ElfImage(stream, name)
    (shoff,) = struct.unpack_from("<Q", data, 40)
    for section in elf.sections:
        if section.flags & SHF_EXECINSTR:
            at = shoff + section.index * 64 + 8
            (flags,) = struct.unpack_from("<Q", data, at)
            struct.pack_into("<Q", data, at, flags & ~SHF_EXECINSTR)
    return bytes(data)


def test_data_inside_the_code_segment_has_the_member_written_whole(tmp_path: Path) -> None:
    data = _data_in_the_code_segment("libkern_v2_lz4.so")
    out, holes = _inflate(tmp_path, data)
    assert holes and not holes_unread(out, holes, "lib")
    a = kernel_wheel(tmp_path / "a", "1.0", {"kern/libkern.so": "libkern_v1.so"})
    c = write_wheel(
        tmp_path / "kern-2.0-cp311-cp311-linux_x86_64.whl",
        [("kern/libkern.so", data, 0o755), ("kern/__init__.py", b"", 0o644)],
    )
    want = Inventory()
    lib = tmp_path / "lib.so"
    lib.write_bytes(data)
    read_inventory(want, lib, "b:kern/libkern.so", "kernel")
    assert want.items
    with open_source(a) as a_src, open_source(c) as c_src:
        names = _changed(a_src, c_src, "a", "b", [])
        for workers in (1, 2):
            _old, got = read_kernel_sides((a_src, c_src), names, ("a", "b"), workers)
            assert (got.items, got.unattributed, got.problems) == (
                want.items,
                want.unattributed,
                want.problems,
            )

"""The pooled kernel reader (diff.by_kernels, kernels.work) against the sequential one.

Whatever the number of workers and the size of a chunk, both sides' inventories must be
those ``read_inventory`` builds member by member: the same kernels, bytes, copies,
unattributed bytes and problems, in the same words and order; an entry both versions hold
with the same bytes is decoded once, and a library that makes the sequential reader stop
half-way is read by it."""

from __future__ import annotations

import pickle
import shutil
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from fatwheel import write_wheel
from kernelfx import kernel_wheel, library
from wheel_size.cuda.library import scan_cuda_sections
from wheel_size.diff.by_compare import _changed
from wheel_size.diff.by_kernels import read_kernel_sides
from wheel_size.errors import WheelSizeError
from wheel_size.kernels.inventory import Inventory, read_inventory
from wheel_size.kernels.work import Tally, plan_kernel_chunks, read_chunk, scan_kernel_library
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.wheel.archive import open_source

MEMBERS = {
    "kern/libkern.so": ("libkern_v1.so", "libkern_v2_lz4.so"),
    "kern/libzstd.so": ("libkern_v2_lz4.so", "libkern_v2.so"),
    "kern/libhip.so": ("libhkern_v1.so", "libhkern_v2.so"),
    "kern/libsame.so": ("libkern_v1.so", "libkern_twin.so"),  # 8 of 11 entries agree
}


def _sequential(wheel: Path, names: list[str], label: str, tmp: Path) -> Inventory:
    inventory = Inventory()
    with open_source(wheel) as source:
        for name in names:
            path = tmp / "member.so"
            with source.open(name) as src, path.open("wb") as dst:
                shutil.copyfileobj(src, dst)
            read_inventory(inventory, path, f"{label}:{name}", "kernel")
    return inventory


def _same(got: Inventory, want: Inventory) -> None:
    assert got.items == want.items
    assert got.unattributed == want.unattributed
    assert got.problems == want.problems


def _pooled(a: Path, b: Path, workers: int, chunk: int) -> tuple[Inventory, Inventory]:
    with open_source(a) as a_src, open_source(b) as b_src:
        names = _changed(a_src, b_src, "a", "b", [])
        return read_kernel_sides((a_src, b_src), names, ("a", "b"), workers, chunk_bytes=chunk)


def _check(tmp_path: Path, old: dict[str, str], new: dict[str, str]) -> None:
    a = kernel_wheel(tmp_path / "a", "1.0", old)
    b = kernel_wheel(tmp_path / "b", "2.0", new)
    with open_source(a) as a_src, open_source(b) as b_src:
        old_names, new_names = _changed(a_src, b_src, "a", "b", [])
    want_old = _sequential(a, old_names, "a", tmp_path)
    want_new = _sequential(b, new_names, "b", tmp_path)
    for workers in (1, 2, 4):  # four: more workers than library pairs' scans at once
        for chunk in (1, 1 << 30):  # one entry a chunk, one chunk a library
            got_old, got_new = _pooled(a, b, workers, chunk)
            _same(got_old, want_old)
            _same(got_new, want_new)


def test_pooled_reading_equals_the_sequential_reader(tmp_path: Path) -> None:
    old = {member: pair[0] for member, pair in MEMBERS.items()}
    new = {member: pair[1] for member, pair in MEMBERS.items()}
    old["kern/libgone.so"] = "libkern_v1.so"
    new["kern/libnew.so"] = "libhkern_v2.so"
    _check(tmp_path, old, new)


def test_entries_with_equal_bytes_are_decoded_once_for_both_sides(tmp_path: Path) -> None:
    old, new = library("libkern_v1.so"), library("libkern_twin.so")
    scans = scan_kernel_library(old, "a:lib"), scan_kernel_library(new, "b:lib")
    results = [read_chunk(c) for c in plan_kernel_chunks(0, *scans, limit=1)]
    shared = sum(r.shared for r in results)
    assert 0 < shared < len(scans[1].items)  # some entries agree, not all
    assert not any(r.fault for r in results)


def _corrupt(tmp_path: Path, name: str) -> Path:
    """``name`` with the payload of its last compressed entry overwritten."""
    data = bytearray(library(name).read_bytes())
    with library(name).open("rb") as stream:
        elf = ElfImage(stream, name)
        found = scan_cuda_sections(stream, source=name, elf=elf)
    entry = [f for f in found if f.entry.compression][-1]
    section = next(s for s in elf.sections if s.name == entry.section)
    start = section.offset + entry.entry.offset + entry.entry.header_size
    data[start : start + 16] = b"\xff" * 16
    out = tmp_path / f"bad-{name}"
    out.write_bytes(bytes(data))
    return out


def _unknown_flags(tmp_path: Path, name: str) -> Path:
    data = bytearray(library(name).read_bytes())
    with library(name).open("rb") as stream:
        elf = ElfImage(stream, name)
        found = scan_cuda_sections(stream, source=name, elf=elf)
    entry = [f for f in found if f.entry.compression][-1]
    section = next(s for s in elf.sections if s.name == entry.section)
    at = section.offset + entry.entry.offset
    (flags,) = struct.unpack_from("<Q", data, at + 40)
    struct.pack_into("<Q", data, at + 40, flags | 0x2000 | 0x8000)
    out = tmp_path / f"flags-{name}"
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize("damage", [_corrupt, _unknown_flags])
def test_a_library_the_reader_stops_in_is_read_the_sequential_way(
    tmp_path: Path, damage: Callable[[Path, str], Path]
) -> None:
    bad = damage(tmp_path, "libkern_v2_lz4.so").read_bytes()
    old = {"kern/libkern.so": "libkern_v1.so", "kern/libzstd.so": "libkern_v2.so"}
    a = kernel_wheel(tmp_path / "a", "1.0", old)
    b = tmp_path / "b" / "kern-2.0-cp311-cp311-linux_x86_64.whl"
    b.parent.mkdir()
    lz4 = library("libkern_v2_lz4.so").read_bytes()
    write_wheel(b, [("kern/libkern.so", bad, 0o755), ("kern/libzstd.so", lz4, 0o755)])
    with open_source(a) as a_src, open_source(b) as b_src:
        old_names, new_names = _changed(a_src, b_src, "a", "b", [])
    want_new = _sequential(b, new_names, "b", tmp_path)
    assert any("kernels are not listed" in p for p in want_new.problems)
    want_old = _sequential(a, old_names, "a", tmp_path)
    for workers in (1, 2):
        got_old, got_new = _pooled(a, b, workers, 1)
        _same(got_new, want_new)
        _same(got_old, want_old)


def test_a_member_that_does_not_inflate_is_one_line_naming_it(tmp_path: Path) -> None:
    a = kernel_wheel(tmp_path / "a", "1.0", {"kern/libkern.so": "libkern_v1.so"})
    b = kernel_wheel(tmp_path / "b", "2.0", {"kern/libkern.so": "libkern_v2_lz4.so"})
    data = bytearray(b.read_bytes())
    with open_source(b) as source:
        raw = source.member("kern/libkern.so").raw
        assert raw is not None
        at = raw.offset + raw.compressed_size // 2
    data[at : at + 64] = bytes(64)  # the CRC (or the deflate stream) no longer holds
    b.write_bytes(bytes(data))
    for workers in (1, 2):
        with pytest.raises(WheelSizeError) as caught:
            _pooled(a, b, workers, 1 << 30)
        message = str(caught.value)
        assert "kern/libkern.so" in message and "\n" not in message


def test_a_tally_crosses_processes_as_columns_and_reads_alike() -> None:
    tally = Tally()
    tally.items = {
        ("sm_90", "_Z1fv"): [96, 2],
        ("sm_80", "_Z1gv"): [32, 1],
        ("sm_90", "_Z1gv"): [8, 1],
    }
    tally.same = {("sm_90", "_Z1fv", b"d" * 12): [48, 2], ("sm_80", "_Z1gv", b"e" * 12): [32, 1]}
    tally.unattributed = {"sm_90": 5}
    tally.problems = [(3, "a problem")]
    back = pickle.loads(pickle.dumps(tally))
    assert back.items == {} and back.same == {}  # the columns are kept, not rebuilt
    for got in (back, pickle.loads(pickle.dumps(back))):
        assert list(got.counts()) == [(k, tuple(v)) for k, v in tally.items.items()]
        assert list(got.same_counts()) == [(k, tuple(v)) for k, v in tally.same.items()]
        assert list(got.names()) == ["_Z1fv", "_Z1gv", "_Z1gv"]
        assert (got.unattributed, got.problems) == (tally.unattributed, tally.problems)

"""The copies pass (kernels.copies) hashes each wanted function where the first pass found
it, and decodes an LZ4 entry only as far as the last one ends: the digests are those of a
second walk of the whole code object, on the fixture libraries (nvcc's plain, zstd and LZ4
entries, SASS and PTX)."""

from __future__ import annotations

import os
from collections import defaultdict

import pytest

from kernelfx import library
from wheel_size.cuda.lz4block import BlockDecoder
from wheel_size.kernels.copies import CopiesJob, Wanted, hash_copies
from wheel_size.kernels.work import (
    entry_functions,
    entry_where,
    plan_kernel_chunks,
    read_chunk,
    read_payload,
    scan_kernel_library,
)

CUDA = ("libkern_v1.so", "libkern_v2_lz4.so", "libkern_twin.so")


@pytest.mark.parametrize("name", CUDA)
def test_digests_where_found_equal_a_second_walk(name: str) -> None:
    path = library(name)
    scan = scan_kernel_library(path, "b:lib")
    chunk = plan_kernel_chunks(0, None, scan, 1 << 30, digests=True)[0]
    wanted: defaultdict[int, list[Wanted]] = defaultdict(list)
    for _arch, function, size, number, start in read_chunk(chunk).new.spot_rows():
        assert start >= 0
        wanted[number].append((function, size, start))
    work = tuple((scan.items[n], tuple(w)) for n, w in sorted(wanted.items()))
    got = hash_copies(CopiesJob(0, "new", (path, "b:lib"), work))
    assert not got.fault and got.same

    want: dict[tuple[str, str, bytes], list[int]] = {}
    fd = os.open(path, os.O_RDONLY)
    try:
        for item, functions in work:  # every function of every entry, hashed by a walk
            only = {(function, size) for function, size, _start in functions}
            raw = read_payload(fd, item.ref)
            where = entry_where(item, "b:lib")
            arch, found = entry_functions(item, raw, where, BlockDecoder(), only)
            for f in found.functions:
                slot = want.setdefault((arch, f.name, f.digest), [f.size, 0])
                slot[1] += 1
    finally:
        os.close(fd)
    assert got.same == want


def test_an_lz4_block_decoded_only_as_far_as_asked() -> None:
    path = library("libkern_v2_lz4.so")
    scan = scan_kernel_library(path, "b:lib")
    item = max(scan.items, key=lambda i: i.ref.entry.decompressed_size)
    assert item.ref.entry.compression == "lz4"
    size = item.ref.entry.decompressed_size
    with path.open("rb") as stream:
        stream.seek(item.ref.start)
        raw = stream.read(item.ref.length)
    whole = BlockDecoder().decode(raw, size, "x").tobytes()
    part = BlockDecoder().decode_prefix(raw, size, 64, "x")
    assert 64 <= len(part) < size
    assert part.tobytes() == whole[: len(part)]
    assert BlockDecoder().decode_prefix(raw, size, size, "x").tobytes() == whole


def test_chunks_carry_the_pairs_largest_lz4_entry() -> None:
    old = scan_kernel_library(library("libkern_v1.so"), "a:lib")
    new = scan_kernel_library(library("libkern_v2_lz4.so"), "b:lib")
    largest = max(
        i.ref.entry.decompressed_size for i in new.items if i.ref.entry.compression == "lz4"
    )
    chunks = plan_kernel_chunks(0, old, new, 1)  # one entry a chunk
    assert len(chunks) > 1
    assert {c.room for c in chunks} == {largest}
    assert plan_kernel_chunks(0, old, None, 1)[0].room == 0  # no LZ4 entry on that side

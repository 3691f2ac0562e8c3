"""Identical copies found by hashing only functions that share arch, name and size
(kernels.copies): the same marks as hashing every function, on the fixture libraries."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from kernelfx import DUPLICATE, kernel_wheel, library
from wheel_size.diff.by_compare import _changed
from wheel_size.diff.by_kernels import read_kernel_sides
from wheel_size.kernels.copies import hash_copies, plan_copies
from wheel_size.kernels.demangle import demangle
from wheel_size.kernels.inventory import Inventory
from wheel_size.kernels.library import iter_code_objects
from wheel_size.kernels.work import plan_kernel_chunks, read_chunk, scan_kernel_library
from wheel_size.wheel.archive import open_source

MEMBERS = {"kern/libkern.so": "libkern_twin.so", "kern/libhip.so": "libhkern_v2.so"}


def _every_function_hashed(name: str) -> dict[tuple[str, str], list[int]]:
    """The duplicates the old way: every function of the library hashed."""
    same: Counter[tuple[str, str, bytes, int]] = Counter()
    with library(name).open("rb") as stream:
        for code in iter_code_objects(stream, name, [], digests=True):
            for function in code.functions.functions:
                same[(code.arch, function.name, function.digest, function.size)] += 1
    inventory = Inventory()
    inventory.add_duplicates(
        (arch, mangled, size, copies)
        for (arch, mangled, _digest, size), copies in same.items()
        if copies > 1
    )
    return inventory.duplicates


def test_pooled_duplicates_equal_hashing_every_function(tmp_path: Path) -> None:
    a = kernel_wheel(tmp_path / "a", "1.0", {"kern/libkern.so": "libkern_v1.so"})
    b = kernel_wheel(tmp_path / "b", "2.0", MEMBERS)
    want: dict[tuple[str, str], list[int]] = {}
    for lib in MEMBERS.values():
        for key, (copies, extra) in _every_function_hashed(lib).items():
            slot = want.setdefault(key, [0, 0])
            slot[0], slot[1] = max(slot[0], copies), slot[1] + extra
    assert {name for _arch, name in want} == {DUPLICATE}
    with open_source(a) as a_src, open_source(b) as b_src:
        names = _changed(a_src, b_src, "a", "b", [])
        for workers in (1, 2):
            for chunk in (1, 1 << 30):
                sources, labels = (a_src, b_src), ("a", "b")
                _old, new = read_kernel_sides(
                    sources, names, labels, workers, chunk_bytes=chunk, digests=True
                )
                assert new.duplicates == want


def test_only_entries_with_a_shared_name_and_size_are_decoded_again() -> None:
    path = library("libkern_twin.so")
    scan = scan_kernel_library(path, "b:lib")
    [chunk] = plan_kernel_chunks(0, None, scan, 1 << 30, digests=True)
    result = read_chunk(chunk)
    spots = list(result.new.spot_rows())
    assert len(spots) > 2 and not result.new.same  # noted, not hashed
    seen = Counter((arch, name, size) for arch, name, size, _n, _s in spots)
    shared = {key for key, count in seen.items() if count > 1}
    assert shared and len(shared) < len(seen)
    jobs = plan_copies(0, "new", (path, "b:lib"), scan.items, [result.new], limit=1)
    numbers = [item.number for job in jobs for item, _only in job.work]
    assert numbers == sorted({n for a, m, s, n, _st in spots if (a, m, s) in shared})
    assert len(numbers) < len(scan.items)
    hashed: Counter[tuple[str, str, bytes]] = Counter()
    for job in jobs:  # one entry a job: the copies add up across jobs
        for key, (_size, copies) in hash_copies(job).same.items():
            hashed[key] += copies
    assert {(arch, name) for arch, name, _digest in hashed} == {(a, m) for a, m, _s in shared}
    duplicated = {demangle(name).text for (_arch, name, _d), n in hashed.items() if n > 1}
    assert duplicated == {DUPLICATE}


def test_old_side_copies_not_looked_for(tmp_path: Path) -> None:
    """Only the new side's identical copies are shown (``diff --by kernel``), so the old
    side's libraries are neither noted nor decoded again for them."""
    assert _every_function_hashed("libkern_twin.so")  # the old side holds copies
    a = kernel_wheel(tmp_path / "a", "1.0", MEMBERS)
    b = kernel_wheel(tmp_path / "b", "2.0", {"kern/libkern.so": "libkern_v1.so"})
    with open_source(a) as a_src, open_source(b) as b_src:
        names = _changed(a_src, b_src, "a", "b", [])
        for workers in (1, 2):
            sources, labels = (a_src, b_src), ("a", "b")
            old, new = read_kernel_sides(sources, names, labels, workers, digests=True)
            assert old.duplicates == {} and old.items
            assert new.duplicates == _every_function_hashed("libkern_v1.so")
    # and a chunk notes the new side's functions only
    scan = scan_kernel_library(library("libkern_twin.so"), "a:lib")
    [chunk] = plan_kernel_chunks(0, scan, None, 1 << 30, digests=True)
    assert list(read_chunk(chunk).old.spot_rows()) == []

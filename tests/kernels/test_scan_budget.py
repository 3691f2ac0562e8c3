"""The pooled kernel reader keeps at most the largest library pair's bytes in temporary
files: a scan waits until the files of the pairs before it are removed, so a big pair's
chunks run before the next scans write (into the page-cache pages just freed), and the
disk never holds a big pair plus the next members (issue 30, docs/benchmarks.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kernelfx import kernel_wheel
from wheel_size.diff import by_kernels
from wheel_size.diff.by_compare import _changed
from wheel_size.kernels import copies
from wheel_size.kernels.copies import CopiesJob, CopiesResult
from wheel_size.wheel.archive import open_source

MEMBERS = {
    "kern/a.so": ("libkern_twin.so", "libkern_v1.so"),  # the largest pair
    "kern/b.so": ("libkern_v1.so", "libkern_v2.so"),
    "kern/c.so": ("libkern_v2.so", "libkern_v2_lz4.so"),
}
TWIN = {"kern/libsame.so": ("libkern_v1.so", "libkern_twin.so")}  # identical copies, new side


def wheels(tmp_path: Path, members: dict[str, tuple[str, str]]) -> tuple[Path, Path]:
    """Two versions of a kernel wheel: each member's old library, then its new one."""
    a = kernel_wheel(tmp_path / "a", "1.0", {m: old for m, (old, _new) in members.items()})
    b = kernel_wheel(tmp_path / "b", "2.0", {m: new for m, (_old, new) in members.items()})
    return a, b


def test_temporary_files_stay_within_the_largest_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = wheels(tmp_path, MEMBERS)
    seen: list[int] = []
    scan = by_kernels._scan_member

    def observed(side: str, name: str, tmp: str, *args: object) -> object:
        on_disk = sum(entry.stat().st_size for entry in os.scandir(tmp))
        seen.append(on_disk + by_kernels._SOURCES[side].member(name).size)
        return scan(side, name, tmp, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(by_kernels, "_scan_member", observed)
    with open_source(a) as a_src, open_source(b) as b_src:
        names = _changed(a_src, b_src, "a", "b", [])
        sizes = [
            a_src.member(m).size + b_src.member(m).size for m in MEMBERS
        ]  # fmt: skip
        old, new = by_kernels.read_kernel_sides((a_src, b_src), names, ("a", "b"), 1)
    assert len(seen) == 2 * len(MEMBERS)
    assert max(seen) <= max(sizes)
    assert old.items and new.items


def test_the_copies_read_the_new_side_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``diff --by kernel`` hashes the new side's candidate copies once a pair's chunks are
    back; the old side's file is removed before (room for the next scans), and the
    inventories are those of a reader that kept it."""
    a, b = wheels(tmp_path, TWIN)
    with open_source(a) as a_src, open_source(b) as b_src:
        names = _changed(a_src, b_src, "a", "b", [])
        sides = (a_src, b_src), names, ("a", "b"), 1
        want = by_kernels.read_kernel_sides(*sides, digests=True)
        files: list[int] = []
        hash_copies = copies.hash_copies

        def observed(job: CopiesJob) -> CopiesResult:
            files.append(len(list(job.file[0].parent.iterdir())))
            return hash_copies(job)

        monkeypatch.setattr(by_kernels, "hash_copies", observed)
        got = by_kernels.read_kernel_sides(*sides, digests=True)
    assert files and set(files) == {1}
    assert want[1].duplicates  # libkern_twin.so holds identical copies
    for mine, theirs in zip(got, want, strict=True):
        assert mine.items == theirs.items
        assert mine.duplicates == theirs.duplicates
        assert mine.problems == theirs.problems


def test_a_copies_job_that_fails_leaves_the_tallies_without_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new side's file cut short under a copies job (its reads fail): the chunks'
    tallies stand and the new side has no identical copies, as read without them."""
    a, b = wheels(tmp_path, TWIN)
    with open_source(a) as a_src, open_source(b) as b_src:
        names = _changed(a_src, b_src, "a", "b", [])
        sides = (a_src, b_src), names, ("a", "b"), 1
        want = by_kernels.read_kernel_sides(*sides, digests=False)
        hash_copies = copies.hash_copies

        def cut(job: CopiesJob) -> CopiesResult:
            os.truncate(job.file[0], 0)
            return hash_copies(job)

        monkeypatch.setattr(by_kernels, "hash_copies", cut)
        got = by_kernels.read_kernel_sides(*sides, digests=True)
    for mine, theirs in zip(got, want, strict=True):
        assert mine.items == theirs.items
        assert mine.problems == theirs.problems
        assert mine.duplicates == {}

"""Atomic whole-file writes (the new contents or the old, never half, never a temp file left,
one clear error when the place refuses) and output paths that stay inside their directory."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from wheel_size.errors import InputError, OutputError
from wheel_size.fileio import (
    atomic_write,
    atomic_write_all,
    atomic_write_text,
    check_writable,
    make_dirs,
    path_inside,
    remove_dirs,
)


def test_writes_creates_parents_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "report.json"
    atomic_write(target, b"one")
    atomic_write_text(target, "twö\n")
    assert target.read_bytes() == "twö\n".encode()
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["report.json"]


def test_a_failed_write_keeps_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    atomic_write_text(target, "old")
    with pytest.raises(TypeError):
        atomic_write(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


# -- refused writes --------------------------------------------------------------------------


def enospc(*args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_is_one_output_error_and_the_old_file_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The simulated fallback of tests/reliability/test_enospc.py's tmpfs: the disk fills up
    while the data is synced."""
    target = tmp_path / "report.md"
    atomic_write_text(target, "old")
    monkeypatch.setattr(os, "fsync", enospc)
    with pytest.raises(OutputError) as caught:
        atomic_write_text(target, "new")
    assert str(caught.value) == f"{target}: cannot write: No space left on device"
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_a_directory_in_the_way(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    target.mkdir()
    with pytest.raises(OutputError, match="is a directory"):
        atomic_write(target, b"x")
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]
    with pytest.raises(OutputError, match="is a directory"):
        check_writable(target)


def test_a_file_among_the_parents(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("file")
    target = blocker / "sub" / "report.md"
    with pytest.raises(OutputError) as caught:
        atomic_write(target, b"x")
    assert str(caught.value) == f"{target}: cannot write: {blocker} is not a directory"
    with pytest.raises(OutputError, match="is not a directory"):
        check_writable(target)
    with pytest.raises(OutputError, match="is not a directory"):
        make_dirs(target.parent)
    assert blocker.read_text() == "file"


def test_all_or_nothing_for_files_that_belong_together(tmp_path: Path) -> None:
    one, two = tmp_path / "r.json", tmp_path / "r.md"
    atomic_write_all([(one, b"old json"), (two, b"old md")])
    (tmp_path / "blocked.md").mkdir()
    (tmp_path / "file").write_text("x")
    for second in (tmp_path / "blocked.md", tmp_path / "file" / "r.md"):
        with pytest.raises(OutputError):
            atomic_write_all([(one, b"new json"), (second, b"new md")])
        assert one.read_bytes() == b"old json"
        assert sorted(p.name for p in tmp_path.iterdir()) == [
            "blocked.md",
            "file",
            "r.json",
            "r.md",
        ]


def test_make_dirs_reports_what_it_made(tmp_path: Path) -> None:
    made = make_dirs(tmp_path / "a" / "b" / "c")
    assert made == [tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "c"]
    (tmp_path / "a" / "b" / "keep").write_text("x")
    remove_dirs(made)  # removes only what is empty
    assert (tmp_path / "a" / "b" / "keep").exists()
    assert not (tmp_path / "a" / "b" / "c").exists()
    assert make_dirs(tmp_path / "a") == []


# -- output paths stay inside ----------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["../x.whl", "a/../../x.whl", "/etc/passwd", "", ".", "a/\nb", "x\x00y", "..", "a/.."],
)
def test_path_inside_refuses_escapes(tmp_path: Path, name: str) -> None:
    with pytest.raises(InputError):
        path_inside(tmp_path, name)


def test_path_inside_follows_symlinks_on_disk(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out" / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError, match="resolves outside"):
        path_inside(tmp_path / "out", "link/x.whl")
    assert path_inside(tmp_path / "out", "a/./b.whl") == tmp_path / "out" / "a" / "b.whl"

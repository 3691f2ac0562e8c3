"""Atomic whole-file writes: the new contents or the old, never half, never a temp file left."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from wheel_size.fileio import atomic_write, atomic_write_text


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

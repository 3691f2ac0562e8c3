"""A stored library member is read where it lies in the wheel (``split.in_place``): no
scratch copy, the same plan, staged code objects and rewritten library as the copy gives,
and a corrupt member fails as it did when it was copied."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from library_jobs import member_job
from wheel_size.errors import WheelSizeError
from wheel_size.split.work import LibraryJob, LibraryResult, library_job
from wheel_size.wheel.archive import open_source

LIBRARY = Path(__file__).resolve().parents[1] / "data" / "hip" / "libplain19.so"
NAME = "torch/lib/libplain19.so"


def _wheel(tmp_path: Path, method: int) -> Path:
    path = tmp_path / f"w{method}.zip"
    with zipfile.ZipFile(path, "w", method) as zf:
        zf.write(LIBRARY, NAME)
    return path


def _job(wheel: Path, work: Path) -> LibraryJob:
    return member_job(wheel, NAME, "lib/libplain19.so", work)


def _outputs(result: LibraryResult) -> tuple[bytes, list[bytes]]:
    assert result.stripped is not None
    staged = []
    for ref in result.code_objects:
        with ref.path.open("rb") as fh:
            fh.seek(ref.offset)
            staged.append(fh.read(ref.size))
    return result.stripped.read_bytes(), staged


def test_a_stored_member_is_split_in_place_like_a_deflated_one(tmp_path: Path) -> None:
    stored_work, deflated_work = tmp_path / "stored", tmp_path / "deflated"
    plan, stored = library_job(_job(_wheel(tmp_path, zipfile.ZIP_STORED), stored_work))
    assert plan.fat and stored is not None
    assert not list(stored_work.glob("inflated-*"))  # read in the wheel, not copied out
    _, deflated = library_job(_job(_wheel(tmp_path, zipfile.ZIP_DEFLATED), deflated_work))
    assert deflated is not None and list(deflated_work.glob("inflated-*"))
    assert _outputs(stored) == _outputs(deflated)


def test_a_stored_member_with_a_bad_crc_fails_as_before(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path, zipfile.ZIP_STORED)
    raw = open_source(wheel).member(NAME).raw
    assert raw is not None
    with wheel.open("r+b") as fh:  # one byte of the member's content flipped
        fh.seek(raw.offset + raw.size // 2)
        byte = fh.read(1)
        fh.seek(raw.offset + raw.size // 2)
        fh.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(WheelSizeError, match="bad CRC-32"):
        library_job(_job(wheel, tmp_path / "work"))


@pytest.mark.parametrize("window", [4096, 3 * 4096, 1 << 20])
@pytest.mark.parametrize(
    ("start", "length"), [(0, 0), (1, 70_001), (4095, 4097), (12_289, 200_000)]
)
def test_the_crc_pass_through_mapped_windows_matches_zlib(
    tmp_path: Path, window: int, start: int, length: int
) -> None:
    import os
    import zlib

    from wheel_size.split.in_place import _crc

    data = os.urandom(256 << 10)
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert _crc(fd, start, start + length, window) == zlib.crc32(data[start : start + length])
        # Past the file's end: read, not mapped (a mapped page past the end cannot be read).
        assert _crc(fd, len(data) - 10, len(data) + 10, window) is None
    finally:
        os.close(fd)

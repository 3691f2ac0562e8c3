"""Issue 20, point 6: each worker inflates its libraries into one scratch file, overwritten in
place (no new file and no unlink per library). A library that follows a larger one in the
same process must see exactly its own bytes: the scratch file is cut to its size, so its
plan, its RECORD hash and its rewrite are those of a fresh file.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

from fatwheel import HIP_DIR
from wheel_size.split.work import LibraryJob, library_job
from wheel_size.wheel.archive import open_source
from wheel_size.wheel.record import encode_digest

HOST = (HIP_DIR / "libhost.so").read_bytes()  # no device code
FAT = (HIP_DIR / "libplain19.so").read_bytes()  # device code for two targets


def _zip(tmp_path: Path, members: dict[str, bytes]) -> Path:
    path = tmp_path / "in.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _job(path: Path, name: str, number: int, work: Path) -> LibraryJob:
    raw = open_source(path).member(name).raw
    return LibraryJob(
        number=number,
        source=f"{path}:{name}",
        rel=name,
        raw=raw,
        file=None,
        work=work,
        search_paths=("../.kpack",),
        deflate=True,
        deflate_level=6,
    )


def test_a_smaller_library_after_a_larger_one_sees_only_its_own_bytes(tmp_path: Path) -> None:
    big = HOST + b"\0" * (len(FAT) * 3)  # a larger host-only library first
    wheel = _zip(tmp_path, {"big.so": big, "small.so": HOST, "fat.so": FAT})
    work = tmp_path / "work"
    work.mkdir()
    first, _ = library_job(_job(wheel, "big.so", 0, work))
    second, _ = library_job(_job(wheel, "small.so", 1, work))
    fat_plan, fat_result = library_job(_job(wheel, "fat.so", 2, work))

    assert first.size == len(big) and not first.fat
    assert second.size == len(HOST) and not second.fat
    assert second.content_hash == "sha256=" + encode_digest(hashlib.sha256(HOST).digest())
    assert fat_plan.fat and fat_plan.size == len(FAT)
    # The same library inflated into a fresh work directory is rewritten to the same bytes.
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    _, alone = library_job(_job(wheel, "fat.so", 2, fresh))
    assert fat_result is not None and alone is not None
    assert fat_result.stripped is not None and alone.stripped is not None
    assert fat_result.stripped.read_bytes() == alone.stripped.read_bytes()
    assert fat_result.stripped_hash == alone.stripped_hash
    # One scratch file for all three libraries of this process, cut to the last one's size.
    scratch = sorted(work.glob("inflated-*.bin"))
    assert len(scratch) == 1 and scratch[0].stat().st_size == len(FAT)


def test_the_scratch_files_are_deleted_once_the_library_wave_is_over(tmp_path: Path) -> None:
    """Issue 30, session 11: nothing reads a worker's scratch file after the library wave, so
    each process deletes its own as its first wheel job starts, whose writes then reuse its
    pages; the fat library's staged kernels and rewritten copy, which the wheel wave reads,
    stay. A library job after that makes the file again."""
    from wheel_size.split.work import WheelJob, write_output_wheel
    from wheel_size.wheel.writer import WheelEntry

    wheel = _zip(tmp_path, {"small.so": HOST, "fat.so": FAT})
    work = tmp_path / "work"
    work.mkdir()
    library_job(_job(wheel, "small.so", 0, work))
    _, result = library_job(_job(wheel, "fat.so", 1, work))
    assert result is not None and result.code_objects
    assert len(list(work.glob("inflated-*.bin"))) == 1
    meta = WheelEntry("x-1.0.dist-info/METADATA", data=b"Name: x\nVersion: 1.0\n")
    job = WheelJob(tmp_path / "x-1.0-py3-none-any.whl", "x-1.0.dist-info", (meta,), False, 6)
    write_output_wheel(job)
    assert not list(work.glob("inflated-*.bin"))
    staged = {ref.path for ref in result.code_objects}
    assert result.stripped is not None and result.stripped.exists()
    assert all(path.exists() for path in staged)
    library_job(_job(wheel, "small.so", 0, work))
    assert len(list(work.glob("inflated-*.bin"))) == 1

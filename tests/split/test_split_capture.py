"""The split's capture of code objects while a library is inflated (``split.capture``), on
the real clang-built fixtures: a deflated member (captured) gives exactly what the same
library stored in the wheel (read in place, never captured) gives, and a guess the plan
does not vouch for (a bundle appended after a library's own bytes) is thrown away."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest
import zstandard

from fatwheel import HIP_DIR
from hipfx import fat_libraries
from library_jobs import member_job
from wheel_size.errors import WheelSizeError
from wheel_size.rocm.offload_bundle import build_plain_bundle
from wheel_size.split.capture import ALIGN
from wheel_size.split.work import LibraryResult, library_job, read_and_plan_library
from wheel_size.wheel.record import encode_digest

NAME = "libplain19.so"
# every fixture whose device code is in plain bundles (libccob19.so's is compressed)
PLAIN = [n for n in fat_libraries() if n != "libccob19.so"]


def _zip(tmp_path: Path, name: str, data: bytes, method: int) -> Path:
    path = tmp_path / f"in-{method}.zip"
    with zipfile.ZipFile(path, "w", method) as zf:
        zf.writestr(name, data)
    return path


def _code_objects(result: LibraryResult) -> list[tuple[str, int, bytes]]:
    out = []
    for ref in result.code_objects:
        frame = ref.path.read_bytes()[ref.offset : ref.offset + ref.size]
        out.append((ref.target, ref.index, frame))
    return out


def _both(tmp_path: Path, name: str, data: bytes) -> tuple[LibraryResult, LibraryResult]:
    """The library's result from a deflated member and from a stored one."""
    results = []
    for method in (zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED):
        wheel = _zip(tmp_path, name, data, method)
        plan, result = library_job(member_job(wheel, name, name, tmp_path / f"work-{method}"))
        assert plan.fat and result is not None
        results.append(result)
    return results[0], results[1]


@pytest.mark.parametrize("name", PLAIN)
def test_a_captured_library_gives_what_its_stored_copy_gives(tmp_path: Path, name: str) -> None:
    data = (HIP_DIR / name).read_bytes()
    wheel = _zip(tmp_path, name, data, zipfile.ZIP_DEFLATED)
    plan = read_and_plan_library(member_job(wheel, name, name, tmp_path / "plan"))
    assert plan.captured, "the plain bundles were taken as the library was inflated"
    for _path, fh in (plan.staging or {}).values():
        fh.close()
    captured, stored = _both(tmp_path, name, data)
    assert _code_objects(captured) == _code_objects(stored)
    assert captured.stripped is not None and stored.stripped is not None
    assert captured.stripped.read_bytes() == stored.stripped.read_bytes()
    assert captured.stripped_hash == stored.stripped_hash


def _fake_bundle(tail_of: bytes) -> bytes:
    """Padding to the next 4 KiB boundary, then a plain bundle of large code objects (large
    enough that their interiors are left out of the scratch file) that no ELF section holds."""
    blobs = [bytes(range(256)) * 200, bytes(reversed(range(256))) * 150]
    bundle = build_plain_bundle(
        [("host-x86_64-unknown-linux-gnu-", b"")]
        + [
            (f"hipv4-amdgcn-amd-amdhsa--{t}", b)
            for t, b in zip(("gfx942", "gfx90a"), blobs, strict=True)
        ]
    )
    return bytes(-len(tail_of) % ALIGN) + bundle


def test_a_bundle_in_a_library_without_device_code_leaves_its_bytes_whole(
    tmp_path: Path,
) -> None:
    host = (HIP_DIR / "libhost.so").read_bytes()
    data = host + _fake_bundle(host)
    wheel = _zip(tmp_path, "libhost.so", data, zipfile.ZIP_DEFLATED)
    plan = read_and_plan_library(member_job(wheel, "libhost.so", "libhost.so", tmp_path / "work"))
    assert not plan.fat and plan.captured is None
    # inflated again whole: the hash is of every byte, the guessed code objects' included
    assert plan.content_hash == "sha256=" + encode_digest(hashlib.sha256(data).digest())
    assert not list((tmp_path / "work").glob("co0-*.bin"))


def test_a_bundle_outside_the_fatbin_section_is_not_taken(tmp_path: Path) -> None:
    fat = (HIP_DIR / "libplain19.so").read_bytes()
    data = fat + _fake_bundle(fat)
    wheel = _zip(tmp_path, "libplain19.so", data, zipfile.ZIP_DEFLATED)
    plan = read_and_plan_library(
        member_job(wheel, "libplain19.so", "libplain19.so", tmp_path / "plan")
    )
    assert plan.fat and plan.captured is None
    captured, stored = _both(tmp_path, "libplain19.so", data)
    assert _code_objects(captured) == _code_objects(stored)
    assert captured.stripped is not None and stored.stripped is not None
    assert captured.stripped.read_bytes() == stored.stripped.read_bytes()
    frames = [zstandard.ZstdDecompressor().decompress(f) for _t, _i, f in _code_objects(captured)]
    assert all(frame[:4] == b"\x7fELF" for frame in frames)


def _with_bad_crc(path: Path, name: str) -> None:
    """Flip the CRC-32 the zip records for ``name`` (local header and central directory)."""
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(name)
    data = bytearray(path.read_bytes())
    crc = info.CRC.to_bytes(4, "little")
    bad = (info.CRC ^ 0xFFFFFFFF).to_bytes(4, "little")
    assert data.count(crc) == 2
    path.write_bytes(bytes(data).replace(crc, bad))


def test_a_member_that_fails_its_crc_is_one_error_and_leaves_no_frames(tmp_path: Path) -> None:
    fat = (HIP_DIR / "libplain19.so").read_bytes()
    data = fat + _fake_bundle(fat)  # large code objects: holes are made before the CRC fails
    wheel = _zip(tmp_path, "libplain19.so", data, zipfile.ZIP_DEFLATED)
    _with_bad_crc(wheel, "libplain19.so")
    work = tmp_path / "work"
    with pytest.raises(WheelSizeError, match="CRC"):
        read_and_plan_library(member_job(wheel, NAME, NAME, work))
    assert not list(work.glob("co0-*.bin"))

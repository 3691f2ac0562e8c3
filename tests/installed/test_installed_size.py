"""Installed size (issue 34, point 1): the sum of a wheel's uncompressed member sizes, from
its central directory, checked against ``unzip -l`` on the same wheel."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from installed_fixtures import make_artifact, make_wheel, unzip_total
from wheel_size.errors import InvalidWheel
from wheel_size.installed import BytesRanges, FileRanges, installed_size
from wheel_size.installed.measure import NotMeasured


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_artifact_total_is_unzip_total_of_its_wheels(tmp_path: Path, method: int) -> None:
    wheels = [
        make_wheel(tmp_path / "demo-1.0-py3-none-any.whl"),
        make_wheel(tmp_path / "other-1.0-py3-none-any.whl", "other", files=9, seed=2),
    ]
    artifact = make_artifact(tmp_path / "artifact.zip", wheels, method)
    source = FileRanges(artifact)
    found = installed_size(source, "artifact.zip")
    assert found is not None
    assert dict(found.wheels) == {w.name: unzip_total(w) for w in wheels}
    assert found.installed_bytes == sum(unzip_total(w) for w in wheels)
    if method == zipfile.ZIP_STORED:
        # the artifact's tail (one read), then per wheel its local header and its tail
        assert source.reads == 1 + 2 * len(wheels)
        assert found.streamed_bytes == 0
    else:
        assert found.streamed_bytes > 0


def test_a_bare_wheel_is_summed_directly(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "demo-1.0-py3-none-any.whl", files=12)
    found = installed_size(FileRanges(wheel), wheel.name)
    assert found is not None and found.installed_bytes == unzip_total(wheel)


def test_an_artifact_without_a_wheel_has_no_installed_size(tmp_path: Path) -> None:
    path = tmp_path / "logs.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("build.log", "ok\n")
    assert installed_size(FileRanges(path), "logs.zip") is None


def test_deflated_member_over_the_stream_limit_is_not_measured(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "demo-1.0-py3-none-any.whl")
    artifact = make_artifact(tmp_path / "a.zip", [wheel], zipfile.ZIP_DEFLATED)
    with pytest.raises(NotMeasured, match="over the limit of 10"):
        installed_size(FileRanges(artifact), "a.zip", max_stream_bytes=10)


def _directory_offset(data: bytes) -> int:
    end = data.rfind(b"PK\x05\x06")
    return int(struct.unpack_from("<L", data, end + 16)[0])


def _patch_first_central(data: bytes, field_offset: int, value: int) -> bytes:
    """Rewrite one 32-bit field of the first central record (a directory that lies)."""
    at = _directory_offset(data) + field_offset
    return data[:at] + struct.pack("<L", value) + data[at + 4 :]


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        (24, 10**9, "more than deflate's 1032:1"),  # uncompressed size blown up
        (20, 10**8, "run into the central directory"),  # compressed size past the directory
        (42, 10**8, "run into the central directory"),  # local header offset past it
    ],
)
def test_a_wheel_whose_central_directory_lies_is_one_line(
    tmp_path: Path, field: int, value: int, problem: str
) -> None:
    data = make_wheel(tmp_path / "demo-1.0-py3-none-any.whl").read_bytes()
    lying = _patch_first_central(data, field, value)
    with pytest.raises(InvalidWheel, match=problem) as info:
        installed_size(BytesRanges(lying, "demo.whl"), "demo.whl")
    assert "\n" not in str(info.value) and str(info.value).startswith("demo.whl: ")


def test_duplicated_entries_that_claim_more_room_than_the_zip_has(tmp_path: Path) -> None:
    """A directory repeating one member under many names sums to more data than precedes it."""
    wheel = make_wheel(tmp_path / "w.whl", files=2)
    data = wheel.read_bytes()
    cd = _directory_offset(data)
    end = data.rfind(b"PK\x05\x06")
    first_len = 46 + sum(struct.unpack_from("<3H", data, cd + 28))
    record = bytearray(data[cd : cd + first_len])
    clones = b"".join(
        bytes(record[:46])
        + bytes(record[46:]).replace(b"demo/", f"dup{i}/".encode().ljust(5, b"_")[:5])
        for i in range(40)
    )
    directory = data[cd:end] + clones
    eocd = bytearray(data[end:])
    count = struct.unpack_from("<H", eocd, 10)[0] + 40
    struct.pack_into("<HHLL", eocd, 8, count, count, len(directory), cd)
    lying = data[:cd] + directory + bytes(eocd)
    with pytest.raises(InvalidWheel, match="bytes of members before it"):
        installed_size(BytesRanges(lying, "w.whl"), "w.whl")


def test_truncated_deflated_member_is_one_line(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "demo-1.0-py3-none-any.whl")
    artifact = make_artifact(tmp_path / "a.zip", [wheel], zipfile.ZIP_DEFLATED).read_bytes()
    # the artifact's directory says the wheel inflates to more than it does
    lying = _patch_first_central(artifact, 24, len(wheel.read_bytes()) + 7)
    with pytest.raises(InvalidWheel, match="but the artifact's directory says"):
        installed_size(BytesRanges(lying, "a.zip"), "a.zip")

"""Safe wheel reading: hostile archives are refused with the file and the entry named."""

from __future__ import annotations

import io
import os
import struct
import warnings
import zipfile
from pathlib import Path
from typing import IO, cast

import pytest

from wheel_size.errors import InvalidWheel
from wheel_size.wheel.archive import (
    ArchiveLimits,
    DirectorySource,
    ZipSource,
    check_member_name,
    iter_raw,
    open_source,
)
from wheel_size.wheel.record import hash_bytes


def make_zip(path: Path, entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicates we want
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for info, data in entries:
                zf.writestr(info, data)
    return path


def simple_wheel(path: Path) -> Path:
    record = "demo/__init__.py,{},5\ndemo-1.0.dist-info/RECORD,,\n".format(hash_bytes(b"hello"))
    return make_zip(
        path,
        [
            ("demo/__init__.py", b"hello"),
            ("demo/data.bin", bytes(range(256)) * 100),
            ("demo-1.0.dist-info/RECORD", record.encode()),
        ],
    )


def test_reads_members_streaming_and_raw(tmp_path: Path) -> None:
    with ZipSource(simple_wheel(tmp_path / "demo-1.0-py3-none-any.whl")) as source:
        names = [m.name for m in source.members]
        assert names == sorted(names)
        assert source.read("demo/__init__.py") == b"hello"
        with source.open("demo/data.bin") as stream:
            assert stream.read(3) == b"\x00\x01\x02"
        member = source.member("demo/data.bin")
        assert member.raw is not None and member.raw.method == zipfile.ZIP_DEFLATED
        raw = b"".join(iter_raw(member.raw))
        assert len(raw) == member.compressed_size
        import zlib

        assert zlib.decompress(raw, -15) == bytes(range(256)) * 100
        assert source.dist_info() == "demo-1.0.dist-info"
        assert source.record()["demo/__init__.py"].hash == hash_bytes(b"hello")


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("../evil.py", "escapes the wheel root"),
        ("demo/../../evil.py", "escapes the wheel root"),
        ("/etc/passwd", "absolute path"),
        ("C:/windows/evil.dll", "absolute path"),
        ("demo\\evil.py", "backslash"),
        ("demo//x.py", "not a normalised path"),
        ("./demo.py", "not a normalised path"),
    ],
)
def test_rejects_escaping_names(tmp_path: Path, name: str, problem: str) -> None:
    path = make_zip(tmp_path / "bad.whl", [("ok.py", b""), (zipfile.ZipInfo(name), b"x")])
    with pytest.raises(InvalidWheel, match=problem) as info:
        ZipSource(path)
    assert str(path) in str(info.value) and repr(name) in str(info.value)


def test_check_member_name_accepts_ordinary_paths() -> None:
    assert check_member_name("torch/lib/libx.so", source="w") == "torch/lib/libx.so"
    assert check_member_name("a..b/c", source="w") == "a..b/c"


def test_rejects_symlink_entries(tmp_path: Path) -> None:
    info = zipfile.ZipInfo("demo/link.so")
    info.create_system = 3
    info.external_attr = 0o120777 << 16
    path = make_zip(tmp_path / "link.whl", [(info, b"/etc/passwd")])
    with pytest.raises(InvalidWheel, match=r"link\.so'.*symlink"):
        ZipSource(path)


def test_rejects_duplicate_names(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "dup.whl", [("a.py", b"1"), ("a.py", b"2")])
    with pytest.raises(InvalidWheel, match="duplicate"):
        ZipSource(path)


def test_rejects_file_that_is_also_a_directory(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "fd.whl", [("a", b"1"), ("a/b", b"2")])
    with pytest.raises(InvalidWheel, match="both a file and a directory"):
        ZipSource(path)


def test_rejects_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "junk.whl"
    path.write_bytes(b"this is not a zip file" * 10)
    with pytest.raises(InvalidWheel, match=r"junk\.whl: not a zip archive"):
        open_source(path)


def test_rejects_declared_size_beyond_the_file(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("big.bin", b"x" * 100)
    data = bytearray(buffer.getvalue())
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<LL", data, central + 20, 10**6, 10**6)
    struct.pack_into("<LL", data, 18, 10**6, 10**6)  # the local header tells the same lie
    path = tmp_path / "lie.whl"
    path.write_bytes(bytes(data))
    with pytest.raises(InvalidWheel, match=r"'big\.bin'.*runs past the end"):
        ZipSource(path)


def test_rejects_local_header_naming_another_file(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("aaaa.py", b"x")
    data = buffer.getvalue().replace(b"aaaa.py", b"bbbb.py", 1)  # the local header only
    path = tmp_path / "swap.whl"
    path.write_bytes(data)
    with pytest.raises(InvalidWheel, match="local header names a different file"):
        ZipSource(path)


def test_zip_bomb_ratio_and_total_limits(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "bomb.whl", [("zeros.bin", bytes(4 << 20))])
    with pytest.raises(InvalidWheel, match=r"zeros\.bin'.*compression ratio.*zip bomb"):
        ZipSource(path, ArchiveLimits(max_ratio=100))
    with pytest.raises(InvalidWheel, match="declared total size"):
        ZipSource(path, ArchiveLimits(max_total_size=1 << 20))
    assert ZipSource(path).member("zeros.bin").size == 4 << 20  # within the default limits


def test_directory_source(tmp_path: Path) -> None:
    root = tmp_path / "unpacked"
    (root / "demo").mkdir(parents=True)
    (root / "demo" / "a.py").write_text("x")
    (root / "demo" / "run").write_text("#!")
    (root / "demo" / "run").chmod(0o755)
    source = open_source(root)
    assert isinstance(source, DirectorySource)
    assert [m.name for m in source.members] == ["demo/a.py", "demo/run"]
    assert source.member("demo/run").executable
    assert source.read("demo/a.py") == b"x"
    assert source.member("demo/a.py").raw is None


def test_directory_source_rejects_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "unpacked"
    root.mkdir()
    (root / "link").symlink_to("/etc/passwd")
    with pytest.raises(InvalidWheel, match="'link': symlink"):
        DirectorySource(root)


def _bytes_read() -> int:
    """What this process has read from files so far (``rchar`` of ``/proc/self/io``)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux /proc/self/io")
def test_a_small_read_of_a_large_member_reads_a_little_of_the_file(tmp_path: Path) -> None:
    """Issue 30: the split reads the first 4 bytes of every member under the overlay (its
    magic). It read a whole 1 MiB chunk of compressed input for that, and the decoder
    inflated ahead through it (0.3 ms a member). A small read takes a few KiB of input; a
    large read still takes whole chunks, and the bytes are the same either way."""
    import random

    content = random.Random(30).randbytes(3 << 20)  # incompressible: 3 MiB compressed
    path = make_zip(tmp_path / "demo-1.0-py3-none-any.whl", [("demo/lib.so", content)])
    with ZipSource(path) as source, source.open("demo/lib.so") as stream:
        before = _bytes_read()
        assert stream.read(4) == content[:4]
        small = _bytes_read() - before
        assert stream.read(60) == content[4:64]
        assert _bytes_read() - before <= 16 << 10, small
        before = _bytes_read()
        assert stream.read() == content[64:]
        assert _bytes_read() - before >= source.member("demo/lib.so").compressed_size - (16 << 10)


def test_an_elf_members_headers_are_read_with_one_pass_of_inflate(tmp_path: Path) -> None:
    """Issue 30: a parser of ELF headers asks for the size (a seek to the end), then the
    section headers at the end, then the section names just before them. Each of those
    moves inflated the member again from the start (three passes: cupy-rocm-7-0 14.2.0's
    42 MiB of libraries outside the overlay cost 165 ms to check). A seek only moves the
    position now, and a read inside the chunk a move skipped is served from it."""
    from wheel_size.rocm.fatbin_library import has_hip_fatbin_data
    from wheel_size.wheel.archive import MemberReader

    hip = Path(__file__).resolve().parents[1] / "data" / "hip"
    library = (hip / "libmulti19.so").read_bytes()
    path = make_zip(tmp_path / "demo-1.0-py3-none-any.whl", [("demo/lib.so", library)])
    inflated: list[int] = []
    with ZipSource(path) as source:
        raw = source.member("demo/lib.so").raw
        assert raw is not None
        fd = os.open(path, os.O_RDONLY)
        try:
            reader = MemberReader(raw, fd, lambda produced, _raw: inflated.append(produced))
            assert has_hip_fatbin_data(cast("IO[bytes]", reader), "demo/lib.so")
            assert sum(inflated) <= len(library) + 4096  # once, and its first bytes twice
            reader.seek(0)  # and it reads the same bytes as a whole read, CRC checked
            assert reader.read() == library
        finally:
            os.close(fd)

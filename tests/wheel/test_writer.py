"""Reproducible wheel writing with verbatim copies of unchanged members."""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import pytest

from wheel_size.errors import InvalidWheel
from wheel_size.wheel.archive import RawData, ZipSource
from wheel_size.wheel.record import hash_bytes, parse_record
from wheel_size.wheel.writer import (
    WheelEntry,
    compress_file,
    deflate_file,
    iter_raw_content,
    write_tree,
    write_wheel,
)
from wheel_size.wheel.zipwrite import ZipEntryWriter

DIST = "demo-1.0.dist-info"


def source_wheel(path: Path) -> Path:
    payload = os.urandom(1 << 16) + bytes(1 << 18)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("demo/big.bin", payload)
        zf.writestr(
            f"{DIST}/RECORD",
            f"demo/big.bin,{hash_bytes(payload)},{len(payload)}\n{DIST}/RECORD,,\n",
        )
    return path


def check_record(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
        names = zf.namelist()
        entries = parse_record(zf.read(f"{DIST}/RECORD").decode())
        by_path = {e.path: e for e in entries}
        assert set(by_path) == set(names)
        for name in names:
            if name.endswith("RECORD"):
                assert by_path[name].hash is None
                continue
            data = zf.read(name)
            assert by_path[name].hash == hash_bytes(data)
            assert by_path[name].size == len(data)
    return names


def entries(tmp_path: Path, src: ZipSource) -> list[WheelEntry]:
    member = src.member("demo/big.bin")
    on_disk = tmp_path / "script.sh"
    on_disk.write_bytes(b"#!/bin/sh\necho hi\n" * 1000)
    return [
        WheelEntry(f"{DIST}/METADATA", data=b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"),
        WheelEntry("demo/big.bin", raw=member.raw, record_hash=src.record()[member.name].hash),
        WheelEntry("demo/zz_script.sh", file=on_disk, mode=0o755),
        WheelEntry("demo/stored.kpack", data=b"KPAK" * 100, compress=False),
        WheelEntry("demo/a.py", data=b"print(1)\n"),
    ]


def test_layout_record_and_verbatim_copy(tmp_path: Path) -> None:
    src = ZipSource(source_wheel(tmp_path / "in.whl"))
    out = write_wheel(
        tmp_path / "out" / "demo-1.0-py3-none-any.whl", entries(tmp_path, src), dist_info=DIST
    )
    names = check_record(out.path)
    assert names == [
        "demo/a.py",
        "demo/big.bin",
        "demo/stored.kpack",
        "demo/zz_script.sh",
        f"{DIST}/METADATA",
        f"{DIST}/RECORD",
    ]
    with zipfile.ZipFile(out.path) as zf:
        info = zf.getinfo("demo/big.bin")
        assert info.compress_type == zipfile.ZIP_DEFLATED
        assert zf.getinfo("demo/stored.kpack").compress_type == zipfile.ZIP_STORED
        assert (zf.getinfo("demo/zz_script.sh").external_attr >> 16) & 0o777 == 0o755
        assert info.date_time == (1980, 1, 1, 0, 0, 0)
    # The copied member's compressed bytes are the very bytes of the input.
    copied = ZipSource(out.path).member("demo/big.bin").raw
    original = src.member("demo/big.bin").raw
    assert copied is not None and original is not None

    def read(r: RawData) -> bytes:
        return r.path.read_bytes()[r.offset : r.offset + r.compressed_size]

    assert read(copied) == read(original)
    assert not list((tmp_path / "out").glob(".*"))  # no temporary left behind


def test_reproducible_and_source_date_epoch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = ZipSource(source_wheel(tmp_path / "in.whl"))
    first = write_wheel(tmp_path / "1.whl", entries(tmp_path, src), dist_info=DIST)
    second = write_wheel(tmp_path / "2.whl", entries(tmp_path, src)[::-1], dist_info=DIST)
    assert first.path.read_bytes() == second.path.read_bytes()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # 2023-11-14 22:13:20 UTC
    third = write_wheel(tmp_path / "3.whl", entries(tmp_path, src), dist_info=DIST)
    with zipfile.ZipFile(third.path) as zf:
        assert zf.getinfo("demo/a.py").date_time == (2023, 11, 14, 22, 13, 20)


def test_raw_member_without_known_hash_is_hashed_and_still_copied(tmp_path: Path) -> None:
    src = ZipSource(source_wheel(tmp_path / "in.whl"))
    member = src.member("demo/big.bin")
    out = write_wheel(
        tmp_path / "o.whl", [WheelEntry("demo/big.bin", raw=member.raw)], dist_info=DIST
    )
    check_record(out.path)


def test_compress_file_then_raw_copy(tmp_path: Path) -> None:
    src = tmp_path / "lib.so"
    src.write_bytes(os.urandom(1000) * 300)
    raw, digest = compress_file(src, tmp_path / "lib.deflate", level=1)
    assert digest == hash_bytes(src.read_bytes())
    out = write_wheel(
        tmp_path / "o.whl", [WheelEntry("demo/lib.so", raw=raw, record_hash=digest)], dist_info=DIST
    )
    check_record(out.path)


def test_failure_leaves_nothing(tmp_path: Path) -> None:
    bad = RawData(tmp_path / "missing", 0, 10, 10, 0, 8)
    with pytest.raises(OSError):
        write_wheel(
            tmp_path / "o.whl", [WheelEntry("x", raw=bad, record_hash="sha256=x")], dist_info=DIST
        )
    assert list(tmp_path.iterdir()) == []


def test_write_tree(tmp_path: Path) -> None:
    src = ZipSource(source_wheel(tmp_path / "in.whl"))
    out = write_tree(tmp_path / "tree", entries(tmp_path, src), dist_info=DIST)
    record = parse_record((out.path / DIST / "RECORD").read_text())
    for entry in record:
        if entry.hash:
            assert hash_bytes((out.path / entry.path).read_bytes()) == entry.hash
    assert os.access(out.path / "demo/zz_script.sh", os.X_OK)


def test_zip64_many_entries_and_large_offsets(tmp_path: Path) -> None:
    # A sparse 4.1 GiB prefix puts every entry beyond a 32-bit offset without using disk.
    path = tmp_path / "big.zip"
    with path.open("wb", buffering=0) as fp:
        fp.seek(0x1_0000_0000 + 4096)
        writer = ZipEntryWriter(fp)
        for i in range(70_000):
            writer.add_chunks(f"f{i:05}", [b"%d" % i], size_hint=8, compress=False)
        writer.add_chunks("huge-hint", [b"abc"], size_hint=1 << 33)  # ZIP64 local header
        writer.finish()
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        assert len(infos) == 70_001
        assert infos[-2].header_offset > 0xFFFFFFFF
        assert zf.read("f69999") == b"69999"
        assert zf.read("huge-hint") == b"abc"
        assert hashlib.sha256(zf.read("f00000")).digest() == hashlib.sha256(b"0").digest()


def test_streamed_content_comes_in_bounded_chunks(tmp_path: Path) -> None:
    path = tmp_path / "zeros.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(zipfile.ZipInfo("z.bin"), bytes(40 << 20), zipfile.ZIP_DEFLATED)
        zf.writestr(zipfile.ZipInfo("b.bin"), os.urandom(1000) * 3000, zipfile.ZIP_DEFLATED)
    src = ZipSource(path)
    for name in ("z.bin", "b.bin"):
        raw = src.member(name).raw
        assert raw is not None
        sizes = [len(chunk) for chunk in iter_raw_content(raw)]
        assert sum(sizes) == raw.size and max(sizes) <= 4 << 20
        assert b"".join(iter_raw_content(raw)) == src.read(name)


def test_corrupt_raw_member_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "c.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("x.bin", os.urandom(5000), zipfile.ZIP_STORED)
    raw = ZipSource(path).member("x.bin").raw
    assert raw is not None
    bad = RawData(raw.path, raw.offset, raw.compressed_size, raw.size, raw.crc32 ^ 1, raw.method)
    with pytest.raises(InvalidWheel, match="bad CRC"):
        list(iter_raw_content(bad))


@pytest.mark.parametrize("bounded", [True, False])
def test_incompressible_file_is_stored_not_grown(tmp_path: Path, bounded: bool) -> None:
    """Issue 30: bytes no compressor shrinks are described as stored, never as a deflate
    stream a few bytes longer than they are (the framing of stored blocks)."""
    src = tmp_path / "lib.so"
    data = os.urandom(3 << 20)
    src.write_bytes(data)
    done = deflate_file(src, tmp_path / "lib.deflate", level=6, bounded=bounded)
    assert done.backend == "stored"
    assert min(done.sizes.values()) > len(data)  # every stream was larger
    assert done.raw.method == 0 and done.raw.compressed_size == done.raw.size == len(data)
    assert not (tmp_path / "lib.deflate").exists()
    out = write_wheel(
        tmp_path / "o.whl",
        [WheelEntry("demo/lib.so", raw=done.raw, record_hash=done.record_hash)],
        dist_info=DIST,
    )
    with zipfile.ZipFile(out.path) as zf:
        info = zf.getinfo("demo/lib.so")
        assert info.compress_type == zipfile.ZIP_STORED
        assert info.compress_size == len(data) and zf.read(info) == data
    check_record(out.path)

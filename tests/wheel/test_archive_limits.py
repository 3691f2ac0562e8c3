"""The archive reader's limits and lies, in process: every hostile case is an InvalidWheel
naming the archive (and the member where there is one), and reading stays bounded."""

from __future__ import annotations

import os
import random
import zipfile
from pathlib import Path

import pytest

from hostile_wheels import baseline, build, case_names
from wheel_size.errors import InvalidWheel
from wheel_size.wheel.archive import (
    ArchiveLimits,
    DirectorySource,
    ZipSource,
    iter_content,
    open_regular,
    open_source,
)

# Cases cheap enough to build per test (the large ones run through the CLI test).
_SMALL = [
    c
    for c in case_names()
    if c not in {"huge_entry_count", "entry_count_lie", "deflate_bomb_declared", "overlap_bomb"}
]


def _read_everything(path: Path) -> None:
    with open_source(path) as source:
        for member in source.members:
            with source.open(member.name) as stream:
                while stream.read(1 << 20):
                    pass


@pytest.mark.parametrize("case", _SMALL)
def test_hostile_case_is_one_invalid_wheel(case: str, tmp_path: Path) -> None:
    path = build(tmp_path, case)[case]
    with pytest.raises(InvalidWheel) as caught:
        _read_everything(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert "\n" not in str(caught.value)


def test_counts_are_checked_before_the_directory_is_read(tmp_path: Path) -> None:
    path = baseline(tmp_path)
    with pytest.raises(InvalidWheel, match=r"5 entries, more than the limit of 3"):
        ZipSource(path, ArchiveLimits(max_members=3))
    with pytest.raises(InvalidWheel, match=r"central directory of \d+ bytes"):
        ZipSource(path, ArchiveLimits(max_directory_bytes=100))
    with pytest.raises(InvalidWheel, match=r"name of \d+ bytes, more than the limit of 10"):
        ZipSource(path, ArchiveLimits(max_name_bytes=10))


def test_entry_count_lie_stops_after_the_declared_count(tmp_path: Path) -> None:
    path = build(tmp_path, "entry_count_lie")["entry_count_lie"]
    with pytest.raises(InvalidWheel, match="counts 5 entries but the central directory holds"):
        ZipSource(path)


def test_a_member_never_inflates_past_its_declared_size(tmp_path: Path) -> None:
    path = build(tmp_path, "deflate_bomb")["deflate_bomb"]
    with ZipSource(path) as source, source.open("hostile/libpayload.so") as stream:
        assert len(stream.read(1000)) == 1000
        # Reaching the declared size looks one byte further: the stream must end there.
        with pytest.raises(InvalidWheel, match="inflates beyond its declared size of 1024"):
            stream.read(1 << 30)


def test_every_member_counts_toward_the_archive_budget(tmp_path: Path) -> None:
    path = tmp_path / "zeros.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(8):
            zf.writestr(f"z{i}.bin", bytes(1 << 20))  # small members, ~1000:1 each
    limits = ArchiveLimits(budget_floor=4 << 20)
    with pytest.raises(InvalidWheel, match=r"declared total size .* exceeds the archive's budget"):
        ZipSource(path, limits)
    source = ZipSource(path, ArchiveLimits(budget_floor=8 << 20, max_passes=2))
    for name in [m.name for m in source.members] * 2:
        source.read(name)
    with pytest.raises(InvalidWheel, match="more than 2 times the archive's budget"):
        source.read("z0.bin")


def test_reads_come_in_bounded_chunks_and_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "big.whl"
    data = os.urandom(1 << 16) * 200
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("z.bin", bytes(40 << 20))
        with zf.open("r.bin", "w") as stream:  # streamed: data descriptor, no local sizes
            stream.write(data)
    with ZipSource(path) as source:
        with source.open("z.bin") as stream:
            assert len(stream.read(1 << 30)) <= 4 << 20
        assert source.read("r.bin") == data
        raw = source.member("z.bin").raw
        assert raw is not None
        sizes = [len(c) for c in iter_content(raw)]
        assert sum(sizes) == 40 << 20 and max(sizes) <= 4 << 20


@pytest.mark.slow
def test_zip64_archive_reads(tmp_path: Path) -> None:
    path = tmp_path / "z64.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("a.bin", "w", force_zip64=True) as stream:
            stream.write(b"zip64" * 1000)
        for i in range(70_000):
            zf.writestr(f"f{i}", b"")
    with ZipSource(path) as source:
        assert len(source.members) == 70_001
        assert source.read("a.bin") == b"zip64" * 1000


def test_special_files_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "x-1.0-py3-none-any.whl"
    os.mkfifo(fifo)
    with pytest.raises(InvalidWheel, match=r"not a regular file \(a FIFO\)"):
        open_regular(fifo)
    with pytest.raises(InvalidWheel, match="a FIFO"):
        open_source(fifo)
    unpacked = tmp_path / "unpacked"
    (unpacked / "demo-1.0.dist-info").mkdir(parents=True)
    os.mkfifo(unpacked / "demo-1.0.dist-info" / "RECORD")
    with pytest.raises(InvalidWheel, match="not a regular file"):
        DirectorySource(unpacked)
    with pytest.raises(InvalidWheel, match="a character device"):
        open_source(Path("/dev/zero"))


def test_random_corruption_is_only_ever_invalid_wheel(tmp_path: Path) -> None:
    """Flip bytes of a real wheel (fixed seed, file-backed like the CLI): each result is a
    clean read or an InvalidWheel, never another exception."""
    good = baseline(tmp_path).read_bytes()
    rng = random.Random(10)
    path = tmp_path / "mutant.whl"
    outcomes = {"ok": 0, "refused": 0}
    for _ in range(400):
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        path.write_bytes(bytes(data[: rng.choice([len(data), rng.randrange(len(data))])]))
        try:
            _read_everything(path)
            outcomes["ok"] += 1
        except InvalidWheel:
            outcomes["refused"] += 1
    assert outcomes["refused"] > 0


def test_small_reads_and_seeks_of_a_deflated_member(tmp_path: Path) -> None:
    """Parsers of headers read a few bytes at a time and seek: every read must return what a
    plain file would (ISA-L buffers output inside its decoder, zlib keeps input aside)."""
    import io
    import zipfile

    from wheel_size.wheel.archive import open_source

    payload = bytes(range(256)) * 40
    wheel = tmp_path / "w-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("w/data.bin", payload)
        archive.writestr("w-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
    with open_source(wheel) as source, source.open("w/data.bin") as stream:
        assert stream.read(2) == payload[:2]
        assert stream.read(58) == payload[2:60]
        assert stream.seek(0x80) == 0x80 and stream.read(24) == payload[0x80:0x98]
        assert stream.seek(10) == 10 and stream.read(4) == payload[10:14]  # backwards
        assert stream.seek(-16, io.SEEK_END) == len(payload) - 16
        assert stream.read() == payload[-16:]

"""A member read through views of the archive's pages (``open(name, mapped=True)``, what
``diff --by``'s workers use) gives the bytes and the refusals an ordinary read gives."""

from __future__ import annotations

import os
import random
import zipfile
from pathlib import Path

import pytest

from wheel_size.errors import InvalidWheel
from wheel_size.wheel.archive import ZipSource


def _wheel(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _content() -> bytes:
    rng = random.Random(7)
    noise = rng.randbytes(3 << 20)  # incompressible: several 1 MiB input steps
    text = b"".join(b"kernel_%d\n" % (i % 977) for i in range(300_000))  # compressible
    return noise + text + noise[:12345]


def _read_all(source: ZipSource, name: str, mapped: bool, step: int = 1 << 20) -> bytes:
    parts = []
    with source.open(name, mapped=mapped) as stream:
        while block := stream.read(step):
            parts.append(block)
    return b"".join(parts)


@pytest.mark.parametrize("step", [4096, 1 << 20, 4 << 20])
def test_a_mapped_read_gives_the_bytes_an_ordinary_read_gives(tmp_path: Path, step: int) -> None:
    data = _content()
    path = _wheel(tmp_path / "demo-1.0-py3-none-any.whl", {"lib/big.so": data, "a.txt": b"x"})
    source = ZipSource(path)
    with source:
        assert _read_all(source, "lib/big.so", True, step) == data
        assert _read_all(source, "lib/big.so", False, step) == data
        assert _read_all(source, "a.txt", True) == b"x"


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="no /proc/self/maps here")
def test_no_mapping_outlives_the_read(tmp_path: Path) -> None:
    path = _wheel(tmp_path / "demo-1.0-py3-none-any.whl", {"lib/big.so": _content()})
    source = ZipSource(path)
    with source:
        _read_all(source, "lib/big.so", True)
        assert str(path) not in Path("/proc/self/maps").read_text()


def test_a_wheel_cut_short_after_opening_is_refused_not_mapped(tmp_path: Path) -> None:
    """Mapping bytes past the file's end would end the process (SIGBUS) when read: the
    mapped reader checks the file's size first and refuses as ``pread`` does."""
    path = _wheel(tmp_path / "demo-1.0-py3-none-any.whl", {"lib/big.so": _content()})
    source = ZipSource(path)
    with source:
        raw = source.member("lib/big.so").raw
        assert raw is not None
        os.truncate(path, raw.offset + raw.compressed_size // 2)
        for mapped in (False, True):
            with pytest.raises(InvalidWheel, match="archive truncated at offset"):
                _read_all(source, "lib/big.so", mapped)


def test_a_bad_crc_is_caught_through_the_mapping_too(tmp_path: Path) -> None:
    path = _wheel(tmp_path / "demo-1.0-py3-none-any.whl", {"lib/big.so": _content()})
    source = ZipSource(path)
    with source:
        raw = source.member("lib/big.so").raw
        assert raw is not None
        where = raw.offset + raw.compressed_size // 3
    blob = bytearray(path.read_bytes())
    blob[where] ^= 0xFF  # inside the deflate stream: corrupt data or a bad CRC
    path.write_bytes(bytes(blob))
    source = ZipSource(path)
    with source:
        for mapped in (False, True):
            with pytest.raises(InvalidWheel, match=r"big\.so"):
                _read_all(source, "lib/big.so", mapped)

"""``split.reuse.splice_library`` keeps a spliced stream only where it inflates back to the
rewritten file: a plan whose copied stretches claim bytes the rewrite changed falls back to
the full recompression (None) instead of shipping a member that fails its CRC."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from deflate_data import deflated, library
from wheel_size.split import reuse
from wheel_size.wheel.archive import RawData, iter_content
from wheel_size.wheel.deflate_index import index_file, libz_available

pytestmark = pytest.mark.skipif(not libz_available(), reason="libz cannot be loaded via ctypes")

SIZE = 3 << 20
PATCH_AT = 2 << 20


def _member(tmp_path: Path) -> tuple[RawData, bytes]:
    content = library(SIZE, seed=7)
    stream = deflated(content, 6)
    path = tmp_path / "member.deflate"
    path.write_bytes(b"PREFIX" + stream)
    raw = RawData(path, 6, len(stream), len(content), zlib.crc32(content), 8)
    return raw, content


def _stripped(tmp_path: Path, content: bytes) -> Path:
    changed = bytearray(content)
    changed[PATCH_AT : PATCH_AT + 8] = b"HIPKHIPK"
    path = tmp_path / "stripped.so"
    path.write_bytes(bytes(changed))
    return path


def test_truthful_copies_are_spliced_and_inflate_to_the_rewrite(tmp_path: Path) -> None:
    raw, content = _member(tmp_path)
    stripped = _stripped(tmp_path, content)
    copies = [(0, 0, PATCH_AT), (PATCH_AT + 8, PATCH_AT + 8, SIZE - PATCH_AT - 8)]
    done, _ = reuse.splice_library(raw, stripped, tmp_path / "out.deflate", copies, 6)
    assert done is not None and done.backend == "spliced"
    assert b"".join(iter_content(done.raw)) == stripped.read_bytes()


def test_copies_that_claim_a_patched_stretch_fall_back(tmp_path: Path) -> None:
    raw, content = _member(tmp_path)
    stripped = _stripped(tmp_path, content)
    lying = [(0, 0, SIZE)]  # the patch at PATCH_AT is not excluded
    dst = tmp_path / "out.deflate"
    done, _ = reuse.splice_library(raw, stripped, dst, lying, 6)
    assert done is None
    assert not dst.exists()


def test_a_background_index_is_the_index_built_in_line(tmp_path: Path) -> None:
    raw, _ = _member(tmp_path)
    index, seconds = reuse.BackgroundIndex(raw).result()
    assert index == index_file(raw.path, raw.offset, raw.compressed_size)
    assert seconds >= 0


def test_a_background_index_that_cannot_read_gives_none(tmp_path: Path) -> None:
    # a member whose bytes are gone (the wheel replaced under the split): no index, no
    # exception out of the thread, so the caller recompresses in full
    raw, _ = _member(tmp_path)
    gone = RawData(tmp_path / "missing.deflate", 0, raw.compressed_size, raw.size, 0, 8)
    assert reuse.BackgroundIndex(gone).result()[0] is None
    truncated = RawData(raw.path, raw.offset, raw.compressed_size // 2, raw.size, 0, 8)
    assert reuse.BackgroundIndex(truncated).result()[0] is None


def test_cancel_waits_for_the_thread(tmp_path: Path) -> None:
    raw, _ = _member(tmp_path)
    background = reuse.BackgroundIndex(raw)
    background.cancel()
    assert not background._thread.is_alive()


def test_splice_with_a_background_index(tmp_path: Path) -> None:
    raw, content = _member(tmp_path)
    stripped = _stripped(tmp_path, content)
    copies = [(0, 0, PATCH_AT), (PATCH_AT + 8, PATCH_AT + 8, SIZE - PATCH_AT - 8)]
    background = reuse.BackgroundIndex(raw)
    done, _ = reuse.splice_library(raw, stripped, tmp_path / "o.deflate", copies, 6, background)
    assert done is not None and done.backend == "spliced"
    assert b"".join(iter_content(done.raw)) == stripped.read_bytes()

"""wheel.deflate_index: every block boundary of a raw deflate stream, read through libz's
Z_BLOCK inflate, with each block's type and the final one marked."""

from __future__ import annotations

import itertools
import zlib
from pathlib import Path

import pytest

from deflate_data import code, deflated, library
from wheel_size.wheel.deflate_index import (
    MAX_BLOCKS,
    NotIndexable,
    index_file,
    index_stream,
    libz_available,
)

pytestmark = pytest.mark.skipif(not libz_available(), reason="libz cannot be loaded through ctypes")


def index_of(stream: bytes):  # type: ignore[no-untyped-def]
    return index_stream(lambda at, n: stream[at : at + n], len(stream))


def inflate_range(stream: bytes, bit: int, bit_end: int, window: bytes) -> bytes:
    """Inflate the blocks at bits [bit, bit_end) alone (shifted to a byte), primed with
    ``window``: what the index says they hold."""
    value = int.from_bytes(stream, "little") >> bit
    nbits = bit_end - bit
    # an empty final fixed block after them ends the stream: BFINAL 1, BTYPE 01, then
    # the end-of-block code (seven zero bits)
    total = (value & ((1 << nbits) - 1)) | (0b011 << nbits)
    data = total.to_bytes((nbits + 10 + 7) // 8, "little")
    decompressor = zlib.decompressobj(-15, zdict=window) if window else zlib.decompressobj(-15)
    return decompressor.decompress(data)


@pytest.mark.parametrize("level", [1, 6, 9])
def test_blocks_cover_the_stream_and_hold_what_they_say(level: int) -> None:
    data = library(600_000)
    stream = deflated(data, level)
    index = index_of(stream)
    assert index.size == len(data) and index.compressed == len(stream)
    blocks = index.blocks
    assert blocks[0].bit == 0 and blocks[0].out == 0
    assert blocks[-1].final and not any(b.final for b in blocks[:-1])
    assert blocks[-1].out_end == len(data)
    for before, after in itertools.pairwise(blocks):
        assert (before.bit_end, before.out_end) == (after.bit, after.out)
    assert {b.btype for b in blocks} >= {0, 2}  # random bytes stored, code dynamic
    for block in blocks[:-1]:
        if block.btype == 0 and block.bit % 8:  # moved off its byte, a stored block breaks
            continue
        window = data[max(0, block.out - 32768) : block.out]
        held = inflate_range(stream, block.bit, block.bit_end, window)
        assert held == data[block.out : block.out_end]


def test_tiny_member_is_one_fixed_final_block() -> None:
    index = index_of(deflated(b"hello hello", 6))
    assert [(b.btype, b.final, b.out, b.out_end) for b in index.blocks] == [(1, True, 0, 11)]


def test_sync_flushes_are_empty_stored_blocks() -> None:
    data = code(200_000, 3)
    index = index_of(deflated(data, 6, sync_every=50_000))
    empties = [b for b in index.blocks if b.out == b.out_end and b.btype == 0]
    assert len(empties) == 4
    assert [b.out for b in empties] == [50_000, 100_000, 150_000, 200_000]


def test_index_of_a_file_range(tmp_path: Path) -> None:
    stream = deflated(library(300_000), 6)
    path = tmp_path / "member.bin"
    path.write_bytes(b"header" + stream + b"trailer")
    assert index_file(path, 6, len(stream)) == index_of(stream)


def test_bits_over_sums_whole_blocks_exactly() -> None:
    stream = deflated(library(400_000), 6)
    index = index_of(stream)
    assert index.bits_over(0, index.size) == pytest.approx(index.blocks[-1].bit_end)
    middle = index.blocks[2]
    assert index.bits_over(middle.out, middle.out_end) == pytest.approx(middle.bit_end - middle.bit)


@pytest.mark.parametrize(
    "stream",
    [b"", b"\xff\xff\xff\xff", deflated(code(100_000, 4), 6)[:-50]],
    ids=["empty", "garbage", "truncated"],
)
def test_a_stream_that_does_not_inflate_is_refused(stream: bytes) -> None:
    with pytest.raises(NotIndexable):
        index_of(stream)


def test_a_stream_of_too_many_blocks_is_refused() -> None:
    # a flush after every few bytes: more blocks than the index holds, so the split keeps
    # its full recompression instead of an index of unbounded size
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    parts = []
    for at in range(0, (MAX_BLOCKS + 10) * 4, 4):
        parts.append(compressor.compress(b"abcd"))
        parts.append(compressor.flush(zlib.Z_FULL_FLUSH if at % 8 else zlib.Z_PARTIAL_FLUSH))
    stream = b"".join(parts) + compressor.flush()
    with pytest.raises(NotIndexable, match="deflate blocks"):
        index_of(stream)

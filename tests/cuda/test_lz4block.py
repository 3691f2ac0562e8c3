"""BlockDecoder.reserve: the buffer is made once for the largest block ahead, and every
block decodes into it as it would have into a buffer grown block by block."""

from __future__ import annotations

import os

from lz4 import block

from wheel_size.cuda.lz4block import BlockDecoder


def _blocks() -> list[tuple[bytes, int]]:
    datas = [os.urandom(64) * n for n in (3, 50, 7, 400, 20)]  # growing, then smaller
    return [(block.compress(d, store_size=False), len(d)) for d in datas]


def test_reserved_buffer_is_the_one_every_block_decodes_into() -> None:
    blocks = _blocks()
    decoder = BlockDecoder()
    decoder.reserve(size for _raw, size in blocks)
    buffers = set()
    grown = BlockDecoder()
    for raw, size in blocks:
        view = decoder.decode(raw, size, "x")
        buffers.add(id(view.obj))
        assert view.tobytes() == grown.decode(raw, size, "x").tobytes()
        assert view.tobytes() == block.decompress(raw, uncompressed_size=size)
    assert len(buffers) == 1  # one buffer, never grown again


def test_without_reserve_the_buffer_grows_with_each_new_largest_block() -> None:
    blocks = _blocks()
    decoder = BlockDecoder()
    buffers = [decoder.decode(raw, size, "x").obj for raw, size in blocks]  # kept alive
    assert len({id(b) for b in buffers}) == 3  # 192, 3200 and 25600 bytes


def test_reserve_leaves_sizes_no_decode_would_accept_to_the_decode() -> None:
    decoder = BlockDecoder()
    decoder.reserve([0, -5, 1 << 40])  # nothing allocated for them
    raw, size = _blocks()[0]
    first = decoder.decode(raw, size, "x")
    assert memoryview(first.obj).nbytes == size  # the buffer is the block, no larger
    decoder.reserve([])
    assert decoder.decode(raw, size, "x").obj is first.obj

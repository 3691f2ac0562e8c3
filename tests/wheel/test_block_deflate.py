"""zlib's pass in pigz's blocks (``deflate.BlockDeflate``): a standard raw deflate stream,
the same bytes whatever the thread count (``--jobs`` never changes an output), zlib's own
stream for a member of one block, and within a tenth of a percent of it for more."""

from __future__ import annotations

import threading
import zlib
from pathlib import Path

import pytest

from wheel_size.wheel import deflate
from wheel_size.wheel.writer import deflate_file

HIP_DIR = Path(__file__).resolve().parents[1] / "data" / "hip"


def host_code() -> bytes:
    """Real library bytes, about 1 MB (compressible like host code)."""
    return b"".join(p.read_bytes() for p in sorted(HIP_DIR.glob("*.so")))


def zlib6(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def blocked(data: bytes, threads: int, block: int, feed: int = 100_000) -> bytes:
    compressor = deflate.BlockDeflate(6, threads, block=block)
    out = [compressor.compress(data[at : at + feed]) for at in range(0, len(data), feed)]
    return b"".join(out) + compressor.flush()


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_blocks_are_one_stream_the_same_for_any_thread_count(threads: int) -> None:
    data = host_code()
    one = blocked(data, 1, block=64 << 10)
    assert blocked(data, threads, block=64 << 10) == one
    assert zlib.decompress(one, -15) == data
    reference = len(zlib6(data))
    assert len(one) <= reference * 1.001 + 5 * (len(data) // (64 << 10))


def test_one_block_is_zlibs_own_stream_and_empty_input_a_valid_one() -> None:
    data = host_code()[: 300 << 10]
    assert blocked(data, 2, block=len(data)) == zlib6(data)
    assert blocked(data, 2, block=len(data) + 1) == zlib6(data)
    assert zlib.decompress(blocked(b"", 2, block=1 << 20), -15) == b""


def test_deflate_file_output_does_not_depend_on_threads(tmp_path: Path) -> None:
    code = host_code()
    copies = deflate.BLOCK * 2 // len(code) + 1  # three blocks, each copy its own bytes
    src = tmp_path / "lib.so"
    src.write_bytes(
        b"".join(code.translate(bytes((b + i) % 256 for b in range(256))) for i in range(copies))
    )
    one = deflate_file(src, tmp_path / "one.deflate", threads=1)
    two = deflate_file(src, tmp_path / "two.deflate", threads=2)
    assert (tmp_path / "one.deflate").read_bytes() == (tmp_path / "two.deflate").read_bytes()
    assert one.sizes == two.sizes and one.record_hash == two.record_hash
    assert two.seconds["zlib"] > 0  # its CPU time, counted in its threads


def test_threads_follow_jobs_up_to_a_bound() -> None:
    assert [deflate.block_threads(j) for j in (1, 2, 3)] == [1, 2, 3]
    assert deflate.block_threads(64) == deflate.MAX_THREADS


def _threads_started(data: bytes, threads: int, block: int) -> tuple[bytes, set[int]]:
    """``blocked(data, threads, block)`` and the threads it started (the profile hook runs
    only in threads started after it is set)."""
    started: set[int] = set()
    threading.setprofile(lambda *_: started.add(threading.get_ident()))
    try:
        return blocked(data, threads, block), started
    finally:
        threading.setprofile(None)


def test_a_member_of_one_block_starts_no_threads() -> None:
    """Issue 30: starting a pool for one block cost more than the block (~0.1 ms of CPU and
    ~0.5 ms of wall each: every kpack of a small wheel, its metadata); the pool starts with
    a second block, and the stream is the same."""
    data = host_code()[: 300 << 10]
    one, started = _threads_started(data, 4, block=len(data))
    assert one == zlib6(data)
    assert started == set()
    many, started = _threads_started(data, 4, block=64 << 10)
    assert many == blocked(data, 1, block=64 << 10)
    assert started  # a second block: the pool runs

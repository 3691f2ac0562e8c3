"""Where the blocks of a raw deflate stream begin: a parser over a zip member's compressed
bytes, so a rewritten member can reuse the blocks it did not change
(:mod:`wheel_size.wheel.deflate_splice`).

Python's ``zlib`` module does not say where a block ends; libz itself does. Its
``inflate()`` called with ``Z_BLOCK`` returns at every block boundary, and then
``data_type & 128`` marks the boundary and ``data_type & 7`` counts the unused bits of the
last input byte it took, so the next block's header starts at bit
``total_in * 8 - (data_type & 7)`` of the stream and at byte ``total_out`` of its output.
libz is reached through ``ctypes`` (the library every CPython's ``zlib`` links); where it
cannot be loaded, :func:`libz_available` is False and callers keep recompressing in full.

The stream is read in chunks of 1 MiB bytes and its output discarded chunk by
chunk: memory is two buffers and the index (one entry per block, a few thousand for a
438 MiB library). Cost: a full zlib inflate, about 2.3x ISA-L's per output byte
(``docs/benchmarks.md``, "Split, seventh pass").
"""

from __future__ import annotations

import bisect
import ctypes
import ctypes.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

_CHUNK = 1 << 20  # bytes read, shifted or inflated at a time

__all__ = [
    "MAX_BLOCKS",
    "Block",
    "DeflateIndex",
    "NotIndexable",
    "index_file",
    "index_stream",
    "libz_available",
]

_Z_OK, _Z_STREAM_END, _Z_BUF_ERROR, _Z_BLOCK = 0, 1, -5, 5
# Most blocks indexed (~45 MB of index): zlib's blocks hold some 16 K symbols each (6,157 in
# jax-rocm7-pjrt's 133 MB member); a stream cut into more (a flush every few bytes) is not
# worth splicing and is refused, so memory stays bounded whatever the member.
MAX_BLOCKS = 1 << 18


class NotIndexable(ValueError):
    """The stream could not be indexed (corrupt, truncated, or libz refused it)."""


class _ZStream(ctypes.Structure):
    _fields_ = [
        ("next_in", ctypes.c_void_p),
        ("avail_in", ctypes.c_uint),
        ("total_in", ctypes.c_ulong),
        ("next_out", ctypes.c_void_p),
        ("avail_out", ctypes.c_uint),
        ("total_out", ctypes.c_ulong),
        ("msg", ctypes.c_char_p),
        ("state", ctypes.c_void_p),
        ("zalloc", ctypes.c_void_p),
        ("zfree", ctypes.c_void_p),
        ("opaque", ctypes.c_void_p),
        ("data_type", ctypes.c_int),
        ("adler", ctypes.c_ulong),
        ("reserved", ctypes.c_ulong),
    ]


@cache
def _libz() -> Any:
    """libz through ctypes, or None where it cannot be found or loaded."""
    name = ctypes.util.find_library("z")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
        lib.zlibVersion.restype = ctypes.c_char_p
        lib.inflateInit2_.argtypes = [
            ctypes.POINTER(_ZStream),
            ctypes.c_int,
            ctypes.c_char_p,
            ctypes.c_int,
        ]
        lib.inflate.argtypes = [ctypes.POINTER(_ZStream), ctypes.c_int]
        lib.inflateEnd.argtypes = [ctypes.POINTER(_ZStream)]
        lib.zlibVersion()
    except (OSError, AttributeError):  # pragma: no cover - an odd platform's libz
        return None
    return lib


def libz_available() -> bool:
    """Whether libz's block-by-block inflate can be reached (ctypes found and loaded it)."""
    return _libz() is not None


@dataclass(frozen=True, slots=True)
class Block:
    """One deflate block: its header at ``bit`` of the compressed stream, its output from
    byte ``out`` to ``out_end``, ending at bit ``bit_end``; ``btype`` 0 stored, 1 fixed,
    2 dynamic Huffman codes; ``final`` when its BFINAL bit is set."""

    bit: int
    bit_end: int
    out: int
    out_end: int
    btype: int
    final: bool


@dataclass(frozen=True)
class DeflateIndex:
    """Every block of a raw deflate stream of ``compressed`` bytes inflating to ``size``."""

    blocks: tuple[Block, ...]
    compressed: int
    size: int

    def bits_over(self, start: int, end: int) -> float:
        """The compressed bits the stream spends on output bytes ``[start, end)``: whole
        blocks exactly, a block cut by the range in proportion to its share of the range."""
        total = 0.0
        for block in self._overlapping(start, end):
            length = block.out_end - block.out
            if not length:
                continue
            share = min(end, block.out_end) - max(start, block.out)
            total += (block.bit_end - block.bit) * share / length
        return total

    def _overlapping(self, start: int, end: int) -> list[Block]:
        first = max(0, bisect.bisect_right(self._outs, start) - 1)
        chosen = []
        for block in self.blocks[first:]:
            if block.out >= end:
                break
            if block.out_end > start:
                chosen.append(block)
        return chosen

    @cached_property
    def _outs(self) -> list[int]:
        """Each block's first output byte, in order (for bisecting)."""
        return [b.out for b in self.blocks]


def _header(read: Callable[[int, int], bytes], bit: int) -> tuple[bool, int]:
    """BFINAL and BTYPE of the block whose header starts at ``bit``."""
    data = read(bit // 8, 2)
    value = int.from_bytes(data.ljust(2, b"\0"), "little") >> (bit % 8)
    return bool(value & 1), (value >> 1) & 3


def index_stream(read: Callable[[int, int], bytes], compressed: int) -> DeflateIndex:
    """The block index of the raw deflate stream of ``compressed`` bytes that
    ``read(offset, length)`` returns. Raises :class:`NotIndexable` for a stream libz cannot
    inflate to its end within those bytes, or when libz is not available."""
    lib = _libz()
    if lib is None:
        raise NotIndexable("libz is not available")
    stream = _ZStream()
    version = lib.zlibVersion()
    if lib.inflateInit2_(ctypes.byref(stream), -15, version, ctypes.sizeof(_ZStream)) != _Z_OK:
        raise NotIndexable("inflateInit2 failed")
    out_buffer = ctypes.create_string_buffer(_CHUNK)
    starts: list[tuple[int, int]] = [(0, 0)]
    fed = 0
    try:
        in_buffer = None
        status = _Z_OK
        while status != _Z_STREAM_END:
            if stream.avail_in == 0 and fed < compressed:
                chunk = read(fed, min(_CHUNK, compressed - fed))
                if not chunk:
                    raise NotIndexable("the compressed bytes end early")
                fed += len(chunk)
                in_buffer = ctypes.create_string_buffer(chunk, len(chunk))
                stream.next_in = ctypes.addressof(in_buffer)
                stream.avail_in = len(chunk)
            stream.next_out = ctypes.addressof(out_buffer)
            stream.avail_out = _CHUNK
            status = lib.inflate(ctypes.byref(stream), _Z_BLOCK)
            if status == _Z_BUF_ERROR and fed >= compressed:
                raise NotIndexable("the deflate stream ends before its final block")
            if status not in (_Z_OK, _Z_STREAM_END, _Z_BUF_ERROR):
                message = stream.msg.decode(errors="replace") if stream.msg else str(status)
                raise NotIndexable(f"not a valid deflate stream: {message}")
            if status == _Z_OK and stream.data_type & 128:
                point = (stream.total_in * 8 - (stream.data_type & 7), stream.total_out)
                if point != starts[-1]:
                    starts.append(point)
                    if len(starts) > MAX_BLOCKS:
                        raise NotIndexable(f"more than {MAX_BLOCKS} deflate blocks")
        end = (stream.total_in * 8 - (stream.data_type & 7), stream.total_out)
        compressed_used = stream.total_in
    finally:
        lib.inflateEnd(ctypes.byref(stream))
    blocks = []
    for i, (bit, out) in enumerate(starts):
        # libz also reports the point just past the final block's end-of-block code.
        bit_end, out_end = starts[i + 1] if i + 1 < len(starts) else end
        final, btype = _header(read, bit)
        blocks.append(Block(bit, bit_end, out, out_end, btype, final))
        if final:
            break
    if not blocks or not blocks[-1].final or blocks[-1].out_end != end[1]:
        raise NotIndexable("the stream's blocks do not end in one final block")
    return DeflateIndex(tuple(blocks), compressed_used, end[1])


def index_file(path: os.PathLike[str] | str, offset: int, compressed: int) -> DeflateIndex:
    """:func:`index_stream` over ``compressed`` bytes at ``offset`` of the file ``path``."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return index_stream(lambda at, n: os.pread(fd, n, offset + at), compressed)
    finally:
        os.close(fd)

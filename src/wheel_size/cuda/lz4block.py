"""LZ4 block decompression, for fatbin entries nvcc compressed with ``--compress-mode=speed``.

The ``lz4`` package's C decoder does the work (a pure-Python decoder ran at 5-8 MB/s, far
too slow for torch's libraries). Output is bounded by the size the entry header claims: a
block that decodes to any other size, or does not decode, is InvalidBundle.

:class:`BlockDecoder` decodes into one buffer it reuses, through the same C decoder
(``LZ4_decompress_safe``, which the ``lz4`` extension exports): torch's ~5 GB of SASS per
wheel is otherwise ~3,000 fresh allocations whose pages the kernel must fault in and zero,
a third of the decoding time. Without that symbol it falls back to ``lz4.block``.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable
from typing import Any

from lz4 import block

from wheel_size.errors import InvalidBundle

__all__ = ["BlockDecoder", "decompress_block"]


def decompress_block(data: bytes | memoryview, size: int, where: str) -> bytes:
    """The ``size`` bytes the LZ4 block ``data`` decodes to (exactly that many)."""
    try:
        out: bytes = block.decompress(data, uncompressed_size=size)
    except Exception as exc:  # lz4.block raises LZ4BlockError (a RuntimeError)
        raise InvalidBundle(f"{where}: LZ4 block does not decompress ({exc})") from None
    if len(out) != size:
        raise InvalidBundle(f"{where}: LZ4 block decodes to {len(out)} bytes, not {size}")
    return out


def _liblz4(symbol: str, *argtypes: Any) -> Any:
    """``symbol`` from the ``lz4`` extension module's liblz4, or None (other lz4 builds)."""
    try:
        from lz4.block import _block

        func = getattr(ctypes.CDLL(_block.__file__), symbol)
    except (ImportError, OSError, AttributeError):  # pragma: no cover - other lz4 builds
        return None
    func.restype = ctypes.c_int
    func.argtypes = [ctypes.c_char_p, ctypes.c_void_p, *argtypes]
    return func


_INT = ctypes.c_int
_SAFE = _liblz4("LZ4_decompress_safe", _INT, _INT)
_PARTIAL = _liblz4("LZ4_decompress_safe_partial", _INT, _INT, _INT)
_INT_MAX = (1 << 31) - 1


class BlockDecoder:
    """Decodes LZ4 blocks into a buffer that grows to the largest block and is reused: a
    returned view is valid until the next :meth:`decode`.

    A caller that knows the sizes ahead (a run of entries) reserves the largest
    once: grown block by block, the buffer of a torch diff's worker was allocated (zeroed,
    its pages faulted in) ~50 times, ~0.1 CPU-s per worker."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._pointer: Any = None

    def _room(self, size: int) -> None:
        """A buffer of at least ``size`` bytes, and the pointer liblz4 writes through."""
        if size > len(self._buffer) or self._pointer is None:
            self._buffer = bytearray(max(size, 1))
            self._pointer = (ctypes.c_char * len(self._buffer)).from_buffer(self._buffer)

    def reserve(self, sizes: Iterable[int]) -> None:
        """Make room at once for the largest of ``sizes`` (blocks about to be decoded) that
        :meth:`decode` would decode into this buffer; a size past its bounds is left to
        the decode that refuses it."""
        largest = max((s for s in sizes if 0 < s <= _INT_MAX), default=0)
        if _SAFE is not None and largest > len(self._buffer):
            self._room(largest)

    def decode(self, data: bytes, size: int, where: str) -> memoryview:
        """The ``size`` bytes the block ``data`` decodes to, exactly that many."""
        if _SAFE is None or size > _INT_MAX or len(data) > _INT_MAX:
            return memoryview(decompress_block(data, size, where))
        self._room(size)
        got = _SAFE(data, self._pointer, len(data), size)
        if got < 0:
            raise InvalidBundle(f"{where}: LZ4 block does not decompress (error {got})")
        if got != size:
            raise InvalidBundle(f"{where}: LZ4 block decodes to {got} bytes, not {size}")
        return memoryview(self._buffer)[:size]

    def decode_prefix(self, data: bytes, size: int, need: int, where: str) -> memoryview:
        """The first bytes (``need`` of them at least) of the ``size`` bytes the block
        ``data`` decodes to: what lies after is not decoded (liblz4's
        ``LZ4_decompress_safe_partial``; the whole block without it)."""
        if _PARTIAL is None or size > _INT_MAX or len(data) > _INT_MAX or need > size:
            return self.decode(data, size, where)
        self._room(size)
        got = _PARTIAL(data, self._pointer, len(data), need, size)
        if got < need:
            raise InvalidBundle(f"{where}: LZ4 block decodes to fewer than {need} bytes")
        return memoryview(self._buffer)[:got]

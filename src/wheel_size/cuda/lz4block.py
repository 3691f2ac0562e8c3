"""LZ4 block decompression, for fatbin entries nvcc compressed with ``--compress-mode=speed``.

The ``lz4`` package's C decoder does the work (a pure-Python decoder ran at 5-8 MB/s, far
too slow for torch's libraries). Output is bounded by the size the entry header claims: a
block that decodes to any other size, or does not decode, is InvalidBundle.
"""

from __future__ import annotations

from lz4 import block

from wheel_size.errors import InvalidBundle

__all__ = ["decompress_block"]


def decompress_block(data: bytes, size: int, where: str) -> bytes:
    """The ``size`` bytes the LZ4 block ``data`` decodes to (exactly that many)."""
    try:
        out: bytes = block.decompress(data, uncompressed_size=size)
    except Exception as exc:  # lz4.block raises LZ4BlockError (a RuntimeError)
        raise InvalidBundle(f"{where}: LZ4 block does not decompress ({exc})") from None
    if len(out) != size:
        raise InvalidBundle(f"{where}: LZ4 block decodes to {len(out)} bytes, not {size}")
    return out

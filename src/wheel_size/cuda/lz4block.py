"""LZ4 block decompression, for fatbin entries nvcc compressed with ``--compress-mode=speed``.

No LZ4 binding is a dependency of ours and only kernel listings need the bytes, so this is
the block format (lz4 ``doc/lz4_Block_format.md``) in a few lines. Output is bounded by
the size the entry header claims: a block that would write past it, reads past its input
or copies from before the start is InvalidBundle, and so is one that comes up short.
"""

from __future__ import annotations

from wheel_size.errors import InvalidBundle

__all__ = ["decompress_block"]


def _length(data: bytes, pos: int, value: int, where: str) -> tuple[int, int]:
    """Extend a 4-bit length of 15 with the following 255-bytes run."""
    if value != 15:
        return value, pos
    while True:
        if pos >= len(data):
            raise InvalidBundle(f"{where}: LZ4 block ends inside a length")
        byte = data[pos]
        pos += 1
        value += byte
        if byte != 255:
            return value, pos


def decompress_block(data: bytes, size: int, where: str) -> bytes:
    """The ``size`` bytes the LZ4 block ``data`` decodes to (exactly that many)."""
    out = bytearray()
    pos = 0
    end = len(data)
    while pos < end:
        token = data[pos]
        pos += 1
        literals, pos = _length(data, pos, token >> 4, where)
        if pos + literals > end or len(out) + literals > size:
            raise InvalidBundle(f"{where}: LZ4 literals run past the block or the claimed size")
        out += data[pos : pos + literals]
        pos += literals
        if pos >= end:
            break  # the last sequence has literals only
        if pos + 2 > end:
            raise InvalidBundle(f"{where}: LZ4 block ends inside an offset")
        offset = data[pos] | data[pos + 1] << 8
        pos += 2
        match, pos = _length(data, pos, token & 15, where)
        match += 4
        if offset == 0 or offset > len(out):
            raise InvalidBundle(f"{where}: LZ4 match offset {offset} points before the output")
        if len(out) + match > size:
            raise InvalidBundle(f"{where}: LZ4 block decodes past the claimed {size} bytes")
        start = len(out) - offset
        if offset >= match:
            out += out[start : start + match]
        else:  # overlapping copy: repeat the last ``offset`` bytes
            chunk = bytes(out[start:])
            out += (chunk * (match // offset + 1))[:match]
    if len(out) != size:
        raise InvalidBundle(
            f"{where}: LZ4 block decodes to {len(out)} bytes, not the claimed {size}"
        )
    return bytes(out)
